/* Match expressions of the OVN logical-flow language: see expr.h. */
#include <config.h>
#include <ctype.h>

#include "lib/expr.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "lib/decimal.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/shash.h"
#include "openvswitch/util.h"
#include "svec.h"
#include "util.h"

/* Nesting limit for predicates and prerequisites being expanded (the
 * parenthesis limit, EXPR_MAX_PAREN_DEPTH, is ovn-controller's). */
#define MAX_EXPANSION_DEPTH 16

/* Constants. */

void
expr_const_destroy(struct expr_const *c)
{
    if (c) {
        free(c->string);
        c->string = NULL;
    }
}

void
expr_const_clone(struct expr_const *dst, const struct expr_const *src)
{
    *dst = *src;
    dst->string = nullable_xstrdup(src->string);
}

static void
format_quoted(const char *s, struct ds *out)
{
    struct lex_token t;

    lex_token_init(&t);
    t.type = LEX_T_STRING;
    t.s = CONST_CAST(char *, s);
    lex_token_format(&t, out);
}

void
expr_const_format(const struct expr_const *c, struct ds *s)
{
    struct lex_token t;

    if (c->string) {
        format_quoted(c->string, s);
        return;
    }
    lex_token_init(&t);
    t.type = c->masked ? LEX_T_MASKED_INTEGER : LEX_T_INTEGER;
    t.format = c->format;
    t.value = c->value;
    t.mask = c->mask;
    lex_token_format(&t, s);
}

/* Fills 'c' from the constant token 't' (INTEGER, MASKED_INTEGER or
 * STRING). */
static int const_width(const struct expr_const *);

static void
const_from_token(struct expr_const *c, const struct lex_token *t)
{
    memset(c, 0, sizeof *c);
    if (t->type == LEX_T_STRING) {
        c->string = xstrdup(t->s);
    } else {
        c->value = t->value;
        c->masked = t->type == LEX_T_MASKED_INTEGER;
        c->mask = c->masked ? t->mask : lex_u128_ones(128);
        c->format = t->format;
    }
}

/* Address sets and port groups. */

static void
const_set_destroy(struct expr_const_set *set)
{
    if (set) {
        for (size_t i = 0; set->values && i < set->n; i++) {
            expr_const_destroy(&set->values[i]);
        }
        free(set->values);
        free(set);
    }
}

void
expr_refs_init(struct expr_refs *refs)
{
    shash_init(&refs->addr_sets);
    shash_init(&refs->port_groups);
}

void
expr_refs_destroy(struct expr_refs *refs)
{
    if (refs) {
        struct shash_node *node;
        SHASH_FOR_EACH (node, &refs->addr_sets) {
            const_set_destroy(node->data);
        }
        SHASH_FOR_EACH (node, &refs->port_groups) {
            const_set_destroy(node->data);
        }
        shash_destroy(&refs->addr_sets);
        shash_destroy(&refs->port_groups);
    }
}

/* True if 's' is a plain dotted-quad IPv4 address, "A.B.C.D" with each
 * part 0 to 255 and no leading zeros: what the lexer reads as one IPv4
 * constant.  Most addresses in sets are, and a summary needs only their
 * width, so they are spared the lexer. */
static bool
is_plain_ipv4(const char *s)
{
    for (int part = 0; part < 4; part++) {
        if (part && *s++ != '.') {
            return false;
        }
        if (!isdigit((unsigned char) s[0])) {
            return false;
        }
        int v = 0, n = 0;
        while (isdigit((unsigned char) s[n]) && n < 4) {
            v = v * 10 + (s[n] - '0');
            n++;
        }
        if (n > 3 || v > 255 || (n > 1 && s[0] == '0')) {
            return false;
        }
        s += n;
    }
    return !*s;
}

/* Adds (or replaces) address set 'name' with the 'n' addresses in 'addrs'.
 * An address that does not parse as one constant is left out and reported
 * in the returned error (NULL if all parsed). */
static char *
add_addr_set(struct expr_refs *refs, const char *name,
             const char *const *addrs, size_t n, bool summary)
{
    struct expr_const_set *set = xzalloc(sizeof *set);
    char *error = NULL;

    set->summary = summary;
    set->values = summary ? NULL : xmalloc(MAX(n, 1) * sizeof *set->values);
    for (size_t i = 0; i < n; i++) {
        struct lexer lexer;

        if (summary && is_plain_ipv4(addrs[i])) {
            set->max_width = MAX(set->max_width, 32);
            set->n++;
            continue;
        }

        lex_init(&lexer, addrs[i]);
        lex_next(&lexer);
        if ((lexer.token.type == LEX_T_INTEGER
             || lexer.token.type == LEX_T_MASKED_INTEGER)
            && lex_peek(&lexer) == LEX_T_END) {
            struct expr_const c;
            const_from_token(&c, &lexer.token);
            set->max_width = MAX(set->max_width, const_width(&c));
            if (summary) {
                expr_const_destroy(&c);
            } else {
                set->values[set->n] = c;
            }
            set->n++;
        } else if (!error) {
            error = xasprintf("address set \"%s\": \"%s\" is not an address",
                              name, addrs[i]);
        }
        lex_destroy(&lexer);
    }
    const_set_destroy(shash_replace(&refs->addr_sets, name, set));
    return error;
}

char *
expr_refs_add_addr_set(struct expr_refs *refs, const char *name,
                       const char *const *addrs, size_t n)
{
    return add_addr_set(refs, name, addrs, n, false);
}

char *
expr_refs_add_addr_set_summary(struct expr_refs *refs, const char *name,
                               const char *const *addrs, size_t n)
{
    return add_addr_set(refs, name, addrs, n, true);
}

static void
remove_set(struct shash *sets, const char *name)
{
    struct expr_const_set *set = shash_find_and_delete(sets, name);
    if (set) {
        const_set_destroy(set);
    }
}

void
expr_refs_remove_addr_set(struct expr_refs *refs, const char *name)
{
    remove_set(&refs->addr_sets, name);
}

void
expr_refs_remove_port_group(struct expr_refs *refs, const char *name)
{
    remove_set(&refs->port_groups, name);
}

/* Adds (or replaces) port group 'name' with the 'n' port names in
 * 'ports'. */
void
expr_refs_add_port_group(struct expr_refs *refs, const char *name,
                         const char *const *ports, size_t n)
{
    struct expr_const_set *set = xzalloc(sizeof *set);

    set->is_string = true;
    set->values = xzalloc(MAX(n, 1) * sizeof *set->values);
    for (size_t i = 0; i < n; i++) {
        set->values[i].string = xstrdup(ports[i]);
    }
    set->n = n;
    const_set_destroy(shash_replace(&refs->port_groups, name, set));
}

void
expr_refs_add_sb_port_groups(struct expr_refs *r,
                             const struct shash *port_groups,
                             const char *key)
{
    /* Plain names first, so that a datapath's own group replaces one of
     * the same plain name. */
    size_t key_len = strlen(key);
    struct shash_node *node;
    SHASH_FOR_EACH (node, port_groups) {
        const struct svec *v = node->data;
        size_t n_digits = strspn(node->name, "0123456789");
        if (!n_digits || node->name[n_digits] != '_') {
            expr_refs_add_port_group(r, node->name,
                                     (const char *const *) v->names, v->n);
        }
    }
    SHASH_FOR_EACH (node, port_groups) {
        const struct svec *v = node->data;
        if (!strncmp(node->name, key, key_len)
            && node->name[key_len] == '_') {
            expr_refs_add_port_group(r, node->name + key_len + 1,
                                     (const char *const *) v->names, v->n);
        }
    }
}

/* Expression nodes. */

const char *
expr_relop_to_string(enum expr_relop relop)
{
    switch (relop) {
    case EXPR_R_EQ: return "==";
    case EXPR_R_NE: return "!=";
    case EXPR_R_LT: return "<";
    case EXPR_R_LE: return "<=";
    case EXPR_R_GT: return ">";
    case EXPR_R_GE: return ">=";
    }
    OVS_NOT_REACHED();
}

static enum expr_relop
relop_negate(enum expr_relop relop)
{
    switch (relop) {
    case EXPR_R_EQ: return EXPR_R_NE;
    case EXPR_R_NE: return EXPR_R_EQ;
    case EXPR_R_LT: return EXPR_R_GE;
    case EXPR_R_LE: return EXPR_R_GT;
    case EXPR_R_GT: return EXPR_R_LE;
    case EXPR_R_GE: return EXPR_R_LT;
    }
    OVS_NOT_REACHED();
}

/* The relop R' such that "c R field" means "field R' c". */
static enum expr_relop
relop_swap(enum expr_relop relop)
{
    switch (relop) {
    case EXPR_R_EQ: return EXPR_R_EQ;
    case EXPR_R_NE: return EXPR_R_NE;
    case EXPR_R_LT: return EXPR_R_GT;
    case EXPR_R_LE: return EXPR_R_GE;
    case EXPR_R_GT: return EXPR_R_LT;
    case EXPR_R_GE: return EXPR_R_LE;
    }
    OVS_NOT_REACHED();
}

