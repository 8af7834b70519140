/* Streaming JSON splitter; see jsplit.h. */
#include <config.h>
#include "lib/jsplit.h"

#include <string.h>

#include "lib/jscan.h"
#include "lib/jtext.h"
#include "util.h"

/* What a descended container expects next. */
enum jsplit_expect {
    JS_KEY_OR_END,              /* After '{'. */
    JS_KEY,                     /* After ',' in an object. */
    JS_COLON,
    JS_VALUE,                   /* After ':' or ',' in an array. */
    JS_VALUE_OR_END,            /* After '['. */
    JS_COMMA_OR_END,
};

struct jsplit_level {
    bool is_object;
    enum jsplit_expect expect;
    size_t index;               /* Of the current member or element. */
    struct ds key;              /* Of the current member. */
};

/* What the splitter is in the middle of. */
enum jsplit_mode {
    JS_STRUCTURE,               /* Walking descended containers. */
    JS_IN_KEY,                  /* Reading a key string. */
    JS_IN_VALUE,                /* Inside a captured or skipped value. */
};

struct jsplit {
    const struct jsplit_handler *handler;
    void *aux;

    struct jsplit_level *levels;
    size_t n_levels, allocated_levels;

    enum jsplit_mode mode;

    /* JS_IN_KEY. */
    struct ds raw_key;
    bool key_escape;
    bool key_has_escape;

    /* JS_IN_VALUE. */
    bool capture;               /* Otherwise skipping. */
    size_t vdepth;              /* Containers open within the value. */
    bool vstring, vescape;      /* In a string within the value. */
    bool vscalar;               /* A bare number or literal. */
    bool spans;                 /* Part of the value is in 'cap'. */
    struct ds cap;

    char *error;
    unsigned long long int offset;
};

struct jsplit *
jsplit_create(const struct jsplit_handler *handler, void *aux)
{
    struct jsplit *js = xzalloc(sizeof *js);
    js->handler = handler;
    js->aux = aux;
    ds_init(&js->raw_key);
    ds_init(&js->cap);
    return js;
}

static void
levels_clear(struct jsplit *js)
{
    for (size_t i = 0; i < js->n_levels; i++) {
        ds_clear(&js->levels[i].key);
    }
    js->n_levels = 0;
}

void
jsplit_destroy(struct jsplit *js)
{
    if (!js) {
        return;
    }
    for (size_t i = 0; i < js->allocated_levels; i++) {
        ds_destroy(&js->levels[i].key);
    }
    free(js->levels);
    ds_destroy(&js->raw_key);
    ds_destroy(&js->cap);
    free(js->error);
    free(js);
}

void
jsplit_reset(struct jsplit *js)
{
    levels_clear(js);
    js->mode = JS_STRUCTURE;
    ds_clear(&js->raw_key);
    ds_clear(&js->cap);
    free(js->error);
    js->error = NULL;
    js->offset = 0;
}

bool
jsplit_is_idle(const struct jsplit *js)
{
    return !js->n_levels && js->mode == JS_STRUCTURE;
}

size_t
jsplit_depth(const struct jsplit *js)
{
    return js->n_levels;
}

const char *
jsplit_key(const struct jsplit *js, size_t level)
{
    ovs_assert(level < js->n_levels);
    return ds_cstr_ro(&js->levels[level].key);
}

size_t
jsplit_index(const struct jsplit *js, size_t level)
{
    ovs_assert(level < js->n_levels);
    return js->levels[level].index;
}

unsigned long long int
jsplit_offset(const struct jsplit *js)
{
    return js->offset;
}

static void
set_error(struct jsplit *js, const char *msg, const char *at,
          const char *chunk)
{
    if (!js->error) {
        js->error = xasprintf("%s at byte %llu", msg,
                              js->offset + (unsigned long long) (at - chunk));
    }
}

static struct jsplit_level *
push_level(struct jsplit *js, bool is_object)
{
    if (js->n_levels >= js->allocated_levels) {
        size_t old = js->allocated_levels;
        js->levels = x2nrealloc(js->levels, &js->allocated_levels,
                                sizeof *js->levels);
        for (size_t i = old; i < js->allocated_levels; i++) {
            ds_init(&js->levels[i].key);
        }
    }
    struct jsplit_level *l = &js->levels[js->n_levels++];
    l->is_object = is_object;
    l->expect = is_object ? JS_KEY_OR_END : JS_VALUE_OR_END;
    l->index = 0;
    ds_clear(&l->key);
    return l;
}

