/* Chassis features; see features.h. */
#include <config.h>
#include "northd/features.h"

#include "lib/rdb.h"
#include "lib/sb-rdb.h"
#include "smap.h"

void
ls_features_from_sb(struct ls_features *f, const struct rdb *sb_db)
{
    f->ct_no_masked_label = true;
    f->ct_lb_related = true;
    f->mac_binding_timestamp = true;

    const struct sb_chassis *ch;
    SB_CHASSIS_FOR_EACH (ch, sb_db) {
        const struct smap *oc = &ch->other_config;
        if (smap_get_bool(oc, "is-remote", false)) {
            continue;
        }
        f->ct_no_masked_label &= smap_get_bool(oc, "ct-no-masked-label",
                                               false);
        f->ct_lb_related &= smap_get_bool(oc, "ovn-ct-lb-related", false);
        f->mac_binding_timestamp &= smap_get_bool(oc, "mac-binding-timestamp",
                                                  false);
    }
}

bool
ls_features_equal(const struct ls_features *a, const struct ls_features *b)
{
    return (a->ct_no_masked_label == b->ct_no_masked_label
            && a->ct_lb_related == b->ct_lb_related);
}
