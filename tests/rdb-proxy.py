#! /usr/bin/env python3
"""A JSON-RPC proxy between a client and an ovsdb-server, both on Unix
sockets, that changes how the server's messages arrive, for the replica's
tests (tests/rdb.at).

    rdb-proxy.py [OPTIONS] LISTEN-PATH SERVER-PATH

listens on LISTEN-PATH and connects each client to SERVER-PATH.  What the
client sends goes through as it is.  What the server sends is, with

  --reencode        parsed and written out again as other, equally valid
                    JSON: members of every object in a random order, but
                    those of every other message (the second, fourth...)
                    in the reverse of the server's order (so that "result"
                    or "params" come before "id" and "method"), every
                    non-ASCII character as a \\u escape (a surrogate pair
                    outside the BMP), "/" as "\\/", in some strings (member
                    names too) some letters and digits as \\u escapes, some
                    UUIDs in upper case, integers in rows as 7.0, 7e0 or
                    70e-1, and random white space between tokens;
  --keep-order      with --reencode, keeps the members of each object in
                    the server's order;
  --names=never|always
                    with --reencode, writes no member name with \\u escapes,
                    or every one with its first character as one;
  --chunk=N         sent in pieces of 1 to N bytes, each with a write of
                    its own, so that the client reads messages, strings,
                    escapes and UTF-8 sequences cut anywhere;
  --delay=SECONDS   with --chunk, the pause after each piece, which gives
                    the client time to read it by itself;
  --cut-up=BYTES    on the first connection, closed on both sides once
                    BYTES bytes from the client went to the server, as if
                    the server died while reading a long request;
  --cut-over=BYTES  on the first connection, the first message from the
                    server longer than BYTES goes only half way before both
                    sides are closed (without --reencode: as the server
                    wrote it, so that a client that applies a message as
                    it arrives has applied half of it).

--seed=S makes the random choices repeatable; --pidfile=FILE is written
once the proxy listens; --log=FILE gets a copy of what went to the
clients.
"""

import argparse
import codecs
import json
import os
import random
import re
import select
import socket
import sys
import time


def shuffled(value, rng):
    if isinstance(value, dict):
        items = [(k, shuffled(v, rng)) for k, v in value.items()]
        rng.shuffle(items)
        return dict(items)
    if isinstance(value, list):
        return [shuffled(v, rng) for v in value]
    return value


def ws(rng):
    return rng.choice(["", "", "", " ", "\n", "\t ", "\r\n  "])


UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-"
                  r"[0-9a-f]{12}")


def uuid_case(s, rng):
    """UUID 's' (a row's, as a member name or in a ["uuid", ...] value, not
    any string that looks like one), in upper case half the time: RFC 7047
    allows either."""
    return s.upper() if UUID.fullmatch(s) and rng.random() < 0.5 else s


def encode_name(s, rng, names):
    """JSON for member name 's', as --names says."""
    if names == "never":
        return json.dumps(s, ensure_ascii=True)
    if names == "always" and s:
        return '"\\u%04x%s' % (ord(s[0]), json.dumps(s[1:],
                                                     ensure_ascii=True)[1:])
    return encode_string(s, rng)


def encode_string(s, rng):
    """JSON for string 's': ASCII only, "/" as "\\/", and in some strings
    some letters and digits as \\u escapes too."""
    if rng.random() < 0.7:
        return json.dumps(s, ensure_ascii=True).replace("/", "\\/")
    out = []
    for c in s:
        if c.isascii() and c.isalnum() and rng.random() < 0.3:
            out.append("\\u%04x" % ord(c))
        else:
            out.append(json.dumps(c, ensure_ascii=True)[1:-1]
                       .replace("/", "\\/"))
    return '"' + "".join(out) + '"'


# Members whose values hold rows: only there do integers change form, not
# in a message's "id" or a monitor's name, which the client compares with
# what it sent.
ROW_OPS = ("initial", "insert", "modify", "old", "new")


