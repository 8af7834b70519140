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
#include "hash.h"
#include "hmapx.h"
#include "lib/lex.h"
#include "lib/nb-rdb.h"
#include "lib/objpool.h"
#include "lib/sset-shash.h"
#include "lib/strpack.h"
#include "lib/strpool.h"
#include "northd/acl-check.h"
#include "northd/datapaths.h"
#include "northd/dpset.h"
#include "northd/features.h"
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
#include "uuid.h"

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
    const struct nb_acl *nb;
    const char *match;              /* Usually nb->match; see acl-check.h. */
    bool force_drop;                /* Invalid, compiled fail-closed. */
};

/* A switch or port group that lists ACLs. */
struct acl_container {
    struct hmap_node node;          /* In acls 'containers', by NB UUID. */
    struct uuid uuid;
    char *owner;                    /* "switch sw0" / "port group pg1". */
    size_t dp;                      /* A switch's datapath index. */
    struct pg_state *pg;            /* A port group's state, else NULL. */
    struct acl_state **acls;        /* What it lists, no duplicates. */
    size_t n_acls;
};

/* The sets an ACL's match names, and the port groups of the drop that
 * replaces an invalid one ('force_drop'), as strings of the strpool.  ACLs
 * that name the same ones share one list: a network policy's rules all
 * name its port group and its peers' sets, so a million ACLs have a few
 * tens of thousands of distinct lists, where a list each (and the ACL in
 * the users of each of its names) cost 60 bytes per ACL.
 *
 * The list's users are the ACLs that have it, each at its 'names_pos'.
 * The list itself is a user of each of its first n_as + n_pg names (see
 * struct name_lists): 'names' is followed by that many uint32_t, the
 * list's position in each name's array (acl_names_pos()).  A list goes
 * with its last user. */
struct acl_names {
    struct hmap_node node;          /* In acls 'name_lists', by content. */
    struct acl_state **users;
    uint32_t n_users, allocated_users;
    uint16_t n_as;                  /* names[0 .. n_as - 1]. */
    uint16_t n_pg;                  /* The next 'n_pg'. */
    uint16_t n_drop_pg;             /* The next 'n_drop_pg'. */
    const char *names[];            /* Each part in pointer order. */
};

/* The name lists that name one address set or port group: an array rather
 * than a set, so that a list costs 12 bytes here (its pointer here and its
 * position in its struct acl_names).  A list leaves by moving the last one
 * into its place.  The ACLs that name the set are the users of these
 * lists. */
struct name_lists {
    struct acl_names **v;
    size_t n, allocated;
};

/* How many applied ACLs with datapath set 'set' name port group 'name' in
 * their flows.  Most ACLs of a port group share both, so the per-switch
 * reference counts (groups_pg_ref()) change only when such a count goes
 * from or to zero, not once per ACL and switch. */
struct acl_pg_ref {
    struct hmap_node node;          /* In acls 'pg_refs'. */
    const struct dpset *set;        /* A counted reference. */
    const char *name;               /* A strpool reference. */
    unsigned int n;
};

/* What few ACLs have at any time, kept out of line (struct acl_state). */
struct acl_rare {
    char *error;                    /* Why the match is invalid, or NULL. */
    char *drop_match;               /* With 'force_drop', the match of the
                                     * drop that replaces nb->match (owned);
                                     * else NULL: flows use nb->match. */
    unsigned long *new_dps;         /* Switches gained by a span change,
                                     * not compiled yet; NULL if none. */
};

/* One NB ACL, as last compiled.  (A million of them.)  Found by its
 * row's number (acls 'by_row'), not by UUID in a hash table: 16 bytes of
 * hash node and 8 of bucket per ACL are more than the array's 8. */
struct acl_state {
    const struct nb_acl *nb;        /* Its row, which has the UUID: even
                                     * once deleted ('deleted'), the state
                                     * goes in the same pass, while the
                                     * replica still has the row. */
    struct lflow_owner owner;
    union {                         /* The containers that list it: */
        struct acl_container *one;  /* with 'n_refs' 1 (most ACLs), */
        struct acl_container **v;   /* with more. */
    } refs;

    /* What it contributes while applied. */
    const struct dpset *dps;        /* While applied (dpset.h). */
    struct acl_names *names;        /* What the match names, or NULL. */
    struct acl_rare *rare;          /* NULL if all its members would be. */
    uint32_t names_pos;             /* In names->users. */
    uint32_t n_refs : 22;           /* At most ACL_MAX_REFS. */
    uint32_t k : 2;                 /* enum acl_stage_kind. */
    uint32_t tier : 2;
    uint32_t applied : 1;           /* Counted on the datapaths in 'dps'. */
    uint32_t stateful : 1;          /* allow-related (and not forced). */
    uint32_t pass : 1;
    uint32_t force_drop : 1;
    uint32_t skipped : 1;           /* Left out, counted in 'n_skipped'. */
    uint32_t deleted : 1;           /* The row was deleted. */
};
/* A million of them, from a pool (lib/objpool.h): 72 bytes each. */
BUILD_ASSERT_DECL(sizeof(struct acl_state) <= 72);
BUILD_ASSERT_DECL(N_ACL_STAGES <= 4 && ACL_MAX_TIER < 4);
/* The NB replica's ACL row (lib/nb.rdb: compact enums, a packed match,
 * shared options), also a million of them: 96 bytes (docs/rdb.md).  Keys
 * kept only to be reported (docs/nb-map.md) live in the shared options
 * map and cost no row a byte. */
BUILD_ASSERT_DECL(sizeof(struct nb_acl) <= 96);

/* The containers (switches and port groups) that may list one ACL: a row
 * listed by more, which no CMS makes, is left out of the others. */
#define ACL_MAX_REFS ((1u << 22) - 1)
static struct objpool acl_state_pool
    = OBJPOOL_INITIALIZER(struct acl_state, "acl-states");

static const struct uuid *
acl_state_uuid(const struct acl_state *s)
{
    return &s->nb->header_.uuid;
}

/* The 'n_refs' containers that list 's'. */
static struct acl_container *const *
acl_refs(const struct acl_state *s)
{
    return s->n_refs > 1 ? s->refs.v : &s->refs.one;
}

static void
acl_refs_add(struct acl_state *s, struct acl_container *c)
{
    if (!s->n_refs) {
        s->refs.one = c;
    } else if (s->n_refs == 1) {
        struct acl_container **v = xmalloc(2 * sizeof *v);
        v[0] = s->refs.one;
        v[1] = c;
        s->refs.v = v;
    } else {
        struct acl_container **v = s->refs.v;
        v = xrealloc(v, (s->n_refs + 1) * sizeof *v);
        v[s->n_refs] = c;
        s->refs.v = v;
    }
    s->n_refs++;
}

#define ACL_RARE(S, MEMBER) ((S)->rare ? (S)->rare->MEMBER : NULL)

static struct acl_rare *
acl_rare(struct acl_state *s)
{
    if (!s->rare) {
        s->rare = xzalloc(sizeof *s->rare);
    }
    return s->rare;
}

/* Frees 's''s out-of-line part if nothing is left in it. */
static void
acl_rare_trim(struct acl_state *s)
{
    struct acl_rare *r = s->rare;
    if (r && !r->error && !r->drop_match && !r->new_dps) {
        free(r);
        s->rare = NULL;
    }
}

static void
acl_rare_destroy(struct acl_state *s)
{
    struct acl_rare *r = s->rare;
    if (r) {
        free(r->error);
        free(r->drop_match);
        bitmap_free(r->new_dps);
        free(r);
        s->rare = NULL;
    }
}

/* Everything the flows of one switch depend on, with the counts that
 * decide it. */
struct acl_dp {
    size_t n_acls;                  /* ACLs applied here. */
    size_t n_stateful;
    size_t n_pass[N_ACL_STAGES];
    size_t n_tier[N_ACL_STAGES][ACL_MAX_TIER + 1];

    bool has_acls;                  /* Derived from the counts. */
    bool has_stateful;              /* An allow-related ACL applies. */
    bool has_lb;                    /* A load balancer with VIPs. */
    bool tiered[N_ACL_STAGES];      /* Tier register in use. */
    int max_tier[N_ACL_STAGES];
};

