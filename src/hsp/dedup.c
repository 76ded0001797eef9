/* dedup — spec §5.3 and RULES.md dedup rows. */
#include "dedup.h"
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <pthread.h>

static int cmp_diag(const void *pa, const void *pb)
{
    const hz_hsp *a = pa, *b = pb;
    uint32_t da = a->rs - a->qs, db = b->rs - b->qs;
    if (da != db) return da < db ? -1 : 1;
    if (a->rs != b->rs) return a->rs < b->rs ? -1 : 1;
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    return 0;
}

static int cmp_query(const void *pa, const void *pb)
{
    const hz_hsp *a = pa, *b = pb;
    if (a->qs != b->qs) return a->qs < b->qs ? -1 : 1;
    if (a->rs != b->rs) return a->rs < b->rs ? -1 : 1;
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    return 0;
}

static int hsp_equal(const hz_hsp *x, const hz_hsp *y)
{
    if ((uint32_t)(x->rs - x->qs) != (uint32_t)(y->rs - y->qs)) return 0;
    uint32_t xe = x->rs + x->len, ye = y->rs + y->len;
    return (x->rs >= y->rs && xe <= ye) || (y->rs >= x->rs && ye <= xe);
}

/* 64-bit part of the two sort keys; the rest (len ascending, score descending) breaks ties */
static uint64_t key_of(const hz_hsp *h, int by_query)
{
    return by_query ? ((uint64_t)h->qs << 32) | h->rs
                    : ((uint64_t)(uint32_t)(h->rs - h->qs) << 32) | h->rs;
}

static int tie_before(const hz_hsp *a, const hz_hsp *b)
{
    return a->len < b->len || (a->len == b->len && a->score > b->score);
}

/* Sort by cmp_diag (by_query 0) or cmp_query (1): LSD radix sort on the 64-bit key, 8-bit
 * digits, digits that all records share skipped, then ties put in order inside each run of
 * equal keys.  Falls back to qsort for small n or when the scratch cannot be had. */
static void sort_hsps(hz_hsp *h, size_t n, int by_query)
{
    int (*cmp)(const void *, const void *) = by_query ? cmp_query : cmp_diag;
    hz_hsp *tmp = n >= 512 ? malloc(n * sizeof *tmp) : NULL;
    size_t (*cnt)[256] = tmp ? calloc(8, sizeof *cnt) : NULL;
    if (!cnt) { free(tmp); if (n > 1) qsort(h, n, sizeof *h, cmp); return; }
    for (size_t i = 0; i < n; i++) {
        uint64_t k = key_of(&h[i], by_query);
        for (int b = 0; b < 8; b++) cnt[b][(k >> (8 * b)) & 255]++;
    }
    hz_hsp *src = h, *dst = tmp;
    uint64_t k0 = key_of(&h[0], by_query);
    for (int b = 0; b < 8; b++) {
        if (cnt[b][(k0 >> (8 * b)) & 255] == n) continue;   /* one value: nothing moves */
        size_t pos = 0;
        for (int v = 0; v < 256; v++) { size_t c = cnt[b][v]; cnt[b][v] = pos; pos += c; }
        for (size_t i = 0; i < n; i++) dst[cnt[b][(key_of(&src[i], by_query) >> (8 * b)) & 255]++] = src[i];
        hz_hsp *t = src; src = dst; dst = t;
    }
    if (src != h) memcpy(h, src, n * sizeof *h);
    free(tmp); free(cnt);
    for (size_t i = 0; i < n;) {   /* runs of one key: usually 1 record, identical copies in repeats */
        size_t j = i + 1;
        uint64_t k = key_of(&h[i], by_query);
        while (j < n && key_of(&h[j], by_query) == k) j++;
        if (j - i > 32) qsort(h + i, j - i, sizeof *h, cmp);
        else
            for (size_t a = i + 1; a < j; a++) {
                hz_hsp x = h[a];
                size_t b = a;
                while (b > i && tie_before(&x, &h[b - 1])) { h[b] = h[b - 1]; b--; }
                h[b] = x;
            }
        i = j;
    }
}

size_t hz_dedup_batch(hz_hsp *h, size_t n)
{
    if (n == 0) return 0;
    /* keys equal under cmp_diag mean identical records, so the sort's tie order is harmless */
    sort_hsps(h, n, 0);
    size_t k = 1;
    hz_hsp prev = h[0];
    for (size_t i = 1; i < n; i++) {
        hz_hsp cur = h[i];
        if (!hsp_equal(&prev, &cur)) h[k++] = cur;
        prev = cur;
    }
    sort_hsps(h, k, 1);
    return k;
}

