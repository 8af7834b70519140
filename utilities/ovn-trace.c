/* ovn-trace, ours: traces a packet through the logical flows of a
 * southbound database with our own language library (lib/expr.h,
 * lib/actions.h), prints what stock ovn-trace 23.03 prints, and names the
 * northbound objects (ACLs, load balancers, port security) that decided.
 * docs/trace.md describes it. */
#include <config.h>

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command-line.h"
#include "fatal-signal.h"
#include "flow.h"
#include "lib/actions.h"
#include "lib/lex.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "stream-ssl.h"
#include "util.h"
#include "uuid.h"
#include "utilities/trace.h"

VLOG_DEFINE_THIS_MODULE(ovn_trace);

enum node_type {
    N_OUTPUT,
    N_MODIFY,
    N_ACTION,
    N_ERROR,
    N_PIPELINE,
    N_TABLE,
    N_TRANSFORMATION,
    N_NOTE,                     /* Ours: the NB object that decided. */
};

static const char *const node_type_names[] = {
    "output", "modify", "action", "error", "pipeline", "table",
    "transformation", "note",
};

struct node {
    struct ovs_list list_node;  /* In parent's 'subs'. */
    enum node_type type;
    char *name;
    bool always_indent;
    struct ovs_list subs;
    const struct trace_flow *flow;      /* N_TABLE: the flow, if any. */
    struct json *object;                /* N_NOTE: details, owned. */
    bool decisive;                      /* N_NOTE: kept by --minimal. */
};

/* Options and state of one trace. */
struct tracer {
    struct trace_db *db;

    uint8_t *ct_states;         /* --ct, in order. */
    size_t n_ct_states, ct_idx;

    int select_id;              /* --select-id, or -1. */
    bool lb_dst_set;            /* --lb-dst. */
    bool lb_dst_v6;
    ovs_u128 lb_dst_ip;
    int lb_dst_port;

    bool notes;                 /* Name the NB objects that decided. */
    int depth;
    ovs_u128 stack[16];         /* push() and pop(). */
    size_t n_stack;

    /* A sequence of packets (--then): their conntrack table. */
    bool conntrack;
    struct ct_conn *conns;
    size_t n_conns;

    /* Base fields used by actions. */
    const struct symtab_symbol *eth_src, *eth_dst, *eth_type, *vlan_tci;
    const struct symtab_symbol *ip4_src, *ip4_dst, *ip6_src, *ip6_dst;
    const struct symtab_symbol *ip_proto, *ip_ttl, *ip_frag, *ip_dscp,
        *ip_ecn;
    const struct symtab_symbol *tcp_src, *tcp_dst, *tcp_flags, *udp_src,
        *udp_dst, *sctp_src, *sctp_dst;
    const struct symtab_symbol *icmp4_type, *icmp4_code, *icmp6_type,
        *icmp6_code;
    const struct symtab_symbol *arp_op, *arp_sha, *arp_tha, *arp_spa,
        *arp_tpa;
    const struct symtab_symbol *nd_target, *nd_sll, *nd_tll;
    const struct symtab_symbol *ct_state, *ct_mark, *ct_label, *pkt_mark;
    const struct symtab_symbol *inport, *outport, *flags;
    const struct symtab_symbol *xxreg0, *xxreg1, *xreg4;
};

/* A connection committed by a packet of a sequence (--then): its zone
 * (a switch's port, or a router) and original direction, and what
 * ct_commit { } stored in it. */
struct ct_conn {
    int64_t zone;
    bool ipv6;
    ovs_u128 src, dst;
    uint8_t proto;
    uint16_t sport, dport;
    uint32_t mark;
    ovs_u128 label;
};

/* A packet: its fields, and the conntrack original destination that a
 * ct_lb set (for chk_lb_hairpin). */
struct pkt {
    struct expr_flow f;
    bool has_ct_orig;
    ovs_u128 ct_orig_ip;
    int ct_orig_tp_dst;
};

static void
pkt_clone(struct pkt *dst, const struct pkt *src)
{
    expr_flow_clone(&dst->f, &src->f);
    dst->has_ct_orig = src->has_ct_orig;
    dst->ct_orig_ip = src->ct_orig_ip;
    dst->ct_orig_tp_dst = src->ct_orig_tp_dst;
}

static void
pkt_destroy(struct pkt *p)
{
    expr_flow_destroy(&p->f);
}

static ovs_u128
u128(uint64_t x)
{
    return lex_u128_from_u64(x);
}

static uint64_t
get64(const struct pkt *p, const struct symtab_symbol *s)
{
    return expr_flow_get(&p->f, s).u64.lo;
}

static ovs_u128
get(const struct pkt *p, const struct symtab_symbol *s)
{
    return expr_flow_get(&p->f, s);
}

static void
set(struct pkt *p, const struct symtab_symbol *s, ovs_u128 v)
{
    expr_flow_set(&p->f, s, 0, s->width, v);
}

static void
set64(struct pkt *p, const struct symtab_symbol *s, uint64_t v)
{
    set(p, s, u128(v));
}

static const char *
getstr(const struct pkt *p, const struct symtab_symbol *s)
{
    return expr_flow_get_string(&p->f, s);
}

/* Nodes. */

static struct node * OVS_PRINTF_FORMAT(3, 4)
node_append(struct ovs_list *super, enum node_type type,
            const char *format, ...)
{
    va_list args;
    struct node *n = xzalloc(sizeof *n);

    va_start(args, format);
    n->name = xvasprintf(format, args);
    va_end(args);
    n->type = type;
    ovs_list_init(&n->subs);
    ovs_list_push_back(super, &n->list_node);
    return n;
}

static void node_list_destroy(struct ovs_list *);

static void
node_destroy(struct node *n)
{
    node_list_destroy(&n->subs);
    json_destroy(n->object);
    free(n->name);
    free(n);
}

static void
node_list_destroy(struct ovs_list *list)
{
    struct node *n;
    LIST_FOR_EACH_POP (n, list_node, list) {
        node_destroy(n);
    }
}

static void
node_list_clone(const struct ovs_list *from, struct ovs_list *to)
{
    const struct node *n;
    LIST_FOR_EACH (n, list_node, from) {
        struct node *c = node_append(to, n->type, "%s", n->name);
        c->always_indent = n->always_indent;
        c->flow = n->flow;
        c->object = n->object ? json_clone(n->object) : NULL;
        c->decisive = n->decisive;
        node_list_clone(&n->subs, &c->subs);
    }
}

static bool
node_is_terminal(enum node_type t)
{
    return t == N_OUTPUT || t == N_MODIFY || t == N_ACTION || t == N_ERROR
           || t == N_NOTE;
}

static void
print_details(struct ds *out, const struct ovs_list *nodes, int level)
{
    const struct node *n;
    LIST_FOR_EACH (n, list_node, nodes) {
        if (n->type == N_MODIFY) {
            continue;
        }
        int more = (n->list_node.next != nodes || n->always_indent
                    || node_is_terminal(n->type));
        bool title = n->type == N_PIPELINE || n->type == N_TRANSFORMATION;
        if (title) {
            ds_put_char(out, '\n');
        }
        ds_put_char_multiple(out, ' ', (level + more) * 4);
        ds_put_format(out, "%s\n", n->name);
        if (title) {
            ds_put_char_multiple(out, ' ', (level + more) * 4);
            ds_put_char_multiple(out, '-', strlen(n->name));
            ds_put_char(out, '\n');
        }
        print_details(out, &n->subs, level + 2 * more);
    }
}

/* Replaces each node of a type in 'mask' by its children. */
static void
prune(struct ovs_list *nodes, unsigned int mask)
{
    struct node *n;
    LIST_FOR_EACH_SAFE (n, list_node, nodes) {
        prune(&n->subs, mask);
        if ((mask & (1u << n->type))
            || (n->type == N_NOTE && !n->decisive
                && (mask & (1u << N_PIPELINE)))) {
            struct ovs_list *where = n->list_node.next;
            ovs_list_remove(&n->list_node);
            if (!ovs_list_is_empty(&n->subs)) {
                ovs_list_splice(where, n->subs.next, &n->subs);
            }
            node_destroy(n);
        }
    }
}

static void
print_summary(struct ds *out, const struct ovs_list *nodes, int level)
{
    const struct node *n;
    LIST_FOR_EACH (n, list_node, nodes) {
        if (n->type == N_ACTION && !strncmp(n->name, "next(", 5)) {
            continue;
        }
        ds_put_char_multiple(out, ' ', level * 4);
        ds_put_cstr(out, n->name);
        if (!ovs_list_is_empty(&n->subs)) {
            ds_put_cstr(out, " {\n");
            print_summary(out, &n->subs, level + 1);
            ds_put_char_multiple(out, ' ', level * 4);
            ds_put_char(out, '}');
        }
        if (n->type != N_ACTION && n->type != N_NOTE) {
            ds_put_char(out, ';');
        }
        ds_put_char(out, '\n');
    }
}

/* Addresses. */

static ovs_be32
to_be32(ovs_u128 v)
{
    return htonl((uint32_t) v.u64.lo);
}

static struct in6_addr
to_in6(ovs_u128 v)
{
    struct in6_addr a;
    for (int i = 0; i < 16; i++) {
        int shift = 8 * (15 - i);
        uint64_t w = shift >= 64 ? v.u64.hi >> (shift - 64)
                                 : v.u64.lo >> shift;
        a.s6_addr[i] = w & 0xff;
    }
    return a;
}

static ovs_u128
from_in6(const struct in6_addr *a)
{
    ovs_u128 v = u128(0);
    for (int i = 0; i < 16; i++) {
        v = lex_u128_or(lex_u128_shl(v, 8), u128(a->s6_addr[i]));
    }
    return v;
}

static struct eth_addr
to_eth(ovs_u128 v)
{
    struct eth_addr e;
    for (int i = 0; i < 6; i++) {
        e.ea[i] = (v.u64.lo >> (8 * (5 - i))) & 0xff;
    }
    return e;
}

static ovs_u128
from_eth(struct eth_addr e)
{
    uint64_t x = 0;
    for (int i = 0; i < 6; i++) {
        x = (x << 8) | e.ea[i];
    }
    return u128(x);
}

static bool
is_ip4(const struct tracer *t, const struct pkt *p)
{
    return get64(p, t->eth_type) == 0x800;
}

static bool
is_ip6(const struct tracer *t, const struct pkt *p)
{
    return get64(p, t->eth_type) == 0x86dd;
}

/* The field that OVS keeps in tp_src (or tp_dst) for this packet. */
static const struct symtab_symbol *
tp_field(const struct tracer *t, const struct pkt *p, bool src)
{
    if (!is_ip4(t, p) && !is_ip6(t, p)) {
        return NULL;
    }
    switch (get64(p, t->ip_proto)) {
    case 6: return src ? t->tcp_src : t->tcp_dst;
    case 17: return src ? t->udp_src : t->udp_dst;
    case 132: return src ? t->sctp_src : t->sctp_dst;
    case 1: return is_ip4(t, p) ? (src ? t->icmp4_type : t->icmp4_code)
                                : NULL;
    case 58: return is_ip6(t, p) ? (src ? t->icmp6_type : t->icmp6_code)
                                 : NULL;
    }
    return NULL;
}

static uint64_t
tp_get(const struct tracer *t, const struct pkt *p, bool src)
{
    const struct symtab_symbol *s = tp_field(t, p, src);
    return s ? get64(p, s) : 0;
}

static void
tp_set(const struct tracer *t, struct pkt *p, bool src, uint64_t v)
{
    const struct symtab_symbol *s = tp_field(t, p, src);
    if (s) {
        set64(p, s, v & ((UINT64_C(1) << s->width) - 1));
    }
}

/* Changes the packet's IP protocol, keeping its transport ports where OVS
 * keeps them (tp_src, tp_dst). */
static void
set_proto(const struct tracer *t, struct pkt *p, int proto)
{
    uint64_t src = tp_get(t, p, true), dst = tp_get(t, p, false);
    set64(p, t->ip_proto, proto);
    tp_set(t, p, true, src);
    tp_set(t, p, false, dst);
}

