#! /usr/bin/env python3
"""gen.py: deterministic OVN Northbound workloads for benchmarking northd.

Two profiles, both written straight into an NB ovsdb-server in bulk
transactions (rows carry UUIDs chosen from the seed, so the same seed and
sizes give byte-for-byte the same database content):

  neutron  OpenStack Neutron ML2/OVN security groups: networks are
           Logical_Switch "neutron-<uuid>", ports "<uuid>" with "MAC IP"
           addresses and port_security, each security group a Port_Group
           "pg_<uuid with _>" whose rules are ACLs at priority 1002
           (remote-group matches on $pg_<x>_ip4, port ranges, ICMP, IPv6),
           the default-drop group "neutron_pg_drop" with two drop ACLs at
           1001, some stateless groups (allow-stateless), and a few legacy
           "as_ip4_<sg>" address sets (pre-port-group Neutron naming) so
           that address-set changes have something to measure.  With
           --services, also what Neutron adds for DHCP, metadata and DNS:
           a subnet's DHCP_Options per network (every VM port's
           dhcpv4_options), a metadata localport and a DNS row with a
           record per port, and a VLAN provider (localnet) port on every
           tenth network; change kinds dhcp_modify and dns_record.

  k8s      ovn-kubernetes-like network policies: one switch per node
           ("ovn-worker-N") with a management port and its allow ACL, pods
           "<namespace>_<pod>", per-namespace address sets of pod IPs,
           per-policy port groups and peer address sets with many
           addresses (names are ovn-k style hashes "a<decimal>"), default
           deny port groups per namespace, ACLs in tiers 1 (ANP, with
           pass), 2 (NetworkPolicy) and 3 (BANP); egress ACLs are
           from-lport with options:apply-after-lb=true.  With --services,
           also Services as ovn-kubernetes writes them: a Load_Balancer per
           service ("Service_<ns>/<svc>_TCP_cluster", one cluster IP VIP
           with 1-10 endpoints, a few with --lb-big-endpoints), all in one
           Load_Balancer_Group ("clusterLBGroup") that every node switch
           lists; change kinds lb_endpoint, lb_service_add and lb_service_del.

With --routers, either profile also gets its CMS's routers: see
bench/gen_routers.py.

Stock ovn-northd 23.03 (NB schema 7.0.0) has no ACL tier and no "pass"
verb: it ignores tier, so BANP ACLs (tier 3, priorities 1649-1750) then
outrank NetworkPolicy ACLs (tier 2, 1000-1001), and its IDL rejects the
"pass" action value.  The k8s profile therefore does not mean the same
policy to stock 23.03 as to a tier-aware northd; its flows are still a
fair load for timing.

Usage:
  gen.py --profile neutron --db unix:nb.sock [sizes...]
  gen.py --profile k8s --out nb.db --schema ovn-nb.ovsschema [sizes...]

As a module, the runner uses generate() and change_ops().
"""

import argparse
import ipaddress
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid as uuidlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_routers  # noqa: E402
import ovsdbrpc  # noqa: E402

DB = "OVN_Northbound"
BATCH_ROWS = 5000

# Size presets: ports, switches, port groups, ACLs.
SIZES = {
    "tiny": dict(ports=40, switches=4, port_groups=8, acls=60),
    "small": dict(ports=1000, switches=20, port_groups=100, acls=2200),
    "medium": dict(ports=10000, switches=200, port_groups=1000, acls=22000),
    "large": dict(ports=50000, switches=500, port_groups=10000,
                  acls=200000),
    "xlarge": dict(ports=100000, switches=1000, port_groups=50000,
                   acls=1000000),
}

CHANGE_KINDS = ["acl_add", "acl_del", "acl_modify", "pg_add_port",
                "pg_del_port", "as_add", "as_del", "port_add", "switch_add"]
# With --services (neutron): a subnet's DHCP options change (Neutron
# rewrites the whole options map), a DNS record is added.
SERVICE_KINDS = ["dhcp_modify", "dns_record"]
# With --services (k8s): a service's endpoints change (one endpoint
# replaced), a service is added to the cluster group, and deleted again.
LB_KINDS = ["lb_endpoint", "lb_service_add", "lb_service_del"]


# With --routers: bench/gen_routers.py.
ROUTER_KINDS = gen_routers.NEUTRON_KINDS + gen_routers.K8S_KINDS


def service_kinds(profile):
    """The change kinds --services adds for PROFILE."""
    return LB_KINDS if profile == "k8s" else SERVICE_KINDS


def router_kinds(profile):
    """The change kinds --routers adds for PROFILE."""
    return gen_routers.router_kinds(profile)


# OVSDB JSON helpers.
def oset(items):
    return ["set", list(items)]


def omap(d):
    return ["map", sorted([k, v] for k, v in d.items())]


def ref(u):
    return ["uuid", u]


def insert(table, u, row):
    return {"op": "insert", "table": table, "uuid": u, "row": row}


def mutate(table, u, column, mutator, values):
    return {"op": "mutate", "table": table,
            "where": [["_uuid", "==", ref(u)]],
            "mutations": [[column, mutator, oset(values)]]}


def ovnk_hash(s):
    """ovn-kubernetes names port groups and address sets by a 64-bit hash
    of their identity, printed as "a<decimal>".  FNV-1a here."""
    h = 0xcbf29ce484222325
    for b in s.encode():
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return "a%d" % h


