/* ovn-northd: the process.
 *
 * Command line, daemonization, the two database connections, the SB lock
 * that decides which of several instances is active, pause/resume and the
 * unixctl commands.  The compile-and-reconcile work itself is northd.c's. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "command-line.h"
#include "coverage.h"
#include "daemon.h"
#include "fatal-signal.h"
#include "lib/ovn-nb-idl.h"
#include "lib/ovn-sb-idl.h"
#include "memory.h"
#include "northd/acl-check.h"
#include "northd/northd.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/poll-loop.h"
#include "openvswitch/vlog.h"
#include "ovsdb-idl.h"
#include "simap.h"
#include "stream-ssl.h"
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
    bool force_run;             /* Recompute on the next chance. */
    long long int retry_msec;   /* After a failed SB commit: no forced run
                                 * before this time (time_msec()). */
    unsigned int nb_seqno;      /* IDL seqnos at the last successful run. */
    unsigned int sb_seqno;
};

static const char *ovnnb_db;
static const char *ovnsb_db;
static const char *unixctl_path;

static unixctl_cb_func northd_unixctl_exit;
static unixctl_cb_func northd_unixctl_pause;
static unixctl_cb_func northd_unixctl_resume;
static unixctl_cb_func northd_unixctl_is_paused;
static unixctl_cb_func northd_unixctl_status;
static unixctl_cb_func northd_unixctl_connection_status;
static unixctl_cb_func northd_unixctl_recompute;
static unixctl_cb_func northd_unixctl_stats;
static unixctl_cb_func northd_unixctl_acl_errors;

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
  --unixctl=SOCKET          override the default control socket name\n\
  -h, --help                display this help message\n\
  -V, --version             display version information\n",
           program_name, program_name, nb_default, sb_default);
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
        OPT_UNIXCTL,
        DAEMON_OPTION_ENUMS,
        VLOG_OPTION_ENUMS,
        SSL_OPTION_ENUMS,
    };
    static const struct option long_options[] = {
        {"ovnnb-db", required_argument, NULL, 'd'},
        {"ovnsb-db", required_argument, NULL, 'D'},
        {"dry-run", no_argument, NULL, OPT_DRY_RUN},
        {"unixctl", required_argument, NULL, OPT_UNIXCTL},
        {"help", no_argument, NULL, 'h'},
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
            ovnnb_db = optarg;
            break;

        case 'D':
            ovnsb_db = optarg;
            break;

        case OPT_DRY_RUN:
            state->paused = true;
            break;

        case OPT_UNIXCTL:
            unixctl_path = optarg;
            break;

        /* The cases that exit free 'short_options' first, so that
         * LeakSanitizer does not turn their exit status into 1. */
        case 'h':
            free(short_options);
            usage();
            OVS_NOT_REACHED();

        case 'V':
            free(short_options);
            printf("%s (ovn-ls-northd) %s\n", program_name, LSN_VERSION);
            printf("Open vSwitch Library %s\n", VERSION);
            printf("SB DB Schema %s\n", sbrec_get_db_version());
            printf("NB DB Schema %s\n", nbrec_get_db_version());
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

    if (!ovnnb_db || !ovnnb_db[0]) {
        ovnnb_db = default_db("OVN_NB_DB", "ovnnb_db.sock");
    }
    if (!ovnsb_db || !ovnsb_db[0]) {
        ovnsb_db = default_db("OVN_SB_DB", "ovnsb_db.sock");
    }
}

/* Logs lock transitions and requests a full run when the lock arrives, so a
 * standby that becomes active reconciles at once. */
static void
update_lock_state(struct northd_state *state, struct ovsdb_idl *sb_idl)
{
    bool has_lock = !state->paused && ovsdb_idl_has_lock(sb_idl);
    if (has_lock && !state->had_lock) {
        VLOG_INFO("acquired the SB lock \"%s\": this instance is now active",
                  NORTHD_LOCK_NAME);
        state->force_run = true;
    } else if (!has_lock && state->had_lock) {
        VLOG_INFO("%s the SB lock \"%s\": this instance is now %s",
                  state->paused ? "released" : "lost", NORTHD_LOCK_NAME,
                  state->paused ? "paused" : "on standby");
    }
    state->had_lock = has_lock;
}

static const char *
status_name(const struct northd_state *state, struct ovsdb_idl *sb_idl)
{
    return (state->paused ? "paused"
            : ovsdb_idl_has_lock(sb_idl) ? "active"
            : "standby");
}

