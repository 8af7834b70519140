/* ovn-northd: the process.
 *
 * Command line, daemonization, the two database replicas (lib/rdb.h) and
 * their transactions, the SB lock that decides which of several instances
 * is active, pause/resume and the unixctl commands.  The
 * compile-and-reconcile work itself is northd.c's. */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "command-line.h"
#include "coverage.h"
#include "daemon.h"
#include "fatal-signal.h"
#include "lib/nb-rdb.h"
#include "lib/objpool.h"
#include "lib/rdb.h"
#include "lib/sb-rdb.h"
#include "lib/strpack.h"
#include "lib/strpool.h"
#include "memory.h"
#include "northd/acl-check.h"
#include "northd/acl-lint.h"
#include "northd/compile.h"
#include "northd/dpset.h"
#include "northd/features.h"
#include "northd/global-opts.h"
#include "northd/northd.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/poll-loop.h"
#include "openvswitch/vlog.h"
#include "simap.h"
#include "stream-ssl.h"
#include "stopwatch.h"
#include "stream.h"
#include "timeval.h"
#include "unixctl.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(ovn_northd);

COVERAGE_DEFINE(northd_run);
COVERAGE_DEFINE(northd_commit_failed);

/* The SB lock every active-standby instance competes for. */
#define NORTHD_LOCK_NAME "ovn_northd"

struct northd_state {
    bool exiting;
    bool paused;
    bool had_lock;              /* Lock state seen on the last iteration. */
    bool suspended;             /* Lost the lock with the SB connection:
                                 * keeps what it derived, and resumes with
                                 * an incremental pass if the lock comes
                                 * back with a replica that resumed. */
    bool force_run;             /* Recompute on the next chance. */
    long long int retry_msec;   /* After a failed commit: no pass before
                                 * this time (time_msec()). */
    long long int backoff_msec; /* NB_Global options:
                                 * northd-backoff-interval-ms. */
    unsigned int nb_seqno;      /* Replica seqnos at the last pass. */
    unsigned int sb_seqno;
    unsigned int nb_reset;      /* Replica reset seqnos at the last pass. */
    unsigned int sb_reset;

    /* Transactions sent and not completed. */
    struct rdb_txn *sb_txn;
    int64_t sb_txn_cfg;         /* The nb_cfg 'sb_txn' carries. */
    struct rdb_txn *nb_txn;
    int64_t sb_cur_cfg;         /* The nb_cfg whose results are in the SB. */

    size_t max_flow_inserts;    /* --sb-txn-max-flows. */
    long long int log_pass_msec;    /* inc-engine/compute-log-timeout: a
                                     * pass that takes longer is logged
                                     * (0: none). */
    int n_threads;              /* --n-threads (see below). */
    const char *n_threads_arg;  /* Its argument, if out of range. */
    bool flows_pending;         /* The last pass left flows for the next. */
    bool check_incremental;     /* --check-incremental. */

    /* What the command line names (parse_options()). */
    char *nb_db;                /* --ovnnb-db, owned. */
    char *sb_db;                /* --ovnsb-db, owned. */
    const char *unixctl_path;   /* --unixctl, or NULL. */

    struct northd *northd;      /* Everything the passes keep. */

    /* --compile (northd/compile.h). */
    struct compile_options compile;
    unsigned int n_passes;      /* Passes run. */
    bool compile_failed;        /* A transaction failed. */
};

/* New Logical_Flow rows per SB transaction, by default.  One transaction
 * with a whole large SB (millions of rows) is more than a stock
 * ovsdb-server can hold in memory while it parses it; 100,000 rows is
 * about 40 MB of JSON. */
#define DEFAULT_MAX_FLOW_INSERTS 100000

/* Stopwatches, as stock's "stopwatch/show" names them: the main loop and
 * a pass (which here covers what stock splits into several). */
#define LOOP_STOPWATCH "ovn-northd-loop"
#define PASS_STOPWATCH "ovnnb_db_run"


static unixctl_cb_func northd_unixctl_exit;
static unixctl_cb_func northd_unixctl_pause;
static unixctl_cb_func northd_unixctl_resume;
static unixctl_cb_func northd_unixctl_is_paused;
static unixctl_cb_func northd_unixctl_status;
static unixctl_cb_func northd_unixctl_not_compiled;
static unixctl_cb_func northd_unixctl_connection_status;
static unixctl_cb_func northd_unixctl_recompute;
static unixctl_cb_func northd_unixctl_cluster_state_reset;
static unixctl_cb_func northd_unixctl_stats;
static unixctl_cb_func northd_unixctl_acl_errors;
static unixctl_cb_func northd_unixctl_acl_lint;
static unixctl_cb_func northd_unixctl_engine_show_stats;
static unixctl_cb_func northd_unixctl_engine_clear_stats;
static unixctl_cb_func northd_unixctl_engine_recompute;
static unixctl_cb_func northd_unixctl_get_n_threads;
static unixctl_cb_func northd_unixctl_compute_log_timeout;
static unixctl_cb_func northd_unixctl_chassis_features;
static unixctl_cb_func northd_unixctl_set_n_threads;
static unixctl_cb_func northd_unixctl_check_incremental;
static unixctl_cb_func northd_unixctl_corrupt_flows;

/* Stock ovn-northd builds logical flows in N threads with --n-threads=N
 * (1 to 256; other values are taken as the nearest, with a warning), and
 * "parallel-build/set-n-threads" changes N.  This northd compiles in one
 * thread (its incremental passes make parallel builds moot), but takes the
 * option and the commands, with the same checks, so that scripts written
 * for stock (Debian's ovn-ctl passes --n-threads) work unchanged: N is
 * remembered and reported, and has no other effect. */
#define N_THREADS_MAX 256

