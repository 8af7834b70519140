/* NAT on logical routers: parsing the NAT rows and options of a router,
 * and their flows.  See router-nat.h and docs/routers.md. */
#include <config.h>
#include "northd/router-nat.h"

#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "lib/lsp-addresses.h"
#include "lib/nb-rdb.h"
#include "northd/datapaths.h"
#include "northd/lflow.h"
#include "northd/router.h"
#include "northd/router-lb.h"
#include "northd/router-gw.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "smap.h"
#include "sset.h"
#include "svec.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(router_nat);

COVERAGE_DEFINE(lr_nat_built);
COVERAGE_DEFINE(lr_nat_bad_row);

/* One NAT row. */
struct lr_nat {
    const struct nb_nat *nb;
    bool snat;                      /* snat or dnat_and_snat. */
    bool dnat;                      /* dnat or dnat_and_snat. */
    bool v6;
    bool stateless;                 /* dnat_and_snat, options:stateless. */
    bool compiled;                  /* Valid: its stage flows are written
                                     * (else only its ARP/ND responder, as
                                     * stock does for a row whose external
                                     * address parses). */
    unsigned int plen;              /* Of the logical address/network. */
    char ext_s[INET6_ADDRSTRLEN];   /* External address, as it prints. */
    char sn_s[INET6_ADDRSTRLEN];    /* IPv6: its solicited-node address. */
    const char *port_range;         /* external_port_range, or NULL. */
    const char *allowed;            /* Address set names, or NULL. */
    const char *exempted;
    bool distributed;               /* dnat_and_snat with external_mac and
                                     * logical_port on a router with a
                                     * distributed gateway port. */
};

/* A router's NAT (lr_router 'nat'). */
struct lr_nat_set {
    struct lr_nat *nats;            /* Rows whose external address parses,
                                     * by UUID (stock's order). */
    size_t n_nats;
    size_t n_nb;                    /* NB rows, good or bad. */
    bool force_router_ip;           /* lb_force_snat_ip=router_ip. */
    struct svec lb_force;           /* lb_force_snat_ip addresses: the first
                                     * IPv4 and the first IPv6 one. */
    struct svec dnat_force;         /* dnat_force_snat_ip: the same. */
    struct sset snat_ips;           /* External addresses of snat rows,
                                     * and the force-SNAT addresses. */
};

/* Appends "VERB(ADDR);", or "VERB(ADDR,RANGE);" with a port range. */
static void
put_ct_nat(struct ds *a, const char *verb, const char *addr,
           const char *range)
{
    ds_put_format(a, "%s(%s%s%s);", verb, addr, range ? "," : "",
                  range ? range : "");
}

static void OVS_PRINTF_FORMAT(2, 3)
nat_report(struct ls_model *m, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *msg = xvasprintf(format, args);
    va_end(args);
    COVERAGE_INC(lr_nat_bad_row);
    ls_model_report_bad_row(m, msg);
    free(msg);
}

/* Parses address 's' ("10.0.0.1", "fd00::1", or with 'allow_plen' a
 * network "10.0.0.0/24"): IPv4 addresses only as they print, as router.c
 * takes them.  Returns false if it does not parse. */
static bool
parse_addr(const char *s, bool allow_plen, bool *v6, unsigned int *plen,
           char canon[INET6_ADDRSTRLEN])
{
    char *error;
    *v6 = strchr(s, ':') != NULL;
    if (*v6) {
        struct in6_addr ip;
        error = ipv6_parse_cidr(s, &ip, plen);
        if (error) {
            free(error);
            return false;
        }
        *v6 = true;
        ipv6_string_mapped(canon, &ip);
        return allow_plen || !strchr(s, '/');
    }
    ovs_be32 ip;
    error = ip_parse_cidr(s, &ip, plen);
    if (error) {
        free(error);
        return false;
    }
    *v6 = false;
    snprintf(canon, INET6_ADDRSTRLEN, IP_FMT, IP_ARGS(ip));
    size_t len = strcspn(s, "/");
    if (strlen(canon) != len || strncmp(canon, s, len)) {
        return false;
    }
    return allow_plen || !strchr(s, '/');
}

/* "N" or "N-M", 1 <= N <= M <= 65535. */
static bool
port_range_ok(const char *s)
{
    unsigned int lo, hi;
    int n = 0;
    if (ovs_scan(s, "%u-%u%n", &lo, &hi, &n) && !s[n]) {
        return lo >= 1 && lo <= hi && hi <= 65535;
    }
    n = 0;
    return ovs_scan(s, "%u%n", &lo, &n) && !s[n] && lo >= 1 && lo <= 65535;
}

static int
compare_nats(const void *a_, const void *b_)
{
    const struct nb_nat *const *a = a_;
    const struct nb_nat *const *b = b_;
    return uuid_compare_3way(&(*a)->header_.uuid, &(*b)->header_.uuid);
}

/* options:lb_force_snat_ip or dnat_force_snat_ip: "A [B]", the first IPv4
 * and the first IPv6 address. */
static void
parse_force_ips(struct ls_model *m, const struct lr_router *r,
                const char *key, struct svec *out)
{
    const char *s = smap_get(&r->nb->options, key);
    if (!s) {
        return;
    }
    char *copy = xstrdup(s);
    char *save = NULL;
    bool have4 = false, have6 = false;
    for (char *tok = strtok_r(copy, " ", &save); tok;
         tok = strtok_r(NULL, " ", &save)) {
        char canon[INET6_ADDRSTRLEN];
        unsigned int plen;
        bool v6;
        if (!parse_addr(tok, false, &v6, &plen, canon)) {
            nat_report(m, "Logical_Router %s: options:%s: \"%s\" is not "
                       "an IP address: the option is ignored", r->nb->name,
                       key, tok);
            svec_clear(out);
            break;
        }
        if (v6 ? !have6 : !have4) {
            svec_add(out, canon);
            *(v6 ? &have6 : &have4) = true;
        }
    }
    free(copy);
}

/* Whether NB router 'nb' has a port that is a distributed gateway port
 * (router-gw.h), before the model knows. */
static bool
nb_router_has_dgp(const struct nb_logical_router *nb)
{
    for (size_t i = 0; i < nb->n_ports; i++) {
        if (nb->ports[i]->n_gateway_chassis || nb->ports[i]->ha_chassis_group) {
            return true;
        }
    }
    return false;
}

