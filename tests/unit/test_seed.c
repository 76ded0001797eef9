/* Unit tests for src/hsp/seed.c: seed shapes, k-mer values, query seeds and the target seed table.
 *
 * Expected values come from kegalign-hsp-spec.md §3.1-3.3 and kegalign-v03-delta.md §2
 * (RULES.md "custom seed patterns"), either worked out by hand below or produced by a small
 * brute-force model written in this file from the spec text (never by calling the code under
 * test twice).  Prints "ok N - ..." / "not ok N - ..." lines and a summary; exits non-zero on
 * any failure. */
#include "seed.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define HZ_TEST_SEED 0x9E3779B97F4A7C15ULL
#include "tap.h"



/* ---- independent model of spec §3.1 ---------------------------------------------------- */

/* A=0 C=1 G=2 T=3 (upper case only), else -1 */
static int ref_code(uint8_t b)
{
    switch (b) {
    case 'A': return 0;
    case 'C': return 1;
    case 'G': return 2;
    case 'T': return 3;
    default: return -1;
    }
}

/* model shape: care offsets from a normalised pattern string */
typedef struct { int W, K, care[64]; } mshape;

static void mshape_from(const char *pat, mshape *m)
{
    m->W = (int)strlen(pat);
    m->K = 0;
    for (int i = 0; i < m->W; i++)
        if (pat[i] == '1' || pat[i] == 'T') m->care[m->K++] = i;
}

/* -1 when invalid: every byte of the span (care and don't-care) must be upper-case ACGT */
static int64_t ref_kmer(const uint8_t *S, uint64_t p, const mshape *m)
{
    for (int i = 0; i < m->W; i++)
        if (ref_code(S[p + i]) < 0) return -1;
    uint64_t v = 0;
    for (int i = 0; i < m->K; i++) v = v * 4 + (uint64_t)ref_code(S[p + m->care[i]]);
    return (int64_t)v;
}

/* ---- hz_shape_parse --------------------------------------------------------------------- */

