/* NB_Global and SB_Global options that northd sets itself, as stock
 * ovn-northd 23.03 does:
 *
 *   northd_internal_version  what ovn-controller compares with its own
 *                            when ovn-match-northd-version=true;
 *   max_tunid                the highest datapath tunnel key;
 *   svc_monitor_mac          the source MAC of service monitor packets:
 *                            the NB's if it is a valid MAC, otherwise
 *                            chosen at random (locally administered,
 *                            unicast) and kept;
 *   mac_prefix               IPAM's, when the NB had none (northd/ipam.h).
 *
 * They are written to NB_Global options (one write, with the rest of the
 * options as they are) and SB_Global options carries them with every
 * other NB key. */
#ifndef NORTHD_GLOBAL_OPTS_H
#define NORTHD_GLOBAL_OPTS_H 1

#include <stdbool.h>
#include "openvswitch/types.h"

struct nb_nb_global;
struct rdb_txn;
struct smap;

/* The OVN release whose ovn-northd this one stands in for. */
#define NORTHD_OVN_VERSION "23.03.1"

struct global_opts {
    struct eth_addr svc_monitor_mac;    /* Chosen when the NB had none. */
    bool have_svc_monitor_mac;
};

void global_opts_init(struct global_opts *);

/* Puts into 'own' the keys northd sets, given the NB's 'nb_options' and
 * IPAM's 'mac_prefix' (NULL if IPAM keeps the NB's). */
void global_opts_own(struct global_opts *, const struct smap *nb_options,
                     const char *mac_prefix, struct smap *own);

/* The svc_monitor_mac in use with NB options 'nb_options': theirs if it
 * is a valid MAC, otherwise the one northd chose. */
struct eth_addr global_opts_svc_monitor_mac(struct global_opts *,
                                            const struct smap *nb_options);

/* 'nb_options' with 'own' on top, into 'out' (initialized here). */
void global_opts_merge(const struct smap *nb_options, const struct smap *own,
                       struct smap *out);

/* Writes NB_Global 'g''s options with 'own' on top, if that changes
 * them. */
void global_opts_sync_nb(const struct nb_nb_global *g,
                         const struct smap *own, struct rdb_txn *nb_txn);

#endif /* northd/global-opts.h */
