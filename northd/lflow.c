/* The desired logical flow table and its SB reconciliation; see lflow.h. */
#include <config.h>
#include "northd/lflow.h"

#include <string.h>

#include "bitmap.h"
#include "coverage.h"
#include "hash.h"
#include "lib/rdb.h"
#include "lib/sb-rdb.h"
#include "northd/datapaths.h"
#include "northd/dp-groups.h"
#include "openvswitch/vlog.h"
#include "smap.h"

VLOG_DEFINE_THIS_MODULE(lflow);

COVERAGE_DEFINE(lflow_inserted);
COVERAGE_DEFINE(lflow_deleted);
COVERAGE_DEFINE(lflow_updated);

struct lflow {
    struct hmap_node node;          /* In lflow_table 'flows'. */
    enum ls_stage stage;
    uint16_t priority;
    char *match;
    char *actions;
    char *ctrl_meter;               /* NULL if none. */
    const char *where;
    unsigned long *dps;             /* Bitmap over datapath indexes. */
    size_t n_dps;
    size_t n_refs;                  /* Contributions, all owners. */

    /* "stage-hint" names the lowest UUID among the contributing rows, so
     * it does not depend on the order they were compiled in. */
    struct uuid hint;               /* Zero if none. */
    struct uuid *more_hints;        /* The other contributions' hints. */
    size_t n_more_hints;

    struct uuid sb_uuid;            /* Its SB row; zero if none yet. */
    bool dirty;                     /* In the table's 'dirty' array. */
    bool claimed;                   /* Matched to an SB row by the sync. */
};

/* A (flow, datapath) pair contributed more than once. */
struct lflow_multi {
    struct hmap_node node;
    struct lflow *flow;
    uint32_t dp;
    size_t count;                   /* Contributions beyond the first. */
};

const char *
ls_stage_name(enum ls_stage s)
{
    switch (s) {
#define LS_STAGE(PIPE, NAME, TABLE, SNAME) \
    case S_##PIPE##_##NAME: return SNAME;
    LS_STAGES
#undef LS_STAGE
    }
    return "<unknown>";
}

const char *
lflow_pipeline_name(enum lflow_pipeline p)
{
    return p == P_IN ? "ingress" : "egress";
}

void
lflow_owner_init(struct lflow_owner *o)
{
    memset(o, 0, sizeof *o);
}

void
lflow_owner_destroy(struct lflow_owner *o)
{
    if (o) {
        free(o->refs);
        free(o->hints);
        lflow_owner_init(o);
    }
}

/* Returns the owner's number for 'hint' (0 for none), adding it. */
static uint32_t
owner_hint(struct lflow_owner *o, const struct uuid *hint)
{
    if (!hint || uuid_is_zero(hint)) {
        return 0;
    }
    for (size_t i = 1; i < o->n_hints; i++) {
        if (uuid_equals(&o->hints[i], hint)) {
            return i;
        }
    }
    if (!o->n_hints) {
        o->hints = xmalloc(2 * sizeof *o->hints);
        uuid_zero(&o->hints[0]);
        o->n_hints = 1;
    } else {
        o->hints = xrealloc(o->hints, (o->n_hints + 1) * sizeof *o->hints);
    }
    o->hints[o->n_hints] = *hint;
    return o->n_hints++;
}

void
lflow_table_init(struct lflow_table *t, size_t dp_cap)
{
    hmap_init(&t->flows);
    hmap_init(&t->multi);
    t->dp_cap = MAX(dp_cap, 1);
    t->owner = NULL;
    t->dirty = NULL;
    t->n_dirty = t->allocated_dirty = 0;
}

static void
lflow_free(struct lflow *f)
{
    free(f->match);
    free(f->actions);
    free(f->ctrl_meter);
    free(f->more_hints);
    bitmap_free(f->dps);
    free(f);
}

void
lflow_table_destroy(struct lflow_table *t)
{
    if (!t) {
        return;
    }
    struct lflow *f;
    HMAP_FOR_EACH_POP (f, node, &t->flows) {
        lflow_free(f);
    }
    hmap_destroy(&t->flows);
    struct lflow_multi *lm;
    HMAP_FOR_EACH_POP (lm, node, &t->multi) {
        free(lm);
    }
    hmap_destroy(&t->multi);
    free(t->dirty);
}