void
lr_nat_parse(struct ls_model *m, struct lr_router *r)
{
    struct lr_nat_set *ns = xzalloc(sizeof *ns);
    svec_init(&ns->lb_force);
    svec_init(&ns->dnat_force);
    sset_init(&ns->snat_ips);
    r->nat = ns;

    const char *lb_force = smap_get(&r->nb->options, "lb_force_snat_ip");
    if (r->chassis && lb_force && !strcmp(lb_force, "router_ip")) {
        ns->force_router_ip = true;
    } else {
        parse_force_ips(m, r, "lb_force_snat_ip", &ns->lb_force);
    }
    parse_force_ips(m, r, "dnat_force_snat_ip", &ns->dnat_force);
    /* The force-SNAT addresses are SNAT addresses too (stock). */
    for (size_t i = 0; i < ns->lb_force.n; i++) {
        sset_add(&ns->snat_ips, ns->lb_force.names[i]);
    }
    for (size_t i = 0; i < ns->dnat_force.n; i++) {
        sset_add(&ns->snat_ips, ns->dnat_force.names[i]);
    }

    size_t n = r->nb->n_nat;
    ns->n_nb = n;
    if (!n) {
        return;
    }
    const struct nb_nat **rows = xmemdup(r->nb->nat, n * sizeof *rows);
    qsort(rows, n, sizeof *rows, compare_nats);
    ns->nats = xcalloc(n, sizeof *ns->nats);
    bool dgp = !r->chassis && nb_router_has_dgp(r->nb);
    bool gw = r->chassis != NULL || dgp;
    for (size_t i = 0; i < n; i++) {
        const struct nb_nat *nb = rows[i];
        struct lr_nat *nat = &ns->nats[ns->n_nats];
        memset(nat, 0, sizeof *nat);
        nat->nb = nb;
        nat->snat = !strcmp(nb->type, "snat")
                    || !strcmp(nb->type, "dnat_and_snat");
        nat->dnat = !strcmp(nb->type, "dnat")
                    || !strcmp(nb->type, "dnat_and_snat");
        unsigned int plen;
        if (!parse_addr(nb->external_ip, false, &nat->v6, &plen,
                        nat->ext_s)) {
            nat_report(m, "NAT "UUID_FMT" (router %s): bad external_ip "
                       "\"%s\": the row is left out",
                       UUID_ARGS(&nb->header_.uuid), r->nb->name,
                       nb->external_ip);
            continue;
        }
        if (nat->v6) {
            struct in6_addr ip, sn;
            ipv6_parse(nat->ext_s, &ip);
            in6_addr_solicited_node(&sn, &ip);
            ipv6_string_mapped(nat->sn_s, &sn);
        }
        ns->n_nats++;
        COVERAGE_INC(lr_nat_built);
        if (!strcmp(nb->type, "snat")) {
            sset_add(&ns->snat_ips, nat->ext_s);
        }

        bool lv6 = nat->v6;
        char lcanon[INET6_ADDRSTRLEN];
        if (!nat->snat && !nat->dnat) {
            nat_report(m, "NAT "UUID_FMT" (router %s): unknown type \"%s\"",
                       UUID_ARGS(&nb->header_.uuid), r->nb->name, nb->type);
            continue;
        }
        if (!parse_addr(nb->logical_ip, !nat->dnat, &lv6, &nat->plen,
                        lcanon) || lv6 != nat->v6) {
            nat_report(m, "NAT "UUID_FMT" (router %s): bad logical_ip \"%s\" "
                       "for %s%s: only its external address's ARP/ND "
                       "responder is compiled",
                       UUID_ARGS(&nb->header_.uuid), r->nb->name,
                       nb->logical_ip, nb->type,
                       lv6 != nat->v6 ? " (not the external address's "
                       "family)" : "");
            continue;
        }
        if (nb->allowed_ext_ips && nb->exempted_ext_ips) {
            nat_report(m, "NAT "UUID_FMT" (router %s): both allowed_ext_ips "
                       "and exempted_ext_ips are set: not applied, as "
                       "stock", UUID_ARGS(&nb->header_.uuid), r->nb->name);
            continue;
        }
        if (nb->external_port_range[0]) {
            if (port_range_ok(nb->external_port_range)) {
                nat->port_range = nb->external_port_range;
            } else {
                nat_report(m, "NAT "UUID_FMT" (router %s): bad "
                           "external_port_range \"%s\": ignored",
                           UUID_ARGS(&nb->header_.uuid), r->nb->name,
                           nb->external_port_range);
            }
        }
        if (nat->snat && nat->dnat
            && (nb->external_mac || nb->logical_port)) {
            /* Distributed NAT (a distributed gateway port's) needs both;
             * here, as on a gateway router, the row is centralized. */
            struct eth_addr mac;
            if (nb->external_mac && !eth_addr_from_string(nb->external_mac,
                                                          &mac)) {
                nat_report(m, "NAT "UUID_FMT" (router %s): bad external_mac "
                           "\"%s\": ignored", UUID_ARGS(&nb->header_.uuid),
                           r->nb->name, nb->external_mac);
            } else if (!nb->logical_port || !nb->external_mac) {
                nat_report(m, "NAT "UUID_FMT" (router %s): %s without %s: "
                           "not distributed", UUID_ARGS(&nb->header_.uuid),
                           r->nb->name,
                           nb->external_mac ? "external_mac" : "logical_port",
                           nb->external_mac ? "logical_port" : "external_mac");
            } else {
                if (!ls_model_find_port(m, nb->logical_port)) {
                    nat_report(m, "NAT "UUID_FMT" (router %s): logical_port "
                               "%s is no switch port",
                               UUID_ARGS(&nb->header_.uuid), r->nb->name,
                               nb->logical_port);
                }
                nat->distributed = dgp;
            }
        }
        if (dgp && nat->snat && nat->dnat
            && smap_get_bool(&nb->options, "stateless", false)
            && (nb->allowed_ext_ips || nb->exempted_ext_ips)) {
            nat_report(m, "NAT "UUID_FMT" (router %s): options:stateless "
                       "with %s on a router with a distributed gateway "
                       "port is not compiled: only the ARP/ND responder "
                       "for %s is", UUID_ARGS(&nb->header_.uuid),
                       r->nb->name, (nb->allowed_ext_ips ? "allowed_ext_ips"
                                     : "exempted_ext_ips"), nat->ext_s);
            nat->distributed = false;
            continue;
        }
        nat->allowed = nb->allowed_ext_ips ? nb->allowed_ext_ips->name : NULL;
        nat->exempted = (nb->exempted_ext_ips ? nb->exempted_ext_ips->name
                         : NULL);
        nat->stateless = (nat->snat && nat->dnat
                          && smap_get_bool(&nb->options, "stateless", false));
        nat->compiled = true;
        if (!gw) {
            nat_report(m, "NAT "UUID_FMT" (router %s): the router is not a "
                       "gateway router (options:chassis) and has no "
                       "distributed gateway port: only the ARP/ND responder "
                       "for %s is compiled, as stock does",
                       UUID_ARGS(&nb->header_.uuid), r->nb->name,
                       nat->ext_s);
        }
    }
    free(rows);
}