static bool
relop_from_token(enum lex_type type, enum expr_relop *relop)
{
    switch (type) {
    case LEX_T_EQ: *relop = EXPR_R_EQ; return true;
    case LEX_T_NE: *relop = EXPR_R_NE; return true;
    case LEX_T_LT: *relop = EXPR_R_LT; return true;
    case LEX_T_LE: *relop = EXPR_R_LE; return true;
    case LEX_T_GT: *relop = EXPR_R_GT; return true;
    case LEX_T_GE: *relop = EXPR_R_GE; return true;
    default: return false;
    }
}

static struct expr *
expr_alloc(enum expr_type type)
{
    struct expr *e = xzalloc(sizeof *e);
    e->type = type;
    if (type == EXPR_T_AND || type == EXPR_T_OR || type == EXPR_T_NOT) {
        ovs_list_init(&e->subs);
    }
    return e;
}

struct expr *
expr_create_boolean(bool b)
{
    struct expr *e = expr_alloc(EXPR_T_BOOLEAN);
    e->boolean = b;
    return e;
}

struct expr *
expr_create_andor(enum expr_type type)
{
    ovs_assert(type == EXPR_T_AND || type == EXPR_T_OR);
    return expr_alloc(type);
}

void
expr_add_sub(struct expr *parent, struct expr *child)
{
    ovs_list_push_back(&parent->subs, &child->node);
}

static struct expr *
create_cmp(const struct symtab_symbol *sym, int ofs, int n_bits,
           size_t pos)
{
    struct expr *e = expr_alloc(EXPR_T_CMP);
    e->cmp.symbol = sym;
    e->cmp.ofs = ofs;
    e->cmp.n_bits = n_bits;
    e->cmp.relop = EXPR_R_EQ;
    e->cmp.pos = pos;
    return e;
}

/* Appends a copy of 'c' to the values of 'cmp', which must have been built
 * by this function alone: the array doubles when 'n_values' reaches a power
 * of 2 (its implicit capacity), so that a set of n constants costs O(n)
 * copies rather than O(n**2). */
static void
cmp_add_value(struct expr_cmp *cmp, const struct expr_const *c)
{
    size_t n = cmp->n_values;

    if (!(n & (n - 1))) {
        cmp->values = xrealloc(cmp->values,
                               MAX(1, 2 * n) * sizeof *cmp->values);
    }
    expr_const_clone(&cmp->values[cmp->n_values++], c);
}

struct expr *
expr_clone(const struct expr *e)
{
    struct expr *c = expr_alloc(e->type);
    const struct expr *sub;

    switch (e->type) {
    case EXPR_T_CMP:
        c->cmp = e->cmp;
        c->cmp.ref_name = nullable_xstrdup(e->cmp.ref_name);
        c->cmp.values = xmalloc(MAX(1, e->cmp.n_values)
                                * sizeof *c->cmp.values);
        for (size_t i = 0; i < e->cmp.n_values; i++) {
            expr_const_clone(&c->cmp.values[i], &e->cmp.values[i]);
        }
        break;
    case EXPR_T_AND:
    case EXPR_T_OR:
    case EXPR_T_NOT:
        LIST_FOR_EACH (sub, node, &e->subs) {
            expr_add_sub(c, expr_clone(sub));
        }
        break;
    case EXPR_T_BOOLEAN:
        c->boolean = e->boolean;
        break;
    case EXPR_T_CONDITION:
        c->cond.lport = xstrdup(e->cond.lport);
        c->cond.negated = e->cond.negated;
        break;
    }
    return c;
}

void
expr_destroy(struct expr *e)
{
    struct expr *sub;

    if (!e) {
        return;
    }
    switch (e->type) {
    case EXPR_T_CMP:
        for (size_t i = 0; i < e->cmp.n_values; i++) {
            expr_const_destroy(&e->cmp.values[i]);
        }
        free(e->cmp.values);
        free(e->cmp.ref_name);
        break;
    case EXPR_T_AND:
    case EXPR_T_OR:
    case EXPR_T_NOT:
        LIST_FOR_EACH_POP (sub, node, &e->subs) {
            expr_destroy(sub);
        }
        break;
    case EXPR_T_BOOLEAN:
        break;
    case EXPR_T_CONDITION:
        free(e->cond.lport);
        break;
    }
    free(e);
}

/* Formatting. */

static int
symbol_width(const struct symtab_symbol *sym)
{
    return sym->kind == SYMTAB_PREDICATE ? 1 : sym->width;
}

static void
format_cmp(const struct expr_cmp *cmp, struct ds *s)
{
    const struct symtab_symbol *sym = cmp->symbol;
    bool full = cmp->ofs == 0 && cmp->n_bits == symbol_width(sym);

    /* One-bit tests print as "x" or "!x", as do implicit tests of wider
     * fields (to keep them implicit). */
    if (cmp->implicit) {
        ds_put_cstr(s, cmp->relop == EXPR_R_NE ? "" : "!");
        ds_put_cstr(s, sym->name);
        if (!full) {
            ds_put_format(s, "[%d..%d]", cmp->ofs,
                          cmp->ofs + cmp->n_bits - 1);
        }
        return;
    }
    if (!sym->is_string && cmp->n_bits == 1 && cmp->n_values == 1
        && !cmp->is_set && !cmp->values[0].masked
        && (cmp->relop == EXPR_R_EQ || cmp->relop == EXPR_R_NE)
        && cmp->values[0].value.u64.lo <= 1 && !cmp->values[0].value.u64.hi) {
        bool positive = (cmp->values[0].value.u64.lo == 1)
                        == (cmp->relop == EXPR_R_EQ);
        if (!positive) {
            ds_put_char(s, '!');
        }
        ds_put_cstr(s, sym->name);
        if (!full) {
            ds_put_format(s, "[%d]", cmp->ofs);
        }
        return;
    }

    ds_put_cstr(s, sym->name);
    if (!full) {
        if (cmp->n_bits == 1) {
            ds_put_format(s, "[%d]", cmp->ofs);
        } else {
            ds_put_format(s, "[%d..%d]", cmp->ofs,
                          cmp->ofs + cmp->n_bits - 1);
        }
    }
    ds_put_format(s, " %s ", expr_relop_to_string(cmp->relop));
    if (cmp->ref_name) {
        ds_put_format(s, "%c%s", sym->is_string ? '@' : '$', cmp->ref_name);
    } else if (cmp->is_set || cmp->n_values != 1) {
        ds_put_char(s, '{');
        for (size_t i = 0; i < cmp->n_values; i++) {
            if (i) {
                ds_put_cstr(s, ", ");
            }
            expr_const_format(&cmp->values[i], s);
        }
        ds_put_char(s, '}');
    } else {
        expr_const_format(&cmp->values[0], s);
    }
}

static void
format_expr(const struct expr *e, struct ds *s, enum expr_type context)
{
    const struct expr *sub;

    switch (e->type) {
    case EXPR_T_CMP:
        format_cmp(&e->cmp, s);
        break;
    case EXPR_T_BOOLEAN:
        ds_put_char(s, e->boolean ? '1' : '0');
        break;
    case EXPR_T_CONDITION:
        ds_put_format(s, "%sis_chassis_resident(",
                      e->cond.negated ? "!" : "");
        format_quoted(e->cond.lport, s);
        ds_put_char(s, ')');
        break;
    case EXPR_T_NOT:
        LIST_FOR_EACH (sub, node, &e->subs) {
            /* "!x" for a bare one-bit test, "!(...)" otherwise. */
            struct ds inner = DS_EMPTY_INITIALIZER;
            format_expr(sub, &inner, EXPR_T_NOT);
            if ((sub->type == EXPR_T_CONDITION && !sub->cond.negated)
                || (sub->type == EXPR_T_CMP && !strchr(ds_cstr(&inner), ' ')
                    && inner.string[0] != '!')) {
                ds_put_format(s, "!%s", ds_cstr(&inner));
            } else {
                ds_put_format(s, "!(%s)", ds_cstr(&inner));
            }
            ds_destroy(&inner);
        }
        break;
    case EXPR_T_AND:
    case EXPR_T_OR: {
        if (ovs_list_is_singleton(&e->subs)) {
            format_expr(CONTAINER_OF(ovs_list_front(&e->subs), struct expr,
                                     node), s, context);
            break;
        }
        bool paren = context != EXPR_T_NOT && context != e->type;
        bool first = true;
        if (paren) {
            ds_put_char(s, '(');
        }
        LIST_FOR_EACH (sub, node, &e->subs) {
            if (!first) {
                ds_put_cstr(s, e->type == EXPR_T_AND ? " && " : " || ");
            }
            first = false;
            format_expr(sub, s, e->type);
        }
        if (paren) {
            ds_put_char(s, ')');
        }
        break;
    }
    }
}

/* Appends 'e' to 's' as a match that parses back to the same tree. */
void
expr_format(const struct expr *e, struct ds *s)
{
    format_expr(e, s, EXPR_T_NOT);
}

