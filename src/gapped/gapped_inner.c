/* gapped_inner — interpolation (--inner=H): alignments between and around the outer ones
 * (../shared/spec/lastz-gapped-spec.md §6). */
#include <stdlib.h>
#include <string.h>
#include "gapped.h"

enum { WIN = 20000, WORD = 7 };

typedef struct { const hz_galn *B; int right; } hz_gactive;           /* §6.1 ACTIVE entry */
typedef struct { int64_t p1, p2, n; int32_t s; } hz_ghsp;              /* box-local HSP */
typedef struct { int64_t max, cut; int32_t lo, hi, leaf_lo, hi_ix; } hz_gnode;   /* §6.3 k-d node */

typedef struct {
    const hz_gpass *P; hz_gwork *w;
    hz_gset *inner;                    /* owns the inner alignments (a[]) */
    int32_t *order; int64_t norder;    /* INNER list: indices into inner->a, by start1 */
    hz_gactive *act; int64_t nact;
    int64_t *block; uint16_t *touched; int64_t ntouched;   /* §6.3 step 2 blocking */
    int32_t *head, *next;              /* S1 word lists */
    hz_ghsp *h; int64_t nh, caph;
    int err;
} ictx;

/* ---- §6.3 step 2: seed hits and their x-drop HSPs ---- */
static int word_code(const uint8_t *s, int64_t e)
{
    int c = 0;
    for (int64_t k = e - WORD; k < e; k++) {
        int v;
        switch (s[k]) { case 'A': v = 0; break; case 'C': v = 1; break; case 'G': v = 2; break; case 'T': v = 3; break; default: return -1; }
        c = c * 4 + v;
    }
    return c;
}

static void add_hsp(ictx *c, int64_t p1, int64_t p2, int64_t n, int32_t s)
{
    if (c->nh == c->caph) {
        int64_t k = c->caph ? 2 * c->caph : 256;
        hz_ghsp *t = realloc(c->h, (size_t)k * sizeof *t);
        if (!t) { c->err = 1; return; }
        c->h = t; c->caph = k;
    }
    c->h[c->nh++] = (hz_ghsp){ p1, p2, n, s };
}

static void seed_box(ictx *c, const uint8_t *S1, int64_t l1, const uint8_t *S2, int64_t l2)
{
    const hz_gscore *sc = c->P->sc;
    const int32_t X = sc->xdrop;
    c->nh = 0;
    for (int k = 0; k < 1 << (2 * WORD); k++) c->head[k] = -1;
    int32_t *nx = realloc(c->next, (size_t)(l1 + 1) * sizeof *nx);
    if (!nx) { c->err = 1; return; }
    c->next = nx;
    for (int64_t e = WORD; e <= l1; e++) {          /* lists in decreasing e1 */
        int code = word_code(S1, e);
        if (code < 0) continue;
        nx[e] = c->head[code]; c->head[code] = (int32_t)e;
    }
    for (int64_t e2 = WORD; e2 <= l2; e2++) {
        int code = word_code(S2, e2);
        if (code < 0) continue;
        for (int32_t e1 = c->head[code]; e1 >= 0; e1 = nx[e1]) {
            int64_t diag = e1 - e2;
            uint16_t key = (uint16_t)diag;
            if (c->block[key] == 0 && c->ntouched < 65536) c->touched[c->ntouched++] = key;
            if (c->block[key] > e2 - WORD) continue;
            int64_t stop = c->block[key] + diag; if (stop < 0) stop = 0;
            int64_t p = e1, left = e1; int32_t run = 0, bl = 0;
            while (p > stop && run >= bl - X) {
                p--; run += sc->msub[S1[p]][S2[p - diag]];
                if (run > bl) { bl = run; left = p; }
            }
            stop = l1 <= l2 + diag ? l1 : l2 + diag;
            p = e1; run = 0; int32_t br = 0; int64_t right = e1;
            while (p < stop && run >= br - X) {
                run += sc->msub[S1[p]][S2[p - diag]]; p++;
                if (run > br) { br = run; right = p; }
            }
            if (p - diag > c->block[key]) c->block[key] = p - diag;
            if (bl + br >= sc->inner) add_hsp(c, left, left - diag, right - left, bl + br);
        }
    }
    for (int64_t k = 0; k < c->ntouched; k++) c->block[c->touched[k]] = 0;
    c->ntouched = 0;
}

