/* Distributed gateway ports; see router-gw.h and docs/routers.md. */
#include <config.h>
#include "northd/router-gw.h"

#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "hash.h"
#include "hmapx.h"
#include "lib/lex.h"
#include "lib/nb-rdb.h"
#include "lib/rdb.h"
#include "lib/sb-rdb.h"
#include "lib/tnlid.h"
#include "northd/datapaths.h"
#include "northd/ha-groups.h"
#include "northd/lflow.h"
#include "northd/router.h"
#include "northd/router-nat.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "smap.h"
#include "svec.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(router_gw);

COVERAGE_DEFINE(lr_dgp_built);
COVERAGE_DEFINE(lr_cr_pb_created);

#define LR_PORT_KEY_MIN 1
#define LR_PORT_KEY_MAX 32767

static void OVS_PRINTF_FORMAT(2, 3)
gw_report(struct ls_model *m, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *msg = xvasprintf(format, args);
    va_end(args);
    ls_model_report_bad_row(m, msg);
    free(msg);
}

void
lr_gw_port_destroy(struct lr_port *p)
{
    if (p->dgp) {
        free(p->dgp->cr_name);
        free(p->dgp->cr_qname);
        free(p->dgp);
        p->dgp = NULL;
    }
}

/* Whether switch 'dp' has a port of type 'type'. */
static bool
switch_has_type(const struct ls_datapath *dp, const char *type)
{
    const struct ls_port *q;
    LIST_FOR_EACH (q, dp_node, &dp->ports) {
        if (!strcmp(q->nb->type, type)) {
            return true;
        }
    }
    return false;
}

static const struct ls_datapath *
peer_switch(const struct ls_model *m, const struct lr_port *p)
{
    const struct ls_port *sp = p->peer ? ls_model_find_port(m, p->peer)
                                       : NULL;
    return sp ? sp->dp : NULL;
}

/* Makes 'p' a distributed gateway port if its row says so. */
static void
parse_dgp(struct ls_model *m, struct lr_port *p,
          const struct shash *sb_ports)
{
    const struct nb_logical_router_port *nb = p->nb;
    if (!nb->ha_chassis_group && !nb->n_gateway_chassis) {
        return;
    }
    char *cr_name = xasprintf("cr-%s", nb->name);
    if (ls_model_find_port(m, cr_name)
        || lr_model_find_port(m->lr, cr_name)) {
        gw_report(m, "Logical_Router_Port %s ("UUID_FMT"): another port is "
                  "named %s: not a distributed gateway port", nb->name,
                  UUID_ARGS(&nb->header_.uuid), cr_name);
        free(cr_name);
        return;
    }
    if (nb->ha_chassis_group && nb->n_gateway_chassis) {
        gw_report(m, "Logical_Router_Port %s ("UUID_FMT"): both "
                  "ha_chassis_group and gateway_chassis: the latter is "
                  "ignored, as stock", nb->name,
                  UUID_ARGS(&nb->header_.uuid));
    }
    struct lr_dgp *d = xzalloc(sizeof *d);
    d->cr_name = cr_name;
    struct ds q = DS_EMPTY_INITIALIZER;
    lex_put_string(&q, cr_name);
    d->cr_qname = ds_steal_cstr(&q);
    d->group = nb->ha_chassis_group ? nb->ha_chassis_group->name : nb->name;
    d->redirect_type = smap_get(&nb->options, "redirect-type");
    d->bridged = d->redirect_type && !strcmp(d->redirect_type, "bridged");
    d->sb = shash_find_data(sb_ports, cr_name);
    if (d->sb) {
        d->sb_uuid = d->sb->header_.uuid;
    }
    p->dgp = d;
    COVERAGE_INC(lr_dgp_built);
}

/* Tunnel keys of router 'r''s chassisredirect ports: kept, else new ones
 * after its router ports'. */