char *
expr_to_string(const struct expr *e)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    expr_format(e, &s);
    return ds_steal_cstr(&s);
}

/* Parsing. */

struct parse_ctx {
    struct lexer *lexer;
    const struct symtab *symtab;
    const struct expr_refs *refs;
    char *error;
    int depth;
    int max_depth;              /* Most nested parentheses allowed. */
    bool check_only;            /* Only to validate: the tree need not
                                 * hold the members of "$x" and "@x". */
    bool summary_failed;        /* 'error' is that a summary of a set was
                                 * not enough. */
};

static struct expr *parse_or_and(struct parse_ctx *);

static void
set_error(struct parse_ctx *ctx, char *error)
{
    if (!ctx->error) {
        ctx->error = error;
    } else {
        free(error);
    }
}

static void
syntax_error(struct parse_ctx *ctx, const char *expecting)
{
    set_error(ctx, lex_syntax_error(ctx->lexer, expecting));
}

static bool
token_is_constant(const struct lex_token *t)
{
    return (t->type == LEX_T_INTEGER || t->type == LEX_T_MASKED_INTEGER
            || t->type == LEX_T_STRING);
}

/* Width in bits that constant 'c' needs.  Addresses count at their full
 * width however they are written, as ovn-controller does. */
/* The width ovn-controller 23.03 gives a constant when it checks that it
 * fits a field: a masked constant is as wide as its mask, whatever its
 * format ("::1:0/::1:0" is 17 bits, "::/0" fits any field); otherwise an
 * address counts as wide as its kind and an integer by its value (tested
 * against stock ovn-trace in tests/limits.at). */
static int
const_width(const struct expr_const *c)
{
    if (c->masked) {
        return MAX(lex_u128_n_bits(c->mask), 1);
    }
    switch (c->format) {
    case LEX_F_IPV4: return 32;
    case LEX_F_IPV6: return 128;
    case LEX_F_ETHERNET: return 48;
    case LEX_F_DECIMAL:
    case LEX_F_HEX:
        break;
    }
    return MAX(lex_u128_n_bits(c->value), 1);
}

/* Checks that constant 'c', written at byte 'pos', may be compared with
 * 'cmp', and trims it to the compared bits.  Returns false after setting
 * an error if not. */
static bool
check_const(struct parse_ctx *ctx, struct expr_cmp *cmp,
            struct expr_const *c, size_t pos)
{
    const struct symtab_symbol *sym = cmp->symbol;

    if (sym->is_string && !c->string) {
        set_error(ctx, lex_error_at(ctx->lexer, pos, "string field %s "
                                    "cannot be compared with an integer",
                                    sym->name));
        return false;
    } else if (!sym->is_string && c->string) {
        set_error(ctx, lex_error_at(ctx->lexer, pos, "integer field %s "
                                    "cannot be compared with a string",
                                    sym->name));
        return false;
    } else if (c->string) {
        return true;
    }

    int cw = const_width(c);
    if (cw > symbol_width(sym)) {
        struct ds v = DS_EMPTY_INITIALIZER;
        expr_const_format(c, &v);
        set_error(ctx, lex_error_at(ctx->lexer, pos, "%d-bit constant %s "
                                    "does not fit in %d-bit %s %s",
                                    cw, ds_cstr(&v), symbol_width(sym),
                                    (sym->kind == SYMTAB_PREDICATE
                                     ? "predicate" : "field"),
                                    sym->name));
        ds_destroy(&v);
        return false;
    }
    ovs_u128 ones = lex_u128_ones(cmp->n_bits);
    c->mask = lex_u128_and(c->mask, ones);
    c->value = lex_u128_and(c->value, c->mask);
    if (c->masked && lex_u128_eq(c->mask, ones)) {
        c->masked = false;
    }
    return true;
}

/* Appends the members of the set named by the current token ($x or @x)
 * to 'cmp'. */
static bool
parse_ref(struct parse_ctx *ctx, struct expr_cmp *cmp)
{
    const struct lex_token *t = &ctx->lexer->token;
    bool is_as = t->type == LEX_T_ADDRSET;
    const struct shash *sets = (!ctx->refs ? NULL
                                : is_as ? &ctx->refs->addr_sets
                                : &ctx->refs->port_groups);
    const struct expr_const_set *set = sets ? shash_find_data(sets, t->s)
                                            : NULL;

    if (!set) {
        set_error(ctx, lex_error(ctx->lexer, "%s \"%s\" does not exist",
                                 is_as ? "address set" : "port group",
                                 t->s));
        return false;
    }
    if (is_as && cmp->symbol->is_string) {
        set_error(ctx, lex_error(ctx->lexer, "address set $%s holds "
                                 "addresses, which string field %s cannot "
                                 "be compared with", t->s,
                                 cmp->symbol->name));
        return false;
    } else if (!is_as && !cmp->symbol->is_string) {
        set_error(ctx, lex_error(ctx->lexer, "port group @%s holds port "
                                 "names, which integer field %s cannot be "
                                 "compared with", t->s, cmp->symbol->name));
        return false;
    }
    if (ctx->check_only && cmp->symbol->kind != SYMTAB_PREDICATE
        && (set->is_string || set->max_width <= symbol_width(cmp->symbol))) {
        /* Every member fits: validation needs no copies.  (Otherwise the
         * loop below finds the member to blame.) */
        return true;
    }
    if (set->summary) {
        ctx->summary_failed |= !ctx->error;
        set_error(ctx, lex_error(ctx->lexer, "address set $%s was added "
                                 "without its addresses", t->s));
        return false;
    }
    for (size_t i = 0; i < set->n; i++) {
        struct expr_const c;
        expr_const_clone(&c, &set->values[i]);
        bool ok = check_const(ctx, cmp, &c, t->ofs);
        if (ok) {
            cmp_add_value(cmp, &c);
        }
        expr_const_destroy(&c);
        if (!ok) {
            return false;
        }
    }
    return true;
}

/* Parses one constant, "$set" or "@group" into 'cmp'. */
static bool
parse_value(struct parse_ctx *ctx, struct expr_cmp *cmp)
{
    const struct lex_token *t = &ctx->lexer->token;

    if (t->type == LEX_T_ADDRSET || t->type == LEX_T_PORTGROUP) {
        cmp->is_set = true;
        if (!parse_ref(ctx, cmp)) {
            return false;
        }
    } else if (token_is_constant(t)) {
        struct expr_const c;
        const_from_token(&c, t);
        bool ok = check_const(ctx, cmp, &c, t->ofs);
        if (ok) {
            cmp_add_value(cmp, &c);
        }
        expr_const_destroy(&c);
        if (!ok) {
            return false;
        }
    } else {
        syntax_error(ctx, "a constant");
        return false;
    }
    lex_next(ctx->lexer);
    return true;
}

/* Parses the right side of a comparison: a value or a set of them. */
static bool
parse_rhs(struct parse_ctx *ctx, struct expr_cmp *cmp)
{
    const struct lex_token *t = &ctx->lexer->token;

    if (t->type == LEX_T_ADDRSET || t->type == LEX_T_PORTGROUP) {
        char *name = xstrdup(t->s);
        if (!parse_value(ctx, cmp)) {
            free(name);
            return false;
        }
        cmp->ref_name = name;
        return true;
    }
    if (!lex_accept(ctx->lexer, LEX_T_LCURLY)) {
        return parse_value(ctx, cmp);
    }
    cmp->is_set = true;
    do {
        if (!parse_value(ctx, cmp)) {
            return false;
        }
        lex_accept(ctx->lexer, LEX_T_COMMA);
    } while (!lex_accept(ctx->lexer, LEX_T_RCURLY));
    return true;
}

/* Checks the operator of a completed comparison. */
static bool
check_relop(struct parse_ctx *ctx, const struct expr_cmp *cmp, size_t pos)
{
    const struct symtab_symbol *sym = cmp->symbol;

    if (cmp->relop == EXPR_R_EQ || cmp->relop == EXPR_R_NE) {
        return true;
    }
    const char *rel = expr_relop_to_string(cmp->relop);
    if (sym->nominal) {
        set_error(ctx, lex_error_at(ctx->lexer, pos, "only == and != can be "
                                    "used with nominal %s %s, not %s",
                                    (sym->is_string ? "string field"
                                     : sym->kind == SYMTAB_PREDICATE
                                     ? "predicate" : "field"),
                                    sym->name, rel));
    } else if (cmp->is_set) {
        set_error(ctx, lex_error_at(ctx->lexer, pos, "only == and != can be "
                                    "used with a set of values, not %s",
                                    rel));
    } else if (cmp->values[0].masked) {
        set_error(ctx, lex_error_at(ctx->lexer, pos, "only == and != can be "
                                    "used with a masked constant, not %s "
                                    "(compare a subfield instead, e.g. "
                                    "reg0[0..7] > 3)", rel));
    } else {
        return true;
    }
    return false;
}

