/* Load balancers on logical routers: parsing a router's load balancers and
 * their flows.  See router-lb.h and docs/routers.md. */
#include <config.h>
#include "northd/router-lb.h"

#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "lib/nb-rdb.h"
#include "northd/datapaths.h"
#include "northd/groups.h"
#include "northd/lb.h"
#include "northd/lb-health.h"
#include "northd/lflow.h"
#include "northd/router.h"
#include "northd/router-gw.h"
#include "northd/router-nat.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "smap.h"
#include "sset.h"
#include "util.h"
#include "uuidset.h"

VLOG_DEFINE_THIS_MODULE(router_lb);

COVERAGE_DEFINE(lr_lb_built);
COVERAGE_DEFINE(lr_lb_bad_row);
COVERAGE_DEFINE(lr_lb_incremental);

/* One load balancer of a router. */
struct lr_lb {
    const struct nb_load_balancer *nb;
    const char *proto;              /* "tcp", "udp" or "sctp". */
    struct lb_vip *vips;
    size_t n_vips;
    bool skip_snat;                 /* options:skip_snat. */
    bool reject;                    /* options:reject. */
    bool event;                     /* options:event (and no reject). */
    bool is_template;               /* options:template: VIPs, ports and
                                     * backends may be "^NAME"s, which
                                     * ovn-controller expands. */
    uint16_t affinity_timeout;      /* Seconds, or 0. */
    enum { RESP_REACHABLE, RESP_ALL, RESP_NONE } responder;
};

/* A router's load balancers (lr_router 'lb'). */
struct lr_lb_set {
    struct lr_lb *lbs;              /* By NB UUID. */
    size_t n_lbs;
    size_t n_vips;                  /* Over all of them. */
    bool force_snat;                /* options:lb_force_snat_ip. */
    struct shash vips4, vips6;      /* The VIPs the router answers ARP/ND
                                     * for (names only). */
    char *set4, *set6;              /* Their SB address sets' names. */
    bool claimed4, claimed6;        /* groups.c writes them. */
    struct uuidset uuids;           /* NB UUIDs of the load balancers. */
    struct lflow_owner *owners;     /* The flows of each one's VIPs, in
                                     * 'lbs' order: lr_lb_handle_changes()
                                     * rebuilds only a changed one's. */
    const struct lb_health *health; /* Backends' health (northd.c's), or
                                     * NULL before lr_lb_attach_health(). */
};

static void OVS_PRINTF_FORMAT(2, 3)
lb_report(struct ls_model *m, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *msg = xvasprintf(format, args);
    va_end(args);
    COVERAGE_INC(lr_lb_bad_row);
    ls_model_report_bad_row(m, msg);
    free(msg);
}

static int
compare_lbs(const void *a_, const void *b_)
{
    const struct nb_load_balancer *const *a = a_;
    const struct nb_load_balancer *const *b = b_;
    return uuid_compare_3way(&(*a)->header_.uuid, &(*b)->header_.uuid);
}

/* Whether 'vip' is in one of 'p''s networks. */
static bool
port_reaches(const struct lr_port *p, const struct lb_vip *vip)
{
    if (!vip->ipv6) {
        ovs_be32 ip;
        if (!ip_parse(vip->ip, &ip)) {
            return false;
        }
        for (size_t i = 0; i < p->n_ip4; i++) {
            if ((ip & be32_prefix_mask(p->ip4[i].plen))
                == p->ip4[i].network) {
                return true;
            }
        }
        return false;
    }
    struct in6_addr ip;
    if (!ipv6_parse(vip->ip, &ip)) {
        return false;
    }
    for (size_t i = 0; i < p->n_ip6; i++) {
        struct in6_addr mask = ipv6_create_mask(p->ip6[i].plen);
        struct in6_addr net = ipv6_addr_bitand(&ip, &mask);
        if (ipv6_addr_equals(&net, &p->ip6[i].network)) {
            return true;
        }
    }
    return false;
}

/* A template VIP "V", "V:P" or "[V6]:P" ('v6': address-family=ipv6),
 * each part an address (a port) or a "^NAME", and its backends as they
 * are (ovn-controller expands them).  Returns NULL or an error. */
static char *
parse_template_vip(const char *key, const char *value, bool v6,
                   struct lb_vip *vip)
{
    memset(vip, 0, sizeof *vip);
    char *ip, *port = NULL;
    char *copy = xstrdup(key);
    if (copy[0] == '[') {
        char *end = strchr(copy, ']');
        if (!end || (end[1] && end[1] != ':')) {
            free(copy);
            return xstrdup("bad VIP");
        }
        *end = '\0';
        ip = copy + 1;
        port = end[1] ? end + 2 : NULL;
    } else {
        ip = copy;
        char *colon = strrchr(copy, ':');
        if (colon && !v6) {
            *colon = '\0';
            port = colon + 1;
        }
    }
    char *error = NULL;
    if (ip[0] == '^') {
        if (!ip[1]) {
            error = xstrdup("bad VIP variable");
        }
    } else if (v6) {
        struct in6_addr a;
        if (!ipv6_parse(ip, &a)) {
            error = xstrdup("not an IPv6 address");
        }
    } else {
        ovs_be32 a;
        if (!ip_parse(ip, &a)) {
            error = xstrdup("not an IPv4 address");
        }
    }
    if (!error && port) {
        if (port[0] == '^') {
            if (port[1]) {
                vip->tmpl_port = xstrdup(port);
            } else {
                error = xstrdup("bad port variable");
            }
        } else {
            unsigned int n;
            int len = 0;
            if (ovs_scan(port, "%u%n", &n, &len) && !port[len]
                && n >= 1 && n <= 65535) {
                vip->port = n;
            } else {
                error = xstrdup("bad port");
            }
        }
    }
    if (error) {
        free(vip->tmpl_port);
        vip->tmpl_port = NULL;
    } else {
        vip->ipv6 = v6;
        vip->ip = xstrdup(ip);
        vip->backends_str = xstrdup(value);
    }
    free(copy);
    return error;
}

/* Parses 'nb' into 'lb'.  With 'report', reports what it leaves out
 * through 'm', otherwise returns false at the first thing it would report
 * (an incremental pass leaves reports to a full one). */
