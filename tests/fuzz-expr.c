/* libFuzzer target for the logical-flow language library.
 *
 * Each input is treated as one string (cut at the first NUL byte) and run
 * through everything that handles untrusted text: the lexer, the match
 * parser and type checker, annotation, normalization, formatting (whose
 * output must parse again to the same text) and the action parser.
 * Crashes, sanitizer reports and leaks are the failures; parse errors are
 * expected.  See docs/fuzzing.md. */
#include <config.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/actions.h"
#include "lib/expr.h"
#include "lib/lex.h"
#include "lib/symtab.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/util.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct symtab symtab;
static struct expr_refs refs;

static void
init(void)
{
    static const char *as1[] = { "10.0.0.1", "10.0.0.0/8" };
    static const char *as6[] = { "fe80::1", "fd00::/64" };
    static const char *pg1[] = { "p1", "p2" };

    symtab_init_ovn(&symtab);
    expr_refs_init(&refs);
    free(expr_refs_add_addr_set(&refs, "as1", as1, 2));
    free(expr_refs_add_addr_set(&refs, "as6", as6, 2));
    free(expr_refs_add_addr_set(&refs, "empty", NULL, 0));
    expr_refs_add_port_group(&refs, "pg1", pg1, 2);
}

static void
fuzz_lexer(const char *s)
{
    struct lexer lexer;
    struct ds out = DS_EMPTY_INITIALIZER;

    lex_init(&lexer, s);
    while (lex_next(&lexer) != LEX_T_END
           && lexer.token.type != LEX_T_ERROR) {
        lex_token_format(&lexer.token, &out);
    }
    lex_destroy(&lexer);
    ds_destroy(&out);
}

static void
fuzz_match(const char *s)
{
    struct expr *e, *a;
    char *error = expr_parse_string(s, &symtab, &refs, &e);
    if (error) {
        free(error);
        return;
    }

    /* Formatting must give text that parses back to the same text. */
    char *s1 = expr_to_string(e);
    struct expr *e2;
    error = expr_parse_string(s1, &symtab, &refs, &e2);
    if (error) {
        ovs_abort(0, "\"%s\" formats as \"%s\", which fails: %s",
                  s, s1, error);
    }
    char *s2 = expr_to_string(e2);
    ovs_assert(!strcmp(s1, s2));
    free(s1);
    free(s2);
    expr_destroy(e2);

    error = expr_annotate(e, &symtab, &a);
    if (error) {
        free(error);
        return;
    }

    struct expr_flow flow;
    expr_flow_init(&flow);
    bool before = expr_evaluate(a, &flow);
    a = expr_normalize(a);
    ovs_assert(before == expr_evaluate(a, &flow));
    expr_flow_destroy(&flow);
    expr_destroy(a);
}

static void
fuzz_actions(const char *s)
{
    struct ovs_list actions;
    char *error = actions_parse_string(s, &symtab, &actions);
    if (error) {
        free(error);
        return;
    }

    struct ds s1 = DS_EMPTY_INITIALIZER, s2 = DS_EMPTY_INITIALIZER;
    struct ovs_list again;
    actions_format(&actions, &s1);
    error = actions_parse_string(ds_cstr(&s1), &symtab, &again);
    if (error) {
        ovs_abort(0, "actions \"%s\" format as \"%s\", which fails: %s",
                  s, ds_cstr(&s1), error);
    }
    actions_format(&again, &s2);
    ovs_assert(!strcmp(ds_cstr(&s1), ds_cstr(&s2)));
    actions_destroy(&again);
    actions_destroy(&actions);
    ds_destroy(&s1);
    ds_destroy(&s2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool initialized;
    if (!initialized) {
        init();
        initialized = true;
    }

    char *s = xmemdup0((const char *) data, size);
    fuzz_lexer(s);
    fuzz_match(s);
    fuzz_actions(s);
    free(s);
    return 0;
}