void
lr_nat_destroy(struct lr_router *r)
{
    struct lr_nat_set *ns = r->nat;
    if (!ns) {
        return;
    }
    free(ns->nats);
    svec_destroy(&ns->lb_force);
    svec_destroy(&ns->dnat_force);
    sset_destroy(&ns->snat_ips);
    free(ns);
    r->nat = NULL;
}

bool
lr_nat_force_snat_router_ip(const struct lr_router *r)
{
    return r->nat && r->nat->force_router_ip;
}

bool
lr_nat_is_snat_ip(const struct lr_router *r, const char *addr)
{
    return r->nat && sset_contains(&r->nat->snat_ips, addr);
}

bool
lr_nat_uses_address_set(const struct lr_model *lr,
                        const struct nb_address_set *as)
{
    for (size_t i = 0; lr && i < lr->n_routers; i++) {
        const struct lr_nat_set *ns = lr->routers[i].nat;
        for (size_t j = 0; ns && j < ns->n_nats; j++) {
            const struct nb_nat *nb = ns->nats[j].nb;
            if ((nb->allowed_ext_ips
                 && uuid_equals(&nb->allowed_ext_ips->header_.uuid,
                                &as->header_.uuid))
                || (nb->exempted_ext_ips
                    && uuid_equals(&nb->exempted_ext_ips->header_.uuid,
                                   &as->header_.uuid))) {
                return true;
            }
        }
    }
    return false;
}

/* ARP/ND. */

void
lr_nat_build_arp_nd(struct lflow_table *t, const struct lr_router *r,
                    struct ds *m)
{
    const struct lr_nat_set *ns = r->nat;
    for (size_t i = 0; ns && i < ns->n_nats; i++) {
        const struct lr_nat *nat = &ns->nats[i];
        const struct uuid *hint = &nat->nb->header_.uuid;
        ds_clear(m);
        if (!nat->v6) {
            ds_put_format(m, "arp.op == 1 && arp.tpa == %s", nat->ext_s);
            lflow_add_hint(t, r->dp, S_LR_IN_IP_INPUT, 90, ds_cstr(m),
                           "eth.dst = eth.src; eth.src = xreg0[0..47]; "
                           "arp.op = 2; /* ARP reply */ arp.tha = arp.sha; "
                           "arp.sha = xreg0[0..47]; arp.tpa <-> arp.spa; "
                           "outport = inport; flags.loopback = 1; output;",
                           hint);
        } else {
            ds_put_format(m, "ip6.dst == {%s, %s} && nd_ns && "
                          "nd.target == %s", nat->ext_s, nat->sn_s,
                          nat->ext_s);
            lflow_add_hint(t, r->dp, S_LR_IN_IP_INPUT, 90, ds_cstr(m),
                           "nd_na { eth.src = xreg0[0..47]; "
                           "ip6.src = nd.target; nd.tll = xreg0[0..47]; "
                           "outport = inport; flags.loopback = 1; "
                           "output; };", hint);
        }
    }
}

void
lr_nat_for_each_dnat_ip(const struct lr_router *r,
                        void (*cb)(const char *addr, bool v6, void *aux),
                        void *aux)
{
    const struct lr_nat_set *ns = r->nat;
    for (size_t i = 0; ns && i < ns->n_nats; i++) {
        const struct lr_nat *nat = &ns->nats[i];
        if (nat->dnat) {
            cb(nat->ext_s, nat->v6, aux);
        }
    }
}

/* Stages. */

static void build_dgp_nats(struct lflow_table *, const struct lr_router *);
static const struct lr_port *nat_dgp(const struct lr_router *,
                                     const struct lr_nat *);

/* options:lb_force_snat_ip and dnat_force_snat_ip: connections DNATed
 * (or load balanced) by the router leave SNATed to the address. */
static void
build_force_snat(struct lflow_table *t, const struct lr_router *r,
                 const struct svec *ips, const char *flag, struct ds *m,
                 struct ds *a)
{
    for (size_t i = 0; i < ips->n; i++) {
        const char *ip = ips->names[i];
        const char *fam = strchr(ip, ':') ? "ip6" : "ip4";
        ds_clear(m);
        ds_put_format(m, "%s && %s.dst == %s", fam, fam, ip);
        lflow_add(t, r->dp, S_LR_IN_UNSNAT, 110, ds_cstr(m), "ct_snat;");
        ds_clear(m);
        ds_put_format(m, "flags.force_snat_for_%s == 1 && %s", flag, fam);
        ds_clear(a);
        ds_put_format(a, "ct_snat(%s);", ip);
        lflow_add(t, r->dp, S_LR_OUT_SNAT, 100, ds_cstr(m), ds_cstr(a));
    }
}

/* lb_force_snat_ip=router_ip: each port's first address of each family
 * (of a port wired to a switch). */
static void
build_force_snat_router_ip(struct lflow_table *t, const struct lr_router *r,
                           struct ds *m, struct ds *a)
{
    for (size_t i = 0; i < r->n_ports; i++) {
        const struct lr_port *p = r->ports[i];
        if (!p->peer) {
            continue;
        }
        const struct uuid *hint = &p->nb->header_.uuid;
        for (int v6 = 0; v6 < 2; v6++) {
            /* The link-local address, always the last IPv6 one, does not
             * count. */
            if (v6 ? p->n_ip6 < 2 : !p->n_ip4) {
                continue;
            }
            const char *ip = v6 ? p->ip6[0].addr_s : p->ip4[0].addr_s;
            const char *fam = v6 ? "ip6" : "ip4";
            ds_clear(m);
            ds_put_format(m, "inport == %s && %s.dst == %s", p->qname, fam,
                          ip);
            lflow_add_hint(t, r->dp, S_LR_IN_UNSNAT, 110, ds_cstr(m),
                           "ct_snat;", hint);
            ds_clear(m);
            ds_put_format(m, "flags.force_snat_for_lb == 1 && %s && "
                          "outport == %s", fam, p->qname);
            ds_clear(a);
            ds_put_format(a, "ct_snat(%s);", ip);
            lflow_add_hint(t, r->dp, S_LR_OUT_SNAT, 110, ds_cstr(m),
                           ds_cstr(a), hint);
        }
    }
}

