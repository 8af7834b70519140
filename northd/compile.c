/* Offline compile: "ovn-northd --compile NB-FILE" (docs/compile.md).
 *
 * northd reads its databases through replicas fed by OVSDB monitors
 * (lib/rdb.h) and writes through transactions.  Rather than a second way
 * in, the offline compile gives them what they expect: the NB file (and
 * the SB file of --diff, or an empty SB built from the schema this northd
 * was built with) is loaded into an in-memory database of OVS's ovsdb
 * library, and both are served by that library's JSON-RPC server on a
 * private Unix socket in this process.  The main loop (ovn-northd.c) runs
 * as it does against real servers, polling the in-process server with its
 * replicas, until northd has nothing left to do; then the SB it wrote is
 * saved (--output) and compared with what it started from (--diff).
 * Neither input file is ever written. */
#include <config.h>

#include "northd/compile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coverage.h"
#include "northd/acl-lint.h"
#include "northd/northd.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "ovsdb-error.h"
#include "ovsdb/file.h"
#include "ovsdb/jsonrpc-server.h"
#include "ovsdb/log.h"
#include "ovsdb/ovsdb.h"
#include "ovsdb/raft.h"
#include "ovsdb/storage.h"
#include "ovsdb/transaction.h"
#include "ovsdb/trigger.h"
#include "sset.h"
#include "svec.h"
#include "timeval.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(compile);

COVERAGE_DEFINE(compile_run);

/* The SB schema this northd was built with (northd/sb-schema.c, generated
 * from ovn-sb.ovsschema): the schema of the SB that --compile writes when
 * no --diff file gives one. */
extern const char compile_sb_schema[];

struct compile {
    struct compile_options opts;
    char *dir;                  /* Private directory of the socket. */
    char *socket;               /* Its Unix socket. */
    struct ovsdb *nb;
    struct ovsdb *sb;
    struct ovsdb_jsonrpc_server *server;
    struct json *sb_before;     /* --diff: the SB as loaded, in the form of
                                 * a database file's transaction record. */
};

static char *
error_message(const char *file, struct ovsdb_error *error)
{
    char *s = ovsdb_error_to_string_free(error);
    const char *p = s;
    /* "I/O error: FILE: open failed (...)", "ovsdb error: FILE: unexpected
     * file format": clear without their tags. */
    const char *f = strstr(s, file);
    if (f && f - s >= 2 && f - s < 20 && !strncmp(f - 2, ": ", 2)) {
        p = f;
    }
    char *msg = (strstr(p, file) ? xstrdup(p)
                 : xasprintf("%s: %s", file, p));
    free(s);
    return msg;
}

/* Reads the standalone database file 'file', which must hold database
 * 'db_name', into a new in-memory database '*dbp' whose commits go
 * nowhere.  Returns NULL, or a malloc'd message. */
static char *
load_db(const char *file, const char *db_name, struct ovsdb **dbp)
{
    *dbp = NULL;

    struct ovsdb_log *log;
    struct ovsdb_error *error = ovsdb_log_open(file,
                                               OVSDB_MAGIC"|"RAFT_MAGIC,
                                               OVSDB_LOG_READ_ONLY, false,
                                               &log);
    if (error) {
        return error_message(file, error);
    }
    if (!strcmp(ovsdb_log_get_magic(log), RAFT_MAGIC)) {
        ovsdb_log_close(log);
        return xasprintf("%s: a clustered database: give a standalone one "
                         "(\"ovsdb-client backup\" from a running server, or "
                         "\"ovsdb-tool cluster-to-standalone\")", file);
    }

    struct json *json;
    error = ovsdb_log_read(log, &json);
    if (error || !json) {
        ovsdb_log_close(log);
        return (error ? error_message(file, error)
                : xasprintf("%s: empty database file (no schema)", file));
    }
    struct ovsdb_schema *schema;
    error = ovsdb_schema_from_json(json, &schema);
    json_destroy(json);
    if (error) {
        ovsdb_log_close(log);
        return error_message(file, error);
    }
    if (strcmp(schema->name, db_name)) {
        char *msg = xasprintf("%s: holds database %s, not %s", file,
                              schema->name, db_name);
        ovsdb_schema_destroy(schema);
        ovsdb_log_close(log);
        return msg;
    }

    struct ovsdb *db = ovsdb_create(schema,
                                    ovsdb_storage_create_unbacked(db_name));
    for (;;) {
        error = ovsdb_log_read(log, &json);
        if (error || !json) {
            break;
        }
        struct ovsdb_txn *txn;
        error = ovsdb_file_txn_from_json(db, json, false, &txn);
        json_destroy(json);
        if (error) {
            break;
        }
        error = ovsdb_txn_replay_commit(txn);
        if (error) {
            break;
        }
    }
    ovsdb_log_close(log);
    if (error) {
        ovsdb_destroy(db);
        return error_message(file, error);
    }
    *dbp = db;
    return NULL;
}

