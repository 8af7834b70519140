/* Actions of the OVN logical-flow language: see actions.h. */
#include <config.h>

#include "lib/actions.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "lib/dhcp-opts.h"
#include "lib/lex.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/util.h"
#include "util.h"

/* Nested action lists ("clone { ... }", "ct_commit { ... }"): as in
 * ovn-controller 23.03, 31 levels of braces are accepted and 32 refused
 * (tests/limits.at). */
#define MAX_NESTING 31

/* Where a list of actions appears; decides what may be assigned. */
enum context {
    CTX_TOP,                    /* Top level or inside reject { } etc. */
    CTX_CT_COMMIT,              /* Inside ct_commit { }. */
};

struct parse_ctx {
    struct lexer *lexer;
    const struct symtab *symtab;
    char *error;
    int depth;
};

/* Actions that are a bare keyword. */
static const char *const simple_keywords[] = {
    "ct_next", "ct_clear", "ct_commit_nat", "ct_snat_to_vip", "igmp",
    "handle_dhcpv6_reply",
};

/* Actions that go through a NAT zone, with or without an address. */
static const char *const nat_keywords[] = {
    "ct_dnat", "ct_snat", "ct_dnat_in_czone", "ct_snat_in_czone",
};

/* Actions that take a nested list of ordinary actions. */
static const char *const nested_keywords[] = {
    "reject", "tcp_reset", "icmp4", "icmp4_error", "icmp6", "icmp6_error",
    "arp", "nd_na", "nd_na_router", "nd_ns", "clone", "sctp_abort",
};

/* Function-style actions: what they return and what they take. */
enum call_result {
    RESULT_NONE,                /* Used as a statement: "put_fdb(...);". */
    RESULT_BIT,                 /* A flag, stored in a 1-bit field. */
    RESULT_PORT,                /* A port, stored in a string field or a
                                 * 32-bit field. */
};

enum call_arg {
    ARG_PORT,                   /* A string field: inport, outport. */
    ARG_MAC,                    /* A 48-bit field: eth.src, eth.dst, ... */
    ARG_IP4,                    /* A 32-bit field: reg0, ip4.dst, ... */
    ARG_IP6,                    /* A 128-bit field: xxreg0, ip6.src, ... */
    ARG_NAME,                   /* A quoted string: a port's name.  Only
                                 * as the first argument. */
    ARG_LENGTH,                 /* A decimal constant below 2**31. */
};

struct call_def {
    const char *name;
    enum call_result result;
    size_t n_args;
    enum call_arg args[3];
};

static const struct call_def call_defs[] = {
    { "check_in_port_sec", RESULT_BIT, 0, { ARG_PORT } },
    { "check_out_port_sec", RESULT_BIT, 0, { ARG_PORT } },
    { "chk_lb_hairpin", RESULT_BIT, 0, { ARG_PORT } },
    { "chk_lb_hairpin_reply", RESULT_BIT, 0, { ARG_PORT } },
    { "lookup_fdb", RESULT_BIT, 2, { ARG_PORT, ARG_MAC } },
    { "put_fdb", RESULT_NONE, 2, { ARG_PORT, ARG_MAC } },
    { "get_fdb", RESULT_PORT, 1, { ARG_MAC } },
    { "handle_svc_check", RESULT_NONE, 1, { ARG_PORT } },
    { "bind_vport", RESULT_NONE, 2, { ARG_NAME, ARG_PORT } },
    { "dns_lookup", RESULT_BIT, 0, { ARG_PORT } },
    { "chk_lb_aff", RESULT_BIT, 0, { ARG_PORT } },
    { "get_arp", RESULT_NONE, 2, { ARG_PORT, ARG_IP4 } },
    { "get_nd", RESULT_NONE, 2, { ARG_PORT, ARG_IP6 } },
    { "put_arp", RESULT_NONE, 3, { ARG_PORT, ARG_IP4, ARG_MAC } },
    { "put_nd", RESULT_NONE, 3, { ARG_PORT, ARG_IP6, ARG_MAC } },
    { "lookup_arp", RESULT_BIT, 3, { ARG_PORT, ARG_IP4, ARG_MAC } },
    { "lookup_arp_ip", RESULT_BIT, 2, { ARG_PORT, ARG_IP4 } },
    { "lookup_nd", RESULT_BIT, 3, { ARG_PORT, ARG_IP6, ARG_MAC } },
    { "lookup_nd_ip", RESULT_BIT, 2, { ARG_PORT, ARG_IP6 } },
    { "check_pkt_larger", RESULT_BIT, 1, { ARG_LENGTH } },
    { "handle_bfd_msg", RESULT_NONE, 0, { ARG_PORT } },
    { "chk_ecmp_nh_mac", RESULT_BIT, 0, { ARG_PORT } },
    { "chk_ecmp_nh", RESULT_BIT, 0, { ARG_PORT } },
};

/* Actions with named arguments, "keyword(name = value, ...)", as
 * ovn-controller 23.03 has them. */
enum named_kind {
    NAMED_STRING,               /* A quoted string. */
    NAMED_LB_ADDR,              /* A quoted "IP", "IP:PORT", "[IP6]:PORT". */
    NAMED_PROTO,                /* tcp, udp or sctp. */
    NAMED_UINT16,               /* An integer, 0 to 65535. */
    NAMED_BOOL,                 /* true or false. */
};

struct named_arg {
    const char *name;
    enum named_kind kind;
    bool required;
};

struct named_def {
    const char *keyword;
    const struct named_arg *args;
    size_t n_args;
    bool event_first;           /* trigger_event: "event" comes first
                                 * ("meter" may come anywhere). */
    bool ordered;               /* Arguments in the order listed. */
};

static const struct named_arg trigger_event_args[] = {
    { "event", NAMED_STRING, true },
    { "meter", NAMED_STRING, false },
    { "vip", NAMED_LB_ADDR, false },
    { "protocol", NAMED_STRING, false },
    { "load_balancer", NAMED_STRING, false },
};

static const struct named_arg commit_lb_aff_args[] = {
    { "vip", NAMED_LB_ADDR, true },
    { "backend", NAMED_LB_ADDR, true },
    { "proto", NAMED_PROTO, false },
    { "timeout", NAMED_UINT16, true },
};

static const struct named_arg commit_ecmp_nh_args[] = {
    { "ipv6", NAMED_BOOL, true },
    { "proto", NAMED_PROTO, true },
};

static const struct named_def named_defs[] = {
    { "commit_ecmp_nh", commit_ecmp_nh_args, ARRAY_SIZE(commit_ecmp_nh_args),
      false, true },
    { "trigger_event", trigger_event_args, ARRAY_SIZE(trigger_event_args),
      true, false },
    { "commit_lb_aff", commit_lb_aff_args, ARRAY_SIZE(commit_lb_aff_args),
      false, true },
};

static const struct call_def *
find_call(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(call_defs); i++) {
        if (!strcmp(call_defs[i].name, name)) {
            return &call_defs[i];
        }
    }
    return NULL;
}

static const char *const severities[] = {
    "alert", "warning", "notice", "info", "debug",
};

static const char *const verdicts[] = { "allow", "drop", "reject" };

static const char *
find_keyword(const char *const *list, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(list[i], s)) {
            return list[i];
        }
    }
    return NULL;
}

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

static struct action *
action_create(enum action_type type, const char *keyword, size_t pos)
{
    struct action *a = xzalloc(sizeof *a);
    a->type = type;
    a->keyword = keyword;
    a->pos = pos;
    if (type == ACTION_CT_COMMIT || type == ACTION_NESTED) {
        ovs_list_init(&a->nested);
    }
    return a;
}

static void
action_destroy(struct action *a)
{
    switch (a->type) {
    case ACTION_ASSIGN:
        expr_const_destroy(&a->assign.value);
        break;
    case ACTION_CT_COMMIT:
    case ACTION_NESTED:
        actions_destroy(&a->nested);
        break;
    case ACTION_CT_LB:
        for (size_t i = 0; i < a->lb.n_backends; i++) {
            free(a->lb.backends[i]);
        }
        free(a->lb.backends);
        free(a->lb.hash_fields);
        break;
    case ACTION_LOG:
        free(a->log.name);
        free(a->log.meter);
        break;
    case ACTION_PUT_OPTS:
        for (size_t i = 0; i < a->put_opts.n_opts; i++) {
            free(a->put_opts.opts[i].value);
        }
        free(a->put_opts.opts);
        break;
    case ACTION_DROP:
    case ACTION_NEXT:
    case ACTION_OUTPUT:
    case ACTION_EXCHANGE:
    case ACTION_DECREMENT:
    case ACTION_SIMPLE:
    case ACTION_SET_METER:
    case ACTION_SET_QUEUE:
        break;
    case ACTION_CALL:
        free(a->call.name);
        break;
    case ACTION_CT_NAT:
    case ACTION_STACK:
        break;
    case ACTION_SELECT:
        free(a->select.ids);
        free(a->select.weights);
        break;
    case ACTION_NAMED_ARGS:
        for (size_t i = 0; i < a->named.n; i++) {
            free(a->named.values[i]);
        }
        free(a->named.names);
        free(a->named.values);
        break;
    }
    free(a);
}

