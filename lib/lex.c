/* Lexer for the OVN logical-flow language: see lex.h. */
#include <config.h>

#include "lib/lex.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdarg.h>
#include <string.h>

#include "openvswitch/dynamic-string.h"
#include "openvswitch/json.h"
#include "openvswitch/util.h"
#include "sset.h"
#include "util.h"

/* 128-bit helpers. */

ovs_u128
lex_u128_from_u64(uint64_t x)
{
    ovs_u128 r;
    r.u64.hi = 0;
    r.u64.lo = x;
    return r;
}

ovs_u128
lex_u128_and(ovs_u128 a, ovs_u128 b)
{
    a.u64.hi &= b.u64.hi;
    a.u64.lo &= b.u64.lo;
    return a;
}

ovs_u128
lex_u128_or(ovs_u128 a, ovs_u128 b)
{
    a.u64.hi |= b.u64.hi;
    a.u64.lo |= b.u64.lo;
    return a;
}

ovs_u128
lex_u128_not(ovs_u128 a)
{
    a.u64.hi = ~a.u64.hi;
    a.u64.lo = ~a.u64.lo;
    return a;
}

ovs_u128
lex_u128_shl(ovs_u128 a, int n)
{
    ovs_u128 r;
    if (n <= 0) {
        return a;
    } else if (n >= 128) {
        return lex_u128_from_u64(0);
    } else if (n >= 64) {
        r.u64.hi = a.u64.lo << (n - 64);
        r.u64.lo = 0;
    } else {
        r.u64.hi = (a.u64.hi << n) | (a.u64.lo >> (64 - n));
        r.u64.lo = a.u64.lo << n;
    }
    return r;
}

ovs_u128
lex_u128_shr(ovs_u128 a, int n)
{
    ovs_u128 r;
    if (n <= 0) {
        return a;
    } else if (n >= 128) {
        return lex_u128_from_u64(0);
    } else if (n >= 64) {
        r.u64.lo = a.u64.hi >> (n - 64);
        r.u64.hi = 0;
    } else {
        r.u64.lo = (a.u64.lo >> n) | (a.u64.hi << (64 - n));
        r.u64.hi = a.u64.hi >> n;
    }
    return r;
}

ovs_u128
lex_u128_ones(int n_bits)
{
    ovs_u128 r;
    if (n_bits <= 0) {
        return lex_u128_from_u64(0);
    } else if (n_bits >= 128) {
        r.u64.hi = r.u64.lo = UINT64_MAX;
    } else if (n_bits >= 64) {
        r.u64.lo = UINT64_MAX;
        r.u64.hi = n_bits == 64 ? 0 : UINT64_MAX >> (128 - n_bits);
    } else {
        r.u64.hi = 0;
        r.u64.lo = UINT64_MAX >> (64 - n_bits);
    }
    return r;
}

bool
lex_u128_eq(ovs_u128 a, ovs_u128 b)
{
    return a.u64.hi == b.u64.hi && a.u64.lo == b.u64.lo;
}

bool
lex_u128_is_zero(ovs_u128 a)
{
    return !a.u64.hi && !a.u64.lo;
}

int
lex_u128_cmp(ovs_u128 a, ovs_u128 b)
{
    if (a.u64.hi != b.u64.hi) {
        return a.u64.hi < b.u64.hi ? -1 : 1;
    } else if (a.u64.lo != b.u64.lo) {
        return a.u64.lo < b.u64.lo ? -1 : 1;
    }
    return 0;
}

int
lex_u128_n_bits(ovs_u128 a)
{
    if (a.u64.hi) {
        return 128 - __builtin_clzll(a.u64.hi);
    } else if (a.u64.lo) {
        return 64 - __builtin_clzll(a.u64.lo);
    }
    return 0;
}

bool
lex_u128_bit(ovs_u128 a, int idx)
{
    return (idx >= 64
            ? a.u64.hi >> (idx - 64)
            : a.u64.lo >> idx) & 1;
}

/* Tokens. */

void
lex_token_init(struct lex_token *t)
{
    memset(t, 0, sizeof *t);
    t->type = LEX_T_END;
    t->mask = lex_u128_ones(128);
}

void
lex_token_destroy(struct lex_token *t)
{
    free(t->s);
    t->s = NULL;
}

