/* Control plane protection; see copp.h and docs/copp.md. */
#include <config.h>
#include "northd/copp.h"

#include <string.h>

#include "bitmap.h"
#include "coverage.h"
#include "lib/nb-rdb.h"
#include "lib/rdb.h"
#include "northd/datapaths.h"
#include "northd/router.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "smap.h"
#include "sset.h"
#include "util.h"
#include "uuid.h"

VLOG_DEFINE_THIS_MODULE(copp);

COVERAGE_DEFINE(copp_dp);

/* The meters of one Copp row, shared by the datapaths that name it. */
struct copp_meters {
    char *meter[COPP_N_PROTOS];     /* NULL: not metered. */
};

struct copp_set {
    size_t dp_cap;
    const struct copp_meters **by_dp;       /* 'dp_cap' of them. */
    unsigned long *proto_dps[COPP_N_PROTOS];   /* Datapaths with a meter
                                                * for each protocol. */
    struct shash rows;              /* Copp row UUID -> copp_meters. */
};

/* The meters of Copp row 'row', reporting its problems into 'm' once per
 * pass. */
static struct copp_meters *
copp_meters_create(struct ls_model *m, const struct nb_copp *row,
                   const struct sset *meter_names)
{
    struct copp_meters *cm = xzalloc(sizeof *cm);
    const struct smap_node *node;
    SMAP_FOR_EACH (node, &row->meters) {
        enum copp_proto p;
        for (p = 0; p < COPP_N_PROTOS; p++) {
            if (!strcmp(node->key, copp_proto_name(p))) {
                break;
            }
        }
        char *msg = NULL;
        if (p == COPP_N_PROTOS) {
            msg = xasprintf("Copp %s ("UUID_FMT"): unknown protocol "
                            "\"%s\": ignored", row->name,
                            UUID_ARGS(&row->header_.uuid), node->key);
        } else if (!sset_contains(meter_names, node->value)) {
            msg = xasprintf("Copp %s ("UUID_FMT"): protocol \"%s\": no NB "
                            "Meter named \"%s\": not metered", row->name,
                            UUID_ARGS(&row->header_.uuid), node->key,
                            node->value);
        } else {
            cm->meter[p] = xstrdup(node->value);
        }
        if (msg) {
            ls_model_report_bad_row(m, msg);
            free(msg);
        }
    }
    return cm;
}

static void
copp_meters_destroy(struct copp_meters *cm)
{
    for (size_t i = 0; i < COPP_N_PROTOS; i++) {
        free(cm->meter[i]);
    }
    free(cm);
}

static const struct nb_copp *
dp_copp(const struct ls_datapath *dp)
{
    return dp->router ? dp->router->nb->copp : dp->nb->copp;
}

struct copp_set *
copp_set_build(struct ls_model *m, struct rdb *nb)
{
    size_t n = ls_model_n_all(m);
    size_t i;
    for (i = 0; i < n; i++) {
        if (dp_copp(ls_model_dp_at(m, i))) {
            break;
        }
    }
    if (i == n) {
        return NULL;
    }

    struct sset meter_names = SSET_INITIALIZER(&meter_names);
    const struct nb_meter *meter;
    NB_METER_FOR_EACH (meter, nb) {
        sset_add(&meter_names, meter->name);
    }

    struct copp_set *cs = xzalloc(sizeof *cs);
    cs->dp_cap = m->dp_cap;
    cs->by_dp = xcalloc(m->dp_cap, sizeof *cs->by_dp);
    for (size_t p = 0; p < COPP_N_PROTOS; p++) {
        cs->proto_dps[p] = bitmap_allocate(m->dp_cap);
    }
    shash_init(&cs->rows);
    for (; i < n; i++) {
        const struct ls_datapath *dp = ls_model_dp_at(m, i);
        const struct nb_copp *row = dp_copp(dp);
        if (!row) {
            continue;
        }
        char key[UUID_LEN + 1];
        snprintf(key, sizeof key, UUID_FMT, UUID_ARGS(&row->header_.uuid));
        struct copp_meters *cm = shash_find_data(&cs->rows, key);
        if (!cm) {
            cm = copp_meters_create(m, row, &meter_names);
            shash_add(&cs->rows, key, cm);
        }
        ovs_assert(dp->index < cs->dp_cap);
        cs->by_dp[dp->index] = cm;
        for (size_t p = 0; p < COPP_N_PROTOS; p++) {
            if (cm->meter[p]) {
                bitmap_set1(cs->proto_dps[p], dp->index);
            }
        }
        COVERAGE_INC(copp_dp);
    }
    sset_destroy(&meter_names);
    return cs;
}

void
copp_set_destroy(struct copp_set *cs)
{
    if (cs) {
        struct shash_node *node;
        SHASH_FOR_EACH (node, &cs->rows) {
            copp_meters_destroy(node->data);
        }
        shash_destroy(&cs->rows);
        for (size_t p = 0; p < COPP_N_PROTOS; p++) {
            bitmap_free(cs->proto_dps[p]);
        }
        free(cs->by_dp);
        free(cs);
    }
}

const char *
copp_set_proto_meter(const struct copp_set *cs, size_t dp,
                     enum copp_proto proto)
{
    const struct copp_meters *cm = dp < cs->dp_cap ? cs->by_dp[dp] : NULL;
    return cm && proto < COPP_N_PROTOS ? cm->meter[proto] : NULL;
}

const char *
copp_set_meter(const struct copp_set *cs, size_t dp, const char *actions)
{
    if (dp >= cs->dp_cap || !cs->by_dp[dp]) {
        return NULL;
    }
    return copp_set_proto_meter(cs, dp, copp_classify(actions));
}

bool
copp_set_any(const struct copp_set *cs, const unsigned long *dps,
             enum copp_proto proto)
{
    if (proto >= COPP_N_PROTOS) {
        return false;
    }
    const unsigned long *have = cs->proto_dps[proto];
    for (size_t i = 0; i < BITMAP_N_LONGS(cs->dp_cap); i++) {
        if (dps[i] & have[i]) {
            return true;
        }
    }
    return false;
}
