/* The map of a replica's database; see rdb-map.h. */
#include <config.h>
#include "lib/rdb-map.h"

#include <string.h>
#include <strings.h>

#include "lib/mappack.h"
#include "lib/rdb.h"
#include "openvswitch/dynamic-string.h"
#include "smap.h"
#include "util.h"

const struct rdb_map_table *
rdb_map_get_table(const struct rdb_map *map, const struct rdb_table_class *tc)
{
    return map->by_class[tc->index];
}

const struct rdb_map_table *
rdb_map_find_table(const struct rdb_map *map, const char *name)
{
    for (size_t i = 0; i < map->n_tables; i++) {
        if (!strcmp(map->tables[i].name, name)) {
            return &map->tables[i];
        }
    }
    return NULL;
}

const struct rdb_map_column *
rdb_map_find_column(const struct rdb_map_table *mt, const char *name)
{
    for (size_t i = 0; i < mt->n_columns; i++) {
        if (!strcmp(mt->columns[i].name, name)) {
            return &mt->columns[i];
        }
    }
    return NULL;
}

static const void *
column_member(const struct rdb_row *row, const struct rdb_map_table *mt,
              const struct rdb_map_column *mc)
{
    return (const char *) row + mt->tc->columns[mc->col].offset;
}

/* The value of 'key' in map column 'mc' of 'row' (a replicated map
 * column), or NULL if it has none.  A packed map's value is kept in
 * 'scratch', another's is the row's own. */
const char *
rdb_map_column_get(const struct rdb_row *row, const struct rdb_map_table *mt,
                   const struct rdb_map_column *mc, const char *key,
                   struct ds *scratch)
{
    const struct rdb_column_class *c = &mt->tc->columns[mc->col];
    const void *m = column_member(row, mt, mc);
    switch (c->storage) {
    case RDB_S_SMAP:
        return smap_get(m, key);
    case RDB_S_SHARED_MAP:
        return smap_get(*(const struct smap *const *) m, key);
    case RDB_S_PACKED_MAP:
        return mappack_find(*(const struct strpack *const *) m, key, scratch);
    case RDB_S_SCALAR:
    case RDB_S_OPTIONAL:
    case RDB_S_ARRAY:
    case RDB_S_HASHED:
    default:
        OVS_NOT_REACHED();
    }
}

/* What stands for the map in column 'mc' of 'row': rows whose maps are
 * shared or packed and equal have the same one. */
const void *
rdb_map_column_map_id(const struct rdb_row *row,
                      const struct rdb_map_table *mt,
                      const struct rdb_map_column *mc)
{
    const struct rdb_column_class *c = &mt->tc->columns[mc->col];
    const void *m = column_member(row, mt, mc);
    ovs_assert(c->storage == RDB_S_SMAP || c->storage == RDB_S_SHARED_MAP
               || c->storage == RDB_S_PACKED_MAP);
    return c->storage == RDB_S_SMAP ? m : *(const void *const *) m;
}

/* The string column 'mc' of 'row' (a replicated column of exactly or at
 * most one string, not packed): "" for none. */
const char *
rdb_map_column_string(const struct rdb_row *row,
                      const struct rdb_map_table *mt,
                      const struct rdb_map_column *mc)
{
    const struct rdb_column_class *c = &mt->tc->columns[mc->col];
    const void *m = column_member(row, mt, mc);
    ovs_assert(c->type == RDB_STRING && !c->packed
               && (c->storage == RDB_S_SCALAR
                   || c->storage == RDB_S_OPTIONAL));
    if (c->compact) {
        return rdb_enum_string(mt->tc, mc->col, *(const uint8_t *) m);
    }
    const char *s = *(const char *const *) m;
    return s ? s : "";
}

static bool
value_in(const char *const *list, const char *v)
{
    for (; *list; list++) {
        if (!strcmp(*list, v)) {
            return true;
        }
    }
    return false;
}

bool
rdb_map_item_value_reported(const struct rdb_map_item *k, const char *v)
{
    return ((!k->when || value_in(k->when, v))
            && (!k->unless || !value_in(k->unless, v)));
}

bool
rdb_map_value_understood(const struct rdb_map_column *mc,
                         const struct rdb_map_item *k, const char *v)
{
    enum rdb_map_values kind = k ? k->values : mc->values_kind;
    int i;
    switch (kind) {
    case RDB_MAP_VALUES_ANY:
        return true;
    case RDB_MAP_VALUES_BOOL:
        /* As smap_get_bool() reads them. */
        return !strcasecmp(v, "true") || !strcasecmp(v, "false");
    case RDB_MAP_VALUES_INT:
        return str_to_int(v, 10, &i);
    case RDB_MAP_VALUES_UINT:
        return str_to_int(v, 10, &i) && i >= 0;
    case RDB_MAP_VALUES_LISTED:
        if (k) {
            return value_in(k->known, v);
        }
        for (size_t j = 0; j < mc->n_values; j++) {
            if (!strcmp(mc->values[j].name, v)) {
                return true;
            }
        }
        return false;
    default:
        OVS_NOT_REACHED();
    }
}

