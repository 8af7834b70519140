/* ovn-trace, ours: reading the southbound (and optionally the northbound)
 * database once, over JSON-RPC, into the model a trace runs on. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "jsonrpc.h"
#include "lib/actions.h"
#include "lib/datum-json.h"
#include "lib/lex.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"
#include "openvswitch/vlog.h"
#include "socket-util.h"
#include "stream.h"
#include "svec.h"
#include "util.h"
#include "uuid.h"
#include "utilities/trace.h"

VLOG_DEFINE_THIS_MODULE(trace_db);

/* OVSDB JSON. */

const struct json *
trace_row_get(const struct json *row, const char *col)
{
    return row && row->type == JSON_OBJECT
           ? shash_find_data(json_object(row), col) : NULL;
}

/* The one string or UUID in 'd' (an atom, ["uuid", U] or a set of one),
 * or "". */
const char *
trace_json_str(const struct json *d)
{
    if (!d) {
        return "";
    } else if (d->type == JSON_STRING) {
        return json_string(d);
    } else if (d->type == JSON_ARRAY && d->array.n == 2
               && d->array.elems[0]->type == JSON_STRING) {
        const char *kind = json_string(d->array.elems[0]);
        const struct json *v = d->array.elems[1];
        if (!strcmp(kind, "uuid") && v->type == JSON_STRING) {
            return json_string(v);
        } else if (!strcmp(kind, "set") && v->type == JSON_ARRAY
                   && v->array.n >= 1) {
            return trace_json_str(v->array.elems[0]);
        }
    }
    return "";
}

int64_t
trace_json_int(const struct json *d)
{
    if (d && d->type == JSON_INTEGER) {
        return d->integer;
    } else if (d && d->type == JSON_ARRAY && d->array.n == 2
               && d->array.elems[1]->type == JSON_ARRAY
               && d->array.elems[1]->array.n == 1) {
        return trace_json_int(d->array.elems[1]->array.elems[0]);
    }
    return 0;
}

static const char *
map_get_or(const struct json *row, const char *col, const char *key)
{
    return datum_json_map_get(trace_row_get(row, col), key);
}

/* Reads every row of each of 'tables' of database 'db' at 'remote'.
 * '*results' gets one JSON array of rows per table, NULL for a table the
 * server lacks. */
static char *
fetch_tables(const char *remote, const char *db, const char *const *tables,
             size_t n, struct json **results)
{
    struct stream *stream;
    int error = stream_open_block(jsonrpc_stream_open(remote, &stream,
                                                      DSCP_DEFAULT),
                                  -1, &stream);
    if (error) {
        return xasprintf("%s: connection failed (%s)", remote,
                         ovs_strerror(error));
    }
    struct jsonrpc *rpc = jsonrpc_open(stream);
    for (size_t i = 0; i < n; i++) {
        struct json *params = json_array_create_1(json_string_create(db));
        struct json *op = json_object_create();
        json_object_put_string(op, "op", "select");
        json_object_put_string(op, "table", tables[i]);
        json_object_put(op, "where", json_array_create_empty());
        json_array_add(params, op);

        struct jsonrpc_msg *reply;
        error = jsonrpc_transact_block(
            rpc, jsonrpc_create_request("transact", params, NULL), &reply);
        if (error) {
            jsonrpc_close(rpc);
            return xasprintf("%s: transaction failed (%s)", remote,
                             ovs_strerror(error));
        }
        results[i] = NULL;
        const struct json *r = reply->result;
        if (!reply->error && r && r->type == JSON_ARRAY && r->array.n == 1) {
            const struct json *rows = trace_row_get(r->array.elems[0],
                                                    "rows");
            if (rows && rows->type == JSON_ARRAY) {
                results[i] = json_clone(rows);
            }
        } else if (reply->error) {
            char *s = json_to_string(reply->error, 0);
            jsonrpc_msg_destroy(reply);
            jsonrpc_close(rpc);
            char *e = xasprintf("%s: %s", remote, s);
            free(s);
            return e;
        }
        jsonrpc_msg_destroy(reply);
    }
    jsonrpc_close(rpc);
    return NULL;
}

