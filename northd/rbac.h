/* The SB role "ovn-controller" and its permissions.
 *
 * An SB ovsdb-server whose Connection row has role=ovn-controller lets a
 * client write only what RBAC_Role "ovn-controller" permits: which tables
 * it may insert into and delete from, which columns it may update, and
 * which column must name the client (its SSL certificate's common name)
 * for it to touch a row.  Northd keeps that role and its RBAC_Permission
 * rows as ovn-controller needs them, as stock ovn-northd does: rows for
 * other roles, and permission rows that are not one of ours, are deleted,
 * and what is missing or was changed is written again. */
#ifndef NORTHD_RBAC_H
#define NORTHD_RBAC_H 1

struct rdb;
struct rdb_txn;

/* Brings the SB's RBAC_Role and RBAC_Permission rows in line, writing only
 * what differs: a northd restarted on an SB it wrote writes nothing. */
void rbac_sync_sb(struct rdb *sb, struct rdb_txn *);

#endif /* northd/rbac.h */
