/* MTU checks on router ports (options:gateway_mtu and
 * gateway_mtu_bypass): packets larger than the MTU that enter or would
 * leave such a port get an ICMP "fragmentation needed" (IPv4) or "packet
 * too big" (IPv6) back, as stock 23.03 compiles them with
 * check_pkt_larger().  docs/routers.md, "MTU checks". */
#ifndef NORTHD_ROUTER_MTU_H
#define NORTHD_ROUTER_MTU_H 1

#include <stdbool.h>

struct lflow_table;
struct lr_port;
struct lr_router;
struct ls_model;

/* Parses 'p''s gateway_mtu and gateway_mtu_bypass (bad values reported
 * on 'm'): the MTU, or 0 for none. */
int lr_mtu_parse(struct ls_model *m, const struct lr_port *p);

/* Adds 'p''s lr_in_admission flow for 'match' (priority 50, 'action'
 * after the MTU check if 'p' has one) and, with a bypass, the priority 55
 * flow that admits the bypassed packets unchecked. */
void lr_mtu_admission(struct lflow_table *, const struct lr_port *p,
                      const char *match, const char *action);

/* The router's lr_in_ip_input, lr_in_chk_pkt_len and lr_in_larger_pkts
 * flows for its ports' MTUs. */
void lr_mtu_build_lflows(struct lflow_table *, const struct lr_router *);

#endif /* northd/router-mtu.h */
