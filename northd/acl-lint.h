/* ACL lint: findings about ACLs that are valid but probably not what their
 * author meant, or that cost more than expected (docs/acl-validation.md,
 * "Lint").
 *
 * For each ACL of a switch or port group: a meter it names that no NB Meter
 * row has; each port group ("@name") or address set ("$name") its match
 * names that does not exist or is empty; and the OpenFlow flows and
 * conjunctions its match expands to on a hypervisor, estimated from the
 * match parsed and annotated with the expression library (lib/expr.h),
 * with a finding when the estimate for all the switches the ACL applies to
 * is above a threshold. */
#ifndef NORTHD_ACL_LINT_H
#define NORTHD_ACL_LINT_H 1

#include <stddef.h>

struct ds;
struct groups;
struct rdb;

/* Above this many estimated OpenFlow flows per hypervisor an ACL is a
 * finding, by default. */
#define ACL_LINT_DEFAULT_THRESHOLD 10000

/* Lints the ACLs of the switch or port group named 'filter' (every ACL if
 * NULL) in NB replica 'nb'.  'groups' gives the address sets northd
 * derives from port groups ("<pg>_ip4", "<pg>_ip6") and the NB's sets; if
 * NULL (nothing compiled yet), the NB's sets only.  Appends one paragraph
 * per ACL to 'out' and returns the number of findings, or SIZE_MAX if
 * there is no switch or port group 'filter'. */
size_t acl_lint(const struct rdb *nb, const struct groups *groups,
                const char *filter, double threshold, struct ds *out);

#endif /* northd/acl-lint.h */
