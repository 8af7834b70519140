/* ACL compilation; see acls.h.
 *
 * Flow shapes and register bits are those stock ovn-controller 23.03
 * understands (see pipeline.h).  Where 23.03 had bugs we do better on
 * purpose: user matches are always parenthesized when combined with our
 * terms, log-related flows keep the verdict of the flows they shadow, and
 * the "pass" verb and tiers work within 23.03's single ACL stage. */
#include <config.h>
#include "northd/acls.h"

#include <string.h>

#include "bitmap.h"
#include "coverage.h"
#include "hmapx.h"
#include "lib/lex.h"
#include "lib/ovn-nb-idl.h"
#include "northd/acl-check.h"
#include "northd/datapaths.h"
#include "northd/groups.h"
#include "northd/lb.h"
#include "northd/lflow.h"
#include "northd/pipeline.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "smap.h"
#include "sset.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(acls);

COVERAGE_DEFINE(acl_compiled);
COVERAGE_DEFINE(acl_skipped);


/* The three stages ACLs are evaluated in. */
enum acl_stage_kind {
    ACL_IN,                         /* from-lport */
    ACL_AFTER_LB,                   /* from-lport, apply-after-lb */
    ACL_OUT,                        /* to-lport */
    N_ACL_STAGES
};

static const enum ls_stage acl_stage[N_ACL_STAGES] = {
    S_IN_ACL, S_IN_ACL_AFTER_LB, S_OUT_ACL,
};

static const char *const tier_reg[N_ACL_STAGES] = {
    REG_ACL_TIER, REG_ACL_AFTER_LB_TIER, REG_ACL_TIER,
};

/* An ACL as it applies to one switch. */
struct acl_ref {
    const struct nbrec_acl *nb;
    const char *owner;              /* "switch sw0" / "port group pg1". */
    const char *match;              /* Usually nb->match; see acl-check.h. */
    bool force_drop;                /* Invalid, compiled fail-closed. */
};

/* Everything the flows of one switch depend on. */
struct acl_dp {
    struct acl_ref *acls;
    size_t n_acls;
    bool has_stateful;              /* An allow-related ACL applies. */
    bool has_lb;                    /* A load balancer with VIPs. */
    bool tiered[N_ACL_STAGES];      /* Tier register in use. */
    int max_tier[N_ACL_STAGES];
};

struct acl_globals {
    bool default_drop;
    bool use_ct_inv;
    bool fail_closed;               /* acl_invalid_policy=fail-closed. */
    struct shash fair_meters;       /* Names of NB meters with fair=true. */
};

/* What classification needs besides the model. */
struct acl_classify_ctx {
    struct acl_check *check;
    const struct acl_globals *g;
    struct sset strings;            /* Owns owner names, override matches. */
};

static struct {
    size_t n_compiled;
    size_t n_skipped;
} stats;

static enum acl_stage_kind
acl_stage_of(const struct nbrec_acl *acl)
{
    if (!strcmp(acl->direction, "to-lport")) {
        return ACL_OUT;
    }
    return smap_get_bool(&acl->options, "apply-after-lb", false)
           ? ACL_AFTER_LB : ACL_IN;
}

/* Returns a copy of 's' owned by 'cc', and frees 's'. */
static const char *
intern(struct acl_classify_ctx *cc, char *s)
{
    const struct sset_node *node = sset_find(&cc->strings, s);
    if (!node) {
        node = sset_add(&cc->strings, s);
    }
    free(s);
    return node->name;
}

/* Checks 'acl''s match and reports it if invalid.  Returns NULL if the
 * match is valid, otherwise the error, with '*drop' saying whether the ACL
 * compiles fail-closed. */
static const char *
check_acl(struct acl_classify_ctx *cc, const struct nbrec_acl *acl,
          const char *owner, bool *drop)
{
    const char *error = acl_check_match(cc->check, acl);
    *drop = false;
    if (error) {
        bool blocks = (!strcmp(acl->action, "drop")
                       || !strcmp(acl->action, "reject"));
        *drop = cc->g->fail_closed && blocks;
        acl_errors_report(acl, owner, error, *drop);
    }
    return error;
}

