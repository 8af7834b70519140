/* ovn-nbctl: "show", logical switch and logical switch port commands. */
#include <config.h>

#include "utilities/nbctl.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lsp-addresses.h"
#include "lib/lsp-types.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/shash.h"
#include "ovsdb-data.h"
#include "ovsdb-idl.h"
#include "packets.h"
#include "smap.h"
#include "svec.h"
#include "util.h"
#include "uuid.h"

static void
print_sorted_rows(struct ds *s, struct svec *lines)
{
    svec_sort(lines);
    for (size_t i = 0; i < lines->n; i++) {
        ds_put_format(s, "%s\n", lines->names[i]);
    }
}

static void
pre_show(struct ctl_context *ctx)
{
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_ports);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_external_ids);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_port_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_port_col_type);
    ovsdb_idl_add_column(ctx->idl,
                         &nbrec_logical_switch_port_col_parent_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_port_col_tag);
    ovsdb_idl_add_column(ctx->idl,
                         &nbrec_logical_switch_port_col_addresses);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_port_col_options);
    ovsdb_idl_add_column(ctx->idl,
                         &nbrec_logical_switch_port_col_external_ids);
    nbctl_pre_lrp(ctx);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_router_col_external_ids);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_router_col_nat);
    ovsdb_idl_add_column(ctx->idl, &nbrec_nat_col_external_ip);
    ovsdb_idl_add_column(ctx->idl, &nbrec_nat_col_logical_ip);
    ovsdb_idl_add_column(ctx->idl, &nbrec_nat_col_type);
}

static int
compare_lr_by_name(const void *a_, const void *b_)
{
    const struct nbrec_logical_router *const *a = a_;
    const struct nbrec_logical_router *const *b = b_;
    int cmp = strcmp((*a)->name, (*b)->name);
    return cmp ? cmp : uuid_compare_3way(&(*a)->header_.uuid,
                                         &(*b)->header_.uuid);
}

static int
compare_lsp_by_name(const void *a_, const void *b_)
{
    const struct nbrec_logical_switch_port *const *a = a_;
    const struct nbrec_logical_switch_port *const *b = b_;
    return strcmp((*a)->name, (*b)->name);
}

static int
compare_ls_by_name(const void *a_, const void *b_)
{
    const struct nbrec_logical_switch *const *a = a_;
    const struct nbrec_logical_switch *const *b = b_;
    int cmp = strcmp((*a)->name, (*b)->name);
    return cmp ? cmp : uuid_compare_3way(&(*a)->header_.uuid,
                                         &(*b)->header_.uuid);
}

static void
print_ls(const struct nbrec_logical_switch *ls, struct ds *s)
{
    ds_put_format(s, "switch "UUID_FMT" (%s)",
                  UUID_ARGS(&ls->header_.uuid), ls->name);
    const char *aka = smap_get(&ls->external_ids, "neutron:network_name");
    if (aka) {
        ds_put_format(s, " (aka %s)", aka);
    }
    ds_put_char(s, '\n');

    /* Ports by name, so that the output does not depend on UUIDs. */
    const struct nbrec_logical_switch_port **ports
        = xmemdup(ls->ports, ls->n_ports * sizeof *ls->ports);
    qsort(ports, ls->n_ports, sizeof *ports, compare_lsp_by_name);
    for (size_t i = 0; i < ls->n_ports; i++) {
        const struct nbrec_logical_switch_port *lsp = ports[i];

        ds_put_format(s, "    port %s", lsp->name);
        aka = smap_get(&lsp->external_ids, "neutron:port_name");
        if (aka) {
            ds_put_format(s, " (aka %s)", aka);
        }
        ds_put_char(s, '\n');
        if (lsp->type[0]) {
            ds_put_format(s, "        type: %s\n", lsp->type);
        }
        if (lsp->parent_name) {
            ds_put_format(s, "        parent: %s\n", lsp->parent_name);
        }
        if (lsp->n_tag) {
            ds_put_format(s, "        tag: %"PRId64"\n", lsp->tag[0]);
        }
        /* A lone "router" is implied by the peer: OVN's show omits it. */
        if (lsp->n_addresses
            && !(lsp->n_addresses == 1
                 && !strcmp(lsp->addresses[0], "router"))) {
            ds_put_cstr(s, "        addresses: [");
            for (size_t j = 0; j < lsp->n_addresses; j++) {
                ds_put_format(s, "%s\"%s\"", j ? ", " : "",
                              lsp->addresses[j]);
            }
            ds_put_cstr(s, "]\n");
        }
        const char *rp = smap_get(&lsp->options, "router-port");
        if (rp) {
            ds_put_format(s, "        router-port: %s\n", rp);
        }
    }
    free(ports);
}