/* Model. */

static bool
ends_with_uuid(const char *s)
{
    size_t len = strlen(s);
    struct uuid u;
    return len >= UUID_LEN && uuid_from_string(&u, s + len - UUID_LEN);
}

/* As stock prints long names: a trailing UUID cut to 6 digits. */
static char *
shorten(const char *s)
{
    return (ends_with_uuid(s)
            ? xmemdup0(s, strlen(s) - (UUID_LEN - 6)) : xstrdup(s));
}

struct trace_dp *
trace_db_find_dp(const struct trace_db *db, const char *name)
{
    struct shash_node *node;
    SHASH_FOR_EACH (node, &db->dps) {
        struct trace_dp *dp = node->data;
        if (!strcmp(dp->name, name)
            || (dp->name2 && !strcmp(dp->name2, name))) {
            return dp;
        }
    }
    struct trace_dp *match = NULL;
    if (strlen(name) >= 4) {
        SHASH_FOR_EACH (node, &db->dps) {
            struct trace_dp *dp = node->data;
            char sb[UUID_LEN + 1], nb[UUID_LEN + 1];
            snprintf(sb, sizeof sb, UUID_FMT, UUID_ARGS(&dp->uuid));
            snprintf(nb, sizeof nb, UUID_FMT, UUID_ARGS(&dp->nb_uuid));
            if (!strncmp(sb, name, strlen(name))
                || !strncmp(nb, name, strlen(name))) {
                if (match) {
                    VLOG_WARN("name \"%s\" matches multiple datapaths", name);
                    return NULL;
                }
                match = dp;
            }
        }
    }
    return match;
}

const struct trace_port *
trace_dp_port_by_key(const struct trace_dp *dp, int64_t key)
{
    struct shash_node *node;
    SHASH_FOR_EACH (node, &dp->ports) {
        const struct trace_port *p = node->data;
        if (p->key == key) {
            return p;
        }
    }
    return NULL;
}

/* 'text' (a match or actions) with each quoted port name replaced by the
 * port's friendly name, as stock prints flows. */
char *
trace_db_friendly(const struct trace_db *db, const char *text)
{
    if (!db->friendly_names || !strchr(text, '"')) {
        return xstrdup(text);
    }
    struct ds out = DS_EMPTY_INITIALIZER;
    struct lexer lexer;
    size_t done = 0;

    lex_init(&lexer, text);
    while (lex_next(&lexer) != LEX_T_END) {
        if (lexer.token.type == LEX_T_ERROR) {
            break;
        }
        if (lexer.token.type == LEX_T_STRING) {
            const struct trace_port *p = shash_find_data(&db->ports,
                                                         lexer.token.s);
            if (p && strcmp(p->friendly, p->name)) {
                ds_put_buffer(&out, text + done, lexer.token.ofs - done);
                lex_put_string(&out, p->friendly);
                done = lexer.token.ofs + lexer.token.len;
            }
        }
    }
    lex_destroy(&lexer);
    ds_put_cstr(&out, text + done);
    return ds_steal_cstr(&out);
}

static int
compare_flows(const void *a_, const void *b_)
{
    const struct trace_flow *a = *(const struct trace_flow *const *) a_;
    const struct trace_flow *b = *(const struct trace_flow *const *) b_;

    if (a->egress != b->egress) {
        return a->egress ? 1 : -1;
    } else if (a->table != b->table) {
        return a->table < b->table ? -1 : 1;
    } else if (a->priority != b->priority) {
        return a->priority > b->priority ? -1 : 1;
    } else if (a->order != b->order) {
        return a->order < b->order ? -1 : 1;
    }
    return uuid_compare_3way(&a->uuid, &b->uuid);
}

static int
compare_ports(const void *a_, const void *b_)
{
    const struct trace_port *a = *(const struct trace_port *const *) a_;
    const struct trace_port *b = *(const struct trace_port *const *) b_;
    return strcmp(a->name, b->name);
}

/* Address sets and port groups, and the references of a flow on each
 * datapath (port groups are per datapath: "<tunnel_key>_name" first). */