/* An empty SB with the schema this northd was built with. */
static char *
create_empty_sb(struct ovsdb **dbp)
{
    struct json *json = json_from_string(compile_sb_schema);
    struct ovsdb_schema *schema;
    struct ovsdb_error *error = ovsdb_schema_from_json(json, &schema);
    json_destroy(json);
    if (error) {
        *dbp = NULL;
        return error_message("built-in SB schema", error);
    }
    *dbp = ovsdb_create(schema,
                        ovsdb_storage_create_unbacked(schema->name));
    return NULL;
}

char *
compile_start(const struct compile_options *opts, struct compile **compilep,
              char **nb_remote, char **sb_remote)
{
    struct compile *c = xzalloc(sizeof *c);
    c->opts = *opts;
    *compilep = NULL;

    char *error = load_db(opts->nb_file, "OVN_Northbound", &c->nb);
    if (!error) {
        error = (opts->diff ? load_db(opts->diff, "OVN_Southbound", &c->sb)
                 : create_empty_sb(&c->sb));
    }
    if (error) {
        compile_destroy(c);
        return error;
    }
    if (opts->diff) {
        c->sb_before = ovsdb_to_txn_json(c->sb, NULL, false);
    }

    const char *tmp = getenv("TMPDIR");
    c->dir = xasprintf("%s/ovn-northd-compile.XXXXXX",
                       tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(c->dir)) {
        error = xasprintf("%s: cannot create directory (%s)", c->dir,
                          ovs_strerror(errno));
        free(c->dir);
        c->dir = NULL;
        compile_destroy(c);
        return error;
    }
    c->socket = xasprintf("%s/db.sock", c->dir);

    c->server = ovsdb_jsonrpc_server_create(false);
    ovsdb_jsonrpc_server_add_db(c->server, c->nb);
    ovsdb_jsonrpc_server_add_db(c->server, c->sb);
    char *listen = xasprintf("punix:%s", c->socket);
    struct shash remotes = SHASH_INITIALIZER(&remotes);
    struct ovsdb_jsonrpc_options *options
        = ovsdb_jsonrpc_default_options(listen);
    options->probe_interval = 0;
    shash_add(&remotes, listen, options);
    ovsdb_jsonrpc_server_set_remotes(c->server, &remotes);
    shash_destroy_free_data(&remotes);
    free(listen);

    struct stat st;
    if (stat(c->socket, &st)) {
        error = xasprintf("%s: cannot listen (%s)", c->socket,
                          ovs_strerror(errno));
        compile_destroy(c);
        return error;
    }

    *nb_remote = xasprintf("unix:%s", c->socket);
    *sb_remote = xasprintf("unix:%s", c->socket);
    *compilep = c;
    VLOG_INFO("compiling %s%s%s", opts->nb_file,
              opts->diff ? " on top of " : "", opts->diff ? opts->diff : "");
    return NULL;
}

void
compile_run(struct compile *c)
{
    COVERAGE_INC(compile_run);
    ovsdb_jsonrpc_server_run(c->server);
    struct ovsdb *dbs[] = { c->nb, c->sb };
    for (size_t i = 0; i < ARRAY_SIZE(dbs); i++) {
        ovsdb_storage_run(dbs[i]->storage);
        ovsdb_trigger_run(dbs[i], time_msec());
    }
}

void
compile_wait(struct compile *c)
{
    ovsdb_jsonrpc_server_wait(c->server);
    struct ovsdb *dbs[] = { c->nb, c->sb };
    for (size_t i = 0; i < ARRAY_SIZE(dbs); i++) {
        ovsdb_storage_wait(dbs[i]->storage);
        ovsdb_trigger_wait(dbs[i], time_msec());
    }
}

