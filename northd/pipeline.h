/* The logical switch pipeline: stages, register bits and priorities.
 *
 * This is the single source of these numbers.  They are an interface:
 * stock ovn-controller and ovn-trace 23.03 give stage names, table numbers
 * and register bits the meanings listed here (table numbers match OVN
 * 23.03's switch pipeline, which those tools expect). */
#ifndef NORTHD_PIPELINE_H
#define NORTHD_PIPELINE_H 1

#include <stdint.h>

enum lflow_pipeline {
    P_IN,
    P_OUT,
};

/* Every stage, as (pipeline, table, name).  The enum value encodes both
 * pipeline and table so a stage alone identifies where a flow goes. */
#define LS_STAGES                                                   \
    LS_STAGE(IN,  CHECK_PORT_SEC,   0, "ls_in_check_port_sec")      \
    LS_STAGE(IN,  APPLY_PORT_SEC,   1, "ls_in_apply_port_sec")      \
    LS_STAGE(IN,  LOOKUP_FDB,       2, "ls_in_lookup_fdb")          \
    LS_STAGE(IN,  PUT_FDB,          3, "ls_in_put_fdb")             \
    LS_STAGE(IN,  PRE_ACL,          4, "ls_in_pre_acl")             \
    LS_STAGE(IN,  PRE_LB,           5, "ls_in_pre_lb")              \
    LS_STAGE(IN,  PRE_STATEFUL,     6, "ls_in_pre_stateful")        \
    LS_STAGE(IN,  ACL_HINT,         7, "ls_in_acl_hint")            \
    LS_STAGE(IN,  ACL,              8, "ls_in_acl")                 \
    LS_STAGE(IN,  QOS_MARK,         9, "ls_in_qos_mark")            \
    LS_STAGE(IN,  QOS_METER,       10, "ls_in_qos_meter")           \
    LS_STAGE(IN,  LB_AFF_CHECK,    11, "ls_in_lb_aff_check")        \
    LS_STAGE(IN,  LB,              12, "ls_in_lb")                  \
    LS_STAGE(IN,  LB_AFF_LEARN,    13, "ls_in_lb_aff_learn")        \
    LS_STAGE(IN,  PRE_HAIRPIN,     14, "ls_in_pre_hairpin")         \
    LS_STAGE(IN,  NAT_HAIRPIN,     15, "ls_in_nat_hairpin")         \
    LS_STAGE(IN,  HAIRPIN,         16, "ls_in_hairpin")             \
    LS_STAGE(IN,  ACL_AFTER_LB,    17, "ls_in_acl_after_lb")        \
    LS_STAGE(IN,  STATEFUL,        18, "ls_in_stateful")            \
    LS_STAGE(IN,  ARP_ND_RSP,      19, "ls_in_arp_rsp")             \
    LS_STAGE(IN,  DHCP_OPTIONS,    20, "ls_in_dhcp_options")        \
    LS_STAGE(IN,  DHCP_RESPONSE,   21, "ls_in_dhcp_response")       \
    LS_STAGE(IN,  DNS_LOOKUP,      22, "ls_in_dns_lookup")          \
    LS_STAGE(IN,  DNS_RESPONSE,    23, "ls_in_dns_response")        \
    LS_STAGE(IN,  EXTERNAL_PORT,   24, "ls_in_external_port")       \
    LS_STAGE(IN,  L2_LKUP,         25, "ls_in_l2_lkup")             \
    LS_STAGE(IN,  L2_UNKNOWN,      26, "ls_in_l2_unknown")          \
    LS_STAGE(OUT, PRE_ACL,          0, "ls_out_pre_acl")            \
    LS_STAGE(OUT, PRE_LB,           1, "ls_out_pre_lb")             \
    LS_STAGE(OUT, PRE_STATEFUL,     2, "ls_out_pre_stateful")       \
    LS_STAGE(OUT, ACL_HINT,         3, "ls_out_acl_hint")           \
    LS_STAGE(OUT, ACL,              4, "ls_out_acl")                \
    LS_STAGE(OUT, QOS_MARK,         5, "ls_out_qos_mark")           \
    LS_STAGE(OUT, QOS_METER,        6, "ls_out_qos_meter")          \
    LS_STAGE(OUT, STATEFUL,         7, "ls_out_stateful")           \
    LS_STAGE(OUT, CHECK_PORT_SEC,   8, "ls_out_check_port_sec")     \
    LS_STAGE(OUT, APPLY_PORT_SEC,   9, "ls_out_apply_port_sec")

