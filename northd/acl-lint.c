/* ACL lint: see acl-lint.h. */
#include <config.h>

#include "northd/acl-lint.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "hmapx.h"
#include "lib/expr.h"
#include "lib/nb-rdb.h"
#include "lib/rdb.h"
#include "lib/strpack.h"
#include "lib/symtab.h"
#include "northd/groups.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/shash.h"
#include "sset.h"
#include "util.h"

COVERAGE_DEFINE(acl_lint_finding);

/* What a lint run looks things up in, built once per run. */
struct lint_ctx {
    const struct rdb *nb;
    const struct groups *groups;
    double threshold;
    struct symtab symtab;
    struct shash pgs;           /* Port group name -> nb_port_group. */
    struct shash sets;          /* Address set name -> nb_address_set. */
    struct sset meters;         /* Meter names. */
    struct shash port_ls;       /* Port name -> its nb_logical_switch. */
    struct ds text;             /* Scratch for packed matches. */
};

/* An estimate of what an expression expands to in OpenFlow, in the way
 * ovn-controller expands a match: a disjunction into one flow per term,
 * a comparison with a set into one flow per member, "!=" and ranges into
 * about one flow per bit, and a conjunction of two or more sets over
 * different fields into a conjunctive match (one flow per member of each
 * set, plus one for the conjunction) rather than their cross product. */
struct estimate {
    double flows;
    double conjunctions;
    const struct symtab_symbol *dim;    /* Alternatives over this one field
                                         * only (a set), or NULL. */
};

static const struct symtab_symbol *
base_field(const struct symtab_symbol *s)
{
    return s->field ? s->field : s;
}

/* A value with a mask, of at most 64 bits. */
struct masked {
    uint64_t value, mask;
};

/* The masked values ovn-controller 23.03 expands "x >= c" (with 'ge') or
 * "x <= c" into, for an 'n_bits'-bit x: 'c' itself, and for each bit of
 * 'c' that is 0 (for >=) or 1 (for <=), the values that agree with 'c'
 * above that bit and differ from it there (observed against its flows,
 * tests/acl-lint.at).  Returns how many it put in 'out' (at most 65). */
static size_t
bound_values(uint64_t c, int n_bits, bool ge, struct masked *out)
{
    uint64_t all = n_bits >= 64 ? UINT64_MAX : (UINT64_C(1) << n_bits) - 1;
    size_t n = 0;
    out[n++] = (struct masked) { c & all, all };
    for (int i = 0; i < n_bits; i++) {
        bool bit = (c >> i) & 1;
        if (bit != ge) {
            uint64_t mask = all & ~((UINT64_C(1) << i) - 1);
            uint64_t above = i + 1 >= 64 ? 0 : (c >> (i + 1)) << (i + 1);
            out[n++] = (struct masked) {
                (above | (ge ? UINT64_C(1) << i : 0)) & mask, mask };
        }
    }
    return n;
}

static int
compare_masked(const void *a_, const void *b_)
{
    const struct masked *a = a_, *b = b_;
    return (a->value != b->value ? (a->value < b->value ? -1 : 1)
            : a->mask != b->mask ? (a->mask < b->mask ? -1 : 1)
            : 0);
}

/* Whether 'e' is an ordering comparison of an unmasked integer of at most
 * 64 bits with one value: a bound of a range. */
static bool
is_bound(const struct expr *e)
{
    return (e->type == EXPR_T_CMP && !e->cmp.symbol->is_string
            && e->cmp.relop >= EXPR_R_LT && e->cmp.n_values == 1
            && e->cmp.n_bits > 0 && e->cmp.n_bits <= 64
            && !e->cmp.values[0].masked);
}

static struct estimate estimate_expr(const struct expr *);

/* The bounds among the subexpressions of conjunction 'e' on the same bits
 * of the same field as 'first' (a bound, first of them) make one range:
 * ovn-controller expands each bound into masked values and keeps the
 * nonempty intersections of one of each, a set of values of the field (a
 * dimension of a conjunctive match).  Marks them in 'used'. */