/* True if "@NAME" lexes as a reference to the port group NAME.  A name
 * like "my-pg" does not (it reads as "@my", "-", "pg"). */
static bool
pg_name_is_referable(const char *name)
{
    char *ref = xasprintf("@%s", name);
    struct lexer lexer;
    lex_init(&lexer, ref);
    bool ok = (lex_next(&lexer) == LEX_T_PORTGROUP
               && !strcmp(lexer.token.s, name)
               && lex_next(&lexer) == LEX_T_END);
    lex_destroy(&lexer);
    free(ref);
    return ok;
}

/* The match for the traffic of 'pg''s ports in the direction of 'acl':
 * "inport == @pg", or the ports listed if the name cannot be written as a
 * reference (ovn-controller would reject the flow, and the drop that
 * fail-closed promises would silently not happen). */
static const char *
pg_traffic_match(struct acl_classify_ctx *cc,
                 const struct nbrec_port_group *pg,
                 const struct nbrec_acl *acl)
{
    const char *field = (!strcmp(acl->direction, "to-lport")
                         ? "outport" : "inport");
    if (pg_name_is_referable(pg->name)) {
        return intern(cc, xasprintf("%s == @%s", field, pg->name));
    }

    /* Sorted, so that the match does not depend on the row's order. */
    struct sset names = SSET_INITIALIZER(&names);
    for (size_t i = 0; i < pg->n_ports; i++) {
        sset_add(&names, pg->ports[i]->name);
    }
    struct ds m = DS_EMPTY_INITIALIZER;
    ds_put_format(&m, "%s == {", field);
    const char **sorted = sset_sort(&names);
    for (size_t i = 0; sorted[i]; i++) {
        if (i) {
            ds_put_cstr(&m, ", ");
        }
        json_string_escape(sorted[i], &m);
    }
    ds_put_char(&m, '}');
    free(sorted);
    sset_destroy(&names);
    return intern(cc, ds_steal_cstr(&m));
}

/* Adds 'acl', owned by 'owner' (a switch, or the port group 'pg'), to the
 * ACLs of one switch, after checking its match. */
static void
acl_dp_add(struct acl_dp *ad, struct hmapx *seen, const struct nbrec_acl *acl,
           const char *owner, const struct nbrec_port_group *pg,
           struct acl_classify_ctx *cc)
{
    if (!hmapx_add(seen, (void *) acl)) {
        return;
    }
    struct acl_ref ref = { acl, owner, acl->match, false };
    bool drop;
    if (check_acl(cc, acl, owner, &drop)) {
        if (!drop) {
            stats.n_skipped++;
            COVERAGE_INC(acl_skipped);
            return;
        }
        /* Stop everything the ACL could have been meant to stop. */
        ref.force_drop = true;
        ref.match = pg ? pg_traffic_match(cc, pg, acl) : "1";
    }
    ad->acls = xrealloc(ad->acls, (ad->n_acls + 1) * sizeof *ad->acls);
    ad->acls[ad->n_acls++] = ref;
}

/* Decides which ACLs apply to each switch and classifies it.  'owners'
 * receives the owner strings, which the acl_dp entries borrow. */
static struct acl_dp *
classify_datapaths(const struct ls_model *m, const struct lb_model *lm,
                   struct ovsdb_idl *nb_idl, struct acl_classify_ctx *cc)
{
    struct acl_dp *dps = xcalloc(m->n_datapaths + 1, sizeof *dps);
    struct hmapx *seen = xcalloc(m->n_datapaths + 1, sizeof *seen);
    for (size_t i = 0; i < m->n_datapaths; i++) {
        hmapx_init(&seen[i]);
    }

