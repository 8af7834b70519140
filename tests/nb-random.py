#! /usr/bin/env python3
"""Seeded random sequences of Northbound changes, as a CMS would make them.

    nb-random.py --seed N --steps M [--mix MIX]    the steps, one a line
    nb-random.py --preamble                        the shell helpers
    nb-random.py --seed N --steps M --script       a standalone script

Each step is one change to the NB, written as a line of shell for `eval`
in an environment where the helpers of --preamble are defined:

    rnd_nbctl ARGS...     the stock /usr/bin/ovn-nbctl on $RND_NB_DB
    rnd_tx OPS            an OVSDB transaction (for what stock ovn-nbctl
                          23.03 cannot write: the ACL "pass" verb and tiers)
    rnd_acl_tag TAG       names the ACL that the step's acl-add just created
    $(rnd_acl TAG)        the UUID of the ACL named TAG
    $(rnd_lsp NAME)       the UUID of logical switch port NAME

Every ACL carries external_ids:oracle=TAG so that later steps can find it.
The generator keeps a model of what exists, so that every command it
writes is one the NB accepts; what it does not check on purpose is that
ACL matches stay valid: a CMS may delete a port group that a match still
refers to, and a few steps write invalid matches outright.  The output
depends on --seed, --steps and --mix only.

Mixes weight the kinds of change differently:
    cms     mostly ACL, port group, address set and port changes (default)
    acl     only ACL, port group and address set changes once a few
            switches and ports exist
    topo    more switches, ports, load balancers and global options
    invalid like cms, with many more invalid matches and policy toggles
    ipam    ports with dynamic addresses (all forms), switches' IPAM
            settings, NB_Global options:mac_prefix, dynamic_addresses
            written by the CMS; static addresses are written with "set"
            (ovn-nbctl refuses one that another port has dynamically)
    dns     DNS rows (records changed, emptied, rows listed and dropped by
            switches, deleted), with switches, ports, stateful ACLs and
            load balancers coming and going (DNS_MIX)
    dhcp    DHCP_Options rows (DHCPv4 and DHCPv6, good and bad: unknown
            options, values of the wrong kind, a bad cidr, missing
            required options), ports pointing at them, options:hostname

--script prints the preamble followed by every step and an
"rnd_nbctl --wait=sb sync" after each: with RND_NB_DB set to a test's NB,
it replays the sequence by hand.
"""

import argparse
import json
import random
import shlex
import sys

PREAMBLE = r'''# Helpers for the steps of tests/nb-random.py.
: "${RND_NB_DB:?set RND_NB_DB to the NB database, e.g. unix:$PWD/nb.sock}"
: "${RND_NBCTL:=/usr/bin/ovn-nbctl}"
: "${RND_OVSDB_CLIENT:=/usr/bin/ovsdb-client}"

rnd_nbctl () { "$RND_NBCTL" --db="$RND_NB_DB" --timeout=60 "$@"; }

# rnd_uuid TABLE NAME: the UUID of the row of TABLE named NAME (ovn-nbctl
# 23.03 does not find load balancer groups by name).
rnd_uuid () { rnd_nbctl --bare --columns=_uuid find "$1" name="$2"; }

# rnd_tx OPS: the OVSDB operations OPS (comma-separated JSON objects) on the
# NB; fails if any of them does.
rnd_tx () {
    rnd_out=$("$RND_OVSDB_CLIENT" transact "$RND_NB_DB" \
              "[\"OVN_Northbound\", $1]") || return 1
    case $rnd_out in
        *'"error"'*) echo "rnd_tx: $rnd_out" >&2; return 1 ;;
    esac
}

# rnd_acl_tag TAG: tags the one ACL without external_ids (the one acl-add
# just created) as external_ids:oracle=TAG.
rnd_acl_tag () {
    rnd_u=$(rnd_nbctl --bare --columns=_uuid find ACL 'external_ids={}')
    case $rnd_u in
        ''|*[!0-9a-f-]*)
            echo "rnd_acl_tag $1: no single untagged ACL: $rnd_u" >&2
            return 1 ;;
    esac
    rnd_nbctl set ACL "$rnd_u" external_ids:oracle="$1"
}

# rnd_acl TAG: the UUID of the ACL tagged TAG.
rnd_acl () {
    rnd_nbctl --bare --columns=_uuid find ACL external_ids:oracle="$1"
}

# rnd_dns TAG: the UUID of the DNS row tagged TAG.
rnd_dns () {
    rnd_nbctl --bare --columns=_uuid find DNS external_ids:oracle="$1"
}

# rnd_lsp NAME: the UUID of logical switch port NAME.
rnd_lsp () { rnd_nbctl get Logical_Switch_Port "$1" _uuid; }

rnd_sync () { rnd_nbctl --wait=sb sync; }
# rnd_dhcp TAG: the UUID of the DHCP_Options row tagged TAG.
rnd_dhcp () {
    rnd_nbctl --bare --columns=_uuid find DHCP_Options external_ids:oracle="$1"
}
'''

VERBS = ["allow", "allow-related", "allow-stateless", "drop", "reject",
         "pass"]
SEVERITIES = ["alert", "warning", "notice", "info", "debug"]
PRIORITIES = [0, 1, 100, 100, 200, 1000, 1001, 1002, 2000, 32767]

# Invalid matches: unknown fields, sets or groups that do not exist, type
# and width errors, syntax errors.
INVALID_MATCHES = [
    "ip4.foo == 1",
    "ip4.src == $no_such_set",
    "inport == @no_such_pg",
    "tcp.dst == 10.0.0.1",
    "ip4.src == \"lp1\"",
    "tcp.dst ==",
    "ip4 && (tcp",
    "eth.type == 0x800 && ip6.src == 10.0.0.1",
    "reg0[40] == 1",
]

WEIGHTS = {
    #  op               cms  acl  topo invalid ipam
    "ls_add":          (2,   0,   6,   2,   3),
    "ls_del":          (1,   0,   3,   1,   0),
    "ls_ext_ids":      (1,   0,   2,   1,   1),
    "lsp_add":         (8,   0,  10,   6,  10),
    "lsp_del":         (3,   0,   5,   2,   4),
    "lsp_move":        (1,   0,   2,   1,   2),
    "lsp_set_addr":    (4,   0,   4,   3,   8),
    "lsp_set_ps":      (2,   0,   2,   2,   1),
    "lsp_set_enabled": (1,   0,   2,   1,   1),
    "lsp_set_type":    (1,   0,   3,   1,   1),
    "pg_add":          (3,   4,   2,   3,   2),
    "pg_del":          (1,   1,   1,   1,   1),
    "pg_set_ports":    (3,   4,   2,   3,   2),
    "pg_add_port":     (6,   6,   3,   5,   4),
    "pg_del_port":     (4,   5,   2,   4,   2),
    "as_add":          (2,   3,   1,   2,   0),
    "as_del":          (1,   1,   1,   1,   0),
    "as_add_addr":     (5,   6,   1,   4,   0),
    "as_del_addr":     (4,   5,   1,   3,   0),
    "as_set":          (1,   2,   0,   1,   0),
    "acl_add":        (16,  18,   6,  16,   4),
    "acl_add_tx":      (4,   4,   2,   4,   0),
    "acl_del":         (5,   6,   2,   5,   2),
    "acl_set_match":   (5,   6,   1,   8,   1),
    "acl_set_prio":    (2,   3,   1,   2,   0),
    "acl_set_action":  (2,   3,   1,   2,   0),
    "acl_set_misc":    (4,   4,   1,   3,   0),
    "lb_add":          (1,   0,   4,   2,   0),
    "lb_add_vip":      (1,   0,   2,   1,   0),
    "lb_attach":       (1,   0,   4,   2,   0),
    "lb_detach":       (1,   0,   2,   1,   0),
    "lb_del":          (1,   0,   2,   1,   0),
    "meter":           (1,   0,   1,   1,   0),
    "nb_option":       (1,   1,   3,   5,   1),
    "ls_ipam":         (0,   0,   0,   0,   6),
    "lsp_set_dyn":     (0,   0,   0,   0,   2),
    "mac_prefix":      (0,   0,   0,   0,   1),
}
MIXES = ["cms", "acl", "topo", "invalid", "ipam", "dns", "dhcp", "lb",
         "router"]

# The weights of the "dns" mix (the other mixes never change DNS rows).
DNS_MIX = {
    "ls_add": 3, "ls_del": 1, "lsp_add": 6, "lsp_del": 2,
    "acl_add": 3, "acl_del": 2, "lb_add": 1, "lb_add_vip": 1,
    "lb_attach": 1, "lb_detach": 1,
    "dns_add": 3, "dns_del": 1, "dns_set": 8, "dns_clear": 1,
    "dns_attach": 4, "dns_detach": 3,
}
DNS_NAMES = 4

