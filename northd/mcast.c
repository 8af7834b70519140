/* IP multicast snooping on logical switches (docs/mcast.md). */
#include <config.h>
#include "northd/mcast.h"

#include "coverage.h"
#include "lib/nb-rdb.h"
#include "lib/rdb.h"
#include "lib/sb-rdb.h"
#include "northd/datapaths.h"
#include "northd/lflow.h"
#include "northd/pipeline.h"
#include "northd/router.h"
#include "openvswitch/hmap.h"
#include "packets.h"
#include "openvswitch/vlog.h"
#include "openvswitch/dynamic-string.h"
#include "smap.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(mcast);

COVERAGE_DEFINE(mcast_ip_multicast_written);
COVERAGE_DEFINE(mcast_igmp_group_purged);

/* Stock's defaults and bounds, in seconds or groups. */
#define MCAST_TABLE_SIZE_DEFAULT 2048
#define MCAST_IDLE_TIMEOUT_DEFAULT 300
#define MCAST_IDLE_TIMEOUT_MIN 15
#define MCAST_IDLE_TIMEOUT_MAX 3600
#define MCAST_QUERY_INTERVAL_MIN 1
#define MCAST_QUERY_INTERVAL_MAX 3600
#define MCAST_QUERY_MAX_RESP_DEFAULT 1