static void
cmd_show(struct ctl_context *ctx)
{
    if (ctx->argc == 2) {
        const struct nbrec_logical_switch *ls
            = ls_by_name_or_uuid(ctx, ctx->argv[1], false);
        if (ls) {
            print_ls(ls, &ctx->output);
        }
        if (ctx->error) {
            return;
        }
        const struct nbrec_logical_router *lr
            = lr_by_name_or_uuid(ctx, ctx->argv[1], false);
        if (lr) {
            nbctl_print_lr(&ctx->output, lr);
        }
        return;
    }

    size_t n = 0;
    const struct nbrec_logical_switch *ls;
    const struct nbrec_logical_switch **all = NULL;
    size_t allocated = 0;
    NBREC_LOGICAL_SWITCH_FOR_EACH (ls, ctx->idl) {
        if (n >= allocated) {
            all = x2nrealloc(all, &allocated, sizeof *all);
        }
        all[n++] = ls;
    }
    qsort(all, n, sizeof *all, compare_ls_by_name);
    for (size_t i = 0; i < n; i++) {
        print_ls(all[i], &ctx->output);
    }
    free(all);

    /* Routers after switches, as in stock. */
    const struct nbrec_logical_router *lr;
    const struct nbrec_logical_router **lrs = NULL;
    n = allocated = 0;
    NBREC_LOGICAL_ROUTER_FOR_EACH (lr, ctx->idl) {
        if (n >= allocated) {
            lrs = x2nrealloc(lrs, &allocated, sizeof *lrs);
        }
        lrs[n++] = lr;
    }
    if (n) {
        qsort(lrs, n, sizeof *lrs, compare_lr_by_name);
    }
    for (size_t i = 0; i < n; i++) {
        nbctl_print_lr(&ctx->output, lrs[i]);
    }
    free(lrs);
}

/* ------------------------------------------------------------------------
 * Logical switch commands.
 * --------------------------------------------------------------------- */

static void
pre_ls_add(struct ctl_context *ctx)
{
    nbctl_cond_capable(ctx);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_name);
    if (ctx->argc == 2) {
        nbctl_cond_string(ctx, &nbrec_table_logical_switch,
                          &nbrec_logical_switch_col_name, ctx->argv[1]);
    } else {
        nbctl_cond_none(ctx, &nbrec_table_logical_switch);
    }
}

static void
cmd_ls_add(struct ctl_context *ctx)
{
    const char *name = ctx->argc == 2 ? ctx->argv[1] : NULL;
    bool may_exist = shash_find(&ctx->options, "--may-exist") != NULL;
    bool add_duplicate = shash_find(&ctx->options, "--add-duplicate") != NULL;

    if (may_exist && add_duplicate) {
        ctl_error(ctx, "--may-exist and --add-duplicate may not be used "
                  "together");
        return;
    }
    if (name) {
        if (!add_duplicate) {
            const struct nbrec_logical_switch *ls;
            NBREC_LOGICAL_SWITCH_FOR_EACH (ls, ctx->idl) {
                if (!strcmp(ls->name, name)) {
                    if (may_exist) {
                        return;
                    }
                    ctl_error(ctx, "%s: a switch with this name already "
                              "exists", name);
                    return;
                }
            }
        }
    } else if (may_exist) {
        ctl_error(ctx, "--may-exist requires specifying a name");
        return;
    } else if (add_duplicate) {
        ctl_error(ctx, "--add-duplicate requires specifying a name");
        return;
    }

    struct nbrec_logical_switch *ls = nbrec_logical_switch_insert(ctx->txn);
    if (name) {
        nbrec_logical_switch_set_name(ls, name);
    }
}

