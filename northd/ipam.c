/* Dynamic addresses of logical switch ports; see ipam.h. */
#include <config.h>
#include "northd/ipam.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "coverage.h"
#include "hash.h"
#include "lib/lsp-addresses.h"
#include "lib/nb-rdb.h"
#include "lib/rdb.h"
#include "northd/datapaths.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "smap.h"
#include "util.h"
#include "uuid.h"

VLOG_DEFINE_THIS_MODULE(ipam);

COVERAGE_DEFINE(ipam_port_allocated);
COVERAGE_DEFINE(ipam_subnet_exhausted);

/* MAC suffixes are 1..IPAM_MAC_SUFFIXES (0 and ff:ff:ff are never used). */
#define IPAM_MAC_SUFFIXES 0xfffffe

/* Smaller prefix lengths would mean a bitmap of up to 512 MB per switch. */
#define IPAM_MIN_PLEN 8

/* A port with a dynamic entry on a switch with IPAM. */
struct ipam_port {
    struct ls_port *p;
    const char *entry;              /* Its dynamic entry. */

    /* What the entry asks for. */
    bool has_mac;                   /* "MAC dynamic". */
    struct eth_addr mac_req;
    bool has_ip4;                   /* "dynamic IPv4 [IPv6]". */
    ovs_be32 ip4_req;
    bool has_ip6;                   /* "dynamic [IPv4] IPv6". */
    struct in6_addr ip6_req;

    /* What it gets. */
    bool mac_set;
    struct eth_addr mac;
    bool ip4_set;
    uint32_t ip4;                   /* Host byte order. */
    bool need_ip4;
    bool fresh;                     /* No valid dynamic_addresses yet. */
};

struct ipam_switch {
    struct ls_datapath *dp;
    bool v4;                        /* other_config:subnet is valid. */
    uint32_t start;                 /* Subnet's first host address. */
    uint32_t total;                 /* Offsets from 'start' in 'used';
                                     * the last is the broadcast address. */
    unsigned long *used;            /* Offsets taken, 'total' bits. */
    bool exhausted_reported;
    bool v6;                        /* other_config:ipv6_prefix is valid. */
    struct in6_addr prefix;
    bool mac_only;

    struct ipam_port *ports;
    size_t n_ports;
};

/* MACs in use anywhere, as 48-bit integers. */
struct mac_node {
    struct hmap_node node;
    uint64_t mac;
};

static bool
mac_used(const struct hmap *macs, uint64_t mac)
{
    const struct mac_node *n;
    HMAP_FOR_EACH_WITH_HASH (n, node, hash_uint64(mac), macs) {
        if (n->mac == mac) {
            return true;
        }
    }
    return false;
}

static void
mac_add(struct hmap *macs, struct eth_addr ea)
{
    uint64_t mac = eth_addr_to_uint64(ea);
    if (!mac_used(macs, mac)) {
        struct mac_node *n = xmalloc(sizeof *n);
        n->mac = mac;
        hmap_insert(macs, &n->node, hash_uint64(mac));
    }
}

/* Parses the first three colon-separated bytes of 's' (one or two hex
 * digits each); what follows is ignored, as 23.03 does. */
static bool
parse_mac_prefix(const char *s, struct eth_addr *prefix)
{
    *prefix = eth_addr_zero;
    for (int i = 0; i < 3; i++) {
        if (i && *s++ != ':') {
            return false;
        }
        int n = 0;
        unsigned int byte = 0;
        while (n < 2 && isxdigit((unsigned char) s[n])) {
            byte = byte * 16 + hexit_value(s[n]);
            n++;
        }
        if (!n) {
            return false;
        }
        prefix->ea[i] = byte;
        s += n;
    }
    return true;
}

/* Sets 'm''s MAC prefix from NB_Global options:mac_prefix, or a random
 * locally administered unicast one to be written back. */
