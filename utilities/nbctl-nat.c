/* ovn-nbctl: NAT commands (lr-nat-add, lr-nat-del, lr-nat-list).
 *
 * Syntax, messages, output and the rows written are those of OVN 23.03's
 * ovn-nbctl (tests/nbctl-nat.at runs each command through ours and stock's
 * and compares), except where docs/ovn-nbctl.md says we are stricter.
 * Like the other router commands these monitor the router tables in full. */
#include <config.h>

#include "utilities/nbctl.h"

#include <arpa/inet.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "openvswitch/dynamic-string.h"
#include "openvswitch/shash.h"
#include "ovsdb-idl.h"
#include "packets.h"
#include "smap.h"
#include "util.h"
#include "uuid.h"

/* An address or network, as the NAT commands compare them. */
struct nat_addr {
    bool is_v6;
    struct in6_addr ip;         /* IPv4 as an IPv4-mapped address. */
    unsigned int plen;
};

/* Formats 'a' as OVN stores a prefix: masked, "/PLEN" only for a network
 * (so "10.0.0.7/24" is "10.0.0.0/24" and "10.0.0.7/32" is "10.0.0.7"). */
static char *
nat_addr_format(const struct nat_addr *a)
{
    char buf[INET6_ADDRSTRLEN];
    if (!a->is_v6) {
        ovs_be32 ip = in6_addr_get_mapped_ipv4(&a->ip)
                      & be32_prefix_mask(a->plen);
        return a->plen == 32 ? xasprintf(IP_FMT, IP_ARGS(ip))
               : xasprintf(IP_FMT"/%u", IP_ARGS(ip), a->plen);
    }
    struct in6_addr mask = ipv6_create_mask(a->plen);
    struct in6_addr ip = ipv6_addr_bitand(&a->ip, &mask);
    inet_ntop(AF_INET6, &ip, buf, sizeof buf);
    return a->plen == 128 ? xstrdup(buf) : xasprintf("%s/%u", buf, a->plen);
}

/* True if the address part of 's' (before any '/') is a plain dotted quad
 * (or IPv6 address, if 'v6'): OVS's scanners would read "10.0.0.300" as
 * 10.0.0.44, which stock ovn-nbctl then stores. */
static bool
nat_addr_part_is_strict(const char *s, bool v6)
{
    const char *slash = strchr(s, '/');
    char *addr = xmemdup0(s, slash ? slash - s : strlen(s));
    struct in6_addr buf;
    bool ok = inet_pton(v6 ? AF_INET6 : AF_INET, addr, &buf) == 1;
    free(addr);
    return ok;
}

/* Parses IP or IP/PLEN (or IP/MASK) 's' of family 'v6' into 'a' as stock
 * does (OVS's CIDR parsers), and, if 'strict', refuses an address part
 * that is not a plain address. */
static bool
nat_parse_cidr(const char *s, bool v6, bool strict, struct nat_addr *a)
{
    char *error;
    memset(a, 0, sizeof *a);
    a->is_v6 = v6;
    if (!v6) {
        ovs_be32 ip;
        error = ip_parse_cidr(s, &ip, &a->plen);
        if (!error) {
            a->ip = in6_addr_mapped_ipv4(ip);
        }
    } else {
        error = ipv6_parse_cidr(s, &a->ip, &a->plen);
    }
    if (error) {
        free(error);
        return false;
    }
    return !strict || nat_addr_part_is_strict(s, v6);
}

/* Parses 's' as an address or network of either family and returns its
 * normalized form, or NULL. */
static char *
nat_normalize(const char *s, bool strict)
{
    struct nat_addr a;
    if (nat_parse_cidr(s, false, strict, &a)
        || nat_parse_cidr(s, true, strict, &a)) {
        return nat_addr_format(&a);
    }
    return NULL;
}

/* Parses plain address 's' (no prefix) of family 'v6'. */
static bool
nat_parse_addr(const char *s, bool v6, struct nat_addr *a)
{
    memset(a, 0, sizeof *a);
    a->is_v6 = v6;
    if (!v6) {
        ovs_be32 ip;
        if (inet_pton(AF_INET, s, &ip) != 1) {
            return false;
        }
        a->ip = in6_addr_mapped_ipv4(ip);
        a->plen = 32;
    } else {
        if (inet_pton(AF_INET6, s, &a->ip) != 1) {
            return false;
        }
        a->plen = 128;
    }
    return true;
}

