/* northd's ACL lint: the lint of lib/acl-lint.h over northd's NB replica
 * (docs/acl-validation.md, "Lint"). */
#ifndef NORTHD_ACL_LINT_H
#define NORTHD_ACL_LINT_H 1

#include <stddef.h>
#include "lib/acl-lint.h"

struct ds;
struct groups;
struct rdb;

/* Lints the ACLs of the switch or port group named 'filter' (every ACL if
 * NULL) in NB replica 'nb'.  'groups' gives the address sets northd
 * derives from port groups ("<pg>_ip4", "<pg>_ip6") and the NB's sets; if
 * NULL (nothing compiled yet), the NB's sets only.  Appends one paragraph
 * per ACL to 'out' and returns the number of findings, or SIZE_MAX if
 * there is no switch or port group 'filter'. */
size_t northd_acl_lint(const struct rdb *nb, const struct groups *groups,
                       const char *filter, double threshold,
                       struct ds *out);

#endif /* northd/acl-lint.h */
