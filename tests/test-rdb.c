/* Drives the replica (lib/rdb.h) against a real ovsdb-server, for the
 * tests in tests/rdb.at and for measuring it by hand.
 *
 *   test-rdb dump nb|sb REMOTE
 *       Waits until the replica is in sync, then prints every row of every
 *       replicated table, one per line, sorted: "TABLE UUID col=value ...".
 *       Hashed columns print as their hash's presence ("#content").
 *   test-rdb follow nb|sb REMOTE N
 *       Like dump, then prints the tracked changes of each of the next N
 *       updates ("+" new, "-" deleted, "~" modified with the columns), then
 *       dumps again.
 *   test-rdb stats nb|sb REMOTE
 *       Syncs and prints the time it took, the rows per table and the peak
 *       RSS.
 *   test-rdb txn sb REMOTE
 *       Inserts a Datapath_Binding and a Logical_Flow with a UUID of its
 *       choosing, then updates and deletes the flow, printing the status of
 *       each transaction and what the replica shows after it. */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command-line.h"
#include "fatal-signal.h"
#include "lib/nb-rdb.h"
#include "lib/rdb.h"
#include "lib/sb-rdb.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/poll-loop.h"
#include "openvswitch/vlog.h"
#include "smap.h"
#include "sset.h"
#include "timeval.h"
#include "util.h"
#include "uuid.h"

static const struct rdb_class *
class_by_name(const char *name)
{
    if (!strcmp(name, "nb")) {
        return &nb_rdb_class;
    } else if (!strcmp(name, "sb")) {
        return &sb_rdb_class;
    }
    ovs_fatal(0, "%s: database must be \"nb\" or \"sb\"", name);
}

static void
wait_synced(struct rdb *db)
{
    long long int deadline = time_msec() + 30000;
    for (;;) {
        rdb_run(db);
        if (rdb_is_synced(db)) {
            return;
        }
        if (time_msec() > deadline) {
            ovs_fatal(0, "%s: not in sync after 30 s", rdb_get_name(db));
        }
        rdb_wait(db);
        poll_timer_wait_until(deadline);
        poll_block();
    }
}

static void
put_atom(struct ds *s, const struct rdb_column_class *c, const void *elem)
{
    switch (c->type) {
    case RDB_INTEGER:
        ds_put_format(s, "%"PRId64, *(const int64_t *) elem);
        break;
    case RDB_REAL:
        ds_put_format(s, "%g", *(const double *) elem);
        break;
    case RDB_BOOLEAN:
        ds_put_cstr(s, *(const bool *) elem ? "true" : "false");
        break;
    case RDB_STRING:
        ds_put_format(s, "\"%s\"", *(char *const *) elem);
        break;
    case RDB_UUID:
        if (c->ref_table) {
            const struct rdb_row *r = *(const struct rdb_row *const *) elem;
            ds_put_format(s, UUID_FMT"%s", UUID_ARGS(&r->uuid),
                          r->state == RDB_ROW_LIVE ? "" : "(missing)");
        } else {
            ds_put_format(s, UUID_FMT, UUID_ARGS((const struct uuid *) elem));
        }
        break;
    case RDB_VOID:
    default:
        OVS_NOT_REACHED();
    }
}

static size_t
elem_size(const struct rdb_column_class *c)
{
    switch (c->type) {
    case RDB_INTEGER: return sizeof(int64_t);
    case RDB_REAL: return sizeof(double);
    case RDB_BOOLEAN: return sizeof(bool);
    case RDB_STRING: return sizeof(char *);
    case RDB_UUID:
        return c->ref_table ? sizeof(void *) : sizeof(struct uuid);
    case RDB_VOID:
    default:
        OVS_NOT_REACHED();
    }
}

