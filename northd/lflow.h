/* The table of desired logical flows, kept across passes, and its
 * reconciliation with the SB.
 *
 * Compile functions add flows with lflow_add() on behalf of an owner (a
 * datapath's fixed flows, a port, an ACL, the load balancers): the table
 * records which owner contributed which flow on which datapath, so that an
 * NB change can take back exactly the flows its row produced
 * (lflow_owner_clear()) and add the new ones.  Identical flows (same
 * stage, priority, match, actions and controller meter) on several
 * datapaths are one entry with a datapath set, written to the SB as one
 * Logical_Flow row with a Logical_DP_Group.
 *
 * Two ways to the SB: lflow_table_sync_sb() diffs the whole table against
 * the SB replica by content (after a full recompute); lflow_table_sync_dirty()
 * writes only the entries touched since the last sync, finding their rows
 * by UUID (northd chooses the UUID of every row it inserts).  The replica
 * keeps Logical_Flow rows as content hashes (lib/sb.rdb): the full sync
 * recognizes rows by the hash of what northd would write. */
#ifndef NORTHD_LFLOW_H
#define NORTHD_LFLOW_H 1

#include <stddef.h>
#include <stdint.h>
#include "northd/pipeline.h"
#include "openvswitch/hmap.h"
#include "openvswitch/uuid.h"
#include "uuidset.h"
#include "util.h"

struct ls_model;
struct ls_datapath;
struct rdb;
struct rdb_txn;
struct dp_groups;
struct lflow;
struct dpset;
struct lflow_side;
struct ds;
struct copp_set;

/* One contribution: 'flow' on datapath index 'dp'.  With LFLOW_REF_SET in
 * 'dp', the flow is on each datapath of the owner's set number
 * 'dp & LFLOW_REF_INDEX'.  With LFLOW_REF_HINT, it names the NB row whose
 * UUID starts with the 32 bits 'hint' (all that "stage-hint" shows). */
struct lflow_ref {
    struct lflow *flow;
    uint32_t dp;
    uint32_t hint;
};
#define LFLOW_REF_SET 0x80000000u
#define LFLOW_REF_HINT 0x40000000u
#define LFLOW_REF_INDEX 0x3fffffffu

/* What one owner contributed.  Embedded in the object that owns the flows;
 * lflow_owner_clear() takes them back from the table.
 *
 * An owner that adds the same flows on many datapaths (an ACL of a port
 * group that spans many switches) adds them once for the whole set with
 * lflow_add_dps(): one contribution per flow, not one per datapath. */
struct lflow_owner {
    struct lflow_ref *refs;
    union {                         /* Datapath sets, a reference each: */
        const struct dpset *one;    /* with 'n_sets' at most 1 (an ACL's
                                     * one set, without an allocation of
                                     * its own), */
        const struct dpset **v;     /* with more. */
    } sets;
    uint32_t n_refs;
    uint32_t n_sets : 31;
    uint32_t refs_exact : 1;        /* 'refs' has room for 'n_refs' exactly
                                     * (lflow_owner_shrink()), rather than
                                     * for the next power of 2. */
};

void lflow_owner_init(struct lflow_owner *);
void lflow_owner_destroy(struct lflow_owner *);

struct lflow_table {
    struct hmap flows;              /* Contains "struct lflow"s. */
    size_t dp_cap;                  /* Size of each flow's datapath bitmap:
                                     * no datapath index reaches it. */
    struct lflow_owner *owner;      /* Receives lflow_add()s. */
    struct hmap multi;              /* (flow, dp) added more than once. */
    struct lflow **dirty;           /* Touched since the last sync. */
    size_t n_dirty, allocated_dirty;

    /* The inserts of a full sync, or of a chunk, produced while the
     * transaction is sent (see rdb_txn_add_producer()). */
    size_t insert_bucket;           /* Next bucket of 'flows' to write. */
    struct lflow **chunk;           /* A chunk's flows, 'n_chunk' of them. */
    size_t n_chunk, chunk_next;
    const struct ls_model *insert_model;
    struct dp_groups *insert_dpgs;

