/* ACLs: which ACLs apply to which switch (directly or through port
 * groups), how each switch is classified (has ACLs, stateful), and the
 * pre-ACL, hint, ACL, after-LB ACL and stateful flows they compile to.
 *
 * Verbs follow OVN: allow, allow-related, allow-stateless, drop, reject and
 * pass (with tiers 0..3).  allow-stateless traffic never enters conntrack
 * for ACL purposes, even on a switch with stateful ACLs. */
#ifndef NORTHD_ACLS_H
#define NORTHD_ACLS_H 1

struct lb_model;
struct lflow_table;
struct ls_model;
struct nbrec_nb_global;
struct ovsdb_idl;
struct ds;
struct shash;
struct sset;

/* Adds the flows of every switch's ACLs to the table.  'addr_sets' are the
 * address sets the SB will have (see groups_build_address_sets()), which
 * matches are checked against.  'dp_pg_refs' is an array, indexed by
 * datapath, that receives the names of the port groups those ACLs refer
 * to. */
void acls_build_lflows(struct lflow_table *, const struct ls_model *,
                       const struct lb_model *, struct ovsdb_idl *nb_idl,
                       const struct nbrec_nb_global *,
                       const struct shash *addr_sets,
                       struct sset *dp_pg_refs);

/* Appends a summary of the last compile (ACLs compiled, skipped) to 'out'. */
void acls_format_stats(struct ds *out);

#endif /* northd/acls.h */
