/* Logical routers: their datapaths and ports, and the router pipeline of
 * OVN 23.03 for routing between the switches they connect (connected
 * routes, ARP/ND, ICMP), with what routers need on those switches.
 *
 * Routers are part of the switch model (struct ls_model 'lr'): their
 * datapaths are "struct ls_datapath"s with a 'router' (indexes 'sw_cap'
 * and on), so that flows, datapath groups and the SB Datapath_Binding
 * sync treat both alike.  A change to a router, a router port, or a
 * switch port that is (or was) a router's peer is a full recompute; the
 * flows a router has for a switch port's addresses (lr_in_arp_resolve)
 * belong to that port, so a port change stays incremental.
 * docs/routers.md. */
#ifndef NORTHD_ROUTER_H
#define NORTHD_ROUTER_H 1

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>
#include "hmapx.h"
#include "openvswitch/hmap.h"
#include "openvswitch/shash.h"
#include "openvswitch/types.h"
#include "openvswitch/uuid.h"
#include "packets.h"
#include "sset.h"

struct hmapx;
struct lflow_table;
struct lr_ra;
struct lr_lb_set;
struct lr_nat_set;
struct ls_datapath;
struct ls_model;
struct ls_port;
struct nb_logical_router;
struct nb_logical_router_port;
struct nb_logical_switch_port;
struct rdb;
struct rdb_txn;
struct sb_port_binding;
struct smap;
struct svec;

/* An IPv4 network of a router port ("10.0.0.1/24"). */
struct lr_net4 {
    ovs_be32 addr;
    ovs_be32 network;
    ovs_be32 bcast;
    unsigned int plen;
    char addr_s[INET_ADDRSTRLEN];
    char bcast_s[INET_ADDRSTRLEN];
    char net_s[INET_ADDRSTRLEN + 4];    /* "10.0.0.0/24" */
};

/* An IPv6 network ("fd00::1/64"), or the port's link-local address. */
struct lr_net6 {
    struct in6_addr addr;
    struct in6_addr network;
    unsigned int plen;
    char addr_s[INET6_ADDRSTRLEN];
    char net_s[INET6_ADDRSTRLEN + 5];   /* "fd00::/64" */
    char sn_s[INET6_ADDRSTRLEN];        /* Solicited-node multicast. */
};

struct lr_port {
    struct hmap_node name_node;     /* In lr_model 'ports', by name. */
    const struct nb_logical_router_port *nb;
    struct lr_router *router;
    const struct sb_port_binding *sb;   /* Its Port_Binding, or NULL. */
    struct uuid sb_uuid;
    uint32_t tunnel_key;
    bool enabled;

    char *qname;                    /* The name as a quoted string of the
                                     * logical language (lex_put_string():
                                     * escaped as stock writes names). */
    struct eth_addr mac;
    char mac_s[ETH_ADDR_STRLEN + 1];
    struct lr_net4 *ip4;
    size_t n_ip4;
    struct lr_net6 *ip6;            /* The networks, then the link-local
                                     * address (if any IPv6 network). */
    size_t n_ip6;

    /* What it is wired to, by name, or NULL: the switch port (type
     * "router", options:router-port naming this port), or the router
     * port its NB 'peer' names ('rpeer'). */
    const char *peer;
    const struct lr_port *rpeer;

    uint32_t route_table;           /* Of options:route_table; 0: main. */
    struct lr_ra *ra;               /* Router advertisements (router-ra.h),
                                     * or NULL. */

    /* A distributed gateway port (router-gw.h), or NULL. */
    struct lr_dgp *dgp;
    const char *ln_resident;        /* lr_gw_ln_resident(). */
    int mtu;                        /* options:gateway_mtu (router-mtu.h),
                                     * or 0. */
    char *arp_proxy;                /* The IPv4 addresses (comma-separated)
                                     * its switch port's options:arp_proxy
                                     * answers for, or NULL. */
};

