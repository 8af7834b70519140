/* Unit tests of northd's shared pools: datapath sets (northd/dpset.h) and
 * interned strings (lib/strpool.h); and of the record pools
 * (lib/objpool.h).
 *
 *   test-northd-pools dpset [SEED [OPS]]
 *   test-northd-pools strpool [SEED [OPS]]
 *   test-northd-pools strpack [SEED [OPS]]
 *   test-northd-pools objpool [SEED [OPS]]
 *
 * Each runs OPS random operations on a few dozen holders, each holding a
 * reference (or nothing), against a plain model of what each should hold,
 * and checks after every operation that a holder's object has the model's
 * content, that holders of equal content share one object, and that the
 * pool holds exactly the distinct contents held.  At the end every
 * reference is given back and the pool must be empty.  Prints one summary
 * line; exits with a message and status 1 at the first disagreement.
 *
 * "strpack" does the same for packed strings (lib/strpack.h), with texts
 * made of what packs (phrases, long numbers, UUIDs) and what does not
 * (short or zero-led numbers, numbers past 2**64, UUIDs in capitals or
 * cut short, bytes of 0x80 and above, quotes and control characters),
 * each checked to expand to itself; it also checks that ACL matches of
 * the shapes ovn-kubernetes and Neutron write take at most 60% of their
 * text once packed.
 *
 * "objpool" allocates and frees records at random among a few thousand
 * holders, each record filled with a pattern of its own, and checks that
 * no record's pattern changes while it is held (records do not overlap),
 * that records are aligned, that freed records are reused before the pool
 * grows, and that the counts the pool reports are the holders'. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "hash.h"
#include "northd/copp.h"
#include "northd/dpset.h"
#include "lib/objpool.h"
#include "lib/strpack.h"
#include "lib/strpool.h"
#include "openvswitch/dynamic-string.h"
#include "random.h"
#include "simap.h"
#include "util.h"

#define N_HOLDERS 40

static void
fail(const char *what, int op)
{
    fprintf(stderr, "operation %d: %s\n", op, what);
    exit(1);
}

/* Datapath sets. */

struct dp_holder {
    const struct dpset *set;        /* NULL: holds nothing. */
    unsigned long *model;           /* What 'set' should be. */
};

static size_t
count_bits(const unsigned long *map, size_t n_bits)
{
    return bitmap_count1(map, n_bits);
}

static void
random_map(unsigned long *map, size_t n_bits)
{
    /* Few distinct values, so that holders often share. */
    bitmap_set_multiple(map, 0, n_bits, false);
    int n = random_range(4);
    for (int i = 0; i < n; i++) {
        bitmap_set1(map, random_range(n_bits));
    }
}

static void
check_dpsets(struct dp_holder *h, size_t n_bits, int op)
{
    size_t n_longs = bitmap_n_longs(n_bits);
    size_t distinct = 0;
    for (int i = 0; i < N_HOLDERS; i++) {
        if (!h[i].set) {
            continue;
        }
        const struct dpset *s = h[i].set;
        if (s->n_longs != n_longs
            || memcmp(s->map, h[i].model, n_longs * sizeof *s->map)) {
            fail("a set's content differs from the model", op);
        }
        if (s->n != count_bits(h[i].model, n_bits)) {
            fail("a set's count differs from its bits", op);
        }
        bool first = true;
        for (int j = 0; j < i; j++) {
            if (!h[j].set) {
                continue;
            }
            bool same = bitmap_equal(h[j].model, h[i].model, n_bits);
            if (same != (h[j].set == s)) {
                fail(same ? "equal sets are not shared"
                     : "different sets share an object", op);
            }
            first &= !same;
        }
        distinct += first;
    }
    if (dpset_pool_count() != distinct) {
        fail("the pool does not hold exactly the distinct sets held", op);
    }
}

