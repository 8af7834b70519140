/* Transactions of the replica: ops rendered straight to JSON text, sent
 * whole or, with producers, piece by piece as the server reads them.  See
 * rdb.h. */
#include <config.h>
#include "lib/rdb-private.h"

#include "lib/decimal.h"
#include "lib/jscan.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <string.h>

#include "coverage.h"
#include "openvswitch/json.h"
#include "openvswitch/vlog.h"
#include "reconnect.h"
#include "smap.h"
#include "timeval.h"
#include "util.h"
#include "uuid.h"

VLOG_DEFINE_THIS_MODULE(rdb_txn);

COVERAGE_DEFINE(rdb_txn_commit);
COVERAGE_DEFINE(rdb_txn_error);
COVERAGE_DEFINE(rdb_txn_write_dropped);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

struct rdb_txn_producer {
    rdb_txn_producer_func *cb;
    void *aux;
};

struct rdb_txn {
    struct rdb *db;
    enum rdb_txn_status status;
    char *error;
    long long int id;

    struct ds buf;                  /* Rendered ops not queued yet. */
    size_t n_ops;

    /* The insert or update being built. */
    bool in_row;
    bool skip_row;                  /* Of a table the server lacks: none
                                     * of it is written. */
    bool is_update;
    size_t op_start;                /* Where it starts in 'buf'. */
    size_t n_cols;
    const struct rdb_table_class *tc;
    struct rdb_table *table;
    bool touched_local;             /* Wrote to a table the server does not
                                     * report inserts and modifications
                                     * of: see txn_complete(). */

    struct rdb_txn_producer *producers;
    size_t n_producers, allocated_producers, cur_producer;
    bool started;                   /* Header sent (rdb_txn_start()). */
    bool committed;
    bool finished;                  /* All of it queued. */
};

/* Once started, a transaction hands its text to the connection in pieces
 * of about this size. */
#define RDB_TXN_CHUNK (64 * 1024)
#define RDB_TXN_PRODUCE_RESERVE (512 * 1024)

const char *
rdb_txn_status_to_string(enum rdb_txn_status status)
{
    switch (status) {
    case RDB_TXN_UNCOMMITTED: return "uncommitted";
    case RDB_TXN_UNCHANGED: return "unchanged";
    case RDB_TXN_INCOMPLETE: return "incomplete";
    case RDB_TXN_SUCCESS: return "success";
    case RDB_TXN_NOT_LOCKED: return "not locked";
    case RDB_TXN_ERROR: return "error";
    }
    return "<unknown>";
}

struct rdb_txn *
rdb_txn_create(struct rdb *db)
{
    struct rdb_txn *txn = xzalloc(sizeof *txn);
    txn->db = db;
    txn->status = RDB_TXN_UNCOMMITTED;
    txn->id = -1;
    ds_init(&txn->buf);
    return txn;
}

void
rdb_txn_destroy(struct rdb_txn *txn)
{
    if (!txn) {
        return;
    }
    struct rdb *db = txn->db;
    if (db->txn == txn) {
        /* Abandoned in flight: its reply will be ignored.  Half of it may
         * be on the wire, which the server could not make sense of. */
        db->txn = NULL;
        if (!txn->finished) {
            reconnect_force_reconnect(db->reconnect, time_msec());
        }
        if (txn->touched_local) {
            rdb_force_resync(db);
        }
    }
    ds_destroy(&txn->buf);
    free(txn->producers);
    free(txn->error);
    free(txn);
}

/* Rendering. */

/* Appending to a transaction's text: inline, so that the length of a
 * literal is known at compile time (a full recompute writes millions of
 * these). */
static inline void
put_bytes(struct ds *ds, const char *s, size_t n)
{
    if (ds->allocated - ds->length < n || !ds->string) {
        ds_reserve(ds, ds->length + n);
    }
    memcpy(&ds->string[ds->length], s, n);
    ds->length += n;
    ds->string[ds->length] = '\0';
}

static inline void
put_cstr(struct ds *ds, const char *s)
{
    put_bytes(ds, s, strlen(s));
}

static inline void
put_char(struct ds *ds, char c)
{
    put_bytes(ds, &c, 1);
}

static inline void
put_decimal(struct ds *ds, int64_t v)
{
    char buf[DECIMAL_BUF_SIZE];
    char *p = decimal_format(buf, v);
    put_bytes(ds, p, buf + DECIMAL_BUF_SIZE - p);
}

