/* Routers' SB neighbour tables: see mac-binding.h. */
#include <config.h>
#include "northd/mac-binding.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "lib/nb-rdb.h"
#include "lib/rdb.h"
#include "lib/sb-rdb.h"
#include "northd/datapaths.h"
#include "northd/router.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "openvswitch/poll-loop.h"
#include "smap.h"
#include "timeval.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(mac_binding);

COVERAGE_DEFINE(mb_aged);
COVERAGE_DEFINE(mb_orphan_deleted);
COVERAGE_DEFINE(mb_static_synced);

/* When the removal limit stopped a run, the next one waits this long, as
 * stock's does. */
#define MB_LIMIT_DELAY_MSEC 5000

void
mb_aging_init(struct mb_aging *a)
{
    a->next_msec = LLONG_MAX;
    a->n_aged = a->n_orphans = 0;
}

bool
mb_aging_due(const struct mb_aging *a)
{
    return a->next_msec != LLONG_MAX && time_msec() >= a->next_msec;
}

void
mb_aging_wait(const struct mb_aging *a)
{
    if (a->next_msec != LLONG_MAX) {
        poll_timer_wait_until(a->next_msec);
    }
}

/* A router's threshold in ms, or 0 (no aging). */
static long long int
router_threshold_msec(const struct lr_router *r)
{
    const char *s = smap_get(lr_router_options(r),
                             "mac_binding_age_threshold");
    unsigned long long int secs;
    if (!s || !str_to_ullong(s, 10, &secs) || secs > UINT32_MAX) {
        return 0;
    }
    return secs * 1000;
}

/* Whether 'name' is a port of the model, a switch's or a router's. */
static bool
port_exists(const struct ls_model *m, const char *name)
{
    return (ls_model_find_port(m, name)
            || lr_model_find_port(m->lr, name));
}

void
mb_aging_run(struct mb_aging *a, const struct ls_model *m, struct rdb *sb,
             struct rdb_txn *txn, const struct smap *nb_options, bool full)
{
    /* The thresholds by SB datapath UUID. */
    struct hmap thresholds = HMAP_INITIALIZER(&thresholds);
    struct dp_threshold {
        struct hmap_node node;
        struct uuid dp;
        long long int msec;
    };
    long long int min_threshold = LLONG_MAX;
    for (size_t i = 0; m->lr && i < m->lr->n_routers; i++) {
        const struct lr_router *r = &m->lr->routers[i];
        long long int msec = router_threshold_msec(r);
        if (msec) {
            struct dp_threshold *t = xmalloc(sizeof *t);
            t->dp = r->dp->sb_uuid;
            t->msec = msec;
            hmap_insert(&thresholds, &t->node, uuid_hash(&t->dp));
            min_threshold = MIN(min_threshold, msec);
        }
    }
    if (!full && hmap_is_empty(&thresholds)) {
        a->next_msec = LLONG_MAX;
        hmap_destroy(&thresholds);
        return;
    }

    unsigned int limit = smap_get_uint(nb_options,
                                       "mac_binding_removal_limit", 0);
    size_t n_deleted = 0;
    bool limited = false;
    long long int now_wall = time_wall_msec();
    long long int next_wall = LLONG_MAX;
    const struct sb_mac_binding *mb;
    SB_MAC_BINDING_FOR_EACH (mb, sb) {
        if (full && !port_exists(m, mb->logical_port)) {
            /* Its port is gone (stock deletes these too). */
            rdb_txn_delete(txn, &sb_table_mac_binding, &mb->header_.uuid);
            COVERAGE_INC(mb_orphan_deleted);
            a->n_orphans++;
            continue;
        }
        if (hmap_is_empty(&thresholds) || !mb->datapath) {
            continue;
        }
        const struct uuid *dp = &mb->datapath->header_.uuid;
        struct dp_threshold *t;
        long long int msec = 0;
        HMAP_FOR_EACH_WITH_HASH (t, node, uuid_hash(dp), &thresholds) {
            if (uuid_equals(&t->dp, dp)) {
                msec = t->msec;
                break;
            }
        }
        if (!msec) {
            continue;
        }
        long long int expiry = mb->timestamp + msec;
        if (expiry > now_wall) {
            next_wall = MIN(next_wall, expiry);
        } else if (limit && n_deleted >= limit) {
            limited = true;
        } else {
            rdb_txn_delete(txn, &sb_table_mac_binding, &mb->header_.uuid);
            COVERAGE_INC(mb_aged);
            a->n_aged++;
            n_deleted++;
        }
    }