static bool
parse_lb(struct ls_model *m, bool report, const struct lr_router *r,
         struct lr_lb *lb, const struct nb_load_balancer *nb)
{
    memset(lb, 0, sizeof *lb);
    lb->nb = nb;
    lb->proto = nb->protocol && nb->protocol[0] ? nb->protocol : "tcp";
    lb->skip_snat = smap_get_bool(&nb->options, "skip_snat", false);
    lb->reject = smap_get_bool(&nb->options, "reject", false);
    lb->event = !lb->reject && (m->controller_event
                                || smap_get_bool(&nb->options, "event",
                                                 false));
    const char *resp = smap_get(&nb->options, "neighbor_responder");
    lb->responder = (!resp || strcmp(resp, "all") ? RESP_REACHABLE
                     : RESP_ALL);
    if (resp && !strcmp(resp, "none")) {
        lb->responder = RESP_NONE;
    }
    unsigned long long int t = smap_get_ullong(&nb->options,
                                               "affinity_timeout", 0);
    lb->affinity_timeout = MIN(t, 65535);
    lb->is_template = smap_get_bool(&nb->options, "template", false);
    bool tmpl_v6 = false;
    if (lb->is_template) {
        /* The neighbours of a template VIP are not answered by default. */
        lb->responder = resp && !strcmp(resp, "all") ? RESP_ALL : RESP_NONE;
        const char *af = smap_get(&nb->options, "address-family");
        tmpl_v6 = af && !strcmp(af, "ipv6");
        if (lb->affinity_timeout) {
            if (!report) {
                return false;
            }
            lb_report(m, "Load_Balancer %s ("UUID_FMT") on router %s: "
                      "affinity_timeout is not compiled for a template "
                      "load balancer", nb->name,
                      UUID_ARGS(&nb->header_.uuid), r->nb->name);
            lb->affinity_timeout = 0;
        }
    }
    struct smap_node *node;
    SMAP_FOR_EACH (node, &nb->vips) {
        struct lb_vip vip;
        char *error = (lb->is_template
                       ? parse_template_vip(node->key, node->value, tmpl_v6,
                                            &vip)
                       : lb_vip_parse(node->key, node->value, &vip));
        if (error && !report) {
            free(error);
            return false;
        }
        if (error) {
            lb_report(m, "Load_Balancer %s ("UUID_FMT") on router %s: "
                      "ignoring VIP \"%s\": %s", nb->name,
                      UUID_ARGS(&nb->header_.uuid), r->nb->name, node->key,
                      error);
            free(error);
            continue;
        }
        lb->vips = xrealloc(lb->vips, (lb->n_vips + 1) * sizeof *lb->vips);
        lb->vips[lb->n_vips++] = vip;
    }
    return true;
}

static void
lr_lb_clear(struct lr_lb *lb)
{
    for (size_t j = 0; j < lb->n_vips; j++) {
        lb_vip_destroy(&lb->vips[j]);
    }
    free(lb->vips);
    lb->vips = NULL;
    lb->n_vips = 0;
}

/* The VIPs 'r' answers ARP/ND for, into 'vips4' and 'vips6' (empty), and
 * 'n_vips'. */
static void
compute_vips(struct lr_router *r, struct shash *vips4, struct shash *vips6)
{
    struct lr_lb_set *ls = r->lb;
    ls->n_vips = 0;
    for (size_t i = 0; i < ls->n_lbs; i++) {
        const struct lr_lb *lb = &ls->lbs[i];
        ls->n_vips += lb->n_vips;
        for (size_t j = 0; j < lb->n_vips; j++) {
            const struct lb_vip *vip = &lb->vips[j];
            bool answer = (lb->responder == RESP_ALL
                           && vip->ip[0] != '^');
            for (size_t q = 0; !answer && lb->responder == RESP_REACHABLE
                               && q < r->n_ports; q++) {
                answer = port_reaches(r->ports[q], vip);
            }
            if (answer) {
                shash_replace(vip->ipv6 ? vips6 : vips4, vip->ip, NULL);
            }
        }
    }
}

/* The load balancers of 'nb' (directly or through its groups), each once,
 * in UUID order, into '*rows' (allocated) and their UUIDs into 'uuids';
 * returns how many. */
static size_t
collect_lbs(const struct nb_logical_router *nb, struct uuidset *uuids,
            const struct nb_load_balancer ***rows_)
{
    size_t n = nb->n_load_balancer;
    for (size_t i = 0; i < nb->n_load_balancer_group; i++) {
        n += nb->load_balancer_group[i]->n_load_balancer;
    }
    const struct nb_load_balancer **rows = xmalloc(MAX(n, 1) * sizeof *rows);
    size_t k = 0;
    for (size_t i = 0; i < nb->n_load_balancer; i++) {
        const struct nb_load_balancer *lb = nb->load_balancer[i];
        if (!uuidset_contains(uuids, &lb->header_.uuid)) {
            uuidset_insert(uuids, &lb->header_.uuid);
            rows[k++] = lb;
        }
    }
    for (size_t i = 0; i < nb->n_load_balancer_group; i++) {
        const struct nb_load_balancer_group *g = nb->load_balancer_group[i];
        for (size_t j = 0; j < g->n_load_balancer; j++) {
            const struct nb_load_balancer *lb = g->load_balancer[j];
            if (!uuidset_contains(uuids, &lb->header_.uuid)) {
                uuidset_insert(uuids, &lb->header_.uuid);
                rows[k++] = lb;
            }
        }
    }
    qsort(rows, k, sizeof *rows, compare_lbs);
    *rows_ = rows;
    return k;
}

void
lr_lb_parse(struct ls_model *m, struct lr_router *r)
{
    const struct nb_logical_router *nb = r->nb;
    size_t n = nb->n_load_balancer;
    for (size_t i = 0; i < nb->n_load_balancer_group; i++) {
        n += nb->load_balancer_group[i]->n_load_balancer;
    }
    if (!n) {
        return;
    }

    struct lr_lb_set *ls = xzalloc(sizeof *ls);
    shash_init(&ls->vips4);
    shash_init(&ls->vips6);
    uuidset_init(&ls->uuids);
    r->lb = ls;

    const struct nb_load_balancer **rows;
    size_t k = collect_lbs(nb, &ls->uuids, &rows);

    if (!r->chassis) {
        /* Stock binds them to the first gateway port alone, and warns. */
        const char *first = NULL;
        size_t n_gw = 0;
        for (size_t i = 0; i < nb->n_ports; i++) {
            const struct nb_logical_router_port *lrp = nb->ports[i];
            if (lrp->n_gateway_chassis || lrp->ha_chassis_group) {
                first = first ? first : lrp->name;
                n_gw++;
            }
        }
        if (n_gw > 1) {
            lb_report(m, "Logical_Router %s: load balancers on a router with "
                      "%"PRIuSIZE" distributed gateway ports are bound to the "
                      "first (%s) alone", nb->name, n_gw, first);
        }
    }

    const char *force = smap_get(&nb->options, "lb_force_snat_ip");
    ls->force_snat = force && force[0]
                     && (strcmp(force, "router_ip") || r->chassis);

    ls->lbs = xcalloc(k, sizeof *ls->lbs);
    ls->owners = xmalloc(k * sizeof *ls->owners);
    for (size_t i = 0; i < k; i++) {
        lflow_owner_init(&ls->owners[i]);
    }
    for (size_t i = 0; i < k; i++) {
        parse_lb(m, true, r, &ls->lbs[ls->n_lbs++], rows[i]);
        COVERAGE_INC(lr_lb_built);
    }
    compute_vips(r, &ls->vips4, &ls->vips6);
    free(rows);
}

