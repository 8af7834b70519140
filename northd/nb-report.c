/* What of the NB is not compiled; see nb-report.h. */
#include <config.h>
#include "northd/nb-report.h"

#include <string.h>

#include "coverage.h"
#include "hash.h"
#include "lib/nb-rdb.h"
#include "lib/rdb-map.h"
#include "lib/rdb.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "openvswitch/vlog.h"
#include "smap.h"
#include "util.h"
#include "uuid.h"

VLOG_DEFINE_THIS_MODULE(nb_report);

COVERAGE_DEFINE(nb_report_not_compiled);

enum entry_kind {
    ENTRY_TABLE,                /* A row of a table not compiled. */
    ENTRY_COLUMN,               /* A row that sets a column not compiled. */
    ENTRY_KEY,                  /* A row whose map has a key not
                                 * compiled. */
    ENTRY_VALUE,                /* A row whose string column has a value
                                 * not compiled. */
    ENTRY_BAD_VALUE,            /* A row whose column (or map key) has a
                                 * value northd does not understand. */
};

/* A row that uses an entry's thing. */
struct entry_row {
    struct hmap_node node;      /* In 'rows', by UUID. */
    struct uuid uuid;
    char *name;                 /* Its name, or NULL if it has none. */
    char *value;                /* ENTRY_BAD_VALUE: the value, else NULL. */
};

/* One thing not compiled, and the rows that use it. */
struct entry {
    enum entry_kind kind;
    const struct rdb_map_table *mt;
    const struct rdb_map_column *mc;    /* Not for ENTRY_TABLE. */
    const struct rdb_map_item *item;    /* ENTRY_KEY, ENTRY_VALUE, and
                                         * ENTRY_BAD_VALUE of a key. */
    enum rdb_map_policy policy;
    const char *reason;         /* ENTRY_BAD_VALUE: what northd does with
                                 * the value instead. */
    struct hmap rows;
};

struct nb_report {
    struct entry *entries;      /* Grouped by table, in the map's order. */
    size_t n_entries;
};

static void
entry_init(struct entry *e, enum entry_kind kind,
           const struct rdb_map_table *mt, const struct rdb_map_column *mc,
           const struct rdb_map_item *item)
{
    e->kind = kind;
    e->mt = mt;
    e->mc = mc;
    e->item = item;
    if (kind == ENTRY_BAD_VALUE) {
        e->policy = RDB_MAP_NONE;
        e->reason = item ? item->otherwise : mc->otherwise;
    } else {
        e->policy = item ? item->policy : mc ? mc->policy : mt->policy;
        e->reason = item ? item->reason : mc ? mc->reason : mt->reason;
    }
    hmap_init(&e->rows);
}

struct nb_report *
nb_report_create(const struct rdb_map *map)
{
    struct nb_report *r = xzalloc(sizeof *r);
    size_t cap = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t n = 0;
#define ADD(KIND, MT, MC, ITEM)                                 \
        do {                                                    \
            if (pass) {                                         \
                entry_init(&r->entries[n], KIND, MT, MC, ITEM); \
            }                                                   \
            n++;                                                \
        } while (0)
        for (size_t i = 0; i < map->n_tables; i++) {
            const struct rdb_map_table *mt = &map->tables[i];
            if (!mt->tc) {
                continue;
            }
            if (rdb_map_policy_reported(mt->policy)) {
                ADD(ENTRY_TABLE, mt, NULL, NULL);
                continue;
            }
            for (size_t j = 0; j < mt->n_columns; j++) {
                const struct rdb_map_column *mc = &mt->columns[j];
                if (mc->col < 0) {
                    continue;
                }
                if (rdb_map_policy_reported(mc->policy)) {
                    ADD(ENTRY_COLUMN, mt, mc, NULL);
                }
                if (mc->values_kind != RDB_MAP_VALUES_ANY) {
                    ADD(ENTRY_BAD_VALUE, mt, mc, NULL);
                }
                for (size_t k = 0; k < mc->n_keys; k++) {
                    if (rdb_map_policy_reported(mc->keys[k].policy)) {
                        ADD(ENTRY_KEY, mt, mc, &mc->keys[k]);
                    }
                    if (mc->keys[k].values != RDB_MAP_VALUES_ANY) {
                        ADD(ENTRY_BAD_VALUE, mt, mc, &mc->keys[k]);
                    }
                }
                for (size_t k = 0; k < mc->n_values; k++) {
                    if (rdb_map_policy_reported(mc->values[k].policy)) {
                        ADD(ENTRY_VALUE, mt, mc, &mc->values[k]);
                    }
                }
            }
        }
#undef ADD
        if (!pass) {
            cap = n;
            r->entries = xcalloc(MAX(cap, 1), sizeof *r->entries);
        } else {
            ovs_assert(n == cap);
            r->n_entries = n;
        }
    }
    return r;
}

