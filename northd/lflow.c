/* The desired logical flow table and its SB reconciliation; see lflow.h. */
#include <config.h>
#include "northd/lflow.h"

#include <string.h>

#include "bitmap.h"
#include "coverage.h"
#include "hash.h"
#include "lib/counting-sort.h"
#include "lib/jscan.h"
#include "lib/nb-rdb.h"
#include "lib/objpool.h"
#include "lib/rdb.h"
#include "lib/sb-rdb.h"
#include "lib/strpack.h"
#include "lib/strpool.h"
#include "lib/text-hash.h"
#include "northd/copp.h"
#include "northd/datapaths.h"
#include "northd/dp-groups.h"
#include "northd/dpset.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "smap.h"
#include "uuid.h"
#include "uuidset.h"

VLOG_DEFINE_THIS_MODULE(lflow);

COVERAGE_DEFINE(lflow_repaired);
COVERAGE_DEFINE(lflow_foreign_deleted);

COVERAGE_DEFINE(lflow_inserted);
COVERAGE_DEFINE(lflow_deleted);
COVERAGE_DEFINE(lflow_updated);
COVERAGE_DEFINE(lflow_row_adopted);     /* A row some other writer made. */
COVERAGE_DEFINE(lflow_row_reused);      /* A row kept for new actions. */
COVERAGE_DEFINE(lflow_inserts_deferred); /* A sync left inserts for the next. */

struct lflow {
    struct hmap_node node;          /* In lflow_table 'flows'. */

    /* The match is 'match_head' followed by 'match_body' (if nonnull)
     * and, with 'match_paren', a ")": a strpool and a strpack reference,
     * see split_match().  A match that does not split (a port's ARP
     * responder, most often unique) is only 'match_head', owned: pooling
     * it would cost a lookup and gain nothing. */
    const char *match_head;
    const struct strpack *match_body;
    const char *actions;            /* A reference in the strpool. */

    /* The datapaths the flow is on.  Most flows are on one, 'dp': a set
     * is taken only once a flow is on a second, and is then usually the
     * very set its owner compiled it for (dpset.h). */
    union {
        const struct dpset *dps;    /* With 'on_set', a counted reference. */
        uint32_t dp;                /* With 'on_dp'. */
    } on;

    /* "stage-hint" names the lowest UUID among the contributing rows, so
     * it does not depend on the order they were compiled in.  The other
     * contributions' hints, which few flows have, are kept aside
     * (struct lflow_rare). */
    uint32_t hint;                  /* First 32 bits of that UUID. */

    uint32_t n_refs;                /* Contributions, all owners. */

    uint16_t priority;
    uint16_t stage;                 /* enum ls_stage. */
    uint16_t where;                 /* See where_intern(). */
    bool dirty : 1;                 /* In the table's 'dirty' array. */
    bool claimed : 1;               /* Matched to an SB row by the sync. */
    bool hint_set : 1;              /* 'hint' is valid. */
    bool hint_written : 1;          /* The SB row's external_ids are the
                                     * flow's, its hint as it is (the
                                     * replica does not keep northd's own
                                     * Logical_Flow rows, lib/sb.rdb). */
    bool hint_lapsed : 1;           /* They were, with 'hint', until its
                                     * last contribution went: an owner
                                     * that compiles its flows again gives
                                     * it back, and nothing is written. */
    bool sb_group : 1;              /* 'sb_target' is a Logical_DP_Group. */
    bool match_paren : 1;           /* The match ends in ")" after the
                                     * body. */
    bool on_dp : 1;                 /* On 'on.dp' only... */
    bool on_set : 1;                /* ...or on the set 'on.dps'. */
    bool has_meter : 1;             /* Has a controller meter... */
    bool has_more_hints : 1;        /* ...or more hints: few flows do
                                     * (struct lflow_rare). */
    bool has_row : 1;               /* Has an SB row, whose UUID is... */
    bool has_sb_uuid : 1;           /* ...kept aside (struct lflow_rare),
                                     * or else derived from the content
                                     * (lflow_sb_uuid()). */
    bool port_tag : 1;              /* The row has tags:in_out_port, the
                                     * port its match names (see
                                     * lflow_port_tag()). */

    /* The row's datapath, the model's struct ls_datapath, or with
     * 'sb_group' its struct dp_group; NULL if it is not known to be one
     * of ours.  Both live as long as the table, and keep their row UUIDs
     * while a row refers to them (dp-groups.h). */
    const void *sb_target;
};

/* Two million flows at a million ACLs: each 16 bytes is 32 MB.  So the
 * rare controller meter and extra hints are kept aside, the number of
 * datapaths is the set's own count, the one datapath shares its room with
 * the set, the row's datapath or group is a pointer rather than its UUID,
 * the row's hint is a bit, and the row's own UUID is not kept at all when
 * it is the one northd derives from the flow's content.  Flows come from a
 * pool (lib/objpool.h): mimalloc's next size class is 80 bytes. */
BUILD_ASSERT_DECL(sizeof(struct lflow) <= 72);
static struct objpool lflow_pool = OBJPOOL_INITIALIZER(struct lflow,
                                                       "lflows");

/* What few flows have, kept aside by flow pointer: a controller meter
 * ('has_meter'), the hints of contributions other than the one in 'hint'
 * ('has_more_hints'), the UUID of a row that some other writer inserted
 * ('has_sb_uuid'). */
struct lflow_rare {
    struct hmap_node node;          /* In the side's 'rares', by flow
                                     * pointer. */
    const struct lflow *flow;
    const char *meter;              /* A strpool reference, or NULL. */
    uint32_t *more_hints;           /* After their count, or NULL. */
    struct uuid sb_uuid;            /* With 'has_sb_uuid'. */
    struct hmap_node held_node;     /* With 'has_sb_uuid', in the side's
                                     * 'held', by uuid_hash('sb_uuid'). */
};

struct where_node {
    struct hmap_node node;          /* In the side's 'where_index', by
                                     * pointer. */
    const char *where;
    uint16_t n;
};

/* A piece of the JSON of a flow's external_ids (see set_lflow_ids()). */
struct ids_piece {
    char *s;
    size_t n;
    bool done;
};

/* What a table keeps beside its flows: its own, not the process's, so
 * that a second table can be built in the same process (northd's check of
 * its incremental passes, northd.h) without either disturbing the
 * other. */
struct lflow_side {
    /* The few flows' rare records ("struct lflow_rare"s, by flow
     * pointer). */
    struct hmap rares;

    /* The rare records of flows whose rows have UUIDs other than the ones
     * derived from their content, by that UUID: a row kept for a flow
     * whose actions changed (lflow_table_sync_dirty()) has the UUID
     * derived from the old content, which a new flow may have again. */
    struct hmap held;

    /* The source locations flows were added from ("northd/acls.c:123"),
     * by number: a few hundred, named by a 16-bit 'where' in each flow,
     * interned by pointer in 'where_index' ("struct where_node"s), the
     * last one looked up remembered, since flows come in runs from one
     * place. */
    const char **wheres;
    size_t n_wheres, allocated_wheres;
    struct hmap where_index;
    const char *last_where;
    uint16_t last_where_n;

    /* Where lflow_match() puts matches together. */
    struct ds match_scratch;

    /* The body packed or expanded last, and its text: the 2-3 flows of an
     * ACL come one after the other with the same body, which is then
     * packed once, and writing a flow's row hashes its match and then
     * writes it.  The cache holds a reference, so that its pointer stays
     * the body's. */
    const struct strpack *cached_body;
    struct ds cached_body_text;

    /* Pieces of the JSON of a flow's external_ids, each put together
     * once: its head up to the stage name, by stage, and its tail from
     * "source" on, by 'where'.  's' is NULL if the piece would need
     * escaping (never, with the names northd uses), and the flow's ids are
     * then written generically. */
    struct ids_piece stage_heads[LS_N_STAGE_IDS]; /* By enum ls_stage. */
    struct ids_piece *where_tails;              /* By 'where'. */
    size_t n_where_tails;
};

static struct lflow_side *
lflow_side_create(void)
{
    struct lflow_side *side = xzalloc(sizeof *side);
    hmap_init(&side->rares);
    hmap_init(&side->held);
    hmap_init(&side->where_index);
    ds_init(&side->match_scratch);
    ds_init(&side->cached_body_text);
    return side;
}

static void
lflow_side_destroy(struct lflow_side *side)
{
    /* The flows, and with them their rare records, are gone. */
    ovs_assert(hmap_is_empty(&side->rares));
    hmap_destroy(&side->rares);
    hmap_destroy(&side->held);
    free(side->wheres);
    struct where_node *wn;
    HMAP_FOR_EACH_POP (wn, node, &side->where_index) {
        free(wn);
    }
    hmap_destroy(&side->where_index);
    ds_destroy(&side->match_scratch);
    strpack_put(side->cached_body);
    ds_destroy(&side->cached_body_text);
    for (size_t i = 0; i < ARRAY_SIZE(side->stage_heads); i++) {
        free(side->stage_heads[i].s);
    }
    for (size_t i = 0; i < side->n_where_tails; i++) {
        free(side->where_tails[i].s);
    }
    free(side->where_tails);
    free(side);
}


static struct lflow_rare *
lflow_rare_find(struct lflow_side *side, const struct lflow *f)
{
    if (!f->has_meter && !f->has_more_hints && !f->has_sb_uuid) {
        return NULL;
    }
    struct lflow_rare *r;
    HMAP_FOR_EACH_WITH_HASH (r, node, hash_pointer(f, 0), &side->rares) {
        if (r->flow == f) {
            return r;
        }
    }
    OVS_NOT_REACHED();
}

static struct lflow_rare *
lflow_rare_get(struct lflow_side *side, const struct lflow *f)
{
    struct lflow_rare *r = lflow_rare_find(side, f);
    if (!r) {
        r = xzalloc(sizeof *r);
        r->flow = f;
        hmap_insert(&side->rares, &r->node, hash_pointer(f, 0));
    }
    return r;
}

/* Frees 'f''s record once it holds nothing. */
static void
lflow_rare_trim(struct lflow_side *side, struct lflow *f, struct lflow_rare *r)
{
    f->has_meter = r->meter != NULL;
    f->has_more_hints = r->more_hints != NULL;
    if (!f->has_meter && !f->has_more_hints && !f->has_sb_uuid) {
        hmap_remove(&side->rares, &r->node);
        free(r);
        if (hmap_is_empty(&side->rares)) {
            hmap_destroy(&side->rares);
            hmap_init(&side->rares);
        }
    }
}

/* The more hints of 'f', after their count, or NULL if none. */
static uint32_t *
lflow_more_hints(struct lflow_side *side, const struct lflow *f)
{
    return f->has_more_hints ? lflow_rare_find(side, f)->more_hints : NULL;
}

/* Makes 'more' (owned, or NULL) the more hints of 'f'. */
static void
lflow_set_more_hints(struct lflow_side *side, struct lflow *f, uint32_t *more)
{
    if (more || f->has_more_hints) {
        struct lflow_rare *r = lflow_rare_get(side, f);
        r->more_hints = more;
        lflow_rare_trim(side, f, r);
    }
}

/* The controller meter of 'f', a strpool reference, or NULL if none. */
static const char *
lflow_meter(struct lflow_side *side, const struct lflow *f)
{
    return f->has_meter ? lflow_rare_find(side, f)->meter : NULL;
}

static void
lflow_set_meter(struct lflow_side *side, struct lflow *f, const char *meter)
{
    if (meter) {
        struct lflow_rare *r = lflow_rare_get(side, f);
        strpool_put(r->meter);
        r->meter = strpool_get(meter);
        lflow_rare_trim(side, f, r);
    }
}

static void
lflow_clear_meter(struct lflow_side *side, struct lflow *f)
{
    if (f->has_meter) {
        struct lflow_rare *r = lflow_rare_find(side, f);
        strpool_put(r->meter);
        r->meter = NULL;
        lflow_rare_trim(side, f, r);
    }
}

/* How many datapaths 'f' is on. */
static uint32_t
lflow_n_dps(const struct lflow *f)
{
    return f->on_set ? f->on.dps->n : f->on_dp;
}

