/* ovn-nbctl: the operator CLI for the Northbound database.
 *
 * Command-line compatible with OVN's ovn-nbctl for the logical-switch
 * commands, stricter about what it writes, and frugal about what it reads:
 * see nbctl.h for the selective monitoring model.  This file holds the
 * driver (options, main loop, --wait), selective monitoring, row lookup and
 * the init and sync commands; "show", switches and ports live in
 * nbctl-ls.c, ACLs, port groups and address sets in nbctl-acl.c, load
 * balancers, meters and CoPP in nbctl-lb.c, routers, their ports, routes
 * and policies in nbctl-lr.c, NAT in nbctl-nat.c. */
#include <config.h>

#include "utilities/nbctl.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command-line.h"
#include "db-ctl-base.h"
#include "fatal-signal.h"
#include "lib/lsp-addresses.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"
#include "openvswitch/poll-loop.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "ovsdb-data.h"
#include "ovsdb-idl.h"
#include "process.h"
#include "smap.h"
#include "sset.h"
#include "svec.h"
#include "stream-ssl.h"
#include "stream.h"
#include "table.h"
#include "timeval.h"
#include "util.h"
#include "uuid.h"

VLOG_DEFINE_THIS_MODULE(nbctl);

/* --db. */
static const char *db;

/* --oneline, --dry-run. */
static bool oneline;
static bool dry_run;

/* --wait: what to wait for after committing. */
enum nbctl_wait_type {
    NBCTL_WAIT_NONE,
    NBCTL_WAIT_SB,              /* NB_Global.sb_cfg. */
    NBCTL_WAIT_HV,              /* NB_Global.hv_cfg. */
};
static enum nbctl_wait_type wait_type = NBCTL_WAIT_NONE;
static bool print_wait_time;

/* Set by "sync": bump nb_cfg even if nothing else changes. */
static bool force_wait;

/* Set by a command whose result is an exit status ("acl-lint"). */
static int exit_status;

/* -t, --timeout. */
static unsigned int timeout;

static int leader_only = true;
static int shuffle_remotes = true;

static struct table_style table_style = TABLE_STYLE_DEFAULT;

/* The IDL and the transaction in progress, for nbctl_exit(). */
static struct ovsdb_idl *the_idl;
static struct ovsdb_idl_txn *the_idl_txn;

static void nbctl_cmd_init(void);
static void parse_options(int argc, char *argv[], struct shash *local);
static void run_prerequisites(struct ctl_command *, size_t n,
                              struct ovsdb_idl *);
static bool do_nbctl(const char *args, struct ctl_command *, size_t n,
                     struct ovsdb_idl *);
OVS_NO_RETURN static void usage(void);

/* ------------------------------------------------------------------------
 * Selective monitoring.
 * --------------------------------------------------------------------- */

/* What we monitor of one table: everything, or the rows that satisfy any of
 * 'cond''s clauses (none at all if it has none). */
struct nbctl_table_cond {
    const struct ovsdb_idl_table_class *table;
    struct ovsdb_idl_condition cond;
    struct sset keys;           /* Clauses already in 'cond', to dedupe. */
    bool all;
};

static struct shash table_conds = SHASH_INITIALIZER(&table_conds);

/* True while every command seen by run_prerequisites() so far declared
 * itself condition-capable; decides whether conditions are sent at all. */
static bool cond_active;
static bool cmd_declared_capable;

/* Condition seqno we must see acknowledged before (re)running commands. */
static unsigned int cond_seqno_wanted;

/* A pseudo-column for conditions on a row's UUID. */
static const struct ovsdb_idl_column uuid_column = {
    .name = "_uuid",
    .type = {
        .key = OVSDB_BASE_UUID_INIT,
        .value = OVSDB_BASE_VOID_INIT,
        .n_min = 1,
        .n_max = 1,
    },
};

bool
nbctl_cond_active(void)
{
    return cond_active;
}

void
nbctl_cond_capable(struct ctl_context *ctx OVS_UNUSED)
{
    cmd_declared_capable = true;
}

static struct nbctl_table_cond *
table_cond_get(const struct ovsdb_idl_table_class *table)
{
    struct nbctl_table_cond *tc = shash_find_data(&table_conds, table->name);
    if (!tc) {
        tc = xzalloc(sizeof *tc);
        tc->table = table;
        ovsdb_idl_condition_init(&tc->cond);
        sset_init(&tc->keys);
        shash_add(&table_conds, table->name, tc);
    }
    return tc;
}

/* Sends 'tc''s condition to the server, if conditions are in use and the
 * IDL is running already. */
static void
table_cond_push(struct ctl_context *ctx, struct nbctl_table_cond *tc)
{
    if (cond_active && ctx->txn) {
        if (tc->all) {
            ovsdb_idl_condition_clear(&tc->cond);
            ovsdb_idl_condition_add_clause_true(&tc->cond);
        }
        unsigned int seqno = ovsdb_idl_set_condition(ctx->idl, tc->table,
                                                      &tc->cond);
        cond_seqno_wanted = MAX(cond_seqno_wanted, seqno);
    }
}

/* Makes sure 'table' has an entry, so that it is monitored with an empty
 * condition (no rows) unless something else asks for rows. */
void
nbctl_cond_none(struct ctl_context *ctx OVS_UNUSED,
                const struct ovsdb_idl_table_class *table)
{
    table_cond_get(table);
}

/* Asks for every row of 'table'.  Returns true if that is new and the
 * caller, in run(), must wait for it (ctx->try_again is then set). */
bool
nbctl_cond_all(struct ctl_context *ctx,
               const struct ovsdb_idl_table_class *table)
{
    struct nbctl_table_cond *tc = table_cond_get(table);
    if (tc->all) {
        return false;
    }
    tc->all = true;
    if (cond_active && ctx->txn) {
        table_cond_push(ctx, tc);
        ctx->try_again = true;
        return true;
    }
    return false;
}

static bool
cond_add(struct ctl_context *ctx, const struct ovsdb_idl_table_class *table,
         const struct ovsdb_idl_column *column, enum ovsdb_function function,
         const struct ovsdb_datum *arg, const char *key)
{
    struct nbctl_table_cond *tc = table_cond_get(table);
    if (tc->all || !sset_add(&tc->keys, key)) {
        return false;
    }
    ovsdb_idl_condition_add_clause(&tc->cond, function, column, arg);
    if (cond_active && ctx->txn) {
        table_cond_push(ctx, tc);
        ctx->try_again = true;
        return true;
    }
    return false;
}