struct sets {
    struct shash addr_sets;     /* Name -> struct svec *. */
    struct shash port_groups;   /* Name -> struct svec *. */
    struct shash refs;          /* Tunnel key string -> struct expr_refs *. */
};

static void
sets_load(struct shash *sets, const struct json *rows, const char *column)
{
    shash_init(sets);
    for (size_t i = 0; rows && i < rows->array.n; i++) {
        const struct json *row = rows->array.elems[i];
        struct svec *v = xmalloc(sizeof *v);
        svec_init(v);
        datum_json_atoms(trace_row_get(row, column), v);
        if (!shash_add_once(sets, trace_json_str(trace_row_get(row, "name")),
                            v)) {
            svec_destroy(v);
            free(v);
        }
    }
}

static void
sets_free(struct shash *sets)
{
    struct shash_node *node;
    SHASH_FOR_EACH (node, sets) {
        svec_destroy(node->data);
    }
    shash_destroy_free_data(sets);
}

static const struct expr_refs *
sets_refs(struct sets *sets, int64_t key)
{
    char key_s[32];
    snprintf(key_s, sizeof key_s, "%"PRId64, key);
    struct expr_refs *r = shash_find_data(&sets->refs, key_s);
    if (r) {
        return r;
    }
    r = xmalloc(sizeof *r);
    expr_refs_init(r);

    struct shash_node *node;
    SHASH_FOR_EACH (node, &sets->addr_sets) {
        const struct svec *v = node->data;
        free(expr_refs_add_addr_set(r, node->name,
                                    (const char *const *) v->names, v->n));
    }
    expr_refs_add_sb_port_groups(r, &sets->port_groups, key_s);
    shash_add(&sets->refs, key_s, r);
    return r;
}

/* Stock ovn-trace keeps flows of equal priority in the order its IDL
 * iterates them: by hash bucket of their UUIDs (the first 32 bits, masked
 * by the size of the table's hash map, which grows with its rows as
 * lib/hmap.c grows it). */
static uint32_t
idl_bucket_mask(size_t n_rows)
{
    size_t mask = 0;
    for (size_t n = 1; n <= n_rows; n++) {
        if (n / 2 > mask) {
            size_t m = n / 2;
            for (int shift = 1; shift < 64; shift *= 2) {
                m |= m >> shift;
            }
            m |= (m & 1) << 1;
            mask = MAX(mask, m);
        }
    }
    return mask;
}

static void
add_flow(struct trace_db *db, struct trace_dp *dp, const struct json *row,
         struct sets *sets, struct ovs_list *actions, uint32_t mask)
{
    const char *match = trace_json_str(trace_row_get(row, "match"));
    struct expr *e, *a;
    char *error = expr_parse_string(match, &db->symtab,
                                    sets_refs(sets, dp->key), &e);
    if (!error) {
        error = expr_annotate(e, &db->symtab, &a);
    }
    if (error) {
        static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);
        VLOG_WARN_RL(&rl, "%s: parsing expression failed (%s)", match,
                     error);
        free(error);
        db->n_bad_flows++;
        return;
    }

    struct trace_flow *f = xzalloc(sizeof *f);
    uuid_from_string(&f->uuid, trace_json_str(trace_row_get(row, "_uuid")));
    f->egress = !strcmp(trace_json_str(trace_row_get(row, "pipeline")),
                        "egress");
    f->table = trace_json_int(trace_row_get(row, "table_id"));
    f->priority = trace_json_int(trace_row_get(row, "priority"));
    f->order = f->uuid.parts[0] & mask;
    f->stage = nullable_xstrdup(map_get_or(row, "external_ids",
                                           "stage-name"));
    f->source = nullable_xstrdup(map_get_or(row, "external_ids", "source"));
    f->hint = nullable_xstrdup(map_get_or(row, "external_ids",
                                          "stage-hint"));
    f->match_s = trace_db_friendly(db, match);
    f->actions_s = xstrdup(trace_json_str(trace_row_get(row, "actions")));
    f->match = a;
    f->actions = actions;
    if (dp->n_flows >= dp->allocated_flows) {
        dp->flows = x2nrealloc(dp->flows, &dp->allocated_flows,
                               sizeof *dp->flows);
    }
    dp->flows[dp->n_flows++] = f;
}

