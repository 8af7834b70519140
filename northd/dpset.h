/* Shared datapath sets: one counted copy of each distinct set of switches.
 *
 * An ACL of a port group applies to the switches the group spans, and so
 * do the owner record of its compile and each of its flows.  With a
 * bitmap each, those copies were a fifth of northd's memory at 100,000
 * ACLs over 1,000 switches (128 bytes a copy), nearly all of them equal.
 * A dpset is interned by content in one process-wide pool, so everyone
 * holding the same set holds the same object.
 *
 * A dpset is immutable while it is shared.  The functions that "change"
 * one take the caller's reference and return a reference to the result,
 * changing the object in place only when the caller held the only
 * reference.
 *
 * The pool is the process's on purpose, like lib/strpool.h's: two builds
 * in one process (northd's check of its incremental passes, northd.h)
 * share sets as everyone else does, and since a shared set never changes,
 * neither can see the other's changes through it. */

#ifndef NORTHD_DPSET_H
#define NORTHD_DPSET_H 1

#include <stddef.h>
#include <stdint.h>
#include "openvswitch/hmap.h"

struct dpset {
    struct hmap_node node;          /* In the pool, by content. */
    uint32_t refcount;
    uint32_t n_longs;               /* Width of 'map'. */
    uint32_t n;                     /* Datapaths in the set. */
    unsigned long map[];
};

/* Returns a reference to the set whose bitmap of 'n_bits' bits is 'map'. */
const struct dpset *dpset_intern(const unsigned long *map, size_t n_bits);

/* Returns another reference to 's' (which may be NULL). */
const struct dpset *dpset_ref(const struct dpset *s);

/* Gives back a reference ('s' may be NULL). */
void dpset_unref(const struct dpset *s);

/* Returns a reference to 's' with datapath 'dp' added ('value') or
 * removed; the caller's reference to 's' is consumed. */
const struct dpset *dpset_with(const struct dpset *s, size_t dp, bool value);

/* Returns a reference to 's' less the datapaths in 'map' (of the same
 * width), consuming the caller's reference; NULL if nothing is left. */
const struct dpset *dpset_minus(const struct dpset *s,
                                const unsigned long *map);

/* The distinct sets held, and their total bytes, for memory reports. */
size_t dpset_pool_count(void);
size_t dpset_pool_bytes(void);

#endif /* northd/dpset.h */
