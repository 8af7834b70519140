/* The replica's rows: decoding what the server sends straight into the
 * generated structs, references between rows, change tracking and
 * lookups.  See rdb.h.  The connection is rdb-conn.c's, transactions are
 * rdb-txn.c's. */
#include <config.h>
#include "lib/rdb-private.h"

#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "entropy.h"
#include "lib/jtext.h"
#include "lib/mappack.h"
#include "lib/strpack.h"
#include "lib/strpool.h"
#include "openvswitch/json.h"
#include "openvswitch/vlog.h"
#include "random.h"
#include "simap.h"
#include "smap.h"
#include "sset.h"
#include "uuid.h"

VLOG_DEFINE_THIS_MODULE(rdb);

COVERAGE_DEFINE(rdb_row_insert);
COVERAGE_DEFINE(rdb_row_modify);
COVERAGE_DEFINE(rdb_row_delete);
COVERAGE_DEFINE(rdb_bad_update);
COVERAGE_DEFINE(rdb_dangling_ref);

static struct vlog_rate_limit bad_rl = VLOG_RATE_LIMIT_INIT(5, 20);

/* The value of every required string column that has no other: shared,
 * never freed. */
static char empty_string[1] = "";

/* Content hashes. */

static uint64_t hash_keys[2];

static void
hash_init(void)
{
    static bool inited;
    if (!inited) {
        inited = true;
        hash_keys[0] = random_uint64() | 1;
        hash_keys[1] = random_uint64() | 1;
    }
}

static inline uint64_t
fmix64(uint64_t x)
{
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x *= UINT64_C(0xc4ceb9fe1a85ec53);
    x ^= x >> 33;
    return x;
}

uint64_t
rdb_hash_bytes64(const void *p_, size_t n, uint64_t basis)
{
    const uint8_t *p = p_;
    uint64_t h = basis ^ (n * UINT64_C(0x9e3779b97f4a7c15));
    while (n >= 8) {
        uint64_t k;
        memcpy(&k, p, 8);
        h = (h ^ fmix64(k)) * UINT64_C(0x9e3779b97f4a7c15);
        h = (h << 31) | (h >> 33);
        p += 8;
        n -= 8;
    }
    if (n) {
        uint64_t k = 0;
        memcpy(&k, p, n);
        h = (h ^ fmix64(k ^ (UINT64_C(0xff) << 56)))
            * UINT64_C(0x9e3779b97f4a7c15);
    }
    return fmix64(h);
}

static uint64_t
lane_basis(int lane, size_t col)
{
    return hash_keys[lane] ^ ((col + 1) * UINT64_C(0x2545f4914f6cdd1d));
}

struct rdb_hash
rdb_hash_atom_string(size_t col, const char *s, size_t n)
{
    hash_init();
    struct rdb_hash h;
    for (int i = 0; i < 2; i++) {
        h.h[i] = rdb_hash_bytes64(s, n, lane_basis(i, col));
    }
    return h;
}

struct rdb_hash
rdb_hash_atom_integer(size_t col, int64_t v)
{
    hash_init();
    struct rdb_hash h;
    for (int i = 0; i < 2; i++) {
        h.h[i] = rdb_hash_bytes64(&v, sizeof v, lane_basis(i, col) ^ 1);
    }
    return h;
}

struct rdb_hash
rdb_hash_atom_pair(size_t col, const char *k, size_t kn,
                   const char *v, size_t vn)
{
    hash_init();
    struct rdb_hash h;
    for (int i = 0; i < 2; i++) {
        h.h[i] = rdb_hash_bytes64(v, vn,
                                  rdb_hash_bytes64(k, kn,
                                                   lane_basis(i, col) ^ 2));
    }
    return h;
}

struct rdb_hash
rdb_hash_string_col(const struct rdb_table_class *tc OVS_UNUSED, size_t col,
                    const char *s)
{
    if (!s || !s[0]) {
        return (struct rdb_hash) { { 0, 0 } };
    }
    return rdb_hash_atom_string(col, s, strlen(s));
}

struct rdb_hash
rdb_hash_integer_col(const struct rdb_table_class *tc OVS_UNUSED,
                     size_t col, int64_t v)
{
    if (!v) {
        return (struct rdb_hash) { { 0, 0 } };
    }
    return rdb_hash_atom_integer(col, v);
}

struct rdb_hash
rdb_hash_pair_col(const struct rdb_table_class *tc OVS_UNUSED, size_t col,
                  const char *key, const char *value)
{
    return rdb_hash_atom_pair(col, key, strlen(key), value, strlen(value));
}

struct rdb_hash
rdb_hash_smap_col(const struct rdb_table_class *tc OVS_UNUSED, size_t col,
                  const struct smap *smap)
{
    struct rdb_hash sum = { { 0, 0 } };
    const struct smap_node *node;
    SMAP_FOR_EACH (node, smap) {
        struct rdb_hash h = rdb_hash_atom_pair(col, node->key,
                                               strlen(node->key),
                                               node->value,
                                               strlen(node->value));
        rdb_hash_add(&sum, &h);
    }
    return sum;
}

/* Row UUIDs: xoshiro256**. */

static uint64_t uuid_state[4];

