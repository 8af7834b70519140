/* One northd pass; see northd.h.
 *
 * A pass recompiles only what the NB changes since the last pass own
 * (incremental_run()), or recomputes the whole model from the replicas and
 * reconciles the SB with it (full_recompute()) when the kept state cannot
 * follow: the first pass, a change no handler follows, an SB replica that
 * started over, a recompute requested.  Both leave the SB the same
 * whatever order NB changes arrived in (docs/incremental.md), which
 * "--check-incremental" verifies in process after every incremental pass
 * (check_incremental()).  Everything kept from one pass to the next is a
 * member of 'struct northd'. */
#include <config.h>
#include "northd/northd.h"

#include <string.h>

#include "bitmap.h"
#include "coverage.h"
#include "hmapx.h"
#include "lib/nb-rdb.h"
#include "lib/rdb-map.h"
#include "lib/rdb.h"
#include "lib/sb-rdb.h"
#include "northd/acl-check.h"
#include "northd/acl-lint.h"
#include "northd/acls.h"
#include "northd/datapaths.h"
#include "northd/dns.h"
#include "northd/dp-groups.h"
#include "northd/dhcp.h"
#include "northd/fdb.h"
#include "northd/features.h"
#include "northd/global-opts.h"
#include "northd/groups.h"
#include "northd/ha-groups.h"
#include "northd/ipam.h"
#include "northd/l2.h"
#include "northd/lb.h"
#include "northd/lb-health.h"
#include "northd/lflow.h"
#include "northd/mac-binding.h"
#include "northd/mcast.h"
#include "northd/meters.h"
#include "northd/nb-report.h"
#include "northd/qos.h"
#include "northd/router.h"
#include "northd/router-lb.h"
#include "northd/router-gw.h"
#include "northd/router-nat.h"
#include "northd/rbac.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "smap.h"
#include "sset.h"
#include "timeval.h"
#include "util.h"
#include "uuid.h"
#include "uuidset.h"

VLOG_DEFINE_THIS_MODULE(northd);

COVERAGE_DEFINE(northd_recompute);
COVERAGE_DEFINE(northd_igmp_group_followed);
COVERAGE_DEFINE(northd_dp_group_moved);
COVERAGE_DEFINE(northd_check_failed);   /* --check-incremental found a
                                         * difference. */


struct northd_stats {
    long long int last_run_msec;    /* Wall-clock duration of last pass. */
    unsigned long long int n_runs;
    unsigned long long int n_full;  /* Full recomputes. */
    unsigned long long int n_incremental;
    unsigned long long int n_noop;  /* Incremental, nothing to compile. */
    unsigned long long int n_aborted;   /* Passes that stopped before
                                         * compiling, to wait for a fresh
                                         * copy of the SB. */
    long long int full_msec;        /* Total time in each kind of pass. */
    long long int incremental_msec;
    const char *last_full_reason;
    size_t n_datapaths;
    size_t n_ports;
    size_t n_bad_rows;
    size_t n_lflows;
    size_t n_unwritten;
};

/* Everything compiled, kept from one pass to the next.  Valid after a full
 * recompute; incremental passes keep it in step with the NB. */
struct northd_data {
    bool valid;
    struct ls_model model;
    struct lb_model lbs;
    struct lb_health health;        /* Health checks (lb-health.h). */
    struct eth_addr svc_mac;        /* The svc_monitor_mac compiled with. */
    struct qos_model qos;
    struct dns_model dns;
    struct groups groups;
    struct acls *acls;
    struct lflow_table lflows;
    struct dp_groups dpgs;          /* Only with 'synced'. */
    bool synced;                    /* Reconciled with the SB: not a build
                                     * only to compare with. */
    struct lflow_owner lb_owner;
    bool nb_writes_pending;         /* NB status columns to bring in line. */
    struct uuidset own_pb_deletes;  /* Port_Bindings this northd deleted:
                                     * seeing them go is no surprise. */
    struct uuidset own_lb_inserts;  /* Load_Balancers this northd inserted:
                                     * seeing them come is no surprise. */
    struct uuid flow_key;           /* What 'lflows' keys its row UUIDs
                                     * with: SB_Global's UUID. */
    struct ls_features features;    /* What the flows were compiled for. */
    struct smap nb_options;         /* NB_Global options the last full
                                     * pass compiled with. */
    struct uuidset dhcp_bad;        /* DHCP_Options rows and ports whose
                                     * DHCP problems the last full pass
                                     * reported (northd/dhcp.h). */
};

/* Results of the in-process check of incremental passes. */
struct northd_check {
    bool enabled;                   /* After every incremental pass. */
    unsigned long long int n_checks;
    unsigned long long int n_failed;    /* Checks that found differences. */
    unsigned long long int n_diffs;     /* Differences, all checks. */
    char *last_report;              /* The differences of the last check
                                     * that found any, or NULL. */
};

struct northd {
    struct northd_data data;
    struct northd_stats stats;

    /* The counters as they were at the last "inc-engine/clear-stats",
     * which "inc-engine/show-stats" counts from (northd/stats does
     * not). */
    struct northd_stats engine_base;

    /* Whether the SB replica's Logical_Flow rows are a copy the last full
     * sync has not used yet.  The replica keeps that table only from the
     * moment it starts over until a full sync has matched it (lib/sb.rdb);
     * from then on, the lflow table knows the SB's flows. */
    bool lflow_copy_fresh;

    /* The latest NB_Global.nb_cfg a pass saw, and when (wall clock, ms) it
     * first saw it: NB_Global.nb_cfg_timestamp, even if its flows take
     * several passes.  Written with sb_cfg
     * (northd_update_sequence_numbers()): one NB commit per change instead
     * of two, and an NB server commit at a million ACLs costs
     * milliseconds. */
    int64_t cfg_seen;
    long long int cfg_seen_wall;

    /* The UUID northd inserts SB_Global under, if the SB has none. */
    struct uuid sb_global_made;

    /* Validation's memory and the invalid ACLs (acl-check.h). */
    struct acl_registry *acl_errors;

    /* Problems with NB rows the last full pass logged (see struct
     * ls_model 'reported'). */
    struct sset reported_problems;

    struct northd_check check;

    /* What of the NB is not compiled, by row (lib/nb.rdb, nb-report.h). */
    struct nb_report *nb_report;

    /* The options northd sets itself (northd/global-opts.h): kept across
     * full passes, so that a chosen svc_monitor_mac stays the same. */
    struct global_opts global_opts;

    /* MAC_Binding aging's schedule (mac-binding.h). */
    struct mb_aging mb_aging;
};
/* The UUID of the SB_Global row: the one the SB has, or the one northd
 * is about to insert it under.  It keys the UUIDs of the Logical_Flow rows
 * northd inserts (lflow_table_init()): a row the SB has as long as the SB
 * does, which every northd on it reads, and which a CMS can neither
 * choose nor read. */
static const struct uuid *
sb_global_uuid(struct northd *n, const struct rdb *sb_db)
{
    const struct sb_sb_global *sb = sb_sb_global_first(sb_db);
    if (sb) {
        return &sb->header_.uuid;
    }
    if (uuid_is_zero(&n->sb_global_made)) {
        rdb_uuid_generate(&n->sb_global_made);
    }
    return &n->sb_global_made;
}

static void
northd_data_destroy(struct northd_data *d)
{
    if (!d->valid) {
        return;
    }
    acls_destroy(d->acls);
    groups_destroy(&d->groups);
    if (d->synced) {
        dp_groups_destroy(&d->dpgs);
    }
    lflow_owner_destroy(&d->lb_owner);
    lflow_table_destroy(&d->lflows);
    lb_model_destroy(&d->lbs);
    lb_health_destroy(&d->health);
    qos_model_destroy(&d->qos);
    dns_model_destroy(&d->dns);
    ls_model_destroy(&d->model);
    uuidset_destroy(&d->own_pb_deletes);
    uuidset_destroy(&d->own_lb_inserts);
    uuidset_destroy(&d->dhcp_bad);
    smap_destroy(&d->nb_options);
    d->valid = false;
    d->synced = false;
}

struct northd *
northd_create(void)
{
    struct northd *n = xzalloc(sizeof *n);
    n->acl_errors = acl_registry_create(false);
    sset_init(&n->reported_problems);
    n->nb_report = nb_report_create(&nb_rdb_map);
    global_opts_init(&n->global_opts);
    mb_aging_init(&n->mb_aging);
    return n;
}

void
northd_destroy(struct northd *n)
{
    if (!n) {
        return;
    }
    northd_data_destroy(&n->data);
    acl_registry_destroy(n->acl_errors);
    sset_destroy(&n->reported_problems);
    nb_report_destroy(n->nb_report);
    free(n->check.last_report);
    free(n);
    acl_symtab_destroy();
}

void
northd_format_unsupported(const struct northd *n, struct ds *out)
{
    nb_report_format(n->nb_report, out);

    /* What the compilers could not make sense of, as the last full pass
     * found it (an incremental pass that meets a problem leaves it to a
     * full one). */
    enum { MAX_BAD_ROWS = 100 };
    const char **problems = sset_sort(&n->reported_problems);
    size_t n_problems = sset_count(&n->reported_problems);
    for (size_t i = 0; i < n_problems && i < MAX_BAD_ROWS; i++) {
        ds_put_format(out, "Not understood: %s\n", problems[i]);
    }
    if (n_problems > MAX_BAD_ROWS) {
        ds_put_format(out, "Not understood: %"PRIuSIZE" more (see the "
                      "log)\n", n_problems - MAX_BAD_ROWS);
    }
    free(problems);
}