static unsigned long long int
clamp_ull(unsigned long long int v, unsigned long long int lo,
          unsigned long long int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Numbers are read as smap_get_ullong() reads them (what stock does): a
 * value strtoull() does not take whole is the default, a negative one
 * wraps, and the result goes to the SB as a signed 64-bit integer.  Only
 * the idle timeout and the query interval are bounded. */
void
mcast_ls_config_parse(const struct smap *oc, struct mcast_ls_config *c)
{
    c->enabled = smap_get_bool(oc, "mcast_snoop", false);
    c->querier = smap_get_bool(oc, "mcast_querier", true);
    c->flood_unregistered = smap_get_bool(oc, "mcast_flood_unregistered",
                                          false);
    c->table_size = smap_get_ullong(oc, "mcast_table_size",
                                    MCAST_TABLE_SIZE_DEFAULT);

    unsigned long long int idle
        = clamp_ull(smap_get_ullong(oc, "mcast_idle_timeout",
                                    MCAST_IDLE_TIMEOUT_DEFAULT),
                    MCAST_IDLE_TIMEOUT_MIN, MCAST_IDLE_TIMEOUT_MAX);
    c->idle_timeout = idle;
    c->query_interval
        = clamp_ull(smap_get_ullong(oc, "mcast_query_interval", idle / 2),
                    MCAST_QUERY_INTERVAL_MIN, MCAST_QUERY_INTERVAL_MAX);
    c->query_max_resp = smap_get_ullong(oc, "mcast_query_max_response",
                                        MCAST_QUERY_MAX_RESP_DEFAULT);
    c->eth_src = smap_get_def(oc, "mcast_eth_src", "");
    c->ip4_src = smap_get_def(oc, "mcast_ip4_src", "");
    c->ip6_src = smap_get_def(oc, "mcast_ip6_src", "");
}

/* Whether 'p' is in its switch's _MC_static group (options:mcast_flood):
 * unregistered IP multicast and learnt groups reach it. */
bool
mcast_port_flood(const struct ls_port *p)
{
    return p->enabled && smap_get_bool(&p->nb->options, "mcast_flood", false);
}

/* Whether 'p' is in its switch's _MC_mrouter_flood group
 * (options:mcast_flood_reports). */
bool
mcast_port_flood_reports(const struct ls_port *p)
{
    return p->enabled && smap_get_bool(&p->nb->options,
                                       "mcast_flood_reports", false);
}

static bool
dp_floods_static(const struct ls_datapath *dp)
{
    const struct ls_port *p;
    LIST_FOR_EACH (p, dp_node, &dp->ports) {
        if (mcast_port_flood(p)) {
            return true;
        }
    }
    return false;
}

static int
compare_learnt(const void *a_, const void *b_)
{
    const struct mcast_learnt *a = a_, *b = b_;
    return strcmp(a->name, b->name);
}

static bool
ipv6_is_reserved_group(const struct in6_addr *a)
{
    /* All hosts, all link-local routers, all site-local routers: stock
     * gives them no flow (RFC 4291, 2.7.1). */
    static const char *const reserved[] = { "ff02::1", "ff02::2", "ff05::2" };
    for (size_t i = 0; i < ARRAY_SIZE(reserved); i++) {
        struct in6_addr r;
        if (ipv6_parse(reserved[i], &r) && ipv6_addr_equals(a, &r)) {
            return true;
        }
    }
    return false;
}

static void
add_port_once(const struct uuid ***ports, size_t *n, size_t *cap,
              const struct uuid *u)
{
    for (size_t i = 0; i < *n; i++) {
        if (uuid_equals((*ports)[i], u)) {
            return;
        }
    }
    if (*n >= *cap) {
        *ports = x2nrealloc(*ports, cap, sizeof **ports);
    }
    (*ports)[(*n)++] = u;
}

/* The groups ovn-controllers learnt on 'dp', from the SB IGMP_Group rows
 * that name it, as stock aggregates them: rows without a chassis are
 * stale (mcast_purge_igmp_groups()), rows whose address is not an IP
 * address are skipped (and logged), ports that are not the switch's or
 * that flood IP multicast anyway (options:mcast_flood) are left out, and a
 * group left without ports is none.  Rows of the address "mrouters" give
 * the ports of multicast routers, which join _MC_mrouter_flood.  Bad
 * addresses are logged if 'report' (once per pass: flows report them, the
 * SB sync does not). */
void
mcast_learnt_collect(const struct ls_model *m, const struct ls_datapath *dp,
                     bool report, struct mcast_learnt_set *set)
{
    memset(set, 0, sizeof *set);
    if (!m->sb_db || uuid_is_zero(&dp->sb_uuid)) {
        return;
    }
    size_t cap = 0, mr_cap = 0;
    struct in6_addr *addrs = NULL;
    size_t *port_caps = NULL;
    size_t n_groups;
    const struct sb_igmp_group **groups = ls_model_igmp_groups(m, dp,
                                                               &n_groups);
    for (size_t gi = 0; gi < n_groups; gi++) {
        const struct sb_igmp_group *g = groups[gi];
        bool mrouters = !strcmp(g->address, "mrouters");
        struct in6_addr addr;
        ovs_be32 ip4;
        bool ipv4 = false;
        if (mrouters) {
            memset(&addr, 0, sizeof addr);
        } else if (ip_parse(g->address, &ip4)) {
            in6_addr_set_mapped_ipv4(&addr, ip4);
            ipv4 = true;
        } else if (!ipv6_parse(g->address, &addr)) {
            if (!report) {
                continue;
            }
            static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);
            VLOG_WARN_RL(&rl, "SB IGMP_Group "UUID_FMT" on switch %s: "
                         "\"%s\" is not an IP address: ignored",
                         UUID_ARGS(&g->header_.uuid), dp->nb->name,
                         g->address);
            continue;
        }

        /* The group's ports. */
        const struct uuid **ports = NULL;
        size_t n_ports = 0, ports_cap = 0;
        for (size_t i = 0; i < g->n_ports; i++) {
            const struct sb_port_binding *pb = g->ports[i];
            const struct ls_port *p = ls_model_find_port(m, pb->logical_port);
            if (!p || p->dp != dp
                || smap_get_bool(&p->nb->options, "mcast_flood", false)) {
                continue;
            }
            add_port_once(&ports, &n_ports, &ports_cap, &p->sb_uuid);
        }
        if (!n_ports) {
            free(ports);
            continue;
        }
        if (mrouters) {
            for (size_t i = 0; i < n_ports; i++) {
                add_port_once(&set->mrouters, &set->n_mrouters, &mr_cap,
                              ports[i]);
            }
            free(ports);
            continue;
        }

        /* Aggregated by address over chassis. */
        struct mcast_learnt *l = NULL;
        for (size_t i = 0; i < set->n; i++) {
            if (ipv6_addr_equals(&addrs[i], &addr)) {
                l = &set->groups[i];
                for (size_t j = 0; j < n_ports; j++) {
                    add_port_once(&l->ports, &l->n_ports, &port_caps[i],
                                  ports[j]);
                }
                free(ports);
                break;
            }
        }
        if (l) {
            continue;
        }
        if (set->n >= cap) {
            set->groups = x2nrealloc(set->groups, &cap, sizeof *set->groups);
            addrs = xrealloc(addrs, cap * sizeof *addrs);
            port_caps = xrealloc(port_caps, cap * sizeof *port_caps);
        }
        addrs[set->n] = addr;
        port_caps[set->n] = ports_cap;
        l = &set->groups[set->n++];
        l->name = g->address;
        l->ipv4 = ipv4;
        l->flows = (ipv4 ? !ip_is_local_multicast(ip4)
                    : !ipv6_is_reserved_group(&addr));
        l->ports = ports;
        l->n_ports = n_ports;
    }
    free(addrs);
    free(port_caps);
    mcast_learnt_sort(set);
}

