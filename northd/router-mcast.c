/* Multicast relay between the switches of a router with
 * options:mcast_relay=true: see router.h ("Multicast relay") and
 * docs/mcast.md. */
#include <config.h>

#include <string.h>

#include "coverage.h"
#include "lib/nb-rdb.h"
#include "northd/datapaths.h"
#include "northd/lflow.h"
#include "northd/mcast.h"
#include "northd/router.h"
#include "openvswitch/dynamic-string.h"
#include "smap.h"
#include "util.h"

COVERAGE_DEFINE(lr_mcast_relay_group);

bool
lr_model_port_relays(const struct lr_model *lr, const char *lsp_name)
{
    const struct lr_port *p = lr_model_peer_of(lr, lsp_name);
    return p && p->router->mcast_relay;
}

bool
lr_model_dp_relays(const struct lr_model *lr, const struct ls_datapath *dp)
{
    if (!lr || !lr->n_routers) {
        return false;
    }
    const struct ls_port *p;
    LIST_FOR_EACH (p, dp_node, &dp->ports) {
        if (!strcmp(p->nb->type, "router")
            && lr_model_port_relays(lr, p->nb->name)) {
            return true;
        }
    }
    return false;
}

bool
lr_port_mcast_flood(const struct lr_port *p)
{
    return smap_get_bool(&p->nb->options, "mcast_flood", false);
}

static bool
router_floods_static(const struct lr_router *r)
{
    for (size_t i = 0; i < r->n_ports; i++) {
        if (lr_port_mcast_flood(r->ports[i])) {
            return true;
        }
    }
    return false;
}

void
lr_mcast_collect(const struct ls_model *m, const struct lr_router *r,
                 struct mcast_learnt_set *set)
{
    memset(set, 0, sizeof *set);
    if (!r->mcast_relay) {
        return;
    }
    size_t cap = 0;
    size_t *port_caps = NULL;
    for (size_t i = 0; i < r->n_ports; i++) {
        const struct lr_port *p = r->ports[i];
        /* A port in _MC_static gets every group anyway. */
        const struct ls_port *sp = (p->peer && !p->rpeer
                                    && !lr_port_mcast_flood(p)
                                    ? ls_model_find_port(m, p->peer) : NULL);
        if (!sp) {
            continue;
        }
        struct mcast_learnt_set sw;
        mcast_learnt_collect(m, sp->dp, false, &sw);
        for (size_t j = 0; j < sw.n; j++) {
            const struct mcast_learnt *l = &sw.groups[j];
            size_t k;
            for (k = 0; k < set->n; k++) {
                if (!strcmp(set->groups[k].name, l->name)) {
                    break;
                }
            }
            if (k == set->n) {
                if (set->n >= cap) {
                    set->groups = x2nrealloc(set->groups, &cap,
                                             sizeof *set->groups);
                    port_caps = xrealloc(port_caps,
                                         cap * sizeof *port_caps);
                }
                set->groups[k] = (struct mcast_learnt) {
                    .name = l->name, .ipv4 = l->ipv4, .flows = true,
                };
                port_caps[k] = 0;
                set->n++;
                COVERAGE_INC(lr_mcast_relay_group);
            }
            struct mcast_learnt *g = &set->groups[k];
            if (!g->n_ports || g->ports[g->n_ports - 1] != &p->sb_uuid) {
                if (g->n_ports >= port_caps[k]) {
                    g->ports = x2nrealloc(g->ports, &port_caps[k],
                                          sizeof *g->ports);
                }
                g->ports[g->n_ports++] = &p->sb_uuid;
            }
        }
        mcast_learnt_destroy(&sw);
    }
    free(port_caps);
    mcast_learnt_sort(set);
}

void
lr_mcast_build_lflows(struct lflow_table *t, const struct ls_model *m,
                      const struct lr_router *r)
{
    const struct ls_datapath *dp = r->dp;
    bool flood_static = router_floods_static(r);
    if (flood_static) {
        /* Reports reach the ports that flood, relay or not. */
        lflow_add(t, dp, S_LR_IN_IP_INPUT, 120, "igmp && ip.ttl == 1",
                  "next;");
        lflow_add(t, dp, S_LR_IN_IP_INPUT, 120,
                  "(mldv1 || mldv2) && ip.ttl == 1", "next;");
    }
    if (!r->mcast_relay) {
        return;
    }
    static const char clone_static[]
        = "clone { outport = \""MC_STATIC"\"; ip.ttl--; next; };";
    lflow_add(t, dp, S_LR_IN_IP_ROUTING, 10450, "ip4.mcast || ip6.mcast",
              flood_static ? clone_static : "drop;");
    if (flood_static) {
        lflow_add(t, dp, S_LR_IN_IP_ROUTING, 10460, "igmp",
                  "clone { outport = \""MC_STATIC"\"; next; };");
        lflow_add(t, dp, S_LR_IN_IP_ROUTING, 10460, "mldv1 || mldv2",
                  "clone { outport = \""MC_STATIC"\"; next; };");
    }
    struct ds match = DS_EMPTY_INITIALIZER;
    struct ds actions = DS_EMPTY_INITIALIZER;
    for (size_t i = 0; i < r->n_ports; i++) {
        const struct lr_port *p = r->ports[i];
        if (flood_static) {
            /* The router's own reports are not routed back. */
            static const char *const reports[] = {
                "igmp", "(mldv1 || mldv2)",
            };
            for (size_t j = 0; j < ARRAY_SIZE(reports); j++) {
                ds_clear(&match);
                ds_put_format(&match, "eth.src == %s && %s", p->mac_s,
                              reports[j]);
                lflow_add_hint(t, dp, S_LR_IN_IP_ROUTING, 10550,
                               ds_cstr(&match), "drop;",
                               &p->nb->header_.uuid);
            }
        }
        if (!p->enabled) {
            continue;
        }
        ds_clear(&match);
        ds_put_format(&match, "(ip4.mcast || ip6.mcast) && outport == %s",
                      p->qname);
        ds_clear(&actions);
        ds_put_format(&actions, "eth.src = %s; output;", p->mac_s);
        lflow_add_hint(t, dp, S_LR_OUT_DELIVERY, 110, ds_cstr(&match),
                       ds_cstr(&actions), &p->nb->header_.uuid);
    }

    /* The groups the switches learnt, routed to the ports toward them. */
    struct mcast_learnt_set set;
    lr_mcast_collect(m, r, &set);
    for (size_t i = 0; i < set.n; i++) {
        const struct mcast_learnt *l = &set.groups[i];
        const char *ip = l->ipv4 ? "ip4" : "ip6";
        ds_clear(&match);
        /* Stock's text, trailing space included. */
        ds_put_format(&match, "%s && %s.dst == %s ", ip, ip, l->name);
        ds_clear(&actions);
        if (flood_static) {
            ds_put_cstr(&actions, clone_static);
        }
        ds_put_format(&actions, "outport = \"%s\"; ip.ttl--; next;",
                      l->name);
        lflow_add(t, dp, S_LR_IN_IP_ROUTING, 10500, ds_cstr(&match),
                  ds_cstr(&actions));
    }
    mcast_learnt_destroy(&set);
    ds_destroy(&match);
    ds_destroy(&actions);
}
