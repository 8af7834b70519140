/* Load balancer health checks on logical switches; see lb-health.h. */
#include <config.h>
#include "northd/lb-health.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "hash.h"
#include "lib/nb-rdb.h"
#include "lib/rdb.h"
#include "lib/sb-rdb.h"
#include "northd/datapaths.h"
#include "northd/lb.h"
#include "northd/lflow.h"
#include "northd/pipeline.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "smap.h"
#include "util.h"
#include "uuid.h"

VLOG_DEFINE_THIS_MODULE(lb_health);

COVERAGE_DEFINE(lb_health_monitor_inserted);
COVERAGE_DEFINE(lb_health_monitor_deleted);
COVERAGE_DEFINE(lb_health_status_followed);

/* One SB Service_Monitor row northd wants. */
struct lbh_monitor {
    struct hmap_node node;          /* In lb_health 'monitors', by key. */
    struct hmap_node sb_node;       /* In 'by_sb', if 'sb_uuid' is set. */
    char *ip;                       /* Key: backend address, */
    uint16_t port;                  /* its port, */
    const char *proto;              /* "tcp" or "udp", */
    char *logical_port;             /* and the port behind which it is. */
    char *src_ip;                   /* Of the last load balancer using it. */
    struct smap options;            /* Its health check's. */
    const struct ls_port *lport;    /* The port 'logical_port' names. */
    struct uuid sb_uuid;            /* Its row; zero until inserted. */
    bool usable;                    /* Status unset or "online", and not
                                     * "online" with the port down. */
};

/* A backend of a checked VIP. */
struct lbh_backend {
    struct hmap_node node;          /* In lbh_vip 'backends'. */
    char *ip;
    uint16_t port;
    struct lbh_monitor *mon;        /* NULL: never used. */
};

/* A VIP with a health check. */
struct lbh_vip {
    struct hmap_node node;          /* In lb_health 'vips'. */
    struct uuid lb;                 /* NB Load_Balancer. */
    char *ip;                       /* Normalized, as struct lb_vip's. */
    uint16_t port;
    struct hmap backends;           /* struct lbh_backend. */
};

/* An ARP or ND responder for the probes' source address on a switch. */
struct lbh_responder {
    struct hmap_node node;          /* In lb_health 'responders', by 'dp'. */
    const struct ls_datapath *dp;
    char *ip;
    bool ipv6;
    struct uuid hint;               /* A load balancer that asks for it. */
};

void
lb_health_init(struct lb_health *h)
{
    hmap_init(&h->vips);
    hmap_init(&h->monitors);
    hmap_init(&h->by_sb);
    hmap_init(&h->responders);
    sset_init(&h->ports);
    h->mac = eth_addr_zero;
}

void
lb_health_destroy(struct lb_health *h)
{
    struct lbh_vip *v;
    HMAP_FOR_EACH_POP (v, node, &h->vips) {
        struct lbh_backend *b;
        HMAP_FOR_EACH_POP (b, node, &v->backends) {
            free(b->ip);
            free(b);
        }
        hmap_destroy(&v->backends);
        free(v->ip);
        free(v);
    }
    hmap_destroy(&h->vips);
    struct lbh_monitor *mon;
    HMAP_FOR_EACH_POP (mon, node, &h->monitors) {
        free(mon->ip);
        free(mon->logical_port);
        free(mon->src_ip);
        smap_destroy(&mon->options);
        free(mon);
    }
    hmap_destroy(&h->monitors);
    hmap_destroy(&h->by_sb);
    struct lbh_responder *r;
    HMAP_FOR_EACH_POP (r, node, &h->responders) {
        free(r->ip);
        free(r);
    }
    hmap_destroy(&h->responders);
    sset_destroy(&h->ports);
}

static uint32_t
vip_hash(const struct uuid *lb, const char *ip, uint16_t port)
{
    return hash_int(port, hash_string(ip, uuid_hash(lb)));
}

static struct lbh_vip *
find_vip(const struct lb_health *h, const struct uuid *lb, const char *ip,
         uint16_t port)
{
    struct lbh_vip *v;
    HMAP_FOR_EACH_WITH_HASH (v, node, vip_hash(lb, ip, port), &h->vips) {
        if (v->port == port && uuid_equals(&v->lb, lb)
            && !strcmp(v->ip, ip)) {
            return v;
        }
    }
    return NULL;
}

