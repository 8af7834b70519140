/* Symbol table of the OVN logical-flow language: see symtab.h. */
#include <config.h>

#include "lib/symtab.h"

#include <stdlib.h>
#include <string.h>

#include "lib/lex.h"
#include "openvswitch/util.h"
#include "util.h"

void
symtab_init(struct symtab *st)
{
    shash_init(&st->symbols);
}

void
symtab_destroy(struct symtab *st)
{
    if (!st) {
        return;
    }

    struct shash_node *node;
    SHASH_FOR_EACH (node, &st->symbols) {
        struct symtab_symbol *sym = node->data;
        free(sym->name);
        free(sym->expansion);
        free(sym->prereqs);
        free(sym);
    }
    shash_destroy(&st->symbols);
}

const struct symtab_symbol *
symtab_find(const struct symtab *st, const char *name)
{
    return shash_find_data(&st->symbols, name);
}

static struct symtab_symbol *
add_symbol(struct symtab *st, const char *name, enum symtab_kind kind,
           const char *prereqs)
{
    struct symtab_symbol *sym = xzalloc(sizeof *sym);

    sym->name = xstrdup(name);
    sym->kind = kind;
    sym->prereqs = nullable_xstrdup(prereqs);
    sym->maskable = true;
    sym->write = SYMTAB_WR_ANY;
    if (!shash_add_once(&st->symbols, name, sym)) {
        OVS_NOT_REACHED();
    }
    return sym;
}

struct symtab_symbol *
symtab_add_field(struct symtab *st, const char *name, int width,
                 const char *prereqs, bool nominal)
{
    struct symtab_symbol *sym = add_symbol(st, name, SYMTAB_FIELD, prereqs);

    ovs_assert(width > 0 && width <= 128);
    sym->width = width;
    sym->nominal = nominal;
    sym->maskable = !nominal;
    return sym;
}

struct symtab_symbol *
symtab_add_string(struct symtab *st, const char *name, const char *prereqs)
{
    struct symtab_symbol *sym = add_symbol(st, name, SYMTAB_FIELD, prereqs);

    sym->is_string = true;
    sym->nominal = true;
    sym->maskable = false;
    return sym;
}

struct symtab_symbol *
symtab_add_subfield(struct symtab *st, const char *name, const char *prereqs,
                    const char *base_name, int lo, int hi)
{
    const struct symtab_symbol *base = symtab_find(st, base_name);

    ovs_assert(base && base->kind != SYMTAB_PREDICATE && !base->is_string);
    ovs_assert(lo >= 0 && lo <= hi && hi < base->width);

    struct symtab_symbol *sym = add_symbol(st, name, SYMTAB_SUBFIELD,
                                           prereqs);
    sym->width = hi - lo + 1;
    sym->ofs = lo;
    sym->write = base->write;
    sym->expansion = xasprintf("%s[%d..%d]", base_name, lo, hi);
    if (base->kind == SYMTAB_SUBFIELD) {
        sym->ofs += base->ofs;
        base = base->field;
    }
    sym->field = base;
    return sym;
}

/* A predicate is nominal if its definition names a nominal symbol. */
static bool
expansion_is_nominal(const struct symtab *st, const char *expansion)
{
    struct lexer lexer;
    bool nominal = false;

    lex_init(&lexer, expansion);
    while (lex_next(&lexer) != LEX_T_END) {
        ovs_assert(lexer.token.type != LEX_T_ERROR);
        if (lexer.token.type == LEX_T_ID) {
            const struct symtab_symbol *sym = symtab_find(st,
                                                          lexer.token.s);
            ovs_assert(sym);
            nominal = nominal || sym->nominal;
        }
    }
    lex_destroy(&lexer);
    return nominal;
}

struct symtab_symbol *
symtab_add_predicate(struct symtab *st, const char *name,
                     const char *expansion)
{
    bool nominal = expansion_is_nominal(st, expansion);
    struct symtab_symbol *sym = add_symbol(st, name, SYMTAB_PREDICATE, NULL);

    sym->expansion = xstrdup(expansion);
    sym->nominal = nominal;
    sym->maskable = false;
    sym->write = SYMTAB_WR_NONE;
    return sym;
}

static int
compare_symbols(const void *a_, const void *b_)
{
    const struct symtab_symbol *const *a = a_;
    const struct symtab_symbol *const *b = b_;
    return strcmp((*a)->name, (*b)->name);
}