static const char *
ovn_rundir(void)
{
    const char *dir = getenv("OVN_RUNDIR");
    return dir && dir[0] ? dir : "/var/run/ovn";
}

static char *
default_db(const char *env, const char *sock)
{
    const char *db = getenv(env);
    return db && db[0] ? xstrdup(db)
                       : xasprintf("unix:%s/%s", ovn_rundir(), sock);
}

static void
usage(void)
{
    /* Freed before exit(): under LeakSanitizer, a leak here would turn
     * "--help" into a failure. */
    char *nb_default = default_db("OVN_NB_DB", "ovnnb_db.sock");
    char *sb_default = default_db("OVN_SB_DB", "ovnsb_db.sock");

    printf("\
%s: OVN northbound to southbound compiler for logical switches\n\
usage: %s [OPTIONS]\n\
\n\
Options:\n\
  --ovnnb-db=DATABASE       connect to the OVN_Northbound database at DATABASE\n\
                            (default: $OVN_NB_DB or %s)\n\
  --ovnsb-db=DATABASE       connect to the OVN_Southbound database at DATABASE\n\
                            (default: $OVN_SB_DB or %s)\n\
  --dry-run                 start paused: connect, but do not take the lock\n\
                            or write anything until \"resume\"\n\
  --n-threads=N             accepted for compatibility with stock ovn-northd\n\
                            (this northd compiles in one thread)\n\
  -u, --unixctl=SOCKET      override the default control socket name\n\
  --sb-txn-max-flows=N      insert at most N logical flows per SB transaction\n\
                            (default: %d; 0: no limit)\n\
  --check-incremental       (for tests) after every incremental pass, build\n\
                            everything again and report any difference\n\
\n\
Offline compile, without database servers (docs/compile.md):\n\
  --compile=NB-FILE         compile the NB database file NB-FILE, print the\n\
                            ACL errors and what is not compiled, and exit\n\
  --output=SB-FILE          write the SB northd would produce to SB-FILE\n\
  --diff=SB-FILE            start from the SB database file SB-FILE and print\n\
                            what northd would change in it (SB-FILE is not\n\
                            written)\n\
  --nb-output=FILE          write the NB with northd's feedback to FILE\n\
  --lint                    print the ACL lint (as unixctl acl/lint) too\n\
  --check                   exit with status 2 if an ACL is invalid, NB\n\
                            content was not understood, or (with --lint)\n\
                            the lint found something\n\
\n\
  -h, --help                display this help message\n\
  -o, --options             list available options\n\
  -V, --version             display version information\n",
           program_name, program_name, nb_default, sb_default,
           DEFAULT_MAX_FLOW_INSERTS);
    free(nb_default);
    free(sb_default);
    daemon_usage();
    vlog_usage();
    stream_usage("database", true, true, false);
    exit(EXIT_SUCCESS);
}

