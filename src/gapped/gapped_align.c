/* gapped_align — a pass's anchors become alignments (../shared/spec/lastz-gapped-spec.md §5). */
#include <stdlib.h>
#include <string.h>
#include "gapped.h"

void hz_gset_free(hz_gset *S)
{
    for (int32_t i = 0; i < S->n; i++) { free(S->a[i].ops); free(S->a[i].pc); }
    free(S->a); free(S->kept); free(S->byend);
    memset(S, 0, sizeof *S);
}

/* index of the first piece of G at or after `from` with e1 >= row (e1 never decreases) */
static int32_t first_piece_reaching(const hz_galn *G, int32_t from, int64_t row)
{
    int32_t lo = from, hi = G->npc;
    while (lo < hi) { int32_t m = lo + (hi - lo) / 2; if (G->pc[m].e1 >= row) hi = m; else lo = m + 1; }
    return lo;
}

/* column offset of piece p at row `row` relative to column c (§5.1, §5.6) */
static int64_t offset_at(const hz_gpiece *p, int64_t row, int64_t c)
{
    return p->type == HZ_PC_DIAG ? p->b2 + (row - p->b1) - c : p->b2 - c;
}

int32_t hz_gapped_row_offset(const hz_galn *G, int64_t row, int64_t c, int64_t *x)
{
    int32_t s = first_piece_reaching(G, 0, row);
    if (s < G->npc) *x = offset_at(&G->pc[s], row, c);
    return s;
}

/* §5.1: 1 when the anchor lies on an accepted alignment; else its neighbours (gapped.h) */
int hz_gapped_neighbours(const hz_gset *S, int64_t a1, int64_t a2, hz_gref *left, hz_gref *right)
{
    int64_t dl = INT64_MAX, dr = INT64_MAX;
    left->aln = right->aln = -1; left->pc = right->pc = -1;
    for (int32_t k = 0; k < S->n; k++) {
        const hz_galn *G = &S->a[S->kept[k]];
        if (G->s1 > a1) break;
        if (G->t1 < a1) continue;
        int64_t x;
        int32_t s = hz_gapped_row_offset(G, a1, a2, &x);
        if (s >= G->npc) continue;
        if (x == 0) return 1;
        if (x > 0 && x < dr) { dr = x; right->aln = S->kept[k]; right->pc = s; }
        else if (x < 0 && -x < dl) { dl = -x; left->aln = S->kept[k]; left->pc = s; }
    }
    return 0;
}

/* §5.6: neighbour snapshots of the new alignment M against KEPT */
static void neighbours(const hz_gset *S, hz_galn *M)
{
    int64_t d[4] = { INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX };   /* br, bl, tr, tl */
    hz_gref *out[4] = { &M->br, &M->bl, &M->tr, &M->tl };
    for (int q = 0; q < 4; q++) out[q]->aln = out[q]->pc = -1;
    for (int32_t k = 0; k < S->n; k++) {
        const hz_galn *G = &S->a[S->kept[k]];
        if (G->s1 > M->t1 || G->t1 < M->s1) continue;
        int32_t s = first_piece_reaching(G, 0, M->s1);
        while (s < G->npc && G->pc[s].type == HZ_PC_HORZ) s++;
        if (s >= G->npc) continue;
        if (G->pc[s].b1 <= M->s1) {
            int64_t x = offset_at(&G->pc[s], M->s1, M->s2);
            if (x > 0 && x < d[0]) { d[0] = x; *out[0] = (hz_gref){ S->kept[k], s }; }
            else if (x < 0 && -x < d[1]) { d[1] = -x; *out[1] = (hz_gref){ S->kept[k], s }; }
        }
        int32_t t = first_piece_reaching(G, s, M->t1);
        while (t < G->npc && G->pc[t].type == HZ_PC_HORZ) t++;
        if (t >= G->npc) continue;
        int64_t x = offset_at(&G->pc[t], M->t1, M->t2);
        if (x > 0 && x < d[2]) { d[2] = x; *out[2] = (hz_gref){ S->kept[k], t }; }
        else if (x < 0 && -x < d[3]) { d[3] = -x; *out[3] = (hz_gref){ S->kept[k], t }; }
    }
}

/* insert S->a[S->n-1] into KEPT (before the first start1 >= its) and BYEND (before the first
 * end1 <= its) (§5) */