/* Asks for the rows of 'table' whose string 'column' equals 'value'. */
bool
nbctl_cond_string(struct ctl_context *ctx,
                  const struct ovsdb_idl_table_class *table,
                  const struct ovsdb_idl_column *column, const char *value)
{
    /* The clause keeps a reference to the datum, so it must be on the
     * heap and released with ovsdb_datum_destroy(). */
    struct ovsdb_datum datum = { .n = 1 };
    datum.keys = xmalloc(sizeof *datum.keys);
    datum.keys[0].s = ovsdb_atom_string_create(CONST_CAST(char *, value));

    char *key = xasprintf("%s=%s", column->name, value);
    bool added = cond_add(ctx, table, column, OVSDB_F_EQ, &datum, key);
    free(key);
    ovsdb_datum_destroy(&datum, &column->type);
    return added;
}

static bool
cond_uuid(struct ctl_context *ctx, const struct ovsdb_idl_table_class *table,
          const struct ovsdb_idl_column *column, enum ovsdb_function function,
          const struct uuid *uuid)
{
    struct ovsdb_datum datum = { .n = 1 };
    datum.keys = xmalloc(sizeof *datum.keys);
    datum.keys[0].uuid = *uuid;
    char *key = xasprintf("%s%d" UUID_FMT, column->name, (int) function,
                          UUID_ARGS(uuid));
    bool added = cond_add(ctx, table, column, function, &datum, key);
    free(key);
    ovsdb_datum_destroy(&datum, &column->type);
    return added;
}

/* Asks for the rows of 'table' named or identified by 'id'. */
bool
nbctl_cond_by_name(struct ctl_context *ctx,
                   const struct ovsdb_idl_table_class *table,
                   const struct ovsdb_idl_column *name_col, const char *id)
{
    struct uuid uuid;
    bool added = nbctl_cond_string(ctx, table, name_col, id);
    if (uuid_from_string(&uuid, id)) {
        added = cond_uuid(ctx, table, &uuid_column, OVSDB_F_EQ, &uuid)
                || added;
    }
    return added;
}

/* Asks for the rows of 'table' whose set 'set_col' includes 'uuid'. */
bool
nbctl_cond_includes(struct ctl_context *ctx,
                    const struct ovsdb_idl_table_class *table,
                    const struct ovsdb_idl_column *set_col,
                    const struct uuid *uuid)
{
    return cond_uuid(ctx, table, set_col, OVSDB_F_INCLUDES, uuid);
}

/* Asks for the rows of 'table' with the UUIDs in 'uuids'.  Past a few
 * hundred rows one clause per row costs the server more than sending the
 * table, so then it asks for the whole table. */
bool
nbctl_cond_uuids(struct ctl_context *ctx,
                 const struct ovsdb_idl_table_class *table,
                 const struct ovsdb_datum *uuids)
{
    if (uuids->n > 500) {
        return nbctl_cond_all(ctx, table);
    }

    bool added = false;
    for (size_t i = 0; i < uuids->n; i++) {
        added = cond_uuid(ctx, table, &uuid_column, OVSDB_F_EQ,
                          &uuids->keys[i].uuid) || added;
    }
    return added;
}

/* Sends the conditions gathered by the prerequisites, if all commands could
 * describe what they need. */
static void
cond_apply(struct ovsdb_idl *idl)
{
    struct shash_node *node;

    if (!cond_active) {
        return;
    }
    SHASH_FOR_EACH (node, &table_conds) {
        struct nbctl_table_cond *tc = node->data;
        if (!tc->all) {
            /* The IDL is not connected yet, so these go out with the first
             * monitor request and are never acknowledged separately: no
             * seqno to wait for. */
            ovsdb_idl_set_condition(idl, tc->table, &tc->cond);
        }
    }
}

static void
cond_destroy(void)
{
    struct shash_node *node;

    SHASH_FOR_EACH (node, &table_conds) {
        struct nbctl_table_cond *tc = node->data;
        ovsdb_idl_condition_destroy(&tc->cond);
        sset_destroy(&tc->keys);
        free(tc);
    }
    shash_destroy(&table_conds);
}

/* Adds ('add') or removes 'key' in the set column 'column' of 'row'.
 *
 * Under conditional monitoring the replica may hold only part of a set of
 * references (rows outside the conditions drop out), so the change goes to
 * the server as a mutation.  Mutations stay invisible to the replica until
 * the commit, though, so with several commands in one invocation (which
 * then monitor in full) the column is rewritten instead, after verifying
 * that nobody else changed it, and later commands see the change. */
void
nbctl_set_update(const struct ovsdb_idl_row *row,
                 const struct ovsdb_idl_column *column,
                 const union ovsdb_atom *key, bool add)
{
    const struct ovsdb_type *type = &column->type;

    if (cond_active) {
        /* The IDL takes ownership of the datum itself. */
        struct ovsdb_datum *one = xzalloc(sizeof *one);
        one->n = 1;
        one->keys = xmalloc(sizeof *one->keys);
        ovsdb_atom_clone(&one->keys[0], key, type->key.type);
        if (add) {
            ovsdb_idl_txn_write_partial_set(row, column, one);
        } else {
            ovsdb_idl_txn_delete_partial_set(row, column, one);
        }
        return;
    }

    const struct ovsdb_datum *old = ovsdb_idl_read(row, column);
    unsigned int pos;
    if (ovsdb_datum_find_key(old, key, type->key.type, &pos) == add) {
        return;
    }

    struct ovsdb_datum new;
    ovsdb_datum_clone(&new, old);
    ovsdb_datum_unshare(&new, type);
    if (add) {
        ovsdb_datum_add_unsafe(&new, key, NULL, type, NULL);
    } else {
        ovsdb_datum_remove_unsafe(&new, pos, type);
    }
    ovsdb_datum_sort_unique(&new, type);
    ovsdb_idl_txn_verify(row, column);
    ovsdb_idl_txn_write(row, column, &new);
}

void
nbctl_ref_update(const struct ovsdb_idl_row *row,
                 const struct ovsdb_idl_column *column,
                 const struct ovsdb_idl_row *ref, bool add)
{
    union ovsdb_atom atom = { .uuid = ref->uuid };
    nbctl_set_update(row, column, &atom, add);
}

