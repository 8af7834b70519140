/* IPAM: addresses northd chooses for logical switch ports that ask for
 * them, as ovn-northd 23.03 does (ovn-nb(5), "IP Address Assignment").
 *
 * A port asks with one "dynamic" entry in 'addresses' ("dynamic",
 * "dynamic IPv4", "dynamic IPv6", "dynamic IPv4 IPv6" or "MAC dynamic").
 * Its switch allocates from other_config:subnet (minus exclude_ips, the
 * first address, the broadcast address and every address another entry on
 * the switch uses), derives IPv6 from other_config:ipv6_prefix and the MAC
 * (EUI-64), or only a MAC (other_config:mac_only, when neither is set).
 * MACs are NB_Global options:mac_prefix (chosen at random and written back
 * if unset) followed by 24 bits unique across all switches.
 *
 * What a port has is read back from Logical_Switch_Port.dynamic_addresses
 * and kept while it stays valid, so allocation survives restarts and
 * recomputes.  Ports are visited in NB UUID order: keepers first, then
 * new allocations, each taking the lowest free address.
 *
 * ipam_run() runs in a full pass only: incremental passes recompute for
 * anything it would decide (a port that asks for addresses, or a static
 * address that one holds: see ipam_static_change_is_free()).  It sets each
 * port's 'dynamic_addresses' and appends the parsed entry to its 'addrs',
 * so L2 lookup, ARP/ND responders and port groups' address sets use it
 * like a static entry. */
#ifndef NORTHD_IPAM_H
#define NORTHD_IPAM_H 1

#include <stdbool.h>
#include "openvswitch/shash.h"
#include "packets.h"

struct ls_datapath;
struct ls_model;
struct lsp_addresses;
struct ls_port;
struct nb_logical_switch;
struct nb_logical_switch_port;
struct nb_nb_global;
struct rdb;
struct rdb_txn;

/* What a model decided that the NB replica may not show yet: its writes
 * of dynamic_addresses and mac_prefix are not in the replica until the
 * server's update comes back, and a full pass in between must not decide
 * afresh (a port would lose its addresses to one before it).  Saved from
 * the model a full pass throws away, used by the one it builds. */
struct ipam_carry {
    struct shash dynamic;   /* Port row UUID -> dynamic_addresses ("" for
                             * none), where the NB row differs. */
    bool has_prefix;        /* A mac_prefix chosen but not seen in NB. */
    struct eth_addr prefix;
};

void ipam_carry_init(struct ipam_carry *);
void ipam_carry_save(struct ipam_carry *, const struct ls_model *);
void ipam_carry_destroy(struct ipam_carry *);

/* 'carry' may be NULL. */
void ipam_run(struct ls_model *, struct rdb *nb,
              const struct ipam_carry *carry);

/* Writes Logical_Switch_Port.dynamic_addresses where it differs from what
 * ipam_run() decided. */
void ipam_sync_nb(const struct ls_model *, struct rdb_txn *nb_txn);

/* If ipam_run() chose the MAC prefix because the NB had no valid one,
 * puts it in 'buf' ("xx:xx:xx") and returns true: northd writes it to
 * NB_Global options:mac_prefix (northd/global-opts.h). */
bool ipam_new_mac_prefix(const struct ls_model *, char buf[9]);

/* True if 'mac_prefix' (NB_Global options:mac_prefix, may be NULL) is the
 * one ipam_run() chose because the NB had none: northd's own write.
 * ipam_mac_prefix_written() records that the NB now has it. */
bool ipam_is_own_mac_prefix(const struct ls_model *, const char *mac_prefix);
void ipam_mac_prefix_written(struct ls_model *);

/* True if 'ls' has IPAM configured (subnet, ipv6_prefix or mac_only). */
bool ipam_switch_enabled(const struct nb_logical_switch *);

/* True if an entry of 'nbp''s addresses mentions "dynamic", or it has
 * dynamic_addresses. */
bool ipam_lsp_is_dynamic(const struct nb_logical_switch_port *);

/* True if a port of 'dp' that asks for no dynamic address (or 'self',
 * one that leaves) may have, gain or lose the IPv4 addresses in 'addrs'
 * without changing what ipam_run() would decide for the others: every
 * other port of the switch with a dynamic entry holds, in step with the
 * NB, the addresses it would keep whatever the static ones around it (an
 * address of each family the switch allocates, the IPv4 address it asks
 * for if any), and none holds one of those IPv4 addresses.  Static MACs
 * never move a kept dynamic one.  True for a switch without IPAM.  Then
 * the caller may follow the change without a full pass (ovn-kubernetes'
 * node switches set other_config:subnet and give every pod a static
 * address). */
/* True if 'p' has dynamic addresses or asks for them (model or NB). */
bool ipam_port_is_dynamic(const struct ls_port *);

bool ipam_static_change_is_free(const struct ls_datapath *dp,
                                const struct ls_port *self,
                                const struct lsp_addresses *addrs,
                                size_t n_addrs);

/* True if 'p''s NB dynamic_addresses is what the model wants there (e.g.
 * the echo of northd's own write). */
bool ipam_port_in_step(const struct ls_port *);

#endif /* northd/ipam.h */
