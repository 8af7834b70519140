#! /usr/bin/python3
"""neutron-scenario.py: what Neutron's OVN driver writes into the NB, through
Neutron's own client library (Debian's python3-ovsdbapp), step by step.

usage: neutron-scenario.py REMOTE STEP

REMOTE is the NB (e.g. unix:nb.sock).  STEP is one of:

  create   two tenant networks with a subnet each (DHCP_Options), a
           metadata localport, DNS records, a security group (port group
           with its ACLs, and Neutron's neutron_pg_drop), two VM ports on
           the first network and one on the second, and a provider network
           (a VLAN localnet port)
  update   a VM port moves to another IP (addresses, port security,
           neutron:cidrs, revision), its subnet's DHCP lease time changes,
           a port is added to the DNS records, a security group rule is
           added
  delete   a VM port and the second network go, as Neutron deletes them
  router   a router between the two tenant networks as Neutron's L3
           plugin writes it: router interfaces (a router port and a switch
           port of type router each, the second network's with an IPv6
           SLAAC subnet and its router advertisements), an extra route
  router-update
           an extra route added, one removed; the second interface goes
  gateway  the router's gateway on the provider network, as Neutron's
           ovn_client sets it: a gateway port (a router port with
           gateway_chassis, through ovsdbapp's lrp_set_gateway_chassis,
           and its switch port of type router with nat-addresses=router),
           the default route to the provider network's gateway, SNAT of
           the tenant subnets to the gateway port's address
  fip      floating IPs: a centralized one (dnat_and_snat) and a
           distributed one (external_mac and logical_port), with
           Neutron's external_ids
  gateway-update
           a floating IP removed, SNAT disabled, the gateway port moved
           from gateway_chassis to an HA_Chassis_Group (as newer Neutron
           schedules it), its revision number bumped
  gateway-remove
           the last floating IP removed, then the gateway: the default
           route, the gateway port and its switch port, the HA chassis
           group

Names and UUIDs in external_ids are fixed, so that the same steps on two
NBs (ours and the stock northd's) can be compared row by row.
"""

import sys

from ovsdbapp.backend.ovs_idl import connection
from ovsdbapp.schema.ovn_northbound import impl_idl

NET1 = "11111111-1111-1111-1111-111111111111"
NET2 = "22222222-2222-2222-2222-222222222222"
PROV = "33333333-3333-3333-3333-333333333333"
SG = "44444444-4444-4444-4444-444444444444"
SUBNET1 = "55555555-5555-5555-5555-555555555555"
SUBNET2 = "66666666-6666-6666-6666-666666666666"
PROJECT = "77777777777777777777777777777777"
PG = "pg_" + SG.replace("-", "_")
PG_DROP = "neutron_pg_drop"
ROUTER = "88888888-8888-8888-8888-888888888888"
RP1 = "99999999-0000-0000-0000-000000000001"
RP2 = "99999999-0000-0000-0000-000000000002"
GW = "99999999-0000-0000-0000-0000000000ee"
FIP1 = "aaaaaaaa-0000-0000-0000-000000000001"
FIP2 = "aaaaaaaa-0000-0000-0000-000000000002"


def ls_name(net):
    return "neutron-" + net


def api_for(remote):
    idl = connection.OvsdbIdl.from_server(remote, "OVN_Northbound")
    return impl_idl.OvnNbApiIdlImpl(connection.Connection(idl=idl,
                                                          timeout=30))


def network(txn, api, net, name, cidr_prefix):
    txn.add(api.ls_add(ls_name(net), may_exist=True, external_ids={
        "neutron:network_name": name,
        "neutron:mtu": "1442",
        "neutron:revision_number": "1",
        "neutron:availability_zone_hints": "",
    }, other_config={
        "mcast_snoop": "false",
        "mcast_flood_unregistered": "false",
        "vlan-passthru": "false",
    }))
    # The metadata port: a localport whose neutron:cidrs the metadata agent
    # reads from the Port_Binding.
    txn.add(api.lsp_add(
        ls_name(net), "md-" + net[:8], type="localport",
        addresses=["fa:16:3e:00:%s:02 %s.2" % (net[:2], cidr_prefix)],
        port_security=[],
        external_ids={
            "neutron:cidrs": "%s.2/24" % cidr_prefix,
            "neutron:device_id": "ovnmeta-" + net,
            "neutron:device_owner": "network:distributed",
            "neutron:network_name": ls_name(net),
            "neutron:project_id": PROJECT,
            "neutron:revision_number": "1",
        }))


