/* ovn-nbctl: logical router and logical router port commands.
 *
 * These commands monitor the router tables in full (they are not
 * condition-capable): routers and their ports are few next to switch
 * ports and ACLs. */
#include <config.h>

#include "utilities/nbctl.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "openvswitch/dynamic-string.h"
#include "openvswitch/shash.h"
#include "ovsdb-data.h"
#include "ovsdb-idl.h"
#include "packets.h"
#include "smap.h"
#include "svec.h"
#include "util.h"
#include "uuid.h"

/* ------------------------------------------------------------------------
 * Lookups.
 * --------------------------------------------------------------------- */

const struct nbrec_logical_router *
lr_by_name_or_uuid(struct ctl_context *ctx, const char *id, bool must_exist)
{
    const struct nbrec_logical_router *lr = NULL;
    struct uuid uuid;
    bool is_uuid = uuid_from_string(&uuid, id);

    if (is_uuid) {
        lr = nbrec_logical_router_get_for_uuid(ctx->idl, &uuid);
    }
    if (!lr) {
        const struct nbrec_logical_router *iter;
        NBREC_LOGICAL_ROUTER_FOR_EACH (iter, ctx->idl) {
            if (!strcmp(iter->name, id)) {
                if (lr) {
                    ctl_error(ctx, "Multiple logical routers named '%s'.  "
                              "Use a UUID.", id);
                    return NULL;
                }
                lr = iter;
            }
        }
    }
    if (!lr && must_exist) {
        ctl_error(ctx, "%s: router %s not found", id,
                  is_uuid ? "UUID" : "name");
    }
    return lr;
}

const struct nbrec_logical_router_port *
lrp_by_name_or_uuid(struct ctl_context *ctx, const char *id, bool must_exist)
{
    const struct nbrec_logical_router_port *lrp = NULL;
    struct uuid uuid;
    bool is_uuid = uuid_from_string(&uuid, id);

    if (is_uuid) {
        lrp = nbrec_logical_router_port_get_for_uuid(ctx->idl, &uuid);
    }
    if (!lrp) {
        const struct nbrec_logical_router_port *iter;
        NBREC_LOGICAL_ROUTER_PORT_FOR_EACH (iter, ctx->idl) {
            if (!strcmp(iter->name, id)) {
                lrp = iter;
                break;
            }
        }
    }
    if (!lrp && must_exist) {
        ctl_error(ctx, "%s: port %s not found", id,
                  is_uuid ? "UUID" : "name");
    }
    return lrp;
}

/* The router holding 'lrp', or NULL (with an error) if none does. */
static const struct nbrec_logical_router *
lrp_to_lr(struct ctl_context *ctx,
          const struct nbrec_logical_router_port *lrp)
{
    const struct nbrec_logical_router *lr;
    NBREC_LOGICAL_ROUTER_FOR_EACH (lr, ctx->idl) {
        for (size_t i = 0; i < lr->n_ports; i++) {
            if (lr->ports[i] == lrp) {
                return lr;
            }
        }
    }
    ctl_error(ctx, "logical port %s is not part of any logical router",
              lrp->name);
    return NULL;
}

static void
pre_lr(struct ctl_context *ctx)
{
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_router_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_router_col_ports);
}

static void
pre_lrp(struct ctl_context *ctx)
{
    pre_lr(ctx);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_router_port_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_router_port_col_mac);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_router_port_col_networks);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_router_port_col_peer);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_router_port_col_enabled);
    ovsdb_idl_add_column(ctx->idl,
                         &nbrec_logical_router_port_col_gateway_chassis);
    ovsdb_idl_add_column(ctx->idl, &nbrec_gateway_chassis_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_gateway_chassis_col_chassis_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_gateway_chassis_col_priority);
    ovsdb_idl_add_column(ctx->idl,
                         &nbrec_logical_router_port_col_ha_chassis_group);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_router_port_col_options);
}

void
nbctl_pre_lrp(struct ctl_context *ctx)
{
    pre_lrp(ctx);
}

/* Prints "UUID (NAME)" for each "NAME\tUUID" in 'lines', sorted by name
 * then UUID, and destroys 'lines'. */
static void
print_uuid_name_lines(struct ds *out, struct svec *lines)
{
    svec_sort(lines);
    for (size_t i = 0; i < lines->n; i++) {
        char *tab = strrchr(lines->names[i], '\t');
        *tab = '\0';
        ds_put_format(out, "%s (%s)\n", tab + 1, lines->names[i]);
    }
    svec_destroy(lines);
}

/* ------------------------------------------------------------------------
 * Logical routers.
 * --------------------------------------------------------------------- */

static void
cmd_lr_add(struct ctl_context *ctx)
{
    const char *name = ctx->argc == 2 ? ctx->argv[1] : NULL;
    bool may_exist = shash_find(&ctx->options, "--may-exist") != NULL;
    bool add_duplicate = shash_find(&ctx->options, "--add-duplicate") != NULL;

    if (may_exist && add_duplicate) {
        ctl_error(ctx, "--may-exist and --add-duplicate may not be used "
                  "together");
        return;
    }
    if (name) {
        if (!add_duplicate) {
            const struct nbrec_logical_router *lr;
            NBREC_LOGICAL_ROUTER_FOR_EACH (lr, ctx->idl) {
                if (!strcmp(lr->name, name)) {
                    if (!may_exist) {
                        ctl_error(ctx, "%s: a router with this name "
                                  "already exists", name);
                    }
                    return;
                }
            }
        }
    } else if (may_exist) {
        ctl_error(ctx, "--may-exist requires specifying a name");
        return;
    } else if (add_duplicate) {
        ctl_error(ctx, "--add-duplicate requires specifying a name");
        return;
    }

    struct nbrec_logical_router *lr = nbrec_logical_router_insert(ctx->txn);
    if (name) {
        nbrec_logical_router_set_name(lr, name);
    }
}

static void
cmd_lr_del(struct ctl_context *ctx)
{
    bool must_exist = !shash_find(&ctx->options, "--if-exists");
    const struct nbrec_logical_router *lr
        = lr_by_name_or_uuid(ctx, ctx->argv[1], must_exist);
    if (lr) {
        /* Ports, routes, policies and NAT rules are not root rows: the
         * server collects them. */
        nbrec_logical_router_delete(lr);
    }
}

static void
cmd_lr_list(struct ctl_context *ctx)
{
    const struct nbrec_logical_router *lr;
    struct svec lines = SVEC_EMPTY_INITIALIZER;

    NBREC_LOGICAL_ROUTER_FOR_EACH (lr, ctx->idl) {
        svec_add_nocopy(&lines, xasprintf("%s\t"UUID_FMT, lr->name,
                                          UUID_ARGS(&lr->header_.uuid)));
    }
    print_uuid_name_lines(&ctx->output, &lines);
}

