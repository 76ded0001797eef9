/* dedup — spec §5.3 and RULES.md dedup rows. */
#include "dedup.h"
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

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

/* first occurrences kept in order: an open-addressing table of positions of kept records
 * (4 or 8 bytes per slot, at least twice as many slots as records) */
size_t hz_dedup_interval(hz_hsp *h, size_t n)
{
    if (n < 2) return n;
    size_t cap = 2;
    while (cap < 2 * n) cap *= 2;
    int wide = n > 0xFFFFFFFEu;
    void *tab = calloc(cap, wide ? 8 : 4);
    if (!tab) return SIZE_MAX;   /* out of memory */
    uint32_t *t32 = tab; uint64_t *t64 = tab;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = (size_t)hsp_hash(&h[i]) & (cap - 1);
        int dup = 0;
        for (;;) {   /* slots hold kept position + 1; 0 = empty */
            uint64_t v = wide ? t64[j] : t32[j];
            if (!v) break;
            if (!memcmp(&h[v - 1], &h[i], sizeof *h)) { dup = 1; break; }
            j = (j + 1) & (cap - 1);
        }
        if (dup) continue;
        h[m] = h[i];
        if (wide) t64[j] = m + 1; else t32[j] = (uint32_t)(m + 1);
        m++;
    }
    free(tab);
    return m;
}