static void
load_nb(struct trace_db *db, struct json **nb)
{
    /* nb[0] ACL, nb[1] Port_Group, nb[2] Logical_Switch,
     * nb[3] Load_Balancer, nb[4] Logical_Switch_Port, nb[5]
     * Logical_Router, nb[6] Logical_Router_Port, nb[7] NAT, nb[8]
     * Logical_Router_Static_Route, nb[9] Logical_Router_Policy. */
    static const char *const names[] = {
        "ACL", "Port_Group", "Logical_Switch", "Load_Balancer",
        "Logical_Switch_Port", "Logical_Router", "Logical_Router_Port",
        "NAT", "Logical_Router_Static_Route", "Logical_Router_Policy",
    };
    /* Owners of ACLs: ACL UUID -> description. */
    struct shash owners = SHASH_INITIALIZER(&owners);
    for (int t = 1; t <= 2; t++) {
        for (size_t i = 0; nb[t] && i < nb[t]->array.n; i++) {
            const struct json *row = nb[t]->array.elems[i];
            struct svec acls = SVEC_EMPTY_INITIALIZER;
            datum_json_atoms(trace_row_get(row, "acls"), &acls);
            const char *name = trace_json_str(trace_row_get(row, "name"));
            for (size_t j = 0; j < acls.n; j++) {
                struct ds d = DS_EMPTY_INITIALIZER;
                ds_put_format(&d, "%s ", t == 1 ? "port group" : "switch");
                lex_put_string(&d, name);
                free(shash_replace(&owners, acls.names[j], ds_steal_cstr(&d)));
            }
            svec_destroy(&acls);
        }
    }
    /* Owners of a router's NAT rules, routes and policies. */
    for (size_t i = 0; nb[5] && i < nb[5]->array.n; i++) {
        const struct json *row = nb[5]->array.elems[i];
        const char *name = trace_json_str(trace_row_get(row, "name"));
        static const char *const cols[] = {
            "nat", "static_routes", "policies",
        };
        for (size_t c = 0; c < ARRAY_SIZE(cols); c++) {
            struct svec rows = SVEC_EMPTY_INITIALIZER;
            datum_json_atoms(trace_row_get(row, cols[c]), &rows);
            for (size_t j = 0; j < rows.n; j++) {
                struct ds d = DS_EMPTY_INITIALIZER;
                ds_put_cstr(&d, "router ");
                lex_put_string(&d, name);
                free(shash_replace(&owners, rows.names[j],
                                   ds_steal_cstr(&d)));
            }
            svec_destroy(&rows);
        }
    }
    for (int t = 0; t < ARRAY_SIZE(names); t++) {
        for (size_t i = 0; nb[t] && i < nb[t]->array.n; i++) {
            const struct json *row = nb[t]->array.elems[i];
            const char *uuid_s = trace_json_str(trace_row_get(row, "_uuid"));
            db->nb_objs = xrealloc(db->nb_objs, (db->n_nb_objs + 1)
                                   * sizeof *db->nb_objs);
            struct trace_nb_obj *o = &db->nb_objs[db->n_nb_objs++];
            uuid_from_string(&o->uuid, uuid_s);
            o->table = names[t];
            o->row = json_clone(row);
            o->owner = nullable_xstrdup(shash_find_data(&owners, uuid_s));
        }
    }
    shash_destroy_free_data(&owners);
}

const struct trace_nb_obj *
trace_db_find_nb(const struct trace_db *db, const char *prefix)
{
    for (size_t i = 0; i < db->n_nb_objs; i++) {
        char s[UUID_LEN + 1];
        snprintf(s, sizeof s, UUID_FMT, UUID_ARGS(&db->nb_objs[i].uuid));
        if (!strncmp(s, prefix, strlen(prefix))) {
            return &db->nb_objs[i];
        }
    }
    return NULL;
}

