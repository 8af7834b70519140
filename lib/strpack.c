/* Packed strings; see strpack.h. */
#include <config.h>
#include "lib/strpack.h"

#include <string.h>

#include "lib/jscan.h"
#include "lib/objpool.h"
#include "lib/text-hash.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/hmap.h"
#include "util.h"

/* The packed form is a sequence of codes:
 *
 *   0x01-0x7f        that ASCII character;
 *   0x80-0xef        phrase 'code - 0x80' of 'phrases' below;
 *   0xf0 B           byte B (0x80 or above: UTF-8 and the like);
 *   0xf1 + 8 bytes   a decimal number of 10 to 20 digits, without a
 *                    leading zero, as a little-endian uint64_t;
 *   0xf2 + 16 bytes  a UUID spelled with '_' (Neutron's port group names:
 *                    "7cd1686b_4eaf_4e59_9769_f53d3c0653ca"), lowercase;
 *   0xf3 + 16 bytes  the same with '-'.
 *
 * and a 0x00 code ends it (the text never has a null byte), so that its
 * length need not be kept.
 *
 * Packing is greedy from the left: a UUID if one starts here, else a
 * number if a run of digits starts here, else the longest phrase, else the
 * byte itself.  That makes it deterministic, which interning needs. */
enum {
    CODE_END = 0x00,
    CODE_PHRASE = 0x80,
    CODE_BYTE = 0xf0,
    CODE_NUMBER = 0xf1,
    CODE_UUID_UNDERSCORE = 0xf2,
    CODE_UUID_DASH = 0xf3,
};
#define MAX_PHRASES (CODE_BYTE - CODE_PHRASE)

/* What ACL matches are made of, in the NBs ovn-kubernetes and Neutron
 * write and in OVN's documentation, and the keys Neutron puts on every
 * port. */
static const char *const phrases[] = {
    " && ", " || ", " == ", " != ", " >= ", " <= ", ", ", "{$", ", $",
    "} && ",
    "outport == @", "inport == @", "outport == \"", "inport == \"",
    "outport == ", "inport == ", "outport", "inport",
    "ip4.src == {$", "ip4.dst == {$", "ip6.src == {$", "ip6.dst == {$",
    "ip4.src == $", "ip4.dst == $", "ip6.src == $", "ip6.dst == $",
    "ip4.src == ", "ip4.dst == ", "ip6.src == ", "ip6.dst == ",
    "ip4.src", "ip4.dst", "ip6.src", "ip6.dst",
    " && ip4 && ", " && ip6 && ", " && ip4", " && ip6",
    " && tcp && tcp.dst == ", " && udp && udp.dst == ",
    " && sctp && sctp.dst == ", " && tcp && tcp.dst >= ",
    " && udp && udp.dst >= ", " && sctp && sctp.dst >= ",
    " && tcp.dst <= ", " && udp.dst <= ", " && sctp.dst <= ",
    "tcp.dst == ", "udp.dst == ", "sctp.dst == ",
    "tcp.src == ", "udp.src == ", "sctp.src == ",
    "tcp.dst", "udp.dst", "sctp.dst", "tcp.src", "udp.src", "sctp.src",
    "tcp.flags",
    " && icmp4 && icmp4.type == ", " && icmp6 && icmp6.type == ",
    " && icmp4.code == ", " && icmp6.code == ",
    "icmp4.type", "icmp4.code", "icmp6.type", "icmp6.code",
    "icmp4", "icmp6", "icmp",
    "ip.proto == ", "ip.proto", "ip4.mcast", "ip6.mcast", "ip.ttl",
    "ip4.frag", "(arp || nd)", "arp", "nd.target", "nd",
    "eth.src == ", "eth.dst == ", "eth.src", "eth.dst", "eth.type",
    "vlan.tci", "ct.est", "ct.rel", "ct.new", "ct.inv", "ct.trk",
    "ct_label", "ct_mark",
    "tcp", "udp", "sctp", "ip4", "ip6", "ip",
    "0.0.0.0/0", "::/0", "_ip4", "_ip6", "pg_", "is_chassis_resident(\"",
    /* And Neutron's external_ids of ports (lib/mappack.h). */
    "neutron:", "neutron-", "device_", "network", "compute:nova",
};
BUILD_ASSERT_DECL(ARRAY_SIZE(phrases) <= MAX_PHRASES);

