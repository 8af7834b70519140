/* Native DNS on logical switches; see dns.h and docs/dns.md. */
#include <config.h>
#include "northd/dns.h"

#include <ctype.h>
#include <string.h>

#include "coverage.h"
#include "hmapx.h"
#include "lib/nb-rdb.h"
#include "lib/rdb.h"
#include "lib/sb-rdb.h"
#include "northd/datapaths.h"
#include "northd/lflow.h"
#include "northd/pipeline.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "packets.h"
#include "smap.h"
#include "util.h"
#include "uuid.h"

VLOG_DEFINE_THIS_MODULE(dns);

COVERAGE_DEFINE(dns_row_written);
COVERAGE_DEFINE(dns_row_deleted);

/* One NB DNS row that switches list. */
struct dns_entry {
    struct hmap_node node;          /* In dns_model 'entries'. */
    const struct nb_dns *nb;
    struct hmapx dps;               /* The "struct ls_datapath"s listing
                                     * it. */
    struct uuid sb_uuid;            /* Its SB row; zero until written. */
    bool bad;                       /* Some record was reported. */
    bool dirty;                     /* SB row to write (incremental). */
};

void
dns_model_init(struct dns_model *dm)
{
    hmap_init(&dm->entries);
}

static void
dns_entry_destroy(struct dns_entry *e)
{
    hmapx_destroy(&e->dps);
    free(e);
}

void
dns_model_destroy(struct dns_model *dm)
{
    struct dns_entry *e;
    HMAP_FOR_EACH_POP (e, node, &dm->entries) {
        dns_entry_destroy(e);
    }
    hmap_destroy(&dm->entries);
}

static struct dns_entry *
dns_entry_find(const struct dns_model *dm, const struct uuid *uuid)
{
    struct dns_entry *e;
    HMAP_FOR_EACH_WITH_HASH (e, node, uuid_hash(uuid), &dm->entries) {
        if (uuid_equals(&e->nb->header_.uuid, uuid)) {
            return e;
        }
    }
    return NULL;
}

/* A reverse-lookup name ("4.0.0.10.in-addr.arpa"): its value is a domain
 * name, not addresses. */
static bool
is_ptr_name(const char *name)
{
    static const char *const suffixes[] = { ".in-addr.arpa", ".ip6.arpa" };
    size_t len = strlen(name);
    while (len && name[len - 1] == '.') {
        len--;
    }
    for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
        size_t n = strlen(suffixes[i]);
        if (len > n && !strncasecmp(name + len - n, suffixes[i], n)) {
            return true;
        }
    }
    return false;
}

/* Returns NULL if 'value' is a list of IPv4 and IPv6 addresses separated
 * by spaces or commas, else what is wrong with it (to free). */
static char *
check_addresses(const char *value)
{
    char *copy = xstrdup(value);
    char *save = NULL;
    char *error = NULL;
    size_t n = 0;
    for (char *tok = strtok_r(copy, " ,", &save); tok && !error;
         tok = strtok_r(NULL, " ,", &save)) {
        ovs_be32 ip4;
        struct in6_addr ip6;
        if (!ip_parse(tok, &ip4) && !ipv6_parse(tok, &ip6)) {
            error = xasprintf("\"%s\" is not an IP address", tok);
        }
        n++;
    }
    if (!error && !n) {
        error = xstrdup("no address");
    }
    free(copy);
    return error;
}

/* Reports, through 'm', each record of 'nb' ovn-controller cannot answer
 * a query from.  They are copied to the SB all the same, as stock does.
 * Returns true if there was any. */
static bool
check_records(struct ls_model *m, const struct nb_dns *nb)
{
    bool bad = false;
    const struct smap_node **nodes = smap_sort(&nb->records);
    size_t n = smap_count(&nb->records);
    for (size_t i = 0; i < n; i++) {
        const char *key = nodes[i]->key;
        const char *value = nodes[i]->value;
        char *error = NULL;
        if (!key[0]) {
            error = xstrdup("the name is empty");
        } else if (is_ptr_name(key)) {
            if (!value[strspn(value, " ")]) {
                error = xstrdup("no domain name");
            }
        } else {
            error = check_addresses(value);
        }
        if (error) {
            if (m) {
                char *msg = xasprintf(
                    "DNS "UUID_FMT": record \"%s\"=\"%s\": %s (copied to "
                    "the SB as stock does, but ovn-controller answers no "
                    "query from it)", UUID_ARGS(&nb->header_.uuid), key,
                    value, error);
                ls_model_report_bad_row(m, msg);
                free(msg);
            }
            free(error);
            bad = true;
        }
    }
    free(nodes);
    return bad;
}