/* The OVS flow for a packet, for printing it as stock does. */
static void
to_ovs_flow(const struct tracer *t, const struct trace_dp *dp,
            const struct pkt *p, struct flow *f)
{
    memset(f, 0, sizeof *f);
    f->dl_src = to_eth(get(p, t->eth_src));
    f->dl_dst = to_eth(get(p, t->eth_dst));
    f->dl_type = htons(get64(p, t->eth_type));
    f->vlans[0].tci = htons(get64(p, t->vlan_tci));
    uint64_t type = get64(p, t->eth_type);
    if (type == 0x800 || type == 0x86dd) {
        if (type == 0x800) {
            f->nw_src = to_be32(get(p, t->ip4_src));
            f->nw_dst = to_be32(get(p, t->ip4_dst));
        } else {
            f->ipv6_src = to_in6(get(p, t->ip6_src));
            f->ipv6_dst = to_in6(get(p, t->ip6_dst));
        }
        f->nw_proto = get64(p, t->ip_proto);
        f->nw_ttl = get64(p, t->ip_ttl);
        f->nw_tos = (get64(p, t->ip_dscp) << 2) | get64(p, t->ip_ecn);
        f->nw_frag = get64(p, t->ip_frag);
        f->tp_src = htons(tp_get(t, p, true));
        f->tp_dst = htons(tp_get(t, p, false));
        if (f->nw_proto == 6) {
            f->tcp_flags = htons(get64(p, t->tcp_flags));
        }
        if (f->nw_proto == 58 && (ntohs(f->tp_src) == 135
                                  || ntohs(f->tp_src) == 136)) {
            f->nd_target = to_in6(get(p, t->nd_target));
            f->arp_sha = to_eth(get(p, t->nd_sll));
            f->arp_tha = to_eth(get(p, t->nd_tll));
        }
    } else if (type == 0x806 || type == 0x8035) {
        f->nw_proto = get64(p, t->arp_op);
        f->nw_src = to_be32(get(p, t->arp_spa));
        f->nw_dst = to_be32(get(p, t->arp_tpa));
        f->arp_sha = to_eth(get(p, t->arp_sha));
        f->arp_tha = to_eth(get(p, t->arp_tha));
    }
    f->ct_state = get64(p, t->ct_state);
    f->ct_mark = get64(p, t->ct_mark);
    ovs_u128 label = get(p, t->ct_label);
    f->ct_label.u64.lo = label.u64.lo;
    f->ct_label.u64.hi = label.u64.hi;
    f->pkt_mark = get64(p, t->pkt_mark);
    ovs_u128 x0 = get(p, t->xxreg0), x1 = get(p, t->xxreg1);
    for (int i = 0; i < 4; i++) {
        f->regs[i] = lex_u128_shr(x0, 32 * (3 - i)).u64.lo;
        f->regs[4 + i] = lex_u128_shr(x1, 32 * (3 - i)).u64.lo;
    }
    uint64_t x4 = get64(p, t->xreg4);
    f->regs[8] = x4 >> 32;
    f->regs[9] = x4;
    f->regs[10] = get64(p, t->flags);
    const char *names[2] = { getstr(p, t->inport), getstr(p, t->outport) };
    for (int i = 0; i < 2; i++) {
        const struct trace_port *port = shash_find_data(&dp->ports,
                                                        names[i]);
        const struct trace_mcgroup *mc = shash_find_data(&dp->mcgroups,
                                                         names[i]);
        f->regs[14 + i] = port ? port->key : mc ? mc->key : 0;
    }
}

/* Names. */

static const char *
port_friendly(const struct trace_dp *dp, const char *name)
{
    const struct trace_port *port = shash_find_data(&dp->ports, name);
    return (port ? port->friendly
            : !name[0] || !strcmp(name, "none") ? "" : "(unnamed)");
}

/* Conntrack states. */

static const char *const ct_bits[] = {
    "new", "est", "rel", "rpl", "inv", "trk", "snat", "dnat",
};

static void
format_ct_state(uint8_t state, struct ds *s)
{
    bool first = true;
    for (int i = 0; i < 8; i++) {
        if (state & (1u << i)) {
            ds_put_format(s, "%s%s", first ? "" : "|", ct_bits[i]);
            first = false;
        }
    }
    if (first) {
        ds_put_char(s, '0');
    }
}

static char *
trace_parse_ct_state(const char *s_, uint8_t *state)
{
    char *s = xstrdup(s_), *save = NULL;
    *state = 1u << 5;           /* trk */
    for (char *w = strtok_r(s, ",|+ ", &save); w;
         w = strtok_r(NULL, ",|+ ", &save)) {
        int i;
        for (i = 0; i < 8; i++) {
            if (!strcmp(w, ct_bits[i])) {
                break;
            }
        }
        if (i == 8) {
            char *error = xasprintf("%s: unknown connection tracking state "
                                    "flag", w);
            free(s);
            return error;
        }
        *state |= 1u << i;
    }
    free(s);
    return NULL;
}

/* Conntrack emulation for sequences of packets. */

static int64_t
ct_zone(const struct tracer *t, const struct trace_dp *dp,
        const struct pkt *p, bool egress)
{
    /* A switch tracks connections per logical port (the inport's zone in
     * the ingress pipeline, the outport's in the egress one), a router
     * once for the router. */
    int64_t zone = dp->key << 16;
    if (!dp->is_router) {
        const struct trace_port *port = shash_find_data(
            &dp->ports, getstr(p, egress ? t->outport : t->inport));
        zone |= port ? port->key & 0xffff : 0;
    }
    return zone;
}

static void
ct_tuple(const struct tracer *t, const struct pkt *p, struct ct_conn *c)
{
    c->ipv6 = is_ip6(t, p);
    c->src = get(p, c->ipv6 ? t->ip6_src : t->ip4_src);
    c->dst = get(p, c->ipv6 ? t->ip6_dst : t->ip4_dst);
    c->proto = get64(p, t->ip_proto);
    bool ports = c->proto == 6 || c->proto == 17 || c->proto == 132;
    c->sport = ports ? tp_get(t, p, true) : 0;
    c->dport = ports ? tp_get(t, p, false) : 0;
}

/* The connection 'p' belongs to in its zone, or NULL; '*reply' says
 * whether 'p' goes in its reply direction. */
static struct ct_conn *
ct_find(const struct tracer *t, const struct trace_dp *dp,
        const struct pkt *p, bool egress, bool *reply)
{
    if (!is_ip4(t, p) && !is_ip6(t, p)) {
        return NULL;
    }
    struct ct_conn k;
    ct_tuple(t, p, &k);
    int64_t zone = ct_zone(t, dp, p, egress);
    for (size_t i = 0; i < t->n_conns; i++) {
        struct ct_conn *c = &t->conns[i];
        if (c->zone != zone || c->ipv6 != k.ipv6 || c->proto != k.proto) {
            continue;
        }
        if (lex_u128_eq(c->src, k.src) && lex_u128_eq(c->dst, k.dst)
            && c->sport == k.sport && c->dport == k.dport) {
            *reply = false;
            return c;
        }
        if (lex_u128_eq(c->src, k.dst) && lex_u128_eq(c->dst, k.src)
            && c->sport == k.dport && c->dport == k.sport) {
            *reply = true;
            return c;
        }
    }
    return NULL;
}

/* The state a conntrack action gives the packet: the next --ct, or
 * est|trk by default, as stock; in a sequence (--then), what the
 * conntrack table says, loading the connection's ct_mark and ct_label
 * into 'q'. */
static uint8_t
next_ct_state(struct tracer *t, const struct trace_dp *dp, struct pkt *q,
              bool egress, struct ds *comment)
{
    if (t->conntrack) {
        bool reply = false;
        const struct ct_conn *c = ct_find(t, dp, q, egress, &reply);
        set64(q, t->ct_mark, c ? c->mark : 0);
        set(q, t->ct_label, c ? c->label : u128(0));
        if (!c) {
            ds_put_cstr(comment, " /* conntrack: no connection */");
            return (1u << 0) | (1u << 5);               /* new|trk */
        }
        ds_put_format(comment, " /* conntrack: %s of a committed "
                      "connection */", reply ? "reply" : "original direction");
        return (1u << 1) | (1u << 5) | (reply ? 1u << 3 : 0);
    }
    if (t->ct_idx < t->n_ct_states) {
        return t->ct_states[t->ct_idx++];
    }
    ds_put_cstr(comment, " /* default (use --ct to customize) */");
    return (1u << 1) | (1u << 5);       /* est|trk */
}

static void trace_actions(struct tracer *, const struct ovs_list *actions,
                          const struct trace_dp *, struct pkt *, int table,
                          bool egress, struct ovs_list *super);

/* ct_commit in a sequence: the packet's connection is committed in its
 * zone (or updated), with the ct_mark and ct_label the nested actions
 * set. */
static void
ct_commit(struct tracer *t, const struct action *a,
          const struct trace_dp *dp, const struct pkt *p, int table,
          bool egress, struct ovs_list *super)
{
    if (!is_ip4(t, p) && !is_ip6(t, p)) {
        return;
    }
    struct pkt q;
    pkt_clone(&q, p);
    struct ovs_list scratch = OVS_LIST_INITIALIZER(&scratch);
    if (!ovs_list_is_empty(&a->nested)) {
        trace_actions(t, &a->nested, dp, &q, table, egress, &scratch);
    }
    node_list_destroy(&scratch);

    bool reply;
    struct ct_conn *c = ct_find(t, dp, p, egress, &reply);
    bool new = !c;
    if (new) {
        t->conns = xrealloc(t->conns, (t->n_conns + 1) * sizeof *t->conns);
        c = &t->conns[t->n_conns++];
        ct_tuple(t, p, c);
        c->zone = ct_zone(t, dp, p, egress);
    }
    c->mark = get64(&q, t->ct_mark);
    c->label = get(&q, t->ct_label);
    node_append(super, N_ACTION, "/* conntrack: %s connection, ct_mark "
                "0x%"PRIx32" */", new ? "committed a new" : "updated the",
                c->mark);
    pkt_destroy(&q);
}

/* Parses a load balancer backend or --lb-dst: "IP", "IP:PORT",
 * "[IP6]:PORT" or "IP6". */
static bool
parse_ip_port(const char *s, bool *v6, ovs_u128 *ip, int *port)
{
    char *copy = xstrdup(s);
    char *host = copy, *port_s = NULL;
    bool ok = false;

    if (copy[0] == '[') {
        char *end = strchr(copy, ']');
        if (!end) {
            goto out;
        }
        *end = '\0';
        host = copy + 1;
        if (end[1] == ':') {
            port_s = end + 2;
        }
    } else if (strchr(copy, ':') && strchr(copy, ':') == strrchr(copy, ':')
               && strchr(copy, '.')) {
        port_s = strchr(copy, ':');
        *port_s++ = '\0';
    }
    struct in6_addr a6;
    ovs_be32 a4;
    if (inet_pton(AF_INET, host, &a4) == 1) {
        *v6 = false;
        *ip = u128(ntohl(a4));
    } else if (inet_pton(AF_INET6, host, &a6) == 1) {
        *v6 = true;
        *ip = from_in6(&a6);
    } else {
        goto out;
    }
    *port = port_s ? atoi(port_s) : 0;
    ok = true;
out:
    free(copy);
    return ok;
}

/* Port security, as stock ovn-trace evaluates it from Port_Binding
 * port_security. */

static bool
ip4_in(const struct lsp_addresses *a, ovs_be32 ip)
{
    for (size_t i = 0; i < a->n_ipv4; i++) {
        if (a->ipv4[i].addr == ip) {
            return true;
        }
    }
    return false;
}

static bool
ip6_in(const struct lsp_addresses *a, const struct in6_addr *ip)
{
    for (size_t i = 0; i < a->n_ipv6; i++) {
        if (ipv6_addr_equals(&a->ipv6[i].addr, ip)) {
            return true;
        }
    }
    return false;
}

