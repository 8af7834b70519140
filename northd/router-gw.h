/* Distributed gateway ports: a router port with gateway_chassis (NB
 * Gateway_Chassis rows) or a ha_chassis_group, whose traffic to and from
 * the outside goes through one chassis at a time, the highest-priority
 * live one of its HA chassis group.
 *
 * As stock ovn-northd 23.03 does, such a port gets a second Port_Binding,
 * "cr-PORT" of type "chassisredirect" (options distributed-port,
 * always-redirect unless redirect-type is bridged or the peer switch has
 * vtep ports, redirect-type), pointing at an SB HA_Chassis_Group: the NB
 * group of that name, or for gateway_chassis one named after the port with
 * an HA_Chassis per Gateway_Chassis.  Its flows (router-gw.c and the
 * conditions router.c adds) make the gateway chassis alone answer ARP/ND
 * for the port, accept its unicast traffic, and receive what is routed out
 * of it (lr_in_gw_redirect).  docs/routers.md "Distributed gateway
 * ports". */
#ifndef NORTHD_ROUTER_GW_H
#define NORTHD_ROUTER_GW_H 1

#include <stdbool.h>
#include <stdint.h>
#include "hmapx.h"
#include "openvswitch/uuid.h"

struct hmapx;
struct lflow_table;
struct lr_model;
struct lr_port;
struct ls_port;
struct lr_router;
struct ls_model;
struct nb_ha_chassis_group;
struct nb_logical_router_port;
struct rdb_txn;
struct sb_port_binding;
struct shash;
struct svec;

struct lr_dgp {
    char *cr_name;                  /* "cr-PORT". */
    char *cr_qname;                 /* Quoted as the logical language
                                     * writes it. */
    const struct sb_port_binding *sb;   /* Its Port_Binding, or NULL. */
    struct uuid sb_uuid;
    uint32_t tunnel_key;
    const char *group;              /* Its SB HA_Chassis_Group's name. */
    const char *redirect_type;      /* options:redirect-type, or NULL. */
    bool bridged;                   /* redirect-type=bridged. */
    bool always_redirect;
    bool vtep;                      /* Its peer switch has a vtep port:
                                     * its traffic is not redirected (no
                                     * lr_in_gw_redirect flow), its MAC is
                                     * admitted on every chassis, as
                                     * stock. */
};

/* Model, from lr_model_build_ports() once the peers are known: which ports
 * are distributed gateway ports, their chassisredirect ports' keys, and
 * each port's 'ln_resident'. */
void lr_gw_build(struct ls_model *, const struct shash *sb_ports);
void lr_gw_port_destroy(struct lr_port *);

/* The chassisredirect port whose chassis alone answers ARP for 'p''s
 * addresses and takes its MAC on its switch, as stock: for a port whose
 * switch has a localnet port, on a router with distributed gateway ports,
 * the port's own if it is one, else that of the router's only one if 'p'
 * has options:reside-on-redirect-chassis=true.  NULL if none. */
const char *lr_gw_ln_resident(const struct lr_port *);

/* SB. */

/* Adds to 'out' (sorted, unique) the Port_Binding nat_addresses entry of
 * the switch port wired to router port 'rp', if any: for a distributed
 * gateway port, or a port with reside-on-redirect-chassis on a router
 * with one, "MAC IPV4... is_chassis_resident(CR)", which makes the gateway
 * chassis send GARPs for the router port's addresses, as stock. */
void lr_gw_port_garp(const struct lr_port *rp, struct svec *out);

void lr_gw_keep_pbs(const struct lr_model *, struct hmapx *keep);
void lr_gw_sync_ports(struct ls_model *, struct rdb_txn *);

/* An SB HA chassis group as ha_groups_sync() should write it: from NB
 * group 'nb', or from the gateway_chassis of router port 'lrp'; with
 * 'ref_chassis' (of "const struct sb_chassis *"). */
struct ha_want {
    const char *name;
    const struct nb_ha_chassis_group *nb;
    const struct nb_logical_router_port *lrp;
    struct hmapx ref_chassis;
};

/* Adds to 'wanted' (name -> struct ha_want, owned by the caller) the groups
 * of the distributed gateway ports that are not there yet.  A group with
 * more than one chassis refers to every chassis that binds a port of a
 * switch connected (through switches and routers) to its router, as stock
 * 23.03 writes ref_chassis. */
void lr_gw_collect_groups(const struct ls_model *, struct shash *wanted);

/* Whether some group has ref_chassis, which follow port bindings. */
bool lr_gw_has_ref_groups(const struct ls_model *);

/* Flows of router 'r''s distributed gateway ports: lr_in_gw_redirect and,
 * with redirect-type=bridged, lr_in_arp_resolve. */
void lr_gw_build_lflows(struct lflow_table *, const struct lr_router *);

#endif /* northd/router-gw.h */