/* ---- §6.3 step 3: chaining with LASTZ's k-d tree ---- */
static int hsp_cmp(const void *x, const void *y)
{
    const hz_ghsp *a = x, *b = y;
    if (a->p1 != b->p1) return a->p1 < b->p1 ? -1 : 1;
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    if (a->p2 != b->p2) return a->p2 < b->p2 ? -1 : 1;
    return (a->s > b->s) - (a->s < b->s);
}

typedef struct {
    const hz_ghsp *h; int32_t *perm; hz_gnode *nd; int32_t nn;
    int64_t *score; int32_t *pred;
    int64_t x, y, dg, ovl;                  /* the current HSP; ovl = cost per overlapping base */
    int32_t k;
} chain_t;

static int64_t pax(const chain_t *t, int32_t slot, int ax)
{
    const hz_ghsp *s = &t->h[t->perm[slot]];
    return ax == 0 ? s->p1 - s->p2 : s->p2;
}

static void pswap(chain_t *t, int32_t i, int32_t j) { int32_t v = t->perm[i]; t->perm[i] = t->perm[j]; t->perm[j] = v; }

static int32_t split(chain_t *t, int32_t lo, int32_t hi, int ax)
{
    for (;;) {
        int32_t m = (lo + hi) / 2;
        int64_t a = pax(t, lo, ax), b = pax(t, m, ax), c = pax(t, hi, ax), pivot;
        if ((a <= b && b <= c) || (c <= b && b <= a)) { pswap(t, lo, m); pivot = b; }
        else if ((a <= c && c <= b) || (b <= c && c <= a)) { pswap(t, lo, hi); pivot = c; }
        else pivot = a;
        int32_t i = lo, j = hi + 1;
        while (i < j) {
            i++; while (i <= hi && pax(t, i, ax) <= pivot) i++;
            j--; while (j >= lo && pax(t, j, ax) > pivot) j--;
            pswap(t, i, j);
        }
        pswap(t, i, j); pswap(t, lo, j);
        if (j < hi) return j;
        if (hi - lo == 2) return hi - 1;
        hi--;
    }
}

static int32_t build(chain_t *t, int32_t lo, int32_t hi, int ax)
{
    int32_t id = t->nn++;
    hz_gnode *n = &t->nd[id];
    n->max = 0; n->lo = n->hi = -1; n->leaf_lo = -1;
    if (hi - lo + 1 <= 3) { n->leaf_lo = lo; n->hi_ix = hi; return id; }
    int32_t m = split(t, lo, hi, ax);
    t->nd[id].cut = pax(t, m, ax); t->nd[id].hi_ix = m;
    int32_t l = build(t, lo, m, 1 - ax);
    t->nd[id].lo = l;
    int32_t h = build(t, m + 1, hi, 1 - ax);
    t->nd[id].hi = h;
    return id;
}

static int64_t connect_cost(const chain_t *t, int32_t j)
{
    const hz_ghsp *a = &t->h[j];
    int64_t ov = (t->dg >= a->p1 - a->p2) ? t->y - (a->p2 + a->n) : t->x - (a->p1 + a->n);
    return ov >= 0 ? 0 : t->ovl * -ov;
}

static void search(chain_t *t, int32_t id, int ax, int32_t *bj, int64_t *bv)
{
    const hz_gnode *n = &t->nd[id];
    if (*bv >= n->max) return;
    if (n->leaf_lo >= 0) {
        for (int32_t s = n->leaf_lo; s <= n->hi_ix; s++) {
            int32_t j = t->perm[s];
            if (t->h[j].p1 < t->x && t->h[j].p2 < t->y) {
                int64_t v = t->score[j] - connect_cost(t, j);
                if (v > *bv) { *bv = v; *bj = j; }
            }
        }
        return;
    }
    if (ax == 1) {
        if (t->y >= n->cut) search(t, n->hi, 0, bj, bv);
        search(t, n->lo, 0, bj, bv);
    } else if (t->dg - n->cut >= 0) { search(t, n->hi, 1, bj, bv); search(t, n->lo, 1, bj, bv); }
    else { search(t, n->lo, 1, bj, bv); search(t, n->hi, 1, bj, bv); }
}

