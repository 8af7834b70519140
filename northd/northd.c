/* One northd pass; see northd.h.
 *
 * Today every pass recomputes the whole model from the replicas and
 * reconciles: the SB ends up the same whatever order NB changes arrived in,
 * and a failed transaction is simply recomputed on the next pass. */
#include <config.h>
#include "northd/northd.h"

#include <string.h>

#include "coverage.h"
#include "lib/ovn-nb-idl.h"
#include "lib/ovn-sb-idl.h"
#include "northd/acl-check.h"
#include "northd/acls.h"
#include "northd/datapaths.h"
#include "northd/dp-groups.h"
#include "northd/groups.h"
#include "northd/l2.h"
#include "northd/lb.h"
#include "northd/lflow.h"
#include "northd/meters.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "ovsdb-idl.h"
#include "smap.h"
#include "sset.h"
#include "timeval.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(northd);

COVERAGE_DEFINE(northd_recompute);

/* NB tables whose rows this northd compiles, or that only configure the
 * database itself.  Rows in any other NB table are reported, since
 * silently ignoring e.g. a logical router would surprise an operator. */
static const char *const handled_nb_tables[] = {
    "NB_Global", "Logical_Switch", "Logical_Switch_Port",
    "Connection", "SSL", "ACL", "Port_Group", "Address_Set",
    "Load_Balancer", "Load_Balancer_Group", "Meter", "Meter_Band",
    "ACL_Error",
};

/* Row counts of NB tables we do not compile, from the last pass. */
static struct shash unsupported = SHASH_INITIALIZER(&unsupported);

struct northd_stats {
    long long int last_run_msec;    /* Wall-clock duration of last pass. */
    unsigned long long int n_runs;
    size_t n_datapaths;
    size_t n_ports;
    size_t n_bad_rows;
    size_t n_lflows;
};
static struct northd_stats stats;

void
northd_init(void)
{
}

void
northd_destroy(void)
{
    shash_destroy(&unsupported);
    acl_errors_clear();
}

static bool
is_handled_table(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(handled_nb_tables); i++) {
        if (!strcmp(name, handled_nb_tables[i])) {
            return true;
        }
    }
    return false;
}

/* Counts rows of NB tables we do not compile and logs when that changes. */
static void
check_unsupported(struct ovsdb_idl *nb_idl)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);
    const struct ovsdb_idl_class *class = &nbrec_idl_class;

    for (size_t i = 0; i < class->n_tables; i++) {
        const struct ovsdb_idl_table_class *tc = &class->tables[i];
        if (is_handled_table(tc->name)) {
            continue;
        }
        uintptr_t n = 0;
        for (const struct ovsdb_idl_row *row = ovsdb_idl_first_row(nb_idl,
                                                                   tc);
             row; row = ovsdb_idl_next_row(row)) {
            n++;
        }
        uintptr_t old = (uintptr_t) shash_find_data(&unsupported, tc->name);
        if (n != old) {
            if (n) {
                VLOG_WARN_RL(&rl, "NB table %s has %"PRIuPTR" row(s): this "
                             "northd does not compile them (see "
                             "\"status\")", tc->name, n);
                shash_replace(&unsupported, tc->name, (void *) n);
            } else {
                VLOG_INFO("NB table %s is empty again", tc->name);
                shash_find_and_delete(&unsupported, tc->name);
            }
        }
    }
}

void
northd_format_unsupported(struct ds *out)
{
    const struct shash_node **nodes = shash_sort(&unsupported);
    for (size_t i = 0; i < shash_count(&unsupported); i++) {
        ds_put_format(out, "Not compiled: %"PRIuPTR" row(s) in NB table %s\n",
                      (uintptr_t) nodes[i]->data, nodes[i]->name);
    }
    free(nodes);
}

void
northd_format_stats(struct ds *out)
{
    ds_put_format(out, "runs: %llu\n", stats.n_runs);
    ds_put_format(out, "last run: %lld ms\n", stats.last_run_msec);
    ds_put_format(out, "datapaths: %"PRIuSIZE"\n", stats.n_datapaths);
    ds_put_format(out, "ports: %"PRIuSIZE"\n", stats.n_ports);
    ds_put_format(out, "bad NB rows: %"PRIuSIZE"\n", stats.n_bad_rows);
    ds_put_format(out, "logical flows: %"PRIuSIZE"\n", stats.n_lflows);
    acls_format_stats(out);
}

static const struct nbrec_nb_global *
get_nb_global(struct northd_ctx *ctx)
{
    const struct nbrec_nb_global *nb = nbrec_nb_global_first(ctx->nb_idl);
    if (!nb && ctx->nb_txn) {
        nb = nbrec_nb_global_insert(ctx->nb_txn);
    }
    return nb;
}

/* Copies NB_Global settings to SB_Global and passes nb_cfg on.  When the
 * SB transaction commits, the main loop's 'sb_loop->cur_cfg' becomes the
 * nb_cfg whose results are now in the SB. */
