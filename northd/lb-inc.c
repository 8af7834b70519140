/* Load balancers in incremental passes; see lb.h.
 *
 * A load balancer's flows are its own (its 'owner', on its set of
 * switches) and depend on nothing but its NB row and that set, so a
 * change to its row, to a group listing it or to a switch's attachments
 * rebuilds the flows and the SB row of the load balancers concerned only.
 * The model keeps, for that, each load balancer by NB UUID, each group's
 * members (sorted, to tell which joined or left when the group changes),
 * and per switch how many load balancers with VIPs it has: a switch that
 * gains its first VIP or loses its last changes class (its fixed flows,
 * its router ports' and its ACLs' depend on it), which the caller
 * follows. */
#include <config.h>
#include "northd/lb.h"

#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "coverage.h"
#include "hash.h"
#include "hmapx.h"
#include "lib/nb-rdb.h"
#include "lib/sb-rdb.h"
#include "northd/datapaths.h"
#include "northd/dp-groups.h"
#include "northd/router-lb.h"
#include "openvswitch/vlog.h"
#include "util.h"
#include "uuid.h"
#include "uuidset.h"

VLOG_DEFINE_THIS_MODULE(lb_inc);

COVERAGE_DEFINE(lb_inc_rebuilt);

struct lb_index {
    struct hmap_node node;          /* In lb_model 'index'. */
    struct uuid uuid;               /* NB row. */
    size_t idx;                     /* In lb_model 'lbs'. */
};

struct lb_group_state {
    struct hmap_node node;          /* In lb_model 'groups'. */
    struct uuid uuid;               /* NB row. */
    struct uuid *lbs;               /* Members' row UUIDs, sorted. */
    size_t n_lbs;
};

static struct lb_index *
index_find(const struct lb_model *lm, const struct uuid *uuid)
{
    struct lb_index *li;
    HMAP_FOR_EACH_WITH_HASH (li, node, uuid_hash(uuid), &lm->index) {
        if (uuid_equals(&li->uuid, uuid)) {
            return li;
        }
    }
    return NULL;
}

static struct lb_group_state *
group_find(const struct lb_model *lm, const struct uuid *uuid)
{
    struct lb_group_state *gs;
    HMAP_FOR_EACH_WITH_HASH (gs, node, uuid_hash(uuid), &lm->groups) {
        if (uuid_equals(&gs->uuid, uuid)) {
            return gs;
        }
    }
    return NULL;
}

static int
compare_uuids(const void *a_, const void *b_)
{
    return uuid_compare_3way(a_, b_);
}

/* The members of 'g', sorted (the replica usually has them in order). */
static struct uuid *
group_members(const struct nb_load_balancer_group *g, size_t *n)
{
    struct uuid *v = xmalloc(MAX(g->n_load_balancer, 1) * sizeof *v);
    bool sorted = true;
    for (size_t i = 0; i < g->n_load_balancer; i++) {
        v[i] = g->load_balancer[i]->header_.uuid;
        if (i && uuid_compare_3way(&v[i - 1], &v[i]) > 0) {
            sorted = false;
        }
    }
    if (!sorted) {
        qsort(v, g->n_load_balancer, sizeof *v, compare_uuids);
    }
    *n = g->n_load_balancer;
    return v;
}

static bool
group_has(const struct lb_group_state *gs, const struct uuid *uuid)
{
    return bsearch(uuid, gs->lbs, gs->n_lbs, sizeof *gs->lbs,
                   compare_uuids) != NULL;
}

static void
group_add(struct lb_model *lm, const struct nb_load_balancer_group *g)
{
    struct lb_group_state *gs = xmalloc(sizeof *gs);
    gs->uuid = g->header_.uuid;
    gs->lbs = group_members(g, &gs->n_lbs);
    hmap_insert(&lm->groups, &gs->node, uuid_hash(&gs->uuid));
}

static void
index_add(struct lb_model *lm, size_t idx)
{
    struct lb_index *li = xmalloc(sizeof *li);
    li->uuid = lm->lbs[idx].nb->header_.uuid;
    li->idx = idx;
    hmap_insert(&lm->index, &li->node, uuid_hash(&li->uuid));
}