/* keep only the best chain of c->h (in sorted order); returns its length, -1 on out of memory */
static int64_t chain(ictx *c)
{
    int32_t n = (int32_t)c->nh;
    if (n == 0) return 0;
    qsort(c->h, (size_t)n, sizeof *c->h, hsp_cmp);
    chain_t t = { c->h, malloc(((size_t)n + 1) * sizeof(int32_t)), malloc((2 * (size_t)n + 1) * sizeof(hz_gnode)), 0,   /* a k-d tree of n items has at most 2n-1 nodes */
                  calloc((size_t)n, sizeof(int64_t)), malloc((size_t)n * sizeof(int32_t)), 0, 0, 0,
                  100LL * c->P->sc->sub['A']['A'], 0 };
    int32_t *slot = malloc((size_t)n * sizeof *slot);
    int64_t len = -1;
    if (!t.perm || !t.nd || !t.score || !t.pred || !slot) goto out;
    for (int32_t i = 0; i <= n; i++) t.perm[i] = i < n ? i : 0;
    int32_t root = build(&t, 0, n - 1, 1);
    for (int32_t i = 0; i < n; i++) slot[t.perm[i]] = i;
    int64_t best = 0; int32_t bend = -1;
    for (int32_t k = 0; k < n; k++) {
        t.x = c->h[k].p1; t.y = c->h[k].p2; t.dg = t.x - t.y; t.k = k;
        int32_t bj = -1; int64_t bv = 0;
        search(&t, root, 1, &bj, &bv);
        t.score[k] = 100LL * c->h[k].s + bv;
        if (t.score[k] > best) { best = t.score[k]; bend = k; }
        t.pred[k] = bj;
        for (int32_t id = root;;) {
            hz_gnode *nd = &t.nd[id];
            if (t.score[k] > nd->max) nd->max = t.score[k];
            if (nd->leaf_lo >= 0) break;
            id = slot[k] <= nd->hi_ix ? nd->lo : nd->hi;
        }
    }
    len = 0;
    for (int32_t k = bend; k >= 0; k = t.pred[k]) t.perm[len++] = k;   /* reuse perm: chain, last first */
    for (int64_t i = 0; i < len; i++) c->h[i] = c->h[t.perm[len - 1 - i]];   /* indices only grow along a chain */
    c->nh = len;
out:
    free(t.perm); free(t.nd); free(t.score); free(t.pred); free(slot);
    return len;
}

/* ---- §6.3 steps 4-5: gapped extension in the box, merge into INNER ---- */
static void box(ictx *c, int64_t b1, int64_t e1, int64_t b2, int64_t e2)
{
    if (c->err) return;
    const hz_gpass *P = c->P;
    int64_t l1 = e1 - b1 + 1, l2 = e2 - b2 + 1;
    if (l1 < WORD || l2 < WORD) return;
    const uint8_t *S1 = P->T + b1 - 1, *S2 = P->Q + b2 - 1;
    seed_box(c, S1, l1, S2, l2);
    if (c->err || c->nh == 0) return;
    if (chain(c) < 0) { c->err = 1; return; }
    if (c->nh == 0) return;
    int64_t sep[2] = { -1, l1 };
    hz_gpass B = { S1, l1, sep, 1, S2, l2, NULL, 0, P->sc, P->sc->inner, P->tb_cap, P->diag, P->reported_trunc, NULL, 0, 0, P->qcls };
    /* §5.10 inside the box: the box sequences are unpartitioned, so LASTZ's
     * identical_sequences (gapped_extend.c L1139, L1873) gives two identical ones (letters
     * compared upper-cased) the trivial alignment before any anchor; --notrivial drops it
     * afterwards (gapped_cmd.c) */
    int32_t triv[2] = { 0, -1 };
    int same = l1 == l2;
    for (int64_t i = 0; same && i < l1; i++)
        same = (S1[i] >= 'a' && S1[i] <= 'z' ? S1[i] - 32 : S1[i]) == (S2[i] >= 'a' && S2[i] <= 'z' ? S2[i] - 32 : S2[i]);
    if (same) { B.trivial = triv; B.ntrivial = 1; }
    hz_gseg *sg = malloc((size_t)c->nh * sizeof *sg);
    if (!sg) { c->err = 1; return; }
    for (int64_t i = 0; i < c->nh; i++) sg[i] = (hz_gseg){ c->h[i].p1, c->h[i].p2, c->h[i].n, c->h[i].s };
    hz_ganchor *an = NULL;
    int64_t na = hz_gapped_anchors(&B, sg, c->nh, 0, &an);
    free(sg);
    hz_gset S = { 0 };
    if (na < 0 || hz_gapped_pass(&B, c->w, an, na, &S)) { free(an); hz_gset_free(&S); c->err = 1; return; }
    free(an);
    /* move the box's alignments (KEPT order) into the inner store, shifted (§6.3 step 5) */
    hz_gset *I = c->inner;
    int32_t first = I->n;
    if (I->n + S.n > I->cap) {
        int32_t cap = (I->n + S.n) * 2 + 16;
        hz_galn *a = realloc(I->a, (size_t)cap * sizeof *a);
        int32_t *o = realloc(c->order, (size_t)cap * sizeof *o);
        if (a) I->a = a;
        if (o) c->order = o;
        if (!a || !o) { hz_gset_free(&S); c->err = 1; return; }
        I->cap = cap;
    }
    for (int32_t k = 0; k < S.n; k++) {
        hz_galn *G = &S.a[S.kept[k]];
        G->s1 += b1 - 1; G->t1 += b1 - 1; G->s2 += b2 - 1; G->t2 += b2 - 1;
        free(G->pc); G->pc = NULL; G->npc = 0;
        I->a[I->n++] = *G; G->ops = NULL;
    }
    hz_gset_free(&S);
    /* merge: the new alignments first among equal start1 */
    int32_t nn = I->n - first;
    if (nn == 0) return;              /* nothing to merge (and c->order may still be NULL) */
    int32_t *m = malloc(((size_t)c->norder + (size_t)nn) * sizeof *m);
    if (!m) { c->err = 1; return; }
    int64_t i = 0, j = 0, o = 0;
    while (i < c->norder || j < nn) {
        if (j < nn && (i >= c->norder || I->a[first + j].s1 <= I->a[c->order[i]].s1)) m[o++] = first + (int32_t)j++;
        else m[o++] = c->order[i++];
    }
    memcpy(c->order, m, (size_t)o * sizeof *m);
    c->norder = o;
    free(m);
}