static uint32_t
monitor_hash(const char *ip, uint16_t port, const char *proto,
             const char *logical_port)
{
    return hash_string(logical_port,
                       hash_string(proto, hash_string(ip, port)));
}

static struct lbh_monitor *
find_monitor(const struct lb_health *h, const char *ip, uint16_t port,
             const char *proto, const char *logical_port)
{
    struct lbh_monitor *mon;
    HMAP_FOR_EACH_WITH_HASH (mon, node,
                             monitor_hash(ip, port, proto, logical_port),
                             &h->monitors) {
        if (mon->port == port && !strcmp(mon->ip, ip)
            && !strcmp(mon->proto, proto)
            && !strcmp(mon->logical_port, logical_port)) {
            return mon;
        }
    }
    return NULL;
}

static struct lbh_monitor *
find_monitor_by_sb(const struct lb_health *h, const struct uuid *uuid)
{
    struct lbh_monitor *mon;
    HMAP_FOR_EACH_WITH_HASH (mon, sb_node, uuid_hash(uuid), &h->by_sb) {
        if (uuid_equals(&mon->sb_uuid, uuid)) {
            return mon;
        }
    }
    return NULL;
}

/* Whether the port a monitor probes through is up (its Port_Binding
 * says so). */
static bool
port_up(const struct ls_port *p)
{
    return p->sb && p->sb->n_up && p->sb->up[0];
}

/* Whether SB row 'sb' of 'mon' says "online" while the port is down:
 * stock then writes "offline" itself (the only status northd writes), so
 * that a backend whose port went down stops getting connections before
 * ovn-controller notices. */
static bool
online_but_down(const struct lbh_monitor *mon,
                const struct sb_service_monitor *sb)
{
    return sb->status && !strcmp(sb->status, "online")
           && !port_up(mon->lport);
}

/* Whether the backend of 'mon', with SB row 'sb', gets new connections:
 * status unset or "online" (and its port up if "online"). */
static bool
monitor_usable(const struct lbh_monitor *mon,
               const struct sb_service_monitor *sb)
{
    return (!sb->status || !sb->status[0]
            || (!strcmp(sb->status, "online") && port_up(mon->lport)));
}

/* Parses an IPv4 or IPv6 address (the latter possibly in brackets) into
 * its normalized text; false if it is neither. */
static bool
parse_src_ip(const char *s, char buf[INET6_ADDRSTRLEN], bool *ipv6)
{
    char *copy = xstrdup(s);
    char *addr = copy;
    size_t len = strlen(addr);
    if (len > 2 && addr[0] == '[' && addr[len - 1] == ']') {
        addr[len - 1] = '\0';
        addr++;
    }
    struct in6_addr a6;
    ovs_be32 a4;
    bool ok = true;
    if (addr == copy && inet_pton(AF_INET, addr, &a4) == 1) {
        *ipv6 = false;
        inet_ntop(AF_INET, &a4, buf, INET6_ADDRSTRLEN);
    } else if (inet_pton(AF_INET6, addr, &a6) == 1) {
        *ipv6 = true;
        inet_ntop(AF_INET6, &a6, buf, INET6_ADDRSTRLEN);
    } else {
        ok = false;
    }
    free(copy);
    return ok;
}

static void OVS_PRINTF_FORMAT(3, 4)
report(struct ls_model *m, const struct nb_load_balancer *nb,
       const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *what = xvasprintf(format, args);
    va_end(args);
    char *msg = xasprintf("Load_Balancer %s ("UUID_FMT"): %s", nb->name,
                          UUID_ARGS(&nb->header_.uuid), what);
    ls_model_report_bad_row(m, msg);
    free(msg);
    free(what);
}

static void
add_responder(struct lb_health *h, const struct ls_datapath *dp,
              const char *ip, bool ipv6, const struct uuid *lb)
{
    struct lbh_responder *r;
    HMAP_FOR_EACH_WITH_HASH (r, node, hash_pointer(dp, 0), &h->responders) {
        if (r->dp == dp && !strcmp(r->ip, ip)) {
            if (uuid_compare_3way(lb, &r->hint) < 0) {
                r->hint = *lb;
            }
            return;
        }
    }
    r = xmalloc(sizeof *r);
    r->dp = dp;
    r->ip = xstrdup(ip);
    r->ipv6 = ipv6;
    r->hint = *lb;
    hmap_insert(&h->responders, &r->node, hash_pointer(dp, 0));
}

