/* Looking up an sset's names in an shash without hashing them again.
 *
 * OVS's sset and shash hash a name the same way (hash_string(name, 0)), so
 * the hash an sset node already holds finds the same name in any shash.
 * northd walks the address set and port group names of every ACL (an
 * sset per ACL) against several maps by name; hashing each name once per
 * map would be most of the cost of those lookups. */
#ifndef LIB_SSET_SHASH_H
#define LIB_SSET_SHASH_H 1

#include <string.h>

#include "openvswitch/shash.h"
#include "sset.h"

/* Returns the node of 'sh' named 'name', whose hash_string(name, 0) is
 * 'hash', or NULL. */
static inline struct shash_node *
shash_find_hashed(const struct shash *sh, const char *name, uint32_t hash)
{
    struct shash_node *node;
    HMAP_FOR_EACH_WITH_HASH (node, node, hash, &sh->map) {
        if (!strcmp(node->name, name)) {
            return node;
        }
    }
    return NULL;
}

/* Returns the node of 'sh' named as 'sn', or NULL. */
static inline struct shash_node *
sset_shash_find(const struct shash *sh, const struct sset_node *sn)
{
    return shash_find_hashed(sh, sn->name, sn->hmap_node.hash);
}

#endif /* lib/sset-shash.h */
