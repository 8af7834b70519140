/* SB meters; see meters.h. */
#include <config.h>
#include "northd/meters.h"

#include <string.h>

#include "lib/ovn-nb-idl.h"
#include "lib/ovn-sb-idl.h"
#include "openvswitch/shash.h"
#include "util.h"

static bool
bands_equal(const struct sbrec_meter *sb, const struct nbrec_meter *nb)
{
    if (sb->n_bands != nb->n_bands) {
        return false;
    }
    for (size_t i = 0; i < nb->n_bands; i++) {
        const struct nbrec_meter_band *nbb = nb->bands[i];
        bool found = false;
        for (size_t j = 0; j < sb->n_bands && !found; j++) {
            const struct sbrec_meter_band *sbb = sb->bands[j];
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
sync_meter(struct ovsdb_idl_txn *txn, const struct sbrec_meter *sb,
           const char *name, const struct nbrec_meter *nb)
{
    if (!sb) {
        sb = sbrec_meter_insert(txn);
        sbrec_meter_set_name(sb, name);
    }
    if (strcmp(sb->unit, nb->unit)) {
        sbrec_meter_set_unit(sb, nb->unit);
    }
    if (!bands_equal(sb, nb)) {
        struct sbrec_meter_band **bands = xmalloc((nb->n_bands + 1)
                                                  * sizeof *bands);
        for (size_t i = 0; i < nb->n_bands; i++) {
            bands[i] = (struct sbrec_meter_band *)
                       sbrec_meter_band_insert(txn);
            sbrec_meter_band_set_action(bands[i], nb->bands[i]->action);
            sbrec_meter_band_set_rate(bands[i], nb->bands[i]->rate);
            sbrec_meter_band_set_burst_size(bands[i],
                                            nb->bands[i]->burst_size);
        }
        sbrec_meter_set_bands(sb, bands, nb->n_bands);
        free(bands);
    }
}

void
meters_sync_sb(struct ovsdb_idl *nb_idl, struct ovsdb_idl *sb_idl,
               struct ovsdb_idl_txn *txn)
{
    /* Desired meters by SB name. */
    struct shash want = SHASH_INITIALIZER(&want);
    const struct nbrec_meter *nb;
    NBREC_METER_FOR_EACH (nb, nb_idl) {
        if (nb->n_bands) {
            shash_add_once(&want, nb->name, nb);
        }
    }
    const struct nbrec_acl *acl;
    NBREC_ACL_FOR_EACH (acl, nb_idl) {
        if (!acl->log || !acl->meter) {
            continue;
        }
        const struct nbrec_meter *m = shash_find_data(&want, acl->meter);
        if (m && m->n_fair && m->fair[0]) {
            char *name = xasprintf("%s__"UUID_FMT, acl->meter,
                                   UUID_ARGS(&acl->header_.uuid));
            shash_add_once(&want, name, m);
            free(name);
        }
    }

    const struct sbrec_meter *sb;
    SBREC_METER_FOR_EACH_SAFE (sb, sb_idl) {
        nb = shash_find_and_delete(&want, sb->name);
        if (nb) {
            sync_meter(txn, sb, sb->name, nb);
        } else {
            sbrec_meter_delete(sb);
        }
    }
    struct shash_node *node;
    SHASH_FOR_EACH (node, &want) {
        sync_meter(txn, NULL, node->name, node->data);
    }
    shash_destroy(&want);
}
