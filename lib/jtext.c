/* Reading one in-memory JSON text; see jtext.h. */
#include <config.h>
#include "lib/jtext.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/jscan.h"
#include "openvswitch/dynamic-string.h"
#include "util.h"

static bool
fail(struct jtext *t, const char *msg)
{
    if (!t->error) {
        t->error = msg;
    }
    t->p = t->end;
    return false;
}

static void
skip_ws(struct jtext *t)
{
    while (t->p < t->end
           && (*t->p == ' ' || *t->p == '\n' || *t->p == '\t'
               || *t->p == '\r')) {
        t->p++;
    }
}

char
jtext_peek__(struct jtext *t)
{
    if (t->error) {
        return '\0';
    }
    skip_ws(t);
    return t->p < t->end ? *t->p : '\0';
}

/* The error of a jtext_expect() that did not find 'c': always false. */
bool
jtext_expect_failed__(struct jtext *t, char c)
{
    switch (c) {
    case '{': return fail(t, "'{' expected");
    case '}': return fail(t, "'}' expected");
    case '[': return fail(t, "'[' expected");
    case ']': return fail(t, "']' expected");
    case ':': return fail(t, "':' expected");
    case ',': return fail(t, "',' expected");
    default: return fail(t, "unexpected character");
    }
}

bool
jtext_at_end(struct jtext *t)
{
    skip_ws(t);
    return !t->error && t->p >= t->end;
}

static int
hex_value(char c)
{
    return (c >= '0' && c <= '9' ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
            : -1);
}

static bool
read_hex4(const char *s, const char *end, unsigned int *v)
{
    if (end - s < 4) {
        return false;
    }
    *v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hex_value(s[i]);
        if (h < 0) {
            return false;
        }
        *v = (*v << 4) | h;
    }
    return true;
}