/* A string literal: its length is known, and so is the copy's. */
#define PUT_LITERAL(DS, S) put_bytes(DS, S, sizeof S - 1)

/* Appends the 'n' bytes at 's', escaped as json_string_escape() does, but
 * finding the characters to escape eight bytes at a time (lib/jscan.h):
 * json_string_escape() tests every byte, and many of the flows of a
 * full recompute have quoted port names in them. */
static void
put_escaped(struct ds *ds, const char *s, size_t n)
{
    size_t plain = jscan_plain_prefix(s, n);
    if (ds->allocated - ds->length < n + 2 || !ds->string) {
        ds_reserve(ds, ds->length + n + 2);
    }
    memcpy(&ds->string[ds->length], s, plain);
    ds->length += plain;
    for (const char *p = s + plain, *end = s + n; p < end; ) {
        unsigned char c = *p++;
        switch (c) {
        case '"': PUT_LITERAL(ds, "\\\""); break;
        case '\\': PUT_LITERAL(ds, "\\\\"); break;
        case '\n': PUT_LITERAL(ds, "\\n"); break;
        case '\r': PUT_LITERAL(ds, "\\r"); break;
        case '\t': PUT_LITERAL(ds, "\\t"); break;
        case '\b': PUT_LITERAL(ds, "\\b"); break;
        case '\f': PUT_LITERAL(ds, "\\f"); break;
        default: ds_put_format(ds, "\\u%04x", c); break;
        }
        size_t k = jscan_plain_prefix(p, end - p);
        ds_put_buffer(ds, p, k);
        p += k;
    }
}

/* Appends 's' as a JSON string. */
static void
put_string(struct ds *ds, const char *s)
{
    put_char(ds, '"');
    put_escaped(ds, s, strlen(s));
    put_char(ds, '"');
}

#ifndef __SSE2__
/* Writes the 2 * 'n' hex digits of the 'n' bytes of 'v' (most significant
 * first), a pair of digits per lookup: every inserted row has a UUID. */
