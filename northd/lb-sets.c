/* The pre-LB flows of the load balancers on one set of switches, in terms
 * of SB address sets of their VIPs and backends; see lb.h.
 *
 * The load balancers on the same switches (directly or through groups:
 * ovn-kubernetes puts every Service in one group on every node's switch)
 * share an "aggregate": counted sets of their VIP addresses, of their
 * backends' addresses (by protocol and address family, and those of VIPs
 * without a port) and of their backends' ports.  Its pre-LB flows, and
 * the ls_in_pre_stateful flows of its VIPs with a port, at most 32
 * whatever the number of VIPs, name the address sets
 * "_lb_<16 hex digits>_<kind>", which northd writes to the SB (through
 * northd/groups.c, as another module's sets): the hex digits are a hash of
 * the switches' NB UUIDs, so the name is the same after a restart or a
 * full pass.  An endpoint change then changes an address set's row, not
 * a flow, unless a backend port or a whole kind appears or goes.
 *
 * If an NB address set (or a port group's, or another aggregate's) has
 * one of the names, the aggregate claims none and its load balancers
 * compile per-VIP pre-LB flows as before (northd/lb.c), and the collision
 * is logged. */
#include <config.h>
#include "northd/lb.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "coverage.h"
#include "hash.h"
#include "lib/nb-rdb.h"
#include "northd/datapaths.h"
#include "northd/features.h"
#include "northd/groups.h"
#include "northd/lflow.h"
#include "northd/pipeline.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(lb_sets);

COVERAGE_DEFINE(lb_sets_rebuilt);
COVERAGE_DEFINE(lb_sets_name_taken);

/* The kinds of addresses an aggregate collects: its sets' name suffixes.
 * None ends in "_ip4" or "_ip6", the names of port groups' sets. */
enum lb_set_kind {
    LBS_VIP4, LBS_VIP6,             /* VIP addresses. */
    LBS_TCP4, LBS_TCP6,             /* Backends of VIPs with a port... */
    LBS_UDP4, LBS_UDP6,
    LBS_SCTP4, LBS_SCTP6,
    LBS_ANY4, LBS_ANY6,             /* ...and of VIPs without one. */
    LBS_VTCP4, LBS_VTCP6,           /* Addresses of VIPs with a port. */
    LBS_VUDP4, LBS_VUDP6,
    LBS_VSCTP4, LBS_VSCTP6,
    N_LBS
};
static const char *const kind_suffix[N_LBS] = {
    "vip4", "vip6", "tcp4", "tcp6", "udp4", "udp6", "sctp4", "sctp6",
    "be4", "be6", "vtcp4", "vtcp6", "vudp4", "vudp6", "vsctp4", "vsctp6",
};
static const char *const kind_proto[N_LBS] = {
    NULL, NULL, "tcp", "tcp", "udp", "udp", "sctp", "sctp", NULL, NULL,
    "tcp", "tcp", "udp", "udp", "sctp", "sctp",
};

struct lb_agg {
    struct hmap_node node;          /* In lb_model 'aggs', by bitmap. */
    unsigned long *dps;             /* The switches ('dp_cap' bits)... */
    size_t n_dps;                   /* ...how many. */
    size_t n_lbs;                   /* Load balancers in it. */
    char *prefix;                   /* "_lb_<hex>". */
    struct shash addrs[N_LBS];      /* Address -> count (uintptr_t). */
    struct shash ports[N_LBS];      /* Backend port -> count, per kind
                                     * LBS_TCP4...LBS_SCTP6. */
    bool claimed;                   /* groups.c has its sets. */
    bool inline_flows;              /* Could not claim them: per-VIP
                                     * pre-LB flows (lb.c). */
    bool dirty;                     /* Its flows to rebuild. */
    struct lflow_owner owner;
};

static uint32_t
dps_hash(const unsigned long *dps, size_t dp_cap)
{
    return hash_bytes(dps, bitmap_n_bytes(MAX(dp_cap, 1)), 0);
}

static char *
set_name(const struct lb_agg *agg, enum lb_set_kind k)
{
    return xasprintf("%s_%s", agg->prefix, kind_suffix[k]);
}

/* "_lb_" and 64 bits of a hash of the switches' NB UUIDs that does not
 * depend on their order (nor on their indexes or tunnel keys, which a
 * restart, or another history of the same NB, may choose otherwise). */
