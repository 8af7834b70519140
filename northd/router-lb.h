/* Load balancers on logical routers: the NB Load_Balancer rows a router
 * has (its load_balancer column and its load_balancer_group's members),
 * parsed once per full pass, and what they compile to as in OVN 23.03:
 * lr_in_defrag, lr_in_unsnat (a VIP that is a NAT address),
 * lr_in_lb_aff_check, lr_in_dnat (ct_lb_mark with skip_snat/force_snat;
 * with health checks, the backends northd/lb-health.h says are usable),
 * lr_in_lb_aff_learn, and on gateway routers lr_out_undnat,
 * lr_out_post_undnat and lr_out_snat; on a router with a distributed
 * gateway port, bound to its gateway chassis (is_chassis_resident of the
 * first gateway port's chassisredirect port) with lr_out_undnat for the
 * backends' replies out of it; the ARP/ND responders for the VIPs
 * reachable from the router's ports (SB address sets
 * "_rtr_lb_<tunnel key>_ip4"/"_ip6", as stock names them) and the switches'
 * requests for them sent to the router.
 *
 * A change to a router's own load balancer columns is a full recompute; a
 * change to a load balancer or group a router has (at the last full pass
 * or now, lr_lb_on_routers()) is followed load balancer by load balancer
 * while the VIP addresses other flows show stay the same
 * (lr_lb_handle_changes()).  docs/routers.md, "Load balancers on
 * routers". */
#ifndef NORTHD_ROUTER_LB_H
#define NORTHD_ROUTER_LB_H 1

#include <stdbool.h>

struct groups;
struct lflow_table;
struct ls_model;
struct lr_port;
struct lr_router;
struct rdb;
struct uuidset;

/* Parses the load balancers of router 'r' into r->lb (bad VIPs reported
 * through 'm' and left out).  Called once 'r''s ports are known. */
void lr_lb_parse(struct ls_model *m, struct lr_router *r);
void lr_lb_destroy(struct lr_router *r);

/* Claims, in 'g', the SB address sets of the routers' reachable VIPs
 * (after groups_init()). */
void lr_lb_attach_groups(struct ls_model *m, struct groups *g);

/* Gives the routers' load balancers the backends' health 'h' (after
 * lb_health_build(); 'h' must outlive the model). */
struct lb_health;
void lr_lb_attach_health(struct ls_model *m, const struct lb_health *h);

/* Rebuilds, in 't', the VIP flows of the routers' load balancers with
 * health checks (after lb_health_handle_sb() said a backend's health
 * changed). */
void lr_lb_health_changed(struct ls_model *m, struct lflow_table *t);

/* Whether 'addr' (of family 'v6') is a VIP of one of 'r''s load
 * balancers. */
bool lr_lb_is_vip(const struct lr_router *r, const char *addr, bool v6);

/* Whether 'r' has a load balancer with a VIP. */
bool lr_lb_has_vips(const struct lr_router *r);

/* The stage flows of 'r''s load balancers (default flows are the
 * caller's), and its ARP/ND responders for their reachable VIPs. */
void lr_lb_build_lflows(struct lflow_table *, const struct lr_router *r);

/* The VIPs of 'p''s router in 'p''s networks, for the requests for them a
 * switch sends to 'p' (ls_in_l2_lkup 80). */
void lr_lb_for_each_reachable_vip(const struct lr_port *p,
                                  void (*cb)(const char *addr, bool v6,
                                             void *aux),
                                  void *aux);

/* Calls 'cb' for each IPv4 VIP of 'r''s load balancers with
 * options:add_route=true (templates excepted), which neighbour routers
 * route to the router (router-nat.h lr_nat_build_neighbour_routes()). */
void lr_lb_for_each_routable_vip(const struct lr_router *r,
                                 void (*cb)(const char *addr, void *aux),
                                 void *aux);

/* Appends " VIP" to 's' for each VIP of 'r''s load balancers, the IPv4
 * ones then the IPv6 ones, each once, for a Port_Binding's nat_addresses
 * (nat-addresses=router), as stock; returns whether there was one. */
struct ds;
bool lr_lb_put_vips(const struct lr_router *r, struct ds *s);

/* Follows a change to the load balancers 'changed' (NB UUIDs), which are
 * on routers, and to the members of the routers' groups: if only their
 * VIPs or backends changed, or they joined or left a group (the VIP
 * addresses that other flows, the address sets and nat_addresses show
 * are the same), rebuilds or drops their VIPs' flows in 't' and returns
 * true;
 * otherwise returns false with '*reason', for a full recompute (then 'm''s
 * routers may be half updated: the recompute rebuilds them). */
struct lflow_table;
bool lr_lb_handle_changes(struct ls_model *m, struct rdb *nb_db,
                          struct lflow_table *t,
                          const struct uuidset *changed,
                          const char **reason);

/* Adds to 'out' the UUIDs of the load balancers on routers: at the last
 * full pass (model 'm') and as 'nb_db' has them now (directly or through
 * a group).  A change to one of them is a full recompute. */
void lr_lb_on_routers(const struct ls_model *m, struct rdb *nb_db,
                      struct uuidset *out);

#endif /* northd/router-lb.h */