/* Parses a field name with optional "[lo..hi]" into a new comparison
 * with no values yet. */
static struct expr *
parse_field(struct parse_ctx *ctx)
{
    struct lexer *lexer = ctx->lexer;
    size_t pos = lexer->token.ofs;
    const struct symtab_symbol *sym = symtab_find(ctx->symtab,
                                                  lexer->token.s);
    if (!sym) {
        set_error(ctx, lex_error(lexer, "unknown field \"%s\"",
                                 lexer->token.s));
        return NULL;
    }
    lex_next(lexer);

    int ofs = 0, n_bits = symbol_width(sym);
    if (lexer->token.type == LEX_T_LSQUARE) {
        if (sym->is_string || sym->nominal) {
            set_error(ctx, lex_error(lexer, "cannot select a subfield of "
                                     "%s %s",
                                     (sym->is_string ? "string field"
                                      : sym->kind == SYMTAB_PREDICATE
                                      ? "predicate" : "nominal field"),
                                     sym->name));
            return NULL;
        }
        lex_next(lexer);
        if (!lex_token_is_small_int(&lexer->token)) {
            syntax_error(ctx, "a bit index");
            return NULL;
        }
        int lo = lexer->token.value.u64.lo, hi = lo;
        lex_next(lexer);
        if (lex_accept(lexer, LEX_T_ELLIPSIS)) {
            if (!lex_token_is_small_int(&lexer->token)) {
                syntax_error(ctx, "a bit index");
                return NULL;
            }
            hi = lexer->token.value.u64.lo;
            lex_next(lexer);
        }
        if (lexer->token.type != LEX_T_RSQUARE) {
            syntax_error(ctx, "`]'");
            return NULL;
        }
        if (lo > hi) {
            set_error(ctx, lex_error_at(lexer, pos, "invalid bit range "
                                        "%d..%d (the first bit must not be "
                                        "above the last)", lo, hi));
            return NULL;
        } else if (hi >= n_bits) {
            set_error(ctx, lex_error_at(lexer, pos, "cannot select bits "
                                        "%d..%d of %d-bit field %s", lo, hi,
                                        n_bits, sym->name));
            return NULL;
        }
        lex_next(lexer);
        ofs = lo;
        n_bits = hi - lo + 1;
    }
    return create_cmp(sym, ofs, n_bits, pos);
}

static struct expr *
make_bare_test(struct parse_ctx *ctx, struct expr *e)
{
    struct expr_cmp *cmp = &e->cmp;

    if (cmp->symbol->is_string) {
        syntax_error(ctx, "a comparison operator");
        expr_destroy(e);
        return NULL;
    }

    /* A one-bit field or predicate means "x == 1".  A wider field means
     * "x != 0", but annotation accepts that only under "!" (so "!reg0"
     * is "reg0 == 0"), as ovn-controller does. */
    bool wide = cmp->n_bits != 1;
    struct expr_const c = { .value = lex_u128_from_u64(!wide),
                            .mask = lex_u128_ones(cmp->n_bits),
                            .format = LEX_F_DECIMAL };
    cmp->relop = wide ? EXPR_R_NE : EXPR_R_EQ;
    cmp->implicit = wide;
    cmp_add_value(cmp, &c);
    return e;
}

/* field relop rhs, or a bare one-bit field or predicate. */
static struct expr *
parse_field_cmp(struct parse_ctx *ctx)
{
    struct expr *e = parse_field(ctx);
    enum expr_relop relop;

    if (!e) {
        return NULL;
    }
    size_t op_pos = ctx->lexer->token.ofs;
    if (!relop_from_token(ctx->lexer->token.type, &relop)) {
        return make_bare_test(ctx, e);
    }
    lex_next(ctx->lexer);
    e->cmp.relop = relop;
    if (!parse_rhs(ctx, &e->cmp) || !check_relop(ctx, &e->cmp, op_pos)) {
        expr_destroy(e);
        return NULL;
    }
    return e;
}

/* "c relop field" or "c1 relop field relop c2", or a bare 0 or 1. */
static struct expr *
parse_const_first(struct parse_ctx *ctx)
{
    struct lexer *lexer = ctx->lexer;
    struct lex_token c1 = lexer->token;
    enum expr_relop r1, r2;

    if (!relop_from_token(lex_peek(lexer), &r1)) {
        if (c1.type == LEX_T_INTEGER && !c1.value.u64.hi
            && c1.value.u64.lo <= 1
            && (c1.format == LEX_F_DECIMAL || c1.format == LEX_F_HEX)) {
            lex_next(lexer);
            return expr_create_boolean(c1.value.u64.lo);
        }
        lex_next(lexer);
        syntax_error(ctx, "a comparison operator");
        return NULL;
    }

    /* Keep our own copy of the constant token while we move on. */
    c1.s = nullable_xstrdup(c1.s);
    lex_next(lexer);
    size_t op_pos = lexer->token.ofs;
    lex_next(lexer);
    if (lexer->token.type != LEX_T_ID) {
        syntax_error(ctx, "a field name");
        lex_token_destroy(&c1);
        return NULL;
    }
    struct expr *e = parse_field(ctx);
    if (!e) {
        lex_token_destroy(&c1);
        return NULL;
    }

    struct expr_const c;
    const_from_token(&c, &c1);
    lex_token_destroy(&c1);
    e->cmp.relop = relop_swap(r1);
    bool ok = check_const(ctx, &e->cmp, &c, c1.ofs);
    if (ok) {
        cmp_add_value(&e->cmp, &c);
    }
    expr_const_destroy(&c);
    if (!ok || !check_relop(ctx, &e->cmp, op_pos)) {
        expr_destroy(e);
        return NULL;
    }
    if (!relop_from_token(lexer->token.type, &r2)) {
        return e;
    }

    /* A range "c1 < field < c2". */
    bool up = (r1 == EXPR_R_LT || r1 == EXPR_R_LE)
              && (r2 == EXPR_R_LT || r2 == EXPR_R_LE);
    bool down = (r1 == EXPR_R_GT || r1 == EXPR_R_GE)
                && (r2 == EXPR_R_GT || r2 == EXPR_R_GE);
    if (!up && !down) {
        set_error(ctx, lex_error(lexer, "a range must have the form "
                                 "`x < field < y' or `x > field > y' "
                                 "(each `<' or `>' may also be `<=' or "
                                 "`>=')"));
        expr_destroy(e);
        return NULL;
    }
    op_pos = lexer->token.ofs;
    lex_next(lexer);
    struct expr *e2 = create_cmp(e->cmp.symbol, e->cmp.ofs, e->cmp.n_bits,
                                 e->cmp.pos);
    e2->cmp.relop = r2;
    if (!token_is_constant(&lexer->token)) {
        syntax_error(ctx, "a constant");
        expr_destroy(e);
        expr_destroy(e2);
        return NULL;
    }
    if (!parse_value(ctx, &e2->cmp) || !check_relop(ctx, &e2->cmp, op_pos)) {
        expr_destroy(e);
        expr_destroy(e2);
        return NULL;
    }
    struct expr *and = expr_create_andor(EXPR_T_AND);
    expr_add_sub(and, e);
    expr_add_sub(and, e2);
    return and;
}

/* is_chassis_resident("PORT"), the current token being the name. */
static struct expr *
parse_condition(struct parse_ctx *ctx)
{
    struct lexer *lexer = ctx->lexer;

    lex_next(lexer);
    if (!lex_accept(lexer, LEX_T_LPAREN)) {
        syntax_error(ctx, "`('");
        return NULL;
    }
    if (lexer->token.type != LEX_T_STRING) {
        syntax_error(ctx, "a quoted port name");
        return NULL;
    }
    struct expr *e = expr_alloc(EXPR_T_CONDITION);
    e->cond.lport = xstrdup(lexer->token.s);
    lex_next(lexer);
    if (!lex_accept(lexer, LEX_T_RPAREN)) {
        syntax_error(ctx, "`)'");
        expr_destroy(e);
        return NULL;
    }
    return e;
}

static bool
is_condition(const struct lexer *lexer)
{
    return lex_is_id(lexer, "is_chassis_resident");
}

static struct expr *
parse_primary(struct parse_ctx *ctx)
{
    struct lexer *lexer = ctx->lexer;

    if (lexer->token.type == LEX_T_LPAREN) {
        if (++ctx->depth > ctx->max_depth) {
            set_error(ctx, lex_error(lexer, "parentheses nested more than "
                                     "%d deep%s", ctx->max_depth,
                                     (ctx->max_depth == EXPR_ACL_MAX_PAREN_DEPTH
                                      ? " (an ACL's flows enclose its match "
                                        "in one more pair)" : "")));
            return NULL;
        }
        lex_next(lexer);
        struct expr *e = parse_or_and(ctx);
        if (!e) {
            return NULL;
        }
        if (!lex_accept(lexer, LEX_T_RPAREN)) {
            syntax_error(ctx, "`)'");
            expr_destroy(e);
            return NULL;
        }
        ctx->depth--;
        return e;
    } else if (is_condition(lexer)) {
        return parse_condition(ctx);
    } else if (lexer->token.type == LEX_T_ID) {
        return parse_field_cmp(ctx);
    } else if (token_is_constant(&lexer->token)) {
        return parse_const_first(ctx);
    }
    syntax_error(ctx, "a field, a constant or `('");
    return NULL;
}

