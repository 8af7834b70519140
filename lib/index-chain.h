/* A hash index over an array that does not move, chaining elements by
 * their 32-bit position: 4 bytes of bucket per one or two elements and a
 * 32-bit "next" in each element, where an hmap costs a 16-byte node per
 * element and an 8-byte bucket.  For the one-shot indexes a full sync
 * builds of the SB rows it compares with (northd/groups-sync.c: the
 * Port_Group and Address_Set rows found in the SB after a restart).
 *
 * The caller keeps the "next" positions in its elements:
 *
 *     index_chain_init(&ic, n);
 *     for (i = 0; i < n; i++) {
 *         v[i].next = index_chain_add(&ic, hash(&v[i]), i);
 *     }
 *     for (i = index_chain_first(&ic, h); i != INDEX_CHAIN_END;
 *          i = v[i].next) {
 *         ...
 *     } */
#ifndef LIB_INDEX_CHAIN_H
#define LIB_INDEX_CHAIN_H 1

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util.h"

#define INDEX_CHAIN_END UINT32_MAX

struct index_chain {
    uint32_t *buckets;          /* 'mask' + 1 of them: first positions. */
    uint32_t mask;
};

/* Sizes 'ic' for 'n' elements (fewer than INDEX_CHAIN_END), empty. */
static inline void
index_chain_init(struct index_chain *ic, size_t n)
{
    ovs_assert(n < INDEX_CHAIN_END);
    size_t n_buckets = 1;
    while (2 * n_buckets < n) {
        n_buckets *= 2;
    }
    ic->mask = n_buckets - 1;
    ic->buckets = xmalloc(n_buckets * sizeof *ic->buckets);
    memset(ic->buckets, 0xff, n_buckets * sizeof *ic->buckets);
}

static inline void
index_chain_destroy(struct index_chain *ic)
{
    free(ic->buckets);
    ic->buckets = NULL;
}

/* Puts the element at position 'i' first in the chain of 'hash'; returns
 * the position the element's "next" is to hold. */
static inline uint32_t
index_chain_add(struct index_chain *ic, uint32_t hash, uint32_t i)
{
    uint32_t *b = &ic->buckets[hash & ic->mask];
    uint32_t next = *b;
    *b = i;
    return next;
}

/* The position of the first element in the chain of 'hash', or
 * INDEX_CHAIN_END. */
static inline uint32_t
index_chain_first(const struct index_chain *ic, uint32_t hash)
{
    return ic->buckets[hash & ic->mask];
}

#endif /* lib/index-chain.h */
