/* Logical routers: the model (datapaths, ports, peers), their SB
 * Port_Bindings, and the flows of the router pipeline and of the switch
 * side.  See router.h and docs/routers.md. */
#include <config.h>
#include "northd/router.h"

#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "hash.h"
#include "hmapx.h"
#include "lib/lex.h"
#include "lib/mappack.h"
#include "lib/nb-rdb.h"
#include "lib/sb-rdb.h"
#include "lib/rdb.h"
#include "lib/tnlid.h"
#include "northd/datapaths.h"
#include "northd/lflow.h"
#include "northd/router-gw.h"
#include "northd/router-mtu.h"
#include "northd/router-ra.h"
#include "northd/router-lb.h"
#include "northd/router-nat.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "smap.h"
#include "svec.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(router);

COVERAGE_DEFINE(lr_router_built);
COVERAGE_DEFINE(lr_port_built);
COVERAGE_DEFINE(lr_bad_row);
COVERAGE_DEFINE(lr_pb_created);

#define LR_PORT_KEY_MIN 1
#define LR_PORT_KEY_MAX 32767

static void OVS_PRINTF_FORMAT(2, 3)
lr_report(struct ls_model *m, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *msg = xvasprintf(format, args);
    va_end(args);
    COVERAGE_INC(lr_bad_row);
    ls_model_report_bad_row(m, msg);
    free(msg);
}

/* Model. */

static bool switch_routers_only(const struct lr_model *,
                                const struct ls_datapath *);

static int
compare_routers(const void *a_, const void *b_)
{
    const struct nb_logical_router *const *a = a_;
    const struct nb_logical_router *const *b = b_;
    return uuid_compare_3way(&(*a)->header_.uuid, &(*b)->header_.uuid);
}

const char *
lr_router_name(const struct lr_router *r)
{
    return r->nb->name;
}

const struct smap *
lr_router_options(const struct lr_router *r)
{
    return &r->nb->options;
}

void
lr_router_sb_ids(const struct lr_router *r, struct smap *ids)
{
    smap_add_format(ids, "logical-router", UUID_FMT,
                    UUID_ARGS(&r->nb->header_.uuid));
    if (r->nb->name[0]) {
        smap_add(ids, "name", r->nb->name);
    }
    const char *name2 = smap_get(&r->nb->external_ids,
                                 "neutron:router_name");
    if (name2 && name2[0]) {
        smap_add(ids, "name2", name2);
    }
    /* Read by ovn-controller. */
    if (!smap_get_bool(&r->nb->options, "always_learn_from_arp_request",
                       true)) {
        smap_add(ids, "always_learn_from_arp_request", "false");
    }
    int zone;
    const char *zone_s = smap_get(&r->nb->options, "snat-ct-zone");
    if (zone_s && str_to_int(zone_s, 10, &zone) && zone >= 0) {
        smap_add_format(ids, "snat-ct-zone", "%d", zone);
    }
}

void
lr_model_build_dps(struct ls_model *m, struct rdb *nb_db, struct rdb *sb_db)
{
    struct lr_model *lr = xzalloc(sizeof *lr);
    hmap_init(&lr->ports);
    shash_init(&lr->peers);
    sset_init(&lr->claims);
    hmapx_init(&lr->routers_only);
    m->lr = lr;

    size_t n = 0;
    const struct nb_logical_router *nb;
    NB_LOGICAL_ROUTER_FOR_EACH (nb, nb_db) {
        n++;
    }
    const struct nb_logical_router **rows = xmalloc(MAX(n, 1) * sizeof *rows);
    n = 0;
    NB_LOGICAL_ROUTER_FOR_EACH (nb, nb_db) {
        rows[n++] = nb;
    }
    qsort(rows, n, sizeof *rows, compare_routers);

    /* The SB rows that stand for routers, by router UUID. */
    struct shash by_uuid = SHASH_INITIALIZER(&by_uuid);
    const struct sb_datapath_binding *sb_dp;
    SB_DATAPATH_BINDING_FOR_EACH (sb_dp, sb_db) {
        const char *id = smap_get(&sb_dp->external_ids, "logical-router");
        if (id) {
            const struct sb_datapath_binding *old
                = shash_find_data(&by_uuid, id);
            if (!old || sb_dp->tunnel_key < old->tunnel_key) {
                shash_replace(&by_uuid, id, sb_dp);
            }
        }
    }

    m->dp_cap = m->sw_cap + n;
    m->dp_array = xrealloc(m->dp_array,
                           MAX(m->dp_cap, 1) * sizeof *m->dp_array);
    lr->routers = xcalloc(MAX(n, 1), sizeof *lr->routers);
    lr->n_routers = n;
    for (size_t i = 0; i < n; i++) {
        struct lr_router *r = &lr->routers[i];
        r->nb = rows[i];
        r->chassis = smap_get(&r->nb->options, "chassis");
        r->mcast_relay = smap_get_bool(&r->nb->options, "mcast_relay",
                                       false);
        struct ls_datapath *dp = xzalloc(sizeof *dp);
        dp->router = r;
        dp->index = m->sw_cap + i;
        lflow_owner_init(&dp->owner);
        lflow_owner_init(&dp->dhcp_owner);
        ovs_list_init(&dp->ports);
        char id[UUID_LEN + 1];
        snprintf(id, sizeof id, UUID_FMT, UUID_ARGS(&r->nb->header_.uuid));
        dp->sb = shash_find_data(&by_uuid, id);
        if (dp->sb) {
            dp->sb_uuid = dp->sb->header_.uuid;
        }
        r->dp = dp;
        m->dp_array[dp->index] = dp;
        COVERAGE_INC(lr_router_built);
    }
    shash_destroy(&by_uuid);
    free(rows);
}

/* Parses the IPv4 network 's' into 'n'. */
static char *
parse_net4(const char *s, struct lr_net4 *n)
{
    char *error = ip_parse_cidr(s, &n->addr, &n->plen);
    if (error) {
        return error;
    }
    /* ip_parse_cidr() reads "10.0.0.300" as 10.0.0.44: as the switch
     * ports' parser does (lib/lsp-addresses.h), take only addresses
     * written as they print. */
    char canon[INET_ADDRSTRLEN];
    snprintf(canon, sizeof canon, IP_FMT, IP_ARGS(n->addr));
    size_t len = strcspn(s, "/");
    if (strlen(canon) != len || strncmp(canon, s, len)) {
        return xasprintf("\"%s\" is not a valid IPv4 network", s);
    }
    if (!n->plen) {
        return xasprintf("\"%s\": a router network must have a prefix "
                         "length", s);
    }
    ovs_be32 mask = be32_prefix_mask(n->plen);
    n->network = n->addr & mask;
    n->bcast = n->addr | ~mask;
    snprintf(n->addr_s, sizeof n->addr_s, IP_FMT, IP_ARGS(n->addr));
    snprintf(n->bcast_s, sizeof n->bcast_s, IP_FMT, IP_ARGS(n->bcast));
    snprintf(n->net_s, sizeof n->net_s, IP_FMT"/%u", IP_ARGS(n->network),
             n->plen);
    return NULL;
}

static void
fill_net6(struct lr_net6 *n)
{
    struct in6_addr mask = ipv6_create_mask(n->plen);
    n->network = ipv6_addr_bitand(&n->addr, &mask);
    ipv6_string_mapped(n->addr_s, &n->addr);
    char net[INET6_ADDRSTRLEN];
    ipv6_string_mapped(net, &n->network);
    snprintf(n->net_s, sizeof n->net_s, "%s/%u", net, n->plen);
    struct in6_addr sn;
    in6_addr_solicited_node(&sn, &n->addr);
    ipv6_string_mapped(n->sn_s, &sn);
}

static void
lr_port_destroy(struct lr_port *p)
{
    lr_gw_port_destroy(p);
    lr_ra_destroy(p->ra);
    free(p->arp_proxy);
    free(p->qname);
    free(p->ip4);
    free(p->ip6);
    free(p);
}

