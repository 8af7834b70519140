/* The desired logical flow table and its SB reconciliation; see lflow.h. */
#include <config.h>
#include "northd/lflow.h"

#include <string.h>

#include "bitmap.h"
#include "coverage.h"
#include "hash.h"
#include "lib/ovn-sb-idl.h"
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
    struct uuid hint;               /* Zero if none. */
    const char *where;
    unsigned long *dps;             /* Bitmap over datapath indexes. */
    size_t n_dps;
    bool claimed;                   /* Matched to an SB row by the sync. */
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
lflow_table_init(struct lflow_table *t, size_t n_datapaths)
{
    hmap_init(&t->flows);
    t->n_datapaths = n_datapaths;
}

void
lflow_table_destroy(struct lflow_table *t)
{
    if (!t) {
        return;
    }
    struct lflow *f;
    HMAP_FOR_EACH_POP (f, node, &t->flows) {
        free(f->match);
        free(f->actions);
        free(f->ctrl_meter);
        bitmap_free(f->dps);
        free(f);
    }
    hmap_destroy(&t->flows);
}

size_t
lflow_table_count(const struct lflow_table *t)
{
    return hmap_count(&t->flows);
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

static bool
nullable_streq(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
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
            && nullable_streq(f->ctrl_meter, ctrl_meter)) {
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
        f->dps = bitmap_allocate(t->n_datapaths);
        if (hint) {
            f->hint = *hint;
        }
        hmap_insert(&t->flows, &f->node, hash);
    } else if (hint && (uuid_is_zero(&f->hint)
                        || uuid_compare_3way(hint, &f->hint) < 0)) {
        /* Shared by several NB rows: name the same one every time. */
        f->hint = *hint;
    }
    if (!bitmap_is_set(f->dps, dp->index)) {
        bitmap_set1(f->dps, dp->index);
        f->n_dps++;
    }
}

static void
lflow_external_ids(const struct lflow *f, struct smap *ids)
{
    smap_add(ids, "stage-name", ls_stage_name(f->stage));
    if (!uuid_is_zero(&f->hint)) {
        smap_add_format(ids, "stage-hint", "%08x", f->hint.parts[0]);
    }
    /* "northd/acls.c:123" -> "acls.c:123", as operators expect. */
    const char *slash = strrchr(f->where, '/');
    smap_add(ids, "source", slash ? slash + 1 : f->where);
}

/* Returns true if 'ids' is what lflow_external_ids() would make for 'f'.
 * Cheaper than building it: most flows are unchanged on most passes. */
static bool
lflow_external_ids_match(const struct lflow *f, const struct smap *ids)
{
    size_t n = 2 + !uuid_is_zero(&f->hint);
    if (smap_count(ids) != n) {
        return false;
    }
    const char *name = smap_get(ids, "stage-name");
    if (!name || strcmp(name, ls_stage_name(f->stage))) {
        return false;
    }
    const char *slash = strrchr(f->where, '/');
    const char *source = smap_get(ids, "source");
    if (!source || strcmp(source, slash ? slash + 1 : f->where)) {
        return false;
    }
    if (!uuid_is_zero(&f->hint)) {
        char hint[9];
        snprintf(hint, sizeof hint, "%08x", f->hint.parts[0]);
        const char *h = smap_get(ids, "stage-hint");
        if (!h || strcmp(h, hint)) {
            return false;
        }
    }
    return true;
}

/* Makes 'sb' apply to exactly the datapaths of 'f'. */
static void
sync_lflow_datapaths(const struct lflow *f,
                     const struct sbrec_logical_flow *sb,
                     const struct ls_model *m, struct ovsdb_idl_txn *txn,
                     struct dp_groups *dpgs)
{
    if (f->n_dps == 1) {
        size_t idx = bitmap_scan(f->dps, true, 0, m->n_datapaths);
        const struct sbrec_datapath_binding *dp = m->dp_array[idx]->sb;
        if (sb->logical_datapath != dp) {
            sbrec_logical_flow_set_logical_datapath(sb, dp);
        }
        if (sb->logical_dp_group) {
            sbrec_logical_flow_set_logical_dp_group(sb, NULL);
        }
    } else {
        const struct sbrec_logical_dp_group *g
            = dp_groups_get(dpgs, txn, f->dps, f->n_dps);
        if (sb->logical_dp_group != g) {
            sbrec_logical_flow_set_logical_dp_group(sb, g);
        }
        if (sb->logical_datapath) {
            sbrec_logical_flow_set_logical_datapath(sb, NULL);
        }
    }
}

void
lflow_table_sync_sb(struct lflow_table *t, const struct ls_model *m,
                    struct ovsdb_idl *sb_idl, struct ovsdb_idl_txn *txn,
                    struct dp_groups *dpgs)
{
    /* Existing rows: keep the first one that matches a desired flow by
     * content, delete the rest. */
    const struct sbrec_logical_flow *sb;
    SBREC_LOGICAL_FLOW_FOR_EACH_SAFE (sb, sb_idl) {
        enum lflow_pipeline p = !strcmp(sb->pipeline, "ingress") ? P_IN
                                                                 : P_OUT;
        enum ls_stage stage = LS_STAGE_ID(p, sb->table_id);
        const char *meter = sb->controller_meter;
        if (meter && !meter[0]) {
            meter = NULL;
        }
        uint32_t hash = lflow_hash(stage, sb->priority, sb->match,
                                   sb->actions, meter);
        struct lflow *f = lflow_find(t, hash, stage, sb->priority, sb->match,
                                     sb->actions, meter);
        if (!f || f->claimed) {
            sbrec_logical_flow_delete(sb);
            COVERAGE_INC(lflow_deleted);
            continue;
        }
        f->claimed = true;
        sync_lflow_datapaths(f, sb, m, txn, dpgs);

        if (!lflow_external_ids_match(f, &sb->external_ids)) {
            struct smap ids = SMAP_INITIALIZER(&ids);
            lflow_external_ids(f, &ids);
            sbrec_logical_flow_set_external_ids(sb, &ids);
            smap_destroy(&ids);
            COVERAGE_INC(lflow_updated);
        }
    }

    struct lflow *f;
    HMAP_FOR_EACH (f, node, &t->flows) {
        if (f->claimed) {
            continue;
        }
        sb = sbrec_logical_flow_insert(txn);
        sbrec_logical_flow_set_pipeline(
            sb, lflow_pipeline_name(ls_stage_pipeline(f->stage)));
        sbrec_logical_flow_set_table_id(sb, ls_stage_table(f->stage));
        sbrec_logical_flow_set_priority(sb, f->priority);
        sbrec_logical_flow_set_match(sb, f->match);
        sbrec_logical_flow_set_actions(sb, f->actions);
        if (f->ctrl_meter) {
            sbrec_logical_flow_set_controller_meter(sb, f->ctrl_meter);
        }
        sync_lflow_datapaths(f, sb, m, txn, dpgs);

        struct smap ids = SMAP_INITIALIZER(&ids);
        lflow_external_ids(f, &ids);
        sbrec_logical_flow_set_external_ids(sb, &ids);
        smap_destroy(&ids);
        COVERAGE_INC(lflow_inserted);
    }
}
