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

size_t hz_dedup_batch(hz_hsp *h, size_t n)
{
    if (n == 0) return 0;
    /* keys equal under cmp_diag mean identical records, so qsort's instability is harmless */
    qsort(h, n, sizeof *h, cmp_diag);
    size_t k = 1;
    hz_hsp prev = h[0];
    for (size_t i = 1; i < n; i++) {
        hz_hsp cur = h[i];
        if (!hsp_equal(&prev, &cur)) h[k++] = cur;
        prev = cur;
    }
    qsort(h, k, sizeof *h, cmp_query);
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
