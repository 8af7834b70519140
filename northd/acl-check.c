/* ACL validation and invalid-ACL feedback; see acl-check.h. */
#include <config.h>
#include "northd/acl-check.h"

#include <string.h>

#include "coverage.h"
#include "hash.h"
#include "lib/expr.h"
#include "lib/ovn-nb-idl.h"
#include "lib/symtab.h"
#include "northd/datapaths.h"
#include "northd/groups.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "sset.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(acl_check);

COVERAGE_DEFINE(acl_validated);
COVERAGE_DEFINE(acl_invalid);

/* The fields ovn-controller 23.03 knows never change: built once. */
static struct symtab symtab;
static bool symtab_ready;

struct acl_verdict {
    struct hmap_node node;          /* By ACL UUID. */
    struct uuid uuid;
    char *error;                    /* NULL if valid. */
};

struct acl_check {
    struct expr_refs refs;
    struct hmap verdicts;           /* Contains "struct acl_verdict"s. */
};

struct acl_check *
acl_check_create(const struct ls_model *m, struct ovsdb_idl *nb_idl)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

    if (!symtab_ready) {
        symtab_init_ovn(&symtab);
        symtab_ready = true;
    }

    struct acl_check *c = xmalloc(sizeof *c);
    expr_refs_init(&c->refs);
    hmap_init(&c->verdicts);

    /* The same address sets the SB will get, so "$pg_ip4" resolves. */
    struct shash sets = SHASH_INITIALIZER(&sets);
    groups_build_address_sets(m, nb_idl, &sets);
    struct shash_node *node;
    SHASH_FOR_EACH (node, &sets) {
        /* Sorted, so that a message naming "the first" address is the
         * same whatever order the members arrived in. */
        const char **addrs = sset_sort(node->data);
        char *error = expr_refs_add_addr_set(&c->refs, node->name, addrs,
                                             sset_count(node->data));
        if (error) {
            /* The bad entries are left out; ovn-controller does the same
             * with entries it cannot parse. */
            VLOG_WARN_RL(&rl, "address set %s: %s", node->name, error);
            free(error);
        }
        free(addrs);
    }
    groups_destroy_address_sets(&sets);

    const struct nbrec_port_group *pg;
    NBREC_PORT_GROUP_FOR_EACH (pg, nb_idl) {
        const char **ports = xmalloc((pg->n_ports + 1) * sizeof *ports);
        for (size_t i = 0; i < pg->n_ports; i++) {
            ports[i] = pg->ports[i]->name;
        }
        expr_refs_add_port_group(&c->refs, pg->name, ports, pg->n_ports);
        free(ports);
    }
    return c;
}

void
acl_check_destroy(struct acl_check *c)
{
    if (!c) {
        return;
    }
    struct acl_verdict *v;
    HMAP_FOR_EACH_POP (v, node, &c->verdicts) {
        free(v->error);
        free(v);
    }
    hmap_destroy(&c->verdicts);
    expr_refs_destroy(&c->refs);
    free(c);
}

const char *
acl_check_match(struct acl_check *c, const struct nbrec_acl *acl)
{
    const struct uuid *uuid = &acl->header_.uuid;
    struct acl_verdict *v;
    HMAP_FOR_EACH_WITH_HASH (v, node, uuid_hash(uuid), &c->verdicts) {
        if (uuid_equals(&v->uuid, uuid)) {
            return v->error;
        }
    }
    v = xmalloc(sizeof *v);
    v->uuid = *uuid;
    v->error = expr_validate(acl->match, &symtab, &c->refs);
    hmap_insert(&c->verdicts, &v->node, uuid_hash(uuid));
    COVERAGE_INC(acl_validated);
    if (v->error) {
        COVERAGE_INC(acl_invalid);
    }
    return v->error;
}

/* The registry of invalid ACLs. */
struct acl_error {
    struct hmap_node node;          /* By ACL UUID. */
    struct uuid uuid;
    char *name;
    char *owner;
    char *match;
    char *error;
    bool dropped;
};

static struct hmap errors = HMAP_INITIALIZER(&errors);
static struct hmap new_errors = HMAP_INITIALIZER(&new_errors);

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
acl_errors_begin(void)
{
    struct acl_error *e;
    HMAP_FOR_EACH_POP (e, node, &new_errors) {
        acl_error_destroy(e);
    }
}

void
acl_errors_report(const struct nbrec_acl *acl, const char *owner,
                  const char *error, bool dropped)
{
    const struct uuid *uuid = &acl->header_.uuid;
    if (acl_error_find(&new_errors, uuid)) {
        return;
    }
    struct acl_error *e = xmalloc(sizeof *e);
    e->uuid = *uuid;
    e->name = xstrdup(acl->name ? acl->name : "");
    e->owner = xstrdup(owner);
    e->match = xstrdup(acl->match);
    e->error = xstrdup(error);
    e->dropped = dropped;
    hmap_insert(&new_errors, &e->node, uuid_hash(uuid));
}