/* ------------------------------------------------------------------------
 * Logical router ports.
 * --------------------------------------------------------------------- */

/* A router port network, "IP/PLEN" (or just "IP", a host route), parsed
 * for comparison. */
struct lrp_network {
    bool is_v6;
    struct in6_addr ip;         /* IPv4 as an IPv4-mapped address. */
    unsigned int plen;
};

/* Parses 's' strictly: the address must be a dotted quad or an IPv6
 * address (inet_pton(), so that "10.0.0.300" is not read as 10.0.0.44 as
 * OVS's scanners do), the prefix length decimal and in range. */
static bool
parse_lrp_network(const char *s, struct lrp_network *net)
{
    const char *slash = strchr(s, '/');
    char *addr = xmemdup0(s, slash ? slash - s : strlen(s));
    bool ok = true;

    memset(net, 0, sizeof *net);
    ovs_be32 ip4;
    if (inet_pton(AF_INET, addr, &ip4) == 1) {
        net->is_v6 = false;
        net->ip = in6_addr_mapped_ipv4(ip4);
        net->plen = 32;
    } else if (inet_pton(AF_INET6, addr, &net->ip) == 1) {
        net->is_v6 = true;
        net->plen = 128;
    } else {
        ok = false;
    }
    free(addr);

    if (ok && slash) {
        const char *p = slash + 1;
        unsigned int max = net->plen;
        unsigned long int plen = 0;
        if (!*p || strlen(p) > 3) {
            return false;
        }
        for (; *p; p++) {
            if (*p < '0' || *p > '9') {
                return false;
            }
            plen = plen * 10 + (*p - '0');
        }
        if (plen > max) {
            return false;
        }
        net->plen = plen;
    }
    return ok;
}

static int
compare_lrp_networks(const void *a_, const void *b_)
{
    const struct lrp_network *a = a_, *b = b_;
    int cmp = memcmp(&a->ip, &b->ip, sizeof a->ip);
    return cmp ? cmp : (a->plen > b->plen) - (a->plen < b->plen);
}

/* Parses each of 'n' networks into a sorted array, or returns NULL after
 * reporting the first bad one for port 'lrp_name'. */
static struct lrp_network *
parse_lrp_networks(struct ctl_context *ctx, const char *lrp_name,
                   char **networks, size_t n)
{
    struct lrp_network *nets = xmalloc(MAX(n, 1) * sizeof *nets);
    for (size_t i = 0; i < n; i++) {
        if (!parse_lrp_network(networks[i], &nets[i])) {
            ctl_error(ctx, "%s: invalid network address: %s", lrp_name,
                      networks[i]);
            free(nets);
            return NULL;
        }
    }
    qsort(nets, n, sizeof *nets, compare_lrp_networks);
    return nets;
}

static void
pre_lrp_add(struct ctl_context *ctx)
{
    pre_lrp(ctx);
    /* The columns COLUMN[:KEY]=VALUE settings name (only those: a column
     * the server's schema lacks would draw a warning). */
    for (size_t i = 4; i < ctx->argc; i++) {
        const char *arg = ctx->argv[i];
        size_t len = strcspn(arg, ":=");
        if (!arg[len] || !strchr(arg, '=')) {
            continue;
        }
        for (size_t j = 0; j < NBREC_LOGICAL_ROUTER_PORT_N_COLUMNS; j++) {
            const struct ovsdb_idl_column *c
                = &nbrec_logical_router_port_columns[j];
            if (strlen(c->name) == len && !strncmp(c->name, arg, len)) {
                ovsdb_idl_add_column(ctx->idl, c);
            }
        }
    }
}

static void
cmd_lrp_add(struct ctl_context *ctx)
{
    bool may_exist = shash_find(&ctx->options, "--may-exist") != NULL;
    const char *lrp_name = ctx->argv[2];
    const char *mac = ctx->argv[3];

    const struct nbrec_logical_router *lr
        = lr_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lr) {
        return;
    }

    /* NETWORK... up to the first argument with "=", then settings. */
    char **networks = &ctx->argv[4];
    size_t n_networks = 0;
    while (4 + n_networks < ctx->argc
           && !strchr(ctx->argv[4 + n_networks], '=')) {
        n_networks++;
    }
    char **settings = &ctx->argv[4 + n_networks];
    size_t n_settings = ctx->argc - 4 - n_networks;
    if (!n_networks) {
        ctl_error(ctx, "%s: router port requires specifying a network",
                  lrp_name);
        return;
    }

    struct eth_addr ea;
    if (!eth_addr_from_string(mac, &ea)) {
        ctl_error(ctx, "%s: invalid mac address %s", lrp_name, mac);
        return;
    }
    /* Stricter than OVN, which leaves a multicast MAC to northd. */
    if (eth_addr_is_multicast(ea)) {
        ctl_error(ctx, "%s: invalid mac address %s (multicast)", lrp_name,
                  mac);
        return;
    }

    struct lrp_network *nets = parse_lrp_networks(ctx, lrp_name, networks,
                                                  n_networks);
    if (!nets) {
        return;
    }

    const char *peer = NULL;
    for (size_t i = 0; i < n_settings; i++) {
        if (!strncmp(settings[i], "peer=", 5)) {
            peer = settings[i] + 5;
        }
    }

    const struct nbrec_logical_router_port *lrp
        = lrp_by_name_or_uuid(ctx, lrp_name, false);
    if (lrp) {
        if (!may_exist) {
            ctl_error(ctx, "%s: a port with this name already exists",
                      lrp_name);
            goto out;
        }
        const struct nbrec_logical_router *lr2 = lrp_to_lr(ctx, lrp);
        if (!lr2) {
            goto out;
        }
        if (lr2 != lr) {
            ctl_error(ctx, "%s: port already exists but in router %s",
                      lrp_name, lr2->name);
            goto out;
        }
        struct eth_addr old_ea;
        if (!eth_addr_from_string(lrp->mac, &old_ea)
            || !eth_addr_equals(ea, old_ea)) {
            ctl_error(ctx, "%s: port already exists with mac %s", lrp_name,
                      lrp->mac);
            goto out;
        }
        bool same = lrp->n_networks == n_networks;
        if (same) {
            struct lrp_network *old = xmalloc(n_networks * sizeof *old);
            for (size_t i = 0; same && i < n_networks; i++) {
                same = parse_lrp_network(lrp->networks[i], &old[i]);
            }
            if (same) {
                qsort(old, n_networks, sizeof *old, compare_lrp_networks);
                same = !memcmp(old, nets, n_networks * sizeof *old);
            }
            free(old);
        }
        if (!same) {
            ctl_error(ctx, "%s: port already exists with different network",
                      lrp_name);
            goto out;
        }
        if ((peer != NULL) != (lrp->peer != NULL)
            || (peer && strcmp(peer, lrp->peer))) {
            ctl_error(ctx, "%s: port already exists with mismatching peer",
                      lrp_name);
            goto out;
        }
        goto out;
    }

    struct nbrec_logical_router_port *new
        = nbrec_logical_router_port_insert(ctx->txn);
    nbrec_logical_router_port_set_name(new, lrp_name);
    nbrec_logical_router_port_set_mac(new, mac);
    nbrec_logical_router_port_set_networks(new, (const char **) networks,
                                           n_networks);
    for (size_t i = 0; i < n_settings; i++) {
        char *error = ctl_set_column("Logical_Router_Port", &new->header_,
                                     settings[i], ctx->symtab);
        if (error) {
            ctx->error = error;
            goto out;
        }
    }
    nbctl_ref_update(&lr->header_, &nbrec_logical_router_col_ports,
                     &new->header_, true);

