/* The SB Port_Group and Address_Set rows of port groups and address
 * sets; see groups.h.  What they should hold is northd/groups.c's. */
#include <config.h>
#include "northd/groups.h"
#include "northd/groups-private.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "coverage.h"
#include "hash.h"
#include "lib/counting-sort.h"
#include "lib/decimal.h"
#include "lib/index-chain.h"
#include "lib/nb-rdb.h"
#include "lib/rdb.h"
#include "lib/sb-rdb.h"
#include "northd/datapaths.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "sset.h"
#include "util.h"
#include "uuid.h"
#include "uuidset.h"

VLOG_DEFINE_THIS_MODULE(groups_sync);

COVERAGE_DEFINE(sb_group_deleted);
COVERAGE_DEFINE(sb_group_repaired);
COVERAGE_DEFINE(sb_group_inserted);
COVERAGE_DEFINE(sb_group_mutated);
COVERAGE_DEFINE(sb_group_rewritten);

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

/* The UUID of an SB row that is not the one northd derives for it: one
 * some other writer inserted (a stock ovn-northd before this one), or one
 * northd chose because another row already had the derived one.  Keyed
 * like a delta, so only such rows cost anything. */
struct foreign_row {
    struct hmap_node node;          /* In groups 'foreign', by
                                     * groups_row_hash(). */
    const void *owner;
    uint32_t dp;
    struct uuid uuid;
};

static struct foreign_row *
foreign_row_find(const struct groups *g, const void *owner, uint32_t dp)
{
    struct foreign_row *fr;
    HMAP_FOR_EACH_WITH_HASH (fr, node, groups_row_hash(owner, dp),
                             &g->foreign) {
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
        hmap_insert(&g->foreign, &fr->node, groups_row_hash(owner, dp));
    }
    fr->uuid = *uuid;
}

void
groups_forget_foreign_uuid(struct groups *g, const void *owner, uint32_t dp)
{
    struct foreign_row *fr = foreign_row_find(g, owner, dp);
    if (fr) {
        hmap_remove(&g->foreign, &fr->node);
        free(fr);
    }
}

/* Frees 'g->foreign', which groups_init() initialized. */
void
groups_foreign_destroy(struct groups *g)
{
    struct foreign_row *fr;
    HMAP_FOR_EACH_POP (fr, node, &g->foreign) {
        free(fr);
    }
    hmap_destroy(&g->foreign);
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
    const struct shash *ext;        /* Another module's set: its names. */
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
        .addrs = (nb ? (const char *const *) nb->addresses
                  : as->fixed ? (const char *const *) &g->fixed_addr
                  : NULL),
        .n_addrs = nb ? nb->n_addresses : as->fixed ? 1 : 0,
        .as = as->pg ? as : NULL,
        .ext = !nb && !as->pg && !as->fixed ? as->ext : NULL,
    };
    /* Another module's set has a row only while it has addresses. */
    return groups_as_exists(as) && (!w->ext || !shash_is_empty(w->ext));
}