/* The monitor of backend 'b' of 'vip' (checked by 'hc') of load balancer
 * 'nb', if its ip_port_mappings entry is good; records the responder for
 * its source address and the port it names. */
static struct lbh_monitor *
backend_monitor(struct lb_health *h, struct ls_model *m,
                const struct nb_load_balancer *nb, const char *proto,
                const char *vip_key, const struct lb_vip *vip,
                const struct lb_backend *b,
                const struct nb_load_balancer_health_check *hc)
{
    char *key = xasprintf(vip->ipv6 ? "[%s]" : "%s", b->ip);
    const char *mapping = smap_get(&nb->ip_port_mappings, key);
    struct lbh_monitor *mon = NULL;
    if (!mapping) {
        report(m, nb, "backend %s of health-checked VIP \"%s\" has no "
               "ip_port_mappings entry: it gets no new connections, as in "
               "stock", key, vip_key);
        goto out;
    }
    const char *colon = strchr(mapping, ':');
    if (!colon || colon == mapping) {
        report(m, nb, "ip_port_mappings \"%s\"=\"%s\" is not "
               "\"LOGICAL_PORT:SOURCE_IP\": backend %s gets no new "
               "connections", key, mapping, key);
        goto out;
    }
    char *port_name = xmemdup0(mapping, colon - mapping);
    char src[INET6_ADDRSTRLEN];
    bool src6;
    if (!parse_src_ip(colon + 1, src, &src6)) {
        report(m, nb, "ip_port_mappings \"%s\"=\"%s\": \"%s\" is not an IP "
               "address: backend %s gets no new connections", key, mapping,
               colon + 1, key);
    } else if (src6 != vip->ipv6) {
        report(m, nb, "ip_port_mappings \"%s\"=\"%s\": the source address "
               "is not of the backend's address family: backend %s gets no "
               "new connections", key, mapping, key);
    } else {
        sset_add(&h->ports, port_name);
        const struct ls_port *p = ls_model_find_port(m, port_name);
        if (!p) {
            report(m, nb, "ip_port_mappings \"%s\"=\"%s\" names no logical "
                   "switch port: backend %s gets no new connections", key,
                   mapping, key);
        } else {
            add_responder(h, p->dp, src, src6, &nb->header_.uuid);
            if (p->enabled) {
                /* Stock monitors the backends of enabled ports only. */
                mon = find_monitor(h, b->ip, b->port, proto, port_name);
                if (!mon) {
                    mon = xzalloc(sizeof *mon);
                    mon->ip = xstrdup(b->ip);
                    mon->port = b->port;
                    mon->proto = proto;
                    mon->logical_port = xstrdup(port_name);
                    mon->lport = p;
                    smap_init(&mon->options);
                    mon->usable = true;
                    hmap_insert(&h->monitors, &mon->node,
                                monitor_hash(b->ip, b->port, proto,
                                             port_name));
                }
                /* Of several load balancers, the last one (by UUID) sets
                 * the source address and options. */
                free(mon->src_ip);
                mon->src_ip = xstrdup(src);
                smap_destroy(&mon->options);
                smap_clone(&mon->options, &hc->options);
            }
        }
    }
    free(port_name);
out:
    free(key);
    return mon;
}

static int
compare_lbs(const void *a_, const void *b_)
{
    const struct nb_load_balancer *const *a = a_;
    const struct nb_load_balancer *const *b = b_;
    return uuid_compare_3way(&(*a)->header_.uuid, &(*b)->header_.uuid);
}

