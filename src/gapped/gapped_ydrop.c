/* gapped_ydrop — one-sided y-drop extension with affine gaps, bounded by the alignments
 * already accepted (../shared/spec/lastz-gapped-spec.md §4). */
#include <stdlib.h>
#include <string.h>
#include "gapped.h"

enum { FROM_C = 0, FROM_I = 1, FROM_D = 2, EXT_I = 4, EXT_D = 8 };

typedef struct { int32_t g, s; int64_t x, last; int type; } hz_gact;   /* §4.5 active record */

/* one extension's state: grid mapping, bounds, followers and masks */
typedef struct {
    const hz_gpass *P; hz_gwork *w; const hz_gset *S;
    int rev; int64_t a1, a2, row, LY, RY, L, R;
    hz_gref lf, rf;          /* L-follower, R-follower (§4.4) */
    int64_t tag;             /* mask value of the current row */
} hz_gext;

void hz_gwork_free(hz_gwork *w)
{
    free(w->C); free(w->D); free(w->mask); free(w->tb); free(w->tbrow); free(w->act);
    free(w->rg[0]); free(w->rg[1]); free(w->sv); free(w->qc);
    memset(w, 0, sizeof *w);
}

static int ensure_cols(hz_gwork *w, int64_t need)
{
    if (need <= w->cap) return 0;
    int64_t c = w->cap ? w->cap : 1024;
    while (c < need) c *= 2;
    int32_t *C = realloc(w->C, (size_t)c * sizeof *C); if (!C) return -1; w->C = C;
    int32_t *D = realloc(w->D, (size_t)c * sizeof *D); if (!D) return -1; w->D = D;
    int64_t *m = realloc(w->mask, (size_t)c * sizeof *m); if (!m) return -1; w->mask = m;
    int32_t *v = realloc(w->sv, (size_t)(c + HZ_G_SLACK) * sizeof *v); if (!v) return -1; w->sv = v;
    uint8_t *q = realloc(w->qc, (size_t)(c + HZ_G_SLACK)); if (!q) return -1; w->qc = q;
    memset(q + w->cap, 0, (size_t)(c + HZ_G_SLACK - w->cap));   /* read past end, never used */
    memset(m + w->cap, 0, (size_t)(c - w->cap) * sizeof *m);
    w->cap = c;
    return 0;
}

static int ensure_tb(hz_gwork *w, int64_t need)
{
    if (need <= w->tbcap) return 0;
    int64_t c = w->tbcap ? w->tbcap : 65536;
    while (c < need) c *= 2;
    uint8_t *t = realloc(w->tb, (size_t)c); if (!t) return -1;
    w->tb = t; w->tbcap = c;
    return 0;
}

static int ensure_rows(hz_gwork *w, int64_t need)
{
    if (need <= w->rowcap) return 0;
    int64_t c = w->rowcap ? w->rowcap : 4096;
    while (c < need) c *= 2;
    int64_t *t = realloc(w->tbrow, (size_t)c * sizeof *t); if (!t) return -1;
    w->tbrow = t; w->rowcap = c;
    return 0;
}

static const hz_gpiece *piece(const hz_gset *S, hz_gref f) { return &S->a[f.aln].pc[f.pc]; }

/* FWD follower moved past its piece (advance_up of §4.4); returns the new column bound */
static int64_t advance_up(hz_gext *x, hz_gref *f, int look_right)
{
    const hz_galn *G = &x->S->a[f->aln];
    int32_t s = f->pc + 1;
    if (s < G->npc) {
        if (G->pc[s].type == HZ_PC_HORZ) s++;
        f->pc = s;
        return G->pc[s].b2 - x->a2;
    }
    *f = look_right ? G->tr : G->tl;
    if (f->aln < 0) return 0;
    const hz_gpiece *p = piece(x->S, *f);
    if (p->type == HZ_PC_DIAG) return x->row + (p->b2 - x->a2) - (p->b1 - x->a1);
    return p->b2 - x->a2;
}

/* REV follower moved past its piece (advance_down of §4.4) */
static int64_t advance_down(hz_gext *x, hz_gref *f, int look_right)
{
    const hz_galn *G = &x->S->a[f->aln];
    int32_t s = f->pc - 1;
    if (s >= 0) {
        if (G->pc[s].type == HZ_PC_HORZ) s--;
        f->pc = s;
        return x->a2 - G->pc[s].e2;
    }
    *f = look_right ? G->br : G->bl;
    if (f->aln < 0) return 0;
    const hz_gpiece *p = piece(x->S, *f);
    if (p->type == HZ_PC_DIAG) return x->row + (x->a2 - p->e2) - (x->a1 - p->e1);
    return x->a2 - p->e2;
}