static bool
in_port_sec_ok(const struct tracer *t, const struct pkt *p,
               const struct lsp_addresses *a)
{
    uint64_t type = get64(p, t->eth_type);
    bool no_ips = !a->n_ipv4 && !a->n_ipv6;
    if (type == 0x800) {
        if (no_ips || ip4_in(a, to_be32(get(p, t->ip4_src)))) {
            return true;
        }
        return (get64(p, t->ip_proto) == 17 && get64(p, t->udp_src) == 68
                && get64(p, t->udp_dst) == 67 && !get64(p, t->ip4_src)
                && get64(p, t->ip4_dst) == 0xffffffff);
    } else if (type == 0x806) {
        if (!eth_addr_equals(to_eth(get(p, t->arp_sha)), a->ea)) {
            return false;
        }
        return !a->n_ipv4 || ip4_in(a, to_be32(get(p, t->arp_spa)));
    } else if (type == 0x86dd) {
        if (no_ips) {
            return true;
        }
        struct in6_addr src = to_in6(get(p, t->ip6_src)), lla;
        in6_generate_lla(a->ea, &lla);
        if (!ip6_in(a, &src) && !ipv6_addr_equals(&src, &lla)) {
            return false;
        }
        if (get64(p, t->ip_proto) == 58) {
            uint64_t icmp = get64(p, t->icmp6_type);
            if (icmp == 135) {
                struct eth_addr sll = to_eth(get(p, t->nd_sll));
                if (!eth_addr_is_zero(sll) && !eth_addr_equals(sll, a->ea)) {
                    return false;
                }
            } else if (icmp == 136) {
                struct eth_addr tll = to_eth(get(p, t->nd_tll));
                if (!eth_addr_is_zero(tll) && !eth_addr_equals(tll, a->ea)) {
                    return false;
                }
                struct in6_addr target = to_in6(get(p, t->nd_target));
                if (a->n_ipv6 && !ip6_in(a, &target)
                    && !ipv6_addr_equals(&target, &lla)) {
                    return false;
                }
            }
        }
        return true;
    }
    return true;
}

static bool
out_port_sec_ok(const struct tracer *t, const struct pkt *p,
                const struct lsp_addresses *a)
{
    uint64_t type = get64(p, t->eth_type);
    bool no_ips = !a->n_ipv4 && !a->n_ipv6;
    if (type == 0x800) {
        if (no_ips) {
            return true;
        } else if (!a->n_ipv4) {
            return false;
        }
        uint32_t dst = get64(p, t->ip4_dst);
        return (ip4_in(a, htonl(dst)) || dst == 0xffffffff
                || (dst & 0xf0000000) == 0xe0000000);
    } else if (type == 0x86dd) {
        if (no_ips) {
            return true;
        } else if (!a->n_ipv6) {
            return false;
        }
        struct in6_addr dst = to_in6(get(p, t->ip6_dst)), lla;
        in6_generate_lla(a->ea, &lla);
        return (ip6_in(a, &dst) || ipv6_addr_equals(&dst, &lla)
                || dst.s6_addr[0] == 0xff);
    }
    return true;
}

/* Returns 1 (drop) or 0 (allow), as check_in_port_sec() and
 * check_out_port_sec() do. */
static int
port_sec(const struct tracer *t, const struct trace_dp *dp,
         const struct pkt *p, bool in)
{
    const struct trace_port *port = shash_find_data(
        &dp->ports, getstr(p, in ? t->inport : t->outport));
    if (!port || !port->n_ps) {
        return 0;
    }
    struct eth_addr mac = to_eth(get(p, in ? t->eth_src : t->eth_dst));
    for (size_t i = 0; i < port->n_ps; i++) {
        const struct lsp_addresses *a = &port->ps[i];
        if (eth_addr_equals(mac, a->ea)) {
            return !(in ? in_port_sec_ok(t, p, a)
                        : out_port_sec_ok(t, p, a));
        }
    }
    return 1;
}

/* Tracing. */

static void trace_table(struct tracer *, const struct trace_dp *,
                        struct pkt *, int table, bool egress,
                        struct ovs_list *super);
static void trace_actions(struct tracer *, const struct ovs_list *actions,
                          const struct trace_dp *, struct pkt *, int table,
                          bool egress, struct ovs_list *super);

static bool
is_register(const struct symtab_symbol *s)
{
    const struct symtab_symbol *base = s->kind == SYMTAB_SUBFIELD
                                       ? s->field : s;
    return (!strcmp(base->name, "xxreg0") || !strcmp(base->name, "xxreg1")
            || !strcmp(base->name, "xreg4") || !strcmp(base->name, "flags")
            || !strcmp(base->name, "inport")
            || !strcmp(base->name, "outport"));
}

static ovs_u128
field_get(const struct pkt *p, const struct action_field *f)
{
    const struct symtab_symbol *s = f->symbol;
    int ofs = f->ofs;
    if (s->kind == SYMTAB_SUBFIELD) {
        ofs += s->ofs;
        s = s->field;
    }
    return lex_u128_and(lex_u128_shr(get(p, s), ofs),
                        lex_u128_ones(f->n_bits));
}

static void
field_set(struct pkt *p, const struct action_field *f, ovs_u128 v)
{
    expr_flow_set(&p->f, f->symbol, f->ofs, f->n_bits, v);
}

/* An action as stock formats it: log() names its verdict before its
 * severity. */
static void
format_action(const struct action *a, struct ds *s)
{
    static const char *const verdicts[] = { "allow", "drop", "reject" };

    if (a->type == ACTION_SELECT) {
        /* Stock writes each member's weight, 100 where none is given. */
        action_format_field(&a->select.dst, s);
        ds_put_cstr(s, " = select(");
        for (size_t i = 0; i < a->select.n; i++) {
            ds_put_format(s, "%s%"PRIu16"=%"PRIu16, i ? ", " : "",
                          a->select.ids[i],
                          a->select.weights[i] ? a->select.weights[i] : 100);
        }
        ds_put_cstr(s, ");");
        return;
    }
    if (a->type != ACTION_LOG) {
        action_format(a, s);
        return;
    }
    ds_put_cstr(s, "log(");
    if (a->log.name) {
        ds_put_cstr(s, "name=");
        lex_put_string(s, a->log.name);
        ds_put_cstr(s, ", ");
    }
    ds_put_format(s, "verdict=%s", verdicts[a->log.verdict]);
    if (a->log.severity) {
        ds_put_format(s, ", severity=%s", a->log.severity);
    }
    if (a->log.meter) {
        ds_put_cstr(s, ", meter=");
        lex_put_string(s, a->log.meter);
    }
    ds_put_cstr(s, ");");
}

/* "DST = VALUE" for a move into a packet field, VALUE as OVS formats
 * the source field. */
static void
summarize_move(const struct action_field *dst, const struct action_field *src,
               const struct pkt *p, struct ovs_list *super)
{
    if (is_register(dst->symbol)) {
        return;
    }
    struct ds s = DS_EMPTY_INITIALIZER;
    action_format_field(dst, &s);
    ds_put_cstr(&s, " = ");
    ovs_u128 v = field_get(p, src);
    const char *n = src->symbol->name;
    /* A subfield (reg1 is bits of xxreg0) prints in hex, as stock. */
    bool whole = (!src->ofs && src->n_bits == src->symbol->width
                  && src->symbol->kind == SYMTAB_FIELD);
    if (src->symbol->is_string) {
        lex_put_string(&s, getstr(p, src->symbol));
    } else if (!whole) {
        ds_put_format(&s, "0x%"PRIx64, v.u64.lo);
    } else if (src->n_bits == 48) {
        lex_token_format_value(LEX_F_ETHERNET, v, &s);
    } else if (src->n_bits == 32 && (strstr(n, "ip4") || strstr(n, "spa")
                                     || strstr(n, "tpa"))) {
        lex_token_format_value(LEX_F_IPV4, v, &s);
    } else if (src->n_bits == 128 && (strstr(n, "ip6")
                                      || strstr(n, "nd."))) {
        lex_token_format_value(LEX_F_IPV6, v, &s);
    } else {
        lex_token_format_value(LEX_F_DECIMAL, v, &s);
    }
    node_append(super, N_MODIFY, "%s", ds_cstr(&s));
    ds_destroy(&s);
}

static void
execute_output(struct tracer *t, const struct trace_dp *dp, struct pkt *p,
               bool egress, struct ovs_list *super)
{
    const char *out = getstr(p, t->outport);
    if (!out[0] || !strcmp(out, "none")) {
        node_append(super, N_ERROR, "*** output to null logical port");
        return;
    }
    const struct trace_port *port = shash_find_data(&dp->ports, out);
    const struct trace_mcgroup *mc = (port ? NULL
                                      : shash_find_data(&dp->mcgroups, out));
    const char *out_name = port ? port->friendly : mc ? mc->name
                                                      : "(unnamed)";
    if (!port && !mc) {
        node_append(super, N_ERROR, "*** unknown port or multicast group "
                    "\"%s\"", out);
    }

    if (egress) {
        node_append(super, N_OUTPUT, "/* output to \"%s\", type \"%s\" */",
                    out_name, port ? port->type : "");
        const struct trace_port *peer = (port && port->peer
                                         ? shash_find_data(&t->db->ports,
                                                           port->peer)
                                         : NULL);
        if (peer) {
            struct node *n = node_append(super, N_PIPELINE,
                                         "ingress(dp=\"%s\", inport=\"%s\")",
                                         peer->dp->friendly, peer->friendly);
            struct pkt q;
            pkt_clone(&q, p);
            expr_flow_set_string(&q.f, t->inport, peer->name);
            expr_flow_set_string(&q.f, t->outport, "none");
            trace_table(t, peer->dp, &q, 0, false, &n->subs);
            pkt_destroy(&q);
        } else {
            node_append(super, N_MODIFY, "output(\"%s\")", out_name);
        }
        return;
    }

    /* Into the egress pipeline: registers but inport and outport are
     * cleared. */
    struct pkt q;
    pkt_clone(&q, p);
    if (port && !strcmp(port->type, "chassisredirect")
        && port->distributed_port) {
        /* As stock: the distributed port stands for its chassis-redirect
         * port (the trace is taken as on the gateway chassis). */
        const struct trace_port *dport = shash_find_data(
            &dp->ports, port->distributed_port);
        if (dport) {
            node_append(super, N_OUTPUT, "/* Replacing type "
                        "\"chassisredirect\" outport \"%s\" with "
                        "distributed port \"%s\". */", port->friendly,
                        dport->friendly);
            port = dport;
            out_name = dport->friendly;
            expr_flow_set_string(&q.f, t->outport, dport->name);
        }
    }
    set64(&q, t->xxreg0, 0);
    set64(&q, t->xxreg1, 0);
    set64(&q, t->xreg4, 0);
    set64(&q, t->flags, 0);

    const char *in = getstr(p, t->inport);
    const char *in_name = port_friendly(dp, in);
    bool loopback = get64(p, t->flags) & 1;
    if (mc) {
        struct node *mcn = node_append(super, N_PIPELINE,
                                       "multicast(dp=\"%s\", mcgroup=\"%s\")",
                                       dp->friendly, mc->name);
        for (size_t i = 0; i < mc->n_ports; i++) {
            const struct trace_port *mp = mc->ports[i];
            struct node *n = node_append(
                &mcn->subs, N_PIPELINE,
                "egress(dp=\"%s\", inport=\"%s\", outport=\"%s\")",
                dp->friendly, in_name, mp->friendly);
            if (strcmp(mp->name, in) || loopback) {
                n->always_indent = true;
                expr_flow_set_string(&q.f, t->outport, mp->name);
                struct pkt r;
                pkt_clone(&r, &q);
                trace_table(t, dp, &r, 0, true, &n->subs);
                pkt_destroy(&r);
            } else {
                node_append(&n->subs, N_OUTPUT, "/* omitting output because "
                            "inport == outport && !flags.loopback */");
            }
        }
    } else if ((port && strcmp(port->name, in)) || loopback) {
        struct node *n = node_append(
            super, N_PIPELINE,
            "egress(dp=\"%s\", inport=\"%s\", outport=\"%s\")",
            dp->friendly, in_name, out_name);
        trace_table(t, dp, &q, 0, true, &n->subs);
    } else {
        node_append(super, N_OUTPUT, "/* omitting output because inport == "
                    "outport && !flags.loopback */");
    }
    pkt_destroy(&q);
}

