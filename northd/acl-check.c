/* ACL validation and invalid-ACL feedback; see acl-check.h. */
#include <config.h>
#include "northd/acl-check.h"

#include <string.h>

#include "coverage.h"
#include "lib/expr.h"
#include "lib/nb-rdb.h"
#include "lib/rdb.h"
#include "lib/sset-shash.h"
#include "lib/symtab.h"
#include "northd/datapaths.h"
#include "northd/groups.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "sset.h"
#include "util.h"
#include "uuid.h"

VLOG_DEFINE_THIS_MODULE(acl_check);

COVERAGE_DEFINE(acl_validated);
COVERAGE_DEFINE(acl_invalid);
COVERAGE_DEFINE(acl_valid_by_shape);

/* The fields ovn-controller 23.03 knows never change: built once, on
 * first use, and shared by every registry and checker of the process (it
 * is read only from then on; acl_symtab_destroy() frees it at exit). */
static struct symtab symtab;
static bool symtab_ready;

/* An invalid ACL, as reported. */
struct acl_error {
    struct hmap_node node;          /* By ACL UUID. */
    struct uuid uuid;
    char *name;
    char *owner;
    char *match;
    char *error;
    bool dropped;
};

struct acl_registry {
    /* Keys (expr_validation_key()) of matches found valid, across passes:
     * most ACLs differ from another only in the sets they name, and a
     * match whose key is here is valid without a parse.  A key holds all
     * that a verdict depends on, so none goes stale, and a match whose
     * sets change is simply keyed again.  Kept from growing without bound
     * by starting over past twice the NB's ACLs ('max_shapes'). */
    struct sset valid_shapes;
    size_t max_shapes;

    /* The invalid ACLs of the last pass, and those of the pass under way
     * (from acl_errors_begin() to acl_errors_end()). */
    struct hmap errors;
    struct hmap new_errors;
    bool nb_pending;                /* NB ACL_Error needs to be compared
                                     * with 'errors'. */
    bool quiet;                     /* Logs nothing. */
};

struct acl_registry *
acl_registry_create(bool quiet)
{
    struct acl_registry *r = xzalloc(sizeof *r);
    sset_init(&r->valid_shapes);
    hmap_init(&r->errors);
    hmap_init(&r->new_errors);
    r->nb_pending = true;
    r->quiet = quiet;
    return r;
}

struct acl_check {
    struct acl_registry *reg;       /* Borrowed: the valid shapes. */
    const struct groups *groups;    /* Borrowed: the address sets. */
    struct sset pgs;                /* Names of NB port groups. */
    struct expr_refs refs;          /* What validations needed so far. */
    struct ds key;                  /* Scratch for the key of a match. */
    char *error;                    /* The last acl_check_match() error. */
};

struct acl_check *
acl_check_create(struct acl_registry *reg, const struct groups *groups,
                 struct rdb *nb_db)
{
    if (!symtab_ready) {
        symtab_init_ovn(&symtab);
        symtab_ready = true;
    }
    reg->max_shapes = 2 * nb_acl_count(nb_db) + 1024;

    struct acl_check *c = xmalloc(sizeof *c);
    c->reg = reg;
    c->groups = groups;
    sset_init(&c->pgs);
    expr_refs_init(&c->refs);
    ds_init(&c->key);
    c->error = NULL;

    const struct nb_port_group *pg;
    NB_PORT_GROUP_FOR_EACH (pg, nb_db) {
        sset_add(&c->pgs, pg->name);
    }
    return c;
}

void
acl_check_destroy(struct acl_check *c)
{
    if (!c) {
        return;
    }
    ds_destroy(&c->key);
    free(c->error);
    expr_refs_destroy(&c->refs);
    sset_destroy(&c->pgs);
    free(c);
}

void
acl_check_set_changed(struct acl_check *c, const char *name)
{
    /* Gone, or to be added again with its new content when next needed. */
    expr_refs_remove_addr_set(&c->refs, name);
}

void
acl_check_set_pg(struct acl_check *c, const char *name, bool exists)
{
    if (exists) {
        sset_add(&c->pgs, name);
    } else {
        sset_find_and_delete(&c->pgs, name);
    }
    if (!exists) {
        expr_refs_remove_port_group(&c->refs, name);
    }
}