void
lr_lb_destroy(struct lr_router *r)
{
    struct lr_lb_set *ls = r->lb;
    if (!ls) {
        return;
    }
    for (size_t i = 0; i < ls->n_lbs; i++) {
        lr_lb_clear(&ls->lbs[i]);
    }
    free(ls->lbs);
    for (size_t i = 0; i < ls->n_lbs; i++) {
        lflow_owner_destroy(&ls->owners[i]);
    }
    free(ls->owners);
    shash_destroy(&ls->vips4);
    shash_destroy(&ls->vips6);
    free(ls->set4);
    free(ls->set6);
    uuidset_destroy(&ls->uuids);
    free(ls);
    r->lb = NULL;
}

bool
lr_lb_has_vips(const struct lr_router *r)
{
    return r->lb && r->lb->n_vips;
}

static bool
claim_set(struct groups *g, const struct lr_router *r, const char *name,
          const struct shash *addrs)
{
    if (groups_ext_set_put(g, name, addrs)) {
        return true;
    }
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);
    VLOG_WARN_RL(&rl, "address set %s, which northd would write for the "
                 "VIPs of the load balancers of router %s, already exists: "
                 "its ARP/ND responders name the VIPs instead", name,
                 r->nb->name);
    return false;
}

void
lr_lb_attach_groups(struct ls_model *m, struct groups *g)
{
    for (size_t i = 0; m->lr && i < m->lr->n_routers; i++) {
        struct lr_router *r = &m->lr->routers[i];
        struct lr_lb_set *ls = r->lb;
        if (!ls) {
            continue;
        }
        uint32_t key = r->dp->tunnel_key;
        if (!shash_is_empty(&ls->vips4)) {
            ls->set4 = xasprintf("_rtr_lb_%"PRIu32"_ip4", key);
            ls->claimed4 = claim_set(g, r, ls->set4, &ls->vips4);
        }
        if (!shash_is_empty(&ls->vips6)) {
            ls->set6 = xasprintf("_rtr_lb_%"PRIu32"_ip6", key);
            ls->claimed6 = claim_set(g, r, ls->set6, &ls->vips6);
        }
    }
}

/* "$NAME", or the addresses "{A, B}" if the set could not be claimed. */
static void
put_vip_set(struct ds *s, const char *name, bool claimed,
            const struct shash *addrs)
{
    if (claimed) {
        ds_put_format(s, "$%s", name);
        return;
    }
    const struct shash_node **nodes = shash_sort(addrs);
    ds_put_char(s, '{');
    for (size_t i = 0; i < shash_count(addrs); i++) {
        ds_put_format(s, "%s%s", i ? ", " : "", nodes[i]->name);
    }
    ds_put_char(s, '}');
    free(nodes);
}

/* The distributed gateway port 'r''s load balancers are bound to (stock:
 * the first), or NULL. */
static const struct lr_port *
lb_gateway(const struct lr_router *r)
{
    return !r->chassis && r->n_dgps ? r->dgp0 : NULL;
}

/* " && is_chassis_resident(CR)" for a distributed gateway port 'p'. */
static void
put_resident(struct ds *m, const struct lr_router *r, const struct lr_port *p)
{
    if (!r->chassis && p->dgp) {
        ds_put_format(m, " && is_chassis_resident(%s)", p->dgp->cr_qname);
    }
}

/* ARP replies and NAs for the VIPs, on every port of the family (on a
 * distributed gateway port, on its gateway chassis). */
static void
build_responders(struct lflow_table *t, const struct lr_router *r,
                 struct ds *m)
{
    const struct lr_lb_set *ls = r->lb;
    for (size_t i = 0; i < r->n_ports; i++) {
        const struct lr_port *p = r->ports[i];
        const struct uuid *hint = &p->nb->header_.uuid;
        if (p->n_ip4 && ls->set4) {
            ds_clear(m);
            ds_put_format(m, "inport == %s && arp.op == 1 && arp.tpa == ",
                          p->qname);
            put_vip_set(m, ls->set4, ls->claimed4, &ls->vips4);
            put_resident(m, r, p);
            lflow_add_hint(t, r->dp, S_LR_IN_IP_INPUT, 90, ds_cstr(m),
                           "eth.dst = eth.src; eth.src = xreg0[0..47]; "
                           "arp.op = 2; /* ARP reply */ arp.tha = arp.sha; "
                           "arp.sha = xreg0[0..47]; arp.tpa <-> arp.spa; "
                           "outport = inport; flags.loopback = 1; output;",
                           hint);
        }
        if (p->n_ip6 && ls->set6) {
            ds_clear(m);
            ds_put_format(m, "inport == %s && nd_ns && nd.target == ",
                          p->qname);
            put_vip_set(m, ls->set6, ls->claimed6, &ls->vips6);
            put_resident(m, r, p);
            lflow_add_hint(t, r->dp, S_LR_IN_IP_INPUT, 90, ds_cstr(m),
                           "nd_na { eth.src = xreg0[0..47]; "
                           "ip6.src = nd.target; nd.tll = xreg0[0..47]; "
                           "outport = inport; flags.loopback = 1; "
                           "output; };", hint);
        }
    }
}

/* Whether 'ip' is the external address of one of 'r''s NAT rows. */
static bool
is_nat_ip(const struct lr_router *r, const struct lb_vip *vip)
{
    for (size_t i = 0; i < r->nb->n_nat; i++) {
        const char *ext = r->nb->nat[i]->external_ip;
        struct in6_addr a, b;
        if (!vip->ipv6
            ? !strcmp(ext, vip->ip)
            : (ipv6_parse(ext, &a) && ipv6_parse(vip->ip, &b)
               && ipv6_addr_equals(&a, &b))) {
            return true;
        }
    }
    return false;
}

/* "ip4 && ip4.dst == VIP[ && tcp && tcp.dst == PORT]". */
static void
put_vip_match(struct ds *m, const struct lr_lb *lb, const struct lb_vip *vip)
{
    const char *fam = vip->ipv6 ? "ip6" : "ip4";
    ds_put_format(m, "%s && %s.dst == %s", fam, fam, vip->ip);
    if (vip->tmpl_port) {
        ds_put_format(m, " && %s && %s.dst == %s", lb->proto, lb->proto,
                      vip->tmpl_port);
    } else if (vip->port) {
        ds_put_format(m, " && %s && %s.dst == %"PRIu16, lb->proto, lb->proto,
                      vip->port);
    }
}

