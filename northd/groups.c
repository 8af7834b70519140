/* SB Port_Group and Address_Set rows; see groups.h. */
#include <config.h>
#include "northd/groups.h"

#include <string.h>

#include "lib/ovn-nb-idl.h"
#include "lib/ovn-sb-idl.h"
#include "northd/datapaths.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "sset.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(groups);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

void
groups_scan_refs(const char *match, struct sset *addr_sets, struct sset *pgs)
{
    bool in_string = false;
    for (const char *p = match; *p; p++) {
        if (in_string) {
            if (*p == '\\' && p[1]) {
                p++;
            } else if (*p == '"') {
                in_string = false;
            }
        } else if (*p == '"') {
            in_string = true;
        } else if (*p == '@' || *p == '$') {
            struct sset *names = *p == '@' ? pgs : addr_sets;
            size_t n = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz"
                              "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.");
            if (n && names) {
                char *name = xmemdup0(p + 1, n);
                if (!sset_contains(names, name)) {
                    sset_add(names, name);
                }
                free(name);
            }
            p += n;
        }
    }
}

static bool
sets_equal(char **a, size_t n_a, const struct sset *b)
{
    if (n_a != sset_count(b)) {
        return false;
    }
    for (size_t i = 0; i < n_a; i++) {
        if (!sset_contains(b, a[i])) {
            return false;
        }
    }
    return true;
}

/* Desired SB Address_Sets: NB's, plus "<pg>_ip4" / "<pg>_ip6" with the IPs
 * of each port group's members (prefix lengths dropped). */
void
groups_build_address_sets(const struct ls_model *m, struct ovsdb_idl *nb_idl,
                          struct shash *sets)
{
    const struct nbrec_address_set *as;
    NBREC_ADDRESS_SET_FOR_EACH (as, nb_idl) {
        struct sset *s = xmalloc(sizeof *s);
        sset_init(s);
        for (size_t i = 0; i < as->n_addresses; i++) {
            sset_add(s, as->addresses[i]);
        }
        if (!shash_add_once(sets, as->name, s)) {
            VLOG_WARN_RL(&rl, "Address_Set "UUID_FMT": duplicate name \"%s\""
                         ", ignoring", UUID_ARGS(&as->header_.uuid),
                         as->name);
            sset_destroy(s);
            free(s);
        }
    }

    const struct nbrec_port_group *pg;
    NBREC_PORT_GROUP_FOR_EACH (pg, nb_idl) {
        struct sset *v4 = xmalloc(sizeof *v4);
        struct sset *v6 = xmalloc(sizeof *v6);
        sset_init(v4);
        sset_init(v6);
        for (size_t i = 0; i < pg->n_ports; i++) {
            const struct ls_port *p = ls_model_find_port(m,
                                                         pg->ports[i]->name);
            if (!p || p->nb != pg->ports[i]) {
                continue;
            }
            for (size_t j = 0; j < p->n_addrs; j++) {
                const struct lsp_addresses *la = &p->addrs[j];
                for (size_t k = 0; k < la->n_ipv4; k++) {
                    sset_add_and_free(v4, xasprintf(IP_FMT, IP_ARGS(
                                                   la->ipv4[k].addr)));
                }
                for (size_t k = 0; k < la->n_ipv6; k++) {
                    char buf[INET6_ADDRSTRLEN];
                    inet_ntop(AF_INET6, &la->ipv6[k].addr, buf, sizeof buf);
                    sset_add(v6, buf);
                }
            }
        }
        struct sset *both[2] = { v4, v6 };
        for (int f = 0; f < 2; f++) {
            char *name = xasprintf("%s_ip%d", pg->name, f ? 6 : 4);
            if (!shash_add_once(sets, name, both[f])) {
                VLOG_WARN_RL(&rl, "Port_Group %s: address set %s already "
                             "exists in the NB, not deriving it", pg->name,
                             name);
                sset_destroy(both[f]);
                free(both[f]);
            }
            free(name);
        }
    }
}

static void
sync_address_sets(const struct shash *sets, struct ovsdb_idl *sb_idl,
                  struct ovsdb_idl_txn *txn)
{
    struct sset done = SSET_INITIALIZER(&done);
    const struct sbrec_address_set *sb;
    SBREC_ADDRESS_SET_FOR_EACH_SAFE (sb, sb_idl) {
        const struct sset *want = shash_find_data(sets, sb->name);
        if (!want || !sset_add(&done, sb->name)) {
            sbrec_address_set_delete(sb);
            continue;
        }
        if (!sets_equal(sb->addresses, sb->n_addresses, want)) {
            const char **v = sset_array(want);
            sbrec_address_set_set_addresses(sb, v, sset_count(want));
            free(v);
        }
    }

