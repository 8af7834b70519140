/* Native DHCP (OVN's DHCPv4 and DHCPv6 responders), as stock ovn-northd
 * 23.03 compiles it: for each port whose Logical_Switch_Port
 * dhcpv4_options / dhcpv6_options refer to an NB DHCP_Options row, the
 * put_dhcp_opts() / put_dhcpv6_opts() flows of ls_in_dhcp_options, the
 * replies of ls_in_dhcp_response and, on its switch, the ls_out_acl
 * 34000 flow that lets the reply through.  Also the SB DHCP_Options and
 * DHCPv6_Options tables of option codes ovn-controller reads.  See
 * docs/dhcp.md. */
#ifndef NORTHD_DHCP_H
#define NORTHD_DHCP_H 1

#include <stdbool.h>

struct lflow_table;
struct ls_datapath;
struct ls_model;
struct ls_port;
struct rdb;
struct rdb_txn;
struct uuidset;

/* Puts the SB option code tables in line: adds missing rows, fixes
 * changed ones, deletes any other. */
void dhcp_sync_sb(struct rdb *sb, struct rdb_txn *);

/* Whether the SB option code tables changed under northd (a row someone
 * else inserted, changed or deleted). */
bool dhcp_sb_changed(struct rdb *sb);

/* Reports, as the model's bad rows, the problems of the DHCP_Options rows
 * the model's ports use and of the ports' options:hostname; adds the UUIDs
 * of the rows and ports concerned to 'bad'. */
void dhcp_check_model(struct ls_model *, struct uuidset *bad);

/* Whether an incremental pass that rebuilt 'p' (or a DHCP_Options row it
 * uses) must leave it to a full one, to report or forget a problem:
 * 'p' or a row it uses has one now, or had one ('bad', from
 * dhcp_check_model()). */
bool dhcp_port_needs_report(const struct ls_port *, const struct uuidset *bad);

/* The flows of port 'p' in ls_in_dhcp_options and ls_in_dhcp_response. */
void dhcp_build_port_lflows(struct lflow_table *, const struct ls_port *);

/* The ls_out_acl 34000 flows of the ports of 'dp' that let the DHCP
 * replies through ("ct_commit; next;" if 'stateful'). */
void dhcp_build_dp_lflows(struct lflow_table *, const struct ls_datapath *,
                          bool stateful);

#endif /* northd/dhcp.h */