char *
trace_db_load(struct trace_db *db, const char *sb_remote,
              const char *nb_remote, bool friendly_names)
{
    static const char *const tables[] = {
        "Datapath_Binding", "Port_Binding", "Multicast_Group",
        "Logical_DP_Group", "Address_Set", "Port_Group", "Logical_Flow",
        "FDB", "Load_Balancer", "MAC_Binding",
    };
    enum { T_DP, T_PB, T_MC, T_DPG, T_AS, T_PG, T_LF, T_FDB, T_LB, T_MB,
           T_N };
    struct json *rows[T_N];

    memset(db, 0, sizeof *db);
    symtab_init_ovn(&db->symtab);
    shash_init(&db->dps);
    shash_init(&db->ports);
    shash_init(&db->lb_vips);
    db->friendly_names = friendly_names;

    char *error = fetch_tables(sb_remote, "OVN_Southbound", tables, T_N,
                               rows);
    if (error) {
        return error;
    }

    for (size_t i = 0; rows[T_DP] && i < rows[T_DP]->array.n; i++) {
        const struct json *row = rows[T_DP]->array.elems[i];
        struct trace_dp *dp = xzalloc(sizeof *dp);
        const char *uuid_s = trace_json_str(trace_row_get(row, "_uuid"));
        uuid_from_string(&dp->uuid, uuid_s);
        const char *nb = map_get_or(row, "external_ids", "logical-switch");
        if (!nb) {
            nb = map_get_or(row, "external_ids", "logical-router");
            dp->is_router = nb != NULL;
        }
        if (!nb || !uuid_from_string(&dp->nb_uuid, nb)) {
            dp->nb_uuid = dp->uuid;
        }
        const char *name = map_get_or(row, "external_ids", "name");
        dp->name = (name ? xstrdup(name)
                    : xasprintf(UUID_FMT, UUID_ARGS(&dp->nb_uuid)));
        dp->name2 = nullable_xstrdup(map_get_or(row, "external_ids",
                                                "name2"));
        dp->friendly = (!friendly_names
                        ? xasprintf(UUID_FMT, UUID_ARGS(&dp->nb_uuid))
                        : shorten(dp->name2 ? dp->name2 : dp->name));
        dp->key = trace_json_int(trace_row_get(row, "tunnel_key"));
        shash_init(&dp->ports);
        shash_init(&dp->mcgroups);
        shash_add(&db->dps, uuid_s, dp);
    }

    /* Port_Binding UUID -> port, for the multicast groups. */
    struct shash pb_by_uuid = SHASH_INITIALIZER(&pb_by_uuid);
    for (size_t i = 0; rows[T_PB] && i < rows[T_PB]->array.n; i++) {
        const struct json *row = rows[T_PB]->array.elems[i];
        const char *name = trace_json_str(trace_row_get(row,
                                                        "logical_port"));
        struct trace_dp *dp = shash_find_data(
            &db->dps, trace_json_str(trace_row_get(row, "datapath")));
        if (!dp) {
            VLOG_WARN("logical port %s missing datapath", name);
            continue;
        }
        if (shash_find(&db->ports, name)) {
            VLOG_WARN("duplicate logical port name %s", name);
            continue;
        }
        struct trace_port *p = xzalloc(sizeof *p);
        const char *uuid_s = trace_json_str(trace_row_get(row, "_uuid"));
        uuid_from_string(&p->uuid, uuid_s);
        p->dp = dp;
        p->name = xstrdup(name);
        p->type = xstrdup(trace_json_str(trace_row_get(row, "type")));
        p->key = trace_json_int(trace_row_get(row, "tunnel_key"));
        const char *name2 = map_get_or(row, "external_ids", "name");
        p->friendly = (!friendly_names ? xstrdup(name)
                       : shorten(name2 ? name2 : name));
        if (!strcmp(p->type, "patch") || !strcmp(p->type, "l3gateway")) {
            p->peer = nullable_xstrdup(map_get_or(row, "options", "peer"));
        }
        if (!strcmp(p->type, "l3gateway")) {
            dp->has_l3gateway = true;
        }
        if (!strcmp(p->type, "chassisredirect")) {
            p->distributed_port = nullable_xstrdup(
                map_get_or(row, "options", "distributed-port"));
        }
        struct svec ps = SVEC_EMPTY_INITIALIZER;
        datum_json_atoms(trace_row_get(row, "port_security"), &ps);
        p->ps = xcalloc(ps.n ? ps.n : 1, sizeof *p->ps);
        for (size_t j = 0; j < ps.n; j++) {
            enum lsp_addr_kind kind;
            struct lsp_addresses *a = &p->ps[p->n_ps];
            lsp_addresses_init(a);
            char *err = lsp_addresses_parse(ps.names[j], &kind, a);
            if (err || kind != LSP_ADDR_MAC_IPS) {
                VLOG_INFO("invalid syntax '%s' in port security. No MAC "
                          "address found", ps.names[j]);
                free(err);
                lsp_addresses_destroy(a);
                continue;
            }
            p->n_ps++;
        }
        svec_destroy(&ps);
        shash_add(&db->ports, name, p);
        shash_add(&dp->ports, name, p);
        shash_add(&pb_by_uuid, uuid_s, p);
    }

    for (size_t i = 0; rows[T_MC] && i < rows[T_MC]->array.n; i++) {
        const struct json *row = rows[T_MC]->array.elems[i];
        struct trace_dp *dp = shash_find_data(
            &db->dps, trace_json_str(trace_row_get(row, "datapath")));
        if (!dp) {
            continue;
        }
        struct trace_mcgroup *mc = xzalloc(sizeof *mc);
        mc->name = xstrdup(trace_json_str(trace_row_get(row, "name")));
        mc->key = trace_json_int(trace_row_get(row, "tunnel_key"));
        struct svec ports = SVEC_EMPTY_INITIALIZER;
        datum_json_atoms(trace_row_get(row, "ports"), &ports);
        mc->ports = xcalloc(ports.n ? ports.n : 1, sizeof *mc->ports);
        for (size_t j = 0; j < ports.n; j++) {
            struct trace_port *p = shash_find_data(&pb_by_uuid,
                                                   ports.names[j]);
            if (p && p->dp == dp) {
                mc->ports[mc->n_ports++] = p;
            }
        }
        svec_destroy(&ports);
        qsort(mc->ports, mc->n_ports, sizeof *mc->ports, compare_ports);
        if (!shash_add_once(&dp->mcgroups, mc->name, mc)) {
            free(mc->ports);
            free(mc->name);
            free(mc);
        }
    }
    shash_destroy(&pb_by_uuid);

    struct shash groups;
    sets_load(&groups, NULL, NULL);
    for (size_t i = 0; rows[T_DPG] && i < rows[T_DPG]->array.n; i++) {
        const struct json *row = rows[T_DPG]->array.elems[i];
        struct svec *v = xmalloc(sizeof *v);
        svec_init(v);
        datum_json_atoms(trace_row_get(row, "datapaths"), v);
        shash_add(&groups, trace_json_str(trace_row_get(row, "_uuid")), v);
    }

    struct sets sets;
    sets_load(&sets.addr_sets, rows[T_AS], "addresses");
    sets_load(&sets.port_groups, rows[T_PG], "ports");
    shash_init(&sets.refs);
    if (!shash_find(&sets.addr_sets, "svc_monitor_mac")) {
        struct svec *mac = xmalloc(sizeof *mac);
        svec_init(mac);
        svec_add(mac, "0a:00:00:00:00:fe");
        shash_add(&sets.addr_sets, "svc_monitor_mac", mac);
    }

    uint32_t mask = idl_bucket_mask(rows[T_LF] ? rows[T_LF]->array.n : 0);
    for (size_t i = 0; rows[T_LF] && i < rows[T_LF]->array.n; i++) {
        const struct json *row = rows[T_LF]->array.elems[i];
        const char *actions_s = trace_json_str(trace_row_get(row,
                                                             "actions"));
        struct ovs_list *actions = xmalloc(sizeof *actions);
        char *err = actions_parse_string(actions_s, &db->symtab, actions);
        if (err) {
            static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);
            VLOG_WARN_RL(&rl, "%s: parsing actions failed (%s)", actions_s,
                         err);
            free(err);
            free(actions);
            db->n_bad_flows++;
            continue;
        }

        struct svec dps = SVEC_EMPTY_INITIALIZER;
        datum_json_atoms(trace_row_get(row, "logical_datapath"), &dps);
        struct svec dpgs = SVEC_EMPTY_INITIALIZER;
        datum_json_atoms(trace_row_get(row, "logical_dp_group"), &dpgs);
        for (size_t j = 0; j < dpgs.n; j++) {
            const struct svec *members = shash_find_data(&groups,
                                                         dpgs.names[j]);
            if (members) {
                svec_append(&dps, members);
            }
        }
        svec_destroy(&dpgs);
        /* The parsed actions are shared by the flow's datapaths; the first
         * one owns them. */
        bool used = false;
        for (size_t j = 0; j < dps.n; j++) {
            struct trace_dp *dp = shash_find_data(&db->dps, dps.names[j]);
            if (dp) {
                size_t before = dp->n_flows;
                add_flow(db, dp, row, &sets, actions, mask);
                used = used || dp->n_flows > before;
            }
        }
        if (!used) {
            actions_destroy(actions);
            free(actions);
        } else {
            db->action_lists = xrealloc(db->action_lists,
                                        (db->n_action_lists + 1)
                                        * sizeof *db->action_lists);
            db->action_lists[db->n_action_lists++] = actions;
        }
        svec_destroy(&dps);
    }

    if (db->n_bad_flows) {
        VLOG_WARN("%d logical flows (on their datapaths) did not parse with "
                  "our language library and are left out of traces",
                  db->n_bad_flows);
    }

    struct shash_node *node;
    SHASH_FOR_EACH (node, &db->dps) {
        struct trace_dp *dp = node->data;
        qsort(dp->flows, dp->n_flows, sizeof *dp->flows, compare_flows);
    }

    for (size_t i = 0; rows[T_FDB] && i < rows[T_FDB]->array.n; i++) {
        const struct json *row = rows[T_FDB]->array.elems[i];
        int64_t dp_key = trace_json_int(trace_row_get(row, "dp_key"));
        struct eth_addr mac;
        if (!eth_addr_from_string(trace_json_str(trace_row_get(row, "mac")),
                                  &mac)) {
            continue;
        }
        SHASH_FOR_EACH (node, &db->dps) {
            struct trace_dp *dp = node->data;
            if (dp->key == dp_key) {
                dp->fdbs = xrealloc(dp->fdbs,
                                    (dp->n_fdbs + 1) * sizeof *dp->fdbs);
                dp->fdbs[dp->n_fdbs].mac = mac;
                dp->fdbs[dp->n_fdbs].port_key
                    = trace_json_int(trace_row_get(row, "port_key"));
                dp->n_fdbs++;
            }
        }
    }

    for (size_t i = 0; rows[T_LB] && i < rows[T_LB]->array.n; i++) {
        const struct json *vips = trace_row_get(rows[T_LB]->array.elems[i],
                                                "vips");
        if (vips && vips->type == JSON_ARRAY && vips->array.n == 2
            && vips->array.elems[1]->type == JSON_ARRAY) {
            const struct json_array *pairs = &vips->array.elems[1]->array;
            for (size_t j = 0; j < pairs->n; j++) {
                const struct json *kv = pairs->elems[j];
                if (kv->type == JSON_ARRAY && kv->array.n == 2
                    && kv->array.elems[0]->type == JSON_STRING) {
                    shash_replace(&db->lb_vips,
                                  json_string(kv->array.elems[0]), NULL);
                }
            }
        }
    }

    for (size_t i = 0; rows[T_MB] && i < rows[T_MB]->array.n; i++) {
        const struct json *row = rows[T_MB]->array.elems[i];
        struct trace_mac_binding mb;
        const char *ip_s = trace_json_str(trace_row_get(row, "ip"));
        struct in6_addr ip6;
        ovs_be32 ip4;
        if (!eth_addr_from_string(trace_json_str(trace_row_get(row, "mac")),
                                  &mb.mac)) {
            continue;
        }
        if (ip_parse(ip_s, &ip4)) {
            mb.ipv6 = false;
            mb.ip = lex_u128_from_u64(ntohl(ip4));
        } else if (ipv6_parse(ip_s, &ip6)) {
            mb.ipv6 = true;
            mb.ip = lex_u128_from_u64(0);
            for (int j = 0; j < 16; j++) {
                mb.ip = lex_u128_or(lex_u128_shl(mb.ip, 8),
                                    lex_u128_from_u64(ip6.s6_addr[j]));
            }
        } else {
            continue;
        }
        mb.port = xstrdup(trace_json_str(trace_row_get(row,
                                                       "logical_port")));
        db->mac_bindings = xrealloc(db->mac_bindings,
                                    (db->n_mac_bindings + 1)
                                    * sizeof *db->mac_bindings);
        db->mac_bindings[db->n_mac_bindings++] = mb;
    }

    SHASH_FOR_EACH (node, &sets.refs) {
        expr_refs_destroy(node->data);
    }
    shash_destroy_free_data(&sets.refs);
    sets_free(&sets.addr_sets);
    sets_free(&sets.port_groups);
    sets_free(&groups);
    for (int t = 0; t < T_N; t++) {
        json_destroy(rows[t]);
    }

    if (nb_remote) {
        static const char *const nb_tables[] = {
            "ACL", "Port_Group", "Logical_Switch", "Load_Balancer",
            "Logical_Switch_Port", "Logical_Router", "Logical_Router_Port",
            "NAT", "Logical_Router_Static_Route", "Logical_Router_Policy",
        };
        struct json *nb[ARRAY_SIZE(nb_tables)];
        error = fetch_tables(nb_remote, "OVN_Northbound", nb_tables,
                             ARRAY_SIZE(nb_tables), nb);
        if (error) {
            return error;
        }
        load_nb(db, nb);
        for (size_t t = 0; t < ARRAY_SIZE(nb_tables); t++) {
            json_destroy(nb[t]);
        }
    }
    return NULL;
}