size_t
lflow_table_count(const struct lflow_table *t)
{
    return hmap_count(&t->flows);
}

static void
mark_dirty(struct lflow_table *t, struct lflow *f)
{
    if (!f->dirty) {
        f->dirty = true;
        if (t->n_dirty >= t->allocated_dirty) {
            t->dirty = x2nrealloc(t->dirty, &t->allocated_dirty,
                                  sizeof *t->dirty);
        }
        t->dirty[t->n_dirty++] = f;
    }
}

static uint32_t
multi_hash(const struct lflow *f, uint32_t dp)
{
    return hash_int(dp, hash_pointer(f, 0));
}

static struct lflow_multi *
multi_find(const struct lflow_table *t, const struct lflow *f, uint32_t dp)
{
    struct lflow_multi *lm;
    HMAP_FOR_EACH_WITH_HASH (lm, node, multi_hash(f, dp), &t->multi) {
        if (lm->flow == f && lm->dp == dp) {
            return lm;
        }
    }
    return NULL;
}

static void
flow_add_hint(struct lflow_table *t, struct lflow *f, const struct uuid *h)
{
    if (uuid_is_zero(&f->hint)) {
        f->hint = *h;
        mark_dirty(t, f);
        return;
    }
    f->more_hints = xrealloc(f->more_hints,
                             (f->n_more_hints + 1) * sizeof *f->more_hints);
    if (uuid_compare_3way(h, &f->hint) < 0) {
        f->more_hints[f->n_more_hints++] = f->hint;
        f->hint = *h;
        mark_dirty(t, f);
    } else {
        f->more_hints[f->n_more_hints++] = *h;
    }
}

static void
flow_remove_hint(struct lflow_table *t, struct lflow *f, const struct uuid *h)
{
    if (uuid_equals(&f->hint, h)) {
        mark_dirty(t, f);
        if (!f->n_more_hints) {
            uuid_zero(&f->hint);
            return;
        }
        size_t min = 0;
        for (size_t i = 1; i < f->n_more_hints; i++) {
            if (uuid_compare_3way(&f->more_hints[i],
                                  &f->more_hints[min]) < 0) {
                min = i;
            }
        }
        f->hint = f->more_hints[min];
        f->more_hints[min] = f->more_hints[--f->n_more_hints];
        return;
    }
    for (size_t i = 0; i < f->n_more_hints; i++) {
        if (uuid_equals(&f->more_hints[i], h)) {
            f->more_hints[i] = f->more_hints[--f->n_more_hints];
            return;
        }
    }
    OVS_NOT_REACHED();
}

/* Takes back contribution 'r' of owner 'o'. */
static void
ref_remove(struct lflow_table *t, const struct lflow_owner *o,
           const struct lflow_ref *r)
{
    struct lflow *f = r->flow;
    struct lflow_multi *lm = (hmap_is_empty(&t->multi) ? NULL
                              : multi_find(t, f, r->dp));
    if (lm) {
        if (!--lm->count) {
            hmap_remove(&t->multi, &lm->node);
            free(lm);
        }
    } else {
        ovs_assert(bitmap_is_set(f->dps, r->dp));
        bitmap_set0(f->dps, r->dp);
        f->n_dps--;
        mark_dirty(t, f);
    }
    if (r->hint) {
        flow_remove_hint(t, f, &o->hints[r->hint]);
    }
    f->n_refs--;
}

void
lflow_owner_clear(struct lflow_table *t, struct lflow_owner *o)
{
    for (size_t i = 0; i < o->n_refs; i++) {
        ref_remove(t, o, &o->refs[i]);
    }
    o->n_refs = 0;
}