const char *
lex_type_to_string(enum lex_type type)
{
    switch (type) {
    case LEX_T_END: return "end of input";
    case LEX_T_ERROR: return "error";
    case LEX_T_ID: return "identifier";
    case LEX_T_STRING: return "string";
    case LEX_T_INTEGER: return "integer";
    case LEX_T_MASKED_INTEGER: return "masked integer";
    case LEX_T_ADDRSET: return "address set";
    case LEX_T_PORTGROUP: return "port group";
    case LEX_T_LPAREN: return "(";
    case LEX_T_RPAREN: return ")";
    case LEX_T_LCURLY: return "{";
    case LEX_T_RCURLY: return "}";
    case LEX_T_LSQUARE: return "[";
    case LEX_T_RSQUARE: return "]";
    case LEX_T_EQ: return "==";
    case LEX_T_NE: return "!=";
    case LEX_T_LT: return "<";
    case LEX_T_LE: return "<=";
    case LEX_T_GT: return ">";
    case LEX_T_GE: return ">=";
    case LEX_T_NOT: return "!";
    case LEX_T_AND: return "&&";
    case LEX_T_OR: return "||";
    case LEX_T_ELLIPSIS: return "..";
    case LEX_T_COMMA: return ",";
    case LEX_T_SEMICOLON: return ";";
    case LEX_T_ASSIGN: return "=";
    case LEX_T_EXCHANGE: return "<->";
    case LEX_T_COLON: return ":";
    case LEX_T_DECREMENT: return "--";
    }
    return "<unknown>";
}

void
lex_token_format_value(enum lex_format format, ovs_u128 v, struct ds *s)
{
    switch (format) {
    case LEX_F_DECIMAL:
        if (!v.u64.hi) {
            ds_put_format(s, "%"PRIu64, v.u64.lo);
            break;
        }
        /* Decimal input is at most 64 bits, but a caller may build a wider
         * value: print it in hex, which reads back as the same value. */
        /* fall through */
    case LEX_F_HEX:
        if (v.u64.hi) {
            ds_put_format(s, "0x%"PRIx64"%016"PRIx64, v.u64.hi, v.u64.lo);
        } else {
            ds_put_format(s, "0x%"PRIx64, v.u64.lo);
        }
        break;
    case LEX_F_IPV4: {
        uint32_t ip = v.u64.lo;
        ds_put_format(s, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xff,
                      (ip >> 8) & 0xff, ip & 0xff);
        break;
    }
    case LEX_F_IPV6: {
        struct in6_addr a;
        char buf[INET6_ADDRSTRLEN];
        for (int i = 0; i < 8; i++) {
            a.s6_addr[i] = v.u64.hi >> (56 - 8 * i);
            a.s6_addr[8 + i] = v.u64.lo >> (56 - 8 * i);
        }
        inet_ntop(AF_INET6, &a, buf, sizeof buf);
        ds_put_cstr(s, buf);
        break;
    }
    case LEX_F_ETHERNET:
        for (int i = 5; i >= 0; i--) {
            ds_put_format(s, "%02"PRIx64"%s", (v.u64.lo >> (8 * i)) & 0xff,
                          i ? ":" : "");
        }
        break;
    }
}

/* If 'mask' is a CIDR-style mask for a 'width'-bit value, returns its
 * prefix length, otherwise -1. */
static int
prefix_len(ovs_u128 mask, int width)
{
    ovs_u128 full = lex_u128_ones(width);
    for (int plen = 0; plen <= width; plen++) {
        ovs_u128 m = lex_u128_and(lex_u128_shl(full, width - plen), full);
        if (lex_u128_eq(m, mask)) {
            return plen;
        }
    }
    return -1;
}

static void
format_string(const char *p, struct ds *s)
{
    ds_put_char(s, '"');
    for (; *p; p++) {
        switch (*p) {
        case '"': ds_put_cstr(s, "\\\""); break;
        case '\\': ds_put_cstr(s, "\\\\"); break;
        case '\n': ds_put_cstr(s, "\\n"); break;
        case '\t': ds_put_cstr(s, "\\t"); break;
        case '\r': ds_put_cstr(s, "\\r"); break;
        default:
            if ((unsigned char) *p < 0x20) {
                ds_put_format(s, "\\u%04x", (unsigned char) *p);
            } else {
                ds_put_char(s, *p);
            }
            break;
        }
    }
    ds_put_char(s, '"');
}

void
lex_put_string(struct ds *ds, const char *s)
{
    json_string_escape(s, ds);
}

