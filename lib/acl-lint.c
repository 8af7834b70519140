/* ACL lint: see acl-lint.h. */
#include <config.h>

#include "lib/acl-lint.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "hash.h"
#include "hmapx.h"
#include "lib/expr.h"
#include "lib/lex.h"
#include "lib/symtab.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "openvswitch/json.h"
#include "openvswitch/shash.h"
#include "sset.h"
#include "util.h"
#include "uuid.h"

COVERAGE_DEFINE(acl_lint_finding);
COVERAGE_DEFINE(acl_lint_cover_check);
COVERAGE_DEFINE(acl_lint_overlap_check);

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

/* ------------------------------------------------------------------------
 * Matches as sets of packets.
 *
 * After annotation and normalization a match is "&&", "||", constants and
 * comparisons of bits [ofs, ofs + n_bits) of a base field (a dimension)
 * with constants.  Each comparison is a set of values of its dimension:
 * for an integer dimension, sorted disjoint intervals (a CIDR prefix, a
 * range, "!=" are intervals; a mask that is not a prefix is not, and such
 * a comparison is "opaque"); for a string field (inport, outport), sorted
 * ids of names or every name but those.
 *
 * To show that every packet match B matches also matches A, B is
 * written as a disjunction of boxes (one set per dimension, any value in
 * the others), each an over-approximation of its term (a dimension's
 * comparisons are intersected exactly; what different dimensions of one
 * field say together, and opaque comparisons, are left out), and each box
 * is shown to be inside A: inside an "&&" if inside each operand, inside
 * an "||" if inside one operand (the comparisons of one dimension among
 * the operands united first) or if each of its parts is, split along one
 * dimension; inside a comparison if its dimension's set (or what another
 * dimension of the field says of those bits) is a subset of the
 * comparison's.  Every step can only fail to prove, never prove something
 * false.
 * --------------------------------------------------------------------- */

struct dim {
    const struct symtab_symbol *symbol;
    int ofs, n_bits;            /* 0, 0 for a string field. */
};

static int
dim_cmp(const struct dim *a, const struct dim *b)
{
    int c = strcmp(a->symbol->name, b->symbol->name);
    return (c ? c
            : a->ofs != b->ofs ? (a->ofs < b->ofs ? -1 : 1)
            : a->n_bits != b->n_bits ? (a->n_bits < b->n_bits ? -1 : 1)
            : 0);
}

struct vset {
    bool is_string;
    bool neg;                   /* Strings: every string but those in 'v'. */
    int n_bits;                 /* Integers: the dimension's width. */
    size_t n;                   /* Intervals, or string ids. */
    ovs_u128 *v;                /* Integers: 2 * 'n' inclusive bounds;
                                 * strings: 'n' sorted ids in .u64.lo. */
};

static void
vset_destroy(struct vset *s)
{
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

static struct vset
vset_clone(const struct vset *s)
{
    struct vset c = *s;
    size_t n = s->is_string ? s->n : 2 * s->n;
    c.v = n ? xmemdup(s->v, n * sizeof *s->v) : NULL;
    return c;
}

static ovs_u128
u128_inc(ovs_u128 x)
{
    if (!++x.u64.lo) {
        x.u64.hi++;
    }
    return x;
}

static ovs_u128
u128_dec(ovs_u128 x)
{
    if (!x.u64.lo--) {
        x.u64.hi--;
    }
    return x;
}

/* memcpy() that accepts a null 'src' when 'size' is 0. */
static void
copy_vals(ovs_u128 *dst, const ovs_u128 *src, size_t size)
{
    if (size) {
        memcpy(dst, src, size);
    }
}

static int
compare_u128(const void *a, const void *b)
{
    return lex_u128_cmp(*(const ovs_u128 *) a, *(const ovs_u128 *) b);
}

/* Sorts the 'n' intervals in 'v' and merges those that overlap or touch;
 * returns how many are left. */
static size_t
ivals_normalize(ovs_u128 *v, size_t n)
{
    if (n > 1) {
        qsort(v, n, 2 * sizeof *v, compare_u128);
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        ovs_u128 lo = v[2 * i], hi = v[2 * i + 1];
        if (m && (lex_u128_cmp(lo, v[2 * m - 1]) <= 0
                  || lex_u128_eq(lo, u128_inc(v[2 * m - 1])))) {
            if (lex_u128_cmp(hi, v[2 * m - 1]) > 0) {
                v[2 * m - 1] = hi;
            }
        } else {
            v[2 * m] = lo;
            v[2 * m + 1] = hi;
            m++;
        }
    }
    return m;
}

static size_t
ids_normalize(ovs_u128 *v, size_t n)
{
    if (n > 1) {
        qsort(v, n, sizeof *v, compare_u128);
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!m || !lex_u128_eq(v[i], v[m - 1])) {
            v[m++] = v[i];
        }
    }
    return m;
}

static bool
ids_contain(const struct vset *s, uint64_t id)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        uint64_t x = s->v[mid].u64.lo;
        if (x == id) {
            return true;
        } else if (x < id) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return false;
}

/* Whether the string set holds 'id'. */
static bool
strset_has(const struct vset *s, uint64_t id)
{
    return ids_contain(s, id) != s->neg;
}

static bool
vset_is_empty(const struct vset *s)
{
    return !s->n && !(s->is_string && s->neg);
}

static bool
vset_is_full(const struct vset *s)
{
    if (s->is_string) {
        return s->neg && !s->n;
    }
    return (s->n == 1 && lex_u128_is_zero(s->v[0])
            && lex_u128_eq(s->v[1], lex_u128_ones(s->n_bits)));
}

/* Integers: the values of 's' not in it. */
static struct vset
ivals_complement(const struct vset *s)
{
    struct vset c = { .n_bits = s->n_bits };
    c.v = xmalloc((2 * s->n + 2) * sizeof *c.v);
    ovs_u128 max = lex_u128_ones(s->n_bits);
    ovs_u128 next = lex_u128_from_u64(0);
    bool more = true;
    for (size_t i = 0; i < s->n; i++) {
        if (lex_u128_cmp(s->v[2 * i], next) > 0) {
            c.v[2 * c.n] = next;
            c.v[2 * c.n + 1] = u128_dec(s->v[2 * i]);
            c.n++;
        }
        if (lex_u128_eq(s->v[2 * i + 1], max)) {
            more = false;
            break;
        }
        next = u128_inc(s->v[2 * i + 1]);
    }
    if (more) {
        c.v[2 * c.n] = next;
        c.v[2 * c.n + 1] = max;
        c.n++;
    }
    return c;
}

static struct vset
vset_intersect(const struct vset *a, const struct vset *b)
{
    struct vset r = { .is_string = a->is_string, .n_bits = a->n_bits };
    if (a->is_string) {
        r.v = xmalloc(MAX(a->n + b->n, 1) * sizeof *r.v);
        if (a->neg && b->neg) {
            /* Every string but those of either. */
            r.neg = true;
            copy_vals(r.v, a->v, a->n * sizeof *r.v);
            copy_vals(r.v + a->n, b->v, b->n * sizeof *r.v);
            r.n = ids_normalize(r.v, a->n + b->n);
        } else if (a->neg || b->neg) {
            const struct vset *pos = a->neg ? b : a, *neg = a->neg ? a : b;
            for (size_t i = 0; i < pos->n; i++) {
                if (!ids_contain(neg, pos->v[i].u64.lo)) {
                    r.v[r.n++] = pos->v[i];
                }
            }
        } else {
            for (size_t i = 0; i < a->n; i++) {
                if (ids_contain(b, a->v[i].u64.lo)) {
                    r.v[r.n++] = a->v[i];
                }
            }
        }
        return r;
    }

    r.v = xmalloc(MAX(2 * (a->n + b->n), 1) * sizeof *r.v);
    size_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        ovs_u128 lo = (lex_u128_cmp(a->v[2 * i], b->v[2 * j]) > 0
                       ? a->v[2 * i] : b->v[2 * j]);
        ovs_u128 hi = (lex_u128_cmp(a->v[2 * i + 1], b->v[2 * j + 1]) < 0
                       ? a->v[2 * i + 1] : b->v[2 * j + 1]);
        if (lex_u128_cmp(lo, hi) <= 0) {
            r.v[2 * r.n] = lo;
            r.v[2 * r.n + 1] = hi;
            r.n++;
        }
        if (lex_u128_cmp(a->v[2 * i + 1], b->v[2 * j + 1]) < 0) {
            i++;
        } else {
            j++;
        }
    }
    return r;
}