static void
swap_fields(struct pkt *p, const struct symtab_symbol *a,
            const struct symtab_symbol *b)
{
    ovs_u128 x = get(p, a), y = get(p, b);
    set(p, a, y);
    set(p, b, x);
}

/* icmp4, icmp6, tcp_reset, sctp_abort and reject: the generated packet. */
static void
execute_generated(struct tracer *t, const struct action *a,
                  const struct trace_dp *dp, const struct pkt *p, int table,
                  bool egress, bool loopback, const char *kind,
                  struct ovs_list *super)
{
    struct pkt q;
    bool v6 = is_ip6(t, p);

    if (!strcmp(kind, "icmp4") || !strcmp(kind, "icmp6")) {
        if (loopback && tp_get(t, p, true) == (v6 ? 1 : 3)) {
            return;             /* No error about an error. */
        }
    } else if (loopback && get64(p, t->ip_proto) == 6
               && get64(p, t->tcp_flags) == 0x004) {
        return;                 /* No reset for a reset. */
    }
    pkt_clone(&q, p);
    if (loopback) {
        swap_fields(&q, t->eth_src, t->eth_dst);
        if (v6) {
            swap_fields(&q, t->ip6_src, t->ip6_dst);
        } else {
            swap_fields(&q, t->ip4_src, t->ip4_dst);
        }
    }
    if (!strcmp(kind, "icmp4") || !strcmp(kind, "icmp6")) {
        set_proto(t, &q, v6 ? 58 : 1);
        tp_set(t, &q, true, v6 ? 1 : 3);
        tp_set(t, &q, false, 1);
    } else if (!strcmp(kind, "tcp_reset")) {
        set_proto(t, &q, 6);
        set64(&q, t->tcp_flags, 0x004);
    } else {
        set_proto(t, &q, v6 ? 6 : 132);
        if (v6) {
            set64(&q, t->tcp_flags, 0x004);
        }
    }
    set64(&q, t->ip_ttl, 255);
    struct node *n = node_append(super, N_TRANSFORMATION, "%s", kind);
    trace_actions(t, &a->nested, dp, &q, table, egress, &n->subs);
    pkt_destroy(&q);
}

static void
execute_nested(struct tracer *t, const struct action *a,
               const struct trace_dp *dp, const struct pkt *p, int table,
               bool egress, struct ovs_list *super)
{
    const char *k = a->keyword;
    struct pkt q;

    if (!strcmp(k, "reject")) {
        uint64_t proto = get64(p, t->ip_proto);
        bool ip = is_ip4(t, p) || is_ip6(t, p);
        execute_generated(t, a, dp, p, table, egress, true,
                          ip && proto == 6 ? "tcp_reset"
                          : ip && proto == 132 ? "sctp_abort"
                          : is_ip4(t, p) ? "icmp4" : "icmp6", super);
        return;
    } else if (!strcmp(k, "icmp4") || !strcmp(k, "icmp4_error")) {
        execute_generated(t, a, dp, p, table, egress, false, "icmp4", super);
        return;
    } else if (!strcmp(k, "icmp6") || !strcmp(k, "icmp6_error")) {
        execute_generated(t, a, dp, p, table, egress, false, "icmp6", super);
        return;
    } else if (!strcmp(k, "tcp_reset") || !strcmp(k, "sctp_abort")) {
        execute_generated(t, a, dp, p, table, egress, false, k, super);
        return;
    }

    pkt_clone(&q, p);
    const char *name = k;
    if (!strcmp(k, "arp")) {
        set64(&q, t->ip_frag, 0);
        set64(&q, t->ip_dscp, 0);
        set64(&q, t->ip_ecn, 0);
        set64(&q, t->ip_ttl, 0);
        set64(&q, t->tcp_flags, 0);
        ovs_u128 spa = get(p, t->ip4_src), tpa = get(p, t->ip4_dst);
        set64(&q, t->eth_type, 0x806);
        set64(&q, t->arp_op, 1);
        set(&q, t->arp_sha, get(p, t->eth_src));
        set64(&q, t->arp_tha, 0);
        set(&q, t->arp_spa, spa);
        set(&q, t->arp_tpa, tpa);
    } else if (!strcmp(k, "nd_na") || !strcmp(k, "nd_na_router")) {
        name = "nd_na";
        set(&q, t->eth_src, get(p, t->eth_dst));
        set(&q, t->eth_dst, get(p, t->eth_src));
        set(&q, t->ip6_dst, get(p, t->ip6_src));
        set(&q, t->ip6_src, get(p, t->nd_target));
        set64(&q, t->icmp6_type, 136);
        set64(&q, t->nd_sll, 0);
        set(&q, t->nd_tll, get(p, t->eth_dst));
    } else if (!strcmp(k, "nd_ns")) {
        struct in6_addr dst = to_in6(get(p, t->ip6_dst)), sn;
        struct eth_addr mac;
        in6_addr_solicited_node(&sn, &dst);
        ipv6_multicast_to_ethernet(&mac, &sn);
        set(&q, t->eth_dst, from_eth(mac));
        set64(&q, t->icmp6_type, 135);
        set64(&q, t->nd_sll, 0);
        set(&q, t->nd_tll, get(p, t->eth_dst));
    } else if (strcmp(k, "clone")) {
        /* Another nested action: traced as it is written. */
    }
    struct node *n = node_append(super, N_TRANSFORMATION, "%s", name);
    trace_actions(t, &a->nested, dp, &q, table, egress, &n->subs);
    pkt_destroy(&q);
}

/* ct_next, ct_dnat, ct_snat, ct_commit_nat and ct_lb: the packet forks
 * into the next table with a conntrack state. */
static void
execute_ct(struct tracer *t, const struct action *a,
           const struct trace_dp *dp, const struct pkt *p, int table,
           bool egress, struct ovs_list *super)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    struct pkt q;
    const char *k = a->keyword;

    pkt_clone(&q, p);
    if (!strcmp(k, "ct_next")) {
        struct ds comment = DS_EMPTY_INITIALIZER;
        uint8_t state = next_ct_state(t, dp, &q, egress, &comment);
        ds_put_cstr(&s, "ct_next(ct_state=");
        format_ct_state(state, &s);
        ds_put_format(&s, "%s)", ds_cstr(&comment));
        ds_destroy(&comment);
        set64(&q, t->ct_state, state);
    } else if (a->type == ACTION_CT_LB) {
        bool ip4 = is_ip4(t, p), ip6 = is_ip6(t, p);
        struct ds comment = DS_EMPTY_INITIALIZER;
        if (ip4 || ip6) {
            bool found = false;
            ovs_u128 ip = u128(0);
            int port = 0;
            for (size_t i = 0; i < a->lb.n_backends; i++) {
                bool bv6;
                ovs_u128 bip;
                int bport;
                if (!parse_ip_port(a->lb.backends[i], &bv6, &bip, &bport)
                    || bv6 != ip6) {
                    continue;
                }
                if (t->lb_dst_set && t->lb_dst_v6 == bv6
                    && lex_u128_eq(t->lb_dst_ip, bip)) {
                    t->lb_dst_set = false;
                    found = true;
                    ip = bip;
                    port = bport;
                    break;
                }
                if (!found) {
                    /* Stock picks at random; we take the first. */
                    found = true;
                    ip = bip;
                    port = bport;
                }
            }
            if (!a->lb.n_backends && t->lb_dst_set && t->lb_dst_v6 == ip6) {
                found = true;
                ip = t->lb_dst_ip;
                port = t->lb_dst_port;
            }
            if (a->lb.n_backends && !found) {
                node_append(super, N_ERROR, "*** no load balancing "
                            "destination (use --lb-dst)");
            }
            if (found) {
                const struct symtab_symbol *dst = ip6 ? t->ip6_dst
                                                      : t->ip4_dst;
                q.has_ct_orig = true;
                q.ct_orig_ip = get(p, dst);
                q.ct_orig_tp_dst = tp_get(t, p, false);
                set(&q, dst, ip);
                if (port) {
                    tp_set(t, &q, false, port);
                }
                set64(&q, t->ct_state, get64(&q, t->ct_state) | 0x80);
                if (t->notes) {
                    struct ds b = DS_EMPTY_INITIALIZER;
                    lex_token_format_value(ip6 ? LEX_F_IPV6 : LEX_F_IPV4,
                                           ip, &b);
                    if (port) {
                        ds_put_format(&b, ":%d", port);
                    }
                    struct node *n = node_append(super, N_NOTE,
                                                 "/* load balancer backend "
                                                 "%s */", ds_cstr(&b));
                    n->decisive = true;
                    n->object = json_object_create();
                    json_object_put_string(n->object, "kind", "lb-backend");
                    json_object_put_string(n->object, "backend",
                                           ds_cstr(&b));
                    ds_destroy(&b);
                }
            }
            set64(&q, t->ct_state,
                  get64(&q, t->ct_state) | next_ct_state(t, dp, &q, egress,
                                                         &comment));
        }
        ds_put_format(&s, "%s%s", k, ds_cstr(&comment));
        ds_destroy(&comment);
    } else {
        /* ct_dnat, ct_snat, ct_dnat_in_czone, ct_snat_in_czone: with an
         * address, the packet's is changed (not its ports, as stock);
         * without, no un-NAT entry is assumed. */
        if (!strcmp(k, "ct_commit_nat")) {
            ds_put_cstr(&s, "ct_commit_nat /* assuming no un-nat entry, so "
                        "no change */");
        } else {
            char dir = strstr(k, "dnat") ? 'd' : 's';
            const char *czone = strstr(k, "czone") ? "in_czone" : "";
            if (dir == 's' && !a->nat.has_ip && dp->has_l3gateway) {
                /* Stock ovn-trace 23.03 takes a bare ct_snat on a gateway
                 * router as having no visible effect, and goes no
                 * further: neither do we. */
                ds_destroy(&s);
                pkt_destroy(&q);
                return;
            }
            if (a->nat.has_ip) {
                const struct symtab_symbol *f
                    = (a->nat.ipv6 ? (dir == 'd' ? t->ip6_dst : t->ip6_src)
                       : (dir == 'd' ? t->ip4_dst : t->ip4_src));
                ds_put_format(&s, "ct_%cnat%s(%s=", dir, czone, f->name);
                lex_token_format_value(a->nat.ipv6 ? LEX_F_IPV6
                                       : LEX_F_IPV4, a->nat.ip, &s);
                ds_put_char(&s, ')');
                set(&q, f, a->nat.ip);
            } else {
                ds_put_format(&s, "ct_%cnat%s /* assuming no un-%cnat "
                              "entry, so no change */", dir, czone, dir);
            }
        }
        if (!(get64(&q, t->ct_state) & 0x20)) {
            set64(&q, t->ct_state,
                  get64(&q, t->ct_state) | next_ct_state(t, dp, &q, egress,
                                                         &s));
        }
    }
    struct node *n = node_append(super, N_TRANSFORMATION, "%s", ds_cstr(&s));
    ds_destroy(&s);
    trace_table(t, dp, &q, table + 1, egress, &n->subs);
    pkt_destroy(&q);
}

/* Whether a load balancer VIP is the packet's conntrack original
 * destination with port 'port' (0: a VIP without a port); if so, and
 * 'ip_s' is nonnull, stores the VIP's address as text in it. */