static void
test_dpset(int ops)
{
    const size_t n_bits = 130;      /* Three longs, the last one partial. */
    struct dp_holder h[N_HOLDERS];
    for (int i = 0; i < N_HOLDERS; i++) {
        h[i].set = NULL;
        h[i].model = bitmap_allocate(n_bits);
    }
    unsigned long *map = bitmap_allocate(n_bits);
    int n_shared = 0;

    for (int op = 0; op < ops; op++) {
        struct dp_holder *a = &h[random_range(N_HOLDERS)];
        struct dp_holder *b = &h[random_range(N_HOLDERS)];
        switch (random_range(5)) {
        case 0:                     /* Intern a new value. */
            dpset_unref(a->set);
            random_map(a->model, n_bits);
            a->set = dpset_intern(a->model, n_bits);
            break;
        case 1:                     /* Take another reference. */
            if (a != b) {
                dpset_unref(a->set);
                a->set = dpset_ref(b->set);
                bitmap_set_multiple(a->model, 0, n_bits, false);
                bitmap_or(a->model, b->model, n_bits);
                n_shared += b->set != NULL;
            }
            break;
        case 2:                     /* Add or remove one datapath. */
            if (a->set) {
                size_t dp = random_range(n_bits);
                bool value = random_range(2);
                a->set = dpset_with(a->set, dp, value);
                bitmap_set(a->model, dp, value);
            }
            break;
        case 3:                     /* Take some datapaths away. */
            if (a->set) {
                random_map(map, n_bits);
                if (random_range(4) == 0) {
                    bitmap_or(map, a->model, n_bits);   /* All of them. */
                }
                a->set = dpset_minus(a->set, map);
                for (size_t i = 0; i < n_bits; i++) {
                    if (bitmap_is_set(map, i)) {
                        bitmap_set0(a->model, i);
                    }
                }
                if (!a->set != bitmap_is_all_zeros(a->model, n_bits)) {
                    fail("dpset_minus() and emptiness disagree", op);
                }
            }
            break;
        case 4:                     /* Let go. */
            dpset_unref(a->set);
            a->set = NULL;
            bitmap_set_multiple(a->model, 0, n_bits, false);
            break;
        }
        check_dpsets(h, n_bits, op);
    }
    for (int i = 0; i < N_HOLDERS; i++) {
        dpset_unref(h[i].set);
        bitmap_free(h[i].model);
    }
    bitmap_free(map);
    if (dpset_pool_count() || dpset_pool_bytes()) {
        fail("the pool is not empty at the end", ops);
    }
    printf("dpset: %d operations, %d references shared, pool empty\n",
           ops, n_shared);
}

/* Strings. */

struct str_holder {
    const char *s;                  /* NULL: holds nothing. */
    char model[16];
};

static void
test_strpool(int ops)
{
    struct str_holder h[N_HOLDERS];
    memset(h, 0, sizeof h);
    int n_shared = 0;

    for (int op = 0; op < ops; op++) {
        struct str_holder *a = &h[random_range(N_HOLDERS)];
        int choice = random_range(3);
        if (choice == 0) {
            char buf[32];
            /* Some need escaping in JSON. */
            static const char *const tails[] = {
                "", "_ip4", "", "_ip4", "\"q", "\\", "\t",
            };
            snprintf(buf, sizeof buf, "s%"PRIu32"%s", random_range(25),
                     tails[random_range(ARRAY_SIZE(tails))]);
            strpool_put(a->s);
            if (random_range(2)) {
                a->s = strpool_get(buf);
            } else {
                /* Only the first bytes of a longer text. */
                char longer[40];
                snprintf(longer, sizeof longer, "%s(tail)", buf);
                a->s = strpool_get_len(longer, strlen(buf));
            }
            ovs_strlcpy(a->model, buf, sizeof a->model);
        } else if (choice == 1) {
            struct str_holder *b = &h[random_range(N_HOLDERS)];
            if (a != b && b->s) {
                strpool_put(a->s);
                a->s = strpool_get(b->s);
                memcpy(a->model, b->model, sizeof a->model);
                n_shared++;
            }
        } else {
            strpool_put(a->s);
            a->s = NULL;
        }

        size_t distinct = 0;
        for (int i = 0; i < N_HOLDERS; i++) {
            if (!h[i].s) {
                continue;
            }
            if (strcmp(h[i].s, h[i].model)) {
                fail("a string differs from the model", op);
            }
            if (strpool_hash(h[i].s) != hash_string(h[i].model, 0)) {
                fail("strpool_hash() is not hash_string()", op);
            }
            if (strpool_len(h[i].s) != strlen(h[i].model)) {
                fail("strpool_len() is not strlen()", op);
            }
            bool plain = true;
            for (const char *c = h[i].model; *c; c++) {
                plain &= *c != '"' && *c != '\\' && (unsigned char) *c >= 0x20;
            }
            if (strpool_is_json_plain(h[i].s) != plain) {
                fail("strpool_is_json_plain() is wrong", op);
            }
            bool first = true;
            for (int j = 0; j < i; j++) {
                if (h[j].s) {
                    bool same = !strcmp(h[j].model, h[i].model);
                    if (same != (h[j].s == h[i].s)) {
                        fail(same ? "equal strings are not shared"
                             : "different strings share a copy", op);
                    }
                    first &= !same;
                }
            }
            distinct += first;
        }
        if (strpool_count() != distinct) {
            fail("the pool does not hold exactly the strings held", op);
        }
    }
    for (int i = 0; i < N_HOLDERS; i++) {
        strpool_put(h[i].s);
    }
    if (strpool_count()) {
        fail("the pool is not empty at the end", ops);
    }
    if (strpool_get(NULL) || strpool_count()) {
        fail("strpool_get(NULL) took something", ops);
    }
    printf("strpool: %d operations, %d references shared, pool empty\n",
           ops, n_shared);
}