void
actions_destroy(struct ovs_list *actions)
{
    struct action *a;

    if (actions) {
        LIST_FOR_EACH_POP (a, node, actions) {
            action_destroy(a);
        }
    }
}

/* Fields. */

/* Fills 'f' with field 'sym', whose name is the current token, and the
 * optional "[lo..hi]" subfield after it. */
static bool
parse_field_bits(struct parse_ctx *ctx, const struct symtab_symbol *sym,
                 struct action_field *f)
{
    struct lexer *lexer = ctx->lexer;

    f->symbol = sym;
    f->ofs = 0;
    f->n_bits = sym->width;
    lex_next(lexer);
    if (!lex_accept(lexer, LEX_T_LSQUARE)) {
        return true;
    }
    if (sym->is_string || sym->nominal) {
        set_error(ctx, lex_error(lexer, "cannot select a subfield of %s %s",
                                 sym->is_string ? "string field"
                                 : "nominal field", sym->name));
        return false;
    }
    if (!lex_token_is_small_int(&lexer->token)) {
        syntax_error(ctx, "a bit index");
        return false;
    }
    int lo = lexer->token.value.u64.lo, hi = lo;
    lex_next(lexer);
    if (lex_accept(lexer, LEX_T_ELLIPSIS)) {
        if (!lex_token_is_small_int(&lexer->token)) {
            syntax_error(ctx, "a bit index");
            return false;
        }
        hi = lexer->token.value.u64.lo;
        lex_next(lexer);
    }
    if (lexer->token.type != LEX_T_RSQUARE) {
        syntax_error(ctx, "`]'");
        return false;
    }
    if (lo > hi || hi >= sym->width) {
        set_error(ctx, lex_error(lexer, "cannot select bits %d..%d of "
                                 "%d-bit field %s", lo, hi, sym->width,
                                 sym->name));
        return false;
    }
    lex_next(lexer);
    f->ofs = lo;
    f->n_bits = hi - lo + 1;
    return true;
}

/* Parses a field reference for assignment.  'ctx_kind' decides which
 * fields are writable. */
static bool
parse_lvalue(struct parse_ctx *ctx, enum context where,
             struct action_field *f)
{
    struct lexer *lexer = ctx->lexer;

    if (lexer->token.type != LEX_T_ID) {
        syntax_error(ctx, "a field name");
        return false;
    }
    const struct symtab_symbol *sym = symtab_find(ctx->symtab,
                                                  lexer->token.s);
    if (!sym) {
        set_error(ctx, lex_error(lexer, "unknown field \"%s\"",
                                 lexer->token.s));
        return false;
    } else if (sym->kind == SYMTAB_PREDICATE) {
        set_error(ctx, lex_error(lexer, "predicate %s cannot be assigned "
                                 "or exchanged", sym->name));
        return false;
    }

    bool ok;
    switch (sym->write) {
    case SYMTAB_WR_ANY:
        ok = where == CTX_TOP;
        break;
    case SYMTAB_WR_ICMP:
        /* icmp4.frag_mtu and icmp6.frag_mtu: ovn-controller 23.03 takes
         * them anywhere, even inside ct_commit { }. */
        ok = true;
        break;
    case SYMTAB_WR_CT_COMMIT:
        ok = where == CTX_CT_COMMIT;
        break;
    case SYMTAB_WR_NONE:
    default:
        ok = false;
        break;
    }
    if (!ok) {
        set_error(ctx, lex_error(
                      lexer, "field %s cannot be modified%s", sym->name,
                      (sym->write == SYMTAB_WR_CT_COMMIT
                       ? " outside ct_commit { }"
                       : where == CTX_CT_COMMIT
                       ? " inside ct_commit { } (only ct_mark and "
                         "ct_label can)" : "")));
        return false;
    }

    return parse_field_bits(ctx, sym, f);
}

/* Source of an assignment or exchange: a readable field. */
static bool
parse_rvalue_field(struct parse_ctx *ctx, struct action_field *f)
{
    struct lexer *lexer = ctx->lexer;
    const struct symtab_symbol *sym = symtab_find(ctx->symtab,
                                                  lexer->token.s);
    if (!sym) {
        set_error(ctx, lex_error(lexer, "unknown field \"%s\"",
                                 lexer->token.s));
        return false;
    } else if (sym->kind == SYMTAB_PREDICATE) {
        set_error(ctx, lex_error(lexer, "predicate %s cannot be used as a "
                                 "value", sym->name));
        return false;
    }
    /* Any field may be read, in any context. */
    return parse_field_bits(ctx, sym, f);
}

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

static struct action *parse_call(struct parse_ctx *, const struct call_def *,
                                 const struct action_field *dst, size_t pos);
static struct action *parse_put_opts(struct parse_ctx *,
                                     const struct action_field *dst,
                                     size_t pos);
static struct action *parse_select(struct parse_ctx *,
                                   const struct action_field *dst,
                                   size_t pos);

/* "dst = src", "dst <-> src", "ip.ttl--", "dst = function(...)". */
static struct action *
parse_assignment(struct parse_ctx *ctx, enum context where)
{
    struct lexer *lexer = ctx->lexer;
    size_t pos = lexer->token.ofs;
    struct action_field dst;

    if (!parse_lvalue(ctx, where, &dst)) {
        return NULL;
    }

    if (lexer->token.type == LEX_T_DECREMENT) {
        if (strcmp(dst.symbol->name, "ip.ttl") || dst.n_bits != 8) {
            set_error(ctx, lex_error(lexer, "only ip.ttl can be "
                                     "decremented"));
            return NULL;
        }
        lex_next(lexer);
        struct action *a = action_create(ACTION_DECREMENT, "--", pos);
        a->assign.dst = dst;
        return a;
    }

    if (lexer->token.type == LEX_T_EXCHANGE) {
        lex_next(lexer);
        struct action_field src;
        size_t src_pos = lexer->token.ofs;
        if (!parse_lvalue(ctx, where, &src)) {
            return NULL;
        }
        if (dst.symbol->is_string != src.symbol->is_string
            || dst.n_bits != src.n_bits) {
            set_error(ctx, lex_error_at(lexer, src_pos, "cannot exchange "
                                        "%s with %s: they differ in %s",
                                        dst.symbol->name, src.symbol->name,
                                        (dst.symbol->is_string
                                         != src.symbol->is_string
                                         ? "type" : "width")));
            return NULL;
        }
        struct action *a = action_create(ACTION_EXCHANGE, "<->", pos);
        a->assign.dst = dst;
        a->assign.src = src;
        a->assign.src_is_field = true;
        return a;
    }

    if (!lex_accept(lexer, LEX_T_ASSIGN)) {
        syntax_error(ctx, "`=', `<->' or `--'");
        return NULL;
    }

    const struct lex_token *t = &lexer->token;
    const struct call_def *def;
    if (t->type == LEX_T_ID && (def = find_call(t->s))) {
        return parse_call(ctx, def, &dst, pos);
    }
    if (t->type == LEX_T_ID && (!strcmp(t->s, "put_dhcp_opts")
                                || !strcmp(t->s, "put_dhcpv6_opts")
                                || !strcmp(t->s, "put_nd_ra_opts"))) {
        return parse_put_opts(ctx, &dst, pos);
    }
    if (t->type == LEX_T_ID && !strcmp(t->s, "select")
        && lex_peek(lexer) == LEX_T_LPAREN) {
        return parse_select(ctx, &dst, pos);
    }

    struct action *a = action_create(ACTION_ASSIGN, "=", pos);
    a->assign.dst = dst;
    size_t src_pos = t->ofs;
    if (t->type == LEX_T_ID) {
        a->assign.src_is_field = true;
        if (!parse_rvalue_field(ctx, &a->assign.src)) {
            action_destroy(a);
            return NULL;
        }
        const struct action_field *src = &a->assign.src;
        if (dst.symbol->is_string != src->symbol->is_string) {
            set_error(ctx, lex_error_at(lexer, src_pos, "cannot assign %s "
                                        "field %s to %s field %s",
                                        src->symbol->is_string ? "string"
                                        : "integer", src->symbol->name,
                                        dst.symbol->is_string ? "string"
                                        : "integer", dst.symbol->name));
            action_destroy(a);
            return NULL;
        } else if (dst.n_bits != src->n_bits) {
            set_error(ctx, lex_error_at(lexer, src_pos, "cannot assign a "
                                        "%d-bit value to a %d-bit "
                                        "destination", src->n_bits,
                                        dst.n_bits));
            action_destroy(a);
            return NULL;
        }
        return a;
    }

    if (t->type == LEX_T_STRING) {
        if (!dst.symbol->is_string) {
            set_error(ctx, lex_error(lexer, "integer field %s cannot be "
                                     "assigned a string", dst.symbol->name));
            action_destroy(a);
            return NULL;
        }
        a->assign.value.string = xstrdup(t->s);
    } else if (t->type == LEX_T_INTEGER
               || t->type == LEX_T_MASKED_INTEGER) {
        struct expr_const *c = &a->assign.value;
        if (dst.symbol->is_string) {
            set_error(ctx, lex_error(lexer, "string field %s cannot be "
                                     "assigned an integer",
                                     dst.symbol->name));
            action_destroy(a);
            return NULL;
        }
        c->value = t->value;
        c->masked = t->type == LEX_T_MASKED_INTEGER;
        c->mask = c->masked ? t->mask : lex_u128_ones(128);
        c->format = t->format;
        int cw = const_width(c);
        if (cw > dst.symbol->width) {
            set_error(ctx, lex_error(lexer, "%d-bit constant does not fit "
                                     "in %d-bit field %s", cw,
                                     dst.symbol->width, dst.symbol->name));
            action_destroy(a);
            return NULL;
        }
        ovs_u128 ones = lex_u128_ones(dst.n_bits);
        c->mask = lex_u128_and(c->mask, ones);
        c->value = lex_u128_and(c->value, c->mask);
        if (c->masked && lex_u128_eq(c->mask, ones)) {
            c->masked = false;
        }
    } else {
        syntax_error(ctx, "a constant or a field");
        action_destroy(a);
        return NULL;
    }
    lex_next(lexer);
    return a;
}