/* ------------------------------------------------------------------------
 * Lookups.
 * --------------------------------------------------------------------- */

void
nbctl_pre_ls(struct ctl_context *ctx, const char *id)
{
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_name);
    nbctl_cond_by_name(ctx, &nbrec_table_logical_switch,
                       &nbrec_logical_switch_col_name, id);
}

void
nbctl_pre_lsp(struct ctl_context *ctx, const char *id)
{
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_port_col_name);
    nbctl_cond_by_name(ctx, &nbrec_table_logical_switch_port,
                       &nbrec_logical_switch_port_col_name, id);
}

void
nbctl_pre_pg(struct ctl_context *ctx, const char *id)
{
    ovsdb_idl_add_column(ctx->idl, &nbrec_port_group_col_name);
    nbctl_cond_by_name(ctx, &nbrec_table_port_group,
                       &nbrec_port_group_col_name, id);
}

const struct nbrec_logical_switch *
ls_by_name_or_uuid(struct ctl_context *ctx, const char *id, bool must_exist)
{
    const struct nbrec_logical_switch *ls = NULL;
    struct uuid uuid;
    bool is_uuid = uuid_from_string(&uuid, id);

    if (is_uuid) {
        ls = nbrec_logical_switch_get_for_uuid(ctx->idl, &uuid);
    }
    if (!ls) {
        const struct nbrec_logical_switch *iter;
        NBREC_LOGICAL_SWITCH_FOR_EACH (iter, ctx->idl) {
            if (!strcmp(iter->name, id)) {
                if (ls) {
                    ctl_error(ctx, "Multiple logical switches named '%s'.  "
                              "Use a UUID.", id);
                    return NULL;
                }
                ls = iter;
            }
        }
    }
    if (!ls && must_exist) {
        ctl_error(ctx, "%s: switch %s not found", id,
                  is_uuid ? "UUID" : "name");
    }
    return ls;
}

const struct nbrec_logical_switch_port *
lsp_by_name_or_uuid(struct ctl_context *ctx, const char *id, bool must_exist)
{
    const struct nbrec_logical_switch_port *lsp = NULL;
    struct uuid uuid;
    bool is_uuid = uuid_from_string(&uuid, id);

    if (is_uuid) {
        lsp = nbrec_logical_switch_port_get_for_uuid(ctx->idl, &uuid);
    }
    if (!lsp) {
        const struct nbrec_logical_switch_port *iter;
        NBREC_LOGICAL_SWITCH_PORT_FOR_EACH (iter, ctx->idl) {
            if (!strcmp(iter->name, id)) {
                lsp = iter;
                break;
            }
        }
    }
    if (!lsp && must_exist) {
        ctl_error(ctx, "%s: port %s not found", id,
                  is_uuid ? "UUID" : "name");
    }
    return lsp;
}

const struct nbrec_port_group *
pg_by_name_or_uuid(struct ctl_context *ctx, const char *id, bool must_exist)
{
    const struct nbrec_port_group *pg = NULL;
    struct uuid uuid;
    bool is_uuid = uuid_from_string(&uuid, id);

    if (is_uuid) {
        pg = nbrec_port_group_get_for_uuid(ctx->idl, &uuid);
    }
    if (!pg) {
        const struct nbrec_port_group *iter;
        NBREC_PORT_GROUP_FOR_EACH (iter, ctx->idl) {
            if (!strcmp(iter->name, id)) {
                pg = iter;
                break;
            }
        }
    }
    if (!pg && must_exist) {
        ctl_error(ctx, "%s: port group %s not found", id,
                  is_uuid ? "UUID" : "name");
    }
    return pg;
}

const struct nbrec_logical_switch *
lsp_to_ls(struct ctl_context *ctx,
          const struct nbrec_logical_switch_port *lsp)
{
    if (nbctl_cond_includes(ctx, &nbrec_table_logical_switch,
                            &nbrec_logical_switch_col_ports,
                            &lsp->header_.uuid)) {
        return NULL;
    }

    const struct nbrec_logical_switch *ls;
    NBREC_LOGICAL_SWITCH_FOR_EACH (ls, ctx->idl) {
        for (size_t i = 0; i < ls->n_ports; i++) {
            if (ls->ports[i] == lsp) {
                return ls;
            }
        }
    }
    ctl_error(ctx, "logical port %s is not part of any logical switch",
              lsp->name);
    return NULL;
}

/* ------------------------------------------------------------------------
 * Output helpers.
 * --------------------------------------------------------------------- */

/* Prints 'smap' as "key=value" lines, sorted by key. */
void
nbctl_print_smap(struct ds *s, const struct smap *smap)
{
    const struct smap_node **nodes = smap_sort(smap);
    for (size_t i = 0; i < smap_count(smap); i++) {
        ds_put_format(s, "%s=%s\n", nodes[i]->key, nodes[i]->value);
    }
    free(nodes);
}

/* ------------------------------------------------------------------------
 * General commands.
 * --------------------------------------------------------------------- */

static void
pre_nothing(struct ctl_context *ctx)
{
    nbctl_cond_capable(ctx);
}

static void
cmd_init(struct ctl_context *ctx OVS_UNUSED)
{
    /* NB_Global is created, if missing, by every transaction. */
}

void
nbctl_set_exit_status(int status)
{
    exit_status = status;
}

static void
cmd_sync(struct ctl_context *ctx OVS_UNUSED)
{
    force_wait = true;
}

/* ------------------------------------------------------------------------
 * Driver.
 * --------------------------------------------------------------------- */

static void
nbctl_exit(int status)
{
    if (the_idl_txn) {
        ovsdb_idl_txn_abort(the_idl_txn);
        ovsdb_idl_txn_destroy(the_idl_txn);
    }
    ovsdb_idl_destroy(the_idl);
    exit(status);
}

