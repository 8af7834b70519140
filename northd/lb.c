/* Load balancers on logical switches; see lb.h. */
#include <config.h>
#include "northd/lb.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "coverage.h"
#include "hash.h"
#include "lib/lex.h"
#include "lib/nb-rdb.h"
#include "lib/sb-rdb.h"
#include "northd/datapaths.h"
#include "northd/dp-groups.h"
#include "northd/features.h"
#include "northd/lb-health.h"
#include "northd/lflow.h"
#include "northd/pipeline.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "smap.h"
#include "sset.h"
#include "util.h"
#include "uuid.h"
#include "uuidset.h"

VLOG_DEFINE_THIS_MODULE(lb);

COVERAGE_DEFINE(lb_bad_vip);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

/* Parses "IP", "IP:PORT", "[IP6]" or "[IP6]:PORT".  On success stores the
 * normalized address text in '*ip' (caller frees) and returns NULL;
 * otherwise returns an error message (caller frees). */
static char *
parse_ip_port(const char *s, bool *ipv6, char **ip, uint16_t *port)
{
    char *copy = xstrdup(s);
    char *addr = copy;
    char *port_s = NULL;
    *port = 0;

    if (addr[0] == '[') {
        char *end = strchr(addr, ']');
        if (!end) {
            free(copy);
            return xasprintf("\"%s\": missing \"]\"", s);
        }
        *end = '\0';
        addr++;
        if (end[1] == ':') {
            port_s = end + 2;
        } else if (end[1]) {
            free(copy);
            return xasprintf("\"%s\": unexpected text after \"]\"", s);
        }
    } else if (strchr(addr, ':') == strrchr(addr, ':') && strchr(addr, ':')) {
        /* Exactly one colon: IPv4 with a port. */
        port_s = strchr(addr, ':');
        *port_s++ = '\0';
    }

    if (port_s) {
        char *end;
        long p = strtol(port_s, &end, 10);
        if (!port_s[0] || *end || p < 1 || p > 65535) {
            free(copy);
            return xasprintf("\"%s\": bad port", s);
        }
        *port = p;
    }

    struct in6_addr a6;
    ovs_be32 a4;
    char buf[INET6_ADDRSTRLEN];
    if (inet_pton(AF_INET, addr, &a4) == 1) {
        *ipv6 = false;
        inet_ntop(AF_INET, &a4, buf, sizeof buf);
    } else if (inet_pton(AF_INET6, addr, &a6) == 1) {
        *ipv6 = true;
        inet_ntop(AF_INET6, &a6, buf, sizeof buf);
    } else {
        free(copy);
        return xasprintf("\"%s\": not an IP address", s);
    }
    *ip = xstrdup(buf);
    free(copy);
    return NULL;
}

void
lb_vip_destroy(struct lb_vip *vip)
{
    for (size_t i = 0; i < vip->n_backends; i++) {
        free(vip->backends[i].ip);
    }
    free(vip->backends);
    free(vip->backends_str);
    free(vip->tmpl_port);
    free(vip->ip);
}

static char *
parse_vip(const char *key, const char *value, struct lb_vip *vip)
{
    memset(vip, 0, sizeof *vip);
    char *error = parse_ip_port(key, &vip->ipv6, &vip->ip, &vip->port);
    if (error) {
        return error;
    }

    struct ds bs = DS_EMPTY_INITIALIZER;
    char *copy = xstrdup(value);
    char *save = NULL;
    for (char *tok = strtok_r(copy, ", ", &save); tok;
         tok = strtok_r(NULL, ", ", &save)) {
        struct lb_backend b;
        bool b6;
        error = parse_ip_port(tok, &b6, &b.ip, &b.port);
        if (!error && b6 != vip->ipv6) {
            free(b.ip);
            error = xasprintf("backend \"%s\" is not of the VIP's address "
                              "family", tok);
        } else if (!error && !vip->port != !b.port) {
            free(b.ip);
            error = xasprintf("backend \"%s\" must have a port exactly when "
                              "the VIP has one", tok);
        }
        if (error) {
            break;
        }
        vip->backends = xrealloc(vip->backends,
                                 (vip->n_backends + 1) * sizeof b);
        vip->backends[vip->n_backends++] = b;
        if (bs.length) {
            ds_put_char(&bs, ',');
        }
        if (b.port) {
            ds_put_format(&bs, b6 ? "[%s]:%"PRIu16 : "%s:%"PRIu16,
                          b.ip, b.port);
        } else {
            ds_put_cstr(&bs, b.ip);
        }
    }
    free(copy);
    if (error) {
        ds_destroy(&bs);
        lb_vip_destroy(vip);
        return error;
    }
    vip->backends_str = ds_steal_cstr(&bs);
    return NULL;
}