/* Specific actions. */

static char *parse_list(struct parse_ctx *, enum context,
                        struct ovs_list *, bool nested);

static struct action *
parse_next(struct parse_ctx *ctx, size_t pos)
{
    struct lexer *lexer = ctx->lexer;
    struct action *a = action_create(ACTION_NEXT, "next", pos);

    a->next.pipeline = ACTION_PIPELINE_DEFAULT;
    a->next.table = -1;
    if (!lex_accept(lexer, LEX_T_LPAREN)) {
        return a;
    }
    if (lex_token_is_small_int(&lexer->token)) {
        a->next.table = lexer->token.value.u64.lo;
        lex_next(lexer);
    } else {
        do {
            if (lex_accept_id(lexer, "pipeline")) {
                if (!lex_accept(lexer, LEX_T_ASSIGN)) {
                    syntax_error(ctx, "`='");
                    goto error;
                }
                if (lex_accept_id(lexer, "ingress")) {
                    a->next.pipeline = ACTION_PIPELINE_INGRESS;
                } else if (lex_accept_id(lexer, "egress")) {
                    a->next.pipeline = ACTION_PIPELINE_EGRESS;
                } else {
                    syntax_error(ctx, "\"ingress\" or \"egress\"");
                    goto error;
                }
            } else if (lex_accept_id(lexer, "table")) {
                if (!lex_accept(lexer, LEX_T_ASSIGN)) {
                    syntax_error(ctx, "`='");
                    goto error;
                }
                if (!lex_token_is_small_int(&lexer->token)) {
                    syntax_error(ctx, "a table number");
                    goto error;
                }
                a->next.table = lexer->token.value.u64.lo;
                lex_next(lexer);
            } else {
                syntax_error(ctx, "\"pipeline\" or \"table\"");
                goto error;
            }
        } while (lex_accept(lexer, LEX_T_COMMA));
    }
    if (a->next.table > ACTIONS_MAX_TABLE) {
        set_error(ctx, lex_error_at(lexer, pos, "\"next\" cannot go beyond "
                                    "table %d", ACTIONS_MAX_TABLE));
        goto error;
    }
    if (!lex_accept(lexer, LEX_T_RPAREN)) {
        syntax_error(ctx, "`)'");
        goto error;
    }
    return a;

error:
    action_destroy(a);
    return NULL;
}

/* One load-balancer backend: IPv4[:port], [IPv6][:port] or IPv6. */
static bool
parse_backend(struct parse_ctx *ctx, struct ds *s)
{
    struct lexer *lexer = ctx->lexer;
    bool bracket = lex_accept(lexer, LEX_T_LSQUARE);
    const struct lex_token *t = &lexer->token;

    if (t->type != LEX_T_INTEGER
        || (t->format != LEX_F_IPV4 && t->format != LEX_F_IPV6)
        || (bracket && t->format != LEX_F_IPV6)) {
        syntax_error(ctx, bracket ? "an IPv6 address" : "an IP address");
        return false;
    }
    bool v6 = t->format == LEX_F_IPV6;
    if (v6) {
        ds_put_char(s, '[');
    }
    lex_token_format(t, s);
    if (v6) {
        ds_put_char(s, ']');
    }
    lex_next(lexer);
    if (bracket && !lex_accept(lexer, LEX_T_RSQUARE)) {
        syntax_error(ctx, "`]'");
        return false;
    }
    if (lex_accept(lexer, LEX_T_COLON)) {
        if (!lex_token_is_small_int(t) || t->value.u64.lo > 65535) {
            syntax_error(ctx, "a port number");
            return false;
        }
        ds_put_format(s, ":%"PRIu64, t->value.u64.lo);
        lex_next(lexer);
    }
    return true;
}

static struct action *
parse_ct_lb(struct parse_ctx *ctx, const char *keyword, size_t pos)
{
    struct lexer *lexer = ctx->lexer;
    struct action *a = action_create(ACTION_CT_LB, keyword, pos);

    if (!lex_accept(lexer, LEX_T_LPAREN)) {
        return a;
    }
    a->lb.has_args = true;
    if (lex_accept(lexer, LEX_T_RPAREN)) {
        return a;
    }
    if (!lex_accept_id(lexer, "backends") || !lex_accept(lexer,
                                                         LEX_T_ASSIGN)) {
        syntax_error(ctx, "\"backends=\"");
        goto error;
    }
    size_t cap = 0;
    while (lexer->token.type != LEX_T_SEMICOLON
           && lexer->token.type != LEX_T_RPAREN) {
        struct ds b = DS_EMPTY_INITIALIZER;
        if (!parse_backend(ctx, &b)) {
            ds_destroy(&b);
            goto error;
        }
        if (a->lb.n_backends >= cap) {
            a->lb.backends = x2nrealloc(a->lb.backends, &cap,
                                        sizeof *a->lb.backends);
        }
        a->lb.backends[a->lb.n_backends++] = ds_steal_cstr(&b);
        lex_accept(lexer, LEX_T_COMMA);
    }
    while (lex_accept(lexer, LEX_T_SEMICOLON)) {
        if (lex_accept_id(lexer, "hash_fields")) {
            if (!lex_accept(lexer, LEX_T_ASSIGN)
                || lexer->token.type != LEX_T_STRING) {
                syntax_error(ctx, "`=' and a quoted list of fields");
                goto error;
            }
            free(a->lb.hash_fields);
            a->lb.hash_fields = xstrdup(lexer->token.s);
            lex_next(lexer);
        } else if (lex_accept_id(lexer, "skip_snat")) {
            a->lb.skip_snat = true;
            break;              /* The flag comes last, and alone. */
        } else if (lex_accept_id(lexer, "force_snat")) {
            a->lb.force_snat = true;
            break;
        } else {
            syntax_error(ctx, "hash_fields, skip_snat or force_snat");
            goto error;
        }
    }
    if (!lex_accept(lexer, LEX_T_RPAREN)) {
        syntax_error(ctx, "`)'");
        goto error;
    }
    return a;

error:
    action_destroy(a);
    return NULL;
}