/* Appends 't' to 's' in a form that reads back as the same token. */
void
lex_token_format(const struct lex_token *t, struct ds *s)
{
    switch (t->type) {
    case LEX_T_ID:
        ds_put_cstr(s, t->s);
        break;
    case LEX_T_ERROR:
        ds_put_format(s, "error(\"%s\")", t->s);
        break;
    case LEX_T_STRING:
        format_string(t->s, s);
        break;
    case LEX_T_ADDRSET:
        ds_put_format(s, "$%s", t->s);
        break;
    case LEX_T_PORTGROUP:
        ds_put_format(s, "@%s", t->s);
        break;
    case LEX_T_INTEGER:
        lex_token_format_value(t->format, t->value, s);
        break;
    case LEX_T_MASKED_INTEGER: {
        lex_token_format_value(t->format, t->value, s);
        ds_put_char(s, '/');
        int width = (t->format == LEX_F_IPV4 ? 32
                     : t->format == LEX_F_IPV6 ? 128 : 0);
        int plen = width ? prefix_len(t->mask, width) : -1;
        if (plen >= 0) {
            ds_put_format(s, "%d", plen);
        } else {
            lex_token_format_value(t->format, t->mask, s);
        }
        break;
    }
    default:
        ds_put_cstr(s, lex_type_to_string(t->type));
        break;
    }
}

/* The lexer proper. */

void
lex_init(struct lexer *lexer, const char *input)
{
    lexer->input = input;
    lexer->next = input;
    lex_token_init(&lexer->token);
}

void
lex_destroy(struct lexer *lexer)
{
    if (lexer) {
        lex_token_destroy(&lexer->token);
    }
}

static void
set_error(struct lex_token *t, const char *format, ...)
    OVS_PRINTF_FORMAT(2, 3);

static void
set_error(struct lex_token *t, const char *format, ...)
{
    va_list args;

    free(t->s);
    t->type = LEX_T_ERROR;
    va_start(args, format);
    t->s = xvasprintf(format, args);
    va_end(args);
}

/* Character classes, in the C locale whatever the process's locale is, and
 * cheap: the lexer asks several per character of every ACL match. */
static inline bool
is_ascii_alpha(unsigned char c)
{
    return (unsigned char) ((c | 0x20) - 'a') < 26;
}

static inline bool
is_ascii_digit(unsigned char c)
{
    return (unsigned char) (c - '0') < 10;
}

static inline bool
is_id_start(unsigned char c)
{
    return is_ascii_alpha(c) || c == '_';
}

static inline bool
is_id_char(unsigned char c)
{
    return is_id_start(c) || is_ascii_digit(c) || c == '.';
}

/* Characters that may appear in a numeric constant's "word". */
static inline bool
is_number_char(unsigned char c)
{
    return is_ascii_alpha(c) || is_ascii_digit(c) || c == '.' || c == ':';
}

/* Returns the length of the word starting at 'p' made of number
 * characters, stopping before any "..". */
static size_t
number_word_len(const char *p)
{
    size_t n = 0;
    while (is_number_char(p[n])) {
        if (p[n] == '.' && p[n + 1] == '.') {
            break;
        }
        n++;
    }
    return n;
}

static bool
parse_ipv4(const char *s, size_t n, ovs_u128 *v)
{
    uint32_t ip = 0;
    int octets = 0;
    size_t i = 0;

    while (i < n) {
        uint32_t octet = 0;
        size_t start = i;
        while (i < n && isdigit((unsigned char) s[i])) {
            octet = octet * 10 + (s[i] - '0');
            if (octet > 255 || i - start >= 3
                || (i > start && s[start] == '0')) {
                /* Too big, or a leading zero ("010"), which some
                 * parsers read as octal: refused, as ovn-controller
                 * does. */
                return false;
            }
            i++;
        }
        if (i == start || octets == 4) {
            return false;
        }
        ip = (ip << 8) | octet;
        octets++;
        if (i < n) {
            if (s[i] != '.' || i + 1 == n) {
                return false;
            }
            i++;
        }
    }
    if (octets != 4) {
        return false;
    }
    *v = lex_u128_from_u64(ip);
    return true;
}