static void
pre_ls_del(struct ctl_context *ctx)
{
    nbctl_cond_capable(ctx);
    nbctl_pre_ls(ctx, ctx->argv[1]);
}

static void
cmd_ls_del(struct ctl_context *ctx)
{
    bool must_exist = !shash_find(&ctx->options, "--if-exists");
    const struct nbrec_logical_switch *ls
        = ls_by_name_or_uuid(ctx, ctx->argv[1], must_exist);
    if (ls) {
        /* Ports and ACLs are not root rows: the server collects them. */
        nbrec_logical_switch_delete(ls);
    }
}

static void
pre_ls_list(struct ctl_context *ctx)
{
    nbctl_cond_capable(ctx);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_name);
    nbctl_cond_all(ctx, &nbrec_table_logical_switch);
}

/* Prints "UUID (NAME)" for each "NAME\tUUID" in 'lines', sorted by name
 * then UUID, as ls-list and lsp-list do, and destroys 'lines'. */
static void
print_uuid_name_lines(struct ds *out, struct svec *lines)
{
    svec_sort(lines);
    for (size_t i = 0; i < lines->n; i++) {
        char *tab = strrchr(lines->names[i], '\t');
        *tab = '\0';
        ds_put_format(out, "%s (%s)\n", tab + 1, lines->names[i]);
    }
    svec_destroy(lines);
}

static void
cmd_ls_list(struct ctl_context *ctx)
{
    const struct nbrec_logical_switch *ls;
    struct svec lines = SVEC_EMPTY_INITIALIZER;

    NBREC_LOGICAL_SWITCH_FOR_EACH (ls, ctx->idl) {
        /* Sorting "name\tuuid" orders by name, then UUID. */
        svec_add_nocopy(&lines, xasprintf("%s\t"UUID_FMT, ls->name,
                                          UUID_ARGS(&ls->header_.uuid)));
    }
    print_uuid_name_lines(&ctx->output, &lines);
}

/* ------------------------------------------------------------------------
 * Logical switch port commands.
 * --------------------------------------------------------------------- */

static void
pre_lsp_add(struct ctl_context *ctx)
{
    nbctl_cond_capable(ctx);
    nbctl_pre_ls(ctx, ctx->argv[1]);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_ports);
    nbctl_pre_lsp(ctx, ctx->argv[2]);
    ovsdb_idl_add_column(ctx->idl,
                         &nbrec_logical_switch_port_col_parent_name);
    ovsdb_idl_add_column(ctx->idl,
                         &nbrec_logical_switch_port_col_tag_request);
}

