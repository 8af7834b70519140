/* One northd pass: read the NB and SB replicas, compile, and reconcile the
 * SB (and NB status columns) with what was compiled.
 *
 * The caller (ovn-northd.c) owns the database connections, the lock and the
 * transactions; this module never commits. */
#ifndef NORTHD_NORTHD_H
#define NORTHD_NORTHD_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rdb;
struct rdb_txn;
struct ds;

struct northd_ctx {
    struct rdb *nb;
    struct rdb *sb;
    struct rdb_txn *nb_txn;         /* Open; NULL if NB is busy. */
    struct rdb_txn *sb_txn;         /* Open; the caller holds the lock. */
    int64_t sb_next_cfg;            /* Set by northd_run(): the nb_cfg the
                                     * SB holds once 'sb_txn' commits. */
    int64_t sb_cur_cfg;             /* The nb_cfg whose results are in the
                                     * SB (0 if none yet). */
    bool sb_reset;                  /* The SB replica started over since
                                     * the last pass (rdb_get_reset_seqno()). */
    size_t max_flow_inserts;        /* New Logical_Flow rows one 'sb_txn'
                                     * may carry (0: no limit). */
    bool flows_pending;             /* Set by northd_run(): flows are left
                                     * for the next pass, which the caller
                                     * runs once 'sb_txn' commits; until
                                     * then nb_cfg is not passed on. */
};

/* Everything northd keeps from one pass to the next: the compiled state,
 * statistics, the invalid ACLs, the sequence numbers seen.  Nothing of it
 * is the process's, so that a second build can be made beside it (see
 * northd_set_check_incremental()). */
struct northd;

struct northd *northd_create(void);
void northd_destroy(struct northd *);

/* Brings the SB in line with the NB: follows the changes the replicas
 * tracked since the last pass, or (if 'force_full', on the first pass, or
 * for a change no handler follows) recomputes everything from the
 * replicas.  Writes into 'ctx->sb_txn' (and NB status into 'ctx->nb_txn',
 * when open).  The caller clears the replicas' change tracking afterwards,
 * and must not start another pass before 'ctx->sb_txn' completes (part of
 * it is written while it is sent). */
void northd_run(struct northd *, struct northd_ctx *, bool force_full);

/* Whether a timer of northd's (MAC_Binding aging, mac-binding.h) calls
 * for a pass now; northd_timer_wait() wakes the poll loop when one
 * will. */
bool northd_timer_due(const struct northd *);

/* Whether a pass left NB status columns (Logical_Switch_Port 'up', ...) to
 * write because an NB transaction of northd's was in flight: the next pass
 * that can write the NB must run even if nothing else changed, since the
 * reply to that transaction may bring no change northd would wake up
 * for. */
bool northd_nb_writes_pending(const struct northd *);
void northd_timer_wait(const struct northd *);

/* Forgets everything kept, e.g. on losing the SB lock: the next pass is a
 * full recompute. */
void northd_invalidate(struct northd *);

/* Cheap per-iteration bookkeeping that does not depend on a recompute:
 * mirrors a committed SB nb_cfg ('ctx->sb_cur_cfg') into NB_Global.sb_cfg,
 * with nb_cfg_timestamp (when a pass first saw the latest nb_cfg) in the
 * same commit, and chassis progress into NB_Global.hv_cfg.  Needs only
 * 'ctx->nb_txn'. */
void northd_update_sequence_numbers(struct northd *, struct northd_ctx *);

/* Appends a human-readable summary of NB content this northd does not
 * compile to 'out': one line per table (e.g. logical routers), column, map
 * key or value (lib/nb.rdb) that rows use, with their count and examples;
 * appends nothing if there is none (northd/nb-report.h). */
void northd_format_unsupported(const struct northd *, struct ds *out);

/* Appends counters from the last pass (datapaths, ports, ...) to 'out'. */
void northd_format_stats(const struct northd *, struct ds *out);

/* "inc-engine/show-stats [NODE [STAT]]": the passes, counted as stock
 * ovn-northd's engine nodes "northd" and "lflow" count theirs (see
 * northd.c), in stock's format, since the last
 * northd_clear_engine_stats().  Only NODE if it is nonnull (nothing if no
 * node has that name), only its STAT ("recompute", "compute" or "abort")
 * if that is nonnull.  Returns false, having appended stock's message, if
 * STAT is none of those. */
bool northd_format_engine_stats(const struct northd *, struct ds *out,
                                const char *node, const char *stat);
void northd_clear_engine_stats(struct northd *);

/* "acl/errors": the invalid ACLs of the last pass. */
void northd_format_acl_errors(const struct northd *, struct ds *out,
                              const struct rdb *nb_db);

/* ACL lint (northd/acl-lint.h) of the switch or port group 'filter' (all
 * if NULL), with the address sets of the last full pass: returns the
 * number of findings, or SIZE_MAX if there is no such switch or port
 * group. */
size_t northd_lint_acls(const struct northd *, const struct rdb *nb,
                        const char *filter, double threshold,
                        struct ds *out);

/* A test of incremental processing ("--check-incremental",
 * "northd/check-incremental"): with it on, after every incremental pass
 * northd builds everything again from the replicas, as a full recompute
 * would but in a state of its own and writing nothing, and compares the
 * flows, the SB port groups and address sets and the invalid ACLs with
 * those the incremental pass left.  Differences are logged (a line for
 * each flow, group or ACL), counted in northd/stats and the coverage
 * counter northd_check_failed, and the last ones kept for
 * northd_format_check_incremental().  Costs a full compile per pass: for
 * tests, not production. */
void northd_set_check_incremental(struct northd *, bool enabled);
void northd_format_check_incremental(const struct northd *, struct ds *out);

/* For the test of that test: adds a flow no NB row asks for to the kept
 * table (written by the next pass that writes flows, and gone at the next
 * full recompute), so that the next check must report it.  Returns false
 * if there is no kept state (or no switch) to add it to. */
bool northd_corrupt_flows(struct northd *);

#endif /* northd/northd.h */
