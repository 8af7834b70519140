/* Interned strings; see strpool.h. */
#include <config.h>
#include "northd/strpool.h"

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
    if (!s) {
        return NULL;
    }
    uint32_t hash = hash_string(s, 0);
    struct pooled *p;
    HMAP_FOR_EACH_WITH_HASH (p, node, hash, &pool) {
        if (!strcmp(p->s, s)) {
            p->refcount++;
            return p->s;
        }
    }
    size_t n = strlen(s) + 1;
    p = xmalloc(sizeof *p + n);
    p->refcount = 1;
    memcpy(p->s, s, n);
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
