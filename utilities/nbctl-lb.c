/* ovn-nbctl: load balancer and meter commands. */
#include <config.h>

#include "utilities/nbctl.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "openvswitch/dynamic-string.h"
#include "openvswitch/shash.h"
#include "packets.h"
#include "smap.h"
#include "svec.h"
#include "util.h"
#include "uuid.h"

/* ------------------------------------------------------------------------
 * Addresses of VIPs and backends.
 * --------------------------------------------------------------------- */

/* One "IP", "IP:PORT", "IPv6" or "[IPv6]:PORT", normalized. */
struct lb_endpoint {
    int family;                 /* AF_INET or AF_INET6. */
    char ip[INET6_ADDRSTRLEN];  /* Canonical text form. */
    int port;                   /* 0 if none. */
};

static bool
parse_port(const char *s, int *port)
{
    return str_to_int(s, 10, port) && *port > 0 && *port <= 65535;
}

/* Parses 's' into 'ep'.  Returns false if it is not a valid endpoint. */
static bool
parse_endpoint(const char *s, struct lb_endpoint *ep)
{
    char *copy = xstrdup(s);
    char *ip = copy;
    bool ok = false;

    ep->port = 0;
    if (copy[0] == '[') {
        char *end = strchr(copy, ']');
        if (!end) {
            goto out;
        }
        *end = '\0';
        ip = copy + 1;
        if (end[1] == ':') {
            if (!parse_port(end + 2, &ep->port)) {
                goto out;
            }
        } else if (end[1]) {
            goto out;
        }
    } else if (strchr(copy, '.')) {
        char *colon = strchr(copy, ':');
        if (colon) {
            *colon = '\0';
            if (!parse_port(colon + 1, &ep->port)) {
                goto out;
            }
        }
    }

    ovs_be32 ip4;
    struct in6_addr ip6;
    if (ip_parse(ip, &ip4)) {
        if (copy[0] == '[') {
            goto out;
        }
        ep->family = AF_INET;
        snprintf(ep->ip, sizeof ep->ip, IP_FMT, IP_ARGS(ip4));
        ok = true;
    } else if (ipv6_parse(ip, &ip6)) {
        ep->family = AF_INET6;
        ipv6_string_mapped(ep->ip, &ip6);
        ok = true;
    }

out:
    free(copy);
    return ok;
}

static void
format_endpoint(struct ds *s, const struct lb_endpoint *ep)
{
    if (!ep->port) {
        ds_put_cstr(s, ep->ip);
    } else if (ep->family == AF_INET6) {
        ds_put_format(s, "[%s]:%d", ep->ip, ep->port);
    } else {
        ds_put_format(s, "%s:%d", ep->ip, ep->port);
    }
}

/* ------------------------------------------------------------------------
 * Lookups.
 * --------------------------------------------------------------------- */

static void
pre_lb_columns(struct ctl_context *ctx)
{
    ovsdb_idl_add_column(ctx->idl, &nbrec_load_balancer_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_load_balancer_col_vips);
    ovsdb_idl_add_column(ctx->idl, &nbrec_load_balancer_col_protocol);
    ovsdb_idl_add_column(ctx->idl, &nbrec_load_balancer_col_options);
}

static const struct nbrec_load_balancer *
lb_by_name_or_uuid(struct ctl_context *ctx, const char *id, bool must_exist)
{
    const struct nbrec_load_balancer *lb = NULL;
    struct uuid uuid;
    bool is_uuid = uuid_from_string(&uuid, id);

    if (is_uuid) {
        lb = nbrec_load_balancer_get_for_uuid(ctx->idl, &uuid);
    }
    if (!lb) {
        const struct nbrec_load_balancer *iter;
        NBREC_LOAD_BALANCER_FOR_EACH (iter, ctx->idl) {
            if (!strcmp(iter->name, id)) {
                if (lb) {
                    ctl_error(ctx, "Multiple load balancers named '%s'.  "
                              "Use a UUID.", id);
                    return NULL;
                }
                lb = iter;
            }
        }
    }
    if (!lb && must_exist) {
        ctl_error(ctx, "%s: load balancer %s not found", id,
                  is_uuid ? "UUID" : "name");
    }
    return lb;
}