static void
choose_mac_prefix(struct ls_model *m, const struct nb_nb_global *g,
                  const struct ipam_carry *carry)
{
    const char *s = g ? smap_get(&g->options, "mac_prefix") : NULL;
    if (s && parse_mac_prefix(s, &m->mac_prefix)) {
        m->mac_prefix_new = false;
        return;
    }
    m->mac_prefix_new = true;
    if (carry && carry->has_prefix) {
        m->mac_prefix = carry->prefix;
        return;
    }
    struct eth_addr ea;
    eth_addr_random(&ea);
    m->mac_prefix = eth_addr_zero;
    memcpy(m->mac_prefix.ea, ea.ea, 3);
}

static void OVS_PRINTF_FORMAT(2, 3)
report(struct ls_model *m, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *msg = xvasprintf(format, args);
    va_end(args);
    ls_model_report_bad_row(m, msg);
    free(msg);
}

/* Splits 'ips' into tokens: runs of digits and dots ("..": a token of its
 * own) and runs of anything else but spaces (always an error). */
static char *
next_exclude_token(const char **sp)
{
    const char *s = *sp;
    while (isspace((unsigned char) *s)) {
        s++;
    }
    if (!*s) {
        *sp = s;
        return NULL;
    }
    const char *start = s;
    if (s[0] == '.' && s[1] == '.') {
        s += 2;
    } else if (isdigit((unsigned char) *s) || *s == '.') {
        while ((isdigit((unsigned char) *s) || *s == '.')
               && !(s[0] == '.' && s[1] == '.')) {
            s++;
        }
    } else {
        while (*s && !isspace((unsigned char) *s)
               && !isdigit((unsigned char) *s)) {
            s++;
        }
    }
    *sp = s;
    return xmemdup0(start, s - start);
}

static bool
parse_ip4(const char *s, uint32_t *ip)
{
    ovs_be32 be;
    if (!s || !ip_parse(s, &be)) {
        return false;
    }
    *ip = ntohl(be);
    return true;
}

/* Marks the addresses listed in other_config:exclude_ips as used.  Like
 * 23.03, a syntax error ends the list (what came before stays excluded);
 * an address or range outside the subnet, or backwards, is skipped. */
static void
exclude_ips(struct ls_model *m, struct ipam_switch *sw, const char *ips)
{
    const struct nb_logical_switch *ls = sw->dp->nb;
    const char *s = ips;
    char *tok;
    while ((tok = next_exclude_token(&s))) {
        uint32_t lo, hi;
        if (!parse_ip4(tok, &lo)) {
            report(m, "Logical_Switch %s: other_config:exclude_ips \"%s\": "
                   "\"%s\" is not an IPv4 address, ignoring it and what "
                   "follows", ls->name, ips, tok);
            free(tok);
            return;
        }
        free(tok);
        hi = lo;
        const char *save = s;
        tok = next_exclude_token(&s);
        if (tok && !strcmp(tok, "..")) {
            free(tok);
            tok = next_exclude_token(&s);
            if (!parse_ip4(tok, &hi)) {
                report(m, "Logical_Switch %s: other_config:exclude_ips "
                       "\"%s\": a range must end with an IPv4 address, "
                       "ignoring it and what follows", ls->name, ips);
                free(tok);
                return;
            }
            free(tok);
        } else {
            free(tok);
            s = save;
        }
        if (hi < lo) {
            report(m, "Logical_Switch %s: other_config:exclude_ips \"%s\": "
                   "range "IP_FMT".."IP_FMT" is backwards, ignoring it",
                   ls->name, ips, IP_ARGS(htonl(lo)), IP_ARGS(htonl(hi)));
        } else if (lo < sw->start || hi - sw->start >= sw->total) {
            char range[2 * INET_ADDRSTRLEN + 2];
            int n = snprintf(range, sizeof range, IP_FMT, IP_ARGS(htonl(lo)));
            if (hi != lo) {
                snprintf(range + n, sizeof range - n, ".."IP_FMT,
                         IP_ARGS(htonl(hi)));
            }
            report(m, "Logical_Switch %s: other_config:exclude_ips \"%s\": "
                   "%s is not in the subnet, ignoring it", ls->name, ips,
                   range);
        } else {
            bitmap_set_multiple(sw->used, lo - sw->start, hi - lo + 1, true);
        }
    }
}

