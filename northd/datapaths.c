/* Logical switches and ports, and their SB bindings; see datapaths.h. */
#include <config.h>
#include "northd/datapaths.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "coverage.h"
#include "hash.h"
#include "hmapx.h"
#include "lib/lsp-types.h"
#include "lib/mappack.h"
#include "lib/nb-rdb.h"
#include "lib/sb-rdb.h"
#include "lib/strpack.h"
#include "lib/tnlid.h"
#include "northd/ha-groups.h"
#include "northd/ipam.h"
#include "northd/mcast.h"
#include "northd/router.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "smap.h"
#include "sset.h"
#include "svec.h"
#include "util.h"
#include "uuid.h"

VLOG_DEFINE_THIS_MODULE(datapaths);

COVERAGE_DEFINE(datapath_created);
COVERAGE_DEFINE(datapath_deleted);
COVERAGE_DEFINE(port_binding_created);
COVERAGE_DEFINE(port_binding_deleted);
COVERAGE_DEFINE(bad_nb_row);
COVERAGE_DEFINE(mc_group_mutated);

/* A backstop for a flood of distinct problems, e.g. a script gone wrong. */
static struct vlog_rate_limit bad_row_rl = VLOG_RATE_LIMIT_INIT(20, 100);

/* Records a problem with an NB row; the message names the row. */
static void OVS_PRINTF_FORMAT(2, 3)
report_bad_row(struct ls_model *m, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *msg = xvasprintf(format, args);
    va_end(args);

    COVERAGE_INC(bad_nb_row);
    m->n_bad_rows++;
    if (!m->quiet && m->reported && !sset_contains(m->reported, msg)) {
        VLOG_WARN_RL(&bad_row_rl, "%s", msg);
    }
    sset_add(&m->problems, msg);
    free(msg);
}

void
ls_model_report_bad_row(struct ls_model *m, const char *msg)
{
    report_bad_row(m, "%s", msg);
}

void
ls_model_init(struct ls_model *m)
{
    hmap_init(&m->datapaths);
    hmap_init(&m->ports);
    hmap_init(&m->ports_by_dhcp[0]);
    hmap_init(&m->ports_by_dhcp[1]);
    hmap_init(&m->igmp_by_dp);
    m->igmp_indexed = false;
    m->dp_array = NULL;
    m->n_datapaths = 0;
    m->dp_cap = 0;
    m->sw_cap = 0;
    m->lr = NULL;
    m->n_bad_rows = 0;
    m->ipam_carry = NULL;
    m->new_dps = NULL;
    m->n_new_dps = 0;
    m->new_ports = NULL;
    m->n_new_ports = m->allocated_new_ports = 0;
    sset_init(&m->problems);
    m->reported = NULL;
    m->quiet = false;
    m->check_lsp_up = false;
    m->sb_db = NULL;
    shash_init(&m->chassis_by_name);
    shash_init(&m->ha_group_uuids);
    shash_init(&m->chassis_by_hostname);
    m->chassis_indexed = false;
}

static void
ls_port_destroy(struct ls_port *p)
{
    for (size_t i = 0; i < p->n_addrs; i++) {
        lsp_addresses_destroy(&p->addrs[i]);
    }
    free(p->addrs);
    for (size_t i = 0; i < p->n_ps_addrs; i++) {
        lsp_addresses_destroy(&p->ps_addrs[i]);
    }
    free(p->ps_addrs);
    free(p->dynamic_addresses);
    lflow_owner_destroy(&p->owner);
    lflow_owner_destroy(&p->dhcp_owner);
    free(p);
}

static void clear_igmp_index(struct ls_model *);

void
ls_model_destroy(struct ls_model *m)
{
    if (!m) {
        return;
    }
    struct ls_port *p;
    HMAP_FOR_EACH_POP (p, name_node, &m->ports) {
        ls_port_destroy(p);
    }
    hmap_destroy(&m->ports);
    hmap_destroy(&m->ports_by_dhcp[0]);
    hmap_destroy(&m->ports_by_dhcp[1]);
    clear_igmp_index(m);
    hmap_destroy(&m->igmp_by_dp);

    struct ls_datapath *dp;
    HMAP_FOR_EACH_POP (dp, uuid_node, &m->datapaths) {
        lflow_owner_destroy(&dp->owner);
        lflow_owner_destroy(&dp->dhcp_owner);
        free(dp);
    }
    lr_model_destroy(m->lr);
    m->lr = NULL;
    free(m->new_dps);
    free(m->new_ports);
    hmap_destroy(&m->datapaths);
    free(m->dp_array);
    sset_destroy(&m->problems);
    shash_destroy(&m->chassis_by_name);
    shash_destroy_free_data(&m->ha_group_uuids);
    shash_destroy(&m->chassis_by_hostname);
}

struct ls_datapath *
ls_model_find_datapath(const struct ls_model *m, const struct uuid *nb_uuid)
{
    struct ls_datapath *dp;
    HMAP_FOR_EACH_WITH_HASH (dp, uuid_node, uuid_hash(nb_uuid),
                             &m->datapaths) {
        if (uuid_equals(&dp->nb->header_.uuid, nb_uuid)) {
            return dp;
        }
    }
    return NULL;
}

size_t
ls_model_n_all(const struct ls_model *m)
{
    return m->n_datapaths + (m->lr ? m->lr->n_routers : 0);
}

struct ls_datapath *
ls_model_dp_at(const struct ls_model *m, size_t i)
{
    return (i < m->n_datapaths ? m->dp_array[i]
            : m->lr->routers[i - m->n_datapaths].dp);
}

const struct uuid *
ls_datapath_nb_uuid(const struct ls_datapath *dp)
{
    return dp->router ? &dp->router->nb->header_.uuid : &dp->nb->header_.uuid;
}

struct ls_datapath *
ls_model_find_any_datapath(const struct ls_model *m,
                           const struct uuid *nb_uuid)
{
    struct ls_datapath *dp = ls_model_find_datapath(m, nb_uuid);
    for (size_t i = 0; !dp && m->lr && i < m->lr->n_routers; i++) {
        if (uuid_equals(&m->lr->routers[i].nb->header_.uuid, nb_uuid)) {
            dp = m->lr->routers[i].dp;
        }
    }
    return dp;
}

struct ls_datapath *
ls_model_find_sb_owner(const struct ls_model *m,
                       const struct sb_datapath_binding *sb)
{
    struct uuid u;
    if (smap_get_uuid(&sb->external_ids, "logical-switch", &u)) {
        return ls_model_find_datapath(m, &u);
    }
    if (m->lr && smap_get_uuid(&sb->external_ids, "logical-router", &u)) {
        struct ls_datapath *dp = ls_model_find_any_datapath(m, &u);
        return dp && dp->router ? dp : NULL;
    }
    return NULL;
}

bool
ls_model_port_touches_router(const struct ls_model *m,
                             const struct nb_logical_switch_port *nbp)
{
    return lr_model_lsp_touches(m->lr, nbp);
}

/* A datapath's name and the options that may request its tunnel key. */
static const char *
dp_name(const struct ls_datapath *dp)
{
    return dp->router ? lr_router_name(dp->router) : dp->nb->name;
}

static const struct smap *
dp_key_options(const struct ls_datapath *dp)
{
    return dp->router ? lr_router_options(dp->router) : &dp->nb->other_config;
}

struct ls_port *
ls_model_find_port(const struct ls_model *m, const char *name)
{
    struct ls_port *p;
    HMAP_FOR_EACH_WITH_HASH (p, name_node, hash_string(name, 0), &m->ports) {
        if (!strcmp(p->nb->name, name)) {
            return p;
        }
    }
    return NULL;
}

static int
compare_switches(const void *a_, const void *b_)
{
    const struct nb_logical_switch *const *a = a_;
    const struct nb_logical_switch *const *b = b_;
    return uuid_compare_3way(&(*a)->header_.uuid, &(*b)->header_.uuid);
}

/* Returns the tunnel key requested in 'smap' under "requested-tnl-key", or
 * 0 if none is requested or the request is out of [min, max]. */
static uint32_t
requested_key(struct ls_model *m, const struct smap *smap, uint32_t min,
              uint32_t max, const char *what, const char *name)
{
    const char *s = smap_get(smap, "requested-tnl-key");
    if (!s) {
        return 0;
    }
    char *end;
    unsigned long long k = strtoull(s, &end, 10);
    if (*end || k < min || k > max) {
        report_bad_row(m, "%s %s: requested-tnl-key \"%s\" is not "
                       "an integer in %"PRIu32"..%"PRIu32", ignoring it",
                       what, name, s, min, max);
        return 0;
    }
    return k;
}

/* Assigns datapath tunnel keys: requested keys first, then keys already in
 * the SB, then new ones, so existing datapaths never change keys unless
 * asked to. */
static void
assign_datapath_keys(struct ls_model *m)
{
    struct tnlid_set keys;
    tnlid_set_init(&keys, LS_DP_KEY_MIN, LS_DP_KEY_MAX);

    /* Requested keys.  If several switches request the same key, the one
     * that already has it keeps it, so that a conflicting request never
     * moves a working datapath; otherwise the first in UUID order wins. */
    for (size_t i = 0; i < ls_model_n_all(m); i++) {
        struct ls_datapath *dp = ls_model_dp_at(m, i);
        dp->tunnel_key = requested_key(m, dp_key_options(dp),
                                       LS_DP_KEY_MIN, LS_DP_KEY_MAX,
                                       dp->router ? "Logical_Router"
                                       : "Logical_Switch", dp_name(dp));
    }
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < ls_model_n_all(m); i++) {
            struct ls_datapath *dp = ls_model_dp_at(m, i);
            uint32_t k = dp->tunnel_key;
            bool holder = dp->sb && dp->sb->tunnel_key == k;
            if (!k || holder != (pass == 0)) {
                continue;
            }
            if (!tnlid_reserve(&keys, k)) {
                report_bad_row(m, "%s %s: requested tunnel key "
                               "%"PRIu32" is already in use",
                               dp->router ? "Logical_Router"
                               : "Logical_Switch", dp_name(dp), k);
                dp->tunnel_key = 0;
            }
        }
    }
    for (size_t i = 0; i < ls_model_n_all(m); i++) {
        struct ls_datapath *dp = ls_model_dp_at(m, i);
        if (!dp->tunnel_key && dp->sb
            && dp->sb->tunnel_key >= LS_DP_KEY_MIN
            && dp->sb->tunnel_key <= LS_DP_KEY_MAX
            && tnlid_reserve(&keys, dp->sb->tunnel_key)) {
            dp->tunnel_key = dp->sb->tunnel_key;
        }
    }
    for (size_t i = 0; i < ls_model_n_all(m); i++) {
        struct ls_datapath *dp = ls_model_dp_at(m, i);
        if (!dp->tunnel_key) {
            dp->tunnel_key = tnlid_allocate(&keys);
            if (!dp->tunnel_key) {
                report_bad_row(m, "%s %s: all datapath tunnel keys are in "
                               "use", dp->router ? "Logical_Router"
                               : "Logical_Switch", dp_name(dp));
            }
        }
    }
    tnlid_set_destroy(&keys);
}