static struct dns_entry *
dns_entry_get(struct dns_model *dm, struct ls_model *m,
              const struct nb_dns *nb)
{
    struct dns_entry *e = dns_entry_find(dm, &nb->header_.uuid);
    if (!e) {
        e = xzalloc(sizeof *e);
        e->nb = nb;
        hmapx_init(&e->dps);
        e->bad = check_records(m, nb);
        hmap_insert(&dm->entries, &e->node, uuid_hash(&nb->header_.uuid));
    }
    return e;
}

void
dns_model_build(struct dns_model *dm, struct ls_model *m)
{
    dns_model_init(dm);
    for (size_t i = 0; i < m->n_datapaths; i++) {
        struct ls_datapath *dp = m->dp_array[i];
        for (size_t j = 0; j < dp->nb->n_dns_records; j++) {
            struct dns_entry *e = dns_entry_get(dm, m,
                                                dp->nb->dns_records[j]);
            hmapx_add(&e->dps, dp);
        }
    }
}

/* Whether 'dp' gets DNS flows: one of its DNS rows has records (stock
 * 23.03 writes an SB row for a DNS row without any, but no flows). */
static bool
dp_has_dns_records(const struct ls_datapath *dp)
{
    for (size_t i = 0; i < dp->nb->n_dns_records; i++) {
        if (!smap_is_empty(&dp->nb->dns_records[i]->records)) {
            return true;
        }
    }
    return false;
}

void
dns_build_dp_lflows(struct lflow_table *t, const struct ls_datapath *dp,
                    bool stateful)
{
    if (!dp_has_dns_records(dp)) {
        return;
    }
    /* ovn-controller turns a query it can answer into the reply and sets
     * the bit; the reply goes back where the query came from.  The two
     * response flows differ only in their actions, as stock's do: each
     * applies only to its IP version (the actions' prerequisites). */
    lflow_add(t, dp, S_IN_DNS_LOOKUP, 100, "udp.dst == 53",
              REGBIT_DNS_LOOKUP_RESULT" = dns_lookup(); next;");
    lflow_add(t, dp, S_IN_DNS_RESPONSE, 100,
              "udp.dst == 53 && "REGBIT_DNS_LOOKUP_RESULT,
              "eth.dst <-> eth.src; ip4.src <-> ip4.dst; "
              "udp.dst = udp.src; udp.src = 53; outport = inport; "
              "flags.loopback = 1; output;");
    lflow_add(t, dp, S_IN_DNS_RESPONSE, 100,
              "udp.dst == 53 && "REGBIT_DNS_LOOKUP_RESULT,
              "eth.dst <-> eth.src; ip6.src <-> ip6.dst; "
              "udp.dst = udp.src; udp.src = 53; outport = inport; "
              "flags.loopback = 1; output;");
    /* The reply re-enters the egress pipeline: no ACL stops it. */
    lflow_add(t, dp, S_OUT_ACL, PRI_ACL_INFRA, "udp.src == 53",
              stateful ? "ct_commit; next;" : "next;");
}

/* The records as stock writes them to the SB: values in lowercase. */
static void
sb_records(const struct nb_dns *nb, struct smap *out)
{
    smap_init(out);
    const struct smap_node *node;
    SMAP_FOR_EACH (node, &nb->records) {
        char *value = xstrdup(node->value);
        for (char *p = value; *p; p++) {
            *p = tolower((unsigned char) *p);
        }
        smap_add_nocopy(out, xstrdup(node->key), value);
    }
}

static int
compare_uuids(const void *a_, const void *b_)
{
    return uuid_compare_3way(a_, b_);
}

/* The Datapath_Bindings of the switches listing 'e', sorted; the caller
 * frees them. */
static struct uuid *
sb_datapaths(const struct dns_entry *e, size_t *n)
{
    struct uuid *v = xmalloc(MAX(hmapx_count(&e->dps), 1) * sizeof *v);
    *n = 0;
    const struct hmapx_node *node;
    HMAPX_FOR_EACH (node, &e->dps) {
        const struct ls_datapath *dp = node->data;
        v[(*n)++] = dp->sb_uuid;
    }
    qsort(v, *n, sizeof *v, compare_uuids);
    return v;
}

static bool
datapaths_equal(const struct sb_dns *sb, const struct uuid *v, size_t n)
{
    if (sb->n_datapaths != n) {
        return false;
    }
    struct uuid *have = xmalloc(MAX(n, 1) * sizeof *have);
    for (size_t i = 0; i < n; i++) {
        have[i] = sb->datapaths[i]->header_.uuid;
    }
    qsort(have, n, sizeof *have, compare_uuids);
    bool equal = !memcmp(have, v, n * sizeof *v);
    free(have);
    return equal;
}

