/* NAT on logical routers: the NB NAT rows and the force-SNAT options of a
 * router, parsed once per full pass, and what they compile to: the NAT
 * stages of the router pipeline (lr_in_unsnat, lr_in_dnat,
 * lr_out_chk_dnat_local, lr_out_undnat, lr_out_post_undnat, lr_out_snat,
 * ...), the ARP/ND responders for NAT external addresses, the requests for
 * them a switch sends to the router, and a router-type switch port's
 * Port_Binding.nat_addresses.
 *
 * This slice compiles NAT on gateway routers (options:chassis).  On a
 * router that is neither a gateway router nor has a distributed gateway
 * port, stock 23.03 compiles only the ARP/ND responders of the NAT
 * addresses, and so does this.  Distributed gateway ports come with their
 * own variant of the stage flows (lr_nat_build_lflows() is where it
 * goes).  docs/routers.md. */
#ifndef NORTHD_ROUTER_NAT_H
#define NORTHD_ROUTER_NAT_H 1

#include <stdbool.h>

struct ds;
struct lflow_table;
struct lr_model;
struct nb_address_set;
struct ls_model;
struct lr_port;
struct lr_router;
struct smap;
struct sset;
struct ls_port;
struct svec;

/* Parses router 'r''s NAT rows and NAT options into r->nat (bad rows
 * reported through 'm' and left out).  Called once 'r''s ports are
 * known. */
void lr_nat_parse(struct ls_model *m, struct lr_router *r);
void lr_nat_destroy(struct lr_router *r);

/* Whether 'r' has options:lb_force_snat_ip=router_ip (a gateway router
 * only): then its router addresses are SNAT addresses, and lr_in_ip_input
 * does not drop traffic to them. */
bool lr_nat_force_snat_router_ip(const struct lr_router *r);

/* Whether 'addr' (an address of one of 'r''s ports, as it prints) is the
 * external address of one of its "snat" rows: then traffic to it that
 * was not unSNATed is dropped in lr_in_arp_resolve, not lr_in_ip_input. */
bool lr_nat_is_snat_ip(const struct lr_router *r, const char *addr);

/* Whether a NAT row of the routers of 'lr' names address set 'as' (its
 * flows name the set: a new name is a full recompute). */
bool lr_nat_uses_address_set(const struct lr_model *lr,
                             const struct nb_address_set *as);

/* lr_in_ip_input 90: ARP replies and NAs for the NAT external addresses
 * (every router). */
void lr_nat_build_arp_nd(struct lflow_table *, const struct lr_router *,
                         struct ds *match);

/* The NAT stages of 'r', their default flows included. */
void lr_nat_build_lflows(struct lflow_table *, const struct lr_router *);

/* A gateway router's unDNAT of every packet on its way out, and the
 * commit of new connections in that zone: for its NAT rows, and for its
 * load balancers when it has none (router-lb.c). */
struct ls_datapath;
void lr_nat_build_gw_undnat(struct lflow_table *, const struct ls_datapath *);

/* The external addresses of 'r''s dnat and dnat_and_snat rows, for the
 * switch's ARP requests and NS sent to router port 'p'
 * (ls_in_l2_lkup 80): each as the address string, v6 or not. */
void lr_nat_for_each_dnat_ip(const struct lr_router *r,
                             void (*cb)(const char *addr, bool v6,
                                        void *aux),
                             void *aux);

/* Port_Binding.nat_addresses of switch port 'lsp_options' (its NB
 * options) wired to router port 'p', as stock 23.03 writes it;
 * 'localnet': the switch has a localnet port. */
void lr_nat_addresses(const struct lr_port *p,
                      const struct smap *lsp_options, bool localnet,
                      struct svec *out);

/* Distributed gateway ports (router-gw.h): whether 'r' has distributed
 * NAT (a floating IP with external_mac and logical_port), which keeps its
 * chassisredirect ports from always redirecting; the floating IPs' MACs
 * (into 'macs'), which the router's switches flood its requests from; the
 * flows on gateway port 'p''s switch (its peer 'sp', named 'qname') for
 * them. */
bool lr_nat_has_distributed(const struct lr_router *);
void lr_nat_check_dgps(struct ls_model *, const struct lr_router *);
void lr_nat_put_eth_srcs(const struct lr_router *, struct sset *macs);
void lr_nat_build_peer_lflows(struct lflow_table *, const struct ls_port *sp,
                              const struct lr_port *p, const char *qname);

/* options:add_route=true (NAT rows and load balancers): on router port 'q',
 * wired to the same switch as distributed gateway port 'p' of another
 * router, a route to each such IPv4 NAT external address (dnat and
 * dnat_and_snat rows that go to 'p') and load balancer VIP of 'p''s router
 * (lr_in_ip_routing, as a connected /32), and, where 'q''s router resolves
 * its neighbour routers statically (a gateway router or 'q' a distributed
 * gateway port, without dynamic_neigh_routers), their MACs
 * (lr_in_arp_resolve).  'hint' is the flows' owner. */
struct uuid;
void lr_nat_build_neighbour_routes(struct lflow_table *,
                                   const struct lr_port *p,
                                   const struct lr_port *q,
                                   const struct uuid *hint);

#endif /* northd/router-nat.h */