static uint16_t
where_intern(struct lflow_side *side, const char *where)
{
    if (where == side->last_where && where) {
        return side->last_where_n;
    }
    uint32_t hash = hash_pointer(where, 0);
    struct where_node *wn;
    HMAP_FOR_EACH_WITH_HASH (wn, node, hash, &side->where_index) {
        if (wn->where == where) {
            goto found;
        }
    }
    ovs_assert(side->n_wheres < UINT16_MAX);
    if (side->n_wheres >= side->allocated_wheres) {
        side->wheres = x2nrealloc(side->wheres, &side->allocated_wheres,
                                  sizeof *side->wheres);
    }
    side->wheres[side->n_wheres] = where;
    wn = xmalloc(sizeof *wn);
    wn->where = where;
    wn->n = side->n_wheres++;
    hmap_insert(&side->where_index, &wn->node, hash);
found:
    side->last_where = where;
    side->last_where_n = wn->n;
    return wn->n;
}

static uint32_t
n_more_hints(struct lflow_side *side, const struct lflow *f)
{
    const uint32_t *more = lflow_more_hints(side, f);
    return more ? more[0] : 0;
}

/* Where 'match' splits into a head and a body: just after the first '(',
 * if " && " comes right before it.  The flows of an ACL match
 * "<registers> && (<the ACL's match>)" and differ in the registers only:
 * they share the body, the biggest part of a flow's memory, and since the
 * replica packs the NB ACL's match (lib/nb.rdb, lib/strpack.h), so does
 * the NB row.  So that the body is the ACL's match exactly, a closing ")"
 * is left out of it ('*paren').  Returns 0 for a match not to split; the
 * body is never empty. */
static size_t
split_match(const char *match, size_t len, bool *paren)
{
    const char *open = strchr(match, '(');
    *paren = false;
    if (open && open - match >= 4 && !memcmp(open - 4, " && ", 4)
        && open[1]) {
        size_t head = open + 1 - match;
        *paren = len > head + 1 && match[len - 1] == ')';
        return head;
    }
    return 0;
}


static void
cache_body(struct lflow_side *side, const struct strpack *body,
           const char *text, size_t n)
{
    strpack_put(side->cached_body);
    side->cached_body = strpack_ref(body);
    ds_clear(&side->cached_body_text);
    ds_put_buffer(&side->cached_body_text, text, n);
}

/* The packed body with the 'n' bytes of text at 's', a new reference. */
static const struct strpack *
body_from_text(struct lflow_side *side, const char *s, size_t n)
{
    if (side->cached_body && side->cached_body_text.length == n
        && !memcmp(side->cached_body_text.string, s, n)) {
        return strpack_ref(side->cached_body);
    }
    const struct strpack *body = strpack_get(s, n);
    cache_body(side, body, s, n);
    return body;
}

void
lflow_table_hint_body(struct lflow_table *t, const struct strpack *body,
                      const char *text)
{
    if (body && body != t->side->cached_body) {
        cache_body(t->side, body, text, strpack_len(body));
    }
}

/* The text of 'body' (valid until the next body_*() call). */
static const char *
body_text(struct lflow_side *side, const struct strpack *body)
{
    if (body != side->cached_body) {
        strpack_put(side->cached_body);
        side->cached_body = strpack_ref(body);
        strpack_cstr(body, &side->cached_body_text);
    }
    return ds_cstr(&side->cached_body_text);
}

/* The match of 'f', in 'scratch' if it has to be put together. */
static const char *
lflow_match(struct lflow_side *side, const struct lflow *f, struct ds *scratch)
{
    if (!f->match_body) {
        return f->match_head;
    }
    ds_clear(scratch);
    ds_put_cstr(scratch, f->match_head);
    ds_put_buffer(scratch, body_text(side, f->match_body),
                  strpack_len(f->match_body));
    if (f->match_paren) {
        ds_put_char(scratch, ')');
    }
    return ds_cstr(scratch);
}

/* A match taken apart by split_match(): its first 'head' bytes, then
 * 'body' (NULL if it does not split), then ")" with 'paren'. */
struct split {
    const char *text;
    size_t len;
    size_t head;
    const struct strpack *body;     /* A reference. */
    bool paren;
};

static void
split_init(struct lflow_side *side, struct split *sp, const char *match)
{
    sp->text = match;
    sp->len = strlen(match);
    sp->head = split_match(match, sp->len, &sp->paren);
    sp->body = NULL;
    if (sp->head) {
        sp->body = body_from_text(side, match + sp->head,
                                  sp->len - sp->head - sp->paren);
    }
}

static void
split_destroy(struct split *sp)
{
    strpack_put(sp->body);
}

/* Whether 'sp' is the match of 'f'.  Equal bodies are the same packed
 * string. */
static bool
lflow_match_equals(const struct lflow *f, const struct split *sp)
{
    if (!f->match_body || !sp->body) {
        return !f->match_body && !sp->body && !strcmp(f->match_head,
                                                      sp->text);
    }
    return (f->match_body == sp->body
            && f->match_paren == sp->paren
            && strpool_len(f->match_head) == sp->head
            && !memcmp(f->match_head, sp->text, sp->head));
}

/* The flow's datapaths. */

static bool
dps_contains(const struct lflow *f, size_t dp)
{
    return (f->on_set ? bitmap_is_set(f->on.dps->map, dp)
            : f->on_dp && f->on.dp == dp);
}

static void
dps_add(const struct lflow_table *t, struct lflow *f, size_t dp)
{
    if (f->on_set) {
        f->on.dps = dpset_with(f->on.dps, dp, true);
    } else if (!f->on_dp) {
        f->on.dp = dp;
        f->on_dp = true;
    } else {
        unsigned long *map = bitmap_allocate(t->dp_cap);
        bitmap_set1(map, f->on.dp);
        bitmap_set1(map, dp);
        f->on.dps = dpset_intern(map, t->dp_cap);
        f->on_dp = false;
        f->on_set = true;
        bitmap_free(map);
    }
}

static void
dps_remove(struct lflow *f, size_t dp)
{
    if (!f->on_set) {
        f->on_dp = false;
    } else if (f->on.dps->n == 1) {
        dpset_unref(f->on.dps);
        f->on.dps = NULL;
        f->on_set = false;
    } else {
        f->on.dps = dpset_with(f->on.dps, dp, false);
    }
}

/* The datapath of a flow on exactly one. */
static size_t
dps_single(const struct lflow_table *t, const struct lflow *f)
{
    return (f->on_set ? bitmap_scan(f->on.dps->map, true, 0, t->dp_cap)
            : f->on.dp);
}

/* A (flow, datapath) pair contributed more than once. */
struct lflow_multi {
    struct hmap_node node;
    struct lflow *flow;
    uint32_t dp;
    size_t count;                   /* Contributions beyond the first. */
};

const char *
ls_stage_name(enum ls_stage s)
{
    switch (s) {
#define LS_STAGE(PIPE, NAME, TABLE, SNAME) \
    case S_##PIPE##_##NAME: return SNAME;
    LS_STAGES
#undef LS_STAGE
#define LR_STAGE(PIPE, NAME, TABLE, SNAME) \
    case S_LR_##PIPE##_##NAME: return SNAME;
    LR_STAGES
#undef LR_STAGE
    }
    return "<unknown>";
}

const char *
lflow_pipeline_name(enum lflow_pipeline p)
{
    return p == P_IN ? "ingress" : "egress";
}

void
lflow_owner_init(struct lflow_owner *o)
{
    memset(o, 0, sizeof *o);
}

/* The 'n_sets' sets of 'o'. */
static const struct dpset **
owner_sets(struct lflow_owner *o)
{
    return o->n_sets > 1 ? o->sets.v : &o->sets.one;
}

static void owner_clear_sets(struct lflow_owner *);

void
lflow_owner_destroy(struct lflow_owner *o)
{
    if (o) {
        free(o->refs);
        owner_clear_sets(o);
        lflow_owner_init(o);
    }
}

void
lflow_table_init(struct lflow_table *t, size_t dp_cap,
                 const struct uuid *uuid_key)
{
    t->uuid_key = *uuid_key;
    hmap_init(&t->flows);
    hmap_init(&t->multi);
    uuidset_init(&t->deleting);
    t->dp_cap = MAX(dp_cap, 1);
    t->owner = NULL;
    t->dirty = NULL;
    t->n_dirty = t->allocated_dirty = 0;
    t->n_sorted = 0;
    t->all_new = true;
    t->chunk = NULL;
    t->n_chunk = t->chunk_next = 0;
    t->copp = NULL;
    t->side = lflow_side_create();
}

/* Makes room for 'n_flows' flows at once: growing a table of tens of
 * thousands a doubling at a time rehashes every flow each time, each a
 * cache miss. */
void
lflow_table_reserve(struct lflow_table *t, size_t n_flows)
{
    hmap_reserve(&t->flows, n_flows);
}

static void lflow_clear_row(struct lflow_side *, struct lflow *);

static void
lflow_free(struct lflow_side *side, struct lflow *f)
{
    if (f->match_body) {
        strpool_put(f->match_head);
        strpack_put(f->match_body);
    } else {
        free(CONST_CAST(char *, f->match_head));
    }
    strpool_put(f->actions);
    lflow_clear_row(side, f);
    lflow_clear_meter(side, f);
    free(lflow_more_hints(side, f));
    lflow_set_more_hints(side, f, NULL);
    if (f->on_set) {
        dpset_unref(f->on.dps);
    }
    objpool_free(&lflow_pool, f);
}

void
lflow_table_destroy(struct lflow_table *t)
{
    if (!t) {
        return;
    }
    struct lflow *f;
    HMAP_FOR_EACH_POP (f, node, &t->flows) {
        lflow_free(t->side, f);
    }
    hmap_destroy(&t->flows);
    struct lflow_multi *lm;
    HMAP_FOR_EACH_POP (lm, node, &t->multi) {
        free(lm);
    }
    hmap_destroy(&t->multi);
    uuidset_destroy(&t->deleting);
    free(t->dirty);
    free(t->chunk);
    lflow_side_destroy(t->side);
    t->side = NULL;
}

size_t
lflow_table_count(const struct lflow_table *t)
{
    return hmap_count(&t->flows);
}

static void
mark_dirty(struct lflow_table *t, struct lflow *f)
{
    if (!f->dirty && !t->all_new) {
        f->dirty = true;
        if (t->n_dirty >= t->allocated_dirty) {
            t->dirty = x2nrealloc(t->dirty, &t->allocated_dirty,
                                  sizeof *t->dirty);
        }
        t->dirty[t->n_dirty++] = f;
    }
}

/* Gives back the room of 'dirty' once most of it is unused: a cold start
 * at a million ACLs fills it with every flow, one chunk of inserts at a
 * time empties it, and the room for millions is not needed again. */
static void
shrink_dirty(struct lflow_table *t)
{
    if (t->allocated_dirty > 4096 && t->n_dirty < t->allocated_dirty / 4) {
        t->allocated_dirty = t->n_dirty;
        t->dirty = xrealloc(t->dirty, MAX(t->n_dirty, 1) * sizeof *t->dirty);
    }
}

static uint32_t
multi_hash(const struct lflow *f, uint32_t dp)
{
    return hash_int(dp, hash_pointer(f, 0));
}

static struct lflow_multi *
multi_find(const struct lflow_table *t, const struct lflow *f, uint32_t dp)
{
    struct lflow_multi *lm;
    HMAP_FOR_EACH_WITH_HASH (lm, node, multi_hash(f, dp), &t->multi) {
        if (lm->flow == f && lm->dp == dp) {
            return lm;
        }
    }
    return NULL;
}

/* The room kept for 'n' contributions: the next power of 2, at least 2
 * (the room is not kept in the owner, of which there are a million). */
static size_t
refs_room(size_t n)
{
    return n ? MAX(2, ROUND_UP_POW2(n)) : 0;
}

/* The room 'o''s 'refs' has at least.  (It may have more: after its
 * contributions were taken back, say.) */
static size_t
owner_refs_room(const struct lflow_owner *o)
{
    return o->refs_exact ? o->n_refs : refs_room(o->n_refs);
}

