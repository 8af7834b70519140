/* Compile-time validation of ACL matches, and feedback about invalid ACLs.
 *
 * Every ACL match is parsed and type-checked with the logical language
 * library (lib/expr.h) against the NB's address sets and port groups before
 * it is compiled, so that no flow ovn-controller would reject reaches the
 * SB.  What an invalid ACL does to traffic is decided by NB_Global
 * options:acl_invalid_policy: by default it is left out; "fail-closed"
 * turns an invalid drop or reject ACL into a drop of all traffic at its
 * priority and direction (for a port group's ACL, of the group's ports).
 *
 * Invalid ACLs are reported in the log (once per new or changed error),
 * by the unixctl command "acl/errors", and in the NB table ACL_Error,
 * which only northd writes (no CMS-owned column is ever touched).  An NB
 * whose schema has no ACL_Error (7.0.0, OVN 23.03's own) gets none of
 * those writes (lib/rdb.h), and "acl/errors" says so. */
#ifndef NORTHD_ACL_CHECK_H
#define NORTHD_ACL_CHECK_H 1

#include <stdbool.h>
#include <stddef.h>
#include "openvswitch/compiler.h"

struct ds;
struct ls_model;
struct nb_acl;
struct rdb;
struct rdb_txn;

/* What validation and error reporting keep across passes: the keys of
 * matches found valid, and the invalid ACLs of the last pass.  Each northd
 * owns one; a build that must leave it alone (northd's check of its
 * incremental passes) uses another, 'quiet' (it logs nothing).  The
 * symbol table the matches are checked against, which never changes, is
 * shared by the process (acl_symtab_destroy() frees it at exit). */
struct acl_registry *acl_registry_create(bool quiet);
void acl_registry_destroy(struct acl_registry *);
void acl_symtab_destroy(void);

/* The checker, from one full recompute to the next, over the address sets
 * the SB will get (those of 'groups', borrowed until acl_check_destroy())
 * and the NB's port groups.  A match is parsed only if
 * no valid match had its validation key (expr_validation_key(): the match
 * with what validation reads of each set it names in place of the name),
 * so a pass parses a few matches of each shape, and keys found valid are
 * kept across passes, in the registry. */
struct acl_check;

struct groups;
struct acl_registry;
struct acl_check *acl_check_create(struct acl_registry *,
                                   const struct groups *groups,
                                   struct rdb *nb_db);
void acl_check_destroy(struct acl_check *);

/* Address set 'name' changed content, or port group 'name' appeared or
 * went away: later checks must see it. */
void acl_check_set_changed(struct acl_check *, const char *name);
void acl_check_set_pg(struct acl_check *, const char *name, bool exists);

/* Returns NULL if ACL match 'match' is valid, otherwise the reason (valid
 * until the next call or acl_check_destroy()).  'as_names' and 'pg_names'
 * are the address sets and port groups the match names
 * (groups_scan_refs()). */
struct sset;
const char *acl_check_match(struct acl_check *, const char *match,
                            const struct sset *as_names,
                            const struct sset *pg_names);

/* Returns NULL if 'match', which names no address set or port group, is
 * valid for ovn-controller 23.03 as it is (not wrapped in anything, as a
 * QoS rule's), otherwise the reason, which the caller frees. */
char *acl_check_plain_match(const char *match) OVS_WARN_UNUSED_RESULT;

/* Error registry, across passes.  Each pass reports the invalid ACLs it
 * met between acl_errors_begin() and acl_errors_end(); the latter logs new
 * errors and brings NB ACL_Error in line (when 'nb_txn' is open). */
void acl_errors_begin(struct acl_registry *);
void acl_errors_report(struct acl_registry *, const struct nb_acl *,
                       const char *match, const char *owner,
                       const char *error, bool dropped);
void acl_errors_end(struct acl_registry *, struct rdb *nb_db,
                    struct rdb_txn *nb_txn, bool full);

/* An incremental pass starts from the errors of the last pass and forgets
 * those of the ACLs it compiles again. */
struct uuid;
void acl_errors_begin_incremental(struct acl_registry *);
void acl_errors_forget(struct acl_registry *, const struct uuid *);
/* Lists the invalid ACLs, and notes that 'nb_db' has no ACL_Error table
 * if it has none. */
void acl_errors_format(const struct acl_registry *, struct ds *,
                       const struct rdb *nb_db);

/* Appends to 'out' (at most 'max_report' lines) how the errors of the
 * last passes of 'a' and 'b' differ, and returns the number of ACLs whose
 * error differs. */
size_t acl_errors_diff(const struct acl_registry *a,
                       const struct acl_registry *b, struct ds *out,
                       size_t max_report);

#endif /* northd/acl-check.h */