static void test_shape_parse(void)
{
    hz_shape sh;
    char err[256];
    int rc;

    rc = hz_shape_parse("12of19", 1, &sh, err, sizeof err);
    check(rc == 0, "12of19 parses");
    check(strcmp(sh.pattern, "TTT0T00TT00T0T0TTTT") == 0, "12of19 pattern TTT0T00TT00T0T0TTTT (got %s)", sh.pattern);
    check(sh.span == 19 && sh.weight == 12, "12of19 span 19 weight 12 (got %d %d)", sh.span, sh.weight);
    {
        static const int want[12] = {0, 1, 2, 4, 7, 8, 11, 13, 15, 16, 17, 18};
        int same = 1;
        for (int i = 0; i < 12; i++) same &= sh.care[i] == want[i];
        check(same, "12of19 care offsets 0,1,2,4,7,8,11,13,15,16,17,18");
    }
    check(sh.transition == 1, "transition flag kept (1)");

    rc = hz_shape_parse("14of22", 0, &sh, err, sizeof err);
    check(rc == 0, "14of22 parses");
    check(strcmp(sh.pattern, "TTT0T0TT00TT00T0T0TTTT") == 0, "14of22 pattern TTT0T0TT00TT00T0T0TTTT (got %s)", sh.pattern);
    check(sh.span == 22 && sh.weight == 14, "14of22 span 22 weight 14 (got %d %d)", sh.span, sh.weight);
    {
        static const int want[14] = {0, 1, 2, 4, 6, 7, 10, 11, 14, 16, 18, 19, 20, 21};
        int same = 1;
        for (int i = 0; i < 14; i++) same &= sh.care[i] == want[i];
        check(same, "14of22 care offsets 0,1,2,4,6,7,10,11,14,16,18,19,20,21");
    }
    check(sh.transition == 0, "transition flag kept (0)");

    /* custom: '1' and 'T' are care (0.3.x), '0' don't-care */
    rc = hz_shape_parse("1T01T", 1, &sh, err, sizeof err);
    check(rc == 0 && strcmp(sh.pattern, "TT0TT") == 0 && sh.span == 5 && sh.weight == 4 &&
          sh.care[0] == 0 && sh.care[1] == 1 && sh.care[2] == 3 && sh.care[3] == 4,
          "custom 1T01T -> TT0TT, span 5, weight 4, care 0,1,3,4");
    rc = hz_shape_parse("0011110", 1, &sh, err, sizeof err);
    check(rc == 0 && strcmp(sh.pattern, "00TTTT0") == 0 && sh.span == 7 && sh.weight == 4 &&
          sh.care[0] == 2 && sh.care[3] == 5,
          "custom 0011110 -> 00TTTT0 (leading/trailing don't-care kept in span)");
    rc = hz_shape_parse("TTTTTTTTTTTTTTT", 1, &sh, err, sizeof err);
    check(rc == 0 && sh.weight == 15 && sh.span == 15, "weight 15 (all T) accepted");
    rc = hz_shape_parse("1111", 1, &sh, err, sizeof err);
    check(rc == 0 && sh.weight == 4 && sh.span == 4, "weight 4 accepted");
    {
        char p64[65];
        memset(p64, '0', 64); p64[64] = 0;
        p64[0] = p64[20] = p64[40] = p64[63] = '1';
        rc = hz_shape_parse(p64, 1, &sh, err, sizeof err);
        check(rc == 0 && sh.span == 64 && sh.weight == 4 && sh.care[3] == 63, "span 64 accepted");
        char p65[66];
        memset(p65, '0', 65); p65[65] = 0;
        p65[0] = p65[1] = p65[2] = p65[3] = '1';
        err[0] = 0;
        rc = hz_shape_parse(p65, 1, &sh, err, sizeof err);
        check(rc == -1 && err[0], "span 65 rejected with a message (%s)", err);
    }
    err[0] = 0;
    rc = hz_shape_parse("1101", 1, &sh, err, sizeof err);
    check(rc == -1 && err[0], "weight 3 rejected (%s)", err);
    err[0] = 0;
    rc = hz_shape_parse("1111111111111111", 1, &sh, err, sizeof err);
    check(rc == -1 && err[0], "weight 16 rejected (%s)", err);
    err[0] = 0;
    rc = hz_shape_parse("11a11", 1, &sh, err, sizeof err);
    check(rc == -1 && err[0], "bad character 'a' rejected (%s)", err);
    err[0] = 0;
    rc = hz_shape_parse("11N11", 1, &sh, err, sizeof err);
    check(rc == -1 && err[0], "bad character 'N' rejected (%s)", err);
    err[0] = 0;
    rc = hz_shape_parse("", 1, &sh, err, sizeof err);
    check(rc == -1 && err[0], "empty pattern rejected (%s)", err);
    err[0] = 0;
    rc = hz_shape_parse("12of20", 1, &sh, err, sizeof err);
    check(rc == -1, "unknown named shape 12of20 rejected");
}

/* ---- hz_kmer_at ------------------------------------------------------------------------- */