def dhcp(api, subnet, cidr_prefix, mac_byte):
    row = api.dhcp_options_add("%s.0/24" % cidr_prefix, subnet_id=subnet,
                               revision_number="0").execute(check_error=True)
    api.dhcp_options_set_options(
        row.uuid,
        lease_time="43200", mtu="1442", router="%s.1" % cidr_prefix,
        server_id="%s.1" % cidr_prefix,
        server_mac="fa:16:3e:00:%s:01" % mac_byte,
        dns_server="{8.8.8.8}",
        classless_static_route="{169.254.169.254/32,%s.2, 0.0.0.0/0,%s.1}"
        % (cidr_prefix, cidr_prefix)).execute(check_error=True)
    return row.uuid


def vm_port(api, txn, net, name, mac, ip, dhcp_uuid):
    # As Neutron does, the port groups get the lsp_add command itself:
    # ovsdbapp resolves only a command or a UUID, a bare name is written
    # as nothing.
    port = txn.add(api.lsp_add(
        ls_name(net), name, addresses=["%s %s" % (mac, ip)],
        port_security=["%s %s" % (mac, ip)],
        options={"requested-chassis": "hv1", "mcast_flood_reports": "true"},
        dhcpv4_options=dhcp_uuid,
        external_ids={
            "neutron:cidrs": ip + "/24",
            "neutron:device_id": "vm-" + name,
            "neutron:device_owner": "compute:nova",
            "neutron:network_name": ls_name(net),
            "neutron:port_name": "",
            "neutron:project_id": PROJECT,
            "neutron:revision_number": "2",
            "neutron:security_group_ids": SG,
        }))
    txn.add(api.pg_add_ports(PG, port))
    txn.add(api.pg_add_ports(PG_DROP, port))


def find_dhcp(api, subnet):
    for row in api.dhcp_options_list().execute(check_error=True):
        if row.external_ids.get("subnet_id") == subnet:
            return row.uuid
    raise RuntimeError("no DHCP_Options for subnet " + subnet)


