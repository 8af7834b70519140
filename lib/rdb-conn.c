/* The replica's connection to its server: JSON-RPC (RFC 7047) over an OVS
 * stream, with reconnection and probes; the schema, the monitor and the
 * lock; and the dispatch of what arrives.  See rdb.h.
 *
 * Messages are not parsed whole: lib/jsplit.h cuts them apart as they
 * arrive, and each row of a monitor reply or update goes straight to
 * rdb.c.  Only small members (ids, methods, errors, lock replies, the
 * schema) are parsed into OVS JSON trees.  ovsdb-server writes "id" and
 * "method" first; if a server put "result" or "params" first, the member
 * is captured whole and applied from the tree instead (slower, same
 * result). */
#include <config.h>
#include "lib/rdb-private.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "coverage.h"
#include "lib/jsplit.h"
#include "lib/jtext.h"
#include "openvswitch/json.h"
#include "openvswitch/poll-loop.h"
#include "openvswitch/vlog.h"
#include "random.h"
#include "reconnect.h"
#include "sset.h"
#include "stream.h"
#include "timeval.h"
#include "util.h"
#include "uuid.h"

VLOG_DEFINE_THIS_MODULE(rdb_conn);

COVERAGE_DEFINE(rdb_reconnect);
COVERAGE_DEFINE(rdb_resync);
COVERAGE_DEFINE(rdb_member_skipped);
COVERAGE_DEFINE(rdb_whole_message);
COVERAGE_DEFINE(rdb_resume);
COVERAGE_DEFINE(rdb_full_copy);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

#define RDB_INBUF_SIZE (256 * 1024)

/* How much of a transaction a producer keeps queued ahead of the
 * server. */
#define RDB_OUT_LOW_WATER (1024 * 1024)

static void msg_clear(struct rdb_msg *);
static void conn_disconnect(struct rdb *, int error, const char *why);
static void send_monitor(struct rdb *);
static void send_lock(struct rdb *, const char *method, const char *name);
static void send_server_monitor(struct rdb *);

/* Output. */

long long int
rdb_conn_next_id(struct rdb *db)
{
    return db->next_id++;
}

void
rdb_conn_send(struct rdb *db, struct ds *data)
{
    if (!db->stream || db->connecting) {
        ds_clear(data);
        return;
    }
    struct rdb_out *o = xmalloc(sizeof *o);
    o->data = *data;
    o->sent = 0;
    ds_init(data);
    db->out_bytes += o->data.length;
    ovs_list_push_back(&db->out, &o->node);
}

size_t
rdb_conn_backlog(const struct rdb *db)
{
    return db->out_bytes;
}

static void
out_clear(struct rdb *db)
{
    struct rdb_out *o;
    LIST_FOR_EACH_POP (o, node, &db->out) {
        ds_destroy(&o->data);
        free(o);
    }
    db->out_bytes = 0;
}

/* Sends what the stream takes.  Returns false if the connection failed. */
static bool
flush_output(struct rdb *db)
{
    for (;;) {
        if (rdb_conn_backlog(db) < RDB_OUT_LOW_WATER
            && rdb_txn_wants_output(db)) {
            rdb_txn_fill_output(db);
        }
        if (ovs_list_is_empty(&db->out)) {
            return true;
        }
        struct rdb_out *o = CONTAINER_OF(ovs_list_front(&db->out),
                                         struct rdb_out, node);
        int n = stream_send(db->stream, o->data.string + o->sent,
                            o->data.length - o->sent);
        if (n == -EAGAIN) {
            return true;
        } else if (n < 0) {
            conn_disconnect(db, -n, "send failed");
            return false;
        }
        o->sent += n;
        db->out_bytes -= n;
        if (o->sent >= o->data.length) {
            ovs_list_remove(&o->node);
            ds_destroy(&o->data);
            free(o);
        }
    }
}

void
rdb_conn_flush(struct rdb *db)
{
    if (db->stream && !db->connecting) {
        flush_output(db);
    }
}

static void
send_json_request(struct rdb *db, long long int id, const char *method,
                  const struct json *params)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    ds_put_format(&s, "{\"id\":%lld,\"method\":", id);
    json_string_escape(method, &s);
    ds_put_cstr(&s, ",\"params\":");
    json_to_ds(params, 0, &s);
    ds_put_char(&s, '}');
    rdb_conn_send(db, &s);
    ds_destroy(&s);
}

/* Remotes. */

/* Splits the comma-separated 'remote' into 'remotes', skipping empty
 * members and white space around them. */
static void
split_remotes(const char *remote, struct svec *remotes)
{
    char *copy = xstrdup(remote);
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char) *tok)) {
            tok++;
        }
        size_t n = strlen(tok);
        while (n && isspace((unsigned char) tok[n - 1])) {
            tok[--n] = '\0';
        }
        if (n) {
            svec_add(remotes, tok);
        }
    }
    free(copy);
}

char *
rdb_check_remote(const char *remote)
{
    struct svec remotes = SVEC_EMPTY_INITIALIZER;
    split_remotes(remote, &remotes);
    char *error = NULL;
    if (!remotes.n) {
        error = xasprintf("\"%s\": no database remote given", remote);
    }
    for (size_t i = 0; !error && i < remotes.n; i++) {
        const char *name = remotes.names[i];
        int retval = stream_verify_name(name);
        const char *colon = strchr(name, ':');
        if (retval) {
            error = xasprintf("\"%s\": not a database remote "
                              "(tcp:IP:PORT, ssl:IP:PORT or unix:FILE): %s",
                              name, ovs_strerror(retval));
        } else if (!colon[1]) {
            error = xasprintf("\"%s\": no address after \"%.*s\"", name,
                              (int) (colon - name + 1), name);
        }
    }
    svec_destroy(&remotes);
    return error;
}

void
rdb_conn_set_remotes(struct rdb *db, const char *remote)
{
    svec_init(&db->remotes);
    split_remotes(remote, &db->remotes);
    if (!db->remotes.n) {
        svec_add(&db->remotes, remote);
    }
    /* Northds given the same list should not all try the same member
     * first. */
    for (size_t i = db->remotes.n; i > 1; i--) {
        size_t j = random_range(i);
        char *tmp = db->remotes.names[i - 1];
        db->remotes.names[i - 1] = db->remotes.names[j];
        db->remotes.names[j] = tmp;
    }
    db->next_remote = 0;
    db->remote = db->remotes.names[0];
}

/* Connection life. */

void
rdb_conn_init(struct rdb *db)
{
    long long int now = time_msec();
    db->reconnect = reconnect_create(now);
    reconnect_set_name(db->reconnect, db->remote);
    rdb_set_probe_interval(db, -1);
    /* Each member once without delay before backing off. */
    reconnect_set_backoff_free_tries(db->reconnect, db->remotes.n);
    reconnect_enable(db->reconnect, now);
    db->inbuf = xmalloc(RDB_INBUF_SIZE);
    ovs_list_init(&db->out);
    db->next_id = 1;
    db->schema_id = db->monitor_id = db->lock_id = db->snapshot_id = -1;
    db->server_id = -1;
}