out:
    free(nets);
}

static void
cmd_lrp_del(struct ctl_context *ctx)
{
    bool must_exist = !shash_find(&ctx->options, "--if-exists");
    const struct nbrec_logical_router_port *lrp
        = lrp_by_name_or_uuid(ctx, ctx->argv[1], must_exist);
    if (!lrp) {
        return;
    }
    const struct nbrec_logical_router *lr = lrp_to_lr(ctx, lrp);
    if (lr) {
        nbctl_ref_update(&lr->header_, &nbrec_logical_router_col_ports,
                         &lrp->header_, false);
        nbrec_logical_router_port_delete(lrp);
    }
}

static void
cmd_lrp_list(struct ctl_context *ctx)
{
    const struct nbrec_logical_router *lr
        = lr_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lr) {
        return;
    }
    struct svec lines = SVEC_EMPTY_INITIALIZER;
    for (size_t i = 0; i < lr->n_ports; i++) {
        const struct nbrec_logical_router_port *lrp = lr->ports[i];
        svec_add_nocopy(&lines, xasprintf("%s\t"UUID_FMT, lrp->name,
                                          UUID_ARGS(&lrp->header_.uuid)));
    }
    print_uuid_name_lines(&ctx->output, &lines);
}

static void
cmd_lrp_set_enabled(struct ctl_context *ctx)
{
    const struct nbrec_logical_router_port *lrp
        = lrp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lrp) {
        return;
    }
    const char *state = ctx->argv[2];
    bool enabled;
    if (!strcasecmp(state, "enabled")) {
        enabled = true;
    } else if (!strcasecmp(state, "disabled")) {
        enabled = false;
    } else {
        ctl_error(ctx, "%s: state must be \"enabled\" or \"disabled\"",
                  state);
        return;
    }
    nbrec_logical_router_port_set_enabled(lrp, &enabled, 1);
}

static void
cmd_lrp_get_enabled(struct ctl_context *ctx)
{
    const struct nbrec_logical_router_port *lrp
        = lrp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (lrp) {
        ds_put_format(&ctx->output, "%s\n",
                      !lrp->enabled || *lrp->enabled ? "enabled"
                                                     : "disabled");
    }
}

/* ------------------------------------------------------------------------
 * Gateway chassis of a router port.
 * --------------------------------------------------------------------- */

static void
cmd_lrp_set_gateway_chassis(struct ctl_context *ctx)
{
    const struct nbrec_logical_router_port *lrp
        = lrp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lrp) {
        return;
    }
    const char *chassis = ctx->argv[2];
    int64_t priority = 0;
    if (ctx->argc == 4) {
        const char *s = ctx->argv[3];
        char *end;
        errno = 0;
        long long int p = strtoll(s, &end, 10);
        if (!*s || *end || errno || p < 0 || p > 32767) {
            ctl_error(ctx, "%s: priority must in range 0...32767", s);
            return;
        }
        priority = p;
    }

    char *gc_name = xasprintf("%s-%s", lrp->name, chassis);
    for (size_t i = 0; i < lrp->n_gateway_chassis; i++) {
        const struct nbrec_gateway_chassis *gc = lrp->gateway_chassis[i];
        if (!strcmp(gc->name, gc_name)) {
            nbrec_gateway_chassis_set_priority(gc, priority);
            free(gc_name);
            return;
        }
    }
    struct nbrec_gateway_chassis *gc = nbrec_gateway_chassis_insert(ctx->txn);
    nbrec_gateway_chassis_set_name(gc, gc_name);
    nbrec_gateway_chassis_set_chassis_name(gc, chassis);
    nbrec_gateway_chassis_set_priority(gc, priority);
    nbctl_ref_update(&lrp->header_,
                     &nbrec_logical_router_port_col_gateway_chassis,
                     &gc->header_, true);
    free(gc_name);
}

static void
cmd_lrp_del_gateway_chassis(struct ctl_context *ctx)
{
    const struct nbrec_logical_router_port *lrp
        = lrp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lrp) {
        return;
    }
    const char *chassis = ctx->argv[2];
    for (size_t i = 0; i < lrp->n_gateway_chassis; i++) {
        const struct nbrec_gateway_chassis *gc = lrp->gateway_chassis[i];
        if (!strcmp(gc->chassis_name, chassis)) {
            nbctl_ref_update(&lrp->header_,
                             &nbrec_logical_router_port_col_gateway_chassis,
                             &gc->header_, false);
            nbrec_gateway_chassis_delete(gc);
            return;
        }
    }
    ctl_error(ctx, "chassis %s is not added to logical port %s", chassis,
              ctx->argv[1]);
}

static int
compare_gc(const void *a_, const void *b_)
{
    const struct nbrec_gateway_chassis *const *a = a_;
    const struct nbrec_gateway_chassis *const *b = b_;
    if ((*a)->priority != (*b)->priority) {
        return (*a)->priority > (*b)->priority ? -1 : 1;
    }
    return strcmp((*a)->name, (*b)->name);
}

static void
cmd_lrp_get_gateway_chassis(struct ctl_context *ctx)
{
    const struct nbrec_logical_router_port *lrp
        = lrp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lrp) {
        return;
    }
    size_t n = lrp->n_gateway_chassis;
    if (!n) {
        return;
    }
    const struct nbrec_gateway_chassis **gcs
        = xmemdup(lrp->gateway_chassis, n * sizeof *gcs);
    qsort(gcs, n, sizeof *gcs, compare_gc);
    for (size_t i = 0; i < n; i++) {
        ds_put_format(&ctx->output, "%s %5"PRId64"\n", gcs[i]->name,
                      gcs[i]->priority);
    }
    free(gcs);
}

/* ------------------------------------------------------------------------
 * Router port options and redirect type.
 * --------------------------------------------------------------------- */

/* Like our lsp-set-options, stricter than stock, which drops an argument
 * without '=' (so that "lrp-set-options P x" clears every option). */
