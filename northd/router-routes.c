/* Static routes of logical routers (Logical_Router_Static_Route) and
 * policies (Logical_Router_Policy): parsed with the router model,
 * compiled into lr_in_ip_routing_pre, lr_in_ip_routing,
 * lr_in_ip_routing_ecmp, lr_in_policy and lr_in_policy_ecmp as stock
 * 23.03 does (docs/routers.md).
 *
 * Priorities, with the connected routes of router.c:
 *   connected       3 * plen + 2
 *   dst-ip static   3 * plen + 1   ("reg7 == TABLE && ip4.dst == P")
 *   src-ip static   3 * plen       ("ip4.src == P", "reg7 == TABLE && "
 *                                   only in a route table)
 * Routes of one table, policy and prefix with several next hops are an
 * ECMP group: the routing stage selects a member, the ECMP stage sets
 * its next hop.  A route whose prefix or next hop does not parse, or
 * whose next hop no router port reaches, is reported (log and
 * northd/not-compiled) and left out; the others are compiled. */
#include <config.h>
#include "northd/router.h"

#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "lib/nb-rdb.h"
#include "northd/acl-check.h"
#include "northd/bfd.h"
#include "northd/datapaths.h"
#include "northd/lflow.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "smap.h"
#include "sset.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(router_routes);

COVERAGE_DEFINE(lr_route_built);
COVERAGE_DEFINE(lr_route_bad);
COVERAGE_DEFINE(lr_route_ecmp_group);
COVERAGE_DEFINE(lr_policy_built);
COVERAGE_DEFINE(lr_policy_bad);

static void OVS_PRINTF_FORMAT(3, 4)
route_report(struct ls_model *m, const struct nb_logical_router_static_route *nb,
             const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *msg = xvasprintf(format, args);
    va_end(args);
    char *full = xasprintf("Logical_Router_Static_Route "UUID_FMT
                           " (%s via %s): %s: the route is left out",
                           UUID_ARGS(&nb->header_.uuid), nb->ip_prefix,
                           nb->nexthop, msg);
    COVERAGE_INC(lr_route_bad);
    ls_model_report_bad_row(m, full);
    free(full);
    free(msg);
}

/* Parses "ADDR" (plen NULL) or "ADDR[/PLEN]" into 'ip' (IPv4 mapped) and
 * '*v6'.  IPv4 addresses must be written as they print. */
static bool
parse_addr(const char *s, struct in6_addr *ip, unsigned int *plen, bool *v6)
{
    char *error;
    if (strchr(s, ':')) {
        *v6 = true;
        unsigned int p = 128;
        error = plen ? ipv6_parse_cidr(s, ip, &p)
                     : (ipv6_parse(s, ip) ? NULL : xstrdup("bad"));
        if (plen) {
            *plen = p;
        }
    } else {
        *v6 = false;
        ovs_be32 a;
        unsigned int p = 32;
        error = plen ? ip_parse_cidr(s, &a, &p)
                     : (ip_parse(s, &a) ? NULL : xstrdup("bad"));
        if (!error) {
            char canon[INET_ADDRSTRLEN];
            snprintf(canon, sizeof canon, IP_FMT, IP_ARGS(a));
            size_t len = strcspn(s, "/");
            if (strlen(canon) != len || strncmp(canon, s, len)) {
                error = xstrdup("bad");
            }
        }
        in6_addr_set_mapped_ipv4(ip, a);
        if (plen) {
            *plen = p;
        }
    }
    if (error) {
        free(error);
        return false;
    }
    return true;
}

static void
format_addr(const struct in6_addr *ip, bool v6, char *buf, size_t size)
{
    if (v6) {
        ipv6_string_mapped(buf, ip);
    } else {
        snprintf(buf, size, IP_FMT, IP_ARGS(in6_addr_get_mapped_ipv4(ip)));
    }
}