static struct vset
vset_union(const struct vset *a, const struct vset *b)
{
    struct vset r = { .is_string = a->is_string, .n_bits = a->n_bits };
    if (a->is_string) {
        r.v = xmalloc(MAX(a->n + b->n, 1) * sizeof *r.v);
        if (!a->neg && !b->neg) {
            copy_vals(r.v, a->v, a->n * sizeof *r.v);
            copy_vals(r.v + a->n, b->v, b->n * sizeof *r.v);
            r.n = ids_normalize(r.v, a->n + b->n);
        } else if (a->neg && b->neg) {
            /* All but those excluded by both. */
            r.neg = true;
            for (size_t i = 0; i < a->n; i++) {
                if (ids_contain(b, a->v[i].u64.lo)) {
                    r.v[r.n++] = a->v[i];
                }
            }
        } else {
            const struct vset *pos = a->neg ? b : a, *neg = a->neg ? a : b;
            r.neg = true;
            for (size_t i = 0; i < neg->n; i++) {
                if (!ids_contain(pos, neg->v[i].u64.lo)) {
                    r.v[r.n++] = neg->v[i];
                }
            }
        }
        return r;
    }
    r.v = xmalloc(MAX(2 * (a->n + b->n), 1) * sizeof *r.v);
    copy_vals(r.v, a->v, 2 * a->n * sizeof *r.v);
    copy_vals(r.v + 2 * a->n, b->v, 2 * b->n * sizeof *r.v);
    r.n = ivals_normalize(r.v, a->n + b->n);
    return r;
}

/* Whether every value of 'a' is in 'b'. */
static bool
vset_subset(const struct vset *a, const struct vset *b)
{
    if (a->is_string) {
        if (!a->neg) {
            for (size_t i = 0; i < a->n; i++) {
                if (!strset_has(b, a->v[i].u64.lo)) {
                    return false;
                }
            }
            return true;
        } else if (!b->neg) {
            return false;
        }
        /* All but A's inside all but B's: B excludes only what A does. */
        for (size_t i = 0; i < b->n; i++) {
            if (!ids_contain(a, b->v[i].u64.lo)) {
                return false;
            }
        }
        return true;
    }
    /* B's intervals are disjoint and do not touch, so each of A's must lie
     * within one of them. */
    size_t j = 0;
    for (size_t i = 0; i < a->n; i++) {
        while (j < b->n && lex_u128_cmp(b->v[2 * j + 1], a->v[2 * i]) < 0) {
            j++;
        }
        if (j >= b->n
            || lex_u128_cmp(b->v[2 * j], a->v[2 * i]) > 0
            || lex_u128_cmp(b->v[2 * j + 1], a->v[2 * i + 1]) < 0) {
            return false;
        }
    }
    return true;
}

static bool
vset_disjoint(const struct vset *a, const struct vset *b)
{
    struct vset r = vset_intersect(a, b);
    bool empty = vset_is_empty(&r);
    vset_destroy(&r);
    return empty;
}

/* Interned strings: port names (and ""), by id. */
struct interner {
    struct shash ids;           /* Name -> id + 1 (as a pointer). */
    size_t n;
};

static uint64_t
intern(struct interner *in, const char *s)
{
    struct shash_node *node = shash_find(&in->ids, s);
    if (!node) {
        node = shash_add(&in->ids, s, (void *) (uintptr_t) ++in->n);
    }
    return (uintptr_t) node->data - 1;
}

/* The set of values a comparison allows, in '*dim' and '*set'.  Returns
 * false if it is not one the lint represents (a mask that is not a
 * prefix, an odd width). */
static bool
cmp_to_set(struct interner *in, const struct expr_cmp *cmp, struct dim *dim,
           struct vset *set)
{
    const struct symtab_symbol *sym = cmp->symbol;
    memset(set, 0, sizeof *set);
    if (sym->is_string) {
        if (cmp->relop != EXPR_R_EQ && cmp->relop != EXPR_R_NE) {
            return false;
        }
        *dim = (struct dim) { sym, 0, 0 };
        set->is_string = true;
        set->neg = cmp->relop == EXPR_R_NE;
        set->v = xmalloc(MAX(cmp->n_values, 1) * sizeof *set->v);
        for (size_t i = 0; i < cmp->n_values; i++) {
            set->v[i] = lex_u128_from_u64(intern(in,
                                                 cmp->values[i].string));
        }
        set->n = ids_normalize(set->v, cmp->n_values);
        return true;
    }

    int n_bits = cmp->n_bits;
    if (n_bits <= 0 || n_bits > 128) {
        return false;
    }
    *dim = (struct dim) { sym, cmp->ofs, n_bits };
    set->n_bits = n_bits;
    ovs_u128 max = lex_u128_ones(n_bits);

    if (cmp->relop == EXPR_R_EQ || cmp->relop == EXPR_R_NE) {
        set->v = xmalloc(MAX(2 * cmp->n_values, 1) * sizeof *set->v);
        for (size_t i = 0; i < cmp->n_values; i++) {
            const struct expr_const *c = &cmp->values[i];
            ovs_u128 mask = c->masked ? lex_u128_and(c->mask, max) : max;
            ovs_u128 low = lex_u128_and(lex_u128_not(mask), max);
            if (!lex_u128_is_zero(lex_u128_and(low, u128_inc(low)))) {
                vset_destroy(set);
                return false;
            }
            ovs_u128 lo = lex_u128_and(c->value, mask);
            set->v[2 * i] = lo;
            set->v[2 * i + 1] = lex_u128_or(lo, low);
        }
        set->n = ivals_normalize(set->v, cmp->n_values);
        if (cmp->relop == EXPR_R_NE) {
            struct vset c = ivals_complement(set);
            vset_destroy(set);
            *set = c;
        }
        return true;
    }

    if (cmp->n_values != 1) {
        return false;
    }
    ovs_u128 v = lex_u128_and(cmp->values[0].value, max);
    ovs_u128 lo = lex_u128_from_u64(0), hi = max;
    bool empty = false;
    switch (cmp->relop) {
    case EXPR_R_LT:
        empty = lex_u128_is_zero(v);
        hi = u128_dec(v);
        break;
    case EXPR_R_LE:
        hi = v;
        break;
    case EXPR_R_GT:
        empty = lex_u128_eq(v, max);
        lo = u128_inc(v);
        break;
    case EXPR_R_GE:
        lo = v;
        break;
    case EXPR_R_EQ:
    case EXPR_R_NE:
        OVS_NOT_REACHED();
    }
    set->v = xmalloc(2 * sizeof *set->v);
    if (!empty) {
        set->v[0] = lo;
        set->v[1] = hi;
        set->n = 1;
    }
    return true;
}

/* A match as the lint reasons about it. */
enum lnode_type {
    LN_FALSE,
    LN_TRUE,
    LN_ATOM,                    /* 'dim' has a value in 'set'. */
    LN_OPAQUE,                  /* A comparison the lint does not model. */
    LN_AND,
    LN_OR,
};

struct lnode {
    enum lnode_type type;
    struct dim dim;
    struct vset set;
    struct lnode **subs;
    size_t n_subs;
};

static void
lnode_destroy(struct lnode *n)
{
    if (n) {
        for (size_t i = 0; i < n->n_subs; i++) {
            lnode_destroy(n->subs[i]);
        }
        free(n->subs);
        vset_destroy(&n->set);
        free(n);
    }
}

static struct lnode *
lnode_create(enum lnode_type type)
{
    struct lnode *n = xzalloc(sizeof *n);
    n->type = type;
    return n;
}

/* An atom whose set is empty or full is a constant. */
static struct lnode *
lnode_fold_atom(struct lnode *n)
{
    if (vset_is_empty(&n->set) || vset_is_full(&n->set)) {
        enum lnode_type t = vset_is_empty(&n->set) ? LN_FALSE : LN_TRUE;
        lnode_destroy(n);
        return lnode_create(t);
    }
    return n;
}

static struct lnode *
lnode_from_expr(struct interner *in, const struct expr *e)
{
    struct lnode *n;
    switch (e->type) {
    case EXPR_T_BOOLEAN:
        return lnode_create(e->boolean ? LN_TRUE : LN_FALSE);

    case EXPR_T_CONDITION:
        /* is_chassis_resident(): true on some chassis only. */
        return lnode_create(LN_OPAQUE);

    case EXPR_T_CMP:
        n = lnode_create(LN_ATOM);
        if (!cmp_to_set(in, &e->cmp, &n->dim, &n->set)) {
            n->type = LN_OPAQUE;
            return n;
        }
        return lnode_fold_atom(n);

    case EXPR_T_NOT:
        /* Annotation pushes "!" into the comparisons; just in case. */
        return lnode_create(LN_OPAQUE);

    case EXPR_T_AND:
    case EXPR_T_OR: {
        bool and = e->type == EXPR_T_AND;
        n = lnode_create(and ? LN_AND : LN_OR);
        size_t n_subs = ovs_list_size(&e->subs);
        n->subs = xmalloc(MAX(n_subs, 1) * sizeof *n->subs);
        const struct expr *sub;
        LIST_FOR_EACH (sub, node, &e->subs) {
            struct lnode *s = lnode_from_expr(in, sub);
            if (s->type == (and ? LN_TRUE : LN_FALSE)) {
                lnode_destroy(s);
                continue;
            } else if (s->type == (and ? LN_FALSE : LN_TRUE)) {
                lnode_destroy(n);
                return s;
            }
            /* Comparisons of one dimension: one set ("&&" intersects,
             * "||" unites, exactly). */
            if (s->type == LN_ATOM && n->n_subs <= 64) {
                bool merged = false;
                for (size_t i = 0; i < n->n_subs; i++) {
                    struct lnode *t = n->subs[i];
                    if (t->type == LN_ATOM && !dim_cmp(&t->dim, &s->dim)) {
                        struct vset u = (and ? vset_intersect(&t->set,
                                                              &s->set)
                                         : vset_union(&t->set, &s->set));
                        vset_destroy(&t->set);
                        t->set = u;
                        merged = true;
                        break;
                    }
                }
                if (merged) {
                    lnode_destroy(s);
                    continue;
                }
            }
            n->subs[n->n_subs++] = s;
        }
        /* Merged sets may have become constant. */
        size_t k = 0;
        for (size_t i = 0; i < n->n_subs; i++) {
            struct lnode *s = n->subs[i];
            if (s->type == LN_ATOM) {
                s = n->subs[i] = lnode_fold_atom(s);
            }
            if (s->type == (and ? LN_TRUE : LN_FALSE)) {
                lnode_destroy(s);
                continue;
            } else if (s->type == (and ? LN_FALSE : LN_TRUE)) {
                for (size_t j = i; j < n->n_subs; j++) {
                    lnode_destroy(n->subs[j]);
                }
                n->n_subs = k;
                lnode_destroy(n);
                return lnode_create(and ? LN_FALSE : LN_TRUE);
            }
            n->subs[k++] = s;
        }
        n->n_subs = k;
        if (!k) {
            lnode_destroy(n);
            return lnode_create(and ? LN_TRUE : LN_FALSE);
        } else if (k == 1) {
            struct lnode *only = n->subs[0];
            n->n_subs = 0;
            lnode_destroy(n);
            return only;
        }
        return n;
    }
    }
    OVS_NOT_REACHED();
}

