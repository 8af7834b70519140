/* SB meters; see meters.h. */
#include <config.h>
#include "northd/meters.h"

#include <string.h>

#include "lib/nb-rdb.h"
#include "lib/rdb.h"
#include "lib/sb-rdb.h"
#include "openvswitch/shash.h"
#include "util.h"
#include "uuid.h"

static bool
bands_equal(const struct sb_meter *sb, const struct nb_meter *nb)
{
    if (sb->n_bands != nb->n_bands) {
        return false;
    }
    for (size_t i = 0; i < nb->n_bands; i++) {
        const struct nb_meter_band *nbb = nb->bands[i];
        bool found = false;
        for (size_t j = 0; j < sb->n_bands && !found; j++) {
            const struct sb_meter_band *sbb = sb->bands[j];
            found = (!strcmp(sbb->action, nbb->action)
                     && sbb->rate == nbb->rate
                     && sbb->burst_size == nbb->burst_size);
        }
        if (!found) {
            return false;
        }
    }
    return true;
}

static void
sync_meter(struct rdb_txn *txn, const struct sb_meter *sb,
           const char *name, const struct nb_meter *nb)
{
    /* New bands first: each is an op of its own.  Bands are not a root
     * table, so the old ones go away with the last reference. */
    bool new_bands = !sb || !bands_equal(sb, nb);
    struct uuid *bands = xmalloc((nb->n_bands + 1) * sizeof *bands);
    if (new_bands) {
        for (size_t i = 0; i < nb->n_bands; i++) {
            rdb_uuid_generate(&bands[i]);
            rdb_txn_insert(txn, &sb_table_meter_band, &bands[i]);
            rdb_txn_set_string(txn, SB_METER_BAND_COL_ACTION,
                               nb->bands[i]->action);
            rdb_txn_set_integer(txn, SB_METER_BAND_COL_RATE,
                                nb->bands[i]->rate);
            rdb_txn_set_integer(txn, SB_METER_BAND_COL_BURST_SIZE,
                                nb->bands[i]->burst_size);
        }
    }

    if (!sb) {
        struct uuid uuid;
        rdb_uuid_generate(&uuid);
        rdb_txn_insert(txn, &sb_table_meter, &uuid);
        rdb_txn_set_string(txn, SB_METER_COL_NAME, name);
    } else {
        rdb_txn_update(txn, &sb_table_meter, &sb->header_.uuid);
    }
    if (!sb || strcmp(sb->unit, nb->unit)) {
        rdb_txn_set_string(txn, SB_METER_COL_UNIT, nb->unit);
    }
    if (new_bands) {
        rdb_txn_set_refs(txn, SB_METER_COL_BANDS, bands, nb->n_bands);
    }
    free(bands);
}

void
meters_sync_sb(struct rdb *nb_db, struct rdb *sb_db, struct rdb_txn *txn)
{
    /* Desired meters by SB name. */
    struct shash want = SHASH_INITIALIZER(&want);
    const struct nb_meter *nb;
    NB_METER_FOR_EACH (nb, nb_db) {
        if (nb->n_bands) {
            shash_add_once(&want, nb->name, nb);
        }
    }
    const struct nb_acl *acl;
    NB_ACL_FOR_EACH (acl, nb_db) {
        if (!acl->log || !acl->meter) {
            continue;
        }
        const struct nb_meter *m = shash_find_data(&want, acl->meter);
        if (m && m->n_fair && m->fair[0]) {
            char *name = xasprintf("%s__"UUID_FMT, acl->meter,
                                   UUID_ARGS(&acl->header_.uuid));
            shash_add_once(&want, name, m);
            free(name);
        }
    }

    const struct sb_meter *sb;
    SB_METER_FOR_EACH (sb, sb_db) {
        nb = shash_find_and_delete(&want, sb->name);
        if (nb) {
            sync_meter(txn, sb, sb->name, nb);
        } else {
            rdb_txn_delete(txn, &sb_table_meter, &sb->header_.uuid);
        }
    }
    struct shash_node *node;
    SHASH_FOR_EACH (node, &want) {
        sync_meter(txn, NULL, node->name, node->data);
    }
    shash_destroy(&want);
}