static void
cmd_lsp_add(struct ctl_context *ctx)
{
    bool may_exist = shash_find(&ctx->options, "--may-exist") != NULL;
    const char *lsp_name = ctx->argv[2];
    const char *parent_name = NULL;
    int64_t tag = -1;

    const struct nbrec_logical_switch *ls
        = ls_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!ls) {
        return;
    }

    if (ctx->argc == 3) {
        /* No parent. */
    } else if (ctx->argc == 5) {
        parent_name = ctx->argv[3];
        if (!ovs_scan(ctx->argv[4], "%"SCNd64, &tag)
            || tag < 0 || tag > 4095) {
            ctl_error(ctx, "%s: invalid tag (must be in range 0 to 4095)",
                      ctx->argv[4]);
            return;
        }
    } else {
        ctl_error(ctx, "lsp-add with parent must also specify a tag");
        return;
    }

    const struct nbrec_logical_switch_port *lsp;
    NBREC_LOGICAL_SWITCH_PORT_FOR_EACH (lsp, ctx->idl) {
        if (strcmp(lsp->name, lsp_name)) {
            continue;
        }
        if (!may_exist) {
            ctl_error(ctx, "%s: a port with this name already exists",
                      lsp_name);
            return;
        }
        const struct nbrec_logical_switch *lsw = lsp_to_ls(ctx, lsp);
        if (!lsw) {
            return;
        }
        if (lsw != ls) {
            ctl_error(ctx, "%s: port already exists but in switch %s",
                      lsp_name, lsw->name);
            return;
        }
        if (parent_name) {
            if (!lsp->parent_name || strcmp(parent_name, lsp->parent_name)) {
                ctl_error(ctx, "%s: port already exists but has parent %s",
                          lsp_name, lsp->parent_name ? lsp->parent_name
                                                     : "(none)");
                return;
            }
            if (!lsp->n_tag_request || lsp->tag_request[0] != tag) {
                ctl_error(ctx, "%s: port already exists with different "
                          "tag_request %"PRId64, lsp_name,
                          lsp->n_tag_request ? lsp->tag_request[0] : -1);
                return;
            }
        } else if (lsp->parent_name) {
            ctl_error(ctx, "%s: port already exists but has parent %s",
                      lsp_name, lsp->parent_name);
            return;
        }
        return;
    }

    struct nbrec_logical_switch_port *new
        = nbrec_logical_switch_port_insert(ctx->txn);
    nbrec_logical_switch_port_set_name(new, lsp_name);
    if (parent_name) {
        nbrec_logical_switch_port_set_parent_name(new, parent_name);
        nbrec_logical_switch_port_set_tag_request(new, &tag, 1);
    }
    /* A mutation: the switch's other ports need not be in our replica. */
    nbctl_ref_update(&ls->header_, &nbrec_logical_switch_col_ports,
                     &new->header_, true);
}

static void
pre_lsp_del(struct ctl_context *ctx)
{
    nbctl_cond_capable(ctx);
    nbctl_pre_lsp(ctx, ctx->argv[1]);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_ports);
    nbctl_cond_none(ctx, &nbrec_table_logical_switch);
}

static void
cmd_lsp_del(struct ctl_context *ctx)
{
    bool must_exist = !shash_find(&ctx->options, "--if-exists");
    const struct nbrec_logical_switch_port *lsp
        = lsp_by_name_or_uuid(ctx, ctx->argv[1], must_exist);
    if (!lsp) {
        return;
    }
    const struct nbrec_logical_switch *ls = lsp_to_ls(ctx, lsp);
    if (ls) {
        nbctl_ref_update(&ls->header_, &nbrec_logical_switch_col_ports,
                         &lsp->header_, false);
    }
}

static void
pre_lsp_list(struct ctl_context *ctx)
{
    nbctl_cond_capable(ctx);
    nbctl_pre_ls(ctx, ctx->argv[1]);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_ports);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_port_col_name);
    nbctl_cond_none(ctx, &nbrec_table_logical_switch_port);
}

/* Asks for the ports of 'ls'.  Returns true if the caller must wait. */
static bool
want_ls_ports(struct ctl_context *ctx, const struct nbrec_logical_switch *ls)
{
    const struct ovsdb_datum *ports
        = nbrec_logical_switch_get_ports(ls, OVSDB_TYPE_UUID);
    return nbctl_cond_uuids(ctx, &nbrec_table_logical_switch_port, ports);
}

static void
cmd_lsp_list(struct ctl_context *ctx)
{
    const struct nbrec_logical_switch *ls
        = ls_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!ls || want_ls_ports(ctx, ls)) {
        return;
    }

    struct svec lines = SVEC_EMPTY_INITIALIZER;
    for (size_t i = 0; i < ls->n_ports; i++) {
        const struct nbrec_logical_switch_port *lsp = ls->ports[i];
        svec_add_nocopy(&lines, xasprintf("%s\t"UUID_FMT, lsp->name,
                                          UUID_ARGS(&lsp->header_.uuid)));
    }
    print_uuid_name_lines(&ctx->output, &lines);
}

/* Prerequisites of the commands that take one PORT and read or write the
 * given columns of it. */