/* Packed strings. */

struct pack_holder {
    const struct strpack *p;        /* NULL: holds nothing. */
    char *model;
};

/* Appends a random piece of text to 's'. */
static void
random_piece(struct ds *s)
{
    static const char *const words[] = {
        " && ", "ip4.src == {$", "outport == @", "inport == @", "tcp",
        " && tcp && tcp.dst == ", "(arp || nd)", "ip4", "ip6.dst == ",
        ", $", "} && ", "pg_", "_ip4", "\"", "\\", "\t", "(", ")",
        "tcp.dst >= ", "eth.src == ", " ", "a", "x", "ip", "i", "ip4.",
        "\xc3\xa9", "\xff", "\x80", "{", "}",
    };
    static const char *const numbers[] = {
        "0", "7", "1024", "123456789", "1234567890", "0123456789012",
        "4181552541830563277", "12012305423157545417",
        "18446744073709551615", "18446744073709551616",
        "99999999999999999999", "123456789012345678901",
    };
    static const char *const uuids[] = {
        "7cd1686b_4eaf_4e59_9769_f53d3c0653ca",
        "7cd1686b-4eaf-4e59-9769-f53d3c0653ca",
        "7CD1686B_4EAF_4E59_9769_F53D3C0653CA",
        "7cd1686b_4eaf-4e59_9769_f53d3c0653ca",
        "7cd1686b_4eaf_4e59_9769_f53d3c0653c",
        "00000000_0000_0000_0000_000000000000",
    };
    switch (random_range(4)) {
    case 0:
        ds_put_cstr(s, words[random_range(ARRAY_SIZE(words))]);
        break;
    case 1:
        ds_put_cstr(s, numbers[random_range(ARRAY_SIZE(numbers))]);
        break;
    case 2:
        ds_put_cstr(s, uuids[random_range(ARRAY_SIZE(uuids))]);
        break;
    default:
        /* Any byte but a null one. */
        ds_put_char(s, 1 + random_range(255));
        break;
    }
}

static void
check_pack(const struct strpack *p, const char *model, int op)
{
    size_t n = strlen(model);
    struct ds text = DS_EMPTY_INITIALIZER;
    if (strcmp(strpack_cstr(p, &text), model)) {
        fail("a packed string does not expand to its text", op);
    }
    if (strpack_len(p) != n) {
        fail("strpack_len() is not the length of the text", op);
    }
    if (!strpack_equals(p, model, n)
        || (n && strpack_equals(p, model, n - 1))) {
        fail("strpack_equals() is wrong", op);
    }
    bool plain = true;
    for (const char *c = model; *c; c++) {
        plain &= *c != '"' && *c != '\\' && (unsigned char) *c >= 0x20;
    }
    if (strpack_is_json_plain(p) != plain) {
        fail("strpack_is_json_plain() is wrong", op);
    }
    ds_destroy(&text);
}

/* The size the pool gives 'texts' (which it must not hold yet), against
 * their length. */
static double
pack_ratio(const char *const *texts, size_t n)
{
    size_t before = strpack_bytes(), text_bytes = 0;
    const struct strpack **p = xmalloc(n * sizeof *p);
    for (size_t i = 0; i < n; i++) {
        p[i] = strpack_get(texts[i], strlen(texts[i]));
        check_pack(p[i], texts[i], -1);
        text_bytes += strlen(texts[i]);
    }
    double ratio = (double) (strpack_bytes() - before) / text_bytes;
    for (size_t i = 0; i < n; i++) {
        strpack_put(p[i]);
    }
    free(p);
    return ratio;
}