static void
put_utf8(struct ds *out, unsigned int c)
{
    if (c < 0x80) {
        ds_put_char(out, c);
    } else if (c < 0x800) {
        ds_put_char(out, 0xc0 | (c >> 6));
        ds_put_char(out, 0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
        ds_put_char(out, 0xe0 | (c >> 12));
        ds_put_char(out, 0x80 | ((c >> 6) & 0x3f));
        ds_put_char(out, 0x80 | (c & 0x3f));
    } else {
        ds_put_char(out, 0xf0 | (c >> 18));
        ds_put_char(out, 0x80 | ((c >> 12) & 0x3f));
        ds_put_char(out, 0x80 | ((c >> 6) & 0x3f));
        ds_put_char(out, 0x80 | (c & 0x3f));
    }
}

bool
jtext_unescape(const char *raw, size_t n, struct ds *out)
{
    const char *p = raw;
    const char *end = raw + n;
    while (p < end) {
        const char *bs = memchr(p, '\\', end - p);
        if (!bs) {
            ds_put_buffer(out, p, end - p);
            return true;
        }
        ds_put_buffer(out, p, bs - p);
        p = bs + 1;
        if (p >= end) {
            return false;
        }
        char c = *p++;
        switch (c) {
        case '"': case '\\': case '/':
            ds_put_char(out, c);
            break;
        case 'b': ds_put_char(out, '\b'); break;
        case 'f': ds_put_char(out, '\f'); break;
        case 'n': ds_put_char(out, '\n'); break;
        case 'r': ds_put_char(out, '\r'); break;
        case 't': ds_put_char(out, '\t'); break;
        case 'u': {
            unsigned int u;
            if (!read_hex4(p, end, &u)) {
                return false;
            }
            p += 4;
            if (u >= 0xd800 && u <= 0xdbff) {
                /* A surrogate pair makes one code point. */
                unsigned int lo;
                if (end - p < 6 || p[0] != '\\' || p[1] != 'u'
                    || !read_hex4(p + 2, end, &lo)
                    || lo < 0xdc00 || lo > 0xdfff) {
                    return false;
                }
                p += 6;
                u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
            } else if (u >= 0xdc00 && u <= 0xdfff) {
                return false;
            }
            if (!u) {
                return false;       /* No NULs in C strings. */
            }
            put_utf8(out, u);
            break;
        }
        default:
            return false;
        }
    }
    return true;
}

bool
jtext_string(struct jtext *t, struct ds *scratch, const char **s, size_t *n)
{
    if (jtext_peek(t) != '"') {
        return fail(t, "string expected");
    }
    const char *start = ++t->p;
    const char *p = start;
    bool escapes = false;
    for (;;) {
        p = jscan_quote_or_escape(p, t->end);
        if (p >= t->end) {
            return fail(t, "unterminated string");
        }
        if (*p == '"') {
            break;
        }
        escapes = true;
        p += 2;                     /* The backslash and what it escapes. */
        if (p > t->end) {
            return fail(t, "unterminated string");
        }
    }
    t->p = p + 1;
    if (!escapes) {
        *s = start;
        *n = p - start;
        return true;
    }
    ds_clear(scratch);
    if (!jtext_unescape(start, p - start, scratch)) {
        return fail(t, "bad escape in string");
    }
    *s = scratch->string;
    *n = scratch->length;
    return true;
}

bool
jtext_string_dup(struct jtext *t, char **out)
{
    struct ds scratch = DS_EMPTY_INITIALIZER;
    const char *s;
    size_t n;
    bool ok = jtext_string(t, &scratch, &s, &n);
    *out = ok ? xmemdup0(s, n) : NULL;
    ds_destroy(&scratch);
    return ok;
}

/* The extent of a number starting at 't->p'. */
static const char *
number_end(const struct jtext *t, bool *is_integer)
{
    const char *p = t->p;
    *is_integer = true;
    if (p < t->end && *p == '-') {
        p++;
    }
    while (p < t->end) {
        char c = *p;
        if (c >= '0' && c <= '9') {
            p++;
        } else if (c == '.' || c == 'e' || c == 'E' || c == '+'
                   || c == '-') {
            *is_integer = false;
            p++;
        } else {
            break;
        }
    }
    return p;
}

bool
jtext_integer(struct jtext *t, int64_t *v)
{
    char c = jtext_peek(t);
    if (!(c == '-' || (c >= '0' && c <= '9'))) {
        return fail(t, "integer expected");
    }
    bool is_integer;
    const char *end = number_end(t, &is_integer);
    if (!is_integer) {
        /* JSON allows 1.0e3 for an integer; OVSDB does too if exact. */
        double d;
        if (!jtext_real(t, &d) || d != floor(d)
            || d < -9223372036854775808.0 || d >= 9223372036854775808.0) {
            return fail(t, "integer expected");
        }
        *v = d;
        return true;
    }
    bool neg = *t->p == '-';
    const char *p = t->p + neg;
    if (p >= end || end - p > 19) {
        return fail(t, "integer out of range");
    }
    uint64_t u = 0;
    for (; p < end; p++) {
        u = u * 10 + (*p - '0');
    }
    if (neg ? u > UINT64_C(9223372036854775808)
            : u > UINT64_C(9223372036854775807)) {
        return fail(t, "integer out of range");
    }
    *v = neg ? (int64_t) (0 - u) : (int64_t) u;
    t->p = end;
    return true;
}

bool
jtext_real(struct jtext *t, double *v)
{
    char c = jtext_peek(t);
    if (!(c == '-' || (c >= '0' && c <= '9'))) {
        return fail(t, "number expected");
    }
    bool is_integer;
    const char *end = number_end(t, &is_integer);
    char buf[64];
    size_t n = end - t->p;
    if (n >= sizeof buf) {
        return fail(t, "number too long");
    }
    memcpy(buf, t->p, n);
    buf[n] = '\0';
    char *tail;
    errno = 0;
    *v = strtod(buf, &tail);
    if (*tail || errno == ERANGE || !isfinite(*v)) {
        return fail(t, "bad number");
    }
    t->p = end;
    return true;
}

static bool
literal(struct jtext *t, const char *word)
{
    size_t n = strlen(word);
    jtext_peek(t);
    if ((size_t) (t->end - t->p) >= n && !memcmp(t->p, word, n)) {
        t->p += n;
        return true;
    }
    return false;
}

bool
jtext_boolean(struct jtext *t, bool *v)
{
    if (literal(t, "true")) {
        *v = true;
        return true;
    } else if (literal(t, "false")) {
        *v = false;
        return true;
    }
    return fail(t, "boolean expected");
}

bool
jtext_null(struct jtext *t)
{
    return literal(t, "null") || fail(t, "null expected");
}

bool
jtext_skip(struct jtext *t)
{
    char c = jtext_peek(t);
    switch (c) {
    case '"': {
        struct ds scratch = DS_EMPTY_INITIALIZER;
        const char *s;
        size_t n;
        bool ok = jtext_string(t, &scratch, &s, &n);
        ds_destroy(&scratch);
        return ok;
    }
    case '{':
        t->p++;
        if (jtext_accept(t, '}')) {
            return true;
        }
        do {
            if (!jtext_skip(t) || !jtext_expect(t, ':') || !jtext_skip(t)) {
                return false;
            }
        } while (jtext_accept(t, ','));
        return jtext_expect(t, '}');
    case '[':
        t->p++;
        if (jtext_accept(t, ']')) {
            return true;
        }
        do {
            if (!jtext_skip(t)) {
                return false;
            }
        } while (jtext_accept(t, ','));
        return jtext_expect(t, ']');
    case 't':
    case 'f': {
        bool b;
        return jtext_boolean(t, &b);
    }
    case 'n':
        return jtext_null(t);
    default: {
        double d;
        return jtext_real(t, &d);
    }
    }
}
