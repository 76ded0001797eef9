/* Unit tests for src/hsp/dedup.c: KegAlign's per-batch containment dedup (kegalign-hsp-spec.md
 * §5.3, RULES.md "dedup inside a chunk") and the 0.3.x per-interval exact-duplicate removal
 * (RULES.md "dedup per interval", kegalign-v03-delta.md §6).
 *
 * Expected results are worked out by hand, or by a brute-force model written here from the
 * spec text (sort by diagonal key, adjacent-pair head flags, sort by query key).  Prints
 * "ok N - ..." / "not ok N - ..." lines and a summary; exits non-zero on any failure. */
#include "dedup.h"
#include "chunk.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define HZ_TEST_SEED 0xD1B54A32D192ED03ULL
#include "tap.h"



static hz_hsp H(uint32_t rs, uint32_t qs, uint32_t len, int32_t score)
{
    hz_hsp h = {rs, qs, len, score};
    return h;
}

static int same_list(const hz_hsp *got, size_t ng, const hz_hsp *want, size_t nw)
{
    if (ng != nw) return 0;
    for (size_t i = 0; i < nw; i++)
        if (got[i].rs != want[i].rs || got[i].qs != want[i].qs || got[i].len != want[i].len ||
            got[i].score != want[i].score)
            return 0;
    return 1;
}

static void dump(const char *tag, const hz_hsp *h, size_t n)
{
    printf("# %s:", tag);
    for (size_t i = 0; i < n && i < 12; i++) printf(" (%u,%u,%u,%d)", h[i].rs, h[i].qs, h[i].len, h[i].score);
    printf("\n");
}

static void batch_case(const char *what, const hz_hsp *in, size_t n, const hz_hsp *want, size_t nw)
{
    hz_hsp buf[64];
    memcpy(buf, in, n * sizeof *in);
    size_t k = hz_dedup_batch(buf, n);
    int ok = same_list(buf, k, want, nw);
    if (!ok) { dump("got", buf, k); dump("want", want, nw); }
    check(ok, "dedup_batch %s (%zu -> %zu)", what, n, nw);
}

/* ---- brute-force model of §5.3 steps 2-4 ------------------------------------------------- */

static int key_diag(const hz_hsp *a, const hz_hsp *b)   /* <0 when a sorts before b */
{
    uint32_t da = a->rs - a->qs, db = b->rs - b->qs;
    if (da != db) return da < db ? -1 : 1;
    if (a->rs != b->rs) return a->rs < b->rs ? -1 : 1;
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    return 0;
}
static int key_query(const hz_hsp *a, const hz_hsp *b)
{
    if (a->qs != b->qs) return a->qs < b->qs ? -1 : 1;
    if (a->rs != b->rs) return a->rs < b->rs ? -1 : 1;
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    return 0;
}
static void insertion_sort(hz_hsp *h, size_t n, int (*cmp)(const hz_hsp *, const hz_hsp *))
{
    for (size_t i = 1; i < n; i++) {
        hz_hsp x = h[i];
        size_t j = i;
        while (j > 0 && cmp(&h[j - 1], &x) > 0) { h[j] = h[j - 1]; j--; }
        h[j] = x;
    }
}
static int hsp_equal(const hz_hsp *x, const hz_hsp *y)
{
    if ((uint32_t)(x->rs - x->qs) != (uint32_t)(y->rs - y->qs)) return 0;
    uint32_t xe = x->rs + x->len, ye = y->rs + y->len;
    return (x->rs >= y->rs && xe <= ye) || (y->rs >= x->rs && ye <= xe);
}
static size_t model_batch(hz_hsp *h, size_t n)
{
    if (!n) return 0;
    insertion_sort(h, n, key_diag);
    hz_hsp *o = malloc(n * sizeof *o);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || !hsp_equal(&h[i - 1], &h[i])) o[k++] = h[i];   /* head flag vs preceding element */
    insertion_sort(o, k, key_query);
    memcpy(h, o, k * sizeof *o);
    free(o);
    return k;
}