static size_t phrase_lens[ARRAY_SIZE(phrases)];

/* The value of each lowercase hex digit, 0xff for other bytes. */
static uint8_t hex_values[256];

/* Where the 16 bytes of a UUID are in its 36 characters. */
static const uint8_t uuid_offsets[16] = {
    0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34,
};

/* Each byte as two lowercase hex digits. */
static char hex_pairs[256][2];

static void
hex_pairs_init(void)
{
    for (int i = 0; i < 256; i++) {
        hex_pairs[i][0] = "0123456789abcdef"[i >> 4];
        hex_pairs[i][1] = "0123456789abcdef"[i & 15];
    }
}

/* The phrases as a trie, for the longest one that begins at a place in
 * one walk: a node's children are a list of siblings, each for one byte.
 * Node 0 is the root. */
struct trie_node {
    uint16_t child;                 /* First child, 0 if none. */
    uint16_t sibling;               /* Next sibling, 0 if none. */
    uint8_t c;                      /* The byte that leads here. */
    uint8_t phrase;                 /* The phrase that ends here, or
                                     * UINT8_MAX. */
};
static struct trie_node *trie;
static size_t n_trie;

/* The root's children by byte, for the first step without a walk. */
static uint16_t trie_first[256];

static void
tables_init(void)
{
    static bool inited;
    if (inited) {
        return;
    }
    inited = true;

    hex_pairs_init();
    memset(hex_values, 0xff, sizeof hex_values);
    for (int i = 0; i < 16; i++) {
        hex_values[(uint8_t) "0123456789abcdef"[i]] = i;
    }

    size_t total = 1;
    for (size_t i = 0; i < ARRAY_SIZE(phrases); i++) {
        phrase_lens[i] = strlen(phrases[i]);
        ovs_assert(phrase_lens[i] > 1);
        total += phrase_lens[i];
    }
    ovs_assert(total <= UINT16_MAX);
    trie = xcalloc(total, sizeof *trie);
    trie[0].phrase = UINT8_MAX;
    n_trie = 1;
    for (size_t i = 0; i < ARRAY_SIZE(phrases); i++) {
        size_t node = 0;
        for (const char *p = phrases[i]; *p; p++) {
            size_t k = trie[node].child;
            while (k && trie[k].c != (uint8_t) *p) {
                k = trie[k].sibling;
            }
            if (!k) {
                k = n_trie++;
                trie[k].c = *p;
                trie[k].phrase = UINT8_MAX;
                trie[k].sibling = trie[node].child;
                trie[node].child = k;
                if (!node) {
                    trie_first[(uint8_t) *p] = k;
                }
            }
            node = k;
        }
        ovs_assert(trie[node].phrase == UINT8_MAX);   /* No duplicates. */
        trie[node].phrase = i;
    }
}

/* The longest phrase that the 'n' bytes at 's' begin with, or -1. */
static int
longest_phrase(const char *s, size_t n)
{
    size_t node = trie_first[(uint8_t) s[0]];
    int best = -1;
    for (size_t i = 1; node; i++) {
        if (trie[node].phrase != UINT8_MAX) {
            best = trie[node].phrase;
        }
        if (i >= n) {
            break;
        }
        size_t k = trie[node].child;
        while (k && trie[k].c != (uint8_t) s[i]) {
            k = trie[k].sibling;
        }
        node = k;
    }
    return best;
}

/* Packing. */

static inline bool
is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* If the 36 bytes at 's' are a lowercase UUID with 'sep' between its
 * groups, puts its 16 bytes in 'out' and returns true. */
static bool
parse_uuid(const char *s, char sep, uint8_t out[16])
{
    if (s[13] != sep || s[18] != sep || s[23] != sep) {
        return false;
    }
    uint8_t bad = 0;
    for (size_t k = 0; k < 16; k++) {
        uint8_t hi = hex_values[(uint8_t) s[uuid_offsets[k]]];
        uint8_t lo = hex_values[(uint8_t) s[uuid_offsets[k] + 1]];
        bad |= hi | lo;
        out[k] = (hi << 4) | lo;
    }
    return !(bad & 0xf0);
}

/* If a number to pack begins at 's' (of 'n' bytes left), puts its value
 * in '*v' and returns its length in digits, else returns 0. */