/* Parses router port 'nb' of 'r'; NULL (reported) if it cannot be used. */
static struct lr_port *
parse_lr_port(struct ls_model *m, struct lr_router *r,
              const struct nb_logical_router_port *nb)
{
    struct lr_port *p = xzalloc(sizeof *p);
    p->nb = nb;
    p->router = r;
    p->enabled = (!nb->n_enabled || nb->enabled[0])
                 && (!r->nb->n_enabled || r->nb->enabled[0]);
    if (!eth_addr_from_string(nb->mac, &p->mac)) {
        lr_report(m, "Logical_Router_Port %s ("UUID_FMT"): bad mac \"%s\": "
                  "the port is left out", nb->name,
                  UUID_ARGS(&nb->header_.uuid), nb->mac);
        goto bad;
    }
    snprintf(p->mac_s, sizeof p->mac_s, ETH_ADDR_FMT, ETH_ADDR_ARGS(p->mac));
    struct ds q = DS_EMPTY_INITIALIZER;
    lex_put_string(&q, nb->name);
    p->qname = ds_steal_cstr(&q);

    p->ip4 = xcalloc(MAX(nb->n_networks, 1), sizeof *p->ip4);
    p->ip6 = xcalloc(nb->n_networks + 1, sizeof *p->ip6);
    for (size_t i = 0; i < nb->n_networks; i++) {
        const char *s = nb->networks[i];
        char *error;
        if (strchr(s, ':')) {
            struct lr_net6 *n = &p->ip6[p->n_ip6];
            error = ipv6_parse_cidr(s, &n->addr, &n->plen);
            if (!error && !n->plen) {
                error = xasprintf("\"%s\": a router network must have a "
                                  "prefix length", s);
            }
            if (!error) {
                fill_net6(n);
                p->n_ip6++;
            }
        } else {
            error = parse_net4(s, &p->ip4[p->n_ip4]);
            if (!error) {
                p->n_ip4++;
            }
        }
        if (error) {
            lr_report(m, "Logical_Router_Port %s ("UUID_FMT"): ignoring "
                      "network %s", nb->name, UUID_ARGS(&nb->header_.uuid),
                      error);
            free(error);
        }
    }
    if (!p->n_ip4 && !p->n_ip6) {
        lr_report(m, "Logical_Router_Port %s ("UUID_FMT"): no valid "
                  "network: the port is left out", nb->name,
                  UUID_ARGS(&nb->header_.uuid));
        goto bad;
    }
    /* Every router port has its EUI-64 link-local address, as stock's. */
    struct lr_net6 *lla = &p->ip6[p->n_ip6++];
    in6_generate_lla(p->mac, &lla->addr);
    lla->plen = 64;
    fill_net6(lla);
    COVERAGE_INC(lr_port_built);
    return p;

bad:
    lr_port_destroy(p);
    return NULL;
}

static int
compare_lr_ports(const void *a_, const void *b_)
{
    const struct lr_port *const *a = a_;
    const struct lr_port *const *b = b_;
    int c = strcmp((*a)->nb->name, (*b)->nb->name);
    return c ? c : uuid_compare_3way(&(*a)->nb->header_.uuid,
                                     &(*b)->nb->header_.uuid);
}

static struct lr_port *
find_lr_port(const struct lr_model *lr, const char *name)
{
    struct lr_port *p;
    HMAP_FOR_EACH_WITH_HASH (p, name_node, hash_string(name, 0),
                             &lr->ports) {
        if (!strcmp(p->nb->name, name)) {
            return p;
        }
    }
    return NULL;
}

static uint32_t
requested_port_key(struct ls_model *m, const struct lr_port *p)
{
    const char *s = smap_get(&p->nb->options, "requested-tnl-key");
    if (!s) {
        return 0;
    }
    char *end;
    unsigned long long k = strtoull(s, &end, 10);
    if (*end || k < LR_PORT_KEY_MIN || k > LR_PORT_KEY_MAX) {
        lr_report(m, "Logical_Router_Port %s: requested-tnl-key \"%s\" is "
                  "not an integer in %d..%d, ignoring it", p->nb->name, s,
                  LR_PORT_KEY_MIN, LR_PORT_KEY_MAX);
        return 0;
    }
    return k;
}

/* Port tunnel keys of router 'r': requested, then kept, then new ones in
 * name order, as for switch ports. */
static void
assign_lr_port_keys(struct ls_model *m, struct lr_router *r)
{
    struct tnlid_set keys;
    tnlid_set_init(&keys, LR_PORT_KEY_MIN, LR_PORT_KEY_MAX);
    for (size_t i = 0; i < r->n_ports; i++) {
        struct lr_port *p = r->ports[i];
        p->tunnel_key = requested_port_key(m, p);
        if (p->tunnel_key && !tnlid_reserve(&keys, p->tunnel_key)) {
            lr_report(m, "Logical_Router_Port %s: requested tunnel key "
                      "%"PRIu32" is already in use on router %s",
                      p->nb->name, p->tunnel_key, r->nb->name);
            p->tunnel_key = 0;
        }
    }
    for (size_t i = 0; i < r->n_ports; i++) {
        struct lr_port *p = r->ports[i];
        if (!p->tunnel_key && p->sb && r->dp->sb
            && p->sb->datapath == r->dp->sb
            && tnlid_reserve(&keys, p->sb->tunnel_key)) {
            p->tunnel_key = p->sb->tunnel_key;
        }
    }
    for (size_t i = 0; i < r->n_ports; i++) {
        struct lr_port *p = r->ports[i];
        if (!p->tunnel_key) {
            p->tunnel_key = tnlid_allocate(&keys);
        }
    }
    tnlid_set_destroy(&keys);
}

/* Switch port 'sp''s options:arp_proxy, read as stock 23.03 reads it:
 * addresses separated by spaces, up to the first that does not parse;
 * IPv6 addresses and prefix lengths are read and left out (reported).
 * Returns the IPv4 addresses, comma-separated, or NULL. */
static char *
parse_arp_proxy(struct ls_model *m, const struct ls_port *sp)
{
    const char *s = smap_get(&sp->nb->options, "arp_proxy");
    if (!s) {
        return NULL;
    }
    struct ds out = DS_EMPTY_INITIALIZER;
    struct ds ignored = DS_EMPTY_INITIALIZER;
    char *copy = xstrdup(s);
    char *save = NULL;
    for (char *tok = strtok_r(copy, " ", &save); tok;
         tok = strtok_r(NULL, " ", &save)) {
        ovs_be32 ip, mask;
        struct in6_addr ip6, mask6;
        char *error = ip_parse_masked(tok, &ip, &mask);
        if (!error) {
            ds_put_format(&out, "%s"IP_FMT, out.length ? "," : "",
                          IP_ARGS(ip));
            if (mask != OVS_BE32_MAX) {
                ds_put_format(&ignored, "%s\"%s\" (only the address is "
                              "answered for)", ignored.length ? ", " : "",
                              tok);
            }
            continue;
        }
        free(error);
        error = ipv6_parse_masked(tok, &ip6, &mask6);
        if (!error) {
            ds_put_format(&ignored, "%s\"%s\" (IPv6: no proxy)",
                          ignored.length ? ", " : "", tok);
            continue;
        }
        free(error);
        ds_put_format(&ignored, "%s\"%s\" and what follows (not an "
                      "address)", ignored.length ? ", " : "", tok);
        break;
    }
    if (ignored.length) {
        char *msg = xasprintf("Logical_Switch_Port %s: arp_proxy: ignoring "
                              "%s, as stock 23.03", sp->nb->name,
                              ds_cstr(&ignored));
        lr_report(m, "%s", msg);
        free(msg);
    }
    free(copy);
    ds_destroy(&ignored);
    if (!out.length) {
        ds_destroy(&out);
        return NULL;
    }
    return ds_steal_cstr(&out);
}

static int
compare_ls_ports_by_name(const void *a_, const void *b_)
{
    const struct ls_port *const *a = a_;
    const struct ls_port *const *b = b_;
    return strcmp((*a)->nb->name, (*b)->nb->name);
}

void
lr_model_build_ports(struct ls_model *m, const struct shash *sb_ports)
{
    struct lr_model *lr = m->lr;
    for (size_t i = 0; i < lr->n_routers; i++) {
        struct lr_router *r = &lr->routers[i];
        r->ports = xmalloc(MAX(r->nb->n_ports, 1) * sizeof *r->ports);
        for (size_t j = 0; j < r->nb->n_ports; j++) {
            const struct nb_logical_router_port *nb = r->nb->ports[j];
            struct lr_port *other = find_lr_port(lr, nb->name);
            if (other) {
                if (other->nb != nb) {
                    lr_report(m, "Logical_Router_Port %s ("UUID_FMT"): "
                              "another router port has the same name: it "
                              "is left out", nb->name,
                              UUID_ARGS(&nb->header_.uuid));
                }
                continue;
            }
            if (ls_model_find_port(m, nb->name)) {
                lr_report(m, "Logical_Router_Port %s ("UUID_FMT"): a switch "
                          "port has the same name: it is left out",
                          nb->name, UUID_ARGS(&nb->header_.uuid));
                continue;
            }
            struct lr_port *p = parse_lr_port(m, r, nb);
            if (!p) {
                continue;
            }
            p->sb = shash_find_data(sb_ports, nb->name);
            if (p->sb) {
                p->sb_uuid = p->sb->header_.uuid;
            }
            hmap_insert(&lr->ports, &p->name_node, hash_string(nb->name, 0));
            r->ports[r->n_ports++] = p;
        }
        qsort(r->ports, r->n_ports, sizeof *r->ports, compare_lr_ports);
        assign_lr_port_keys(m, r);
        lr_routes_parse(m, r);
        lr_policies_parse(m, r);
        lr_nat_parse(m, r);
        lr_lb_parse(m, r);
    }

    /* Peers: switch ports of type "router" naming a router port.  Ports
     * in name order, so that of two claims the same one always wins. */
    size_t n = 0;
    const struct ls_port **claimants = xmalloc(
        MAX(hmap_count(&m->ports), 1) * sizeof *claimants);
    const struct ls_port *lsp;
    HMAP_FOR_EACH (lsp, name_node, &m->ports) {
        if (!strcmp(lsp->nb->type, "router")
            && smap_get(&lsp->nb->options, "router-port")) {
            claimants[n++] = lsp;
        }
    }
    qsort(claimants, n, sizeof *claimants, compare_ls_ports_by_name);
    for (size_t i = 0; i < n; i++) {
        const struct ls_port *sp = claimants[i];
        const char *rp = smap_get(&sp->nb->options, "router-port");
        struct lr_port *p = find_lr_port(lr, rp);
        if (!p) {
            continue;
        }
        sset_add(&lr->claims, sp->nb->name);
        if (p->peer) {
            lr_report(m, "Logical_Switch_Port %s: router port %s is the "
                      "peer of switch port %s already: not wired",
                      sp->nb->name, rp, p->peer);
            continue;
        }
        p->peer = sp->nb->name;
        shash_add(&lr->peers, sp->nb->name, p);
        p->arp_proxy = parse_arp_proxy(m, sp);
    }
    free(claimants);

    /* Router ports wired to router ports (their NB 'peer'). */
    for (size_t i = 0; i < lr->n_routers; i++) {
        const struct lr_router *r = &lr->routers[i];
        for (size_t j = 0; j < r->n_ports; j++) {
            struct lr_port *p = r->ports[j];
            const char *name = p->nb->peer;
            if (!name || !name[0]) {
                continue;
            }
            const struct lr_port *q = find_lr_port(lr, name);
            if (!q || q == p) {
                lr_report(m, "Logical_Router_Port %s ("UUID_FMT"): peer "
                          "\"%s\" names no other router port: not wired",
                          p->nb->name, UUID_ARGS(&p->nb->header_.uuid),
                          name);
            } else if (p->peer) {
                /* Stock 23.03 asserts and exits on this one. */
                lr_report(m, "Logical_Router_Port %s ("UUID_FMT"): both "
                          "switch port %s and router port %s are its "
                          "peer: wired to the switch port only",
                          p->nb->name, UUID_ARGS(&p->nb->header_.uuid),
                          p->peer, name);
            } else {
                p->peer = q->nb->name;
                p->rpeer = q;
            }
        }
    }

    lr_check_model(m);

    /* Router advertisements, on the ports wired to a switch. */
    for (size_t i = 0; i < lr->n_routers; i++) {
        const struct lr_router *r = &lr->routers[i];
        for (size_t j = 0; j < r->n_ports; j++) {
            r->ports[j]->ra = lr_ra_parse(m, r->ports[j]);
            r->ports[j]->mtu = lr_mtu_parse(m, r->ports[j]);
        }
    }

    for (size_t i = 0; i < m->n_datapaths; i++) {
        struct ls_datapath *dp = m->dp_array[i];
        if (dp && switch_routers_only(lr, dp)) {
            hmapx_add(&lr->routers_only, dp);
        }
    }

    lr_gw_build(m, sb_ports);
}

