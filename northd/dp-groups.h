/* SB Logical_DP_Group rows, shared by logical flows and load balancers.
 *
 * Groups are found by their set of datapaths so that an unchanged set keeps
 * its row across passes.  The index lives as long as the model it was
 * built for: rows are remembered by UUID (northd chooses the UUIDs of the
 * rows it inserts).  The table is not a root table: the database itself
 * drops groups that nothing references any more, and a remembered group
 * that vanished is simply created again. */
#ifndef NORTHD_DP_GROUPS_H
#define NORTHD_DP_GROUPS_H 1

#include <stddef.h>
#include "openvswitch/hmap.h"

struct ls_model;
struct rdb;
struct rdb_txn;
struct uuid;

struct dp_groups {
    struct hmap groups;             /* Contains "struct dp_group"s. */
    const struct ls_model *model;
    struct rdb *sb;
    unsigned int pass;              /* Groups inserted in this pass are
                                     * not in the replica yet. */
};

/* Indexes the SB replica's groups in terms of 'model''s datapaths. */
void dp_groups_init(struct dp_groups *, const struct ls_model *,
                    struct rdb *sb);
void dp_groups_destroy(struct dp_groups *);

/* A pass begins: groups inserted by earlier passes are in the replica, or
 * were collected by the database. */
void dp_groups_new_pass(struct dp_groups *);

/* Returns the UUID of the group for the 'n' datapaths set in 'bitmap'
 * (indexes into the model's dp_array, 'dp_cap' bits), creating it in
 * 'txn' if needed.  An insert is an op of its own: call this before
 * beginning the op that refers to the group. */
const struct uuid *dp_groups_get(struct dp_groups *, struct rdb_txn *,
                                 const unsigned long *bitmap, size_t n);

#endif /* northd/dp-groups.h */