void
lb_model_index(struct lb_model *lm, struct rdb *nb_db)
{
    for (size_t i = 0; i < lm->n_lbs; i++) {
        index_add(lm, i);
    }
    const struct nb_load_balancer_group *g;
    NB_LOAD_BALANCER_GROUP_FOR_EACH (g, nb_db) {
        group_add(lm, g);
    }
    lm->n_vip_lbs = xcalloc(MAX(lm->dp_cap, 1), sizeof *lm->n_vip_lbs);
    for (size_t i = 0; i < lm->n_lbs; i++) {
        const struct lb *lb = &lm->lbs[i];
        if (lb->n_vips) {
            size_t dp;
            BITMAP_FOR_EACH_1 (dp, lm->dp_cap, lb->dps) {
                lm->n_vip_lbs[dp]++;
            }
        }
    }
    uuidset_init(&lm->sb_dead);
}

void
lb_index_destroy(struct lb_model *lm)
{
    struct lb_index *li;
    HMAP_FOR_EACH_POP (li, node, &lm->index) {
        free(li);
    }
    hmap_destroy(&lm->index);
    struct lb_group_state *gs;
    HMAP_FOR_EACH_POP (gs, node, &lm->groups) {
        free(gs->lbs);
        free(gs);
    }
    hmap_destroy(&lm->groups);
    if (lm->n_vip_lbs) {
        free(lm->n_vip_lbs);
        lm->n_vip_lbs = NULL;
        uuidset_destroy(&lm->sb_dead);
    }
}

static void
todo_add(struct uuidset *todo, const struct uuid *uuid)
{
    if (!uuidset_find(todo, uuid)) {
        uuidset_insert(todo, uuid);
    }
}

/* Adds to 'todo' what is in one of the sorted arrays 'a' and 'b' but not
 * in the other. */
static void
todo_add_diff(struct uuidset *todo, const struct uuid *a, size_t na,
              const struct uuid *b, size_t nb)
{
    size_t i = 0, j = 0;
    while (i < na || j < nb) {
        int cmp = (i >= na ? 1 : j >= nb ? -1
                   : uuid_compare_3way(&a[i], &b[j]));
        if (cmp < 0) {
            todo_add(todo, &a[i++]);
        } else if (cmp > 0) {
            todo_add(todo, &b[j++]);
        } else {
            i++;
            j++;
        }
    }
}

/* True if switch 'ls' applies load balancer 'uuid', directly or through a
 * group. */
static bool
lb_on_switch(const struct lb_model *lm, const struct nb_logical_switch *ls,
             const struct uuid *uuid)
{
    for (size_t j = 0; j < ls->n_load_balancer; j++) {
        if (uuid_equals(&ls->load_balancer[j]->header_.uuid, uuid)) {
            return true;
        }
    }
    for (size_t j = 0; j < ls->n_load_balancer_group; j++) {
        const struct lb_group_state *gs
            = group_find(lm, &ls->load_balancer_group[j]->header_.uuid);
        if (gs && group_has(gs, uuid)) {
            return true;
        }
    }
    return false;
}

/* What one load balancer becomes. */
struct lb_change {
    struct uuid uuid;
    const struct nb_load_balancer *nb;  /* NULL: gone. */
    unsigned long *dps;
    size_t n_dps;
    struct lb parsed;               /* Its VIPs, if 'reparse'. */
    bool reparse;
};

static void
lb_remove(struct lb_model *lm, struct lb_index *li)
{
    size_t idx = li->idx;
    struct lb *lb = &lm->lbs[idx];
    if (!uuid_is_zero(&lb->sb_uuid)) {
        uuidset_insert(&lm->sb_dead, &lb->sb_uuid);
    }
    if (lb->sb_dpg) {
        dp_groups_unref_other(lb->sb_dpg);
    }
    lb_clear_vips(lb);
    bitmap_free(lb->dps);
    lflow_owner_destroy(&lb->owner);
    hmap_remove(&lm->index, &li->node);
    free(li);
    if (idx != lm->n_lbs - 1) {
        lm->lbs[idx] = lm->lbs[lm->n_lbs - 1];
        struct lb_index *moved = index_find(lm, &lm->lbs[idx].nb->header_.uuid);
        moved->idx = idx;
    }
    lm->n_lbs--;
}