static inline uint64_t
rotl64(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t
uuid_next(void)
{
    uint64_t *s = uuid_state;
    if (!(s[0] | s[1] | s[2] | s[3])) {
        get_entropy_or_die(s, sizeof uuid_state);
        s[0] |= 1;
    }
    uint64_t result = rotl64(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return result;
}

void
rdb_uuid_generate(struct uuid *uuid)
{
    uint64_t a = uuid_next(), b = uuid_next();
    *uuid = rdb_uuid_from_bits(a, b);
}

void
rdb_uuid_hash_init(struct rdb_uuid_hash *uh, const struct uuid *key)
{
    uh->h[0] = ((uint64_t) key->parts[1] << 32 | key->parts[0]) ^ 1;
    uh->h[1] = ((uint64_t) key->parts[3] << 32 | key->parts[2]) ^ 2;
}

void
rdb_uuid_hash_add(struct rdb_uuid_hash *uh, const void *p, size_t n)
{
    for (int i = 0; i < 2; i++) {
        uh->h[i] = rdb_hash_bytes64(p, n, uh->h[i]);
    }
}

struct uuid
rdb_uuid_hash_finish(const struct rdb_uuid_hash *uh)
{
    return rdb_uuid_from_bits(fmix64(uh->h[0] ^ (uh->h[1] >> 1)),
                              fmix64(uh->h[1] + uh->h[0]));
}

struct uuid
rdb_uuid_from_bits(uint64_t a, uint64_t b)
{
    struct uuid u;
    u.parts[0] = a;
    u.parts[1] = a >> 32;
    u.parts[2] = b;
    u.parts[3] = b >> 32;
    u.parts[1] = (u.parts[1] & ~0xf000) | 0x4000;
    u.parts[2] = (u.parts[2] & ~0xc0000000) | 0x80000000;
    return u;
}

/* Tables. */

struct rdb_table *
rdb_table(const struct rdb *db, const struct rdb_table_class *tc)
{
    ovs_assert(tc->index < db->class->n_tables
               && db->class->tables[tc->index] == tc);
    return &db->tables[tc->index];
}

/* Every replica of the process, by the number its rows know it by (see
 * struct rdb_row). */
static struct rdb *rdbs[UINT8_MAX + 1];

struct rdb_table *
rdb_row_table(const struct rdb_row *row)
{
    return &rdbs[row->db_id]->tables[row->table_id];
}

static bool
is_enum_string(const struct rdb_column_class *c, const char *s)
{
    if (c->enums) {
        for (const char *const *e = c->enums; *e; e++) {
            if (*e == s) {
                return true;
            }
        }
    }
    return false;
}

static void
free_string(const struct rdb_column_class *c, char *s)
{
    if (s == empty_string || is_enum_string(c, s)) {
        return;
    } else if (c->pooled) {
        strpool_put(s);
    } else {
        free(s);
    }
}

/* Returns 's' (owned) or, if it is one of the column's enum values, that
 * value (freeing 's'): a million ACLs need not each keep "to-lport". */
static char *
intern_string(const struct rdb_column_class *c, char *s)
{
    if (c->pooled) {
        char *p = CONST_CAST(char *, strpool_get(s));
        free(s);
        return p;
    }
    if (c->enums) {
        for (const char *const *e = c->enums; *e; e++) {
            if (!strcmp(*e, s)) {
                free(s);
                return CONST_CAST(char *, *e);
            }
        }
    }
    return s;
}

/* The maps of RDB_S_SHARED_MAP columns, one copy of each distinct map
 * however many rows hold it: a million ACLs have a handful of distinct
 * 'options' between them, and an smap inline in each row would be 32
 * bytes, and each of its nodes three allocations. */
struct shared_map {
    struct hmap_node node;          /* In 'shared_maps', by map_hash(). */
    size_t refcount;                /* Rows holding it. */
    struct smap map;
};

static struct hmap shared_maps = HMAP_INITIALIZER(&shared_maps);
static struct smap empty_map = SMAP_INITIALIZER(&empty_map);

/* A hash of 'm' that does not depend on the order of its nodes. */
static uint32_t
map_hash(const struct smap *m)
{
    uint32_t h = smap_count(m);
    const struct smap_node *node;
    SMAP_FOR_EACH (node, m) {
        h += hash_string(node->value, hash_string(node->key, 0));
    }
    return h;
}

/* Returns the shared copy of 'm' (a new reference).  A new copy takes
 * 'm''s nodes; either way the caller still destroys 'm'. */
static const struct smap *
shared_map_get(struct smap *m)
{
    if (smap_is_empty(m)) {
        return &empty_map;
    }
    uint32_t hash = map_hash(m);
    struct shared_map *sm;
    HMAP_FOR_EACH_WITH_HASH (sm, node, hash, &shared_maps) {
        if (smap_equal(&sm->map, m)) {
            sm->refcount++;
            return &sm->map;
        }
    }
    sm = xmalloc(sizeof *sm);
    sm->refcount = 1;
    smap_init(&sm->map);
    hmap_swap(&sm->map.map, &m->map);
    hmap_insert(&shared_maps, &sm->node, hash);
    return &sm->map;
}

static void
shared_map_put(const struct smap *m)
{
    if (m && m != &empty_map) {
        struct shared_map *sm = CONTAINER_OF(m, struct shared_map, map);
        if (!--sm->refcount) {
            hmap_remove(&shared_maps, &sm->node);
            smap_destroy(&sm->map);
            free(sm);
        }
    }
}

static void *
member(const struct rdb_row *row, const struct rdb_column_class *c)
{
    return (char *) row + c->offset;
}

/* Makes the packed map at 'pm' hold 'p', whose reference it takes.
 * Returns true if that changed it. */
static bool
packed_map_set(const struct strpack **pm, const struct strpack *p)
{
    if (p == *pm) {
        strpack_put(p);
        return false;
    }
    strpack_put(*pm);
    *pm = p;
    return true;
}

static size_t *
member_n(const struct rdb_row *row, const struct rdb_column_class *c)
{
    return (size_t *) ((char *) row + c->n_offset);
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
        return c->ref_table ? sizeof(struct rdb_row *) : sizeof(struct uuid);
    case RDB_VOID:
    default:
        OVS_NOT_REACHED();
    }
}

/* Rows. */

static struct rdb_row *
row_find(const struct rdb_table *t, const struct uuid *uuid)
{
    struct rdb_row *row;
    HMAP_FOR_EACH_WITH_HASH (row, node, uuid_hash(uuid), &t->rows) {
        if (uuid_equals(&row->uuid, uuid)) {
            return row;
        }
    }
    return NULL;
}

static void
row_init_defaults(struct rdb_row *row)
{
    const struct rdb_table_class *tc = rdb_row_table(row)->class;
    for (size_t i = 0; i < tc->n_columns; i++) {
        const struct rdb_column_class *c = &tc->columns[i];
        if (c->storage == RDB_S_SCALAR && c->type == RDB_STRING
            && !c->compact && !c->packed) {
            *(char **) member(row, c) = empty_string;
        } else if (c->storage == RDB_S_SMAP) {
            smap_init(member(row, c));
        } else if (c->storage == RDB_S_SHARED_MAP) {
            *(const struct smap **) member(row, c) = &empty_map;
        }
    }
}

/* A new row of 't', with default values and a number, in no hash
 * table. */
static struct rdb_row *
row_alloc(struct rdb_table *t, const struct uuid *uuid,
          enum rdb_row_state state)
{
    struct rdb_row *row = objpool_zalloc(&t->row_pool);
    row->uuid = *uuid;
    row->db_id = t->db->id;
    row->table_id = t->class->index;
    row->state = state;
    if (t->n_free_indexes) {
        row->index = t->free_indexes[--t->n_free_indexes];
    } else {
        ovs_assert(t->n_indexes < UINT32_MAX);
        row->index = t->n_indexes++;
    }
    row_init_defaults(row);
    return row;
}

static struct rdb_row *
row_create(struct rdb_table *t, const struct uuid *uuid,
           enum rdb_row_state state)
{
    struct rdb_row *row = row_alloc(t, uuid, state);
    hmap_insert(&t->rows, &row->node, uuid_hash(uuid));
    return row;
}

static void row_free(struct rdb_row *, bool deref);

/* Returns the row 'uuid' of 't', creating a placeholder if there is none,
 * and counts a reference to it. */
static struct rdb_row *
ref_get(struct rdb_table *t, const struct uuid *uuid)
{
    if (uuid_is_zero(uuid)) {
        return NULL;
    }
    struct rdb_row *row = row_find(t, uuid);
    if (!row) {
        row = row_create(t, uuid, RDB_ROW_ORPHAN);
    }
    row->n_refs++;
    return row;
}

static void
ref_put(struct rdb_row *row)
{
    if (row && !--row->n_refs && row->state == RDB_ROW_ORPHAN) {
        hmap_remove(&rdb_row_table(row)->rows, &row->node);
        row_free(row, true);
    }
}

static struct rdb_table *
ref_table(const struct rdb_row *row, const struct rdb_column_class *c)
{
    return &rdb_row_table(row)->db->tables[c->ref_table->index];
}

/* Frees the values of column 'c' of 'row' ('deref': and drops its
 * references). */
static void
column_clear(struct rdb_row *row, const struct rdb_column_class *c,
             bool deref)
{
    void *m = member(row, c);
    switch (c->storage) {
    case RDB_S_SCALAR:
    case RDB_S_OPTIONAL:
        if (c->compact) {
            *(uint8_t *) m = 0;
        } else if (c->packed) {
            const struct strpack **p = m;
            strpack_put(*p);
            *p = NULL;
        } else if (c->type == RDB_STRING) {
            char **s = m;
            if (*s) {
                free_string(c, *s);
            }
            *s = c->storage == RDB_S_SCALAR ? empty_string : NULL;
        } else if (c->type == RDB_UUID && c->ref_table) {
            struct rdb_row **r = m;
            if (deref) {
                ref_put(*r);
            }
            *r = NULL;
        } else {
            memset(m, 0, elem_size(c));
        }
        break;
    case RDB_S_ARRAY: {
        size_t *n = member_n(row, c);
        void **array = m;
        if (c->type == RDB_STRING) {
            char **s = *array;
            for (size_t i = 0; i < *n; i++) {
                free_string(c, s[i]);
            }
        } else if (c->type == RDB_UUID && c->ref_table && deref) {
            struct rdb_row **r = *array;
            for (size_t i = 0; i < *n; i++) {
                ref_put(r[i]);
            }
        }
        free(*array);
        *array = NULL;
        *n = 0;
        break;
    }
    case RDB_S_SMAP:
        smap_destroy(m);
        smap_init(m);
        break;
    case RDB_S_SHARED_MAP: {
        const struct smap **sm = m;
        shared_map_put(*sm);
        *sm = &empty_map;
        break;
    }
    case RDB_S_PACKED_MAP: {
        const struct strpack **pm = m;
        strpack_put(*pm);
        *pm = NULL;
        break;
    }
    case RDB_S_HASHED:
        break;
    }
}

static void
row_clear(struct rdb_row *row, bool deref)
{
    const struct rdb_table_class *tc = rdb_row_table(row)->class;
    for (size_t i = 0; i < tc->n_columns; i++) {
        column_clear(row, &tc->columns[i], deref);
    }
    if (tc->n_hash_groups) {
        memset((char *) row + tc->hash_offset, 0,
               tc->n_hash_groups * sizeof(struct rdb_hash));
    }
    row->hash_stale = false;
}

static void
rows_push(struct rdb_rows *v, struct rdb_row *row)
{
    if (v->n >= v->allocated) {
        v->rows = x2nrealloc(v->rows, &v->allocated, sizeof *v->rows);
    }
    v->rows[v->n++] = row;
}

static void
rows_destroy(struct rdb_rows *v)
{
    free(v->rows);
    v->rows = NULL;
    v->n = v->allocated = 0;
}

static void
row_free(struct rdb_row *row, bool deref)
{
    struct rdb_table *t = rdb_row_table(row);
    const struct rdb_table_class *tc = t->class;
    ovs_assert(!row->track);
    row_clear(row, deref);
    for (size_t i = 0; i < tc->n_columns; i++) {
        if (tc->columns[i].storage == RDB_S_SMAP) {
            smap_destroy(member(row, &tc->columns[i]));
        }
    }
    if (t->n_free_indexes >= t->allocated_free_indexes) {
        t->free_indexes = x2nrealloc(t->free_indexes,
                                     &t->allocated_free_indexes,
                                     sizeof *t->free_indexes);
    }
    t->free_indexes[t->n_free_indexes++] = row->index;
    objpool_free(&t->row_pool, row);
}

/* Tracks 'what' happened to 'row', and that the columns in 'updated'
 * changed; nothing while a fresh copy comes in. */
static void
track(struct rdb_row *row, uint8_t what, uint64_t updated)
{
    struct rdb_table *t = rdb_row_table(row);
    if (t->db->fresh_copy) {
        return;
    }
    if (!row->track) {
        if (t->n_tracked >= t->allocated_tracked) {
            t->tracked = x2nrealloc(t->tracked, &t->allocated_tracked,
                                    sizeof *t->tracked);
        }
        ovs_assert(t->n_tracked < UINT32_MAX);
        row->track_pos = t->n_tracked;
        t->tracked[t->n_tracked++] = (struct rdb_tracked) { .row = row };
    }
    row->track |= what;
    t->tracked[row->track_pos].updated |= updated;
}

/* Takes 'row' off its table's tracked rows, if it is there (before it is
 * freed). */
static void
untrack(struct rdb_row *row)
{
    if (row->track) {
        rdb_row_table(row)->tracked[row->track_pos].row = NULL;
        row->track = 0;
    }
}

uint64_t
rdb_row_updated_columns(const struct rdb_row *row)
{
    return (row->track
            ? rdb_row_table(row)->tracked[row->track_pos].updated
            : 0);
}

/* Decoding values. */

union rdb_atom {
    int64_t integer;
    double real;
    bool boolean;
    char *string;
    struct uuid uuid;
};

/* A decoded column value: atoms (and, for a map, their values). */
#define RDB_DATUM_INLINE 16

struct rdb_datum {
    union rdb_atom *keys;
    union rdb_atom *values;
    size_t n, allocated;
    /* Most values are small: no allocation for them. */
    union rdb_atom inline_keys[RDB_DATUM_INLINE];
    union rdb_atom inline_values[RDB_DATUM_INLINE];
};

static void
datum_init(struct rdb_datum *d)
{
    d->keys = d->inline_keys;
    d->values = d->inline_values;
    d->n = 0;
    d->allocated = RDB_DATUM_INLINE;
}

static void
datum_destroy(struct rdb_datum *d, const struct rdb_column_class *c)
{
    if (c->type == RDB_STRING || c->value_type == RDB_STRING) {
        for (size_t i = 0; i < d->n; i++) {
            if (c->type == RDB_STRING) {
                free(d->keys[i].string);
            }
            if (c->value_type == RDB_STRING) {
                free(d->values[i].string);
            }
        }
    }
    if (d->keys != d->inline_keys) {
        free(d->keys);
        free(d->values);
    }
}

static union rdb_atom *
datum_add(struct rdb_datum *d)
{
    if (d->n >= d->allocated) {
        size_t n = d->allocated * 2;
        union rdb_atom *keys = xmalloc(n * sizeof *keys);
        union rdb_atom *values = xmalloc(n * sizeof *values);
        memcpy(keys, d->keys, d->n * sizeof *keys);
        memcpy(values, d->values, d->n * sizeof *values);
        if (d->keys != d->inline_keys) {
            free(d->keys);
            free(d->values);
        }
        d->keys = keys;
        d->values = values;
        d->allocated = n;
    }
    return &d->keys[d->n++];
}

/* Eight hex digits in 'w' (the first digit in its lowest byte) as a
 * number; clears '*ok' if any of the bytes is not a hex digit.  Works on all
 * eight bytes at once: a replica parses a UUID for every row and reference,
 * and a byte-at-a-time loop was 3% of a cold start. */
static inline uint32_t
hex8(uint64_t w, bool *ok)
{
    const uint64_t ones = 0x0101010101010101ULL;
    const uint64_t highs = ones * 0x80;

    /* For bytes below 0x80, the high bit of each byte of GT(x, n) is set
     * iff that byte is greater than n (the sum cannot carry across). */
#define GT(X, N) (((X) + ones * (0x7f - (N))) & highs)
    uint64_t folded = w | ones * 0x20;
    uint64_t digit = GT(w, '0' - 1) & ~GT(w, '9');
    uint64_t alpha = GT(folded, 'a' - 1) & ~GT(folded, 'f');
#undef GT
    if ((w & highs) || (digit | alpha) != highs) {
        *ok = false;
    }

    /* Digits have bit 6 clear, letters set: 'a' & 15 is 1, plus 9. */
    uint64_t v = (w & ones * 0x0f) + 9 * ((w >> 6) & ones);
    v = ((v & 0x000f000f000f000fULL) << 4) | ((v >> 8) & 0x000f000f000f000fULL);
    v = ((v & 0x000000ff000000ffULL) << 8) | ((v >> 16) & 0x000000ff000000ffULL);
    return ((v & 0xffff) << 16) | ((v >> 32) & 0xffff);
}

static inline uint64_t
load_2x4(const char *a, const char *b)
{
    uint32_t x, y;
    memcpy(&x, a, 4);
    memcpy(&y, b, 4);
    return x | (uint64_t) y << 32;
}

static inline uint64_t
load_8(const char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* Parses the 36 characters at 's' as a UUID, faster than
 * uuid_from_string(). */
static bool
parse_uuid36(const char *s, struct uuid *uuid)
{
    /* xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx */
    if (s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-') {
        return false;
    }
    uint64_t w[4] = {
        load_8(s), load_2x4(s + 9, s + 14), load_2x4(s + 19, s + 24),
        load_8(s + 28),
    };
    bool ok = true;
    uint32_t parts[4];
    for (int i = 0; i < 4; i++) {
#ifdef WORDS_BIGENDIAN
        /* hex8() wants the first character in the lowest byte. */
        w[i] = i == 0 || i == 3 ? __builtin_bswap64(w[i])
               : (uint64_t) __builtin_bswap32(w[i]) | ((uint64_t)
                  __builtin_bswap32(w[i] >> 32) << 32);
#endif
        parts[i] = hex8(w[i], &ok);
    }
    if (!ok) {
        return false;
    }
    memcpy(uuid->parts, parts, sizeof parts);
    return true;
}

static bool
parse_uuid_tail(struct jtext *t, struct ds *scratch, struct uuid *uuid)
{
    /* After '["uuid",': the UUID string and ']'. */
    const char *s;
    size_t n;
    if (!jtext_string(t, scratch, &s, &n)) {
        return false;
    }
    if (n != UUID_LEN || !parse_uuid36(s, uuid)) {
        t->error = "bad UUID";
        return false;
    }
    return jtext_expect(t, ']');
}

/* Parses an array's tag ("set", "map", "uuid"), after its '['. */
static bool
parse_tag(struct jtext *t, struct ds *scratch, const char **tag)
{
    const char *s;
    size_t n;
    if (!jtext_string(t, scratch, &s, &n) || !jtext_expect(t, ',')) {
        return false;
    }
    *tag = (n == 3 && !memcmp(s, "set", 3) ? "set"
            : n == 3 && !memcmp(s, "map", 3) ? "map"
            : n == 4 && !memcmp(s, "uuid", 4) ? "uuid"
            : n == 10 && !memcmp(s, "named-uuid", 10) ? "named-uuid"
            : "?");
    return true;
}

static bool
parse_atom(struct jtext *t, struct ds *scratch, enum rdb_type type,
           union rdb_atom *a)
{
    switch (type) {
    case RDB_INTEGER:
        return jtext_integer(t, &a->integer);
    case RDB_REAL:
        return jtext_real(t, &a->real);
    case RDB_BOOLEAN:
        return jtext_boolean(t, &a->boolean);
    case RDB_STRING: {
        const char *s;
        size_t n;
        if (!jtext_string(t, scratch, &s, &n)) {
            return false;
        }
        a->string = xmemdup0(s, n);
        return true;
    }
    case RDB_UUID: {
        const char *tag;
        if (!jtext_expect(t, '[') || !parse_tag(t, scratch, &tag)) {
            return false;
        }
        if (strcmp(tag, "uuid")) {
            t->error = "UUID expected";
            return false;
        }
        return parse_uuid_tail(t, scratch, &a->uuid);
    }
    case RDB_VOID:
    default:
        OVS_NOT_REACHED();
    }
}

static bool key_kept(const struct rdb_column_class *, const char *key);

/* Parses a value of column 'c' into 'd' (initialized by the caller). */
static bool
parse_datum(struct jtext *t, struct ds *scratch,
            const struct rdb_column_class *c, struct rdb_datum *d)
{
    bool map = c->value_type != RDB_VOID;
    if (jtext_peek(t) != '[') {
        if (map) {
            t->error = "map expected";
            return false;
        }
        union rdb_atom *a = datum_add(d);
        if (!parse_atom(t, scratch, c->type, a)) {
            d->n--;
            return false;
        }
        return true;
    }

    const char *tag;
    t->p++;
    if (!parse_tag(t, scratch, &tag)) {
        return false;
    }
    if (!strcmp(tag, "uuid") && !map && c->type == RDB_UUID) {
        union rdb_atom *a = datum_add(d);
        if (!parse_uuid_tail(t, scratch, &a->uuid)) {
            d->n--;
            return false;
        }
        return true;
    }
    if (strcmp(tag, map ? "map" : "set")) {
        t->error = map ? "map expected" : "set expected";
        return false;
    }
    if (!jtext_expect(t, '[')) {
        return false;
    }
    if (!jtext_accept(t, ']')) {
        do {
            if (map && !jtext_expect(t, '[')) {
                return false;
            }
            union rdb_atom *a = datum_add(d);
            if (!parse_atom(t, scratch, c->type, a)) {
                d->n--;
                return false;
            }
            if (map && c->keys && !key_kept(c, a->string)) {
                /* A key the replica does not keep: its value need not be
                 * copied. */
                free(a->string);
                d->n--;
                if (!jtext_expect(t, ',') || !jtext_skip(t)
                    || !jtext_expect(t, ']')) {
                    return false;
                }
                continue;
            }
            if (map) {
                union rdb_atom *v = &d->values[d->n - 1];
                if (!jtext_expect(t, ',')
                    || !parse_atom(t, scratch, (c->uuid_values ? RDB_UUID
                                                : c->int_values ? RDB_INTEGER
                                                : c->value_type), v)) {
                    if (c->type == RDB_STRING) {
                        free(a->string);
                    }
                    d->n--;
                    return false;
                }
                if (c->uuid_values) {
                    v->string = xasprintf(UUID_FMT, UUID_ARGS(&v->uuid));
                } else if (c->int_values) {
                    v->string = xasprintf("%"PRId64, v->integer);
                }
                if (!jtext_expect(t, ']')) {
                    return false;
                }
            }
        } while (jtext_accept(t, ','));
        if (!jtext_expect(t, ']')) {
            return false;
        }
    }
    return jtext_expect(t, ']');
}

/* Storing values. */

static int
atom_compare(const struct rdb_column_class *c, const void *a_,
             const void *b_)
{
    switch (c->type) {
    case RDB_INTEGER: {
        int64_t a = *(const int64_t *) a_, b = *(const int64_t *) b_;
        return a < b ? -1 : a > b;
    }
    case RDB_REAL: {
        double a = *(const double *) a_, b = *(const double *) b_;
        return a < b ? -1 : a > b;
    }
    case RDB_BOOLEAN:
        return *(const bool *) a_ - *(const bool *) b_;
    case RDB_STRING:
        return strcmp(*(char *const *) a_, *(char *const *) b_);
    case RDB_UUID:
        if (c->ref_table) {
            const struct rdb_row *a = *(struct rdb_row *const *) a_;
            const struct rdb_row *b = *(struct rdb_row *const *) b_;
            return uuid_compare_3way(&a->uuid, &b->uuid);
        }
        return uuid_compare_3way(a_, b_);
    case RDB_VOID:
    default:
        OVS_NOT_REACHED();
    }
}

/* Element 'i' of datum 'd' in the storage form of column 'c' of 'row' (a
 * string is moved out of 'd'; a reference is counted). */
static void
atom_to_elem(struct rdb_row *row, const struct rdb_column_class *c,
             union rdb_atom *a, void *elem)
{
    switch (c->type) {
    case RDB_INTEGER:
        if (c->int32) {
            /* The schema's range keeps a server from sending more; one
             * with another schema gets the nearest value, and a word. */
            int32_t v = (a->integer > INT32_MAX ? INT32_MAX
                         : a->integer < INT32_MIN ? INT32_MIN
                         : a->integer);
            if (v != a->integer) {
                VLOG_WARN_RL(&bad_rl, "%s row "UUID_FMT": %s %"PRId64" is "
                             "out of the schema's range, taken as %"PRId32,
                             rdb_row_table(row)->class->name,
                             UUID_ARGS(&row->uuid), c->name, a->integer, v);
            }
            *(int32_t *) elem = v;
        } else if (c->uint32) {
            uint32_t v = (a->integer > UINT32_MAX ? UINT32_MAX
                          : a->integer < 0 ? 0
                          : a->integer);
            if (v != a->integer) {
                VLOG_WARN_RL(&bad_rl, "%s row "UUID_FMT": %s %"PRId64" is "
                             "out of the schema's range, taken as %"PRIu32,
                             rdb_row_table(row)->class->name,
                             UUID_ARGS(&row->uuid), c->name, a->integer, v);
            }
            *(uint32_t *) elem = v;
        } else {
            *(int64_t *) elem = a->integer;
        }
        break;
    case RDB_REAL:
        *(double *) elem = a->real;
        break;
    case RDB_BOOLEAN:
        *(bool *) elem = a->boolean;
        break;
    case RDB_STRING:
        *(char **) elem = intern_string(c, a->string);
        a->string = NULL;
        break;
    case RDB_UUID:
        if (c->ref_table) {
            *(struct rdb_row **) elem = ref_get(ref_table(row, c), &a->uuid);
        } else {
            *(struct uuid *) elem = a->uuid;
        }
        break;
    case RDB_VOID:
    default:
        OVS_NOT_REACHED();
    }
}

static void
elem_release(const struct rdb_column_class *c, void *elem)
{
    if (c->type == RDB_STRING) {
        free_string(c, *(char **) elem);
    } else if (c->type == RDB_UUID && c->ref_table) {
        ref_put(*(struct rdb_row **) elem);
    }
}

/* For qsort() of elements: the column being sorted. */
static const struct rdb_column_class *sort_column;

static int
compare_elems(const void *a, const void *b)
{
    return atom_compare(sort_column, a, b);
}

/* Sorts 'n' elements and drops duplicates; returns how many are left. */
static size_t
sort_elems(const struct rdb_column_class *c, void *array, size_t n)
{
    size_t sz = elem_size(c);
    char *base = array;
    bool sorted = true;
    for (size_t i = 1; i < n && sorted; i++) {
        sorted = atom_compare(c, base + (i - 1) * sz, base + i * sz) < 0;
    }
    if (sorted) {
        return n;
    }
    sort_column = c;
    qsort(base, n, sz, compare_elems);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && !atom_compare(c, base + (k - 1) * sz, base + i * sz)) {
            elem_release(c, base + i * sz);
        } else {
            memmove(base + k * sz, base + i * sz, sz);
            k++;
        }
    }
    return k;
}