void
northd_format_stats(const struct northd *n, struct ds *out)
{
    const struct northd_stats *stats = &n->stats;
    ds_put_format(out, "runs: %llu\n", stats->n_runs);
    ds_put_format(out, "full recomputes: %llu\n", stats->n_full);
    ds_put_format(out, "incremental runs: %llu\n", stats->n_incremental);
    ds_put_format(out, "incremental runs with nothing to compile: %llu\n",
                  stats->n_noop);
    ds_put_format(out, "time in full recomputes: %lld ms\n",
                  stats->full_msec);
    ds_put_format(out, "time in incremental runs: %lld ms\n",
                  stats->incremental_msec);
    ds_put_format(out, "last full recompute: %s\n",
                  stats->last_full_reason ? stats->last_full_reason : "none");
    ds_put_format(out, "last run: %lld ms\n", stats->last_run_msec);
    ds_put_format(out, "datapaths: %"PRIuSIZE"\n", stats->n_datapaths);
    ds_put_format(out, "ports: %"PRIuSIZE"\n", stats->n_ports);
    ds_put_format(out, "bad NB rows: %"PRIuSIZE"\n", stats->n_bad_rows);
    ds_put_format(out, "logical flows: %"PRIuSIZE"\n", stats->n_lflows);
    ds_put_format(out, "logical flows not yet written: %"PRIuSIZE"\n",
                  stats->n_unwritten);
    acls_format_stats(n->data.valid ? n->data.acls : NULL, out);
    if (n->mb_aging.n_aged || n->mb_aging.n_orphans) {
        mb_aging_format(&n->mb_aging, out);
    }
    if (n->check.enabled || n->check.n_checks) {
        ds_put_format(out, "incremental checks: %llu\n", n->check.n_checks);
        ds_put_format(out, "incremental checks failed: %llu\n",
                      n->check.n_failed);
        ds_put_format(out, "incremental check differences: %llu\n",
                      n->check.n_diffs);
    }
}

/* Stock ovn-northd 23.03 runs an incremental processing engine and
 * reports, per engine node, how often it recomputed the node from scratch
 * ("recompute"), brought it up to date from its inputs' changes
 * ("compute"), or gave up on it for this run ("abort").  Operators and
 * test suites read that through "inc-engine/show-stats".  This northd
 * has no engine, but its passes map onto two of stock's nodes:
 *
 *   northd: recompute = full recomputes; compute = incremental runs;
 *           abort = passes that stopped before compiling, to wait for a
 *           fresh copy of the SB's flows first.
 *   lflow:  recompute = full recomputes; compute = incremental runs that
 *           recompiled or wrote logical flows (not those with nothing to
 *           compile); abort = 0.
 *
 * Stock's other nodes (inputs and outputs) have no counterpart and are not
 * listed: asked for by name, they print nothing, as a node stock does not
 * know does. */
struct engine_node_stats {
    const char *name;
    unsigned long long int recompute, compute, abort;
};

static void
engine_stats(const struct northd *n, struct engine_node_stats nodes[2])
{
    const struct northd_stats *b = &n->engine_base;
    const struct northd_stats *stats = &n->stats;
    unsigned long long int full = stats->n_full - b->n_full;
    unsigned long long int inc = stats->n_incremental - b->n_incremental;
    unsigned long long int noop = stats->n_noop - b->n_noop;
    nodes[0] = (struct engine_node_stats) {
        "northd", full, inc, stats->n_aborted - b->n_aborted,
    };
    nodes[1] = (struct engine_node_stats) {
        "lflow", full, inc >= noop ? inc - noop : 0, 0,
    };
}

bool
northd_format_engine_stats(const struct northd *n, struct ds *out,
                           const char *node, const char *stat)
{
    struct engine_node_stats nodes[2];
    engine_stats(n, nodes);
    for (size_t i = 0; i < ARRAY_SIZE(nodes); i++) {
        const struct engine_node_stats *ns = &nodes[i];
        if (node && strcmp(node, ns->name)) {
            continue;
        }
        if (!stat) {
            ds_put_format(out, "Node: %s\n"
                          "- recompute: %12llu\n"
                          "- compute:   %12llu\n"
                          "- abort:     %12llu\n",
                          ns->name, ns->recompute, ns->compute, ns->abort);
        } else if (!strcmp(stat, "recompute")) {
            ds_put_format(out, "%llu\n", ns->recompute);
        } else if (!strcmp(stat, "compute")) {
            ds_put_format(out, "%llu\n", ns->compute);
        } else if (!strcmp(stat, "abort")) {
            ds_put_format(out, "%llu\n", ns->abort);
        } else {
            ds_put_format(out, "Invalid stat type : %s\n", stat);
            return false;
        }
    }
    return true;
}

void
northd_clear_engine_stats(struct northd *n)
{
    n->engine_base = n->stats;
}

void
northd_format_acl_errors(const struct northd *n, struct ds *out,
                         const struct rdb *nb_db)
{
    acl_errors_format(n->acl_errors, out, nb_db);
}

size_t
northd_lint_acls(const struct northd *n, const struct rdb *nb,
                 const char *filter, double threshold, struct ds *out)
{
    return northd_acl_lint(nb, n->data.valid ? &n->data.groups : NULL,
                           filter, threshold, out);
}

/* Returns the NB_Global row; if there is none, creates it (it is there on
 * the next pass) and returns NULL. */
static const struct nb_nb_global *
get_nb_global(struct northd_ctx *ctx)
{
    const struct nb_nb_global *nb = nb_nb_global_first(ctx->nb);
    if (!nb && ctx->nb_txn) {
        struct uuid uuid;
        rdb_uuid_generate(&uuid);
        rdb_txn_insert(ctx->nb_txn, &nb_table_nb_global, &uuid);
    }
    return nb;
}

/* Copies NB_Global settings to SB_Global and, if 'pass_cfg', passes nb_cfg
 * on.  When the SB transaction commits, the main loop makes
 * 'ctx->sb_next_cfg' its 'sb_cur_cfg': the nb_cfg whose results are now in
 * the SB. */
static void
sync_sb_global(struct northd *n, struct northd_ctx *ctx,
               const struct nb_nb_global *nb, bool pass_cfg)
{
    const struct sb_sb_global *sb = sb_sb_global_first(ctx->sb);
    if (!sb) {
        rdb_txn_insert(ctx->sb_txn, &sb_table_sb_global,
                       sb_global_uuid(n, ctx->sb));
    } else {
        rdb_txn_update(ctx->sb_txn, &sb_table_sb_global, &sb->header_.uuid);
    }
    if (!nb) {
        return;
    }

    struct smap own = SMAP_INITIALIZER(&own);
    struct smap options;
    char prefix[9];
    global_opts_own(&n->global_opts, &nb->options,
                    (ipam_new_mac_prefix(&n->data.model, prefix) ? prefix
                     : NULL), &own);
    global_opts_merge(&nb->options, &own, &options);
    if (ctx->nb_txn) {
        global_opts_sync_nb(nb, &own, ctx->nb_txn);
    } else {
        n->data.nb_writes_pending = true;
    }
    if (!sb || !smap_equal(&sb->options, &options)) {
        rdb_txn_set_smap(ctx->sb_txn, SB_SB_GLOBAL_COL_OPTIONS, &options);
    }
    smap_destroy(&options);
    smap_destroy(&own);
    if (!sb || sb->ipsec != nb->ipsec) {
        rdb_txn_set_bool(ctx->sb_txn, SB_SB_GLOBAL_COL_IPSEC, nb->ipsec);
    }
    if (!pass_cfg) {
        return;
    }
    if (!sb || sb->nb_cfg != nb->nb_cfg) {
        rdb_txn_set_integer(ctx->sb_txn, SB_SB_GLOBAL_COL_NB_CFG,
                            nb->nb_cfg);
    }
    ctx->sb_next_cfg = nb->nb_cfg;
}

/* (Re)builds the DHCP flows of switch 'dp' as a whole: they follow its
 * ports' DHCP options rows and its ACLs' statefulness. */
static void
build_dp_dhcp_lflows(struct northd_data *d, struct ls_datapath *dp)
{
    lflow_owner_clear(&d->lflows, &dp->dhcp_owner);
    lflow_table_set_owner(&d->lflows, &dp->dhcp_owner);
    dhcp_build_dp_lflows(&d->lflows, dp, acls_dp_stateful(d->acls, dp));
    lflow_table_set_owner(&d->lflows, NULL);
}

/* (Re)builds the flows that belong to switch 'dp' as a whole. */
static void
build_dp_lflows(struct northd_data *d, const struct ls_datapath *dp_)
{
    struct ls_datapath *dp = CONST_CAST(struct ls_datapath *, dp_);
    lflow_owner_clear(&d->lflows, &dp->owner);
    lflow_table_set_owner(&d->lflows, &dp->owner);
    l2_build_dp_lflows(&d->lflows, dp);
    lb_build_dp_lflows(&d->lflows, dp, &d->features);
    lb_health_build_dp_lflows(&d->lflows, &d->health, dp,
                              acls_dp_has_acls_or_lb(d->acls, dp));
    if (lb_model_dp_has_vips(&d->lbs, dp->index)) {
        lb_build_hairpin_lflows(&d->lflows, dp);
    }
    qos_build_dp_lflows(&d->lflows, &d->qos, dp);
    acls_build_dp_lflows(d->acls, &d->lflows, dp);
    dns_build_dp_lflows(&d->lflows, dp, acls_dp_stateful(d->acls, dp));
    lb_build_localnet_lflows(&d->lflows, dp,
                             lb_model_dp_has_vips(&d->lbs, dp->index),
                             acls_dp_stateful(d->acls, dp));
    mcast_build_dp_lflows(&d->lflows, &d->model, dp);
    lr_build_switch_lflows(&d->lflows, &d->model, dp,
                           acls_dp_has_stateful_acls(d->acls, dp));
    lflow_table_set_owner(&d->lflows, NULL);
    build_dp_dhcp_lflows(d, dp);
}