static void test_kmer_at(void)
{
    hz_shape sh;
    char err[256];
    hz_shape_parse("1111", 1, &sh, err, sizeof err);
    const uint8_t *s = (const uint8_t *)"ACGTTAAA";
    check(hz_kmer_at(s, 0, &sh) == 27, "ACGT -> 0*64+1*16+2*4+3 = 27 (got %lld)", (long long)hz_kmer_at(s, 0, &sh));
    check(hz_kmer_at(s, 4, &sh) == 192, "TAAA -> 192: first care position in the most significant bits (got %lld)",
          (long long)hz_kmer_at(s, 4, &sh));

    hz_shape_parse("1T0011", 1, &sh, err, sizeof err);   /* care 0,1,4,5 */
    s = (const uint8_t *)"GACCCT";                       /* G A . . C T */
    check(hz_kmer_at(s, 0, &sh) == (2 * 64 + 0 * 16 + 1 * 4 + 3), "1T0011 on GACCCT -> 135 (got %lld)",
          (long long)hz_kmer_at(s, 0, &sh));
    /* don't-care bytes still have to be upper-case ACGT */
    const char *bad_dc[] = {"GAcCCT", "GANCCT", "GARCCT", "GA&CCT", "GAnCCT", "GA-CCT"};
    for (int i = 0; i < 6; i++)
        check(hz_kmer_at((const uint8_t *)bad_dc[i], 0, &sh) == -1,
              "invalid byte at a don't-care position: %s -> -1", bad_dc[i]);
    const char *bad_care[] = {"gACCCT", "GACCCt", "NACCCT", "GACCCY", "&ACCCT"};
    for (int i = 0; i < 5; i++)
        check(hz_kmer_at((const uint8_t *)bad_care[i], 0, &sh) == -1,
              "invalid byte at a care position: %s -> -1", bad_care[i]);
    {
        uint8_t z[6] = {'G', 'A', 0, 'C', 'C', 'T'};
        check(hz_kmer_at(z, 0, &sh) == -1, "0x00 byte in the span -> -1");
    }

    /* 12of19 against the model on random text with sprinkled invalid bytes */
    hz_shape_parse("12of19", 1, &sh, err, sizeof err);
    mshape m; mshape_from("TTT0T00TT00T0T0TTTT", &m);
    enum { N = 4000 };
    static uint8_t t[N];
    static const char junk[] = "acgtNnRY&-";
    for (int i = 0; i < N; i++) t[i] = (rnd() % 40 == 0) ? (uint8_t)junk[rnd() % 10] : (uint8_t)"ACGT"[rnd() % 4];
    int agree = 1, nvalid = 0;
    for (uint32_t p = 0; p + 19 <= N; p++) {
        int64_t a = hz_kmer_at(t, p, &sh), b = ref_kmer(t, p, &m);
        if (a != b) { if (agree) printf("# p=%u got %lld want %lld\n", p, (long long)a, (long long)b); agree = 0; }
        nvalid += b >= 0;
    }
    check(agree && nvalid > 100 && nvalid < N - 200, "12of19 hz_kmer_at == model on %d windows (%d valid)", N - 18, nvalid);
    {
        /* hand value: 12of19 on ACGTACGTACGTACGTACG: care bytes at 0,1,2,4,7,8,11,13,15,16,17,18 */
        const uint8_t *w = (const uint8_t *)"ACGTACGTACGTACGTACG";
        /* bytes: 0A 1C 2G 4A 7T 8A 11T 13C 15T 16A 17C 18G -> 0 1 2 0 3 0 3 1 3 0 1 2 */
        static const int d[12] = {0, 1, 2, 0, 3, 0, 3, 1, 3, 0, 1, 2};
        uint32_t v = 0;
        for (int i = 0; i < 12; i++) v = (v << 2) | (uint32_t)d[i];
        check(hz_kmer_at(w, 0, &sh) == (int64_t)v, "12of19 hand value on ACGTACGTACGTACGTACG = %u", v);
    }
}

/* ---- hz_seeds_chunk --------------------------------------------------------------------- */

static void test_seeds_chunk(void)
{
    hz_shape sh;
    char err[256];
    hz_seed *out = NULL;
    size_t cap = 0;

    /* 11011: care 0,1,3,4, weight 4, transitions on */
    hz_shape_parse("11011", 1, &sh, err, sizeof err);
    const uint8_t *s = (const uint8_t *)"ACGTAxCGTTA";  /* windows at 0..6 */
    /* j=0 ACGTA valid: A C . T A -> 0,1,3,0 = 28.  j=1..5 contain 'x' -> invalid. j=6 CGTTA:
     * C G . T A -> 1,2,3,0 = 64+32+12 = 108 */
    int64_t n = hz_seeds_chunk(s, 0, 7, &sh, &out, &cap);
    check(n == 10, "11011 transitions on: 2 valid windows x (1+4) = 10 seeds (got %lld)", (long long)n);
    if (n == 10) {
        static const uint32_t want_k[10] = {28, 28 ^ 2, 28 ^ 8, 28 ^ 32, 28 ^ 128,
                                            108, 108 ^ 2, 108 ^ 8, 108 ^ 32, 108 ^ 128};
        static const uint32_t want_j[10] = {0, 0, 0, 0, 0, 6, 6, 6, 6, 6};
        int same = 1;
        for (int i = 0; i < 10; i++) same &= out[i].kmer == want_k[i] && out[i].qpos == want_j[i];
        check(same, "order: j ascending, exact seed then t=0..K-1 as kmer XOR (2<<2t)");
        check(out[1].kmer == 30 && out[4].kmer == 156, "t=0 flips the last care base (28->30), t=K-1 the first (28->156)");
    }
    /* a sub-range */
    n = hz_seeds_chunk(s, 1, 6, &sh, &out, &cap);
    check(n == 0, "range [1,6) has no valid window -> 0 seeds (got %lld)", (long long)n);
    n = hz_seeds_chunk(s, 6, 7, &sh, &out, &cap);
    check(n == 5 && out[0].qpos == 6 && out[0].kmer == 108, "range [6,7) -> the 5 seeds of j=6");

    hz_shape_parse("11011", 0, &sh, err, sizeof err);
    n = hz_seeds_chunk(s, 0, 7, &sh, &out, &cap);
    check(n == 2 && out[0].kmer == 28 && out[0].qpos == 0 && out[1].kmer == 108 && out[1].qpos == 6,
          "transitions off: 1 seed per valid position");

    /* random text vs model, 12of19 with transitions */
    hz_shape_parse("12of19", 1, &sh, err, sizeof err);
    mshape m; mshape_from(sh.pattern, &m);
    enum { N = 3000 };
    static uint8_t t[N];
    for (int i = 0; i < N; i++) t[i] = (rnd() % 30 == 0) ? 'n' : (uint8_t)"ACGT"[rnd() % 4];
    uint32_t j0 = 17, j1 = N - 19 + 1;     /* last window ends at the text end */
    n = hz_seeds_chunk(t, j0, j1, &sh, &out, &cap);
    size_t k = 0;
    int same = 1;
    for (uint32_t j = j0; j < j1 && same; j++) {
        int64_t v = ref_kmer(t, j, &m);
        if (v < 0) continue;
        if (k >= (size_t)n || out[k].kmer != (uint32_t)v || out[k].qpos != j) { same = 0; break; }
        k++;
        for (int tt = 0; tt < 12; tt++, k++)
            if (k >= (size_t)n || out[k].kmer != ((uint32_t)v ^ (2u << (2 * tt))) || out[k].qpos != j) { same = 0; break; }
    }
    check(same && k == (size_t)n, "12of19 random text: %lld seeds equal the model (1+K per valid position)", (long long)n);
    free(out);
}