static void
parse_options(int argc, char *argv[], struct northd_state *state)
{
    enum {
        OPT_DRY_RUN = UCHAR_MAX + 1,
        OPT_SB_TXN_MAX_FLOWS,
        OPT_N_THREADS,
        OPT_CHECK_INCREMENTAL,
        OPT_COMPILE,
        OPT_OUTPUT,
        OPT_DIFF,
        OPT_NB_OUTPUT,
        OPT_CHECK,
        OPT_LINT,
        DAEMON_OPTION_ENUMS,
        VLOG_OPTION_ENUMS,
        SSL_OPTION_ENUMS,
    };
    static const struct option long_options[] = {
        /* Short options as stock's: -d is the SB, -D the NB. */
        {"ovnsb-db", required_argument, NULL, 'd'},
        {"ovnnb-db", required_argument, NULL, 'D'},
        {"unixctl", required_argument, NULL, 'u'},
        {"dry-run", no_argument, NULL, OPT_DRY_RUN},
        {"n-threads", required_argument, NULL, OPT_N_THREADS},
        {"sb-txn-max-flows", required_argument, NULL, OPT_SB_TXN_MAX_FLOWS},
        {"check-incremental", no_argument, NULL, OPT_CHECK_INCREMENTAL},
        {"compile", required_argument, NULL, OPT_COMPILE},
        {"output", required_argument, NULL, OPT_OUTPUT},
        {"diff", required_argument, NULL, OPT_DIFF},
        {"nb-output", required_argument, NULL, OPT_NB_OUTPUT},
        {"check", no_argument, NULL, OPT_CHECK},
        {"lint", no_argument, NULL, OPT_LINT},
        {"help", no_argument, NULL, 'h'},
        {"options", no_argument, NULL, 'o'},
        {"version", no_argument, NULL, 'V'},
        DAEMON_LONG_OPTIONS,
        VLOG_LONG_OPTIONS,
        STREAM_SSL_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    char *short_options = ovs_cmdl_long_options_to_short_options(long_options);

    for (;;) {
        int c = getopt_long(argc, argv, short_options, long_options, NULL);
        if (c == -1) {
            break;
        }

        switch (c) {
        DAEMON_OPTION_HANDLERS;
        VLOG_OPTION_HANDLERS;
        STREAM_SSL_OPTION_HANDLERS;

        case 'd':
            free(state->sb_db);
            state->sb_db = xstrdup(optarg);
            break;

        case 'D':
            free(state->nb_db);
            state->nb_db = xstrdup(optarg);
            break;

        case OPT_CHECK_INCREMENTAL:
            state->check_incremental = true;
            break;

        case OPT_DRY_RUN:
            state->paused = true;
            break;

        case OPT_COMPILE:
            state->compile.nb_file = optarg;
            break;

        case OPT_OUTPUT:
            state->compile.output = optarg;
            break;

        case OPT_DIFF:
            state->compile.diff = optarg;
            break;

        case OPT_NB_OUTPUT:
            state->compile.nb_output = optarg;
            break;

        case OPT_CHECK:
            state->compile.check = true;
            break;

        case OPT_LINT:
            state->compile.lint = true;
            break;

        case 'u':
            state->unixctl_path = optarg;
            break;

        case OPT_N_THREADS: {
            /* As stock: what atoi() makes of it, in range. */
            int n = atoi(optarg);
            state->n_threads = MAX(1, MIN(n, N_THREADS_MAX));
            state->n_threads_arg = n == state->n_threads ? NULL : optarg;
            break;
        }

        case OPT_SB_TXN_MAX_FLOWS: {
            unsigned long long int n;
            if (!isdigit((unsigned char) optarg[0])
                || !str_to_ullong(optarg, 10, &n) || n > SIZE_MAX) {
                free(short_options);
                fprintf(stderr, "%s: --sb-txn-max-flows: \"%s\" is not a "
                        "number of flows\n", program_name, optarg);
                exit(EXIT_FAILURE);
            }
            state->max_flow_inserts = n;
            break;
        }

        /* The cases that exit free 'short_options' first, so that
         * LeakSanitizer does not turn their exit status into 1. */
        case 'h':
            free(short_options);
            usage();
            OVS_NOT_REACHED();

        case 'o':
            ovs_cmdl_print_options(long_options);
            free(short_options);
            exit(EXIT_SUCCESS);

        case 'V':
            free(short_options);
            fputs(ovs_get_program_version(), stdout);
            printf("ovn-ls-northd %s\n", LSN_VERSION);
            printf("SB DB Schema %s\n", sb_rdb_class.version);
            printf("NB DB Schema %s\n", nb_rdb_class.version);
            exit(EXIT_SUCCESS);

        case '?':
            /* getopt_long() already printed what was wrong. */
            free(short_options);
            fprintf(stderr, "%s: use --help for usage\n", program_name);
            exit(EXIT_FAILURE);

        default:
            ovs_fatal(0, "unexpected option %d", c);
        }
    }
    free(short_options);

    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument \"%s\" "
                "(use --help for usage)\n", program_name, argv[optind]);
        exit(EXIT_FAILURE);
    }

    const struct compile_options *co = &state->compile;
    if (co->nb_file) {
        if (state->nb_db || state->sb_db || get_detach() || state->paused) {
            fprintf(stderr, "%s: --compile reads a file: it takes no "
                    "--ovnnb-db, --ovnsb-db, --detach or --dry-run\n",
                    program_name);
            exit(EXIT_FAILURE);
        }
        return;
    } else if (co->output || co->diff || co->nb_output || co->check
               || co->lint) {
        fprintf(stderr, "%s: --output, --diff, --nb-output, --check and "
                "--lint go with --compile\n", program_name);
        exit(EXIT_FAILURE);
    }

    if (!state->nb_db || !state->nb_db[0]) {
        free(state->nb_db);
        state->nb_db = default_db("OVN_NB_DB", "ovnnb_db.sock");
    }
    if (!state->sb_db || !state->sb_db[0]) {
        free(state->sb_db);
        state->sb_db = default_db("OVN_SB_DB", "ovnsb_db.sock");
    }
    const char *dbs[] = { state->nb_db, state->sb_db };
    for (size_t i = 0; i < ARRAY_SIZE(dbs); i++) {
        char *error = rdb_check_remote(dbs[i]);
        if (error) {
            ovs_fatal(0, "%s: %s", i ? "--ovnsb-db" : "--ovnnb-db", error);
        }
    }
}

/* Applies the NB_Global options that concern the process rather than
 * what it compiles: northd_probe_interval (ms, for both connections; 0
 * disables probes, a nonzero value is at least 1000) and
 * northd-backoff-interval-ms. */
static void
apply_nb_options(struct northd_state *state, struct rdb *nb, struct rdb *sb)
{
    if (!rdb_is_synced(nb)) {
        return;
    }
    const struct nb_nb_global *g = nb_nb_global_first(nb);
    const struct smap *options = g ? &g->options : NULL;
    int probe = options ? smap_get_int(options, "northd_probe_interval", -1)
                        : -1;
    if (probe > 0 && probe < 1000) {
        probe = 1000;
    }
    rdb_set_probe_interval(nb, probe);
    rdb_set_probe_interval(sb, probe);

    int backoff = options ? smap_get_int(options,
                                         "northd-backoff-interval-ms", 0)
                          : 0;
    state->backoff_msec = MAX(backoff, 0);
}

/* Logs lock transitions and requests a full run when the lock arrives, so a
 * standby that becomes active reconciles at once.
 *
 * An active instance whose SB connection drops loses the lock with it.
 * It keeps what it derived ('suspended'): if the lock comes back on the
 * next connection and the replica resumed from the server's history (a
 * clustered SB: rdb.h), what changed meanwhile arrives as tracked changes
 * and an incremental pass suffices; if the replica fetched a full copy,
 * its reset makes the next pass a full one anyway.  Back on the SB
 * without the lock, another instance is active: this one is a standby and
 * lets go of everything. */
static void
update_lock_state(struct northd_state *state, struct rdb *sb)
{
    bool has_lock = !state->paused && rdb_has_lock(sb);
    if (has_lock && !state->had_lock) {
        VLOG_INFO("acquired the SB lock \"%s\": this instance is now active",
                  NORTHD_LOCK_NAME);
        if (state->suspended) {
            VLOG_INFO("resuming from what this instance computed before "
                      "the SB connection was lost");
        } else {
            state->force_run = true;
        }
        state->suspended = false;
        state->retry_msec = 0;
    } else if (!has_lock && state->had_lock) {
        VLOG_INFO("%s the SB lock \"%s\": this instance is now %s",
                  state->paused ? "released" : "lost", NORTHD_LOCK_NAME,
                  state->paused ? "paused" : "on standby");
        state->suspended = !state->paused && !rdb_is_synced(sb);
    } else if (!has_lock && state->suspended
               && (state->paused || rdb_is_synced(sb))) {
        state->suspended = false;
    }
    state->had_lock = has_lock;
}