/* A static route (router-routes.c). */
struct lr_route {
    const struct nb_logical_router_static_route *nb;
    bool v6;
    bool src;                       /* policy src-ip. */
    bool discard;
    unsigned int plen;
    uint32_t table;                 /* Route table number; 0: main. */
    char prefix_s[INET6_ADDRSTRLEN + 5];    /* Network, host bits off. */
    char nexthop_s[INET6_ADDRSTRLEN];
    const struct lr_port *out;      /* The port toward the next hop. */
    const char *out_addr;           /* Its address in the next hop's
                                     * network. */
};

/* A router policy (router-routes.c). */
struct lr_policy {
    const struct nb_logical_router_policy *nb;
    enum { LR_POLICY_DROP, LR_POLICY_ALLOW, LR_POLICY_REROUTE } action;
    bool v6;
    int64_t pkt_mark;               /* options:pkt_mark, or -1. */
    struct lr_route *hops;          /* Reroute: its next hops ('nexthop_s',
                                     * 'out', 'out_addr'). */
    size_t n_hops;
};

struct lr_router {
    const struct nb_logical_router *nb;
    struct ls_datapath *dp;
    const char *chassis;            /* options:chassis: a gateway router
                                     * bound to that chassis; or NULL. */
    bool mcast_relay;               /* options:mcast_relay (router-mcast.c). */
    struct lr_nat_set *nat;         /* NAT (router-nat.c). */
    struct lr_lb_set *lb;           /* Load balancers (router-lb.c), or
                                     * NULL. */
    struct lr_port **ports;         /* Valid ports, by name. */
    size_t n_ports;
    struct lr_route *routes;        /* Valid static routes, by table,
                                     * policy, prefix, next hop. */
    size_t n_routes;
    struct lr_policy *policies;     /* Valid policies, by priority. */
    size_t n_policies;
    struct lr_port *dgp0;           /* The first of its distributed gateway
                                     * ports in NB order, or NULL. */
    bool ct_mark_natted;            /* Chassis know ct_mark.natted (else
                                     * ct_label.natted), as of the last
                                     * lr_build_lflows(). */
    size_t n_dgps;
};

struct lr_model {
    struct lr_router *routers;
    size_t n_routers;
    struct hmap ports;              /* Contains "struct lr_port"s. */
    struct shash peers;             /* Switch port name -> lr_port. */
    struct sset claims;             /* Names of the switch ports of type
                                     * "router" whose router-port names a
                                     * router port; with distributed
                                     * gateway ports, also the localnet and
                                     * vtep ports (router-gw.h). */
    size_t n_dgps;                  /* Distributed gateway ports. */
    bool ct_no_masked_label;        /* The chassis feature (features.h),
                                     * set by northd.c before
                                     * lr_build_lflows(). */
    struct hmapx routers_only;      /* Switches whose ports are all wired
                                     * to routers (at the last full pass). */
};

/* Called by ls_model_build(): the routers' datapaths, after the switches'
 * (grows m->dp_cap), before tunnel keys; then their ports once the
 * switches' ports are known ('sb_ports': Port_Bindings by name). */
void lr_model_build_dps(struct ls_model *, struct rdb *nb_db,
                        struct rdb *sb_db);
void lr_model_build_ports(struct ls_model *, const struct shash *sb_ports);
void lr_model_destroy(struct lr_model *);

const char *lr_router_name(const struct lr_router *);
const struct smap *lr_router_options(const struct lr_router *);
void lr_router_sb_ids(const struct lr_router *, struct smap *ids);

/* SB sync, from ls_model_sync_sb(): the Port_Bindings to keep, then the
 * router ports' bindings. */
void lr_model_keep_pbs(const struct lr_model *, struct hmapx *keep);
void lr_model_sync_ports(struct ls_model *, struct rdb_txn *);
/* Logical_Router_Port.ipv6_prefix from the delegated prefixes
 * (router-ra.h lr_ra_sync_nb_prefix()), in NB transaction 'nb_txn'. */
void lr_model_sync_nb_ipv6_prefix(const struct ls_model *,
                                  struct rdb_txn *nb_txn);

/* Writes 'options' (and destroys it) and the "MAC NETWORK..." mac of
 * router port 'p' into its Port_Binding 'pb' (NULL: being inserted), the
 * row the transaction is on, where they differ. */