void
lr_model_destroy(struct lr_model *lr)
{
    if (!lr) {
        return;
    }
    for (size_t i = 0; i < lr->n_routers; i++) {
        struct lr_router *r = &lr->routers[i];
        lflow_owner_destroy(&r->dp->owner);
        lflow_owner_destroy(&r->dp->dhcp_owner);
        free(r->dp);
        free(r->ports);
        lr_routes_destroy(r);
        lr_nat_destroy(r);
        lr_lb_destroy(r);
    }
    free(lr->routers);
    struct lr_port *p;
    HMAP_FOR_EACH_POP (p, name_node, &lr->ports) {
        lr_port_destroy(p);
    }
    hmap_destroy(&lr->ports);
    shash_destroy(&lr->peers);
    sset_destroy(&lr->claims);
    hmapx_destroy(&lr->routers_only);
    free(lr);
}

const struct lr_port *
lr_model_find_port(const struct lr_model *lr, const char *name)
{
    return lr ? find_lr_port(lr, name) : NULL;
}

const struct lr_port *
lr_model_peer_of(const struct lr_model *lr, const char *lsp_name)
{
    return lr ? shash_find_data(&lr->peers, lsp_name) : NULL;
}

bool
lr_model_lsp_touches(const struct lr_model *lr,
                     const struct nb_logical_switch_port *nbp)
{
    if (!lr) {
        return false;
    }
    if (sset_contains(&lr->claims, nbp->name)) {
        return true;
    }
    if (lr->n_dgps && (!strcmp(nbp->type, "localnet")
                       || !strcmp(nbp->type, "vtep"))) {
        return true;            /* Distributed gateway ports' flows. */
    }
    const char *rp = smap_get(&nbp->options, "router-port");
    return !strcmp(nbp->type, "router") && rp && find_lr_port(lr, rp);
}

/* SB. */

void
lr_model_keep_pbs(const struct lr_model *lr, struct hmapx *keep)
{
    const struct lr_port *p;
    HMAP_FOR_EACH (p, name_node, &lr->ports) {
        if (p->sb) {
            hmapx_add(keep, (void *) p->sb);
        }
    }
    lr_gw_keep_pbs(lr, keep);
}

void
lr_port_sync_pb_options_mac(struct rdb_txn *txn, const struct lr_port *p,
                            const struct sb_port_binding *pb,
                            struct smap *options)
{
    if (!pb || !smap_equal(&pb->options, options)) {
        rdb_txn_set_smap(txn, SB_PORT_BINDING_COL_OPTIONS, options);
    }
    smap_destroy(options);

    /* The NB row's external_ids, whole (Neutron's ids), as stock copies
     * them to both the port's binding and its chassisredirect port's.
     * Both maps are packed (lib/mappack.h): equal maps are one pointer. */
    if (pb ? pb->external_ids != p->nb->external_ids
           : p->nb->external_ids != NULL) {
        struct smap ids = SMAP_INITIALIZER(&ids);
        mappack_to_smap(p->nb->external_ids, &ids);
        rdb_txn_set_smap(txn, SB_PORT_BINDING_COL_EXTERNAL_IDS, &ids);
        smap_destroy(&ids);
    }

    /* "MAC NETWORK...", as the NB row has them. */
    struct ds mac = DS_EMPTY_INITIALIZER;
    ds_put_cstr(&mac, p->nb->mac);
    for (size_t i = 0; i < p->nb->n_networks; i++) {
        ds_put_format(&mac, " %s", p->nb->networks[i]);
    }
    const char *macs[] = { ds_cstr(&mac) };
    if (!pb || pb->n_mac != 1 || strcmp(pb->mac[0], macs[0])) {
        rdb_txn_set_strings(txn, SB_PORT_BINDING_COL_MAC, macs, 1);
    }
    ds_destroy(&mac);
}

static void
sync_lr_port(struct rdb_txn *txn, struct lr_port *p)
{
    const struct sb_port_binding *pb = p->sb;
    const struct ls_datapath *dp = p->router->dp;
    if (!pb) {
        if (uuid_is_zero(&p->sb_uuid)) {
            rdb_uuid_generate(&p->sb_uuid);
            COVERAGE_INC(lr_pb_created);
        }
        rdb_txn_insert(txn, &sb_table_port_binding, &p->sb_uuid);
        rdb_txn_set_string(txn, SB_PORT_BINDING_COL_LOGICAL_PORT,
                           p->nb->name);
    } else {
        rdb_txn_update(txn, &sb_table_port_binding, &p->sb_uuid);
    }
    if (!pb || !RDB_ROW_IS(pb->datapath, &dp->sb_uuid)) {
        rdb_txn_set_ref(txn, SB_PORT_BINDING_COL_DATAPATH, &dp->sb_uuid);
    }
    if (!pb || pb->tunnel_key != p->tunnel_key) {
        rdb_txn_set_integer(txn, SB_PORT_BINDING_COL_TUNNEL_KEY,
                            p->tunnel_key);
    }
    /* A gateway router's ports are bound to its chassis. */
    const char *type = p->router->chassis ? "l3gateway" : "patch";
    if (!pb || strcmp(pb->type, type)) {
        rdb_txn_set_string(txn, SB_PORT_BINDING_COL_TYPE, type);
    }
    struct smap options = SMAP_INITIALIZER(&options);
    if (p->peer) {
        smap_add(&options, "peer", p->peer);
    }
    if (p->dgp && p->peer) {
        smap_add(&options, "chassis-redirect-port", p->dgp->cr_name);
    }
    lr_ra_put_pb_options(p, &options);
    lr_peer_pb_options(p, &options);
    /* What ovn-controller obtained by prefix delegation stays (stock). */
    const char *pd_list = pb ? smap_get(&pb->options, "ipv6_ra_pd_list")
                          : NULL;
    if (pd_list) {
        smap_replace(&options, "ipv6_ra_pd_list", pd_list);
    }
    lr_port_sync_pb_options_mac(txn, p, pb, &options);
    if (!pb || !pb->n_up) {
        bool down = false;
        rdb_txn_set_bools(txn, SB_PORT_BINDING_COL_UP, &down, 1);
    }
}

void
lr_model_sync_ports(struct ls_model *m, struct rdb_txn *txn)
{
    struct lr_port *p;
    HMAP_FOR_EACH (p, name_node, &m->lr->ports) {
        sync_lr_port(txn, p);
    }
    lr_gw_sync_ports(m, txn);
}

void
lr_model_sync_nb_ipv6_prefix(const struct ls_model *m, struct rdb_txn *nb_txn)
{
    const struct lr_port *p;
    HMAP_FOR_EACH (p, name_node, &m->lr->ports) {
        lr_ra_sync_nb_prefix(p, nb_txn);
    }
}

/* Flows. */

