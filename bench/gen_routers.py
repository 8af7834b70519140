"""gen_routers.py: the routers of bench/gen.py's workloads (--routers).

neutron  A router per project ("neutron-<router id>", Neutron's options
         and external_ids), an interface on each of the project's networks
         (router-type switch ports with router-port, "lrp-<port id>"
         router ports with the subnet's first address), a gateway port on
         one shared provider network (a switch with a localnet port) with
         three Gateway_Chassis, a default route to the provider's gateway,
         SNAT of every attached subnet to the gateway address, and a
         floating IP (distributed dnat_and_snat with logical_port and
         external_mac) for a fifth of the ports.  Change kinds fip_add and
         fip_del: a floating IP for a port that has none, and its removal.

k8s      ovn-kubernetes' shared-gateway topology: ovn_cluster_router with
         a "rtos-<node>" port on every node switch (the subnet's first
         address), the "join" switch (100.64.0.0/16), a gateway router
         "GR_<node>" per node (options:chassis, lb_force_snat_ip, ...)
         with ports to the join switch and to its external switch
         "ext_<node>" (a localnet port, 172.18.0.0/16), source-IP routes
         on the cluster router from each node's subnet to its gateway
         router, the gateway routers' routes back to the cluster and to
         the default gateway, SNAT of the cluster network on each gateway
         router, the cluster router's allow policies, and (with
         --services) the cluster-wide load balancer group on every gateway
         router.  Change kinds route_add and route_del: a static route on
         the cluster router, and its removal.

Stock ovn-northd 23.03 compiles all of it; a northd that does not is
measured on the same NB all the same (its flow counts say so).
"""

import ipaddress

# Change kinds --routers adds, per profile.
NEUTRON_KINDS = ["fip_add", "fip_del"]
K8S_KINDS = ["route_add", "route_del"]

PROVIDER_NET = int(ipaddress.IPv4Address("172.24.0.0"))   # /16
K8S_JOIN_NET = int(ipaddress.IPv4Address("100.64.0.0"))   # /16
K8S_EXT_NET = int(ipaddress.IPv4Address("172.18.0.0"))    # /16
K8S_CLUSTER_CIDR = "10.128.0.0/14"


def router_kinds(profile):
    return K8S_KINDS if profile == "k8s" else NEUTRON_KINDS


def _ip(n):
    return str(ipaddress.IPv4Address(n))


def _mac(prefix, n):
    return "%s:%02x:%02x:%02x" % (prefix, n >> 16 & 255, n >> 8 & 255,
                                  n & 255)


def _ovnk_mac(n):
    b = ipaddress.IPv4Address(n).packed
    return "0a:58:%02x:%02x:%02x:%02x" % tuple(b)


def _fip_ip(i):
    # Floating IPs: above the routers' gateway addresses (1-4095).
    return _ip(PROVIDER_NET + 4096 + i)


