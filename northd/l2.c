/* Layer-2 forwarding on a logical switch: port security, MAC learning for
 * ports with unknown addresses, ARP/ND responder, L2 lookup, and the
 * default flow of every stage no other capability owns. */
#include <config.h>
#include "northd/l2.h"

#include <arpa/inet.h>
#include <string.h>

#include "lib/lex.h"
#include "lib/nb-rdb.h"
#include "northd/datapaths.h"
#include "northd/lflow.h"
#include "northd/pipeline.h"
#include "openvswitch/dynamic-string.h"
#include "packets.h"
#include "smap.h"
#include "sset.h"

/* Stages whose default flow is "next;" and is not decided elsewhere. */
static const enum ls_stage plain_stages[] = {
    S_IN_APPLY_PORT_SEC, S_IN_LOOKUP_FDB, S_IN_PUT_FDB, S_IN_PRE_ACL,
    S_IN_PRE_LB, S_IN_PRE_STATEFUL, S_IN_QOS_MARK, S_IN_QOS_METER,
    S_IN_LB_AFF_CHECK, S_IN_LB, S_IN_LB_AFF_LEARN, S_IN_PRE_HAIRPIN,
    S_IN_NAT_HAIRPIN, S_IN_HAIRPIN, S_IN_STATEFUL, S_IN_ARP_ND_RSP,
    S_IN_DHCP_OPTIONS, S_IN_DHCP_RESPONSE, S_IN_DNS_LOOKUP,
    S_IN_DNS_RESPONSE, S_IN_EXTERNAL_PORT,
    S_OUT_PRE_ACL, S_OUT_PRE_LB, S_OUT_PRE_STATEFUL, S_OUT_QOS_MARK,
    S_OUT_QOS_METER, S_OUT_STATEFUL,
};

static void
build_datapath_defaults(struct lflow_table *t, const struct ls_datapath *dp)
{
    for (size_t i = 0; i < ARRAY_SIZE(plain_stages); i++) {
        lflow_add(t, dp, plain_stages[i], 0, "1", "next;");
    }

    /* Ingress port security: drop multicast sources and VLAN-tagged frames
     * on the logical wire, and let ovn-controller check each port's
     * port_security (copied into Port_Binding) in check_in_port_sec(). */
    lflow_add(t, dp, S_IN_CHECK_PORT_SEC, 100, "eth.src[40]", "drop;");
    if (!ls_datapath_vlan_passthru(dp)) {
        lflow_add(t, dp, S_IN_CHECK_PORT_SEC, 100, "vlan.present", "drop;");
    }
    lflow_add(t, dp, S_IN_CHECK_PORT_SEC, 50, "1",
              REGBIT_PORT_SEC_DROP" = check_in_port_sec(); next;");
    lflow_add(t, dp, S_IN_APPLY_PORT_SEC, 50, REGBIT_PORT_SEC_DROP" == 1",
              "drop;");

    lflow_add(t, dp, S_OUT_CHECK_PORT_SEC, 100, "eth.mcast",
              REGBIT_PORT_SEC_DROP" = 0; next;");
    lflow_add(t, dp, S_OUT_CHECK_PORT_SEC, 0, "1",
              REGBIT_PORT_SEC_DROP" = check_out_port_sec(); next;");
    lflow_add(t, dp, S_OUT_APPLY_PORT_SEC, 50, REGBIT_PORT_SEC_DROP" == 1",
              "drop;");
    lflow_add(t, dp, S_OUT_APPLY_PORT_SEC, 0, "1", "output;");

    /* L2 lookup: multicast floods, unknown unicast asks the FDB. */
    lflow_add(t, dp, S_IN_L2_LKUP, 70, "eth.mcast",
              "outport = \""MC_FLOOD"\"; output;");
    lflow_add(t, dp, S_IN_L2_LKUP, 0, "1",
              "outport = get_fdb(eth.dst); next;");

    bool has_unknown = false;
    const struct ls_port *p;
    LIST_FOR_EACH (p, dp_node, &dp->ports) {
        has_unknown |= p->has_unknown && p->enabled;
    }
    lflow_add(t, dp, S_IN_L2_UNKNOWN, 50, "outport == \"none\"",
              has_unknown ? "outport = \""MC_UNKNOWN"\"; output;" : "drop;");
    lflow_add(t, dp, S_IN_L2_UNKNOWN, 0, "1", "output;");
}

/* Text forms of addresses, without printf: a port's flows are built for
 * every port on every full recompute. */

