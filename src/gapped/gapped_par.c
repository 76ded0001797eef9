/* gapped_par — the anchors of one pass on several threads, with LASTZ's order-dependent result
 * (../shared/spec/lastz-gapped-spec.md §12, "a safe speculative scheme").
 *
 * Anchor k is extended by a worker against the accepted set as it was when the worker started
 * (a snapshot: the first nsnap alignments of S->a and the KEPT/BYEND orders of that moment).
 * The calling thread commits anchors strictly in §3.6 order.  A speculative result is exact
 * unless an alignment G accepted after the snapshot
 *   (a) spans the anchor's row (G.start1 <= a1 <= G.end1) and, with the whole set, the anchor is
 *       contained (§5.1), or its nearest neighbours differ from those the result ran with and
 *       either it ran with some or their §4.4 bounds reach the region it explored
 *       (hz_gapped_nb_changes: a result made without neighbours, as a device's, stays exact
 *       beside a long alignment that spans its rows far away in the query); or
 *   (b) has a piece whose mask (§4.5) can land in [LY, RY] of a row the half processed.
 * A result that ran with neighbours is kept under (a) only when the set gives the same ones, whose
 * followers walk through alignments of the snapshot (their §5.6 snapshots point to older
 * alignments); one that ran without is kept when the replayed followers of the set's neighbours
 * never bind in its region (they may walk through new alignments: the replay reads them).  A
 * mark outside [LY, RY] changes nothing, so by induction over rows the DP is unchanged when
 * neither holds.  (b) is tested conservatively: regions are kept per
 * block of HZ_G_RGB rows, pieces are widened by one row and two columns.  A contained anchor
 * stays contained (KEPT only grows), so a speculative skip is always exact.  A speculative half
 * that hit the traceback limit is recomputed at commit so its stderr line comes in order.
 * A worker that finishes checks its result against the alignments accepted meanwhile and
 * extends again from the newest snapshot when they could have changed it (off the critical path).
 * A running extension does the same check every HZ_G_POLL rows on the rows explored so far
 * (the region only grows, so a hit then is a hit at the end) and stops at once: mostly anchors
 * that an alignment accepted meanwhile contains, which would otherwise be extended in full.
 * It also checks the finished, not yet committed results of earlier anchors: one that hits
 * would make the commit recompute this anchor on the committing thread (the serial path), so
 * the worker stops, waits until that anchor is committed and extends again itself.  These are
 * predictions only: whatever a worker delivers is still checked at commit, so the bytes never
 * depend on them.
 * Memory: a window of K = 4 x threads anchors in flight (4 x the threads allow() lets work).
 * HSPZ_GAPPED_STATS=1 in the environment: one line per pass on stderr (counters, §12 waste). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include "gapped.h"

typedef struct { int32_t n, refs; int32_t *kept, *byend; } psnap;   /* immutable once published */
static const hz_gref NONE = { -1, -1 };

typedef struct {
    int state;                    /* 0 free, 1 running, 2 done */
    int rc, trunc; int32_t nsnap;
    hz_galn G;
    int64_t *rg[2], rgcap[2], nrow[2], lo[2], hi[2];
    hz_gref nb[2];                /* the neighbours the result ran with (none: a device result) */
    int64_t dlo, dhi;             /* the diagonals (column - row, from the anchor) both halves explored */
} pslot;

typedef struct {
    const hz_gpass *P; hz_gpass Pq;        /* Pq: no stderr (speculative runs stay quiet) */
    const hz_ganchor *an; int64_t nan;
    hz_gset *S; psnap *cur;
    pslot *slot; int64_t K, next_claim, next_commit;
    int stop, stats; int64_t nredo;
    int64_t nretry, nretry2, nstop, nwait, nown, wcells, ccells, maxcells; double cbusy, cwait;   /* HSPZ_GAPPED_STATS */
    hz_gpre_fn pre; void *prectx;         /* results made elsewhere, against an empty set */
    hz_gallow_fn allow; void *allowctx;   /* workers [0, allow()) may claim anchors now */
    pthread_mutex_t mu; pthread_cond_t cv_work, cv_done;
} ppar;