/* A box: a set for some dimensions (sorted), any value for the others. */
struct box_entry {
    struct dim dim;
    struct vset set;
};

struct box {
    struct box_entry *e;
    size_t n;
};

static void
box_destroy(struct box *b)
{
    for (size_t i = 0; i < b->n; i++) {
        vset_destroy(&b->e[i].set);
    }
    free(b->e);
    b->e = NULL;
    b->n = 0;
}

static const struct vset *
box_get(const struct box *b, const struct symtab_symbol *symbol, int ofs,
        int n_bits)
{
    for (size_t i = 0; i < b->n; i++) {
        const struct dim *d = &b->e[i].dim;
        if (d->symbol == symbol && d->ofs == ofs && d->n_bits == n_bits) {
            return &b->e[i].set;
        }
    }
    return NULL;
}

/* The intersection of 'a' and 'b' in '*out'; false (and nothing in '*out')
 * if some dimension is then empty. */
static bool
box_and(const struct box *a, const struct box *b, struct box *out)
{
    out->e = xmalloc(MAX(a->n + b->n, 1) * sizeof *out->e);
    out->n = 0;
    size_t i = 0, j = 0;
    while (i < a->n || j < b->n) {
        int c = (i >= a->n ? 1 : j >= b->n ? -1
                 : dim_cmp(&a->e[i].dim, &b->e[j].dim));
        struct box_entry *e = &out->e[out->n++];
        if (c < 0) {
            e->dim = a->e[i].dim;
            e->set = vset_clone(&a->e[i++].set);
        } else if (c > 0) {
            e->dim = b->e[j].dim;
            e->set = vset_clone(&b->e[j++].set);
        } else {
            e->dim = a->e[i].dim;
            e->set = vset_intersect(&a->e[i++].set, &b->e[j++].set);
            if (vset_is_empty(&e->set)) {
                box_destroy(out);
                return false;
            }
        }
    }
    return true;
}

/* Restricts dimension 'dim' of 'b' to 'set'; false if that empties it. */
static bool
box_restrict(struct box *b, const struct dim *dim, const struct vset *set)
{
    struct box one = { .e = xmalloc(sizeof *one.e), .n = 1 };
    one.e[0].dim = *dim;
    one.e[0].set = vset_clone(set);
    struct box out;
    bool ok = box_and(b, &one, &out);
    box_destroy(&one);
    box_destroy(b);
    if (ok) {
        *b = out;
    }
    return ok;
}

/* A match as a disjunction of boxes. */
#define MAX_BOXES 64

struct boxes {
    struct box *b;
    size_t n;
    bool overflow;              /* Too many: 'b' means nothing. */
    bool inexact;               /* Some comparison was left out. */
};

static void
boxes_destroy(struct boxes *bs)
{
    for (size_t i = 0; i < bs->n; i++) {
        box_destroy(&bs->b[i]);
    }
    free(bs->b);
    memset(bs, 0, sizeof *bs);
}

static void
boxes_add(struct boxes *bs, struct box b)
{
    if (bs->n >= MAX_BOXES) {
        bs->overflow = true;
        box_destroy(&b);
        return;
    }
    bs->b = xrealloc(bs->b, (bs->n + 1) * sizeof *bs->b);
    bs->b[bs->n++] = b;
}

static void
boxes_of(const struct lnode *n, struct boxes *out)
{
    memset(out, 0, sizeof *out);
    switch (n->type) {
    case LN_FALSE:
        return;
    case LN_OPAQUE:
        out->inexact = true;
        /* Fall through. */
    case LN_TRUE:
        boxes_add(out, (struct box) { NULL, 0 });
        return;
    case LN_ATOM: {
        struct box b = { .e = xmalloc(sizeof *b.e), .n = 1 };
        b.e[0].dim = n->dim;
        b.e[0].set = vset_clone(&n->set);
        boxes_add(out, b);
        return;
    }
    case LN_OR:
        for (size_t i = 0; i < n->n_subs && !out->overflow; i++) {
            struct boxes sub;
            boxes_of(n->subs[i], &sub);
            out->overflow |= sub.overflow;
            out->inexact |= sub.inexact;
            for (size_t j = 0; j < sub.n; j++) {
                boxes_add(out, sub.b[j]);
            }
            free(sub.b);
        }
        return;
    case LN_AND:
        boxes_add(out, (struct box) { NULL, 0 });
        for (size_t i = 0; i < n->n_subs && !out->overflow && out->n; i++) {
            struct boxes sub, next;
            boxes_of(n->subs[i], &sub);
            memset(&next, 0, sizeof next);
            next.overflow = sub.overflow;
            next.inexact = out->inexact || sub.inexact;
            for (size_t j = 0; j < out->n && !next.overflow; j++) {
                for (size_t k = 0; k < sub.n && !next.overflow; k++) {
                    struct box b;
                    if (box_and(&out->b[j], &sub.b[k], &b)) {
                        boxes_add(&next, b);
                    }
                }
            }
            boxes_destroy(&sub);
            boxes_destroy(out);
            *out = next;
        }
        return;
    }
    OVS_NOT_REACHED();
}

/* The values that bits [ofs, ofs + n_bits) of dimension 'from' (of the
 * same field, 'set' its values) can take, if they are within 'from''s bits
 * ('*ok' false if not): for each interval, its values shifted down and
 * masked when its bits above the range are all the same (then they are an
 * interval too), every value otherwise.  An over-approximation. */
static struct vset
vset_project(const struct vset *set, const struct dim *from, int ofs,
             int n_bits, bool *ok)
{
    struct vset r = { .n_bits = n_bits };
    *ok = (!set->is_string && from->ofs <= ofs
           && ofs + n_bits <= from->ofs + from->n_bits);
    if (!*ok) {
        return r;
    }
    int shift = ofs - from->ofs, top = shift + n_bits;
    ovs_u128 mask = lex_u128_ones(n_bits);
    r.v = xmalloc(MAX(2 * set->n, 1) * sizeof *r.v);
    for (size_t i = 0; i < set->n; i++) {
        ovs_u128 lo = set->v[2 * i], hi = set->v[2 * i + 1];
        if (top < 128 && !lex_u128_eq(lex_u128_shr(lo, top),
                                      lex_u128_shr(hi, top))) {
            r.v[0] = lex_u128_from_u64(0);
            r.v[1] = mask;
            r.n = 1;
            return r;
        }
        r.v[2 * r.n] = lex_u128_and(lex_u128_shr(lo, shift), mask);
        r.v[2 * r.n + 1] = lex_u128_and(lex_u128_shr(hi, shift), mask);
        r.n++;
    }
    r.n = ivals_normalize(r.v, r.n);
    return r;
}

/* The values dimension (symbol, ofs, n_bits) can take when the bits of
 * 'from' (the top bits of it) are in 'set' and the others are anything;
 * '*ok' false if 'from' is not the top of it. */
static struct vset
vset_lift(const struct vset *set, const struct dim *from, int ofs,
          int n_bits, bool *ok)
{
    struct vset r = { .n_bits = n_bits };
    *ok = (!set->is_string && ofs <= from->ofs
           && from->ofs + from->n_bits == ofs + n_bits);
    if (!*ok) {
        return r;
    }
    int shift = from->ofs - ofs;
    ovs_u128 low = lex_u128_ones(shift);
    r.v = xmalloc(MAX(2 * set->n, 1) * sizeof *r.v);
    for (size_t i = 0; i < set->n; i++) {
        r.v[2 * i] = lex_u128_shl(set->v[2 * i], shift);
        r.v[2 * i + 1] = lex_u128_or(lex_u128_shl(set->v[2 * i + 1], shift),
                                     low);
    }
    r.n = set->n;
    return r;
}