static void
put_mac(struct ds *s, const struct eth_addr ea)
{
    static const char hex[] = "0123456789abcdef";
    char buf[17];
    for (int i = 0; i < 6; i++) {
        buf[i * 3] = hex[ea.ea[i] >> 4];
        buf[i * 3 + 1] = hex[ea.ea[i] & 15];
        if (i < 5) {
            buf[i * 3 + 2] = ':';
        }
    }
    ds_put_buffer(s, buf, sizeof buf);
}

static void
put_ip4(struct ds *s, ovs_be32 addr)
{
    char buf[INET_ADDRSTRLEN];
    ds_put_buffer(s, buf, lsp_ip4_format(addr, buf));
}

static void
put_port_ref(struct ds *s, const char *prefix, const char *name)
{
    ds_put_cstr(s, prefix);
    lex_put_string(s, name);
}

/* ARP and ND replies on behalf of a port, for each of its IPs, except to
 * the port itself (it may be probing for duplicates). */
static void
build_arp_nd_responder(struct lflow_table *t, const struct ls_port *p,
                       const struct lsp_addresses *la, struct ds *match,
                       struct ds *actions)
{
    const struct uuid *hint = &p->nb->header_.uuid;
    for (size_t i = 0; i < la->n_ipv4; i++) {
        ovs_be32 ip = la->ipv4[i].addr;
        ds_clear(match);
        ds_put_cstr(match, "arp.tpa == ");
        put_ip4(match, ip);
        ds_put_cstr(match, " && arp.op == 1");
        ds_clear(actions);
        ds_put_cstr(actions, "eth.dst = eth.src; eth.src = ");
        put_mac(actions, la->ea);
        ds_put_cstr(actions, "; arp.op = 2; /* ARP reply */ "
                    "arp.tha = arp.sha; arp.sha = ");
        put_mac(actions, la->ea);
        ds_put_cstr(actions, "; arp.tpa = arp.spa; arp.spa = ");
        put_ip4(actions, ip);
        ds_put_cstr(actions, "; outport = inport; flags.loopback = 1; "
                    "output;");
        lflow_add_hint(t, p->dp, S_IN_ARP_ND_RSP, 50, ds_cstr(match),
                       ds_cstr(actions), hint);
        put_port_ref(match, " && inport == ", p->nb->name);
        lflow_add_port(t, p->dp, S_IN_ARP_ND_RSP, 100, ds_cstr(match),
                       "next;", hint);
    }

    for (size_t i = 0; i < la->n_ipv6; i++) {
        const struct in6_addr *ip6 = &la->ipv6[i].addr;
        struct in6_addr sn;
        in6_addr_solicited_node(&sn, ip6);
        char ip_s[INET6_ADDRSTRLEN];
        char sn_s[INET6_ADDRSTRLEN];
        inet_ntop(AF_INET6, ip6, ip_s, sizeof ip_s);
        inet_ntop(AF_INET6, &sn, sn_s, sizeof sn_s);

        ds_clear(match);
        ds_put_format(match, "nd_ns && ip6.dst == {%s, %s} && "
                      "nd.target == %s", ip_s, sn_s, ip_s);
        ds_clear(actions);
        ds_put_format(actions,
                      "nd_na { eth.src = "ETH_ADDR_FMT"; ip6.src = %s; "
                      "nd.target = %s; nd.tll = "ETH_ADDR_FMT"; "
                      "outport = inport; flags.loopback = 1; output; };",
                      ETH_ADDR_ARGS(la->ea), ip_s, ip_s,
                      ETH_ADDR_ARGS(la->ea));
        lflow_add_hint(t, p->dp, S_IN_ARP_ND_RSP, 50, ds_cstr(match),
                       ds_cstr(actions), hint);
        put_port_ref(match, " && inport == ", p->nb->name);
        lflow_add_port(t, p->dp, S_IN_ARP_ND_RSP, 100, ds_cstr(match),
                       "next;", hint);
    }
}

/* Whether source MACs behind 'p' are learnt (as in stock 23.03): a VIF,
 * or a localnet port that asks for it, with "unknown" addresses and no
 * port security. */
static bool
learns_fdb(const struct ls_port *p)
{
    const char *type = p->nb->type;
    return (p->has_unknown && !p->n_ps_addrs
            && (!type[0]
                || (!strcmp(type, "localnet")
                    && smap_get_bool(&p->nb->options, "localnet_learn_fdb",
                                     false))));
}

/* A virtual port's flows: an ARP (IPv4) or ND (IPv6) packet about its
 * options:virtual-ip from one of its options:virtual-parents on the switch
 * binds it to that parent's chassis (bind_vport).  Parents that are not
 * ports of the switch, and a virtual-ip that is not an address, give no
 * flow (ls_model_build() reports them). */
