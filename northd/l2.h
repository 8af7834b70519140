/* Layer-2 forwarding flows of logical switches: port security, FDB
 * learning, ARP/ND responder, L2 lookup and per-stage defaults. */
#ifndef NORTHD_L2_H
#define NORTHD_L2_H 1

struct lflow_table;
struct ls_model;

void l2_build_lflows(struct lflow_table *, const struct ls_model *);

#endif /* northd/l2.h */
