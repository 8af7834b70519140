#! /usr/bin/env python3
"""rdb-gen.py: typed replica classes for lib/rdb.h from an OVSDB schema.

usage: rdb-gen.py header|source SCHEMA SPEC PREFIX [HEADER]

HEADER is what the source includes (default: lib/PREFIX-rdb.h).

SPEC names the tables and columns to replicate, one table per paragraph:

    table NAME [count] [quiet] [owned] [select=initial,insert,modify,delete]
        COLUMN [quiet] [keys=K1,K2] [hash=GROUP] [pooled] [packed] [shared]
               [compact]

"count" replicates a table's rows without columns (to count them);
"select" narrows the changes the server reports (default: all).  A
"quiet" column is one the replica's user writes itself: its changes are
applied but neither tracked nor wake the user up; in a "quiet" table,
rows coming and going are tracked but do not wake the user up either.
An "owned" table is one whose rows the user alone writes: a change that
is not the echo of the user's own transaction (a row it did not write,
or did not write in the transaction in flight) is tracked as "foreign"
(rdb_row_is_foreign()), quiet columns included, and wakes the user up;
in an owned table with "select" narrowed to initial and delete, the
server also reports inserts (as bare UUIDs) and modifications, so that
the user can repair them.  "keys" keeps only the
named keys of a string map.  A map of strings to UUIDs is kept as a string
map of the UUIDs' text (not as references), and one of strings to
integers as a string map of their decimal text (QoS "bandwidth").
"hash" keeps no value, only a content hash
per GROUP (see rdb_hash in lib/rdb.h).  A "pooled" string column keeps
its values in lib/strpool.h, shared with whatever else holds the same
string.  A "packed" one, exactly one string, is a 'const struct strpack
*' (lib/strpack.h): interned and compressed, NULL for the empty string
(northd's flows hold an ACL's match that way).  A "packed" string map
is one packed string too (lib/mappack.h), NULL for the empty map: for a
map that every row holds a different one of and that is rarely read, such
as Neutron's external_ids of a port.  A "shared" string
map is a pointer to a read-only smap that every row with the same map
shares ('const struct smap *options', never NULL): for a column most of
whose rows hold one of a few maps.  A "compact" column of at most one
string of an enum is a 'uint8_t', one of the generated constants
<PREFIX>_<TABLE>_<COLUMN>_<VALUE> (0, ..._NONE_, if it has none): a million
ACLs need not each keep three pointers for "to-lport", "allow-related"
and a severity.  An integer whose range in the schema fits in 32 bits is
an 'int32_t' (or 'uint32_t' if the range starts at 0 and needs the top
bit, like an ACL's label).

A spec in which a table has a policy is a map (lib/nb.rdb, see
docs/nb-map.md): each table, column, map key and string value says how the
user handles it, and the output adds 'PREFIX_rdb_map' (lib/rdb-map.h):

    table NAME [flags] on=HANDLER|recompute|unsupported=WHY|absent=WHY
        COLUMN [flags] [on=HANDLER|recompute|recompute-if-set|
                        unsupported=WHY|later=WHY|ignored=WHY|absent=WHY]
        [allkeys] [values=KIND otherwise=WHAT]
            key KEY POLICY [when=V1,V2|unless=V1,V2]
                           [values=KIND otherwise=WHAT]
            value VALUE [POLICY]

A key that is reported (unsupported, later) with "when=" is reported
only for those values, with "unless=" for any other: a value that asks for
what northd does anyway ("mcast_snoop=false") is not worth a warning.
"values=" says which values northd understands: bool (true or false, in
any case), int, uint, V1,V2 (those), or, for a string column, listed (its
"value" lines, which then need no policy of their own: they are the
column's); any other is reported as not understood, "otherwise=" saying
what northd does with it.
Every table and every column of a table that is compiled must be named.
A column without a policy has its table's.  A map column with "key" lines
keeps those keys (less the "ignored" ones) unless it is "allkeys"; one that
recomputes but has keys that do not records the keys each diff changes
("key_deltas").  An "unsupported" table is replicated without columns
unless some are listed (to name its rows in reports); "absent" tables and
columns are not replicated.  Lines are split like a shell's, so that a
reason may be quoted.

The output is C: one struct per table (members named and typed as in
OVS's IDL: 'char *name', 'struct X **ports' with 'size_t n_ports', 'struct
smap options', ...), column and table classes, and typed helpers.
"""

import json
import shlex
import sys


