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

/* Adds the names of the address sets ("$name") and port groups ("@name")
 * 'match' refers to to 'addr_sets' and 'pgs' (either may be NULL). */
void groups_scan_refs(const char *match, struct sset *addr_sets,
                      struct sset *pgs);

/* 'addr_sets' comes from groups_build_address_sets().  'dp_pg_refs', if
 * nonnull, is an array indexed by datapath of the port group names that
 * ACLs on that datapath refer to. */
void groups_sync_sb(const struct ls_model *, struct ovsdb_idl *nb_idl,
                    const struct shash *addr_sets,
                    const struct sset *dp_pg_refs, struct ovsdb_idl *sb_idl,
                    struct ovsdb_idl_txn *);

#endif /* northd/groups.h */
