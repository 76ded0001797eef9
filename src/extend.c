/* extend — CPU materializer. */
#include "extend.h"

size_t hz_extend_cpu(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                     const hz_anchor *a, const uint32_t *ids, size_t nid,
                     const hz_xparams *xp, hz_hsp *out)
{
    size_t k = 0;
    for (size_t i = 0; i < nid; i++) {
        const hz_anchor *an = &a[ids[i]];
        k += (size_t)hz_materialize(R, Rlen, Q, Qlen, an->ar, an->aq, xp, &out[k]);
    }
    return k;
}

#include <stdlib.h>
#include <string.h>

void hz_diagbuf_free(hz_diagbuf *b)
{
    free(b->pre); free(b->rm); free(b->order);
    memset(b, 0, sizeof *b);
}

int hz_finish_hsp(const uint8_t *R, const uint8_t *Q, const hz_anchor *an, const hz_ext *e,
                  const hz_xparams *xp, hz_hsp *out)
{
    return hz_keep_hsp(R, Q, an->ar, an->aq, e->right_score + e->left_score, e->left_ext,
                       e->right_ext, xp, out);
}

typedef struct {
    int valid;
    int64_t s;          /* first column of the leader */
    int64_t m;          /* columns processed */
    int edge;           /* 1: stopped at the sequence edge, 0: stopped by the drop */
    int64_t V, argoff;  /* final best and its first offset (-1: none) */
} leader_t;

static int grow(hz_diagbuf *b, size_t need)
{
    if (need <= b->cap) return 0;
    size_t c = b->cap ? b->cap : 4096;
    while (c < need) c *= 2;
    int64_t *p = realloc(b->pre, c * sizeof *p), *r;
    if (!p) return -1;
    b->pre = p;
    r = realloc(b->rm, c * sizeof *r);
    if (!r) return -1;
    b->rm = r; b->cap = c;
    return 0;
}

/* scan from column s in direction dir over at most navail columns; diagonal d = col - qcol */
static int scan_leader(const uint8_t *R, const uint8_t *Q, int64_t d, int64_t s, int dir,
                       int64_t navail, const int32_t *sub, int32_t X, leader_t *L, hz_diagbuf *b)
{
    int64_t S = 0, best = 0, bp = -1, i;
    if (grow(b, 2)) return -1;
    b->pre[0] = 0; b->rm[0] = 0;
    L->edge = 1;
    for (i = 0; i < navail; i++) {
        int64_t c = s + dir * i;
        S += sub[(R[c] << 3) | Q[c - d]];
        if (S > best) { best = S; bp = i; }
        if ((size_t)i + 2 > b->cap && grow(b, (size_t)i + 2)) return -1;
        b->pre[i + 1] = S; b->rm[i + 1] = best;
        if (best - S > X) { i++; L->edge = 0; break; }
    }
    L->valid = 1; L->s = s; L->m = i; L->V = best; L->argoff = bp;
    return 0;
}