/* ---- hz_seedtable_build / lookup -------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Compare every bucket of tab with a brute-force scan following spec §3.3:
 * positions p = start_offset + i*step, start_offset = step - (W+1)%step, p <= L - W, valid. */
static int table_matches_model(const hz_seedtable *tab, const uint8_t *T, uint32_t L, const char *pat,
                               uint32_t step, const char *what)
{
    mshape m; mshape_from(pat, &m);
    uint32_t so = step - (uint32_t)((m.W + 1) % step);
    size_t cap = L + 1, n = 0;
    uint64_t *kp = malloc(cap * sizeof *kp);
    for (uint64_t p = so; L >= (uint32_t)m.W && p <= (uint64_t)L - (uint64_t)m.W; p += step) {
        int64_t v = ref_kmer(T, p, &m);
        if (v >= 0) kp[n++] = ((uint64_t)v << 32) | p;
    }
    qsort(kp, n, sizeof *kp, cmp_u64);
    int ok = tab->n_pos == n;
    if (!ok) printf("# %s: n_pos %llu, model %zu\n", what, (unsigned long long)tab->n_pos, n);
    size_t i = 0, total = 0;
    while (ok && i < n) {
        uint32_t v = (uint32_t)(kp[i] >> 32);
        size_t e = i;
        while (e < n && (uint32_t)(kp[e] >> 32) == v) e++;
        uint64_t cnt = 0, at = hz_seedtable_lookup(tab, v, &cnt);
        if (cnt != e - i) { printf("# %s: bucket %u has %llu, model %zu\n", what, v, (unsigned long long)cnt, e - i); ok = 0; break; }
        for (size_t k = 0; k < cnt; k++)
            if (hz_seedtable_pos(tab, at + k) != (uint32_t)kp[i + k]) {
                printf("# %s: bucket %u element %zu: %u, model %u\n", what, v, k,
                       hz_seedtable_pos(tab, at + k), (uint32_t)kp[i + k]);
                ok = 0; break;
            }
        total += cnt;
        i = e;
    }
    ok = ok && total == n;
    /* k-mers absent from the model have empty buckets */
    for (int r = 0; ok && r < 200; r++) {
        uint32_t v = (uint32_t)(rnd() & ((m.K == 16) ? 0xffffffffu : ((1u << (2 * m.K)) - 1)));
        uint64_t key = (uint64_t)v << 32;
        uint64_t *hit = NULL;
        size_t lo = 0, hi = n;
        while (lo < hi) { size_t mid = (lo + hi) / 2; if (kp[mid] < key) lo = mid + 1; else hi = mid; }
        if (lo < n && (uint32_t)(kp[lo] >> 32) == v) hit = &kp[lo];
        uint64_t cnt = 0;
        hz_seedtable_lookup(tab, v, &cnt);
        if (!hit && cnt != 0) { printf("# %s: absent k-mer %u has %llu positions\n", what, v, (unsigned long long)cnt); ok = 0; }
    }
    free(kp);
    return ok;
}

