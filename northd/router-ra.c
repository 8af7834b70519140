/* IPv6 router advertisements: see router-ra.h. */
#include <config.h>
#include "northd/router-ra.h"

#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "lib/lex.h"
#include "lib/nb-rdb.h"
#include "lib/rdb.h"
#include "lib/sb-rdb.h"
#include "northd/datapaths.h"
#include "northd/lflow.h"
#include "northd/router.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "smap.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(router_ra);

COVERAGE_DEFINE(lr_ra_parsed);
COVERAGE_DEFINE(lr_ra_nb_prefix_written);
COVERAGE_DEFINE(lr_ra_bad_value);

/* The limits on the interval between periodic advertisements (seconds)
 * that stock 23.03 applies (RFC 4861 section 6.2.1). */
#define RA_MAX_INTERVAL_DEFAULT 600
#define RA_MAX_INTERVAL_MIN 4
#define RA_MAX_INTERVAL_MAX 1800
#define RA_MIN_INTERVAL_MIN 3
#define RA_MTU_MIN 1280

static void OVS_PRINTF_FORMAT(3, 4)
ra_report(struct ls_model *m, const struct lr_port *p, const char *format,
          ...)
{
    va_list args;
    va_start(args, format);
    char *what = xvasprintf(format, args);
    va_end(args);
    char *msg = xasprintf("Logical_Router_Port %s ("UUID_FMT"): "
                          "ipv6_ra_configs: %s", p->nb->name,
                          UUID_ARGS(&p->nb->header_.uuid), what);
    COVERAGE_INC(lr_ra_bad_value);
    ls_model_report_bad_row(m, msg);
    free(msg);
    free(what);
}

static bool
valid_address_mode(const char *s)
{
    return (!strcmp(s, "slaac") || !strcmp(s, "dhcpv6_stateful")
            || !strcmp(s, "dhcpv6_stateless"));
}

/* Whether 's' is a route_info list as ovn-controller reads it:
 * "PRF-PREFIX[,PRF-PREFIX]...", PRF one of HIGH, MEDIUM, LOW. */
static bool
valid_route_info(const char *s)
{
    char *copy = xstrdup(s);
    char *save = NULL;
    bool ok = *s != '\0';
    for (char *item = strtok_r(copy, ",", &save); ok && item;
         item = strtok_r(NULL, ",", &save)) {
        char *dash = strchr(item, '-');
        if (!dash) {
            ok = false;
            break;
        }
        *dash = '\0';
        if (strcmp(item, "HIGH") && strcmp(item, "MEDIUM")
            && strcmp(item, "LOW")) {
            ok = false;
            break;
        }
        struct in6_addr prefix;
        unsigned int plen;
        char *error = ipv6_parse_cidr(dash + 1, &prefix, &plen);
        if (error) {
            free(error);
            ok = false;
        }
    }
    free(copy);
    return ok;
}

/* The port's IPv6 networks that are not link-local addresses. */
static bool
ra_network(const struct lr_port *p, size_t i)
{
    struct in6_addr addr = p->ip6[i].addr;
    return i + 1 < p->n_ip6 && !in6_is_lla(&addr);
}

/* ipv6_ra_configs 'key' as an integer, else 'def' (reported). */
static int
ra_get_int(struct ls_model *m, const struct lr_port *p, const char *key,
           int def)
{
    const char *s = smap_get(&p->nb->ipv6_ra_configs, key);
    int value;
    if (!s) {
        return def;
    } else if (!str_to_int(s, 10, &value)) {
        ra_report(m, p, "%s \"%s\" is not a number: %d is used", key, s,
                  def);
        return def;
    }
    return value;
}

/* The ipv6_ra_* Port_Binding options of a port that sends periodic
 * advertisements. */
