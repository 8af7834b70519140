/* SB RBAC role and permissions; see rbac.h. */
#include <config.h>
#include "northd/rbac.h"

#include <string.h>

#include "coverage.h"
#include "lib/rdb.h"
#include "lib/sb-rdb.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "smap.h"
#include "util.h"
#include "uuid.h"

VLOG_DEFINE_THIS_MODULE(rbac);

COVERAGE_DEFINE(rbac_row_written);
COVERAGE_DEFINE(rbac_row_deleted);

#define RBAC_ROLE "ovn-controller"

/* What the role permits on one table.  'authorization' is the column that
 * must hold the client's name ("" for any client); 'update' the columns a
 * client may change, in strcmp() order (as the replica sorts a set). */
struct rbac_perm {
    const char *table;
    const char *authorization;
    bool insert_delete;
    const char *const *update;      /* NULL-terminated. */
};

#define COLS(...) ((const char *const []) { __VA_ARGS__, NULL })

static const struct rbac_perm rbac_perms[] = {
    { "Chassis", "name", true,
      COLS("encaps", "external_ids", "nb_cfg", "other_config",
           "transport_zones", "vtep_logical_switches") },
    { "Chassis_Private", "name", true,
      COLS("chassis", "external_ids", "nb_cfg", "nb_cfg_timestamp") },
    { "Encap", "chassis_name", true, COLS("ip", "options", "type") },
    { "Port_Binding", "", false,
      COLS("additional_chassis", "additional_encap", "chassis", "encap",
           "options", "up", "virtual_parent") },
    { "MAC_Binding", "", true,
      COLS("datapath", "ip", "logical_port", "mac", "timestamp") },
    { "Service_Monitor", "", false, COLS("status") },
    { "IGMP_Group", "", true,
      COLS("address", "chassis", "datapath", "ports") },
    { "Controller_Event", "", true,
      COLS("chassis", "event_info", "event_type", "seq_num") },
    { "FDB", "", true, COLS("dp_key", "mac", "port_key") },
    { "BFD", "", false, COLS("status") },
};

/* One permission as this SB server can take it: only tables and columns
 * its schema has. */
struct rbac_want {
    const struct rbac_perm *perm;
    const char **update;            /* The columns the server has. */
    size_t n_update;
    const struct sb_rbac_permission *row;   /* The row that has it. */
    struct uuid uuid;               /* Its UUID, or of the row inserted. */
};

static bool
rbac_want_init(struct rbac_want *w, const struct rbac_perm *perm,
               const struct rdb *sb)
{
    memset(w, 0, sizeof *w);
    w->perm = perm;
    if (!rdb_server_has(sb, perm->table, NULL)
        || (perm->authorization[0]
            && !rdb_server_has(sb, perm->table, perm->authorization))) {
        /* Without the column that names the client, no permission is
         * safer than one for every client. */
        return false;
    }
    size_t n = 0;
    while (perm->update[n]) {
        n++;
    }
    w->update = xmalloc(MAX(n, 1) * sizeof *w->update);
    for (size_t i = 0; i < n; i++) {
        if (rdb_server_has(sb, perm->table, perm->update[i])) {
            w->update[w->n_update++] = perm->update[i];
        }
    }
    return true;
}

static bool
rbac_row_matches(const struct sb_rbac_permission *row,
                 const struct rbac_want *w)
{
    if (row->n_authorization != 1
        || strcmp(row->authorization[0], w->perm->authorization)
        || row->insert_delete != w->perm->insert_delete
        || row->n_update != w->n_update) {
        return false;
    }
    for (size_t i = 0; i < w->n_update; i++) {
        if (strcmp(row->update[i], w->update[i])) {
            return false;
        }
    }
    return true;
}

static struct rbac_want *
rbac_find_want(struct rbac_want *wants, size_t n, const char *table)
{
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(wants[i].perm->table, table)) {
            return &wants[i];
        }
    }
    return NULL;
}

/* True if the role's map already names 'uuid' for 'table'. */
static bool
rbac_role_names(const struct sb_rbac_role *role, const char *table,
                const struct uuid *uuid)
{
    const char *s = role ? smap_get(&role->permissions, table) : NULL;
    struct uuid u;
    return s && uuid_from_string(&u, s) && uuid_equals(&u, uuid);
}

/* True if 'p' is a better row for 'table' than 'cur' (possibly NULL): the
 * one the role names, else the lowest UUID. */
static bool
rbac_better_row(const struct sb_rbac_permission *p,
                const struct sb_rbac_permission *cur,
                const struct sb_rbac_role *role, const char *table)
{
    if (!cur) {
        return true;
    }
    bool p_named = rbac_role_names(role, table, &p->header_.uuid);
    bool cur_named = rbac_role_names(role, table, &cur->header_.uuid);
    if (p_named != cur_named) {
        return p_named;
    }
    return uuid_compare_3way(&p->header_.uuid, &cur->header_.uuid) < 0;
}

