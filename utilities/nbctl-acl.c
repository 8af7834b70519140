/* ovn-nbctl: ACL, port group and address set commands.
 *
 * ACLs hang off a logical switch or a port group.  These commands read only
 * that one switch or port group and the ACLs they must compare against:
 * acl-add asks the server for the ACLs with the same match string, never
 * for the whole ACL table. */
#include <config.h>

#include "utilities/nbctl.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib/acl-lint.h"
#include "lib/expr.h"
#include "lib/lex.h"
#include "lib/lsp-addresses.h"
#include "lib/symtab.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/shash.h"
#include "ovsdb-data.h"
#include "ovsdb-idl.h"
#include "smap.h"
#include "sset.h"
#include "svec.h"
#include "util.h"
#include "uuid.h"

/* ------------------------------------------------------------------------
 * Checks.
 * --------------------------------------------------------------------- */

/* If 'name' is "<pg>_ip4" or "<pg>_ip6", the address set northd derives
 * from port group <pg>: returns <pg> (the caller frees it) and sets
 * '*ipv6'.  Otherwise returns NULL. */
static char *
derived_set_pg(const char *name, bool *ipv6)
{
    size_t len = strlen(name);
    if (len > 4 && (!strcmp(name + len - 4, "_ip4")
                    || !strcmp(name + len - 4, "_ip6"))) {
        *ipv6 = name[len - 1] == '6';
        return xmemdup0(name, len - 4);
    }
    return NULL;
}

static const struct nbrec_address_set *
as_by_name(struct ctl_context *ctx, const char *name)
{
    const struct nbrec_address_set *as;
    NBREC_ADDRESS_SET_FOR_EACH (as, ctx->idl) {
        if (!strcmp(as->name, name)) {
            return as;
        }
    }
    return NULL;
}

static const struct nbrec_port_group *
pg_by_name(struct ctl_context *ctx, const char *name)
{
    const struct nbrec_port_group *pg;
    NBREC_PORT_GROUP_FOR_EACH (pg, ctx->idl) {
        if (!strcmp(pg->name, name)) {
            return pg;
        }
    }
    return NULL;
}

/* Prerequisites of nbctl_check_match(): the address sets and port groups
 * 'match' names, and nothing else of those tables. */
void
nbctl_pre_match(struct ctl_context *ctx, const char *match)
{
    struct sset addr_sets = SSET_INITIALIZER(&addr_sets);
    struct sset pgs = SSET_INITIALIZER(&pgs);
    lex_match_refs(match, &addr_sets, &pgs);

    if (!sset_is_empty(&addr_sets)) {
        ovsdb_idl_add_column(ctx->idl, &nbrec_address_set_col_name);
        ovsdb_idl_add_column(ctx->idl, &nbrec_address_set_col_addresses);
        nbctl_cond_none(ctx, &nbrec_table_address_set);
        /* Members of a "<pg>_ip4" group, asked for once the group is
         * known. */
        ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_port_col_name);
        ovsdb_idl_add_column(ctx->idl,
                             &nbrec_logical_switch_port_col_addresses);
        nbctl_cond_none(ctx, &nbrec_table_logical_switch_port);
    }
    const char *name;
    SSET_FOR_EACH (name, &addr_sets) {
        nbctl_cond_string(ctx, &nbrec_table_address_set,
                          &nbrec_address_set_col_name, name);
        bool ipv6;
        char *pg = derived_set_pg(name, &ipv6);
        if (pg) {
            sset_add(&pgs, pg);
            free(pg);
        }
    }
    if (!sset_is_empty(&pgs)) {
        ovsdb_idl_add_column(ctx->idl, &nbrec_port_group_col_name);
        ovsdb_idl_add_column(ctx->idl, &nbrec_port_group_col_ports);
        nbctl_cond_none(ctx, &nbrec_table_port_group);
    }
    SSET_FOR_EACH (name, &pgs) {
        nbctl_cond_string(ctx, &nbrec_table_port_group,
                          &nbrec_port_group_col_name, name);
    }
    sset_destroy(&addr_sets);
    sset_destroy(&pgs);
}

/* Adds to 'addrs' the IPv4 (or, with 'ipv6', IPv6) addresses of 'pg''s
 * ports, as northd derives "<pg>_ip4" and "<pg>_ip6".  Returns false,
 * with ctx->try_again set, if the ports must be fetched first. */
static void pg_collect_addresses(const struct nbrec_port_group *, bool ipv6,
                                 struct sset *addrs);

static bool
pg_addresses(struct ctl_context *ctx, const struct nbrec_port_group *pg,
             bool ipv6, struct sset *addrs)
{
    if (nbctl_cond_uuids(ctx, &nbrec_table_logical_switch_port,
                         nbrec_port_group_get_ports(pg, OVSDB_TYPE_UUID))) {
        return false;
    }
    pg_collect_addresses(pg, ipv6, addrs);
    return true;
}

/* The addresses of pg_addresses(), with the ports already at hand. */
static void
pg_collect_addresses(const struct nbrec_port_group *pg, bool ipv6,
                     struct sset *addrs)
{
    for (size_t i = 0; i < pg->n_ports; i++) {
        const struct nbrec_logical_switch_port *lsp = pg->ports[i];
        for (size_t j = 0; j < lsp->n_addresses; j++) {
            enum lsp_addr_kind kind;
            struct lsp_addresses la;
            char *error = lsp_addresses_parse(lsp->addresses[j], &kind,
                                              &la);
            if (error) {
                /* northd leaves such an entry out too. */
                free(error);
                continue;
            }
            if (kind == LSP_ADDR_MAC_IPS) {
                for (size_t k = 0; !ipv6 && k < la.n_ipv4; k++) {
                    sset_add_and_free(addrs, xasprintf(
                                          IP_FMT, IP_ARGS(la.ipv4[k].addr)));
                }
                for (size_t k = 0; ipv6 && k < la.n_ipv6; k++) {
                    char buf[INET6_ADDRSTRLEN];
                    inet_ntop(AF_INET6, &la.ipv6[k].addr, buf, sizeof buf);
                    sset_add(addrs, buf);
                }
                lsp_addresses_destroy(&la);
            }
        }
    }
}

/* Checks an ACL match with the logical-flow language library, the way
 * northd will: "$name" and "@name" must name an address set or port
 * group in the NB (or a "<pg>_ip4"/"<pg>_ip6" set northd derives).
 * Returns NULL if valid, otherwise the library's message (the caller
 * frees it).  Returns NULL with ctx->try_again set if it needs rows it
 * has asked the server for. */