    struct dp_threshold *t;
    HMAP_FOR_EACH_POP (t, node, &thresholds) {
        free(t);
    }
    hmap_destroy(&thresholds);

    if (min_threshold == LLONG_MAX) {
        a->next_msec = LLONG_MAX;
        return;
    }
    /* A binding learnt from now on expires a threshold from now at the
     * earliest: the table is quiet, so nothing else says it came. */
    long long int now = time_msec();
    long long int next = now + min_threshold;
    if (next_wall != LLONG_MAX) {
        next = MIN(next, now + (next_wall - now_wall));
    }
    if (limited) {
        next = MIN(next, now + MB_LIMIT_DELAY_MSEC);
    }
    a->next_msec = next;
}

void
mb_aging_format(const struct mb_aging *a, struct ds *s)
{
    ds_put_format(s, "MAC bindings aged out: %"PRIuSIZE"\n", a->n_aged);
    ds_put_format(s, "MAC bindings of missing ports deleted: %"PRIuSIZE"\n",
                  a->n_orphans);
}

/* Static_MAC_Binding. */

static bool
valid_ip(const char *s)
{
    ovs_be32 ip4;
    struct in6_addr ip6;
    return ip_parse(s, &ip4) || ipv6_parse(s, &ip6);
}

void
mb_sync_static(struct ls_model *m, struct rdb *nb, struct rdb *sb,
               struct rdb_txn *txn)
{
    /* SB rows by "PORT IP" (the table's index). */
    struct shash sb_rows = SHASH_INITIALIZER(&sb_rows);
    const struct sb_static_mac_binding *sbr;
    SB_STATIC_MAC_BINDING_FOR_EACH (sbr, sb) {
        char *key = xasprintf("%s %s", sbr->logical_port, sbr->ip);
        if (!shash_add_once(&sb_rows, key, sbr)) {
            rdb_txn_delete(txn, &sb_table_static_mac_binding,
                           &sbr->header_.uuid);
        }
        free(key);
    }

    const struct nb_static_mac_binding *nbr;
    NB_STATIC_MAC_BINDING_FOR_EACH (nbr, nb) {
        const struct lr_port *p = lr_model_find_port(m->lr,
                                                     nbr->logical_port);
        struct eth_addr mac;
        const char *problem = (!p ? "logical_port names no router port"
                               : !valid_ip(nbr->ip) ? "ip does not parse"
                               : !eth_addr_from_string(nbr->mac, &mac)
                               ? "mac does not parse" : NULL);
        if (problem) {
            char *msg = xasprintf("Static_MAC_Binding "UUID_FMT" (%s %s "
                                  "%s): %s: not copied to the SB",
                                  UUID_ARGS(&nbr->header_.uuid),
                                  nbr->logical_port, nbr->ip, nbr->mac,
                                  problem);
            ls_model_report_bad_row(m, msg);
            free(msg);
            continue;
        }
        const struct uuid *dp = &p->router->dp->sb_uuid;
        char *key = xasprintf("%s %s", nbr->logical_port, nbr->ip);
        sbr = shash_find_and_delete(&sb_rows, key);
        free(key);
        if (!sbr) {
            struct uuid uuid;
            rdb_uuid_generate(&uuid);
            rdb_txn_insert(txn, &sb_table_static_mac_binding, &uuid);
            rdb_txn_set_string(txn, SB_STATIC_MAC_BINDING_COL_LOGICAL_PORT,
                               nbr->logical_port);
            rdb_txn_set_string(txn, SB_STATIC_MAC_BINDING_COL_IP, nbr->ip);
        } else if (strcmp(sbr->mac, nbr->mac)
                   || sbr->override_dynamic_mac != nbr->override_dynamic_mac
                   || !RDB_ROW_IS(sbr->datapath, dp)) {
            rdb_txn_update(txn, &sb_table_static_mac_binding,
                           &sbr->header_.uuid);
        } else {
            continue;
        }
        COVERAGE_INC(mb_static_synced);
        rdb_txn_set_string(txn, SB_STATIC_MAC_BINDING_COL_MAC, nbr->mac);
        rdb_txn_set_bool(txn, SB_STATIC_MAC_BINDING_COL_OVERRIDE_DYNAMIC_MAC,
                         nbr->override_dynamic_mac);
        rdb_txn_set_ref(txn, SB_STATIC_MAC_BINDING_COL_DATAPATH, dp);
    }

    struct shash_node *node;
    SHASH_FOR_EACH (node, &sb_rows) {
        sbr = node->data;
        rdb_txn_delete(txn, &sb_table_static_mac_binding,
                       &sbr->header_.uuid);
    }
    shash_destroy(&sb_rows);
}
