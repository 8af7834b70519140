/* Packed string maps: a string-to-string map kept as one packed string
 * (lib/strpack.h), for map columns that northd holds for every row but
 * reads rarely.
 *
 * Neutron puts eight or so external_ids on every port, and stock copies
 * them to the port's Port_Binding: as two 'struct smap's (the NB row's and
 * the SB row's) they cost about 800 bytes a port, at 10,000 ports more
 * than northd's logical flows.  Packed, the pairs take one allocation of
 * about a quarter of that, and since packed strings are interned, a
 * Port_Binding whose map equals its port's (the usual case) shares the
 * port's copy.
 *
 * The packed text is the pairs sorted by key, each "KEY \x1f VALUE \x1e",
 * with \x1b, \x1e and \x1f in keys and values preceded by \x1b.  Equal
 * maps give equal text, so that two holders of one map hold one pointer.
 * NULL is the empty map.  Not thread-safe, like lib/strpack.h. */

#ifndef LIB_MAPPACK_H
#define LIB_MAPPACK_H 1

#include <stdbool.h>
#include <stddef.h>

struct ds;
struct smap;
struct strpack;

/* Returns the pool's packed copy of 'm' (a new reference, which
 * strpack_put() gives back), NULL if 'm' is empty. */
const struct strpack *mappack_get(const struct smap *m);

/* The same for the 'n' pairs keys[i] = values[i] (no two keys alike). */
const struct strpack *mappack_get_pairs(const char *const *keys,
                                        const char *const *values, size_t n);

/* Adds the pairs of 'p' to 'm' (replacing any of the same key). */
void mappack_to_smap(const struct strpack *p, struct smap *m);

/* The value of 'key' in 'p', kept in 'scratch', or NULL if it has none. */
const char *mappack_find(const struct strpack *p, const char *key,
                         struct ds *scratch);

#endif /* lib/mappack.h */
