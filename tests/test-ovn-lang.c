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
 *   validate         "OK" or the error ovn-controller's parser would give
 *   validate-acl     "OK" or the error northd reports for an ACL's match
 *   roundtrip-expr   checks that parse/format and normalize are stable
 *   evaluate FLOW    1 or 0: does microflow FLOW match each line?
 *   parse-actions    each action list, parsed and formatted back
 *   roundtrip-actions  checks parse/format/parse stability for actions
 *   validate-actions "OK" or the error for each action list
 *   addr-set-summary for each address, what a full address set and a
 *                    summary of it hold: count, widest value, error
 *   validation-keys  each match, with its references replaced by every
 *                    set of a second collection (address sets held as
 *                    summaries, as northd holds them) and its decimal
 *                    constants by the smallest and largest of the same
 *                    width: checks that variants with the same
 *                    expr_validation_key() get the same verdict, and
 *                    prints how many keys they had
 *   lint-compare     each line "A ;; B": whether the ACL lint proves that
 *                    match A covers B ("covers") and that some packet
 *                    matches both ("overlaps"), from-lport on a switch
 *                    with ports p1 and p2
 *   lint-random N SEED  N random pairs of matches: checks each "covers"
 *                    and "overlaps" the lint claims against sampled
 *                    packets (expr_evaluate()); prints the counts and
 *                    every counterexample, exits with status 1 if any
 *   list-symbols     the symbol table
 *   validate-sb      checks every logical flow of a southbound database
 *                    dump (see do_validate_sb() for the input); prints
 *                    each flow that fails and exits with status 1 if any
 *
 * Address sets and port groups available to matches: $as1 = {10.0.0.1,
 * 10.0.0.2}, $as6 = {fe80::1, fd00::/64}, $macs = {00:00:00:00:00:01},
 * $mixed = {10.0.0.1, fe80::1}, $empty = {}; @pg1 = {"p1", "p2"},
 * @pgempty = {}. */
#include <config.h>
#include <ctype.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/acl-lint.h"
#include "lib/actions.h"
#include "lib/datum-json.h"
#include "lib/expr.h"
#include "lib/lex.h"
#include "lib/symtab.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"
#include "openvswitch/shash.h"
#include "openvswitch/util.h"
#include "simap.h"
#include "svec.h"
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
print_validation(char *error)
{
    if (error) {
        printf("error: %s\n", error);
        free(error);
    } else {
        puts("OK");
    }
}

static void
do_validate(const char *line)
{
    print_validation(expr_validate(line, &symtab, &refs));
}

