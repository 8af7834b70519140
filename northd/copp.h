/* Control plane protection (NB Copp, docs/copp.md): the controller meter
 * of each logical flow whose actions send packets to ovn-controller, on a
 * switch or router whose 'copp' column names a Copp row.
 *
 * Which flows get which of the row's meters is one table
 * (copp-classify.c): the controller action a flow's actions use decides
 * the Copp protocol, and the datapath's Copp the meter.  lflow_add() applies it to every flow
 * added on a datapath with a Copp (northd/lflow.c); a datapath without
 * one costs a pointer test. */
#ifndef NORTHD_COPP_H
#define NORTHD_COPP_H 1

#include <stdbool.h>
#include <stddef.h>

struct ls_model;
struct rdb;

/* The Copp protocols, as ovn-nb(5) names them (Copp "meters" keys). */
enum copp_proto {
    COPP_ARP,                   /* put_arp(): learning from ARP. */
    COPP_ARP_RESOLVE,           /* arp { }: resolving a next hop. */
    COPP_DHCPV4_OPTS,           /* put_dhcp_opts(). */
    COPP_DHCPV6_OPTS,           /* put_dhcpv6_opts(). */
    COPP_DNS,                   /* dns_lookup(). */
    COPP_EVENT_ELB,             /* trigger_event(): empty LB backends. */
    COPP_ICMP4_ERR,             /* icmp4 { }, icmp4_error { }. */
    COPP_ICMP6_ERR,             /* icmp6 { }, icmp6_error { }. */
    COPP_IGMP,                  /* igmp; */
    COPP_ND_NA,                 /* nd_na { }, nd_na_router { }, put_nd()
                                 * learning from an NA. */
    COPP_ND_NS,                 /* put_nd() learning from an NS. */
    COPP_ND_NS_RESOLVE,         /* nd_ns { }: resolving a next hop. */
    COPP_ND_RA_OPTS,            /* put_nd_ra_opts(). */
    COPP_TCP_RESET,             /* tcp_reset { }, sctp_abort { }. */
    COPP_BFD,                   /* handle_bfd_msg(). */
    COPP_REJECT,                /* reject { }. */
    COPP_SVC_MONITOR,           /* handle_svc_check(). */
    COPP_N_PROTOS
};

const char *copp_proto_name(enum copp_proto);

/* The Copp protocol of a flow with these actions, or COPP_N_PROTOS if they
 * send nothing to ovn-controller that a Copp meters. */
enum copp_proto copp_classify(const char *actions);

/* The meters of every datapath of a model that has a Copp, by datapath
 * index.  Built by a full pass (any change to a Copp row, a 'copp' column
 * or a Meter recomputes); NULL when no datapath has a Copp. */
struct copp_set;

/* Builds the set for the switches and routers of 'm' (reporting the Copp
 * rows' problems into 'm'), or returns NULL if none has a Copp. */
struct copp_set *copp_set_build(struct ls_model *m, struct rdb *nb);
void copp_set_destroy(struct copp_set *);

/* The meter of datapath index 'dp' for a flow with 'actions', or NULL. */
const char *copp_set_meter(const struct copp_set *, size_t dp,
                           const char *actions);

/* Whether some datapath set in 'dps' (a bitmap of the model's dp_cap
 * bits) has a Copp that gives protocol 'proto' a meter; then
 * copp_set_proto_meter() tells which of them. */
bool copp_set_any(const struct copp_set *, const unsigned long *dps,
                  enum copp_proto);
const char *copp_set_proto_meter(const struct copp_set *, size_t dp,
                                 enum copp_proto);

#endif /* northd/copp.h */