    for (size_t i = 0; i < m->n_datapaths; i++) {
        const struct nbrec_logical_switch *ls = m->dp_array[i]->nb;
        if (!ls->n_acls) {
            continue;
        }
        const char *o = intern(cc, xasprintf("switch %s", ls->name));
        for (size_t j = 0; j < ls->n_acls; j++) {
            acl_dp_add(&dps[i], &seen[i], ls->acls[j], o, NULL, cc);
        }
    }

    /* A port group's ACLs apply to every switch with one of its ports. */
    unsigned long *pg_dps = bitmap_allocate(m->n_datapaths + 1);
    const struct nbrec_port_group *pg;
    NBREC_PORT_GROUP_FOR_EACH (pg, nb_idl) {
        if (!pg->n_acls) {
            continue;
        }
        bitmap_set_multiple(pg_dps, 0, m->n_datapaths, false);
        for (size_t j = 0; j < pg->n_ports; j++) {
            const struct ls_port *p = ls_model_find_port(m,
                                                         pg->ports[j]->name);
            if (p && p->nb == pg->ports[j]) {
                bitmap_set1(pg_dps, p->dp->index);
            }
        }
        const char *o = intern(cc, xasprintf("port group %s", pg->name));
        if (bitmap_is_all_zeros(pg_dps, m->n_datapaths)) {
            /* The ACLs apply nowhere yet, but the CMS should hear about a
             * broken one before the group's first port joins. */
            for (size_t j = 0; j < pg->n_acls; j++) {
                bool drop;
                check_acl(cc, pg->acls[j], o, &drop);
            }
            continue;
        }
        size_t idx;
        BITMAP_FOR_EACH_1 (idx, m->n_datapaths, pg_dps) {
            for (size_t j = 0; j < pg->n_acls; j++) {
                acl_dp_add(&dps[idx], &seen[idx], pg->acls[j], o, pg, cc);
            }
        }
    }
    bitmap_free(pg_dps);

    for (size_t i = 0; i < m->n_datapaths; i++) {
        struct acl_dp *ad = &dps[i];
        ad->has_lb = lb_model_dp_has_vips(lm, i);
        for (size_t j = 0; j < ad->n_acls; j++) {
            const struct nbrec_acl *acl = ad->acls[j].nb;
            enum acl_stage_kind k = acl_stage_of(acl);
            if (ad->acls[j].force_drop) {
                /* Its verb no longer counts. */
            } else if (!strcmp(acl->action, "allow-related")) {
                ad->has_stateful = true;
            }
            if (!strcmp(acl->action, "pass")) {
                ad->tiered[k] = true;
            }
            if (acl->tier > 0) {
                ad->tiered[k] = true;
                ad->max_tier[k] = MAX(ad->max_tier[k],
                                      MIN(acl->tier, ACL_MAX_TIER));
            }
        }
        hmapx_destroy(&seen[i]);
    }
    free(seen);
    return dps;
}

static void
put_quoted(struct ds *s, const char *str)
{
    ds_put_char(s, '"');
    for (const char *p = str; *p; p++) {
        if (*p == '"' || *p == '\\') {
            ds_put_char(s, '\\');
        }
        ds_put_char(s, *p);
    }
    ds_put_char(s, '"');
}

/* Appends "log(...); " for 'acl' with 'verdict', if it logs. */
static void
put_log(struct ds *a, const struct nbrec_acl *acl, const char *verdict,
        const struct acl_globals *g)
{
    if (!acl->log) {
        return;
    }
    ds_put_cstr(a, "log(");
    if (acl->name && acl->name[0]) {
        ds_put_cstr(a, "name=");
        put_quoted(a, acl->name);
        ds_put_cstr(a, ", ");
    }
    ds_put_format(a, "severity=%s, verdict=%s",
                  acl->severity && acl->severity[0] ? acl->severity : "info",
                  verdict);
    if (acl->meter && acl->meter[0]) {
        ds_put_cstr(a, ", meter=");
        if (shash_find(&g->fair_meters, acl->meter)) {
            /* A fair meter is split per ACL; see meters.c. */
            char *m = xasprintf("%s__"UUID_FMT, acl->meter,
                                UUID_ARGS(&acl->header_.uuid));
            put_quoted(a, m);
            free(m);
        } else {
            put_quoted(a, acl->meter);
        }
    }
    ds_put_cstr(a, "); ");
}