/* Adds address set 'name' to 'c->refs': with its addresses, or only
 * their count and widest ('summary').  False if there is no such set. */
static bool
add_addr_set(struct acl_check *c, const char *name, bool summary)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

    /* Sorted, so errors name the same element every time. */
    size_t n;
    const char **addrs = groups_set_addresses(c->groups, name, &n);
    if (!addrs) {
        return false;
    }
    char *error = (summary
                   ? expr_refs_add_addr_set_summary(&c->refs, name, addrs, n)
                   : expr_refs_add_addr_set(&c->refs, name, addrs, n));
    if (error) {
        /* The bad entries are left out; ovn-controller does the same with
         * entries it cannot parse.  (Said once, when first added.) */
        if (summary) {
            VLOG_WARN_RL(&rl, "address set %s: %s", name, error);
        }
        free(error);
    }
    free(addrs);
    return true;
}

/* Makes sure 'c->refs' holds the address sets and port groups in
 * 'as_names' and 'pg_names'.  Address sets go in as summaries: most
 * matches need no more (see expr_refs_add_addr_set_summary()), and a
 * copy of every address of every set would cost more than the sets. */
static void
add_refs(struct acl_check *c, const struct sset *as_names,
         const struct sset *pg_names)
{
    const struct sset_node *sn;
    HMAP_FOR_EACH (sn, hmap_node, &as_names->map) {
        if (!sset_shash_find(&c->refs.addr_sets, sn)) {
            add_addr_set(c, sn->name, true);
        }
    }
    HMAP_FOR_EACH (sn, hmap_node, &pg_names->map) {
        const char *name = sn->name;
        if (!sset_shash_find(&c->refs.port_groups, sn)
            && sset_contains(&c->pgs, name)) {
            /* Only whether the group exists matters to a match's
             * validity, not its members. */
            expr_refs_add_port_group(&c->refs, name, NULL, 0);
        }
    }
}

/* Replaces the summaries among the address sets 'as_names' in 'c->refs'
 * by the sets with their addresses.  Returns false if there were none. */
static bool
with_addresses(struct acl_check *c, const struct sset *as_names)
{
    bool any = false;
    const char *name;
    SSET_FOR_EACH (name, as_names) {
        const struct expr_const_set *in = shash_find_data(
            &c->refs.addr_sets, name);
        if (in && in->summary && add_addr_set(c, name, false)) {
            any = true;
        }
    }
    return any;
}

const char *
acl_check_match(struct acl_check *c, const char *match,
                const struct sset *as_names, const struct sset *pg_names)
{
    free(c->error);
    c->error = NULL;
    add_refs(c, as_names, pg_names);
    bool keyed = expr_validation_key(match, &c->refs, &c->key);
    if (keyed && sset_contains(&c->reg->valid_shapes, ds_cstr(&c->key))) {
        COVERAGE_INC(acl_valid_by_shape);
        return NULL;
    }

    bool summary_failed;
    c->error = expr_validate_summaries(match, &symtab, &c->refs,
                                       EXPR_ACL_MAX_PAREN_DEPTH,
                                       &summary_failed);
    if (!c->error && keyed) {
        struct sset *shapes = &c->reg->valid_shapes;
        if (sset_count(shapes) >= c->reg->max_shapes) {
            sset_clear(shapes);
        }
        sset_add(shapes, ds_cstr(&c->key));
    } else if (summary_failed && with_addresses(c, as_names)) {
        /* A summary was not enough: ask again, with the addresses.  (The
         * key made above does not hold for these.) */
        free(c->error);
        c->error = expr_validate_summaries(match, &symtab, &c->refs,
                                           EXPR_ACL_MAX_PAREN_DEPTH, NULL);
    }
    COVERAGE_INC(acl_validated);
    if (c->error) {
        COVERAGE_INC(acl_invalid);
    }
    return c->error;
}

char *
acl_check_plain_match(const char *match)
{
    if (!symtab_ready) {
        symtab_init_ovn(&symtab);
        symtab_ready = true;
    }
    struct expr_refs refs;
    expr_refs_init(&refs);
    char *error = expr_validate_summaries(match, &symtab, &refs,
                                          EXPR_MAX_PAREN_DEPTH, NULL);
    expr_refs_destroy(&refs);
    return error;
}