struct acl_globals {
    struct ls_features features;    /* What the chassis support. */
    const char *blocked;            /* ct_mark.blocked or ct_label.blocked
                                     * ('features'). */
    bool default_drop;
    bool use_ct_inv;
    bool fail_closed;               /* acl_invalid_policy=fail-closed. */
    struct shash fair_meters;       /* Names of NB meters with fair=true. */
};

struct acls {
    const struct ls_model *model;
    struct groups *groups;
    struct acl_check *check;
    struct acl_registry *errors;    /* Borrowed: where errors go. */
    struct acl_globals g;
    size_t dp_cap;
    struct acl_dp *dps;             /* By datapath index. */
    struct acl_state **by_row;      /* By rdb_row_index() of the NB row;
                                     * NULL where there is no state. */
    size_t n_by_row;
    struct hmap containers;
    struct hmap name_lists;         /* struct acl_names, shared. */
    struct shash set_users;         /* Address set name -> struct
                                     * name_lists: those that name it. */
    struct shash pg_users;          /* The same for port groups. */
    struct hmap pg_refs;            /* struct acl_pg_ref. */
    struct hmapx queue;             /* States to re-evaluate. */
    struct hmapx revalidate;        /* States whose match may have changed
                                     * validity (an address set it names
                                     * changed): re-evaluated if so. */
    struct hmapx compile;           /* States whose flows to rebuild. */
    struct hmapx span;              /* States whose port groups gained or
                                     * lost switches, nothing else. */
    struct hmapx grown;             /* States with flows to add on
                                     * 'new_dps' only. */
    unsigned long *touched;         /* Datapaths whose counts changed. */
    unsigned long *scratch_dps;     /* For acl_current_dps(). */
    struct sset scratch_as;         /* Scratch for acl_evaluate(). */
    struct sset scratch_pg;
    struct sset scratch_drop_pg;
    struct ds match, actions;       /* Scratch for compile_acl_dp(): kept
                                     * so that 10,000s of ACLs do not each
                                     * grow their own. */
    struct ds match_text;           /* An ACL's match, expanded from its
                                     * row's packed copy (lib/strpack.h). */

    size_t n_compiled;              /* (ACL, datapath) pairs applied. */
    size_t n_skipped;               /* Invalid ACLs left out. */
};

static enum acl_stage_kind
acl_stage_of(const struct nb_acl *acl)
{
    if (acl->direction == NB_ACL_DIRECTION_TO_LPORT) {
        return ACL_OUT;
    }
    return smap_get_bool(acl->options, "apply-after-lb", false)
           ? ACL_AFTER_LB : ACL_IN;
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
 * fail-closed promises would silently not happen).  Returns a malloc'd
 * string. */
static char *
pg_traffic_match(const struct nb_port_group *pg,
                 const struct nb_acl *acl)
{
    const char *field = (acl->direction == NB_ACL_DIRECTION_TO_LPORT
                         ? "outport" : "inport");
    if (pg_name_is_referable(pg->name)) {
        return xasprintf("%s == @%s", field, pg->name);
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
    return ds_steal_cstr(&m);
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
put_log(struct ds *a, const struct nb_acl *acl, const char *verdict,
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
                  (acl->severity
                   ? rdb_enum_string(&nb_table_acl, NB_ACL_COL_SEVERITY,
                                     acl->severity)
                   : "info"),
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
        /* Once per ACL flow: without printf, which would be most of the
         * cost.  Tiers are single digits (ACL_MAX_TIER). */
        BUILD_ASSERT(ACL_MAX_TIER < 9);
        ovs_assert(tier >= 0 && tier <= ACL_MAX_TIER + 1);
        ds_put_cstr(m, tier_reg[k]);
        ds_put_cstr(m, " == ");
        ds_put_char(m, '0' + tier);
        ds_put_cstr(m, " && ");
    }
    if (prefix) {
        ds_put_cstr(m, prefix);
        ds_put_cstr(m, " && ");
    }
    if (m->length) {
        ds_put_char(m, '(');
        ds_put_cstr(m, user_match);
        ds_put_char(m, ')');
    } else {
        ds_put_cstr(m, user_match);
    }
}

/* Where an ACL's flows go: switch 'dp', or every switch in 'dps' (whose
 * counts classify them all as 'dp' is classified: the flows are the
 * same). */
struct acl_target {
    const struct ls_datapath *dp;
    const unsigned long *dps;       /* NULL: 'dp' only. */
};

#define acl_flow_add(T, TGT, STAGE, PRIO, MATCH, ACTIONS, HINT)           \
    ((TGT)->dps                                                           \
     ? lflow_add_dps_hint(T, (TGT)->dps, STAGE, PRIO, MATCH, ACTIONS,     \
                          HINT)                                           \
     : lflow_add_hint(T, (TGT)->dp, STAGE, PRIO, MATCH, ACTIONS, HINT))

static void
build_acl_flows(struct lflow_table *t, const struct acl_target *tgt,
                const struct acl_dp *ad, const struct acl_ref *ref,
                const struct acl_globals *g, struct ds *m, struct ds *a)
{
    const struct nb_acl *acl = ref->nb;
    const struct uuid *hint = &acl->header_.uuid;
    enum acl_stage_kind k = acl_stage_of(acl);
    enum ls_stage stage = acl_stage[k];
    uint16_t prio = acl->priority + ACL_PRI_OFFSET;
    int tier = MAX(0, MIN(acl->tier, ACL_MAX_TIER));
    bool stateful = ad->has_stateful || ad->has_lb;
    uint8_t verb = ref->force_drop ? NB_ACL_ACTION_DROP : acl->action;
    const char *user_match = ref->match;

    if (verb == NB_ACL_ACTION_PASS) {
        /* Leave this tier: re-enter the stage one tier up.  One past the
         * last tier only the stage's defaults match.  23.03's log() does
         * not know a "pass" verdict, so pass is not logged. */
        put_match(m, ad, k, tier, NULL, user_match);
        ds_clear(a);
        ds_put_format(a, "%s = %d; next(pipeline=%s,table=%d);", tier_reg[k],
                      tier + 1, k == ACL_OUT ? "egress" : "ingress",
                      ls_stage_table(stage));
        acl_flow_add(t, tgt, stage, prio, ds_cstr(m), ds_cstr(a), hint);
        return;
    }

    bool is_allow = (verb == NB_ACL_ACTION_ALLOW
                     || verb == NB_ACL_ACTION_ALLOW_RELATED);
    bool is_stateless = verb == NB_ACL_ACTION_ALLOW_STATELESS;
    bool is_reject = verb == NB_ACL_ACTION_REJECT;

    if (is_stateless && ad->has_stateful) {
        /* Keep matching traffic away from conntrack altogether. */
        enum ls_stage pre = k == ACL_OUT ? S_OUT_PRE_ACL : S_IN_PRE_ACL;
        acl_flow_add(t, tgt, pre, prio, user_match,
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
        acl_flow_add(t, tgt, stage, prio, ds_cstr(m), ds_cstr(a), hint);
        return;
    }

    if (is_allow) {
        /* New (or previously blocked) connections are committed; for
         * established ones only a label needs re-committing, so that the
         * label follows ACL changes. */
        struct ds label = DS_EMPTY_INITIALIZER;
        if (acl->label) {
            ds_put_format(&label, REGBIT_ACL_LABEL" = 1; "REG_LABEL" = %"
                          PRIu32"; ", acl->label);
        }
        put_match(m, ad, k, tier, REGBIT_ACL_HINT_ALLOW_NEW" == 1",
                  user_match);
        ds_clear(a);
        ds_put_cstr(a, REGBIT_CONNTRACK_COMMIT" = 1; ");
        ds_put_cstr(a, ds_cstr(&label));
        put_log(a, acl, "allow", g);
        ds_put_cstr(a, "next;");
        acl_flow_add(t, tgt, stage, prio, ds_cstr(m), ds_cstr(a), hint);

        put_match(m, ad, k, tier, REGBIT_ACL_HINT_ALLOW" == 1", user_match);
        ds_clear(a);
        if (acl->label) {
            ds_put_cstr(a, REGBIT_CONNTRACK_COMMIT" = 1; ");
            ds_put_cstr(a, ds_cstr(&label));
        }
        put_log(a, acl, "allow", g);
        ds_put_cstr(a, "next;");
        acl_flow_add(t, tgt, stage, prio, ds_cstr(m), ds_cstr(a), hint);
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
            ds_put_cstr(a, "ct_commit { ");
            ds_put_cstr(a, g->blocked);
            ds_put_cstr(a, " = 1; }; ");
        }
        put_log(a, acl, verdict, g);
        if (is_reject) {
            put_reject(a, k);
        } else {
            ds_put_cstr(a, "/* drop */");
        }
        acl_flow_add(t, tgt, stage, prio, ds_cstr(m), ds_cstr(a), hint);
    }
}

/* log-related: replies and related traffic of a labelled connection are
 * logged in the opposite pipeline.  The flows sit above the fixed reply and
 * related flows, so they repeat what those do (23.03 only logged). */
static void
build_log_related(struct lflow_table *t, const struct acl_target *tgt,
                  const struct acl_ref *ref, const struct acl_globals *g,
                  struct ds *m, struct ds *a)
{
    const struct nb_acl *acl = ref->nb;
    if (!acl->log || !acl->label
        || !smap_get_bool(acl->options, "log-related", false)
        || (acl->action != NB_ACL_ACTION_ALLOW
            && acl->action != NB_ACL_ACTION_ALLOW_RELATED)) {
        return;
    }
    bool reply_in_ingress = acl_stage_of(acl) == ACL_OUT;
    enum ls_stage stage = reply_in_ingress ? S_IN_ACL : S_OUT_ACL;
    const char *inv = g->use_ct_inv ? "!ct.inv && " : "";

    ds_clear(m);
    ds_put_format(m, "ct.est && !ct.rel && !ct.new && %sct.rpl && "
                  "%s == 0 && ct_label.label == %"PRIu32,
                  inv, g->blocked, acl->label);
    ds_clear(a);
    put_log(a, acl, "allow", g);
    ds_put_cstr(a, reply_in_ingress
                   ? REGBIT_ACL_HINT_DROP" = 0; "REGBIT_ACL_HINT_BLOCK" = 0; "
                     REGBIT_ACL_HINT_ALLOW_REL" = 1; next;"
                   : "next;");
    acl_flow_add(t, tgt, stage, PRI_ACL_LOG_RELATED, ds_cstr(m),
                 ds_cstr(a), &acl->header_.uuid);

    ds_clear(m);
    ds_put_format(m, "!ct.est && ct.rel && !ct.new && %s%s == 0"
                  " && ct_label.label == %"PRIu32, inv, g->blocked,
                  acl->label);
    ds_clear(a);
    put_log(a, acl, "allow", g);
    if (reply_in_ingress) {
        ds_put_cstr(a, REGBIT_ACL_HINT_ALLOW_REL" = 1; ");
    }
    ds_put_cstr(a, g->features.ct_lb_related ? "ct_commit_nat;" : "next;");
    acl_flow_add(t, tgt, stage, PRI_ACL_LOG_RELATED, ds_cstr(m),
                 ds_cstr(a), &acl->header_.uuid);
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
            ds_put_cstr(&m, "ip && inport == ");
            lex_put_string(&m, p->nb->name);
            lflow_add_port(t, dp, S_IN_PRE_ACL, 110, ds_cstr(&m), "next;",
                           &p->nb->header_.uuid);
            ds_clear(&m);
            ds_put_cstr(&m, "ip && outport == ");
            lex_put_string(&m, p->nb->name);
            lflow_add_port(t, dp, S_OUT_PRE_ACL, 110, ds_cstr(&m), "next;",
                           &p->nb->header_.uuid);
        }
    }
    ds_destroy(&m);
}

