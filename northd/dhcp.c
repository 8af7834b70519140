/* Native DHCP: the option code tables and the responder flows (see
 * dhcp.h and docs/dhcp.md). */
#include <config.h>
#include "northd/dhcp.h"

#include <string.h>

#include "coverage.h"
#include "hash.h"
#include "lib/dhcp-opts.h"
#include "lib/lex.h"
#include "lib/nb-rdb.h"
#include "lib/rdb.h"
#include "lib/sb-rdb.h"
#include "northd/datapaths.h"
#include "northd/lflow.h"
#include "northd/pipeline.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "smap.h"
#include "util.h"
#include "uuid.h"
#include "uuidset.h"

VLOG_DEFINE_THIS_MODULE(dhcp);

COVERAGE_DEFINE(dhcp_sb_row_written);
COVERAGE_DEFINE(dhcp_sb_row_deleted);
COVERAGE_DEFINE(dhcp_port_compiled);

/* The SB option code tables. */

/* One row of either table, as read. */
struct sb_opt_row {
    const struct uuid *uuid;
    const char *name;
    const char *type;
    int64_t code;
};

static void
sync_opt_table(const struct rdb_table_class *tc, size_t col_name,
               size_t col_code, size_t col_type,
               const struct dhcp_opt *opts, size_t n_opts,
               const struct sb_opt_row *rows, size_t n_rows,
               struct rdb_txn *txn)
{
    bool *have = xzalloc(MAX(n_opts, 1) * sizeof *have);
    for (size_t i = 0; i < n_rows; i++) {
        const struct sb_opt_row *r = &rows[i];
        size_t j;
        for (j = 0; j < n_opts; j++) {
            if (!strcmp(opts[j].name, r->name)) {
                break;
            }
        }
        if (j == n_opts || have[j]) {
            /* Unknown, or a duplicate. */
            rdb_txn_delete(txn, tc, r->uuid);
            COVERAGE_INC(dhcp_sb_row_deleted);
            continue;
        }
        have[j] = true;
        if (r->code != opts[j].code || strcmp(r->type, opts[j].type)) {
            rdb_txn_update(txn, tc, r->uuid);
            rdb_txn_set_integer(txn, col_code, opts[j].code);
            rdb_txn_set_string(txn, col_type, opts[j].type);
            COVERAGE_INC(dhcp_sb_row_written);
        }
    }
    for (size_t j = 0; j < n_opts; j++) {
        if (!have[j]) {
            struct uuid uuid;
            rdb_uuid_generate(&uuid);
            rdb_txn_insert(txn, tc, &uuid);
            rdb_txn_set_string(txn, col_name, opts[j].name);
            rdb_txn_set_integer(txn, col_code, opts[j].code);
            rdb_txn_set_string(txn, col_type, opts[j].type);
            COVERAGE_INC(dhcp_sb_row_written);
        }
    }
    free(have);
}

void
dhcp_sync_sb(struct rdb *sb, struct rdb_txn *txn)
{
    size_t n_opts, n = 0;
    const struct dhcp_opt *opts;
    struct sb_opt_row *rows = xmalloc(MAX(sb_dhcp_options_count(sb),
                                          sb_dhcpv6_options_count(sb))
                                      * sizeof *rows + sizeof *rows);

    const struct sb_dhcp_options *r4;
    SB_DHCP_OPTIONS_FOR_EACH (r4, sb) {
        rows[n++] = (struct sb_opt_row) {
            &r4->header_.uuid, r4->name, r4->type, r4->code };
    }
    opts = dhcp_opts_v4(&n_opts);
    sync_opt_table(&sb_table_dhcp_options, SB_DHCP_OPTIONS_COL_NAME,
                   SB_DHCP_OPTIONS_COL_CODE, SB_DHCP_OPTIONS_COL_TYPE,
                   opts, n_opts, rows, n, txn);

    n = 0;
    const struct sb_dhcpv6_options *r6;
    SB_DHCPV6_OPTIONS_FOR_EACH (r6, sb) {
        rows[n++] = (struct sb_opt_row) {
            &r6->header_.uuid, r6->name, r6->type, r6->code };
    }
    opts = dhcp_opts_v6(&n_opts);
    sync_opt_table(&sb_table_dhcpv6_options, SB_DHCPV6_OPTIONS_COL_NAME,
                   SB_DHCPV6_OPTIONS_COL_CODE, SB_DHCPV6_OPTIONS_COL_TYPE,
                   opts, n_opts, rows, n, txn);
    free(rows);
}