def die(msg):
    sys.stderr.write("rdb-gen: %s\n" % msg)
    sys.exit(1)


POLICIES = ("on", "recompute", "recompute-if-set", "unsupported", "later",
            "ignored", "absent")


def parse_policy(w, where, allowed):
    """The policy word 'w' ("on=H", "recompute", 'unsupported=REASON', ...)
    as (policy, handler, reason), or None if 'w' is no policy."""
    name, _, arg = w.partition("=")
    if name not in POLICIES:
        return None
    if name not in allowed:
        die("%s: policy %s is not allowed here" % (where, name))
    if name == "on":
        if not arg:
            die("%s: on=HANDLER needs a handler" % where)
        return ("on", arg, None)
    if name in ("unsupported", "later", "absent", "ignored"):
        if not arg:
            die('%s: %s="REASON" needs a reason' % (where, name))
        return (name, None, arg)
    if arg:
        die("%s: %s takes no argument" % (where, name))
    return (name, None, None)


VALUE_KINDS = ("bool", "int", "uint", "listed")


def parse_values(w, x, where):
    """A "values=KIND" or 'otherwise="WHAT"' word for column or key 'x':
    True if 'w' is one (and 'x' takes it).  KIND is bool, int, uint,
    listed (a column's "value" lines) or a comma-separated list."""
    name, _, arg = w.partition("=")
    if name == "otherwise":
        if not arg:
            die('%s: otherwise="WHAT NORTHD DOES" needs a text' % where)
        x["otherwise"] = arg
        return True
    if name != "values":
        return False
    if not arg:
        die("%s: values= needs %s or a list" % (where,
                                                 ", ".join(VALUE_KINDS)))
    x["values"] = arg if arg in VALUE_KINDS else arg.split(",")
    return True


def parse_spec(path):
    """Parses SPEC (see the module's docstring).  Lines are split like a
    shell's (shlex), so that a reason may be quoted."""
    tables = []
    cur = None
    col = None
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            where = "%s:%d" % (path, lineno)
            try:
                words = shlex.split(line, comments=True)
            except ValueError as e:
                die("%s: %s" % (where, e))
            if not words:
                continue
            if not line[0].isspace():
                if words[0] != "table" or len(words) < 2:
                    die("%s: expected 'table NAME'" % where)
                cur = {"name": words[1], "count": False, "quiet": False,
                       "owned": False, "select": None, "columns": [],
                       "policy": None, "line": where}
                col = None
                for w in words[2:]:
                    pol = parse_policy(w, where, ("on", "recompute",
                                                  "unsupported", "absent"))
                    if pol:
                        cur["policy"] = pol
                        if pol[0] == "unsupported":
                            cur["count"] = True
                    elif w == "count":
                        cur["count"] = True
                    elif w == "quiet":
                        cur["quiet"] = True
                    elif w == "owned":
                        cur["owned"] = True
                    elif w.startswith("select="):
                        cur["select"] = w[7:].split(",")
                    else:
                        die("%s: unknown table flag %s" % (where, w))
                tables.append(cur)
            elif words[0] in ("key", "value"):
                if col is None or len(words) < 2:
                    die("%s: '%s NAME POLICY' belongs under a column"
                        % (where, words[0]))
                item = {"name": words[1], "policy": None, "when": None,
                        "unless": None, "values": None, "otherwise": None}
                for w in words[2:]:
                    pol = parse_policy(w, where, ("on", "recompute",
                                                  "recompute-if-set",
                                                  "unsupported", "later",
                                                  "ignored"))
                    if pol:
                        item["policy"] = pol
                    elif w.startswith("when=") and words[0] == "key":
                        item["when"] = w[5:].split(",")
                    elif w.startswith("unless=") and words[0] == "key":
                        item["unless"] = w[7:].split(",")
                    elif parse_values(w, item, where) and words[0] == "key":
                        pass
                    else:
                        die("%s: unknown %s flag %s" % (where, words[0], w))
                if not item["policy"] and (words[0] == "key"
                                           or col["values"] != "listed"):
                    die("%s: %s %s needs a policy" % (where, words[0],
                                                       words[1]))
                col["keys_map" if words[0] == "key" else "values_map"] \
                    .append(item)
            else:
                if cur is None:
                    die("%s: column outside a table" % where)
                col = {"name": words[0], "quiet": False, "keys": None,
                       "hash": None, "pooled": False, "packed": False,
                       "shared": False, "allkeys": False,
                       "compact": False, "policy": None, "keys_map": [],
                       "values_map": [], "values": None,
                       "otherwise": None, "line": where}
                for w in words[1:]:
                    pol = parse_policy(w, where, POLICIES)
                    if pol:
                        col["policy"] = pol
                    elif parse_values(w, col, where):
                        pass
                    elif w == "quiet":
                        col["quiet"] = True
                    elif w.startswith("keys="):
                        col["keys"] = w[5:].split(",")
                    elif w.startswith("hash="):
                        col["hash"] = w[5:]
                    elif w == "pooled":
                        col["pooled"] = True
                    elif w == "packed":
                        col["packed"] = True
                    elif w == "shared":
                        col["shared"] = True
                    elif w == "compact":
                        col["compact"] = True
                    elif w == "allkeys":
                        col["allkeys"] = True
                    else:
                        die("%s: unknown column flag %s" % (where, w))
                cur["columns"].append(col)
    return tables