/* ------------------------------------------------------------------------
 * lb-add, lb-del, lb-list.
 * --------------------------------------------------------------------- */

static void
pre_lb(struct ctl_context *ctx)
{
    nbctl_cond_capable(ctx);
    pre_lb_columns(ctx);
    if (ctx->argc > 1) {
        nbctl_cond_by_name(ctx, &nbrec_table_load_balancer,
                           &nbrec_load_balancer_col_name, ctx->argv[1]);
    } else {
        nbctl_cond_all(ctx, &nbrec_table_load_balancer);
    }
}

static void
cmd_lb_add(struct ctl_context *ctx)
{
    const char *lb_name = ctx->argv[1];
    const char *vip_arg = ctx->argv[2];
    const char *ips_arg = ctx->argv[3];
    bool may_exist = shash_find(&ctx->options, "--may-exist") != NULL;
    bool add_duplicate = shash_find(&ctx->options, "--add-duplicate") != NULL;
    bool reject = shash_find(&ctx->options, "--reject") != NULL;
    bool event = shash_find(&ctx->options, "--event") != NULL;
    const char *protocol = "tcp";

    if (reject && event) {
        ctl_error(ctx, "--reject and --event can't specified at the same "
                  "time");
        return;
    }

    if (ctx->argc >= 5) {
        protocol = ctx->argv[4];
        if (strcmp(protocol, "tcp") && strcmp(protocol, "udp")
            && strcmp(protocol, "sctp")) {
            ctl_error(ctx, "%s: protocol must be one of \"tcp\", \"udp\",  "
                      "or \"sctp\".", protocol);
            return;
        }
    }

    struct lb_endpoint vip;
    if (!parse_endpoint(vip_arg, &vip)) {
        ctl_error(ctx, "%s: should be an IP address (or an IP address and a "
                  "port number with : as a separator).", vip_arg);
        return;
    }

    /* Backends: a comma-separated list, each of the VIP's family and with a
     * port exactly when the VIP has one. */
    struct ds backends = DS_EMPTY_INITIALIZER;
    char *ips = xstrdup(ips_arg);
    char *save_ptr = NULL;
    bool ok = true;
    for (char *ip = strtok_r(ips, ",", &save_ptr); ip;
         ip = strtok_r(NULL, ",", &save_ptr)) {
        struct lb_endpoint be;
        if (!parse_endpoint(ip, &be)) {
            ctl_error(ctx, "%s: should be %s.", ip,
                      vip.port ? "an IP address and a port number with : "
                                 "as a separator"
                               : "an IP address");
            ok = false;
            break;
        }
        if (be.family != vip.family) {
            ctl_error(ctx, "%s: IP address family is different from VIP "
                      "%s.", ip, vip_arg);
            ok = false;
            break;
        }
        if (!be.port != !vip.port) {
            ctl_error(ctx, "%s: should be %s.", ip,
                      vip.port ? "an IP address and a port number with : "
                                 "as a separator"
                               : "an IP address");
            ok = false;
            break;
        }
        if (backends.length) {
            ds_put_char(&backends, ',');
        }
        format_endpoint(&backends, &be);
    }
    free(ips);
    if (ok && !backends.length) {
        ctl_error(ctx, "%s: at least one backend is required", ips_arg);
        ok = false;
    }
    if (!ok) {
        ds_destroy(&backends);
        return;
    }

    struct ds vip_key = DS_EMPTY_INITIALIZER;
    format_endpoint(&vip_key, &vip);

    const struct nbrec_load_balancer *lb = NULL;
    if (!add_duplicate) {
        lb = lb_by_name_or_uuid(ctx, lb_name, false);
        if (ctx->error) {
            goto out;
        }
    }
    if (lb) {
        if (smap_get(&lb->vips, ds_cstr(&vip_key)) && !may_exist) {
            ctl_error(ctx, "%s: a load balancer with this vip (%s) already "
                      "exists", lb_name, ds_cstr(&vip_key));
            goto out;
        }
    } else {
        struct nbrec_load_balancer *new = nbrec_load_balancer_insert(
            ctx->txn);
        nbrec_load_balancer_set_name(new, lb_name);
        if (reject || event) {
            /* Only a new load balancer gets them, as in stock. */
            const struct smap options = SMAP_CONST1(
                &options, reject ? "reject" : "event", "true");
            nbrec_load_balancer_set_options(new, &options);
        }
        lb = new;
    }
    nbrec_load_balancer_update_vips_setkey(lb, ds_cstr(&vip_key),
                                           ds_cstr(&backends));
    nbrec_load_balancer_set_protocol(lb, protocol);

out:
    ds_destroy(&vip_key);
    ds_destroy(&backends);
}

