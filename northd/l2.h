/* Layer-2 forwarding flows of logical switches: port security, FDB
 * learning, ARP/ND responder, L2 lookup and per-stage defaults. */
#ifndef NORTHD_L2_H
#define NORTHD_L2_H 1

struct lflow_table;
struct ls_datapath;
struct ls_port;

/* The flows of switch 'dp' as a whole (they depend on which of its ports
 * have unknown addresses). */
void l2_build_dp_lflows(struct lflow_table *, const struct ls_datapath *);

/* The flows of one port. */
void l2_build_port_lflows(struct lflow_table *, const struct ls_port *);

#endif /* northd/l2.h */