/* The network of 'p' that contains 'nh' (its address as text), or NULL. */
static const char *
port_addr_for(const struct lr_port *p, const struct in6_addr *nh, bool v6)
{
    if (v6) {
        for (size_t i = 0; i < p->n_ip6; i++) {
            struct in6_addr mask = ipv6_create_mask(p->ip6[i].plen);
            struct in6_addr net = ipv6_addr_bitand(nh, &mask);
            if (ipv6_addr_equals(&net, &p->ip6[i].network)) {
                return p->ip6[i].addr_s;
            }
        }
    } else {
        ovs_be32 a = in6_addr_get_mapped_ipv4(nh);
        for (size_t i = 0; i < p->n_ip4; i++) {
            if ((a & be32_prefix_mask(p->ip4[i].plen))
                == p->ip4[i].network) {
                return p->ip4[i].addr_s;
            }
        }
    }
    return NULL;
}

static uint32_t
table_id(const struct sset *tables, const char *name)
{
    if (!name || !name[0]) {
        return 0;
    }
    const char **names = sset_sort(tables);
    uint32_t id = 0;
    for (size_t i = 0; names[i]; i++) {
        if (!strcmp(names[i], name)) {
            id = i + 1;
            break;
        }
    }
    free(names);
    return id;
}

static int
compare_routes(const void *a_, const void *b_)
{
    const struct lr_route *a = a_;
    const struct lr_route *b = b_;
    if (a->table != b->table) {
        return a->table < b->table ? -1 : 1;
    }
    if (a->src != b->src) {
        return a->src ? 1 : -1;
    }
    int c = strcmp(a->prefix_s, b->prefix_s);
    if (c) {
        return c;
    }
    if (a->discard != b->discard) {
        return a->discard ? -1 : 1;
    }
    c = strcmp(a->nexthop_s, b->nexthop_s);
    return c ? c : uuid_compare_3way(&a->nb->header_.uuid,
                                     &b->nb->header_.uuid);
}

/* Whether routes 'a' and 'b' (adjacent in the sorted list) are of one
 * ECMP group: the same table, policy and prefix. */
static bool
same_group(const struct lr_route *a, const struct lr_route *b)
{
    return (a->table == b->table && a->src == b->src
            && !strcmp(a->prefix_s, b->prefix_s));
}