bool
dhcp_sb_changed(struct rdb *sb)
{
    return (rdb_track_first(sb, &sb_table_dhcp_options)
            || rdb_track_first(sb, &sb_table_dhcpv6_options));
}

/* Checking a DHCP_Options row. */

/* 'row' if it is one to compile from: not a placeholder for a row the
 * replica does not have (yet), which has no contents. */
static const struct nb_dhcp_options *
usable(const struct nb_dhcp_options *row)
{
    return (row && row->header_.state != RDB_ROW_ORPHAN && row->cidr
            ? row : NULL);
}

/* What a DHCPv4 row gives, if it is usable. */
struct dhcp4_row {
    ovs_be32 net, mask;
    const char *server_id;      /* As written: a valid IPv4 address. */
    const char *server_mac;     /* As written: a valid MAC. */
};

/* The options stock requires, with the values the flows need.  Returns
 * false if one is missing.  Sets '*error' (for the caller to free) if one
 * is missing or cannot be written into a flow. */
static bool
dhcp4_server(const struct nb_dhcp_options *row, struct dhcp4_row *out,
             char **error)
{
    const struct smap *o = &row->options;
    out->server_id = smap_get(o, "server_id");
    out->server_mac = smap_get(o, "server_mac");
    if (!out->server_id || !out->server_mac || !smap_get(o, "lease_time")) {
        *error = xstrdup("options server_id, server_mac and lease_time "
                         "are required");
        return false;
    }
    ovs_be32 ip;
    struct eth_addr ea;
    if (!ip_parse(out->server_id, &ip)) {
        *error = xasprintf("server_id \"%s\" is not an IPv4 address",
                           out->server_id);
        return false;
    }
    if (!eth_addr_from_string(out->server_mac, &ea)) {
        *error = xasprintf("server_mac \"%s\" is not a MAC address",
                           out->server_mac);
        return false;
    }
    return true;
}

/* Checks the options of 'row' of version 'v6' (all but those in 'skip',
 * NULL-terminated) against what ovn-controller accepts. */
static char *
check_options(const struct smap *options, bool v6, const char *const *skip)
{
    const struct smap_node **sorted = smap_sort(options);
    char *error = NULL;
    for (size_t i = 0; i < smap_count(options) && !error; i++) {
        const struct smap_node *node = sorted[i];
        bool skipped = false;
        for (const char *const *s = skip; *s; s++) {
            skipped |= !strcmp(node->key, *s);
        }
        if (skipped) {
            continue;
        }
        const struct dhcp_opt *opt = dhcp_opt_find(v6, node->key);
        if (!opt) {
            error = xasprintf("option \"%s\" is not a DHCPv%d option "
                              "ovn-controller knows", node->key,
                              v6 ? 6 : 4);
            break;
        }
        char *e = dhcp_opt_check_value(opt, node->value);
        if (e) {
            error = xasprintf("option %s=%s: %s", node->key, node->value, e);
            free(e);
        }
    }
    free(sorted);
    return error;
}

/* Whether DHCPv4 flows can be made from 'row': NULL if so, otherwise the
 * problem.  Fills '*out' if so. */