void
lflow_owner_clear_dps(struct lflow_table *t, struct lflow_owner *o,
                      const unsigned long *dps)
{
    size_t n = 0;
    for (size_t i = 0; i < o->n_refs; i++) {
        const struct lflow_ref *r = &o->refs[i];
        if (bitmap_is_set(dps, r->dp)) {
            ref_remove(t, o, r);
        } else {
            o->refs[n++] = *r;
        }
    }
    o->n_refs = n;
}

static uint32_t
lflow_hash(enum ls_stage stage, uint16_t priority, const char *match,
           const char *actions, const char *ctrl_meter)
{
    uint32_t h = hash_2words(stage, priority);
    h = hash_string(match, h);
    h = hash_string(actions, h);
    return ctrl_meter ? hash_string(ctrl_meter, h) : h;
}

static struct lflow *
lflow_find(const struct lflow_table *t, uint32_t hash, enum ls_stage stage,
           uint16_t priority, const char *match, const char *actions,
           const char *ctrl_meter)
{
    struct lflow *f;
    HMAP_FOR_EACH_WITH_HASH (f, node, hash, &t->flows) {
        if (f->stage == stage && f->priority == priority
            && !strcmp(f->match, match) && !strcmp(f->actions, actions)
            && nullable_string_is_equal(f->ctrl_meter, ctrl_meter)) {
            return f;
        }
    }
    return NULL;
}

void
lflow_add_at(struct lflow_table *t, const struct ls_datapath *dp,
             enum ls_stage stage, uint16_t priority, const char *match,
             const char *actions, const char *ctrl_meter,
             const struct uuid *hint, const char *where)
{
    struct lflow_owner *o = t->owner;
    ovs_assert(o && dp->index < t->dp_cap);
    if (ctrl_meter && !ctrl_meter[0]) {
        ctrl_meter = NULL;
    }
    uint32_t hash = lflow_hash(stage, priority, match, actions, ctrl_meter);
    struct lflow *f = lflow_find(t, hash, stage, priority, match, actions,
                                 ctrl_meter);
    if (!f) {
        f = xzalloc(sizeof *f);
        f->stage = stage;
        f->priority = priority;
        f->match = xstrdup(match);
        f->actions = xstrdup(actions);
        f->ctrl_meter = nullable_xstrdup(ctrl_meter);
        f->where = where;
        f->dps = bitmap_allocate(t->dp_cap);
        hmap_insert(&t->flows, &f->node, hash);
        mark_dirty(t, f);
    }
    if (!bitmap_is_set(f->dps, dp->index)) {
        bitmap_set1(f->dps, dp->index);
        f->n_dps++;
        mark_dirty(t, f);
    } else {
        struct lflow_multi *lm = multi_find(t, f, dp->index);
        if (!lm) {
            lm = xzalloc(sizeof *lm);
            lm->flow = f;
            lm->dp = dp->index;
            hmap_insert(&t->multi, &lm->node, multi_hash(f, dp->index));
        }
        lm->count++;
    }
    f->n_refs++;

    uint32_t h = owner_hint(o, hint);
    if (h) {
        flow_add_hint(t, f, hint);
    }
    if (o->n_refs >= o->allocated_refs) {
        o->refs = x2nrealloc(o->refs, &o->allocated_refs, sizeof *o->refs);
    }
    o->refs[o->n_refs++] = (struct lflow_ref) { f, dp->index, h };
}

static const char *
lflow_source(const struct lflow *f)
{
    /* "northd/acls.c:123" -> "acls.c:123", as operators expect. */
    const char *slash = strrchr(f->where, '/');
    return slash ? slash + 1 : f->where;
}

/* A flow's external_ids: "stage-name", "stage-hint" (the first 8 hex
 * digits of the NB row it comes from, if any) and "source". */
struct lflow_ids {
    const char *keys[3];
    const char *values[3];
    size_t n;
    char hint[9];
};

static void
lflow_ids_init(const struct lflow *f, struct lflow_ids *ids)
{
    ids->n = 0;
    ids->keys[ids->n] = "stage-name";
    ids->values[ids->n++] = ls_stage_name(f->stage);
    if (!uuid_is_zero(&f->hint)) {
        static const char hex[] = "0123456789abcdef";
        uint32_t v = f->hint.parts[0];
        for (int i = 7; i >= 0; i--, v >>= 4) {
            ids->hint[i] = hex[v & 15];
        }
        ids->hint[8] = '\0';
        ids->keys[ids->n] = "stage-hint";
        ids->values[ids->n++] = ids->hint;
    }
    ids->keys[ids->n] = "source";
    ids->values[ids->n++] = lflow_source(f);
}