/* How generic database commands name rows, as OVN's ovn-nbctl does. */
static const struct ctl_table_class tables[NBREC_N_TABLES] = {
    [NBREC_TABLE_ACL].row_ids[0] = {&nbrec_acl_col_name, NULL, NULL},
    [NBREC_TABLE_ADDRESS_SET].row_ids[0]
    = {&nbrec_address_set_col_name, NULL, NULL},
    [NBREC_TABLE_CHASSIS_TEMPLATE_VAR].row_ids[0]
    = {&nbrec_chassis_template_var_col_chassis, NULL, NULL},
    [NBREC_TABLE_CONNECTION].row_ids[0]
    = {&nbrec_connection_col_target, NULL, NULL},
    [NBREC_TABLE_DHCP_OPTIONS].row_ids = {
        {&nbrec_logical_switch_port_col_name, NULL,
         &nbrec_logical_switch_port_col_dhcpv4_options},
        {&nbrec_logical_switch_port_col_external_ids, "neutron:port_name",
         &nbrec_logical_switch_port_col_dhcpv4_options},
        {&nbrec_logical_switch_port_col_name, NULL,
         &nbrec_logical_switch_port_col_dhcpv6_options},
        {&nbrec_logical_switch_port_col_external_ids, "neutron:port_name",
         &nbrec_logical_switch_port_col_dhcpv6_options},
    },
    [NBREC_TABLE_FORWARDING_GROUP].row_ids[0]
    = {&nbrec_forwarding_group_col_name, NULL, NULL},
    [NBREC_TABLE_HA_CHASSIS].row_ids[0]
    = {&nbrec_ha_chassis_col_chassis_name, NULL, NULL},
    [NBREC_TABLE_HA_CHASSIS_GROUP].row_ids[0]
    = {&nbrec_ha_chassis_group_col_name, NULL, NULL},
    [NBREC_TABLE_LOAD_BALANCER].row_ids[0]
    = {&nbrec_load_balancer_col_name, NULL, NULL},
    [NBREC_TABLE_LOAD_BALANCER_GROUP].row_ids[0]
    = {&nbrec_load_balancer_group_col_name, NULL, NULL},
    [NBREC_TABLE_LOAD_BALANCER_HEALTH_CHECK].row_ids[0]
    = {&nbrec_load_balancer_health_check_col_vip, NULL, NULL},
    [NBREC_TABLE_LOGICAL_ROUTER].row_ids = {
        {&nbrec_logical_router_col_name, NULL, NULL},
        {&nbrec_logical_router_col_external_ids, "neutron:router_name",
         NULL},
    },
    [NBREC_TABLE_LOGICAL_ROUTER_PORT].row_ids[0]
    = {&nbrec_logical_router_port_col_name, NULL, NULL},
    [NBREC_TABLE_LOGICAL_SWITCH].row_ids = {
        {&nbrec_logical_switch_col_name, NULL, NULL},
        {&nbrec_logical_switch_col_external_ids, "neutron:network_name",
         NULL},
    },
    [NBREC_TABLE_LOGICAL_SWITCH_PORT].row_ids = {
        {&nbrec_logical_switch_port_col_name, NULL, NULL},
        {&nbrec_logical_switch_port_col_external_ids, "neutron:port_name",
         NULL},
    },
    [NBREC_TABLE_METER].row_ids[0] = {&nbrec_meter_col_name, NULL, NULL},
    [NBREC_TABLE_NAT].row_ids[0] = {&nbrec_nat_col_external_ip, NULL, NULL},
    [NBREC_TABLE_NB_GLOBAL].row_ids[0] = {NULL, NULL, NULL},
    [NBREC_TABLE_PORT_GROUP].row_ids[0]
    = {&nbrec_port_group_col_name, NULL, NULL},
    [NBREC_TABLE_SSL].row_ids[0] = {NULL, NULL, NULL},
};

static const struct ctl_command_syntax nbctl_commands[] = {
    { "init", 0, 0, "", pre_nothing, cmd_init, NULL, "", RW },
    { "sync", 0, 0, "", pre_nothing, cmd_sync, NULL, "", RO },
    { NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, RO },
};

static void
nbctl_cmd_init(void)
{
    ctl_init(&nbrec_idl_class, nbrec_table_classes, tables, NULL,
             nbctl_exit);
    ctl_register_commands(nbctl_commands);
    ctl_register_commands(nbctl_ls_commands);
    ctl_register_commands(nbctl_acl_commands);
    ctl_register_commands(nbctl_lb_commands);
    ctl_register_commands(nbctl_lr_commands);
    ctl_register_commands(nbctl_nat_commands);
}

static char *
default_nb_db(void)
{
    const char *env = getenv("OVN_NB_DB");
    if (env && env[0]) {
        return xstrdup(env);
    }
    /* As stock's: the NB server's socket in OVN's run directory. */
    const char *rundir = getenv("OVN_RUNDIR");
    return xasprintf("unix:%s/ovnnb_db.sock",
                     rundir && rundir[0] ? rundir : "/var/run/ovn");
}

