/* One northd pass: read the NB and SB replicas, compile, and reconcile the
 * SB (and NB status columns) with what was compiled.
 *
 * The caller (ovn-northd.c) owns the database connections, the lock and the
 * transactions; this module never commits. */
#ifndef NORTHD_NORTHD_H
#define NORTHD_NORTHD_H 1

#include <stdbool.h>
#include <stdint.h>

struct ovsdb_idl;
struct ovsdb_idl_txn;
struct ovsdb_idl_loop;
struct ds;

struct northd_ctx {
    struct ovsdb_idl *nb_idl;
    struct ovsdb_idl *sb_idl;
    struct ovsdb_idl_txn *nb_txn;     /* Open; NULL if NB is busy. */
    struct ovsdb_idl_txn *sb_txn;     /* Open; the caller holds the lock. */
    struct ovsdb_idl_loop *sb_loop;   /* For 'next_cfg' / 'cur_cfg'. */
};

void northd_init(void);
void northd_destroy(void);

/* Brings the SB in line with the NB: follows the changes the IDLs tracked
 * since the last pass, or (if 'force_full', on the first pass, or for a
 * change no handler follows) recomputes everything from the replicas.
 * Writes into 'ctx->sb_txn' (and NB status into 'ctx->nb_txn', when
 * open).  The caller clears the IDLs' change tracking afterwards. */
void northd_run(struct northd_ctx *, bool force_full);

/* Forgets everything kept, e.g. on losing the SB lock: the next pass is a
 * full recompute. */
void northd_invalidate(void);

/* Cheap per-iteration bookkeeping that does not depend on a recompute:
 * mirrors a committed SB nb_cfg into NB_Global.sb_cfg and chassis progress
 * into NB_Global.hv_cfg.  Needs only 'ctx->nb_txn'. */
void northd_update_sequence_numbers(struct northd_ctx *);

/* Appends a human-readable summary of NB content this northd does not
 * compile (e.g. logical routers) to 'out', one line per table; appends
 * nothing if there is none. */
void northd_format_unsupported(struct ds *out);

/* Appends counters from the last pass (datapaths, ports, ...) to 'out'. */
void northd_format_stats(struct ds *out);

#endif /* northd/northd.h */