static bool
nat_type_is_valid(const char *type)
{
    return (!strcmp(type, "dnat") || !strcmp(type, "snat")
            || !strcmp(type, "dnat_and_snat"));
}

static void
nat_type_error(struct ctl_context *ctx, const char *type)
{
    ctl_error(ctx, "%s: type must be one of \"dnat\", \"snat\" and "
              "\"dnat_and_snat\".", type);
}

/* Like C's atoi(), which is what decides stock's port ranges. */
static int
nat_atoi(const char *s)
{
    return (int) strtol(s, NULL, 10);
}

/* Stock's check of an external port range: "MIN-MAX" with
 * 1 <= MIN < MAX <= 65535, or a single positive number.  Each number is
 * read as atoi() reads it (leading blanks and sign, trailing junk
 * ignored), and '-' separated parts as strtok() splits them. */
static bool
nat_port_range_is_valid(const char *range)
{
    if (!strchr(range, '-')) {
        return nat_atoi(range) > 0;
    }
    char *copy = xstrdup(range);
    char *save = NULL;
    char *min = strtok_r(copy, "-", &save);
    char *max = min ? strtok_r(NULL, "-", &save) : NULL;
    bool ok = (max && !strtok_r(NULL, "-", &save));
    if (ok) {
        int lo = nat_atoi(min), hi = nat_atoi(max);
        ok = lo >= 1 && hi <= 65535 && lo < hi;
    }
    free(copy);
    return ok;
}

/* ------------------------------------------------------------------------
 * Distributed gateway ports.
 * --------------------------------------------------------------------- */

static bool
lrp_is_dgp(const struct nbrec_logical_router_port *lrp)
{
    return lrp->n_gateway_chassis || lrp->ha_chassis_group;
}

static size_t
lr_n_dgps(const struct nbrec_logical_router *lr)
{
    size_t n = 0;
    for (size_t i = 0; i < lr->n_ports; i++) {
        n += lrp_is_dgp(lr->ports[i]);
    }
    return n;
}

/* The distributed gateway port of 'lr' one of whose networks holds
 * address 'ip' (a NAT's external IP), or NULL. */
