/* Checks across router rows that each look valid on their own: two router
 * ports that claim the same address on one segment, and static routes
 * that add nothing (a duplicate, or a prefix a connected network always
 * wins over).  Stock 23.03 compiles them as written, and so does this
 * northd; these are reported (northd/not-compiled, "Not understood"), so
 * that an operator learns why a packet went where it did.  See
 * docs/routers.md, "Bad input". */
#include <config.h>

#include <string.h>

#include "coverage.h"
#include "lib/nb-rdb.h"
#include "northd/datapaths.h"
#include "northd/router.h"
#include "openvswitch/shash.h"
#include "util.h"

COVERAGE_DEFINE(lr_check_finding);

static void OVS_PRINTF_FORMAT(2, 3)
check_report(struct ls_model *m, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *msg = xvasprintf(format, args);
    va_end(args);
    COVERAGE_INC(lr_check_finding);
    ls_model_report_bad_row(m, msg);
    free(msg);
}

/* What 'p' is wired to, as a segment name, or NULL. */
static char *
segment_of(const struct ls_model *m, const struct lr_port *p)
{
    if (p->rpeer) {
        const char *a = p->nb->name, *b = p->rpeer->nb->name;
        return (strcmp(a, b) < 0 ? xasprintf("router ports %s and %s", a, b)
                : xasprintf("router ports %s and %s", b, a));
    } else if (p->peer) {
        const struct ls_port *sp = ls_model_find_port(m, p->peer);
        return sp ? xasprintf("switch %s", sp->dp->nb->name) : NULL;
    }
    return NULL;
}

static void
claim(struct ls_model *m, struct shash *claims, const char *segment,
      const char *addr, const struct lr_port *p)
{
    char *key = xasprintf("%s|%s", segment, addr);
    const struct lr_port *other = shash_find_data(claims, key);
    if (!other) {
        shash_add_nocopy(claims, key, p);
        return;
    }
    if (other != p) {
        /* Named on the port whose name sorts last, whatever the order the
         * routers came in. */
        const struct lr_port *a = other, *b = p;
        if (strcmp(a->nb->name, b->nb->name) > 0) {
            a = p;
            b = other;
        }
        check_report(m, "Logical_Router_Port %s ("UUID_FMT"): address %s "
                     "on %s is router port %s's too: both answer for it",
                     b->nb->name, UUID_ARGS(&b->nb->header_.uuid), addr,
                     segment, a->nb->name);
    }
    free(key);
}

/* Router ports wired to the same segment with the same IP address (the
 * link-local addresses, which follow from the MACs, aside). */
static void
check_addresses(struct ls_model *m)
{
    struct shash claims = SHASH_INITIALIZER(&claims);
    for (size_t i = 0; i < m->lr->n_routers; i++) {
        const struct lr_router *r = &m->lr->routers[i];
        for (size_t j = 0; j < r->n_ports; j++) {
            const struct lr_port *p = r->ports[j];
            char *segment = segment_of(m, p);
            if (!segment) {
                continue;
            }
            for (size_t k = 0; k < p->n_ip4; k++) {
                claim(m, &claims, segment, p->ip4[k].addr_s, p);
            }
            for (size_t k = 0; k + 1 < p->n_ip6; k++) {
                claim(m, &claims, segment, p->ip6[k].addr_s, p);
            }
            free(segment);
        }
    }
    shash_destroy(&claims);
}

/* Static routes that add nothing. */
static void
check_routes(struct ls_model *m, const struct lr_router *r)
{
    for (size_t i = 0; i < r->n_routes; i++) {
        const struct lr_route *rt = &r->routes[i];
        const struct nb_logical_router_static_route *nb = rt->nb;
        /* Routes are sorted by table, policy, prefix and next hop: a
         * duplicate follows its first. */
        if (i && !rt->discard) {
            const struct lr_route *prev = &r->routes[i - 1];
            if (prev->table == rt->table && prev->src == rt->src
                && !prev->discard
                && !strcmp(prev->prefix_s, rt->prefix_s)
                && !strcmp(prev->nexthop_s, rt->nexthop_s)
                && prev->out == rt->out) {
                check_report(m, "Logical_Router_Static_Route "UUID_FMT" "
                             "(%s via %s on router %s): the same as route "
                             UUID_FMT": an ECMP group with that next hop "
                             "twice", UUID_ARGS(&nb->header_.uuid),
                             rt->prefix_s, rt->nexthop_s, lr_router_name(r),
                             UUID_ARGS(&prev->nb->header_.uuid));
            }
        }
        if (rt->src) {
            continue;
        }
        /* A connected network wins over a static route of its prefix
         * (3 * plen + 2 against 3 * plen + 1), whatever the table. */
        for (size_t j = 0; j < r->n_ports; j++) {
            const struct lr_port *p = r->ports[j];
            bool shadowed = false;
            for (size_t k = 0; k < p->n_ip4 && !rt->v6 && !shadowed; k++) {
                shadowed = !strcmp(p->ip4[k].net_s, rt->prefix_s);
            }
            for (size_t k = 0; k < p->n_ip6 && rt->v6 && !shadowed; k++) {
                shadowed = !strcmp(p->ip6[k].net_s, rt->prefix_s);
            }
            if (shadowed) {
                check_report(m, "Logical_Router_Static_Route "UUID_FMT" "
                             "(%s on router %s): router port %s's network "
                             "is the same prefix, and a connected route "
                             "always wins: it is never used",
                             UUID_ARGS(&nb->header_.uuid), rt->prefix_s,
                             lr_router_name(r), p->nb->name);
                break;
            }
        }
    }
}

void
lr_check_model(struct ls_model *m)
{
    if (!m->lr || !m->lr->n_routers) {
        return;
    }
    check_addresses(m);
    for (size_t i = 0; i < m->lr->n_routers; i++) {
        check_routes(m, &m->lr->routers[i]);
    }
}
