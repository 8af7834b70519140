#!/usr/bin/env python3
"""Asks stock ovn-trace whether it accepts logical-flow matches or actions.

Usage: lang-oracle.py DB DATAPATH INPORT match|actions FILE

Inserts one Logical_Flow per line of FILE (as the match, or as the actions
with match "1") into the southbound database DB, runs ovn-trace once so that
it parses them all, and prints, per line, "OK" or "ERR <ovn-trace's
message>".  The flows are removed afterwards."""

import json
import subprocess
import sys


def sbctl(db, *args):
    return subprocess.run(["ovn-sbctl", "--db=" + db] + list(args),
                          capture_output=True, text=True, check=False)


def clear_flows(db):
    uuids = sbctl(db, "--bare", "--columns=_uuid",
                  "list", "Logical_Flow").stdout.split()
    if uuids:
        args = []
        for uuid in uuids:
            args += ["--", "destroy", "Logical_Flow", uuid]
        sbctl(db, *args)


def main():
    db, datapath, inport, kind, path = sys.argv[1:6]
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f]

    dp_uuid = sbctl(db, "--bare", "--columns=_uuid", "find",
                    "Datapath_Binding",
                    "external_ids:name=" + datapath).stdout.split()[0]
    clear_flows(db)
    args = []
    for i, line in enumerate(lines):
        match, actions = (line, "next;") if kind == "match" else ("1", line)
        args += ["--", "create", "Logical_Flow",
                 "logical_datapath=" + dp_uuid, "pipeline=ingress",
                 "table_id=0", "priority=%d" % (i + 1),
                 "match=" + json.dumps(match),
                 "actions=" + json.dumps(actions)]
    result = sbctl(db, *args)
    if result.returncode:
        sys.exit("ovn-sbctl failed: " + result.stderr)

    trace = subprocess.run(["ovn-trace", "--db=" + db, datapath,
                            'inport == "%s"' % inport],
                           capture_output=True, text=True, check=False)
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
    clear_flows(db)


if __name__ == "__main__":
    main()