static char *
dhcp4_row_problem(const struct nb_dhcp_options *row, struct dhcp4_row *out)
{
    char *error = ip_parse_masked(row->cidr, &out->net, &out->mask);
    if (error) {
        char *e = xasprintf("cidr \"%s\" is not an IPv4 network: %s",
                            row->cidr, error);
        free(error);
        return e;
    }
    if (!dhcp4_server(row, out, &error)) {
        return error;
    }
    static const char *const skip[] = { "server_mac", NULL };
    return check_options(&row->options, false, skip);
}

/* What a DHCPv6 row gives, if it is usable. */
struct dhcp6_row {
    struct in6_addr net, mask;
    const char *server_id;      /* As written: a valid MAC. */
    char server_ip[INET6_ADDRSTRLEN];   /* Its link-local address. */
};

static bool
dhcp6_server(const struct nb_dhcp_options *row, struct dhcp6_row *out,
             char **error)
{
    struct eth_addr ea;
    out->server_id = smap_get(&row->options, "server_id");
    if (!out->server_id) {
        *error = xstrdup("option server_id is required");
        return false;
    }
    if (!eth_addr_from_string(out->server_id, &ea)) {
        *error = xasprintf("server_id \"%s\" is not a MAC address",
                           out->server_id);
        return false;
    }
    struct in6_addr lla;
    in6_generate_lla(ea, &lla);
    ipv6_string_mapped(out->server_ip, &lla);
    return true;
}

static char *
dhcp6_row_problem(const struct nb_dhcp_options *row, struct dhcp6_row *out)
{
    char *error = ipv6_parse_masked(row->cidr, &out->net, &out->mask);
    if (error) {
        char *e = xasprintf("cidr \"%s\" is not an IPv6 network: %s",
                            row->cidr, error);
        free(error);
        return e;
    }
    if (!dhcp6_server(row, out, &error)) {
        return error;
    }
    static const char *const skip[] = { "dhcpv6_stateless", NULL };
    return check_options(&row->options, true, skip);
}

/* options:hostname of a port, if it has one that goes into its DHCPv4
 * replies. */
static const char *
port_hostname(const struct ls_port *p)
{
    return smap_get(&p->nb->options, "hostname");
}

static char *
hostname_problem(const struct ls_port *p)
{
    const char *hostname = port_hostname(p);
    if (!hostname || !usable(p->nb->dhcpv4_options)) {
        return NULL;
    }
    char *e = dhcp_opt_check_value(dhcp_opt_find(false, "hostname"),
                                   hostname);
    if (e) {
        char *msg = xasprintf("options:hostname=%s: %s", hostname, e);
        free(e);
        return msg;
    }
    return NULL;
}

/* Whether stock compiles DHCP for 'p' at all. */
static bool
port_has_dhcp(const struct ls_port *p)
{
    return p->enabled && strcmp(p->nb->type, "router");
}

/* A DHCP_Options row as the ports of the model use it. */
struct row_use {
    struct hmap_node node;      /* By row UUID and 'v6'. */
    const struct nb_dhcp_options *row;
    bool v6;
    size_t n_ports;
    const char *first;          /* The lowest name among the ports. */
};

static void
add_row_use(struct hmap *uses, const struct nb_dhcp_options *row, bool v6,
            const char *port)
{
    uint32_t hash = hash_int(v6, uuid_hash(&row->header_.uuid));
    struct row_use *u;
    HMAP_FOR_EACH_WITH_HASH (u, node, hash, uses) {
        if (u->row == row && u->v6 == v6) {
            u->n_ports++;
            if (strcmp(port, u->first) < 0) {
                u->first = port;
            }
            return;
        }
    }
    u = xmalloc(sizeof *u);
    *u = (struct row_use) { .row = row, .v6 = v6, .n_ports = 1,
                            .first = port };
    hmap_insert(uses, &u->node, hash);
}