/* Same as assign_datapath_keys(), for the ports of one datapath.  A port
 * that moved from another switch gets a new key. */
static void
assign_port_keys(struct ls_model *m, struct ls_datapath *dp)
{
    struct tnlid_set keys;
    tnlid_set_init(&keys, LS_PORT_KEY_MIN, LS_PORT_KEY_MAX);

    struct ls_port *p;
    LIST_FOR_EACH (p, dp_node, &dp->ports) {
        p->tunnel_key = requested_key(m, &p->nb->options, LS_PORT_KEY_MIN,
                                      LS_PORT_KEY_MAX, "Logical_Switch_Port",
                                      p->nb->name);
    }
    for (int pass = 0; pass < 2; pass++) {
        LIST_FOR_EACH (p, dp_node, &dp->ports) {
            uint32_t k = p->tunnel_key;
            bool holder = (p->sb && dp->sb && p->sb->datapath == dp->sb
                           && p->sb->tunnel_key == k);
            if (!k || holder != (pass == 0)) {
                continue;
            }
            if (!tnlid_reserve(&keys, k)) {
                report_bad_row(m, "Logical_Switch_Port %s: requested tunnel "
                               "key %"PRIu32" is already in use on switch "
                               "%s", p->nb->name, k, dp->nb->name);
                p->tunnel_key = 0;
            }
        }
    }
    LIST_FOR_EACH (p, dp_node, &dp->ports) {
        if (!p->tunnel_key && p->sb && dp->sb && p->sb->datapath == dp->sb
            && p->sb->tunnel_key >= LS_PORT_KEY_MIN
            && p->sb->tunnel_key <= LS_PORT_KEY_MAX
            && tnlid_reserve(&keys, p->sb->tunnel_key)) {
            p->tunnel_key = p->sb->tunnel_key;
        }
    }
    LIST_FOR_EACH (p, dp_node, &dp->ports) {
        if (!p->tunnel_key) {
            p->tunnel_key = tnlid_allocate(&keys);
            if (!p->tunnel_key) {
                report_bad_row(m, "Logical_Switch_Port %s: all port "
                               "tunnel keys of switch %s are in use",
                               p->nb->name, dp->nb->name);
            }
        }
    }
    tnlid_set_destroy(&keys);
}


/* The DHCPv4 (0) or DHCPv6 (1) options row 'p''s NB row refers to. */
static const void *
port_dhcp_row(const struct ls_port *p, int i)
{
    return i ? (const void *) p->nb->dhcpv6_options
             : (const void *) p->nb->dhcpv4_options;
}

/* Indexes 'p' by the DHCP options rows it uses now. */
static void
index_port_dhcp(struct ls_model *m, struct ls_port *p)
{
    for (int i = 0; i < 2; i++) {
        const void *row = port_dhcp_row(p, i);
        if (row) {
            hmap_insert(&m->ports_by_dhcp[i], &p->dhcp_nodes[i],
                        hash_pointer(row, 0));
            p->dhcp_indexed |= 1u << i;
        }
    }
}

/* Takes 'p' out of the index (each node keeps its own hash: the rows it
 * was indexed by may have changed since). */
static void
unindex_port_dhcp(struct ls_model *m, struct ls_port *p)
{
    for (int i = 0; i < 2; i++) {
        if (p->dhcp_indexed & (1u << i)) {
            hmap_remove(&m->ports_by_dhcp[i], &p->dhcp_nodes[i]);
        }
    }
    p->dhcp_indexed = 0;
}

void
ls_model_ports_using_dhcp(const struct ls_model *m, const void *row,
                          struct hmapx *ports)
{
    uint32_t hash = hash_pointer(row, 0);
    for (int i = 0; i < 2; i++) {
        struct ls_port *p;
        HMAP_FOR_EACH_WITH_HASH (p, dhcp_nodes[i], hash,
                                 &m->ports_by_dhcp[i]) {
            if (port_dhcp_row(p, i) == row) {
                hmapx_add(ports, p);
            }
        }
    }
}

/* Parses 'n' address strings into '*out'.  Bad entries are logged, naming
 * the port and column, and left out; an entry whose MAC is good but an
 * address is not is logged and kept with the addresses before that one
 * (lsp_addresses_parse_partial()). */
static void
parse_port_addresses(struct ls_model *m, const char *port, const char *column,
                     char **strings, size_t n, struct lsp_addresses **out,
                     size_t *n_out, bool *has_unknown)
{
    *out = xcalloc(n ? n : 1, sizeof **out);
    *n_out = 0;
    for (size_t i = 0; i < n; i++) {
        enum lsp_addr_kind kind;
        char *partial;
        char *error = lsp_addresses_parse_partial(strings[i], &kind,
                                                  &(*out)[*n_out], &partial);
        if (error) {
            report_bad_row(m, "Logical_Switch_Port %s: ignoring %s "
                           "entry \"%s\": %s", port, column, strings[i],
                           error);
            free(error);
            continue;
        }
        if (partial) {
            /* As the stock ovn-northd does: the entry stands for its MAC
             * and the addresses before the bad one. */
            report_bad_row(m, "Logical_Switch_Port %s: %s entry \"%s\": "
                           "%s, using only the MAC and the addresses "
                           "before it", port, column, strings[i], partial);
            free(partial);
        }
        if (kind == LSP_ADDR_MAC_IPS) {
            (*n_out)++;
        } else if (kind == LSP_ADDR_UNKNOWN && has_unknown) {
            *has_unknown = true;
        } else if (kind == LSP_ADDR_DYNAMIC) {
            /* IPAM's (northd/ipam.h) are added by ipam_run(). */
            lsp_addresses_destroy(&(*out)[*n_out]);
        }
    }
}

int
ls_port_row_compare(const void *a_, const void *b_)
{
    const struct nb_logical_switch_port *const *a = a_;
    const struct nb_logical_switch_port *const *b = b_;
    int cmp = strcmp((*a)->name, (*b)->name);
    return cmp ? cmp : uuid_compare_3way(&(*a)->header_.uuid,
                                         &(*b)->header_.uuid);
}

/* Reports what of virtual port 'nbp''s options on switch 'dp' gives no
 * bind_vport flow (northd/l2.c): a virtual-ip that is not an address, a
 * virtual parent that is not a port of the switch. */
static void
check_virtual_port(struct ls_model *m, const struct ls_datapath *dp,
                   const struct nb_logical_switch_port *nbp)
{
    const char *vip = smap_get(&nbp->options, "virtual-ip");
    const char *parents = smap_get(&nbp->options, "virtual-parents");
    ovs_be32 ip4;
    struct in6_addr ip6;
    if (!vip || !parents) {
        report_bad_row(m, "Logical_Switch_Port %s: a virtual port needs "
                       "options:virtual-ip and options:virtual-parents, "
                       "no bind_vport flows", nbp->name);
        return;
    }
    if (!ip_parse(vip, &ip4) && !ipv6_parse(vip, &ip6)) {
        report_bad_row(m, "Logical_Switch_Port %s: virtual-ip \"%s\" is not "
                       "an IP address, no bind_vport flows", nbp->name, vip);
        return;
    }
    char *list = xstrdup(parents);
    char *save = NULL;
    for (char *name = strtok_r(list, ",", &save); name;
         name = strtok_r(NULL, ",", &save)) {
        bool found = false;
        for (size_t i = 0; i < dp->nb->n_ports && !found; i++) {
            found = !strcmp(dp->nb->ports[i]->name, name);
        }
        if (!found) {
            report_bad_row(m, "Logical_Switch_Port %s: virtual parent \"%s\" "
                           "is not a port of switch %s, no bind_vport flow "
                           "for it", nbp->name, name, dp->nb->name);
        }
    }
    free(list);
}

struct ls_port *
ls_datapath_find_port(const struct ls_datapath *dp, const char *name)
{
    struct ls_port *p;
    LIST_FOR_EACH (p, dp_node, &dp->ports) {
        if (!strcmp(p->nb->name, name)) {
            return p;
        }
    }
    return NULL;
}

/* Ports are visited by name, so new ones get tunnel keys in a predictable
 * order and the same NB always yields the same SB. */
static void
build_ports(struct ls_model *m, struct ls_datapath *dp,
            const struct shash *sb_ports)
{
    size_t n_ports = dp->nb->n_ports;
    const struct nb_logical_switch_port **sorted
        = xmalloc((n_ports ? n_ports : 1) * sizeof *sorted);
    /* An empty switch has no ports array: memcpy() must not see NULL. */
    nullable_memcpy(sorted, dp->nb->ports, n_ports * sizeof *sorted);
    qsort(sorted, n_ports, sizeof *sorted, ls_port_row_compare);

    for (size_t i = 0; i < n_ports; i++) {
        const struct nb_logical_switch_port *nbp = sorted[i];
        struct ls_port *other = ls_model_find_port(m, nbp->name);
        if (other) {
            report_bad_row(m, "Logical_Switch_Port %s ("UUID_FMT") "
                           "on switch %s: duplicate port name (already on "
                           "switch %s), ignoring this one", nbp->name,
                           UUID_ARGS(&nbp->header_.uuid), dp->nb->name,
                           other->dp->nb->name);
            continue;
        }
        if (!lsp_type_is_known(nbp->type)) {
            /* The NB map's value check reports it (northd/nb-report.h),
             * in the log and "northd/not-compiled". */
            COVERAGE_INC(bad_nb_row);
            m->n_bad_rows++;
            continue;
        }

        struct ls_port *p = xzalloc(sizeof *p);
        lflow_owner_init(&p->owner);
        lflow_owner_init(&p->dhcp_owner);
        p->nb = nbp;
        p->dp = dp;
        p->sb = shash_find_data(sb_ports, nbp->name);
        if (p->sb) {
            p->sb_uuid = p->sb->header_.uuid;
        }
        p->enabled = !nbp->n_enabled || nbp->enabled[0];
        parse_port_addresses(m, nbp->name, "addresses", nbp->addresses,
                             nbp->n_addresses, &p->addrs, &p->n_addrs,
                             &p->has_unknown);
        parse_port_addresses(m, nbp->name, "port_security",
                             nbp->port_security, nbp->n_port_security,
                             &p->ps_addrs, &p->n_ps_addrs, NULL);
        if (!strcmp(nbp->type, "virtual")) {
            check_virtual_port(m, dp, nbp);
        }
        p->up = ls_port_compute_up(p);
        hmap_insert(&m->ports, &p->name_node, hash_string(nbp->name, 0));
        index_port_dhcp(m, p);
        ovs_list_push_back(&dp->ports, &p->dp_node);
        dp->n_ports++;
    }
    free(sorted);
}