static struct action *
parse_log(struct parse_ctx *ctx, size_t pos)
{
    struct lexer *lexer = ctx->lexer;
    struct action *a = action_create(ACTION_LOG, "log", pos);
    bool have_verdict = false;

    if (!lex_accept(lexer, LEX_T_LPAREN)) {
        syntax_error(ctx, "`('");
        goto error;
    }
    while (!lex_accept(lexer, LEX_T_RPAREN)) {
        if (lexer->token.type != LEX_T_ID || lex_peek(lexer)
            != LEX_T_ASSIGN) {
            syntax_error(ctx, "name=, severity=, verdict= or meter=");
            goto error;
        }
        char *key = xstrdup(lexer->token.s);
        lex_next(lexer);
        lex_next(lexer);
        const struct lex_token *t = &lexer->token;
        if (!strcmp(key, "name") || !strcmp(key, "meter")) {
            if (t->type != LEX_T_STRING) {
                syntax_error(ctx, "a quoted string");
                free(key);
                goto error;
            }
            char **dst = key[0] == 'n' ? &a->log.name : &a->log.meter;
            free(*dst);
            *dst = xstrdup(t->s);
        } else if (!strcmp(key, "severity")) {
            const char *sev = (t->type == LEX_T_ID
                               ? find_keyword(severities,
                                              ARRAY_SIZE(severities), t->s)
                               : NULL);
            if (!sev) {
                syntax_error(ctx, "a severity (alert, warning, notice, "
                             "info or debug)");
                free(key);
                goto error;
            }
            a->log.severity = sev;
        } else if (!strcmp(key, "verdict")) {
            const char *v = (t->type == LEX_T_ID
                             ? find_keyword(verdicts, ARRAY_SIZE(verdicts),
                                            t->s)
                             : NULL);
            if (!v) {
                syntax_error(ctx, "a verdict (allow, drop or reject)");
                free(key);
                goto error;
            }
            a->log.verdict = (!strcmp(v, "allow") ? ACTION_LOG_ALLOW
                              : !strcmp(v, "drop") ? ACTION_LOG_DROP
                              : ACTION_LOG_REJECT);
            have_verdict = true;
        } else {
            set_error(ctx, lex_error_at(lexer, t->ofs - 1 - strlen(key),
                                        "log() has no option \"%s\"", key));
            free(key);
            goto error;
        }
        free(key);
        lex_next(lexer);
        if (lexer->token.type != LEX_T_RPAREN
            && !lex_accept(lexer, LEX_T_COMMA)) {
            syntax_error(ctx, "`,' or `)'");
            goto error;
        }
    }
    if (!have_verdict) {
        set_error(ctx, lex_error_at(lexer, pos, "log() needs a verdict"));
        goto error;
    }
    return a;

error:
    action_destroy(a);
    return NULL;
}

/* Checks that argument 'f' of 'def', at 'arg_pos', is of kind 'kind'. */
static bool
check_call_arg(struct parse_ctx *ctx, const struct call_def *def,
               enum call_arg kind, const struct action_field *f,
               size_t arg_pos)
{
    const struct symtab_symbol *sym = f->symbol;

    if (kind == ARG_PORT && !sym->is_string) {
        set_error(ctx, lex_error_at(ctx->lexer, arg_pos, "%s() needs a "
                                    "port here (a string field such as "
                                    "inport), not integer field %s",
                                    def->name, sym->name));
        return false;
    }
    int width = (kind == ARG_MAC ? 48 : kind == ARG_IP4 ? 32
                 : kind == ARG_IP6 ? 128 : 0);
    const char *example = (kind == ARG_MAC ? "eth.src"
                           : kind == ARG_IP4 ? "reg0" : "xxreg0");
    if (width && (sym->is_string || f->n_bits != width)) {
        if (sym->is_string) {
            set_error(ctx, lex_error_at(ctx->lexer, arg_pos, "%s() needs "
                                        "a %d-bit field here (such as "
                                        "%s), not string field %s",
                                        def->name, width, example,
                                        sym->name));
        } else {
            set_error(ctx, lex_error_at(ctx->lexer, arg_pos, "%s() needs "
                                        "a %d-bit field here (such as "
                                        "%s), not a %d-bit one",
                                        def->name, width, example,
                                        f->n_bits));
        }
        return false;
    }
    return true;
}

/* Checks that the result of 'def' can be stored in 'dst' (at 'pos'). */
static bool
check_call_result(struct parse_ctx *ctx, const struct call_def *def,
                  const struct action_field *dst, size_t pos)
{
    const struct symtab_symbol *sym = dst->symbol;

    switch (def->result) {
    case RESULT_NONE:
        set_error(ctx, lex_error_at(ctx->lexer, pos, "%s() returns no "
                                    "value, so it cannot be assigned",
                                    def->name));
        return false;
    case RESULT_BIT:
        if (sym->is_string || dst->n_bits != 1) {
            struct ds name = DS_EMPTY_INITIALIZER;
            action_format_field(dst, &name);
            if (sym->is_string) {
                ds_put_cstr(&name, " (a string field)");
            } else {
                ds_put_format(&name, " (%d bits)", dst->n_bits);
            }
            set_error(ctx, lex_error_at(ctx->lexer, pos, "the result of %s() "
                                        "is 1 bit, so it must be stored in "
                                        "a 1-bit field or subfield such as "
                                        "reg0[0], not in %s", def->name,
                                        ds_cstr(&name)));
            ds_destroy(&name);
            return false;
        }
        return true;
    case RESULT_PORT:
        if (!sym->is_string && dst->n_bits != 32) {
            set_error(ctx, lex_error_at(ctx->lexer, pos, "the result of %s() "
                                        "is a port, so it must be stored in "
                                        "a string field such as outport or "
                                        "in a 32-bit field, not a %d-bit "
                                        "one", def->name, dst->n_bits));
            return false;
        }
        return true;
    }
    OVS_NOT_REACHED();
}

/* "name(args)", the current token being "name", for a call of 'def' whose
 * result goes to 'dst' (NULL if it is used as a statement).  'pos' is
 * where the action starts. */
static struct action *
parse_call(struct parse_ctx *ctx, const struct call_def *def,
           const struct action_field *dst, size_t pos)
{
    struct lexer *lexer = ctx->lexer;

    if (dst) {
        if (!check_call_result(ctx, def, dst, pos)) {
            return NULL;
        }
    } else if (def->result != RESULT_NONE) {
        set_error(ctx, lex_error(lexer, "%s() returns a value, which must "
                                 "be assigned to a field, e.g. "
                                 "\"%s = %s(%s);\"", def->name,
                                 def->result == RESULT_BIT ? "reg0[0]"
                                 : "outport", def->name,
                                 def->n_args ? "..." : ""));
        return NULL;
    }
    lex_next(lexer);
    if (!lex_accept(lexer, LEX_T_LPAREN)) {
        syntax_error(ctx, "`('");
        return NULL;
    }

    struct action *a = action_create(ACTION_CALL, def->name, pos);
    if (dst) {
        a->call.has_dst = true;
        a->call.dst = *dst;
    }
    for (size_t i = 0; i < def->n_args; i++) {
        if (i && !lex_accept(lexer, LEX_T_COMMA)) {
            syntax_error(ctx, "`,'");
            goto error;
        }
        size_t arg_pos = lexer->token.ofs;
        if (def->args[i] == ARG_LENGTH) {
            /* ovn-controller 23.03 reads it as an int. */
            const struct lex_token *t = &lexer->token;
            if (t->type != LEX_T_INTEGER || t->format != LEX_F_DECIMAL
                || t->value.u64.hi || t->value.u64.lo > INT32_MAX) {
                syntax_error(ctx, "a length in bytes (0 to 2147483647)");
                goto error;
            }
            a->call.number = t->value.u64.lo;
            lex_next(lexer);
            continue;
        }
        if (def->args[i] == ARG_NAME) {
            if (lexer->token.type != LEX_T_STRING) {
                syntax_error(ctx, "a quoted port name");
                goto error;
            }
            a->call.name = xstrdup(lexer->token.s);
            lex_next(lexer);
            continue;
        }
        if (lexer->token.type != LEX_T_ID) {
            syntax_error(ctx, def->args[i] == ARG_PORT
                         ? "a port field such as inport"
                         : def->args[i] == ARG_MAC
                         ? "a 48-bit field such as eth.src"
                         : def->args[i] == ARG_IP4
                         ? "a 32-bit field such as reg0"
                         : "a 128-bit field such as xxreg0");
            goto error;
        }
        struct action_field *f = &a->call.args[a->call.n_args++];
        if (!parse_rvalue_field(ctx, f)
            || !check_call_arg(ctx, def, def->args[i], f, arg_pos)) {
            goto error;
        }
    }
    if (!lex_accept(lexer, LEX_T_RPAREN)) {
        if (!def->n_args) {
            set_error(ctx, lex_error(lexer, "%s() takes no arguments",
                                     def->name));
        } else {
            syntax_error(ctx, def->n_args > 1 ? "`)' after the last "
                         "argument" : "`)'");
        }
        goto error;
    }
    return a;

error:
    action_destroy(a);
    return NULL;
}