def is_weak(t):
    """Whether a schema column type refers weakly to rows."""
    if isinstance(t, str):
        return False
    return any(isinstance(t.get(k), dict) and t[k].get("refTable")
               and t[k].get("refType") == "weak" for k in ("key", "value"))


def base_type(t):
    """(atomic type, enum list or None, refTable or None)"""
    if isinstance(t, str):
        return t, None, None
    enum = None
    if "enum" in t:
        e = t["enum"]
        enum = e[1] if isinstance(e, list) and e[0] == "set" else [e]
    return t["type"], enum, t.get("refTable")


def column_type(schema_col):
    t = schema_col["type"]
    if isinstance(t, str):
        return {"key": base_type(t), "value": None, "min": 1, "max": 1,
                "range": (None, None)}
    key = base_type(t["key"])
    value = base_type(t["value"]) if "value" in t else None
    rng = (t["key"].get("minInteger"), t["key"].get("maxInteger")) \
        if isinstance(t["key"], dict) else (None, None)
    mn = t.get("min", 1)
    mx = t.get("max", 1)
    if mx == "unlimited":
        mx = None
    return {"key": key, "value": value, "min": mn, "max": mx,
            "range": rng}


RDB_TYPES = {"integer": "RDB_INTEGER", "real": "RDB_REAL",
             "boolean": "RDB_BOOLEAN", "string": "RDB_STRING",
             "uuid": "RDB_UUID"}
C_ATOMS = {"integer": "int64_t", "real": "double", "boolean": "bool",
           "string": "char *", "uuid": "struct uuid"}


def c_ident(s):
    return s.lower().replace("-", "_")