static void
cmd_lb_del(struct ctl_context *ctx)
{
    bool must_exist = !shash_find(&ctx->options, "--if-exists");
    const struct nbrec_load_balancer *lb
        = lb_by_name_or_uuid(ctx, ctx->argv[1], false);
    if (!lb) {
        /* Like OVN's: a missing load balancer is not an error. */
        return;
    }

    if (ctx->argc == 3) {
        struct lb_endpoint vip;
        struct ds key = DS_EMPTY_INITIALIZER;
        if (parse_endpoint(ctx->argv[2], &vip)) {
            format_endpoint(&key, &vip);
        } else {
            ds_put_cstr(&key, ctx->argv[2]);
        }
        if (smap_get(&lb->vips, ds_cstr(&key))) {
            nbrec_load_balancer_update_vips_delkey(lb, ds_cstr(&key));
        } else if (must_exist) {
            ctl_error(ctx, "vip %s is not part of the load balancer.",
                      ctx->argv[2]);
        }
        ds_destroy(&key);
        return;
    }
    /* Switches refer to load balancers weakly: no need to unlink. */
    nbrec_load_balancer_delete(lb);
}

static int
lb_cmp(const void *a_, const void *b_)
{
    const struct nbrec_load_balancer *a
        = *(const struct nbrec_load_balancer *const *) a_;
    const struct nbrec_load_balancer *b
        = *(const struct nbrec_load_balancer *const *) b_;
    int cmp = strcmp(a->name, b->name);
    return cmp ? cmp : uuid_compare_3way(&a->header_.uuid, &b->header_.uuid);
}

/* Prints 'lbs' in lb-list's table. */
static void
print_lbs(struct ds *s, const struct nbrec_load_balancer **lbs, size_t n)
{
    if (!n) {
        return;
    }
    qsort(lbs, n, sizeof *lbs, lb_cmp);

    size_t vip_width = 0;
    for (size_t i = 0; i < n; i++) {
        const struct smap_node *node;
        SMAP_FOR_EACH (node, &lbs[i]->vips) {
            vip_width = MAX(vip_width, strlen(node->key));
        }
    }
    vip_width += 4;

    ds_put_format(s, "%-40s%-20s%-11s%-*s%s\n", "UUID", "LB", "PROTO",
                  (int) vip_width, "VIP", "IPs");
    for (size_t i = 0; i < n; i++) {
        const struct nbrec_load_balancer *lb = lbs[i];
        const struct smap_node **vips = smap_sort(&lb->vips);
        char uuid[UUID_LEN + 1];

        snprintf(uuid, sizeof uuid, UUID_FMT, UUID_ARGS(&lb->header_.uuid));
        ds_put_format(s, "%-40s%-20.16s", uuid, lb->name);
        for (size_t j = 0; j < smap_count(&lb->vips); j++) {
            struct lb_endpoint ep;
            bool has_port = (parse_endpoint(vips[j]->key, &ep)
                             && ep.port);
            if (j) {
                ds_put_format(s, "%60s", "");
            }
            ds_put_format(s, "%-11s%-*s%s\n",
                          has_port && lb->protocol ? lb->protocol : "",
                          (int) vip_width, vips[j]->key, vips[j]->value);
        }
        if (!smap_count(&lb->vips)) {
            ds_put_char(s, '\n');
        }
        free(vips);
    }
}