/* update_bounds (§4.4) at row x->row */
static void update_bounds(hz_gext *x)
{
    int64_t r = x->row;
    if (x->lf.aln >= 0) {
        const hz_gpiece *p = piece(x->S, x->lf);
        int stay = x->rev ? (x->a1 - r < 0 || p->b1 <= x->a1 - r) : (p->e1 >= x->a1 + r);   /* a1-r is unsigned in LASTZ */
        if (stay) { if (p->type == HZ_PC_DIAG) x->L++; }
        else x->L = (x->rev ? advance_down(x, &x->lf, 1) : advance_up(x, &x->lf, 0)) + 1;
        if (x->lf.aln >= 0 && x->L > x->LY) x->LY = x->L;
    }
    if (x->rf.aln >= 0) {
        const hz_gpiece *p = piece(x->S, x->rf);
        int stay = x->rev ? (x->a1 - r < 0 || p->b1 <= x->a1 - r) : (p->e1 >= x->a1 + r);   /* a1-r is unsigned in LASTZ */
        if (stay) { if (p->type == HZ_PC_DIAG) x->R++; }
        else x->R = (x->rev ? advance_down(x, &x->rf, 0) : advance_up(x, &x->rf, 1)) - 1;
        if (x->rf.aln >= 0) x->RY = x->R <= 0 ? 0 : (x->R < x->RY ? x->R : x->RY);
    }
}

/* initial L, R of §4.4 (x: rev, a1, a2, S set; L = 0, R = N + 1) */
static void init_bounds(hz_gext *x, hz_gref left, hz_gref right, int64_t N)
{
    const int64_t a1 = x->a1, a2 = x->a2;
    if (left.aln >= 0) { const hz_gpiece *p = piece(x->S, left); x->L = (p->b2 - a2) - (p->type == HZ_PC_DIAG ? p->b1 - a1 : 0); }
    if (right.aln >= 0) { const hz_gpiece *p = piece(x->S, right); x->R = (p->b2 - a2) - (p->type == HZ_PC_DIAG ? p->b1 - a1 : 0); }
    if (x->rev) {
        int64_t L = x->L, R = x->R;
        if (left.aln < 0 && right.aln >= 0) { x->L = 1 - R; x->R = N + 1; }
        else if (left.aln >= 0 && right.aln < 0) { x->R = -L - 1; x->L = 0; }
        else if (left.aln >= 0 && right.aln >= 0) { x->L = 1 - R; x->R = -L - 1; }
    }
}

/* The followers move with the rows alone (update_bounds reads no LY / RY), so their bounds can be
 * replayed against a recorded region (spec §12).  A half that ran without neighbours had no
 * bound and the tail cap NN = N; with neighbours the DP is the same while at every row r
 * L <= LY(r), R >= RY(r) with R > 0, and NN(r) lets the row's tail (§4.3) run as before: NN = N,
 * or NN >= RY(r + 1) with RY(r + 1) < N (the tail stopped before nearing N; NN >= RY(r + 1) - 1
 * would do).  The last recorded row's tail is never read: the DP ended in that row (r = M, the
 * traceback reads only cells left of or above the best; or the LY >= RY break; a truncated or
 * polled-out half is redone anyway).  The region's block minima / maxima make it conservative. */