static char *
agg_prefix(const struct ls_model *m, const unsigned long *dps,
           size_t dp_cap)
{
    uint64_t h = 0;
    size_t dp, n = 0;
    BITMAP_FOR_EACH_1 (dp, MIN(dp_cap, m->n_datapaths), dps) {
        const struct uuid *u = &m->dp_array[dp]->nb->header_.uuid;
        uint64_t x = ((uint64_t) hash_bytes(u, sizeof *u, 0x2545f491) << 32
                      | hash_bytes(u, sizeof *u, 0x9e3779b9));
        h += x * UINT64_C(0xff51afd7ed558ccd) + x;
        n++;
    }
    h += n * UINT64_C(0x9e3779b97f4a7c15);
    return xasprintf("_lb_%016"PRIx64, h);
}

/* Claims the sets of 'agg' in 'g', all or none. */
static void
agg_claim(struct lb_agg *agg, struct groups *g)
{
    if (agg->claimed || agg->inline_flows) {
        return;
    }
    for (int k = 0; k < N_LBS; k++) {
        char *name = set_name(agg, k);
        bool ok = groups_ext_set_put(g, name, &agg->addrs[k]);
        if (!ok) {
            static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);
            COVERAGE_INC(lb_sets_name_taken);
            VLOG_WARN_RL(&rl, "address set %s, which northd would write for "
                         "the VIPs and backends of the load balancers on "
                         "%"PRIuSIZE" switches, already exists: their pre-LB "
                         "flows name each VIP's addresses instead", name,
                         agg->n_dps);
            free(name);
            for (int j = 0; j < k; j++) {
                char *other = set_name(agg, j);
                groups_ext_set_drop(g, other);
                free(other);
            }
            agg->inline_flows = true;
            return;
        }
        free(name);
    }
    agg->claimed = true;
}

static struct lb_agg *
agg_find(const struct lb_model *lm, const unsigned long *dps, uint32_t hash)
{
    struct lb_agg *agg;
    size_t n = bitmap_n_bytes(MAX(lm->dp_cap, 1));
    HMAP_FOR_EACH_WITH_HASH (agg, node, hash, &lm->aggs) {
        if (!memcmp(agg->dps, dps, n)) {
            return agg;
        }
    }
    return NULL;
}

static struct lb_agg *
agg_get(struct lb_model *lm, const struct ls_model *m,
        const unsigned long *dps)
{
    uint32_t hash = dps_hash(dps, lm->dp_cap);
    struct lb_agg *agg = agg_find(lm, dps, hash);
    if (agg) {
        return agg;
    }
    agg = xzalloc(sizeof *agg);
    agg->dps = bitmap_clone(dps, MAX(lm->dp_cap, 1));
    agg->n_dps = bitmap_count1(dps, MAX(lm->dp_cap, 1));
    agg->prefix = agg_prefix(m, dps, lm->dp_cap);
    for (int k = 0; k < N_LBS; k++) {
        shash_init(&agg->addrs[k]);
        shash_init(&agg->ports[k]);
    }
    lflow_owner_init(&agg->owner);
    agg->dirty = true;
    hmap_insert(&lm->aggs, &agg->node, hash);
    if (lm->sets) {
        agg_claim(agg, lm->sets);
    }
    return agg;
}

static void
agg_free(struct lb_agg *agg)
{
    for (int k = 0; k < N_LBS; k++) {
        shash_destroy(&agg->addrs[k]);
        shash_destroy(&agg->ports[k]);
    }
    lflow_owner_destroy(&agg->owner);
    bitmap_free(agg->dps);
    free(agg->prefix);
    free(agg);
}

/* Adds 'delta' (1 or -1) to the count of 's' in 'set'; true if 's' joined
 * or left it. */
static bool
count_add(struct shash *set, const char *s, int delta)
{
    struct shash_node *node = shash_find(set, s);
    if (delta > 0) {
        if (node) {
            node->data = (void *) ((uintptr_t) node->data + 1);
            return false;
        }
        shash_add(set, s, (void *) (uintptr_t) 1);
        return true;
    }
    ovs_assert(node);
    uintptr_t n = (uintptr_t) node->data - 1;
    if (n) {
        node->data = (void *) n;
        return false;
    }
    return true;                    /* The caller deletes it. */
}

static void
agg_count_addr(struct lb_model *lm, struct lb_agg *agg, enum lb_set_kind k,
               const char *addr, int delta)
{
    struct shash *set = &agg->addrs[k];
    bool was_empty = shash_is_empty(set);
    if (!count_add(set, addr, delta)) {
        return;
    }
    if (agg->claimed && lm->sets) {
        char *name = set_name(agg, k);
        groups_ext_set_changed(lm->sets, name, addr, delta > 0);
        free(name);
    }
    if (delta < 0) {
        shash_find_and_delete(set, addr);
    }
    if (was_empty != shash_is_empty(set)) {
        agg->dirty = true;
    }
}

