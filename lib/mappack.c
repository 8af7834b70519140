/* Packed string maps; see mappack.h. */
#include <config.h>
#include "lib/mappack.h"

#include <string.h>

#include "lib/strpack.h"
#include "openvswitch/dynamic-string.h"
#include "smap.h"
#include "util.h"

enum {
    MAP_ESC = 0x1b,
    MAP_PAIR_END = 0x1e,
    MAP_KEY_END = 0x1f,
};

static void
put_escaped(struct ds *ds, const char *s)
{
    for (; *s; s++) {
        if (*s == MAP_ESC || *s == MAP_PAIR_END || *s == MAP_KEY_END) {
            ds_put_char(ds, MAP_ESC);
        }
        ds_put_char(ds, *s);
    }
}

const struct strpack *
mappack_get(const struct smap *m)
{
    if (smap_is_empty(m)) {
        return NULL;
    }
    const struct smap_node **nodes = smap_sort(m);
    size_t n = smap_count(m);
    struct ds text = DS_EMPTY_INITIALIZER;
    for (size_t i = 0; i < n; i++) {
        put_escaped(&text, nodes[i]->key);
        ds_put_char(&text, MAP_KEY_END);
        put_escaped(&text, nodes[i]->value);
        ds_put_char(&text, MAP_PAIR_END);
    }
    free(nodes);
    const struct strpack *p = strpack_get(text.string, text.length);
    ds_destroy(&text);
    return p;
}

/* Reads the string that begins at '*s' and ends at an unescaped 'end'
 * into 'out' (cleared first), unescaped, and moves '*s' past 'end'. */
static void
take(char **s, char end, struct ds *out)
{
    ds_clear(out);
    char *p = *s;
    for (; *p && *p != end; p++) {
        if (*p == MAP_ESC && p[1]) {
            p++;
        }
        ds_put_char(out, *p);
    }
    *s = *p ? p + 1 : p;
}

/* Calls 'cb' with each pair of 'p' in key order, until it returns
 * false. */
static void
for_each_pair(const struct strpack *p,
              bool (*cb)(const char *key, const char *value, void *aux),
              void *aux)
{
    if (!p) {
        return;
    }
    struct ds text = DS_EMPTY_INITIALIZER;
    struct ds key = DS_EMPTY_INITIALIZER;
    struct ds value = DS_EMPTY_INITIALIZER;
    ds_put_strpack(&text, p);
    char *s = ds_cstr(&text);
    while (*s) {
        take(&s, MAP_KEY_END, &key);
        take(&s, MAP_PAIR_END, &value);
        if (!cb(ds_cstr(&key), ds_cstr(&value), aux)) {
            break;
        }
    }
    ds_destroy(&value);
    ds_destroy(&key);
    ds_destroy(&text);
}

static bool
add_pair(const char *key, const char *value, void *m)
{
    smap_replace(m, key, value);
    return true;
}

void
mappack_to_smap(const struct strpack *p, struct smap *m)
{
    for_each_pair(p, add_pair, m);
}

struct find_aux {
    const char *key;
    struct ds *scratch;
    bool found;
};

static bool
find_pair(const char *key, const char *value, void *aux_)
{
    struct find_aux *aux = aux_;
    if (!strcmp(key, aux->key)) {
        ds_clear(aux->scratch);
        ds_put_cstr(aux->scratch, value);
        aux->found = true;
        return false;
    }
    return true;
}

const char *
mappack_find(const struct strpack *p, const char *key, struct ds *scratch)
{
    struct find_aux aux = { .key = key, .scratch = scratch };
    for_each_pair(p, find_pair, &aux);
    return aux.found ? ds_cstr(scratch) : NULL;
}