/* One NAT row of a gateway router. */
static void
build_gw_nat(struct lflow_table *t, const struct lr_router *r,
             const struct lr_nat *nat, bool force_dnat, struct ds *m,
             struct ds *a)
{
    const struct ls_datapath *dp = r->dp;
    const struct uuid *hint = &nat->nb->header_.uuid;
    const char *fam = nat->v6 ? "ip6" : "ip4";
    const char *ext = nat->nb->external_ip;
    const char *log = nat->nb->logical_ip;

    if (nat->snat) {
        /* Replies to SNATed connections come back to the external
         * address. */
        ds_clear(m);
        ds_put_format(m, "ip && %s.dst == %s", fam, ext);
        lflow_add_hint(t, dp, S_LR_IN_UNSNAT, 90, ds_cstr(m),
                       nat->stateless ? "next;" : "ct_snat;", hint);
    }
    if (nat->dnat) {
        if (nat->exempted) {
            ds_clear(m);
            ds_put_format(m, "ip && %s.dst == %s && %s.src == $%s", fam,
                          ext, fam, nat->exempted);
            lflow_add_hint(t, dp, S_LR_IN_DNAT, 102, ds_cstr(m), "next;",
                           hint);
        }
        ds_clear(m);
        ds_put_format(m, "ip && %s.dst == %s", fam, ext);
        if (nat->allowed) {
            ds_put_format(m, " && %s.src == $%s", fam, nat->allowed);
        }
        ds_clear(a);
        if (force_dnat) {
            ds_put_cstr(a, "flags.force_snat_for_dnat = 1; ");
        }
        ds_put_cstr(a, "flags.loopback = 1; ");
        if (nat->stateless) {
            ds_put_format(a, "%s.dst=%s; next;", fam, log);
        } else {
            put_ct_nat(a, "ct_dnat", log, nat->port_range);
        }
        lflow_add_hint(t, dp, S_LR_IN_DNAT, 100, ds_cstr(m), ds_cstr(a),
                       hint);
    }
    if (nat->snat) {
        /* Longer logical prefixes first. */
        uint16_t prio = nat->plen + 1;
        if (nat->exempted) {
            ds_clear(m);
            ds_put_format(m, "ip && %s.src == %s && %s.dst == $%s", fam,
                          log, fam, nat->exempted);
            lflow_add_hint(t, dp, S_LR_OUT_SNAT, prio + 2, ds_cstr(m),
                           "next;", hint);
        }
        ds_clear(m);
        ds_put_format(m, "ip && %s.src == %s", fam, log);
        if (nat->allowed) {
            ds_put_format(m, " && %s.dst == $%s", fam, nat->allowed);
        }
        ds_clear(a);
        if (nat->stateless) {
            ds_put_format(a, "%s.src=%s; next;", fam, ext);
        } else {
            ds_put_cstr(m, " && (!ct.trk || !ct.rpl)");
            put_ct_nat(a, "ct_snat", ext, nat->port_range);
        }
        lflow_add_hint(t, dp, S_LR_OUT_SNAT, prio, ds_cstr(m), ds_cstr(a),
                       hint);
    }
}

void
lr_nat_build_lflows(struct lflow_table *t, const struct lr_router *r)
{
    const struct ls_datapath *dp = r->dp;
    static const enum ls_stage pass[] = {
        S_LR_IN_UNSNAT, S_LR_IN_DEFRAG, S_LR_IN_DNAT, S_LR_OUT_UNDNAT,
        S_LR_OUT_POST_UNDNAT, S_LR_OUT_SNAT, S_LR_OUT_POST_SNAT,
        S_LR_OUT_EGR_LOOP,
    };
    for (size_t i = 0; i < ARRAY_SIZE(pass); i++) {
        lflow_add(t, dp, pass[i], 0, "1", "next;");
    }
    lflow_add(t, dp, S_LR_OUT_CHK_DNAT_LOCAL, 0, "1", "reg9[4] = 0; next;");

    const struct lr_nat_set *ns = r->nat;
    if (!r->chassis && r->n_dgps) {
        build_dgp_nats(t, r);
        return;
    }
    if (!r->chassis || !ns) {
        /* Neither a gateway router nor one with a distributed gateway
         * port: stock 23.03 compiles no NAT stage. */
        return;
    }

    struct ds m = DS_EMPTY_INITIALIZER;
    struct ds a = DS_EMPTY_INITIALIZER;
    build_force_snat(t, r, &ns->dnat_force, "dnat", &m, &a);
    build_force_snat(t, r, &ns->lb_force, "lb", &m, &a);
    if (ns->force_router_ip) {
        build_force_snat_router_ip(t, r, &m, &a);
    }

    bool force_dnat = ns->dnat_force.n > 0;
    for (size_t i = 0; i < ns->n_nats; i++) {
        if (ns->nats[i].compiled) {
            build_gw_nat(t, r, &ns->nats[i], force_dnat, &m, &a);
        }
    }

    if (ns->n_nb) {
        /* Every packet of a gateway router with NAT goes through the DNAT
         * zone on its way out, to be unDNATed, and new connections are
         * committed there. */
        lflow_add(t, dp, S_LR_OUT_CHK_DNAT_LOCAL, 50,
                  "ip && ct_mark.natted == 1", "reg9[4] = 1; next;");
        lr_nat_build_gw_undnat(t, dp);
    }
    ds_destroy(&m);
    ds_destroy(&a);
}

void
lr_nat_build_gw_undnat(struct lflow_table *t, const struct ls_datapath *dp)
{
    lflow_add(t, dp, S_LR_OUT_UNDNAT, 100, "nd || nd_rs || nd_ra", "next;");
    lflow_add(t, dp, S_LR_OUT_UNDNAT, 50, "ip",
              "flags.loopback = 1; ct_dnat;");
    lflow_add(t, dp, S_LR_OUT_POST_UNDNAT, 50, "ip && ct.new",
              "ct_commit { } ; next; ");
}