char *
lb_vip_parse(const char *key, const char *value, struct lb_vip *vip)
{
    return parse_vip(key, value, vip);
}

/* Parses the options and VIPs of 'nb' into 'lb' (which has none).  A bad
 * VIP is left out; with 'report', reported through 'm', otherwise the
 * first error is returned (caller frees) and 'lb' has no VIPs. */
char *
lb_parse_vips(struct lb *lb, const struct nb_load_balancer *nb, bool report,
              const struct lb_opts_ctx *ctx, struct ls_model *m)
{
    lb->nb = nb;
    lb->proto = nb->protocol && nb->protocol[0] ? nb->protocol : "tcp";
    lb_opts_init(&lb->opts, nb, lb->proto, ctx, m);
    struct smap_node *node;
    SMAP_FOR_EACH (node, &nb->vips) {
        struct lb_vip vip;
        char *error = (lb->opts.is_template
                       ? lb_opts_parse_template_vip(lb, node->key,
                                                    node->value, ctx, m,
                                                    &vip)
                       : parse_vip(node->key, node->value, &vip));
        if (error) {
            if (!report) {
                char *e = xasprintf("Load_Balancer %s VIP \"%s\": %s",
                                    nb->name, node->key, error);
                free(error);
                lb_clear_vips(lb);
                return e;
            }
            COVERAGE_INC(lb_bad_vip);
            lb->bad_vip = true;
            char *msg = xasprintf("Load_Balancer %s ("UUID_FMT"): ignoring "
                                  "VIP \"%s\": %s", nb->name,
                                  UUID_ARGS(&nb->header_.uuid), node->key,
                                  error);
            ls_model_report_bad_row(m, msg);
            free(msg);
            free(error);
            continue;
        }
        lb->vips = xrealloc(lb->vips, (lb->n_vips + 1) * sizeof *lb->vips);
        lb->vips[lb->n_vips++] = vip;
    }
    return NULL;
}

void
lb_clear_vips(struct lb *lb)
{
    for (size_t j = 0; j < lb->n_vips; j++) {
        lb_vip_destroy(&lb->vips[j]);
    }
    free(lb->vips);
    lb->vips = NULL;
    lb->n_vips = 0;
    lb_opts_destroy(&lb->opts);
    memset(&lb->opts, 0, sizeof lb->opts);
}

void
lb_model_init(struct lb_model *lm)
{
    memset(lm, 0, sizeof *lm);
    hmap_init(&lm->index);
    hmap_init(&lm->groups);
    hmap_init(&lm->aggs);
}

void
lb_model_destroy(struct lb_model *lm)
{
    if (!lm) {
        return;
    }
    lb_index_destroy(lm);
    for (size_t i = 0; i < lm->n_lbs; i++) {
        struct lb *lb = &lm->lbs[i];
        lb_clear_vips(lb);
        bitmap_free(lb->dps);
        lflow_owner_destroy(&lb->owner);
    }
    free(lm->lbs);
    bitmap_free(lm->dps_with_vips);
    lb_aggs_destroy(lm);
}

/* The model's load balancers by NB row, while it is built. */
struct lb_by_row {
    struct hmap_node node;
    const struct nb_load_balancer *nb;
    size_t idx;
};

static struct lb *
lb_model_get(struct lb_model *lm, struct ls_model *m, struct hmap *by_row,
             const struct lb_opts_ctx *ctx,
             const struct nb_load_balancer *nb)
{
    struct lb_by_row *br;
    HMAP_FOR_EACH_WITH_HASH (br, node, hash_pointer(nb, 0), by_row) {
        if (br->nb == nb) {
            return &lm->lbs[br->idx];
        }
    }
    br = xmalloc(sizeof *br);
    br->nb = nb;
    br->idx = lm->n_lbs;
    hmap_insert(by_row, &br->node, hash_pointer(nb, 0));

    /* A reference to a row deleted in this pass may still be seen (the
     * count of live rows is only a first guess). */
    if (lm->n_lbs >= lm->allocated_lbs) {
        lm->lbs = x2nrealloc(lm->lbs, &lm->allocated_lbs, sizeof *lm->lbs);
    }
    struct lb *lb = &lm->lbs[lm->n_lbs++];
    memset(lb, 0, sizeof *lb);
    lb->dps = bitmap_allocate(MAX(lm->dp_cap, 1));
    lflow_owner_init(&lb->owner);
    lb_parse_vips(lb, nb, true, ctx, m);
    return lb;
}