int hz_gapped_bounds_reach(const hz_gpass *P, const hz_gset *S, int rev, int64_t a1, int64_t a2, int64_t N,
                           hz_gref left, hz_gref right, const int64_t *rg, int64_t nrow)
{
    hz_gext x = { P, NULL, S, rev, a1, a2, 0, 0, 0, 0, N + 1, rev ? right : left, rev ? left : right, 0 };
    init_bounds(&x, left, right, N);
    const hz_gref *rs = rev ? &x.lf : &x.rf;       /* as in hz_gapped_half */
    for (int64_t r = 1; r <= nrow; r++) {
        if (x.lf.aln < 0 && x.rf.aln < 0) return 0;    /* no follower left: no bound from here on */
        const int64_t *g = rg + 2 * (r / HZ_G_RGB);
        int64_t lo = g[0], hi = g[1], hi2 = hi;
        if (r < nrow && rg[2 * ((r + 1) / HZ_G_RGB) + 1] > hi2) hi2 = rg[2 * ((r + 1) / HZ_G_RGB) + 1];
        x.row = r; x.LY = lo; x.RY = hi;
        update_bounds(&x);
        if (x.lf.aln >= 0 && x.L > lo) return 1;
        if (x.rf.aln >= 0 && (x.R <= 0 || x.R < hi)) return 1;
        int64_t NN = (rs->aln >= 0 && x.R > 0) ? x.R - 1 : N;
        if (r < nrow && NN != N && !(hi2 < N && NN >= hi2)) return 1;
    }
    return 0;
}

static void mark(hz_gext *x, int64_t col)
{
    if (col >= x->LY && col <= x->RY) x->w->mask[col] = x->tag;
}

/* build of §4.5: place record a on piece a->s and mark its columns in this row */
static void build(hz_gext *x, hz_gact *a)
{
    const hz_gpiece *p = &x->S->a[a->g].pc[a->s];
    int64_t hend;
    a->type = p->type;
    if (!x->rev) { a->x = p->b2 - x->a2; a->last = p->e1 - x->a1; hend = p->e2 - x->a2; }
    else         { a->x = x->a2 - p->e2; a->last = x->a1 - p->b1; hend = x->a2 - p->b2; }
    if (p->type != HZ_PC_HORZ) { mark(x, a->x); return; }
    /* LASTZ's x is unsigned (build_active_seg, gapped_extend.c L4923): a gap piece that starts
     * left of the anchor's column wraps to a huge x, so max(LY, x) passes RY and no column of
     * it is masked (a DIAG piece's single column behaves as signed; this range does not) */
    if (a->x < 0) return;
    int64_t lo = a->x > x->LY ? a->x : x->LY, hi = hend < x->RY ? hend : x->RY;
    for (int64_t c = lo; c <= hi; c++) x->w->mask[c] = x->tag;
}

/* update_active of §4.5; *ci = next candidate to activate.  Returns -1 on out of memory. */
static int update_active(hz_gext *x, const int32_t *cand, int32_t ncand, int32_t *ci)
{
    hz_gwork *w = x->w;
    hz_gact *act = w->act;
    int64_t keep = 0, r = x->row;
    if (ensure_cols(w, x->RY + 2)) return -1;
    for (int64_t k = 0; k < w->nact; k++) {
        hz_gact a = act[k];
        if (a.last >= r) {
            if (a.type == HZ_PC_DIAG) a.x++;
            mark(x, a.x);
        } else {
            const hz_galn *G = &x->S->a[a.g];
            a.s += x->rev ? -1 : 1;
            if (a.s < 0 || a.s >= G->npc) continue;            /* past the alignment's end */
            build(x, &a);
            if (a.type == HZ_PC_HORZ) { a.s += x->rev ? -1 : 1; build(x, &a); }
        }
        act[keep++] = a;
    }
    w->nact = keep;
    while (*ci < ncand) {
        const hz_galn *G = &x->S->a[cand[*ci]];
        if ((x->rev ? x->a1 - G->t1 : G->s1 - x->a1) != r) break;
        if (w->nact == w->actcap) {
            int64_t c = w->actcap ? 2 * w->actcap : 64;
            void *t = realloc(w->act, (size_t)c * sizeof(hz_gact)); if (!t) return -1;
            w->act = t; w->actcap = c; act = t;
        }
        hz_gact a = { cand[*ci], x->rev ? G->npc - 1 : 0, 0, 0, 0 };
        build(x, &a);
        act[w->nact++] = a;
        (*ci)++;
    }
    return 0;
}

/* explored region of row r (speculative runs, spec §12): the columns [LY, RY] where §4.5 marks
 * can land, kept per block of HZ_G_RGB rows */
static int record_row(hz_gwork *w, int rev, int64_t r, int64_t LY, int64_t RY)
{
    int64_t b = r / HZ_G_RGB;
    if (2 * b + 2 > w->rgcap[rev]) {
        int64_t c = w->rgcap[rev] ? 2 * w->rgcap[rev] : 256;
        while (c < 2 * b + 2) c *= 2;
        int64_t *t = realloc(w->rg[rev], (size_t)c * sizeof *t); if (!t) return -1;
        w->rg[rev] = t; w->rgcap[rev] = c;
    }
    int64_t *g = w->rg[rev] + 2 * b;
    if (r == 1 || r % HZ_G_RGB == 0) { g[0] = LY; g[1] = RY; }
    else { if (LY < g[0]) g[0] = LY; if (RY > g[1]) g[1] = RY; }
    w->nrow[rev] = r;
    return 0;
}

