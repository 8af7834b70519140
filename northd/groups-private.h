/* Port groups and address sets: what northd/groups.c (the state) and
 * northd/groups-sync.c (the SB rows) share.  Not for other modules: see
 * groups.h. */
#ifndef NORTHD_GROUPS_PRIVATE_H
#define NORTHD_GROUPS_PRIVATE_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "hash.h"
#include "northd/groups.h"
#include "openvswitch/hmap.h"
#include "sset.h"
#include "util.h"

struct nb_address_set;

/* What joined and left a set since its SB row was last written, so that
 * a big set is updated without being compared (the replica has no copy of
 * the row to compare with).  'whole': the set was replaced, not changed
 * member by member: write all of it. */
struct set_delta {
    struct hmap_node node;          /* In groups 'deltas', by
                                     * groups_row_hash(). */
    const void *owner;              /* The row's struct as_state, or its
                                     * port group's struct pg_name... */
    uint32_t dp;                    /* ...and datapath (0 for a set). */
    struct sset add;
    struct sset del;
    bool whole;
};

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
    bool fixed : 1;                 /* northd's own: holds groups
                                     * 'fixed_addr' (unless an NB set has
                                     * the name: 'nb' comes first). */
    const struct shash *ext;        /* Another module's set (groups_ext_*()
                                     * in groups.h): the names of this
                                     * shash, which that module keeps. */
    bool ext_wanted : 1;            /* Another module wanted the name, which
                                     * was taken. */
};


/* The hash of an SB row's key in 'deltas' and 'foreign': its struct
 * as_state, or its port group's struct pg_name and its datapath. */
static inline uint32_t
groups_row_hash(const void *owner, uint32_t dp)
{
    return hash_pointer(owner, dp);
}

/* True if 'as' is a set northd should write (rather than a row to
 * delete). */
static inline bool
groups_as_exists(const struct as_state *as)
{
    return as && (as->nb || as->pg || as->fixed || as->ext);
}

/* In groups.c: the state. */
struct set_delta *groups_delta_find(const struct groups *,
                                    const void *owner, uint32_t dp);
void groups_deltas_clear(struct groups *);
struct pg_name *groups_pg_name_find(const struct groups *, const char *name,
                                    uint32_t hash);
struct pg_dp *groups_pg_dp_find(const struct pg_name *, size_t dp);
void groups_pg_dp_trim(struct groups *, struct pg_name *, struct pg_dp *);
struct as_state *groups_as_find(const struct groups *, const char *name,
                                uint32_t hash);
void groups_as_trim(struct groups *, struct as_state *);
size_t groups_derived_ips(const struct groups *, const struct as_state *,
                          const char **v, char *buf);
size_t groups_derived_count(struct groups *, struct as_state *);

/* In groups-sync.c: the SB rows. */
void groups_forget_foreign_uuid(struct groups *, const void *owner,
                                uint32_t dp);
void groups_foreign_destroy(struct groups *);

#endif /* northd/groups-private.h */