static void
cmd_lb_list(struct ctl_context *ctx)
{
    const struct nbrec_load_balancer **lbs = NULL;
    size_t n = 0, allocated = 0;
    const struct nbrec_load_balancer *lb;
    struct uuid uuid;
    bool is_uuid = ctx->argc > 1 && uuid_from_string(&uuid, ctx->argv[1]);

    NBREC_LOAD_BALANCER_FOR_EACH (lb, ctx->idl) {
        if (ctx->argc > 1 && strcmp(lb->name, ctx->argv[1])
            && !(is_uuid && uuid_equals(&uuid, &lb->header_.uuid))) {
            continue;
        }
        if (n >= allocated) {
            lbs = x2nrealloc(lbs, &allocated, sizeof *lbs);
        }
        lbs[n++] = lb;
    }
    print_lbs(&ctx->output, lbs, n);
    free(lbs);
}

/* ------------------------------------------------------------------------
 * ls-lb-add, ls-lb-del, ls-lb-list.
 * --------------------------------------------------------------------- */

static void
pre_ls_lb(struct ctl_context *ctx)
{
    nbctl_cond_capable(ctx);
    nbctl_pre_ls(ctx, ctx->argv[1]);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_load_balancer);
    pre_lb_columns(ctx);
    if (ctx->argc > 2) {
        nbctl_cond_by_name(ctx, &nbrec_table_load_balancer,
                           &nbrec_load_balancer_col_name, ctx->argv[2]);
    } else {
        nbctl_cond_none(ctx, &nbrec_table_load_balancer);
    }
}

/* Whether 'lb' is among the 'n' load balancers 'lbs'. */
static bool
lbs_contain(struct nbrec_load_balancer *const *lbs, size_t n,
            const struct nbrec_load_balancer *lb)
{
    for (size_t i = 0; i < n; i++) {
        if (lbs[i] == lb) {
            return true;
        }
    }
    return false;
}

static bool
ls_has_lb(const struct nbrec_logical_switch *ls,
          const struct nbrec_load_balancer *lb)
{
    return lbs_contain(ls->load_balancer, ls->n_load_balancer, lb);
}

/* ls-lb-del and lr-lb-del: detaches from 'owner' (a switch or a router
 * whose 'col' holds its 'n' load balancers 'lbs') the load balancer
 * ctx->argv[2], or all of them; 'kind' names the owner's kind in the
 * error for one it does not have. */
static void
lb_detach(struct ctl_context *ctx, const struct ovsdb_idl_row *owner,
          const struct ovsdb_idl_column *col,
          struct nbrec_load_balancer *const *lbs, size_t n,
          const char *kind)
{
    if (ctx->argc == 2) {
        /* A copy: each deletion may rewrite the owner's array. */
        struct nbrec_load_balancer **copy = xmemdup(lbs, n * sizeof *copy);
        for (size_t i = 0; i < n; i++) {
            nbctl_ref_update(owner, col, &copy[i]->header_, false);
        }
        free(copy);
        return;
    }
    const struct nbrec_load_balancer *lb
        = lb_by_name_or_uuid(ctx, ctx->argv[2], true);
    if (!lb) {
        return;
    }
    if (lbs_contain(lbs, n, lb)) {
        nbctl_ref_update(owner, col, &lb->header_, false);
    } else if (!shash_find(&ctx->options, "--if-exists")) {
        ctl_error(ctx, "load balancer %s is not part of any logical %s.",
                  ctx->argv[2], kind);
    }
}

static void
cmd_ls_lb_add(struct ctl_context *ctx)
{
    const struct nbrec_logical_switch *ls
        = ls_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!ls) {
        return;
    }
    const struct nbrec_load_balancer *lb
        = lb_by_name_or_uuid(ctx, ctx->argv[2], true);
    if (!lb) {
        return;
    }
    if (ls_has_lb(ls, lb)) {
        if (!shash_find(&ctx->options, "--may-exist")) {
            ctl_error(ctx, UUID_FMT " : a load balancer with this UUID "
                      "already exists", UUID_ARGS(&lb->header_.uuid));
        }
        return;
    }
    nbctl_ref_update(&ls->header_, &nbrec_logical_switch_col_load_balancer,
                     &lb->header_, true);
}

