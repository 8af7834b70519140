#! /usr/bin/env python3
"""Database contents for the replica's tests (tests/rdb.at): prints them
as the parameters of an OVSDB "transact" request or, with
--remote=unix:PATH, runs that transaction on the server there.

    rdb-data.py sb
        A few rows in each table of lib/sb.rdb and some that it does not
        replicate, with every replicated column set in some row (and left
        at its default in another).
    rdb-data.py big PORTS ADDRESSES
        NB: switch "big" with PORTS ports lp00000..., port group "pgbig"
        with all of them, address set "asbig" with ADDRESSES addresses
        10.X.Y.Z, and an ACL on pgbig whose match is an address set of
        ADDRESSES addresses written out (hundreds of kB in one string).
    rdb-data.py strings
        NB rows whose names, map keys and values and ACL matches need
        escapes in JSON or are not ASCII: see WEIRD.
    rdb-data.py flows
        SB logical flows with UUIDs 00000000-0000-0000-0000-0000000000NN
        whose contents and external_ids are the same as some others' or
        differ in one way: see flows().
    rdb-data.py strings-file FILE
        Writes to FILE, NUL-terminated, strings with each character JSON
        escapes (and some it need not) at every offset from 0 to 17, so
        across the 8-byte words a fast scanner looks at, and more.
    rdb-data.py --remote=unix:PATH check-strings FILE
        Checks that the SB there has, for each string in FILE, an address
        set named after it with addresses it and it followed by "!", and
        no other; prints how many it checked, or what differs.
    rdb-data.py old-schema SCHEMA TABLE|TABLE.COLUMN...
        Prints SCHEMA without those tables and columns, as an older
        version of it might be.
"""

import json
import socket
import sys

# Strings that JSON has to escape (quotes, backslashes, control
# characters) or may carry raw or as \\u escapes (non-ASCII, up to a
# character outside the BMP, which takes a surrogate pair).
WEIRD = [
    'q"uote',
    "back\\slash",
    "sl/ash",
    "tab\there",
    "new\nline",
    "ctl\x01\x1f",
    "del\x7f",
    "caf\u00e9",
    "\u65e5\u672c\u8a9e",
    "smile\U0001f600",
    "all \"\\/\t\u00e9\u65e5\U0001f600\x02 end",
]


def ref(name):
    return ["named-uuid", name]


def oset(*atoms):
    return ["set", list(atoms)]


def omap(d):
    return ["map", [[k, v] for k, v in d.items()]]


def insert(table, name, row):
    return {"op": "insert", "table": table, "uuid-name": name, "row": row}