void
rdb_map_format_understood(const struct rdb_map_column *mc,
                          const struct rdb_map_item *k, struct ds *s)
{
    enum rdb_map_values kind = k ? k->values : mc->values_kind;
    switch (kind) {
    case RDB_MAP_VALUES_ANY:
        ds_put_cstr(s, "anything");
        break;
    case RDB_MAP_VALUES_BOOL:
        ds_put_cstr(s, "true or false");
        break;
    case RDB_MAP_VALUES_INT:
        ds_put_cstr(s, "an integer");
        break;
    case RDB_MAP_VALUES_UINT:
        ds_put_cstr(s, "a non-negative integer");
        break;
    case RDB_MAP_VALUES_LISTED:
        ds_put_cstr(s, "one of");
        if (k) {
            for (const char *const *p = k->known; *p; p++) {
                ds_put_format(s, "%s \"%s\"", p == k->known ? "" : ",",
                              *p);
            }
        } else {
            for (size_t j = 0; j < mc->n_values; j++) {
                ds_put_format(s, "%s \"%s\"", j ? "," : "",
                              mc->values[j].name);
            }
        }
        break;
    default:
        OVS_NOT_REACHED();
    }
}

static bool
key_recomputes(const struct rdb_map_item *k)
{
    return (k->policy == RDB_MAP_RECOMPUTE
            || k->policy == RDB_MAP_RECOMPUTE_IF_SET);
}

/* True if column 'mc' of 'row' holds something other than its default
 * (empty set or map, none, "", 0, false).  For a map with known keys that
 * recompute, whether it has one of those. */
bool
rdb_map_column_is_set(const struct rdb_row *row,
                      const struct rdb_map_table *mt,
                      const struct rdb_map_column *mc)
{
    if (mc->col < 0) {
        return false;
    }
    const struct rdb_column_class *c = &mt->tc->columns[mc->col];
    const void *m = column_member(row, mt, mc);
    switch (c->storage) {
    case RDB_S_ARRAY:
        return *(const size_t *) ((const char *) row + c->n_offset) != 0;
    case RDB_S_OPTIONAL:
        return *(const void *const *) m != NULL;
    case RDB_S_SMAP:
    case RDB_S_SHARED_MAP:
    case RDB_S_PACKED_MAP: {
        /* A map with keys that recompute: set if it has one that is
         * "recompute-if-set" (a "recompute" key recomputes only when it
         * changes: a new row that sets it is compiled like any other). */
        struct ds scratch = DS_EMPTY_INITIALIZER;
        bool any_key = false;
        bool set = false;
        for (size_t i = 0; !set && i < mc->n_keys; i++) {
            if (key_recomputes(&mc->keys[i])) {
                any_key = true;
                set = (mc->keys[i].policy == RDB_MAP_RECOMPUTE_IF_SET
                       && rdb_map_column_get(row, mt, mc, mc->keys[i].name,
                                             &scratch));
            }
        }
        ds_destroy(&scratch);
        if (set || any_key) {
            return set;
        }
        return (c->storage == RDB_S_SMAP ? !smap_is_empty(m)
                : c->storage == RDB_S_SHARED_MAP
                ? !smap_is_empty(*(const struct smap *const *) m)
                : *(const struct strpack *const *) m != NULL);
    }
    case RDB_S_SCALAR:
        if (c->compact) {
            return *(const uint8_t *) m != 0;
        } else if (c->packed || c->ref_table) {
            return *(const void *const *) m != NULL;
        } else if (c->type == RDB_STRING) {
            const char *s = *(const char *const *) m;
            return s && s[0];
        } else if (c->type == RDB_BOOLEAN) {
            return *(const bool *) m;
        } else if (c->type == RDB_INTEGER && c->int32) {
            return *(const int32_t *) m != 0;
        } else if (c->type == RDB_INTEGER && c->uint32) {
            return *(const uint32_t *) m != 0;
        } else if (c->type == RDB_INTEGER) {
            return *(const int64_t *) m != 0;
        }
        return true;
    case RDB_S_HASHED:
    default:
        return true;
    }
}