class Gen:
    """Deterministic identifiers from one seeded RNG."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def uuid(self):
        return str(uuidlib.UUID(int=self.rng.getrandbits(128), version=4))


def ip_block(index, per_block, base):
    """The INDEX-th block of 2^k addresses (2^k >= PER_BLOCK + 4) above
    BASE; returns (network address as int, block size)."""
    size = 4
    while size < per_block + 4:
        size *= 2
    return int(ipaddress.IPv4Address(base)) + index * size, size


def ip_str(n):
    return str(ipaddress.IPv4Address(n))


def neutron_mac(n):
    return "fa:16:3e:%02x:%02x:%02x" % (n >> 16 & 255, n >> 8 & 255, n & 255)


def ovnk_mac(ip):
    b = ipaddress.IPv4Address(ip).packed
    return "0a:58:%02x:%02x:%02x:%02x" % tuple(b)


def spread(total, n):
    """Splits TOTAL into N near-equal non-negative parts."""
    if n <= 0:
        return []
    q, r = divmod(max(total, 0), n)
    return [q + (1 if i < r else 0) for i in range(n)]


class Batcher:
    """Groups operations into transactions of about BATCH_ROWS rows and
    hands each to SINK as soon as it is complete, so that memory stays
    bounded by one batch whatever the size of the workload."""

    def __init__(self, sink):
        self.sink = sink
        self.cur = []
        self.n_txns = 0

    def add(self, *ops):
        self.cur.extend(ops)

    def cut(self, force=False):
        if self.cur and (force or len(self.cur) >= BATCH_ROWS):
            self.sink(self.cur)
            self.n_txns += 1
            self.cur = []

    def done(self):
        self.cut(True)
        return self.n_txns


# ---------------------------------------------------------------------------
# Neutron.

NEUTRON_TCP = [22, 80, 443, 3306, 5432, 6379, 8080, 9090]


def gen_neutron(a, sink):
    g = Gen(a.seed)
    rng = g.rng
    b = Batcher(sink)
    m = {"profile": "neutron", "seed": a.seed}

    n_sw, n_ports, n_sg = max(1, a.switches), max(0, a.ports), \
        max(1, a.port_groups)
    n_proj = max(1, min(n_sg // 5, n_sw))
    per_sw = spread(n_ports, n_sw)
    blk_size = ip_block(0, max(per_sw + [1]) + 64, "10.0.0.0")[1]

    # Security groups first (names are needed by the ports' external_ids).
    sgs = []
    for i in range(n_sg):
        sg_id = g.uuid()
        sgs.append({"id": sg_id, "uuid": g.uuid(),
                    "name": "pg_" + sg_id.replace("-", "_"),
                    "project": i % n_proj,
                    "stateless": rng.random() < a.stateless_fraction,
                    "ports": [], "ips": []})
    proj_sgs = [[s for s in sgs if s["project"] == p] for p in range(n_proj)]
    drop = {"uuid": g.uuid(), "name": "neutron_pg_drop", "ports": []}
    projects = ["%032x" % rng.getrandbits(128) for _ in range(n_proj)]

    switches = []
    vm_ports = []
    port_idx = 0
    for s in range(n_sw):
        net_id = g.uuid()
        net, _ = ip_block(s, blk_size - 4, "10.0.0.0")
        proj = s % n_proj
        ls = {"uuid": g.uuid(), "name": "neutron-" + net_id,
              "net": net, "project": proj, "ports": []}
        switches.append(ls)
        lsp_ops = []
        for j in range(per_sw[s]):
            pid = g.uuid()
            ip = ip_str(net + 2 + j)
            mac = neutron_mac(port_idx)
            port_idx += 1
            psgs = [proj_sgs[proj][0]]
            if len(proj_sgs[proj]) > 1 and rng.random() < 0.3:
                psgs.append(rng.choice(proj_sgs[proj][1:]))
            for sg in psgs:
                sg["ports"].append(pid)
                sg["ips"].append(ip)
            drop["ports"].append(pid)
            ls["ports"].append(pid)
            vm_ports.append((pid, ip, s))
            lsp_ops.append(insert("Logical_Switch_Port", pid, {
                "name": pid,
                "addresses": oset(["%s %s" % (mac, ip)]),
                "port_security": oset(["%s %s" % (mac, ip)]),
                "external_ids": omap({
                    "neutron:cidrs": "%s/%d" % (ip, 32 - (blk_size.bit_length() - 1)),
                    "neutron:device_id": g.uuid(),
                    "neutron:device_owner": "compute:nova",
                    "neutron:network_name": ls["name"],
                    "neutron:port_name": "",
                    "neutron:project_id": projects[proj],
                    "neutron:revision_number": "4",
                    "neutron:security_group_ids":
                        " ".join(sg["id"] for sg in psgs)})}))
        ls_extra = {}
        if a.services:
            ls_extra = services_ops(g, b, s, ls, net, blk_size, lsp_ops,
                                    projects[proj], m)
        b.add(*lsp_ops)
        b.add(insert("Logical_Switch", ls["uuid"], dict({
            "name": ls["name"],
            "ports": oset(ref(p) for p in ls["ports"]),
            "other_config": omap({"mcast_snoop": "false",
                                  "mcast_flood_unregistered": "false",
                                  "vlan-passthru": "false"}),
            "external_ids": omap({
                "neutron:network_name": "net-%d" % s,
                "neutron:mtu": "1442",
                "neutron:revision_number": "2",
                "neutron:availability_zone_hints": ""})}, **ls_extra)))
        b.cut()
    b.cut(True)

    # Legacy address sets for the first SGs.
    n_as = a.address_sets if a.address_sets is not None else max(1, n_sg // 10)
    as_list = []
    for sg in sgs[:n_as]:
        asu = g.uuid()
        name = "as_ip4_" + sg["id"].replace("-", "_")
        sg["as"] = name
        as_list.append({"uuid": asu, "name": name})
        b.add(insert("Address_Set", asu, {
            "name": name, "addresses": oset(sorted(sg["ips"])),
            "external_ids": omap({"neutron:security_group_id": sg["id"]})}))
    b.cut(True)

    # Rules.
    n_rules = max(0, a.acls - 2)
    per_sg = spread(n_rules, n_sg)
    modify = []
    n_acls = 0
    for i, sg in enumerate(sgs):
        pg = sg["name"]
        action = "allow-stateless" if sg["stateless"] else "allow-related"
        peers = proj_sgs[sg["project"]]
        seen = set()
        acl_ops = []
        for r in range(per_sg[i]):
            for attempt in range(20):
                direction, match = neutron_rule(rng, r, sg, peers, attempt)
                if (direction, match) not in seen:
                    break
            else:
                direction = "to-lport"
                match = ("outport == @%s && ip4 && tcp && tcp.dst == %d"
                         % (pg, 10000 + r))
            seen.add((direction, match))
            au = g.uuid()
            acl_ops.append(insert("ACL", au, {
                "priority": 1002, "direction": direction, "action": action,
                "match": match,
                "external_ids": omap({
                    "neutron:security_group_rule_id": g.uuid()})}))
            if "tcp.dst == " in match and len(modify) < 5000:
                modify.append({"uuid": au, "match": match})
        n_acls += len(acl_ops)
        b.add(*acl_ops)
        b.add(insert("Port_Group", sg["uuid"], {
            "name": pg,
            "ports": oset(ref(p) for p in sg["ports"]),
            "acls": oset(ref(op["uuid"]) for op in acl_ops),
            "external_ids": omap({"neutron:security_group_id": sg["id"]})}))
        b.cut()
    d_in, d_out = g.uuid(), g.uuid()
    b.add(insert("ACL", d_in, {
        "priority": 1001, "direction": "from-lport", "action": "drop",
        "match": "inport == @neutron_pg_drop && ip"}),
        insert("ACL", d_out, {
            "priority": 1001, "direction": "to-lport", "action": "drop",
            "match": "outport == @neutron_pg_drop && ip"}),
        insert("Port_Group", drop["uuid"], {
            "name": "neutron_pg_drop",
            "ports": oset(ref(p) for p in drop["ports"]),
            "acls": oset([ref(d_in), ref(d_out)])}))
    n_acls += 2

    # Handles for the change workloads.
    all_ports = [p for ls in switches for p in ls["ports"]]
    m["acl_pgs"] = [{"uuid": sg["uuid"], "name": sg["name"]} for sg in sgs]
    m["modify_acls"] = modify
    m["pg_moves"] = pg_moves(rng, [(sg["uuid"], set(sg["ports"]))
                                   for sg in sgs], all_ports)
    m["address_sets"] = [x["uuid"] for x in as_list]
    m["switches"] = [{"uuid": ls["uuid"], "name": ls["name"],
                      "sg": proj_sgs[ls["project"]][0]["uuid"]}
                     for ls in switches]
    m["drop_pg"] = drop["uuid"]
    m["counts"] = {"switches": n_sw, "ports": n_ports,
                   "port_groups": n_sg + 1, "acls": n_acls,
                   "address_sets": len(as_list)}
    if a.routers:
        b.cut(True)
        gen_routers.neutron_routers(
            sys.modules[__name__], g, b, switches, vm_ports, n_proj,
            projects, 32 - (blk_size.bit_length() - 1), m)
    m["transactions"] = b.done()
    return m


def dhcp_options(net, md_ip, lease):
    gw = ip_str(net + 1)
    return omap({"lease_time": str(lease), "mtu": "1442", "router": gw,
                 "server_id": gw, "server_mac": "fa:16:3e:ff:ff:01",
                 "dns_server": "{8.8.8.8}",
                 "classless_static_route":
                     "{169.254.169.254/32,%s, 0.0.0.0/0,%s}"
                     % (md_ip, gw)})


def services_ops(g, b, s, ls, net, blk_size, lsp_ops, project, m):
    """--services: what Neutron adds to network S besides security groups:
    the subnet's DHCP_Options (every VM port refers to them), the metadata
    localport, the network's DNS records, and on every tenth network a
    VLAN provider port.  Adds their rows to B, sets the VM ports' (in
    LSP_OPS) dhcpv4_options, records handles in M; returns the switch's
    extra columns."""
    prefix = 32 - (blk_size.bit_length() - 1)
    md_ip = ip_str(net + blk_size - 6)
    dhcp = g.uuid()
    b.add(insert("DHCP_Options", dhcp, {
        "cidr": "%s/%d" % (ip_str(net), prefix),
        "options": dhcp_options(net, md_ip, 43200),
        "external_ids": omap({"subnet_id": g.uuid(),
                              "revision_number": "0"})}))
    m.setdefault("dhcp", []).append({"uuid": dhcp, "net": net,
                                     "md": md_ip})
    records = {}
    for op in lsp_ops:
        op["row"]["dhcpv4_options"] = ref(dhcp)
        mac_ip = op["row"]["addresses"][1][0]
        records["vm-" + op["uuid"][:8]] = mac_ip.split()[1]
    md = g.uuid()
    lsp_ops.append(insert("Logical_Switch_Port", md, {
        "name": md, "type": "localport",
        "addresses": oset(["fa:16:3e:fe:%02x:%02x %s"
                           % (s >> 8 & 255, s & 255, md_ip)]),
        "external_ids": omap({
            "neutron:cidrs": "%s/%d" % (md_ip, prefix),
            "neutron:device_id": "ovnmeta-" + ls["name"][8:],
            "neutron:device_owner": "network:distributed",
            "neutron:network_name": ls["name"],
            "neutron:project_id": project})}))
    ls["ports"].append(md)
    if s % 10 == 0:
        pn = g.uuid()
        lsp_ops.append(insert("Logical_Switch_Port", pn, {
            "name": "provnet-" + pn, "type": "localnet",
            "addresses": oset(["unknown"]), "tag": 100 + s % 4000,
            "options": omap({"network_name": "physnet1",
                             "mcast_flood": "false",
                             "localnet_learn_fdb": "false"})}))
        ls["ports"].append(pn)
    dns = g.uuid()
    b.add(insert("DNS", dns, {
        "records": omap(records),
        "external_ids": omap({"ls_name": ls["name"]})}))
    m.setdefault("dns", []).append(dns)
    return {"dns_records": oset([ref(dns)])}


def neutron_rule(rng, r, sg, peers, attempt):
    """One security-group rule as (direction, match)."""
    pg = sg["name"]
    ing = "outport == @%s" % pg
    eg = "inport == @%s" % pg
    # The first four are the rules of Neutron's default security group.
    if r == 0 and attempt == 0:
        return "from-lport", eg + " && ip4"
    if r == 1 and attempt == 0:
        return "from-lport", eg + " && ip6"
    if r == 2 and attempt == 0:
        return "to-lport", "%s && ip4 && ip4.src == $%s_ip4" % (ing, pg)
    if r == 3 and attempt == 0:
        return "to-lport", "%s && ip6 && ip6.src == $%s_ip6" % (ing, pg)
    if r == 4 and attempt == 0 and "as" in sg:
        return "to-lport", ("%s && ip4 && ip4.src == $%s && tcp && "
                            "tcp.dst == 5432" % (ing, sg["as"]))
    peer = rng.choice(peers)["name"]
    lo = rng.choice([1000, 2000, 3000, 8000, 30000]) + rng.randrange(100)
    hi = lo + rng.choice([1, 10, 100, 1000])
    proto = rng.choice(["tcp", "tcp", "tcp", "udp"])
    k = rng.randrange(10)
    if k == 0:
        return "from-lport", ("%s && ip4 && ip4.dst == $%s_ip4 && %s && "
                              "%s.dst >= %d && %s.dst <= %d"
                              % (eg, peer, proto, proto, lo, proto, hi))
    if k in (1, 2):
        return "to-lport", ("%s && ip4 && ip4.src == $%s_ip4 && %s && "
                            "%s.dst >= %d && %s.dst <= %d"
                            % (ing, peer, proto, proto, lo, proto, hi))
    if k == 3:
        return "to-lport", ("%s && ip4 && ip4.src == 0.0.0.0/0 && tcp && "
                            "tcp.dst == %d"
                            % (ing, rng.choice(NEUTRON_TCP) + attempt))
    if k == 4:
        net = ipaddress.IPv4Network((rng.getrandbits(24) << 8, 24))
        return "to-lport", ("%s && ip4 && ip4.src == %s && %s && "
                            "%s.dst >= %d && %s.dst <= %d"
                            % (ing, net, proto, proto, lo, proto, hi))
    if k == 5:
        return "to-lport", ("%s && ip4 && ip4.src == 0.0.0.0/0 && icmp4 && "
                            "icmp4.type == %d && icmp4.code == 0"
                            % (ing, rng.choice([0, 3, 8, 11]) + attempt))
    if k == 6:
        return "to-lport", ("%s && ip6 && ip6.src == ::/0 && tcp && "
                            "tcp.dst == %d"
                            % (ing, rng.choice(NEUTRON_TCP) + attempt))
    if k == 7:
        return "to-lport", ("%s && ip4 && ip4.src == $%s_ip4 && tcp && "
                            "tcp.dst == %d" % (ing, peer, lo))
    if k == 8:
        return "from-lport", ("%s && ip4 && ip4.dst == 0.0.0.0/0 && %s && "
                              "%s.dst == %d" % (eg, proto, proto, lo))
    return "to-lport", ("%s && ip4 && ip.proto == %d"
                        % (ing, rng.choice([47, 50, 51, 112, 132]) + attempt))


def pg_moves(rng, pgs, all_ports, n=200):
    """(port group, port not in it) pairs for membership changes."""
    out = []
    if not pgs or not all_ports:
        return out
    for _ in range(n):
        pgu, members = rng.choice(pgs)
        for _ in range(50):
            p = rng.choice(all_ports)
            if p not in members:
                out.append({"pg": pgu, "port": p})
                break
    return out


# ---------------------------------------------------------------------------
# ovn-kubernetes.

def k8s_ids(owner_type, name, extra=None):
    d = {"k8s.ovn.org/owner-controller": "default-network-controller",
         "k8s.ovn.org/owner-type": owner_type,
         "k8s.ovn.org/name": name,
         "k8s.ovn.org/id": "default-network-controller:%s:%s"
                           % (owner_type, name)}
    d.update(extra or {})
    return d


def gen_k8s(a, sink):
    g = Gen(a.seed)
    rng = g.rng
    b = Batcher(sink)
    m = {"profile": "k8s", "seed": a.seed}

    n_nodes, n_pods, n_pg = max(1, a.switches), max(0, a.ports), \
        max(3, a.port_groups)
    n_ns = max(1, n_pods // a.pods_per_namespace)
    per_node = spread(n_pods, n_nodes)
    blk = ip_block(0, max(per_node + [1]) + 64, "10.128.0.0")[1]

    # Nodes and pods.
    nodes, pods = [], []
    ns_pods = [[] for _ in range(n_ns)]
    pod_i = 0
    for s in range(n_nodes):
        net, _ = ip_block(s, blk - 4, "10.128.0.0")
        name = "ovn-worker-%d" % s
        node = {"uuid": g.uuid(), "name": name, "net": net, "ports": []}
        nodes.append(node)
        mp_ip = ip_str(net + 2)
        mp = g.uuid()
        node["ports"].append(mp)
        node["mgmt_ip"] = mp_ip
        b.add(insert("Logical_Switch_Port", mp, {
            "name": "k8s-" + name,
            "addresses": oset(["%s %s" % (ovnk_mac(mp_ip), mp_ip)])}))
        for j in range(per_node[s]):
            ns = pod_i % n_ns
            ip = ip_str(net + 3 + j)
            pu = g.uuid()
            pname = "ns-%d_pod-%d" % (ns, pod_i)
            pod_i += 1
            pods.append({"uuid": pu, "ip": ip, "ns": ns})
            ns_pods[ns].append(len(pods) - 1)
            node["ports"].append(pu)
            addr = "%s %s" % (ovnk_mac(ip), ip)
            b.add(insert("Logical_Switch_Port", pu, {
                "name": pname, "addresses": oset([addr]),
                "port_security": oset([addr]),
                "external_ids": omap({"namespace": "ns-%d" % ns,
                                      "pod": "true"})}))
        acl = g.uuid()
        node["acl"] = acl
        b.add(insert("ACL", acl, k8s_acl(
            "to-lport", 1001, "allow-related", "ip4.src==%s" % mp_ip, 2,
            k8s_ids("NetpolNode", name, {"ip": mp_ip}))),
            insert("Logical_Switch", node["uuid"], {
                "name": name,
                "ports": oset(ref(p) for p in node["ports"]),
                "acls": oset([ref(acl)]),
                "other_config": omap({"subnet": "%s/%d" % (
                    ip_str(net), 32 - (blk.bit_length() - 1))})}))
        b.cut()
    b.cut(True)

    # Namespace address sets.
    ns_as = []
    for ns in range(n_ns):
        u = g.uuid()
        name = ovnk_hash("Namespace:ns-%d:v4" % ns)
        ns_as.append({"uuid": u, "name": name})
        b.add(insert("Address_Set", u, {
            "name": name,
            "addresses": oset(sorted(pods[i]["ip"] for i in ns_pods[ns])),
            "external_ids": omap(k8s_ids("Namespace", "ns-%d" % ns,
                                         {"ip-family": "v4"}))}))
        b.cut()
    b.cut(True)

    # Port-group budget: ANPs, one BANP, namespaces with policies (two
    # default-deny groups each) and network policies.
    n_anp = max(1, n_pg // 50)
    n_banp = 1
    rest = n_pg - n_anp - n_banp
    n_nsp = max(1, min(n_ns, rest // 4))
    n_np = max(1, rest - 2 * n_nsp)
    fixed_acls = n_nodes + 4 * n_nsp
    var = max(0, a.acls - fixed_acls)
    anp_acls = spread(var // 10, n_anp)
    banp_acls = spread(var // 20, n_banp)
    np_acls = spread(var - sum(anp_acls) - sum(banp_acls), n_np)

    def peer_set(owner_type, name, size):
        u = g.uuid()
        hname = ovnk_hash("%s:%s:v4" % (owner_type, name))
        addrs = set()
        for i in rng.sample(range(len(pods)), min(size // 2, len(pods))):
            addrs.add(pods[i]["ip"])
        while len(addrs) < size:
            addrs.add(ip_str((172 << 24 | 16 << 16) + rng.getrandbits(20)))
        b.add(insert("Address_Set", u, {
            "name": hname, "addresses": oset(sorted(addrs)),
            "external_ids": omap(k8s_ids(owner_type, name,
                                         {"ip-family": "v4"}))}))
        return {"uuid": u, "name": hname}

    pg_list, modify, peer_sets = [], [], []
    n_acls = n_nodes

    def add_pg(name_id, owner_type, members, acl_rows):
        pu = g.uuid()
        name = ovnk_hash(name_id)
        acl_uuids = []
        for row in acl_rows(name):
            au = g.uuid()
            acl_uuids.append(au)
            b.add(insert("ACL", au, row))
            if "tcp.dst == " in row["match"] and len(modify) < 5000:
                modify.append({"uuid": au, "match": row["match"]})
        b.add(insert("Port_Group", pu, {
            "name": name,
            "ports": oset(ref(pods[i]["uuid"]) for i in sorted(members)),
            "acls": oset(ref(x) for x in acl_uuids),
            "external_ids": omap(k8s_ids(owner_type, name_id))}))
        b.cut()
        pg_list.append({"uuid": pu, "name": name, "members": members})
        return len(acl_uuids)

    # Default deny per namespace with policies.
    for ns in range(n_nsp):
        members = set(ns_pods[ns])
        nsn = "ns-%d" % ns
        for gress, d, port in (("ingress", "to-lport", "outport"),
                               ("egress", "from-lport", "inport")):
            opts = {"apply-after-lb": "true"} if d == "from-lport" else {}

            def rows(pgname, gress=gress, d=d, port=port, opts=opts):
                return [
                    k8s_acl(d, 1000, "drop", "%s == @%s" % (port, pgname), 2,
                            k8s_ids("NetpolNamespace", nsn,
                                    {"direction": gress}), opts,
                            "NP:%s:%s" % (nsn, gress.capitalize())),
                    k8s_acl(d, 1001, "allow",
                            "%s == @%s && (arp || nd)" % (port, pgname), 2,
                            k8s_ids("NetpolNamespace", nsn,
                                    {"direction": gress, "type": "arpAllow"}),
                            opts,
                            "NP:%s:%s" % (nsn, gress.capitalize()))]
            n_acls += add_pg("%s_%sDefaultDeny" % (nsn, gress),
                             "NetpolNamespace", members, rows)

    # Network policies (tier 2).
    for p in range(n_np):
        ns = p % n_nsp
        nsn = "ns-%d" % ns
        pol = "np-%d" % p
        pods_ns = ns_pods[ns]
        members = set(rng.sample(pods_ns, (len(pods_ns) + 1) // 2)) \
            if pods_ns else set()
        peer = peer_set("NetworkPolicy", "%s:%s:ingress:0" % (nsn, pol),
                        a.as_size)
        peer_sets.append(peer)
        count = np_acls[p]

        def rows(pgname, count=count, peer=peer, nsn=nsn, pol=pol, ns=ns):
            out = []
            for i in range(count):
                port = 1024 + i
                ids = k8s_ids("NetworkPolicy", "%s:%s" % (nsn, pol),
                              {"gress-index": str(i // 2),
                               "port-policy-protocol": "tcp"})
                if i % 4 == 3:
                    ids["direction"] = "Egress"
                    out.append(k8s_acl(
                        "from-lport", 1001, "allow-related",
                        "ip4.dst == {$%s, $%s} && inport == @%s && "
                        "tcp && tcp.dst == %d"
                        % (peer["name"], ns_as[(ns + 1) % n_ns]["name"],
                           pgname, port), 2, ids,
                        {"apply-after-lb": "true"},
                        "NP:%s:%s:Egress:%d" % (nsn, pol, i)))
                else:
                    ids["direction"] = "Ingress"
                    out.append(k8s_acl(
                        "to-lport", 1001, "allow-related",
                        "ip4.src == {$%s, $%s} && outport == @%s && "
                        "tcp && tcp.dst == %d"
                        % (peer["name"], ns_as[ns]["name"], pgname, port),
                        2, ids, {},
                        "NP:%s:%s:Ingress:%d" % (nsn, pol, i)))
            return out
        n_acls += add_pg("%s:%s" % (nsn, pol), "NetworkPolicy", members,
                         rows)

    # Admin network policies (tier 1, with pass) and one baseline (tier 3).
    for kind, n, counts in (("AdminNetworkPolicy", n_anp, anp_acls),
                            ("BaselineAdminNetworkPolicy", n_banp,
                             banp_acls)):
        for x in range(n):
            name = "anp-%d" % x if kind[0] == "A" else "default"
            subj = rng.sample(range(n_ns), min(n_ns, 5))
            members = set(i for ns in subj for i in ns_pods[ns])
            peer = peer_set(kind, "%s:ingress:0" % name, a.as_size)
            peer_sets.append(peer)

            def rows(pgname, kind=kind, x=x, count=counts[x], peer=peer,
                     name=name):
                out = []
                for i in range(count):
                    if kind[0] == "A":
                        tier, prio = 1, 30000 - (x % 100) * 100 - i % 100
                        action = ("allow-related", "drop", "pass")[i % 3]
                    else:
                        tier, prio = 3, 1750 - i % 100
                        action = ("allow-related", "drop")[i % 2]
                    port = 1 + i
                    ids = k8s_ids(kind, name, {"rule-index": str(i)})
                    tag = "ANP" if tier == 1 else "BANP"
                    if i % 2:
                        out.append(k8s_acl(
                            "from-lport", prio, action,
                            "inport == @%s && ip4.dst == $%s && tcp && "
                            "tcp.dst == %d" % (pgname, peer["name"], port),
                            tier, ids, {"apply-after-lb": "true"},
                            "%s:%s:Egress:%d" % (tag, name, i)))
                    else:
                        out.append(k8s_acl(
                            "to-lport", prio, action,
                            "outport == @%s && ip4.src == $%s && tcp && "
                            "tcp.dst == %d" % (pgname, peer["name"], port),
                            tier, ids, {},
                            "%s:%s:Ingress:%d" % (tag, name, i)))
                return out
            n_acls += add_pg("%s:%s" % (kind, name), kind, members, rows)

    all_ports = [pd["uuid"] for pd in pods]
    np_pgs = pg_list[2 * n_nsp:2 * n_nsp + n_np]
    m["acl_pgs"] = [{"uuid": p["uuid"], "name": p["name"]} for p in np_pgs]
    m["as_for_add"] = [x["name"] for x in ns_as]
    m["modify_acls"] = modify
    m["pg_moves"] = pg_moves(rng, [(p["uuid"],
                                    set(pods[i]["uuid"] for i in p["members"]))
                                   for p in pg_list], all_ports)
    m["address_sets"] = [x["uuid"] for x in peer_sets]
    m["switches"] = [{"uuid": nd["uuid"], "name": nd["name"]} for nd in nodes]
    m["ns_pgs"] = [{"ns_as": ns_as[ns]["uuid"],
                    "ingress": pg_list[2 * ns]["uuid"],
                    "egress": pg_list[2 * ns + 1]["uuid"]}
                   for ns in range(n_nsp)]
    m["counts"] = {"switches": n_nodes, "ports": n_pods + n_nodes,
                   "port_groups": len(pg_list), "acls": n_acls,
                   "address_sets": len(ns_as) + len(peer_sets)}
    if a.services:
        k8s_services(a, g, b, nodes, pods, m)
    if a.routers:
        b.cut(True)
        gen_routers.k8s_routers(sys.modules[__name__], g, b, nodes,
                                32 - (blk.bit_length() - 1),
                                m.get("lb_group"), m)
    m["transactions"] = b.done()
    return m


SVC_OPTIONS = {"event": "false", "reject": "true", "skip_snat": "false",
               "neighbor_responder": "none",
               "hairpin_snat_ip": "169.254.169.5 fd69::5"}


def svc_vip(n, port):
    return "%s:%d" % (ip_str((172 << 24 | 30 << 16) + n), port)


def k8s_services(a, g, b, nodes, pods, m):
    """--services (k8s): a Load_Balancer per Service in the cluster-wide
    group every node switch lists, as ovn-kubernetes writes them."""
    rng = g.rng
    n_svc = a.lb_services if a.lb_services is not None else len(pods)
    n_big = min(3, n_svc // 10)
    pod_ips = [pd["ip"] for pd in pods] or ["10.128.0.3"]
    group = g.uuid()
    svcs = []
    for i in range(n_svc):
        u = g.uuid()
        proto = "udp" if i % 10 == 9 else "tcp"
        port, tport = (53, 5353) if proto == "udp" else (80 + i % 3,
                                                         8080 + i % 3)
        if i < n_big:
            eps = ["%s:%d" % (ip_str((10 << 24 | 129 << 16) + i * 65536
                                     + 1 + k), tport)
                   for k in range(a.lb_big_endpoints)]
        else:
            eps = ["%s:%d" % (ip, tport) for ip in
                   sorted(rng.sample(pod_ips,
                                     min(len(pod_ips), 1 + i % 10)))]
        vip = svc_vip(i + 1, port)
        svcs.append({"uuid": u, "vip": vip, "eps": eps})
        name = "ns-%d/svc-%d" % (i % 50, i)
        b.add(insert("Load_Balancer", u, {
            "name": "Service_%s_%s_cluster" % (name, proto.upper()),
            "protocol": proto, "vips": omap({vip: ",".join(eps)}),
            "options": omap(SVC_OPTIONS),
            "external_ids": omap({"k8s.ovn.org/kind": "Service",
                                  "k8s.ovn.org/owner": name})}))
        b.cut()
    b.cut(True)
    b.add(insert("Load_Balancer_Group", group, {
        "name": "clusterLBGroup",
        "load_balancer": oset(ref(x["uuid"]) for x in svcs)}))
    b.cut(True)
    for nd in nodes:
        b.add(mutate("Logical_Switch", nd["uuid"], "load_balancer_group",
                     "insert", [ref(group)]))
        b.cut()
    b.cut(True)
    # The services whose endpoints change: the small ones.
    m["lb_group"] = group
    m["lb_services"] = [x for x in svcs[n_big:n_big + 5000]]
    m["lb_pod_ips"] = pod_ips[:1000]
    m["counts"]["load_balancers"] = n_svc
    m["counts"]["lb_backends"] = sum(len(x["eps"]) for x in svcs)


def k8s_acl(direction, priority, action, match, tier, ids, options=None,
            name=None):
    row = {"priority": priority, "direction": direction, "action": action,
           "match": match, "tier": tier, "external_ids": omap(ids)}
    if options:
        row["options"] = omap(options)
    if name:
        row["name"] = name[:63]
    return row


# ---------------------------------------------------------------------------
# Changes measured by the runner.  change_ops(KIND, I, MANIFEST) is a
# deterministic function of its arguments, so every northd sees the same
# sequence.  "_del" kinds undo the matching "_add" of the same index.

def change_uuid(m, kind, i):
    r = random.Random("%s-%s-%d" % (m["seed"], kind, i))
    return str(uuidlib.UUID(int=r.getrandbits(128), version=4)), r


def change_ops(kind, i, m):
    u, r = change_uuid(m, kind, i)
    k8s = m["profile"] == "k8s"
    if kind in ("acl_add", "acl_del"):
        au, _ = change_uuid(m, "acl_add", i)
        pg = m["acl_pgs"][random.Random("%s-pg-%d" % (m["seed"], i))
                          .randrange(len(m["acl_pgs"]))]
        if kind == "acl_del":
            return [mutate("Port_Group", pg["uuid"], "acls", "delete",
                           [ref(au)])]
        if k8s:
            row = k8s_acl("to-lport", 1001, "allow-related",
                          "ip4.src == {$%s} && outport == @%s && tcp && "
                          "tcp.dst == %d"
                          % (m["as_for_add"][i % len(m["as_for_add"])],
                             pg["name"], 20000 + i), 2,
                          k8s_ids("NetworkPolicy", "bench-%d" % i))
        else:
            row = {"priority": 1002, "direction": "to-lport",
                   "action": "allow-related",
                   "match": "outport == @%s && ip4 && ip4.src == 0.0.0.0/0 "
                            "&& tcp && tcp.dst == %d" % (pg["name"],
                                                         20000 + i),
                   "external_ids": omap({
                       "neutron:security_group_rule_id": u})}
        return [insert("ACL", au, row),
                mutate("Port_Group", pg["uuid"], "acls", "insert",
                       [ref(au)])]
    if kind == "acl_modify":
        t = m["modify_acls"][i % len(m["modify_acls"])]
        head = t["match"].rsplit("tcp.dst == ", 1)[0]
        return [{"op": "update", "table": "ACL",
                 "where": [["_uuid", "==", ref(t["uuid"])]],
                 "row": {"match": "%stcp.dst == %d" % (head, 40000 + i)}}]
    if kind in ("pg_add_port", "pg_del_port"):
        mv = m["pg_moves"][i % len(m["pg_moves"])]
        return [mutate("Port_Group", mv["pg"], "ports",
                       "insert" if kind == "pg_add_port" else "delete",
                       [ref(mv["port"])])]
    if kind in ("as_add", "as_del"):
        asu = m["address_sets"][i % len(m["address_sets"])]
        addr = ip_str((192 << 24 | 168 << 16) + 1 + i)
        return [mutate("Address_Set", asu, "addresses",
                       "insert" if kind == "as_add" else "delete", [addr])]
    if kind == "dhcp_modify":
        d = m["dhcp"][i % len(m["dhcp"])]
        return [{"op": "update", "table": "DHCP_Options",
                 "where": [["_uuid", "==", ref(d["uuid"])]],
                 "row": {"options": dhcp_options(d["net"], d["md"],
                                                 3600 + i)}}]
    if kind == "dns_record":
        dns = m["dns"][i % len(m["dns"])]
        return [{"op": "mutate", "table": "DNS",
                 "where": [["_uuid", "==", ref(dns)]],
                 "mutations": [["records", "insert", omap({
                     "bench-%d" % i: ip_str((172 << 24 | 22 << 16)
                                            + 1 + i)})]]}]
    if kind == "lb_endpoint":
        sv = m["lb_services"][i % len(m["lb_services"])]
        tport = sv["eps"][0].rsplit(":", 1)[1]
        eps = sv["eps"][:-1] + ["%s:%s" % (ip_str((10 << 24 | 140 << 16)
                                                  + 1 + i), tport)]
        return [{"op": "update", "table": "Load_Balancer",
                 "where": [["_uuid", "==", ref(sv["uuid"])]],
                 "row": {"vips": omap({sv["vip"]: ",".join(eps)})}}]
    if kind in ("lb_service_add", "lb_service_del"):
        lu, lr = change_uuid(m, "lb_service_add", i)
        if kind == "lb_service_del":
            return [mutate("Load_Balancer_Group", m["lb_group"],
                           "load_balancer", "delete", [ref(lu)]),
                    {"op": "delete", "table": "Load_Balancer",
                     "where": [["_uuid", "==", ref(lu)]]}]
        ips = m["lb_pod_ips"]
        eps = sorted(set("%s:8080" % ips[lr.randrange(len(ips))]
                         for _ in range(3)))
        name = "bench/svc-%d" % i
        return [insert("Load_Balancer", lu, {
                    "name": "Service_%s_TCP_cluster" % name,
                    "protocol": "tcp",
                    "vips": omap({"%s:80" % ip_str((172 << 24 | 31 << 16)
                                                   + 1 + i): ",".join(eps)}),
                    "options": omap(SVC_OPTIONS),
                    "external_ids": omap({"k8s.ovn.org/kind": "Service",
                                          "k8s.ovn.org/owner": name})}),
                mutate("Load_Balancer_Group", m["lb_group"],
                       "load_balancer", "insert", [ref(lu)])]
    if kind in ROUTER_KINDS:
        add = kind.replace("_del", "_add")
        return gen_routers.change_ops(sys.modules[__name__], kind, i, m,
                                      change_uuid(m, add, i)[0])
    if kind == "port_add":
        sw = m["switches"][r.randrange(len(m["switches"]))]
        ip = ip_str((172 << 24 | 20 << 16) + 1 + i)
        return port_ops(m, u, ip, i, sw["uuid"], sw, r)
    if kind == "switch_add":
        ls = str(uuidlib.UUID(int=r.getrandbits(128), version=4))
        lsp = str(uuidlib.UUID(int=r.getrandbits(128), version=4))
        ip = ip_str((172 << 24 | 21 << 16) + 1 + i)
        if k8s:
            name = "ovn-worker-bench-%d" % i
            acl = str(uuidlib.UUID(int=r.getrandbits(128), version=4))
            return [insert("Logical_Switch_Port", lsp, {
                        "name": "k8s-" + name,
                        "addresses": oset(["%s %s" % (ovnk_mac(ip), ip)])}),
                    insert("ACL", acl, k8s_acl(
                        "to-lport", 1001, "allow-related",
                        "ip4.src==%s" % ip, 2,
                        k8s_ids("NetpolNode", name, {"ip": ip}))),
                    insert("Logical_Switch", ls, dict({
                        "name": name, "ports": oset([ref(lsp)]),
                        "acls": oset([ref(acl)])}, **(
                        # A node joins the cluster's services.
                        {"load_balancer_group": oset([ref(m["lb_group"])])}
                        if "lb_group" in m else {})))]
        sw = m["switches"][r.randrange(len(m["switches"]))]
        ops = [insert("Logical_Switch", ls, {
            "name": "neutron-" + u, "ports": oset([ref(lsp)]),
            "external_ids": omap({"neutron:network_name": "bench-%d" % i,
                                  "neutron:mtu": "1442",
                                  "neutron:revision_number": "1"})})]
        return ops + port_ops(m, lsp, ip, i, None, sw, r)
    raise ValueError("unknown change kind %s" % kind)


def port_ops(m, pu, ip, i, ls_uuid, sw, r):
    """A new port PU with address IP, added to switch LS_UUID (None: the
    caller inserts the switch) and to the port groups (and, for k8s, the
    namespace address set) a CMS would put it in, in one transaction."""
    ops = []
    if m["profile"] == "k8s":
        addr = "%s %s" % (ovnk_mac(ip), ip)
        nsx = m["ns_pgs"][r.randrange(len(m["ns_pgs"]))]
        ops.append(insert("Logical_Switch_Port", pu, {
            "name": "bench_pod-%d-%s" % (i, pu[:8]),
            "addresses": oset([addr]), "port_security": oset([addr]),
            "external_ids": omap({"namespace": "bench", "pod": "true"})}))
        ops.append(mutate("Address_Set", nsx["ns_as"], "addresses",
                          "insert", [ip]))
        pgs = [nsx["ingress"], nsx["egress"]]
    else:
        mac = "fa:16:3f:%02x:%02x:%02x" % (i >> 16 & 255, i >> 8 & 255,
                                           i & 255)
        addr = "%s %s" % (mac, ip)
        ops.append(insert("Logical_Switch_Port", pu, {
            "name": pu, "addresses": oset([addr]),
            "port_security": oset([addr]),
            "external_ids": omap({"neutron:device_owner": "compute:nova",
                                  "neutron:network_name": sw["name"],
                                  "neutron:security_group_ids": ""})}))
        pgs = [sw["sg"], m["drop_pg"]]
    if ls_uuid:
        ops.append(mutate("Logical_Switch", ls_uuid, "ports", "insert",
                          [ref(pu)]))
    for pg in pgs:
        ops.append(mutate("Port_Group", pg, "ports", "insert", [ref(pu)]))
    return ops


# ---------------------------------------------------------------------------

def generate(args, sink):
    """Generates the workload, handing each transaction (a list of
    operations) to SINK; returns the manifest: counts and the handles
    change_ops() needs."""
    if args.profile == "neutron":
        return gen_neutron(args, sink)
    if args.profile == "k8s":
        return gen_k8s(args, sink)
    raise ValueError("unknown profile %s" % args.profile)


def load(conn, args):
    """Writes the workload through CONN (NB_Global first, if there is
    none); returns the manifest."""
    res = conn.transact(DB, [{"op": "select", "table": "NB_Global",
                              "where": [], "columns": ["_uuid"]}])
    if not res[0]["rows"]:
        conn.transact(DB, [{"op": "insert", "table": "NB_Global",
                            "row": {}}])
    return generate(args, lambda ops: conn.transact(DB, ops, timeout=1800))


def add_size_args(p):
    p.add_argument("--profile", choices=["neutron", "k8s"],
                   default="neutron")
    p.add_argument("--size", choices=sorted(SIZES),
                   help="preset for --ports/--switches/--port-groups/--acls")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--ports", type=int)
    p.add_argument("--switches", type=int)
    p.add_argument("--port-groups", type=int)
    p.add_argument("--acls", type=int)
    p.add_argument("--address-sets", type=int, default=None,
                   help="neutron: legacy as_ip4_* sets (default PGs/10)")
    p.add_argument("--as-size", type=int, default=200,
                   help="k8s: addresses per policy peer address set")
    p.add_argument("--pods-per-namespace", type=int, default=20)
    p.add_argument("--stateless-fraction", type=float, default=0.05)
    p.add_argument("--services", action="store_true",
                   help="neutron: also DHCP options per subnet, a metadata "
                   "localport and DNS records per network, and a VLAN "
                   "provider port on every tenth (change kinds %s); k8s: "
                   "also Services, load balancers in a group on every "
                   "node switch (change kinds %s)"
                   % (",".join(SERVICE_KINDS), ",".join(LB_KINDS)))
    p.add_argument("--routers", action="store_true",
                   help="neutron: also a router per project with a gateway "
                   "port on a provider network, SNAT and floating IPs for "
                   "a fifth of the ports (change kinds %s); k8s: also "
                   "ovn-kubernetes' cluster router, join switch and a "
                   "gateway router per node with SNAT (change kinds %s); "
                   "see bench/gen_routers.py"
                   % (",".join(gen_routers.NEUTRON_KINDS),
                      ",".join(gen_routers.K8S_KINDS)))
    p.add_argument("--lb-services", type=int, default=None,
                   help="k8s --services: how many (default: one per pod)")
    p.add_argument("--lb-big-endpoints", type=int, default=2000,
                   help="k8s --services: endpoints of each of the 3 "
                   "biggest services (default 2000)")


def resolve_sizes(a):
    preset = SIZES[a.size or "tiny"]
    for k, v in preset.items():
        if getattr(a, k) is None:
            setattr(a, k, v)
    return a


def start_server(workdir, dbfile, name):
    """Starts an ovsdb-server for DBFILE; returns (socket, pidfile)."""
    sock = os.path.join(workdir, name + ".sock")
    pid = os.path.join(workdir, name + ".pid")
    subprocess.run(["/usr/sbin/ovsdb-server", "--detach", "--no-chdir",
                    "-vconsole:off",
                    "--pidfile=" + pid,
                    "--log-file=" + os.path.join(workdir, name + ".log"),
                    "--unixctl=" + os.path.join(workdir, name + ".ctl"),
                    "--remote=punix:" + sock, dbfile], check=True)
    return "unix:" + sock, pid


def stop_server(pidfile):
    try:
        with open(pidfile) as f:
            pid = int(f.read())
        os.kill(pid, 15)
        for _ in range(100):
            os.kill(pid, 0)
            time.sleep(0.05)
    except (OSError, ValueError):
        pass


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_size_args(p)
    p.add_argument("--db", help="NB ovsdb-server to write to (unix:SOCK)")
    p.add_argument("--out", help="create this NB database file instead")
    p.add_argument("--schema", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "ovn-nb.ovsschema"))
    p.add_argument("--manifest", help="write the change handles here (JSON)")
    a = resolve_sizes(p.parse_args())
    if bool(a.db) == bool(a.out):
        p.error("exactly one of --db and --out is needed")

    t0 = time.monotonic()
    if a.out:
        work = tempfile.mkdtemp(prefix="lsn-gen-")
        subprocess.run(["/usr/bin/ovsdb-tool", "create", a.out, a.schema],
                       check=True)
        db, pid = start_server(work, os.path.abspath(a.out), "nb")
    else:
        db, pid = a.db, None
    try:
        conn = ovsdbrpc.Connection(db)
        m = load(conn, a)
        conn.close()
    finally:
        if pid:
            stop_server(pid)
            shutil.rmtree(work, ignore_errors=True)
    if a.manifest:
        with open(a.manifest, "w") as f:
            json.dump(m, f)
    print("%s: %s; generated and loaded in %.1f s (%d transactions)"
          % (a.profile, json.dumps(m["counts"]), time.monotonic() - t0,
             m["transactions"]), file=sys.stderr)


if __name__ == "__main__":
    main()