/* Port_Binding.nat_addresses. */

void
lr_nat_addresses(const struct lr_port *p, const struct smap *lsp_options,
                 bool localnet, struct svec *out)
{
    const struct lr_router *r = p->router;
    const char *opt = smap_get(lsp_options, "nat-addresses");
    bool dgp = !r->chassis && r->n_dgps;
    if (!r->chassis && !dgp) {
        return;
    }
    if (opt && !strcmp(opt, "router")) {
        /* One entry for the router's NAT addresses but the port's own
         * (which another entry has: the one below, or lr_gw_port_garp()'s),
         * as many times as rows name them, as stock writes it.  With
         * distributed gateway ports: the compiled rows only, with several
         * gateway ports those of 'p' only, a floating IP an entry of its
         * own where its VIF is, the entry on the gateway chassis if 'p' is
         * a gateway port. */
        struct ds s = DS_EMPTY_INITIALIZER;
        ds_put_cstr(&s, p->mac_s);
        bool any = false;
        const struct lr_nat_set *ns = r->nat;
        for (size_t i = 0; ns && i < ns->n_nats; i++) {
            const struct lr_nat *nat = &ns->nats[i];
            if (nat->v6 || (dgp && !nat->compiled)) {
                continue;
            }
            if (dgp) {
                const struct lr_port *gp = nat_dgp(r, nat);
                if (!gp || (r->n_dgps > 1 && gp != p)) {
                    continue;
                }
                if (nat->distributed) {
                    char *e = xasprintf("%s %s is_chassis_resident(\"%s\")",
                                        nat->nb->external_mac, nat->ext_s,
                                        nat->nb->logical_port);
                    svec_add_nocopy(out, e);
                    continue;
                }
            }
            bool own = false;
            for (size_t j = 0; j < p->n_ip4; j++) {
                if (!strcmp(p->ip4[j].addr_s, nat->ext_s)) {
                    own = true;
                    break;
                }
            }
            if (!own) {
                ds_put_format(&s, " %s", nat->ext_s);
                any = true;
            }
        }
        if (!smap_get_bool(lsp_options, "exclude-lb-vips-from-garp",
                           false)) {
            /* And its load balancers' VIPs (router-lb.c). */
            any = lr_lb_put_vips(r, &s) || any;
        }
        if (any) {
            if (dgp && p->dgp) {
                ds_put_format(&s, " is_chassis_resident(%s)",
                              p->dgp->cr_qname);
            }
            svec_add(out, ds_cstr(&s));
        }
        ds_destroy(&s);
    } else if (opt) {
        /* "MAC IP...", as it is, if it parses. */
        enum lsp_addr_kind kind;
        struct lsp_addresses la;
        char *error = lsp_addresses_parse(opt, &kind, &la);
        if (!error) {
            if (kind == LSP_ADDR_MAC_IPS) {
                if (dgp) {
                    svec_add_nocopy(out, xasprintf(
                                        "%s is_chassis_resident(%s)", opt,
                                        r->dgp0->dgp->cr_qname));
                } else {
                    svec_add(out, opt);
                }
                lsp_addresses_destroy(&la);
            }
        }
        free(error);
    }
    if (localnet && !dgp) {
        /* The router port's own addresses, for gratuitous ARPs (with
         * distributed gateway ports: lr_gw_port_garp()). */
        struct ds s = DS_EMPTY_INITIALIZER;
        ds_put_cstr(&s, p->mac_s);
        for (size_t i = 0; i < p->n_ip4; i++) {
            ds_put_format(&s, " %s", p->ip4[i].addr_s);
        }
        svec_add(out, ds_cstr(&s));
        ds_destroy(&s);
    }
    svec_sort_unique(out);
}

/* Distributed gateway ports. */

/* The distributed gateway port NAT row 'nat' of 'r' applies to: the one
 * its gateway_port names, else the router's only one; NULL if none. */
static const struct lr_port *
nat_dgp(const struct lr_router *r, const struct lr_nat *nat)
{
    const struct nb_logical_router_port *gp = nat->nb->gateway_port;
    if (gp) {
        for (size_t i = 0; i < r->n_ports; i++) {
            if (r->ports[i]->nb == gp) {
                return r->ports[i]->dgp ? r->ports[i] : NULL;
            }
        }
        return NULL;
    }
    if (r->n_dgps == 1) {
        return r->dgp0;
    }
    /* Several: the first (in NB order) with a network that has the
     * external address, as stock. */
    for (size_t j = 0; j < r->nb->n_ports; j++) {
        for (size_t i = 0; i < r->n_ports; i++) {
            const struct lr_port *p = r->ports[i];
            if (p->nb != r->nb->ports[j] || !p->dgp) {
                continue;
            }
            if (nat->v6) {
                struct in6_addr ip;
                ipv6_parse(nat->ext_s, &ip);
                for (size_t k = 0; k < p->n_ip6; k++) {
                    struct in6_addr mask = ipv6_create_mask(p->ip6[k].plen);
                    struct in6_addr net = ipv6_addr_bitand(&ip, &mask);
                    if (ipv6_addr_equals(&net, &p->ip6[k].network)) {
                        return p;
                    }
                }
            } else {
                ovs_be32 ip;
                ip_parse(nat->ext_s, &ip);
                for (size_t k = 0; k < p->n_ip4; k++) {
                    if ((ip & be32_prefix_mask(p->ip4[k].plen))
                        == p->ip4[k].network) {
                        return p;
                    }
                }
            }
        }
    }
    return NULL;
}

void
lr_nat_check_dgps(struct ls_model *m, const struct lr_router *r)
{
    const struct lr_nat_set *ns = r->nat;
    for (size_t i = 0; r->n_dgps && ns && i < ns->n_nats; i++) {
        const struct lr_nat *nat = &ns->nats[i];
        if (nat->compiled && !nat_dgp(r, nat)) {
            nat_report(m, "NAT "UUID_FMT" (router %s): %s: only the ARP/ND "
                       "responder for %s is compiled, as stock",
                       UUID_ARGS(&nat->nb->header_.uuid), r->nb->name,
                       nat->nb->gateway_port
                       ? "gateway_port is not a distributed gateway port of "
                         "the router"
                       : "no distributed gateway port of the router has a "
                         "network with its external address",
                       nat->ext_s);
        }
    }
}