/* Writes 'e''s SB row: inserted if 'sb_uuid' is zero, else the columns
 * that differ from 'sb' (all of them if 'sb' is NULL). */
static void
write_entry(struct dns_entry *e, const struct sb_dns *sb,
            struct rdb_txn *txn)
{
    bool insert = uuid_is_zero(&e->sb_uuid);
    if (insert) {
        rdb_uuid_generate(&e->sb_uuid);
    }

    struct smap records;
    sb_records(e->nb, &records);
    size_t n_dps;
    struct uuid *dps = sb_datapaths(e, &n_dps);
    bool records_ok = sb && smap_equal(&sb->records, &records);
    bool dps_ok = sb && datapaths_equal(sb, dps, n_dps);
    if (insert || !records_ok || !dps_ok) {
        COVERAGE_INC(dns_row_written);
        if (insert) {
            rdb_txn_insert(txn, &sb_table_dns, &e->sb_uuid);
            char id[UUID_LEN + 1];
            snprintf(id, sizeof id, UUID_FMT,
                     UUID_ARGS(&e->nb->header_.uuid));
            struct smap ids = SMAP_INITIALIZER(&ids);
            smap_add(&ids, "dns_id", id);
            rdb_txn_set_smap(txn, SB_DNS_COL_EXTERNAL_IDS, &ids);
            smap_destroy(&ids);
        } else {
            rdb_txn_update(txn, &sb_table_dns, &e->sb_uuid);
        }
        if (!records_ok) {
            rdb_txn_set_smap(txn, SB_DNS_COL_RECORDS, &records);
        }
        if (!dps_ok) {
            rdb_txn_set_refs(txn, SB_DNS_COL_DATAPATHS, dps, n_dps);
        }
    }
    free(dps);
    smap_destroy(&records);
}

void
dns_sync_sb(struct dns_model *dm, struct rdb *sb_db, struct rdb_txn *txn)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

    /* Each entry takes the row that names it (of several, the lowest
     * UUID); any other row goes, as with stock. */
    const struct sb_dns *sb;
    SB_DNS_FOR_EACH (sb, sb_db) {
        struct uuid id;
        struct dns_entry *e
            = (smap_get_uuid(&sb->external_ids, "dns_id", &id)
               ? dns_entry_find(dm, &id) : NULL);
        struct uuid dead = sb->header_.uuid;
        if (e && uuid_is_zero(&e->sb_uuid)) {
            e->sb_uuid = sb->header_.uuid;
            continue;
        } else if (e) {
            VLOG_INFO_RL(&rl, "deleting SB DNS row with duplicate "
                         "external_ids:dns_id "UUID_FMT,
                         UUID_ARGS(&e->nb->header_.uuid));
            if (uuid_compare_3way(&sb->header_.uuid, &e->sb_uuid) < 0) {
                dead = e->sb_uuid;
                e->sb_uuid = sb->header_.uuid;
            }
        }
        rdb_txn_delete(txn, &sb_table_dns, &dead);
        COVERAGE_INC(dns_row_deleted);
    }

    struct dns_entry *e;
    HMAP_FOR_EACH (e, node, &dm->entries) {
        sb = (uuid_is_zero(&e->sb_uuid) ? NULL
              : sb_dns_get_for_uuid(sb_db, &e->sb_uuid));
        write_entry(e, sb, txn);
        e->dirty = false;
    }
}

/* Takes 'dp' out of every entry it is in, but those in 'keep'. */
static void
dp_leave_entries(struct dns_model *dm, const struct ls_datapath *dp,
                 const struct hmapx *keep)
{
    struct dns_entry *e;
    HMAP_FOR_EACH (e, node, &dm->entries) {
        if (!hmapx_contains(keep, e)
            && hmapx_find_and_delete(&e->dps, dp)) {
            e->dirty = true;
        }
    }
}