static void
put_reject(struct ds *a, enum acl_stage_kind k)
{
    /* The generated reply skips the ACLs of the other pipeline. */
    ds_put_format(a, "reg0 = 0; reject { outport <-> inport; "
                  "next(pipeline=%s,table=%d); };",
                  k == ACL_OUT ? "ingress" : "egress",
                  k == ACL_OUT ? ls_stage_table(S_IN_L2_LKUP)
                               : ls_stage_table(S_OUT_QOS_MARK));
}

/* Builds "[TIER && ][PREFIX && ](MATCH)" into 'm'. */
static void
put_match(struct ds *m, const struct acl_dp *ad, enum acl_stage_kind k,
          int tier, const char *prefix, const char *user_match)
{
    ds_clear(m);
    if (ad->tiered[k]) {
        ds_put_format(m, "%s == %d && ", tier_reg[k], tier);
    }
    if (prefix) {
        ds_put_format(m, "%s && ", prefix);
    }
    if (m->length) {
        ds_put_format(m, "(%s)", user_match);
    } else {
        ds_put_cstr(m, user_match);
    }
}

static void
build_acl_flows(struct lflow_table *t, const struct ls_datapath *dp,
                const struct acl_dp *ad, const struct acl_ref *ref,
                const struct acl_globals *g, struct ds *m, struct ds *a)
{
    const struct nbrec_acl *acl = ref->nb;
    const struct uuid *hint = &acl->header_.uuid;
    enum acl_stage_kind k = acl_stage_of(acl);
    enum ls_stage stage = acl_stage[k];
    uint16_t prio = acl->priority + ACL_PRI_OFFSET;
    int tier = MIN(acl->tier, ACL_MAX_TIER);
    bool stateful = ad->has_stateful || ad->has_lb;
    const char *verb = ref->force_drop ? "drop" : acl->action;
    const char *user_match = ref->match;

    if (!strcmp(verb, "pass")) {
        /* Leave this tier: re-enter the stage one tier up.  One past the
         * last tier only the stage's defaults match.  23.03's log() does
         * not know a "pass" verdict, so pass is not logged. */
        put_match(m, ad, k, tier, NULL, user_match);
        ds_clear(a);
        ds_put_format(a, "%s = %d; next(pipeline=%s,table=%d);", tier_reg[k],
                      tier + 1, k == ACL_OUT ? "egress" : "ingress",
                      ls_stage_table(stage));
        lflow_add_hint(t, dp, stage, prio, ds_cstr(m), ds_cstr(a), hint);
        return;
    }

    bool is_allow = !strcmp(verb, "allow") || !strcmp(verb, "allow-related");
    bool is_stateless = !strcmp(verb, "allow-stateless");
    bool is_reject = !strcmp(verb, "reject");

    if (is_stateless && ad->has_stateful) {
        /* Keep matching traffic away from conntrack altogether. */
        enum ls_stage pre = k == ACL_OUT ? S_OUT_PRE_ACL : S_IN_PRE_ACL;
        lflow_add_hint(t, dp, pre, prio, user_match,
                       REGBIT_ACL_STATELESS" = 1; next;", hint);
    }

    if (!stateful || is_stateless) {
        put_match(m, ad, k, tier, NULL, user_match);
        ds_clear(a);
        if (is_allow || is_stateless) {
            put_log(a, acl, "allow", g);
            ds_put_cstr(a, "next;");
        } else if (is_reject) {
            put_log(a, acl, "reject", g);
            put_reject(a, k);
        } else {
            put_log(a, acl, "drop", g);
            ds_put_cstr(a, "/* drop */");
        }
        lflow_add_hint(t, dp, stage, prio, ds_cstr(m), ds_cstr(a), hint);
        return;
    }

    if (is_allow) {
        /* New (or previously blocked) connections are committed; for
         * established ones only a label needs re-committing, so that the
         * label follows ACL changes. */
        struct ds label = DS_EMPTY_INITIALIZER;
        if (acl->label) {
            ds_put_format(&label, REGBIT_ACL_LABEL" = 1; "REG_LABEL" = %"
                          PRId64"; ", acl->label);
        }
        put_match(m, ad, k, tier, REGBIT_ACL_HINT_ALLOW_NEW" == 1",
                  user_match);
        ds_clear(a);
        ds_put_format(a, REGBIT_CONNTRACK_COMMIT" = 1; %s", ds_cstr(&label));
        put_log(a, acl, "allow", g);
        ds_put_cstr(a, "next;");
        lflow_add_hint(t, dp, stage, prio, ds_cstr(m), ds_cstr(a), hint);

        put_match(m, ad, k, tier, REGBIT_ACL_HINT_ALLOW" == 1", user_match);
        ds_clear(a);
        if (acl->label) {
            ds_put_format(a, REGBIT_CONNTRACK_COMMIT" = 1; %s",
                          ds_cstr(&label));
        }
        put_log(a, acl, "allow", g);
        ds_put_cstr(a, "next;");
        lflow_add_hint(t, dp, stage, prio, ds_cstr(m), ds_cstr(a), hint);
        ds_destroy(&label);
        return;
    }

    /* drop / reject: new traffic is simply dropped; an established
     * connection is also marked blocked, so its later packets (both
     * directions) stay dropped even if this ACL goes away. */
    const char *verdict = is_reject ? "reject" : "drop";
    for (int blocked = 0; blocked < 2; blocked++) {
        put_match(m, ad, k, tier,
                  blocked ? REGBIT_ACL_HINT_BLOCK" == 1"
                          : REGBIT_ACL_HINT_DROP" == 1", user_match);
        ds_clear(a);
        if (blocked) {
            ds_put_cstr(a, "ct_commit { ct_mark.blocked = 1; }; ");
        }
        put_log(a, acl, verdict, g);
        if (is_reject) {
            put_reject(a, k);
        } else {
            ds_put_cstr(a, "/* drop */");
        }
        lflow_add_hint(t, dp, stage, prio, ds_cstr(m), ds_cstr(a), hint);
    }
}

