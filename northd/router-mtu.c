/* MTU checks on router ports: see router-mtu.h. */
#include <config.h>
#include "northd/router-mtu.h"

#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "lib/nb-rdb.h"
#include "northd/acl-check.h"
#include "northd/datapaths.h"
#include "northd/lflow.h"
#include "northd/router.h"
#include "openvswitch/dynamic-string.h"
#include "smap.h"
#include "util.h"

COVERAGE_DEFINE(lr_mtu_port);

/* The Ethernet header check_pkt_larger() counts beyond the IP MTU. */
#define MTU_ETH_OVERHEAD 14
#define MTU_MIN 68
#define MTU_MAX 65535

int
lr_mtu_parse(struct ls_model *m, const struct lr_port *p)
{
    const char *s = smap_get(&p->nb->options, "gateway_mtu");
    const char *bypass = smap_get(&p->nb->options, "gateway_mtu_bypass");
    int mtu = 0;
    char *problem = NULL;
    if (s && (!str_to_int(s, 10, &mtu) || mtu < MTU_MIN || mtu > MTU_MAX)) {
        problem = xasprintf("gateway_mtu \"%s\" is not a number from %d to "
                            "%d: no MTU check", s, MTU_MIN, MTU_MAX);
        mtu = 0;
    } else if (bypass && !mtu) {
        problem = xasprintf("gateway_mtu_bypass without gateway_mtu "
                            "means nothing");
    } else if (bypass && !strpbrk(bypass, "$@")) {
        char *error = acl_check_plain_match(bypass);
        if (error) {
            /* Stock writes it; ovn-controller rejects those flows, and
             * the packets are checked anyway. */
            problem = xasprintf("gateway_mtu_bypass \"%s\": %s", bypass,
                                error);
            free(error);
        }
    }
    if (problem) {
        char *msg = xasprintf("Logical_Router_Port %s ("UUID_FMT"): %s",
                              p->nb->name, UUID_ARGS(&p->nb->header_.uuid),
                              problem);
        ls_model_report_bad_row(m, msg);
        free(msg);
        free(problem);
    }
    if (mtu) {
        COVERAGE_INC(lr_mtu_port);
    }
    return mtu;
}

static const char *
mtu_bypass(const struct lr_port *p)
{
    const char *bypass = smap_get(&p->nb->options, "gateway_mtu_bypass");
    return p->mtu && bypass && bypass[0] ? bypass : NULL;
}

void
lr_mtu_admission(struct lflow_table *t, const struct lr_port *p,
                 const char *match, const char *action)
{
    const struct ls_datapath *dp = p->router->dp;
    const struct uuid *hint = &p->nb->header_.uuid;
    if (!p->mtu) {
        lflow_add_hint(t, dp, S_LR_IN_ADMISSION, 50, match, action, hint);
        return;
    }
    char *checked = xasprintf("reg9[1] = check_pkt_larger(%d); %s",
                              p->mtu + MTU_ETH_OVERHEAD, action);
    lflow_add_hint(t, dp, S_LR_IN_ADMISSION, 50, match, checked, hint);
    free(checked);
    const char *bypass = mtu_bypass(p);
    if (bypass) {
        char *m = xasprintf("%s && (%s)", match, bypass);
        lflow_add_hint(t, dp, S_LR_IN_ADMISSION, 55, m, action, hint);
        free(m);
    }
}

/* The ICMP error back to the sender, from 'from' (the port it came in
 * by), for a packet too big for 'mtu'. */
static void
put_icmp_error(struct ds *a, const struct lr_port *from, bool v6, int mtu)
{
    ds_clear(a);
    if (!v6) {
        ds_put_format(a, "icmp4_error {reg9[0] = 1; reg9[1] = 0; "
                      "eth.dst = %s; ip4.dst = ip4.src; ip4.src = %s; "
                      "ip.ttl = 255; icmp4.type = 3; /* Destination "
                      "Unreachable. */ icmp4.code = 4; /* Frag Needed and "
                      "DF was Set. */ icmp4.frag_mtu = %d; "
                      "next(pipeline=ingress, table=0); };",
                      from->mac_s, from->ip4[0].addr_s, mtu);
    } else {
        ds_put_format(a, "icmp6_error {reg9[0] = 1; reg9[1] = 0; "
                      "eth.dst = %s; ip6.dst = ip6.src; ip6.src = %s; "
                      "ip.ttl = 255; icmp6.type = 2; /* Packet Too Big. */ "
                      "icmp6.code = 0; icmp6.frag_mtu = %d; "
                      "next(pipeline=ingress, table=0); };",
                      from->mac_s, from->ip6[0].addr_s, mtu);
    }
}

void
lr_mtu_build_lflows(struct lflow_table *t, const struct lr_router *r)
{
    const struct ls_datapath *dp = r->dp;
    struct ds m = DS_EMPTY_INITIALIZER;
    struct ds a = DS_EMPTY_INITIALIZER;
    for (size_t i = 0; i < r->n_ports; i++) {
        const struct lr_port *p = r->ports[i];
        if (!p->mtu) {
            continue;
        }
        const struct uuid *hint = &p->nb->header_.uuid;

        /* Too big on the way in. */
        for (int v6 = 0; v6 < 2; v6++) {
            if (!v6 && !p->n_ip4) {
                continue;
            }
            ds_clear(&m);
            ds_put_format(&m, "inport == %s && %s && reg9[1] && "
                          "reg9[0] == 0", p->qname, v6 ? "ip6" : "ip4");
            put_icmp_error(&a, p, v6, p->mtu);
            lflow_add_hint(t, dp, S_LR_IN_IP_INPUT, 150, ds_cstr(&m),
                           ds_cstr(&a), hint);
        }

        /* Too big on the way out, from each other port. */
        ds_clear(&m);
        ds_put_format(&m, "outport == %s", p->qname);
        ds_clear(&a);
        ds_put_format(&a, "reg9[1] = check_pkt_larger(%d); next;",
                      p->mtu + MTU_ETH_OVERHEAD);
        lflow_add_hint(t, dp, S_LR_IN_CHK_PKT_LEN, 50, ds_cstr(&m),
                       ds_cstr(&a), hint);
        const char *bypass = mtu_bypass(p);
        if (bypass) {
            ds_put_format(&m, " && (%s)", bypass);
            lflow_add_hint(t, dp, S_LR_IN_CHK_PKT_LEN, 55, ds_cstr(&m),
                           "next;", hint);
        }
        for (size_t j = 0; j < r->n_ports; j++) {
            const struct lr_port *q = r->ports[j];
            if (q == p) {
                continue;
            }
            for (int v6 = 0; v6 < 2; v6++) {
                if (!v6 && !q->n_ip4) {
                    continue;
                }
                ds_clear(&m);
                ds_put_format(&m, "inport == %s && outport == %s && %s && "
                              "reg9[1] && reg9[0] == 0", q->qname,
                              p->qname, v6 ? "ip6" : "ip4");
                put_icmp_error(&a, q, v6, p->mtu);
                lflow_add_hint(t, dp, S_LR_IN_LARGER_PKTS, 150,
                               ds_cstr(&m), ds_cstr(&a), hint);
            }
        }
    }
    ds_destroy(&m);
    ds_destroy(&a);
}