static bool
parse_ipv6(const char *s, size_t n, ovs_u128 *v)
{
    char buf[INET6_ADDRSTRLEN + 1];
    struct in6_addr a;

    if (n >= sizeof buf) {
        return false;
    }
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (inet_pton(AF_INET6, buf, &a) != 1) {
        return false;
    }
    v->u64.hi = v->u64.lo = 0;
    for (int i = 0; i < 8; i++) {
        v->u64.hi = (v->u64.hi << 8) | a.s6_addr[i];
        v->u64.lo = (v->u64.lo << 8) | a.s6_addr[8 + i];
    }
    return true;
}

/* Ethernet addresses are exactly six pairs of hex digits. */
static bool
parse_mac(const char *s, size_t n, ovs_u128 *v)
{
    uint64_t mac = 0;

    if (n != 17) {
        return false;
    }
    for (int i = 0; i < 6; i++) {
        const char *p = s + 3 * i;
        if (!isxdigit((unsigned char) p[0]) || !isxdigit((unsigned char) p[1])
            || (i < 5 && p[2] != ':')) {
            return false;
        }
        mac = (mac << 8) | (hexit_value(p[0]) << 4) | hexit_value(p[1]);
    }
    *v = lex_u128_from_u64(mac);
    return true;
}

/* Parses the numeric word 's' (of length 'n') into 't'.  Returns the
 * number of bytes consumed, which can be less than 'n' for "IPv4:port". */
static size_t
parse_number(const char *s, size_t n, struct lex_token *t)
{
    t->type = LEX_T_INTEGER;
    if (memchr(s, ':', n)) {
        if (parse_mac(s, n, &t->value)) {
            t->format = LEX_F_ETHERNET;
            return n;
        } else if (parse_ipv6(s, n, &t->value)) {
            t->format = LEX_F_IPV6;
            return n;
        }
        /* "10.0.0.1:80" as used by load-balancer backends. */
        size_t colon = (const char *) memchr(s, ':', n) - s;
        if (parse_ipv4(s, colon, &t->value)) {
            t->format = LEX_F_IPV4;
            return colon;
        }
        set_error(t, "invalid numeric constant");
        return n;
    }
    if (n > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        ovs_u128 v = lex_u128_from_u64(0);
        if (n == 2) {
            set_error(t, "hex digits expected after 0x");
            return n;
        }
        for (size_t i = 2; i < n; i++) {
            if (!isxdigit((unsigned char) s[i])) {
                set_error(t, "invalid numeric constant");
                return n;
            }
            if (v.u64.hi >> 60) {
                set_error(t, "constant is wider than 128 bits");
                return n;
            }
            v = lex_u128_shl(v, 4);
            v.u64.lo |= hexit_value(s[i]);
        }
        t->value = v;
        t->format = LEX_F_HEX;
        return n;
    }
    if (memchr(s, '.', n)) {
        if (!parse_ipv4(s, n, &t->value)) {
            set_error(t, "invalid numeric constant");
            return n;
        }
        t->format = LEX_F_IPV4;
        return n;
    }

    ovs_u128 v = lex_u128_from_u64(0);
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char) s[i])) {
            set_error(t, "invalid numeric constant");
            return n;
        }
    }
    if (n > 1 && s[0] == '0') {
        set_error(t, "decimal constants must not have leading zeros");
        return n;
    }
    /* Like ovn-controller, decimal constants stop at 64 bits; wider values
     * must be written in hex. */
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned int digit = s[i] - '0';
        if (x > (UINT64_MAX - digit) / 10) {
            set_error(t, "decimal constants must be less than 2**64 (write "
                      "wider values in hex)");
            return n;
        }
        x = x * 10 + digit;
    }
    v = lex_u128_from_u64(x);
    t->value = v;
    t->format = LEX_F_DECIMAL;
    return n;
}

static int
format_width(enum lex_format f)
{
    return (f == LEX_F_IPV4 ? 32
            : f == LEX_F_IPV6 ? 128
            : f == LEX_F_ETHERNET ? 48
            : 128);
}

/* Parses the "/mask" that follows a constant; 'p' points just after the
 * slash.  Returns the end of the mask. */