static bool
key_is_free(const struct rdb_map_column *mc, const char *key)
{
    for (size_t i = 0; i < mc->n_keys; i++) {
        const struct rdb_map_item *k = &mc->keys[i];
        if (!strcmp(k->name, key)) {
            return (k->policy == RDB_MAP_UNSUPPORTED
                    || k->policy == RDB_MAP_LATER
                    || k->policy == RDB_MAP_IGNORED);
        }
    }
    return false;
}

/* Of the columns in 'cols' of modified row 'row', the maps that changed
 * only in keys that are not compiled (a column the replica records key
 * changes of: rdb_row_get_map_delta()). */
static uint64_t
free_key_changes(const struct rdb_row *row, const struct rdb_map_table *mt,
                 uint64_t cols)
{
    uint64_t free = 0;
    for (size_t i = 0; i < mt->n_columns && cols; i++) {
        const struct rdb_map_column *mc = &mt->columns[i];
        if (mc->col < 0 || !(cols & (UINT64_C(1) << mc->col))
            || !mt->tc->columns[mc->col].key_deltas) {
            continue;
        }
        char *const *keys;
        size_t n;
        if (!rdb_row_get_map_delta(row, mc->col, &keys, &n)) {
            continue;
        }
        bool all_free = true;
        for (size_t j = 0; j < n && all_free; j++) {
            all_free = key_is_free(mc, keys[j]);
        }
        if (all_free) {
            free |= UINT64_C(1) << mc->col;
        }
    }
    return free;
}

/* Walks the changes tracked in 'db' and returns true, with '*reason' set,
 * if one of them needs a full recompute by 'map': a change to a table
 * that recomputes (in a column that is not free), or to a recomputing
 * column of a table a handler follows.  New and deleted rows of followed
 * tables are left to their handlers, and changes to tables and columns
 * that are not compiled cost nothing. */
bool
rdb_map_changes_need_recompute(const struct rdb *db,
                               const struct rdb_map *map,
                               const char **reason)
{
    for (size_t i = 0; i < map->n_tables; i++) {
        const struct rdb_map_table *mt = &map->tables[i];
        if (!mt->tc || (mt->policy != RDB_MAP_RECOMPUTE
                        && (mt->policy != RDB_MAP_HANDLER
                            || !mt->recompute))) {
            /* Nothing in it recomputes: not even a look at a million
             * tracked ACLs. */
            continue;
        }
        for (const struct rdb_row *row = rdb_track_first(db, mt->tc); row;
             row = rdb_track_next(row)) {
            if (mt->policy == RDB_MAP_RECOMPUTE
                && (rdb_row_is_new(row) || rdb_row_is_deleted(row))) {
                *reason = mt->name;
                return true;
            }
            if (rdb_row_is_new(row) || rdb_row_is_deleted(row)) {
                continue;
            }
            uint64_t changed = rdb_row_updated_columns(row);
            uint64_t bad = changed & (mt->policy == RDB_MAP_RECOMPUTE
                                      ? ~mt->free : mt->recompute);
            bad &= ~free_key_changes(row, mt, bad);
            if (bad) {
                *reason = mt->name;
                for (size_t j = 0; j < mt->n_columns; j++) {
                    int col = mt->columns[j].col;
                    if (col >= 0 && bad & (UINT64_C(1) << col)) {
                        *reason = mt->columns[j].change;
                        break;
                    }
                }
                return true;
            }
        }
    }
    return false;
}

/* True, with '*reason' set, if new row 'row' of 'mt' sets a column whose
 * policy is to recompute when set. */
bool
rdb_map_new_row_needs_recompute(const struct rdb_row *row,
                                const struct rdb_map_table *mt,
                                const char **reason)
{
    for (size_t i = 0; i < mt->n_columns; i++) {
        const struct rdb_map_column *mc = &mt->columns[i];
        if (mc->policy == RDB_MAP_RECOMPUTE_IF_SET
            && rdb_map_column_is_set(row, mt, mc)) {
            *reason = mc->change;
            return true;
        }
    }
    return false;
}

/* True if maps 'a' and 'b' of column 'mc' differ in a key whose change
 * recomputes ('policy' RDB_MAP_RECOMPUTE: that or RECOMPUTE_IF_SET), or
 * whose policy is exactly 'policy' otherwise. */
bool
rdb_map_keys_differ(const struct rdb_map_column *mc,
                    enum rdb_map_policy policy,
                    const struct smap *a, const struct smap *b)
{
    for (size_t i = 0; i < mc->n_keys; i++) {
        const struct rdb_map_item *k = &mc->keys[i];
        if (policy == RDB_MAP_RECOMPUTE ? key_recomputes(k)
            : k->policy == policy) {
            const char *va = smap_get(a, k->name);
            const char *vb = smap_get(b, k->name);
            if (va ? !vb || strcmp(va, vb) : vb != NULL) {
                return true;
            }
        }
    }
    return false;
}
