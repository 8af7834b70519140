/* Actions of the OVN logical-flow language.
 *
 * A logical flow's actions are a sequence of statements, each ending in
 * ";".  This module parses the ones our northd emits into a list of
 * struct action, checks them against the symbol table (fields exist and
 * are writable where used, widths agree), and formats them back.
 * Formatting is canonical: parse(format(x)) formats the same as x.
 *
 * Supported:
 *
 *   drop;                  (only as the whole list; "" means the same)
 *   next;  next(N);  next(pipeline=ingress|egress, table=N);
 *   output;
 *   FIELD = VALUE;  FIELD = FIELD;  FIELD <-> FIELD;  ip.ttl--;
 *   ct_next;  ct_clear;  ct_commit_nat;
 *   ct_dnat;  ct_snat;  ct_dnat_in_czone;  ct_snat_in_czone;  each also
 *       with "(IP)" or "(IP,PORT)" or "(IP,LOW-HIGH)";
 *   ct_commit;  ct_commit { ct_mark.blocked = 1; ... };
 *   ct_lb;  ct_lb_mark;  ct_lb_mark(backends=IP[:PORT],...
 *                                   [; hash_fields="..."]
 *                                   [; skip_snat] [; force_snat]);
 *   log(name="...", severity=S, verdict=V, meter="...");
 *   reject { ... };  tcp_reset { ... };  icmp4 { ... };  icmp4_error {...};
 *   icmp6 { ... };  icmp6_error { ... };  arp { ... };  nd_na { ... };
 *   nd_na_router { ... };  nd_ns { ... };  clone { ... };
 *   sctp_abort { ... };  push(FIELD);  pop(FIELD);
 *   ct_snat_to_vip;  handle_dhcpv6_reply;
 *   DST = select(N[=WEIGHT], ...);   (DST at least 16 bits)
 *   commit_ecmp_nh(ipv6 = true|false, proto = tcp|udp|sctp);
 *
 * and the function-style actions, some of which store a result:
 *
 *   BIT = check_in_port_sec();       BIT = check_out_port_sec();
 *   BIT = chk_lb_hairpin();          BIT = chk_lb_hairpin_reply();
 *   BIT = lookup_fdb(PORT, MAC);     put_fdb(PORT, MAC);
 *   DST = get_fdb(MAC);              handle_svc_check(PORT);
 *   BIT = put_dhcp_opts(NAME = VALUE, ...);   (offerip among them)
 *   BIT = put_dhcpv6_opts(NAME = VALUE, ...);
 *   BIT = put_nd_ra_opts(NAME = VALUE, ...);
 *   get_arp(PORT, IP4);     put_arp(PORT, IP4, MAC);
 *   get_nd(PORT, IP6);      put_nd(PORT, IP6, MAC);
 *   BIT = lookup_arp(PORT, IP4, MAC);    BIT = lookup_arp_ip(PORT, IP4);
 *   BIT = lookup_nd(PORT, IP6, MAC);     BIT = lookup_nd_ip(PORT, IP6);
 *   BIT = check_pkt_larger(LENGTH);      handle_bfd_msg();
 *   BIT = chk_ecmp_nh_mac();             BIT = chk_ecmp_nh();
 *
 * where BIT is a writable 1-bit field or subfield (e.g. reg0[15]), PORT a
 * string field (inport, outport), MAC a 48-bit field or subfield (eth.src,
 * xreg0[0..47]), IP4 and IP6 a 32-bit and a 128-bit field or subfield
 * (reg0, ip4.dst; xxreg0, ip6.src), LENGTH a decimal below 2**31, and
 * DST a writable string field or 32-bit field (outport, reg1).
 * Arguments are fields, never constants, but for the DHCP options, whose
 * names and values ovn-controller 23.03 knows from the SB DHCP_Options and
 * DHCPv6_Options tables (lib/dhcp-opts.h): each VALUE is
 * a constant or a set of them in braces, of the kind the option takes.
 *
 * Inside ct_commit { }, only ct_mark and ct_label (and their subfields)
 * may be assigned, and they may be assigned nowhere else. */
#ifndef ACTIONS_H
#define ACTIONS_H 1

#include <stdbool.h>
#include <stddef.h>
#include "lib/expr.h"
#include "openvswitch/list.h"

struct ds;
struct lexer;

enum action_type {
    ACTION_DROP,
    ACTION_NEXT,
    ACTION_OUTPUT,
    ACTION_ASSIGN,              /* dst = src (field or constant). */
    ACTION_EXCHANGE,            /* dst <-> src. */
    ACTION_DECREMENT,           /* ip.ttl--. */
    ACTION_SIMPLE,              /* Keyword without arguments, e.g.
                                 * ct_next, ct_clear: in 'keyword'. */
    ACTION_CT_COMMIT,           /* ct_commit [{ nested }]. */
    ACTION_NESTED,              /* 'keyword' { nested }, e.g. reject. */
    ACTION_CT_LB,               /* ct_lb / ct_lb_mark: in 'keyword'. */
    ACTION_LOG,
    ACTION_CALL,                /* [dst =] keyword(args): check_in_port_sec,
                                 * lookup_fdb, put_fdb, get_fdb, ... */
    ACTION_SET_METER,           /* set_meter(rate[, burst]). */
    ACTION_SET_QUEUE,           /* set_queue(queue_id). */
    ACTION_PUT_OPTS,            /* dst = put_dhcp_opts(...) or
                                 * put_dhcpv6_opts(...): in 'keyword'. */
    ACTION_NAMED_ARGS,          /* keyword(name = value, ...):
                                 * trigger_event, commit_lb_aff,
                                 * commit_ecmp_nh. */
    ACTION_CT_NAT,              /* ct_dnat, ct_snat, ct_dnat_in_czone,
                                 * ct_snat_in_czone [(IP[,PORTS])]. */
    ACTION_SELECT,              /* dst = select(id[=weight], ...). */
    ACTION_STACK,               /* push(field), pop(field): 'keyword',
                                 * the field in 'assign.dst'. */
};