static bool
ct_orig_is_vip(const struct tracer *t, const struct pkt *p, int port,
               struct ds *ip_s)
{
    if (!p->has_ct_orig) {
        return false;
    }
    bool v6 = is_ip6(t, p);
    struct ds ip = DS_EMPTY_INITIALIZER;
    lex_token_format_value(v6 ? LEX_F_IPV6 : LEX_F_IPV4, p->ct_orig_ip, &ip);
    char *key = (!port ? xstrdup(ds_cstr(&ip))
                 : v6 ? xasprintf("[%s]:%d", ds_cstr(&ip), port)
                 : xasprintf("%s:%d", ds_cstr(&ip), port));
    bool known = shash_find(&t->db->lb_vips, key) != NULL;
    if (known && ip_s) {
        ds_put_cstr(ip_s, ds_cstr(&ip));
    }
    free(key);
    ds_destroy(&ip);
    return known;
}

static int
chk_lb_hairpin(const struct tracer *t, const struct pkt *p, bool orig)
{
    if (!p->has_ct_orig || !(get64(p, t->ct_state) & 0x80)
        || (!is_ip4(t, p) && !is_ip6(t, p))) {
        return 0;
    }
    int port = orig ? p->ct_orig_tp_dst : (int) tp_get(t, p, false);
    if (!ct_orig_is_vip(t, p, port, NULL)) {
        return 0;
    }
    return is_ip6(t, p)
           ? lex_u128_eq(get(p, t->ip6_src), get(p, t->ip6_dst))
           : lex_u128_eq(get(p, t->ip4_src), get(p, t->ip4_dst));
}

static void
execute_call(struct tracer *t, const struct action *a,
             const struct trace_dp *dp, struct pkt *p, bool egress,
             struct ovs_list *super)
{
    const char *k = a->keyword;
    if (!strcmp(k, "check_in_port_sec") || !strcmp(k, "check_out_port_sec")) {
        field_set(p, &a->call.dst,
                  u128(port_sec(t, dp, p, !strcmp(k, "check_in_port_sec"))));
    } else if (!strcmp(k, "chk_lb_hairpin")
               || !strcmp(k, "chk_lb_hairpin_reply")) {
        int res = chk_lb_hairpin(t, p, !strcmp(k, "chk_lb_hairpin"));
        field_set(p, &a->call.dst, u128(res));
        struct ds s = DS_EMPTY_INITIALIZER;
        action_format_field(&a->call.dst, &s);
        node_append(super, N_MODIFY, "%s = %d", ds_cstr(&s), res);
        ds_destroy(&s);
    } else if (!strcmp(k, "lookup_fdb") || !strcmp(k, "get_fdb")) {
        const struct action_field *mac_f = &a->call.args[a->call.n_args - 1];
        struct eth_addr mac = to_eth(field_get(p, mac_f));
        const struct trace_fdb *fdb = NULL;
        for (size_t i = 0; i < dp->n_fdbs; i++) {
            if (eth_addr_equals(dp->fdbs[i].mac, mac)) {
                fdb = &dp->fdbs[i];
                break;
            }
        }
        if (!strcmp(k, "lookup_fdb")) {
            const struct trace_port *port = shash_find_data(
                &dp->ports, getstr(p, a->call.args[0].symbol));
            bool hit = fdb && port && fdb->port_key == port->key;
            if (hit) {
                struct eth_addr dst = to_eth(get(p, t->eth_dst));
                node_append(super, N_ACTION, "/* MAC lookup for "ETH_ADDR_FMT
                            " found in FDB. */", ETH_ADDR_ARGS(dst));
            } else {
                node_append(super, N_ACTION, "/* lookup mac failed in mac "
                            "learning table. */");
            }
            field_set(p, &a->call.dst, u128(hit));
        } else if (a->call.dst.symbol->is_string) {
            const struct trace_port *port
                = fdb ? trace_dp_port_by_key(dp, fdb->port_key) : NULL;
            expr_flow_set_string(&p->f, a->call.dst.symbol,
                                 port ? port->name : "none");
        } else {
            field_set(p, &a->call.dst, u128(fdb ? fdb->port_key : 0));
        }
    } else if (!strcmp(k, "get_arp") || !strcmp(k, "get_nd")
               || !strncmp(k, "lookup_arp", 10)
               || !strncmp(k, "lookup_nd", 9)) {
        /* Against SB MAC_Binding, as stock does (not Static_MAC_Binding:
         * stock resolves those with flows). */
        bool v6 = !strcmp(k, "get_nd") || !strncmp(k, "lookup_nd", 9);
        bool is_get = !strncmp(k, "get_", 4);
        bool with_mac = !is_get && a->call.n_args == 3;
        const char *port = getstr(p, a->call.args[0].symbol);
        ovs_u128 ip = field_get(p, &a->call.args[1]);
        struct eth_addr mac = (with_mac
                               ? to_eth(field_get(p, &a->call.args[2]))
                               : eth_addr_zero);
        const struct trace_mac_binding *mb = NULL;
        for (size_t i = 0; i < t->db->n_mac_bindings; i++) {
            const struct trace_mac_binding *b = &t->db->mac_bindings[i];
            if (b->ipv6 == v6 && lex_u128_eq(b->ip, ip)
                && !strcmp(b->port, port)
                && (!with_mac || eth_addr_equals(b->mac, mac))) {
                mb = b;
                break;
            }
        }
        if (is_get) {
            struct eth_addr dst = mb ? mb->mac : eth_addr_zero;
            if (mb) {
                node_append(super, N_ACTION, "/* MAC binding to "ETH_ADDR_FMT
                            ". */", ETH_ADDR_ARGS(dst));
            } else {
                node_append(super, N_ACTION, "/* No MAC binding. */");
            }
            set(p, t->eth_dst, from_eth(dst));
            node_append(super, N_MODIFY, "eth.dst = "ETH_ADDR_FMT,
                        ETH_ADDR_ARGS(dst));
        } else {
            if (mb) {
                struct eth_addr dst = to_eth(get(p, t->eth_dst));
                node_append(super, N_ACTION, "/* MAC binding to "ETH_ADDR_FMT
                            " found. */", ETH_ADDR_ARGS(dst));
            } else {
                node_append(super, N_ACTION, "/* lookup failed - No MAC "
                            "binding. */");
            }
            field_set(p, &a->call.dst, u128(mb != NULL));
        }
    } else if (a->call.has_dst) {
        /* check_pkt_larger (the packet has no length here), chk_ecmp_nh,
         * chk_ecmp_nh_mac, ...: 0, as stock. */
        field_set(p, &a->call.dst, u128(0));
    }
    /* put_fdb, put_arp, put_nd, handle_svc_check, bind_vport,
     * handle_bfd_msg: nothing to trace. */
    (void) egress;
}

/* select(): the member --select-id names; otherwise stock picks one at
 * random, and we take the first.  Either way the next table follows. */
static void
execute_select(struct tracer *t, const struct action *a,
               const struct trace_dp *dp, struct pkt *p, int table,
               bool egress, struct ovs_list *super)
{
    uint16_t id = a->select.ids[0];
    bool chosen = false;
    for (size_t i = 0; t->select_id >= 0 && i < a->select.n; i++) {
        if (a->select.ids[i] == t->select_id) {
            id = t->select_id;
            chosen = true;
            break;
        }
    }
    struct pkt q;
    pkt_clone(&q, p);
    field_set(&q, &a->select.dst, u128(id));
    struct ds s = DS_EMPTY_INITIALIZER;
    ds_put_cstr(&s, "select: ");
    action_format_field(&a->select.dst, &s);
    ds_put_format(&s, " = %"PRIu16"%s", id,
                  chosen ? "" : " /* Randomly selected. Use --select-id "
                                "to specify. */");
    struct node *n = node_append(super, N_TRANSFORMATION, "%s", ds_cstr(&s));
    ds_destroy(&s);
    trace_table(t, dp, &q, table + 1, egress, &n->subs);
    pkt_destroy(&q);
}

static void
note_flow(struct tracer *t, const struct trace_flow *f,
          struct ovs_list *super)
{
    const char *stage = f->stage ? f->stage : "";
    bool acl_stage = strstr(stage, "_acl") && !strstr(stage, "_acl_hint");
    bool drops = ovs_list_is_empty(f->actions)
                 || (ovs_list_is_short(f->actions)
                     && CONTAINER_OF(ovs_list_front(f->actions),
                                     struct action, node)->type
                        == ACTION_DROP);
    struct ds s = DS_EMPTY_INITIALIZER;
    struct json *obj = json_object_create();
    bool lb_with_backends = false;
    const struct action *a;
    LIST_FOR_EACH (a, node, f->actions) {
        if (a->type == ACTION_CT_LB && a->lb.n_backends) {
            lb_with_backends = true;
        }
    }
    /* What --minimal keeps: ACLs, drops, the load balancing itself. */
    bool decisive = acl_stage || drops || lb_with_backends;

    if (f->hint) {
        const struct trace_nb_obj *o = trace_db_find_nb(t->db, f->hint);
        if (o) {
            char uuid[UUID_LEN + 1];
            snprintf(uuid, sizeof uuid, UUID_FMT, UUID_ARGS(&o->uuid));
            json_object_put_string(obj, "kind", o->table);
            json_object_put_string(obj, "uuid", uuid);
            ds_put_format(&s, "/* %s %s", o->table, uuid);
            static const char *const cols[] = {
                "name", "priority", "tier", "direction", "action", "match",
                "protocol", "type", "external_ip", "logical_ip",
                "ip_prefix", "nexthop",
            };
            for (size_t i = 0; i < ARRAY_SIZE(cols); i++) {
                const struct json *v = trace_row_get(o->row, cols[i]);
                if (!v) {
                    continue;
                }
                if (v->type == JSON_INTEGER) {
                    ds_put_format(&s, ", %s %lld", cols[i], v->integer);
                    json_object_put(obj, cols[i], json_clone(v));
                } else {
                    const char *str = trace_json_str(v);
                    if (str[0]) {
                        ds_put_format(&s, ", %s ",
                                      !strcmp(cols[i], "action")
                                      ? "verb" : cols[i]);
                        lex_put_string(&s, str);
                        json_object_put_string(obj, !strcmp(cols[i], "action")
                                               ? "verb" : cols[i], str);
                    }
                }
            }
            if (o->owner) {
                ds_put_format(&s, ", on %s", o->owner);
                json_object_put_string(obj, "owner", o->owner);
            }
            ds_put_cstr(&s, " */");
        } else {
            bool lb_stage = strstr(stage, "_lb") != NULL;
            const char *kind = acl_stage ? "ACL" : lb_stage ? "Load_Balancer"
                                                            : "NB object";
            json_object_put_string(obj, "kind", kind);
            json_object_put_string(obj, "stage_hint", f->hint);
            ds_put_format(&s, "/* %s %s", kind, f->hint);
            if (acl_stage) {
                const char *dir = strstr(stage, "_in_") ? "from-lport"
                                                        : "to-lport";
                int prio = f->priority >= 1000 ? f->priority - 1000
                                               : f->priority;
                ds_put_format(&s, ", direction %s, priority %d", dir, prio);
                json_object_put_string(obj, "direction", dir);
                json_object_put(obj, "priority", json_integer_create(prio));
            }
            ds_put_cstr(&s, " (use --nb-db for details) */");
        }
    } else if (acl_stage && drops) {
        json_object_put_string(obj, "kind", "default-drop");
        ds_put_cstr(&s, "/* default drop: no ACL allowed the packet */");
    } else if (strstr(stage, "apply_port_sec") && drops) {
        json_object_put_string(obj, "kind", "port-security");
        ds_put_cstr(&s, "/* dropped by port security */");
    } else {
        json_destroy(obj);
        return;
    }
    struct node *n = node_append(super, N_NOTE, "%s", ds_cstr(&s));
    n->object = obj;
    n->decisive = decisive;
    ds_destroy(&s);
}