/* As northd and ovn-nbctl check an ACL's match. */
static void
do_validate_acl(const char *line)
{
    print_validation(expr_validate_summaries(line, &symtab, &refs,
                                             EXPR_ACL_MAX_PAREN_DEPTH, NULL));
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

/* validate-sb: our library against a whole southbound database.
 *
 * Input, on stdin: five JSON objects, one a line, as "ovn-sbctl
 * --format=json" prints them for these commands, in this order (the
 * columns are found by their headings, so more may be listed):
 *
 *   --columns=_uuid,tunnel_key list Datapath_Binding
 *   --columns=_uuid,datapaths list Logical_DP_Group
 *   --columns=name,addresses list Address_Set
 *   --columns=name,ports list Port_Group
 *   --columns=_uuid,logical_datapath,logical_dp_group,pipeline,table_id,
 *             priority,match,actions,external_ids list Logical_Flow
 *
 * Each flow's actions must pass actions_validate() and its match
 * expr_validate() with "$name" resolved against Address_Set and "@name"
 * the way ovn-controller 23.03 does it on each of the flow's datapaths:
 * the Port_Group named "<tunnel_key>_name" for that datapath, else one
 * named plainly "name".  "$svc_monitor_mac", which ovn-controller defines
 * itself, is a MAC. */

struct sb_table {
    const char *name;
    struct json *json;          /* Owned. */
    const struct json_array *rows;
    const struct json_array *headings;
};

static size_t
sb_column(const struct sb_table *t, const char *column)
{
    for (size_t i = 0; i < t->headings->n; i++) {
        const struct json *h = t->headings->elems[i];
        if (h->type == JSON_STRING && !strcmp(json_string(h), column)) {
            return i;
        }
    }
    ovs_fatal(0, "%s: no column \"%s\" in the input", t->name, column);
}

static const struct json *
sb_cell(const struct sb_table *t, size_t row, size_t column)
{
    const struct json *r = t->rows->elems[row];
    if (r->type != JSON_ARRAY || column >= r->array.n) {
        ovs_fatal(0, "%s: malformed row %"PRIuSIZE, t->name, row);
    }
    return r->array.elems[column];
}

static char *
sb_cell_string(const struct sb_table *t, size_t row, size_t column)
{
    struct svec v = SVEC_EMPTY_INITIALIZER;
    datum_json_atoms(sb_cell(t, row, column), &v);
    char *s = xstrdup(v.n ? v.names[0] : "");
    svec_destroy(&v);
    return s;
}

static void
sb_table_read(struct sb_table *t, const char *name)
{
    struct ds line = DS_EMPTY_INITIALIZER;

    t->name = name;
    if (ds_get_line(&line, stdin)) {
        ovs_fatal(0, "%s: missing from the input", name);
    }
    t->json = json_from_string(ds_cstr(&line));
    ds_destroy(&line);
    if (t->json->type != JSON_OBJECT) {
        ovs_fatal(0, "%s: %s", name, (t->json->type == JSON_STRING
                                      ? json_string(t->json)
                                      : "not a JSON object"));
    }
    const struct json *data = shash_find_data(json_object(t->json), "data");
    const struct json *headings = shash_find_data(json_object(t->json),
                                                  "headings");
    if (!data || data->type != JSON_ARRAY
        || !headings || headings->type != JSON_ARRAY) {
        ovs_fatal(0, "%s: not ovn-sbctl --format=json output", name);
    }
    t->rows = json_array(data);
    t->headings = json_array(headings);
}

/* Names and contents of the SB address sets and port groups. */
struct sb_sets {
    struct shash addr_sets;     /* name -> struct svec *. */
    struct shash port_groups;   /* name -> struct svec *. */
    struct shash refs;          /* Tunnel key, as a string -> struct
                                 * expr_refs * for that datapath. */
    int n_errors;
};

/* Loads rows of 't' into 'sets': the value of column 'key' -> the atoms
 * of column 'column'. */
static void
sb_sets_load(struct shash *sets, const struct sb_table *t, const char *key,
             const char *column)
{
    size_t name_col = sb_column(t, key);
    size_t values_col = sb_column(t, column);

    shash_init(sets);
    for (size_t i = 0; i < t->rows->n; i++) {
        char *name = sb_cell_string(t, i, name_col);
        struct svec *values = xmalloc(sizeof *values);
        svec_init(values);
        datum_json_atoms(sb_cell(t, i, values_col), values);
        svec_sort(values);
        shash_add_nocopy(sets, name, values);
    }
}

static void
sb_sets_free(struct shash *sets)
{
    struct shash_node *node;

    SHASH_FOR_EACH (node, sets) {
        svec_destroy(node->data);
    }
    shash_destroy_free_data(sets);
}

/* The references "$name" and "@name" resolve to in a flow on the datapath
 * with tunnel key 'key'. */
static const struct expr_refs *
sb_sets_refs(struct sb_sets *sets, const char *key)
{
    struct expr_refs *r = shash_find_data(&sets->refs, key);
    if (r) {
        return r;
    }
    r = xmalloc(sizeof *r);
    expr_refs_init(r);
    bool first = shash_is_empty(&sets->refs);

    struct shash_node *node;
    SHASH_FOR_EACH (node, &sets->addr_sets) {
        const struct svec *v = node->data;
        char *error = expr_refs_add_addr_set(
            r, node->name, (const char *const *) v->names, v->n);
        if (error && first) {
            printf("Address_Set %s: %s\n", node->name, error);
            sets->n_errors++;
        }
        free(error);
    }
    expr_refs_add_sb_port_groups(r, &sets->port_groups, key);
    shash_add(&sets->refs, key, r);
    return r;
}

static void
print_flow_failure(const struct sb_table *lf, size_t row, const char *what,
                   const char *text, const char *error)
{
    const struct json *ids = sb_cell(lf, row, sb_column(lf, "external_ids"));
    const char *stage = datum_json_map_get(ids, "stage-name");
    char *uuid = sb_cell_string(lf, row, sb_column(lf, "_uuid"));
    char *pipeline = sb_cell_string(lf, row, sb_column(lf, "pipeline"));
    char *table = sb_cell_string(lf, row, sb_column(lf, "table_id"));
    char *priority = sb_cell_string(lf, row, sb_column(lf, "priority"));

    printf("Logical_Flow %.8s (%s table %s%s%s%s, priority %s): %s "
           "\"%s\": %s\n", uuid, pipeline, table,
           stage ? " \"" : "", stage ? stage : "", stage ? "\"" : "",
           priority, what, text, error);
    free(uuid);
    free(pipeline);
    free(table);
    free(priority);
}

static int
do_validate_sb(void)
{
    struct sb_table dps, dpgs, ass, pgs, lf;

    sb_table_read(&dps, "Datapath_Binding");
    sb_table_read(&dpgs, "Logical_DP_Group");
    sb_table_read(&ass, "Address_Set");
    sb_table_read(&pgs, "Port_Group");
    sb_table_read(&lf, "Logical_Flow");

    /* Datapath uuid -> tunnel key. */
    struct shash dp_keys = SHASH_INITIALIZER(&dp_keys);
    size_t uuid_col = sb_column(&dps, "_uuid");
    size_t key_col = sb_column(&dps, "tunnel_key");
    for (size_t i = 0; i < dps.rows->n; i++) {
        char *uuid = sb_cell_string(&dps, i, uuid_col);
        shash_add_nocopy(&dp_keys, uuid, sb_cell_string(&dps, i, key_col));
    }

    /* Datapath group uuid -> its datapaths' uuids. */
    struct shash groups;
    sb_sets_load(&groups, &dpgs, "_uuid", "datapaths");

    struct sb_sets sets = { .n_errors = 0 };
    sb_sets_load(&sets.addr_sets, &ass, "name", "addresses");
    sb_sets_load(&sets.port_groups, &pgs, "name", "ports");
    shash_init(&sets.refs);
    /* ovn-controller defines $svc_monitor_mac itself, from SB_Global
     * options:svc_monitor_mac (load balancer health checks). */
    if (!shash_find(&sets.addr_sets, "svc_monitor_mac")) {
        struct svec *mac = xmalloc(sizeof *mac);
        svec_init(mac);
        svec_add(mac, "0a:00:00:00:00:fe");
        shash_add(&sets.addr_sets, "svc_monitor_mac", mac);
    }

    size_t dp_col = sb_column(&lf, "logical_datapath");
    size_t dpg_col = sb_column(&lf, "logical_dp_group");
    size_t match_col = sb_column(&lf, "match");
    size_t actions_col = sb_column(&lf, "actions");
    size_t n_failed = 0;
    for (size_t i = 0; i < lf.rows->n; i++) {
        struct svec dp_uuids = SVEC_EMPTY_INITIALIZER;
        datum_json_atoms(sb_cell(&lf, i, dp_col), &dp_uuids);
        struct svec dpg_uuids = SVEC_EMPTY_INITIALIZER;
        datum_json_atoms(sb_cell(&lf, i, dpg_col), &dpg_uuids);
        for (size_t j = 0; j < dpg_uuids.n; j++) {
            const struct svec *members = shash_find_data(&groups,
                                                         dpg_uuids.names[j]);
            if (members) {
                svec_append(&dp_uuids, members);
            }
        }
        svec_destroy(&dpg_uuids);

        /* The tunnel keys of the flow's datapaths. */
        struct svec keys = SVEC_EMPTY_INITIALIZER;
        for (size_t j = 0; j < dp_uuids.n; j++) {
            const char *key = shash_find_data(&dp_keys, dp_uuids.names[j]);
            if (key) {
                svec_add(&keys, key);
            }
        }
        svec_destroy(&dp_uuids);
        svec_sort_unique(&keys);

        char *match = sb_cell_string(&lf, i, match_col);
        char *actions = sb_cell_string(&lf, i, actions_col);
        bool failed = false;
        if (!keys.n) {
            print_flow_failure(&lf, i, "datapaths", "", "the flow is on no "
                               "datapath");
            failed = true;
        }
        /* Only "@name" depends on the datapath. */
        size_t n_dps = strchr(match, '@') ? keys.n : MIN(keys.n, 1);
        for (size_t j = 0; j < n_dps && !failed; j++) {
            char *error = expr_validate(match, &symtab,
                                        sb_sets_refs(&sets, keys.names[j]));
            if (error) {
                print_flow_failure(&lf, i, "match", match, error);
                free(error);
                failed = true;
            }
        }
        char *error = actions_validate(actions, &symtab);
        if (error) {
            print_flow_failure(&lf, i, "actions", actions, error);
            free(error);
            failed = true;
        }
        n_failed += failed;
        free(match);
        free(actions);
        svec_destroy(&keys);
    }
    fprintf(stderr, "validate-sb: %"PRIuSIZE" logical flows, %"PRIuSIZE
            " failed\n", lf.rows->n, n_failed);

    struct shash_node *node;
    SHASH_FOR_EACH (node, &sets.refs) {
        expr_refs_destroy(node->data);
    }
    shash_destroy_free_data(&sets.refs);
    int status = n_failed || sets.n_errors ? 1 : 0;
    sb_sets_free(&sets.addr_sets);
    sb_sets_free(&sets.port_groups);
    sb_sets_free(&groups);
    shash_destroy_free_data(&dp_keys);
    json_destroy(dps.json);
    json_destroy(dpgs.json);
    json_destroy(ass.json);
    json_destroy(pgs.json);
    json_destroy(lf.json);
    return status;
}

/* What "validation-keys" substitutes for each "$name" and "@name": sets
 * held as summaries, as northd's checker holds them, with some sharing a
 * width, and names that exist nowhere. */
static struct expr_refs summary_refs;
static const char *const key_addr_sets[] = {
    "s4", "s4b", "s6", "smac", "smixed", "sempty", "ssmall", "nope",
};
static const char *const key_port_groups[] = { "pg1", "pgempty", "nope" };

static void
setup_summary_refs(void)
{
    static const char *s4[] = { "10.0.0.1" };
    static const char *s4b[] = { "10.0.0.2", "10.1.0.0/16" };
    static const char *s6[] = { "fe80::1" };
    static const char *smac[] = { "00:00:00:00:00:01" };
    static const char *smixed[] = { "10.0.0.1", "fe80::1" };
    static const char *ssmall[] = { "7", "3" };
    static const char *pg1[] = { "p1", "p2" };

    expr_refs_init(&summary_refs);
    ovs_assert(!expr_refs_add_addr_set_summary(&summary_refs, "s4", s4, 1));
    ovs_assert(!expr_refs_add_addr_set_summary(&summary_refs, "s4b", s4b,
                                               2));
    ovs_assert(!expr_refs_add_addr_set_summary(&summary_refs, "s6", s6, 1));
    ovs_assert(!expr_refs_add_addr_set_summary(&summary_refs, "smac", smac,
                                               1));
    ovs_assert(!expr_refs_add_addr_set_summary(&summary_refs, "smixed",
                                               smixed, 2));
    ovs_assert(!expr_refs_add_addr_set_summary(&summary_refs, "sempty",
                                               NULL, 0));
    ovs_assert(!expr_refs_add_addr_set_summary(&summary_refs, "ssmall",
                                               ssmall, 2));
    expr_refs_add_port_group(&summary_refs, "pg1", pg1, 2);
    expr_refs_add_port_group(&summary_refs, "pgempty", NULL, 0);
}

/* Writes 'in' to 'out' with each run of decimal digits outside quotes
 * but the digits of names (wherever else it stands: the key decides which
 * it classes, "10.0.0.1" and "reg0[0..7]" included) replaced by the
 * smallest ('largest' false) or largest other value of the same width,
 * zero and all-ones values left alone, as are runs with leading zeros or
 * of 20 digits or more. */
static void
number_twin(const char *in, bool largest, struct ds *out)
{
    ds_clear(out);
    for (const char *p = in; *p; ) {
        if (*p == '"') {
            const char *q = p + 1;
            while (*q && *q != '"') {
                q += (*q == '\\' && q[1]) ? 2 : 1;
            }
            q += *q != '\0';
            ds_put_buffer(out, p, q - p);
            p = q;
            continue;
        }
        size_t len = strspn(p, "0123456789");
        if (!len || (p > in && (isalnum((unsigned char) p[-1])
                                || p[-1] == '_'))) {
            /* Not a run, or the digits of a name such as "ip4". */
            ds_put_buffer(out, p, MAX(len, 1));
            p += MAX(len, 1);
            continue;
        }
        uint64_t v = 0;
        for (size_t i = 0; i < len && len < 20; i++) {
            v = v * 10 + (p[i] - '0');
        }
        if (len >= 20 || (len > 1 && *p == '0') || !v || !(v & (v + 1))) {
            ds_put_buffer(out, p, len);
        } else {
            int w = 64 - raw_clz64(v);
            uint64_t low = UINT64_C(1) << (w - 1);
            ds_put_format(out, "%"PRIu64, largest ? low * 2 - 2 : low);
        }
        p += len;
    }
}

/* "validation-keys": for each match, every variant with its first three
 * references replaced by the names above.  A key stands for a verdict in
 * northd, so two variants with one key and different verdicts are a bug:
 * printed as "disagree".  Otherwise prints "N variants, K keys, V valid",
 * or "no key" for a match expr_validation_key() declines. */
static void
do_validation_keys(const char *line)
{
    enum { MAX_REFS = 3 };
    struct lex_ref refs_found[MAX_REFS];
    size_t n_refs = 0;
    struct lex_ref ref;
    for (const char *p = line;
         n_refs < MAX_REFS && lex_find_ref(p, &ref) == LEX_REF_FOUND;
         p = ref.sigil + 1 + ref.len) {
        refs_found[n_refs++] = ref;
    }

    size_t n_variants = 1;
    for (size_t i = 0; i < n_refs; i++) {
        n_variants *= (*refs_found[i].sigil == '$'
                       ? ARRAY_SIZE(key_addr_sets)
                       : ARRAY_SIZE(key_port_groups));
    }

    struct shash verdicts = SHASH_INITIALIZER(&verdicts);
    struct ds variant = DS_EMPTY_INITIALIZER;
    struct ds key = DS_EMPTY_INITIALIZER;
    size_t n_valid = 0;
    bool keyed = true, agree = true;
    struct ds twin = DS_EMPTY_INITIALIZER;
    size_t n_tried = 0;
    for (size_t v = 0; v < 3 * n_variants && keyed && agree; v++) {
        ds_clear(&variant);
        const char *p = line;
        size_t rest = v / 3;
        for (size_t i = 0; i < n_refs; i++) {
            bool as = *refs_found[i].sigil == '$';
            size_t n = as ? ARRAY_SIZE(key_addr_sets)
                          : ARRAY_SIZE(key_port_groups);
            ds_put_buffer(&variant, p, refs_found[i].sigil + 1 - p);
            ds_put_cstr(&variant, (as ? key_addr_sets
                                   : key_port_groups)[rest % n]);
            rest /= n;
            p = refs_found[i].sigil + 1 + refs_found[i].len;
        }
        ds_put_cstr(&variant, p);
        if (v % 3) {
            number_twin(ds_cstr(&variant), v % 3 == 2, &twin);
            if (!strcmp(ds_cstr(&twin), ds_cstr(&variant))) {
                continue;
            }
            ds_swap(&twin, &variant);
        }
        n_tried++;

        const char *match = ds_cstr(&variant);
        char *error = expr_validate(match, &symtab, &summary_refs);
        n_valid += !error;
        if (!expr_validation_key(match, &summary_refs, &key)) {
            keyed = false;
        } else {
            struct shash_node *node = shash_find(&verdicts, ds_cstr(&key));
            if (!node) {
                shash_add(&verdicts, ds_cstr(&key), xstrdup(match));
            } else {
                char *other = expr_validate(node->data, &symtab,
                                            &summary_refs);
                if (!other != !error) {
                    printf("disagree: \"%s\" is %s, \"%s\" is %s\n",
                           (char *) node->data, other ? "invalid" : "valid",
                           match, error ? "invalid" : "valid");
                    agree = false;
                }
                free(other);
            }
        }
        free(error);
    }
    if (!keyed) {
        printf("no key\n");
    } else if (agree) {
        printf("%"PRIuSIZE" variants, %"PRIuSIZE" keys, %"PRIuSIZE" valid\n",
               n_tried, shash_count(&verdicts), n_valid);
    }
    shash_destroy_free_data(&verdicts);
    ds_destroy(&twin);
    ds_destroy(&variant);
    ds_destroy(&key);
}

/* "addr-set-summary": each line is one address; prints what a full
 * address set and a summary of it make of it (count, widest value,
 * error), which must agree. */
static void
do_addr_set_summary(const char *line)
{
    struct expr_refs r;
    const char *addrs[] = { line };
    char *errors[2];
    const struct expr_const_set *sets[2];

    expr_refs_init(&r);
    errors[0] = expr_refs_add_addr_set(&r, "full", addrs, 1);
    errors[1] = expr_refs_add_addr_set_summary(&r, "summary", addrs, 1);
    sets[0] = shash_find_data(&r.addr_sets, "full");
    sets[1] = shash_find_data(&r.addr_sets, "summary");
    for (int i = 0; i < 2; i++) {
        printf("%s%"PRIuSIZE" %d %s", i ? " | " : "", sets[i]->n,
               sets[i]->max_width, errors[i] ? "error" : "ok");
        free(errors[i]);
    }
    printf("\n");
    expr_refs_destroy(&r);
}


/* "lint-compare". */
static const char *const lint_ports[] = { "p1", "p2" };

static void
do_lint_compare(const char *line)
{
    const char *sep = strstr(line, " ;; ");
    if (!sep) {
        puts("error: expected \"A ;; B\"");
        return;
    }
    char *a = xmemdup0(line, sep - line);
    bool covers = false, overlaps = false;
    char *error = acl_lint_compare(a, sep + 4, "from-lport", lint_ports,
                                   ARRAY_SIZE(lint_ports), &covers,
                                   &overlaps);
    if (error) {
        printf("error: %s\n", error);
        free(error);
    } else {
        printf("%s %s\n", covers ? "covers" : "-",
               overlaps ? "overlaps" : "-");
    }
    free(a);
}

/* "lint-random": a small deterministic generator (xorshift). */
static uint32_t
lint_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return x >> 32;
}