void
lr_routes_parse(struct ls_model *m, struct lr_router *r)
{
    const struct nb_logical_router *nb = r->nb;

    /* Route tables, numbered in name order from 1 (the main table is 0). */
    struct sset tables = SSET_INITIALIZER(&tables);
    for (size_t i = 0; i < nb->n_static_routes; i++) {
        const char *t = nb->static_routes[i]->route_table;
        if (t && t[0]) {
            sset_add(&tables, t);
        }
    }
    for (size_t i = 0; i < r->n_ports; i++) {
        const char *t = smap_get(&r->ports[i]->nb->options, "route_table");
        if (t && t[0]) {
            sset_add(&tables, t);
        }
    }
    for (size_t i = 0; i < r->n_ports; i++) {
        r->ports[i]->route_table = table_id(
            &tables, smap_get(&r->ports[i]->nb->options, "route_table"));
    }

    r->routes = xcalloc(MAX(nb->n_static_routes, 1), sizeof *r->routes);
    r->n_routes = 0;
    for (size_t i = 0; i < nb->n_static_routes; i++) {
        const struct nb_logical_router_static_route *sr
            = nb->static_routes[i];
        struct lr_route *rt = &r->routes[r->n_routes];
        memset(rt, 0, sizeof *rt);
        rt->nb = sr;
        rt->src = sr->policy && !strcmp(sr->policy, "src-ip");
        rt->table = table_id(&tables, sr->route_table);

        struct in6_addr prefix;
        if (!parse_addr(sr->ip_prefix, &prefix, &rt->plen, &rt->v6)) {
            route_report(m, sr, "bad ip_prefix");
            continue;
        }
        /* Host bits are ignored, as stock does. */
        struct in6_addr mask = (rt->v6 ? ipv6_create_mask(rt->plen)
                                : ipv6_create_mask(96 + rt->plen));
        prefix = ipv6_addr_bitand(&prefix, &mask);
        char s[INET6_ADDRSTRLEN];
        format_addr(&prefix, rt->v6, s, sizeof s);
        snprintf(rt->prefix_s, sizeof rt->prefix_s, "%s/%u", s, rt->plen);

        if (!strcmp(sr->nexthop, "discard")) {
            rt->discard = true;
            snprintf(rt->nexthop_s, sizeof rt->nexthop_s, "discard");
        } else {
            struct in6_addr nh;
            bool nh_v6;
            if (!parse_addr(sr->nexthop, &nh, NULL, &nh_v6)) {
                route_report(m, sr, "bad nexthop");
                continue;
            }
            if (nh_v6 != rt->v6) {
                route_report(m, sr, "the prefix and the next hop are of "
                             "different address families");
                continue;
            }
            format_addr(&nh, nh_v6, rt->nexthop_s, sizeof rt->nexthop_s);

            /* The port that reaches the next hop: the one named, or the
             * first (by name) with a network that holds it. */
            for (size_t j = 0; j < r->n_ports && !rt->out; j++) {
                const struct lr_port *p = r->ports[j];
                if (sr->output_port) {
                    if (!strcmp(p->nb->name, sr->output_port)) {
                        rt->out = p;
                        rt->out_addr = port_addr_for(p, &nh, nh_v6);
                        if (!rt->out_addr) {
                            rt->out_addr = (nh_v6 ? p->ip6[0].addr_s
                                            : p->n_ip4 ? p->ip4[0].addr_s
                                            : NULL);
                        }
                    }
                } else if ((rt->out_addr = port_addr_for(p, &nh, nh_v6))) {
                    rt->out = p;
                }
            }
            if (!rt->out || !rt->out_addr) {
                if (sr->output_port) {
                    route_report(m, sr, "output_port %s is not a usable "
                                 "port of router %s", sr->output_port,
                                 nb->name);
                } else {
                    route_report(m, sr, "no port of router %s reaches the "
                                 "next hop", nb->name);
                }
                continue;
            }
        }
        if (sr->bfd && !bfd_route_usable(m->lr->bfd, sr)) {
            /* Its BFD session is down (bfd.h). */
            continue;
        }
        COVERAGE_INC(lr_route_built);
        r->n_routes++;
    }
    qsort(r->routes, r->n_routes, sizeof *r->routes, compare_routes);
    sset_destroy(&tables);

    /* ecmp_symmetric_reply means something only for a member of an ECMP
     * group of a gateway router (as stock); say so otherwise. */
    for (size_t i = 0; i < r->n_routes; i++) {
        const struct lr_route *rt = &r->routes[i];
        if (!smap_get_bool(&rt->nb->options, "ecmp_symmetric_reply",
                           false)) {
            continue;
        }
        bool grouped = ((i && same_group(&r->routes[i - 1], rt))
                        || (i + 1 < r->n_routes
                            && same_group(rt, &r->routes[i + 1])));
        const char *why = (!r->chassis ? "works only on gateway routers"
                           : rt->discard ? "means nothing on a discard route"
                           : !grouped ? "works only within an ECMP group"
                           : NULL);
        if (why) {
            char *msg = xasprintf("Logical_Router_Static_Route "UUID_FMT
                                  " (%s via %s): options:"
                                  "ecmp_symmetric_reply %s: ignored, as "
                                  "stock", UUID_ARGS(&rt->nb->header_.uuid),
                                  rt->nb->ip_prefix, rt->nb->nexthop, why);
            COVERAGE_INC(lr_route_bad);
            ls_model_report_bad_row(m, msg);
            free(msg);
        }
    }
}

static void
put_route_match(struct ds *m, const struct lr_route *rt)
{
    ds_clear(m);
    if (!rt->src || rt->table) {
        ds_put_format(m, "reg7 == %"PRIu32" && ", rt->table);
    }
    ds_put_format(m, "%s.%s == %s", rt->v6 ? "ip6" : "ip4",
                  rt->src ? "src" : "dst", rt->prefix_s);
}

/* The registers a route to 'rt''s next hop sets. */
static void
put_nexthop(struct ds *a, const struct lr_route *rt)
{
    ds_put_format(a, "%s = %s; %s = %s; eth.src = %s; outport = %s; ",
                  rt->v6 ? "xxreg0" : "reg0", rt->nexthop_s,
                  rt->v6 ? "xxreg1" : "reg1", rt->out_addr,
                  rt->out->mac_s, rt->out->qname);
}

/* ecmp_symmetric_reply on ECMP member 'rt' of gateway router 'r': a
 * connection that comes in by the member's port from its prefix is
 * committed with the port and the MAC it came from, and its replies go
 * back there instead of through ECMP selection (which they and the
 * router's policies skip). */