static void
build_port_dhcp_lflows(struct northd_data *d, struct ls_port *p)
{
    lflow_owner_clear(&d->lflows, &p->dhcp_owner);
    lflow_table_set_owner(&d->lflows, &p->dhcp_owner);
    dhcp_build_port_lflows(&d->lflows, p);
    lflow_table_set_owner(&d->lflows, NULL);
}

static void
build_port_lflows(struct northd_data *d, struct ls_port *p)
{
    lflow_owner_clear(&d->lflows, &p->owner);
    lflow_table_set_owner(&d->lflows, &p->owner);
    l2_build_port_lflows(&d->lflows, p, d->model.check_lsp_up);
    if (lb_model_dp_has_vips(&d->lbs, p->dp->index)
        && !lr_model_peer_of(d->model.lr, p->nb->name)) {
        lb_build_port_lflows(&d->lflows, p);
    }
    lr_build_port_lflows(&d->lflows, &d->model, p);
    lflow_table_set_owner(&d->lflows, NULL);
    build_port_dhcp_lflows(d, p);
}

static void
sync_nb_status(struct northd_ctx *ctx, struct northd_data *d)
{
    if (ctx->nb_txn) {
        ls_model_sync_nb_up(&d->model, ctx->nb_txn);
        ls_model_sync_nb_tags(&d->model, ctx->nb_txn);
        ipam_sync_nb(&d->model, ctx->nb_txn);
        if (d->model.lr) {
            lr_model_sync_nb_ipv6_prefix(&d->model, ctx->nb_txn);
        }
        d->nb_writes_pending = false;
    } else {
        d->nb_writes_pending = true;
    }
}

/* The first steps of a full build of 'd' (empty) from the replicas: the
 * switches and ports, their addresses (IPAM's decisions as 'ipam_carry'
 * says) and tunnel keys.  'reported' is where the model finds which
 * problems with NB rows were logged already and leaves its own, or NULL
 * for a model that logs none. */
static void
build_model(struct northd_data *d, struct rdb *nb_db, struct rdb *sb_db,
            const struct nb_nb_global *nb, struct ipam_carry *ipam_carry,
            struct sset *reported)
{
    d->valid = true;
    uuidset_init(&d->own_pb_deletes);
    uuidset_init(&d->own_lb_inserts);
    uuidset_init(&d->dhcp_bad);
    if (nb) {
        smap_clone(&d->nb_options, &nb->options);
    } else {
        smap_init(&d->nb_options);
    }
    ls_model_init(&d->model);
    d->model.reported = reported;
    d->model.ipam_carry = ipam_carry;
    ls_model_build(&d->model, nb_db, sb_db);
    d->model.ipam_carry = NULL;
}

/* The next steps: the load balancers (and their health checks, with the
 * svc_monitor_mac 'svc_mac' and the status in the SB), port groups and
 * address sets. */
static void
build_inputs(struct northd_data *d, struct rdb *nb_db, struct rdb *sb_db,
             const struct eth_addr *svc_mac)
{
    lb_model_init(&d->lbs);
    lb_model_build(&d->lbs, &d->model, nb_db);
    lb_model_index(&d->lbs, nb_db);
    d->svc_mac = *svc_mac;
    lb_health_init(&d->health);
    lb_health_build(&d->health, &d->model, nb_db, sb_db, svc_mac);
    d->lbs.health = &d->health;
    lr_lb_attach_health(&d->model, &d->health);
    qos_model_init(&d->qos);
    qos_model_build(&d->qos, &d->model);
    dhcp_check_model(&d->model, &d->dhcp_bad);
    dns_model_build(&d->dns, &d->model);
    ls_model_end_reports(&d->model);
    groups_init(&d->groups, &d->model, d->model.dp_cap, nb_db);
    char mac[ETH_ADDR_STRLEN + 1];
    snprintf(mac, sizeof mac, ETH_ADDR_FMT, ETH_ADDR_ARGS(*svc_mac));
    groups_add_fixed_set(&d->groups, "svc_monitor_mac", mac);
    lb_aggs_attach_groups(&d->lbs, &d->groups);
    lr_lb_attach_groups(&d->model, &d->groups);
}

/* The last: every flow, into a new table of 'n_flows' (a guess) whose row
 * UUIDs 'd->flow_key' keys, for the chassis features 'd->features'.
 * Invalid ACLs go to 'errors', between acl_errors_begin(), here, and
 * acl_errors_end(), the caller's. */
static void
build_flows(struct northd_data *d, struct rdb *nb_db,
            const struct nb_nb_global *nb, size_t n_flows,
            struct acl_registry *errors)
{
    lflow_table_init(&d->lflows, d->model.dp_cap, &d->flow_key);
    lflow_table_reserve(&d->lflows, n_flows);
    acl_errors_begin(errors);
    d->acls = acls_create(&d->model, &d->lbs, &d->groups, nb_db, nb,
                          &d->features, d->model.dp_cap, errors);
    /* The full sync that follows compares everything: nothing to mark
     * dirty. */
    d->groups.building = true;
    unsigned long *dp_dirty = bitmap_allocate(d->model.dp_cap);
    acls_run(d->acls, &d->lflows, dp_dirty);
    bitmap_free(dp_dirty);
    d->groups.building = false;
    for (size_t i = 0; i < d->model.n_datapaths; i++) {
        const struct ls_datapath *dp = d->model.dp_array[i];
        build_dp_lflows(d, dp);
        struct ls_port *p;
        LIST_FOR_EACH (p, dp_node, &dp->ports) {
            build_port_lflows(d, p);
        }
    }
    lflow_owner_init(&d->lb_owner);
    lflow_table_set_owner(&d->lflows, &d->lb_owner);
    lb_build_lflows(&d->lflows, &d->model, &d->lbs, &d->features);
    lflow_table_set_owner(&d->lflows, NULL);
    if (d->model.lr) {
        d->model.lr->ct_no_masked_label = d->features.ct_no_masked_label;
    }
    lr_build_lflows(&d->lflows, &d->model);
}

/* Throws away everything kept and compiles the whole NB again, then
 * reconciles the SB by content. */
static void
full_recompute(struct northd *n, struct northd_ctx *ctx,
               const struct nb_nb_global *nb)
{
    struct northd_data *d = &n->data;

    /* The flows in the SB: the replica's copy, if it has a fresh one,
     * otherwise what the table about to be thrown away wrote. */
    struct lflow_sb_rows *existing;
    struct groups_sb_rows *groups_existing = NULL;
    if (n->lflow_copy_fresh) {
        /* The index is a copy: the replica's rows can go before the
         * compile, rather than be at the peak with it (after a restart at
         * a million ACLs, two million rows). */
        existing = lflow_sb_rows_from_replica(ctx->sb);
        rdb_forget_rows(ctx->sb, &sb_table_logical_flow);
        groups_existing = groups_sb_rows_from_replica(ctx->sb);
        rdb_forget_rows(ctx->sb, &sb_table_port_group);
        rdb_forget_rows(ctx->sb, &sb_table_address_set);
        n->lflow_copy_fresh = false;
    } else {
        ovs_assert(d->valid);
        /* Less the flows someone else deleted since the last pass. */
        struct uuidset gone = UUIDSET_INITIALIZER(&gone);
        rdb_track_deleted(ctx->sb, &sb_table_logical_flow, &gone);
        existing = lflow_sb_rows_from_table(&d->lflows, &gone);
        uuidset_destroy(&gone);
        groups_existing = groups_sb_rows_from_state(&d->groups, ctx->sb);
    }
    /* About as many flows as the last pass made; on a first pass, a rough
     * estimate from the NB's row counts (on the benchmark profiles of
     * bench/gen.py, about a third above the real count). */
    size_t n_flows = (d->valid ? lflow_table_count(&d->lflows)
                      : (2 * nb_acl_count(ctx->nb)
                         + 4 * nb_logical_switch_port_count(ctx->nb)
                         + 64 * nb_logical_switch_count(ctx->nb)));
    /* IPAM's decisions the NB replica may not show yet. */
    struct ipam_carry ipam_carry;
    ipam_carry_init(&ipam_carry);
    if (d->valid) {
        ipam_carry_save(&ipam_carry, &d->model);
    }
    northd_data_destroy(d);

    /* What a full pass writes can be most of the SB: let the server read
     * it while the rest is compiled. */
    rdb_txn_start(ctx->sb_txn);

    /* Input model: switches and ports (with their SB bindings, created
     * here so flows can refer to them), load balancers, port groups and
     * address sets. */
    build_model(d, ctx->nb, ctx->sb, nb, &ipam_carry, &n->reported_problems);
    ipam_carry_destroy(&ipam_carry);
    ls_model_sync_sb(&d->model, ctx->sb, ctx->sb_txn);
    mb_sync_static(&d->model, ctx->nb, ctx->sb, ctx->sb_txn);
    mcast_sync_sb(ctx->sb, ctx->sb_txn, d->model.dp_array,
                  d->model.n_datapaths);
    mcast_purge_igmp_groups(ctx->sb, ctx->sb_txn);
    fdb_sync_sb(&d->model, ctx->sb, ctx->sb_txn, true);
    sync_nb_status(ctx, d);
    struct smap no_options = SMAP_INITIALIZER(&no_options);
    struct eth_addr svc_mac = global_opts_svc_monitor_mac(
        &n->global_opts, nb ? &nb->options : &no_options);
    build_inputs(d, ctx->nb, ctx->sb, &svc_mac);

    /* Compile. */
    d->flow_key = *sb_global_uuid(n, ctx->sb);
    struct ls_features features;
    ls_features_from_sb(&features, ctx->sb);
    if (!ls_features_equal(&features, &d->features)) {
        VLOG_INFO("chassis features: ct-no-masked-label %s, "
                  "ovn-ct-lb-related %s",
                  features.ct_no_masked_label ? "yes" : "no",
                  features.ct_lb_related ? "yes" : "no");
    }
    d->features = features;
    build_flows(d, ctx->nb, nb, n_flows, n->acl_errors);
    acl_errors_end(n->acl_errors, ctx->nb, ctx->nb_txn, true);

    /* Reconcile. */
    dp_groups_init(&d->dpgs, &d->model, ctx->sb);
    d->synced = true;
    lb_sync_sb(&d->lbs, &d->model, ctx->sb, ctx->sb_txn, &d->dpgs,
               &d->own_lb_inserts);
    lb_health_sync_sb(&d->health, ctx->sb, ctx->sb_txn);
    dns_sync_sb(&d->dns, ctx->sb, ctx->sb_txn);
    lb_opts_sync_template_vars(ctx->nb, ctx->sb, ctx->sb_txn);
    lflow_table_sync_sb(&d->lflows, &d->model, existing, ctx->sb_txn,
                        &d->dpgs, ctx->max_flow_inserts);
    lflow_sb_rows_destroy(existing);
    groups_sync_sb(&d->groups, groups_existing, ctx->sb_txn);
    groups_sb_rows_destroy(groups_existing);
    meters_sync_sb(ctx->nb, ctx->sb, ctx->sb_txn);
    dhcp_sync_sb(ctx->sb, ctx->sb_txn);
    nb_report_scan(n->nb_report, ctx->nb);
}

