/* BFD sessions of router ports: see bfd.h. */
#include <config.h>
#include "northd/bfd.h"

#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "coverage.h"
#include "hash.h"
#include "hmapx.h"
#include "lib/nb-rdb.h"
#include "lib/rdb.h"
#include "lib/sb-rdb.h"
#include "northd/datapaths.h"
#include "northd/lflow.h"
#include "northd/pipeline.h"
#include "northd/router.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "random.h"
#include "sset.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(bfd);

COVERAGE_DEFINE(bfd_sb_inserted);
COVERAGE_DEFINE(bfd_sb_updated);
COVERAGE_DEFINE(bfd_sb_deleted);
COVERAGE_DEFINE(bfd_nb_status);
COVERAGE_DEFINE(bfd_route_down);
COVERAGE_DEFINE(bfd_bad_row);

/* Stock's defaults for unset NB timers (ms, and a count). */
#define BFD_DEFAULT_MIN_TX 1000
#define BFD_DEFAULT_MIN_RX 1000
#define BFD_DEFAULT_DETECT_MULT 5

/* UDP source ports of sessions (RFC 5881: 49152 and up; stock hands out
 * 49152..65534). */
#define BFD_SRC_PORT_MIN 49152
#define BFD_N_SRC_PORTS (65535 - BFD_SRC_PORT_MIN)

/* The session states, as both schemas spell them. */
#define BFD_ADMIN_DOWN "admin_down"
#define BFD_DOWN "down"

/* One NB BFD row. */
struct bfd_session {
    struct hmap_node node;              /* In 'sessions', by hash_key(). */
    const struct nb_bfd *nb;
    const struct sb_bfd *sb;            /* Its SB row, or NULL: one is
                                         * inserted. */
    const char *sb_status;              /* What the SB row's status is to
                                         * be. */
    const char *status;                 /* The NB status, as this pass
                                         * leaves it. */
    int src_port;                       /* For an insert: its source port,
                                         * or 0 if none was left. */
    uint32_t disc;                      /* For an insert. */
    bool routed;                        /* A route uses it. */
};

struct bfd_set {
    struct hmap sessions;               /* Contains "struct bfd_session"s. */
    struct sset ports;                  /* Logical ports BFD rows name. */
    bool nb_pending;                    /* NB statuses not written yet. */
};

static uint32_t
hash_key(const char *port, const char *dst_ip)
{
    return hash_string(dst_ip, hash_string(port, 0));
}

/* The key of a session in an shash: its logical_port and dst_ip, which no
 * other pair of strings has. */
static char *
session_key(const char *port, const char *dst_ip)
{
    return xasprintf("%"PRIuSIZE" %s %s", strlen(port), port, dst_ip);
}

static bool
valid_ip(const char *s)
{
    ovs_be32 ip4;
    struct in6_addr ip6;
    return ip_parse(s, &ip4) || ipv6_parse(s, &ip6);
}

static void
report(struct ls_model *m, const struct nb_bfd *nb, const char *problem)
{
    /* Logged (rate limited) and listed by northd/not-compiled. */
    char *msg = xasprintf("BFD "UUID_FMT" (%s %s): %s: the session is "
                          "copied to the SB as stock copies it, but no "
                          "ovn-controller can run it",
                          UUID_ARGS(&nb->header_.uuid), nb->logical_port,
                          nb->dst_ip, problem);
    COVERAGE_INC(bfd_bad_row);
    ls_model_report_bad_row(m, msg);
    free(msg);
}

static int64_t
nb_int(const int64_t *v, size_t n, int64_t dflt)
{
    return n ? v[0] : dflt;
}

static int
compare_sessions(const void *a_, const void *b_)
{
    const struct bfd_session *const *a = a_;
    const struct bfd_session *const *b = b_;
    return uuid_compare_3way(&(*a)->nb->header_.uuid,
                             &(*b)->nb->header_.uuid);
}