static void snap_unref(psnap *s)
{
    if (s && --s->refs == 0) { free(s->kept); free(s->byend); free(s); }
}

/* publish S's current KEPT/BYEND as the snapshot new workers start from (caller holds mu) */
static int publish(ppar *p)
{
    psnap *s = calloc(1, sizeof *s);
    size_t n = (size_t)p->S->n;
    if (!s || !(s->kept = malloc((n + 1) * sizeof *s->kept)) || !(s->byend = malloc((n + 1) * sizeof *s->byend))) {
        if (s) { free(s->kept); free(s); }
        return -1;
    }
    memcpy(s->kept, p->S->kept, n * sizeof *s->kept);
    memcpy(s->byend, p->S->byend, n * sizeof *s->byend);
    s->n = p->S->n; s->refs = 1;
    snap_unref(p->cur);
    p->cur = s;
    return 0;
}

/* the columns (lo, hi per half) and diagonals (dlo, dhi) of v's region, from rg / nrow */
static void extent(pslot *v)
{
    v->dlo = INT64_MAX; v->dhi = INT64_MIN;
    for (int h = 0; h < 2; h++) {
        v->lo[h] = INT64_MAX; v->hi[h] = INT64_MIN;
        for (int64_t b = 0; v->nrow[h] && b <= v->nrow[h] / HZ_G_RGB; b++) {
            int64_t lo = v->rg[h][2 * b], hi = v->rg[h][2 * b + 1];
            int64_t r0 = b ? b * HZ_G_RGB : 1, r1 = b * HZ_G_RGB + HZ_G_RGB - 1 < v->nrow[h] ? b * HZ_G_RGB + HZ_G_RGB - 1 : v->nrow[h];
            if (lo < v->lo[h]) v->lo[h] = lo;
            if (hi > v->hi[h]) v->hi[h] = hi;
            int64_t d0 = h ? r0 - hi : lo - r1, d1 = h ? r1 - lo : hi - r0;   /* REV: column a2 - c, row a1 - r */
            if (d0 < v->dlo) v->dlo = d0;
            if (d1 > v->dhi) v->dhi = d1;
        }
    }
}

/* keep the worker's explored regions in the slot (its hz_gwork is reused) */
static int keep_region(pslot *sl, const hz_gwork *w)
{
    for (int h = 0; h < 2; h++) {
        int64_t nb = 2 * (w->nrow[h] / HZ_G_RGB + 1);
        sl->nrow[h] = w->nrow[h];
        if (!w->nrow[h]) continue;
        if (nb > sl->rgcap[h]) {
            int64_t *t = realloc(sl->rg[h], (size_t)nb * sizeof *t); if (!t) return -1;
            sl->rg[h] = t; sl->rgcap[h] = nb;
        }
        memcpy(sl->rg[h], w->rg[h], (size_t)nb * sizeof *sl->rg[h]);
    }
    extent(sl);
    return 0;
}

static int aln_hits(const pslot *sl, const hz_galn *G, int64_t a1, int64_t a2);
static int span_hits(const pslot *v, const hz_galn *G, int64_t a1, int64_t a2);
static int set_hits(const ppar *p, const pslot *sl, int64_t k, int32_t *kept, int32_t *byend, int32_t n);

/* a worker's running extension: anchor k, alignments S->a[0..seen) already checked; dep: the
 * earlier anchor whose pending alignment stopped it (-1: an accepted one did) */
typedef struct { ppar *p; int64_t k, dep; int32_t seen; } ppoll;

/* The latest anchor j of (next_commit, k) whose finished speculative alignment, not committed
 * yet, hits region v of anchor k: once j is accepted, k's result would be recomputed at commit,
 * on the committing thread.  -1 when none.  (next_commit itself may be in commit(), which can
 * free its result without the lock; once accepted it is checked as part of S.)  Caller holds mu. */
