/* SB Meter rows for the meters ACL logging uses: every NB meter by name,
 * and for a "fair" meter one copy per logging ACL ("<meter>__<acl uuid>"),
 * so that each ACL gets its own rate. */
#ifndef NORTHD_METERS_H
#define NORTHD_METERS_H 1

struct rdb;
struct rdb_txn;

void meters_sync_sb(struct rdb *nb_db, struct rdb *sb_db,
                    struct rdb_txn *);

#endif /* northd/meters.h */
