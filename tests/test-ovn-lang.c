/* Test driver for the logical-flow language library (lib/lex, lib/symtab,
 * lib/expr, lib/actions).
 *
 * Usage: test-ovn-lang COMMAND [ARG]
 *
 * Each command reads one input per line from stdin and prints one result
 * per line, so that tests/lang.at can feed many cases at once:
 *
 *   lex              tokens of each line, formatted back
 *   parse-expr       each match, parsed and formatted back, or the error
 *   annotate-expr    each match, annotated (predicates and prerequisites
 *                    expanded) and formatted
 *   normalize-expr   each match, annotated and normalized
 *   validate         "OK" or the error northd would report
 *   roundtrip-expr   checks that parse/format and normalize are stable
 *   evaluate FLOW    1 or 0: does microflow FLOW match each line?
 *   parse-actions    each action list, parsed and formatted back
 *   roundtrip-actions  checks parse/format/parse stability for actions
 *   validate-actions "OK" or the error for each action list
 *   list-symbols     the symbol table
 *
 * Address sets and port groups available to matches: $as1 = {10.0.0.1,
 * 10.0.0.2}, $as6 = {fe80::1, fd00::/64}, $macs = {00:00:00:00:00:01},
 * $mixed = {10.0.0.1, fe80::1}, $empty = {}; @pg1 = {"p1", "p2"},
 * @pgempty = {}. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/actions.h"
#include "lib/expr.h"
#include "lib/lex.h"
#include "lib/symtab.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/util.h"
#include "util.h"

static struct symtab symtab;
static struct expr_refs refs;

static void
setup_refs(void)
{
    static const char *as1[] = { "10.0.0.1", "10.0.0.2" };
    static const char *as6[] = { "fe80::1", "fd00::/64" };
    static const char *macs[] = { "00:00:00:00:00:01" };
    static const char *mixed[] = { "10.0.0.1", "fe80::1" };
    static const char *pg1[] = { "p1", "p2" };

    expr_refs_init(&refs);
    ovs_assert(!expr_refs_add_addr_set(&refs, "as1", as1, 2));
    ovs_assert(!expr_refs_add_addr_set(&refs, "as6", as6, 2));
    ovs_assert(!expr_refs_add_addr_set(&refs, "macs", macs, 1));
    ovs_assert(!expr_refs_add_addr_set(&refs, "mixed", mixed, 2));
    ovs_assert(!expr_refs_add_addr_set(&refs, "empty", NULL, 0));
    expr_refs_add_port_group(&refs, "pg1", pg1, 2);
    expr_refs_add_port_group(&refs, "pgempty", NULL, 0);
}

static void
do_lex(const char *line)
{
    struct ds out = DS_EMPTY_INITIALIZER;
    struct lexer lexer;

    lex_init(&lexer, line);
    while (lex_next(&lexer) != LEX_T_END) {
        if (out.length) {
            ds_put_char(&out, ' ');
        }
        lex_token_format(&lexer.token, &out);
        if (lexer.token.type == LEX_T_ERROR) {
            break;
        }
    }
    lex_destroy(&lexer);
    puts(ds_cstr(&out));
    ds_destroy(&out);
}

static void
print_result(struct expr *e, char *error)
{
    if (error) {
        printf("error: %s\n", error);
        free(error);
    } else {
        char *s = expr_to_string(e);
        puts(s);
        free(s);
    }
    expr_destroy(e);
}

static void
do_parse_expr(const char *line)
{
    struct expr *e;
    char *error = expr_parse_string(line, &symtab, &refs, &e);
    print_result(e, error);
}

static char *
parse_annotate(const char *line, struct expr **out)
{
    struct expr *e;
    char *error = expr_parse_string(line, &symtab, &refs, &e);

    *out = NULL;
    return error ? error : expr_annotate(e, &symtab, out);
}

static void
do_annotate_expr(const char *line)
{
    struct expr *e;
    char *error = parse_annotate(line, &e);
    print_result(e, error);
}

static void
do_normalize_expr(const char *line)
{
    struct expr *e;
    char *error = parse_annotate(line, &e);
    print_result(error ? NULL : expr_normalize(e), error);
}

static void
do_validate(const char *line)
{
    char *error = expr_validate(line, &symtab, &refs);
    if (error) {
        printf("error: %s\n", error);
        free(error);
    } else {
        puts("OK");
    }
}

/* Prints the normalized form after checking that:
 *   - format(parse(x)) is a fixed point of parse+format;
 *   - normalize is a fixed point of parse+annotate+normalize+format. */
static void
do_roundtrip_expr(const char *line)
{
    struct expr *e;
    char *error = expr_parse_string(line, &symtab, &refs, &e);
    if (error) {
        print_result(NULL, error);
        return;
    }
    char *s1 = expr_to_string(e);
    expr_destroy(e);
    ovs_assert(!expr_parse_string(s1, &symtab, &refs, &e));
    char *s2 = expr_to_string(e);
    expr_destroy(e);
    if (strcmp(s1, s2)) {
        printf("MISMATCH parse: \"%s\" vs \"%s\"\n", s1, s2);
    }

    error = parse_annotate(line, &e);
    if (error) {
        print_result(NULL, error);
    } else {
        char *n1 = expr_to_string(e = expr_normalize(e));
        expr_destroy(e);
        error = parse_annotate(n1, &e);
        if (error) {
            printf("MISMATCH normalized form \"%s\" fails: %s\n", n1, error);
            free(error);
        } else {
            char *n2 = expr_to_string(e = expr_normalize(e));
            expr_destroy(e);
            if (strcmp(n1, n2)) {
                printf("MISMATCH normalize: \"%s\" vs \"%s\"\n", n1, n2);
            } else {
                puts(n1);
            }
            free(n2);
        }
        free(n1);
    }
    free(s1);
    free(s2);
}