static void
build_virtual_port_flows(struct lflow_table *t, const struct ls_port *p,
                         struct ds *match, struct ds *actions)
{
    const char *vip = smap_get(&p->nb->options, "virtual-ip");
    const char *parents = smap_get(&p->nb->options, "virtual-parents");
    ovs_be32 ip4;
    struct in6_addr ip6;
    bool is_ip4 = vip && ip_parse(vip, &ip4);
    if (!parents || (!is_ip4 && (!vip || !ipv6_parse(vip, &ip6)))) {
        return;
    }

    char ip_s[INET6_ADDRSTRLEN];
    char sn_s[INET6_ADDRSTRLEN];
    if (is_ip4) {
        snprintf(ip_s, sizeof ip_s, IP_FMT, IP_ARGS(ip4));
    } else {
        struct in6_addr sn;
        in6_addr_solicited_node(&sn, &ip6);
        inet_ntop(AF_INET6, &ip6, ip_s, sizeof ip_s);
        inet_ntop(AF_INET6, &sn, sn_s, sizeof sn_s);
    }
    ds_clear(actions);
    put_port_ref(actions, "bind_vport(", p->nb->name);
    ds_put_cstr(actions, ", inport); next;");

    struct sset seen = SSET_INITIALIZER(&seen);
    char *list = xstrdup(parents);
    char *save = NULL;
    for (char *name = strtok_r(list, ",", &save); name;
         name = strtok_r(NULL, ",", &save)) {
        if (!ls_datapath_find_port(p->dp, name) || !sset_add(&seen, name)) {
            continue;
        }
        ds_clear(match);
        put_port_ref(match, "inport == ", name);
        if (is_ip4) {
            ds_put_format(match, " && ((arp.op == 1 && arp.spa == %s && "
                          "arp.tpa == %s) || (arp.op == 2 && arp.spa == "
                          "%s))", ip_s, ip_s, ip_s);
        } else {
            /* Stock's text, with no space before the second term. */
            ds_put_format(match, " && ((nd_ns && ip6.dst == {%s, %s} && "
                          "nd.target == %s) ||(nd_na && nd.target == %s))",
                          ip_s, sn_s, ip_s, ip_s);
        }
        lflow_add_port(t, p->dp, S_IN_ARP_ND_RSP, 100, ds_cstr(match),
                       ds_cstr(actions), &p->nb->header_.uuid);
    }
    free(list);
    sset_destroy(&seen);
}

/* Whether the ARP/ND responder answers for 'p''s addresses.  Router ports
 * answer for themselves; a port with "unknown" may have other hosts
 * behind it that own the address.  With ignore_lsp_down=false
 * ('check_up'), only a port that is up has its addresses answered for (a
 * localport is never bound, and always is).  On a vlan-passthru switch the
 * VLAN a request came on is not known, so nobody answers for the port but
 * the port itself.  Whether the port is enabled does not matter, as in
 * stock. */
static bool
answers_for(const struct ls_port *p, bool check_up)
{
    return ((!p->nb->type[0] || !strcmp(p->nb->type, "localport"))
            && !p->has_unknown
            && (!check_up || p->up || p->nb->type[0])
            && !ls_datapath_vlan_passthru(p->dp));
}

