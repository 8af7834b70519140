/* A stable sort by small integer keys, in time linear in the number of
 * elements plus the number of keys: for the big arrays northd orders by
 * a bounded key (flows by pipeline stage before a chunked write, a port
 * group's members by datapath), where a comparison sort would cost
 * n log n. */
#ifndef LIB_COUNTING_SORT_H
#define LIB_COUNTING_SORT_H 1

#include <stddef.h>

/* Sorts the 'n' elements of 'size' bytes at 'base' by 'key'('elem'),
 * each below 'n_keys', keeping the order of elements with equal keys.
 * Uses scratch room for 'n' elements and 'n_keys' counts. */
void counting_sort(void *base, size_t n, size_t size, size_t n_keys,
                   size_t (*key)(const void *elem));

#endif /* lib/counting-sort.h */