static struct expr *
parse_not(struct parse_ctx *ctx)
{
    struct lexer *lexer = ctx->lexer;

    if (!lex_accept(lexer, LEX_T_NOT)) {
        return parse_primary(ctx);
    }

    /* "!" applies to a bare field or to a parenthesized expression;
     * "!x == 1" is ambiguous to a reader, so it is rejected. */
    struct expr *sub;
    enum expr_relop relop;
    if (is_condition(lexer)) {
        sub = parse_condition(ctx);
    } else if (lexer->token.type == LEX_T_ID) {
        sub = parse_field(ctx);
        if (!sub) {
            return NULL;
        }
        if (relop_from_token(lexer->token.type, &relop)) {
            set_error(ctx, lex_error(lexer, "the operand of `!' must be "
                                     "parenthesized here, e.g. `!(x == 1)'"));
            expr_destroy(sub);
            return NULL;
        }
        sub = make_bare_test(ctx, sub);
    } else {
        sub = parse_primary(ctx);
    }
    if (!sub) {
        return NULL;
    }
    struct expr *e = expr_alloc(EXPR_T_NOT);
    expr_add_sub(e, sub);
    return e;
}

/* A sequence of operands joined by "&&" or by "||" (not both). */
static struct expr *
parse_or_and(struct parse_ctx *ctx)
{
    struct lexer *lexer = ctx->lexer;
    struct expr *first = parse_not(ctx);
    if (!first) {
        return NULL;
    }

    enum lex_type op = lexer->token.type;
    if (op != LEX_T_AND && op != LEX_T_OR) {
        return first;
    }

    struct expr *e = expr_create_andor(op == LEX_T_AND ? EXPR_T_AND
                                       : EXPR_T_OR);
    expr_add_sub(e, first);
    while (lexer->token.type == LEX_T_AND || lexer->token.type == LEX_T_OR) {
        if (lexer->token.type != op) {
            set_error(ctx, lex_error(lexer, "&& and || must be "
                                     "parenthesized when used together"));
            expr_destroy(e);
            return NULL;
        }
        lex_next(lexer);
        struct expr *sub = parse_not(ctx);
        if (!sub) {
            expr_destroy(e);
            return NULL;
        }
        expr_add_sub(e, sub);
    }
    return e;
}

/* Parses a match from 'lexer', whose current token is its first.  On
 * success stores the tree in '*exprp' and returns NULL; the lexer is then
 * at the first token after the match.  On failure returns an error and
 * stores NULL. */
static char *
parse__(struct lexer *lexer, const struct symtab *symtab,
        const struct expr_refs *refs, bool check_only, int max_depth,
        struct expr **exprp, bool *summary_failed)
{
    struct parse_ctx ctx = { .lexer = lexer, .symtab = symtab,
                             .refs = refs, .check_only = check_only,
                             .max_depth = max_depth };
    struct expr *e = parse_or_and(&ctx);

    if (ctx.error) {
        expr_destroy(e);
        *exprp = NULL;
        if (summary_failed) {
            *summary_failed = ctx.summary_failed;
        }
        return ctx.error;
    }
    *exprp = e;
    return NULL;
}

char *
expr_parse(struct lexer *lexer, const struct symtab *symtab,
           const struct expr_refs *refs, struct expr **exprp)
{
    return parse__(lexer, symtab, refs, false, EXPR_MAX_PAREN_DEPTH, exprp,
                   NULL);
}

static char *
parse_string__(const char *s, const struct symtab *symtab,
               const struct expr_refs *refs, bool check_only, int max_depth,
               struct expr **exprp, bool *summary_failed)
{
    struct lexer lexer;
    char *error;

    lex_init(&lexer, s);
    lex_next(&lexer);
    if (lexer.token.type == LEX_T_END) {
        error = xstrdup("empty match (use 1 to match everything)");
        *exprp = NULL;
    } else {
        error = parse__(&lexer, symtab, refs, check_only, max_depth, exprp,
                        summary_failed);
        if (!error && lexer.token.type != LEX_T_END) {
            error = lex_syntax_error(&lexer, "end of input");
            expr_destroy(*exprp);
            *exprp = NULL;
        }
    }
    lex_destroy(&lexer);
    return error;
}

/* Parses all of 's' as a match. */
char *
expr_parse_string(const char *s, const struct symtab *symtab,
                  const struct expr_refs *refs, struct expr **exprp)
{
    return parse_string__(s, symtab, refs, false, EXPR_MAX_PAREN_DEPTH,
                          exprp, NULL);
}

/* Annotation. */

struct annotate_ctx {
    const struct symtab *symtab;
    int depth;                  /* Nesting of definitions being expanded. */
    size_t outer_pos;           /* When 'depth' > 0, the position of the
                                 * user's term being expanded. */
};

static char *annotate(struct expr *, bool negate, struct annotate_ctx *,
                      struct expr **out);

static char *
annotate_error(const struct annotate_ctx *ctx, size_t pos,
               const char *format, ...)
    OVS_PRINTF_FORMAT(3, 4);

static char *
annotate_error(const struct annotate_ctx *ctx, size_t pos,
               const char *format, ...)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    va_list args;

    va_start(args, format);
    ds_put_format_valist(&s, format, args);
    va_end(args);
    ds_put_format(&s, " (column %"PRIuSIZE")",
                  (ctx->depth ? ctx->outer_pos : pos) + 1);
    return ds_steal_cstr(&s);
}

/* Parses and annotates a definition from the symbol table. */
static char *
annotate_text(const char *text, bool negate, size_t pos,
              struct annotate_ctx *ctx, struct expr **out)
{
    struct expr *e;
    char *error = expr_parse_string(text, ctx->symtab, NULL, &e);

    /* Definitions come from the table, not from users, and the table has
     * no cycles. */
    ovs_assert(!error);
    ovs_assert(ctx->depth < MAX_EXPANSION_DEPTH);
    if (!ctx->depth++) {
        ctx->outer_pos = pos;
    }
    error = annotate(e, negate, ctx, out);
    ctx->depth--;
    return error;
}

/* Expands a test of predicate 'cmp' into its definition. */
static char *
annotate_predicate(struct expr *e, struct annotate_ctx *ctx,
                   struct expr **out)
{
    const struct expr_cmp *cmp = &e->cmp;
    const struct symtab_symbol *sym = cmp->symbol;
    struct expr *result = expr_create_andor(cmp->relop == EXPR_R_EQ
                                            ? EXPR_T_OR : EXPR_T_AND);

    for (size_t i = 0; i < cmp->n_values; i++) {
        const struct expr_const *c = &cmp->values[i];
        bool bit = lex_u128_bit(c->value, 0);
        bool relevant = lex_u128_bit(c->mask, 0);
        bool positive = bit == (cmp->relop == EXPR_R_EQ);
        struct expr *sub;

        if (!positive && sym->nominal) {
            /* Even "ip4 == 0/0", which tests nothing: ovn-controller reads
             * the value, not the mask, to tell a negative test. */
            char *error = annotate_error(
                ctx, cmp->pos, "nominal predicate %s cannot be negated; "
                "test it only as `%s' or `%s == 1' (counting enclosing "
                "`!' operators)", sym->name, sym->name, sym->name);
            expr_destroy(result);
            expr_destroy(e);
            return error;
        }
        if (!relevant) {
            /* "pred == 0/0" tests nothing. */
            sub = expr_create_boolean(cmp->relop == EXPR_R_EQ);
        } else {
            char *error = annotate_text(sym->expansion, !positive, cmp->pos,
                                        ctx, &sub);
            if (error) {
                expr_destroy(result);
                expr_destroy(e);
                return error;
            }
        }
        expr_add_sub(result, sub);
    }
    expr_destroy(e);
    if (ovs_list_is_singleton(&result->subs)) {
        *out = CONTAINER_OF(ovs_list_pop_front(&result->subs), struct expr,
                            node);
        expr_destroy(result);
    } else {
        *out = result;
    }
    return NULL;
}

