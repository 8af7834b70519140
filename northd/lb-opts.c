/* Load balancer options on logical switches; see lb-opts.h. */
#include <config.h>
#include "northd/lb-opts.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "lib/nb-rdb.h"
#include "lib/sb-rdb.h"
#include "northd/datapaths.h"
#include "northd/features.h"
#include "northd/lb.h"
#include "northd/lflow.h"
#include "northd/pipeline.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/shash.h"
#include "openvswitch/vlog.h"
#include "smap.h"
#include "util.h"
#include "uuid.h"

VLOG_DEFINE_THIS_MODULE(lb_opts);

COVERAGE_DEFINE(lb_tmpl_unknown_var);
COVERAGE_DEFINE(lb_tmpl_var_synced);

/* reg9[6]: chk_lb_aff() found an affinity entry for the connection. */
#define REGBIT_KNOWN_LB_SESSION "reg9[6]"
/* Where chk_lb_aff() leaves the backend it found. */
#define REG_LB_AFF_BACKEND_IP4  "reg4"
#define REG_LB_AFF_BACKEND_IP6  "xxreg0"
#define REG_LB_AFF_BACKEND_PORT "reg8[0..15]"

void
lb_opts_ctx_init(struct lb_opts_ctx *ctx, struct rdb *nb_db)
{
    const struct nb_nb_global *g = nb_nb_global_first(nb_db);
    ctx->controller_event = g && smap_get_bool(&g->options,
                                               "controller_event", false);
    sset_init(&ctx->vars);
    const struct nb_chassis_template_var *tv;
    NB_CHASSIS_TEMPLATE_VAR_FOR_EACH (tv, nb_db) {
        const struct smap_node *node;
        SMAP_FOR_EACH (node, &tv->variables) {
            sset_add(&ctx->vars, node->key);
        }
    }
}

void
lb_opts_ctx_destroy(struct lb_opts_ctx *ctx)
{
    sset_destroy(&ctx->vars);
}

static int
compare_strings(const void *a_, const void *b_)
{
    const char *const *a = a_;
    const char *const *b = b_;
    return strcmp(*a, *b);
}

void
lb_opts_init(struct lb_opts *o, const struct nb_load_balancer *nb,
             const char *proto, const struct lb_opts_ctx *ctx,
             struct ls_model *m)
{
    memset(o, 0, sizeof *o);
    o->reject = smap_get_bool(&nb->options, "reject", false);
    o->event = (ctx->controller_event
                || smap_get_bool(&nb->options, "event", false));
    o->is_template = smap_get_bool(&nb->options, "template", false);
    o->template_ipv6 = !strcmp(smap_get_def(&nb->options, "address-family",
                                            "ipv4"), "ipv6");

    /* As stock: a value above 65535 is taken as 65535. */
    int timeout = smap_get_int(&nb->options, "affinity_timeout", 0);
    if (timeout > UINT16_MAX) {
        char *msg = xasprintf("Load_Balancer %s ("UUID_FMT"): "
                              "affinity_timeout %d taken as the maximum, %d",
                              nb->name, UUID_ARGS(&nb->header_.uuid),
                              timeout, UINT16_MAX);
        ls_model_report_bad_row(m, msg);
        free(msg);
        timeout = UINT16_MAX;
    }
    o->affinity_timeout = timeout > 0 ? timeout : 0;
    if (o->affinity_timeout && o->is_template) {
        /* Stock writes IPv6 affinity flows whatever the family. */
        char *msg = xasprintf("Load_Balancer %s ("UUID_FMT"): "
                              "affinity_timeout is not compiled on a "
                              "template load balancer", nb->name,
                              UUID_ARGS(&nb->header_.uuid));
        ls_model_report_bad_row(m, msg);
        free(msg);
        o->affinity_timeout = 0;
    }

