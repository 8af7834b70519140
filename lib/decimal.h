/* Writing integers in decimal without printf.
 *
 * northd writes a number into every SB row it inserts, into the SB name of
 * every port group on every switch, and into the validation key of most
 * ACL matches; ds_put_format() would be most of the cost of each. */
#ifndef LIB_DECIMAL_H
#define LIB_DECIMAL_H 1

#include <stdint.h>

#include "openvswitch/dynamic-string.h"

/* Appends 'v' in decimal to 'ds', as "%"PRId64 would. */
static inline void
decimal_put(struct ds *ds, int64_t v)
{
    char buf[24];
    char *p = buf + sizeof buf;
    uint64_t u = v < 0 ? -(uint64_t) v : (uint64_t) v;
    do {
        *--p = '0' + u % 10;
        u /= 10;
    } while (u);
    if (v < 0) {
        *--p = '-';
    }
    ds_put_buffer(ds, p, buf + sizeof buf - p);
}

#endif /* lib/decimal.h */