static const char *
status_name(const struct northd_state *state, struct rdb *sb)
{
    return (state->paused ? "paused"
            : rdb_has_lock(sb) ? "active"
            : "standby");
}

/* A failed commit is never replayed: the next pass recomputes from
 * whatever the replicas then hold.  A failure the same snapshot
 * reproduces (e.g. a constraint violation) would spin
 * recompute-commit-fail at full speed, so the next pass waits a second. */
static void
commit_failed(struct northd_state *state, const char *db,
              const struct rdb_txn *txn)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);
    COVERAGE_INC(northd_commit_failed);
    const char *error = rdb_txn_get_error(txn);
    if (state->compile.nb_file) {
        /* The servers are ours and hold nothing else: a retry would
         * fail the same way. */
        fprintf(stderr, "%s: --compile: %s transaction failed (%s%s%s)\n",
                program_name, db,
                rdb_txn_status_to_string(rdb_txn_get_status(txn)),
                error ? ": " : "", error ? error : "");
        state->compile_failed = true;
        state->exiting = true;
        return;
    }
    VLOG_INFO_RL(&rl, "%s transaction failed (%s%s%s), will recompute", db,
                 rdb_txn_status_to_string(rdb_txn_get_status(txn)),
                 error ? ": " : "", error ? error : "");
    state->force_run = true;
    state->retry_msec = time_msec() + 1000;
}

/* Takes note of the end of the transactions in flight. */
static void
check_txns(struct northd_state *state)
{
    if (state->sb_txn) {
        enum rdb_txn_status status = rdb_txn_get_status(state->sb_txn);
        if (status == RDB_TXN_SUCCESS) {
            state->sb_cur_cfg = state->sb_txn_cfg;
        } else if (status != RDB_TXN_INCOMPLETE) {
            commit_failed(state, "SB", state->sb_txn);
        }
        if (status != RDB_TXN_INCOMPLETE) {
            rdb_txn_destroy(state->sb_txn);
            state->sb_txn = NULL;
        }
    }
    if (state->nb_txn) {
        enum rdb_txn_status status = rdb_txn_get_status(state->nb_txn);
        if (status != RDB_TXN_SUCCESS && status != RDB_TXN_INCOMPLETE) {
            commit_failed(state, "NB", state->nb_txn);
        }
        if (status != RDB_TXN_INCOMPLETE) {
            rdb_txn_destroy(state->nb_txn);
            state->nb_txn = NULL;
        }
    }
}

/* Commits 'txn' of 'db' ("NB" or "SB"): returns it if it is now in flight,
 * otherwise destroys it and returns NULL. */
static struct rdb_txn *
commit(struct northd_state *state, const char *db, struct rdb_txn *txn,
       bool *unchanged)
{
    rdb_txn_commit(txn);
    enum rdb_txn_status status = rdb_txn_get_status(txn);
    *unchanged = status == RDB_TXN_UNCHANGED;
    if (status == RDB_TXN_INCOMPLETE) {
        return txn;
    }
    if (status != RDB_TXN_UNCHANGED) {
        commit_failed(state, db, txn);
    }
    rdb_txn_destroy(txn);
    return NULL;
}

/* Whether anything calls for a pass. */
static bool
pass_wanted(const struct northd_state *state, const struct rdb *nb,
            const struct rdb *sb)
{
    return (state->force_run || state->flows_pending
            || rdb_get_reset_seqno(nb) != state->nb_reset
            || rdb_get_reset_seqno(sb) != state->sb_reset
            || rdb_get_seqno(nb) != state->nb_seqno
            || rdb_get_seqno(sb) != state->sb_seqno
            || northd_timer_due(state->northd));
}

/* --compile: whether northd is done, i.e. active on both replicas, with a
 * pass run, nothing in flight and nothing that calls for another pass.
 * The server sends every update a transaction causes before its reply, so
 * the echo of the last commit has been applied by then. */
static bool
compile_settled(const struct northd_state *state, const struct rdb *nb,
                const struct rdb *sb)
{
    return (state->n_passes && state->had_lock
            && rdb_is_synced(nb) && rdb_is_synced(sb)
            && !state->sb_txn && !state->nb_txn
            && !pass_wanted(state, nb, sb));
}

/* Runs a pass if anything calls for one, and commits what it wrote. */
static void
run_pass(struct northd_state *state, struct rdb *nb, struct rdb *sb,
         struct rdb_txn *nb_txn)
{
    long long int now = time_msec();
    if (now < state->retry_msec) {
        return;
    }
    bool reset = (rdb_get_reset_seqno(nb) != state->nb_reset
                  || rdb_get_reset_seqno(sb) != state->sb_reset);
    if (!pass_wanted(state, nb, sb)
        && !(nb_txn && northd_nb_writes_pending(state->northd))) {
        return;
    }