/* "put_dhcp_opts(NAME = VALUE, ...)" or "put_dhcpv6_opts(...)", the
 * current token being the keyword, whose 1-bit result goes to 'dst'. */
static struct action *
parse_put_opts(struct parse_ctx *ctx, const struct action_field *dst,
               size_t pos)
{
    struct lexer *lexer = ctx->lexer;
    bool v6 = !strcmp(lexer->token.s, "put_dhcpv6_opts");
    bool ra = !strcmp(lexer->token.s, "put_nd_ra_opts");
    static const struct call_def v4_def = { "put_dhcp_opts", RESULT_BIT, 0,
                                            { ARG_PORT } };
    static const struct call_def v6_def = { "put_dhcpv6_opts", RESULT_BIT,
                                            0, { ARG_PORT } };
    static const struct call_def ra_def = { "put_nd_ra_opts", RESULT_BIT,
                                            0, { ARG_PORT } };
    const struct call_def *def = ra ? &ra_def : v6 ? &v6_def : &v4_def;
    if (!check_call_result(ctx, def, dst, pos)) {
        return NULL;
    }
    lex_next(lexer);
    if (!lex_accept(lexer, LEX_T_LPAREN)) {
        syntax_error(ctx, "`('");
        return NULL;
    }

    struct action *a = action_create(ACTION_PUT_OPTS, def->name, pos);
    a->put_opts.dst = *dst;
    size_t allocated = 0;
    struct ds value = DS_EMPTY_INITIALIZER;
    bool has_offerip = false;
    bool has_slla = false, has_prefix = false;
    const char *addr_mode = NULL;
    /* Options are separated by commas, or not, as ovn-controller 23.03
     * reads them, and the last may have one. */
    while (!lex_accept(lexer, LEX_T_RPAREN)) {
        const struct dhcp_opt *opt = NULL;
        size_t opt_pos = lexer->token.ofs;
        if (lexer->token.type != LEX_T_ID
            || !(opt = (ra ? nd_ra_opt_find(lexer->token.s)
                        : dhcp_opt_find(v6, lexer->token.s)))) {
            syntax_error(ctx, ra ? "IPv6 ND RA option name"
                         : v6 ? "DHCPv6 option name"
                         : "DHCPv4 option name");
            goto error;
        }
        lex_next(lexer);
        if (!lex_accept(lexer, LEX_T_ASSIGN)) {
            syntax_error(ctx, "`='");
            goto error;
        }
        ds_clear(&value);
        char *error = dhcp_opt_parse_value(lexer, opt, &value);
        if (!error && ra) {
            error = nd_ra_opt_check(opt, ds_cstr(&value));
            if (error) {
                free(error);
                error = lex_error_at(lexer, opt_pos, "invalid value for "
                                     "put_nd_ra_opts() option \"%s\"",
                                     opt->name);
            }
        }
        if (error) {
            set_error(ctx, error);
            goto error;
        }
        if (ra) {
            const char *v = ds_cstr(&value);
            has_slla |= !strcmp(opt->name, "slla");
            has_prefix |= !strcmp(opt->name, "prefix");
            if (!strcmp(opt->name, "addr_mode")) {
                addr_mode = (strstr(v, "dhcpv6_stateful") ? "stateful"
                             : "other");
            }
        }
        if (a->put_opts.n_opts >= allocated) {
            a->put_opts.opts = x2nrealloc(a->put_opts.opts, &allocated,
                                          sizeof *a->put_opts.opts);
        }
        a->put_opts.opts[a->put_opts.n_opts++] = (struct action_dhcp_opt) {
            opt->name, ds_steal_cstr(&value) };
        has_offerip |= !strcmp(opt->name, "offerip");
        lex_accept(lexer, LEX_T_COMMA);
    }
    if (ra && !has_slla) {
        set_error(ctx, lex_error_at(lexer, pos, "put_nd_ra_opts() needs an "
                                    "slla option"));
        goto error;
    } else if (ra && !has_prefix
               && (!addr_mode || strcmp(addr_mode, "stateful"))) {
        set_error(ctx, lex_error_at(lexer, pos, "put_nd_ra_opts() needs a "
                                    "prefix option unless addr_mode is "
                                    "\"dhcpv6_stateful\""));
        goto error;
    } else if (!v6 && !ra && !has_offerip) {
        set_error(ctx, lex_error_at(lexer, pos, "put_dhcp_opts() needs an "
                                    "offerip option"));
        goto error;
    }
    ds_destroy(&value);
    return a;

error:
    ds_destroy(&value);
    action_destroy(a);
    return NULL;
}

/* "select(id[=weight], ...)", the current token being "select", whose
 * result goes to 'dst': at least two ids, each 0 to 65535, weights 1 to
 * 65535, into a writable integer field of at least 16 bits, as
 * ovn-controller 23.03 checks them. */
static struct action *
parse_select(struct parse_ctx *ctx, const struct action_field *dst,
             size_t pos)
{
    struct lexer *lexer = ctx->lexer;

    if (dst->symbol->is_string || dst->n_bits < 16) {
        struct ds name = DS_EMPTY_INITIALIZER;
        action_format_field(dst, &name);
        set_error(ctx, lex_error_at(lexer, pos, "select() needs a field of "
                                    "at least 16 bits for its result, not "
                                    "%s", ds_cstr(&name)));
        ds_destroy(&name);
        return NULL;
    }
    lex_next(lexer);
    lex_next(lexer);            /* "(" */

    struct action *a = action_create(ACTION_SELECT, "select", pos);
    size_t allocated = 0;
    a->select.dst = *dst;
    do {
        const struct lex_token *t = &lexer->token;
        if (t->type != LEX_T_INTEGER || t->format != LEX_F_DECIMAL
            || t->value.u64.hi || t->value.u64.lo > 65535) {
            syntax_error(ctx, "a member id (0 to 65535)");
            goto error;
        }
        if (a->select.n >= allocated) {
            size_t old = allocated;
            a->select.ids = x2nrealloc(a->select.ids, &allocated,
                                       sizeof *a->select.ids);
            allocated = old;
            a->select.weights = x2nrealloc(a->select.weights, &allocated,
                                           sizeof *a->select.weights);
        }
        a->select.ids[a->select.n] = t->value.u64.lo;
        a->select.weights[a->select.n] = 0;
        lex_next(lexer);
        if (lex_accept(lexer, LEX_T_ASSIGN)) {
            if (t->type != LEX_T_INTEGER || t->format != LEX_F_DECIMAL
                || t->value.u64.hi || !t->value.u64.lo
                || t->value.u64.lo > 65535) {
                syntax_error(ctx, "a weight (1 to 65535)");
                goto error;
            }
            a->select.weights[a->select.n] = t->value.u64.lo;
            lex_next(lexer);
        }
        a->select.n++;
    } while (lex_accept(lexer, LEX_T_COMMA));
    if (!lex_accept(lexer, LEX_T_RPAREN)) {
        syntax_error(ctx, "`,' or `)'");
        goto error;
    }
    if (a->select.n < 2) {
        set_error(ctx, lex_error_at(lexer, pos, "select() needs at least "
                                    "two members"));
        goto error;
    }
    return a;

error:
    action_destroy(a);
    return NULL;
}

/* True if the current token is the '-' of a port range: our lexer makes
 * a lone '-' an error token, which a port range reads as a hyphen. */
static bool
at_hyphen(const struct lexer *lexer)
{
    return (lexer->token.type == LEX_T_ERROR && lexer->token.len == 1
            && lexer->input[lexer->token.ofs] == '-');
}

/* A port of a NAT range, stored as ovn-controller 23.03 stores it: the
 * decimal constant cut to 16 bits. */
static bool
parse_nat_port(struct parse_ctx *ctx, uint16_t *port)
{
    const struct lex_token *t = &ctx->lexer->token;
    if (t->type != LEX_T_INTEGER || t->format != LEX_F_DECIMAL) {
        syntax_error(ctx, "a port number");
        return false;
    }
    *port = t->value.u64.lo;
    lex_next(ctx->lexer);
    return true;
}

/* ct_dnat, ct_snat, ct_dnat_in_czone, ct_snat_in_czone: bare, or
 * "(IP)", "(IP,PORT)", "(IP,LOW-HIGH)", with the ports above 0 and HIGH
 * above LOW. */