static int64_t pending_hit(const ppar *p, const pslot *v, int64_t k)
{
    const hz_ganchor *a = &p->an[k];
    int64_t r0 = a->a1 - v->nrow[1] - 1, r1 = a->a1 + v->nrow[0] + 1;    /* rows explored, */
    int64_t c0 = INT64_MAX, c1 = INT64_MIN;                              /* columns, widened */
    for (int h = 0; h < 2; h++)
        if (v->nrow[h]) {
            int64_t l = h ? a->a2 - v->hi[h] : a->a2 + v->lo[h], u = h ? a->a2 - v->lo[h] : a->a2 + v->hi[h];
            if (l - 3 < c0) c0 = l - 3;
            if (u + 3 > c1) c1 = u + 3;
        }
    for (int64_t j = k - 1; j > p->next_commit; j--) {
        const pslot *s = &p->slot[j % p->K];
        if (s->state != 2 || s->rc != 1) continue;
        const hz_galn *G = &s->G;
        int span = G->s1 <= a->a1 && a->a1 <= G->t1;                     /* (a): no box test */
        if (!span && (G->t1 < r0 || G->s1 > r1 || G->t2 < c0 || G->s2 > c1)) continue;
        int h = aln_hits(v, G, a->a1, a->a2);
        if (h == 1 || (h == 2 && span_hits(v, G, a->a1, a->a2))) return j;
    }
    return -1;
}

/* hz_gwork.poll: 1 when an alignment accepted since the last call hits the rows explored so
 * far (half rev running; the forward half runs after the reverse one) */
static int poll_new(void *ctx, const hz_gwork *w, int rev)
{
    ppoll *q = ctx;
    pslot v; memset(&v, 0, sizeof v);
    for (int h = 0; h < 2; h++) {                  /* the explored region so far, as keep_region */
        v.rg[h] = w->rg[h]; v.nrow[h] = h < rev ? 0 : w->nrow[h]; v.nb[h] = w->nb[h];
    }
    extent(&v);
    pthread_mutex_lock(&q->p->mu);
    int32_t n = q->p->S->n;                                 /* entries below S->n are immutable */
    q->dep = pending_hit(q->p, &v, q->k);
    pthread_mutex_unlock(&q->p->mu);
    if (q->dep >= 0) return 1;
    if (n == q->seen) return 0;
    const hz_ganchor *a = &q->p->an[q->k];
    for (int32_t i = q->seen; i < n; i++) {
        int h = aln_hits(&v, &q->p->S->a[i], a->a1, a->a2);
        if (h == 1 || (h == 2 && span_hits(&v, &q->p->S->a[i], a->a1, a->a2))) return 1;
    }
    q->seen = n;
    return 0;
}

typedef struct { ppar *p; int t; } pworker;

/* the workers that may claim anchors now, 1..K/4 (caller holds mu) */
static int64_t allowed(const ppar *p)
{
    int64_t a = p->allow ? p->allow(p->allowctx) : p->K / 4;
    return a < 1 ? 1 : a > p->K / 4 ? p->K / 4 : a;
}

/* wait on cv_work; a worker held back by allow() also wakes every 20 ms to ask again */
static void wait_work(ppar *p, int gated)
{
    if (!gated) { pthread_cond_wait(&p->cv_work, &p->mu); return; }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 20000000;
    if (ts.tv_nsec >= 1000000000) { ts.tv_sec++; ts.tv_nsec -= 1000000000; }
    pthread_cond_timedwait(&p->cv_work, &p->mu, &ts);
}