/* one side for an ordered list of anchors on one diagonal; dir +1 right, -1 left */
static int side_pass(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                     const hz_anchor *a, const uint32_t *ids, const uint32_t *ord, size_t n,
                     int dir, const int32_t *sub, int32_t X, hz_ext *res, hz_diagbuf *b)
{
    leader_t L = {0};
    for (size_t k = 0; k < n; k++) {
        size_t idx = ord[k];
        const hz_anchor *an = &a[ids[idx]];
        int64_t d = (int64_t)an->ar - (int64_t)an->aq;
        int64_t s = dir > 0 ? (int64_t)an->ar : (int64_t)an->ar - 1;
        int64_t navail = dir > 0 ? (int64_t)(Rlen - an->ar < Qlen - an->aq ? Rlen - an->ar : Qlen - an->aq)
                                 : (int64_t)(an->ar < an->aq ? an->ar : an->aq);
        if (dir > 0 && (an->ar >= Rlen || an->aq >= Qlen)) navail = 0;
        int64_t best = -1, off = -1;   /* result: best score, offset of the first maximum */
        int done = 0;
        int64_t o = L.valid ? (s - L.s) * dir : -1;
        if (L.valid && o >= 1 && o < L.m) {
            int64_t base = b->pre[o];
            int64_t bb = 0, bp = -1;
            if (b->rm[o] == base) {
                best = L.V - base; off = L.V > base ? L.argoff - o : -1; done = 1;
            } else {
                for (int64_t i = o; i < L.m; i++) {
                    int64_t Sb = b->pre[i + 1] - base;
                    if (Sb > bb) { bb = Sb; bp = i - o; }
                    if (base + bb == b->rm[i + 1]) {
                        if (L.V > base + bb) { best = L.V - base; off = L.argoff - o; }
                        else { best = bb; off = bp; }
                        done = 1; break;
                    }
                    if (bb - Sb > X) { best = bb; off = bp; done = 1; break; }
                }
                if (!done && L.edge) { best = bb; off = bp; done = 1; }
            }
        }
        if (!done) {
            if (scan_leader(R, Q, d, s, dir, navail, sub, X, &L, b)) return -1;
            best = L.V; off = L.argoff;
        }
        if (dir > 0) { res[idx].right_score = (int32_t)best; res[idx].right_ext = (int32_t)off; }
        else { res[idx].left_score = (int32_t)best; res[idx].left_ext = off >= 0 ? (int32_t)off + 1 : 0; }
    }
    return 0;
}

int hz_extend_diagonals(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                        const hz_anchor *a, const uint32_t *ids, size_t n,
                        const int32_t *sub, int32_t xdrop, hz_ext *res, hz_diagbuf *buf)
{
    if (n == 0) return 0;
    if (n > buf->order_cap) {
        uint32_t *o = realloc(buf->order, n * sizeof *o);
        if (!o) return -1;
        buf->order = o; buf->order_cap = n;
    }
    uint32_t *ord = buf->order;
    for (size_t i = 0; i < n; i++) ord[i] = (uint32_t)i;
    {
        /* bottom-up merge sort of positions by (diagonal, ar); stable, thread-safe */
        uint32_t *tmp = malloc(n * sizeof *tmp);
        if (!tmp) return -1;
        for (size_t w = 1; w < n; w *= 2) {
            for (size_t lo = 0; lo < n; lo += 2 * w) {
                size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
                size_t i = lo, j = mid, k = lo;
                while (i < mid && j < hi) {
                    const hz_anchor *x = &a[ids[ord[i]]], *y = &a[ids[ord[j]]];
                    int64_t dx = (int64_t)x->ar - x->aq, dy = (int64_t)y->ar - y->aq;
                    int le = dx < dy || (dx == dy && x->ar <= y->ar);
                    tmp[k++] = le ? ord[i++] : ord[j++];
                }
                while (i < mid) tmp[k++] = ord[i++];
                while (j < hi) tmp[k++] = ord[j++];
            }
            memcpy(ord, tmp, n * sizeof *ord);
        }
        free(tmp);
    }
    size_t g0 = 0;
    while (g0 < n) {
        const hz_anchor *f = &a[ids[ord[g0]]];
        int64_t d = (int64_t)f->ar - f->aq;
        size_t g1 = g0 + 1;
        while (g1 < n && (int64_t)a[ids[ord[g1]]].ar - a[ids[ord[g1]]].aq == d) g1++;
        if (side_pass(R, Rlen, Q, Qlen, a, ids, ord + g0, g1 - g0, +1, sub, xdrop, res, buf)) return -1;
        /* left side: descending positions */
        for (size_t i = g0, j = g1 - 1; i < j; i++, j--) { uint32_t t = ord[i]; ord[i] = ord[j]; ord[j] = t; }
        if (side_pass(R, Rlen, Q, Qlen, a, ids, ord + g0, g1 - g0, -1, sub, xdrop, res, buf)) return -1;
        g0 = g1;
    }
    return 0;
}