def neutron_routers(h, g, b, switches, ports, n_proj, projects, prefix, m):
    """Routers for gen.py's Neutron workload.  SWITCHES: dicts with uuid,
    name, net, project; PORTS: (port uuid, ip, switch index) of VM ports;
    PREFIX: the networks' prefix length; H: gen.py's helpers (insert,
    mutate, oset, omap, ref).  Rows of non-root tables are inserted in the
    transaction that makes a root row refer to them."""
    rng = g.rng
    chassis = ["chassis-%d" % k for k in range(1, 4)]

    # The provider network.
    ext_uuid, ext_id, ln = g.uuid(), g.uuid(), g.uuid()
    ext_name = "neutron-" + ext_id
    b.add(h.insert("Logical_Switch_Port", ln, {
        "name": "provnet-" + ln, "type": "localnet",
        "addresses": h.oset(["unknown"]),
        "options": h.omap({"network_name": "physnet1",
                           "mcast_flood": "false",
                           "localnet_learn_fdb": "false"})}),
        h.insert("Logical_Switch", ext_uuid, {
            "name": ext_name, "ports": h.oset([h.ref(ln)]),
            "other_config": h.omap({"mcast_snoop": "false",
                                    "mcast_flood_unregistered": "false",
                                    "vlan-passthru": "false"}),
            "external_ids": h.omap({"neutron:network_name": "public",
                                    "neutron:mtu": "1500",
                                    "neutron:revision_number": "2"})}))
    b.cut(True)

    # A router per project, with its gateway port and default route.
    routers = []
    for p in range(n_proj):
        rid, ru = g.uuid(), g.uuid()
        rname = "neutron-" + rid
        gw_id, gw_lsp, gw_lrp, route = g.uuid(), g.uuid(), g.uuid(), g.uuid()
        gw_ip = _ip(PROVIDER_NET + 2 + p)
        gcs = []
        for k, ch in enumerate(chassis):
            gc = g.uuid()
            gcs.append(gc)
            b.add(h.insert("Gateway_Chassis", gc, {
                "name": "lrp-%s_%s" % (gw_id, ch), "chassis_name": ch,
                "priority": len(chassis) - k}))
        b.add(h.insert("Logical_Router_Port", gw_lrp, {
            "name": "lrp-" + gw_id,
            "mac": _mac("fa:16:3e", 0x100000 + p),
            "networks": h.oset(["%s/16" % gw_ip]),
            "gateway_chassis": h.oset(h.ref(x) for x in gcs),
            "external_ids": h.omap({
                "neutron:network_name": ext_name,
                "neutron:revision_number": "4",
                "neutron:router_name": rid,
                "neutron:is_ext_gw": "True"})}),
            h.insert("Logical_Router_Static_Route", route, {
                "ip_prefix": "0.0.0.0/0", "nexthop": _ip(PROVIDER_NET + 1),
                "external_ids": h.omap({"neutron:is_ext_gw": "true",
                                        "neutron:subnet_id": g.uuid()})}),
            h.insert("Logical_Router", ru, {
                "name": rname, "enabled": True,
                "ports": h.oset([h.ref(gw_lrp)]),
                "static_routes": h.oset([h.ref(route)]),
                "options": h.omap({
                    "always_learn_from_arp_request": "false",
                    "dynamic_neigh_routers": "true",
                    "mac_binding_age_threshold": "0"}),
                "external_ids": h.omap({
                    "neutron:router_name": "router-" + rid[:8],
                    "neutron:gw_port_id": gw_id,
                    "neutron:revision_number": "4",
                    "neutron:availability_zone_hints": ""})}),
            h.insert("Logical_Switch_Port", gw_lsp, {
                "name": gw_id, "type": "router",
                "addresses": h.oset(["router"]),
                "options": h.omap({"router-port": "lrp-" + gw_id,
                                   "nat-addresses": "router",
                                   "exclude-lb-vips-from-garp": "true"}),
                "external_ids": h.omap({
                    "neutron:device_id": rid,
                    "neutron:device_owner": "network:router_gateway",
                    "neutron:network_name": ext_name,
                    "neutron:revision_number": "4"})}),
            h.mutate("Logical_Switch", ext_uuid, "ports", "insert",
                     [h.ref(gw_lsp)]))
        routers.append({"uuid": ru, "id": rid, "name": rname,
                        "gw_ip": gw_ip})
        b.cut()
    b.cut(True)

    # An interface on each network, and SNAT of its subnet.
    for s, ls in enumerate(switches):
        r = routers[ls["project"]]
        pid, lsp, lrp, nat = g.uuid(), g.uuid(), g.uuid(), g.uuid()
        gw = ls["net"] + 1
        b.add(h.insert("Logical_Router_Port", lrp, {
            "name": "lrp-" + pid, "mac": _mac("fa:16:3e", 0x200000 + s),
            "networks": h.oset(["%s/%d" % (_ip(gw), prefix)]),
            "external_ids": h.omap({
                "neutron:network_name": ls["name"],
                "neutron:revision_number": "3",
                "neutron:router_name": r["id"],
                "neutron:is_ext_gw": "False"})}),
            h.insert("NAT", nat, {
                "type": "snat",
                "logical_ip": "%s/%d" % (_ip(ls["net"]), prefix),
                "external_ip": r["gw_ip"],
                "external_ids": h.omap({"neutron:router_name": r["name"]})}),
            h.mutate("Logical_Router", r["uuid"], "ports", "insert",
                     [h.ref(lrp)]),
            h.mutate("Logical_Router", r["uuid"], "nat", "insert",
                     [h.ref(nat)]),
            h.insert("Logical_Switch_Port", lsp, {
                "name": pid, "type": "router",
                "addresses": h.oset(["router"]),
                "options": h.omap({"router-port": "lrp-" + pid}),
                "external_ids": h.omap({
                    "neutron:device_id": r["id"],
                    "neutron:device_owner": "network:router_interface",
                    "neutron:network_name": ls["name"],
                    "neutron:revision_number": "3"})}),
            h.mutate("Logical_Switch", ls["uuid"], "ports", "insert",
                     [h.ref(lsp)]))
        b.cut()
    b.cut(True)

    # Floating IPs for a fifth of the ports; the others may get one as a
    # change.
    n_fip = 0
    fip_free = []
    for port_uuid, ip, sw in ports:
        r = routers[switches[sw]["project"]]
        if rng.random() < 0.2:
            nat = g.uuid()
            mac = _mac("fa:16:3e", 0x300000 + n_fip)
            b.add(h.insert("NAT", nat, {
                "type": "dnat_and_snat", "external_ip": _fip_ip(n_fip),
                "logical_ip": ip, "logical_port": port_uuid,
                "external_mac": mac,
                "external_ids": h.omap({
                    "neutron:fip_id": g.uuid(),
                    "neutron:fip_port_id": port_uuid,
                    "neutron:fip_external_mac": mac,
                    "neutron:router_name": r["name"],
                    "neutron:revision_number": "2"})}),
                h.mutate("Logical_Router", r["uuid"], "nat", "insert",
                         [h.ref(nat)]))
            n_fip += 1
            b.cut()
        elif len(fip_free) < 5000:
            fip_free.append({"port": port_uuid, "ip": ip,
                             "router": r["uuid"], "rname": r["name"]})
    b.cut(True)
    m["fip_free"] = fip_free
    m["counts"]["routers"] = len(routers)
    m["counts"]["floating_ips"] = n_fip