static void
pre_lsp_columns(struct ctl_context *ctx,
                const struct ovsdb_idl_column *a,
                const struct ovsdb_idl_column *b)
{
    nbctl_cond_capable(ctx);
    nbctl_pre_lsp(ctx, ctx->argv[1]);
    if (a) {
        ovsdb_idl_add_column(ctx->idl, a);
    }
    if (b) {
        ovsdb_idl_add_column(ctx->idl, b);
    }
}

static void
pre_lsp_parent(struct ctl_context *ctx)
{
    pre_lsp_columns(ctx, &nbrec_logical_switch_port_col_parent_name, NULL);
}

static void
cmd_lsp_get_parent(struct ctl_context *ctx)
{
    const struct nbrec_logical_switch_port *lsp
        = lsp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (lsp && lsp->parent_name) {
        ds_put_format(&ctx->output, "%s\n", lsp->parent_name);
    }
}

static void
pre_lsp_tag(struct ctl_context *ctx)
{
    pre_lsp_columns(ctx, &nbrec_logical_switch_port_col_tag, NULL);
}

static void
cmd_lsp_get_tag(struct ctl_context *ctx)
{
    const struct nbrec_logical_switch_port *lsp
        = lsp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (lsp && lsp->n_tag) {
        ds_put_format(&ctx->output, "%"PRId64"\n", lsp->tag[0]);
    }
}

/* Checks every element of 'addrs' as an address entry.  On error returns
 * false with ctx->error set. */
static bool
check_addresses(struct ctl_context *ctx, char **addrs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        enum lsp_addr_kind kind;
        struct lsp_addresses la;
        char *error = lsp_addresses_parse(addrs[i], &kind, &la);
        if (error) {
            ctl_error(ctx, "%s: Invalid address format (%s). See ovn-nb(5). "
                      "Hint: An Ethernet address must be listed before an "
                      "IP address, together as a single argument.",
                      addrs[i], error);
            free(error);
            return false;
        }
        if (kind == LSP_ADDR_MAC_IPS) {
            lsp_addresses_destroy(&la);
        }
    }
    return true;
}

static void
pre_lsp_set_addresses(struct ctl_context *ctx)
{
    pre_lsp_columns(ctx, &nbrec_logical_switch_port_col_addresses, NULL);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_ports);
    nbctl_cond_none(ctx, &nbrec_table_logical_switch);
}

/* Returns true if 'a' and 'b' (parsed address entries) share an IP. */
static const char *
shared_ip(const struct lsp_addresses *a, const struct lsp_addresses *b,
          char *buf, size_t size)
{
    for (size_t i = 0; i < a->n_ipv4; i++) {
        for (size_t j = 0; j < b->n_ipv4; j++) {
            if (a->ipv4[i].addr == b->ipv4[j].addr) {
                snprintf(buf, size, IP_FMT, IP_ARGS(a->ipv4[i].addr));
                return "IPv4";
            }
        }
    }
    for (size_t i = 0; i < a->n_ipv6; i++) {
        for (size_t j = 0; j < b->n_ipv6; j++) {
            if (ipv6_addr_equals(&a->ipv6[i].addr, &b->ipv6[j].addr)) {
                ipv6_string_mapped(buf, &a->ipv6[i].addr);
                return "IPv6";
            }
        }
    }
    return NULL;
}

/* Fails, with ctx->error set, if an IP in 'addrs' is used by another port of
 * the switch 'lsp' is on.  Returns true if the caller must wait. */