/* A value just finished at the current level. */
static void
value_done(struct jsplit *js)
{
    if (js->n_levels) {
        js->levels[js->n_levels - 1].expect = JS_COMMA_OR_END;
    }
}

static void
close_level(struct jsplit *js)
{
    js->n_levels--;
    ds_clear(&js->levels[js->n_levels].key);
    js->handler->end(js->aux, js);
    value_done(js);
}

/* Begins the value whose first character is '*p'.  Returns where to go on
 * from: after the '{' or '[' of a descended container, or at the value
 * itself, which the caller then scans. */
static const char *
start_value(struct jsplit *js, const char *p, const char *chunk)
{
    char c = *p;
    if (c == ']' || c == '}' || c == ',' || c == ':') {
        set_error(js, "syntax error: value expected", p, chunk);
        return p;
    }
    enum jsplit_action a = js->handler->start(js->aux, js, c);
    if (a == JSPLIT_DESCEND && (c == '{' || c == '[')) {
        push_level(js, c == '{');
        return p + 1;
    }
    js->mode = JS_IN_VALUE;
    js->capture = a != JSPLIT_SKIP;
    js->vdepth = 0;
    js->vstring = js->vescape = false;
    js->vscalar = c != '{' && c != '[' && c != '"';
    js->spans = false;
    ds_clear(&js->cap);
    return p;
}

/* Characters that end a bare number or literal. */
static bool
is_delimiter(char c)
{
    return (c == ',' || c == '}' || c == ']' || c == ':' || c == ' '
            || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '{'
            || c == '[');
}

static void
deliver(struct jsplit *js, const char *start, const char *end)
{
    if (js->capture) {
        if (js->spans) {
            ds_put_buffer(&js->cap, start, end - start);
            js->handler->value(js->aux, js, js->cap.string, js->cap.length);
            /* Do not keep a huge buffer around for the next message. */
            if (js->cap.allocated > 1024 * 1024) {
                ds_destroy(&js->cap);
                ds_init(&js->cap);
            }
        } else {
            js->handler->value(js->aux, js, start, end - start);
        }
        ds_clear(&js->cap);
    }
    js->mode = JS_STRUCTURE;
    value_done(js);
}

/* Scans value bytes from 'p'; returns where the value ended, or 'end' if
 * it goes on in the next chunk. */
static const char *
scan_value(struct jsplit *js, const char *p, const char *end)
{
    const char *start = p;

    if (js->vscalar) {
        while (p < end && !is_delimiter(*p)) {
            p++;
        }
        if (p < end) {
            deliver(js, start, p);
            return p;
        }
        goto more;
    }

#ifdef __SSE2__
    /* Sixteen bytes at a time, visiting only those that can matter: a
     * monitor reply is mostly short strings and brackets. */
    while (end - p >= 16) {
        if (js->vescape) {
            js->vescape = false;
            p++;                    /* Whatever follows a backslash. */
            continue;
        }
        unsigned int m = jscan_sse_structure(p);
        while (m) {
            unsigned int i = __builtin_ctz(m);
            m &= m - 1;
            char c = p[i];
            if (js->vstring) {
                if (c == '\\') {
                    if (i == 15) {
                        js->vescape = true;
                    } else {
                        m &= ~(1u << (i + 1));
                    }
                } else if (c == '"') {
                    js->vstring = false;
                    if (!js->vdepth) {
                        deliver(js, start, p + i + 1);
                        return p + i + 1;
                    }
                }
            } else if (c == '"') {
                js->vstring = true;
            } else if (c == '{' || c == '[') {
                js->vdepth++;
            } else if ((c == '}' || c == ']') && !--js->vdepth) {
                deliver(js, start, p + i + 1);
                return p + i + 1;
            }
        }
        p += 16;
    }
#endif
    while (p < end) {
        if (js->vstring) {
            /* The common case: plain characters up to the closing quote. */
            if (!js->vescape) {
                p = jscan_quote_or_escape(p, end);
                if (p >= end) {
                    break;
                }
            }
            char c = *p++;
            if (js->vescape) {
                js->vescape = false;
            } else if (c == '\\') {
                js->vescape = true;
            } else {                /* '"' */
                js->vstring = false;
                if (!js->vdepth) {
                    deliver(js, start, p);
                    return p;
                }
            }
            continue;
        }
        char c = *p++;
        switch (c) {
        case '"':
            js->vstring = true;
            break;
        case '{':
        case '[':
            js->vdepth++;
            break;
        case '}':
        case ']':
            if (!--js->vdepth) {
                deliver(js, start, p);
                return p;
            }
            break;
        default:
            break;
        }
    }

more:
    if (js->capture) {
        ds_put_buffer(&js->cap, start, end - start);
        js->spans = true;
    }
    return end;
}