static bool
key_kept(const struct rdb_column_class *c, const char *key)
{
    if (!c->keys) {
        return true;
    }
    for (const char *const *k = c->keys; *k; k++) {
        if (!strcmp(*k, key)) {
            return true;
        }
    }
    return false;
}

/* The value that stands for 's' in compact column 'c' of 'row'. */
static uint8_t
compact_value(const struct rdb_row *row, const struct rdb_column_class *c,
              const char *s)
{
    for (size_t i = 0; c->enums[i]; i++) {
        if (!strcmp(c->enums[i], s)) {
            return i + 1;
        }
    }
    /* The schema keeps a server from sending another; one with another
     * schema gets none, and a word. */
    VLOG_WARN_RL(&bad_rl, "%s row "UUID_FMT": \"%s\" is not a value %s may "
                 "have, taken as none", rdb_row_table(row)->class->name,
                 UUID_ARGS(&row->uuid), s, c->name);
    return 0;
}

/* Replaces the value of column 'c' of 'row' with 'd'.  Returns true if it
 * changed. */
static bool
column_set(struct rdb_row *row, const struct rdb_column_class *c,
           struct rdb_datum *d)
{
    void *m = member(row, c);
    switch (c->storage) {
    case RDB_S_SCALAR:
    case RDB_S_OPTIONAL: {
        if (d->n > 1) {
            return false;
        }
        if (c->compact) {
            uint8_t *v = m;
            uint8_t new = d->n ? compact_value(row, c, d->keys[0].string) : 0;
            if (*v == new) {
                return false;
            }
            *v = new;
            return true;
        }
        if (c->packed) {
            /* Equal text, equal pointer. */
            const struct strpack **p = m;
            const char *s = d->n ? d->keys[0].string : "";
            const struct strpack *new = strpack_get(s, strlen(s));
            if (new == *p) {
                strpack_put(new);
                return false;
            }
            strpack_put(*p);
            *p = new;
            return true;
        }
        if (c->type == RDB_STRING) {
            char **s = m;
            const char *new = d->n ? d->keys[0].string
                              : c->storage == RDB_S_SCALAR ? "" : NULL;
            if (*s && new ? !strcmp(*s, new) : *s == new) {
                return false;
            }
            column_clear(row, c, true);
            if (d->n) {
                atom_to_elem(row, c, &d->keys[0], s);
            }
            return true;
        } else if (c->type == RDB_UUID && c->ref_table) {
            struct rdb_row **r = m;
            const struct uuid *new = d->n ? &d->keys[0].uuid : NULL;
            if (*r && new ? uuid_equals(&(*r)->uuid, new) : !*r && !new) {
                return false;
            }
            column_clear(row, c, true);
            if (d->n) {
                atom_to_elem(row, c, &d->keys[0], r);
            }
            return true;
        } else {
            char buf[sizeof(union rdb_atom)];
            memset(buf, 0, sizeof buf);
            if (d->n) {
                atom_to_elem(row, c, &d->keys[0], buf);
            }
            if (!memcmp(buf, m, elem_size(c))) {
                return false;
            }
            memcpy(m, buf, elem_size(c));
            return true;
        }
    }

    case RDB_S_ARRAY: {
        size_t sz = elem_size(c);
        char *new = d->n ? xmalloc(d->n * sz) : NULL;
        for (size_t i = 0; i < d->n; i++) {
            atom_to_elem(row, c, &d->keys[i], new + i * sz);
        }
        size_t n = sort_elems(c, new, d->n);
        size_t *old_n = member_n(row, c);
        char **old = m;
        bool same = *old_n == n;
        for (size_t i = 0; same && i < n; i++) {
            same = !atom_compare(c, *old + i * sz, new + i * sz);
        }
        if (same) {
            for (size_t i = 0; i < n; i++) {
                elem_release(c, new + i * sz);
            }
            free(new);
            return false;
        }
        column_clear(row, c, true);
        *old = new;
        *old_n = n;
        return true;
    }

    case RDB_S_PACKED_MAP: {
        /* Packed straight from the datum's pairs. */
        const char **keys = xmalloc(2 * d->n * sizeof *keys + 1);
        const char **values = keys + d->n;
        size_t n = 0;
        for (size_t i = 0; i < d->n; i++) {
            if (key_kept(c, d->keys[i].string)) {
                keys[n] = d->keys[i].string;
                values[n] = d->values[i].string;
                n++;
            }
        }
        const struct strpack *p = mappack_get_pairs(keys, values, n);
        free(keys);
        return packed_map_set(m, p);
    }

    case RDB_S_SMAP:
    case RDB_S_SHARED_MAP: {
        struct smap new = SMAP_INITIALIZER(&new);
        for (size_t i = 0; i < d->n; i++) {
            if (key_kept(c, d->keys[i].string)) {
                smap_replace_nocopy(&new, d->keys[i].string,
                                    d->values[i].string);
                d->values[i].string = NULL;
            }
        }
        bool shared = c->storage == RDB_S_SHARED_MAP;
        const struct smap **shared_old = m;
        struct smap *old = m;
        bool changed = !smap_equal(shared ? *shared_old : old, &new);
        if (changed && shared) {
            shared_map_put(*shared_old);
            *shared_old = shared_map_get(&new);
        } else if (changed) {
            hmap_swap(&old->map, &new.map);
        }
        smap_destroy(&new);
        return changed;
    }

    case RDB_S_HASHED:
    default:
        OVS_NOT_REACHED();
    }
}

