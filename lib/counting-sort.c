/* Sorting by small integer keys; see counting-sort.h. */
#include <config.h>
#include "lib/counting-sort.h"

#include <string.h>

#include "util.h"

void
counting_sort(void *base_, size_t n, size_t size, size_t n_keys,
              size_t (*key)(const void *elem))
{
    if (n < 2) {
        return;
    }
    char *base = base_;

    /* 'start[k]' becomes where the first element of key 'k' goes. */
    size_t *start = xcalloc(n_keys + 1, sizeof *start);
    for (size_t i = 0; i < n; i++) {
        size_t k = key(base + i * size);
        ovs_assert(k < n_keys);
        start[k + 1]++;
    }
    for (size_t k = 1; k <= n_keys; k++) {
        start[k] += start[k - 1];
    }
    char *sorted = xmalloc(n * size);
    for (size_t i = 0; i < n; i++) {
        const char *elem = base + i * size;
        memcpy(sorted + start[key(elem)]++ * size, elem, size);
    }
    memcpy(base, sorted, n * size);
    free(sorted);
    free(start);
}
