#! /usr/bin/env python3
"""Prints what the replica (lib/rdb.h) should hold of a database, in the
form of "test-rdb dump".

    rdb-canon.py --client=OVSDB-CLIENT --schema=SCHEMA --spec=SPEC REMOTE
    rdb-canon.py --escape --spec=SPEC [TABLE] < DUMP

reads every table SPEC (lib/nb.rdb or lib/sb.rdb) names from the database
served at REMOTE, in one read-only transaction, and prints one line per row,
sorted by bytes as test-rdb sorts them:

    TABLE UUID col=value ...

following the rules of the spec, worked out here from the schema and the
spec text, independently of lib/rdb-gen.py and lib/rdb.c:

  - only the tables of the spec that the server has (its schema may be
    older than SCHEMA);
  - only the columns the spec names, in the spec's order, and only those
    with a value (a required string that is empty, an empty set or map
    print nothing; a required integer or boolean always prints); a column
    the server does not have has its default value;
  - "count" tables print their rows without columns;
  - a map with "keys=" keeps only those keys;
  - a set prints as [a,b] sorted as OVSDB sorts atoms, a map as
    {"k"="v",...} sorted by key (a UUID value as its text), a string as
    "text" without escaping;
  - a reference to a row of a replicated table prints as the row's UUID,
    with "(missing)" if that table has no such row; a required reference
    to a table that is not replicated is kept as a set of one UUID;
  - "hash=GROUP" columns print nothing themselves; instead every row of
    the table ends with " #N=set" or " #N=zero" per group, in the order
    the groups first appear, "zero" if every such column has its default
    value (an empty string, 0, false, an empty set or map).

With --escape, it reads a dump (from test-rdb or from itself) instead and
prints each row on one line in ASCII, with every other byte (a new-line
in a string too) as \\xNN, and without its UUID; with TABLE, only that
table's rows.  A row begins at a line that begins with the name of a
table of SPEC and a UUID.
"""

import argparse
import json
import re
import shlex
import subprocess
import sys


def parse_spec(path):
    """[(table, flags, [(column, flags)])] from a .rdb spec.  In a map (a
    spec with policies, docs/nb-map.md), "absent=" tables and columns are
    not replicated, an "unsupported=" table without columns is a "count"
    one, and a map column's "key" lines (less the "ignored=" ones) are its
    "keys=" unless it is "allkeys"."""
    tables = []
    with open(path) as f:
        for line in f:
            words = shlex.split(line, comments=True)
            if not words:
                continue
            if not line[0].isspace():
                assert words[0] == "table", line
                tables.append((words[1], words[2:], []))
            elif words[0] in ("key", "value"):
                cname, cflags = tables[-1][2][-1]
                if words[0] == "key" and not flag(cflags, "allkeys") \
                        and not flag(words[2:], "ignored"):
                    keys = flag(cflags, "keys")
                    keys = keys + "," if isinstance(keys, str) else ""
                    cflags[:] = [f for f in cflags
                                 if not f.startswith("keys=")]
                    cflags.append("keys=" + keys + words[1])
            else:
                tables[-1][2].append((words[0], words[1:]))
    out = []
    for table, tflags, cols in tables:
        if flag(tflags, "absent"):
            continue
        if flag(tflags, "unsupported") and not cols:
            tflags = tflags + ["count"]
        out.append((table, tflags,
                    [(c, f) for c, f in cols if not flag(f, "absent")]))
    return out


def flag(flags, name):
    """The value of NAME=VALUE in FLAGS, True for a bare NAME, else None."""
    for f in flags:
        if f == name:
            return True
        if f.startswith(name + "="):
            return f[len(name) + 1:]
    return None


def base(t):
    """(atomic type, refTable or None) of a schema base type."""
    if isinstance(t, str):
        return t, None
    return t["type"], t.get("refTable")


def col_type(schema_col):
    t = schema_col["type"]
    if isinstance(t, str):
        return {"key": base(t), "value": None, "min": 1, "max": 1}
    mx = t.get("max", 1)
    return {"key": base(t["key"]),
            "value": base(t["value"]) if "value" in t else None,
            "min": t.get("min", 1),
            "max": None if mx == "unlimited" else mx}


def atoms(datum):
    """The atoms of an OVSDB <value> that is not a map."""
    if isinstance(datum, list) and datum[0] == "set":
        return datum[1]
    return [datum]


def pairs(datum):
    assert datum[0] == "map", datum
    return datum[1]


def utf8(s):
    return s.encode("utf-8")


def sort_key(atype, atom):
    if atype == "string":
        return utf8(atom)
    if atype == "uuid":
        # Fixed-width lowercase hex: as uuid_compare_3way() orders them.
        return atom[1]
    return atom


def fmt_real(v):
    return "%g" % v


