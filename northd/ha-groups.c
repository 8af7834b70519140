/* HA chassis groups of external ports; see ha-groups.h. */
#include <config.h>
#include "northd/ha-groups.h"

#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "hash.h"
#include "lib/nb-rdb.h"
#include "lib/rdb.h"
#include "lib/sb-rdb.h"
#include "northd/datapaths.h"
#include "northd/router-gw.h"
#include "hmapx.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "smap.h"
#include "util.h"
#include "uuid.h"

VLOG_DEFINE_THIS_MODULE(ha_groups);

COVERAGE_DEFINE(ha_group_written);
COVERAGE_DEFINE(ha_group_deleted);

/* One HA_Chassis as the SB should have it. */
struct ha_member {
    const char *name;               /* Chassis name. */
    const struct uuid *chassis;     /* SB Chassis, or NULL if none. */
    int64_t priority;
};

static int
compare_members(const void *a_, const void *b_)
{
    const struct ha_member *a = a_;
    const struct ha_member *b = b_;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->priority > b->priority) - (a->priority < b->priority);
}

/* The members group 'w' should have in the SB, sorted, into '*n': the
 * NB group's, or the router port's gateway_chassis. */
static struct ha_member *
wanted_members(const struct ha_want *w, const struct shash *chassis,
               size_t *n)
{
    const struct nb_ha_chassis_group *g = w->nb;
    *n = g ? g->n_ha_chassis : w->lrp->n_gateway_chassis;
    struct ha_member *v = xmalloc(MAX(*n, 1) * sizeof *v);
    for (size_t i = 0; i < *n; i++) {
        const char *name;
        int64_t priority;
        if (g) {
            name = g->ha_chassis[i]->chassis_name;
            priority = g->ha_chassis[i]->priority;
        } else {
            name = w->lrp->gateway_chassis[i]->chassis_name;
            priority = w->lrp->gateway_chassis[i]->priority;
        }
        const struct sb_chassis *ch = shash_find_data(chassis, name);
        v[i].name = name;
        v[i].chassis = ch ? &ch->header_.uuid : NULL;
        v[i].priority = priority;
    }
    qsort(v, *n, sizeof *v, compare_members);
    return v;
}

/* Whether SB group 'sg' refers to exactly the chassis 'w' wants. */
static bool
refs_equal(const struct sb_ha_chassis_group *sg, const struct ha_want *w)
{
    if (sg->n_ref_chassis != hmapx_count(&w->ref_chassis)) {
        return false;
    }
    for (size_t i = 0; i < sg->n_ref_chassis; i++) {
        if (!hmapx_contains(&w->ref_chassis, sg->ref_chassis[i])) {
            return false;
        }
    }
    return true;
}

static void
write_refs(struct rdb_txn *txn, const struct ha_want *w)
{
    size_t n = hmapx_count(&w->ref_chassis);
    struct uuid *refs = xmalloc(MAX(n, 1) * sizeof *refs);
    size_t i = 0;
    struct hmapx_node *node;
    HMAPX_FOR_EACH (node, &w->ref_chassis) {
        const struct sb_chassis *ch = node->data;
        refs[i++] = ch->header_.uuid;
    }
    rdb_txn_set_refs(txn, SB_HA_CHASSIS_GROUP_COL_REF_CHASSIS, refs, n);
    free(refs);
}

static void
wanted_destroy(struct shash *wanted)
{
    struct shash_node *node;
    SHASH_FOR_EACH (node, wanted) {
        struct ha_want *w = node->data;
        hmapx_destroy(&w->ref_chassis);
        free(w);
    }
    shash_destroy(wanted);
}

/* Whether SB group 'sg' has exactly the members 'v'. */
static bool
members_equal(const struct sb_ha_chassis_group *sg,
              const struct ha_member *v, size_t n)
{
    if (sg->n_ha_chassis != n) {
        return false;
    }
    struct ha_member *have = xmalloc(MAX(n, 1) * sizeof *have);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        const struct sb_ha_chassis *hc = sg->ha_chassis[i];
        const char *name = smap_get(&hc->external_ids, "chassis-name");
        ok = name && smap_count(&hc->external_ids) == 1;
        have[i].name = name ? name : "";
        have[i].chassis = hc->chassis ? &hc->chassis->header_.uuid : NULL;
        have[i].priority = hc->priority;
    }
    if (ok) {
        qsort(have, n, sizeof *have, compare_members);
        for (size_t i = 0; i < n && ok; i++) {
            ok = (!strcmp(have[i].name, v[i].name)
                  && have[i].priority == v[i].priority
                  && (have[i].chassis && v[i].chassis
                      ? uuid_equals(have[i].chassis, v[i].chassis)
                      : have[i].chassis == v[i].chassis));
        }
    }
    free(have);
    return ok;
}

/* Writes the members 'v' of the group being written in 'txn' (its
 * ha_chassis column): new HA_Chassis rows (the old ones, unreferenced, go
 * with them). */