static void test_batch(void)
{
    /* the non-transitive chain of §5.3 on diagonal 0 */
    {
        hz_hsp in[3] = {H(15, 15, 20, 500), H(0, 0, 100, 900), H(10, 10, 10, 300)};
        hz_hsp want[2] = {H(0, 0, 100, 900), H(15, 15, 20, 500)};
        batch_case("chain [(0,100),(10,10),(15,20)] keeps (0,100) and (15,20)", in, 3, want, 2);
    }
    /* dropped predecessor still used for the comparison */
    {
        hz_hsp in[3] = {H(0, 0, 100, 900), H(10, 10, 10, 300), H(12, 12, 5, 100)};
        hz_hsp want[1] = {H(0, 0, 100, 900)};
        batch_case("chain [(0,100),(10,10),(12,5)] keeps only (0,100)", in, 3, want, 1);
    }
    /* equal starts: the shorter sorts first and survives */
    {
        hz_hsp in[2] = {H(5, 3, 20, 800), H(5, 3, 10, 400)};
        hz_hsp want[1] = {H(5, 3, 10, 400)};
        batch_case("equal start keeps the shorter", in, 2, want, 1);
    }
    /* identical extents: the higher score sorts first and survives */
    {
        hz_hsp in[2] = {H(5, 3, 20, 700), H(5, 3, 20, 800)};
        hz_hsp want[1] = {H(5, 3, 20, 800)};
        batch_case("same extent, different scores: the higher score survives", in, 2, want, 1);
    }
    /* exact duplicates collapse */
    {
        hz_hsp in[3] = {H(7, 7, 30, 600), H(7, 7, 30, 600), H(7, 7, 30, 600)};
        hz_hsp want[1] = {H(7, 7, 30, 600)};
        batch_case("three exact duplicates -> one", in, 3, want, 1);
    }
    /* closed intervals: end equal counts as contained; overlapping but not contained survive */
    {
        hz_hsp in[3] = {H(0, 0, 50, 1), H(30, 30, 20, 2), H(40, 40, 20, 3)};
        /* (30,20): [30,50] inside [0,50] -> dropped; (40,20): [40,60] vs predecessor (30,20) [30,50]
         * -> not contained -> kept */
        hz_hsp want[2] = {H(0, 0, 50, 1), H(40, 40, 20, 3)};
        batch_case("closed end (30+20 = 0+50) contained; overlap kept", in, 3, want, 2);
    }
    /* different diagonals untouched, even when nested in coordinates */
    {
        hz_hsp in[3] = {H(0, 0, 100, 900), H(10, 5, 10, 300), H(10, 11, 10, 301)};
        hz_hsp want[3] = {H(0, 0, 100, 900), H(10, 5, 10, 300), H(10, 11, 10, 301)};
        batch_case("different diagonals untouched", in, 3, want, 3);
    }
    /* output order (qs, rs, len, score desc) */
    {
        hz_hsp in[6] = {H(50, 10, 5, 10), H(20, 10, 5, 10), H(20, 10, 3, 11), H(300, 2, 9, 1),
                        H(20, 30, 5, 10), H(400, 2, 9, 1)};
        /* (20,10,3) vs (20,10,5): same diagonal, same start -> (20,10,5) dropped (shorter survives) */
        hz_hsp want[5] = {H(300, 2, 9, 1), H(400, 2, 9, 1), H(20, 10, 3, 11), H(50, 10, 5, 10), H(20, 30, 5, 10)};
        batch_case("output sorted by (qs, rs, len, score desc)", in, 6, want, 5);
    }
    {
        /* score descending in the final key, on different diagonals? same (qs,rs,len) means same
         * diagonal, so equal keys only differ by score: they dedup to one */
        hz_hsp in[2] = {H(9, 9, 4, 1), H(9, 9, 4, 2)};
        hz_hsp want[1] = {H(9, 9, 4, 2)};
        batch_case("(qs,rs,len) equal: one survives, the higher score", in, 2, want, 1);
    }
    /* uint32 diagonal wrap: rs < qs */
    {
        hz_hsp in[3] = {H(0, 10, 50, 1000), H(5, 15, 10, 200), H(5, 14, 10, 201)};
        /* diag 0 - 10 = 0xFFFFFFF6 for the first two (contained -> dropped); third is diag -9 */
        hz_hsp want[2] = {H(0, 10, 50, 1000), H(5, 14, 10, 201)};
        batch_case("uint32 diagonal wrap (rs < qs) groups correctly", in, 3, want, 2);
    }
    {
        hz_hsp in[2] = {H(0, 4000000000u, 10, 1), H(4000000000u, 0, 10, 2)};
        hz_hsp want[2] = {H(4000000000u, 0, 10, 2), H(0, 4000000000u, 10, 1)};
        batch_case("large coordinates, opposite diagonals untouched", in, 2, want, 2);
    }
    {
        hz_hsp dummy[1];
        check(hz_dedup_batch(dummy, 0) == 0, "dedup_batch n = 0 -> 0");
        hz_hsp one[1] = {H(3, 4, 5, 6)};
        check(hz_dedup_batch(one, 1) == 1 && one[0].rs == 3 && one[0].score == 6, "dedup_batch n = 1 unchanged");
    }
    /* random batches against the model: few diagonals, many nested HSPs */
    int bad = 0;
    size_t tot_in = 0, tot_out = 0;
    for (int trial = 0; trial < 400; trial++) {
        size_t n = 1 + rnd() % 60;
        hz_hsp a[64], b[64];
        for (size_t i = 0; i < n; i++) {
            uint32_t qs = (uint32_t)(rnd() % 60), d = (uint32_t)(rnd() % 3) - 1;   /* diagonals -1, 0, 1 */
            a[i] = H(qs + d, qs, (uint32_t)(rnd() % 30), (int32_t)(rnd() % 4));
        }
        memcpy(b, a, n * sizeof *a);
        size_t k = hz_dedup_batch(a, n), km = model_batch(b, n);
        tot_in += n; tot_out += km;
        if (!same_list(a, k, b, km)) { if (!bad) { dump("got", a, k); dump("model", b, km); } bad++; }
    }
    check(bad == 0, "dedup_batch == model on 400 random batches (%zu -> %zu HSPs)", tot_in, tot_out);

    /* large batches (the radix sort path, n >= 512): wide coordinates, wrapped diagonals,
     * runs of identical records; and hz_dedup_collapse first (exact: same result) */
    bad = 0; tot_in = tot_out = 0;
    int badc = 0;
    size_t collapsed = 0;
    for (int trial = 0; trial < 40; trial++) {
        size_t n = 512 + rnd() % 6000;
        hz_hsp *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
        uint32_t span = trial % 2 ? 200 : 0xFFFFFFF0u;
        for (size_t i = 0; i < n; i++) {
            if (i && rnd() % 3 == 0) { a[i] = a[rnd() % i]; continue; }   /* an identical copy */
            uint32_t qs = (uint32_t)(rnd() % span), d = (uint32_t)(rnd() % 5) - 2;
            if (trial % 4 == 3) d = (uint32_t)rnd();                         /* any diagonal, wrapping */
            a[i] = H(qs + d, qs, (uint32_t)(rnd() % 40), (int32_t)(rnd() % 5));
        }
        memcpy(b, a, n * sizeof *a);
        memcpy(c, a, n * sizeof *a);
        size_t k = hz_dedup_batch(a, n), km = model_batch(b, n);
        tot_in += n; tot_out += km;
        if (!same_list(a, k, b, km)) bad++;
        size_t kc = hz_dedup_collapse(c, n);
        collapsed += n - kc;
        for (size_t i = 1; i < kc; i++) if (!memcmp(&c[i], &c[i - 1], sizeof *c)) badc++;
        size_t k2 = hz_dedup_batch(c, kc);
        if (!same_list(c, k2, b, km)) badc++;
        free(a); free(b); free(c);
    }
    check(bad == 0, "dedup_batch == model on 40 large random batches (%zu -> %zu HSPs)", tot_in, tot_out);
    check(badc == 0 && collapsed > 0, "dedup_collapse then dedup_batch == model (%zu identical copies dropped)", collapsed);
}

