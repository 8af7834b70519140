/* Pools of fixed-size records: for the types northd keeps millions of.
 *
 * An allocator rounds a request up: mimalloc (which northd links) to its
 * next size class, glibc to a multiple of 16 after adding 8 bytes.  A
 * 72-byte flow takes 80 bytes either way, an 88-byte ACL state 96, and
 * there are two million flows at a million ACLs.  A pool hands out
 * records of one size from blocks it allocates, with nothing between
 * them, and keeps freed ones for reuse (it never gives memory back:
 * neither does malloc, mostly, for small chunks).
 *
 * Under valgrind, a pool uses malloc() and free() for each record, so that
 * memcheck sees every record's use and leak.  Under AddressSanitizer,
 * records are poisoned while free, so a use after free (until the record is
 * reused) or past the end of a record is reported.
 *
 * Not thread-safe, like the rest of northd. */

#ifndef LIB_OBJPOOL_H
#define LIB_OBJPOOL_H 1

#include <stddef.h>

struct objpool {
    size_t size;                /* Record size, a multiple of 8. */
    const char *name;           /* For memory reports. */
    int mode;                   /* 0 until first use, then enum objpool_mode
                                 * (objpool.c). */
    void *free;                 /* Free records, by their first word. */
    char *next, *end;           /* Unused room in the newest block. */
    void *blocks;               /* Blocks, by their first word. */
    size_t block_size;          /* Of the newest block. */
    size_t max_block;           /* Blocks grow up to this (0: 1 MB). */
    size_t n_live;              /* Records handed out, not freed. */
    size_t bytes;               /* In blocks. */
    struct objpool *next_pool;  /* In the list of pools in use. */
};

/* A pool for records of TYPE that lives as long as the process. */
#define OBJPOOL_INITIALIZER(TYPE, NAME) \
    { .size = (sizeof(TYPE) + 7) & ~(size_t) 7, .name = NAME }

/* A pool for records of 'size' bytes, reported as 'name' (a string that
 * outlives it), to be destroyed with objpool_destroy(). */
void objpool_init(struct objpool *, size_t size, const char *name);

/* Frees the pool's blocks.  Every record must have been freed first. */
void objpool_destroy(struct objpool *);

/* Gives the blocks of 'pool' back if none of its records is in use (a
 * table whose rows were all freed at once): a pool otherwise keeps them
 * for its next records.  The pool stays usable. */
void objpool_trim(struct objpool *);

/* Records of any size up to OBJPOOL_SIZED_MAX, from one pool per multiple
 * of 8 bytes, and bigger ones from malloc(): for many small objects of
 * varied sizes (pooled strings).  The caller gives back the size it asked
 * for. */
#define OBJPOOL_SIZED_MAX 512
void *objpool_sized_alloc(size_t size);
void objpool_sized_free(void *, size_t size);

/* A record of 'pool''s size, uninitialized or zeroed.  Never NULL. */
void *objpool_alloc(struct objpool *pool);
void *objpool_zalloc(struct objpool *pool);

/* Gives back 'p' (NULL: nothing), a record objpool_alloc() returned. */
void objpool_free(struct objpool *pool, void *p);

/* Adds "<name>-kB" (blocks' bytes) and "<name>" (live records) of every
 * pool used so far to 'usage' (a struct simap). */
struct simap;
void objpool_get_memory_usage(struct simap *usage);

#endif /* lib/objpool.h */