static void *worker(void *arg)
{
    ppar *p = ((pworker *)arg)->p;
    const int t = ((pworker *)arg)->t;
    hz_gwork w; memset(&w, 0, sizeof w);
    w.rec = 1;
    ppoll pq = { p, 0, -1, 0 };
    w.poll = poll_new; w.pollctx = &pq;
    uint32_t *rops = NULL; int32_t rcap = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        for (;;) {
            int64_t a = allowed(p);                /* window: 4 anchors per working thread */
            int ready = p->next_claim < p->nan && p->next_claim < p->next_commit + 4 * a;
            if (p->stop || (ready && t < a)) break;
            wait_work(p, p->allow != NULL);
        }
        if (p->stop) break;
        int64_t k = p->next_claim++;
        pslot *sl = &p->slot[k % p->K];
        sl->state = 1;
        /* extend against the newest snapshot; while alignments accepted since then could have
         * changed the result, extend again (at most 3 times) so that the commit seldom redoes
         * it on the committing thread */
        for (int tries = 0, stops = 0;; tries++) {
            psnap *sn = p->cur; sn->refs++;
            pthread_mutex_unlock(&p->mu);
            int pre = !tries && p->pre ? p->pre(p->prectx, k, p->P, &w, &sl->G) : -1;
            if (pre >= 0) { sl->nsnap = 0; sl->rc = pre; w.trunc = 0; sl->nb[0] = sl->nb[1] = NONE; }   /* snapshot: no alignments */
            else {
                hz_gset V = { p->S->a, sn->n, sn->n, sn->kept, sn->byend, sn->n };
                sl->nsnap = sn->n;
                pq.k = k; pq.seen = sn->n;
                sl->rc = hz_gapped_extend(&p->Pq, &w, &V, p->an[k].a1, p->an[k].a2, &sl->G, &rops, &rcap);
                sl->nb[0] = w.nb[0]; sl->nb[1] = w.nb[1];
            }
            sl->trunc = w.trunc;
            if ((sl->rc == 0 || sl->rc == 1) && keep_region(sl, &w)) {
                if (sl->rc == 1) { free(sl->G.ops); free(sl->G.pc); }
                sl->rc = -1;
            }
            pthread_mutex_lock(&p->mu);
            snap_unref(sn);
            if (tries) { p->nretry++; p->nretry2 += sl->rc == 2; }   /* re-extended; of those, found contained */
            p->wcells += w.cells; if (w.cells > p->maxcells) p->maxcells = w.cells; w.cells = 0;
            int64_t dep = sl->rc == 3 ? pq.dep : -1;
            if (sl->rc == 3) {                              /* stopped: again, from the newest */
                p->nstop++;
                if (stops++ >= 16) break;                   /* the commit extends it */
                tries--;
            }
            else if (sl->rc < 0 || sl->rc == 2 || sl->trunc || tries == 3) break;
            else if ((dep = pending_hit(p, sl, k)) >= 0 && sl->rc == 1) { free(sl->G.ops); free(sl->G.pc); }
            if (dep >= 0) {            /* an earlier pending alignment will change it: extend again
                                        * once that one is committed, here rather than at commit */
                p->nwait++;
                while (!p->stop && p->next_commit <= dep) pthread_cond_wait(&p->cv_work, &p->mu);
                if (p->stop) { sl->rc = 0; break; }
                continue;
            }
            if (sl->rc == 3) continue;
            int hit = 0;
            while (!hit && sl->nsnap < p->S->n) {          /* entries below S->n are immutable */
                psnap *cs = p->cur; cs->refs++;            /* its KEPT order: S->a[0..cs->n) */
                pthread_mutex_unlock(&p->mu);
                hit = set_hits(p, sl, k, cs->kept, cs->byend, cs->n);
                if (!hit) sl->nsnap = cs->n;                /* valid against S->a[0..n) */
                pthread_mutex_lock(&p->mu);
                snap_unref(cs);
            }
            if (!hit) break;
            if (sl->rc == 1) { free(sl->G.ops); free(sl->G.pc); }
        }
        sl->state = 2;
        pthread_cond_broadcast(&p->cv_done);
    }
    pthread_mutex_unlock(&p->mu);
    free(rops);
    hz_gwork_free(&w);
    return NULL;
}