static bool
check_duplicate_ips(struct ctl_context *ctx,
                    const struct nbrec_logical_switch_port *lsp,
                    char **addrs, size_t n)
{
    struct lsp_addresses *mine = xcalloc(n, sizeof *mine);
    size_t n_mine = 0;
    bool wait = false;

    for (size_t i = 0; i < n; i++) {
        enum lsp_addr_kind kind;
        char *error = lsp_addresses_parse(addrs[i], &kind, &mine[n_mine]);
        if (!error && kind == LSP_ADDR_MAC_IPS) {
            if (mine[n_mine].n_ipv4 || mine[n_mine].n_ipv6) {
                n_mine++;
            } else {
                lsp_addresses_destroy(&mine[n_mine]);
            }
        }
        free(error);
    }
    if (!n_mine) {
        goto out;
    }

    const struct nbrec_logical_switch *ls = lsp_to_ls(ctx, lsp);
    if (!ls) {
        wait = ctx->try_again;
        goto out;
    }
    if (want_ls_ports(ctx, ls)) {
        wait = true;
        goto out;
    }
    for (size_t i = 0; i < ls->n_ports; i++) {
        const struct nbrec_logical_switch_port *other = ls->ports[i];
        if (other == lsp) {
            continue;
        }
        for (size_t j = 0; j < other->n_addresses; j++) {
            enum lsp_addr_kind kind;
            struct lsp_addresses theirs;
            char *error = lsp_addresses_parse(other->addresses[j], &kind,
                                              &theirs);
            if (error) {
                free(error);
                continue;
            }
            if (kind != LSP_ADDR_MAC_IPS) {
                continue;
            }
            for (size_t k = 0; k < n_mine; k++) {
                char buf[INET6_ADDRSTRLEN];
                const char *family = shared_ip(&mine[k], &theirs,
                                               buf, sizeof buf);
                if (family) {
                    ctl_error(ctx, "Error on switch %s: duplicate %s address "
                              "'%s' found on logical switch port '%s'",
                              ls->name, family, buf, other->name);
                    lsp_addresses_destroy(&theirs);
                    goto out;
                }
            }
            lsp_addresses_destroy(&theirs);
        }
    }

out:
    for (size_t i = 0; i < n_mine; i++) {
        lsp_addresses_destroy(&mine[i]);
    }
    free(mine);
    return wait;
}

static void
cmd_lsp_set_addresses(struct ctl_context *ctx)
{
    const struct nbrec_logical_switch_port *lsp
        = lsp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lsp) {
        return;
    }
    char **addrs = ctx->argv + 2;
    size_t n = ctx->argc - 2;
    if (!check_addresses(ctx, addrs, n)
        || check_duplicate_ips(ctx, lsp, addrs, n) || ctx->error) {
        return;
    }
    nbrec_logical_switch_port_set_addresses(lsp, (const char **) addrs, n);
}

static void
pre_lsp_get_addresses(struct ctl_context *ctx)
{
    pre_lsp_columns(ctx, &nbrec_logical_switch_port_col_addresses, NULL);
}

static void
print_svec_sorted(struct ds *s, char **items, size_t n)
{
    struct svec v = SVEC_EMPTY_INITIALIZER;
    for (size_t i = 0; i < n; i++) {
        svec_add(&v, items[i]);
    }
    print_sorted_rows(s, &v);
    svec_destroy(&v);
}

static void
cmd_lsp_get_addresses(struct ctl_context *ctx)
{
    const struct nbrec_logical_switch_port *lsp
        = lsp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (lsp) {
        print_svec_sorted(&ctx->output, lsp->addresses, lsp->n_addresses);
    }
}

static void
pre_lsp_port_security(struct ctl_context *ctx)
{
    pre_lsp_columns(ctx, &nbrec_logical_switch_port_col_port_security,
                    NULL);
}

static void
cmd_lsp_set_port_security(struct ctl_context *ctx)
{
    const struct nbrec_logical_switch_port *lsp
        = lsp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lsp || !check_addresses(ctx, ctx->argv + 2, ctx->argc - 2)) {
        return;
    }
    nbrec_logical_switch_port_set_port_security(
        lsp, (const char **) ctx->argv + 2, ctx->argc - 2);
}

static void
cmd_lsp_get_port_security(struct ctl_context *ctx)
{
    const struct nbrec_logical_switch_port *lsp
        = lsp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (lsp) {
        print_svec_sorted(&ctx->output, lsp->port_security,
                          lsp->n_port_security);
    }
}