static struct lb *
lb_append(struct lb_model *lm, const struct nb_load_balancer *nb)
{
    if (lm->n_lbs >= lm->allocated_lbs) {
        lm->lbs = x2nrealloc(lm->lbs, &lm->allocated_lbs, sizeof *lm->lbs);
    }
    struct lb *lb = &lm->lbs[lm->n_lbs];
    memset(lb, 0, sizeof *lb);
    lb->nb = nb;
    lb->dps = bitmap_allocate(MAX(lm->dp_cap, 1));
    lflow_owner_init(&lb->owner);
    index_add(lm, lm->n_lbs++);
    return lb;
}

bool
lb_model_handle_changes(struct lb_model *lm, struct ls_model *m,
                        struct rdb *nb_db, struct lflow_table *t,
                        const struct ls_features *features,
                        struct uuidset *dirty, struct hmapx *flipped,
                        const char **reason)
{
    struct uuidset todo = UUIDSET_INITIALIZER(&todo);

    /* Which load balancers: those whose row changed... */
    const struct nb_load_balancer *nb;
    NB_LOAD_BALANCER_FOR_EACH_TRACKED (nb, nb_db) {
        todo_add(&todo, &nb->header_.uuid);
    }

    /* ...that joined or left a group... */
    const struct nb_load_balancer_group *g;
    NB_LOAD_BALANCER_GROUP_FOR_EACH_TRACKED (g, nb_db) {
        struct lb_group_state *gs = group_find(lm, &g->header_.uuid);
        if (nb_load_balancer_group_is_deleted(g)) {
            if (gs) {
                todo_add_diff(&todo, gs->lbs, gs->n_lbs, NULL, 0);
                hmap_remove(&lm->groups, &gs->node);
                free(gs->lbs);
                free(gs);
            }
            continue;
        }
        size_t n;
        struct uuid *members = group_members(g, &n);
        if (gs) {
            todo_add_diff(&todo, gs->lbs, gs->n_lbs, members, n);
            free(gs->lbs);
            gs->lbs = members;
            gs->n_lbs = n;
        } else {
            todo_add_diff(&todo, NULL, 0, members, n);
            gs = xmalloc(sizeof *gs);
            gs->uuid = g->header_.uuid;
            gs->lbs = members;
            gs->n_lbs = n;
            hmap_insert(&lm->groups, &gs->node, uuid_hash(&gs->uuid));
        }
    }

    /* So far, the load balancers whose row or group changed: those on a
     * router, at the last full pass or now, are the routers' too
     * (northd/router-lb.h): a change of their backends is followed there,
     * anything else is a full recompute.  (Those that follow only because
     * a switch changed do not concern routers.) */
    struct uuidset on_routers = UUIDSET_INITIALIZER(&on_routers);
    if (!uuidset_is_empty(&todo)) {
        lr_lb_on_routers(m, nb_db, &on_routers);
    }
    struct uuidset router_lbs = UUIDSET_INITIALIZER(&router_lbs);
    const struct uuidset_node *rn;
    UUIDSET_FOR_EACH (rn, &todo) {
        if (uuidset_contains(&on_routers, &rn->uuid)) {
            uuidset_insert(&router_lbs, &rn->uuid);
        }
    }
    uuidset_destroy(&on_routers);
    if (!uuidset_is_empty(&router_lbs)
        && !lr_lb_handle_changes(m, nb_db, t, &router_lbs, reason)) {
        uuidset_destroy(&router_lbs);
        uuidset_destroy(&todo);
        return false;
    }
    uuidset_destroy(&router_lbs);

    /* ...or are attached to or detached from a switch. */
    const struct nb_logical_switch *ls;
    NB_LOGICAL_SWITCH_FOR_EACH_TRACKED (ls, nb_db) {
        if (nb_logical_switch_is_deleted(ls)
            || (!nb_logical_switch_is_new(ls)
                && !nb_logical_switch_is_updated(
                       ls, NB_LOGICAL_SWITCH_COL_LOAD_BALANCER)
                && !nb_logical_switch_is_updated(
                       ls, NB_LOGICAL_SWITCH_COL_LOAD_BALANCER_GROUP))) {
            continue;
        }
        const struct ls_datapath *dp
            = ls_model_find_datapath(m, &ls->header_.uuid);
        if (!dp || dp->index >= lm->dp_cap) {
            *reason = "Logical_Switch load_balancer";
            uuidset_destroy(&todo);
            return false;
        }
        for (size_t j = 0; j < ls->n_load_balancer; j++) {
            todo_add(&todo, &ls->load_balancer[j]->header_.uuid);
        }
        for (size_t j = 0; j < ls->n_load_balancer_group; j++) {
            const struct lb_group_state *gs
                = group_find(lm, &ls->load_balancer_group[j]->header_.uuid);
            if (gs) {
                todo_add_diff(&todo, gs->lbs, gs->n_lbs, NULL, 0);
            }
        }
        for (size_t i = 0; i < lm->n_lbs; i++) {
            if (bitmap_is_set(lm->lbs[i].dps, dp->index)) {
                todo_add(&todo, &lm->lbs[i].nb->header_.uuid);
            }
        }
    }
    if (uuidset_is_empty(&todo)) {
        uuidset_destroy(&todo);
        return true;
    }

    /* What each becomes, and whether a switch changes class, before
     * anything changes. */
    size_t n_changes = uuidset_count(&todo);
    struct lb_change *changes = xcalloc(n_changes, sizeof *changes);
    struct lb_opts_ctx ctx;
    lb_opts_ctx_init(&ctx, nb_db);
    int32_t *delta = xcalloc(MAX(lm->dp_cap, 1), sizeof *delta);
    bool ok = true;
    size_t k = 0;
    const struct uuidset_node *un;
    UUIDSET_FOR_EACH (un, &todo) {
        struct lb_change *ch = &changes[k++];
        ch->uuid = un->uuid;
        nb = nb_load_balancer_get_for_uuid(nb_db, &un->uuid);
        if (nb && nb_load_balancer_is_deleted(nb)) {
            nb = NULL;
        }
        ch->nb = nb;
        const struct lb_index *li = index_find(lm, &un->uuid);
        const struct lb *old = li ? &lm->lbs[li->idx] : NULL;
        ch->dps = bitmap_allocate(MAX(lm->dp_cap, 1));
        if (nb) {
            for (size_t i = 0; i < m->n_datapaths; i++) {
                if (lb_on_switch(lm, m->dp_array[i]->nb, &un->uuid)) {
                    bitmap_set1(ch->dps, i);
                    ch->n_dps++;
                }
            }
        }
        if (old && old->bad_vip) {
            /* A full pass reports what is left of the problem. */
            *reason = "a Load_Balancer with a bad VIP";
            ok = false;
        }
        if ((old && old->opts.is_template)
            || (nb && !lb_opts_incremental(nb))) {
            /* Template load balancers, and options a full pass reports
             * (northd/lb-opts.h). */
            *reason = "a template Load_Balancer or one with options to "
                      "report";
            ok = false;
        }
        if (nb && nb->n_health_check) {
            /* Its Service_Monitor rows follow its VIPs and backends
             * (northd/lb-health.h). */
            *reason = "a Load_Balancer with health checks";
            ok = false;
        }
        size_t n_vips = old ? old->n_vips : 0;
        if (nb && ch->n_dps
            && (!old || rdb_row_is_new(&nb->header_)
                || rdb_row_updated_columns(&nb->header_))) {
            ch->reparse = true;
            char *error = (ok
                           ? lb_parse_vips(&ch->parsed, nb, false, &ctx,
                                           NULL)
                           : NULL);
            if (error) {
                /* Bad VIPs are reported by a full pass. */
                VLOG_DBG("%s: recomputing", error);
                free(error);
                *reason = "a Load_Balancer with a bad VIP";
                ok = false;
            }
            n_vips = ch->parsed.n_vips;
        }
        size_t dp;
        if (old && old->n_vips) {
            BITMAP_FOR_EACH_1 (dp, lm->dp_cap, old->dps) {
                delta[dp]--;
            }
        }
        if (n_vips && ch->n_dps) {
            BITMAP_FOR_EACH_1 (dp, lm->dp_cap, ch->dps) {
                delta[dp]++;
            }
        }
    }

    /* Apply. */
    for (size_t i = 0; i < n_changes; i++) {
        struct lb_change *ch = &changes[i];
        if (ok) {
            struct lb_index *li = index_find(lm, &ch->uuid);
            if (li) {
                lflow_owner_clear(t, &lm->lbs[li->idx].owner);
                lb_agg_leave(lm, &lm->lbs[li->idx]);
            }
            if (!ch->nb || !ch->n_dps) {
                if (li) {
                    lb_remove(lm, li);
                }
            } else {
                struct lb *lb = li ? &lm->lbs[li->idx]
                                   : lb_append(lm, ch->nb);
                lb->nb = ch->nb;
                if (ch->reparse) {
                    lb_clear_vips(lb);
                    lb->vips = ch->parsed.vips;
                    lb->n_vips = ch->parsed.n_vips;
                    lb->proto = ch->parsed.proto;
                    lb->opts = ch->parsed.opts;
                    memset(&ch->parsed.opts, 0, sizeof ch->parsed.opts);
                    ch->parsed.vips = NULL;
                    ch->parsed.n_vips = 0;
                }
                memcpy(lb->dps, ch->dps,
                       bitmap_n_bytes(MAX(lm->dp_cap, 1)));
                lb->n_dps = ch->n_dps;
                lb_agg_join(lm, m, lb);
                lb_build_lb_lflows(t, lb, lm->health, features);
                todo_add(dirty, &ch->uuid);
                COVERAGE_INC(lb_inc_rebuilt);
            }
        }
        lb_clear_vips(&ch->parsed);
        bitmap_free(ch->dps);
    }
    if (ok) {
        lb_aggs_flush(lm, t, features);
        for (size_t dp = 0; dp < lm->dp_cap; dp++) {
            if (!delta[dp]) {
                continue;
            }
            bool had = lm->n_vip_lbs[dp] > 0;
            lm->n_vip_lbs[dp] += delta[dp];
            bool has = lm->n_vip_lbs[dp] > 0;
            if (had != has) {
                if (has) {
                    bitmap_set1(lm->dps_with_vips, dp);
                } else {
                    bitmap_set0(lm->dps_with_vips, dp);
                }
                hmapx_add(flipped, m->dp_array[dp]);
            }
        }
    }
    free(delta);
    free(changes);
    lb_opts_ctx_destroy(&ctx);
    uuidset_destroy(&todo);
    return ok;
}

