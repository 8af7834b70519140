/* What the chassis' ovn-controllers support, as they report it in SB
 * Chassis other_config, and the flow syntax that follows from it.
 *
 * As stock ovn-northd 23.03 does, a feature is used only if every chassis
 * (but those with other_config:is-remote=true, which install the flows of
 * another availability zone's northd) reports it with the value "true"
 * (any case); with no chassis at all, every feature is used.  A change that
 * turns a feature on or off recompiles everything. */
#ifndef NORTHD_FEATURES_H
#define NORTHD_FEATURES_H 1

#include <stdbool.h>

struct rdb;

struct ls_features {
    /* "ct-no-masked-label": the connection's blocked bit is in ct_mark
     * (ct_mark.blocked) and load balancing marks it with ct_lb_mark.
     * Without it, ct_label.blocked and ct_lb. */
    bool ct_no_masked_label;

    /* "ovn-ct-lb-related": related traffic of an allowed connection is
     * committed with ct_commit_nat (so that ICMP errors are un-NATed).
     * Without it, such traffic just goes on ("next;"). */
    bool ct_lb_related;

    /* "mac-binding-timestamp": listed by debug/chassis-features-list;
     * nothing a switch compiles depends on it (MAC_Binding aging belongs
     * to routers), so ls_features_equal() leaves it out. */
    bool mac_binding_timestamp;
};

void ls_features_from_sb(struct ls_features *, const struct rdb *sb_db);
bool ls_features_equal(const struct ls_features *,
                       const struct ls_features *);

/* The names the flows use. */
static inline const char *
ls_features_blocked(const struct ls_features *f)
{
    return f->ct_no_masked_label ? "ct_mark.blocked" : "ct_label.blocked";
}

static inline const char *
ls_features_ct_lb(const struct ls_features *f)
{
    return f->ct_no_masked_label ? "ct_lb_mark" : "ct_lb";
}

#endif /* northd/features.h */