/* 'text', a fixed flow's match or actions written with ct_mark.blocked,
 * with the blocked bit where 'g''s chassis have it (in 's' if that is
 * ct_label.blocked). */
static const char *
with_blocked(const struct acl_globals *g, const char *text, struct ds *s)
{
    static const char mark[] = "ct_mark.blocked";
    if (g->features.ct_no_masked_label) {
        return text;
    }
    ds_clear(s);
    for (const char *p; (p = strstr(text, mark)) != NULL;
         text = p + strlen(mark)) {
        ds_put_buffer(s, text, p - text);
        ds_put_cstr(s, g->blocked);
    }
    ds_put_cstr(s, text);
    return ds_cstr(s);
}

static void
build_hints(struct lflow_table *t, const struct ls_datapath *dp,
            const struct acl_dp *ad, const struct acl_globals *g)
{
    struct ds scratch = DS_EMPTY_INITIALIZER;
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
                lflow_add(t, dp, s, hints[i].prio,
                          with_blocked(g, hints[i].match, &scratch),
                          hints[i].actions);
            }
        }
    }
    ds_destroy(&scratch);
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
    struct ds scratch = DS_EMPTY_INITIALIZER;

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
        lflow_add(t, dp, s, 1,
                  with_blocked(g, "ip && ct.est && ct_mark.blocked == 1",
                               &scratch),
                  REGBIT_CONNTRACK_COMMIT" = 1; next;");
        lflow_add(t, dp, s, PRI_ACL_FIXED,
                  with_blocked(g, (g->use_ct_inv
                                   ? "ct.inv || (ct.est && ct.rpl && "
                                     "ct_mark.blocked == 1)"
                                   : "(ct.est && ct.rpl && "
                                     "ct_mark.blocked == 1)"), &scratch),
                  "drop;");

        const char *inv = g->use_ct_inv ? "!ct.inv && " : "";
        char *m = xasprintf("ct.est && !ct.rel && !ct.new && %sct.rpl && "
                            "%s == 0", inv, g->blocked);
        lflow_add(t, dp, s, PRI_ACL_FIXED, m,
                  out ? "next;"
                      : REGBIT_ACL_HINT_DROP" = 0; "REGBIT_ACL_HINT_BLOCK
                        " = 0; "REGBIT_ACL_HINT_ALLOW_REL" = 1; next;");
        free(m);
        m = xasprintf("!ct.est && ct.rel && !ct.new && %s%s == 0",
                      inv, g->blocked);
        const char *rel = g->features.ct_lb_related ? "ct_commit_nat;"
                                                    : "next;";
        char *a = (out ? xstrdup(rel)
                   : xasprintf(REGBIT_ACL_HINT_ALLOW_REL" = 1; %s", rel));
        lflow_add(t, dp, s, PRI_ACL_FIXED, m, a);
        free(m);
        free(a);
    }

    /* Commit what the ACLs asked for; only traffic conntrack has seen, so
     * stateless traffic never creates an entry here. */
    for (int out = 0; out < 2; out++) {
        enum ls_stage s = out ? S_OUT_STATEFUL : S_IN_STATEFUL;
        lflow_add(t, dp, s, 100,
                  REGBIT_CONNTRACK_COMMIT" == 1 && "REGBIT_ACL_LABEL" == 0 && "
                  "ct.trk",
                  with_blocked(g, "ct_commit { ct_mark.blocked = 0; }; next;",
                               &scratch));
        lflow_add(t, dp, s, 100,
                  REGBIT_CONNTRACK_COMMIT" == 1 && "REGBIT_ACL_LABEL" == 1 && "
                  "ct.trk",
                  with_blocked(g, "ct_commit { ct_mark.blocked = 0; "
                               "ct_label.label = "REG_LABEL"; }; next;",
                               &scratch));
    }
    ds_destroy(&scratch);
}
static struct acl_state *
acl_state_find(const struct acls *a, const struct nb_acl *nb)
{
    uint32_t i = rdb_row_index(&nb->header_);
    struct acl_state *s = i < a->n_by_row ? a->by_row[i] : NULL;
    /* A state goes before its row does, so a row's number is not given
     * to another row while a state has it. */
    ovs_assert(!s || s->nb == nb);
    return s;
}

