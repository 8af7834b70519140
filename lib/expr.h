/* Match expressions of the OVN logical-flow language.
 *
 * Life of a match:
 *
 *   1. expr_parse_string() turns text into a tree of comparisons, "&&",
 *      "||", "!" and boolean constants, checking each comparison against
 *      the symbol table (field exists, constant fits, operator allowed).
 *      "$name" and "@name" are resolved through a struct expr_refs.
 *
 *   2. expr_annotate() pushes "!" down to the comparisons, replaces
 *      predicates by their definitions and subfields by bit ranges of
 *      their base fields, and adds prerequisites ("tcp.dst == 80" becomes
 *      "ip.proto == 6 && (eth.type == 0x800 || eth.type == 0x86dd) &&
 *      tcp.dst == 80").  It reports the errors that only show once "!"
 *      has been pushed down, such as "eth.type != 0x800".
 *
 *   3. expr_normalize() flattens nested "&&"/"||", folds constants, and
 *      sorts and de-duplicates operands, so that equivalent spellings of
 *      a match usually print the same.
 *
 *   4. expr_evaluate() tells whether a concrete packet (struct expr_flow)
 *      matches.
 *
 * expr_validate() does 1 and 2 and is what northd calls to check an ACL.
 *
 * Errors are malloc'd strings the caller frees.  They name the problem and
 * where it is, e.g. "unknown field \"ip4.sorce\" (column 1)" or "syntax
 * error at end of input, expecting a constant". */
#ifndef EXPR_H
#define EXPR_H 1

#include <stdbool.h>
#include <stddef.h>
#include "lib/lex.h"
#include "lib/symtab.h"
#include "openvswitch/list.h"
#include "openvswitch/shash.h"

struct ds;

/* A constant: an integer (possibly masked) or a string. */
struct expr_const {
    char *string;               /* Owned; non-NULL for a string. */
    ovs_u128 value;             /* Integers: host order, right-aligned. */
    ovs_u128 mask;              /* All-ones unless 'masked'. */
    bool masked;
    enum lex_format format;
};

void expr_const_destroy(struct expr_const *);
void expr_const_clone(struct expr_const *dst, const struct expr_const *);
void expr_const_format(const struct expr_const *, struct ds *);

/* A named set of constants: an address set or a port group. */
struct expr_const_set {
    struct expr_const *values;  /* NULL if 'summary'. */
    size_t n;
    bool is_string;             /* Port group (port names). */
    int max_width;              /* Widest value, in bits (integers). */
    bool summary;               /* Only 'n' and 'max_width' are known. */
};

/* Address sets and port groups that "$name" and "@name" refer to.
 * Sets are parsed once when added, not on every reference. */
struct expr_refs {
    struct shash addr_sets;     /* name -> struct expr_const_set *. */
    struct shash port_groups;   /* name -> struct expr_const_set *. */
};

void expr_refs_init(struct expr_refs *);
void expr_refs_destroy(struct expr_refs *);
char *expr_refs_add_addr_set(struct expr_refs *, const char *name,
                             const char *const *addrs, size_t n)
    OVS_WARN_UNUSED_RESULT;
/* The same, keeping only how many addresses parse and the widest: enough
 * for expr_validate() to accept a match whose fields fit every address,
 * which is the usual case, without a copy of every address.  Anything
 * else about such a set (a member too wide for the field it is compared
 * with, or a full parse) fails with an error that means only "add the set
 * with its addresses and ask again". */
char *expr_refs_add_addr_set_summary(struct expr_refs *, const char *name,
                                     const char *const *addrs, size_t n)
    OVS_WARN_UNUSED_RESULT;
/* Forgets address set or port group 'name', if 'refs' has it. */
void expr_refs_remove_addr_set(struct expr_refs *, const char *name);
void expr_refs_remove_port_group(struct expr_refs *, const char *name);
void expr_refs_add_port_group(struct expr_refs *, const char *name,
                              const char *const *ports, size_t n);

/* Adds the SB Port_Group rows in 'port_groups' (name -> struct svec * of
 * port names) as ovn-controller resolves "@NAME" in a flow on the datapath
 * whose tunnel key is 'key' (decimal text): a row "KEY_NAME" is that
 * datapath's own group NAME and wins over a plain "NAME"; the rows of
 * other datapaths ("OTHERKEY_NAME") are left out. */
struct shash;
void expr_refs_add_sb_port_groups(struct expr_refs *,
                                  const struct shash *port_groups,
                                  const char *key);

enum expr_relop {
    EXPR_R_EQ,
    EXPR_R_NE,
    EXPR_R_LT,
    EXPR_R_LE,
    EXPR_R_GT,
    EXPR_R_GE,
};
const char *expr_relop_to_string(enum expr_relop);

enum expr_type {
    EXPR_T_CMP,                 /* Field compared with constant(s). */
    EXPR_T_AND,                 /* All of 'subs'. */
    EXPR_T_OR,                  /* Any of 'subs'. */
    EXPR_T_NOT,                 /* Not the one expression in 'subs'. */
    EXPR_T_BOOLEAN,             /* Constant true or false. */
    EXPR_T_CONDITION,           /* is_chassis_resident("PORT"), or its
                                 * negation. */
};

/* Compares bits [ofs, ofs + n_bits) of 'symbol' with constants.  With
 * several values (a set), EXPR_R_EQ means "equals any" and EXPR_R_NE
 * "equals none"; an empty set is allowed (from an empty address set). */