/* (b) of the file comment: can a mark of G's pieces land in half h's explored region? */
static int piece_hits(const pslot *sl, int h, const hz_gpiece *q, int64_t a1, int64_t a2)
{
    int64_t r0, r1, c0, c1;
    if (!h) { r0 = q->b1 - a1; r1 = q->e1 - a1; c0 = q->b2 - a2; c1 = q->e2 - a2; }
    else    { r0 = a1 - q->e1; r1 = a1 - q->b1; c0 = a2 - q->e2; c1 = a2 - q->b2; }
    int diag = q->type == HZ_PC_DIAG && q->b1 <= q->e1;
    int64_t d = c0 - r0;
    if (r0 > r1) { int64_t t = r0; r0 = r1; r1 = t; }
    if (c0 > c1) { int64_t t = c0; c0 = c1; c1 = t; }
    r0--; r1++;
    if (r0 < 1) r0 = 1;
    if (r1 > sl->nrow[h]) r1 = sl->nrow[h];
    if (r0 > r1 || c1 + 3 < sl->lo[h] || c0 - 3 > sl->hi[h]) return 0;
    for (int64_t b = r0 / HZ_G_RGB; b <= r1 / HZ_G_RGB; b++) {
        int64_t br0 = b * HZ_G_RGB > r0 ? b * HZ_G_RGB : r0, br1 = b * HZ_G_RGB + HZ_G_RGB - 1 < r1 ? b * HZ_G_RGB + HZ_G_RGB - 1 : r1;
        int64_t cl = diag ? br0 + d - 2 : c0 - 2, ch = diag ? br1 + d + 2 : c1 + 2;
        if (ch >= sl->rg[h][2 * b] && cl <= sl->rg[h][2 * b + 1]) return 1;
    }
    return 0;
}

/* 1 when G's masks can reach the region (b); 2 when G spans the anchor's row (a): whether it
 * changes the result depends on the nearest neighbours of the whole set (set_hits) */
static int aln_hits(const pslot *sl, const hz_galn *G, int64_t a1, int64_t a2)
{
    if (G->s1 <= a1 && a1 <= G->t1) return 2;                 /* (a) */
    int h = G->t1 < a1;                                      /* REV candidate, else FWD (§5.2) */
    int64_t nr = sl->nrow[h];
    if (!nr) return 0;
    if (!h) {
        for (int32_t k = 0; k < G->npc && G->pc[k].b1 - a1 - 1 <= nr; k++)
            if (piece_hits(sl, h, &G->pc[k], a1, a2)) return 1;
    } else {
        for (int32_t k = G->npc - 1; k >= 0 && a1 - G->pc[k].e1 - 1 <= nr; k--)
            if (piece_hits(sl, h, &G->pc[k], a1, a2)) return 1;
    }
    return 0;
}

/* (a) for one alignment G (predictions only, so cheap: the bytes never depend on it): 1 when
 * the result ran with neighbours (G may be a nearer one), when G contains the anchor (§5.1), or
 * when G's diagonal at the anchor's row is within HZ_PAR_NEAR of the diagonals explored */
enum { HZ_PAR_NEAR = 16 };
static int span_hits(const pslot *v, const hz_galn *G, int64_t a1, int64_t a2)
{
    if (v->nb[0].aln >= 0 || v->nb[1].aln >= 0) return 1;
    int64_t x;
    if (hz_gapped_row_offset(G, a1, a2, &x) >= G->npc) return 0;
    return x == 0 || (x >= v->dlo - HZ_PAR_NEAR && x <= v->dhi + HZ_PAR_NEAR);
}

/* Could the alignments S->a[sl->nsnap..n) (KEPT / BYEND orders of S->a[0..n) given) change slot
 * sl's result for anchor k?  (b) for each; (a) once for the set: hz_gapped_nb_changes (its
 * containment and the bounds of its nearest neighbours, against the region explored). */
static int hits(const hz_gpass *P, hz_galn *A, const pslot *sl, int64_t a1, int64_t a2, int32_t *kept, int32_t *byend, int32_t n)
{
    int span = 0;
    for (int32_t i = sl->nsnap; i < n; i++) {
        int h = aln_hits(sl, &A[i], a1, a2);
        if (h == 1) return 1;
        span |= h == 2;
    }
    if (!span) return 0;
    hz_gset V = { A, n, n, kept, byend, n };
    return hz_gapped_nb_changes(P, &V, a1, a2, sl->nb, sl->rg, sl->nrow) ? 2 : 0;
}

static int set_hits(const ppar *p, const pslot *sl, int64_t k, int32_t *kept, int32_t *byend, int32_t n)
{
    return hits(p->P, p->S->a, sl, p->an[k].a1, p->an[k].a2, kept, byend, n);
}