/* Whether the packets of box 'b' all have dimension 'd' of atom 'n' in its
 * set, from what 'b' says of that dimension or of others of its field. */
static bool
atom_covers(const struct lnode *n, const struct box *b)
{
    const struct dim *d = &n->dim;
    const struct vset *s = box_get(b, d->symbol, d->ofs, d->n_bits);
    if (s) {
        return vset_subset(s, &n->set);
    }
    if (vset_is_full(&n->set)) {
        return true;
    }
    for (size_t i = 0; i < b->n; i++) {
        const struct box_entry *e = &b->e[i];
        if (e->dim.symbol != d->symbol || d->symbol->is_string) {
            continue;
        }
        bool ok;
        struct vset p = vset_project(&e->set, &e->dim, d->ofs, d->n_bits,
                                     &ok);
        if (!ok) {
            p = vset_lift(&e->set, &e->dim, d->ofs, d->n_bits, &ok);
        }
        bool sub = ok && vset_subset(&p, &n->set);
        vset_destroy(&p);
        if (sub) {
            return true;
        }
    }
    return false;
}

static bool covers__(const struct lnode *, const struct box *, int *budget);

/* Splits box 'b' along a dimension with several intervals or names (at
 * most 16), and shows that each part is inside 'n': "tcp.dst == {80, 443}"
 * is inside "tcp.dst == 80 || tcp.dst == 443", though inside neither. */
static bool
covers_split(const struct lnode *n, const struct box *b, int *budget)
{
    for (size_t i = 0; i < b->n; i++) {
        const struct vset *s = &b->e[i].set;
        if (s->n < 2 || s->n > 16 || (s->is_string && s->neg)) {
            continue;
        }
        struct box part = { .e = xmemdup(b->e, b->n * sizeof *b->e),
                            .n = b->n };
        bool all = true;
        for (size_t j = 0; all && j < s->n; j++) {
            struct vset one = *s;
            one.n = 1;
            one.v = s->is_string ? &s->v[j] : &s->v[2 * j];
            part.e[i].set = one;
            all = covers__(n, &part, budget);
        }
        free(part.e);
        return all;
    }
    return false;
}

static bool
covers__(const struct lnode *n, const struct box *b, int *budget)
{
    COVERAGE_INC(acl_lint_cover_check);
    if (--*budget < 0) {
        return false;
    }
    switch (n->type) {
    case LN_TRUE:
        return true;
    case LN_FALSE:
    case LN_OPAQUE:
        return false;
    case LN_ATOM:
        return atom_covers(n, b);
    case LN_AND:
        for (size_t i = 0; i < n->n_subs; i++) {
            if (!covers__(n->subs[i], b, budget)) {
                return false;
            }
        }
        return true;
    case LN_OR:
        for (size_t i = 0; i < n->n_subs; i++) {
            if (covers__(n->subs[i], b, budget)) {
                return true;
            }
        }
        return covers_split(n, b, budget);
    }
    OVS_NOT_REACHED();
}

/* Whether every packet in box 'b' matches 'n' (false: not shown). */
static bool
covers(const struct lnode *n, const struct box *b)
{
    int budget = 10000;
    return covers__(n, b, &budget);
}

/* Whether boxes 'a' and 'b' are shown to share no packet: some dimension
 * they both constrain has disjoint sets. */
static bool
boxes_disjoint(const struct box *a, const struct box *b)
{
    for (size_t i = 0; i < a->n; i++) {
        const struct dim *d = &a->e[i].dim;
        const struct vset *s = box_get(b, d->symbol, d->ofs, d->n_bits);
        if (s && vset_disjoint(&a->e[i].set, s)) {
            return true;
        }
    }
    return false;
}

/* ------------------------------------------------------------------------
 * The lint's view of the NB.
 * --------------------------------------------------------------------- */

/* The ACL stages: from-lport, from-lport after load balancing, to-lport. */
enum { STAGE_IN, STAGE_AFTER_LB, STAGE_OUT, N_STAGES };

enum verdict {
    V_ALLOW,                    /* allow, allow-related, allow-stateless. */
    V_DROP,
    V_REJECT,
    V_PASS,
    V_OTHER,
};

/* A switch or port group, with the switches its ACLs apply to. */
struct lowner {
    const struct acl_lint_owner *o;
    bool is_pg;
    size_t *sw;                 /* Switch indexes, sorted. */
    size_t n_sw;
    size_t busiest;             /* Switch with most members, or SIZE_MAX. */
    char *sw_key;               /* 'sw' as text. */
    struct vset ports;          /* Ids of the ports of those switches. */
    struct vset ports_empty;    /* The same and "". */
    struct lacl *lacls;         /* Its ACLs, in the order of 'o'. */
};

struct lacl {
    const struct acl_lint_acl *acl;
    struct lowner *owner;
    int stage, tier;
    enum verdict verdict;
    struct lnode *tree;         /* NULL if the match is not valid. */
    struct boxes boxes;         /* Its packets on its switches (over). */
    struct ds notes;            /* Findings about it, as text. */
    size_t n_notes;
    unsigned int stamp;
};

struct lvec {
    struct lacl **v;
    size_t n, cap;
};

static void
lvec_add(struct lvec *v, struct lacl *a)
{
    if (v->n >= v->cap) {
        v->v = x2nrealloc(v->v, &v->cap, sizeof *v->v);
    }
    v->v[v->n++] = a;
}

/* At most this many pairs of boxes of ACLs of one priority are compared
 * for conflicts in one run. */
#define MAX_CONFLICT_PAIRS 4000000

struct lint_ctx {
    const struct acl_lint_db *db;
    double threshold;
    struct symtab symtab;
    const struct symtab_symbol *inport, *outport;
    struct shash pgs;           /* Name -> struct acl_lint_owner. */
    struct sset meters;
    struct shash port_ls;       /* Port name -> switch index + 1. */
    struct interner names;
    uint64_t empty_id;          /* Id of "". */
    struct expr_refs refs;      /* Every set and group (all members). */
    struct sset missing;        /* Sets and groups that do not exist. */

    struct acl_lint_owner *switches;    /* The db's, by name. */
    struct acl_lint_owner *pgs_sorted;  /* The db's, by name. */
    struct lowner *owners;      /* Switches, then port groups. */
    size_t n_owners;
    struct lacl **all;          /* Every ACL. */
    size_t n_all;

    struct lvec *by_port[N_STAGES];     /* Port id -> ACLs whose packets
                                         * may have it. */
    size_t n_ids;
    struct lvec any[N_STAGES];  /* ACLs not in 'by_port'. */
    unsigned int stamp;
    size_t n_pairs;
};

static enum verdict
verdict_of(const char *action)
{
    return (!strncmp(action, "allow", 5) ? V_ALLOW
            : !strcmp(action, "drop") ? V_DROP
            : !strcmp(action, "reject") ? V_REJECT
            : !strcmp(action, "pass") ? V_PASS
            : V_OTHER);
}

static int
stage_of(const struct acl_lint_acl *acl)
{
    return (!strcmp(acl->direction, "to-lport") ? STAGE_OUT
            : acl->after_lb ? STAGE_AFTER_LB : STAGE_IN);
}

/* The field whose value the index of stage 'k' is by. */
static const struct symtab_symbol *
port_field(const struct lint_ctx *ctx, int k)
{
    return k == STAGE_OUT ? ctx->outport : ctx->inport;
}

/* Adds to ctx->refs the sets and groups 'match' names (every member). */
static void
add_global_refs(struct lint_ctx *ctx, const char *match)
{
    struct sset as_names = SSET_INITIALIZER(&as_names);
    struct sset pg_names = SSET_INITIALIZER(&pg_names);
    lex_match_refs(match, &as_names, &pg_names);
    const char *name;
    SSET_FOR_EACH (name, &pg_names) {
        if (shash_find(&ctx->refs.port_groups, name)
            || sset_contains(&ctx->missing, name)) {
            continue;
        }
        const struct acl_lint_owner *pg = shash_find_data(&ctx->pgs, name);
        if (pg) {
            expr_refs_add_port_group(&ctx->refs, name, pg->ports,
                                     pg->n_ports);
        } else {
            sset_add(&ctx->missing, name);
        }
    }
    SSET_FOR_EACH (name, &as_names) {
        if (shash_find(&ctx->refs.addr_sets, name)) {
            continue;
        }
        size_t n;
        const char **addrs = ctx->db->set_addresses(ctx->db->aux, name, &n);
        if (addrs) {
            free(expr_refs_add_addr_set(&ctx->refs, name, addrs, n));
            free(addrs);
        }
    }
    sset_destroy(&as_names);
    sset_destroy(&pg_names);
}

/* Restricts the port fields of 'a''s boxes to the ports of its switches:
 * from-lport, inport is one of them; to-lport, outport is one of them and
 * inport one of them or "" (a packet northd's own flows send back). */