static void
build_lb(struct lb_health *h, struct ls_model *m,
         const struct nb_load_balancer *nb)
{
    const char *proto = nb->protocol && nb->protocol[0] ? nb->protocol
                                                         : "tcp";
    if (!strcmp(proto, "sctp")) {
        report(m, nb, "health checks of SCTP load balancers are not "
               "supported (nor by stock 23.03): not compiled");
        return;
    }
    bool *used = xcalloc(nb->n_health_check, sizeof *used);
    struct smap_node *node;
    SMAP_FOR_EACH (node, &nb->vips) {
        const struct nb_load_balancer_health_check *hc = NULL;
        for (size_t i = 0; i < nb->n_health_check; i++) {
            if (nb->health_check[i]->vip
                && !strcmp(nb->health_check[i]->vip, node->key)) {
                hc = nb->health_check[i];
                used[i] = true;
                break;
            }
        }
        if (!hc) {
            continue;
        }
        struct lb_vip vip;
        char *error = lb_vip_parse(node->key, node->value, &vip);
        if (error) {
            /* Reported by lb.c. */
            free(error);
            continue;
        }
        if (!vip.port) {
            report(m, nb, "health check of VIP \"%s\", which has no port: "
                   "not compiled (stock probes port 0)", node->key);
            lb_vip_destroy(&vip);
            continue;
        }
        if (find_vip(h, &nb->header_.uuid, vip.ip, vip.port)) {
            lb_vip_destroy(&vip);
            continue;
        }
        struct lbh_vip *v = xmalloc(sizeof *v);
        v->lb = nb->header_.uuid;
        v->ip = xstrdup(vip.ip);
        v->port = vip.port;
        hmap_init(&v->backends);
        hmap_insert(&h->vips, &v->node,
                    vip_hash(&v->lb, v->ip, v->port));
        for (size_t i = 0; i < vip.n_backends; i++) {
            const struct lb_backend *b = &vip.backends[i];
            struct lbh_backend *be = xmalloc(sizeof *be);
            be->ip = xstrdup(b->ip);
            be->port = b->port;
            be->mon = backend_monitor(h, m, nb, proto, node->key, &vip, b,
                                      hc);
            hmap_insert(&v->backends, &be->node,
                        hash_int(be->port, hash_string(be->ip, 0)));
        }
        lb_vip_destroy(&vip);
    }
    for (size_t i = 0; i < nb->n_health_check; i++) {
        if (!used[i]) {
            report(m, nb, "Load_Balancer_Health_Check "UUID_FMT" is for "
                   "\"%s\", which is not one of its VIPs: ignored",
                   UUID_ARGS(&nb->health_check[i]->header_.uuid),
                   nb->health_check[i]->vip ? nb->health_check[i]->vip : "");
        }
    }
    free(used);
}

void
lb_health_build(struct lb_health *h, struct ls_model *m, struct rdb *nb_db,
                struct rdb *sb_db, const struct eth_addr *mac)
{
    h->mac = *mac;

    /* Every load balancer with health checks, attached to a switch or
     * not, as stock does; in UUID order, so that the same NB gives the
     * same monitors. */
    size_t n = 0, allocated = 0;
    const struct nb_load_balancer **lbs = NULL;
    const struct nb_load_balancer *nb;
    NB_LOAD_BALANCER_FOR_EACH (nb, nb_db) {
        if (nb->n_health_check) {
            if (n >= allocated) {
                lbs = x2nrealloc(lbs, &allocated, sizeof *lbs);
            }
            lbs[n++] = nb;
        }
    }
    if (n) {
        qsort(lbs, n, sizeof *lbs, compare_lbs);
    }
    for (size_t i = 0; i < n; i++) {
        build_lb(h, m, lbs[i]);
    }
    free(lbs);

    /* The rows the SB has, with the status ovn-controller wrote.  Of
     * several rows for one monitor, the first in UUID order is kept. */
    const struct sb_service_monitor *sb;
    SB_SERVICE_MONITOR_FOR_EACH (sb, sb_db) {
        struct lbh_monitor *mon
            = (sb->ip && sb->logical_port && sb->protocol
               && sb->port >= 0 && sb->port <= 65535
               ? find_monitor(h, sb->ip, sb->port, sb->protocol,
                              sb->logical_port)
               : NULL);
        if (!mon || (!uuid_is_zero(&mon->sb_uuid)
                     && uuid_compare_3way(&mon->sb_uuid,
                                          &sb->header_.uuid) < 0)) {
            continue;
        }
        if (!uuid_is_zero(&mon->sb_uuid)) {
            hmap_remove(&h->by_sb, &mon->sb_node);
        }
        mon->sb_uuid = sb->header_.uuid;
        hmap_insert(&h->by_sb, &mon->sb_node, uuid_hash(&mon->sb_uuid));
        mon->usable = monitor_usable(mon, sb);
    }
}

bool
lb_health_vip_checked(const struct lb_health *h,
                      const struct nb_load_balancer *nb,
                      const struct lb_vip *vip)
{
    return (h && !hmap_is_empty(&h->vips)
            && find_vip(h, &nb->header_.uuid, vip->ip, vip->port));
}