/* Reads the IPAM settings of 'sw->dp''s switch.  Bad ones are reported,
 * naming the switch, and left out. */
static void
switch_init(struct ls_model *m, struct ipam_switch *sw)
{
    const struct nb_logical_switch *ls = sw->dp->nb;
    const struct smap *oc = &ls->other_config;

    const char *subnet = smap_get(oc, "subnet");
    if (subnet) {
        ovs_be32 ip;
        unsigned int plen;
        char *error = ip_parse_cidr(subnet, &ip, &plen);
        if (error || plen < IPAM_MIN_PLEN || plen > 31) {
            report(m, "Logical_Switch %s ("UUID_FMT"): bad "
                   "other_config:subnet \"%s\"%s%s, allocating no IPv4 "
                   "addresses", ls->name, UUID_ARGS(&ls->header_.uuid),
                   subnet, error ? ": " : "",
                   error ? error : " (prefix length must be 8 to 31)");
            free(error);
        } else {
            uint32_t mask = ~0u << (32 - plen);
            sw->v4 = true;
            sw->start = (ntohl(ip) & mask) + 1;
            sw->total = ~mask;
            sw->used = bitmap_allocate(sw->total);
            bitmap_set1(sw->used, 0);   /* Kept for a router. */
            const char *ex = smap_get(oc, "exclude_ips");
            if (ex) {
                exclude_ips(m, sw, ex);
            }
        }
    }

    const char *prefix = smap_get(oc, "ipv6_prefix");
    if (prefix) {
        struct in6_addr ip6;
        unsigned int plen = 64;
        char *error = (strchr(prefix, '/')
                       ? ipv6_parse_cidr(prefix, &ip6, &plen)
                       : !ipv6_parse(prefix, &ip6)
                       ? xstrdup("not an IPv6 address") : NULL);
        if (!error && plen != 64) {
            error = xstrdup("the prefix length must be 64");
        }
        if (error) {
            report(m, "Logical_Switch %s ("UUID_FMT"): bad "
                   "other_config:ipv6_prefix \"%s\": %s, allocating no "
                   "IPv6 addresses", ls->name, UUID_ARGS(&ls->header_.uuid),
                   prefix, error);
            free(error);
        } else {
            struct in6_addr mask = ipv6_create_mask(64);
            sw->v6 = true;
            sw->prefix = ipv6_addr_bitand(&ip6, &mask);
        }
    }

    sw->mac_only = smap_get_bool(oc, "mac_only", false);
}

static bool
switch_active(const struct ipam_switch *sw)
{
    return sw->v4 || sw->v6 || sw->mac_only;
}

/* Fills 'ip' from the dynamic entry 's' of port 'p'.  Returns false if 's'
 * is not a request IPAM follows ("MAC dynamic" with addresses, say). */
static bool
parse_request(const char *s, struct ipam_port *ip)
{
    enum lsp_addr_kind kind;
    struct lsp_addresses la;
    char *error = lsp_addresses_parse(s, &kind, &la);
    if (error || kind != LSP_ADDR_DYNAMIC) {
        free(error);
        if (!error) {
            lsp_addresses_destroy(&la);
        }
        return false;
    }
    bool ok = true;
    if (!strncmp(s, "dynamic", 7)) {
        lsp_addresses_destroy(&la);
        if (s[7]) {
            /* "dynamic IPv4 [IPv6]": parse the addresses behind a
             * placeholder MAC. */
            char *copy = xasprintf("00:00:00:00:00:00%s", s + 7);
            error = lsp_addresses_parse(copy, &kind, &la);
            free(copy);
            if (error) {
                free(error);
                return false;
            }
            if (la.n_ipv4) {
                ip->has_ip4 = true;
                ip->ip4_req = la.ipv4[0].addr;
            }
            if (la.n_ipv6) {
                ip->has_ip6 = true;
                ip->ip6_req = la.ipv6[0].addr;
            }
            lsp_addresses_destroy(&la);
        }
    } else if (la.n_ipv4 || la.n_ipv6) {
        ok = false;             /* 23.03 allocates nothing for these. */
        lsp_addresses_destroy(&la);
    } else {
        ip->has_mac = true;
        ip->mac_req = la.ea;
        lsp_addresses_destroy(&la);
    }
    return ok;
}