/* The registry of invalid ACLs. */

static void
acl_error_destroy(struct acl_error *e)
{
    free(e->name);
    free(e->owner);
    free(e->match);
    free(e->error);
    free(e);
}

static struct acl_error *
acl_error_find(const struct hmap *map, const struct uuid *uuid)
{
    struct acl_error *e;
    HMAP_FOR_EACH_WITH_HASH (e, node, uuid_hash(uuid), map) {
        if (uuid_equals(&e->uuid, uuid)) {
            return e;
        }
    }
    return NULL;
}

static bool
acl_error_equal(const struct acl_error *a, const struct acl_error *b)
{
    return (!strcmp(a->name, b->name) && !strcmp(a->owner, b->owner)
            && !strcmp(a->match, b->match) && !strcmp(a->error, b->error)
            && a->dropped == b->dropped);
}

void
acl_errors_begin(struct acl_registry *r)
{
    struct acl_error *e;
    HMAP_FOR_EACH_POP (e, node, &r->new_errors) {
        acl_error_destroy(e);
    }
}

void
acl_errors_begin_incremental(struct acl_registry *r)
{
    acl_errors_begin(r);
    const struct acl_error *e;
    HMAP_FOR_EACH (e, node, &r->errors) {
        struct acl_error *copy = xmalloc(sizeof *copy);
        copy->uuid = e->uuid;
        copy->name = xstrdup(e->name);
        copy->owner = xstrdup(e->owner);
        copy->match = xstrdup(e->match);
        copy->error = xstrdup(e->error);
        copy->dropped = e->dropped;
        hmap_insert(&r->new_errors, &copy->node, uuid_hash(&copy->uuid));
    }
}

void
acl_errors_forget(struct acl_registry *r, const struct uuid *uuid)
{
    struct acl_error *e = acl_error_find(&r->new_errors, uuid);
    if (e) {
        hmap_remove(&r->new_errors, &e->node);
        acl_error_destroy(e);
    }
}

void
acl_errors_report(struct acl_registry *r, const struct nb_acl *acl,
                  const char *match, const char *owner, const char *error,
                  bool dropped)
{
    const struct uuid *uuid = &acl->header_.uuid;
    if (acl_error_find(&r->new_errors, uuid)) {
        return;
    }
    struct acl_error *e = xmalloc(sizeof *e);
    e->uuid = *uuid;
    e->name = xstrdup(acl->name ? acl->name : "");
    e->owner = xstrdup(owner);
    e->match = xstrdup(match);
    e->error = xstrdup(error);
    e->dropped = dropped;
    hmap_insert(&r->new_errors, &e->node, uuid_hash(uuid));
}

/* An NB with an older schema (7.0.0, OVN 23.03's own) has no ACL_Error
 * table: what is written to it is left out (lib/rdb.h), and errors are
 * reported by the log and acl/errors only. */
static bool
nb_has_acl_error(const struct rdb *nb_db)
{
    return rdb_server_has_table(nb_db, &nb_table_acl_error);
}

static void
sync_nb_errors(const struct acl_registry *r, struct rdb *nb_db,
               struct rdb_txn *nb_txn)
{
    struct hmap done = HMAP_INITIALIZER(&done);
    struct seen {
        struct hmap_node node;
        struct uuid uuid;
    };

    const struct nb_acl_error *row;
    NB_ACL_ERROR_FOR_EACH (row, nb_db) {
        const struct acl_error *e = row->acl
            ? acl_error_find(&r->errors, &row->acl->header_.uuid) : NULL;
        bool dup = false;
        if (e) {
            struct seen *s;
            HMAP_FOR_EACH_WITH_HASH (s, node, uuid_hash(&e->uuid), &done) {
                dup |= uuid_equals(&s->uuid, &e->uuid);
            }
        }
        if (!e || dup) {
            rdb_txn_delete(nb_txn, &nb_table_acl_error, &row->header_.uuid);
            continue;
        }
        struct seen *s = xmalloc(sizeof *s);
        s->uuid = e->uuid;
        hmap_insert(&done, &s->node, uuid_hash(&s->uuid));

        const char *effect = e->dropped ? "drop" : "left-out";
        rdb_txn_update(nb_txn, &nb_table_acl_error, &row->header_.uuid);
        if (strcmp(row->name, e->name)) {
            rdb_txn_set_string(nb_txn, NB_ACL_ERROR_COL_NAME, e->name);
        }
        if (strcmp(row->owner, e->owner)) {
            rdb_txn_set_string(nb_txn, NB_ACL_ERROR_COL_OWNER, e->owner);
        }
        if (strcmp(row->match, e->match)) {
            rdb_txn_set_string(nb_txn, NB_ACL_ERROR_COL_MATCH, e->match);
        }
        if (strcmp(row->error, e->error)) {
            rdb_txn_set_string(nb_txn, NB_ACL_ERROR_COL_ERROR, e->error);
        }
        if (strcmp(row->effect, effect)) {
            rdb_txn_set_string(nb_txn, NB_ACL_ERROR_COL_EFFECT, effect);
        }
    }