static void
cmd_lrp_set_options(struct ctl_context *ctx)
{
    const struct nbrec_logical_router_port *lrp
        = lrp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lrp) {
        return;
    }

    struct smap options = SMAP_INITIALIZER(&options);
    for (size_t i = 2; i < ctx->argc; i++) {
        const char *eq = strchr(ctx->argv[i], '=');
        if (!eq || eq == ctx->argv[i]) {
            ctl_error(ctx, "%s: options must be KEY=VALUE", ctx->argv[i]);
            smap_destroy(&options);
            return;
        }
        char *key = xmemdup0(ctx->argv[i], eq - ctx->argv[i]);
        smap_replace(&options, key, eq + 1);
        free(key);
    }
    nbrec_logical_router_port_set_options(lrp, &options);
    smap_destroy(&options);
}

static void
cmd_lrp_set_redirect_type(struct ctl_context *ctx)
{
    const struct nbrec_logical_router_port *lrp
        = lrp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lrp) {
        return;
    }
    const char *type = ctx->argv[2];
    if (strcasecmp(type, "overlay") && strcasecmp(type, "bridged")) {
        ctl_error(ctx, "Invalid redirect type: %s", type);
        return;
    }
    struct smap options;
    smap_clone(&options, &lrp->options);
    smap_replace(&options, "redirect-type", type);
    nbrec_logical_router_port_verify_options(lrp);
    nbrec_logical_router_port_set_options(lrp, &options);
    smap_destroy(&options);
}

static void
cmd_lrp_get_redirect_type(struct ctl_context *ctx)
{
    const struct nbrec_logical_router_port *lrp
        = lrp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (lrp) {
        const char *type = smap_get(&lrp->options, "redirect-type");
        ds_put_format(&ctx->output, "%s\n", type ? type : "overlay");
    }
}

/* ------------------------------------------------------------------------
 * "show" for routers.
 * --------------------------------------------------------------------- */

static int
compare_lrp_by_name(const void *a_, const void *b_)
{
    const struct nbrec_logical_router_port *const *a = a_;
    const struct nbrec_logical_router_port *const *b = b_;
    return strcmp((*a)->name, (*b)->name);
}

static int
compare_gc_by_uuid(const void *a_, const void *b_)
{
    const struct nbrec_gateway_chassis *const *a = a_;
    const struct nbrec_gateway_chassis *const *b = b_;
    return uuid_compare_3way(&(*a)->header_.uuid, &(*b)->header_.uuid);
}

static int
compare_nat_by_uuid(const void *a_, const void *b_)
{
    const struct nbrec_nat *const *a = a_;
    const struct nbrec_nat *const *b = b_;
    return uuid_compare_3way(&(*a)->header_.uuid, &(*b)->header_.uuid);
}

/* Prints 'lr' as stock's "show" does, except that ports are in name order
 * (as ours prints switch ports); gateway chassis and NAT rules are in UUID
 * order, as stock's come. */
void
nbctl_print_lr(struct ds *s, const struct nbrec_logical_router *lr)
{
    ds_put_format(s, "router "UUID_FMT" (%s)",
                  UUID_ARGS(&lr->header_.uuid), lr->name);
    const char *aka = smap_get(&lr->external_ids, "neutron:router_name");
    if (aka) {
        ds_put_format(s, " (aka %s)", aka);
    }
    ds_put_char(s, '\n');

    const struct nbrec_logical_router_port **ports
        = xmemdup(lr->ports, lr->n_ports * sizeof *lr->ports);
    qsort(ports, lr->n_ports, sizeof *ports, compare_lrp_by_name);
    for (size_t i = 0; i < lr->n_ports; i++) {
        const struct nbrec_logical_router_port *lrp = ports[i];
        ds_put_format(s, "    port %s\n", lrp->name);
        ds_put_format(s, "        mac: \"%s\"\n", lrp->mac);
        if (lrp->n_networks) {
            ds_put_cstr(s, "        networks: [");
            for (size_t j = 0; j < lrp->n_networks; j++) {
                ds_put_format(s, "%s\"%s\"", j ? ", " : "",
                              lrp->networks[j]);
            }
            ds_put_cstr(s, "]\n");
        }
        if (lrp->n_gateway_chassis) {
            /* In UUID order, as stock prints them. */
            const struct nbrec_gateway_chassis **gcs
                = xmemdup(lrp->gateway_chassis,
                          lrp->n_gateway_chassis * sizeof *gcs);
            qsort(gcs, lrp->n_gateway_chassis, sizeof *gcs,
                  compare_gc_by_uuid);
            ds_put_cstr(s, "        gateway chassis: [");
            for (size_t j = 0; j < lrp->n_gateway_chassis; j++) {
                ds_put_format(s, "%s%s", j ? " " : "",
                              gcs[j]->chassis_name);
            }
            ds_put_cstr(s, "]\n");
            free(gcs);
        }
    }
    free(ports);

    const struct nbrec_nat **nats
        = xmemdup(lr->nat, lr->n_nat * sizeof *lr->nat);
    qsort(nats, lr->n_nat, sizeof *nats, compare_nat_by_uuid);
    for (size_t i = 0; i < lr->n_nat; i++) {
        const struct nbrec_nat *nat = nats[i];
        ds_put_format(s, "    nat "UUID_FMT"\n",
                      UUID_ARGS(&nat->header_.uuid));
        ds_put_format(s, "        external ip: \"%s\"\n", nat->external_ip);
        ds_put_format(s, "        logical ip: \"%s\"\n", nat->logical_ip);
        ds_put_format(s, "        type: \"%s\"\n", nat->type);
    }
    free(nats);
}

/* ------------------------------------------------------------------------
 * Static routes.
 * --------------------------------------------------------------------- */

static void
pre_lr_route(struct ctl_context *ctx)
{
    pre_lrp(ctx);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_router_col_static_routes);
    const struct ovsdb_idl_column *cols[] = {
        &nbrec_logical_router_static_route_col_ip_prefix,
        &nbrec_logical_router_static_route_col_nexthop,
        &nbrec_logical_router_static_route_col_policy,
        &nbrec_logical_router_static_route_col_output_port,
        &nbrec_logical_router_static_route_col_route_table,
        &nbrec_logical_router_static_route_col_options,
        &nbrec_logical_router_static_route_col_bfd,
    };
    for (size_t i = 0; i < ARRAY_SIZE(cols); i++) {
        ovsdb_idl_add_column(ctx->idl, cols[i]);
    }
    ovsdb_idl_add_column(ctx->idl, &nbrec_bfd_col_dst_ip);
    ovsdb_idl_add_column(ctx->idl, &nbrec_bfd_col_logical_port);
}

/* lr-route-add --bfd[=UUID]: the BFD row for route 'r' to 'nexthop' (out
 * of 'output_port', if not NULL), as stock finds it: the row 'bfd_id'
 * names, else a new row for the next hop and port if a port is given,
 * else an existing row for the next hop.  Returns false after an error. */