class Gen:
    def __init__(self, schema_path, spec_path, prefix):
        with open(schema_path) as f:
            self.schema = json.load(f)
        self.spec = parse_spec(spec_path)
        self.prefix = prefix
        self.P = prefix.upper()
        self.map_tables = self.spec
        self.map_mode = any(t["policy"] for t in self.spec)
        if self.map_mode:
            self.check_map()
        self.spec = [t for t in self.spec
                     if not t["policy"] or t["policy"][0] != "absent"]
        for t in self.spec:
            t["map_columns"] = t["columns"]
            t["columns"] = [c for c in t["columns"]
                            if not c["policy"] or c["policy"][0] != "absent"]
        self.names = set(t["name"] for t in self.spec)
        for t in self.spec:
            if t["name"] not in self.schema["tables"]:
                die("table %s is not in the schema" % t["name"])
            st = self.schema["tables"][t["name"]]
            groups = []
            for c in t["columns"]:
                if c["name"] not in st["columns"]:
                    die("column %s.%s is not in the schema"
                        % (t["name"], c["name"]))
                c["type"] = column_type(st["columns"][c["name"]])
                if c["hash"] and c["hash"] not in groups:
                    groups.append(c["hash"])
                if c["shared"] and (not c["type"]["value"] or c["hash"]):
                    die("%s.%s: only a string map that is kept can be "
                        "shared" % (t["name"], c["name"]))
                c["uuid_values"] = bool(
                    c["type"]["value"] and c["type"]["key"][0] == "string"
                    and c["type"]["value"][0] == "uuid" and not c["hash"])
                c["int_values"] = bool(
                    c["type"]["value"] and c["type"]["key"][0] == "string"
                    and c["type"]["value"][0] == "integer"
                    and not c["hash"])
                if (c["type"]["value"] and not c["uuid_values"]
                        and not c["int_values"]) and (
                        c["type"]["key"][0] != "string"
                        or c["type"]["value"][0] != "string"):
                    if not c["hash"]:
                        die("%s.%s: only string-to-string maps are "
                            "supported" % (t["name"], c["name"]))
                key, enum, ref = c["type"]["key"]
                if c["compact"] and (key != "string" or not enum
                                     or c["type"]["max"] != 1
                                     or c["type"]["value"] or c["hash"]
                                     or len(enum) > 254):
                    die("%s.%s: only a column of at most one string of an "
                        "enum can be compact" % (t["name"], c["name"]))
                if c["packed"] and c["type"]["value"]:
                    if (c["hash"] or c["shared"] or c["uuid_values"]
                            or c["int_values"]):
                        die("%s.%s: only a string-to-string map that is "
                            "kept whole can be packed"
                            % (t["name"], c["name"]))
                elif c["packed"] and (key != "string" or enum
                                      or c["type"]["min"] != 1
                                      or c["type"]["max"] != 1
                                      or c["hash"] or c["pooled"]):
                    die("%s.%s: only a column of exactly one string "
                        "without enums, or a string map, can be packed"
                        % (t["name"], c["name"]))
            t["groups"] = groups

    def check_map(self):
        """A spec with policies is the map of everything the user knows of
        the database: it must name every table of the schema, and every
        column of the tables it does not leave out whole."""
        declared = set(t["name"] for t in self.spec)
        for tn in sorted(self.schema["tables"]):
            if tn not in declared:
                die("table %s of the schema is not in the spec: say how it "
                    "is handled" % tn)
        for t in self.spec:
            if not t["policy"]:
                die("%s: table %s needs a policy (on=HANDLER, recompute, "
                    "unsupported=REASON or absent=REASON)"
                    % (t["line"], t["name"]))
            kind = t["policy"][0]
            if kind == "absent" and t["columns"]:
                die("%s: table %s is absent: it has no columns"
                    % (t["line"], t["name"]))
            if kind in ("unsupported", "absent"):
                # An unsupported table's rows are replicated to be reported:
                # without columns, or with those that name them.
                t["count"] = kind == "unsupported" and not t["columns"]
                for c in t["columns"]:
                    if not c["policy"]:
                        c["policy"] = ("ignored", None,
                                       "names the row in reports")
                continue
            st = self.schema["tables"][t["name"]]
            names = [c["name"] for c in t["columns"]]
            for cn in st["columns"]:
                if cn not in names:
                    die("%s: column %s.%s is not in the spec: say how it is "
                        "handled" % (t["line"], t["name"], cn))
            for c in t["columns"]:
                if not c["policy"]:
                    if c["quiet"]:
                        c["policy"] = ("ignored", None, "written by the "
                                       "replica's user")
                    else:
                        c["policy"] = t["policy"]
                for v in c["values_map"]:
                    if not v["policy"]:
                        v["policy"] = c["policy"]
                if c["values"] == "listed" and not c["values_map"]:
                    die('%s: values=listed needs "value" lines'
                        % c["line"])
                if (c["values"] or c["otherwise"]) and not (
                        c["values"] and c["otherwise"]):
                    die('%s: values= and otherwise= go together'
                        % c["line"])
                for k in c["keys_map"]:
                    if k["values"] == "listed":
                        die("%s: key %s: values=listed is for a column's "
                            "value lines; give the list" % (c["line"],
                                                           k["name"]))
                    if (k["values"] or k["otherwise"]) and not (
                            k["values"] and k["otherwise"]):
                        die('%s: key %s: values= and otherwise= go '
                            'together' % (c["line"], k["name"]))
                if c["keys_map"] and c["keys"]:
                    die("%s: keys= and key lines together" % c["line"])
                if c["keys_map"] and not c["allkeys"]:
                    c["keys"] = [k["name"] for k in c["keys_map"]
                                 if k["policy"][0] != "ignored"]

    def key_deltas(self, c):
        """Whether map column 'c' keeps only its listed keys and some of
        them recompute and others not: then a modified row remembers which
        keys changed, so that a change to keys that are not compiled costs
        no recompute."""
        if (not c["keys_map"] or c["allkeys"] or not c["policy"]
                or c["policy"][0] not in ("recompute", "recompute-if-set")):
            return False
        kinds = set(k["policy"][0] for k in c["keys_map"])
        free = kinds & {"unsupported", "later", "ignored"}
        return bool(free) and bool(kinds - free)

    def struct(self, t):
        return "%s_%s" % (self.prefix, c_ident(t))

    def table_var(self, t):
        return "%s_table_%s" % (self.prefix, c_ident(t))

    def storage(self, c):
        ty = c["type"]
        if c["hash"]:
            return "RDB_S_HASHED"
        if ty["value"]:
            if c["packed"]:
                return "RDB_S_PACKED_MAP"
            return "RDB_S_SHARED_MAP" if c["shared"] else "RDB_S_SMAP"
        key, enum, ref = ty["key"]
        if ty["min"] == 1 and ty["max"] == 1:
            if key == "uuid" and (ref not in self.names):
                return "RDB_S_ARRAY"
            return "RDB_S_SCALAR"
        if ty["max"] == 1 and key in ("string",) or \
           (ty["max"] == 1 and key == "uuid" and ref in self.names):
            return "RDB_S_OPTIONAL"
        return "RDB_S_ARRAY"

    def int32(self, c):
        """"int32_t" if 'c' is an integer, exactly one, whose range in the
        schema fits in 32 bits (an ACL's priority or tier), "uint32_t" if
        it fits only unsigned (an ACL's label), else None."""
        if c["hash"] or self.storage(c) != "RDB_S_SCALAR":
            return None
        if c["type"]["key"][0] != "integer":
            return None
        lo, hi = c["type"]["range"]
        if lo is None or hi is None:
            return None
        if lo >= -2 ** 31 and hi < 2 ** 31:
            return "int32_t"
        if lo >= 0 and hi < 2 ** 32:
            return "uint32_t"
        return None

    def member(self, t, c):
        """C declaration(s) of column 'c' of table 't'."""
        st = self.storage(c)
        name = c_ident(c["name"])
        key, enum, ref = c["type"]["key"]
        if st == "RDB_S_HASHED":
            return []
        if st == "RDB_S_SMAP":
            return ["struct smap %s;" % name]
        if st == "RDB_S_SHARED_MAP":
            return ["const struct smap *%s;" % name]
        if st == "RDB_S_PACKED_MAP":
            return ["const struct strpack *%s;  /* lib/mappack.h */" % name]
        if c["compact"]:
            return ["uint8_t %s;" % name]
        if c["packed"]:
            return ["const struct strpack *%s;" % name]
        if key == "uuid" and ref in self.names:
            elem = "struct %s *" % self.struct(ref)
        elif self.int32(c):
            elem = self.int32(c)
        else:
            elem = C_ATOMS[key]
        if st in ("RDB_S_SCALAR", "RDB_S_OPTIONAL"):
            if elem.endswith("*"):
                return ["%s%s;" % (elem, name)]
            return ["%s %s;" % (elem, name)]
        if elem.endswith("*"):
            return ["%s*%s;" % (elem, name), "size_t n_%s;" % name]
        return ["%s *%s;" % (elem, name), "size_t n_%s;" % name]

    def header(self):
        P, p = self.P, self.prefix
        guard = "LIB_%s_RDB_H" % P
        out = []
        w = out.append
        w("/* Generated by lib/rdb-gen.py from %s: do not edit. */"
          % self.schema["name"])
        w("#ifndef %s" % guard)
        w("#define %s 1" % guard)
        w("")
        w("#include <stdbool.h>")
        w("#include <stddef.h>")
        w("#include <stdint.h>")
        w('#include "lib/rdb.h"')
        w('#include "openvswitch/uuid.h"')
        w('#include "smap.h"')
        w("")
        w("extern const struct rdb_class %s_rdb_class;" % p)
        if self.map_mode:
            w('#include "lib/rdb-map.h"')
            w("extern const struct rdb_map %s_rdb_map;" % p)
        w("")
        for t in self.spec:
            w("struct %s;" % self.struct(t["name"]))
        w("")
        for t in self.spec:
            tn = t["name"]
            s = self.struct(tn)
            T = c_ident(tn).upper()
            w("/* %s%s */" % (tn, " (rows only)" if t["count"] else ""))
            w("struct %s {" % s)
            w("    struct rdb_row header_;")
            # Narrow members last, so that a row has no padding between
            # them: an ACL row is 8 bytes smaller, a million times over.
            members = [m for c in t["columns"] for m in self.member(t, c)]
            narrow = lambda m: (m.startswith(("int32_t ", "uint32_t ")) * 1
                                + m.startswith("uint8_t ") * 2
                                + m.startswith("bool ") * 3)
            for m in sorted(members, key=narrow):
                w("    %s" % m)
            if t["groups"]:
                w("    struct rdb_hash hash_[%d];" % len(t["groups"]))
            w("};")
            w("")
            if t["columns"]:
                w("enum {")
                for c in t["columns"]:
                    w("    %s_%s_COL_%s," % (P, T, c_ident(c["name"]).upper()))
                w("    %s_%s_N_COLUMNS" % (P, T))
                w("};")
                # Lets code that takes references to a column's strings
                # without a lookup (strpool_ref()) check that it may.
                for c in t["columns"]:
                    if c["pooled"]:
                        w("#define %s_%s_COL_%s_POOLED 1"
                          % (P, T, c_ident(c["name"]).upper()))
                    if c["packed"]:
                        w("#define %s_%s_COL_%s_PACKED 1"
                          % (P, T, c_ident(c["name"]).upper()))
            for c in t["columns"]:
                if c["compact"]:
                    E = "%s_%s_%s" % (P, T, c_ident(c["name"]).upper())
                    w("enum {")
                    w("    %s_NONE_,  /* No value. */" % E)
                    for e in c["type"]["key"][1]:
                        w("    %s_%s," % (E, c_ident(e).upper()))
                    w("};")
            if t["groups"]:
                w("enum {")
                for g in t["groups"]:
                    w("    %s_%s_HASH_%s," % (P, T, g.upper()))
                w("};")
            w("extern const struct rdb_table_class %s;"
              % self.table_var(tn))
            w("RDB_TABLE_FUNCS(%s, %s)" % (s, self.table_var(tn)))
            w("#define %s_%s_FOR_EACH(ROW, DB) \\" % (P, T))
            w("    for ((ROW) = %s_first(DB); (ROW); (ROW) = %s_next(ROW))"
              % (s, s))
            w("#define %s_%s_FOR_EACH_TRACKED(ROW, DB) \\" % (P, T))
            w("    for ((ROW) = %s_track_first(DB); (ROW); \\" % s)
            w("         (ROW) = %s_track_next(ROW))" % s)
            w("")
        w("#endif /* %s */" % guard)
        return "\n".join(out) + "\n"

    def source(self, header_name):
        P, p = self.P, self.prefix
        out = []
        w = out.append
        w("/* Generated by lib/rdb-gen.py from %s: do not edit. */"
          % self.schema["name"])
        w("#include <config.h>")
        w('#include "%s"' % header_name)
        w("")
        w("#include <stddef.h>")
        w("")
        for t in self.spec:
            tn = t["name"]
            s = self.struct(tn)
            T = c_ident(tn).upper()
            for c in t["columns"]:
                key, enum, ref = c["type"]["key"]
                cn = c_ident(c["name"])
                if enum and key == "string":
                    w("static const char *const %s_%s_enum[] = {"
                      % (s, cn))
                    for e in enum:
                        w('    "%s",' % e)
                    w("    NULL,")
                    w("};")
                if c["keys"]:
                    w("static const char *const %s_%s_keys[] = {" % (s, cn))
                    for k in c["keys"]:
                        w('    "%s",' % k)
                    w("    NULL,")
                    w("};")
            if t["columns"]:
                w("static const struct rdb_column_class %s_columns[] = {"
                  % s)
            for c in t["columns"]:
                key, enum, ref = c["type"]["key"]
                cn = c_ident(c["name"])
                st = self.storage(c)
                value = c["type"]["value"]
                mx = c["type"]["max"]
                w("    [%s_%s_COL_%s] = {" % (P, T, cn.upper()))
                w('        .name = "%s",' % c["name"])
                w('        .json_key = ",\\"%s\\":",' % c["name"])
                w('        .json_key_len = %d,' % (len(c["name"]) + 4))
                w("        .type = %s," % RDB_TYPES[key])
                w("        .value_type = %s,"
                  % ("RDB_STRING" if c["uuid_values"] or c["int_values"]
                     else RDB_TYPES[value[0]] if value else "RDB_VOID"))
                if c["uuid_values"]:
                    w("        .uuid_values = true,")
                if c["int_values"]:
                    w("        .int_values = true,")
                w("        .min = %d," % c["type"]["min"])
                w("        .max = %s," % ("UINT_MAX" if mx is None else mx))
                w("        .storage = %s," % st)
                if key == "uuid" and ref in self.names:
                    w("        .ref_table = &%s," % self.table_var(ref))
                if st != "RDB_S_HASHED":
                    w("        .offset = offsetof(struct %s, %s)," % (s, cn))
                if st == "RDB_S_ARRAY":
                    w("        .n_offset = offsetof(struct %s, n_%s),"
                      % (s, cn))
                if enum and key == "string":
                    w("        .enums = %s_%s_enum," % (s, cn))
                if c["keys"]:
                    w("        .keys = %s_%s_keys," % (s, cn))
                if c["hash"]:
                    w("        .hash_group = %d," % t["groups"].index(c["hash"]))
                if self.int32(c) == "int32_t":
                    w("        .int32 = true,")
                elif self.int32(c):
                    w("        .uint32 = true,")
                if c["compact"]:
                    w("        .compact = true,")
                if c["quiet"]:
                    w("        .quiet = true,")
                if is_weak(self.schema["tables"][t["name"]]["columns"]
                           [c["name"]]["type"]):
                    w("        .weak = true,")
                if c["pooled"]:
                    if key != "string" or enum or c["hash"] or value:
                        die("%s.%s: only a string column without enums "
                            "can be pooled" % (t["name"], c["name"]))
                    w("        .pooled = true,")
                if c["packed"] and not value:
                    w("        .packed = true,")
                if self.key_deltas(c):
                    w("        .key_deltas = true,")
                w("    },")
            if t["columns"]:
                w("};")
            w("")
        w("const struct rdb_table_class *const %s_tables[] = {" % p)
        for t in self.spec:
            w("    &%s," % self.table_var(t["name"]))
        w("};")
        w("")
        for i, t in enumerate(self.spec):
            tn = t["name"]
            s = self.struct(tn)
            T = c_ident(tn).upper()
            w("const struct rdb_table_class %s = {" % self.table_var(tn))
            w('    .name = "%s",' % tn)
            w('    .json_name = "\\"%s\\"",' % tn)
            w('    .json_name_len = %d,' % (len(tn) + 2))
            w("    .index = %d," % i)
            if t["columns"]:
                w("    .columns = %s_columns," % s)
                w("    .n_columns = %s_%s_N_COLUMNS," % (P, T))
            w("    .row_size = sizeof(struct %s)," % s)
            w("    .count_only = %s," % ("true" if t["count"] else "false"))
            w("    .quiet = %s," % ("true" if t["quiet"] else "false"))
            if t["owned"]:
                w("    .owned = true,")
            if not self.schema["tables"][tn].get("isRoot"):
                w("    .garbage_collected = true,")
            sel = t["select"] or ["initial", "insert", "modify", "delete"]
            w("    .select = %s," % " | ".join(
                "RDB_SELECT_%s" % x.upper() for x in sel))
            if t["groups"]:
                w("    .hash_offset = offsetof(struct %s, hash_)," % s)
                w("    .n_hash_groups = %d," % len(t["groups"]))
            w("};")
            w("")
        if self.map_mode:
            self.map_source(w)
        w("const struct rdb_class %s_rdb_class = {" % p)
        w('    .database = "%s",' % self.schema["name"])
        w('    .version = "%s",' % self.schema.get("version", ""))
        w("    .tables = %s_tables," % p)
        w("    .n_tables = %d," % len(self.spec))
        w("};")
        return "\n".join(out) + "\n"