static void
test_strpack(int ops)
{
    struct pack_holder h[N_HOLDERS];
    memset(h, 0, sizeof h);
    int n_shared = 0;

    for (int op = 0; op < ops; op++) {
        struct pack_holder *a = &h[random_range(N_HOLDERS)];
        int choice = random_range(3);
        if (choice == 0) {
            /* Few distinct texts, so that equal ones meet. */
            struct ds s = DS_EMPTY_INITIALIZER;
            uint32_t seed = random_range(60);
            uint32_t saved = random_uint32();
            random_set_seed(seed + 1);
            int n = random_range(12);
            for (int i = 0; i < n; i++) {
                random_piece(&s);
            }
            random_set_seed(saved);
            strpack_put(a->p);
            a->p = strpack_get(ds_cstr(&s), s.length);
            free(a->model);
            a->model = ds_steal_cstr(&s);
        } else if (choice == 1) {
            struct pack_holder *b = &h[random_range(N_HOLDERS)];
            if (a != b && b->p) {
                strpack_put(a->p);
                a->p = strpack_ref(b->p);
                free(a->model);
                a->model = xstrdup(b->model);
                n_shared++;
            }
        } else {
            strpack_put(a->p);
            a->p = NULL;
            free(a->model);
            a->model = NULL;
        }

        size_t distinct = 0;
        for (int i = 0; i < N_HOLDERS; i++) {
            if (!h[i].p) {
                continue;
            }
            check_pack(h[i].p, h[i].model, op);
            bool first = true;
            for (int j = 0; j < i; j++) {
                if (h[j].p) {
                    bool same = !strcmp(h[j].model, h[i].model);
                    if (same != (h[j].p == h[i].p)) {
                        fail(same ? "equal texts are not shared"
                             : "different texts share a copy", op);
                    }
                    first &= !same;
                }
            }
            distinct += first;
        }
        if (strpack_count() != distinct) {
            fail("the pool does not hold exactly the texts held", op);
        }
    }
    for (int i = 0; i < N_HOLDERS; i++) {
        strpack_put(h[i].p);
        free(h[i].model);
    }
    if (strpack_count() || strpack_bytes()) {
        fail("the pool is not empty at the end", ops);
    }

    /* The empty text is NULL, and NULL is the empty text. */
    struct ds text = DS_EMPTY_INITIALIZER;
    if (strpack_get("x", 0) || strpack_len(NULL)
        || !strpack_is_json_plain(NULL) || !strpack_equals(NULL, "", 0)
        || strpack_equals(NULL, "x", 1) || *strpack_cstr(NULL, &text)) {
        fail("NULL is not the empty text", ops);
    }
    ds_destroy(&text);

    /* What it is for: ACL matches take at most 60% of their text, the
     * header of each packed string included (a pooled string takes its
     * text and a 28-byte header). */
    static const char *const k8s[] = {
        "ip4.src == {$a4181552541830563277, $a1353318423378051541} && "
        "outport == @a4724942486990247290 && tcp && tcp.dst == 1024",
        "ip4.dst == {$a17569677105212888909, $a984038500344837386} && "
        "inport == @a111382457356317706 && tcp && tcp.dst == 1043",
        "outport == @a2607809996451748528 && (arp || nd)",
    };
    static const char *const neutron[] = {
        "outport == @pg_a516c874_b00c_4046_bccc_6aa67012192e && ip4 && "
        "ip4.src == $pg_1a6f9365_06b0_4a21_baec_1fcf3aaeb5ed_ip4 && udp && "
        "udp.dst >= 1053 && udp.dst <= 1063",
        "inport == @pg_b207d668_bdad_47e9_a370_a05a5b273e7c && ip4 && "
        "ip4.dst == 0.0.0.0/0 && udp && udp.dst == 1064",
        "outport == @pg_0fd2ec9a_ac61_4318_bfc7_6d8ca0aee32f && ip4 && "
        "ip4.src == 0.0.0.0/0 && icmp4 && icmp4.type == 0 && "
        "icmp4.code == 0",
    };
    double rk = pack_ratio(k8s, ARRAY_SIZE(k8s));
    double rn = pack_ratio(neutron, ARRAY_SIZE(neutron));
    if (rk > 0.6 || rn > 0.6) {
        fail("ACL matches take more than 60% of their text", ops);
    }
    printf("strpack: %d operations, %d references shared, pool empty; "
           "matches pack to %.0f%% (k8s) and %.0f%% (Neutron)\n",
           ops, n_shared, rk * 100, rn * 100);
}

/* Records. */

struct test_record {
    uint64_t words[5];              /* 40 bytes: not a power of 2. */
};

#define N_RECORD_HOLDERS 3000

static void
fill_record(struct test_record *r, uint64_t tag)
{
    for (size_t i = 0; i < ARRAY_SIZE(r->words); i++) {
        r->words[i] = tag * 0x9e3779b97f4a7c15ULL + i;
    }
}

static bool
record_intact(const struct test_record *r, uint64_t tag)
{
    for (size_t i = 0; i < ARRAY_SIZE(r->words); i++) {
        if (r->words[i] != tag * 0x9e3779b97f4a7c15ULL + i) {
            return false;
        }
    }
    return true;
}

