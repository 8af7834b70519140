/* QoS rules of logical switches: DSCP marking and rate limits.
 *
 * A Logical_Switch's qos_rules become, as stock ovn-northd 23.03 makes
 * them, flows in the qos_mark stage ("ip.dscp = D; next;", for an action
 * "dscp") and the qos_meter stage ("set_meter(RATE[, BURST]); next;", for a
 * bandwidth "rate"), in the ingress pipeline for "from-lport" rules and the
 * egress one for "to-lport", at the rule's priority and with its match as
 * written.  Unlike stock, a rule whose match ovn-controller would refuse,
 * or whose DSCP value does not fit, is left out and reported, naming the
 * rule and the switch (ls_model_report_bad_row()).  See docs/qos.md. */
#ifndef NORTHD_QOS_H
#define NORTHD_QOS_H 1

#include <stddef.h>
#include <stdint.h>
#include "northd/pipeline.h"

struct lflow_table;
struct ls_datapath;
struct ls_model;

/* One flow of a rule. */
struct qos_flow {
    enum ls_stage stage;
    uint16_t priority;
    char *match;
    char *actions;
};

/* The flows of each switch, by datapath index (those added after the
 * build have none: a new switch with QoS rules makes a full recompute,
 * lib/nb.rdb). */
struct qos_model {
    struct qos_dp {
        struct qos_flow *flows;
        size_t n_flows;
    } *dps;
    size_t n_dps;
};

void qos_model_init(struct qos_model *);
void qos_model_destroy(struct qos_model *);

/* Validates and translates every switch's QoS rules, reporting bad ones
 * into 'm'. */
void qos_model_build(struct qos_model *, struct ls_model *m);

/* Adds the flows of switch 'dp' to 't' (they belong to the switch). */
void qos_build_dp_lflows(struct lflow_table *t, const struct qos_model *,
                         const struct ls_datapath *dp);

#endif /* northd/qos.h */
