/* Interned datapath sets; see dpset.h. */
#include <config.h>
#include "northd/dpset.h"

#include <string.h>

#include "bitmap.h"
#include "coverage.h"
#include "lib/text-hash.h"
#include "util.h"

COVERAGE_DEFINE(dpset_created);

/* Every live set, by content.  Sets of different widths (from before and
 * after a recompute with more datapaths) never compare equal. */
static struct hmap pool = HMAP_INITIALIZER(&pool);
static size_t pool_bytes;

static uint32_t
map_hash(const unsigned long *map, size_t n_longs)
{
    return text_hash_fold(text_hash(map, n_longs * sizeof *map, n_longs));
}

static struct dpset *
pool_find(const unsigned long *map, size_t n_longs, uint32_t hash)
{
    struct dpset *s;
    HMAP_FOR_EACH_WITH_HASH (s, node, hash, &pool) {
        if (s->n_longs == n_longs
            && !memcmp(s->map, map, n_longs * sizeof *map)) {
            return s;
        }
    }
    return NULL;
}

static size_t
dpset_size(size_t n_longs)
{
    return sizeof(struct dpset) + n_longs * sizeof(unsigned long);
}

static size_t
map_count(const unsigned long *map, size_t n_longs)
{
    size_t n = 0;
    for (size_t i = 0; i < n_longs; i++) {
        n += count_1bits(map[i]);
    }
    return n;
}

static const struct dpset *
intern_longs(const unsigned long *map, size_t n_longs)
{
    uint32_t hash = map_hash(map, n_longs);
    struct dpset *s = pool_find(map, n_longs, hash);
    if (s) {
        s->refcount++;
        return s;
    }
    s = xmalloc(dpset_size(n_longs));
    s->refcount = 1;
    s->n_longs = n_longs;
    memcpy(s->map, map, n_longs * sizeof *map);
    s->n = map_count(map, n_longs);
    hmap_insert(&pool, &s->node, hash);
    pool_bytes += dpset_size(n_longs);
    COVERAGE_INC(dpset_created);
    return s;
}

const struct dpset *
dpset_intern(const unsigned long *map, size_t n_bits)
{
    return intern_longs(map, bitmap_n_longs(n_bits));
}

const struct dpset *
dpset_ref(const struct dpset *s_)
{
    struct dpset *s = CONST_CAST(struct dpset *, s_);
    if (s) {
        s->refcount++;
    }
    return s;
}

void
dpset_unref(const struct dpset *s_)
{
    struct dpset *s = CONST_CAST(struct dpset *, s_);
    if (s && !--s->refcount) {
        hmap_remove(&pool, &s->node);
        pool_bytes -= dpset_size(s->n_longs);
        free(s);
    }
}

/* Re-files 's', held only by the caller, after its map changed: it merges
 * into an equal set if there is one. */
static const struct dpset *
refile(struct dpset *s)
{
    uint32_t hash = map_hash(s->map, s->n_longs);
    struct dpset *same = pool_find(s->map, s->n_longs, hash);
    if (same) {
        pool_bytes -= dpset_size(s->n_longs);
        free(s);
        same->refcount++;
        return same;
    }
    hmap_insert(&pool, &s->node, hash);
    return s;
}

const struct dpset *
dpset_with(const struct dpset *s_, size_t dp, bool value)
{
    struct dpset *s = CONST_CAST(struct dpset *, s_);
    ovs_assert(dp < (size_t) s->n_longs * BITMAP_ULONG_BITS);
    if (bitmap_is_set(s->map, dp) == value) {
        return s;
    }
    if (s->refcount == 1) {
        /* Ours alone: change it in place (a flow gaining switches one at a
         * time would otherwise make a new set for each). */
        hmap_remove(&pool, &s->node);
        bitmap_set(s->map, dp, value);
        s->n += value ? 1 : -1;
        return refile(s);
    }
    unsigned long *map = xmemdup(s->map, s->n_longs * sizeof *map);
    bitmap_set(map, dp, value);
    const struct dpset *r = intern_longs(map, s->n_longs);
    free(map);
    dpset_unref(s);
    return r;
}

const struct dpset *
dpset_minus(const struct dpset *s_, const unsigned long *map)
{
    struct dpset *s = CONST_CAST(struct dpset *, s_);
    bool changed = false, empty = true;
    for (size_t i = 0; i < s->n_longs; i++) {
        changed |= (s->map[i] & map[i]) != 0;
        empty &= !(s->map[i] & ~map[i]);
    }
    if (empty) {
        dpset_unref(s);
        return NULL;
    }
    if (!changed) {
        return s;
    }
    unsigned long *rest = xmalloc(s->n_longs * sizeof *rest);
    for (size_t i = 0; i < s->n_longs; i++) {
        rest[i] = s->map[i] & ~map[i];
    }
    const struct dpset *r = intern_longs(rest, s->n_longs);
    free(rest);
    dpset_unref(s);
    return r;
}

size_t
dpset_pool_count(void)
{
    return hmap_count(&pool);
}

size_t
dpset_pool_bytes(void)
{
    return pool_bytes;
}