/* §6.2: a window (1-based inclusive corners) becomes boxes inside target (and, for a
 * partitioned query, query) records */
static void window(ictx *c, int64_t b1, int64_t e1, int64_t b2, int64_t e2)
{
    const uint8_t *T = c->P->T, *Q = c->P->Q;
    if (b1 == e1 || b2 == e2) return;
    if (T[b1 - 1] == 0) b1 += 1; else if (T[b1] == 0) b1 += 2;
    if (T[e1 - 1] == 0) e1 -= 1;
    if (b1 >= e1) return;
    int32_t p1 = hz_gapped_part(c->P->sep, c->P->npart, b1 - 1), p2 = hz_gapped_part(c->P->sep, c->P->npart, e1 - 1), q1 = 0, q2 = 0;
    if (c->P->qsep) {
        if (Q[b2 - 1] == 0) b2 += 1; else if (Q[b2] == 0) b2 += 2;
        if (Q[e2 - 1] == 0) e2 -= 1;
        if (b2 >= e2) return;
        q1 = hz_gapped_part(c->P->qsep, c->P->nqpart, b2 - 1); q2 = hz_gapped_part(c->P->qsep, c->P->nqpart, e2 - 1);
    }
    if (p1 == p2 && q1 == q2) { box(c, b1, e1, b2, e2); return; }
    const int64_t *sep = c->P->sep, *qs = c->P->qsep;
    int64_t e1L = e1, b1R = b1, e2L = e2, b2R = b2;
    if (p1 != p2) { e1L = sep[p1 + 1]; b1R = sep[p2] + 2; }
    if (q1 != q2) { e2L = qs[q1 + 1]; b2R = qs[q2] + 2; }
    box(c, b1, e1L, b2, e2L);
    box(c, b1R, e1, b2R, e2);
    if (q1 == q2) for (int32_t x = p1 + 1; x < p2; x++) box(c, sep[x] + 2, sep[x + 1], b2, e2L);
    else if (p1 == p2) for (int32_t y = q1 + 1; y < q2; y++) box(c, b1, e1L, qs[y] + 2, qs[y + 1]);
    else for (int32_t x = p1 + 1; x < p2; x++) for (int32_t y = q1 + 1; y < q2; y++) box(c, sep[x] + 2, sep[x + 1], qs[y] + 2, qs[y + 1]);
}

static void dismiss(ictx *c, int64_t k)
{
    hz_gactive e = c->act[k];
    memmove(c->act + k, c->act + k + 1, (size_t)(c->nact - k - 1) * sizeof *c->act);
    c->nact--;
    if (e.right) {
        int64_t len1 = c->P->tlen, len2 = c->P->qlen, x1 = e.B->t1 + 1, x2 = e.B->t2 + 1;
        window(c, x1, x1 + WIN / 2 < len1 ? x1 + WIN / 2 : len1, x2, x2 + WIN / 2 < len2 ? x2 + WIN / 2 : len2);
    }
}

