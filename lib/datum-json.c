/* OVSDB datums in JSON; see datum-json.h. */
#include <config.h>
#include "lib/datum-json.h"

#include <string.h>

#include "openvswitch/json.h"
#include "svec.h"
#include "util.h"

void
datum_json_atoms(const struct json *d, struct svec *out)
{
    if (!d) {
        return;
    } else if (d->type == JSON_STRING) {
        svec_add(out, json_string(d));
    } else if (d->type == JSON_INTEGER) {
        svec_add_nocopy(out, xasprintf("%lld", d->integer));
    } else if (d->type == JSON_ARRAY && d->array.n == 2
               && d->array.elems[0]->type == JSON_STRING) {
        const char *kind = json_string(d->array.elems[0]);
        const struct json *v = d->array.elems[1];
        if ((!strcmp(kind, "uuid") || !strcmp(kind, "named-uuid"))
            && v->type == JSON_STRING) {
            svec_add(out, json_string(v));
        } else if (!strcmp(kind, "set") && v->type == JSON_ARRAY) {
            for (size_t i = 0; i < v->array.n; i++) {
                datum_json_atoms(v->array.elems[i], out);
            }
        }
    }
}

const char *
datum_json_map_get(const struct json *d, const char *key)
{
    if (!d || d->type != JSON_ARRAY || d->array.n != 2
        || d->array.elems[1]->type != JSON_ARRAY) {
        return NULL;
    }
    const struct json_array *pairs = &d->array.elems[1]->array;
    for (size_t i = 0; i < pairs->n; i++) {
        const struct json *kv = pairs->elems[i];
        if (kv->type == JSON_ARRAY && kv->array.n == 2
            && kv->array.elems[0]->type == JSON_STRING
            && kv->array.elems[1]->type == JSON_STRING
            && !strcmp(json_string(kv->array.elems[0]), key)) {
            return json_string(kv->array.elems[1]);
        }
    }
    return NULL;
}
