/* Stale SB FDB rows; see fdb.h. */
#include <config.h>
#include "northd/fdb.h"

#include <stdlib.h>

#include "coverage.h"
#include "lib/rdb.h"
#include "lib/sb-rdb.h"
#include "northd/datapaths.h"
#include "util.h"

COVERAGE_DEFINE(fdb_stale_deleted);

/* A (datapath, port) pair of tunnel keys as one number. */
static uint64_t
fdb_key(uint32_t dp_key, uint32_t port_key)
{
    return ((uint64_t) dp_key << 32) | port_key;
}

static int
fdb_key_compare(const void *a_, const void *b_)
{
    uint64_t a = *(const uint64_t *) a_, b = *(const uint64_t *) b_;
    return a < b ? -1 : a > b;
}

/* The port of 'm' with these keys exists: looked up directly, for a few
 * rows. */
static bool
fdb_port_exists(const struct ls_model *m, uint32_t dp_key, uint32_t port_key)
{
    for (size_t i = 0; i < m->n_datapaths; i++) {
        const struct ls_datapath *dp = m->dp_array[i];
        if (dp->tunnel_key == dp_key) {
            const struct ls_port *p;
            LIST_FOR_EACH (p, dp_node, &dp->ports) {
                if (p->tunnel_key == port_key) {
                    return true;
                }
            }
            return false;
        }
    }
    return false;
}

void
fdb_sync_sb(const struct ls_model *m, struct rdb *sb, struct rdb_txn *txn,
            bool all)
{
    /* The rows to check. */
    const struct sb_fdb **rows = NULL;
    size_t n_rows = 0, allocated = 0;
    const struct sb_fdb *fdb;
    if (all) {
        SB_FDB_FOR_EACH (fdb, sb) {
            if (n_rows >= allocated) {
                rows = x2nrealloc(rows, &allocated, sizeof *rows);
            }
            rows[n_rows++] = fdb;
        }
    } else {
        SB_FDB_FOR_EACH_TRACKED (fdb, sb) {
            if (!sb_fdb_is_deleted(fdb)) {
                if (n_rows >= allocated) {
                    rows = x2nrealloc(rows, &allocated, sizeof *rows);
                }
                rows[n_rows++] = fdb;
            }
        }
    }
    if (!n_rows) {
        free(rows);
        return;
    }

    /* Many rows: every port's keys, sorted, to search. */
    uint64_t *keys = NULL;
    size_t n_keys = 0;
    if (n_rows > 16) {
        keys = xmalloc(MAX(hmap_count(&m->ports), 1) * sizeof *keys);
        for (size_t i = 0; i < m->n_datapaths; i++) {
            const struct ls_datapath *dp = m->dp_array[i];
            const struct ls_port *p;
            LIST_FOR_EACH (p, dp_node, &dp->ports) {
                if (n_keys < hmap_count(&m->ports)) {
                    keys[n_keys++] = fdb_key(dp->tunnel_key, p->tunnel_key);
                }
            }
        }
        qsort(keys, n_keys, sizeof *keys, fdb_key_compare);
    }

    for (size_t i = 0; i < n_rows; i++) {
        fdb = rows[i];
        bool exists;
        if (fdb->dp_key <= 0 || fdb->port_key <= 0) {
            exists = false;
        } else if (keys) {
            uint64_t k = fdb_key(fdb->dp_key, fdb->port_key);
            exists = bsearch(&k, keys, n_keys, sizeof *keys,
                             fdb_key_compare) != NULL;
        } else {
            exists = fdb_port_exists(m, fdb->dp_key, fdb->port_key);
        }
        if (!exists) {
            rdb_txn_delete(txn, &sb_table_fdb, &fdb->header_.uuid);
            COVERAGE_INC(fdb_stale_deleted);
        }
    }
    free(keys);
    free(rows);
}