static struct acl_state *
acl_state_get(struct acls *a, const struct nb_acl *nb)
{
    struct acl_state *s = acl_state_find(a, nb);
    if (!s) {
        uint32_t i = rdb_row_index(&nb->header_);
        if (i >= a->n_by_row) {
            size_t n = MAX(i + 1, 2 * a->n_by_row);
            a->by_row = xrealloc(a->by_row, n * sizeof *a->by_row);
            memset(a->by_row + a->n_by_row, 0,
                   (n - a->n_by_row) * sizeof *a->by_row);
            a->n_by_row = n;
        }
        s = objpool_zalloc(&acl_state_pool);
        lflow_owner_init(&s->owner);
        s->nb = nb;
        a->by_row[i] = s;
    }
    s->deleted = nb_acl_is_deleted(nb);
    return s;
}

static struct acl_container *
container_find(const struct acls *a, const struct uuid *uuid)
{
    struct acl_container *c;
    HMAP_FOR_EACH_WITH_HASH (c, node, uuid_hash(uuid), &a->containers) {
        if (uuid_equals(&c->uuid, uuid)) {
            return c;
        }
    }
    return NULL;
}

/* The positions of list 'names' in the name_lists of each of its first
 * n_as + n_pg names, which follow the names (see struct acl_names). */
static uint32_t *
acl_names_pos(const struct acl_names *names)
{
    size_t n = names->n_as + names->n_pg + names->n_drop_pg;
    return ALIGNED_CAST(uint32_t *,
                        CONST_CAST(const char **, names->names + n));
}

static int
compare_pointers(const void *a_, const void *b_)
{
    uintptr_t a = (uintptr_t) *(const char *const *) a_;
    uintptr_t b = (uintptr_t) *(const char *const *) b_;
    return a < b ? -1 : a > b;
}

/* Appends the names of 'set' (may be NULL) to 'v' at '*n' as strpool
 * references, in pointer order, so that equal lists compare equal. */
static void
put_sorted_names(const char **v, size_t *n, const struct sset *set)
{
    size_t start = *n;
    const char *name;
    SSET_FOR_EACH (name, set) {
        v[(*n)++] = strpool_get(name);
    }
    qsort(v + start, *n - start, sizeof *v, compare_pointers);
}

static uint32_t
names_hash(const char *const *v, size_t n_as, size_t n_pg, size_t n_drop)
{
    uint32_t hash = hash_int(n_as | (n_pg << 16), n_drop);
    for (size_t i = 0; i < n_as + n_pg + n_drop; i++) {
        hash = hash_pointer(v[i], hash);
    }
    return hash;
}

/* Adds list 'an' to, or removes it from, the name_lists of each of its
 * first n_as + n_pg names: in 'set_users' for the address sets, in
 * 'pg_users' for the port groups. */
static void
name_lists_update(struct acls *a, struct acl_names *an, bool add)
{
    uint32_t *pos = acl_names_pos(an);
    for (size_t i = 0; i < an->n_as + an->n_pg; i++) {
        struct shash *by_name = i < an->n_as ? &a->set_users : &a->pg_users;
        const char *name = an->names[i];
        struct shash_node *node = shash_find_hashed(by_name, name,
                                                    strpool_hash(name));
        struct name_lists *nl = node ? node->data : NULL;
        if (add) {
            if (!nl) {
                nl = xzalloc(sizeof *nl);
                shash_add(by_name, name, nl);
            }
            if (nl->n >= nl->allocated) {
                nl->v = x2nrealloc(nl->v, &nl->allocated, sizeof *nl->v);
            }
            ovs_assert(nl->n < UINT32_MAX);
            pos[i] = nl->n;
            nl->v[nl->n++] = an;
        } else {
            ovs_assert(nl && pos[i] < nl->n && nl->v[pos[i]] == an);
            struct acl_names *last = nl->v[--nl->n];
            if (last != an) {
                nl->v[pos[i]] = last;
                /* 'last' names 'name' once among the same part. */
                size_t first = i < an->n_as ? 0 : last->n_as;
                size_t end = i < an->n_as ? last->n_as
                             : last->n_as + last->n_pg;
                size_t j = first;
                while (last->names[j] != name) {
                    j++;
                    ovs_assert(j < end);
                }
                acl_names_pos(last)[j] = pos[i];
            }
            if (!nl->n) {
                free(nl->v);
                free(nl);
                shash_delete(by_name, node);
            }
        }
    }
}

/* Makes 's' a user of the list of the names of 'as', 'pg' and 'drop_pg'
 * (may be NULL), found or made; none if there are no names. */
static void
acl_names_attach(struct acls *a, struct acl_state *s, const struct sset *as,
                 const struct sset *pg, const struct sset *drop_pg)
{
    ovs_assert(!s->names);
    size_t n_as = sset_count(as), n_pg = sset_count(pg);
    size_t n_drop = drop_pg ? sset_count(drop_pg) : 0;
    size_t n = n_as + n_pg + n_drop;
    if (!n) {
        return;
    }
    /* A match is at most a few kB: its names fit in 16 bits. */
    ovs_assert(n <= UINT16_MAX);
    const char **v = xmalloc(n * sizeof *v);
    size_t i = 0;
    put_sorted_names(v, &i, as);
    put_sorted_names(v, &i, pg);
    if (drop_pg) {
        put_sorted_names(v, &i, drop_pg);
    }

    uint32_t hash = names_hash(v, n_as, n_pg, n_drop);
    struct acl_names *an;
    HMAP_FOR_EACH_WITH_HASH (an, node, hash, &a->name_lists) {
        if (an->n_as == n_as && an->n_pg == n_pg && an->n_drop_pg == n_drop
            && !memcmp(an->names, v, n * sizeof *v)) {
            break;
        }
    }
    if (an) {
        for (i = 0; i < n; i++) {
            strpool_put(v[i]);
        }
    } else {
        an = xzalloc(sizeof *an + n * sizeof *an->names
                     + (n_as + n_pg) * sizeof(uint32_t));
        an->n_as = n_as;
        an->n_pg = n_pg;
        an->n_drop_pg = n_drop;
        memcpy(an->names, v, n * sizeof *v);
        hmap_insert(&a->name_lists, &an->node, hash);
        name_lists_update(a, an, true);
    }
    free(v);

    if (an->n_users >= an->allocated_users) {
        size_t allocated = an->allocated_users;
        an->users = x2nrealloc(an->users, &allocated, sizeof *an->users);
        ovs_assert(allocated <= UINT32_MAX);
        an->allocated_users = allocated;
    }
    s->names = an;
    s->names_pos = an->n_users;
    an->users[an->n_users++] = s;
}

/* Takes 's' out of the users of its list, which goes if it was the last. */
static void
acl_names_detach(struct acls *a, struct acl_state *s)
{
    struct acl_names *an = s->names;
    if (!an) {
        return;
    }
    ovs_assert(s->names_pos < an->n_users && an->users[s->names_pos] == s);
    struct acl_state *last = an->users[--an->n_users];
    if (last != s) {
        an->users[s->names_pos] = last;
        last->names_pos = s->names_pos;
    }
    s->names = NULL;
    if (!an->n_users) {
        name_lists_update(a, an, false);
        hmap_remove(&a->name_lists, &an->node);
        size_t n = an->n_as + an->n_pg + an->n_drop_pg;
        for (size_t i = 0; i < n; i++) {
            strpool_put(an->names[i]);
        }
        free(an->users);
        free(an);
    }
}

/* The address sets, port groups, and port groups of the drop match of
 * 's', as '*n' names. */
static const char *const *
acl_as_names(const struct acl_state *s, size_t *n)
{
    *n = s->names ? s->names->n_as : 0;
    return s->names ? s->names->names : NULL;
}

static const char *const *
acl_pg_names(const struct acl_state *s, size_t *n)
{
    *n = s->names ? s->names->n_pg : 0;
    return s->names ? s->names->names + s->names->n_as : NULL;
}

static const char *const *
acl_drop_pg_names(const struct acl_state *s, size_t *n)
{
    *n = s->names ? s->names->n_drop_pg : 0;
    return (s->names ? s->names->names + s->names->n_as + s->names->n_pg
            : NULL);
}

/* Sets 'as' and 'pg' to the address sets and port groups the match of 's'
 * names. */