/* True if 'row' changed in a column other than those in 'ok' (column
 * indexes, 'n_ok' of them). */
static bool
row_changed_except(const struct rdb_row *row, const size_t *ok, size_t n_ok)
{
    uint64_t allowed = 0;
    for (size_t j = 0; j < n_ok; j++) {
        allowed |= UINT64_C(1) << ok[j];
    }
    return (rdb_row_updated_columns(row) & ~allowed) != 0;
}

/* True if NB_Global's options 'g' differ from those the last full pass
 * compiled with only in keys whose change lib/nb.rdb does not make
 * recompute (they are copied to SB_Global every pass), or in the
 * mac_prefix northd itself chose and wrote (IPAM, on a fresh NB: the echo
 * of its own write).  Takes the new options as the ones compiled with. */
static bool
nb_options_followed(struct northd_data *d, const struct nb_nb_global *g)
{
    const struct rdb_map_table *mt = rdb_map_get_table(&nb_rdb_map,
                                                       &nb_table_nb_global);
    const struct rdb_map_column *mc = rdb_map_find_column(mt, "options");
    const char *prefix = smap_get(&g->options, "mac_prefix");
    const char *before_prefix = smap_get(&d->nb_options, "mac_prefix");
    bool own = (ipam_is_own_mac_prefix(&d->model, prefix)
                && (!before_prefix || strcmp(before_prefix, prefix)));
    struct smap before;
    smap_clone(&before, &d->nb_options);
    if (own) {
        smap_replace(&before, "mac_prefix", prefix);
    }
    bool differ = rdb_map_keys_differ(mc, RDB_MAP_RECOMPUTE, &before,
                                      &g->options);
    smap_destroy(&before);
    if (differ) {
        return false;
    }
    if (own) {
        ipam_mac_prefix_written(&d->model);
    }
    smap_destroy(&d->nb_options);
    smap_clone(&d->nb_options, &g->options);
    return true;
}

/* What an incremental pass changed, for the write phase. */
struct inc_changes {
    struct hmapx span_changed;      /* pg_states whose datapaths changed. */
    struct hmapx pg_acls;           /* pg_states whose ACL list changed. */
    struct hmapx pg_ports;          /* pg_states whose members changed. */
    struct sset sets_changed;       /* Address sets whose content changed. */
    struct sset pgs_changed;
    struct hmapx new_dps;           /* Datapaths added. */
    struct hmapx dps;               /* Datapaths whose ports changed. */
    struct hmapx ports;             /* Ports added or changed. */
    struct hmapx up_changed;        /* Ports whose binding changed. */
    struct hmapx bindings;          /* Ports whose Port_Binding to check
                                     * (requested chassis, up unset). */
    struct uuidset dead_pbs;        /* Port_Bindings to delete. */
    struct hmapx dns_dps;           /* Datapaths whose DNS flows may
                                     * change. */
    struct hmapx dhcp_ports;        /* Ports whose DHCP flows alone, and */
    struct hmapx dhcp_dps;          /* switches whose DHCP flows alone,
                                     * may change (their options did). */
    struct uuidset lbs;             /* Load balancers to write (NB UUIDs). */
};

static void
inc_changes_init(struct inc_changes *c)
{
    hmapx_init(&c->span_changed);
    hmapx_init(&c->pg_acls);
    hmapx_init(&c->pg_ports);
    sset_init(&c->sets_changed);
    sset_init(&c->pgs_changed);
    hmapx_init(&c->new_dps);
    hmapx_init(&c->dps);
    hmapx_init(&c->ports);
    hmapx_init(&c->dhcp_ports);
    hmapx_init(&c->dhcp_dps);
    hmapx_init(&c->up_changed);
    hmapx_init(&c->bindings);
    uuidset_init(&c->dead_pbs);
    hmapx_init(&c->dns_dps);
    uuidset_init(&c->lbs);
}

static void
inc_changes_destroy(struct inc_changes *c)
{
    hmapx_destroy(&c->span_changed);
    hmapx_destroy(&c->pg_acls);
    hmapx_destroy(&c->pg_ports);
    sset_destroy(&c->sets_changed);
    sset_destroy(&c->pgs_changed);
    hmapx_destroy(&c->new_dps);
    hmapx_destroy(&c->dps);
    hmapx_destroy(&c->ports);
    hmapx_destroy(&c->dhcp_ports);
    hmapx_destroy(&c->dhcp_dps);
    hmapx_destroy(&c->up_changed);
    hmapx_destroy(&c->bindings);
    uuidset_destroy(&c->dead_pbs);
    hmapx_destroy(&c->dns_dps);
    uuidset_destroy(&c->lbs);
}

static bool
port_row_listed(const struct nb_logical_switch *ls,
                const struct nb_logical_switch_port *nbp)
{
    for (size_t i = 0; i < ls->n_ports; i++) {
        if (ls->ports[i] == nbp) {
            return true;
        }
    }
    return false;
}

/* Brings the ports of 'dp' in line with its NB row. */
static bool
inc_switch_ports(struct northd_data *d, struct ls_datapath *dp,
                 struct inc_changes *c)
{
    const struct nb_logical_switch *ls = dp->nb;
    if (lr_model_switch_routers_only(d->model.lr, dp)) {
        return false;           /* Its routers' flows depend on its ports. */
    }
    struct ls_port *p;
    LIST_FOR_EACH_SAFE (p, dp_node, &dp->ports) {
        if (!port_row_listed(ls, p->nb)
            || nb_logical_switch_port_is_deleted(p->nb)) {
            if (lb_health_port_involved(&d->health, p->nb->name)
                || ls_model_port_touches_router(&d->model, p->nb)) {
                return false;   /* A health check names it, or a router's
                                 * peer. */
            }
            if (!ipam_static_change_is_free(dp, p, p->addrs, p->n_addrs)) {
                return false;   /* IPAM may give its addresses away. */
            }
            groups_port_removed(&d->groups, p, &c->span_changed,
                                &c->sets_changed);
            lflow_owner_clear(&d->lflows, &p->owner);
            lflow_owner_clear(&d->lflows, &p->dhcp_owner);
            hmapx_find_and_delete(&c->ports, p);
            hmapx_find_and_delete(&c->dhcp_ports, p);
            hmapx_find_and_delete(&c->up_changed, p);
            hmapx_find_and_delete(&c->bindings, p);
            struct uuid pb = ls_model_remove_port(&d->model, p);
            if (!uuid_is_zero(&pb)) {
                uuidset_insert(&c->dead_pbs, &pb);
            }
            hmapx_add(&c->dps, dp);
        }
    }
    /* New ports by name, so that they get tunnel keys in the order a full
     * pass would give them. */
    const struct nb_logical_switch_port **added
        = xmalloc(MAX(ls->n_ports, 1) * sizeof *added);
    size_t n_added = 0;
    for (size_t i = 0; i < ls->n_ports; i++) {
        const struct nb_logical_switch_port *nbp = ls->ports[i];
        p = ls_model_find_port(&d->model, nbp->name);
        if (!p || p->nb != nbp) {
            added[n_added++] = nbp;
        }
    }
    qsort(added, n_added, sizeof *added, ls_port_row_compare);
    bool ok = true;
    for (size_t i = 0; i < n_added && ok; i++) {
        if (ipam_lsp_is_dynamic(added[i])
            || lb_health_port_involved(&d->health, added[i]->name)) {
            ok = false;
            break;
        }
        p = ls_model_add_port(&d->model, dp, added[i]);
        if (!p || !ipam_static_change_is_free(dp, p, p->addrs, p->n_addrs)) {
            ok = false;         /* A bad row, or it takes a dynamic port's
                                 * address. */
            break;
        }
        groups_port_added(&d->groups, p, &c->span_changed,
                          &c->sets_changed);
        hmapx_add(&c->ports, p);
        hmapx_add(&c->up_changed, p);
        hmapx_add(&c->dps, dp);
    }
    free(added);