static void
test_objpool(int ops)
{
    static struct objpool pool = OBJPOOL_INITIALIZER(struct test_record,
                                                     "test-records");
    static struct test_record *held[N_RECORD_HOLDERS];
    static uint64_t tags[N_RECORD_HOLDERS];
    struct test_record *last_freed = NULL;
    size_t n_held = 0, n_reused = 0, max_held = 0;

    for (int op = 0; op < ops; op++) {
        size_t i = random_range(N_RECORD_HOLDERS);
        /* Grow for the first half, shrink for the second. */
        bool grow = random_range(100) < (op < ops / 2 ? 70 : 30);
        if (!held[i] && grow) {
            size_t bytes = pool.bytes;
            held[i] = (random_range(2) ? objpool_alloc(&pool)
                       : objpool_zalloc(&pool));
            if ((uintptr_t) held[i] % 8) {
                fail("a record is not aligned", op);
            }
            if (last_freed) {
                if (held[i] != last_freed || pool.bytes != bytes) {
                    fail("a freed record was not reused first", op);
                }
                n_reused++;
                last_freed = NULL;
            }
            tags[i] = op + 1;
            fill_record(held[i], tags[i]);
            n_held++;
            max_held = MAX(max_held, n_held);
        } else if (held[i] && !grow) {
            if (!record_intact(held[i], tags[i])) {
                fail("a record changed while held", op);
            }
            objpool_free(&pool, held[i]);
            last_freed = held[i];
            held[i] = NULL;
            n_held--;
        }
        if (pool.n_live != n_held) {
            fail("the pool's count of live records is wrong", op);
        }
        if (op % 1000 == 999) {
            for (size_t j = 0; j < N_RECORD_HOLDERS; j++) {
                if (held[j] && !record_intact(held[j], tags[j])) {
                    fail("a record changed while held", op);
                }
            }
        }
    }

    struct simap usage = SIMAP_INITIALIZER(&usage);
    objpool_get_memory_usage(&usage);
    if (simap_get(&usage, "test-records") != n_held
        || simap_get(&usage, "test-records-kB") != pool.bytes / 1024) {
        fail("objpool_get_memory_usage() disagrees", ops);
    }
    simap_destroy(&usage);
    /* The blocks hold what the most records held at once needed, and less
     * than twice that (they double), plus the smallest block. */
    size_t need = max_held * sizeof(struct test_record);
    if (pool.bytes < need || pool.bytes > 2 * need + 4096) {
        fail("the blocks are not sized to the records held", ops);
    }
    for (size_t j = 0; j < N_RECORD_HOLDERS; j++) {
        objpool_free(&pool, held[j]);
        held[j] = NULL;
    }
    objpool_free(&pool, NULL);
    if (pool.n_live) {
        fail("records are left at the end", ops);
    }
    printf("objpool: %d operations, at most %"PRIuSIZE" records held, "
           "%"PRIuSIZE" reused, none left\n", ops, max_held, n_reused);
}

/* Reads logical flow actions, one a line, and prints for each the Copp
 * protocol northd/copp-classify.c gives it ("none" if none). */
static void
test_copp_classify(void)
{
    struct ds line = DS_EMPTY_INITIALIZER;
    while (!ds_get_line(&line, stdin)) {
        puts(copp_proto_name(copp_classify(ds_cstr(&line))));
    }
    ds_destroy(&line);
}

int
main(int argc, char *argv[])
{
    if (argc == 2 && !strcmp(argv[1], "copp-classify")) {
        test_copp_classify();
        return 0;
    }
    if (argc < 2 || (strcmp(argv[1], "dpset") && strcmp(argv[1], "strpool")
                     && strcmp(argv[1], "strpack")
                     && strcmp(argv[1], "objpool"))) {
        fprintf(stderr,
                "usage: %s dpset|strpool|strpack|objpool [SEED [OPS]]\n"
                "       %s copp-classify < ACTIONS\n",
                argv[0], argv[0]);
        return 2;
    }
    random_set_seed(argc > 2 ? atoi(argv[2]) : 1);
    int ops = argc > 3 ? atoi(argv[3]) : 20000;
    if (!strcmp(argv[1], "dpset")) {
        test_dpset(ops);
    } else if (!strcmp(argv[1], "objpool")) {
        test_objpool(ops);
    } else if (!strcmp(argv[1], "strpack")) {
        test_strpack(ops);
    } else {
        test_strpool(ops);
    }
    return 0;
}