static void
acl_names_to_ssets(const struct acl_state *s, struct sset *as,
                   struct sset *pg)
{
    size_t n;
    const char *const *names = acl_as_names(s, &n);
    sset_clear(as);
    for (size_t i = 0; i < n; i++) {
        sset_add(as, names[i]);
    }
    names = acl_pg_names(s, &n);
    sset_clear(pg);
    for (size_t i = 0; i < n; i++) {
        sset_add(pg, names[i]);
    }
}

/* Queues for revalidation every ACL whose match names 'name' in
 * 'by_name' (the address sets' or the port groups' table). */
static void
revalidate_users(struct acls *a, const struct shash *by_name,
                 const char *name)
{
    const struct name_lists *nl = shash_find_data(by_name, name);
    for (size_t i = 0; nl && i < nl->n; i++) {
        const struct acl_names *an = nl->v[i];
        for (size_t j = 0; j < an->n_users; j++) {
            hmapx_add(&a->revalidate, an->users[j]);
        }
    }
}

static void
users_destroy(struct shash *by_name)
{
    struct shash_node *node;
    SHASH_FOR_EACH (node, by_name) {
        struct name_lists *nl = node->data;
        free(nl->v);
        free(nl);
    }
    shash_destroy(by_name);
}

/* Gives back the room the arrays of 'a''s lists keep for more users:
 * after a full pass, the doubling left a third of them unused. */
static void
users_shrink(struct acls *a)
{
    struct acl_names *an;
    HMAP_FOR_EACH (an, node, &a->name_lists) {
        if (an->allocated_users > an->n_users) {
            an->users = xrealloc(an->users,
                                 an->n_users * sizeof *an->users);
            an->allocated_users = an->n_users;
        }
    }
    struct shash *tables[] = { &a->set_users, &a->pg_users };
    for (size_t i = 0; i < ARRAY_SIZE(tables); i++) {
        struct shash_node *node;
        SHASH_FOR_EACH (node, tables[i]) {
            struct name_lists *nl = node->data;
            if (nl->allocated > nl->n) {
                nl->v = xrealloc(nl->v, nl->n * sizeof *nl->v);
                nl->allocated = nl->n;
            }
        }
    }
}

/* The port groups the flows of 's' name: those of its match, or of the
 * drop that replaces an invalid one. */
static const char *const *
acl_flow_pg_names(const struct acl_state *s, size_t *n)
{
    return s->force_drop ? acl_drop_pg_names(s, n) : acl_pg_names(s, n);
}

static void
pg_ref_free(struct acl_pg_ref *r)
{
    dpset_unref(r->set);
    strpool_put(r->name);
    free(r);
}

/* Adds (delta 1) or takes back (delta -1) what 's' contributes to the
 * counts of datapath 'dp'. */
static void
count_on_dp(struct acls *a, struct acl_state *s, size_t dp, int delta)
{
    struct acl_dp *ad = &a->dps[dp];
    ad->n_acls += delta;
    ad->n_stateful += s->stateful ? delta : 0;
    ad->n_pass[s->k] += s->pass ? delta : 0;
    ad->n_tier[s->k][s->tier] += delta;
    a->n_compiled += delta;
    bitmap_set1(a->touched, dp);
}

/* Adds (delta 1) or takes back (delta -1) the references the flows of 's'
 * make to port groups on the datapaths of 'set'. */
static void
pg_refs_update(struct acls *a, const struct acl_state *s,
               const struct dpset *set, int delta)
{
    size_t n;
    const char *const *names = acl_flow_pg_names(s, &n);
    for (size_t i = 0; i < n; i++) {
        const char *name = names[i];
        uint32_t name_hash = strpool_hash(name);
        uint32_t hash = hash_pointer(set, name_hash);
        struct acl_pg_ref *r;
        HMAP_FOR_EACH_WITH_HASH (r, node, hash, &a->pg_refs) {
            if (r->set == set && r->name == name) {
                break;
            }
        }
        if (!r) {
            ovs_assert(delta > 0);
            r = xmalloc(sizeof *r);
            r->set = dpset_ref(set);
            r->name = strpool_ref(name);
            r->n = 0;
            hmap_insert(&a->pg_refs, &r->node, hash);
        }
        unsigned int old = r->n;
        r->n += delta;
        if (!old || !r->n) {
            size_t dp;
            BITMAP_FOR_EACH_1 (dp, a->dp_cap, set->map) {
                groups_pg_ref(a->groups, dp, name, name_hash, delta);
            }
        }
        if (!r->n) {
            hmap_remove(&a->pg_refs, &r->node);
            pg_ref_free(r);
        }
    }
}

static void
acl_unapply(struct acls *a, struct lflow_table *t, struct acl_state *s)
{
    if (s->applied) {
        size_t dp;
        BITMAP_FOR_EACH_1 (dp, a->dp_cap, s->dps->map) {
            count_on_dp(a, s, dp, -1);
        }
        pg_refs_update(a, s, s->dps, -1);
        dpset_unref(s->dps);
        s->dps = NULL;
        s->applied = false;
    } else if (s->skipped) {
        a->n_skipped--;
        s->skipped = false;
    }
    acl_names_detach(a, s);
    if (s->rare) {
        free(s->rare->drop_match);
        s->rare->drop_match = NULL;
        acl_rare_trim(s);
    }
    lflow_owner_clear(t, &s->owner);
    acl_errors_forget(a->errors, acl_state_uuid(s));
}

static void
acl_state_destroy(struct acls *a, struct acl_state *s)
{
    a->by_row[rdb_row_index(&s->nb->header_)] = NULL;
    hmapx_find_and_delete(&a->queue, s);
    hmapx_find_and_delete(&a->revalidate, s);
    hmapx_find_and_delete(&a->compile, s);
    hmapx_find_and_delete(&a->span, s);
    hmapx_find_and_delete(&a->grown, s);
    acl_rare_destroy(s);
    lflow_owner_destroy(&s->owner);
    dpset_unref(s->dps);
    acl_names_detach(a, s);
    if (s->n_refs > 1) {
        free(s->refs.v);
    }
    objpool_free(&acl_state_pool, s);
}

/* The container whose name an ACL listed in several is reported under:
 * switches first, then port groups, each by UUID. */
static const struct acl_container *
primary_container(const struct acl_state *s)
{
    struct acl_container *const *refs = acl_refs(s);
    const struct acl_container *best = refs[0];
    for (size_t i = 1; i < s->n_refs; i++) {
        const struct acl_container *c = refs[i];
        if (!c->pg != !best->pg ? !c->pg
            : uuid_compare_3way(&c->uuid, &best->uuid) < 0) {
            best = c;
        }
    }
    return best;
}

/* The switches 's' applies to now, from its containers (a new
 * reference). */
static const struct dpset *
acl_current_dps(struct acls *a, const struct acl_state *s)
{
    unsigned long *dps = a->scratch_dps;
    bitmap_set_multiple(dps, 0, a->dp_cap, false);
    struct acl_container *const *refs = acl_refs(s);
    for (size_t i = 0; i < s->n_refs; i++) {
        const struct acl_container *c = refs[i];
        if (c->pg) {
            bitmap_or(dps, c->pg->dps, a->dp_cap);
        } else {
            bitmap_set1(dps, c->dp);
        }
    }
    return dpset_intern(dps, a->dp_cap);
}

/* Re-evaluates 's' after its row, containers or dependencies changed:
 * takes back what it contributed, checks it, and applies it again to the
 * datapaths it now applies to.  Its flows are rebuilt later. */