char *
nbctl_check_match(struct ctl_context *ctx, const char *match)
{
    struct sset addr_sets = SSET_INITIALIZER(&addr_sets);
    struct sset pgs = SSET_INITIALIZER(&pgs);
    struct expr_refs refs;
    char *error = NULL;

    lex_match_refs(match, &addr_sets, &pgs);
    expr_refs_init(&refs);

    const char *name;
    SSET_FOR_EACH (name, &addr_sets) {
        struct sset addrs = SSET_INITIALIZER(&addrs);
        const struct nbrec_address_set *as = as_by_name(ctx, name);
        bool ipv6;
        char *pg_name = as ? NULL : derived_set_pg(name, &ipv6);
        const struct nbrec_port_group *pg = (pg_name
                                             ? pg_by_name(ctx, pg_name)
                                             : NULL);
        free(pg_name);

        bool found = true;
        if (as) {
            for (size_t i = 0; i < as->n_addresses; i++) {
                sset_add(&addrs, as->addresses[i]);
            }
        } else if (pg) {
            if (!pg_addresses(ctx, pg, ipv6, &addrs)) {
                sset_destroy(&addrs);
                goto out;
            }
        } else {
            found = false;
        }
        if (found) {
            /* Sorted, so an error about an element names the same one
             * every time (and the same one northd names).  Entries that
             * do not parse are left out, as northd and ovn-controller do;
             * that is not the match's fault. */
            const char **array = sset_sort(&addrs);
            free(expr_refs_add_addr_set(&refs, name, array,
                                        sset_count(&addrs)));
            free(array);
        }
        sset_destroy(&addrs);
    }
    SSET_FOR_EACH (name, &pgs) {
        /* Only whether the group exists matters to the check. */
        if (pg_by_name(ctx, name)) {
            expr_refs_add_port_group(&refs, name, NULL, 0);
        }
    }

    struct symtab symtab;
    symtab_init_ovn(&symtab);
    error = expr_validate_summaries(match, &symtab, &refs,
                                    EXPR_ACL_MAX_PAREN_DEPTH, NULL);
    symtab_destroy(&symtab);

out:
    expr_refs_destroy(&refs);
    sset_destroy(&addr_sets);
    sset_destroy(&pgs);
    return error;
}

static bool
parse_direction(struct ctl_context *ctx, const char *arg, const char **dir)
{
    if (!strcmp(arg, "from-lport") || !strcmp(arg, "to-lport")) {
        *dir = arg;
        return true;
    }
    ctl_error(ctx, "%s: direction must be \"to-lport\" or \"from-lport\"",
              arg);
    return false;
}

static bool
parse_priority(struct ctl_context *ctx, const char *arg, int64_t *priority)
{
    int value;
    if (!str_to_int(arg, 10, &value) || value < 0 || value > 32767) {
        ctl_error(ctx, "%s: priority must in range 0...32767", arg);
        return false;
    }
    *priority = value;
    return true;
}

static bool
parse_tier(struct ctl_context *ctx, int64_t *tier)
{
    const char *arg = shash_find_data(&ctx->options, "--tier");
    int value;

    if (!arg) {
        *tier = -1;
        return true;
    }
    if (!str_to_int(arg, 10, &value) || value < 0 || value > 3) {
        ctl_error(ctx, "%s: tier must be in range 0...3", arg);
        return false;
    }
    *tier = value;
    return true;
}

static bool
verb_is_valid(const char *verb)
{
    static const char *const verbs[] = {
        "allow", "allow-related", "allow-stateless", "drop", "reject",
        "pass",
    };
    for (size_t i = 0; i < ARRAY_SIZE(verbs); i++) {
        if (!strcmp(verb, verbs[i])) {
            return true;
        }
    }
    return false;
}

static bool
severity_is_valid(const char *severity)
{
    static const char *const severities[] = {
        "alert", "warning", "notice", "info", "debug",
    };
    for (size_t i = 0; i < ARRAY_SIZE(severities); i++) {
        if (!strcmp(severity, severities[i])) {
            return true;
        }
    }
    return false;
}

/* ------------------------------------------------------------------------
 * The switch or port group an ACL command works on.
 * --------------------------------------------------------------------- */

struct acl_owner {
    const struct nbrec_logical_switch *ls;
    const struct nbrec_port_group *pg;
};

enum acl_owner_type { OWNER_ANY, OWNER_SWITCH, OWNER_PG };

static bool
parse_owner_type(struct ctl_context *ctx, enum acl_owner_type *type)
{
    const char *opt = shash_find_data(&ctx->options, "--type");
    if (!opt) {
        *type = OWNER_ANY;
    } else if (!strcmp(opt, "switch")) {
        *type = OWNER_SWITCH;
    } else if (!strcmp(opt, "port-group")) {
        *type = OWNER_PG;
    } else {
        ctl_error(ctx, "Invalid value '%s' for option --type", opt);
        return false;
    }
    return true;
}

static void
pre_acl_owner(struct ctl_context *ctx)
{
    enum acl_owner_type type;

    nbctl_cond_capable(ctx);
    if (!parse_owner_type(ctx, &type)) {
        type = OWNER_ANY;
    }
    if (type != OWNER_PG) {
        nbctl_pre_ls(ctx, ctx->argv[1]);
        ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_acls);
    }
    if (type != OWNER_SWITCH) {
        nbctl_pre_pg(ctx, ctx->argv[1]);
        ovsdb_idl_add_column(ctx->idl, &nbrec_port_group_col_acls);
    }

    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_direction);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_priority);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_match);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_action);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_tier);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_log);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_severity);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_meter);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_label);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_options);
    nbctl_cond_none(ctx, &nbrec_table_acl);
}

static bool
find_owner(struct ctl_context *ctx, struct acl_owner *owner)
{
    const char *id = ctx->argv[1];
    enum acl_owner_type type;

    owner->ls = NULL;
    owner->pg = NULL;
    if (!parse_owner_type(ctx, &type)) {
        return false;
    }
    if (type == OWNER_SWITCH) {
        owner->ls = ls_by_name_or_uuid(ctx, id, true);
        return owner->ls != NULL;
    } else if (type == OWNER_PG) {
        owner->pg = pg_by_name_or_uuid(ctx, id, true);
        return owner->pg != NULL;
    }

    owner->pg = pg_by_name_or_uuid(ctx, id, false);
    owner->ls = ls_by_name_or_uuid(ctx, id, false);
    if (ctx->error) {
        return false;
    }
    if (owner->pg && owner->ls) {
        ctl_error(ctx, "Same name '%s' exists in both port-groups and "
                  "logical switches. Specify --type=port-group or switch, "
                  "or use a UUID.", id);
        return false;
    }
    if (!owner->pg && !owner->ls) {
        ctl_error(ctx, "'%s' is not found for port-group or switch.", id);
        return false;
    }
    return true;
}

static void
owner_acls(const struct acl_owner *owner, struct nbrec_acl ***acls,
           size_t *n)
{
    if (owner->ls) {
        *acls = owner->ls->acls;
        *n = owner->ls->n_acls;
    } else {
        *acls = owner->pg->acls;
        *n = owner->pg->n_acls;
    }
}