/* log-related: replies and related traffic of a labelled connection are
 * logged in the opposite pipeline.  The flows sit above the fixed reply and
 * related flows, so they repeat what those do (23.03 only logged). */
static void
build_log_related(struct lflow_table *t, const struct ls_datapath *dp,
                  const struct acl_ref *ref, const struct acl_globals *g,
                  struct ds *m, struct ds *a)
{
    const struct nbrec_acl *acl = ref->nb;
    if (!acl->log || !acl->label
        || !smap_get_bool(&acl->options, "log-related", false)
        || (strcmp(acl->action, "allow") && strcmp(acl->action,
                                                    "allow-related"))) {
        return;
    }
    bool reply_in_ingress = acl_stage_of(acl) == ACL_OUT;
    enum ls_stage stage = reply_in_ingress ? S_IN_ACL : S_OUT_ACL;
    const char *inv = g->use_ct_inv ? "!ct.inv && " : "";

    ds_clear(m);
    ds_put_format(m, "ct.est && !ct.rel && !ct.new && %sct.rpl && "
                  "ct_mark.blocked == 0 && ct_label.label == %"PRId64,
                  inv, acl->label);
    ds_clear(a);
    put_log(a, acl, "allow", g);
    ds_put_cstr(a, reply_in_ingress
                   ? REGBIT_ACL_HINT_DROP" = 0; "REGBIT_ACL_HINT_BLOCK" = 0; "
                     REGBIT_ACL_HINT_ALLOW_REL" = 1; next;"
                   : "next;");
    lflow_add_hint(t, dp, stage, PRI_ACL_LOG_RELATED, ds_cstr(m), ds_cstr(a),
                   &acl->header_.uuid);

