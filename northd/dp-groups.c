/* SB Logical_DP_Group reuse by content; see dp-groups.h. */
#include <config.h>
#include "northd/dp-groups.h"

#include "bitmap.h"
#include "coverage.h"
#include "hash.h"
#include "lib/sb-rdb.h"
#include "northd/datapaths.h"
#include "util.h"
#include "uuid.h"

COVERAGE_DEFINE(dp_group_mutated);

struct dp_group {
    struct hmap_node node;          /* In 'groups', by datapath set. */
    struct hmap_node uuid_node;     /* In 'by_uuid'. */
    unsigned long *bitmap;          /* Owned. */
    size_t n;
    struct uuid sb_uuid;
    unsigned int pass;              /* Inserted in this pass, or 0. */
    size_t n_flows;                 /* Logical flow rows referring to it. */
    size_t n_others;                /* Other rows (load balancers). */

    /* Proposed moves, between dp_groups_propose_move() and
     * dp_groups_apply_moves(). */
    const unsigned long *move_to;   /* Where the first mover goes. */
    size_t move_n;
    size_t n_to;                    /* Flows going to 'move_to'. */
    size_t n_away;                  /* Flows leaving groups altogether. */
    bool move_conflict;             /* Some flows go elsewhere, or stay. */
};

static void
dp_group_index_uuid(struct dp_groups *g, struct dp_group *dpg)
{
    hmap_insert(&g->by_uuid, &dpg->uuid_node, uuid_hash(&dpg->sb_uuid));
}

struct dp_group *
dp_groups_find_row(const struct dp_groups *g, const struct uuid *uuid)
{
    struct dp_group *dpg;
    HMAP_FOR_EACH_WITH_HASH (dpg, uuid_node, uuid_hash(uuid), &g->by_uuid) {
        if (uuid_equals(&dpg->sb_uuid, uuid)) {
            return dpg;
        }
    }
    return NULL;
}

static uint32_t
bitmap_hash(const unsigned long *bitmap, size_t n_bits)
{
    return hash_bytes(bitmap, bitmap_n_bytes(n_bits), 0);
}

static struct dp_group *
dp_groups_find(const struct dp_groups *g, const unsigned long *bitmap,
               uint32_t hash)
{
    size_t n_bits = g->model->dp_cap;
    struct dp_group *dpg;
    HMAP_FOR_EACH_WITH_HASH (dpg, node, hash, &g->groups) {
        if (bitmap_equal(dpg->bitmap, bitmap, n_bits)) {
            return dpg;
        }
    }
    return NULL;
}

void
dp_groups_init(struct dp_groups *g, const struct ls_model *m,
               struct rdb *sb_db)
{
    hmap_init(&g->groups);
    hmap_init(&g->by_uuid);
    g->moving = NULL;
    g->n_moving = g->allocated_moving = 0;
    g->model = m;
    g->sb = sb_db;
    g->pass = 1;

    /* The model knows datapaths by index; map SB rows to indexes. */
    struct hmap by_sb = HMAP_INITIALIZER(&by_sb);
    struct idx_node {
        struct hmap_node node;
        const struct sb_datapath_binding *sb;
        size_t index;
    };
    struct idx_node *nodes = xmalloc((m->n_datapaths + 1) * sizeof *nodes);
    size_t n_nodes = 0;
    for (size_t i = 0; i < m->n_datapaths; i++) {
        if (m->dp_array[i]->sb) {
            struct idx_node *in = &nodes[n_nodes++];
            in->sb = m->dp_array[i]->sb;
            in->index = i;
            hmap_insert(&by_sb, &in->node, hash_pointer(in->sb, 0));
        }
    }

    const struct sb_logical_dp_group *sb;
    SB_LOGICAL_DP_GROUP_FOR_EACH (sb, sb_db) {
        unsigned long *bitmap = bitmap_allocate(m->dp_cap);
        size_t n = 0;
        bool usable = true;
        for (size_t i = 0; i < sb->n_datapaths && usable; i++) {
            struct idx_node *in;
            bool found = false;
            HMAP_FOR_EACH_WITH_HASH (in, node,
                                     hash_pointer(sb->datapaths[i], 0),
                                     &by_sb) {
                if (in->sb == sb->datapaths[i]) {
                    found = true;
                    if (!bitmap_is_set(bitmap, in->index)) {
                        bitmap_set1(bitmap, in->index);
                        n++;
                    }
                    break;
                }
            }
            usable = found;
        }
        uint32_t hash = bitmap_hash(bitmap, m->dp_cap);
        if (!usable || !n || dp_groups_find(g, bitmap, hash)) {
            /* Refers to a datapath that is going away, or duplicates
             * another group: leave it for the database to collect. */
            bitmap_free(bitmap);
            continue;
        }
        struct dp_group *dpg = xzalloc(sizeof *dpg);
        dpg->bitmap = bitmap;
        dpg->n = n;
        dpg->sb_uuid = sb->header_.uuid;
        hmap_insert(&g->groups, &dpg->node, hash);
        dp_group_index_uuid(g, dpg);
    }
    hmap_destroy(&by_sb);
    free(nodes);
}