static void
agg_count_port(struct lb_agg *agg, enum lb_set_kind k, uint16_t port,
               int delta)
{
    char s[6];
    snprintf(s, sizeof s, "%"PRIu16, port);
    if (count_add(&agg->ports[k], s, delta)) {
        if (delta < 0) {
            shash_find_and_delete(&agg->ports[k], s);
        }
        agg->dirty = true;
    }
}

static enum lb_set_kind
backend_kind(const struct lb *lb, const struct lb_vip *vip)
{
    int f = vip->ipv6;
    if (!vip->port) {
        return LBS_ANY4 + f;
    } else if (!strcmp(lb->proto, "udp")) {
        return LBS_UDP4 + f;
    } else if (!strcmp(lb->proto, "sctp")) {
        return LBS_SCTP4 + f;
    }
    return LBS_TCP4 + f;
}

/* Adds ('delta' 1) or takes back (-1) what 'lb' contributes to 'agg'. */
static void
agg_account(struct lb_model *lm, struct lb_agg *agg, const struct lb *lb,
            int delta)
{
    for (size_t i = 0; i < lb->n_vips; i++) {
        const struct lb_vip *vip = &lb->vips[i];
        agg_count_addr(lm, agg, LBS_VIP4 + vip->ipv6, vip->ip, delta);
        enum lb_set_kind k = backend_kind(lb, vip);
        if (vip->port) {
            agg_count_addr(lm, agg, k - LBS_TCP4 + LBS_VTCP4, vip->ip, delta);
        }
        for (size_t j = 0; j < vip->n_backends; j++) {
            const struct lb_backend *b = &vip->backends[j];
            agg_count_addr(lm, agg, k, b->ip, delta);
            if (vip->port) {
                agg_count_port(agg, k, b->port, delta);
            }
        }
    }
    agg->n_lbs += delta;
}

static bool
lb_in_agg(const struct lb *lb)
{
    return lb->n_dps && lb->n_vips && !lb->opts.is_template;
}

void
lb_agg_join(struct lb_model *lm, const struct ls_model *m, struct lb *lb)
{
    ovs_assert(!lb->agg);
    if (lb_in_agg(lb)) {
        lb->agg = agg_get(lm, m, lb->dps);
        agg_account(lm, lb->agg, lb, 1);
    }
}

void
lb_agg_leave(struct lb_model *lm, struct lb *lb)
{
    if (lb->agg) {
        agg_account(lm, lb->agg, lb, -1);
        lb->agg->dirty |= !lb->agg->n_lbs;
        lb->agg = NULL;
    }
}

bool
lb_agg_inline(const struct lb *lb)
{
    return !lb->agg || lb->agg->inline_flows;
}

void
lb_aggs_attach_groups(struct lb_model *lm, struct groups *g)
{
    lm->sets = g;
    /* A full pass: its sync compares every set, nothing to mark. */
    bool building = g->building;
    g->building = true;
    struct lb_agg *agg;
    HMAP_FOR_EACH (agg, node, &lm->aggs) {
        agg_claim(agg, g);
    }
    g->building = building;
}

static int
compare_ports(const void *a_, const void *b_)
{
    const struct shash_node *const *a = a_;
    const struct shash_node *const *b = b_;
    return atoi((*a)->name) - atoi((*b)->name);
}

/* "P" or "{P, Q, ...}", in numeric order. */
static void
put_ports(struct ds *out, const struct shash *ports)
{
    size_t n = shash_count(ports);
    const struct shash_node **v = xmalloc(MAX(n, 1) * sizeof *v);
    size_t i = 0;
    const struct shash_node *node;
    SHASH_FOR_EACH (node, ports) {
        v[i++] = node;
    }
    qsort(v, n, sizeof *v, compare_ports);
    if (n > 1) {
        ds_put_char(out, '{');
    }
    for (i = 0; i < n; i++) {
        ds_put_format(out, "%s%s", i ? ", " : "", v[i]->name);
    }
    if (n > 1) {
        ds_put_char(out, '}');
    }
    free(v);
}

/* The pre-LB flows of 'agg' (docs/load-balancers.md): into conntrack,
 * traffic to a VIP address; from a backend address and port (or an ICMP
 * error from a backend address), both ways; to a backend address and port
 * on the way out.  Each names the kind's address set; the ports are
 * matched as a set of all the kind's backend ports. */