    ds_clear(m);
    ds_put_format(m, "!ct.est && ct.rel && !ct.new && %sct_mark.blocked == 0"
                  " && ct_label.label == %"PRId64, inv, acl->label);
    ds_clear(a);
    put_log(a, acl, "allow", g);
    ds_put_cstr(a, reply_in_ingress
                   ? REGBIT_ACL_HINT_ALLOW_REL" = 1; ct_commit_nat;"
                   : "ct_commit_nat;");
    lflow_add_hint(t, dp, stage, PRI_ACL_LOG_RELATED, ds_cstr(m), ds_cstr(a),
                   &acl->header_.uuid);
}

/* Pre-ACL: which traffic goes to conntrack for ACL purposes. */
static void
build_pre_acl(struct lflow_table *t, const struct ls_datapath *dp,
              const struct acl_dp *ad)
{
    if (!ad->has_stateful) {
        return;
    }
    static const char *infra = "nd || nd_rs || nd_ra || mldv1 || mldv2 || "
                               "(udp && udp.src == 546 && udp.dst == 547)";
    for (int out = 0; out < 2; out++) {
        enum ls_stage s = out ? S_OUT_PRE_ACL : S_IN_PRE_ACL;
        lflow_add(t, dp, s, 110, "eth.mcast", "next;");
        lflow_add(t, dp, s, 110, infra, "next;");
        lflow_add(t, dp, s, 100, "ip", REGBIT_CONNTRACK_DEFRAG" = 1; next;");
    }

    /* Routers and the physical network keep their own state. */
    struct ds m = DS_EMPTY_INITIALIZER;
    const struct ls_port *p;
    LIST_FOR_EACH (p, dp_node, &dp->ports) {
        if (!strcmp(p->nb->type, "router")
            || !strcmp(p->nb->type, "localnet")) {
            ds_clear(&m);
            ds_put_format(&m, "ip && inport == \"%s\"", p->nb->name);
            lflow_add(t, dp, S_IN_PRE_ACL, 110, ds_cstr(&m), "next;");
            ds_clear(&m);
            ds_put_format(&m, "ip && outport == \"%s\"", p->nb->name);
            lflow_add(t, dp, S_OUT_PRE_ACL, 110, ds_cstr(&m), "next;");
        }
    }
    ds_destroy(&m);
}

static void
build_hints(struct lflow_table *t, const struct ls_datapath *dp,
            const struct acl_dp *ad)
{
    static const struct {
        uint16_t prio;
        const char *match;
        const char *actions;
    } hints[] = {
        { 7, "ct.new && !ct.est",
          REGBIT_ACL_HINT_ALLOW_NEW" = 1; "REGBIT_ACL_HINT_DROP" = 1; next;" },
        { 6, "!ct.new && ct.est && !ct.rpl && ct_mark.blocked == 1",
          REGBIT_ACL_HINT_ALLOW_NEW" = 1; "REGBIT_ACL_HINT_DROP" = 1; next;" },
        { 5, "!ct.trk",
          REGBIT_ACL_HINT_ALLOW" = 1; "REGBIT_ACL_HINT_DROP" = 1; next;" },
        { 4, "!ct.new && ct.est && !ct.rpl && ct_mark.blocked == 0",
          REGBIT_ACL_HINT_ALLOW" = 1; "REGBIT_ACL_HINT_BLOCK" = 1; next;" },
        { 3, "!ct.est", REGBIT_ACL_HINT_DROP" = 1; next;" },
        { 2, "ct.est && ct_mark.blocked == 1",
          REGBIT_ACL_HINT_DROP" = 1; next;" },
        { 1, "ct.est && ct_mark.blocked == 0",
          REGBIT_ACL_HINT_BLOCK" = 1; next;" },
    };

    for (int out = 0; out < 2; out++) {
        enum ls_stage s = out ? S_OUT_ACL_HINT : S_IN_ACL_HINT;
        if (!ad->n_acls && !ad->has_lb) {
            lflow_add(t, dp, s, PRI_ACL_NO_ACLS, "1", "next;");
            continue;
        }
        lflow_add(t, dp, s, 0, "1", "next;");
        if (ad->has_stateful || ad->has_lb) {
            for (size_t i = 0; i < ARRAY_SIZE(hints); i++) {
                lflow_add(t, dp, s, hints[i].prio, hints[i].match,
                          hints[i].actions);
            }
        }
    }
}