static enum jsplit_action msg_start(void *, const struct jsplit *, char);
static void msg_value(void *, const struct jsplit *, const char *, size_t);
static void msg_end(void *, const struct jsplit *);

static const struct jsplit_handler msg_handler = {
    msg_start, msg_value, msg_end,
};

static void
conn_close(struct rdb *db)
{
    if (db->stream) {
        stream_close(db->stream);
        db->stream = NULL;
    }
    db->connecting = false;
    out_clear(db);
    if (db->msg.kind == RDB_M_MONITOR_REPLY || db->msg.kind == RDB_M_UPDATE) {
        rdb_update_end(db);
    }
    if (db->msg.applying || db->fresh_copy) {
        /* Half of a change, or of a copy, is applied: only a full copy
         * can tell what the rest was. */
        db->last_txn_id = UUID_ZERO;
    }
    if (db->state >= RDB_C_SCHEMA) {
        /* A member that was left before it served says nothing. */
        db->lock_held_at_close = db->has_lock;
    }
    msg_clear(&db->msg);
    if (db->splitter) {
        jsplit_reset(db->splitter);
    }
    db->state = RDB_C_IDLE;
    db->synced = false;
    db->has_lock = false;
    db->lock_requested = false;
    db->schema_id = db->monitor_id = db->lock_id = db->snapshot_id = -1;
    db->server_id = -1;
    db->monitor_pending = false;
    rdb_txn_disconnected(db);
}

static void
conn_disconnect(struct rdb *db, int error, const char *why)
{
    if (!db->stream) {
        return;
    }
    if (why) {
        VLOG_WARN_RL(&rl, "%s: %s%s%s, reconnecting", db->remote, why,
                     error ? ": " : "", error ? ovs_strerror(error) : "");
    }
    COVERAGE_INC(rdb_reconnect);
    reconnect_disconnected(db->reconnect, time_msec(), error);
    conn_close(db);
}

void
rdb_conn_destroy(struct rdb *db)
{
    conn_close(db);
    reconnect_destroy(db->reconnect);
    jsplit_destroy(db->splitter);
    free(db->inbuf);
    free(db->lock_name);
    free(db->server_version);
}

static void
conn_connected(struct rdb *db)
{
    if (!db->splitter) {
        db->splitter = jsplit_create(&msg_handler, db);
    }
    jsplit_reset(db->splitter);
    msg_clear(&db->msg);
    db->conn_seqno++;
    send_server_monitor(db);
}

/* The server may serve the database: asks for its schema and contents,
 * and takes part in the lock. */
static void
conn_server_ok(struct rdb *db)
{
    db->state = RDB_C_SCHEMA;
    db->schema_id = rdb_conn_next_id(db);
    struct json *params = json_array_create_1(
        json_string_create(db->class->database));
    send_json_request(db, db->schema_id, "get_schema", params);
    json_destroy(params);
    if (db->lock_name) {
        send_lock(db, "lock", db->lock_name);
    }
}

static void
read_input(struct rdb *db)
{
    for (int i = 0; i < 64; i++) {
        if (!db->stream) {
            return;
        }
        reconnect_receive_attempted(db->reconnect, time_msec());
        int n = stream_recv(db->stream, db->inbuf, RDB_INBUF_SIZE);
        if (n > 0) {
            reconnect_activity(db->reconnect, time_msec());
            const char *error = jsplit_feed(db->splitter, db->inbuf, n);
            if (error) {
                conn_disconnect(db, 0, error);
                return;
            }
        } else if (n == 0) {
            conn_disconnect(db, 0, "connection closed by server");
            return;
        } else if (n == -EAGAIN) {
            return;
        } else {
            conn_disconnect(db, -n, "receive failed");
            return;
        }
    }
    /* Plenty more to read: let the caller's other work in first. */
    poll_immediate_wake();
}

void
rdb_conn_run(struct rdb *db)
{
    long long int now = time_msec();
    if (db->stream && db->connecting) {
        int error = stream_connect(db->stream);
        if (!error) {
            db->connecting = false;
            reconnect_connected(db->reconnect, now);
            conn_connected(db);
        } else if (error != EAGAIN) {
            reconnect_connect_failed(db->reconnect, now, error);
            stream_close(db->stream);
            db->stream = NULL;
            db->connecting = false;
        }
    }
    if (db->stream && !db->connecting) {
        stream_run(db->stream);
        if (flush_output(db)) {
            read_input(db);
        }
        if (db->stream) {
            flush_output(db);
        }
    }

    switch (reconnect_run(db->reconnect, time_msec())) {
    case RECONNECT_CONNECT: {
        conn_close(db);
        db->remote = db->remotes.names[db->next_remote];
        db->next_remote = (db->next_remote + 1) % db->remotes.n;
        reconnect_set_name(db->reconnect, db->remote);
        int error = stream_open(db->remote, &db->stream, DSCP_DEFAULT);
        if (!error) {
            db->connecting = true;
            reconnect_connecting(db->reconnect, time_msec());
        } else {
            reconnect_connect_failed(db->reconnect, time_msec(), error);
        }
        break;
    }
    case RECONNECT_DISCONNECT:
        reconnect_disconnected(db->reconnect, time_msec(), 0);
        conn_close(db);
        break;
    case RECONNECT_PROBE:
        if (db->stream && !db->connecting) {
            struct ds s = DS_EMPTY_INITIALIZER;
            ds_put_cstr(&s, "{\"id\":\"echo\",\"method\":\"echo\","
                        "\"params\":[]}");
            rdb_conn_send(db, &s);
            ds_destroy(&s);
            flush_output(db);
        }
        break;
    default:
        break;
    }
}

void
rdb_conn_wait(struct rdb *db)
{
    reconnect_wait(db->reconnect, time_msec());
    if (!db->stream) {
        return;
    }
    if (db->connecting) {
        stream_connect_wait(db->stream);
        return;
    }
    stream_run_wait(db->stream);
    stream_recv_wait(db->stream);
    if (!ovs_list_is_empty(&db->out) || rdb_txn_wants_output(db)) {
        stream_send_wait(db->stream);
    }
}

void
rdb_run(struct rdb *db)
{
    rdb_conn_run(db);
}

void
rdb_wait(struct rdb *db)
{
    rdb_conn_wait(db);
}

bool
rdb_is_connected(const struct rdb *db)
{
    return (db->stream && !db->connecting && db->state != RDB_C_IDLE
            && db->state != RDB_C_SERVER);
}

/* Schema and monitor. */