/* Asks for every ACL of 'owner'.  Returns true if the caller must wait. */
static bool
want_owner_acls(struct ctl_context *ctx, const struct acl_owner *owner)
{
    const struct ovsdb_datum *uuids
        = (owner->ls
           ? nbrec_logical_switch_get_acls(owner->ls, OVSDB_TYPE_UUID)
           : nbrec_port_group_get_acls(owner->pg, OVSDB_TYPE_UUID));
    return nbctl_cond_uuids(ctx, &nbrec_table_acl, uuids);
}

static void
owner_add_acl(const struct acl_owner *owner, const struct nbrec_acl *acl)
{
    if (owner->ls) {
        nbctl_ref_update(&owner->ls->header_, &nbrec_logical_switch_col_acls,
                         &acl->header_, true);
    } else {
        nbctl_ref_update(&owner->pg->header_, &nbrec_port_group_col_acls,
                         &acl->header_, true);
    }
}

static void
owner_del_acl(const struct acl_owner *owner, const struct nbrec_acl *acl)
{
    if (owner->ls) {
        nbctl_ref_update(&owner->ls->header_, &nbrec_logical_switch_col_acls,
                         &acl->header_, false);
    } else {
        nbctl_ref_update(&owner->pg->header_, &nbrec_port_group_col_acls,
                         &acl->header_, false);
    }
}

/* ------------------------------------------------------------------------
 * acl-add, acl-del, acl-list.
 * --------------------------------------------------------------------- */

static void
pre_acl_add(struct ctl_context *ctx)
{
    pre_acl_owner(ctx);
    nbctl_pre_match(ctx, ctx->argv[4]);
    /* Only ACLs with the same match can be duplicates. */
    nbctl_cond_string(ctx, &nbrec_table_acl, &nbrec_acl_col_match,
                      ctx->argv[4]);
}

static void
cmd_acl_add(struct ctl_context *ctx)
{
    const char *action = ctx->argv[5];
    const char *match = ctx->argv[4];
    const char *direction;
    int64_t priority;
    int64_t tier;

    /* Validate everything before looking anything up. */
    if (!parse_direction(ctx, ctx->argv[2], &direction)
        || !parse_priority(ctx, ctx->argv[3], &priority)
        || !parse_tier(ctx, &tier)) {
        return;
    }
    if (!verb_is_valid(action)) {
        ctl_error(ctx, "%s: action must be one of \"allow\", "
                  "\"allow-related\", \"allow-stateless\", \"drop\", "
                  "\"reject\", and \"pass\"", action);
        return;
    }
    char *error = nbctl_check_match(ctx, match);
    if (error) {
        if (match[strspn(match, " \t\n\r\f\v")]) {
            ctl_error(ctx, "%s: %s", match, error);
        } else {
            ctl_error(ctx, "%s", error);
        }
        free(error);
        return;
    }
    if (ctx->try_again) {
        return;
    }

    const char *severity = shash_find_data(&ctx->options, "--severity");
    if (severity && !severity_is_valid(severity)) {
        ctl_error(ctx, "bad severity: %s (must be one of \"alert\", "
                  "\"warning\", \"notice\", \"info\", \"debug\")", severity);
        return;
    }
    const char *name = shash_find_data(&ctx->options, "--name");
    if (name && strlen(name) > 63) {
        ctl_error(ctx, "%s: name must be at most 63 characters", name);
        return;
    }
    const char *label_arg = shash_find_data(&ctx->options, "--label");
    int64_t label = 0;
    if (label_arg) {
        unsigned long long int value;
        if (!str_to_ullong(label_arg, 10, &value) || value > UINT32_MAX) {
            ctl_error(ctx, "%s: label must in range 0...4294967295",
                      label_arg);
            return;
        }
        if (strcmp(action, "allow") && strcmp(action, "allow-related")) {
            ctl_error(ctx, "label can only be set with actions \"allow\" or "
                      "\"allow-related\"");
            return;
        }
        label = value;
    }
    bool after_lb = shash_find(&ctx->options, "--apply-after-lb") != NULL;
    if (after_lb && strcmp(direction, "from-lport")) {
        ctl_error(ctx, "--apply-after-lb can only be used with direction "
                  "\"from-lport\"");
        return;
    }

    struct acl_owner owner;
    if (!find_owner(ctx, &owner)) {
        return;
    }

    /* Duplicates: same direction, priority, match and tier. */
    struct nbrec_acl **acls;
    size_t n_acls;
    owner_acls(&owner, &acls, &n_acls);
    for (size_t i = 0; i < n_acls; i++) {
        const struct nbrec_acl *acl = acls[i];
        if (strcmp(acl->direction, direction) || acl->priority != priority
            || strcmp(acl->match, match) || acl->tier != MAX(tier, 0)) {
            continue;
        }
        if (strcmp(acl->action, action)) {
            ctl_error(ctx, "%s: an ACL with the same direction, priority, "
                      "match and tier already exists with action \"%s\"",
                      ctx->argv[1], acl->action);
            return;
        }
        if (shash_find(&ctx->options, "--may-exist")) {
            return;
        }
        ctl_error(ctx, "Same ACL already existed on the ls %s.",
                  ctx->argv[1]);
        return;
    }

    struct nbrec_acl *acl = nbrec_acl_insert(ctx->txn);
    nbrec_acl_set_direction(acl, direction);
    nbrec_acl_set_priority(acl, priority);
    nbrec_acl_set_match(acl, match);
    nbrec_acl_set_action(acl, action);
    if (shash_find(&ctx->options, "--log") || severity) {
        nbrec_acl_set_log(acl, true);
    }
    if (severity) {
        nbrec_acl_set_severity(acl, severity);
    }
    if (name) {
        nbrec_acl_set_name(acl, name);
    }
    const char *meter = shash_find_data(&ctx->options, "--meter");
    if (meter) {
        nbrec_acl_set_meter(acl, meter);
    }
    if (label_arg) {
        nbrec_acl_set_label(acl, label);
    }
    if (tier > 0) {
        nbrec_acl_set_tier(acl, tier);
    }
    if (after_lb) {
        const struct smap options = SMAP_CONST1(&options, "apply-after-lb",
                                                "true");
        nbrec_acl_set_options(acl, &options);
    }
    owner_add_acl(&owner, acl);
}

static void
pre_acl_del(struct ctl_context *ctx)
{
    pre_acl_owner(ctx);
    if (ctx->argc == 5) {
        nbctl_cond_string(ctx, &nbrec_table_acl, &nbrec_acl_col_match,
                          ctx->argv[4]);
    }
}