static struct action *
parse_ct_nat(struct parse_ctx *ctx, const char *keyword, size_t pos)
{
    struct lexer *lexer = ctx->lexer;
    struct action *a = action_create(ACTION_CT_NAT, keyword, pos);

    if (!lex_accept(lexer, LEX_T_LPAREN)) {
        return a;
    }
    const struct lex_token *t = &lexer->token;
    if (t->type != LEX_T_INTEGER
        || (t->format != LEX_F_IPV4 && t->format != LEX_F_IPV6)) {
        syntax_error(ctx, "an IPv4 or IPv6 address");
        goto error;
    }
    a->nat.has_ip = true;
    a->nat.ipv6 = t->format == LEX_F_IPV6;
    a->nat.ip = t->value;
    lex_next(lexer);
    if (lex_accept(lexer, LEX_T_COMMA)) {
        size_t port_pos = lexer->token.ofs;
        if (!parse_nat_port(ctx, &a->nat.port_lo)) {
            goto error;
        }
        if (!a->nat.port_lo) {
            set_error(ctx, lex_error_at(lexer, port_pos, "a NAT port range "
                                        "cannot start at 0 (ports are "
                                        "taken modulo 65536)"));
            goto error;
        }
        if (at_hyphen(lexer)) {
            lex_next(lexer);
            size_t hi_pos = lexer->token.ofs;
            if (!parse_nat_port(ctx, &a->nat.port_hi)) {
                goto error;
            }
            if (a->nat.port_hi <= a->nat.port_lo) {
                set_error(ctx, lex_error_at(lexer, hi_pos, "the end of a NAT "
                                            "port range must be above its "
                                            "start (ports are taken modulo "
                                            "65536)"));
                goto error;
            }
        }
    }
    if (!lex_accept(lexer, LEX_T_RPAREN)) {
        syntax_error(ctx, "`)'");
        goto error;
    }
    return a;

error:
    action_destroy(a);
    return NULL;
}

/* "push(FIELD)" (any field) or "pop(FIELD)" (a field this context may
 * write), the current token being the keyword. */
static struct action *
parse_stack(struct parse_ctx *ctx, enum context where, size_t pos)
{
    struct lexer *lexer = ctx->lexer;
    bool push = lex_is_id(lexer, "push");
    struct action_field f;

    lex_next(lexer);
    if (!lex_accept(lexer, LEX_T_LPAREN)) {
        syntax_error(ctx, "`('");
        return NULL;
    }
    if (lexer->token.type != LEX_T_ID) {
        syntax_error(ctx, "a field name");
        return NULL;
    }
    if (push ? !parse_rvalue_field(ctx, &f) : !parse_lvalue(ctx, where, &f)) {
        return NULL;
    }
    if (!lex_accept(lexer, LEX_T_RPAREN)) {
        syntax_error(ctx, "`)'");
        return NULL;
    }
    struct action *a = action_create(ACTION_STACK, push ? "push" : "pop",
                                     pos);
    a->assign.dst = f;
    return a;
}

/* "keyword { actions }" for ct_commit and the nested actions. */
static struct action *
parse_nested(struct parse_ctx *ctx, enum action_type type,
             const char *keyword, enum context inner, size_t pos)
{
    struct action *a = action_create(type, keyword, pos);

    if (!lex_accept(ctx->lexer, LEX_T_LCURLY)) {
        if (type == ACTION_CT_COMMIT) {
            return a;
        }
        syntax_error(ctx, "`{'");
        action_destroy(a);
        return NULL;
    }
    if (++ctx->depth > MAX_NESTING) {
        set_error(ctx, lex_error(ctx->lexer, "actions nested more than %d "
                                 "deep", MAX_NESTING));
        action_destroy(a);
        return NULL;
    }
    char *error = parse_list(ctx, inner, &a->nested, true);
    ctx->depth--;
    if (error) {
        set_error(ctx, error);
        action_destroy(a);
        return NULL;
    }
    if (!lex_accept(ctx->lexer, LEX_T_RCURLY)) {
        syntax_error(ctx, "`}'");
        action_destroy(a);
        return NULL;
    }
    return a;
}

/* "set_meter(rate[, burst])", the keyword accepted, as QoS rules use it:
 * a rate of at least 1 kbps and an optional burst, each below 2**32. */
static struct action *
parse_set_meter(struct parse_ctx *ctx, size_t pos)
{
    struct lexer *lexer = ctx->lexer;
    struct action *a = action_create(ACTION_SET_METER, "set_meter", pos);
    uint64_t values[2] = { 0, 0 };
    size_t n = 0;

    if (!lex_accept(lexer, LEX_T_LPAREN)) {
        syntax_error(ctx, "`('");
        goto error;
    }
    do {
        const struct lex_token *t = &lexer->token;
        if (t->type != LEX_T_INTEGER || t->format != LEX_F_DECIMAL
            || t->value.u64.hi || t->value.u64.lo > UINT32_MAX
            || (!n && !t->value.u64.lo)) {
            syntax_error(ctx, n ? "a burst in kb (below 2**32)"
                         : "a rate in kbps (1 to 2**32 - 1)");
            goto error;
        }
        values[n++] = t->value.u64.lo;
        lex_next(lexer);
    } while (n < 2 && lex_accept(lexer, LEX_T_COMMA));
    if (!lex_accept(lexer, LEX_T_RPAREN)) {
        syntax_error(ctx, "`)'");
        goto error;
    }
    a->meter.rate = values[0];
    a->meter.burst = values[1];
    return a;

error:
    action_destroy(a);
    return NULL;
}

/* "set_queue(queue_id)", the keyword accepted: a decimal queue number from
 * 0 to ACTIONS_MAX_QUEUE_ID (northd gives ports with QoS options one per
 * chassis, Port_Binding options:qdisc_queue_id). */
static struct action *
parse_set_queue(struct parse_ctx *ctx, size_t pos)
{
    struct lexer *lexer = ctx->lexer;
    if (!lex_accept(lexer, LEX_T_LPAREN)) {
        syntax_error(ctx, "`('");
        return NULL;
    }
    const struct lex_token *t = &lexer->token;
    if (t->type != LEX_T_INTEGER || t->format != LEX_F_DECIMAL
        || t->value.u64.hi || t->value.u64.lo > ACTIONS_MAX_QUEUE_ID) {
        syntax_error(ctx, "a queue number (0 to 61440)");
        return NULL;
    }
    struct action *a = action_create(ACTION_SET_QUEUE, "set_queue", pos);
    a->queue_id = t->value.u64.lo;
    lex_next(lexer);
    if (!lex_accept(lexer, LEX_T_RPAREN)) {
        syntax_error(ctx, "`)'");
        action_destroy(a);
        return NULL;
    }
    return a;
}

static void format_quoted(const char *, struct ds *);

/* True if 's' is "IP", "IP:PORT" or "[IP6]:PORT"; stores its family. */
static bool
is_lb_addr(const char *s, bool *ipv6)
{
    char *copy = xstrdup(s);
    char *addr = copy;
    char *port = NULL;
    bool ok = true;

    if (addr[0] == '[') {
        char *end = strchr(addr, ']');
        ok = end && end[1] == ':';
        if (ok) {
            *end = '\0';
            addr++;
            port = end + 2;
        }
    } else if (strchr(addr, ':') && strchr(addr, ':') == strrchr(addr, ':')) {
        port = strchr(addr, ':');
        *port++ = '\0';
    }
    if (ok && port) {
        char *end;
        long p = strtol(port, &end, 10);
        ok = port[0] && !*end && p >= 0 && p <= 65535;
    }
    struct in6_addr a;
    if (ok) {
        *ipv6 = !inet_pton(AF_INET, addr, &a);
        ok = !*ipv6 || inet_pton(AF_INET6, addr, &a) == 1;
    }
    free(copy);
    return ok;
}

static const struct named_def *
find_named(const char *keyword)
{
    for (size_t i = 0; i < ARRAY_SIZE(named_defs); i++) {
        if (!strcmp(named_defs[i].keyword, keyword)) {
            return &named_defs[i];
        }
    }
    return NULL;
}