static void push_front(ictx *c, const hz_galn *A, int right)
{
    memmove(c->act + 1, c->act, (size_t)c->nact * sizeof *c->act);
    c->act[0] = (hz_gactive){ A, right };
    c->nact++;
}

/* §6.1 */
static void windows(ictx *c, const hz_galn *const *outer, int64_t n)
{
    for (int64_t k = 0; k < n && !c->err; k++) {
        const hz_galn *A = outer[k];
        int64_t a1 = A->s1 + 1, a2 = A->s2 + 1, A1 = A->t1 + 1, A2 = A->t2 + 1;
        int64_t lft = a1 - 1 < WIN ? 0 : a1 - WIN;
        while (c->nact && c->act[0].B->t1 + 1 < lft) dismiss(c, 0);
        for (int64_t i = 1; i < c->nact;) {
            if (lft > c->act[i].B->t1 + 1) dismiss(c, i); else i++;
        }
        int overlap = 0, clean = 1;
        for (int64_t i = 0; i < c->nact; i++) {
            int64_t b1 = c->act[i].B->t1 + 1, b2 = c->act[i].B->t2 + 1;
            int64_t dd = (b2 - b1) - (a2 - a1);
            if ((dd < 0 ? -dd : dd) <= WIN && (b1 >= a1 || b2 >= a2)) {
                overlap = 1;
                if (b1 < A1 && b2 < A2) c->act[i].right = 0;
                else { clean = 0; break; }
            }
        }
        if (overlap) { push_front(c, A, clean); continue; }
        const hz_galn *best = NULL; int64_t dist = 3 * WIN; int leftEnd = 1;
        for (int64_t i = 0; i < c->nact; i++) {
            int64_t b1 = c->act[i].B->t1 + 1, b2 = c->act[i].B->t2 + 1;
            if (b1 < a1 && b2 < a2 && a2 < b2 + WIN) {
                leftEnd = 0;
                if (c->act[i].right && (a1 - b1) + (a2 - b2) < dist) { best = c->act[i].B; dist = (a1 - b1) + (a2 - b2); }
                c->act[i].right = 0;
            }
        }
        if (best) window(c, best->t1 + 1, a1, best->t2 + 1, a2);
        else if (leftEnd) window(c, a1 <= WIN / 2 ? 1 : a1 - WIN / 2, a1, a2 <= WIN / 2 ? 1 : a2 - WIN / 2, a2);
        push_front(c, A, 1);
    }
    while (c->nact && !c->err) dismiss(c, 0);
}

int hz_gapped_interpolate(const hz_gpass *P, hz_gwork *w, const hz_gset *S, hz_gset *inner,
                          const hz_galn ***out, int64_t *nout)
{
    ictx c = { 0 };
    c.P = P; c.w = w; c.inner = inner;
    const int32_t no = S->nout;
    const hz_galn **outer = malloc(((size_t)no + 1) * sizeof *outer);
    c.act = malloc(((size_t)S->n + 1) * sizeof *c.act);
    c.block = calloc(65536, sizeof *c.block); c.touched = malloc(65536 * sizeof *c.touched);
    c.head = malloc((1 << (2 * WORD)) * sizeof *c.head);
    int rc = -1;
    *out = NULL; *nout = 0;
    if (!outer || !c.act || !c.block || !c.touched || !c.head) goto done;
    for (int32_t k = 0; k < no; k++) outer[k] = &S->a[S->kept[k]];
    windows(&c, outer, no);
    if (c.err) goto done;
    /* §6.4: outer and inner by start1, outer first on ties */
    const hz_galn **m = malloc(((size_t)no + (size_t)c.norder + 1) * sizeof *m);
    if (!m) goto done;
    int64_t i = 0, j = 0, o = 0;
    while (i < no || j < c.norder) {
        if (i < no && (j >= c.norder || outer[i]->s1 <= inner->a[c.order[j]].s1)) m[o++] = outer[i++];
        else m[o++] = &inner->a[c.order[j++]];
    }
    *out = m; *nout = o;
    rc = 0;
done:
    free(outer); free(c.act); free(c.block); free(c.touched); free(c.head); free(c.next); free(c.h); free(c.order);
    return rc;
}
