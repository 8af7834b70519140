/* Logical switches and their ports: the typed input model every compiled
 * capability starts from, and the SB rows that represent them
 * (Datapath_Binding, Port_Binding, Multicast_Group).
 *
 * ls_model_build() reads the NB replica, validates each switch and port,
 * and assigns tunnel keys that stay stable across restarts by reusing the
 * keys already in the SB replica.  ls_model_sync_sb() then writes only the
 * differences.  Everything in the model borrows replica rows (lib/rdb.h):
 * it is valid until the next pass. */
#ifndef NORTHD_DATAPATHS_H
#define NORTHD_DATAPATHS_H 1

#include <stdbool.h>
#include <stdint.h>
#include "lib/lsp-addresses.h"
#include "northd/lflow.h"
#include "openvswitch/hmap.h"
#include "openvswitch/list.h"
#include "openvswitch/shash.h"
#include "openvswitch/uuid.h"
#include "sset.h"

struct ipam_carry;
struct rdb;
struct rdb_txn;
struct nb_logical_switch;
struct nb_logical_switch_port;
struct sb_datapath_binding;
struct sb_port_binding;
struct sb_chassis;

/* Tunnel key ranges hypervisors expect. */
#define LS_DP_KEY_MIN 1
#define LS_DP_KEY_MAX ((1u << 24) - 1 - 65536)
#define LS_PORT_KEY_MIN 1
#define LS_PORT_KEY_MAX 32767

/* Multicast groups of a logical switch, with the keys ovn-controller 23.03
 * reserves for them. */
#define MC_FLOOD "_MC_flood"
#define MC_FLOOD_KEY 32768
#define MC_UNKNOWN "_MC_unknown"
#define MC_UNKNOWN_KEY 32769
#define MC_FLOOD_L2 "_MC_flood_l2"
#define MC_FLOOD_L2_KEY 32772

struct ls_datapath;

struct ls_port {
    struct hmap_node name_node;     /* In ls_model 'ports', by name. */
    struct ovs_list dp_node;        /* In ls_datapath 'ports'. */
    const struct nb_logical_switch_port *nb;
    const struct sb_port_binding *sb;   /* In the replica; NULL until the
                                         * row northd inserted is there. */
    struct uuid sb_uuid;            /* Its Port_Binding; zero if none. */
    struct lflow_owner owner;       /* Its L2 flows. */
    struct lflow_owner dhcp_owner;  /* Its DHCP flows, which a change of
                                     * its subnet's options rebuilds
                                     * alone. */
    struct ls_datapath *dp;
    uint32_t tunnel_key;
    bool enabled;

    /* Valid "MAC [IP...]" entries of 'addresses' and 'port_security'; bad
     * entries are logged and left out.  Owned. */
    struct lsp_addresses *addrs;
    size_t n_addrs;
    struct lsp_addresses *ps_addrs;
    size_t n_ps_addrs;
    bool has_unknown;               /* "unknown" among the addresses. */

    /* Addresses IPAM gave it (northd/ipam.h), for its NB
     * dynamic_addresses; also the last entry of 'addrs'.  NULL if none.
     * Owned. */
    char *dynamic_addresses;

    /* VLAN tag, 1..4095, or 0 for none: what Logical_Switch_Port.tag holds
     * once northd wrote it, and Port_Binding.tag gets.  The NB tag_request
     * if nonzero (any port, e.g. a localnet port on a VLAN); for a
     * container port (one with a parent_name) with tag_request 0, a tag
     * northd allocated; otherwise the NB tag as a CMS set it. */
    uint16_t tag;

    /* Logical_Switch_Port.up as northd computes it from the Port_Binding
     * and its chassis (ls_port_compute_up()), as of the last time it did. */
    bool up;

    /* Port_Binding options:qdisc_queue_id, the egress queue that
     * ovn-controller configures for a port with QoS options (qos_max_rate,
     * qos_min_rate, qos_burst) and the port's flows select with
     * set_queue(); 0 if none.  As stock: kept once given; given to a
     * bound VIF, the lowest its chassis does not use yet, and to a
     * localnet port, 1; taken back when the QoS options go. */
    uint32_t queue_id;

    /* In ls_model 'ports_by_dhcp[0]' by its dhcpv4_options row and
     * '[1]' by its dhcpv6_options row (bit 0 and 1 of 'dhcp_indexed'), as
     * of the last time the model parsed the port. */
    struct hmap_node dhcp_nodes[2];
    uint8_t dhcp_indexed;
};

struct ls_datapath {
    struct hmap_node uuid_node;     /* In ls_model 'datapaths', by NB uuid. */
    const struct nb_logical_switch *nb;
    const struct sb_datapath_binding *sb;   /* In the replica; NULL until
                                             * the row northd inserted is
                                             * there. */
    struct uuid sb_uuid;            /* Its Datapath_Binding; zero if
                                     * none. */
    struct lflow_owner owner;       /* Flows of the switch as a whole. */
    struct lflow_owner dhcp_owner;  /* Its DHCP flows (the ACL stage's
                                     * replies, external ports'). */
    uint32_t tunnel_key;
    struct ovs_list ports;          /* Contains "struct ls_port"s. */
    size_t n_ports;
    size_t index;                   /* 0..n-1, in NB uuid order. */
    struct lr_router *router;       /* A logical router's datapath
                                     * (northd/router.h): then 'nb' is
                                     * NULL and 'ports' empty. */
};