void
mcast_learnt_sort(struct mcast_learnt_set *set)
{
    if (set->n > 1) {
        qsort(set->groups, set->n, sizeof *set->groups, compare_learnt);
    }
}

void
mcast_learnt_destroy(struct mcast_learnt_set *set)
{
    for (size_t i = 0; i < set->n; i++) {
        free(set->groups[i].ports);
    }
    free(set->groups);
    free(set->mrouters);
    memset(set, 0, sizeof *set);
}

/* The L2 lookup flows of a snooping switch: IGMP and MLD go to
 * ovn-controller, link-local groups flood, and other IP multicast without
 * a learnt group goes to _MC_static (or is dropped) unless the switch
 * floods it.  Then, on any switch, the flow of each learnt group (up to
 * mcast_table_size for IPv4 and for IPv6 each). */
void
mcast_build_dp_lflows(struct lflow_table *t, const struct ls_model *m,
                      const struct ls_datapath *dp)
{
    struct mcast_ls_config c;
    mcast_ls_config_parse(&dp->nb->other_config, &c);
    bool flood_static = dp_floods_static(dp);
    /* Wired to a router that relays multicast (router-mcast.c): IP
     * multicast goes to it too, through _MC_mrouter_flood. */
    bool flood_relay = lr_model_dp_relays(m->lr, dp);

    if (c.enabled) {
        lflow_add(t, dp, S_IN_L2_LKUP, 100, "igmp", "igmp;");
        lflow_add(t, dp, S_IN_L2_LKUP, 100, "mldv1 || mldv2", "igmp;");
        lflow_add(t, dp, S_IN_L2_LKUP, 85,
                  "ip4.mcast && ip4.dst == 224.0.0.0/24",
                  "outport = \""MC_FLOOD_L2"\"; output;");
        lflow_add(t, dp, S_IN_L2_LKUP, 85, "ip6.mcast_flood",
                  "outport = \""MC_FLOOD"\"; output;");
        if (!c.flood_unregistered) {
            /* Stock's action texts, without the space after '=', with a
             * trailing one after a lone clone. */
            const char *relay = ("clone { outport = \""MC_MROUTER_FLOOD"\"; "
                                 "output; }; ");
            char *action = xasprintf(
                "%s%s", flood_relay ? relay : "",
                flood_static ? "outport =\""MC_STATIC"\"; output;"
                : flood_relay ? "" : "drop;");
            lflow_add(t, dp, S_IN_L2_LKUP, 80, "ip4.mcast || ip6.mcast",
                      action);
            free(action);
        }
    }

    struct mcast_learnt_set set;
    mcast_learnt_collect(m, dp, true, &set);
    uint64_t n_v4 = 0, n_v6 = 0;
    struct ds match = DS_EMPTY_INITIALIZER;
    struct ds actions = DS_EMPTY_INITIALIZER;
    for (size_t i = 0; i < set.n; i++) {
        const struct mcast_learnt *l = &set.groups[i];
        if (!l->flows) {
            continue;
        }
        uint64_t *n = l->ipv4 ? &n_v4 : &n_v6;
        if (*n == (uint64_t) c.table_size) {
            continue;
        }
        ++*n;
        ds_clear(&match);
        ds_clear(&actions);
        /* Stock's text, trailing spaces included. */
        ds_put_format(&match, "eth.mcast && %s && %s.dst == %s ",
                      l->ipv4 ? "ip4" : "ip6", l->ipv4 ? "ip4" : "ip6",
                      l->name);
        if (flood_relay) {
            ds_put_cstr(&actions, "clone { outport = \""MC_MROUTER_FLOOD"\"; "
                        "output; };");
        }
        if (flood_static) {
            ds_put_cstr(&actions,
                        "clone { outport =\""MC_STATIC"\"; output; };");
        }
        ds_put_format(&actions, "outport = \"%s\"; output; ", l->name);
        lflow_add(t, dp, S_IN_L2_LKUP, 90, ds_cstr(&match),
                  ds_cstr(&actions));
    }
    ds_destroy(&match);
    ds_destroy(&actions);
    mcast_learnt_destroy(&set);
}

