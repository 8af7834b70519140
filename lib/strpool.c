/* Interned strings; see strpool.h. */
#include <config.h>
#include "lib/strpool.h"

#include <string.h>

#include "hash.h"
#include "openvswitch/hmap.h"
#include "util.h"

struct pooled {
    struct hmap_node node;          /* In 'pool', by hash_string(). */
    size_t refcount;
    char s[];
};

static struct hmap pool = HMAP_INITIALIZER(&pool);

const char *
strpool_get(const char *s)
{
    return s ? strpool_get_len(s, strlen(s)) : NULL;
}

const char *
strpool_get_len(const char *s, size_t n)
{
    uint32_t hash = hash_bytes(s, n, 0);
    struct pooled *p;
    HMAP_FOR_EACH_WITH_HASH (p, node, hash, &pool) {
        if (!strncmp(p->s, s, n) && !p->s[n]) {
            p->refcount++;
            return p->s;
        }
    }
    p = xmalloc(sizeof *p + n + 1);
    p->refcount = 1;
    memcpy(p->s, s, n);
    p->s[n] = '\0';
    hmap_insert(&pool, &p->node, hash);
    return p->s;
}

void
strpool_put(const char *s)
{
    if (s) {
        struct pooled *p = CONTAINER_OF(CONST_CAST(char *, s), struct pooled,
                                         s);
        if (!--p->refcount) {
            hmap_remove(&pool, &p->node);
            free(p);
        }
    }
}

uint32_t
strpool_hash(const char *s)
{
    return CONTAINER_OF(CONST_CAST(char *, s), struct pooled, s)->node.hash;
}

size_t
strpool_count(void)
{
    return hmap_count(&pool);
}