static char *
annotate_cmp(struct expr *e, struct annotate_ctx *ctx, struct expr **out)
{
    struct expr_cmp *cmp = &e->cmp;
    const struct symtab_symbol *sym = cmp->symbol;

    if (cmp->implicit && cmp->relop == EXPR_R_NE) {
        char *error = annotate_error(
            ctx, cmp->pos, "multibit field %s must be compared explicitly, "
            "e.g. `%s != 0' (only `!%s' may be written bare)",
            sym->name, sym->name, sym->name);
        expr_destroy(e);
        return error;
    }
    if (sym->kind == SYMTAB_PREDICATE) {
        return annotate_predicate(e, ctx, out);
    }
    if (sym->nominal && cmp->relop == EXPR_R_NE) {
        char *error = annotate_error(
            ctx, cmp->pos, "nominal %s %s can only be tested for equality "
            "(`==', counting enclosing `!' operators)",
            sym->is_string ? "string field" : "field", sym->name);
        expr_destroy(e);
        return error;
    }

    /* Collect prerequisites before rewriting the symbol. */
    const char *prereqs[2];
    size_t n_prereqs = 0;
    if (sym->prereqs) {
        prereqs[n_prereqs++] = sym->prereqs;
    }
    if (sym->kind == SYMTAB_SUBFIELD) {
        if (sym->field->prereqs) {
            prereqs[n_prereqs++] = sym->field->prereqs;
        }
        cmp->ofs += sym->ofs;
        cmp->symbol = sym->field;
    }
    if (!n_prereqs) {
        *out = e;
        return NULL;
    }

    struct expr *and = expr_create_andor(EXPR_T_AND);
    for (size_t i = 0; i < n_prereqs; i++) {
        struct expr *p;
        char *error = annotate_text(prereqs[i], false, cmp->pos, ctx, &p);
        if (error) {
            expr_destroy(and);
            expr_destroy(e);
            return error;
        }
        expr_add_sub(and, p);
    }
    expr_add_sub(and, e);
    *out = and;
    return NULL;
}

static char *
annotate(struct expr *e, bool negate, struct annotate_ctx *ctx,
         struct expr **out)
{
    struct expr *sub;

    *out = NULL;
    switch (e->type) {
    case EXPR_T_BOOLEAN:
        e->boolean ^= negate;
        *out = e;
        return NULL;

    case EXPR_T_CONDITION:
        e->cond.negated ^= negate;
        *out = e;
        return NULL;

    case EXPR_T_NOT: {
        sub = CONTAINER_OF(ovs_list_pop_front(&e->subs), struct expr, node);
        free(e);
        return annotate(sub, !negate, ctx, out);
    }

    case EXPR_T_AND:
    case EXPR_T_OR: {
        enum expr_type type = e->type;
        if (negate) {
            type = type == EXPR_T_AND ? EXPR_T_OR : EXPR_T_AND;
        }
        struct expr *result = expr_create_andor(type);
        LIST_FOR_EACH_POP (sub, node, &e->subs) {
            struct expr *a;
            char *error = annotate(sub, negate, ctx, &a);
            if (error) {
                LIST_FOR_EACH_POP (sub, node, &e->subs) {
                    expr_destroy(sub);
                }
                free(e);
                expr_destroy(result);
                return error;
            }
            expr_add_sub(result, a);
        }
        free(e);
        *out = result;
        return NULL;
    }

    case EXPR_T_CMP:
        if (negate) {
            e->cmp.relop = relop_negate(e->cmp.relop);
        }
        return annotate_cmp(e, ctx, out);
    }
    OVS_NOT_REACHED();
}

char *
expr_annotate(struct expr *expr, const struct symtab *symtab,
              struct expr **out)
{
    struct annotate_ctx ctx = { .symtab = symtab };
    return annotate(expr, false, &ctx, out);
}

/* Validation.
 *
 * Annotating builds a whole new tree, re-parsing the definition of every
 * predicate and prerequisite it expands; a validation needs only to know
 * whether that would fail.  Whether a definition annotates cleanly (with
 * or without an enclosing "!") never changes for a symbol table, so it is
 * worked out once.  Only a match that may be invalid goes the full way,
 * so that its error reads exactly as annotation words it. */

struct definition_verdict {
    struct hmap_node node;
    const struct symtab *symtab;
    char *text;
    bool negate;
    bool ok;
};

static struct hmap definition_verdicts
    = HMAP_INITIALIZER(&definition_verdicts);

static bool
definition_ok(const struct symtab *symtab, const char *text, bool negate)
{
    uint32_t hash = hash_string(text, hash_pointer(symtab, negate));
    struct definition_verdict *v;
    HMAP_FOR_EACH_WITH_HASH (v, node, hash, &definition_verdicts) {
        if (v->symtab == symtab && v->negate == negate
            && !strcmp(v->text, text)) {
            return v->ok;
        }
    }

    struct annotate_ctx ctx = { .symtab = symtab };
    struct expr *a;
    char *error = annotate_text(text, negate, 0, &ctx, &a);
    expr_destroy(a);

    v = xmalloc(sizeof *v);
    v->symtab = symtab;
    v->text = xstrdup(text);
    v->negate = negate;
    v->ok = !error;
    free(error);
    hmap_insert(&definition_verdicts, &v->node, hash);
    return v->ok;
}

/* Returns true if annotating 'e' (under 'negate' enclosing "!"s) cannot
 * fail. */
static bool
annotates_cleanly(const struct expr *e, bool negate,
                  const struct symtab *symtab)
{
    switch (e->type) {
    case EXPR_T_BOOLEAN:
    case EXPR_T_CONDITION:
        return true;

    case EXPR_T_NOT: {
        const struct expr *sub = CONTAINER_OF(ovs_list_front(&e->subs),
                                              struct expr, node);
        return annotates_cleanly(sub, !negate, symtab);
    }

    case EXPR_T_AND:
    case EXPR_T_OR: {
        const struct expr *sub;
        LIST_FOR_EACH (sub, node, &e->subs) {
            if (!annotates_cleanly(sub, negate, symtab)) {
                return false;
            }
        }
        return true;
    }

    case EXPR_T_CMP: {
        const struct expr_cmp *cmp = &e->cmp;
        const struct symtab_symbol *sym = cmp->symbol;
        enum expr_relop relop = negate ? relop_negate(cmp->relop)
                                       : cmp->relop;
        if (cmp->implicit && relop == EXPR_R_NE) {
            return false;
        }
        if (sym->kind == SYMTAB_PREDICATE) {
            for (size_t i = 0; i < cmp->n_values; i++) {
                const struct expr_const *c = &cmp->values[i];
                bool positive = (lex_u128_bit(c->value, 0)
                                 == (relop == EXPR_R_EQ));
                if (!positive && sym->nominal) {
                    return false;
                }
                if (lex_u128_bit(c->mask, 0)
                    && !definition_ok(symtab, sym->expansion, !positive)) {
                    return false;
                }
            }
            return true;
        }
        if (sym->nominal && relop == EXPR_R_NE) {
            return false;
        }
        if (sym->prereqs && !definition_ok(symtab, sym->prereqs, false)) {
            return false;
        }
        if (sym->kind == SYMTAB_SUBFIELD && sym->field->prereqs
            && !definition_ok(symtab, sym->field->prereqs, false)) {
            return false;
        }
        return true;
    }
    }
    OVS_NOT_REACHED();
}

char *
expr_validate(const char *match, const struct symtab *symtab,
              const struct expr_refs *refs)
{
    return expr_validate_summaries(match, symtab, refs, EXPR_MAX_PAREN_DEPTH,
                                   NULL);
}

char *
expr_validate_summaries(const char *match, const struct symtab *symtab,
                        const struct expr_refs *refs, int max_depth,
                        bool *summary_failed)
{
    struct expr *e, *a;
    if (summary_failed) {
        *summary_failed = false;
    }
    char *error = parse_string__(match, symtab, refs, true, max_depth, &e,
                                 summary_failed);
    if (error) {
        return error;
    }
    bool clean = annotates_cleanly(e, false, symtab);
    expr_destroy(e);
    if (clean) {
        return NULL;
    }

    /* For the exact error. */
    error = expr_parse_string(match, symtab, refs, &e);
    if (!error) {
        error = expr_annotate(e, symtab, &a);
        expr_destroy(a);
    }
    return error;
}

/* Whether 'c' may stand next to a decimal constant that a validation key
 * classes (see put_key_text()): white space and the punctuation that
 * ends a token.  Anything else ("ip4", "10.0.0.1", "[0..7]", "5/7", an
 * identifier "a5") makes the digits part of something else, or of a
 * constant whose verdict depends on more than its width. */
static bool
key_number_neighbour(char c)
{
    switch (c) {
    case '\0': case ' ': case '\t': case '\n': case '\r': case '\f':
    case '\v': case '(': case ')': case '{': case '}': case ',': case '=':
    case '!': case '<': case '>': case '&': case '|':
        return true;
    default:
        return false;
    }
}

/* Appends to 'key' the text from 'p' to 'end' (a piece of 'match' between
 * references), with each decimal constant that stands alone replaced by
 * all that expr_validate() reads of it: its width in bits, and whether it
 * is zero or all ones for that width ("#w16;", "#0;", "#w8!;").  A
 * constant's verdict is whether it fits the field or predicate it is
 * compared with, so "tcp.dst == 22" and "tcp.dst == 25" share a key.
 * Constants with leading zeros (an error), of 20 digits or more (perhaps
 * too wide), everything inside quotes and everything inside brackets (a
 * bit index is checked against the field's width, which need not be a
 * power of two: "vlan.vid[11]" is valid, "vlan.vid[13]" is not) are kept
 * as they are.  '*brackets' is how many '[' are open, across the pieces
 * of a match.  Returns false for text with a '#' outside quotes (invalid
 * anyway), which could otherwise spell out a class. */