static void
write_members(struct rdb_txn *txn, const struct uuid *group,
              const struct ha_member *v, size_t n)
{
    struct uuid *rows = xmalloc(MAX(n, 1) * sizeof *rows);
    for (size_t i = 0; i < n; i++) {
        rdb_uuid_generate(&rows[i]);
        rdb_txn_insert(txn, &sb_table_ha_chassis, &rows[i]);
        if (v[i].chassis) {
            rdb_txn_set_ref(txn, SB_HA_CHASSIS_COL_CHASSIS, v[i].chassis);
        }
        rdb_txn_set_integer(txn, SB_HA_CHASSIS_COL_PRIORITY, v[i].priority);
        struct smap ids = SMAP_INITIALIZER(&ids);
        smap_add(&ids, "chassis-name", v[i].name);
        rdb_txn_set_smap(txn, SB_HA_CHASSIS_COL_EXTERNAL_IDS, &ids);
        smap_destroy(&ids);
    }
    rdb_txn_update(txn, &sb_table_ha_chassis_group, group);
    rdb_txn_set_refs(txn, SB_HA_CHASSIS_GROUP_COL_HA_CHASSIS, rows, n);
    free(rows);
}

static void
uuids_clear(struct shash *uuids)
{
    struct shash_node *node;
    SHASH_FOR_EACH_SAFE (node, uuids) {
        free(node->data);
        shash_delete(uuids, node);
    }
}

void
ha_groups_sync(struct ls_model *m, struct rdb *sb, struct rdb_txn *txn)
{
    /* The groups external ports and distributed gateway ports use, by
     * name. */
    struct shash wanted = SHASH_INITIALIZER(&wanted);
    const struct ls_port *p;
    HMAP_FOR_EACH (p, name_node, &m->ports) {
        const struct nb_ha_chassis_group *g = p->nb->ha_chassis_group;
        if (g && !strcmp(p->nb->type, "external")
            && !shash_find(&wanted, g->name)) {
            struct ha_want *w = xzalloc(sizeof *w);
            w->name = g->name;
            w->nb = g;
            hmapx_init(&w->ref_chassis);
            shash_add(&wanted, g->name, w);
        }
    }
    lr_gw_collect_groups(m, &wanted);

    struct shash chassis = SHASH_INITIALIZER(&chassis);
    if (!shash_is_empty(&wanted)) {
        const struct sb_chassis *ch;
        SB_CHASSIS_FOR_EACH (ch, sb) {
            shash_add_once(&chassis, ch->name, ch);
        }
    }

    /* SB groups: kept (the first of a name that is wanted), rewritten, or
     * deleted. */
    uuids_clear(&m->ha_group_uuids);
    const struct sb_ha_chassis_group *sg;
    SB_HA_CHASSIS_GROUP_FOR_EACH (sg, sb) {
        const struct ha_want *g = shash_find_data(&wanted, sg->name);
        if (!g || shash_find(&m->ha_group_uuids, sg->name)) {
            COVERAGE_INC(ha_group_deleted);
            rdb_txn_delete(txn, &sb_table_ha_chassis_group,
                           &sg->header_.uuid);
            continue;
        }
        shash_add(&m->ha_group_uuids, sg->name,
                  xmemdup(&sg->header_.uuid, sizeof sg->header_.uuid));
        size_t n;
        struct ha_member *v = wanted_members(g, &chassis, &n);
        if (!members_equal(sg, v, n) || !smap_is_empty(&sg->external_ids)) {
            COVERAGE_INC(ha_group_written);
            write_members(txn, &sg->header_.uuid, v, n);
            if (!smap_is_empty(&sg->external_ids)) {
                struct smap none = SMAP_INITIALIZER(&none);
                rdb_txn_set_smap(txn, SB_HA_CHASSIS_GROUP_COL_EXTERNAL_IDS,
                                 &none);
            }
        }
        if (!refs_equal(sg, g)) {
            COVERAGE_INC(ha_group_written);
            rdb_txn_update(txn, &sb_table_ha_chassis_group,
                           &sg->header_.uuid);
            write_refs(txn, g);
        }
        free(v);
    }

    /* New groups. */
    struct shash_node *node;
    SHASH_FOR_EACH (node, &wanted) {
        if (shash_find(&m->ha_group_uuids, node->name)) {
            continue;
        }
        const struct ha_want *g = node->data;
        struct uuid u;
        rdb_uuid_generate(&u);
        COVERAGE_INC(ha_group_written);
        rdb_txn_insert(txn, &sb_table_ha_chassis_group, &u);
        rdb_txn_set_string(txn, SB_HA_CHASSIS_GROUP_COL_NAME, g->name);
        size_t n;
        struct ha_member *v = wanted_members(g, &chassis, &n);
        write_members(txn, &u, v, n);
        if (hmapx_count(&g->ref_chassis)) {
            write_refs(txn, g);
        }
        free(v);
        shash_add(&m->ha_group_uuids, g->name, xmemdup(&u, sizeof u));
    }
    shash_destroy(&chassis);
    wanted_destroy(&wanted);
}

const struct uuid *
ha_groups_find(const struct ls_model *m, const char *name)
{
    return shash_find_data(&m->ha_group_uuids, name);
}
