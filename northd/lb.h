/* Load balancers on logical switches: VIP parsing, the DNAT and hairpin
 * flows, and SB Load_Balancer rows (which ovn-controller 23.03 uses for
 * its hairpin flows).
 *
 * Unlike upstream, only traffic that can belong to a load-balanced
 * connection enters conntrack because of a load balancer: packets to a VIP
 * address on the way in, and packets from a backend address (and port)
 * towards a client on the way out, with their related ICMP errors.  See
 * docs/load-balancers.md for the reasoning and its limits. */
#ifndef NORTHD_LB_H
#define NORTHD_LB_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "northd/lflow.h"
#include "openvswitch/hmap.h"
#include "openvswitch/uuid.h"
#include "uuidset.h"

#include "northd/lb-opts.h"

struct dp_group;
struct dp_groups;
struct lb_health;
struct lflow_table;
struct ls_model;
struct nb_load_balancer;
struct rdb;
struct rdb_txn;
struct sb_load_balancer;
struct uuidset;

struct lb_backend {
    char *ip;                       /* Normalized text, no brackets. */
    uint16_t port;                  /* 0 if none. */
};

struct lb_vip {
    bool ipv6;
    char *ip;                       /* Normalized text, no brackets. */
    uint16_t port;                  /* 0 if none. */
    struct lb_backend *backends;
    size_t n_backends;
    char *backends_str;             /* For ct_lb_mark(backends=...). */
    char *tmpl_port;                /* Template VIP: its port's text. */
};

struct lb {
    const struct nb_load_balancer *nb;
    const char *proto;              /* "tcp", "udp" or "sctp". */
    struct lb_vip *vips;
    size_t n_vips;
    unsigned long *dps;             /* Datapaths it applies to. */
    size_t n_dps;
    struct lb_opts opts;            /* Options (northd/lb-opts.h). */
    struct lflow_owner owner;       /* Its VIPs' flows, on 'dps'. */
    struct uuid sb_uuid;            /* Its SB row (lb-inc.c), or zero. */
    struct dp_group *sb_dpg;        /* The group its SB row refers to
                                     * (northd/dp-groups.h), or NULL. */
    bool bad_vip;                   /* A VIP was left out and reported. */
    struct lb_agg *agg;             /* The load balancers on the same
                                     * switches (lb-sets.c), or NULL. */
};

struct lb_model {
    struct lb *lbs;
    size_t n_lbs;
    size_t n_datapaths;
    size_t dp_cap;                  /* Bits in each struct lb 'dps'. */
    unsigned long *dps_with_vips;   /* Datapaths with at least one VIP
                                     * ('dp_cap' bits). */
    const struct lb_health *health; /* Which backends are usable, or NULL
                                     * (northd/lb-health.h). */

    /* For incremental passes (lb-inc.c). */
    size_t allocated_lbs;
    struct hmap index;              /* "struct lb_index"es, by NB UUID. */
    struct hmap groups;             /* "struct lb_group_state"s, by NB
                                     * UUID: each group's members. */
    uint32_t *n_vip_lbs;            /* Per datapath, the load balancers
                                     * with VIPs on it ('dp_cap'). */
    struct uuidset sb_dead;         /* SB rows of load balancers gone. */

    /* Their pre-LB flows and address sets (lb-sets.c). */
    struct hmap aggs;               /* "struct lb_agg"s, by switch set. */
    struct groups *sets;            /* Where the address sets are, or
                                     * NULL before lb_aggs_attach_groups(). */
};

/* Parses the "vips" entry 'key'='value' into 'vip'; returns NULL, or an
 * error message (the caller frees it).  lb_vip_destroy() frees what a
 * successful parse made. */
char *lb_vip_parse(const char *key, const char *value, struct lb_vip *vip);
void lb_vip_destroy(struct lb_vip *);

void lb_model_init(struct lb_model *);
void lb_model_destroy(struct lb_model *);
void lb_model_build(struct lb_model *, struct ls_model *,
                    struct rdb *nb_db);
bool lb_model_dp_has_vips(const struct lb_model *, size_t dp_index);

/* The fixed flows every switch has, and the flows of its load balancers'
 * VIPs and backends (on the switches that have any). */
struct ls_datapath;
struct ls_features;
void lb_build_dp_lflows(struct lflow_table *, const struct ls_datapath *,
                        const struct ls_features *);