# The weights of the "dhcp" mix (the other mixes never change DHCP rows).
DHCP_MIX = {
    "ls_add": 3, "ls_del": 1, "lsp_add": 10, "lsp_del": 3, "lsp_move": 1,
    "lsp_set_addr": 4, "lsp_set_enabled": 2, "lsp_set_type": 2,
    "acl_add": 3, "lb_add": 1, "lb_attach": 1,
    "dhcp_add": 4, "dhcp_set": 8, "dhcp_del": 2, "lsp_set_dhcp": 8,
    "lsp_hostname": 3,
}

# The weights of the "lb" mix: load balancers as ovn-kubernetes changes
# them (backends all the time, services coming and going, groups attached
# to switches), with ports and ACLs changing on the switches that have
# them.  The other mixes never use groups or change backends alone.
LB_MIX = {
    "ls_add": 3, "ls_del": 1, "lsp_add": 8, "lsp_del": 3,
    "lsp_set_addr": 3, "lsp_set_type": 1, "lsp_set_enabled": 1,
    "acl_add": 3, "acl_del": 1,
    "lb_add": 4, "lb_add_vip": 4, "lb_set_backends": 12, "lb_attach": 3,
    "lb_detach": 2, "lb_del": 2, "lbg_add": 2, "lbg_del": 1, "lbg_lb": 6,
    "lbg_attach": 3, "lbg_detach": 2,
}
LBG_NAMES = 3

# The weights of the "router" mix: routers wired to switches through their
# router ports, connected and static routes, with ports, addresses and
# ACLs changing on those switches (router changes recompute; switch port
# changes are followed incrementally, the static ARP entries of the
# routers with them; some router ports are distributed gateway ports:
# docs/routers.md).
ROUTER_MIX = {
    "ls_add": 3, "ls_del": 1, "lsp_add": 8, "lsp_del": 2, "lsp_move": 1,
    "lsp_set_addr": 8, "lsp_set_type": 1, "lsp_set_enabled": 1,
    "acl_add": 3, "acl_del": 1, "pg_add": 1, "pg_add_port": 2,
    "lsp_add_rp": 3, "lr_add": 2, "lr_del": 1, "lrp_add": 4, "lrp_del": 1,
    "lr_route_add": 3, "lr_route_del": 1, "lr_policy_add": 2,
    "lr_policy_del": 1,
}
ROUTER_NAMES = 3

MAX_SWITCHES = 5
PORT_NAMES = 40
PG_NAMES = 6
AS_NAMES = 6
LB_NAMES = 4
METER_NAMES = 2
DHCP_ROWS = 6


def q(s):
    return shlex.quote(s)


def ovsdb_str(s):
    """A string in the syntax of ovn-nbctl's database commands."""
    return json.dumps(s)


def jmap(d):
    return ["map", sorted([k, v] for k, v in d.items())]


class Acl:
    def __init__(self, tag, kind, owner, direction, prio, match, action):
        self.tag = tag
        self.kind = kind            # "ls" or "pg"
        self.owner = owner
        self.direction = direction
        self.prio = prio
        self.match = match
        self.action = action