/* True if the elements of set column 'c' are strings. */
static bool
is_string_set(const struct rdb_column_class *c)
{
    return c->type == RDB_STRING && c->value_type == RDB_VOID && !c->enums;
}

/* The delta being recorded for column 'c' of 'row', or NULL if its
 * elements are neither references nor strings (nor is it a map whose
 * changed keys are recorded). */
static struct rdb_set_delta *
set_delta_begin(struct rdb_row *row, const struct rdb_column_class *c)
{
    if (c->key_deltas) {
        /* The keys of a map, recorded as "added" strings. */
    } else if (c->value_type != RDB_VOID
               || !(c->type == RDB_UUID ? c->ref_table != NULL
                    : is_string_set(c))) {
        return NULL;
    }
    size_t col = c - rdb_row_table(row)->class->columns;
    uint32_t hash = hash_pointer(row, col);
    struct rdb_set_delta *sd;
    HMAP_FOR_EACH_WITH_HASH (sd, node, hash, &rdb_row_table(row)->set_deltas) {
        if (sd->row == row && sd->col == col) {
            sd->valid = false;      /* Two updates: no longer one delta. */
            return NULL;
        }
    }
    sd = xzalloc(sizeof *sd);
    sd->row = row;
    sd->col = col;
    sd->valid = true;
    hmap_insert(&rdb_row_table(row)->set_deltas, &sd->node, hash);
    return sd;
}

