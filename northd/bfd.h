/* BFD sessions of router ports (docs/routers.md, "BFD").
 *
 * Each NB BFD row is a session ovn-controller runs: northd keeps an SB BFD
 * row for it (the same logical_port and dst_ip, a UDP source port of its
 * own from 49152 up, a random discriminator, the timers with stock's
 * defaults) and carries the status between the two databases the way
 * stock ovn-northd 23.03 does:
 *
 *   - an NB row without a status gets "admin_down";
 *   - when the two differ, "admin_down" on either side wins and goes to
 *     the SB; otherwise ovn-controller's status (the SB's) goes to the NB;
 *   - a static route whose 'bfd' is the session (with dst_ip its nexthop)
 *     turns "admin_down" into "down", and is left out of routing while the
 *     session is "down";
 *   - a session with an SB row that no such route uses goes back to
 *     "admin_down".
 *
 * The NB status is written by northd (as stock), the SB one follows it on
 * the next pass.  Router ports named by a BFD row get the BFD flows
 * (lr_in_ip_input 110, and an lr_in_ip_routing flow one above each route
 * out of the port for BFD's UDP port 3784).
 *
 * Everything is built with the router model (lr_model_build_dps()) and
 * kept with it; a change to a BFD row, a route, or an SB BFD row someone
 * else writes (ovn-controller's status) is a full recompute. */
#ifndef NORTHD_BFD_H
#define NORTHD_BFD_H 1

#include <stdbool.h>
#include <stdint.h>

struct ds;
struct lflow_table;
struct lr_port;
struct ls_datapath;
struct ls_model;
struct nb_logical_router_static_route;
struct rdb;
struct rdb_txn;
struct uuid;

struct bfd_set;

/* Reads the NB and SB BFD rows.  Call before the router ports and routes
 * are built. */
struct bfd_set *bfd_set_create(struct rdb *nb_db, struct rdb *sb_db);
/* Reports on 'm' the rows whose logical_port is no router port of 'm', or
 * whose dst_ip is no IP address (they are copied all the same, as stock
 * copies them). */
void bfd_set_report(const struct bfd_set *, struct ls_model *m);
void bfd_set_destroy(struct bfd_set *);

/* Whether some BFD row names router port 'name'. */
bool bfd_set_names_port(const struct bfd_set *, const char *name);

/* For static route 'sr', which has a 'bfd': whether it is used (its
 * session is not down), as stock decides; records that the session has a
 * route. */
bool bfd_route_usable(struct bfd_set *,
                      const struct nb_logical_router_static_route *sr);

/* The SB BFD rows, and the NB statuses northd writes (NULL 'nb_txn':
 * nothing written, the next call writes them). */
void bfd_sync_sb(struct bfd_set *, struct rdb *sb_db, struct rdb_txn *);
void bfd_sync_nb(struct bfd_set *, struct rdb_txn *nb_txn);

/* BFD flows of router port 'p' (one a BFD row names) in lr_in_ip_input. */
void bfd_build_port_lflows(struct lflow_table *, const struct lr_port *p);

/* The flow for BFD packets one above a route out of 'p' (one a BFD row
 * names) at 'prio' whose match is 'match' and whose actions are 'actions'
 * without "ip.ttl--; ". */
void bfd_build_route_lflow(struct lflow_table *, const struct ls_datapath *,
                           uint16_t prio, const char *match,
                           const char *actions, const struct uuid *hint);

#endif /* northd/bfd.h */
