/* SB Logical_DP_Group rows, shared by logical flows and load balancers.
 *
 * Groups are found by their set of datapaths so that an unchanged set keeps
 * its row across passes.  The index lives as long as the model it was
 * built for: rows are remembered by UUID (northd chooses the UUIDs of the
 * rows it inserts).  The table is not a root table: the database itself
 * drops groups that nothing references any more, and a remembered group
 * that vanished is simply created again.
 *
 * When every logical flow on a group moves to the same new set of
 * datapaths (a switch joins or leaves all of them, as when a switch is
 * added), the group's row is updated in place instead of a new group being
 * made and every flow rewritten to it: one op instead of hundreds, for the
 * server and for every ovn-controller.  For that the index counts the
 * flows and the other rows (SB Load_Balancers) whose row refers to each
 * group; the other rows propose their moves too (a switch joining a
 * Load_Balancer_Group moves its load balancers' rows, and their flows,
 * with the group). */
#ifndef NORTHD_DP_GROUPS_H
#define NORTHD_DP_GROUPS_H 1

#include <stddef.h>
#include "openvswitch/hmap.h"

struct ls_model;
struct rdb;
struct rdb_txn;
struct dp_group;
struct uuid;

struct dp_groups {
    struct hmap groups;             /* Contains "struct dp_group"s, by
                                     * datapath set. */
    struct hmap by_uuid;            /* The same, by SB row UUID. */
    struct dp_group **moving;       /* Groups with proposed moves. */
    size_t n_moving, allocated_moving;
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

/* The same, as the group itself.  A group lives as long as the index, and
 * keeps its row UUID while any row refers to it (the database collects a
 * group only when nothing does, and only then is it made again). */
struct dp_group *dp_groups_get_group(struct dp_groups *, struct rdb_txn *,
                                     const unsigned long *bitmap, size_t n);
const struct uuid *dp_group_uuid(const struct dp_group *);

/* The indexed group whose row has UUID 'uuid', or NULL. */
struct dp_group *dp_groups_find_row(const struct dp_groups *,
                                    const struct uuid *);

/* Logical flow rows that refer to group 'dpg'. */
void dp_groups_ref_flow(struct dp_group *dpg);
void dp_groups_unref_flow(struct dp_group *dpg);

/* Rows other than logical flows (SB Load_Balancers) that refer to group
 * 'uuid': a row that refers to it, or no longer does.  Such a row's
 * group moves only if the row proposes the same move. */
void dp_groups_ref_other(struct dp_groups *, const struct uuid *);
void dp_groups_unref_other(struct dp_groups *, const struct uuid *);

/* Moving flows in place.  For each flow about to be rewritten whose row
 * refers to group 'from', the sync proposes where it goes: to the 'n'
 * datapaths in 'bitmap', or away from groups altogether ('bitmap' NULL: to
 * one datapath, or deleted).  dp_groups_apply_moves() then updates, in
 * 'txn', every group all of whose flows go to the same new datapath set,
 * so that dp_groups_get() finds that group for the set.  Call it before
 * any op on the flows. */
void dp_groups_propose_move(struct dp_groups *, struct dp_group *from,
                            const unsigned long *bitmap, size_t n);
size_t dp_groups_apply_moves(struct dp_groups *, struct rdb_txn *);

#endif /* northd/dp-groups.h */