static void insert_new(hz_gset *S)
{
    int32_t id = S->n - 1, n = S->n - 1;
    const hz_galn *M = &S->a[id];
    int32_t lo = 0, hi = n;
    while (lo < hi) { int32_t m = (lo + hi) / 2; if (S->a[S->kept[m]].s1 >= M->s1) hi = m; else lo = m + 1; }
    memmove(S->kept + lo + 1, S->kept + lo, (size_t)(n - lo) * sizeof *S->kept);
    S->kept[lo] = id;
    lo = 0; hi = n;
    while (lo < hi) { int32_t m = (lo + hi) / 2; if (S->a[S->byend[m]].t1 <= M->t1) hi = m; else lo = m + 1; }
    memmove(S->byend + lo + 1, S->byend + lo, (size_t)(n - lo) * sizeof *S->byend);
    S->byend[lo] = id;
}

/* score of an alignment from its text (LASTZ score_alignment; §5.3) */
static int32_t rescore(const hz_gpass *P, const hz_galn *G)
{
    int64_t p1 = G->s1, p2 = G->s2; int32_t s = 0;
    for (int32_t k = 0; k < G->nops; k++) {
        int op = G->ops[k] & 3; int64_t n = G->ops[k] >> 2;
        if (op == HZ_OP_SUB) { for (int64_t j = 0; j < n; j++) s += P->sc->sub[P->T[p1 + j]][P->Q[p2 + j]]; p1 += n; p2 += n; }
        else { s -= P->sc->gap_open + (int32_t)n * P->sc->gap_extend; if (op == HZ_OP_INS) p2 += n; else p1 += n; }
    }
    return s;
}

/* §5.3 trim of leading / trailing indels; returns 0 when nothing is left */
static int trim(const hz_gpass *P, hz_galn *G)
{
    if (!G->nops) return 1;
    int changed = 0;
    if ((G->ops[0] & 3) != HZ_OP_SUB) {
        int32_t k = 0;
        while (k < G->nops && (G->ops[k] & 3) != HZ_OP_SUB) {
            if ((G->ops[k] & 3) == HZ_OP_INS) G->s2 += G->ops[k] >> 2; else G->s1 += G->ops[k] >> 2;
            k++;
        }
        if (k == G->nops) { G->score = HZ_G_WORST; return 1; }
        memmove(G->ops, G->ops + k, (size_t)(G->nops - k) * sizeof *G->ops);
        G->nops -= k; changed = 1;
    }
    if ((G->ops[G->nops - 1] & 3) != HZ_OP_SUB) {
        int32_t k = G->nops;
        while (k > 0 && (G->ops[k - 1] & 3) != HZ_OP_SUB) {
            k--;
            if ((G->ops[k] & 3) == HZ_OP_INS) G->t2 -= G->ops[k] >> 2; else G->t1 -= G->ops[k] >> 2;
        }
        if (k == 0) { G->score = HZ_G_WORST; return 1; }
        G->nops = k; changed = 1;
    }
    if (changed) G->score = rescore(P, G);
    return 1;
}

/* §5.4 pieces; returns -1 on out of memory */
static int make_pieces(hz_galn *G)
{
    int64_t h = G->t1 - G->s1 + 1, wd = G->t2 - G->s2 + 1, i = 0, j = 0;
    int32_t k = 0, cap = 2 * G->nops + 2;
    G->pc = malloc((size_t)cap * sizeof *G->pc); G->npc = 0;
    if (!G->pc) return -1;
    while (i < h || j < wd) {
        int64_t si = i, sj = j;
        while (k < G->nops && (G->ops[k] & 3) == HZ_OP_SUB) { i += G->ops[k] >> 2; j += G->ops[k] >> 2; k++; }
        hz_gpiece d = { G->s1 + si, G->s1 + i - 1, G->s2 + sj, G->s2 + j - 1, HZ_PC_DIAG };
        if (G->npc) {
            const hz_gpiece *pv = &G->pc[G->npc - 1];
            hz_gpiece c = { pv->e1 + 1, d.b1 - 1, pv->e2 + 1, d.b2 - 1, d.b1 == pv->e1 + 1 ? HZ_PC_HORZ : HZ_PC_VERT };
            G->pc[G->npc++] = c;
        }
        G->pc[G->npc++] = d;
        if ((i < h || j < wd) && k < G->nops) {
            if ((G->ops[k] & 3) == HZ_OP_INS) j += G->ops[k] >> 2; else i += G->ops[k] >> 2;
            k++;
        }
        if (G->npc + 2 > cap) break;   /* cannot happen: one DIAG and one connector per op */
    }
    return 0;
}