/* The hash the replica keeps of a Logical_Flow row's external_ids, for
 * the ones 'f' should have. */
static struct rdb_hash
lflow_ids_hash(const struct lflow *f)
{
    struct lflow_ids ids;
    lflow_ids_init(f, &ids);
    struct rdb_hash sum = { { 0, 0 } };
    for (size_t i = 0; i < ids.n; i++) {
        struct rdb_hash h = rdb_hash_pair_col(
            &sb_table_logical_flow, SB_LOGICAL_FLOW_COL_EXTERNAL_IDS,
            ids.keys[i], ids.values[i]);
        rdb_hash_add(&sum, &h);
    }
    return sum;
}

static void
set_lflow_ids(const struct lflow *f, struct rdb_txn *txn)
{
    struct lflow_ids ids;
    lflow_ids_init(f, &ids);
    rdb_txn_set_map(txn, SB_LOGICAL_FLOW_COL_EXTERNAL_IDS, ids.keys,
                    ids.values, ids.n);
}

/* The hash the replica keeps of the rest of the row (see lib/sb.rdb). */
static struct rdb_hash
lflow_content_hash(const struct lflow *f)
{
    const struct rdb_table_class *tc = &sb_table_logical_flow;
    struct rdb_hash h = rdb_hash_string_col(
        tc, SB_LOGICAL_FLOW_COL_PIPELINE,
        lflow_pipeline_name(ls_stage_pipeline(f->stage)));
    struct rdb_hash parts[] = {
        rdb_hash_integer_col(tc, SB_LOGICAL_FLOW_COL_TABLE_ID,
                             ls_stage_table(f->stage)),
        rdb_hash_integer_col(tc, SB_LOGICAL_FLOW_COL_PRIORITY, f->priority),
        rdb_hash_string_col(tc, SB_LOGICAL_FLOW_COL_MATCH, f->match),
        rdb_hash_string_col(tc, SB_LOGICAL_FLOW_COL_ACTIONS, f->actions),
        rdb_hash_string_col(tc, SB_LOGICAL_FLOW_COL_CONTROLLER_METER,
                            f->ctrl_meter),
    };
    for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
        rdb_hash_add(&h, &parts[i]);
    }
    return h;
}

/* Where 'f' should apply: one datapath, or a group of them. */
struct lflow_target {
    const struct uuid *dp;          /* One datapath... */
    const struct uuid *group;       /* ...or a Logical_DP_Group. */
};

/* Finds (or, for a group, creates: before any op on the flow's row is
 * begun) where 'f' applies. */
static struct lflow_target
lflow_target(const struct lflow *f, const struct ls_model *m,
             struct rdb_txn *txn, struct dp_groups *dpgs)
{
    struct lflow_target target = { NULL, NULL };
    if (f->n_dps == 1) {
        size_t idx = bitmap_scan(f->dps, true, 0, m->dp_cap);
        target.dp = &m->dp_array[idx]->sb_uuid;
    } else {
        target.group = dp_groups_get(dpgs, txn, f->dps, f->n_dps);
    }
    return target;
}

/* Makes existing row 'sb' apply to exactly the datapaths of 'f', and
 * gives it 'f''s external_ids if they differ. */