def encode_number(n, rng, in_row):
    if not in_row or isinstance(n, bool) or not isinstance(n, int):
        return json.dumps(n)
    forms = ["%d", "%d", "%d.0", "%de0"] + (["%d0e-1"] if n else [])
    return rng.choice(forms) % n


def encode(value, rng, out, names, in_row=False):
    """Appends the JSON text of 'value' to list 'out'."""
    if isinstance(value, dict):
        out.append("{" + ws(rng))
        for i, (k, v) in enumerate(value.items()):
            if i:
                out.append("," + ws(rng))
            out.append(encode_name(uuid_case(k, rng), rng, names) + ws(rng)
                       + ":" + ws(rng))
            encode(v, rng, out, names, in_row or k in ROW_OPS)
        out.append(ws(rng) + "}")
    elif isinstance(value, list):
        if (len(value) == 2 and value[0] in ("uuid", "named-uuid")
                and isinstance(value[1], str)):
            value = [value[0], uuid_case(value[1], rng)]
        out.append("[" + ws(rng))
        for i, v in enumerate(value):
            if i:
                out.append(ws(rng) + "," + ws(rng))
            encode(v, rng, out, names, in_row)
        out.append(ws(rng) + "]")
    elif isinstance(value, str):
        out.append(encode_string(value, rng))
    else:
        out.append(encode_number(value, rng, in_row))


STRUCTURE = re.compile(rb'["{}\[\]]')
IN_STRING = re.compile(rb'["\\]')


class Splitter:
    """Finds where the JSON texts (objects) of a byte stream end."""

    def __init__(self):
        self.buf = b""
        self.pos = 0                # Scanned up to here.
        self.depth = 0
        self.in_string = False

    def feed(self, data):
        """Adds 'data'; returns the complete texts now in the buffer."""
        self.buf += data
        texts = []
        buf = self.buf
        i = self.pos
        start = 0
        while True:
            if self.in_string:
                m = IN_STRING.search(buf, i)
                if not m:
                    i = len(buf)
                    break
                if m.group() == b"\\":
                    if m.end() >= len(buf):
                        i = m.start()   # The escaped byte is yet to come.
                        break
                    i = m.end() + 1
                    continue
                i = m.end()
                self.in_string = False
                continue
            m = STRUCTURE.search(buf, i)
            if not m:
                i = len(buf)
                break
            i = m.end()
            c = m.group()
            if c == b'"':
                self.in_string = True
            elif c in (b"{", b"["):
                self.depth += 1
            else:
                self.depth -= 1
                if not self.depth:
                    texts.append(buf[start:i])
                    start = i
        self.buf = buf[start:]
        self.pos = i - start
        return texts