static void
cmd_acl_del(struct ctl_context *ctx)
{
    const char *direction = NULL;
    int64_t priority = -1;
    int64_t tier;

    if (ctx->argc == 4) {
        ctl_error(ctx, "cannot specify priority without match");
        return;
    }
    if (!parse_tier(ctx, &tier)
        || (ctx->argc >= 3 && !parse_direction(ctx, ctx->argv[2],
                                               &direction))
        || (ctx->argc == 5 && !parse_priority(ctx, ctx->argv[3],
                                              &priority))) {
        return;
    }

    struct acl_owner owner;
    if (!find_owner(ctx, &owner)) {
        return;
    }

    /* Deletions are mutations, never a rewrite of the column: a rewrite
     * would race with mutations of it earlier in the same transaction
     * (e.g. "acl-add ... -- acl-del SWITCH"). */
    if (ctx->argc != 5 && want_owner_acls(ctx, &owner)) {
        return;
    }

    /* A copy: each deletion may rewrite the owner's array. */
    struct nbrec_acl **acls;
    size_t n_acls;
    owner_acls(&owner, &acls, &n_acls);
    acls = xmemdup(acls, n_acls * sizeof *acls);
    for (size_t i = 0; i < n_acls; i++) {
        const struct nbrec_acl *acl = acls[i];
        if ((direction && strcmp(acl->direction, direction))
            || (priority >= 0 && acl->priority != priority)
            || (ctx->argc == 5 && strcmp(acl->match, ctx->argv[4]))
            || (tier >= 0 && acl->tier != tier)) {
            continue;
        }
        owner_del_acl(&owner, acl);
    }
    free(acls);
}

static bool
acl_after_lb(const struct nbrec_acl *acl)
{
    return smap_get_bool(&acl->options, "apply-after-lb", false);
}

/* The order acl-list prints in: from-lport, then from-lport applied after
 * load balancing, then to-lport; within each, higher priority first. */
static int
acl_group(const struct nbrec_acl *acl)
{
    if (!strcmp(acl->direction, "from-lport")) {
        return acl_after_lb(acl) ? 1 : 0;
    }
    return 2;
}

static int
acl_cmp(const void *a_, const void *b_)
{
    const struct nbrec_acl *a = *(const struct nbrec_acl *const *) a_;
    const struct nbrec_acl *b = *(const struct nbrec_acl *const *) b_;
    int ga = acl_group(a), gb = acl_group(b);

    if (ga != gb) {
        return ga < gb ? -1 : 1;
    }
    if (a->priority != b->priority) {
        return a->priority > b->priority ? -1 : 1;
    }
    if (a->tier != b->tier) {
        return a->tier > b->tier ? -1 : 1;
    }
    int cmp = strcmp(a->match, b->match);
    if (cmp) {
        return cmp;
    }
    cmp = strcmp(a->action, b->action);
    return cmp ? cmp : uuid_compare_3way(&a->header_.uuid, &b->header_.uuid);
}

/* Prints 'acl' as acl-list does.  'error', if nonnull, is why northd
 * found the ACL invalid. */
static void
print_acl(struct ds *s, const struct nbrec_acl *acl, const char *error)
{
    ds_put_format(s, "%10s %5"PRId64" (%s) %s", acl->direction,
                  acl->priority, acl->match, acl->action);
    if (acl->log) {
        ds_put_cstr(s, " log(");
        if (acl->name) {
            ds_put_format(s, "name=%s,", acl->name);
        }
        if (acl->severity) {
            ds_put_format(s, "severity=%s,", acl->severity);
        }
        if (acl->meter) {
            ds_put_format(s, "meter=\"%s\",", acl->meter);
        }
        ds_chomp(s, ',');
        ds_put_char(s, ')');
    }
    if (acl->label) {
        ds_put_format(s, " label=%"PRId64, acl->label);
    }
    if (acl_after_lb(acl)) {
        ds_put_cstr(s, " [after-lb]");
    }
    if (acl->tier) {
        ds_put_format(s, " [tier %"PRId64"]", acl->tier);
    }
    if (error) {
        ds_put_format(s, " [invalid: %s]", error);
    }
    ds_put_char(s, '\n');
}

/* ACL_Error, the table where northd reports invalid ACLs (see
 * docs/acl-validation.md).  A Northbound without it (an older schema) just
 * has nothing to report. */
static void
pre_acl_errors(struct ctl_context *ctx)
{
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_error_col_acl);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_error_col_owner);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_error_col_error);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_error_col_effect);
    nbctl_cond_none(ctx, &nbrec_table_acl_error);
}

/* Asks for the ACL_Error rows of 'acls'.  Returns true if the caller must
 * wait. */
static bool
want_acl_errors(struct ctl_context *ctx, struct nbrec_acl **acls, size_t n)
{
    if (n > 500) {
        return nbctl_cond_all(ctx, &nbrec_table_acl_error);
    }
    bool added = false;
    for (size_t i = 0; i < n; i++) {
        added = nbctl_cond_includes(ctx, &nbrec_table_acl_error,
                                    &nbrec_acl_error_col_acl,
                                    &acls[i]->header_.uuid) || added;
    }
    return added;
}

/* Maps ACL UUIDs to their "struct nbrec_acl_error"s. */
static void
acl_errors_by_acl(struct ctl_context *ctx, struct shash *errors)
{
    const struct nbrec_acl_error *e;
    NBREC_ACL_ERROR_FOR_EACH (e, ctx->idl) {
        if (e->acl) {
            char key[UUID_LEN + 1];
            snprintf(key, sizeof key, UUID_FMT,
                     UUID_ARGS(&e->acl->header_.uuid));
            shash_add_once(errors, key, e);
        }
    }
}

static const struct nbrec_acl_error *
acl_error_find(const struct shash *errors, const struct nbrec_acl *acl)
{
    char key[UUID_LEN + 1];
    snprintf(key, sizeof key, UUID_FMT, UUID_ARGS(&acl->header_.uuid));
    return shash_find_data(errors, key);
}

/* acl-list --all needs every switch, port group and ACL: no conditions,
 * the tables are monitored in full. */
static void
pre_acl_list_all(struct ctl_context *ctx)
{
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_acls);
    ovsdb_idl_add_column(ctx->idl, &nbrec_port_group_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_port_group_col_acls);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_direction);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_priority);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_match);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_action);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_tier);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_log);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_severity);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_meter);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_label);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_options);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_error_col_acl);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_error_col_error);
}

/* "--all" may come before the command, like other command options, or in
 * place of the switch or port group, where people tend to write it. */
static bool
acl_list_all(const struct ctl_context *ctx)
{
    return (shash_find(&ctx->options, "--all")
            || (ctx->argc == 2 && !strcmp(ctx->argv[1], "--all")));
}

static void
pre_acl_list(struct ctl_context *ctx)
{
    if (acl_list_all(ctx)) {
        pre_acl_list_all(ctx);
    } else if (ctx->argc > 1) {
        pre_acl_owner(ctx);
        pre_acl_errors(ctx);
    }
}

static int
compare_ls_by_name(const void *a_, const void *b_)
{
    const struct nbrec_logical_switch *const *a = a_;
    const struct nbrec_logical_switch *const *b = b_;
    return strcmp((*a)->name, (*b)->name);
}