static const char *
parse_mask(const char *p, struct lex_token *t)
{
    struct lex_token m;
    size_t n = number_word_len(p);

    if (!n) {
        set_error(t, "integer constant expected after `/'");
        return p;
    }
    lex_token_init(&m);
    size_t used = parse_number(p, n, &m);
    if (m.type == LEX_T_ERROR) {
        set_error(t, "%s", m.s);
        lex_token_destroy(&m);
        return p + n;
    }
    if (used != n) {
        set_error(t, "invalid mask");
        return p + n;
    }

    int width = format_width(t->format);
    if (m.format == t->format) {
        t->mask = m.value;
    } else if ((t->format == LEX_F_IPV4 || t->format == LEX_F_IPV6)
               && m.format == LEX_F_DECIMAL && !m.value.u64.hi
               && (uint32_t) m.value.u64.lo <= width) {
        /* ovn-controller 23.03 reads a prefix length modulo 2**32:
         * "10.0.0.0/4294967304" is accepted, as 10.0.0.0/8 (a sweep
         * against stock ovn-trace, tests/limits.at).  Do the same, so
         * that a match it accepts is not refused here. */
        int plen = (uint32_t) m.value.u64.lo;
        t->mask = lex_u128_and(lex_u128_shl(lex_u128_ones(width),
                                            width - plen),
                               lex_u128_ones(width));
    } else {
        set_error(t, "value and mask have incompatible formats");
        return p + n;
    }
    t->type = LEX_T_MASKED_INTEGER;
    /* Like ovn-controller, bits set in the value but not in the mask are
     * silently ignored ("1.2.3.4/24" means 1.2.3.0/24). */
    t->value = lex_u128_and(t->value, t->mask);
    return p + n;
}

/* Validates one UTF-8 sequence at 'p'; returns its length or 0. */
static int
utf8_len(const unsigned char *p)
{
    int n;
    if (p[0] < 0x80) {
        return 1;
    } else if (p[0] >= 0xc2 && p[0] <= 0xdf) {
        n = 2;
    } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        n = 3;
    } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        n = 4;
    } else {
        return 0;
    }
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80) {
            return 0;
        }
    }
    /* Overlong, surrogate and out-of-range sequences. */
    if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0)
        || (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90)) {
        return 0;
    }
    return n;
}

/* Reads four hex digits at 'p'; returns -1 if they are not. */
static int
read_hex4(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        if (!isxdigit((unsigned char) p[i])) {
            return -1;
        }
        v = (v << 4) | hexit_value(p[i]);
    }
    return v;
}

/* Decodes "\uXXXX" (or a surrogate pair "\uD8xx\uDCxx") at 'p' into UTF-8
 * appended to 's'.  Returns the end of the escape, or NULL if invalid.
 * NUL characters are refused because they would end the string. */