const struct symtab_symbol **
symtab_sorted(const struct symtab *st, size_t *n)
{
    const struct symtab_symbol **v;
    struct shash_node *node;
    size_t i = 0;

    v = xmalloc(MAX(1, shash_count(&st->symbols)) * sizeof *v);
    SHASH_FOR_EACH (node, &st->symbols) {
        v[i++] = node->data;
    }
    qsort(v, i, sizeof *v, compare_symbols);
    *n = i;
    return v;
}

/* The OVN 23.03 logical-switch symbol table. */

static void
add_bit(struct symtab *st, const char *name, const char *prereqs,
        const char *base, int bit)
{
    symtab_add_subfield(st, name, prereqs, base, bit, bit);
}

static void
add_registers(struct symtab *st)
{
    /* Ten 32-bit registers.  reg0..reg7 overlay xxreg0 and xxreg1 (reg0 is
     * the most significant quarter of xxreg0) and xreg0..xreg3 their
     * halves; reg8 and reg9 overlay xreg4 the same way. */
    for (int i = 0; i < 2; i++) {
        char *name = xasprintf("xxreg%d", i);
        symtab_add_field(st, name, 128, NULL, false);
        free(name);
    }
    symtab_add_field(st, "xreg4", 64, NULL, false);
    for (int i = 0; i < 4; i++) {
        char *name = xasprintf("xreg%d", i);
        char *base = xasprintf("xxreg%d", i / 2);
        int lo = i % 2 ? 0 : 64;
        symtab_add_subfield(st, name, NULL, base, lo, lo + 63);
        free(base);
        free(name);
    }
    for (int i = 0; i < 10; i++) {
        char *name = xasprintf("reg%d", i);
        char *base;
        int lo;
        if (i < 8) {
            base = xasprintf("xxreg%d", i / 4);
            lo = 32 * (3 - i % 4);
        } else {
            base = xstrdup("xreg4");
            lo = i % 2 ? 0 : 32;
        }
        symtab_add_subfield(st, name, NULL, base, lo, lo + 31);
        free(base);
        free(name);
    }
}

static void
add_ct(struct symtab *st)
{
    static const struct {
        const char *name;
        int lo, hi;
    } mark_bits[] = {
        { "ct_mark.blocked", 0, 0 },
        { "ct_mark.natted", 1, 1 },
        { "ct_mark.skip_snat", 2, 2 },
        { "ct_mark.force_snat", 3, 3 },
        { "ct_mark.ecmp_reply_port", 16, 31 },
    }, label_bits[] = {
        { "ct_label.blocked", 0, 0 },
        { "ct_label.natted", 1, 1 },
        { "ct_label.skip_snat", 2, 2 },
        { "ct_label.force_snat", 3, 3 },
        { "ct_label.ecmp_reply_eth", 32, 79 },
        { "ct_label.ecmp_reply_port", 80, 95 },
        { "ct_label.label", 96, 127 },
    };
    static const char *states[] = {
        "new", "est", "rel", "rpl", "inv", "trk", "snat", "dnat",
    };

    symtab_add_field(st, "ct_mark", 32, NULL, false)->write
        = SYMTAB_WR_CT_COMMIT;
    for (size_t i = 0; i < ARRAY_SIZE(mark_bits); i++) {
        symtab_add_subfield(st, mark_bits[i].name, NULL, "ct_mark",
                            mark_bits[i].lo, mark_bits[i].hi);
    }
    symtab_add_field(st, "ct_label", 128, NULL, false)->write
        = SYMTAB_WR_CT_COMMIT;
    for (size_t i = 0; i < ARRAY_SIZE(label_bits); i++) {
        symtab_add_subfield(st, label_bits[i].name, NULL, "ct_label",
                            label_bits[i].lo, label_bits[i].hi);
    }

    symtab_add_field(st, "ct_state", 32, NULL, false)->write
        = SYMTAB_WR_NONE;
    for (int i = 0; i < ARRAY_SIZE(states); i++) {
        char *name = xasprintf("ct.%s", states[i]);
        add_bit(st, name, strcmp(states[i], "trk") ? "ct.trk" : NULL,
                "ct_state", i);
        free(name);
    }
}

