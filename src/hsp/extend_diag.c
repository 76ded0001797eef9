/* extend_diag — the diagonal path: exact long extensions with a per-diagonal cache (spec §4.2;
 * extend.h says how and why). */
#include "extend.h"
#include "xdrop_diag.h"
#include <stdlib.h>
#include <string.h>

#define HZ_DIAG_BITS 17   /* at most 2^17 cache entries (11.5 MiB) */

/* Column c of diagonal d: target c, query c - d. */
#define W(c) ((int64_t)sub[((unsigned)R[(c)] << 3) | Q[(c) - d]])

struct hz_diagent {
    int64_t diag;
    uint32_t gen;
    /* right: the leader's scan from column rs: rm columns read (the drop column included),
     * ended at the edge (redge) or by the drop; best rv at offset rarg (-1: none) */
    int rlive;
    int64_t rs, rm, rv, rarg;
    int redge;
    /* left: the last anchor's left scan from column ls - 1 leftwards: lm columns read, best lv
     * at 0-based offset larg (-1: none), ended at the edge (ledge) or by the drop. */
    int llive;
    int64_t ls, lm, lv, larg;
    int ledge;
};

void hz_diagcache_free(hz_diagcache *c) { free(c->e); memset(c, 0, sizeof *c); }

void hz_diagcache_reset(hz_diagcache *c)
{
    if (++c->gen == 0) {   /* wrapped: clear so that no stale entry looks live */
        if (c->e) memset(c->e, 0, sizeof(hz_diagent) << c->bits);
        c->gen = 1;
    }
}

static size_t slot(const hz_diagcache *c, int64_t d)
{
    return (size_t)(((uint64_t)d * 0x9E3779B97F4A7C15ull) >> (64 - c->bits));
}

static hz_diagent *lookup(const hz_diagcache *c, int64_t d)
{
    if (!c->e) return NULL;
    hz_diagent *e = &c->e[slot(c, d)];
    return e->gen == c->gen && e->diag == d ? e : NULL;
}

int hz_diagcache_covers(const hz_diagcache *c, const hz_anchor *a)
{
    int64_t d = (int64_t)a->ar - (int64_t)a->aq, s = a->ar;
    const hz_diagent *e = lookup(c, d);
    return e && e->llive && s > e->ls;
}

/* The right side of the anchor at column s from the entry's leader (an earlier, further-left
 * right scan on this diagonal), when s lies in it.  Returns 1 with *out, or 0. */
static int right_from_leader(const uint8_t *R, const uint8_t *Q, int64_t d, const int32_t *sub, int32_t X,
                             hz_diagent *e, int64_t s, const int64_t *known_base, hz_side *out)
{
    if (!e->rlive || s <= e->rs || s - e->rs >= e->rm) return 0;
    const int64_t o = s - e->rs, rs = e->rs;
    if (known_base) {   /* the column sum from the leader to s came with the left sides */
        if (e->rarg < o) return 0;
        out->m = e->rm - o; out->edge = e->redge;
        out->v = e->rv - *known_base; out->arg = e->rarg - o;
        return 1;
    }
    int64_t pre = 0, rm = 0;   /* the leader's prefix sum and running maximum at s */
    for (int64_t i = 0; i < o; i++) { pre += W(rs + i); rm = pre > rm ? pre : rm; }
    const int64_t base = pre;
    out->m = e->rm - o; out->edge = e->redge;
    if (rm == base || e->rarg >= o) {
        /* the leader is at its running maximum here, or its best lies ahead (every column
         * before it is lower): this scan meets it there at the latest and follows it */
        out->v = e->rv - base; out->arg = e->rv > base ? e->rarg - o : -1;
        return 1;
    }
    int64_t lp = pre, lr = rm, S = 0, bb = 0, bp = -1, i;
    for (i = o; i < e->rm; i++) {
        int64_t w = W(rs + i);
        lp += w; lr = lp > lr ? lp : lr;
        S += w;
        { int up = S > bb; bb = up ? S : bb; bp = up ? i - o : bp; }
        if (base + bb == lr) {
            if (e->rv > base + bb) { out->v = e->rv - base; out->arg = e->rarg - o; }
            else { out->v = bb; out->arg = bp; }
            return 1;
        }
        if (bb - S > X) {
            out->v = bb; out->arg = bp; out->m = i + 1 - o; out->edge = 0;
            return 1;
        }
    }
    if (e->redge) { out->v = bb; out->arg = bp; return 1; }
    return 0;   /* runs past the leader's drop: the caller scans it afresh */
}

static hz_diagent *entry_for(hz_diagcache *c, int64_t d)
{
    hz_diagent *e = &c->e[slot(c, d)];
    if (e->gen != c->gen || e->diag != d) { memset(e, 0, sizeof *e); e->gen = c->gen; e->diag = d; }
    return e;
}

