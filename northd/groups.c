/* Port group and address set state and their SB rows; see groups.h. */
#include <config.h>
#include "northd/groups.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "bitmap.h"
#include "coverage.h"
#include "hash.h"
#include "hmapx.h"
#include "lib/counting-sort.h"
#include "lib/decimal.h"
#include "lib/nb-rdb.h"
#include "lib/rdb.h"
#include "lib/sb-rdb.h"
#include "lib/strpool.h"
#include "northd/datapaths.h"
#include "northd/dpset.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "util.h"
#include "uuid.h"
#include "uuidset.h"

VLOG_DEFINE_THIS_MODULE(groups);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

COVERAGE_DEFINE(sb_group_deleted);
COVERAGE_DEFINE(sb_group_inserted);
COVERAGE_DEFINE(sb_group_mutated);
COVERAGE_DEFINE(sb_group_rewritten);

/* True if IP address 'k' of family 'f' (0: IPv4, 1: IPv6) of entry 'j' of
 * the addresses of port 'p' appears there earlier: a member counts each of
 * its addresses once. */
static bool
port_ip_is_repeat(const struct ls_port *p, int f, size_t j, size_t k)
{
    const struct lsp_addresses *la = &p->addrs[j];
    for (size_t j2 = 0; j2 <= j; j2++) {
        const struct lsp_addresses *la2 = &p->addrs[j2];
        size_t n2 = j2 < j ? (f ? la2->n_ipv6 : la2->n_ipv4) : k;
        for (size_t k2 = 0; k2 < n2; k2++) {
            if (f ? ipv6_addr_equals(&la2->ipv6[k2].addr, &la->ipv6[k].addr)
                  : la2->ipv4[k2].addr == la->ipv4[k].addr) {
                return true;
            }
        }
    }
    return false;
}

/* Writes IP address 'k' of family 'f' of entry 'j' of the addresses of 'p'
 * into 'buf', as an SB address set holds it. */
static void
port_ip_format(const struct ls_port *p, int f, size_t j, size_t k,
               char buf[INET6_ADDRSTRLEN])
{
    const struct lsp_addresses *la = &p->addrs[j];
    if (f) {
        inet_ntop(AF_INET6, &la->ipv6[k].addr, buf, INET6_ADDRSTRLEN);
    } else {
        lsp_ip4_format(la->ipv4[k].addr, buf);
    }
}

/* True for the characters of a set's name after "$" or "@" (C locale). */
static inline bool
is_ref_char(unsigned char c)
{
    return ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (c >= '0' && c <= '9')
           || c == '_' || c == '.';
}

void
groups_scan_refs(const char *match, struct sset *addr_sets, struct sset *pgs)
{
    /* strcspn() skips to the next byte that matters many bytes at a time:
     * every ACL's match is scanned on every evaluation. */
    bool in_string = false;
    for (const char *p = match; *p; p++) {
        p += strcspn(p, in_string ? "\\\"" : "\"@$");
        if (!*p) {
            break;
        } else if (in_string) {
            if (*p == '\\' && p[1]) {
                p++;
            } else if (*p == '"') {
                in_string = false;
            }
        } else if (*p == '"') {
            in_string = true;
        } else if (*p == '@' || *p == '$') {
            struct sset *names = *p == '@' ? pgs : addr_sets;
            size_t n = 0;
            while (is_ref_char(p[1 + n])) {
                n++;
            }
            if (n && names) {
                char buf[128];
                if (n < sizeof buf) {
                    memcpy(buf, p + 1, n);
                    buf[n] = '\0';
                    sset_add(names, buf);
                } else {
                    sset_add_and_free(names, xmemdup0(p + 1, n));
                }
            }
            p += n;
        }
    }
}

/* The SB name of port group 'pg' on the switch with tunnel key 'key',
 * "KEY_PG", as ovn-controller expects.  Made for every group on every
 * switch it spans, so without printf, which would be most of the cost. */
static char *
sb_pg_name(uint32_t key, const char *pg)
{
    size_t len = strlen(pg);
    struct ds name = DS_EMPTY_INITIALIZER;
    ds_reserve(&name, 10 + 1 + len);
    decimal_put(&name, key);
    ds_put_char(&name, '_');
    ds_put_buffer(&name, pg, len);
    return ds_steal_cstr(&name);
}

/* What joined and left a set since its SB row was last written, so that
 * a big set is updated without being compared (the replica has no copy of
 * the row to compare with).  'whole': the set was replaced, not changed
 * member by member: write all of it. */
struct set_delta {
    struct hmap_node node;          /* In groups 'deltas', by row_hash(). */
    const void *owner;              /* The row's struct as_state, or its
                                     * port group's struct pg_name... */
    uint32_t dp;                    /* ...and datapath (0 for a set). */
    struct sset add;
    struct sset del;
    bool whole;
};

/* The hash of an SB row's key in 'deltas' and 'foreign': its struct
 * as_state, or its port group's struct pg_name and its datapath. */
static uint32_t
row_hash(const void *owner, uint32_t dp)
{
    return hash_pointer(owner, dp);
}

static struct set_delta *
delta_find(const struct groups *g, const void *owner, uint32_t dp)
{
    struct set_delta *d;
    HMAP_FOR_EACH_WITH_HASH (d, node, row_hash(owner, dp), &g->deltas) {
        if (d->owner == owner && d->dp == dp) {
            return d;
        }
    }
    return NULL;
}

static struct set_delta *
delta_get(struct groups *g, const void *owner, uint32_t dp)
{
    struct set_delta *d = delta_find(g, owner, dp);
    if (!d) {
        d = xmalloc(sizeof *d);
        d->owner = owner;
        d->dp = dp;
        sset_init(&d->add);
        sset_init(&d->del);
        d->whole = false;
        hmap_insert(&g->deltas, &d->node, row_hash(owner, dp));
    }
    return d;
}

/* 's' joined ('add') or left the row of ('owner', 'dp'). */
static void
delta_record(struct groups *g, const void *owner, uint32_t dp,
             const char *s, bool add)
{
    if (g->building) {
        return;
    }
    struct set_delta *d = delta_get(g, owner, dp);
    if (d->whole) {
        return;
    }
    struct sset *to = add ? &d->add : &d->del;
    struct sset *from = add ? &d->del : &d->add;
    if (!sset_find_and_delete(from, s)) {
        sset_add(to, s);
    }
}

/* The set of ('owner', 'dp') was replaced or went away: write it whole. */
static void
delta_set_whole(struct groups *g, const void *owner, uint32_t dp)
{
    if (!g->building) {
        struct set_delta *d = delta_get(g, owner, dp);
        d->whole = true;
        sset_clear(&d->add);
        sset_clear(&d->del);
    }
}

static void
deltas_clear(struct groups *g)
{
    struct set_delta *d;
    HMAP_FOR_EACH_POP (d, node, &g->deltas) {
        sset_destroy(&d->add);
        sset_destroy(&d->del);
        free(d);
    }
}

/* The UUID of an SB row that is not the one northd derives for it: one
 * some other writer inserted (a stock ovn-northd before this one), or one
 * northd chose because another row already had the derived one.  Keyed
 * like a delta, so only such rows cost anything. */
struct foreign_row {
    struct hmap_node node;          /* In groups 'foreign', by row_hash(). */
    const void *owner;
    uint32_t dp;
    struct uuid uuid;
};

static struct foreign_row *
foreign_row_find(const struct groups *g, const void *owner, uint32_t dp)
{
    struct foreign_row *fr;
    HMAP_FOR_EACH_WITH_HASH (fr, node, row_hash(owner, dp), &g->foreign) {
        if (fr->owner == owner && fr->dp == dp) {
            return fr;
        }
    }
    return NULL;
}

static void
remember_foreign_uuid(struct groups *g, const void *owner, uint32_t dp,
                      const struct uuid *uuid)
{
    struct foreign_row *fr = foreign_row_find(g, owner, dp);
    if (!fr) {
        fr = xmalloc(sizeof *fr);
        fr->owner = owner;
        fr->dp = dp;
        hmap_insert(&g->foreign, &fr->node, row_hash(owner, dp));
    }
    fr->uuid = *uuid;
}

static void
forget_foreign_uuid(struct groups *g, const void *owner, uint32_t dp)
{
    struct foreign_row *fr = foreign_row_find(g, owner, dp);
    if (fr) {
        hmap_remove(&g->foreign, &fr->node);
        free(fr);
    }
}

/* A port group on one switch: how many members of the group that owns
 * the name are there, how many ACL flows there name it, and whether its
 * SB Port_Group "<key>_<name>" exists.  The row should exist while
 * either count is nonzero (and a group has the name); the entry lives
 * while it counts anything, while the row exists and while it waits to
 * be written.  There are as many as memberships at a million ACLs
 * (686,000), hence one entry for all three, 12 bytes in its name's
 * array. */
struct pg_dp {
    uint32_t dp;                    /* Datapath index. */
    uint32_t n_ports;               /* Applied members of the owner. */
    uint32_t n_refs : 29;           /* ACL references, groups_pg_ref(). */
    bool has_row : 1;               /* The SB has its row, under the UUID
                                     * pg_dp_uuid() says. */
    bool foreign_uuid : 1;          /* That UUID is not the derived one: it
                                     * is kept in 'foreign'. */
    bool dirty : 1;                 /* In 'dirty_pg_dps'. */
};
BUILD_ASSERT_DECL(sizeof(struct pg_dp) == 12);

/* A port group name: the group that owns it (the first by UUID, if the
 * NB has several), and the switches where its SB port group exists or
 * should.  It lives while it has either. */
struct pg_name {
    struct hmap_node node;          /* In groups 'pg_names', by
                                     * hash_string(). */
    const char *name;               /* A strpool reference. */
    struct pg_state *owner;         /* NULL if no group has the name. */
    struct pg_dp *dps;              /* Sorted by 'dp', exactly 'n_dps'. */
    uint32_t n_dps;
};

/* The name 'name' (whose hash_string() is 'hash'), or NULL. */
static struct pg_name *
pg_name_find(const struct groups *g, const char *name, uint32_t hash)
{
    struct pg_name *pn;
    HMAP_FOR_EACH_WITH_HASH (pn, node, hash, &g->pg_names) {
        if (pn->name == name || !strcmp(pn->name, name)) {
            return pn;
        }
    }
    return NULL;
}

/* The same, created if needed; 'name' is a strpool string. */
static struct pg_name *
pg_name_get(struct groups *g, const char *name, uint32_t hash)
{
    struct pg_name *pn = pg_name_find(g, name, hash);
    if (!pn) {
        pn = xzalloc(sizeof *pn);
        pn->name = strpool_ref(name);
        hmap_insert(&g->pg_names, &pn->node, hash);
    }
    return pn;
}