/* Writes 'db' to the standalone database file 'file' (through a temporary
 * file, renamed into place): what "ovsdb-tool compact" would write.  Returns
 * NULL or a malloc'd message. */
static char *
write_db(const char *file, const struct ovsdb *db, const char *comment)
{
    char *tmp = xasprintf("%s.tmp", file);
    unlink(tmp);

    struct ovsdb_log *log;
    struct ovsdb_error *error = ovsdb_log_open(tmp, OVSDB_MAGIC,
                                               OVSDB_LOG_CREATE_EXCL, false,
                                               &log);
    if (!error) {
        error = ovsdb_log_write_and_free(log,
                                         ovsdb_schema_to_json(db->schema));
        if (!error) {
            error = ovsdb_log_write_and_free(
                log, ovsdb_to_txn_json(db, comment, true));
        }
        if (!error) {
            error = ovsdb_log_commit_block(log);
        }
        ovsdb_log_close(log);
    }

    char *msg = NULL;
    if (error) {
        msg = error_message(file, error);
    } else if (rename(tmp, file)) {
        msg = xasprintf("%s: cannot rename %s to it (%s)", file, tmp,
                        ovs_strerror(errno));
    }
    if (msg) {
        unlink(tmp);
    }
    free(tmp);
    return msg;
}

/* The table names of a database file's transaction record 'txn'. */
static void
add_tables(const struct json *txn, struct sset *tables)
{
    struct shash_node *node;
    SHASH_FOR_EACH (node, json_object(txn)) {
        if (node->name[0] != '_' && node->data
            && ((struct json *) node->data)->type == JSON_OBJECT) {
            sset_add(tables, node->name);
        }
    }
}

static const struct shash *
table_rows(const struct json *txn, const char *table)
{
    const struct json *rows = shash_find_data(json_object(txn), table);
    return rows && rows->type == JSON_OBJECT ? json_object(rows) : NULL;
}

static void
put_json(struct ds *s, const struct json *json)
{
    if (json) {
        json_to_ds(json, JSSF_SORT, s);
    } else {
        ds_put_cstr(s, "(default)");
    }
}

/* Appends to 'out' what changed from 'before' to 'after' (database file
 * transaction records of the whole database, as ovsdb_to_txn_json() makes
 * them), one line a row, sorted by table and then by text:
 *
 *   - TABLE UUID {ROW}                        a row deleted
 *   + TABLE UUID {ROW}                        a row inserted
 *   ~ TABLE UUID COLUMN=NEW (was OLD) ...     a row modified
 *
 * Returns the number of lines. */
static size_t
diff_dbs(const struct json *before, const struct json *after,
         struct ds *out)
{
    struct sset tables = SSET_INITIALIZER(&tables);
    add_tables(before, &tables);
    add_tables(after, &tables);

    size_t n = 0;
    const char **names = sset_sort(&tables);
    for (size_t t = 0; t < sset_count(&tables); t++) {
        const char *table = names[t];
        const struct shash *b = table_rows(before, table);
        const struct shash *a = table_rows(after, table);
        struct svec lines = SVEC_EMPTY_INITIALIZER;
        struct ds s = DS_EMPTY_INITIALIZER;
        struct shash_node *node;

        if (b) {
            SHASH_FOR_EACH (node, b) {
                const struct json *old = node->data;
                const struct json *new = a ? shash_find_data(a, node->name)
                                           : NULL;
                ds_clear(&s);
                if (!new) {
                    ds_put_format(&s, "- %s %s ", table, node->name);
                    put_json(&s, old);
                } else if (!json_equal(old, new)) {
                    ds_put_format(&s, "~ %s %s", table, node->name);
                    struct sset cols = SSET_INITIALIZER(&cols);
                    struct shash_node *col;
                    SHASH_FOR_EACH (col, json_object(old)) {
                        sset_add(&cols, col->name);
                    }
                    SHASH_FOR_EACH (col, json_object(new)) {
                        sset_add(&cols, col->name);
                    }
                    const char **colnames = sset_sort(&cols);
                    for (size_t i = 0; i < sset_count(&cols); i++) {
                        const struct json *o, *v;
                        o = shash_find_data(json_object(old), colnames[i]);
                        v = shash_find_data(json_object(new), colnames[i]);
                        if (!o || !v || !json_equal(o, v)) {
                            ds_put_format(&s, " %s=", colnames[i]);
                            put_json(&s, v);
                            ds_put_cstr(&s, " (was ");
                            put_json(&s, o);
                            ds_put_char(&s, ')');
                        }
                    }
                    free(colnames);
                    sset_destroy(&cols);
                } else {
                    continue;
                }
                svec_add(&lines, ds_cstr(&s));
            }
        }
        if (a) {
            SHASH_FOR_EACH (node, a) {
                if (!b || !shash_find(b, node->name)) {
                    ds_clear(&s);
                    ds_put_format(&s, "+ %s %s ", table, node->name);
                    put_json(&s, node->data);
                    svec_add(&lines, ds_cstr(&s));
                }
            }
        }
        svec_sort(&lines);
        const char *line;
        size_t i;
        SVEC_FOR_EACH (i, line, &lines) {
            ds_put_format(out, "%s\n", line);
        }
        n += lines.n;
        svec_destroy(&lines);
        ds_destroy(&s);
    }
    free(names);
    sset_destroy(&tables);
    return n;
}