static void
restrict_to_switches(struct lint_ctx *ctx, struct boxes *bs,
                     const struct lowner *o, int stage)
{
    struct dim in = { ctx->inport, 0, 0 }, out = { ctx->outport, 0, 0 };
    size_t k = 0;
    for (size_t i = 0; i < bs->n; i++) {
        struct box *b = &bs->b[i];
        bool ok = (stage == STAGE_OUT
                   ? (box_restrict(b, &in, &o->ports_empty)
                      && box_restrict(b, &out, &o->ports))
                   : box_restrict(b, &in, &o->ports));
        if (ok) {
            bs->b[k++] = *b;
        }
    }
    bs->n = k;
}

static void
prepare_acl(struct lint_ctx *ctx, struct lacl *a)
{
    const struct acl_lint_acl *acl = a->acl;
    a->stage = stage_of(acl);
    a->tier = acl->tier;
    a->verdict = verdict_of(acl->action);
    ds_init(&a->notes);

    add_global_refs(ctx, acl->match);
    struct expr *e;
    char *error = expr_parse_string(acl->match, &ctx->symtab, &ctx->refs,
                                    &e);
    if (!error) {
        error = expr_annotate(e, &ctx->symtab, &e);
    }
    if (error) {
        free(error);
        return;
    }
    e = expr_normalize(e);
    a->tree = lnode_from_expr(&ctx->names, e);
    expr_destroy(e);
    boxes_of(a->tree, &a->boxes);
    if (!a->boxes.overflow) {
        restrict_to_switches(ctx, &a->boxes, a->owner, a->stage);
    }
}

static bool
sw_subset(const struct lowner *a, const struct lowner *b)
{
    size_t j = 0;
    for (size_t i = 0; i < a->n_sw; i++) {
        while (j < b->n_sw && b->sw[j] < a->sw[i]) {
            j++;
        }
        if (j >= b->n_sw || b->sw[j] != a->sw[i]) {
            return false;
        }
    }
    return true;
}

static bool
sw_intersect(const struct lowner *a, const struct lowner *b)
{
    size_t i = 0, j = 0;
    while (i < a->n_sw && j < b->n_sw) {
        if (a->sw[i] == b->sw[j]) {
            return true;
        } else if (a->sw[i] < b->sw[j]) {
            i++;
        } else {
            j++;
        }
    }
    return false;
}

/* Ids of the ports one box's packets may have in the index field of stage
 * 'k'; NULL if any (no such dimension). */
static const struct vset *
box_ports(const struct lint_ctx *ctx, const struct box *b, int k)
{
    const struct vset *s = box_get(b, port_field(ctx, k), 0, 0);
    return s && !s->neg ? s : NULL;
}

static void
build_index(struct lint_ctx *ctx)
{
    ctx->n_ids = ctx->names.n;
    for (int k = 0; k < N_STAGES; k++) {
        ctx->by_port[k] = xcalloc(MAX(ctx->n_ids, 1),
                                  sizeof *ctx->by_port[k]);
    }
    for (size_t i = 0; i < ctx->n_all; i++) {
        struct lacl *a = ctx->all[i];
        if (!a->tree) {
            continue;
        }
        int k = a->stage;
        bool any = a->boxes.overflow;
        for (size_t j = 0; !any && j < a->boxes.n; j++) {
            any = !box_ports(ctx, &a->boxes.b[j], k);
        }
        if (any) {
            lvec_add(&ctx->any[k], a);
            continue;
        }
        ctx->stamp++;
        for (size_t j = 0; j < a->boxes.n; j++) {
            const struct vset *s = box_ports(ctx, &a->boxes.b[j], k);
            for (size_t m = 0; m < s->n; m++) {
                struct lvec *v = &ctx->by_port[k][s->v[m].u64.lo];
                if (!v->n || v->v[v->n - 1] != a) {
                    lvec_add(v, a);
                }
            }
        }
    }
}

/* Calls 'cb' for each ACL of stage 'k' whose packets may have one of the
 * ports in 's' (the index field), once each. */
static void
for_each_candidate(struct lint_ctx *ctx, int k, const struct vset *s,
                   void (*cb)(struct lint_ctx *, struct lacl *, void *),
                   void *aux)
{
    unsigned int stamp = ++ctx->stamp;
    for (size_t i = 0; i < ctx->any[k].n; i++) {
        struct lacl *a = ctx->any[k].v[i];
        if (a->stamp != stamp) {
            a->stamp = stamp;
            cb(ctx, a, aux);
        }
    }
    for (size_t i = 0; s && i < s->n; i++) {
        uint64_t id = s->v[i].u64.lo;
        if (id >= ctx->n_ids) {
            continue;
        }
        const struct lvec *v = &ctx->by_port[k][id];
        for (size_t j = 0; j < v->n; j++) {
            struct lacl *a = v->v[j];
            if (a->stamp != stamp) {
                a->stamp = stamp;
                cb(ctx, a, aux);
            }
        }
    }
}

static void
note(struct lacl *a, const char *format, ...) OVS_PRINTF_FORMAT(2, 3);

static void
note(struct lacl *a, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    ds_put_cstr(&a->notes, "  warning: ");
    ds_put_format_valist(&a->notes, format, args);
    ds_put_char(&a->notes, '\n');
    va_end(args);
    a->n_notes++;
}

/* "ACL UUID NAME of port group pg1 (from-lport, priority 1001, drop,
 * tier 1) with match "...". */
static void
describe_acl(struct ds *s, const struct lacl *a)
{
    const struct acl_lint_acl *acl = a->acl;
    ds_put_format(s, "ACL "UUID_FMT"%s%s of %s %s (%s, priority %"PRId64
                  ", %s", UUID_ARGS(&acl->uuid),
                  acl->name && acl->name[0] ? " " : "",
                  acl->name ? acl->name : "",
                  a->owner->is_pg ? "port group" : "switch",
                  a->owner->o->name, acl->direction, acl->priority,
                  acl->action);
    if (acl->tier) {
        ds_put_format(s, ", tier %"PRId64, acl->tier);
    }
    if (acl->after_lb) {
        ds_put_cstr(s, ", apply-after-lb");
    }
    ds_put_cstr(s, ") with match ");
    json_string_escape(acl->match, s);
}

/* Shadowing: the highest-priority ACL of the same stage and tier, applying
 * wherever 'b' does, whose match covers every box of 'b''s. */
struct shadow_aux {
    struct lacl *b;
    struct lacl *best;
};

static void
shadow_cb(struct lint_ctx *ctx OVS_UNUSED, struct lacl *a, void *aux_)
{
    struct shadow_aux *aux = aux_;
    struct lacl *b = aux->b;
    if (a == b || !a->tree || a->tier != b->tier
        || a->acl->priority <= b->acl->priority
        || (aux->best
            && (a->acl->priority < aux->best->acl->priority
                || (a->acl->priority == aux->best->acl->priority
                    && uuid_compare_3way(&a->acl->uuid,
                                         &aux->best->acl->uuid) > 0)))
        || !sw_subset(b->owner, a->owner)) {
        return;
    }
    for (size_t i = 0; i < b->boxes.n; i++) {
        if (!covers(a->tree, &b->boxes.b[i])) {
            return;
        }
    }
    aux->best = a;
}

static void
find_shadow(struct lint_ctx *ctx, struct lacl *b)
{
    if (!b->tree || b->boxes.overflow || !b->boxes.n) {
        return;
    }
    /* An ACL that covers 'b' has, among its packets, those of 'b''s first
     * box, so it is listed under the first port of that box. */
    struct shadow_aux aux = { .b = b };
    const struct vset *ports = box_ports(ctx, &b->boxes.b[0], b->stage);
    struct vset first = { .is_string = true };
    if (ports && ports->n) {
        first.v = ports->v;
        first.n = 1;
    }
    for_each_candidate(ctx, b->stage, ports ? &first : NULL, shadow_cb,
                       &aux);
    if (!aux.best) {
        return;
    }
    struct lacl *a = aux.best;
    struct ds s = DS_EMPTY_INITIALIZER;
    describe_acl(&s, a);
    const char *consequence;
    if (a->verdict == V_PASS) {
        consequence = "its pass sends them to the next tier";
    } else if (a->verdict == b->verdict
               && !strcmp(a->acl->action, b->acl->action)) {
        consequence = "same verdict: this one is redundant";
    } else if (a->verdict == b->verdict) {
        consequence = "same verdict, but that ACL's verb decides how "
                      "conntrack sees them";
    } else {
        consequence = NULL;
    }
    if (consequence) {
        note(b, "shadowed: every packet it matches is decided first by %s; "
             "%s", ds_cstr(&s), consequence);
    } else {
        note(b, "shadowed: every packet it matches is decided first by %s; "
             "this %s never applies: %s does instead", ds_cstr(&s),
             b->acl->action, a->acl->action);
    }
    ds_destroy(&s);
}

/* Whether boxes 'a' and 'b' share a packet, shown with one: their
 * intersection, if every dimension of it can take its values whatever the
 * others do.  'k' is the stage. */