static void
trace_actions(struct tracer *t, const struct ovs_list *actions,
              const struct trace_dp *dp, struct pkt *p, int table,
              bool egress, struct ovs_list *super)
{
    if (ovs_list_is_empty(actions)) {
        node_append(super, N_ACTION, "drop;");
        return;
    }
    if (++t->depth > 64) {
        node_append(super, N_ERROR, "*** too many levels of recursion");
        t->depth--;
        return;
    }

    struct ds s = DS_EMPTY_INITIALIZER;
    const struct action *a;
    LIST_FOR_EACH (a, node, actions) {
        ds_clear(&s);
        format_action(a, &s);
        char *friendly = trace_db_friendly(t->db, ds_cstr(&s));
        node_append(super, N_ACTION, "%s", friendly);
        free(friendly);

        switch (a->type) {
        case ACTION_DROP:
            break;
        case ACTION_OUTPUT:
            execute_output(t, dp, p, egress, super);
            break;
        case ACTION_NEXT: {
            bool next_egress = (a->next.pipeline == ACTION_PIPELINE_DEFAULT
                                ? egress
                                : a->next.pipeline == ACTION_PIPELINE_EGRESS);
            int next_table = a->next.table >= 0 ? a->next.table : table + 1;
            struct ovs_list *where = super;
            if (next_egress != egress) {
                const char *port = getstr(p, next_egress ? t->outport
                                                         : t->inport);
                struct node *n = node_append(
                    super, N_PIPELINE, "%s(dp=\"%s\", %s=\"%s\")",
                    next_egress ? "egress" : "ingress", dp->friendly,
                    next_egress ? "outport" : "inport",
                    port_friendly(dp, port));
                where = &n->subs;
            }
            trace_table(t, dp, p, next_table, next_egress, where);
            break;
        }
        case ACTION_ASSIGN:
            if (a->assign.dst.symbol->is_string) {
                expr_flow_set_string(&p->f, a->assign.dst.symbol,
                                     a->assign.src_is_field
                                     ? getstr(p, a->assign.src.symbol)
                                     : a->assign.value.string);
            } else if (a->assign.src_is_field) {
                summarize_move(&a->assign.dst, &a->assign.src, p, super);
                field_set(p, &a->assign.dst, field_get(p, &a->assign.src));
            } else {
                const struct expr_const *c = &a->assign.value;
                if (!is_register(a->assign.dst.symbol)) {
                    ds_chomp(&s, ';');
                    node_append(super, N_MODIFY, "%s", ds_cstr(&s));
                }
                ovs_u128 old = field_get(p, &a->assign.dst);
                ovs_u128 v = lex_u128_or(
                    lex_u128_and(old, lex_u128_not(c->mask)),
                    lex_u128_and(c->value, c->mask));
                field_set(p, &a->assign.dst, v);
            }
            break;
        case ACTION_EXCHANGE:
            if (a->assign.dst.symbol->is_string) {
                char *x = xstrdup(getstr(p, a->assign.dst.symbol));
                expr_flow_set_string(&p->f, a->assign.dst.symbol,
                                     getstr(p, a->assign.src.symbol));
                expr_flow_set_string(&p->f, a->assign.src.symbol, x);
                free(x);
            } else {
                summarize_move(&a->assign.dst, &a->assign.src, p, super);
                summarize_move(&a->assign.src, &a->assign.dst, p, super);
                ovs_u128 x = field_get(p, &a->assign.dst);
                field_set(p, &a->assign.dst, field_get(p, &a->assign.src));
                field_set(p, &a->assign.src, x);
            }
            break;
        case ACTION_DECREMENT:
            if (is_ip4(t, p) || is_ip6(t, p)) {
                uint64_t ttl = get64(p, t->ip_ttl);
                if (ttl) {
                    set64(p, t->ip_ttl, ttl - 1);
                    node_append(super, N_MODIFY, "ip.ttl--");
                } else {
                    node_append(super, N_ERROR, "*** TTL underflow");
                }
            } else {
                node_append(super, N_ERROR,
                            "*** TTL decrement of non-IP packet");
            }
            break;
        case ACTION_SIMPLE:
            if (!strcmp(a->keyword, "ct_next")
                || !strcmp(a->keyword, "ct_commit_nat")) {
                execute_ct(t, a, dp, p, table, egress, super);
            } else if (!strcmp(a->keyword, "ct_clear")) {
                set64(p, t->ct_state, 0);
                set64(p, t->ct_mark, 0);
                set64(p, t->ct_label, 0);
                p->has_ct_orig = false;
            } else if (!strcmp(a->keyword, "ct_snat_to_vip")) {
                struct ds vip = DS_EMPTY_INITIALIZER;
                if (ct_orig_is_vip(t, p, p->ct_orig_tp_dst, &vip)) {
                    node_append(super, N_ACTION, "/* nat(src=%s) */",
                                ds_cstr(&vip));
                }
                ds_destroy(&vip);
            }
            /* Others: no visible effect here. */
            break;
        case ACTION_CT_COMMIT:
            if (t->conntrack) {
                ct_commit(t, a, dp, p, table, egress, super);
            }
            break;
        case ACTION_CT_LB:
        case ACTION_CT_NAT:
            execute_ct(t, a, dp, p, table, egress, super);
            break;
        case ACTION_SELECT:
            execute_select(t, a, dp, p, table, egress, super);
            break;
        case ACTION_STACK:
            if (!strcmp(a->keyword, "push")) {
                if (t->n_stack < ARRAY_SIZE(t->stack)) {
                    t->stack[t->n_stack++] = field_get(p, &a->assign.dst);
                }
            } else if (t->n_stack) {
                field_set(p, &a->assign.dst, t->stack[--t->n_stack]);
            }
            break;
        case ACTION_NESTED:
            execute_nested(t, a, dp, p, table, egress, super);
            break;
        case ACTION_LOG: {
            static const char *const verdicts[] = { "allow", "drop",
                                                    "reject" };
            struct flow f;
            to_ovs_flow(t, dp, p, &f);
            char *pkt_s = flow_to_string(&f, NULL);
            node_append(super, N_TRANSFORMATION, "LOG: ACL name=%s, "
                        "direction=%s, verdict=%s, severity=%s, "
                        "packet=\"%s\"",
                        a->log.name ? a->log.name : "<unnamed>",
                        egress ? "OUT" : "IN", verdicts[a->log.verdict],
                        a->log.severity ? a->log.severity : "info", pkt_s);
            free(pkt_s);
            break;
        }
        case ACTION_CALL:
            execute_call(t, a, dp, p, egress, super);
            break;
        case ACTION_PUT_OPTS: {
            /* Stock ovn-trace 23.03 aborts on put_nd_ra_opts() (an
             * assertion); we take the packet as a router solicitation
             * that ovn-controller answers. */
            node_append(super, N_ERROR, "%s",
                        !strcmp(a->keyword, "put_nd_ra_opts")
                        ? "/* We assume that this packet is a router "
                          "solicitation. */"
                        : "/* We assume that this packet is "
                          "DHCPDISCOVER or DHCPREQUEST. */");
            struct ds o = DS_EMPTY_INITIALIZER;
            for (size_t i = 0; i < a->put_opts.n_opts; i++) {
                ds_put_format(&o, "%s%s = %s", i ? ", " : "",
                              a->put_opts.opts[i].name,
                              a->put_opts.opts[i].value);
            }
            node_append(super, N_MODIFY, "%s(%s)", a->keyword, ds_cstr(&o));
            ds_destroy(&o);
            field_set(p, &a->put_opts.dst, u128(1));
            if (!strcmp(a->keyword, "put_nd_ra_opts")) {
                set64(p, t->icmp6_type, 134);   /* Now an advertisement. */
            }
            break;
        }
        case ACTION_SET_METER:
        case ACTION_SET_QUEUE:
        case ACTION_NAMED_ARGS:
            break;
        }
    }
    ds_destroy(&s);
    t->depth--;
}

/* The flow of 'table' that applies to 'p': the first of the highest
 * priority that matches.  When another flow of that priority matches too,
 * which one ovn-controller's OpenFlow tables apply is undefined (stock
 * ovn-trace takes whichever its IDL lists first, as this does): that is
 * said on stderr, since the trace may not be what happens. */
static const struct trace_flow *
lookup_flow(const struct trace_dp *dp, const struct pkt *p, int table,
            bool egress)
{
    for (size_t i = 0; i < dp->n_flows; i++) {
        const struct trace_flow *f = dp->flows[i];
        if (f->egress == egress && f->table == table
            && expr_evaluate(f->match, &p->f)) {
            for (size_t j = i + 1; j < dp->n_flows; j++) {
                const struct trace_flow *g = dp->flows[j];
                if (g->egress != egress || g->table != table
                    || g->priority != f->priority) {
                    break;
                }
                if (expr_evaluate(g->match, &p->f)) {
                    /* With the same actions, only which flow the trace
                     * names is arbitrary (a debug message, which the
                     * tests that compare with stock read). */
                    static struct vlog_rate_limit rl
                        = VLOG_RATE_LIMIT_INIT(10, 10);
                    bool same = !strcmp(f->actions_s, g->actions_s);
                    VLOG_RL(&rl, same ? VLL_DBG : VLL_WARN,
                            "%s table %d: flows %08x and %08x of priority "
                            "%d both match%s: which one applies is "
                            "undefined; this trace follows %08x",
                            egress ? "egress" : "ingress", table,
                            f->uuid.parts[0], g->uuid.parts[0],
                            f->priority,
                            same ? " with the same actions" : "",
                            f->uuid.parts[0]);
                    break;
                }
            }
            return f;
        }
    }
    return NULL;
}

/* A flow that stock leaves out of a trace: match "1", action "next;". */
static bool
may_omit(const struct trace_flow *f, int table)
{
    if (!f || f->match->type != EXPR_T_BOOLEAN || !f->match->boolean
        || !ovs_list_is_short(f->actions)) {
        return false;
    }
    const struct action *a = CONTAINER_OF(ovs_list_front(f->actions),
                                          struct action, node);
    return (a->type == ACTION_NEXT
            && a->next.pipeline == ACTION_PIPELINE_DEFAULT
            && (a->next.table < 0 || a->next.table == table + 1));
}

static void
trace_table(struct tracer *t, const struct trace_dp *dp, struct pkt *p,
            int table, bool egress, struct ovs_list *super)
{
    const struct trace_flow *f;
    for (;;) {
        f = lookup_flow(dp, p, table, egress);
        if (!may_omit(f, table)) {
            break;
        }
        table++;
    }

    struct ds s = DS_EMPTY_INITIALIZER;
    ds_put_format(&s, "%2d. ", table);
    if (f) {
        if (f->stage && f->source) {
            ds_put_format(&s, "%s (%s): ", f->stage, f->source);
        } else if (f->stage) {
            ds_put_format(&s, "%s: ", f->stage);
        } else if (f->source) {
            ds_put_format(&s, "(%s): ", f->source);
        }
        ds_put_format(&s, "%s, priority %d, uuid %08x", f->match_s,
                      f->priority, f->uuid.parts[0]);
    } else {
        const char *stage = NULL;
        for (size_t i = 0; i < dp->n_flows; i++) {
            if (dp->flows[i]->egress == egress
                && dp->flows[i]->table == table) {
                stage = dp->flows[i]->stage;
                break;
            }
        }
        ds_put_format(&s, "%s%sno match (implicit drop)",
                      stage ? stage : "", stage ? ": " : "");
    }
    struct node *n = node_append(super, N_TABLE, "%s", ds_cstr(&s));
    n->flow = f;
    ds_destroy(&s);
    if (f) {
        if (t->notes) {
            note_flow(t, f, &n->subs);
        }
        trace_actions(t, f->actions, dp, p, table, egress, &n->subs);
    }
}

/* JSON. */