    if (nb->n_selection_fields) {
        /* In the order of the column (sorted), tp_src and tp_dst named
         * after the protocol. */
        const char **fields = xmemdup(nb->selection_fields,
                                      nb->n_selection_fields
                                      * sizeof *fields);
        qsort(fields, nb->n_selection_fields, sizeof *fields,
              compare_strings);
        struct ds s = DS_EMPTY_INITIALIZER;
        for (size_t i = 0; i < nb->n_selection_fields; i++) {
            if (s.length) {
                ds_put_char(&s, ',');
            }
            if (!strncmp(fields[i], "tp_", 3)) {
                ds_put_format(&s, "%s_%s", proto, fields[i] + 3);
            } else {
                ds_put_cstr(&s, fields[i]);
            }
        }
        free(fields);
        o->hash_fields = ds_steal_cstr(&s);
    }
}

void
lb_opts_destroy(struct lb_opts *o)
{
    free(o->hash_fields);
}

bool
lb_opts_incremental(const struct nb_load_balancer *nb)
{
    return (!smap_get_bool(&nb->options, "template", false)
            && smap_get_int(&nb->options, "affinity_timeout", 0)
               <= UINT16_MAX);
}

/* Template VIPs. */

/* True if 's' is "^NAME", NAME of letters, digits and '_'.  Adds NAME to
 * 'names' (if nonnull) when it is. */
static bool
is_template_var(const char *s, struct sset *names)
{
    if (s[0] != '^' || !s[1]) {
        return false;
    }
    for (const char *p = s + 1; *p; p++) {
        if (!isalnum((unsigned char) *p) && *p != '_') {
            return false;
        }
    }
    if (names) {
        sset_add(names, s + 1);
    }
    return true;
}

/* Splits 'text' (modified) into an address and an optional port, as
 * "ADDR", "ADDR:PORT", "[ADDR]" or "[ADDR]:PORT" (an unbracketed address
 * with several colons has no port).  Returns false if it is malformed. */
static bool
split_addr_port(char *text, char **addr, char **port)
{
    *port = NULL;
    if (text[0] == '[') {
        char *end = strchr(text, ']');
        if (!end || (end[1] && end[1] != ':')) {
            return false;
        }
        *end = '\0';
        *addr = text + 1;
        if (end[1] == ':') {
            *port = end + 2;
        }
        return true;
    }
    *addr = text;
    char *colon = strchr(text, ':');
    if (colon && colon == strrchr(text, ':')) {
        *colon = '\0';
        *port = colon + 1;
    }
    return true;
}

/* Checks a template load balancer's address 'addr' (modified) and port
 * 'port' (may be NULL): each "^NAME" or a literal of 'ipv6''s family.
 * Stores the address text to use in '*ip' (caller frees).  Returns an
 * error (caller frees) or NULL. */
static char *
check_template_addr_port(const char *whole, const char *addr,
                         const char *port, bool ipv6, struct sset *names,
                         char **ip)
{
    if (is_template_var(addr, names)) {
        *ip = xstrdup(addr);
    } else {
        char buf[INET6_ADDRSTRLEN];
        struct in6_addr a6;
        if (inet_pton(ipv6 ? AF_INET6 : AF_INET, addr, &a6) != 1) {
            return xasprintf("\"%s\": \"%s\" is neither a template variable "
                             "nor an %s address", whole, addr,
                             ipv6 ? "IPv6" : "IPv4");
        }
        inet_ntop(ipv6 ? AF_INET6 : AF_INET, &a6, buf, sizeof buf);
        *ip = xstrdup(buf);
    }
    if (port && !is_template_var(port, names)) {
        char *end;
        long p = strtol(port, &end, 10);
        if (!port[0] || *end || p < 1 || p > 65535) {
            free(*ip);
            *ip = NULL;
            return xasprintf("\"%s\": bad port \"%s\"", whole, port);
        }
    }
    return NULL;
}

char *
lb_opts_parse_template_vip(const struct lb *lb, const char *key,
                           const char *value, const struct lb_opts_ctx *ctx,
                           struct ls_model *m, struct lb_vip *vip)
{
    bool ipv6 = lb->opts.template_ipv6;
    struct sset names = SSET_INITIALIZER(&names);
    char *error = NULL;

    memset(vip, 0, sizeof *vip);
    vip->ipv6 = ipv6;