static struct smap *
ra_sb_options(struct ls_model *m, const struct lr_port *p, const char *mode)
{
    const struct smap *c = &p->nb->ipv6_ra_configs;
    struct smap *o = xmalloc(sizeof *o);
    smap_init(o);
    smap_add(o, "ipv6_ra_send_periodic", "true");
    smap_add(o, "ipv6_ra_address_mode", mode);

    int max = ra_get_int(m, p, "max_interval", RA_MAX_INTERVAL_DEFAULT);
    max = MAX(RA_MAX_INTERVAL_MIN, MIN(RA_MAX_INTERVAL_MAX, max));
    int min = ra_get_int(m, p, "min_interval", max / 3);
    min = MAX(RA_MIN_INTERVAL_MIN, MIN(max * 3 / 4, min));
    smap_add_format(o, "ipv6_ra_max_interval", "%d", max);
    smap_add_format(o, "ipv6_ra_min_interval", "%d", min);

    int mtu = smap_get_int(c, "mtu", 0);    /* Reported by the flow's. */
    if (mtu >= RA_MTU_MIN) {
        smap_add_format(o, "ipv6_ra_mtu", "%d", mtu);
    }

    /* SLAAC needs /64 prefixes; the DHCPv6 modes advertise them all. */
    bool slaac = !strcmp(mode, "slaac");
    struct ds prefixes = DS_EMPTY_INITIALIZER;
    for (size_t i = 0; i < p->n_ip6; i++) {
        if (ra_network(p, i) && (!slaac || p->ip6[i].plen == 64)) {
            if (prefixes.length) {
                ds_put_char(&prefixes, ' ');
            }
            ds_put_cstr(&prefixes, p->ip6[i].net_s);
        }
    }
    smap_add(o, "ipv6_ra_prefixes", ds_cstr(&prefixes));
    ds_destroy(&prefixes);

    const char *prf = smap_get_def(c, "router_preference", "MEDIUM");
    smap_add(o, "ipv6_ra_prf",
             !strcmp(prf, "HIGH") || !strcmp(prf, "LOW") ? prf : "MEDIUM");
    static const char *const copied[][2] = {
        { "rdnss", "ipv6_ra_rdnss" },
        { "dnssl", "ipv6_ra_dnssl" },
        { "route_info", "ipv6_ra_route_info" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(copied); i++) {
        const char *v = smap_get(c, copied[i][0]);
        if (v) {
            smap_add(o, copied[i][1], v);
        }
    }

    struct lr_net6 *lla = &p->ip6[p->n_ip6 - 1];
    smap_add(o, "ipv6_ra_src_addr", lla->addr_s);
    smap_add(o, "ipv6_ra_src_eth", p->mac_s);
    return o;
}

/* The arguments of put_nd_ra_opts() for solicitations on 'p'; NULL if
 * the port has no IPv6 network to advertise. */
static char *
ra_action_opts(struct ls_model *m, const struct lr_port *p, const char *mode)
{
    const struct smap *c = &p->nb->ipv6_ra_configs;
    bool any = false;
    for (size_t i = 0; i < p->n_ip6; i++) {
        any |= ra_network(p, i);
    }
    if (!any) {
        return NULL;
    }

    struct ds s = DS_EMPTY_INITIALIZER;
    ds_put_format(&s, "addr_mode = \"%s\", slla = %s", mode, p->mac_s);

    const char *mtu_s = smap_get(c, "mtu");
    if (mtu_s) {
        /* Stock reads the leading digits ("1400x" is 1400). */
        int mtu = atoi(mtu_s);
        int clean;
        if (mtu >= RA_MTU_MIN) {
            ds_put_format(&s, ", mtu = %d", mtu);
        }
        if (!str_to_int(mtu_s, 10, &clean) || clean < RA_MTU_MIN) {
            ra_report(m, p, "mtu \"%s\" is not a number of at least %d%s",
                      mtu_s, RA_MTU_MIN,
                      mtu >= RA_MTU_MIN ? ": solicitations are answered "
                      "with its leading digits, periodic advertisements "
                      "carry no MTU" : ": left out");
        }
    }

    const char *prf = smap_get(c, "router_preference");
    if (prf && (!strcmp(prf, "HIGH") || !strcmp(prf, "LOW"))) {
        ds_put_format(&s, ", router_preference = \"%s\"", prf);
    } else if (prf && strcmp(prf, "MEDIUM")) {
        /* Stock writes it, and ovn-controller then rejects the flow. */
        ra_report(m, p, "router_preference \"%s\" is not HIGH, MEDIUM or "
                  "LOW: left out (MEDIUM)", prf);
    }

    const char *rdnss = smap_get(c, "rdnss");
    if (rdnss) {
        struct in6_addr a;
        if (ipv6_parse(rdnss, &a)) {
            ds_put_format(&s, ", rdnss = %s", rdnss);
        } else {
            /* Stock writes it, and ovn-controller then rejects the flow. */
            ra_report(m, p, "rdnss \"%s\" is not one IPv6 address: left "
                      "out of solicitation answers", rdnss);
        }
    }

    const char *dnssl = smap_get(c, "dnssl");
    if (dnssl) {
        ds_put_cstr(&s, ", dnssl = ");
        lex_put_string(&s, dnssl);
    }

    const char *route_info = smap_get(c, "route_info");
    if (route_info) {
        if (!valid_route_info(route_info)) {
            /* ovn-controller skips what it cannot read. */
            ra_report(m, p, "route_info \"%s\" is not PRF-PREFIX[,...] "
                      "(PRF HIGH, MEDIUM or LOW): ovn-controller ignores "
                      "what it cannot read", route_info);
        }
        ds_put_cstr(&s, ", route_info = ");
        lex_put_string(&s, route_info);
    }

    for (size_t i = 0; i < p->n_ip6; i++) {
        if (ra_network(p, i)) {
            ds_put_format(&s, ", prefix = %s", p->ip6[i].net_s);
        }
    }
    return ds_steal_cstr(&s);
}

struct lr_ra *
lr_ra_parse(struct ls_model *m, const struct lr_port *p)
{
    const struct smap *c = &p->nb->ipv6_ra_configs;
    if (smap_is_empty(c)) {
        return NULL;
    }
    if (!p->peer) {
        /* Stock advertises only on ports wired to a switch. */
        return NULL;
    }
    const char *mode = smap_get(c, "address_mode");
    if (!mode) {
        ra_report(m, p, "no address_mode: no advertisements");
        return NULL;
    } else if (!valid_address_mode(mode)) {
        ra_report(m, p, "address_mode \"%s\" is not slaac, "
                  "dhcpv6_stateful or dhcpv6_stateless: no advertisements",
                  mode);
        return NULL;
    }
    COVERAGE_INC(lr_ra_parsed);
    struct lr_ra *ra = xzalloc(sizeof *ra);
    ra->opts = ra_action_opts(m, p, mode);
    if (smap_get_bool(c, "send_periodic", false)) {
        ra->sb = ra_sb_options(m, p, mode);
    }
    return ra;
}

void
lr_ra_destroy(struct lr_ra *ra)
{
    if (ra) {
        free(ra->opts);
        if (ra->sb) {
            smap_destroy(ra->sb);
            free(ra->sb);
        }
        free(ra);
    }
}

void
lr_ra_put_pb_options(const struct lr_port *p, struct smap *options)
{
    if (p->ra && p->ra->sb) {
        struct smap_node *node;
        SMAP_FOR_EACH (node, p->ra->sb) {
            smap_replace(options, node->key, node->value);
        }
    }
    if (smap_get_bool(&p->nb->options, "prefix_delegation", false)) {
        smap_replace(options, "ipv6_prefix_delegation", "true");
    }
    if (smap_get_bool(&p->nb->options, "prefix", false)) {
        smap_replace(options, "ipv6_prefix", "true");
    }
}

void
lr_ra_build_lflows(struct lflow_table *t, const struct lr_router *r)
{
    struct ds m = DS_EMPTY_INITIALIZER;
    struct ds a = DS_EMPTY_INITIALIZER;
    for (size_t i = 0; i < r->n_ports; i++) {
        const struct lr_port *p = r->ports[i];
        if (!p->ra || !p->ra->opts) {
            continue;
        }
        const struct uuid *hint = &p->nb->header_.uuid;
        ds_clear(&m);
        ds_put_format(&m, "inport == %s && ip6.dst == ff02::2 && nd_rs",
                      p->qname);
        ds_clear(&a);
        ds_put_format(&a, "reg0[5] = put_nd_ra_opts(%s); next;",
                      p->ra->opts);
        lflow_add_hint(t, r->dp, S_LR_IN_ND_RA_OPTIONS, 50, ds_cstr(&m),
                       ds_cstr(&a), hint);

        ds_clear(&m);
        ds_put_format(&m, "inport == %s && ip6.dst == ff02::2 && nd_ra "
                      "&& reg0[5]", p->qname);
        ds_clear(&a);
        ds_put_format(&a, "eth.dst = eth.src; eth.src = %s; "
                      "ip6.dst = ip6.src; ip6.src = %s; outport = inport; "
                      "flags.loopback = 1; output;",
                      p->mac_s, p->ip6[p->n_ip6 - 1].addr_s);
        lflow_add_hint(t, r->dp, S_LR_IN_ND_RA_RESPONSE, 50, ds_cstr(&m),
                       ds_cstr(&a), hint);
    }
    ds_destroy(&m);
    ds_destroy(&a);
}

void
lr_ra_sync_nb_prefix(const struct lr_port *p, struct rdb_txn *nb_txn)
{
    const struct sb_port_binding *pb = p->sb;
    if (!pb || !smap_get_bool(&p->nb->options, "prefix", false)) {
        return;
    }
    const char *list = smap_get(&pb->options, "ipv6_ra_pd_list");
    if (!list) {
        return;
    }
    /* "AID:PREFIX", read as stock reads it (the rest of the list after
     * the first word is ignored). */
    unsigned int aid;
    char prefix[64];
    if (!ovs_scan(list, "%u:%63s", &aid, prefix)) {
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);
        VLOG_WARN_RL(&rl, "Port_Binding %s: options:ipv6_ra_pd_list \"%s\" "
                     "is not \"AID:PREFIX\": Logical_Router_Port %s "
                     "ipv6_prefix is left as it is, as stock",
                     pb->logical_port, list, p->nb->name);
        return;
    }
    if (strlen(prefix) >= INET6_ADDRSTRLEN + 4) {
        /* Longer than any IPv6 prefix (stock 23.03 overflows a buffer). */
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);
        VLOG_WARN_RL(&rl, "Port_Binding %s: options:ipv6_ra_pd_list \"%s\": "
                     "the prefix is too long: Logical_Router_Port %s "
                     "ipv6_prefix is left as it is", pb->logical_port, list,
                     p->nb->name);
        return;
    }
    if (p->nb->n_ipv6_prefix == 1 && !strcmp(p->nb->ipv6_prefix[0], prefix)) {
        return;
    }
    const char *prefixes[] = { prefix };
    rdb_txn_update(nb_txn, &nb_table_logical_router_port,
                   &p->nb->header_.uuid);
    rdb_txn_set_strings(nb_txn, NB_LOGICAL_ROUTER_PORT_COL_IPV6_PREFIX,
                        prefixes, 1);
    COVERAGE_INC(lr_ra_nb_prefix_written);
}