static void
process_schema(struct rdb *db, const struct json *schema)
{
    const struct json *tables = (schema && schema->type == JSON_OBJECT
                                 ? shash_find_data(json_object(schema),
                                                   "tables") : NULL);
    if (!tables || tables->type != JSON_OBJECT) {
        conn_disconnect(db, 0, "bad schema from server");
        return;
    }

    /* A server may have been given another schema since the last
     * connection (upgraded while we were away): say so when it changes. */
    const struct json *version = shash_find_data(json_object(schema),
                                                 "version");
    const char *v = (version && version->type == JSON_STRING
                     ? json_string(version) : NULL);
    bool changed = false;
    if (!db->have_schema || !nullable_string_is_equal(v,
                                                      db->server_version)) {
        changed = true;
        VLOG_INFO("%s: server's %s schema is version %s (this program's: "
                  "%s)", db->remote, db->class->database, v ? v : "unknown",
                  db->class->version);
        free(db->server_version);
        db->server_version = nullable_xstrdup(v);
    }

    rdb_server_schema_clear(db);
    struct shash_node *node;
    SHASH_FOR_EACH (node, json_object(tables)) {
        const struct json *ts = node->data;
        const struct json *cols = (ts->type == JSON_OBJECT
                                   ? shash_find_data(json_object(ts),
                                                     "columns") : NULL);
        struct sset *names = xmalloc(sizeof *names);
        sset_init(names);
        if (cols && cols->type == JSON_OBJECT) {
            struct shash_node *cn;
            SHASH_FOR_EACH (cn, json_object(cols)) {
                sset_add(names, cn->name);
            }
        }
        shash_add(&db->server_schema, node->name, names);
    }
    for (size_t i = 0; i < db->class->n_tables; i++) {
        struct rdb_table *t = &db->tables[i];
        const struct rdb_table_class *tc = t->class;
        const struct sset *cols = shash_find_data(&db->server_schema,
                                                  tc->name);
        uint64_t old_columns = t->server_columns;
        bool was_on_server = t->on_server;
        t->on_server = cols != NULL;
        t->server_columns = 0;
        for (size_t j = 0; t->on_server && j < tc->n_columns; j++) {
            if (sset_contains(cols, tc->columns[j].name)) {
                t->server_columns |= UINT64_C(1) << j;
            }
        }
        if (!db->have_schema || was_on_server != t->on_server
            || old_columns != t->server_columns) {
            changed = true;
            /* What is missing, once per schema; a write to it is logged
             * once more (rdb-txn.c). */
            t->absence_logged = false;
            t->absent_logged = 0;
            if (!t->on_server) {
                VLOG_INFO("%s: server has no table %s", db->remote,
                          tc->name);
            }
            for (size_t j = 0; t->on_server && j < tc->n_columns; j++) {
                if (!(t->server_columns & (UINT64_C(1) << j))) {
                    VLOG_INFO("%s: server has no column %s.%s",
                              db->remote, tc->name, tc->columns[j].name);
                }
            }
        }
    }
    if (changed) {
        /* The monitor asks for other tables or columns than the one whose
         * changes the replica last followed: a delta would leave out the
         * values of what is new. */
        db->last_txn_id = UUID_ZERO;
    }
    db->have_schema = true;
    send_monitor(db);
}

bool
rdb_server_has_table(const struct rdb *db, const struct rdb_table_class *tc)
{
    return !rdb_table_absent(db, rdb_table(db, tc));
}

bool
rdb_server_has_column(const struct rdb *db, const struct rdb_table_class *tc,
                      size_t col)
{
    return !rdb_column_absent(db, rdb_table(db, tc), col);
}

const char *
rdb_server_schema_version(const struct rdb *db)
{
    return db->server_version;
}

/* True if the server reports neither inserts nor modifications of 'tc':
 * the replica applies its own writes to it (see rdb.h). */
static bool
is_local_table(const struct rdb_table_class *tc)
{
    return !(tc->select & (RDB_SELECT_INSERT | RDB_SELECT_MODIFY));
}

/* Appends one <monitor-request> for table 't', with the columns the server
 * has (none if 'no_columns') and 'select'. */
static void
put_one_request(struct ds *s, const struct rdb_table *t, bool no_columns,
                unsigned int select)
{
    const struct rdb_table_class *tc = t->class;
    ds_put_cstr(s, "{\"columns\":[");
    bool first_col = true;
    for (size_t j = 0; !no_columns && j < tc->n_columns; j++) {
        if (t->server_columns & (UINT64_C(1) << j)) {
            if (!first_col) {
                ds_put_char(s, ',');
            }
            first_col = false;
            json_string_escape(tc->columns[j].name, s);
        }
    }
    ds_put_char(s, ']');
    unsigned int all = (RDB_SELECT_INITIAL | RDB_SELECT_INSERT
                        | RDB_SELECT_MODIFY | RDB_SELECT_DELETE);
    if (select != all) {
        ds_put_format(s, ",\"select\":{\"initial\":%s,\"insert\":%s,"
                      "\"modify\":%s,\"delete\":%s}",
                      select & RDB_SELECT_INITIAL ? "true" : "false",
                      select & RDB_SELECT_INSERT ? "true" : "false",
                      select & RDB_SELECT_MODIFY ? "true" : "false",
                      select & RDB_SELECT_DELETE ? "true" : "false");
    }
    ds_put_char(s, '}');
}

/* Appends the monitor request for table 't', with the columns the server
 * has (none if 'no_columns') and 'select'. */
static void
put_table_request(struct ds *s, const struct rdb_table *t, bool no_columns,
                  unsigned int select)
{
    json_string_escape(t->class->name, s);
    ds_put_char(s, ':');
    ds_put_char(s, '[');
    put_one_request(s, t, no_columns, select);
    ds_put_char(s, ']');
}

/* The main monitor's request for 't', a table whose inserts and
 * modifications the replica does not follow.  If the user owns it (SB
 * Logical_Flow), someone else's inserts and modifications must still be
 * seen: inserts are asked for without columns, so that the server reports
 * each as a bare UUID ({"insert":{}}, about 50 bytes for each of the
 * user's own), and modifications with every column, in a second request
 * (a column may be named only once).  Either way the server clones the
 * monitored columns of each change into its change set (by reference
 * count, not by copy). */
static void
put_local_table_request(struct ds *s, const struct rdb_table *t)
{
    unsigned int select = t->class->select & ~RDB_SELECT_INITIAL;
    json_string_escape(t->class->name, s);
    ds_put_cstr(s, ":[");
    if (t->class->owned) {
        put_one_request(s, t, true, select | RDB_SELECT_INSERT);
        ds_put_char(s, ',');
        put_one_request(s, t, false, RDB_SELECT_MODIFY);
    } else {
        put_one_request(s, t, true, select);
    }
    ds_put_char(s, ']');
}

/* Sends the request for the contents of the tables whose inserts and
 * modifications the main monitor does not report (see send_monitor()):
 * a monitor that asks for their initial rows only and is cancelled as
 * soon as they arrive. */