/* The group that owns 'name', or NULL. */
static struct pg_state *
pg_name_owner(const struct groups *g, const char *name)
{
    const struct pg_name *pn = pg_name_find(g, name, hash_string(name, 0));
    return pn ? pn->owner : NULL;
}

static void
pg_name_free(struct pg_name *pn)
{
    free(pn->dps);
    strpool_put(pn->name);
    free(pn);
}

/* Frees 'pn' if it no longer says anything. */
static void
pg_name_trim(struct groups *g, struct pg_name *pn)
{
    if (!pn->owner && !pn->n_dps) {
        hmap_remove(&g->pg_names, &pn->node);
        pg_name_free(pn);
    }
}

/* The position of datapath 'dp' in 'pn''s entries, or where it would go;
 * sets '*found'. */
static size_t
pg_dp_search(const struct pg_name *pn, size_t dp, bool *found)
{
    size_t lo = 0, hi = pn->n_dps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pn->dps[mid].dp == dp) {
            *found = true;
            return mid;
        } else if (pn->dps[mid].dp < dp) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    *found = false;
    return lo;
}

/* The entry of 'pn' for datapath 'dp', or NULL.  Valid until an entry of
 * 'pn' is added or removed. */
static struct pg_dp *
pg_dp_find(const struct pg_name *pn, size_t dp)
{
    bool found;
    size_t i = pg_dp_search(pn, dp, &found);
    return found ? &pn->dps[i] : NULL;
}

/* The same, created if needed. */
static struct pg_dp *
pg_dp_get(struct pg_name *pn, size_t dp)
{
    bool found;
    size_t i = pg_dp_search(pn, dp, &found);
    if (!found) {
        pn->dps = xrealloc(pn->dps, (pn->n_dps + 1) * sizeof *pn->dps);
        memmove(&pn->dps[i + 1], &pn->dps[i],
                (pn->n_dps - i) * sizeof *pn->dps);
        pn->n_dps++;
        pn->dps[i] = (struct pg_dp) { .dp = dp };
    }
    return &pn->dps[i];
}

/* Removes 'r', an entry of 'pn', if it no longer says anything, and 'pn'
 * with it if nothing else is left. */
static void
pg_dp_trim(struct groups *g, struct pg_name *pn, struct pg_dp *r)
{
    if (r->n_ports || r->n_refs || r->has_row || r->dirty) {
        return;
    }
    if (r->foreign_uuid) {
        forget_foreign_uuid(g, pn, r->dp);
    }
    size_t i = r - pn->dps;
    memmove(r, r + 1, (pn->n_dps - i - 1) * sizeof *r);
    if (!--pn->n_dps) {
        free(pn->dps);
        pn->dps = NULL;
        pg_name_trim(g, pn);
    } else {
        pn->dps = xrealloc(pn->dps, pn->n_dps * sizeof *pn->dps);
    }
}

/* Entry 'r' of 'pn' is to be synced by groups_sync_sb_dirty(). */
static void
mark_pg_dp_dirty(struct groups *g, struct pg_name *pn, struct pg_dp *r)
{
    if (!g->building && !r->dirty) {
        r->dirty = true;
        if (g->n_dirty_pg_dps >= g->allocated_dirty_pg_dps) {
            g->dirty_pg_dps = x2nrealloc(g->dirty_pg_dps,
                                         &g->allocated_dirty_pg_dps,
                                         sizeof *g->dirty_pg_dps);
        }
        g->dirty_pg_dps[g->n_dirty_pg_dps++] = (struct pg_dp_ref) {
            .pn = pn, .dp = r->dp
        };
    }
}

/* Port 'port' joined ('add') or left the group that owns 'pn' on the
 * datapath of its entry 'r'. */
static void
pg_member_changed(struct groups *g, struct pg_name *pn, struct pg_dp *r,
                  const char *port, bool add)
{
    delta_record(g, pn, r->dp, port, add);
    mark_pg_dp_dirty(g, pn, r);
}

/* An address set: what its SB Address_Set should hold, and whether it
 * exists.  The NB's sets and those derived from port groups
 * ("<pg>_ip4/6") have one, and so does a set that went away, until its
 * row is deleted. */
struct as_state {
    struct hmap_node node;          /* In groups 'sets', by name. */
    const char *name;               /* A strpool reference. */
    const struct nb_address_set *nb;    /* An NB set: its row... */
    const struct pg_state *pg;      /* ...or a derived one: the group whose
                                     * members' addresses it holds. */
    uint32_t n_addrs;               /* A derived one's distinct addresses,
                                     * with 'n_known'. */
    bool family : 1;                /* A derived one's: 0: IPv4, 1: IPv6. */
    bool n_known : 1;               /* 'n_addrs' is up to date: it is
                                     * counted only once something asks. */
    bool has_row : 1;               /* The SB has its row, under the UUID
                                     * as_uuid() says. */
    bool foreign_uuid : 1;          /* That UUID is not the derived one: it
                                     * is kept in 'foreign'. */
    bool dirty : 1;                 /* In 'dirty_sets'. */
};

/* The set named 'name' (whose hash_string() is 'hash'), or NULL. */
static struct as_state *
as_find(const struct groups *g, const char *name, uint32_t hash)
{
    struct as_state *as;
    HMAP_FOR_EACH_WITH_HASH (as, node, hash, &g->sets) {
        if (as->name == name || !strcmp(as->name, name)) {
            return as;
        }
    }
    return NULL;
}

/* The same, created if needed. */
static struct as_state *
as_get(struct groups *g, const char *name)
{
    uint32_t hash = hash_string(name, 0);
    struct as_state *as = as_find(g, name, hash);
    if (!as) {
        as = xzalloc(sizeof *as);
        as->name = strpool_get(name);
        hmap_insert(&g->sets, &as->node, hash);
    }
    return as;
}

/* True if 'as' is a set northd should write (rather than a row to
 * delete). */
static bool
as_exists(const struct as_state *as)
{
    return as && (as->nb || as->pg);
}

/* Frees 'as' if it no longer says anything. */
static void
as_trim(struct groups *g, struct as_state *as)
{
    if (!as->nb && !as->pg && !as->has_row && !as->dirty) {
        if (as->foreign_uuid) {
            forget_foreign_uuid(g, as, 0);
        }
        hmap_remove(&g->sets, &as->node);
        strpool_put(as->name);
        free(as);
    }
}

static void
as_free(struct as_state *as)
{
    strpool_put(as->name);
    free(as);
}

/* 'as' is to be synced by groups_sync_sb_dirty(), and its name goes into
 * 'sets_changed' (if nonnull) for the ACLs that use it. */
static void
mark_set_changed(struct groups *g, struct as_state *as,
                 struct sset *sets_changed)
{
    if (!g->building && !as->dirty) {
        as->dirty = true;
        if (g->n_dirty_sets >= g->allocated_dirty_sets) {
            g->dirty_sets = x2nrealloc(g->dirty_sets,
                                       &g->allocated_dirty_sets,
                                       sizeof *g->dirty_sets);
        }
        g->dirty_sets[g->n_dirty_sets++] = as;
    }
    if (sets_changed) {
        sset_add(sets_changed, as->name);
    }
}

static char *
derived_name(const char *pg, int family)
{
    return xasprintf("%s_ip%d", pg, family ? 6 : 4);
}

/* The name record of 'pg' if 'pg' owns its name (another group may have
 * taken it), otherwise NULL. */
static struct pg_name *
pg_owned_name(const struct groups *g, const struct pg_state *pg)
{
    struct pg_name *pn = pg_name_find(g, pg->name, pg->name_hash);
    return pn && pn->owner == pg ? pn : NULL;
}

/* One IP address of a port of the model.  The derived sets hold their
 * group's members' addresses; which ports have an address says whether
 * another member has one that a member brings or takes away, so that
 * nothing is kept per set and address. */
struct port_ip {
    struct hmap_node node;          /* In groups 'port_ips[f]', by
                                     * port_ip_hash(). */
    const struct ls_port *port;
    const void *addr;               /* In 'port''s "addresses": an ovs_be32
                                     * (IPv4) or a struct in6_addr. */
};

static uint32_t
port_ip_hash(int f, const void *addr)
{
    return (f ? hash_bytes(addr, sizeof(struct in6_addr), 0)
            : hash_int((OVS_FORCE uint32_t) *(const ovs_be32 *) addr, 0));
}

static bool
port_ip_equals(int f, const void *a, const void *b)
{
    return (f ? ipv6_addr_equals(a, b)
            : *(const ovs_be32 *) a == *(const ovs_be32 *) b);
}

/* Address 'k' of family 'f' of entry 'j' of the addresses of 'p'. */
static const void *
port_ip_addr(const struct ls_port *p, int f, size_t j, size_t k)
{
    const struct lsp_addresses *la = &p->addrs[j];
    return f ? (const void *) &la->ipv6[k].addr
             : (const void *) &la->ipv4[k].addr;
}

/* Adds ('add') the addresses of 'p' to the index, or takes them out. */
static void
port_ips_update(struct groups *g, const struct ls_port *p, bool add)
{
    for (int f = 0; f < 2; f++) {
        for (size_t j = 0; j < p->n_addrs; j++) {
            size_t n = f ? p->addrs[j].n_ipv6 : p->addrs[j].n_ipv4;
            for (size_t k = 0; k < n; k++) {
                const void *addr = port_ip_addr(p, f, j, k);
                uint32_t hash = port_ip_hash(f, addr);
                if (add) {
                    struct port_ip *pi = xmalloc(sizeof *pi);
                    pi->port = p;
                    pi->addr = addr;
                    hmap_insert(&g->port_ips[f], &pi->node, hash);
                    continue;
                }
                struct port_ip *pi;
                HMAP_FOR_EACH_WITH_HASH (pi, node, hash, &g->port_ips[f]) {
                    if (pi->addr == addr) {
                        hmap_remove(&g->port_ips[f], &pi->node);
                        free(pi);
                        break;
                    }
                }
            }
        }
    }
}

static size_t find_applied(const struct pg_state *, const struct uuid *,
                           bool *found);

/* True if an applied member of 'pg' other than 'p', and before position
 * 'before' of its members, has address 'addr' of family 'f'. */
