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
struct ls_port;
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

void mcast_build_dp_lflows(struct lflow_table *, const struct ls_datapath *);

/* SB IP_Multicast: one row per switch datapath. */
void mcast_sync_sb(struct rdb *sb, struct rdb_txn *,
                   struct ls_datapath *const *dps, size_t n_dps);
void mcast_sync_sb_dp(struct rdb *sb, struct rdb_txn *,
                      const struct ls_datapath *);

#endif /* northd/mcast.h */