/* Parses "(name = value, ...)" after 'def''s keyword. */
static struct action *
parse_named(struct parse_ctx *ctx, const struct named_def *def, size_t pos)
{
    struct lexer *lexer = ctx->lexer;
    struct action *a = action_create(ACTION_NAMED_ARGS, def->keyword, pos);
    unsigned long seen = 0;
    bool vip_ipv6 = false;

    a->named.names = xcalloc(def->n_args, sizeof *a->named.names);
    a->named.values = xcalloc(def->n_args, sizeof *a->named.values);
    if (!lex_accept(lexer, LEX_T_LPAREN)) {
        syntax_error(ctx, "`('");
        goto error;
    }
    while (!lex_accept(lexer, LEX_T_RPAREN)) {
        if (a->named.n && !lex_accept(lexer, LEX_T_COMMA)) {
            syntax_error(ctx, "`,' or `)'");
            goto error;
        }
        const struct named_arg *arg = NULL;
        size_t k = 0;
        if (lexer->token.type == LEX_T_ID) {
            for (k = 0; k < def->n_args; k++) {
                if (!strcmp(def->args[k].name, lexer->token.s)) {
                    arg = &def->args[k];
                    break;
                }
            }
        }
        bool meter = arg && !strcmp(arg->name, "meter");
        if (!arg || (seen & (1UL << k))
            || (def->ordered && seen >> k)
            || (def->event_first && !meter
                && (k == 0) != !(seen & 1))) {
            syntax_error(ctx, def->event_first && !a->named.n
                         ? "\"event\"" : "an argument name");
            goto error;
        }
        lex_next(lexer);
        if (!lex_accept(lexer, LEX_T_ASSIGN)) {
            syntax_error(ctx, "`='");
            goto error;
        }
        const struct lex_token *t = &lexer->token;
        struct ds v = DS_EMPTY_INITIALIZER;
        bool ok;
        bool v6;
        switch (arg->kind) {
        case NAMED_STRING:
        case NAMED_LB_ADDR:
            ok = t->type == LEX_T_STRING;
            if (ok && arg->kind == NAMED_LB_ADDR) {
                ok = is_lb_addr(t->s, &v6);
                /* The backend is of the VIP's family. */
                if (ok && def->ordered && k == 1) {
                    ok = v6 == vip_ipv6;
                } else if (ok) {
                    vip_ipv6 = v6;
                }
            }
            if (ok) {
                format_quoted(t->s, &v);
            }
            break;
        case NAMED_PROTO:
            ok = (t->type == LEX_T_ID
                  && (!strcmp(t->s, "tcp") || !strcmp(t->s, "udp")
                      || !strcmp(t->s, "sctp")));
            if (ok) {
                ds_put_cstr(&v, t->s);
            }
            break;
        case NAMED_BOOL:
            ok = (t->type == LEX_T_ID
                  && (!strcmp(t->s, "true") || !strcmp(t->s, "false")));
            if (ok) {
                ds_put_cstr(&v, t->s);
            }
            break;
        case NAMED_UINT16:
        default:
            ok = lex_token_is_small_int(t) && t->value.u64.lo <= 65535;
            if (ok) {
                ds_put_format(&v, "%"PRIu64, t->value.u64.lo);
            }
            break;
        }
        if (!ok) {
            ds_destroy(&v);
            syntax_error(ctx, arg->kind == NAMED_STRING ? "a quoted string"
                         : arg->kind == NAMED_LB_ADDR
                         ? "a quoted address (of the VIP's family)"
                         : arg->kind == NAMED_PROTO ? "tcp, udp or sctp"
                         : arg->kind == NAMED_BOOL ? "true or false"
                         : "an integer between 0 and 65535");
            goto error;
        }
        if (def->event_first && k == 0
            && strcmp(t->s, "empty_lb_backends")) {
            ds_destroy(&v);
            set_error(ctx, lex_error(lexer, "unknown event \"%s\"", t->s));
            goto error;
        }
        lex_next(lexer);
        seen |= 1UL << k;
        a->named.names[a->named.n] = CONST_CAST(char *, arg->name);
        a->named.values[a->named.n++] = ds_steal_cstr(&v);
    }
    for (size_t k = 0; k < def->n_args; k++) {
        if (def->args[k].required && !(seen & (1UL << k))) {
            set_error(ctx, lex_error_at(lexer, pos, "%s() needs %s",
                                        def->keyword, def->args[k].name));
            goto error;
        }
    }
    return a;

error:
    action_destroy(a);
    return NULL;
}

static struct action *
parse_action(struct parse_ctx *ctx, enum context where)
{
    struct lexer *lexer = ctx->lexer;
    const struct lex_token *t = &lexer->token;
    size_t pos = t->ofs;
    const struct call_def *def;
    const struct named_def *ndef;
    const char *kw;

    if (t->type != LEX_T_ID) {
        syntax_error(ctx, "an action");
        return NULL;
    }

    /* A field name followed by an assignment operator. */
    enum lex_type next = lex_peek(lexer);
    if (next == LEX_T_ASSIGN || next == LEX_T_EXCHANGE
        || next == LEX_T_DECREMENT || next == LEX_T_LSQUARE) {
        return parse_assignment(ctx, where);
    }
    if (lex_accept_id(lexer, "next")) {
        return parse_next(ctx, pos);
    } else if (lex_accept_id(lexer, "output")) {
        return action_create(ACTION_OUTPUT, "output", pos);
    } else if (lex_accept_id(lexer, "ct_commit")) {
        return parse_nested(ctx, ACTION_CT_COMMIT, "ct_commit",
                            CTX_CT_COMMIT, pos);
    } else if (lex_accept_id(lexer, "ct_lb")) {
        return parse_ct_lb(ctx, "ct_lb", pos);
    } else if (lex_accept_id(lexer, "ct_lb_mark")) {
        return parse_ct_lb(ctx, "ct_lb_mark", pos);
    } else if (lex_accept_id(lexer, "log")) {
        return parse_log(ctx, pos);
    } else if (lex_accept_id(lexer, "set_meter")) {
        return parse_set_meter(ctx, pos);
    } else if (lex_accept_id(lexer, "set_queue")) {
        return parse_set_queue(ctx, pos);
    } else if (lex_is_id(lexer, "push") || lex_is_id(lexer, "pop")) {
        return parse_stack(ctx, where, pos);
    } else if ((kw = find_keyword(nat_keywords,
                                  ARRAY_SIZE(nat_keywords), t->s))) {
        lex_next(lexer);
        return parse_ct_nat(ctx, kw, pos);
    } else if ((kw = find_keyword(simple_keywords,
                                  ARRAY_SIZE(simple_keywords), t->s))) {
        lex_next(lexer);
        return action_create(ACTION_SIMPLE, kw, pos);
    } else if ((kw = find_keyword(nested_keywords,
                                  ARRAY_SIZE(nested_keywords), t->s))) {
        lex_next(lexer);
        return parse_nested(ctx, ACTION_NESTED, kw, CTX_TOP, pos);
    } else if ((def = find_call(t->s))) {
        return parse_call(ctx, def, NULL, pos);
    } else if ((ndef = find_named(t->s))) {
        lex_next(lexer);
        return parse_named(ctx, ndef, pos);
    } else if (lex_is_id(lexer, "drop")) {
        set_error(ctx, lex_error(lexer, "\"drop\" must be the only action"));
        return NULL;
    } else if (symtab_find(ctx->symtab, t->s)) {
        lex_next(lexer);
        syntax_error(ctx, "`=', `<->' or `--'");
        return NULL;
    }
    set_error(ctx, lex_error(lexer, "unknown action \"%s\"", t->s));
    return NULL;
}

/* Parses actions up to the end of input (or "}" if 'nested'). */
static char *
parse_list(struct parse_ctx *ctx, enum context where, struct ovs_list *list,
           bool nested)
{
    struct lexer *lexer = ctx->lexer;
    struct parse_ctx sub = { .lexer = lexer, .symtab = ctx->symtab,
                             .depth = ctx->depth };

    ovs_list_init(list);

    /* "drop;" stands alone. */
    if (where == CTX_TOP && lex_is_id(lexer, "drop")
        && lex_peek(lexer) == LEX_T_SEMICOLON) {
        size_t pos = lexer->token.ofs;
        lex_next(lexer);
        lex_next(lexer);
        ovs_list_push_back(list, &action_create(ACTION_DROP, "drop",
                                                pos)->node);
        if (lexer->token.type != (nested ? LEX_T_RCURLY : LEX_T_END)) {
            set_error(&sub, lex_syntax_error(lexer, nested ? "`}'"
                                             : "end of input (\"drop\" must "
                                             "be the only action)"));
        }
    }

    while (!sub.error
           && lexer->token.type != (nested ? LEX_T_RCURLY : LEX_T_END)) {
        struct action *a = parse_action(&sub, where);
        if (!a) {
            break;
        }
        ovs_list_push_back(list, &a->node);
        if (!lex_accept(lexer, LEX_T_SEMICOLON)) {
            syntax_error(&sub, "`;'");
        }
    }
    if (sub.error) {
        actions_destroy(list);
    }
    return sub.error;
}

char *
actions_parse(struct lexer *lexer, const struct symtab *symtab,
              struct ovs_list *actions)
{
    struct parse_ctx ctx = { .lexer = lexer, .symtab = symtab };
    return parse_list(&ctx, CTX_TOP, actions, false);
}