/* The SNAT flag and the ct_lb_mark of 'backends'. */
static void
put_lb_action(struct ds *a, const struct lr_lb_set *ls, const struct lr_lb *lb,
              const char *backends)
{
    const char *flag = (lb->skip_snat ? "skip_snat"
                        : ls->force_snat ? "force_snat" : NULL);
    if (flag) {
        ds_put_format(a, "flags.%s_for_lb = 1; ", flag);
    }
    ds_put_format(a, "ct_lb_mark(backends=%s", backends);
    if (flag) {
        ds_put_format(a, "; %s", flag);
    }
    ds_put_cstr(a, ");");
}

/* lr_out_undnat 120 on gateway port 'gw': the replies of 'vip''s backends
 * out of the port, on its gateway chassis. */
static void
build_gw_undnat(struct lflow_table *t, const struct lr_router *r,
                const struct lr_port *gw, const struct lr_lb *lb,
                const struct lb_vip *vip, struct ds *m, struct ds *a)
{
    const struct lr_lb_set *ls = r->lb;
    const char *fam = vip->ipv6 ? "ip6" : "ip4";
    ds_clear(m);
    ds_put_format(m, "%s && (", fam);
    if (!lb->is_template) {
        for (size_t i = 0; i < vip->n_backends; i++) {
            const struct lb_backend *be = &vip->backends[i];
            ds_put_format(m, "%s(%s.src == %s", i ? " || " : "", fam, be->ip);
            if (be->port) {
                ds_put_format(m, " && %s.src == %"PRIu16, lb->proto,
                              be->port);
            }
            ds_put_char(m, ')');
        }
    } else {
        /* Template backends as written, "IP[:PORT]" ("[IP6]:PORT"), each
         * part possibly a "^NAME" that ovn-controller expands. */
        char *copy = xstrdup(vip->backends_str);
        char *save = NULL;
        int i = 0;
        for (char *tok = strtok_r(copy, ",", &save); tok;
             tok = strtok_r(NULL, ",", &save), i++) {
            char *port = NULL;
            if (tok[0] == '[') {
                char *end = strchr(tok, ']');
                if (end) {
                    *end = '\0';
                    port = end[1] == ':' ? end + 2 : NULL;
                }
                tok++;
            } else if (!vip->ipv6) {
                port = strrchr(tok, ':');
                if (port) {
                    *port++ = '\0';
                }
            }
            ds_put_format(m, "%s(%s.src == %s", i ? " || " : "", fam, tok);
            if (port && port[0]) {
                ds_put_format(m, " && %s.src == %s", lb->proto, port);
            }
            ds_put_char(m, ')');
        }
        free(copy);
    }
    ds_put_format(m, ") && outport == %s", gw->qname);
    put_resident(m, r, gw);
    ds_clear(a);
    if (lb->skip_snat) {
        ds_put_cstr(a, "flags.skip_snat_for_lb = 1; next;");
    } else if (ls->force_snat) {
        ds_put_cstr(a, "flags.force_snat_for_lb = 1; next;");
    } else {
        ds_put_cstr(a, "ct_dnat_in_czone;");
    }
    lflow_add_hint(t, r->dp, S_LR_OUT_UNDNAT, 120, ds_cstr(m), ds_cstr(a),
                   &lb->nb->header_.uuid);
}

static void
build_vip(struct lflow_table *t, const struct lr_router *r,
          const struct lr_lb *lb, const struct lb_vip *vip, struct ds *m,
          struct ds *a)
{
    const struct lr_lb_set *ls = r->lb;
    const struct ls_datapath *dp = r->dp;
    const struct uuid *hint = &lb->nb->header_.uuid;
    const char *fam = vip->ipv6 ? "ip6" : "ip4";

    ds_clear(m);
    ds_put_format(m, "ip && %s.dst == %s", fam, vip->ip);
    lflow_add_hint(t, dp, S_LR_IN_DEFRAG, 100, ds_cstr(m), "ct_dnat;", hint);

    if (!lb->is_template && is_nat_ip(r, vip)) {
        /* Connections to the VIP are not unSNATed. */
        ds_clear(m);
        put_vip_match(m, lb, vip);
        lflow_add_hint(t, dp, S_LR_IN_UNSNAT, 120, ds_cstr(m), "next;",
                       hint);
    }

    /* The backends that take new connections: with a health check, those
     * it says are usable (northd/lb-health.h), else all. */
    const char *backends = vip->backends_str;
    char *usable = NULL;
    if (!lb->is_template && lb_health_vip_checked(ls->health, lb->nb, vip)) {
        struct ds b = DS_EMPTY_INITIALIZER;
        for (size_t i = 0; i < vip->n_backends; i++) {
            const struct lb_backend *be = &vip->backends[i];
            if (lb_health_backend_usable(ls->health, lb->nb, vip, be->ip,
                                         be->port)) {
                ds_put_format(&b, vip->ipv6 ? "%s[%s]:%"PRIu16
                                            : "%s%s:%"PRIu16,
                              b.length ? "," : "", be->ip, be->port);
            }
        }
        usable = ds_steal_cstr(&b);
        backends = usable;
    }

    /* On a router with a distributed gateway port, new connections are
     * load balanced on its gateway chassis, but for the reject of a VIP
     * without backends (stock); the replies from the backends are unDNATed
     * there on their way out of the port. */
    const struct lr_port *gw = lb_gateway(r);
    bool empty_reject = !vip->backends_str[0] && lb->reject;
    if (gw && (lb->is_template ? vip->backends_str[0] != '\0'
               : vip->n_backends > 0)) {
        build_gw_undnat(t, r, gw, lb, vip, m, a);
    }

    bool has_port = vip->port || vip->tmpl_port;
    uint16_t prio = has_port ? 120 : 110;
    ds_clear(m);
    ds_put_cstr(m, "ct.new && !ct.rel && ");
    put_vip_match(m, lb, vip);
    if (gw && !empty_reject) {
        put_resident(m, r, gw);
    }
    ds_clear(a);
    if (!backends[0]) {
        free(usable);
        if (ls->force_snat && !lb->skip_snat) {
            ds_put_cstr(a, "flags.force_snat_for_lb = 1; ");
        } else if (lb->skip_snat) {
            ds_put_cstr(a, "flags.skip_snat_for_lb = 1; ");
        }
        if (lb->reject) {
            ds_put_format(a, "reg0 = 0; reject { outport <-> inport; "
                          "next(pipeline=egress,table=%d);};",
                          ls_stage_table(S_LR_OUT_SNAT));
        } else {
            ds_put_cstr(a, "drop;");
        }
        lflow_add_hint(t, dp, S_LR_IN_DNAT, prio, ds_cstr(m), ds_cstr(a),
                       hint);
        if (lb->event && has_port && !vip->backends_str[0]) {
            char *port = (vip->tmpl_port ? xstrdup(vip->tmpl_port)
                          : xasprintf("%"PRIu16, vip->port));
            ds_clear(m);
            ds_put_format(m, "%s.dst == %s && %s && %s.dst == %s", fam,
                          vip->ip, lb->proto, lb->proto, port);
            ds_clear(a);
            ds_put_format(a, "trigger_event(event = \"empty_lb_backends\", "
                          "vip = \"%s%s%s:%s\", protocol = \"%s\", "
                          "load_balancer = \""UUID_FMT"\");",
                          vip->ipv6 ? "[" : "", vip->ip,
                          vip->ipv6 ? "]" : "", port, lb->proto,
                          UUID_ARGS(&lb->nb->header_.uuid));
            free(port);
            lflow_add_hint(t, dp, S_LR_IN_DNAT, 130, ds_cstr(m),
                           ds_cstr(a), hint);
        }
        if (!vip->backends_str[0]) {
            return;
        }
        /* (No backend the health checks let through: affinity to them
         * stays, as stock.) */
    } else {
        put_lb_action(a, ls, lb, backends);
        free(usable);
        lflow_add_hint(t, dp, S_LR_IN_DNAT, prio, ds_cstr(m), ds_cstr(a),
                       hint);
    }

