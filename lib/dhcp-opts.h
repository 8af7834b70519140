/* DHCPv4 and DHCPv6 options as ovn-controller 23.03 knows them.
 *
 * northd writes these tables into the SB (DHCP_Options, DHCPv6_Options),
 * where ovn-controller reads the names it accepts in put_dhcp_opts() and
 * put_dhcpv6_opts() and how to encode each value.  The same tables let
 * northd check the options of an NB DHCP_Options row before it writes
 * them into an action: a value ovn-controller cannot parse would make it
 * reject the whole flow. */
#ifndef LIB_DHCP_OPTS_H
#define LIB_DHCP_OPTS_H 1

#include <stdbool.h>
#include <stddef.h>
#include "openvswitch/compiler.h"

struct dhcp_opt {
    const char *name;
    int code;
    const char *type;           /* An enum value of the SB 'type' column. */
};

/* The options of each version, in no particular order. */
const struct dhcp_opt *dhcp_opts_v4(size_t *n);
const struct dhcp_opt *dhcp_opts_v6(size_t *n);

/* The option named 'name', or NULL. */
const struct dhcp_opt *dhcp_opt_find(bool v6, const char *name);

/* The option of put_nd_ra_opts() named 'name', or NULL; and the checks
 * of its value that go beyond its kind (for a value that
 * dhcp_opt_parse_value() accepted and wrote): NULL if it passes, else an
 * error for the caller to free. */
const struct dhcp_opt *nd_ra_opt_find(const char *name);
char *nd_ra_opt_check(const struct dhcp_opt *, const char *value)
    OVS_WARN_UNUSED_RESULT;

/* Checks that 'value' is what ovn-controller 23.03 accepts as the value
 * of option 'opt' in put_dhcp(v6)_opts(): one constant, or a non-empty
 * set of them in braces, all strings or all numbers (addresses included)
 * as the option's type asks.  Returns NULL if it is, otherwise an error
 * for the caller to free. */
char *dhcp_opt_check_value(const struct dhcp_opt *, const char *value)
    OVS_WARN_UNUSED_RESULT;

/* The same, for a value that starts at the current token of 'lex':
 * leaves 'lex' after it and, if 'out' is nonnull, appends its canonical
 * text there. */
struct ds;
struct lexer;
char *dhcp_opt_parse_value(struct lexer *lex, const struct dhcp_opt *,
                           struct ds *out) OVS_WARN_UNUSED_RESULT;

#endif /* lib/dhcp-opts.h */