static void
send_snapshot(struct rdb *db)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    db->snapshot_wanted = false;
    db->snapshot_id = rdb_conn_next_id(db);
    ds_put_format(&s, "{\"id\":%lld,\"method\":\"monitor_cond\","
                  "\"params\":[", db->snapshot_id);
    json_string_escape(db->class->database, &s);
    ds_put_format(&s, ",[\"rdb-snapshot\",%u],{", db->monitor_seq);
    bool first = true;
    for (size_t i = 0; i < db->class->n_tables; i++) {
        const struct rdb_table *t = &db->tables[i];
        if (t->on_server && is_local_table(t->class)) {
            if (!first) {
                ds_put_char(&s, ',');
            }
            first = false;
            put_table_request(&s, t, false, RDB_SELECT_INITIAL);
        }
    }
    ds_put_cstr(&s, "}]}");
    rdb_conn_send(db, &s);
    ds_destroy(&s);
}

/* Sends the monitor requests.  The main monitor follows every table.  A
 * table whose inserts and modifications are not to be reported (SB
 * Logical_Flow, where northd inserts tens of thousands of rows at a time)
 * is in it without columns: otherwise the server would copy every
 * monitored column of every such insert into its change set, only to
 * report nothing.  Its contents come from a second monitor (see
 * send_snapshot()).
 *
 * The main monitor is a "monitor_cond_since" with the id of the last
 * transaction the replica applied in full, unless the server refused
 * that method before.  A server that still has that transaction in its
 * history (a clustered database) replies with what changed since, and
 * the replica keeps its rows: no snapshot, no reset.  Otherwise the reply
 * is a full copy, and the snapshot is asked for once it is in. */
static void
send_monitor(struct rdb *db)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    db->monitor_id = rdb_conn_next_id(db);
    db->monitor_seq++;
    db->monitor_since = !db->since_unsupported;
    ds_put_format(&s, "{\"id\":%lld,\"method\":\"%s\",\"params\":[",
                  db->monitor_id,
                  db->monitor_since ? "monitor_cond_since" : "monitor_cond");
    json_string_escape(db->class->database, &s);
    ds_put_format(&s, ",[\"rdb\",%u],{", db->monitor_seq);
    bool first = true;
    bool any_local = false;
    for (size_t i = 0; i < db->class->n_tables; i++) {
        const struct rdb_table *t = &db->tables[i];
        if (!t->on_server) {
            continue;
        }
        if (!first) {
            ds_put_char(&s, ',');
        }
        first = false;
        bool local = is_local_table(t->class);
        any_local |= local;
        if (local) {
            put_local_table_request(&s, t);
        } else {
            put_table_request(&s, t, false, t->class->select);
        }
    }
    ds_put_char(&s, '}');
    if (db->monitor_since) {
        ds_put_format(&s, ",\""UUID_FMT"\"", UUID_ARGS(&db->last_txn_id));
    }
    ds_put_cstr(&s, "]}");
    rdb_conn_send(db, &s);
    ds_destroy(&s);
    db->monitor_pending = true;

    db->snapshot_id = -1;
    db->snapshot_wanted = false;
    if (any_local) {
        if (db->monitor_since) {
            db->snapshot_wanted = true;
        } else {
            send_snapshot(db);
        }
    }
    db->state = RDB_C_MONITOR;
}

static void
cancel_snapshot(struct rdb *db)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    ds_put_format(&s, "{\"id\":%lld,\"method\":\"monitor_cancel\","
                  "\"params\":[[\"rdb-snapshot\",%u]]}",
                  rdb_conn_next_id(db), db->monitor_seq);
    rdb_conn_send(db, &s);
    ds_destroy(&s);
}

void
rdb_force_resync(struct rdb *db)
{
    /* Whatever the replica has applied is in doubt: the next monitor,
     * now or on the next connection, fetches a full copy. */
    db->last_txn_id = UUID_ZERO;
    if (db->state != RDB_C_SYNCED && db->state != RDB_C_MONITOR) {
        return;
    }
    COVERAGE_INC(rdb_resync);
    struct ds s = DS_EMPTY_INITIALIZER;
    ds_put_format(&s, "{\"id\":%lld,\"method\":\"monitor_cancel\","
                  "\"params\":[[\"rdb\",%u]]}", rdb_conn_next_id(db),
                  db->monitor_seq);
    rdb_conn_send(db, &s);
    ds_destroy(&s);
    if (db->snapshot_id >= 0) {
        cancel_snapshot(db);
    }
    db->synced = false;
    send_monitor(db);
}

/* The cluster.
 *
 * Every connection starts with a monitor of the server's _Server database
 * (RFC 7047 "monitor", so that each update carries whole rows): the
 * database's row says whether it is clustered and, if so, whether this
 * member is connected to the cluster, is its leader and how far its log
 * goes.  Only a member fit to serve gets the schema, monitor and lock
 * requests; an update that makes it unfit (a lost leadership) makes the
 * replica leave it for the next member. */

#define SERVER_MONITOR "rdb-server"

static void
send_server_monitor(struct rdb *db)
{
    db->state = RDB_C_SERVER;
    db->server_id = rdb_conn_next_id(db);
    struct ds s = DS_EMPTY_INITIALIZER;
    ds_put_format(&s, "{\"id\":%lld,\"method\":\"monitor\",\"params\":"
                  "[\"_Server\",[\"%s\",%u],{\"Database\":{\"columns\":"
                  "[\"name\",\"model\",\"connected\",\"leader\","
                  "\"index\"]}}]}",
                  db->server_id, SERVER_MONITOR, db->conn_seqno);
    rdb_conn_send(db, &s);
    ds_destroy(&s);
}

static const struct json *
row_column(const struct json *row, const char *column)
{
    return (row && row->type == JSON_OBJECT
            ? shash_find_data(json_object(row), column) : NULL);
}

/* An optional integer column: N or ["set",[]] or ["set",[N]]. */
static bool
row_optional_int(const struct json *row, const char *column, int64_t *value)
{
    const struct json *v = row_column(row, column);
    if (v && v->type == JSON_ARRAY && json_array(v)->n == 2
        && json_array(v)->elems[1]->type == JSON_ARRAY
        && json_array(json_array(v)->elems[1])->n == 1) {
        v = json_array(json_array(v)->elems[1])->elems[0];
    }
    if (v && v->type == JSON_INTEGER) {
        *value = json_integer(v);
        return true;
    }
    return false;
}

/* Returns NULL if the server whose _Server row for our database is 'row'
 * may serve it, otherwise a malloc'd reason. */
static char *
server_row_problem(struct rdb *db, const struct json *row)
{
    const struct json *model = row_column(row, "model");
    if (!model || model->type != JSON_STRING
        || strcmp(json_string(model), "clustered")) {
        return NULL;
    }
    const struct json *connected = row_column(row, "connected");
    const struct json *leader = row_column(row, "leader");
    if (!connected || connected->type != JSON_TRUE) {
        return xasprintf("clustered database %s is not connected to its "
                         "cluster", db->class->database);
    }
    if (!leader || leader->type != JSON_TRUE) {
        return xasprintf("clustered database %s: not the cluster leader",
                         db->class->database);
    }
    int64_t index;
    if (row_optional_int(row, "index", &index) && index >= 0) {
        if (index < db->min_index) {
            return xasprintf("clustered database %s is stale (log index "
                             "%"PRId64", %"PRIu64" seen before)",
                             db->class->database, index, db->min_index);
        }
        db->min_index = index;
    }
    return NULL;
}

