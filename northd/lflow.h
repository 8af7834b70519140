/* The table of desired logical flows, and its reconciliation with the SB.
 *
 * Compile functions add flows with lflow_add(); identical flows (same
 * stage, priority, match, actions and controller meter) on several
 * datapaths become one entry with a datapath set, written to the SB as one
 * Logical_Flow row with a Logical_DP_Group.  lflow_table_sync_sb() diffs
 * the table against the SB replica and writes only the differences, reusing
 * existing rows and datapath groups by content. */
#ifndef NORTHD_LFLOW_H
#define NORTHD_LFLOW_H 1

#include <stddef.h>
#include <stdint.h>
#include "northd/pipeline.h"
#include "openvswitch/hmap.h"
#include "openvswitch/uuid.h"
#include "util.h"

struct ls_model;
struct ls_datapath;
struct ovsdb_idl;
struct ovsdb_idl_txn;
struct dp_groups;

struct lflow_table {
    struct hmap flows;              /* Contains "struct lflow"s. */
    size_t n_datapaths;             /* Size of each flow's datapath bitmap. */
};

void lflow_table_init(struct lflow_table *, size_t n_datapaths);
void lflow_table_destroy(struct lflow_table *);
size_t lflow_table_count(const struct lflow_table *);

/* Adds a flow on 'dp'.  'match' and 'actions' are copied.  'hint' is the NB
 * row the flow comes from (its first 8 hex digits become "stage-hint"),
 * or NULL.  'where' is the source location, for "source". */
void lflow_add_at(struct lflow_table *, const struct ls_datapath *dp,
                  enum ls_stage, uint16_t priority, const char *match,
                  const char *actions, const char *ctrl_meter,
                  const struct uuid *hint, const char *where);

#define lflow_add(TABLE, DP, STAGE, PRIORITY, MATCH, ACTIONS)             \
    lflow_add_at(TABLE, DP, STAGE, PRIORITY, MATCH, ACTIONS, NULL, NULL,  \
                 OVS_SOURCE_LOCATOR)
#define lflow_add_hint(TABLE, DP, STAGE, PRIORITY, MATCH, ACTIONS, HINT)  \
    lflow_add_at(TABLE, DP, STAGE, PRIORITY, MATCH, ACTIONS, NULL, HINT,  \
                 OVS_SOURCE_LOCATOR)

/* Writes the differences between 'table' and the SB Logical_Flow and
 * Logical_DP_Group tables. */
void lflow_table_sync_sb(struct lflow_table *, const struct ls_model *,
                         struct ovsdb_idl *sb_idl,
                         struct ovsdb_idl_txn *sb_txn, struct dp_groups *);

#endif /* northd/lflow.h */