static int
compare_ipam_ports(const void *a_, const void *b_)
{
    const struct ipam_port *a = a_;
    const struct ipam_port *b = b_;
    return uuid_compare_3way(&a->p->nb->header_.uuid,
                             &b->p->nb->header_.uuid);
}

/* Finds the ports of 'sw' with a dynamic entry, and marks the IPv4
 * addresses of every other entry on the switch as used. */
static void
switch_collect_ports(struct ls_model *m, struct ipam_switch *sw)
{
    struct ls_datapath *dp = sw->dp;
    sw->ports = xcalloc(MAX(dp->n_ports, 1), sizeof *sw->ports);
    struct ls_port *p;
    LIST_FOR_EACH (p, dp_node, &dp->ports) {
        if (sw->v4) {
            for (size_t i = 0; i < p->n_addrs; i++) {
                for (size_t j = 0; j < p->addrs[i].n_ipv4; j++) {
                    uint32_t a = ntohl(p->addrs[i].ipv4[j].addr);
                    if (a >= sw->start && a - sw->start < sw->total) {
                        bitmap_set1(sw->used, a - sw->start);
                    }
                }
            }
        }

        struct ipam_port ip = { .p = p };
        for (size_t i = 0; i < p->nb->n_addresses; i++) {
            const char *s = p->nb->addresses[i];
            struct ipam_port cand = { .p = p, .entry = s };
            if (!parse_request(s, &cand)) {
                continue;
            }
            if (ip.entry) {
                /* 23.03 uses the first, as this does. */
                report(m, "Logical_Switch_Port %s: more than one dynamic "
                       "entry in addresses, ignoring \"%s\"",
                       p->nb->name, s);
            } else {
                ip = cand;
            }
        }
        if (ip.entry) {
            sw->ports[sw->n_ports++] = ip;
        }
    }
    qsort(sw->ports, sw->n_ports, sizeof *sw->ports, compare_ipam_ports);
}

static bool
ip4_free(const struct ipam_switch *sw, uint32_t a)
{
    return (a >= sw->start && a - sw->start < sw->total - 1
            && !bitmap_is_set(sw->used, a - sw->start));
}

/* Keeps what the port has in dynamic_addresses where it is still valid, or
 * takes what it asks for. */
static void
port_keep(const struct ls_model *m, struct ipam_switch *sw,
          struct ipam_port *ip, struct hmap *macs,
          const struct ipam_carry *carry)
{
    const struct nb_logical_switch_port *nbp = ip->p->nb;
    const char *cur = nbp->dynamic_addresses;
    if (carry && !shash_is_empty(&carry->dynamic)
        && !rdb_row_is_updated(&nbp->header_,
                               NB_LOGICAL_SWITCH_PORT_COL_DYNAMIC_ADDRESSES)) {
        /* Unless someone else wrote the column since, what the last full
         * pass decided is what the NB is about to hold. */
        char key[UUID_LEN + 1];
        snprintf(key, sizeof key, UUID_FMT, UUID_ARGS(&nbp->header_.uuid));
        const char *saved = shash_find_data(&carry->dynamic, key);
        if (saved) {
            cur = saved[0] ? saved : NULL;
        }
    }
    struct lsp_addresses la;
    enum lsp_addr_kind kind;
    bool have = false;
    if (cur) {
        char *error = lsp_addresses_parse(cur, &kind, &la);
        if (!error && kind == LSP_ADDR_MAC_IPS) {
            have = true;
        } else if (!error) {
            lsp_addresses_destroy(&la);
        }
        free(error);
    }

    ip->fresh = !have;
    if (sw->v4) {
        /* A port gets the address it asks for, or else keeps the one it
         * has, if free (in row UUID order, as 23.03: a port that asks
         * for an address another port has takes it from a port after
         * it). */
        uint32_t a = (ip->has_ip4 ? ntohl(ip->ip4_req)
                      : have && la.n_ipv4 ? ntohl(la.ipv4[0].addr) : 0);
        if (a && ip4_free(sw, a)) {
            ip->ip4 = a;
            ip->ip4_set = true;
            bitmap_set1(sw->used, a - sw->start);
        } else {
            ip->need_ip4 = true;
        }
    }

    if (ip->has_mac) {
        ip->mac = ip->mac_req;
        ip->mac_set = true;
    } else if (have && !memcmp(la.ea.ea, m->mac_prefix.ea, 3)) {
        ip->mac = la.ea;
        ip->mac_set = true;
    }
    if (ip->mac_set) {
        mac_add(macs, ip->mac);
    }
    if (have) {
        lsp_addresses_destroy(&la);
    }
}