static void test_interval(void)
{
    {
        hz_hsp h[7] = {H(5, 5, 10, 100), H(1, 2, 3, 4), H(5, 5, 10, 100), H(9, 9, 9, 9),
                       H(1, 2, 3, 4), H(5, 5, 10, 99), H(5, 5, 10, 100)};
        hz_hsp want[4] = {H(5, 5, 10, 100), H(1, 2, 3, 4), H(9, 9, 9, 9), H(5, 5, 10, 99)};
        size_t k = hz_dedup_interval(h, 7, 1);
        int ok = same_list(h, k, want, 4);
        if (!ok) dump("got", h, k);
        check(ok, "dedup_interval keeps the first of exact duplicates, order preserved (7 -> 4)");
    }
    {
        /* nested HSPs are not duplicates here: only the exact 4-tuple counts */
        hz_hsp h[3] = {H(0, 0, 100, 900), H(10, 10, 10, 300), H(0, 0, 100, 901)};
        size_t k = hz_dedup_interval(h, 3, 1);
        check(k == 3 && h[1].rs == 10 && h[2].score == 901, "dedup_interval: containment and score differences kept");
    }
    {
        hz_hsp h[2] = {H(1, 1, 1, 1), H(1, 1, 1, 1)};
        check(hz_dedup_interval(h, 0, 1) == 0, "dedup_interval n = 0");
        check(hz_dedup_interval(h, 1, 1) == 1, "dedup_interval n = 1");
        check(hz_dedup_interval(h, 2, 1) == 1 && h[0].rs == 1, "dedup_interval two equal -> 1");
    }
    /* random: compare with a quadratic first-occurrence filter */
    int bad = 0;
    for (int trial = 0; trial < 200; trial++) {
        size_t n = 1 + rnd() % 200;
        hz_hsp *a = malloc(n * sizeof *a), *w = malloc(n * sizeof *w);
        for (size_t i = 0; i < n; i++)
            a[i] = H((uint32_t)(rnd() % 4), (uint32_t)(rnd() % 4), (uint32_t)(rnd() % 3), (int32_t)(rnd() % 2));
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            int dup = 0;
            for (size_t j = 0; j < m && !dup; j++)
                dup = w[j].rs == a[i].rs && w[j].qs == a[i].qs && w[j].len == a[i].len && w[j].score == a[i].score;
            if (!dup) w[m++] = a[i];
        }
        size_t k = hz_dedup_interval(a, n, 1);
        if (!same_list(a, k, w, m)) bad++;
        free(a); free(w);
    }
    check(bad == 0, "dedup_interval == first-occurrence filter on 200 random vectors");
    /* threads: 100,000 records, a third of them copies of earlier ones; 2, 3 and 8 threads
     * (4x as many hash partitions) give the one-thread result, itself checked above */
    {
        size_t n = 100000;
        hz_hsp *a = malloc(n * sizeof *a), *ref = malloc(n * sizeof *ref), *b = malloc(n * sizeof *b);
        for (size_t i = 0; i < n; i++)
            a[i] = i > 10 && rnd() % 3 == 0 ? a[rnd() % i]
                                           : H((uint32_t)(rnd() % 5000), (uint32_t)(rnd() % 5000), (uint32_t)(rnd() % 50), (int32_t)(rnd() % 4));
        memcpy(ref, a, n * sizeof *a);
        size_t m = hz_dedup_interval(ref, n, 1);
        int tb = 0;
        int tc[3] = {2, 3, 8};
        for (int k = 0; k < 3; k++) {
            memcpy(b, a, n * sizeof *a);
            size_t mk = hz_dedup_interval(b, n, tc[k]);
            if (!same_list(b, mk, ref, m)) tb++;
        }
        check(tb == 0 && m < n * 3 / 4 && m > n / 2, "dedup_interval with 2, 3 and 8 threads == 1 thread (100,000 -> %zu)", m);
        free(a); free(ref); free(b);
    }
}