/* random text built from a repeated motif with mutations, so that buckets hold several positions */
static uint8_t *make_text(uint32_t L, int junk)
{
    uint8_t *T = malloc(L);
    uint8_t motif[300];
    for (int i = 0; i < 300; i++) motif[i] = (uint8_t)"ACGT"[rnd() % 4];
    for (uint32_t i = 0; i < L; i++) {
        T[i] = motif[i % 300];
        if (rnd() % 25 == 0) T[i] = (uint8_t)"ACGT"[rnd() % 4];
        if (junk && rnd() % 150 == 0) T[i] = (uint8_t)"nNacgtR&"[rnd() % 8];
    }
    return T;
}

static void test_seedtable(void)
{
    hz_shape sh;
    char err[256];
    hz_seedtable tab;

    /* position 0 is never indexed with step 1 (start_offset = 1) */
    hz_shape_parse("1111", 1, &sh, err, sizeof err);
    {
        const uint8_t *T = (const uint8_t *)"TTTTACGTAAAAC";   /* L = 13, W = 4; last window at 9 */
        hz_seedtable_build(&tab, T, 13, &sh, 1);
        uint64_t n, at;
        at = hz_seedtable_lookup(&tab, 255, &n);              /* TTTT only at 0 */
        check(n == 0, "step 1: position 0 (TTTT) never indexed (bucket size %llu)", (unsigned long long)n);
        at = hz_seedtable_lookup(&tab, 27, &n);               /* ACGT at 4 */
        check(n == 1 && hz_seedtable_pos(&tab, at) == 4, "step 1: ACGT at 4 indexed");
        at = hz_seedtable_lookup(&tab, 0, &n);                /* AAAA at 8 */
        check(n == 1 && hz_seedtable_pos(&tab, at) == 8, "step 1: AAAA at 8 indexed");
        at = hz_seedtable_lookup(&tab, 1, &n);                /* AAAC at 9 = L - W */
        check(n == 1 && hz_seedtable_pos(&tab, at) == 9, "step 1: last position L-W = 9 indexed");
        check(tab.n_pos == 9, "step 1: positions 1..9 all valid -> 9 entries (got %llu)", (unsigned long long)tab.n_pos);
        check(table_matches_model(&tab, T, 13, "1111", 1, "1111 step1"), "1111 step 1 table == model");
        hz_seedtable_free(&tab);
    }
    /* buckets ascending with many equal k-mers */
    {
        const uint8_t *T = (const uint8_t *)"AAAAAAAAAAAAAAAAAAAA";  /* L = 20, W = 4 */
        hz_seedtable_build(&tab, T, 20, &sh, 1);
        uint64_t n, at = hz_seedtable_lookup(&tab, 0, &n);
        int asc = n == 16;
        for (uint64_t k = 0; asc && k < n; k++) asc = hz_seedtable_pos(&tab, at + k) == (uint32_t)(k + 1);
        check(asc, "poly-A: bucket AAAA = 1,2,...,16 ascending (n=%llu)", (unsigned long long)n);
        hz_seedtable_free(&tab);
        hz_seedtable_build(&tab, T, 20, &sh, 5);   /* (W+1)%5 = 0 -> start_offset 5: 5,10,15,16? no: 5,10,15 */
        at = hz_seedtable_lookup(&tab, 0, &n);
        check(n == 3 && hz_seedtable_pos(&tab, at) == 5 && hz_seedtable_pos(&tab, at + 1) == 10 &&
              hz_seedtable_pos(&tab, at + 2) == 15, "step 5, W 4: start_offset 5 -> 5,10,15");
        hz_seedtable_free(&tab);
    }
    /* step 3 with W = 19: start_offset = 3 - 20%3 = 1 -> 1,4,7,...; last L-W when L-W = 1 mod 3 */
    hz_shape_parse("12of19", 1, &sh, err, sizeof err);
    {
        uint32_t L = 19 + 1 + 3 * 20;   /* L - W = 61 = 1 + 3*20 */
        uint8_t T[200];
        memset(T, 'A', L);
        hz_seedtable_build(&tab, T, L, &sh, 3);
        uint64_t n, at = hz_seedtable_lookup(&tab, 0, &n);
        int ok = n == 21;
        for (uint64_t k = 0; ok && k < n; k++) ok = hz_seedtable_pos(&tab, at + k) == 1 + 3 * k;
        check(ok, "step 3, W 19: positions 1,4,7,...,61 (= L-W) (n=%llu)", (unsigned long long)n);
        hz_seedtable_free(&tab);
        hz_seedtable_build(&tab, T, L - 1, &sh, 3);   /* L-W = 60: last indexed 58 */
        at = hz_seedtable_lookup(&tab, 0, &n);
        check(n == 20 && hz_seedtable_pos(&tab, at + n - 1) == 58, "step 3, L-W = 60: last indexed 58");
        hz_seedtable_free(&tab);
        hz_seedtable_build(&tab, T, 19, &sh, 1);       /* L == W: start_offset 1 > 0 = L-W: nothing */
        check(tab.n_pos == 0, "L == W: no position indexed (got %llu)", (unsigned long long)tab.n_pos);
        hz_seedtable_free(&tab);
        hz_seedtable_build(&tab, T, 20, &sh, 1);       /* L-W = 1: only position 1 */
        at = hz_seedtable_lookup(&tab, 0, &n);
        check(n == 1 && hz_seedtable_pos(&tab, at) == 1 && tab.n_pos == 1, "L = W+1, step 1: only position 1");
        hz_seedtable_free(&tab);
    }

    /* direct mode (weight <= 13) and sorted mode (14, 15) against the brute-force model */
    struct { const char *seed; const char *pat; uint32_t step; uint32_t L; } cases[] = {
        {"12of19", "TTT0T00TT00T0T0TTTT", 1, 20000},
        {"12of19", "TTT0T00TT00T0T0TTTT", 3, 20000},
        {"12of19", "TTT0T00TT00T0T0TTTT", 7, 20003},
        {"1101011", "1101011", 1, 6000},
        {"1101011", "1101011", 2, 6001},
        {"14of22", "TTT0T0TT00TT00T0T0TTTT", 1, 20000},
        {"14of22", "TTT0T0TT00TT00T0T0TTTT", 4, 20001},
        {"11101101110110111101", "11101101110110111101", 1, 20000},
        {"11101101110110111101", "11101101110110111101", 3, 19999},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int rc = hz_shape_parse(cases[c].seed, 1, &sh, err, sizeof err);
        mshape m; mshape_from(cases[c].pat, &m);
        if (c == 7) check(rc == 0 && sh.weight == 15 && m.K == 15, "custom weight-15 pattern parses (weight %d)", sh.weight);
        uint8_t *T = make_text(cases[c].L, 1);
        rc = hz_seedtable_build(&tab, T, cases[c].L, &sh, cases[c].step);
        int mode_ok = (sh.weight <= 13) ? (tab.bucket_off != NULL) : (tab.sorted != NULL);
        char what[96];
        snprintf(what, sizeof what, "%s step %u L %u", cases[c].seed, cases[c].step, cases[c].L);
        check(rc == 0 && mode_ok && table_matches_model(&tab, T, cases[c].L, cases[c].pat, cases[c].step, what),
              "%s (%s mode): every bucket == brute-force scan", what, sh.weight <= 13 ? "direct" : "sorted");
        hz_seedtable_free(&tab);
        free(T);
    }
    /* the last indexed position L - W and position 0 in sorted mode */
    hz_shape_parse("14of22", 1, &sh, err, sizeof err);
    {
        uint8_t T[64];
        mshape m; mshape_from(sh.pattern, &m);
        T[0] = 'T';
        for (int i = 1; i < 18; i++) T[i] = 'C';
        for (int i = 18; i < 40; i++) T[i] = 'G';     /* window at 18 = L-W (L 40) all G */
        hz_seedtable_build(&tab, T, 40, &sh, 1);
        uint64_t n, at = hz_seedtable_lookup(&tab, 0xAAAAAAAu, &n);   /* G x14 = 0b10 x14 */
        check(n == 1 && hz_seedtable_pos(&tab, at) == 18, "sorted mode: last position L-W = 18 indexed (n=%llu)",
              (unsigned long long)n);
        int64_t v0 = ref_kmer(T, 0, &m);                            /* the only window starting with T */
        at = hz_seedtable_lookup(&tab, (uint32_t)v0, &n);
        check(v0 >= 0 && n == 0, "sorted mode: position 0 never indexed (n=%llu)", (unsigned long long)n);
        check(tab.n_pos == 18, "sorted mode: positions 1..18 indexed (got %llu)", (unsigned long long)tab.n_pos);
        hz_seedtable_free(&tab);
    }
}