/* A group and the switches that list it, while the model is built. */
struct lb_group_dps {
    struct hmap_node node;
    const struct nb_load_balancer_group *g;
    unsigned long *dps;
};

void
lb_model_build(struct lb_model *lm, struct ls_model *m, struct rdb *nb_db)
{
    size_t n = 0;
    const struct nb_load_balancer *nb_lb;
    NB_LOAD_BALANCER_FOR_EACH (nb_lb, nb_db) {
        n++;
    }
    lm->allocated_lbs = n ? n : 1;
    lm->lbs = xmalloc(lm->allocated_lbs * sizeof *lm->lbs);
    lm->n_datapaths = m->n_datapaths;
    lm->dp_cap = m->dp_cap;
    size_t cap = MAX(m->dp_cap, 1);
    lm->dps_with_vips = bitmap_allocate(cap);

    /* In switch order, so the same NB gives the same result: the load
     * balancers switches list directly, then each group's (in the order
     * switches list them), once per group for all its switches rather
     * than once per switch (ovn-kubernetes lists one group of every
     * service on every node's switch). */
    struct lb_opts_ctx ctx;
    lb_opts_ctx_init(&ctx, nb_db);
    struct hmap by_row = HMAP_INITIALIZER(&by_row);
    struct hmap groups = HMAP_INITIALIZER(&groups);
    struct lb_group_dps **order = NULL;
    size_t n_order = 0, allocated_order = 0;
    for (size_t i = 0; i < m->n_datapaths; i++) {
        const struct nb_logical_switch *ls = m->dp_array[i]->nb;
        for (size_t j = 0; j < ls->n_load_balancer; j++) {
            if (!nb_load_balancer_is_deleted(ls->load_balancer[j])) {
                struct lb *lb = lb_model_get(lm, m, &by_row, &ctx,
                                             ls->load_balancer[j]);
                bitmap_set1(lb->dps, i);
            }
        }
        for (size_t j = 0; j < ls->n_load_balancer_group; j++) {
            const struct nb_load_balancer_group *g
                = ls->load_balancer_group[j];
            struct lb_group_dps *gd = NULL, *x;
            HMAP_FOR_EACH_WITH_HASH (x, node, hash_pointer(g, 0), &groups) {
                if (x->g == g) {
                    gd = x;
                    break;
                }
            }
            if (!gd) {
                gd = xmalloc(sizeof *gd);
                gd->g = g;
                gd->dps = bitmap_allocate(cap);
                hmap_insert(&groups, &gd->node, hash_pointer(g, 0));
                if (n_order >= allocated_order) {
                    order = x2nrealloc(order, &allocated_order,
                                       sizeof *order);
                }
                order[n_order++] = gd;
            }
            bitmap_set1(gd->dps, i);
        }
    }
    for (size_t i = 0; i < n_order; i++) {
        const struct lb_group_dps *gd = order[i];
        for (size_t k = 0; k < gd->g->n_load_balancer; k++) {
            if (!nb_load_balancer_is_deleted(gd->g->load_balancer[k])) {
                struct lb *lb = lb_model_get(lm, m, &by_row, &ctx,
                                             gd->g->load_balancer[k]);
                bitmap_or(lb->dps, gd->dps, cap);
            }
        }
    }
    for (size_t i = 0; i < lm->n_lbs; i++) {
        struct lb *lb = &lm->lbs[i];
        lb->n_dps = bitmap_count1(lb->dps, cap);
        if (lb->n_vips) {
            bitmap_or(lm->dps_with_vips, lb->dps, cap);
        }
        lb_agg_join(lm, m, lb);
    }

    struct lb_group_dps *gd;
    HMAP_FOR_EACH_POP (gd, node, &groups) {
        bitmap_free(gd->dps);
        free(gd);
    }
    hmap_destroy(&groups);
    free(order);
    struct lb_by_row *br;
    HMAP_FOR_EACH_POP (br, node, &by_row) {
        free(br);
    }
    hmap_destroy(&by_row);
    lb_opts_ctx_destroy(&ctx);
}