#define PICK(STATE, ARRAY) ((ARRAY)[lint_rand(STATE) % ARRAY_SIZE(ARRAY)])

static void
lint_random_match(uint64_t *st, int depth, struct ds *m)
{
    static const char *const atoms[] = {
        "tcp.dst == 80", "tcp.dst == 22", "tcp.dst == {80, 443}",
        "tcp.dst >= 1000", "tcp.dst <= 2000", "tcp.dst != 80",
        "tcp.dst >= 1000 && tcp.dst <= 2000",
        "tcp.dst >= 1500 && tcp.dst <= 1600",
        "tcp.dst > 1499 && tcp.dst < 2001", "udp.dst == 53",
        "udp.dst >= 1000", "ip4.src == 10.0.0.0/8",
        "ip4.src == 10.1.0.0/16", "ip4.src == 10.1.2.0/24",
        "ip4.src == 10.1.2.3", "ip4.src == {10.0.0.1, 10.1.2.3}",
        "ip4.src != 10.0.0.1", "ip4.src == 10.0.0.0/255.0.255.0",
        "ip4.dst == 192.168.0.0/16", "ip4.dst == 10.0.0.1",
        "ip4", "ip6", "ip", "tcp", "udp", "icmp4", "1", "0",
        "inport == \"p1\"", "inport == {\"p1\", \"p2\"}",
        "inport != \"p2\"", "inport == \"p3\"", "ip.proto == 6",
        "eth.type == 0x800", "ip4.src[24..31] == 10",
        "ip4.dst[28..31] == 0xe", "ip4.mcast", "ip4.dst == 224.0.0.0/4",
        "tcp.dst[0..7] == 80", "tcp.dst[8..15] == 0", "tcp.dst[15]",
        "ip4.src == 10.0.0.0/8 && ip4.src[0..7] == 1",
    };
    if (depth <= 0 || lint_rand(st) % 3 == 0) {
        ds_put_format(m, "(%s)", PICK(st, atoms));
        return;
    }
    switch (lint_rand(st) % 5) {
    case 0:
        ds_put_cstr(m, "!(");
        lint_random_match(st, depth - 1, m);
        ds_put_cstr(m, ")");
        break;
    case 1:
    case 2:
        ds_put_cstr(m, "(");
        lint_random_match(st, depth - 1, m);
        ds_put_cstr(m, " || ");
        lint_random_match(st, depth - 1, m);
        ds_put_cstr(m, ")");
        break;
    default:
        ds_put_cstr(m, "(");
        lint_random_match(st, depth - 1, m);
        ds_put_cstr(m, " && ");
        lint_random_match(st, depth - 1, m);
        ds_put_cstr(m, ")");
        break;
    }
}