MAP_POLICIES = {"on": "RDB_MAP_HANDLER", "recompute": "RDB_MAP_RECOMPUTE",
                "recompute-if-set": "RDB_MAP_RECOMPUTE_IF_SET",
                "unsupported": "RDB_MAP_UNSUPPORTED",
                "later": "RDB_MAP_LATER", "ignored": "RDB_MAP_IGNORED",
                "absent": "RDB_MAP_ABSENT"}


def c_string(s):
    return "NULL" if s is None else json.dumps(s)


VALUE_KIND_ENUMS = {"bool": "RDB_MAP_VALUES_BOOL",
                    "int": "RDB_MAP_VALUES_INT",
                    "uint": "RDB_MAP_VALUES_UINT",
                    "listed": "RDB_MAP_VALUES_LISTED"}


def map_values(w, x, indent, member):
    """The "values=" and "otherwise=" of column or key 'x' ('member' is the
    struct member for the kind)."""
    v = x.get("values")
    if not v:
        return
    if isinstance(v, list):
        w("%s.%s = RDB_MAP_VALUES_LISTED," % (indent, member))
        w("%s.known = (const char *const[]) { %s, NULL },"
          % (indent, ", ".join(c_string(k) for k in v)))
    else:
        w("%s.%s = %s," % (indent, member, VALUE_KIND_ENUMS[v]))
    w("%s.otherwise = %s," % (indent, c_string(x["otherwise"])))


