/* Lexer for the OVN logical-flow language.
 *
 * Match expressions and actions share one token syntax: identifiers with
 * dots ("ip4.src"), integers in decimal or hex, IPv4/IPv6/Ethernet
 * addresses optionally followed by "/mask" or "/prefix", quoted strings,
 * "$address_set" and "@port_group" references, and punctuation.  Comments
 * ("/ * ... * /" and "//" to end of line) are skipped.
 *
 * A token's position is its byte offset into the input, so that parsers
 * can say where a problem is.  Constants carry up to 128 bits, plus a hint
 * of how they were written so that they can be formatted back the same
 * way. */
#ifndef LEX_H
#define LEX_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "openvswitch/compiler.h"
#include "openvswitch/types.h"

struct ds;

enum lex_type {
    LEX_T_END,                  /* End of input. */
    LEX_T_ERROR,                /* Lexical error; 's' says what. */

    LEX_T_ID,                   /* Identifier, e.g. "ip4.src"; in 's'. */
    LEX_T_STRING,               /* Quoted string, unescaped, in 's'. */
    LEX_T_INTEGER,              /* Constant in 'value'. */
    LEX_T_MASKED_INTEGER,       /* Constant in 'value' / 'mask'. */
    LEX_T_ADDRSET,              /* "$name"; name in 's'. */
    LEX_T_PORTGROUP,            /* "@name"; name in 's'. */

    LEX_T_LPAREN,               /* ( */
    LEX_T_RPAREN,               /* ) */
    LEX_T_LCURLY,               /* { */
    LEX_T_RCURLY,               /* } */
    LEX_T_LSQUARE,              /* [ */
    LEX_T_RSQUARE,              /* ] */
    LEX_T_EQ,                   /* == */
    LEX_T_NE,                   /* != */
    LEX_T_LT,                   /* < */
    LEX_T_LE,                   /* <= */
    LEX_T_GT,                   /* > */
    LEX_T_GE,                   /* >= */
    LEX_T_NOT,                  /* ! */
    LEX_T_AND,                  /* && */
    LEX_T_OR,                   /* || */
    LEX_T_ELLIPSIS,             /* .. */
    LEX_T_COMMA,                /* , */
    LEX_T_SEMICOLON,            /* ; */
    LEX_T_ASSIGN,               /* = */
    LEX_T_EXCHANGE,             /* <-> */
    LEX_T_COLON,                /* : */
    LEX_T_DECREMENT,            /* -- */
};

/* How a constant was written, so it can be printed back that way. */
enum lex_format {
    LEX_F_DECIMAL,
    LEX_F_HEX,
    LEX_F_IPV4,
    LEX_F_IPV6,
    LEX_F_ETHERNET,
};

struct lex_token {
    enum lex_type type;
    char *s;                    /* Owned.  ID, STRING, ADDRSET, PORTGROUP,
                                 * ERROR; NULL otherwise. */
    enum lex_format format;     /* INTEGER and MASKED_INTEGER. */
    ovs_u128 value;             /* INTEGER, MASKED_INTEGER: host order. */
    ovs_u128 mask;              /* MASKED_INTEGER only (all-ones else).
                                 * 'value' has no bits outside 'mask'. */
    size_t ofs;                 /* Byte offset of the token in the input. */
    size_t len;                 /* Length in bytes. */
};

void lex_token_init(struct lex_token *);
void lex_token_destroy(struct lex_token *);
void lex_token_format(const struct lex_token *, struct ds *);

/* Appends 's' as a quoted string constant that reads back as 's', escaped
 * as JSON escapes it, which is how stock ovn-northd writes port names in
 * matches and actions (inport == "a\"b"). */
void lex_put_string(struct ds *, const char *s);
void lex_token_format_value(enum lex_format, ovs_u128 value, struct ds *);
const char *lex_type_to_string(enum lex_type);

/* A lexer over a NUL-terminated string that the caller keeps alive. */
struct lexer {
    const char *input;          /* Borrowed from the caller. */
    const char *next;           /* Where the token after 'token' starts. */
    struct lex_token token;     /* The current token. */
};

void lex_init(struct lexer *, const char *input);
void lex_destroy(struct lexer *);
enum lex_type lex_next(struct lexer *);
enum lex_type lex_peek(const struct lexer *);
bool lex_accept(struct lexer *, enum lex_type);
bool lex_accept_id(struct lexer *, const char *id);
bool lex_is_id(const struct lexer *, const char *id);
bool lex_token_is_small_int(const struct lex_token *);
char *lex_error(const struct lexer *, const char *format, ...)
    OVS_PRINTF_FORMAT(2, 3) OVS_WARN_UNUSED_RESULT;
char *lex_error_at(const struct lexer *, size_t ofs, const char *format, ...)
    OVS_PRINTF_FORMAT(3, 4) OVS_WARN_UNUSED_RESULT;
char *lex_syntax_error(const struct lexer *, const char *expecting)
    OVS_WARN_UNUSED_RESULT;
void lex_format_where(const struct lexer *, struct ds *);

/* Adds to 'addr_sets' the names 'match' refers to as "$name" (address
 * sets) and to 'pgs' those it refers to as "@name" (port groups), up to
 * its first lexical error (whoever parses it reports that). */
struct sset;
void lex_match_refs(const char *match, struct sset *addr_sets,
                    struct sset *pgs);

/* The "$name" and "@name" references of a match, found as the lexer would
 * read them but without lexing: for callers that index matches by their
 * references.  lex_find_ref() looks from 'p' on, outside quoted strings.
 * It returns LEX_REF_FOUND with 'ref' set, LEX_REF_NONE if there is no
 * other reference, or LEX_REF_UNSURE where reading it takes the lexer: a
 * comment, a '$' or '@' with no name, or a string that does not end. */
struct lex_ref {
    const char *sigil;          /* The '$' or '@'; the name follows it. */
    size_t len;                 /* Length of the name. */
};
enum lex_ref_scan {
    LEX_REF_FOUND,
    LEX_REF_NONE,
    LEX_REF_UNSURE,
};
enum lex_ref_scan lex_find_ref(const char *p, struct lex_ref *ref);

/* 128-bit helpers on host-order ovs_u128. */
ovs_u128 lex_u128_from_u64(uint64_t);
ovs_u128 lex_u128_and(ovs_u128, ovs_u128);
ovs_u128 lex_u128_or(ovs_u128, ovs_u128);
ovs_u128 lex_u128_not(ovs_u128);
ovs_u128 lex_u128_shl(ovs_u128, int n);
ovs_u128 lex_u128_shr(ovs_u128, int n);
ovs_u128 lex_u128_ones(int n_bits);      /* Low 'n_bits' set. */
bool lex_u128_eq(ovs_u128, ovs_u128);
bool lex_u128_is_zero(ovs_u128);
int lex_u128_cmp(ovs_u128, ovs_u128);    /* <0, 0, >0 like memcmp. */
int lex_u128_n_bits(ovs_u128);           /* Index of top set bit + 1. */
bool lex_u128_bit(ovs_u128, int idx);

#endif /* lib/lex.h */