/* The logical router pipeline of OVN 23.03 (northd/router.c,
 * docs/routers.md).  Its stages have table numbers of their own: bit 9 of
 * the enum value tells them from the switch's. */
#define LR_STAGES                                                   \
    LR_STAGE(IN,  ADMISSION,        0, "lr_in_admission")           \
    LR_STAGE(IN,  LOOKUP_NEIGHBOR,  1, "lr_in_lookup_neighbor")     \
    LR_STAGE(IN,  LEARN_NEIGHBOR,   2, "lr_in_learn_neighbor")      \
    LR_STAGE(IN,  IP_INPUT,         3, "lr_in_ip_input")            \
    LR_STAGE(IN,  UNSNAT,           4, "lr_in_unsnat")              \
    LR_STAGE(IN,  DEFRAG,           5, "lr_in_defrag")              \
    LR_STAGE(IN,  LB_AFF_CHECK,     6, "lr_in_lb_aff_check")        \
    LR_STAGE(IN,  DNAT,             7, "lr_in_dnat")                \
    LR_STAGE(IN,  LB_AFF_LEARN,     8, "lr_in_lb_aff_learn")        \
    LR_STAGE(IN,  ECMP_STATEFUL,    9, "lr_in_ecmp_stateful")       \
    LR_STAGE(IN,  ND_RA_OPTIONS,   10, "lr_in_nd_ra_options")       \
    LR_STAGE(IN,  ND_RA_RESPONSE,  11, "lr_in_nd_ra_response")      \
    LR_STAGE(IN,  IP_ROUTING_PRE,  12, "lr_in_ip_routing_pre")      \
    LR_STAGE(IN,  IP_ROUTING,      13, "lr_in_ip_routing")          \
    LR_STAGE(IN,  IP_ROUTING_ECMP, 14, "lr_in_ip_routing_ecmp")     \
    LR_STAGE(IN,  POLICY,          15, "lr_in_policy")              \
    LR_STAGE(IN,  POLICY_ECMP,     16, "lr_in_policy_ecmp")         \
    LR_STAGE(IN,  ARP_RESOLVE,     17, "lr_in_arp_resolve")         \
    LR_STAGE(IN,  CHK_PKT_LEN,     18, "lr_in_chk_pkt_len")         \
    LR_STAGE(IN,  LARGER_PKTS,     19, "lr_in_larger_pkts")         \
    LR_STAGE(IN,  GW_REDIRECT,     20, "lr_in_gw_redirect")         \
    LR_STAGE(IN,  ARP_REQUEST,     21, "lr_in_arp_request")         \
    LR_STAGE(OUT, CHK_DNAT_LOCAL,   0, "lr_out_chk_dnat_local")     \
    LR_STAGE(OUT, UNDNAT,           1, "lr_out_undnat")             \
    LR_STAGE(OUT, POST_UNDNAT,      2, "lr_out_post_undnat")        \
    LR_STAGE(OUT, SNAT,             3, "lr_out_snat")               \
    LR_STAGE(OUT, POST_SNAT,        4, "lr_out_post_snat")          \
    LR_STAGE(OUT, EGR_LOOP,         5, "lr_out_egr_loop")           \
    LR_STAGE(OUT, DELIVERY,         6, "lr_out_delivery")

#define LS_STAGE_ID(PIPE, TABLE) (((PIPE) << 8) | (TABLE))
#define LR_STAGE_BIT 0x200
#define LS_N_STAGE_IDS 0x400        /* Every stage's value is below. */