void lr_port_sync_pb_options_mac(struct rdb_txn *, const struct lr_port *p,
                                 const struct sb_port_binding *pb,
                                 struct smap *options);

/* The router port named 'name', or NULL. */
const struct lr_port *lr_model_find_port(const struct lr_model *,
                                         const char *name);

/* The router port that switch port 'lsp_name' is wired to, or NULL. */
const struct lr_port *lr_model_peer_of(const struct lr_model *,
                                       const char *lsp_name);
bool lr_model_lsp_touches(const struct lr_model *,
                          const struct nb_logical_switch_port *);
/* Whether switch 'dp' has only router ports, at the last full pass or as
 * its NB row has it now: then a change of its ports is a full recompute
 * (the routers' flows on it depend on it). */
bool lr_model_switch_routers_only(const struct lr_model *,
                                  const struct ls_datapath *dp);

/* The Port_Binding of switch port 'sp' wired to router port 'p': its type,
 * the options it gets besides "peer", and its nat_addresses (sorted). */
const char *lr_peer_pb_type(const struct lr_port *p);
void lr_peer_pb_options(const struct lr_port *p, struct smap *options);
void lr_peer_pb_nat_addresses(const struct lr_port *p,
                              const struct ls_port *sp, struct svec *out);

/* Reports what router rows that are valid one by one do wrong together
 * (router-check.c): two router ports claiming one address on a segment,
 * static routes that add nothing.  Compiled as written all the same. */
void lr_check_model(struct ls_model *);

/* Static routes and policies (router-routes.c): parsed with the model
 * (bad ones reported and left out), then compiled with the router's
 * flows. */
void lr_routes_parse(struct ls_model *, struct lr_router *);
void lr_routes_build_lflows(struct lflow_table *, const struct lr_router *);
void lr_routes_destroy(struct lr_router *);
void lr_policies_parse(struct ls_model *, struct lr_router *);
void lr_policies_build_lflows(struct lflow_table *,
                              const struct lr_router *);

/* Multicast relay (router-mcast.c).  A router with options:mcast_relay
 * routes the IP multicast groups its switches learnt: a Multicast_Group
 * on its datapath per group, of the router ports toward the switches that
 * learnt it, and its flows; its switches send IP multicast to it through
 * _MC_mrouter_flood.  Router ports with options:mcast_flood
 * (lr_port_mcast_flood()) form the router's _MC_static, which gets all
 * IP multicast and reports.  lr_model_port_relays(): whether switch port
 * 'lsp_name' is wired to such a router; lr_model_dp_relays(): whether a
 * port of switch 'dp' is. */
struct mcast_learnt_set;
bool lr_port_mcast_flood(const struct lr_port *);
bool lr_model_port_relays(const struct lr_model *, const char *lsp_name);
bool lr_model_dp_relays(const struct lr_model *, const struct ls_datapath *);
void lr_mcast_collect(const struct ls_model *, const struct lr_router *,
                      struct mcast_learnt_set *);
void lr_mcast_build_lflows(struct lflow_table *, const struct ls_model *,
                           const struct lr_router *);

/* Flows.  lr_build_lflows(): every router's own flows (each router's
 * datapath owns them).  lr_build_switch_lflows(): what switch 'dp' has
 * for its router ports as a whole.  lr_build_port_lflows(): switch port
 * 'p''s part: a router port's ARP/ND and L2 flows on its switch, and
 * the static ARP/ND entries routers wired to 'p''s switch have for 'p''s
 * addresses.  Added for the table's current owner.  'stateful' (the
 * switch has stateful ACLs) decides how routed traffic skips its load
 * balancer stages. */
void lr_build_lflows(struct lflow_table *, const struct ls_model *);
void lr_build_switch_lflows(struct lflow_table *, const struct ls_model *,
                            const struct ls_datapath *, bool stateful);
void lr_build_port_lflows(struct lflow_table *, const struct ls_model *,
                          const struct ls_port *);

#endif /* northd/router.h */