bool
dns_handle_changes(struct dns_model *dm, const struct ls_model *m,
                   struct rdb *nb_db, struct hmapx *dps, const char **reason)
{
    /* Switches that list other DNS rows, and new switches. */
    bool listings_changed = false;
    const struct nb_logical_switch *ls;
    NB_LOGICAL_SWITCH_FOR_EACH_TRACKED (ls, nb_db) {
        if (!nb_logical_switch_is_new(ls)
            && !nb_logical_switch_is_updated(
                   ls, NB_LOGICAL_SWITCH_COL_DNS_RECORDS)) {
            continue;
        }
        struct ls_datapath *dp = ls_model_find_datapath(m, &ls->header_.uuid);
        if (!dp) {
            *reason = "Logical_Switch dns_records";
            return false;
        }
        struct hmapx listed = HMAPX_INITIALIZER(&listed);
        for (size_t i = 0; i < ls->n_dns_records; i++) {
            const struct nb_dns *d = ls->dns_records[i];
            struct dns_entry *e = dns_entry_find(dm, &d->header_.uuid);
            if (!e && check_records(NULL, d)) {
                hmapx_destroy(&listed);
                *reason = "DNS records to report";
                return false;
            }
            e = dns_entry_get(dm, NULL, d);
            if (hmapx_add(&e->dps, dp)) {
                e->dirty = true;
            }
            hmapx_add(&listed, e);
        }
        dp_leave_entries(dm, dp, &listed);
        hmapx_destroy(&listed);
        hmapx_add(dps, dp);
        listings_changed = true;
    }
    /* A reported row no switch lists any more leaves the report. */
    if (listings_changed) {
        const struct dns_entry *gone;
        HMAP_FOR_EACH (gone, node, &dm->entries) {
            if (gone->bad && hmapx_is_empty(&gone->dps)) {
                *reason = "DNS records to report";
                return false;
            }
        }
    }
    /* DNS rows whose records changed: only their SB row, unless the
     * switches' flows change (records appear or all go). */
    const struct nb_dns *nb;
    NB_DNS_FOR_EACH_TRACKED (nb, nb_db) {
        struct dns_entry *e = dns_entry_find(dm, &nb->header_.uuid);
        if (!e) {
            continue;           /* No switch lists it (yet). */
        }
        if (nb_dns_is_deleted(nb)) {
            if (!hmapx_is_empty(&e->dps)) {
                *reason = "DNS";
                return false;
            }
            continue;           /* Its switches let go of it above. */
        }
        if (e->bad || check_records(NULL, nb)) {
            *reason = "DNS records to report";
            return false;
        }
        e->dirty = true;
        const struct hmapx_node *node;
        HMAPX_FOR_EACH (node, &e->dps) {
            hmapx_add(dps, node->data);
        }
    }
    return true;
}

void
dns_sync_sb_dirty(struct dns_model *dm, struct rdb_txn *txn)
{
    struct dns_entry *e;
    HMAP_FOR_EACH_SAFE (e, node, &dm->entries) {
        if (!e->dirty) {
            continue;
        }
        e->dirty = false;
        if (hmapx_is_empty(&e->dps)) {
            /* No switch lists it any more. */
            if (!uuid_is_zero(&e->sb_uuid)) {
                rdb_txn_delete(txn, &sb_table_dns, &e->sb_uuid);
                COVERAGE_INC(dns_row_deleted);
            }
            hmap_remove(&dm->entries, &e->node);
            dns_entry_destroy(e);
            continue;
        }
        /* Everything is written: what the replica holds may be older than
         * the last transaction. */
        write_entry(e, NULL, txn);
    }
}

size_t
dns_model_diff(const struct dns_model *a, const struct dns_model *b,
               struct ds *report, size_t max)
{
    size_t n = 0;
    const struct dns_model *models[2] = { a, b };
    for (int k = 0; k < 2; k++) {
        const struct dns_model *x = models[k], *y = models[!k];
        const struct dns_entry *e;
        HMAP_FOR_EACH (e, node, &x->entries) {
            const struct dns_entry *f
                = dns_entry_find(y, &e->nb->header_.uuid);
            bool same = f != NULL;
            if (f && !k) {
                /* Same switches, by NB row (the models' datapaths are
                 * distinct objects). */
                same = hmapx_count(&e->dps) == hmapx_count(&f->dps);
                const struct hmapx_node *node;
                HMAPX_FOR_EACH (node, &e->dps) {
                    const struct ls_datapath *dp = node->data;
                    bool found = false;
                    const struct hmapx_node *node2;
                    HMAPX_FOR_EACH (node2, &f->dps) {
                        const struct ls_datapath *dp2 = node2->data;
                        found |= uuid_equals(&dp->nb->header_.uuid,
                                             &dp2->nb->header_.uuid);
                    }
                    same &= found;
                }
            }
            if (!same) {
                if (n < max) {
                    ds_put_format(report, "DNS "UUID_FMT": %s\n",
                                  UUID_ARGS(&e->nb->header_.uuid),
                                  !f ? (k ? "only in the second"
                                          : "only in the first")
                                  : "on other switches");
                }
                n++;
            }
        }
    }
    return n;
}
