/* ACL lint: findings about ACLs that are valid but probably not what their
 * author meant, or that cost more than expected (docs/acl-validation.md,
 * "Lint").  Shared by northd's "acl/lint" and "--compile --lint"
 * (northd/acl-lint.c, over its NB replica) and ovn-nbctl's "acl-lint"
 * (over the OVSDB IDL): each describes the NB as a struct acl_lint_db and
 * gets the same text back.
 *
 * For each ACL of a switch or port group:
 *
 *   - a meter it names that no NB Meter row has; each port group ("@name")
 *     or address set ("$name") its match names that does not exist or is
 *     empty;
 *
 *   - the OpenFlow flows and conjunctions its match expands to on a
 *     hypervisor, estimated from the match parsed and annotated with the
 *     expression library (lib/expr.h), with a finding when the estimate
 *     for all the switches the ACL applies to is above a threshold;
 *
 *   - a higher-priority ACL of the same stage and tier, applying wherever
 *     this one does, whose match covers this one's: this one never decides
 *     (shadowed);
 *
 *   - an ACL of the same stage, tier and priority, applying to the same
 *     switches, with a different verdict, that some packet matches as well
 *     (conflict: which one decides is unspecified);
 *
 *   - for an allow-stateless ACL, a drop of the reverse direction that
 *     covers the replies to what it allows, with nothing that could allow
 *     them first.
 *
 * Every claim is proved from the matches as sets of packets, never from
 * their text, and errs towards saying nothing (see the documentation for
 * where it is conservative). */
#ifndef LIB_ACL_LINT_H
#define LIB_ACL_LINT_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "openvswitch/uuid.h"

struct ds;

/* Above this many estimated OpenFlow flows per hypervisor an ACL is a
 * finding, by default. */
#define ACL_LINT_DEFAULT_THRESHOLD 10000

/* One ACL, as the NB has it.  Strings are borrowed; 'name' and 'meter' may
 * be NULL. */
struct acl_lint_acl {
    struct uuid uuid;
    const char *name;
    const char *match;
    const char *action;         /* "allow", "allow-related", ... */
    const char *direction;      /* "from-lport" or "to-lport". */
    const char *meter;
    int64_t priority;
    int64_t tier;
    bool after_lb;              /* options:apply-after-lb=true. */
};

/* A switch (its ports) or a port group (its member ports), and its
 * ACLs. */
struct acl_lint_owner {
    const char *name;
    const struct acl_lint_acl *acls;
    size_t n_acls;
    const char *const *ports;
    size_t n_ports;
};

/* The NB, as the lint reads it. */
struct acl_lint_db {
    const struct acl_lint_owner *switches;
    size_t n_switches;
    const struct acl_lint_owner *pgs;
    size_t n_pgs;
    const char *const *meters;  /* Names of the Meter rows. */
    size_t n_meters;

    /* Returns the addresses of address set 'name' (NB, or derived from a
     * port group: "<pg>_ip4", "<pg>_ip6") as a malloc'd array of borrowed
     * strings, with their number in '*n', or NULL if there is no such
     * set. */
    const char **(*set_addresses)(const void *aux, const char *name,
                                  size_t *n);
    const void *aux;
};

/* Lints the ACLs of the switch or port group named 'filter' (every ACL if
 * NULL) in 'db', comparing them with every ACL of 'db'.  Appends one
 * paragraph per ACL to 'out' and returns the number of findings, or
 * SIZE_MAX if there is no switch or port group 'filter'. */
size_t acl_lint(const struct acl_lint_db *, const char *filter,
                double threshold, struct ds *out);

/* For tests: whether the lint proves that every packet that 'b' matches
 * also matches 'a' (two matches without "$" or "@" references, on one
 * switch with ports 'ports' in direction 'direction'), in '*covers'; and
 * whether it proves that some packet matches both, in '*overlaps'.
 * Returns an error (the caller frees it) if either does not parse. */
char *acl_lint_compare(const char *a, const char *b, const char *direction,
                       const char *const *ports, size_t n_ports,
                       bool *covers, bool *overlaps);

#endif /* lib/acl-lint.h */
