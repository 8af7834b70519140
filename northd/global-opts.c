/* NB_Global and SB_Global options northd sets itself; see global-opts.h. */
#include <config.h>
#include "northd/global-opts.h"

#include "lib/nb-rdb.h"
#include "lib/rdb.h"
#include "lib/sb-rdb.h"
#include "northd/datapaths.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "random.h"
#include "smap.h"

VLOG_DEFINE_THIS_MODULE(global_opts);

/* OVN 23.03.1 puts in northd_internal_version its release, its SB schema
 * version and the number of logical actions with a minor version
 * ("70.6"); ovn-controller 23.03.1 compares the whole string with its
 * own.  Ours compiles for that ovn-controller, so it is the same
 * string. */
#define NORTHD_ACTIONS_VERSION "70.6"

void
global_opts_init(struct global_opts *go)
{
    go->have_svc_monitor_mac = false;
    go->svc_monitor_mac = eth_addr_zero;
}

static void
choose_svc_monitor_mac(struct global_opts *go)
{
    if (!go->have_svc_monitor_mac) {
        eth_addr_random(&go->svc_monitor_mac);  /* Local, unicast. */
        go->have_svc_monitor_mac = true;
    }
}

void
global_opts_own(struct global_opts *go, const struct smap *nb_options,
                const char *mac_prefix, struct smap *own)
{
    smap_add_format(own, "northd_internal_version", "%s-%s-%s",
                    NORTHD_OVN_VERSION, sb_rdb_class.version,
                    NORTHD_ACTIONS_VERSION);
    smap_add_format(own, "max_tunid", "%u", LS_DP_KEY_MAX + 1);

    struct eth_addr ea;
    const char *s = smap_get(nb_options, "svc_monitor_mac");
    if (s && eth_addr_from_string(s, &ea)) {
        smap_add(own, "svc_monitor_mac", s);
    } else {
        choose_svc_monitor_mac(go);
        smap_add_format(own, "svc_monitor_mac", ETH_ADDR_FMT,
                        ETH_ADDR_ARGS(go->svc_monitor_mac));
    }
    if (mac_prefix) {
        smap_add(own, "mac_prefix", mac_prefix);
    }
}

struct eth_addr
global_opts_svc_monitor_mac(struct global_opts *go,
                            const struct smap *nb_options)
{
    struct eth_addr ea;
    const char *s = smap_get(nb_options, "svc_monitor_mac");
    if (s && eth_addr_from_string(s, &ea)) {
        return ea;
    }
    choose_svc_monitor_mac(go);
    return go->svc_monitor_mac;
}

void
global_opts_merge(const struct smap *nb_options, const struct smap *own,
                  struct smap *out)
{
    smap_clone(out, nb_options);
    struct smap_node *node;
    SMAP_FOR_EACH (node, own) {
        smap_replace(out, node->key, node->value);
    }
}

void
global_opts_sync_nb(const struct nb_nb_global *g, const struct smap *own,
                    struct rdb_txn *nb_txn)
{
    if (!g) {
        return;
    }
    struct smap_node *node;
    SMAP_FOR_EACH (node, own) {
        const char *v = smap_get(&g->options, node->key);
        if (!v || strcmp(v, node->value)) {
            struct smap options;
            global_opts_merge(&g->options, own, &options);
            rdb_txn_update(nb_txn, &nb_table_nb_global, &g->header_.uuid);
            rdb_txn_set_smap(nb_txn, NB_NB_GLOBAL_COL_OPTIONS, &options);
            smap_destroy(&options);
            return;
        }
    }
}