bool
lb_model_dp_has_vips(const struct lb_model *lm, size_t dp_index)
{
    return (dp_index < lm->dp_cap
            && bitmap_is_set(lm->dps_with_vips, dp_index));
}

static const char *
ip_field(bool ipv6)
{
    return ipv6 ? "ip6" : "ip4";
}

/* Appends to 'out' "{A, B, ...}" of the distinct 'n' strings in 'v' (in
 * their first order), or just "A" if there is one. */
static void
put_value_set(struct ds *out, const char **v, size_t n)
{
    struct sset seen = SSET_INITIALIZER(&seen);
    struct ds set = DS_EMPTY_INITIALIZER;
    for (size_t i = 0; i < n; i++) {
        if (sset_add(&seen, v[i])) {
            ds_put_format(&set, "%s%s", set.length ? ", " : "", v[i]);
        }
    }
    if (sset_count(&seen) > 1) {
        ds_put_format(out, "{%s}", ds_cstr(&set));
    } else {
        ds_put_cstr(out, ds_cstr(&set));
    }
    ds_destroy(&set);
    sset_destroy(&seen);
}

/* The pre-LB flows that send a VIP's load-balanced traffic through its
 * backends' zones into conntrack.  A load-balanced connection is tracked in
 * both zones it crosses, as it would be if all traffic went to conntrack:
 *
 *   - towards a backend (egress, the backend's zone): the DNATed request,
 *     so the backend's replies are established there;
 *
 *   - from a backend (ingress in the backend's zone, egress in the
 *     client's): replies, which the client's zone un-DNATs, and ICMP
 *     errors about the connection.
 *
 * Untracked, a backend's SYN-ACK would be a new, invalid connection in its
 * own zone, and a stateless "drop" ACL would see replies as new traffic.
 *
 * The flows are per VIP, not per backend: the backends' addresses and
 * their ports are matched as two sets ("ip4.src == {A, B} && (tcp.src ==
 * {P, Q} || icmp4)"), so a VIP costs three pre-LB flows however many
 * backends it has (ovn-controller turns the sets into conjunctive
 * OpenFlow matches, in O(addresses + ports) OpenFlow flows).  Where the
 * backends use different ports, an address is also matched with another
 * backend's port (docs/load-balancers.md, "Limits"). */
static void
build_backend_pre_lb_flows(struct lflow_table *t, const struct lb *lb,
                           const struct lb_vip *vip, struct ds *match)
{
    const struct uuid *hint = &lb->nb->header_.uuid;
    const char *ipf = ip_field(vip->ipv6);
    const char *icmp = vip->ipv6 ? "icmp6" : "icmp4";

    const char **ips = xmalloc(vip->n_backends * sizeof *ips);
    const char **ports = xmalloc(vip->n_backends * sizeof *ports);
    char (*port_bufs)[6] = xmalloc(vip->n_backends * sizeof *port_bufs);
    for (size_t i = 0; i < vip->n_backends; i++) {
        ips[i] = vip->backends[i].ip;
        snprintf(port_bufs[i], sizeof port_bufs[i], "%"PRIu16,
                 vip->backends[i].port);
        ports[i] = port_bufs[i];
    }
    struct ds addrs = DS_EMPTY_INITIALIZER;
    struct ds tps = DS_EMPTY_INITIALIZER;
    put_value_set(&addrs, ips, vip->n_backends);
    if (vip->port) {
        put_value_set(&tps, ports, vip->n_backends);
    }

    /* From a backend. */
    ds_clear(match);
    if (vip->port) {
        ds_put_format(match, "%s.src == %s && (%s.src == %s || %s)", ipf,
                      ds_cstr(&addrs), lb->proto, ds_cstr(&tps), icmp);
    } else {
        ds_put_format(match, "%s.src == %s", ipf, ds_cstr(&addrs));
    }
    lflow_add_dps_hint(t, lb->dps, S_OUT_PRE_LB, 100, ds_cstr(match),
                       REGBIT_CONNTRACK_NAT" = 1; next;", hint);
    lflow_add_dps_hint(t, lb->dps, S_IN_PRE_LB, 100, ds_cstr(match),
                       REGBIT_CONNTRACK_NAT" = 1; next;", hint);

    /* To a backend. */
    ds_clear(match);
    ds_put_format(match, "%s.dst == %s", ipf, ds_cstr(&addrs));
    if (vip->port) {
        ds_put_format(match, " && %s.dst == %s", lb->proto, ds_cstr(&tps));
    }
    lflow_add_dps_hint(t, lb->dps, S_OUT_PRE_LB, 100, ds_cstr(match),
                       REGBIT_CONNTRACK_NAT" = 1; next;", hint);

    ds_destroy(&addrs);
    ds_destroy(&tps);
    free(ips);
    free(ports);
    free(port_bufs);
}

