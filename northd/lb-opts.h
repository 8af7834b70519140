/* Load balancer options as stock OVN 23.03 compiles them on logical
 * switches, on top of the VIP flows of northd/lb.c:
 *
 *   - options:reject (a VIP without backends answers new connections with
 *     a TCP RST or ICMP error) and, without it, a drop;
 *   - options:event, or NB_Global options:controller_event: a VIP without
 *     backends triggers an "empty_lb_backends" controller event (SB
 *     Controller_Event is ovn-controller's to write);
 *   - options:affinity_timeout: session affinity (ls_in_lb_aff_check,
 *     ls_in_lb, ls_in_lb_aff_learn);
 *   - selection_fields: hash_fields="..." in ct_lb_mark/ct_lb;
 *   - template load balancers (options:template, options:address-family,
 *     VIPs such as "^VIP:^PORT"), expanded per chassis by ovn-controller
 *     from SB Chassis_Template_Var, which is copied from the NB.
 *
 * lb.c calls in from its VIP parsing and flow building; everything the
 * options add lives here.  See docs/load-balancers.md. */
#ifndef NORTHD_LB_OPTS_H
#define NORTHD_LB_OPTS_H 1

#include <stdbool.h>
#include <stdint.h>
#include "sset.h"

struct ds;
struct lb;
struct lb_vip;
struct lflow_table;
struct ls_datapath;
struct ls_features;
struct ls_model;
struct nb_load_balancer;
struct rdb;
struct rdb_txn;

/* The options of one load balancer (a member of struct lb). */
struct lb_opts {
    uint16_t affinity_timeout;  /* Seconds; 0 for no affinity. */
    bool reject;                /* Answer when a VIP has no backends. */
    bool event;                 /* Event when a VIP has no backends. */
    bool is_template;           /* VIPs and backends may be "^VAR". */
    bool template_ipv6;         /* Template's address-family=ipv6. */
    char *hash_fields;          /* ct_lb's hash_fields, or NULL. */
};

/* What parsing the load balancers needs from the rest of the NB. */
struct lb_opts_ctx {
    bool controller_event;      /* NB_Global options:controller_event. */
    struct sset vars;           /* Names of every template variable. */
};

void lb_opts_ctx_init(struct lb_opts_ctx *, struct rdb *nb_db);
void lb_opts_ctx_destroy(struct lb_opts_ctx *);

void lb_opts_init(struct lb_opts *, const struct nb_load_balancer *,
                  const char *proto, const struct lb_opts_ctx *,
                  struct ls_model *);
void lb_opts_destroy(struct lb_opts *);

/* Whether a change to 'nb' can be followed without a full pass: not for a
 * template load balancer, nor for options a full pass reports. */
bool lb_opts_incremental(const struct nb_load_balancer *);

/* Parses the VIP 'key' => 'value' of template load balancer 'lb' into
 * 'vip'.  Returns NULL on success, otherwise an error (caller frees).  On
 * success, names of variables no Chassis_Template_Var defines are
 * reported against the row (the VIP is compiled all the same, as stock
 * does: a chassis that later defines them expands it). */
char *lb_opts_parse_template_vip(const struct lb *, const char *key,
                                 const char *value,
                                 const struct lb_opts_ctx *,
                                 struct ls_model *, struct lb_vip *);

/* The actions of the ls_in_lb flow for new connections to 'vip'. */
void lb_opts_put_lb_action(struct ds *actions, const struct lb *,
                           const struct lb_vip *,
                           const struct ls_features *);

/* The same for the backends 'backends' ("IP:PORT,..."; NULL or empty if
 * none: a drop, or a reject with options:reject), e.g. those of a VIP
 * that its health check leaves usable. */
void lb_opts_put_backends_action(struct ds *actions, const struct lb *,
                                 const char *backends,
                                 const struct ls_features *);

/* The flows the options add for 'vip' on the switches 'dps' (the load
 * balancer's): the empty-backends event and session affinity. */
void lb_opts_build_vip_flows(struct lflow_table *, const unsigned long *dps,
                             const struct lb *, const struct lb_vip *,
                             const struct ls_features *,
                             struct ds *match, struct ds *actions);

/* A template load balancer's flows on 'dps' as a whole: the pre-LB stages
 * send all IP traffic of its switches to conntrack, as stock does, since
 * the backends are known only on the chassis. */
void lb_opts_build_template_lb(struct lflow_table *, const unsigned long *dps);

/* Every other flow of a template load balancer's 'vip' on 'dps'. */
void lb_opts_build_template_vip(struct lflow_table *, const unsigned long *dps,
                                const struct lb *, const struct lb_vip *,
                                const struct ls_features *,
                                struct ds *match, struct ds *actions);

/* The vips of 'lb''s SB Load_Balancer row: the NB's, except that a
 * template load balancer of the IPv6 family has its VIP addresses in
 * brackets, as stock writes them (ovn-controller reads them so).
 * 'tmp' is initialized, for the caller to destroy. */
struct smap;
const struct smap *lb_opts_sb_vips(const struct lb *, struct smap *tmp);

/* Makes SB Chassis_Template_Var the NB's, row by row (by chassis). */
void lb_opts_sync_template_vars(struct rdb *nb_db, struct rdb *sb_db,
                                struct rdb_txn *);

#endif /* northd/lb-opts.h */