static void
cmd_ls_lb_del(struct ctl_context *ctx)
{
    const struct nbrec_logical_switch *ls
        = ls_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!ls) {
        return;
    }
    if (ctx->argc == 2) {
        /* Mutations, not a rewrite: see cmd_acl_del(). */
        const struct ovsdb_datum *uuids
            = nbrec_logical_switch_get_load_balancer(ls, OVSDB_TYPE_UUID);
        if (nbctl_cond_uuids(ctx, &nbrec_table_load_balancer, uuids)) {
            return;
        }
    }
    lb_detach(ctx, &ls->header_, &nbrec_logical_switch_col_load_balancer,
              ls->load_balancer, ls->n_load_balancer, "switch");
}

static void
cmd_ls_lb_list(struct ctl_context *ctx)
{
    const struct nbrec_logical_switch *ls
        = ls_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!ls) {
        return;
    }
    const struct ovsdb_datum *uuids
        = nbrec_logical_switch_get_load_balancer(ls, OVSDB_TYPE_UUID);
    if (nbctl_cond_uuids(ctx, &nbrec_table_load_balancer, uuids)) {
        return;
    }
    const struct nbrec_load_balancer **lbs
        = xmemdup(ls->load_balancer,
                  ls->n_load_balancer * sizeof *ls->load_balancer);
    print_lbs(&ctx->output, lbs, ls->n_load_balancer);
    free(lbs);
}

/* ------------------------------------------------------------------------
 * lr-lb-add, lr-lb-del, lr-lb-list (routers are monitored in full, as by
 * the other router commands).
 * --------------------------------------------------------------------- */

static void
pre_lr_lb(struct ctl_context *ctx)
{
    nbctl_pre_lrp(ctx);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_router_col_load_balancer);
    pre_lb_columns(ctx);
}

static bool
lr_has_lb(const struct nbrec_logical_router *lr,
          const struct nbrec_load_balancer *lb)
{
    return lbs_contain(lr->load_balancer, lr->n_load_balancer, lb);
}

static void
cmd_lr_lb_add(struct ctl_context *ctx)
{
    const struct nbrec_logical_router *lr
        = lr_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lr) {
        return;
    }
    const struct nbrec_load_balancer *lb
        = lb_by_name_or_uuid(ctx, ctx->argv[2], true);
    if (!lb) {
        return;
    }
    if (lr_has_lb(lr, lb)) {
        if (!shash_find(&ctx->options, "--may-exist")) {
            ctl_error(ctx, UUID_FMT " : a load balancer with this UUID "
                      "already exists", UUID_ARGS(&lb->header_.uuid));
        }
        return;
    }
    nbctl_ref_update(&lr->header_, &nbrec_logical_router_col_load_balancer,
                     &lb->header_, true);
}

static void
cmd_lr_lb_del(struct ctl_context *ctx)
{
    const struct nbrec_logical_router *lr
        = lr_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lr) {
        return;
    }
    lb_detach(ctx, &lr->header_, &nbrec_logical_router_col_load_balancer,
              lr->load_balancer, lr->n_load_balancer, "router");
}

static void
cmd_lr_lb_list(struct ctl_context *ctx)
{
    const struct nbrec_logical_router *lr
        = lr_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lr) {
        return;
    }
    const struct nbrec_load_balancer **lbs
        = xmemdup(lr->load_balancer,
                  lr->n_load_balancer * sizeof *lr->load_balancer);
    print_lbs(&ctx->output, lbs, lr->n_load_balancer);
    free(lbs);
}

/* ------------------------------------------------------------------------
 * Meters.
 * --------------------------------------------------------------------- */

static void
pre_meter(struct ctl_context *ctx)
{
    nbctl_cond_capable(ctx);
    ovsdb_idl_add_column(ctx->idl, &nbrec_meter_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_meter_col_unit);
    ovsdb_idl_add_column(ctx->idl, &nbrec_meter_col_bands);
    ovsdb_idl_add_column(ctx->idl, &nbrec_meter_col_fair);
    ovsdb_idl_add_column(ctx->idl, &nbrec_meter_band_col_action);
    ovsdb_idl_add_column(ctx->idl, &nbrec_meter_band_col_rate);
    ovsdb_idl_add_column(ctx->idl, &nbrec_meter_band_col_burst_size);
    if (ctx->argc > 1) {
        nbctl_cond_string(ctx, &nbrec_table_meter, &nbrec_meter_col_name,
                          ctx->argv[1]);
    } else {
        nbctl_cond_all(ctx, &nbrec_table_meter);
    }
    /* Bands are few and only reachable through their meters. */
    nbctl_cond_all(ctx, &nbrec_table_meter_band);
}