static const struct nbrec_logical_router_port *
lr_dgp_for_ip(const struct nbrec_logical_router *lr, const char *ip)
{
    struct nat_addr a;
    if (!nat_parse_addr(ip, false, &a) && !nat_parse_addr(ip, true, &a)) {
        return NULL;
    }
    for (size_t i = 0; i < lr->n_ports; i++) {
        const struct nbrec_logical_router_port *lrp = lr->ports[i];
        if (!lrp_is_dgp(lrp)) {
            continue;
        }
        for (size_t j = 0; j < lrp->n_networks; j++) {
            struct nat_addr net;
            if (!nat_parse_cidr(lrp->networks[j], a.is_v6, false, &net)) {
                continue;
            }
            struct in6_addr mask = ipv6_create_mask(
                net.plen + (a.is_v6 ? 0 : 96));
            struct in6_addr x = ipv6_addr_bitand(&a.ip, &mask);
            struct in6_addr y = ipv6_addr_bitand(&net.ip, &mask);
            if (ipv6_addr_equals(&x, &y)) {
                return lrp;
            }
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------------
 * lr-nat-add.
 * --------------------------------------------------------------------- */

static void
pre_lr_nat(struct ctl_context *ctx)
{
    nbctl_pre_lrp(ctx);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_router_col_nat);
    const struct ovsdb_idl_column *cols[] = {
        &nbrec_nat_col_type,
        &nbrec_nat_col_external_ip,
        &nbrec_nat_col_external_port_range,
        &nbrec_nat_col_logical_ip,
        &nbrec_nat_col_logical_port,
        &nbrec_nat_col_external_mac,
        &nbrec_nat_col_gateway_port,
        &nbrec_nat_col_options,
    };
    for (size_t i = 0; i < ARRAY_SIZE(cols); i++) {
        ovsdb_idl_add_column(ctx->idl, cols[i]);
    }
}

static void
pre_lr_nat_add(struct ctl_context *ctx)
{
    pre_lr_nat(ctx);
    if (ctx->argc >= 7) {
        /* LOGICAL_PORT must be a switch port. */
        ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_port_col_name);
    }
}

/* What lr-nat-add is asked to add. */
struct nat_request {
    const char *type;
    bool is_snat;
    bool stateless;
    bool may_exist;
    char *external_ip;          /* Normalized. */
    char *logical_ip;           /* Normalized. */
    const char *logical_port;
    const char *external_mac;
    const struct nbrec_logical_router_port *dgp;   /* Given or inferred. */
};

/* Checks 'req' against the router's existing NAT 'nat' as stock does;
 * 'same_dgp' is false if the two are on different distributed gateway
 * ports (then only the stateless check applies).  Returns true if the
 * command is finished (an error, or --may-exist found the NAT and updated
 * it). */
static bool
nat_check_existing(struct ctl_context *ctx, const struct nat_request *req,
                   const struct nbrec_nat *nat, bool same_dgp)
{
    char *old_ext = nat_normalize(nat->external_ip, false);
    char *old_log = nat_normalize(nat->logical_ip, false);
    bool done = false;

    if (!old_ext || !old_log) {
        goto out;
    }
    if (same_dgp && !strcmp(nat->type, req->type)) {
        const char *key_new = req->is_snat ? req->logical_ip
                                           : req->external_ip;
        const char *key_old = req->is_snat ? old_log : old_ext;
        const char *other_new = req->is_snat ? req->external_ip
                                             : req->logical_ip;
        const char *other_old = req->is_snat ? old_ext : old_log;
        if (!strcmp(key_new, key_old)) {
            done = true;
            if (strcmp(other_new, other_old)) {
                ctl_error(ctx, "a NAT with this type (%s), %s (%s) already "
                          "exists", req->type,
                          req->is_snat ? "logical_ip" : "external_ip",
                          key_new);
            } else if (req->may_exist) {
                nbrec_nat_verify_logical_port(nat);
                nbrec_nat_verify_external_mac(nat);
                nbrec_nat_set_logical_port(nat, req->logical_port);
                nbrec_nat_set_external_mac(nat, req->external_mac);
            } else {
                ctl_error(ctx, "%s, %s: a NAT with this external_ip and "
                          "logical_ip already exists", req->external_ip,
                          req->logical_ip);
            }
        }
    }
    /* An external IP of a stateless NAT is not shared (stock reports this
     * after, and instead of, the error above). */
    if ((!strcmp(req->type, "dnat_and_snat")
         || !strcmp(nat->type, "dnat_and_snat"))
        && !strcmp(old_ext, req->external_ip)
        && (req->stateless
            || smap_get_bool(&nat->options, "stateless", false))) {
        if (ctx->error) {
            free(ctx->error);
            ctx->error = NULL;
        }
        ctl_error(ctx, "%s, %s: External ip cannot be shared across "
                  "stateless and stateful NATs", req->external_ip,
                  req->logical_ip);
    }

out:
    free(old_ext);
    free(old_log);
    return done || ctx->error;
}

static void
cmd_lr_nat_add(struct ctl_context *ctx)
{
    const struct nbrec_logical_router *lr
        = lr_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lr) {
        return;
    }

    struct nat_request req = {
        .type = ctx->argv[2],
        .is_snat = !strcmp(ctx->argv[2], "snat"),
        .stateless = shash_find(&ctx->options, "--stateless") != NULL,
        .may_exist = shash_find(&ctx->options, "--may-exist") != NULL,
    };
    bool portrange = shash_find(&ctx->options, "--portrange") != NULL;
    bool add_route = shash_find(&ctx->options, "--add-route") != NULL;
    const char *gw_name = shash_find_data(&ctx->options, "--gateway-port");
    const char *port_range = NULL;
    struct nat_addr ext, log;

    if (!nat_type_is_valid(req.type)) {
        nat_type_error(ctx, req.type);
        return;
    }
    if (req.stateless && strcmp(req.type, "dnat_and_snat")) {
        ctl_error(ctx, "stateless is not applicable to dnat or snat types");
        return;
    }

    const char *ext_arg = ctx->argv[3];
    if (!nat_parse_addr(ext_arg, false, &ext)
        && !nat_parse_addr(ext_arg, true, &ext)) {
        ctl_error(ctx, "%s: Not a valid IPv4 or IPv6 address.", ext_arg);
        return;
    }
    const char *log_arg = ctx->argv[4];
    if (req.is_snat) {
        if (!nat_parse_cidr(log_arg, ext.is_v6, true, &log)) {
            ctl_error(ctx, "%s: should be an IPv%d address or network.",
                      log_arg, ext.is_v6 ? 6 : 4);
            return;
        }
    } else if (!nat_parse_addr(log_arg, ext.is_v6, &log)) {
        ctl_error(ctx, "%s: Not a valid IPv%d address.", log_arg,
                  ext.is_v6 ? 6 : 4);
        return;
    }

    /* ROUTER TYPE EXTERNAL_IP LOGICAL_IP, then PORT_RANGE (--portrange) or
     * LOGICAL_PORT EXTERNAL_MAC [PORT_RANGE]. */
    if (ctx->argc == 6) {
        if (!portrange) {
            ctl_error(ctx, "lr-nat-add with logical_port must also specify "
                      "external_mac.");
            return;
        }
        port_range = ctx->argv[5];
    } else if (ctx->argc >= 7) {
        if (strcmp(req.type, "dnat_and_snat")) {
            ctl_error(ctx, "logical_port and external_mac are only valid "
                      "when type is \"dnat_and_snat\".");
            return;
        }
        if (ctx->argc == 7 && portrange) {
            ctl_error(ctx, "lr-nat-add with logical_port must also specify "
                      "external_mac.");
            return;
        }
        if (!lsp_by_name_or_uuid(ctx, ctx->argv[5], true)) {
            return;
        }
        struct eth_addr ea;
        if (!eth_addr_from_string(ctx->argv[6], &ea)) {
            ctl_error(ctx, "invalid mac address %s.", ctx->argv[6]);
            return;
        }
        req.logical_port = ctx->argv[5];
        req.external_mac = ctx->argv[6];
        if (ctx->argc == 8) {
            port_range = ctx->argv[7];
        }
    }
    if (port_range && !nat_port_range_is_valid(port_range)) {
        ctl_error(ctx, "invalid port range %s.", port_range);
        return;
    }

    /* The distributed gateway port: given, or (with several) inferred
     * from the external IP. */
    size_t n_dgps = lr_n_dgps(lr);
    const struct nbrec_logical_router_port *gw = NULL;
    if (gw_name) {
        gw = lrp_by_name_or_uuid(ctx, gw_name, true);
        if (!gw) {
            return;
        }
        bool on_lr = false;
        for (size_t i = 0; i < lr->n_ports; i++) {
            on_lr |= lr->ports[i] == gw;
        }
        if (!on_lr) {
            ctl_error(ctx, "%s is not a router port of logical router: %s.",
                      gw_name, ctx->argv[1]);
            return;
        }
        if (!lrp_is_dgp(gw)) {
            ctl_error(ctx, "%s is not a distributed gateway router port.",
                      gw_name);
            return;
        }
        req.dgp = gw;
    } else if (n_dgps > 1) {
        req.dgp = lr_dgp_for_ip(lr, ext_arg);
        if (!req.dgp) {
            ctl_error(ctx, "logical router: %s has multiple distributed "
                      "gateway ports and gateway_port can not be determined "
                      "from external IP of NAT rule.", ctx->argv[1]);
            return;
        }
    }

    req.external_ip = nat_addr_format(&ext);
    req.logical_ip = nat_addr_format(&log);
    for (size_t i = 0; i < lr->n_nat; i++) {
        const struct nbrec_nat *nat = lr->nat[i];
        bool same_dgp = true;
        if (n_dgps > 1) {
            /* With several gateway ports, NATs on another one are no
             * duplicates. */
            const struct nbrec_logical_router_port *old_dgp
                = nat->gateway_port ? nat->gateway_port
                  : lr_dgp_for_ip(lr, nat->external_ip);
            same_dgp = old_dgp == req.dgp;
        }
        if (nat_check_existing(ctx, &req, nat, same_dgp)) {
            goto out;
        }
    }

    struct nbrec_nat *nat = nbrec_nat_insert(ctx->txn);
    nbrec_nat_set_type(nat, req.type);
    nbrec_nat_set_external_ip(nat, ext_arg);
    nbrec_nat_set_logical_ip(nat, req.logical_ip);
    if (req.logical_port) {
        nbrec_nat_set_logical_port(nat, req.logical_port);
        nbrec_nat_set_external_mac(nat, req.external_mac);
    }
    if (port_range) {
        nbrec_nat_set_external_port_range(nat, port_range);
    }
    if (gw) {
        nbrec_nat_set_gateway_port(nat, gw);
    }
    struct smap options = SMAP_INITIALIZER(&options);
    smap_add(&options, "stateless", req.stateless ? "true" : "false");
    if (add_route) {
        smap_add(&options, "add_route", "true");
    }
    nbrec_nat_set_options(nat, &options);
    smap_destroy(&options);
    nbctl_ref_update(&lr->header_, &nbrec_logical_router_col_nat,
                     &nat->header_, true);

out:
    free(req.external_ip);
    free(req.logical_ip);
}