struct bfd_set *
bfd_set_create(struct rdb *nb_db, struct rdb *sb_db)
{
    struct bfd_set *set = xzalloc(sizeof *set);
    hmap_init(&set->sessions);
    sset_init(&set->ports);
    set->nb_pending = true;

    /* The SB rows by logical_port and dst_ip, and the source ports in use
     * (also those of rows about to be deleted, as stock counts them). */
    unsigned long *used = bitmap_allocate(BFD_N_SRC_PORTS);
    struct shash sb_rows = SHASH_INITIALIZER(&sb_rows);
    const struct sb_bfd *sb;
    if (rdb_server_has_table(sb_db, &sb_table_bfd)) {
        SB_BFD_FOR_EACH (sb, sb_db) {
            char *key = session_key(sb->logical_port, sb->dst_ip);
            shash_add_once(&sb_rows, key, sb);
            free(key);
            if (sb->src_port >= BFD_SRC_PORT_MIN
                && sb->src_port - BFD_SRC_PORT_MIN < BFD_N_SRC_PORTS) {
                bitmap_set1(used, sb->src_port - BFD_SRC_PORT_MIN);
            }
        }
    }

    /* The NB rows in UUID order, so that new rows get their source ports
     * in an order of their own (stock's is its hash order). */
    size_t n = 0;
    const struct nb_bfd *nb;
    NB_BFD_FOR_EACH (nb, nb_db) {
        n++;
    }
    struct bfd_session **all = xmalloc(MAX(n, 1) * sizeof *all);
    n = 0;
    NB_BFD_FOR_EACH (nb, nb_db) {
        struct bfd_session *s = xzalloc(sizeof *s);
        s->nb = nb;
        all[n++] = s;
    }
    qsort(all, n, sizeof *all, compare_sessions);

    for (size_t i = 0; i < n; i++) {
        struct bfd_session *s = all[i];
        nb = s->nb;
        hmap_insert(&set->sessions, &s->node,
                    hash_key(nb->logical_port, nb->dst_ip));
        sset_add(&set->ports, nb->logical_port);

        s->status = (nb->status && nb->status[0]
                     ? nb->status : BFD_ADMIN_DOWN);
        char *key = session_key(nb->logical_port, nb->dst_ip);
        s->sb = shash_find_and_delete(&sb_rows, key);
        free(key);
        if (!s->sb) {
            size_t port = bitmap_scan(used, 0, 0, BFD_N_SRC_PORTS);
            if (port < BFD_N_SRC_PORTS) {
                bitmap_set1(used, port);
                s->src_port = BFD_SRC_PORT_MIN + port;
                do {
                    s->disc = random_uint32();
                } while (!s->disc);
            }
            s->sb_status = s->status;
        } else if (!strcmp(s->sb->status, s->status)) {
            s->sb_status = s->status;
        } else if (!strcmp(s->status, BFD_ADMIN_DOWN)
                   || !strcmp(s->sb->status, BFD_ADMIN_DOWN)) {
            /* Taken down (or back up) on purpose: the NB's. */
            s->sb_status = s->status;
        } else {
            /* What ovn-controller says. */
            s->status = s->sb->status;
            s->sb_status = s->status;
        }
    }
    free(all);
    shash_destroy(&sb_rows);
    bitmap_free(used);
    return set;
}

void
bfd_set_report(const struct bfd_set *set, struct ls_model *m)
{
    const struct bfd_session *s;
    HMAP_FOR_EACH (s, node, &set->sessions) {
        const struct nb_bfd *nb = s->nb;
        if (!lr_model_find_port(m->lr, nb->logical_port)) {
            report(m, nb, "logical_port names no router port");
        } else if (!valid_ip(nb->dst_ip)) {
            report(m, nb, "dst_ip is not an IP address");
        } else if (!s->sb && !s->src_port) {
            report(m, nb, "no UDP source port is left");
        }
    }
}