def k8s_routers(h, g, b, nodes, prefix, services, m):
    """ovn-kubernetes' router topology for gen.py's k8s workload.  NODES:
    dicts with uuid, name, net; PREFIX: the node subnets' prefix length;
    SERVICES: the cluster load balancer group's UUID, or None."""
    cr, join = g.uuid(), g.uuid()
    j_lrp, j_lsp = g.uuid(), g.uuid()
    policies = []
    for match in ("ip4.src == %s && ip4.dst == %s"
                  % (K8S_CLUSTER_CIDR, K8S_CLUSTER_CIDR),
                  "ip4.src == %s && ip4.dst == 100.64.0.0/16"
                  % K8S_CLUSTER_CIDR):
        pol = g.uuid()
        b.add(h.insert("Logical_Router_Policy", pol, {
            "priority": 102, "match": match, "action": "allow",
            "external_ids": h.omap({"k8s.ovn.org/kind": "DefaultNetwork"})}))
        policies.append(pol)
    b.add(h.insert("Logical_Router_Port", j_lrp, {
        "name": "rtoj-ovn_cluster_router",
        "mac": _ovnk_mac(K8S_JOIN_NET + 1),
        "networks": h.oset(["%s/16" % _ip(K8S_JOIN_NET + 1)])}),
        h.insert("Logical_Router", cr, {
            "name": "ovn_cluster_router",
            "ports": h.oset([h.ref(j_lrp)]),
            "policies": h.oset(h.ref(x) for x in policies),
            "external_ids": h.omap({"k8s-cluster-router": "yes",
                                    "k8s-ovn-topo-version": "11"})}),
        h.insert("Logical_Switch_Port", j_lsp, {
            "name": "jtor-ovn_cluster_router", "type": "router",
            "addresses": h.oset(["router"]),
            "options": h.omap({"router-port": "rtoj-ovn_cluster_router"})}),
        h.insert("Logical_Switch", join, {
            "name": "join", "ports": h.oset([h.ref(j_lsp)])}))
    b.cut(True)

    for s, nd in enumerate(nodes):
        name = nd["name"]
        gw = nd["net"] + 1
        subnet = "%s/%d" % (_ip(nd["net"]), prefix)
        join_ip = K8S_JOIN_NET + 2 + s
        ext_ip = K8S_EXT_NET + 2 + s

        # The node switch's port on the cluster router, and the route from
        # the node's pods to its gateway router.
        lrp, lsp, rt = g.uuid(), g.uuid(), g.uuid()
        b.add(h.insert("Logical_Router_Port", lrp, {
            "name": "rtos-" + name, "mac": _ovnk_mac(gw),
            "networks": h.oset(["%s/%d" % (_ip(gw), prefix)])}),
            h.insert("Logical_Router_Static_Route", rt, {
                "ip_prefix": subnet, "nexthop": _ip(join_ip),
                "policy": "src-ip"}),
            h.mutate("Logical_Router", cr, "ports", "insert", [h.ref(lrp)]),
            h.mutate("Logical_Router", cr, "static_routes", "insert",
                     [h.ref(rt)]),
            h.insert("Logical_Switch_Port", lsp, {
                "name": "stor-" + name, "type": "router",
                "addresses": h.oset(["router"]),
                "options": h.omap({"router-port": "rtos-" + name})}),
            h.mutate("Logical_Switch", nd["uuid"], "ports", "insert",
                     [h.ref(lsp)]))

        # The gateway router, its join and external ports and switch.
        gr, gj_lrp, gj_lsp = g.uuid(), g.uuid(), g.uuid()
        ge_lrp, ge_lsp, ext, ln = g.uuid(), g.uuid(), g.uuid(), g.uuid()
        routes = []
        for pfx, nh, port in (
                (K8S_CLUSTER_CIDR, _ip(K8S_JOIN_NET + 1), None),
                ("0.0.0.0/0", _ip(K8S_EXT_NET + 1), "rtoe-GR_" + name)):
            r = g.uuid()
            row = {"ip_prefix": pfx, "nexthop": nh}
            if port:
                row["output_port"] = port
            b.add(h.insert("Logical_Router_Static_Route", r, row))
            routes.append(r)
        snat = g.uuid()
        gr_row = {
            "name": "GR_" + name,
            "ports": h.oset([h.ref(gj_lrp), h.ref(ge_lrp)]),
            "static_routes": h.oset(h.ref(x) for x in routes),
            "nat": h.oset([h.ref(snat)]),
            "options": h.omap({
                "chassis": "chassis-" + name,
                "lb_force_snat_ip": "router_ip",
                "snat-ct-zone": "0",
                "always_learn_from_arp_request": "false",
                "dynamic_neigh_routers": "true",
                "mac_binding_age_threshold": "300"}),
            "external_ids": h.omap({"physical_ip": _ip(ext_ip),
                                    "physical_ips": _ip(ext_ip)})}
        if services:
            gr_row["load_balancer_group"] = h.oset([h.ref(services)])
        b.add(h.insert("NAT", snat, {
            "type": "snat", "logical_ip": K8S_CLUSTER_CIDR,
            "external_ip": _ip(ext_ip),
            "options": h.omap({"stateless": "false"})}),
            h.insert("Logical_Router_Port", gj_lrp, {
                "name": "rtoj-GR_" + name, "mac": _ovnk_mac(join_ip),
                "networks": h.oset(["%s/16" % _ip(join_ip)])}),
            h.insert("Logical_Router_Port", ge_lrp, {
                "name": "rtoe-GR_" + name, "mac": _ovnk_mac(ext_ip),
                "networks": h.oset(["%s/16" % _ip(ext_ip)])}),
            h.insert("Logical_Router", gr, gr_row),
            h.insert("Logical_Switch_Port", gj_lsp, {
                "name": "jtor-GR_" + name, "type": "router",
                "addresses": h.oset(["router"]),
                "options": h.omap({"router-port": "rtoj-GR_" + name})}),
            h.mutate("Logical_Switch", join, "ports", "insert",
                     [h.ref(gj_lsp)]),
            h.insert("Logical_Switch_Port", ge_lsp, {
                "name": "etor-GR_" + name, "type": "router",
                "addresses": h.oset([_ovnk_mac(ext_ip)]),
                "options": h.omap({"router-port": "rtoe-GR_" + name,
                                   "nat-addresses": "router",
                                   "exclude-lb-vips-from-garp": "true"})}),
            h.insert("Logical_Switch_Port", ln, {
                "name": "breth0_" + name, "type": "localnet",
                "addresses": h.oset(["unknown"]),
                "options": h.omap({"network_name": "physnet"})}),
            h.insert("Logical_Switch", ext, {
                "name": "ext_" + name,
                "ports": h.oset([h.ref(ge_lsp), h.ref(ln)])}))
        b.cut()
    b.cut(True)
    m["cluster_router"] = cr
    m["join_net"] = K8S_JOIN_NET
    m["n_nodes"] = len(nodes)
    m["counts"]["routers"] = len(nodes) + 1