class Gen:
    def __init__(self, seed, mix):
        self.r = random.Random(seed)
        self.mix = MIXES.index(mix)
        self.p_invalid = 0.15 if mix == "invalid" else 0.04
        self.switches = {}      # name -> {"ports", "acls", "lbs", "id"}
        self.ports = {}         # name -> dict
        self.pgs = {}           # name -> {"ports": set, "acls": set}
        self.ases = {}          # name -> {"v6": bool, "addrs": set}
        self.acls = {}          # tag -> Acl
        self.lbs = {}           # name -> {"proto", "vips": dict, "switches"}
        self.lbgs = {}          # name -> {"lbs": set, "switches": set}
        self.meters = set()
        self.dnses = {}         # tag -> records (dict)
        self.dhcps = {}         # tag -> {"v6": bool}
        self.n_dhcp = 0
        self.routers = {}       # name -> {"lrps": set, "routes": set}
        self.lrps = {}          # name -> {"router", "net", "nexthop"}
        self.n_lrp = 0
        self.options = {}
        self.n_acl = 0
        self.n_addr = 0
        self.n_tag = 0
        self.n_sw = 0
        # Names deleted earlier in the current batch: one ovn-nbctl
        # transaction should not delete and recreate a row by name.
        self.freed = set()

    # -- picking ------------------------------------------------------
    def pick(self, seq):
        seq = sorted(seq)
        return self.r.choice(seq) if seq else None

    def chance(self, p):
        return self.r.random() < p

    def free_name(self, prefix, n, taken):
        names = ["%s%d" % (prefix, i) for i in range(n)
                 if "%s%d" % (prefix, i) not in taken
                 and "%s%d" % (prefix, i) not in self.freed]
        return self.r.choice(names) if names else None

    # -- addresses ----------------------------------------------------
    def new_port_addresses(self, sw):
        """One or two "MAC IP..." entries, sometimes with "unknown"; with
        the ipam mix, often a dynamic entry instead."""
        if MIXES[self.mix] == "ipam" and self.chance(0.6):
            out = [self.dynamic_entry(sw)]
            if self.chance(0.2):
                out += self.new_port_addresses_static(sw)
            return out
        return self.new_port_addresses_static(sw)

    def new_port_addresses_static(self, sw):
        out = []
        for _ in range(2 if self.chance(0.1) else 1):
            self.n_addr += 1
            n = self.n_addr
            mac = "0a:00:00:%02x:%02x:%02x" % (
                self.switches[sw]["id"], n // 256, n % 256)
            ip = "10.%d.%d.%d" % (self.switches[sw]["id"], n // 250,
                                  n % 250 + 1)
            if MIXES[self.mix] == "ipam" and self.chance(0.3):
                # Where IPAM allocates: a static address that a dynamic
                # port may hold, or that one may later ask for.
                ip = "10.%d.0.%d" % (self.switches[sw]["id"],
                                     self.r.randrange(2, 12))
            entry = "%s %s" % (mac, ip)
            if self.chance(0.25):
                entry += " fd00::%x:%x" % (self.switches[sw]["id"], n)
            out.append(entry)
        if self.chance(0.15):
            out.append("unknown")
        if self.chance(0.05):
            out = ["unknown"]
        return out

    def dynamic_entry(self, sw):
        """An entry asking IPAM for addresses, in one of its forms."""
        i = self.switches[sw]["id"]
        k = self.r.randrange(2, 40)
        return self.r.choice([
            "dynamic", "dynamic",
            "dynamic 10.%d.0.%d" % (i, k),
            "dynamic fd00::%x:%x" % (i, k),
            "dynamic 10.%d.0.%d fd00::%x:%x" % (i, k, i, k),
            "0a:01:00:%02x:00:%02x dynamic" % (i, k),
        ])

    def is_dynamic(self, name):
        return any("dynamic" in a for a in self.ports[name]["addrs"])

    def addr_cmd(self, name, addrs):
        """The ovn-nbctl command that sets port NAME's addresses.  With
        IPAM, static addresses may be ones another port has dynamically,
        which lsp-set-addresses refuses: "set" writes them anyway, as a
        CMS writing the database would."""
        if MIXES[self.mix] != "ipam":
            return ["lsp-set-addresses", name] + addrs
        return ["set", "Logical_Switch_Port", name,
                "addresses=" + ("[]" if not addrs else
                                ",".join(ovsdb_str(a) for a in addrs))]

    def rand_ip4(self):
        return "10.%d.%d.%d" % (self.r.randrange(6), self.r.randrange(4),
                                self.r.randrange(1, 255))

    def rand_cidr4(self):
        return "10.%d.%d.0/24" % (self.r.randrange(6), self.r.randrange(4))

    def as_addr(self, v6):
        if v6:
            return "fd00::%x" % self.r.randrange(1, 200)
        return self.rand_cidr4() if self.chance(0.3) else self.rand_ip4()

    # -- matches ------------------------------------------------------
    def port_ref(self, direction, kind, owner):
        field = "inport" if direction == "from-lport" else "outport"
        if kind == "pg" and self.chance(0.8):
            return "%s == @%s" % (field, owner)
        if self.pgs and self.chance(0.3):
            return "%s == @%s" % (field, self.pick(self.pgs))
        ports = (self.switches[owner]["ports"] if kind == "ls"
                 else self.pgs[owner]["ports"]) or set(self.ports)
        if not ports:
            return None
        if len(ports) > 1 and self.chance(0.3):
            two = self.r.sample(sorted(ports), 2)
            return '%s == {"%s", "%s"}' % (field, two[0], two[1])
        return '%s == "%s"' % (field, self.pick(ports))

    def l3(self):
        c = self.r.randrange(10)
        src = self.r.choice(["src", "dst"])
        v4 = [a for a in self.ases if not self.ases[a]["v6"]]
        v6 = [a for a in self.ases if self.ases[a]["v6"]]
        if c == 0:
            return "ip4"
        if c == 1:
            return "ip6" if self.chance(0.5) else "ip"
        if c == 2:
            return "ip4.%s == %s" % (src, self.rand_cidr4())
        if c == 3:
            return "ip4.%s == {%s, %s}" % (src, self.rand_ip4(),
                                           self.rand_cidr4())
        if c in (4, 5) and v4:
            return "ip4.%s == $%s" % (src, self.pick(v4))
        if c == 6 and v6:
            return "ip6.%s == $%s" % (src, self.pick(v6))
        if c in (7, 8) and self.pgs:
            pg = self.pick(self.pgs)
            if self.chance(0.8):
                return "ip4.%s == $%s_ip4" % (src, pg)
            return "ip6.%s == $%s_ip6" % (src, pg)
        if c == 9:
            return "ip4.%s != %s" % (src, self.rand_ip4())
        return "ip4.src == %s" % self.rand_ip4()

    def l4(self):
        return self.r.choice([
            "tcp", "udp", "icmp4", "sctp",
            "tcp.dst == %d" % self.r.choice([22, 80, 443, 8080]),
            "tcp.dst == {22, 80, 443}",
            "udp.dst == 53",
            "tcp.dst >= 1000 && tcp.dst <= 2000",
            "(tcp.dst == 80 || udp.dst == 53)",
            "tcp.flags == 0x2",
        ])

    def gen_match(self, direction, kind, owner):
        if self.chance(self.p_invalid):
            return self.r.choice(INVALID_MATCHES)
        parts = []
        if kind == "pg" or self.chance(0.6):
            ref = self.port_ref(direction, kind, owner)
            if ref:
                parts.append(ref)
        if self.chance(0.7):
            parts.append(self.l3())
        if self.chance(0.55):
            parts.append(self.l4())
        if not parts:
            parts.append(self.r.choice(["ip", "1", "arp", "ip4"]))
        return " && ".join(parts)

    # -- feasibility --------------------------------------------------
    def acl_owners(self):
        return ([("ls", s) for s in sorted(self.switches)]
                + [("pg", p) for p in sorted(self.pgs)])

    def feasible(self, op):
        sw, ports, pgs = self.switches, self.ports, self.pgs
        return {
            "ls_add": len(sw) < MAX_SWITCHES,
            "ls_del": len(sw) > 2,
            "ls_ext_ids": bool(sw),
            "lsp_add": bool(sw) and len(ports) < PORT_NAMES,
            "lsp_del": len(ports) > 2 * len(sw),
            "lsp_move": len(sw) > 1 and bool(ports),
            "lsp_set_addr": bool(ports),
            "lsp_set_ps": bool(ports),
            "lsp_set_enabled": bool(ports),
            "lsp_set_type": bool(ports),
            "pg_add": len(pgs) < PG_NAMES,
            "pg_del": bool(pgs),
            "pg_set_ports": bool(pgs),
            "pg_add_port": any(set(ports) - p["ports"] for p in pgs.values()),
            "pg_del_port": any(p["ports"] for p in pgs.values()),
            "as_add": len(self.ases) < AS_NAMES,
            "as_del": bool(self.ases),
            "as_add_addr": bool(self.ases),
            "as_del_addr": any(a["addrs"] for a in self.ases.values()),
            "as_set": bool(self.ases),
            "acl_add": bool(self.acl_owners()),
            "acl_add_tx": bool(self.acl_owners()),
            "acl_del": bool(self.acls),
            "acl_set_match": bool(self.acls),
            "acl_set_prio": bool(self.acls),
            "acl_set_action": bool(self.acls),
            "acl_set_misc": bool(self.acls),
            "lb_add": len(self.lbs) < LB_NAMES,
            "lb_add_vip": bool(self.lbs),
            "lb_attach": any(set(sw) - lb["switches"]
                             for lb in self.lbs.values()),
            "lb_detach": any(lb["switches"] for lb in self.lbs.values()),
            "lb_del": any(not self.lb_grouped(n) for n in self.lbs),
            "lb_set_backends": bool(self.lbs),
            "lbg_add": len(self.lbgs) < LBG_NAMES,
            "lbg_del": any(not g["switches"] for g in self.lbgs.values()),
            "lbg_lb": bool(self.lbgs) and bool(self.lbs),
            "lbg_attach": any(set(sw) - g["switches"]
                              for g in self.lbgs.values()),
            "lbg_detach": any(g["switches"] for g in self.lbgs.values()),
            "meter": True,
            "nb_option": True,
            "ls_ipam": bool(sw),
            "lsp_set_dyn": any(self.is_dynamic(p) for p in ports),
            "mac_prefix": True,
            "dns_add": len(self.dnses) < DNS_NAMES,
            "dns_del": bool(self.dnses),
            "dns_set": bool(self.dnses),
            "dns_clear": bool(self.dnses),
            "dns_attach": bool(self.dnses) and bool(sw),
            "dns_detach": any(s.get("dns") for s in sw.values()),
            "dhcp_add": len(self.dhcps) < DHCP_ROWS,
            "dhcp_set": bool(self.dhcps),
            "dhcp_del": len(self.dhcps) > 2,
            "lsp_set_dhcp": bool(ports) and bool(self.dhcps),
            "lsp_hostname": bool(ports),
            "lsp_add_rp": bool(sw) and len(ports) < PORT_NAMES,
            "lr_add": len(self.routers) < ROUTER_NAMES,
            "lr_del": bool(self.routers),
            "lrp_add": bool(self.routers) and bool(self.unwired()),
            "lrp_del": bool(self.lrps),
            "lr_route_add": any(r["lrps"] for r in self.routers.values()),
            "lr_route_del": any(r["routes"] for r in self.routers.values()),
            "lr_policy_add": any(r["lrps"] for r in self.routers.values()),
            "lr_policy_del": any(r.get("policies")
                                 for r in self.routers.values()),
        }[op]

    def weight(self, op):
        if MIXES[self.mix] == "dns":
            w = DNS_MIX.get(op, 0)
        elif MIXES[self.mix] == "dhcp":
            w = DHCP_MIX.get(op, 0)
        elif MIXES[self.mix] == "lb":
            w = LB_MIX.get(op, 0)
        elif MIXES[self.mix] == "router":
            w = ROUTER_MIX.get(op, 0)
        else:
            w = WEIGHTS[op][self.mix] if op in WEIGHTS else 0
        # Build a small topology first, whatever the mix.
        if len(self.switches) < 2 and op == "ls_add":
            w = max(w, 1) * 10
        if len(self.ports) < 2 * len(self.switches) and op == "lsp_add":
            w = max(w, 1) * 5
        if MIXES[self.mix] == "acl" and (len(self.switches) < 3
                                         or len(self.ports) < 8):
            if op == "ls_add":
                w = 10
            elif op == "lsp_add":
                w = 10
            elif op.startswith("acl"):
                w = 0
        return w

    def step(self):
        """One step: usually one change, sometimes a batch of a few."""
        self.freed = set()
        if self.chance(0.12):
            return self.batch()
        return self.one()

    def batch(self):
        """Two to four changes in one line, without a sync in between.
        Consecutive plain ovn-nbctl commands become one transaction (as a
        CMS writes several rows at once); the rest follow each other
        without waiting, so northd may see them in one pass or several."""
        lines = [self.one() for _ in range(self.r.randrange(2, 5))]
        self.freed = set()
        out, cur = [], []
        for line in lines:
            if (line.startswith("rnd_nbctl ") and "$(" not in line
                    and "&&" not in line):
                cur.append(line[len("rnd_nbctl "):])
                continue
            if cur:
                out.append("rnd_nbctl " + " -- ".join(cur))
                cur = []
            out.append(line)
        if cur:
            out.append("rnd_nbctl " + " -- ".join(cur))
        return " && ".join(out)

    def one(self):
        ops = sorted(set(WEIGHTS) | set(DNS_MIX) | set(DHCP_MIX)
                     | set(LB_MIX) | set(ROUTER_MIX))
        while True:
            weights = [self.weight(op) if self.feasible(op) else 0
                       for op in ops]
            op = self.r.choices(ops, weights)[0]
            line = getattr(self, "op_" + op)()
            if line:
                return line

    # -- switches and ports -------------------------------------------
    def op_ls_add(self):
        name = self.free_name("ls", MAX_SWITCHES + 2, self.switches)
        if name is None:
            return None
        self.n_sw += 1
        self.switches[name] = {"ports": set(), "acls": set(), "lbs": set(),
                               "id": self.n_sw % 200}
        return "rnd_nbctl ls-add %s" % name

    def forget_port(self, p):
        self.freed.add(p)
        del self.ports[p]
        for pg in self.pgs.values():
            pg["ports"].discard(p)

    def forget_acl(self, tag):
        a = self.acls.pop(tag)
        owners = self.switches if a.kind == "ls" else self.pgs
        if a.owner in owners:
            owners[a.owner]["acls"].discard(tag)

    def op_ls_del(self):
        name = self.pick(self.switches)
        self.freed.add(name)
        s = self.switches.pop(name)
        for p in s["ports"]:
            self.forget_port(p)
        for tag in list(s["acls"]):
            del self.acls[tag]
        for lb in self.lbs.values():
            lb["switches"].discard(name)
        for g in self.lbgs.values():
            g["switches"].discard(name)
        return "rnd_nbctl ls-del %s" % name

    def op_ls_ext_ids(self):
        name = self.pick(self.switches)
        if self.chance(0.5):
            return "rnd_nbctl set Logical_Switch %s %s" % (
                name, q('external_ids:"neutron:network_name"=net-%s-%d'
                        % (name, self.r.randrange(3))))
        return ("rnd_nbctl remove Logical_Switch %s external_ids %s"
                % (name, q('"neutron:network_name"')))

    def op_lsp_add(self):
        name = self.free_name("lp", PORT_NAMES, self.ports)
        if name is None:
            return None
        sw = self.pick(self.switches)
        port = {"switch": sw, "addrs": [], "type": "", "parent": None}
        cmd = ["lsp-add", sw, name]
        siblings = [p for p in self.switches[sw]["ports"]
                    if not self.ports[p]["type"]
                    and not self.ports[p]["parent"]]
        if siblings and self.chance(0.08):
            parent = self.pick(siblings)
            tags = {self.ports[p].get("tag") for p in self.ports
                    if self.ports[p]["parent"] == parent}
            # Tag 0 asks northd to allocate one.
            tag = (0 if self.chance(0.3)
                   else self.pick(set(range(1, 50)) - tags))
            cmd += [parent, str(tag)]
            port["parent"], port["tag"] = parent, tag
        self.ports[name] = port
        self.switches[sw]["ports"].add(name)
        addrs = self.new_port_addresses(sw)
        port["addrs"] = addrs
        cmd += ["--"] + self.addr_cmd(name, addrs)
        if (self.chance(0.3) and addrs[0] != "unknown"
                and "dynamic" not in addrs[0]):
            cmd += ["--", "lsp-set-port-security", name, addrs[0]]
        if self.chance(0.1):
            cmd += ["--", "lsp-set-enabled", name, "disabled"]
        if not port["parent"] and self.chance(0.08):
            port["type"] = self.r.choice(["router", "localnet"])
            cmd += ["--", "lsp-set-type", name, port["type"],
                    "--", "lsp-set-options", name,
                    ("router-port=lrp-%s" % name if port["type"] == "router"
                     else "network_name=phys")]
        return "rnd_nbctl " + " ".join(q(c) for c in cmd)

    def op_lsp_del(self):
        name = self.pick(self.ports)
        self.switches[self.ports[name]["switch"]]["ports"].discard(name)
        self.forget_port(name)
        return "rnd_nbctl lsp-del %s" % name

    def op_lsp_move(self):
        """Moves a port to another switch in one transaction: the NB row
        is replaced, the SB binding should follow the port."""
        name = self.pick(p for p in self.ports if not self.ports[p]["parent"])
        if name is None:
            return None
        old = self.ports[name]
        sw = self.pick(set(self.switches) - {old["switch"]})
        self.switches[old["switch"]]["ports"].discard(name)
        for pg in self.pgs.values():
            pg["ports"].discard(name)
        addrs = self.new_port_addresses(sw)
        self.ports[name] = {"switch": sw, "addrs": addrs, "type": "",
                            "parent": None}
        self.switches[sw]["ports"].add(name)
        return ("rnd_nbctl lsp-del %s -- lsp-add %s %s -- %s"
                % (name, sw, name,
                   " ".join(q(a) for a in self.addr_cmd(name, addrs))))

    def op_lsp_set_addr(self):
        name = self.pick(self.ports)
        if self.chance(0.1):
            self.ports[name]["addrs"] = []
            return "rnd_nbctl " + " ".join(q(a) for a in
                                           self.addr_cmd(name, []))
        addrs = self.new_port_addresses(self.ports[name]["switch"])
        self.ports[name]["addrs"] = addrs
        return "rnd_nbctl " + " ".join(q(a) for a in
                                       self.addr_cmd(name, addrs))

    def op_lsp_set_ps(self):
        name = self.pick(self.ports)
        addrs = [a for a in self.ports[name]["addrs"]
                 if a != "unknown" and "dynamic" not in a]
        if addrs and self.chance(0.7):
            ps = addrs[0]
            if self.chance(0.3):
                ps = ps.split()[0]
            return "rnd_nbctl lsp-set-port-security %s %s" % (name, q(ps))
        return "rnd_nbctl lsp-set-port-security %s" % name

    def op_lsp_set_enabled(self):
        name = self.pick(self.ports)
        return "rnd_nbctl lsp-set-enabled %s %s" % (
            name, self.r.choice(["enabled", "disabled"]))

    def op_lsp_set_type(self):
        name = self.pick(self.ports)
        p = self.ports[name]
        if p["parent"]:
            return None
        t = self.r.choice(["", "", "router", "localnet", "localport"])
        p["type"] = t
        if t == "router":
            return ("rnd_nbctl lsp-set-type %s router -- lsp-set-options %s "
                    "router-port=lrp-%s" % (name, name, name))
        if t == "localnet":
            return ("rnd_nbctl lsp-set-type %s localnet -- lsp-set-options "
                    "%s network_name=phys" % (name, name))
        if t == "localport":
            return "rnd_nbctl lsp-set-type %s localport" % name
        return ("rnd_nbctl lsp-set-type %s '' -- lsp-set-options %s"
                % (name, name))

    # -- routers -------------------------------------------------------
    def unwired(self):
        """Switch ports of type router whose router port does not exist."""
        return [p for p in self.ports
                if self.ports[p]["type"] == "router"
                and "lrp-" + p not in self.lrps]

    def op_lsp_add_rp(self):
        sw = self.pick(self.switches)
        name = self.free_name("p", PORT_NAMES, self.ports)
        if name is None or name in self.freed:
            return None
        self.ports[name] = {"switch": sw, "addrs": [], "type": "router",
                            "parent": None}
        self.switches[sw]["ports"].add(name)
        return ("rnd_nbctl lsp-add %s %s -- lsp-set-type %s router "
                "-- lsp-set-addresses %s router -- lsp-set-options %s "
                "router-port=lrp-%s" % (sw, name, name, name, name, name))

    def op_lr_add(self):
        name = self.free_name("lr", ROUTER_NAMES, self.routers)
        if name is None or name in self.freed:
            return None
        self.routers[name] = {"lrps": set(), "routes": set()}
        return "rnd_nbctl lr-add %s" % name

    def op_lr_del(self):
        name = self.pick(self.routers)
        for lrp in self.routers[name]["lrps"]:
            del self.lrps[lrp]
        del self.routers[name]
        self.freed.add(name)
        return "rnd_nbctl lr-del %s" % name

    def op_lrp_add(self):
        port = self.pick(self.unwired())
        lr = self.pick(self.routers)
        sw = self.ports[port]["switch"]
        i = self.switches[sw]["id"]
        self.n_lrp += 1
        mac = "0a:ff:00:00:%02x:%02x" % (self.n_lrp // 256, self.n_lrp % 256)
        name = "lrp-" + port
        if name in self.freed:
            return None
        nets = ["10.%d.0.254/16" % i]
        if self.chance(0.3):
            nets.append("fd00::ff:%x/64" % i)
        self.lrps[name] = {"router": lr, "nexthop": "10.%d.0.%d"
                           % (i, self.r.randrange(1, 250))}
        self.routers[lr]["lrps"].add(name)
        cmd = "rnd_nbctl lrp-add %s %s %s %s" % (lr, name, mac,
                                                 " ".join(nets))
        # A distributed gateway port, now and then (docs/routers.md).
        if self.chance(0.2):
            for k in range(self.r.randrange(1, 3)):
                cmd += (" -- lrp-set-gateway-chassis %s hv%d %d"
                        % (name, k + 1, 10 + k))
        return cmd

    def op_lrp_del(self):
        name = self.pick(self.lrps)
        self.routers[self.lrps[name]["router"]]["lrps"].discard(name)
        del self.lrps[name]
        self.freed.add(name)
        return "rnd_nbctl lrp-del %s" % name

    def op_lr_route_add(self):
        lr = self.pick(r for r in self.routers if self.routers[r]["lrps"])
        lrp = self.pick(self.routers[lr]["lrps"])
        prefix = "192.168.%d.0/24" % self.r.randrange(8)
        if self.chance(0.1):
            prefix = "0.0.0.0/0"
        if self.chance(0.1):
            nexthop = "discard"
        else:
            nexthop = self.lrps[lrp]["nexthop"]
        routes = self.routers[lr]["routes"]
        if (prefix, nexthop) in routes:
            return None
        opts = []
        if any(p == prefix for p, _ in routes):
            if nexthop == "discard" or any(n == "discard" for p, n in routes
                                           if p == prefix):
                return None
            opts.append("--ecmp")
        if self.chance(0.2) and nexthop != "discard":
            opts.append("--policy=src-ip")
            if any(p == prefix for p, _ in routes):
                return None
        routes.add((prefix, nexthop))
        return "rnd_nbctl %s lr-route-add %s %s %s" % (
            " ".join(opts), lr, prefix, nexthop)

    def op_lr_route_del(self):
        lr = self.pick(r for r in self.routers if self.routers[r]["routes"])
        self.routers[lr]["routes"] = set()
        return "rnd_nbctl lr-route-del %s" % lr

    def op_lr_policy_add(self):
        lr = self.pick(r for r in self.routers if self.routers[r]["lrps"])
        pols = self.routers[lr].setdefault("policies", set())
        prio = self.r.randrange(1, 40) * 10
        if prio in pols:
            return None
        pols.add(prio)
        match = "ip4.src == %s" % self.rand_cidr4()
        kind = self.r.choice(["drop", "allow", "reroute", "reroute"])
        if kind == "reroute":
            hops = sorted({self.lrps[self.pick(self.routers[lr]["lrps"])]
                           ["nexthop"] for _ in range(self.r.randrange(1, 3))})
            kind = "reroute " + ",".join(hops)
        return "rnd_nbctl lr-policy-add %s %d %s %s" % (lr, prio, q(match),
                                                        kind)

    def op_lr_policy_del(self):
        lr = self.pick(r for r in self.routers
                       if self.routers[r].get("policies"))
        prio = self.pick(self.routers[lr]["policies"])
        self.routers[lr]["policies"].discard(prio)
        return "rnd_nbctl lr-policy-del %s %d" % (lr, prio)

    # -- port groups and address sets ---------------------------------
    def op_pg_add(self):
        name = self.free_name("pg", PG_NAMES, self.pgs)
        if name is None:
            return None
        members = set(self.r.sample(sorted(self.ports),
                                    min(len(self.ports),
                                        self.r.randrange(4))))
        self.pgs[name] = {"ports": members, "acls": set()}
        return "rnd_nbctl pg-add %s %s" % (name, " ".join(sorted(members)))

    def op_pg_del(self):
        name = self.pick(self.pgs)
        self.freed.add(name)
        for tag in list(self.pgs[name]["acls"]):
            del self.acls[tag]
        del self.pgs[name]
        return "rnd_nbctl pg-del %s" % name

    def op_pg_set_ports(self):
        name = self.pick(self.pgs)
        members = set(self.r.sample(sorted(self.ports),
                                    min(len(self.ports),
                                        self.r.randrange(5))))
        self.pgs[name]["ports"] = members
        if not members:
            # pg-set-ports wants at least one port.
            return "rnd_nbctl clear Port_Group %s ports" % name
        return "rnd_nbctl pg-set-ports %s %s" % (name,
                                                 " ".join(sorted(members)))

    def op_pg_add_port(self):
        name = self.pick(n for n, pg in self.pgs.items()
                         if set(self.ports) - pg["ports"])
        port = self.pick(set(self.ports) - self.pgs[name]["ports"])
        self.pgs[name]["ports"].add(port)
        return "rnd_nbctl add Port_Group %s ports $(rnd_lsp %s)" % (name,
                                                                     port)

    def op_pg_del_port(self):
        name = self.pick(n for n, pg in self.pgs.items() if pg["ports"])
        port = self.pick(self.pgs[name]["ports"])
        self.pgs[name]["ports"].discard(port)
        return ("rnd_nbctl remove Port_Group %s ports $(rnd_lsp %s)"
                % (name, port))

    def op_as_add(self):
        name = self.free_name("as", AS_NAMES, self.ases)
        if name is None:
            return None
        v6 = self.chance(0.25)
        addrs = {self.as_addr(v6) for _ in range(self.r.randrange(4))}
        self.ases[name] = {"v6": v6, "addrs": addrs}
        return ("rnd_nbctl create Address_Set name=%s addresses=%s"
                % (name, q("[%s]" % ",".join(ovsdb_str(a)
                                              for a in sorted(addrs)))))

    def op_as_del(self):
        name = self.pick(self.ases)
        self.freed.add(name)
        del self.ases[name]
        return "rnd_nbctl destroy Address_Set %s" % name

    def op_as_add_addr(self):
        name = self.pick(self.ases)
        a = self.as_addr(self.ases[name]["v6"])
        self.ases[name]["addrs"].add(a)
        return "rnd_nbctl add Address_Set %s addresses %s" % (
            name, q(ovsdb_str(a)))

    def op_as_del_addr(self):
        name = self.pick(n for n, a in self.ases.items() if a["addrs"])
        a = self.pick(self.ases[name]["addrs"])
        self.ases[name]["addrs"].discard(a)
        return "rnd_nbctl remove Address_Set %s addresses %s" % (
            name, q(ovsdb_str(a)))

    def op_as_set(self):
        name = self.pick(self.ases)
        v6 = self.ases[name]["v6"]
        addrs = {self.as_addr(v6) for _ in range(self.r.randrange(5))}
        self.ases[name]["addrs"] = addrs
        return "rnd_nbctl set Address_Set %s addresses=%s" % (
            name, q("[%s]" % ",".join(ovsdb_str(a) for a in sorted(addrs))))

    # -- ACLs -----------------------------------------------------------
    def new_acl(self, allow_pass):
        kind, owner = self.r.choice(self.acl_owners())
        direction = self.r.choice(["from-lport", "to-lport"])
        verbs = VERBS if allow_pass else VERBS[:-1]
        action = self.r.choice(verbs)
        match = self.gen_match(direction, kind, owner)
        prio = self.r.choice(PRIORITIES + [self.r.randrange(32768)])
        self.n_tag += 1
        tag = "a%d" % self.n_tag
        return Acl(tag, kind, owner, direction, prio, match, action)

    def same_acl_exists(self, a):
        owners = self.switches if a.kind == "ls" else self.pgs
        return any(self.acls[t].direction == a.direction
                   and self.acls[t].prio == a.prio
                   and self.acls[t].match == a.match
                   for t in owners[a.owner]["acls"])

    def record_acl(self, a):
        self.acls[a.tag] = a
        owners = self.switches if a.kind == "ls" else self.pgs
        owners[a.owner]["acls"].add(a.tag)

    def acl_extras(self, a):
        """Random log, label and option settings for ACL 'a', as a dict of
        column values."""
        cols = {}
        if self.chance(0.2):
            cols["log"] = True
            if self.chance(0.6):
                cols["name"] = "acl-%s" % a.tag
            if self.chance(0.6):
                cols["severity"] = self.r.choice(SEVERITIES)
            if self.meters and self.chance(0.5):
                cols["meter"] = self.pick(self.meters)
        if a.action in ("allow", "allow-related") and self.chance(0.2):
            cols["label"] = self.r.randrange(1, 1000)
        opts = {}
        if self.chance(0.15):
            opts["apply-after-lb"] = "true"
        if cols.get("log") and self.chance(0.3):
            opts["log-related"] = "true"
        if opts:
            cols["options"] = opts
        return cols

    def op_acl_add(self):
        a = self.new_acl(False)
        extras = self.acl_extras(a)
        if self.chance(0.7):
            # The acl-add command, then tag the ACL it created.
            if self.same_acl_exists(a):
                return None
            opts = []
            if a.kind == "pg" or self.chance(0.2):
                opts.append("--type=%s" % ("port-group" if a.kind == "pg"
                                           else "switch"))
            if extras.get("log"):
                opts.append("--log")
                if "name" in extras:
                    opts.append("--name=%s" % extras["name"])
                if "severity" in extras:
                    opts.append("--severity=%s" % extras["severity"])
                if "meter" in extras:
                    opts.append("--meter=%s" % extras["meter"])
            if "label" in extras:
                opts.append("--label=%d" % extras["label"])
            options = extras.get("options", {})
            if options.get("apply-after-lb"):
                opts.append("--apply-after-lb")
            cmd = ("rnd_nbctl %sacl-add %s %s %d %s %s"
                   % ("".join(o + " " for o in opts), a.owner, a.direction,
                      a.prio, q(a.match), a.action))
            self.record_acl(a)
            line = "%s && rnd_acl_tag %s" % (cmd, a.tag)
            if "log-related" in options:
                line += (" && rnd_nbctl set ACL $(rnd_acl %s) "
                         "options:log-related=true" % a.tag)
            return line
        # "create ACL" and insert it into the owner, in one transaction
        # (this also allows an ACL identical to an existing one).
        cols = ["direction=%s" % a.direction, "priority=%d" % a.prio,
                "match=%s" % ovsdb_str(a.match), "action=%s" % a.action,
                "external_ids:oracle=%s" % a.tag]
        for k, v in sorted(extras.items()):
            if k == "options":
                cols += ["options:%s=%s" % (ok, ov)
                         for ok, ov in sorted(v.items())]
            elif k == "log":
                cols.append("log=true")
            elif k == "label":
                cols.append("label=%d" % v)
            else:
                cols.append("%s=%s" % (k, ovsdb_str(v)))
        table = "Logical_Switch" if a.kind == "ls" else "Port_Group"
        self.record_acl(a)
        return ("rnd_nbctl --id=@%s create ACL %s -- add %s %s acls @%s"
                % (a.tag, " ".join(q(c) for c in cols), table, a.owner,
                   a.tag))

    def op_acl_add_tx(self):
        """An ACL that stock ovn-nbctl 23.03 cannot write: a tier, or the
        pass verb, through a raw transaction."""
        a = self.new_acl(True)
        row = {"direction": a.direction, "priority": a.prio,
               "match": a.match, "action": a.action,
               "external_ids": jmap({"oracle": a.tag})}
        if self.chance(0.7) or a.action == "pass":
            row["tier"] = self.r.randrange(4)
        for k, v in self.acl_extras(a).items():
            row[k] = jmap(v) if k == "options" else v
        table = "Logical_Switch" if a.kind == "ls" else "Port_Group"
        ops = [{"op": "insert", "table": "ACL", "uuid-name": "acl",
                "row": row},
               {"op": "mutate", "table": table,
                "where": [["name", "==", a.owner]],
                "mutations": [["acls", "insert",
                               ["set", [["named-uuid", "acl"]]]]]}]
        self.record_acl(a)
        return "rnd_tx %s" % q(", ".join(json.dumps(op, sort_keys=True)
                                         for op in ops))

    def op_acl_del(self):
        tag = self.pick(self.acls)
        a = self.acls[tag]
        table = "Logical_Switch" if a.kind == "ls" else "Port_Group"
        c = self.r.randrange(10)
        if c < 4:
            # acl-del by direction, priority and match: every such ACL of
            # the owner goes.
            owners = self.switches if a.kind == "ls" else self.pgs
            for t in list(owners[a.owner]["acls"]):
                b = self.acls[t]
                if (b.direction, b.prio, b.match) == (a.direction, a.prio,
                                                      a.match):
                    self.forget_acl(t)
            typ = "--type=port-group " if a.kind == "pg" else ""
            return "rnd_nbctl %sacl-del %s %s %d %s" % (
                typ, a.owner, a.direction, a.prio, q(a.match))
        if c == 4:
            # Every ACL of the owner in one direction.
            owners = self.switches if a.kind == "ls" else self.pgs
            for t in list(owners[a.owner]["acls"]):
                if self.acls[t].direction == a.direction:
                    self.forget_acl(t)
            return "rnd_nbctl acl-del %s %s" % (a.owner, a.direction)
        self.forget_acl(tag)
        return "rnd_nbctl remove %s %s acls $(rnd_acl %s)" % (table, a.owner,
                                                             tag)

    def op_acl_set_match(self):
        tag = self.pick(self.acls)
        a = self.acls[tag]
        a.match = self.gen_match(a.direction, a.kind, a.owner)
        return "rnd_nbctl set ACL $(rnd_acl %s) %s" % (
            tag, q("match=" + ovsdb_str(a.match)))

    def op_acl_set_prio(self):
        tag = self.pick(self.acls)
        a = self.acls[tag]
        a.prio = self.r.choice(PRIORITIES + [self.r.randrange(32768)])
        return "rnd_nbctl set ACL $(rnd_acl %s) priority=%d" % (tag, a.prio)

    def op_acl_set_action(self):
        tag = self.pick(self.acls)
        a = self.acls[tag]
        a.action = self.r.choice(VERBS)
        if a.action == "pass":
            return "rnd_tx %s" % q(json.dumps(
                {"op": "update", "table": "ACL",
                 "where": [["external_ids", "includes",
                            jmap({"oracle": tag})]],
                 "row": {"action": "pass"}}, sort_keys=True))
        return "rnd_nbctl set ACL $(rnd_acl %s) action=%s" % (tag, a.action)

    def op_acl_set_misc(self):
        tag = self.pick(self.acls)
        acl = "$(rnd_acl %s)" % tag
        c = self.r.randrange(7)
        if c == 0:
            return ("rnd_nbctl set ACL %s log=true name=%s severity=%s"
                    % (acl, "log-" + tag, self.r.choice(SEVERITIES)))
        if c == 1:
            return "rnd_nbctl set ACL %s log=false" % acl
        if c == 2:
            return "rnd_nbctl set ACL %s label=%d" % (
                acl, self.r.choice([0, 0, self.r.randrange(1, 1000)]))
        if c == 3:
            return ("rnd_nbctl set ACL %s options:apply-after-lb=true"
                    % acl)
        if c == 4:
            return ("rnd_nbctl remove ACL %s options apply-after-lb" % acl)
        if c == 5:
            return "rnd_tx %s" % q(json.dumps(
                {"op": "update", "table": "ACL",
                 "where": [["external_ids", "includes",
                            jmap({"oracle": tag})]],
                 "row": {"tier": self.r.randrange(4)}}, sort_keys=True))
        if self.meters and self.chance(0.5):
            return "rnd_nbctl set ACL %s meter=%s" % (acl,
                                                      self.pick(self.meters))
        return "rnd_nbctl clear ACL %s meter" % acl

    # -- load balancers, meters, options ------------------------------
    def backends(self, v6, port):
        ips = []
        for p in sorted(self.ports):
            for a in self.ports[p]["addrs"]:
                words = a.split()
                ips += [w for w in words[1:] if (":" in w) == v6]
        if not ips or self.chance(0.2):
            ips = ["fd00::%x" % self.r.randrange(1, 99) if v6
                   else self.rand_ip4()]
        chosen = sorted(set(self.r.sample(ips, min(len(ips),
                                                   self.r.randrange(1, 4)))))
        if port:
            fmt = "[%s]:%d" if v6 else "%s:%d"
            return ",".join(fmt % (ip, port) for ip in chosen)
        return ",".join(chosen)

    def vip(self, lb):
        v6 = lb["v6"]
        ip = ("fd99::%x" % self.r.randrange(1, 99) if v6
              else "10.99.%d.%d" % (self.r.randrange(2),
                                    self.r.randrange(1, 99)))
        if lb["proto"]:
            port = self.r.choice([80, 443, 53, 8080])
            vip = ("[%s]:%d" if v6 else "%s:%d") % (ip, port)
            return vip, self.backends(v6, self.r.choice([8080, 80, 53]))
        return ip, self.backends(v6, None)

    def op_lb_add(self):
        name = self.free_name("lb", 8 if MIXES[self.mix] == "lb"
                              else LB_NAMES, self.lbs)
        if name is None:
            return None
        lb = {"proto": self.r.choice(["tcp", "tcp", "udp", None]),
              "v6": self.chance(0.2), "vips": {}, "switches": set()}
        vip, backends = self.vip(lb)
        lb["vips"][vip] = backends
        self.lbs[name] = lb
        return "rnd_nbctl lb-add %s %s %s %s" % (
            name, q(vip), q(backends), lb["proto"] or "")

    def op_lb_add_vip(self):
        name = self.pick(self.lbs)
        lb = self.lbs[name]
        if len(lb["vips"]) > 1 and self.chance(0.4):
            vip = self.pick(lb["vips"])
            del lb["vips"][vip]
            return "rnd_nbctl lb-del %s %s" % (name, q(vip))
        vip, backends = self.vip(lb)
        lb["vips"][vip] = backends
        return "rnd_nbctl --may-exist lb-add %s %s %s %s" % (
            name, q(vip), q(backends), lb["proto"] or "")

    # In one ovn-nbctl transaction, ls-lb-add and ls-lb-del do not see each
    # other's effect on the same switch and load balancer: a batch touches
    # each pair once.
    def op_lb_attach(self):
        name = self.pick(n for n, lb in self.lbs.items()
                         if set(self.switches) - lb["switches"])
        sw = self.pick(set(self.switches) - self.lbs[name]["switches"])
        if ("lb", name, sw) in self.freed:
            return None
        self.freed.add(("lb", name, sw))
        self.lbs[name]["switches"].add(sw)
        return "rnd_nbctl ls-lb-add %s %s" % (sw, name)

    def op_lb_detach(self):
        name = self.pick(n for n, lb in self.lbs.items() if lb["switches"])
        sw = self.pick(self.lbs[name]["switches"])
        if ("lb", name, sw) in self.freed:
            return None
        self.freed.add(("lb", name, sw))
        self.lbs[name]["switches"].discard(sw)
        return "rnd_nbctl ls-lb-del %s %s" % (sw, name)

    def lb_grouped(self, name):
        return any(name in g["lbs"] for g in self.lbgs.values())

    def op_lb_del(self):
        # A group's members are strong references: not deleted.
        name = self.pick(n for n in self.lbs if not self.lb_grouped(n))
        self.freed.add(name)
        del self.lbs[name]
        return "rnd_nbctl lb-del %s" % name

    def op_lb_set_backends(self):
        """New backends for one VIP (an endpoint change), sometimes bad."""
        name = self.pick(self.lbs)
        lb = self.lbs[name]
        vip = self.pick(lb["vips"])
        if self.chance(0.05):
            backends = "10.0.0.300:80" if lb["proto"] else "10.0.0.300"
        else:
            _, backends = self.vip(lb)
            if lb["proto"]:
                port = self.r.choice([8080, 80, 53])
                backends = self.backends(lb["v6"], port)
        lb["vips"][vip] = backends
        return "rnd_nbctl set Load_Balancer %s vips:%s=%s" % (
            name, q(ovsdb_str(vip)), q(ovsdb_str(backends)))

    def op_lbg_add(self):
        name = self.free_name("lbg", LBG_NAMES, self.lbgs)
        if name is None:
            return None
        self.lbgs[name] = {"lbs": set(), "switches": set()}
        return "rnd_nbctl create Load_Balancer_Group name=%s" % name

    def op_lbg_del(self):
        name = self.pick(n for n, g in self.lbgs.items() if not g["switches"])
        self.freed.add(name)
        del self.lbgs[name]
        return ("rnd_nbctl destroy Load_Balancer_Group "
                "$(rnd_uuid Load_Balancer_Group %s)" % name)

    def op_lbg_lb(self):
        name = self.pick(self.lbgs)
        g = self.lbgs[name]
        lb = self.pick(self.lbs)
        if ("lbg", name, lb) in self.freed:
            return None
        self.freed.add(("lbg", name, lb))
        if lb in g["lbs"]:
            g["lbs"].discard(lb)
            verb = "remove"
        else:
            g["lbs"].add(lb)
            verb = "add"
        return ("rnd_nbctl %s Load_Balancer_Group "
                "$(rnd_uuid Load_Balancer_Group %s) load_balancer "
                "$(rnd_uuid Load_Balancer %s)" % (verb, name, lb))

    def op_lbg_attach(self):
        name = self.pick(n for n, g in self.lbgs.items()
                         if set(self.switches) - g["switches"])
        sw = self.pick(set(self.switches) - self.lbgs[name]["switches"])
        if ("lbg", name, sw) in self.freed:
            return None
        self.freed.add(("lbg", name, sw))
        self.lbgs[name]["switches"].add(sw)
        return ("rnd_nbctl add Logical_Switch %s load_balancer_group "
                "$(rnd_uuid Load_Balancer_Group %s)" % (sw, name))

    def op_lbg_detach(self):
        name = self.pick(n for n, g in self.lbgs.items() if g["switches"])
        sw = self.pick(self.lbgs[name]["switches"])
        if ("lbg", name, sw) in self.freed:
            return None
        self.freed.add(("lbg", name, sw))
        self.lbgs[name]["switches"].discard(sw)
        return ("rnd_nbctl remove Logical_Switch %s load_balancer_group "
                "$(rnd_uuid Load_Balancer_Group %s)" % (sw, name))

    def op_meter(self):
        name = self.free_name("m", METER_NAMES, self.meters)
        if name and (not self.meters or self.chance(0.6)):
            self.meters.add(name)
            fair = "--fair " if self.chance(0.3) else ""
            return "rnd_nbctl %smeter-add %s drop %d pktps" % (
                fair, name, self.r.choice([10, 100, 1000]))
        name = self.pick(self.meters)
        if name is None:
            return None
        self.freed.add(name)
        self.meters.discard(name)
        return "rnd_nbctl meter-del %s" % name

    def op_nb_option(self):
        key, values = self.r.choice([
            ("default_acl_drop", ["true", "false", None]),
            ("acl_invalid_policy", ["fail-closed", None]),
            ("use_ct_inv_match", ["false", None]),
        ])
        v = self.r.choice(values)
        if v is None:
            self.options.pop(key, None)
            return "rnd_nbctl remove NB_Global . options %s" % key
        self.options[key] = v
        return "rnd_nbctl set NB_Global . options:%s=%s" % (key, v)


    # -- IPAM ---------------------------------------------------------
    def op_ls_ipam(self):
        """Changes a switch's IPAM settings.  Subnets are small enough to
        run out, and overlap the static addresses of the switch's ports."""
        name = self.pick(self.switches)
        i = self.switches[name]["id"]
        c = self.r.randrange(12)
        cmd = "rnd_nbctl set Logical_Switch %s " % name
        rm = "rnd_nbctl remove Logical_Switch %s other_config " % name
        if c <= 4:
            return cmd + "other_config:subnet=10.%d.0.0/%d" % (
                i, self.r.choice([24, 24, 26, 28, 29]))
        if c == 5:
            return rm + "subnet"
        if c == 6:
            return cmd + q('other_config:exclude_ips="10.%d.0.2..10.%d.0.4 '
                           '10.%d.0.9"' % (i, i, i))
        if c == 7:
            return rm + "exclude_ips"
        if c in (8, 9):
            return cmd + "other_config:ipv6_prefix=fd00:%x::" % i
        if c == 10:
            return rm + "ipv6_prefix"
        return cmd + "other_config:mac_only=%s" % self.r.choice(
            ["true", "false"])

    def op_lsp_set_dyn(self):
        """A CMS writes a port's dynamic_addresses: northd keeps what is
        valid and replaces the rest."""
        name = self.pick(p for p in self.ports if self.is_dynamic(p))
        i = self.switches[self.ports[name]["switch"]]["id"]
        k = self.r.randrange(2, 60)
        v = self.r.choice([
            "0a:00:00:%02x:00:%02x 10.%d.0.%d" % (i, k, i, k),
            "0a:00:00:%02x:00:%02x" % (i, k),
            "0b:00:00:00:00:%02x 10.%d.0.%d" % (k, i, k),
            "garbage", None])
        if v is None:
            return ("rnd_nbctl clear Logical_Switch_Port %s "
                    "dynamic_addresses" % name)
        return "rnd_nbctl set Logical_Switch_Port %s %s" % (
            name, q("dynamic_addresses=" + ovsdb_str(v)))

    # -- DNS ----------------------------------------------------------
    def dns_records(self):
        """A few records: names, addresses (some in capitals, which the SB
        gets in lowercase), reverse names."""
        recs = {}
        for _ in range(self.r.randrange(1, 4)):
            k = self.r.randrange(10)
            kind = self.r.randrange(4)
            if kind == 0:
                recs["vm%d" % k] = "10.0.%d.%d" % (k, self.r.randrange(250))
            elif kind == 1:
                recs["vm%d.example.org" % k] = ("10.0.%d.%d FD00::%X"
                                                % (k, k, k + 10))
            elif kind == 2:
                recs["vm%d" % k] = "10.0.%d.1,10.0.%d.2" % (k, k)
            else:
                recs["%d.0.0.10.in-addr.arpa" % k] = "VM%d.example.org" % k
        return recs

    def records_arg(self, recs):
        return q("records=" + "{" + ", ".join(
            "%s=%s" % (ovsdb_str(k), ovsdb_str(v))
            for k, v in sorted(recs.items())) + "}")

    def op_dns_add(self):
        tag = self.free_name("d", DNS_NAMES, self.dnses)
        if tag is None:
            return None
        recs = self.dns_records() if self.chance(0.8) else {}
        self.dnses[tag] = recs
        return "rnd_nbctl create DNS external_ids:oracle=%s %s" % (
            tag, self.records_arg(recs))

    def listing(self, tag):
        return sorted(n for n, s in self.switches.items()
                      if tag in s.get("dns", ()))

    def op_dns_del(self):
        tag = self.pick(self.dnses)
        self.freed.add(tag)
        del self.dnses[tag]
        cmds = []
        for n in self.listing(tag):
            self.switches[n]["dns"].discard(tag)
            cmds.append("remove Logical_Switch %s dns_records $u" % n)
        cmds.append("destroy DNS $u")
        return "u=$(rnd_dns %s) && rnd_nbctl %s" % (tag, " -- ".join(cmds))

    def op_dns_set(self):
        tag = self.pick(self.dnses)
        recs = self.dnses[tag]
        if recs and self.chance(0.4):
            k = self.pick(recs)
            del recs[k]
            return "rnd_nbctl remove DNS $(rnd_dns %s) records %s" % (
                tag, q(ovsdb_str(k)))
        new = self.dns_records()
        if self.chance(0.5):
            recs.update(new)
            return "rnd_nbctl set DNS $(rnd_dns %s) %s" % (tag, " ".join(
                q("records:%s=%s" % (ovsdb_str(k), ovsdb_str(v)))
                for k, v in sorted(new.items())))
        self.dnses[tag] = new
        return "rnd_nbctl set DNS $(rnd_dns %s) %s" % (
            tag, self.records_arg(new))

    def op_dns_clear(self):
        tag = self.pick(self.dnses)
        self.dnses[tag] = {}
        return "rnd_nbctl clear DNS $(rnd_dns %s) records" % tag

    def op_dns_attach(self):
        tag = self.pick(self.dnses)
        name = self.pick(n for n in self.switches
                         if tag not in self.switches[n].get("dns", ()))
        if name is None:
            return None
        self.switches[name].setdefault("dns", set()).add(tag)
        return "rnd_nbctl add Logical_Switch %s dns_records $(rnd_dns %s)" % (
            name, tag)

    def op_dns_detach(self):
        name = self.pick(n for n, s in self.switches.items() if s.get("dns"))
        tag = self.pick(self.switches[name]["dns"])
        self.switches[name]["dns"].discard(tag)
        return ("rnd_nbctl remove Logical_Switch %s dns_records $(rnd_dns %s)"
                % (name, tag))

    def op_mac_prefix(self):
        if self.chance(0.3):
            return "rnd_nbctl remove NB_Global . options mac_prefix"
        return ("rnd_nbctl set NB_Global . options:mac_prefix=0a:%02x:00"
                % self.r.randrange(4))

    # -- DHCP ---------------------------------------------------------
    def dhcp_value(self, v6):
        """A random option of a DHCPv4 or DHCPv6 row, as (key, value):
        mostly good ones, sometimes one ovn-controller would reject."""
        if v6:
            return self.r.choice([
                ("server_id", "00:00:00:10:00:%02x" % self.r.randrange(4)),
                ("dns_server", "{fd00::1, fd00::2}"),
                ("domain_search", '"example.org"'),
                ("dhcpv6_stateless", self.r.choice(["true", "false"])),
                ("bar", "1"),
                ("dns_server", '"x"'),
            ])
        return self.r.choice([
            ("server_id", "10.%d.0.1" % self.r.randrange(1, 4)),
            ("server_mac", "c0:ff:ee:00:00:%02x" % self.r.randrange(4)),
            ("lease_time", str(self.r.choice([60, 3600]))),
            ("router", "10.1.0.254"),
            ("dns_server", "{8.8.8.8,1.1.1.1}"),
            ("mtu", str(self.r.choice([1400, 1442]))),
            ("domain_name", '"example.org"'),
            ("netmask", "255.255.0.0"),
            ("foo", "1"),
            ("mtu", '"big"'),
            ("server_mac", "zz"),
        ])

    def dhcp_cidr(self, v6):
        if v6:
            return self.r.choice(["fd00::/64", "fd00::/64", "fd01::/64"])
        return self.r.choice(["10.1.0.0/16", "10.2.0.0/16", "10.0.0.0/8",
                              "10.1.0.0/24", "10.1.0.0/33"])

    def op_dhcp_add(self):
        self.n_dhcp += 1
        tag = "d%d" % self.n_dhcp
        v6 = self.chance(0.3)
        self.dhcps[tag] = {"v6": v6}
        opts = {}
        if v6:
            opts["server_id"] = "00:00:00:10:00:01"
        elif self.chance(0.9):
            opts.update({"server_id": "10.1.0.1",
                         "server_mac": "c0:ff:ee:00:00:01",
                         "lease_time": "3600"})
        for _ in range(self.r.randrange(0, 3)):
            k, v = self.dhcp_value(v6)
            opts[k] = v
        cmd = ["create", "DHCP_Options", "external_ids:oracle=" + tag,
               "cidr=" + ovsdb_str(self.dhcp_cidr(v6))]
        cmd += ["options:%s=%s" % (k, ovsdb_str(v))
                for k, v in sorted(opts.items())]
        return "rnd_nbctl " + " ".join(q(c) for c in cmd) + " >/dev/null"

    def op_dhcp_set(self):
        tag = self.pick(self.dhcps)
        v6 = self.dhcps[tag]["v6"]
        ref = "$(rnd_dhcp %s)" % tag
        if self.chance(0.2):
            return "rnd_nbctl set DHCP_Options %s %s" % (
                ref, q("cidr=" + ovsdb_str(self.dhcp_cidr(v6))))
        k, v = self.dhcp_value(v6)
        if self.chance(0.25):
            return "rnd_nbctl remove DHCP_Options %s options %s" % (ref, k)
        return "rnd_nbctl set DHCP_Options %s %s" % (
            ref, q("options:%s=%s" % (k, ovsdb_str(v))))

    def op_dhcp_del(self):
        tag = self.pick(self.dhcps)
        del self.dhcps[tag]
        return "rnd_nbctl destroy DHCP_Options $(rnd_dhcp %s)" % tag

    def op_lsp_set_dhcp(self):
        name = self.pick(self.ports)
        tag = self.pick(self.dhcps)
        col = ("dhcpv6_options" if self.dhcps[tag]["v6"] != self.chance(0.1)
               else "dhcpv4_options")
        if self.chance(0.2):
            return "rnd_nbctl clear Logical_Switch_Port %s %s" % (name, col)
        return "rnd_nbctl set Logical_Switch_Port %s %s=$(rnd_dhcp %s)" % (
            name, col, tag)

    def op_lsp_hostname(self):
        name = self.pick(self.ports)
        if self.chance(0.3):
            return ("rnd_nbctl remove Logical_Switch_Port %s options "
                    "hostname" % name)
        v = self.r.choice(['"vm-%s"' % name, '"vm-%s"' % name, name])
        return "rnd_nbctl set Logical_Switch_Port %s %s" % (
            name, q("options:hostname=" + ovsdb_str(v)))


def main():
    ap = argparse.ArgumentParser(
        description="Seeded random NB change sequences (see the source).")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--mix", choices=MIXES, default="cms")
    out = ap.add_mutually_exclusive_group()
    out.add_argument("--preamble", action="store_true",
                     help="print the shell helpers the steps use")
    out.add_argument("--script", action="store_true",
                     help="print a standalone script: helpers, then each "
                     "step followed by a sync")
    args = ap.parse_args()

    if args.preamble:
        sys.stdout.write(PREAMBLE)
        return
    g = Gen(args.seed, args.mix)
    steps = [g.step() for _ in range(args.steps)]
    if args.script:
        sys.stdout.write("#! /bin/sh\n# nb-random.py --seed %d --steps %d "
                         "--mix %s\n" % (args.seed, args.steps, args.mix))
        sys.stdout.write(PREAMBLE)
        for i, s in enumerate(steps, 1):
            sys.stdout.write("\necho 'step %d'\n%s\nrnd_sync\n" % (i, s))
        return
    sys.stdout.write("".join(s + "\n" for s in steps))


if __name__ == "__main__":
    main()
