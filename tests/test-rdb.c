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
 *       dumps again.  Fails if, once the replica is destroyed, shared
 *       maps are left.
 *   test-rdb stats nb|sb REMOTE
 *       Syncs and prints the time it took, the rows per table, the distinct
 *       shared maps and the peak RSS; then the shared maps left once the
 *       replica is destroyed.
 *   test-rdb follow-check nb|sb REMOTE MARKER [forget]
 *       Follows the server until an address set named MARKER exists,
 *       checking after each change that what the replica tracked is what
 *       changed in its contents (see check_tracking()).  Prints "error:"
 *       lines for what is wrong, then the number of errors, of checks that
 *       saw changes, and a dump.  With "forget", drops the rows of tables
 *       replicated for their initial contents only, as northd does, once
 *       it has them.  With "selftest", stops clearing the tracked changes
 *       after the first, which the checks must then find fault with.
 *   test-rdb txn sb REMOTE
 *       Inserts a Datapath_Binding and a Logical_Flow with a UUID of its
 *       choosing, then updates both and deletes the flow, then tries a
 *       transaction the server refuses.  Prints the status of each
 *       transaction, the changes the replica tracked and its rows after
 *       it, and the flows a fresh replica of the server gets.
 *   test-rdb jscan SEED N
 *       Checks lib/jscan.h's scans, the vector paths and the word paths
 *       after them, against loops over bytes: N random buffers, from every
 *       start offset.  Prints the number of checks and of differences.
 *   test-rdb follow-resync nb|sb REMOTE N
 *       Like dump, then follows the server until the replica has started
 *       over from a fresh copy N times (each time it reconnects): after
 *       each, prints "resync K:" and a dump.  Updates in between print as
 *       "update:" and their tracked changes, as for follow.
 *   test-rdb txn-mutate sb REMOTE
 *       Transactions beyond test-rdb txn: strings that need escapes (in
 *       values and map keys), mutations of a string set and of a
 *       reference set, and ops that write nothing (an update without
 *       columns, a mutation without values), which must not be sent.
 *   test-rdb txn-lock sb REMOTE LOCK FILE
 *       Asks for LOCK, then inserts a row while someone else may hold it,
 *       waits up to 20 s for the lock and inserts another.  Then prints
 *       "waiting for FILE", waits without reading from the server until
 *       FILE exists (so that whoever steals the lock meanwhile does so
 *       before the replica can learn of it) and inserts a third.  Prints
 *       whether it holds the lock and how many copies of the database it
 *       has started from, the status of each transaction and the address
 *       sets it inserted, named LOCK-1, LOCK-2 and LOCK-3.
 *   test-rdb txn-strings sb REMOTE FILE
 *       Inserts in one transaction an address set for each NUL-terminated
 *       string in FILE, named after it, with it and it followed by "!" as
 *       addresses.  Prints how many it inserted and the status.
 *   test-rdb txn-started sb REMOTE N BATCH
 *       Writes N address sets in a transaction started at once
 *       (rdb_txn_start()), BATCH at a time, running the replica for 1.5 s
 *       after each batch as an event loop would; commits it, then inserts
 *       one more address set.  Prints the status of each and how many
 *       address sets the replica then has.
 *   test-rdb txn-big sb REMOTE N
 *       Inserts N address sets in one transaction written by a producer,
 *       piece by piece; if that fails, tries once more.  Prints the status
 *       of each attempt and how many address sets the replica then has.
 *   test-rdb txn-absent sb REMOTE
 *       Against a server whose schema has no Load_Balancer table and no
 *       Datapath_Binding.external_ids column: prints whether the replica
 *       knows they are absent, then writes to them in transactions with
 *       other writes (which must succeed, without them) and alone (which
 *       must not be sent), twice, logging at INFO level to stderr.
 *   test-rdb hashes sb REMOTE [REMOTE2]
 *       Prints each Logical_Flow row with letters that tell its content and
 *       external_ids hashes apart; with REMOTE2, the rows of a second
 *       replica follow, lettered alike.
 *
 * The SB class is not northd's: it follows Address_Set and Port_Group in
 * full (tests/sb-full.rdb, made from lib/sb.rdb), so that the tests can
 * write those and read them back. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "command-line.h"