static const struct nbrec_meter *
meter_by_name(struct ctl_context *ctx, const char *name)
{
    const struct nbrec_meter *meter;
    NBREC_METER_FOR_EACH (meter, ctx->idl) {
        if (!strcmp(meter->name, name)) {
            return meter;
        }
    }
    return NULL;
}

static void
cmd_meter_add(struct ctl_context *ctx)
{
    const char *name = ctx->argv[1];

    if (meter_by_name(ctx, name)) {
        if (!shash_find(&ctx->options, "--may-exist")) {
            ctl_error(ctx, "meter with name \"%s\" already exists", name);
        }
        return;
    }
    if (!strncmp(name, "__", 2)) {
        ctl_error(ctx, "meter names that begin with \"__\" are reserved");
        return;
    }
    if (strcmp(ctx->argv[2], "drop")) {
        ctl_error(ctx, "action must be \"drop\"");
        return;
    }
    unsigned long long int rate;
    if (!str_to_ullong(ctx->argv[3], 10, &rate) || !rate
        || rate > UINT32_MAX) {
        ctl_error(ctx, "rate must be in the range 1...4294967295");
        return;
    }
    const char *unit = ctx->argv[4];
    if (strcmp(unit, "kbps") && strcmp(unit, "pktps")) {
        ctl_error(ctx, "unit must be \"kbps\" or \"pktps\"");
        return;
    }
    unsigned long long int burst = 0;
    if (ctx->argc > 5
        && (!str_to_ullong(ctx->argv[5], 10, &burst)
            || burst > UINT32_MAX)) {
        ctl_error(ctx, "burst must be in the range 0...4294967295");
        return;
    }

    struct nbrec_meter_band *band = nbrec_meter_band_insert(ctx->txn);
    nbrec_meter_band_set_action(band, "drop");
    nbrec_meter_band_set_rate(band, rate);
    nbrec_meter_band_set_burst_size(band, burst);

    struct nbrec_meter *meter = nbrec_meter_insert(ctx->txn);
    nbrec_meter_set_name(meter, name);
    nbrec_meter_set_unit(meter, unit);
    nbrec_meter_set_bands(meter, &band, 1);
    if (shash_find(&ctx->options, "--fair")) {
        bool fair = true;
        nbrec_meter_set_fair(meter, &fair, 1);
    }
}

static void
cmd_meter_del(struct ctl_context *ctx)
{
    const struct nbrec_meter *meter;
    NBREC_METER_FOR_EACH_SAFE (meter, ctx->idl) {
        if (ctx->argc == 1 || !strcmp(meter->name, ctx->argv[1])) {
            nbrec_meter_delete(meter);
        }
    }
}

static int
meter_cmp(const void *a_, const void *b_)
{
    const struct nbrec_meter *a = *(const struct nbrec_meter *const *) a_;
    const struct nbrec_meter *b = *(const struct nbrec_meter *const *) b_;
    return strcmp(a->name, b->name);
}

static void
cmd_meter_list(struct ctl_context *ctx)
{
    const struct nbrec_meter **meters = NULL;
    size_t n = 0, allocated = 0;
    const struct nbrec_meter *meter;

    NBREC_METER_FOR_EACH (meter, ctx->idl) {
        if (n >= allocated) {
            meters = x2nrealloc(meters, &allocated, sizeof *meters);
        }
        meters[n++] = meter;
    }
    if (n) {
        qsort(meters, n, sizeof *meters, meter_cmp);
    }
    for (size_t i = 0; i < n; i++) {
        meter = meters[i];
        ds_put_format(&ctx->output, "%s:", meter->name);
        if (meter->fair && *meter->fair) {
            ds_put_cstr(&ctx->output, " (fair)");
        }
        ds_put_cstr(&ctx->output, " bands:\n");
        for (size_t j = 0; j < meter->n_bands; j++) {
            const struct nbrec_meter_band *band = meter->bands[j];
            ds_put_format(&ctx->output, "  %s: %"PRId64" %s", band->action,
                          band->rate, meter->unit);
            if (band->burst_size) {
                ds_put_format(&ctx->output, ", %"PRId64" %s burst",
                              band->burst_size,
                              !strcmp(meter->unit, "kbps") ? "kb"
                                                           : "packet");
            }
            ds_put_char(&ctx->output, '\n');
        }
    }
    free(meters);
}