static struct json *
nodes_to_json(const struct ovs_list *nodes)
{
    struct json *array = json_array_create_empty();
    const struct node *n;
    LIST_FOR_EACH (n, list_node, nodes) {
        struct json *o = json_object_create();
        json_object_put_string(o, "type", node_type_names[n->type]);
        json_object_put_string(o, "text", n->name);
        if (n->flow) {
            const struct trace_flow *f = n->flow;
            struct json *fj = json_object_create();
            char uuid[UUID_LEN + 1];
            snprintf(uuid, sizeof uuid, UUID_FMT, UUID_ARGS(&f->uuid));
            json_object_put_string(fj, "uuid", uuid);
            json_object_put_string(fj, "pipeline",
                                   f->egress ? "egress" : "ingress");
            json_object_put(fj, "table", json_integer_create(f->table));
            json_object_put(fj, "priority", json_integer_create(f->priority));
            if (f->stage) {
                json_object_put_string(fj, "stage", f->stage);
            }
            if (f->source) {
                json_object_put_string(fj, "source", f->source);
            }
            if (f->hint) {
                json_object_put_string(fj, "stage_hint", f->hint);
            }
            json_object_put_string(fj, "match", f->match_s);
            json_object_put_string(fj, "actions", f->actions_s);
            json_object_put(o, "flow", fj);
        }
        if (n->object) {
            json_object_put(o, "object", json_clone(n->object));
        }
        if (!ovs_list_is_empty(&n->subs)) {
            json_object_put(o, "children", nodes_to_json(&n->subs));
        }
        json_array_add(array, o);
    }
    return array;
}

/* The verdict: output ports, generated packets, decisions. */
static void
collect_verdict(const struct ovs_list *nodes, struct json *outputs,
                struct json *generated, struct json *decisions)
{
    const struct node *n;
    LIST_FOR_EACH (n, list_node, nodes) {
        if (n->type == N_MODIFY && !strncmp(n->name, "output(\"", 8)) {
            char *port = xstrdup(n->name + 8);
            char *end = strrchr(port, '"');
            if (end) {
                *end = '\0';
            }
            json_array_add(outputs, json_string_create_nocopy(port));
        } else if (n->type == N_TRANSFORMATION
                   && (!strcmp(n->name, "tcp_reset")
                       || !strcmp(n->name, "icmp4")
                       || !strcmp(n->name, "icmp6")
                       || !strcmp(n->name, "sctp_abort")
                       || !strcmp(n->name, "arp")
                       || !strcmp(n->name, "nd_na")
                       || !strcmp(n->name, "nd_ns"))) {
            json_array_add(generated, json_string_create(n->name));
        } else if (n->type == N_NOTE && n->object && n->decisive) {
            json_array_add(decisions, json_clone(n->object));
        }
        collect_verdict(&n->subs, outputs, generated, decisions);
    }
}

/* The datapaths the packet entered, and the NAT it went through. */
static void
collect_path(const struct ovs_list *nodes, struct json *hops,
             struct json *nat)
{
    const struct node *n;
    LIST_FOR_EACH (n, list_node, nodes) {
        if (n->type == N_PIPELINE && !strncmp(n->name, "ingress(dp=\"", 12)) {
            char *dp = xstrdup(n->name + 12);
            char *end = strchr(dp, '"');
            if (end) {
                *end = '\0';
            }
            json_array_add(hops, json_string_create_nocopy(dp));
        } else if (n->type == N_TRANSFORMATION
                   && (!strncmp(n->name, "ct_snat", 7)
                       || !strncmp(n->name, "ct_dnat", 7))
                   && strstr(n->name, "=")) {
            json_array_add(nat, json_string_create(n->name));
        }
        collect_path(&n->subs, hops, nat);
    }
}

/* The conntrack table of a sequence, as JSON: --ct-save writes it and
 * --ct-load reads it back, so that a sequence can go on in a later call
 * (after the SB changed, e.g. an ACL was added). */
static void
put_u128(struct json *o, const char *name, ovs_u128 v)
{
    json_object_put_format(o, name, "0x%016"PRIx64"%016"PRIx64, v.u64.hi,
                           v.u64.lo);
}

static ovs_u128
get_u128(const struct json *o, const char *name)
{
    const struct json *v = trace_row_get(o, name);
    ovs_u128 r = u128(0);
    const char *s = v && v->type == JSON_STRING ? json_string(v) : "";
    if (!strncmp(s, "0x", 2) && strlen(s) == 34) {
        char hi[17];
        memcpy(hi, s + 2, 16);
        hi[16] = '\0';
        r.u64.hi = strtoull(hi, NULL, 16);
        r.u64.lo = strtoull(s + 18, NULL, 16);
    }
    return r;
}

static void
ct_save(const struct tracer *t, const char *file_name)
{
    struct json *array = json_array_create_empty();
    for (size_t i = 0; i < t->n_conns; i++) {
        const struct ct_conn *c = &t->conns[i];
        struct json *o = json_object_create();
        json_object_put(o, "zone", json_integer_create(c->zone));
        json_object_put(o, "ipv6", json_boolean_create(c->ipv6));
        put_u128(o, "src", c->src);
        put_u128(o, "dst", c->dst);
        json_object_put(o, "proto", json_integer_create(c->proto));
        json_object_put(o, "sport", json_integer_create(c->sport));
        json_object_put(o, "dport", json_integer_create(c->dport));
        json_object_put(o, "mark", json_integer_create(c->mark));
        put_u128(o, "label", c->label);
        json_array_add(array, o);
    }
    struct json *top = json_object_create();
    json_object_put_string(top, "format", "ovn-trace-lsn-conntrack/1");
    json_object_put(top, "connections", array);
    char *s = json_to_string(top, JSSF_PRETTY | JSSF_SORT);
    FILE *f = fopen(file_name, "w");
    if (!f || fputs(s, f) < 0 || fputc('\n', f) == EOF || fclose(f)) {
        ovs_fatal(errno, "%s: could not write the conntrack table",
                  file_name);
    }
    free(s);
    json_destroy(top);
}

static void
ct_load(struct tracer *t, const char *file_name)
{
    struct json *top = json_from_file(file_name);
    if (top->type == JSON_STRING) {
        ovs_fatal(0, "%s: %s", file_name, json_string(top));
    }
    const struct json *conns = trace_row_get(top, "connections");
    if (!conns || conns->type != JSON_ARRAY) {
        ovs_fatal(0, "%s: not a conntrack table (--ct-save writes one)",
                  file_name);
    }
    for (size_t i = 0; i < conns->array.n; i++) {
        const struct json *o = conns->array.elems[i];
        t->conns = xrealloc(t->conns, (t->n_conns + 1) * sizeof *t->conns);
        struct ct_conn *c = &t->conns[t->n_conns++];
        const struct json *v6 = trace_row_get(o, "ipv6");
        c->zone = trace_json_int(trace_row_get(o, "zone"));
        c->ipv6 = v6 && v6->type == JSON_TRUE;
        c->src = get_u128(o, "src");
        c->dst = get_u128(o, "dst");
        c->proto = trace_json_int(trace_row_get(o, "proto"));
        c->sport = trace_json_int(trace_row_get(o, "sport"));
        c->dport = trace_json_int(trace_row_get(o, "dport"));
        c->mark = trace_json_int(trace_row_get(o, "mark"));
        c->label = get_u128(o, "label");
    }
    json_destroy(top);
}

/* Command line. */

struct options {
    const char *db;
    const char *nb_db;
    const char *ct_load, *ct_save;      /* --ct-load, --ct-save. */
    bool detailed, summary, minimal, json;
    bool friendly_names;
    bool notes;
    struct tracer tracer;
};

OVS_NO_RETURN static void
usage(void)
{
    printf("%s: OVN trace utility (ours)\n"
           "usage: %s [OPTIONS] [DATAPATH] MICROFLOW\n"
           "\n"
           "Output format options:\n"
           "  --detailed              table-by-table \"backtrace\" "
           "(default)\n"
           "  --summary               less detailed, more parseable\n"
           "  --minimal               minimum to explain externally "
           "visible behavior\n"
           "  --all                   provide all forms of output\n"
           "  --json                  the trace as JSON (docs/trace.md)\n"
           "Output style options:\n"
           "  --no-friendly-names     do not substitute human friendly "
           "names for UUIDs\n"
           "  --no-notes              do not name the NB objects that "
           "decided (stock's output)\n"
           "Other options:\n"
           "  --db=DATABASE           connect to DATABASE (default: "
           "$OVN_SB_DB or unix:/var/run/ovn/ovnsb_db.sock)\n"
           "  --nb-db=DATABASE        read ACLs and load balancers from "
           "this NB database\n"
           "  --ct=STATE              conntrack state for the next ct "
           "action (repeatable)\n"
           "  --lb-dst=IP[:PORT]      load balancer backend to choose\n"
           "  --select-id=ID          the member select() chooses\n"
           "  --then [DP] MICROFLOW   then trace this packet, sharing "
           "conntrack\n"
           "  --ct-load=FILE          start from this conntrack table\n"
           "  --ct-save=FILE          save the conntrack table to FILE\n"
           "  -h, --help              display this help message\n"
           "  -V, --version           display version information\n",
           program_name, program_name);
    exit(EXIT_SUCCESS);
}