bool
lr_nat_has_distributed(const struct lr_router *r)
{
    const struct lr_nat_set *ns = r->nat;
    for (size_t i = 0; ns && i < ns->n_nats; i++) {
        if (ns->nats[i].compiled && ns->nats[i].distributed
            && nat_dgp(r, &ns->nats[i])) {
            return true;
        }
    }
    return false;
}

void
lr_nat_put_eth_srcs(const struct lr_router *r, struct sset *macs)
{
    const struct lr_nat_set *ns = r->nat;
    for (size_t i = 0; ns && i < ns->n_nats; i++) {
        const struct lr_nat *nat = &ns->nats[i];
        if (nat->compiled && nat->dnat && nat->nb->external_mac) {
            sset_add(macs, nat->nb->external_mac);
        }
    }
}

void
lr_nat_build_peer_lflows(struct lflow_table *t, const struct ls_port *sp,
                         const struct lr_port *p, const char *qname)
{
    const struct lr_router *r = p->router;
    const struct lr_nat_set *ns = r->nat;
    struct ds m = DS_EMPTY_INITIALIZER;
    struct ds a = DS_EMPTY_INITIALIZER;
    for (size_t i = 0; p->dgp && ns && i < ns->n_nats; i++) {
        const struct lr_nat *nat = &ns->nats[i];
        if (!nat->compiled || !nat->distributed) {
            continue;
        }
        /* A floating IP's MAC is where its VIF is. */
        ds_clear(&m);
        ds_put_format(&m, "eth.dst == %s && is_chassis_resident(\"%s\")",
                      nat->nb->external_mac, nat->nb->logical_port);
        ds_clear(&a);
        ds_put_format(&a, "outport = %s; output;", qname);
        lflow_add_hint(t, sp->dp, S_IN_L2_LKUP, 50, ds_cstr(&m), ds_cstr(&a),
                       &nat->nb->header_.uuid);
    }
    ds_destroy(&m);
    ds_destroy(&a);
}

/* "is_chassis_resident(...)" of NAT row 'nat' on gateway port 'gp': the
 * floating IP's VIF for a distributed row, else the chassisredirect
 * port. */
static void
put_resident(struct ds *s, const struct lr_port *gp, const struct lr_nat *nat)
{
    if (nat->distributed) {
        ds_put_format(s, "is_chassis_resident(\"%s\")",
                      nat->nb->logical_port);
    } else {
        ds_put_format(s, "is_chassis_resident(%s)", gp->dgp->cr_qname);
    }
}

/* One NAT row on distributed gateway port 'gp'. */
static void
build_dgp_nat(struct lflow_table *t, const struct lr_router *r,
              const struct lr_port *gp, const struct lr_nat *nat,
              struct ds *m, struct ds *a)
{
    const struct ls_datapath *dp = r->dp;
    const struct uuid *hint = &nat->nb->header_.uuid;
    const char *fam = nat->v6 ? "ip6" : "ip4";
    const char *ext = nat->nb->external_ip;
    const char *log = nat->nb->logical_ip;
    const char *gpn = gp->qname;
    const char *mac = nat->distributed ? nat->nb->external_mac : NULL;

    if (nat->snat) {
        /* Replies to SNATed connections, on the gateway chassis (a
         * floating IP's: where its VIF is); a stateless row's pass, and
         * have no loopback flow. */
        for (int lb = 0; lb < (nat->stateless ? 1 : 2); lb++) {
            ds_clear(m);
            ds_put_format(m, "ip && %s.dst == %s && inport == %s && ", fam,
                          ext, gpn);
            ds_put_cstr(m, lb ? "flags.loopback == 1 && "
                        "flags.use_snat_zone == 1" : "flags.loopback == 0");
            if (!nat->distributed) {
                ds_put_cstr(m, " && ");
                put_resident(m, gp, nat);
            }
            lflow_add_hint(t, dp, S_LR_IN_UNSNAT, 100, ds_cstr(m),
                           (nat->stateless ? "next;"
                            : lb ? "ct_snat;" : "ct_snat_in_czone;"), hint);
        }
    }
    if (nat->dnat) {
        ds_clear(m);
        ds_put_format(m, "ip && %s.dst == %s && inport == %s", fam, ext,
                      gpn);
        if (!nat->distributed) {
            ds_put_cstr(m, " && ");
            put_resident(m, gp, nat);
        }
        if (nat->exempted) {
            /* Connections from the exempted sources are not DNATed. */
            size_t len = m->length;
            ds_put_format(m, " && %s.src == $%s", fam, nat->exempted);
            lflow_add_hint(t, dp, S_LR_IN_DNAT, 102, ds_cstr(m), "next;",
                           hint);
            ds_truncate(m, len);
        }
        if (nat->allowed) {
            ds_put_format(m, " && %s.src == $%s", fam, nat->allowed);
        }
        ds_clear(a);
        if (nat->stateless) {
            ds_put_format(a, "%s.dst=%s; next;", fam, log);
        } else {
            put_ct_nat(a, "ct_dnat_in_czone", log, nat->port_range);
        }
        lflow_add_hint(t, dp, S_LR_IN_DNAT, 100, ds_cstr(m), ds_cstr(a),
                       hint);

        /* Replies unDNATed on their way out. */
        ds_clear(m);
        ds_put_format(m, "ip && %s.src == %s && outport == %s", fam, log,
                      gpn);
        if (!nat->distributed) {
            ds_put_cstr(m, " && ");
            put_resident(m, gp, nat);
        }
        ds_clear(a);
        if (mac) {
            ds_put_format(a, "eth.src = %s; ", mac);
        }
        ds_put_cstr(a, nat->stateless ? "next;" : "ct_dnat_in_czone;");
        lflow_add_hint(t, dp, S_LR_OUT_UNDNAT, 100, ds_cstr(m), ds_cstr(a),
                       hint);
    }
    if (nat->snat) {
        uint16_t prio = nat->plen + 1 + 128;
        ds_clear(m);
        ds_put_format(m, "ip && %s.src == %s && outport == %s && ", fam, log,
                      gpn);
        put_resident(m, gp, nat);
        if (nat->exempted) {
            /* Connections to the exempted destinations are not SNATed. */
            size_t len = m->length;
            ds_put_format(m, " && %s.dst == $%s", fam, nat->exempted);
            lflow_add_hint(t, dp, S_LR_OUT_SNAT, prio + 2, ds_cstr(m),
                           "next;", hint);
            ds_truncate(m, len);
        }
        if (nat->allowed) {
            ds_put_format(m, " && %s.dst == $%s", fam, nat->allowed);
        }
        ds_clear(a);
        if (mac) {
            ds_put_format(a, "eth.src = %s; ", mac);
        }
        if (nat->stateless) {
            ds_put_format(a, "%s.src=%s; next;", fam, ext);
        } else {
            put_ct_nat(a, "ct_snat_in_czone", ext, nat->port_range);
        }
        lflow_add_hint(t, dp, S_LR_OUT_SNAT, prio, ds_cstr(m), ds_cstr(a),
                       hint);
        if (!nat->stateless) {
            ds_put_cstr(m, " && reg9[4] == 1");
            ds_clear(a);
            if (mac) {
                ds_put_format(a, "eth.src = %s; ", mac);
            }
            ds_put_cstr(a, "reg9[4] = 0; ");
            put_ct_nat(a, "ct_snat", ext, nat->port_range);
            lflow_add_hint(t, dp, S_LR_OUT_SNAT, prio + 1, ds_cstr(m),
                           ds_cstr(a), hint);
        }
    }