static void
assign_cr_keys(struct lr_router *r)
{
    struct tnlid_set keys;
    tnlid_set_init(&keys, LR_PORT_KEY_MIN, LR_PORT_KEY_MAX);
    for (size_t i = 0; i < r->n_ports; i++) {
        tnlid_reserve(&keys, r->ports[i]->tunnel_key);
    }
    for (size_t i = 0; i < r->n_ports; i++) {
        struct lr_dgp *d = r->ports[i]->dgp;
        if (d && d->sb && r->dp->sb && d->sb->datapath == r->dp->sb
            && tnlid_reserve(&keys, d->sb->tunnel_key)) {
            d->tunnel_key = d->sb->tunnel_key;
        }
    }
    for (size_t i = 0; i < r->n_ports; i++) {
        struct lr_dgp *d = r->ports[i]->dgp;
        if (d && !d->tunnel_key) {
            d->tunnel_key = tnlid_allocate(&keys);
        }
    }
    tnlid_set_destroy(&keys);
}

void
lr_gw_build(struct ls_model *m, const struct shash *sb_ports)
{
    struct lr_model *lr = m->lr;
    for (size_t i = 0; i < lr->n_routers; i++) {
        struct lr_router *r = &lr->routers[i];
        /* In NB order, for 'dgp0'. */
        for (size_t j = 0; j < r->nb->n_ports; j++) {
            struct lr_port *p = NULL;
            for (size_t k = 0; k < r->n_ports && !p; k++) {
                if (r->ports[k]->nb == r->nb->ports[j]) {
                    p = r->ports[k];
                }
            }
            if (!p || p->dgp) {
                continue;
            }
            parse_dgp(m, p, sb_ports);
            if (p->dgp) {
                if (!r->dgp0) {
                    r->dgp0 = p;
                }
                r->n_dgps++;
                lr->n_dgps++;
            }
        }
        if (r->n_dgps) {
            assign_cr_keys(r);
            lr_nat_check_dgps(m, r);
        }
    }
    if (!lr->n_dgps) {
        return;
    }

    for (size_t i = 0; i < lr->n_routers; i++) {
        struct lr_router *r = &lr->routers[i];
        if (!r->n_dgps) {
            continue;
        }
        for (size_t j = 0; j < r->n_ports; j++) {
            struct lr_port *p = r->ports[j];
            const struct ls_datapath *sw = peer_switch(m, p);
            if (p->dgp) {
                /* A vtep port on the peer switch: traffic is not always
                 * redirected (stock). */
                p->dgp->vtep = sw && switch_has_type(sw, "vtep");
                p->dgp->always_redirect = (!p->dgp->bridged
                                           && !lr_nat_has_distributed(r)
                                           && !p->dgp->vtep);
            }
            bool reside = smap_get_bool(&p->nb->options,
                                        "reside-on-redirect-chassis", false);
            if (reside && !p->dgp && r->n_dgps > 1) {
                gw_report(m, "Logical_Router_Port %s ("UUID_FMT"): "
                          "reside-on-redirect-chassis needs a router with "
                          "one distributed gateway port; router %s has "
                          "%"PRIuSIZE": ignored, as stock", p->nb->name,
                          UUID_ARGS(&p->nb->header_.uuid), r->nb->name,
                          r->n_dgps);
            }
            if (!sw || !switch_has_type(sw, "localnet")) {
                continue;
            }
            if (p->dgp) {
                p->ln_resident = p->dgp->cr_qname;
            } else if (r->n_dgps == 1 && reside) {
                p->ln_resident = r->dgp0->dgp->cr_qname;
            }
        }
    }

    /* Whether a switch has localnet or vtep ports changes these flows: a
     * change to such a port recomputes (lr_model_lsp_touches()). */
    const struct ls_port *sp;
    HMAP_FOR_EACH (sp, name_node, &m->ports) {
        if (!strcmp(sp->nb->type, "localnet")
            || !strcmp(sp->nb->type, "vtep")) {
            sset_add(&lr->claims, sp->nb->name);
        }
    }
}

const char *
lr_gw_ln_resident(const struct lr_port *p)
{
    return p->ln_resident;
}

/* SB. */

void
lr_gw_port_garp(const struct lr_port *rp, struct svec *out)
{
    if (!rp->router->n_dgps) {
        return;
    }
    const struct lr_dgp *d = rp->dgp;
    if (!d) {
        if (rp->router->n_dgps > 1
            || !smap_get_bool(&rp->nb->options, "reside-on-redirect-chassis",
                              false)) {
            return;             /* (Reported by lr_gw_build().) */
        }
        d = rp->router->dgp0->dgp;
    }
    struct ds s = DS_EMPTY_INITIALIZER;
    ds_put_cstr(&s, rp->mac_s);
    for (size_t i = 0; i < rp->n_ip4; i++) {
        ds_put_format(&s, " %s", rp->ip4[i].addr_s);
    }
    ds_put_format(&s, " is_chassis_resident(%s)", d->cr_qname);
    svec_add_nocopy(out, ds_steal_cstr(&s));
    svec_sort_unique(out);
}