    /* A virtual port's flows name its parents that are on the switch. */
    if (ok && hmapx_find(&c->dps, dp)) {
        LIST_FOR_EACH (p, dp_node, &dp->ports) {
            if (!strcmp(p->nb->type, "virtual")) {
                hmapx_add(&c->ports, p);
            }
        }
    }
    return ok;
}

/* Switches and ports. */
static bool
inc_switches(struct northd_data *d, struct rdb *nb_db,
             struct inc_changes *c, const char **reason)
{
    const struct nb_logical_switch *ls;
    NB_LOGICAL_SWITCH_FOR_EACH_TRACKED (ls, nb_db) {
        if (nb_logical_switch_is_deleted(ls)) {
            *reason = "a switch was deleted";
            return false;
        }
        if (nb_logical_switch_is_new(ls)) {
            /* Only one that sets none of the columns and keys lib/nb.rdb
             * marks "recompute-if-set" (load balancers, IPAM, ...). */
            struct ls_datapath *dp;
            if (rdb_map_new_row_needs_recompute(
                    &ls->header_, rdb_map_get_table(&nb_rdb_map,
                                                    &nb_table_logical_switch),
                    reason)) {
                return false;
            }
            if (!(dp = ls_model_add_switch(&d->model, ls))) {
                *reason = "a switch was added";
                return false;
            }
            acls_dp_added(d->acls, dp);
            hmapx_add(&c->new_dps, dp);
            hmapx_add(&c->dps, dp);
        }
        /* Changes to other columns than those the map says this handler
         * follows either recomputed already (rdb_map_changes_need_recompute())
         * or cost nothing. */
    }

    const struct rdb_map_table *lsp_map
        = rdb_map_get_table(&nb_rdb_map, &nb_table_logical_switch_port);
    const struct nb_logical_switch_port *lsp;
    NB_LOGICAL_SWITCH_PORT_FOR_EACH_TRACKED (lsp, nb_db) {
        if (nb_logical_switch_port_is_new(lsp)
            || nb_logical_switch_port_is_deleted(lsp)) {
            continue;           /* Seen through its switch's 'ports'. */
        }
        /* A port a full pass skipped (a bad row) may have become good. */
        struct ls_port *p = ls_model_find_port(&d->model, lsp->name);
        if (!p || p->nb != lsp) {
            *reason = "Logical_Switch_Port";
            return false;
        }
        if (!(rdb_row_updated_columns(&lsp->header_) & lsp_map->followed)) {
            continue;           /* Only a row it refers to changed, or a
                                 * column that is not compiled. */
        }
        if (!ipam_port_in_step(p)) {
            *reason = "Logical_Switch_Port dynamic_addresses";
            return false;
        }
        static const size_t dynamic_only[] = {
            NB_LOGICAL_SWITCH_PORT_COL_DYNAMIC_ADDRESSES,
        };
        if (!row_changed_except(&lsp->header_, dynamic_only,
                                ARRAY_SIZE(dynamic_only))) {
            continue;           /* The echo of northd's own write. */
        }
        if (ipam_port_is_dynamic(p)) {
            *reason = "a port with dynamic addresses";
            return false;
        }
        if (!ipam_static_change_is_free(p->dp, p, p->addrs, p->n_addrs)) {
            *reason = "a port whose addresses IPAM may give away";
            return false;
        }
        if (lb_health_port_involved(&d->health, p->nb->name)) {
            *reason = "a port a load balancer health check names";
            return false;
        }
        groups_port_removed(&d->groups, p, &c->span_changed,
                            &c->sets_changed);
        if (!ls_model_update_port(&d->model, p)) {
            *reason = "Logical_Switch_Port";
            return false;
        }
        if (!ipam_static_change_is_free(p->dp, p, p->addrs, p->n_addrs)) {
            *reason = "a port that takes a dynamic port's address";
            return false;
        }
        groups_port_added(&d->groups, p, &c->span_changed, &c->sets_changed);
        hmapx_add(&c->ports, p);
        hmapx_add(&c->dps, p->dp);
        /* Its type may decide 'up' (a router port is always up). */
        hmapx_add(&c->up_changed, p);
    }

    NB_LOGICAL_SWITCH_FOR_EACH_TRACKED (ls, nb_db) {
        struct ls_datapath *dp = ls_model_find_datapath(&d->model,
                                                        &ls->header_.uuid);
        bool is_new = nb_logical_switch_is_new(ls);
        if (is_new
            || nb_logical_switch_is_updated(ls,
                                               NB_LOGICAL_SWITCH_COL_PORTS)) {
            if (!inc_switch_ports(d, dp, c)) {
                *reason = "a port was added or removed";
                return false;
            }
        }
        if (is_new
            || nb_logical_switch_is_updated(ls,
                                               NB_LOGICAL_SWITCH_COL_ACLS)
            || nb_logical_switch_is_updated(ls,
                                               NB_LOGICAL_SWITCH_COL_NAME)) {
            acls_handle_switch(d->acls, dp);
        }
        if (nb_logical_switch_is_updated(ls,
                                            NB_LOGICAL_SWITCH_COL_NAME)
            || nb_logical_switch_is_updated(
                   ls, NB_LOGICAL_SWITCH_COL_EXTERNAL_IDS)) {
            hmapx_add(&c->dps, dp);
        }
    }
    return true;
}

/* SB IGMP_Group rows, which every chassis writes as its VMs join and
 * leave groups: the switch a row names has its learnt groups rebuilt (its
 * flows and Multicast_Group rows).  A stale row (no chassis or datapath)
 * is left to a full pass, which deletes it as stock does. */
static bool
inc_igmp_groups(struct northd_data *d, struct rdb *sb_db,
                struct inc_changes *c, const char **reason)
{
    const struct sb_igmp_group *g;
    SB_IGMP_GROUP_FOR_EACH_TRACKED (g, sb_db) {
        bool deleted = sb_igmp_group_is_deleted(g);
        if (!g->datapath || (!deleted && !g->chassis)) {
            *reason = "a stale SB IGMP_Group";
            return false;
        }
        struct uuid ls_uuid;
        struct ls_datapath *dp
            = (smap_get_uuid(&g->datapath->external_ids, "logical-switch",
                             &ls_uuid)
               ? ls_model_find_datapath(&d->model, &ls_uuid) : NULL);
        if (!dp || !uuid_equals(&dp->sb_uuid, &g->datapath->header_.uuid)) {
            if (deleted) {
                continue;
            }
            *reason = "an SB IGMP_Group of no switch";
            return false;
        }
        if (lr_model_dp_relays(d->model.lr, dp)) {
            *reason = "an SB IGMP_Group on a switch of a multicast relay";
            return false;
        }
        COVERAGE_INC(northd_igmp_group_followed);
        hmapx_add(&c->dps, dp);
    }
    return true;
}

/* DHCP_Options rows: a changed row rebuilds the DHCP flows of the ports
 * that use it and of their switches (new rows are used through a port's
 * change, deleted ones are unset in the ports that used them).  Then, for
 * every port rebuilt, a DHCP problem to report, or one reported before,
 * is left to a full pass. */
static bool
inc_dhcp_options(struct northd_data *d, struct rdb *nb_db,
                 struct inc_changes *c, const char **reason)
{
    const struct nb_dhcp_options *row;
    NB_DHCP_OPTIONS_FOR_EACH_TRACKED (row, nb_db) {
        if (nb_dhcp_options_is_new(row) || nb_dhcp_options_is_deleted(row)) {
            continue;
        }
        struct hmapx users = HMAPX_INITIALIZER(&users);
        ls_model_ports_using_dhcp(&d->model, row, &users);
        struct hmapx_node *node;
        HMAPX_FOR_EACH (node, &users) {
            struct ls_port *p = node->data;
            hmapx_add(&c->dhcp_ports, p);
            hmapx_add(&c->dhcp_dps, p->dp);
        }
        hmapx_destroy(&users);
    }
    const struct hmapx *sets[] = { &c->ports, &c->dhcp_ports };
    for (size_t i = 0; i < ARRAY_SIZE(sets); i++) {
        struct hmapx_node *node;
        HMAPX_FOR_EACH (node, sets[i]) {
            if (dhcp_port_needs_report(node->data, &d->dhcp_bad)) {
                *reason = "DHCP options with a problem to report";
                return false;
            }
        }
    }
    return true;
}

/* Whether the changes 'c' may change what the SB HA chassis groups should
 * be: a port that is or was external with a group, a binding with a group
 * that goes, or a chassis change while there are groups.  (Syncing them
 * visits every port: not for every port added.) */
static bool
ha_groups_affected(const struct inc_changes *c, struct rdb *sb_db,
                   const struct ls_model *m)
{
    /* Distributed gateway ports' groups refer to the chassis that bind
     * ports near their routers (northd/router-gw.h). */
    if ((!hmapx_is_empty(&c->up_changed) || !uuidset_is_empty(&c->dead_pbs))
        && lr_gw_has_ref_groups(m)) {
        return true;
    }
    struct hmapx_node *node;
    HMAPX_FOR_EACH (node, &c->ports) {
        const struct ls_port *p = node->data;
        if ((p->nb->ha_chassis_group && !strcmp(p->nb->type, "external"))
            || (p->sb && p->sb->ha_chassis_group)) {
            return true;
        }
    }
    const struct uuidset_node *un;
    UUIDSET_FOR_EACH (un, &c->dead_pbs) {
        const struct sb_port_binding *pb
            = sb_port_binding_get_for_uuid(sb_db, &un->uuid);
        if (pb && pb->ha_chassis_group) {
            return true;
        }
    }
    return (rdb_track_first(sb_db, &sb_table_chassis)
            && sb_ha_chassis_group_first(sb_db));
}