void
lb_propose_moves(const struct lb_model *lm, struct dp_groups *dpgs,
                 const struct uuidset *dirty)
{
    const struct uuidset_node *un;
    UUIDSET_FOR_EACH (un, dirty) {
        const struct lb_index *li = index_find(lm, &un->uuid);
        if (li && lm->lbs[li->idx].sb_dpg) {
            const struct lb *lb = &lm->lbs[li->idx];
            dp_groups_propose_move(dpgs, lb->sb_dpg, lb->dps, lb->n_dps);
        }
    }
}

void
lb_sync_sb_dirty(struct lb_model *lm, struct rdb *sb_db, struct rdb_txn *txn,
                 struct dp_groups *dpgs, struct uuidset *dirty,
                 struct uuidset *inserted)
{
    const struct uuidset_node *un;
    UUIDSET_FOR_EACH (un, &lm->sb_dead) {
        rdb_txn_delete(txn, &sb_table_load_balancer, &un->uuid);
    }
    uuidset_clear(&lm->sb_dead);
    UUIDSET_FOR_EACH (un, dirty) {
        const struct lb_index *li = index_find(lm, &un->uuid);
        if (!li) {
            continue;
        }
        struct lb *lb = &lm->lbs[li->idx];
        const struct sb_load_balancer *sb
            = (uuid_is_zero(&lb->sb_uuid) ? NULL
               : sb_load_balancer_get_for_uuid(sb_db, &lb->sb_uuid));
        lb_sync_sb_one(lb, sb, txn, dpgs, inserted);
    }
}