static bool
put_key_text(struct ds *key, const char *match, const char *p,
             const char *end, int *brackets)
{
    /* Most of a match is plain text: find what is not in one pass over
     * a table (strcspn() would build its own each call). */
    static const uint8_t special[256] = {
        ['"'] = 1, ['#'] = 1, ['['] = 1, [']'] = 1,
        ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1,
        ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
    };
    while (p < end) {
        /* Digits after a character that is not a number's neighbour
         * ("ip4", "pg_a5") are kept as they are below: they stay in the
         * run, which saves a copy per identifier. */
        const char *q = p;
        while (q < end
               && (!special[(unsigned char) *q]
                   || (*q >= '0' && *q <= '9' && q > match
                       && !key_number_neighbour(q[-1])))) {
            q++;
        }
        ds_put_buffer(key, p, q - p);
        p = q;
        if (p >= end) {
            break;
        } else if (*p == '#') {
            return false;
        } else if (*p == '[' || *p == ']') {
            *brackets += *p == '[' ? 1 : -1;
            ds_put_char(key, *p++);
            continue;
        } else if (*p == '"') {
            /* lex_find_ref() found the string terminated, escapes and
             * all, before 'end'. */
            for (q = p + 1; *q != '"'; q++) {
                if (!*q || (*q == '\\' && !*++q)) {
                    return false;
                }
            }
            ds_put_buffer(key, p, q + 1 - p);
            p = q + 1;
            continue;
        }

        uint64_t v = 0;
        size_t len = 0;
        for (; p[len] >= '0' && p[len] <= '9'; len++) {
            v = v * 10 + (p[len] - '0');    /* Used only if len < 20. */
        }
        /* The run above stops at a digit only after a neighbour (or at
         * the start of the match). */
        if (*brackets
            || !key_number_neighbour(p[len])
            || (len > 1 && *p == '0') || len >= 20) {
            ds_put_buffer(key, p, len);
        } else if (!v) {
            ds_put_cstr(key, "#0;");
        } else {
            int w = 64 - raw_clz64(v);
            ds_put_cstr(key, "#w");
            decimal_put(key, w);
            ds_put_cstr(key, !(v & (v + 1)) ? "!;" : ";");
        }
        p += len;
    }
    return true;
}

bool
expr_validation_key(const char *match, const struct expr_refs *refs,
                    struct ds *key)
{
    ds_clear(key);
    struct lex_ref ref;
    const char *p = match;
    int brackets = 0;
    for (;;) {
        enum lex_ref_scan scan = lex_find_ref(p, &ref);
        if (scan == LEX_REF_NONE) {
            return put_key_text(key, match, p, p + strlen(p), &brackets);
        } else if (scan == LEX_REF_UNSURE) {
            return false;
        }

        /* The text up to the sigil, then what parse_ref() reads of the set
         * in place of its name: whether it exists, its kind, and for an
         * address set the widest member.  Each ends in ';', which a name
         * cannot hold, so no two matches share a key by accident. */
        if (!put_key_text(key, match, p, ref.sigil, &brackets)) {
            return false;
        }
        ds_put_char(key, *ref.sigil);
        const struct shash *sets = (*ref.sigil == '$' ? &refs->addr_sets
                                    : &refs->port_groups);
        const struct shash_node *node = shash_find_len(sets, ref.sigil + 1,
                                                       ref.len);
        const struct expr_const_set *set = node ? node->data : NULL;
        if (!set) {
            ds_put_cstr(key, "-;");
        } else if (set->is_string) {
            ds_put_cstr(key, "s;");
        } else if (set->summary) {
            ds_put_char(key, 'w');
            decimal_put(key, set->max_width);
            ds_put_char(key, ';');
        } else {
            /* Compared with a predicate, each member would be checked:
             * its verdict depends on more than the width. */
            return false;
        }
        p = ref.sigil + 1 + ref.len;
    }
}

/* Normalization. */

struct sort_item {
    struct expr *e;
    char *key;
};

static int
compare_items(const void *a_, const void *b_)
{
    const struct sort_item *a = a_, *b = b_;
    return strcmp(a->key, b->key);
}

struct expr *
expr_normalize(struct expr *e)
{
    struct expr *sub;

    switch (e->type) {
    case EXPR_T_BOOLEAN:
    case EXPR_T_CONDITION:
        return e;

    case EXPR_T_CMP:
        if (e->cmp.n_values == 0) {
            bool b = e->cmp.relop == EXPR_R_NE;
            expr_destroy(e);
            return expr_create_boolean(b);
        }
        return e;

    case EXPR_T_NOT:
        sub = expr_normalize(CONTAINER_OF(ovs_list_pop_front(&e->subs),
                                          struct expr, node));
        if (sub->type == EXPR_T_BOOLEAN) {
            sub->boolean = !sub->boolean;
            free(e);
            return sub;
        }
        expr_add_sub(e, sub);
        return e;

    case EXPR_T_AND:
    case EXPR_T_OR:
        break;
    }

    /* "&&" is false if any operand is; "||" is true if any operand is. */
    bool absorbing = e->type == EXPR_T_OR;
    struct ovs_list pending;
    size_t n = 0, cap = 0;
    struct sort_item *items = NULL;

    ovs_list_move(&pending, &e->subs);
    ovs_list_init(&e->subs);
    while (!ovs_list_is_empty(&pending)) {
        sub = expr_normalize(CONTAINER_OF(ovs_list_pop_front(&pending),
                                          struct expr, node));
        if (sub->type == e->type) {
            /* Flatten: its operands become ours. */
            struct expr *subsub;
            LIST_FOR_EACH_POP (subsub, node, &sub->subs) {
                if (n >= cap) {
                    items = x2nrealloc(items, &cap, sizeof *items);
                }
                items[n].e = subsub;
                items[n++].key = expr_to_string(subsub);
            }
            free(sub);
            continue;
        }
        if (sub->type == EXPR_T_BOOLEAN) {
            if (sub->boolean == absorbing) {
                expr_destroy(sub);
                for (size_t i = 0; i < n; i++) {
                    expr_destroy(items[i].e);
                    free(items[i].key);
                }
                free(items);
                LIST_FOR_EACH_POP (sub, node, &pending) {
                    expr_destroy(sub);
                }
                free(e);
                return expr_create_boolean(absorbing);
            }
            expr_destroy(sub);
            continue;
        }
        if (n >= cap) {
            items = x2nrealloc(items, &cap, sizeof *items);
        }
        items[n].e = sub;
        items[n++].key = expr_to_string(sub);
    }

    if (n) {
        qsort(items, n, sizeof *items, compare_items);
    }
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (kept && !strcmp(items[kept - 1].key, items[i].key)) {
            expr_destroy(items[i].e);
            free(items[i].key);
        } else {
            items[kept++] = items[i];
        }
    }

    /* Absorption: in "a && (a || b)" the "||" adds nothing, and likewise
     * "a || (a && b)" is just "a". */
    size_t kept2 = 0;
    for (size_t i = 0; i < kept; i++) {
        bool absorbed = false;
        if (items[i].e->type != EXPR_T_CMP
            && items[i].e->type != EXPR_T_BOOLEAN
            && items[i].e->type != EXPR_T_CONDITION) {
            LIST_FOR_EACH (sub, node, &items[i].e->subs) {
                char *key = expr_to_string(sub);
                for (size_t j = 0; j < kept && !absorbed; j++) {
                    absorbed = j != i && !strcmp(key, items[j].key);
                }
                free(key);
                if (absorbed) {
                    break;
                }
            }
        }
        if (absorbed) {
            /* Its key stays until the end: a later operand may be
             * absorbed by this one (which implies what absorbed it). */
            expr_destroy(items[i].e);
            items[i].e = NULL;
        }
    }
    for (size_t i = 0; i < kept; i++) {
        if (items[i].e) {
            items[kept2++] = items[i];
        } else {
            free(items[i].key);
        }
    }
    kept = kept2;

    struct expr *result;
    if (!kept) {
        result = expr_create_boolean(!absorbing);
        free(e);
    } else if (kept == 1) {
        result = items[0].e;
        free(items[0].key);
        free(e);
    } else {
        for (size_t i = 0; i < kept; i++) {
            expr_add_sub(e, items[i].e);
            free(items[i].key);
        }
        result = e;
    }
    free(items);
    return result;
}

/* Microflows and evaluation. */

struct expr_flow_value {
    ovs_u128 value;
    char *string;
};

void
expr_flow_init(struct expr_flow *flow)
{
    shash_init(&flow->fields);
}

void
expr_flow_destroy(struct expr_flow *flow)
{
    if (flow) {
        struct shash_node *node;
        SHASH_FOR_EACH (node, &flow->fields) {
            struct expr_flow_value *v = node->data;
            free(v->string);
            free(v);
        }
        shash_destroy(&flow->fields);
    }
}