static void
omit_table_alerts(struct ovsdb_idl *idl, const struct ovsdb_idl_table_class *tc)
{
    for (size_t i = 0; i < tc->n_columns; i++) {
        ovsdb_idl_omit_alert(idl, &tc->columns[i]);
    }
}

/* Changes to what only northd writes need no new pass: without this, each
 * NB change cost three full passes (the change, our SB commit coming back,
 * our sb_cfg write coming back).  Columns others write (Port_Binding
 * chassis and up, Chassis_Private, ...) keep waking us up.  Someone else
 * editing a row northd owns is repaired on the next pass, as upstream. */
static void
omit_own_writes(struct ovsdb_idl *nb, struct ovsdb_idl *sb)
{
    ovsdb_idl_omit_alert(nb, &nbrec_nb_global_col_nb_cfg_timestamp);
    ovsdb_idl_omit_alert(nb, &nbrec_nb_global_col_sb_cfg);
    ovsdb_idl_omit_alert(nb, &nbrec_nb_global_col_sb_cfg_timestamp);
    ovsdb_idl_omit_alert(nb, &nbrec_nb_global_col_hv_cfg);
    ovsdb_idl_omit_alert(nb, &nbrec_nb_global_col_hv_cfg_timestamp);
    ovsdb_idl_omit_alert(nb, &nbrec_logical_switch_port_col_up);
    omit_table_alerts(nb, &nbrec_table_acl_error);

    static const struct ovsdb_idl_table_class *const owned[] = {
        &sbrec_table_logical_flow, &sbrec_table_logical_dp_group,
        &sbrec_table_multicast_group, &sbrec_table_port_group,
        &sbrec_table_address_set, &sbrec_table_meter,
        &sbrec_table_meter_band, &sbrec_table_load_balancer,
        &sbrec_table_datapath_binding,
    };
    for (size_t i = 0; i < ARRAY_SIZE(owned); i++) {
        omit_table_alerts(sb, owned[i]);
    }
    ovsdb_idl_omit_alert(sb, &sbrec_sb_global_col_nb_cfg);
    ovsdb_idl_omit_alert(sb, &sbrec_sb_global_col_options);
    ovsdb_idl_omit_alert(sb, &sbrec_sb_global_col_ipsec);
    static const struct ovsdb_idl_column *const pb_cols[] = {
        &sbrec_port_binding_col_logical_port,
        &sbrec_port_binding_col_datapath,
        &sbrec_port_binding_col_tunnel_key,
        &sbrec_port_binding_col_type,
        &sbrec_port_binding_col_options,
        &sbrec_port_binding_col_mac,
        &sbrec_port_binding_col_port_security,
        &sbrec_port_binding_col_parent_port,
        &sbrec_port_binding_col_tag,
        &sbrec_port_binding_col_external_ids,
    };
    for (size_t i = 0; i < ARRAY_SIZE(pb_cols); i++) {
        ovsdb_idl_omit_alert(sb, pb_cols[i]);
    }
}

struct unixctl_aux {
    struct northd_state *state;
    struct ovsdb_idl *nb_idl;
    struct ovsdb_idl *sb_idl;
};