/* Allocates what 'ip' still lacks and sets its port's dynamic_addresses. */
static void
port_allocate(struct ls_model *m, struct ipam_switch *sw,
              struct ipam_port *ip, struct hmap *macs)
{
    struct ls_port *p = ip->p;
    if (ip->need_ip4) {
        size_t end = sw->total - 1;
        size_t off = end > 1 ? bitmap_scan(sw->used, false, 1, end) : end;
        if (off < end) {
            bitmap_set1(sw->used, off);
            ip->ip4 = sw->start + off;
            ip->ip4_set = true;
        } else {
            COVERAGE_INC(ipam_subnet_exhausted);
            if (!sw->exhausted_reported) {
                sw->exhausted_reported = true;
                report(m, "Logical_Switch %s: other_config:subnet \"%s\" "
                       "has no address left for some ports (they get a "
                       "MAC address only)", sw->dp->nb->name,
                       smap_get(&sw->dp->nb->other_config, "subnet"));
            }
        }
    }

    if (!ip->mac_set) {
        /* The suffix follows the port's IPv4 address, or the next free one
         * after it.  For a port that had no addresses yet, that is the
         * address it asks for, granted or not: 23.03 gives it that address
         * and its MAC first and moves it to a free address on its next
         * pass, keeping the MAC. */
        uint32_t base = (ip->fresh && ip->has_ip4 ? ntohl(ip->ip4_req)
                         : ip->ip4_set ? ip->ip4 : 0) & 0xffffff;
        uint64_t prefix = eth_addr_to_uint64(m->mac_prefix);
        for (uint32_t i = 0; i < IPAM_MAC_SUFFIXES; i++) {
            uint64_t mac = prefix | ((base + i) % IPAM_MAC_SUFFIXES + 1);
            if (!mac_used(macs, mac)) {
                eth_addr_from_uint64(mac, &ip->mac);
                ip->mac_set = true;
                mac_add(macs, ip->mac);
                break;
            }
        }
        if (!ip->mac_set) {
            report(m, "Logical_Switch_Port %s: no MAC address left under "
                   "prefix "ETH_ADDR_FMT, p->nb->name,
                   ETH_ADDR_ARGS(m->mac_prefix));
            return;
        }
    }

    struct ds s = DS_EMPTY_INITIALIZER;
    ds_put_format(&s, ETH_ADDR_FMT, ETH_ADDR_ARGS(ip->mac));
    if (ip->ip4_set) {
        ds_put_format(&s, " "IP_FMT, IP_ARGS(htonl(ip->ip4)));
    }
    struct in6_addr ip6;
    bool has_ip6 = false;
    if (sw->v6) {
        if (ip->has_ip6) {
            ip6 = ip->ip6_req;
        } else {
            in6_generate_eui64(ip->mac, &sw->prefix, &ip6);
        }
        has_ip6 = true;
    }
    if (has_ip6) {
        ds_put_char(&s, ' ');
        ipv6_format_addr(&ip6, &s);
    }