/* The ls_in_lb actions of a VIP with a health check: only the backends
 * it says are usable; with none, a drop, or a reject with options:reject,
 * as stock (lb_opts_put_lb_action() for the others). */
static void
build_checked_vip_actions(const struct lb_health *health, const struct lb *lb,
                          const struct lb_vip *vip,
                          const struct ls_features *features,
                          struct ds *actions)
{
    struct ds usable = DS_EMPTY_INITIALIZER;
    for (size_t i = 0; i < vip->n_backends; i++) {
        const struct lb_backend *b = &vip->backends[i];
        if (lb_health_backend_usable(health, lb->nb, vip, b->ip, b->port)) {
            ds_put_format(&usable, vip->ipv6 ? "%s[%s]:%"PRIu16
                                             : "%s%s:%"PRIu16,
                          usable.length ? "," : "", b->ip, b->port);
        }
    }
    lb_opts_put_backends_action(actions, lb, ds_cstr(&usable), features);
    ds_destroy(&usable);
}

static void
build_vip_flows(struct lflow_table *t, const struct lb *lb,
                const struct lb_vip *vip, const struct lb_health *health,
                const struct ls_features *features,
                struct ds *match, struct ds *actions)
{
    const struct uuid *hint = &lb->nb->header_.uuid;
    const char *ipf = ip_field(vip->ipv6);

    if (lb->opts.is_template) {
        lb_opts_build_template_vip(t, lb->dps, lb, vip, features, match,
                                   actions);
        return;
    }

    /* Into conntrack: anything to the VIP address, and the backends'
     * traffic; usually the shared flows of all the load balancers on the
     * same switches (lb-sets.c). */
    if (lb_agg_inline(lb)) {
        ds_clear(match);
        ds_put_format(match, "%s.dst == %s", ipf, vip->ip);
        lflow_add_dps_hint(t, lb->dps, S_IN_PRE_LB, 100, ds_cstr(match),
                           REGBIT_CONNTRACK_NAT" = 1; next;", hint);
        if (vip->n_backends) {
            build_backend_pre_lb_flows(t, lb, vip, match);
        }
    }

    /* Remember the VIP for hairpin detection, then let conntrack NAT (for
     * a VIP with a port, usually a flow shared by the load balancers on
     * the same switches, lb-sets.c). */
    if (lb_agg_inline(lb) || !vip->port) {
        ds_clear(match);
        ds_put_format(match, REGBIT_CONNTRACK_NAT" == 1 && %s.dst == %s",
                      ipf, vip->ip);
        ds_clear(actions);
        ds_put_format(actions, "%s = %s; ",
                      vip->ipv6 ? REG_ORIG_DIP_IPV6 : REG_ORIG_DIP_IPV4,
                      vip->ip);
        if (vip->port) {
            ds_put_format(match, " && %s.dst == %"PRIu16, lb->proto,
                          vip->port);
            ds_put_format(actions, REG_ORIG_TP_DPORT" = %"PRIu16"; ",
                          vip->port);
        }
        ds_put_cstr(actions, ls_features_ct_lb(features));
        ds_put_char(actions, ';');
        lflow_add_dps_hint(t, lb->dps, S_IN_PRE_STATEFUL, 120,
                           ds_cstr(match), ds_cstr(actions), hint);
    }

    /* New connections to the VIP pick a backend.  The ACL stages' commit
     * bit is left alone, so the stateful stage still records the ACL's
     * label and blocked state (23.03 lost them here). */
    ds_clear(match);
    ds_put_format(match, "ct.new && %s.dst == %s", ipf, vip->ip);
    if (vip->port) {
        ds_put_format(match, " && %s.dst == %"PRIu16, lb->proto, vip->port);
    }
    ds_clear(actions);
    if (!lb_health_vip_checked(health, lb->nb, vip)) {
        lb_opts_put_lb_action(actions, lb, vip, features);
    } else {
        build_checked_vip_actions(health, lb, vip, features, actions);
    }
    lflow_add_dps_hint(t, lb->dps, S_IN_LB, vip->port ? 120 : 110,
                       ds_cstr(match), ds_cstr(actions), hint);