#define TAG_MIN 1
#define TAG_MAX 4095

static bool
is_container_port(const struct nb_logical_switch_port *nbp)
{
    return nbp->parent_name && nbp->parent_name[0];
}

/* Returns the set of tags used under 'parent' in 'by_parent', creating it
 * if needed. */
static unsigned long *
parent_tags(struct shash *by_parent, const char *parent)
{
    unsigned long *tags = shash_find_data(by_parent, parent);
    if (!tags) {
        tags = bitmap_allocate(TAG_MAX + 1);
        shash_add(by_parent, parent, tags);
    }
    return tags;
}

/* Egress queues of ports with QoS options (ls_port 'queue_id'). */

#define QUEUE_ID_MIN 1
#define QUEUE_ID_MAX 0xf000

static bool
port_has_qos(const struct nb_logical_switch_port *nbp)
{
    return (smap_get(&nbp->options, "qos_max_rate")
            || smap_get(&nbp->options, "qos_min_rate")
            || smap_get(&nbp->options, "qos_burst"));
}

/* The queue 'p' keeps, 0 if none: the one its binding has, while it has
 * QoS options. */
static uint32_t
port_kept_queue(const struct ls_port *p)
{
    if (!p->sb || !port_has_qos(p->nb)) {
        return 0;
    }
    int id = smap_get_int(&p->sb->options, "qdisc_queue_id", 0);
    return id > 0 ? id : 0;
}

/* Whether 'p' needs a queue it does not have; if so, '*chassis' is the
 * chassis whose queues it comes from, NULL for a localnet port (each
 * has its own: its first queue). */
static bool
port_wants_queue(const struct ls_port *p, const struct sb_chassis **chassis)
{
    *chassis = NULL;
    if (p->queue_id || !port_has_qos(p->nb)) {
        return false;
    }
    if (!strcmp(p->nb->type, "localnet")) {
        return true;
    }
    *chassis = p->sb ? p->sb->chassis : NULL;
    return *chassis != NULL;
}

/* The chassis whose queue numbers 'p''s queue is one of: a bound VIF's
 * chassis; NULL for a port without a queue (or one out of range), a
 * localnet port (its queue is its own) or an unbound VIF. */
static const struct sb_chassis *
queue_chassis(const struct ls_port *p)
{
    return (p->queue_id && p->queue_id <= QUEUE_ID_MAX && p->sb
            && strcmp(p->nb->type, "localnet")
            ? p->sb->chassis : NULL);
}

static uint32_t
lowest_free_queue(const unsigned long *used)
{
    size_t id = bitmap_scan(used, 0, QUEUE_ID_MIN, QUEUE_ID_MAX + 1);
    return id <= QUEUE_ID_MAX ? id : 0;
}

/* The queues of a chassis that ports have, while a full pass gives
 * them. */
struct chassis_queues {
    struct hmap_node node;          /* By hash_pointer('chassis'). */
    const struct sb_chassis *chassis;
    unsigned long *used;            /* QUEUE_ID_MAX + 1 bits. */
};

static struct chassis_queues *
chassis_queues_get(struct hmap *map, const struct sb_chassis *chassis)
{
    uint32_t hash = hash_pointer(chassis, 0);
    struct chassis_queues *cq;
    HMAP_FOR_EACH_WITH_HASH (cq, node, hash, map) {
        if (cq->chassis == chassis) {
            return cq;
        }
    }
    cq = xmalloc(sizeof *cq);
    cq->chassis = chassis;
    cq->used = bitmap_allocate(QUEUE_ID_MAX + 1);
    hmap_insert(map, &cq->node, hash);
    return cq;
}

/* A full pass: ports keep their queues, then those that need one get
 * one, in the model's order. */
static void
assign_queues(struct ls_model *m)
{
    struct hmap by_chassis = HMAP_INITIALIZER(&by_chassis);
    struct ls_port *p;
    HMAP_FOR_EACH (p, name_node, &m->ports) {
        p->queue_id = port_kept_queue(p);
        const struct sb_chassis *chassis = queue_chassis(p);
        if (chassis) {
            bitmap_set1(chassis_queues_get(&by_chassis, chassis)->used,
                        p->queue_id);
        }
    }
    for (size_t i = 0; i < m->n_datapaths; i++) {
        LIST_FOR_EACH (p, dp_node, &m->dp_array[i]->ports) {
            const struct sb_chassis *chassis;
            if (!port_wants_queue(p, &chassis)) {
                continue;
            }
            if (!chassis) {
                p->queue_id = QUEUE_ID_MIN;
                continue;
            }
            struct chassis_queues *cq = chassis_queues_get(&by_chassis,
                                                           chassis);
            p->queue_id = lowest_free_queue(cq->used);
            if (p->queue_id) {
                bitmap_set1(cq->used, p->queue_id);
            }
        }
    }
    struct chassis_queues *cq;
    HMAP_FOR_EACH_POP (cq, node, &by_chassis) {
        bitmap_free(cq->used);
        free(cq);
    }
    hmap_destroy(&by_chassis);
}

/* An incremental pass: the queue 'p' should have, given the others'. */
static uint32_t
port_queue(const struct ls_model *m, const struct ls_port *p)
{
    if (!port_has_qos(p->nb)) {
        return 0;
    }
    uint32_t kept = port_kept_queue(p);
    if (kept) {
        return kept;
    }
    const struct sb_chassis *chassis;
    if (!port_wants_queue(p, &chassis)) {
        /* None, or one given in an earlier pass that is not in the
         * replica yet. */
        return p->queue_id;
    }
    if (!chassis) {
        return QUEUE_ID_MIN;        /* A localnet port's own. */
    }
    unsigned long *used = bitmap_allocate(QUEUE_ID_MAX + 1);
    const struct ls_port *q;
    HMAP_FOR_EACH (q, name_node, &m->ports) {
        if (q != p && queue_chassis(q) == chassis) {
            bitmap_set1(used, q->queue_id);
        }
    }
    uint32_t id = lowest_free_queue(used);
    bitmap_free(used);
    return id;
}

bool
ls_model_update_port_queue(struct ls_model *m, struct ls_port *p)
{
    uint32_t id = port_queue(m, p);
    if (id == p->queue_id) {
        return false;
    }
    p->queue_id = id;
    return true;
}

/* Assigns every port's VLAN tag (see 'tag' in struct ls_port), as the
 * stock ovn-northd does: a nonzero tag_request is the tag, on any port (a
 * localnet port on a VLAN has no parent); a port without tag_request keeps
 * whatever tag a CMS gave it, and so does a port without a parent whose
 * tag_request is 0.  A container port with tag_request 0 gets a tag
 * unique among the children of its parent, since the hypervisor tells
 * them apart by tag: the one allocated on an earlier pass (so it never
 * changes under a running container) unless another child uses it, else
 * the lowest free one.  Ports are visited switch by switch in model
 * order, so the outcome does not depend on hash order. */
static void
assign_tags(struct ls_model *m)
{
    struct shash by_parent = SHASH_INITIALIZER(&by_parent);

    for (int pass = 0; pass < 3; pass++) {
        for (size_t i = 0; i < m->n_datapaths; i++) {
            struct ls_port *p;
            LIST_FOR_EACH (p, dp_node, &m->dp_array[i]->ports) {
                const struct nb_logical_switch_port *nbp = p->nb;
                bool container = is_container_port(nbp);
                bool has_tag = (nbp->n_tag && nbp->tag[0] >= TAG_MIN
                                && nbp->tag[0] <= TAG_MAX);
                bool allocate = (container && nbp->n_tag_request
                                 && nbp->tag_request[0] == 0);

                if (pass == 0) {
                    p->tag = 0;
                    if (nbp->n_tag_request && nbp->tag_request[0] >= TAG_MIN
                        && nbp->tag_request[0] <= TAG_MAX) {
                        p->tag = nbp->tag_request[0];
                    } else if (!allocate && has_tag) {
                        p->tag = nbp->tag[0];
                    }
                    if (container && p->tag) {
                        bitmap_set1(parent_tags(&by_parent,
                                                nbp->parent_name), p->tag);
                    }
                    continue;
                }
                if (!allocate) {
                    continue;
                }
                unsigned long *tags = parent_tags(&by_parent,
                                                  nbp->parent_name);
                if (pass == 1 && has_tag
                    && !bitmap_is_set(tags, nbp->tag[0])) {
                    p->tag = nbp->tag[0];
                    bitmap_set1(tags, p->tag);
                } else if (pass == 2 && !p->tag) {
                    size_t t = bitmap_scan(tags, 0, TAG_MIN, TAG_MAX + 1);
                    if (t <= TAG_MAX) {
                        p->tag = t;
                        bitmap_set1(tags, t);
                    } else {
                        report_bad_row(m, "Logical_Switch_Port %s: all "
                                       "tags under parent %s are in use",
                                       nbp->name, nbp->parent_name);
                    }
                }
            }
        }
    }
    shash_destroy_free_data(&by_parent);
}

