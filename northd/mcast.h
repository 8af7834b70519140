/* IP multicast snooping on logical switches: SB IP_Multicast, the
 * _MC_static and _MC_mrouter_flood groups, and the IGMP/MLD flows of the
 * L2 lookup (docs/mcast.md). */
#ifndef NORTHD_MCAST_H
#define NORTHD_MCAST_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lflow_table;
struct ls_datapath;
struct ls_model;
struct ls_port;
struct uuid;
struct rdb;
struct rdb_txn;
struct smap;

#define MC_MROUTER_FLOOD "_MC_mrouter_flood"
#define MC_MROUTER_FLOOD_KEY 32770
#define MC_STATIC "_MC_static"
#define MC_STATIC_KEY 32771

/* A switch's multicast settings, from its other_config as stock 23.03
 * reads them. */
struct mcast_ls_config {
    bool enabled;                   /* mcast_snoop. */
    bool querier;                   /* mcast_querier. */
    bool flood_unregistered;        /* mcast_flood_unregistered. */
    int64_t table_size;
    int64_t idle_timeout;
    int64_t query_interval;
    int64_t query_max_resp;
    const char *eth_src;            /* Never NULL. */
    const char *ip4_src;
    const char *ip6_src;
};

void mcast_ls_config_parse(const struct smap *other_config,
                           struct mcast_ls_config *);

bool mcast_port_flood(const struct ls_port *);
bool mcast_port_flood_reports(const struct ls_port *);

#define MC_IP_MIN_KEY 32774          /* Tunnel keys of learnt groups. */
#define MC_IP_MAX_KEY 65535

/* A group learnt by ovn-controllers (SB IGMP_Group rows of one switch and
 * address, from every chassis), as its Multicast_Group. */
struct mcast_learnt {
    const char *name;               /* The address, as the first row has
                                     * it (owned by the replica). */
    bool ipv4;
    bool flows;                     /* Gets a flow (not link-local). */
    const struct uuid **ports;      /* Port_Binding UUIDs, no duplicates. */
    size_t n_ports;
};

struct mcast_learnt_set {
    struct mcast_learnt *groups;    /* Sorted by name. */
    size_t n;
    const struct uuid **mrouters;   /* Ports of "mrouters" rows. */
    size_t n_mrouters;
};

/* Sorts 'set''s groups by name. */
void mcast_learnt_sort(struct mcast_learnt_set *);
void mcast_learnt_collect(const struct ls_model *, const struct ls_datapath *,
                          bool report, struct mcast_learnt_set *);
void mcast_learnt_destroy(struct mcast_learnt_set *);

void mcast_build_dp_lflows(struct lflow_table *, const struct ls_model *,
                           const struct ls_datapath *);

/* Stale SB IGMP_Group rows (no chassis or no datapath), deleted as stock
 * does. */
void mcast_purge_igmp_groups(struct rdb *sb, struct rdb_txn *);

/* SB IP_Multicast: one row per switch datapath. */
void mcast_sync_sb(struct rdb *sb, struct rdb_txn *,
                   struct ls_datapath *const *dps, size_t n_dps);
void mcast_sync_sb_dp(struct rdb *sb, struct rdb_txn *,
                      const struct ls_datapath *);

#endif /* northd/mcast.h */