struct ls_model {
    struct hmap datapaths;          /* Contains "struct ls_datapath"s. */
    struct hmap ports;              /* Contains "struct ls_port"s. */
    struct hmap ports_by_dhcp[2];   /* "struct ls_port"s by the pointer of
                                     * their DHCPv4 and DHCPv6 options row
                                     * (ls_model_ports_using_dhcp()). */
    struct ls_datapath **dp_array;  /* By 'index'. */
    size_t n_datapaths;
    size_t dp_cap;                  /* Room in 'dp_array', and the size
                                     * of every datapath bitmap. */
    size_t sw_cap;                  /* Switches added later take the next
                                     * index, up to this; routers' datapaths
                                     * take 'sw_cap' and on. */
    struct lr_model *lr;            /* Logical routers (northd/router.h),
                                     * built with the switches: a router
                                     * change is a full recompute. */

    /* Rows inserted in the SB by the last sync: they reach the replica
     * with the server's update, and ls_model_refresh_sb() finds them
     * there by UUID. */
    struct ls_datapath **new_dps;
    size_t n_new_dps;
    struct ls_port **new_ports;
    size_t n_new_ports, allocated_new_ports;
    const struct ipam_carry *ipam_carry;   /* For ls_model_build(), or
                                            * NULL (northd/ipam.h). */
    struct eth_addr mac_prefix;     /* IPAM's, in the first 3 bytes. */
    bool mac_prefix_new;            /* Not in the NB yet: write it. */
    size_t n_bad_rows;              /* Rows skipped or partly ignored. */
    struct sset problems;           /* Messages naming the bad rows. */

    /* Problems with NB rows found on the previous pass, or NULL for a
     * model that logs none (set by the caller, which owns it).  A bad row
     * stays bad on every pass until someone fixes it, and a pass runs on
     * every database change: logging each problem every time would flood
     * the log and, through the rate limit, hide new problems behind old
     * ones.  So a problem is logged when it first appears (or reappears
     * after going away), and ls_model_build() leaves its own problems
     * here for the next one. */
    struct sset *reported;
    bool controller_event;          /* NB_Global options:controller_event
                                     * (router load balancers). */
    bool quiet;                     /* Logs no problem: incremental passes
                                     * that meet one give up and leave the
                                     * reporting to the full pass that
                                     * follows. */

    /* NB_Global options:ignore_lsp_down=false: ports that are down get no
     * ARP/ND responder flows. */
    bool check_lsp_up;

    /* SB Chassis by name and by hostname, for options:requested-chassis;
     * built when first needed in a pass from 'sb_db', which the model
     * reads in that pass (ls_model_build(), ls_model_refresh_sb()). */
    struct rdb *sb_db;
    struct shash chassis_by_name;
    struct shash chassis_by_hostname;

    /* The SB UUIDs of the HA chassis groups external ports use, by name
     * (northd/ha-groups.h): 'struct uuid *'s, owned. */
    struct shash ha_group_uuids;
    bool chassis_indexed;

    /* SB IGMP_Group rows by the UUID of their datapath ("struct
     * igmp_dp"s), built when first needed in a pass, like the chassis:
     * a full pass looks at each switch's twice. */
    struct hmap igmp_by_dp;
    bool igmp_indexed;
};

void ls_model_init(struct ls_model *);
void ls_model_destroy(struct ls_model *);

void ls_model_build(struct ls_model *, struct rdb *nb, struct rdb *sb);

/* Records a problem with an NB row ('msg' names it): logged once, listed
 * by "northd/not-compiled". */
void ls_model_report_bad_row(struct ls_model *, const char *msg);

/* After ls_model_build() and whatever else reports problems into the
 * model (the load balancers): leaves them in 'reported' for the next
 * build. */
void ls_model_end_reports(struct ls_model *);

bool ls_datapath_vlan_passthru(const struct ls_datapath *);
struct ls_port *ls_datapath_find_port(const struct ls_datapath *,
                                      const char *name);

struct ls_datapath *ls_model_find_datapath(const struct ls_model *,
                                           const struct uuid *nb_uuid);

/* Every datapath, switches then routers: ls_model_n_all() of them, the
 * i-th is ls_model_dp_at() (its 'index' may differ from 'i'). */
size_t ls_model_n_all(const struct ls_model *);
struct ls_datapath *ls_model_dp_at(const struct ls_model *, size_t i);

/* The NB row UUID a datapath stands for (a switch or a router). */
const struct uuid *ls_datapath_nb_uuid(const struct ls_datapath *);

/* The datapath of the switch or router with NB row 'nb_uuid', or NULL. */
struct ls_datapath *ls_model_find_any_datapath(const struct ls_model *,
                                               const struct uuid *nb_uuid);