#define LR_ADD(T, DP, STAGE, PRI, MATCH, ACTIONS, HINT)                  \
    lflow_add_hint(T, DP, STAGE, PRI, MATCH, ACTIONS, HINT)

/* Writes "ip4.dst == A" or "ip4.dst == {A, B}" ('braces': always). */
static void
put_ip4_set(struct ds *s, const struct lr_port *p, bool braces, bool bcast)
{
    bool many = braces || bcast || p->n_ip4 > 1;
    if (many) {
        ds_put_char(s, '{');
    }
    for (size_t i = 0; i < p->n_ip4; i++) {
        ds_put_format(s, "%s%s", i ? ", " : "", p->ip4[i].addr_s);
        if (bcast) {
            ds_put_format(s, ", %s", p->ip4[i].bcast_s);
        }
    }
    if (many) {
        ds_put_char(s, '}');
    }
}

static void
put_ip6_set(struct ds *s, const struct lr_port *p, bool braces)
{
    bool many = braces || p->n_ip6 > 1;
    if (many) {
        ds_put_char(s, '{');
    }
    for (size_t i = 0; i < p->n_ip6; i++) {
        ds_put_format(s, "%s%s", i ? ", " : "", p->ip6[i].addr_s);
    }
    if (many) {
        ds_put_char(s, '}');
    }
}

static void
build_admission(struct lflow_table *t, const struct lr_router *r,
                struct ds *m, struct ds *a)
{
    const struct ls_datapath *dp = r->dp;
    lflow_add(t, dp, S_LR_IN_ADMISSION, 100, "vlan.present || eth.src[40]",
              "drop;");
    lflow_add(t, dp, S_LR_IN_ADMISSION, 0, "1", "drop;");
    for (size_t i = 0; i < r->n_ports; i++) {
        const struct lr_port *p = r->ports[i];
        if (!p->enabled) {
            continue;
        }
        ds_clear(a);
        ds_put_format(a, "xreg0[0..47] = %s; next;", p->mac_s);
        ds_clear(m);
        ds_put_format(m, "eth.dst == %s && inport == %s", p->mac_s,
                      p->qname);
        if (p->dgp && !p->dgp->vtep) {
            ds_put_format(m, " && is_chassis_resident(%s)",
                          p->dgp->cr_qname);
        }
        lr_mtu_admission(t, p, ds_cstr(m), ds_cstr(a));
        ds_clear(m);
        ds_put_format(m, "eth.mcast && inport == %s", p->qname);
        lr_mtu_admission(t, p, ds_cstr(m), ds_cstr(a));
    }
}

static void
build_neighbor(struct lflow_table *t, const struct lr_router *r,
               struct ds *m)
{
    const struct ls_datapath *dp = r->dp;
    /* always_learn_from_arp_request=false: a request learns the sender's
     * binding only if it is for the router, or the binding is known
     * ('reg9[3]'). */
    bool always = smap_get_bool(&r->nb->options,
                                "always_learn_from_arp_request", true);
    static const char lookup_arp[]
        = "reg9[2] = lookup_arp(inport, arp.spa, arp.sha); next;";
    lflow_add(t, dp, S_LR_IN_LOOKUP_NEIGHBOR, 100, "arp.op == 2",
              always ? lookup_arp
              : "reg9[2] = lookup_arp(inport, arp.spa, arp.sha); "
                "reg9[3] = 1; next;");
    lflow_add(t, dp, S_LR_IN_LOOKUP_NEIGHBOR, 100, "nd_na",
              always ? "reg9[2] = lookup_nd(inport, nd.target, nd.tll); next;"
              : "reg9[2] = lookup_nd(inport, nd.target, nd.tll); "
                "reg9[3] = 1; next;");
    lflow_add(t, dp, S_LR_IN_LOOKUP_NEIGHBOR, 100, "nd_ns",
              always ? "reg9[2] = lookup_nd(inport, ip6.src, nd.sll); next;"
              : "reg9[2] = lookup_nd(inport, ip6.src, nd.sll); "
                "reg9[3] = lookup_nd_ip(inport, ip6.src); next;");
    if (!always) {
        lflow_add(t, dp, S_LR_IN_LOOKUP_NEIGHBOR, 110,
                  "nd_na && ip6.src == fe80::/10 && ip6.dst == ff00::/8",
                  "reg9[2] = lookup_nd(inport, ip6.src, nd.tll); "
                  "reg9[3] = lookup_nd_ip(inport, ip6.src); next;");
    }
    lflow_add(t, dp, S_LR_IN_LOOKUP_NEIGHBOR, 0, "1", "reg9[2] = 1; next;");
    for (size_t i = 0; i < r->n_ports; i++) {
        const struct lr_port *p = r->ports[i];
        for (size_t j = 0; j < p->n_ip4; j++) {
            ds_clear(m);
            ds_put_format(m, "inport == %s && arp.spa == %s && "
                          "arp.op == 1", p->qname, p->ip4[j].net_s);
            if (p->dgp) {
                ds_put_format(m, " && is_chassis_resident(%s)",
                              p->dgp->cr_qname);
            }
            LR_ADD(t, dp, S_LR_IN_LOOKUP_NEIGHBOR, 100, ds_cstr(m),
                   always ? lookup_arp
                   : "reg9[2] = lookup_arp(inport, arp.spa, arp.sha); "
                     "reg9[3] = lookup_arp_ip(inport, arp.spa); next;",
                   &p->nb->header_.uuid);
            if (!always) {
                ds_clear(m);
                ds_put_format(m, "inport == %s && arp.spa == %s && "
                              "arp.tpa == %s && arp.op == 1", p->qname,
                              p->ip4[j].net_s, p->ip4[j].addr_s);
                if (p->dgp) {
                    ds_put_format(m, " && is_chassis_resident(%s)",
                                  p->dgp->cr_qname);
                }
                LR_ADD(t, dp, S_LR_IN_LOOKUP_NEIGHBOR, 110, ds_cstr(m),
                       "reg9[2] = lookup_arp(inport, arp.spa, arp.sha); "
                       "reg9[3] = 1; next;", &p->nb->header_.uuid);
            }
        }
    }

    lflow_add(t, dp, S_LR_IN_LEARN_NEIGHBOR, 100,
              always ? "reg9[2] == 1" : "reg9[2] == 1 || reg9[3] == 0",
              "next;");
    lflow_add(t, dp, S_LR_IN_LEARN_NEIGHBOR, 95, "nd_na && nd.tll == 0",
              "put_nd(inport, nd.target, eth.src); next;");
    lflow_add(t, dp, S_LR_IN_LEARN_NEIGHBOR, 95,
              "nd_ns && (ip6.src == 0 || nd.sll == 0)", "next;");
    lflow_add(t, dp, S_LR_IN_LEARN_NEIGHBOR, 90, "arp",
              "put_arp(inport, arp.spa, arp.sha); next;");
    lflow_add(t, dp, S_LR_IN_LEARN_NEIGHBOR, 90, "nd_na",
              "put_nd(inport, nd.target, nd.tll); next;");
    lflow_add(t, dp, S_LR_IN_LEARN_NEIGHBOR, 90, "nd_ns",
              "put_nd(inport, ip6.src, nd.sll); next;");
    lflow_add(t, dp, S_LR_IN_LEARN_NEIGHBOR, 0, "1", "drop;");
}

/* "ip4.dst == {A, ...}" and "ip6.dst == {...}" → drop, for the addresses
 * of 'p' that are ('snat') or are not SNAT addresses. */
static void
put_own_drop(struct lflow_table *t, const struct lr_port *p,
             enum ls_stage stage, uint16_t prio, bool snat, struct ds *m)
{
    const struct lr_router *r = p->router;
    for (int v6 = 0; v6 < 2; v6++) {
        size_t n = v6 ? p->n_ip6 : p->n_ip4;
        ds_clear(m);
        ds_put_format(m, "ip%c.dst == {", v6 ? '6' : '4');
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            const char *addr = v6 ? p->ip6[i].addr_s : p->ip4[i].addr_s;
            if (lr_nat_is_snat_ip(r, addr) == snat) {
                ds_put_format(m, "%s%s", k++ ? ", " : "", addr);
            }
        }
        ds_put_char(m, '}');
        if (k) {
            LR_ADD(t, r->dp, stage, prio, ds_cstr(m), "drop;",
                   &p->nb->header_.uuid);
        }
    }
}

/* lr_in_ip_input for one port: its addresses. */
static void
build_ip_input_port(struct lflow_table *t, const struct lr_port *p,
                    struct ds *m, struct ds *a)
{
    const struct ls_datapath *dp = p->router->dp;
    const struct uuid *hint = &p->nb->header_.uuid;
    const char *name = p->qname;

    if (p->n_ip4) {
        ds_clear(m);
        ds_put_cstr(m, "ip4.src == ");
        put_ip4_set(m, p, true, true);
        ds_put_cstr(m, " && reg9[0] == 0");
        LR_ADD(t, dp, S_LR_IN_IP_INPUT, 100, ds_cstr(m), "drop;", hint);
    }
    for (size_t i = 0; i < p->n_ip6; i++) {
        ds_clear(m);
        ds_put_format(m, "ip6.dst == %s && udp.src == 547 && udp.dst == 546",
                      p->ip6[i].addr_s);
        LR_ADD(t, dp, S_LR_IN_IP_INPUT, 100, ds_cstr(m),
               "reg0 = 0; handle_dhcpv6_reply;", hint);
    }