static void
update_sb_flow(const struct lflow *f, const struct sb_logical_flow *sb,
               const struct ls_model *m, struct rdb_txn *txn,
               struct dp_groups *dpgs)
{
    struct lflow_target target = lflow_target(f, m, txn, dpgs);
    rdb_txn_update(txn, &sb_table_logical_flow, &sb->header_.uuid);
    if (target.dp) {
        if (!RDB_ROW_IS(sb->logical_datapath, target.dp)) {
            rdb_txn_set_ref(txn, SB_LOGICAL_FLOW_COL_LOGICAL_DATAPATH,
                            target.dp);
        }
        if (sb->logical_dp_group) {
            rdb_txn_set_ref(txn, SB_LOGICAL_FLOW_COL_LOGICAL_DP_GROUP, NULL);
        }
    } else {
        if (!RDB_ROW_IS(sb->logical_dp_group, target.group)) {
            rdb_txn_set_ref(txn, SB_LOGICAL_FLOW_COL_LOGICAL_DP_GROUP,
                            target.group);
        }
        if (sb->logical_datapath) {
            rdb_txn_set_ref(txn, SB_LOGICAL_FLOW_COL_LOGICAL_DATAPATH, NULL);
        }
    }

    struct rdb_hash ids = lflow_ids_hash(f);
    if (!rdb_hash_equals(&ids, rdb_row_hash(&sb->header_,
                                            &sb_table_logical_flow,
                                            SB_LOGICAL_FLOW_HASH_IDS))) {
        set_lflow_ids(f, txn);
        COVERAGE_INC(lflow_updated);
    }
}

/* Inserts the SB row for 'f', with a UUID of our choosing so that later
 * passes can find it without comparing content. */
static void
insert_sb_flow(struct lflow *f, const struct ls_model *m,
               struct rdb_txn *txn, struct dp_groups *dpgs)
{
    struct lflow_target target = lflow_target(f, m, txn, dpgs);
    uuid_generate(&f->sb_uuid);
    rdb_txn_insert(txn, &sb_table_logical_flow, &f->sb_uuid);
    rdb_txn_set_string(txn, SB_LOGICAL_FLOW_COL_PIPELINE,
                       lflow_pipeline_name(ls_stage_pipeline(f->stage)));
    rdb_txn_set_integer(txn, SB_LOGICAL_FLOW_COL_TABLE_ID,
                        ls_stage_table(f->stage));
    rdb_txn_set_integer(txn, SB_LOGICAL_FLOW_COL_PRIORITY, f->priority);
    rdb_txn_set_string(txn, SB_LOGICAL_FLOW_COL_MATCH, f->match);
    rdb_txn_set_string(txn, SB_LOGICAL_FLOW_COL_ACTIONS, f->actions);
    if (f->ctrl_meter) {
        rdb_txn_set_string(txn, SB_LOGICAL_FLOW_COL_CONTROLLER_METER,
                           f->ctrl_meter);
    }
    if (target.dp) {
        rdb_txn_set_ref(txn, SB_LOGICAL_FLOW_COL_LOGICAL_DATAPATH, target.dp);
    } else {
        rdb_txn_set_ref(txn, SB_LOGICAL_FLOW_COL_LOGICAL_DP_GROUP,
                        target.group);
    }
    set_lflow_ids(f, txn);
    COVERAGE_INC(lflow_inserted);
}

/* Produces the inserts of a full sync, a batch per call. */
static bool
produce_inserts(struct rdb_txn *txn, void *t_)
{
    struct lflow_table *t = t_;
    for (size_t n = 0; n < 1000; ) {
        struct hmap_node *node = hmap_at_position(&t->flows, &t->insert_pos);
        if (!node) {
            return true;
        }
        struct lflow *f = CONTAINER_OF(node, struct lflow, node);
        if (!f->claimed) {
            insert_sb_flow(f, t->insert_model, txn, t->insert_dpgs);
            n++;
        }
    }
    return false;
}

/* A desired flow by the content hash of its row. */
struct lflow_by_content {
    struct hmap_node node;
    struct rdb_hash hash;
    struct lflow *flow;
};

void
lflow_table_sync_sb(struct lflow_table *t, const struct ls_model *m,
                    struct rdb *sb_db, struct rdb_txn *txn,
                    struct dp_groups *dpgs)
{
    /* Flows nobody contributes any more have no place in a content
     * comparison. */
    struct lflow *f;
    HMAP_FOR_EACH_SAFE (f, node, &t->flows) {
        f->claimed = false;
        f->dirty = false;
        if (!f->n_refs) {
            hmap_remove(&t->flows, &f->node);
            lflow_free(f);
        }
    }
    t->n_dirty = 0;