static bool
boxes_share(const struct lint_ctx *ctx, const struct box *a,
            const struct box *b, int k, const struct lowner *o)
{
    COVERAGE_INC(acl_lint_overlap_check);
    struct box x;
    if (!box_and(a, b, &x)) {
        return false;
    }
    bool ok = true;
    for (size_t i = 0; ok && i < x.n; i++) {
        const struct dim *d = &x.e[i].dim;
        /* Conntrack's state bits are not independent, nor are a later
         * fragment and its L4 ports (it has none); at from-lport, outport
         * is not set yet. */
        if (!strcmp(d->symbol->name, "ct_state")
            || !strcmp(d->symbol->name, "ip.frag")
            || (k != STAGE_OUT && d->symbol == ctx->outport)) {
            ok = false;
        }
        /* Two dimensions of one field that share bits constrain each
         * other. */
        for (size_t j = i + 1; ok && j < x.n; j++) {
            const struct dim *e = &x.e[j].dim;
            if (e->symbol == d->symbol && !d->symbol->is_string
                && e->ofs < d->ofs + d->n_bits
                && d->ofs < e->ofs + e->n_bits) {
                ok = false;
            }
        }
    }
    /* To-lport on several switches: inport and outport on one switch. */
    if (ok && k == STAGE_OUT && o->n_sw > 1) {
        const struct vset *in = box_get(&x, ctx->inport, 0, 0);
        const struct vset *out = box_get(&x, ctx->outport, 0, 0);
        ok = false;
        if (in && out && !in->neg && !out->neg) {
            if (ids_contain(in, ctx->empty_id)) {
                ok = true;
            }
            /* Ports of 'x' are interned port names, so their switch is
             * known by name. */
            const char **names = xcalloc(ctx->names.n, sizeof *names);
            struct shash_node *node;
            SHASH_FOR_EACH (node, &ctx->names.ids) {
                names[(uintptr_t) node->data - 1] = node->name;
            }
            size_t budget = 10000;
            for (size_t i = 0; !ok && i < in->n && budget; i++) {
                uintptr_t si = (uintptr_t) shash_find_data(
                    &ctx->port_ls, names[in->v[i].u64.lo]);
                for (size_t j = 0; !ok && j < out->n && budget; j++,
                     budget--) {
                    ok = si && si == (uintptr_t) shash_find_data(
                        &ctx->port_ls, names[out->v[j].u64.lo]);
                }
            }
            free(names);
        }
    }
    box_destroy(&x);
    return ok;
}

/* Whether some packet matches both 'a' and 'b' (of one stage, applying to
 * the same switches), shown with one. */
static bool
acls_share(struct lint_ctx *ctx, const struct lacl *a, const struct lacl *b)
{
    if (a->boxes.overflow || a->boxes.inexact
        || b->boxes.overflow || b->boxes.inexact) {
        return false;
    }
    for (size_t i = 0; i < a->boxes.n; i++) {
        for (size_t j = 0; j < b->boxes.n; j++) {
            if (++ctx->n_pairs > MAX_CONFLICT_PAIRS) {
                return false;
            }
            if (boxes_share(ctx, &a->boxes.b[i], &b->boxes.b[j], a->stage,
                            a->owner)) {
                return true;
            }
        }
    }
    return false;
}

static void
conflict_note(struct lacl *a, const struct lacl *b)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    describe_acl(&s, b);
    note(a, "conflicts with %s: some packets match both, and which of %s "
         "and %s applies to them is unspecified (same priority)",
         ds_cstr(&s), a->acl->action, b->acl->action);
    ds_destroy(&s);
}

/* Conflicts: ACLs of one stage, tier and priority, on the same switches,
 * with different verdicts, that some packet matches both of. */
static void
find_conflicts(struct lint_ctx *ctx)
{
    struct shash groups = SHASH_INITIALIZER(&groups);
    for (size_t i = 0; i < ctx->n_all; i++) {
        struct lacl *a = ctx->all[i];
        if (!a->tree || a->verdict == V_OTHER) {
            continue;
        }
        char *key = xasprintf("%d/%d/%"PRId64"/%s", a->stage, a->tier,
                              a->acl->priority, a->owner->sw_key);
        struct lvec *v = shash_find_data(&groups, key);
        if (!v) {
            v = xzalloc(sizeof *v);
            shash_add_nocopy(&groups, key, v);
        } else {
            free(key);
        }
        lvec_add(v, a);
    }
    const struct shash_node **nodes = shash_sort(&groups);
    for (size_t g = 0; g < shash_count(&groups); g++) {
        const struct lvec *v = nodes[g]->data;
        for (size_t i = 0; i < v->n; i++) {
            for (size_t j = i + 1; j < v->n; j++) {
                struct lacl *a = v->v[i], *b = v->v[j];
                if (a->verdict == b->verdict
                    || ctx->n_pairs >= MAX_CONFLICT_PAIRS) {
                    continue;
                }
                if (acls_share(ctx, a, b)) {
                    conflict_note(a, b);
                    conflict_note(b, a);
                }
            }
        }
    }
    free(nodes);
    struct shash_node *node;
    SHASH_FOR_EACH (node, &groups) {
        struct lvec *v = node->data;
        free(v->v);
    }
    shash_destroy_free_data(&groups);
}

/* Replies of an allow-stateless ACL.
 *
 * The replies to the packets 'x' allows have their addresses and ports
 * swapped, the same Ethernet type and IP protocol, and go through the
 * other direction's ACLs on the same switch: those of a from-lport ACL
 * leave through the port they came in by (outport), those of a to-lport
 * ACL come in by the port they left through (inport).  Nothing else about
 * them is known. */
static bool
reply_boxes(struct lint_ctx *ctx, const struct lacl *x, struct boxes *out)
{
    static const char *const swaps[][2] = {
        { "ip4.src", "ip4.dst" }, { "ip6.src", "ip6.dst" },
        { "tcp.src", "tcp.dst" }, { "udp.src", "udp.dst" },
        { "sctp.src", "sctp.dst" },
    };
    bool from = x->stage != STAGE_OUT;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < x->boxes.n; i++) {
        const struct box *b = &x->boxes.b[i];
        struct box r = { .e = xmalloc(MAX(b->n, 1) * sizeof *r.e) };
        for (size_t j = 0; j < b->n; j++) {
            const struct dim *d = &b->e[j].dim;
            const struct symtab_symbol *to = NULL;
            const char *name = d->symbol->name;
            if (d->symbol == ctx->inport) {
                to = from ? ctx->outport : NULL;
            } else if (d->symbol == ctx->outport) {
                to = from ? NULL : ctx->inport;
            } else if (!strcmp(name, "eth.type")
                       || !strcmp(name, "ip.proto")) {
                to = d->symbol;
            } else {
                for (size_t s = 0; s < ARRAY_SIZE(swaps); s++) {
                    for (int t = 0; t < 2; t++) {
                        if (!strcmp(name, swaps[s][t])) {
                            to = symtab_find(&ctx->symtab, swaps[s][!t]);
                        }
                    }
                }
                if (to && (to->kind != SYMTAB_FIELD
                           || to->width != d->symbol->width)) {
                    to = NULL;
                }
            }
            if (to) {
                r.e[r.n].dim = *d;
                r.e[r.n].dim.symbol = to;
                r.e[r.n].set = vset_clone(&b->e[j].set);
                r.n++;
            }
        }
        /* Keep the entries sorted by dimension. */
        for (size_t j = 1; j < r.n; j++) {
            for (size_t m = j; m > 0
                     && dim_cmp(&r.e[m - 1].dim, &r.e[m].dim) > 0; m--) {
                struct box_entry t = r.e[m];
                r.e[m] = r.e[m - 1];
                r.e[m - 1] = t;
            }
        }
        boxes_add(out, r);
    }
    restrict_to_switches(ctx, out, x->owner, from ? STAGE_OUT : STAGE_IN);
    return !out->overflow && out->n;
}

struct reply_aux {
    const struct lacl *x;
    const struct boxes *r;
    struct lvec drops;          /* Drops that cover the replies. */
    struct lvec others;         /* The rest. */
};

static void
reply_cb(struct lint_ctx *ctx OVS_UNUSED, struct lacl *a, void *aux_)
{
    struct reply_aux *aux = aux_;
    if (!sw_intersect(a->owner, aux->x->owner)) {
        return;
    }
    bool drop = (a->tree && (a->verdict == V_DROP || a->verdict == V_REJECT)
                 && sw_subset(aux->x->owner, a->owner));
    for (size_t i = 0; drop && i < aux->r->n; i++) {
        drop = covers(a->tree, &aux->r->b[i]);
    }
    lvec_add(drop ? &aux->drops : &aux->others, a);
}

/* Whether 'e' could let a reply in 'r' through before drop 'd' of the
 * same stage decides. */
static bool
could_allow_first(const struct lacl *e, const struct lacl *d,
                  const struct boxes *r)
{
    if (e == d) {
        return false;
    }
    bool first;
    if (e->tier < d->tier) {
        first = e->verdict != V_DROP && e->verdict != V_REJECT
                && e->verdict != V_PASS;
    } else if (e->tier == d->tier) {
        first = (e->acl->priority >= d->acl->priority
                 && e->verdict != V_DROP && e->verdict != V_REJECT);
    } else {
        first = false;
    }
    if (!first) {
        return false;
    }
    if (!e->tree || e->boxes.overflow) {
        return true;
    }
    for (size_t i = 0; i < r->n; i++) {
        for (size_t j = 0; j < e->boxes.n; j++) {
            if (!boxes_disjoint(&r->b[i], &e->boxes.b[j])) {
                return true;
            }
        }
    }
    return false;
}