static void
sync_sb_global(struct northd_ctx *ctx, const struct nbrec_nb_global *nb)
{
    const struct sbrec_sb_global *sb = sbrec_sb_global_first(ctx->sb_idl);
    if (!sb) {
        sb = sbrec_sb_global_insert(ctx->sb_txn);
    }
    if (!nb) {
        return;
    }

    if (!smap_equal(&sb->options, &nb->options)) {
        sbrec_sb_global_set_options(sb, &nb->options);
    }
    if (sb->ipsec != nb->ipsec) {
        sbrec_sb_global_set_ipsec(sb, nb->ipsec);
    }
    if (sb->nb_cfg != nb->nb_cfg) {
        sbrec_sb_global_set_nb_cfg(sb, nb->nb_cfg);
        if (ctx->nb_txn) {
            nbrec_nb_global_set_nb_cfg_timestamp(nb, time_wall_msec());
        }
    }
    ctx->sb_loop->next_cfg = nb->nb_cfg;
}

void
northd_run(struct northd_ctx *ctx)
{
    long long int start = time_msec();
    COVERAGE_INC(northd_recompute);

    const struct nbrec_nb_global *nb = get_nb_global(ctx);
    sync_sb_global(ctx, nb);

    /* Input model: switches and ports (with their SB bindings, created
     * here so flows can refer to them), load balancers. */
    struct ls_model model;
    ls_model_init(&model);
    ls_model_build(&model, ctx->nb_idl, ctx->sb_idl);
    ls_model_sync_sb(&model, ctx->sb_idl, ctx->sb_txn);
    if (ctx->nb_txn) {
        ls_model_sync_nb_up(&model);
        ls_model_sync_nb_tags(&model);
    }
    struct lb_model lbs;
    lb_model_init(&lbs);
    lb_model_build(&lbs, &model, ctx->nb_idl);

    /* Compile. */
    struct lflow_table lflows;
    lflow_table_init(&lflows, model.n_datapaths);
    struct sset *dp_pg_refs = xcalloc(model.n_datapaths + 1,
                                      sizeof *dp_pg_refs);
    for (size_t i = 0; i < model.n_datapaths; i++) {
        sset_init(&dp_pg_refs[i]);
    }
    l2_build_lflows(&lflows, &model);
    lb_build_lflows(&lflows, &model, &lbs);
    struct shash addr_sets = SHASH_INITIALIZER(&addr_sets);
    groups_build_address_sets(&model, ctx->nb_idl, &addr_sets);
    acls_build_lflows(&lflows, &model, &lbs, ctx->nb_idl, nb, &addr_sets,
                      dp_pg_refs);
    acl_errors_end(ctx->nb_idl, ctx->nb_txn);

    /* Reconcile. */
    struct dp_groups dpgs;
    dp_groups_init(&dpgs, &model, ctx->sb_idl);
    lb_sync_sb(&lbs, &model, ctx->sb_idl, ctx->sb_txn, &dpgs);
    lflow_table_sync_sb(&lflows, &model, ctx->sb_idl, ctx->sb_txn, &dpgs);
    groups_sync_sb(&model, ctx->nb_idl, &addr_sets, dp_pg_refs, ctx->sb_idl,
                   ctx->sb_txn);
    groups_destroy_address_sets(&addr_sets);
    meters_sync_sb(ctx->nb_idl, ctx->sb_idl, ctx->sb_txn);
    check_unsupported(ctx->nb_idl);

    stats.n_lflows = lflow_table_count(&lflows);
    for (size_t i = 0; i < model.n_datapaths; i++) {
        sset_destroy(&dp_pg_refs[i]);
    }
    free(dp_pg_refs);
    dp_groups_destroy(&dpgs);
    lflow_table_destroy(&lflows);
    lb_model_destroy(&lbs);

    stats.n_runs++;
    stats.n_datapaths = model.n_datapaths;
    stats.n_ports = hmap_count(&model.ports);
    stats.n_bad_rows = model.n_bad_rows;
    ls_model_destroy(&model);
    stats.last_run_msec = time_msec() - start;
}

void
northd_update_sequence_numbers(struct northd_ctx *ctx)
{
    const struct nbrec_nb_global *nb = nbrec_nb_global_first(ctx->nb_idl);
    if (!nb) {
        return;
    }

    /* The SB holds the results of 'cur_cfg' once its transaction landed. */
    int64_t sb_cfg = ctx->sb_loop->cur_cfg;
    if (sb_cfg && nb->sb_cfg != sb_cfg) {
        nbrec_nb_global_set_sb_cfg(nb, sb_cfg);
        nbrec_nb_global_set_sb_cfg_timestamp(nb, time_wall_msec());
    }

    /* Hypervisors report the nb_cfg whose flows they have installed; the
     * slowest one is where --wait=hv stands. */
    const struct sbrec_sb_global *sb = sbrec_sb_global_first(ctx->sb_idl);
    if (!sb) {
        return;
    }
    int64_t hv_cfg = sb->nb_cfg;
    int64_t hv_cfg_ts = 0;
    const struct sbrec_chassis_private *cp;
    SBREC_CHASSIS_PRIVATE_FOR_EACH (cp, ctx->sb_idl) {
        if (cp->chassis
            && smap_get_bool(&cp->chassis->other_config, "is-remote",
                             false)) {
            continue;
        }
        if (cp->nb_cfg < hv_cfg) {
            hv_cfg = cp->nb_cfg;
        }
        hv_cfg_ts = MAX(hv_cfg_ts, cp->nb_cfg_timestamp);
    }
    if (nb->hv_cfg != hv_cfg) {
        nbrec_nb_global_set_hv_cfg(nb, hv_cfg);
        nbrec_nb_global_set_hv_cfg_timestamp(nb, hv_cfg_ts);
    }
}
