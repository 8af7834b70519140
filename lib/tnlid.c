/* Tunnel key allocation; see tnlid.h. */
#include <config.h>
#include "lib/tnlid.h"

#include "hash.h"
#include "util.h"

struct tnlid_node {
    struct hmap_node hmap_node;
    uint32_t key;
};

void
tnlid_set_init(struct tnlid_set *set, uint32_t min, uint32_t max)
{
    ovs_assert(min > 0 && min <= max);
    hmap_init(&set->keys);
    set->min = min;
    set->max = max;
    set->hint = min - 1;
}

void
tnlid_set_destroy(struct tnlid_set *set)
{
    if (set) {
        struct tnlid_node *node;
        HMAP_FOR_EACH_POP (node, hmap_node, &set->keys) {
            free(node);
        }
        hmap_destroy(&set->keys);
    }
}

bool
tnlid_in_use(const struct tnlid_set *set, uint32_t key)
{
    const struct tnlid_node *node;
    HMAP_FOR_EACH_IN_BUCKET (node, hmap_node, hash_int(key, 0), &set->keys) {
        if (node->key == key) {
            return true;
        }
    }
    return false;
}

bool
tnlid_reserve(struct tnlid_set *set, uint32_t key)
{
    if (tnlid_in_use(set, key)) {
        return false;
    }
    struct tnlid_node *node = xmalloc(sizeof *node);
    node->key = key;
    hmap_insert(&set->keys, &node->hmap_node, hash_int(key, 0));
    return true;
}

uint32_t
tnlid_allocate(struct tnlid_set *set)
{
    uint64_t range = (uint64_t) set->max - set->min + 1;
    uint32_t key = set->hint;
    for (uint64_t i = 0; i < range; i++) {
        key = (key >= set->max || key < set->min) ? set->min : key + 1;
        if (tnlid_reserve(set, key)) {
            set->hint = key;
            return key;
        }
    }
    return 0;
}
