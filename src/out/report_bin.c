/* report_bin — canvas coordinates and the density raster (see report_bin.h). */
#include "report_bin.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hz_raxis_layout(hz_raxis *a)
{
    uint64_t o = 0;
    for (size_t i = 0; i < a->n; i++) { a->off[i] = o; o += a->len[i]; }
    a->total = o;
}

int hz_rbin_map(const hz_raxis *t, const hz_raxis *q, const hz_rseg *s, hz_rdiag *d,
                char *err, size_t errlen)
{
    if (s->ti >= t->n || s->qi >= q->n) { snprintf(err, errlen, "record index out of range"); return -1; }
    uint64_t tl = t->len[s->ti], ql = q->len[s->qi];
    if (s->ts < 1 || s->te < s->ts || s->te > tl) {
        snprintf(err, errlen, "target range %llu-%llu is not inside %s (1-%llu)", (unsigned long long)s->ts,
                 (unsigned long long)s->te, t->name[s->ti], (unsigned long long)tl);
        return -1;
    }
    if (s->qs < 1 || s->qe < s->qs || s->qe > ql) {
        snprintf(err, errlen, "query range %llu-%llu is not inside %s (1-%llu)", (unsigned long long)s->qs,
                 (unsigned long long)s->qe, q->name[s->qi], (unsigned long long)ql);
        return -1;
    }
    if (s->te - s->ts != s->qe - s->qs) {
        snprintf(err, errlen, "target and query ranges differ in length (%llu and %llu bases)",
                 (unsigned long long)(s->te - s->ts + 1), (unsigned long long)(s->qe - s->qs + 1));
        return -1;
    }
    d->n = s->te - s->ts + 1;
    d->x0 = t->off[s->ti] + s->ts - 1;
    if (!s->minus) { d->y0 = q->off[s->qi] + s->qs - 1; d->dy = 1; }
    else { d->y0 = q->off[s->qi] + ql - s->qs; d->dy = -1; }   /* reverse position p -> forward L - p */
    return 0;
}

int hz_rgrid_init(hz_rgrid *g, uint32_t w, uint32_t h, uint64_t X, uint64_t Y)
{
    memset(g, 0, sizeof *g);
    g->w = w; g->h = h; g->X = X; g->Y = Y;
    size_t nb = (size_t)w * h;
    for (int s = 0; s < 2; s++) {
        g->bases[s] = calloc(nb, sizeof *g->bases[s]);
        g->maxscore[s] = malloc(nb * sizeof *g->maxscore[s]);
        if (!g->bases[s] || !g->maxscore[s]) { hz_rgrid_free(g); return -1; }
        for (size_t i = 0; i < nb; i++) g->maxscore[s][i] = INT32_MIN;
    }
    return 0;
}

void hz_rgrid_free(hz_rgrid *g)
{
    for (int s = 0; s < 2; s++) { free(g->bases[s]); free(g->maxscore[s]); g->bases[s] = NULL; g->maxscore[s] = NULL; }
}

/* first canvas position of bin b (b may be nbins: the axis end), the inverse of hz_rbin_of */
static uint64_t bin_start(uint32_t b, uint64_t len, uint32_t nbins)
{
    if (len < (UINT64_MAX >> 17) && b <= 65536) return ((uint64_t)b * len + nbins - 1) / nbins;
    return (uint64_t)(((unsigned __int128)b * len + nbins - 1) / nbins);
}

void hz_rgrid_add(hz_rgrid *g, const hz_rdiag *d, int strand, int64_t score)
{
    int32_t sc = score > INT32_MAX ? INT32_MAX : score < INT32_MIN + 1 ? INT32_MIN + 1 : (int32_t)score;
    uint64_t *B = g->bases[strand];
    int32_t *M = g->maxscore[strand];
    uint64_t k = 0;
    while (k < d->n) {
        uint64_t x = d->x0 + k, y = d->dy > 0 ? d->y0 + k : d->y0 - k;
        uint32_t bx = hz_rbin_of(x, g->X, g->w), by = hz_rbin_of(y, g->Y, g->h);
        uint64_t sx = bin_start(bx + 1, g->X, g->w) - x;                 /* bases left in this x bin */
        uint64_t sy = d->dy > 0 ? bin_start(by + 1, g->Y, g->h) - y      /* ... in this y bin, upwards */
                                : y - bin_start(by, g->Y, g->h) + 1;     /* ... downwards */
        uint64_t run = d->n - k;
        if (sx < run) run = sx;
        if (sy < run) run = sy;
        size_t i = (size_t)by * g->w + bx;
        B[i] += run;
        if (sc > M[i]) M[i] = sc;
        k += run;
    }
    g->hsps[strand]++;
    g->total_bases[strand] += d->n;
}