/* Leaves the current member for the next one.  Deferred: we are inside
 * the splitter. */
static void
leave_member(struct rdb *db, const char *why)
{
    static struct vlog_rate_limit leave_rl = VLOG_RATE_LIMIT_INIT(5, 20);
    VLOG_INFO_RL(&leave_rl, "%s: %s, trying %s", db->remote, why,
                 db->remotes.n > 1 ? "another member" : "again");
    COVERAGE_INC(rdb_member_skipped);
    /* The cluster is up but this member cannot serve: during an election
     * the next member may lead a moment later.  Rather than backing off
     * up to 8 s as for a server that is down, try every member in turn
     * at most once a second. */
    long long int now = time_msec();
    if (now - db->round_start >= 1000) {
        db->round_start = now;
        reconnect_set_backoff_free_tries(db->reconnect, db->remotes.n);
    }
    reconnect_force_reconnect(db->reconnect, now);
    poll_immediate_wake();
}

/* Applies the <table-updates> of the _Server monitor ('initial': its
 * reply). */
static void
server_update(struct rdb *db, const struct json *updates, bool initial)
{
    const struct json *rows = row_column(updates, "Database");
    bool found = false;
    char *problem = NULL;
    if (rows && rows->type == JSON_OBJECT) {
        struct shash_node *node;
        SHASH_FOR_EACH (node, json_object(rows)) {
            const struct json *new = row_column(node->data, "new");
            const struct json *old = row_column(node->data, "old");
            const struct json *name = row_column(new ? new : old, "name");
            if (!name || name->type != JSON_STRING
                || strcmp(json_string(name), db->class->database)) {
                continue;
            }
            found = true;
            free(problem);
            problem = (new ? server_row_problem(db, new)
                       : xasprintf("database %s was removed",
                                   db->class->database));
        }
    }
    if (initial && !found) {
        problem = xasprintf("server does not serve database %s",
                            db->class->database);
    }
    if (problem) {
        leave_member(db, problem);
        free(problem);
    } else if (db->state == RDB_C_SERVER) {
        /* Next time the connection is lost, every member gets a try
         * before backing off. */
        reconnect_set_backoff_free_tries(db->reconnect, db->remotes.n);
        conn_server_ok(db);
    }
}

/* True if 'params' of an "update" notification are for the _Server
 * monitor of the current connection. */
static bool
is_server_update(const struct rdb *db, const struct json *params)
{
    const struct json *name = (params && params->type == JSON_ARRAY
                               && json_array(params)->n == 2
                               ? json_array(params)->elems[0] : NULL);
    return (name && name->type == JSON_ARRAY && json_array(name)->n == 2
            && json_array(name)->elems[0]->type == JSON_STRING
            && !strcmp(json_string(json_array(name)->elems[0]),
                       SERVER_MONITOR)
            && json_array(name)->elems[1]->type == JSON_INTEGER
            && json_integer(json_array(name)->elems[1]) == db->conn_seqno);
}

void
rdb_set_probe_interval(struct rdb *db, int msec)
{
    if (msec < 0) {
        bool probes = false;
        for (size_t i = 0; i < db->remotes.n; i++) {
            probes |= stream_or_pstream_needs_probes(db->remotes.names[i]) > 0;
        }
        msec = probes ? 5000 : 0;
    }
    if (reconnect_get_probe_interval(db->reconnect) != msec) {
        if (db->splitter) {
            /* Not the default set at creation. */
            VLOG_INFO("%s: inactivity probe interval %d ms%s", db->remote,
                      msec, msec ? "" : " (disabled)");
        }
        reconnect_set_probe_interval(db->reconnect, msec);
    }
}

void
rdb_cluster_state_reset(struct rdb *db)
{
    db->min_index = 0;
    if (db->stream) {
        reconnect_force_reconnect(db->reconnect, time_msec());
        poll_immediate_wake();
    }
}

/* Locks. */

static void
send_lock(struct rdb *db, const char *method, const char *name)
{
    long long int id = rdb_conn_next_id(db);
    struct json *params = json_array_create_1(json_string_create(name));
    send_json_request(db, id, method, params);
    json_destroy(params);
    if (!strcmp(method, "lock")) {
        db->lock_id = id;
        db->lock_requested = true;
    }
}

void
rdb_set_lock(struct rdb *db, const char *lock_name)
{
    if (nullable_string_is_equal(lock_name, db->lock_name)) {
        return;
    }
    if (db->lock_name && rdb_is_connected(db)) {
        send_lock(db, "unlock", db->lock_name);
    }
    free(db->lock_name);
    db->lock_name = nullable_xstrdup(lock_name);
    db->has_lock = false;
    db->lock_requested = false;
    db->lock_id = -1;
    if (db->lock_name && rdb_is_connected(db)) {
        send_lock(db, "lock", db->lock_name);
    }
}

bool
rdb_has_lock(const struct rdb *db)
{
    return db->lock_name && db->has_lock && rdb_is_connected(db);
}

/* Reading messages. */

static void
msg_clear(struct rdb_msg *m)
{
    json_destroy(m->id);
    free(m->method);
    json_destroy(m->result);
    json_destroy(m->error);
    json_destroy(m->params);
    free(m->txn_error);
    memset(m, 0, sizeof *m);
}

static bool
msg_id_is(const struct rdb_msg *m, long long int id)
{
    return (id >= 0 && m->have_id && m->id && m->id->type == JSON_INTEGER
            && json_integer(m->id) == id);
}

static bool
is_update_method(const char *method)
{
    return method && (!strcmp(method, "update2")
                      || !strcmp(method, "update3"));
}

/* Parses a captured value.  OVS's parser wants an object or array at the
 * top, so the value goes inside one. */
static struct json *
parse_small(const char *s, size_t n)
{
    char *copy = xmalloc(n + 3);
    copy[0] = '[';
    memcpy(copy + 1, s, n);
    copy[n + 1] = ']';
    copy[n + 2] = '\0';
    struct json *json = json_from_string(copy);
    free(copy);
    if (json->type == JSON_ARRAY && json_array(json)->n == 1) {
        struct json *elem = json_array(json)->elems[0];
        json_array(json)->elems[0] = NULL;
        json_array(json)->n = 0;
        json_destroy(json);
        return elem;
    }
    return json;
}

static void
protocol_error(struct rdb *db, const char *what)
{
    /* Deferred: we are inside the splitter. */
    if (db->stream) {
        VLOG_WARN_RL(&rl, "%s: %s", db->remote, what);
        reconnect_force_reconnect(db->reconnect, time_msec());
        poll_immediate_wake();
    }
}

