#! /usr/bin/env python3
"""Prints what northd wrote to a Southbound database, in a canonical form.

    sb-canon.py [--no-keys | --uuids] [--client=OVSDB-CLIENT] REMOTE

reads the SB database served at REMOTE (e.g. unix:sb.sock) in one
read-only transaction and prints one line per row of the tables northd
writes, sorted, with every row UUID replaced by what the row stands for:
a Datapath_Binding by its switch name (external_ids:name), a Port_Binding
by its logical port, a Logical_DP_Group by the sorted switch names of its
datapaths, a Meter_Band by its contents, and so on.  Two databases with the
same contents print the same text however their rows were created, so the
output is made for diff(1).

Logical flows keep the form of their datapath reference: "logical_datapath"
for a flow on one switch, "logical_dp_group" for a flow shared through a
group.  SB_Global.nb_cfg is left out: it counts "--wait" requests, not
results.

--no-keys leaves out the tunnel keys of datapaths and ports and renames
the per-datapath port groups "<datapath tunnel key>_<pg>" to
"<switch name>_<pg>", so that the SBs of two northds that built the same NB
independently (and may have numbered things differently) compare equal.

--uuids prints instead "TABLE UUID" for every row of those tables, sorted,
to check that a full recompute on top of an incrementally maintained SB
rewrites no row.

--nb reads a Northbound database instead and prints what northd writes
there: the rows of ACL_Error, each with the ACL it is about (by contents,
not UUID), and the tag, up and dynamic_addresses columns of every
Logical_Switch_Port.
"""

import argparse
import json
import re
import subprocess
import sys

# The tables northd writes, and the columns that lead each row's line (the
# rest follow in alphabetical order).  Tables written by hypervisors
# (Chassis, Encap, MAC_Binding, FDB, ...) or by the operator (Connection,
# SSL) are left out.
TABLES = {
    "SB_Global": [],
    "Datapath_Binding": ["external_ids", "tunnel_key"],
    "Port_Binding": ["logical_port", "datapath", "tunnel_key", "type"],
    "Logical_DP_Group": ["datapaths"],
    "Logical_Flow": ["logical_datapath", "logical_dp_group", "pipeline",
                     "table_id", "priority", "match", "actions"],
    "Multicast_Group": ["datapath", "name", "tunnel_key"],
    "Port_Group": ["name"],
    "Address_Set": ["name"],
    "Load_Balancer": ["name"],
    "Meter": ["name"],
    "Meter_Band": [],
    "IP_Multicast": ["datapath"],
    "DNS": [],
    "Service_Monitor": [],
    "HA_Chassis_Group": ["name"],
    "HA_Chassis": [],
    "Gateway_Chassis": ["name"],
    "Mirror": ["name"],
    "RBAC_Role": ["name"],
    "RBAC_Permission": ["table"],
    "DHCP_Options": ["name"],
    "DHCPv6_Options": ["name"],
    "Static_MAC_Binding": [],
    "BFD": [],
}

# Tables read only to name the rows that northd's rows refer to.
NAMING_TABLES = ["Chassis", "Encap"]

# With --nb: the NB tables northd writes, and ACL to name the rows they
# refer to.
NB_TABLES = {"ACL_Error": ["owner", "acl", "match", "error", "effect"],
             "Logical_Switch_Port": ["name", "tag", "up",
                                     "dynamic_addresses"]}
NB_NAMING_TABLES = ["ACL"]

# Only these columns of a table are printed (all if the table is not here).
ONLY = {"Logical_Switch_Port": {"name", "tag", "up", "dynamic_addresses"}}

# Columns that are not results of compiling the NB.
IGNORE = {("SB_Global", "nb_cfg")}

# Columns holding tunnel keys, dropped by --no-keys.
KEY_COLUMNS = {("Datapath_Binding", "tunnel_key"),
               ("Port_Binding", "tunnel_key")}


def fetch(client, remote, dbname, tables):
    schema = json.loads(subprocess.run(
        [client, "get-schema", remote, dbname], check=True,
        stdout=subprocess.PIPE, universal_newlines=True).stdout)
    # Tables a given schema version lacks are simply empty.
    tables = [t for t in tables if t in schema["tables"]]
    ops = [{"op": "select", "table": t, "where": []} for t in tables]
    txn = json.dumps([dbname] + ops)
    out = subprocess.run([client, "transact", remote, txn],
                         check=True, stdout=subprocess.PIPE,
                         universal_newlines=True).stdout
    results = json.loads(out)
    db = {}
    for t, r in zip(tables, results):
        if r is None or "error" in r:
            sys.exit("sb-canon: select from %s failed: %s" % (t, r))
        db[t] = r["rows"]
    return db


def quote(s):
    return json.dumps(s)