static bool
route_set_bfd(struct ctl_context *ctx,
              const struct nbrec_logical_router_static_route *r,
              const char *bfd_id, const char *nexthop,
              const char *output_port)
{
    const struct nbrec_bfd *bfd = NULL;
    if (bfd_id) {
        struct uuid uuid;
        if (uuid_from_string(&uuid, bfd_id)) {
            bfd = nbrec_bfd_get_for_uuid(ctx->idl, &uuid);
        }
        if (!bfd) {
            ctl_error(ctx, "no entry found in the BFD table");
            return false;
        }
    } else if (output_port) {
        struct nbrec_bfd *new = nbrec_bfd_insert(ctx->txn);
        nbrec_bfd_set_dst_ip(new, nexthop);
        nbrec_bfd_set_logical_port(new, output_port);
        bfd = new;
    } else {
        const struct nbrec_bfd *iter;
        NBREC_BFD_FOR_EACH (iter, ctx->idl) {
            if (!strcmp(iter->dst_ip, nexthop)) {
                bfd = iter;
                break;
            }
        }
        if (!bfd) {
            ctl_error(ctx, "insert entry in the BFD table failed");
            return false;
        }
    }
    nbrec_logical_router_static_route_set_bfd(r, bfd);
    return true;
}

/* Formats 'net' as OVN stores a route prefix: the network address, masked,
 * then "/PLEN" unless the prefix is a single host. */
static char *
format_prefix(const struct lrp_network *net)
{
    char buf[INET6_ADDRSTRLEN];
    if (!net->is_v6) {
        ovs_be32 ip = in6_addr_get_mapped_ipv4(&net->ip)
                      & be32_prefix_mask(net->plen);
        return net->plen == 32 ? xasprintf(IP_FMT, IP_ARGS(ip))
               : xasprintf(IP_FMT"/%u", IP_ARGS(ip), net->plen);
    }
    struct in6_addr mask = ipv6_create_mask(net->plen);
    struct in6_addr ip = ipv6_addr_bitand(&net->ip, &mask);
    inet_ntop(AF_INET6, &ip, buf, sizeof buf);
    return net->plen == 128 ? xstrdup(buf)
           : xasprintf("%s/%u", buf, net->plen);
}

/* Parses route prefix 's' into 'net' (masked) and its stored form, or
 * returns NULL. */
static char *
parse_route_prefix(const char *s, struct lrp_network *net)
{
    if (!parse_lrp_network(s, net)) {
        return NULL;
    }
    char *norm = format_prefix(net);
    /* Keep 'net' masked, so that prefixes compare as networks. */
    ovs_assert(parse_lrp_network(norm, net));
    return norm;
}

/* Parses next hop 's' (an address of the family 'v6' says, or either if
 * 'any_family'), returning its normalized form or NULL. */
static char *
parse_nexthop(const char *s, bool v6, bool any_family)
{
    char buf[INET6_ADDRSTRLEN];
    ovs_be32 ip4;
    struct in6_addr ip6;
    if ((any_family || !v6) && inet_pton(AF_INET, s, &ip4) == 1) {
        return xasprintf(IP_FMT, IP_ARGS(ip4));
    }
    if ((any_family || v6) && inet_pton(AF_INET6, s, &ip6) == 1) {
        inet_ntop(AF_INET6, &ip6, buf, sizeof buf);
        return xstrdup(buf);
    }
    return NULL;
}

static bool
parse_route_policy(struct ctl_context *ctx, const char **policy)
{
    const char *p = shash_find_data(&ctx->options, "--policy");
    *policy = NULL;
    if (p) {
        if (strcmp(p, "dst-ip") && strcmp(p, "src-ip")) {
            ctl_error(ctx, "bad policy: %s", p);
            return false;
        }
        *policy = p;
    }
    return true;
}

static const char *
route_policy(const struct nbrec_logical_router_static_route *r)
{
    return r->policy && !strcmp(r->policy, "src-ip") ? "src-ip" : "dst-ip";
}

/* True if 'r' routes exactly prefix 'norm' (a stored form). */
static bool
route_prefix_equals(const struct nbrec_logical_router_static_route *r,
                    const char *norm)
{
    struct lrp_network net;
    char *rn = parse_route_prefix(r->ip_prefix, &net);
    bool eq = rn && !strcmp(rn, norm);
    free(rn);
    return eq;
}

static void
cmd_lr_route_add(struct ctl_context *ctx)
{
    bool may_exist = shash_find(&ctx->options, "--may-exist") != NULL;
    bool ecmp_symmetric = shash_find(&ctx->options,
                                     "--ecmp-symmetric-reply") != NULL;
    bool ecmp = ecmp_symmetric
                || shash_find(&ctx->options, "--ecmp") != NULL;
    const char *route_table = shash_find_data(&ctx->options,
                                              "--route-table");
    const char *policy;
    char *prefix = NULL, *nexthop = NULL;

    const struct nbrec_logical_router *lr
        = lr_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lr || !parse_route_policy(ctx, &policy)) {
        return;
    }
    if (!route_table) {
        route_table = "";
    }

    struct lrp_network net;
    prefix = parse_route_prefix(ctx->argv[2], &net);
    if (!prefix) {
        ctl_error(ctx, "bad prefix argument: %s", ctx->argv[2]);
        return;
    }
    bool discard = !strcmp(ctx->argv[3], "discard");
    struct shash_node *bfd_opt = shash_find(&ctx->options, "--bfd");
    const char *bfd_id = bfd_opt ? bfd_opt->data : NULL;
    if (discard) {
        if (bfd_opt) {
            ctl_error(ctx, "bfd dst_ip cannot be discard.");
            goto out;
        }
        nexthop = xstrdup("discard");
    } else {
        nexthop = parse_nexthop(ctx->argv[3], net.is_v6, false);
        if (!nexthop) {
            ctl_error(ctx, "bad %s nexthop argument: %s",
                      net.is_v6 ? "IPv6" : "IPv4", ctx->argv[3]);
            goto out;
        }
    }
    const char *output_port = ctx->argc == 5 ? ctx->argv[4] : NULL;
    if (output_port) {
        if (discard) {
            ctl_error(ctx, "outport is not valid for discard routes.");
            goto out;
        }
        if (!lrp_by_name_or_uuid(ctx, output_port, true)) {
            goto out;
        }
    }

    const char *pol = policy ? policy : "dst-ip";
    for (size_t i = 0; i < lr->n_static_routes; i++) {
        const struct nbrec_logical_router_static_route *r
            = lr->static_routes[i];
        if (strcmp(r->route_table, route_table)
            || strcmp(route_policy(r), pol)
            || !route_prefix_equals(r, prefix)) {
            continue;
        }
        if (ecmp) {
            if (!strcmp(r->nexthop, nexthop)) {
                if (!may_exist) {
                    ctl_error(ctx, "duplicate nexthop for the same ECMP "
                              "route");
                }
                goto out;
            }
            continue;
        }
        if (!may_exist) {
            ctl_error(ctx, "duplicate prefix: %s (policy: %s). Use option "
                      "--ecmp to allow this for ECMP routing.", prefix, pol);
            goto out;
        }
        /* --may-exist: the route takes the new next hop (and port). */
        nbrec_logical_router_static_route_set_nexthop(r, nexthop);
        if (output_port) {
            nbrec_logical_router_static_route_set_output_port(r,
                                                              output_port);
        }
        if (policy) {
            nbrec_logical_router_static_route_set_policy(r, policy);
        }
        if (ecmp_symmetric) {
            nbrec_logical_router_static_route_update_options_setkey(
                r, "ecmp_symmetric_reply", "true");
        }
        if (bfd_opt) {
            route_set_bfd(ctx, r, bfd_id, nexthop, output_port);
        }
        goto out;
    }

    struct nbrec_logical_router_static_route *r
        = nbrec_logical_router_static_route_insert(ctx->txn);
    nbrec_logical_router_static_route_set_ip_prefix(r, prefix);
    nbrec_logical_router_static_route_set_nexthop(r, nexthop);
    if (policy) {
        nbrec_logical_router_static_route_set_policy(r, policy);
    }
    if (output_port) {
        nbrec_logical_router_static_route_set_output_port(r, output_port);
    }
    if (route_table[0]) {
        nbrec_logical_router_static_route_set_route_table(r, route_table);
    }
    if (ecmp_symmetric) {
        const struct smap options
            = SMAP_CONST1(&options, "ecmp_symmetric_reply", "true");
        nbrec_logical_router_static_route_set_options(r, &options);
    }
    if (bfd_opt && !route_set_bfd(ctx, r, bfd_id, nexthop, output_port)) {
        goto out;
    }
    nbctl_ref_update(&lr->header_, &nbrec_logical_router_col_static_routes,
                     &r->header_, true);