static enum jsplit_action
msg_start(void *db_, const struct jsplit *js, char c)
{
    struct rdb *db = db_;
    struct rdb_msg *m = &db->msg;
    size_t depth = jsplit_depth(js);

    if (depth == 0) {
        msg_clear(m);
        return JSPLIT_DESCEND;
    }
    if (depth == 1) {
        const char *key = jsplit_key(js, 0);
        if (!strcmp(key, "id") || !strcmp(key, "method")
            || !strcmp(key, "error")) {
            return JSPLIT_CAPTURE;
        }
        if (!strcmp(key, "result")) {
            if (c == '[' && msg_id_is(m, db->monitor_id)
                && db->monitor_since) {
                /* [found, last-txn-id, table-updates2]: see below. */
                m->kind = RDB_M_MONITOR_REPLY;
                m->since_reply = true;
                m->streamed = true;
                return JSPLIT_DESCEND;
            }
            if (c == '{' && msg_id_is(m, db->monitor_id)) {
                m->kind = RDB_M_MONITOR_REPLY;
                m->streamed = true;
                m->applying = true;
                rdb_reset(db);
                rdb_update_begin(db);
                return JSPLIT_DESCEND;
            }
            if (c == '{' && msg_id_is(m, db->snapshot_id)) {
                m->kind = RDB_M_MONITOR_REPLY;
                m->streamed = true;
                m->applying = true;
                rdb_update_begin(db);
                return JSPLIT_DESCEND;
            }
            if (c == '[' && msg_id_is(m, rdb_txn_pending_id(db))) {
                m->kind = RDB_M_TXN_REPLY;
                m->streamed = true;
                return JSPLIT_DESCEND;
            }
            if (!m->have_id) {
                COVERAGE_INC(rdb_whole_message);
            } else if (!msg_id_is(m, db->schema_id)
                       && !msg_id_is(m, db->lock_id)
                       && !msg_id_is(m, db->server_id)
                       && !msg_id_is(m, db->monitor_id)
                       && !msg_id_is(m, db->snapshot_id)
                       && !msg_id_is(m, rdb_txn_pending_id(db))) {
                /* E.g. a monitor replaced by rdb_force_resync(): its
                 * contents are of no use. */
                return JSPLIT_SKIP;
            }
            return JSPLIT_CAPTURE;
        }
        if (!strcmp(key, "params")) {
            if (c == '[' && is_update_method(m->method)) {
                m->kind = RDB_M_UPDATE;
                m->streamed = true;
                rdb_update_begin(db);
                return JSPLIT_DESCEND;
            }
            if (!m->method) {
                COVERAGE_INC(rdb_whole_message);
            }
            return JSPLIT_CAPTURE;
        }
        return JSPLIT_SKIP;
    }

    /* Rows of a monitor reply (depth 3), or of an update or a
     * "monitor_cond_since" reply (depth 4). */
    size_t tables_depth = (m->kind == RDB_M_MONITOR_REPLY
                           && !m->since_reply ? 2 : 3);
    if (m->kind == RDB_M_UPDATE && depth == 2) {
        size_t idx = jsplit_index(js, 1);
        size_t updates_idx = !strcmp(m->method, "update3") ? 2 : 1;
        if (idx == 0 || idx < updates_idx) {
            return JSPLIT_CAPTURE;  /* The monitor's name, last-txn-id. */
        }
        if (idx == updates_idx && !m->table_skip) {
            m->applying = true;
            return JSPLIT_DESCEND;
        }
        return JSPLIT_SKIP;
    }
    if (m->since_reply && depth == 2) {
        size_t idx = jsplit_index(js, 1);
        if (idx < 2) {
            return JSPLIT_CAPTURE;          /* found, last-txn-id. */
        }
        if (idx == 2 && c == '{') {
            /* Not found: what follows is a full copy. */
            if (!m->since_found) {
                rdb_reset(db);
            }
            m->applying = true;
            rdb_update_begin(db);
            return JSPLIT_DESCEND;
        }
        return JSPLIT_SKIP;
    }
    if (m->kind == RDB_M_MONITOR_REPLY || m->kind == RDB_M_UPDATE) {
        if (depth == tables_depth) {
            const char *name = jsplit_key(js, depth - 1);
            m->table = NULL;
            for (size_t i = 0; i < db->class->n_tables; i++) {
                if (!strcmp(db->class->tables[i]->name, name)) {
                    m->table = &db->tables[i];
                    break;
                }
            }
            return m->table ? JSPLIT_DESCEND : JSPLIT_SKIP;
        }
        if (depth == tables_depth + 1) {
            return JSPLIT_CAPTURE;
        }
        return JSPLIT_SKIP;
    }
    if (m->kind == RDB_M_TXN_REPLY && depth == 2) {
        return JSPLIT_CAPTURE;
    }
    return JSPLIT_SKIP;
}

/* True if 's' (of 'n' bytes) is, exactly as ovsdb-server writes them, the
 * result of a successful insert, {"uuid":["uuid","UUID"]}, or of a
 * successful update, mutate or delete, {"count":N}, which can hold no
 * error.  A cold start's transaction has one result per row it inserts,
 * and this is cheaper than searching each for "error". */
static bool
is_plain_result(const char *s, size_t n)
{
    static const char uuid_prefix[] = "{\"uuid\":[\"uuid\",\"";
    static const char count_prefix[] = "{\"count\":";
    size_t up = sizeof uuid_prefix - 1, cp = sizeof count_prefix - 1;

    if (n == up + UUID_LEN + 3 && !memcmp(s, uuid_prefix, up)
        && !memcmp(s + up + UUID_LEN, "\"]}", 3)) {
        for (size_t i = up; i < up + UUID_LEN; i++) {
            if (!isxdigit((unsigned char) s[i]) && s[i] != '-') {
                return false;
            }
        }
        return true;
    }
    if (n > cp + 1 && !memcmp(s, count_prefix, cp) && s[n - 1] == '}') {
        for (size_t i = cp; i < n - 1; i++) {
            if (!isdigit((unsigned char) s[i])) {
                return false;
            }
        }
        return true;
    }
    return false;
}

/* Records the error in one result of a transaction reply, if any. */
static void
txn_op_result(struct rdb *db, const char *s, size_t n)
{
    struct rdb_msg *m = &db->msg;
    /* Most results are a "uuid" or a "count": look closer only at those
     * that may name an "error" (spelled plainly or with escapes). */
    if (m->txn_error || is_plain_result(s, n)
        || (!memmem(s, n, "\"error\"", 7) && !memchr(s, '\\', n))) {
        return;
    }
    struct json *json = parse_small(s, n);
    if (json->type == JSON_OBJECT) {
        const struct json *error = shash_find_data(json_object(json),
                                                   "error");
        const struct json *details = shash_find_data(json_object(json),
                                                     "details");
        if (error && error->type == JSON_STRING) {
            m->txn_error = (details && details->type == JSON_STRING
                            ? xasprintf("%s: %s", json_string(error),
                                        json_string(details))
                            : xstrdup(json_string(error)));
        }
    }
    json_destroy(json);
}

/* Takes the "last-txn-id" of a "monitor_cond_since" reply or an "update3"
 * from its text 's' (of 'n' bytes, with its quotes). */