/* ------------------------------------------------------------------------
 * lr-nat-del.
 * --------------------------------------------------------------------- */

/* Removes 'nat' from 'lr' (which then no longer refers to it, so the
 * server deletes it), visibly to later commands of the invocation. */
static void
nat_unlink(const struct nbrec_logical_router *lr, const struct nbrec_nat *nat)
{
    nbctl_ref_update(&lr->header_, &nbrec_logical_router_col_nat,
                     &nat->header_, false);
}

/* True if 'nat''s address that lr-nat-del matches for its type (the
 * logical IP of an snat, else the external IP) is 'ip' (normalized). */
static bool
nat_ip_matches(const struct nbrec_nat *nat, const char *ip)
{
    const char *s = !strcmp(nat->type, "snat") ? nat->logical_ip
                                               : nat->external_ip;
    char *norm = nat_normalize(s, false);
    bool eq = norm && !strcmp(norm, ip);
    free(norm);
    return eq;
}

static void
cmd_lr_nat_del(struct ctl_context *ctx)
{
    const struct nbrec_logical_router *lr
        = lr_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lr) {
        return;
    }

    /* A copy: each deletion may rewrite the router's array. */
    size_t n = lr->n_nat;
    struct nbrec_nat **nats = xmemdup(lr->nat, n * sizeof *nats);

    if (ctx->argc == 2) {
        for (size_t i = 0; i < n; i++) {
            nat_unlink(lr, nats[i]);
        }
        goto out;
    }

    const char *type = ctx->argv[2];
    if (!nat_type_is_valid(type)) {
        nat_type_error(ctx, type);
        goto out;
    }
    if (ctx->argc == 3) {
        for (size_t i = 0; i < n; i++) {
            if (!strcmp(nats[i]->type, type)) {
                nat_unlink(lr, nats[i]);
            }
        }
        goto out;
    }

    /* TYPE IP, TYPE GATEWAY_PORT or TYPE IP GATEWAY_PORT. */
    char *ip = nat_normalize(ctx->argv[3], true);
    if (ctx->argc == 4) {
        const struct nbrec_logical_router_port *gw = NULL;
        if (!ip) {
            gw = lrp_by_name_or_uuid(ctx, ctx->argv[3], true);
            if (!gw) {
                goto out;
            }
        }
        for (size_t i = 0; i < n; i++) {
            const struct nbrec_nat *nat = nats[i];
            if (!strcmp(nat->type, type)
                && (ip ? nat_ip_matches(nat, ip) : nat->gateway_port == gw)) {
                nat_unlink(lr, nat);
            }
        }
        free(ip);
        goto out;
    }

    if (!ip) {
        ctl_error(ctx, "%s: Invalid IP address or CIDR", ctx->argv[3]);
        goto out;
    }
    const struct nbrec_logical_router_port *gw
        = lrp_by_name_or_uuid(ctx, ctx->argv[4], true);
    if (gw) {
        for (size_t i = 0; i < n; i++) {
            const struct nbrec_nat *nat = nats[i];
            if (!strcmp(nat->type, type) && nat_ip_matches(nat, ip)
                && nat->gateway_port == gw) {
                nat_unlink(lr, nat);
                free(ip);
                goto out;
            }
        }
        if (!shash_find(&ctx->options, "--if-exists")) {
            ctl_error(ctx, "no matching NAT with the type (%s), %s (%s) and "
                      "gateway_port (%s)", type,
                      !strcmp(type, "snat") ? "logical_ip" : "external_ip",
                      ip, ctx->argv[4]);
        }
    }
    free(ip);