static const char *
parse_unicode_escape(const char *p, struct ds *s)
{
    int c = read_hex4(p + 2);
    p += 6;
    if (c < 0 || c == 0 || (c >= 0xdc00 && c <= 0xdfff)) {
        return NULL;
    }
    if (c >= 0xd800 && c <= 0xdbff) {
        int lo = p[0] == '\\' && p[1] == 'u' ? read_hex4(p + 2) : -1;
        if (lo < 0xdc00 || lo > 0xdfff) {
            return NULL;
        }
        c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
        p += 6;
    }
    if (c < 0x80) {
        ds_put_char(s, c);
    } else if (c < 0x800) {
        ds_put_char(s, 0xc0 | (c >> 6));
        ds_put_char(s, 0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
        ds_put_char(s, 0xe0 | (c >> 12));
        ds_put_char(s, 0x80 | ((c >> 6) & 0x3f));
        ds_put_char(s, 0x80 | (c & 0x3f));
    } else {
        ds_put_char(s, 0xf0 | (c >> 18));
        ds_put_char(s, 0x80 | ((c >> 12) & 0x3f));
        ds_put_char(s, 0x80 | ((c >> 6) & 0x3f));
        ds_put_char(s, 0x80 | (c & 0x3f));
    }
    return p;
}

static const char *
parse_string(const char *p, struct lex_token *t)
{
    struct ds s = DS_EMPTY_INITIALIZER;

    for (p++; *p != '"'; ) {
        if (*p == '\0') {
            set_error(t, "input ends inside quoted string");
            ds_destroy(&s);
            return p;
        } else if (*p == '\\' && p[1] == 'u') {
            /* JSON-style escapes, as ovn-controller accepts them. */
            const char *end = parse_unicode_escape(p, &s);
            if (!end) {
                set_error(t, "invalid \\u escape in quoted string");
                ds_destroy(&s);
                return p + 2;
            }
            p = end;
            continue;
        } else if (*p == '\\') {
            char c;
            switch (p[1]) {
            case '"': c = '"'; break;
            case '\\': c = '\\'; break;
            case '/': c = '/'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case '\0':
                set_error(t, "input ends inside quoted string");
                ds_destroy(&s);
                return p + 1;
            default:
                if ((unsigned char) p[1] >= 0x20 && (unsigned char) p[1] < 0x7f) {
                    set_error(t, "bad escape \\%c in quoted string", p[1]);
                } else {
                    set_error(t, "bad escape in quoted string");
                }
                ds_destroy(&s);
                return p + 2;
            }
            ds_put_char(&s, c);
            p += 2;
        } else {
            int n = utf8_len((const unsigned char *) p);
            if (!n) {
                set_error(t, "invalid UTF-8 byte 0x%02x in quoted string",
                          (unsigned char) *p);
                ds_destroy(&s);
                return p + 1;
            }
            ds_put_buffer(&s, p, n);
            p += n;
        }
    }
    t->type = LEX_T_STRING;
    t->s = ds_steal_cstr(&s);
    return p + 1;
}

/* Parses "$name" or "@name" at 'p'. */
static const char *
parse_ref(const char *p, enum lex_type type, struct lex_token *t)
{
    const char *start = ++p;

    if (!is_id_start(*p)) {
        set_error(t, "`%c' must be followed by a name", start[-1]);
        return p;
    }
    while (is_id_char(*p)) {
        p++;
    }
    t->type = type;
    t->s = xmemdup0(start, p - start);
    return p;
}

enum lex_ref_scan
lex_find_ref(const char *p, struct lex_ref *ref)
{
    for (;; p++) {
        /* strcspn() looks at many bytes at a time. */
        p += strcspn(p, "\"/$@");
        switch (*p) {
        case '\0':
            return LEX_REF_NONE;
        case '"':
            /* Skipped whole, escapes included, as parse_string() reads it;
             * what is inside cannot be a reference. */
            for (p++; *(p += strcspn(p, "\"\\")) != '"'; p += 2) {
                if (*p == '\0' || p[1] == '\0') {
                    return LEX_REF_UNSURE;
                }
            }
            break;
        case '/':
            if (p[1] == '*' || p[1] == '/') {
                return LEX_REF_UNSURE;
            }
            break;
        default:
            if (!is_id_start(p[1])) {
                return LEX_REF_UNSURE;
            }
            ref->sigil = p;
            ref->len = 1;
            while (is_id_char(p[1 + ref->len])) {
                ref->len++;
            }
            return LEX_REF_FOUND;
        }
    }
}

/* Skips white space and comments.  Returns NULL, with an error in 't', if
 * a comment does not end. */
static const char *
skip_space(const char *p, struct lex_token *t)
{
    for (;;) {
        if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'
            || *p == '\f' || *p == '\v') {
            p++;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *end = strstr(p + 2, "*/");
            if (!end) {
                set_error(t, "`/*' without matching `*/'");
                return NULL;
            }
            p = end + 2;
        } else if (p[0] == '/' && p[1] == '/') {
            p += strcspn(p, "\n");
        } else {
            return p;
        }
    }
}