static size_t
parse_number(const char *s, size_t n, uint64_t *v)
{
    if (s[0] == '0') {
        return 0;
    }
    size_t len = 0;
    while (len < n && is_digit(s[len])) {
        len++;
    }
    if (len < 10 || len > 20
        || (len == 20 && memcmp(s, "18446744073709551615", 20) > 0)) {
        return 0;
    }
    uint64_t x = 0;
    for (size_t i = 0; i < len; i++) {
        x = x * 10 + (s[i] - '0');
    }
    *v = x;
    return len;
}

/* Packs the 'n' bytes at 's' into 'out', which has room for 2 * n + 1
 * bytes (a byte of 0x80 or above takes two), and ends it with CODE_END.
 * Returns the packed length, CODE_END included. */
static size_t
pack(const char *s, size_t n, uint8_t *out)
{
    uint8_t *p = out;
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        size_t left = n - i;

        if (left >= 36 && hex_values[c] != 0xff
            && (s[i + 8] == '_' || s[i + 8] == '-')
            && parse_uuid(s + i, s[i + 8], p + 1)) {
            *p = s[i + 8] == '_' ? CODE_UUID_UNDERSCORE : CODE_UUID_DASH;
            p += 17;
            i += 36;
            continue;
        }
        if (is_digit(c) && (!i || !is_digit(s[i - 1]))) {
            uint64_t v;
            size_t len = parse_number(s + i, left, &v);
            if (len) {
                *p++ = CODE_NUMBER;
                for (int b = 0; b < 8; b++) {
                    *p++ = v >> (8 * b);
                }
                i += len;
                continue;
            }
        }
        int k = longest_phrase(s + i, left);
        if (k >= 0) {
            *p++ = CODE_PHRASE + k;
            i += phrase_lens[k];
            continue;
        }
        if (c >= 0x80) {
            *p++ = CODE_BYTE;
        }
        *p++ = c;
        i++;
    }
    *p++ = CODE_END;
    return p - out;
}

/* Expanding. */


/* Writes 'v' in decimal to 'out' and returns the end.  Two digits per
 * division, and 32-bit divisions for most of them: a packed string of
 * ovn-kubernetes' holds three 20-digit numbers. */
static char *
put_decimal(char *out, uint64_t v)
{
    char buf[20];
    char *p = buf + sizeof buf;
    while (v > UINT32_MAX) {
        uint32_t low = v % 100000000;
        v /= 100000000;
        for (int i = 0; i < 4; i++) {
            uint32_t two = low % 100;
            low /= 100;
            *--p = '0' + two % 10;
            *--p = '0' + two / 10;
        }
    }
    uint32_t w = v;
    while (w >= 100) {
        uint32_t two = w % 100;
        w /= 100;
        *--p = '0' + two % 10;
        *--p = '0' + two / 10;
    }
    if (w >= 10) {
        *--p = '0' + w % 10;
        *--p = '0' + w / 10;
    } else {
        *--p = '0' + w;
    }
    size_t n = buf + sizeof buf - p;
    memcpy(out, p, n);
    return out + n;
}

/* Writes the text packed at 'in' to 'out' (which has room for it) and
 * returns the end of what it wrote. */
static char *
unpack(const uint8_t *in, char *out)
{
    for (;;) {
        uint8_t c = *in++;
        if (c == CODE_END) {
            return out;
        } else if (c < CODE_PHRASE) {
            *out++ = c;
        } else if (c < CODE_BYTE) {
            size_t k = c - CODE_PHRASE;
            memcpy(out, phrases[k], phrase_lens[k]);
            out += phrase_lens[k];
        } else if (c == CODE_BYTE) {
            *out++ = *in++;
        } else if (c == CODE_NUMBER) {
            uint64_t v = 0;
            for (int b = 0; b < 8; b++) {
                v |= (uint64_t) in[b] << (8 * b);
            }
            in += 8;
            out = put_decimal(out, v);
        } else {
            char sep = c == CODE_UUID_UNDERSCORE ? '_' : '-';
            for (size_t k = 0; k < 16; k++) {
                memcpy(out + uuid_offsets[k], hex_pairs[in[k]], 2);
            }
            out[8] = out[13] = out[18] = out[23] = sep;
            out += 36;
            in += 16;
        }
    }
}