    char *copy = xstrdup(key);
    char *addr, *port;
    if (!split_addr_port(copy, &addr, &port)) {
        error = xasprintf("\"%s\": malformed", key);
    } else {
        error = check_template_addr_port(key, addr, port, ipv6, &names,
                                         &vip->ip);
        if (!error && port) {
            vip->tmpl_port = xstrdup(port);
            if (!is_template_var(port, NULL)) {
                vip->port = atoi(port);
            }
        }
    }
    free(copy);

    /* Backends: "^VAR" (which may expand to a list), or ADDR[:PORT] with
     * each part a variable or a literal. */
    struct ds bs = DS_EMPTY_INITIALIZER;
    copy = xstrdup(value);
    char *save = NULL;
    for (char *tok = strtok_r(copy, ", ", &save); tok && !error;
         tok = strtok_r(NULL, ", ", &save)) {
        char *bcopy = xstrdup(tok);
        char *bip = NULL;
        if (!split_addr_port(bcopy, &addr, &port)) {
            error = xasprintf("backend \"%s\": malformed", tok);
        } else {
            error = check_template_addr_port(tok, addr, port, ipv6, &names,
                                             &bip);
            if (error) {
                char *inner = error;
                error = xasprintf("backend %s", inner);
                free(inner);
            }
        }
        free(bcopy);
        if (error) {
            break;
        }
        vip->backends = xrealloc(vip->backends,
                                 (vip->n_backends + 1)
                                 * sizeof *vip->backends);
        vip->backends[vip->n_backends].ip = bip;
        vip->backends[vip->n_backends].port = 0;
        vip->n_backends++;
        if (bs.length) {
            ds_put_char(&bs, ',');
        }
        ds_put_cstr(&bs, tok);
    }
    free(copy);
    vip->backends_str = ds_steal_cstr(&bs);

    if (!error) {
        const char *name;
        SSET_FOR_EACH (name, &names) {
            if (!sset_contains(&ctx->vars, name)) {
                COVERAGE_INC(lb_tmpl_unknown_var);
                char *msg = xasprintf("Load_Balancer %s ("UUID_FMT"): VIP "
                                      "\"%s\" names template variable "
                                      "\"%s\", which no Chassis_Template_Var "
                                      "defines", lb->nb->name,
                                      UUID_ARGS(&lb->nb->header_.uuid), key,
                                      name);
                ls_model_report_bad_row(m, msg);
                free(msg);
            }
        }
    }
    sset_destroy(&names);
    if (error) {
        lb_vip_destroy(vip);
        memset(vip, 0, sizeof *vip);
    }
    return error;
}

/* Flows. */

static const char *
ip_field(const struct lb_vip *vip)
{
    return vip->ipv6 ? "ip6" : "ip4";
}

/* Appends the VIP's port as text: the template's, or the number. */
static void
put_vip_port(struct ds *s, const struct lb_vip *vip)
{
    if (vip->tmpl_port) {
        ds_put_cstr(s, vip->tmpl_port);
    } else {
        ds_put_format(s, "%"PRIu16, vip->port);
    }
}

static bool
vip_has_port(const struct lb_vip *vip)
{
    return vip->port || vip->tmpl_port;
}

void
lb_opts_put_lb_action(struct ds *actions, const struct lb *lb,
                      const struct lb_vip *vip,
                      const struct ls_features *features)
{
    lb_opts_put_backends_action(actions, lb,
                                vip->n_backends ? vip->backends_str : NULL,
                                features);
}

void
lb_opts_put_backends_action(struct ds *actions, const struct lb *lb,
                            const char *backends,
                            const struct ls_features *features)
{
    if (!backends || !backends[0]) {
        if (lb->opts.reject) {
            /* The reply skips the ACLs of the egress pipeline. */
            ds_put_format(actions, "reg0 = 0; reject { outport <-> inport; "
                          "next(pipeline=egress,table=%d);};",
                          ls_stage_table(S_OUT_QOS_MARK));
        } else {
            ds_put_cstr(actions, "drop;");
        }
        return;
    }
    ds_put_format(actions, "%s(backends=%s", ls_features_ct_lb(features),
                  backends);
    if (lb->opts.hash_fields) {
        ds_put_format(actions, "; hash_fields=\"%s\"", lb->opts.hash_fields);
    }
    ds_put_cstr(actions, ");");
}