static struct estimate
estimate_range(const struct expr *e, const struct expr *first,
               struct hmapx *used)
{
    const struct expr_cmp *f = &first->cmp;
    uint64_t all = (f->n_bits >= 64 ? UINT64_MAX
                    : (UINT64_C(1) << f->n_bits) - 1);
    struct masked *set = NULL;
    size_t n_set = 0;
    bool first_bound = true;
    const struct expr *sub;
    LIST_FOR_EACH (sub, node, &e->subs) {
        if (!is_bound(sub) || sub->cmp.symbol != f->symbol
            || sub->cmp.ofs != f->ofs || sub->cmp.n_bits != f->n_bits) {
            continue;
        }
        hmapx_add(used, CONST_CAST(struct expr *, sub));

        uint64_t c = sub->cmp.values[0].value.u64.lo & all;
        struct masked bound[65];
        size_t n_bound = 0;
        switch (sub->cmp.relop) {
        case EXPR_R_LT:
            n_bound = c ? bound_values(c - 1, f->n_bits, false, bound) : 0;
            break;
        case EXPR_R_LE:
            n_bound = bound_values(c, f->n_bits, false, bound);
            break;
        case EXPR_R_GT:
            n_bound = c < all ? bound_values(c + 1, f->n_bits, true, bound)
                              : 0;
            break;
        case EXPR_R_GE:
            n_bound = bound_values(c, f->n_bits, true, bound);
            break;
        case EXPR_R_EQ:
        case EXPR_R_NE:
            OVS_NOT_REACHED();
        }

        if (first_bound) {
            set = xmemdup(bound, sizeof bound);
            n_set = n_bound;
            first_bound = false;
            continue;
        }
        struct masked *next = xmalloc(MAX(n_set * n_bound, 1)
                                      * sizeof *next);
        size_t n_next = 0;
        for (size_t i = 0; i < n_set; i++) {
            for (size_t j = 0; j < n_bound; j++) {
                const struct masked *x = &set[i], *y = &bound[j];
                if (!((x->value ^ y->value) & x->mask & y->mask)) {
                    next[n_next++] = (struct masked) {
                        x->value | y->value, x->mask | y->mask };
                }
            }
        }
        qsort(next, n_next, sizeof *next, compare_masked);
        size_t n_unique = 0;
        for (size_t i = 0; i < n_next; i++) {
            if (!n_unique || compare_masked(&next[i],
                                            &next[n_unique - 1])) {
                next[n_unique++] = next[i];
            }
        }
        free(set);
        set = next;
        n_set = n_unique;
    }
    free(set);

    struct estimate est;
    memset(&est, 0, sizeof est);
    est.flows = n_set;
    est.dim = n_set > 1 ? base_field(f->symbol) : NULL;
    return est;
}

static struct estimate
estimate_expr(const struct expr *e)
{
    struct estimate est = { .flows = 1 };
    const struct expr *sub;

    switch (e->type) {
    case EXPR_T_BOOLEAN:
        est.flows = e->boolean ? 1 : 0;
        return est;

    case EXPR_T_CONDITION:
        return est;

    case EXPR_T_CMP: {
        const struct expr_cmp *c = &e->cmp;
        int bits = c->symbol->is_string ? 1 : MAX(c->n_bits, 1);
        switch (c->relop) {
        case EXPR_R_EQ:
            est.flows = c->n_values;
            est.dim = c->n_values > 1 ? base_field(c->symbol) : NULL;
            break;
        case EXPR_R_NE:
            /* Each value excluded bit by bit; several values, all of
             * them. */
            est.flows = pow(bits, (double) c->n_values);
            break;
        case EXPR_R_LT:
        case EXPR_R_LE:
        case EXPR_R_GT:
        case EXPR_R_GE:
            if (is_bound(e)) {
                struct expr *and = expr_create_andor(EXPR_T_AND);
                struct hmapx used = HMAPX_INITIALIZER(&used);
                expr_add_sub(and, expr_clone(e));
                est = estimate_range(and, CONTAINER_OF(ovs_list_front(
                                         &and->subs), struct expr, node),
                                     &used);
                hmapx_destroy(&used);
                expr_destroy(and);
            } else {
                est.flows = bits;
            }
            break;
        }
        return est;
    }

    case EXPR_T_NOT:
        /* Negations are rare after annotation; count the inner one. */
        LIST_FOR_EACH (sub, node, &e->subs) {
            est = estimate_expr(sub);
            est.dim = NULL;
        }
        return est;

    case EXPR_T_OR: {
        est.flows = 0;
        bool first = true;
        const struct symtab_symbol *dim = NULL;
        bool one_field = true;
        LIST_FOR_EACH (sub, node, &e->subs) {
            struct estimate s = estimate_expr(sub);
            est.flows += s.flows;
            est.conjunctions += s.conjunctions;
            const struct symtab_symbol *f = (
                s.dim ? s.dim
                : sub->type == EXPR_T_CMP && sub->cmp.relop == EXPR_R_EQ
                ? base_field(sub->cmp.symbol) : NULL);
            if (!f || (!first && f != dim)) {
                one_field = false;
            }
            dim = f;
            first = false;
        }
        est.dim = one_field && !est.conjunctions ? dim : NULL;
        return est;
    }

    case EXPR_T_AND: {
        double product = 1, dim_sum = 0, conj = 0;
        size_t n_dims = 0;
        struct estimate dims_single = { .flows = 1 };
        struct hmapx used = HMAPX_INITIALIZER(&used);
        LIST_FOR_EACH (sub, node, &e->subs) {
            if (hmapx_contains(&used, CONST_CAST(struct expr *, sub))) {
                continue;
            }
            struct estimate s = (is_bound(sub)
                                 ? estimate_range(e, sub, &used)
                                 : estimate_expr(sub));
            conj += s.conjunctions;
            /* ovn-controller 23.03 crosses the alternatives of eth.type
             * (IPv4 or IPv6, from "ip", "tcp", ...) with the rest rather
             * than making them a dimension of a conjunctive match
             * (observed, tests/acl-lint.at). */
            if (s.dim && s.flows > 1 && strcmp(s.dim->name, "eth.type")) {
                n_dims++;
                dim_sum += s.flows;
                dims_single = s;
            } else {
                product *= s.flows;
            }
        }
        hmapx_destroy(&used);
        if (n_dims >= 2) {
            est.flows = product * (dim_sum + 1);
            est.conjunctions = conj + product;
        } else {
            est.flows = product * (n_dims ? dims_single.flows : 1);
            est.conjunctions = conj;
            est.dim = (n_dims && product == 1) ? dims_single.dim : NULL;
        }
        return est;
    }
    }
    OVS_NOT_REACHED();
}