static void
agg_build_lflows(struct lflow_table *t, struct lb_agg *agg,
                 const struct ls_features *features)
{
    if (agg->inline_flows || !agg->n_lbs) {
        return;
    }
    struct lflow_owner *saved = t->owner;
    lflow_table_set_owner(t, &agg->owner);
    const char *ct = REGBIT_CONNTRACK_NAT" = 1; next;";
    struct ds match = DS_EMPTY_INITIALIZER;
    struct ds ports = DS_EMPTY_INITIALIZER;
    for (int k = 0; k < N_LBS; k++) {
        if (shash_is_empty(&agg->addrs[k])) {
            continue;
        }
        int f = k & 1;
        const char *ipf = f ? "ip6" : "ip4";
        const char *icmp = f ? "icmp6" : "icmp4";
        const char *proto = kind_proto[k];
        char *name = set_name(agg, k);
        if (k >= LBS_VTCP4) {
            /* Remember the VIP for hairpin detection and affinity, then
             * let conntrack NAT: the VIP's own flow in stock 23.03 and
             * for a VIP without a port (northd/lb.c), one for all of them
             * here, which takes the VIP and port from the packet.  (Also
             * for another port of a VIP's address, which no VIP matches
             * in ls_in_lb, ls_in_lb_aff_check or the hairpin flows.) */
            ds_clear(&match);
            ds_put_format(&match, REGBIT_CONNTRACK_NAT" == 1 && %s.dst == $%s"
                          " && %s", ipf, name, proto);
            struct ds actions = DS_EMPTY_INITIALIZER;
            ds_put_format(&actions, "%s = %s.dst; "REG_ORIG_TP_DPORT
                          " = %s.dst; %s;",
                          f ? REG_ORIG_DIP_IPV6 : REG_ORIG_DIP_IPV4, ipf,
                          proto, ls_features_ct_lb(features));
            lflow_add_dps_hint(t, agg->dps, S_IN_PRE_STATEFUL, 120,
                               ds_cstr(&match), ds_cstr(&actions), NULL);
            ds_destroy(&actions);
            free(name);
            continue;
        }
        if (k == LBS_VIP4 || k == LBS_VIP6) {
            ds_clear(&match);
            ds_put_format(&match, "%s.dst == $%s", ipf, name);
            lflow_add_dps_hint(t, agg->dps, S_IN_PRE_LB, 100,
                               ds_cstr(&match), ct, NULL);
            free(name);
            continue;
        }

        /* From a backend. */
        ds_clear(&match);
        if (proto) {
            ds_clear(&ports);
            put_ports(&ports, &agg->ports[k]);
            ds_put_format(&match, "%s.src == $%s && (%s.src == %s || %s)",
                          ipf, name, proto, ds_cstr(&ports), icmp);
        } else {
            ds_put_format(&match, "%s.src == $%s", ipf, name);
        }
        lflow_add_dps_hint(t, agg->dps, S_OUT_PRE_LB, 100, ds_cstr(&match),
                           ct, NULL);
        lflow_add_dps_hint(t, agg->dps, S_IN_PRE_LB, 100, ds_cstr(&match),
                           ct, NULL);

        /* To a backend. */
        ds_clear(&match);
        ds_put_format(&match, "%s.dst == $%s", ipf, name);
        if (proto) {
            ds_put_format(&match, " && %s.dst == %s", proto, ds_cstr(&ports));
        }
        lflow_add_dps_hint(t, agg->dps, S_OUT_PRE_LB, 100, ds_cstr(&match),
                           ct, NULL);
        free(name);
    }
    ds_destroy(&match);
    ds_destroy(&ports);
    lflow_table_set_owner(t, saved);
    agg->dirty = false;
}

void
lb_aggs_build_lflows(struct lflow_table *t, struct lb_model *lm,
                     const struct ls_features *features)
{
    struct lb_agg *agg;
    HMAP_FOR_EACH (agg, node, &lm->aggs) {
        agg_build_lflows(t, agg, features);
    }
}

void
lb_aggs_flush(struct lb_model *lm, struct lflow_table *t,
              const struct ls_features *features)
{
    struct lb_agg *agg;
    HMAP_FOR_EACH_SAFE (agg, node, &lm->aggs) {
        if (!agg->dirty) {
            continue;
        }
        COVERAGE_INC(lb_sets_rebuilt);
        lflow_owner_clear(t, &agg->owner);
        if (agg->n_lbs) {
            agg_build_lflows(t, agg, features);
            continue;
        }
        if (agg->claimed && lm->sets) {
            for (int k = 0; k < N_LBS; k++) {
                char *name = set_name(agg, k);
                groups_ext_set_drop(lm->sets, name);
                free(name);
            }
        }
        hmap_remove(&lm->aggs, &agg->node);
        agg_free(agg);
    }
}

void
lb_aggs_destroy(struct lb_model *lm)
{
    struct lb_agg *agg;
    HMAP_FOR_EACH_POP (agg, node, &lm->aggs) {
        agg_free(agg);
    }
    hmap_destroy(&lm->aggs);
}
