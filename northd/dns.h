/* Native DNS on logical switches, as stock ovn-northd 23.03 does it: the
 * SB DNS rows ovn-controller answers dns_lookup() from, and the flows that
 * send DNS queries to it and its replies back (docs/dns.md).
 *
 * One SB DNS row per NB DNS row that some switch lists in its
 * 'dns_records', with the records (values in lowercase, as stock writes
 * them), the switches' Datapath_Bindings and external_ids:dns_id.  A
 * switch with at least one such row with records gets the lookup and
 * response flows (ingress 22 and 23) and lets the replies through its
 * egress ACL stage (34000).
 *
 * The flows do not depend on the records themselves, only on whether a
 * switch has any: a change of a DNS row's records (Neutron changes them
 * with every port) rewrites its SB row and nothing else. */
#ifndef NORTHD_DNS_H
#define NORTHD_DNS_H 1

#include <stdbool.h>
#include <stddef.h>
#include "openvswitch/hmap.h"

struct ds;
struct hmapx;
struct lflow_table;
struct ls_datapath;
struct ls_model;
struct rdb;
struct rdb_txn;

struct dns_model {
    struct hmap entries;            /* "struct dns_entry"s, by NB UUID:
                                     * the DNS rows switches list. */
};

void dns_model_init(struct dns_model *);
void dns_model_destroy(struct dns_model *);

/* Reads every switch's 'dns_records' from 'm' and reports, through 'm'
 * (ls_model_report_bad_row()), records ovn-controller cannot answer
 * from. */
void dns_model_build(struct dns_model *, struct ls_model *m);

/* The flows of switch 'dp' for DNS; 'stateful' says whether its egress ACL
 * stage commits connections (allow-related ACLs or load balancers). */
void dns_build_dp_lflows(struct lflow_table *, const struct ls_datapath *dp,
                         bool stateful);

/* Writes the SB DNS rows: every difference with the replica's, and rows
 * no switch's DNS row accounts for are deleted. */
void dns_sync_sb(struct dns_model *, struct rdb *sb_db, struct rdb_txn *);

/* Incremental passes: follows the tracked changes of switches'
 * 'dns_records' (new switches included, after the switches handler added
 * them to 'm') and of DNS rows' 'records'.  Adds to 'dps' the datapaths
 * whose own flows must be rebuilt.  Returns false, with '*reason' set, for
 * a change a full pass should handle (a problem to report, or one that
 * goes away). */
bool dns_handle_changes(struct dns_model *, const struct ls_model *m,
                        struct rdb *nb_db, struct hmapx *dps,
                        const char **reason);

/* Writes the SB rows of the entries the last dns_handle_changes() changed
 * (after the new switches' Datapath_Bindings). */
void dns_sync_sb_dirty(struct dns_model *, struct rdb_txn *);

/* For the check of incremental passes: appends to 'report' the
 * differences between two models (at most 'max' lines) and returns their
 * number. */
size_t dns_model_diff(const struct dns_model *, const struct dns_model *,
                      struct ds *report, size_t max);

#endif /* northd/dns.h */
