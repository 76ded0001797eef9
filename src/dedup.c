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

typedef struct { hz_hsp h; size_t idx; } keyed;

static int cmp_exact(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    if (a->h.rs != b->h.rs) return a->h.rs < b->h.rs ? -1 : 1;
    if (a->h.qs != b->h.qs) return a->h.qs < b->h.qs ? -1 : 1;
    if (a->h.len != b->h.len) return a->h.len < b->h.len ? -1 : 1;
    if (a->h.score != b->h.score) return a->h.score < b->h.score ? -1 : 1;
    return a->idx < b->idx ? -1 : (a->idx > b->idx);
}

size_t hz_dedup_interval(hz_hsp *h, size_t n)
{
    if (n < 2) return n;
    keyed *k = malloc(n * sizeof *k);
    unsigned char *drop = calloc(n, 1);
    if (!k || !drop) { free(k); free(drop); return SIZE_MAX; }  /* out of memory */
    for (size_t i = 0; i < n; i++) { k[i].h = h[i]; k[i].idx = i; }
    qsort(k, n, sizeof *k, cmp_exact);
    for (size_t i = 1; i < n; i++)
        if (memcmp(&k[i].h, &k[i - 1].h, sizeof(hz_hsp)) == 0) drop[k[i].idx] = 1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!drop[i]) h[m++] = h[i];
    free(k); free(drop);
    return m;
}