void
bfd_set_destroy(struct bfd_set *set)
{
    if (!set) {
        return;
    }
    struct bfd_session *s;
    HMAP_FOR_EACH_POP (s, node, &set->sessions) {
        free(s);
    }
    hmap_destroy(&set->sessions);
    sset_destroy(&set->ports);
    free(set);
}

bool
bfd_set_names_port(const struct bfd_set *set, const char *name)
{
    return set && sset_contains(&set->ports, name);
}

static struct bfd_session *
find_session(const struct bfd_set *set, const struct nb_bfd *nb)
{
    struct bfd_session *s;
    HMAP_FOR_EACH_WITH_HASH (s, node, hash_key(nb->logical_port, nb->dst_ip),
                             &set->sessions) {
        if (s->nb == nb) {
            return s;
        }
    }
    return NULL;
}

bool
bfd_route_usable(struct bfd_set *set,
                 const struct nb_logical_router_static_route *sr)
{
    struct bfd_session *s = set && sr->bfd ? find_session(set, sr->bfd)
                                           : NULL;
    if (!s || strcmp(s->nb->dst_ip, sr->nexthop)) {
        /* A session for another address does not concern the route. */
        return true;
    }
    s->routed = true;
    if (!strcmp(s->status, BFD_ADMIN_DOWN)) {
        /* Wanted by a route: ovn-controller is to start it. */
        s->status = BFD_DOWN;
    }
    if (!strcmp(s->status, BFD_DOWN)) {
        COVERAGE_INC(bfd_route_down);
        return false;
    }
    return true;
}

/* The NB status 's' is to have once the routes have been seen. */
static const char *
final_status(const struct bfd_session *s)
{
    /* A running session no route wants any more is stopped (stock does so
     * only for sessions that had an SB row at the start of the pass). */
    if (s->sb && !s->routed && strcmp(s->status, BFD_ADMIN_DOWN)) {
        return BFD_ADMIN_DOWN;
    }
    return s->status;
}

void
bfd_sync_sb(struct bfd_set *set, struct rdb *sb_db, struct rdb_txn *txn)
{
    if (!set || !rdb_server_has_table(sb_db, &sb_table_bfd)) {
        return;
    }
    struct hmapx keep = HMAPX_INITIALIZER(&keep);
    struct bfd_session *s;
    HMAP_FOR_EACH (s, node, &set->sessions) {
        const struct nb_bfd *nb = s->nb;
        int64_t min_tx = nb_int(nb->min_tx, nb->n_min_tx, BFD_DEFAULT_MIN_TX);
        int64_t min_rx = nb_int(nb->min_rx, nb->n_min_rx, BFD_DEFAULT_MIN_RX);
        int64_t mult = nb_int(nb->detect_mult, nb->n_detect_mult,
                              BFD_DEFAULT_DETECT_MULT);
        const struct sb_bfd *sb = s->sb;
        if (sb) {
            hmapx_add(&keep, CONST_CAST(struct sb_bfd *, sb));
            if (!strcmp(sb->status, s->sb_status) && sb->min_tx == min_tx
                && sb->min_rx == min_rx && sb->detect_mult == mult) {
                continue;
            }
            rdb_txn_update(txn, &sb_table_bfd, &sb->header_.uuid);
            COVERAGE_INC(bfd_sb_updated);
        } else if (s->src_port) {
            struct uuid uuid;
            rdb_uuid_generate(&uuid);
            rdb_txn_insert(txn, &sb_table_bfd, &uuid);
            rdb_txn_set_string(txn, SB_BFD_COL_LOGICAL_PORT,
                               nb->logical_port);
            rdb_txn_set_string(txn, SB_BFD_COL_DST_IP, nb->dst_ip);
            rdb_txn_set_integer(txn, SB_BFD_COL_SRC_PORT, s->src_port);
            rdb_txn_set_integer(txn, SB_BFD_COL_DISC, s->disc);
            COVERAGE_INC(bfd_sb_inserted);
        } else {
            continue;
        }
        rdb_txn_set_string(txn, SB_BFD_COL_STATUS, s->sb_status);
        rdb_txn_set_integer(txn, SB_BFD_COL_MIN_TX, min_tx);
        rdb_txn_set_integer(txn, SB_BFD_COL_MIN_RX, min_rx);
        rdb_txn_set_integer(txn, SB_BFD_COL_DETECT_MULT, mult);
    }
    const struct sb_bfd *sb;
    SB_BFD_FOR_EACH (sb, sb_db) {
        if (!hmapx_contains(&keep, CONST_CAST(struct sb_bfd *, sb))) {
            rdb_txn_delete(txn, &sb_table_bfd, &sb->header_.uuid);
            COVERAGE_INC(bfd_sb_deleted);
        }
    }
    hmapx_destroy(&keep);
}