static void
acl_evaluate(struct acls *a, struct lflow_table *t, struct acl_state *s)
{
    acl_unapply(a, t, s);
    if (s->deleted || !s->n_refs) {
        acl_state_destroy(a, s);
        return;
    }

    const struct nb_acl *acl = s->nb;
    const struct acl_container *home = primary_container(s);
    struct sset *as = &a->scratch_as, *pg = &a->scratch_pg;
    sset_clear(as);
    sset_clear(pg);
    const char *match = strpack_cstr(acl->match, &a->match_text);
    groups_scan_refs(match, as, pg);

    const char *error = acl_check_match(a->check, match, as, pg);
    if (s->rare) {
        free(s->rare->error);
        s->rare->error = NULL;
    }
    if (error) {
        acl_rare(s)->error = xstrdup(error);
    }
    acl_rare_trim(s);
    s->force_drop = false;
    if (error) {
        bool blocks = (acl->action == NB_ACL_ACTION_DROP
                       || acl->action == NB_ACL_ACTION_REJECT);
        s->force_drop = a->g.fail_closed && blocks;
        acl_errors_report(a->errors, acl, match, home->owner, error,
                          s->force_drop);
    }
    struct sset *drop_pg = NULL;
    if (s->force_drop) {
        /* Stop everything the ACL could have been meant to stop. */
        struct acl_rare *r = acl_rare(s);
        free(r->drop_match);
        r->drop_match = (home->pg && home->pg->nb
                         ? pg_traffic_match(home->pg->nb, acl)
                         : xstrdup("1"));
        drop_pg = &a->scratch_drop_pg;
        sset_clear(drop_pg);
        groups_scan_refs(r->drop_match, NULL, drop_pg);
    }
    /* Even a left-out ACL is a user: a port group's appearance changes
     * the verdict too. */
    acl_names_attach(a, s, as, pg, drop_pg);
    if (error && !s->force_drop) {
        s->skipped = true;
        a->n_skipped++;
        COVERAGE_INC(acl_skipped);
        return;
    }

    s->k = acl_stage_of(acl);
    s->stateful = (!s->force_drop
                   && acl->action == NB_ACL_ACTION_ALLOW_RELATED);
    s->pass = acl->action == NB_ACL_ACTION_PASS;
    s->tier = MAX(0, MIN(acl->tier, ACL_MAX_TIER));

    s->dps = acl_current_dps(a, s);
    size_t dp;
    BITMAP_FOR_EACH_1 (dp, a->dp_cap, s->dps->map) {
        count_on_dp(a, s, dp, 1);
    }
    pg_refs_update(a, s, s->dps, 1);
    s->applied = true;
    hmapx_add(&a->compile, s);
}

/* Classifies datapath 'ad' from its counts.  Returns true if the flows of
 * its ACLs must be rebuilt; sets '*dp_changed' if its own flows must. */
static bool
acl_dp_classify(struct acl_dp *ad, bool *dp_changed)
{
    struct acl_dp old = *ad;
    ad->has_stateful = ad->n_stateful > 0;
    bool acls_changed = ad->has_stateful != old.has_stateful;
    for (int k = 0; k < N_ACL_STAGES; k++) {
        ad->max_tier[k] = 0;
        for (int tier = ACL_MAX_TIER; tier > 0; tier--) {
            if (ad->n_tier[k][tier]) {
                ad->max_tier[k] = tier;
                break;
            }
        }
        ad->tiered[k] = ad->n_pass[k] > 0 || ad->max_tier[k] > 0;
        acls_changed |= ad->tiered[k] != old.tiered[k];
        *dp_changed |= ad->max_tier[k] != old.max_tier[k];
    }
    ad->has_acls = ad->n_acls > 0;
    *dp_changed |= acls_changed || ad->has_acls != old.has_acls;
    return acls_changed;
}

/* A port group of applied ACL 's' gained or lost switches: counts and
 * flows follow on those switches only; the others are left alone. */
static void
acl_update_span(struct acls *a, struct lflow_table *t, struct acl_state *s)
{
    if (!s->applied) {
        return;                     /* Left out: it applies nowhere. */
    }
    const struct dpset *now = acl_current_dps(a, s);
    if (now == s->dps) {
        dpset_unref(now);
        return;
    }
    /* Gains first, so that a switch in both sets keeps its references. */
    pg_refs_update(a, s, now, 1);
    pg_refs_update(a, s, s->dps, -1);
    unsigned long *lost = bitmap_allocate(a->dp_cap);
    size_t dp;
    BITMAP_FOR_EACH_1 (dp, a->dp_cap, s->dps->map) {
        if (!bitmap_is_set(now->map, dp)) {
            bitmap_set1(lost, dp);
            count_on_dp(a, s, dp, -1);
        }
    }
    if (!bitmap_is_all_zeros(lost, a->dp_cap)) {
        lflow_owner_clear_dps(t, &s->owner, lost);
    }
    BITMAP_FOR_EACH_1 (dp, a->dp_cap, now->map) {
        if (!bitmap_is_set(s->dps->map, dp)) {
            count_on_dp(a, s, dp, 1);
            struct acl_rare *r = acl_rare(s);
            if (!r->new_dps) {
                r->new_dps = bitmap_allocate(a->dp_cap);
            }
            bitmap_set1(r->new_dps, dp);
            hmapx_add(&a->grown, s);
        }
    }
    dpset_unref(s->dps);
    s->dps = now;
    bitmap_free(lost);
}

/* What, of a switch's classification, the flows of an ACL of kind 'k'
 * depend on (see build_acl_flows()): 3 bits. */
#define N_ACL_PROFILES 8
static unsigned int
acl_dp_profile(const struct acl_dp *ad, enum acl_stage_kind k)
{
    return (ad->has_stateful << 2) | (ad->has_lb << 1) | ad->tiered[k];
}

/* Adds the flows of 's' on the switches in 'dps'.  Switches that classify
 * alike get the same flows, so they are built once for each such group
 * (an ACL of a port group on 100 switches is one compile, not 100). */
static void
compile_acl_dps(struct acls *a, struct lflow_table *t, struct acl_state *s,
                const unsigned long *dps)
{
    unsigned long *group[N_ACL_PROFILES] = { NULL };
    size_t first[N_ACL_PROFILES] = { 0 };
    size_t n[N_ACL_PROFILES] = { 0 };
    size_t dp;
    BITMAP_FOR_EACH_1 (dp, a->dp_cap, dps) {
        unsigned int p = acl_dp_profile(&a->dps[dp], s->k);
        if (!n[p]++) {
            first[p] = dp;
        } else {
            if (!group[p]) {
                group[p] = bitmap_allocate(a->dp_cap);
                bitmap_set1(group[p], first[p]);
            }
            bitmap_set1(group[p], dp);
        }
    }

    /* Every change to the row queued 's' for acl_evaluate() before this:
     * its match is the one that was checked. */
    struct acl_ref ref = { s->nb,
                           (s->force_drop ? s->rare->drop_match
                            : strpack_cstr(s->nb->match, &a->match_text)),
                           s->force_drop };
    if (!s->force_drop) {
        lflow_table_hint_body(t, s->nb->match, ref.match);
    }
    for (unsigned int p = 0; p < N_ACL_PROFILES; p++) {
        if (!n[p]) {
            continue;
        }
        const struct acl_dp *ad = &a->dps[first[p]];
        struct acl_target tgt = { a->model->dp_array[first[p]], group[p] };
        build_acl_flows(t, &tgt, ad, &ref, &a->g, &a->match, &a->actions);
        if (ad->has_stateful || ad->has_lb) {
            build_log_related(t, &tgt, &ref, &a->g, &a->match, &a->actions);
        }
        bitmap_free(group[p]);
        COVERAGE_INC(acl_compiled);
    }
}

static void
compile_acl(struct acls *a, struct lflow_table *t, struct acl_state *s)
{
    lflow_owner_clear(t, &s->owner);
    if (!s->applied) {
        return;
    }
    lflow_table_set_owner(t, &s->owner);
    compile_acl_dps(a, t, s, s->dps->map);
    lflow_table_set_owner(t, NULL);
    lflow_owner_shrink(&s->owner);
}

static void
unlink_ref(struct acl_state *s, const struct acl_container *c)
{
    if (s->n_refs <= 1) {
        if (s->n_refs && s->refs.one == c) {
            s->refs.one = NULL;
            s->n_refs = 0;
        }
        return;
    }
    struct acl_container **v = s->refs.v;
    for (size_t i = 0; i < s->n_refs; i++) {
        if (v[i] == c) {
            v[i] = v[--s->n_refs];
            if (s->n_refs == 1) {
                s->refs.one = v[0];
                free(v);
            }
            return;
        }
    }
}