    /* Empty-backend events, session affinity (northd/lb-opts.c). */
    lb_opts_build_vip_flows(t, lb->dps, lb, vip, features, match, actions);
}

/* Adds the flows of 'lb''s VIPs, once for all the switches it is on, as
 * contributions of the load balancer's own owner. */
void
lb_build_lb_lflows(struct lflow_table *t, struct lb *lb,
                   const struct lb_health *health,
                   const struct ls_features *features)
{
    if (!lb->n_dps || !lb->n_vips) {
        return;
    }
    struct lflow_owner *saved = t->owner;
    lflow_table_set_owner(t, &lb->owner);
    struct ds match = DS_EMPTY_INITIALIZER;
    struct ds actions = DS_EMPTY_INITIALIZER;
    if (lb->opts.is_template) {
        lb_opts_build_template_lb(t, lb->dps);
    }
    for (size_t k = 0; k < lb->n_vips; k++) {
        build_vip_flows(t, lb, &lb->vips[k], health, features, &match,
                        &actions);
    }
    ds_destroy(&match);
    ds_destroy(&actions);
    lflow_table_set_owner(t, saved);
}

/* Hairpin: a backend reaching its own VIP gets its packet back, with the
 * VIP as source. */
static void
build_hairpin_flows(struct lflow_table *t, const struct ls_datapath *dp)
{
    lflow_add(t, dp, S_IN_PRE_HAIRPIN, 100, "ip && ct.trk",
              REGBIT_HAIRPIN" = chk_lb_hairpin(); "
              REGBIT_HAIRPIN_REPLY" = chk_lb_hairpin_reply(); next;");
    lflow_add(t, dp, S_IN_NAT_HAIRPIN, 100,
              "ip && ct.new && ct.trk && "REGBIT_HAIRPIN" == 1",
              "ct_snat_to_vip; next;");
    lflow_add(t, dp, S_IN_NAT_HAIRPIN, 100,
              "ip && ct.est && ct.trk && "REGBIT_HAIRPIN" == 1", "ct_snat;");
    lflow_add(t, dp, S_IN_NAT_HAIRPIN, 90,
              "ip && "REGBIT_HAIRPIN_REPLY" == 1", "ct_snat;");
    lflow_add(t, dp, S_IN_HAIRPIN, 1,
              "("REGBIT_HAIRPIN" == 1 || "REGBIT_HAIRPIN_REPLY" == 1)",
              "eth.dst <-> eth.src; outport = inport; flags.loopback = 1; "
              "output;");
}

void
lb_build_dp_lflows(struct lflow_table *t, const struct ls_datapath *dp,
                   const struct ls_features *features)
{
    const char *ct_lb = features->ct_no_masked_label ? "ct_lb_mark;"
                                                     : "ct_lb;";
    /* Traffic conntrack must not see, or that a router port will load
     * balance itself. */
    lflow_add(t, dp, S_IN_PRE_LB, 110, "eth.mcast", "next;");
    lflow_add(t, dp, S_OUT_PRE_LB, 110, "eth.mcast", "next;");
    lflow_add(t, dp, S_IN_PRE_LB, 110,
              "nd || nd_rs || nd_ra || mldv1 || mldv2", "next;");
    lflow_add(t, dp, S_OUT_PRE_LB, 110,
              "nd || nd_rs || nd_ra || mldv1 || mldv2", "next;");
    lflow_add(t, dp, S_IN_PRE_STATEFUL, 110,
              REGBIT_CONNTRACK_NAT" == 1", ct_lb);
    lflow_add(t, dp, S_OUT_PRE_STATEFUL, 110,
              REGBIT_CONNTRACK_NAT" == 1", ct_lb);
    lflow_add(t, dp, S_IN_PRE_STATEFUL, 100,
              REGBIT_CONNTRACK_DEFRAG" == 1", "ct_next;");
    lflow_add(t, dp, S_OUT_PRE_STATEFUL, 100,
              REGBIT_CONNTRACK_DEFRAG" == 1", "ct_next;");
}