    if (!lb->affinity_timeout) {
        return;
    }
    /* Affinity: the VIP in reg0/xxreg0 and its port in reg9[16..31];
     * chk_lb_aff() finds the backend (reg4/xxreg1, reg8[0..15]). */
    const char *vreg = vip->ipv6 ? "xxreg0" : "reg0";
    const char *breg = vip->ipv6 ? "xxreg1" : "reg4";
    ds_clear(m);
    ds_put_cstr(m, "ct.new && !ct.rel && ");
    put_vip_match(m, lb, vip);
    ds_clear(a);
    ds_put_format(a, "%s = %s.dst; ", vreg, fam);
    if (vip->port) {
        ds_put_format(a, "reg9[16..31] = %s.dst; ", lb->proto);
    }
    ds_put_cstr(a, "reg9[6] = chk_lb_aff(); next;");
    lflow_add_hint(t, dp, S_LR_IN_LB_AFF_CHECK, 100, ds_cstr(m), ds_cstr(a),
                   hint);

    struct ds b = DS_EMPTY_INITIALIZER;
    for (size_t i = 0; i < vip->n_backends; i++) {
        const struct lb_backend *be = &vip->backends[i];
        ds_clear(&b);
        if (be->port) {
            ds_put_format(&b, vip->ipv6 ? "[%s]:%"PRIu16 : "%s:%"PRIu16,
                          be->ip, be->port);
        } else {
            ds_put_cstr(&b, be->ip);
        }

        ds_clear(m);
        ds_put_format(m, "reg9[6] == 1 && ct.new && %s && %s == %s", fam,
                      breg, be->ip);
        if (be->port) {
            ds_put_format(m, " && reg8[0..15] == %"PRIu16, be->port);
        }
        ds_clear(a);
        ds_put_format(a, "%s = %s; ", vreg, vip->ip);
        put_lb_action(a, ls, lb, ds_cstr(&b));
        lflow_add_hint(t, dp, S_LR_IN_DNAT, 150, ds_cstr(m), ds_cstr(a),
                       hint);

        ds_clear(m);
        ds_put_format(m, "reg9[6] == 0 && ct.new && %s && %s == %s", fam,
                      vreg, vip->ip);
        if (vip->port) {
            ds_put_format(m, " && reg9[16..31] == %"PRIu16, vip->port);
        }
        ds_put_format(m, " && %s.dst == %s", fam, be->ip);
        if (be->port) {
            ds_put_format(m, " && %s.dst == %"PRIu16, lb->proto, be->port);
        }
        ds_clear(a);
        ds_put_cstr(a, "commit_lb_aff(vip = \"");
        if (vip->port) {
            ds_put_format(a, vip->ipv6 ? "[%s]:%"PRIu16 : "%s:%"PRIu16,
                          vip->ip, vip->port);
        } else {
            ds_put_cstr(a, vip->ip);
        }
        ds_put_format(a, "\", backend = \"%s\", proto = %s, timeout = %"
                      PRIu16"); /* drop */", ds_cstr(&b), lb->proto,
                      lb->affinity_timeout);
        lflow_add_hint(t, dp, S_LR_IN_LB_AFF_LEARN, 100, ds_cstr(m),
                       ds_cstr(a), hint);
    }
    ds_destroy(&b);
}

/* The flows of the VIPs of each load balancer of 'r' (of those in 'only',
 * if nonnull), for the load balancer's own owner (replacing what it had):
 * a backend change rebuilds one load balancer's flows, not the router's
 * (ovn-kubernetes puts every Service on every node's gateway router). */
static void
build_vips(struct lflow_table *t, const struct lr_router *r,
           const struct uuidset *only)
{
    struct lr_lb_set *ls = r->lb;
    struct ds m = DS_EMPTY_INITIALIZER;
    struct ds a = DS_EMPTY_INITIALIZER;
    struct lflow_owner *saved = t->owner;
    for (size_t i = 0; i < ls->n_lbs; i++) {
        const struct lr_lb *lb = &ls->lbs[i];
        if (only && !uuidset_contains(only, &lb->nb->header_.uuid)) {
            continue;
        }
        lflow_owner_clear(t, &ls->owners[i]);
        lflow_table_set_owner(t, &ls->owners[i]);
        for (size_t j = 0; j < lb->n_vips; j++) {
            build_vip(t, r, lb, &lb->vips[j], &m, &a);
        }
    }
    lflow_table_set_owner(t, saved);
    ds_destroy(&m);
    ds_destroy(&a);
}