void
dhcp_check_model(struct ls_model *m, struct uuidset *bad)
{
    struct hmap uses = HMAP_INITIALIZER(&uses);
    const struct ls_port *p;
    HMAP_FOR_EACH (p, name_node, &m->ports) {
        if (usable(p->nb->dhcpv4_options)) {
            add_row_use(&uses, p->nb->dhcpv4_options, false, p->nb->name);
        }
        if (usable(p->nb->dhcpv6_options)) {
            add_row_use(&uses, p->nb->dhcpv6_options, true, p->nb->name);
        }
        char *e = hostname_problem(p);
        if (e) {
            char *msg = xasprintf("Logical_Switch_Port %s: %s: no DHCPv4 "
                                  "replies", p->nb->name, e);
            ls_model_report_bad_row(m, msg);
            uuidset_insert(bad, &p->nb->header_.uuid);
            free(msg);
            free(e);
        }
    }

    struct row_use *u;
    HMAP_FOR_EACH_POP (u, node, &uses) {
        char *e;
        if (u->v6) {
            struct dhcp6_row d;
            e = dhcp6_row_problem(u->row, &d);
        } else {
            struct dhcp4_row d;
            e = dhcp4_row_problem(u->row, &d);
        }
        if (e) {
            char *msg = xasprintf("DHCP_Options "UUID_FMT" (cidr \"%s\"), "
                                  "the DHCPv%d options of %"PRIuSIZE
                                  " port(s) (%s%s): %s: no DHCPv%d replies",
                                  UUID_ARGS(&u->row->header_.uuid),
                                  u->row->cidr, u->v6 ? 6 : 4, u->n_ports,
                                  u->first, u->n_ports > 1 ? ", ..." : "",
                                  e, u->v6 ? 6 : 4);
            ls_model_report_bad_row(m, msg);
            uuidset_insert(bad, &u->row->header_.uuid);
            free(msg);
            free(e);
        }
        free(u);
    }
    hmap_destroy(&uses);
}

bool
dhcp_port_needs_report(const struct ls_port *p, const struct uuidset *bad)
{
    const struct nb_dhcp_options *r4 = usable(p->nb->dhcpv4_options);
    const struct nb_dhcp_options *r6 = usable(p->nb->dhcpv6_options);
    if (uuidset_contains(bad, &p->nb->header_.uuid)
        || (r4 && uuidset_contains(bad, &r4->header_.uuid))
        || (r6 && uuidset_contains(bad, &r6->header_.uuid))) {
        return true;
    }
    char *e = NULL;
    if (r4) {
        struct dhcp4_row d;
        e = dhcp4_row_problem(r4, &d);
    }
    if (!e && r6) {
        struct dhcp6_row d;
        e = dhcp6_row_problem(r6, &d);
    }
    if (!e) {
        e = hostname_problem(p);
    }
    free(e);
    return e != NULL;
}

/* Flows. */

/* One option of an action, in the order stock writes them: by name, and
 * among equal names (the netmask northd adds and one the row has) by
 * 'rank'. */
struct opt_item {
    const char *key;
    const char *value;
    int rank;
};

static int
opt_item_compare(const void *a_, const void *b_)
{
    const struct opt_item *a = a_;
    const struct opt_item *b = b_;
    int c = strcmp(a->key, b->key);
    return c ? c : a->rank - b->rank;
}

/* Appends the options of 'options', less 'skip', with 'hostname' instead
 * of the row's own if nonnull, and 'netmask' if nonnull, as "k = v"
 * separated by ", " (and preceded by one unless 'first'). */
static void
put_options(struct ds *s, const struct smap *options, const char *skip,
            const char *hostname, const char *netmask, bool first)
{
    struct opt_item *items = xmalloc((smap_count(options) + 2)
                                     * sizeof *items);
    size_t n = 0;
    const struct smap_node *node;
    SMAP_FOR_EACH (node, options) {
        if (!strcmp(node->key, skip)
            || (hostname && !strcmp(node->key, "hostname"))) {
            continue;
        }
        items[n++] = (struct opt_item) { node->key, node->value, 1 };
    }
    if (hostname) {
        items[n++] = (struct opt_item) { "hostname", hostname, 1 };
    }
    if (netmask) {
        items[n++] = (struct opt_item) { "netmask", netmask, 0 };
    }
    qsort(items, n, sizeof *items, opt_item_compare);
    for (size_t i = 0; i < n; i++) {
        ds_put_format(s, "%s%s = %s", first && !i ? "" : ", ", items[i].key,
                      items[i].value);
    }
    free(items);
}