void
dp_groups_destroy(struct dp_groups *g)
{
    if (!g) {
        return;
    }
    struct dp_group *dpg;
    HMAP_FOR_EACH_POP (dpg, node, &g->groups) {
        bitmap_free(dpg->bitmap);
        free(dpg);
    }
    hmap_destroy(&g->groups);
    hmap_destroy(&g->by_uuid);
    free(g->moving);
}

void
dp_groups_new_pass(struct dp_groups *g)
{
    g->pass++;
}

/* Writes the 'n' datapaths in 'bitmap' as the "datapaths" of the group row
 * being inserted or updated in 'txn'. */
static void
set_datapaths(struct rdb_txn *txn, const struct ls_model *m,
              const unsigned long *bitmap, size_t n)
{
    struct uuid *dps = xmalloc(n * sizeof *dps);
    size_t k = 0;
    size_t idx;
    BITMAP_FOR_EACH_1 (idx, m->dp_cap, bitmap) {
        dps[k++] = m->dp_array[idx]->sb_uuid;
    }
    rdb_txn_set_refs(txn, SB_LOGICAL_DP_GROUP_COL_DATAPATHS, dps, k);
    free(dps);
}

/* Changes group row 'uuid' from datapaths 'from' to 'to', as mutations if
 * only a few differ (a switch that comes or goes). */
static void
move_datapaths(struct rdb_txn *txn, const struct ls_model *m,
               const struct uuid *uuid,
               const unsigned long *from, const unsigned long *to,
               size_t n_to)
{
    size_t n_changed = 0;
    for (size_t i = 0; i < bitmap_n_longs(m->dp_cap); i++) {
        n_changed += count_1bits(from[i] ^ to[i]);
    }
    if (!rdb_txn_prefers_mutation(n_changed, n_to)) {
        rdb_txn_update(txn, &sb_table_logical_dp_group, uuid);
        set_datapaths(txn, m, to, n_to);
        return;
    }

    struct uuid *added = xmalloc(n_changed * sizeof *added);
    struct uuid *removed = xmalloc(n_changed * sizeof *removed);
    size_t n_added = 0, n_removed = 0;
    size_t idx;
    BITMAP_FOR_EACH_1 (idx, m->dp_cap, to) {
        if (!bitmap_is_set(from, idx)) {
            added[n_added++] = m->dp_array[idx]->sb_uuid;
        }
    }
    BITMAP_FOR_EACH_1 (idx, m->dp_cap, from) {
        if (!bitmap_is_set(to, idx)) {
            removed[n_removed++] = m->dp_array[idx]->sb_uuid;
        }
    }
    COVERAGE_INC(dp_group_mutated);
    rdb_txn_mutate_refs(txn, &sb_table_logical_dp_group, uuid,
                        SB_LOGICAL_DP_GROUP_COL_DATAPATHS, false,
                        removed, n_removed);
    rdb_txn_mutate_refs(txn, &sb_table_logical_dp_group, uuid,
                        SB_LOGICAL_DP_GROUP_COL_DATAPATHS, true,
                        added, n_added);
    free(added);
    free(removed);
}

const struct uuid *
dp_groups_get(struct dp_groups *g, struct rdb_txn *txn,
              const unsigned long *bitmap, size_t n)
{
    return &dp_groups_get_group(g, txn, bitmap, n)->sb_uuid;
}

const struct uuid *
dp_group_uuid(const struct dp_group *dpg)
{
    return &dpg->sb_uuid;
}