static void
build_symmetric_reply(struct lflow_table *t, const struct lr_router *r,
                      const struct lr_route *rt, struct ds *m, struct ds *a)
{
    const struct ls_datapath *dp = r->dp;
    const struct uuid *hint = &rt->nb->header_.uuid;
    const char *ip = rt->v6 ? "ip6" : "ip4";
    const struct lr_port *out = rt->out;

    ds_clear(m);
    ds_put_format(m, "inport == %s && %s.src == %s", out->qname, ip,
                  rt->prefix_s);
    lflow_add_hint(t, dp, S_LR_IN_DEFRAG, 100, ds_cstr(m),
                   "reg9[5] = chk_ecmp_nh_mac(); ct_next;", hint);
    char *from = ds_steal_cstr(m);

    put_route_match(m, rt);
    lflow_add_hint(t, dp, S_LR_IN_DEFRAG, 100, ds_cstr(m),
                   "reg9[5] = chk_ecmp_nh(); ct_next;", hint);
    char *route = ds_steal_cstr(m);

    static const char *const protos[] = { "sctp", "tcp", "udp" };
    for (size_t i = 0; i < ARRAY_SIZE(protos); i++) {
        ds_clear(a);
        /* Stock's text, two spaces included. */
        ds_put_format(a, "ct_commit { ct_label.ecmp_reply_eth = eth.src;  "
                      "ct_mark.ecmp_reply_port = %"PRIu32";}; "
                      "commit_ecmp_nh(ipv6 = %s, proto = %s); next;",
                      out->tunnel_key, rt->v6 ? "true" : "false",
                      protos[i]);
        ds_clear(m);
        ds_put_format(m, "%s && (!ct.rpl && ct.est) && %s && reg9[5] == 0",
                      from, protos[i]);
        lflow_add_hint(t, dp, S_LR_IN_ECMP_STATEFUL, 100, ds_cstr(m),
                       ds_cstr(a), hint);
        ds_clear(m);
        ds_put_format(m, "%s && (ct.new && !ct.est) && %s", from, protos[i]);
        lflow_add_hint(t, dp, S_LR_IN_ECMP_STATEFUL, 100, ds_cstr(m),
                       ds_cstr(a), hint);
    }

    char *reply = xasprintf("ct.rpl && reg9[5] == 1 && "
                            "ct_mark.ecmp_reply_port == %"PRIu32,
                            out->tunnel_key);
    ds_clear(m);
    ds_put_format(m, "%s && %s", reply, route);
    ds_clear(a);
    ds_put_format(a, "ip.ttl--; flags.loopback = 1; eth.src = %s; "
                  "%s = %s; outport = %s; next;", out->mac_s,
                  rt->v6 ? "xxreg1" : "reg1", rt->out_addr, out->qname);
    lflow_add_hint(t, dp, S_LR_IN_IP_ROUTING, 10300, ds_cstr(m), ds_cstr(a),
                   hint);
    lflow_add_hint(t, dp, S_LR_IN_POLICY, 65535, reply, "next;", hint);
    lflow_add_hint(t, dp, S_LR_IN_ARP_RESOLVE, 200, reply,
                   "push(xxreg1); xxreg1 = ct_label; "
                   "eth.dst = xxreg1[32..79]; pop(xxreg1); next;", hint);
    free(reply);
    free(from);
    free(route);
}

/* lr_in_arp_request 200: IPv6 next hop 'nh_s' solicited at its
 * solicited-node address. */
static void
solicit_nexthop(struct lflow_table *t, const struct ls_datapath *dp,
                const char *nh_s, const struct uuid *hint, struct ds *m,
                struct ds *a)
{
    struct in6_addr nh, sn;
    ipv6_parse(nh_s, &nh);
    in6_addr_solicited_node(&sn, &nh);
    struct eth_addr mac;
    ipv6_multicast_to_ethernet(&mac, &sn);
    char sn_s[INET6_ADDRSTRLEN];
    ipv6_string_mapped(sn_s, &sn);
    ds_clear(m);
    ds_put_format(m, "eth.dst == 00:00:00:00:00:00 && ip6 && xxreg0 == %s",
                  nh_s);
    ds_clear(a);
    ds_put_format(a, "nd_ns { eth.dst = "ETH_ADDR_FMT"; ip6.dst = %s; "
                  "nd.target = %s; output; };", ETH_ADDR_ARGS(mac), sn_s,
                  nh_s);
    lflow_add_hint(t, dp, S_LR_IN_ARP_REQUEST, 200, ds_cstr(m), ds_cstr(a),
                   hint);
}