static void
entry_row_free(struct entry_row *er)
{
    free(er->name);
    free(er->value);
    free(er);
}

static void
entry_clear(struct entry *e)
{
    struct entry_row *er;
    HMAP_FOR_EACH_POP (er, node, &e->rows) {
        entry_row_free(er);
    }
}

void
nb_report_destroy(struct nb_report *r)
{
    if (r) {
        for (size_t i = 0; i < r->n_entries; i++) {
            entry_clear(&r->entries[i]);
            hmap_destroy(&r->entries[i].rows);
        }
        free(r->entries);
        free(r);
    }
}

/* The row's name, if its table has a "name" column it keeps and the row
 * has one. */
static const char *
row_name(const struct rdb_row *row, const struct rdb_map_table *mt)
{
    const struct rdb_map_column *mc = rdb_map_find_column(mt, "name");
    if (!mc || mc->col < 0) {
        return NULL;
    }
    const struct rdb_column_class *c = &mt->tc->columns[mc->col];
    if (c->type != RDB_STRING || c->packed || c->storage == RDB_S_ARRAY) {
        return NULL;
    }
    const char *s = rdb_map_column_string(row, mt, mc);
    return s[0] ? s : NULL;
}

/* The value of ENTRY_BAD_VALUE 'e''s column or key in 'row', or NULL if
 * the key is not set. */
static const char *
entry_value(const struct entry *e, const struct rdb_row *row,
            struct ds *scratch)
{
    return (e->item
            ? rdb_map_column_get(row, e->mt, e->mc, e->item->name, scratch)
            : rdb_map_column_string(row, e->mt, e->mc));
}

/* Whether 'row' uses the thing of entry 'e'. */
static bool
entry_matches(const struct entry *e, const struct rdb_row *row)
{
    switch (e->kind) {
    case ENTRY_TABLE:
        return true;
    case ENTRY_COLUMN:
        return rdb_map_column_is_set(row, e->mt, e->mc);
    case ENTRY_KEY: {
        struct ds scratch = DS_EMPTY_INITIALIZER;
        const char *v = rdb_map_column_get(row, e->mt, e->mc, e->item->name,
                                           &scratch);
        bool matches = v && rdb_map_item_value_reported(e->item, v);
        ds_destroy(&scratch);
        return matches;
    }
    case ENTRY_VALUE:
        return !strcmp(rdb_map_column_string(row, e->mt, e->mc),
                       e->item->name);
    case ENTRY_BAD_VALUE: {
        struct ds scratch = DS_EMPTY_INITIALIZER;
        const char *v = entry_value(e, row, &scratch);
        bool matches = v && !rdb_map_value_understood(e->mc, e->item, v);
        ds_destroy(&scratch);
        return matches;
    }
    default:
        OVS_NOT_REACHED();
    }
}

static struct entry_row *
entry_find(const struct entry *e, const struct uuid *uuid)
{
    struct entry_row *er;
    HMAP_FOR_EACH_WITH_HASH (er, node, uuid_hash(uuid), &e->rows) {
        if (uuid_equals(&er->uuid, uuid)) {
            return er;
        }
    }
    return NULL;
}

/* "KEY" of "COLUMN:KEY", "COLUMN=VALUE", "COLUMN" or "" for 'e''s thing. */
static void
format_thing(const struct entry *e, struct ds *s)
{
    switch (e->kind) {
    case ENTRY_TABLE:
        break;
    case ENTRY_COLUMN:
        ds_put_cstr(s, e->mc->name);
        break;
    case ENTRY_KEY:
        ds_put_format(s, "%s:%s", e->mc->name, e->item->name);
        break;
    case ENTRY_BAD_VALUE:
        ds_put_cstr(s, e->mc->name);
        if (e->item) {
            ds_put_format(s, ":%s", e->item->name);
        }
        break;
    case ENTRY_VALUE:
        ds_put_format(s, "%s=%s", e->mc->name, e->item->name);
        break;
    }
}