    /* Traffic to the external address from the router itself (hairpin):
     * back into the ingress pipeline. */
    ds_clear(m);
    ds_put_format(m, "ip && %s.dst == %s && ", fam, ext);
    put_resident(m, gp, nat);
    lflow_add_hint(t, dp, S_LR_OUT_CHK_DNAT_LOCAL, 50, ds_cstr(m),
                   "reg9[4] = 1; next;", hint);
    ds_clear(m);
    ds_put_format(m, "%s.dst == %s && outport == %s && ", fam, ext, gpn);
    put_resident(m, gp, nat);
    lflow_add_hint(t, dp, S_LR_OUT_EGR_LOOP, 100, ds_cstr(m),
                   "clone { ct_clear; inport = outport; outport = \"\"; "
                   "eth.dst <-> eth.src; flags = 0; flags.loopback = 1; "
                   "flags.use_snat_zone = reg9[4]; reg0 = 0; reg1 = 0; "
                   "reg2 = 0; reg3 = 0; reg4 = 0; reg5 = 0; reg6 = 0; "
                   "reg7 = 0; reg8 = 0; reg9 = 0; reg9[0] = 1; "
                   "next(pipeline=ingress, table=0); };", hint);

    /* The external address resolves to the port's MAC (a floating IP's:
     * its own); traffic from the outside back out: dropped. */
    const char *reg = nat->v6 ? "xxreg0" : "reg0";
    ds_clear(m);
    ds_put_format(m, "outport == %s && %s == %s", gpn, reg, ext);
    ds_clear(a);
    ds_put_format(a, "eth.dst = %s; next;", mac ? mac : gp->mac_s);
    lflow_add_hint(t, dp, S_LR_IN_ARP_RESOLVE, 100, ds_cstr(m), ds_cstr(a),
                   hint);
    ds_clear(m);
    ds_put_format(m, "inport == %s && outport == %s && %s.dst == %s", gpn,
                  gpn, fam, ext);
    lflow_add_hint(t, dp, S_LR_IN_ARP_RESOLVE, 150, ds_cstr(m), "drop;",
                   hint);

    /* ARP for the external address on the gateway port: answered where
     * the address lives, dropped elsewhere. */
    if (!nat->v6) {
        ds_clear(m);
        ds_put_format(m, "inport == %s && arp.op == 1 && arp.tpa == %s", gpn,
                      ext);
        lflow_add_hint(t, dp, S_LR_IN_IP_INPUT, 91, ds_cstr(m), "drop;",
                       hint);
        ds_put_cstr(m, " && ");
        put_resident(m, gp, nat);
        ds_clear(a);
        const char *src = mac ? mac : "xreg0[0..47]";
        ds_put_format(a, "eth.dst = eth.src; eth.src = %s; arp.op = 2; "
                      "/* ARP reply */ arp.tha = arp.sha; arp.sha = %s; "
                      "arp.tpa <-> arp.spa; outport = inport; "
                      "flags.loopback = 1; output;", src, src);
        lflow_add_hint(t, dp, S_LR_IN_IP_INPUT, 92, ds_cstr(m), ds_cstr(a),
                       hint);
    } else {
        ds_clear(m);
        ds_put_format(m, "inport == %s && ip6.dst == {%s, %s} && nd_ns && "
                      "nd.target == %s", gpn, nat->ext_s, nat->sn_s,
                      nat->ext_s);
        lflow_add_hint(t, dp, S_LR_IN_IP_INPUT, 91, ds_cstr(m), "drop;",
                       hint);
        ds_put_cstr(m, " && ");
        put_resident(m, gp, nat);
        ds_clear(a);
        const char *src = mac ? mac : "xreg0[0..47]";
        ds_put_format(a, "nd_na { eth.src = %s; ip6.src = nd.target; "
                      "nd.tll = %s; outport = inport; flags.loopback = 1; "
                      "output; };", src, src);
        lflow_add_hint(t, dp, S_LR_IN_IP_INPUT, 92, ds_cstr(m), ds_cstr(a),
                       hint);
    }

    if (nat->snat && !nat->dnat) {
        /* Traffic from an SNAT address on the gateway port (hairpinned
         * back in by lr_out_egr_loop) is not a martian. */
        ds_clear(m);
        ds_put_format(m, "inport == %s && %s.src == %s", gpn, fam, ext);
        lflow_add_hint(t, dp, S_LR_IN_IP_INPUT, 120, ds_cstr(m), "next;",
                       hint);
    }

    if (nat->distributed) {
        /* The floating IP's MAC is the router's where its VIF is; its
         * traffic leaves from there, not through the gateway chassis. */
        ds_clear(m);
        ds_put_format(m, "eth.dst == %s && inport == %s && "
                      "is_chassis_resident(\"%s\")", mac, gpn,
                      nat->nb->logical_port);
        ds_clear(a);
        ds_put_format(a, "xreg0[0..47] = %s; next;", gp->mac_s);
        lflow_add_hint(t, dp, S_LR_IN_ADMISSION, 50, ds_cstr(m), ds_cstr(a),
                       hint);
        ds_clear(m);
        ds_put_format(m, "%s.src == %s && outport == %s && "
                      "is_chassis_resident(\"%s\")", fam, log, gpn,
                      nat->nb->logical_port);
        ds_clear(a);
        ds_put_format(a, "eth.src = %s; %s = %s; next;", mac,
                      nat->v6 ? "xxreg1" : "reg1", ext);
        lflow_add_hint(t, dp, S_LR_IN_GW_REDIRECT, 100, ds_cstr(m),
                       ds_cstr(a), hint);
    }
}

