/* Port groups and address sets: the state northd keeps about them across
 * passes, and their SB rows, named the way ovn-controller 23.03 resolves
 * "@pg" (per datapath: "<tunnel key>_<pg>") and "$as" (NB address sets,
 * plus "<pg>_ip4" / "<pg>_ip6" built from the addresses of each port
 * group's members).
 *
 * groups_init() builds everything from the NB replica and the model;
 * the groups_handle_*() functions then follow single NB changes, and
 * remember which SB rows they touched for groups_sync_sb_dirty().  State
 * borrows NB rows (valid while the rows exist) and the model's ports. */
#ifndef NORTHD_GROUPS_H
#define NORTHD_GROUPS_H 1

#include <stdbool.h>
#include <stddef.h>
#include "openvswitch/hmap.h"
#include "openvswitch/uuid.h"
#include "sset.h"

struct as_state;
struct dpset;
struct groups_sb_rows;
struct hmapx;
struct ls_model;
struct ls_port;
struct nb_address_set;
struct nb_port_group;
struct pg_name;
struct rdb;
struct rdb_txn;

/* A port group on a switch: its name (groups-private.h) and datapath. */
struct pg_dp_ref {
    struct pg_name *pn;
    uint32_t dp;
};

/* One NB port group. */
struct pg_state {
    struct hmap_node node;          /* In groups 'pgs', by NB UUID. */
    struct uuid uuid;
    const struct nb_port_group *nb;
    const char *name;               /* As last seen ('nb' may be gone), a
                                     * strpool reference. */
    const struct dpset *span;       /* Datapaths with a member, a counted
                                     * reference to a shared set (the
                                     * group's ACLs have the same one)... */
    const unsigned long *dps;       /* ...and its bitmap ('dp_cap' bits). */
    /* Members: the NB ports it lists, sorted by row UUID, in two arrays
     * exactly as long as they need to be: those in the model ("applied":
     * they count in 'dps', in the switches' SB port groups and in the
     * derived sets; borrowed from the model, which tells groups.c before
     * it frees or changes one), and the rest, by row UUID. */
    const struct ls_port **ports;
    struct uuid *absent;
    uint32_t n_ports, n_absent;
    struct as_state *sets[2];       /* Its "<name>_ip4" and "<name>_ip6"
                                     * (groups.c), NULL if it does not own
                                     * its name or an NB set has it. */
    uint32_t name_hash;             /* hash_string() of 'name'. */
};

struct groups {
    const struct ls_model *model;
    bool building;                  /* In groups_init(): a full sync
                                     * follows, nothing to mark dirty. */
    size_t dp_cap;
    struct hmap pgs;                /* "struct pg_state"s. */
    struct hmap pg_names;           /* "struct pg_name"s (groups.c): each
                                     * port group name, the pg_state that
                                     * owns it, and its SB port groups. */
    struct hmap port_pgs;           /* "struct port_pgs"s (groups.c): by
                                     * NB port row, the pg_states listing
                                     * it. */
    struct hmap port_ips[2];        /* "struct port_ip"s (groups.c): the
                                     * IPv4 and IPv6 addresses of the
                                     * model's ports. */

    /* Address sets by name: "struct as_state"s (groups.c), the NB's,
     * those derived from port groups ("<pg>_ip4/6"), and those whose SB
     * row is still to be deleted. */
    struct hmap sets;

    /* Which SB rows exist, as last written, 'sets' and 'pg_names' say.
     * The SB replica keeps these tables only in a fresh copy (lib/sb.rdb),
     * so that is which rows northd's last pass left, and the wanted
     * contents what they hold (but for the dirty ones below). */

    /* The UUIDs of the SB rows that do not have the one northd derives
     * from their names ("struct foreign_row"s, groups.c). */
    struct hmap foreign;

    unsigned long *scratch_dps;     /* A bitmap of 'dp_cap' bits. */

    struct pg_state **dead_pgs;     /* Deleted this pass, freed by
                                     * groups_end_pass(). */
    size_t n_dead_pgs;
    struct as_state **dirty_sets;   /* Address sets to sync. */
    size_t n_dirty_sets, allocated_dirty_sets;
    struct pg_dp_ref *dirty_pg_dps; /* Port groups by switch to sync. */
    size_t n_dirty_pg_dps, allocated_dirty_pg_dps;
    struct hmap deltas;             /* "struct set_delta"s: what joined
                                     * and left a dirty set or port group
                                     * on a switch. */

    /* The address of the set northd makes itself (groups_add_fixed_set()),
     * or NULL. */
    char *fixed_addr;

    /* A full sync's inserts, produced while its transaction is sent:
     * where production is in 'sets', then in 'pg_names'. */
    struct hmap_node *next_set;
    struct hmap_node *next_pg;
};

void groups_init(struct groups *, const struct ls_model *, size_t dp_cap,
                 struct rdb *nb_db);
void groups_destroy(struct groups *);

/* Adds the address set 'name' holding the one address 'addr', which stock
 * ovn-northd writes too ("svc_monitor_mac", for ovn-controller's
 * "$svc_monitor_mac": northd/lb-health.h).  Call once, after
 * groups_init(); an NB set of that name is written instead while there is
 * one. */