/* One option of put_dhcp_opts() or put_dhcpv6_opts(). */
struct action_dhcp_opt {
    const char *name;           /* Static: lib/dhcp-opts.h. */
    char *value;                /* Owned: its canonical text. */
};

/* A field or bit range of one, as written. */
struct action_field {
    const struct symtab_symbol *symbol;
    int ofs, n_bits;
};

enum action_pipeline {
    ACTION_PIPELINE_DEFAULT = -1,
    ACTION_PIPELINE_INGRESS,
    ACTION_PIPELINE_EGRESS,
};

enum action_log_verdict {
    ACTION_LOG_ALLOW,
    ACTION_LOG_DROP,
    ACTION_LOG_REJECT,
};

struct action {
    struct ovs_list node;       /* In the owning list. */
    enum action_type type;
    const char *keyword;        /* Static string: the action's name. */
    size_t pos;                 /* Byte offset in the source. */
    union {
        struct {
            enum action_pipeline pipeline;
            int table;          /* -1 if not given. */
        } next;
        struct {
            struct action_field dst;
            bool src_is_field;
            struct action_field src;    /* If 'src_is_field'. */
            struct expr_const value;    /* Otherwise; owned. */
        } assign;               /* ACTION_ASSIGN, ACTION_EXCHANGE,
                                 * ACTION_DECREMENT, ACTION_STACK (dst
                                 * only). */
        struct ovs_list nested; /* ACTION_CT_COMMIT, ACTION_NESTED. */
        struct {
            bool has_args;      /* "ct_lb_mark(...)" vs "ct_lb_mark". */
            char **backends;    /* Owned, formatted "IP[:PORT]". */
            size_t n_backends;
            char *hash_fields;  /* Owned, may be NULL. */
            bool skip_snat, force_snat;
        } lb;
        struct {
            char *name;         /* Owned, may be NULL. */
            const char *severity;       /* Static, may be NULL. */
            enum action_log_verdict verdict;
            char *meter;        /* Owned, may be NULL. */
        } log;
        struct {
            struct action_field dst;
            struct action_dhcp_opt *opts;       /* Owned. */
            size_t n_opts;
        } put_opts;
        struct {
            bool has_dst;       /* False for put_fdb(). */
            struct action_field dst;
            char *name;         /* A first argument that is a quoted name
                                 * (bind_vport()), or NULL. */
            struct action_field args[3];    /* The field arguments. */
            size_t n_args;
            uint32_t number;    /* check_pkt_larger()'s length. */
        } call;
        struct {
            bool has_ip;        /* Written with an address. */
            bool ipv6;
            ovs_u128 ip;        /* Host order. */
            uint16_t port_lo;   /* 0 if no ports were given. */
            uint16_t port_hi;   /* 0 if only 'port_lo' was given. */
        } nat;                  /* ACTION_CT_NAT. */
        struct {
            struct action_field dst;
            uint16_t *ids;      /* Owned. */
            uint16_t *weights;  /* Owned; 0 where none was written. */
            size_t n;
        } select;               /* ACTION_SELECT. */
        struct {
            char **names;       /* Static: the argument names. */
            char **values;      /* Owned: canonical text of each value. */
            size_t n;
        } named;                /* ACTION_NAMED_ARGS. */
        struct {
            uint64_t rate;      /* kbps, at least 1. */
            uint64_t burst;     /* kb, 0 if not given. */
        } meter;                /* ACTION_SET_METER. */
        uint32_t queue_id;      /* ACTION_SET_QUEUE: 0 to
                                 * ACTIONS_MAX_QUEUE_ID. */
    };
};

/* Largest queue number set_queue() takes (ovn-controller 23.03). */
#define ACTIONS_MAX_QUEUE_ID 0xf000

/* Largest table number "next" may name (ovn-controller 23.03). */
#define ACTIONS_MAX_TABLE 28

/* Parses 's' into 'actions' (initialized by the call).  Returns NULL on
 * success, otherwise an error; 'actions' is then empty. */
char *actions_parse_string(const char *s, const struct symtab *,
                           struct ovs_list *actions) OVS_WARN_UNUSED_RESULT;
char *actions_parse(struct lexer *, const struct symtab *,
                    struct ovs_list *actions) OVS_WARN_UNUSED_RESULT;

/* Parses and throws away; NULL if 's' is valid. */
char *actions_validate(const char *s, const struct symtab *)
    OVS_WARN_UNUSED_RESULT;

void actions_format(const struct ovs_list *actions, struct ds *);
/* Appends one action, with its ";" (the trace tool prints them one by
 * one). */
void action_format(const struct action *, struct ds *);

/* Appends 'f' as actions write it: "reg0", "reg0[3]", "reg0[0..15]". */
void action_format_field(const struct action_field *, struct ds *);
void actions_destroy(struct ovs_list *actions);

#endif /* lib/actions.h */