    COVERAGE_INC(northd_run);
    state->n_passes++;
    struct northd_ctx ctx = {
        .nb = nb,
        .sb = sb,
        .nb_txn = nb_txn,
        .sb_txn = rdb_txn_create(sb),
        .sb_next_cfg = state->sb_cur_cfg,
        .sb_cur_cfg = state->sb_cur_cfg,
        .sb_reset = rdb_get_reset_seqno(sb) != state->sb_reset,
        .max_flow_inserts = state->max_flow_inserts,
    };
    /* A replica that started over has new rows: nothing kept from the old
     * ones may be used. */
    bool full = state->force_run || reset;
    stopwatch_start(PASS_STOPWATCH, now);
    northd_run(state->northd, &ctx, full);
    long long int done = time_msec();
    stopwatch_stop(PASS_STOPWATCH, done);
    if (state->log_pass_msec && done - now > state->log_pass_msec) {
        VLOG_INFO("%s pass took %lld ms", full ? "full" : "incremental",
                  done - now);
    }
    state->force_run = false;
    state->flows_pending = ctx.flows_pending;
    state->nb_seqno = rdb_get_seqno(nb);
    state->sb_seqno = rdb_get_seqno(sb);
    state->nb_reset = rdb_get_reset_seqno(nb);
    state->sb_reset = rdb_get_reset_seqno(sb);

    /* With a backoff interval, the next pass waits as long as this one
     * took, up to the interval: a burst of changes then costs fewer
     * passes. */
    if (state->backoff_msec > 0) {
        long long int end = time_msec();
        long long int delay = MIN(end - now, state->backoff_msec);
        state->retry_msec = MAX(state->retry_msec, end + delay);
    }

    bool unchanged;
    state->sb_txn = commit(state, "SB", ctx.sb_txn, &unchanged);
    state->sb_txn_cfg = ctx.sb_next_cfg;
    if (unchanged) {
        state->sb_cur_cfg = ctx.sb_next_cfg;
    }
    rdb_track_clear(nb);
    rdb_track_clear(sb);
}

struct unixctl_aux {
    struct northd_state *state;
    struct rdb *nb;
    struct rdb *sb;
};