bool
lb_health_backend_usable(const struct lb_health *h,
                         const struct nb_load_balancer *nb,
                         const struct lb_vip *vip, const char *ip,
                         uint16_t port)
{
    if (!h || hmap_is_empty(&h->vips)) {
        return true;
    }
    const struct lbh_vip *v = find_vip(h, &nb->header_.uuid, vip->ip,
                                       vip->port);
    if (!v) {
        return true;
    }
    const struct lbh_backend *be;
    HMAP_FOR_EACH_WITH_HASH (be, node, hash_int(port, hash_string(ip, 0)),
                             &v->backends) {
        if (be->port == port && !strcmp(be->ip, ip)) {
            return be->mon && be->mon->usable;
        }
    }
    return false;
}

bool
lb_health_port_involved(const struct lb_health *h, const char *name)
{
    return sset_contains(&h->ports, name);
}

void
lb_health_build_dp_lflows(struct lflow_table *t, const struct lb_health *h,
                          const struct ls_datapath *dp, bool acl_stages)
{
    /* ovn-controller's probes (from svc_monitor_mac, into the egress
     * pipeline of the backend's port) and the backends' replies (to it)
     * bypass conntrack and ACLs; replies go to ovn-controller. */
    lflow_add(t, dp, S_IN_PRE_ACL, 110, "eth.dst == $svc_monitor_mac",
              "next;");
    lflow_add(t, dp, S_OUT_PRE_ACL, 110, "eth.src == $svc_monitor_mac",
              "next;");
    lflow_add(t, dp, S_IN_PRE_LB, 110, "eth.dst == $svc_monitor_mac",
              "next;");
    lflow_add(t, dp, S_OUT_PRE_LB, 110, "eth.src == $svc_monitor_mac",
              "next;");
    if (acl_stages) {
        lflow_add(t, dp, S_IN_ACL, PRI_ACL_INFRA,
                  "eth.dst == $svc_monitor_mac", "next;");
        lflow_add(t, dp, S_OUT_ACL, PRI_ACL_INFRA,
                  "eth.src == $svc_monitor_mac", "next;");
    }
    lflow_add(t, dp, S_IN_L2_LKUP, 110,
              "eth.dst == $svc_monitor_mac && (tcp || icmp || icmp6)",
              "handle_svc_check(inport);");

    if (hmap_is_empty(&h->responders)) {
        return;
    }
    struct ds match = DS_EMPTY_INITIALIZER;
    struct ds actions = DS_EMPTY_INITIALIZER;
    const struct lbh_responder *r;
    HMAP_FOR_EACH_WITH_HASH (r, node, hash_pointer(dp, 0), &h->responders) {
        if (r->dp != dp) {
            continue;
        }
        ds_clear(&match);
        ds_clear(&actions);
        if (!r->ipv6) {
            ds_put_format(&match, "arp.tpa == %s && arp.op == 1", r->ip);
            ds_put_format(&actions, "eth.dst = eth.src; eth.src = "
                          ETH_ADDR_FMT"; arp.op = 2; /* ARP reply */ "
                          "arp.tha = arp.sha; arp.sha = "ETH_ADDR_FMT"; "
                          "arp.tpa = arp.spa; arp.spa = %s; "
                          "outport = inport; flags.loopback = 1; output;",
                          ETH_ADDR_ARGS(h->mac), ETH_ADDR_ARGS(h->mac),
                          r->ip);
        } else {
            ds_put_format(&match, "nd_ns && nd.target == %s", r->ip);
            ds_put_format(&actions, "nd_na { eth.dst = eth.src; eth.src = "
                          ETH_ADDR_FMT"; ip6.src = %s; nd.target = %s; "
                          "nd.tll = "ETH_ADDR_FMT"; outport = inport; "
                          "flags.loopback = 1; output; };",
                          ETH_ADDR_ARGS(h->mac), r->ip, r->ip,
                          ETH_ADDR_ARGS(h->mac));
        }
        lflow_add_hint(t, dp, S_IN_ARP_ND_RSP, 110, ds_cstr(&match),
                       ds_cstr(&actions), &r->hint);
    }
    ds_destroy(&match);
    ds_destroy(&actions);
}