static void
sync_nb_errors(struct ovsdb_idl *nb_idl, struct ovsdb_idl_txn *nb_txn)
{
    struct hmap done = HMAP_INITIALIZER(&done);
    struct seen {
        struct hmap_node node;
        struct uuid uuid;
    };

    const struct nbrec_acl_error *row;
    NBREC_ACL_ERROR_FOR_EACH_SAFE (row, nb_idl) {
        const struct acl_error *e = row->acl
            ? acl_error_find(&errors, &row->acl->header_.uuid) : NULL;
        bool dup = false;
        if (e) {
            struct seen *s;
            HMAP_FOR_EACH_WITH_HASH (s, node, uuid_hash(&e->uuid), &done) {
                dup |= uuid_equals(&s->uuid, &e->uuid);
            }
        }
        if (!e || dup) {
            nbrec_acl_error_delete(row);
            continue;
        }
        struct seen *s = xmalloc(sizeof *s);
        s->uuid = e->uuid;
        hmap_insert(&done, &s->node, uuid_hash(&s->uuid));

        const char *effect = e->dropped ? "drop" : "left-out";
        if (strcmp(row->name, e->name)) {
            nbrec_acl_error_set_name(row, e->name);
        }
        if (strcmp(row->owner, e->owner)) {
            nbrec_acl_error_set_owner(row, e->owner);
        }
        if (strcmp(row->match, e->match)) {
            nbrec_acl_error_set_match(row, e->match);
        }
        if (strcmp(row->error, e->error)) {
            nbrec_acl_error_set_error(row, e->error);
        }
        if (strcmp(row->effect, effect)) {
            nbrec_acl_error_set_effect(row, effect);
        }
    }

    const struct acl_error *e;
    HMAP_FOR_EACH (e, node, &errors) {
        bool have = false;
        struct seen *s;
        HMAP_FOR_EACH_WITH_HASH (s, node, uuid_hash(&e->uuid), &done) {
            have |= uuid_equals(&s->uuid, &e->uuid);
        }
        const struct nbrec_acl *acl = nbrec_acl_get_for_uuid(nb_idl,
                                                             &e->uuid);
        if (have || !acl) {
            continue;
        }
        row = nbrec_acl_error_insert(nb_txn);
        nbrec_acl_error_set_acl(row, acl);
        nbrec_acl_error_set_name(row, e->name);
        nbrec_acl_error_set_owner(row, e->owner);
        nbrec_acl_error_set_match(row, e->match);
        nbrec_acl_error_set_error(row, e->error);
        nbrec_acl_error_set_effect(row, e->dropped ? "drop" : "left-out");
    }

    struct seen *s;
    HMAP_FOR_EACH_POP (s, node, &done) {
        free(s);
    }
    hmap_destroy(&done);
}

void
acl_errors_end(struct ovsdb_idl *nb_idl, struct ovsdb_idl_txn *nb_txn)
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
    HMAP_FOR_EACH (e, node, &new_errors) {
        const struct acl_error *old = acl_error_find(&errors, &e->uuid);
        if (old && acl_error_equal(old, e)) {
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
                     "logged (rate limit); \"acl/errors\" and the NB table "
                     "ACL_Error list them all", n_unlogged);
    }
    HMAP_FOR_EACH (e, node, &errors) {
        if (!acl_error_find(&new_errors, &e->uuid)) {
            VLOG_INFO("ACL "UUID_FMT" is no longer invalid",
                      UUID_ARGS(&e->uuid));
        }
    }

    /* This pass's errors become the current ones. */
    struct hmap tmp = errors;
    errors = new_errors;
    new_errors = tmp;
    hmap_moved(&errors);
    hmap_moved(&new_errors);
    acl_errors_begin();

    if (nb_txn) {
        sync_nb_errors(nb_idl, nb_txn);
    }
}

static int
compare_errors(const void *a_, const void *b_)
{
    const struct acl_error *const *a = a_;
    const struct acl_error *const *b = b_;
    return uuid_compare_3way(&(*a)->uuid, &(*b)->uuid);
}

void
acl_errors_format(struct ds *out)
{
    size_t n = hmap_count(&errors);
    const struct acl_error **sorted = xmalloc((n + 1) * sizeof *sorted);
    size_t i = 0;
    const struct acl_error *e;
    HMAP_FOR_EACH (e, node, &errors) {
        sorted[i++] = e;
    }
    qsort(sorted, n, sizeof *sorted, compare_errors);
    for (i = 0; i < n; i++) {
        e = sorted[i];
        ds_put_format(out, "ACL "UUID_FMT"%s%s of %s (%s)\n  match: %s\n"
                      "  error: %s\n", UUID_ARGS(&e->uuid),
                      e->name[0] ? " " : "", e->name, e->owner,
                      e->dropped ? "compiled as drop" : "left out",
                      e->match, e->error);
    }
    free(sorted);
}

void
acl_errors_clear(void)
{
    acl_errors_begin();
    struct acl_error *e;
    HMAP_FOR_EACH_POP (e, node, &errors) {
        acl_error_destroy(e);
    }
    hmap_destroy(&errors);
    hmap_destroy(&new_errors);
    if (symtab_ready) {
        symtab_destroy(&symtab);
        symtab_ready = false;
    }
}