void
ls_model_build(struct ls_model *m, struct rdb *nb_db, struct rdb *sb_db)
{
    const struct nb_nb_global *nbg = nb_nb_global_first(nb_db);
    m->check_lsp_up = nbg && !smap_get_bool(&nbg->options,
                                            "ignore_lsp_down", true);
    m->sb_db = sb_db;
    m->chassis_indexed = false;
    m->igmp_indexed = false;

    /* Index the SB replica: datapaths by the NB switch they stand for,
     * port bindings by name. */
    struct hmap sb_dps = HMAP_INITIALIZER(&sb_dps);
    struct sb_dp_node {
        struct hmap_node node;
        struct uuid ls_uuid;
        const struct sb_datapath_binding *sb;
    };
    const struct sb_datapath_binding *sb_dp;
    SB_DATAPATH_BINDING_FOR_EACH (sb_dp, sb_db) {
        struct uuid ls_uuid;
        if (smap_get_uuid(&sb_dp->external_ids, "logical-switch", &ls_uuid)) {
            struct sb_dp_node *n = xmalloc(sizeof *n);
            n->ls_uuid = ls_uuid;
            n->sb = sb_dp;
            hmap_insert(&sb_dps, &n->node, uuid_hash(&ls_uuid));
        }
    }
    struct shash sb_ports = SHASH_INITIALIZER(&sb_ports);
    const struct sb_port_binding *sb_pb;
    SB_PORT_BINDING_FOR_EACH (sb_pb, sb_db) {
        shash_add_once(&sb_ports, sb_pb->logical_port, sb_pb);
    }

    /* Switches in UUID order, so that the outcome (e.g. which of two
     * duplicate port names wins) does not depend on arrival order. */
    size_t n = 0;
    const struct nb_logical_switch *nb_ls;
    NB_LOGICAL_SWITCH_FOR_EACH (nb_ls, nb_db) {
        n++;
    }
    const struct nb_logical_switch **switches = xmalloc((n ? n : 1)
                                                           * sizeof *switches);
    n = 0;
    NB_LOGICAL_SWITCH_FOR_EACH (nb_ls, nb_db) {
        switches[n++] = nb_ls;
    }
    qsort(switches, n, sizeof *switches, compare_switches);

    /* Room for switches added incrementally before the next recompute. */
    m->sw_cap = m->dp_cap = n + MAX(64, n / 2);
    m->dp_array = xmalloc(m->dp_cap * sizeof *m->dp_array);
    for (size_t i = 0; i < n; i++) {
        struct ls_datapath *dp = xzalloc(sizeof *dp);
        dp->nb = switches[i];
        dp->index = i;
        lflow_owner_init(&dp->owner);
        lflow_owner_init(&dp->dhcp_owner);
        ovs_list_init(&dp->ports);

        /* If several SB rows claim this switch, use the one with the lowest
         * key; the others are deleted by the sync. */
        struct sb_dp_node *sn;
        HMAP_FOR_EACH_WITH_HASH (sn, node, uuid_hash(&dp->nb->header_.uuid),
                                 &sb_dps) {
            if (uuid_equals(&sn->ls_uuid, &dp->nb->header_.uuid)
                && (!dp->sb || sn->sb->tunnel_key < dp->sb->tunnel_key)) {
                dp->sb = sn->sb;
            }
        }
        if (dp->sb) {
            dp->sb_uuid = dp->sb->header_.uuid;
        }
        hmap_insert(&m->datapaths, &dp->uuid_node,
                    uuid_hash(&dp->nb->header_.uuid));
        m->dp_array[m->n_datapaths++] = dp;
    }
    free(switches);
    lr_model_build_dps(m, nb_db, sb_db);

    assign_datapath_keys(m);
    for (size_t i = 0; i < m->n_datapaths; i++) {
        build_ports(m, m->dp_array[i], &sb_ports);
        assign_port_keys(m, m->dp_array[i]);
    }
    lr_model_build_ports(m, &sb_ports);
    assign_tags(m);
    assign_queues(m);
    ipam_run(m, nb_db, m->ipam_carry);

    struct sb_dp_node *sn;
    HMAP_FOR_EACH_POP (sn, node, &sb_dps) {
        free(sn);
    }
    hmap_destroy(&sb_dps);
    shash_destroy(&sb_ports);

}

void
ls_model_end_reports(struct ls_model *m)
{
    /* What the next pass compares against. */
    if (m->reported) {
        sset_destroy(m->reported);
        sset_clone(m->reported, &m->problems);
    }
}

/* Deletes 'sb_dp' and the rows that hold strong references to it, or weak
 * references that may not become empty, which would otherwise make the
 * whole transaction fail.  Port bindings in 'keep_pbs' are left alone: their
 * port now lives on another switch and sync_port_binding() moves them.
 * Logical flows are left to the lflow sync, which rewrites or deletes every
 * flow in the same transaction. */
static void
delete_sb_datapath(struct rdb *sb_db, struct rdb_txn *txn,
                   const struct sb_datapath_binding *sb_dp,
                   const struct hmapx *keep_pbs)
{
    const struct uuid *dp_uuid = &sb_dp->header_.uuid;
    const struct sb_mac_binding *mb;
    SB_MAC_BINDING_FOR_EACH (mb, sb_db) {
        if (mb->datapath == sb_dp) {
            rdb_txn_delete(txn, &sb_table_mac_binding, &mb->header_.uuid);
        }
    }
    const struct sb_static_mac_binding *smb;
    SB_STATIC_MAC_BINDING_FOR_EACH (smb, sb_db) {
        if (smb->datapath == sb_dp) {
            rdb_txn_delete(txn, &sb_table_static_mac_binding,
                           &smb->header_.uuid);
        }
    }
    /* SB DNS rows are rewritten by dns_sync_sb() in the same
     * transaction. */
    const struct sb_load_balancer *lb;
    SB_LOAD_BALANCER_FOR_EACH (lb, sb_db) {
        for (size_t i = 0; i < lb->n_datapaths; i++) {
            if (lb->datapaths[i] == sb_dp) {
                rdb_txn_mutate_refs(txn, &sb_table_load_balancer,
                                    &lb->header_.uuid,
                                    SB_LOAD_BALANCER_COL_DATAPATHS, false,
                                    dp_uuid, 1);
                break;
            }
        }
    }
    /* IP_Multicast.datapath is a weak reference that may not be empty, so
     * ovsdb-server would reject the deletion of the datapath rather than
     * drop the reference.  The stock ovn-northd creates one per switch. */
    const struct sb_ip_multicast *ipm;
    SB_IP_MULTICAST_FOR_EACH (ipm, sb_db) {
        if (ipm->datapath == sb_dp) {
            rdb_txn_delete(txn, &sb_table_ip_multicast, &ipm->header_.uuid);
        }
    }
    const struct sb_port_binding *pb;
    SB_PORT_BINDING_FOR_EACH (pb, sb_db) {
        if (pb->datapath == sb_dp && !hmapx_contains(keep_pbs, pb)) {
            rdb_txn_delete(txn, &sb_table_port_binding, &pb->header_.uuid);
        }
    }
    const struct sb_multicast_group *mg;
    SB_MULTICAST_GROUP_FOR_EACH (mg, sb_db) {
        if (mg->datapath == sb_dp) {
            rdb_txn_delete(txn, &sb_table_multicast_group,
                           &mg->header_.uuid);
        }
    }
    rdb_txn_delete(txn, &sb_table_datapath_binding, dp_uuid);
    COVERAGE_INC(datapath_deleted);
}

static void
sync_datapath(struct ls_model *m, struct rdb_txn *sb_txn,
              struct ls_datapath *dp)
{
    struct smap ids = SMAP_INITIALIZER(&ids);
    if (dp->router) {
        lr_router_sb_ids(dp->router, &ids);
    } else {
        char *uuid_s = xasprintf(UUID_FMT,
                                 UUID_ARGS(&dp->nb->header_.uuid));
        smap_add(&ids, "logical-switch", uuid_s);
        free(uuid_s);
        if (dp->nb->name[0]) {
            smap_add(&ids, "name", dp->nb->name);
        }
        /* ovn-trace and operators name datapaths by these as well. */
        const char *name2 = smap_get(&dp->nb->external_ids,
                                     "neutron:network_name");
        if (name2) {
            smap_add(&ids, "name2", name2);
        }
    }

    const struct sb_datapath_binding *sb = dp->sb;
    if (!sb) {
        if (uuid_is_zero(&dp->sb_uuid)) {
            rdb_uuid_generate(&dp->sb_uuid);
            m->new_dps = xrealloc(m->new_dps,
                                  (m->n_new_dps + 1) * sizeof *m->new_dps);
            m->new_dps[m->n_new_dps++] = dp;
            COVERAGE_INC(datapath_created);
        }
        rdb_txn_insert(sb_txn, &sb_table_datapath_binding, &dp->sb_uuid);
        rdb_txn_set_integer(sb_txn, SB_DATAPATH_BINDING_COL_TUNNEL_KEY,
                            dp->tunnel_key);
        rdb_txn_set_smap(sb_txn, SB_DATAPATH_BINDING_COL_EXTERNAL_IDS, &ids);
    } else {
        rdb_txn_update(sb_txn, &sb_table_datapath_binding, &dp->sb_uuid);
        if (sb->tunnel_key != dp->tunnel_key) {
            rdb_txn_set_integer(sb_txn, SB_DATAPATH_BINDING_COL_TUNNEL_KEY,
                                dp->tunnel_key);
        }
        if (!smap_equal(&ids, &sb->external_ids)) {
            rdb_txn_set_smap(sb_txn, SB_DATAPATH_BINDING_COL_EXTERNAL_IDS,
                             &ids);
        }
    }
    smap_destroy(&ids);
}

static bool
strings_equal(char **a, size_t n_a, char **b, size_t n_b)
{
    if (n_a != n_b) {
        return false;
    }
    for (size_t i = 0; i < n_a; i++) {
        if (strcmp(a[i], b[i])) {
            return false;
        }
    }
    return true;
}


/* Requested chassis. */

static void
index_chassis(struct ls_model *m)
{
    shash_clear(&m->chassis_by_name);
    shash_clear(&m->chassis_by_hostname);
    const struct sb_chassis *ch;
    SB_CHASSIS_FOR_EACH (ch, m->sb_db) {
        shash_add_once(&m->chassis_by_name, ch->name, ch);
        /* Of several chassis with one hostname, the lowest UUID, so that
         * the choice does not depend on hash order. */
        if (ch->hostname && ch->hostname[0]) {
            struct shash_node *node = shash_find(&m->chassis_by_hostname,
                                                 ch->hostname);
            if (!node) {
                shash_add(&m->chassis_by_hostname, ch->hostname, ch);
            } else if (uuid_compare_3way(
                           &ch->header_.uuid,
                           &((const struct sb_chassis *)
                             node->data)->header_.uuid) < 0) {
                node->data = CONST_CAST(struct sb_chassis *, ch);
            }
        }
    }
    m->chassis_indexed = true;
}

