/* Finding the characters that matter in JSON text, 16 or 8 bytes at a
 * time.
 *
 * Most of a JSON-RPC message is string contents, which end only at '"'
 * and have to be looked at only for '\\' (and, when writing, for control
 * characters).  Testing 16 bytes with SSE2 (every x86-64 has it), or a
 * 64-bit word elsewhere, for those bytes at once is several times faster
 * than a loop over bytes. */
#ifndef LIB_JSCAN_H
#define LIB_JSCAN_H 1

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define JSCAN_ONES UINT64_C(0x0101010101010101)
#define JSCAN_HIGHS UINT64_C(0x8080808080808080)

/* Bytes of 'v' equal to 'c' have their high bit set in the result (the
 * lowest such byte exactly; bytes above it may be false positives). */
static inline uint64_t
jscan_eq(uint64_t v, uint8_t c)
{
    uint64_t x = v ^ (JSCAN_ONES * c);
    return (x - JSCAN_ONES) & ~x & JSCAN_HIGHS;
}

/* The same for bytes below 'n' (n <= 128). */
static inline uint64_t
jscan_lt(uint64_t v, uint8_t n)
{
    return (v - JSCAN_ONES * n) & ~v & JSCAN_HIGHS;
}

static inline size_t
jscan_first(uint64_t mask)
{
    /* Words are loaded little-endian (x86, arm64): the lowest byte comes
     * first. */
    return __builtin_ctzll(mask) >> 3;
}

static inline uint64_t
jscan_load(const char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

#ifdef __SSE2__
/* The bytes of 'v' that are '"' or '\\', as a _mm_cmpeq_epi8() mask. */
static inline __m128i
jscan_sse_quote_or_escape(__m128i v)
{
    return _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                        _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
}
#endif

#ifdef __SSE2__
/* The bytes of the 16 at 'p' that can open or close something in a JSON
 * container: '"', '\\', '[', ']', '{' and '}', as a bit mask (bit i for
 * p[i]).  Setting bit 0x20 folds '[' ']' '\\' onto '{' '}' '|', so four
 * comparisons do: '|' and the control character 0x02 come out too, and
 * callers look at the byte itself. */
static inline unsigned int
jscan_sse_structure(const char *p)
{
    __m128i v = _mm_or_si128(_mm_loadu_si128((const __m128i *) p),
                             _mm_set1_epi8(0x20));
    __m128i m = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                             _mm_cmpeq_epi8(v, _mm_set1_epi8('{')));
    m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('|')));
    m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('}')));
    return _mm_movemask_epi8(m);
}
#endif

/* Returns the first of 'p'...'end' that is '"' or '\\', or 'end'. */
static inline const char *
jscan_quote_or_escape(const char *p, const char *end)
{
#ifdef __SSE2__
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *) p);
        int m = _mm_movemask_epi8(jscan_sse_quote_or_escape(v));
        if (m) {
            return p + __builtin_ctz(m);
        }
        p += 16;
    }
#endif
    while (end - p >= 8) {
        uint64_t v = jscan_load(p);
        uint64_t m = jscan_eq(v, '"') | jscan_eq(v, '\\');
        if (m) {
            return p + jscan_first(m);
        }
        p += 8;
    }
    while (p < end && *p != '"' && *p != '\\') {
        p++;
    }
    return p;
}

/* Returns the length of the longest prefix of the 'n' bytes at 's' that a
 * JSON string may hold as is (no '"', '\\' or control character). */
static inline size_t
jscan_plain_prefix(const char *s, size_t n)
{
    size_t i = 0;
#ifdef __SSE2__
    const __m128i control = _mm_set1_epi8(0x1f);
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *) (s + i));
        /* max(v, 0x1f) == 0x1f, unsigned, for bytes 0x00...0x1f only. */
        __m128i ctl = _mm_cmpeq_epi8(_mm_max_epu8(v, control), control);
        int m = _mm_movemask_epi8(_mm_or_si128(ctl,
                                               jscan_sse_quote_or_escape(v)));
        if (m) {
            return i + __builtin_ctz(m);
        }
    }
#endif
    for (; i + 8 <= n; i += 8) {
        uint64_t v = jscan_load(s + i);
        uint64_t m = jscan_lt(v, 0x20) | jscan_eq(v, '"') | jscan_eq(v, '\\');
        if (m) {
            return i + jscan_first(m);
        }
    }
    for (; i < n; i++) {
        unsigned char c = s[i];
        if (c < 0x20 || c == '"' || c == '\\') {
            break;
        }
    }
    return i;
}

#endif /* lib/jscan.h */