def sb():
    ops = [
        insert("SB_Global", "g", {
            "nb_cfg": 5, "ipsec": True,
            "options": omap({"mac_prefix": "0a:00:00", "svc_monitor_mac":
                             "0a:00:00:00:00:01"}),
            "external_ids": omap({"not": "replicated"})}),
        insert("Encap", "e1", {"type": "geneve", "ip": "192.168.0.1",
                               "chassis_name": "hv1"}),
        insert("Encap", "e2", {"type": "vxlan", "ip": "192.168.0.2",
                               "chassis_name": "hv2"}),
        insert("Chassis", "hv1", {
            "name": "hv1", "hostname": "host1", "encaps": ref("e1"),
            "other_config": omap({"is-remote": "true",
                                  "ovn-bridge-mappings": "phys:br-ex"}),
            "external_ids": omap({"x": "y"})}),
        insert("Chassis", "hv2", {"name": "hv2", "encaps": ref("e2"),
                                  "other_config": omap({"other": "only"})}),
        insert("Chassis_Private", "cp1", {
            "name": "hv1", "chassis": ref("hv1"), "nb_cfg": 4,
            "nb_cfg_timestamp": 1700000000123}),
        insert("Chassis_Private", "cp3", {"name": "hv3"}),
        insert("Datapath_Binding", "dp1", {
            "tunnel_key": 1,
            "external_ids": omap({"name": "sw0", "logical-switch":
                                  "00000000-0000-0000-0000-000000000001"})}),
        insert("Datapath_Binding", "dp2", {"tunnel_key": 2}),
        insert("Port_Binding", "pb1", {
            "logical_port": "p1", "datapath": ref("dp1"), "tunnel_key": 1,
            "options": omap({"requested-chassis": "hv1"}),
            "chassis": ref("hv1"),
            "mac": oset("00:00:00:00:00:01 10.0.0.1", "unknown"),
            "port_security": oset("00:00:00:00:00:01 10.0.0.1"),
            "up": True, "external_ids": omap({"name": "web"}),
            "virtual_parent": "not replicated"}),
        insert("Port_Binding", "pb2", {
            "logical_port": "c1", "datapath": ref("dp1"), "tunnel_key": 2,
            "type": "", "parent_port": "p1", "tag": 42, "up": False}),
        insert("Port_Binding", "pb3", {
            "logical_port": "ln", "datapath": ref("dp2"), "tunnel_key": 1,
            "type": "localnet", "options": omap({"network_name": "phys"})}),
        insert("Multicast_Group", "mc1", {
            "datapath": ref("dp1"), "name": "_MC_flood",
            "tunnel_key": 32768, "ports": oset(ref("pb1"), ref("pb2"))}),
        insert("Multicast_Group", "mc2", {
            "datapath": ref("dp2"), "name": "_MC_unknown",
            "tunnel_key": 32769}),
        insert("Logical_DP_Group", "grp", {
            "datapaths": oset(ref("dp1"), ref("dp2"))}),
        insert("Logical_Flow", "lf1", {
            "logical_datapath": ref("dp1"), "pipeline": "ingress",
            "table_id": 0, "priority": 100, "match": "ip4",
            "actions": "next;",
            "external_ids": omap({"stage-name": "ls_in_port_sec_l2"})}),
        insert("Logical_Flow", "lf2", {
            "logical_dp_group": ref("grp"), "pipeline": "egress",
            "table_id": 3, "priority": 50, "match": "1",
            "actions": "drop;", "tags": omap({"a": "b"}),
            "controller_meter": "m1"}),
        insert("Logical_Flow", "lf3", {
            "logical_datapath": ref("dp2"), "pipeline": "ingress"}),
        insert("Address_Set", "as1", {
            "name": "as1", "addresses": oset("10.0.0.2", "10.0.0.1")}),
        insert("Address_Set", "as2", {"name": "as2"}),
        insert("Port_Group", "pg1", {
            "name": "1_pg1", "ports": oset("p1", "c1")}),
        insert("Meter_Band", "mb1", {"action": "drop", "rate": 100,
                                     "burst_size": 200}),
        insert("Meter_Band", "mb2", {"action": "drop", "rate": 5}),
        insert("Meter", "m1", {"name": "m1", "unit": "kbps",
                               "bands": oset(ref("mb1"), ref("mb2"))}),
        insert("Load_Balancer", "lb1", {
            "name": "lb1", "protocol": "tcp",
            "vips": omap({"10.0.0.10:80": "10.0.0.1:8080,10.0.0.2:8080",
                          "[fd00::10]:80": "[fd00::1]:8080"}),
            "datapaths": oset(ref("dp1")),
            "datapath_group": ref("grp"),
            "options": omap({"reject": "true"}),
            "external_ids": omap({"lb_id": "1"})}),
        insert("Load_Balancer", "lb2", {"name": "lb2"}),
        insert("MAC_Binding", "mb", {
            "logical_port": "p1", "ip": "10.0.0.5",
            "mac": "00:00:00:00:00:05", "datapath": ref("dp1"),
            "timestamp": 12345}),
        insert("Static_MAC_Binding", "smb", {
            "logical_port": "ln", "ip": "10.0.0.6",
            "mac": "00:00:00:00:00:06", "datapath": ref("dp2"),
            "override_dynamic_mac": True}),
        insert("DNS", "dns", {
            "records": omap({"vm1": "10.0.0.1"}),
            "datapaths": oset(ref("dp1"), ref("dp2")),
            "external_ids": omap({"dns_id": "1"})}),
        insert("IP_Multicast", "ipm", {
            "datapath": ref("dp1"), "enabled": True, "querier": False,
            "eth_src": "00:00:00:00:00:fe"}),
        insert("HA_Chassis_Group", "hag", {"name": "not replicated"}),
    ]
    return ["OVN_Southbound"] + ops