/* A switch's IGMP_Group rows (ls_model 'igmp_by_dp'). */
struct igmp_dp {
    struct hmap_node node;          /* By uuid_hash('dp'). */
    struct uuid dp;                 /* Its Datapath_Binding. */
    const struct sb_igmp_group **groups;
    size_t n, allocated;
};

static void
clear_igmp_index(struct ls_model *m)
{
    struct igmp_dp *idp;
    HMAP_FOR_EACH_POP (idp, node, &m->igmp_by_dp) {
        free(idp->groups);
        free(idp);
    }
    m->igmp_indexed = false;
}

static void
index_igmp_groups(struct ls_model *m)
{
    clear_igmp_index(m);
    const struct sb_igmp_group *g;
    SB_IGMP_GROUP_FOR_EACH (g, m->sb_db) {
        if (!g->datapath || !g->chassis) {
            continue;
        }
        const struct uuid *dp = &g->datapath->header_.uuid;
        uint32_t hash = uuid_hash(dp);
        struct igmp_dp *idp;
        HMAP_FOR_EACH_WITH_HASH (idp, node, hash, &m->igmp_by_dp) {
            if (uuid_equals(&idp->dp, dp)) {
                break;
            }
        }
        if (!idp) {
            idp = xzalloc(sizeof *idp);
            idp->dp = *dp;
            hmap_insert(&m->igmp_by_dp, &idp->node, hash);
        }
        if (idp->n >= idp->allocated) {
            idp->groups = x2nrealloc(idp->groups, &idp->allocated,
                                     sizeof *idp->groups);
        }
        idp->groups[idp->n++] = g;
    }
    m->igmp_indexed = true;
}

const struct sb_igmp_group **
ls_model_igmp_groups(const struct ls_model *m_, const struct ls_datapath *dp,
                     size_t *n)
{
    struct ls_model *m = CONST_CAST(struct ls_model *, m_);
    *n = 0;
    if (!m->sb_db || uuid_is_zero(&dp->sb_uuid)) {
        return NULL;
    }
    if (!m->igmp_indexed) {
        index_igmp_groups(m);
    }
    struct igmp_dp *idp;
    HMAP_FOR_EACH_WITH_HASH (idp, node, uuid_hash(&dp->sb_uuid),
                             &m->igmp_by_dp) {
        if (uuid_equals(&idp->dp, &dp->sb_uuid)) {
            *n = idp->n;
            return idp->groups;
        }
    }
    return NULL;
}

/* The chassis named 'name', or else the one with that hostname. */
static const struct sb_chassis *
find_chassis(struct ls_model *m, const char *name)
{
    if (!m->chassis_indexed) {
        index_chassis(m);
    }
    const struct sb_chassis *ch = shash_find_data(&m->chassis_by_name, name);
    return ch ? ch : shash_find_data(&m->chassis_by_hostname, name);
}

static int
compare_uuids(const void *a, const void *b)
{
    return uuid_compare_3way(a, b);
}

/* The port's external_ids, as stock copies them to its Port_Binding
 * (Neutron's metadata agent reads neutron:cidrs, neutron:device_id, ...
 * there), with "name" from neutron:port_name.  Both maps are packed
 * (lib/mappack.h): a binding whose map is its port's holds the same
 * pointer, and the two are compared by pointer. */
static void
sync_pb_external_ids(struct rdb_txn *sb_txn, const struct ls_port *p,
                     const struct sb_port_binding *pb)
{
    struct ds scratch = DS_EMPTY_INITIALIZER;
    const char *name = mappack_find(p->nb->external_ids, "neutron:port_name",
                                    &scratch);
    struct smap ids = SMAP_INITIALIZER(&ids);
    const struct strpack *want = strpack_ref(p->nb->external_ids);
    if (name && name[0]) {
        mappack_to_smap(want, &ids);
        smap_replace(&ids, "name", name);
        strpack_put(want);
        want = mappack_get(&ids);
    }
    if (pb ? pb->external_ids != want : want != NULL) {
        if (smap_is_empty(&ids)) {
            mappack_to_smap(want, &ids);
        }
        rdb_txn_set_smap(sb_txn, SB_PORT_BINDING_COL_EXTERNAL_IDS, &ids);
    }
    strpack_put(want);
    smap_destroy(&ids);
    ds_destroy(&scratch);
}

/* Port_Binding.requested_chassis and requested_additional_chassis from
 * options:requested-chassis, a comma-separated list of chassis names or
 * hostnames, as the stock ovn-northd fills them: names that match no
 * chassis are skipped (they may register later), the first that matches
 * is the requested chassis and the others that match the additional ones.
 * A "router" port is never bound, and gets neither. */
static void
sync_requested_chassis(struct ls_model *m, struct rdb_txn *sb_txn,
                       const struct ls_port *p)
{
    const struct sb_port_binding *pb = p->sb;
    const char *option = smap_get(&p->nb->options, "requested-chassis");
    if (!strcmp(p->nb->type, "router")) {
        option = NULL;
    }
    if (!option && (!pb || (!pb->requested_chassis
                            && !pb->n_requested_additional_chassis))) {
        return;                 /* The usual case: nothing either way. */
    }

    const struct sb_chassis *first = NULL;
    struct uuid *more = NULL;
    size_t n_more = 0, allocated_more = 0;
    if (option && m->sb_db) {
        char *copy = xstrdup(option);
        char *save = NULL;
        for (char *name = strtok_r(copy, ",", &save); name;
             name = strtok_r(NULL, ",", &save)) {
            const struct sb_chassis *ch = find_chassis(m, name);
            if (!ch) {
                continue;
            } else if (!first) {
                first = ch;
            } else {
                if (n_more >= allocated_more) {
                    more = x2nrealloc(more, &allocated_more, sizeof *more);
                }
                more[n_more++] = ch->header_.uuid;
            }
        }
        free(copy);
    }
    /* A set: sorted and without duplicates, as the replica keeps it. */
    if (n_more) {
        qsort(more, n_more, sizeof *more, compare_uuids);
    }
    size_t n = 0;
    for (size_t i = 0; i < n_more; i++) {
        if (!n || !uuid_equals(&more[n - 1], &more[i])) {
            more[n++] = more[i];
        }
    }
    n_more = n;

    if (!pb || pb->requested_chassis != first) {
        rdb_txn_set_ref(sb_txn, SB_PORT_BINDING_COL_REQUESTED_CHASSIS,
                        first ? &first->header_.uuid : NULL);
    }
    bool same = pb && pb->n_requested_additional_chassis == n_more;
    for (size_t i = 0; same && i < n_more; i++) {
        same = uuid_equals(
            &pb->requested_additional_chassis[i]->header_.uuid, &more[i]);
    }
    if (!same && (pb || n_more)) {
        rdb_txn_set_refs(sb_txn,
                         SB_PORT_BINDING_COL_REQUESTED_ADDITIONAL_CHASSIS,
                         more, n_more);
    }
    free(more);
}

/* Whether switch 'dp' has other_config:vlan-passthru=true: tagged frames
 * pass, and ports get no ARP/ND responder. */
bool
ls_datapath_vlan_passthru(const struct ls_datapath *dp)
{
    return smap_get_bool(&dp->nb->other_config, "vlan-passthru", false);
}

/* Port_Binding.options for 'p' (whose binding is 'pb', or NULL) into
 * 'options' (initialized here): the NB port's options, "vlan-passthru"
 * on a switch that has it, as stock writes them, and what ovn-controller
 * wrote there and northd must keep. */
static void
port_binding_options(const struct ls_model *m, const struct ls_port *p,
                     const struct sb_port_binding *pb, struct smap *options)
{
    if (!strcmp(p->nb->type, "router")) {
        /* Only its peer (and a gateway router's chassis), as stock writes
         * it. */
        smap_init(options);
        const char *peer = smap_get(&p->nb->options, "router-port");
        if (peer) {
            smap_add(options, "peer", peer);
        }
        const struct lr_port *rp = lr_model_peer_of(m->lr, p->nb->name);
        if (rp) {
            lr_peer_pb_options(rp, options);
        }
        return;
    }
    smap_clone(options, &p->nb->options);
    if (ls_datapath_vlan_passthru(p->dp)) {
        smap_replace(options, "vlan-passthru", "true");
    }

    /* ovn-controller marks a port that migrates to an additional chassis
     * (activation-strategy=rarp) activated there once the VM announced
     * itself.  Stock 23.03 erases the mark whenever it rewrites the
     * options; it is kept while the port has more than one requested
     * chassis, so that a CMS changing some other option mid-migration does
     * not block the port on its new chassis again. */
    const char *activated = (pb ? smap_get(&pb->options,
                                           "additional-chassis-activated")
                             : NULL);
    const char *requested = smap_get(&p->nb->options, "requested-chassis");
    if (activated && requested && strchr(requested, ',')) {
        smap_replace(options, "additional-chassis-activated", activated);
    }
    if (p->queue_id) {
        smap_replace_nocopy(options, "qdisc_queue_id",
                            xasprintf("%"PRIu32, p->queue_id));
    }
}

/* Writes 'p''s Port_Binding: every column of a new one, the columns that
 * differ of an existing one. */
static void
sync_port_binding(struct ls_model *m, struct rdb_txn *sb_txn,
                  struct ls_port *p)
{
    const struct sb_port_binding *pb = p->sb;
    if (!pb) {
        if (uuid_is_zero(&p->sb_uuid)) {
            rdb_uuid_generate(&p->sb_uuid);
            if (m->n_new_ports >= m->allocated_new_ports) {
                m->new_ports = x2nrealloc(m->new_ports,
                                          &m->allocated_new_ports,
                                          sizeof *m->new_ports);
            }
            m->new_ports[m->n_new_ports++] = p;
            COVERAGE_INC(port_binding_created);
        }
        rdb_txn_insert(sb_txn, &sb_table_port_binding, &p->sb_uuid);
        rdb_txn_set_string(sb_txn, SB_PORT_BINDING_COL_LOGICAL_PORT,
                           p->nb->name);
    } else {
        rdb_txn_update(sb_txn, &sb_table_port_binding, &p->sb_uuid);
    }

