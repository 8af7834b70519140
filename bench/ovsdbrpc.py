"""A small, blocking OVSDB JSON-RPC client over a unix socket.

The benchmark talks to ovsdb-server directly instead of through ovn-nbctl
or ovsdb-client so that no process start-up is ever timed, and so that
one connection can stay open (with its monitor) for a whole run.  Only
the Python standard library is used.

Messages are JSON objects written back to back with no delimiter; a
complete message always ends with '}', so a receive buffer is only parsed
when it ends with one (a partial buffer rarely does, which keeps parsing
linear for multi-megabyte replies).
"""

import json
import socket
import time


class RpcError(Exception):
    pass


class Connection:
    def __init__(self, path, timeout=None):
        if path.startswith("unix:"):
            path = path[5:]
        deadline = time.monotonic() + 10
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.sock.settimeout(timeout)
        self.buf = ""
        self.chunks = []            # received bytes not yet in self.buf
        self.next_id = 0
        self.replies = {}
        self.notifications = []
        self.decoder = json.JSONDecoder()

    def close(self):
        self.sock.close()

    # Sending.
    def send(self, method, params, msg_id=None):
        """Sends a request and returns its id (None: a notification)."""
        if msg_id is None:
            self.next_id += 1
            msg_id = self.next_id
        msg = {"method": method, "params": params, "id": msg_id}
        self.send_raw(json.dumps(msg, separators=(",", ":")).encode())
        return msg_id

    def encode(self, method, params):
        """Pre-encodes a request, so that timing excludes JSON encoding.
        Returns (id, bytes)."""
        self.next_id += 1
        msg = {"method": method, "params": params, "id": self.next_id}
        return self.next_id, json.dumps(msg, separators=(",", ":")).encode()

    def send_raw(self, data):
        self.sock.sendall(data)

    # Receiving.
    def _parse(self):
        out = []
        while True:
            s = self.buf.lstrip()
            if not s:
                self.buf = ""
                return out
            try:
                msg, end = self.decoder.raw_decode(s)
            except json.JSONDecodeError:
                self.buf = s
                return out
            out.append(msg)
            self.buf = s[end:]

    def _dispatch(self, msg):
        if msg.get("method") == "echo":
            self.send_raw(json.dumps({"result": msg.get("params", []),
                                      "id": msg.get("id")}).encode())
        elif msg.get("method") is not None:
            self.notifications.append(msg)
        else:
            self.replies[msg.get("id")] = msg

    def poll(self, timeout=None):
        """Reads whatever arrives within TIMEOUT seconds (None: block until
        at least one message) and dispatches it.  Returns the number of
        messages read."""
        self.sock.settimeout(timeout)
        n = 0
        while True:
            try:
                data = self.sock.recv(1 << 20)
            except socket.timeout:
                return n
            if not data:
                raise RpcError("connection closed")
            self.chunks.append(data)
            if not data.rstrip().endswith(b"}"):
                continue
            self.buf += b"".join(self.chunks).decode()
            self.chunks = []
            msgs = self._parse()
            for m in msgs:
                self._dispatch(m)
            n += len(msgs)
            if msgs:
                return n

    def wait_reply(self, msg_id, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while msg_id not in self.replies:
            left = None
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RpcError("timed out waiting for reply %s" % msg_id)
            self.poll(left)
        reply = self.replies.pop(msg_id)
        if reply.get("error"):
            raise RpcError(reply["error"])
        return reply["result"]

    def call(self, method, params, timeout=None):
        return self.wait_reply(self.send(method, params), timeout)

    def transact(self, db, ops, timeout=None, check=True):
        """Runs one transaction; raises RpcError if an operation failed
        (unless CHECK is false)."""
        result = self.call("transact", [db] + list(ops), timeout)
        if check:
            check_result(result, ops)
        return result


def check_result(result, ops=()):
    for i, r in enumerate(result):
        if r and "error" in r:
            op = ops[i] if i < len(ops) else None
            raise RpcError("op %d %s: %s: %s" % (
                i, op.get("op") if op else "?", r.get("error"),
                r.get("details", "")))