int
main(int argc, char *argv[])
{
    struct northd_state state = {
        .force_run = true,
        .max_flow_inserts = DEFAULT_MAX_FLOW_INSERTS,
        .n_threads = 1,
    };

    /* The OVS library puts default pidfiles and sockets in its own run
     * directory; ours belong with OVN's, as stock's do even when
     * OVS_RUNDIR is set. */
    setenv("OVS_RUNDIR", ovn_rundir(), 1);

    ovs_cmdl_proctitle_init(argc, argv);
    /* "version" over unixctl (and the first lines of --version) say what
     * stock's say, with the OVN release whose interfaces this northd
     * matches: tools parse them. */
    ovs_set_program_name(argv[0], NORTHD_OVN_VERSION);
    service_start(&argc, &argv);
    /* --compile reports on stdout: what it logs goes to the console only
     * from warnings up, unless -v says otherwise. */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--compile")
            || !strncmp(argv[i], "--compile=", 10)) {
            vlog_set_levels(NULL, VLF_CONSOLE, VLL_WARN);
            break;
        }
    }
    parse_options(argc, argv, &state);
    fatal_ignore_sigpipe();

    struct compile *compile = NULL;
    struct unixctl_server *unixctl = NULL;
    if (state.compile.nb_file) {
        /* No daemon, no control socket: the servers are in this process
         * (northd/compile.c). */
        char *error = compile_start(&state.compile, &compile,
                                    &state.nb_db, &state.sb_db);
        if (error) {
            fprintf(stderr, "%s: %s\n", program_name, error);
            free(error);
            exit(COMPILE_EXIT_ERROR);
        }
    } else {
        daemonize_start(false);

        char *abs_unixctl = NULL;
        const char *unixctl_path = state.unixctl_path;
        if (!unixctl_path) {
            abs_unixctl = xasprintf("%s/%s.%ld.ctl", ovn_rundir(),
                                    program_name, (long int) getpid());
        }
        int error = unixctl_server_create(unixctl_path ? unixctl_path
                                                       : abs_unixctl,
                                          &unixctl);
        free(abs_unixctl);
        if (error) {
            ovs_fatal(error, "could not create unixctl server");
        }

        daemonize_complete();
    }

    /* NB: what northd compiles (lib/nb.rdb), read-only except the status
     * columns northd owns.  SB: what it reconciles (lib/sb.rdb). */
    struct rdb *nb = rdb_create(&nb_rdb_class, state.nb_db);
    struct rdb *sb = rdb_create(&sb_rdb_class, state.sb_db);
    state.northd = northd_create();
    northd_set_check_incremental(state.northd, state.check_incremental);
    if (!state.paused) {
        rdb_set_lock(sb, NORTHD_LOCK_NAME);
    }

    struct unixctl_aux aux = { .state = &state, .nb = nb, .sb = sb };
    unixctl_command_register("exit", "", 0, 0, northd_unixctl_exit, &aux);
    unixctl_command_register("pause", "", 0, 0, northd_unixctl_pause, &aux);
    unixctl_command_register("resume", "", 0, 0, northd_unixctl_resume,
                             &aux);
    unixctl_command_register("is-paused", "", 0, 0, northd_unixctl_is_paused,
                             &aux);
    unixctl_command_register("status", "", 0, 0, northd_unixctl_status,
                             &aux);
    unixctl_command_register("northd/not-compiled", "", 0, 0,
                             northd_unixctl_not_compiled, &aux);
    unixctl_command_register("nb-connection-status", "", 0, 0,
                             northd_unixctl_connection_status, nb);
    unixctl_command_register("sb-connection-status", "", 0, 0,
                             northd_unixctl_connection_status, sb);
    unixctl_command_register("nb-cluster-state-reset", "", 0, 0,
                             northd_unixctl_cluster_state_reset, nb);
    unixctl_command_register("sb-cluster-state-reset", "", 0, 0,
                             northd_unixctl_cluster_state_reset, sb);
    unixctl_command_register("recompute", "", 0, 0, northd_unixctl_recompute,
                             &aux);
    unixctl_command_register("northd/stats", "", 0, 0, northd_unixctl_stats,
                             &aux);
    unixctl_command_register("acl/errors", "", 0, 0,
                             northd_unixctl_acl_errors, &aux);
    unixctl_command_register("acl/lint", "[SWITCH|PORT_GROUP|- [THRESHOLD]]",
                             0, 2, northd_unixctl_acl_lint, &aux);

    unixctl_command_register("inc-engine/show-stats", "[NODE [STAT]]", 0, 2,
                             northd_unixctl_engine_show_stats, &aux);
    unixctl_command_register("inc-engine/clear-stats", "", 0, 0,
                             northd_unixctl_engine_clear_stats, &aux);
    unixctl_command_register("inc-engine/recompute", "", 0, 0,
                             northd_unixctl_engine_recompute, &aux);
    unixctl_command_register("inc-engine/compute-log-timeout", "MSEC", 1, 1,
                             northd_unixctl_compute_log_timeout, &aux);
    unixctl_command_register("debug/chassis-features-list", "", 0, 0,
                             northd_unixctl_chassis_features, &aux);
    stopwatch_create(LOOP_STOPWATCH, SW_MS);
    stopwatch_create(PASS_STOPWATCH, SW_MS);
    unixctl_command_register("parallel-build/get-n-threads", "", 0, 0,
                             northd_unixctl_get_n_threads, &aux);
    unixctl_command_register("parallel-build/set-n-threads", "N_THREADS", 1,
                             1, northd_unixctl_set_n_threads, &aux);
    unixctl_command_register("northd/check-incremental", "[on|off]", 0, 1,
                             northd_unixctl_check_incremental, &aux);
    unixctl_command_register("northd/corrupt-flows", "", 0, 0,
                             northd_unixctl_corrupt_flows, &aux);

    VLOG_INFO("NB at %s, SB at %s%s", state.nb_db, state.sb_db,
              state.paused ? " (paused)" : "");
    if (state.n_threads_arg) {
        VLOG_WARN("Setting n_threads to %d as --n-threads option was set to "
                  ": [%s]", state.n_threads, state.n_threads_arg);
    }
    if (state.n_threads > 1) {
        VLOG_INFO("--n-threads=%d: accepted for compatibility; this northd "
                  "compiles in one thread", state.n_threads);
    }

    while (!state.exiting) {
        stopwatch_start(LOOP_STOPWATCH, time_msec());
        memory_run();
        if (memory_should_report()) {
            struct simap usage = SIMAP_INITIALIZER(&usage);
            rdb_get_memory_usage(nb, &usage);
            rdb_get_memory_usage(sb, &usage);
            simap_increase(&usage, "dpsets", dpset_pool_count());
            simap_increase(&usage, "dpset-kB", dpset_pool_bytes() / 1024);
            simap_increase(&usage, "strings", strpool_count());
            simap_increase(&usage, "packed-strings", strpack_count());
            simap_increase(&usage, "packed-kB", strpack_bytes() / 1024);
            simap_put(&usage, "rdb-shared-maps",
                      rdb_shared_map_count());
            objpool_get_memory_usage(&usage);
            memory_report(&usage);
            simap_destroy(&usage);
        }

        if (compile) {
            compile_run(compile);
        }
        rdb_run(nb);
        rdb_run(sb);
        check_txns(&state);
        apply_nb_options(&state, nb, sb);
        update_lock_state(&state, sb);

        struct rdb_txn *nb_txn = (!state.nb_txn && rdb_is_synced(nb)
                                  ? rdb_txn_create(nb) : NULL);
        if (state.had_lock && rdb_is_synced(nb) && rdb_is_synced(sb)) {
            if (!state.sb_txn) {
                run_pass(&state, nb, sb, nb_txn);
            }
            if (nb_txn) {
                struct northd_ctx ctx = {
                    .nb = nb, .sb = sb, .nb_txn = nb_txn,
                    .sb_cur_cfg = state.sb_cur_cfg,
                };
                northd_update_sequence_numbers(state.northd, &ctx);
            }
        } else if (!state.had_lock && !state.suspended) {
            /* A standby keeps nothing: it recomputes when it takes over.
             * A transaction still being written would read what is
             * freed here.  What northd derived goes before the replicas
             * clear their tracking: a replica that started over while
             * this instance was suspended keeps the old rows northd
             * points at only until then. */
            if (state.sb_txn) {
                rdb_txn_destroy(state.sb_txn);
                state.sb_txn = NULL;
            }
            northd_invalidate(state.northd);
            rdb_track_clear(nb);
            rdb_track_clear(sb);
            state.flows_pending = false;
        }
        if (nb_txn) {
            bool unchanged;
            state.nb_txn = commit(&state, "NB", nb_txn, &unchanged);
        }

        if (compile && compile_settled(&state, nb, sb)) {
            break;
        }
        unixctl_server_run(unixctl);

        rdb_wait(nb);
        rdb_wait(sb);
        unixctl_server_wait(unixctl);
        memory_wait();
        if (state.had_lock && !state.sb_txn
            && rdb_is_synced(nb) && rdb_is_synced(sb)) {
            if (time_msec() < state.retry_msec) {
                poll_timer_wait_until(state.retry_msec);
            } else if (state.force_run || state.flows_pending) {
                poll_immediate_wake();
            }
            northd_timer_wait(state.northd);
        }
        if (compile) {
            compile_wait(compile);
        }
        if (state.exiting) {
            poll_immediate_wake();
        }
        stopwatch_stop(LOOP_STOPWATCH, time_msec());
        poll_block();
        if (should_service_stop()) {
            state.exiting = true;
        }
    }

    int status = 0;
    if (compile) {
        status = (state.compile_failed ? COMPILE_EXIT_ERROR
                  : compile_finish(compile, state.northd, nb));
    }
    if (state.sb_txn) {
        rdb_txn_destroy(state.sb_txn);
    }
    if (state.nb_txn) {
        rdb_txn_destroy(state.nb_txn);
    }
    northd_destroy(state.northd);
    unixctl_server_destroy(unixctl);
    rdb_destroy(nb);
    rdb_destroy(sb);
    compile_destroy(compile);
    free(state.nb_db);
    free(state.sb_db);
    service_stop();
    return status;
}