static void
finding(struct ds *out, size_t *n, const char *format, ...)
    OVS_PRINTF_FORMAT(3, 4);

static void
finding(struct ds *out, size_t *n, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    ds_put_cstr(out, "  warning: ");
    ds_put_format_valist(out, format, args);
    ds_put_char(out, '\n');
    va_end(args);
    (*n)++;
    COVERAGE_INC(acl_lint_finding);
}

/* Lints one ACL of 'owner' ("switch sw0", "port group pg1") that applies
 * to 'n_switches' switches, of which 'ls' has the most ports of the port
 * group the ACL belongs to (the switch itself for a switch's ACL; NULL if
 * none).  ovn-controller matches "@name" on a switch against the members
 * of the group on that switch (northd writes a port group per switch), so
 * the estimate is for 'ls', the busiest. */
static size_t
lint_acl(struct lint_ctx *ctx, const struct nb_acl *acl, const char *owner,
         size_t n_switches, const struct nb_logical_switch *ls,
         struct ds *out)
{
    size_t n = 0;
    const char *match = strpack_cstr(acl->match, &ctx->text);

    ds_put_format(out, "ACL "UUID_FMT"%s%s of %s (%s, priority %"PRId32", "
                  "%s)", UUID_ARGS(&acl->header_.uuid),
                  acl->name && acl->name[0] ? " " : "",
                  acl->name ? acl->name : "", owner,
                  rdb_enum_string(&nb_table_acl, NB_ACL_COL_DIRECTION,
                                  acl->direction),
                  acl->priority,
                  rdb_enum_string(&nb_table_acl, NB_ACL_COL_ACTION,
                                  acl->action));
    struct ds findings = DS_EMPTY_INITIALIZER;

    if (acl->meter && acl->meter[0]
        && !sset_contains(&ctx->meters, acl->meter)) {
        finding(&findings, &n, "meter \"%s\" does not exist", acl->meter);
    }