/* append run list b (in reverse) to a, merging equal kinds at the junction */
static int join_ops(uint32_t **a, int32_t *na, int32_t *cap, const uint32_t *b, int32_t nb)
{
    if (*na + nb > *cap) {
        int32_t c = *na + nb + 16;
        uint32_t *t = realloc(*a, (size_t)c * sizeof *t); if (!t) return -1;
        *a = t; *cap = c;
    }
    for (int32_t k = nb - 1; k >= 0; k--) {
        if (*na && ((*a)[*na - 1] & 3) == (b[k] & 3)) (*a)[*na - 1] += b[k] & ~3u;
        else (*a)[(*na)++] = b[k];
    }
    return 0;
}

static int grow_set(hz_gset *S)
{
    if (S->n < S->cap) return 0;
    int32_t c = S->cap ? 2 * S->cap : 64;
    hz_galn *a = realloc(S->a, (size_t)c * sizeof *a); if (!a) return -1; S->a = a;
    int32_t *k = realloc(S->kept, (size_t)c * sizeof *k); if (!k) return -1; S->kept = k;
    int32_t *b = realloc(S->byend, (size_t)c * sizeof *b); if (!b) return -1; S->byend = b;
    S->cap = c;
    return 0;
}

/* §5.10: the trivial alignment of target partition k and query partition q (-1: whole query),
 * inserted before any anchor */
static int add_trivial(const hz_gpass *P, hz_gset *S, int32_t k, int32_t q)
{
    if (grow_set(S)) return -1;
    hz_galn G; memset(&G, 0, sizeof G);
    G.s1 = P->sep[k] + 1; G.t1 = P->sep[k + 1] - 1;
    G.s2 = q < 0 ? 0 : P->qsep[q] + 1; G.t2 = q < 0 ? P->qlen - 1 : P->qsep[q + 1] - 1;
    int64_t n = G.t1 - G.s1 + 1, s = 0;
    for (int64_t i = 0; i < n; i++) {
        int a = P->T[G.s1 + i], b = P->Q[G.s2 + i];
        if (a >= 'a' && a <= 'z') a -= 32;
        if (b >= 'a' && b <= 'z') b -= 32;
        s += P->sc->sub[a][b];
        if (s > 2147483647) s = 2147483647;
    }
    G.score = s < P->thresh ? P->thresh : (int32_t)s;
    G.ops = malloc(sizeof *G.ops); G.pc = malloc(sizeof *G.pc);
    if (!G.ops || !G.pc) { free(G.ops); free(G.pc); return -1; }
    G.ops[0] = ((uint32_t)n << 2) | HZ_OP_SUB; G.nops = 1;
    G.pc[0] = (hz_gpiece){ G.s1, G.t1, G.s2, G.t2, HZ_PC_DIAG }; G.npc = 1;
    G.bl = G.br = G.tl = G.tr = (hz_gref){ -1, -1 };
    G.trivial = 1;
    S->a[S->n++] = G;
    insert_new(S);
    return 0;
}

int hz_gset_reserve(hz_gset *S, int64_t n)
{
    if (n > INT32_MAX - 64) return -1;
    if (n <= S->cap) return 0;
    hz_galn *a = realloc(S->a, (size_t)n * sizeof *a); if (!a) return -1; S->a = a;
    int32_t *k = realloc(S->kept, (size_t)n * sizeof *k); if (!k) return -1; S->kept = k;
    int32_t *b = realloc(S->byend, (size_t)n * sizeof *b); if (!b) return -1; S->byend = b;
    S->cap = (int32_t)n;
    return 0;
}

int hz_gapped_trivials(const hz_gpass *P, hz_gset *S)
{
    for (int32_t k = 0; k < P->ntrivial; k++)
        if (add_trivial(P, S, P->trivial[2 * k], P->trivial[2 * k + 1])) return -1;
    return 0;
}