static int
compare_pg_by_name(const void *a_, const void *b_)
{
    const struct nbrec_port_group *const *a = a_;
    const struct nbrec_port_group *const *b = b_;
    return strcmp((*a)->name, (*b)->name);
}

/* Prints 'acls' under 'header' in acl-list order, if there are any. */
static void
print_acl_block(struct ds *out, const char *kind, const char *name,
                struct nbrec_acl **acls, size_t n_acls,
                const struct shash *errors)
{
    if (!n_acls) {
        return;
    }
    ds_put_format(out, "%s %s:\n", kind, name);
    struct nbrec_acl **sorted = xmemdup(acls, n_acls * sizeof *acls);
    qsort(sorted, n_acls, sizeof *sorted, acl_cmp);
    for (size_t i = 0; i < n_acls; i++) {
        const struct nbrec_acl_error *e = acl_error_find(errors, sorted[i]);
        print_acl(out, sorted[i], e ? e->error : NULL);
    }
    free(sorted);
}

/* acl-list --all: the ACLs of every switch, then of every port group,
 * each under a "switch NAME:" or "port group NAME:" heading. */
static void
cmd_acl_list_all(struct ctl_context *ctx)
{
    struct shash errors = SHASH_INITIALIZER(&errors);
    acl_errors_by_acl(ctx, &errors);

    size_t n = 0, cap = 0;
    const struct nbrec_logical_switch **lss = NULL;
    const struct nbrec_logical_switch *ls;
    NBREC_LOGICAL_SWITCH_FOR_EACH (ls, ctx->idl) {
        if (n == cap) {
            lss = x2nrealloc(lss, &cap, sizeof *lss);
        }
        lss[n++] = ls;
    }
    if (n) {
        qsort(lss, n, sizeof *lss, compare_ls_by_name);
    }
    for (size_t i = 0; i < n; i++) {
        print_acl_block(&ctx->output, "switch", lss[i]->name, lss[i]->acls,
                        lss[i]->n_acls, &errors);
    }
    free(lss);

    n = cap = 0;
    const struct nbrec_port_group **pgs = NULL;
    const struct nbrec_port_group *pg;
    NBREC_PORT_GROUP_FOR_EACH (pg, ctx->idl) {
        if (n == cap) {
            pgs = x2nrealloc(pgs, &cap, sizeof *pgs);
        }
        pgs[n++] = pg;
    }
    if (n) {
        qsort(pgs, n, sizeof *pgs, compare_pg_by_name);
    }
    for (size_t i = 0; i < n; i++) {
        print_acl_block(&ctx->output, "port group", pgs[i]->name,
                        pgs[i]->acls, pgs[i]->n_acls, &errors);
    }
    free(pgs);
    shash_destroy(&errors);
}

static void
cmd_acl_list(struct ctl_context *ctx)
{
    bool all = acl_list_all(ctx);
    if (!all && ctx->argc == 1) {
        ctl_error(ctx, "acl-list: SWITCH or PORTGROUP required (or --all)");
        return;
    } else if (all && ctx->argc == 2 && strcmp(ctx->argv[1], "--all")) {
        ctl_error(ctx, "acl-list: --all takes no SWITCH or PORTGROUP");
        return;
    }
    if (all) {
        cmd_acl_list_all(ctx);
        return;
    }

    struct acl_owner owner;
    if (!find_owner(ctx, &owner) || want_owner_acls(ctx, &owner)) {
        return;
    }

    struct nbrec_acl **acls;
    size_t n_acls;
    owner_acls(&owner, &acls, &n_acls);
    if (want_acl_errors(ctx, acls, n_acls)) {
        return;
    }
    struct shash errors = SHASH_INITIALIZER(&errors);
    acl_errors_by_acl(ctx, &errors);

    struct nbrec_acl **sorted = xmemdup(acls, n_acls * sizeof *acls);
    qsort(sorted, n_acls, sizeof *sorted, acl_cmp);
    for (size_t i = 0; i < n_acls; i++) {
        const struct nbrec_acl_error *e = acl_error_find(&errors, sorted[i]);
        print_acl(&ctx->output, sorted[i], e ? e->error : NULL);
    }
    free(sorted);
    shash_destroy(&errors);
}

/* acl-errors [SWITCH | PORTGROUP]: the ACLs northd found invalid, with
 * the reason and what it made of them.  Without an argument, every one,
 * grouped by the switch or port group northd named. */
static void
pre_acl_errors_cmd(struct ctl_context *ctx)
{
    if (ctx->argc > 1) {
        pre_acl_list(ctx);
        return;
    }
    nbctl_cond_capable(ctx);
    pre_acl_errors(ctx);
    /* Usually short: only invalid ACLs have a row. */
    nbctl_cond_all(ctx, &nbrec_table_acl_error);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_error_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_error_col_match);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_direction);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_priority);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_match);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_action);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_tier);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_log);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_severity);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_meter);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_label);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_options);
    nbctl_cond_none(ctx, &nbrec_table_acl);
}

static void
print_acl_error(struct ds *s, const struct nbrec_acl *acl,
                const struct nbrec_acl_error *e)
{
    print_acl(s, acl, NULL);
    ds_put_format(s, "    error: %s\n    effect: %s\n", e->error, e->effect);
}

static int
acl_error_cmp(const void *a_, const void *b_)
{
    const struct nbrec_acl_error *a = *(const struct nbrec_acl_error **) a_;
    const struct nbrec_acl_error *b = *(const struct nbrec_acl_error **) b_;
    int cmp = strcmp(a->owner, b->owner);
    return cmp ? cmp : acl_cmp(&a->acl, &b->acl);
}

static void
cmd_acl_errors(struct ctl_context *ctx)
{
    if (ctx->argc > 1) {
        struct acl_owner owner;
        if (!find_owner(ctx, &owner) || want_owner_acls(ctx, &owner)) {
            return;
        }
        struct nbrec_acl **acls;
        size_t n_acls;
        owner_acls(&owner, &acls, &n_acls);
        if (want_acl_errors(ctx, acls, n_acls)) {
            return;
        }
        struct shash errors = SHASH_INITIALIZER(&errors);
        acl_errors_by_acl(ctx, &errors);
        struct nbrec_acl **sorted = xmemdup(acls, n_acls * sizeof *acls);
        qsort(sorted, n_acls, sizeof *sorted, acl_cmp);
        for (size_t i = 0; i < n_acls; i++) {
            const struct nbrec_acl_error *e = acl_error_find(&errors,
                                                             sorted[i]);
            if (e) {
                print_acl_error(&ctx->output, sorted[i], e);
            }
        }
        free(sorted);
        shash_destroy(&errors);
        return;
    }

    /* Every row: first fetch the ACLs they are about. */
    size_t n = 0;
    const struct nbrec_acl_error *e;
    NBREC_ACL_ERROR_FOR_EACH (e, ctx->idl) {
        n++;
    }
    bool added = false;
    if (n > 500) {
        added = nbctl_cond_all(ctx, &nbrec_table_acl);
    } else {
        NBREC_ACL_ERROR_FOR_EACH (e, ctx->idl) {
            added = nbctl_cond_uuids(ctx, &nbrec_table_acl,
                                     nbrec_acl_error_get_acl(
                                         e, OVSDB_TYPE_UUID)) || added;
        }
    }
    if (added) {
        return;
    }

    const struct nbrec_acl_error **rows = xmalloc((n + 1) * sizeof *rows);
    size_t n_rows = 0;
    NBREC_ACL_ERROR_FOR_EACH (e, ctx->idl) {
        /* A row whose ACL is gone is stale; northd deletes it soon. */
        if (e->acl) {
            rows[n_rows++] = e;
        }
    }
    qsort(rows, n_rows, sizeof *rows, acl_error_cmp);
    for (size_t i = 0; i < n_rows; i++) {
        if (!i || strcmp(rows[i]->owner, rows[i - 1]->owner)) {
            ds_put_format(&ctx->output, "%s:\n", rows[i]->owner);
        }
        print_acl_error(&ctx->output, rows[i]->acl, rows[i]);
    }
    free(rows);
}