    const char *old = p->nb->dynamic_addresses;
    if (!old || strcmp(old, ds_cstr(&s))) {
        COVERAGE_INC(ipam_port_allocated);
    }
    free(p->dynamic_addresses);
    p->dynamic_addresses = ds_steal_cstr(&s);

    /* Used like a static entry from now on. */
    enum lsp_addr_kind kind;
    p->addrs = xrealloc(p->addrs, (p->n_addrs + 1) * sizeof *p->addrs);
    char *error = lsp_addresses_parse(p->dynamic_addresses, &kind,
                                      &p->addrs[p->n_addrs]);
    ovs_assert(!error && kind == LSP_ADDR_MAC_IPS);
    p->n_addrs++;
}

void
ipam_carry_init(struct ipam_carry *c)
{
    shash_init(&c->dynamic);
    c->has_prefix = false;
    c->prefix = eth_addr_zero;
}

void
ipam_carry_save(struct ipam_carry *c, const struct ls_model *m)
{
    const struct ls_port *p;
    HMAP_FOR_EACH (p, name_node, &m->ports) {
        if (!ipam_port_in_step(p)) {
            char key[UUID_LEN + 1];
            snprintf(key, sizeof key, UUID_FMT,
                     UUID_ARGS(&p->nb->header_.uuid));
            shash_add(&c->dynamic, key, xstrdup(p->dynamic_addresses
                                                ? p->dynamic_addresses
                                                : ""));
        }
    }
    if (m->mac_prefix_new) {
        c->has_prefix = true;
        c->prefix = m->mac_prefix;
    }
}

void
ipam_carry_destroy(struct ipam_carry *c)
{
    shash_destroy_free_data(&c->dynamic);
}

void
ipam_run(struct ls_model *m, struct rdb *nb, const struct ipam_carry *carry)
{
    choose_mac_prefix(m, nb_nb_global_first(nb), carry);

    struct ipam_switch *switches = xcalloc(MAX(m->n_datapaths, 1),
                                           sizeof *switches);
    size_t n_active = 0;
    for (size_t i = 0; i < m->n_datapaths; i++) {
        struct ipam_switch *sw = &switches[n_active];
        sw->dp = m->dp_array[i];
        if (!ipam_switch_enabled(sw->dp->nb)) {
            continue;
        }
        switch_init(m, sw);
        if (switch_active(sw)) {
            switch_collect_ports(m, sw);
            if (sw->n_ports) {
                n_active++;
                continue;
            }
        }
        free(sw->ports);
        bitmap_free(sw->used);
        memset(sw, 0, sizeof *sw);
    }

    if (n_active) {
        /* Every MAC a port has statically, on any switch. */
        struct hmap macs = HMAP_INITIALIZER(&macs);
        struct ls_port *p;
        HMAP_FOR_EACH (p, name_node, &m->ports) {
            for (size_t i = 0; i < p->n_addrs; i++) {
                mac_add(&macs, p->addrs[i].ea);
            }
        }
        for (size_t i = 0; i < n_active; i++) {
            for (size_t j = 0; j < switches[i].n_ports; j++) {
                port_keep(m, &switches[i], &switches[i].ports[j], &macs,
                          carry);
            }
        }
        for (size_t i = 0; i < n_active; i++) {
            for (size_t j = 0; j < switches[i].n_ports; j++) {
                port_allocate(m, &switches[i], &switches[i].ports[j], &macs);
            }
        }
        struct mac_node *n;
        HMAP_FOR_EACH_POP (n, node, &macs) {
            free(n);
        }
        hmap_destroy(&macs);
    }

    for (size_t i = 0; i < n_active; i++) {
        free(switches[i].ports);
        bitmap_free(switches[i].used);
    }
    free(switches);
}

bool
ipam_is_own_mac_prefix(const struct ls_model *m, const char *mac_prefix)
{
    struct eth_addr prefix;
    return (m->mac_prefix_new && mac_prefix
            && parse_mac_prefix(mac_prefix, &prefix)
            && !memcmp(prefix.ea, m->mac_prefix.ea, 3));
}

void
ipam_mac_prefix_written(struct ls_model *m)
{
    m->mac_prefix_new = false;
}