static void
parse_options(int argc, char *argv[], struct shash *local_options)
{
    enum {
        OPT_DB = UCHAR_MAX + 1,
        OPT_NO_WAIT,
        OPT_WAIT,
        OPT_PRINT_WAIT_TIME,
        OPT_DRY_RUN,
        OPT_ONELINE,
        OPT_LOCAL,
        OPT_COMMANDS,
        OPT_OPTIONS,
        OPT_BOOTSTRAP_CA_CERT,
        VLOG_OPTION_ENUMS,
        TABLE_OPTION_ENUMS,
        SSL_OPTION_ENUMS,
    };
    static const struct option global_long_options[] = {
        {"db", required_argument, NULL, OPT_DB},
        {"no-wait", no_argument, NULL, OPT_NO_WAIT},
        {"wait", required_argument, NULL, OPT_WAIT},
        {"print-wait-time", no_argument, NULL, OPT_PRINT_WAIT_TIME},
        {"dry-run", no_argument, NULL, OPT_DRY_RUN},
        {"oneline", no_argument, NULL, OPT_ONELINE},
        {"timeout", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},
        {"commands", no_argument, NULL, OPT_COMMANDS},
        {"options", no_argument, NULL, OPT_OPTIONS},
        {"leader-only", no_argument, &leader_only, true},
        {"no-leader-only", no_argument, &leader_only, false},
        {"shuffle-remotes", no_argument, &shuffle_remotes, true},
        {"no-shuffle-remotes", no_argument, &shuffle_remotes, false},
        {"version", no_argument, NULL, 'V'},
        VLOG_LONG_OPTIONS,
        TABLE_LONG_OPTIONS,
        STREAM_SSL_LONG_OPTIONS,
        {"bootstrap-ca-cert", required_argument, NULL,
         OPT_BOOTSTRAP_CA_CERT},
        {NULL, 0, NULL, 0},
    };
    const int n_global_long_options = ARRAY_SIZE(global_long_options) - 1;

    char *tmp = ovs_cmdl_long_options_to_short_options(global_long_options);
    char *short_options = xasprintf("+%s", tmp);
    free(tmp);

    /* Global options first, then every command's own options, so that
     * "--may-exist ls-add" parses in one getopt pass. */
    struct option *options = xmemdup(global_long_options,
                                     sizeof global_long_options);
    size_t allocated_options = ARRAY_SIZE(global_long_options);
    size_t n_options = n_global_long_options;
    ctl_add_cmd_options(&options, &n_options, &allocated_options, OPT_LOCAL);

    for (;;) {
        int idx;
        int c = getopt_long(argc, argv, short_options, options, &idx);
        if (c == -1) {
            break;
        }

        switch (c) {
        case OPT_DB:
            db = optarg;
            break;

        case OPT_NO_WAIT:
            wait_type = NBCTL_WAIT_NONE;
            break;

        case OPT_WAIT:
            if (!strcmp(optarg, "none")) {
                wait_type = NBCTL_WAIT_NONE;
            } else if (!strcmp(optarg, "sb")) {
                wait_type = NBCTL_WAIT_SB;
            } else if (!strcmp(optarg, "hv")) {
                wait_type = NBCTL_WAIT_HV;
            } else {
                ctl_fatal("argument to --wait must be "
                          "\"none\", \"sb\", or \"hv\"");
            }
            break;

        case OPT_PRINT_WAIT_TIME:
            print_wait_time = true;
            break;

        case OPT_DRY_RUN:
            dry_run = true;
            break;

        case OPT_ONELINE:
            oneline = true;
            break;

        case OPT_LOCAL:
            if (shash_find(local_options, options[idx].name)) {
                ctl_fatal("'%s' option specified multiple times",
                          options[idx].name);
            }
            shash_add_nocopy(local_options,
                             xasprintf("--%s", options[idx].name),
                             nullable_xstrdup(optarg));
            break;

        case 'h':
            usage();

        case OPT_COMMANDS:
            ctl_print_commands();
            /* fall through */

        case OPT_OPTIONS:
            ctl_print_options(global_long_options);
            /* fall through */

        case 'V':
            printf("%s %s\nOpen vSwitch Library %s\nDB Schema %s\n",
                   program_name, LSN_VERSION, VERSION,
                   nbrec_get_db_version());
            exit(EXIT_SUCCESS);

        case 't':
            if (!str_to_uint(optarg, 10, &timeout) || !timeout) {
                ctl_fatal("value %s on -t or --timeout is invalid", optarg);
            }
            break;

        VLOG_OPTION_HANDLERS
        TABLE_OPTION_HANDLERS(&table_style)
        STREAM_SSL_OPTION_HANDLERS

        case OPT_BOOTSTRAP_CA_CERT:
            stream_ssl_set_ca_cert_file(optarg, true);
            break;

        case '?':
            exit(EXIT_FAILURE);

        case 0:
            break;

        default:
            abort();
        }
    }
    free(short_options);

    if (!db) {
        db = default_nb_db();
    }

    for (size_t i = n_global_long_options; options[i].name; i++) {
        free(CONST_CAST(char *, options[i].name));
    }
    free(options);
}