/* Deletes the IGMP_Group rows stock deletes as stale: without a chassis
 * (its ovn-controller went away) or a datapath (deleted). */
void
mcast_purge_igmp_groups(struct rdb *sb, struct rdb_txn *txn)
{
    const struct sb_igmp_group *g;
    SB_IGMP_GROUP_FOR_EACH (g, sb) {
        if (!g->chassis || !g->datapath) {
            COVERAGE_INC(mcast_igmp_group_purged);
            rdb_txn_delete(txn, &sb_table_igmp_group, &g->header_.uuid);
        }
    }
}

static bool
opt_int_differs(const int64_t *have, int64_t want)
{
    return !have || *have != want;
}

static bool
opt_bool_differs(const bool *have, bool want)
{
    return !have || *have != want;
}

/* Writes the IP_Multicast row of 'dp' ('row', or a new one if NULL) where
 * it differs.  Never touches seq_no, which ovn-sbctl ip-multicast-flush
 * bumps and ovn-controller reads. */
static void
sync_row(struct rdb_txn *txn, const struct ls_datapath *dp,
         const struct sb_ip_multicast *row)
{
    struct mcast_ls_config c;
    mcast_ls_config_parse(&dp->nb->other_config, &c);

    if (row
        && !opt_bool_differs(row->enabled, c.enabled)
        && !opt_bool_differs(row->querier, c.querier)
        && !opt_int_differs(row->table_size, c.table_size)
        && !opt_int_differs(row->idle_timeout, c.idle_timeout)
        && !opt_int_differs(row->query_interval, c.query_interval)
        && !opt_int_differs(row->query_max_resp, c.query_max_resp)
        && !strcmp(row->eth_src, c.eth_src)
        && !strcmp(row->ip4_src, c.ip4_src)
        && !strcmp(row->ip6_src, c.ip6_src)) {
        return;
    }

    COVERAGE_INC(mcast_ip_multicast_written);
    if (row) {
        rdb_txn_update(txn, &sb_table_ip_multicast, &row->header_.uuid);
    } else {
        struct uuid uuid;
        rdb_uuid_generate(&uuid);
        rdb_txn_insert(txn, &sb_table_ip_multicast, &uuid);
        rdb_txn_set_ref(txn, SB_IP_MULTICAST_COL_DATAPATH, &dp->sb_uuid);
    }
    rdb_txn_set_bool(txn, SB_IP_MULTICAST_COL_ENABLED, c.enabled);
    rdb_txn_set_bool(txn, SB_IP_MULTICAST_COL_QUERIER, c.querier);
    rdb_txn_set_string(txn, SB_IP_MULTICAST_COL_ETH_SRC, c.eth_src);
    rdb_txn_set_string(txn, SB_IP_MULTICAST_COL_IP4_SRC, c.ip4_src);
    rdb_txn_set_string(txn, SB_IP_MULTICAST_COL_IP6_SRC, c.ip6_src);
    rdb_txn_set_integer(txn, SB_IP_MULTICAST_COL_TABLE_SIZE, c.table_size);
    rdb_txn_set_integer(txn, SB_IP_MULTICAST_COL_IDLE_TIMEOUT,
                        c.idle_timeout);
    rdb_txn_set_integer(txn, SB_IP_MULTICAST_COL_QUERY_INTERVAL,
                        c.query_interval);
    rdb_txn_set_integer(txn, SB_IP_MULTICAST_COL_QUERY_MAX_RESP,
                        c.query_max_resp);
}

