/* Packed strings: interned, counted and compressed copies of the text
 * northd keeps a million of and reads a few times each, ACL matches.
 *
 * At a million ACLs their matches are the biggest thing northd holds: 114
 * bytes each on average in an ovn-kubernetes-like NB, shared by the NB
 * row and the ACL's 2-3 logical flows.  Most of that text is a handful of
 * phrases ("ip4.src == {$", " && tcp && tcp.dst == ") and the names of
 * port groups and address sets, which are long decimal numbers
 * (ovn-kubernetes' "a4181552541830563277") or UUIDs (Neutron's
 * "pg_7cd1686b_4eaf_4e59_9769_f53d3c0653ca").  A packed string stores the
 * phrases as one byte each and such numbers and UUIDs in binary: about 40
 * bytes for those 114.
 *
 * Packing is deterministic, so equal text gives equal packed bytes, and
 * like lib/strpool.h the pool keeps one counted copy of each: two holders
 * of the same text hold the same pointer.  Reading the text means
 * expanding it (strpack_expand(), ds_put_strpack()), which costs about as
 * much as copying it.  Any text packs, whatever bytes it holds (but for a
 * null byte); what is not a phrase, a number or a UUID is kept as it is.
 * Not thread-safe, like the rest of northd. */

#ifndef LIB_STRPACK_H
#define LIB_STRPACK_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ds;
struct strpack;

/* Returns the pool's packed copy of the 'n' bytes at 's' (no null byte
 * among them), taking a reference.  The empty text is NULL, which every
 * function here takes as the empty text. */
const struct strpack *strpack_get(const char *s, size_t n);

/* Takes another reference to 'p' (NULL: nothing).  Returns 'p'. */
const struct strpack *strpack_ref(const struct strpack *p);

/* Gives back a reference ('p' may be NULL). */
void strpack_put(const struct strpack *p);

/* The length of the text 'p' stands for. */
size_t strpack_len(const struct strpack *p);

/* True if the text can be written in a JSON string as it is (no '"', '\\'
 * or control character). */
bool strpack_is_json_plain(const struct strpack *p);

/* Writes the text, strpack_len() bytes and then a null byte, to 'dst'. */
void strpack_expand(const struct strpack *p, char *dst);

/* Appends the text to 'ds'. */
void ds_put_strpack(struct ds *ds, const struct strpack *p);

/* The text of 'p' as a string in 'scratch' (cleared first). */
const char *strpack_cstr(const struct strpack *p, struct ds *scratch);

/* True if 'p' stands for the 'n' bytes at 's'. */
bool strpack_equals(const struct strpack *p, const char *s, size_t n);

/* The distinct packed strings held, and the bytes they take, for memory
 * reports. */
size_t strpack_count(void);
size_t strpack_bytes(void);

#endif /* lib/strpack.h */