void
lr_gw_keep_pbs(const struct lr_model *lr, struct hmapx *keep)
{
    const struct lr_port *p;
    HMAP_FOR_EACH (p, name_node, &lr->ports) {
        if (p->dgp && p->dgp->sb) {
            hmapx_add(keep, (void *) p->dgp->sb);
        }
    }
}

static void
sync_cr_port(struct ls_model *m, struct rdb_txn *txn, struct lr_port *p)
{
    struct lr_dgp *d = p->dgp;
    const struct sb_port_binding *pb = d->sb;
    const struct ls_datapath *dp = p->router->dp;
    if (!pb) {
        if (uuid_is_zero(&d->sb_uuid)) {
            rdb_uuid_generate(&d->sb_uuid);
            COVERAGE_INC(lr_cr_pb_created);
        }
        rdb_txn_insert(txn, &sb_table_port_binding, &d->sb_uuid);
        rdb_txn_set_string(txn, SB_PORT_BINDING_COL_LOGICAL_PORT,
                           d->cr_name);
    } else {
        rdb_txn_update(txn, &sb_table_port_binding, &d->sb_uuid);
    }
    if (!pb || !RDB_ROW_IS(pb->datapath, &dp->sb_uuid)) {
        rdb_txn_set_ref(txn, SB_PORT_BINDING_COL_DATAPATH, &dp->sb_uuid);
    }
    if (!pb || pb->tunnel_key != d->tunnel_key) {
        rdb_txn_set_integer(txn, SB_PORT_BINDING_COL_TUNNEL_KEY,
                            d->tunnel_key);
    }
    if (!pb || strcmp(pb->type, "chassisredirect")) {
        rdb_txn_set_string(txn, SB_PORT_BINDING_COL_TYPE, "chassisredirect");
    }
    struct smap options = SMAP_INITIALIZER(&options);
    smap_add(&options, "distributed-port", p->nb->name);
    if (d->redirect_type) {
        smap_add(&options, "redirect-type", d->redirect_type);
    }
    if (d->always_redirect) {
        smap_add(&options, "always-redirect", "true");
    }
    lr_port_sync_pb_options_mac(txn, p, pb, &options);

    const struct uuid *group = ha_groups_find(m, d->group);
    if (!pb || (group
                ? !RDB_ROW_IS(pb->ha_chassis_group, group)
                : pb->ha_chassis_group != NULL)) {
        if (group) {
            rdb_txn_set_ref(txn, SB_PORT_BINDING_COL_HA_CHASSIS_GROUP, group);
        } else if (pb) {
            rdb_txn_set_refs(txn, SB_PORT_BINDING_COL_HA_CHASSIS_GROUP,
                             NULL, 0);
        }
    }
    if (!pb || !pb->n_up) {
        bool down = false;
        rdb_txn_set_bools(txn, SB_PORT_BINDING_COL_UP, &down, 1);
    }
}

void
lr_gw_sync_ports(struct ls_model *m, struct rdb_txn *txn)
{
    if (!m->lr->n_dgps) {
        return;
    }
    struct lr_port *p;
    HMAP_FOR_EACH (p, name_node, &m->lr->ports) {
        if (p->dgp) {
            sync_cr_port(m, txn, p);
        }
    }
}

/* HA chassis groups. */