/* ------------------------------------------------------------------------
 * Port groups.
 * --------------------------------------------------------------------- */

static void
pre_pg_ports(struct ctl_context *ctx)
{
    nbctl_cond_capable(ctx);
    nbctl_pre_pg(ctx, ctx->argv[1]);
    ovsdb_idl_add_column(ctx->idl, &nbrec_port_group_col_ports);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_port_col_name);
    nbctl_cond_none(ctx, &nbrec_table_logical_switch_port);
    for (size_t i = 2; i < ctx->argc; i++) {
        nbctl_pre_lsp(ctx, ctx->argv[i]);
    }
}

/* Resolves ports argv[2...] into a new array the caller frees. */
static bool
resolve_ports(struct ctl_context *ctx,
              const struct nbrec_logical_switch_port ***portsp, size_t *np)
{
    size_t n = ctx->argc - 2;
    const struct nbrec_logical_switch_port **ports
        = xmalloc(MAX(n, 1) * sizeof *ports);

    for (size_t i = 0; i < n; i++) {
        ports[i] = lsp_by_name_or_uuid(ctx, ctx->argv[i + 2], true);
        if (!ports[i]) {
            free(ports);
            return false;
        }
    }
    *portsp = ports;
    *np = n;
    return true;
}

static void
cmd_pg_add(struct ctl_context *ctx)
{
    const char *name = ctx->argv[1];

    if (pg_by_name_or_uuid(ctx, name, false)) {
        ctl_error(ctx, "%s: a port group with this name already exists",
                  name);
        return;
    }

    const struct nbrec_logical_switch_port **ports;
    size_t n;
    if (!resolve_ports(ctx, &ports, &n)) {
        return;
    }
    struct nbrec_port_group *pg = nbrec_port_group_insert(ctx->txn);
    nbrec_port_group_set_name(pg, name);
    nbrec_port_group_set_ports(pg,
                               (struct nbrec_logical_switch_port **) ports,
                               n);
    free(ports);
}

static void
cmd_pg_set_ports(struct ctl_context *ctx)
{
    const struct nbrec_port_group *pg
        = pg_by_name_or_uuid(ctx, ctx->argv[1], true);
    const struct nbrec_logical_switch_port **ports;
    size_t n;

    if (!pg || !resolve_ports(ctx, &ports, &n)) {
        return;
    }
    /* A full replacement, so the old members need not be known. */
    nbrec_port_group_set_ports(pg,
                               (struct nbrec_logical_switch_port **) ports,
                               n);
    free(ports);
}

static void
pre_pg_del(struct ctl_context *ctx)
{
    nbctl_cond_capable(ctx);
    nbctl_pre_pg(ctx, ctx->argv[1]);
}

static void
cmd_pg_del(struct ctl_context *ctx)
{
    bool must_exist = !shash_find(&ctx->options, "--if-exists");
    const struct nbrec_port_group *pg
        = pg_by_name_or_uuid(ctx, ctx->argv[1], must_exist);
    if (pg) {
        nbrec_port_group_delete(pg);
    }
}

static void
cmd_pg_get_ports(struct ctl_context *ctx)
{
    const struct nbrec_port_group *pg
        = pg_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!pg) {
        return;
    }
    const struct ovsdb_datum *uuids
        = nbrec_port_group_get_ports(pg, OVSDB_TYPE_UUID);
    if (nbctl_cond_uuids(ctx, &nbrec_table_logical_switch_port, uuids)) {
        return;
    }

    struct svec names = SVEC_EMPTY_INITIALIZER;
    for (size_t i = 0; i < pg->n_ports; i++) {
        svec_add(&names, pg->ports[i]->name);
    }
    svec_sort(&names);
    for (size_t i = 0; i < names.n; i++) {
        ds_put_format(&ctx->output, "%s\n", names.names[i]);
    }
    svec_destroy(&names);
}

/* ------------------------------------------------------------------------
 * Address sets (no OVN counterpart).
 * --------------------------------------------------------------------- */

/* An address set is referred to as $NAME in matches, so its name must be
 * an identifier there. */
static bool
as_name_is_valid(const char *name)
{
    if (!name[0] || (!isalpha((unsigned char) name[0])
                     && name[0] != '_' && name[0] != '.')) {
        return false;
    }
    for (const char *p = name; *p; p++) {
        if (!isalnum((unsigned char) *p) && *p != '_' && *p != '.') {
            return false;
        }
    }
    return true;
}

static const struct nbrec_address_set *
as_by_name_or_uuid(struct ctl_context *ctx, const char *id, bool must_exist)
{
    const struct nbrec_address_set *as = NULL;
    struct uuid uuid;
    bool is_uuid = uuid_from_string(&uuid, id);

    if (is_uuid) {
        as = nbrec_address_set_get_for_uuid(ctx->idl, &uuid);
    }
    if (!as) {
        const struct nbrec_address_set *iter;
        NBREC_ADDRESS_SET_FOR_EACH (iter, ctx->idl) {
            if (!strcmp(iter->name, id)) {
                as = iter;
                break;
            }
        }
    }
    if (!as && must_exist) {
        ctl_error(ctx, "%s: address set %s not found", id,
                  is_uuid ? "UUID" : "name");
    }
    return as;
}

static bool
check_as_addresses(struct ctl_context *ctx)
{
    for (size_t i = 2; i < ctx->argc; i++) {
        char *error = lsp_addresses_check_as_element(ctx->argv[i]);
        if (error) {
            ctl_error(ctx, "%s: invalid address set element (%s)",
                      ctx->argv[i], error);
            free(error);
            return false;
        }
    }
    return true;
}