    /* The sets and groups the match names, and what they hold. */
    struct sset as_names = SSET_INITIALIZER(&as_names);
    struct sset pg_names = SSET_INITIALIZER(&pg_names);
    groups_scan_refs(match, &as_names, &pg_names);
    struct expr_refs refs;
    expr_refs_init(&refs);
    const char *name;
    SSET_FOR_EACH (name, &pg_names) {
        const struct nb_port_group *pg = shash_find_data(&ctx->pgs, name);
        if (!pg) {
            finding(&findings, &n, "port group \"%s\" does not exist", name);
            continue;
        }
        if (!pg->n_ports) {
            finding(&findings, &n, "port group \"%s\" is empty", name);
        }
        const char **ports = xmalloc(MAX(pg->n_ports, 1) * sizeof *ports);
        size_t n_ports = 0;
        for (size_t i = 0; i < pg->n_ports; i++) {
            const char *port = pg->ports[i]->name;
            if (ls && shash_find_data(&ctx->port_ls, port) == ls) {
                ports[n_ports++] = port;
            }
        }
        expr_refs_add_port_group(&refs, name, ports, n_ports);
        free(ports);
    }
    SSET_FOR_EACH (name, &as_names) {
        size_t n_addrs = 0;
        const char **addrs = NULL;
        if (ctx->groups) {
            addrs = groups_set_addresses(ctx->groups, name, &n_addrs);
        } else {
            const struct nb_address_set *as = shash_find_data(&ctx->sets,
                                                              name);
            if (as) {
                n_addrs = as->n_addresses;
                addrs = xmalloc(MAX(n_addrs, 1) * sizeof *addrs);
                for (size_t i = 0; i < n_addrs; i++) {
                    addrs[i] = as->addresses[i];
                }
            }
        }
        if (!addrs) {
            finding(&findings, &n, "address set \"%s\" does not exist",
                    name);
            continue;
        }
        if (!n_addrs) {
            finding(&findings, &n, "address set \"%s\" is empty", name);
        }
        char *error = expr_refs_add_addr_set(&refs, name, addrs, n_addrs);
        free(error);            /* Bad entries are left out, as
                                 * ovn-controller does. */
        free(addrs);
    }

    /* Its expansion. */
    struct expr *e;
    char *error = expr_parse_string(match, &ctx->symtab, &refs, &e);
    if (!error) {
        error = expr_annotate(e, &ctx->symtab, &e);
    }
    if (error) {
        ds_put_cstr(out, ": invalid (see acl/errors)\n");
        free(error);
    } else {
        e = expr_normalize(e);
        struct estimate est = estimate_expr(e);
        expr_destroy(e);
        double total = est.flows * n_switches;
        ds_put_format(out, ": about %.0f OpenFlow flow%s", est.flows,
                      est.flows == 1 ? "" : "s");
        if (est.conjunctions) {
            ds_put_format(out, " (%.0f conjunctive match%s)",
                          est.conjunctions,
                          est.conjunctions == 1 ? "" : "es");
        }
        if (!n_switches) {
            ds_put_cstr(out, " per logical flow (on no switch)\n");
        } else if (n_switches == 1) {
            ds_put_cstr(out, " per logical flow on its switch\n");
        } else {
            ds_put_format(out, " per logical flow on the busiest of its "
                          "%"PRIuSIZE" switches\n", n_switches);
        }
        if (total > ctx->threshold) {
            finding(&findings, &n, "about %.0f OpenFlow flows per logical "
                    "flow on a hypervisor with %s%"PRIuSIZE" switch%s, "
                    "above the threshold of %.0f", total,
                    n_switches == 1 ? "" : "all ", n_switches,
                    n_switches == 1 ? "" : "es", ctx->threshold);
        }
    }
    ds_put_cstr(out, ds_cstr(&findings));
    ds_destroy(&findings);
    expr_refs_destroy(&refs);
    sset_destroy(&as_names);
    sset_destroy(&pg_names);
    return n;
}

static int
compare_acls(const void *a_, const void *b_)
{
    const struct nb_acl *const *a = a_, *const *b = b_;
    if ((*a)->priority != (*b)->priority) {
        return (*a)->priority > (*b)->priority ? -1 : 1;
    }
    return uuid_compare_3way(&(*a)->header_.uuid, &(*b)->header_.uuid);
}

/* Lints the ACLs of one switch or port group, by priority. */
static size_t
lint_acls(struct lint_ctx *ctx, struct nb_acl **acls, size_t n_acls,
          const char *owner, size_t n_switches,
          const struct nb_logical_switch *ls, struct ds *out)
{
    struct nb_acl **sorted = xmalloc(MAX(n_acls, 1) * sizeof *sorted);
    for (size_t i = 0; i < n_acls; i++) {
        sorted[i] = acls[i];
    }
    qsort(sorted, n_acls, sizeof *sorted, compare_acls);
    size_t n = 0;
    for (size_t i = 0; i < n_acls; i++) {
        n += lint_acl(ctx, sorted[i], owner, n_switches, ls, out);
    }
    free(sorted);
    return n;
}

/* The number of switches the ports of 'pg' are on; '*busiest' is the one
 * with the most of them (NULL if none). */