static size_t
uf_find(size_t *parent, size_t i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

static size_t
group_size(const struct lr_port *p)
{
    const struct nb_ha_chassis_group *g = p->nb->ha_chassis_group;
    return g ? g->n_ha_chassis : p->nb->n_gateway_chassis;
}

bool
lr_gw_has_ref_groups(const struct ls_model *m)
{
    if (!m->lr || !m->lr->n_dgps) {
        return false;
    }
    const struct lr_port *p;
    HMAP_FOR_EACH (p, name_node, &m->lr->ports) {
        if (p->dgp && group_size(p) > 1) {
            return true;
        }
    }
    return false;
}

void
lr_gw_collect_groups(const struct ls_model *m, struct shash *wanted)
{
    if (!m->lr || !m->lr->n_dgps) {
        return;
    }
    /* Routers and switches connected to each other, as union-find over
     * datapath indexes. */
    size_t n = m->dp_cap;
    size_t *parent = xmalloc(MAX(n, 1) * sizeof *parent);
    for (size_t i = 0; i < n; i++) {
        parent[i] = i;
    }
    const struct lr_port *p;
    HMAP_FOR_EACH (p, name_node, &m->lr->ports) {
        const struct ls_datapath *sw = peer_switch(m, p);
        const struct ls_datapath *other = (sw ? sw
                                           : p->rpeer ? p->rpeer->router->dp
                                           : NULL);
        if (other) {
            size_t a = uf_find(parent, p->router->dp->index);
            size_t b = uf_find(parent, other->index);
            parent[a] = b;
        }
    }

    /* The groups, and the chassis sets of their routers' components. */
    struct hmapx **sets = xcalloc(MAX(n, 1), sizeof *sets);
    struct ha_want **refs = xcalloc(MAX(m->lr->n_dgps, 1), sizeof *refs);
    size_t *ref_roots = xcalloc(MAX(m->lr->n_dgps, 1), sizeof *ref_roots);
    size_t n_refs = 0;
    HMAP_FOR_EACH (p, name_node, &m->lr->ports) {
        if (!p->dgp || shash_find(wanted, p->dgp->group)) {
            continue;
        }
        struct ha_want *w = xzalloc(sizeof *w);
        w->name = p->dgp->group;
        w->nb = p->nb->ha_chassis_group;
        w->lrp = w->nb ? NULL : p->nb;
        hmapx_init(&w->ref_chassis);
        shash_add(wanted, w->name, w);
        if (group_size(p) > 1) {
            size_t root = uf_find(parent, p->router->dp->index);
            if (!sets[root]) {
                sets[root] = xmalloc(sizeof *sets[root]);
                hmapx_init(sets[root]);
            }
            refs[n_refs] = w;
            ref_roots[n_refs++] = root;
        }
    }
    if (n_refs) {
        const struct ls_port *sp;
        HMAP_FOR_EACH (sp, name_node, &m->ports) {
            if (sp->sb && sp->sb->chassis) {
                struct hmapx *set = sets[uf_find(parent, sp->dp->index)];
                if (set) {
                    hmapx_add(set, (void *) sp->sb->chassis);
                }
            }
        }
        for (size_t i = 0; i < n_refs; i++) {
            struct hmapx_node *node;
            HMAPX_FOR_EACH (node, sets[ref_roots[i]]) {
                hmapx_add(&refs[i]->ref_chassis, node->data);
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (sets[i]) {
            hmapx_destroy(sets[i]);
            free(sets[i]);
        }
    }
    free(sets);
    free(refs);
    free(ref_roots);
    free(parent);
}

/* Flows. */

void
lr_gw_build_lflows(struct lflow_table *t, const struct lr_router *r)
{
    if (!r->n_dgps) {
        return;
    }
    struct ds m = DS_EMPTY_INITIALIZER;
    struct ds a = DS_EMPTY_INITIALIZER;
    for (size_t i = 0; i < r->n_ports; i++) {
        const struct lr_port *p = r->ports[i];
        const struct lr_dgp *d = p->dgp;
        if (!d || d->vtep) {
            continue;
        }
        const struct uuid *hint = &p->nb->header_.uuid;
        ds_clear(&m);
        ds_put_format(&m, "outport == %s", p->qname);
        ds_clear(&a);
        ds_put_format(&a, "outport = %s; next;", d->cr_qname);
        lflow_add_hint(t, r->dp, S_LR_IN_GW_REDIRECT, 50, ds_cstr(&m),
                       ds_cstr(&a), hint);
        if (d->bridged) {
            /* Off the gateway chassis, traffic out of the port goes there
             * over the localnet port, to the port's MAC. */
            ds_put_format(&m, " && !is_chassis_resident(%s)", d->cr_qname);
            ds_clear(&a);
            ds_put_format(&a, "eth.dst = %s; next;", p->mac_s);
            lflow_add_hint(t, r->dp, S_LR_IN_ARP_RESOLVE, 50, ds_cstr(&m),
                           ds_cstr(&a), hint);
        }
    }
    ds_destroy(&m);
    ds_destroy(&a);
}
