/* Parsing of Logical_Switch_Port address entries; see lsp-addresses.h. */
#include <config.h>
#include "lib/lsp-addresses.h"

#include <arpa/inet.h>
#include <string.h>
#include "openvswitch/dynamic-string.h"
#include "util.h"

void
lsp_addresses_init(struct lsp_addresses *la)
{
    memset(la, 0, sizeof *la);
}

void
lsp_addresses_destroy(struct lsp_addresses *la)
{
    if (la) {
        free(la->ipv4);
        free(la->ipv6);
        lsp_addresses_init(la);
    }
}

/* ip_parse_cidr() scans each octet with "%hhu", which wraps ("10.0.0.300"
 * reads as 10.0.0.44), so the address part is also checked with
 * inet_pton(). */
static bool
ipv4_text_is_strict(const char *tok)
{
    struct in_addr in;
    char *addr = xstrdup(tok);
    char *slash = strchr(addr, '/');
    if (slash) {
        *slash = '\0';
    }
    bool ok = inet_pton(AF_INET, addr, &in) == 1;
    free(addr);
    return ok;
}

/* Parses one IP token ("10.0.0.1", "10.0.0.1/24", "fd00::1/64") into 'la'.
 * Returns NULL or a malloc'd error. */
static char *
parse_ip_token(const char *tok, struct lsp_addresses *la)
{
    if (strchr(tok, ':')) {
        struct in6_addr ip6;
        unsigned int plen;
        char *error = ipv6_parse_cidr(tok, &ip6, &plen);
        if (error) {
            free(error);
            return xasprintf("\"%s\" is not a valid IPv6 address", tok);
        }
        la->ipv6 = xrealloc(la->ipv6, (la->n_ipv6 + 1) * sizeof *la->ipv6);
        la->ipv6[la->n_ipv6++] = (struct lsp_ipv6) { ip6, plen };
    } else {
        ovs_be32 ip4;
        unsigned int plen;
        char *error = ip_parse_cidr(tok, &ip4, &plen);
        if (error || !ipv4_text_is_strict(tok)) {
            free(error);
            return xasprintf("\"%s\" is not a valid IPv4 address", tok);
        }
        la->ipv4 = xrealloc(la->ipv4, (la->n_ipv4 + 1) * sizeof *la->ipv4);
        la->ipv4[la->n_ipv4++] = (struct lsp_ipv4) { ip4, plen };
    }
    return NULL;
}

static bool
parse_mac(const char *tok, struct eth_addr *ea)
{
    int n = 0;
    return (ovs_scan_len(tok, &n, ETH_ADDR_SCAN_FMT, ETH_ADDR_SCAN_ARGS(*ea))
            && tok[n] == '\0');
}

char *
lsp_addresses_parse(const char *s, enum lsp_addr_kind *kind,
                    struct lsp_addresses *out)
{
    lsp_addresses_init(out);
    *kind = LSP_ADDR_MAC_IPS;

    if (!strcmp(s, "unknown")) {
        *kind = LSP_ADDR_UNKNOWN;
        return NULL;
    } else if (!strcmp(s, "router")) {
        *kind = LSP_ADDR_ROUTER;
        return NULL;
    } else if (!strcmp(s, "dynamic")) {
        *kind = LSP_ADDR_DYNAMIC;
        return NULL;
    }

    char *copy = xstrdup(s);
    char *save = NULL;
    char *error = NULL;
    char *tok = strtok_r(copy, " \t", &save);
    if (!tok) {
        error = xstrdup("empty address");
        goto out;
    }
    if (!parse_mac(tok, &out->ea)) {
        error = xasprintf("\"%s\" is not a valid MAC address", tok);
        goto out;
    }
    while ((tok = strtok_r(NULL, " \t", &save))) {
        if (!strcmp(tok, "dynamic")) {
            /* "MAC dynamic": the IP is allocated by the router side. */
            *kind = LSP_ADDR_DYNAMIC;
            continue;
        }
        error = parse_ip_token(tok, out);
        if (error) {
            goto out;
        }
    }

out:
    free(copy);
    if (error) {
        lsp_addresses_destroy(out);
        *kind = LSP_ADDR_MAC_IPS;
    }
    return error;
}

char *
lsp_addresses_check_as_element(const char *s)
{
    struct eth_addr ea;
    if (parse_mac(s, &ea)) {
        return NULL;
    }

    struct lsp_addresses la;
    lsp_addresses_init(&la);
    char *error = parse_ip_token(s, &la);
    lsp_addresses_destroy(&la);
    if (error) {
        free(error);
        return xasprintf("\"%s\" is not an IP address, CIDR or MAC", s);
    }
    return NULL;
}