/* entries for about as many diagonals as the sequences have (2^10 .. 2^HZ_DIAG_BITS) */
static int cache_ready(hz_diagcache *c, uint32_t Rlen, uint32_t Qlen)
{
    if (c->e) return 0;
    uint64_t nd = (uint64_t)Rlen + Qlen;
    c->bits = 10;
    while (c->bits < HZ_DIAG_BITS && ((uint64_t)1 << c->bits) < nd) c->bits++;
    c->e = calloc((size_t)1 << c->bits, sizeof *c->e);
    if (!c->e) return -1;
    if (!c->gen) c->gen = 1;
    return 0;
}

static int64_t navail_right(const hz_anchor *a, uint32_t Rlen, uint32_t Qlen)
{
    if (a->ar >= Rlen || a->aq >= Qlen) return 0;
    return (Rlen - a->ar < Qlen - a->aq) ? Rlen - a->ar : Qlen - a->aq;
}

/* Anchors g[0..n) of one diagonal in ascending ar (no repeats): right sides from the right
 * end leftwards (each follows its right neighbour's scan), left sides from the left end
 * rightwards (each follows its left neighbour's), both continuing the entry's state. */
static void diagonal_group(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                           const hz_anchor *g, size_t n, const int32_t *sub, int32_t X,
                           hz_diagcache *c, hz_ext *res)
{
    const int64_t d = (int64_t)g[0].ar - (int64_t)g[0].aq;
    hz_diagent *e = entry_for(c, d);
    hz_side nb, cur;
    /* left sides first, left to right; their fresh column sums give the sum from the last
     * group's rightmost anchor (the right leader, when it is the left state's anchor) */
    int have = e->llive && e->ls < (int64_t)g[0].ar;
    int chained = have && e->rlive && e->rs == e->ls;
    int64_t base = 0, fs;
    nb.m = e->lm; nb.v = e->lv; nb.arg = e->larg; nb.edge = e->ledge;
    int64_t prev_s = e->ls;
    for (size_t k = 0; k < n; k++) {
        const int64_t s = g[k].ar;
        int64_t nl = g[k].ar < g[k].aq ? g[k].ar : g[k].aq;
        if (have) { hz_side_scan(R, Q, d, sub, X, s - 1, -1, nl, &nb, s - prev_s, &cur, chained ? &fs : NULL); base += fs; }
        else hz_side_scan(R, Q, d, sub, X, s - 1, -1, nl, NULL, 0, &cur, NULL);
        res[k].left_score = (int32_t)cur.v; res[k].left_ext = cur.arg >= 0 ? (int32_t)cur.arg + 1 : 0;
        nb = cur; prev_s = s; have = 1;
    }
    e->llive = 1; e->ls = prev_s; e->lm = nb.m; e->lv = nb.v; e->larg = nb.arg; e->ledge = nb.edge;
    /* right sides, right to left; the rightmost from the leader or afresh, then the leader */
    for (size_t k = n; k-- > 0;) {
        const int64_t s = g[k].ar;
        if (k == n - 1) {
            if (!right_from_leader(R, Q, d, sub, X, e, s, chained ? &base : NULL, &cur))
                hz_side_scan(R, Q, d, sub, X, s, +1, navail_right(&g[k], Rlen, Qlen), NULL, 0, &cur, NULL);
            e->rlive = 1; e->rs = s; e->rm = cur.m; e->redge = cur.edge; e->rv = cur.v; e->rarg = cur.arg;
        } else {
            hz_side_scan(R, Q, d, sub, X, s, +1, navail_right(&g[k], Rlen, Qlen), &nb, g[k + 1].ar - s, &cur, NULL);
        }
        res[k].right_score = (int32_t)cur.v; res[k].right_ext = (int32_t)cur.arg;
        nb = cur;
    }
}

void hz_diagbuf_free(hz_diagbuf *b)
{
    hz_diagcache_free(&b->cache);
    free(b->order); free(b->tmp); free(b->gres); free(b->keys); free(b->ganc);
    memset(b, 0, sizeof *b);
}

void hz_anchor_order_diag(const hz_anchor *a, const uint32_t *ids, uint32_t *ord, uint32_t *tmp, size_t n)
{
    for (size_t i = 0; i < n; i++) ord[i] = (uint32_t)i;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                const hz_anchor *x = &a[ids ? ids[ord[i]] : ord[i]], *y = &a[ids ? ids[ord[j]] : ord[j]];
                int64_t dx = (int64_t)x->ar - x->aq, dy = (int64_t)y->ar - y->aq;
                int le = dx < dy || (dx == dy && x->ar <= y->ar);
                tmp[k++] = le ? ord[i++] : ord[j++];
            }
            while (i < mid) tmp[k++] = ord[i++];
            while (j < hi) tmp[k++] = ord[j++];
        }
        memcpy(ord, tmp, n * sizeof *ord);
    }
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    void *q = realloc(*p, need * elem);
    if (!q) return -1;
    *p = q; *cap = need;
    return 0;
}