/* Records 'elem', an element of column 'c' (a row pointer or a string),
 * as added ('add') or removed in 'sd'.  A string is copied: a removed
 * one is freed right after. */
static void
set_delta_add(struct rdb_set_delta *sd, const struct rdb_column_class *c,
              bool add, const void *elem)
{
    size_t *n = add ? &sd->n_added : &sd->n_removed;
    size_t *allocated = add ? &sd->allocated_added : &sd->allocated_removed;
    if (c->type == RDB_UUID) {
        struct uuid **array = add ? &sd->added : &sd->removed;
        if (*n >= *allocated) {
            *array = x2nrealloc(*array, allocated, sizeof **array);
        }
        (*array)[(*n)++] = (*(struct rdb_row *const *) elem)->uuid;
    } else {
        char ***array = add ? &sd->added_strings : &sd->removed_strings;
        if (*n >= *allocated) {
            *array = x2nrealloc(*array, allocated, sizeof **array);
        }
        (*array)[(*n)++] = xstrdup(*(char *const *) elem);
    }
}

/* Frees the 'n' strings of 'v' and 'v' itself (NULL: the delta is of
 * references, and 'n' counts those). */
static void
free_strings(char **v, size_t n)
{
    if (v) {
        for (size_t i = 0; i < n; i++) {
            free(v[i]);
        }
        free(v);
    }
}

static void
set_deltas_clear(struct rdb_table *t)
{
    struct rdb_set_delta *sd;
    HMAP_FOR_EACH_POP (sd, node, &t->set_deltas) {
        free(sd->added);
        free(sd->removed);
        free_strings(sd->added_strings, sd->n_added);
        free_strings(sd->removed_strings, sd->n_removed);
        free(sd);
    }
}

/* The valid delta of column 'col' of 'row', a live row that is not new,
 * or NULL. */
static const struct rdb_set_delta *
set_delta_find(const struct rdb_row *row, size_t col)
{
    const struct rdb_set_delta *sd;
    HMAP_FOR_EACH_WITH_HASH (sd, node, hash_pointer(row, col),
                             &rdb_row_table(row)->set_deltas) {
        if (sd->row == row && sd->col == col) {
            return (!sd->valid || row->state != RDB_ROW_LIVE
                    || row->track & RDB_TRACK_NEW ? NULL : sd);
        }
    }
    return NULL;
}

bool
rdb_row_get_string_set_delta(const struct rdb_row *row, size_t col,
                             char *const **added, size_t *n_added,
                             char *const **removed, size_t *n_removed)
{
    ovs_assert(is_string_set(&rdb_row_table(row)->class->columns[col]));
    const struct rdb_set_delta *sd = set_delta_find(row, col);
    if (!sd) {
        return false;
    }
    *added = sd->added_strings;
    *n_added = sd->n_added;
    *removed = sd->removed_strings;
    *n_removed = sd->n_removed;
    return true;
}

bool
rdb_row_get_map_delta(const struct rdb_row *row, size_t col,
                      char *const **keys, size_t *n_keys)
{
    ovs_assert(rdb_row_table(row)->class->columns[col].key_deltas);
    const struct rdb_set_delta *sd = set_delta_find(row, col);
    if (!sd) {
        return false;
    }
    *keys = sd->added_strings;
    *n_keys = sd->n_added;
    return true;
}

bool
rdb_row_get_set_delta(const struct rdb_row *row, size_t col,
                      const struct uuid **added, size_t *n_added,
                      const struct uuid **removed, size_t *n_removed)
{
    const struct rdb_set_delta *sd = set_delta_find(row, col);
    if (!sd) {
        return false;
    }
    *added = sd->added;
    *n_added = sd->n_added;
    *removed = sd->removed;
    *n_removed = sd->n_removed;
    return true;
}

/* Applies the difference 'd' (RFC 7047's update2 "modify": the elements
 * added or removed) to set column 'c' of 'row'.  Returns true if it
 * changed. */
static bool
column_apply_set_diff(struct rdb_row *row, const struct rdb_column_class *c,
                      struct rdb_datum *d)
{
    size_t sz = elem_size(c);
    char *diff = d->n ? xmalloc(d->n * sz) : NULL;
    for (size_t i = 0; i < d->n; i++) {
        atom_to_elem(row, c, &d->keys[i], diff + i * sz);
    }
    size_t nd = sort_elems(c, diff, d->n);
    if (!nd) {
        free(diff);
        return false;
    }
    struct rdb_set_delta *sd = set_delta_begin(row, c);

    char **old = member(row, c);
    size_t *old_n = member_n(row, c);
    if (nd * 16 < *old_n) {
        /* A few elements in a big set (a port joining a group of
         * thousands): find each by binary search and move the rest. */
        for (size_t j = 0; j < nd; j++) {
            char *e = diff + j * sz;
            size_t lo = 0, hi = *old_n;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (atom_compare(c, *old + mid * sz, e) < 0) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            char *at = *old + lo * sz;
            size_t tail = (*old_n - lo) * sz;
            if (lo < *old_n && !atom_compare(c, at, e)) {
                if (sd) {
                    set_delta_add(sd, c, false, at);
                }
                elem_release(c, at);
                memmove(at, at + sz, tail - sz);
                (*old_n)--;
                elem_release(c, e);
            } else {
                if (sd) {
                    set_delta_add(sd, c, true, e);
                }
                *old = xrealloc(*old, (*old_n + 1) * sz);
                at = *old + lo * sz;
                memmove(at + sz, at, tail);
                memcpy(at, e, sz);
                (*old_n)++;
            }
        }
        free(diff);
        if (!*old_n) {
            free(*old);
            *old = NULL;
        }
        return true;
    }

    /* Merge: what is in exactly one of the two. */
    char *merged = xmalloc((*old_n + nd) * sz);
    size_t i = 0, j = 0, k = 0;
    while (i < *old_n || j < nd) {
        int cmp = (i >= *old_n ? 1 : j >= nd ? -1
                   : atom_compare(c, *old + i * sz, diff + j * sz));
        if (cmp < 0) {
            memcpy(merged + k++ * sz, *old + i++ * sz, sz);
        } else if (cmp > 0) {
            if (sd) {
                set_delta_add(sd, c, true, diff + j * sz);
            }
            memcpy(merged + k++ * sz, diff + j++ * sz, sz);
        } else {
            if (sd) {
                set_delta_add(sd, c, false, *old + i * sz);
            }
            elem_release(c, *old + i++ * sz);
            elem_release(c, diff + j++ * sz);
        }
    }
    free(diff);
    free(*old);
    if (!k) {
        free(merged);
        merged = NULL;
    }
    *old = merged;
    *old_n = k;
    return true;
}

/* Applies the difference 'd' to map 'm' of column 'c': a key not there is
 * added, a key with the same value is removed, a key with another value
 * gets it.  Returns true if it changed. */
static bool
map_apply_diff(struct smap *m, const struct rdb_column_class *c,
               struct rdb_datum *d, struct rdb_set_delta *sd)
{
    bool changed = false;
    for (size_t i = 0; i < d->n; i++) {
        const char *key = d->keys[i].string;
        if (!key_kept(c, key)) {
            continue;
        }
        struct smap_node *node = smap_get_node(m, key);
        if (!node) {
            smap_add(m, key, d->values[i].string);
        } else if (!strcmp(node->value, d->values[i].string)) {
            smap_remove_node(m, node);
        } else {
            smap_replace(m, key, d->values[i].string);
        }
        if (sd) {
            set_delta_add(sd, c, true, &key);
        }
        changed = true;
    }
    return changed;
}