    struct shash_node *node;
    SHASH_FOR_EACH (node, sets) {
        if (sset_contains(&done, node->name)) {
            continue;
        }
        const struct sset *want = node->data;
        sb = sbrec_address_set_insert(txn);
        sbrec_address_set_set_name(sb, node->name);
        const char **v = sset_array(want);
        sbrec_address_set_set_addresses(sb, v, sset_count(want));
        free(v);
    }
    sset_destroy(&done);
}

/* Desired SB Port_Groups: "<datapath key>_<pg>" with the group's ports on
 * that datapath, for every datapath with a member or an ACL that names the
 * group (an empty group must still resolve in ovn-controller). */
static void
sync_port_groups(const struct ls_model *m, struct ovsdb_idl *nb_idl,
                 const struct sset *dp_pg_refs, struct ovsdb_idl *sb_idl,
                 struct ovsdb_idl_txn *txn)
{
    struct shash want = SHASH_INITIALIZER(&want);
    struct shash nb_pgs = SHASH_INITIALIZER(&nb_pgs);
    const struct nbrec_port_group *pg;
    NBREC_PORT_GROUP_FOR_EACH (pg, nb_idl) {
        shash_add_once(&nb_pgs, pg->name, pg);
        for (size_t i = 0; i < pg->n_ports; i++) {
            const struct ls_port *p = ls_model_find_port(m,
                                                         pg->ports[i]->name);
            if (!p || p->nb != pg->ports[i]) {
                continue;
            }
            char *name = xasprintf("%"PRIu32"_%s", p->dp->tunnel_key,
                                   pg->name);
            struct sset *ports = shash_find_data(&want, name);
            if (!ports) {
                ports = xmalloc(sizeof *ports);
                sset_init(ports);
                shash_add(&want, name, ports);
            }
            sset_add(ports, p->nb->name);
            free(name);
        }
    }
    for (size_t i = 0; dp_pg_refs && i < m->n_datapaths; i++) {
        const char *ref;
        SSET_FOR_EACH (ref, &dp_pg_refs[i]) {
            if (!shash_find(&nb_pgs, ref)) {
                continue;
            }
            char *name = xasprintf("%"PRIu32"_%s",
                                   m->dp_array[i]->tunnel_key, ref);
            if (!shash_find(&want, name)) {
                struct sset *ports = xmalloc(sizeof *ports);
                sset_init(ports);
                shash_add(&want, name, ports);
            }
            free(name);
        }
    }
    shash_destroy(&nb_pgs);

    const struct sbrec_port_group *sb;
    SBREC_PORT_GROUP_FOR_EACH_SAFE (sb, sb_idl) {
        struct sset *ports = shash_find_and_delete(&want, sb->name);
        if (!ports) {
            sbrec_port_group_delete(sb);
            continue;
        }
        if (!sets_equal(sb->ports, sb->n_ports, ports)) {
            const char **v = sset_array(ports);
            sbrec_port_group_set_ports(sb, v, sset_count(ports));
            free(v);
        }
        sset_destroy(ports);
        free(ports);
    }
    struct shash_node *node;
    SHASH_FOR_EACH (node, &want) {
        struct sset *ports = node->data;
        sb = sbrec_port_group_insert(txn);
        sbrec_port_group_set_name(sb, node->name);
        const char **v = sset_array(ports);
        sbrec_port_group_set_ports(sb, v, sset_count(ports));
        free(v);
        sset_destroy(ports);
        free(ports);
    }
    shash_destroy(&want);
}

void
groups_destroy_address_sets(struct shash *sets)
{
    struct shash_node *node;
    SHASH_FOR_EACH (node, sets) {
        sset_destroy(node->data);
        free(node->data);
    }
    shash_destroy(sets);
}

void
groups_sync_sb(const struct ls_model *m, struct ovsdb_idl *nb_idl,
               const struct shash *addr_sets, const struct sset *dp_pg_refs,
               struct ovsdb_idl *sb_idl, struct ovsdb_idl_txn *txn)
{
    sync_address_sets(addr_sets, sb_idl, txn);
    sync_port_groups(m, nb_idl, dp_pg_refs, sb_idl, txn);
}