    if (!pb || !RDB_ROW_IS(pb->datapath, &p->dp->sb_uuid)) {
        rdb_txn_set_ref(sb_txn, SB_PORT_BINDING_COL_DATAPATH,
                        &p->dp->sb_uuid);
    }
    if (!pb || pb->tunnel_key != p->tunnel_key) {
        rdb_txn_set_integer(sb_txn, SB_PORT_BINDING_COL_TUNNEL_KEY,
                            p->tunnel_key);
    }
    /* A switch's router port is one end of a patch (stock's SB type), or
     * of a gateway router's "l3gateway" port. */
    const struct lr_port *rp = (!strcmp(p->nb->type, "router")
                                ? lr_model_peer_of(m->lr, p->nb->name)
                                : NULL);
    const char *type = (rp ? lr_peer_pb_type(rp)
                        : !strcmp(p->nb->type, "router") ? "patch"
                        : p->nb->type);
    if (!pb || strcmp(pb->type, type)) {
        rdb_txn_set_string(sb_txn, SB_PORT_BINDING_COL_TYPE, type);
    }
    struct smap options;
    port_binding_options(m, p, pb, &options);
    if (!pb || !smap_equal(&pb->options, &options)) {
        rdb_txn_set_smap(sb_txn, SB_PORT_BINDING_COL_OPTIONS, &options);
    }
    smap_destroy(&options);
    /* The addresses as they are, as the stock ovn-northd writes them, bad
     * entries and all (ovn-controller skips what it cannot parse). */
    if (!pb || !strings_equal(p->nb->addresses, p->nb->n_addresses,
                              pb->mac, pb->n_mac)) {
        rdb_txn_set_strings(sb_txn, SB_PORT_BINDING_COL_MAC,
                            (const char **) p->nb->addresses,
                            p->nb->n_addresses);
    }
    struct svec nat = SVEC_EMPTY_INITIALIZER;
    if (rp) {
        lr_peer_pb_nat_addresses(rp, p, &nat);
    }
    if (pb ? !strings_equal(nat.names, nat.n, pb->nat_addresses,
                            pb->n_nat_addresses)
           : nat.n > 0) {
        rdb_txn_set_strings(sb_txn, SB_PORT_BINDING_COL_NAT_ADDRESSES,
                            (const char **) nat.names, nat.n);
    }
    svec_destroy(&nat);
    if (!pb || !strings_equal(p->nb->port_security, p->nb->n_port_security,
                              pb->port_security, pb->n_port_security)) {
        rdb_txn_set_strings(sb_txn, SB_PORT_BINDING_COL_PORT_SECURITY,
                            (const char **) p->nb->port_security,
                            p->nb->n_port_security);
    }

    /* parent_name as it is, even "" (stock copies that too), and the tag
     * of any port that has one: a container port's, or the VLAN of a
     * localnet port (tag_request without a parent). */
    const char *parent = p->nb->parent_name;
    if (pb ? (!!parent != !!pb->parent_port
              || (parent && strcmp(parent, pb->parent_port)))
           : parent != NULL) {
        rdb_txn_set_string(sb_txn, SB_PORT_BINDING_COL_PARENT_PORT, parent);
    }
    int64_t tag = p->tag;
    size_t n_tag = tag ? 1 : 0;
    if (pb ? (n_tag != pb->n_tag || (n_tag && *pb->tag != tag)) : n_tag) {
        rdb_txn_set_integers(sb_txn, SB_PORT_BINDING_COL_TAG, &tag, n_tag);
    }

    /* ovn-controller 23.03 reports a port up (Port_Binding.up) only once it
     * was set to false, and Logical_Switch_Port.up waits for it. */
    if (!pb || !pb->n_up) {
        bool down = false;
        rdb_txn_set_bools(sb_txn, SB_PORT_BINDING_COL_UP, &down, 1);
    }

    sync_requested_chassis(m, sb_txn, p);

    /* An external port's HA chassis group, which ha_groups_sync() wrote
     * first. */
    const struct uuid *group = (p->nb->ha_chassis_group
                                && !strcmp(p->nb->type, "external")
                                ? ha_groups_find(m,
                                                 p->nb->ha_chassis_group->name)
                                : NULL);
    if (pb ? (group ? !RDB_ROW_IS(pb->ha_chassis_group, group)
                    : pb->ha_chassis_group != NULL)
           : group != NULL) {
        rdb_txn_set_ref(sb_txn, SB_PORT_BINDING_COL_HA_CHASSIS_GROUP, group);
    }

    sync_pb_external_ids(sb_txn, p, pb);
}

static int
compare_uuid_ptrs(const void *a_, const void *b_)
{
    const struct uuid *const *a = a_;
    const struct uuid *const *b = b_;
    return uuid_compare_3way(*a, *b);
}

static void
set_mc_ports(struct rdb_txn *sb_txn, const struct uuid **ports,
             size_t n_ports)
{
    struct uuid *uuids = xmalloc(n_ports * sizeof *uuids);
    for (size_t i = 0; i < n_ports; i++) {
        uuids[i] = *ports[i];
    }
    rdb_txn_set_refs(sb_txn, SB_MULTICAST_GROUP_COL_PORTS, uuids, n_ports);
    free(uuids);
}

/* Sets 'sb_mg' (creating it if NULL) to the given ports, which it sorts;
 * deletes it if there are none. */
static void
sync_mc_group(struct rdb_txn *sb_txn, const struct ls_datapath *dp,
              const struct sb_multicast_group *sb_mg, const char *name,
              uint32_t key, const struct uuid **ports, size_t n_ports)
{
    if (!n_ports) {
        if (sb_mg) {
            rdb_txn_delete(sb_txn, &sb_table_multicast_group,
                           &sb_mg->header_.uuid);
        }
        return;
    }

    /* The replica keeps references in UUID order. */
    qsort(ports, n_ports, sizeof *ports, compare_uuid_ptrs);

    if (!sb_mg) {
        struct uuid uuid;
        rdb_uuid_generate(&uuid);
        rdb_txn_insert(sb_txn, &sb_table_multicast_group, &uuid);
        rdb_txn_set_ref(sb_txn, SB_MULTICAST_GROUP_COL_DATAPATH,
                        &dp->sb_uuid);
        rdb_txn_set_string(sb_txn, SB_MULTICAST_GROUP_COL_NAME, name);
        rdb_txn_set_integer(sb_txn, SB_MULTICAST_GROUP_COL_TUNNEL_KEY, key);
        set_mc_ports(sb_txn, ports, n_ports);
        return;
    }

    /* A port that comes or goes changes a flood group of hundreds by one:
     * that goes as a mutation. */
    struct uuid *added = xmalloc(n_ports * sizeof *added);
    struct uuid *removed = xmalloc(sb_mg->n_ports * sizeof *removed);
    size_t n_added = 0, n_removed = 0;
    size_t i = 0, j = 0;
    while (i < sb_mg->n_ports || j < n_ports) {
        int cmp = (i >= sb_mg->n_ports ? 1
                   : j >= n_ports ? -1
                   : uuid_compare_3way(&sb_mg->ports[i]->header_.uuid,
                                       ports[j]));
        if (cmp < 0) {
            removed[n_removed++] = sb_mg->ports[i++]->header_.uuid;
        } else if (cmp > 0) {
            added[n_added++] = *ports[j++];
        } else {
            i++;
            j++;
        }
    }
    size_t n_changed = n_added + n_removed;
    bool mutate = rdb_txn_prefers_mutation(n_changed, n_ports);
    bool whole = n_changed && !mutate;
    if (sb_mg->tunnel_key != key || whole) {
        rdb_txn_update(sb_txn, &sb_table_multicast_group,
                       &sb_mg->header_.uuid);
        if (sb_mg->tunnel_key != key) {
            rdb_txn_set_integer(sb_txn, SB_MULTICAST_GROUP_COL_TUNNEL_KEY,
                                key);
        }
        if (whole) {
            set_mc_ports(sb_txn, ports, n_ports);
        }
    }
    if (mutate) {
        COVERAGE_INC(mc_group_mutated);
        rdb_txn_mutate_refs(sb_txn, &sb_table_multicast_group,
                            &sb_mg->header_.uuid,
                            SB_MULTICAST_GROUP_COL_PORTS, false,
                            removed, n_removed);
        rdb_txn_mutate_refs(sb_txn, &sb_table_multicast_group,
                            &sb_mg->header_.uuid,
                            SB_MULTICAST_GROUP_COL_PORTS, true,
                            added, n_added);
    }
    free(added);
    free(removed);
}

/* The groups ovn-controllers learnt on 'dp' (northd/mcast.c), each under
 * the tunnel key its row has, or the lowest free one of the range stock
 * uses for them.  Rows of groups no longer learnt stay in 'existing', to be
 * deleted. */
static void
sync_learnt_groups(struct rdb_txn *sb_txn, const struct ls_datapath *dp,
                   const struct mcast_learnt_set *learnt,
                   struct shash *existing)
{
    if (!learnt->n) {
        return;
    }
    const struct sb_multicast_group **rows = xcalloc(learnt->n,
                                                     sizeof *rows);
    bool *keep_key = xcalloc(learnt->n, sizeof *keep_key);
    struct tnlid_set keys;
    tnlid_set_init(&keys, MC_IP_MIN_KEY, MC_IP_MAX_KEY);
    for (size_t i = 0; i < learnt->n; i++) {
        char *key = xasprintf(UUID_FMT"/%s", UUID_ARGS(&dp->sb_uuid),
                              learnt->groups[i].name);
        rows[i] = shash_find_and_delete(existing, key);
        free(key);
        keep_key[i] = (rows[i] && rows[i]->tunnel_key >= MC_IP_MIN_KEY
                       && rows[i]->tunnel_key <= MC_IP_MAX_KEY
                       && tnlid_reserve(&keys, rows[i]->tunnel_key));
    }
    for (size_t i = 0; i < learnt->n; i++) {
        const struct mcast_learnt *l = &learnt->groups[i];
        uint32_t key = (keep_key[i] ? rows[i]->tunnel_key
                        : tnlid_allocate(&keys));
        if (!key) {
            /* Out of keys, as stock: the group is left out. */
            if (rows[i]) {
                rdb_txn_delete(sb_txn, &sb_table_multicast_group,
                               &rows[i]->header_.uuid);
            }
            continue;
        }
        const struct uuid **ports = xmemdup(l->ports,
                                            l->n_ports * sizeof *ports);
        sync_mc_group(sb_txn, dp, rows[i], l->name, key, ports, l->n_ports);
        free(ports);
    }
    tnlid_set_destroy(&keys);
    free(keep_key);
    free(rows);
}