void
lflow_owner_shrink(struct lflow_owner *o)
{
    if (!o->n_refs) {
        free(o->refs);
        o->refs = NULL;
        o->refs_exact = false;
    } else if (!o->refs_exact) {
        o->refs = xrealloc(o->refs, o->n_refs * sizeof *o->refs);
        o->refs_exact = true;
    }
}

/* Hints are compared by their first 32 bits only: the lowest UUID among
 * a flow's contributors starts with the lowest first 32 bits, and those
 * are all its "stage-hint" shows. */
static void
flow_add_hint(struct lflow_table *t, struct lflow *f, uint32_t h)
{
    if (!f->hint_set) {
        f->hint_written = f->hint_lapsed && f->hint == h;
        f->hint_lapsed = false;
        f->hint_set = true;
        f->hint = h;
        mark_dirty(t, f);
        return;
    }
    uint32_t n = n_more_hints(t->side, f);
    uint32_t *hints = xrealloc(lflow_more_hints(t->side, f),
                               (n + 2) * sizeof *hints);
    lflow_set_more_hints(t->side, f, hints);
    hints[0] = n + 1;
    uint32_t *more = hints + 1;
    if (h < f->hint) {
        more[n] = f->hint;
        f->hint = h;
        f->hint_written = false;
        mark_dirty(t, f);
    } else {
        more[n] = h;
    }
}

/* Takes back one of the hints of 'f': one of its values 'h'. */
static void
flow_remove_hint(struct lflow_table *t, struct lflow *f, uint32_t h)
{
    ovs_assert(f->hint_set);
    uint32_t n = n_more_hints(t->side, f);
    uint32_t *hints = lflow_more_hints(t->side, f);
    uint32_t *more = hints ? hints + 1 : NULL;
    size_t i;
    if (f->hint == h) {
        mark_dirty(t, f);
        if (!n) {
            f->hint_lapsed = f->hint_written;
            f->hint_written = false;
            f->hint_set = false;
            return;
        }
        f->hint_written = false;
        i = 0;
        for (size_t j = 1; j < n; j++) {
            if (more[j] < more[i]) {
                i = j;
            }
        }
        f->hint = more[i];
    } else {
        for (i = 0; i < n && more[i] != h; i++) {
            continue;
        }
        ovs_assert(i < n);
    }
    more[i] = more[n - 1];
    if (n == 1) {
        free(hints);
        lflow_set_more_hints(t->side, f, NULL);
    } else {
        hints[0] = n - 1;
    }
}

/* Takes back one contribution of flow 'f' on datapath 'dp'. */
static void
dp_remove(struct lflow_table *t, struct lflow *f, size_t dp)
{
    struct lflow_multi *lm = (hmap_is_empty(&t->multi) ? NULL
                              : multi_find(t, f, dp));
    if (lm) {
        if (!--lm->count) {
            hmap_remove(&t->multi, &lm->node);
            free(lm);
        }
    } else {
        ovs_assert(dps_contains(f, dp));
        dps_remove(f, dp);
        mark_dirty(t, f);
    }
}

/* The datapath set of set contribution 'r'. */
static const unsigned long *
ref_set(const struct lflow_owner *o, const struct lflow_ref *r)
{
    return owner_sets(CONST_CAST(struct lflow_owner *, o))
        [r->dp & LFLOW_REF_INDEX]->map;
}

/* Takes back what contribution 'r' of owner 'o' put on the datapaths of
 * 'dps', or on all of them if 'dps' is NULL; the contribution itself
 * stays recorded. */
static void
ref_remove_dps(struct lflow_table *t, const struct lflow_owner *o,
               const struct lflow_ref *r, const unsigned long *dps)
{
    if (r->dp & LFLOW_REF_SET) {
        const unsigned long *set = ref_set(o, r);
        size_t dp;
        BITMAP_FOR_EACH_1 (dp, t->dp_cap, set) {
            if (!dps || bitmap_is_set(dps, dp)) {
                dp_remove(t, r->flow, dp);
            }
        }
    } else if (!dps || bitmap_is_set(dps, r->dp & LFLOW_REF_INDEX)) {
        dp_remove(t, r->flow, r->dp & LFLOW_REF_INDEX);
    }
}

/* Takes back contribution 'r' of owner 'o'. */
static void
ref_remove(struct lflow_table *t, const struct lflow_owner *o,
           const struct lflow_ref *r)
{
    struct lflow *f = r->flow;
    ref_remove_dps(t, o, r, NULL);
    if (r->dp & LFLOW_REF_HINT) {
        flow_remove_hint(t, f, r->hint);
    }
    f->n_refs--;
}

static void
owner_clear_sets(struct lflow_owner *o)
{
    const struct dpset **sets = owner_sets(o);
    for (size_t i = 0; i < o->n_sets; i++) {
        dpset_unref(sets[i]);
    }
    if (o->n_sets > 1) {
        free(o->sets.v);
    }
    o->sets.one = NULL;
    o->n_sets = 0;
}

void
lflow_owner_clear(struct lflow_table *t, struct lflow_owner *o)
{
    for (size_t i = 0; i < o->n_refs; i++) {
        ref_remove(t, o, &o->refs[i]);
    }
    o->n_refs = 0;
    owner_clear_sets(o);
}

void
lflow_owner_clear_dps(struct lflow_table *t, struct lflow_owner *o,
                      const unsigned long *dps)
{
    size_t n = 0;
    for (size_t i = 0; i < o->n_refs; i++) {
        const struct lflow_ref *r = &o->refs[i];
        bool gone = (r->dp & LFLOW_REF_SET
                     ? bitmap_is_superset(dps, ref_set(o, r), t->dp_cap)
                     : bitmap_is_set(dps, r->dp & LFLOW_REF_INDEX));
        if (gone) {
            ref_remove(t, o, r);
        } else {
            /* Stays, maybe for fewer datapaths: its flow is taken back
             * from those in 'dps' here, its set shrinks below. */
            ref_remove_dps(t, o, r, dps);
            o->refs[n++] = *r;
        }
    }
    o->n_refs = n;
    if (!o->n_sets) {
        return;
    }

    /* Only now: several contributions share a set.  Sets left empty have
     * no contribution any more: drop them and renumber. */
    size_t n_sets = 0;
    uint32_t *renumber = xmalloc(MAX(o->n_sets, 1) * sizeof *renumber);
    const struct dpset **sets = owner_sets(o);
    for (size_t i = 0; i < o->n_sets; i++) {
        const struct dpset *set = dpset_minus(sets[i], dps);
        if (set) {
            renumber[i] = n_sets;
            sets[n_sets++] = set;
        }
    }
    if (o->n_sets > 1 && n_sets <= 1) {
        const struct dpset *one = n_sets ? sets[0] : NULL;
        free(o->sets.v);
        o->sets.one = one;
    }
    if (n_sets != o->n_sets) {
        for (size_t i = 0; i < o->n_refs; i++) {
            struct lflow_ref *r = &o->refs[i];
            if (r->dp & LFLOW_REF_SET) {
                r->dp = ((r->dp & ~LFLOW_REF_INDEX)
                         | renumber[r->dp & LFLOW_REF_INDEX]);
            }
        }
        o->n_sets = n_sets;
    }
    free(renumber);
}

/* The port a port's own flow is about: the name in the first
 * 'inport == "NAME"' or 'outport == "NAME"' of 'match'.  Stores it,
 * unescaped, in 'name' (if nonnull) and returns true, or returns false if
 * 'match' names no port that way. */
static bool
lflow_match_port(const char *match, struct ds *name)
{
    const char *in = strstr(match, "inport == \"");
    const char *out = strstr(match, "outport == \"");
    const char *p = (in && (!out || in < out) ? in + strlen("inport == \"")
                     : out ? out + strlen("outport == \"")
                     : NULL);
    if (!p) {
        return false;
    }
    if (name) {
        ds_clear(name);
    }
    for (; *p && *p != '"'; p++) {
        if (*p == '\\' && p[1]) {
            p++;
        }
        if (name) {
            ds_put_char(name, *p);
        }
    }
    return *p == '"';
}

/* The value of 'f''s tags:in_out_port ('port_tag'), in 'name'.  Stock
 * ovn-controller uses it to find the flows of a port that changed. */
static const char *
lflow_port_tag(struct lflow_side *side, const struct lflow *f,
               struct ds *name)
{
    struct ds scratch = DS_EMPTY_INITIALIZER;
    bool ok = lflow_match_port(lflow_match(side, f, &scratch), name);
    ovs_assert(ok);
    ds_destroy(&scratch);
    return ds_cstr(name);
}

/* The hash of a flow's content, to place it in the table. */
static uint32_t
lflow_hash(enum ls_stage stage, uint16_t priority, const char *match,
           size_t match_len, const char *actions, size_t actions_len,
           const char *ctrl_meter)
{
    uint64_t h = ((uint64_t) stage << 16) | priority;
    h = text_hash(match, match_len, h);
    h = text_hash(actions, actions_len, h);
    if (ctrl_meter) {
        h = text_hash(ctrl_meter, strlen(ctrl_meter), h);
    }
    return text_hash_fold(h);
}

static struct lflow *
lflow_find(const struct lflow_table *t, uint32_t hash, enum ls_stage stage,
           uint16_t priority, const struct split *sp,
           const char *actions, size_t actions_len, const char *ctrl_meter)
{
    struct lflow *f;
    HMAP_FOR_EACH_WITH_HASH (f, node, hash, &t->flows) {
        if (f->stage == stage && f->priority == priority
            && strpool_len(f->actions) == actions_len
            && lflow_match_equals(f, sp)
            && !memcmp(f->actions, actions, actions_len)
            && f->has_meter == (ctrl_meter != NULL)
            && (!ctrl_meter
                || !strcmp(lflow_meter(t->side, f), ctrl_meter))) {
            return f;
        }
    }
    return NULL;
}

/* Returns the flow with this content, adding it (on no datapath) if
 * needed.  'port_tag' is lflow_add_port_at()'s: it is a property of the
 * content (only a port's own flows, whose matches no other flow has, are
 * tagged), so a new flow takes it and an existing one has it already. */
static struct lflow *
lflow_get(struct lflow_table *t, enum ls_stage stage, uint16_t priority,
          const char *match, const char *actions, const char *ctrl_meter,
          const char *where, bool port_tag)
{
    struct split sp;
    split_init(t->side, &sp, match);
    size_t al = strlen(actions);
    uint32_t hash = lflow_hash(stage, priority, match, sp.len, actions, al,
                               ctrl_meter);
    struct lflow *f = lflow_find(t, hash, stage, priority, &sp,
                                 actions, al, ctrl_meter);
    if (!f) {
        f = objpool_zalloc(&lflow_pool);
        f->stage = stage;
        f->priority = priority;
        if (sp.body) {
            f->match_head = strpool_get_len(match, sp.head);
            f->match_body = strpack_ref(sp.body);
            f->match_paren = sp.paren;
        } else {
            f->match_head = xmemdup0(match, sp.len);
        }
        f->actions = strpool_get_len(actions, al);
        lflow_set_meter(t->side, f, ctrl_meter);
        f->where = where_intern(t->side, where);
        f->port_tag = port_tag;
        hmap_insert(&t->flows, &f->node, hash);
        mark_dirty(t, f);
    }
    split_destroy(&sp);
    return f;
}

/* Adds one contribution of 'f' on datapath 'dp'. */
static void
dp_add(struct lflow_table *t, struct lflow *f, size_t dp)
{
    if (!dps_contains(f, dp)) {
        dps_add(t, f, dp);
        mark_dirty(t, f);
    } else {
        struct lflow_multi *lm = multi_find(t, f, dp);
        if (!lm) {
            lm = xzalloc(sizeof *lm);
            lm->flow = f;
            lm->dp = dp;
            hmap_insert(&t->multi, &lm->node, multi_hash(f, dp));
        }
        lm->count++;
    }
}

/* Records contribution 'dp' (a datapath, or LFLOW_REF_SET and a set) of
 * 'f' for the current owner. */
