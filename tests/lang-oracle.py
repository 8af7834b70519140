#!/usr/bin/env python3
"""Asks stock ovn-trace whether it accepts logical-flow matches or actions.

Usage: lang-oracle.py [--keep] DB DATAPATH INPORT match|actions FILE [SETS]

Inserts one Logical_Flow per line of FILE (as the match, or as the actions
with match "1") into the southbound database DB (a "unix:PATH" socket),
runs ovn-trace once so that it parses them all, and prints, per line, "OK"
or "ERR <ovn-trace's message>".  The flows are removed afterwards.

SETS, if given, is a file of lines "address-set NAME ADDR..." or
"port-group NAME PORT..." whose rows are inserted for the run and removed
after it.  Rows are written over JSON-RPC rather than with ovn-sbctl, so
that matches and sets of any size fit (a command line does not).  With
--keep, the flows and sets stay, so that our own checker can read the very
same rows (test-ovn-lang validate-sb)."""

import json
import socket
import os
import subprocess
import sys


class Db:
    def __init__(self, target):
        assert target.startswith("unix:")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(target[5:])
        self.buf = b""
        self.dec = json.JSONDecoder()
        self.next_id = 0

    def transact(self, *ops):
        self.next_id += 1
        msg = {"method": "transact", "id": self.next_id,
               "params": ["OVN_Southbound"] + list(ops)}
        self.sock.sendall(json.dumps(msg).encode())
        while True:
            text = self.buf.decode(errors="replace").lstrip()
            try:
                reply, end = self.dec.raw_decode(text)
            except ValueError:
                chunk = self.sock.recv(1 << 20)
                if not chunk:
                    sys.exit("lang-oracle: connection closed")
                self.buf += chunk
                continue
            self.buf = text[end:].encode()
            if reply.get("id") != self.next_id:
                continue
            if reply.get("error"):
                sys.exit("lang-oracle: %s" % reply["error"])
            for result in reply["result"]:
                if result and "error" in result:
                    sys.exit("lang-oracle: %s" % result)
            return reply["result"]

    def select(self, table, where, column="_uuid"):
        rows = self.transact({"op": "select", "table": table,
                              "where": where, "columns": [column]})
        return [row[column] for row in rows[0]["rows"]]


def main():
    argv = sys.argv[1:]
    keep = argv[:1] == ["--keep"]
    if keep:
        argv = argv[1:]
    db, datapath, inport, kind, path = argv[:5]
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f]
    sets = []
    if len(argv) > 5:
        with open(argv[5], encoding="utf-8") as f:
            sets = [line.split() for line in f if line.strip()]

    conn = Db(db)
    dps = conn.select("Datapath_Binding",
                      [["external_ids", "includes",
                        ["map", [["name", datapath]]]]])
    dp_uuid = dps[0]
    conn.transact({"op": "delete", "table": "Logical_Flow", "where": []})

    extra = []
    for words in sets:
        table, column = {"address-set": ("Address_Set", "addresses"),
                         "port-group": ("Port_Group", "ports")}[words[0]]
        extra.append((table, words[1]))
        conn.transact({"op": "delete", "table": table,
                       "where": [["name", "==", words[1]]]},
                      {"op": "insert", "table": table,
                       "row": {"name": words[1],
                               column: ["set", words[2:]]}})
    for i, line in enumerate(lines):
        match, actions = (line, "next;") if kind == "match" else ("1", line)
        conn.transact({"op": "insert", "table": "Logical_Flow",
                       "row": {"logical_datapath": dp_uuid,
                               "pipeline": "ingress", "table_id": 0,
                               "priority": i + 1, "match": match,
                               "actions": actions}})

    # Stock's, by absolute path: the test's PATH finds our own ovn-trace
    # (utilities/) first.
    trace = subprocess.run([os.environ.get("STOCK_TRACE",
                                           "/usr/bin/ovn-trace"),
                            "--db=" + db, datapath,
                            'inport == "%s"' % inport],
                           capture_output=True, text=True, check=False,
                           errors="replace")
    errors = {}
    for warning in trace.stderr.splitlines():
        if "|WARN|" not in warning:
            continue
        text = warning.split("|WARN|", 1)[1]
        for sep in (": parsing expression failed (",
                    ": parsing actions failed ("):
            if sep in text:
                item, msg = text.split(sep, 1)
                errors[item] = msg[:-1] if msg.endswith(")") else msg
    for line in lines:
        print("ERR " + errors[line] if line in errors else "OK")
    if keep:
        return

    conn.transact({"op": "delete", "table": "Logical_Flow", "where": []})
    for table, name in extra:
        conn.transact({"op": "delete", "table": table,
                       "where": [["name", "==", name]]})


if __name__ == "__main__":
    main()