static void
pre_as(struct ctl_context *ctx)
{
    nbctl_cond_capable(ctx);
    ovsdb_idl_add_column(ctx->idl, &nbrec_address_set_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_address_set_col_addresses);
    if (ctx->argc > 1) {
        nbctl_cond_by_name(ctx, &nbrec_table_address_set,
                           &nbrec_address_set_col_name, ctx->argv[1]);
    } else {
        nbctl_cond_all(ctx, &nbrec_table_address_set);
    }
}

static void
cmd_as_add(struct ctl_context *ctx)
{
    const char *name = ctx->argv[1];

    if (!as_name_is_valid(name)) {
        ctl_error(ctx, "%s: address set name must start with a letter, "
                  "'_' or '.' and contain only letters, digits, '_' and '.'",
                  name);
        return;
    }
    if (!check_as_addresses(ctx)) {
        return;
    }
    if (as_by_name_or_uuid(ctx, name, false)) {
        if (!shash_find(&ctx->options, "--may-exist")) {
            ctl_error(ctx, "%s: an address set with this name already "
                      "exists", name);
        }
        return;
    }
    struct nbrec_address_set *as = nbrec_address_set_insert(ctx->txn);
    nbrec_address_set_set_name(as, name);
    nbrec_address_set_set_addresses(as, (const char **) ctx->argv + 2,
                                    ctx->argc - 2);
}

static void
cmd_as_del(struct ctl_context *ctx)
{
    bool must_exist = !shash_find(&ctx->options, "--if-exists");
    const struct nbrec_address_set *as
        = as_by_name_or_uuid(ctx, ctx->argv[1], must_exist);
    if (as) {
        nbrec_address_set_delete(as);
    }
}

static void
print_as(struct ds *s, const struct nbrec_address_set *as)
{
    struct svec addrs = SVEC_EMPTY_INITIALIZER;
    for (size_t i = 0; i < as->n_addresses; i++) {
        svec_add(&addrs, as->addresses[i]);
    }
    svec_sort(&addrs);
    ds_put_format(s, "%s:", as->name);
    for (size_t i = 0; i < addrs.n; i++) {
        ds_put_format(s, " %s", addrs.names[i]);
    }
    ds_put_char(s, '\n');
    svec_destroy(&addrs);
}

static int
as_cmp(const void *a_, const void *b_)
{
    const struct nbrec_address_set *a
        = *(const struct nbrec_address_set *const *) a_;
    const struct nbrec_address_set *b
        = *(const struct nbrec_address_set *const *) b_;
    return strcmp(a->name, b->name);
}

static void
cmd_as_list(struct ctl_context *ctx)
{
    if (ctx->argc > 1) {
        const struct nbrec_address_set *as
            = as_by_name_or_uuid(ctx, ctx->argv[1], true);
        if (as) {
            print_as(&ctx->output, as);
        }
        return;
    }

    const struct nbrec_address_set **sets = NULL;
    size_t n = 0, allocated = 0;
    const struct nbrec_address_set *as;
    NBREC_ADDRESS_SET_FOR_EACH (as, ctx->idl) {
        if (n >= allocated) {
            sets = x2nrealloc(sets, &allocated, sizeof *sets);
        }
        sets[n++] = as;
    }
    if (n) {
        qsort(sets, n, sizeof *sets, as_cmp);
    }
    for (size_t i = 0; i < n; i++) {
        print_as(&ctx->output, sets[i]);
    }
    free(sets);
}

static void
cmd_as_add_addr(struct ctl_context *ctx)
{
    const struct nbrec_address_set *as
        = as_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!as || !check_as_addresses(ctx)) {
        return;
    }
    for (size_t i = 2; i < ctx->argc; i++) {
        union ovsdb_atom atom = {
            .s = ovsdb_atom_string_create(ctx->argv[i])
        };
        nbctl_set_update(&as->header_, &nbrec_address_set_col_addresses,
                         &atom, true);
        ovsdb_atom_destroy(&atom, OVSDB_TYPE_STRING);
    }
}

static void
cmd_as_del_addr(struct ctl_context *ctx)
{
    const struct nbrec_address_set *as
        = as_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!as) {
        return;
    }
    bool if_exists = shash_find(&ctx->options, "--if-exists") != NULL;
    for (size_t i = 2; i < ctx->argc; i++) {
        bool found = false;
        for (size_t j = 0; j < as->n_addresses; j++) {
            if (!strcmp(as->addresses[j], ctx->argv[i])) {
                found = true;
                break;
            }
        }
        if (found) {
            union ovsdb_atom atom = {
                .s = ovsdb_atom_string_create(ctx->argv[i])
            };
            nbctl_set_update(&as->header_, &nbrec_address_set_col_addresses,
                             &atom, false);
            ovsdb_atom_destroy(&atom, OVSDB_TYPE_STRING);
        } else if (!if_exists) {
            ctl_error(ctx, "%s: address is not in address set %s",
                      ctx->argv[i], as->name);
            return;
        }
    }
}

/* ------------------------------------------------------------------------
 * acl-lint [SWITCH | PORTGROUP]: the lint of lib/acl-lint.h over the NB, as
 * northd's "acl/lint" does it.  Exits with status 2 if there are findings.
 * --------------------------------------------------------------------- */

static void
pre_acl_lint(struct ctl_context *ctx)
{
    /* Everything: one ACL is compared with every other. */
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_ports);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_acls);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_port_col_name);
    ovsdb_idl_add_column(ctx->idl,
                         &nbrec_logical_switch_port_col_addresses);
    ovsdb_idl_add_column(ctx->idl, &nbrec_port_group_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_port_group_col_ports);
    ovsdb_idl_add_column(ctx->idl, &nbrec_port_group_col_acls);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_match);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_action);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_direction);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_meter);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_priority);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_tier);
    ovsdb_idl_add_column(ctx->idl, &nbrec_acl_col_options);
    ovsdb_idl_add_column(ctx->idl, &nbrec_address_set_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_address_set_col_addresses);
    ovsdb_idl_add_column(ctx->idl, &nbrec_meter_col_name);
}

struct lint_sets {
    struct ctl_context *ctx;
    struct shash derived;       /* Name -> struct sset *, kept until the
                                 * lint is done. */
};

static const char **
lint_set_addresses(const void *aux_, const char *name, size_t *n)
{
    struct lint_sets *aux = CONST_CAST(struct lint_sets *, aux_);
    const struct nbrec_address_set *as = as_by_name(aux->ctx, name);
    *n = 0;
    if (as) {
        const char **addrs = xmalloc(MAX(as->n_addresses, 1)
                                     * sizeof *addrs);
        for (size_t i = 0; i < as->n_addresses; i++) {
            addrs[i] = as->addresses[i];
        }
        *n = as->n_addresses;
        return addrs;
    }
    bool ipv6;
    char *pg_name = derived_set_pg(name, &ipv6);
    const struct nbrec_port_group *pg = (pg_name
                                         ? pg_by_name(aux->ctx, pg_name)
                                         : NULL);
    free(pg_name);
    if (!pg) {
        return NULL;
    }
    struct sset *addrs = shash_find_data(&aux->derived, name);
    if (!addrs) {
        addrs = xmalloc(sizeof *addrs);
        sset_init(addrs);
        pg_collect_addresses(pg, ipv6, addrs);
        shash_add(&aux->derived, name, addrs);
    }
    *n = sset_count(addrs);
    return sset_sort(addrs);
}