/* LSD radix sort of keys[0..n) (8-bit digits; digits all keys share are skipped) */
static void sort_keys(uint64_t *k, uint64_t *tmp, size_t n)
{
    size_t cnt[8][256];
    memset(cnt, 0, sizeof cnt);
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 8; b++) cnt[b][(k[i] >> (8 * b)) & 255]++;
    uint64_t *src = k, *dst = tmp;
    for (int b = 0; b < 8; b++) {
        if (cnt[b][(k[0] >> (8 * b)) & 255] == n) continue;
        size_t pos = 0;
        for (int v = 0; v < 256; v++) { size_t c = cnt[b][v]; cnt[b][v] = pos; pos += c; }
        for (size_t i = 0; i < n; i++) dst[cnt[b][(src[i] >> (8 * b)) & 255]++] = src[i];
        uint64_t *t = src; src = dst; dst = t;
    }
    if (src != k) memcpy(k, src, n * sizeof *k);
}

/* one diagonal's anchors ganc[0..m) (ascending ar): extend, then visit */
static int run_group(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen, size_t m,
                     const int32_t *sub, int32_t xdrop, hz_diagbuf *buf, hz_diag_visit visit, void *arg,
                     const uint32_t *idx)
{
    if (grow((void **)&buf->gres, &buf->gres_cap, m, sizeof *buf->gres)) return -1;
    diagonal_group(R, Rlen, Q, Qlen, buf->ganc, m, sub, xdrop, &buf->cache, buf->gres);
    for (size_t k = 0; k < m; k++) visit(arg, idx ? idx[k] : SIZE_MAX, &buf->ganc[k], &buf->gres[k]);
    return 0;
}

int hz_diag_groups(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                   const hz_anchor *a, const uint32_t *ids, size_t n, const int32_t *sub, int32_t xdrop,
                   hz_diagbuf *buf, hz_diag_visit visit, void *arg)
{
    if (n == 0) return 0;
    if (cache_ready(&buf->cache, Rlen, Qlen)) return -1;
    if (!ids && (uint64_t)Rlen + Qlen < ((uint64_t)1 << 32)) {
        /* keys (ar - aq + Qlen, ar) hold the anchor itself: radix sort them */
        if (grow((void **)&buf->keys, &buf->keys_cap, 2 * n, sizeof *buf->keys)) return -1;
        uint64_t *key = buf->keys;
        for (size_t i = 0; i < n; i++)
            key[i] = ((uint64_t)((int64_t)a[i].ar - a[i].aq + Qlen) << 32) | a[i].ar;
        sort_keys(key, key + n, n);
        for (size_t g0 = 0; g0 < n;) {
            size_t g1 = g0;
            uint64_t dk = key[g0] >> 32;
            int64_t d = (int64_t)dk - Qlen;
            while (g1 < n && key[g1] >> 32 == dk) g1++;
            if (grow((void **)&buf->ganc, &buf->ganc_cap, g1 - g0, sizeof *buf->ganc)) return -1;
            for (size_t k = g0; k < g1; k++) {
                uint32_t ar = (uint32_t)key[k];
                buf->ganc[k - g0] = (hz_anchor){ ar, (uint32_t)((int64_t)ar - d) };
            }
            if (run_group(R, Rlen, Q, Qlen, g1 - g0, sub, xdrop, buf, visit, arg, NULL)) return -1;
            g0 = g1;
        }
        return 0;
    }
    if (grow((void **)&buf->order, &buf->order_cap, n, sizeof *buf->order) ||
        grow((void **)&buf->tmp, &buf->tmp_cap, n, sizeof *buf->tmp) ||
        grow((void **)&buf->ganc, &buf->ganc_cap, n, sizeof *buf->ganc)) return -1;
    hz_anchor_order_diag(a, ids, buf->order, buf->tmp, n);
    const uint32_t *ord = buf->order;
    for (size_t g0 = 0; g0 < n;) {
        const hz_anchor *f = &a[ids ? ids[ord[g0]] : ord[g0]];
        int64_t d = (int64_t)f->ar - f->aq;
        size_t g1 = g0;
        for (; g1 < n; g1++) {
            const hz_anchor *x = &a[ids ? ids[ord[g1]] : ord[g1]];
            if ((int64_t)x->ar - x->aq != d) break;
            buf->ganc[g1 - g0] = *x;
        }
        if (run_group(R, Rlen, Q, Qlen, g1 - g0, sub, xdrop, buf, visit, arg, ord + g0)) return -1;
        g0 = g1;
    }
    return 0;
}

typedef struct { hz_ext *res; } into_res;
static void put_res(void *arg, size_t i, const hz_anchor *a, const hz_ext *r)
{
    (void)a;
    ((into_res *)arg)->res[i] = *r;
}

int hz_extend_diagonals(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                        const hz_anchor *a, const uint32_t *ids, size_t n,
                        const int32_t *sub, int32_t xdrop, hz_ext *res, hz_diagbuf *buf)
{
    into_res ir = { res };
    hz_diagcache_reset(&buf->cache);
    return hz_diag_groups(R, Rlen, Q, Qlen, a, ids, n, sub, xdrop, buf, put_res, &ir);
}