static void
put_hex(char *p, uint32_t v, int n)
{
    static char pairs[256][2];
    if (!pairs[0][0]) {
        static const char hex[] = "0123456789abcdef";
        for (int i = 0; i < 256; i++) {
            pairs[i][0] = hex[i >> 4];
            pairs[i][1] = hex[i & 15];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        memcpy(&p[2 * i], pairs[v & 0xff], 2);
        v >>= 8;
    }
}
#endif

#ifdef __SSE2__
/* Writes the 32 hex digits of the 16 bytes at 'b', all at once. */
static void
put_hex16(char out[32], const uint8_t b[16])
{
    const __m128i v = _mm_loadu_si128((const __m128i *) b);
    const __m128i nibble = _mm_set1_epi8(0x0f);
    const __m128i nine = _mm_set1_epi8(9);
    const __m128i zero = _mm_set1_epi8('0');
    const __m128i gap = _mm_set1_epi8('a' - '0' - 10);
    __m128i hi = _mm_and_si128(_mm_srli_epi16(v, 4), nibble);
    __m128i lo = _mm_and_si128(v, nibble);
    __m128i d[2] = {
        _mm_unpacklo_epi8(hi, lo),  /* Each byte's digits, high first. */
        _mm_unpackhi_epi8(hi, lo),
    };
    for (int i = 0; i < 2; i++) {
        __m128i letters = _mm_and_si128(_mm_cmpgt_epi8(d[i], nine), gap);
        d[i] = _mm_add_epi8(_mm_add_epi8(d[i], zero), letters);
        _mm_storeu_si128((__m128i *) (out + 16 * i), d[i]);
    }
}
#endif

static void
put_uuid(struct ds *ds, const struct uuid *u)
{
    char *buf = ds_put_uninit(ds, UUID_LEN + 2);
    buf[0] = '"';
#ifdef __SSE2__
    /* The text is the bytes of the four parts, most significant first. */
    uint8_t b[16];
    for (int i = 0; i < 4; i++) {
        ovs_be32 part = htonl(u->parts[i]);
        memcpy(&b[4 * i], &part, 4);
    }
    char hex[32];
    put_hex16(hex, b);
    memcpy(buf + 1, hex, 8);
    buf[9] = '-';
    memcpy(buf + 10, hex + 8, 4);
    buf[14] = '-';
    memcpy(buf + 15, hex + 12, 4);
    buf[19] = '-';
    memcpy(buf + 20, hex + 16, 4);
    buf[24] = '-';
    memcpy(buf + 25, hex + 20, 12);
#else
    put_hex(buf + 1, u->parts[0], 4);
    buf[9] = '-';
    put_hex(buf + 10, u->parts[1] >> 16, 2);
    buf[14] = '-';
    put_hex(buf + 15, u->parts[1] & 0xffff, 2);
    buf[19] = '-';
    put_hex(buf + 20, u->parts[2] >> 16, 2);
    buf[24] = '-';
    put_hex(buf + 25, u->parts[2] & 0xffff, 2);
    put_hex(buf + 29, u->parts[3], 4);
#endif
    buf[37] = '"';
}

static void
put_ref(struct ds *ds, const struct uuid *u)
{
    PUT_LITERAL(ds, "[\"uuid\",");
    put_uuid(ds, u);
    put_char(ds, ']');
}

static void
put_where(struct ds *ds, const struct uuid *u)
{
    PUT_LITERAL(ds, "\"where\":[[\"_uuid\",\"==\",");
    put_ref(ds, u);
    PUT_LITERAL(ds, "]]");
}

static void
put_table(struct ds *ds, const char *op, const struct rdb_table_class *tc)
{
    PUT_LITERAL(ds, ",{\"op\":\"");
    put_cstr(ds, op);
    PUT_LITERAL(ds, "\",\"table\":");
    put_bytes(ds, tc->json_name, tc->json_name_len);
}

static bool
is_local_table(const struct rdb_table_class *tc)
{
    return !(tc->select & (RDB_SELECT_INSERT | RDB_SELECT_MODIFY));
}

/* Writes to what the server lacks. */

static struct vlog_rate_limit absent_rl = VLOG_RATE_LIMIT_INIT(10, 20);

/* Counts a write to table 't' (column 'col', or the whole row if
 * SIZE_MAX) left out because the server lacks it, and logs the first
 * for each table and column. */
static void
write_dropped(struct rdb *db, struct rdb_table *t, size_t col)
{
    COVERAGE_INC(rdb_txn_write_dropped);
    const struct rdb_table_class *tc = t->class;
    if (!t->on_server) {
        if (!t->absence_logged) {
            t->absence_logged = true;
            VLOG_INFO_RL(&absent_rl, "%s: server's schema (version %s) has "
                         "no table %s: writes to it are left out",
                         db->remote, db->server_version
                                     ? db->server_version : "unknown",
                         tc->name);
        }
    } else if (col < tc->n_columns
               && !(t->absent_logged & (UINT64_C(1) << col))) {
        t->absent_logged |= UINT64_C(1) << col;
        VLOG_INFO_RL(&absent_rl, "%s: server's schema (version %s) has no "
                     "column %s.%s: writes to it are left out", db->remote,
                     db->server_version ? db->server_version : "unknown",
                     tc->name, tc->columns[col].name);
    }
}

/* Ops. */

/* A started transaction's ops go out as they are written, so that the
 * server reads them while the rest is computed. */
static void
maybe_flush(struct rdb_txn *txn)
{
    if (txn->started && !txn->committed
        && txn->buf.length >= RDB_TXN_CHUNK) {
        if (txn->db->txn != txn) {
            /* Failed since it started (the connection was lost): the rest
             * must not go to another connection, and is not needed. */
            ds_clear(&txn->buf);
            return;
        }
        rdb_conn_send(txn->db, &txn->buf);
        rdb_conn_flush(txn->db);
    }
}

static void
end_op(struct rdb_txn *txn)
{
    if (!txn->in_row) {
        maybe_flush(txn);
        return;
    }
    txn->in_row = false;
    if (txn->skip_row) {
        txn->skip_row = false;
        return;
    }
    if (txn->is_update && !txn->n_cols) {
        ds_truncate(&txn->buf, txn->op_start);
        txn->n_ops--;
        return;
    }
    PUT_LITERAL(&txn->buf, "}}");
    maybe_flush(txn);
}

static void
begin_row(struct rdb_txn *txn, const struct rdb_table_class *tc,
          const struct uuid *uuid, bool update)
{
    ovs_assert(!txn->committed || !txn->finished);
    end_op(txn);
    txn->in_row = true;
    txn->is_update = update;
    txn->op_start = txn->buf.length;
    txn->n_cols = 0;
    txn->tc = tc;
    txn->table = rdb_table(txn->db, tc);
    if (rdb_table_absent(txn->db, txn->table)) {
        write_dropped(txn->db, txn->table, SIZE_MAX);
        txn->skip_row = true;
        return;
    }
    txn->touched_local |= is_local_table(tc);
    txn->n_ops++;
    rdb_own_write(txn->db, tc, uuid);
    put_table(&txn->buf, update ? "update" : "insert", tc);
    if (update) {
        put_char(&txn->buf, ',');
        put_where(&txn->buf, uuid);
    } else {
        PUT_LITERAL(&txn->buf, ",\"uuid\":");
        put_uuid(&txn->buf, uuid);
    }
    PUT_LITERAL(&txn->buf, ",\"row\":{");
}

void
rdb_txn_insert(struct rdb_txn *txn, const struct rdb_table_class *tc,
               const struct uuid *uuid)
{
    begin_row(txn, tc, uuid, false);
}

void
rdb_txn_update(struct rdb_txn *txn, const struct rdb_table_class *tc,
               const struct uuid *uuid)
{
    begin_row(txn, tc, uuid, true);
}

void
rdb_txn_delete(struct rdb_txn *txn, const struct rdb_table_class *tc,
               const struct uuid *uuid)
{
    end_op(txn);
    struct rdb_table *t = rdb_table(txn->db, tc);
    if (rdb_table_absent(txn->db, t)) {
        write_dropped(txn->db, t, SIZE_MAX);
        return;
    }
    txn->n_ops++;
    rdb_own_write(txn->db, tc, uuid);
    put_table(&txn->buf, "delete", tc);
    put_char(&txn->buf, ',');
    put_where(&txn->buf, uuid);
    put_char(&txn->buf, '}');
    if (is_local_table(tc)) {
        /* The server reports the deletion; it is not someone else's. */
        rdb_expect_delete(txn->db, tc, uuid);
        txn->touched_local = true;
    }
    maybe_flush(txn);
}

void
rdb_txn_mutate_strings(struct rdb_txn *txn, const struct rdb_table_class *tc,
                       const struct uuid *uuid, size_t col, bool insert,
                       const char *const *values, size_t n)
{
    end_op(txn);
    if (!n) {
        return;
    }
    ovs_assert(col < tc->n_columns);
    struct rdb_table *t = rdb_table(txn->db, tc);
    if (rdb_column_absent(txn->db, t, col)) {
        write_dropped(txn->db, t, col);
        return;
    }
    txn->touched_local |= is_local_table(tc);
    txn->n_ops++;
    rdb_own_write(txn->db, tc, uuid);
    put_table(&txn->buf, "mutate", tc);
    put_char(&txn->buf, ',');
    put_where(&txn->buf, uuid);
    PUT_LITERAL(&txn->buf, ",\"mutations\":[[");
    put_string(&txn->buf, tc->columns[col].name);
    put_cstr(&txn->buf, insert ? ",\"insert\",[\"set\",["
                                  : ",\"delete\",[\"set\",[");
    for (size_t i = 0; i < n; i++) {
        if (i) {
            put_char(&txn->buf, ',');
        }
        put_string(&txn->buf, values[i]);
    }
    PUT_LITERAL(&txn->buf, "]]]]}");
}

void
rdb_txn_mutate_refs(struct rdb_txn *txn, const struct rdb_table_class *tc,
                    const struct uuid *uuid, size_t col, bool insert,
                    const struct uuid *values, size_t n)
{
    end_op(txn);
    if (!n) {
        return;
    }
    ovs_assert(col < tc->n_columns && !is_local_table(tc));
    struct rdb_table *t = rdb_table(txn->db, tc);
    if (rdb_column_absent(txn->db, t, col)) {
        write_dropped(txn->db, t, col);
        return;
    }
    txn->n_ops++;
    rdb_own_write(txn->db, tc, uuid);
    put_table(&txn->buf, "mutate", tc);
    put_char(&txn->buf, ',');
    put_where(&txn->buf, uuid);
    PUT_LITERAL(&txn->buf, ",\"mutations\":[[");
    put_string(&txn->buf, tc->columns[col].name);
    put_cstr(&txn->buf, insert ? ",\"insert\",[\"set\",["
                                  : ",\"delete\",[\"set\",[");
    for (size_t i = 0; i < n; i++) {
        if (i) {
            put_char(&txn->buf, ',');
        }
        put_ref(&txn->buf, &values[i]);
    }
    PUT_LITERAL(&txn->buf, "]]]]}");
}

/* Starts column 'col' of the current row.  Returns NULL if the server
 * does not have the column (or the row's table): then it is not
 * written. */
static const struct rdb_column_class *
put_col(struct rdb_txn *txn, size_t col)
{
    ovs_assert(txn->in_row && col < txn->tc->n_columns);
    const struct rdb_column_class *c = &txn->tc->columns[col];
    if (txn->skip_row) {
        return NULL;            /* The row's dropping was counted. */
    }
    if (rdb_column_absent(txn->db, txn->table, col)) {
        write_dropped(txn->db, txn->table, col);
        return NULL;
    }
    bool first = !txn->n_cols++;
    put_bytes(&txn->buf, c->json_key + first, c->json_key_len - first);
    return c;
}

void
rdb_txn_set_string(struct rdb_txn *txn, size_t col, const char *s)
{
    if (!put_col(txn, col)) {
        return;
    }
    if (s) {
        put_string(&txn->buf, s);
    } else {
        PUT_LITERAL(&txn->buf, "[\"set\",[]]");
    }
}

void
rdb_txn_set_string_parts(struct rdb_txn *txn, size_t col,
                         const char *const parts[], const size_t lens[],
                         size_t n, bool plain)
{
    if (!put_col(txn, col)) {
        return;
    }
    put_char(&txn->buf, '"');
    for (size_t i = 0; i < n; i++) {
        if (plain) {
            put_bytes(&txn->buf, parts[i], lens[i]);
        } else {
            put_escaped(&txn->buf, parts[i], lens[i]);
        }
    }
    put_char(&txn->buf, '"');
}

void
rdb_txn_set_strings(struct rdb_txn *txn, size_t col,
                    const char *const *v, size_t n)
{
    if (!put_col(txn, col)) {
        return;
    }
    PUT_LITERAL(&txn->buf, "[\"set\",[");
    for (size_t i = 0; i < n; i++) {
        if (i) {
            put_char(&txn->buf, ',');
        }
        put_string(&txn->buf, v[i]);
    }
    PUT_LITERAL(&txn->buf, "]]");
}

void
rdb_txn_set_integer(struct rdb_txn *txn, size_t col, int64_t v)
{
    if (put_col(txn, col)) {
        put_decimal(&txn->buf, v);
    }
}

void
rdb_txn_set_integers(struct rdb_txn *txn, size_t col, const int64_t *v,
                     size_t n)
{
    if (!put_col(txn, col)) {
        return;
    }
    PUT_LITERAL(&txn->buf, "[\"set\",[");
    for (size_t i = 0; i < n; i++) {
        if (i) {
            put_char(&txn->buf, ',');
        }
        put_decimal(&txn->buf, v[i]);
    }
    PUT_LITERAL(&txn->buf, "]]");
}

void
rdb_txn_set_bool(struct rdb_txn *txn, size_t col, bool b)
{
    if (put_col(txn, col)) {
        put_cstr(&txn->buf, b ? "true" : "false");
    }
}

void
rdb_txn_set_bools(struct rdb_txn *txn, size_t col, const bool *v, size_t n)
{
    if (!put_col(txn, col)) {
        return;
    }
    PUT_LITERAL(&txn->buf, "[\"set\",[");
    for (size_t i = 0; i < n; i++) {
        ds_put_format(&txn->buf, "%s%s", i ? "," : "",
                      v[i] ? "true" : "false");
    }
    PUT_LITERAL(&txn->buf, "]]");
}

void
rdb_txn_set_ref(struct rdb_txn *txn, size_t col, const struct uuid *u)
{
    if (!put_col(txn, col)) {
        return;
    }
    if (u && !uuid_is_zero(u)) {
        put_ref(&txn->buf, u);
    } else {
        PUT_LITERAL(&txn->buf, "[\"set\",[]]");
    }
}

void
rdb_txn_set_refs(struct rdb_txn *txn, size_t col, const struct uuid *u,
                 size_t n)
{
    if (!put_col(txn, col)) {
        return;
    }
    PUT_LITERAL(&txn->buf, "[\"set\",[");
    for (size_t i = 0; i < n; i++) {
        if (i) {
            put_char(&txn->buf, ',');
        }
        put_ref(&txn->buf, &u[i]);
    }
    PUT_LITERAL(&txn->buf, "]]");
}

void
rdb_txn_set_map(struct rdb_txn *txn, size_t col, const char *const *keys,
                const char *const *values, size_t n)
{
    if (!put_col(txn, col)) {
        return;
    }
    PUT_LITERAL(&txn->buf, "[\"map\",[");
    for (size_t i = 0; i < n; i++) {
        if (i) {
            put_char(&txn->buf, ',');
        }
        put_char(&txn->buf, '[');
        put_string(&txn->buf, keys[i]);
        put_char(&txn->buf, ',');
        put_string(&txn->buf, values[i]);
        put_char(&txn->buf, ']');
    }
    PUT_LITERAL(&txn->buf, "]]");
}

void
rdb_txn_set_json(struct rdb_txn *txn, size_t col, const char *json,
                 size_t len)
{
    if (put_col(txn, col)) {
        ds_put_buffer(&txn->buf, json, len);
    }
}

void
rdb_txn_set_smap(struct rdb_txn *txn, size_t col, const struct smap *smap)
{
    if (!put_col(txn, col)) {
        return;
    }
    PUT_LITERAL(&txn->buf, "[\"map\",[");
    bool first = true;
    const struct smap_node *node;
    SMAP_FOR_EACH (node, smap) {
        if (!first) {
            put_char(&txn->buf, ',');
        }
        first = false;
        put_char(&txn->buf, '[');
        put_string(&txn->buf, node->key);
        put_char(&txn->buf, ',');
        put_string(&txn->buf, node->value);
        put_char(&txn->buf, ']');
    }
    PUT_LITERAL(&txn->buf, "]]");
}

void
rdb_txn_add_producer(struct rdb_txn *txn, rdb_txn_producer_func *cb,
                     void *aux)
{
    ovs_assert(!txn->committed);
    if (txn->n_producers >= txn->allocated_producers) {
        txn->producers = x2nrealloc(txn->producers,
                                    &txn->allocated_producers,
                                    sizeof *txn->producers);
    }
    txn->producers[txn->n_producers++] = (struct rdb_txn_producer) {
        cb, aux,
    };
}

bool
rdb_txn_is_empty(const struct rdb_txn *txn)
{
    return !txn->n_ops && !txn->n_producers;
}

size_t
rdb_txn_n_ops(const struct rdb_txn *txn)
{
    return txn->n_ops;
}

/* Committing. */

static void
txn_complete(struct rdb_txn *txn, enum rdb_txn_status status,
             const char *error)
{
    struct rdb *db = txn->db;
    if (db->txn == txn) {
        db->txn = NULL;
    }
    txn->status = status;
    free(txn->error);
    txn->error = nullable_xstrdup(error);
    rdb_expect_delete_done(db);
    if (status != RDB_TXN_SUCCESS && txn->touched_local) {
        /* Whoever wrote the transaction believes its writes happened, and
         * the server will not say otherwise for such a table: start over
         * from a fresh copy. */
        rdb_force_resync(db);
    }
}

/* Checks that 'txn' can be sent; if so, makes it the one in flight and
 * queues its header.  Returns false if it failed (its status says why). */
static bool
send_head(struct rdb_txn *txn)
{
    struct rdb *db = txn->db;
    ovs_assert(!db->txn);
    if (!rdb_is_connected(db)) {
        txn_complete(txn, RDB_TXN_ERROR, "not connected");
        return false;
    }
    if (db->lock_name && !rdb_has_lock(db)) {
        txn_complete(txn, RDB_TXN_NOT_LOCKED, "lock not held");
        return false;
    }
    COVERAGE_INC(rdb_txn_commit);
    txn->id = rdb_conn_next_id(db);
    db->txn = txn;

    struct ds head = DS_EMPTY_INITIALIZER;
    ds_put_format(&head, "{\"id\":%lld,\"method\":\"transact\",\"params\":[",
                  txn->id);
    put_string(&head, db->class->database);
    if (db->lock_name) {
        PUT_LITERAL(&head, ",{\"op\":\"assert\",\"lock\":");
        put_string(&head, db->lock_name);
        put_char(&head, '}');
    }
    rdb_conn_send(db, &head);
    ds_destroy(&head);
    return true;
}

void
rdb_txn_start(struct rdb_txn *txn)
{
    ovs_assert(txn->status == RDB_TXN_UNCOMMITTED && !txn->started);
    end_op(txn);
    if (send_head(txn)) {
        txn->started = true;
        rdb_conn_send(txn->db, &txn->buf);
        VLOG_DBG("%s: transaction %lld started", txn->db->remote, txn->id);
    }
}

void
rdb_txn_commit(struct rdb_txn *txn)
{
    struct rdb *db = txn->db;
    ovs_assert(!txn->committed);
    end_op(txn);
    txn->committed = true;
    if (txn->status != RDB_TXN_UNCOMMITTED) {
        /* rdb_txn_start() failed: nothing was sent. */
        if (txn->touched_local) {
            rdb_force_resync(db);
        }
        return;
    }
    if (!txn->started) {
        if (rdb_txn_is_empty(txn)) {
            txn->status = RDB_TXN_UNCHANGED;
            return;
        }
        if (!send_head(txn)) {
            return;
        }
    }
    txn->status = RDB_TXN_INCOMPLETE;
    if (!txn->n_producers) {
        PUT_LITERAL(&txn->buf, "]}");
        txn->finished = true;
    }
    rdb_conn_send(db, &txn->buf);
    VLOG_DBG("%s: transaction %lld committed, %"PRIuSIZE" ops so far",
             db->remote, txn->id, txn->n_ops);
}

long long int
rdb_txn_pending_id(const struct rdb *db)
{
    return db->txn ? db->txn->id : -1;
}

bool
rdb_txn_wants_output(const struct rdb *db)
{
    return db->txn && db->txn->committed && !db->txn->finished;
}

void
rdb_txn_fill_output(struct rdb *db)
{
    struct rdb_txn *txn = db->txn;
    while (txn && !txn->finished && rdb_conn_backlog(db) < 1024 * 1024) {
        if (txn->cur_producer < txn->n_producers) {
            struct rdb_txn_producer *p = &txn->producers[txn->cur_producer];
            /* The buffer went out with the last chunk: a producer's call
             * writes a few hundred kB, so start big rather than copy the
             * text over and over while it doubles. */
            ds_reserve(&txn->buf, RDB_TXN_PRODUCE_RESERVE);
            bool done = p->cb(txn, p->aux);
            end_op(txn);
            if (done) {
                txn->cur_producer++;
            }
        }
        if (txn->cur_producer >= txn->n_producers) {
            PUT_LITERAL(&txn->buf, "]}");
            txn->finished = true;
            VLOG_DBG("%s: transaction %lld produced, %"PRIuSIZE" ops",
                     db->remote, txn->id, txn->n_ops);
        }
        rdb_conn_send(db, &txn->buf);
    }
}

void
rdb_txn_reply(struct rdb *db, bool ok, const char *error)
{
    struct rdb_txn *txn = db->txn;
    if (!txn) {
        return;
    }
    if (!txn->finished) {
        /* An answer before the end of the request: something is off. */
        txn->finished = true;
        reconnect_force_reconnect(db->reconnect, time_msec());
        ok = false;
        error = error ? error : "reply before the end of the transaction";
    }
    if (ok) {
        txn_complete(txn, RDB_TXN_SUCCESS, NULL);
        return;
    }
    COVERAGE_INC(rdb_txn_error);
    bool not_owner = error && strstr(error, "not owner");
    VLOG_INFO_RL(&rl, "%s: transaction failed: %s", db->remote,
                 error ? error : "unknown error");
    txn_complete(txn, not_owner ? RDB_TXN_NOT_LOCKED : RDB_TXN_ERROR, error);
}

void
rdb_txn_disconnected(struct rdb *db)
{
    if (db->txn) {
        db->txn->finished = true;
        txn_complete(db->txn, RDB_TXN_ERROR, "connection lost");
    }
}

bool
rdb_txn_in_flight(const struct rdb *db)
{
    return db->txn != NULL;
}

enum rdb_txn_status
rdb_txn_get_status(const struct rdb_txn *txn)
{
    return txn->status;
}

const char *
rdb_txn_get_error(const struct rdb_txn *txn)
{
    return txn->error;
}
