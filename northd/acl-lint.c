/* northd's ACL lint: see acl-lint.h. */
#include <config.h>

#include "northd/acl-lint.h"

#include <stdlib.h>
#include <string.h>

#include "lib/nb-rdb.h"
#include "lib/rdb.h"
#include "lib/strpack.h"
#include "northd/groups.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/shash.h"
#include "smap.h"
#include "util.h"

struct nb_sets {
    const struct groups *groups;
    struct shash sets;          /* Name -> nb_address_set. */
};

static const char **
nb_set_addresses(const void *aux_, const char *name, size_t *n)
{
    const struct nb_sets *aux = aux_;
    if (aux->groups) {
        return groups_set_addresses(aux->groups, name, n);
    }
    const struct nb_address_set *as = shash_find_data(&aux->sets, name);
    if (!as) {
        *n = 0;
        return NULL;
    }
    const char **addrs = xmalloc(MAX(as->n_addresses, 1) * sizeof *addrs);
    for (size_t i = 0; i < as->n_addresses; i++) {
        addrs[i] = as->addresses[i];
    }
    *n = as->n_addresses;
    return addrs;
}

/* Fills 'owner' with 'n_acls' ACLs from 'acls' and 'n_ports' port names,
 * allocating what the caller frees with free_owner(). */
static void
fill_owner(struct acl_lint_owner *owner, const char *name,
           struct nb_acl **acls, size_t n_acls,
           struct nb_logical_switch_port **ports, size_t n_ports)
{
    struct acl_lint_acl *la = xcalloc(MAX(n_acls, 1), sizeof *la);
    for (size_t i = 0; i < n_acls; i++) {
        const struct nb_acl *acl = acls[i];
        struct ds match = DS_EMPTY_INITIALIZER;
        la[i] = (struct acl_lint_acl) {
            .uuid = acl->header_.uuid,
            .name = acl->name,
            .match = xstrdup(strpack_cstr(acl->match, &match)),
            .action = rdb_enum_string(&nb_table_acl, NB_ACL_COL_ACTION,
                                      acl->action),
            .direction = rdb_enum_string(&nb_table_acl,
                                         NB_ACL_COL_DIRECTION,
                                         acl->direction),
            .meter = acl->meter,
            .priority = acl->priority,
            .tier = acl->tier,
            .after_lb = smap_get_bool(acl->options, "apply-after-lb",
                                      false),
        };
        ds_destroy(&match);
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
free_owner(struct acl_lint_owner *owner)
{
    for (size_t i = 0; i < owner->n_acls; i++) {
        free(CONST_CAST(char *, owner->acls[i].match));
    }
    free(CONST_CAST(struct acl_lint_acl *, owner->acls));
    free(CONST_CAST(char const **, owner->ports));
}

size_t
northd_acl_lint(const struct rdb *nb, const struct groups *groups,
                const char *filter, double threshold, struct ds *out)
{
    struct nb_sets sets = { .groups = groups,
                            .sets = SHASH_INITIALIZER(&sets.sets) };
    const struct nb_address_set *as;
    NB_ADDRESS_SET_FOR_EACH (as, nb) {
        shash_add_once(&sets.sets, as->name, as);
    }

    size_t n_switches = 0, n_pgs = 0, n_meters = 0;
    const struct nb_logical_switch *ls;
    NB_LOGICAL_SWITCH_FOR_EACH (ls, nb) {
        n_switches++;
    }
    const struct nb_port_group *pg;
    NB_PORT_GROUP_FOR_EACH (pg, nb) {
        n_pgs++;
    }
    const struct nb_meter *meter;
    NB_METER_FOR_EACH (meter, nb) {
        n_meters++;
    }

    struct acl_lint_owner *switches = xcalloc(MAX(n_switches, 1),
                                              sizeof *switches);
    struct acl_lint_owner *pgs = xcalloc(MAX(n_pgs, 1), sizeof *pgs);
    const char **meters = xcalloc(MAX(n_meters, 1), sizeof *meters);
    size_t i = 0;
    NB_LOGICAL_SWITCH_FOR_EACH (ls, nb) {
        fill_owner(&switches[i++], ls->name, ls->acls, ls->n_acls,
                   ls->ports, ls->n_ports);
    }
    i = 0;
    NB_PORT_GROUP_FOR_EACH (pg, nb) {
        fill_owner(&pgs[i++], pg->name, pg->acls, pg->n_acls,
                   pg->ports, pg->n_ports);
    }
    i = 0;
    NB_METER_FOR_EACH (meter, nb) {
        meters[i++] = meter->name;
    }

    struct acl_lint_db db = {
        .switches = switches, .n_switches = n_switches,
        .pgs = pgs, .n_pgs = n_pgs,
        .meters = meters, .n_meters = n_meters,
        .set_addresses = nb_set_addresses, .aux = &sets,
    };
    size_t n = acl_lint(&db, filter, threshold, out);

    for (i = 0; i < n_switches; i++) {
        free_owner(&switches[i]);
    }
    for (i = 0; i < n_pgs; i++) {
        free_owner(&pgs[i]);
    }
    free(switches);
    free(pgs);
    free(meters);
    shash_destroy(&sets.sets);
    return n;
}