enum ls_stage {
#define LS_STAGE(PIPE, NAME, TABLE, SNAME) \
    S_##PIPE##_##NAME = LS_STAGE_ID(P_##PIPE, TABLE),
    LS_STAGES
#undef LS_STAGE
#define LR_STAGE(PIPE, NAME, TABLE, SNAME) \
    S_LR_##PIPE##_##NAME = LR_STAGE_BIT | LS_STAGE_ID(P_##PIPE, TABLE),
    LR_STAGES
#undef LR_STAGE
};

static inline enum lflow_pipeline
ls_stage_pipeline(enum ls_stage s)
{
    return (enum lflow_pipeline) ((s >> 8) & 1);
}

static inline uint8_t
ls_stage_table(enum ls_stage s)
{
    return s & 0xff;
}

const char *ls_stage_name(enum ls_stage);
const char *lflow_pipeline_name(enum lflow_pipeline);

/* reg0 bits. */
#define REGBIT_CONNTRACK_DEFRAG   "reg0[0]"   /* pre_stateful: ct_next. */
#define REGBIT_CONNTRACK_COMMIT   "reg0[1]"   /* stateful: ct_commit. */
#define REGBIT_CONNTRACK_NAT      "reg0[2]"   /* pre_stateful: ct_lb_mark. */
#define REGBIT_DNS_LOOKUP_RESULT  "reg0[4]"   /* dns_lookup() answered. */
#define REGBIT_LKUP_FDB           "reg0[11]"  /* FDB already has eth.src. */
#define REGBIT_DHCP_OPTS_RESULT   "reg0[3]"   /* put_dhcp(v6)_opts succeeded. */
#define REGBIT_HAIRPIN            "reg0[6]"
#define REGBIT_HAIRPIN_REPLY      "reg0[12]"
#define REGBIT_ACL_HINT_ALLOW_NEW "reg0[7]"
#define REGBIT_ACL_HINT_ALLOW     "reg0[8]"
#define REGBIT_ACL_HINT_DROP      "reg0[9]"
#define REGBIT_ACL_HINT_BLOCK     "reg0[10]"
#define REGBIT_ACL_LABEL          "reg0[13]"
#define REGBIT_FROM_RAMP          "reg0[14]"  /* From a vtep port. */
#define REGBIT_PORT_SEC_DROP      "reg0[15]"
#define REGBIT_ACL_STATELESS      "reg0[16]"
#define REGBIT_ACL_HINT_ALLOW_REL "reg0[17]"

#define REG_LABEL                 "reg3"      /* ACL label to commit. */
#define REG_ORIG_DIP_IPV4         "reg1"      /* VIP before DNAT. */
#define REG_ORIG_DIP_IPV6         "xxreg1"
#define REG_ORIG_TP_DPORT         "reg2[0..15]"

/* ACL tiers.  23.03's pipeline has one ACL stage per direction, so a tier
 * is a register the stage loops on: ACL flows of tier T match "== T", and
 * "pass" (or no match in tier T) moves to T + 1 and re-enters the stage.
 * The value one past the highest tier means "tiers exhausted": only the
 * stage's default flows match it.  The after-LB stage has its own field
 * because it runs after the ingress ACL stage in the same pipeline. */
#define REG_ACL_TIER              "reg8[29..31]"
#define REG_ACL_AFTER_LB_TIER     "reg8[26..28]"
#define ACL_MAX_TIER 3

/* Priorities. */
#define ACL_PRI_OFFSET        1000    /* lflow priority = ACL priority + this. */
#define PRI_ACL_FIXED        65532    /* ct.inv, replies, related, ND/MLD. */
#define PRI_ACL_LOG_RELATED  65533
#define PRI_ACL_NO_ACLS      65535
#define PRI_ACL_INFRA        34000
#define PRI_ACL_TIER_NEXT      500    /* Below every ACL, above defaults. */

#endif /* northd/pipeline.h */