/* Reads key characters from 'p'; returns where the key ended (after its
 * closing quote) or 'end'. */
static const char *
scan_key(struct jsplit *js, const char *p, const char *end,
         const char *chunk)
{
    const char *start = p;
    while (p < end) {
        if (!js->key_escape) {
            /* Row UUIDs are keys: skip their plain characters at once. */
            p = jscan_quote_or_escape(p, end);
            if (p >= end) {
                break;
            }
        }
        char c = *p++;
        if (js->key_escape) {
            js->key_escape = false;
        } else if (c == '\\') {
            js->key_escape = true;
            js->key_has_escape = true;
        } else if (c == '"') {
            ds_put_buffer(&js->raw_key, start, p - 1 - start);
            struct jsplit_level *l = &js->levels[js->n_levels - 1];
            ds_clear(&l->key);
            if (js->key_has_escape) {
                if (!jtext_unescape(js->raw_key.string, js->raw_key.length,
                                    &l->key)) {
                    set_error(js, "bad escape in member name", p, chunk);
                }
            } else {
                ds_put_buffer(&l->key, js->raw_key.string,
                              js->raw_key.length);
            }
            ds_clear(&js->raw_key);
            js->mode = JS_STRUCTURE;
            l->expect = JS_COLON;
            return p;
        }
    }
    ds_put_buffer(&js->raw_key, start, end - start);
    return end;
}

const char *
jsplit_feed(struct jsplit *js, const char *chunk, size_t n)
{
    const char *p = chunk;
    const char *end = chunk + n;

    while (p < end && !js->error) {
        if (js->mode == JS_IN_VALUE) {
            p = scan_value(js, p, end);
            continue;
        }
        if (js->mode == JS_IN_KEY) {
            p = scan_key(js, p, end, chunk);
            continue;
        }

        char c = *p;
        if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
            p++;
            continue;
        }
        if (!js->n_levels) {
            p = start_value(js, p, chunk);
            continue;
        }

        struct jsplit_level *l = &js->levels[js->n_levels - 1];
        switch (l->expect) {
        case JS_KEY_OR_END:
            if (c == '}') {
                p++;
                close_level(js);
                break;
            }
            /* fall through */
        case JS_KEY:
            if (c != '"') {
                set_error(js, "syntax error: member name expected", p, chunk);
                break;
            }
            p++;
            js->mode = JS_IN_KEY;
            js->key_escape = js->key_has_escape = false;
            ds_clear(&js->raw_key);
            break;

        case JS_COLON:
            if (c != ':') {
                set_error(js, "syntax error: ':' expected", p, chunk);
                break;
            }
            p++;
            l->expect = JS_VALUE;
            break;

        case JS_VALUE_OR_END:
            if (c == ']') {
                p++;
                close_level(js);
                break;
            }
            /* fall through */
        case JS_VALUE:
            p = start_value(js, p, chunk);
            break;

        case JS_COMMA_OR_END:
            if (c == ',') {
                p++;
                l->index++;
                l->expect = l->is_object ? JS_KEY : JS_VALUE;
            } else if (c == (l->is_object ? '}' : ']')) {
                p++;
                close_level(js);
            } else {
                set_error(js, "syntax error: ',' or end of container "
                          "expected", p, chunk);
            }
            break;

        default:
            OVS_NOT_REACHED();
        }
    }
    js->offset += p - chunk;
    return js->error;
}