static void
build_port_flows(struct lflow_table *t, const struct ls_port *p,
                 bool check_up, struct ds *match, struct ds *actions)
{
    const struct uuid *hint = &p->nb->header_.uuid;
    const char *name = p->nb->name;

    if (!strcmp(p->nb->type, "virtual")) {
        build_virtual_port_flows(t, p, match, actions);
    }

    if (learns_fdb(p)) {
        /* Learn source MACs behind ports with unknown addresses.  (A
         * disabled port's packets are dropped before.) */
        ds_clear(match);
        put_port_ref(match, "inport == ", name);
        lflow_add_port(t, p->dp, S_IN_LOOKUP_FDB, 100, ds_cstr(match),
                       REGBIT_LKUP_FDB" = lookup_fdb(inport, eth.src); "
                       "next;", hint);
        ds_put_format(match, " && "REGBIT_LKUP_FDB" == 0");
        lflow_add_port(t, p->dp, S_IN_PUT_FDB, 100, ds_cstr(match),
                       "put_fdb(inport, eth.src); next;", hint);
    }

    if (p->queue_id) {
        /* Its egress queue (QoS options, ls_port 'queue_id'): traffic it
         * sends, and for a localnet port what leaves through it. */
        ds_clear(match);
        put_port_ref(match, "inport == ", name);
        ds_clear(actions);
        ds_put_format(actions, "set_queue(%"PRIu32"); "
                      REGBIT_PORT_SEC_DROP" = check_in_port_sec(); next;",
                      p->queue_id);
        lflow_add_port(t, p->dp, S_IN_CHECK_PORT_SEC, 70, ds_cstr(match),
                       ds_cstr(actions), hint);
        if (!strcmp(p->nb->type, "localnet")) {
            ds_clear(match);
            put_port_ref(match, "outport == ", name);
            ds_clear(actions);
            ds_put_format(actions, "set_queue(%"PRIu32"); output;",
                          p->queue_id);
            lflow_add_port(t, p->dp, S_OUT_APPLY_PORT_SEC, 100,
                           ds_cstr(match), ds_cstr(actions), hint);
        }
    }

    if (!strcmp(p->nb->type, "vtep")) {
        /* What comes from a VTEP gateway (a "ramp" switch) skips to the
         * hairpin stage, and from there to the L2 lookup (or, on a
         * distributed gateway port's chassis, to its ARP/ND hairpin:
         * router.c). */
        ds_clear(match);
        put_port_ref(match, "inport == ", name);
        ds_clear(actions);
        ds_put_format(actions, REGBIT_FROM_RAMP" = 1; "
                      "next(pipeline=ingress, table=%d);",
                      ls_stage_table(S_IN_HAIRPIN));
        lflow_add_port(t, p->dp, S_IN_CHECK_PORT_SEC, 70, ds_cstr(match),
                       ds_cstr(actions), hint);
        ds_clear(actions);
        ds_put_format(actions, "next(pipeline=ingress, table=%d);",
                      ls_stage_table(S_IN_L2_LKUP));
        lflow_add_hint(t, p->dp, S_IN_HAIRPIN, 1000, REGBIT_FROM_RAMP" == 1",
                       ds_cstr(actions), hint);
    }

    if (!strcmp(p->nb->type, "localnet")) {
        /* The physical network's ARP and ND requests are answered by
         * their owners, not by the responder on every chassis. */
        ds_clear(match);
        put_port_ref(match, "inport == ", name);
        lflow_add_port(t, p->dp, S_IN_ARP_ND_RSP, 100, ds_cstr(match),
                       "next;", hint);
    }

    if (!p->enabled) {
        /* A disabled port neither sends nor receives. */
        ds_clear(match);
        put_port_ref(match, "inport == ", name);
        lflow_add_port(t, p->dp, S_IN_CHECK_PORT_SEC, 100, ds_cstr(match),
                       REGBIT_PORT_SEC_DROP" = 1; next;", hint);
        ds_clear(match);
        put_port_ref(match, "outport == ", name);
        lflow_add_port(t, p->dp, S_IN_L2_UNKNOWN, 50, ds_cstr(match),
                       "drop;", hint);
        for (size_t i = 0; i < p->n_addrs; i++) {
            ds_clear(match);
            ds_put_format(match, "eth.dst == "ETH_ADDR_FMT,
                          ETH_ADDR_ARGS(p->addrs[i].ea));
            lflow_add_hint(t, p->dp, S_IN_L2_LKUP, 50, ds_cstr(match),
                           "drop;", hint);
            /* Its addresses are still answered for, as in stock. */
            if (answers_for(p, check_up)) {
                build_arp_nd_responder(t, p, &p->addrs[i], match, actions);
            }
        }
        return;
    }

    /* An external port is reached through the localnet port on the
     * chassis its HA group elects, not by its MAC: no L2 lookup flow, as
     * in stock. */
    bool external = !strcmp(p->nb->type, "external");
    for (size_t i = 0; i < p->n_addrs; i++) {
        const struct lsp_addresses *la = &p->addrs[i];
        if (!external) {
            ds_clear(match);
            ds_put_cstr(match, "eth.dst == ");
            put_mac(match, la->ea);
            ds_clear(actions);
            put_port_ref(actions, "outport = ", name);
            ds_put_cstr(actions, "; output;");
            lflow_add_hint(t, p->dp, S_IN_L2_LKUP, 50, ds_cstr(match),
                           ds_cstr(actions), hint);
        }

        if (answers_for(p, check_up)) {
            build_arp_nd_responder(t, p, la, match, actions);
        }
    }
}

void
l2_build_dp_lflows(struct lflow_table *t, const struct ls_datapath *dp)
{
    build_datapath_defaults(t, dp);
}

void
l2_build_port_lflows(struct lflow_table *t, const struct ls_port *p,
                     bool check_up)
{
    /* Scratch kept from port to port (northd is single-threaded): a full
     * recompute builds every port's flows. */
    static struct ds match = DS_EMPTY_INITIALIZER;
    static struct ds actions = DS_EMPTY_INITIALIZER;
    ds_clear(&match);
    ds_clear(&actions);
    build_port_flows(t, p, check_up, &match, &actions);
}