void
lr_lb_build_lflows(struct lflow_table *t, const struct lr_router *r)
{
    const struct lr_lb_set *ls = r->lb;
    if (!ls || !ls->n_vips) {
        return;
    }
    const struct ls_datapath *dp = r->dp;
    struct ds m = DS_EMPTY_INITIALIZER;
    struct ds a = DS_EMPTY_INITIALIZER;

    build_responders(t, r, &m);
    build_vips(t, r, NULL);

    /* Established and related connections: the SNAT decision their first
     * packet took, kept in ct_mark. */
    static const char *const flags[] = { "force_snat", "skip_snat" };
    for (size_t i = 0; i < ARRAY_SIZE(flags); i++) {
        ds_clear(&m);
        ds_put_format(&m, "ct.est && !ct.rel && !ct.new && ct_mark.natted "
                      "&& ct_mark.%s == 1", flags[i]);
        ds_clear(&a);
        ds_put_format(&a, "flags.%s_for_lb = 1; next;", flags[i]);
        lflow_add(t, dp, S_LR_IN_DNAT, 70, ds_cstr(&m), ds_cstr(&a));
        ds_clear(&m);
        ds_put_format(&m, "ct.rel && !ct.est && !ct.new && ct_mark.%s == 1",
                      flags[i]);
        ds_clear(&a);
        ds_put_format(&a, "flags.%s_for_lb = 1; ct_commit_nat;", flags[i]);
        lflow_add(t, dp, S_LR_IN_DNAT, 70, ds_cstr(&m), ds_cstr(&a));
    }
    lflow_add(t, dp, S_LR_IN_DNAT, 50,
              "ct.est && !ct.rel && !ct.new && ct_mark.natted", "next;");
    lflow_add(t, dp, S_LR_IN_DNAT, 50, "ct.rel && !ct.est && !ct.new",
              "ct_commit_nat;");

    /* Connections to a skip_snat VIP leave unSNATed: on any router with
     * such a load balancer (stock writes it for those alone). */
    for (size_t i = 0; i < ls->n_lbs; i++) {
        if (ls->lbs[i].skip_snat) {
            lflow_add(t, dp, S_LR_OUT_SNAT, 120,
                      "flags.skip_snat_for_lb == 1 && ip", "next;");
            break;
        }
    }
    if (r->chassis && !r->nb->n_nat) {
        lr_nat_build_gw_undnat(t, dp);
    }
    ds_destroy(&m);
    ds_destroy(&a);
}

void
lr_lb_attach_health(struct ls_model *m, const struct lb_health *h)
{
    for (size_t i = 0; m->lr && i < m->lr->n_routers; i++) {
        struct lr_lb_set *ls = m->lr->routers[i].lb;
        if (ls) {
            ls->health = h;
        }
    }
}

void
lr_lb_health_changed(struct ls_model *m, struct lflow_table *t)
{
    /* The flows of the load balancers with health checks, each its own
     * owner's. */
    struct uuidset checked = UUIDSET_INITIALIZER(&checked);
    for (size_t i = 0; m->lr && i < m->lr->n_routers; i++) {
        const struct lr_router *r = &m->lr->routers[i];
        const struct lr_lb_set *ls = r->lb;
        uuidset_clear(&checked);
        for (size_t j = 0; ls && j < ls->n_lbs; j++) {
            if (ls->lbs[j].nb->n_health_check) {
                uuidset_insert(&checked, &ls->lbs[j].nb->header_.uuid);
            }
        }
        if (!uuidset_is_empty(&checked)) {
            COVERAGE_INC(lr_lb_incremental);
            build_vips(t, r, &checked);
        }
    }
    uuidset_destroy(&checked);
}

bool
lr_lb_is_vip(const struct lr_router *r, const char *addr, bool v6)
{
    const struct lr_lb_set *ls = r->lb;
    struct in6_addr a, b;
    if (v6 && !ipv6_parse(addr, &a)) {
        return false;
    }
    for (size_t i = 0; ls && i < ls->n_lbs; i++) {
        const struct lr_lb *lb = &ls->lbs[i];
        for (size_t j = 0; j < lb->n_vips; j++) {
            const struct lb_vip *vip = &lb->vips[j];
            if (vip->ipv6 == v6
                && (!v6 ? !strcmp(vip->ip, addr)
                    : ipv6_parse(vip->ip, &b) && ipv6_addr_equals(&a, &b))) {
                return true;
            }
        }
    }
    return false;
}

void
lr_lb_for_each_reachable_vip(const struct lr_port *p,
                             void (*cb)(const char *addr, bool v6,
                                        void *aux),
                             void *aux)
{
    const struct lr_lb_set *ls = p->router->lb;
    for (size_t i = 0; ls && i < ls->n_lbs; i++) {
        const struct lr_lb *lb = &ls->lbs[i];
        for (size_t j = 0; !lb->is_template && j < lb->n_vips; j++) {
            if (port_reaches(p, &lb->vips[j])) {
                cb(lb->vips[j].ip, lb->vips[j].ipv6, aux);
            }
        }
    }
}

void
lr_lb_for_each_routable_vip(const struct lr_router *r,
                            void (*cb)(const char *addr, void *aux),
                            void *aux)
{
    const struct lr_lb_set *ls = r->lb;
    for (size_t i = 0; ls && i < ls->n_lbs; i++) {
        const struct lr_lb *lb = &ls->lbs[i];
        if (lb->is_template
            || !smap_get_bool(&lb->nb->options, "add_route", false)) {
            continue;
        }
        for (size_t j = 0; j < lb->n_vips; j++) {
            if (!lb->vips[j].ipv6) {
                cb(lb->vips[j].ip, aux);
            }
        }
    }
}

bool
lr_lb_put_vips(const struct lr_router *r, struct ds *s)
{
    const struct lr_lb_set *ls = r->lb;
    if (!ls || !ls->n_vips) {
        return false;
    }
    struct sset seen = SSET_INITIALIZER(&seen);
    /* The IPv4 VIPs, the IPv6 VIPs, then those of template load balancers
     * (variables included, as stock writes them). */
    for (int pass = 0; pass < 3; pass++) {
        for (size_t i = 0; i < ls->n_lbs; i++) {
            const struct lr_lb *lb = &ls->lbs[i];
            if (lb->is_template != (pass == 2)) {
                continue;
            }
            for (size_t j = 0; j < lb->n_vips; j++) {
                const struct lb_vip *vip = &lb->vips[j];
                if ((pass == 2 || vip->ipv6 == pass)
                    && sset_add(&seen, vip->ip)) {
                    ds_put_format(s, " %s", vip->ip);
                }
            }
        }
        if (pass == 1) {
            sset_clear(&seen);
        }
    }
    sset_destroy(&seen);
    return true;
}

/* Whether a switch port wired to 'r' shows its VIPs in its nat_addresses
 * (nat-addresses=router without exclude-lb-vips-from-garp, see
 * router-nat.c). */
static bool
vips_in_garp(const struct ls_model *m, const struct lr_router *r)
{
    for (size_t i = 0; i < r->n_ports; i++) {
        const struct lr_port *p = r->ports[i];
        const struct ls_port *sp = (p->peer ? ls_model_find_port(m, p->peer)
                                    : NULL);
        if (sp) {
            const struct smap *o = &sp->nb->options;
            const char *opt = smap_get(o, "nat-addresses");
            if (opt && !strcmp(opt, "router")
                && !smap_get_bool(o, "exclude-lb-vips-from-garp", false)) {
                return true;
            }
        }
    }
    return false;
}

/* The addresses a router's VIPs show outside their own flows: nat_addresses
 * (every VIP, where a switch port shows them), the switches' requests (the
 * VIPs in a port's networks), those that are NAT addresses (the NAT flows
 * and requests, router-nat.c and router.c), those with add_route (the
 * neighbours' routes), the ARP/ND address sets ('vips4', 'vips6'), and
 * whether there is any, and a load balancer with skip_snat (the router's
 * fixed load balancer flows, lr_lb_build_lflows()). */