/* True if a row of 'tc', an SB table northd owns (lib/sb.rdb), was
 * inserted or deleted by someone else since the last pass, or had a
 * column northd writes (a quiet one) changed by someone else. */
static bool
foreign_change(struct rdb *sb_db, const struct rdb_table_class *tc)
{
    for (const struct rdb_row *row = rdb_track_first(sb_db, tc); row;
         row = rdb_track_next(row)) {
        if (!rdb_row_is_foreign(row)) {
            continue;
        }
        if (rdb_row_is_new(row) || rdb_row_is_deleted(row)) {
            return true;
        }
        uint64_t cols = rdb_row_updated_columns(row);
        for (size_t i = 0; i < tc->n_columns; i++) {
            if (cols & (UINT64_C(1) << i) && tc->columns[i].quiet) {
                return true;
            }
        }
    }
    return false;
}

/* Follows the NB and SB changes since the last pass (the IDLs track them)
 * through the kept state, and writes what changed.  Returns false, with
 * '*reason' set, if a change is not one it follows: nothing has been
 * written then, and the caller recomputes everything. */
static bool
incremental_run(struct northd *n, struct northd_ctx *ctx, const char **reason)
{
    struct northd_data *d = &n->data;
    struct rdb *nb_db = ctx->nb;
    struct rdb *sb_db = ctx->sb;
    ls_model_refresh_sb(&d->model, sb_db);
    dp_groups_new_pass(&d->dpgs);

    struct inc_changes c;
    inc_changes_init(&c);

    /* SB: ovn-controller reports ports up; rows that vanish under us were
     * deleted by someone else.  (A replica that started over from a fresh
     * copy makes the caller recompute.) */
    /* A chassis that comes, goes or changes what it supports may change
     * the syntax of many flows (features.h). */
    if (rdb_track_first(sb_db, &sb_table_chassis)) {
        struct ls_features features;
        ls_features_from_sb(&features, sb_db);
        if (!ls_features_equal(&features, &d->features)) {
            *reason = "SB Chassis features";
            goto fail;
        }
    }

    /* SB Logical_Flow rows someone else inserted, changed or deleted
     * were put back by northd_run(); Port_Group and Address_Set rows
     * inserted or changed too, but one someone deleted takes a full
     * pass. */
    const struct sb_port_group *spg;
    SB_PORT_GROUP_FOR_EACH_TRACKED (spg, sb_db) {
        if (sb_port_group_is_deleted(spg)) {
            *reason = "an SB Port_Group or Address_Set was deleted";
            goto fail;
        }
    }
    const struct sb_address_set *sas;
    SB_ADDRESS_SET_FOR_EACH_TRACKED (sas, sb_db) {
        if (sb_address_set_is_deleted(sas)) {
            *reason = "an SB Port_Group or Address_Set was deleted";
            goto fail;
        }
    }
    /* Rows of the other tables northd owns that someone else inserted,
     * deleted, or changed in a column northd writes: a full pass compares
     * them with what they should be. */
    static const struct {
        const struct rdb_table_class *tc;
        const char *reason;
    } owned[] = {
        { &sb_table_datapath_binding,
          "an SB Datapath_Binding was changed by someone else" },
        { &sb_table_port_binding,
          "an SB Port_Binding was changed by someone else" },
        { &sb_table_multicast_group,
          "an SB Multicast_Group was changed by someone else" },
        { &sb_table_logical_dp_group,
          "an SB Logical_DP_Group was changed by someone else" },
        { &sb_table_meter, "an SB Meter was changed by someone else" },
        { &sb_table_meter_band,
          "an SB Meter_Band was changed by someone else" },
        { &sb_table_load_balancer,
          "an SB Load_Balancer was changed by someone else" },
        { &sb_table_ha_chassis_group,
          "an SB HA_Chassis_Group was changed by someone else" },
        { &sb_table_dns, "an SB DNS was changed by someone else" },
        { &sb_table_chassis_template_var,
          "an SB Chassis_Template_Var was changed by someone else" },
        { &sb_table_ip_multicast,
          "an SB IP_Multicast was changed by someone else" },
        { &sb_table_service_monitor,
          "an SB Service_Monitor was changed by someone else" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(owned); i++) {
        if (foreign_change(sb_db, owned[i].tc)) {
            *reason = owned[i].reason;
            goto fail;
        }
    }
    const struct sb_datapath_binding *sdp;
    SB_DATAPATH_BINDING_FOR_EACH_TRACKED (sdp, sb_db) {
        if (sb_datapath_binding_is_deleted(sdp)) {
            *reason = "an SB Datapath_Binding was deleted";
            goto fail;
        }
        /* A row northd did not insert (a duplicate, or one for no switch)
         * is deleted by a recompute. */
        const struct ls_datapath *dp
            = ls_model_find_sb_owner(&d->model, sdp);
        if (sb_datapath_binding_is_new(sdp)
            && (!dp || !uuid_equals(&dp->sb_uuid, &sdp->header_.uuid))) {
            *reason = "an SB Datapath_Binding was added";
            goto fail;
        }
    }
    const struct sb_load_balancer *slb;
    SB_LOAD_BALANCER_FOR_EACH_TRACKED (slb, sb_db) {
        if (sb_load_balancer_is_new(slb)
            && !uuidset_find_and_delete(&d->own_lb_inserts,
                                        &slb->header_.uuid)) {
            *reason = "an SB Load_Balancer was added";
            goto fail;
        }
    }
    const struct sb_port_binding *pb;
    SB_PORT_BINDING_FOR_EACH_TRACKED (pb, sb_db) {
        if (sb_port_binding_is_deleted(pb)) {
            if (!uuidset_find_and_delete(&d->own_pb_deletes,
                                         &pb->header_.uuid)) {
                *reason = "an SB Port_Binding was deleted";
                goto fail;
            }
            continue;
        }
        struct ls_port *p = ls_model_find_port(&d->model, pb->logical_port);
        if (p && p->sb == pb) {
            hmapx_add(&c.up_changed, p);
            if (ls_model_update_port_queue(&d->model, p)) {
                /* Bound: a port with QoS options gets its queue. */
                hmapx_add(&c.ports, p);
            }
            if (!pb->n_up
                || smap_get(&p->nb->options, "requested-chassis")) {
                /* Someone cleared 'up' (it must be false again), or a
                 * requested chassis went away. */
                hmapx_add(&c.bindings, p);
            }
        }
    }
    /* A chassis that comes, goes, or changes its name, hostname or
     * whether it reports ports up may change the requested chassis and
     * the state of ports. */
    const struct sb_chassis *ch;
    SB_CHASSIS_FOR_EACH_TRACKED (ch, sb_db) {
        struct ls_port *p;
        HMAP_FOR_EACH (p, name_node, &d->model.ports) {
            if (p->sb && p->sb->chassis == ch) {
                hmapx_add(&c.up_changed, p);
            }
            if (ls_port_requests_chassis(p, ch)) {
                hmapx_add(&c.bindings, p);
            }
        }
    }
    /* With ignore_lsp_down=false, a port's ARP/ND responder flows follow
     * whether it is up. */
    struct hmapx_node *node;
    HMAPX_FOR_EACH (node, &c.up_changed) {
        struct ls_port *p = node->data;
        bool up = ls_port_compute_up(p);
        if (up != p->up) {
            p->up = up;
            if (d->model.check_lsp_up) {
                hmapx_add(&c.ports, p);
            }
        }
    }

    /* The NB map (lib/nb.rdb) says which changes need a recompute: those
     * to tables and columns that recompute.  Changes to what is not
     * compiled cost nothing; the handlers below follow the rest. */
    if (rdb_map_changes_need_recompute(nb_db, &nb_rdb_map, reason)) {
        goto fail;
    }

    /* NB_Global: nb_cfg and ipsec go to SB_Global every pass, as do the
     * options; only options that are compiled recompute. */
    const struct nb_nb_global *nbg;
    NB_NB_GLOBAL_FOR_EACH_TRACKED (nbg, nb_db) {
        if (nb_nb_global_is_new(nbg) || nb_nb_global_is_deleted(nbg)) {
            *reason = "NB_Global";
            goto fail;
        }
        if (nb_nb_global_is_updated(nbg, NB_NB_GLOBAL_COL_OPTIONS)
            && !nb_options_followed(d, nbg)) {
            *reason = "NB_Global options";
            goto fail;
        }
        if (nb_nb_global_is_updated(nbg, NB_NB_GLOBAL_COL_OPTIONS)) {
            /* The responders and Service_Monitor rows name it (not the
             * echo of the one northd chose and wrote). */
            struct eth_addr mac = global_opts_svc_monitor_mac(
                &n->global_opts, &nbg->options);
            if (!eth_addr_equals(mac, d->svc_mac)) {
                *reason = "NB_Global options:svc_monitor_mac";
                goto fail;
            }
        }
    }

    /* Switches and ports, then port groups and address sets (which refer
     * to ports), then ACLs (which are checked against all of them). */
    if (!inc_switches(d, nb_db, &c, reason)
        || !dns_handle_changes(&d->dns, &d->model, nb_db, &c.dns_dps,
                               reason)) {
        goto fail;
    }
    if (!inc_dhcp_options(d, nb_db, &c, reason)) {
        goto fail;
    }
    struct hmapx lb_flipped = HMAPX_INITIALIZER(&lb_flipped);
    if (!lb_model_handle_changes(&d->lbs, &d->model, nb_db, &d->lflows,
                                 &d->features, &c.lbs, &lb_flipped,
                                 reason)) {
        hmapx_destroy(&lb_flipped);
        goto fail;
    }
    /* A switch that gained its first VIP or lost its last: its own flows
     * (hairpin, localnet skips, stateful stages), its router ports' (they
     * skip the load balancer) and its ACLs'. */
    struct hmapx_node *fnode;
    HMAPX_FOR_EACH (fnode, &lb_flipped) {
        struct ls_datapath *dp = fnode->data;
        acls_dp_set_lb(d->acls, dp, lb_model_dp_has_vips(&d->lbs,
                                                         dp->index));
        hmapx_add(&c.dps, dp);
        struct ls_port *p;
        LIST_FOR_EACH (p, dp_node, &dp->ports) {
            if (!strcmp(p->nb->type, "router")) {
                hmapx_add(&c.ports, p);
            }
        }
    }
    hmapx_destroy(&lb_flipped);
    /* Groups ovn-controllers learnt: the switch's flows and multicast
     * groups are rebuilt. */
    if (!inc_igmp_groups(d, sb_db, &c, reason)) {
        goto fail;
    }
    const struct nb_port_group *nb_pg;
    NB_PORT_GROUP_FOR_EACH_TRACKED (nb_pg, nb_db) {
        struct pg_state *pg = groups_find_pg(&d->groups,
                                             &nb_pg->header_.uuid);
        if (!groups_handle_pg(&d->groups, nb_pg, &c.span_changed,
                              &c.sets_changed, &c.pgs_changed)) {
            *reason = "Port_Group";
            goto fail;
        }
        if (nb_port_group_is_deleted(nb_pg)) {
            if (pg) {
                acls_pg_deleted(d->acls, pg);
            }
            continue;
        }
        pg = groups_find_pg(&d->groups, &nb_pg->header_.uuid);
        if (nb_port_group_is_new(nb_pg)
            || nb_port_group_is_updated(nb_pg, NB_PORT_GROUP_COL_ACLS)) {
            hmapx_add(&c.pg_acls, pg);
        }
        if (nb_port_group_is_updated(nb_pg, NB_PORT_GROUP_COL_PORTS)) {
            hmapx_add(&c.pg_ports, pg);
        }
    }
    const struct nb_address_set *as;
    NB_ADDRESS_SET_FOR_EACH_TRACKED (as, nb_db) {
        if (nb_address_set_is_updated(as, NB_ADDRESS_SET_COL_NAME)
            && lr_nat_uses_address_set(d->model.lr, as)) {
            *reason = "Address_Set of a NAT";
            goto fail;
        }
        if (!groups_handle_as(&d->groups, as, &c.sets_changed)) {
            *reason = "Address_Set";
            goto fail;
        }
    }

    /* Fair meters are split per ACL, so an ACL that logs through a meter
     * may add or remove an SB meter. */
    bool meters_changed = false;
    const struct nb_acl *acl;
    NB_ACL_FOR_EACH_TRACKED (acl, nb_db) {
        acls_handle_acl(d->acls, acl);
        meters_changed |= ((acl->meter && acl->meter[0])
                           || nb_acl_is_updated(acl, NB_ACL_COL_METER));
    }
    HMAPX_FOR_EACH (node, &c.pg_acls) {
        acls_handle_pg(d->acls, node->data);
    }
    HMAPX_FOR_EACH (node, &c.span_changed) {
        acls_pg_span_changed(d->acls, node->data);
    }
    HMAPX_FOR_EACH (node, &c.pg_ports) {
        acls_pg_members_changed(d->acls, node->data);
    }
    acls_sets_changed(d->acls, &c.sets_changed);
    const char *pg_name;
    SSET_FOR_EACH (pg_name, &c.pgs_changed) {
        acls_pg_exists(d->acls, pg_name,
                       groups_pg_exists(&d->groups, pg_name));
    }

    /* Backends whose health ovn-controller reports changed: the flows of
     * the load balancers with health checks are built again (each its
     * own owner's: flows that do not change are not written). */
    if (lb_health_handle_sb(&d->health, sb_db, ctx->sb_txn)) {
        for (size_t i = 0; i < d->lbs.n_lbs; i++) {
            struct lb *lb = &d->lbs.lbs[i];
            for (size_t j = 0; j < lb->n_vips; j++) {
                if (lb_health_vip_checked(&d->health, lb->nb,
                                          &lb->vips[j])) {
                    lflow_owner_clear(&d->lflows, &lb->owner);
                    lb_build_lb_lflows(&d->lflows, lb, &d->health,
                                       &d->features);
                    break;
                }
            }
        }
        lr_lb_health_changed(&d->model, &d->lflows);
    }

    /* Compile. */
    acl_errors_begin_incremental(n->acl_errors);
    unsigned long *dp_dirty = bitmap_allocate(d->model.dp_cap);
    acls_run(d->acls, &d->lflows, dp_dirty);
    HMAPX_FOR_EACH (node, &c.dps) {
        const struct ls_datapath *dp = node->data;
        bitmap_set1(dp_dirty, dp->index);
    }
    HMAPX_FOR_EACH (node, &c.dns_dps) {
        const struct ls_datapath *dp = node->data;
        bitmap_set1(dp_dirty, dp->index);
    }
    size_t idx;
    BITMAP_FOR_EACH_1 (idx, d->model.dp_cap, dp_dirty) {
        build_dp_lflows(d, d->model.dp_array[idx]);
    }
    HMAPX_FOR_EACH (node, &c.dhcp_dps) {
        struct ls_datapath *dp = node->data;
        if (!bitmap_is_set(dp_dirty, dp->index)) {
            build_dp_dhcp_lflows(d, dp);
        }
    }
    bitmap_free(dp_dirty);
    HMAPX_FOR_EACH (node, &c.ports) {
        build_port_lflows(d, node->data);
    }
    HMAPX_FOR_EACH (node, &c.dhcp_ports) {
        if (!hmapx_contains(&c.ports, node->data)) {
            build_port_dhcp_lflows(d, node->data);
        }
    }
    acl_errors_end(n->acl_errors, nb_db, ctx->nb_txn, false);

    /* Write: bindings first, since flows and groups refer to them. */
    const struct uuidset_node *un;
    UUIDSET_FOR_EACH (un, &c.dead_pbs) {
        uuidset_insert(&d->own_pb_deletes, &un->uuid);
        rdb_txn_delete(ctx->sb_txn, &sb_table_port_binding, &un->uuid);
    }
    HMAPX_FOR_EACH (node, &c.dps) {
        ls_model_sync_dp(&d->model, ctx->sb_txn, node->data);
        mcast_sync_sb_dp(sb_db, ctx->sb_txn, node->data);
    }
    /* External ports' HA chassis groups follow ports and chassis (a full
     * pass follows their NB rows). */
    if (ha_groups_affected(&c, sb_db, &d->model)) {
        ha_groups_sync(&d->model, sb_db, ctx->sb_txn);
    }
    HMAPX_FOR_EACH (node, &c.ports) {
        ls_model_sync_port(&d->model, ctx->sb_txn, node->data);
    }
    HMAPX_FOR_EACH (node, &c.bindings) {
        if (!hmapx_contains(&c.ports, node->data)) {
            ls_model_sync_port(&d->model, ctx->sb_txn, node->data);
        }
    }
    HMAPX_FOR_EACH (node, &c.dps) {
        ls_model_sync_mc_groups(&d->model, sb_db, ctx->sb_txn, node->data);
    }
    dns_sync_sb_dirty(&d->dns, ctx->sb_txn);
    /* Groups whose rows (flows, load balancers) all move the same way are
     * updated in place (northd/dp-groups.h). */
    lb_propose_moves(&d->lbs, &d->dpgs, &c.lbs);
    lflow_table_propose_moves(&d->lflows, &d->dpgs);
    if (dp_groups_apply_moves(&d->dpgs, ctx->sb_txn)) {
        COVERAGE_INC(northd_dp_group_moved);
    }
    lb_sync_sb_dirty(&d->lbs, sb_db, ctx->sb_txn, &d->dpgs, &c.lbs,
                     &d->own_lb_inserts);
    size_t n_written = lflow_table_sync_dirty(&d->lflows, &d->model,
                                              ctx->sb_txn, &d->dpgs,
                                              ctx->max_flow_inserts);
    groups_sync_sb_dirty(&d->groups, ctx->sb_txn);
    /* FDB rows of ports removed, or that ovn-controller just wrote. */
    fdb_sync_sb(&d->model, sb_db, ctx->sb_txn,
                !uuidset_is_empty(&c.dead_pbs));
    if (meters_changed) {
        meters_sync_sb(nb_db, sb_db, ctx->sb_txn);
    }
    if (dhcp_sb_changed(sb_db)) {
        dhcp_sync_sb(sb_db, ctx->sb_txn);
    }
    if (!n_written) {
        n->stats.n_noop++;
    }
    groups_end_pass(&d->groups);

    if (d->nb_writes_pending) {
        sync_nb_status(ctx, d);
    } else if (!hmapx_is_empty(&c.up_changed)) {
        if (ctx->nb_txn) {
            HMAPX_FOR_EACH (node, &c.up_changed) {
                ls_model_sync_port_up(node->data, ctx->nb_txn);
            }
        } else {
            d->nb_writes_pending = true;
        }
    }
    inc_changes_destroy(&c);
    nb_report_scan_tracked(n->nb_report, nb_db);
    return true;

fail:
    inc_changes_destroy(&c);
    return false;
}

/* Checking incremental passes. */

/* Differences a check logs, and keeps for northd/check-incremental. */
#define CHECK_MAX_REPORT 20

/* Builds everything from the replicas into a table of its own, as a full
 * recompute would but writing nothing, and compares the flows, the SB
 * groups and the invalid ACLs with those 'n' keeps: after an incremental
 * pass, they must be the same. */
static void
check_incremental(struct northd *n, struct northd_ctx *ctx,
                  const struct nb_nb_global *nb)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);
    const struct northd_data *d = &n->data;
    struct northd_data fresh;
    memset(&fresh, 0, sizeof fresh);

    /* IPAM's decisions as the kept model has them (incremental passes
     * leave IPAM to full ones), the same SB_Global key and chassis
     * features. */
    struct ipam_carry ipam_carry;
    ipam_carry_init(&ipam_carry);
    ipam_carry_save(&ipam_carry, &d->model);
    build_model(&fresh, ctx->nb, ctx->sb, nb, &ipam_carry, NULL);
    ipam_carry_destroy(&ipam_carry);
    build_inputs(&fresh, ctx->nb, ctx->sb, &d->svc_mac);
    fresh.flow_key = d->flow_key;
    fresh.features = d->features;
    struct acl_registry *errors = acl_registry_create(true);
    build_flows(&fresh, ctx->nb, nb, lflow_table_count(&d->lflows), errors);
    acl_errors_end(errors, ctx->nb, NULL, true);

    struct ds report = DS_EMPTY_INITIALIZER;
    size_t n_diff = lflow_table_diff(&d->lflows, &d->model,
                                     &fresh.lflows, &fresh.model,
                                     &report, CHECK_MAX_REPORT);
    n_diff += groups_diff(&d->groups, &fresh.groups, &report,
                          CHECK_MAX_REPORT);
    n_diff += dns_model_diff(&d->dns, &fresh.dns, &report, CHECK_MAX_REPORT);
    n_diff += acl_errors_diff(n->acl_errors, errors, &report,
                              CHECK_MAX_REPORT);
    acl_registry_destroy(errors);
    northd_data_destroy(&fresh);

    n->check.n_checks++;
    if (n_diff) {
        COVERAGE_INC(northd_check_failed);
        n->check.n_failed++;
        n->check.n_diffs += n_diff;
        VLOG_WARN_RL(&rl, "incremental check %llu: %"PRIuSIZE" difference(s) "
                     "between the incrementally maintained state (first) and "
                     "a fresh build (second):\n%s", n->check.n_checks,
                     n_diff, ds_cstr(&report));
        free(n->check.last_report);
        n->check.last_report = ds_steal_cstr(&report);
    }
    ds_destroy(&report);
}