def change_ops(h, kind, i, m, u):
    """The --routers change kinds (U: a UUID drawn for KIND and I)."""
    if kind in ("fip_add", "fip_del"):
        f = m["fip_free"][i % len(m["fip_free"])]
        if kind == "fip_del":
            return [h.mutate("Logical_Router", f["router"], "nat", "delete",
                             [h.ref(u)])]
        mac = _mac("fa:16:3f", 0x300000 + i)
        return [h.insert("NAT", u, {
                    "type": "dnat_and_snat",
                    "external_ip": _ip(PROVIDER_NET + 0x8000 + i),
                    "logical_ip": f["ip"], "logical_port": f["port"],
                    "external_mac": mac,
                    "external_ids": h.omap({
                        "neutron:fip_id": u,
                        "neutron:fip_port_id": f["port"],
                        "neutron:fip_external_mac": mac,
                        "neutron:router_name": f["rname"],
                        "neutron:revision_number": "1"})}),
                h.mutate("Logical_Router", f["router"], "nat", "insert",
                         [h.ref(u)])]
    if kind in ("route_add", "route_del"):
        if kind == "route_del":
            return [h.mutate("Logical_Router", m["cluster_router"],
                             "static_routes", "delete", [h.ref(u)])]
        nh = _ip(m["join_net"] + 2 + i % m["n_nodes"])
        return [h.insert("Logical_Router_Static_Route", u, {
                    "ip_prefix": "10.200.%d.0/24" % (i % 256),
                    "nexthop": nh,
                    "external_ids": h.omap({"k8s.ovn.org/kind": "bench"})}),
                h.mutate("Logical_Router", m["cluster_router"],
                         "static_routes", "insert", [h.ref(u)])]
    raise ValueError("unknown change kind %s" % kind)