/* "VIP[:PORT]" with IPv6 addresses in brackets when there is a port. */
static void
put_addr_port(struct ds *s, bool ipv6, const char *ip, const char *port)
{
    if (port) {
        ds_put_format(s, ipv6 ? "[%s]:%s" : "%s:%s", ip, port);
    } else {
        ds_put_cstr(s, ip);
    }
}

/* A VIP without backends, with events on: the first packet of every
 * connection attempt asks ovn-controller to tell the CMS. */
static void
build_event_flow(struct lflow_table *t, const unsigned long *dps,
                 const struct lb *lb, const struct lb_vip *vip,
                 struct ds *match, struct ds *actions)
{
    ds_clear(match);
    ds_put_format(match, "%s.dst == %s && %s", ip_field(vip), vip->ip,
                  lb->proto);
    struct ds port = DS_EMPTY_INITIALIZER;
    if (vip_has_port(vip)) {
        put_vip_port(&port, vip);
        ds_put_format(match, " && %s.dst == %s", lb->proto, ds_cstr(&port));
    }
    ds_clear(actions);
    ds_put_cstr(actions, "trigger_event(event = \"empty_lb_backends\", "
                "vip = \"");
    put_addr_port(actions, vip->ipv6, vip->ip,
                  port.length ? ds_cstr(&port) : NULL);
    ds_put_format(actions, "\", protocol = \"%s\", load_balancer = \""
                  UUID_FMT"\");", lb->proto,
                  UUID_ARGS(&lb->nb->header_.uuid));
    ds_destroy(&port);
    lflow_add_dps_hint(t, dps, S_IN_PRE_LB, 130, ds_cstr(match),
                       ds_cstr(actions), &lb->nb->header_.uuid);
}

/* Session affinity, as stock 23.03 has it: a new connection to the VIP
 * asks chk_lb_aff() whether the client has a backend already; if so,
 * ls_in_lb sends it there, else ls_in_lb_aff_learn remembers the backend
 * ct_lb_mark chose (commit_lb_aff()).  Stock's learn flows end the
 * pipeline (the packet that teaches is dropped), and so do these. */
static void
build_affinity_flows(struct lflow_table *t, const unsigned long *dps,
                     const struct lb *lb, const struct lb_vip *vip,
                     const struct ls_features *features,
                     struct ds *match, struct ds *actions)
{
    const struct uuid *hint = &lb->nb->header_.uuid;
    const char *ipf = ip_field(vip);
    const char *vip_reg = vip->ipv6 ? REG_ORIG_DIP_IPV6 : REG_ORIG_DIP_IPV4;
    const char *be_reg = (vip->ipv6 ? REG_LB_AFF_BACKEND_IP6
                                    : REG_LB_AFF_BACKEND_IP4);
    char vport[8];
    snprintf(vport, sizeof vport, "%"PRIu16, vip->port);

    /* The VIP as pre_stateful left it in registers. */
    struct ds vip_match = DS_EMPTY_INITIALIZER;
    ds_put_format(&vip_match, "ct.new && %s && %s == %s", ipf, vip_reg,
                  vip->ip);
    if (vip->port) {
        ds_put_format(&vip_match, " && "REG_ORIG_TP_DPORT" == %s", vport);
    }
    lflow_add_dps_hint(t, dps, S_IN_LB_AFF_CHECK, 100, ds_cstr(&vip_match),
                       REGBIT_KNOWN_LB_SESSION" = chk_lb_aff(); next;",
                       hint);

