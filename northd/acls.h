/* ACLs: which ACLs apply to which switch (directly or through port
 * groups), how each switch is classified (has ACLs, stateful, tiers), and
 * the pre-ACL, hint, ACL, after-LB ACL and stateful flows they compile to.
 *
 * Verbs follow OVN: allow, allow-related, allow-stateless, drop, reject and
 * pass (with tiers 0..3).  allow-stateless traffic never enters conntrack
 * for ACL purposes, even on a switch with stateful ACLs.
 *
 * The state is kept from one full recompute to the next.  Each ACL owns
 * its flows (lflow.h); NB changes are handed in through acls_handle_*()
 * and friends, which queue the ACLs concerned, and acls_run() re-checks
 * and recompiles just those, plus every ACL of a switch whose
 * classification changed (e.g. its first allow-related ACL). */
#ifndef NORTHD_ACLS_H
#define NORTHD_ACLS_H 1

#include <stdbool.h>
#include <stddef.h>

struct ds;
struct groups;
struct lb_model;
struct lflow_table;
struct ls_datapath;
struct ls_features;
struct ls_model;
struct nb_acl;
struct nb_nb_global;
struct rdb;
struct pg_state;
struct sset;

/* Creates the state for every ACL of the NB, all queued: the first
 * acls_run() compiles them.  'model', 'groups', the NB rows and 'errors'
 * (where validation keeps what it learns and invalid ACLs are reported,
 * acl-check.h) are borrowed; 'dp_cap' bounds datapath indexes. */
struct acl_registry;
struct acls *acls_create(const struct ls_model *, const struct lb_model *,
                         struct groups *, struct rdb *nb_db,
                         const struct nb_nb_global *,
                         const struct ls_features *, size_t dp_cap,
                         struct acl_registry *errors);
void acls_destroy(struct acls *);

/* NB changes. */
void acls_handle_acl(struct acls *, const struct nb_acl *);
void acls_handle_switch(struct acls *, const struct ls_datapath *);
void acls_handle_pg(struct acls *, struct pg_state *);
void acls_pg_span_changed(struct acls *, const struct pg_state *);
void acls_pg_members_changed(struct acls *, const struct pg_state *);
void acls_sets_changed(struct acls *, const struct sset *names);
void acls_pg_deleted(struct acls *, struct pg_state *);
void acls_pg_exists(struct acls *, const char *name, bool exists);
void acls_dp_added(struct acls *, const struct ls_datapath *);
/* Switch 'dp' gained its first load balancer VIP or lost its last: its
 * ACLs are compiled again (the caller rebuilds its own flows). */
void acls_dp_set_lb(struct acls *, const struct ls_datapath *, bool has_lb);

/* Re-evaluates and recompiles what the changes above queued.  Sets in
 * 'dp_dirty' (a bitmap over datapath indexes) the datapaths whose own
 * flows (acls_build_dp_lflows()) must be rebuilt. */
void acls_run(struct acls *, struct lflow_table *, unsigned long *dp_dirty);

/* Adds the ACL flows of 'dp' that belong to the switch rather than to one
 * ACL (pre-ACL, hints, stage defaults, stateful commits). */
void acls_build_dp_lflows(const struct acls *, struct lflow_table *,
                          const struct ls_datapath *);

/* Whether the egress ACL stage of 'dp' commits connections (allow-related
 * ACLs or load balancer VIPs apply there). */
bool acls_dp_stateful(const struct acls *, const struct ls_datapath *);
/* Whether 'dp' has allow-related ACLs (load balancers aside). */
bool acls_dp_has_stateful_acls(const struct acls *,
                               const struct ls_datapath *);
/* Whether switch 'dp' has ACLs or load balancer VIPs (its ACL stages do
 * more than "next;"). */
bool acls_dp_has_acls_or_lb(const struct acls *, const struct ls_datapath *);

/* Appends a summary (ACLs compiled, skipped) to 'out'; 'acls' may be
 * NULL. */
void acls_format_stats(const struct acls *, struct ds *out);

#endif /* northd/acls.h */