/* The fixed flows of the three ACL stages. */
static void
build_acl_stage_defaults(struct lflow_table *t, const struct ls_datapath *dp,
                         const struct acl_dp *ad, const struct acl_globals *g)
{
    bool has_acls = ad->n_acls > 0;
    bool stateful = ad->has_stateful || ad->has_lb;
    bool drop = has_acls && g->default_drop;
    static const char *infra = "nd || nd_ra || nd_rs || mldv1 || mldv2";

    for (int k = 0; k < N_ACL_STAGES; k++) {
        enum ls_stage s = acl_stage[k];
        bool out = k == ACL_OUT;
        if (!has_acls && !ad->has_lb && k != ACL_AFTER_LB) {
            lflow_add(t, dp, s, PRI_ACL_NO_ACLS, "1", "next;");
        } else {
            lflow_add(t, dp, s, 0, "1", drop ? "drop;" : "next;");
        }
        /* Neighbour discovery and MLD are never subject to ACLs. */
        lflow_add(t, dp, s, PRI_ACL_FIXED, infra, "next;");

        /* Tiers: nothing matched in tier T, try tier T + 1. */
        for (int tier = 0; ad->tiered[k] && tier < ad->max_tier[k];
             tier++) {
            char *m = xasprintf("%s == %d", tier_reg[k], tier);
            char *a = xasprintf("%s = %d; next(pipeline=%s,table=%d);",
                                tier_reg[k], tier + 1,
                                out ? "egress" : "ingress",
                                ls_stage_table(s));
            lflow_add(t, dp, s, PRI_ACL_TIER_NEXT, m, a);
            free(m);
            free(a);
        }

        if (!stateful) {
            continue;
        }
        if (k == ACL_AFTER_LB) {
            lflow_add(t, dp, s, PRI_ACL_FIXED,
                      REGBIT_ACL_HINT_ALLOW_REL" == 1", "next;");
            continue;
        }
        lflow_add(t, dp, s, 1, "ip && !ct.est",
                  drop ? "drop;" : REGBIT_CONNTRACK_COMMIT" = 1; next;");
        lflow_add(t, dp, s, 1, "ip && ct.est && ct_mark.blocked == 1",
                  REGBIT_CONNTRACK_COMMIT" = 1; next;");
        lflow_add(t, dp, s, PRI_ACL_FIXED,
                  g->use_ct_inv
                  ? "ct.inv || (ct.est && ct.rpl && ct_mark.blocked == 1)"
                  : "(ct.est && ct.rpl && ct_mark.blocked == 1)", "drop;");

        const char *inv = g->use_ct_inv ? "!ct.inv && " : "";
        char *m = xasprintf("ct.est && !ct.rel && !ct.new && %sct.rpl && "
                            "ct_mark.blocked == 0", inv);
        lflow_add(t, dp, s, PRI_ACL_FIXED, m,
                  out ? "next;"
                      : REGBIT_ACL_HINT_DROP" = 0; "REGBIT_ACL_HINT_BLOCK
                        " = 0; "REGBIT_ACL_HINT_ALLOW_REL" = 1; next;");
        free(m);
        m = xasprintf("!ct.est && ct.rel && !ct.new && %sct_mark.blocked == 0",
                      inv);
        lflow_add(t, dp, s, PRI_ACL_FIXED, m,
                  out ? "ct_commit_nat;"
                      : REGBIT_ACL_HINT_ALLOW_REL" = 1; ct_commit_nat;");
        free(m);
    }

    /* Commit what the ACLs asked for; only traffic conntrack has seen, so
     * stateless traffic never creates an entry here. */
    for (int out = 0; out < 2; out++) {
        enum ls_stage s = out ? S_OUT_STATEFUL : S_IN_STATEFUL;
        lflow_add(t, dp, s, 100,
                  REGBIT_CONNTRACK_COMMIT" == 1 && "REGBIT_ACL_LABEL" == 0 && "
                  "ct.trk", "ct_commit { ct_mark.blocked = 0; }; next;");
        lflow_add(t, dp, s, 100,
                  REGBIT_CONNTRACK_COMMIT" == 1 && "REGBIT_ACL_LABEL" == 1 && "
                  "ct.trk", "ct_commit { ct_mark.blocked = 0; "
                  "ct_label.label = "REG_LABEL"; }; next;");
    }
}