/* The datapath of 'm' (switch or router) that SB row 'sb' stands for by
 * its external_ids, whichever SB row that datapath uses, or NULL. */
struct ls_datapath *ls_model_find_sb_owner(
    const struct ls_model *, const struct sb_datapath_binding *);

/* Whether a port of a switch of 'm' with this NB row is a router's peer
 * now, or was at the last full build: its changes are a full recompute
 * (northd/router.h). */
bool ls_model_port_touches_router(const struct ls_model *,
                                  const struct nb_logical_switch_port *);
struct ls_port *ls_model_find_port(const struct ls_model *,
                                   const char *name);

/* qsort() comparison of "const struct nb_logical_switch_port *"s by
 * name, then UUID: ports get tunnel keys in this order. */
int ls_port_row_compare(const void *, const void *);

/* Points the model at the SB rows its last sync inserted, once the
 * transaction that inserted them is over. */
void ls_model_refresh_sb(struct ls_model *, struct rdb *sb);

/* Writes Datapath_Binding, Port_Binding and Multicast_Group differences. */
void ls_model_sync_sb(struct ls_model *, struct rdb *sb,
                      struct rdb_txn *sb_txn);

/* Whether 'p' is up, as the stock ovn-northd 23.03 decides
 * Logical_Switch_Port.up: a "router" port always; any other port once it
 * is bound to a chassis, and then, if that chassis reports ports up
 * itself (other_config:port-up-notif=true, as ovn-controller 21.03 and
 * later do once the port's flows are installed), only when its
 * Port_Binding.up is true.  A binding created in this pass is not bound
 * yet: down. */
bool ls_port_compute_up(const struct ls_port *);

/* Writes Logical_Switch_Port.up where it differs from
 * ls_port_compute_up(). */
void ls_model_sync_nb_up(const struct ls_model *, struct rdb_txn *nb_txn);
void ls_model_sync_port_up(const struct ls_port *, struct rdb_txn *nb_txn);

/* Whether a change of SB Chassis 'ch' (new, deleted, renamed, another
 * hostname) may change the requested chassis of 'p': its binding refers
 * to it, or its options:requested-chassis may name it. */
bool ls_port_requests_chassis(const struct ls_port *,
                              const struct sb_chassis *);

/* Incremental changes, for ordinary ports and switches only: each returns
 * NULL or false for anything a full pass should decide (a container port,
 * a requested tunnel key, a bad address, a duplicate name, no room left),
 * and the caller then recomputes.
 *
 * ls_model_add_port() adds a port to 'dp' with a free tunnel key;
 * ls_model_update_port() parses 'p->nb' again; ls_model_remove_port()
 * frees it and returns the UUID of its Port_Binding (zero if none), for
 * the caller to delete once it knows the pass goes on incrementally.  ls_model_add_switch() adds a
 * switch at the next index.  ls_model_sync_port() writes a port's
 * Port_Binding; ls_model_sync_dp() a switch's Datapath_Binding;
 * ls_model_sync_mc_groups() its multicast groups (after its ports). */
struct ls_port *ls_model_add_port(struct ls_model *, struct ls_datapath *,
                                  const struct nb_logical_switch_port *);
bool ls_model_update_port(struct ls_model *, struct ls_port *);
struct uuid ls_model_remove_port(struct ls_model *, struct ls_port *);

/* Gives 'p' the queue it should have now that its Port_Binding changed
 * (ovn-controller bound it); true if that changed its queue_id. */
bool ls_model_update_port_queue(struct ls_model *, struct ls_port *);

/* Adds to 'ports' the ports whose dhcpv4_options or dhcpv6_options are the
 * NB DHCP_Options row 'row' (a "struct nb_dhcp_options *"), through an
 * index the model keeps as it parses ports: a subnet's change need not
 * visit every port. */
struct hmapx;
void ls_model_ports_using_dhcp(const struct ls_model *, const void *row,
                               struct hmapx *ports);

/* The SB IGMP_Group rows of 'dp' (with a chassis) in the replica the
 * model reads in this pass, in the replica's order: '*n' of them, valid
 * until the model's next pass.  The model indexes them all when first
 * asked in a pass (the index is a cache: hence a const model). */
struct sb_igmp_group;
const struct sb_igmp_group **ls_model_igmp_groups(
    const struct ls_model *, const struct ls_datapath *, size_t *n);
struct ls_datapath *ls_model_add_switch(struct ls_model *,
                                        const struct nb_logical_switch *);
void ls_model_sync_port(struct ls_model *, struct rdb_txn *,
                        struct ls_port *);
void ls_model_sync_dp(struct ls_model *, struct rdb_txn *,
                      struct ls_datapath *);
void ls_model_sync_mc_groups(const struct ls_model *, struct rdb *sb, struct rdb_txn *,
                             const struct ls_datapath *);

/* Writes the tags of ports that asked for one (tag_request) into
 * Logical_Switch_Port.tag, which northd owns for such ports: the requested
 * tag, or for a container port that asked for any (tag_request 0), the
 * one it allocated. */
void ls_model_sync_nb_tags(const struct ls_model *, struct rdb_txn *nb_txn);

#endif /* northd/datapaths.h */