int hz_gapped_extend(const hz_gpass *P, hz_gwork *w, const hz_gset *S, int64_t a1, int64_t a2,
                     hz_galn *G, uint32_t **rops, int32_t *rcap)
{
    hz_gref left, right;
    memset(G, 0, sizeof *G);
    int in = hz_gapped_neighbours(S, a1, a2, &left, &right);
    w->nb[0] = in ? (hz_gref){ -1, -1 } : left; w->nb[1] = in ? (hz_gref){ -1, -1 } : right;
    if (in) return 2;
    int32_t part = hz_gapped_part(P->sep, P->npart, a1);
    int64_t low1 = P->sep[part] + 1, high1 = P->sep[part + 1];
    int64_t low2 = 0, high2 = P->qlen;
    if (P->qsep) { int32_t q = hz_gapped_part(P->qsep, P->nqpart, a2); low2 = P->qsep[q] + 1; high2 = P->qsep[q + 1]; }
    int32_t cf = 0, cr = 0;                      /* candidate suffixes (§5.2) */
    { int32_t lo = 0, hi = S->n; while (lo < hi) { int32_t m = (lo + hi) / 2; if (S->a[S->kept[m]].s1 > a1) hi = m; else lo = m + 1; } cf = lo; }
    { int32_t lo = 0, hi = S->n; while (lo < hi) { int32_t m = (lo + hi) / 2; if (S->a[S->byend[m]].t1 < a1) hi = m; else lo = m + 1; } cr = lo; }
    int32_t ocap = 0, nr = 0; int64_t e1, e2;
    w->trunc = 0; w->stopped = 0;
    int32_t sl = hz_gapped_half(P, w, S, 1, a1, a2, low1, high1, low2, high2, left, right,
                                S->byend ? S->byend + cr : NULL, S->n - cr, &G->ops, &G->nops, &ocap, &e1, &e2);
    if (sl == HZ_G_WORST) goto oom;
    if (w->stopped) goto stopped;
    G->s1 = a1 + 1 - e1; G->s2 = a2 + 1 - e2;
    int32_t sr = hz_gapped_half(P, w, S, 0, a1, a2, low1, high1, low2, high2, left, right,
                                S->kept ? S->kept + cf : NULL, S->n - cf, rops, &nr, rcap, &e1, &e2);
    if (sr == HZ_G_WORST) goto oom;
    if (w->stopped) goto stopped;
    G->t1 = a1 + e1; G->t2 = a2 + e2;
    G->score = sl + sr;
    return hz_gapped_finish(P, G, &ocap, *rops, nr);
oom:
    free(G->ops); G->ops = NULL;
    return -1;
stopped:
    free(G->ops); G->ops = NULL; G->nops = 0;
    return 3;
}

int hz_gapped_nb_changes(const hz_gpass *P, const hz_gset *S, int64_t a1, int64_t a2, const hz_gref run[2],
                         int64_t *const rg[2], const int64_t nrow[2])
{
    hz_gref nb[2];
    if (hz_gapped_neighbours(S, a1, a2, &nb[0], &nb[1])) return 1;
    if (nb[0].aln == run[0].aln && nb[0].pc == run[0].pc && nb[1].aln == run[1].aln && nb[1].pc == run[1].pc)
        return 0;                                /* the same followers (§5.6 snapshots never change) */
    if (run[0].aln >= 0 || run[1].aln >= 0) return 1;
    int64_t low2 = 0, high2 = P->qlen;
    if (P->qsep) { int32_t q = hz_gapped_part(P->qsep, P->nqpart, a2); low2 = P->qsep[q] + 1; high2 = P->qsep[q + 1]; }
    for (int rev = 0; rev < 2; rev++)
        if (nrow[rev] && hz_gapped_bounds_reach(P, S, rev, a1, a2, rev ? a2 + 1 - low2 : high2 - a2 - 1,
                                                nb[0], nb[1], rg[rev], nrow[rev]))
            return 1;
    return 0;
}

int hz_gapped_finish(const hz_gpass *P, hz_galn *G, int32_t *ocap, const uint32_t *rops, int32_t nr)
{
    if (join_ops(&G->ops, &G->nops, ocap, rops, nr)) goto oom;
    trim(P, G);
    if (make_pieces(G)) goto oom;
    if ((G->t1 < G->s1 && G->t2 < G->s2) || G->score < P->thresh) {   /* empty; §5.5 */
        free(G->ops); free(G->pc); G->ops = NULL; G->pc = NULL; G->nops = G->npc = 0;
        return 0;
    }
    return 1;
oom:
    free(G->ops); G->ops = NULL;
    return -1;
}

int hz_gapped_accept(hz_gset *S, hz_galn *G)
{
    if (grow_set(S)) return -1;
    neighbours(S, G);
    S->a[S->n++] = *G;
    insert_new(S);
    return 0;
}

int hz_gapped_pass(const hz_gpass *P, hz_gwork *w, const hz_ganchor *an, int64_t nan, hz_gset *S)
{
    uint32_t *rops = NULL; int32_t rcap = 0;
    int rc = -1;
    if (hz_gapped_trivials(P, S)) return -1;
    for (int64_t k = 0; k < nan; k++) {
        hz_galn G;
        int e = hz_gapped_extend(P, w, S, an[k].a1, an[k].a2, &G, &rops, &rcap);
        if (e < 0) goto out;
        if (e == 1 && hz_gapped_accept(S, &G)) { free(G.ops); free(G.pc); goto out; }
    }
    rc = 0;
    S->nout = S->n;
out:
    free(rops);
    return rc;
}
