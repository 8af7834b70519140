/* QoS rules of logical switches; see qos.h. */
#include <config.h>
#include "northd/qos.h"

#include <inttypes.h>
#include <string.h>

#include "coverage.h"
#include "lib/nb-rdb.h"
#include "northd/acl-check.h"
#include "northd/datapaths.h"
#include "northd/lflow.h"
#include "openvswitch/dynamic-string.h"
#include "smap.h"
#include "util.h"
#include "uuid.h"

COVERAGE_DEFINE(qos_rule_compiled);
COVERAGE_DEFINE(qos_rule_bad);

/* DSCP is 6 bits. */
#define QOS_DSCP_MAX 63

void
qos_model_init(struct qos_model *qm)
{
    memset(qm, 0, sizeof *qm);
}

void
qos_model_destroy(struct qos_model *qm)
{
    if (!qm) {
        return;
    }
    for (size_t i = 0; i < qm->n_dps; i++) {
        struct qos_dp *qd = &qm->dps[i];
        for (size_t j = 0; j < qd->n_flows; j++) {
            free(qd->flows[j].match);
            free(qd->flows[j].actions);
        }
        free(qd->flows);
    }
    free(qm->dps);
    memset(qm, 0, sizeof *qm);
}

static void
add_flow(struct qos_dp *qd, enum ls_stage stage, uint16_t priority,
         const char *match, char *actions)
{
    qd->flows = xrealloc(qd->flows, (qd->n_flows + 1) * sizeof *qd->flows);
    struct qos_flow *f = &qd->flows[qd->n_flows++];
    f->stage = stage;
    f->priority = priority;
    f->match = xstrdup(match);
    f->actions = actions;
}

/* Reports rule 'qos' of switch 'dp' as not compiled, for 'why'. */
static void OVS_PRINTF_FORMAT(3, 4)
report(struct ls_model *m, const struct nb_qos *qos, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *why = xvasprintf(format, args);
    va_end(args);
    char *msg = xasprintf("QoS "UUID_FMT": %s, rule not compiled",
                          UUID_ARGS(&qos->header_.uuid), why);
    COVERAGE_INC(qos_rule_bad);
    ls_model_report_bad_row(m, msg);
    free(msg);
    free(why);
}

/* Parses decimal 'value' of 'key' into '*out', reporting it if it is not
 * an integer in [min, max]. */
static bool
get_int(struct ls_model *m, const struct nb_qos *qos, const char *column,
        const char *key, const char *value, int64_t min, int64_t max,
        int64_t *out)
{
    long long int v;
    if (!value || !str_to_llong(value, 10, &v) || v < min || v > max) {
        report(m, qos, "%s:%s \"%s\" is not an integer in %"PRId64"..%"
               PRId64, column, key, value ? value : "", min, max);
        return false;
    }
    *out = v;
    return true;
}

static void
build_rule(struct ls_model *m, struct qos_dp *qd,
           const struct nb_qos *qos)
{
    bool ingress = qos->direction == NB_QOS_DIRECTION_FROM_LPORT;
    const char *dscp_s = smap_get(&qos->action, "dscp");
    const char *rate_s = smap_get(&qos->bandwidth, "rate");
    const char *burst_s = smap_get(&qos->bandwidth, "burst");
    int64_t dscp = -1, rate = 0, burst = 0;

    if ((dscp_s && !get_int(m, qos, "action", "dscp", dscp_s, 0,
                            QOS_DSCP_MAX, &dscp))
        || (rate_s && !get_int(m, qos, "bandwidth", "rate", rate_s, 1,
                               UINT32_MAX, &rate))
        || (burst_s && !get_int(m, qos, "bandwidth", "burst", burst_s, 1,
                                UINT32_MAX, &burst))) {
        return;
    }
    if (burst_s && !rate_s) {
        report(m, qos, "bandwidth:burst without a rate has no meter");
    }
    if (dscp < 0 && !rate) {
        return;                 /* Nothing to do, as in stock. */
    }
    char *error = acl_check_plain_match(qos->match);
    if (error) {
        report(m, qos, "match \"%s\": %s", qos->match, error);
        free(error);
        return;
    }

    if (dscp >= 0) {
        add_flow(qd, ingress ? S_IN_QOS_MARK : S_OUT_QOS_MARK,
                 qos->priority, qos->match,
                 xasprintf("ip.dscp = %"PRId64"; next;", dscp));
    }
    if (rate) {
        add_flow(qd, ingress ? S_IN_QOS_METER : S_OUT_QOS_METER,
                 qos->priority, qos->match,
                 (burst
                  ? xasprintf("set_meter(%"PRId64", %"PRId64"); next;",
                              rate, burst)
                  : xasprintf("set_meter(%"PRId64"); next;", rate)));
    }
    COVERAGE_INC(qos_rule_compiled);
}

void
qos_model_build(struct qos_model *qm, struct ls_model *m)
{
    qos_model_destroy(qm);
    qm->n_dps = m->dp_cap;
    qm->dps = xcalloc(MAX(qm->n_dps, 1), sizeof *qm->dps);
    for (size_t i = 0; i < m->n_datapaths; i++) {
        const struct ls_datapath *dp = m->dp_array[i];
        for (size_t j = 0; j < dp->nb->n_qos_rules; j++) {
            build_rule(m, &qm->dps[dp->index], dp->nb->qos_rules[j]);
        }
    }
}

void
qos_build_dp_lflows(struct lflow_table *t, const struct qos_model *qm,
                    const struct ls_datapath *dp)
{
    if (dp->index >= qm->n_dps) {
        return;
    }
    const struct qos_dp *qd = &qm->dps[dp->index];
    for (size_t i = 0; i < qd->n_flows; i++) {
        const struct qos_flow *f = &qd->flows[i];
        lflow_add_hint(t, dp, f->stage, f->priority, f->match, f->actions,
                       NULL);
    }
}