static int
compare_drops(const void *a_, const void *b_)
{
    const struct lacl *const *a = a_, *const *b = b_;
    if ((*a)->tier != (*b)->tier) {
        return (*a)->tier < (*b)->tier ? -1 : 1;
    }
    if ((*a)->acl->priority != (*b)->acl->priority) {
        return (*a)->acl->priority > (*b)->acl->priority ? -1 : 1;
    }
    return uuid_compare_3way(&(*a)->acl->uuid, &(*b)->acl->uuid);
}

static void
find_dropped_replies(struct lint_ctx *ctx, struct lacl *x)
{
    if (!x->tree || strcmp(x->acl->action, "allow-stateless")
        || x->boxes.overflow || !x->boxes.n) {
        return;
    }
    struct boxes r;
    if (!reply_boxes(ctx, x, &r)) {
        boxes_destroy(&r);
        return;
    }
    /* The replies' port (the index field of the other direction). */
    struct vset ports = { .is_string = true };
    bool any = false;
    for (size_t i = 0; i < r.n; i++) {
        const struct vset *p = box_ports(ctx, &r.b[i],
                                         x->stage == STAGE_OUT
                                         ? STAGE_IN : STAGE_OUT);
        if (!p) {
            any = true;
            break;
        }
        struct vset u = vset_union(&ports, p);
        vset_destroy(&ports);
        ports = u;
    }

    int stages[2], n_stages = 0;
    if (x->stage == STAGE_OUT) {
        stages[n_stages++] = STAGE_IN;
        stages[n_stages++] = STAGE_AFTER_LB;
    } else {
        stages[n_stages++] = STAGE_OUT;
    }
    for (int s = 0; s < n_stages && !any; s++) {
        struct reply_aux aux = { .x = x, .r = &r };
        for_each_candidate(ctx, stages[s], &ports, reply_cb, &aux);
        if (aux.drops.n > 1) {
            qsort(aux.drops.v, aux.drops.n, sizeof *aux.drops.v,
                  compare_drops);
        }
        const struct lacl *found = NULL;
        for (size_t i = 0; !found && i < aux.drops.n; i++) {
            const struct lacl *d = aux.drops.v[i];
            bool allowed = false;
            for (size_t j = 0; !allowed && j < aux.drops.n; j++) {
                allowed = could_allow_first(aux.drops.v[j], d, &r);
            }
            for (size_t j = 0; !allowed && j < aux.others.n; j++) {
                allowed = could_allow_first(aux.others.v[j], d, &r);
            }
            if (!allowed) {
                found = d;
            }
        }
        if (found) {
            struct ds s_ = DS_EMPTY_INITIALIZER;
            describe_acl(&s_, found);
            note(x, "replies dropped: %s covers every reply to what this "
                 "allow-stateless ACL allows (addresses and ports "
                 "swapped), and no ACL that could let them through first "
                 "matches any of them", ds_cstr(&s_));
            ds_destroy(&s_);
            any = true;
        }
        free(aux.drops.v);
        free(aux.others.v);
    }
    vset_destroy(&ports);
    boxes_destroy(&r);
}

/* ------------------------------------------------------------------------
 * The report.
 * --------------------------------------------------------------------- */

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

/* Lints one ACL.  ovn-controller matches "@name" on a switch against the
 * members of the group on that switch (northd writes a port group per
 * switch), so the estimate is for the switch with the most ports of the
 * ACL's port group (the switch itself for a switch's ACL). */
static size_t
lint_acl(struct lint_ctx *ctx, const struct lacl *a, struct ds *out)
{
    const struct acl_lint_acl *acl = a->acl;
    const struct lowner *o = a->owner;
    size_t n = 0;
    const char *match = acl->match;

    ds_put_format(out, "ACL "UUID_FMT"%s%s of %s %s (%s, priority %"PRId64
                  ", %s)", UUID_ARGS(&acl->uuid),
                  acl->name && acl->name[0] ? " " : "",
                  acl->name ? acl->name : "",
                  o->is_pg ? "port group" : "switch", o->o->name,
                  acl->direction, acl->priority, acl->action);
    struct ds findings = DS_EMPTY_INITIALIZER;

    if (acl->meter && acl->meter[0]
        && !sset_contains(&ctx->meters, acl->meter)) {
        finding(&findings, &n, "meter \"%s\" does not exist", acl->meter);
    }

    /* The sets and groups the match names, and what they hold. */
    struct sset as_names = SSET_INITIALIZER(&as_names);
    struct sset pg_names = SSET_INITIALIZER(&pg_names);
    lex_match_refs(match, &as_names, &pg_names);
    struct expr_refs refs;
    expr_refs_init(&refs);
    const char *name;
    SSET_FOR_EACH (name, &pg_names) {
        const struct acl_lint_owner *pg = shash_find_data(&ctx->pgs, name);
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
            const char *port = pg->ports[i];
            uintptr_t ls = (uintptr_t) shash_find_data(&ctx->port_ls, port);
            if (o->busiest != SIZE_MAX && ls == o->busiest + 1) {
                ports[n_ports++] = port;
            }
        }
        expr_refs_add_port_group(&refs, name, ports, n_ports);
        free(ports);
    }
    SSET_FOR_EACH (name, &as_names) {
        size_t n_addrs = 0;
        const char **addrs = ctx->db->set_addresses(ctx->db->aux, name,
                                                    &n_addrs);
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
        size_t n_switches = o->n_sw;
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
    ds_put_cstr(out, ds_cstr_ro(&a->notes));
    for (size_t i = 0; i < a->n_notes; i++) {
        COVERAGE_INC(acl_lint_finding);
    }
    n += a->n_notes;
    ds_destroy(&findings);
    expr_refs_destroy(&refs);
    sset_destroy(&as_names);
    sset_destroy(&pg_names);
    return n;
}

static int
compare_lacls(const void *a_, const void *b_)
{
    const struct lacl *const *a = a_, *const *b = b_;
    if ((*a)->acl->priority != (*b)->acl->priority) {
        return (*a)->acl->priority > (*b)->acl->priority ? -1 : 1;
    }
    return uuid_compare_3way(&(*a)->acl->uuid, &(*b)->acl->uuid);
}

/* Lints the ACLs of one switch or port group, by priority. */
static size_t
lint_owner(struct lint_ctx *ctx, const struct lowner *o, struct ds *out)
{
    size_t n_acls = o->o->n_acls;
    const struct lacl **sorted = xmalloc(MAX(n_acls, 1) * sizeof *sorted);
    for (size_t i = 0; i < n_acls; i++) {
        sorted[i] = &o->lacls[i];
    }
    qsort(sorted, n_acls, sizeof *sorted, compare_lacls);
    size_t n = 0;
    for (size_t i = 0; i < n_acls; i++) {
        n += lint_acl(ctx, sorted[i], out);
    }
    free(sorted);
    return n;
}

static int
compare_size(const void *a_, const void *b_)
{
    size_t a = *(const size_t *) a_, b = *(const size_t *) b_;
    return a < b ? -1 : a > b;
}

/* Fills in the switches 'o' applies to and their ports. */
static void
init_owner(struct lint_ctx *ctx, struct lowner *o,
           const struct acl_lint_owner *owner, bool is_pg, size_t index)
{
    o->o = owner;
    o->is_pg = is_pg;
    o->busiest = SIZE_MAX;
    if (!is_pg) {
        o->sw = xmalloc(sizeof *o->sw);
        o->sw[0] = index;
        o->n_sw = 1;
        o->busiest = index;
    } else {
        size_t *count = xcalloc(MAX(ctx->db->n_switches, 1), sizeof *count);
        o->sw = xmalloc(MAX(owner->n_ports, 1) * sizeof *o->sw);
        size_t max = 0;
        for (size_t i = 0; i < owner->n_ports; i++) {
            uintptr_t ls = (uintptr_t) shash_find_data(&ctx->port_ls,
                                                       owner->ports[i]);
            if (!ls) {
                continue;
            }
            if (!count[ls - 1]++) {
                o->sw[o->n_sw++] = ls - 1;
            }
            const char *name = ctx->switches[ls - 1].name;
            if (count[ls - 1] > max
                || (count[ls - 1] == max
                    && strcmp(name,
                              ctx->switches[o->busiest].name) < 0)) {
                max = count[ls - 1];
                o->busiest = ls - 1;
            }
        }
        free(count);
        qsort(o->sw, o->n_sw, sizeof *o->sw, compare_size);
    }

    struct ds key = DS_EMPTY_INITIALIZER;
    size_t n_ports = 0;
    for (size_t i = 0; i < o->n_sw; i++) {
        ds_put_format(&key, "%"PRIuSIZE",", o->sw[i]);
        n_ports += ctx->switches[o->sw[i]].n_ports;
    }
    o->sw_key = ds_steal_cstr(&key);
    o->ports = (struct vset) { .is_string = true };
    o->ports.v = xmalloc((n_ports + 1) * sizeof *o->ports.v);
    for (size_t i = 0; i < o->n_sw; i++) {
        const struct acl_lint_owner *ls = &ctx->switches[o->sw[i]];
        for (size_t j = 0; j < ls->n_ports; j++) {
            o->ports.v[o->ports.n++] = lex_u128_from_u64(
                intern(&ctx->names, ls->ports[j]));
        }
    }
    o->ports.n = ids_normalize(o->ports.v, o->ports.n);
    o->ports_empty = vset_clone(&o->ports);
    o->ports_empty.v = xrealloc(o->ports_empty.v,
                                (o->ports.n + 1) * sizeof *o->ports.v);
    o->ports_empty.v[o->ports_empty.n++] = lex_u128_from_u64(ctx->empty_id);
    o->ports_empty.n = ids_normalize(o->ports_empty.v, o->ports_empty.n);
}

