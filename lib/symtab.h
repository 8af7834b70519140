/* Symbol table of the OVN logical-flow language.
 *
 * A symbol is one of:
 *
 *   - a field: a packet or metadata field with a width in bits
 *     ("ip4.src", 32 bits), or a string field naming a logical port
 *     ("inport");
 *   - a subfield: a named bit range of another field ("reg0" is
 *     "xxreg0[96..127]", "ct.est" is "ct_state[1]");
 *   - a predicate: a name for a match expression ("tcp" is
 *     "ip.proto == 6").
 *
 * Fields and subfields may have prerequisites, a match that must also hold
 * for the field to be meaningful ("tcp.dst" requires "tcp").
 *
 * A "nominal" symbol may only be tested for equality: string fields,
 * fields that OpenFlow cannot match with a mask (ip.proto, eth.type, ...),
 * and predicates whose definition uses one (tcp, ip4, ...).
 *
 * symtab_init_ovn() fills a table with the fields that ovn-controller
 * 23.03 accepts in logical switch pipelines, as checked against stock
 * ovn-trace.  The facts (names, widths, bit positions, prerequisites)
 * are the language's interface; docs/language.md lists them. */
#ifndef SYMTAB_H
#define SYMTAB_H 1

#include <stdbool.h>
#include "openvswitch/shash.h"

enum symtab_kind {
    SYMTAB_FIELD,
    SYMTAB_SUBFIELD,
    SYMTAB_PREDICATE,
};

/* Where an action may assign to a symbol. */
enum symtab_write {
    SYMTAB_WR_NONE,             /* Read-only. */
    SYMTAB_WR_ANY,              /* Anywhere. */
    SYMTAB_WR_CT_COMMIT,        /* Only inside ct_commit { ... }. */
    SYMTAB_WR_ICMP,             /* Anywhere, even inside ct_commit { }
                                 * (icmp4.frag_mtu, icmp6.frag_mtu). */
};

struct symtab_symbol {
    char *name;
    enum symtab_kind kind;
    int width;                  /* Bits; 0 for string fields and
                                 * predicates. */
    bool is_string;             /* String field (inport, outport). */
    bool nominal;               /* Only == and != (see above). */
    bool maskable;              /* Field may be matched with a mask. */
    enum symtab_write write;

    /* SYMTAB_SUBFIELD: 'field' is the base field (never a subfield) and
     * the subfield is bits [ofs, ofs + width) of it. */
    const struct symtab_symbol *field;
    int ofs;

    char *expansion;            /* SYMTAB_PREDICATE: its definition.  For
                                 * SYMTAB_SUBFIELD, "base[a..b]". */
    char *prereqs;              /* Match text, or NULL if none. */
};

/* A table of symbols by name. */
struct symtab {
    struct shash symbols;       /* Contains "struct symtab_symbol *"s. */
};

void symtab_init(struct symtab *);
void symtab_init_ovn(struct symtab *);
void symtab_destroy(struct symtab *);

const struct symtab_symbol *symtab_find(const struct symtab *,
                                        const char *name);

/* Builders.  Each asserts that 'name' is new and that definitions refer
 * only to symbols already added. */
struct symtab_symbol *symtab_add_field(struct symtab *, const char *name,
                                       int width, const char *prereqs,
                                       bool nominal);
struct symtab_symbol *symtab_add_string(struct symtab *, const char *name,
                                        const char *prereqs);
struct symtab_symbol *symtab_add_subfield(struct symtab *, const char *name,
                                          const char *prereqs,
                                          const char *base, int lo, int hi);
struct symtab_symbol *symtab_add_predicate(struct symtab *,
                                           const char *name,
                                           const char *expansion);

/* Returns the symbols sorted by name; the caller frees the array only. */
const struct symtab_symbol **symtab_sorted(const struct symtab *,
                                           size_t *n);

#endif /* lib/symtab.h */