static void
log_row(const struct entry *e, const struct entry_row *er)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(10, 20);
    /* A row of a table not compiled is also counted in a warning per
     * table (log_table_count()); one that uses a column, key or value
     * that is not is worth a warning of its own. */
    enum vlog_level level = e->kind == ENTRY_TABLE ? VLL_INFO : VLL_WARN;
    COVERAGE_INC(nb_report_not_compiled);
    if (vlog_should_drop(&this_module, level, &rl)) {
        return;
    }
    struct ds s = DS_EMPTY_INITIALIZER;
    ds_put_format(&s, "NB %s ", e->mt->name);
    if (er->name) {
        ds_put_format(&s, "%s ("UUID_FMT")", er->name, UUID_ARGS(&er->uuid));
    } else {
        ds_put_format(&s, UUID_FMT, UUID_ARGS(&er->uuid));
    }
    if (e->kind == ENTRY_TABLE) {
        ds_put_format(&s, ": table not compiled: %s", e->reason);
    } else if (e->kind == ENTRY_BAD_VALUE) {
        ds_put_cstr(&s, ": ");
        format_thing(e, &s);
        ds_put_format(&s, "=\"%s\" is not understood (expected ",
                      er->value);
        rdb_map_format_understood(e->mc, e->item, &s);
        ds_put_format(&s, "): %s", e->reason);
    } else {
        ds_put_cstr(&s, ": ");
        format_thing(e, &s);
        ds_put_format(&s, " %s: %s",
                      (e->policy == RDB_MAP_LATER
                       ? "is not compiled (stock 23.03 ignores it too)"
                       : "is not compiled"), e->reason);
    }
    VLOG(level, "%s", ds_cstr(&s));
    ds_destroy(&s);
}

/* Brings entry 'e' in line with 'row' (live or deleted). */
static void
entry_update(struct entry *e, const struct rdb_row *row)
{
    bool uses = !rdb_row_is_deleted(row) && entry_matches(e, row);
    struct entry_row *er = entry_find(e, &row->uuid);
    struct ds scratch = DS_EMPTY_INITIALIZER;
    if (uses && !er) {
        er = xmalloc(sizeof *er);
        er->uuid = row->uuid;
        const char *name = row_name(row, e->mt);
        er->name = name ? xstrdup(name) : NULL;
        er->value = (e->kind == ENTRY_BAD_VALUE
                     ? xstrdup(entry_value(e, row, &scratch)) : NULL);
        hmap_insert(&e->rows, &er->node, uuid_hash(&er->uuid));
        log_row(e, er);
    } else if (uses && er->value && strcmp(er->value,
                                           entry_value(e, row, &scratch))) {
        /* Another value northd does not understand. */
        free(er->value);
        er->value = xstrdup(entry_value(e, row, &scratch));
        log_row(e, er);
    } else if (!uses && er) {
        hmap_remove(&e->rows, &er->node);
        entry_row_free(er);
    }
    ds_destroy(&scratch);
}

/* Logs the count of rows of a table not compiled when it changed. */
static void
log_table_count(const struct entry *e, size_t old)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);
    size_t n = hmap_count(&e->rows);
    if (n == old) {
        return;
    }
    if (n) {
        VLOG_WARN_RL(&rl, "NB table %s has %"PRIuSIZE" row(s): this northd "
                     "does not compile them (see \"northd/not-compiled\")",
                     e->mt->name, n);
    } else {
        VLOG_INFO("NB table %s is empty again", e->mt->name);
    }
}

static bool
shared_map_uses(const struct smap *m, const void *e_)
{
    const struct entry *e = e_;
    const char *v = smap_get(m, e->item->name);
    return v && (e->kind == ENTRY_BAD_VALUE
                 ? !rdb_map_value_understood(e->mc, e->item, v)
                 : rdb_map_item_value_reported(e->item, v));
}

/* Whether 'e' is about a key of a map: then rows that share one map (ACL
 * options) use it alike. */
static bool
entry_is_key(const struct entry *e)
{
    return e->kind == ENTRY_KEY || (e->kind == ENTRY_BAD_VALUE && e->item);
}

/* False if no row can use 'e''s key: it is a key of a shared map column
 * (ACL options) and no shared map has it with a value worth reporting. */
static bool
entry_may_match(const struct entry *e)
{
    return (!entry_is_key(e)
            || e->mt->tc->columns[e->mc->col].storage != RDB_S_SHARED_MAP
            || rdb_shared_maps_any(shared_map_uses, e));
}