struct expr_cmp {
    const struct symtab_symbol *symbol;
    int ofs, n_bits;
    enum expr_relop relop;
    struct expr_const *values;
    size_t n_values;
    bool is_set;                /* Written as a set: format with braces. */
    char *ref_name;             /* Owned.  If the set was written as just
                                 * "$name" or "@name", that name, so that
                                 * it formats the same way. */
    bool implicit;              /* Bare multibit field "x", read as
                                 * "x != 0" but only valid negated. */
    size_t pos;                 /* Byte offset in the source, for errors. */
};

struct expr {
    struct ovs_list node;       /* In parent's 'subs'. */
    enum expr_type type;
    union {
        struct expr_cmp cmp;    /* EXPR_T_CMP. */
        struct ovs_list subs;   /* EXPR_T_AND, EXPR_T_OR, EXPR_T_NOT. */
        bool boolean;           /* EXPR_T_BOOLEAN. */
        struct {
            char *lport;        /* Owned: the quoted port name. */
            bool negated;       /* !is_chassis_resident(...). */
        } cond;                 /* EXPR_T_CONDITION. */
    };
};

struct expr *expr_create_boolean(bool);
struct expr *expr_create_andor(enum expr_type);
void expr_add_sub(struct expr *parent, struct expr *child);
struct expr *expr_clone(const struct expr *);
void expr_destroy(struct expr *);
void expr_format(const struct expr *, struct ds *);
char *expr_to_string(const struct expr *);

/* Parsing.  'refs' may be NULL (then any "$x" or "@x" is an error). */
char *expr_parse_string(const char *, const struct symtab *,
                        const struct expr_refs *, struct expr **)
    OVS_WARN_UNUSED_RESULT;
char *expr_parse(struct lexer *, const struct symtab *,
                 const struct expr_refs *, struct expr **)
    OVS_WARN_UNUSED_RESULT;

/* Annotation takes ownership of 'expr' and stores the result (or NULL on
 * error) in '*out'. */
char *expr_annotate(struct expr *expr, const struct symtab *,
                    struct expr **out) OVS_WARN_UNUSED_RESULT;
struct expr *expr_normalize(struct expr *);

/* ovn-controller 23.03 accepts at most 100 nested pairs of parentheses in
 * a match (measured against stock ovn-trace, tests/limits.at). */
#define EXPR_MAX_PAREN_DEPTH 100
/* Some of an ACL's flows enclose its match in one more pair
 * ("reg0[7] == 1 && (MATCH)"), so an ACL's match may nest one less. */
#define EXPR_ACL_MAX_PAREN_DEPTH (EXPR_MAX_PAREN_DEPTH - 1)

/* Parses, type-checks and annotates 'match'.  Returns NULL if
 * ovn-controller would accept it, otherwise an error. */
char *expr_validate(const char *match, const struct symtab *,
                    const struct expr_refs *) OVS_WARN_UNUSED_RESULT;
/* The same, with at most 'max_depth' nested parentheses (at most
 * EXPR_MAX_PAREN_DEPTH; EXPR_ACL_MAX_PAREN_DEPTH for an ACL's match), and
 * sets '*summary_failed' (if nonnull) if the error is only that an address
 * set held as a summary must be added with its addresses (see
 * expr_refs_add_addr_set_summary()) before the match can be judged. */
char *expr_validate_summaries(const char *match, const struct symtab *,
                              const struct expr_refs *, int max_depth,
                              bool *summary_failed)
    OVS_WARN_UNUSED_RESULT;

/* Writes to 'key' the match's "shape": 'match' with each "$name" and
 * "@name" replaced by all that expr_validate() reads of that set in
 * 'refs' (whether it exists, whether it holds strings, its widest member),
 * and each decimal constant that stands alone by its width.  Two matches
 * with the same key get the same verdict from expr_validate() (not the
 * same message: errors name sets and positions), so a valid key stands
 * for every match that has it.  Returns false, with 'key' meaningless,
 * for a match whose verdict could depend on more: one with a comment or
 * a '#', or naming an address set held with its members. */
bool expr_validation_key(const char *match, const struct expr_refs *,
                         struct ds *key);

/* A concrete packet and its metadata, for evaluation: values of base
 * fields by name.  Fields not set are zero (strings: empty). */
struct expr_flow {
    struct shash fields;        /* Base field name -> struct expr_flow_value. */
};

void expr_flow_init(struct expr_flow *);
void expr_flow_destroy(struct expr_flow *);
/* Initializes 'dst' as a copy of 'src'. */
void expr_flow_clone(struct expr_flow *dst, const struct expr_flow *src);
void expr_flow_set(struct expr_flow *, const struct symtab_symbol *,
                   int ofs, int n_bits, ovs_u128 value);
void expr_flow_set_string(struct expr_flow *, const struct symtab_symbol *,
                          const char *);
ovs_u128 expr_flow_get(const struct expr_flow *,
                       const struct symtab_symbol *field);
const char *expr_flow_get_string(const struct expr_flow *,
                                 const struct symtab_symbol *field);
void expr_flow_format(const struct expr_flow *, struct ds *);
char *expr_flow_parse(struct expr_flow *, const char *microflow,
                      const struct symtab *) OVS_WARN_UNUSED_RESULT;

/* is_chassis_resident() evaluates to true for every port, as stock
 * ovn-trace 23.03 evaluates it (as if every port resided on the chassis
 * the trace runs for). */
bool expr_evaluate(const struct expr *, const struct expr_flow *);

#endif /* lib/expr.h */