static void
pre_lsp_up(struct ctl_context *ctx)
{
    pre_lsp_columns(ctx, &nbrec_logical_switch_port_col_up, NULL);
}

static void
cmd_lsp_get_up(struct ctl_context *ctx)
{
    const struct nbrec_logical_switch_port *lsp
        = lsp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (lsp) {
        ds_put_format(&ctx->output, "%s\n",
                      lsp->up && *lsp->up ? "up" : "down");
    }
}

/* Parses "enabled" or "disabled" into '*value'. */
static bool
parse_enabled(struct ctl_context *ctx, const char *state, bool *value)
{
    if (!strcasecmp(state, "enabled")) {
        *value = true;
    } else if (!strcasecmp(state, "disabled")) {
        *value = false;
    } else {
        ctl_error(ctx, "%s: state must be \"enabled\" or \"disabled\"",
                  state);
        return false;
    }
    return true;
}

static void
pre_lsp_enabled(struct ctl_context *ctx)
{
    pre_lsp_columns(ctx, &nbrec_logical_switch_port_col_enabled, NULL);
}

static void
cmd_lsp_set_enabled(struct ctl_context *ctx)
{
    const struct nbrec_logical_switch_port *lsp
        = lsp_by_name_or_uuid(ctx, ctx->argv[1], true);
    bool enabled;
    if (lsp && parse_enabled(ctx, ctx->argv[2], &enabled)) {
        nbrec_logical_switch_port_set_enabled(lsp, &enabled, 1);
    }
}

static void
cmd_lsp_get_enabled(struct ctl_context *ctx)
{
    const struct nbrec_logical_switch_port *lsp
        = lsp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (lsp) {
        ds_put_format(&ctx->output, "%s\n",
                      !lsp->enabled || *lsp->enabled ? "enabled"
                                                     : "disabled");
    }
}

static void
pre_lsp_type(struct ctl_context *ctx)
{
    pre_lsp_columns(ctx, &nbrec_logical_switch_port_col_type, NULL);
}

static void
cmd_lsp_set_type(struct ctl_context *ctx)
{
    const struct nbrec_logical_switch_port *lsp
        = lsp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lsp) {
        return;
    }
    if (!lsp_type_is_known(ctx->argv[2])) {
        ctl_error(ctx, "Logical switch port type '%s' is unrecognized. "
                  "Not setting type.", ctx->argv[2]);
        return;
    }
    nbrec_logical_switch_port_set_type(lsp, ctx->argv[2]);
}

static void
cmd_lsp_get_type(struct ctl_context *ctx)
{
    const struct nbrec_logical_switch_port *lsp
        = lsp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (lsp) {
        ds_put_format(&ctx->output, "%s\n", lsp->type);
    }
}

static void
pre_lsp_options(struct ctl_context *ctx)
{
    pre_lsp_columns(ctx, &nbrec_logical_switch_port_col_options, NULL);
}

static void
cmd_lsp_set_options(struct ctl_context *ctx)
{
    const struct nbrec_logical_switch_port *lsp
        = lsp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lsp) {
        return;
    }

    struct smap options = SMAP_INITIALIZER(&options);
    for (size_t i = 2; i < ctx->argc; i++) {
        const char *eq = strchr(ctx->argv[i], '=');
        if (!eq || eq == ctx->argv[i]) {
            ctl_error(ctx, "%s: options must be KEY=VALUE", ctx->argv[i]);
            smap_destroy(&options);
            return;
        }
        char *key = xmemdup0(ctx->argv[i], eq - ctx->argv[i]);
        smap_replace(&options, key, eq + 1);
        free(key);
    }
    nbrec_logical_switch_port_set_options(lsp, &options);
    smap_destroy(&options);
}

static void
cmd_lsp_get_options(struct ctl_context *ctx)
{
    const struct nbrec_logical_switch_port *lsp
        = lsp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (lsp) {
        nbctl_print_smap(&ctx->output, &lsp->options);
    }
}