static void
owner_add_ref(struct lflow_table *t, struct lflow *f, uint32_t dp,
              const struct uuid *hint)
{
    struct lflow_owner *o = t->owner;
    f->n_refs++;
    uint32_t h = 0;
    if (hint && !uuid_is_zero(hint)) {
        h = hint->parts[0];
        dp |= LFLOW_REF_HINT;
        flow_add_hint(t, f, h);
    }
    if (o->n_refs >= owner_refs_room(o)) {
        /* Most owners contribute one or two flows. */
        o->refs = xrealloc(o->refs,
                           refs_room(o->n_refs + 1) * sizeof *o->refs);
        o->refs_exact = false;
    }
    o->refs[o->n_refs++] = (struct lflow_ref) { f, dp, h };
}

static void
lflow_add__(struct lflow_table *t, const struct ls_datapath *dp,
            enum ls_stage stage, uint16_t priority, const char *match,
            const char *actions, const char *ctrl_meter,
            const struct uuid *hint, const char *where, bool port_tag)
{
    ovs_assert(t->owner && dp->index < t->dp_cap);
    if (ctrl_meter && !ctrl_meter[0]) {
        ctrl_meter = NULL;
    }
    if (OVS_UNLIKELY(t->copp) && !ctrl_meter) {
        ctrl_meter = copp_set_meter(t->copp, dp->index, actions);
    }
    struct lflow *f = lflow_get(t, stage, priority, match, actions,
                                ctrl_meter, where, port_tag);
    dp_add(t, f, dp->index);
    owner_add_ref(t, f, dp->index, hint);
}

void
lflow_add_at(struct lflow_table *t, const struct ls_datapath *dp,
             enum ls_stage stage, uint16_t priority, const char *match,
             const char *actions, const char *ctrl_meter,
             const struct uuid *hint, const char *where)
{
    lflow_add__(t, dp, stage, priority, match, actions, ctrl_meter, hint,
                where, false);
}

void
lflow_add_port_at(struct lflow_table *t, const struct ls_datapath *dp,
                  enum ls_stage stage, uint16_t priority, const char *match,
                  const char *actions, const struct uuid *hint,
                  const char *where)
{
    ovs_assert(lflow_match_port(match, NULL));
    lflow_add__(t, dp, stage, priority, match, actions, NULL, hint, where,
                true);
}

/* Returns the number of the current owner's set equal to 'dps', adding a
 * reference if needed.  The flows of one compile share a set: only the
 * newest is compared. */
static uint32_t
owner_set(struct lflow_table *t, const unsigned long *dps)
{
    struct lflow_owner *o = t->owner;
    if (o->n_sets
        && bitmap_equal(owner_sets(o)[o->n_sets - 1]->map, dps, t->dp_cap)) {
        return o->n_sets - 1;
    }
    const struct dpset *set = dpset_intern(dps, t->dp_cap);
    if (!o->n_sets) {
        o->sets.one = set;
    } else if (o->n_sets == 1) {
        const struct dpset **v = xmalloc(2 * sizeof *v);
        v[0] = o->sets.one;
        v[1] = set;
        o->sets.v = v;
    } else {
        o->sets.v = xrealloc(o->sets.v, (o->n_sets + 1) * sizeof *o->sets.v);
        o->sets.v[o->n_sets] = set;
    }
    return o->n_sets++;
}

/* For lflow_add_dps_at() on a table with Copps: if 'actions' send to
 * ovn-controller for a protocol that the Copp of some datapaths in 'dps'
 * meters, adds the flow on each of them, one at a time, with its meter,
 * and returns the rest of 'dps' (to free), which may be empty; otherwise
 * returns NULL and adds nothing. */
static unsigned long *
copp_split(struct lflow_table *t, const unsigned long *dps,
           enum ls_stage stage, uint16_t priority, const char *match,
           const char *actions, const struct uuid *hint, const char *where)
{
    enum copp_proto proto = copp_classify(actions);
    if (!copp_set_any(t->copp, dps, proto)) {
        return NULL;
    }
    unsigned long *rest = bitmap_clone(dps, t->dp_cap);
    size_t dp;
    BITMAP_FOR_EACH_1 (dp, t->dp_cap, dps) {
        const char *meter = copp_set_proto_meter(t->copp, dp, proto);
        if (meter) {
            struct lflow *f = lflow_get(t, stage, priority, match, actions,
                                        meter, where, false);
            dp_add(t, f, dp);
            owner_add_ref(t, f, dp, hint);
            bitmap_set0(rest, dp);
        }
    }
    return rest;
}

void
lflow_add_dps_at(struct lflow_table *t, const unsigned long *dps,
                 enum ls_stage stage, uint16_t priority, const char *match,
                 const char *actions, const char *ctrl_meter,
                 const struct uuid *hint, const char *where)
{
    ovs_assert(t->owner);
    if (ctrl_meter && !ctrl_meter[0]) {
        ctrl_meter = NULL;
    }
    unsigned long *rest = NULL;
    if (OVS_UNLIKELY(t->copp) && !ctrl_meter) {
        rest = copp_split(t, dps, stage, priority, match, actions, hint,
                          where);
        if (rest) {
            if (bitmap_is_all_zeros(rest, t->dp_cap)) {
                bitmap_free(rest);
                return;
            }
            dps = rest;
        }
    }
    struct lflow *f = lflow_get(t, stage, priority, match, actions,
                                ctrl_meter, where, false);
    uint32_t set = owner_set(t, dps);
    const struct dpset *ds = owner_sets(t->owner)[set];
    if (!f->on_dp && !f->on_set && ds->n >= 2) {
        /* The usual case: a new flow, on the owner's set exactly. */
        f->on.dps = dpset_ref(ds);
        f->on_set = true;
        mark_dirty(t, f);
    } else {
        size_t dp;
        BITMAP_FOR_EACH_1 (dp, t->dp_cap, dps) {
            dp_add(t, f, dp);
        }
    }
    owner_add_ref(t, f, LFLOW_REF_SET | set, hint);
    if (OVS_UNLIKELY(rest)) {
        bitmap_free(rest);
    }
}

static const char *
lflow_source(struct lflow_side *side, const struct lflow *f)
{
    /* "northd/acls.c:123" -> "acls.c:123", as operators expect. */
    const char *where = side->wheres[f->where];
    const char *slash = strrchr(where, '/');
    return slash ? slash + 1 : where;
}

/* A flow's external_ids: "stage-name", "stage-hint" (the first 8 hex
 * digits of the NB row it comes from, if any) and "source". */
struct lflow_ids {
    const char *keys[3];
    const char *values[3];
    size_t n;
    char hint[9];
};

/* Writes the 8 hex digits of 'hint' (a "stage-hint") to 'out'. */
static void
put_hint_hex(char out[8], uint32_t hint)
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 7; i >= 0; i--, hint >>= 4) {
        out[i] = hex[hint & 15];
    }
}

static void
lflow_ids_init(struct lflow_side *side, const struct lflow *f,
               bool hint_set, uint32_t hint,
               struct lflow_ids *ids)
{
    ids->n = 0;
    ids->keys[ids->n] = "stage-name";
    ids->values[ids->n++] = ls_stage_name(f->stage);
    if (hint_set) {
        put_hint_hex(ids->hint, hint);
        ids->hint[8] = '\0';
        ids->keys[ids->n] = "stage-hint";
        ids->values[ids->n++] = ids->hint;
    }
    ids->keys[ids->n] = "source";
    ids->values[ids->n++] = lflow_source(side, f);
}

/* The hash the replica keeps of a Logical_Flow row's external_ids, for
 * those of 'f' with the given stage-hint. */
static struct rdb_hash
lflow_ids_hash(struct lflow_side *side, const struct lflow *f,
               bool hint_set, uint32_t hint)
{
    struct lflow_ids ids;
    lflow_ids_init(side, f, hint_set, hint, &ids);
    struct rdb_hash sum = { { 0, 0 } };
    for (size_t i = 0; i < ids.n; i++) {
        struct rdb_hash h = rdb_hash_pair_col(
            &sb_table_logical_flow, SB_LOGICAL_FLOW_COL_EXTERNAL_IDS,
            ids.keys[i], ids.values[i]);
        rdb_hash_add(&sum, &h);
    }
    return sum;
}


static const struct ids_piece *
ids_piece(struct ids_piece *piece, const char *before, const char *name,
          const char *after)
{
    if (!piece->done) {
        size_t n = strlen(name);
        piece->done = true;
        if (jscan_plain_prefix(name, n) == n) {
            piece->s = xasprintf("%s%s%s", before, name, after);
            piece->n = strlen(piece->s);
        }
    }
    return piece;
}

static const struct ids_piece *
where_tail(struct lflow_side *side, const struct lflow *f)
{
    if (f->where >= side->n_where_tails) {
        side->where_tails = xrealloc(side->where_tails,
                                     side->n_wheres
                                     * sizeof *side->where_tails);
        memset(&side->where_tails[side->n_where_tails], 0,
               (side->n_wheres - side->n_where_tails)
               * sizeof *side->where_tails);
        side->n_where_tails = side->n_wheres;
    }
    return ids_piece(&side->where_tails[f->where], ",[\"source\",\"",
                     lflow_source(side, f), "\"]]]");
}

static void
set_lflow_ids(struct lflow_side *side, struct lflow *f, struct rdb_txn *txn)
{
    f->hint_written = true;
    f->hint_lapsed = false;

    /* Every flow gets one: from the pieces above and the hint's hex digits,
     * not generically.  (The order of a map's pairs does not matter.) */
    BUILD_ASSERT(ARRAY_SIZE(side->stage_heads)
                 > (LR_STAGE_BIT | LS_STAGE_ID(P_OUT, 0xff)));
    const struct ids_piece *head = ids_piece(
        &side->stage_heads[f->stage], "[\"map\",[[\"stage-name\",\"",
        ls_stage_name(f->stage), "\"]");
    const struct ids_piece *tail = where_tail(side, f);
    static const char hint_json[] = ",[\"stage-hint\",\"01234567\"]";
    char buf[512];
    if (head->s && tail->s
        && head->n + sizeof hint_json + tail->n <= sizeof buf) {
        char *p = buf;
        memcpy(p, head->s, head->n);
        p += head->n;
        if (f->hint_set) {
            memcpy(p, hint_json, sizeof hint_json - 1);
            put_hint_hex(p + sizeof hint_json - 1 - 10, f->hint);
            p += sizeof hint_json - 1;
        }
        memcpy(p, tail->s, tail->n);
        p += tail->n;
        rdb_txn_set_json(txn, SB_LOGICAL_FLOW_COL_EXTERNAL_IDS, buf, p - buf);
    } else {
        struct lflow_ids ids;
        lflow_ids_init(side, f, f->hint_set, f->hint, &ids);
        rdb_txn_set_map(txn, SB_LOGICAL_FLOW_COL_EXTERNAL_IDS, ids.keys,
                        ids.values, ids.n);
    }
}

/* The hash the replica keeps of the rest of the row (see lib/sb.rdb). */
static struct rdb_hash
lflow_content_hash(struct lflow_side *side, const struct lflow *f)
{
    const struct rdb_table_class *tc = &sb_table_logical_flow;
    struct rdb_hash h = rdb_hash_string_col(
        tc, SB_LOGICAL_FLOW_COL_PIPELINE,
        lflow_pipeline_name(ls_stage_pipeline(f->stage)));
    struct rdb_hash parts[] = {
        rdb_hash_integer_col(tc, SB_LOGICAL_FLOW_COL_TABLE_ID,
                             ls_stage_table(f->stage)),
        rdb_hash_integer_col(tc, SB_LOGICAL_FLOW_COL_PRIORITY, f->priority),
        rdb_hash_string_col(tc, SB_LOGICAL_FLOW_COL_MATCH,
                            lflow_match(side, f, &side->match_scratch)),
        rdb_hash_string_col(tc, SB_LOGICAL_FLOW_COL_ACTIONS, f->actions),
        rdb_hash_string_col(tc, SB_LOGICAL_FLOW_COL_CONTROLLER_METER,
                            lflow_meter(side, f)),
    };
    for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
        rdb_hash_add(&h, &parts[i]);
    }
    if (f->port_tag) {
        struct ds name = DS_EMPTY_INITIALIZER;
        struct rdb_hash tag = rdb_hash_pair_col(
            tc, SB_LOGICAL_FLOW_COL_TAGS, LFLOW_TAG_PORT,
            lflow_port_tag(side, f, &name));
        rdb_hash_add(&h, &tag);
        ds_destroy(&name);
    }
    return h;
}