    /* ARP and ND for the router's own addresses (docs/routers.md). */
    for (size_t i = 0; i < p->n_ip4; i++) {
        const struct lr_net4 *n = &p->ip4[i];
        ds_clear(m);
        ds_put_format(m, "inport == %s && arp.op == 1 && arp.tpa == %s "
                      "&& arp.spa == %s", name, n->addr_s, n->net_s);
        if (p->ln_resident) {
            ds_put_format(m, " && is_chassis_resident(%s)", p->ln_resident);
        }
        LR_ADD(t, dp, S_LR_IN_IP_INPUT, 90, ds_cstr(m),
               "eth.dst = eth.src; eth.src = xreg0[0..47]; arp.op = 2; "
               "/* ARP reply */ arp.tha = arp.sha; arp.sha = xreg0[0..47]; "
               "arp.tpa <-> arp.spa; outport = inport; flags.loopback = 1; "
               "output;", hint);
    }
    for (size_t i = 0; i < p->n_ip6; i++) {
        const struct lr_net6 *n = &p->ip6[i];
        ds_clear(m);
        ds_put_format(m, "inport == %s && ip6.dst == {%s, %s} && nd_ns "
                      "&& nd.target == %s", name, n->addr_s, n->sn_s,
                      n->addr_s);
        if (p->dgp) {
            ds_put_format(m, " && is_chassis_resident(%s)",
                          p->dgp->cr_qname);
        }
        LR_ADD(t, dp, S_LR_IN_IP_INPUT, 90, ds_cstr(m),
               "nd_na_router { eth.src = xreg0[0..47]; ip6.src = nd.target; "
               "nd.tll = xreg0[0..47]; outport = inport; "
               "flags.loopback = 1; output; };", hint);
    }

    /* ICMP echo. */
    if (p->n_ip4) {
        ds_clear(m);
        ds_put_cstr(m, "ip4.dst == ");
        put_ip4_set(m, p, false, false);
        ds_put_cstr(m, " && icmp4.type == 8 && icmp4.code == 0");
        LR_ADD(t, dp, S_LR_IN_IP_INPUT, 90, ds_cstr(m),
               "ip4.dst <-> ip4.src; ip.ttl = 255; icmp4.type = 0; "
               "flags.loopback = 1; next; ", hint);
    }
    ds_clear(m);
    ds_put_cstr(m, "ip6.dst == ");
    put_ip6_set(m, p, false);
    ds_put_cstr(m, " && icmp6.type == 128 && icmp6.code == 0");
    LR_ADD(t, dp, S_LR_IN_IP_INPUT, 90, ds_cstr(m),
           "ip6.dst <-> ip6.src; ip.ttl = 255; icmp6.type = 129; "
           "flags.loopback = 1; next; ", hint);

    /* Other traffic to the router: TCP reset, SCTP abort, port or protocol
     * unreachable; not on a gateway router or a router with distributed
     * gateway ports, as stock. */
    for (int v6 = 0; v6 < 2 && !p->router->chassis && !p->router->n_dgps;
         v6++) {
        size_t n = v6 ? p->n_ip6 : p->n_ip4;
        const char *ip = v6 ? "ip6" : "ip4";
        for (size_t i = 0; i < n; i++) {
            const char *addr = v6 ? p->ip6[i].addr_s : p->ip4[i].addr_s;
            static const char *const protos[] = { "sctp", "tcp", "udp" };
            for (size_t k = 0; k < ARRAY_SIZE(protos); k++) {
                ds_clear(m);
                ds_put_format(m, "%s && %s.dst == %s && !ip.later_frag && %s",
                              ip, ip, addr, protos[k]);
                ds_clear(a);
                if (k == 0) {
                    ds_put_format(a, "sctp_abort {eth.dst <-> eth.src; "
                                  "%s.dst <-> %s.src; next; };", ip, ip);
                } else if (k == 1) {
                    ds_put_format(a, "tcp_reset {eth.dst <-> eth.src; "
                                  "%s.dst <-> %s.src; next; };", ip, ip);
                } else {
                    ds_put_format(a, "icmp%c {eth.dst <-> eth.src; "
                                  "%s.dst <-> %s.src; ip.ttl = 255; "
                                  "icmp%c.type = %d; icmp%c.code = %d; "
                                  "next; };", v6 ? '6' : '4', ip, ip,
                                  v6 ? '6' : '4', v6 ? 1 : 3,
                                  v6 ? '6' : '4', v6 ? 4 : 3);
                }
                LR_ADD(t, dp, S_LR_IN_IP_INPUT, 80, ds_cstr(m), ds_cstr(a),
                       hint);
            }
            ds_clear(m);
            ds_put_format(m, "%s && %s.dst == %s && !ip.later_frag", ip, ip,
                          addr);
            ds_clear(a);
            ds_put_format(a, "icmp%c {eth.dst <-> eth.src; %s.dst <-> "
                          "%s.src; ip.ttl = 255; icmp%c.type = %d; "
                          "icmp%c.code = %d; next; };", v6 ? '6' : '4', ip,
                          ip, v6 ? '6' : '4', v6 ? 1 : 3, v6 ? '6' : '4',
                          v6 ? 3 : 2);
            LR_ADD(t, dp, S_LR_IN_IP_INPUT, 70, ds_cstr(m), ds_cstr(a),
                   hint);
        }
    }

    /* What is left for the router itself is dropped, but for SNAT
     * addresses (lr_in_arp_resolve drops what was not unSNATed). */
    if (!lr_nat_force_snat_router_ip(p->router)) {
        put_own_drop(t, p, S_LR_IN_IP_INPUT, 60, false, m);
    }

    /* TTL expiry: ICMP time exceeded from the port's address. */
    for (size_t i = 0; i < p->n_ip4; i++) {
        ds_clear(m);
        ds_put_format(m, "inport == %s && ip4 && ip.ttl == {0, 1} && "
                      "!ip.later_frag", name);
        ds_clear(a);
        ds_put_cstr(a, "icmp4 {eth.dst <-> eth.src; icmp4.type = 11; "
                    "/* Time exceeded */ icmp4.code = 0; /* TTL exceeded "
                    "in transit */ ");
        /* A distributed gateway port answers from the address the packet
         * was sent to, as stock. */
        if (p->dgp) {
            ds_put_cstr(a, "ip4.dst <-> ip4.src ; ");
        } else {
            ds_put_format(a, "ip4.dst = ip4.src; ip4.src = %s ; ",
                          p->ip4[i].addr_s);
        }
        ds_put_format(a, "ip.ttl = 254; outport = %s; flags.loopback = 1; "
                      "output; };", name);
        LR_ADD(t, dp, S_LR_IN_IP_INPUT, 31, ds_cstr(m), ds_cstr(a), hint);
    }
    for (size_t i = 0; i + 1 < p->n_ip6; i++) {
        const struct lr_net6 *n = &p->ip6[i];
        ds_clear(m);
        ds_put_format(m, "inport == %s && ip6 && ip6.src == %s && "
                      "ip.ttl == {0, 1} && !ip.later_frag", name, n->net_s);
        ds_clear(a);
        ds_put_cstr(a, "icmp6 {eth.dst <-> eth.src; ");
        if (p->dgp) {
            ds_put_cstr(a, "ip6.dst <-> ip6.src ; ");
        } else {
            ds_put_format(a, "ip6.dst = ip6.src; ip6.src = %s ; ",
                          n->addr_s);
        }
        ds_put_format(a, "ip.ttl = 254; icmp6.type = 3; /* Time exceeded */ "
                      "icmp6.code = 0; /* TTL exceeded in transit */ "
                      "outport = %s; flags.loopback = 1; output; };", name);
        LR_ADD(t, dp, S_LR_IN_IP_INPUT, 31, ds_cstr(m), ds_cstr(a), hint);
    }
}

static void
build_ip_input(struct lflow_table *t, const struct lr_router *r,
               struct ds *m, struct ds *a)
{
    lr_nat_build_arp_nd(t, r, m);
    const struct ls_datapath *dp = r->dp;
    lflow_add(t, dp, S_LR_IN_IP_INPUT, 100,
              "ip4.src_mcast ||ip4.src == 255.255.255.255 || "
              "ip4.src == 127.0.0.0/8 || ip4.dst == 127.0.0.0/8 || "
              "ip4.src == 0.0.0.0/8 || ip4.dst == 0.0.0.0/8", "drop;");
    lflow_add(t, dp, S_LR_IN_IP_INPUT, 85, "arp || nd", "drop;");
    lflow_add(t, dp, S_LR_IN_IP_INPUT, 84, "nd_rs || nd_ra", "next;");
    lflow_add(t, dp, S_LR_IN_IP_INPUT, 83, "ip6.mcast_rsvd", "drop;");
    lflow_add(t, dp, S_LR_IN_IP_INPUT, 82, "ip4.mcast || ip6.mcast",
              r->mcast_relay ? "next;" : "drop;");
    lflow_add(t, dp, S_LR_IN_IP_INPUT, 50, "eth.bcast", "drop;");
    lflow_add(t, dp, S_LR_IN_IP_INPUT, 32,
              "ip.ttl == {0, 1} && !ip.later_frag && "
              "(ip4.mcast || ip6.mcast)", "drop;");
    lflow_add(t, dp, S_LR_IN_IP_INPUT, 30, "ip.ttl == {0, 1}", "drop;");
    lflow_add(t, dp, S_LR_IN_IP_INPUT, 0, "1", "next;");
    for (size_t i = 0; i < r->n_ports; i++) {
        build_ip_input_port(t, r->ports[i], m, a);
    }
}