/* Where the DHCP requests of a port come in: through the port itself, or,
 * for an external port, through a localnet port 'inport' on the chassis
 * where the external port is resident. */
struct dhcp_in {
    const char *inport;
    const char *resident;       /* NULL, or the external port. */
};

static void
put_inport(struct ds *match, const struct dhcp_in *in)
{
    ds_put_cstr(match, "inport == ");
    lex_put_string(match, in->inport);
}

static void
put_resident(struct ds *match, const struct dhcp_in *in)
{
    if (in->resident) {
        ds_put_cstr(match, " && is_chassis_resident(");
        lex_put_string(match, in->resident);
        ds_put_char(match, ')');
    }
}

static void
build_dhcp4(struct lflow_table *t, const struct ls_port *p,
            const struct dhcp_in *in, const struct dhcp4_row *d,
            struct ds *match, struct ds *actions)
{
    const struct nb_dhcp_options *row = p->nb->dhcpv4_options;
    const struct uuid *hint = &row->header_.uuid;
    char netmask[INET_ADDRSTRLEN];
    snprintf(netmask, sizeof netmask, IP_FMT, IP_ARGS(d->mask));

    for (size_t i = 0; i < p->n_addrs; i++) {
        const struct lsp_addresses *la = &p->addrs[i];
        for (size_t j = 0; j < la->n_ipv4; j++) {
            ovs_be32 ip = la->ipv4[j].addr;
            if ((ip ^ d->net) & d->mask) {
                continue;
            }
            /* The first address of the entry in the cidr.  The options as
             * stock writes them: sorted by name, server_mac left out, the
             * netmask of the cidr added (before one of the row's own,
             * which then comes twice) and options:hostname of the port in
             * place of the row's hostname. */
            ds_clear(actions);
            ds_put_format(actions, REGBIT_DHCP_OPTS_RESULT" = put_dhcp_opts("
                          "offerip = "IP_FMT, IP_ARGS(ip));
            put_options(actions, &row->options, "server_mac",
                        port_hostname(p), netmask, false);
            ds_put_cstr(actions, "); next;");

            ds_clear(match);
            put_inport(match, in);
            ds_put_format(match, " && eth.src == "
                          ETH_ADDR_FMT" && ip4.src == 0.0.0.0 && "
                          "ip4.dst == 255.255.255.255 && udp.src == 68 && "
                          "udp.dst == 67",
                          ETH_ADDR_ARGS(la->ea));
            put_resident(match, in);
            lflow_add_port(t, p->dp, S_IN_DHCP_OPTIONS, 100, ds_cstr(match),
                           ds_cstr(actions), hint);

            /* Renewals, to the server or broadcast. */
            ds_clear(match);
            put_inport(match, in);
            ds_put_format(match, " && eth.src == "
                          ETH_ADDR_FMT" && ip4.src == "IP_FMT" && "
                          "ip4.dst == {%s, 255.255.255.255} && "
                          "udp.src == 68 && udp.dst == 67",
                          ETH_ADDR_ARGS(la->ea), IP_ARGS(ip), d->server_id);
            put_resident(match, in);
            lflow_add_port(t, p->dp, S_IN_DHCP_OPTIONS, 100, ds_cstr(match),
                           ds_cstr(actions), hint);

            ds_clear(match);
            put_inport(match, in);
            ds_put_format(match, " && eth.src == "
                          ETH_ADDR_FMT" && ip4 && udp.src == 68 && "
                          "udp.dst == 67 && "REGBIT_DHCP_OPTS_RESULT,
                          ETH_ADDR_ARGS(la->ea));
            put_resident(match, in);
            ds_clear(actions);
            ds_put_format(actions, "eth.dst = eth.src; eth.src = %s; "
                          "ip4.src = %s; udp.src = 67; udp.dst = 68; "
                          "outport = inport; flags.loopback = 1; output;",
                          d->server_mac, d->server_id);
            lflow_add_port(t, p->dp, S_IN_DHCP_RESPONSE, 100, ds_cstr(match),
                           ds_cstr(actions), hint);
            break;
        }
    }
}

