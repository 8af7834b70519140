#!/usr/bin/env python3
"""Helpers for tests/acl-validation.at.

Usage: acl-validation.py COMMAND ARGS...

  insert NB OWNER-TABLE OWNER DIRECTION PRIORITY PREFIX ACTION FILE
      Adds one ACL per line of FILE (the line is the match, taken
      verbatim) to the Logical_Switch or Port_Group named OWNER, in one
      transaction.  The ACL of line N (from 1) is named PREFIX-NN and has
      priority PRIORITY + N.

  nb-errors NB
      NB ACL_Error as "NAME|EFFECT|OWNER|ERROR" lines, sorted by name.

  unixctl-errors NB FILE
      The same lines from northd's "acl/errors" output saved in FILE (ACLs
      are named there by UUID, mapped to names through NB).

  log-counts NB LOG PREFIX
      For each ACL whose name starts with PREFIX, "NAME N" where N is the
      number of WARN lines of LOG that report it, sorted by name.

  sb-flows NB SB PREFIX
      The names of the ACLs starting with PREFIX that have at least one
      Logical_Flow in SB: with their stage-hint, or with their match as the
      flow's match or as a parenthesized part of it.

NB and SB are OVSDB remotes (e.g. unix:nb.sock)."""

import json
import re
import subprocess
import sys


def select(db, dbname, table, columns):
    txn = [dbname, {"op": "select", "table": table, "where": [],
                    "columns": columns}]
    out = subprocess.run(["ovsdb-client", "transact", db, json.dumps(txn)],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)[0]["rows"]


def uuid_of(value):
    return value[1] if isinstance(value, list) and value[0] == "uuid" else ""


def acls(nb, prefix=""):
    """Maps UUID to (name, match) for the ACLs named PREFIX..."""
    rows = select(nb, "OVN_Northbound", "ACL", ["_uuid", "name", "match"])
    result = {}
    for row in rows:
        name = row["name"] if isinstance(row["name"], str) else ""
        if name.startswith(prefix):
            result[uuid_of(row["_uuid"])] = (name, row["match"])
    return result


def cmd_insert(nb, table, owner, direction, priority, prefix, action, path):
    with open(path, encoding="utf-8") as f:
        matches = [line.rstrip("\n") for line in f]
    ops = ["OVN_Northbound"]
    names = []
    for i, match in enumerate(matches, 1):
        ops.append({"op": "insert", "table": "ACL",
                    "uuid-name": "a%d" % i,
                    "row": {"name": "%s-%02d" % (prefix, i),
                            "direction": direction,
                            "priority": int(priority) + i,
                            "match": match, "action": action}})
        names.append(["named-uuid", "a%d" % i])
    ops.append({"op": "mutate", "table": table,
                "where": [["name", "==", owner]],
                "mutations": [["acls", "insert", ["set", names]]]})
    out = subprocess.run(["ovsdb-client", "transact", nb, json.dumps(ops)],
                         capture_output=True, text=True, check=True).stdout
    result = json.loads(out)
    if any(r is None or "error" in r for r in result):
        sys.exit("transaction failed: " + out)
    if result[-1].get("count") != 1:
        sys.exit("no %s named %s" % (table, owner))


def cmd_nb_errors(nb):
    names = {u: n for u, (n, _) in acls(nb).items()}
    rows = select(nb, "OVN_Northbound", "ACL_Error",
                  ["acl", "name", "owner", "effect", "error"])
    lines = []
    for row in rows:
        acl = uuid_of(row["acl"])
        if row["name"] != names.get(acl):
            sys.exit("ACL_Error row names %r, its ACL is %r"
                     % (row["name"], names.get(acl)))
        lines.append("%s|%s|%s|%s" % (row["name"], row["effect"],
                                      row["owner"], row["error"]))
    for line in sorted(lines):
        print(line)


def cmd_unixctl_errors(nb, path):
    names = {u: n for u, (n, _) in acls(nb).items()}
    head = re.compile(r"^ACL ([0-9a-f-]{36})(?: (\S+))? of (.*) "
                      r"\((left out|compiled as drop)\)$")
    lines = []
    with open(path, encoding="utf-8") as f:
        text = f.read().split("\n")
    i = 0
    while i < len(text) and text[i]:
        m = head.match(text[i])
        if not m or not text[i + 1].startswith("  match: ") \
           or not text[i + 2].startswith("  error: "):
            sys.exit("unexpected acl/errors output: %r" % text[i:i + 3])
        uuid, name, owner, effect = m.groups()
        if (name or "") != names.get(uuid, "?"):
            sys.exit("acl/errors names %s as %r" % (uuid, name))
        lines.append("%s|%s|%s|%s" % (
            name, "drop" if effect == "compiled as drop" else "left-out",
            owner, text[i + 2][len("  error: "):]))
        i += 3
    for line in sorted(lines):
        print(line)


def cmd_log_counts(nb, log, prefix):
    with open(log, encoding="utf-8", errors="replace") as f:
        warnings = [line for line in f if "|WARN|" in line]
    for uuid, (name, _) in sorted(acls(nb, prefix).items(),
                                  key=lambda kv: kv[1][0]):
        print(name, sum("ACL %s " % uuid in line for line in warnings))


def cmd_sb_flows(nb, sb, prefix):
    flows = select(sb, "OVN_Southbound", "Logical_Flow",
                   ["match", "external_ids"])
    hints = set()
    matches = []
    for flow in flows:
        matches.append(flow["match"])
        for key, value in flow["external_ids"][1]:
            if key == "stage-hint":
                hints.add(value)
    found = set()
    for uuid, (name, match) in acls(nb, prefix).items():
        if uuid[:8] in hints:
            found.add(name)
        elif any(m == match or "(%s)" % match in m for m in matches):
            found.add(name)
    for name in sorted(found):
        print(name)


def main():
    commands = {"insert": cmd_insert, "nb-errors": cmd_nb_errors,
                "unixctl-errors": cmd_unixctl_errors,
                "log-counts": cmd_log_counts, "sb-flows": cmd_sb_flows}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        sys.exit(__doc__)
    commands[sys.argv[1]](*sys.argv[2:])


if __name__ == "__main__":
    main()