static int push_op(uint32_t **ops, int32_t *n, int32_t *cap, int op)
{
    if (*n && ((*ops)[*n - 1] & 3) == (uint32_t)op) { (*ops)[*n - 1] += 4; return 0; }
    if (*n == *cap) {
        int32_t c = *cap ? 2 * *cap : 64;
        uint32_t *t = realloc(*ops, (size_t)c * sizeof *t); if (!t) return -1;
        *ops = t; *cap = c;
    }
    (*ops)[(*n)++] = 4u | (uint32_t)op;
    return 0;
}

static void report_truncation(const hz_gpass *P, int rev, int64_t a1, int64_t a2, int64_t er, int64_t ec)
{
    if (!P->diag) return;
    int64_t t = a1 + P->tdiag;               /* lastz's target position (§4.2) */
    if (!rev) fprintf(P->diag, "truncating alignment ending at (%u,%u);", (unsigned)(er + t + 1), (unsigned)(ec + a2 + 1));
    else fprintf(P->diag, "truncating alignment starting at (%u,%u);", (unsigned)(t + 2 - er), (unsigned)(a2 + 2 - ec));
    fprintf(P->diag, "  anchor at (%u,%u)\n", (unsigned)t, (unsigned)a2);
    if (P->reported_trunc && !*P->reported_trunc) {
        *P->reported_trunc = 1;
        fprintf(P->diag, "truncation can be reduced by using --allocate:traceback to increase traceback memory\n");
    }
}