void
nb_report_scan(struct nb_report *r, const struct rdb *nb)
{
    for (size_t i = 0; i < r->n_entries; i++) {
        struct entry *e = &r->entries[i];
        size_t old = hmap_count(&e->rows);

        /* Rows that no longer use it (or are gone). */
        struct entry_row *er;
        HMAP_FOR_EACH_SAFE (er, node, &e->rows) {
            const struct rdb_row *row = rdb_get(nb, e->mt->tc, &er->uuid);
            if (!row || rdb_row_is_deleted(row) || !entry_matches(e, row)) {
                hmap_remove(&e->rows, &er->node);
                entry_row_free(er);
            }
        }

        /* Rows that use it.  ACL options are maps many rows share: if none
         * of them has the key, no row need be visited; otherwise a row
         * with the same map as the last one needs no lookup. */
        const void *last_map = NULL;
        bool last_uses = false;
        for (const struct rdb_row *row = (entry_may_match(e)
                                          ? rdb_first(nb, e->mt->tc)
                                          : NULL);
             row; row = rdb_next(row)) {
            bool uses;
            if (entry_is_key(e)) {
                const void *m = rdb_map_column_map_id(row, e->mt, e->mc);
                if (m != last_map) {
                    last_map = m;
                    last_uses = entry_matches(e, row);
                }
                uses = last_uses;
            } else {
                uses = entry_matches(e, row);
            }
            if (uses && (e->kind == ENTRY_BAD_VALUE
                         || !entry_find(e, &row->uuid))) {
                entry_update(e, row);
            }
        }
        if (e->kind == ENTRY_TABLE) {
            log_table_count(e, old);
        }
    }
}

void
nb_report_scan_tracked(struct nb_report *r, const struct rdb *nb)
{
    for (size_t i = 0; i < r->n_entries; i++) {
        struct entry *e = &r->entries[i];
        size_t old = hmap_count(&e->rows);
        for (const struct rdb_row *row = rdb_track_first(nb, e->mt->tc);
             row; row = rdb_track_next(row)) {
            entry_update(e, row);
        }
        if (e->kind == ENTRY_TABLE) {
            log_table_count(e, old);
        }
    }
}

static int
compare_strings(const void *a_, const void *b_)
{
    const char *const *a = a_;
    const char *const *b = b_;
    return strcmp(*a, *b);
}

/* Up to three of 'e''s rows, by name (else UUID), sorted. */
static void
format_examples(const struct entry *e, struct ds *out)
{
    size_t n = hmap_count(&e->rows);
    char **names = xmalloc(MAX(n, 1) * sizeof *names);
    size_t i = 0;
    const struct entry_row *er;
    HMAP_FOR_EACH (er, node, &e->rows) {
        struct ds name = DS_EMPTY_INITIALIZER;
        if (er->name) {
            ds_put_cstr(&name, er->name);
        } else {
            ds_put_format(&name, UUID_FMT, UUID_ARGS(&er->uuid));
        }
        if (er->value) {
            ds_put_format(&name, " (\"%s\")", er->value);
        }
        names[i++] = ds_steal_cstr(&name);
    }
    qsort(names, n, sizeof *names, compare_strings);
    ds_put_cstr(out, ", e.g. ");
    for (i = 0; i < n; i++) {
        if (i < 3) {
            ds_put_format(out, "%s%s", i ? " " : "", names[i]);
        }
        free(names[i]);
    }
    if (n > 3) {
        ds_put_cstr(out, " ...");
    }
    free(names);
}

void
nb_report_format(const struct nb_report *r, struct ds *out)
{
    for (size_t i = 0; i < r->n_entries; i++) {
        const struct entry *e = &r->entries[i];
        size_t n = hmap_count(&e->rows);
        if (!n) {
            continue;
        }
        if (e->kind == ENTRY_TABLE) {
            ds_put_format(out, "Not compiled: %"PRIuSIZE" row(s) in NB "
                          "table %s", n, e->mt->name);
        } else if (e->kind == ENTRY_BAD_VALUE) {
            ds_put_format(out, "Not understood: %"PRIuSIZE" row(s) of NB "
                          "table %s with ", n, e->mt->name);
            format_thing(e, out);
            ds_put_cstr(out, " not ");
            rdb_map_format_understood(e->mc, e->item, out);
            ds_put_format(out, " (%s)", e->reason);
            format_examples(e, out);
            ds_put_char(out, '\n');
            continue;
        } else {
            ds_put_format(out, "Not compiled: %"PRIuSIZE" row(s) of NB "
                          "table %s with ", n, e->mt->name);
            format_thing(e, out);
        }
        ds_put_format(out, " (%s%s)",
                      (e->policy == RDB_MAP_LATER
                       ? "stock 23.03 ignores it too: " : ""), e->reason);
        format_examples(e, out);
        ds_put_char(out, '\n');
    }
}