static struct expr_flow flow;

static void
do_evaluate(const char *line)
{
    struct expr *e;
    char *error = parse_annotate(line, &e);
    if (error) {
        print_result(NULL, error);
        return;
    }
    bool a = expr_evaluate(e, &flow);
    e = expr_normalize(e);
    bool b = expr_evaluate(e, &flow);
    expr_destroy(e);
    if (a != b) {
        puts("MISMATCH between annotated and normalized forms");
    }
    puts(a ? "1" : "0");
}

static void
do_parse_actions(const char *line)
{
    struct ovs_list actions;
    char *error = actions_parse_string(line, &symtab, &actions);
    if (error) {
        printf("error: %s\n", error);
        free(error);
        return;
    }
    struct ds s = DS_EMPTY_INITIALIZER;
    actions_format(&actions, &s);
    puts(ds_cstr(&s));
    ds_destroy(&s);
    actions_destroy(&actions);
}

static void
do_validate_actions(const char *line)
{
    char *error = actions_validate(line, &symtab);
    if (error) {
        printf("error: %s\n", error);
        free(error);
    } else {
        puts("OK");
    }
}

static void
do_roundtrip_actions(const char *line)
{
    struct ovs_list a1, a2;
    char *error = actions_parse_string(line, &symtab, &a1);
    if (error) {
        printf("error: %s\n", error);
        free(error);
        return;
    }
    struct ds s1 = DS_EMPTY_INITIALIZER, s2 = DS_EMPTY_INITIALIZER;
    actions_format(&a1, &s1);
    error = actions_parse_string(ds_cstr(&s1), &symtab, &a2);
    if (error) {
        printf("MISMATCH: \"%s\" fails: %s\n", ds_cstr(&s1), error);
        free(error);
    } else {
        actions_format(&a2, &s2);
        if (strcmp(ds_cstr(&s1), ds_cstr(&s2))) {
            printf("MISMATCH: \"%s\" vs \"%s\"\n", ds_cstr(&s1),
                   ds_cstr(&s2));
        } else {
            puts(ds_cstr(&s1));
        }
        actions_destroy(&a2);
    }
    actions_destroy(&a1);
    ds_destroy(&s1);
    ds_destroy(&s2);
}

static void
do_list_symbols(void)
{
    static const char *kinds[] = { "field", "subfield", "predicate" };
    size_t n;
    const struct symtab_symbol **v = symtab_sorted(&symtab, &n);

    for (size_t i = 0; i < n; i++) {
        const struct symtab_symbol *s = v[i];
        printf("%s %s", s->name, kinds[s->kind]);
        if (s->is_string) {
            printf(" string");
        } else if (s->kind != SYMTAB_PREDICATE) {
            printf(" %d", s->width);
        }
        if (s->nominal) {
            printf(" nominal");
        }
        if (s->expansion) {
            printf(" = %s", s->expansion);
        }
        if (s->prereqs) {
            printf(" (requires %s)", s->prereqs);
        }
        putchar('\n');
    }
    free(v);
}

int
main(int argc, char *argv[])
{
    struct {
        const char *name;
        void (*cb)(const char *line);
    } commands[] = {
        { "lex", do_lex },
        { "parse-expr", do_parse_expr },
        { "annotate-expr", do_annotate_expr },
        { "normalize-expr", do_normalize_expr },
        { "validate", do_validate },
        { "roundtrip-expr", do_roundtrip_expr },
        { "evaluate", do_evaluate },
        { "parse-actions", do_parse_actions },
        { "roundtrip-actions", do_roundtrip_actions },
        { "validate-actions", do_validate_actions },
    };
    void (*cb)(const char *) = NULL;

    set_program_name(argv[0]);
    if (argc < 2) {
        ovs_fatal(0, "usage: %s COMMAND [ARG]", argv[0]);
    }
    symtab_init_ovn(&symtab);
    setup_refs();
    expr_flow_init(&flow);

    if (!strcmp(argv[1], "list-symbols")) {
        do_list_symbols();
        goto out;
    }
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
        if (!strcmp(argv[1], commands[i].name)) {
            cb = commands[i].cb;
        }
    }
    if (!cb) {
        ovs_fatal(0, "unknown command \"%s\"", argv[1]);
    }
    if (cb == do_evaluate) {
        if (argc < 3) {
            ovs_fatal(0, "evaluate needs a microflow argument");
        }
        char *error = expr_flow_parse(&flow, argv[2], &symtab);
        if (error) {
            ovs_fatal(0, "%s", error);
        }
        struct ds s = DS_EMPTY_INITIALIZER;
        expr_flow_format(&flow, &s);
        printf("flow: %s\n", ds_cstr(&s));
        ds_destroy(&s);
    }

    struct ds line = DS_EMPTY_INITIALIZER;
    while (!ds_get_line(&line, stdin)) {
        cb(ds_cstr(&line));
    }
    ds_destroy(&line);

out:
    expr_flow_destroy(&flow);
    expr_refs_destroy(&refs);
    symtab_destroy(&symtab);
    return 0;
}