static size_t
want_count(const struct group_want *w)
{
    if (w->as) {
        return (w->as->n_known ? w->as->n_addrs
                : groups_derived_ips(w->g, w->as, NULL, NULL));
    } else if (w->n_addrs) {
        return w->n_addrs;
    } else if (w->ext) {
        return shash_count(w->ext);
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
    *n = groups_derived_ips(w->g, w->as, v, (char *) (v + max));
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
    if (w->ext) {
        const char **v = xmalloc(MAX(*n, 1) * sizeof *v);
        size_t i = 0;
        const struct shash_node *node;
        SHASH_FOR_EACH (node, w->ext) {
            v[i++] = node->name;
        }
        return v;
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
        groups_forget_foreign_uuid(g, pn, r->dp);
    }
}

/* Takes note that entry 'r' of 'pn' has no SB row. */
static void
pg_dp_clear_row(struct groups *g, struct pg_name *pn, struct pg_dp *r)
{
    r->has_row = false;
    if (r->foreign_uuid) {
        r->foreign_uuid = false;
        groups_forget_foreign_uuid(g, pn, r->dp);
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
        groups_forget_foreign_uuid(g, as, 0);
    }
}

/* Takes note that 'as' has no SB row. */
static void
as_clear_row(struct groups *g, struct as_state *as)
{
    as->has_row = false;
    if (as->foreign_uuid) {
        as->foreign_uuid = false;
        groups_forget_foreign_uuid(g, as, 0);
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

/* The tunnel key an SB port group's name "<key>_<pg>" starts with, in
 * '*key', and the port group's name; false if it is not such a name. */
static bool
split_sb_pg_name(const char *sb_name, uint32_t *key, const char **pg_name)
{
    /* Only the spelling sb_pg_name() gives: ovn-controller looks up no
     * other. */
    if (!isdigit((unsigned char) *sb_name) || *sb_name == '0') {
        return false;
    }
    char *end;
    errno = 0;
    unsigned long k = strtoul(sb_name, &end, 10);
    if (errno || *end != '_' || k > UINT32_MAX) {
        return false;
    }
    *key = k;
    *pg_name = end + 1;
    return true;
}

/* Reads SB port group name 'sb_name' into the datapath it is for and the
 * port group's name (a pointer into 'sb_name').  False if it is not such
 * a name, or no switch has the key. */
static bool
parse_sb_pg_name(const struct hmap *key_dps, const char *sb_name,
                 size_t *dp, const char **pg_name)
{
    uint32_t key;
    if (!split_sb_pg_name(sb_name, &key, pg_name)) {
        return false;
    }
    const struct key_dp *kd;
    HMAP_FOR_EACH_WITH_HASH (kd, node, hash_int(key, 0), key_dps) {
        if (kd->key == key) {
            *dp = kd->dp;
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

/* An SB row found by its name: one the last pass left, or one of the
 * replica's fresh copy whose UUID is not the one derived from its name. */
struct sb_group_row {
    struct uuid uuid;
    uint64_t content;               /* content_hash() of what it holds... */
    bool known;                     /* ...if known. */
};

/* A row of the replica's fresh copy whose UUID is the one derived from
 * its name: the group it is for finds it by that UUID, so its name need
 * not be kept.  After a restart nearly every row is one. */
struct sb_derived_row {
    struct uuid uuid;
    uint64_t content;               /* content_hash() of what it holds. */
    uint32_t next;                  /* Next in its chain, or
                                     * INDEX_CHAIN_END. */
    bool is_pg;                     /* Port_Group, else Address_Set. */
    bool claimed;                   /* A group took it. */
};

/* The SB rows a full sync compares with: the summary of a fresh copy
 * lets the replica forget the rows before the compile, rather than hold
 * them at its peak (at 200,000 ACLs, 190,000 rows of 18 MB of strings). */
struct groups_sb_rows {
    struct shash sets;              /* Name -> struct sb_group_row *. */
    struct shash pgs;               /* SB name -> struct sb_group_row *. */
    struct sb_derived_row *derived; /* Array of 'n_derived'... */
    size_t n_derived;
    struct index_chain by_uuid;     /* ...by uuid_hash(). */
    struct uuidset taken;           /* UUIDs of the rows in 'sets' and
                                     * 'pgs' of a fresh copy: a group to
                                     * insert cannot have one. */
};

static struct groups_sb_rows *
sb_rows_create(void)
{
    struct groups_sb_rows *rows = xzalloc(sizeof *rows);
    shash_init(&rows->sets);
    shash_init(&rows->pgs);
    uuidset_init(&rows->taken);
    return rows;
}

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

    struct groups_sb_rows *rows = sb_rows_create();

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

/* content_hash() of the 'n' strings 'v' an SB row holds. */
static uint64_t
content_hash_strings(char **v, size_t n)
{
    uint64_t h = n * UINT64_C(0x9e3779b97f4a7c15);
    for (size_t i = 0; i < n; i++) {
        h += content_hash_one(v[i]);
    }
    return h;
}

static void
sb_derived_row_add(struct groups_sb_rows *rows, const struct uuid *uuid,
                   uint64_t content, bool is_pg)
{
    struct sb_derived_row *r = &rows->derived[rows->n_derived++];
    r->uuid = *uuid;
    r->content = content;
    r->is_pg = is_pg;
    r->claimed = false;
}

/* Adds an SB row of the fresh copy that is found by its name. */
static void
sb_named_row_add(struct groups_sb_rows *rows, struct shash *by_name,
                 const char *name, const struct uuid *uuid, uint64_t content)
{
    /* Of two rows with one name (a schema without the unique index), the
     * group claims the first and the second goes. */
    struct sb_group_row *r = sb_group_row_add(by_name, name, uuid);
    r->known = true;
    r->content = content;
    uuidset_insert(&rows->taken, uuid);
}

struct groups_sb_rows *
groups_sb_rows_from_replica(struct rdb *sb_db)
{
    struct groups_sb_rows *rows = sb_rows_create();
    rows->derived = xmalloc(MAX(1, sb_address_set_count(sb_db)
                                   + sb_port_group_count(sb_db))
                            * sizeof *rows->derived);

    const struct sb_address_set *sb_as;
    SB_ADDRESS_SET_FOR_EACH (sb_as, sb_db) {
        uint64_t content = content_hash_strings(sb_as->addresses,
                                                sb_as->n_addresses);
        struct uuid derived = derive_uuid(0, sb_as->name);
        if (uuid_equals(&derived, &sb_as->header_.uuid)) {
            sb_derived_row_add(rows, &derived, content, false);
        } else {
            sb_named_row_add(rows, &rows->sets, sb_as->name,
                             &sb_as->header_.uuid, content);
        }
    }

    const struct sb_port_group *sb_pg;
    SB_PORT_GROUP_FOR_EACH (sb_pg, sb_db) {
        uint64_t content = content_hash_strings(sb_pg->ports,
                                                sb_pg->n_ports);
        uint32_t key;
        const char *pg_name;
        struct uuid derived;
        if (split_sb_pg_name(sb_pg->name, &key, &pg_name)
            && (derived = derive_uuid(key, pg_name),
                uuid_equals(&derived, &sb_pg->header_.uuid))) {
            sb_derived_row_add(rows, &derived, content, true);
        } else {
            sb_named_row_add(rows, &rows->pgs, sb_pg->name,
                             &sb_pg->header_.uuid, content);
        }
    }

    index_chain_init(&rows->by_uuid, rows->n_derived);
    for (size_t i = 0; i < rows->n_derived; i++) {
        struct sb_derived_row *r = &rows->derived[i];
        r->next = index_chain_add(&rows->by_uuid, uuid_hash(&r->uuid), i);
    }
    return rows;
}

void
groups_sb_rows_destroy(struct groups_sb_rows *rows)
{
    if (rows) {
        shash_destroy_free_data(&rows->sets);
        shash_destroy_free_data(&rows->pgs);
        index_chain_destroy(&rows->by_uuid);
        free(rows->derived);
        uuidset_destroy(&rows->taken);
        free(rows);
    }
}

/* The derived row 'uuid' of 'rows', if there is one. */
static struct sb_derived_row *
derived_row_get(const struct groups_sb_rows *rows, const struct uuid *uuid)
{
    if (!rows->n_derived) {
        return NULL;
    }
    for (uint32_t i = index_chain_first(&rows->by_uuid, uuid_hash(uuid));
         i != INDEX_CHAIN_END; i = rows->derived[i].next) {
        if (uuid_equals(&rows->derived[i].uuid, uuid)) {
            return &rows->derived[i];
        }
    }
    return NULL;
}

/* The derived row 'uuid' of the table 'is_pg' says, if 'rows' has one no
 * group took yet. */
static struct sb_derived_row *
derived_row_find(const struct groups_sb_rows *rows, const struct uuid *uuid,
                 bool is_pg)
{
    struct sb_derived_row *r = derived_row_get(rows, uuid);
    return r && r->is_pg == is_pg && !r->claimed ? r : NULL;
}

/* True if a group northd is about to insert cannot have the row UUID
 * 'uuid' because a row of the SB has it (a row someone renamed, or whose
 * name hashes alike): inserting it would fail the transaction, and so
 * would every later one. */
static bool
uuid_taken(const struct groups_sb_rows *rows, const struct uuid *uuid)
{
    return (derived_row_get(rows, uuid)
            || uuidset_find(&rows->taken, uuid) != NULL);
}

/* The set of the SB address set named 'name' if northd wants that row and
 * has not found it yet, with what it should hold in '*w'; NULL if the row
 * is to go. */
static struct as_state *
claimable_set(const struct groups *g, const char *name, struct group_want *w)
{
    struct as_state *as = groups_as_find(g, name, hash_string(name, 0));
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
    struct pg_name *pn = groups_pg_name_find(g, pg_name,
                                             hash_string(pg_name, 0));
    struct pg_dp *r = pn ? groups_pg_dp_find(pn, dp) : NULL;
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
        groups_as_trim(g, as);
    }
    g->n_dirty_sets = 0;
    for (size_t i = 0; i < g->n_dirty_pg_dps; i++) {
        struct pg_name *pn = g->dirty_pg_dps[i].pn;
        struct pg_dp *r = groups_pg_dp_find(pn, g->dirty_pg_dps[i].dp);
        r->dirty = false;
        groups_pg_dp_trim(g, pn, r);
    }
    g->n_dirty_pg_dps = 0;
    groups_deltas_clear(g);
}

/* For each group that wants a row and has none yet: takes the row of
 * 'rows' under the UUID derived from its name, writing it whole if its
 * content differs, or, if another row has that UUID (see uuid_taken()),
 * chooses a random one for the insert.  Then deletes the derived rows no
 * group took. */
static void
claim_derived_rows(struct groups *g, struct rdb_txn *txn,
                   struct groups_sb_rows *rows)
{
    struct as_state *as;
    HMAP_FOR_EACH (as, node, &g->sets) {
        struct group_want w;
        if (as->has_row || !as_want(g, as, &w)) {
            continue;
        }
        struct uuid uuid = as_derived_uuid(as);
        struct sb_derived_row *r = derived_row_find(rows, &uuid, false);
        if (r) {
            r->claimed = true;
            if (r->content != content_hash(&w)) {
                write_whole(txn, &sb_table_address_set, &uuid,
                            SB_ADDRESS_SET_COL_ADDRESSES, &w);
            }
            as_set_row(g, as, &uuid);
        } else if (uuid_taken(rows, &uuid)) {
            rdb_uuid_generate(&uuid);
            remember_foreign_uuid(g, as, 0, &uuid);
            as->foreign_uuid = true;
        }
    }

    struct pg_name *pn;
    HMAP_FOR_EACH (pn, node, &g->pg_names) {
        for (size_t i = 0; i < pn->n_dps; i++) {
            struct pg_dp *pd = &pn->dps[i];
            struct group_want w;
            if (pd->has_row || !pg_dp_want(g, pn, pd, &w)) {
                continue;
            }
            struct uuid uuid = pg_dp_derived_uuid(g, pn, pd);
            struct sb_derived_row *r = derived_row_find(rows, &uuid, true);
            if (r) {
                r->claimed = true;
                if (r->content != content_hash(&w)) {
                    write_whole(txn, &sb_table_port_group, &uuid,
                                SB_PORT_GROUP_COL_PORTS, &w);
                }
                pg_dp_set_row(g, pn, pd, &uuid);
            } else if (uuid_taken(rows, &uuid)) {
                rdb_uuid_generate(&uuid);
                remember_foreign_uuid(g, pn, pd->dp, &uuid);
                pd->foreign_uuid = true;
            }
        }
    }

    for (size_t i = 0; i < rows->n_derived; i++) {
        const struct sb_derived_row *r = &rows->derived[i];
        if (!r->claimed) {
            delete_row(txn, (r->is_pg ? &sb_table_port_group
                             : &sb_table_address_set), &r->uuid);
        }
    }
}

void
groups_sync_sb(struct groups *g, struct groups_sb_rows *existing,
               struct rdb_txn *txn)
{
    /* Rows found by name first: a group whose row that is does not
     * claim a derived one too. */
    sync_sets_from_rows(g, txn, &existing->sets);
    struct hmap key_dps;
    key_dps_init(&key_dps, g->model);
    sync_pgs_from_rows(g, txn, &existing->pgs, &key_dps);
    key_dps_destroy(&key_dps);
    if (existing->n_derived || !uuidset_is_empty(&existing->taken)) {
        claim_derived_rows(g, txn, existing);
    }

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
                /* Counted once, then followed. */
                groups_derived_count(g, as);
            }
            apply_delta(txn, &sb_table_address_set, &uuid,
                        SB_ADDRESS_SET_COL_ADDRESSES,
                        groups_delta_find(g, as, 0), &w);
        }
    }

    for (size_t i = 0; i < g->n_dirty_pg_dps; i++) {
        struct pg_name *pn = g->dirty_pg_dps[i].pn;
        struct pg_dp *r = groups_pg_dp_find(pn, g->dirty_pg_dps[i].dp);
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
                        SB_PORT_GROUP_COL_PORTS,
                        groups_delta_find(g, pn, r->dp), &w);
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
    const struct as_state *as = groups_as_find(g, name, hash_string(name, 0));
    if (!as || !as_want(g, as, &w)) {
        *n = 0;
        return NULL;
    }
    const char **v = want_array(&w, n);
    if (w.as || w.ext) {
        qsort(v, *n, sizeof *v, compare_strings);
    }
    /* (The replica keeps NB sets sorted.) */
    return v;
}

/* Adds the UUIDs of the rows of 'tc' that someone else inserted or changed
 * since the last pass to 'uuids'. */
static void
collect_foreign(struct rdb *sb_db, const struct rdb_table_class *tc,
                struct uuidset *uuids)
{
    for (const struct rdb_row *row = rdb_track_first(sb_db, tc); row;
         row = rdb_track_next(row)) {
        if (rdb_row_is_foreign(row) && !rdb_row_is_deleted(row)) {
            uuidset_insert(uuids, &row->uuid);
        }
    }
}

void
groups_repair_sb(struct groups *g, struct rdb *sb_db, struct rdb_txn *txn)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);
    struct uuidset sets = UUIDSET_INITIALIZER(&sets);
    struct uuidset pgs = UUIDSET_INITIALIZER(&pgs);
    collect_foreign(sb_db, &sb_table_address_set, &sets);
    collect_foreign(sb_db, &sb_table_port_group, &pgs);
    if (uuidset_is_empty(&sets) && uuidset_is_empty(&pgs)) {
        /* The usual pass: nobody else wrote a group. */
        uuidset_destroy(&sets);
        uuidset_destroy(&pgs);
        return;
    }

    struct as_state *as;
    HMAP_FOR_EACH (as, node, &g->sets) {
        if (uuidset_is_empty(&sets)) {
            break;
        }
        struct uuid uuid;
        struct group_want w;
        if (!as->has_row || (uuid = as_uuid(g, as),
                             !uuidset_find_and_delete(&sets, &uuid))) {
            continue;
        }
        if (!as_want(g, as, &w)) {
            /* Its row goes anyway (a pass will delete it). */
            uuidset_insert(&sets, &uuid);
            continue;
        }
        VLOG_INFO_RL(&rl, "rewrote Address_Set %s, which someone else "
                     "changed ("UUID_FMT")", as->name, UUID_ARGS(&uuid));
        write_whole(txn, &sb_table_address_set, &uuid,
                    SB_ADDRESS_SET_COL_ADDRESSES, &w);
        rdb_txn_set_string(txn, SB_ADDRESS_SET_COL_NAME, as->name);
        COVERAGE_INC(sb_group_repaired);
    }

    struct pg_name *pn;
    HMAP_FOR_EACH (pn, node, &g->pg_names) {
        if (uuidset_is_empty(&pgs)) {
            break;
        }
        for (size_t i = 0; i < pn->n_dps && !uuidset_is_empty(&pgs); i++) {
            struct pg_dp *pd = &pn->dps[i];
            if (!pd->has_row || pd->dp >= g->model->n_datapaths) {
                continue;
            }
            struct uuid uuid = pg_dp_uuid(g, pn, pd);
            struct group_want w;
            if (!uuidset_find_and_delete(&pgs, &uuid)) {
                continue;
            }
            if (!pg_dp_want(g, pn, pd, &w)) {
                uuidset_insert(&pgs, &uuid);
                continue;
            }
            char *sb_name = sb_pg_name(
                g->model->dp_array[pd->dp]->tunnel_key, pn->name);
            VLOG_INFO_RL(&rl, "rewrote Port_Group %s, which someone else "
                         "changed ("UUID_FMT")", sb_name, UUID_ARGS(&uuid));
            write_whole(txn, &sb_table_port_group, &uuid,
                        SB_PORT_GROUP_COL_PORTS, &w);
            rdb_txn_set_string(txn, SB_PORT_GROUP_COL_NAME, sb_name);
            free(sb_name);
            COVERAGE_INC(sb_group_repaired);
        }
    }

    struct uuidset_node *node;
    UUIDSET_FOR_EACH (node, &sets) {
        VLOG_INFO_RL(&rl, "removed an Address_Set northd did not write: "
                     UUID_FMT, UUID_ARGS(&node->uuid));
        delete_row(txn, &sb_table_address_set, &node->uuid);
    }
    UUIDSET_FOR_EACH (node, &pgs) {
        VLOG_INFO_RL(&rl, "removed a Port_Group northd did not write: "
                     UUID_FMT, UUID_ARGS(&node->uuid));
        delete_row(txn, &sb_table_port_group, &node->uuid);
    }
    uuidset_destroy(&sets);
    uuidset_destroy(&pgs);
}

