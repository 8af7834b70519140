/* Control plane protection; see copp.h and docs/copp.md. */
#include <config.h>
#include "northd/copp.h"

#include <ctype.h>
#include <string.h>

#include "bitmap.h"
#include "coverage.h"
#include "lib/nb-rdb.h"
#include "lib/rdb.h"
#include "northd/datapaths.h"
#include "northd/router.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "smap.h"
#include "sset.h"
#include "util.h"
#include "uuid.h"

VLOG_DEFINE_THIS_MODULE(copp);

COVERAGE_DEFINE(copp_dp);

static const char *const proto_names[COPP_N_PROTOS] = {
    [COPP_ARP] = "arp",
    [COPP_ARP_RESOLVE] = "arp-resolve",
    [COPP_DHCPV4_OPTS] = "dhcpv4-opts",
    [COPP_DHCPV6_OPTS] = "dhcpv6-opts",
    [COPP_DNS] = "dns",
    [COPP_EVENT_ELB] = "event-elb",
    [COPP_ICMP4_ERR] = "icmp4-error",
    [COPP_ICMP6_ERR] = "icmp6-error",
    [COPP_IGMP] = "igmp",
    [COPP_ND_NA] = "nd-na",
    [COPP_ND_NS] = "nd-ns",
    [COPP_ND_NS_RESOLVE] = "nd-ns-resolve",
    [COPP_ND_RA_OPTS] = "nd-ra-opts",
    [COPP_TCP_RESET] = "tcp-reset",
    [COPP_BFD] = "bfd",
    [COPP_REJECT] = "reject",
    [COPP_SVC_MONITOR] = "svc-monitor",
};

const char *
copp_proto_name(enum copp_proto p)
{
    return p < COPP_N_PROTOS ? proto_names[p] : "none";
}

/* The one table: each controller action that stock ovn-northd 23.03
 * meters, by the keyword that starts it in a flow's actions and the
 * character that follows the keyword ('{' for a nested action, '(' for a
 * function, ';' for "igmp;"), and the Copp protocol whose meter it gets.
 * It holds wherever the action appears: observed on stock's SB for every
 * stage that uses these actions (docs/copp.md), no stage needs a rule of
 * its own.  The one action that tells two protocols apart by more than its
 * keyword is put_nd(): see copp_classify(). */
struct copp_action {
    const char *keyword;
    char follow;
    enum copp_proto proto;
};

static const struct copp_action copp_actions[] = {
    { "put_arp", '(', COPP_ARP },
    { "arp", '{', COPP_ARP_RESOLVE },
    { "put_dhcp_opts", '(', COPP_DHCPV4_OPTS },
    { "put_dhcpv6_opts", '(', COPP_DHCPV6_OPTS },
    { "dns_lookup", '(', COPP_DNS },
    { "trigger_event", '(', COPP_EVENT_ELB },
    { "icmp4", '{', COPP_ICMP4_ERR },
    { "icmp4_error", '{', COPP_ICMP4_ERR },
    { "icmp6", '{', COPP_ICMP6_ERR },
    { "icmp6_error", '{', COPP_ICMP6_ERR },
    { "igmp", ';', COPP_IGMP },
    { "nd_na", '{', COPP_ND_NA },
    { "nd_na_router", '{', COPP_ND_NA },
    { "put_nd", '(', COPP_ND_NA },     /* COPP_ND_NS: see below. */
    { "nd_ns", '{', COPP_ND_NS_RESOLVE },
    { "put_nd_ra_opts", '(', COPP_ND_RA_OPTS },
    { "tcp_reset", '{', COPP_TCP_RESET },
    { "sctp_abort", '{', COPP_TCP_RESET },
    { "handle_bfd_msg", '(', COPP_BFD },
    { "reject", '{', COPP_REJECT },
    { "handle_svc_check", '(', COPP_SVC_MONITOR },
};