/* Makes container 'uuid' list the 'n' ACLs in 'rows' (a switch's or port
 * group's 'acls' column); creates it if needed, and destroys it if 'n' is
 * zero.  ACLs that joined or left it are queued. */
static void
set_container_acls(struct acls *a, const struct uuid *uuid,
                   const char *owner, size_t dp, struct pg_state *pg,
                   struct nb_acl **rows, size_t n)
{
    struct acl_container *c = container_find(a, uuid);
    if (!c && !n) {
        return;
    }
    if (!c) {
        c = xzalloc(sizeof *c);
        c->uuid = *uuid;
        hmap_insert(&a->containers, &c->node, uuid_hash(uuid));
    }
    /* A renamed container's ACLs report errors under the new name. */
    bool renamed = c->owner && strcmp(c->owner, owner);
    free(c->owner);
    c->owner = xstrdup(owner);
    c->dp = dp;
    c->pg = pg;

    /* Only ACLs that joined or left the list are queued: a port group may
     * list hundreds. */
    struct hmapx old = HMAPX_INITIALIZER(&old);
    for (size_t i = 0; i < c->n_acls; i++) {
        hmapx_add(&old, c->acls[i]);
    }
    free(c->acls);
    c->acls = xmalloc(MAX(n, 1) * sizeof *c->acls);
    c->n_acls = 0;
    for (size_t i = 0; i < n; i++) {
        struct acl_state *s = acl_state_find(a, rows[i]);
        if (s && hmapx_find_and_delete(&old, s)) {
            c->acls[c->n_acls++] = s;       /* Stays. */
            if (renamed) {
                hmapx_add(&a->queue, s);
            }
            continue;
        }
        s = acl_state_get(a, rows[i]);
        bool dup = false;
        for (size_t j = 0; j < s->n_refs && !dup; j++) {
            dup = acl_refs(s)[j] == c;
        }
        if (dup) {
            continue;
        }
        if (s->n_refs >= ACL_MAX_REFS) {
            static struct vlog_rate_limit refs_rl
                = VLOG_RATE_LIMIT_INIT(1, 5);
            VLOG_WARN_RL(&refs_rl, "ACL "UUID_FMT" is listed by more than "
                         "%u switches and port groups: not applied through "
                         "%s", UUID_ARGS(acl_state_uuid(s)), ACL_MAX_REFS,
                         owner);
            continue;
        }
        acl_refs_add(s, c);
        c->acls[c->n_acls++] = s;
        hmapx_add(&a->queue, s);
    }
    struct hmapx_node *node;
    HMAPX_FOR_EACH (node, &old) {
        struct acl_state *s = node->data;
        unlink_ref(s, c);
        hmapx_add(&a->queue, s);
    }
    hmapx_destroy(&old);
    if (!c->n_acls) {
        hmap_remove(&a->containers, &c->node);
        free(c->acls);
        free(c->owner);
        free(c);
    }
}

struct acls *
acls_create(const struct ls_model *m, const struct lb_model *lm,
            struct groups *groups, struct rdb *nb_db,
            const struct nb_nb_global *nb,
            const struct ls_features *features, size_t dp_cap,
            struct acl_registry *errors)
{
    struct acls *a = xzalloc(sizeof *a);
    a->g.features = *features;
    a->g.blocked = ls_features_blocked(features);
    a->model = m;
    a->groups = groups;
    a->dp_cap = dp_cap;
    a->g.default_drop = nb && smap_get_bool(&nb->options, "default_acl_drop",
                                            false);
    a->g.use_ct_inv = !nb || smap_get_bool(&nb->options, "use_ct_inv_match",
                                           true);
    const char *policy = nb ? smap_get(&nb->options, "acl_invalid_policy")
                            : NULL;
    a->g.fail_closed = policy && !strcmp(policy, "fail-closed");
    shash_init(&a->g.fair_meters);
    const struct nb_meter *meter;
    NB_METER_FOR_EACH (meter, nb_db) {
        if (meter->n_fair && meter->fair[0]) {
            shash_add_once(&a->g.fair_meters, meter->name, NULL);
        }
    }

    a->errors = errors;
    a->check = acl_check_create(errors, groups, nb_db);
    a->dps = xcalloc(dp_cap, sizeof *a->dps);
    for (size_t i = 0; i < m->n_datapaths; i++) {
        a->dps[i].has_lb = lb_model_dp_has_vips(lm, i);
    }
    /* Room for every ACL row there is now. */
    a->n_by_row = rdb_index_limit(nb_db, &nb_table_acl);
    a->by_row = xcalloc(MAX(a->n_by_row, 1), sizeof *a->by_row);
    hmap_init(&a->name_lists);
    hmap_init(&a->containers);
    shash_init(&a->set_users);
    shash_init(&a->pg_users);
    hmap_init(&a->pg_refs);
    hmapx_init(&a->queue);
    hmapx_init(&a->revalidate);
    hmapx_init(&a->compile);
    hmapx_init(&a->span);
    hmapx_init(&a->grown);
    a->touched = bitmap_allocate(dp_cap);
    a->scratch_dps = bitmap_allocate(dp_cap);
    sset_init(&a->scratch_as);
    sset_init(&a->scratch_pg);
    sset_init(&a->scratch_drop_pg);
    ds_init(&a->match);
    ds_init(&a->match_text);
    ds_init(&a->actions);
    /* Every datapath is classified on the first run. */
    bitmap_set_multiple(a->touched, 0, m->n_datapaths, true);

    for (size_t i = 0; i < m->n_datapaths; i++) {
        const struct nb_logical_switch *ls = m->dp_array[i]->nb;
        char *owner = xasprintf("switch %s", ls->name);
        set_container_acls(a, &ls->header_.uuid, owner, i, NULL, ls->acls,
                           ls->n_acls);
        free(owner);
    }
    struct pg_state *pg;
    HMAP_FOR_EACH (pg, node, &groups->pgs) {
        char *owner = xasprintf("port group %s", pg->name);
        set_container_acls(a, &pg->uuid, owner, 0, pg, pg->nb->acls,
                           pg->nb->n_acls);
        free(owner);
    }
    return a;
}

void
acls_destroy(struct acls *a)
{
    if (!a) {
        return;
    }
    for (size_t i = 0; i < a->n_by_row; i++) {
        if (a->by_row[i]) {
            acl_state_destroy(a, a->by_row[i]);
        }
    }
    free(a->by_row);
    struct acl_container *c;
    HMAP_FOR_EACH_POP (c, node, &a->containers) {
        free(c->acls);
        free(c->owner);
        free(c);
    }
    hmap_destroy(&a->containers);
    ovs_assert(hmap_is_empty(&a->name_lists));
    hmap_destroy(&a->name_lists);
    users_destroy(&a->set_users);
    users_destroy(&a->pg_users);
    struct acl_pg_ref *r;
    HMAP_FOR_EACH_POP (r, node, &a->pg_refs) {
        pg_ref_free(r);
    }
    hmap_destroy(&a->pg_refs);
    free(a->dps);
    hmapx_destroy(&a->queue);
    hmapx_destroy(&a->revalidate);
    hmapx_destroy(&a->compile);
    hmapx_destroy(&a->span);
    hmapx_destroy(&a->grown);
    bitmap_free(a->touched);
    bitmap_free(a->scratch_dps);
    sset_destroy(&a->scratch_as);
    sset_destroy(&a->scratch_pg);
    sset_destroy(&a->scratch_drop_pg);
    ds_destroy(&a->match);
    ds_destroy(&a->match_text);
    ds_destroy(&a->actions);
    acl_check_destroy(a->check);
    shash_destroy(&a->g.fair_meters);
    free(a);
}

void
acls_handle_acl(struct acls *a, const struct nb_acl *row)
{
    struct acl_state *s = acl_state_find(a, row);
    if (s) {
        s->deleted = nb_acl_is_deleted(row);
        hmapx_add(&a->queue, s);
    }
    /* A new ACL is picked up through the container that lists it. */
}

void
acls_handle_switch(struct acls *a, const struct ls_datapath *dp)
{
    const struct nb_logical_switch *ls = dp->nb;
    char *owner = xasprintf("switch %s", ls->name);
    set_container_acls(a, &ls->header_.uuid, owner, dp->index, NULL,
                       ls->acls, ls->n_acls);
    free(owner);
}