static void
northd_unixctl_exit(struct unixctl_conn *conn, int argc OVS_UNUSED,
                    const char *argv[] OVS_UNUSED, void *aux_)
{
    struct unixctl_aux *aux = aux_;
    aux->state->exiting = true;
    unixctl_command_reply(conn, NULL);
}

static void
northd_unixctl_pause(struct unixctl_conn *conn, int argc OVS_UNUSED,
                     const char *argv[] OVS_UNUSED, void *aux_)
{
    struct unixctl_aux *aux = aux_;
    if (!aux->state->paused) {
        aux->state->paused = true;
        /* Give the lock up so that a standby can take over. */
        rdb_set_lock(aux->sb, NULL);
        VLOG_INFO("paused");
    }
    unixctl_command_reply(conn, NULL);
}

static void
northd_unixctl_resume(struct unixctl_conn *conn, int argc OVS_UNUSED,
                      const char *argv[] OVS_UNUSED, void *aux_)
{
    struct unixctl_aux *aux = aux_;
    if (aux->state->paused) {
        aux->state->paused = false;
        aux->state->force_run = true;
        rdb_set_lock(aux->sb, NORTHD_LOCK_NAME);
        VLOG_INFO("resumed");
        poll_immediate_wake();
    }
    unixctl_command_reply(conn, NULL);
}

static void
northd_unixctl_is_paused(struct unixctl_conn *conn, int argc OVS_UNUSED,
                         const char *argv[] OVS_UNUSED, void *aux_)
{
    struct unixctl_aux *aux = aux_;
    unixctl_command_reply(conn, aux->state->paused ? "true" : "false");
}