/* Connected routes: longest prefix first, as stock orders them
 * (priority 3 * plen + 2: above a static route of the same length), and
 * the static routes (router-routes.c). */
static void
build_routing(struct lflow_table *t, const struct lr_router *r,
              struct ds *m, struct ds *a)
{
    const struct ls_datapath *dp = r->dp;
    lflow_add(t, dp, S_LR_IN_IP_ROUTING_PRE, 0, "1", "reg7 = 0; next;");
    lflow_add(t, dp, S_LR_IN_IP_ROUTING, 10550, "nd_rs || nd_ra", "drop;");
    lflow_add(t, dp, S_LR_IN_IP_ROUTING, 0, "1", "drop;");
    for (size_t i = 0; i < r->n_ports; i++) {
        const struct lr_port *p = r->ports[i];
        const struct uuid *hint = &p->nb->header_.uuid;
        for (size_t j = 0; j < p->n_ip4; j++) {
            const struct lr_net4 *n = &p->ip4[j];
            ds_clear(m);
            ds_put_format(m, "ip4.dst == %s", n->net_s);
            ds_clear(a);
            ds_put_format(a, "ip.ttl--; reg8[0..15] = 0; reg0 = ip4.dst; "
                          "reg1 = %s; eth.src = %s; outport = %s; "
                          "flags.loopback = 1; next;", n->addr_s, p->mac_s,
                          p->qname);
            LR_ADD(t, dp, S_LR_IN_IP_ROUTING, n->plen * 3 + 2, ds_cstr(m),
                   ds_cstr(a), hint);
        }
        for (size_t j = 0; j < p->n_ip6; j++) {
            const struct lr_net6 *n = &p->ip6[j];
            bool lla = j + 1 == p->n_ip6;
            ds_clear(m);
            if (lla) {
                ds_put_format(m, "inport == %s && ", p->qname);
            }
            ds_put_format(m, "ip6.dst == %s", n->net_s);
            ds_clear(a);
            ds_put_format(a, "ip.ttl--; reg8[0..15] = 0; xxreg0 = ip6.dst; "
                          "xxreg1 = %s; eth.src = %s; outport = %s; "
                          "flags.loopback = 1; next;", n->addr_s, p->mac_s,
                          p->qname);
            LR_ADD(t, dp, S_LR_IN_IP_ROUTING, n->plen * 3 + 2, ds_cstr(m),
                   ds_cstr(a), hint);
        }
    }
    lr_routes_build_lflows(t, r);
    lflow_add(t, dp, S_LR_IN_IP_ROUTING_ECMP, 150, "reg8[0..15] == 0",
              "next;");
    lflow_add(t, dp, S_LR_IN_IP_ROUTING_ECMP, 0, "1", "drop;");
    lflow_add(t, dp, S_LR_IN_POLICY, 0, "1", "reg8[0..15] = 0; next;");
    lr_policies_build_lflows(t, r);
    lflow_add(t, dp, S_LR_IN_POLICY_ECMP, 150, "reg8[0..15] == 0", "next;");
    lflow_add(t, dp, S_LR_IN_POLICY_ECMP, 0, "1", "drop;");
}

/* A router port 'x' wired to router port 'x->rpeer': the peer's router
 * reaches 'x''s addresses through the peer. */
static void
build_rpeer_arp_resolve(struct lflow_table *t, const struct lr_port *x)
{
    const struct lr_port *y = x->rpeer;
    struct ds m = DS_EMPTY_INITIALIZER;
    struct ds a = DS_EMPTY_INITIALIZER;
    ds_put_format(&a, "eth.dst = %s; next;", x->mac_s);
    for (int v6 = 0; v6 < 2; v6++) {
        size_t n = v6 ? x->n_ip6 : x->n_ip4;
        if (!n) {
            continue;
        }
        ds_clear(&m);
        /* (Stock writes no space before "==" for IPv4.) */
        ds_put_format(&m, "outport == %s && %s", y->qname,
                      v6 ? "xxreg0 == " : "reg0== ");
        ds_put_cstr(&m, n > 1 ? "{" : "");
        for (size_t i = 0; i < n; i++) {
            ds_put_format(&m, "%s%s", i ? ", " : "",
                          v6 ? x->ip6[i].addr_s : x->ip4[i].addr_s);
        }
        ds_put_cstr(&m, n > 1 ? "}" : "");
        LR_ADD(t, y->router->dp, S_LR_IN_ARP_RESOLVE, 100, ds_cstr(&m),
               ds_cstr(&a), &x->nb->header_.uuid);
    }
    ds_destroy(&m);
    ds_destroy(&a);
}

static void
build_router_lflows(struct lflow_table *t, const struct lr_router *r)
{
    const struct ls_datapath *dp = r->dp;
    struct ds m = DS_EMPTY_INITIALIZER;
    struct ds a = DS_EMPTY_INITIALIZER;

    build_admission(t, r, &m, &a);
    build_neighbor(t, r, &m);
    build_ip_input(t, r, &m, &a);

    /* Stages of NAT and load balancing, which this slice does not
     * compile, pass everything; the default of the advertisement
     * stages (lr_ra_build_lflows()). */
    static const enum ls_stage pass[] = {
        S_LR_IN_LB_AFF_CHECK, S_LR_IN_LB_AFF_LEARN, S_LR_IN_ECMP_STATEFUL,
        S_LR_IN_ND_RA_OPTIONS, S_LR_IN_ND_RA_RESPONSE, S_LR_IN_CHK_PKT_LEN,
        S_LR_IN_LARGER_PKTS, S_LR_IN_GW_REDIRECT,
    };
    for (size_t i = 0; i < ARRAY_SIZE(pass); i++) {
        lflow_add(t, dp, pass[i], 0, "1", "next;");
    }
    lr_nat_build_lflows(t, r);
    lr_lb_build_lflows(t, r);

    build_routing(t, r, &m, &a);
    lr_gw_build_lflows(t, r);
    lr_ra_build_lflows(t, r);
    lr_mtu_build_lflows(t, r);

    /* Next hop's MAC: static entries for the switch ports' addresses
     * (lr_build_port_lflows()), else the MAC bindings ovn-controller
     * learnt, else an ARP request or ND solicitation. */
    lflow_add(t, dp, S_LR_IN_ARP_RESOLVE, 500, "ip4.mcast || ip6.mcast",
              "next;");
    for (size_t i = 0; i < r->n_ports; i++) {
        if (r->ports[i]->rpeer) {
            build_rpeer_arp_resolve(t, r->ports[i]);
        }
    }
    lflow_add(t, dp, S_LR_IN_ARP_RESOLVE, 1, "ip4",
              "get_arp(outport, reg0); next;");
    lflow_add(t, dp, S_LR_IN_ARP_RESOLVE, 1, "ip6",
              "get_nd(outport, xxreg0); next;");
    lflow_add(t, dp, S_LR_IN_ARP_RESOLVE, 0, "1", "drop;");
    for (size_t i = 0; i < r->n_ports; i++) {
        put_own_drop(t, r->ports[i], S_LR_IN_ARP_RESOLVE, 2, true, &m);
    }

    lflow_add(t, dp, S_LR_IN_ARP_REQUEST, 100,
              "eth.dst == 00:00:00:00:00:00 && ip4",
              "arp { eth.dst = ff:ff:ff:ff:ff:ff; arp.spa = reg1; "
              "arp.tpa = reg0; arp.op = 1; output; };");
    lflow_add(t, dp, S_LR_IN_ARP_REQUEST, 100,
              "eth.dst == 00:00:00:00:00:00 && ip6",
              "nd_ns { nd.target = xxreg0; output; };");
    lflow_add(t, dp, S_LR_IN_ARP_REQUEST, 0, "1", "output;");

    lflow_add(t, dp, S_LR_OUT_SNAT, 120, "nd_ns", "next;");
    lflow_add(t, dp, S_LR_OUT_DELIVERY, 0, "1", "drop;");
    for (size_t i = 0; i < r->n_ports; i++) {
        const struct lr_port *p = r->ports[i];
        if (!p->enabled) {
            continue;
        }
        ds_clear(&m);
        ds_put_format(&m, "outport == %s", p->qname);
        LR_ADD(t, dp, S_LR_OUT_DELIVERY, 100, ds_cstr(&m), "output;",
               &p->nb->header_.uuid);
    }
    ds_destroy(&m);
    ds_destroy(&a);
}

void
lr_build_lflows(struct lflow_table *t, const struct ls_model *m)
{
    if (!m->lr) {
        return;
    }
    struct lflow_owner *saved = t->owner;
    for (size_t i = 0; i < m->lr->n_routers; i++) {
        struct lr_router *r = &m->lr->routers[i];
        r->ct_mark_natted = m->lr->ct_no_masked_label;
        lflow_owner_clear(t, &r->dp->owner);
        lflow_table_set_owner(t, &r->dp->owner);
        build_router_lflows(t, r);
        lr_mcast_build_lflows(t, m, r);
    }
    lflow_table_set_owner(t, saved);
}

