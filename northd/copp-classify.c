/* Control plane protection: which Copp protocol a flow's actions belong
 * to; see copp.h.  Kept apart from the rest of copp.c, which needs the
 * model, so that unit tests can link it alone. */
#include <config.h>
#include "northd/copp.h"

#include <ctype.h>
#include <string.h>

#include "util.h"

static const char *const proto_names[COPP_N_PROTOS] = {
    [COPP_ARP] = "arp",
    [COPP_ARP_RESOLVE] = "arp-resolve",
    [COPP_DHCPV4_OPTS] = "dhcpv4-opts",
    [COPP_DHCPV6_OPTS] = "dhcpv6-opts",
    [COPP_DNS] = "dns",
    [COPP_EVENT_ELB] = "event-elb",
    [COPP_ICMP4_ERR] = "icmp4-error",
    [COPP_ICMP6_ERR] = "icmp6-error",
    [COPP_IGMP] = "igmp",
    [COPP_ND_NA] = "nd-na",
    [COPP_ND_NS] = "nd-ns",
    [COPP_ND_NS_RESOLVE] = "nd-ns-resolve",
    [COPP_ND_RA_OPTS] = "nd-ra-opts",
    [COPP_TCP_RESET] = "tcp-reset",
    [COPP_BFD] = "bfd",
    [COPP_REJECT] = "reject",
    [COPP_SVC_MONITOR] = "svc-monitor",
};

const char *
copp_proto_name(enum copp_proto p)
{
    return p < COPP_N_PROTOS ? proto_names[p] : "none";
}

/* The one table: each controller action that stock ovn-northd 23.03
 * meters, by the keyword that starts it in a flow's actions and the
 * character that follows the keyword ('{' for a nested action, '(' for a
 * function, ';' for "igmp;"), and the Copp protocol whose meter it gets.
 * It holds wherever the action appears: observed on stock's SB for every
 * stage that uses these actions (docs/copp.md), no stage needs a rule of
 * its own.  The one action that tells two protocols apart by more than its
 * keyword is put_nd(): see copp_classify(). */
struct copp_action {
    const char *keyword;
    char follow;
    enum copp_proto proto;
};

static const struct copp_action copp_actions[] = {
    { "put_arp", '(', COPP_ARP },
    { "arp", '{', COPP_ARP_RESOLVE },
    { "put_dhcp_opts", '(', COPP_DHCPV4_OPTS },
    { "put_dhcpv6_opts", '(', COPP_DHCPV6_OPTS },
    { "dns_lookup", '(', COPP_DNS },
    { "trigger_event", '(', COPP_EVENT_ELB },
    { "icmp4", '{', COPP_ICMP4_ERR },
    { "icmp4_error", '{', COPP_ICMP4_ERR },
    { "icmp6", '{', COPP_ICMP6_ERR },
    { "icmp6_error", '{', COPP_ICMP6_ERR },
    { "igmp", ';', COPP_IGMP },
    { "nd_na", '{', COPP_ND_NA },
    { "nd_na_router", '{', COPP_ND_NA },
    { "put_nd", '(', COPP_ND_NA },     /* COPP_ND_NS: see below. */
    { "nd_ns", '{', COPP_ND_NS_RESOLVE },
    { "put_nd_ra_opts", '(', COPP_ND_RA_OPTS },
    { "tcp_reset", '{', COPP_TCP_RESET },
    { "sctp_abort", '{', COPP_TCP_RESET },
    { "handle_bfd_msg", '(', COPP_BFD },
    { "reject", '{', COPP_REJECT },
    { "handle_svc_check", '(', COPP_SVC_MONITOR },
};

static bool
is_id_start(unsigned char c)
{
    return isalpha(c) || c == '_';
}

static bool
is_id_char(unsigned char c)
{
    return isalnum(c) || c == '_' || c == '.';
}

static const char *
skip_space(const char *p)
{
    while (isspace((unsigned char) *p)) {
        p++;
    }
    return p;
}

/* The protocol of the keyword 'id' ('len' bytes) followed by 'next', or
 * COPP_N_PROTOS. */
static enum copp_proto
lookup_action(const char *id, size_t len, const char *next)
{
    for (size_t i = 0; i < ARRAY_SIZE(copp_actions); i++) {
        const struct copp_action *a = &copp_actions[i];
        if (a->follow == *next && !strncmp(a->keyword, id, len)
            && !a->keyword[len]) {
            if (a->proto == COPP_ND_NA) {
                /* put_nd(inport, ip6.src, nd.sll) learns from a
                 * solicitation, put_nd(inport, nd.target, ...) from an
                 * advertisement: stock meters them as "nd-ns" and
                 * "nd-na". */
                const char *arg = strchr(next, ',');
                if (*next == '(' && arg
                    && !strncmp(skip_space(arg + 1), "ip6.src", 7)) {
                    return COPP_ND_NS;
                }
            }
            return a->proto;
        }
    }
    return COPP_N_PROTOS;
}

enum copp_proto
copp_classify(const char *actions)
{
    /* The first action of the table, by its keyword: a token, not part of
     * a field name ("arp.op", "icmp4.type") nor of a quoted string (a log
     * name). */
    const char *p = actions;
    while (*p) {
        unsigned char c = *p;
        if (c == '"') {
            for (p++; *p && *p != '"'; p++) {
                if (*p == '\\' && p[1]) {
                    p++;
                }
            }
            if (*p) {
                p++;
            }
        } else if (is_id_start(c)) {
            const char *id = p;
            while (is_id_char(*p)) {
                p++;
            }
            enum copp_proto proto = lookup_action(id, p - id,
                                                  skip_space(p));
            if (proto != COPP_N_PROTOS) {
                return proto;
            }
        } else {
            p++;
        }
    }
    return COPP_N_PROTOS;
}