def create(api):
    with api.transaction(check_error=True) as txn:
        network(txn, api, NET1, "net1", "10.0.1")
        network(txn, api, NET2, "net2", "10.0.2")
        # Neutron's drop-all group, and the security group: egress
        # allowed, ingress from the group's own addresses and SSH (the
        # groups first, their rules in a transaction of their own, as
        # Neutron does).
        txn.add(api.pg_add(PG_DROP, may_exist=True))
        txn.add(api.pg_add(PG, may_exist=True,
                           external_ids={"neutron:security_group_id": SG}))
    with api.transaction(check_error=True) as txn:
        txn.add(api.pg_acl_add(PG_DROP, "from-lport", 1001,
                               "inport == @%s && ip" % PG_DROP, "drop"))
        txn.add(api.pg_acl_add(PG_DROP, "to-lport", 1001,
                               "outport == @%s && ip" % PG_DROP, "drop"))
        for direction, match in (
                ("from-lport", "inport == @%s && ip4" % PG),
                ("from-lport", "inport == @%s && ip6" % PG),
                ("to-lport", "outport == @%s && ip4 && ip4.src == $%s_ip4"
                 % (PG, PG)),
                ("to-lport", "outport == @%s && ip4 && ip4.src == "
                 "0.0.0.0/0 && tcp && tcp.dst == 22" % PG)):
            txn.add(api.pg_acl_add(PG, direction, 1002, match,
                                   "allow-related",
                                   **{"neutron:security_group_rule_id":
                                      match[-12:]}))
        # A provider network: a VLAN localnet port.
        txn.add(api.ls_add(ls_name(PROV), may_exist=True, external_ids={
            "neutron:network_name": "provider"},
            other_config={"mcast_snoop": "false", "vlan-passthru": "false"}))
        # (Neutron's own command sets the "tag" column of a localnet
        # port; ovsdbapp's lsp_add() takes a tag only with a parent.)
        txn.add(api.lsp_add(
            ls_name(PROV), "provnet-" + PROV[:8], type="localnet",
            addresses=["unknown"],
            options={"network_name": "physnet1", "mcast_flood": "false",
                     "mcast_flood_reports": "true",
                     "localnet_learn_fdb": "false"}))
        txn.add(api.db_set("Logical_Switch_Port", "provnet-" + PROV[:8],
                           ("tag", 100)))
    dhcp1 = dhcp(api, SUBNET1, "10.0.1", "11")
    dhcp2 = dhcp(api, SUBNET2, "10.0.2", "22")
    with api.transaction(check_error=True) as txn:
        vm_port(api, txn, NET1, "vm1", "fa:16:3e:00:01:05", "10.0.1.5",
                dhcp1)
        vm_port(api, txn, NET1, "vm2", "fa:16:3e:00:01:06", "10.0.1.6",
                dhcp1)
        vm_port(api, txn, NET2, "vm3", "fa:16:3e:00:02:05", "10.0.2.5",
                dhcp2)
    # Neutron's DNS integration: the network's records.
    dns = api.dns_add(external_ids={"ls_name": ls_name(NET1)},
                      records={"vm1": "10.0.1.5",
                               "vm1.example.org": "10.0.1.5",
                               "5.1.0.10.in-addr.arpa": "vm1.example.org"}
                      ).execute(check_error=True)
    sw = api.ls_get(ls_name(NET1)).execute(check_error=True)
    api.ls_add_dns_record(sw.uuid, dns.uuid).execute(check_error=True)


def update(api):
    with api.transaction(check_error=True) as txn:
        txn.add(api.lsp_set_addresses("vm2", ["fa:16:3e:00:01:06 10.0.1.16"]))
        txn.add(api.lsp_set_port_security("vm2",
                                          ["fa:16:3e:00:01:06 10.0.1.16"]))
        txn.add(api.db_set("Logical_Switch_Port", "vm2",
                           ("external_ids", {"neutron:cidrs": "10.0.1.16/24",
                                             "neutron:revision_number": "3"})))
        txn.add(api.pg_acl_add(PG, "to-lport", 1002,
                               "outport == @%s && ip4 && ip4.src == "
                               "0.0.0.0/0 && icmp4" % PG, "allow-related"))
    api.dhcp_options_set_options(
        find_dhcp(api, SUBNET1), lease_time="3600", mtu="1442",
        router="10.0.1.1", server_id="10.0.1.1",
        server_mac="fa:16:3e:00:11:01", dns_server="{8.8.8.8}",
        classless_static_route="{169.254.169.254/32,10.0.1.2, "
        "0.0.0.0/0,10.0.1.1}").execute(check_error=True)
    for dns in api.dns_list().execute(check_error=True):
        if dns.external_ids.get("ls_name") == ls_name(NET1):
            api.dns_add_record(dns.uuid, "vm2", "10.0.1.16").execute(
                check_error=True)


def delete(api):
    vm3 = api.lsp_get("vm3").execute(check_error=True).uuid
    with api.transaction(check_error=True) as txn:
        txn.add(api.lsp_del("vm1"))
        txn.add(api.pg_del_ports(PG, vm3, if_exists=True))
        txn.add(api.pg_del_ports(PG_DROP, vm3, if_exists=True))
        txn.add(api.ls_del(ls_name(NET2)))
        txn.add(api.dhcp_options_del(find_dhcp(api, SUBNET2)))


def router_interface(txn, api, net, port_id, mac, networks, ra=None):
    lrp = "lrp-" + port_id
    columns = {"external_ids": {
        "neutron:network_name": ls_name(net),
        "neutron:revision_number": "1",
        "neutron:router_name": ROUTER,
        "neutron:subnet_ids": port_id[:8]}}
    if ra:
        columns["ipv6_ra_configs"] = ra
    txn.add(api.lrp_add("neutron-" + ROUTER, lrp, mac, networks,
                        **columns))
    txn.add(api.lsp_add(
        ls_name(net), port_id, type="router", addresses=["router"],
        options={"router-port": lrp},
        external_ids={
            "neutron:device_id": ROUTER,
            "neutron:device_owner": "network:router_interface",
            "neutron:network_name": ls_name(net),
            "neutron:project_id": PROJECT,
            "neutron:revision_number": "2"}))


