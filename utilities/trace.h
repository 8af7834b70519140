/* ovn-trace, ours: the model of a southbound database that a trace runs on
 * (utilities/trace-db.c) and the trace itself (utilities/ovn-trace.c).
 * docs/trace.md describes the tool. */
#ifndef TRACE_H
#define TRACE_H 1

#include <stdbool.h>
#include <stdint.h>
#include "lib/expr.h"
#include "lib/lsp-addresses.h"
#include "lib/symtab.h"
#include "openvswitch/list.h"
#include "openvswitch/shash.h"
#include "openvswitch/uuid.h"
#include "packets.h"

struct json;

struct trace_dp;

struct trace_port {
    struct trace_dp *dp;
    struct uuid uuid;
    char *name;                 /* logical_port. */
    char *friendly;             /* What the trace prints for it. */
    char *type;
    char *peer;                 /* options:peer of a patch port, or NULL. */
    char *distributed_port;     /* options:distributed-port of a
                                 * chassisredirect port, or NULL. */
    int64_t key;
    struct lsp_addresses *ps;   /* Parsed port_security entries. */
    size_t n_ps;
};

struct trace_mcgroup {
    char *name;
    int64_t key;
    struct trace_port **ports;  /* Sorted by name, as stock prints them. */
    size_t n_ports;
};

/* One logical flow on one datapath. */
struct trace_flow {
    struct uuid uuid;
    bool egress;
    int table;
    int priority;
    uint32_t order;             /* Among flows of equal priority: where
                                 * stock's IDL iterates the row. */
    char *stage;                /* external_ids:stage-name, or NULL. */
    char *source;               /* external_ids:source, or NULL. */
    char *hint;                 /* external_ids:stage-hint, or NULL. */
    char *match_s;              /* Match as printed (friendly names). */
    char *actions_s;            /* Actions as in the SB. */
    struct expr *match;         /* Annotated. */
    struct ovs_list *actions;   /* Parsed; shared by a group's datapaths. */
};

struct trace_fdb {
    struct eth_addr mac;
    int64_t port_key;
};

struct trace_dp {
    struct uuid uuid;           /* SB Datapath_Binding. */
    struct uuid nb_uuid;
    char *name;
    char *name2;
    char *friendly;
    int64_t key;
    struct shash ports;         /* Name -> struct trace_port *. */
    struct shash mcgroups;      /* Name -> struct trace_mcgroup *. */
    struct trace_flow **flows;  /* Sorted: ingress first, then by table,
                                 * then by decreasing priority. */
    size_t n_flows, allocated_flows;
    struct trace_fdb *fdbs;
    size_t n_fdbs;
    bool has_l3gateway;         /* A gateway router: has a port of type
                                 * "l3gateway". */
    bool is_router;             /* external_ids:logical-router. */
};

/* A row of SB MAC_Binding, what get_arp() and the others look up. */
struct trace_mac_binding {
    char *port;                 /* logical_port. */
    bool ipv6;
    ovs_u128 ip;                /* Host order. */
    struct eth_addr mac;
};

/* A row of the northbound database that a flow's stage-hint can name. */
struct trace_nb_obj {
    struct uuid uuid;
    const char *table;          /* "ACL", "Load_Balancer", ... */
    struct json *row;           /* Owned: the row as the server sent it. */
    char *owner;                /* "port group \"pg1\"", "switch \"sw\"". */
};

struct trace_db {
    struct symtab symtab;
    struct shash dps;           /* SB UUID string -> struct trace_dp *. */
    struct shash ports;         /* Name -> struct trace_port *. */
    struct shash lb_vips;       /* SB Load_Balancer VIP keys ("IP:PORT"). */
    bool friendly_names;
    struct ovs_list **action_lists;     /* Every flow's parsed actions. */
    size_t n_action_lists;
    int n_bad_flows;
    struct trace_nb_obj *nb_objs;
    size_t n_nb_objs;
    struct trace_mac_binding *mac_bindings;
    size_t n_mac_bindings;
};

char *trace_db_load(struct trace_db *, const char *sb_remote,
                    const char *nb_remote, bool friendly_names)
    OVS_WARN_UNUSED_RESULT;
void trace_db_destroy(struct trace_db *);
struct trace_dp *trace_db_find_dp(const struct trace_db *, const char *name);
const struct trace_port *trace_dp_port_by_key(const struct trace_dp *,
                                              int64_t key);
const struct trace_nb_obj *trace_db_find_nb(const struct trace_db *,
                                            const char *uuid_prefix);
char *trace_db_friendly(const struct trace_db *, const char *text);

/* OVSDB JSON helpers. */
const struct json *trace_row_get(const struct json *row, const char *col);
const char *trace_json_str(const struct json *datum);
int64_t trace_json_int(const struct json *datum);

#endif /* utilities/trace.h */