static bool
is_id_start(unsigned char c)
{
    return isalpha(c) || c == '_';
}

static bool
is_id_char(unsigned char c)
{
    return isalnum(c) || c == '_' || c == '.';
}

static const char *
skip_space(const char *p)
{
    while (isspace((unsigned char) *p)) {
        p++;
    }
    return p;
}

/* The protocol of the keyword 'id' ('len' bytes) followed by 'next', or
 * COPP_N_PROTOS. */
static enum copp_proto
lookup_action(const char *id, size_t len, const char *next)
{
    for (size_t i = 0; i < ARRAY_SIZE(copp_actions); i++) {
        const struct copp_action *a = &copp_actions[i];
        if (a->follow == *next && !strncmp(a->keyword, id, len)
            && !a->keyword[len]) {
            if (a->proto == COPP_ND_NA) {
                /* put_nd(inport, ip6.src, nd.sll) learns from a
                 * solicitation, put_nd(inport, nd.target, ...) from an
                 * advertisement: stock meters them as "nd-ns" and
                 * "nd-na". */
                const char *arg = strchr(next, ',');
                if (*next == '(' && arg
                    && !strncmp(skip_space(arg + 1), "ip6.src", 7)) {
                    return COPP_ND_NS;
                }
            }
            return a->proto;
        }
    }
    return COPP_N_PROTOS;
}

enum copp_proto
copp_classify(const char *actions)
{
    /* The first action of the table, by its keyword: a token, not part of
     * a field name ("arp.op", "icmp4.type") nor of a quoted string (a log
     * name). */
    const char *p = actions;
    while (*p) {
        unsigned char c = *p;
        if (c == '"') {
            for (p++; *p && *p != '"'; p++) {
                if (*p == '\\' && p[1]) {
                    p++;
                }
            }
            if (*p) {
                p++;
            }
        } else if (is_id_start(c)) {
            const char *id = p;
            while (is_id_char(*p)) {
                p++;
            }
            enum copp_proto proto = lookup_action(id, p - id,
                                                  skip_space(p));
            if (proto != COPP_N_PROTOS) {
                return proto;
            }
        } else {
            p++;
        }
    }
    return COPP_N_PROTOS;
}

/* The meters of one Copp row, shared by the datapaths that name it. */
struct copp_meters {
    char *meter[COPP_N_PROTOS];     /* NULL: not metered. */
};

struct copp_set {
    size_t dp_cap;
    const struct copp_meters **by_dp;       /* 'dp_cap' of them. */
    unsigned long *proto_dps[COPP_N_PROTOS];   /* Datapaths with a meter
                                                * for each protocol. */
    struct shash rows;              /* Copp row UUID -> copp_meters. */
};

/* The meters of Copp row 'row', reporting its problems into 'm' once per
 * pass. */
static struct copp_meters *
copp_meters_create(struct ls_model *m, const struct nb_copp *row,
                   const struct sset *meter_names)
{
    struct copp_meters *cm = xzalloc(sizeof *cm);
    const struct smap_node *node;
    SMAP_FOR_EACH (node, &row->meters) {
        enum copp_proto p;
        for (p = 0; p < COPP_N_PROTOS; p++) {
            if (!strcmp(node->key, proto_names[p])) {
                break;
            }
        }
        char *msg = NULL;
        if (p == COPP_N_PROTOS) {
            msg = xasprintf("Copp %s ("UUID_FMT"): unknown protocol "
                            "\"%s\": ignored", row->name,
                            UUID_ARGS(&row->header_.uuid), node->key);
        } else if (!sset_contains(meter_names, node->value)) {
            msg = xasprintf("Copp %s ("UUID_FMT"): protocol \"%s\": no NB "
                            "Meter named \"%s\": not metered", row->name,
                            UUID_ARGS(&row->header_.uuid), node->key,
                            node->value);
        } else {
            cm->meter[p] = xstrdup(node->value);
        }
        if (msg) {
            ls_model_report_bad_row(m, msg);
            free(msg);
        }
    }
    return cm;
}