/* ------------------------------------------------------------------------
 * Control plane protection: copp-add, copp-del, copp-list, ls-copp-add,
 * lr-copp-add.
 * --------------------------------------------------------------------- */

static const char *const copp_protos[] = {
    "arp", "arp-resolve", "dhcpv4-opts", "dhcpv6-opts", "dns", "event-elb",
    "icmp4-error", "icmp6-error", "igmp", "nd-na", "nd-ns", "nd-ns-resolve",
    "nd-ra-opts", "tcp-reset", "bfd", "reject", "svc-monitor",
};

static bool
copp_proto_check(struct ctl_context *ctx, const char *proto)
{
    for (size_t i = 0; i < ARRAY_SIZE(copp_protos); i++) {
        if (!strcmp(proto, copp_protos[i])) {
            return true;
        }
    }
    struct ds s = DS_EMPTY_INITIALIZER;
    for (size_t i = 0; i < ARRAY_SIZE(copp_protos); i++) {
        ds_put_format(&s, "%s%s", i ? ", " : "", copp_protos[i]);
    }
    ctl_error(ctx, "Invalid control protocol. Allowed values: %s.",
              ds_cstr(&s));
    ds_destroy(&s);
    return false;
}

static void
pre_copp(struct ctl_context *ctx)
{
    ovsdb_idl_add_column(ctx->idl, &nbrec_copp_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_copp_col_meters);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_copp);
    nbctl_pre_lrp(ctx);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_router_col_copp);
}

static const struct nbrec_copp *
copp_by_name_or_uuid(struct ctl_context *ctx, const char *id,
                     bool must_exist)
{
    const struct nbrec_copp *copp = NULL;
    struct uuid uuid;
    bool is_uuid = uuid_from_string(&uuid, id);

    if (is_uuid) {
        copp = nbrec_copp_get_for_uuid(ctx->idl, &uuid);
    }
    if (!copp) {
        const struct nbrec_copp *iter;
        NBREC_COPP_FOR_EACH (iter, ctx->idl) {
            if (!strcmp(iter->name, id)) {
                copp = iter;
                break;
            }
        }
    }
    if (!copp && must_exist) {
        ctl_error(ctx, "%s: copp %s not found", id,
                  is_uuid ? "UUID" : "name");
    }
    return copp;
}

static void
cmd_copp_add(struct ctl_context *ctx)
{
    const char *name = ctx->argv[1];
    const char *proto = ctx->argv[2];
    const char *meter = ctx->argv[3];

    if (!copp_proto_check(ctx, proto)) {
        return;
    }
    /* A NAME that is a UUID must name an existing row, as in stock. */
    struct uuid uuid;
    const struct nbrec_copp *copp
        = copp_by_name_or_uuid(ctx, name, uuid_from_string(&uuid, name));
    if (ctx->error) {
        return;
    }
    if (!copp) {
        struct nbrec_copp *new = nbrec_copp_insert(ctx->txn);
        nbrec_copp_set_name(new, name);
        copp = new;
    }
    /* The meter need not exist yet, as in stock.  The whole map is
     * rewritten, so that later commands of the invocation see it. */
    struct smap meters;
    smap_clone(&meters, &copp->meters);
    smap_replace(&meters, proto, meter);
    nbrec_copp_verify_meters(copp);
    nbrec_copp_set_meters(copp, &meters);
    smap_destroy(&meters);
}

static void
cmd_copp_del(struct ctl_context *ctx)
{
    const struct nbrec_copp *copp
        = copp_by_name_or_uuid(ctx, ctx->argv[1], false);
    if (ctx->argc == 3 && !copp_proto_check(ctx, ctx->argv[2])) {
        return;
    }
    if (!copp) {
        return;
    }
    if (ctx->argc == 3) {
        const char *proto = ctx->argv[2];
        if (!smap_get(&copp->meters, proto)) {
            return;
        }
        if (smap_count(&copp->meters) > 1) {
            struct smap meters;
            smap_clone(&meters, &copp->meters);
            smap_remove(&meters, proto);
            nbrec_copp_verify_meters(copp);
            nbrec_copp_set_meters(copp, &meters);
            smap_destroy(&meters);
            return;
        }
    }
    /* Switches and routers refer to it weakly. */
    nbrec_copp_delete(copp);
}

