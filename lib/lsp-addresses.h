/* Parsing of Logical_Switch_Port "addresses" and "port_security" entries.
 *
 * An entry is "MAC [IP[/PLEN]...]" or one of the keywords "unknown",
 * "dynamic" or "router".  Northd uses the parsed form for Port_Binding.mac,
 * L2 lookup, ARP/ND responders and port-group address sets; the CLI uses
 * the same parser to reject bad input. */
#ifndef LSP_ADDRESSES_H
#define LSP_ADDRESSES_H 1

#include <stdbool.h>
#include <netinet/in.h>
#include "openvswitch/types.h"
#include "packets.h"

struct lsp_ipv4 {
    ovs_be32 addr;
    unsigned int plen;          /* 32 when no prefix was given. */
};

struct lsp_ipv6 {
    struct in6_addr addr;
    unsigned int plen;          /* 128 when no prefix was given. */
};

/* One parsed "MAC IP..." entry.  Owns its arrays. */
struct lsp_addresses {
    struct eth_addr ea;
    struct lsp_ipv4 *ipv4;
    size_t n_ipv4;
    struct lsp_ipv6 *ipv6;
    size_t n_ipv6;
};

enum lsp_addr_kind {
    LSP_ADDR_MAC_IPS,           /* "MAC [IP...]": parsed into a struct. */
    LSP_ADDR_UNKNOWN,           /* "unknown" */
    LSP_ADDR_DYNAMIC,           /* "dynamic", "dynamic IPv4 [IPv6]",
                                 * "dynamic IPv6", "MAC dynamic": 'out'
                                 * holds only what follows a MAC
                                 * (northd/ipam.c parses requests). */
    LSP_ADDR_ROUTER,            /* "router" */
};

/* Parses 's'.  On success returns NULL, stores the entry's kind in '*kind'
 * and, for LSP_ADDR_MAC_IPS, fills 'out' (which the caller must release
 * with lsp_addresses_destroy()).  On error returns a malloc'd message that
 * the caller must free; 'out' is then left empty. */
char *lsp_addresses_parse(const char *s, enum lsp_addr_kind *kind,
                          struct lsp_addresses *out);

/* Like lsp_addresses_parse(), but as the stock ovn-northd reads a port's
 * entries: an address that does not parse ends the entry rather than
 * voiding it.  The MAC and the addresses before it are kept, success is
 * returned, and '*partial' is set to a malloc'd message about the address
 * (the caller frees it); otherwise '*partial' is NULL.  An entry without a
 * valid MAC is still an error.  Northd uses this; the CLI keeps refusing
 * such entries (lsp_addresses_parse()). */
char *lsp_addresses_parse_partial(const char *s, enum lsp_addr_kind *kind,
                                  struct lsp_addresses *out, char **partial);

void lsp_addresses_init(struct lsp_addresses *);
void lsp_addresses_destroy(struct lsp_addresses *);

/* Checks an address-set element: an IPv4 or IPv6 address or CIDR, or a MAC.
 * Returns NULL if valid, otherwise a malloc'd message. */
char *lsp_addresses_check_as_element(const char *s);

/* Writes 'ip' in dotted-quad form and a null into 'buf' (at least 16
 * bytes), as inet_ntop() would, without stdio: northd formats every port's
 * addresses on every full recompute.  Returns the length. */
size_t lsp_ip4_format(ovs_be32 ip, char *buf);

#endif /* lib/lsp-addresses.h */