/* Whether a validation report has something --check fails on: an ACL
 * error, or NB content northd did not understand (lines "Not compiled:"
 * name what this northd does not compile at all, e.g. routers, and do not
 * count). */
static bool
has_findings(const char *acl_errors, const char *unsupported)
{
    if (acl_errors[0]) {
        return true;
    }
    for (const char *p = unsupported; p && *p; ) {
        if (!strncmp(p, "Not understood:", 15)) {
            return true;
        }
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return false;
}

int
compile_finish(struct compile *c, const struct northd *n,
               const struct rdb *nb)
{
    int status = COMPILE_EXIT_OK;
    struct ds out = DS_EMPTY_INITIALIZER;

    if (c->sb_before) {
        struct json *after = ovsdb_to_txn_json(c->sb, NULL, false);
        diff_dbs(c->sb_before, after, &out);
        json_destroy(after);
    }

    struct ds acl_errors = DS_EMPTY_INITIALIZER;
    struct ds unsupported = DS_EMPTY_INITIALIZER;
    northd_format_acl_errors(n, &acl_errors, nb);
    northd_format_unsupported(n, &unsupported);
    ds_put_cstr(&out, ds_cstr(&acl_errors));
    ds_put_cstr(&out, ds_cstr(&unsupported));
    if (c->opts.check && has_findings(ds_cstr(&acl_errors),
                                      ds_cstr(&unsupported))) {
        status = COMPILE_EXIT_FINDINGS;
    }
    ds_destroy(&acl_errors);
    ds_destroy(&unsupported);
    if (c->opts.lint
        && northd_lint_acls(n, nb, NULL, ACL_LINT_DEFAULT_THRESHOLD, &out)
        && c->opts.check) {
        status = COMPILE_EXIT_FINDINGS;
    }

    char *comment = xasprintf("ovn-northd --compile %s", c->opts.nb_file);
    const char *files[] = { c->opts.output, c->opts.nb_output };
    const struct ovsdb *dbs[] = { c->sb, c->nb };
    for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
        if (files[i]) {
            char *error = write_db(files[i], dbs[i], comment);
            if (error) {
                fprintf(stderr, "%s: %s\n", program_name, error);
                free(error);
                status = COMPILE_EXIT_ERROR;
            }
        }
    }
    free(comment);

    fputs(ds_cstr(&out), stdout);
    fflush(stdout);
    ds_destroy(&out);
    return status;
}

void
compile_destroy(struct compile *c)
{
    if (!c) {
        return;
    }
    if (c->server) {
        /* Closing the listener removes the socket. */
        ovsdb_jsonrpc_server_destroy(c->server);
    }
    if (c->socket) {
        unlink(c->socket);
        free(c->socket);
    }
    if (c->dir) {
        rmdir(c->dir);
        free(c->dir);
    }
    if (c->nb) {
        ovsdb_destroy(c->nb);
    }
    if (c->sb) {
        ovsdb_destroy(c->sb);
    }
    json_destroy(c->sb_before);
    free(c);
}