    size_t n_sorted;                /* The first 'n_sorted' of 'dirty' are
                                     * flows the last sync left to insert
                                     * (more than its 'max_inserts'), in the
                                     * order to write them. */
    bool all_new;                   /* No sync yet: the first, a full one,
                                     * looks at every flow, so none is
                                     * kept in 'dirty'. */
    struct uuid uuid_key;           /* Keys the UUIDs of the rows northd
                                     * inserts (lflow_table_init()). */
    struct uuidset deleting;        /* Rows of other content that the
                                     * transaction of a full sync deletes:
                                     * no insert in it may reuse their
                                     * UUIDs. */
    const struct copp_set *copp;    /* Control plane protection meters
                                     * (northd/copp.h), or NULL if no
                                     * datapath has a Copp: then a flow
                                     * costs no classification. */
    struct lflow_side *side;        /* What the table keeps beside its
                                     * flows (lflow.c): rare per-flow
                                     * records, source locations, caches.
                                     * Nothing of a table is the
                                     * process's, so that tables can be
                                     * built side by side. */
};

/* 'uuid_key' keys the UUIDs of the Logical_Flow rows the table inserts,
 * which it derives from their content (lib/rdb.h, rdb_uuid_hash): every
 * northd on the same SB must use the same key (northd uses SB_Global's
 * row UUID), or it takes the rows another wrote as foreign ones, whose
 * UUIDs it has to keep. */
void lflow_table_init(struct lflow_table *, size_t dp_cap,
                      const struct uuid *uuid_key);
void lflow_table_reserve(struct lflow_table *, size_t n_flows);
void lflow_table_destroy(struct lflow_table *);
size_t lflow_table_count(const struct lflow_table *);

/* Gives the flows added from now on on a datapath with a Copp the
 * controller meter it sets for their controller action (unless the caller
 * gives one).  'copp' (NULL: none) must outlive the table's use. */
static inline void
lflow_table_set_copp(struct lflow_table *t, const struct copp_set *copp)
{
    t->copp = copp;
}

/* Makes 'owner' the owner of the flows added from now on. */
static inline void
lflow_table_set_owner(struct lflow_table *t, struct lflow_owner *owner)
{
    t->owner = owner;
}

/* Says that the flows added next are likely to have 'text' as the body of
 * their match (see split_match() in lflow.c), packed as 'body': an ACL's
 * flows then share its row's packed match without packing it again. */
struct strpack;
void lflow_table_hint_body(struct lflow_table *, const struct strpack *body,
                           const char *text);

/* Gives back the room 'owner' keeps for more contributions: for an owner
 * that is done (an ACL after its compile), of which there are a million. */
void lflow_owner_shrink(struct lflow_owner *);

/* Takes back every flow 'owner' contributed (it stays usable), or only
 * those on the datapaths set in 'dps' ('dp_cap' bits). */
void lflow_owner_clear(struct lflow_table *, struct lflow_owner *);
void lflow_owner_clear_dps(struct lflow_table *, struct lflow_owner *,
                           const unsigned long *dps);

/* Adds a flow on 'dp' for the current owner.  'match' and 'actions' are
 * copied.  'hint' is the NB row the flow comes from (its first 8 hex digits
 * become "stage-hint"), or NULL.  'where' is the source location, for
 * "source". */
void lflow_add_at(struct lflow_table *, const struct ls_datapath *dp,
                  enum ls_stage, uint16_t priority, const char *match,
                  const char *actions, const char *ctrl_meter,
                  const struct uuid *hint, const char *where);

/* The same, on each datapath in 'dps' (a bitmap of the table's 'dp_cap'
 * bits, not empty): the flow must be one that does not depend on which of
 * them it is on.  The owner keeps a copy of 'dps'. */
void lflow_add_dps_at(struct lflow_table *, const unsigned long *dps,
                      enum ls_stage, uint16_t priority, const char *match,
                      const char *actions, const char *ctrl_meter,
                      const struct uuid *hint, const char *where);

/* The same, for a flow of one port's own (its match names the port as
 * 'inport == "NAME"' or 'outport == "NAME"'): its SB row gets
 * tags:in_out_port=NAME, as stock ovn-northd 23.03 gives the same flows,
 * which ovn-controller uses to process a port's changes incrementally. */
void lflow_add_port_at(struct lflow_table *, const struct ls_datapath *dp,
                       enum ls_stage, uint16_t priority, const char *match,
                       const char *actions, const struct uuid *hint,
                       const char *where);
#define LFLOW_TAG_PORT "in_out_port"

#define lflow_add(TABLE, DP, STAGE, PRIORITY, MATCH, ACTIONS)             \
    lflow_add_at(TABLE, DP, STAGE, PRIORITY, MATCH, ACTIONS, NULL, NULL,  \
                 OVS_SOURCE_LOCATOR)
