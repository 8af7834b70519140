/* IPv6 router advertisements of logical router ports: what a port's
 * ipv6_ra_configs asks for, parsed once per full pass (bad values
 * reported and left out), turned into the lr_in_nd_ra_options and
 * lr_in_nd_ra_response flows that answer router solicitations, and into
 * the Port_Binding options with which ovn-controller sends periodic
 * advertisements.  Also the prefix delegation options a port passes to
 * ovn-controller.  docs/routers.md, "Router advertisements". */
#ifndef NORTHD_ROUTER_RA_H
#define NORTHD_ROUTER_RA_H 1

struct lflow_table;
struct lr_port;
struct lr_router;
struct ls_model;
struct smap;

/* What a router port advertises.  Owned by its lr_port. */
struct lr_ra {
    char *opts;             /* The arguments of put_nd_ra_opts(), or NULL:
                             * solicitations are not answered. */
    struct smap *sb;        /* The ipv6_ra_* Port_Binding options, or NULL:
                             * no periodic advertisements. */
};

/* Parses 'p''s ipv6_ra_configs; NULL if it asks for nothing.  Bad values
 * are reported on 'm'. */
struct lr_ra *lr_ra_parse(struct ls_model *m, const struct lr_port *p);
void lr_ra_destroy(struct lr_ra *);

/* Adds to 'options' what 'p''s Port_Binding carries for advertisements
 * and prefix delegation. */
void lr_ra_put_pb_options(const struct lr_port *p, struct smap *options);

/* Logical_Router_Port.ipv6_prefix, which stock 23.03 writes: for a port
 * with options:prefix=true whose Port_Binding has options:ipv6_ra_pd_list
 * "AID:PREFIX" (what ovn-controller obtained by prefix delegation), sets
 * it to PREFIX in 'nb_txn' if it is not that already.  A list that does
 * not read so leaves the column alone, as stock. */
struct rdb_txn;
void lr_ra_sync_nb_prefix(const struct lr_port *p, struct rdb_txn *nb_txn);

/* The router's lr_in_nd_ra_options and lr_in_nd_ra_response flows. */
void lr_ra_build_lflows(struct lflow_table *, const struct lr_router *);

#endif /* northd/router-ra.h */