static void
cmd_copp_list(struct ctl_context *ctx)
{
    const struct nbrec_copp *copp
        = copp_by_name_or_uuid(ctx, ctx->argv[1], false);
    if (!copp) {
        return;
    }
    /* In the map's hash order, as stock prints them. */
    const struct smap_node *node;
    SMAP_FOR_EACH (node, &copp->meters) {
        ds_put_format(&ctx->output, "%s: %s\n", node->key, node->value);
    }
}

static void
cmd_ls_copp_add(struct ctl_context *ctx)
{
    const struct nbrec_logical_switch *ls
        = ls_by_name_or_uuid(ctx, ctx->argv[2], true);
    if (!ls) {
        return;
    }
    const struct nbrec_copp *copp
        = copp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (copp) {
        nbrec_logical_switch_set_copp(ls, copp);
    }
}

static void
cmd_lr_copp_add(struct ctl_context *ctx)
{
    const struct nbrec_logical_router *lr
        = lr_by_name_or_uuid(ctx, ctx->argv[2], true);
    if (!lr) {
        return;
    }
    const struct nbrec_copp *copp
        = copp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (copp) {
        nbrec_logical_router_set_copp(lr, copp);
    }
}

const struct ctl_command_syntax nbctl_lb_commands[] = {
    { "lb-add", 3, 4, "LB VIP[:PORT] IP[:PORT]... [PROTOCOL]", pre_lb,
      cmd_lb_add, NULL, "--may-exist,--add-duplicate,--reject,--event",
      RW },
    { "lb-del", 1, 2, "LB [VIP]", pre_lb, cmd_lb_del, NULL, "--if-exists",
      RW },
    { "lb-list", 0, 1, "[LB]", pre_lb, cmd_lb_list, NULL, "", RO },
    { "ls-lb-add", 2, 2, "SWITCH LB", pre_ls_lb, cmd_ls_lb_add, NULL,
      "--may-exist", RW },
    { "ls-lb-del", 1, 2, "SWITCH [LB]", pre_ls_lb, cmd_ls_lb_del, NULL,
      "--if-exists", RW },
    { "ls-lb-list", 1, 1, "SWITCH", pre_ls_lb, cmd_ls_lb_list, NULL, "",
      RO },
    { "lr-lb-add", 2, 2, "ROUTER LB", pre_lr_lb, cmd_lr_lb_add, NULL,
      "--may-exist", RW },
    { "lr-lb-del", 1, 2, "ROUTER [LB]", pre_lr_lb, cmd_lr_lb_del, NULL,
      "--if-exists", RW },
    { "lr-lb-list", 1, 1, "ROUTER", pre_lr_lb, cmd_lr_lb_list, NULL, "",
      RO },

    { "meter-add", 4, 5, "NAME ACTION RATE UNIT [BURST]", pre_meter,
      cmd_meter_add, NULL, "--fair,--may-exist", RW },
    { "meter-del", 0, 1, "[NAME]", pre_meter, cmd_meter_del, NULL, "", RW },
    { "meter-list", 0, 0, "", pre_meter, cmd_meter_list, NULL, "", RO },

    { "copp-add", 3, 3, "NAME PROTO METER", pre_copp, cmd_copp_add, NULL,
      "", RW },
    { "copp-del", 1, 2, "NAME [PROTO]", pre_copp, cmd_copp_del, NULL, "",
      RW },
    { "copp-list", 1, 1, "NAME", pre_copp, cmd_copp_list, NULL, "", RO },
    { "ls-copp-add", 2, 2, "NAME SWITCH", pre_copp, cmd_ls_copp_add, NULL,
      "", RW },
    { "lr-copp-add", 2, 2, "NAME ROUTER", pre_copp, cmd_lr_copp_add, NULL,
      "", RW },

    { NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, RO },
};