/* The length of what is packed at 'in', CODE_END included. */
static size_t
packed_len(const uint8_t *in)
{
    const uint8_t *p = in;
    for (;;) {
        uint8_t c = *p++;
        if (c == CODE_END) {
            return p - in;
        }
        p += (c == CODE_BYTE ? 1
              : c == CODE_NUMBER ? 8
              : c >= CODE_UUID_UNDERSCORE ? 16
              : 0);
    }
}

/* The pool. */

struct strpack {
    struct hmap_node node;          /* In 'pool', by the packed bytes. */
    uint32_t refcount;
    uint32_t len : 31;              /* Of the text. */
    uint32_t json_plain : 1;        /* See strpack_is_json_plain(). */
    uint8_t bytes[];                /* Ended by CODE_END. */
};

static struct hmap pool = HMAP_INITIALIZER(&pool);
static size_t pool_bytes;

static size_t
strpack_size(size_t n)
{
    return offsetof(struct strpack, bytes) + n;
}

const struct strpack *
strpack_get(const char *s, size_t n)
{
    tables_init();
    ovs_assert(n < (1u << 31));
    if (!n) {
        return NULL;
    }

    /* Most matches pack into a third of their text. */
    uint8_t buf[512];
    uint8_t *packed = 2 * n + 1 <= sizeof buf ? buf : xmalloc(2 * n + 1);
    size_t pn = pack(s, n, packed);

    uint32_t hash = text_hash_fold(text_hash(packed, pn, pn));
    struct strpack *p;
    HMAP_FOR_EACH_WITH_HASH (p, node, hash, &pool) {
        if (p->len == n && packed_len(p->bytes) == pn
            && !memcmp(p->bytes, packed, pn)) {
            p->refcount++;
            goto done;
        }
    }
    size_t size = strpack_size(pn);
    p = objpool_sized_alloc(size);
    p->refcount = 1;
    p->len = n;
    p->json_plain = jscan_plain_prefix(s, n) == n;
    memcpy(p->bytes, packed, pn);
    hmap_insert(&pool, &p->node, hash);
    pool_bytes += size;

done:
    if (packed != buf) {
        free(packed);
    }
    return p;
}

const struct strpack *
strpack_ref(const struct strpack *p_)
{
    struct strpack *p = CONST_CAST(struct strpack *, p_);
    if (p) {
        ovs_assert(p->refcount < UINT32_MAX);
        p->refcount++;
    }
    return p;
}

void
strpack_put(const struct strpack *p_)
{
    struct strpack *p = CONST_CAST(struct strpack *, p_);
    if (p && !--p->refcount) {
        size_t size = strpack_size(packed_len(p->bytes));
        hmap_remove(&pool, &p->node);
        pool_bytes -= size;
        objpool_sized_free(p, size);
    }
}

size_t
strpack_len(const struct strpack *p)
{
    return p ? p->len : 0;
}

bool
strpack_is_json_plain(const struct strpack *p)
{
    return !p || p->json_plain;
}

void
strpack_expand(const struct strpack *p, char *dst)
{
    char *end = p ? unpack(p->bytes, dst) : dst;
    ovs_assert(end == dst + strpack_len(p));
    *end = '\0';
}

void
ds_put_strpack(struct ds *ds, const struct strpack *p)
{
    size_t len = strpack_len(p);
    ds_reserve(ds, ds->length + len);
    strpack_expand(p, ds->string + ds->length);
    ds->length += len;
}

const char *
strpack_cstr(const struct strpack *p, struct ds *scratch)
{
    ds_clear(scratch);
    ds_put_strpack(scratch, p);
    return ds_cstr(scratch);
}

bool
strpack_equals(const struct strpack *p, const char *s, size_t n)
{
    if (strpack_len(p) != n) {
        return false;
    } else if (!n) {
        return true;
    }
    char buf[512];
    char *text = n + 1 <= sizeof buf ? buf : xmalloc(n + 1);
    strpack_expand(p, text);
    bool eq = !memcmp(text, s, n);
    if (text != buf) {
        free(text);
    }
    return eq;
}

size_t
strpack_count(void)
{
    return hmap_count(&pool);
}

size_t
strpack_bytes(void)
{
    return pool_bytes;
}