static size_t
pg_switches(const struct lint_ctx *ctx, const struct nb_port_group *pg,
            const struct nb_logical_switch **busiest)
{
    struct shash switches = SHASH_INITIALIZER(&switches);
    size_t max = 0;
    *busiest = NULL;
    for (size_t i = 0; i < pg->n_ports; i++) {
        const struct nb_logical_switch *ls
            = shash_find_data(&ctx->port_ls, pg->ports[i]->name);
        if (!ls) {
            continue;
        }
        struct shash_node *node = shash_find(&switches, ls->name);
        if (!node) {
            node = shash_add(&switches, ls->name, (void *) 0);
        }
        uintptr_t count = (uintptr_t) node->data + 1;
        node->data = (void *) count;
        if (count > max || (count == max && strcmp(ls->name,
                                                   (*busiest)->name) < 0)) {
            max = count;
            *busiest = ls;
        }
    }
    size_t n = shash_count(&switches);
    shash_destroy(&switches);
    return n;
}

size_t
acl_lint(const struct rdb *nb, const struct groups *groups,
         const char *filter, double threshold, struct ds *out)
{
    struct lint_ctx ctx = {
        .nb = nb,
        .groups = groups,
        .threshold = threshold,
        .pgs = SHASH_INITIALIZER(&ctx.pgs),
        .sets = SHASH_INITIALIZER(&ctx.sets),
        .meters = SSET_INITIALIZER(&ctx.meters),
        .port_ls = SHASH_INITIALIZER(&ctx.port_ls),
        .text = DS_EMPTY_INITIALIZER,
    };
    symtab_init_ovn(&ctx.symtab);

    const struct nb_port_group *pg;
    NB_PORT_GROUP_FOR_EACH (pg, nb) {
        shash_add_once(&ctx.pgs, pg->name, pg);
    }
    const struct nb_address_set *as;
    NB_ADDRESS_SET_FOR_EACH (as, nb) {
        shash_add_once(&ctx.sets, as->name, as);
    }
    const struct nb_meter *meter;
    NB_METER_FOR_EACH (meter, nb) {
        sset_add(&ctx.meters, meter->name);
    }
    const struct nb_logical_switch *ls;
    NB_LOGICAL_SWITCH_FOR_EACH (ls, nb) {
        for (size_t i = 0; i < ls->n_ports; i++) {
            shash_add_once(&ctx.port_ls, ls->ports[i]->name, ls);
        }
    }

    /* Switches, then port groups, each by name. */
    size_t n = 0;
    bool found = !filter;
    struct ds owner = DS_EMPTY_INITIALIZER;

    struct shash switches = SHASH_INITIALIZER(&switches);
    NB_LOGICAL_SWITCH_FOR_EACH (ls, nb) {
        shash_add(&switches, ls->name, ls);
    }
    const struct shash_node **nodes = shash_sort(&switches);
    for (size_t i = 0; i < shash_count(&switches); i++) {
        ls = nodes[i]->data;
        if (filter && strcmp(filter, ls->name)) {
            continue;
        }
        found = true;
        ds_clear(&owner);
        ds_put_format(&owner, "switch %s", ls->name);
        n += lint_acls(&ctx, ls->acls, ls->n_acls, ds_cstr(&owner), 1, ls,
                       out);
    }
    free(nodes);
    shash_destroy(&switches);

    nodes = shash_sort(&ctx.pgs);
    for (size_t i = 0; i < shash_count(&ctx.pgs); i++) {
        pg = nodes[i]->data;
        if (filter && strcmp(filter, pg->name)) {
            continue;
        }
        found = true;
        ds_clear(&owner);
        ds_put_format(&owner, "port group %s", pg->name);
        const struct nb_logical_switch *busiest;
        size_t n_switches = pg_switches(&ctx, pg, &busiest);
        n += lint_acls(&ctx, pg->acls, pg->n_acls, ds_cstr(&owner),
                       n_switches, busiest, out);
    }
    free(nodes);
    ds_destroy(&owner);

    if (found) {
        ds_put_format(out, "%"PRIuSIZE" finding%s\n", n, n == 1 ? "" : "s");
    }

    symtab_destroy(&ctx.symtab);
    shash_destroy(&ctx.pgs);
    shash_destroy(&ctx.sets);
    sset_destroy(&ctx.meters);
    shash_destroy(&ctx.port_ls);
    ds_destroy(&ctx.text);
    return found ? n : SIZE_MAX;
}