    struct ds be = DS_EMPTY_INITIALIZER;
    for (size_t i = 0; i < vip->n_backends; i++) {
        const struct lb_backend *b = &vip->backends[i];
        char bport[8];
        snprintf(bport, sizeof bport, "%"PRIu16, b->port);
        ds_clear(&be);
        put_addr_port(&be, vip->ipv6, b->ip, b->port ? bport : NULL);

        /* A client with a backend already: that backend.  (The ACL commit
         * bit is left alone, as in lb.c's flows.) */
        ds_clear(match);
        ds_put_format(match, REGBIT_KNOWN_LB_SESSION" == 1 && ct.new && %s "
                      "&& %s == %s", ipf, be_reg, b->ip);
        if (b->port) {
            ds_put_format(match, " && "REG_LB_AFF_BACKEND_PORT" == %s",
                          bport);
        }
        ds_clear(actions);
        ds_put_format(actions, "%s = %s; ", vip_reg, vip->ip);
        if (vip->port) {
            ds_put_format(actions, REG_ORIG_TP_DPORT" = %s; ", vport);
        }
        ds_put_format(actions, "%s(backends=%s);",
                      ls_features_ct_lb(features), ds_cstr(&be));
        lflow_add_dps_hint(t, dps, S_IN_LB, 150, ds_cstr(match),
                           ds_cstr(actions), hint);

        /* A new one: remember the backend ct_lb_mark chose. */
        ds_clear(match);
        ds_put_format(match, REGBIT_KNOWN_LB_SESSION" == 0 && %s && "
                      "%s.dst == %s", ds_cstr(&vip_match), ipf, b->ip);
        if (b->port) {
            ds_put_format(match, " && %s.dst == %s", lb->proto, bport);
        }
        ds_clear(actions);
        ds_put_cstr(actions, "commit_lb_aff(vip = \"");
        put_addr_port(actions, vip->ipv6, vip->ip, vip->port ? vport : NULL);
        ds_put_format(actions, "\", backend = \"%s\", ", ds_cstr(&be));
        if (vip->port) {
            ds_put_format(actions, "proto = %s, ", lb->proto);
        }
        ds_put_format(actions, "timeout = %"PRIu16"); /* drop */",
                      lb->opts.affinity_timeout);
        lflow_add_dps_hint(t, dps, S_IN_LB_AFF_LEARN, 100, ds_cstr(match),
                           ds_cstr(actions), hint);
    }
    ds_destroy(&be);
    ds_destroy(&vip_match);
}

void
lb_opts_build_vip_flows(struct lflow_table *t, const unsigned long *dps,
                        const struct lb *lb, const struct lb_vip *vip,
                        const struct ls_features *features,
                        struct ds *match, struct ds *actions)
{
    if (!vip->n_backends) {
        /* A rejecting VIP answers instead. */
        if (lb->opts.event && !lb->opts.reject) {
            build_event_flow(t, dps, lb, vip, match, actions);
        }
    } else if (lb->opts.affinity_timeout && !lb->opts.is_template) {
        build_affinity_flows(t, dps, lb, vip, features, match, actions);
    }
}

void
lb_opts_build_template_lb(struct lflow_table *t, const unsigned long *dps)
{
    /* The backends are known only once a chassis expands them: all IP
     * traffic of the switch goes to conntrack, as in stock. */
    lflow_add_dps_hint(t, dps, S_IN_PRE_LB, 100, "ip",
                       REGBIT_CONNTRACK_NAT" = 1; next;", NULL);
    lflow_add_dps_hint(t, dps, S_OUT_PRE_LB, 100, "ip",
                       REGBIT_CONNTRACK_NAT" = 1; next;", NULL);
}

void
lb_opts_build_template_vip(struct lflow_table *t, const unsigned long *dps,
                           const struct lb *lb, const struct lb_vip *vip,
                           const struct ls_features *features,
                           struct ds *match, struct ds *actions)
{
    const struct uuid *hint = &lb->nb->header_.uuid;
    const char *ipf = ip_field(vip);

    ds_clear(match);
    ds_put_format(match, REGBIT_CONNTRACK_NAT" == 1 && %s.dst == %s",
                  ipf, vip->ip);
    ds_clear(actions);
    ds_put_format(actions, "%s = %s; ",
                  vip->ipv6 ? REG_ORIG_DIP_IPV6 : REG_ORIG_DIP_IPV4, vip->ip);
    if (vip_has_port(vip)) {
        ds_put_format(match, " && %s.dst == ", lb->proto);
        put_vip_port(match, vip);
        ds_put_cstr(actions, REG_ORIG_TP_DPORT" = ");
        put_vip_port(actions, vip);
        ds_put_cstr(actions, "; ");
    }
    ds_put_format(actions, "%s;", ls_features_ct_lb(features));
    lflow_add_dps_hint(t, dps, S_IN_PRE_STATEFUL, 120, ds_cstr(match),
                       ds_cstr(actions), hint);