class Canon:
    def __init__(self, db, tables, no_keys):
        self.db = db
        self.tables = tables
        self.no_keys = no_keys
        self.rows = {}          # uuid -> (table, row)
        for t, rows in db.items():
            for row in rows:
                self.rows[row["_uuid"][1]] = (t, row)
        self.memo = {}
        # Datapath tunnel key -> switch name, for port group names.
        self.dp_by_key = {}
        for row in db.get("Datapath_Binding", []):
            self.dp_by_key[row["tunnel_key"]] = self.dp_name(row)

    def dp_name(self, row):
        ids = dict(self.pairs(row["external_ids"]))
        name = ids.get("name")
        if name is None:
            return "<datapath %d>" % row["tunnel_key"]
        return name

    @staticmethod
    def pairs(value):
        # A map column's JSON: ["map", [[k, v], ...]].
        return [(k, v) for k, v in value[1]]

    def label(self, uuid, stack=()):
        """What the row 'uuid' stands for, as a string."""
        if uuid in self.memo:
            return self.memo[uuid]
        if uuid not in self.rows:
            return "<dangling>"
        if uuid in stack:
            return "<cycle>"
        t, row = self.rows[uuid]
        stack = stack + (uuid,)
        if t == "Datapath_Binding":
            s = self.dp_name(row)
        elif t == "Port_Binding":
            s = row["logical_port"]
        elif t == "Logical_DP_Group":
            s = self.value(row["datapaths"], stack)
        elif t in ("Load_Balancer", "Meter", "Chassis", "HA_Chassis_Group",
                   "Gateway_Chassis", "Port_Group", "Address_Set",
                   "RBAC_Role") and "name" in row:
            s = row["name"]
        else:
            s = "{" + " ".join(self.columns(t, row, stack)) + "}"
        self.memo[uuid] = s
        return s

    def atom(self, v, stack):
        if isinstance(v, list) and len(v) == 2 and v[0] == "uuid":
            return self.label(v[1], stack)
        if isinstance(v, str):
            return quote(v)
        if isinstance(v, bool):
            return "true" if v else "false"
        return str(v)

    def value(self, v, stack=()):
        if isinstance(v, list) and len(v) == 2 and v[0] == "set":
            return "[" + ",".join(sorted(self.atom(x, stack)
                                         for x in v[1])) + "]"
        if isinstance(v, list) and len(v) == 2 and v[0] == "map":
            return "{" + ",".join(sorted("%s=%s" % (self.atom(k, stack),
                                                    self.atom(x, stack))
                                         for k, x in v[1])) + "}"
        return self.atom(v, stack)

    def columns(self, t, row, stack=()):
        lead = self.tables.get(t, [])
        names = [c for c in lead if c in row]
        names += sorted(c for c in row
                        if c not in lead and not c.startswith("_"))
        out = []
        for c in names:
            if (t, c) in IGNORE or c not in ONLY.get(t, {c}):
                continue
            if self.no_keys and (t, c) in KEY_COLUMNS:
                continue
            v = row[c]
            if self.no_keys and t == "Port_Group" and c == "name":
                v = self.pg_name(v)
            out.append("%s=%s" % (c, self.value(v, stack)))
        return out

    def pg_name(self, name):
        # Per-datapath port groups are named "<dp tunnel key>_<pg>".
        m = re.match(r"^(\d+)_(.*)$", name)
        if m and int(m.group(1)) in self.dp_by_key:
            return "%s_%s" % (self.dp_by_key[int(m.group(1))], m.group(2))
        return name

    def dump(self):
        lines = []
        for t in self.tables:
            for row in self.db.get(t, []):
                lines.append("%s: %s" % (t, " ".join(self.columns(t, row))))
        return sorted(lines)


def main():
    ap = argparse.ArgumentParser(
        description="Canonical dump of what northd wrote to an SB database.")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--no-keys", action="store_true",
                      help="leave out tunnel keys (compare independent SBs)")
    mode.add_argument("--uuids", action="store_true",
                      help="print the row UUIDs of northd's tables instead")
    mode.add_argument("--nb", action="store_true",
                      help="dump what northd writes to the NB at REMOTE")
    ap.add_argument("--client", default="/usr/bin/ovsdb-client",
                    help="ovsdb-client to use (default: %(default)s)")
    ap.add_argument("remote", help="the SB database, e.g. unix:sb.sock")
    args = ap.parse_args()

    if args.nb:
        db = fetch(args.client, args.remote, "OVN_Northbound",
                   list(NB_TABLES) + NB_NAMING_TABLES)
        lines = Canon(db, NB_TABLES, False).dump()
    else:
        db = fetch(args.client, args.remote, "OVN_Southbound",
                   list(TABLES) + NAMING_TABLES)
        if args.uuids:
            lines = sorted("%s %s" % (t, row["_uuid"][1])
                           for t in TABLES for row in db.get(t, []))
        else:
            lines = Canon(db, TABLES, args.no_keys).dump()
    sys.stdout.write("".join(line + "\n" for line in lines))


if __name__ == "__main__":
    main()