void
expr_flow_clone(struct expr_flow *dst, const struct expr_flow *src)
{
    struct shash_node *node;

    shash_init(&dst->fields);
    SHASH_FOR_EACH (node, &src->fields) {
        const struct expr_flow_value *v = node->data;
        struct expr_flow_value *c = xmalloc(sizeof *c);
        c->value = v->value;
        c->string = v->string ? xstrdup(v->string) : NULL;
        shash_add(&dst->fields, node->name, c);
    }
}

static struct expr_flow_value *
flow_value(struct expr_flow *flow, const char *name)
{
    struct expr_flow_value *v = shash_find_data(&flow->fields, name);
    if (!v) {
        v = xzalloc(sizeof *v);
        shash_add(&flow->fields, name, v);
    }
    return v;
}

/* Sets bits [ofs, ofs + n_bits) of 'sym' (a field or subfield) to
 * 'value'. */
void
expr_flow_set(struct expr_flow *flow, const struct symtab_symbol *sym,
              int ofs, int n_bits, ovs_u128 value)
{
    ovs_assert(sym->kind != SYMTAB_PREDICATE && !sym->is_string);
    if (sym->kind == SYMTAB_SUBFIELD) {
        ofs += sym->ofs;
        sym = sym->field;
    }

    struct expr_flow_value *v = flow_value(flow, sym->name);
    ovs_u128 bits = lex_u128_shl(lex_u128_ones(n_bits), ofs);
    v->value = lex_u128_or(lex_u128_and(v->value, lex_u128_not(bits)),
                           lex_u128_and(lex_u128_shl(value, ofs), bits));
}

void
expr_flow_set_string(struct expr_flow *flow, const struct symtab_symbol *sym,
                     const char *s)
{
    ovs_assert(sym->is_string);
    struct expr_flow_value *v = flow_value(flow, sym->name);
    free(v->string);
    v->string = xstrdup(s);
}

ovs_u128
expr_flow_get(const struct expr_flow *flow, const struct symtab_symbol *f)
{
    const struct expr_flow_value *v = shash_find_data(&flow->fields,
                                                      f->name);
    return v ? v->value : lex_u128_from_u64(0);
}

const char *
expr_flow_get_string(const struct expr_flow *flow,
                     const struct symtab_symbol *f)
{
    const struct expr_flow_value *v = shash_find_data(&flow->fields,
                                                      f->name);
    return v && v->string ? v->string : "";
}

/* Appends the flow's fields, sorted by name, as "name=value" pairs. */
void
expr_flow_format(const struct expr_flow *flow, struct ds *s)
{
    const struct shash_node **nodes = shash_sort(&flow->fields);
    size_t n = shash_count(&flow->fields);

    for (size_t i = 0; i < n; i++) {
        const struct expr_flow_value *v = nodes[i]->data;
        if (i) {
            ds_put_char(s, ',');
        }
        ds_put_format(s, "%s=", nodes[i]->name);
        if (v->string) {
            format_quoted(v->string, s);
        } else {
            lex_token_format_value(LEX_F_HEX, v->value, s);
        }
    }
    free(nodes);
}

static bool
eval_cmp(const struct expr_cmp *cmp, const struct expr_flow *flow)
{
    const struct symtab_symbol *sym = cmp->symbol;

    ovs_assert(sym->kind == SYMTAB_FIELD);
    if (sym->is_string) {
        const char *s = expr_flow_get_string(flow, sym);
        bool any = false;
        for (size_t i = 0; i < cmp->n_values && !any; i++) {
            any = !strcmp(s, cmp->values[i].string);
        }
        return cmp->relop == EXPR_R_EQ ? any : !any;
    }

    ovs_u128 x = lex_u128_and(lex_u128_shr(expr_flow_get(flow, sym),
                                           cmp->ofs),
                              lex_u128_ones(cmp->n_bits));
    if (cmp->relop == EXPR_R_EQ || cmp->relop == EXPR_R_NE) {
        bool any = false;
        for (size_t i = 0; i < cmp->n_values && !any; i++) {
            const struct expr_const *c = &cmp->values[i];
            any = lex_u128_eq(lex_u128_and(x, c->mask), c->value);
        }
        return cmp->relop == EXPR_R_EQ ? any : !any;
    }

    int r = lex_u128_cmp(x, cmp->values[0].value);
    switch (cmp->relop) {
    case EXPR_R_LT: return r < 0;
    case EXPR_R_LE: return r <= 0;
    case EXPR_R_GT: return r > 0;
    case EXPR_R_GE: return r >= 0;
    case EXPR_R_EQ:
    case EXPR_R_NE:
        break;
    }
    OVS_NOT_REACHED();
}

/* Returns whether 'flow' matches 'e', which must be annotated (only base
 * fields, no predicates). */
bool
expr_evaluate(const struct expr *e, const struct expr_flow *flow)
{
    const struct expr *sub;

    switch (e->type) {
    case EXPR_T_BOOLEAN:
        return e->boolean;
    case EXPR_T_CONDITION:
        return !e->cond.negated;
    case EXPR_T_CMP:
        return eval_cmp(&e->cmp, flow);
    case EXPR_T_NOT:
        LIST_FOR_EACH (sub, node, &e->subs) {
            return !expr_evaluate(sub, flow);
        }
        OVS_NOT_REACHED();
    case EXPR_T_AND:
        LIST_FOR_EACH (sub, node, &e->subs) {
            if (!expr_evaluate(sub, flow)) {
                return false;
            }
        }
        return true;
    case EXPR_T_OR:
        LIST_FOR_EACH (sub, node, &e->subs) {
            if (expr_evaluate(sub, flow)) {
                return true;
            }
        }
        return false;
    }
    OVS_NOT_REACHED();
}

/* Changes 'flow' so that it matches annotated 'e', choosing the first
 * alternative of each "||" that is not yet true.  Only equalities can be
 * made true this way. */
static char *
satisfy(const struct expr *e, struct expr_flow *flow)
{
    const struct expr *sub;

    if (expr_evaluate(e, flow)) {
        return NULL;
    }
    switch (e->type) {
    case EXPR_T_BOOLEAN:
    case EXPR_T_CONDITION:
        return xstrdup("microflow is always false");
    case EXPR_T_AND:
        LIST_FOR_EACH (sub, node, &e->subs) {
            char *error = satisfy(sub, flow);
            if (error) {
                return error;
            }
        }
        return NULL;
    case EXPR_T_OR:
        LIST_FOR_EACH (sub, node, &e->subs) {
            return satisfy(sub, flow);
        }
        return xstrdup("microflow is always false");
    case EXPR_T_CMP: {
        const struct expr_cmp *cmp = &e->cmp;
        if (cmp->relop != EXPR_R_EQ || !cmp->n_values) {
            return xasprintf("microflow can only set fields with == "
                             "(not %s on %s)",
                             expr_relop_to_string(cmp->relop),
                             cmp->symbol->name);
        }
        const struct expr_const *c = &cmp->values[0];
        if (c->string) {
            expr_flow_set_string(flow, cmp->symbol, c->string);
        } else {
            ovs_u128 old = lex_u128_shr(expr_flow_get(flow, cmp->symbol),
                                        cmp->ofs);
            ovs_u128 v = lex_u128_or(lex_u128_and(old,
                                                  lex_u128_not(c->mask)),
                                     c->value);
            expr_flow_set(flow, cmp->symbol, cmp->ofs, cmp->n_bits, v);
        }
        return NULL;
    }
    case EXPR_T_NOT:
        break;
    }
    return xstrdup("microflow must not use `!'");
}

/* Sets the fields of 'flow' from 'microflow', a match such as
 * 'inport == "p1" && ip4.src == 10.0.0.1 && tcp.dst == 80'; prerequisites
 * are filled in (here eth.type = 0x800 and ip.proto = 6). */
char *
expr_flow_parse(struct expr_flow *flow, const char *microflow,
                const struct symtab *symtab)
{
    struct expr *e, *a;
    char *error = expr_parse_string(microflow, symtab, NULL, &e);

    if (error) {
        return error;
    }
    error = expr_annotate(e, symtab, &a);
    if (error) {
        return error;
    }

    /* The user's own terms first, so that prerequisites ("ip" is "ip4 ||
     * ip6") follow what was asked for. */
    if (a->type == EXPR_T_AND) {
        const struct expr *sub;
        LIST_FOR_EACH (sub, node, &a->subs) {
            const struct expr *last = sub;
            if (sub->type == EXPR_T_AND) {
                last = CONTAINER_OF(ovs_list_back(&sub->subs),
                                    struct expr, node);
            }
            if (last->type == EXPR_T_CMP) {
                free(satisfy(last, flow));
            }
        }
    }
    error = satisfy(a, flow);
    if (!error && !expr_evaluate(a, flow)) {
        error = xstrdup("microflow is contradictory");
    }
    expr_destroy(a);
    return error;
}
