/* DHCP option tables and value checks (see dhcp-opts.h). */
#include <config.h>
#include "lib/dhcp-opts.h"

#include <string.h>

#include "lib/expr.h"
#include "lib/lex.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/util.h"
#include "util.h"

/* What stock ovn-northd 23.03 writes into SB DHCP_Options. */
static const struct dhcp_opt v4_opts[] = {
    { "offerip", 0, "ipv4" },
    { "netmask", 1, "ipv4" },
    { "router", 3, "ipv4" },
    { "dns_server", 6, "ipv4" },
    { "log_server", 7, "ipv4" },
    { "lpr_server", 9, "ipv4" },
    { "hostname", 12, "str" },
    { "domain_name", 15, "str" },
    { "swap_server", 16, "ipv4" },
    { "policy_filter", 21, "ipv4" },
    { "router_solicitation", 32, "ipv4" },
    { "nis_server", 41, "ipv4" },
    { "ntp_server", 42, "ipv4" },
    { "server_id", 54, "ipv4" },
    { "tftp_server", 66, "host_id" },
    { "classless_static_route", 121, "static_routes" },
    { "ms_classless_static_route", 249, "static_routes" },
    { "ip_forward_enable", 19, "bool" },
    { "router_discovery", 31, "bool" },
    { "ethernet_encap", 36, "bool" },
    { "default_ttl", 23, "uint8" },
    { "tcp_ttl", 37, "uint8" },
    { "mtu", 26, "uint16" },
    { "lease_time", 51, "uint32" },
    { "T1", 58, "uint32" },
    { "T2", 59, "uint32" },
    { "bootfile_name", 67, "str" },
    { "wpad", 252, "str" },
    { "path_prefix", 210, "str" },
    { "tftp_server_address", 150, "ipv4" },
    { "arp_cache_timeout", 35, "uint32" },
    { "tcp_keepalive_interval", 38, "uint32" },
    { "domain_search_list", 119, "domains" },
    { "broadcast_address", 28, "ipv4" },
    { "netbios_name_server", 44, "ipv4" },
    { "netbios_node_type", 46, "uint8" },
    { "bootfile_name_alt", 254, "str" },
    { "next_server", 253, "ipv4" },
};

/* And into SB DHCPv6_Options. */
static const struct dhcp_opt v6_opts[] = {
    { "server_id", 2, "mac" },
    { "ia_addr", 5, "ipv6" },
    { "dns_server", 23, "ipv6" },
    { "domain_search", 24, "str" },
};

/* The options of put_nd_ra_opts(), as ovn-controller 23.03 names them. */
static const struct dhcp_opt nd_ra_opts[] = {
    { "addr_mode", -1, "str" },
    { "slla", 1, "mac" },
    { "prefix", 3, "ipv6" },
    { "mtu", 5, "uint32" },
    { "rdnss", 25, "ipv6" },
    { "dnssl", 31, "str" },
    { "route_info", 24, "str" },
    { "router_preference", -1, "str" },
};

const struct dhcp_opt *
nd_ra_opt_find(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(nd_ra_opts); i++) {
        if (!strcmp(nd_ra_opts[i].name, name)) {
            return &nd_ra_opts[i];
        }
    }
    return NULL;
}

/* The checks ovn-controller 23.03 makes of one put_nd_ra_opts() value
 * beyond its kind (tested against stock ovn-trace, tests/lang.at):
 * 'value' is the canonical text dhcp_opt_parse_value() wrote. */
char *
nd_ra_opt_check(const struct dhcp_opt *opt, const char *value)
{
    const char *name = opt->name;
    if (!strcmp(name, "dnssl") || !strcmp(name, "route_info")) {
        return NULL;
    }

    /* Exactly one constant, in braces or not. */
    struct lexer lex;
    lex_init(&lex, value);
    lex_next(&lex);
    bool set = lex_accept(&lex, LEX_T_LCURLY);
    struct lex_token t = lex.token;
    t.s = nullable_xstrdup(lex.token.s);
    lex_next(&lex);
    bool one = set ? lex.token.type == LEX_T_RCURLY
                   : lex.token.type == LEX_T_END;
    lex_destroy(&lex);

    bool ok = one;
    if (ok && !strcmp(name, "addr_mode")) {
        ok = (!strcmp(t.s, "slaac") || !strcmp(t.s, "dhcpv6_stateful")
              || !strcmp(t.s, "dhcpv6_stateless"));
    } else if (ok && !strcmp(name, "router_preference")) {
        ok = (!strcmp(t.s, "HIGH") || !strcmp(t.s, "MEDIUM")
              || !strcmp(t.s, "LOW"));
    } else if (ok && !strcmp(name, "slla")) {
        ok = t.format == LEX_F_ETHERNET;
    } else if (ok && !strcmp(name, "prefix")) {
        ok = t.format == LEX_F_IPV6 && t.type == LEX_T_MASKED_INTEGER;
    } else if (ok && !strcmp(name, "rdnss")) {
        ok = t.format == LEX_F_IPV6;
    } else if (ok && !strcmp(name, "mtu")) {
        ok = t.format == LEX_F_DECIMAL && t.type == LEX_T_INTEGER;
    }
    free(t.s);
    return ok ? NULL : xasprintf("invalid value for put_nd_ra_opts() "
                                 "option \"%s\"", name);
}