void
acls_handle_pg(struct acls *a, struct pg_state *pg)
{
    char *owner = xasprintf("port group %s", pg->name);
    set_container_acls(a, &pg->uuid, owner, 0, pg, pg->nb->acls,
                       pg->nb->n_acls);
    free(owner);
}

void
acls_pg_span_changed(struct acls *a, const struct pg_state *pg)
{
    const struct acl_container *c = container_find(a, &pg->uuid);
    for (size_t i = 0; c && i < c->n_acls; i++) {
        hmapx_add(&a->span, c->acls[i]);
    }
}

void
acls_pg_members_changed(struct acls *a, const struct pg_state *pg)
{
    /* A fail-closed drop of a group whose name cannot be referred to
     * lists the group's ports. */
    const struct acl_container *c = container_find(a, &pg->uuid);
    for (size_t i = 0; c && i < c->n_acls; i++) {
        if (c->acls[i]->force_drop) {
            hmapx_add(&a->queue, c->acls[i]);
        }
    }
}

void
acls_pg_deleted(struct acls *a, struct pg_state *pg)
{
    set_container_acls(a, &pg->uuid, "", 0, pg, NULL, 0);
}

void
acls_pg_exists(struct acls *a, const char *name, bool exists)
{
    acl_check_set_pg(a->check, name, exists);
    revalidate_users(a, &a->pg_users, name);
}

void
acls_sets_changed(struct acls *a, const struct sset *names)
{
    const char *name;
    SSET_FOR_EACH (name, names) {
        acl_check_set_changed(a->check, name);
        revalidate_users(a, &a->set_users, name);
    }
}

void
acls_dp_added(struct acls *a, const struct ls_datapath *dp)
{
    ovs_assert(dp->index < a->dp_cap);
    bitmap_set1(a->touched, dp->index);
}

/* True if bitmaps 'x' and 'y' of 'n' bits have a bit in common. */
static bool
bitmaps_intersect(const unsigned long *x, const unsigned long *y, size_t n)
{
    for (size_t i = 0; i < bitmap_n_longs(n); i++) {
        if (x[i] & y[i]) {
            return true;
        }
    }
    return false;
}

/* Queues for compiling the ACLs applied on a switch in 'dps'.  Their
 * containers say which: an applied ACL is on the switches its containers
 * span, no other. */
static void
queue_dp_acls(struct acls *a, const unsigned long *dps)
{
    struct acl_container *c;
    HMAP_FOR_EACH (c, node, &a->containers) {
        if (c->pg ? !bitmaps_intersect(c->pg->dps, dps, a->dp_cap)
                  : !bitmap_is_set(dps, c->dp)) {
            continue;
        }
        for (size_t i = 0; i < c->n_acls; i++) {
            struct acl_state *s = c->acls[i];
            if (s->applied
                && bitmaps_intersect(s->dps->map, dps, a->dp_cap)) {
                hmapx_add(&a->compile, s);
            }
        }
    }
}

void
acls_dp_set_lb(struct acls *a, const struct ls_datapath *dp, bool has_lb)
{
    struct acl_dp *ad = &a->dps[dp->index];
    if (ad->has_lb != has_lb) {
        ad->has_lb = has_lb;
        unsigned long *dps = bitmap_allocate(a->dp_cap);
        bitmap_set1(dps, dp->index);
        queue_dp_acls(a, dps);
        bitmap_free(dps);
    }
}

void
acls_run(struct acls *a, struct lflow_table *t, unsigned long *dp_dirty)
{
    /* Most address set changes leave every match that names the set as
     * valid (or invalid) as it was: then its flows, which name the set
     * rather than its addresses, stay as they are. */
    struct hmapx_node *node;
    HMAPX_FOR_EACH (node, &a->revalidate) {
        struct acl_state *s = node->data;
        if (s->deleted || hmapx_contains(&a->queue, s)) {
            continue;
        }
        acl_names_to_ssets(s, &a->scratch_as, &a->scratch_pg);
        const char *error = acl_check_match(
            a->check, strpack_cstr(s->nb->match, &a->match_text),
            &a->scratch_as, &a->scratch_pg);
        if (!nullable_string_is_equal(error, ACL_RARE(s, error))) {
            hmapx_add(&a->queue, s);
        }
    }
    hmapx_clear(&a->revalidate);

    /* Re-evaluating one state never queues another. */
    size_t n_evaluated = hmapx_count(&a->queue);
    HMAPX_FOR_EACH_SAFE (node, &a->queue) {
        struct acl_state *s = node->data;
        hmapx_delete(&a->queue, node);
        hmapx_find_and_delete(&a->span, s);
        acl_evaluate(a, t, s);
    }
    HMAPX_FOR_EACH (node, &a->span) {
        acl_update_span(a, t, node->data);
    }
    hmapx_clear(&a->span);

    size_t dp;
    unsigned long *reclassified = NULL;
    BITMAP_FOR_EACH_1 (dp, a->dp_cap, a->touched) {
        bool dp_changed = false;
        if (acl_dp_classify(&a->dps[dp], &dp_changed)) {
            if (!reclassified) {
                reclassified = bitmap_allocate(a->dp_cap);
            }
            bitmap_set1(reclassified, dp);
        }
        if (dp_changed) {
            bitmap_set1(dp_dirty, dp);
        }
    }
    bitmap_set_multiple(a->touched, 0, a->dp_cap, false);
    if (reclassified) {
        queue_dp_acls(a, reclassified);
        bitmap_free(reclassified);
    }

    HMAPX_FOR_EACH (node, &a->compile) {
        compile_acl(a, t, node->data);
    }
    HMAPX_FOR_EACH (node, &a->grown) {
        struct acl_state *s = node->data;
        if (!hmapx_contains(&a->compile, s)) {
            lflow_table_set_owner(t, &s->owner);
            compile_acl_dps(a, t, s, s->rare->new_dps);
            lflow_table_set_owner(t, NULL);
        }
        bitmap_free(s->rare->new_dps);
        s->rare->new_dps = NULL;
        acl_rare_trim(s);
    }
    hmapx_clear(&a->grown);
    hmapx_clear(&a->compile);

    /* A full pass queues every ACL: what the queues' buckets held, a
     * megabyte each at 100,000 ACLs, is given back. */
    struct hmapx *queues[] = {
        &a->queue, &a->revalidate, &a->compile, &a->span, &a->grown,
    };
    for (size_t i = 0; i < ARRAY_SIZE(queues); i++) {
        hmap_shrink(&queues[i]->map);
    }
    if (n_evaluated > 10000) {
        users_shrink(a);
    }
}

void
acls_build_dp_lflows(const struct acls *a, struct lflow_table *t,
                     const struct ls_datapath *dp)
{
    const struct acl_dp *ad = &a->dps[dp->index];
    build_pre_acl(t, dp, ad);
    build_hints(t, dp, ad, &a->g);
    build_acl_stage_defaults(t, dp, ad, &a->g);
}

bool
acls_dp_stateful(const struct acls *a, const struct ls_datapath *dp)
{
    const struct acl_dp *ad = &a->dps[dp->index];
    return ad->has_stateful || ad->has_lb;
}

bool
acls_dp_has_stateful_acls(const struct acls *a, const struct ls_datapath *dp)
{
    return a->dps[dp->index].has_stateful;
}

bool
acls_dp_has_acls_or_lb(const struct acls *a, const struct ls_datapath *dp)
{
    const struct acl_dp *ad = &a->dps[dp->index];
    return ad->n_acls > 0 || ad->has_lb;
}

void
acls_format_stats(const struct acls *a, struct ds *out)
{
    ds_put_format(out, "ACLs compiled (per switch): %"PRIuSIZE"\n",
                  a ? a->n_compiled : 0);
    ds_put_format(out, "ACLs skipped: %"PRIuSIZE"\n", a ? a->n_skipped : 0);
    ds_put_format(out, "ACL name lists: %"PRIuSIZE"\n",
                  a ? hmap_count(&a->name_lists) : 0);
}
