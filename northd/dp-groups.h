/* SB Logical_DP_Group rows, shared by logical flows and load balancers.
 *
 * Groups are found by their set of datapaths so that an unchanged set keeps
 * its row across passes.  The index lives as long as the model it was
 * built for: rows are remembered by UUID (northd chooses the UUIDs of the
 * rows it inserts), since IDL row pointers do not outlive a transaction.
 * The table is not a root table: the database itself drops groups that
 * nothing references any more, and a remembered group that vanished is
 * simply created again. */
#ifndef NORTHD_DP_GROUPS_H
#define NORTHD_DP_GROUPS_H 1

#include <stddef.h>
#include "openvswitch/hmap.h"

struct ls_model;
struct ovsdb_idl;
struct ovsdb_idl_txn;
struct sbrec_logical_dp_group;

struct dp_groups {
    struct hmap groups;             /* Contains "struct dp_group"s. */
    const struct ls_model *model;
    struct ovsdb_idl *sb_idl;
};

/* Indexes the SB replica's groups in terms of 'model''s datapaths. */
void dp_groups_init(struct dp_groups *, const struct ls_model *,
                    struct ovsdb_idl *sb_idl);
void dp_groups_destroy(struct dp_groups *);

/* Returns the group for the 'n' datapaths set in 'bitmap' (indexes into
 * the model's dp_array, 'dp_cap' bits), creating it in 'txn' if needed. */
const struct sbrec_logical_dp_group *dp_groups_get(
    struct dp_groups *, struct ovsdb_idl_txn *, const unsigned long *bitmap,
    size_t n);

#endif /* northd/dp-groups.h */