static bool
other_member_has_ip(const struct groups *g, const struct pg_state *pg,
                    const struct ls_port *p, int f, const void *addr,
                    size_t before)
{
    const struct port_ip *pi;
    HMAP_FOR_EACH_WITH_HASH (pi, node, port_ip_hash(f, addr),
                             &g->port_ips[f]) {
        if (pi->port != p && port_ip_equals(f, pi->addr, addr)) {
            bool found;
            size_t i = find_applied(pg, &pi->port->nb->header_.uuid, &found);
            if (found && i < before) {
                return true;
            }
        }
    }
    return false;
}

/* Member port 'p' of 'pg' brings its addresses to the derived sets of 'pg'
 * ('add'), or takes them away (it is still in 'pg''s members then): an
 * address that no other member has joins or leaves them.  (They are
 * written whole after groups_init(): nothing to record then.)  What it
 * takes away is what it brought: a port's addresses change only while it
 * is out of the groups (groups_port_removed(), then groups_port_added()). */
static void
member_derived_ips(struct groups *g, const struct pg_state *pg,
                   const struct ls_port *p, bool add,
                   struct sset *sets_changed)
{
    if (g->building) {
        return;
    }
    for (int f = 0; f < 2; f++) {
        struct as_state *as = pg->sets[f];
        if (!as) {
            continue;
        }
        for (size_t j = 0; j < p->n_addrs; j++) {
            size_t n = f ? p->addrs[j].n_ipv6 : p->addrs[j].n_ipv4;
            for (size_t k = 0; k < n; k++) {
                const void *addr = port_ip_addr(p, f, j, k);
                if (port_ip_is_repeat(p, f, j, k)
                    || other_member_has_ip(g, pg, p, f, addr, SIZE_MAX)) {
                    continue;
                }
                char buf[INET6_ADDRSTRLEN];
                port_ip_format(p, f, j, k, buf);
                delta_record(g, as, 0, buf, add);
                if (as->n_known) {
                    as->n_addrs += add ? 1 : -1;
                }
                mark_set_changed(g, as, sets_changed);
            }
        }
    }
}

/* Adds ('value') or removes datapath 'dp' from the switches 'pg' spans
 * (unless members_init() is building the span of 'pg'). */
static void
pg_span_set(struct pg_state *pg, size_t dp, bool value,
            struct hmapx *span_changed)
{
    if (pg->span && bitmap_is_set(pg->dps, dp) != value) {
        pg->span = dpset_with(pg->span, dp, value);
        pg->dps = pg->span->map;
        if (span_changed) {
            hmapx_add(span_changed, pg);
        }
    }
}

/* True if an applied member of 'pg' is on datapath 'dp'. */
static bool
pg_has_member_on(const struct pg_state *pg, size_t dp)
{
    for (size_t i = 0; i < pg->n_ports; i++) {
        if (pg->ports[i]->dp->index == dp) {
            return true;
        }
    }
    return false;
}

/* Member 'p' of 'pg' joined ('add') or is about to leave the model: what
 * it contributes to the span of 'pg', its switch's SB port group and the
 * derived sets. */
static void
member_apply(struct groups *g, struct pg_state *pg, const struct ls_port *p,
             bool add, struct hmapx *span_changed, struct sset *sets_changed)
{
    size_t dp = p->dp->index;
    struct pg_name *pn = pg_owned_name(g, pg);
    if (pn) {
        struct pg_dp *r = pg_dp_get(pn, dp);
        ovs_assert(add || r->n_ports);
        pg_member_changed(g, pn, r, p->nb->name, add);
        if (add ? !r->n_ports++ : !--r->n_ports) {
            pg_span_set(pg, dp, add, span_changed);
        }
        pg_dp_trim(g, pn, r);
        member_derived_ips(g, pg, p, add, sets_changed);
    } else if (add || !pg_has_member_on(pg, dp)) {
        /* A group whose name another has (a full pass sorts that out)
         * still spans the switches of its members. */
        pg_span_set(pg, dp, add, span_changed);
    }
}

/* Binary search of the 'n' elements of 'v' ('size' bytes each), sorted by
 * the UUID that 'key' finds in an element, for 'uuid'.  Returns its
 * position, or where it would go, and sets '*found'. */
static size_t
uuid_search(const void *v, size_t n, size_t size,
            const struct uuid *(*key)(const void *), const struct uuid *uuid,
            bool *found)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int cmp = uuid_compare_3way(key((const char *) v + mid * size), uuid);
        if (!cmp) {
            *found = true;
            return mid;
        } else if (cmp < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    *found = false;
    return lo;
}

static const struct uuid *
port_key(const void *pp)
{
    const struct ls_port *const *p = pp;
    return &(*p)->nb->header_.uuid;
}

static const struct uuid *
uuid_key(const void *uuid)
{
    return uuid;
}

/* Where member row 'uuid' is, or would go, in 'pg''s applied members. */
static size_t
find_applied(const struct pg_state *pg, const struct uuid *uuid, bool *found)
{
    return uuid_search(pg->ports, pg->n_ports, sizeof *pg->ports, port_key,
                       uuid, found);
}

/* The same among the others. */
static size_t
find_absent(const struct pg_state *pg, const struct uuid *uuid, bool *found)
{
    return uuid_search(pg->absent, pg->n_absent, sizeof *pg->absent,
                       uuid_key, uuid, found);
}

/* Inserts the 'size' bytes at 'elem' at position 'i' of the array '*v' of
 * '*n' elements, which has room for exactly that many. */
static void
array_insert(void *v_, uint32_t *n, size_t size, size_t i, const void *elem)
{
    void **v = v_;
    *v = xrealloc(*v, (*n + 1) * size);
    char *p = (char *) *v + i * size;
    memmove(p + size, p, (*n - i) * size);
    memcpy(p, elem, size);
    ++*n;
}

/* Removes element 'i' of the array '*v' of '*n' elements. */
static void
array_remove(void *v_, uint32_t *n, size_t size, size_t i)
{
    void **v = v_;
    char *p = (char *) *v + i * size;
    memmove(p, p + size, (*n - i - 1) * size);
    if (!--*n) {
        free(*v);
        *v = NULL;
    } else {
        *v = xrealloc(*v, *n * size);
    }
}

/* The port groups that list the port with NB row 'row' (an array: a port
 * is in a handful of groups, and an hmapx would cost 32 bytes a group and
 * 64 more a port). */
struct port_pgs {
    struct hmap_node node;          /* In groups 'port_pgs', by 'row'. */
    struct uuid row;
    uint32_t n;
    struct pg_state **pgs;          /* Exactly 'n' of them. */
};

static struct port_pgs *
port_pgs_find(const struct groups *g, const struct uuid *row)
{
    struct port_pgs *pp;
    HMAP_FOR_EACH_WITH_HASH (pp, node, uuid_hash(row), &g->port_pgs) {
        if (uuid_equals(&pp->row, row)) {
            return pp;
        }
    }
    return NULL;
}

/* Records that 'pg' lists the port with NB row 'row' (which it did not). */
static void
port_pgs_add(struct groups *g, const struct uuid *row, struct pg_state *pg)
{
    struct port_pgs *pp = port_pgs_find(g, row);
    if (!pp) {
        pp = xzalloc(sizeof *pp);
        pp->row = *row;
        hmap_insert(&g->port_pgs, &pp->node, uuid_hash(row));
    }
    pp->pgs = xrealloc(pp->pgs, (pp->n + 1) * sizeof *pp->pgs);
    pp->pgs[pp->n++] = pg;
}

static void
port_pgs_free(struct port_pgs *pp)
{
    free(pp->pgs);
    free(pp);
}

/* Forgets that 'pg' lists the port with NB row 'row'. */
static void
port_pgs_remove(struct groups *g, const struct uuid *row, struct pg_state *pg)
{
    struct port_pgs *pp = port_pgs_find(g, row);
    if (!pp) {
        return;
    }
    for (size_t i = 0; i < pp->n; i++) {
        if (pp->pgs[i] == pg) {
            pp->pgs[i] = pp->pgs[--pp->n];
            break;
        }
    }
    if (!pp->n) {
        hmap_remove(&g->port_pgs, &pp->node);
        port_pgs_free(pp);
    }
}

/* The port of the model that NB port row 'row' stands for, or NULL (not in
 * the model, or another row has the name). */
static const struct ls_port *
model_port(const struct groups *g, const struct nb_logical_switch_port *row)
{
    const struct ls_port *p = ls_model_find_port(g->model, row->name);
    return p && uuid_equals(&p->nb->header_.uuid, &row->header_.uuid)
           ? p : NULL;
}

/* 'pg' now lists port row 'row', unless it did already. */
static void
member_add(struct groups *g, struct pg_state *pg,
           const struct nb_logical_switch_port *row,
           struct hmapx *span_changed, struct sset *sets_changed)
{
    const struct uuid *uuid = &row->header_.uuid;
    bool applied, absent;
    size_t i = find_applied(pg, uuid, &applied);
    size_t j = find_absent(pg, uuid, &absent);
    if (applied || absent) {
        return;
    }
    BUILD_ASSERT(NB_LOGICAL_SWITCH_PORT_COL_NAME_POOLED);
    const struct ls_port *p = model_port(g, row);
    if (p) {
        array_insert(&pg->ports, &pg->n_ports, sizeof *pg->ports, i, &p);
        member_apply(g, pg, p, true, span_changed, sets_changed);
    } else {
        array_insert(&pg->absent, &pg->n_absent, sizeof *pg->absent, j,
                     uuid);
    }
    port_pgs_add(g, uuid, pg);
}

/* 'pg' no longer lists the port with row 'uuid_', if it did. */
static void
member_remove(struct groups *g, struct pg_state *pg, const struct uuid *uuid_,
              struct hmapx *span_changed, struct sset *sets_changed)
{
    const struct uuid uuid_copy = *uuid_;   /* 'uuid_' may be in 'pg'. */
    const struct uuid *uuid = &uuid_copy;
    bool found;
    size_t i = find_applied(pg, uuid, &found);
    if (found) {
        member_apply(g, pg, pg->ports[i], false, span_changed, sets_changed);
        array_remove(&pg->ports, &pg->n_ports, sizeof *pg->ports, i);
    } else {
        i = find_absent(pg, uuid, &found);
        if (!found) {
            return;
        }
        array_remove(&pg->absent, &pg->n_absent, sizeof *pg->absent, i);
    }
    port_pgs_remove(g, uuid, pg);
}

/* Lists the ports of 'pg''s NB row as its members, at the start: the row
 * keeps them sorted by UUID, and the members are too. */
