/* Writing integers in decimal without printf.
 *
 * northd writes a number into every SB row it inserts, into the SB name of
 * every port group on every switch, and into the validation key of most
 * ACL matches; ds_put_format() would be most of the cost of each. */
#ifndef LIB_DECIMAL_H
#define LIB_DECIMAL_H 1

#include <stdint.h>

#include "openvswitch/dynamic-string.h"

#define DECIMAL_BUF_SIZE 24

/* Writes 'v' in decimal, as "%"PRId64 would, at the end of 'buf'; returns
 * where it starts (it ends at buf + DECIMAL_BUF_SIZE, without a null). */
static inline char *
decimal_format(char buf[DECIMAL_BUF_SIZE], int64_t v)
{
    char *p = buf + DECIMAL_BUF_SIZE;
    uint64_t u = v < 0 ? -(uint64_t) v : (uint64_t) v;
    do {
        *--p = '0' + u % 10;
        u /= 10;
    } while (u);
    if (v < 0) {
        *--p = '-';
    }
    return p;
}

/* Appends 'v' in decimal to 'ds', as "%"PRId64 would. */
static inline void
decimal_put(struct ds *ds, int64_t v)
{
    char buf[DECIMAL_BUF_SIZE];
    char *p = decimal_format(buf, v);
    ds_put_buffer(ds, p, buf + DECIMAL_BUF_SIZE - p);
}

#endif /* lib/decimal.h */