int32_t hz_gapped_half(const hz_gpass *P, hz_gwork *w, const hz_gset *S, int rev,
                       int64_t a1, int64_t a2, int64_t low1, int64_t high1,
                       int64_t low2, int64_t high2, hz_gref left, hz_gref right,
                       const int32_t *cand, int32_t ncand,
                       uint32_t **ops, int32_t *nops, int32_t *opcap, int64_t *er, int64_t *ec)
{
    const int64_t M = rev ? a1 + 1 - low1 : high1 - a1 - 1;
    const int64_t N = rev ? a2 + 1 - low2 : high2 - a2 - 1;
    *er = *ec = 0;
    w->nrow[rev] = 0;
    if (M <= 0 || N <= 0) return 0;
    const int32_t E = P->sc->gap_extend, gOE = P->sc->gap_open + E, Y = P->sc->ydrop;
    const int64_t tail = E ? Y / E + 6 : (N + 1 < 500000 ? N + 1 : 500000);
    const int vec = hz_gapped_row_vec_ok(P->sc->gap_open, E, Y);
    /* A(r), B(c) of §4.1 as pointer and step */
    const uint8_t *A = rev ? P->T + a1 + 1 : P->T + a1, *B = rev ? P->Q + a2 + 1 : P->Q + a2;
    const int64_t st = rev ? -1 : 1;
    hz_gext x = { P, w, S, rev, a1, a2, 0, 0, 0, 0, N + 1, rev ? right : left, rev ? left : right, 0 };
    w->gen++; w->nact = 0; w->nqc = 0;
    const hz_gqcls *qk = vec && P->qcls && P->qcls->n ? P->qcls : NULL;
    int32_t tab[16];
    if (ensure_rows(w, 1) || ensure_cols(w, 2) || ensure_tb(w, tail + 2)) return HZ_G_WORST;
    init_bounds(&x, left, right, N);
    const hz_gref *rs = rev ? &x.lf : &x.rf;       /* the follower started at the right neighbour */
    int32_t *C = w->C, *D = w->D; uint8_t *tb = w->tb;
    int64_t used = 0, col;
    /* row 0 */
    C[0] = 0; D[0] = -gOE; tb[used++] = 0; w->tbrow[0] = 0;
    {
        int32_t v = -gOE, last = 0;
        for (col = 1; col <= N && last >= -Y; col++) {
            if (ensure_cols(w, col + 2) || ensure_tb(w, used + 1)) return HZ_G_WORST;
            C = w->C; D = w->D; tb = w->tb;
            C[col] = v; last = v; D[col] = v - gOE; tb[used++] = FROM_I; v -= E;
        }
    }
    x.LY = 0; x.RY = col;
    int32_t best = 0; int64_t br = 0, bc = 0;
    int32_t ci = 0;
    for (int64_t r = 1; r <= M; r++) {
        x.row = r; x.tag = (w->gen << 32) | r;
        update_bounds(&x);
        if (update_active(&x, cand, ncand, &ci)) return HZ_G_WORST;
        if (w->rec && record_row(w, rev, r, x.LY, x.RY)) return HZ_G_WORST;
        if (w->poll && r % HZ_G_POLL == 0 && w->poll(w->pollctx, w, rev)) { w->stopped = 1; return 0; }
        if (x.RY < x.LY) x.RY = x.LY;
        int64_t need = x.RY - x.LY + tail;
        if (used + need >= P->tb_cap) { w->trunc = 1; report_truncation(P, rev, a1, a2, br, bc); break; }
        if (ensure_rows(w, r + 1) || ensure_tb(w, used + need + 1) || ensure_cols(w, x.RY + 2)) return HZ_G_WORST;
        C = w->C; D = w->D; tb = w->tb;
        w->tbrow[r] = used - x.LY;
        /* §4.3 row loop, LASTZ's cell.  Masks are read only when a record is active (no record:
         * no mark of this row's tag, LASTZ's "active != NULL" test). */
        const int64_t end = x.RY < N + 1 ? x.RY : N + 1;   /* sv: cap >= RY + 2 columns */
        const int32_t *sub = P->sc->sub[A[st * r]];
        hz_grow R = { .C = C, .D = D, .tp = tb + used - x.LY, .bp = B + st * (x.LY + 1), .st = st,
                      .sub = sub, .mk = w->nact ? w->mask : NULL, .tag = x.tag,
                      .E = E, .gOE = gOE, .Y = Y, .best = best, .lo = x.LY, .sv = vec ? w->sv : NULL };
        if (qk) {                  /* the columns' classes once per half, the row's 16 scores */
            for (; w->nqc < end; w->nqc++) w->qc[w->nqc] = qk->cls[B[st * (w->nqc + 1)]];
            for (int k = 0; k < 16; k++) tab[k] = sub[qk->rep[k]];
            R.qc = w->qc + x.LY; R.tab = tab;
        }
        int32_t i = hz_gapped_row(&R, end);
        if (R.bc >= 0) { best = R.best; br = r; bc = R.bc; }
        const int64_t kept = R.kept;
        used += end - x.LY; w->cells += end - x.LY;
        x.LY = R.LY;
        if (x.LY >= x.RY) break;
        int64_t NN = (rs->aln >= 0 && x.R > 0) ? x.R - 1 : N;
        if (x.RY > kept + 1) x.RY = kept + 1;
        else {
            while (i >= best - Y && x.RY <= NN) {
                if (ensure_cols(w, x.RY + 2)) return HZ_G_WORST;
                C = w->C; D = w->D;
                C[x.RY] = i; D[x.RY] = i - gOE; tb[used++] = FROM_I; i -= E; x.RY++;
            }
        }
        if (x.RY <= NN) {
            if (ensure_cols(w, x.RY + 2)) return HZ_G_WORST;
            C = w->C; D = w->D;
            C[x.RY] = D[x.RY] = HZ_G_NEG_INF; x.RY++;
        }
    }
    /* traceback (§4.6) */
    *er = br; *ec = bc;
    int64_t r = br, c = bc; int prev = 0;
    while (r >= 1 || c > 0) {
        uint8_t lk = w->tb[w->tbrow[r] + c];
        int op = lk & 3;
        if (prev == FROM_I && (lk & EXT_I)) op = FROM_I;
        if (prev == FROM_D && (lk & EXT_D)) op = FROM_D;
        if (op == FROM_I) { c--; if (push_op(ops, nops, opcap, HZ_OP_INS)) return HZ_G_WORST; }
        else if (op == FROM_D) { r--; if (push_op(ops, nops, opcap, HZ_OP_DEL)) return HZ_G_WORST; }
        else { r--; c--; if (push_op(ops, nops, opcap, HZ_OP_SUB)) return HZ_G_WORST; }
        prev = op;
    }
    return best;
}