void lb_build_localnet_lflows(struct lflow_table *,
                              const struct ls_datapath *, bool has_vips,
                              bool stateful);
void lb_build_lflows(struct lflow_table *, const struct ls_model *,
                     struct lb_model *, const struct ls_features *);
struct ls_port;
void lb_build_hairpin_lflows(struct lflow_table *,
                             const struct ls_datapath *);
void lb_build_port_lflows(struct lflow_table *, const struct ls_port *);
void lb_build_lb_lflows(struct lflow_table *, struct lb *,
                        const struct lb_health *,
                        const struct ls_features *);
/* Writes the SB Load_Balancer rows; adds the UUIDs of the rows it inserts
 * to 'inserted', so that the caller knows their echo for its own. */
struct uuidset;
void lb_sync_sb(const struct lb_model *, const struct ls_model *,
                struct rdb *sb_db, struct rdb_txn *,
                struct dp_groups *, struct uuidset *inserted);

/* Incremental passes (lb-inc.c).  lb_model_index() completes a model that
 * lb_model_build() made, and lb_sync_sb() must have run on it once.
 * lb_model_handle_changes() follows the tracked NB changes to load
 * balancers, their groups and the switches' attachments: it rebuilds the
 * flows of the load balancers concerned and remembers them for
 * lb_sync_sb_dirty(), and adds to 'flipped' the switches ("struct
 * ls_datapath"s) that gained their first VIP or lost their last (their own
 * flows, their router ports' and their ACLs' are the caller's to rebuild).
 * It returns false, having changed no flow, with '*reason' set, if it
 * cannot follow them (a VIP that does not parse, or did). */
struct rdb_row;
void lb_model_index(struct lb_model *, struct rdb *nb_db);
struct hmapx;
bool lb_model_handle_changes(struct lb_model *, struct ls_model *,
                             struct rdb *nb_db, struct lflow_table *,
                             const struct ls_features *,
                             struct uuidset *dirty, struct hmapx *flipped,
                             const char **reason);
void lb_sync_sb_dirty(struct lb_model *, struct rdb *sb_db, struct rdb_txn *,
                      struct dp_groups *, struct uuidset *dirty,
                      struct uuidset *inserted);

/* The load balancers on one set of switches share their pre-LB flows,
 * which name SB address sets of their VIPs' and backends' addresses
 * (lb-sets.c).  lb_agg_join() adds a load balancer (with its VIPs and
 * switches) to its set's, lb_agg_leave() takes it back (before its VIPs
 * or switches change); the shared flows include the ls_in_pre_stateful
 * flows of the VIPs with a port; lb_aggs_flush() then rebuilds the shared flows
 * that changed and frees what is empty.  lb_aggs_attach_groups() claims
 * the address sets' names in 'g' (after groups_init()); where one is
 * taken, lb_agg_inline() is true and the load balancer compiles its own
 * pre-LB flows. */
struct groups;
void lb_agg_join(struct lb_model *, const struct ls_model *, struct lb *);
void lb_agg_leave(struct lb_model *, struct lb *);
bool lb_agg_inline(const struct lb *);
void lb_aggs_attach_groups(struct lb_model *, struct groups *);
void lb_aggs_build_lflows(struct lflow_table *, struct lb_model *,
                          const struct ls_features *);
void lb_aggs_flush(struct lb_model *, struct lflow_table *,
                   const struct ls_features *);
void lb_aggs_destroy(struct lb_model *);

/* Before lb_sync_sb_dirty(): proposes, for each load balancer in 'dirty'
 * whose SB row refers to a group, that the group move to its datapaths
 * (dp_groups_propose_move()), so that a group all of whose rows follow a
 * switch that joins or leaves them is updated in place. */
void lb_propose_moves(const struct lb_model *, struct dp_groups *,
                      const struct uuidset *dirty);

/* lb.c's helpers for lb-inc.c. */
char *lb_parse_vips(struct lb *, const struct nb_load_balancer *,
                    bool report, const struct lb_opts_ctx *,
                    struct ls_model *);
void lb_clear_vips(struct lb *);
void lb_sync_sb_one(struct lb *, const struct sb_load_balancer *,
                    struct rdb_txn *, struct dp_groups *,
                    struct uuidset *inserted);
void lb_index_destroy(struct lb_model *);

#endif /* northd/lb.h */
