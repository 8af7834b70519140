/* Port groups and address sets in the SB, named the way ovn-controller
 * 23.03 resolves "@pg" (per datapath: "<tunnel key>_<pg>") and "$as"
 * (NB address sets, plus "<pg>_ip4" / "<pg>_ip6" built from the addresses
 * of each port group's members). */
#ifndef NORTHD_GROUPS_H
#define NORTHD_GROUPS_H 1

struct ls_model;
struct ovsdb_idl;
struct ovsdb_idl_txn;
struct shash;
struct sset;

/* Fills 'sets' (name -> malloc'd struct sset of addresses) with the SB
 * address sets the NB calls for; free with groups_destroy_address_sets(). */
void groups_build_address_sets(const struct ls_model *,
                               struct ovsdb_idl *nb_idl, struct shash *sets);
void groups_destroy_address_sets(struct shash *sets);

/* Adds the names of the port groups 'match' refers to ("@name") to
 * 'names'. */
void groups_scan_pg_refs(const char *match, struct sset *names);

/* 'dp_pg_refs', if nonnull, is an array indexed by datapath of the port
 * group names that ACLs on that datapath refer to. */
void groups_sync_sb(const struct ls_model *, struct ovsdb_idl *nb_idl,
                    const struct sset *dp_pg_refs, struct ovsdb_idl *sb_idl,
                    struct ovsdb_idl_txn *);

#endif /* northd/groups.h */