    const struct acl_error *e;
    HMAP_FOR_EACH (e, node, &r->errors) {
        bool have = false;
        struct seen *s;
        HMAP_FOR_EACH_WITH_HASH (s, node, uuid_hash(&e->uuid), &done) {
            have |= uuid_equals(&s->uuid, &e->uuid);
        }
        const struct nb_acl *acl = nb_acl_get_for_uuid(nb_db,
                                                             &e->uuid);
        if (have || !acl) {
            continue;
        }
        struct uuid uuid;
        rdb_uuid_generate(&uuid);
        rdb_txn_insert(nb_txn, &nb_table_acl_error, &uuid);
        rdb_txn_set_ref(nb_txn, NB_ACL_ERROR_COL_ACL, &acl->header_.uuid);
        rdb_txn_set_string(nb_txn, NB_ACL_ERROR_COL_NAME, e->name);
        rdb_txn_set_string(nb_txn, NB_ACL_ERROR_COL_OWNER, e->owner);
        rdb_txn_set_string(nb_txn, NB_ACL_ERROR_COL_MATCH, e->match);
        rdb_txn_set_string(nb_txn, NB_ACL_ERROR_COL_ERROR, e->error);
        rdb_txn_set_string(nb_txn, NB_ACL_ERROR_COL_EFFECT,
                           e->dropped ? "drop" : "left-out");
    }

    struct seen *s;
    HMAP_FOR_EACH_POP (s, node, &done) {
        free(s);
    }
    hmap_destroy(&done);
}

void
acl_errors_end(struct acl_registry *r, struct rdb *nb_db,
               struct rdb_txn *nb_txn, bool full)
{
    /* Each error is logged once, when it appears or changes, so the volume
     * follows the CMS's write rate and an ordinary batch (a CMS pushing a
     * policy with a few hundred broken ACLs) must all be logged.  The
     * limit only guards against a CMS that churns thousands of them; what
     * it holds back is counted, and acl/errors and ACL_Error still list
     * everything. */
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(100, 500);
    static struct vlog_rate_limit summary_rl = VLOG_RATE_LIMIT_INIT(1, 5);
    size_t n_unlogged = 0;

    /* Log what is new or different since the last pass. */
    struct acl_error *e;
    HMAP_FOR_EACH (e, node, &r->new_errors) {
        const struct acl_error *old = acl_error_find(&r->errors, &e->uuid);
        if (old && acl_error_equal(old, e)) {
            continue;
        }
        r->nb_pending = true;
        if (r->quiet) {
            continue;
        }
        if (vlog_should_drop(&this_module, VLL_WARN, &rl)) {
            n_unlogged++;
            continue;
        }
        VLOG_WARN("ACL "UUID_FMT"%s%s of %s: match \"%s\": %s (%s)",
                  UUID_ARGS(&e->uuid), e->name[0] ? " " : "", e->name,
                  e->owner, e->match, e->error, e->dropped
                  ? "compiled as a drop of all traffic it applies to"
                  : "left out");
    }
    if (n_unlogged) {
        VLOG_WARN_RL(&summary_rl, "%"PRIuSIZE" more invalid ACLs were not "
                     "logged (rate limit); \"acl/errors\"%s list%s them all",
                     n_unlogged,
                     nb_has_acl_error(nb_db) ? " and the NB table ACL_Error"
                                             : "",
                     nb_has_acl_error(nb_db) ? "" : "s");
    }
    HMAP_FOR_EACH (e, node, &r->errors) {
        if (!acl_error_find(&r->new_errors, &e->uuid)) {
            r->nb_pending = true;
            if (r->quiet) {
                continue;
            }
            VLOG_INFO("ACL "UUID_FMT" is no longer invalid",
                      UUID_ARGS(&e->uuid));
        }
    }