/* Adds 'name' as a read-only nominal field. */
static void
add_ro_nominal(struct symtab *st, const char *name, int width,
               const char *prereqs)
{
    symtab_add_field(st, name, width, prereqs, true)->write = SYMTAB_WR_NONE;
}

static void
add_arp(struct symtab *st, const char *proto)
{
    static const struct {
        const char *suffix;
        int width;
        bool nominal;
    } fields[] = {
        { "op", 16, true },
        { "spa", 32, false },
        { "tpa", 32, false },
        { "sha", 48, false },
        { "tha", 48, false },
    };

    for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
        char *name = xasprintf("%s.%s", proto, fields[i].suffix);
        symtab_add_field(st, name, fields[i].width, proto, fields[i].nominal);
        free(name);
    }
}

void
symtab_init_ovn(struct symtab *st)
{
    symtab_init(st);

    /* Logical ports, carried in registers as tunnel keys but named by
     * string in the language. */
    symtab_add_string(st, "inport", NULL);
    symtab_add_string(st, "outport", NULL);

    add_registers(st);

    /* Logical flags (bits of a hidden register). */
    symtab_add_field(st, "flags", 32, NULL, false);
    add_bit(st, "flags.loopback", NULL, "flags", 0);
    add_bit(st, "flags.force_snat_for_dnat", NULL, "flags", 2);
    add_bit(st, "flags.force_snat_for_lb", NULL, "flags", 3);
    add_bit(st, "flags.skip_snat_for_lb", NULL, "flags", 9);
    add_bit(st, "flags.use_snat_zone", NULL, "flags", 11);

    add_ct(st);

    /* Ethernet and VLAN. */
    symtab_add_field(st, "eth.src", 48, NULL, false);
    symtab_add_field(st, "eth.dst", 48, NULL, false);
    add_ro_nominal(st, "eth.type", 16, NULL);
    symtab_add_predicate(st, "eth.bcast", "eth.dst == ff:ff:ff:ff:ff:ff");
    add_bit(st, "eth.mcast", NULL, "eth.dst", 40);
    symtab_add_predicate(st, "eth.mcastv6", "eth.dst[32..47] == 0x3333");

    symtab_add_field(st, "vlan.tci", 16, NULL, false);
    symtab_add_predicate(st, "vlan.present", "vlan.tci[12]");
    symtab_add_subfield(st, "vlan.pcp", "vlan.present", "vlan.tci", 13, 15);
    symtab_add_subfield(st, "vlan.vid", "vlan.present", "vlan.tci", 0, 11);

    /* IP, common to both versions. */
    symtab_add_predicate(st, "ip4", "eth.type == 0x800");
    symtab_add_predicate(st, "ip6", "eth.type == 0x86dd");
    symtab_add_predicate(st, "ip", "ip4 || ip6");
    add_ro_nominal(st, "ip.proto", 8, "ip");
    symtab_add_field(st, "ip.dscp", 6, "ip", true);
    symtab_add_field(st, "ip.ecn", 2, "ip", true);
    symtab_add_field(st, "ip.ttl", 8, "ip", true);
    symtab_add_field(st, "ip.frag", 8, "ip", false)->write = SYMTAB_WR_NONE;
    symtab_add_predicate(st, "ip.is_frag", "ip.frag[0]");
    symtab_add_predicate(st, "ip.later_frag", "ip.frag[1]");
    symtab_add_predicate(st, "ip.first_frag", "ip.is_frag && !ip.later_frag");

    /* IPv4. */
    symtab_add_field(st, "ip4.src", 32, "ip4", false);
    symtab_add_field(st, "ip4.dst", 32, "ip4", false);
    symtab_add_predicate(st, "ip4.src_mcast", "ip4.src[28..31] == 0xe");
    symtab_add_predicate(st, "ip4.mcast",
                         "eth.mcast && ip4.dst[28..31] == 0xe");
    symtab_add_predicate(st, "icmp4", "ip4 && ip.proto == 1");
    symtab_add_field(st, "icmp4.type", 8, "icmp4", true);
    symtab_add_field(st, "icmp4.code", 8, "icmp4", true);
    symtab_add_predicate(st, "igmp", "ip4.mcast && ip.proto == 2");

    /* IPv6. */
    symtab_add_field(st, "ip6.src", 128, "ip6", false);
    symtab_add_field(st, "ip6.dst", 128, "ip6", false);
    symtab_add_field(st, "ip6.label", 20, "ip6", false);
    symtab_add_predicate(st, "ip6.mcast_rsvd",
                         "ip6.dst[116..127] == 0xff0 && "
                         "ip6.dst[0..111] == 0x0");
    symtab_add_predicate(st, "ip6.mcast_all_nodes",
                         "ip6.dst == ff01::1 || ip6.dst == ff02::1");
    symtab_add_predicate(st, "ip6.mcast_all_rtrs",
                         "ip6.dst == ff01::2 || ip6.dst == ff02::2 || "
                         "ip6.dst == ff05::2");
    symtab_add_predicate(st, "ip6.mcast_sol_node",
                         "ip6.dst == ff02::1:ff00:0000/104");
    symtab_add_predicate(st, "ip6.mcast_flood",
                         "eth.mcastv6 && (ip6.mcast_rsvd || "
                         "ip6.mcast_all_nodes || ip6.mcast_all_rtrs || "
                         "ip6.mcast_sol_node)");
    symtab_add_predicate(st, "ip6.mcast",
                         "eth.mcastv6 && ip6.dst[120..127] == 0xff");
    symtab_add_predicate(st, "icmp6", "ip6 && ip.proto == 58");
    symtab_add_field(st, "icmp6.type", 8, "icmp6", true);
    symtab_add_field(st, "icmp6.code", 8, "icmp6", true);
    symtab_add_predicate(st, "icmp", "icmp4 || icmp6");

    /* ARP and RARP share one layout. */
    symtab_add_predicate(st, "arp", "eth.type == 0x806");
    add_arp(st, "arp");
    symtab_add_predicate(st, "rarp", "eth.type == 0x8035");
    add_arp(st, "rarp");

    /* IPv6 neighbour discovery and multicast listener discovery. */
    symtab_add_predicate(st, "nd", "icmp6.type == {135, 136} && "
                         "icmp6.code == 0 && ip.ttl == 255");
    symtab_add_predicate(st, "nd_ns", "icmp6.type == 135 && "
                         "icmp6.code == 0 && ip.ttl == 255");
    symtab_add_predicate(st, "nd_na", "icmp6.type == 136 && "
                         "icmp6.code == 0 && ip.ttl == 255");
    symtab_add_predicate(st, "nd_rs", "icmp6.type == 133 && "
                         "icmp6.code == 0 && ip.ttl == 255");
    symtab_add_predicate(st, "nd_ra", "icmp6.type == 134 && "
                         "icmp6.code == 0 && ip.ttl == 255");
    symtab_add_field(st, "nd.target", 128, "nd", false);
    symtab_add_field(st, "nd.sll", 48, "nd_ns", false);
    symtab_add_field(st, "nd.tll", 48, "nd_na", false);
    symtab_add_predicate(st, "mldv1", "eth.mcastv6 && ip6.src == fe80::/10 "
                         "&& icmp6.type == {130, 131, 132}");
    symtab_add_predicate(st, "mldv2", "eth.mcastv6 && ip6.dst == ff02::16 "
                         "&& icmp6.type == 143");

    /* L4. */
    symtab_add_predicate(st, "tcp", "ip.proto == 6");
    symtab_add_field(st, "tcp.src", 16, "tcp", false);
    symtab_add_field(st, "tcp.dst", 16, "tcp", false);
    symtab_add_field(st, "tcp.flags", 12, "tcp", false)->write
        = SYMTAB_WR_NONE;
    symtab_add_predicate(st, "udp", "ip.proto == 17");
    symtab_add_field(st, "udp.src", 16, "udp", false);
    symtab_add_field(st, "udp.dst", 16, "udp", false);
    symtab_add_predicate(st, "sctp", "ip.proto == 132");
    symtab_add_field(st, "sctp.src", 16, "sctp", false);
    symtab_add_field(st, "sctp.dst", 16, "sctp", false);

    symtab_add_field(st, "pkt.mark", 32, NULL, false);

    /* OVN-only fields set by the icmp4/icmp6 actions. */
    symtab_add_field(st, "icmp4.frag_mtu", 16, NULL, true)->write
        = SYMTAB_WR_ICMP;
    symtab_add_field(st, "icmp6.frag_mtu", 32, NULL, true)->write
        = SYMTAB_WR_ICMP;
}