static void
lint_random_packet(uint64_t *st, struct expr_flow *f)
{
    static const uint32_t eth_types[] = { 0x800, 0x86dd, 0x806 };
    static const uint32_t protos[] = { 6, 17, 1, 50 };
    static const uint32_t l4[] = {
        0, 21, 22, 23, 53, 79, 80, 81, 443, 999, 1000, 1001, 1499, 1500,
        1501, 1599, 1600, 1601, 1999, 2000, 2001, 65535,
    };
    static const uint32_t ip4s[] = {
        0x0a000000, 0x0a000001, 0x0a010203, 0x0a010204, 0x0a010000,
        0x0affffff, 0x0b000000, 0x09ffffff, 0xc0a80101, 0, 0x0a0100ff,
        0x0a020203, 0xe0000001, 0xefffffff, 0xf0000000, 0xdfffffff,
    };
    static const uint64_t macs[] = { 0, UINT64_C(0x010000000000),
                                     UINT64_C(0x0a0000000001) };
    static const char *const ports[] = { "p1", "p2" };
    static const struct {
        const char *name;
        int kind;               /* 0 eth.type, 1 proto, 2 l4, 3 ip4,
                                 * 4 mac. */
    } fields[] = {
        { "eth.type", 0 }, { "ip.proto", 1 }, { "tcp.dst", 2 },
        { "udp.dst", 2 }, { "ip4.src", 3 }, { "ip4.dst", 3 },
        { "eth.dst", 4 },
    };
    for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
        const struct symtab_symbol *sym = symtab_find(&symtab,
                                                      fields[i].name);
        uint32_t v;
        switch (fields[i].kind) {
        case 0: v = PICK(st, eth_types); break;
        case 1: v = PICK(st, protos); break;
        case 2: v = (lint_rand(st) % 4 ? PICK(st, l4)
                     : lint_rand(st) & 0xffff); break;
        case 3: v = lint_rand(st) % 4 ? PICK(st, ip4s) : lint_rand(st);
                break;
        default:
            expr_flow_set(f, sym, 0, sym->width,
                          lex_u128_from_u64(PICK(st, macs)));
            continue;
        }
        expr_flow_set(f, sym, 0, sym->width, lex_u128_from_u64(v));
    }
    expr_flow_set_string(f, symtab_find(&symtab, "inport"),
                         PICK(st, ports));
}