/* Brings the multicast groups (flood, unknown, flood_l2, and the IP
 * multicast ones of northd/mcast.h) of 'dp' in line, taking the rows that
 * exist from 'existing' ("<dp uuid>/<name>" -> row). */
static void
sync_dp_mc_groups(const struct ls_model *m, struct rdb_txn *sb_txn,
                  const struct ls_datapath *dp, struct shash *existing)
{
    const struct uuid **flood, **unknown, **flood_l2, **mrouter, **statik;
    size_t n_flood = 0, n_unknown = 0, n_flood_l2 = 0;
    size_t n_mrouter = 0, n_static = 0;
    size_t cap = dp->n_ports ? dp->n_ports : 1;
    flood = xmalloc(cap * sizeof *flood);
    unknown = xmalloc(cap * sizeof *unknown);
    flood_l2 = xmalloc(cap * sizeof *flood_l2);
    mrouter = xmalloc(cap * sizeof *mrouter);
    statik = xmalloc(cap * sizeof *statik);

    const struct ls_port *p;
    LIST_FOR_EACH (p, dp_node, &dp->ports) {
        if (!p->enabled) {
            continue;
        }
        flood[n_flood++] = &p->sb_uuid;
        if (strcmp(p->nb->type, "router")) {
            flood_l2[n_flood_l2++] = &p->sb_uuid;
        }
        if (p->has_unknown) {
            unknown[n_unknown++] = &p->sb_uuid;
        }
        if (mcast_port_flood_reports(p)
            || (!strcmp(p->nb->type, "router")
                && lr_model_port_relays(m->lr, p->nb->name))) {
            mrouter[n_mrouter++] = &p->sb_uuid;
        }
        if (mcast_port_flood(p)) {
            statik[n_static++] = &p->sb_uuid;
        }
    }

    static const struct {
        const char *name;
        uint32_t key;
    } groups[] = {
        { MC_FLOOD, MC_FLOOD_KEY },
        { MC_UNKNOWN, MC_UNKNOWN_KEY },
        { MC_FLOOD_L2, MC_FLOOD_L2_KEY },
        { MC_MROUTER_FLOOD, MC_MROUTER_FLOOD_KEY },
        { MC_STATIC, MC_STATIC_KEY },
    };
    const struct uuid **members[] = {
        flood, unknown, flood_l2, mrouter, statik,
    };
    size_t n_members[] = {
        n_flood, n_unknown, n_flood_l2, n_mrouter, n_static,
    };
    struct mcast_learnt_set learnt;
    mcast_learnt_collect(m, dp, false, &learnt);
    for (size_t g = 0; g < ARRAY_SIZE(groups); g++) {
        char *key = xasprintf(UUID_FMT"/%s", UUID_ARGS(&dp->sb_uuid),
                              groups[g].name);
        const struct sb_multicast_group *sb_mg
            = shash_find_and_delete(existing, key);
        free(key);
        if (groups[g].key == MC_MROUTER_FLOOD_KEY) {
            /* Multicast routers ovn-controllers found join the ports that
             * ask for reports (mcast_flood_reports). */
            for (size_t i = 0; i < learnt.n_mrouters; i++) {
                bool dup = false;
                for (size_t j = 0; j < n_mrouter && !dup; j++) {
                    dup = uuid_equals(mrouter[j], learnt.mrouters[i]);
                }
                if (!dup) {
                    mrouter = xrealloc(mrouter,
                                       (n_mrouter + 1) * sizeof *mrouter);
                    mrouter[n_mrouter++] = learnt.mrouters[i];
                }
            }
            members[g] = mrouter;
            n_members[g] = n_mrouter;
        }
        sync_mc_group(sb_txn, dp, sb_mg, groups[g].name, groups[g].key,
                      members[g], n_members[g]);
    }
    sync_learnt_groups(sb_txn, dp, &learnt, existing);
    mcast_learnt_destroy(&learnt);
    free(flood);
    free(unknown);
    free(flood_l2);
    free(mrouter);
    free(statik);
}

/* Adds 'mg' to 'existing' by "<dp uuid>/<name>"; deletes it if another
 * group already has that key. */
static void
index_mc_group(struct shash *existing, struct rdb_txn *txn,
               const struct sb_multicast_group *mg)
{
    char *key = xasprintf(UUID_FMT"/%s",
                          UUID_ARGS(&mg->datapath->header_.uuid), mg->name);
    if (!shash_add_once(existing, key, mg)) {
        rdb_txn_delete(txn, &sb_table_multicast_group, &mg->header_.uuid);
    }
    free(key);
}

/* 'live_dps' holds the SB datapaths that survive this pass: groups of the
 * others were deleted along with them. */
static void
sync_mc_groups(struct rdb *sb_db, struct rdb_txn *sb_txn,
               const struct ls_model *m, const struct hmapx *live_dps)
{
    /* Existing groups of our datapaths, by "<dp uuid>/<name>". */
    struct shash existing = SHASH_INITIALIZER(&existing);
    const struct sb_multicast_group *mg;
    SB_MULTICAST_GROUP_FOR_EACH (mg, sb_db) {
        if (mg->datapath && hmapx_contains(live_dps, mg->datapath)) {
            index_mc_group(&existing, sb_txn, mg);
        }
    }

    for (size_t i = 0; i < m->n_datapaths; i++) {
        sync_dp_mc_groups(m, sb_txn, m->dp_array[i], &existing);
    }
    /* Routers: _MC_static (ports with options:mcast_flood), and if they
     * relay multicast, the groups their switches learnt. */
    for (size_t i = 0; m->lr && i < m->lr->n_routers; i++) {
        const struct lr_router *r = &m->lr->routers[i];
        const struct uuid **statik = xmalloc(MAX(r->n_ports, 1)
                                             * sizeof *statik);
        size_t n_static = 0;
        for (size_t j = 0; j < r->n_ports; j++) {
            if (lr_port_mcast_flood(r->ports[j])) {
                statik[n_static++] = &r->ports[j]->sb_uuid;
            }
        }
        char *key = xasprintf(UUID_FMT"/%s", UUID_ARGS(&r->dp->sb_uuid),
                              MC_STATIC);
        sync_mc_group(sb_txn, r->dp, shash_find_and_delete(&existing, key),
                      MC_STATIC, MC_STATIC_KEY, statik, n_static);
        free(key);
        free(statik);

        struct mcast_learnt_set set;
        lr_mcast_collect(m, r, &set);
        sync_learnt_groups(sb_txn, r->dp, &set, &existing);
        mcast_learnt_destroy(&set);
    }

    /* Groups nobody asked for (other names, gone datapaths). */
    struct shash_node *node;
    SHASH_FOR_EACH (node, &existing) {
        const struct sb_multicast_group *dead = node->data;
        rdb_txn_delete(sb_txn, &sb_table_multicast_group,
                       &dead->header_.uuid);
    }
    shash_destroy(&existing);
}

void
ls_model_sync_sb(struct ls_model *m, struct rdb *sb_db, struct rdb_txn *sb_txn)
{
    /* Deletions come first.  The replica does not change until the server
     * reports the transaction, so rows deleted along with a datapath are
     * still visited below: they must not be deleted twice.
     *
     * A binding the model reuses must survive even if its datapath goes
     * (a port moved off a deleted switch, or a stale SB from an earlier
     * NB). */
    struct hmapx keep_pb = HMAPX_INITIALIZER(&keep_pb);
    struct ls_port *p;
    HMAP_FOR_EACH (p, name_node, &m->ports) {
        if (p->sb) {
            hmapx_add(&keep_pb, (void *) p->sb);
        }
    }

    lr_model_keep_pbs(m->lr, &keep_pb);

    struct hmapx keep_dp = HMAPX_INITIALIZER(&keep_dp);
    for (size_t i = 0; i < ls_model_n_all(m); i++) {
        if (ls_model_dp_at(m, i)->sb) {
            hmapx_add(&keep_dp, (void *) ls_model_dp_at(m, i)->sb);
        }
    }
    const struct sb_datapath_binding *sb_dp;
    SB_DATAPATH_BINDING_FOR_EACH (sb_dp, sb_db) {
        if (!hmapx_contains(&keep_dp, sb_dp)) {
            struct uuid ls_uuid;
            if (smap_get_uuid(&sb_dp->external_ids, "logical-switch",
                              &ls_uuid)
                && ls_model_find_datapath(m, &ls_uuid)) {
                static struct vlog_rate_limit rl
                    = VLOG_RATE_LIMIT_INIT(1, 5);
                VLOG_INFO_RL(&rl, "deleting SB Datapath_Binding "UUID_FMT
                             " (tunnel key %"PRId32"): a duplicate for "
                             "switch "UUID_FMT,
                             UUID_ARGS(&sb_dp->header_.uuid),
                             sb_dp->tunnel_key, UUID_ARGS(&ls_uuid));
            }
            delete_sb_datapath(sb_db, sb_txn, sb_dp, &keep_pb);
        }
    }

    const struct sb_port_binding *pb;
    SB_PORT_BINDING_FOR_EACH (pb, sb_db) {
        if (!hmapx_contains(&keep_pb, pb)
            && hmapx_contains(&keep_dp, pb->datapath)) {
            rdb_txn_delete(sb_txn, &sb_table_port_binding,
                           &pb->header_.uuid);
            COVERAGE_INC(port_binding_deleted);
        }
    }
    hmapx_destroy(&keep_pb);

    for (size_t i = 0; i < ls_model_n_all(m); i++) {
        sync_datapath(m, sb_txn, ls_model_dp_at(m, i));
    }
    ha_groups_sync(m, sb_db, sb_txn);
    HMAP_FOR_EACH (p, name_node, &m->ports) {
        sync_port_binding(m, sb_txn, p);
    }
    lr_model_sync_ports(m, sb_txn);
    sync_mc_groups(sb_db, sb_txn, m, &keep_dp);
    hmapx_destroy(&keep_dp);
}