def router(api):
    with api.transaction(check_error=True) as txn:
        txn.add(api.lr_add("neutron-" + ROUTER, external_ids={
            "neutron:router_name": "r1",
            "neutron:revision_number": "1",
            "neutron:availability_zone_hints": ""},
            options={"always_learn_from_arp_request": "false",
                     "dynamic_neigh_routers": "true",
                     "mac_binding_age_threshold": "0"}))
    with api.transaction(check_error=True) as txn:
        router_interface(txn, api, NET1, RP1, "fa:16:3e:00:01:01",
                         ["10.0.1.1/24"])
        router_interface(txn, api, NET2, RP2, "fa:16:3e:00:02:01",
                         ["10.0.2.1/24", "fd00:2::1/64"],
                         ra={"address_mode": "slaac", "mtu": "1442",
                             "send_periodic": "true",
                             "max_interval": "600", "min_interval": "200"})
        txn.add(api.lr_route_add("neutron-" + ROUTER, "192.168.50.0/24",
                                 "10.0.1.6"))


def router_update(api):
    with api.transaction(check_error=True) as txn:
        txn.add(api.lr_route_add("neutron-" + ROUTER, "192.168.60.0/24",
                                 "10.0.1.7"))
        txn.add(api.lr_route_del("neutron-" + ROUTER, "192.168.50.0/24"))
    with api.transaction(check_error=True) as txn:
        txn.add(api.lsp_del(RP2))
        txn.add(api.lrp_del("lrp-" + RP2))


def lr_name():
    return "neutron-" + ROUTER


def gateway(api):
    # Neutron's _add_router_ext_gw: the gateway port first, scheduled on
    # the gateway chassis by priority, then the default route and SNAT.
    lrp = "lrp-" + GW
    with api.transaction(check_error=True) as txn:
        txn.add(api.lrp_add(lr_name(), lrp, "fa:16:3e:00:ee:01",
                            ["172.24.4.10/24"], external_ids={
                                "neutron:network_name": ls_name(PROV),
                                "neutron:revision_number": "1",
                                "neutron:router_name": ROUTER,
                                "neutron:subnet_ids": "provsub",
                                "neutron:is_ext_gw": "True"}))
        txn.add(api.lrp_set_gateway_chassis(lrp, "hv1", 2))
        txn.add(api.lrp_set_gateway_chassis(lrp, "hv2", 1))
        txn.add(api.lsp_add(
            ls_name(PROV), GW, type="router", addresses=["router"],
            options={"router-port": lrp, "nat-addresses": "router",
                     "exclude-lb-vips-from-garp": "true"},
            external_ids={
                "neutron:device_id": ROUTER,
                "neutron:device_owner": "network:router_gateway",
                "neutron:network_name": ls_name(PROV),
                "neutron:project_id": "",
                "neutron:revision_number": "1"}))
    with api.transaction(check_error=True) as txn:
        txn.add(api.lr_route_add(lr_name(), "0.0.0.0/0", "172.24.4.1"))
        for cidr in ("10.0.1.0/24", "10.0.2.0/24"):
            txn.add(api.lr_nat_add(lr_name(), "snat", "172.24.4.10", cidr))
    # Neutron marks its default route and SNAT rows.
    for route in api.lr_route_list(lr_name()).execute(check_error=True):
        if route.ip_prefix == "0.0.0.0/0":
            api.db_set("Logical_Router_Static_Route", route.uuid,
                       ("external_ids", {"neutron:is_ext_gw": "true",
                                         "neutron:subnet_id": "provsub"})
                       ).execute(check_error=True)


