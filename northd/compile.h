/* Offline compile: "ovn-northd --compile NB-FILE" (docs/compile.md).
 *
 * The NB database file (and, with --diff, an SB file) is loaded into an
 * in-memory OVSDB database of OVS's ovsdb library, served in-process on a
 * private Unix socket, so that northd's replicas are fed and its
 * transactions are applied exactly as on real servers; once northd has
 * nothing left to do, the SB it wrote is saved to a file, compared with the
 * SB file it started from, or both. */
#ifndef NORTHD_COMPILE_H
#define NORTHD_COMPILE_H 1

#include <stdbool.h>

struct ds;
struct northd;
struct rdb;

struct compile_options {
    const char *nb_file;        /* --compile: the NB database file. */
    const char *output;         /* --output: SB file to write, or NULL. */
    const char *diff;           /* --diff: SB file to start from and compare
                                 * with, or NULL. */
    const char *nb_output;      /* --nb-output: NB file with northd's
                                 * feedback, or NULL. */
    bool check;                 /* --check: validation findings make the
                                 * exit status 2. */
    bool lint;                  /* --lint: the ACL lint too. */
};

/* Exit statuses of --compile. */
enum {
    COMPILE_EXIT_OK = 0,
    COMPILE_EXIT_ERROR = 1,     /* A file could not be read or written, or
                                 * a transaction failed. */
    COMPILE_EXIT_FINDINGS = 2,  /* --check and something was found. */
};

struct compile;

/* Loads the files and starts serving them.  On success returns NULL and
 * sets '*compilep' and the remotes northd must connect to (malloc'd); on
 * failure returns a malloc'd message. */
char *compile_start(const struct compile_options *, struct compile **compilep,
                    char **nb_remote, char **sb_remote);

void compile_run(struct compile *);
void compile_wait(struct compile *);

/* Writes what the options ask for, given the settled northd 'n' with
 * replica 'nb'.  Returns the exit status. */
int compile_finish(struct compile *, const struct northd *n,
                   const struct rdb *nb);

void compile_destroy(struct compile *);

#endif /* northd/compile.h */