void
ls_model_refresh_sb(struct ls_model *m, struct rdb *sb_db)
{
    m->sb_db = sb_db;
    m->chassis_indexed = false;
    m->igmp_indexed = false;
    for (size_t i = 0; i < m->n_new_dps; i++) {
        struct ls_datapath *dp = m->new_dps[i];
        dp->sb = sb_datapath_binding_get_for_uuid(sb_db, &dp->sb_uuid);
    }
    m->n_new_dps = 0;
    for (size_t i = 0; i < m->n_new_ports; i++) {
        struct ls_port *p = m->new_ports[i];
        p->sb = sb_port_binding_get_for_uuid(sb_db, &p->sb_uuid);
    }
    m->n_new_ports = 0;
}

void
ls_model_sync_nb_up(const struct ls_model *m, struct rdb_txn *nb_txn)
{
    const struct ls_port *p;
    HMAP_FOR_EACH (p, name_node, &m->ports) {
        ls_model_sync_port_up(p, nb_txn);
    }
}

void
ls_model_sync_nb_tags(const struct ls_model *m, struct rdb_txn *nb_txn)
{
    const struct ls_port *p;
    HMAP_FOR_EACH (p, name_node, &m->ports) {
        const struct nb_logical_switch_port *nbp = p->nb;
        /* Without tag_request, 'tag' belongs to the CMS; so it does for a
         * port without a parent that asks for tag 0. */
        if (!nbp->n_tag_request
            || (!nbp->tag_request[0] && !is_container_port(nbp))) {
            continue;
        }
        int64_t tag = p->tag;
        size_t n = tag ? 1 : 0;
        if (n != nbp->n_tag || (n && nbp->tag[0] != tag)) {
            rdb_txn_update(nb_txn, &nb_table_logical_switch_port,
                           &nbp->header_.uuid);
            rdb_txn_set_integers(nb_txn, NB_LOGICAL_SWITCH_PORT_COL_TAG,
                                 &tag, n);
        }
    }
}

/* Incremental changes. */

/* Parses the addresses and flags of 'p' from 'p->nb'.  Returns false if
 * any entry is bad: the caller recomputes, so that the problem is reported
 * the way a full pass reports it. */
static bool
parse_port(struct ls_model *m, struct ls_port *p)
{
    const struct nb_logical_switch_port *nbp = p->nb;
    size_t n_bad = m->n_bad_rows;
    m->quiet = true;
    p->enabled = !nbp->n_enabled || nbp->enabled[0];
    p->has_unknown = false;
    parse_port_addresses(m, nbp->name, "addresses", nbp->addresses,
                         nbp->n_addresses, &p->addrs, &p->n_addrs,
                         &p->has_unknown);
    parse_port_addresses(m, nbp->name, "port_security", nbp->port_security,
                         nbp->n_port_security, &p->ps_addrs, &p->n_ps_addrs,
                         NULL);
    if (!strcmp(nbp->type, "virtual")) {
        check_virtual_port(m, p->dp, nbp);
    }
    m->quiet = false;
    return m->n_bad_rows == n_bad;
}

static void
free_port_addresses(struct ls_port *p)
{
    for (size_t i = 0; i < p->n_addrs; i++) {
        lsp_addresses_destroy(&p->addrs[i]);
    }
    free(p->addrs);
    p->addrs = NULL;
    p->n_addrs = 0;
    for (size_t i = 0; i < p->n_ps_addrs; i++) {
        lsp_addresses_destroy(&p->ps_addrs[i]);
    }
    free(p->ps_addrs);
    p->ps_addrs = NULL;
    p->n_ps_addrs = 0;
}

/* True if a full pass would treat 'nbp' like an ordinary port: incremental
 * passes leave container ports and requested tags (which northd writes
 * back to the NB), requested keys and unknown types to it. */
static bool
port_is_simple(const struct nb_logical_switch_port *nbp)
{
    return (!is_container_port(nbp) && !nbp->n_tag_request
            && lsp_type_is_known(nbp->type)
            && !smap_get(&nbp->options, "requested-tnl-key"));
}

struct ls_port *
ls_model_add_port(struct ls_model *m, struct ls_datapath *dp,
                  const struct nb_logical_switch_port *nbp)
{
    if (!port_is_simple(nbp) || ls_model_find_port(m, nbp->name)
        || lr_model_lsp_touches(m->lr, nbp)) {
        return NULL;
    }
    struct ls_port *p = xzalloc(sizeof *p);
    lflow_owner_init(&p->owner);
    lflow_owner_init(&p->dhcp_owner);
    p->nb = nbp;
    p->dp = dp;
    if (!parse_port(m, p)) {
        free_port_addresses(p);
        free(p);
        return NULL;
    }

    struct tnlid_set keys;
    tnlid_set_init(&keys, LS_PORT_KEY_MIN, LS_PORT_KEY_MAX);
    const struct ls_port *q;
    LIST_FOR_EACH (q, dp_node, &dp->ports) {
        tnlid_reserve(&keys, q->tunnel_key);
    }
    p->tunnel_key = tnlid_allocate(&keys);
    tnlid_set_destroy(&keys);
    if (!p->tunnel_key) {
        free_port_addresses(p);
        free(p);
        return NULL;
    }

    /* What assign_tags() gives a port without a parent or tag_request. */
    p->tag = nbp->n_tag ? nbp->tag[0] : 0;
    p->up = ls_port_compute_up(p);
    p->queue_id = port_queue(m, p);

    hmap_insert(&m->ports, &p->name_node, hash_string(nbp->name, 0));
    index_port_dhcp(m, p);
    ovs_list_push_back(&dp->ports, &p->dp_node);
    dp->n_ports++;
    return p;
}

bool
ls_model_update_port(struct ls_model *m, struct ls_port *p)
{
    if (!port_is_simple(p->nb) || lr_model_lsp_touches(m->lr, p->nb)) {
        return false;
    }
    free_port_addresses(p);
    unindex_port_dhcp(m, p);
    index_port_dhcp(m, p);
    ls_model_update_port_queue(m, p);
    return parse_port(m, p);
}

struct uuid
ls_model_remove_port(struct ls_model *m, struct ls_port *p)
{
    struct uuid sb = p->sb_uuid;
    for (size_t i = 0; i < m->n_new_ports; i++) {
        if (m->new_ports[i] == p) {
            m->new_ports[i] = m->new_ports[--m->n_new_ports];
            break;
        }
    }
    hmap_remove(&m->ports, &p->name_node);
    unindex_port_dhcp(m, p);
    ovs_list_remove(&p->dp_node);
    p->dp->n_ports--;
    ls_port_destroy(p);
    return sb;
}

void
ls_model_sync_port(struct ls_model *m, struct rdb_txn *sb_txn,
                   struct ls_port *p)
{
    sync_port_binding(m, sb_txn, p);
}

void
ls_model_sync_dp(struct ls_model *m, struct rdb_txn *sb_txn,
                 struct ls_datapath *dp)
{
    sync_datapath(m, sb_txn, dp);
}

void
ls_model_sync_mc_groups(const struct ls_model *m, struct rdb *sb_db,
                        struct rdb_txn *sb_txn, const struct ls_datapath *dp)
{
    struct shash existing = SHASH_INITIALIZER(&existing);
    const struct sb_multicast_group *mg;
    SB_MULTICAST_GROUP_FOR_EACH (mg, sb_db) {
        if (dp->sb && mg->datapath == dp->sb) {
            index_mc_group(&existing, sb_txn, mg);
        }
    }
    sync_dp_mc_groups(m, sb_txn, dp, &existing);
    struct shash_node *node;
    SHASH_FOR_EACH (node, &existing) {
        const struct sb_multicast_group *dead = node->data;
        rdb_txn_delete(sb_txn, &sb_table_multicast_group,
                       &dead->header_.uuid);
    }
    shash_destroy(&existing);
}

struct ls_datapath *
ls_model_add_switch(struct ls_model *m, const struct nb_logical_switch *ls)
{
    if (m->n_datapaths >= m->sw_cap
        || smap_get(&ls->other_config, "requested-tnl-key")
        || ls_model_find_datapath(m, &ls->header_.uuid)) {
        return NULL;
    }
    struct tnlid_set keys;
    tnlid_set_init(&keys, LS_DP_KEY_MIN, LS_DP_KEY_MAX);
    for (size_t i = 0; i < ls_model_n_all(m); i++) {
        tnlid_reserve(&keys, ls_model_dp_at(m, i)->tunnel_key);
    }
    uint32_t key = tnlid_allocate(&keys);
    tnlid_set_destroy(&keys);
    if (!key) {
        return NULL;
    }

    struct ls_datapath *dp = xzalloc(sizeof *dp);
    dp->nb = ls;
    dp->index = m->n_datapaths;
    dp->tunnel_key = key;
    lflow_owner_init(&dp->owner);
    lflow_owner_init(&dp->dhcp_owner);
    ovs_list_init(&dp->ports);
    hmap_insert(&m->datapaths, &dp->uuid_node, uuid_hash(&ls->header_.uuid));
    m->dp_array[m->n_datapaths++] = dp;
    return dp;
}

bool
ls_port_compute_up(const struct ls_port *p)
{
    const struct sb_port_binding *pb = p->sb;
    if (!strcmp(p->nb->type, "router")) {
        return true;
    } else if (!pb || !pb->chassis) {
        return false;
    } else if (smap_get_bool(&pb->chassis->other_config, "port-up-notif",
                             false)) {
        return pb->n_up && pb->up[0];
    } else {
        return true;
    }
}

bool
ls_port_requests_chassis(const struct ls_port *p,
                         const struct sb_chassis *ch)
{
    const struct sb_port_binding *pb = p->sb;
    if (pb) {
        if (pb->requested_chassis == ch) {
            return true;
        }
        for (size_t i = 0; i < pb->n_requested_additional_chassis; i++) {
            if (pb->requested_additional_chassis[i] == ch) {
                return true;
            }
        }
    }
    /* A cheap test that may say yes too often: the sync decides. */
    const char *option = smap_get(&p->nb->options, "requested-chassis");
    return (option && ((ch->name[0] && strstr(option, ch->name))
                       || (ch->hostname && ch->hostname[0]
                           && strstr(option, ch->hostname))));
}

void
ls_model_sync_port_up(const struct ls_port *p, struct rdb_txn *nb_txn)
{
    bool up = ls_port_compute_up(p);
    if (!p->nb->n_up || p->nb->up[0] != up) {
        rdb_txn_update(nb_txn, &nb_table_logical_switch_port,
                       &p->nb->header_.uuid);
        rdb_txn_set_bools(nb_txn, NB_LOGICAL_SWITCH_PORT_COL_UP, &up, 1);
    }
}
