/* A fast hash of in-memory text, for hash tables within one process.
 *
 * northd hashes every flow's match and actions, and interns hundreds of
 * thousands of strings (lib/strpool.h): OVS's hash_bytes() takes four
 * bytes and a murmur round at a time, this takes eight bytes and one
 * multiplication.  It only places things in hmaps; it is never stored or
 * compared between processes, and (unlike lib/rdb.h's keyed hashes) not
 * meant to resist crafted input beyond what an hmap's chains tolerate. */
#ifndef LIB_TEXT_HASH_H
#define LIB_TEXT_HASH_H 1

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Adds the 'n' bytes of 's' to 'h'. */
static inline uint64_t
text_hash(const void *s_, size_t n, uint64_t h)
{
    const char *s = s_;
    const uint64_t k = UINT64_C(0x9e3779b97f4a7c15);
    for (; n >= 8; s += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * k;
        h ^= h >> 29;
    }
    uint64_t w = (uint64_t) n << 56;
    memcpy(&w, s, n);
    h = (h ^ w) * k;
    return h ^ (h >> 29);
}

/* 'h' folded to the 32 bits an hmap uses. */
static inline uint32_t
text_hash_fold(uint64_t h)
{
    return h ^ (h >> 32);
}

#endif /* lib/text-hash.h */