static void
northd_unixctl_status(struct unixctl_conn *conn, int argc OVS_UNUSED,
                      const char *argv[] OVS_UNUSED, void *aux_)
{
    struct unixctl_aux *aux = aux_;
    struct ds s = DS_EMPTY_INITIALIZER;
    /* One line, exactly as stock ovn-northd's: monitoring parses it. */
    ds_put_format(&s, "Status: %s\n", status_name(aux->state, aux->sb));
    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

/* NB content this northd does not compile, one line per table. */
static void
northd_unixctl_not_compiled(struct unixctl_conn *conn, int argc OVS_UNUSED,
                            const char *argv[] OVS_UNUSED,
                            void *aux_)
{
    struct unixctl_aux *aux = aux_;
    struct ds s = DS_EMPTY_INITIALIZER;
    northd_format_unsupported(aux->state->northd, &s);
    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

static void
northd_unixctl_connection_status(struct unixctl_conn *conn,
                                 int argc OVS_UNUSED,
                                 const char *argv[] OVS_UNUSED, void *db_)
{
    const struct rdb *db = db_;
    unixctl_command_reply(conn, rdb_is_connected(db)
                                ? "connected" : "not connected");
}

/* Forgets the cluster log index seen, for a cluster that was reset. */
static void
northd_unixctl_cluster_state_reset(struct unixctl_conn *conn,
                                   int argc OVS_UNUSED,
                                   const char *argv[] OVS_UNUSED,
                                   void *db_)
{
    rdb_cluster_state_reset(db_);
    unixctl_command_reply(conn, NULL);
}

static void
northd_unixctl_recompute(struct unixctl_conn *conn, int argc OVS_UNUSED,
                         const char *argv[] OVS_UNUSED, void *aux_)
{
    struct unixctl_aux *aux = aux_;
    aux->state->force_run = true;
    /* The replica does not follow what others insert into or change in
     * the tables northd writes from what it knows (Logical_Flow,
     * Port_Group, Address_Set: docs/rdb.md): a fresh copy of the SB makes
     * the full pass compare with what is really there and put back
     * anything someone else inserted, changed or deleted.  It writes
     * nothing when nothing was touched, as a restart does. */
    rdb_force_resync(aux->sb);
    poll_immediate_wake();
    unixctl_command_reply(conn, NULL);
}

static void
northd_unixctl_stats(struct unixctl_conn *conn, int argc OVS_UNUSED,
                     const char *argv[] OVS_UNUSED, void *aux_)
{
    struct unixctl_aux *aux = aux_;
    struct ds s = DS_EMPTY_INITIALIZER;
    northd_format_stats(aux->state->northd, &s);
    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

/* "inc-engine/show-stats [NODE [STAT]]", in stock's format: see
 * northd_format_engine_stats(). */
static void
northd_unixctl_engine_show_stats(struct unixctl_conn *conn, int argc,
                                 const char *argv[], void *aux_)
{
    struct unixctl_aux *aux = aux_;
    struct ds s = DS_EMPTY_INITIALIZER;
    northd_format_engine_stats(aux->state->northd, &s,
                               argc > 1 ? argv[1] : NULL,
                               argc > 2 ? argv[2] : NULL);
    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

static void
northd_unixctl_engine_clear_stats(struct unixctl_conn *conn,
                                  int argc OVS_UNUSED,
                                  const char *argv[] OVS_UNUSED,
                                  void *aux_)
{
    struct unixctl_aux *aux = aux_;
    northd_clear_engine_stats(aux->state->northd);
    unixctl_command_reply(conn, NULL);
}

/* Stock's name for "recompute". */
static void
northd_unixctl_engine_recompute(struct unixctl_conn *conn, int argc,
                                const char *argv[], void *aux)
{
    VLOG_INFO("User triggered force recompute.");
    northd_unixctl_recompute(conn, argc, argv, aux);
}

/* inc-engine/compute-log-timeout MSEC: passes longer than MSEC are
 * logged (stock logs its slow engine nodes); 0 turns it off. */
static void
northd_unixctl_compute_log_timeout(struct unixctl_conn *conn,
                                   int argc OVS_UNUSED, const char *argv[],
                                   void *aux_)
{
    struct unixctl_aux *aux = aux_;
    unsigned int msec;
    if (!str_to_uint(argv[1], 10, &msec)) {
        unixctl_command_reply_error(conn, "invalid timeout");
        return;
    }
    aux->state->log_pass_msec = msec;
    unixctl_command_reply(conn, NULL);
}

/* debug/chassis-features-list: what every chassis supports, in stock's
 * format. */
static void
northd_unixctl_chassis_features(struct unixctl_conn *conn,
                                int argc OVS_UNUSED,
                                const char *argv[] OVS_UNUSED, void *aux_)
{
    struct unixctl_aux *aux = aux_;
    struct ls_features f;
    ls_features_from_sb(&f, aux->sb);
    struct ds s = DS_EMPTY_INITIALIZER;
    ds_put_format(&s, "ct_no_masked_label:    %s\n",
                  f.ct_no_masked_label ? "true" : "false");
    ds_put_format(&s, "ct_lb_related:         %s\n",
                  f.ct_lb_related ? "true" : "false");
    ds_put_format(&s, "mac_binding_timestamp: %s\n",
                  f.mac_binding_timestamp ? "true" : "false");
    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

static void
northd_unixctl_get_n_threads(struct unixctl_conn *conn, int argc OVS_UNUSED,
                             const char *argv[] OVS_UNUSED, void *aux_)
{
    struct unixctl_aux *aux = aux_;
    char *reply = xasprintf("%d\n", aux->state->n_threads);
    unixctl_command_reply(conn, reply);
    free(reply);
}

static void
northd_unixctl_set_n_threads(struct unixctl_conn *conn, int argc OVS_UNUSED,
                             const char *argv[], void *aux_)
{
    struct unixctl_aux *aux = aux_;
    int n = atoi(argv[1]);
    if (n < 1 || n > N_THREADS_MAX) {
        char *error = xasprintf("invalid n_threads: %d\n", n);
        unixctl_command_reply_error(conn, error);
        free(error);
        return;
    }
    aux->state->n_threads = n;
    VLOG_INFO("parallel-build/set-n-threads %d: accepted for compatibility; "
              "this northd compiles in one thread", n);
    unixctl_command_reply(conn, NULL);
}

static void
northd_unixctl_acl_errors(struct unixctl_conn *conn, int argc OVS_UNUSED,
                          const char *argv[] OVS_UNUSED,
                          void *aux_)
{
    struct unixctl_aux *aux = aux_;
    struct ds s = DS_EMPTY_INITIALIZER;
    northd_format_acl_errors(aux->state->northd, &s, aux->nb);
    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

/* "acl/lint [SWITCH|PORT_GROUP|- [THRESHOLD]]": the ACL lint
 * (northd/acl-lint.h) of one switch or port group, or of all ("-" or no
 * argument), warning about expansions above THRESHOLD OpenFlow flows.
 * Findings make the reply an error, so that ovs-appctl's exit status says
 * whether there were any. */
static void
northd_unixctl_acl_lint(struct unixctl_conn *conn, int argc,
                        const char *argv[], void *aux_)
{
    struct unixctl_aux *aux = aux_;
    const char *filter = argc > 1 && strcmp(argv[1], "-") ? argv[1] : NULL;
    double threshold = ACL_LINT_DEFAULT_THRESHOLD;
    if (argc > 2) {
        unsigned long long int t;
        if (!str_to_ullong(argv[2], 10, &t)) {
            unixctl_command_reply_error(conn, "THRESHOLD must be a number");
            return;
        }
        threshold = t;
    }
    struct ds s = DS_EMPTY_INITIALIZER;
    size_t n = northd_lint_acls(aux->state->northd, aux->nb, filter,
                                threshold, &s);
    if (n == SIZE_MAX) {
        ds_clear(&s);
        ds_put_format(&s, "no switch or port group \"%s\"", filter);
    }
    if (n) {
        unixctl_command_reply_error(conn, ds_cstr(&s));
    } else {
        unixctl_command_reply(conn, ds_cstr(&s));
    }
    ds_destroy(&s);
}

/* "northd/check-incremental [on|off]": turns the check of incremental
 * passes on or off (northd.h), and reports what it found. */
static void
northd_unixctl_check_incremental(struct unixctl_conn *conn, int argc,
                                 const char *argv[], void *aux_)
{
    struct unixctl_aux *aux = aux_;
    if (argc > 1) {
        if (!strcmp(argv[1], "on") || !strcmp(argv[1], "off")) {
            northd_set_check_incremental(aux->state->northd,
                                         !strcmp(argv[1], "on"));
        } else {
            unixctl_command_reply_error(conn, "expected \"on\" or \"off\"");
            return;
        }
    }
    struct ds s = DS_EMPTY_INITIALIZER;
    northd_format_check_incremental(aux->state->northd, &s);
    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

/* "northd/corrupt-flows": for the test of the check above. */
static void
northd_unixctl_corrupt_flows(struct unixctl_conn *conn, int argc OVS_UNUSED,
                             const char *argv[] OVS_UNUSED, void *aux_)
{
    struct unixctl_aux *aux = aux_;
    if (!northd_corrupt_flows(aux->state->northd)) {
        unixctl_command_reply_error(conn, "nothing compiled yet");
        return;
    }
    unixctl_command_reply(conn, NULL);
}