void
rbac_sync_sb(struct rdb *sb, struct rdb_txn *txn)
{
    if (!rdb_server_has(sb, "RBAC_Role", "permissions")
        || !rdb_server_has(sb, "RBAC_Permission", "update")) {
        return;
    }

    /* The role: the one named "ovn-controller" with the lowest UUID.  Rows
     * of other roles go, as stock ovn-northd deletes them, and so do
     * duplicates, since the server would pick one of them by chance. */
    const struct sb_rbac_role *role = NULL;
    const struct sb_rbac_role *r;
    SB_RBAC_ROLE_FOR_EACH (r, sb) {
        if (!strcmp(r->name, RBAC_ROLE)
            && (!role || uuid_compare_3way(&r->header_.uuid,
                                           &role->header_.uuid) < 0)) {
            role = r;
        }
    }
    SB_RBAC_ROLE_FOR_EACH (r, sb) {
        if (r != role) {
            static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);
            VLOG_INFO_RL(&rl, "deleting SB RBAC_Role "UUID_FMT" (\"%s\"): "
                         "the only role is \""RBAC_ROLE"\"",
                         UUID_ARGS(&r->header_.uuid), r->name);
            rdb_txn_delete(txn, &sb_table_rbac_role, &r->header_.uuid);
            COVERAGE_INC(rbac_row_deleted);
        }
    }

    struct rbac_want wants[ARRAY_SIZE(rbac_perms)];
    size_t n_wants = 0;
    for (size_t i = 0; i < ARRAY_SIZE(rbac_perms); i++) {
        if (rbac_want_init(&wants[n_wants], &rbac_perms[i], sb)) {
            n_wants++;
        }
    }

    /* Permissions: a row that is one of ours as it should be is kept (the
     * role's choice, else the lowest UUID, is the one the role names);
     * any other row is deleted. */
    const struct sb_rbac_permission *p;
    SB_RBAC_PERMISSION_FOR_EACH (p, sb) {
        struct rbac_want *w = rbac_find_want(wants, n_wants, p->table);
        if (!w || !rbac_row_matches(p, w)) {
            rdb_txn_delete(txn, &sb_table_rbac_permission, &p->header_.uuid);
            COVERAGE_INC(rbac_row_deleted);
            continue;
        }
        if (rbac_better_row(p, w->row, role, w->perm->table)) {
            w->row = p;
        }
    }
    for (size_t i = 0; i < n_wants; i++) {
        struct rbac_want *w = &wants[i];
        if (w->row) {
            w->uuid = w->row->header_.uuid;
            continue;
        }
        rdb_uuid_generate(&w->uuid);
        rdb_txn_insert(txn, &sb_table_rbac_permission, &w->uuid);
        rdb_txn_set_string(txn, SB_RBAC_PERMISSION_COL_TABLE,
                           w->perm->table);
        rdb_txn_set_strings(txn, SB_RBAC_PERMISSION_COL_AUTHORIZATION,
                            &w->perm->authorization, 1);
        rdb_txn_set_bool(txn, SB_RBAC_PERMISSION_COL_INSERT_DELETE,
                         w->perm->insert_delete);
        rdb_txn_set_strings(txn, SB_RBAC_PERMISSION_COL_UPDATE,
                            w->update, w->n_update);
        COVERAGE_INC(rbac_row_written);
    }

    /* The role's map: exactly our tables, each to its row. */
    bool map_ok = role && smap_count(&role->permissions) == n_wants;
    for (size_t i = 0; i < n_wants && map_ok; i++) {
        map_ok = rbac_role_names(role, wants[i].perm->table, &wants[i].uuid);
    }
    if (!map_ok) {
        struct uuid uuid;
        if (!role) {
            rdb_uuid_generate(&uuid);
            rdb_txn_insert(txn, &sb_table_rbac_role, &uuid);
            rdb_txn_set_string(txn, SB_RBAC_ROLE_COL_NAME, RBAC_ROLE);
        } else {
            rdb_txn_update(txn, &sb_table_rbac_role, &role->header_.uuid);
        }
        struct ds json = DS_EMPTY_INITIALIZER;
        ds_put_cstr(&json, "[\"map\",[");
        for (size_t i = 0; i < n_wants; i++) {
            /* Table names are plain identifiers. */
            ds_put_format(&json, "%s[\"%s\",[\"uuid\",\""UUID_FMT"\"]]",
                          i ? "," : "", wants[i].perm->table,
                          UUID_ARGS(&wants[i].uuid));
        }
        ds_put_cstr(&json, "]]");
        rdb_txn_set_json(txn, SB_RBAC_ROLE_COL_PERMISSIONS, ds_cstr(&json),
                         json.length);
        ds_destroy(&json);
        COVERAGE_INC(rbac_row_written);
    }

    for (size_t i = 0; i < n_wants; i++) {
        free(wants[i].update);
    }
}
