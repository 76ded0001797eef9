/* gapped_anchor — a pass's segments become anchor cells in processing order
 * (../shared/spec/lastz-gapped-spec.md §3.4-§3.6). */
#include <stdlib.h>
#include "gapped.h"

/* §3.4 sort key: diagonal, pos2, length, score (all ascending) */
static int seg_cmp(const void *x, const void *y)
{
    const hz_gseg *a = x, *b = y;
    int64_t da = a->p1 - a->p2, db = b->p1 - b->p2;
    if (da != db) return da < db ? -1 : 1;
    if (a->p2 != b->p2) return a->p2 < b->p2 ? -1 : 1;
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    return (a->score > b->score) - (a->score < b->score);
}

/* §3.6: score descending, then a2, then a1 ascending */
static int anchor_cmp(const void *x, const void *y)
{
    const hz_ganchor *a = x, *b = y;
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    if (a->a2 != b->a2) return a->a2 < b->a2 ? -1 : 1;
    return (a->a1 > b->a1) - (a->a1 < b->a1);
}

/* §3.5: offset of the peak cell of a segment: the middle of the first best 31-window */
static int64_t seg_peak(const hz_gpass *P, const hz_gseg *s)
{
    enum { W = 31 };
    if (s->n <= W) return s->n / 2;
    const uint8_t *t = P->T + s->p1, *q = P->Q + s->p2;
    int64_t sum = 0, best, bj = 0;
    for (int j = 0; j < W; j++) sum += P->sc->sub[t[j]][q[j]];
    best = sum;
    for (int64_t j = 1; j + W <= s->n; j++) {
        sum += P->sc->sub[t[j + W - 1]][q[j + W - 1]] - P->sc->sub[t[j - 1]][q[j - 1]];
        if (sum > best) { best = sum; bj = j; }     /* strictly larger: the first best wins */
    }
    return bj + W / 2;
}

int64_t hz_gapped_anchors(const hz_gpass *P, hz_gseg *segs, int64_t n, int merge, hz_ganchor **out)
{
    *out = NULL;
    if (n == 0) return 0;
    int64_t m = n - 1;
    if (merge) { qsort(segs, (size_t)n, sizeof *segs, seg_cmp); m = 0; }   /* merge overlapping, same diagonal (§3.4) */
    for (int64_t i = 1; merge && i < n; i++) {
        hz_gseg *c = &segs[m], *s = &segs[i];
        if (s->p1 - s->p2 == c->p1 - c->p2 && s->p2 < c->p2 + c->n) {
            if (s->p2 + s->n > c->p2 + c->n) c->n = s->p2 + s->n - c->p2;
            if (s->score > c->score) c->score = s->score;
        } else segs[++m] = *s;
    }
    m++;
    hz_ganchor *an = malloc((size_t)m * sizeof *an);
    if (!an) return -1;
    for (int64_t i = 0; i < m; i++) {
        int64_t k = seg_peak(P, &segs[i]);
        an[i].a1 = segs[i].p1 + k; an[i].a2 = segs[i].p2 + k; an[i].score = segs[i].score;
    }
    qsort(an, (size_t)m, sizeof *an, anchor_cmp);
    *out = an;
    return m;
}
