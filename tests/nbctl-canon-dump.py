#! /usr/bin/env python3
"""Prints an `ovsdb-client -f json dump` in a form that does not depend on
row UUIDs, so that two databases built by different clients compare equal
when their contents do.

Each row is printed as its table name and its columns, with every UUID
reference replaced by the canonical form of the row it names (recursively)
and UUIDs that name no row replaced by "<dangling>".  Rows are sorted, so
row order does not matter either.  Columns listed with --ignore TABLE.COL
are left out (e.g. NB_Global.nb_cfg_timestamp)."""

import json
import sys


def load(stream):
    tables = {}
    for line in stream:
        line = line.strip()
        if not line:
            continue
        t = json.loads(line)
        name = t["caption"].rsplit(" table", 1)[0]
        tables[name] = [dict(zip(t["headings"], row)) for row in t["data"]]
    return tables


def main():
    ignore = set()
    args = sys.argv[1:]
    while args and args[0] == "--ignore":
        ignore.add(args[1])
        args = args[2:]
    tables = load(open(args[0]) if args else sys.stdin)

    rows = {}
    for tname, trows in tables.items():
        for row in trows:
            rows[row["_uuid"][1]] = (tname, row)

    memo = {}

    def canon_value(v, stack):
        if isinstance(v, list) and len(v) == 2 and v[0] == "uuid":
            return canon_row(v[1], stack)
        if isinstance(v, list) and len(v) == 2 and v[0] == "set":
            return ["set", sorted(json.dumps(canon_value(x, stack))
                                  for x in v[1])]
        if isinstance(v, list) and len(v) == 2 and v[0] == "map":
            return ["map", sorted(json.dumps([canon_value(k, stack),
                                              canon_value(x, stack)])
                                  for k, x in v[1])]
        return v

    def canon_row(uuid, stack):
        if uuid in memo:
            return memo[uuid]
        if uuid not in rows:
            return "<dangling>"
        if uuid in stack:
            return "<cycle>"
        tname, row = rows[uuid]
        out = {}
        for col, v in sorted(row.items()):
            if col in ("_uuid", "_version") or "%s.%s" % (tname, col) in ignore:
                continue
            out[col] = canon_value(v, stack | {uuid})
        memo[uuid] = [tname, out]
        return memo[uuid]

    lines = []
    for tname, trows in sorted(tables.items()):
        for row in trows:
            lines.append(json.dumps(canon_row(row["_uuid"][1], frozenset()),
                                    sort_keys=True))
    for line in sorted(lines):
        print(line)


if __name__ == "__main__":
    main()