#include "fatal-signal.h"
#include "lib/jscan.h"
#include "lib/mappack.h"
#include "lib/nb-rdb.h"
#include "lib/rdb.h"
#include "lib/strpack.h"
#include "tests/sbt-rdb.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/poll-loop.h"
#include "openvswitch/vlog.h"
#include "random.h"
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
        return &sbt_rdb_class;
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
    if (c->compact) {
        uint8_t v = *(const uint8_t *) elem;
        ds_put_format(s, "\"%s\"", v ? c->enums[v - 1] : "");
        return;
    }
    if (c->packed) {
        ds_put_char(s, '"');
        ds_put_strpack(s, *(const struct strpack *const *) elem);
        ds_put_char(s, '"');
        return;
    }
    switch (c->type) {
    case RDB_INTEGER:
        ds_put_format(s, "%"PRId64, (c->int32 ? *(const int32_t *) elem
                                     : c->uint32 ? *(const uint32_t *) elem
                                     : *(const int64_t *) elem));
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
    if (c->compact) {
        return sizeof(uint8_t);
    }
    switch (c->type) {
    case RDB_INTEGER:
        return c->int32 || c->uint32 ? sizeof(int32_t) : sizeof(int64_t);
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

/* Appends the value of column 'c' of 'row' to 's', nothing if it has
 * none (an empty string, set or map, a missing reference). */
static void
put_value(struct ds *v, const struct rdb_row *row,
          const struct rdb_column_class *c)
{
    const char *m = (const char *) row + c->offset;
    switch (c->storage) {
    case RDB_S_SCALAR:
        if (c->compact) {
            if (*(const uint8_t *) m) {
                put_atom(v, c, m);
            }
        } else if (c->type == RDB_UUID || c->packed) {
            if (*(void *const *) m) {
                put_atom(v, c, m);
            }
        } else if (c->type != RDB_STRING || (*(char *const *) m)[0]) {
            put_atom(v, c, m);
        }
        break;
    case RDB_S_OPTIONAL:
        if (c->compact ? *(const uint8_t *) m != 0
            : *(void *const *) m != NULL) {
            put_atom(v, c, m);
        }
        break;
    case RDB_S_ARRAY: {
        size_t n = *(const size_t *) ((const char *) row + c->n_offset);
        const char *a = *(const char *const *) m;
        if (n) {
            ds_put_char(v, '[');
            for (size_t j = 0; j < n; j++) {
                if (j) {
                    ds_put_char(v, ',');
                }
                put_atom(v, c, a + j * elem_size(c));
            }
            ds_put_char(v, ']');
        }
        break;
    }
    case RDB_S_SMAP:
    case RDB_S_SHARED_MAP:
    case RDB_S_PACKED_MAP: {
        struct smap unpacked = SMAP_INITIALIZER(&unpacked);
        if (c->storage == RDB_S_PACKED_MAP) {
            mappack_to_smap(*(const struct strpack *const *) m, &unpacked);
        }
        const struct smap *smap = (c->storage == RDB_S_SMAP
                                   ? (const struct smap *) m
                                   : c->storage == RDB_S_PACKED_MAP
                                   ? &unpacked
                                   : *(const struct smap *const *) m);
        if (!smap_is_empty(smap)) {
            const struct smap_node **nodes = smap_sort(smap);
            ds_put_char(v, '{');
            for (size_t j = 0; j < smap_count(smap); j++) {
                ds_put_format(v, "%s\"%s\"=\"%s\"", j ? "," : "",
                              nodes[j]->key, nodes[j]->value);
            }
            ds_put_char(v, '}');
            free(nodes);
        }
        smap_destroy(&unpacked);
        break;
    }
    case RDB_S_HASHED:
        break;
    }
}

/* Appends " col=value" for each column of 'row' with a value. */
static void
put_row(struct ds *s, const struct rdb_row *row,
        const struct rdb_table_class *tc)
{
    for (size_t i = 0; i < tc->n_columns; i++) {
        const struct rdb_column_class *c = &tc->columns[i];
        struct ds v = DS_EMPTY_INITIALIZER;
        put_value(&v, row, c);
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

/* Adds a line for each row of 'tc' in 'db' to 'lines'. */
static void
add_rows(const struct rdb *db, const struct rdb_table_class *tc,
         struct sset *lines)
{
    for (const struct rdb_row *row = rdb_first(db, tc); row;
         row = rdb_next(row)) {
        struct ds s = DS_EMPTY_INITIALIZER;
        ds_put_format(&s, "%s "UUID_FMT, tc->name, UUID_ARGS(&row->uuid));
        put_row(&s, row, tc);
        sset_add(lines, ds_cstr(&s));
        ds_destroy(&s);
    }
}

/* Prints 'lines' sorted, and destroys them. */
static void
print_lines(struct sset *lines)
{
    const char **sorted = sset_sort(lines);
    for (size_t i = 0; i < sset_count(lines); i++) {
        puts(sorted[i]);
    }
    free(sorted);
    sset_destroy(lines);
}

static void
dump(const struct rdb *db, const struct rdb_class *class)
{
    struct sset lines = SSET_INITIALIZER(&lines);
    for (size_t i = 0; i < class->n_tables; i++) {
        add_rows(db, class->tables[i], &lines);
    }
    print_lines(&lines);
}

static void
dump_table(const struct rdb *db, const struct rdb_table_class *tc)
{
    struct sset lines = SSET_INITIALIZER(&lines);
    add_rows(db, tc, &lines);
    print_lines(&lines);
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
    printf("shared maps: %"PRIuSIZE"\n", rdb_shared_map_count());
    printf("peak RSS: %lld kB\n", peak_rss_kb());
    rdb_destroy(db);
    printf("shared maps once destroyed: %"PRIuSIZE"\n",
           rdb_shared_map_count());
}

/* Waits for committed 'txn' to complete, prints its status and destroys
 * it. */
static void
finish_txn(struct rdb *db, struct rdb_txn *txn, const char *what)
{
    /* A test must fail, not hang, whatever the replica does. */
    long long int deadline = time_msec() + 30000;
    for (;;) {
        rdb_run(db);
        if (rdb_txn_get_status(txn) != RDB_TXN_INCOMPLETE) {
            break;
        }
        if (time_msec() > deadline) {
            ovs_fatal(0, "%s: no reply after 30 s", what);
        }
        rdb_wait(db);
        poll_timer_wait_until(deadline);
        poll_block();
    }
    const char *error = rdb_txn_get_error(txn);
    printf("%s: %s%s%s\n", what,
           rdb_txn_status_to_string(rdb_txn_get_status(txn)),
           error ? ": " : "", error ? error : "");
    rdb_txn_destroy(txn);
    /* Let the updates the transaction caused arrive. */
    long long int until = time_msec() + 200;
    deadline = time_msec() + 30000;
    while (time_msec() < until || !rdb_is_synced(db)) {
        rdb_run(db);
        if (time_msec() > deadline) {
            ovs_fatal(0, "%s: not in sync after 30 s", what);
        }
        rdb_wait(db);
        poll_timer_wait_until(rdb_is_synced(db) ? until : deadline);
        poll_block();
    }
}

static void
run_txn(struct rdb *db, struct rdb_txn *txn, const char *what)
{
    rdb_txn_commit(txn);
    finish_txn(db, txn, what);
}

/* Prints what 'db' shows after a transaction: the changes it tracked
 * (its own writes come back from the server like anyone else's, except to
 * Logical_Flow, which is replicated for its initial contents only) and its
 * rows; then the flows a fresh replica gets, which are the server's. */
static void
print_after_txn(struct rdb *db, const char *remote)
{
    printf("tracked:\n");
    print_tracked(db, &sbt_rdb_class);
    rdb_track_clear(db);
    printf("replica:\n");
    dump(db, &sbt_rdb_class);

    struct rdb *fresh = rdb_create(&sbt_rdb_class, remote);
    wait_synced(fresh);
    printf("server's flows:\n");
    dump_table(fresh, &sbt_table_logical_flow);
    rdb_destroy(fresh);
}

static void
do_txn(const char *remote)
{
    struct rdb *db = rdb_create(&sbt_rdb_class, remote);
    wait_synced(db);
    rdb_track_clear(db);

    struct uuid dp = { .parts = { 0x11111111, 0x2222, 0x3333, 0x4444 } };
    struct uuid lf = { .parts = { 0xaaaaaaaa, 0xbbbb, 0xcccc, 0xdddd } };
    struct rdb_txn *txn = rdb_txn_create(db);
    rdb_txn_insert(txn, &sbt_table_datapath_binding, &dp);
    rdb_txn_set_integer(txn, SBT_DATAPATH_BINDING_COL_TUNNEL_KEY, 7);
    struct smap ids = SMAP_INITIALIZER(&ids);
    smap_add(&ids, "name", "sw0");
    rdb_txn_set_smap(txn, SBT_DATAPATH_BINDING_COL_EXTERNAL_IDS, &ids);
    rdb_txn_insert(txn, &sbt_table_logical_flow, &lf);
    rdb_txn_set_ref(txn, SBT_LOGICAL_FLOW_COL_LOGICAL_DATAPATH, &dp);
    rdb_txn_set_string(txn, SBT_LOGICAL_FLOW_COL_PIPELINE, "ingress");
    rdb_txn_set_integer(txn, SBT_LOGICAL_FLOW_COL_TABLE_ID, 0);
    rdb_txn_set_integer(txn, SBT_LOGICAL_FLOW_COL_PRIORITY, 100);
    rdb_txn_set_string(txn, SBT_LOGICAL_FLOW_COL_MATCH, "ip4 && \"x\" == 1");
    rdb_txn_set_string(txn, SBT_LOGICAL_FLOW_COL_ACTIONS, "next;");
    rdb_txn_set_smap(txn, SBT_LOGICAL_FLOW_COL_EXTERNAL_IDS, &ids);
    run_txn(db, txn, "insert");
    print_after_txn(db, remote);

    txn = rdb_txn_create(db);
    rdb_txn_update(txn, &sbt_table_logical_flow, &lf);
    smap_replace(&ids, "stage-hint", "abc");
    rdb_txn_set_smap(txn, SBT_LOGICAL_FLOW_COL_EXTERNAL_IDS, &ids);
    rdb_txn_update(txn, &sbt_table_datapath_binding, &dp);
    rdb_txn_set_smap(txn, SBT_DATAPATH_BINDING_COL_EXTERNAL_IDS, &ids);
    run_txn(db, txn, "update");
    print_after_txn(db, remote);

    txn = rdb_txn_create(db);
    rdb_txn_delete(txn, &sbt_table_logical_flow, &lf);
    run_txn(db, txn, "delete");
    print_after_txn(db, remote);

    /* A bad transaction: a flow referring to a datapath that does not
     * exist.  Whoever wrote it may believe it happened, so the replica
     * starts over from a fresh copy. */
    struct uuid nodp = { .parts = { 1, 2, 3, 4 } };
    unsigned int reset_seqno = rdb_get_reset_seqno(db);
    txn = rdb_txn_create(db);
    rdb_txn_insert(txn, &sbt_table_logical_flow, &lf);
    rdb_txn_set_ref(txn, SBT_LOGICAL_FLOW_COL_LOGICAL_DATAPATH, &nodp);
    rdb_txn_set_string(txn, SBT_LOGICAL_FLOW_COL_PIPELINE, "egress");
    run_txn(db, txn, "bad insert");
    printf("fresh copy: %s\n",
           rdb_get_reset_seqno(db) != reset_seqno ? "yes" : "no");
    print_after_txn(db, remote);

    smap_destroy(&ids);
    rdb_destroy(db);
}

/* Inserts an address set for each of the NUL-separated strings in 'file',
 * named after it and with it and it followed by "!" as addresses, in one
 * transaction. */
static void
do_txn_strings(const char *remote, const char *file)
{
    FILE *f = fopen(file, "rb");
    if (!f) {
        ovs_fatal(errno, "%s: open failed", file);
    }
    struct ds all = DS_EMPTY_INITIALIZER;
    int c;
    while ((c = getc(f)) != EOF) {
        ds_put_char(&all, c);
    }
    fclose(f);

    struct rdb *db = rdb_create(&sbt_rdb_class, remote);
    wait_synced(db);
    struct rdb_txn *txn = rdb_txn_create(db);
    size_t n = 0;
    for (const char *p = all.string; p < all.string + all.length;
         p += strlen(p) + 1) {
        struct uuid uuid;
        uuid_generate(&uuid);
        char *bang = xasprintf("%s!", p);
        const char *addrs[] = { p, bang };
        rdb_txn_insert(txn, &sbt_table_address_set, &uuid);
        rdb_txn_set_string(txn, SBT_ADDRESS_SET_COL_NAME, p);
        rdb_txn_set_strings(txn, SBT_ADDRESS_SET_COL_ADDRESSES, addrs, 2);
        free(bang);
        n++;
    }
    printf("%"PRIuSIZE" strings\n", n);
    run_txn(db, txn, "insert");
    printf("address sets: %"PRIuSIZE"\n",
           rdb_count(db, &sbt_table_address_set));
    ds_destroy(&all);
    rdb_destroy(db);
}

static void
do_follow_resync(const struct rdb_class *class, const char *remote, int n)
{
    struct rdb *db = rdb_create(class, remote);
    wait_synced(db);
    dump(db, class);
    rdb_track_clear(db);

    /* The replica does not tell its user when the connection drops, only
     * that it started over (the reset seqno) once the new copy is in: that
     * is what northd reacts to, so that is what this prints. */
    unsigned int reset_seqno = rdb_get_reset_seqno(db);
    unsigned int seqno = rdb_get_seqno(db);
    int resyncs = 0;
    while (resyncs < n) {
        rdb_run(db);
        if (rdb_is_synced(db)) {
            if (rdb_get_reset_seqno(db) != reset_seqno) {
                printf("resync %d:\n", ++resyncs);
                dump(db, class);
            } else if (rdb_get_seqno(db) != seqno) {
                printf("update:\n");
                print_tracked(db, class);
            } else {
                /* Only quiet changes: leave them tracked, as follow does,
                 * until something wakes the user up. */
                goto next;
            }
            fflush(stdout);
            rdb_track_clear(db);
            reset_seqno = rdb_get_reset_seqno(db);
            seqno = rdb_get_seqno(db);
        }
    next:
        if (resyncs < n) {
            rdb_wait(db);
            poll_block();
        }
    }
    rdb_destroy(db);
}

/* A string with every kind of character JSON has to escape or may carry
 * raw: a quote, a backslash, a slash, a tab, a control character, DEL and
 * multibyte UTF-8 (2 and 4 bytes). */
static const char weird[] = "q\"uote \\back/slash \xc3\xa9t\xc3\xa9 "
                            "\xf0\x9f\x98\x80 tab\t ctl\x01 del\x7f";

/* Commits 'txn' and prints how many ops went out: an op that writes
 * nothing must not count. */
static void
run_counted_txn(struct rdb *db, struct rdb_txn *txn, const char *what)
{
    rdb_txn_commit(txn);
    printf("%s: %"PRIuSIZE" ops\n", what, rdb_txn_n_ops(txn));
    finish_txn(db, txn, what);
}

static void
do_txn_mutate(const char *remote)
{
    struct rdb *db = rdb_create(&sbt_rdb_class, remote);
    wait_synced(db);

    /* Strings: in a scalar, in a set and as map keys and values. */
    struct uuid as = { .parts = { 0xa5a5a5a5, 0x1, 0x2, 0x3 } };
    struct uuid dp1 = { .parts = { 0xd1d1d1d1, 0x1, 0x2, 0x3 } };
    struct uuid dp2 = { .parts = { 0xd2d2d2d2, 0x1, 0x2, 0x3 } };
    struct uuid grp = { .parts = { 0x99999999, 0x1, 0x2, 0x3 } };
    struct uuid lb = { .parts = { 0xfedcba98, 0x76543210, 0xefefefef,
                                  0x0f1e2d3c } };
    struct rdb_txn *txn = rdb_txn_create(db);
    rdb_txn_insert(txn, &sbt_table_address_set, &as);
    rdb_txn_set_string(txn, SBT_ADDRESS_SET_COL_NAME, weird);
    const char *addrs[] = { "10.0.0.2", weird, "10.0.0.1" };
    rdb_txn_set_strings(txn, SBT_ADDRESS_SET_COL_ADDRESSES, addrs,
                        ARRAY_SIZE(addrs));
    rdb_txn_insert(txn, &sbt_table_datapath_binding, &dp1);
    rdb_txn_set_integer(txn, SBT_DATAPATH_BINDING_COL_TUNNEL_KEY, 1);
    const char *keys[] = { weird, "name", "" };
    const char *values[] = { "k1", weird, "empty key" };
    rdb_txn_set_map(txn, SBT_DATAPATH_BINDING_COL_EXTERNAL_IDS, keys, values,
                    ARRAY_SIZE(keys));
    rdb_txn_insert(txn, &sbt_table_datapath_binding, &dp2);
    rdb_txn_set_integer(txn, SBT_DATAPATH_BINDING_COL_TUNNEL_KEY, 2);
    rdb_txn_insert(txn, &sbt_table_logical_dp_group, &grp);
    rdb_txn_set_refs(txn, SBT_LOGICAL_DP_GROUP_COL_DATAPATHS, &dp1, 1);
    /* The group is not a root table's: without a row referring to it, the
     * server would delete it at once. */
    rdb_txn_insert(txn, &sbt_table_load_balancer, &lb);
    rdb_txn_set_string(txn, SBT_LOAD_BALANCER_COL_NAME, "lb");
    rdb_txn_set_ref(txn, SBT_LOAD_BALANCER_COL_DATAPATH_GROUP, &grp);
    run_counted_txn(db, txn, "insert");
    dump(db, &sbt_rdb_class);

    /* Mutations add to or take from what is there, whatever else is: a
     * value already present or absent is no error. */
    txn = rdb_txn_create(db);
    const char *more[] = { "10.0.0.3", "10.0.0.1" };
    rdb_txn_mutate_strings(txn, &sbt_table_address_set, &as,
                           SBT_ADDRESS_SET_COL_ADDRESSES, true, more,
                           ARRAY_SIZE(more));
    rdb_txn_mutate_refs(txn, &sbt_table_logical_dp_group, &grp,
                        SBT_LOGICAL_DP_GROUP_COL_DATAPATHS, true, &dp2, 1);
    run_counted_txn(db, txn, "mutate insert");
    dump_table(db, &sbt_table_address_set);
    dump_table(db, &sbt_table_logical_dp_group);

    txn = rdb_txn_create(db);
    const char *fewer[] = { "10.0.0.2", "10.9.9.9", weird };
    rdb_txn_mutate_strings(txn, &sbt_table_address_set, &as,
                           SBT_ADDRESS_SET_COL_ADDRESSES, false, fewer,
                           ARRAY_SIZE(fewer));
    rdb_txn_mutate_refs(txn, &sbt_table_logical_dp_group, &grp,
                        SBT_LOGICAL_DP_GROUP_COL_DATAPATHS, false, &dp1, 1);
    run_counted_txn(db, txn, "mutate delete");
    dump_table(db, &sbt_table_address_set);
    dump_table(db, &sbt_table_logical_dp_group);

    /* Ops that write nothing are dropped: a transaction of only those is
     * not sent at all. */
    txn = rdb_txn_create(db);
    rdb_txn_update(txn, &sbt_table_address_set, &as);
    rdb_txn_mutate_strings(txn, &sbt_table_address_set, &as,
                           SBT_ADDRESS_SET_COL_ADDRESSES, true, NULL, 0);
    rdb_txn_update(txn, &sbt_table_datapath_binding, &dp1);
    run_counted_txn(db, txn, "nothing");

    /* ...and in the middle of others, only they are. */
    txn = rdb_txn_create(db);
    rdb_txn_update(txn, &sbt_table_address_set, &as);
    rdb_txn_update(txn, &sbt_table_datapath_binding, &dp1);
    struct smap ids = SMAP_INITIALIZER(&ids);
    smap_add(&ids, weird, weird);
    rdb_txn_set_smap(txn, SBT_DATAPATH_BINDING_COL_EXTERNAL_IDS, &ids);
    smap_destroy(&ids);
    rdb_txn_update(txn, &sbt_table_address_set, &as);
    run_counted_txn(db, txn, "one of three");
    dump_table(db, &sbt_table_datapath_binding);

    txn = rdb_txn_create(db);
    rdb_txn_delete(txn, &sbt_table_load_balancer, &lb);
    rdb_txn_delete(txn, &sbt_table_address_set, &as);
    run_counted_txn(db, txn, "delete");
    dump(db, &sbt_rdb_class);

    rdb_destroy(db);
}

static void
do_txn_absent(const char *remote)
{
    vlog_set_levels(vlog_module_from_name("rdb_txn"), VLF_CONSOLE,
                    VLL_INFO);
    struct rdb *db = rdb_create(&sbt_rdb_class, remote);
    wait_synced(db);
    printf("schema %s: Load_Balancer %d, Datapath_Binding %d, "
           "Datapath_Binding.tunnel_key %d, "
           "Datapath_Binding.external_ids %d\n",
           rdb_server_schema_version(db),
           rdb_server_has_table(db, &sbt_table_load_balancer),
           rdb_server_has_table(db, &sbt_table_datapath_binding),
           rdb_server_has_column(db, &sbt_table_datapath_binding,
                                 SBT_DATAPATH_BINDING_COL_TUNNEL_KEY),
           rdb_server_has_column(db, &sbt_table_datapath_binding,
                                 SBT_DATAPATH_BINDING_COL_EXTERNAL_IDS));

    struct uuid as = { .parts = { 0xa5a5a5a5, 0x1, 0x2, 0x3 } };
    struct uuid dp = { .parts = { 0xd1d1d1d1, 0x1, 0x2, 0x3 } };
    struct uuid lb = { .parts = { 0x1b1b1b1b, 0x1, 0x2, 0x3 } };
    struct smap ids = SMAP_INITIALIZER(&ids);
    smap_add(&ids, "name", "sw0");
    for (int round = 1; round <= 2; round++) {
        char *what = xasprintf("mixed %d", round);
        struct rdb_txn *txn = rdb_txn_create(db);
        /* A row of an absent table, between rows that are written. */
        if (round == 1) {
            rdb_txn_insert(txn, &sbt_table_datapath_binding, &dp);
        } else {
            rdb_txn_update(txn, &sbt_table_datapath_binding, &dp);
        }
        rdb_txn_set_integer(txn, SBT_DATAPATH_BINDING_COL_TUNNEL_KEY, round);
        rdb_txn_set_smap(txn, SBT_DATAPATH_BINDING_COL_EXTERNAL_IDS, &ids);
        rdb_txn_insert(txn, &sbt_table_load_balancer, &lb);
        rdb_txn_set_string(txn, SBT_LOAD_BALANCER_COL_NAME, "lb");
        rdb_txn_set_refs(txn, SBT_LOAD_BALANCER_COL_DATAPATHS, &dp, 1);
        rdb_txn_mutate_refs(txn, &sbt_table_load_balancer, &lb,
                            SBT_LOAD_BALANCER_COL_DATAPATHS, true, &dp, 1);
        rdb_txn_delete(txn, &sbt_table_load_balancer, &lb);
        if (round == 1) {
            rdb_txn_insert(txn, &sbt_table_address_set, &as);
            rdb_txn_set_string(txn, SBT_ADDRESS_SET_COL_NAME, "as");
        }
        const char *addr = round == 1 ? "10.0.0.1" : "10.0.0.2";
        rdb_txn_mutate_strings(txn, &sbt_table_address_set, &as,
                               SBT_ADDRESS_SET_COL_ADDRESSES, true, &addr,
                               1);
        run_counted_txn(db, txn, what);
        free(what);

        /* Only writes the server cannot take: nothing to send. */
        what = xasprintf("absent only %d", round);
        txn = rdb_txn_create(db);
        rdb_txn_update(txn, &sbt_table_datapath_binding, &dp);
        rdb_txn_set_smap(txn, SBT_DATAPATH_BINDING_COL_EXTERNAL_IDS, &ids);
        rdb_txn_insert(txn, &sbt_table_load_balancer, &lb);
        rdb_txn_set_string(txn, SBT_LOAD_BALANCER_COL_NAME, "lb");
        rdb_txn_delete(txn, &sbt_table_load_balancer, &lb);
        rdb_txn_mutate_refs(txn, &sbt_table_load_balancer, &lb,
                            SBT_LOAD_BALANCER_COL_DATAPATHS, false, &dp, 1);
        run_counted_txn(db, txn, what);
        free(what);
        dump_table(db, &sbt_table_datapath_binding);
        dump_table(db, &sbt_table_address_set);
    }
    smap_destroy(&ids);
    rdb_destroy(db);
}

/* Inserts address set "PREFIX-I", reporting as "insert I". */
static void
insert_address_set(struct rdb *db, const char *prefix, int i)
{
    char *name = xasprintf("%s-%d", prefix, i);
    char *what = xasprintf("insert %d", i);
    struct uuid uuid;
    uuid_generate(&uuid);
    struct rdb_txn *txn = rdb_txn_create(db);
    rdb_txn_insert(txn, &sbt_table_address_set, &uuid);
    rdb_txn_set_string(txn, SBT_ADDRESS_SET_COL_NAME, name);
    run_txn(db, txn, what);
    free(what);
    free(name);
}

/* Prints the names of the address sets that begin with 'prefix'. */
static void
print_address_sets(const struct rdb *db, const char *prefix)
{
    struct sset names = SSET_INITIALIZER(&names);
    for (const struct rdb_row *row = rdb_first(db, &sbt_table_address_set);
         row; row = rdb_next(row)) {
        const char *name = sbt_address_set_cast(row)->name;
        if (!strncmp(name, prefix, strlen(prefix))) {
            sset_add(&names, name);
        }
    }
    const char **sorted = sset_sort(&names);
    for (size_t i = 0; i < sset_count(&names); i++) {
        printf("address set %s\n", sorted[i]);
    }
    free(sorted);
    sset_destroy(&names);
}

/* Prints whether 'db' holds the lock, and how many copies of the database
 * it has started from (once per connection, again when it needs a fresh
 * one). */
static void
print_lock(const struct rdb *db)
{
    printf("has lock: %s, copies: %u\n", rdb_has_lock(db) ? "yes" : "no",
           rdb_get_reset_seqno(db));
}

static void
do_txn_lock(const char *remote, const char *lock, const char *file)
{
    struct rdb *db = rdb_create(&sbt_rdb_class, remote);
    rdb_set_lock(db, lock);
    wait_synced(db);

    /* The lock request goes out right after the schema request, so its
     * reply came in before the monitor's: the replica knows by now. */
    print_lock(db);
    insert_address_set(db, lock, 1);

    long long int deadline = time_msec() + 20000;
    while (!rdb_has_lock(db) && time_msec() < deadline) {
        rdb_run(db);
        if (rdb_has_lock(db)) {
            break;
        }
        rdb_wait(db);
        poll_timer_wait_until(deadline);
        poll_block();
    }
    /* Granted after the copy was taken: the previous holder may have
     * written rows whose insertion the replica does not hear of, so it
     * takes a fresh copy. */
    wait_synced(db);
    print_lock(db);
    insert_address_set(db, lock, 2);

    /* Not reading from the server, the replica cannot learn that the lock
     * was stolen: only the server's check of the transaction's "assert"
     * can stop it. */
    printf("waiting for %s\n", file);
    struct stat st;
    deadline = time_msec() + 20000;
    while (stat(file, &st) && time_msec() < deadline) {
        /* Through the poll loop, which would otherwise warn of a long
         * interval, but with nothing of the replica's to wait for. */
        poll_timer_wait(10);
        poll_block();
    }
    print_lock(db);
    insert_address_set(db, lock, 3);
    print_lock(db);
    print_address_sets(db, lock);

    rdb_destroy(db);
}

/* Inserts 'n' address sets "asN" with a few addresses each, 'batch' per
 * call. */
struct big_txn {
    int n, next, batch;
};

static bool
produce_address_sets(struct rdb_txn *txn, void *big_)
{
    struct big_txn *big = big_;
    for (int i = 0; i < big->batch && big->next < big->n; i++, big->next++) {
        char name[32];
        snprintf(name, sizeof name, "as%d", big->next);
        char a[4][32];
        const char *addrs[4];
        for (int j = 0; j < 4; j++) {
            snprintf(a[j], sizeof a[j], "10.%d.%d.%d", j, big->next >> 8,
                     big->next & 255);
            addrs[j] = a[j];
        }
        struct uuid uuid;
        uuid_generate(&uuid);
        rdb_txn_insert(txn, &sbt_table_address_set, &uuid);
        rdb_txn_set_string(txn, SBT_ADDRESS_SET_COL_NAME, name);
        rdb_txn_set_strings(txn, SBT_ADDRESS_SET_COL_ADDRESSES, addrs, 4);
    }
    return big->next >= big->n;
}

static void
do_txn_big(const char *remote, int n)
{
    struct rdb *db = rdb_create(&sbt_rdb_class, remote);
    wait_synced(db);

    /* Megabytes of ops, produced as the server takes them; the first
     * attempt may be cut off (see tests/rdb.at), then the replica starts
     * over and so does the transaction. */
    for (int attempt = 1; attempt <= 2; attempt++) {
        struct big_txn big = { .n = n, .batch = 500 };
        struct rdb_txn *txn = rdb_txn_create(db);
        rdb_txn_add_producer(txn, produce_address_sets, &big);
        rdb_txn_commit(txn);
        char what[32];
        snprintf(what, sizeof what, "attempt %d", attempt);
        finish_txn(db, txn, what);
        printf("address sets: %"PRIuSIZE"\n",
               rdb_count(db, &sbt_table_address_set));
        if (rdb_count(db, &sbt_table_address_set) == n) {
            break;
        }
        wait_synced(db);
    }
    rdb_destroy(db);
}

static int
compare_rows_by_uuid(const void *a_, const void *b_)
{
    const struct rdb_row *const *a = a_;
    const struct rdb_row *const *b = b_;
    return uuid_compare_3way(&(*a)->uuid, &(*b)->uuid);
}

/* Runs 'db' for 'ms' milliseconds, as an event loop between pieces of
 * work would. */
static void
run_for(struct rdb *db, long long int ms)
{
    long long int until = time_msec() + ms;
    while (time_msec() < until) {
        rdb_run(db);
        rdb_wait(db);
        poll_timer_wait_until(until);
        poll_block();
    }
}

/* Writes 'n' address sets "asN" in a started transaction, 'batch' at a
 * time, running the replica for 1.5 s after each batch; then commits it.
 * Then inserts one more address set in a transaction of its own. */
static void
do_txn_started(const char *remote, int n, int batch)
{
    struct rdb *db = rdb_create(&sbt_rdb_class, remote);
    wait_synced(db);

    struct big_txn big = { .n = n, .batch = batch };
    struct rdb_txn *txn = rdb_txn_create(db);
    rdb_txn_start(txn);
    while (!produce_address_sets(txn, &big)) {
        run_for(db, 1500);
    }
    rdb_txn_commit(txn);
    finish_txn(db, txn, "started");

    wait_synced(db);
    insert_address_set(db, "after", 1);
    wait_synced(db);
    printf("address sets: %"PRIuSIZE"\n",
           rdb_count(db, &sbt_table_address_set));
    rdb_destroy(db);
}

/* For each Logical_Flow row, in UUID order, prints which of the distinct
 * content hashes and external_ids hashes it has, as a letter: the same
 * letter for rows whose columns are the same, whatever the server sent and
 * however it arrived.  With 'remote2', a second replica's rows follow,
 * with letters from the same tables, so that the two can be compared. */
static void
do_hashes(const char *remote, const char *remote2)
{
    struct rdb_hash seen[2][26];
    size_t n_seen[2] = { 0, 0 };
    const struct rdb_table_class *tc = &sbt_table_logical_flow;
    for (int r = 0; r < (remote2 ? 2 : 1); r++) {
        struct rdb *db = rdb_create(&sbt_rdb_class, r ? remote2 : remote);
        wait_synced(db);

        /* In UUID order, so that the letters do not depend on the order
         * the replica keeps its rows in. */
        size_t n = rdb_count(db, tc), k = 0;
        const struct rdb_row **rows = xmalloc(n * sizeof *rows);
        for (const struct rdb_row *row = rdb_first(db, tc); row;
             row = rdb_next(row)) {
            rows[k++] = row;
        }
        ovs_assert(k == n);
        qsort(rows, n, sizeof *rows, compare_rows_by_uuid);

        for (k = 0; k < n; k++) {
            const struct rdb_row *row = rows[k];
            struct ds s = DS_EMPTY_INITIALIZER;
            ds_put_format(&s, "%s "UUID_FMT, r ? "2" : "1",
                          UUID_ARGS(&row->uuid));
            for (size_t g = 0; g < 2 && g < tc->n_hash_groups; g++) {
                const struct rdb_hash *h = rdb_row_hash(row, tc, g);
                size_t i;
                for (i = 0; i < n_seen[g]; i++) {
                    if (rdb_hash_equals(&seen[g][i], h)) {
                        break;
                    }
                }
                if (i == n_seen[g]) {
                    ovs_assert(i < 26);
                    seen[g][n_seen[g]++] = *h;
                }
                ds_put_format(&s, " #%"PRIuSIZE"=%c", g, (char) ('A' + i));
            }
            puts(ds_cstr(&s));
            ds_destroy(&s);
        }
        free(rows);
        rdb_destroy(db);
    }
}

/* What follow-check remembers of a row: its columns' values, as put_value()
 * writes them. */
struct seen_row {
    struct hmap_node node;          /* In a 'seen' map, by UUID. */
    const struct rdb_table_class *tc;
    struct uuid uuid;
    char **values;                  /* One per column. */
};

static void
seen_capture(const struct rdb *db, const struct rdb_class *class,
             struct hmap *seen)
{
    hmap_init(seen);
    for (size_t i = 0; i < class->n_tables; i++) {
        const struct rdb_table_class *tc = class->tables[i];
        for (const struct rdb_row *row = rdb_first(db, tc); row;
             row = rdb_next(row)) {
            if (row->transient) {
                /* Someone else's row the replica keeps only until it is
                 * seen (a table replicated for its initial contents). */
                continue;
            }
            struct seen_row *sr = xmalloc(sizeof *sr);
            sr->tc = tc;
            sr->uuid = row->uuid;
            sr->values = xmalloc((tc->n_columns + 1) * sizeof *sr->values);
            for (size_t j = 0; j < tc->n_columns; j++) {
                struct ds v = DS_EMPTY_INITIALIZER;
                put_value(&v, row, &tc->columns[j]);
                sr->values[j] = ds_steal_cstr(&v);
            }
            hmap_insert(seen, &sr->node, uuid_hash(&row->uuid));
        }
    }
}

static const struct seen_row *
seen_find(const struct hmap *seen, const struct rdb_table_class *tc,
          const struct uuid *uuid)
{
    const struct seen_row *sr;
    HMAP_FOR_EACH_WITH_HASH (sr, node, uuid_hash(uuid), seen) {
        if (sr->tc == tc && uuid_equals(&sr->uuid, uuid)) {
            return sr;
        }
    }
    return NULL;
}

static void
seen_destroy(struct hmap *seen)
{
    struct seen_row *sr;
    HMAP_FOR_EACH_POP (sr, node, seen) {
        for (size_t j = 0; j < sr->tc->n_columns; j++) {
            free(sr->values[j]);
        }
        free(sr->values);
        free(sr);
    }
    hmap_destroy(seen);
}

static int
tracking_error(const struct rdb_table_class *tc, const struct uuid *uuid,
               const char *what, const char *column)
{
    printf("error: %s "UUID_FMT" %s%s%s\n", tc->name, UUID_ARGS(uuid), what,
           column ? " " : "", column ? column : "");
    return 1;
}

/* Set deltas check_set_deltas() looked at, and those of sets of
 * strings among them. */
static int n_set_deltas;
static int n_string_set_deltas;

static size_t
count_char(const char *value, char c)
{
    size_t n = 0;
    for (const char *p = value; *p; p++) {
        n += *p == c;
    }
    return n;
}

/* The number of UUIDs in 'value' (put_value()'s), by their dashes. */
static size_t
count_uuids(const char *value)
{
    return count_char(value, '-') / 4;
}

/* The number of strings in 'value', put_value()'s of a set of strings:
 * each is quoted, and the generator writes none with a quote inside. */
static size_t
count_strings(const char *value)
{
    return count_char(value, '"') / 2;
}

/* True if 'value', put_value()'s of a set of strings, has 's'. */
static bool
value_has_string(const char *value, const char *s)
{
    size_t len = strlen(s);
    for (const char *p = value; (p = strchr(p, '"')) != NULL; ) {
        const char *end = strchr(p + 1, '"');
        if (!end) {
            break;
        }
        if (end - (p + 1) == len && !memcmp(p + 1, s, len)) {
            return true;
        }
        p = end + 1;
    }
    return false;
}

/* Checks one set delta of column 'j' of 'row': the elements 'keys'
 * (their text in put_value()'s values, the first 'n_added' added, the
 * next 'n_removed' removed) against its values before ('o') and after
 * ('n'), where 'has' finds an element and 'count' counts them. */
static int
check_delta(const struct rdb_row *row, const struct rdb_table_class *tc,
            size_t j, const struct seen_row *o, const struct seen_row *n,
            char **keys, size_t n_added, size_t n_removed,
            bool (*has)(const char *value, const char *key),
            size_t (*count)(const char *value))
{
    int errors = 0;
    const char *name = tc->columns[j].name;
    n_set_deltas++;
    if (!rdb_row_is_updated(row, j)) {
        errors += tracking_error(tc, &row->uuid,
                                 "set delta, not updated:", name);
    }
    for (size_t k = 0; k < n_added + n_removed; k++) {
        bool is_added = k < n_added;
        bool before = has(o->values[j], keys[k]);
        bool after = has(n->values[j], keys[k]);
        if (before == is_added || after != is_added) {
            errors += tracking_error(tc, &row->uuid,
                                     is_added ? "set delta adds wrongly:"
                                     : "set delta removes wrongly:", name);
        }
    }
    if (count(o->values[j]) + n_added - n_removed != count(n->values[j])) {
        errors += tracking_error(tc, &row->uuid, "set delta incomplete:",
                                 name);
    }
    return errors;
}

static bool
value_has_uuid(const char *value, const char *key)
{
    return strstr(value, key) != NULL;
}

/* Checks the set deltas the replica reports for modified row 'row' (see
 * rdb_row_get_set_delta() and rdb_row_get_string_set_delta()) against its
 * values before ('o') and after ('n'). */
static int
check_set_deltas(const struct rdb_row *row, const struct rdb_table_class *tc,
                 const struct seen_row *o, const struct seen_row *n)
{
    int errors = 0;
    for (size_t j = 0; j < tc->n_columns; j++) {
        const struct rdb_column_class *c = &tc->columns[j];
        if (c->type == RDB_STRING && c->value_type == RDB_VOID
            && !c->enums && c->storage == RDB_S_ARRAY) {
            char *const *added, *const *removed;
            size_t n_added, n_removed;
            if (rdb_row_get_string_set_delta(row, j, &added, &n_added,
                                             &removed, &n_removed)) {
                char **keys = xmalloc((n_added + n_removed + 1)
                                      * sizeof *keys);
                /* (Either array may be NULL when it is empty.) */
                for (size_t k = 0; k < n_added; k++) {
                    keys[k] = added[k];
                }
                for (size_t k = 0; k < n_removed; k++) {
                    keys[n_added + k] = removed[k];
                }
                errors += check_delta(row, tc, j, o, n, keys, n_added,
                                      n_removed, value_has_string,
                                      count_strings);
                n_string_set_deltas++;
                free(keys);
            }
            continue;
        }
        const struct uuid *added, *removed;
        size_t n_added, n_removed;
        if (rdb_row_get_set_delta(row, j, &added, &n_added,
                                  &removed, &n_removed)) {
            size_t n_keys = n_added + n_removed;
            char **keys = xmalloc((n_keys + 1) * sizeof *keys);
            for (size_t k = 0; k < n_keys; k++) {
                const struct uuid *u = (k < n_added ? &added[k]
                                        : &removed[k - n_added]);
                keys[k] = xasprintf(UUID_FMT, UUID_ARGS(u));
            }
            errors += check_delta(row, tc, j, o, n, keys, n_added, n_removed,
                                  value_has_uuid, count_uuids);
            for (size_t k = 0; k < n_keys; k++) {
                free(keys[k]);
            }
            free(keys);
        }
    }
    return errors;
}

/* Checks what 'db' tracked against what changed from 'old' to 'new' (its
 * contents before and after), as lib/rdb.h says it must: every row
 * inserted tracked as new, every row deleted as deleted, every column that
 * is not quiet and changed as updated, no quiet column as updated; and
 * the seqno advanced ('woke') exactly if a change that is not quiet was
 * applied.  Returns the number of errors, which it prints; sets '*any' if
 * anything was tracked. */
static int
check_tracking(const struct rdb *db, const struct rdb_class *class,
               const struct hmap *old, const struct hmap *new, bool woke,
               bool *any)
{
    int errors = 0;
    bool loud = false;

    for (size_t i = 0; i < class->n_tables; i++) {
        const struct rdb_table_class *tc = class->tables[i];
        struct sset deleted = SSET_INITIALIZER(&deleted);

        /* What was tracked is what happened. */
        for (const struct rdb_row *row = rdb_track_first(db, tc); row;
             row = rdb_track_next(row)) {
            const struct seen_row *o = seen_find(old, tc, &row->uuid);
            const struct seen_row *n = seen_find(new, tc, &row->uuid);
            /* Someone else's change to an owned table: it wakes the user
             * up, with its quiet columns; in a table replicated for its
             * initial contents only, a row the replica did not have shows
             * up with what changed. */
            bool foreign = rdb_row_is_foreign(row);
            *any = true;
            loud |= foreign;
            if (rdb_row_is_deleted(row)) {
                /* A row that was never there may have come and gone, or
                 * be one whose insertion the server does not report. */
                if (n) {
                    errors += tracking_error(tc, &row->uuid,
                                             "deleted, but still there",
                                             NULL);
                }
                char *key = xasprintf(UUID_FMT, UUID_ARGS(&row->uuid));
                sset_add_and_free(&deleted, key);
                loud |= o && !tc->quiet;
            } else if (rdb_row_is_new(row)) {
                if (o) {
                    errors += tracking_error(tc, &row->uuid,
                                             "new, but was there before",
                                             NULL);
                }
                loud |= !tc->quiet;
            } else if (!o || !n) {
                /* Unless someone else modified a row the replica forgot
                 * (which it keeps only until it is seen). */
                if (!(foreign && row->transient)) {
                    errors += tracking_error(tc, &row->uuid,
                                             "modified, but not there",
                                             NULL);
                }
            } else {
                errors += check_set_deltas(row, tc, o, n);
            }
            for (size_t j = 0; !rdb_row_is_new(row) && j < tc->n_columns;
                 j++) {
                if (rdb_row_is_updated(row, j)) {
                    if (tc->columns[j].quiet && !foreign) {
                        errors += tracking_error(tc, &row->uuid,
                                                 "tracks quiet column",
                                                 tc->columns[j].name);
                    }
                    loud = true;
                }
            }
        }

        /* What happened was tracked. */
        const struct seen_row *n;
        HMAP_FOR_EACH (n, node, new) {
            if (n->tc != tc) {
                continue;
            }
            const struct seen_row *o = seen_find(old, tc, &n->uuid);
            const struct rdb_row *row = rdb_get(db, tc, &n->uuid);
            if (!o) {
                if (!row || !rdb_row_is_new(row)) {
                    errors += tracking_error(tc, &n->uuid,
                                             "inserted, not tracked", NULL);
                }
                continue;
            }
            for (size_t j = 0; j < tc->n_columns; j++) {
                if (strcmp(o->values[j], n->values[j])
                    && !tc->columns[j].quiet
                    && !(row && rdb_row_is_updated(row, j))) {
                    errors += tracking_error(tc, &n->uuid,
                                             "changed, not tracked:",
                                             tc->columns[j].name);
                }
            }
        }
        const struct seen_row *o;
        HMAP_FOR_EACH (o, node, old) {
            if (o->tc == tc && !seen_find(new, tc, &o->uuid)) {
                char *key = xasprintf(UUID_FMT, UUID_ARGS(&o->uuid));
                if (!sset_contains(&deleted, key)) {
                    errors += tracking_error(tc, &o->uuid,
                                             "deleted, not tracked", NULL);
                }
                free(key);
            }
        }
        sset_destroy(&deleted);
    }

    if (loud != woke) {
        printf("error: seqno %s, but %s\n",
               woke ? "advanced" : "did not advance",
               loud ? "a change that is not quiet was applied"
                    : "only quiet changes were applied");
        errors++;
    }
    return errors;
}

/* Address set 'marker' of 'db', if it has one. */
static bool
has_marker(const struct rdb *db, const struct rdb_class *class,
           const char *marker)
{
    for (size_t i = 0; i < class->n_tables; i++) {
        const struct rdb_table_class *tc = class->tables[i];
        if (strcmp(tc->name, "Address_Set")) {
            continue;
        }
        /* NB and SB Address_Set rows both begin with 'name'. */
        ovs_assert(!strcmp(tc->columns[0].name, "name"));
        for (const struct rdb_row *row = rdb_first(db, tc); row;
             row = rdb_next(row)) {
            const char *name = *(char *const *) ((const char *) row
                                                 + tc->columns[0].offset);
            if (!strcmp(name, marker)) {
                return true;
            }
        }
    }
    return false;
}

/* Drops the rows of the tables 'db' gets only the initial contents of, as
 * northd does once it has read them. */
static void
forget_initial_rows(struct rdb *db, const struct rdb_class *class)
{
    for (size_t i = 0; i < class->n_tables; i++) {
        const struct rdb_table_class *tc = class->tables[i];
        if (!(tc->select & (RDB_SELECT_INSERT | RDB_SELECT_MODIFY))) {
            rdb_forget_rows(db, tc);
        }
    }
}

static void
do_follow_check(const struct rdb_class *class, const char *remote,
                const char *marker, bool forget, bool selftest)
{
    struct rdb *db = rdb_create(class, remote);
    wait_synced(db);
    rdb_track_clear(db);
    if (forget) {
        forget_initial_rows(db, class);
    }

    struct hmap old;
    seen_capture(db, class, &old);
    unsigned int seqno = rdb_get_seqno(db);
    unsigned int reset_seqno = rdb_get_reset_seqno(db);
    int errors = 0, changes = 0;
    long long int deadline = time_msec() + 60000;
    for (;;) {
        rdb_run(db);
        if (rdb_is_synced(db)) {
            struct hmap new;
            seen_capture(db, class, &new);
            if (rdb_get_reset_seqno(db) == reset_seqno) {
                /* After a fresh copy, every row is new: nothing to check. */
                bool any = false;
                errors += check_tracking(db, class, &old, &new,
                                         rdb_get_seqno(db) != seqno, &any);
                changes += any;
            } else if (forget) {
                forget_initial_rows(db, class);
                seen_destroy(&new);
                seen_capture(db, class, &new);
            }
            if (!selftest || !changes) {
                rdb_track_clear(db);
            }
            hmap_swap(&old, &new);
            seen_destroy(&new);
            seqno = rdb_get_seqno(db);
            reset_seqno = rdb_get_reset_seqno(db);
            if (has_marker(db, class, marker)) {
                break;
            }
        }
        if (time_msec() > deadline) {
            ovs_fatal(0, "no address set %s after 60 s", marker);
        }
        rdb_wait(db);
        poll_timer_wait_until(deadline);
        poll_block();
    }
    seen_destroy(&old);
    printf("tracking errors: %d\n", errors);
    printf("changes seen: %d\n", changes);
    printf("set deltas checked: %d\n", n_set_deltas);
    printf("string set deltas checked: %d\n", n_string_set_deltas);
    dump(db, class);
    rdb_destroy(db);
}

/* Random bytes that are mostly plain, with quotes, escapes, control
 * characters and bytes above 0x7f among them. */
static uint8_t
jscan_random_byte(void)
{
    static const uint8_t special[] = { '"', '\\', 0x00, 0x1f, 0x20, 0x7f,
                                       0x80, 0x9f, 0xa2, 0xdc, 0xff,
                                       '[', ']', '{', '}', '|', 0x02,
                                       0x5b | 0x80, 0x7d | 0x80 };
    return (random_range(8)
            ? 'a' + random_range(26)
            : special[random_range(ARRAY_SIZE(special))]);
}

static void
do_jscan(uint32_t seed, int n)
{
    random_set_seed(seed);
    long long int checks = 0, differences = 0;
    char buf[200];
    for (int k = 0; k < n; k++) {
        size_t len = random_range(sizeof buf);
        for (size_t i = 0; i < len; i++) {
            buf[i] = jscan_random_byte();
        }
        for (size_t start = 0; start <= len; start++) {
            const char *p = buf + start, *end = buf + len;
            const char *q = p;
            while (q < end && *q != '"' && *q != '\\') {
                q++;
            }
            size_t plain = 0;
            while (p + plain < end) {
                uint8_t c = p[plain];
                if (c < 0x20 || c == '"' || c == '\\') {
                    break;
                }
                plain++;
            }
            differences += jscan_quote_or_escape(p, end) != q;
            differences += jscan_plain_prefix(p, end - p) != plain;
            checks += 2;
#ifdef __SSE2__
            if (end - p >= 16) {
                /* The bytes that can open or close something in a
                 * container, and the two that fold onto them. */
                unsigned int want = 0;
                for (int i = 0; i < 16; i++) {
                    want |= ((unsigned int) (p[i]
                                             && strchr("\"\\[]{}|\x02", p[i]))
                             << i);
                }
                differences += jscan_sse_structure(p) != want;
                checks++;
            }
#endif
        }
    }
    printf("jscan: %lld checks, %lld differences\n", checks, differences);
}

int
main(int argc, char *argv[])
{
    set_program_name(argv[0]);
    setvbuf(stdout, NULL, _IOLBF, 0);
    fatal_ignore_sigpipe();
    vlog_set_levels(NULL, VLF_ANY_DESTINATION,
                    getenv("TEST_RDB_DEBUG") ? VLL_DBG : VLL_WARN);
    if (argc == 4 && !strcmp(argv[1], "jscan")) {
        do_jscan(atoi(argv[2]), atoi(argv[3]));
        return 0;
    }
    if (argc < 4) {
        ovs_fatal(0, "usage: %s dump|follow|follow-resync|follow-check|"
                  "stats|txn|txn-mutate|txn-absent|txn-lock|txn-strings|txn-started|"
                  "txn-big|hashes nb|sb REMOTE "
                  "[N|MARKER|LOCK FILE|FILE|N BATCH|REMOTE2], "
                  "or jscan SEED N", argv[0]);
    }
    const char *cmd = argv[1];
    const struct rdb_class *class = class_by_name(argv[2]);
    const char *remote = argv[3];

    if (!strcmp(cmd, "stats")) {
        do_stats(class, remote);
    } else if (!strcmp(cmd, "txn")) {
        do_txn(remote);
    } else if (!strcmp(cmd, "txn-mutate")) {
        do_txn_mutate(remote);
    } else if (!strcmp(cmd, "txn-absent")) {
        do_txn_absent(remote);
    } else if (!strcmp(cmd, "txn-lock")) {
        if (argc < 6) {
            ovs_fatal(0, "txn-lock needs LOCK and FILE");
        }
        do_txn_lock(remote, argv[4], argv[5]);
    } else if (!strcmp(cmd, "follow-check")) {
        if (argc < 5) {
            ovs_fatal(0, "follow-check needs MARKER");
        }
        bool forget = false, selftest = false;
        for (int i = 5; i < argc; i++) {
            forget |= !strcmp(argv[i], "forget");
            selftest |= !strcmp(argv[i], "selftest");
        }
        do_follow_check(class, remote, argv[4], forget, selftest);
    } else if (!strcmp(cmd, "txn-strings")) {
        if (argc < 5) {
            ovs_fatal(0, "txn-strings needs FILE");
        }
        do_txn_strings(remote, argv[4]);
    } else if (!strcmp(cmd, "txn-started")) {
        do_txn_started(remote, argc > 4 ? atoi(argv[4]) : 2000,
                       argc > 5 ? atoi(argv[5]) : 500);
    } else if (!strcmp(cmd, "txn-big")) {
        do_txn_big(remote, argc > 4 ? atoi(argv[4]) : 10000);
    } else if (!strcmp(cmd, "hashes")) {
        do_hashes(remote, argc > 4 ? argv[4] : NULL);
    } else if (!strcmp(cmd, "follow-resync")) {
        do_follow_resync(class, remote, argc > 4 ? atoi(argv[4]) : 1);
    } else if (!strcmp(cmd, "dump") || !strcmp(cmd, "follow")) {
        struct rdb *db = rdb_create(class, remote);
        wait_synced(db);
        dump(db, class);
        rdb_track_clear(db);
        int n = !strcmp(cmd, "follow") && argc > 4 ? atoi(argv[4]) : 0;
        for (int i = 0; i < n; i++) {
            /* Checked between rdb_run() and poll_block(): an update that
             * rdb_run() applied must not wait for the next one to be
             * reported. */
            unsigned int seqno = rdb_get_seqno(db);
            for (;;) {
                rdb_run(db);
                if (rdb_get_seqno(db) != seqno && rdb_is_synced(db)) {
                    break;
                }
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
        /* Rows gone and replicas destroyed give their maps back. */
        if (rdb_shared_map_count()) {
            ovs_fatal(0, "%"PRIuSIZE" shared maps left",
                      rdb_shared_map_count());
        }
    } else {
        ovs_fatal(0, "unknown command %s", cmd);
    }
    return 0;
}