/* The UUID northd gives the SB row of 'f': derived from its content,
 * which is what tells flows apart (no two flows of a table share it), and
 * keyed by the table's 'uuid_key', so that a later pass, or the next
 * northd on the same SB, finds the row's UUID without having kept it.  It
 * is marked as a random (version 4) UUID, like those OVSDB makes. */
static struct uuid
lflow_derive_uuid(const struct lflow_table *t, const struct lflow *f)
{
    struct rdb_uuid_hash uh;
    rdb_uuid_hash_init(&uh, &t->uuid_key);
    uint32_t head[] = { f->stage, f->priority };
    rdb_uuid_hash_add(&uh, head, sizeof head);
    const char *match = lflow_match(t->side, f, &t->side->match_scratch);
    rdb_uuid_hash_add(&uh, match, strlen(match));
    rdb_uuid_hash_add(&uh, f->actions, strpool_len(f->actions));
    const char *meter = lflow_meter(t->side, f);
    rdb_uuid_hash_add(&uh, meter ? meter : "", meter ? strlen(meter) + 1 : 0);
    if (f->port_tag) {
        /* So that the row of a flow that gained its tag (from a northd
         * before tags) is not in the way of the new one, whose UUID would
         * otherwise have to be random and kept aside. */
        rdb_uuid_hash_add(&uh, "\0tag", 4);
    }
    return rdb_uuid_hash_finish(&uh);
}

/* The UUID of 'f''s SB row ('has_row'). */
static struct uuid
lflow_sb_uuid(const struct lflow_table *t, const struct lflow *f)
{
    ovs_assert(f->has_row);
    if (f->has_sb_uuid) {
        return lflow_rare_find(t->side, f)->sb_uuid;
    }
    return lflow_derive_uuid(t, f);
}

/* Takes note that 'f''s SB row is 'uuid'.  'derived' is the UUID northd
 * derives for it. */
static void
lflow_set_row(struct lflow_side *side, struct lflow *f,
              const struct uuid *uuid,
              const struct uuid *derived)
{
    f->has_row = true;
    if (!uuid_equals(uuid, derived)) {
        /* Inserted by some other writer (or a northd that was not ours),
         * or kept from a flow this one replaces. */
        struct lflow_rare *r = lflow_rare_get(side, f);
        if (f->has_sb_uuid) {
            hmap_remove(&side->held, &r->held_node);
        }
        r->sb_uuid = *uuid;
        hmap_insert(&side->held, &r->held_node, uuid_hash(uuid));
        f->has_sb_uuid = true;
    } else if (f->has_sb_uuid) {
        struct lflow_rare *r = lflow_rare_find(side, f);
        hmap_remove(&side->held, &r->held_node);
        f->has_sb_uuid = false;
        lflow_rare_trim(side, f, r);
    }
}

/* Whether some flow's row has 'uuid' though it is not the one derived
 * from that flow's content. */
static bool
lflow_uuid_held(const struct lflow_side *side, const struct uuid *uuid)
{
    const struct lflow_rare *r;
    HMAP_FOR_EACH_WITH_HASH (r, held_node, uuid_hash(uuid), &side->held) {
        if (uuid_equals(&r->sb_uuid, uuid)) {
            return true;
        }
    }
    return false;
}

/* Takes note that 'f' has no SB row. */
static void
lflow_clear_row(struct lflow_side *side, struct lflow *f)
{
    f->has_row = false;
    if (f->has_sb_uuid) {
        struct lflow_rare *r = lflow_rare_find(side, f);
        hmap_remove(&side->held, &r->held_node);
        f->has_sb_uuid = false;
        lflow_rare_trim(side, f, r);
    }
}

/* Where 'f' should apply: one datapath, or a group of them. */
struct lflow_target {
    const void *target;             /* See struct lflow 'sb_target'. */
    const struct uuid *uuid;        /* Its row's. */
    bool group;
};

/* Finds (or, for a group, creates: before any op on the flow's row is
 * begun) where 'f' applies. */
static struct lflow_target
lflow_target(const struct lflow_table *t, const struct lflow *f,
             const struct ls_model *m, struct rdb_txn *txn,
             struct dp_groups *dpgs)
{
    if (lflow_n_dps(f) == 1) {
        const struct ls_datapath *dp = m->dp_array[dps_single(t, f)];
        return (struct lflow_target) { dp, &dp->sb_uuid, false };
    }
    struct dp_group *dpg = dp_groups_get_group(dpgs, txn, f->on.dps->map,
                                               f->on.dps->n);
    return (struct lflow_target) { dpg, dp_group_uuid(dpg), true };
}

/* The row of 'f' no longer refers to the group it did, if it did. */
static void
unref_target(const struct lflow *f)
{
    if (f->sb_group && f->sb_target) {
        dp_groups_unref_flow(CONST_CAST(struct dp_group *, f->sb_target));
    }
}

/* The UUID of the row 'f''s row refers to, as the table knows it, or
 * NULL. */
static const struct uuid *
target_uuid(const struct lflow *f)
{
    if (!f->sb_target) {
        return NULL;
    }
    return (f->sb_group ? dp_group_uuid(f->sb_target)
            : &((const struct ls_datapath *) f->sb_target)->sb_uuid);
}

/* Brings 'f''s existing SB row in line: the datapath or group it applies
 * to, and external_ids unless 'hint_written' says they are 'f''s. */
static void
update_sb_flow(const struct lflow_table *t, struct lflow *f,
               const struct ls_model *m, struct rdb_txn *txn,
               struct dp_groups *dpgs)
{
    struct lflow_target target = lflow_target(t, f, m, txn, dpgs);
    struct uuid uuid = lflow_sb_uuid(t, f);
    rdb_txn_update(txn, &sb_table_logical_flow, &uuid);
    if (!f->sb_target
        || target.group != f->sb_group
        || target.target != f->sb_target) {
        rdb_txn_set_ref(txn, SB_LOGICAL_FLOW_COL_LOGICAL_DATAPATH,
                        target.group ? NULL : target.uuid);
        rdb_txn_set_ref(txn, SB_LOGICAL_FLOW_COL_LOGICAL_DP_GROUP,
                        target.group ? target.uuid : NULL);
        unref_target(f);
        if (target.group) {
            dp_groups_ref_flow(CONST_CAST(struct dp_group *, target.target));
        }
        f->sb_target = target.target;
        f->sb_group = target.group;
        COVERAGE_INC(lflow_updated);
    }
    if (!f->hint_written) {
        set_lflow_ids(t->side, f, txn);
        COVERAGE_INC(lflow_updated);
    }
}

/* Writes the match of 'f' from its pieces, without putting it together:
 * they know their lengths and whether JSON needs them escaped. */
static void
put_lflow_match(struct lflow_side *side, const struct lflow *f,
                struct rdb_txn *txn)
{
    if (!f->match_body) {
        rdb_txn_set_string(txn, SB_LOGICAL_FLOW_COL_MATCH, f->match_head);
        return;
    }
    const char *parts[] = {
        f->match_head, body_text(side, f->match_body), ")"
    };
    size_t lens[] = {
        strpool_len(f->match_head), strpack_len(f->match_body), 1
    };
    bool plain = (strpool_is_json_plain(f->match_head)
                  && strpack_is_json_plain(f->match_body));
    rdb_txn_set_string_parts(txn, SB_LOGICAL_FLOW_COL_MATCH, parts, lens,
                             f->match_paren ? 3 : 2, plain);
}

/* Writes the content columns of 'f''s SB row: the pipeline, table,
 * priority, match, actions, meter and tags.  'whole': every one, even
 * empty (rewriting a row someone changed); otherwise only those with a
 * value (a new row). */
static void
put_flow_content(const struct lflow_table *t, const struct lflow *f,
                 struct rdb_txn *txn, bool whole)
{
    rdb_txn_set_string(txn, SB_LOGICAL_FLOW_COL_PIPELINE,
                       lflow_pipeline_name(ls_stage_pipeline(f->stage)));
    rdb_txn_set_integer(txn, SB_LOGICAL_FLOW_COL_TABLE_ID,
                        ls_stage_table(f->stage));
    rdb_txn_set_integer(txn, SB_LOGICAL_FLOW_COL_PRIORITY, f->priority);
    put_lflow_match(t->side, f, txn);
    rdb_txn_set_string_parts(txn, SB_LOGICAL_FLOW_COL_ACTIONS, &f->actions,
                             (size_t[]) { strpool_len(f->actions) }, 1,
                             strpool_is_json_plain(f->actions));
    if (f->has_meter || whole) {
        rdb_txn_set_string(txn, SB_LOGICAL_FLOW_COL_CONTROLLER_METER,
                           f->has_meter ? lflow_meter(t->side, f) : NULL);
    }
    if (f->port_tag) {
        struct ds name = DS_EMPTY_INITIALIZER;
        const char *key = LFLOW_TAG_PORT;
        const char *value = lflow_port_tag(t->side, f, &name);
        rdb_txn_set_map(txn, SB_LOGICAL_FLOW_COL_TAGS, &key, &value, 1);
        ds_destroy(&name);
    } else if (whole) {
        rdb_txn_set_map(txn, SB_LOGICAL_FLOW_COL_TAGS, NULL, NULL, 0);
    }
}

/* Inserts the SB row for 'f', with a UUID of our choosing so that later
 * passes can find it without comparing content. */
static void
insert_sb_flow(const struct lflow_table *t, struct lflow *f,
               const struct ls_model *m, struct rdb_txn *txn,
               struct dp_groups *dpgs)
{
    struct lflow_target target = lflow_target(t, f, m, txn, dpgs);
    struct uuid derived = lflow_derive_uuid(t, f);
    struct uuid uuid = derived;
    if (uuidset_find(&t->deleting, &uuid)
        || lflow_uuid_held(t->side, &uuid)) {
        /* A row this transaction deletes has it (a row someone changed
         * under northd's feet, or one kept for a flow whose actions
         * changed), or a live row kept that way does, or a collision of
         * 122 bits. */
        rdb_uuid_generate(&uuid);
    }
    lflow_set_row(t->side, f, &uuid, &derived);
    rdb_txn_insert(txn, &sb_table_logical_flow, &uuid);
    put_flow_content(t, f, txn, false);
    rdb_txn_set_ref(txn, (target.group
                          ? SB_LOGICAL_FLOW_COL_LOGICAL_DP_GROUP
                          : SB_LOGICAL_FLOW_COL_LOGICAL_DATAPATH),
                    target.uuid);
    f->sb_target = target.target;
    f->sb_group = target.group;
    if (target.group) {
        dp_groups_ref_flow(CONST_CAST(struct dp_group *, target.target));
    }
    set_lflow_ids(t->side, f, txn);
    COVERAGE_INC(lflow_inserted);
}

/* Writes every column of the SB row of 'f', which someone else changed,
 * as northd wrote it. */
static void
rewrite_sb_flow(const struct lflow_table *t, struct lflow *f,
                struct rdb_txn *txn)
{
    struct uuid uuid = lflow_sb_uuid(t, f);
    rdb_txn_update(txn, &sb_table_logical_flow, &uuid);
    put_flow_content(t, f, txn, true);
    const struct uuid *target = target_uuid(f);
    rdb_txn_set_ref(txn, SB_LOGICAL_FLOW_COL_LOGICAL_DATAPATH,
                    f->sb_group ? NULL : target);
    rdb_txn_set_ref(txn, SB_LOGICAL_FLOW_COL_LOGICAL_DP_GROUP,
                    f->sb_group ? target : NULL);
    set_lflow_ids(t->side, f, txn);
    COVERAGE_INC(lflow_repaired);
}