static void
usage(void)
{
    char *default_db = default_nb_db();
    printf("\
%s: OVN northbound DB management utility\n\
usage: %s [OPTIONS] COMMAND [ARG...]\n\
\n\
General commands:\n\
  init                      initialize the database\n\
  show                      print overview of database contents\n\
  show SWITCH               print overview of database contents for SWITCH\n\
  show ROUTER               print overview of database contents for ROUTER\n\
\n\
Logical switch commands:\n\
  ls-add [SWITCH]           create a logical switch named SWITCH\n\
  ls-del SWITCH             delete SWITCH and all its ports\n\
  ls-list                   print the names of all logical switches\n\
\n\
ACL commands:\n\
  [--type={switch | port-group}] [--log] [--severity=SEVERITY] [--name=NAME]\n\
  [--meter=METER] [--label=LABEL] [--tier=TIER] [--apply-after-lb]\n\
  [--may-exist]\n\
  acl-add {SWITCH | PORTGROUP} DIRECTION PRIORITY MATCH ACTION\n\
                            add an ACL to SWITCH/PORTGROUP\n\
  [--type={switch | port-group}] [--tier=TIER]\n\
  acl-del {SWITCH | PORTGROUP} [DIRECTION [PRIORITY MATCH]]\n\
                            remove ACLs from SWITCH/PORTGROUP\n\
  [--type={switch | port-group}]\n\
  acl-list {SWITCH | PORTGROUP}\n\
                            print ACLs for SWITCH/PORTGROUP\n\
  [--type={switch | port-group}]\n\
  acl-errors [SWITCH | PORTGROUP]\n\
                            print ACLs northd found invalid, and why\n\
  acl-lint [SWITCH | PORTGROUP]\n\
                            lint ACLs: shadowed, conflicting, missing\n\
                            meters and sets, costly; exit 2 if any\n\
\n\
Meter commands:\n\
  [--fair] [--may-exist]\n\
  meter-add NAME ACTION RATE UNIT [BURST]\n\
                            add a meter\n\
  meter-del [NAME]          remove meters\n\
  meter-list                print meters\n\
\n\
Logical switch port commands:\n\
  lsp-add SWITCH PORT       add logical port PORT on SWITCH\n\
  lsp-add SWITCH PORT PARENT TAG\n\
                            add logical port PORT on SWITCH with PARENT\n\
                            on TAG\n\
  lsp-del PORT              delete PORT from its attached switch\n\
  lsp-list SWITCH           print the names of all logical ports on SWITCH\n\
  lsp-get-parent PORT       get the parent of PORT if set\n\
  lsp-get-tag PORT          get the PORT's tag if set\n\
  lsp-set-addresses PORT [ADDRESS]...\n\
                            set MAC or MAC+IP addresses for PORT.\n\
  lsp-get-addresses PORT    get a list of MAC or MAC+IP addresses on PORT\n\
  lsp-set-port-security PORT [ADDRS]...\n\
                            set port security addresses for PORT.\n\
  lsp-get-port-security PORT    get PORT's port security addresses\n\
  lsp-get-up PORT           get state of PORT ('up' or 'down')\n\
  lsp-set-enabled PORT STATE\n\
                            set administrative state PORT\n\
                            ('enabled' or 'disabled')\n\
  lsp-get-enabled PORT      get administrative state PORT\n\
                            ('enabled' or 'disabled')\n\
  lsp-set-type PORT TYPE    set the type for PORT\n\
  lsp-get-type PORT         get the type for PORT\n\
  lsp-set-options PORT KEY=VALUE [KEY=VALUE]...\n\
                            set options related to the type of PORT\n\
  lsp-get-options PORT      get the type specific options for PORT\n\
  lsp-get-ls PORT           get the logical switch which the port belongs to\n\
\n\
Logical router commands:\n\
  [--may-exist | --add-duplicate] lr-add [ROUTER]\n\
                            create a logical router named ROUTER\n\
  lr-del ROUTER             delete ROUTER and all its ports\n\
  lr-list                   print the names of all logical routers\n\
\n\
Logical router port commands:\n\
  [--may-exist] lrp-add ROUTER PORT MAC NETWORK... [COLUMN[:KEY]=VALUE]...\n\
                            add logical port PORT on ROUTER\n\
  lrp-set-gateway-chassis PORT CHASSIS [PRIORITY]\n\
                            set gateway chassis for port PORT\n\
  lrp-del-gateway-chassis PORT CHASSIS\n\
                            delete gateway chassis from port PORT\n\
  lrp-get-gateway-chassis PORT\n\
                            print the names of all gateway chassis on PORT\n\
                            with PRIORITY\n\
  lrp-del PORT              delete PORT from its attached router\n\
  lrp-list ROUTER           print the names of all ports on ROUTER\n\
  lrp-set-enabled PORT STATE\n\
                            set administrative state PORT\n\
                            ('enabled' or 'disabled')\n\
  lrp-get-enabled PORT      get administrative state PORT\n\
                            ('enabled' or 'disabled')\n\
  lrp-set-options PORT KEY=VALUE [KEY=VALUE]...\n\
                            set router port options\n\
  lrp-set-redirect-type PORT TYPE\n\
                            set whether redirected packet to gateway chassis\n\
                            of PORT will be encapsulated or not\n\
                            ('overlay' or 'bridged')\n\
  lrp-get-redirect-type PORT\n\
                            get whether redirected packet to gateway chassis\n\
                            of PORT will be encapsulated or not\n\
                            ('overlay' or 'bridged')\n\
\n\
Route commands:\n\
  [--policy=POLICY] [--ecmp] [--ecmp-symmetric-reply] [--route-table=TABLE]\n\
  [--bfd[=UUID]]\n\
  lr-route-add ROUTER PREFIX NEXTHOP [PORT]\n\
                            add a route to ROUTER\n\
  [--policy=POLICY] [--route-table=TABLE]\n\
  lr-route-del ROUTER [PREFIX [NEXTHOP [PORT]]]\n\
                            remove routes from ROUTER\n\
  [--route-table=TABLE] lr-route-list ROUTER\n\
                            print routes for ROUTER\n\
\n\
Policy commands:\n\
  [--may-exist] lr-policy-add ROUTER PRIORITY MATCH ACTION [NEXTHOP]\n\
  [OPTIONS KEY=VALUE ...]\n\
                            add a policy to router\n\
  [--if-exists] lr-policy-del ROUTER [{PRIORITY | UUID} [MATCH]]\n\
                            remove policies from ROUTER\n\
  lr-policy-list ROUTER     print policies for ROUTER\n\
\n\
NAT commands:\n\
  [--may-exist] [--stateless] [--portrange] [--add-route]\n\
  [--gateway-port=GATEWAY_PORT]\n\
  lr-nat-add ROUTER TYPE EXTERNAL_IP LOGICAL_IP [LOGICAL_PORT EXTERNAL_MAC]\n\
                            [EXTERNAL_PORT_RANGE]\n\
                            add a NAT to ROUTER\n\
  [--if-exists] lr-nat-del ROUTER [TYPE [IP] [GATEWAY_PORT]]\n\
                            remove NATs from ROUTER\n\
  lr-nat-list ROUTER        print NATs for ROUTER\n\
\n\
LB commands:\n\
  [--may-exist] [--add-duplicate] [--reject | --event]\n\
  lb-add LB VIP[:PORT] IP[:PORT]... [PROTOCOL]\n\
                            create a load-balancer or add a VIP to an\n\
                            existing load balancer\n\
  lb-del LB [VIP]           remove a load-balancer or just the VIP from\n\
                            the load balancer\n\
  lb-list [LB]              print load-balancers\n\
  ls-lb-add SWITCH LB       add a load-balancer to SWITCH\n\
  ls-lb-del SWITCH [LB]     remove load-balancers from SWITCH\n\
  ls-lb-list SWITCH         print load-balancers\n\
  lr-lb-add ROUTER LB       add a load-balancer to ROUTER\n\
  lr-lb-del ROUTER [LB]     remove load-balancers from ROUTER\n\
  lr-lb-list ROUTER         print load-balancers\n\
\n\
Control Plane Protection Policy commands:\n\
  copp-add NAME PROTO METER add a copp policy for PROTO packets on NAME\n\
  copp-del NAME [PROTO]     delete the copp policy for PROTO (all if none)\n\
  copp-list NAME            list the copp policies of NAME\n\
  ls-copp-add NAME SWITCH   add copp policy NAME to SWITCH\n\
  lr-copp-add NAME ROUTER   add copp policy NAME to ROUTER\n\
\n\
Port group commands:\n\
  pg-add PG [PORTS]           Create port group PG with optional PORTS\n\
  pg-set-ports PG PORTS       Set PORTS on port group PG\n\
  pg-del PG                   Delete port group PG\n\
  pg-get-ports PG             Print the ports of port group PG\n\
\n\
Address set commands:\n\
  as-add NAME [ADDRESS]...    Create address set NAME\n\
  as-del NAME                 Delete address set NAME\n\
  as-list [NAME]              Print address sets and their addresses\n\
  as-add-addr NAME ADDRESS... Add addresses to address set NAME\n\
  as-del-addr NAME ADDRESS... Remove addresses from address set NAME\n\
\n\
%s\
\n\
Synchronization command (use with --wait=sb|hv):\n\
  sync                     wait even for earlier changes to take effect\n\
\n\
Options:\n\
  --db=DATABASE               connect to DATABASE\n\
                              (default: %s)\n\
  --no-wait, --wait=none      do not wait for OVN reconfiguration (default)\n\
  --no-leader-only            accept any cluster member, not just the leader\n\
  --no-shuffle-remotes        do not shuffle the order of remotes\n\
  --wait=sb                   wait for southbound database update\n\
  --wait=hv                   wait for all chassis to catch up\n\
  --print-wait-time           print time spent on waiting\n\
  -t, --timeout=SECS          wait at most SECS seconds\n\
  --dry-run                   do not commit changes to database\n\
  --oneline                   print exactly one line of output per command\n",
           program_name, program_name, ctl_get_db_cmd_usage(), default_db);
    free(default_db);
    table_usage();
    vlog_usage();
    printf("\
  --no-syslog             equivalent to --verbose=nbctl:syslog:warn\n");
    printf("\n\
Other options:\n\
  -h, --help                  display this help message\n\
  -V, --version               display version information\n");
    stream_usage("database", true, true, true);
    exit(EXIT_SUCCESS);
}