/* Comparing two states. */

struct want_row {
    uint64_t content;
    bool seen;
};

/* Adds to 'rows' what the SB Address_Set and Port_Group rows of 'g' should
 * hold, by name (a port group's with its switch's NB row rather than its
 * tunnel key, which two models may choose differently). */
static void
want_rows(const struct groups *g, struct shash *rows)
{
    const struct as_state *as;
    HMAP_FOR_EACH (as, node, &g->sets) {
        struct group_want w;
        if (as_want(g, as, &w)) {
            struct want_row *r = xzalloc(sizeof *r);
            r->content = content_hash(&w);
            shash_add_nocopy(rows, xasprintf("Address_Set %s", as->name), r);
        }
    }
    const struct pg_name *pn;
    HMAP_FOR_EACH (pn, node, &g->pg_names) {
        for (size_t i = 0; i < pn->n_dps; i++) {
            struct group_want w;
            if (pg_dp_want(g, pn, &pn->dps[i], &w)) {
                const struct ls_datapath *dp
                    = g->model->dp_array[pn->dps[i].dp];
                struct want_row *r = xzalloc(sizeof *r);
                r->content = content_hash(&w);
                shash_add_nocopy(rows, xasprintf(
                                     "Port_Group %s on switch "UUID_FMT,
                                     pn->name,
                                     UUID_ARGS(&dp->nb->header_.uuid)), r);
            }
        }
    }
}