void
northd_set_check_incremental(struct northd *n, bool enabled)
{
    n->check.enabled = enabled;
}

void
northd_format_check_incremental(const struct northd *n, struct ds *out)
{
    const struct northd_check *c = &n->check;
    ds_put_format(out, "check after every incremental pass: %s\n"
                  "checks: %llu\nchecks failed: %llu\ndifferences: %llu\n",
                  c->enabled ? "on" : "off", c->n_checks, c->n_failed,
                  c->n_diffs);
    if (c->last_report) {
        ds_put_format(out, "last differences (incremental state first, "
                      "fresh build second):\n%s", c->last_report);
    }
}

bool
northd_corrupt_flows(struct northd *n)
{
    struct northd_data *d = &n->data;
    if (!d->valid || !d->model.n_datapaths) {
        return false;
    }
    /* A flow of the load balancers' owner, which full recomputes make
     * again from scratch. */
    lflow_table_set_owner(&d->lflows, &d->lb_owner);
    lflow_add(&d->lflows, d->model.dp_array[0], S_IN_CHECK_PORT_SEC, 1,
              "inport == \"northd/corrupt-flows\"", "drop;");
    lflow_table_set_owner(&d->lflows, NULL);
    return true;
}

void
northd_run(struct northd *n, struct northd_ctx *ctx, bool force_full)
{
    long long int start = time_msec();
    struct northd_data *data = &n->data;
    struct northd_stats *stats = &n->stats;

    if (ctx->sb_reset) {
        n->lflow_copy_fresh = true;
    }
    const char *reason = (ctx->sb_reset ? "SB replica started over"
                          : force_full ? "requested" : NULL);
    bool full = force_full || ctx->sb_reset || !data->valid;
    if (!data->valid && !reason) {
        reason = "first run";
    }
    if (full && !data->valid && !n->lflow_copy_fresh) {
        /* Nothing says which flows the SB holds (the replica keeps them
         * only in a fresh copy): get one first. */
        rdb_force_resync(ctx->sb);
        stats->n_aborted++;
        return;
    }

    if (data->valid && !n->lflow_copy_fresh) {
        /* SB Logical_Flow, Port_Group and Address_Set rows someone else
         * inserted or changed: put back at once, whatever this pass turns
         * out to be (a full pass compares with what northd wrote). */
        lflow_table_repair_sb(&data->lflows, ctx->sb, ctx->sb_txn);
        groups_repair_sb(&data->groups, ctx->sb, ctx->sb_txn);
    }

    const struct nb_nb_global *nb = get_nb_global(ctx);
    if (nb && nb->nb_cfg != n->cfg_seen) {
        n->cfg_seen = nb->nb_cfg;
        n->cfg_seen_wall = time_wall_msec();
    }
    if (!full && !uuid_equals(&data->flow_key, sb_global_uuid(n, ctx->sb))) {
        /* The flows' UUIDs follow from it. */
        reason = "SB_Global was replaced";
        full = true;
    }
    if (!full && !incremental_run(n, ctx, &reason)) {
        full = true;
    }
    if (full) {
        COVERAGE_INC(northd_recompute);
        VLOG_DBG("full recompute: %s", reason);
        stats->last_full_reason = reason;
        full_recompute(n, ctx, nb);
    }

    if (full || mb_aging_due(&n->mb_aging)) {
        mb_aging_run(&n->mb_aging, &data->model, ctx->sb, ctx->sb_txn,
                     &data->nb_options, full);
    }

    /* nb_cfg is passed on only with the last of the flows. */
    size_t n_unwritten = lflow_table_n_unwritten(&data->lflows);
    ctx->flows_pending = n_unwritten > 0;
    if (ctx->flows_pending) {
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 10);
        VLOG_INFO_RL(&rl, "%"PRIuSIZE" logical flows left for the next SB "
                     "transaction (at most %"PRIuSIZE" new flows in each)",
                     n_unwritten, ctx->max_flow_inserts);
    }
    sync_sb_global(n, ctx, nb, !ctx->flows_pending);
    rbac_sync_sb(ctx->sb, ctx->sb_txn);

    stats->n_runs++;
    stats->n_lflows = lflow_table_count(&data->lflows);
    stats->n_unwritten = n_unwritten;
    stats->n_datapaths = data->model.n_datapaths;
    stats->n_ports = hmap_count(&data->model.ports);
    stats->n_bad_rows = data->model.n_bad_rows;
    stats->last_run_msec = time_msec() - start;
    if (full) {
        stats->n_full++;
        stats->full_msec += stats->last_run_msec;
    } else {
        stats->n_incremental++;
        stats->incremental_msec += stats->last_run_msec;
        if (n->check.enabled) {
            /* Not counted in the pass's time. */
            check_incremental(n, ctx, nb);
        }
    }
}