static void
run_prerequisites(struct ctl_command *commands, size_t n_commands,
                  struct ovsdb_idl *idl)
{
    ovsdb_idl_add_table(idl, &nbrec_table_nb_global);
    if (wait_type != NBCTL_WAIT_NONE) {
        ovsdb_idl_add_column(idl, &nbrec_nb_global_col_nb_cfg);
        ovsdb_idl_add_column(idl, &nbrec_nb_global_col_sb_cfg);
        ovsdb_idl_add_column(idl, &nbrec_nb_global_col_hv_cfg);
        ovsdb_idl_add_column(idl, &nbrec_nb_global_col_nb_cfg_timestamp);
        ovsdb_idl_add_column(idl, &nbrec_nb_global_col_sb_cfg_timestamp);
        ovsdb_idl_add_column(idl, &nbrec_nb_global_col_hv_cfg_timestamp);
    }
    cond_active = true;

    for (struct ctl_command *c = commands; c < &commands[n_commands]; c++) {
        struct ctl_context ctx;

        cmd_declared_capable = false;
        if (c->syntax->prerequisites) {
            ds_init(&c->output);
            c->table = NULL;
            ctl_context_init(&ctx, c, idl, NULL, NULL, NULL);
            (c->syntax->prerequisites)(&ctx);
            if (ctx.error) {
                ctl_fatal("%s", ctx.error);
            }
            ctl_context_done(&ctx, c);
            ovs_assert(!c->output.string);
            ovs_assert(!c->table);
        }
        if (!cmd_declared_capable) {
            cond_active = false;
        }
    }
    if (n_commands > 1) {
        /* Later commands must see earlier ones' changes: see
         * nbctl_set_update(). */
        cond_active = false;
    }
    cond_apply(idl);
}

/* Waits, after a successful commit that incremented nb_cfg to 'next_cfg',
 * for northd (and, with --wait=hv, the chassis) to catch up. */
static void
wait_for_cfg(struct ovsdb_idl *idl, int64_t next_cfg, long long int start)
{
    long long int sb_done = 0;

    ovsdb_idl_enable_reconnect(idl);
    for (;;) {
        ovsdb_idl_run(idl);
        const struct nbrec_nb_global *nb = nbrec_nb_global_first(idl);
        if (nb) {
            int64_t cur = wait_type == NBCTL_WAIT_SB ? nb->sb_cfg
                                                     : nb->hv_cfg;
            if (nb->sb_cfg >= next_cfg && !sb_done) {
                sb_done = time_wall_msec();
            }
            if (cur >= next_cfg) {
                if (print_wait_time) {
                    long long int done = time_wall_msec();
                    printf("Time spent on processing nb_cfg %"PRId64":\n",
                           next_cfg);
                    if (nb->nb_cfg_timestamp) {
                        printf("\tovn-northd delay before processing:"
                               "\t%lldms\n",
                               nb->nb_cfg_timestamp - start);
                    }
                    printf("\tovn-northd completion:\t\t\t%lldms\n",
                           sb_done - start);
                    if (wait_type == NBCTL_WAIT_HV) {
                        printf("\tovn-controller(s) completion:\t\t%lldms\n",
                               done - start);
                    }
                }
                return;
            }
        }
        ovsdb_idl_wait(idl);
        poll_block();
    }
}

static void
print_output(struct ctl_command *c)
{
    struct ds *ds = &c->output;

    if (c->table) {
        table_print(c->table, &table_style);
    } else if (oneline) {
        ds_chomp(ds, '\n');
        for (size_t j = 0; j < ds->length; j++) {
            int ch = ds->string[j];
            if (ch == '\n') {
                fputs("\\n", stdout);
            } else if (ch == '\\') {
                fputs("\\\\", stdout);
            } else {
                putchar(ch);
            }
        }
        putchar('\n');
    } else {
        fputs(ds_cstr(ds), stdout);
    }
}

/* Runs the commands in one transaction.  Returns false if it must be retried
 * after the replica changes, true when done. */
static bool
do_nbctl(const char *args, struct ctl_command *commands, size_t n_commands,
         struct ovsdb_idl *idl)
{
    struct ovsdb_idl_txn *txn = the_idl_txn = ovsdb_idl_txn_create(idl);
    struct ctl_context ctx;
    struct ctl_command *c;
    int64_t next_cfg = 0;

    if (dry_run) {
        ovsdb_idl_txn_set_dry_run(txn);
    }
    ovsdb_idl_txn_add_comment(txn, "ovn-nbctl: %s", args);

    const struct nbrec_nb_global *nb = nbrec_nb_global_first(idl);
    if (!nb) {
        nb = nbrec_nb_global_insert(txn);
    }

    struct ovsdb_symbol_table *symtab = ovsdb_symbol_table_create();
    for (c = commands; c < &commands[n_commands]; c++) {
        ds_init(&c->output);
        c->table = NULL;
    }
    ctl_context_init(&ctx, NULL, idl, txn, symtab, NULL);
    for (c = commands; c < &commands[n_commands]; c++) {
        ctl_context_init_command(&ctx, c, c == &commands[n_commands - 1]);
        if (c->syntax->run) {
            (c->syntax->run)(&ctx);
        }
        if (ctx.error) {
            ctl_fatal("%s", ctx.error);
        }
        ctl_context_done_command(&ctx, c);
        if (ctx.try_again) {
            ctl_context_done(&ctx, NULL);
            goto try_again;
        }
    }
    ctl_context_done(&ctx, NULL);

