/* Splits a stream of JSON texts (e.g. JSON-RPC messages) into pieces
 * without building trees.
 *
 * The caller feeds bytes as they arrive, in chunks of any size.  For every
 * value that starts, a handler decides what to do with it: descend into it
 * (an object or array: its members or elements are then offered one by
 * one), capture it (its complete text is delivered at once, however many
 * chunks it spanned), or skip it.  So a reader can take a 100 MB message
 * apart row by row, keeping only one row's text at a time, while small
 * parts go to an ordinary parser.
 *
 * The splitter checks only the structure it walks (brackets, strings,
 * commas and colons at the levels it descends into); captured text is
 * delimited, not validated: whoever parses it checks it. */
#ifndef LIB_JSPLIT_H
#define LIB_JSPLIT_H 1

#include <stdbool.h>
#include <stddef.h>
#include "openvswitch/dynamic-string.h"

struct jsplit;

enum jsplit_action {
    JSPLIT_DESCEND,             /* An object or array: visit its parts.  A
                                 * scalar is captured instead. */
    JSPLIT_CAPTURE,             /* Deliver the whole value. */
    JSPLIT_SKIP,                /* Ignore it. */
};

struct jsplit_handler {
    /* A value starts, whose first character is 'c' ('{', '[', '"', a digit,
     * '-', 't', 'f' or 'n').  jsplit_depth() and friends say where. */
    enum jsplit_action (*start)(void *aux, const struct jsplit *, char c);

    /* The complete text of a value 'start' chose to capture, 'n' bytes
     * (not NUL-terminated). */
    void (*value)(void *aux, const struct jsplit *, const char *, size_t n);

    /* A container 'start' chose to descend into has ended.  The position
     * is the container's own, as it was for 'start'.  At depth 0, a
     * top-level value is complete. */
    void (*end)(void *aux, const struct jsplit *);
};

struct jsplit *jsplit_create(const struct jsplit_handler *, void *aux);
void jsplit_destroy(struct jsplit *);

/* Starts over, e.g. on a new connection. */
void jsplit_reset(struct jsplit *);

/* Consumes 'n' bytes.  Returns NULL, or an error message (owned by the
 * splitter, valid until the next reset) if the input is not JSON; after an
 * error, further input is ignored until jsplit_reset(). */
const char *jsplit_feed(struct jsplit *, const char *, size_t n);

/* True if no top-level value is in progress. */
bool jsplit_is_idle(const struct jsplit *);

/* Where the value being offered (in 'start' or 'value') or ending (in
 * 'end') is: at depth 0 it is a top-level value; at depth d > 0 it is
 * member or element number jsplit_index(d - 1) of the container at depth
 * d - 1, and if that is an object, jsplit_key(d - 1) is its key. */
size_t jsplit_depth(const struct jsplit *);
const char *jsplit_key(const struct jsplit *, size_t level);
size_t jsplit_index(const struct jsplit *, size_t level);

/* Bytes consumed since the last reset. */
unsigned long long int jsplit_offset(const struct jsplit *);

#endif /* lib/jsplit.h */