void
lflow_table_repair_sb(struct lflow_table *t, struct rdb *sb_db,
                      struct rdb_txn *txn)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);
    struct uuidset foreign = UUIDSET_INITIALIZER(&foreign);
    struct uuidset gone = UUIDSET_INITIALIZER(&gone);
    const struct sb_logical_flow *lf;
    SB_LOGICAL_FLOW_FOR_EACH_TRACKED (lf, sb_db) {
        if (rdb_row_is_foreign(&lf->header_)) {
            uuidset_insert(sb_logical_flow_is_deleted(lf) ? &gone : &foreign,
                           &lf->header_.uuid);
        }
    }
    if (uuidset_is_empty(&foreign) && uuidset_is_empty(&gone)) {
        uuidset_destroy(&foreign);
        uuidset_destroy(&gone);
        return;
    }

    /* The flows' UUIDs are derived from their content, not indexed: one
     * walk over the table for however many rows were changed. */
    struct lflow *f;
    HMAP_FOR_EACH (f, node, &t->flows) {
        if (!f->has_row) {
            continue;
        }
        struct uuid uuid = lflow_sb_uuid(t, f);
        if (uuidset_find_and_delete(&foreign, &uuid)) {
            VLOG_INFO_RL(&rl, "rewrote a Logical_Flow someone else changed: "
                         UUID_FMT, UUID_ARGS(&uuid));
            rewrite_sb_flow(t, f, txn);
        } else if (uuidset_find_and_delete(&gone, &uuid)) {
            /* The sync of this pass inserts it again. */
            VLOG_INFO_RL(&rl, "putting back a Logical_Flow someone else "
                         "deleted: "UUID_FMT, UUID_ARGS(&uuid));
            unref_target(f);
            f->sb_target = NULL;
            f->sb_group = false;
            lflow_clear_row(t->side, f);
            mark_dirty(t, f);
            COVERAGE_INC(lflow_repaired);
        } else {
            continue;
        }
        if (uuidset_is_empty(&foreign) && uuidset_is_empty(&gone)) {
            break;
        }
    }
    /* Rows deleted that were no flow's: nothing to put back. */
    uuidset_destroy(&gone);
    struct uuidset_node *node;
    UUIDSET_FOR_EACH (node, &foreign) {
        VLOG_INFO_RL(&rl, "removed a Logical_Flow northd did not write: "
                     UUID_FMT, UUID_ARGS(&node->uuid));
        rdb_txn_delete(txn, &sb_table_logical_flow, &node->uuid);
        COVERAGE_INC(lflow_foreign_deleted);
    }
    uuidset_destroy(&foreign);
}

/* How many buckets ahead produce_inserts() prefetches a flow record, and
 * then (half as far ahead) the strings it points to. */
#define INSERT_PREFETCH 16

static void
prefetch_flow_strings(const struct hmap_node *node)
{
    if (node) {
        const struct lflow *f = CONTAINER_OF(node, struct lflow, node);
        OVS_PREFETCH(f->match_head);
        OVS_PREFETCH(f->match_body);
    }
}

/* Produces the inserts of a full sync, a batch per call.  Flows are
 * visited bucket by bucket.  Each record, and then its match, is a cache
 * miss at tens of thousands of flows, and writing one costs a few
 * hundred nanoseconds: both are fetched a few buckets ahead. */
static bool
produce_inserts(struct rdb_txn *txn, void *t_)
{
    struct lflow_table *t = t_;
    struct hmap_node **buckets = t->flows.buckets;
    size_t n_buckets = t->flows.mask + 1;
    size_t n = 0;
    while (n < 1000) {
        size_t b = t->insert_bucket;
        if (b >= n_buckets) {
            return true;
        }
        if (b + INSERT_PREFETCH < n_buckets) {
            OVS_PREFETCH(buckets[b + INSERT_PREFETCH]);
        }
        if (b + INSERT_PREFETCH / 2 < n_buckets) {
            prefetch_flow_strings(buckets[b + INSERT_PREFETCH / 2]);
        }
        for (struct hmap_node *node = buckets[b]; node; node = node->next) {
            struct lflow *f = CONTAINER_OF(node, struct lflow, node);
            if (!f->claimed) {
                insert_sb_flow(t, f, t->insert_model, txn, t->insert_dpgs);
                n++;
            }
        }
        t->insert_bucket = b + 1;
    }
    return false;
}

/* Produces the inserts of a chunk (lflow_table_sync_dirty()), a batch per
 * call. */
static bool
produce_chunk(struct rdb_txn *txn, void *t_)
{
    struct lflow_table *t = t_;
    size_t end = MIN(t->chunk_next + 1000, t->n_chunk);
    for (; t->chunk_next < end; t->chunk_next++) {
        insert_sb_flow(t, t->chunk[t->chunk_next], t->insert_model, txn,
                       t->insert_dpgs);
    }
    if (t->chunk_next < t->n_chunk) {
        return false;
    }
    free(t->chunk);
    t->chunk = NULL;
    t->n_chunk = t->chunk_next = 0;
    return true;
}

/* Existing SB rows, as a full sync matches desired flows against them.
 * After a restart at a million ACLs there are two million of them, at the
 * peak of the compile, so a row is 32 bytes: its content by 64 bits of its
 * (keyed) hash and external_ids by 32, its datapath or group as an index
 * into the few distinct ones.  The rows are ordered by the top bits of
 * their content hash, which is uniform, with a directory of where each
 * prefix starts (about 4 rows each): no chain and no buckets, where a
 * hash index cost 40 bytes a row and 4 more in buckets. */
struct lflow_sb_row {
    struct uuid uuid;
    uint64_t content;               /* rdb_hash of the content, h[0]. */
    uint32_t ids;                   /* rdb_hash of external_ids, 32 bits. */
    unsigned int target : 30;       /* In 'targets', or SB_ROW_NONE if the
                                     * row refers to both or neither. */
    bool group : 1;                 /* 'target' is a Logical_DP_Group. */
    bool taken : 1;                 /* A flow took it. */
};

BUILD_ASSERT_DECL(sizeof(struct lflow_sb_row) <= 32);

#define SB_ROW_NONE ((1u << 30) - 1)

/* A distinct datapath or group rows refer to, while they are added. */
struct sb_target {
    struct hmap_node node;          /* By uuid_hash(). */
    uint32_t index;                 /* In 'targets'. */
};

struct lflow_sb_rows {
    struct lflow_sb_row *rows;      /* Ordered by prefix once indexed. */
    size_t n;
    unsigned int prefix_bits;       /* Of 'content' that 'dir' is by. */
    uint32_t *dir;                  /* 2**'prefix_bits' + 1 positions in
                                     * 'rows': where each prefix starts. */
    struct uuid *targets;           /* Distinct datapaths and groups. */
    size_t n_targets, allocated_targets;
    struct hmap target_map;         /* Of struct sb_target, until
                                     * sb_rows_index(). */
};

static struct lflow_sb_rows *
sb_rows_create(size_t n)
{
    struct lflow_sb_rows *r = xzalloc(sizeof *r);
    r->rows = xmalloc((n ? n : 1) * sizeof *r->rows);
    hmap_init(&r->target_map);
    return r;
}

static uint32_t
sb_rows_target(struct lflow_sb_rows *r, const struct uuid *uuid)
{
    if (uuid_is_zero(uuid)) {
        return SB_ROW_NONE;
    }
    uint32_t hash = uuid_hash(uuid);
    struct sb_target *st;
    HMAP_FOR_EACH_WITH_HASH (st, node, hash, &r->target_map) {
        if (uuid_equals(&r->targets[st->index], uuid)) {
            return st->index;
        }
    }
    if (r->n_targets >= SB_ROW_NONE) {
        /* Not in any real SB: the rows that refer to it get their target
         * rewritten. */
        return SB_ROW_NONE;
    }
    if (r->n_targets >= r->allocated_targets) {
        r->targets = x2nrealloc(r->targets, &r->allocated_targets,
                                sizeof *r->targets);
    }
    st = xmalloc(sizeof *st);
    st->index = r->n_targets;
    r->targets[r->n_targets++] = *uuid;
    hmap_insert(&r->target_map, &st->node, hash);
    return st->index;
}

static void
sb_rows_add(struct lflow_sb_rows *r, const struct rdb_hash *content,
            const struct rdb_hash *ids, const struct uuid *uuid,
            const struct uuid *target, bool group)
{
    struct lflow_sb_row *row = &r->rows[r->n++];
    row->uuid = *uuid;
    row->content = content->h[0];
    row->ids = ids->h[0];
    row->target = sb_rows_target(r, target);
    row->group = group;
    row->taken = false;
}

/* The datapath or group 'row' refers to, or all-zeros. */
static const struct uuid *
sb_row_target(const struct lflow_sb_rows *r, const struct lflow_sb_row *row)
{
    static const struct uuid zero;
    return row->target == SB_ROW_NONE ? &zero : &r->targets[row->target];
}

static uint32_t
sb_rows_prefix(const struct lflow_sb_rows *r, uint64_t content)
{
    return r->prefix_bits ? content >> (64 - r->prefix_bits) : 0;
}

/* Indexes the rows once all are added: orders them by prefix in place
 * (each row moves straight to its prefix's next free place, as in a
 * counting sort, without a second array of rows). */
static void
sb_rows_index(struct lflow_sb_rows *r)
{
    struct sb_target *st;
    HMAP_FOR_EACH_POP (st, node, &r->target_map) {
        free(st);
    }
    hmap_destroy(&r->target_map);

    ovs_assert(r->n < UINT32_MAX);
    r->prefix_bits = 0;
    while (r->prefix_bits < 30 && ((size_t) 4 << r->prefix_bits) < r->n) {
        r->prefix_bits++;
    }
    size_t n_prefixes = (size_t) 1 << r->prefix_bits;
    r->dir = xcalloc(n_prefixes + 1, sizeof *r->dir);
    for (size_t i = 0; i < r->n; i++) {
        r->dir[sb_rows_prefix(r, r->rows[i].content) + 1]++;
    }
    for (size_t p = 1; p <= n_prefixes; p++) {
        r->dir[p] += r->dir[p - 1];
    }

    uint32_t *next = xmemdup(r->dir, n_prefixes * sizeof *next);
    for (uint32_t p = 0; p < n_prefixes; p++) {
        while (next[p] < r->dir[p + 1]) {
            struct lflow_sb_row row = r->rows[next[p]];
            uint32_t q = sb_rows_prefix(r, row.content);
            while (q != p) {
                struct lflow_sb_row displaced = r->rows[next[q]];
                r->rows[next[q]++] = row;
                row = displaced;
                q = sb_rows_prefix(r, row.content);
            }
            r->rows[next[p]++] = row;
        }
    }
    free(next);
}

/* The first row with 'content' no flow took yet, preferring one with the
 * UUID 'derived'; NULL if there is none. */
static struct lflow_sb_row *
sb_rows_take(struct lflow_sb_rows *r, const struct rdb_hash *content,
             const struct uuid *derived)
{
    struct lflow_sb_row *found = NULL;
    uint32_t p = sb_rows_prefix(r, content->h[0]);
    for (uint32_t i = r->dir[p]; i < r->dir[p + 1]; i++) {
        struct lflow_sb_row *row = &r->rows[i];
        if (!row->taken && row->content == content->h[0]
            && (!found || uuid_equals(&row->uuid, derived))) {
            found = row;
        }
    }
    if (found) {
        found->taken = true;
    }
    return found;
}

struct lflow_sb_rows *
lflow_sb_rows_from_replica(struct rdb *sb_db)
{
    struct lflow_sb_rows *r = sb_rows_create(
        sb_logical_flow_count(sb_db));
    const struct rdb_table_class *tc = &sb_table_logical_flow;
    const struct sb_logical_flow *sb;
    SB_LOGICAL_FLOW_FOR_EACH (sb, sb_db) {
        static const struct uuid zero;
        const struct uuid *target = &zero;
        bool group = false;
        if (sb->header_.hash_stale) {
            /* Its content is not known: it will be deleted. */
            struct rdb_hash none = { { 0, 0 } };
            sb_rows_add(r, &none, &none, &sb->header_.uuid, &zero, false);
            continue;
        }
        if (sb->logical_datapath && !sb->logical_dp_group) {
            target = &sb->logical_datapath->header_.uuid;
        } else if (sb->logical_dp_group && !sb->logical_datapath) {
            target = &sb->logical_dp_group->header_.uuid;
            group = true;
        }
        sb_rows_add(r, rdb_row_hash(&sb->header_, tc,
                                    SB_LOGICAL_FLOW_HASH_CONTENT),
                    rdb_row_hash(&sb->header_, tc, SB_LOGICAL_FLOW_HASH_IDS),
                    &sb->header_.uuid, target, group);
    }
    sb_rows_index(r);
    return r;
}

