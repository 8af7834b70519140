/* Shared pieces of our ovn-nbctl: selective monitoring, row lookup and
 * the command tables of each capability file.
 *
 * Monitoring model.  Every command's prerequisites() says which tables and
 * columns it reads (ovsdb_idl_add_column()) and, if it can, which rows: a
 * command that knows the rows it needs calls nbctl_cond_capable() and then
 * nbctl_cond_*() to describe them as OVSDB monitor conditions.  If every
 * command of an invocation is condition-capable, the conditions are sent to
 * the server and the client downloads only those rows; otherwise every
 * table a command touches is monitored in full.  A command that discovers
 * in run() that it needs more rows (for example the ACLs of the switch it
 * just found) asks for them with nbctl_cond_*() and, when that returns
 * true, returns at once with ctx->try_again set: the main loop waits for
 * the server to acknowledge the new condition and runs all commands
 * again. */
#ifndef NBCTL_H
#define NBCTL_H 1

#include <stdbool.h>
#include "db-ctl-base.h"
#include "lib/ovn-nb-idl.h"

struct ovsdb_datum;
struct smap;

/* Selective monitoring (see above). */
void nbctl_cond_capable(struct ctl_context *);
void nbctl_cond_none(struct ctl_context *,
                     const struct ovsdb_idl_table_class *);
bool nbctl_cond_all(struct ctl_context *,
                    const struct ovsdb_idl_table_class *);
bool nbctl_cond_string(struct ctl_context *,
                       const struct ovsdb_idl_table_class *,
                       const struct ovsdb_idl_column *, const char *value);
bool nbctl_cond_by_name(struct ctl_context *,
                        const struct ovsdb_idl_table_class *,
                        const struct ovsdb_idl_column *name_col,
                        const char *id);
bool nbctl_cond_includes(struct ctl_context *,
                         const struct ovsdb_idl_table_class *,
                         const struct ovsdb_idl_column *set_col,
                         const struct uuid *);
bool nbctl_cond_uuids(struct ctl_context *,
                      const struct ovsdb_idl_table_class *,
                      const struct ovsdb_datum *uuids);
bool nbctl_cond_active(void);

/* Set columns: see the comment on nbctl_set_update(). */
union ovsdb_atom;
void nbctl_set_update(const struct ovsdb_idl_row *,
                      const struct ovsdb_idl_column *,
                      const union ovsdb_atom *key, bool add);
void nbctl_ref_update(const struct ovsdb_idl_row *,
                      const struct ovsdb_idl_column *,
                      const struct ovsdb_idl_row *ref, bool add);

/* Lookups.  Each returns NULL and fills ctx->error when 'must_exist' and
 * nothing (or more than one row) matches. */
const struct nbrec_logical_switch *ls_by_name_or_uuid(
    struct ctl_context *, const char *id, bool must_exist);
const struct nbrec_logical_switch_port *lsp_by_name_or_uuid(
    struct ctl_context *, const char *id, bool must_exist);
const struct nbrec_port_group *pg_by_name_or_uuid(
    struct ctl_context *, const char *id, bool must_exist);
const struct nbrec_logical_router *lr_by_name_or_uuid(
    struct ctl_context *, const char *id, bool must_exist);
const struct nbrec_logical_router_port *lrp_by_name_or_uuid(
    struct ctl_context *, const char *id, bool must_exist);
/* Finds the switch that holds 'lsp', asking the server for it if needed.
 * Returns NULL with ctx->try_again set while waiting, or NULL with
 * ctx->error set if there is none. */
const struct nbrec_logical_switch *lsp_to_ls(
    struct ctl_context *, const struct nbrec_logical_switch_port *);

/* Prerequisite helpers. */
void nbctl_pre_ls(struct ctl_context *, const char *id);
void nbctl_pre_lsp(struct ctl_context *, const char *id);
void nbctl_pre_pg(struct ctl_context *, const char *id);
/* Routers and their ports, in full (router commands are not
 * condition-capable). */
void nbctl_pre_lrp(struct ctl_context *);

/* Routers in "show": 'lr' as stock's "show" prints it. */
void nbctl_print_lr(struct ds *, const struct nbrec_logical_router *);

/* Output. */
void nbctl_print_smap(struct ds *, const struct smap *);
/* The exit status of a run whose commands all succeed (0 unless a command
 * sets it, e.g. "acl-lint" with findings). */
void nbctl_set_exit_status(int status);

/* Capability files. */
extern const struct ctl_command_syntax nbctl_ls_commands[];
extern const struct ctl_command_syntax nbctl_acl_commands[];
extern const struct ctl_command_syntax nbctl_lb_commands[];
extern const struct ctl_command_syntax nbctl_lr_commands[];
extern const struct ctl_command_syntax nbctl_nat_commands[];

/* Checks an ACL match expression with the logical-flow language library,
 * resolving "$name" and "@name" against the NB.  nbctl_pre_match(), called
 * from a command's prerequisites, asks for just the address sets and port
 * groups the match names.  nbctl_check_match() returns NULL if the match
 * is valid (or, with ctx->try_again set, if it must wait for rows),
 * otherwise a malloc'd message. */
void nbctl_pre_match(struct ctl_context *, const char *match);
char *nbctl_check_match(struct ctl_context *, const char *match);

#endif /* utilities/nbctl.h */