struct dp_group *
dp_groups_get_group(struct dp_groups *g, struct rdb_txn *txn,
                    const unsigned long *bitmap, size_t n)
{
    const struct ls_model *m = g->model;
    uint32_t hash = bitmap_hash(bitmap, m->dp_cap);
    struct dp_group *dpg = dp_groups_find(g, bitmap, hash);
    if (dpg) {
        if (dpg->pass == g->pass
            || sb_logical_dp_group_get_for_uuid(g->sb, &dpg->sb_uuid)) {
            return dpg;
        }
        /* Collected by the database since: make it again. */
        hmap_remove(&g->by_uuid, &dpg->uuid_node);
        dpg->n_flows = 0;
        dpg->n_others = 0;
    } else {
        dpg = xzalloc(sizeof *dpg);
        dpg->bitmap = bitmap_clone(bitmap, m->dp_cap);
        dpg->n = n;
        hmap_insert(&g->groups, &dpg->node, hash);
    }

    rdb_uuid_generate(&dpg->sb_uuid);
    dp_group_index_uuid(g, dpg);
    dpg->pass = g->pass;
    rdb_txn_insert(txn, &sb_table_logical_dp_group, &dpg->sb_uuid);
    set_datapaths(txn, m, bitmap, n);
    return dpg;
}

void
dp_groups_ref_flow(struct dp_group *dpg)
{
    dpg->n_flows++;
}

void
dp_groups_unref_flow(struct dp_group *dpg)
{
    if (dpg->n_flows) {
        dpg->n_flows--;
    }
}

void
dp_groups_ref_other(struct dp_groups *g, const struct uuid *uuid)
{
    struct dp_group *dpg = dp_groups_find_row(g, uuid);
    if (dpg) {
        dpg->n_others++;
    }
}

void
dp_groups_unref_other(struct dp_groups *g, const struct uuid *uuid)
{
    struct dp_group *dpg = dp_groups_find_row(g, uuid);
    if (dpg && dpg->n_others) {
        dpg->n_others--;
    }
}

void
dp_groups_propose_move(struct dp_groups *g, struct dp_group *dpg,
                       const unsigned long *bitmap, size_t n)
{
    if (!dpg->n_to && !dpg->n_away && !dpg->move_conflict) {
        if (g->n_moving >= g->allocated_moving) {
            g->moving = x2nrealloc(g->moving, &g->allocated_moving,
                                   sizeof *g->moving);
        }
        g->moving[g->n_moving++] = dpg;
    }
    size_t n_bits = g->model->dp_cap;
    if (!bitmap) {
        dpg->n_away++;
    } else if (bitmap_equal(bitmap, dpg->bitmap, n_bits)) {
        dpg->move_conflict = true;      /* Stays: the group must too. */
    } else if (!dpg->move_to) {
        dpg->move_to = bitmap;
        dpg->move_n = n;
        dpg->n_to = 1;
    } else if (bitmap_equal(bitmap, dpg->move_to, n_bits)) {
        dpg->n_to++;
    } else {
        dpg->move_conflict = true;
    }
}

size_t
dp_groups_apply_moves(struct dp_groups *g, struct rdb_txn *txn)
{
    const struct ls_model *m = g->model;
    size_t n_moved = 0;
    for (size_t i = 0; i < g->n_moving; i++) {
        struct dp_group *dpg = g->moving[i];
        uint32_t hash = (dpg->move_to
                         ? bitmap_hash(dpg->move_to, m->dp_cap) : 0);
        /* Every flow on the group goes to 'move_to' or leaves groups; the
         * group's row exists (it was not just inserted, nor collected);
         * and no other group already has the new set. */
        if (!dpg->move_conflict && dpg->n_to
            && dpg->n_to + dpg->n_away == dpg->n_flows + dpg->n_others
            && dpg->pass != g->pass
            && sb_logical_dp_group_get_for_uuid(g->sb, &dpg->sb_uuid)
            && !dp_groups_find(g, dpg->move_to, hash)) {
            move_datapaths(txn, m, &dpg->sb_uuid, dpg->bitmap,
                           dpg->move_to, dpg->move_n);

            hmap_remove(&g->groups, &dpg->node);
            bitmap_free(dpg->bitmap);
            dpg->bitmap = bitmap_clone(dpg->move_to, m->dp_cap);
            dpg->n = dpg->move_n;
            hmap_insert(&g->groups, &dpg->node, hash);
            n_moved++;
        }
        dpg->move_to = NULL;
        dpg->move_n = dpg->n_to = dpg->n_away = 0;
        dpg->move_conflict = false;
    }
    g->n_moving = 0;
    return n_moved;
}