/* the table built in parts on threads (hz_seedtable_build_mt) holds the one-pass table's
 * bytes: offsets and positions, for 2..8 parts (and more, capped), steps 1..3, blocks with
 * invalid bytes, a block shorter than its parts, and a sorted-mode shape (one pass) */
static void test_seedtable_parts(void)
{
    hz_shape sh;
    char err[256];
    static const struct { const char *seed; uint32_t step, L; } cases[] = {
        {"12of19", 1, 300000}, {"12of19", 2, 300001}, {"12of19", 3, 299999}, {"1101011", 1, 5000},
        {"12of19", 1, 23}, {"12of19", 1, 19}, {"12of19", 1, 5}, {"14of22", 1, 50000},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        hz_shape_parse(cases[c].seed, 0, &sh, err, sizeof err);
        uint8_t *T = make_text(cases[c].L, 1);
        hz_seedtable one, mt;
        int rc = hz_seedtable_build(&one, T, cases[c].L, &sh, cases[c].step);
        for (int parts = 2; parts <= HZ_SEEDTABLE_MAX_PARTS + 2; parts += parts < 4 ? 1 : 3) {
            int rc2 = hz_seedtable_build_mt(&mt, T, cases[c].L, &sh, cases[c].step, parts);
            int same = rc == 0 && rc2 == 0 && one.n_pos == mt.n_pos;
            if (same && one.bucket_off) {
                uint64_t nb = 1ULL << (2 * sh.weight);
                same = mt.bucket_off && !memcmp(one.bucket_off, mt.bucket_off, (nb + 1) * sizeof *one.bucket_off) &&
                       !memcmp(one.pos, mt.pos, one.n_pos * sizeof *one.pos);
            } else if (same) {
                same = mt.sorted && !memcmp(one.sorted, mt.sorted, one.n_pos * sizeof *one.sorted);
            }
            char what[96];
            snprintf(what, sizeof what, "%s step %u L %u, %d parts", cases[c].seed, cases[c].step, cases[c].L, parts);
            check(same && table_matches_model(&mt, T, cases[c].L, sh.pattern, cases[c].step, what),
                  "%s step %u L %u: %d parts give the one-part table and the brute-force scan (%llu positions)",
                  cases[c].seed, cases[c].step, cases[c].L, parts, (unsigned long long)mt.n_pos);
            hz_seedtable_free(&mt);
        }
        check(one.n_pos > 0 || cases[c].L < 30, "%s L %u: positions indexed (%llu)", cases[c].seed, cases[c].L,
              (unsigned long long)one.n_pos);
        hz_seedtable_free(&one);
        free(T);
    }
    {   /* a negative or zero part count is one part */
        hz_shape_parse("12of19", 0, &sh, err, sizeof err);
        uint8_t *T = make_text(1000, 1);
        hz_seedtable a, b;
        int ok = !hz_seedtable_build(&a, T, 1000, &sh, 1) && !hz_seedtable_build_mt(&b, T, 1000, &sh, 1, -5) &&
                 a.n_pos == b.n_pos && !memcmp(a.pos, b.pos, a.n_pos * sizeof *a.pos);
        check(ok, "parts -5 builds the one-part table (%llu positions)", (unsigned long long)a.n_pos);
        hz_seedtable_free(&a); hz_seedtable_free(&b); free(T);
    }
    check(hz_seedtable_parts(8u << 20, 16) == 1 && hz_seedtable_parts((8u << 20) - 1, 16) == 1 &&
          hz_seedtable_parts(40u << 20, 2) == 2 && hz_seedtable_parts(500000000u, 16) == HZ_SEEDTABLE_MAX_PARTS &&
          hz_seedtable_parts(100u << 20, 1) == 1, "hz_seedtable_parts: one part per 8 MiB, at most threads and %d",
          HZ_SEEDTABLE_MAX_PARTS);
}

int main(void)
{
    test_shape_parse();
    test_kmer_at();
    test_seeds_chunk();
    test_seedtable();
    test_seedtable_parts();
    printf("# %d tests, %d passed, %d failed\n", n_tests, n_tests - n_fail, n_fail);
    return n_fail ? 1 : 0;
}
