/* Port group and address set state; see groups.h.  Their SB rows are
 * northd/groups-sync.c's. */
#include <config.h>
#include "northd/groups.h"
#include "northd/groups-private.h"

#include <string.h>

#include "bitmap.h"
#include "hash.h"
#include "hmapx.h"
#include "lib/nb-rdb.h"
#include "lib/rdb.h"
#include "lib/strpool.h"
#include "northd/datapaths.h"
#include "northd/dpset.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "util.h"
#include "uuid.h"

VLOG_DEFINE_THIS_MODULE(groups);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

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

struct set_delta *
groups_delta_find(const struct groups *g, const void *owner, uint32_t dp)
{
    struct set_delta *d;
    HMAP_FOR_EACH_WITH_HASH (d, node, groups_row_hash(owner, dp),
                             &g->deltas) {
        if (d->owner == owner && d->dp == dp) {
            return d;
        }
    }
    return NULL;
}

static struct set_delta *
delta_get(struct groups *g, const void *owner, uint32_t dp)
{
    struct set_delta *d = groups_delta_find(g, owner, dp);
    if (!d) {
        d = xmalloc(sizeof *d);
        d->owner = owner;
        d->dp = dp;
        sset_init(&d->add);
        sset_init(&d->del);
        d->whole = false;
        hmap_insert(&g->deltas, &d->node, groups_row_hash(owner, dp));
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

void
groups_deltas_clear(struct groups *g)
{
    struct set_delta *d;
    HMAP_FOR_EACH_POP (d, node, &g->deltas) {
        sset_destroy(&d->add);
        sset_destroy(&d->del);
        free(d);
    }
}

/* The name 'name' (whose hash_string() is 'hash'), or NULL. */
struct pg_name *
groups_pg_name_find(const struct groups *g, const char *name, uint32_t hash)
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
    struct pg_name *pn = groups_pg_name_find(g, name, hash);
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
    const struct pg_name *pn = groups_pg_name_find(g, name,
                                                   hash_string(name, 0));
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
struct pg_dp *
groups_pg_dp_find(const struct pg_name *pn, size_t dp)
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
void
groups_pg_dp_trim(struct groups *g, struct pg_name *pn, struct pg_dp *r)
{
    if (r->n_ports || r->n_refs || r->has_row || r->dirty) {
        return;
    }
    if (r->foreign_uuid) {
        groups_forget_foreign_uuid(g, pn, r->dp);
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

/* The set named 'name' (whose hash_string() is 'hash'), or NULL. */
struct as_state *
groups_as_find(const struct groups *g, const char *name, uint32_t hash)
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
    struct as_state *as = groups_as_find(g, name, hash);
    if (!as) {
        as = xzalloc(sizeof *as);
        as->name = strpool_get(name);
        hmap_insert(&g->sets, &as->node, hash);
    }
    return as;
}

/* Frees 'as' if it no longer says anything. */
void
groups_as_trim(struct groups *g, struct as_state *as)
{
    if (!as->nb && !as->pg && !as->fixed && !as->ext && !as->has_row
        && !as->dirty) {
        if (as->foreign_uuid) {
            groups_forget_foreign_uuid(g, as, 0);
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
    struct pg_name *pn = groups_pg_name_find(g, pg->name, pg->name_hash);
    return pn && pn->owner == pg ? pn : NULL;
}

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
        groups_pg_dp_trim(g, pn, r);
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
    return groups_as_exists(groups_as_find(g, name, hash_string(name, 0)));
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
        if (groups_as_exists(as)) {
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
groups_add_fixed_set(struct groups *g, const char *name, const char *addr)
{
    ovs_assert(!g->fixed_addr);
    g->fixed_addr = xstrdup(addr);
    bool building = g->building;
    g->building = true;
    struct as_state *as = as_get(g, name);
    as->fixed = true;
    g->building = building;
}

bool
groups_ext_set_put(struct groups *g, const char *name,
                   const struct shash *addrs)
{
    struct as_state *as = as_get(g, name);
    if (as->nb || as->pg || as->fixed || (as->ext && as->ext != addrs)) {
        /* Whoever has it, letting it go is for a full pass to follow. */
        as->ext_wanted = true;
        return false;
    }
    if (!as->ext) {
        as->ext = addrs;
        delta_set_whole(g, as, 0);
        mark_set_changed(g, as, NULL);
    }
    return true;
}

void
groups_ext_set_changed(struct groups *g, const char *name, const char *addr,
                       bool add)
{
    struct as_state *as = groups_as_find(g, name, hash_string(name, 0));
    if (as && as->ext) {
        delta_record(g, as, 0, addr, add);
        mark_set_changed(g, as, NULL);
    }
}

void
groups_ext_set_drop(struct groups *g, const char *name)
{
    struct as_state *as = groups_as_find(g, name, hash_string(name, 0));
    if (as && as->ext) {
        as->ext = NULL;
        delta_set_whole(g, as, 0);
        mark_set_changed(g, as, NULL);
        groups_as_trim(g, as);
    }
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
    free(g->fixed_addr);
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
    groups_foreign_destroy(g);
    groups_deltas_clear(g);
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
    groups_pg_dp_trim(g, pn, r);
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
            groups_as_trim(g, as);
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
    struct as_state *as = groups_as_find(g, row->name,
                                         hash_string(row->name, 0));
    if (is_new || is_deleted) {
        /* Names shared with another set, or with a derived one, are for a
         * full pass to sort out. */
        if (is_derived_name(g, row->name)
            || (as && (as->ext || as->ext_wanted))
            || (is_new ? groups_as_exists(as) : !as || as->nb != row)) {
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
        groups_as_trim(g, as);
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
    if (groups_delta_find(g, as, 0)) {
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

/* The addresses of derived set 'as': each address of family 'as->family'
 * of each member of its group, unless that member has it twice or an
 * earlier member has it too.  Returns how many; with 'v' nonnull, also
 * writes them as text one after another from 'buf' and points 'v' at
 * them. */
size_t
groups_derived_ips(const struct groups *g, const struct as_state *as,
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
size_t
groups_derived_count(struct groups *g, struct as_state *as)
{
    if (!as->n_known) {
        as->n_addrs = groups_derived_ips(g, as, NULL, NULL);
        as->n_known = true;
    }
    return as->n_addrs;
}