static const struct uuid zero_uuid;

struct lflow_sb_rows *
lflow_sb_rows_from_table(const struct lflow_table *t,
                         const struct uuidset *gone)
{
    struct lflow_sb_rows *r = sb_rows_create(hmap_count(&t->flows));
    const struct lflow *f;
    HMAP_FOR_EACH (f, node, &t->flows) {
        if (!f->has_row) {
            continue;
        }
        struct rdb_hash content = lflow_content_hash(t->side, f);
        struct uuid uuid = (f->has_sb_uuid
                            ? lflow_rare_find(t->side, f)->sb_uuid
                            : lflow_derive_uuid(t, f));
        if (uuidset_find(gone, &uuid)) {
            continue;
        }
        /* A row whose hint is behind matches no flow's external_ids: the
         * sync writes them. */
        struct rdb_hash ids = (f->hint_written
                               ? lflow_ids_hash(t->side, f, f->hint_set,
                                                f->hint)
                               : (struct rdb_hash) { { 0, 0 } });
        const struct uuid *target = target_uuid(f);
        sb_rows_add(r, &content, &ids, &uuid,
                    target ? target : &zero_uuid, f->sb_group);
    }
    sb_rows_index(r);
    return r;
}

size_t
lflow_sb_rows_count(const struct lflow_sb_rows *r)
{
    return r->n;
}

void
lflow_sb_rows_destroy(struct lflow_sb_rows *r)
{
    if (r) {
        free(r->dir);
        free(r->rows);
        free(r->targets);
        free(r);
    }
}

/* The model's datapaths by the UUID of their Datapath_Binding, for rows
 * found in the SB to refer to. */
struct sb_dp_node {
    struct hmap_node node;
    const struct ls_datapath *dp;
};

static void
sb_dps_init(struct hmap *map, const struct ls_model *m)
{
    hmap_init(map);
    for (size_t i = 0; i < ls_model_n_all(m); i++) {
        const struct ls_datapath *dp = ls_model_dp_at(m, i);
        if (!uuid_is_zero(&dp->sb_uuid)) {
            struct sb_dp_node *n = xmalloc(sizeof *n);
            n->dp = dp;
            hmap_insert(map, &n->node, uuid_hash(&dp->sb_uuid));
        }
    }
}

static void
sb_dps_destroy(struct hmap *map)
{
    struct sb_dp_node *n;
    HMAP_FOR_EACH_POP (n, node, map) {
        free(n);
    }
    hmap_destroy(map);
}

static const struct ls_datapath *
find_sb_dp(const struct hmap *map, const struct uuid *uuid)
{
    const struct sb_dp_node *n;
    HMAP_FOR_EACH_WITH_HASH (n, node, uuid_hash(uuid), map) {
        if (uuid_equals(&n->dp->sb_uuid, uuid)) {
            return n->dp;
        }
    }
    return NULL;
}

void
lflow_table_sync_sb(struct lflow_table *t, const struct ls_model *m,
                    struct lflow_sb_rows *existing, struct rdb_txn *txn,
                    struct dp_groups *dpgs, size_t max_inserts)
{
    /* Flows nobody contributes any more have no place in a content
     * comparison. */
    struct lflow *f;
    HMAP_FOR_EACH_SAFE (f, node, &t->flows) {
        f->claimed = false;
        f->dirty = false;
        lflow_clear_row(t->side, f);
        if (!f->n_refs) {
            hmap_remove(&t->flows, &f->node);
            lflow_free(t->side, f);
        }
    }
    t->n_dirty = 0;
    t->n_sorted = 0;
    t->all_new = false;
    shrink_dirty(t);
    uuidset_clear(&t->deleting);

    /* Each desired flow takes the first existing row with its content;
     * rows nobody takes are deleted.  (Into an empty SB, as on a first
     * start, every flow is new.) */
    if (existing->n) {
        struct hmap sb_dps;
        sb_dps_init(&sb_dps, m);
        HMAP_FOR_EACH (f, node, &t->flows) {
            struct rdb_hash content = lflow_content_hash(t->side, f);
            struct uuid derived = lflow_derive_uuid(t, f);
            struct lflow_sb_row *row = sb_rows_take(existing, &content,
                                                    &derived);
            if (!row) {
                continue;
            }
            f->claimed = true;
            if (!uuid_equals(&row->uuid, &derived)) {
                COVERAGE_INC(lflow_row_adopted);
            }
            lflow_set_row(t->side, f, &row->uuid, &derived);
            f->sb_group = row->group;
            if (row->group) {
                struct dp_group *dpg = dp_groups_find_row(
                    dpgs, sb_row_target(existing, row));
                if (dpg) {
                    dp_groups_ref_flow(dpg);
                }
                f->sb_target = dpg;
            } else {
                f->sb_target = find_sb_dp(&sb_dps,
                                          sb_row_target(existing, row));
            }
            struct rdb_hash ids = lflow_ids_hash(t->side, f, f->hint_set,
                                                 f->hint);
            f->hint_written = (uint32_t) ids.h[0] == row->ids;
            f->hint_lapsed = false;
            update_sb_flow(t, f, m, txn, dpgs);
        }
        sb_dps_destroy(&sb_dps);
        for (size_t i = 0; i < existing->n; i++) {
            const struct lflow_sb_row *row = &existing->rows[i];
            if (row->taken) {
                continue;
            }
            rdb_txn_delete(txn, &sb_table_logical_flow, &row->uuid);
            uuidset_insert(&t->deleting, &row->uuid);
            COVERAGE_INC(lflow_deleted);
        }
    }

    /* More new rows than one transaction may carry: the incremental
     * syncs that follow write them, a chunk each (lflow_table_sync_dirty()). */
    if (max_inserts && hmap_count(&t->flows) > max_inserts) {
        size_t n_new = 0;
        HMAP_FOR_EACH (f, node, &t->flows) {
            n_new += !f->claimed;
        }
        if (n_new > max_inserts) {
            /* Exactly the room they need: doubling up to it would leave
             * most of a second copy unused. */
            if (t->allocated_dirty < n_new) {
                free(t->dirty);
                t->dirty = xmalloc(n_new * sizeof *t->dirty);
                t->allocated_dirty = n_new;
            }
            HMAP_FOR_EACH (f, node, &t->flows) {
                if (!f->claimed) {
                    mark_dirty(t, f);
                }
            }
            COVERAGE_INC(lflow_inserts_deferred);
            return;
        }
    }

    /* New rows: at tens of thousands of flows, writing them all into the
     * transaction here would hold its whole text in memory at once. */
    t->insert_bucket = 0;
    t->insert_model = m;
    t->insert_dpgs = dpgs;
    rdb_txn_add_producer(txn, produce_inserts, t);
}

/* The order in which a pipeline too big for one transaction is written:
 * back to front, the egress pipeline before the ingress one and each from
 * its last table to its first.  Until the chunk with the first ingress
 * tables lands, packets cannot enter the part already written, so
 * ovn-controller never forwards through a half-written pipeline. */
#define INSERT_RANKS 512

static size_t
insert_rank(const struct lflow *f)
{
    return ((ls_stage_pipeline(f->stage) == P_OUT ? 0 : 256)
            + (255 - ls_stage_table(f->stage)));
}

static size_t
insert_rank_key(const void *flowp)
{
    return insert_rank(*(struct lflow *const *) flowp);
}

/* Sorts 'flows' by insert_rank(), keeping the order within a rank. */
static void
order_back_to_front(struct lflow **flows, size_t n)
{
    counting_sort(flows, n, sizeof *flows, INSERT_RANKS, insert_rank_key);
}

/* Frees 'f', which no one contributes any more, deleting its SB row. */
static void
delete_flow(struct lflow_table *t, struct lflow *f, struct rdb_txn *txn)
{
    ovs_assert(!f->n_refs);
    if (f->has_row) {
        struct uuid uuid = lflow_sb_uuid(t, f);
        rdb_txn_delete(txn, &sb_table_logical_flow, &uuid);
        if (f->has_sb_uuid) {
            /* A flow inserted in this transaction may derive it. */
            uuidset_insert(&t->deleting, &uuid);
        }
        COVERAGE_INC(lflow_deleted);
        unref_target(f);
    }
    hmap_remove(&t->flows, &f->node);
    lflow_free(t->side, f);
}

/* Flows that go away this sync, by stage, priority and match, so that a
 * new flow with the same ones (only its actions or meter differ: a
 * subnet's DHCP options, an ACL's verb) keeps the row and rewrites its
 * actions, rather than one row deleted and one inserted.  At fifty ports
 * of a subnet, that is 100 short updates instead of 200 rows' text for
 * the server to log, index and send to every ovn-controller. */
struct lflow_leaving {
    struct hmap_node node;          /* By leaving_hash(). */
    struct lflow *flow;
    bool taken;                     /* A new flow has its row. */
};

static uint32_t
leaving_hash(const struct lflow *f)
{
    uint32_t h = hash_int(((uint32_t) f->stage << 16) | f->priority, 0);
    return (f->match_body
            ? hash_pointer(f->match_body, hash_pointer(f->match_head, h))
            : hash_string(f->match_head, h));
}

/* Whether 'a' and 'b' have the same stage, priority and match: matches
 * that split are interned pieces, compared by pointer. */
static bool
lflow_same_key(const struct lflow *a, const struct lflow *b)
{
    if (a->stage != b->stage || a->priority != b->priority
        || a->port_tag != b->port_tag) {
        return false;
    }
    if (a->match_body || b->match_body) {
        return (a->match_body == b->match_body
                && a->match_head == b->match_head
                && a->match_paren == b->match_paren);
    }
    return !strcmp(a->match_head, b->match_head);
}

/* Collects the dirty flows from 'start' on that go away and have rows, if
 * some others there are new; returns how many it put in '*leaving' (an
 * array the caller frees, indexed by 'map'). */
static size_t
collect_leaving(struct lflow_table *t, size_t start, struct hmap *map,
                struct lflow_leaving **leaving)
{
    size_t n_gone = 0;
    bool any_new = false;
    for (size_t i = start; i < t->n_dirty; i++) {
        const struct lflow *f = t->dirty[i];
        if (!lflow_n_dps(f)) {
            n_gone += f->has_row;
        } else if (!f->has_row) {
            any_new = true;
        }
    }
    *leaving = NULL;
    if (!n_gone || !any_new) {
        return 0;
    }
    *leaving = xmalloc(n_gone * sizeof **leaving);
    size_t n = 0;
    for (size_t i = start; i < t->n_dirty; i++) {
        struct lflow *f = t->dirty[i];
        if (!lflow_n_dps(f) && f->has_row) {
            struct lflow_leaving *l = &(*leaving)[n++];
            l->flow = f;
            l->taken = false;
            hmap_insert(map, &l->node, leaving_hash(f));
        }
    }
    return n;
}

/* A flow that goes away with the same key as 'f', whose row 'f' may
 * take, or NULL. */
static struct lflow_leaving *
find_leaving(const struct hmap *map, const struct lflow *f)
{
    struct lflow_leaving *l;
    HMAP_FOR_EACH_WITH_HASH (l, node, leaving_hash(f), map) {
        if (!l->taken && lflow_same_key(l->flow, f)) {
            return l;
        }
    }
    return NULL;
}

/* Gives 'old''s SB row to 'f', which replaces it, rewriting what
 * differs: the actions, the meter, the datapath or group, external_ids.
 * ovn-controller handles a changed row as it does a new one. */
static void
reuse_sb_row(struct lflow_table *t, struct lflow *old, struct lflow *f,
             const struct ls_model *m, struct rdb_txn *txn,
             struct dp_groups *dpgs)
{
    /* (A new group is made before any op on the row is begun.) */
    struct lflow_target target = lflow_target(t, f, m, txn, dpgs);
    struct uuid uuid = lflow_sb_uuid(t, old);
    struct uuid derived = lflow_derive_uuid(t, f);
    lflow_clear_row(t->side, old);
    lflow_set_row(t->side, f, &uuid, &derived);