/* one hz_hspvec_join case: chunks res[i0 .. i0 + len) with sizes sz[] (plus strand below
 * i0 + nplus), after i0 chunks that it must not touch; checked against a join written here
 * one chunk at a time */
static void join_case(const size_t *sz, size_t len, size_t nplus, size_t i0, int threads, const char *what)
{
    size_t nres = i0 + len, total = 0, need[2] = {0, 0};
    hz_hspvec *res = calloc(nres, sizeof *res);
    hz_hspvec want[2] = {{0}, {0}}, v[2] = {{0}, {0}};
    for (size_t i = 0; i < nres; i++) {
        size_t n = i < i0 ? 3 : sz[i - i0];
        if (n) { res[i].v = malloc(n * sizeof *res[i].v); res[i].n = res[i].cap = n; }
        for (size_t j = 0; j < n; j++) res[i].v[j] = H((uint32_t)rnd(), (uint32_t)rnd(), (uint32_t)(rnd() % 999), (int32_t)(rnd() % 100000));
        if (i < i0 || !n) continue;
        int st = i < i0 + nplus ? 0 : 1;
        hz_hspvec_reserve(&want[st], n); memcpy(want[st].v + want[st].n, res[i].v, n * sizeof *res[i].v); want[st].n += n;
        need[st] += n; total += n;
    }
    for (int st = 0; st < 2; st++) { v[st].v = malloc((need[st] ? need[st] : 1) * sizeof *v[st].v); v[st].cap = need[st]; }
    hz_hspvec_join(v, res, i0, i0 + nplus, nres, threads);
    int freed = 1, kept = 1;
    for (size_t i = i0; i < nres; i++) if (res[i].v || res[i].n) freed = 0;
    for (size_t i = 0; i < i0; i++) if (!res[i].v || res[i].n != 3) kept = 0;
    check(v[0].n == need[0] && v[1].n == need[1] && same_list(v[0].v, v[0].n, want[0].v, want[0].n) &&
          same_list(v[1].v, v[1].n, want[1].v, want[1].n) && freed && kept,
          "join %s: %zu HSPs in %zu chunks (plus %zu) after %zu others, %d threads: plan order, joined freed, others kept",
          what, total, len, nplus, i0, threads);
    for (size_t i = 0; i < nres; i++) hz_hspvec_free(&res[i]);
    for (int st = 0; st < 2; st++) { hz_hspvec_free(&v[st]); hz_hspvec_free(&want[st]); }
    free(res);
}