static void
copp_meters_destroy(struct copp_meters *cm)
{
    for (size_t i = 0; i < COPP_N_PROTOS; i++) {
        free(cm->meter[i]);
    }
    free(cm);
}

static const struct nb_copp *
dp_copp(const struct ls_datapath *dp)
{
    return dp->router ? dp->router->nb->copp : dp->nb->copp;
}

struct copp_set *
copp_set_build(struct ls_model *m, struct rdb *nb)
{
    size_t n = ls_model_n_all(m);
    size_t i;
    for (i = 0; i < n; i++) {
        if (dp_copp(ls_model_dp_at(m, i))) {
            break;
        }
    }
    if (i == n) {
        return NULL;
    }

    struct sset meter_names = SSET_INITIALIZER(&meter_names);
    const struct nb_meter *meter;
    NB_METER_FOR_EACH (meter, nb) {
        sset_add(&meter_names, meter->name);
    }

    struct copp_set *cs = xzalloc(sizeof *cs);
    cs->dp_cap = m->dp_cap;
    cs->by_dp = xcalloc(m->dp_cap, sizeof *cs->by_dp);
    for (size_t p = 0; p < COPP_N_PROTOS; p++) {
        cs->proto_dps[p] = bitmap_allocate(m->dp_cap);
    }
    shash_init(&cs->rows);
    for (; i < n; i++) {
        const struct ls_datapath *dp = ls_model_dp_at(m, i);
        const struct nb_copp *row = dp_copp(dp);
        if (!row) {
            continue;
        }
        char key[UUID_LEN + 1];
        snprintf(key, sizeof key, UUID_FMT, UUID_ARGS(&row->header_.uuid));
        struct copp_meters *cm = shash_find_data(&cs->rows, key);
        if (!cm) {
            cm = copp_meters_create(m, row, &meter_names);
            shash_add(&cs->rows, key, cm);
        }
        ovs_assert(dp->index < cs->dp_cap);
        cs->by_dp[dp->index] = cm;
        for (size_t p = 0; p < COPP_N_PROTOS; p++) {
            if (cm->meter[p]) {
                bitmap_set1(cs->proto_dps[p], dp->index);
            }
        }
        COVERAGE_INC(copp_dp);
    }
    sset_destroy(&meter_names);
    return cs;
}

void
copp_set_destroy(struct copp_set *cs)
{
    if (cs) {
        struct shash_node *node;
        SHASH_FOR_EACH (node, &cs->rows) {
            copp_meters_destroy(node->data);
        }
        shash_destroy(&cs->rows);
        for (size_t p = 0; p < COPP_N_PROTOS; p++) {
            bitmap_free(cs->proto_dps[p]);
        }
        free(cs->by_dp);
        free(cs);
    }
}

const char *
copp_set_proto_meter(const struct copp_set *cs, size_t dp,
                     enum copp_proto proto)
{
    const struct copp_meters *cm = dp < cs->dp_cap ? cs->by_dp[dp] : NULL;
    return cm && proto < COPP_N_PROTOS ? cm->meter[proto] : NULL;
}

const char *
copp_set_meter(const struct copp_set *cs, size_t dp, const char *actions)
{
    if (dp >= cs->dp_cap || !cs->by_dp[dp]) {
        return NULL;
    }
    return copp_set_proto_meter(cs, dp, copp_classify(actions));
}

bool
copp_set_any(const struct copp_set *cs, const unsigned long *dps,
             enum copp_proto proto)
{
    if (proto >= COPP_N_PROTOS) {
        return false;
    }
    const unsigned long *have = cs->proto_dps[proto];
    for (size_t i = 0; i < BITMAP_N_LONGS(cs->dp_cap); i++) {
        if (dps[i] & have[i]) {
            return true;
        }
    }
    return false;
}
