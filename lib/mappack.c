/* Packed string maps; see mappack.h. */
#include <config.h>
#include "lib/mappack.h"

#include <stdlib.h>
#include <string.h>

#include "lib/strpack.h"
#include "openvswitch/dynamic-string.h"
#include "smap.h"
#include "util.h"

#define MAP_ESC '\x1b'
#define MAP_PAIR_END '\x1e'
#define MAP_KEY_END '\x1f'
#define MAP_SPECIALS "\x1b\x1e\x1f"

static void
put_escaped(struct ds *ds, const char *s)
{
    for (;;) {
        size_t n = strcspn(s, MAP_SPECIALS);
        ds_put_buffer(ds, s, n);
        s += n;
        if (!*s) {
            return;
        }
        ds_put_char(ds, MAP_ESC);
        ds_put_char(ds, *s++);
    }
}

struct pair {
    const char *key;
    const char *value;
};

static int
compare_pairs(const void *a_, const void *b_)
{
    const struct pair *a = a_;
    const struct pair *b = b_;
    return strcmp(a->key, b->key);
}

const struct strpack *
mappack_get_pairs(const char *const *keys, const char *const *values,
                  size_t n)
{
    if (!n) {
        return NULL;
    }
    struct pair buf[16];
    struct pair *pairs = n <= ARRAY_SIZE(buf) ? buf : xmalloc(n * sizeof *pairs);
    for (size_t i = 0; i < n; i++) {
        pairs[i].key = keys[i];
        pairs[i].value = values[i];
    }
    qsort(pairs, n, sizeof *pairs, compare_pairs);

    struct ds text;
    ds_init(&text);
    ds_reserve(&text, 512);
    for (size_t i = 0; i < n; i++) {
        put_escaped(&text, pairs[i].key);
        ds_put_char(&text, MAP_KEY_END);
        put_escaped(&text, pairs[i].value);
        ds_put_char(&text, MAP_PAIR_END);
    }
    if (pairs != buf) {
        free(pairs);
    }
    const struct strpack *p = strpack_get(text.string, text.length);
    ds_destroy(&text);
    return p;
}

const struct strpack *
mappack_get(const struct smap *m)
{
    size_t n = smap_count(m);
    const char **keys = xmalloc(2 * n * sizeof *keys + 1);
    const char **values = keys + n;
    const struct smap_node *node;
    size_t i = 0;
    SMAP_FOR_EACH (node, m) {
        keys[i] = node->key;
        values[i] = node->value;
        i++;
    }
    const struct strpack *p = mappack_get_pairs(keys, values, n);
    free(keys);
    return p;
}

/* Reads the string that begins at '*s' and ends at an unescaped 'end'
 * into 'out' (cleared first), unescaped, and moves '*s' past 'end'. */
static void
take(const char **s, char end, struct ds *out)
{
    ds_clear(out);
    const char *p = *s;
    for (;;) {
        size_t n = strcspn(p, MAP_SPECIALS);
        ds_put_buffer(out, p, n);
        p += n;
        if (!*p) {
            break;
        } else if (*p == MAP_ESC && p[1]) {
            ds_put_char(out, p[1]);
            p += 2;
        } else if (*p == end) {
            p++;
            break;
        } else {
            /* The other separator where 'end' was due: not a text
             * mappack_get() wrote. */
            p++;
        }
    }
    *s = p;
}

void
mappack_to_smap(const struct strpack *p, struct smap *m)
{
    if (!p) {
        return;
    }
    struct ds text = DS_EMPTY_INITIALIZER;
    struct ds key = DS_EMPTY_INITIALIZER;
    struct ds value = DS_EMPTY_INITIALIZER;
    ds_put_strpack(&text, p);
    const char *s = ds_cstr(&text);
    while (*s) {
        take(&s, MAP_KEY_END, &key);
        take(&s, MAP_PAIR_END, &value);
        smap_replace(m, ds_cstr(&key), ds_cstr(&value));
    }
    ds_destroy(&value);
    ds_destroy(&key);
    ds_destroy(&text);
}

const char *
mappack_find(const struct strpack *p, const char *key, struct ds *scratch)
{
    if (!p) {
        return NULL;
    }
    ds_clear(scratch);
    ds_put_strpack(scratch, p);
    const char *text = ds_cstr(scratch);
    size_t key_len = strlen(key);
    if (key_len && !strchr(text, MAP_ESC) && !strpbrk(key, MAP_SPECIALS)) {
        /* Nothing escaped: the key is where it is followed by MAP_KEY_END
         * and preceded by the start or a MAP_PAIR_END. */
        for (const char *s = text; (s = strstr(s, key)) != NULL; s++) {
            if (s[key_len] == MAP_KEY_END
                && (s == text || s[-1] == MAP_PAIR_END)) {
                const char *v = s + key_len + 1;
                size_t n = strcspn(v, "\x1e");
                memmove(scratch->string, v, n);
                scratch->string[n] = '\0';
                scratch->length = n;
                return ds_cstr(scratch);
            }
        }
        return NULL;
    }

    /* The general case. */
    char *copy = ds_steal_cstr(scratch);
    struct ds k = DS_EMPTY_INITIALIZER;
    const char *s = copy;
    const char *found = NULL;
    while (*s && !found) {
        take(&s, MAP_KEY_END, &k);
        take(&s, MAP_PAIR_END, scratch);
        if (!strcmp(ds_cstr(&k), key)) {
            found = ds_cstr(scratch);
        }
    }
    ds_destroy(&k);
    free(copy);
    return found;
}