    ds_clear(match);
    ds_put_format(match, "ct.new && %s.dst == %s", ipf, vip->ip);
    if (vip_has_port(vip)) {
        ds_put_format(match, " && %s.dst == ", lb->proto);
        put_vip_port(match, vip);
    }
    ds_clear(actions);
    lb_opts_put_lb_action(actions, lb, vip, features);
    lflow_add_dps_hint(t, dps, S_IN_LB, vip_has_port(vip) ? 120 : 110,
                       ds_cstr(match), ds_cstr(actions), hint);

    lb_opts_build_vip_flows(t, dps, lb, vip, features, match, actions);
}

const struct smap *
lb_opts_sb_vips(const struct lb *lb, struct smap *tmp)
{
    smap_init(tmp);
    if (!lb->opts.is_template || !lb->opts.template_ipv6) {
        return &lb->nb->vips;
    }
    const struct smap_node *node;
    SMAP_FOR_EACH (node, &lb->nb->vips) {
        char *copy = xstrdup(node->key);
        char *addr, *port;
        struct in6_addr a6;
        if (split_addr_port(copy, &addr, &port)
            && (addr[0] == '^' || inet_pton(AF_INET6, addr, &a6) == 1)) {
            smap_add_nocopy(tmp, port ? xasprintf("[%s]:%s", addr, port)
                                      : xasprintf("[%s]", addr),
                            xstrdup(node->value));
        } else {
            smap_add(tmp, node->key, node->value);
        }
        free(copy);
    }
    return tmp;
}

/* SB Chassis_Template_Var. */

void
lb_opts_sync_template_vars(struct rdb *nb_db, struct rdb *sb_db,
                           struct rdb_txn *txn)
{
    struct shash sb_rows = SHASH_INITIALIZER(&sb_rows);
    const struct sb_chassis_template_var *sb;
    SB_CHASSIS_TEMPLATE_VAR_FOR_EACH (sb, sb_db) {
        if (!shash_add_once(&sb_rows, sb->chassis, sb)) {
            /* The schema's index makes this impossible; be safe. */
            rdb_txn_delete(txn, &sb_table_chassis_template_var,
                           &sb->header_.uuid);
        }
    }

    const struct nb_chassis_template_var *nb;
    NB_CHASSIS_TEMPLATE_VAR_FOR_EACH (nb, nb_db) {
        sb = shash_find_and_delete(&sb_rows, nb->chassis);
        if (!sb) {
            struct uuid uuid;
            rdb_uuid_generate(&uuid);
            rdb_txn_insert(txn, &sb_table_chassis_template_var, &uuid);
            rdb_txn_set_string(txn, SB_CHASSIS_TEMPLATE_VAR_COL_CHASSIS,
                               nb->chassis);
            rdb_txn_set_smap(txn, SB_CHASSIS_TEMPLATE_VAR_COL_VARIABLES,
                             &nb->variables);
            COVERAGE_INC(lb_tmpl_var_synced);
        } else if (!smap_equal(&sb->variables, &nb->variables)) {
            rdb_txn_update(txn, &sb_table_chassis_template_var,
                           &sb->header_.uuid);
            rdb_txn_set_smap(txn, SB_CHASSIS_TEMPLATE_VAR_COL_VARIABLES,
                             &nb->variables);
            COVERAGE_INC(lb_tmpl_var_synced);
        }
    }

    struct shash_node *node;
    SHASH_FOR_EACH (node, &sb_rows) {
        const struct sb_chassis_template_var *dead = node->data;
        rdb_txn_delete(txn, &sb_table_chassis_template_var,
                       &dead->header_.uuid);
    }
    shash_destroy(&sb_rows);
}
