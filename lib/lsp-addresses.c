/* Parsing of Logical_Switch_Port address entries; see lsp-addresses.h. */
#include <config.h>
#include "lib/lsp-addresses.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
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

/* Parses the address part of 'tok' (before any "/") into '*ip' if it is
 * four decimal numbers 0..255, as inet_pton() requires.  ip_parse_cidr()
 * scans each number into a uint8_t and so takes "300.1.1.1" for 44.1.1.1. */
static bool
parse_dotted_quad(const char *tok, ovs_be32 *ip)
{
    char addr[INET_ADDRSTRLEN];
    size_t len = strcspn(tok, "/");
    struct in_addr in;

    if (len >= sizeof addr) {
        return false;
    }
    memcpy(addr, tok, len);
    addr[len] = '\0';
    if (inet_pton(AF_INET, addr, &in) != 1) {
        return false;
    }
    *ip = in.s_addr;
    return true;
}

/* Parses the prefix length of the common forms "A.B.C.D" and "A.B.C.D/N"
 * without scanf (northd parses every port's addresses on every full
 * recompute).  Returns false for anything else (e.g. a dotted mask), which
 * ip_parse_cidr() then judges. */
static bool
parse_plen_fast(const char *tok, unsigned int *plen)
{
    const char *slash = strchr(tok, '/');
    if (!slash) {
        *plen = 32;
        return true;
    }
    const char *p = slash + 1;
    if (!isdigit((unsigned char) p[0])
        || (p[1] && (!isdigit((unsigned char) p[1]) || p[2]))) {
        return false;
    }
    *plen = atoi(p);
    return *plen <= 32;
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
        char *error = (!parse_dotted_quad(tok, &ip4)
                       ? xstrdup("not a dotted quad")
                       : parse_plen_fast(tok, &plen) ? NULL
                       : ip_parse_cidr(tok, &ip4, &plen));
        if (error) {
            free(error);
            return xasprintf("\"%s\" is not a valid IPv4 address", tok);
        }
        la->ipv4 = xrealloc(la->ipv4, (la->n_ipv4 + 1) * sizeof *la->ipv4);
        la->ipv4[la->n_ipv4++] = (struct lsp_ipv4) { ip4, plen };
    }
    return NULL;
}

/* Parses "xx:xx:xx:xx:xx:xx", each field one or two hex digits.  Not
 * ETH_ADDR_SCAN_FMT: it scans each field into a uint8_t, so it takes
 * "00:00:00:00:00:100" for a MAC ending in 00. */
static bool
parse_mac(const char *tok, struct eth_addr *ea)
{
    const char *p = tok;
    for (int i = 0; i < ETH_ADDR_LEN; i++) {
        if (i && *p++ != ':') {
            return false;
        }
        int n = 0;
        unsigned int byte = 0;
        while (n < 3 && isxdigit((unsigned char) p[n])) {
            byte = byte * 16 + hexit_value(p[n]);
            n++;
        }
        if (n < 1 || n > 2) {
            return false;
        }
        ea->ea[i] = byte;
        p += n;
    }
    return *p == '\0';
}

/* Checks the rest of a "dynamic IP..." entry: at most one IPv4 address,
 * then at most one IPv6 address, without prefix lengths. */
static char *
parse_dynamic_request(const char *rest, enum lsp_addr_kind *kind)
{
    struct lsp_addresses la;
    lsp_addresses_init(&la);
    char *copy = xstrdup(rest);
    char *save = NULL;
    char *error = NULL;
    int n = 0;
    for (char *tok = strtok_r(copy, " \t", &save); tok && !error;
         tok = strtok_r(NULL, " \t", &save)) {
        size_t n4 = la.n_ipv4;
        error = parse_ip_token(tok, &la);
        if (!error && (++n > 2 || strchr(tok, '/')
                       || (la.n_ipv4 > n4 && la.n_ipv6)
                       || la.n_ipv4 > 1 || la.n_ipv6 > 1)) {
            error = xasprintf("\"dynamic\" may be followed only by one "
                              "IPv4 address, then one IPv6 address");
        }
    }
    lsp_addresses_destroy(&la);
    free(copy);
    if (!error) {
        *kind = LSP_ADDR_DYNAMIC;
    }
    return error;
}

static char *
parse_entry(const char *s, enum lsp_addr_kind *kind,
            struct lsp_addresses *out, char **partial)
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
    } else if (!strncmp(s, "dynamic", 7) && (s[7] == ' ' || s[7] == '\t')) {
        /* "dynamic IPv4", "dynamic IPv6" or "dynamic IPv4 IPv6": addresses
         * requested from IPAM (northd/ipam.h).  'out' stays empty. */
        return parse_dynamic_request(s + 7, kind);
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
            if (partial) {
                /* Keep the MAC and the addresses before the bad one. */
                *partial = error;
                error = NULL;
                break;
            }
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
lsp_addresses_parse(const char *s, enum lsp_addr_kind *kind,
                    struct lsp_addresses *out)
{
    return parse_entry(s, kind, out, NULL);
}

char *
lsp_addresses_parse_partial(const char *s, enum lsp_addr_kind *kind,
                            struct lsp_addresses *out, char **partial)
{
    *partial = NULL;
    return parse_entry(s, kind, out, partial);
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

size_t
lsp_ip4_format(ovs_be32 ip, char *buf)
{
    uint32_t h = ntohl(ip);
    char *p = buf;
    for (int shift = 24; shift >= 0; shift -= 8) {
        unsigned int b = (h >> shift) & 0xff;
        if (b >= 100) {
            *p++ = '0' + b / 100;
            *p++ = '0' + b / 10 % 10;
        } else if (b >= 10) {
            *p++ = '0' + b / 10;
        }
        *p++ = '0' + b % 10;
        *p++ = shift ? '.' : '\0';
    }
    return p - buf - 1;
}