out:
    free(prefix);
    free(nexthop);
}

static void
cmd_lr_route_del(struct ctl_context *ctx)
{
    bool if_exists = shash_find(&ctx->options, "--if-exists") != NULL;
    const char *route_table = shash_find_data(&ctx->options,
                                              "--route-table");
    const char *policy;
    char *prefix = NULL, *nexthop = NULL;

    const struct nbrec_logical_router *lr
        = lr_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lr || !parse_route_policy(ctx, &policy)) {
        return;
    }
    if (!route_table) {
        route_table = "";
    }

    if (ctx->argc == 2 && !policy) {
        /* As OVN: every route of the router, whatever its table. */
        nbrec_logical_router_verify_static_routes(lr);
        nbrec_logical_router_set_static_routes(lr, NULL, 0);
        return;
    }

    if (ctx->argc >= 3) {
        struct lrp_network net;
        prefix = parse_route_prefix(ctx->argv[2], &net);
        if (!prefix) {
            ctl_error(ctx, "bad prefix argument: %s", ctx->argv[2]);
            return;
        }
    }
    if (ctx->argc >= 4) {
        nexthop = (!strcmp(ctx->argv[3], "discard")
                   ? xstrdup("discard")
                   : parse_nexthop(ctx->argv[3], false, true));
        if (!nexthop) {
            ctl_error(ctx, "bad nexthop argument: %s", ctx->argv[3]);
            goto out;
        }
    }
    const char *output_port = ctx->argc == 5 ? ctx->argv[4] : NULL;

    /* Updating the column reparses 'lr', so collect the routes first. */
    size_t n_deleted = 0;
    const struct nbrec_logical_router_static_route **doomed
        = xmalloc(MAX(lr->n_static_routes, 1) * sizeof *doomed);
    for (size_t i = 0; i < lr->n_static_routes; i++) {
        const struct nbrec_logical_router_static_route *r
            = lr->static_routes[i];
        if (strcmp(r->route_table, route_table)
            || (policy && strcmp(route_policy(r), policy))
            || (prefix && !route_prefix_equals(r, prefix))
            || (nexthop && strcmp(r->nexthop, nexthop))
            || (output_port && (!r->output_port
                                || strcmp(r->output_port, output_port)))) {
            continue;
        }
        doomed[n_deleted++] = r;
    }
    for (size_t i = 0; i < n_deleted; i++) {
        nbctl_ref_update(&lr->header_,
                         &nbrec_logical_router_col_static_routes,
                         &doomed[i]->header_, false);
    }
    free(doomed);
    if (!n_deleted && !if_exists) {
        ctl_error(ctx, "no matching route: policy '%s', prefix '%s', "
                  "nexthop '%s', output_port '%s'.",
                  policy ? policy : "any", prefix ? prefix : "(null)",
                  nexthop ? nexthop : "any",
                  output_port ? output_port : "any");
    }

out:
    free(prefix);
    free(nexthop);
}

struct route_line {
    const struct nbrec_logical_router_static_route *route;
    struct lrp_network net;
};

static int
compare_route_lines(const void *a_, const void *b_)
{
    const struct route_line *a = a_, *b = b_;
    int cmp = strcmp(a->route->route_table, b->route->route_table);
    if (cmp) {
        return cmp;
    }
    if (a->net.plen != b->net.plen) {
        return a->net.plen > b->net.plen ? -1 : 1;
    }
    cmp = strcmp(route_policy(a->route), route_policy(b->route));
    if (cmp) {
        return cmp;
    }
    cmp = memcmp(&a->net.ip, &b->net.ip, sizeof a->net.ip);
    if (cmp) {
        return cmp;
    }
    cmp = strcmp(a->route->nexthop, b->route->nexthop);
    if (cmp) {
        return cmp;
    }
    const char *pa = a->route->output_port, *pb = b->route->output_port;
    return !pa ? (pb ? -1 : 0) : !pb ? 1 : strcmp(pa, pb);
}

/* Prints the routes of one address family, table by table ("" first,
 * shown as "<main>"). */
static void
print_routes(struct ds *s, const char *title, struct route_line *lines,
             size_t n)
{
    if (!n) {
        return;
    }
    if (s->length) {
        ds_put_char(s, '\n');
    }
    ds_put_format(s, "%s\n", title);
    qsort(lines, n, sizeof *lines, compare_route_lines);
    for (size_t i = 0; i < n; i++) {
        const struct nbrec_logical_router_static_route *r = lines[i].route;
        if (!i || strcmp(lines[i - 1].route->route_table, r->route_table)) {
            if (i) {
                ds_put_char(s, '\n');
            }
            ds_put_format(s, "Route Table %s:\n",
                          r->route_table[0] ? r->route_table : "<main>");
        }
        ds_put_format(s, "%25s %25s %s", r->ip_prefix, r->nexthop,
                      route_policy(r));
        if (r->output_port) {
            ds_put_format(s, " %s", r->output_port);
        }
        if (smap_get_bool(&r->options, "ecmp_symmetric_reply", false)) {
            ds_put_cstr(s, " ecmp-symmetric-reply");
        } else {
            for (size_t j = 0; j < n; j++) {
                const struct nbrec_logical_router_static_route *o
                    = lines[j].route;
                if (j != i && !strcmp(o->route_table, r->route_table)
                    && !strcmp(route_policy(o), route_policy(r))
                    && !compare_lrp_networks(&lines[j].net, &lines[i].net)) {
                    ds_put_cstr(s, " ecmp");
                    break;
                }
            }
        }
        if (r->bfd) {
            ds_put_cstr(s, " bfd");
        }
        ds_put_char(s, '\n');
    }
}