static bool
ip6_in(const struct in6_addr *ip, const struct dhcp6_row *d)
{
    for (size_t i = 0; i < sizeof ip->s6_addr; i++) {
        if ((ip->s6_addr[i] ^ d->net.s6_addr[i]) & d->mask.s6_addr[i]) {
            return false;
        }
    }
    return true;
}

static void
build_dhcp6(struct lflow_table *t, const struct ls_port *p,
            const struct dhcp_in *in, const struct dhcp6_row *d,
            struct ds *match, struct ds *actions)
{
    const struct nb_dhcp_options *row = p->nb->dhcpv6_options;
    const struct uuid *hint = &row->header_.uuid;
    bool stateless = smap_get_bool(&row->options, "dhcpv6_stateless", false);

    for (size_t i = 0; i < p->n_addrs; i++) {
        const struct lsp_addresses *la = &p->addrs[i];
        for (size_t j = 0; j < la->n_ipv6; j++) {
            const struct in6_addr *ip = &la->ipv6[j].addr;
            if (!ip6_in(ip, d)) {
                continue;
            }
            /* Stateless: no address, only the options. */
            ds_clear(actions);
            ds_put_cstr(actions, REGBIT_DHCP_OPTS_RESULT
                        " = put_dhcpv6_opts(");
            if (!stateless) {
                char s[INET6_ADDRSTRLEN];
                ipv6_string_mapped(s, ip);
                ds_put_format(actions, "ia_addr = %s", s);
            }
            put_options(actions, &row->options, "dhcpv6_stateless", NULL,
                        NULL, stateless);
            ds_put_cstr(actions, "); next;");

            ds_clear(match);
            put_inport(match, in);
            ds_put_format(match, " && eth.src == "
                          ETH_ADDR_FMT" && ip6.dst == ff02::1:2 && "
                          "udp.src == 546 && udp.dst == 547",
                          ETH_ADDR_ARGS(la->ea));
            put_resident(match, in);
            lflow_add_port(t, p->dp, S_IN_DHCP_OPTIONS, 100, ds_cstr(match),
                           ds_cstr(actions), hint);

            ds_put_cstr(match, " && "REGBIT_DHCP_OPTS_RESULT);
            ds_clear(actions);
            ds_put_format(actions, "eth.dst = eth.src; eth.src = %s; "
                          "ip6.dst = ip6.src; ip6.src = %s; udp.src = 547; "
                          "udp.dst = 546; outport = inport; "
                          "flags.loopback = 1; output;",
                          d->server_id, d->server_ip);
            lflow_add_port(t, p->dp, S_IN_DHCP_RESPONSE, 100, ds_cstr(match),
                           ds_cstr(actions), hint);
            break;
        }
    }
}

/* The DHCP flows of 'p' for requests that come in as 'in' says. */
static void
build_port_dhcp(struct lflow_table *t, const struct ls_port *p,
                const struct dhcp_in *in)
{
    const struct nb_dhcp_options *r4 = usable(p->nb->dhcpv4_options);
    const struct nb_dhcp_options *r6 = usable(p->nb->dhcpv6_options);
    struct ds match = DS_EMPTY_INITIALIZER;
    struct ds actions = DS_EMPTY_INITIALIZER;
    if (r4) {
        struct dhcp4_row d;
        char *e = dhcp4_row_problem(r4, &d);
        if (!e) {
            e = hostname_problem(p);
        }
        if (!e) {
            build_dhcp4(t, p, in, &d, &match, &actions);
            COVERAGE_INC(dhcp_port_compiled);
        }
        free(e);
    }
    if (r6) {
        struct dhcp6_row d;
        char *e = dhcp6_row_problem(r6, &d);
        if (!e) {
            build_dhcp6(t, p, in, &d, &match, &actions);
            COVERAGE_INC(dhcp_port_compiled);
        }
        free(e);
    }
    ds_destroy(&match);
    ds_destroy(&actions);
}