/* Keeps IP traffic from and to port 'p' of 'dp' out of the load balancer
 * stages: "next;" on the way in, 'out_actions' on the way out. */
static void
build_pre_lb_port_skip(struct lflow_table *t, const struct ls_datapath *dp,
                       const struct ls_port *p, const char *out_actions,
                       struct ds *match)
{
    ds_clear(match);
    ds_put_cstr(match, "ip && inport == ");
    lex_put_string(match, p->nb->name);
    lflow_add_port(t, dp, S_IN_PRE_LB, 110, ds_cstr(match), "next;",
                   &p->nb->header_.uuid);
    ds_clear(match);
    ds_put_cstr(match, "ip && outport == ");
    lex_put_string(match, p->nb->name);
    lflow_add_port(t, dp, S_OUT_PRE_LB, 110, ds_cstr(match), out_actions,
                   &p->nb->header_.uuid);
}

/* A switch without load balancers keeps IP traffic from and to its
 * localnet ports (provider networks) out of the load balancer stages, as
 * stock does: the physical network's traffic is never load balanced on
 * the switch, and what leaves for it forgets the switch's conntrack
 * state unless stateful ACLs need it. */
void
lb_build_localnet_lflows(struct lflow_table *t, const struct ls_datapath *dp,
                         bool has_vips, bool stateful)
{
    if (has_vips) {
        return;
    }
    struct ds match = DS_EMPTY_INITIALIZER;
    const struct ls_port *p;
    LIST_FOR_EACH (p, dp_node, &dp->ports) {
        if (!strcmp(p->nb->type, "localnet")) {
            build_pre_lb_port_skip(t, dp, p,
                                   stateful ? "next;" : "ct_clear; next;",
                                   &match);
        }
    }
    ds_destroy(&match);
}

/* Every load balancer's VIP flows, each for its own owner. */
void
lb_build_lflows(struct lflow_table *t, const struct ls_model *m OVS_UNUSED,
                struct lb_model *lm, const struct ls_features *features)
{
    for (size_t j = 0; j < lm->n_lbs; j++) {
        lb_build_lb_lflows(t, &lm->lbs[j], lm->health, features);
    }
    lb_aggs_build_lflows(t, lm, features);
}

/* On a switch with VIPs: hairpin (the switch's own flows)... */
void
lb_build_hairpin_lflows(struct lflow_table *t, const struct ls_datapath *dp)
{
    build_hairpin_flows(t, dp);
}

/* ...and router ports skip the load balancer (the port's). */
void
lb_build_port_lflows(struct lflow_table *t, const struct ls_port *p)
{
    if (!strcmp(p->nb->type, "router")) {
        struct ds match = DS_EMPTY_INITIALIZER;
        build_pre_lb_port_skip(t, p->dp, p, "next;", &match);
        ds_destroy(&match);
    }
}

/* Writes the SB row of 'lb', which is on at least one switch: 'sb', or a
 * new one. */
void
lb_sync_sb_one(struct lb *lb, const struct sb_load_balancer *sb,
               struct rdb_txn *txn, struct dp_groups *dpgs,
               struct uuidset *inserted)
{
    char id[UUID_LEN + 1];
    snprintf(id, sizeof id, UUID_FMT, UUID_ARGS(&lb->nb->header_.uuid));

    /* The group first: it is an op of its own. */
    struct dp_group *dpg = dp_groups_get_group(dpgs, txn, lb->dps,
                                               lb->n_dps);
    const struct uuid *group = dp_group_uuid(dpg);
    if (lb->sb_dpg != dpg) {
        if (lb->sb_dpg) {
            dp_groups_unref_other(lb->sb_dpg);
        }
        dp_groups_ref_other(dpg);
        lb->sb_dpg = dpg;
    }
    if (!sb) {
        struct uuid uuid;
        rdb_uuid_generate(&uuid);
        rdb_txn_insert(txn, &sb_table_load_balancer, &uuid);
        uuidset_insert(inserted, &uuid);
        lb->sb_uuid = uuid;
        struct smap ids = SMAP_INITIALIZER(&ids);
        smap_add(&ids, "lb_id", id);
        rdb_txn_set_smap(txn, SB_LOAD_BALANCER_COL_EXTERNAL_IDS, &ids);
        smap_destroy(&ids);
    } else {
        rdb_txn_update(txn, &sb_table_load_balancer, &sb->header_.uuid);
        lb->sb_uuid = sb->header_.uuid;
    }
    if (!sb || strcmp(sb->name, lb->nb->name)) {
        rdb_txn_set_string(txn, SB_LOAD_BALANCER_COL_NAME, lb->nb->name);
    }
    struct smap tmp;
    const struct smap *vips = lb_opts_sb_vips(lb, &tmp);
    if (!sb || !smap_equal(&sb->vips, vips)) {
        rdb_txn_set_smap(txn, SB_LOAD_BALANCER_COL_VIPS, vips);
    }
    smap_destroy(&tmp);
    if (!sb || !sb->protocol || strcmp(sb->protocol, lb->proto)) {
        rdb_txn_set_string(txn, SB_LOAD_BALANCER_COL_PROTOCOL,
                           lb->proto);
    }

