/* HA chassis groups of external ports.
 *
 * An external port (Neutron's SR-IOV and bare metal ports) is bound by the
 * highest-priority live chassis of its NB HA_Chassis_Group.  As stock
 * ovn-northd 23.03 does, northd writes an SB HA_Chassis_Group (same name,
 * no external_ids) for each group some external port uses, with an SB
 * HA_Chassis per NB one (the SB Chassis of that name, if any; priority;
 * external_ids:chassis-name), points the port's Port_Binding
 * ha_chassis_group at it, and deletes the SB groups no external port uses
 * (this northd compiles no router, the other users of groups).  See
 * docs/ports.md "External ports". */
#ifndef NORTHD_HA_GROUPS_H
#define NORTHD_HA_GROUPS_H 1

struct ls_model;
struct rdb;
struct rdb_txn;
struct uuid;

/* Brings the SB groups in line with the external ports of 'm', and leaves
 * in 'm' the SB UUID of each group by name (ha_groups_find()), for the
 * Port_Bindings written after it in the same transaction. */
void ha_groups_sync(struct ls_model *m, struct rdb *sb, struct rdb_txn *);

/* The SB UUID of group 'name' as the last ha_groups_sync() left it, or
 * NULL if no external port uses it. */
const struct uuid *ha_groups_find(const struct ls_model *m,
                                  const char *name);

#endif /* northd/ha-groups.h */