def big(n_ports, n_addrs):
    ports = [insert("Logical_Switch_Port", "lp%d" % i,
                    {"name": "lp%05d" % i,
                     "addresses": oset("00:00:00:%02x:%02x:%02x 10.1.%d.%d"
                                       % (i >> 16, (i >> 8) & 255, i & 255,
                                          i >> 8, i & 255))})
             for i in range(n_ports)]
    refs = [ref("lp%d" % i) for i in range(n_ports)]
    addrs = ["10.%d.%d.%d" % (2 + (i >> 16), (i >> 8) & 255, i & 255)
             for i in range(n_addrs)]
    match = "outport == @pgbig && ip4.src == {%s}" % ", ".join(addrs)
    ops = ports + [
        insert("Logical_Switch", "ls", {"name": "big",
                                        "ports": oset(*refs)}),
        insert("ACL", "acl", {"priority": 1000, "direction": "to-lport",
                              "match": match, "action": "allow"}),
        insert("Port_Group", "pg", {"name": "pgbig", "ports": oset(*refs),
                                    "acls": oset(ref("acl"))}),
        insert("Address_Set", "as", {"name": "asbig",
                                     "addresses": oset(*addrs)}),
    ]
    return ["OVN_Northbound"] + ops


def strings():
    ops = []
    for i, w in enumerate(WEIRD):
        ops.append(insert("Logical_Switch_Port", "p%d" % i, {
            "name": "port %s" % w,
            "addresses": oset("00:00:00:00:00:%02x %s" % (i, w)),
            "options": omap({w: w}),
            "external_ids": omap({"neutron:port_name": w,
                                  "filtered " + w: w})}))
        ops.append(insert("ACL", "acl%d" % i, {
            "priority": i, "direction": "from-lport", "action": "drop",
            "name": w[:63],
            "match": 'inport == "port %s" && ip4.src == $as%d' % (
                w.replace("\\", "\\\\").replace('"', '\\"'), i)}))
        ops.append(insert("Address_Set", "as%d" % i, {
            "name": "as %s" % w,
            "addresses": oset(w, "10.0.0.%d" % i)}))
    # The characters a packed map (lib/mappack.h) escapes, in a port's
    # external_ids (kept packed).
    sep = "esc\x1b\x1e\x1f;\x1b"
    ops.append(insert("Logical_Switch_Port", "psep", {
        "name": "port sep",
        "external_ids": omap({sep: sep, "k" + sep: "", "": sep})}))
    ops.append(insert("Logical_Switch", "ls", {
        "name": "switch " + WEIRD[-1],
        "ports": oset(ref("psep"),
                      *[ref("p%d" % i) for i in range(len(WEIRD))]),
        "acls": oset(*[ref("acl%d" % i) for i in range(len(WEIRD))]),
        "external_ids": omap({"neutron:network_name": WEIRD[-1]})}))
    ops.append(insert("Load_Balancer", "lb", {
        "name": "lb " + WEIRD[0],
        "vips": omap({"10.0.0.%d:80" % i: w for i, w in enumerate(WEIRD)}),
        "options": omap({w: "v" + w for w in WEIRD})}))
    ops.append(insert("Meter_Band", "band", {"action": "drop", "rate": 1}))
    ops.append(insert("Meter", "meter", {"name": "meter " + WEIRD[-1],
                                         "unit": "kbps",
                                         "bands": ref("band")}))
    return ["OVN_Northbound"] + ops


def tricky_strings():
    specials = ['"', "\\", "/", "\b", "\t", "\n", "\x01", "\x1f", "\x7f",
                "\u00e9", "\u65e5", "\U0001f600", '\\"', '"\\', "\\u0041"]
    out = {""}
    for sp in specials:
        for k in range(18):
            out.add("x" * k + sp)
            out.add("x" * k + sp + "yz")
            out.add("x" * k + sp + "y" * (16 - k))
            out.add(sp * (k + 1))
    return sorted(out)


def request(remote, method, params):
    """Sends JSON-RPC request 'method' to the server at unix:PATH 'remote'
    and returns the reply."""
    assert remote.startswith("unix:")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(remote[5:])
    # ASCII with \u escapes, so that the server parses those too.
    s.sendall(json.dumps({"id": 0, "method": method,
                          "params": params}).encode())
    buf = b""
    decoder = json.JSONDecoder()
    while True:
        data = s.recv(65536)
        if not data:
            sys.exit("connection closed")
        buf += data
        try:
            reply, _ = decoder.raw_decode(buf.decode("utf-8"))
        except ValueError:
            continue
        if reply.get("id") == 0:
            return reply


def check_strings(remote, path):
    with open(path, "rb") as f:
        want = [x.decode("utf-8") for x in f.read().split(b"\0")[:-1]]
    reply = request(remote, "transact",
                    ["OVN_Southbound", {"op": "select",
                                        "table": "Address_Set",
                                        "where": []}])
    have = {}
    for row in reply["result"][0]["rows"]:
        a = row["addresses"]
        have[row["name"]] = sorted(a[1] if a[0] == "set" else [a])
    bad = 0
    for w in want:
        if have.pop(w, None) != sorted([w, w + "!"]):
            print("missing or wrong: %s" % ascii(w))
            bad += 1
    for name in have:
        print("unexpected: %s" % ascii(name))
        bad += 1
    if not bad:
        print("%d strings as written" % len(want))