class Canon:
    def __init__(self, schema, spec, data):
        self.schema = schema
        self.spec = spec
        self.data = data            # table -> {uuid: row}
        self.names = set(t for t, _, _ in spec)

    def fmt_atom(self, atype, ref, atom):
        if atype == "string":
            return '"%s"' % atom
        if atype == "integer":
            return "%d" % atom
        if atype == "real":
            return fmt_real(atom)
        if atype == "boolean":
            return "true" if atom else "false"
        assert atype == "uuid"
        u = atom[1]
        if ref in self.names:
            return u + ("" if u in self.data[ref] else "(missing)")
        return u

    def default(self, ty):
        """The default value of a column of type 'ty', which is what the
        replica keeps of a column the server does not have."""
        if ty["value"]:
            return ["map", []]
        if ty["min"] == 1 and ty["max"] == 1 and ty["key"][0] != "uuid":
            return {"integer": 0, "real": 0.0, "boolean": False,
                    "string": ""}[ty["key"][0]]
        return ["set", []]

    def column(self, table, cname, cflags, row):
        ty = col_type(self.schema["tables"][table]["columns"][cname])
        value = row[cname] if cname in row else self.default(ty)
        (ktype, ref) = ty["key"]
        if ty["value"]:
            keys = flag(cflags, "keys")
            keep = keys.split(",") if isinstance(keys, str) else None
            # A map to UUIDs is kept as their text.
            kv = [(k, v[1] if isinstance(v, list) else v)
                  for k, v in pairs(value) if keep is None or k in keep]
            if not kv:
                return None
            kv.sort(key=lambda p: utf8(p[0]))
            return "{%s}" % ",".join('"%s"="%s"' % p for p in kv)
        a = atoms(value)
        if not a:
            return None
        if ty["min"] == 1 and ty["max"] == 1:
            if ktype == "uuid" and ref not in self.names:
                return "[%s]" % self.fmt_atom(ktype, ref, a[0])
            if ktype == "string" and a[0] == "":
                return None
            return self.fmt_atom(ktype, ref, a[0])
        if ty["max"] == 1 and (ktype == "string"
                               or (ktype == "uuid" and ref in self.names)):
            return self.fmt_atom(ktype, ref, a[0])
        a = sorted(a, key=lambda x: sort_key(ktype, x))
        return "[%s]" % ",".join(self.fmt_atom(ktype, ref, x) for x in a)

    def is_default(self, table, cname, row):
        ty = col_type(self.schema["tables"][table]["columns"][cname])
        value = row[cname] if cname in row else self.default(ty)
        if ty["value"]:
            return not pairs(value)
        for a in atoms(value):
            if ty["key"][0] == "string" and a == "":
                continue
            if ty["key"][0] in ("integer", "boolean") and not a:
                continue
            return False
        return True

    def lines(self):
        out = []
        for table, tflags, cols in self.spec:
            if table not in self.data:
                continue
            groups = []
            for cname, cflags in cols:
                g = flag(cflags, "hash")
                if g and g not in groups:
                    groups.append(g)
            for uuid, row in self.data[table].items():
                s = "%s %s" % (table, uuid)
                for cname, cflags in cols:
                    if flag(cflags, "hash"):
                        continue
                    v = self.column(table, cname, cflags, row)
                    if v is not None:
                        s += " %s=%s" % (cname, v)
                for i, g in enumerate(groups):
                    zero = all(self.is_default(table, cname, row)
                               for cname, cflags in cols
                               if flag(cflags, "hash") == g)
                    s += " #%d=%s" % (i, "zero" if zero else "set")
                out.append(utf8(s))
        return sorted(out)


def escape(spec, table):
    tables = b"|".join(re.escape(utf8(t)) for t, _, _ in spec)
    uuid = rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    start = re.compile(rb"(?:^|(?<=\n))(" + tables + rb") " + uuid)
    text = sys.stdin.buffer.read()
    starts = [m.start() for m in start.finditer(text)] + [len(text)]
    for a, b in zip(starts, starts[1:]):
        row = text[a:b]
        if row.endswith(b"\n"):
            row = row[:-1]
        name, rest = row.split(b" ", 1)
        if table and name != utf8(table):
            continue
        rest = rest[36:]
        print(name.decode() + "".join(chr(c) if 32 <= c < 127 else
                                      "\\x%02x" % c for c in rest))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--client", default="ovsdb-client")
    ap.add_argument("--schema")
    ap.add_argument("--spec", required=True)
    ap.add_argument("--escape", action="store_true")
    ap.add_argument("remote", nargs="?")
    args = ap.parse_args()

    spec = parse_spec(args.spec)
    if args.escape:
        escape(spec, args.remote)
        return

    with open(args.schema) as f:
        schema = json.load(f)
    server_schema = json.loads(subprocess.run(
        [args.client, "get-schema", args.remote, schema["name"]],
        check=True, stdout=subprocess.PIPE).stdout.decode("utf-8"))
    tables = [t for t, _, _ in spec if t in server_schema["tables"]]
    ops = [schema["name"]] + [{"op": "select", "table": t, "where": []}
                              for t in tables]
    out = subprocess.run([args.client, "query", args.remote,
                          json.dumps(ops)],
                         check=True, stdout=subprocess.PIPE).stdout
    results = json.loads(out.decode("utf-8"))
    data = {}
    for t, result in zip(tables, results):
        if "error" in result:
            sys.exit("%s: %s" % (t, result))
        data[t] = {row["_uuid"][1]: row for row in result["rows"]}
    for line in Canon(schema, spec, data).lines():
        sys.stdout.buffer.write(line + b"\n")


if __name__ == "__main__":
    main()