size_t
groups_diff(const struct groups *a, const struct groups *b, struct ds *out,
            size_t max_report)
{
    struct shash rows_a = SHASH_INITIALIZER(&rows_a);
    struct shash rows_b = SHASH_INITIALIZER(&rows_b);
    want_rows(a, &rows_a);
    want_rows(b, &rows_b);

    size_t n_diff = 0;
    const struct shash_node **sorted = shash_sort(&rows_a);
    for (size_t i = 0; i < shash_count(&rows_a); i++) {
        const struct want_row *ra = sorted[i]->data;
        struct want_row *rb = shash_find_data(&rows_b, sorted[i]->name);
        const char *what = (!rb ? "only in the first"
                            : rb->content != ra->content ? "different"
                            : NULL);
        if (rb) {
            rb->seen = true;
        }
        if (what && n_diff++ < max_report) {
            ds_put_format(out, "%s: %s\n", sorted[i]->name, what);
        }
    }
    free(sorted);
    sorted = shash_sort(&rows_b);
    for (size_t i = 0; i < shash_count(&rows_b); i++) {
        const struct want_row *rb = sorted[i]->data;
        if (!rb->seen && n_diff++ < max_report) {
            ds_put_format(out, "%s: only in the second\n", sorted[i]->name);
        }
    }
    free(sorted);
    shash_destroy_free_data(&rows_a);
    shash_destroy_free_data(&rows_b);
    return n_diff;
}