static void
set_monitor_columns(struct rdb_txn *txn, const struct lb_health *h,
                    const struct lbh_monitor *mon,
                    const struct sb_service_monitor *sb, const char *mac)
{
    /* A src_mac spelled otherwise is left alone, as stock does. */
    struct eth_addr ea;
    if (!sb || !sb->src_mac || !eth_addr_from_string(sb->src_mac, &ea)
        || !eth_addr_equals(ea, h->mac)) {
        rdb_txn_set_string(txn, SB_SERVICE_MONITOR_COL_SRC_MAC, mac);
    }
    if (!sb || !sb->src_ip || strcmp(sb->src_ip, mon->src_ip)) {
        rdb_txn_set_string(txn, SB_SERVICE_MONITOR_COL_SRC_IP, mon->src_ip);
    }
    if (!sb || !smap_equal(&sb->options, &mon->options)) {
        rdb_txn_set_smap(txn, SB_SERVICE_MONITOR_COL_OPTIONS, &mon->options);
    }
}

void
lb_health_sync_sb(struct lb_health *h, struct rdb *sb_db,
                  struct rdb_txn *txn)
{
    char mac[ETH_ADDR_STRLEN + 1];
    snprintf(mac, sizeof mac, ETH_ADDR_FMT, ETH_ADDR_ARGS(h->mac));

    const struct sb_service_monitor *sb;
    SB_SERVICE_MONITOR_FOR_EACH (sb, sb_db) {
        struct lbh_monitor *mon = find_monitor_by_sb(h, &sb->header_.uuid);
        if (!mon) {
            COVERAGE_INC(lb_health_monitor_deleted);
            rdb_txn_delete(txn, &sb_table_service_monitor,
                           &sb->header_.uuid);
            continue;
        }
        rdb_txn_update(txn, &sb_table_service_monitor, &sb->header_.uuid);
        set_monitor_columns(txn, h, mon, sb, mac);
        if (online_but_down(mon, sb)) {
            rdb_txn_set_string(txn, SB_SERVICE_MONITOR_COL_STATUS,
                               "offline");
        }
    }

    struct lbh_monitor *mon;
    HMAP_FOR_EACH (mon, node, &h->monitors) {
        if (!uuid_is_zero(&mon->sb_uuid)) {
            continue;
        }
        COVERAGE_INC(lb_health_monitor_inserted);
        rdb_uuid_generate(&mon->sb_uuid);
        hmap_insert(&h->by_sb, &mon->sb_node, uuid_hash(&mon->sb_uuid));
        rdb_txn_insert(txn, &sb_table_service_monitor, &mon->sb_uuid);
        rdb_txn_set_string(txn, SB_SERVICE_MONITOR_COL_IP, mon->ip);
        rdb_txn_set_integer(txn, SB_SERVICE_MONITOR_COL_PORT, mon->port);
        rdb_txn_set_string(txn, SB_SERVICE_MONITOR_COL_PROTOCOL, mon->proto);
        rdb_txn_set_string(txn, SB_SERVICE_MONITOR_COL_LOGICAL_PORT,
                           mon->logical_port);
        set_monitor_columns(txn, h, mon, NULL, mac);
    }
}

bool
lb_health_handle_sb(struct lb_health *h, struct rdb *sb_db,
                    struct rdb_txn *txn)
{
    /* A status ovn-controller wrote, or a monitored port that went up or
     * down. */
    bool check = sb_service_monitor_track_first(sb_db) != NULL;
    const struct sb_port_binding *pb;
    SB_PORT_BINDING_FOR_EACH_TRACKED (pb, sb_db) {
        if (check) {
            break;
        }
        check = (pb->logical_port
                 && sset_contains(&h->ports, pb->logical_port));
    }
    if (!check) {
        return false;
    }

    bool changed = false;
    struct lbh_monitor *mon;
    HMAP_FOR_EACH (mon, sb_node, &h->by_sb) {
        const struct sb_service_monitor *sb
            = sb_service_monitor_get_for_uuid(sb_db, &mon->sb_uuid);
        if (!sb) {
            continue;           /* Inserted, not back yet: no status. */
        }
        if (online_but_down(mon, sb)) {
            rdb_txn_update(txn, &sb_table_service_monitor, &sb->header_.uuid);
            rdb_txn_set_string(txn, SB_SERVICE_MONITOR_COL_STATUS,
                               "offline");
        }
        bool usable = monitor_usable(mon, sb);
        if (usable != mon->usable) {
            COVERAGE_INC(lb_health_status_followed);
            VLOG_DBG("Service_Monitor %s:%"PRIu16" on %s: %s%s",
                     mon->ip, mon->port, mon->logical_port,
                     sb->status ? sb->status : "(no status)",
                     port_up(mon->lport) ? "" : ", port down");
            mon->usable = usable;
            changed = true;
        }
    }
    return changed;
}