def floating_ip(txn, api, fip_id, external_ip, logical_ip, port,
                distributed_mac=None):
    # Neutron's own AddNATRuleInLRouterCommand: a NAT row with its
    # external_ids, added to the router.
    columns = {"type": "dnat_and_snat", "external_ip": external_ip,
               "logical_ip": logical_ip,
               "external_ids": {"neutron:fip_id": fip_id,
                                "neutron:fip_port_id": port,
                                "neutron:revision_number": "1",
                                "neutron:router_name": lr_name(),
                                "neutron:fip_network_id": PROV}}
    if distributed_mac:
        columns["logical_port"] = port
        columns["external_mac"] = distributed_mac
        columns["external_ids"]["neutron:fip_external_mac"] = distributed_mac
    nat = txn.add(api.db_create("NAT", **columns))
    txn.add(api.db_add("Logical_Router", lr_name(), "nat", nat))


def fip(api):
    with api.transaction(check_error=True) as txn:
        floating_ip(txn, api, FIP1, "172.24.4.100", "10.0.1.5", "vm1")
    with api.transaction(check_error=True) as txn:
        floating_ip(txn, api, FIP2, "172.24.4.101", "10.0.2.5", "vm3",
                    distributed_mac="fa:16:3e:00:02:05")


def find_nat(api, key, value):
    for nat in api.lr_nat_list(lr_name()).execute(check_error=True):
        if nat.external_ids.get(key) == value:
            return nat.uuid
    raise RuntimeError("no NAT with %s=%s" % (key, value))


def gateway_update(api):
    lrp = "lrp-" + GW
    # A floating IP goes (Neutron deletes the row and removes it from the
    # router), then SNAT is disabled.
    with api.transaction(check_error=True) as txn:
        nat = find_nat(api, "neutron:fip_id", FIP1)
        txn.add(api.db_remove("Logical_Router", lr_name(), "nat", nat))
    with api.transaction(check_error=True) as txn:
        for cidr in ("10.0.1.0/24", "10.0.2.0/24"):
            txn.add(api.lr_nat_del(lr_name(), "snat", cidr))
    # The gateway moves to an HA chassis group, as newer Neutron has it.
    group = api.ha_chassis_group_add(
        lr_name(), may_exist=True,
        external_ids={"neutron:router_id": ROUTER}).execute(check_error=True)
    with api.transaction(check_error=True) as txn:
        txn.add(api.ha_chassis_group_add_chassis(group.uuid, "hv1", 30))
        txn.add(api.ha_chassis_group_add_chassis(group.uuid, "hv3", 20))
        txn.add(api.lrp_del_gateway_chassis(lrp, "hv1"))
        txn.add(api.lrp_del_gateway_chassis(lrp, "hv2"))
        txn.add(api.db_set("Logical_Router_Port", lrp,
                           ("ha_chassis_group", group.uuid),
                           ("external_ids",
                            {"neutron:network_name": ls_name(PROV),
                             "neutron:revision_number": "2",
                             "neutron:router_name": ROUTER,
                             "neutron:subnet_ids": "provsub",
                             "neutron:is_ext_gw": "True"})))


def gateway_remove(api):
    lrp = "lrp-" + GW
    with api.transaction(check_error=True) as txn:
        nat = find_nat(api, "neutron:fip_id", FIP2)
        txn.add(api.db_remove("Logical_Router", lr_name(), "nat", nat))
    with api.transaction(check_error=True) as txn:
        txn.add(api.lr_route_del(lr_name(), "0.0.0.0/0"))
        txn.add(api.lsp_del(GW))
        txn.add(api.lrp_del(lrp))
    # (Once no port refers to it: the port is garbage collected only
    # after the transaction's references are checked.)
    api.ha_chassis_group_del(lr_name()).execute(check_error=True)


def main():
    steps = {"create": create, "update": update, "delete": delete,
             "router": router, "router-update": router_update,
             "gateway": gateway, "fip": fip,
             "gateway-update": gateway_update,
             "gateway-remove": gateway_remove}
    if len(sys.argv) != 3 or sys.argv[2] not in steps:
        sys.stderr.write(__doc__)
        sys.exit(2)
    api = api_for(sys.argv[1])
    steps[sys.argv[2]](api)


if __name__ == "__main__":
    main()