static void
members_init(struct groups *g, struct pg_state *pg)
{
    /* The span is made once, at the end: made member by member, it would
     * be interned again at each switch. */
    dpset_unref(pg->span);
    pg->span = NULL;

    const struct nb_port_group *row = pg->nb;
    pg->ports = xmalloc(MAX(row->n_ports, 1) * sizeof *pg->ports);
    for (size_t i = 0; i < row->n_ports; i++) {
        const struct nb_logical_switch_port *lsp = row->ports[i];
        const struct ls_port *p = model_port(g, lsp);
        if (p) {
            pg->ports[pg->n_ports++] = p;
            member_apply(g, pg, p, true, NULL, NULL);
        } else {
            array_insert(&pg->absent, &pg->n_absent, sizeof *pg->absent,
                         pg->n_absent, &lsp->header_.uuid);
        }
        port_pgs_add(g, &lsp->header_.uuid, pg);
    }
    if (!pg->n_ports) {
        free(pg->ports);
        pg->ports = NULL;
    } else if (pg->n_ports < row->n_ports) {
        pg->ports = xrealloc(pg->ports, pg->n_ports * sizeof *pg->ports);
    }

    unsigned long *dps = g->scratch_dps;
    bitmap_set_multiple(dps, 0, g->dp_cap, false);
    for (size_t i = 0; i < pg->n_ports; i++) {
        bitmap_set1(dps, pg->ports[i]->dp->index);
    }
    pg->span = dpset_intern(dps, g->dp_cap);
    pg->dps = pg->span->map;
}

static void
pg_state_destroy(struct pg_state *pg)
{
    free(pg->ports);
    free(pg->absent);
    dpset_unref(pg->span);
    strpool_put(pg->name);
    free(pg);
}

static struct pg_state *
pg_state_create(struct groups *g, const struct nb_port_group *nb_pg)
{
    struct pg_state *pg = xzalloc(sizeof *pg);
    pg->uuid = nb_pg->header_.uuid;
    pg->nb = nb_pg;
    pg->name = strpool_get(nb_pg->name);
    pg->name_hash = hash_string(pg->name, 0);
    bitmap_set_multiple(g->scratch_dps, 0, g->dp_cap, false);
    pg->span = dpset_intern(g->scratch_dps, g->dp_cap);
    pg->dps = pg->span->map;
    hmap_insert(&g->pgs, &pg->node, uuid_hash(&pg->uuid));
    return pg;
}

/* True if an address set, from the NB or derived, has 'name'. */
static bool
set_exists(const struct groups *g, const char *name)
{
    return as_exists(as_find(g, name, hash_string(name, 0)));
}

/* Creates the empty "<pg>_ip4" and "<pg>_ip6" sets of 'pg', unless an NB
 * address set has the name, and marks them changed. */
static void
add_derived_sets(struct groups *g, struct pg_state *pg,
                 struct sset *sets_changed)
{
    for (int f = 0; f < 2; f++) {
        char *name = derived_name(pg->name, f);
        struct as_state *as = as_get(g, name);
        free(name);
        if (as_exists(as)) {
            VLOG_WARN_RL(&rl, "Port_Group %s: address set %s already "
                         "exists in the NB, not deriving it", pg->name,
                         as->name);
            continue;
        }
        as->pg = pg;
        as->family = f;
        as->n_addrs = 0;
        as->n_known = !g->building;     /* (It has no members yet.) */
        pg->sets[f] = as;
        delta_set_whole(g, as, 0);
        mark_set_changed(g, as, sets_changed);
    }
}

bool
groups_pg_exists(const struct groups *g, const char *name)
{
    return pg_name_owner(g, name) != NULL;
}

struct pg_state *
groups_find_pg(const struct groups *g, const struct uuid *uuid)
{
    struct pg_state *pg;
    HMAP_FOR_EACH_WITH_HASH (pg, node, uuid_hash(uuid), &g->pgs) {
        if (uuid_equals(&pg->uuid, uuid)) {
            return pg;
        }
    }
    return NULL;
}

void
groups_init(struct groups *g, const struct ls_model *m, size_t dp_cap,
            struct rdb *nb_db)
{
    memset(g, 0, sizeof *g);
    g->model = m;
    g->dp_cap = dp_cap;
    hmap_init(&g->pgs);
    hmap_init(&g->pg_names);
    hmap_init(&g->port_pgs);
    hmap_init(&g->port_ips[0]);
    hmap_init(&g->port_ips[1]);
    hmap_init(&g->sets);
    hmap_init(&g->foreign);
    hmap_init(&g->deltas);
    g->scratch_dps = bitmap_allocate(dp_cap);
    g->building = true;

    const struct nb_address_set *nb_as;
    NB_ADDRESS_SET_FOR_EACH (nb_as, nb_db) {
        struct as_state *as = as_get(g, nb_as->name);
        if (as->nb) {
            VLOG_WARN_RL(&rl, "Address_Set "UUID_FMT": duplicate name \"%s\""
                         ", ignoring", UUID_ARGS(&nb_as->header_.uuid),
                         nb_as->name);
            continue;
        }
        as->nb = nb_as;
    }

    /* Port groups in UUID order, so that which of two groups with one
     * name wins does not depend on arrival order. */
    const struct nb_port_group *nb_pg;
    NB_PORT_GROUP_FOR_EACH (nb_pg, nb_db) {
        struct pg_state *pg = pg_state_create(g, nb_pg);
        struct pg_name *pn = pg_name_get(g, pg->name, pg->name_hash);
        if (!pn->owner || uuid_compare_3way(&pg->uuid, &pn->owner->uuid) < 0) {
            pn->owner = pg;
        }
    }
    struct pg_name *pn;
    HMAP_FOR_EACH (pn, node, &g->pg_names) {
        add_derived_sets(g, pn->owner, NULL);
    }
    const struct ls_port *p;
    HMAP_FOR_EACH (p, name_node, &m->ports) {
        port_ips_update(g, p, true);
    }
    struct pg_state *pg;
    HMAP_FOR_EACH (pg, node, &g->pgs) {
        members_init(g, pg);
    }
    g->building = false;
}

void
groups_end_pass(struct groups *g)
{
    for (size_t i = 0; i < g->n_dead_pgs; i++) {
        pg_state_destroy(g->dead_pgs[i]);
    }
    g->n_dead_pgs = 0;
}

void
groups_destroy(struct groups *g)
{
    if (!g) {
        return;
    }
    groups_end_pass(g);
    free(g->dead_pgs);
    struct pg_state *pg;
    HMAP_FOR_EACH_POP (pg, node, &g->pgs) {
        pg_state_destroy(pg);
    }
    hmap_destroy(&g->pgs);
    struct pg_name *pn;
    HMAP_FOR_EACH_POP (pn, node, &g->pg_names) {
        pg_name_free(pn);
    }
    hmap_destroy(&g->pg_names);
    struct port_pgs *pp;
    HMAP_FOR_EACH_POP (pp, node, &g->port_pgs) {
        port_pgs_free(pp);
    }
    hmap_destroy(&g->port_pgs);
    for (int f = 0; f < 2; f++) {
        struct port_ip *pi;
        HMAP_FOR_EACH_POP (pi, node, &g->port_ips[f]) {
            free(pi);
        }
        hmap_destroy(&g->port_ips[f]);
    }
    struct as_state *as;
    HMAP_FOR_EACH_POP (as, node, &g->sets) {
        as_free(as);
    }
    hmap_destroy(&g->sets);
    struct foreign_row *fr;
    HMAP_FOR_EACH_POP (fr, node, &g->foreign) {
        free(fr);
    }
    hmap_destroy(&g->foreign);
    deltas_clear(g);
    hmap_destroy(&g->deltas);
    free(g->dirty_sets);
    free(g->dirty_pg_dps);
    bitmap_free(g->scratch_dps);
}

void
groups_pg_ref(struct groups *g, size_t dp, const char *name, uint32_t hash,
              int delta)
{
    struct pg_name *pn = pg_name_get(g, name, hash);
    struct pg_dp *r = pg_dp_get(pn, dp);
    unsigned int old = r->n_refs;
    r->n_refs += delta;
    ovs_assert(r->n_refs == old + delta);   /* No wrap in 29 bits. */
    if (!old != !r->n_refs) {
        mark_pg_dp_dirty(g, pn, r);
    }
    pg_dp_trim(g, pn, r);
}

/* Marks the SB port groups of 'pn' on every datapath with ACL references
 * to it for syncing: they exist only while a group has the name. */
static void
mark_referring_dps(struct groups *g, struct pg_name *pn)
{
    for (size_t i = 0; i < pn->n_dps; i++) {
        if (pn->dps[i].n_refs) {
            mark_pg_dp_dirty(g, pn, &pn->dps[i]);
        }
    }
}

static bool
pg_added(struct groups *g, const struct nb_port_group *row,
         struct hmapx *span_changed, struct sset *sets_changed,
         struct sset *pgs_changed)
{
    if (pg_name_owner(g, row->name)) {
        return false;               /* A second group with this name. */
    }
    for (int f = 0; f < 2; f++) {
        char *name = derived_name(row->name, f);
        bool taken = set_exists(g, name);
        free(name);
        if (taken) {
            return false;           /* An NB set has a derived name. */
        }
    }
    struct pg_state *pg = pg_state_create(g, row);
    struct pg_name *pn = pg_name_get(g, pg->name, pg->name_hash);
    pn->owner = pg;
    add_derived_sets(g, pg, sets_changed);
    for (size_t i = 0; i < row->n_ports; i++) {
        member_add(g, pg, row->ports[i], span_changed, sets_changed);
    }
    mark_referring_dps(g, pn);
    sset_add(pgs_changed, pg->name);
    return true;
}

static bool
pg_deleted(struct groups *g, struct pg_state *pg, struct hmapx *span_changed,
           struct sset *sets_changed, struct sset *pgs_changed)
{
    struct pg_name *pn = pg_owned_name(g, pg);
    if (!pn) {
        return false;               /* Shadowed by a group with the name. */
    }
    const struct pg_state *other;
    HMAP_FOR_EACH (other, node, &g->pgs) {
        if (other != pg && !strcmp(other->name, pg->name)) {
            return false;           /* Another group takes the name over. */
        }
    }
    while (pg->n_ports) {
        member_remove(g, pg, port_key(&pg->ports[pg->n_ports - 1]),
                      span_changed, sets_changed);
    }
    while (pg->n_absent) {
        member_remove(g, pg, &pg->absent[pg->n_absent - 1], span_changed,
                      sets_changed);
    }
    for (int f = 0; f < 2; f++) {
        struct as_state *as = pg->sets[f];
        if (as) {
            as->pg = NULL;
            as->n_known = false;
            pg->sets[f] = NULL;
            delta_set_whole(g, as, 0);
            mark_set_changed(g, as, sets_changed);
            as_trim(g, as);
        }
    }
    pn->owner = NULL;
    mark_referring_dps(g, pn);
    pg_name_trim(g, pn);
    sset_add(pgs_changed, pg->name);