void groups_add_fixed_set(struct groups *, const char *name,
                          const char *addr);

/* Address sets another module makes (northd/lb.c's, of load balancers'
 * VIPs and backends).  groups_ext_set_put() claims 'name' for the
 * addresses that are the names of 'addrs', which the caller keeps valid
 * (until groups_ext_set_drop() or groups_destroy()) and whose every
 * change it reports with groups_ext_set_changed().  It returns false,
 * claiming nothing, if an NB set, a port group's or northd's fixed set
 * has the name.  An NB set that takes or leaves such a name is left to a
 * full pass (groups_handle_as() returns false). */
struct shash;
bool groups_ext_set_put(struct groups *, const char *name,
                        const struct shash *addrs);
void groups_ext_set_changed(struct groups *, const char *name,
                            const char *addr, bool add);
void groups_ext_set_drop(struct groups *, const char *name);

/* Frees what the pass's changes made obsolete (deleted port groups). */
void groups_end_pass(struct groups *);

struct pg_state *groups_find_pg(const struct groups *, const struct uuid *);

/* The addresses of address set 'name' (from the NB, or derived from a
 * port group), sorted, as a new array of '*n' strings for the caller to
 * free(), or NULL if there is no such set.  An NB set's strings are
 * borrowed (valid until the set changes); a derived set's are in the
 * array's own block. */
const char **groups_set_addresses(const struct groups *, const char *name,
                                  size_t *n);
bool groups_pg_exists(const struct groups *, const char *name);

/* Adds the names of the address sets ("$name") and port groups ("@name")
 * 'match' refers to to 'addr_sets' and 'pgs' (either may be NULL). */
void groups_scan_refs(const char *match, struct sset *addr_sets,
                      struct sset *pgs);

/* Adds 'delta' to the count of ACLs on datapath 'dp' that refer to port
 * group 'name', a lib/strpool.h string (the count keeps a reference to
 * it).  'hash' is hash_string(name, 0), which is what an sset
 * node of 'name' holds: an ACL applied to many switches hashes each name
 * once, not once per switch. */
void groups_pg_ref(struct groups *, size_t dp, const char *name,
                   uint32_t hash, int delta);

/* NB changes.  Each returns false if it cannot follow the change (the
 * caller then recomputes everything).  Port groups whose datapaths changed
 * are added to 'span_changed'; names of address sets whose content changed
 * to 'sets_changed'; names of port groups that appeared or went away to
 * 'pgs_changed' (groups_pg_exists() tells which). */
bool groups_handle_pg(struct groups *, const struct nb_port_group *,
                      struct hmapx *span_changed, struct sset *sets_changed,
                      struct sset *pgs_changed);
bool groups_handle_as(struct groups *, const struct nb_address_set *,
                      struct sset *sets_changed);

/* A port joined the model, or is about to leave it (or to change its
 * addresses: removed, then added again). */
void groups_port_added(struct groups *, const struct ls_port *,
                       struct hmapx *span_changed, struct sset *sets_changed);
void groups_port_removed(struct groups *, const struct ls_port *,
                         struct hmapx *span_changed,
                         struct sset *sets_changed);

/* What the SB Address_Set and Port_Group tables hold, for a full pass to
 * compare with: as the last pass of 'g' left them, when the replica has
 * no fresh copy of them (rows someone else deleted since, tracked in
 * 'sb_db', are left out; call before 'g' and its model are destroyed);
 * or a summary of the replica's fresh copy, after which the replica can
 * forget the rows. */
struct groups_sb_rows *groups_sb_rows_from_state(const struct groups *g,
                                                 struct rdb *sb_db);
struct groups_sb_rows *groups_sb_rows_from_replica(struct rdb *sb_db);
void groups_sb_rows_destroy(struct groups_sb_rows *);

/* Brings the SB Address_Set and Port_Group tables in line, comparing
 * everything (after groups_init()) with 'existing' (which it marks up);
 * or only what changed since.  A full sync's inserts are produced as the
 * transaction is sent: 'g' must not change until it completes. */
void groups_sync_sb(struct groups *, struct groups_sb_rows *existing,
                    struct rdb_txn *);
void groups_sync_sb_dirty(struct groups *, struct rdb_txn *);

/* Compares what the SB Address_Set and Port_Group rows of 'a' and 'b'
 * should hold (whatever was written already), telling a port group's
 * switches apart by NB row.  Appends a line for each of the first
 * 'max_report' rows that one lacks or that differ to 'out', and returns
 * how many there are. */
struct ds;
size_t groups_diff(const struct groups *a, const struct groups *b,
                   struct ds *out, size_t max_report);

/* Puts back the SB Address_Set and Port_Group rows someone else inserted
 * or changed since the last pass (tracked as foreign in 'sb_db'): a row
 * that is not one of 'g''s is deleted, one that is is written whole again
 * (name and members).  Deletions by someone else are left to a full
 * pass. */
void groups_repair_sb(struct groups *, struct rdb *sb_db, struct rdb_txn *);

#endif /* northd/groups.h */