void
lr_routes_build_lflows(struct lflow_table *t, const struct lr_router *r)
{
    const struct ls_datapath *dp = r->dp;
    struct ds m = DS_EMPTY_INITIALIZER;
    struct ds a = DS_EMPTY_INITIALIZER;

    for (size_t i = 0; i < r->n_ports; i++) {
        const struct lr_port *p = r->ports[i];
        if (p->route_table) {
            ds_clear(&m);
            ds_put_format(&m, "inport == %s", p->qname);
            ds_clear(&a);
            ds_put_format(&a, "reg7 = %"PRIu32"; next;", p->route_table);
            lflow_add_hint(t, dp, S_LR_IN_IP_ROUTING_PRE, 100, ds_cstr(&m),
                           ds_cstr(&a), &p->nb->header_.uuid);
        }
    }

    uint32_t n_groups = 0;
    for (size_t i = 0; i < r->n_routes; ) {
        const struct lr_route *rt = &r->routes[i];
        uint16_t prio = rt->plen * 3 + (rt->src ? 0 : 1);
        put_route_match(&m, rt);

        /* The routes of the same table, policy and prefix. */
        size_t n = 1;
        while (i + n < r->n_routes && same_group(rt, &r->routes[i + n])) {
            n++;
        }
        const struct uuid *hint = &rt->nb->header_.uuid;
        if (rt->discard) {
            /* A discard route takes its prefix whatever else goes
             * there. */
            lflow_add_hint(t, dp, S_LR_IN_IP_ROUTING, prio, ds_cstr(&m),
                           "drop;", hint);
        } else if (n == 1) {
            ds_clear(&a);
            ds_put_cstr(&a, "ip.ttl--; reg8[0..15] = 0; ");
            put_nexthop(&a, rt);
            ds_put_cstr(&a, "flags.loopback = 1; next;");
            lflow_add_hint(t, dp, S_LR_IN_IP_ROUTING, prio, ds_cstr(&m),
                           ds_cstr(&a), hint);
            if (rt->out->has_bfd) {
                bfd_build_route_lflow(t, dp, prio, ds_cstr(&m),
                                      ds_cstr(&a) + strlen("ip.ttl--; "),
                                      hint);
            }
        } else {
            uint32_t group = ++n_groups;
            COVERAGE_INC(lr_route_ecmp_group);
            ds_clear(&a);
            ds_put_format(&a, "ip.ttl--; flags.loopback = 1; "
                          "reg8[0..15] = %"PRIu32"; reg8[16..31] = select(",
                          group);
            for (size_t k = 0; k < n; k++) {
                ds_put_format(&a, "%s%"PRIuSIZE, k ? ", " : "", k + 1);
            }
            ds_put_cstr(&a, ");");
            lflow_add_hint(t, dp, S_LR_IN_IP_ROUTING, prio, ds_cstr(&m),
                           ds_cstr(&a), hint);
            for (size_t k = 0; k < n; k++) {
                const struct lr_route *mr = &r->routes[i + k];
                ds_clear(&m);
                ds_put_format(&m, "reg8[0..15] == %"PRIu32" && "
                              "reg8[16..31] == %"PRIuSIZE, group, k + 1);
                ds_clear(&a);
                put_nexthop(&a, mr);
                ds_put_cstr(&a, "next;");
                lflow_add_hint(t, dp, S_LR_IN_IP_ROUTING_ECMP, 100,
                               ds_cstr(&m), ds_cstr(&a),
                               &mr->nb->header_.uuid);
                if (r->chassis
                    && smap_get_bool(&mr->nb->options,
                                     "ecmp_symmetric_reply", false)) {
                    build_symmetric_reply(t, r, mr, &m, &a);
                }
            }
        }
        i += n;
    }

    /* An IPv6 next hop is solicited at its solicited-node address: also
     * that of a route left out while its BFD session is down, as stock. */
    struct sset done = SSET_INITIALIZER(&done);
    for (size_t i = 0; i < r->n_routes; i++) {
        const struct lr_route *rt = &r->routes[i];
        if (rt->v6 && !rt->discard && sset_add(&done, rt->nexthop_s)) {
            solicit_nexthop(t, dp, rt->nexthop_s, &rt->nb->header_.uuid,
                            &m, &a);
        }
    }
    for (size_t i = 0; i < r->nb->n_static_routes; i++) {
        const struct nb_logical_router_static_route *sr
            = r->nb->static_routes[i];
        struct in6_addr nh;
        char nh_s[INET6_ADDRSTRLEN];
        if (sr->bfd && ipv6_parse(sr->nexthop, &nh)
            && ipv6_string_mapped(nh_s, &nh) && sset_add(&done, nh_s)) {
            solicit_nexthop(t, dp, nh_s, &sr->header_.uuid, &m, &a);
        }
    }
    sset_destroy(&done);
    ds_destroy(&m);
    ds_destroy(&a);
}