#define lflow_add_hint(TABLE, DP, STAGE, PRIORITY, MATCH, ACTIONS, HINT)  \
    lflow_add_at(TABLE, DP, STAGE, PRIORITY, MATCH, ACTIONS, NULL, HINT,  \
                 OVS_SOURCE_LOCATOR)
#define lflow_add_port(TABLE, DP, STAGE, PRIORITY, MATCH, ACTIONS, HINT)  \
    lflow_add_port_at(TABLE, DP, STAGE, PRIORITY, MATCH, ACTIONS, HINT,     \
                      OVS_SOURCE_LOCATOR)
#define lflow_add_dps_hint(TABLE, DPS, STAGE, PRIORITY, MATCH, ACTIONS,  \
                           HINT)                                          \
    lflow_add_dps_at(TABLE, DPS, STAGE, PRIORITY, MATCH, ACTIONS, NULL,   \
                     HINT, OVS_SOURCE_LOCATOR)

/* The SB Logical_Flow rows that exist, for a full sync to reuse by
 * content: those of the replica's copy (right after it started over, the
 * only time it holds them), or those of the table before a recompute,
 * less the UUIDs in 'gone' (deleted by someone else since). */
struct lflow_sb_rows;
struct uuidset;
struct lflow_sb_rows *lflow_sb_rows_from_replica(struct rdb *sb);
struct lflow_sb_rows *lflow_sb_rows_from_table(const struct lflow_table *,
                                               const struct uuidset *gone);
size_t lflow_sb_rows_count(const struct lflow_sb_rows *);
void lflow_sb_rows_destroy(struct lflow_sb_rows *);

/* Writes the differences between 'table' and the SB rows 'existing'
 * (which it uses up), comparing by content.  New rows are written as the
 * server reads the transaction: 'table', the model and 'dp_groups' must
 * not change until it completes.
 *
 * If more than 'max_inserts' rows (0: no limit) would be new, none are
 * written here: they are left to lflow_table_sync_dirty(), which writes
 * them in chunks, and a stock ovsdb-server never has to take a whole
 * large SB in one transaction. */
void lflow_table_sync_sb(struct lflow_table *, const struct ls_model *,
                         struct lflow_sb_rows *existing,
                         struct rdb_txn *sb_txn, struct dp_groups *,
                         size_t max_inserts);

/* Before lflow_table_sync_dirty(): proposes, for each flow touched since
 * the last sync whose row refers to a group, that the group move to the
 * flow's datapaths (dp_groups_propose_move()).  The caller then applies
 * the moves (dp_groups_apply_moves()) with those of the other rows that
 * refer to groups (lb_propose_moves()): a group all of whose rows move
 * the same way is updated in place and the rows need no change. */
void lflow_table_propose_moves(const struct lflow_table *,
                               struct dp_groups *);

/* Writes only the flows touched since the last sync, inserting at most
 * 'max_inserts' new rows (0: no limit), back to front through the
 * pipeline; the others wait for the next sync.  Returns the number of
 * flows written. */
size_t lflow_table_sync_dirty(struct lflow_table *, const struct ls_model *,
                              struct rdb_txn *sb_txn, struct dp_groups *,
                              size_t max_inserts);

/* Puts back the SB Logical_Flow rows someone else inserted, changed or
 * deleted since the last pass (tracked as foreign in 'sb_db'): a row that
 * is not one of 't''s flows is deleted, one that is is written whole
 * again, and a flow whose row was deleted is marked for the next
 * lflow_table_sync_dirty() to insert. */
void lflow_table_repair_sb(struct lflow_table *, struct rdb *sb_db,
                           struct rdb_txn *);

/* The number of flows the last sync left for the next one to insert (to
 * be called right after a sync, before flows are touched again). */
size_t lflow_table_n_unwritten(const struct lflow_table *);

/* Compares the flows of 'a', compiled over the switches of 'ma', with
 * those of 'b', over 'mb' (the two models may number switches
 * differently: they are told apart by NB row).  Two flows differ if one
 * table lacks the other's content (stage, priority, match, actions,
 * controller meter), or if they would not make the same SB row (the
 * switches they are on, stage-hint, source, tags).  Appends a line for
 * each of the first 'max_report' differences to 'out' and returns how
 * many there are. */
size_t lflow_table_diff(const struct lflow_table *a, const struct ls_model *ma,
                        const struct lflow_table *b, const struct ls_model *mb,
                        struct ds *out, size_t max_report);

#endif /* northd/lflow.h */