int hz_gapped_spec_check(const hz_gpass *P, const hz_gset *S, int32_t nsnap, int64_t a1, int64_t a2, const hz_gwork *w)
{
    pslot v; memset(&v, 0, sizeof v);
    for (int h = 0; h < 2; h++) { v.rg[h] = w->rg[h]; v.nrow[h] = w->nrow[h]; v.nb[h] = w->nb[h]; }
    v.nsnap = nsnap;
    extent(&v);
    return hits(P, S->a, &v, a1, a2, S->kept, S->byend, S->n);
}

/* commit anchor k (slot sl, or computed here when own); -1 on out of memory */
static int commit(ppar *p, hz_gwork *w, int64_t k, pslot *sl, int own, uint32_t **rops, int32_t *rcap)
{
    hz_galn G; int rc;
    if (own && p->pre) {   /* a device result for an anchor no worker took: checked as a worker's */
        int pre = p->pre(p->prectx, k, p->P, w, &sl->G);
        if (pre >= 0) {
            own = 0; sl->rc = pre; sl->nsnap = 0; sl->trunc = 0; sl->nb[0] = sl->nb[1] = NONE;
            if ((pre == 0 || pre == 1) && keep_region(sl, w)) {
                if (pre == 1) { free(sl->G.ops); free(sl->G.pc); }
                sl->rc = -1;
            }
        }
    }
    int redo = own || sl->rc < 0 || sl->rc == 3 || sl->trunc;
    if (!redo && sl->rc != 2) redo = set_hits(p, sl, k, p->S->kept, p->S->byend, p->S->n);
    if (!own && redo) p->nredo++;
    if (!own && sl->rc == 1 && redo) { free(sl->G.ops); free(sl->G.pc); }
    if (redo) {
        struct timespec t0, t1;
        if (p->stats) clock_gettime(CLOCK_MONOTONIC, &t0);
        int64_t c0 = w->cells;
        rc = hz_gapped_extend(p->P, w, p->S, p->an[k].a1, p->an[k].a2, &G, rops, rcap);
        p->ccells += w->cells - c0; p->nown += own;
        if (w->cells - c0 > p->maxcells) p->maxcells = w->cells - c0;
        if (p->stats) { clock_gettime(CLOCK_MONOTONIC, &t1); p->cbusy += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec); }
    }
    else { rc = sl->rc; G = sl->G; }
    if (rc < 0) return -1;
    if (rc != 1) return 0;
    pthread_mutex_lock(&p->mu);
    int e = hz_gapped_accept(p->S, &G) || publish(p);
    pthread_mutex_unlock(&p->mu);
    if (e) return -1;
    return 0;
}

int hz_gapped_pass_par(const hz_gpass *P, hz_gwork *w, const hz_ganchor *an, int64_t nan,
                       hz_gset *S, int nthreads, int64_t *nredo)
{
    return hz_gapped_pass_pre(P, w, an, nan, S, nthreads, nredo, NULL, NULL);
}

int hz_gapped_pass_pre(const hz_gpass *P, hz_gwork *w, const hz_ganchor *an, int64_t nan,
                       hz_gset *S, int nthreads, int64_t *nredo, hz_gpre_fn pre, void *prectx)
{
    return hz_gapped_pass_dyn(P, w, an, nan, S, nthreads, NULL, NULL, nredo, pre, prectx);
}