    rdb_txn_update(txn, &sb_table_logical_flow, &uuid);
    if (f->actions != old->actions) {
        rdb_txn_set_string_parts(txn, SB_LOGICAL_FLOW_COL_ACTIONS,
                                 &f->actions,
                                 (size_t[]) { strpool_len(f->actions) }, 1,
                                 strpool_is_json_plain(f->actions));
    }
    const char *meter = lflow_meter(t->side, f);
    const char *old_meter = lflow_meter(t->side, old);
    if (meter != old_meter) {
        rdb_txn_set_string(txn, SB_LOGICAL_FLOW_COL_CONTROLLER_METER, meter);
    }
    if (target.group != old->sb_group || target.target != old->sb_target) {
        rdb_txn_set_ref(txn, SB_LOGICAL_FLOW_COL_LOGICAL_DATAPATH,
                        target.group ? NULL : target.uuid);
        rdb_txn_set_ref(txn, SB_LOGICAL_FLOW_COL_LOGICAL_DP_GROUP,
                        target.group ? target.uuid : NULL);
    }
    if (target.group) {
        dp_groups_ref_flow(CONST_CAST(struct dp_group *, target.target));
    }
    f->sb_target = target.target;
    f->sb_group = target.group;
    unref_target(old);
    old->sb_target = NULL;
    /* The old row's stage-hint: 'old''s last one, which it lost with its
     * last contribution ('hint_lapsed'), or none. */
    bool row_known = old->hint_written || old->hint_lapsed;
    bool row_hinted = old->hint_lapsed || old->hint_set;
    if (row_known && row_hinted == f->hint_set
        && (!f->hint_set || old->hint == f->hint)
        && old->where == f->where) {
        f->hint_written = true;
        f->hint_lapsed = false;
    } else {
        set_lflow_ids(t->side, f, txn);
    }
    COVERAGE_INC(lflow_row_reused);
}

void
lflow_table_propose_moves(const struct lflow_table *t,
                          struct dp_groups *dpgs)
{
    size_t n_sorted = MIN(t->n_sorted, t->n_dirty);
    for (size_t i = n_sorted; i < t->n_dirty; i++) {
        const struct lflow *f = t->dirty[i];
        if (f->sb_group && f->sb_target && f->has_row) {
            dp_groups_propose_move(dpgs,
                                   CONST_CAST(struct dp_group *,
                                              f->sb_target),
                                   (lflow_n_dps(f) >= 2
                                    ? f->on.dps->map : NULL),
                                   lflow_n_dps(f));
        }
    }
}

size_t
lflow_table_sync_dirty(struct lflow_table *t, const struct ls_model *m,
                       struct rdb_txn *txn, struct dp_groups *dpgs,
                       size_t max_inserts)
{
    size_t n = t->n_dirty;

    /* 'dirty' starts with the flows a previous sync left to insert, in
     * order ('n_sorted' of them); the flows touched since follow.  Only
     * those are looked at here unless they add inserts: at a million
     * flows left, touching them all for each chunk would cost more than
     * writing the chunk. */
    size_t n_sorted = MIN(t->n_sorted, t->n_dirty);

    /* A new transaction: the full sync's deletions are done. */
    if (!uuidset_is_empty(&t->deleting)) {
        uuidset_clear(&t->deleting);
    }

    /* The last chunk was written out whole: a transaction that fails or
     * goes away before that is followed by a full recompute on a new
     * table, never by another sync of this one. */
    ovs_assert(!t->chunk);

    /* Deletes and updates; a new flow that replaces one going away takes
     * its row; the flows to insert stay in 'dirty', after the sorted
     * ones. */
    struct hmap leaving_map = HMAP_INITIALIZER(&leaving_map);
    struct lflow_leaving *leaving;
    size_t n_leaving = collect_leaving(t, n_sorted, &leaving_map, &leaving);
    size_t n_new = n_sorted;
    for (size_t i = n_sorted; i < t->n_dirty; i++) {
        struct lflow *f = t->dirty[i];
        if (!lflow_n_dps(f)) {
            if (!n_leaving || !f->has_row) {
                delete_flow(t, f, txn);
            }
        } else if (!f->has_row) {
            struct lflow_leaving *l = (n_leaving
                                       ? find_leaving(&leaving_map, f)
                                       : NULL);
            if (l) {
                l->taken = true;
                reuse_sb_row(t, l->flow, f, m, txn, dpgs);
                f->dirty = false;
            } else {
                t->dirty[n_new++] = f;
            }
        } else {
            update_sb_flow(t, f, m, txn, dpgs);
            f->dirty = false;
        }
    }
    for (size_t i = 0; i < n_leaving; i++) {
        /* Without a row once taken: then only freed. */
        delete_flow(t, leaving[i].flow, txn);
    }
    hmap_destroy(&leaving_map);
    free(leaving);

    /* Inserts, at most 'max_inserts' of them, back to front; the rest
     * stay dirty for the next sync.  New ones among sorted ones mean
     * sorting them all again. */
    bool sorted = n_new == n_sorted;
    if (max_inserts && n_new > max_inserts && !sorted) {
        size_t n_live = 0;
        for (size_t i = 0; i < n_new; i++) {
            struct lflow *f = t->dirty[i];
            if (lflow_n_dps(f)) {
                t->dirty[n_live++] = f;
            } else {
                delete_flow(t, f, txn);
            }
        }
        n_new = n_live;
        order_back_to_front(t->dirty, n_new);
        sorted = true;
    }
    /* Many inserts (a chunk, or the last of them) are written as the
     * server reads them, like a full sync's: the whole text of a chunk of
     * the default size would be about 20 MB, at the peak of a cold
     * start. */
    size_t i = 0;
    size_t n_ins = 0;
    struct lflow **chunk = NULL;
    size_t n_want = max_inserts ? MIN(n_new, max_inserts) : n_new;
    if (n_want > 1000) {
        chunk = xmalloc(n_want * sizeof *chunk);
    }
    for (; i < n_new && (!max_inserts || n_ins < max_inserts); i++) {
        struct lflow *f = t->dirty[i];
        if (!lflow_n_dps(f)) {
            delete_flow(t, f, txn);   /* Went away while waiting. */
            continue;
        }
        f->dirty = false;
        if (chunk) {
            chunk[n_ins] = f;
        } else {
            insert_sb_flow(t, f, m, txn, dpgs);
        }
        n_ins++;
    }
    if (chunk) {
        t->chunk = chunk;
        t->n_chunk = n_ins;
        t->chunk_next = 0;
        t->insert_model = m;
        t->insert_dpgs = dpgs;
        rdb_txn_add_producer(txn, produce_chunk, t);
    }
    t->n_dirty = n_new - i;
    t->n_sorted = sorted ? t->n_dirty : 0;
    if (t->n_dirty) {
        /* (Not with nothing to move: 'dirty' may still be NULL.) */
        memmove(t->dirty, t->dirty + i, t->n_dirty * sizeof *t->dirty);
        COVERAGE_INC(lflow_inserts_deferred);
    }
    shrink_dirty(t);
    return n - t->n_dirty;
}

size_t
lflow_table_n_unwritten(const struct lflow_table *t)
{
    /* Right after a sync, every flow still dirty is one it left. */
    return t->n_dirty;
}

/* Comparing two tables. */

/* Whether 'fa' of 'a' (over the datapaths of 'ma') and 'fb' of 'b' (over
 * those of 'mb') are on the same switches, told by NB row UUID: the two
 * models may number them differently. */
static bool
lflow_same_dps(const struct ls_model *ma, const struct lflow *fa,
               const struct ls_model *mb, const struct lflow *fb)
{
    if (lflow_n_dps(fa) != lflow_n_dps(fb)) {
        return false;
    }
    for (size_t i = 0; i < ls_model_n_all(ma); i++) {
        const struct ls_datapath *da = ls_model_dp_at(ma, i);
        if (!dps_contains(fa, da->index)) {
            continue;
        }
        const struct ls_datapath *db
            = ls_model_find_any_datapath(mb, ls_datapath_nb_uuid(da));
        if (!db || !dps_contains(fb, db->index)) {
            return false;
        }
    }
    return true;
}

/* Appends one line about flow 'f' of 't' to 'out'. */
static void
lflow_diff_report(const struct lflow_table *t, const struct lflow *f,
                  const char *what, struct ds *out)
{
    const char *meter = lflow_meter(t->side, f);
    ds_put_format(out, "%s: %s priority=%"PRIu16" match=(%s) actions=(%s)",
                  what, ls_stage_name(f->stage), f->priority,
                  lflow_match(t->side, f, &t->side->match_scratch),
                  f->actions);
    if (meter) {
        ds_put_format(out, " controller_meter=%s", meter);
    }
    ds_put_format(out, " on %"PRIu32" switch(es)\n", lflow_n_dps(f));
}

/* Finds the flow of 'b' with the content of 'fa' of 'a', or NULL. */
static const struct lflow *
lflow_find_other(const struct lflow_table *a, const struct lflow *fa,
                 const struct lflow_table *b, struct ds *scratch)
{
    const char *match = lflow_match(a->side, fa, scratch);
    const char *meter = lflow_meter(a->side, fa);
    size_t match_len = strlen(match);
    uint32_t hash = lflow_hash(fa->stage, fa->priority, match, match_len,
                               fa->actions, strpool_len(fa->actions), meter);
    const struct lflow *fb;
    HMAP_FOR_EACH_WITH_HASH (fb, node, hash, &b->flows) {
        const char *mb = lflow_match(b->side, fb, &b->side->match_scratch);
        const char *meter_b = lflow_meter(b->side, fb);
        if (fb->stage == fa->stage && fb->priority == fa->priority
            && !strcmp(fb->actions, fa->actions) && !strcmp(mb, match)
            && (meter ? meter_b && !strcmp(meter, meter_b) : !meter_b)) {
            return fb;
        }
    }
    return NULL;
}

size_t
lflow_table_diff(const struct lflow_table *a, const struct ls_model *ma,
                 const struct lflow_table *b, const struct ls_model *mb,
                 struct ds *out, size_t max_report)
{
    struct ds scratch = DS_EMPTY_INITIALIZER;
    size_t n_diff = 0;
    size_t n_found = 0;
    const struct lflow *fa;
    HMAP_FOR_EACH (fa, node, &a->flows) {
        if (!lflow_n_dps(fa)) {
            continue;               /* On no switch: no SB row. */
        }
        const struct lflow *fb = lflow_find_other(a, fa, b, &scratch);
        const char *what = NULL;
        if (!fb || !lflow_n_dps(fb)) {
            what = "only in the first table";
        } else {
            n_found++;
            if (!lflow_same_dps(ma, fa, mb, fb)) {
                what = "on other switches in the second table";
            } else if (fa->hint_set != fb->hint_set
                       || (fa->hint_set && fa->hint != fb->hint)) {
                what = "another stage-hint in the second table";
            } else if (strcmp(lflow_source(a->side, fa),
                              lflow_source(b->side, fb))) {
                what = "another source in the second table";
            } else if (fa->port_tag != fb->port_tag) {
                what = "other tags in the second table";
            }
        }
        if (what && n_diff++ < max_report) {
            lflow_diff_report(a, fa, what, out);
        }
    }

    /* Flows of 'b' that 'a' lacks: each flow of 'a' found one of its own,
     * so there are as many as 'b' has beyond those. */
    size_t n_b = 0;
    const struct lflow *fb;
    HMAP_FOR_EACH (fb, node, &b->flows) {
        n_b += lflow_n_dps(fb) > 0;
    }
    if (n_b > n_found) {
        HMAP_FOR_EACH (fb, node, &b->flows) {
            const struct lflow *other;
            if (lflow_n_dps(fb)
                && (!(other = lflow_find_other(b, fb, a, &scratch))
                    || !lflow_n_dps(other))
                && n_diff++ < max_report) {
                lflow_diff_report(b, fb, "only in the second table", out);
            }
        }
    }
    ds_destroy(&scratch);
    return n_diff;
}