void
acls_build_lflows(struct lflow_table *t, const struct ls_model *m,
                  const struct lb_model *lm, struct ovsdb_idl *nb_idl,
                  const struct nbrec_nb_global *nb,
                  const struct shash *addr_sets, struct sset *dp_pg_refs)
{
    struct acl_globals g = {
        .default_drop = nb && smap_get_bool(&nb->options, "default_acl_drop",
                                            false),
        .use_ct_inv = !nb || smap_get_bool(&nb->options, "use_ct_inv_match",
                                           true),
        .fair_meters = SHASH_INITIALIZER(&g.fair_meters),
    };
    const struct nbrec_meter *meter;
    NBREC_METER_FOR_EACH (meter, nb_idl) {
        if (meter->n_fair && meter->fair[0]) {
            shash_add_once(&g.fair_meters, meter->name, NULL);
        }
    }

    const char *policy = nb ? smap_get(&nb->options, "acl_invalid_policy")
                            : NULL;
    g.fail_closed = policy && !strcmp(policy, "fail-closed");

    stats.n_compiled = stats.n_skipped = 0;
    struct acl_classify_ctx cc = {
        .check = acl_check_create(addr_sets, nb_idl),
        .g = &g,
        .strings = SSET_INITIALIZER(&cc.strings),
    };
    acl_errors_begin();
    struct acl_dp *dps = classify_datapaths(m, lm, nb_idl, &cc);

    struct ds match = DS_EMPTY_INITIALIZER;
    struct ds actions = DS_EMPTY_INITIALIZER;
    for (size_t i = 0; i < m->n_datapaths; i++) {
        const struct ls_datapath *dp = m->dp_array[i];
        const struct acl_dp *ad = &dps[i];
        build_pre_acl(t, dp, ad);
        build_hints(t, dp, ad);
        build_acl_stage_defaults(t, dp, ad, &g);
        for (size_t j = 0; j < ad->n_acls; j++) {
            build_acl_flows(t, dp, ad, &ad->acls[j], &g, &match, &actions);
            groups_scan_refs(ad->acls[j].match, NULL, &dp_pg_refs[i]);
            if (ad->has_stateful || ad->has_lb) {
                build_log_related(t, dp, &ad->acls[j], &g, &match, &actions);
            }
            stats.n_compiled++;
            COVERAGE_INC(acl_compiled);
        }
    }
    ds_destroy(&match);
    ds_destroy(&actions);

    for (size_t i = 0; i < m->n_datapaths; i++) {
        free(dps[i].acls);
    }
    free(dps);
    sset_destroy(&cc.strings);
    acl_check_destroy(cc.check);
    shash_destroy(&g.fair_meters);
}

void
acls_format_stats(struct ds *out)
{
    ds_put_format(out, "ACLs compiled (per switch): %"PRIuSIZE"\n",
                  stats.n_compiled);
    ds_put_format(out, "ACLs skipped: %"PRIuSIZE"\n", stats.n_skipped);
}