    struct shash_node *node;
    SHASH_FOR_EACH (node, &symtab->sh) {
        struct ovsdb_symbol *symbol = node->data;
        if (!symbol->created) {
            ctl_fatal("row id \"%s\" is referenced but never created (e.g. "
                      "with \"-- --id=%s create ...\")",
                      node->name, node->name);
        }
        if (!symbol->strong_ref) {
            if (!symbol->weak_ref) {
                VLOG_WARN("row id \"%s\" was created but no reference to it "
                          "was inserted, so it will not actually appear in "
                          "the database", node->name);
            } else {
                VLOG_WARN("row id \"%s\" was created but only a weak "
                          "reference to it was inserted, so it will not "
                          "actually appear in the database", node->name);
            }
        }
    }

    if (wait_type != NBCTL_WAIT_NONE) {
        ovsdb_idl_txn_increment(txn, &nb->header_,
                                &nbrec_nb_global_col_nb_cfg, force_wait);
    }

    long long int start = time_wall_msec();
    enum ovsdb_idl_txn_status status = ovsdb_idl_txn_commit_block(txn);
    if (wait_type != NBCTL_WAIT_NONE && status == TXN_SUCCESS) {
        next_cfg = ovsdb_idl_txn_get_increment_new_value(txn);
    }
    if (status == TXN_UNCHANGED || status == TXN_SUCCESS) {
        for (c = commands; c < &commands[n_commands]; c++) {
            if (c->syntax->postprocess) {
                ctl_context_init(&ctx, c, idl, txn, symtab, NULL);
                (c->syntax->postprocess)(&ctx);
                if (ctx.error) {
                    ctl_fatal("%s", ctx.error);
                }
                ctl_context_done(&ctx, c);
            }
        }
    }

    switch (status) {
    case TXN_UNCOMMITTED:
    case TXN_INCOMPLETE:
        OVS_NOT_REACHED();

    case TXN_ABORTED:
        ctl_fatal("transaction aborted");

    case TXN_UNCHANGED:
    case TXN_SUCCESS:
        break;

    case TXN_TRY_AGAIN:
        goto try_again;

    case TXN_ERROR:
        ctl_fatal("transaction error: %s", ovsdb_idl_txn_get_error(txn));

    case TXN_NOT_LOCKED:
        ctl_fatal("database not locked");

    default:
        OVS_NOT_REACHED();
    }

    ovsdb_symbol_table_destroy(symtab);

    for (c = commands; c < &commands[n_commands]; c++) {
        print_output(c);
        ds_destroy(&c->output);
        table_destroy(c->table);
        free(c->table);
        shash_destroy_free_data(&c->options);
    }
    free(commands);

    if (next_cfg > 0) {
        fflush(stdout);
        wait_for_cfg(idl, next_cfg, start);
    }

    ovsdb_idl_txn_destroy(txn);
    the_idl_txn = NULL;
    ovsdb_idl_destroy(idl);
    the_idl = NULL;
    return true;

try_again:
    /* Our transaction needs to be rerun, or a prerequisite was not met.
     * Free what we built and let the caller run us again. */
    ovsdb_idl_txn_abort(txn);
    ovsdb_idl_txn_destroy(txn);
    the_idl_txn = NULL;

    ovsdb_symbol_table_destroy(symtab);
    for (c = commands; c < &commands[n_commands]; c++) {
        ds_destroy(&c->output);
        table_destroy(c->table);
        free(c->table);
    }
    return false;
}

int
main(int argc, char *argv[])
{
    struct ctl_command *commands;
    struct shash local_options;
    size_t n_commands;

    set_program_name(argv[0]);
    fatal_ignore_sigpipe();
    vlog_set_levels(NULL, VLF_CONSOLE, VLL_WARN);
    vlog_set_levels_from_string_assert("reconnect:warn");

    nbctl_cmd_init();

    char *args = process_escape_args(argv);
    shash_init(&local_options);
    parse_options(argc, argv, &local_options);
    char *error = ctl_parse_commands(argc - optind, argv + optind,
                                     &local_options, &commands, &n_commands);
    if (error) {
        ctl_fatal("%s", error);
    }
    VLOG(ctl_might_write_to_db(commands, n_commands) ? VLL_INFO : VLL_DBG,
         "Called as %s", args);

    ctl_timeout_setup(timeout);

    struct ovsdb_idl *idl = the_idl
        = ovsdb_idl_create_unconnected(&nbrec_idl_class, false);
    ovsdb_idl_set_shuffle_remotes(idl, shuffle_remotes);
    ovsdb_idl_set_remote(idl, db, false);
    ovsdb_idl_set_leader_only(idl, leader_only);
    ovsdb_idl_set_db_change_aware(idl, false);
    run_prerequisites(commands, n_commands, idl);

    /* Run the commands whenever the replica has changed, or the server
     * acknowledged the rows a command asked for, and retry on conflicts. */
    unsigned int seqno = ovsdb_idl_get_seqno(idl);
    bool rerun = false;
    for (;;) {
        ovsdb_idl_run(idl);
        if (!ovsdb_idl_is_alive(idl)) {
            int retval = ovsdb_idl_get_last_error(idl);
            ctl_fatal("%s: database connection failed (%s)",
                      db, ovs_retval_to_string(retval));
        }

        bool cond_acked
            = ovsdb_idl_get_condition_seqno(idl) >= cond_seqno_wanted;
        if (cond_acked && ovsdb_idl_has_ever_connected(idl)
            && (seqno != ovsdb_idl_get_seqno(idl) || rerun)) {
            seqno = ovsdb_idl_get_seqno(idl);
            unsigned int cond_before = cond_seqno_wanted;
            if (do_nbctl(args, commands, n_commands, idl)) {
                free(args);
                cond_destroy();
                shash_destroy(&local_options);
                exit(exit_status);
            }
            /* A command asked for more rows: run again once they are
             * here, even if they turn out to be none. */
            rerun = cond_seqno_wanted != cond_before;
        }

        ovsdb_idl_wait(idl);
        poll_block();
    }
}
