/* Load balancer health checks on logical switches, as stock ovn-northd
 * 23.03 compiles them.
 *
 * A Load_Balancer row lists Load_Balancer_Health_Check rows ('vip' names
 * one of its VIPs exactly as its "vips" key spells it) and, in
 * 'ip_port_mappings', for each backend address "IP" (IPv6: "[IP]") the
 * logical port behind which the backend lives and the source address the
 * probes use: "PORT:SOURCE_IP".  For each backend of a checked VIP with
 * such a mapping, on an existing and enabled switch port, northd writes
 * one SB Service_Monitor row (ip, port, protocol, logical_port, src_mac =
 * NB_Global options:svc_monitor_mac, src_ip, the health check's options);
 * ovn-controller, on the chassis the port is bound to, probes the backend
 * and writes the row's 'status' (northd writes only "offline" over
 * "online" when the port's Port_Binding is not up, as stock does).
 *
 * A checked VIP's ct_lb_mark() lists only the backends with a monitor
 * whose status is unset or "online" with the port up
 * (lb_health_backend_usable()); stock
 * also leaves out a backend without a (valid) mapping.  When none is left
 * the VIP drops new connections, or rejects them with options:reject.
 *
 * The flows of its own: on every switch, service monitor traffic (to or
 * from svc_monitor_mac) skips conntrack and ACLs, and the replies go to
 * ovn-controller (handle_svc_check); on the switch of each mapped port, an
 * ARP (ND) responder answers for the probes' source address.
 *
 * Status changes (ovn-controller writing Service_Monitor.status) are
 * followed without a full recompute (lb_health_handle_sb()); any other
 * change of its inputs is a full recompute.  Bad input (a health check
 * for no VIP, mappings with a bad address or an unknown port, a VIP
 * without a port) is reported per row and the rest compiled. */
#ifndef NORTHD_LB_HEALTH_H
#define NORTHD_LB_HEALTH_H 1

#include <stdbool.h>
#include "openvswitch/hmap.h"
#include "openvswitch/types.h"
#include "sset.h"

struct lb_vip;
struct lflow_table;
struct ls_datapath;
struct ls_model;
struct nb_load_balancer;
struct rdb;
struct rdb_txn;

struct lb_health {
    struct hmap vips;               /* struct lbh_vip: checked VIPs. */
    struct hmap monitors;           /* struct lbh_monitor, by key. */
    struct hmap by_sb;              /* The same, by SB row UUID. */
    struct hmap responders;         /* struct lbh_responder, by switch. */
    struct sset ports;              /* Port names mappings name. */
    struct eth_addr mac;            /* svc_monitor_mac. */
};

void lb_health_init(struct lb_health *);
void lb_health_destroy(struct lb_health *);

/* Builds 'h' (initialized, empty) from every NB load balancer with health
 * checks, the switch ports of 'm' and the SB Service_Monitor rows (their
 * status); problems are reported through 'm'. */
void lb_health_build(struct lb_health *, struct ls_model *, struct rdb *nb_db,
                     struct rdb *sb_db, const struct eth_addr *mac);

/* Whether backend 'ip' (normalized text), 'port' of VIP 'vip' of NB load
 * balancer 'nb' may receive new connections: always if the VIP has no
 * health check ('h' may be NULL: none). */
bool lb_health_vip_checked(const struct lb_health *,
                           const struct nb_load_balancer *,
                           const struct lb_vip *);
bool lb_health_backend_usable(const struct lb_health *,
                              const struct nb_load_balancer *,
                              const struct lb_vip *, const char *ip,
                              uint16_t port);

/* Whether a change to port 'name' (added, removed, enabled or disabled)
 * may change the monitors or the responders. */
bool lb_health_port_involved(const struct lb_health *, const char *name);

/* The flows of switch 'dp': service monitor traffic past conntrack and
 * ACLs (the ACL stage's flow only if 'acl_stages', i.e. the switch has
 * ACLs or VIPs, as in stock), replies to ovn-controller, and the
 * responders for the source addresses of the monitors of its ports. */
void lb_health_build_dp_lflows(struct lflow_table *, const struct lb_health *,
                               const struct ls_datapath *, bool acl_stages);

/* Writes the SB Service_Monitor rows (never their status). */
void lb_health_sync_sb(struct lb_health *, struct rdb *sb_db,
                       struct rdb_txn *);

/* Follows the status changes ovn-controllers wrote since the last pass,
 * and monitored ports going up or down (a monitor "online" whose port is
 * down is set "offline", as stock does): returns true if a backend became
 * usable or unusable, so that the load balancer flows must be built
 * again. */
bool lb_health_handle_sb(struct lb_health *, struct rdb *sb_db,
                         struct rdb_txn *);

#endif /* northd/lb-health.h */