static char *
vip_signature(const struct ls_model *m, const struct lr_router *r,
              const struct shash *vips4, const struct shash *vips6)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    if (vips_in_garp(m, r)) {
        lr_lb_put_vips(r, &s);
    }
    ds_put_cstr(&s, " |");

    const struct lr_lb_set *ls = r->lb;
    struct sset reach = SSET_INITIALIZER(&reach);
    struct sset nat = SSET_INITIALIZER(&nat);
    struct sset routable = SSET_INITIALIZER(&routable);
    for (size_t i = 0; i < ls->n_lbs; i++) {
        const struct lr_lb *lb = &ls->lbs[i];
        bool add_route = smap_get_bool(&lb->nb->options, "add_route", false);
        for (size_t j = 0; !lb->is_template && j < lb->n_vips; j++) {
            const struct lb_vip *vip = &lb->vips[j];
            for (size_t q = 0; q < r->n_ports; q++) {
                if (port_reaches(r->ports[q], vip)) {
                    sset_add(&reach, vip->ip);
                    break;
                }
            }
            if (r->nb->n_nat && is_nat_ip(r, vip)) {
                sset_add(&nat, vip->ip);
            }
            if (add_route && !vip->ipv6) {
                sset_add(&routable, vip->ip);
            }
        }
    }
    const struct sset *sets_[] = { &reach, &nat, &routable };
    for (size_t k = 0; k < ARRAY_SIZE(sets_); k++) {
        const char **addrs = sset_sort(sets_[k]);
        for (size_t i = 0; i < sset_count(sets_[k]); i++) {
            ds_put_format(&s, " %s", addrs[i]);
        }
        free(addrs);
        ds_put_cstr(&s, " |");
    }
    sset_destroy(&reach);
    sset_destroy(&nat);
    sset_destroy(&routable);
    bool skip_snat = false;
    for (size_t i = 0; i < ls->n_lbs; i++) {
        skip_snat = skip_snat || ls->lbs[i].skip_snat;
    }
    ds_put_format(&s, " %d %d |", ls->n_vips > 0, skip_snat);

    const struct shash *sets[] = { vips4, vips6 };
    for (size_t i = 0; i < ARRAY_SIZE(sets); i++) {
        const struct shash_node **nodes = shash_sort(sets[i]);
        for (size_t j = 0; j < shash_count(sets[i]); j++) {
            ds_put_format(&s, " %s", nodes[j]->name);
        }
        free(nodes);
        ds_put_cstr(&s, " |");
    }
    return ds_steal_cstr(&s);
}

/* The load balancer of 'ls' with NB UUID 'uuid' (they are in UUID order),
 * or NULL. */