    /* The NB options, as stock 23.03 copies them: ovn-controller reads
     * some (hairpin_snat_ip, ct_flush...).  The VIP is also kept in
     * registers (see pre_stateful), which tells ovn-controller it may
     * use the original tuple. */
    struct smap options;
    smap_clone(&options, &lb->nb->options);
    smap_replace(&options, "hairpin_orig_tuple", "true");
    if (!sb || !smap_equal(&options, &sb->options)) {
        rdb_txn_set_smap(txn, SB_LOAD_BALANCER_COL_OPTIONS, &options);
    }
    smap_destroy(&options);

    if (!sb || !RDB_ROW_IS(sb->datapath_group, group)) {
        rdb_txn_set_ref(txn, SB_LOAD_BALANCER_COL_DATAPATH_GROUP, group);
    }
    if (sb && sb->n_datapaths) {
        rdb_txn_set_refs(txn, SB_LOAD_BALANCER_COL_DATAPATHS, NULL, 0);
    }
}

/* SB Load_Balancer rows, one per NB load balancer applied to a switch,
 * keyed by external_ids:lb_id. */
void
lb_sync_sb(const struct lb_model *lm, const struct ls_model *m OVS_UNUSED,
           struct rdb *sb_db, struct rdb_txn *txn, struct dp_groups *dpgs,
           struct uuidset *inserted)
{
    struct shash existing = SHASH_INITIALIZER(&existing);
    const struct sb_load_balancer *sb;
    SB_LOAD_BALANCER_FOR_EACH (sb, sb_db) {
        const char *id = smap_get(&sb->external_ids, "lb_id");
        if (!id) {
            rdb_txn_delete(txn, &sb_table_load_balancer, &sb->header_.uuid);
            continue;
        }
        /* Of several rows for one load balancer (someone else inserted
         * one), keep one a northd wrote in full (it has a datapath group),
         * else the lowest UUID, and delete the others. */
        struct shash_node *node = shash_find(&existing, id);
        if (!node) {
            shash_add(&existing, id, sb);
            continue;
        }
        const struct sb_load_balancer *other = node->data;
        bool sb_better = ((sb->datapath_group != NULL)
                          != (other->datapath_group != NULL)
                          ? sb->datapath_group != NULL
                          : uuid_compare_3way(&sb->header_.uuid,
                                              &other->header_.uuid) < 0);
        const struct sb_load_balancer *dup = sb_better ? other : sb;
        node->data = CONST_CAST(struct sb_load_balancer *,
                                sb_better ? sb : other);
        VLOG_INFO_RL(&rl, "deleting SB Load_Balancer "UUID_FMT" with "
                     "duplicate external_ids:lb_id %s",
                     UUID_ARGS(&dup->header_.uuid), id);
        rdb_txn_delete(txn, &sb_table_load_balancer, &dup->header_.uuid);
    }

    for (size_t i = 0; i < lm->n_lbs; i++) {
        const struct lb *lb = &lm->lbs[i];
        if (!lb->n_dps) {
            continue;
        }
        char id[UUID_LEN + 1];
        snprintf(id, sizeof id, UUID_FMT, UUID_ARGS(&lb->nb->header_.uuid));
        sb = shash_find_and_delete(&existing, id);

        lb_sync_sb_one(CONST_CAST(struct lb *, lb), sb, txn, dpgs, inserted);
    }

    struct shash_node *node;
    SHASH_FOR_EACH (node, &existing) {
        const struct sb_load_balancer *dead = node->data;
        rdb_txn_delete(txn, &sb_table_load_balancer, &dead->header_.uuid);
    }
    shash_destroy(&existing);
}
