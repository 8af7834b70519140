/* Stale SB FDB rows.
 *
 * ovn-controller learns MAC addresses into the SB FDB table, each row
 * naming a datapath and a port by tunnel key.  A row whose switch or port
 * is gone (or that names keys no switch has) is deleted, as stock
 * ovn-northd does: otherwise a later port that gets the same keys would
 * inherit another port's MAC addresses. */
#ifndef NORTHD_FDB_H
#define NORTHD_FDB_H 1

#include <stdbool.h>

struct ls_model;
struct rdb;
struct rdb_txn;

/* Deletes the FDB rows that name no port of 'm': every row if 'all', else
 * only those inserted or changed since the replica's last track clear. */
void fdb_sync_sb(const struct ls_model *m, struct rdb *sb, struct rdb_txn *,
                 bool all);

#endif /* northd/fdb.h */
