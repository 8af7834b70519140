/* Interned strings; see strpool.h. */
#include <config.h>
#include "lib/strpool.h"

#include <stddef.h>
#include <string.h>

#include "hash.h"
#include "lib/jscan.h"
#include "lib/objpool.h"
#include "lib/text-hash.h"
#include "openvswitch/hmap.h"
#include "util.h"

struct pooled {
    struct hmap_node node;          /* In 'pool', by text_hash(). */
    uint32_t refcount;
    uint32_t name_hash;             /* hash_string(s, 0), once asked for;
                                     * 0 until then (or if it is 0). */
    uint32_t len : 30;              /* strlen(s): writers of the SB copy
                                     * the string without scanning for its
                                     * end, a cache miss on a cold one. */
    uint32_t json : 2;              /* enum pooled_json. */
    char s[];
};

/* 1.5 million of them at a million ACLs, from pools by size
 * (lib/objpool.h): with its 28-byte header, an ACL's 114-byte match takes
 * 144 bytes there, where malloc (mimalloc's size classes, or glibc's
 * header and rounding to 16) took 160. */
static size_t
pooled_size(size_t len)
{
    return offsetof(struct pooled, s) + len + 1;
}

/* Whether a JSON string can hold the string as it is: a flow's actions
 * and the pieces of its match are written into the SB many times, and are
 * looked at once. */
enum pooled_json {
    POOLED_JSON_UNKNOWN,
    POOLED_JSON_PLAIN,
    POOLED_JSON_ESCAPED,
};

static struct hmap pool = HMAP_INITIALIZER(&pool);

static struct pooled *
pooled_of(const char *s)
{
    return CONTAINER_OF(CONST_CAST(char *, s), struct pooled, s);
}

const char *
strpool_ref(const char *s)
{
    struct pooled *p = pooled_of(s);
    ovs_assert(p->refcount < UINT32_MAX);
    p->refcount++;
    return s;
}

const char *
strpool_get(const char *s)
{
    return s ? strpool_get_len(s, strlen(s)) : NULL;
}

const char *
strpool_get_len(const char *s, size_t n)
{
    uint32_t hash = text_hash_fold(text_hash(s, n, n));
    struct pooled *p;
    HMAP_FOR_EACH_WITH_HASH (p, node, hash, &pool) {
        if (!strncmp(p->s, s, n) && !p->s[n]) {
            return strpool_ref(p->s);
        }
    }
    ovs_assert(n < (1u << 30));
    p = objpool_sized_alloc(pooled_size(n));
    p->refcount = 1;
    p->name_hash = 0;
    p->len = n;
    p->json = POOLED_JSON_UNKNOWN;
    memcpy(p->s, s, n);
    p->s[n] = '\0';
    hmap_insert(&pool, &p->node, hash);
    return p->s;
}

void
strpool_put(const char *s)
{
    if (s) {
        struct pooled *p = pooled_of(s);
        if (!--p->refcount) {
            hmap_remove(&pool, &p->node);
            objpool_sized_free(p, pooled_size(p->len));
        }
    }
}

uint32_t
strpool_hash(const char *s)
{
    /* Most pooled strings are never looked up by name: hash on demand. */
    struct pooled *p = pooled_of(s);
    if (!p->name_hash) {
        p->name_hash = hash_string(p->s, 0);
    }
    return p->name_hash;
}

size_t
strpool_len(const char *s)
{
    return pooled_of(s)->len;
}

bool
strpool_is_json_plain(const char *s)
{
    struct pooled *p = pooled_of(s);
    if (p->json == POOLED_JSON_UNKNOWN) {
        p->json = (jscan_plain_prefix(p->s, p->len) == p->len
                   ? POOLED_JSON_PLAIN : POOLED_JSON_ESCAPED);
    }
    return p->json == POOLED_JSON_PLAIN;
}

size_t
strpool_count(void)
{
    return hmap_count(&pool);
}