/* The switch side. */

/* Whether every port of switch 'dp' (as its NB row lists them) is wired to
 * a router, e.g. ovn-kubernetes' join switch: then ARP requests and NS for
 * a router's addresses go to that router alone, not flooded, and the
 * routers' own requests have no flow of their own, as stock. */
static bool
switch_routers_only(const struct lr_model *lr, const struct ls_datapath *dp)
{
    if (!lr || !dp->nb || !dp->nb->n_ports) {
        return false;
    }
    for (size_t i = 0; i < dp->nb->n_ports; i++) {
        if (!shash_find(&lr->peers, dp->nb->ports[i]->name)) {
            return false;
        }
    }
    return true;
}

bool
lr_model_switch_routers_only(const struct lr_model *lr,
                             const struct ls_datapath *dp)
{
    return lr && (hmapx_contains(&lr->routers_only, dp)
                  || switch_routers_only(lr, dp));
}

void
lr_build_switch_lflows(struct lflow_table *t, const struct ls_model *m,
                       const struct ls_datapath *dp, bool stateful)
{
    if (!m->lr || !m->lr->n_routers) {
        return;
    }
    struct ds match = DS_EMPTY_INITIALIZER;
    size_t n = 0;
    bool routers_only = switch_routers_only(m->lr, dp);
    const struct ls_port *sp;
    LIST_FOR_EACH (sp, dp_node, &dp->ports) {
        const struct lr_port *p = lr_model_peer_of(m->lr, sp->nb->name);
        if (!p) {
            continue;
        }
        n++;
        /* Requests a router sends go to every port but the routers. */
        if (!routers_only) {
            /* The port's MAC and its router's floating IPs' MACs, in the
             * order of stock's sset. */
            struct sset macs = SSET_INITIALIZER(&macs);
            sset_add(&macs, p->mac_s);
            lr_nat_put_eth_srcs(p->router, &macs);
            ds_clear(&match);
            ds_put_cstr(&match, "eth.src == {");
            const char *mac;
            size_t k = 0;
            SSET_FOR_EACH (mac, &macs) {
                ds_put_format(&match, "%s%s", k++ ? ", " : "", mac);
            }
            sset_destroy(&macs);
            ds_put_cstr(&match, "} && (arp.op == 1 || rarp.op == 3 || "
                        "nd_ns)");
            lflow_add(t, dp, S_IN_L2_LKUP, 75, ds_cstr(&match),
                      "outport = \""MC_FLOOD_L2"\"; output;");
        }

        /* Routed traffic keeps out of the switch's load balancer stages,
         * and forgets the switch's conntrack state on its way to the
         * router unless stateful ACLs need it, VIPs or not (northd.c
         * leaves a router's peer out of lb_build_port_lflows()). */
        const struct uuid *hint = &sp->nb->header_.uuid;
        ds_clear(&match);
        ds_put_cstr(&match, "ip && inport == ");
        lex_put_string(&match, sp->nb->name);
        lflow_add_port(t, dp, S_IN_PRE_LB, 110, ds_cstr(&match), "next;",
                       hint);
        ds_clear(&match);
        ds_put_cstr(&match, "ip && outport == ");
        lex_put_string(&match, sp->nb->name);
        lflow_add_port(t, dp, S_OUT_PRE_LB, 110, ds_cstr(&match),
                       stateful ? "next;" : "ct_clear; next;", hint);
    }
    if (n) {
        lflow_add(t, dp, S_IN_PRE_LB, 110, "reg0[16] == 1", "next;");
        lflow_add(t, dp, S_OUT_PRE_LB, 110, "reg0[16] == 1", "next;");
    }
    ds_destroy(&match);
}

/* ARP requests and NS for a router's address: to the router port (and
 * flooded, 'flood'). */
static void
put_req_actions(struct ds *a, const char *name, bool flood)
{
    ds_clear(a);
    if (flood) {
        ds_put_format(a, "clone {outport = %s; output; }; "
                      "outport = \""MC_FLOOD_L2"\"; output;", name);
    } else {
        ds_put_format(a, "outport = %s; output;", name);
    }
}

struct nat_req_aux {
    struct lflow_table *t;
    const struct ls_port *sp;
    const struct lr_port *p;
    const char *name;
    struct ds *m;
    struct ds *a;
    bool flood;
};

/* ls_in_l2_lkup 80 for a DNAT address 'addr' of the router of aux->p,
 * unless it is one of the port's own (which has the flow already). */
static void
nat_req_flow(const char *addr, bool v6, void *aux_)
{
    struct nat_req_aux *aux = aux_;
    const struct lr_port *p = aux->p;
    size_t n = v6 ? p->n_ip6 : p->n_ip4;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(addr, v6 ? p->ip6[i].addr_s : p->ip4[i].addr_s)) {
            return;
        }
    }
    ds_clear(aux->m);
    if (v6) {
        ds_put_format(aux->m, "flags[1] == 0 && nd_ns && nd.target == %s",
                      addr);
    } else {
        ds_put_format(aux->m, "flags[1] == 0 && arp.op == 1 && "
                      "arp.tpa == %s", addr);
    }
    put_req_actions(aux->a, aux->name, aux->flood);
    LR_ADD(aux->t, aux->sp->dp, S_IN_L2_LKUP, 80, ds_cstr(aux->m),
           ds_cstr(aux->a), &aux->sp->nb->header_.uuid);
}

/* nat_req_flow() for a NAT row's DNAT address, unless it is also a VIP of
 * the router's load balancers: stock then sends its requests to the
 * router only from the switches in whose networks the VIP is. */
static void
nat_dnat_req_flow(const char *addr, bool v6, void *aux_)
{
    struct nat_req_aux *aux = aux_;
    if (!lr_lb_is_vip(aux->p->router, addr, v6)) {
        nat_req_flow(addr, v6, aux_);
    }
}

/* A switch port wired to router port 'p': ARP/ND for the router's
 * addresses answered on the switch, and L2 lookup to the router. */
/* The switch's answer 'action' to requests 'm' for a router port's
 * address (50), and the bypass for the requests the router port itself
 * sends (100, the switch port's flow).  Extends 'm'. */
static void
add_peer_responder(struct lflow_table *t, const struct ls_datapath *dp,
                   struct ds *m, const char *action, const char *name,
                   const struct uuid *hint)
{
    LR_ADD(t, dp, S_IN_ARP_ND_RSP, 50, ds_cstr(m), action, hint);
    ds_put_format(m, " && inport == %s", name);
    lflow_add_port(t, dp, S_IN_ARP_ND_RSP, 100, ds_cstr(m), "next;", hint);
}

static void
build_peer_port_lflows(struct lflow_table *t, const struct lr_model *lr,
                       const struct ls_port *sp, const struct lr_port *p)
{
    /* The switch answers for the router's addresses if the port's
     * addresses say "router" (not for a MAC alone). */
    bool answer = false;
    for (size_t i = 0; i < sp->nb->n_addresses; i++) {
        if (!strcmp(sp->nb->addresses[i], "router")) {
            answer = true;
        }
    }
    bool flood = !switch_routers_only(lr, sp->dp);
    const struct ls_datapath *dp = sp->dp;
    struct ds qname = DS_EMPTY_INITIALIZER;
    lex_put_string(&qname, sp->nb->name);
    const char *name = ds_cstr(&qname);
    const struct uuid *hint = &sp->nb->header_.uuid;
    struct ds m = DS_EMPTY_INITIALIZER;
    struct ds a = DS_EMPTY_INITIALIZER;

    for (size_t i = 0; i < p->n_ip4; i++) {
        const char *ip = p->ip4[i].addr_s;
        ds_clear(&m);
        ds_put_format(&m, "arp.tpa == %s && arp.op == 1", ip);
        ds_clear(&a);
        ds_put_format(&a, "eth.dst = eth.src; eth.src = %s; arp.op = 2; "
                      "/* ARP reply */ arp.tha = arp.sha; arp.sha = %s; "
                      "arp.tpa = arp.spa; arp.spa = %s; outport = inport; "
                      "flags.loopback = 1; output;", p->mac_s, p->mac_s, ip);
        if (answer) {
            add_peer_responder(t, dp, &m, ds_cstr(&a), name, hint);
        }

        ds_clear(&m);
        ds_put_format(&m, "flags[1] == 0 && arp.op == 1 && arp.tpa == %s",
                      ip);
        put_req_actions(&a, name, flood);
        LR_ADD(t, dp, S_IN_L2_LKUP, 80, ds_cstr(&m), ds_cstr(&a), hint);
    }
    for (size_t i = 0; i < p->n_ip6; i++) {
        const struct lr_net6 *n = &p->ip6[i];
        ds_clear(&m);
        ds_put_format(&m, "nd_ns && ip6.dst == {%s, %s} && nd.target == %s",
                      n->addr_s, n->sn_s, n->addr_s);
        ds_clear(&a);
        ds_put_format(&a, "nd_na_router { eth.src = %s; ip6.src = %s; "
                      "nd.target = %s; nd.tll = %s; outport = inport; "
                      "flags.loopback = 1; output; };", p->mac_s, n->addr_s,
                      n->addr_s, p->mac_s);
        if (answer) {
            add_peer_responder(t, dp, &m, ds_cstr(&a), name, hint);
        }

        ds_clear(&m);
        ds_put_format(&m, "flags[1] == 0 && nd_ns && nd.target == %s",
                      n->addr_s);
        put_req_actions(&a, name, flood);
        LR_ADD(t, dp, S_IN_L2_LKUP, 80, ds_cstr(&m), ds_cstr(&a), hint);
    }

    /* Requests for the router's DNAT addresses, too. */
    struct nat_req_aux aux = { t, sp, p, name, &m, &a, flood };
    lr_nat_for_each_dnat_ip(p->router, nat_dnat_req_flow, &aux);
    lr_lb_for_each_reachable_vip(p, nat_req_flow, &aux);
    lr_nat_build_peer_lflows(t, sp, p, name);

    ds_clear(&m);
    ds_put_format(&m, "eth.dst == %s", p->mac_s);
    if (p->ln_resident) {
        ds_put_format(&m, " && is_chassis_resident(%s)", p->ln_resident);
    }
    ds_clear(&a);
    ds_put_format(&a, "outport = %s; output;", name);
    LR_ADD(t, dp, S_IN_L2_LKUP, 50, ds_cstr(&m), ds_cstr(&a), hint);

    /* options:arp_proxy: the router's MAC for those addresses too. */
    if (p->arp_proxy) {
        ds_clear(&m);
        ds_put_format(&m, "arp.op == 1 && arp.tpa == {%s}", p->arp_proxy);
        ds_clear(&a);
        ds_put_format(&a, "eth.dst = eth.src; eth.src = %s; arp.op = 2; "
                      "/* ARP reply */ arp.tha = arp.sha; arp.sha = %s; "
                      "arp.tpa <-> arp.spa; outport = inport; "
                      "flags.loopback = 1; output;", p->mac_s, p->mac_s);
        LR_ADD(t, dp, S_IN_ARP_ND_RSP, 50, ds_cstr(&m), ds_cstr(&a), hint);
    }
    ds_destroy(&m);
    ds_destroy(&a);
    ds_destroy(&qname);
}

