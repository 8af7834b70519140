/* Tunnel key allocation.
 *
 * Datapaths and ports carry tunnel keys that hypervisors put on the wire, so
 * they must stay the same across northd restarts and NB churn.  Callers
 * first reserve every key already in use (or requested), then allocate new
 * ones for what is left. */
#ifndef TNLID_H
#define TNLID_H 1

#include <stdbool.h>
#include <stdint.h>
#include "openvswitch/hmap.h"

struct tnlid_set {
    struct hmap keys;           /* Contains "struct tnlid_node"s. */
    uint32_t min, max;          /* Inclusive range of keys to hand out. */
    uint32_t hint;              /* Where the next search starts. */
};

void tnlid_set_init(struct tnlid_set *, uint32_t min, uint32_t max);
void tnlid_set_destroy(struct tnlid_set *);

bool tnlid_in_use(const struct tnlid_set *, uint32_t key);
/* Marks 'key' used.  Returns false if it already was. */
bool tnlid_reserve(struct tnlid_set *, uint32_t key);
/* Returns a free key in [min, max] and reserves it, or 0 if all are taken. */
uint32_t tnlid_allocate(struct tnlid_set *);

#endif /* lib/tnlid.h */
