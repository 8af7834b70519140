/* The SB neighbour tables of routers that northd keeps: Static_MAC_Binding
 * (a copy of the NB's rows that name a router port), and MAC_Binding, the
 * bindings ovn-controllers learn, of which northd deletes those that name
 * no port and those older than their router's
 * options:mac_binding_age_threshold (aging), at most
 * NB_Global options:mac_binding_removal_limit per transaction.
 * docs/routers.md, "Neighbour tables". */
#ifndef NORTHD_MAC_BINDING_H
#define NORTHD_MAC_BINDING_H 1

#include <stdbool.h>
#include <stddef.h>

struct ds;
struct ls_model;
struct rdb;
struct rdb_txn;
struct smap;

/* Aging's schedule. */
struct mb_aging {
    long long int next_msec;        /* time_msec() of the next run, or
                                     * LLONG_MAX: no router ages. */
    size_t n_aged;                  /* Bindings deleted for their age. */
    size_t n_orphans;               /* Bindings deleted for their port. */
};

void mb_aging_init(struct mb_aging *);

/* Whether an aging run is due ('mb_aging_run()' in the next pass). */
bool mb_aging_due(const struct mb_aging *);
void mb_aging_wait(const struct mb_aging *);

/* Deletes the expired MAC_Bindings of the routers of 'm' with a
 * threshold, and (if 'full': the model is new) those that name no port;
 * schedules the next run.  'nb_options' are NB_Global's. */
void mb_aging_run(struct mb_aging *, const struct ls_model *m,
                  struct rdb *sb, struct rdb_txn *,
                  const struct smap *nb_options, bool full);

/* Brings SB Static_MAC_Binding in line with the NB's rows; rows that name
 * no router port, or whose address does not parse, are reported on 'm'
 * and not copied. */
void mb_sync_static(struct ls_model *m, struct rdb *nb, struct rdb *sb,
                    struct rdb_txn *);

void mb_aging_format(const struct mb_aging *, struct ds *);

#endif /* northd/mac-binding.h */
