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

#define LS_STAGE_ID(PIPE, TABLE) (((PIPE) << 8) | (TABLE))

enum ls_stage {
#define LS_STAGE(PIPE, NAME, TABLE, SNAME) \
    S_##PIPE##_##NAME = LS_STAGE_ID(P_##PIPE, TABLE),
    LS_STAGES
#undef LS_STAGE
};

static inline enum lflow_pipeline
ls_stage_pipeline(enum ls_stage s)
{
    return (enum lflow_pipeline) (s >> 8);
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