    /* (Into an empty SB, as on a first start, every flow is new.) */
    bool sb_empty = !sb_logical_flow_count(sb_db);
    struct lflow_by_content *index = xmalloc(((sb_empty ? 0
                                               : hmap_count(&t->flows)) + 1)
                                             * sizeof *index);
    struct hmap by_content = HMAP_INITIALIZER(&by_content);
    size_t n = 0;
    HMAP_FOR_EACH (f, node, &t->flows) {
        if (sb_empty) {
            break;
        }
        struct lflow_by_content *bc = &index[n++];
        bc->hash = lflow_content_hash(f);
        bc->flow = f;
        hmap_insert(&by_content, &bc->node, bc->hash.h[0]);
    }

    /* Existing rows: keep the first one that matches a desired flow by
     * content, delete the rest (after the walk: deleting a row of this
     * table changes the replica at once). */
    const struct sb_logical_flow *sb;
    struct uuid *dead = NULL;
    size_t n_dead = 0, allocated_dead = 0;
    SB_LOGICAL_FLOW_FOR_EACH (sb, sb_db) {
        const struct rdb_hash *h = rdb_row_hash(&sb->header_,
                                                &sb_table_logical_flow,
                                                SB_LOGICAL_FLOW_HASH_CONTENT);
        f = NULL;
        if (!sb->header_.hash_stale) {
            struct lflow_by_content *bc;
            HMAP_FOR_EACH_WITH_HASH (bc, node, h->h[0], &by_content) {
                if (rdb_hash_equals(&bc->hash, h) && !bc->flow->claimed) {
                    f = bc->flow;
                    break;
                }
            }
        }
        if (!f) {
            if (n_dead >= allocated_dead) {
                dead = x2nrealloc(dead, &allocated_dead, sizeof *dead);
            }
            dead[n_dead++] = sb->header_.uuid;
            continue;
        }
        f->claimed = true;
        f->sb_uuid = sb->header_.uuid;
        update_sb_flow(f, sb, m, txn, dpgs);
    }
    hmap_destroy(&by_content);
    free(index);
    for (size_t i = 0; i < n_dead; i++) {
        rdb_txn_delete(txn, &sb_table_logical_flow, &dead[i]);
        COVERAGE_INC(lflow_deleted);
    }
    free(dead);

    /* New rows: at tens of thousands of flows, writing them all into the
     * transaction here would hold its whole text in memory at once. */
    memset(&t->insert_pos, 0, sizeof t->insert_pos);
    t->insert_model = m;
    t->insert_dpgs = dpgs;
    rdb_txn_add_producer(txn, produce_inserts, t);
}

size_t
lflow_table_sync_dirty(struct lflow_table *t, const struct ls_model *m,
                       struct rdb *sb_db, struct rdb_txn *txn,
                       struct dp_groups *dpgs)
{
    size_t n = t->n_dirty;
    for (size_t i = 0; i < t->n_dirty; i++) {
        struct lflow *f = t->dirty[i];
        const struct sb_logical_flow *sb
            = (uuid_is_zero(&f->sb_uuid) ? NULL
               : sb_logical_flow_get_for_uuid(sb_db, &f->sb_uuid));
        if (!f->n_dps) {
            ovs_assert(!f->n_refs);
            if (sb) {
                rdb_txn_delete(txn, &sb_table_logical_flow, &f->sb_uuid);
                COVERAGE_INC(lflow_deleted);
            }
            hmap_remove(&t->flows, &f->node);
            lflow_free(f);
            t->dirty[i] = NULL;
            continue;
        }
        if (!sb) {
            /* New, or its row vanished under us: (re)insert. */
            insert_sb_flow(f, m, txn, dpgs);
            continue;
        }
        update_sb_flow(f, sb, m, txn, dpgs);
    }
    for (size_t i = 0; i < t->n_dirty; i++) {
        if (t->dirty[i]) {
            t->dirty[i]->dirty = false;
        }
    }
    t->n_dirty = 0;
    return n;
}