def transact(remote, params):
    """Runs the transaction on the server at unix:PATH 'remote' and fails
    if any op does.  (A big one does not fit on ovsdb-client's command
    line.)"""
    reply = request(remote, "transact", params)
    if reply.get("error") or any("error" in r for r in reply["result"]
                                 if r):
        sys.exit("transaction failed: %s" % json.dumps(reply)[:2000])


def flows():
    """Flows 01 to 17 whose contents (hash #0) and external_ids (hash #1)
    are the same as some others' or differ in one way.  The comments name
    each distinct contents and external_ids with a letter, as "test-rdb
    hashes" does."""
    base = {"pipeline": "ingress", "table_id": 1, "priority": 10,
            "match": "ip4", "actions": "next;"}

    weird = 'inport == "p\\"1" && \u00e9 == "\U0001f600"'

    def flow(**changes):
        row = dict(base, logical_datapath=ref("dp"))
        row.update(changes)
        return row

    rows = [
        flow(),                                         # 01: A A (none)
        # Defaults written out: the same contents.
        flow(tags=omap({}), controller_meter=oset(),
             external_ids=omap({"stage-name": "x"})),   # 02: A B
        flow(priority=11),                              # 03: B A
        # Values swapped between columns: other contents.
        flow(table_id=10, priority=1),                  # 04: C A
        flow(match="next;", actions="ip4"),             # 05: D A
        flow(pipeline="egress"),                        # 06: E A
        flow(tags=omap({"a": "b"})),                    # 07: F A
        flow(tags=omap({"a": "b"})),                    # 08: F A
        flow(controller_meter="m"),                     # 09: G A
        # A map's key and value swapped.
        flow(tags=omap({"b": "a"})),                    # 10: H A
        # Escapes and UTF-8 in a match.
        flow(match=weird),                              # 11: I A
        flow(match=weird),                              # 12: I A
        # Zeros written out or left out: the same.
        flow(table_id=0, priority=0),                   # 13: J A
        {"logical_datapath": ref("dp"), "pipeline": "ingress",
         "match": "ip4", "actions": "next;"},           # 14: J A
        # External_ids of several keys, in either order: the same.
        flow(external_ids=omap({"k1": "v1", "k2": "v2"})),   # 15: A C
        flow(external_ids=omap({"k2": "v2", "k1": "v1"})),   # 16: A C
        flow(priority=11,
             external_ids=omap({"stage-name": "x"})),        # 17: B B
    ]
    ops = [insert("Datapath_Binding", "dp", {"tunnel_key": 1})]
    for i, row in enumerate(rows):
        ops.append({"op": "insert", "table": "Logical_Flow",
                    "uuid": "00000000-0000-0000-0000-0000000000%02d" % (i + 1),
                    "row": row})
    return ["OVN_Southbound"] + ops


def old_schema(path, removals):
    with open(path) as f:
        schema = json.load(f)
    for r in removals:
        if "." in r:
            table, column = r.split(".")
            del schema["tables"][table]["columns"][column]
        else:
            del schema["tables"][r]
    print(json.dumps(schema, indent=1))


def main():
    args = sys.argv[1:]
    remote = None
    if args and args[0].startswith("--remote="):
        remote = args.pop(0)[9:]
    if args[:1] == ["sb"]:
        params = sb()
    elif args[:1] == ["big"]:
        params = big(int(args[1]), int(args[2]))
    elif args[:1] == ["strings"]:
        params = strings()
    elif args[:1] == ["flows"]:
        params = flows()
    elif args[:1] == ["strings-file"]:
        with open(args[1], "wb") as f:
            for t in tricky_strings():
                f.write(t.encode("utf-8") + b"\0")
        return
    elif args[:1] == ["check-strings"]:
        check_strings(remote, args[1])
        return
    elif args[:1] == ["old-schema"]:
        old_schema(args[1], args[2:])
        return
    else:
        sys.exit("usage: rdb-data.py [--remote=unix:PATH] "
                 "sb|big PORTS ADDRESSES|strings|flows|old-schema ...")
    if remote:
        transact(remote, params)
    else:
        print(json.dumps(params))


if __name__ == "__main__":
    main()