static bool
net4_contains(const struct lr_port *p, ovs_be32 ip)
{
    for (size_t i = 0; i < p->n_ip4; i++) {
        if ((ip & be32_prefix_mask(p->ip4[i].plen)) == p->ip4[i].network) {
            return true;
        }
    }
    return false;
}

static bool
net6_contains(const struct lr_port *p, const struct in6_addr *ip)
{
    for (size_t i = 0; i < p->n_ip6; i++) {
        struct in6_addr mask = ipv6_create_mask(p->ip6[i].plen);
        struct in6_addr net = ipv6_addr_bitand(ip, &mask);
        if (ipv6_addr_equals(&net, &p->ip6[i].network)) {
            return true;
        }
    }
    return false;
}

/* Static ARP/ND entries on router port 'rp' for the addresses of switch
 * port 'vp' that are in its networks. */
static void
build_arp_resolve_for(struct lflow_table *t, const struct lr_port *rp,
                      const struct ls_port *vp)
{
    struct ds m = DS_EMPTY_INITIALIZER;
    struct ds a = DS_EMPTY_INITIALIZER;
    const struct ls_datapath *dp = rp->router->dp;
    for (size_t i = 0; i < vp->n_addrs; i++) {
        const struct lsp_addresses *la = &vp->addrs[i];
        ds_clear(&a);
        ds_put_format(&a, "eth.dst = "ETH_ADDR_FMT"; next;",
                      ETH_ADDR_ARGS(la->ea));
        for (size_t j = 0; j < la->n_ipv4; j++) {
            if (!net4_contains(rp, la->ipv4[j].addr)) {
                continue;
            }
            ds_clear(&m);
            ds_put_format(&m, "outport == %s && reg0 == "IP_FMT,
                          rp->qname, IP_ARGS(la->ipv4[j].addr));
            LR_ADD(t, dp, S_LR_IN_ARP_RESOLVE, 100, ds_cstr(&m),
                   ds_cstr(&a), &vp->nb->header_.uuid);
        }
        for (size_t j = 0; j < la->n_ipv6; j++) {
            if (!net6_contains(rp, &la->ipv6[j].addr)) {
                continue;
            }
            char s[INET6_ADDRSTRLEN];
            ipv6_string_mapped(s, &la->ipv6[j].addr);
            ds_clear(&m);
            ds_put_format(&m, "outport == %s && xxreg0 == %s",
                          rp->qname, s);
            LR_ADD(t, dp, S_LR_IN_ARP_RESOLVE, 100, ds_cstr(&m),
                   ds_cstr(&a), &vp->nb->header_.uuid);
        }
    }
    ds_destroy(&m);
    ds_destroy(&a);
}

void
lr_build_port_lflows(struct lflow_table *t, const struct ls_model *m,
                     const struct ls_port *sp)
{
    if (!m->lr || !m->lr->n_routers) {
        return;
    }
    const struct lr_port *own = lr_model_peer_of(m->lr, sp->nb->name);
    if (own) {
        build_peer_port_lflows(t, m->lr, sp, own);
        /* The other routers on the switch resolve this one's addresses
         * without asking (a join switch). */
        struct ds match = DS_EMPTY_INITIALIZER;
        struct ds actions = DS_EMPTY_INITIALIZER;
        ds_put_format(&actions, "eth.dst = %s; next;", own->mac_s);
        const struct ls_port *q;
        LIST_FOR_EACH (q, dp_node, &sp->dp->ports) {
            const struct lr_port *rq = (q == sp ? NULL
                                        : lr_model_peer_of(m->lr,
                                                           q->nb->name));
            if (rq) {
                /* Routes to the NAT addresses and VIPs with add_route. */
                lr_nat_build_neighbour_routes(t, own, rq,
                                              &sp->nb->header_.uuid);
            }
            /* A router with dynamic_neigh_routers learns its neighbour
             * routers' MACs. */
            if (!rq || smap_get_bool(&rq->router->nb->options,
                                     "dynamic_neigh_routers", false)) {
                continue;
            }
            if (own->n_ip4) {
                ds_clear(&match);
                ds_put_format(&match, "outport == %s && reg0 == ",
                              rq->qname);
                put_ip4_set(&match, own, false, false);
                LR_ADD(t, rq->router->dp, S_LR_IN_ARP_RESOLVE, 100,
                       ds_cstr(&match), ds_cstr(&actions),
                       &sp->nb->header_.uuid);
            }
            ds_clear(&match);
            ds_put_format(&match, "outport == %s && xxreg0 == ",
                          rq->qname);
            put_ip6_set(&match, own, false);
            LR_ADD(t, rq->router->dp, S_LR_IN_ARP_RESOLVE, 100,
                   ds_cstr(&match), ds_cstr(&actions),
                   &sp->nb->header_.uuid);
        }
        ds_destroy(&match);
        ds_destroy(&actions);
        return;
    }
    if (!strcmp(sp->nb->type, "router")) {
        return;
    }
    if (!strcmp(sp->nb->type, "vtep")) {
        /* Traffic from the VTEP gateway is handled (ARP/ND hairpin) on the
         * gateway chassis of each distributed gateway port on the switch,
         * as stock. */
        struct ds match = DS_EMPTY_INITIALIZER;
        const struct ls_port *q;
        LIST_FOR_EACH (q, dp_node, &sp->dp->ports) {
            const struct lr_port *rq = lr_model_peer_of(m->lr, q->nb->name);
            if (rq && rq->dgp) {
                ds_clear(&match);
                ds_put_format(&match, REGBIT_FROM_RAMP" == 1 && "
                              "is_chassis_resident(%s)", rq->dgp->cr_qname);
                LR_ADD(t, sp->dp, S_IN_HAIRPIN, 2000, ds_cstr(&match),
                       "next;", &sp->nb->header_.uuid);
            }
        }
        ds_destroy(&match);
    }
    /* Every router wired to this switch resolves the port's addresses
     * without asking. */
    const struct ls_port *q;
    LIST_FOR_EACH (q, dp_node, &sp->dp->ports) {
        const struct lr_port *rp = lr_model_peer_of(m->lr, q->nb->name);
        if (rp) {
            build_arp_resolve_for(t, rp, sp);
        }
    }
}

/* The switch side's Port_Binding. */

const char *
lr_peer_pb_type(const struct lr_port *p)
{
    return p->router->chassis ? "l3gateway" : "patch";
}

void
lr_peer_pb_options(const struct lr_port *p, struct smap *options)
{
    if (p->router->chassis) {
        smap_replace(options, "l3gateway-chassis", p->router->chassis);
    }
}

void
lr_peer_pb_nat_addresses(const struct lr_port *p, const struct ls_port *sp,
                         struct svec *out)
{
    bool localnet = false;
    const struct ls_port *q;
    LIST_FOR_EACH (q, dp_node, &sp->dp->ports) {
        if (!strcmp(q->nb->type, "localnet")) {
            localnet = true;
            break;
        }
    }
    lr_nat_addresses(p, &sp->nb->options, localnet, out);
    lr_gw_port_garp(p, out);
}