bool
northd_timer_due(const struct northd *n)
{
    return mb_aging_due(&n->mb_aging);
}

void
northd_timer_wait(const struct northd *n)
{
    mb_aging_wait(&n->mb_aging);
}

void
northd_invalidate(struct northd *n)
{
    northd_data_destroy(&n->data);
}

void
northd_update_sequence_numbers(struct northd *n, struct northd_ctx *ctx)
{
    const struct nb_nb_global *nb = nb_nb_global_first(ctx->nb);
    if (!nb) {
        return;
    }

    /* The SB holds the results of 'cur_cfg' once its transaction landed. */
    int64_t sb_cfg = ctx->sb_cur_cfg;
    rdb_txn_update(ctx->nb_txn, &nb_table_nb_global, &nb->header_.uuid);
    if (sb_cfg && nb->sb_cfg != sb_cfg) {
        rdb_txn_set_integer(ctx->nb_txn, NB_NB_GLOBAL_COL_SB_CFG, sb_cfg);
        rdb_txn_set_integer(ctx->nb_txn, NB_NB_GLOBAL_COL_SB_CFG_TIMESTAMP,
                            time_wall_msec());
        if (n->cfg_seen_wall && nb->nb_cfg_timestamp != n->cfg_seen_wall) {
            rdb_txn_set_integer(ctx->nb_txn,
                                NB_NB_GLOBAL_COL_NB_CFG_TIMESTAMP,
                                n->cfg_seen_wall);
        }
    }

    /* Hypervisors report the nb_cfg whose flows they have installed; the
     * slowest one is where --wait=hv stands.  It is never ahead of sb_cfg:
     * the SB's own copy of nb_cfg is, while its commit's reply is on the
     * way, and following it would cost an NB commit of its own. */
    const struct sb_sb_global *sb = sb_sb_global_first(ctx->sb);
    if (!sb || !sb_cfg) {
        return;
    }
    int64_t hv_cfg = MIN(sb->nb_cfg, sb_cfg);
    int64_t hv_cfg_ts = 0;
    const struct sb_chassis_private *cp;
    SB_CHASSIS_PRIVATE_FOR_EACH (cp, ctx->sb) {
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
        rdb_txn_set_integer(ctx->nb_txn, NB_NB_GLOBAL_COL_HV_CFG, hv_cfg);
        rdb_txn_set_integer(ctx->nb_txn, NB_NB_GLOBAL_COL_HV_CFG_TIMESTAMP,
                            hv_cfg_ts);
    }
}