static void
cmd_lr_route_list(struct ctl_context *ctx)
{
    const char *route_table = shash_find_data(&ctx->options,
                                              "--route-table");
    const struct nbrec_logical_router *lr
        = lr_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lr) {
        return;
    }

    size_t n = lr->n_static_routes;
    struct route_line *v4 = xmalloc(MAX(n, 1) * sizeof *v4);
    struct route_line *v6 = xmalloc(MAX(n, 1) * sizeof *v6);
    size_t n4 = 0, n6 = 0;
    for (size_t i = 0; i < n; i++) {
        const struct nbrec_logical_router_static_route *r
            = lr->static_routes[i];
        struct lrp_network net;
        char *norm;
        if (route_table && strcmp(r->route_table, route_table)) {
            continue;
        }
        norm = parse_route_prefix(r->ip_prefix, &net);
        if (!norm) {
            /* Written by another client; northd ignores it too. */
            continue;
        }
        free(norm);
        struct route_line *l = net.is_v6 ? &v6[n6++] : &v4[n4++];
        l->route = r;
        l->net = net;
    }
    print_routes(&ctx->output, "IPv4 Routes", v4, n4);
    print_routes(&ctx->output, "IPv6 Routes", v6, n6);
    free(v4);
    free(v6);
}

/* ------------------------------------------------------------------------
 * Routing policies.
 * --------------------------------------------------------------------- */

static void
pre_lr_policy(struct ctl_context *ctx)
{
    pre_lr(ctx);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_router_col_policies);
    const struct ovsdb_idl_column *cols[] = {
        &nbrec_logical_router_policy_col_priority,
        &nbrec_logical_router_policy_col_match,
        &nbrec_logical_router_policy_col_action,
        &nbrec_logical_router_policy_col_nexthop,
        &nbrec_logical_router_policy_col_nexthops,
        &nbrec_logical_router_policy_col_options,
    };
    for (size_t i = 0; i < ARRAY_SIZE(cols); i++) {
        ovsdb_idl_add_column(ctx->idl, cols[i]);
    }
}

static bool
parse_policy_priority(struct ctl_context *ctx, const char *s,
                      int64_t *priority)
{
    char *end;
    errno = 0;
    long long int p = strtoll(s, &end, 10);
    if (!*s || *end || errno || p < 0 || p > 32767) {
        ctl_error(ctx, "%s: priority must in range 0...32767", s);
        return false;
    }
    *priority = p;
    return true;
}

static void
cmd_lr_policy_add(struct ctl_context *ctx)
{
    bool may_exist = shash_find(&ctx->options, "--may-exist") != NULL;
    const struct nbrec_logical_router *lr
        = lr_by_name_or_uuid(ctx, ctx->argv[1], true);
    int64_t priority;
    if (!lr || !parse_policy_priority(ctx, ctx->argv[2], &priority)) {
        return;
    }
    const char *match = ctx->argv[3];
    const char *action = ctx->argv[4];
    bool reroute = !strcmp(action, "reroute");
    if (!reroute && strcmp(action, "allow") && strcmp(action, "drop")) {
        ctl_error(ctx, "%s: action must be one of \"allow\", \"drop\", "
                  "and \"reroute\"", action);
        return;
    }

    int next = 5;
    struct svec nexthops = SVEC_EMPTY_INITIALIZER;
    struct smap options = SMAP_INITIALIZER(&options);
    if (reroute) {
        if (ctx->argc < 6) {
            ctl_error(ctx, "Nexthop is required when action is reroute.");
            return;
        }
        const char *arg = ctx->argv[next++];
        char *copy = xstrdup(arg), *save = NULL;
        int family = 0;
        for (char *tok = strtok_r(copy, ",", &save); tok;
             tok = strtok_r(NULL, ",", &save)) {
            char *nh = parse_nexthop(tok, false, true);
            if (!nh) {
                ctl_error(ctx, "bad next hop argument: %s", tok);
                goto out_free_copy;
            }
            int f = strchr(nh, ':') ? AF_INET6 : AF_INET;
            if (family && f != family) {
                free(nh);
                ctl_error(ctx, "bad next hops argument, not in the same "
                          "addr family : %s", arg);
                goto out_free_copy;
            }
            family = f;
            svec_add_nocopy(&nexthops, nh);
        }
        if (!nexthops.n) {
            ctl_error(ctx, "bad next hop argument: %s", arg);
        }
out_free_copy:
        free(copy);
        if (ctx->error) {
            goto out;
        }
    }
    for (; next < ctx->argc; next++) {
        const char *arg = ctx->argv[next];
        const char *eq = strchr(arg, '=');
        if (!eq) {
            ctl_error(ctx, "No value specified for the option : %s", arg);
            goto out;
        }
        char *key = xmemdup0(arg, eq - arg);
        smap_replace(&options, key, eq + 1);
        free(key);
    }

    for (size_t i = 0; i < lr->n_policies; i++) {
        const struct nbrec_logical_router_policy *p = lr->policies[i];
        if (p->priority == priority && !strcmp(p->match, match)) {
            if (!may_exist) {
                ctl_error(ctx, "Same routing policy already existed on the "
                          "logical router %s.", ctx->argv[1]);
            }
            goto out;
        }
    }

    struct nbrec_logical_router_policy *p
        = nbrec_logical_router_policy_insert(ctx->txn);
    nbrec_logical_router_policy_set_priority(p, priority);
    nbrec_logical_router_policy_set_match(p, match);
    nbrec_logical_router_policy_set_action(p, action);
    if (nexthops.n) {
        nbrec_logical_router_policy_set_nexthops(
            p, (const char **) nexthops.names, nexthops.n);
    }
    if (!smap_is_empty(&options)) {
        nbrec_logical_router_policy_set_options(p, &options);
    }
    nbctl_ref_update(&lr->header_, &nbrec_logical_router_col_policies,
                     &p->header_, true);

out:
    svec_destroy(&nexthops);
    smap_destroy(&options);
}