def map_policy(w, pol, indent):
    kind, handler, reason = pol
    w("%s.policy = %s," % (indent, MAP_POLICIES[kind]))
    if handler:
        w("%s.handler = %s," % (indent, c_string(handler)))
    if reason:
        w("%s.reason = %s," % (indent, c_string(reason)))


def gen_map_source(self, w):
    """The map of lib/rdb-map.h: every table, column, key and value of the
    spec with its policy, and per replicated table the column masks the
    change dispatch tests."""
    p = self.prefix
    for t in self.map_tables:
        s = self.struct(t["name"])
        for c in t.get("map_columns", t["columns"]):
            for kind in ("keys_map", "values_map"):
                if not c[kind]:
                    continue
                w("static const struct rdb_map_item %s_%s_%s[] = {"
                  % (s, c_ident(c["name"]), kind))
                for k in c[kind]:
                    w("    {")
                    w("        .name = %s," % c_string(k["name"]))
                    map_policy(w, k["policy"], "        ")
                    for f in ("when", "unless"):
                        if k.get(f):
                            w("        .%s = (const char *const[]) { %s, "
                              "NULL }," % (f, ", ".join(c_string(v)
                                                        for v in k[f])))
                    map_values(w, k, "        ", "values")
                    w("    },")
                w("};")
        cols = t.get("map_columns", t["columns"])
        if cols:
            w("static const struct rdb_map_column %s_map_columns[] = {" % s)
            for c in cols:
                replicated = c in t["columns"]
                w("    {")
                w("        .name = %s," % c_string(c["name"]))
                w("        .col = %d,"
                  % (t["columns"].index(c) if replicated else -1))
                map_policy(w, c["policy"], "        ")
                w("        .change = %s,"
                  % c_string("%s %s" % (t["name"], c["name"])))
                map_values(w, c, "        ", "values_kind")
                for kind, n in (("keys_map", "keys"), ("values_map",
                                                       "values")):
                    if c[kind]:
                        w("        .%s = %s_%s_%s," % (n, s,
                                                      c_ident(c["name"]),
                                                      kind))
                        w("        .n_%s = %d," % (n, len(c[kind])))
                w("    },")
            w("};")
    w("static const struct rdb_map_table %s_map_tables[] = {" % p)
    for t in self.map_tables:
        s = self.struct(t["name"])
        cols = t.get("map_columns", t["columns"])
        masks = {"followed": 0, "recompute": 0, "free": 0}
        for i, c in enumerate(t["columns"]):
            kind = c["policy"][0]
            if kind == "on":
                masks["followed"] |= 1 << i
            elif kind in ("recompute", "recompute-if-set"):
                masks["recompute"] |= 1 << i
            else:
                masks["free"] |= 1 << i
        if len(t["columns"]) > 64:
            die("table %s: more than 64 columns" % t["name"])
        w("    {")
        w("        .name = %s," % c_string(t["name"]))
        if t in self.spec:
            w("        .tc = &%s," % self.table_var(t["name"]))
        map_policy(w, t["policy"], "        ")
        for m in ("followed", "recompute", "free"):
            w("        .%s = UINT64_C(0x%x)," % (m, masks[m]))
        if cols:
            w("        .columns = %s_map_columns," % s)
            w("        .n_columns = %d," % len(cols))
        w("    },")
    w("};")
    w("static const struct rdb_map_table *const %s_map_by_class[] = {" % p)
    for t in self.spec:
        w("    &%s_map_tables[%d]," % (p, self.map_tables.index(t)))
    w("};")
    w("const struct rdb_map %s_rdb_map = {" % p)
    w("    .tables = %s_map_tables," % p)
    w("    .n_tables = sizeof %s_map_tables / sizeof %s_map_tables[0],"
      % (p, p))
    w("    .by_class = %s_map_by_class," % p)
    w("};")
    w("")


Gen.map_source = gen_map_source


def main():
    if (len(sys.argv) not in (5, 6)
            or sys.argv[1] not in ("header", "source")):
        die("usage: rdb-gen.py header|source SCHEMA SPEC PREFIX [HEADER]")
    g = Gen(sys.argv[2], sys.argv[3], sys.argv[4])
    if sys.argv[1] == "header":
        sys.stdout.write(g.header())
    else:
        header = (sys.argv[5] if len(sys.argv) == 6
                  else "lib/%s-rdb.h" % sys.argv[4])
        sys.stdout.write(g.source(header))


if __name__ == "__main__":
    main()