/* hz_hspvec_join: below and above its 256 Ki threading threshold, empty and uneven chunks,
 * every strand split, 1 to 17 threads, chunks that are not the list's first, and a small last
 * chunk past the even shares (the last thread must take what is left) */
static void test_join(void)
{
    const size_t totals[] = { 40, 200000, 700001 };
    const int threads[] = { 1, 2, 3, 16, 17 };
    for (size_t si = 0; si < sizeof totals / sizeof *totals; si++)
        for (size_t ti = 0; ti < sizeof threads / sizeof *threads; ti++) {
            size_t len = 2 + (size_t)(rnd() % 40), sz[64];
            for (size_t i = 0; i < len; i++)   /* a third empty, the rest uneven, about totals[si] in all */
                sz[i] = rnd() % 3 == 0 ? 0 : 1 + (size_t)(rnd() % (3 * totals[si] / len + 1));
            join_case(sz, len, (size_t)(rnd() % (len + 1)), (size_t)(rnd() % 4), threads[ti], "random");
        }
    const size_t tail[] = { 100000, 100000, 100000, 1, 0, 0 };   /* 300,001: shares of 100,000 on 3 threads */
    join_case(tail, 6, 2, 5, 3, "with a small last chunk");
    join_case(tail, 6, 6, 0, 3, "with a small last chunk, plus only");
    const size_t one[] = { 300000 };
    join_case(one, 1, 0, 2, 16, "one chunk on 16 threads");
}

int main(void)
{
    test_batch();
    test_interval();
    test_join();
    printf("# %d tests, %d passed, %d failed\n", n_tests, n_tests - n_fail, n_fail);
    return n_fail ? 1 : 0;
}