char *
actions_parse_string(const char *s, const struct symtab *symtab,
                     struct ovs_list *actions)
{
    struct lexer lexer;

    lex_init(&lexer, s);
    lex_next(&lexer);
    char *error = actions_parse(&lexer, symtab, actions);
    lex_destroy(&lexer);
    return error;
}

char *
actions_validate(const char *s, const struct symtab *symtab)
{
    struct ovs_list actions;
    char *error = actions_parse_string(s, symtab, &actions);
    actions_destroy(&actions);
    return error;
}

/* Formatting. */

void
action_format_field(const struct action_field *f, struct ds *s)
{
    ds_put_cstr(s, f->symbol->name);
    if (f->ofs || f->n_bits != f->symbol->width) {
        if (f->n_bits == 1) {
            ds_put_format(s, "[%d]", f->ofs);
        } else {
            ds_put_format(s, "[%d..%d]", f->ofs, f->ofs + f->n_bits - 1);
        }
    }
}

static void
format_quoted(const char *str, struct ds *s)
{
    struct expr_const c = { .string = CONST_CAST(char *, str) };
    expr_const_format(&c, s);
}

static void format_list(const struct ovs_list *, struct ds *);

static void
format_action(const struct action *a, struct ds *s)
{
    switch (a->type) {
    case ACTION_DROP:
        ds_put_cstr(s, "drop");
        break;
    case ACTION_NEXT:
        ds_put_cstr(s, "next");
        if (a->next.pipeline != ACTION_PIPELINE_DEFAULT
            || a->next.table >= 0) {
            ds_put_char(s, '(');
            if (a->next.pipeline != ACTION_PIPELINE_DEFAULT) {
                ds_put_format(s, "pipeline=%s",
                              a->next.pipeline == ACTION_PIPELINE_INGRESS
                              ? "ingress" : "egress");
                if (a->next.table >= 0) {
                    ds_put_cstr(s, ", ");
                }
            }
            if (a->next.table >= 0) {
                ds_put_format(s, "table=%d", a->next.table);
            }
            ds_put_char(s, ')');
        }
        break;
    case ACTION_OUTPUT:
        ds_put_cstr(s, "output");
        break;
    case ACTION_ASSIGN:
        action_format_field(&a->assign.dst, s);
        ds_put_cstr(s, " = ");
        if (a->assign.src_is_field) {
            action_format_field(&a->assign.src, s);
        } else {
            expr_const_format(&a->assign.value, s);
        }
        break;
    case ACTION_EXCHANGE:
        action_format_field(&a->assign.dst, s);
        ds_put_cstr(s, " <-> ");
        action_format_field(&a->assign.src, s);
        break;
    case ACTION_DECREMENT:
        action_format_field(&a->assign.dst, s);
        ds_put_cstr(s, "--");
        break;
    case ACTION_SIMPLE:
        ds_put_cstr(s, a->keyword);
        break;
    case ACTION_CT_NAT:
        ds_put_cstr(s, a->keyword);
        if (a->nat.has_ip) {
            ds_put_char(s, '(');
            lex_token_format_value(a->nat.ipv6 ? LEX_F_IPV6 : LEX_F_IPV4,
                                   a->nat.ip, s);
            if (a->nat.port_lo) {
                ds_put_format(s, ",%"PRIu16, a->nat.port_lo);
                if (a->nat.port_hi) {
                    ds_put_format(s, "-%"PRIu16, a->nat.port_hi);
                }
            }
            ds_put_char(s, ')');
        }
        break;
    case ACTION_STACK:
        ds_put_format(s, "%s(", a->keyword);
        action_format_field(&a->assign.dst, s);
        ds_put_char(s, ')');
        break;
    case ACTION_SELECT:
        action_format_field(&a->select.dst, s);
        ds_put_cstr(s, " = select(");
        for (size_t i = 0; i < a->select.n; i++) {
            ds_put_format(s, "%s%"PRIu16, i ? ", " : "", a->select.ids[i]);
            if (a->select.weights[i]) {
                ds_put_format(s, "=%"PRIu16, a->select.weights[i]);
            }
        }
        ds_put_char(s, ')');
        break;
    case ACTION_CT_COMMIT:
    case ACTION_NESTED:
        ds_put_cstr(s, a->keyword);
        if (a->type == ACTION_NESTED || !ovs_list_is_empty(&a->nested)) {
            ds_put_cstr(s, " { ");
            format_list(&a->nested, s);
            ds_put_cstr(s, ovs_list_is_empty(&a->nested) ? "}" : " }");
        }
        break;
    case ACTION_CT_LB:
        ds_put_cstr(s, a->keyword);
        if (a->lb.has_args) {
            ds_put_char(s, '(');
            if (a->lb.n_backends || a->lb.hash_fields || a->lb.skip_snat
                || a->lb.force_snat) {
                ds_put_cstr(s, "backends=");
                for (size_t i = 0; i < a->lb.n_backends; i++) {
                    ds_put_format(s, "%s%s", i ? "," : "",
                                  a->lb.backends[i]);
                }
            }
            if (a->lb.hash_fields) {
                ds_put_cstr(s, "; hash_fields=");
                format_quoted(a->lb.hash_fields, s);
            }
            if (a->lb.skip_snat) {
                ds_put_cstr(s, "; skip_snat");
            }
            if (a->lb.force_snat) {
                ds_put_cstr(s, "; force_snat");
            }
            ds_put_char(s, ')');
        }
        break;
    case ACTION_LOG:
        ds_put_cstr(s, "log(");
        if (a->log.name) {
            ds_put_cstr(s, "name=");
            format_quoted(a->log.name, s);
            ds_put_cstr(s, ", ");
        }
        if (a->log.severity) {
            ds_put_format(s, "severity=%s, ", a->log.severity);
        }
        ds_put_format(s, "verdict=%s", verdicts[a->log.verdict]);
        if (a->log.meter) {
            ds_put_cstr(s, ", meter=");
            format_quoted(a->log.meter, s);
        }
        ds_put_char(s, ')');
        break;
    case ACTION_SET_METER:
        ds_put_format(s, "set_meter(%"PRIu64, a->meter.rate);
        if (a->meter.burst) {
            ds_put_format(s, ", %"PRIu64, a->meter.burst);
        }
        ds_put_char(s, ')');
        break;
    case ACTION_SET_QUEUE:
        ds_put_format(s, "set_queue(%"PRIu32")", a->queue_id);
        break;
    case ACTION_CALL:
        if (a->call.has_dst) {
            action_format_field(&a->call.dst, s);
            ds_put_cstr(s, " = ");
        }
        ds_put_format(s, "%s(", a->keyword);
        if (a->call.name) {
            format_quoted(a->call.name, s);
        }
        if (!strcmp(a->keyword, "check_pkt_larger")) {
            ds_put_format(s, "%"PRIu32, a->call.number);
        }
        for (size_t i = 0; i < a->call.n_args; i++) {
            if (i || a->call.name) {
                ds_put_cstr(s, ", ");
            }
            action_format_field(&a->call.args[i], s);
        }
        ds_put_char(s, ')');
        break;
    case ACTION_NAMED_ARGS:
        ds_put_format(s, "%s(", a->keyword);
        for (size_t i = 0; i < a->named.n; i++) {
            ds_put_format(s, "%s%s = %s", i ? ", " : "", a->named.names[i],
                          a->named.values[i]);
        }
        ds_put_char(s, ')');
        break;
    case ACTION_PUT_OPTS:
        action_format_field(&a->put_opts.dst, s);
        ds_put_format(s, " = %s(", a->keyword);
        for (size_t i = 0; i < a->put_opts.n_opts; i++) {
            ds_put_format(s, "%s%s = %s", i ? ", " : "",
                          a->put_opts.opts[i].name,
                          a->put_opts.opts[i].value);
        }
        ds_put_char(s, ')');
        break;
    }
    ds_put_char(s, ';');
}

static void
format_list(const struct ovs_list *actions, struct ds *s)
{
    const struct action *a;
    bool first = true;

    LIST_FOR_EACH (a, node, actions) {
        if (!first) {
            ds_put_char(s, ' ');
        }
        first = false;
        format_action(a, s);
    }
}

void
action_format(const struct action *a, struct ds *s)
{
    format_action(a, s);
}

/* Appends 'actions' to 's'.  An empty list, which drops the packet like
 * "drop;", is written as the comment "/ * drop * /" (without spaces). */
void
actions_format(const struct ovs_list *actions, struct ds *s)
{
    if (ovs_list_is_empty(actions)) {
        ds_put_cstr(s, "/* drop */");
    } else {
        format_list(actions, s);
    }
}