/* Reads the token at 'p' into 't' and returns where the next one starts. */
static const char *
lex_token_parse(struct lex_token *t, const char *p, const char *input)
{
    lex_token_destroy(t);
    lex_token_init(t);

    const char *q = skip_space(p, t);
    if (!q) {
        /* Unterminated comment: point at it. */
        t->ofs = (p + strspn(p, " \t\n\r\f\v")) - input;
        t->len = strlen(input) - t->ofs;
        return input + strlen(input);
    }
    p = q;
    t->ofs = p - input;

    const char *start = p;
    unsigned char c = *p;
    switch (c) {
    case '\0':
        t->type = LEX_T_END;
        break;
    case '(': t->type = LEX_T_LPAREN; p++; break;
    case ')': t->type = LEX_T_RPAREN; p++; break;
    case '{': t->type = LEX_T_LCURLY; p++; break;
    case '}': t->type = LEX_T_RCURLY; p++; break;
    case '[': t->type = LEX_T_LSQUARE; p++; break;
    case ']': t->type = LEX_T_RSQUARE; p++; break;
    case ',': t->type = LEX_T_COMMA; p++; break;
    case ';': t->type = LEX_T_SEMICOLON; p++; break;
    case '=':
        if (p[1] == '=') {
            t->type = LEX_T_EQ;
            p += 2;
        } else {
            t->type = LEX_T_ASSIGN;
            p++;
        }
        break;
    case '!':
        if (p[1] == '=') {
            t->type = LEX_T_NE;
            p += 2;
        } else {
            t->type = LEX_T_NOT;
            p++;
        }
        break;
    case '<':
        if (p[1] == '-' && p[2] == '>') {
            t->type = LEX_T_EXCHANGE;
            p += 3;
        } else if (p[1] == '=') {
            t->type = LEX_T_LE;
            p += 2;
        } else {
            t->type = LEX_T_LT;
            p++;
        }
        break;
    case '>':
        if (p[1] == '=') {
            t->type = LEX_T_GE;
            p += 2;
        } else {
            t->type = LEX_T_GT;
            p++;
        }
        break;
    case '&':
        if (p[1] == '&') {
            t->type = LEX_T_AND;
            p += 2;
        } else {
            set_error(t, "`&' is only valid as part of `&&'");
            p++;
        }
        break;
    case '|':
        if (p[1] == '|') {
            t->type = LEX_T_OR;
            p += 2;
        } else {
            set_error(t, "`|' is only valid as part of `||'");
            p++;
        }
        break;
    case '-':
        if (p[1] == '-') {
            t->type = LEX_T_DECREMENT;
            p += 2;
        } else {
            set_error(t, "`-' is only valid as part of `--'");
            p++;
        }
        break;
    case '/':
        set_error(t, "`/' is only valid as part of `//' or `/*' "
                  "or directly after a constant");
        p++;
        break;
    case '.':
        if (p[1] == '.') {
            t->type = LEX_T_ELLIPSIS;
            p += 2;
        } else {
            set_error(t, "`.' is only valid as part of `..', "
                      "a name or a number");
            p++;
        }
        break;
    case '"':
        p = parse_string(p, t);
        break;
    case '$':
        p = parse_ref(p, LEX_T_ADDRSET, t);
        break;
    case '@':
        p = parse_ref(p, LEX_T_PORTGROUP, t);
        break;
    case ':':
        if (p[1] != ':') {
            t->type = LEX_T_COLON;
            p++;
            break;
        }
        /* "::1" and the like. */
        /* fall through */
    default:
        if (is_id_start(c) || is_ascii_digit(c) || c == ':') {
            size_t n = number_word_len(p);
            if (is_id_start(c) && !memchr(p, ':', n)) {
                /* An identifier: letters, digits, '_' and '.'. */
                size_t m = 0;
                while (is_id_char(p[m]) && !(p[m] == '.' && p[m + 1] == '.')) {
                    m++;
                }
                t->type = LEX_T_ID;
                t->s = xmemdup0(p, m);
                p += m;
            } else if (is_id_start(c)
                       && !parse_mac(p, n, &t->value)
                       && !parse_ipv6(p, n, &t->value)) {
                /* A name directly followed by ':' (e.g. "a:b"): an
                 * identifier and then a colon. */
                size_t m = 0;
                while (is_id_char(p[m]) && !(p[m] == '.' && p[m + 1] == '.')) {
                    m++;
                }
                t->type = LEX_T_ID;
                t->s = xmemdup0(p, m);
                p += m;
            } else {
                p += parse_number(p, n, t);
                if (t->type != LEX_T_ERROR && *p == '/'
                    && p[1] != '/' && p[1] != '*') {
                    p = parse_mask(p + 1, t);
                }
            }
        } else if (c >= 0x80) {
            set_error(t, "invalid byte 0x%02x in input (only ASCII is "
                      "allowed outside quoted strings)", c);
            p++;
        } else if (isprint(c)) {
            set_error(t, "invalid character `%c' in input", c);
            p++;
        } else {
            set_error(t, "invalid byte 0x%02x in input", c);
            p++;
        }
        break;
    }
    t->len = p - start;
    return p;
}

/* Advances to the next token and returns its type. */
enum lex_type
lex_next(struct lexer *lexer)
{
    lexer->next = lex_token_parse(&lexer->token, lexer->next, lexer->input);
    return lexer->token.type;
}

/* Returns the type of the token after the current one, without moving. */
enum lex_type
lex_peek(const struct lexer *lexer)
{
    struct lex_token t;
    lex_token_init(&t);
    lex_token_parse(&t, lexer->next, lexer->input);
    enum lex_type type = t.type;
    lex_token_destroy(&t);
    return type;
}