struct dp_row {
    struct hmap_node node;          /* By SB datapath UUID. */
    const struct sb_ip_multicast *row;
};

/* Brings IP_Multicast in line with the switches 'dps' (all of them): one
 * row each, duplicates and rows of datapaths northd does not keep
 * deleted.  (Rows of datapaths deleted in the same transaction are
 * deleted with them by ls_model_sync_sb(), which runs first.) */
void
mcast_sync_sb(struct rdb *sb, struct rdb_txn *txn,
              struct ls_datapath *const *dps, size_t n_dps)
{
    struct hmap rows = HMAP_INITIALIZER(&rows);
    const struct sb_ip_multicast *ipm;
    SB_IP_MULTICAST_FOR_EACH (ipm, sb) {
        if (!ipm->datapath) {
            continue;
        }
        const struct uuid *dpu = &ipm->datapath->header_.uuid;
        uint32_t hash = uuid_hash(dpu);
        struct dp_row *r;
        bool dup = false;
        HMAP_FOR_EACH_WITH_HASH (r, node, hash, &rows) {
            if (uuid_equals(&r->row->datapath->header_.uuid, dpu)) {
                dup = true;
                break;
            }
        }
        if (dup) {
            rdb_txn_delete(txn, &sb_table_ip_multicast, &ipm->header_.uuid);
            continue;
        }
        r = xmalloc(sizeof *r);
        r->row = ipm;
        hmap_insert(&rows, &r->node, hash);
    }

    for (size_t i = 0; i < n_dps; i++) {
        const struct ls_datapath *dp = dps[i];
        const struct sb_ip_multicast *row = NULL;
        struct dp_row *r;
        HMAP_FOR_EACH_WITH_HASH (r, node, uuid_hash(&dp->sb_uuid), &rows) {
            if (uuid_equals(&r->row->datapath->header_.uuid,
                            &dp->sb_uuid)) {
                row = r->row;
                hmap_remove(&rows, &r->node);
                free(r);
                break;
            }
        }
        sync_row(txn, dp, row);
    }

    /* What is left belongs to datapaths that ls_model_sync_sb() deletes
     * (it deletes their IP_Multicast rows too). */
    struct dp_row *r;
    HMAP_FOR_EACH_POP (r, node, &rows) {
        free(r);
    }
    hmap_destroy(&rows);
}

/* The IP_Multicast row of one switch, after a change to it. */
void
mcast_sync_sb_dp(struct rdb *sb, struct rdb_txn *txn,
                 const struct ls_datapath *dp)
{
    const struct sb_ip_multicast *ipm, *row = NULL;
    SB_IP_MULTICAST_FOR_EACH (ipm, sb) {
        if (ipm->datapath
            && uuid_equals(&ipm->datapath->header_.uuid, &dp->sb_uuid)) {
            if (!row) {
                row = ipm;
            } else {
                rdb_txn_delete(txn, &sb_table_ip_multicast,
                               &ipm->header_.uuid);
            }
        }
    }
    sync_row(txn, dp, row);
}