const struct dhcp_opt *
dhcp_opts_v4(size_t *n)
{
    *n = ARRAY_SIZE(v4_opts);
    return v4_opts;
}

const struct dhcp_opt *
dhcp_opts_v6(size_t *n)
{
    *n = ARRAY_SIZE(v6_opts);
    return v6_opts;
}

const struct dhcp_opt *
dhcp_opt_find(bool v6, const char *name)
{
    size_t n;
    const struct dhcp_opt *opts = v6 ? dhcp_opts_v6(&n) : dhcp_opts_v4(&n);
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(opts[i].name, name)) {
            return &opts[i];
        }
    }
    return NULL;
}

/* The kinds of constant a value may hold. */
enum value_kind {
    VK_STRING = 1 << 0,
    VK_NUMBER = 1 << 1,
};

static int
allowed_kinds(const struct dhcp_opt *opt)
{
    if (!strcmp(opt->type, "str") || !strcmp(opt->type, "domains")) {
        return VK_STRING;
    } else if (!strcmp(opt->type, "host_id")) {
        return VK_STRING | VK_NUMBER;   /* A name or an address. */
    } else {
        return VK_NUMBER;
    }
}

/* The kind of the lexer's current token, or 0 if it is no constant. */
static int
token_kind(const struct lexer *lex)
{
    switch (lex->token.type) {
    case LEX_T_STRING:
        return VK_STRING;
    case LEX_T_INTEGER:
    case LEX_T_MASKED_INTEGER:
        return VK_NUMBER;
    default:
        return 0;
    }
}

/* Appends the canonical text of the lexer's current token, a constant,
 * to 'out'. */
static void
put_constant(const struct lexer *lex, struct ds *out)
{
    struct expr_const c;
    memset(&c, 0, sizeof c);
    if (lex->token.type == LEX_T_STRING) {
        c.string = lex->token.s;
    } else {
        c.value = lex->token.value;
        c.masked = lex->token.type == LEX_T_MASKED_INTEGER;
        c.mask = lex->token.mask;
        c.format = lex->token.format;
    }
    expr_const_format(&c, out);
}

char *
dhcp_opt_parse_value(struct lexer *lex, const struct dhcp_opt *opt,
                     struct ds *out)
{
    int kind = 0;               /* Of the first constant. */
    bool set = lex->token.type == LEX_T_LCURLY;
    size_t n = 0;
    if (set) {
        lex_next(lex);
        if (out) {
            ds_put_char(out, '{');
        }
    }
    for (;;) {
        if (lex->token.type == LEX_T_ERROR) {
            return lex_syntax_error(lex, NULL);
        }
        if (set && n && lex_accept(lex, LEX_T_RCURLY)) {
            if (out) {
                ds_put_char(out, '}');
            }
            break;
        }
        int k = token_kind(lex);
        if (!k) {
            return lex_syntax_error(lex, "a constant");
        }
        if (kind && k != kind) {
            return lex_error(lex, "a set mixes strings and numbers");
        }
        if (!(k & allowed_kinds(opt))) {
            return lex_error(lex, "option %s (%s) takes a %s", opt->name,
                             opt->type, k == VK_STRING
                                        ? "number or address"
                                        : "quoted string");
        }
        if (out) {
            if (n) {
                ds_put_cstr(out, ", ");
            }
            put_constant(lex, out);
        }
        kind = k;
        n++;
        lex_next(lex);
        if (!set) {
            break;
        }
        lex_accept(lex, LEX_T_COMMA);
    }
    return NULL;
}

char *
dhcp_opt_check_value(const struct dhcp_opt *opt, const char *value)
{
    struct lexer lex;
    lex_init(&lex, value);
    lex_next(&lex);
    char *error = dhcp_opt_parse_value(&lex, opt, NULL);
    if (!error && lex.token.type != LEX_T_END) {
        error = lex_syntax_error(&lex, "the end of the value");
    }
    lex_destroy(&lex);
    return error;
}
