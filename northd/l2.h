/* Layer-2 forwarding flows of logical switches: port security, FDB
 * learning, ARP/ND responder, L2 lookup and per-stage defaults. */
#ifndef NORTHD_L2_H
#define NORTHD_L2_H 1

#include <stdbool.h>

struct lflow_table;
struct ls_datapath;
struct ls_port;

/* The flows of switch 'dp' as a whole (they depend on which of its ports
 * have unknown addresses). */
void l2_build_dp_lflows(struct lflow_table *, const struct ls_datapath *);

/* The flows of one port.  With 'check_up' (NB_Global
 * options:ignore_lsp_down=false), a port that is down gets no ARP/ND
 * responder flows. */
void l2_build_port_lflows(struct lflow_table *, const struct ls_port *,
                          bool check_up);

#endif /* northd/l2.h */