/* If the current token has 'type', consumes it and returns true. */
bool
lex_accept(struct lexer *lexer, enum lex_type type)
{
    if (lexer->token.type == type) {
        lex_next(lexer);
        return true;
    }
    return false;
}

bool
lex_is_id(const struct lexer *lexer, const char *id)
{
    return lexer->token.type == LEX_T_ID && !strcmp(lexer->token.s, id);
}

bool
lex_accept_id(struct lexer *lexer, const char *id)
{
    if (lex_is_id(lexer, id)) {
        lex_next(lexer);
        return true;
    }
    return false;
}

/* True if 't' is a plain decimal integer below 2**31, as bit indexes,
 * table numbers and ports must be. */
bool
lex_token_is_small_int(const struct lex_token *t)
{
    return (t->type == LEX_T_INTEGER && t->format == LEX_F_DECIMAL
            && !t->value.u64.hi && t->value.u64.lo <= INT32_MAX);
}

/* Appends where the current token is: "at end of input" or
 * "at `tok' (column N)". */
void
lex_format_where(const struct lexer *lexer, struct ds *s)
{
    const struct lex_token *t = &lexer->token;

    if (t->type == LEX_T_END) {
        ds_put_cstr(s, "at end of input");
        return;
    }
    size_t len = MIN(t->len, 40);
    ds_put_cstr(s, "at `");
    for (size_t i = 0; i < len; i++) {
        unsigned char c = lexer->input[t->ofs + i];
        if (c >= 0x20 && c < 0x7f) {
            ds_put_char(s, c);
        } else {
            ds_put_format(s, "\\x%02x", c);
        }
    }
    if (len < t->len) {
        ds_put_cstr(s, "...");
    }
    ds_put_format(s, "' (column %"PRIuSIZE")", t->ofs + 1);
}

/* Returns a malloc'd "syntax error <where>, expecting <expecting>", or the
 * lexical error if the current token is one. */
char *
lex_syntax_error(const struct lexer *lexer, const char *expecting)
{
    struct ds s = DS_EMPTY_INITIALIZER;

    if (lexer->token.type == LEX_T_ERROR) {
        ds_put_format(&s, "%s (column %"PRIuSIZE")", lexer->token.s,
                      lexer->token.ofs + 1);
    } else {
        ds_put_cstr(&s, "syntax error ");
        lex_format_where(lexer, &s);
        if (expecting) {
            ds_put_format(&s, ", expecting %s", expecting);
        }
    }
    return ds_steal_cstr(&s);
}

/* Returns a malloc'd error message made from 'format' plus the position of
 * the current token, e.g. "unknown field \"x\" (column 3)".  A lexical
 * error at the current token takes precedence. */
char *
lex_error(const struct lexer *lexer, const char *format, ...)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    va_list args;

    if (lexer->token.type == LEX_T_ERROR) {
        return lex_syntax_error(lexer, NULL);
    }
    va_start(args, format);
    ds_put_format_valist(&s, format, args);
    va_end(args);
    if (lexer->token.type == LEX_T_END) {
        ds_put_cstr(&s, " (at end of input)");
    } else {
        ds_put_format(&s, " (column %"PRIuSIZE")", lexer->token.ofs + 1);
    }
    return ds_steal_cstr(&s);
}

/* Like lex_error(), but for the token that started at byte 'ofs'. */
char *
lex_error_at(const struct lexer *lexer, size_t ofs, const char *format, ...)
{
    struct ds s = DS_EMPTY_INITIALIZER;
    va_list args;

    va_start(args, format);
    ds_put_format_valist(&s, format, args);
    va_end(args);
    if (ofs >= strlen(lexer->input)) {
        ds_put_cstr(&s, " (at end of input)");
    } else {
        ds_put_format(&s, " (column %"PRIuSIZE")", ofs + 1);
    }
    return ds_steal_cstr(&s);
}

void
lex_match_refs(const char *match, struct sset *addr_sets, struct sset *pgs)
{
    struct lexer lexer;
    lex_init(&lexer, match);
    for (;;) {
        enum lex_type type = lex_next(&lexer);
        if (type == LEX_T_END || type == LEX_T_ERROR) {
            break;
        } else if (type == LEX_T_ADDRSET) {
            sset_add(addr_sets, lexer.token.s);
        } else if (type == LEX_T_PORTGROUP) {
            sset_add(pgs, lexer.token.s);
        }
    }
    lex_destroy(&lexer);
}