/* The same as column_apply_set_diff() for a map column. */
static bool
column_apply_map_diff(struct rdb_row *row, const struct rdb_column_class *c,
                      struct rdb_datum *d)
{
    struct rdb_set_delta *sd = c->key_deltas ? set_delta_begin(row, c) : NULL;
    if (c->storage == RDB_S_PACKED_MAP) {
        struct smap copy = SMAP_INITIALIZER(&copy);
        mappack_to_smap(*(const struct strpack **) member(row, c), &copy);
        bool changed = (map_apply_diff(&copy, c, d, sd)
                        && packed_map_set(member(row, c), mappack_get(&copy)));
        smap_destroy(&copy);
        return changed;
    }
    if (c->storage == RDB_S_SHARED_MAP) {
        /* Changed on a copy: other rows share the map. */
        const struct smap **shared = member(row, c);
        struct smap copy;
        smap_clone(&copy, *shared);
        bool changed = map_apply_diff(&copy, c, d, sd);
        if (changed) {
            shared_map_put(*shared);
            *shared = shared_map_get(&copy);
        }
        smap_destroy(&copy);
        return changed;
    }
    return map_apply_diff(member(row, c), c, d, sd);
}

/* What value 'd' of hashed column 'c' (number 'col') adds to its row's
 * hash: as rdb_hash_*_col() would compute for the same value, defaults
 * adding nothing. */
static struct rdb_hash
datum_hash(const struct rdb_column_class *c, size_t col,
           const struct rdb_datum *d)
{
    struct rdb_hash sum = { { 0, 0 } };
    for (size_t i = 0; i < d->n; i++) {
        struct rdb_hash h;
        const union rdb_atom *a = &d->keys[i];
        if (c->value_type != RDB_VOID) {
            h = rdb_hash_atom_pair(col, a->string, strlen(a->string),
                                   d->values[i].string,
                                   strlen(d->values[i].string));
        } else if (c->type == RDB_STRING) {
            if (!a->string[0]) {
                continue;
            }
            h = rdb_hash_atom_string(col, a->string, strlen(a->string));
        } else if (c->type == RDB_INTEGER || c->type == RDB_BOOLEAN) {
            int64_t v = c->type == RDB_INTEGER ? a->integer : a->boolean;
            if (!v) {
                continue;
            }
            h = rdb_hash_atom_integer(col, v);
        } else if (c->type == RDB_REAL) {
            h = rdb_hash_atom_string(col, (const char *) &a->real,
                                     sizeof a->real);
        } else {
            h = rdb_hash_atom_string(col, (const char *) &a->uuid,
                                     sizeof a->uuid);
        }
        rdb_hash_add(&sum, &h);
    }
    return sum;
}

/* Applying updates. */

/* Finds the column named by the 'n' bytes at 'name'.  The server sends
 * the columns of every row of a table in the same order, so the one after
 * the last found is tried first. */
static const struct rdb_column_class *
find_column(struct rdb_table *t, const char *name, size_t n, size_t *idx)
{
    const struct rdb_table_class *tc = t->class;
    for (size_t k = 0; k < tc->n_columns; k++) {
        size_t i = (t->next_col + k) % tc->n_columns;
        const char *cn = tc->columns[i].name;
        if (t->name_lens[i] == n && !memcmp(cn, name, n)) {
            t->next_col = (i + 1) % tc->n_columns;
            *idx = i;
            return &tc->columns[i];
        }
    }
    return NULL;
}

/* 64 random bits of 'uuid' (of a version 4 UUID, or one northd derives),
 * never 0: its key in 'own_writes'. */
static uint64_t
own_key(const struct uuid *uuid)
{
    uint64_t key = ((uint64_t) uuid->parts[0] << 32) | uuid->parts[3];
    return key ? key : 1;
}

/* Whether the transaction being written or in flight writes the row with
 * 'uuid' of an owned table (see rdb_own_write()). */
static bool
own_writes_contain(const struct rdb *db, const struct uuid *uuid)
{
    if (!db->own_mask) {
        return false;
    }
    uint64_t key = own_key(uuid);
    for (size_t i = hash_uint64(key) & db->own_mask; ;
         i = (i + 1) & db->own_mask) {
        if (db->own_writes[i] == key) {
            return true;
        } else if (!db->own_writes[i]) {
            return false;
        }
    }
}

static void
own_writes_add(struct rdb *db, uint64_t key)
{
    if (!db->own_mask || db->n_own_writes + 1 > (db->own_mask + 1) / 4 * 3) {
        /* Grow (from 1024 slots), keeping at most 3/4 of the slots used. */
        size_t n_slots = db->own_mask ? 2 * (db->own_mask + 1) : 1024;
        uint64_t *old = db->own_writes;
        size_t old_slots = db->own_mask ? db->own_mask + 1 : 0;
        db->own_writes = xcalloc(n_slots, sizeof *db->own_writes);
        db->own_mask = n_slots - 1;
        db->n_own_writes = 0;
        for (size_t i = 0; i < old_slots; i++) {
            if (old[i]) {
                own_writes_add(db, old[i]);
            }
        }
        free(old);
    }
    for (size_t i = hash_uint64(key) & db->own_mask; ;
         i = (i + 1) & db->own_mask) {
        if (db->own_writes[i] == key) {
            return;
        } else if (!db->own_writes[i]) {
            db->own_writes[i] = key;
            db->n_own_writes++;
            return;
        }
    }
}

/* Decodes the row object in 't' into 'row': every column for an insert
 * ('modify' false), the changed ones otherwise.  Adds the columns that
 * changed and are not quiet to '*updated', and every column that changed
 * to '*all'. */
static bool
decode_row(struct rdb_table *t, struct rdb_row *row, struct jtext *text,
           bool modify, uint64_t *updated, uint64_t *all)
{
    struct rdb *db = t->db;
    struct ds *scratch = &db->scratch;
    if (!jtext_expect(text, '{')) {
        return false;
    }
    if (jtext_accept(text, '}')) {
        return true;
    }
    do {
        const char *name;
        size_t n;
        if (!jtext_string(text, scratch, &name, &n)
            || !jtext_expect(text, ':')) {
            return false;
        }
        size_t idx;
        const struct rdb_column_class *c = (t->class->n_columns
                                            ? find_column(t, name, n, &idx)
                                            : NULL);
        if (!c) {
            if (!jtext_skip(text)) {
                return false;
            }
            continue;
        }

        struct rdb_datum d;
        datum_init(&d);
        if (!parse_datum(text, scratch, c, &d)) {
            datum_destroy(&d, c);
            return false;
        }
        bool col_changed;
        if (c->storage == RDB_S_HASHED) {
            struct rdb_hash *h = &((struct rdb_hash *)
                                   ((char *) row + t->class->hash_offset))
                                  [c->hash_group];
            if (modify) {
                row->hash_stale = true;
            } else {
                struct rdb_hash dh = datum_hash(c, idx, &d);
                rdb_hash_add(h, &dh);
            }
            col_changed = true;
        } else if (modify && c->max > 1) {
            col_changed = (c->storage == RDB_S_SMAP
                           || c->storage == RDB_S_SHARED_MAP
                           || c->storage == RDB_S_PACKED_MAP
                           ? column_apply_map_diff(row, c, &d)
                           : column_apply_set_diff(row, c, &d));
        } else {
            col_changed = column_set(row, c, &d);
        }
        datum_destroy(&d, c);
        if (col_changed) {
            *all |= UINT64_C(1) << idx;
            if (!c->quiet) {
                *updated |= UINT64_C(1) << idx;
            }
        }
    } while (jtext_accept(text, ','));
    return jtext_expect(text, '}');
}

static void
apply_delete(struct rdb_table *t, struct rdb_row *row)
{
    COVERAGE_INC(rdb_row_delete);
    hmap_remove(&t->rows, &row->node);
    row->state = RDB_ROW_DELETED;
    t->n_live--;
    track(row, RDB_TRACK_DELETED, 0);
    if (!t->class->quiet) {
        t->db->changed = true;
    }
}