    /* This pass's errors become the current ones. */
    hmap_swap(&r->errors, &r->new_errors);
    acl_errors_begin(r);

    if (full) {
        r->nb_pending = true;
    }
    if (nb_txn && r->nb_pending) {
        sync_nb_errors(r, nb_db, nb_txn);
        r->nb_pending = false;
    }
}

static int
compare_errors(const void *a_, const void *b_)
{
    const struct acl_error *const *a = a_;
    const struct acl_error *const *b = b_;
    return uuid_compare_3way(&(*a)->uuid, &(*b)->uuid);
}

/* The errors of 'r', sorted by UUID, as a new array of hmap_count()
 * pointers. */
static const struct acl_error **
sorted_errors(const struct acl_registry *r)
{
    size_t n = hmap_count(&r->errors);
    const struct acl_error **sorted = xmalloc((n + 1) * sizeof *sorted);
    size_t i = 0;
    const struct acl_error *e;
    HMAP_FOR_EACH (e, node, &r->errors) {
        sorted[i++] = e;
    }
    qsort(sorted, n, sizeof *sorted, compare_errors);
    return sorted;
}

void
acl_errors_format(const struct acl_registry *r, struct ds *out,
                  const struct rdb *nb_db)
{
    size_t n = hmap_count(&r->errors);
    const struct acl_error **sorted = sorted_errors(r);
    for (size_t i = 0; i < n; i++) {
        const struct acl_error *e = sorted[i];
        ds_put_format(out, "ACL "UUID_FMT"%s%s of %s (%s)\n  match: %s\n"
                      "  error: %s\n", UUID_ARGS(&e->uuid),
                      e->name[0] ? " " : "", e->name, e->owner,
                      e->dropped ? "compiled as drop" : "left out",
                      e->match, e->error);
    }
    free(sorted);
    if (n && !nb_has_acl_error(nb_db)) {
        const char *version = rdb_server_schema_version(nb_db);
        ds_put_format(out, "Note: the NB database (schema version %s) has "
                      "no ACL_Error table: these errors are reported here "
                      "and in the log only.\n",
                      version ? version : "unknown");
    }
}

void
acl_registry_destroy(struct acl_registry *r)
{
    if (!r) {
        return;
    }
    acl_errors_begin(r);
    struct acl_error *e;
    HMAP_FOR_EACH_POP (e, node, &r->errors) {
        acl_error_destroy(e);
    }
    hmap_destroy(&r->errors);
    hmap_destroy(&r->new_errors);
    sset_destroy(&r->valid_shapes);
    free(r);
}

void
acl_symtab_destroy(void)
{
    if (symtab_ready) {
        symtab_destroy(&symtab);
        symtab_ready = false;
    }
}

size_t
acl_errors_diff(const struct acl_registry *a, const struct acl_registry *b,
                struct ds *out, size_t max_report)
{
    const struct acl_error **va = sorted_errors(a);
    const struct acl_error **vb = sorted_errors(b);
    size_t na = hmap_count(&a->errors), nb = hmap_count(&b->errors);
    size_t i = 0, j = 0, n_diff = 0;
    while (i < na || j < nb) {
        int cmp = (i >= na ? 1 : j >= nb ? -1
                   : uuid_compare_3way(&va[i]->uuid, &vb[j]->uuid));
        const struct acl_error *e = cmp <= 0 ? va[i] : vb[j];
        const char *what = (cmp < 0 ? "only in the first"
                            : cmp > 0 ? "only in the second"
                            : acl_error_equal(va[i], vb[j]) ? NULL
                            : "different");
        if (what && n_diff++ < max_report) {
            ds_put_format(out, "ACL error "UUID_FMT" (%s): %s\n",
                          UUID_ARGS(&e->uuid), e->error, what);
        }
        i += cmp <= 0;
        j += cmp >= 0;
    }
    free(va);
    free(vb);
    return n_diff;
}