static int
compare_owners(const void *a_, const void *b_)
{
    const struct acl_lint_owner *a = a_, *b = b_;
    return strcmp(a->name, b->name);
}

static void
lint_ctx_init(struct lint_ctx *ctx, const struct acl_lint_db *db,
              double threshold)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->db = db;
    ctx->threshold = threshold;
    symtab_init_ovn(&ctx->symtab);
    ctx->inport = symtab_find(&ctx->symtab, "inport");
    ctx->outport = symtab_find(&ctx->symtab, "outport");
    shash_init(&ctx->pgs);
    sset_init(&ctx->meters);
    shash_init(&ctx->port_ls);
    shash_init(&ctx->names.ids);
    ctx->empty_id = intern(&ctx->names, "");
    expr_refs_init(&ctx->refs);
    sset_init(&ctx->missing);

    /* By name, so that the report does not depend on the order the caller
     * found the rows in. */
    ctx->switches = xcalloc(MAX(db->n_switches, 1), sizeof *ctx->switches);
    for (size_t i = 0; i < db->n_switches; i++) {
        ctx->switches[i] = db->switches[i];
    }
    qsort(ctx->switches, db->n_switches, sizeof *ctx->switches,
          compare_owners);
    ctx->pgs_sorted = xcalloc(MAX(db->n_pgs, 1), sizeof *ctx->pgs_sorted);
    for (size_t i = 0; i < db->n_pgs; i++) {
        ctx->pgs_sorted[i] = db->pgs[i];
    }
    qsort(ctx->pgs_sorted, db->n_pgs, sizeof *ctx->pgs_sorted,
          compare_owners);

    for (size_t i = 0; i < db->n_pgs; i++) {
        shash_add_once(&ctx->pgs, ctx->pgs_sorted[i].name,
                       &ctx->pgs_sorted[i]);
    }
    for (size_t i = 0; i < db->n_meters; i++) {
        sset_add(&ctx->meters, db->meters[i]);
    }
    for (size_t i = 0; i < db->n_switches; i++) {
        const struct acl_lint_owner *ls = &ctx->switches[i];
        for (size_t j = 0; j < ls->n_ports; j++) {
            shash_add_once(&ctx->port_ls, ls->ports[j],
                           (void *) (uintptr_t) (i + 1));
        }
    }

    ctx->n_owners = db->n_switches + db->n_pgs;
    ctx->owners = xcalloc(MAX(ctx->n_owners, 1), sizeof *ctx->owners);
    size_t n_acls = 0;
    for (size_t i = 0; i < ctx->n_owners; i++) {
        bool is_pg = i >= db->n_switches;
        const struct acl_lint_owner *owner = (is_pg
                                              ? &ctx->pgs_sorted[
                                                  i - db->n_switches]
                                              : &ctx->switches[i]);
        init_owner(ctx, &ctx->owners[i], owner, is_pg, i);
        n_acls += owner->n_acls;
    }
    ctx->all = xmalloc(MAX(n_acls, 1) * sizeof *ctx->all);
    for (size_t i = 0; i < ctx->n_owners; i++) {
        struct lowner *o = &ctx->owners[i];
        o->lacls = xcalloc(MAX(o->o->n_acls, 1), sizeof *o->lacls);
        size_t first = ctx->n_all;
        for (size_t j = 0; j < o->o->n_acls; j++) {
            struct lacl *a = &o->lacls[j];
            a->acl = &o->o->acls[j];
            a->owner = o;
            prepare_acl(ctx, a);
            ctx->all[ctx->n_all++] = a;
        }
        if (ctx->n_all - first > 1) {
            qsort(&ctx->all[first], ctx->n_all - first, sizeof *ctx->all,
                  compare_lacls);
        }
    }
}

static void
lint_ctx_destroy(struct lint_ctx *ctx)
{
    for (size_t i = 0; i < ctx->n_owners; i++) {
        struct lowner *o = &ctx->owners[i];
        for (size_t j = 0; j < o->o->n_acls; j++) {
            struct lacl *a = &o->lacls[j];
            lnode_destroy(a->tree);
            boxes_destroy(&a->boxes);
            ds_destroy(&a->notes);
        }
        free(o->lacls);
        free(o->sw);
        free(o->sw_key);
        vset_destroy(&o->ports);
        vset_destroy(&o->ports_empty);
    }
    free(ctx->owners);
    free(ctx->all);
    free(ctx->switches);
    free(ctx->pgs_sorted);
    for (int k = 0; k < N_STAGES; k++) {
        for (size_t i = 0; ctx->by_port[k] && i < ctx->n_ids; i++) {
            free(ctx->by_port[k][i].v);
        }
        free(ctx->by_port[k]);
        free(ctx->any[k].v);
    }
    symtab_destroy(&ctx->symtab);
    shash_destroy(&ctx->pgs);
    sset_destroy(&ctx->meters);
    shash_destroy(&ctx->port_ls);
    shash_destroy(&ctx->names.ids);
    expr_refs_destroy(&ctx->refs);
    sset_destroy(&ctx->missing);
}

size_t
acl_lint(const struct acl_lint_db *db, const char *filter, double threshold,
         struct ds *out)
{
    struct lint_ctx ctx;
    lint_ctx_init(&ctx, db, threshold);

    bool found = !filter;
    for (size_t i = 0; i < ctx.n_owners && !found; i++) {
        found = !strcmp(ctx.owners[i].o->name, filter);
    }
    if (!found) {
        lint_ctx_destroy(&ctx);
        return SIZE_MAX;
    }

    build_index(&ctx);
    for (size_t i = 0; i < ctx.n_all; i++) {
        find_shadow(&ctx, ctx.all[i]);
        find_dropped_replies(&ctx, ctx.all[i]);
    }
    find_conflicts(&ctx);

    /* Switches, then port groups, each by name. */
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        struct shash owners = SHASH_INITIALIZER(&owners);
        for (size_t i = 0; i < ctx.n_owners; i++) {
            struct lowner *o = &ctx.owners[i];
            if (o->is_pg == (pass == 1)
                && (!filter || !strcmp(filter, o->o->name))) {
                shash_add(&owners, o->o->name, o);
            }
        }
        const struct shash_node **nodes = shash_sort(&owners);
        for (size_t i = 0; i < shash_count(&owners); i++) {
            n += lint_owner(&ctx, nodes[i]->data, out);
        }
        free(nodes);
        shash_destroy(&owners);
    }
    ds_put_format(out, "%"PRIuSIZE" finding%s\n", n, n == 1 ? "" : "s");

    lint_ctx_destroy(&ctx);
    return n;
}

static const char **
no_sets(const void *aux OVS_UNUSED, const char *name OVS_UNUSED,
        size_t *n)
{
    *n = 0;
    return NULL;
}

char *
acl_lint_compare(const char *a, const char *b, const char *direction,
                 const char *const *ports, size_t n_ports,
                 bool *coversp, bool *overlapsp)
{
    struct acl_lint_acl acls[2] = {
        { .match = a, .action = "drop", .direction = direction,
          .priority = 2 },
        { .match = b, .action = "allow", .direction = direction,
          .priority = 2 },
    };
    struct acl_lint_owner sw = {
        .name = "sw", .acls = acls, .n_acls = 2,
        .ports = ports, .n_ports = n_ports,
    };
    struct acl_lint_db db = {
        .switches = &sw, .n_switches = 1, .set_addresses = no_sets,
    };
    struct lint_ctx ctx;
    lint_ctx_init(&ctx, &db, ACL_LINT_DEFAULT_THRESHOLD);
    const struct lacl *la = &ctx.owners[0].lacls[0];
    const struct lacl *lb = &ctx.owners[0].lacls[1];
    char *error = NULL;
    if (!la->tree || !lb->tree) {
        error = xasprintf("%s does not parse", la->tree ? b : a);
    } else {
        bool c = !lb->boxes.overflow;
        for (size_t i = 0; c && i < lb->boxes.n; i++) {
            c = covers(la->tree, &lb->boxes.b[i]);
        }
        *coversp = c;
        *overlapsp = acls_share(&ctx, la, lb);
    }
    lint_ctx_destroy(&ctx);
    return error;
}
