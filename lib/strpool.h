/* Interned, counted strings: one process-wide copy of each distinct
 * string.
 *
 * Logical flows repeat a few action strings ("next;", "reg0[1] = 1;
 * next;") hundreds of thousands of times, an ACL's 2-3 flows and its NB
 * row hold the same match (the replica's "pooled" columns, lib/rdb.h),
 * and many ACLs and port groups name the same sets and ports.  Each holder
 * keeps a reference to the pool's copy instead of its own, and gives it
 * back with strpool_put(); the pool frees a string with its last
 * reference.  Not thread-safe, like the rest of northd. */

#ifndef LIB_STRPOOL_H
#define LIB_STRPOOL_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Returns the pool's copy of 's', taking a reference ('s' NULL: NULL). */
const char *strpool_get(const char *s);

/* The same for the 'n' bytes at 's' (without a null byte among them). */
const char *strpool_get_len(const char *s, size_t n);

/* Takes another reference to 's', a string strpool_get() returned,
 * without looking it up.  Returns 's'. */
const char *strpool_ref(const char *s);

/* Gives back a reference taken by strpool_get() ('s' may be NULL). */
void strpool_put(const char *s);

/* The hash_string('s', 0) of a string strpool_get() returned. */
uint32_t strpool_hash(const char *s);

/* strlen('s') of a string strpool_get() returned, without reading it. */
size_t strpool_len(const char *s);

/* True if 's', a string strpool_get() returned, can be written in a JSON
 * string as it is (no '"', '\\' or control character).  Found out once. */
bool strpool_is_json_plain(const char *s);

/* The distinct strings held, for memory reports. */
size_t strpool_count(void);

#endif /* lib/strpool.h */
