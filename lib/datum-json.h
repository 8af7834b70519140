/* Reading OVSDB datums as they come in JSON (RFC 7047, 5.1): an atom,
 * ["uuid", "..."], ["set", [...]] or ["map", [[k, v], ...]].
 *
 * For the tools and tests that read a database once as JSON (our
 * ovn-trace, test-ovn-lang) rather than through a replica. */
#ifndef DATUM_JSON_H
#define DATUM_JSON_H 1

struct json;
struct svec;

/* Appends the atoms of datum 'd' (NULL: none) to 'out' as strings:
 * strings as they are, integers in decimal, UUIDs (and named UUIDs) as
 * their text. */
void datum_json_atoms(const struct json *d, struct svec *out);

/* The value of string key 'key' in map datum 'd' (NULL: none), or NULL. */
const char *datum_json_map_get(const struct json *d, const char *key);

#endif /* lib/datum-json.h */