/* Appends " col=value" for each column of 'row' with a value. */
static void
put_row(struct ds *s, const struct rdb_row *row,
        const struct rdb_table_class *tc)
{
    for (size_t i = 0; i < tc->n_columns; i++) {
        const struct rdb_column_class *c = &tc->columns[i];
        const char *m = (const char *) row + c->offset;
        struct ds v = DS_EMPTY_INITIALIZER;
        switch (c->storage) {
        case RDB_S_SCALAR:
            if (c->type == RDB_UUID) {
                if (*(void *const *) m) {
                    put_atom(&v, c, m);
                }
            } else if (c->type != RDB_STRING || (*(char *const *) m)[0]) {
                put_atom(&v, c, m);
            }
            break;
        case RDB_S_OPTIONAL:
            if (*(void *const *) m) {
                put_atom(&v, c, m);
            }
            break;
        case RDB_S_ARRAY: {
            size_t n = *(const size_t *) ((const char *) row + c->n_offset);
            const char *a = *(const char *const *) m;
            if (n) {
                ds_put_char(&v, '[');
                for (size_t j = 0; j < n; j++) {
                    if (j) {
                        ds_put_char(&v, ',');
                    }
                    put_atom(&v, c, a + j * elem_size(c));
                }
                ds_put_char(&v, ']');
            }
            break;
        }
        case RDB_S_SMAP: {
            const struct smap *smap = (const struct smap *) m;
            if (!smap_is_empty(smap)) {
                const struct smap_node **nodes = smap_sort(smap);
                ds_put_char(&v, '{');
                for (size_t j = 0; j < smap_count(smap); j++) {
                    ds_put_format(&v, "%s\"%s\"=\"%s\"", j ? "," : "",
                                  nodes[j]->key, nodes[j]->value);
                }
                ds_put_char(&v, '}');
                free(nodes);
            }
            break;
        }
        case RDB_S_HASHED:
            break;
        }
        if (v.length) {
            ds_put_format(s, " %s=%s", c->name, ds_cstr(&v));
        }
        ds_destroy(&v);
    }
    for (size_t g = 0; g < tc->n_hash_groups; g++) {
        const struct rdb_hash *h = rdb_row_hash(row, tc, g);
        ds_put_format(s, " #%zu=%s", g,
                      h->h[0] || h->h[1] ? "set" : "zero");
    }
}

static void
dump(const struct rdb *db, const struct rdb_class *class)
{
    struct sset lines = SSET_INITIALIZER(&lines);
    for (size_t i = 0; i < class->n_tables; i++) {
        const struct rdb_table_class *tc = class->tables[i];
        for (const struct rdb_row *row = rdb_first(db, tc); row;
             row = rdb_next(row)) {
            struct ds s = DS_EMPTY_INITIALIZER;
            ds_put_format(&s, "%s "UUID_FMT, tc->name, UUID_ARGS(&row->uuid));
            put_row(&s, row, tc);
            sset_add(&lines, ds_cstr(&s));
            ds_destroy(&s);
        }
    }
    const char **sorted = sset_sort(&lines);
    for (size_t i = 0; i < sset_count(&lines); i++) {
        puts(sorted[i]);
    }
    free(sorted);
    sset_destroy(&lines);
}

static void
print_tracked(const struct rdb *db, const struct rdb_class *class)
{
    struct sset lines = SSET_INITIALIZER(&lines);
    for (size_t i = 0; i < class->n_tables; i++) {
        const struct rdb_table_class *tc = class->tables[i];
        for (const struct rdb_row *row = rdb_track_first(db, tc); row;
             row = rdb_track_next(row)) {
            struct ds s = DS_EMPTY_INITIALIZER;
            char what = (rdb_row_is_deleted(row) ? '-'
                         : rdb_row_is_new(row) ? '+' : '~');
            ds_put_format(&s, "%c %s "UUID_FMT, what, tc->name,
                          UUID_ARGS(&row->uuid));
            if (what == '~') {
                for (size_t j = 0; j < tc->n_columns; j++) {
                    if (rdb_row_is_updated(row, j)) {
                        ds_put_format(&s, " %s", tc->columns[j].name);
                    }
                }
            }
            sset_add(&lines, ds_cstr(&s));
            ds_destroy(&s);
        }
    }
    const char **sorted = sset_sort(&lines);
    for (size_t i = 0; i < sset_count(&lines); i++) {
        puts(sorted[i]);
    }
    free(sorted);
    sset_destroy(&lines);
}