bool
rdb_apply_row_update(struct rdb_table *t, const char *uuid_s,
                     const char *s, size_t n, char **errorp)
{
    struct uuid uuid;
    if (strlen(uuid_s) != UUID_LEN || !parse_uuid36(uuid_s, &uuid)) {
        *errorp = xasprintf("bad row UUID \"%s\"", uuid_s);
        return false;
    }

    struct jtext text;
    jtext_init(&text, s, n);
    const char *op;
    size_t op_n;
    if (!jtext_expect(&text, '{')
        || !jtext_string(&text, &t->db->scratch, &op, &op_n)
        || !jtext_expect(&text, ':')) {
        goto syntax;
    }
    char opbuf[16];
    if (op_n >= sizeof opbuf) {
        goto syntax;
    }
    memcpy(opbuf, op, op_n);
    opbuf[op_n] = '\0';

    struct rdb_row *row = row_find(t, &uuid);
    struct rdb *db = t->db;
    bool local = rdb_table_is_local(t->class);
    /* In an owned table, a change to a row the transaction in flight does
     * not name is someone else's (see rdb_row_is_foreign()). */
    bool foreign = (t->class->owned && !db->fresh_copy
                    && !own_writes_contain(db, &uuid));
    if (!strcmp(opbuf, "delete")) {
        if (!jtext_null(&text)) {
            goto syntax;
        }
        db->msg_deleted_tables |= UINT64_C(1) << t->class->index;
        bool own = local && uuidset_find_and_delete(&db->expected_deletes,
                                                    &uuid);
        /* The server deletes rows of a garbage-collected table that
         * nothing refers to any more, as part of the transaction that
         * dropped the last reference. */
        bool foreign_delete = (foreign && !own
                               && !(t->class->garbage_collected
                                    && rdb_txn_in_flight(db)));
        if (row && row->state == RDB_ROW_LIVE) {
            if (own) {
                hmap_remove(&t->rows, &row->node);
                t->n_live--;
                untrack(row);
                row_free(row, true);
            } else {
                apply_delete(t, row);
                if (foreign_delete) {
                    track(row, RDB_TRACK_FOREIGN, 0);
                    db->changed = true;
                }
            }
        } else if (!row && local && !own && !db->fresh_copy) {
            /* Someone else deleted a row of a table whose inserts are not
             * reported: track the deletion of a row with no contents. */
            COVERAGE_INC(rdb_row_delete);
            row = row_alloc(t, &uuid, RDB_ROW_DELETED);
            track(row, RDB_TRACK_DELETED | (foreign_delete
                                            ? RDB_TRACK_FOREIGN : 0), 0);
            if (!t->class->quiet || foreign_delete) {
                db->changed = true;
            }
        }
    } else if (local && !strcmp(opbuf, "insert")) {
        /* An owned table replicated for its initial contents only: the
         * server reports inserts as bare UUIDs, to tell the user's own
         * (which it knows) from someone else's. */
        if (!foreign || (row && row->state == RDB_ROW_LIVE)) {
            if (!jtext_skip(&text)) {
                goto syntax;
            }
        } else {
            COVERAGE_INC(rdb_row_insert);
            if (!row) {
                row = row_create(t, &uuid, RDB_ROW_LIVE);
            }
            row->state = RDB_ROW_LIVE;
            row->transient = true;
            t->n_live++;
            uint64_t updated = 0, all = 0;
            if (!decode_row(t, row, &text, false, &updated, &all)) {
                goto syntax;
            }
            track(row, RDB_TRACK_NEW | RDB_TRACK_FOREIGN, all);
            db->changed = true;
        }
    } else if (!strcmp(opbuf, "initial") || !strcmp(opbuf, "insert")) {
        COVERAGE_INC(rdb_row_insert);
        if (!row) {
            row = row_create(t, &uuid, RDB_ROW_LIVE);
        } else if (row->state == RDB_ROW_LIVE) {
            /* Inserted twice: take the second as the truth. */
            row_clear(row, true);
            t->n_live--;
        }
        row->state = RDB_ROW_LIVE;
        t->n_live++;
        uint64_t updated = 0, all = 0;
        if (!decode_row(t, row, &text, false, &updated, &all)) {
            goto syntax;
        }
        if (foreign && !strcmp(opbuf, "insert")) {
            track(row, RDB_TRACK_NEW | RDB_TRACK_FOREIGN, all);
            db->changed = true;
        } else {
            track(row, RDB_TRACK_NEW, updated);
        }
        if (!t->class->quiet) {
            db->changed = true;
        }
    } else if (!strcmp(opbuf, "modify")) {
        COVERAGE_INC(rdb_row_modify);
        if (local && !foreign) {
            /* The echo of the user's own write, which the replica of such
             * a table does not follow. */
            if (!jtext_skip(&text)) {
                goto syntax;
            }
        } else {
            if (local && (!row || row->state != RDB_ROW_LIVE)) {
                /* Someone else changed a row the replica forgot (or never
                 * had): keep what changed until the user has seen it. */
                if (!row) {
                    row = row_create(t, &uuid, RDB_ROW_LIVE);
                }
                row->state = RDB_ROW_LIVE;
                row->transient = true;
                t->n_live++;
            }
            if (!row || row->state != RDB_ROW_LIVE) {
                *errorp = xasprintf("modification of unknown row "UUID_FMT,
                                    UUID_ARGS(&uuid));
                return false;
            }
            uint64_t updated = 0, all = 0;
            if (!decode_row(t, row, &text, true, &updated, &all)) {
                goto syntax;
            }
            /* The server drops weak references to rows that go, as part of
             * the transaction that deleted them: whether that is what
             * happened is known at the end of the message. */
            uint64_t weak = 0;
            for (size_t i = 0; i < t->class->n_columns; i++) {
                if (t->class->columns[i].weak) {
                    weak |= UINT64_C(1) << i;
                }
            }
            if (foreign && all & ~weak) {
                track(row, RDB_TRACK_MODIFIED | RDB_TRACK_FOREIGN, all);
                db->changed = true;
            } else {
                if (foreign && all) {
                    if (db->n_weak_changes >= db->allocated_weak_changes) {
                        db->weak_changes = x2nrealloc(
                            db->weak_changes, &db->allocated_weak_changes,
                            sizeof *db->weak_changes);
                    }
                    db->weak_changes[db->n_weak_changes++]
                        = (struct rdb_weak_change) { row, all };
                }
                if (updated) {
                    track(row, RDB_TRACK_MODIFIED, updated);
                    db->changed = true;
                }
            }
        }
    } else {
        goto syntax;
    }
    if (!jtext_expect(&text, '}') || !jtext_at_end(&text)) {
        goto syntax;
    }
    return true;

syntax:
    COVERAGE_INC(rdb_bad_update);
    *errorp = xasprintf("bad update of row "UUID_FMT" in table %s: %s",
                        UUID_ARGS(&uuid), t->class->name,
                        text.error ? text.error : "unexpected content");
    return false;
}

bool
rdb_table_is_local(const struct rdb_table_class *tc)
{
    return !(tc->select & (RDB_SELECT_INSERT | RDB_SELECT_MODIFY));
}

void
rdb_expect_delete(struct rdb *db, const struct rdb_table_class *tc OVS_UNUSED,
                  const struct uuid *uuid)
{
    uuidset_insert(&db->expected_deletes, uuid);
}

/* Empties 'set' and gives back its buckets: a cold start's transaction
 * names tens of thousands of rows, and an empty set with that many buckets
 * still costs a walk over them to clear. */
static void
uuidset_clear_and_shrink(struct uuidset *set)
{
    uuidset_clear(set);
    hmap_shrink(&set->uuids);
}

void
rdb_expect_delete_done(struct rdb *db)
{
    uuidset_clear_and_shrink(&db->expected_deletes);
    free(db->own_writes);
    db->own_writes = NULL;
    db->own_mask = db->n_own_writes = 0;
}

void
rdb_own_write(struct rdb *db, const struct rdb_table_class *tc,
              const struct uuid *uuid)
{
    if (tc->owned) {
        own_writes_add(db, own_key(uuid));
    }
}

void
rdb_forget_rows(struct rdb *db, const struct rdb_table_class *tc)
{
    struct rdb_table *t = rdb_table(db, tc);
    struct rdb_row *row;
    HMAP_FOR_EACH_SAFE (row, node, &t->rows) {
        if (row->state != RDB_ROW_LIVE || row->n_refs) {
            continue;
        }
        hmap_remove(&t->rows, &row->node);
        t->n_live--;
        untrack(row);
        row_free(row, true);
    }
    if (!t->row_pool.n_live) {
        /* Every row went (a copy of two million flows after a restart at
         * a million ACLs): give their room back for the compile. */
        objpool_trim(&t->row_pool);
        free(t->free_indexes);
        t->free_indexes = NULL;
        t->n_free_indexes = t->allocated_free_indexes = 0;
        t->n_indexes = 0;
        hmap_shrink(&t->rows);
    }
}

void
rdb_update_begin(struct rdb *db)
{
    db->changed = false;
    db->msg_deleted_tables = 0;
    db->n_weak_changes = 0;
}

/* Decides, at the end of a message, whether the changes to weak references
 * noted in it were someone else's (see struct rdb). */
static void
weak_changes_settle(struct rdb *db)
{
    for (size_t i = 0; i < db->n_weak_changes; i++) {
        struct rdb_weak_change *wc = &db->weak_changes[i];
        struct rdb_row *row = wc->row;
        const struct rdb_table_class *tc = rdb_row_table(row)->class;
        bool dropped = false;
        for (size_t j = 0; j < tc->n_columns && !dropped; j++) {
            const struct rdb_column_class *c = &tc->columns[j];
            dropped = (wc->columns & (UINT64_C(1) << j) && c->ref_table
                       && (db->msg_deleted_tables
                           & (UINT64_C(1) << c->ref_table->index)));
        }
        if (!dropped && row->state == RDB_ROW_LIVE) {
            track(row, RDB_TRACK_MODIFIED | RDB_TRACK_FOREIGN, wc->columns);
            db->changed = true;
        }
    }
    db->n_weak_changes = 0;
    db->msg_deleted_tables = 0;
}

void
rdb_update_end(struct rdb *db)
{
    weak_changes_settle(db);
    if (db->changed) {
        db->seqno++;
    }
    db->changed = false;
}

/* Forgets the tracked rows of 't' (which the caller has dealt with), and
 * gives back the room a burst of them took. */
static void
tracked_clear(struct rdb_table *t)
{
    t->n_tracked = 0;
    if (t->allocated_tracked > 1024) {
        free(t->tracked);
        t->tracked = NULL;
        t->allocated_tracked = 0;
    }
}

/* Moves every row into the graveyard: a fresh copy follows, untracked.
 * The old rows stay readable until the next rdb_track_clear(), so that
 * whoever still points at them can let go first. */
void
rdb_reset(struct rdb *db)
{
    for (size_t i = 0; i < db->class->n_tables; i++) {
        struct rdb_table *t = &db->tables[i];
        for (size_t j = 0; j < t->n_tracked; j++) {
            struct rdb_row *row = t->tracked[j].row;
            if (row) {
                row->track = 0;
                if (row->state != RDB_ROW_DELETED) {
                    hmap_remove(&t->rows, &row->node);
                }
                rows_push(&db->graveyard, row);
            }
        }
        tracked_clear(t);
        struct rdb_row *row;
        HMAP_FOR_EACH_POP (row, node, &t->rows) {
            rows_push(&db->graveyard, row);
        }
        set_deltas_clear(t);
        t->n_live = 0;
    }
    db->fresh_copy = true;
    db->n_weak_changes = 0;
    db->reset_seqno++;
    db->seqno++;
}