out:
    free(nats);
}

/* ------------------------------------------------------------------------
 * lr-nat-list.
 * --------------------------------------------------------------------- */

/* A line of lr-nat-list, sorted as stock sorts them: by the type, gateway
 * port and external IP columns, then NATs that tie come in descending UUID
 * order (stock keeps them in a hash map, whose buckets list the last
 * added, in UUID order, first). */
struct nat_line {
    char *key;
    char *line;
    const struct uuid *uuid;
};

static int
compare_nat_lines(const void *a_, const void *b_)
{
    const struct nat_line *a = a_, *b = b_;
    int cmp = strcmp(a->key, b->key);
    return cmp ? cmp : uuid_compare_3way(b->uuid, a->uuid);
}

static void
cmd_lr_nat_list(struct ctl_context *ctx)
{
    const struct nbrec_logical_router *lr
        = lr_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lr || !lr->n_nat) {
        return;
    }

    struct nat_line *lines = xmalloc(lr->n_nat * sizeof *lines);
    struct ds s = DS_EMPTY_INITIALIZER;
    for (size_t i = 0; i < lr->n_nat; i++) {
        const struct nbrec_nat *nat = lr->nat[i];
        ds_clear(&s);
        ds_put_format(&s, "%-17.13s%-22.18s%-19.15s", nat->type,
                      nat->gateway_port ? nat->gateway_port->name : "",
                      nat->external_ip);
        lines[i].key = xstrdup(ds_cstr(&s));
        ds_put_format(&s, "%-17.13s",
                      nat->external_port_range ? nat->external_port_range
                                               : "");
        if (nat->external_mac && nat->logical_port) {
            ds_put_format(&s, "%-20.16s%-21.17s%s", nat->logical_ip,
                          nat->external_mac, nat->logical_port);
        } else {
            ds_put_cstr(&s, nat->logical_ip);
        }
        lines[i].line = ds_steal_cstr(&s);
        lines[i].uuid = &nat->header_.uuid;
    }
    qsort(lines, lr->n_nat, sizeof *lines, compare_nat_lines);
    ds_put_cstr(&ctx->output, "TYPE             GATEWAY_PORT          "
                "EXTERNAL_IP        EXTERNAL_PORT    LOGICAL_IP          "
                "EXTERNAL_MAC         LOGICAL_PORT\n");
    for (size_t i = 0; i < lr->n_nat; i++) {
        ds_put_format(&ctx->output, "%s\n", lines[i].line);
        free(lines[i].key);
        free(lines[i].line);
    }
    free(lines);
    ds_destroy(&s);
}

const struct ctl_command_syntax nbctl_nat_commands[] = {
    { "lr-nat-add", 4, 7,
      "ROUTER TYPE EXTERNAL_IP LOGICAL_IP [LOGICAL_PORT EXTERNAL_MAC] "
      "[EXTERNAL_PORT_RANGE]", pre_lr_nat_add, cmd_lr_nat_add, NULL,
      "--may-exist,--stateless,--portrange,--add-route,--gateway-port=",
      RW },
    { "lr-nat-del", 1, 4, "ROUTER [TYPE [IP] [GATEWAY_PORT]]", pre_lr_nat,
      cmd_lr_nat_del, NULL, "--if-exists", RW },
    { "lr-nat-list", 1, 1, "ROUTER", pre_lr_nat, cmd_lr_nat_list, NULL, "",
      RO },

    { NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, RO },
};