size_t hz_dedup_collapse(hz_hsp *h, size_t n)
{
    if (n < 2) return n;
    sort_hsps(h, n, 0);
    size_t k = 1;
    for (size_t i = 1; i < n; i++)
        if (memcmp(&h[i], &h[k - 1], sizeof *h) != 0) h[k++] = h[i];
    return k;
}

static uint64_t hsp_hash(const hz_hsp *x)
{
    uint64_t a = ((uint64_t)x->rs << 32 | x->qs) * 0x9E3779B97F4A7C15ull;
    uint64_t b = ((uint64_t)x->len << 32 | (uint32_t)x->score) * 0xC2B2AE3D27D4EB4Full;
    a ^= b + (a >> 29);
    return a ^ (a >> 32);
}

/* Parallel first-occurrence filter: each record's partition (its hash mod threads) is noted
 * first, slice by slice; then thread t, scanning the whole array in order, keeps the first of
 * the identical records of partition t in an open-addressing table of positions (kept
 * position + 1; at least twice as many slots as the partition's records).  Identical records
 * share a partition, so each decision is the sequential one.  keep[i] is written by the
 * owner of record i only. */
typedef struct {
    const hz_hsp *h; size_t n; uint8_t *part, *keep;
    int threads, fail;
} ivjob;
typedef struct { ivjob *j; int t; } ivarg;

static void *interval_note(void *pa)
{
    ivarg *a = pa;
    ivjob *J = a->j;
    size_t i0 = J->n / (size_t)J->threads * (size_t)a->t, i1 = a->t + 1 == J->threads ? J->n : J->n / (size_t)J->threads * (size_t)(a->t + 1);
    for (size_t i = i0; i < i1; i++) J->part[i] = (uint8_t)(hsp_hash(&J->h[i]) % (uint64_t)J->threads);
    return NULL;
}

static void *interval_part(void *pa)
{
    ivarg *a = pa;
    ivjob *J = a->j;
    const hz_hsp *h = J->h;
    size_t n = J->n, m = 0;
    uint8_t me = (uint8_t)a->t;
    int wide = n > 0xFFFFFFFEu;
    for (size_t i = 0; i < n; i++) m += J->part[i] == me;
    if (!m) return NULL;
    size_t cap = 2;
    while (cap < 2 * m) cap *= 2;
    void *tab = calloc(cap, wide ? 8 : 4);
    if (!tab) { J->fail = 1; return NULL; }
    uint32_t *t32 = tab; uint64_t *t64 = tab;
    for (size_t i = 0; i < n; i++) {
        if (J->part[i] != me) continue;
        size_t j = (size_t)(hsp_hash(&h[i]) / (uint64_t)J->threads) & (cap - 1);
        int dup = 0;
        for (;;) {   /* 0 = empty */
            uint64_t v = wide ? t64[j] : t32[j];
            if (!v) break;
            if (!memcmp(&h[v - 1], &h[i], sizeof *h)) { dup = 1; break; }
            j = (j + 1) & (cap - 1);
        }
        J->keep[i] = !dup;
        if (!dup) { if (wide) t64[j] = i + 1; else t32[j] = (uint32_t)(i + 1); }
    }
    free(tab);
    return NULL;
}

/* fn(args[t]) on threads threads (this one included; one that cannot start runs here) */
static void run_threads(void *(*fn)(void *), ivarg *args, int threads)
{
    pthread_t th[64];
    int on[64] = {0};
    for (int t = 1; t < threads; t++) on[t] = pthread_create(&th[t], NULL, fn, &args[t]) == 0;
    for (int t = 0; t < threads; t++) if (!on[t]) fn(&args[t]);
    for (int t = 1; t < threads; t++) if (on[t]) pthread_join(th[t], NULL);
}

size_t hz_dedup_interval(hz_hsp *h, size_t n, int threads)
{
    if (n < 2) return n;
    if (threads < 1) threads = 1;
    if (threads > 64) threads = 64;
    if ((size_t)threads > n / 4096 + 1) threads = (int)(n / 4096 + 1);   /* small intervals: one thread */
    ivjob J = { h, n, malloc(n), malloc(n), threads, 0 };
    if (!J.part || !J.keep) { free(J.part); free(J.keep); return SIZE_MAX; }   /* out of memory */
    ivarg args[64];
    for (int t = 0; t < threads; t++) args[t] = (ivarg){ &J, t };
    run_threads(interval_note, args, threads);
    run_threads(interval_part, args, threads);
    size_t m = 0;
    if (!J.fail)
        for (size_t i = 0; i < n; i++)
            if (J.keep[i]) h[m++] = h[i];
    free(J.part); free(J.keep);
    return J.fail ? SIZE_MAX : m;
}