static void
cmd_lr_policy_del(struct ctl_context *ctx)
{
    bool if_exists = shash_find(&ctx->options, "--if-exists") != NULL;
    const struct nbrec_logical_router *lr
        = lr_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lr) {
        return;
    }
    if (ctx->argc == 2) {
        nbrec_logical_router_verify_policies(lr);
        nbrec_logical_router_set_policies(lr, NULL, 0);
        return;
    }

    const struct nbrec_logical_router_policy **doomed
        = xmalloc(MAX(lr->n_policies, 1) * sizeof *doomed);
    size_t n_doomed = 0;
    struct uuid uuid;
    int64_t priority;
    if (uuid_from_string(&uuid, ctx->argv[2])) {
        for (size_t i = 0; i < lr->n_policies; i++) {
            if (uuid_equals(&lr->policies[i]->header_.uuid, &uuid)) {
                doomed[n_doomed++] = lr->policies[i];
            }
        }
        if (!n_doomed && !if_exists && ctx->argc == 3) {
            ctl_error(ctx, "Logical router policy uuid is not found.");
        }
    } else if (parse_policy_priority(ctx, ctx->argv[2], &priority)) {
        const char *match = ctx->argc == 4 ? ctx->argv[3] : NULL;
        for (size_t i = 0; i < lr->n_policies; i++) {
            const struct nbrec_logical_router_policy *p = lr->policies[i];
            if (p->priority == priority
                && (!match || !strcmp(p->match, match))) {
                doomed[n_doomed++] = p;
            }
        }
    }
    /* Updating the column reparses 'lr', so the policies were collected
     * first. */
    for (size_t i = 0; i < n_doomed; i++) {
        nbctl_ref_update(&lr->header_, &nbrec_logical_router_col_policies,
                         &doomed[i]->header_, false);
    }
    free(doomed);
}

static int
compare_policies(const void *a_, const void *b_)
{
    const struct nbrec_logical_router_policy *const *a = a_;
    const struct nbrec_logical_router_policy *const *b = b_;
    if ((*a)->priority != (*b)->priority) {
        return (*a)->priority > (*b)->priority ? -1 : 1;
    }
    return strcmp((*a)->match, (*b)->match);
}

static void
cmd_lr_policy_list(struct ctl_context *ctx)
{
    const struct nbrec_logical_router *lr
        = lr_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lr || !lr->n_policies) {
        return;
    }
    size_t n = lr->n_policies;
    const struct nbrec_logical_router_policy **ps
        = xmemdup(lr->policies, n * sizeof *ps);
    qsort(ps, n, sizeof *ps, compare_policies);

    struct ds *s = &ctx->output;
    ds_put_cstr(s, "Routing Policies\n");
    for (size_t i = 0; i < n; i++) {
        const struct nbrec_logical_router_policy *p = ps[i];
        ds_put_format(s, "%10"PRId64" %50s %15s", p->priority, p->match,
                      p->action);
        for (size_t j = 0; j < p->n_nexthops; j++) {
            ds_put_format(s, j ? ", %s" : " %25s", p->nexthops[j]);
        }
        if (!p->n_nexthops && p->nexthop) {
            ds_put_format(s, " %25s", p->nexthop);
        }
        if (!smap_is_empty(&p->options)) {
            const struct smap_node **nodes = smap_sort(&p->options);
            ds_put_format(s, "%15s", "");
            for (size_t j = 0; j < smap_count(&p->options); j++) {
                ds_put_format(s, "%s%s=%s", j ? "," : "", nodes[j]->key,
                              nodes[j]->value);
            }
            free(nodes);
        }
        ds_put_char(s, '\n');
    }
    free(ps);
}

const struct ctl_command_syntax nbctl_lr_commands[] = {
    { "lr-add", 0, 1, "[ROUTER]", pre_lr, cmd_lr_add, NULL,
      "--may-exist,--add-duplicate", RW },
    { "lr-del", 1, 1, "ROUTER", pre_lr, cmd_lr_del, NULL, "--if-exists",
      RW },
    { "lr-list", 0, 0, "", pre_lr, cmd_lr_list, NULL, "", RO },

    { "lrp-add", 4, INT_MAX,
      "ROUTER PORT MAC NETWORK... [COLUMN[:KEY]=VALUE]...",
      pre_lrp_add, cmd_lrp_add, NULL, "--may-exist", RW },
    { "lrp-del", 1, 1, "PORT", pre_lrp, cmd_lrp_del, NULL, "--if-exists",
      RW },
    { "lrp-list", 1, 1, "ROUTER", pre_lrp, cmd_lrp_list, NULL, "", RO },
    { "lrp-set-enabled", 2, 2, "PORT STATE", pre_lrp, cmd_lrp_set_enabled,
      NULL, "", RW },
    { "lrp-get-enabled", 1, 1, "PORT", pre_lrp, cmd_lrp_get_enabled, NULL,
      "", RO },
    { "lrp-set-gateway-chassis", 2, 3, "PORT CHASSIS [PRIORITY]", pre_lrp,
      cmd_lrp_set_gateway_chassis, NULL, "", RW },
    { "lrp-del-gateway-chassis", 2, 2, "PORT CHASSIS", pre_lrp,
      cmd_lrp_del_gateway_chassis, NULL, "", RW },
    { "lrp-get-gateway-chassis", 1, 1, "PORT", pre_lrp,
      cmd_lrp_get_gateway_chassis, NULL, "", RO },
    { "lrp-set-options", 1, INT_MAX, "PORT KEY=VALUE [KEY=VALUE]...",
      pre_lrp, cmd_lrp_set_options, NULL, "", RW },
    { "lrp-set-redirect-type", 2, 2, "PORT TYPE", pre_lrp,
      cmd_lrp_set_redirect_type, NULL, "", RW },
    { "lrp-get-redirect-type", 1, 1, "PORT", pre_lrp,
      cmd_lrp_get_redirect_type, NULL, "", RO },


    { "lr-route-add", 3, 4, "ROUTER PREFIX NEXTHOP [PORT]", pre_lr_route,
      cmd_lr_route_add, NULL,
      "--may-exist,--ecmp,--ecmp-symmetric-reply,--policy=,--route-table=,"
      "--bfd?", RW },
    { "lr-route-del", 1, 4, "ROUTER [PREFIX [NEXTHOP [PORT]]]",
      pre_lr_route, cmd_lr_route_del, NULL,
      "--if-exists,--policy=,--route-table=", RW },
    { "lr-route-list", 1, 1, "ROUTER", pre_lr_route, cmd_lr_route_list,
      NULL, "--route-table=", RO },

    { "lr-policy-add", 4, INT_MAX,
      "ROUTER PRIORITY MATCH ACTION [NEXTHOP] [OPTIONS]...", pre_lr_policy,
      cmd_lr_policy_add, NULL, "--may-exist", RW },
    { "lr-policy-del", 1, 3, "ROUTER [{PRIORITY | UUID} [MATCH]]",
      pre_lr_policy, cmd_lr_policy_del, NULL, "--if-exists", RW },
    { "lr-policy-list", 1, 1, "ROUTER", pre_lr_policy, cmd_lr_policy_list,
      NULL, "", RO },

    { NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, RO },
};