void
trace_db_destroy(struct trace_db *db)
{
    struct shash_node *node;
    SHASH_FOR_EACH (node, &db->dps) {
        struct trace_dp *dp = node->data;
        /* Parsed actions are shared between datapaths: collect them. */
        for (size_t i = 0; i < dp->n_flows; i++) {
            struct trace_flow *f = dp->flows[i];
            expr_destroy(f->match);
            free(f->stage);
            free(f->source);
            free(f->hint);
            free(f->match_s);
            free(f->actions_s);
            free(f);
        }
        free(dp->flows);
        struct shash_node *mn;
        SHASH_FOR_EACH (mn, &dp->mcgroups) {
            struct trace_mcgroup *mc = mn->data;
            free(mc->name);
            free(mc->ports);
            free(mc);
        }
        shash_destroy(&dp->mcgroups);
        shash_destroy(&dp->ports);
        free(dp->fdbs);
        free(dp->name);
        free(dp->name2);
        free(dp->friendly);
        free(dp);
    }
    shash_destroy(&db->dps);
    SHASH_FOR_EACH (node, &db->ports) {
        struct trace_port *p = node->data;
        for (size_t i = 0; i < p->n_ps; i++) {
            lsp_addresses_destroy(&p->ps[i]);
        }
        free(p->ps);
        free(p->name);
        free(p->friendly);
        free(p->type);
        free(p->peer);
        free(p->distributed_port);
        free(p);
    }
    shash_destroy(&db->ports);
    shash_destroy(&db->lb_vips);
    for (size_t i = 0; i < db->n_action_lists; i++) {
        actions_destroy(db->action_lists[i]);
        free(db->action_lists[i]);
    }
    free(db->action_lists);
    for (size_t i = 0; i < db->n_nb_objs; i++) {
        json_destroy(db->nb_objs[i].row);
        free(db->nb_objs[i].owner);
    }
    free(db->nb_objs);
    for (size_t i = 0; i < db->n_mac_bindings; i++) {
        free(db->mac_bindings[i].port);
    }
    free(db->mac_bindings);
    symtab_destroy(&db->symtab);
}