static struct lr_lb *
find_lb(const struct lr_lb_set *ls, const struct uuid *uuid)
{
    size_t lo = 0, hi = ls->n_lbs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int cmp = uuid_compare_3way(&ls->lbs[mid].nb->header_.uuid, uuid);
        if (!cmp) {
            return &ls->lbs[mid];
        } else if (cmp < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return NULL;
}

/* Follows a change to the members of 'r''s load balancer groups (a Service
 * added or removed, in ovn-kubernetes): the load balancers that joined get
 * their flows, those that left lose theirs, those in 'changed' are parsed
 * again and rebuilt, the others keep theirs.  Returns false, with 'r' as
 * it was, if that would change more than their own flows (the VIP
 * addresses shown elsewhere, see vip_signature()) or leave something to
 * report. */
static bool
update_members(struct ls_model *m, struct lflow_table *t, struct lr_router *r,
               const struct uuidset *changed)
{
    struct lr_lb_set *old = r->lb;
    if (!old || !old->n_lbs) {
        return false;
    }
    struct uuidset uuids = UUIDSET_INITIALIZER(&uuids);
    const struct nb_load_balancer **rows;
    size_t n = collect_lbs(r->nb, &uuids, &rows);

    /* The new set, borrowing the parses of the old one's unchanged load
     * balancers: 'src' is each one's index in the old set (SIZE_MAX for a
     * newcomer), 'fresh' whether it was parsed now. */
    struct lr_lb_set tmp = *old;
    tmp.lbs = xcalloc(MAX(n, 1), sizeof *tmp.lbs);
    tmp.n_lbs = 0;
    size_t *src = xmalloc(MAX(n, 1) * sizeof *src);
    bool *fresh = xcalloc(MAX(n, 1), sizeof *fresh);
    bool ok = n > 0;
    for (size_t i = 0; ok && i < n; i++) {
        const struct uuid *uuid = &rows[i]->header_.uuid;
        const struct lr_lb *o = find_lb(old, uuid);
        src[i] = o ? o - old->lbs : SIZE_MAX;
        fresh[i] = !o || uuidset_contains(changed, uuid);
        if (fresh[i]) {
            /* (Health checks: their Service_Monitor rows follow the
             * backends, northd/lb-health.h: a full pass.) */
            ok = (parse_lb(m, false, r, &tmp.lbs[i], rows[i])
                  && !rows[i]->n_health_check);
        } else {
            tmp.lbs[i] = *o;
        }
        tmp.n_lbs++;
    }
    free(rows);

    for (size_t j = 0; ok && j < old->n_lbs; j++) {
        /* One that left, with health checks: a full pass too. */
        ok = (!old->lbs[j].nb->n_health_check
              || uuidset_contains(&uuids, &old->lbs[j].nb->header_.uuid));
    }
    if (ok) {
        char *before = vip_signature(m, r, &old->vips4, &old->vips6);
        struct shash vips4 = SHASH_INITIALIZER(&vips4);
        struct shash vips6 = SHASH_INITIALIZER(&vips6);
        r->lb = &tmp;
        compute_vips(r, &vips4, &vips6);
        char *after = vip_signature(m, r, &vips4, &vips6);
        r->lb = old;
        ok = !strcmp(before, after);
        free(before);
        free(after);
        shash_destroy(&vips4);
        shash_destroy(&vips6);
    }
    if (!ok) {
        for (size_t i = 0; i < tmp.n_lbs; i++) {
            if (fresh[i]) {
                lr_lb_clear(&tmp.lbs[i]);
            }
        }
        free(tmp.lbs);
        free(src);
        free(fresh);
        uuidset_destroy(&uuids);
        return false;
    }

    /* Commit: the owners follow their load balancers; those that left
     * take their flows with them. */
    bool *kept = xcalloc(MAX(old->n_lbs, 1), sizeof *kept);
    struct lflow_owner *owners = xmalloc(MAX(n, 1) * sizeof *owners);
    struct uuidset build = UUIDSET_INITIALIZER(&build);
    for (size_t i = 0; i < n; i++) {
        if (src[i] == SIZE_MAX) {
            lflow_owner_init(&owners[i]);
        } else {
            size_t j = src[i];
            owners[i] = old->owners[j];
            kept[j] = true;
            if (fresh[i]) {
                lr_lb_clear(&old->lbs[j]);
            }
        }
        if (fresh[i]) {
            uuidset_insert(&build, &tmp.lbs[i].nb->header_.uuid);
        }
    }
    for (size_t j = 0; j < old->n_lbs; j++) {
        if (!kept[j]) {
            lflow_owner_clear(t, &old->owners[j]);
            lflow_owner_destroy(&old->owners[j]);
            lr_lb_clear(&old->lbs[j]);
        }
    }
    free(kept);
    free(src);
    free(fresh);
    free(old->lbs);
    free(old->owners);
    old->lbs = tmp.lbs;
    old->owners = owners;
    old->n_lbs = n;
    old->n_vips = tmp.n_vips;
    hmap_swap(&old->uuids.uuids, &uuids.uuids);
    uuidset_destroy(&uuids);
    COVERAGE_INC(lr_lb_incremental);
    build_vips(t, r, &build);
    uuidset_destroy(&build);
    return true;
}

bool
lr_lb_handle_changes(struct ls_model *m, struct rdb *nb_db,
                     struct lflow_table *t, const struct uuidset *changed,
                     const char **reason)
{
    size_t n_routers = m->lr ? m->lr->n_routers : 0;
    bool *renew = xcalloc(MAX(n_routers, 1), sizeof *renew);

    /* The routers with a group that gained or lost a member: their sets
     * are brought up to date whole (update_members()). */
    const struct nb_load_balancer_group *g;
    NB_LOAD_BALANCER_GROUP_FOR_EACH_TRACKED (g, nb_db) {
        for (size_t i = 0; i < n_routers; i++) {
            const struct nb_logical_router *nb = m->lr->routers[i].nb;
            for (size_t j = 0; j < nb->n_load_balancer_group; j++) {
                if (uuid_equals(&nb->load_balancer_group[j]->header_.uuid,
                                &g->header_.uuid)) {
                    renew[i] = true;
                }
            }
        }
    }
    for (size_t i = 0; i < n_routers; i++) {
        if (renew[i] && !update_members(m, t, &m->lr->routers[i], changed)) {
            *reason = "a Load_Balancer_Group on a router (its VIPs)";
            free(renew);
            return false;
        }
    }

    /* On the other routers, only VIPs and backends changed (a load
     * balancer still on the routers it was on: a router's own change is a
     * full pass). */
    const struct uuidset_node *un;
    UUIDSET_FOR_EACH (un, changed) {
        bool elsewhere = false;
        for (size_t i = 0; !elsewhere && i < n_routers; i++) {
            const struct lr_lb_set *ls = m->lr->routers[i].lb;
            elsewhere = (!renew[i] && ls
                         && uuidset_contains(&ls->uuids, &un->uuid));
        }
        if (!elsewhere) {
            continue;
        }
        const struct nb_load_balancer *nb
            = nb_load_balancer_get_for_uuid(nb_db, &un->uuid);
        uint64_t other = ~((UINT64_C(1) << NB_LOAD_BALANCER_COL_VIPS)
                           | (UINT64_C(1) << NB_LOAD_BALANCER_COL_NAME));
        if (!nb || nb_load_balancer_is_deleted(nb)
            || rdb_row_is_new(&nb->header_)
            || rdb_row_updated_columns(&nb->header_) & other) {
            *reason = "a Load_Balancer on a router";
            free(renew);
            return false;
        }
        if (nb->n_health_check) {
            /* Its Service_Monitor rows follow its backends
             * (northd/lb-health.h): a full pass. */
            *reason = "a Load_Balancer with health checks on a router";
            free(renew);
            return false;
        }
    }

    for (size_t i = 0; i < n_routers; i++) {
        struct lr_router *r = &m->lr->routers[i];
        struct lr_lb_set *ls = r->lb;
        bool touched = false;
        UUIDSET_FOR_EACH (un, changed) {
            if (!renew[i] && ls && uuidset_contains(&ls->uuids, &un->uuid)) {
                touched = true;
                break;
            }
        }
        if (!touched) {
            continue;
        }
        char *before = vip_signature(m, r, &ls->vips4, &ls->vips6);
        bool ok = true;
        for (size_t j = 0; ok && j < ls->n_lbs; j++) {
            struct lr_lb *lb = &ls->lbs[j];
            if (uuidset_contains(changed, &lb->nb->header_.uuid)) {
                const struct nb_load_balancer *nb = lb->nb;
                lr_lb_clear(lb);
                ok = parse_lb(m, false, r, lb, nb);
            }
        }
        if (ok) {
            /* The address sets keep theirs: they are the same. */
            struct shash vips4 = SHASH_INITIALIZER(&vips4);
            struct shash vips6 = SHASH_INITIALIZER(&vips6);
            compute_vips(r, &vips4, &vips6);
            char *after = vip_signature(m, r, &vips4, &vips6);
            ok = !strcmp(before, after);
            free(after);
            shash_destroy(&vips4);
            shash_destroy(&vips6);
        }
        free(before);
        if (!ok) {
            /* A VIP to report, or VIP addresses that other flows, the
             * address sets or nat_addresses show. */
            *reason = "a Load_Balancer on a router (its VIPs)";
            free(renew);
            return false;
        }
        COVERAGE_INC(lr_lb_incremental);
        build_vips(t, r, changed);
    }
    free(renew);
    return true;
}

void
lr_lb_on_routers(const struct ls_model *m, struct rdb *nb_db,
                 struct uuidset *out)
{
    for (size_t i = 0; m->lr && i < m->lr->n_routers; i++) {
        const struct lr_lb_set *ls = m->lr->routers[i].lb;
        if (!ls) {
            continue;
        }
        const struct uuidset_node *un;
        UUIDSET_FOR_EACH (un, &ls->uuids) {
            uuidset_insert(out, &un->uuid);
        }
    }
    struct uuidset groups = UUIDSET_INITIALIZER(&groups);
    const struct nb_logical_router *nb;
    NB_LOGICAL_ROUTER_FOR_EACH (nb, nb_db) {
        for (size_t i = 0; i < nb->n_load_balancer; i++) {
            uuidset_insert(out, &nb->load_balancer[i]->header_.uuid);
        }
        for (size_t i = 0; i < nb->n_load_balancer_group; i++) {
            const struct nb_load_balancer_group *g
                = nb->load_balancer_group[i];
            if (uuidset_contains(&groups, &g->header_.uuid)) {
                continue;
            }
            uuidset_insert(&groups, &g->header_.uuid);
            for (size_t j = 0; j < g->n_load_balancer; j++) {
                uuidset_insert(out, &g->load_balancer[j]->header_.uuid);
            }
        }
    }
    uuidset_destroy(&groups);
}