void
rdb_track_clear(struct rdb *db)
{
    /* Deleted rows let go of what they refer to first: rows that were
     * deleted together (a datapath and its port bindings) refer to each
     * other. */
    for (size_t i = 0; i < db->class->n_tables; i++) {
        struct rdb_table *t = &db->tables[i];
        set_deltas_clear(t);
        for (size_t j = 0; j < t->n_tracked; j++) {
            struct rdb_row *row = t->tracked[j].row;
            if (row && row->state == RDB_ROW_DELETED) {
                row_clear(row, true);
            }
        }
    }
    for (size_t i = 0; i < db->class->n_tables; i++) {
        struct rdb_table *t = &db->tables[i];
        for (size_t j = 0; j < t->n_tracked; j++) {
            struct rdb_row *row = t->tracked[j].row;
            if (!row) {
                continue;
            }
            row->track = 0;
            if (row->state != RDB_ROW_DELETED) {
                if (row->transient && !row->n_refs) {
                    /* Someone else's row in a table replicated for its
                     * initial contents only: the user has seen it. */
                    hmap_remove(&t->rows, &row->node);
                    t->n_live--;
                    row_free(row, true);
                }
                continue;
            }
            if (!row->n_refs) {
                row_free(row, true);
            } else if (!row_find(t, &row->uuid)) {
                /* A weak reference the server kept: ovsdb-server 3.1
                 * leaves one in a row that the same transaction also
                 * modified (delete a port and, in one transaction, remove
                 * another from its port group).  The reference reads as
                 * absent, as in the OVSDB IDL. */
                static struct vlog_rate_limit dangling_rl
                    = VLOG_RATE_LIMIT_INIT(1, 5);
                COVERAGE_INC(rdb_dangling_ref);
                VLOG_INFO_RL(&dangling_rl, "%s row "UUID_FMT" was deleted "
                             "but the server still refers to it (a weak "
                             "reference left behind); read as absent",
                             t->class->name, UUID_ARGS(&row->uuid));
                row_clear(row, true);
                row->state = RDB_ROW_ORPHAN;
                hmap_insert(&t->rows, &row->node, uuid_hash(&row->uuid));
            } else {
                row_clear(row, true);
                rows_push(&db->zombies, row);
            }
        }
        tracked_clear(t);
    }
    for (size_t i = 0; i < db->graveyard.n; i++) {
        row_free(db->graveyard.rows[i], false);
    }
    rows_destroy(&db->graveyard);
}

/* Lookups. */

static const struct rdb_row *
live_from(const struct rdb_table *t, struct hmap_node *node)
{
    for (; node; node = hmap_next(&t->rows, node)) {
        const struct rdb_row *row = CONTAINER_OF(node, struct rdb_row, node);
        if (row->state == RDB_ROW_LIVE) {
            return row;
        }
    }
    return NULL;
}

const struct rdb_row *
rdb_first(const struct rdb *db, const struct rdb_table_class *tc)
{
    const struct rdb_table *t = rdb_table(db, tc);
    return live_from(t, hmap_first(&t->rows));
}

const struct rdb_row *
rdb_next(const struct rdb_row *row)
{
    const struct rdb_table *t = rdb_row_table(row);
    return live_from(t, hmap_next(&t->rows, &row->node));
}

size_t
rdb_count(const struct rdb *db, const struct rdb_table_class *tc)
{
    return rdb_table(db, tc)->n_live;
}

size_t
rdb_index_limit(const struct rdb *db, const struct rdb_table_class *tc)
{
    return rdb_table(db, tc)->n_indexes;
}

const struct rdb_row *
rdb_get(const struct rdb *db, const struct rdb_table_class *tc,
        const struct uuid *uuid)
{
    const struct rdb_row *row = row_find(rdb_table(db, tc), uuid);
    return row && row->state == RDB_ROW_LIVE ? row : NULL;
}

/* The first tracked row of 't' at or after position 'pos'. */
static const struct rdb_row *
tracked_from(const struct rdb_table *t, size_t pos)
{
    for (; pos < t->n_tracked; pos++) {
        if (t->tracked[pos].row) {
            return t->tracked[pos].row;
        }
    }
    return NULL;
}

const struct rdb_row *
rdb_track_first(const struct rdb *db, const struct rdb_table_class *tc)
{
    return tracked_from(rdb_table(db, tc), 0);
}

const struct rdb_row *
rdb_track_next(const struct rdb_row *row)
{
    return tracked_from(rdb_row_table(row), row->track_pos + 1);
}

void
rdb_track_deleted(const struct rdb *db, const struct rdb_table_class *tc,
                  struct uuidset *uuids)
{
    for (const struct rdb_row *row = rdb_track_first(db, tc); row;
         row = rdb_track_next(row)) {
        if (rdb_row_is_deleted(row)) {
            uuidset_insert(uuids, &row->uuid);
        }
    }
}

void
rdb_get_memory_usage(const struct rdb *db, struct simap *usage)
{
    size_t rows = 0;
    for (size_t i = 0; i < db->class->n_tables; i++) {
        rows += hmap_count(&db->tables[i].rows);
    }
    char *key = xasprintf("rdb-rows-%s", db->class->database);
    simap_increase(usage, key, rows);
    free(key);
}

size_t
rdb_shared_map_count(void)
{
    return hmap_count(&shared_maps);
}

bool
rdb_shared_maps_any(bool (*pred)(const struct smap *, const void *aux),
                    const void *aux)
{
    struct shared_map *sm;
    HMAP_FOR_EACH (sm, node, &shared_maps) {
        if (pred(&sm->map, aux)) {
            return true;
        }
    }
    return false;
}

/* Life cycle. */

struct rdb *
rdb_create(const struct rdb_class *class, const char *remote)
{
    hash_init();
    struct rdb *db = xzalloc(sizeof *db);
    size_t id = 0;
    while (id < ARRAY_SIZE(rdbs) && rdbs[id]) {
        id++;
    }
    ovs_assert(id < ARRAY_SIZE(rdbs));
    rdbs[id] = db;
    db->id = id;
    db->class = class;
    rdb_conn_set_remotes(db, remote);
    ovs_assert(class->n_tables <= UINT8_MAX + 1);
    db->tables = xcalloc(class->n_tables, sizeof *db->tables);
    for (size_t i = 0; i < class->n_tables; i++) {
        struct rdb_table *t = &db->tables[i];
        const struct rdb_table_class *tc = class->tables[i];
        ovs_assert(tc->index == i && tc->n_columns <= 64);
        t->class = tc;
        for (size_t j = 0; j < tc->n_columns; j++) {
            t->name_lens[j] = strlen(tc->columns[j].name);
        }
        t->db = db;
        hmap_init(&t->rows);
        hmap_init(&t->set_deltas);
        objpool_init(&t->row_pool, tc->row_size, "rdb-rows");
    }
    uuidset_init(&db->expected_deletes);
    ovs_assert(class->n_tables <= 64);  /* 'msg_deleted_tables'. */
    shash_init(&db->server_schema);
    for (size_t i = 0; i < class->n_tables; i++) {
        db->has_local_tables |= rdb_table_is_local(class->tables[i]);
    }
    ds_init(&db->scratch);
    db->seqno = 1;
    rdb_conn_init(db);
    return db;
}

void
rdb_destroy(struct rdb *db)
{
    if (!db) {
        return;
    }
    rdb_conn_destroy(db);
    rdb_reset(db);
    for (size_t i = 0; i < db->graveyard.n; i++) {
        row_free(db->graveyard.rows[i], false);
    }
    rows_destroy(&db->graveyard);
    for (size_t i = 0; i < db->zombies.n; i++) {
        row_free(db->zombies.rows[i], false);
    }
    rows_destroy(&db->zombies);
    for (size_t i = 0; i < db->class->n_tables; i++) {
        struct rdb_table *t = &db->tables[i];
        hmap_destroy(&t->rows);
        hmap_destroy(&t->set_deltas);
        objpool_destroy(&t->row_pool);
        free(t->tracked);
        free(t->free_indexes);
    }
    uuidset_destroy(&db->expected_deletes);
    free(db->own_writes);
    free(db->weak_changes);
    rdb_server_schema_clear(db);
    shash_destroy(&db->server_schema);
    free(db->tables);
    ds_destroy(&db->scratch);
    svec_destroy(&db->remotes);
    rdbs[db->id] = NULL;
    free(db);
}

void
rdb_server_schema_clear(struct rdb *db)
{
    struct shash_node *node;
    SHASH_FOR_EACH_SAFE (node, &db->server_schema) {
        sset_destroy(node->data);
        free(node->data);
        shash_delete(&db->server_schema, node);
    }
}

bool
rdb_server_has(const struct rdb *db, const char *table, const char *column)
{
    const struct sset *columns = shash_find_data(&db->server_schema, table);
    return columns && (!column || sset_contains(columns, column));
}

const char *
rdb_get_name(const struct rdb *db)
{
    return db->remote;
}

unsigned int
rdb_get_seqno(const struct rdb *db)
{
    return db->seqno;
}

unsigned int
rdb_get_reset_seqno(const struct rdb *db)
{
    return db->reset_seqno;
}

bool
rdb_is_synced(const struct rdb *db)
{
    return db->synced && db->state == RDB_C_SYNCED
           && db->msg.kind != RDB_M_MONITOR_REPLY
           && db->msg.kind != RDB_M_UPDATE;
}

bool
rdb_has_ever_synced(const struct rdb *db)
{
    return db->ever_synced;
}