static void
lint_owner_fill(struct acl_lint_owner *owner, const char *name,
                struct nbrec_acl **acls, size_t n_acls,
                struct nbrec_logical_switch_port **ports, size_t n_ports)
{
    struct acl_lint_acl *la = xcalloc(MAX(n_acls, 1), sizeof *la);
    for (size_t i = 0; i < n_acls; i++) {
        const struct nbrec_acl *acl = acls[i];
        la[i] = (struct acl_lint_acl) {
            .uuid = acl->header_.uuid,
            .name = acl->name,
            .match = acl->match,
            .action = acl->action,
            .direction = acl->direction,
            .meter = acl->meter,
            .priority = acl->priority,
            .tier = acl->tier,
            .after_lb = smap_get_bool(&acl->options, "apply-after-lb",
                                      false),
        };
    }
    const char **names = xmalloc(MAX(n_ports, 1) * sizeof *names);
    for (size_t i = 0; i < n_ports; i++) {
        names[i] = ports[i]->name;
    }
    *owner = (struct acl_lint_owner) {
        .name = name, .acls = la, .n_acls = n_acls,
        .ports = names, .n_ports = n_ports,
    };
}

static void
cmd_acl_lint(struct ctl_context *ctx)
{
    size_t n_switches = 0, n_pgs = 0, n_meters = 0;
    const struct nbrec_logical_switch *ls;
    NBREC_LOGICAL_SWITCH_FOR_EACH (ls, ctx->idl) {
        n_switches++;
    }
    const struct nbrec_port_group *pg;
    NBREC_PORT_GROUP_FOR_EACH (pg, ctx->idl) {
        n_pgs++;
    }
    const struct nbrec_meter *meter;
    NBREC_METER_FOR_EACH (meter, ctx->idl) {
        n_meters++;
    }

    struct acl_lint_owner *switches = xcalloc(MAX(n_switches, 1),
                                              sizeof *switches);
    struct acl_lint_owner *pgs = xcalloc(MAX(n_pgs, 1), sizeof *pgs);
    const char **meters = xcalloc(MAX(n_meters, 1), sizeof *meters);
    size_t i = 0;
    NBREC_LOGICAL_SWITCH_FOR_EACH (ls, ctx->idl) {
        lint_owner_fill(&switches[i++], ls->name, ls->acls, ls->n_acls,
                        ls->ports, ls->n_ports);
    }
    i = 0;
    NBREC_PORT_GROUP_FOR_EACH (pg, ctx->idl) {
        lint_owner_fill(&pgs[i++], pg->name, pg->acls, pg->n_acls,
                        pg->ports, pg->n_ports);
    }
    i = 0;
    NBREC_METER_FOR_EACH (meter, ctx->idl) {
        meters[i++] = meter->name;
    }

    struct lint_sets sets = { .ctx = ctx,
                              .derived = SHASH_INITIALIZER(&sets.derived) };
    struct acl_lint_db db = {
        .switches = switches, .n_switches = n_switches,
        .pgs = pgs, .n_pgs = n_pgs,
        .meters = meters, .n_meters = n_meters,
        .set_addresses = lint_set_addresses, .aux = &sets,
    };
    const char *filter = ctx->argc > 1 ? ctx->argv[1] : NULL;
    size_t n = acl_lint(&db, filter, ACL_LINT_DEFAULT_THRESHOLD,
                        &ctx->output);
    if (n == SIZE_MAX) {
        ctl_error(ctx, "no switch or port group \"%s\"", filter);
    } else {
        nbctl_set_exit_status(n ? 2 : 0);
    }

    for (i = 0; i < n_switches + n_pgs; i++) {
        struct acl_lint_owner *o = (i < n_switches ? &switches[i]
                                    : &pgs[i - n_switches]);
        free(CONST_CAST(struct acl_lint_acl *, o->acls));
        free(CONST_CAST(char const **, o->ports));
    }
    free(switches);
    free(pgs);
    free(meters);
    struct shash_node *node;
    SHASH_FOR_EACH (node, &sets.derived) {
        sset_destroy(node->data);
    }
    shash_destroy_free_data(&sets.derived);
}

const struct ctl_command_syntax nbctl_acl_commands[] = {
    { "acl-add", 5, 5, "{SWITCH | PORTGROUP} DIRECTION PRIORITY MATCH ACTION",
      pre_acl_add, cmd_acl_add, NULL,
      "--log,--may-exist,--type=,--name=,--severity=,--meter=,--label=,"
      "--tier=,--apply-after-lb", RW },
    { "acl-del", 1, 4, "{SWITCH | PORTGROUP} [DIRECTION [PRIORITY MATCH]]",
      pre_acl_del, cmd_acl_del, NULL, "--type=,--tier=", RW },
    { "acl-list", 0, 1, "{SWITCH | PORTGROUP | --all}", pre_acl_list,
      cmd_acl_list, NULL, "--type=,--all", RO },
    { "acl-errors", 0, 1, "[SWITCH | PORTGROUP]", pre_acl_errors_cmd,
      cmd_acl_errors, NULL, "--type=", RO },
    { "acl-lint", 0, 1, "[SWITCH | PORTGROUP]", pre_acl_lint, cmd_acl_lint,
      NULL, "", RO },

    { "pg-add", 1, INT_MAX, "PG [PORTS]", pre_pg_ports, cmd_pg_add, NULL,
      "", RW },
    { "pg-set-ports", 2, INT_MAX, "PG PORTS", pre_pg_ports,
      cmd_pg_set_ports, NULL, "", RW },
    { "pg-del", 1, 1, "PG", pre_pg_del, cmd_pg_del, NULL, "--if-exists",
      RW },
    { "pg-get-ports", 1, 1, "PG", pre_pg_ports, cmd_pg_get_ports, NULL, "",
      RO },

    { "as-add", 1, INT_MAX, "NAME [ADDRESS]...", pre_as, cmd_as_add, NULL,
      "--may-exist", RW },
    { "as-del", 1, 1, "NAME", pre_as, cmd_as_del, NULL, "--if-exists", RW },
    { "as-list", 0, 1, "[NAME]", pre_as, cmd_as_list, NULL, "", RO },
    { "as-add-addr", 2, INT_MAX, "NAME ADDRESS...", pre_as, cmd_as_add_addr,
      NULL, "", RW },
    { "as-del-addr", 2, INT_MAX, "NAME ADDRESS...", pre_as, cmd_as_del_addr,
      NULL, "--if-exists", RW },

    { NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, RO },
};