static long long int
peak_rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long long int kb = -1;
    while (f && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "VmHWM:", 6)) {
            kb = atoll(line + 6);
        }
    }
    if (f) {
        fclose(f);
    }
    return kb;
}

static void
do_stats(const struct rdb_class *class, const char *remote)
{
    long long int start = time_msec();
    struct rdb *db = rdb_create(class, remote);
    wait_synced(db);
    long long int end = time_msec();
    printf("synced in %lld ms\n", end - start);
    for (size_t i = 0; i < class->n_tables; i++) {
        size_t n = rdb_count(db, class->tables[i]);
        if (n) {
            printf("%s: %"PRIuSIZE" rows\n", class->tables[i]->name, n);
        }
    }
    printf("peak RSS: %lld kB\n", peak_rss_kb());
    rdb_destroy(db);
}

static void
run_txn(struct rdb *db, struct rdb_txn *txn, const char *what)
{
    rdb_txn_commit(txn);
    for (;;) {
        rdb_run(db);
        if (rdb_txn_get_status(txn) != RDB_TXN_INCOMPLETE) {
            break;
        }
        rdb_wait(db);
        poll_block();
    }
    const char *error = rdb_txn_get_error(txn);
    printf("%s: %s%s%s\n", what,
           rdb_txn_status_to_string(rdb_txn_get_status(txn)),
           error ? ": " : "", error ? error : "");
    rdb_txn_destroy(txn);
    /* Let the updates the transaction caused arrive. */
    long long int until = time_msec() + 200;
    while (time_msec() < until || !rdb_is_synced(db)) {
        rdb_run(db);
        rdb_wait(db);
        poll_timer_wait_until(until);
        poll_block();
    }
}

/* Checks that the hashes 'db' computed from what it wrote match those a
 * fresh replica computes from what the server sends. */
static void
compare_hashes(const struct rdb *db, const char *remote,
               const struct uuid *lf)
{
    struct rdb *fresh = rdb_create(&sb_rdb_class, remote);
    wait_synced(fresh);
    const struct rdb_row *a = rdb_get(db, &sb_table_logical_flow, lf);
    const struct rdb_row *b = rdb_get(fresh, &sb_table_logical_flow, lf);
    if (!a || !b) {
        printf("hashes: row missing\n");
    } else {
        for (size_t g = 0; g < sb_table_logical_flow.n_hash_groups; g++) {
            printf("hash %"PRIuSIZE": %s\n", g,
                   rdb_hash_equals(rdb_row_hash(a, &sb_table_logical_flow, g),
                                   rdb_row_hash(b, &sb_table_logical_flow, g))
                   ? "same" : "different");
        }
    }
    rdb_destroy(fresh);
}