static void
parse_txn_id(struct rdb_msg *m, const char *s, size_t n)
{
    char text[UUID_LEN + 1];
    m->have_txn_id = (n == UUID_LEN + 2 && s[0] == '"' && s[n - 1] == '"');
    if (m->have_txn_id) {
        memcpy(text, s + 1, UUID_LEN);
        text[UUID_LEN] = '\0';
        m->have_txn_id = uuid_from_string(&m->txn_id, text);
    }
}

static void
msg_value(void *db_, const struct jsplit *js, const char *s, size_t n)
{
    struct rdb *db = db_;
    struct rdb_msg *m = &db->msg;
    size_t depth = jsplit_depth(js);

    if (depth == 1) {
        const char *key = jsplit_key(js, 0);
        struct json *json = parse_small(s, n);
        if (json->type == JSON_STRING && !strcmp(key, "method")) {
            free(m->method);
            m->method = xstrdup(json_string(json));
            json_destroy(json);
        } else if (!strcmp(key, "id")) {
            json_destroy(m->id);
            m->id = json;
            m->have_id = true;
        } else if (!strcmp(key, "error")) {
            json_destroy(m->error);
            m->error = json->type == JSON_NULL ? NULL : json;
            if (!m->error) {
                json_destroy(json);
            }
        } else if (!strcmp(key, "result")) {
            json_destroy(m->result);
            m->result = json;
        } else if (!strcmp(key, "params")) {
            json_destroy(m->params);
            m->params = json;
        } else {
            json_destroy(json);
        }
        return;
    }

    if (m->since_reply && depth == 2) {
        if (jsplit_index(js, 1) == 0) {
            m->since_found = n == 4 && !memcmp(s, "true", 4);
        } else {
            parse_txn_id(m, s, n);
        }
        return;
    }
    if (m->kind == RDB_M_UPDATE && depth == 2 && jsplit_index(js, 1) == 1) {
        parse_txn_id(m, s, n);      /* An "update3"'s last-txn-id. */
        return;
    }
    if (m->kind == RDB_M_UPDATE && depth == 2) {
        /* Updates for a monitor we cancelled (after rdb_force_resync())
         * no longer apply. */
        struct json *name = parse_small(s, n);
        m->table_skip = !(name->type == JSON_ARRAY && json_array(name)->n == 2
                          && json_array(name)->elems[1]->type == JSON_INTEGER
                          && json_integer(json_array(name)->elems[1])
                             == db->monitor_seq);
        json_destroy(name);
        return;
    }
    if ((m->kind == RDB_M_MONITOR_REPLY || m->kind == RDB_M_UPDATE)
        && m->table) {
        char *error = NULL;
        if (!rdb_apply_row_update(m->table, jsplit_key(js, depth - 1), s, n,
                                  &error)) {
            VLOG_WARN_RL(&rl, "%s: %s", db->remote, error);
            free(error);
        }
        m->n_rows++;
        return;
    }
    if (m->kind == RDB_M_TXN_REPLY && depth == 2) {
        txn_op_result(db, s, n);
    }
}

/* Applies a <table-updates2> object parsed whole (see the top comment). */
static void
apply_table_updates_json(struct rdb *db, const struct json *updates)
{
    if (updates->type != JSON_OBJECT) {
        protocol_error(db, "table updates expected");
        return;
    }
    struct shash_node *tn;
    SHASH_FOR_EACH (tn, json_object(updates)) {
        struct rdb_table *t = NULL;
        for (size_t i = 0; i < db->class->n_tables; i++) {
            if (!strcmp(db->class->tables[i]->name, tn->name)) {
                t = &db->tables[i];
            }
        }
        const struct json *rows = tn->data;
        if (!t || rows->type != JSON_OBJECT) {
            continue;
        }
        struct shash_node *rn;
        SHASH_FOR_EACH (rn, json_object(rows)) {
            char *text = json_to_string(rn->data, 0);
            char *error = NULL;
            if (!rdb_apply_row_update(t, rn->name, text, strlen(text),
                                      &error)) {
                VLOG_WARN_RL(&rl, "%s: %s", db->remote, error);
                free(error);
            }
            free(text);
        }
    }
}

/* Takes the last-txn-id in 'json', if it is one, as the last change the
 * replica applied. */
static void
set_last_txn_id(struct rdb *db, const struct json *json)
{
    struct uuid id;
    if (json->type == JSON_STRING && uuid_from_string(&id,
                                                      json_string(json))) {
        db->last_txn_id = id;
    }
}

static void
handle_update_json(struct rdb *db, const char *method,
                   const struct json *params)
{
    size_t idx = !strcmp(method, "update3") ? 2 : 1;
    if (params->type != JSON_ARRAY || json_array(params)->n <= idx) {
        protocol_error(db, "bad update notification");
        return;
    }
    const struct json *name = json_array(params)->elems[0];
    if (!(name->type == JSON_ARRAY && json_array(name)->n == 2
          && json_array(name)->elems[1]->type == JSON_INTEGER
          && json_integer(json_array(name)->elems[1]) == db->monitor_seq)) {
        return;
    }
    rdb_update_begin(db);
    apply_table_updates_json(db, json_array(params)->elems[idx]);
    rdb_update_end(db);
    if (idx == 2) {
        set_last_txn_id(db, json_array(params)->elems[1]);
    }
}

/* The reply to the main monitor ('snapshot' false) or to the snapshot
 * monitor has been applied. */
static void
monitor_done(struct rdb *db, bool snapshot)
{
    if (snapshot) {
        cancel_snapshot(db);
        db->snapshot_id = -1;
    } else {
        db->monitor_pending = false;
        if (db->snapshot_wanted) {
            send_snapshot(db);
        }
    }
    if (!db->monitor_pending && db->snapshot_id < 0) {
        db->state = RDB_C_SYNCED;
        db->synced = true;
        db->ever_synced = true;
        /* The snapshot of tables replicated for their initial contents
         * was part of the fresh copy, and so were any updates between the
         * two replies: the user derives everything again anyway. */
        db->fresh_copy = false;
    }
}

/* The lock was granted.  Rows of tables whose inserts the server does not
 * report may have been inserted by the previous holder after our copy of
 * them was taken ('stale'): then a fresh copy is needed before the user
 * acts on them. */
static void
lock_acquired(struct rdb *db, bool stale)
{
    db->has_lock = true;
    if (stale && db->has_local_tables) {
        rdb_force_resync(db);
    }
}