void
bfd_sync_nb(struct bfd_set *set, struct rdb_txn *nb_txn)
{
    if (!set || !set->nb_pending || !nb_txn) {
        return;
    }
    struct bfd_session *s;
    HMAP_FOR_EACH (s, node, &set->sessions) {
        const char *status = final_status(s);
        if (!s->nb->status || strcmp(s->nb->status, status)) {
            rdb_txn_update(nb_txn, &nb_table_bfd, &s->nb->header_.uuid);
            rdb_txn_set_strings(nb_txn, NB_BFD_COL_STATUS, &status, 1);
            COVERAGE_INC(bfd_nb_status);
        }
    }
    set->nb_pending = false;
}

/* "A" or "{A, B}". */
static void
put_addrs(struct ds *s, const char *const *addrs, size_t n)
{
    if (n > 1) {
        ds_put_char(s, '{');
    }
    for (size_t i = 0; i < n; i++) {
        ds_put_format(s, "%s%s", i ? ", " : "", addrs[i]);
    }
    if (n > 1) {
        ds_put_char(s, '}');
    }
}

void
bfd_build_port_lflows(struct lflow_table *t, const struct lr_port *p)
{
    const struct ls_datapath *dp = p->router->dp;
    const struct uuid *hint = &p->nb->header_.uuid;
    struct ds match = DS_EMPTY_INITIALIZER;
    struct ds addrs = DS_EMPTY_INITIALIZER;

    for (int v6 = 0; v6 < 2; v6++) {
        size_t n = v6 ? p->n_ip6 : p->n_ip4;
        if (!n) {
            continue;
        }
        const char **a = xmalloc(n * sizeof *a);
        for (size_t i = 0; i < n; i++) {
            a[i] = v6 ? p->ip6[i].addr_s : p->ip4[i].addr_s;
        }
        ds_clear(&addrs);
        put_addrs(&addrs, a, n);
        free(a);

        /* Its own BFD packets go out; those to it go to ovn-controller. */
        ds_clear(&match);
        ds_put_format(&match, "ip%c.src == %s && udp.dst == 3784",
                      v6 ? '6' : '4', ds_cstr(&addrs));
        lflow_add_hint(t, dp, S_LR_IN_IP_INPUT, 110, ds_cstr(&match),
                       "next; ", hint);
        ds_clear(&match);
        ds_put_format(&match, "ip%c.dst == %s && udp.dst == 3784",
                      v6 ? '6' : '4', ds_cstr(&addrs));
        lflow_add_hint(t, dp, S_LR_IN_IP_INPUT, 110, ds_cstr(&match),
                       "handle_bfd_msg(); ", hint);
    }
    ds_destroy(&match);
    ds_destroy(&addrs);
}

void
bfd_build_route_lflow(struct lflow_table *t, const struct ls_datapath *dp,
                      uint16_t prio, const char *match, const char *actions,
                      const struct uuid *hint)
{
    char *m = xasprintf("%s && udp.dst == 3784", match);
    lflow_add_hint(t, dp, S_LR_IN_IP_ROUTING, prio + 1, m, actions, hint);
    free(m);
}
