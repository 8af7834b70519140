/* Pools of fixed-size records; see objpool.h. */
#include <config.h>
#include "lib/objpool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "openvswitch/util.h"
#include "simap.h"
#include "util.h"

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define OBJPOOL_ON_VALGRIND() RUNNING_ON_VALGRIND
#endif
#endif
#ifndef OBJPOOL_ON_VALGRIND
#define OBJPOOL_ON_VALGRIND() 0
#endif

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define OBJPOOL_POISON(P, N) ASAN_POISON_MEMORY_REGION(P, N)
#define OBJPOOL_UNPOISON(P, N) ASAN_UNPOISON_MEMORY_REGION(P, N)
#else
#define OBJPOOL_POISON(P, N) ((void) (P), (void) (N))
#define OBJPOOL_UNPOISON(P, N) ((void) (P), (void) (N))
#endif

enum objpool_mode {
    OBJPOOL_BLOCKS = 1,         /* Records from the pool's blocks. */
    OBJPOOL_MALLOC,             /* Each record malloc()ed (valgrind). */
};

/* Blocks start small, so that a pool of a few records costs little, and
 * double up to this. */
#define OBJPOOL_MIN_BLOCK 4096
#define OBJPOOL_MAX_BLOCK (1024 * 1024)

/* A block's first word links it to the pool's older blocks, its second
 * is its size. */
#define OBJPOOL_BLOCK_HEADER 16

static struct objpool *pools;   /* Pools in use, for memory reports. */

static void
objpool_start(struct objpool *pool)
{
    ovs_assert(pool->size >= sizeof(void *) && !(pool->size % 8));
    pool->mode = OBJPOOL_ON_VALGRIND() ? OBJPOOL_MALLOC : OBJPOOL_BLOCKS;
    pool->next_pool = pools;
    pools = pool;
}

void
objpool_init(struct objpool *pool, size_t size, const char *name)
{
    *pool = (struct objpool) {
        .size = ROUND_UP(MAX(size, sizeof(void *)), 8),
        .name = name,
    };
}

static void
free_blocks(struct objpool *pool)
{
    while (pool->blocks) {
        char *block = pool->blocks;
        pool->blocks = *(void **) block;
        /* The allocator may reuse what was poisoned here. */
        OBJPOOL_UNPOISON(block, ((size_t *) block)[1]);
        free(block);
    }
    pool->free = pool->next = pool->end = NULL;
    pool->block_size = pool->bytes = 0;
}

void
objpool_destroy(struct objpool *pool)
{
    if (!pool->mode) {
        return;
    }
    ovs_assert(!pool->n_live);
    for (struct objpool **p = &pools; *p; p = &(*p)->next_pool) {
        if (*p == pool) {
            *p = pool->next_pool;
            break;
        }
    }
    free_blocks(pool);
    pool->mode = 0;
}

void
objpool_trim(struct objpool *pool)
{
    if (pool->mode == OBJPOOL_BLOCKS && !pool->n_live) {
        free_blocks(pool);
    }
}

static void
objpool_new_block(struct objpool *pool)
{
    size_t size = (pool->block_size ? 2 * pool->block_size
                   : OBJPOOL_MIN_BLOCK);
    size = MIN(size, pool->max_block ? pool->max_block : OBJPOOL_MAX_BLOCK);
    size = MAX(size, OBJPOOL_BLOCK_HEADER + pool->size);
    char *block = xmalloc(size);
    *(void **) block = pool->blocks;
    ((size_t *) block)[1] = size;
    pool->blocks = block;
    pool->block_size = size;
    pool->bytes += size;
    pool->next = block + OBJPOOL_BLOCK_HEADER;
    pool->end = block + size;
    OBJPOOL_POISON(pool->next, pool->end - pool->next);
}

void *
objpool_alloc(struct objpool *pool)
{
    if (!pool->mode) {
        objpool_start(pool);
    }
    pool->n_live++;
    if (pool->mode == OBJPOOL_MALLOC) {
        return xmalloc(pool->size);
    }

    void *p = pool->free;
    if (p) {
        OBJPOOL_UNPOISON(p, pool->size);
        pool->free = *(void **) p;
        return p;
    }
    if ((size_t) (pool->end - pool->next) < pool->size) {
        objpool_new_block(pool);
    }
    p = pool->next;
    pool->next += pool->size;
    OBJPOOL_UNPOISON(p, pool->size);
    return p;
}

void *
objpool_zalloc(struct objpool *pool)
{
    void *p = objpool_alloc(pool);
    memset(p, 0, pool->size);
    return p;
}

void
objpool_free(struct objpool *pool, void *p)
{
    if (!p) {
        return;
    }
    ovs_assert(pool->mode && pool->n_live);
    pool->n_live--;
    if (pool->mode == OBJPOOL_MALLOC) {
        free(p);
        return;
    }
    *(void **) p = pool->free;
    pool->free = p;
    OBJPOOL_POISON(p, pool->size);
}

/* The pools of objpool_sized_alloc(), by size / 8 - 1.  Their blocks stop
 * growing at 64 kB: each pool's newest block is part empty, and there are
 * 64 of them. */
static struct objpool sized_pools[OBJPOOL_SIZED_MAX / 8];

static struct objpool *
sized_pool(size_t size)
{
    size_t i = (MAX(size, 1) - 1) / 8;
    struct objpool *pool = &sized_pools[i];
    if (!pool->size) {
        objpool_init(pool, (i + 1) * 8, "objpool-sized");
        pool->max_block = 64 * 1024;
    }
    return pool;
}

void *
objpool_sized_alloc(size_t size)
{
    return (size > OBJPOOL_SIZED_MAX ? xmalloc(size)
            : objpool_alloc(sized_pool(size)));
}

void
objpool_sized_free(void *p, size_t size)
{
    if (size > OBJPOOL_SIZED_MAX) {
        free(p);
    } else {
        objpool_free(sized_pool(size), p);
    }
}

void
objpool_get_memory_usage(struct simap *usage)
{
    for (const struct objpool *pool = pools; pool; pool = pool->next_pool) {
        char *name = xasprintf("%s-kB", pool->name);
        simap_increase(usage, name, pool->bytes / 1024);
        free(name);
        simap_increase(usage, pool->name, pool->n_live);
    }
}
