/* A small reader for one complete JSON text held in memory, for decoding
 * it straight into C values (e.g. the rows lib/jsplit.h cuts out of a
 * message) without building a tree.
 *
 * Every function skips leading white space, returns false on a syntax
 * error and then leaves a message in 'error'; after an error every call
 * returns false. */
#ifndef LIB_JTEXT_H
#define LIB_JTEXT_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ds;

struct jtext {
    const char *p;              /* Next character. */
    const char *end;
    const char *error;          /* Static message, NULL if none. */
};

static inline void
jtext_init(struct jtext *t, const char *s, size_t n)
{
    t->p = s;
    t->end = s + n;
    t->error = NULL;
}

char jtext_peek__(struct jtext *);
bool jtext_expect_failed__(struct jtext *, char c);

/* Returns the next non-space character without consuming it, or '\0' at
 * the end or after an error.  Inline: a row's decoding peeks at every
 * token, and ovsdb-server writes no white space between them. */
static inline char
jtext_peek(struct jtext *t)
{
    if (t->p < t->end && !t->error) {
        char c = *t->p;
        if (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
            return c;
        }
    }
    return jtext_peek__(t);
}

/* Consumes 'c' if it comes next and returns true; otherwise returns false
 * without an error. */
static inline bool
jtext_accept(struct jtext *t, char c)
{
    if (jtext_peek(t) == c && c) {
        t->p++;
        return true;
    }
    return false;
}

/* Consumes 'c', or fails with an error. */
static inline bool
jtext_expect(struct jtext *t, char c)
{
    return jtext_accept(t, c) || jtext_expect_failed__(t, c);
}

/* True if only white space is left. */
bool jtext_at_end(struct jtext *);

/* Parses a string.  '*s' and '*n' then describe its contents: pointing into
 * the text itself if it has no escapes, otherwise into 'scratch' (which is
 * cleared first).  Not NUL-terminated in the first case. */
bool jtext_string(struct jtext *, struct ds *scratch, const char **s,
                  size_t *n);

/* Like jtext_string(), returning a new NUL-terminated copy. */
bool jtext_string_dup(struct jtext *, char **);

bool jtext_integer(struct jtext *, int64_t *);
bool jtext_real(struct jtext *, double *);
bool jtext_boolean(struct jtext *, bool *);
bool jtext_null(struct jtext *);

/* Skips one value of any kind. */
bool jtext_skip(struct jtext *);

/* Appends the UTF-8 for the 'n' bytes of string contents 'raw' (escapes
 * and all, without the quotes) to 'out'.  Returns false if an escape is
 * malformed. */
bool jtext_unescape(const char *raw, size_t n, struct ds *out);

#endif /* lib/jtext.h */