class Conn:
    def __init__(self, n, client, server, args, rng):
        self.n = n
        self.client = client
        self.server = server
        self.args = args
        self.rng = rng
        self.to_client = b""        # Ready to send.
        self.text = ""              # Server text not yet re-encoded.
        self.utf8 = codecs.getincrementaldecoder("utf-8")()
        self.sent = 0
        self.cut = None             # Bytes to send before closing.
        self.splitter = Splitter() if args.cut_over and n == 0 else None
        self.up_left = args.cut_up if args.cut_up and n == 0 else None
        self.closed = False
        self.n_msgs = 0

    def from_server(self, data):
        if self.splitter:
            for text in self.splitter.feed(data):
                if self.cut is None and len(text) > self.args.cut_over:
                    self.cut = self.sent + len(self.to_client) + len(text) // 2
                self.to_client += text
            return
        if not self.args.reencode:
            self.to_client += data
            return
        self.text += self.utf8.decode(data)
        decoder = json.JSONDecoder()
        while True:
            s = self.text.lstrip()
            if not s:
                self.text = ""
                return
            try:
                msg, end = decoder.raw_decode(s)
            except ValueError:
                self.text = s
                return
            self.text = s[end:]
            if not self.args.keep_order:
                msg = shuffled(msg, self.rng)
                if self.n_msgs % 2 and isinstance(msg, dict):
                    msg = dict(reversed(list(
                        (k, msg[k]) for k in self.order(s[:end], msg))))
            self.n_msgs += 1
            out = []
            encode(msg, self.rng, out, self.args.names)
            self.to_client += "".join(out).encode("ascii")

    @staticmethod
    def order(text, msg):
        """The members of top-level object 'msg' in the order of their
        first appearance in 'text', its JSON."""
        return sorted(msg, key=lambda k: text.find(json.dumps(k) + ":"))

    def flush(self):
        """Sends what can go to the client now.  Returns False once the
        connection is to be closed."""
        while self.to_client:
            n = len(self.to_client)
            if self.args.chunk:
                n = min(n, self.rng.randint(1, self.args.chunk))
            if self.cut is not None:
                n = min(n, self.cut - self.sent)
                if n <= 0:
                    sys.stderr.write("connection %d cut after %d bytes\n"
                                     % (self.n + 1, self.sent))
                    return False
            self.client.setblocking(True)
            self.client.sendall(self.to_client[:n])
            if self.args.log:
                self.args.log.write(self.to_client[:n])
                self.args.log.flush()
            self.to_client = self.to_client[n:]
            self.sent += n
            if self.args.chunk and self.args.delay:
                time.sleep(self.args.delay)
        if self.cut is not None and self.sent >= self.cut:
            sys.stderr.write("connection %d cut after %d bytes\n"
                             % (self.n + 1, self.sent))
            return False
        return True

    def close(self):
        if not self.closed:
            self.closed = True
            self.client.close()
            self.server.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reencode", action="store_true")
    ap.add_argument("--keep-order", action="store_true")
    ap.add_argument("--names", choices=["never", "always"])
    ap.add_argument("--chunk", type=int, default=0)
    ap.add_argument("--delay", type=float, default=0)
    ap.add_argument("--cut-over", type=int, default=0)
    ap.add_argument("--cut-up", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pidfile")
    ap.add_argument("--log", type=argparse.FileType("wb"))
    ap.add_argument("listen")
    ap.add_argument("server")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    if os.path.exists(args.listen):
        os.unlink(args.listen)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(args.listen)
    listener.listen(16)
    if args.pidfile:
        with open(args.pidfile + ".tmp", "w") as f:
            f.write("%d\n" % os.getpid())
        os.rename(args.pidfile + ".tmp", args.pidfile)

    conns = []
    n_accepted = 0
    while True:
        rlist = [listener]
        for c in conns:
            rlist += [c.client, c.server]
        readable, _, _ = select.select(rlist, [], [])
        for s in readable:
            if s is listener:
                client, _ = listener.accept()
                server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    server.connect(args.server)
                except OSError:
                    client.close()
                    continue
                conns.append(Conn(n_accepted, client, server, args, rng))
                n_accepted += 1
                continue
            for c in conns:
                if c.closed or s not in (c.client, c.server):
                    continue
                try:
                    data = s.recv(1 << 20)
                except OSError:
                    data = b""
                if not data:
                    c.close()
                elif s is c.client:
                    if c.up_left is not None:
                        data = data[:c.up_left]
                        c.up_left -= len(data)
                    try:
                        c.server.sendall(data)
                    except OSError:
                        # The server dropped the connection.
                        c.close()
                        continue
                    if c.up_left == 0:
                        sys.stderr.write("connection %d cut after %d bytes "
                                         "from the client\n"
                                         % (c.n + 1, args.cut_up))
                        c.close()
                else:
                    c.from_server(data)
                    try:
                        if not c.flush():
                            c.close()
                    except OSError:
                        c.close()
        conns = [c for c in conns if not c.closed]


if __name__ == "__main__":
    main()