    /* Freed by groups_end_pass(): the caller's sets may still name it. */
    hmap_remove(&g->pgs, &pg->node);
    g->dead_pgs = xrealloc(g->dead_pgs,
                           (g->n_dead_pgs + 1) * sizeof *g->dead_pgs);
    g->dead_pgs[g->n_dead_pgs++] = pg;
    return true;
}

/* The element of 'row''s ports (sorted by UUID, as the replica keeps
 * sets) with UUID 'uuid', or NULL. */
static const struct nb_logical_switch_port *
find_port_ref(const struct nb_port_group *row, const struct uuid *uuid)
{
    size_t lo = 0, hi = row->n_ports;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int cmp = uuid_compare_3way(&row->ports[mid]->header_.uuid, uuid);
        if (!cmp) {
            return row->ports[mid];
        } else if (cmp < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return NULL;
}

bool
groups_handle_pg(struct groups *g, const struct nb_port_group *row,
                 struct hmapx *span_changed, struct sset *sets_changed,
                 struct sset *pgs_changed)
{
    bool is_new = nb_port_group_is_new(row);
    bool is_deleted = nb_port_group_is_deleted(row);
    if (is_new && is_deleted) {
        return true;                /* Came and went between passes. */
    }
    if (is_new) {
        return pg_added(g, row, span_changed, sets_changed, pgs_changed);
    }
    struct pg_state *pg = groups_find_pg(g, &row->header_.uuid);
    if (!pg) {
        return false;
    }
    if (is_deleted) {
        return pg_deleted(g, pg, span_changed, sets_changed, pgs_changed);
    }
    if (strcmp(pg->name, row->name)
        || !pg_owned_name(g, pg)) {
        /* Renamed or shadowed groups: recompute. */
        return false;
    }
    pg->nb = row;
    if (!nb_port_group_is_updated(row, NB_PORT_GROUP_COL_PORTS)) {
        return true;
    }

    /* A port joins or leaves a group of thousands one at a time: the
     * replica usually knows which, otherwise find the difference without
     * copying the list. */
    const struct uuid *added, *removed;
    size_t n_added, n_removed;
    if (rdb_row_get_set_delta(&row->header_, NB_PORT_GROUP_COL_PORTS,
                              &added, &n_added, &removed, &n_removed)) {
        for (size_t i = 0; i < n_removed; i++) {
            member_remove(g, pg, &removed[i], span_changed, sets_changed);
        }
        for (size_t i = 0; i < n_added; i++) {
            const struct nb_logical_switch_port *lsp
                = find_port_ref(row, &added[i]);
            if (lsp) {
                member_add(g, pg, lsp, span_changed, sets_changed);
            }
        }
        return true;
    }
    for (size_t i = pg->n_ports; i-- > 0; ) {
        const struct uuid *uuid = port_key(&pg->ports[i]);
        if (!find_port_ref(row, uuid)) {
            member_remove(g, pg, uuid, span_changed, sets_changed);
        }
    }
    for (size_t i = pg->n_absent; i-- > 0; ) {
        if (!find_port_ref(row, &pg->absent[i])) {
            member_remove(g, pg, &pg->absent[i], span_changed, sets_changed);
        }
    }
    for (size_t i = 0; i < row->n_ports; i++) {
        member_add(g, pg, row->ports[i], span_changed, sets_changed);
    }
    return true;
}

/* True if 'name' is, or could be, a set derived from a port group. */
static bool
is_derived_name(const struct groups *g, const char *name)
{
    size_t len = strlen(name);
    if (len < 5 || (strcmp(name + len - 4, "_ip4")
                    && strcmp(name + len - 4, "_ip6"))) {
        return false;
    }
    char *pg = xmemdup0(name, len - 4);
    bool found = pg_name_owner(g, pg) != NULL;
    free(pg);
    return found;
}


bool
groups_handle_as(struct groups *g, const struct nb_address_set *row,
                 struct sset *sets_changed)
{
    bool is_new = nb_address_set_is_new(row);
    bool is_deleted = nb_address_set_is_deleted(row);
    if (is_new && is_deleted) {
        return true;                /* Came and went between passes. */
    }
    struct as_state *as = as_find(g, row->name, hash_string(row->name, 0));
    if (is_new || is_deleted) {
        /* Names shared with another set, or with a derived one, are for a
         * full pass to sort out. */
        if (is_derived_name(g, row->name)
            || (is_new ? as_exists(as) : !as || as->nb != row)) {
            return false;
        }
        if (is_new) {
            as = as_get(g, row->name);
            as->nb = row;
        } else {
            as->nb = NULL;
        }
        delta_set_whole(g, as, 0);
        mark_set_changed(g, as, sets_changed);
        as_trim(g, as);
        return true;
    }
    if (!as || as->nb != row) {
        return false;               /* Renamed, or a shadowed duplicate. */
    }

    if (!nb_address_set_is_updated(row, NB_ADDRESS_SET_COL_ADDRESSES)) {
        return true;
    }

    /* What the server said changed: northd keeps no copy of the addresses
     * to compare with (the replica's are the set's). */
    char *const *added, *const *removed;
    size_t n_added, n_removed;
    if (rdb_row_get_string_set_delta(&row->header_,
                                     NB_ADDRESS_SET_COL_ADDRESSES,
                                     &added, &n_added, &removed, &n_removed)) {
        for (size_t i = 0; i < n_removed; i++) {
            delta_record(g, as, 0, removed[i], false);
        }
        for (size_t i = 0; i < n_added; i++) {
            delta_record(g, as, 0, added[i], true);
        }
    } else {
        delta_set_whole(g, as, 0);         /* Written whole. */
    }
    /* Every address added or removed above was recorded as a delta. */
    if (delta_find(g, as, 0)) {
        mark_set_changed(g, as, sets_changed);
    }
    return true;
}

/* Applies ('apply') or takes back the memberships of port 'p' in the
 * groups that list it. */
static void
port_memberships(struct groups *g, const struct ls_port *p, bool apply,
                 struct hmapx *span_changed, struct sset *sets_changed)
{
    const struct uuid *uuid = &p->nb->header_.uuid;
    const struct port_pgs *pp = port_pgs_find(g, uuid);
    for (size_t k = 0; pp && k < pp->n; k++) {
        struct pg_state *pg = pp->pgs[k];
        bool applied, absent;
        size_t i = find_applied(pg, uuid, &applied);
        size_t j = find_absent(pg, uuid, &absent);
        if (apply && absent) {
            array_remove(&pg->absent, &pg->n_absent, sizeof *pg->absent, j);
            array_insert(&pg->ports, &pg->n_ports, sizeof *pg->ports, i, &p);
            member_apply(g, pg, p, true, span_changed, sets_changed);
        } else if (!apply && applied) {
            member_apply(g, pg, p, false, span_changed, sets_changed);
            array_remove(&pg->ports, &pg->n_ports, sizeof *pg->ports, i);
            array_insert(&pg->absent, &pg->n_absent, sizeof *pg->absent, j,
                         uuid);
        }
    }
}

void
groups_port_added(struct groups *g, const struct ls_port *p,
                  struct hmapx *span_changed, struct sset *sets_changed)
{
    port_ips_update(g, p, true);
    port_memberships(g, p, true, span_changed, sets_changed);
}

void
groups_port_removed(struct groups *g, const struct ls_port *p,
                    struct hmapx *span_changed, struct sset *sets_changed)
{
    port_memberships(g, p, false, span_changed, sets_changed);
    port_ips_update(g, p, false);
}

/* What an SB Address_Set or Port_Group row should hold: the strings
 * 'addrs' (an NB set's row's addresses, or port names already collected),
 * the addresses of the members of a derived set's group ('as'), or the
 * names of the members of 'pg' on datapath 'dp' (none of these: nothing).
 * None is a copy: at a million ACLs copies of the NB addresses, of the
 * derived ones and of port names per datapath cost more than the sets and
 * members themselves. */
struct group_want {
    const struct groups *g;
    const char *const *addrs;
    size_t n_addrs;
    const struct as_state *as;
    const struct pg_state *pg;
    size_t dp;
    size_t n_ports;                 /* Of 'pg' on 'dp'. */
};

/* What the SB row of address set 'as' should hold, into '*w'.  False if
 * it should not exist. */
static bool
as_want(const struct groups *g, const struct as_state *as,
        struct group_want *w)
{
    const struct nb_address_set *nb = as->nb;
    *w = (struct group_want) {
        .g = g,
        .addrs = nb ? (const char *const *) nb->addresses : NULL,
        .n_addrs = nb ? nb->n_addresses : 0,
        .as = as->pg ? as : NULL,
    };
    return as_exists(as);
}

/* The addresses of derived set 'as': each address of family 'as->family'
 * of each member of its group, unless that member has it twice or an
 * earlier member has it too.  Returns how many; with 'v' nonnull, also
 * writes them as text one after another from 'buf' and points 'v' at
 * them. */
static size_t
derived_ips(const struct groups *g, const struct as_state *as,
            const char **v, char *buf)
{
    const struct pg_state *pg = as->pg;
    int f = as->family;
    size_t n = 0;
    for (size_t i = 0; i < pg->n_ports; i++) {
        const struct ls_port *p = pg->ports[i];
        for (size_t j = 0; j < p->n_addrs; j++) {
            size_t n_ips = f ? p->addrs[j].n_ipv6 : p->addrs[j].n_ipv4;
            for (size_t k = 0; k < n_ips; k++) {
                if (port_ip_is_repeat(p, f, j, k)
                    || other_member_has_ip(g, pg, p, f,
                                           port_ip_addr(p, f, j, k), i)) {
                    continue;
                }
                if (v) {
                    port_ip_format(p, f, j, k, buf);
                    v[n] = buf;
                    buf += strlen(buf) + 1;
                }
                n++;
            }
        }
    }
    return n;
}

/* The distinct addresses of derived set 'as', counted once and then kept
 * up to date (member_derived_ips()). */
static size_t
derived_count(struct groups *g, struct as_state *as)
{
    if (!as->n_known) {
        as->n_addrs = derived_ips(g, as, NULL, NULL);
        as->n_known = true;
    }
    return as->n_addrs;
}

static size_t
want_count(const struct group_want *w)
{
    if (w->as) {
        return (w->as->n_known ? w->as->n_addrs
                : derived_ips(w->g, w->as, NULL, NULL));
    } else if (w->n_addrs) {
        return w->n_addrs;
    } else if (w->pg) {
        return w->n_ports;
    }
    return 0;
}

/* The strings of a derived set's 'w' as an array, in one block to free with
 * the strings' text after the pointers. */
static const char **
derived_array(const struct group_want *w, size_t *n)
{
    const struct pg_state *pg = w->as->pg;
    int f = w->as->family;
    size_t max = 0;
    for (size_t i = 0; i < pg->n_ports; i++) {
        const struct ls_port *p = pg->ports[i];
        for (size_t j = 0; j < p->n_addrs; j++) {
            max += f ? p->addrs[j].n_ipv6 : p->addrs[j].n_ipv4;
        }
    }
    size_t text = f ? INET6_ADDRSTRLEN : INET_ADDRSTRLEN;
    const char **v = xmalloc(MAX(max, 1) * (sizeof *v + text));
    *n = derived_ips(w->g, w->as, v, (char *) (v + max));
    return v;
}

/* The strings of 'w' as an array (to free; the strings are borrowed, or a
 * derived set's text that goes with the array), of want_count()
 * elements. */
static const char **
want_array(const struct group_want *w, size_t *n)
{
    if (w->as) {
        return derived_array(w, n);
    }
    *n = want_count(w);
    if (w->n_addrs) {
        return xmemdup(w->addrs, w->n_addrs * sizeof *w->addrs);
    }
    const char **v = xmalloc(MAX(*n, 1) * sizeof *v);
    if (*n) {
        size_t i = 0;
        for (size_t j = 0; j < w->pg->n_ports; j++) {
            const struct ls_port *p = w->pg->ports[j];
            if (p->dp->index == w->dp) {
                ovs_assert(i < *n);
                v[i++] = p->nb->name;
            }
        }
        ovs_assert(i == *n);
    }
    return v;
}

/* One string's share of content_hash(): two 32-bit hashes with different
 * bases, so that a 32-bit collision is not enough. */
static uint64_t
content_hash_one(const char *s)
{
    return ((uint64_t) hash_string(s, 0) << 32) | hash_string(s, 0x5bd1e995);
}

/* A hash of the strings of 'w' that does not depend on their order: a
 * full pass compares a row with what its SB row holds by this alone. */
static uint64_t
content_hash(const struct group_want *w)
{
    size_t n;
    const char **v = want_array(w, &n);
    uint64_t h = n * UINT64_C(0x9e3779b97f4a7c15);
    for (size_t i = 0; i < n; i++) {
        h += content_hash_one(v[i]);
    }
    free(v);
    return h;
}

/* The SB Port_Group of entry 'r' of 'pn' should hold what '*w' says, if
 * it should exist at all: while the group has members there, or ACLs there
 * refer to it. */
static bool
pg_dp_want(const struct groups *g, const struct pg_name *pn,
           const struct pg_dp *r, struct group_want *w)
{
    const struct pg_state *pg = pn->owner;
    *w = (struct group_want) { .g = g, .pg = pg, .dp = r->dp,
                               .n_ports = r->n_ports };
    return (pg && r->dp < g->model->n_datapaths
            && (r->n_ports || r->n_refs));
}

/* The UUID northd gives the SB row named 'name' of a table whose rows
 * have unique names, in a family of names 'basis' says (an SB port
 * group's datapath tunnel key, with the port group's name, or 0 for an
 * address set): a later pass, or the next northd on the same SB, finds
 * the row by its name without having kept its UUID.  Unlike a flow's
 * (lflow.c), it does not depend on the process: lib/rdb.h's content
 * hashes are keyed per process. */
static struct uuid
derive_uuid(uint32_t basis, const char *name)
{
    ovs_u128 h;
    hash_bytes128(name, strlen(name), basis, &h);
    return rdb_uuid_from_bits(h.u64.lo, h.u64.hi);
}

/* The UUID northd derives for the SB port group of entry 'r' of 'pn'. */
static struct uuid
pg_dp_derived_uuid(const struct groups *g, const struct pg_name *pn,
                   const struct pg_dp *r)
{
    return derive_uuid(g->model->dp_array[r->dp]->tunnel_key, pn->name);
}

/* The UUID of the SB port group of entry 'r' of 'pn' ('has_row'), or of
 * the row northd is about to insert for it. */
static struct uuid
pg_dp_uuid(const struct groups *g, const struct pg_name *pn,
           const struct pg_dp *r)
{
    if (r->foreign_uuid) {
        return foreign_row_find(g, pn, r->dp)->uuid;
    }
    return pg_dp_derived_uuid(g, pn, r);
}

/* Takes note that the SB port group of entry 'r' of 'pn' is row 'uuid'. */
static void
pg_dp_set_row(struct groups *g, struct pg_name *pn, struct pg_dp *r,
              const struct uuid *uuid)
{
    struct uuid derived = pg_dp_derived_uuid(g, pn, r);
    r->has_row = true;
    r->foreign_uuid = !uuid_equals(uuid, &derived);
    if (r->foreign_uuid) {
        remember_foreign_uuid(g, pn, r->dp, uuid);
    } else {
        forget_foreign_uuid(g, pn, r->dp);
    }
}

/* Takes note that entry 'r' of 'pn' has no SB row. */
static void
pg_dp_clear_row(struct groups *g, struct pg_name *pn, struct pg_dp *r)
{
    r->has_row = false;
    if (r->foreign_uuid) {
        r->foreign_uuid = false;
        forget_foreign_uuid(g, pn, r->dp);
    }
}

/* The UUID northd derives for the SB row of address set 'as'. */
static struct uuid
as_derived_uuid(const struct as_state *as)
{
    return derive_uuid(0, as->name);
}

/* The UUID of the SB row of 'as' ('has_row'), or of the row northd is
 * about to insert for it. */
static struct uuid
as_uuid(const struct groups *g, const struct as_state *as)
{
    if (as->foreign_uuid) {
        return foreign_row_find(g, as, 0)->uuid;
    }
    return as_derived_uuid(as);
}

/* Takes note that the SB row of 'as' is row 'uuid'. */
static void
as_set_row(struct groups *g, struct as_state *as, const struct uuid *uuid)
{
    struct uuid derived = as_derived_uuid(as);
    as->has_row = true;
    as->foreign_uuid = !uuid_equals(uuid, &derived);
    if (as->foreign_uuid) {
        remember_foreign_uuid(g, as, 0, uuid);
    } else {
        forget_foreign_uuid(g, as, 0);
    }
}

/* Takes note that 'as' has no SB row. */
static void
as_clear_row(struct groups *g, struct as_state *as)
{
    as->has_row = false;
    if (as->foreign_uuid) {
        as->foreign_uuid = false;
        forget_foreign_uuid(g, as, 0);
    }
}

/* Datapath indexes by tunnel key, to read SB port group names with. */
struct key_dp {
    struct hmap_node node;
    uint32_t key;
    size_t dp;
};

static void
key_dps_init(struct hmap *map, const struct ls_model *m)
{
    hmap_init(map);
    for (size_t i = 0; i < m->n_datapaths; i++) {
        struct key_dp *kd = xmalloc(sizeof *kd);
        kd->key = m->dp_array[i]->tunnel_key;
        kd->dp = i;
        hmap_insert(map, &kd->node, hash_int(kd->key, 0));
    }
}

static void
key_dps_destroy(struct hmap *map)
{
    struct key_dp *kd;
    HMAP_FOR_EACH_POP (kd, node, map) {
        free(kd);
    }
    hmap_destroy(map);
}

/* Reads SB port group name 'sb_name' ("<key>_<pg>") into the datapath it
 * is for and the port group's name (a pointer into 'sb_name').  False if
 * it is not such a name, or no switch has the key. */
static bool
parse_sb_pg_name(const struct hmap *key_dps, const char *sb_name,
                 size_t *dp, const char **pg_name)
{
    /* Only the spelling sb_pg_name() gives: ovn-controller looks up no
     * other. */
    if (!isdigit((unsigned char) *sb_name) || *sb_name == '0') {
        return false;
    }
    char *end;
    errno = 0;
    unsigned long key = strtoul(sb_name, &end, 10);
    if (errno || *end != '_' || key > UINT32_MAX) {
        return false;
    }
    const struct key_dp *kd;
    HMAP_FOR_EACH_WITH_HASH (kd, node, hash_int(key, 0), key_dps) {
        if (kd->key == key) {
            *dp = kd->dp;
            *pg_name = end + 1;
            return true;
        }
    }
    return false;
}

static void
delete_row(struct rdb_txn *txn, const struct rdb_table_class *tc,
           const struct uuid *uuid)
{
    rdb_txn_delete(txn, tc, uuid);
    COVERAGE_INC(sb_group_deleted);
}

/* Writes all of 'w' to string set column 'col' of the row being inserted
 * or updated. */
static void
write_strings(struct rdb_txn *txn, size_t col, const struct group_want *w)
{
    size_t n;
    const char **v = want_array(w, &n);
    rdb_txn_set_strings(txn, col, v, n);
    free(v);
}

static void
write_whole(struct rdb_txn *txn, const struct rdb_table_class *tc,
            const struct uuid *uuid, size_t col, const struct group_want *w)
{
    COVERAGE_INC(sb_group_rewritten);
    rdb_txn_update(txn, tc, uuid);
    write_strings(txn, col, w);
}

/* Inserts the SB port group of entry 'r' of 'pn', with the ports 'w'
 * says. */
static void
insert_pg(struct groups *g, struct rdb_txn *txn, struct pg_name *pn,
          struct pg_dp *r, const struct group_want *w)
{
    struct uuid uuid = pg_dp_uuid(g, pn, r);
    rdb_txn_insert(txn, &sb_table_port_group, &uuid);
    COVERAGE_INC(sb_group_inserted);
    char *sb_name = sb_pg_name(g->model->dp_array[r->dp]->tunnel_key,
                               pn->name);
    rdb_txn_set_string(txn, SB_PORT_GROUP_COL_NAME, sb_name);
    free(sb_name);
    write_strings(txn, SB_PORT_GROUP_COL_PORTS, w);
    pg_dp_set_row(g, pn, r, &uuid);
}

/* Inserts the SB row of address set 'as', with the addresses 'w' says. */
static void
insert_set(struct groups *g, struct rdb_txn *txn, struct as_state *as,
           const struct group_want *w)
{
    struct uuid uuid = as_uuid(g, as);
    rdb_txn_insert(txn, &sb_table_address_set, &uuid);
    COVERAGE_INC(sb_group_inserted);
    rdb_txn_set_string(txn, SB_ADDRESS_SET_COL_NAME, as->name);
    write_strings(txn, SB_ADDRESS_SET_COL_ADDRESSES, w);
    as_set_row(g, as, &uuid);
}

static void
mutate_strings(struct rdb_txn *txn, const struct rdb_table_class *tc,
               const struct uuid *uuid, size_t col, const struct sset *set,
               bool add)
{
    const char **v = sset_array(set);
    rdb_txn_mutate_strings(txn, tc, uuid, col, add, v, sset_count(set));
    free(v);
}

/* Brings string set column 'col' of row 'uuid' to 'w', given delta 'd'
 * (NULL: nothing changed) since it was last written: as mutations if only
 * a few differ (a derived address set or a switch's share of a port group
 * has thousands, and a port joins one at a time). */
static void
apply_delta(struct rdb_txn *txn, const struct rdb_table_class *tc,
            const struct uuid *uuid, size_t col,
            const struct set_delta *d, const struct group_want *w)
{
    if (!d) {
        return;
    }
    size_t n_changed = sset_count(&d->add) + sset_count(&d->del);
    if (d->whole || !rdb_txn_prefers_mutation(n_changed, want_count(w))) {
        if (d->whole || n_changed) {
            write_whole(txn, tc, uuid, col, w);
        }
    } else {
        COVERAGE_INC(sb_group_mutated);
        mutate_strings(txn, tc, uuid, col, &d->del, false);
        mutate_strings(txn, tc, uuid, col, &d->add, true);
    }
}

/* Brings string set column 'col' of replica row 'uuid' from 'have' to
 * 'w', by comparing them. */
static void
update_strings(struct rdb_txn *txn, const struct rdb_table_class *tc,
               const struct uuid *uuid, size_t col,
               char **have, size_t n_have, const struct group_want *w)
{
    /* A copy, for lookups. */
    struct sset want_copy = SSET_INITIALIZER(&want_copy);
    size_t n_want;
    const char **v = want_array(w, &n_want);
    for (size_t i = 0; i < n_want; i++) {
        sset_add(&want_copy, v[i]);
    }
    free(v);
    const struct sset *want = &want_copy;
    struct set_delta d = { .add = SSET_INITIALIZER(&d.add),
                           .del = SSET_INITIALIZER(&d.del) };
    struct sset have_set = SSET_INITIALIZER(&have_set);
    for (size_t i = 0; i < n_have; i++) {
        sset_add(&have_set, have[i]);
        if (!sset_contains(want, have[i])) {
            sset_add(&d.del, have[i]);
        }
    }
    const char *a;
    SSET_FOR_EACH (a, want) {
        if (!sset_contains(&have_set, a)) {
            sset_add(&d.add, a);
        }
    }
    apply_delta(txn, tc, uuid, col, &d, w);
    sset_destroy(&have_set);
    sset_destroy(&d.add);
    sset_destroy(&d.del);
    sset_destroy(&want_copy);
}

/* An SB row the last pass left, for a full pass without a fresh copy. */
struct sb_group_row {
    struct uuid uuid;
    uint64_t content;               /* content_hash() of what it holds... */
    bool known;                     /* ...if known. */
};

struct groups_sb_rows {
    struct shash sets;              /* Name -> struct sb_group_row *. */
    struct shash pgs;               /* SB name -> struct sb_group_row *. */
};

static struct sb_group_row *
sb_group_row_add(struct shash *rows, const char *name,
                 const struct uuid *uuid)
{
    struct sb_group_row *r = xmalloc(sizeof *r);
    r->uuid = *uuid;
    r->content = 0;
    r->known = false;
    shash_add(rows, name, r);
    return r;
}

/* True if the NB row of 'as' changed in the replica since 'g' last
 * followed it: its addresses are no longer what the SB row was given. */
static bool
nb_set_changed(const struct as_state *as)
{
    const struct nb_address_set *nb = as->nb;
    return nb && (nb_address_set_is_new(nb) || nb_address_set_is_deleted(nb)
                  || nb_address_set_is_updated(nb,
                                               NB_ADDRESS_SET_COL_ADDRESSES));
}

/* True if a port among the members '*w' (a port group on a switch) says
 * has a new name in the replica that northd did not follow: the SB row
 * was written with the old one. */
static bool
member_renamed(const struct group_want *w)
{
    for (size_t i = 0; i < w->pg->n_ports; i++) {
        const struct ls_port *p = w->pg->ports[i];
        if (p->dp->index == w->dp
            && nb_logical_switch_port_is_updated(
                   p->nb, NB_LOGICAL_SWITCH_PORT_COL_NAME)) {
            return true;
        }
    }
    return false;
}

struct groups_sb_rows *
groups_sb_rows_from_state(const struct groups *g, struct rdb *sb_db)
{
    /* Rows someone else deleted since the last pass. */
    struct uuidset gone = UUIDSET_INITIALIZER(&gone);
    rdb_track_deleted(sb_db, &sb_table_address_set, &gone);
    rdb_track_deleted(sb_db, &sb_table_port_group, &gone);

    struct groups_sb_rows *rows = xmalloc(sizeof *rows);
    shash_init(&rows->sets);
    shash_init(&rows->pgs);

    /* What the last sync wrote is what 'g' wants, but for what changed
     * since (a pass that gave up halfway may have changed some). */
    const struct as_state *as;
    HMAP_FOR_EACH (as, node, &g->sets) {
        if (!as->has_row) {
            continue;
        }
        struct uuid uuid = as_uuid(g, as);
        if (uuidset_find(&gone, &uuid)) {
            continue;
        }
        struct sb_group_row *r = sb_group_row_add(&rows->sets, as->name,
                                                  &uuid);
        struct group_want w;
        if (as_want(g, as, &w) && !as->dirty && !nb_set_changed(as)) {
            r->known = true;
            r->content = content_hash(&w);
        }
    }

    const struct pg_name *pn;
    HMAP_FOR_EACH (pn, node, &g->pg_names) {
        for (size_t i = 0; i < pn->n_dps; i++) {
            const struct pg_dp *pd = &pn->dps[i];
            if (!pd->has_row || pd->dp >= g->model->n_datapaths) {
                continue;
            }
            struct uuid uuid = pg_dp_uuid(g, pn, pd);
            if (uuidset_find(&gone, &uuid)) {
                continue;
            }
            char *sb_name = sb_pg_name(
                g->model->dp_array[pd->dp]->tunnel_key, pn->name);
            struct sb_group_row *r = sb_group_row_add(&rows->pgs, sb_name,
                                                      &uuid);
            free(sb_name);
            struct group_want w;
            if (!pd->dirty && pg_dp_want(g, pn, pd, &w)
                && !member_renamed(&w)) {
                r->known = true;
                r->content = content_hash(&w);
            }
        }
    }
    uuidset_destroy(&gone);
    return rows;
}

void
groups_sb_rows_destroy(struct groups_sb_rows *rows)
{
    if (rows) {
        shash_destroy_free_data(&rows->sets);
        shash_destroy_free_data(&rows->pgs);
        free(rows);
    }
}

/* The set of the SB address set named 'name' if northd wants that row and
 * has not found it yet, with what it should hold in '*w'; NULL if the row
 * is to go. */
static struct as_state *
claimable_set(const struct groups *g, const char *name, struct group_want *w)
{
    struct as_state *as = as_find(g, name, hash_string(name, 0));
    return as && !as->has_row && as_want(g, as, w) ? as : NULL;
}

/* The first half of a full sync of a table, from the rows the last pass
 * left: rows 'g' does not want go, rows whose content differs are written
 * whole; the caller inserts the missing ones. */
static void
sync_sets_from_rows(struct groups *g, struct rdb_txn *txn,
                    const struct shash *rows)
{
    struct shash_node *node;
    SHASH_FOR_EACH (node, rows) {
        const struct sb_group_row *row = node->data;
        struct group_want w;
        struct as_state *as = claimable_set(g, node->name, &w);
        if (!as) {
            delete_row(txn, &sb_table_address_set, &row->uuid);
            continue;
        }
        if (!row->known || row->content != content_hash(&w)) {
            write_whole(txn, &sb_table_address_set, &row->uuid,
                        SB_ADDRESS_SET_COL_ADDRESSES, &w);
        }
        as_set_row(g, as, &row->uuid);
    }
}

/* The entry of the SB port group named 'sb_name' (and its name, in
 * '*pnp') if northd wants that row and has not found it yet, with what it
 * should hold in '*w'; NULL if the row is to go. */
static struct pg_dp *
claimable_pg_dp(const struct groups *g, const struct hmap *key_dps,
                const char *sb_name, struct pg_name **pnp,
                struct group_want *w)
{
    size_t dp;
    const char *pg_name;
    if (!parse_sb_pg_name(key_dps, sb_name, &dp, &pg_name)) {
        return NULL;
    }
    struct pg_name *pn = pg_name_find(g, pg_name, hash_string(pg_name, 0));
    struct pg_dp *r = pn ? pg_dp_find(pn, dp) : NULL;
    *pnp = pn;
    return r && !r->has_row && pg_dp_want(g, pn, r, w) ? r : NULL;
}

static void
sync_pgs_from_rows(struct groups *g, struct rdb_txn *txn,
                   const struct shash *rows, const struct hmap *key_dps)
{
    struct shash_node *node;
    SHASH_FOR_EACH (node, rows) {
        const struct sb_group_row *row = node->data;
        struct group_want w;
        struct pg_name *pn;
        struct pg_dp *r = claimable_pg_dp(g, key_dps, node->name, &pn, &w);
        if (!r) {
            delete_row(txn, &sb_table_port_group, &row->uuid);
            continue;
        }
        if (!row->known || row->content != content_hash(&w)) {
            write_whole(txn, &sb_table_port_group, &row->uuid,
                        SB_PORT_GROUP_COL_PORTS, &w);
        }
        pg_dp_set_row(g, pn, r, &row->uuid);
    }
}

/* A member's name and datapath, to sort a group's members by datapath. */
struct dp_name {
    uint32_t dp;
    const char *name;
};

static int
compare_dp_names(const void *a_, const void *b_)
{
    const struct dp_name *a = a_;
    const struct dp_name *b = b_;
    return a->dp < b->dp ? -1 : a->dp > b->dp;
}

static size_t
dp_name_key(const void *dp_name)
{
    return ((const struct dp_name *) dp_name)->dp;
}

/* Sorts the 'n' members in 'v' by datapath (below 'dp_cap'): by counting
 * for a big group, whose members outnumber the datapaths. */
static void
sort_dp_names(struct dp_name *v, size_t n, size_t dp_cap)
{
    if (n < 64 || n < dp_cap / 4) {
        qsort(v, n, sizeof *v, compare_dp_names);
    } else {
        counting_sort(v, n, sizeof *v, dp_cap, dp_name_key);
    }
}

/* Inserts the SB port groups of the name at 'g->next_pg' that northd
 * wants and the SB lacks, and moves on to the next name.  Returns the
 * number of rows inserted.  The members are sorted by datapath once for
 * all of the name's rows: a group of thousands over hundreds of switches
 * (Neutron's default drop group) would otherwise be walked once per
 * switch. */
static size_t
produce_pgs(struct groups *g, struct rdb_txn *txn)
{
    struct pg_name *pn = CONTAINER_OF(g->next_pg, struct pg_name, node);
    g->next_pg = hmap_next(&g->pg_names, g->next_pg);
    const struct pg_state *pg = pn->owner;
    if (!pg) {
        return 0;
    }

    size_t n_v = pg->n_ports;
    struct dp_name *v = xmalloc(MAX(n_v, 1) * sizeof *v);
    for (size_t i = 0; i < n_v; i++) {
        const struct ls_port *p = pg->ports[i];
        v[i] = (struct dp_name) { p->dp->index, p->nb->name };
    }
    sort_dp_names(v, n_v, g->dp_cap);

    /* The entries are sorted by datapath too. */
    size_t n = 0;
    const char **names = xmalloc(MAX(n_v, 1) * sizeof *names);
    size_t i = 0;
    for (size_t k = 0; k < pn->n_dps; k++) {
        struct pg_dp *r = &pn->dps[k];
        while (i < n_v && v[i].dp < r->dp) {
            i++;
        }
        size_t n_names = 0;
        for (; i < n_v && v[i].dp == r->dp; i++) {
            names[n_names++] = v[i].name;
        }
        struct group_want w;
        if (!r->has_row && pg_dp_want(g, pn, r, &w)) {
            ovs_assert(n_names == r->n_ports);
            w.addrs = names;
            w.n_addrs = n_names;
            w.pg = NULL;
            insert_pg(g, txn, pn, r, &w);
            n++;
        }
    }
    free(names);
    free(v);
    return n;
}

/* Produces the inserts of a full sync, a batch per call (see
 * groups_sync_sb()): address sets, then port groups. */
static bool
produce_inserts(struct rdb_txn *txn, void *g_)
{
    struct groups *g = g_;
    /* At most 1,000 inserts, or 20,000 rows looked at (a full pass after
     * a resync may find most rows there already). */
    for (size_t n = 0, seen = 0; n < 1000 && seen < 20000; seen++) {
        if (g->next_set) {
            struct as_state *as = CONTAINER_OF(g->next_set, struct as_state,
                                               node);
            g->next_set = hmap_next(&g->sets, g->next_set);
            struct group_want w;
            if (!as->has_row && as_want(g, as, &w)) {
                insert_set(g, txn, as, &w);
                n++;
            }
        } else if (g->next_pg) {
            n += produce_pgs(g, txn);
        } else {
            return true;
        }
    }
    return false;
}

/* Forgets which sets and port groups by switch were dirty, and what
 * changed in them: written, or to be compared whole. */
static void
clear_dirty(struct groups *g)
{
    for (size_t i = 0; i < g->n_dirty_sets; i++) {
        struct as_state *as = g->dirty_sets[i];
        as->dirty = false;
        as_trim(g, as);
    }
    g->n_dirty_sets = 0;
    for (size_t i = 0; i < g->n_dirty_pg_dps; i++) {
        struct pg_name *pn = g->dirty_pg_dps[i].pn;
        struct pg_dp *r = pg_dp_find(pn, g->dirty_pg_dps[i].dp);
        r->dirty = false;
        pg_dp_trim(g, pn, r);
    }
    g->n_dirty_pg_dps = 0;
    deltas_clear(g);
}

/* The same as avoid_taken_pg_uuids(), for address sets. */
static void
avoid_taken_set_uuids(struct groups *g, struct rdb *sb_db)
{
    if (!rdb_count(sb_db, &sb_table_address_set)) {
        return;
    }
    struct as_state *as;
    HMAP_FOR_EACH (as, node, &g->sets) {
        struct group_want w;
        if (!as->has_row && as_want(g, as, &w)) {
            struct uuid uuid = as_derived_uuid(as);
            if (rdb_get(sb_db, &sb_table_address_set, &uuid)) {
                rdb_uuid_generate(&uuid);
                remember_foreign_uuid(g, as, 0, &uuid);
                as->foreign_uuid = true;
            }
        }
    }
}

/* Gives the port groups to insert whose derived UUID a row in the
 * replica's fresh copy has (a row someone renamed, or whose name hashes
 * alike) a random UUID instead: inserting it would fail the transaction,
 * and so would every later one.  Only an SB with rows can have them. */
static void
avoid_taken_pg_uuids(struct groups *g, struct rdb *sb_db)
{
    if (!rdb_count(sb_db, &sb_table_port_group)) {
        return;
    }
    struct pg_name *pn;
    HMAP_FOR_EACH (pn, node, &g->pg_names) {
        for (size_t i = 0; i < pn->n_dps; i++) {
            struct pg_dp *r = &pn->dps[i];
            struct group_want w;
            if (!r->has_row && pg_dp_want(g, pn, r, &w)) {
                struct uuid uuid = pg_dp_derived_uuid(g, pn, r);
                if (rdb_get(sb_db, &sb_table_port_group, &uuid)) {
                    rdb_uuid_generate(&uuid);
                    remember_foreign_uuid(g, pn, r->dp, &uuid);
                    r->foreign_uuid = true;
                }
            }
        }
    }
}

void
groups_sync_sb(struct groups *g, struct rdb *sb_db,
               const struct groups_sb_rows *existing, struct rdb_txn *txn)
{
    /* Address sets. */
    if (existing) {
        sync_sets_from_rows(g, txn, &existing->sets);
    } else {
        const struct sb_address_set *sb_as;
        SB_ADDRESS_SET_FOR_EACH (sb_as, sb_db) {
            struct group_want w;
            struct as_state *as = claimable_set(g, sb_as->name, &w);
            if (!as) {
                delete_row(txn, &sb_table_address_set, &sb_as->header_.uuid);
                continue;
            }
            update_strings(txn, &sb_table_address_set, &sb_as->header_.uuid,
                           SB_ADDRESS_SET_COL_ADDRESSES, sb_as->addresses,
                           sb_as->n_addresses, &w);
            as_set_row(g, as, &sb_as->header_.uuid);
        }
        avoid_taken_set_uuids(g, sb_db);
    }

    /* Port groups. */
    struct hmap key_dps;
    key_dps_init(&key_dps, g->model);
    if (existing) {
        sync_pgs_from_rows(g, txn, &existing->pgs, &key_dps);
    } else {
        const struct sb_port_group *sb;
        SB_PORT_GROUP_FOR_EACH (sb, sb_db) {
            struct group_want w;
            struct pg_name *pn;
            struct pg_dp *r = claimable_pg_dp(g, &key_dps, sb->name, &pn,
                                              &w);
            if (!r) {
                delete_row(txn, &sb_table_port_group, &sb->header_.uuid);
                continue;
            }
            update_strings(txn, &sb_table_port_group, &sb->header_.uuid,
                           SB_PORT_GROUP_COL_PORTS, sb->ports, sb->n_ports,
                           &w);
            pg_dp_set_row(g, pn, r, &sb->header_.uuid);
        }
        avoid_taken_pg_uuids(g, sb_db);
    }
    key_dps_destroy(&key_dps);

    /* The rows to insert: all of them on a cold start (690,000 port groups
     * at 1,000,000 ACLs), so they are produced as the server reads them
     * rather than queued at once. */
    g->next_set = hmap_first(&g->sets);
    g->next_pg = hmap_first(&g->pg_names);
    rdb_txn_add_producer(txn, produce_inserts, g);
    clear_dirty(g);
}

void
groups_sync_sb_dirty(struct groups *g, struct rdb_txn *txn)
{
    for (size_t i = 0; i < g->n_dirty_sets; i++) {
        struct as_state *as = g->dirty_sets[i];
        struct group_want w;
        if (!as_want(g, as, &w)) {
            if (as->has_row) {
                struct uuid uuid = as_uuid(g, as);
                delete_row(txn, &sb_table_address_set, &uuid);
                as_clear_row(g, as);
            }
        } else if (!as->has_row) {
            insert_set(g, txn, as, &w);
        } else {
            struct uuid uuid = as_uuid(g, as);
            if (as->pg) {
                derived_count(g, as);   /* Counted once, then followed. */
            }
            apply_delta(txn, &sb_table_address_set, &uuid,
                        SB_ADDRESS_SET_COL_ADDRESSES, delta_find(g, as, 0), &w);
        }
    }

    for (size_t i = 0; i < g->n_dirty_pg_dps; i++) {
        struct pg_name *pn = g->dirty_pg_dps[i].pn;
        struct pg_dp *r = pg_dp_find(pn, g->dirty_pg_dps[i].dp);
        struct group_want w;
        bool wanted = pg_dp_want(g, pn, r, &w);
        if (!wanted) {
            if (r->has_row) {
                struct uuid uuid = pg_dp_uuid(g, pn, r);
                delete_row(txn, &sb_table_port_group, &uuid);
                pg_dp_clear_row(g, pn, r);
            }
        } else if (!r->has_row) {
            insert_pg(g, txn, pn, r, &w);
        } else {
            struct uuid uuid = pg_dp_uuid(g, pn, r);
            apply_delta(txn, &sb_table_port_group, &uuid,
                        SB_PORT_GROUP_COL_PORTS, delta_find(g, pn, r->dp),
                        &w);
        }
    }
    clear_dirty(g);
}

static int
compare_strings(const void *a_, const void *b_)
{
    const char *const *a = a_;
    const char *const *b = b_;
    return strcmp(*a, *b);
}

const char **
groups_set_addresses(const struct groups *g, const char *name, size_t *n)
{
    struct group_want w;
    const struct as_state *as = as_find(g, name, hash_string(name, 0));
    if (!as || !as_want(g, as, &w)) {
        *n = 0;
        return NULL;
    }
    const char **v = want_array(&w, n);
    if (w.as) {
        qsort(v, *n, sizeof *v, compare_strings);
    }
    /* (The replica keeps NB sets sorted.) */
    return v;
}