static int
do_lint_random(int n, unsigned long long seed)
{
    uint64_t st = seed * 2654435761u + 1;
    size_t n_pairs = 0, n_covers = 0, n_overlaps = 0, n_confirmed = 0;
    size_t n_bad = 0;
    struct ds a = DS_EMPTY_INITIALIZER, b = DS_EMPTY_INITIALIZER;
    for (int i = 0; i < n; i++) {
        ds_clear(&a);
        ds_clear(&b);
        lint_random_match(&st, 3, &a);
        if (lint_rand(&st) % 2) {
            /* Often B is A narrowed, so that "covers" comes up. */
            ds_put_format(&b, "%s && ", ds_cstr(&a));
            lint_random_match(&st, 1, &b);
            if (lint_rand(&st) % 2) {
                struct ds t = a;
                a = b;
                b = t;
            }
        } else {
            lint_random_match(&st, 3, &b);
        }
        bool covers, overlaps;
        char *error = acl_lint_compare(ds_cstr(&a), ds_cstr(&b),
                                       "from-lport", lint_ports,
                                       ARRAY_SIZE(lint_ports), &covers,
                                       &overlaps);
        if (error) {
            free(error);
            continue;
        }
        struct expr *ea, *eb;
        error = parse_annotate(ds_cstr(&a), &ea);
        ovs_assert(!error);
        error = parse_annotate(ds_cstr(&b), &eb);
        ovs_assert(!error);
        n_pairs++;
        n_covers += covers;
        n_overlaps += overlaps;
        bool confirmed = false;
        for (int j = 0; j < 3000; j++) {
            struct expr_flow f;
            expr_flow_init(&f);
            lint_random_packet(&st, &f);
            bool in_a = expr_evaluate(ea, &f), in_b = expr_evaluate(eb, &f);
            if (covers && in_b && !in_a) {
                struct ds pkt = DS_EMPTY_INITIALIZER;
                expr_flow_format(&f, &pkt);
                printf("counterexample to \"%s\" covers \"%s\": %s\n",
                       ds_cstr(&a), ds_cstr(&b), ds_cstr(&pkt));
                ds_destroy(&pkt);
                n_bad++;
                covers = false;
            }
            confirmed |= in_a && in_b;
            expr_flow_destroy(&f);
        }
        n_confirmed += overlaps && confirmed;
        if (overlaps && !confirmed && getenv("LINT_VERBOSE")) {
            printf("overlap not seen: \"%s\" and \"%s\"\n", ds_cstr(&a),
                   ds_cstr(&b));
        }
        expr_destroy(ea);
        expr_destroy(eb);
    }
    printf("%"PRIuSIZE" pairs, %"PRIuSIZE" covers, %"PRIuSIZE" overlaps "
           "(%"PRIuSIZE" seen in samples), %"PRIuSIZE" counterexamples\n",
           n_pairs, n_covers, n_overlaps, n_confirmed, n_bad);
    ds_destroy(&a);
    ds_destroy(&b);
    return n_bad ? 1 : 0;
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
        { "validate-acl", do_validate_acl },
        { "roundtrip-expr", do_roundtrip_expr },
        { "evaluate", do_evaluate },
        { "parse-actions", do_parse_actions },
        { "roundtrip-actions", do_roundtrip_actions },
        { "validate-actions", do_validate_actions },
        { "addr-set-summary", do_addr_set_summary },
        { "validation-keys", do_validation_keys },
        { "lint-compare", do_lint_compare },
    };
    void (*cb)(const char *) = NULL;

    set_program_name(argv[0]);
    if (argc < 2) {
        ovs_fatal(0, "usage: %s COMMAND [ARG]", argv[0]);
    }
    symtab_init_ovn(&symtab);
    setup_refs();
    setup_summary_refs();
    expr_flow_init(&flow);

    int status = 0;
    if (!strcmp(argv[1], "list-symbols")) {
        do_list_symbols();
        goto out;
    } else if (!strcmp(argv[1], "lint-random")) {
        if (argc < 4) {
            ovs_fatal(0, "lint-random needs N and SEED");
        }
        status = do_lint_random(atoi(argv[2]), strtoull(argv[3], NULL, 10));
        goto out;
    } else if (!strcmp(argv[1], "validate-sb")) {
        status = do_validate_sb();
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
    expr_refs_destroy(&summary_refs);
    symtab_destroy(&symtab);
    return status;
}