static void
build_dgp_nats(struct lflow_table *t, const struct lr_router *r)
{
    const struct lr_nat_set *ns = r->nat;
    struct ds m = DS_EMPTY_INITIALIZER;
    struct ds a = DS_EMPTY_INITIALIZER;
    bool any = false;
    for (size_t i = 0; ns && i < ns->n_nats; i++) {
        const struct lr_nat *nat = &ns->nats[i];
        const struct lr_port *gp = nat->compiled ? nat_dgp(r, nat) : NULL;
        if (gp) {
            build_dgp_nat(t, r, gp, nat, &m, &a);
            any = true;
        }
    }
    if (any) {
        lflow_add(t, r->dp, S_LR_OUT_CHK_DNAT_LOCAL, 50,
                  (r->ct_mark_natted ? "ip && ct_mark.natted == 1"
                   : "ip && ct_label.natted == 1"), "reg9[4] = 1; next;");
    }
    /* Traffic from a gateway port's own address that is an SNAT address
     * (hairpinned back in by lr_out_egr_loop) is not a martian. */
    for (size_t i = 0; any && i < r->n_ports; i++) {
        const struct lr_port *p = r->ports[i];
        for (size_t j = 0; p->dgp && j < p->n_ip4; j++) {
            if (lr_nat_is_snat_ip(r, p->ip4[j].addr_s)) {
                ds_clear(&m);
                ds_put_format(&m, "inport == %s && ip4.src == %s", p->qname,
                              p->ip4[j].addr_s);
                lflow_add_hint(t, r->dp, S_LR_IN_IP_INPUT, 120, ds_cstr(&m),
                               "next;", &p->nb->header_.uuid);
            }
        }
    }
    ds_destroy(&m);
    ds_destroy(&a);
}

/* options:add_route. */

static void
add_routable_vip(const char *addr, void *aux)
{
    svec_add(aux, addr);
}

void
lr_nat_build_neighbour_routes(struct lflow_table *t, const struct lr_port *p,
                              const struct lr_port *q,
                              const struct uuid *hint)
{
    const struct lr_router *r = p->router;
    if (!p->dgp || r->chassis) {
        return;                 /* Only distributed gateway ports' (stock). */
    }

    /* The addresses that resolve to 'p''s MAC, in NAT row then VIP order,
     * then the distributed floating IPs, each with its own MAC. */
    struct svec central = SVEC_EMPTY_INITIALIZER;
    struct svec fips = SVEC_EMPTY_INITIALIZER;       /* "MAC", "ADDR", ... */
    const struct lr_nat_set *ns = r->nat;
    for (size_t i = 0; ns && i < ns->n_nats; i++) {
        const struct lr_nat *nat = &ns->nats[i];
        if (nat->v6 || !nat->dnat
            || !smap_get_bool(&nat->nb->options, "add_route", false)
            || nat_dgp(r, nat) != p) {
            continue;
        }
        if (nat->compiled && nat->distributed) {
            svec_add(&fips, nat->nb->external_mac);
            svec_add(&fips, nat->ext_s);
        } else {
            svec_add(&central, nat->ext_s);
        }
    }
    lr_lb_for_each_routable_vip(r, add_routable_vip, &central);
    if (!central.n && !fips.n) {
        svec_destroy(&central);
        svec_destroy(&fips);
        return;
    }

    const struct ls_datapath *dp = q->router->dp;
    struct ds m = DS_EMPTY_INITIALIZER;
    struct ds a = DS_EMPTY_INITIALIZER;
    if (q->n_ip4) {
        ds_put_format(&a, "ip.ttl--; reg8[0..15] = 0; reg0 = ip4.dst; "
                      "reg1 = %s; eth.src = %s; outport = %s; "
                      "flags.loopback = 1; next;", q->ip4[0].addr_s,
                      q->mac_s, q->qname);
        for (size_t i = 0; i < central.n + fips.n / 2; i++) {
            const char *addr = (i < central.n ? central.names[i]
                                : fips.names[(i - central.n) * 2 + 1]);
            ds_clear(&m);
            ds_put_format(&m, "ip4.dst == %s/32", addr);
            lflow_add_hint(t, dp, S_LR_IN_IP_ROUTING, 32 * 3 + 2,
                           ds_cstr(&m), ds_cstr(&a), hint);
        }
    }

    if ((q->router->chassis || q->dgp)
        && !smap_get_bool(&q->router->nb->options, "dynamic_neigh_routers",
                          false)) {
        if (central.n) {
            ds_clear(&m);
            ds_put_format(&m, "outport == %s && reg0 == {", q->qname);
            struct sset seen = SSET_INITIALIZER(&seen);
            size_t k = 0;
            for (size_t i = 0; i < central.n; i++) {
                if (sset_add(&seen, central.names[i])) {
                    ds_put_format(&m, "%s%s", k++ ? ", " : "",
                                  central.names[i]);
                }
            }
            sset_destroy(&seen);
            ds_put_cstr(&m, "}");
            ds_clear(&a);
            ds_put_format(&a, "eth.dst = %s; next;", p->mac_s);
            lflow_add_hint(t, dp, S_LR_IN_ARP_RESOLVE, 100, ds_cstr(&m),
                           ds_cstr(&a), hint);
        }
        for (size_t i = 0; i + 1 < fips.n; i += 2) {
            ds_clear(&m);
            ds_put_format(&m, "outport == %s && reg0 == {%s}", q->qname,
                          fips.names[i + 1]);
            ds_clear(&a);
            ds_put_format(&a, "eth.dst = %s; next;", fips.names[i]);
            lflow_add_hint(t, dp, S_LR_IN_ARP_RESOLVE, 100, ds_cstr(&m),
                           ds_cstr(&a), hint);
        }
    }
    ds_destroy(&m);
    ds_destroy(&a);
    svec_destroy(&central);
    svec_destroy(&fips);
}