void
lr_routes_destroy(struct lr_router *r)
{
    free(r->routes);
    r->routes = NULL;
    r->n_routes = 0;
    for (size_t i = 0; i < r->n_policies; i++) {
        free(r->policies[i].hops);
    }
    free(r->policies);
    r->policies = NULL;
    r->n_policies = 0;
}

/* Policies. */

static void OVS_PRINTF_FORMAT(3, 4)
policy_report(struct ls_model *m, const struct nb_logical_router_policy *nb,
              const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *msg = xvasprintf(format, args);
    va_end(args);
    char *full = xasprintf("Logical_Router_Policy "UUID_FMT" (priority %"
                           PRId32"): %s: the policy is left out",
                           UUID_ARGS(&nb->header_.uuid), nb->priority, msg);
    COVERAGE_INC(lr_policy_bad);
    ls_model_report_bad_row(m, full);
    free(full);
    free(msg);
}

static int
compare_policies(const void *a_, const void *b_)
{
    const struct lr_policy *a = a_;
    const struct lr_policy *b = b_;
    if (a->nb->priority != b->nb->priority) {
        return a->nb->priority > b->nb->priority ? -1 : 1;
    }
    return uuid_compare_3way(&a->nb->header_.uuid, &b->nb->header_.uuid);
}

static bool
parse_policy(struct ls_model *m, const struct lr_router *r,
             const struct nb_logical_router_policy *nb, struct lr_policy *pol)
{
    memset(pol, 0, sizeof *pol);
    pol->nb = nb;
    pol->pkt_mark = -1;
    const char *mark = smap_get(&nb->options, "pkt_mark");
    if (mark) {
        char *end;
        unsigned long long v = strtoull(mark, &end, 10);
        if (*end || !mark[0] || v > UINT32_MAX) {
            policy_report(m, nb, "options:pkt_mark \"%s\" is not a 32-bit "
                          "integer", mark);
            return false;
        }
        pol->pkt_mark = v;
    }
    /* A match that names no set or group is checked as ovn-controller
     * will read it; one that does is written as it is, as stock does. */
    if (!strpbrk(nb->match, "$@")) {
        char *error = acl_check_plain_match(nb->match);
        if (error) {
            policy_report(m, nb, "match: %s", error);
            free(error);
            return false;
        }
    }
    if (!strcmp(nb->action, "drop")) {
        pol->action = LR_POLICY_DROP;
        return true;
    } else if (!strcmp(nb->action, "allow")) {
        pol->action = LR_POLICY_ALLOW;
        return true;
    } else if (strcmp(nb->action, "reroute")) {
        policy_report(m, nb, "unknown action \"%s\"", nb->action);
        return false;
    }
    pol->action = LR_POLICY_REROUTE;

    /* Next hops: 'nexthops', else the older 'nexthop'. */
    char **hops = nb->nexthops;
    size_t n = nb->n_nexthops;
    char *single[1];
    if (!n && nb->nexthop) {
        single[0] = nb->nexthop;
        hops = single;
        n = 1;
    }
    if (!n) {
        policy_report(m, nb, "reroute without a next hop");
        return false;
    }
    pol->hops = xcalloc(n, sizeof *pol->hops);
    for (size_t i = 0; i < n; i++) {
        struct lr_route *h = &pol->hops[i];
        struct in6_addr nh;
        bool v6;
        if (!parse_addr(hops[i], &nh, NULL, &v6)) {
            policy_report(m, nb, "bad next hop \"%s\"", hops[i]);
            goto bad;
        }
        if (i && v6 != pol->v6) {
            policy_report(m, nb, "next hops of both address families");
            goto bad;
        }
        pol->v6 = h->v6 = v6;
        format_addr(&nh, v6, h->nexthop_s, sizeof h->nexthop_s);
        for (size_t j = 0; j < r->n_ports && !h->out; j++) {
            if ((h->out_addr = port_addr_for(r->ports[j], &nh, v6))) {
                h->out = r->ports[j];
            }
        }
        if (!h->out) {
            policy_report(m, nb, "no port of router %s reaches next hop %s",
                          r->nb->name, h->nexthop_s);
            goto bad;
        }
        pol->n_hops++;
    }
    return true;

bad:
    free(pol->hops);
    pol->hops = NULL;
    return false;
}