static void
pre_lsp_get_ls(struct ctl_context *ctx)
{
    pre_lsp_columns(ctx, NULL, NULL);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_name);
    ovsdb_idl_add_column(ctx->idl, &nbrec_logical_switch_col_ports);
    nbctl_cond_none(ctx, &nbrec_table_logical_switch);
}

static void
cmd_lsp_get_ls(struct ctl_context *ctx)
{
    const struct nbrec_logical_switch_port *lsp
        = lsp_by_name_or_uuid(ctx, ctx->argv[1], true);
    if (!lsp) {
        return;
    }
    const struct nbrec_logical_switch *ls = lsp_to_ls(ctx, lsp);
    if (ls) {
        ds_put_format(&ctx->output, UUID_FMT " (%s)\n",
                      UUID_ARGS(&ls->header_.uuid), ls->name);
    }
}

const struct ctl_command_syntax nbctl_ls_commands[] = {
    { "show", 0, 1, "[SWITCH|ROUTER]", pre_show, cmd_show, NULL, "", RO },

    { "ls-add", 0, 1, "[SWITCH]", pre_ls_add, cmd_ls_add, NULL,
      "--may-exist,--add-duplicate", RW },
    { "ls-del", 1, 1, "SWITCH", pre_ls_del, cmd_ls_del, NULL,
      "--if-exists", RW },
    { "ls-list", 0, 0, "", pre_ls_list, cmd_ls_list, NULL, "", RO },

    { "lsp-add", 2, 4, "SWITCH PORT [PARENT] [TAG]", pre_lsp_add,
      cmd_lsp_add, NULL, "--may-exist", RW },
    { "lsp-del", 1, 1, "PORT", pre_lsp_del, cmd_lsp_del, NULL,
      "--if-exists", RW },
    { "lsp-list", 1, 1, "SWITCH", pre_lsp_list, cmd_lsp_list, NULL, "",
      RO },
    { "lsp-get-parent", 1, 1, "PORT", pre_lsp_parent, cmd_lsp_get_parent,
      NULL, "", RO },
    { "lsp-get-tag", 1, 1, "PORT", pre_lsp_tag, cmd_lsp_get_tag, NULL, "",
      RO },
    { "lsp-set-addresses", 1, INT_MAX, "PORT [ADDRESS]...",
      pre_lsp_set_addresses, cmd_lsp_set_addresses, NULL, "", RW },
    { "lsp-get-addresses", 1, 1, "PORT", pre_lsp_get_addresses,
      cmd_lsp_get_addresses, NULL, "", RO },
    { "lsp-set-port-security", 1, INT_MAX, "PORT [ADDRS]...",
      pre_lsp_port_security, cmd_lsp_set_port_security, NULL, "", RW },
    { "lsp-get-port-security", 1, 1, "PORT", pre_lsp_port_security,
      cmd_lsp_get_port_security, NULL, "", RO },
    { "lsp-get-up", 1, 1, "PORT", pre_lsp_up, cmd_lsp_get_up, NULL, "",
      RO },
    { "lsp-set-enabled", 2, 2, "PORT STATE", pre_lsp_enabled,
      cmd_lsp_set_enabled, NULL, "", RW },
    { "lsp-get-enabled", 1, 1, "PORT", pre_lsp_enabled,
      cmd_lsp_get_enabled, NULL, "", RO },
    { "lsp-set-type", 2, 2, "PORT TYPE", pre_lsp_type, cmd_lsp_set_type,
      NULL, "", RW },
    { "lsp-get-type", 1, 1, "PORT", pre_lsp_type, cmd_lsp_get_type, NULL,
      "", RO },
    { "lsp-set-options", 1, INT_MAX, "PORT KEY=VALUE [KEY=VALUE]...",
      pre_lsp_options, cmd_lsp_set_options, NULL, "", RW },
    { "lsp-get-options", 1, 1, "PORT", pre_lsp_options,
      cmd_lsp_get_options, NULL, "", RO },
    { "lsp-get-ls", 1, 1, "PORT", pre_lsp_get_ls, cmd_lsp_get_ls, NULL, "",
      RO },

    { NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, RO },
};