static void
parse_options(int argc, char *argv[], struct options *o)
{
    enum {
        OPT_DB = UCHAR_MAX + 1,
        OPT_NB_DB,
        OPT_DETAILED,
        OPT_SUMMARY,
        OPT_MINIMAL,
        OPT_ALL,
        OPT_JSON,
        OPT_CT,
        OPT_LB_DST,
        OPT_SELECT_ID,
        OPT_CT_LOAD,
        OPT_CT_SAVE,
        OPT_FRIENDLY_NAMES,
        OPT_NO_FRIENDLY_NAMES,
        OPT_NO_NOTES,
        OPT_LEADER_ONLY,
        OPT_NO_LEADER_ONLY,
        VLOG_OPTION_ENUMS,
        SSL_OPTION_ENUMS,
    };
    static const struct option long_options[] = {
        {"db", required_argument, NULL, OPT_DB},
        {"nb-db", required_argument, NULL, OPT_NB_DB},
        {"detailed", no_argument, NULL, OPT_DETAILED},
        {"summary", no_argument, NULL, OPT_SUMMARY},
        {"minimal", no_argument, NULL, OPT_MINIMAL},
        {"all", no_argument, NULL, OPT_ALL},
        {"json", no_argument, NULL, OPT_JSON},
        {"ct", required_argument, NULL, OPT_CT},
        {"lb-dst", required_argument, NULL, OPT_LB_DST},
        {"select-id", required_argument, NULL, OPT_SELECT_ID},
        {"ct-load", required_argument, NULL, OPT_CT_LOAD},
        {"ct-save", required_argument, NULL, OPT_CT_SAVE},
        {"friendly-names", no_argument, NULL, OPT_FRIENDLY_NAMES},
        {"no-friendly-names", no_argument, NULL, OPT_NO_FRIENDLY_NAMES},
        {"no-notes", no_argument, NULL, OPT_NO_NOTES},
        {"leader-only", no_argument, NULL, OPT_LEADER_ONLY},
        {"no-leader-only", no_argument, NULL, OPT_NO_LEADER_ONLY},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        VLOG_LONG_OPTIONS,
        STREAM_SSL_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    char *short_options = ovs_cmdl_long_options_to_short_options(
        long_options);
    struct tracer *t = &o->tracer;

    for (;;) {
        int c = getopt_long(argc, argv, short_options, long_options, NULL);
        if (c == -1) {
            break;
        }
        switch (c) {
        case OPT_DB:
            o->db = optarg;
            break;
        case OPT_NB_DB:
            o->nb_db = optarg;
            break;
        case OPT_DETAILED:
            o->detailed = true;
            break;
        case OPT_SUMMARY:
            o->summary = true;
            break;
        case OPT_MINIMAL:
            o->minimal = true;
            break;
        case OPT_ALL:
            o->detailed = o->summary = o->minimal = true;
            break;
        case OPT_JSON:
            o->json = true;
            break;
        case OPT_CT: {
            uint8_t state;
            char *error = trace_parse_ct_state(optarg, &state);
            if (error) {
                ovs_fatal(0, "%s", error);
            }
            t->ct_states = xrealloc(t->ct_states, t->n_ct_states + 1);
            t->ct_states[t->n_ct_states++] = state;
            break;
        }
        case OPT_LB_DST:
            if (!parse_ip_port(optarg, &t->lb_dst_v6, &t->lb_dst_ip,
                               &t->lb_dst_port)) {
                ovs_fatal(0, "%s: bad address", optarg);
            }
            t->lb_dst_set = true;
            break;
        case OPT_SELECT_ID: {
            char *end;
            long id = strtol(optarg, &end, 10);
            if (!optarg[0] || *end || id < 0 || id > 65535) {
                ovs_fatal(0, "%s: bad select id", optarg);
            }
            t->select_id = id;
            break;
        }
        case OPT_CT_LOAD:
            o->ct_load = optarg;
            break;
        case OPT_CT_SAVE:
            o->ct_save = optarg;
            break;
        case OPT_FRIENDLY_NAMES:
            o->friendly_names = true;
            break;
        case OPT_NO_FRIENDLY_NAMES:
            o->friendly_names = false;
            break;
        case OPT_NO_NOTES:
            o->notes = false;
            break;
        case OPT_LEADER_ONLY:
        case OPT_NO_LEADER_ONLY:
            break;
        case 'h':
            usage();
        case 'V':
            ovs_print_version(0, 0);
            exit(EXIT_SUCCESS);
        VLOG_OPTION_HANDLERS
        STREAM_SSL_OPTION_HANDLERS
        case '?':
            exit(EXIT_FAILURE);
        default:
            abort();
        }
    }
    free(short_options);
    if (!o->db) {
        o->db = getenv("OVN_SB_DB");
        if (!o->db) {
            o->db = "unix:/var/run/ovn/ovnsb_db.sock";
        }
    }
    if (!o->detailed && !o->summary && !o->minimal) {
        o->detailed = true;
    }
}

static void
tracer_init_symbols(struct tracer *t, const struct symtab *st)
{
#define SYM(MEMBER, NAME) t->MEMBER = symtab_find(st, NAME); \
    ovs_assert(t->MEMBER)
    SYM(eth_src, "eth.src"); SYM(eth_dst, "eth.dst");
    SYM(eth_type, "eth.type"); SYM(vlan_tci, "vlan.tci");
    SYM(ip4_src, "ip4.src"); SYM(ip4_dst, "ip4.dst");
    SYM(ip6_src, "ip6.src"); SYM(ip6_dst, "ip6.dst");
    SYM(ip_proto, "ip.proto"); SYM(ip_ttl, "ip.ttl");
    SYM(ip_frag, "ip.frag"); SYM(ip_dscp, "ip.dscp"); SYM(ip_ecn, "ip.ecn");
    SYM(tcp_src, "tcp.src"); SYM(tcp_dst, "tcp.dst");
    SYM(tcp_flags, "tcp.flags");
    SYM(udp_src, "udp.src"); SYM(udp_dst, "udp.dst");
    SYM(sctp_src, "sctp.src"); SYM(sctp_dst, "sctp.dst");
    SYM(icmp4_type, "icmp4.type"); SYM(icmp4_code, "icmp4.code");
    SYM(icmp6_type, "icmp6.type"); SYM(icmp6_code, "icmp6.code");
    SYM(arp_op, "arp.op"); SYM(arp_sha, "arp.sha"); SYM(arp_tha, "arp.tha");
    SYM(arp_spa, "arp.spa"); SYM(arp_tpa, "arp.tpa");
    SYM(nd_target, "nd.target"); SYM(nd_sll, "nd.sll"); SYM(nd_tll, "nd.tll");
    SYM(ct_state, "ct_state"); SYM(ct_mark, "ct_mark");
    SYM(ct_label, "ct_label"); SYM(pkt_mark, "pkt.mark");
    SYM(inport, "inport"); SYM(outport, "outport"); SYM(flags, "flags");
    SYM(xxreg0, "xxreg0"); SYM(xxreg1, "xxreg1"); SYM(xreg4, "xreg4");
#undef SYM
}

/* Traces one packet 'flow_s' (on 'dp_s', or its inport's datapath),
 * appending the text output to 'output' or, with --json, the packet's
 * object to 'json_packets'.  Returns the exit status. */
static int
trace_packet(struct options *o, struct trace_db *db, const char *dp_s,
             const char *flow_s, struct ds *output,
             struct json *json_packets)
{
    struct tracer *t = &o->tracer;
    struct pkt p = { .has_ct_orig = false };
    expr_flow_init(&p.f);
    char *error = expr_flow_parse(&p.f, flow_s, &db->symtab);
    int status = 0;
    struct trace_dp *dp = NULL;
    if (error) {
        ds_put_format(output, "error parsing flow: %s\n", error);
        free(error);
        status = 1;
        goto out;
    }
    const char *in = getstr(&p, t->inport);
    if (!getstr(&p, t->outport)[0]) {
        /* As stock, an unset outport is port 0, which "none" names. */
        expr_flow_set_string(&p.f, t->outport, "none");
    }
    if (dp_s) {
        dp = trace_db_find_dp(db, dp_s);
        if (!dp) {
            ds_put_format(output, "unknown datapath \"%s\"\n", dp_s);
            status = 1;
            goto out;
        }
    } else {
        const struct trace_port *port = shash_find_data(&db->ports, in);
        if (!in[0]) {
            ds_put_cstr(output, "error parsing flow: flow does not specify "
                        "an inport\n");
            status = 1;
            goto out;
        } else if (!port) {
            ds_put_format(output, "unknown port \"%s\"\n", in);
            status = 1;
            goto out;
        }
        dp = port->dp;
    }
    if (!in[0] || !shash_find(&dp->ports, in)) {
        ds_put_cstr(output, "microflow does not specify ingress port\n");
        status = 1;
        goto out;
    }

    struct flow of;
    to_ovs_flow(t, dp, &p, &of);
    char *flow_text = flow_to_string(&of, NULL);

    struct ovs_list root = OVS_LIST_INITIALIZER(&root);
    struct node *ingress = node_append(&root, N_PIPELINE,
                                       "ingress(dp=\"%s\", inport=\"%s\")",
                                       dp->friendly,
                                       port_friendly(dp, in));
    trace_table(t, dp, &p, 0, false, &ingress->subs);

    if (o->json) {
        struct json *top = json_object_create();
        struct json *outputs = json_array_create_empty();
        struct json *generated = json_array_create_empty();
        struct json *decisions = json_array_create_empty();
        struct json *hops = json_array_create_empty();
        struct json *nat = json_array_create_empty();
        collect_verdict(&root, outputs, generated, decisions);
        collect_path(&root, hops, nat);
        json_object_put_string(top, "format", "ovn-trace-lsn/1");
        json_object_put_string(top, "datapath", dp->friendly);
        json_object_put_string(top, "microflow", flow_s);
        json_object_put_string(top, "flow", flow_text);
        json_object_put(top, "dropped",
                        json_boolean_create(!json_array(outputs)->n));
        json_object_put(top, "outputs", outputs);
        json_object_put(top, "generated", generated);
        json_object_put(top, "decisions", decisions);
        json_object_put(top, "datapaths", hops);
        json_object_put(top, "nat", nat);
        json_object_put(top, "trace", nodes_to_json(&root));
        json_array_add(json_packets, top);
    } else {
        ds_put_format(output, "# %s\n", flow_text);
        bool multiple = o->detailed + o->summary + o->minimal > 1;
        if (o->detailed) {
            if (multiple) {
                ds_put_cstr(output, "# Detailed trace.\n");
            }
            print_details(output, &root, 0);
        }
        if (o->summary) {
            if (multiple) {
                ds_put_cstr(output, "# Summary trace.\n");
            }
            struct ovs_list clone = OVS_LIST_INITIALIZER(&clone);
            node_list_clone(&root, &clone);
            prune(&clone, (1u << N_MODIFY) | (1u << N_TABLE));
            print_summary(output, &clone, 0);
            node_list_destroy(&clone);
        }
        if (o->minimal) {
            if (multiple) {
                ds_put_cstr(output, "# Minimal trace.\n");
            }
            prune(&root, (1u << N_ACTION) | (1u << N_PIPELINE)
                  | (1u << N_TABLE) | (1u << N_OUTPUT));
            print_summary(output, &root, 0);
        }
    }
    free(flow_text);
    node_list_destroy(&root);

out:
    pkt_destroy(&p);
    return status;
}

int
main(int argc, char *argv[])
{
    struct options o = { .friendly_names = true, .notes = true,
                         .tracer = { .select_id = -1 } };

    set_program_name(argv[0]);
    fatal_ignore_sigpipe();
    vlog_set_levels_from_string_assert("reconnect:warn");

    /* "--then [DATAPATH] MICROFLOW" after the first packet: a sequence of
     * packets that share a conntrack table (docs/trace.md).  The options
     * come before the first "--then". */
    int first_then = argc;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--then")) {
            first_then = i;
            break;
        }
    }
    parse_options(first_then, argv, &o);
    int n_args = first_then - optind;
    char **args = argv + optind;
    if (n_args != 1 && n_args != 2) {
        ovs_fatal(0, "one or two non-option arguments are required "
                  "(use --help for help)");
    }

    /* The packets: (datapath or NULL, microflow). */
    size_t n_packets = 0;
    const char **dps = xmalloc(argc * sizeof *dps);
    const char **flows = xmalloc(argc * sizeof *flows);
    dps[n_packets] = n_args > 1 ? args[0] : NULL;
    flows[n_packets++] = args[n_args - 1];
    for (int i = first_then; i < argc; ) {
        int j = i + 1;
        while (j < argc && strcmp(argv[j], "--then")) {
            j++;
        }
        int n = j - i - 1;
        if (n != 1 && n != 2) {
            ovs_fatal(0, "--then takes [DATAPATH] MICROFLOW");
        }
        dps[n_packets] = n > 1 ? argv[i + 1] : dps[n_packets - 1];
        flows[n_packets++] = argv[j - 1];
        i = j;
    }
    struct tracer *t = &o.tracer;
    if (n_packets > 1 || o.ct_load || o.ct_save) {
        if (t->n_ct_states) {
            ovs_fatal(0, "--ct cannot be combined with --then, --ct-load or "
                      "--ct-save: each packet's conntrack state comes from "
                      "the packets before it");
        }
        t->conntrack = true;
    }
    if (o.ct_load) {
        ct_load(t, o.ct_load);
    }

    struct trace_db db;
    char *error = trace_db_load(&db, o.db, o.nb_db, o.friendly_names);
    if (error) {
        ovs_fatal(0, "%s", error);
    }
    t->db = &db;
    t->notes = o.notes;
    tracer_init_symbols(t, &db.symtab);

    int status = 0;
    struct json *packets = json_array_create_empty();
    for (size_t i = 0; i < n_packets; i++) {
        struct ds output = DS_EMPTY_INITIALIZER;
        if (n_packets > 1 && !o.json) {
            ds_put_format(&output, "# Packet %"PRIuSIZE" of %"PRIuSIZE
                          ".\n", i + 1, n_packets);
        }
        status |= trace_packet(&o, &db, dps[i], flows[i], &output,
                               packets);
        fputs(ds_cstr(&output), stdout);
        ds_destroy(&output);
    }
    if (o.json) {
        struct json *top;
        if (n_packets == 1 && json_array(packets)->n == 1) {
            top = json_clone(json_array(packets)->elems[0]);
        } else {
            top = json_object_create();
            json_object_put_string(top, "format", "ovn-trace-lsn/1");
            json_object_put(top, "packets", json_clone(packets));
        }
        char *s = json_to_string(top, JSSF_PRETTY | JSSF_SORT);
        puts(s);
        free(s);
        json_destroy(top);
    }
    json_destroy(packets);
    if (o.ct_save) {
        ct_save(t, o.ct_save);
    }
    free(dps);
    free(flows);
    free(t->ct_states);
    free(t->conns);
    trace_db_destroy(&db);
    return status;
}