void
lr_policies_parse(struct ls_model *m, struct lr_router *r)
{
    const struct nb_logical_router *nb = r->nb;
    r->policies = xcalloc(MAX(nb->n_policies, 1), sizeof *r->policies);
    r->n_policies = 0;
    for (size_t i = 0; i < nb->n_policies; i++) {
        if (parse_policy(m, r, nb->policies[i],
                         &r->policies[r->n_policies])) {
            COVERAGE_INC(lr_policy_built);
            r->n_policies++;
        }
    }
    qsort(r->policies, r->n_policies, sizeof *r->policies,
          compare_policies);
}

static void
put_hop(struct ds *a, const struct lr_route *h)
{
    ds_put_format(a, "%s = %s; %s = %s; eth.src = %s; outport = %s; "
                  "flags.loopback = 1; ", h->v6 ? "xxreg0" : "reg0",
                  h->nexthop_s, h->v6 ? "xxreg1" : "reg1", h->out_addr,
                  h->out->mac_s, h->out->qname);
}

void
lr_policies_build_lflows(struct lflow_table *t, const struct lr_router *r)
{
    const struct ls_datapath *dp = r->dp;
    struct ds a = DS_EMPTY_INITIALIZER;
    struct ds m = DS_EMPTY_INITIALIZER;
    uint32_t n_groups = 0;
    for (size_t i = 0; i < r->n_policies; i++) {
        const struct lr_policy *pol = &r->policies[i];
        const struct uuid *hint = &pol->nb->header_.uuid;
        ds_clear(&a);
        if (pol->pkt_mark >= 0 && pol->action != LR_POLICY_DROP) {
            ds_put_format(&a, "pkt.mark = %"PRId64"; ", pol->pkt_mark);
        }
        if (pol->action == LR_POLICY_DROP) {
            ds_put_cstr(&a, "drop;");
        } else if (pol->action == LR_POLICY_ALLOW) {
            ds_put_cstr(&a, "reg8[0..15] = 0; next;");
        } else if (pol->n_hops == 1) {
            put_hop(&a, &pol->hops[0]);
            ds_put_cstr(&a, "reg8[0..15] = 0; next;");
        } else {
            uint32_t group = ++n_groups;
            ds_put_format(&a, "reg8[0..15] = %"PRIu32"; reg8[16..31] = "
                          "select(", group);
            for (size_t k = 0; k < pol->n_hops; k++) {
                ds_put_format(&a, "%s%"PRIuSIZE, k ? ", " : "", k + 1);
            }
            ds_put_cstr(&a, ");");
            for (size_t k = 0; k < pol->n_hops; k++) {
                ds_clear(&m);
                ds_put_format(&m, "reg8[0..15] == %"PRIu32" && "
                              "reg8[16..31] == %"PRIuSIZE, group, k + 1);
                struct ds b = DS_EMPTY_INITIALIZER;
                put_hop(&b, &pol->hops[k]);
                ds_put_cstr(&b, "next;");
                lflow_add_hint(t, dp, S_LR_IN_POLICY_ECMP, 100, ds_cstr(&m),
                               ds_cstr(&b), hint);
                ds_destroy(&b);
            }
        }
        lflow_add_hint(t, dp, S_LR_IN_POLICY, pol->nb->priority,
                       pol->nb->match, ds_cstr(&a), hint);
    }
    ds_destroy(&a);
    ds_destroy(&m);
}