/* The reply to a "monitor_cond_since" has been read. */
static void
since_reply_done(struct rdb *db)
{
    struct rdb_msg *m = &db->msg;
    const struct json_array *a = (!m->streamed && m->result
                                  && m->result->type == JSON_ARRAY
                                  && json_array(m->result)->n == 3
                                  ? json_array(m->result) : NULL);
    if (a) {
        /* Captured whole (a server that wrote "result" before "id"). */
        m->since_found = a->elems[0]->type == JSON_TRUE;
        if (!m->since_found) {
            rdb_reset(db);
        }
        rdb_update_begin(db);
        apply_table_updates_json(db, a->elems[2]);
        rdb_update_end(db);
        set_last_txn_id(db, a->elems[1]);
    } else if (m->streamed && m->applying) {
        rdb_update_end(db);
        if (m->have_txn_id) {
            db->last_txn_id = m->txn_id;
        }
    } else {
        /* A server older than OVS 2.12 knows no such method. */
        char *s = m->error ? json_to_string(m->error, 0) : NULL;
        VLOG_INFO("%s: monitor_cond_since refused (%s), using monitor_cond",
                  db->remote, s ? s : "no result");
        free(s);
        db->since_unsupported = true;
        send_monitor(db);
        return;
    }

    if (m->since_found) {
        COVERAGE_INC(rdb_resume);
        db->snapshot_wanted = false;
        VLOG_INFO("%s: resumed from the server's history: %"PRIuSIZE
                  " rows changed", db->remote, m->n_rows);
    } else {
        COVERAGE_INC(rdb_full_copy);
    }
    monitor_done(db, false);
    if (m->since_found && db->has_local_tables && db->lock_name
        && !db->lock_held_at_close) {
        /* Another northd may have held the lock since this replica last
         * read the selective tables: their inserts arrive as bare UUIDs,
         * without the contents a northd taking over needs. */
        rdb_force_resync(db);
    }
}

static void
handle_reply(struct rdb *db)
{
    struct rdb_msg *m = &db->msg;
    if (msg_id_is(m, db->server_id)) {
        db->server_id = -1;
        if (m->error || !m->result) {
            /* A server without _Server (older than OVS 2.9) serves its
             * databases standalone. */
            if (db->state == RDB_C_SERVER) {
                conn_server_ok(db);
            }
        } else {
            server_update(db, m->result, true);
        }
    } else if (msg_id_is(m, db->schema_id)) {
        db->schema_id = -1;
        if (m->error || !m->result) {
            conn_disconnect(db, 0, "cannot get the schema");
        } else {
            process_schema(db, m->result);
        }
    } else if (msg_id_is(m, db->monitor_id)
               || msg_id_is(m, db->snapshot_id)) {
        bool snapshot = msg_id_is(m, db->snapshot_id);
        if (!snapshot && db->monitor_since) {
            since_reply_done(db);
        } else if (m->streamed) {
            rdb_update_end(db);
            monitor_done(db, snapshot);
        } else if (m->result && m->result->type == JSON_OBJECT) {
            if (!snapshot) {
                rdb_reset(db);
            }
            rdb_update_begin(db);
            apply_table_updates_json(db, m->result);
            rdb_update_end(db);
            monitor_done(db, snapshot);
        } else {
            char *s = m->error ? json_to_string(m->error, 0) : NULL;
            VLOG_WARN_RL(&rl, "%s: monitor request failed: %s", db->remote,
                         s ? s : "no result");
            free(s);
            protocol_error(db, "cannot monitor the database");
        }
    } else if (msg_id_is(m, db->lock_id)) {
        const struct json *locked = (m->result
                                     && m->result->type == JSON_OBJECT
                                     ? shash_find_data(json_object(m->result),
                                                       "locked") : NULL);
        if (locked && locked->type == JSON_TRUE) {
            /* The server granted the lock on this request: a copy taken
             * for an earlier monitor request predates it. */
            lock_acquired(db, db->monitor_id >= 0
                              && db->monitor_id < db->lock_id);
        }
    } else if (msg_id_is(m, rdb_txn_pending_id(db))) {
        if (m->streamed) {
            rdb_txn_reply(db, !m->error && !m->txn_error,
                          m->txn_error ? m->txn_error : NULL);
        } else {
            char *error = NULL;
            if (m->error) {
                error = json_to_string(m->error, 0);
            } else if (m->result && m->result->type == JSON_ARRAY) {
                const struct json_array *a = json_array(m->result);
                for (size_t i = 0; i < a->n && !error; i++) {
                    char *s = json_to_string(a->elems[i], 0);
                    db->msg.txn_error = NULL;
                    txn_op_result(db, s, strlen(s));
                    error = db->msg.txn_error;
                    db->msg.txn_error = NULL;
                    free(s);
                }
            } else {
                error = xstrdup("no result");
            }
            rdb_txn_reply(db, !error, error);
            free(error);
        }
    }
    /* Replies to echo, unlock and monitor_cancel need nothing. */
}

static void
handle_request(struct rdb *db)
{
    struct rdb_msg *m = &db->msg;
    const char *method = m->method;
    if (is_update_method(method)) {
        if (m->streamed) {
            rdb_update_end(db);
            if (m->have_txn_id && !m->table_skip) {
                db->last_txn_id = m->txn_id;
            }
        } else if (m->params) {
            handle_update_json(db, method, m->params);
        }
    } else if (!strcmp(method, "update")) {
        if (is_server_update(db, m->params)) {
            server_update(db, json_array(m->params)->elems[1], false);
        }
    } else if (!strcmp(method, "locked") || !strcmp(method, "stolen")) {
        const struct json *p = m->params;
        if (db->lock_name && p && p->type == JSON_ARRAY
            && json_array(p)->n == 1
            && json_array(p)->elems[0]->type == JSON_STRING
            && !strcmp(json_string(json_array(p)->elems[0]),
                       db->lock_name)) {
            if (!strcmp(method, "locked")) {
                /* Granted now: whatever copy we have or are getting may
                 * predate it. */
                lock_acquired(db, db->state == RDB_C_SYNCED
                                  || db->state == RDB_C_MONITOR);
            } else {
                db->has_lock = false;
                VLOG_INFO("%s: lock \"%s\" was stolen", db->remote,
                          db->lock_name);
            }
        }
    } else if (!strcmp(method, "echo") && m->id
               && m->id->type != JSON_NULL) {
        struct ds s = DS_EMPTY_INITIALIZER;
        ds_put_cstr(&s, "{\"id\":");
        json_to_ds(m->id, 0, &s);
        ds_put_cstr(&s, ",\"result\":");
        if (m->params) {
            json_to_ds(m->params, 0, &s);
        } else {
            ds_put_cstr(&s, "[]");
        }
        ds_put_cstr(&s, ",\"error\":null}");
        rdb_conn_send(db, &s);
        ds_destroy(&s);
    }
}

static void
msg_end(void *db_, const struct jsplit *js)
{
    struct rdb *db = db_;
    if (jsplit_depth(js)) {
        return;
    }
    struct rdb_msg *m = &db->msg;
    if (VLOG_IS_DBG_ENABLED()) {
        char *id = m->id ? json_to_string(m->id, 0) : NULL;
        VLOG_DBG("%s: received %s%s id %s%s", db->remote,
                 m->method ? "request " : "reply",
                 m->method ? m->method : "", id ? id : "none",
                 m->streamed ? " (streamed)" : "");
        free(id);
    }
    if (m->method) {
        handle_request(db);
    } else if (m->have_id) {
        handle_reply(db);
    } else {
        protocol_error(db, "message with neither method nor id");
    }
    msg_clear(m);
}