static void
do_txn(const char *remote)
{
    struct rdb *db = rdb_create(&sb_rdb_class, remote);
    wait_synced(db);

    struct uuid dp = { .parts = { 0x11111111, 0x2222, 0x3333, 0x4444 } };
    struct uuid lf = { .parts = { 0xaaaaaaaa, 0xbbbb, 0xcccc, 0xdddd } };
    struct rdb_txn *txn = rdb_txn_create(db);
    rdb_txn_insert(txn, &sb_table_datapath_binding, &dp);
    rdb_txn_set_integer(txn, SB_DATAPATH_BINDING_COL_TUNNEL_KEY, 7);
    struct smap ids = SMAP_INITIALIZER(&ids);
    smap_add(&ids, "name", "sw0");
    rdb_txn_set_smap(txn, SB_DATAPATH_BINDING_COL_EXTERNAL_IDS, &ids);
    rdb_txn_insert(txn, &sb_table_logical_flow, &lf);
    rdb_txn_set_ref(txn, SB_LOGICAL_FLOW_COL_LOGICAL_DATAPATH, &dp);
    rdb_txn_set_string(txn, SB_LOGICAL_FLOW_COL_PIPELINE, "ingress");
    rdb_txn_set_integer(txn, SB_LOGICAL_FLOW_COL_TABLE_ID, 0);
    rdb_txn_set_integer(txn, SB_LOGICAL_FLOW_COL_PRIORITY, 100);
    rdb_txn_set_string(txn, SB_LOGICAL_FLOW_COL_MATCH, "ip4 && \"x\" == 1");
    rdb_txn_set_string(txn, SB_LOGICAL_FLOW_COL_ACTIONS, "next;");
    rdb_txn_set_smap(txn, SB_LOGICAL_FLOW_COL_EXTERNAL_IDS, &ids);
    run_txn(db, txn, "insert");
    dump(db, &sb_rdb_class);
    compare_hashes(db, remote, &lf);

    txn = rdb_txn_create(db);
    rdb_txn_update(txn, &sb_table_logical_flow, &lf);
    smap_replace(&ids, "stage-hint", "abc");
    rdb_txn_set_smap(txn, SB_LOGICAL_FLOW_COL_EXTERNAL_IDS, &ids);
    run_txn(db, txn, "update");
    dump(db, &sb_rdb_class);
    compare_hashes(db, remote, &lf);

    txn = rdb_txn_create(db);
    rdb_txn_delete(txn, &sb_table_logical_flow, &lf);
    run_txn(db, txn, "delete");
    dump(db, &sb_rdb_class);

    /* A bad transaction: a flow referring to a datapath that does not
     * exist.  The replica must come back to the server's truth. */
    struct uuid nodp = { .parts = { 1, 2, 3, 4 } };
    txn = rdb_txn_create(db);
    rdb_txn_insert(txn, &sb_table_logical_flow, &lf);
    rdb_txn_set_ref(txn, SB_LOGICAL_FLOW_COL_LOGICAL_DATAPATH, &nodp);
    rdb_txn_set_string(txn, SB_LOGICAL_FLOW_COL_PIPELINE, "egress");
    run_txn(db, txn, "bad insert");
    dump(db, &sb_rdb_class);

    smap_destroy(&ids);
    rdb_destroy(db);
}

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    setvbuf(stdout, NULL, _IOLBF, 0);
    fatal_ignore_sigpipe();
    vlog_set_levels(NULL, VLF_ANY_DESTINATION, getenv("TEST_RDB_DEBUG") ? VLL_DBG : VLL_WARN);
    if (argc < 4) {
        ovs_fatal(0, "usage: %s dump|follow|stats|txn nb|sb REMOTE [N]",
                  argv[0]);
    }
    const char *cmd = argv[1];
    const struct rdb_class *class = class_by_name(argv[2]);
    const char *remote = argv[3];

    if (!strcmp(cmd, "stats")) {
        do_stats(class, remote);
    } else if (!strcmp(cmd, "txn")) {
        do_txn(remote);
    } else if (!strcmp(cmd, "dump") || !strcmp(cmd, "follow")) {
        struct rdb *db = rdb_create(class, remote);
        wait_synced(db);
        dump(db, class);
        rdb_track_clear(db);
        int n = !strcmp(cmd, "follow") && argc > 4 ? atoi(argv[4]) : 0;
        for (int i = 0; i < n; i++) {
            unsigned int seqno = rdb_get_seqno(db);
            while (rdb_get_seqno(db) == seqno || !rdb_is_synced(db)) {
                rdb_run(db);
                rdb_wait(db);
                poll_block();
            }
            printf("update %d:\n", i + 1);
            print_tracked(db, class);
            fflush(stdout);
            rdb_track_clear(db);
        }
        if (n) {
            dump(db, class);
        }
        rdb_destroy(db);
    } else {
        ovs_fatal(0, "unknown command %s", cmd);
    }
    return 0;
}