bool
ipam_new_mac_prefix(const struct ls_model *m, char buf[9])
{
    if (!m->mac_prefix_new) {
        return false;
    }
    snprintf(buf, 9, "%02"PRIx8":%02"PRIx8":%02"PRIx8,
             m->mac_prefix.ea[0], m->mac_prefix.ea[1], m->mac_prefix.ea[2]);
    return true;
}

void
ipam_sync_nb(const struct ls_model *m, struct rdb_txn *nb_txn)
{
    const struct ls_port *p;
    HMAP_FOR_EACH (p, name_node, &m->ports) {
        if (!ipam_port_in_step(p)) {
            rdb_txn_update(nb_txn, &nb_table_logical_switch_port,
                           &p->nb->header_.uuid);
            rdb_txn_set_string(nb_txn,
                               NB_LOGICAL_SWITCH_PORT_COL_DYNAMIC_ADDRESSES,
                               p->dynamic_addresses);
        }
    }
}

bool
ipam_switch_enabled(const struct nb_logical_switch *ls)
{
    const struct smap *oc = &ls->other_config;
    return (smap_get(oc, "subnet") || smap_get(oc, "ipv6_prefix")
            || smap_get_bool(oc, "mac_only", false));
}

bool
ipam_lsp_is_dynamic(const struct nb_logical_switch_port *nbp)
{
    if (nbp->dynamic_addresses) {
        return true;
    }
    for (size_t i = 0; i < nbp->n_addresses; i++) {
        if (strstr(nbp->addresses[i], "dynamic")) {
            return true;
        }
    }
    return false;
}

bool
ipam_port_is_dynamic(const struct ls_port *p)
{
    return p->dynamic_addresses || ipam_lsp_is_dynamic(p->nb);
}

/* Whether dynamic port 'q' holds what a full pass would let it keep
 * whatever the static addresses around it: NB and model agree, it has an
 * address of every family its switch allocates, and the IPv4 address it
 * asked for, if any, is the one it has. */
static bool
port_settled(const struct ls_port *q, bool v4)
{
    if (!ipam_port_in_step(q)) {
        return false;
    }
    if (!q->dynamic_addresses) {
        /* Asks, but got nothing: a freed address or MAC may be its. */
        return !ipam_lsp_is_dynamic(q->nb);
    }
    const struct lsp_addresses *got = &q->addrs[q->n_addrs - 1];
    if (v4 && !got->n_ipv4) {
        return false;
    }
    for (size_t i = 0; i < q->nb->n_addresses; i++) {
        struct ipam_port req = { .p = NULL };
        if (parse_request(q->nb->addresses[i], &req)) {
            return !req.has_ip4 || (got->n_ipv4
                                    && req.ip4_req == got->ipv4[0].addr);
        }
    }
    return true;
}

bool
ipam_static_change_is_free(const struct ls_datapath *dp,
                           const struct ls_port *self,
                           const struct lsp_addresses *addrs, size_t n_addrs)
{
    if (!ipam_switch_enabled(dp->nb)) {
        return true;
    }
    bool v4 = smap_get(&dp->nb->other_config, "subnet") != NULL;
    const struct ls_port *q;
    LIST_FOR_EACH (q, dp_node, &dp->ports) {
        if (q == self || !ipam_port_is_dynamic(q)) {
            continue;
        }
        if (!port_settled(q, v4)) {
            return false;
        }
        const struct lsp_addresses *got = &q->addrs[q->n_addrs - 1];
        if (!got->n_ipv4) {
            continue;
        }
        for (size_t i = 0; i < n_addrs; i++) {
            for (size_t j = 0; j < addrs[i].n_ipv4; j++) {
                if (addrs[i].ipv4[j].addr == got->ipv4[0].addr) {
                    return false;
                }
            }
        }
    }
    return true;
}

bool
ipam_port_in_step(const struct ls_port *p)
{
    const char *want = p->dynamic_addresses;
    const char *have = p->nb->dynamic_addresses;
    return want ? have && !strcmp(want, have) : !have;
}
