/* SB Logical_DP_Group reuse by content; see dp-groups.h. */
#include <config.h>
#include "northd/dp-groups.h"

#include "bitmap.h"
#include "hash.h"
#include "lib/sb-rdb.h"
#include "northd/datapaths.h"
#include "util.h"
#include "uuid.h"

struct dp_group {
    struct hmap_node node;
    unsigned long *bitmap;          /* Owned. */
    size_t n;
    struct uuid sb_uuid;
    unsigned int pass;              /* Inserted in this pass, or 0. */
};

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
        struct dp_group *dpg = xmalloc(sizeof *dpg);
        dpg->bitmap = bitmap;
        dpg->n = n;
        dpg->sb_uuid = sb->header_.uuid;
        dpg->pass = 0;
        hmap_insert(&g->groups, &dpg->node, hash);
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
}

void
dp_groups_new_pass(struct dp_groups *g)
{
    g->pass++;
}

const struct uuid *
dp_groups_get(struct dp_groups *g, struct rdb_txn *txn,
              const unsigned long *bitmap, size_t n)
{
    const struct ls_model *m = g->model;
    uint32_t hash = bitmap_hash(bitmap, m->dp_cap);
    struct dp_group *dpg = dp_groups_find(g, bitmap, hash);
    if (dpg) {
        if (dpg->pass == g->pass
            || sb_logical_dp_group_get_for_uuid(g->sb, &dpg->sb_uuid)) {
            return &dpg->sb_uuid;
        }
        /* Collected by the database since: make it again. */
    } else {
        dpg = xmalloc(sizeof *dpg);
        dpg->bitmap = bitmap_clone(bitmap, m->dp_cap);
        dpg->n = n;
        hmap_insert(&g->groups, &dpg->node, hash);
    }

    struct uuid *dps = xmalloc(n * sizeof *dps);
    size_t k = 0;
    size_t idx;
    BITMAP_FOR_EACH_1 (idx, m->dp_cap, bitmap) {
        dps[k++] = m->dp_array[idx]->sb_uuid;
    }
    rdb_uuid_generate(&dpg->sb_uuid);
    dpg->pass = g->pass;
    rdb_txn_insert(txn, &sb_table_logical_dp_group, &dpg->sb_uuid);
    rdb_txn_set_refs(txn, SB_LOGICAL_DP_GROUP_COL_DATAPATHS, dps, k);
    free(dps);
    return &dpg->sb_uuid;
}