int hz_gapped_pass_dyn(const hz_gpass *P, hz_gwork *w, const hz_ganchor *an, int64_t nan,
                       hz_gset *S, int nthreads, hz_gallow_fn allow, void *allowctx,
                       int64_t *nredo, hz_gpre_fn pre, void *prectx)
{
    if (nredo) *nredo = 0;
    const char *env = getenv("HSPZ_GAPPED_STATS");
    int stats = env && *env && strcmp(env, "0");
    if ((nthreads <= 1 && !pre) || nan < 2) {
        int64_t c0 = w->cells;
        int rc = hz_gapped_pass(P, w, an, nan, S);
        if (stats) fprintf(stderr, "hspz-gapped-stats: threads 1 anchors %lld alignments %d cells %lld\n",
                           (long long)nan, S->n, (long long)(w->cells - c0));
        return rc;
    }
    if (nthreads < 1) nthreads = 1;
    ppar p; memset(&p, 0, sizeof p);
    p.stats = stats; p.pre = pre; p.prectx = prectx; p.allow = allow; p.allowctx = allowctx;
    p.P = P; p.Pq = *P; p.Pq.diag = NULL; p.Pq.reported_trunc = NULL;
    p.an = an; p.nan = nan; p.S = S; p.K = 4 * (int64_t)nthreads;
    if (hz_gset_reserve(S, nan + P->ntrivial + 1) || hz_gapped_trivials(P, S) || publish(&p)) { snap_unref(p.cur); return -1; }
    if (!(p.slot = calloc((size_t)p.K, sizeof *p.slot))) { snap_unref(p.cur); return -1; }
    pthread_mutex_init(&p.mu, NULL); pthread_cond_init(&p.cv_work, NULL); pthread_cond_init(&p.cv_done, NULL);
    int nw = 0, rc = 0;
    pthread_t *tid = calloc((size_t)nthreads, sizeof *tid);
    pworker *pw = calloc((size_t)nthreads, sizeof *pw);
    /* nthreads workers: the committing thread mostly waits, it only extends what no worker took */
    for (int t = 0; tid && pw && t < nthreads; t++) {
        pw[nw].p = &p; pw[nw].t = nw;
        if (!pthread_create(&tid[nw], NULL, worker, &pw[nw])) nw++;
    }
    uint32_t *rops = NULL; int32_t rcap = 0;
    for (int64_t k = 0; k < nan && !rc; k++) {
        pthread_mutex_lock(&p.mu);
        pslot *sl = &p.slot[k % p.K];
        int own = p.next_claim == k;
        if (own) p.next_claim++;
        else if (sl->state != 2) {       /* the commit order waits for anchor k (stats: how long) */
            struct timespec t0, t1;
            if (p.stats) clock_gettime(CLOCK_MONOTONIC, &t0);
            while (sl->state != 2) pthread_cond_wait(&p.cv_done, &p.mu);
            if (p.stats) { clock_gettime(CLOCK_MONOTONIC, &t1); p.cwait += (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec); }
        }
        pthread_mutex_unlock(&p.mu);
        rc = commit(&p, w, k, sl, own, &rops, &rcap);
        pthread_mutex_lock(&p.mu);
        sl->state = 0; p.next_commit++;
        pthread_cond_broadcast(&p.cv_work);
        pthread_mutex_unlock(&p.mu);
    }
    pthread_mutex_lock(&p.mu); p.stop = 1; pthread_cond_broadcast(&p.cv_work); pthread_mutex_unlock(&p.mu);
    for (int t = 0; t < nw; t++) pthread_join(tid[t], NULL);
    /* slots claimed past an error: free their results */
    for (int64_t k = 0; k < p.K; k++) {
        if (p.slot[k].state == 2 && p.slot[k].rc == 1) { free(p.slot[k].G.ops); free(p.slot[k].G.pc); }
        free(p.slot[k].rg[0]); free(p.slot[k].rg[1]);
    }
    free(tid); free(pw); free(rops); free(p.slot);
    snap_unref(p.cur);
    pthread_mutex_destroy(&p.mu); pthread_cond_destroy(&p.cv_work); pthread_cond_destroy(&p.cv_done);
    if (!rc) S->nout = S->n;
    if (nredo) *nredo = p.nredo;
    if (p.stats)
        fprintf(stderr, "hspz-gapped-stats: threads %d anchors %lld alignments %d committer-extended %lld "
                "(redo %lld, unclaimed %lld) in %.3f s, waited %.3f s for workers, cells %lld; workers: re-extended %lld (%lld contained), stopped %lld, waited %lld, cells %lld; "
                "largest extension %lld cells\n",
                nthreads, (long long)nan, S->n, (long long)(p.nredo + p.nown), (long long)p.nredo, (long long)p.nown,
                p.cbusy, p.cwait, (long long)p.ccells, (long long)p.nretry, (long long)p.nretry2, (long long)p.nstop, (long long)p.nwait, (long long)p.wcells,
                (long long)p.maxcells);
    return rc;
}