static bool
is_external(const struct ls_port *p)
{
    return !strcmp(p->nb->type, "external");
}

void
dhcp_build_port_lflows(struct lflow_table *t, const struct ls_port *p)
{
    if ((!usable(p->nb->dhcpv4_options) && !usable(p->nb->dhcpv6_options))
        || !port_has_dhcp(p) || is_external(p)) {
        return;
    }
    const struct dhcp_in in = { .inport = p->nb->name, .resident = NULL };
    build_port_dhcp(t, p, &in);
}

/* An external port's requests come in through each localnet port of its
 * switch, and are answered on the chassis where the port is resident (its
 * HA chassis group's): without either, stock answers none. */
static void
build_external_dhcp(struct lflow_table *t, const struct ls_datapath *dp,
                    const struct ls_port *ext)
{
    if ((!usable(ext->nb->dhcpv4_options)
         && !usable(ext->nb->dhcpv6_options))
        || !port_has_dhcp(ext) || !ext->nb->ha_chassis_group) {
        return;
    }
    const struct ls_port *ln;
    LIST_FOR_EACH (ln, dp_node, &dp->ports) {
        if (!strcmp(ln->nb->type, "localnet")) {
            const struct dhcp_in in = { .inport = ln->nb->name,
                                        .resident = ext->nb->name };
            build_port_dhcp(t, ext, &in);
        }
    }
}

void
dhcp_build_dp_lflows(struct lflow_table *t, const struct ls_datapath *dp,
                     bool stateful)
{
    const char *actions = stateful ? "ct_commit; next;" : "next;";
    struct ds match = DS_EMPTY_INITIALIZER;
    const struct ls_port *p;
    LIST_FOR_EACH (p, dp_node, &dp->ports) {
        if (is_external(p)) {
            /* Its flows depend on the switch's localnet ports: the
             * switch's, rebuilt with any of its ports.  Its replies leave
             * through the localnet port: no ACL flow, as stock. */
            build_external_dhcp(t, dp, p);
            continue;
        }
        const struct nb_dhcp_options *r4 = usable(p->nb->dhcpv4_options);
        const struct nb_dhcp_options *r6 = usable(p->nb->dhcpv6_options);
        char *e = NULL;
        if (r4) {
            struct dhcp4_row d;
            if (dhcp4_server(r4, &d, &e)) {
                ds_clear(&match);
                ds_put_cstr(&match, "outport == ");
                lex_put_string(&match, p->nb->name);
                ds_put_format(&match, " && eth.src == %s && "
                              "ip4.src == %s && udp && udp.src == 67 && "
                              "udp.dst == 68", d.server_mac,
                              d.server_id);
                lflow_add_port(t, dp, S_OUT_ACL, PRI_ACL_INFRA,
                               ds_cstr(&match), actions, &r4->header_.uuid);
            }
            free(e);
            e = NULL;
        }
        if (r6) {
            struct dhcp6_row d;
            if (dhcp6_server(r6, &d, &e)) {
                ds_clear(&match);
                ds_put_cstr(&match, "outport == ");
                lex_put_string(&match, p->nb->name);
                ds_put_format(&match, " && eth.src == %s && "
                              "ip6.src == %s && udp && udp.src == 547 && "
                              "udp.dst == 546", d.server_id,
                              d.server_ip);
                lflow_add_port(t, dp, S_OUT_ACL, PRI_ACL_INFRA,
                               ds_cstr(&match), actions, &r6->header_.uuid);
            }
            free(e);
        }
    }
    ds_destroy(&match);
}