int
main(int argc, char *argv[])
{
    struct northd_state state = { .force_run = true };

    /* The OVS library puts default pidfiles and sockets in its own run
     * directory; ours belong with OVN's. */
    setenv("OVS_RUNDIR", ovn_rundir(), 0);

    ovs_cmdl_proctitle_init(argc, argv);
    set_program_name(argv[0]);
    service_start(&argc, &argv);
    parse_options(argc, argv, &state);
    fatal_ignore_sigpipe();

    daemonize_start(false);

    char *abs_unixctl = NULL;
    if (!unixctl_path) {
        abs_unixctl = xasprintf("%s/%s.%ld.ctl", ovn_rundir(), program_name,
                                (long int) getpid());
    }
    struct unixctl_server *unixctl;
    int error = unixctl_server_create(unixctl_path ? unixctl_path
                                                   : abs_unixctl, &unixctl);
    free(abs_unixctl);
    if (error) {
        ovs_fatal(error, "could not create unixctl server");
    }

    daemonize_complete();

    /* NB: everything, read-only except the status columns northd owns. */
    struct ovsdb_idl_loop nb_loop = OVSDB_IDL_LOOP_INITIALIZER(
        ovsdb_idl_create(ovnnb_db, &nbrec_idl_class, true, true));
    /* SB: everything, so reconcile can compare against the replica. */
    struct ovsdb_idl_loop sb_loop = OVSDB_IDL_LOOP_INITIALIZER(
        ovsdb_idl_create(ovnsb_db, &sbrec_idl_class, true, true));
    /* Incremental passes follow the changes the IDLs track.  Columns whose
     * alerts are off (northd's own writes) are not tracked. */
    ovsdb_idl_track_add_all(nb_loop.idl);
    ovsdb_idl_track_add_all(sb_loop.idl);
    omit_own_writes(nb_loop.idl, sb_loop.idl);
    /* ...except that a Datapath_Binding someone else deletes must be
     * noticed: the model points at it. */
    ovsdb_idl_track_add_column(sb_loop.idl,
                               &sbrec_datapath_binding_col_tunnel_key);
    if (!state.paused) {
        ovsdb_idl_set_lock(sb_loop.idl, NORTHD_LOCK_NAME);
    }

    struct unixctl_aux aux = {
        .state = &state, .nb_idl = nb_loop.idl, .sb_idl = sb_loop.idl,
    };
    unixctl_command_register("exit", "", 0, 0, northd_unixctl_exit, &aux);
    unixctl_command_register("pause", "", 0, 0, northd_unixctl_pause, &aux);
    unixctl_command_register("resume", "", 0, 0, northd_unixctl_resume,
                             &aux);
    unixctl_command_register("is-paused", "", 0, 0, northd_unixctl_is_paused,
                             &aux);
    unixctl_command_register("status", "", 0, 0, northd_unixctl_status,
                             &aux);
    unixctl_command_register("nb-connection-status", "", 0, 0,
                             northd_unixctl_connection_status, nb_loop.idl);
    unixctl_command_register("sb-connection-status", "", 0, 0,
                             northd_unixctl_connection_status, sb_loop.idl);
    unixctl_command_register("recompute", "", 0, 0, northd_unixctl_recompute,
                             &aux);
    unixctl_command_register("northd/stats", "", 0, 0, northd_unixctl_stats,
                             &aux);
    unixctl_command_register("acl/errors", "", 0, 0,
                             northd_unixctl_acl_errors, &aux);

    northd_init();
    VLOG_INFO("NB at %s, SB at %s%s", ovnnb_db, ovnsb_db,
              state.paused ? " (paused)" : "");

    while (!state.exiting) {
        memory_run();
        if (memory_should_report()) {
            struct simap usage = SIMAP_INITIALIZER(&usage);
            ovsdb_idl_get_memory_usage(nb_loop.idl, &usage);
            ovsdb_idl_get_memory_usage(sb_loop.idl, &usage);
            memory_report(&usage);
            simap_destroy(&usage);
        }

        struct ovsdb_idl_txn *nb_txn = ovsdb_idl_loop_run(&nb_loop);
        struct ovsdb_idl_txn *sb_txn = ovsdb_idl_loop_run(&sb_loop);
        update_lock_state(&state, sb_loop.idl);

        struct northd_ctx ctx = {
            .nb_idl = nb_loop.idl,
            .sb_idl = sb_loop.idl,
            .nb_txn = nb_txn,
            .sb_txn = sb_txn,
            .sb_loop = &sb_loop,
        };
        if (state.had_lock
            && ovsdb_idl_has_ever_connected(nb_loop.idl)
            && ovsdb_idl_has_ever_connected(sb_loop.idl)) {
            unsigned int nb_seqno = ovsdb_idl_get_seqno(nb_loop.idl);
            unsigned int sb_seqno = ovsdb_idl_get_seqno(sb_loop.idl);
            bool retry_due = (state.force_run
                              && time_msec() >= state.retry_msec);
            if (sb_txn && (retry_due
                           || nb_seqno != state.nb_seqno
                           || sb_seqno != state.sb_seqno)) {
                COVERAGE_INC(northd_run);
                northd_run(&ctx, state.force_run);
                ovsdb_idl_track_clear(nb_loop.idl);
                ovsdb_idl_track_clear(sb_loop.idl);
                state.force_run = false;
                state.nb_seqno = nb_seqno;
                state.sb_seqno = sb_seqno;
            }
            if (nb_txn) {
                northd_update_sequence_numbers(&ctx);
            }
        } else if (!state.had_lock) {
            /* A standby keeps nothing: it recomputes when it takes over. */
            ovsdb_idl_track_clear(nb_loop.idl);
            ovsdb_idl_track_clear(sb_loop.idl);
            northd_invalidate();
        }

        unixctl_server_run(unixctl);

        /* A failed commit is never replayed: the next pass recomputes from
         * whatever the replicas then hold. */
        if (!ovsdb_idl_loop_commit_and_wait(&nb_loop)) {
            COVERAGE_INC(northd_commit_failed);
            VLOG_INFO("NB transaction failed, will recompute");
            state.force_run = true;
        }
        /* Without the lock, even the loop's empty SB transaction "fails"
         * (TXN_NOT_LOCKED): that is how a standby, or an instance waiting
         * for the lock after "resume", should be, not a failure to log.
         * Getting the lock forces a run anyway. */
        bool sb_failed = !ovsdb_idl_loop_commit_and_wait(&sb_loop);
        if (sb_failed) {
            /* Otherwise the loop would report the failed pass's nb_cfg as
             * committed as soon as a later, empty transaction "succeeds",
             * and --wait=sb would return before the SB holds it. */
            sb_loop.next_cfg = sb_loop.cur_cfg;
        }
        if (sb_failed && state.had_lock) {
            /* The IDL has logged why.  A failure that the same snapshot
             * reproduces (e.g. a constraint violation) would otherwise
             * spin recompute-commit-fail at full speed: retry in a second,
             * or sooner if either database changes. */
            static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);
            COVERAGE_INC(northd_commit_failed);
            VLOG_INFO_RL(&rl, "SB transaction failed, will recompute");
            state.force_run = true;
            state.retry_msec = time_msec() + 1000;
        }

        unixctl_server_wait(unixctl);
        memory_wait();
        if (state.force_run && state.had_lock) {
            if (time_msec() < state.retry_msec) {
                poll_timer_wait_until(state.retry_msec);
            } else if (!sb_loop.committing_txn
                       && ovsdb_idl_get_seqno(sb_loop.idl)
                          != sb_loop.skip_seqno) {
                poll_immediate_wake();
            }
            /* Otherwise the next SB transaction waits for the commit in
             * flight or for a database change, and the IDL wakes us for
             * either: waking now would only spin. */
        }
        if (state.exiting) {
            poll_immediate_wake();
        }
        poll_block();
        if (should_service_stop()) {
            state.exiting = true;
        }
    }

    northd_destroy();
    unixctl_server_destroy(unixctl);
    ovsdb_idl_loop_destroy(&nb_loop);
    ovsdb_idl_loop_destroy(&sb_loop);
    service_stop();
    return 0;
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
        ovsdb_idl_set_lock(aux->sb_idl, NULL);
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
        ovsdb_idl_set_lock(aux->sb_idl, NORTHD_LOCK_NAME);
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
    ds_put_format(&s, "Status: %s\n", status_name(aux->state, aux->sb_idl));
    northd_format_unsupported(&s);
    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

static void
northd_unixctl_connection_status(struct unixctl_conn *conn,
                                 int argc OVS_UNUSED,
                                 const char *argv[] OVS_UNUSED, void *idl_)
{
    const struct ovsdb_idl *idl = idl_;
    unixctl_command_reply(conn, ovsdb_idl_is_connected(idl)
                                ? "connected" : "not connected");
}

static void
northd_unixctl_recompute(struct unixctl_conn *conn, int argc OVS_UNUSED,
                         const char *argv[] OVS_UNUSED, void *aux_)
{
    struct unixctl_aux *aux = aux_;
    aux->state->force_run = true;
    poll_immediate_wake();
    unixctl_command_reply(conn, NULL);
}

static void
northd_unixctl_stats(struct unixctl_conn *conn, int argc OVS_UNUSED,
                     const char *argv[] OVS_UNUSED, void *aux_ OVS_UNUSED)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    northd_format_stats(&s);
    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}

static void
northd_unixctl_acl_errors(struct unixctl_conn *conn, int argc OVS_UNUSED,
                          const char *argv[] OVS_UNUSED,
                          void *aux_ OVS_UNUSED)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    acl_errors_format(&s);
    unixctl_command_reply(conn, ds_cstr(&s));
    ds_destroy(&s);
}
