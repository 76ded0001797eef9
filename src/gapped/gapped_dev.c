/* gapped_dev — speculative extensions of a pass on a device (gapped_dev.h; spec §12). */
#include "gapped_dev.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hz_gdev {
    int cuda; void *h; char name[256];
    int64_t batch;                    /* halves per launch at most (HSPZ_GAPPED_BATCH) */
    pthread_mutex_t mu;               /* one pass on the device at a time */
    hz_ywmem m; unsigned long long top[3]; int32_t *win;   /* emu: pool, outputs, C/D window */
};

struct hz_gdres {
    int64_t nan; const hz_ganchor *an;
    hz_ywres *h;                      /* 2 per anchor: [2k] left (rev) half, [2k+1] right */
    uint32_t *ops; int64_t nops, opcap;
    int32_t *rg; int64_t nrg, rgcap;
    int64_t launches, retried;        /* launches made, halves run again after a full pool */
};

/* the emu device's pool and outputs: small, so that tests see halves retried and left */
enum { EMU_POOL = 1 << 24, EMU_OPS = 1 << 16, EMU_RG = 1 << 16 };

int hz_gdev_open(const char *kind, hz_gdev **d, char *err, size_t errlen)
{
    *d = NULL;
    hz_gdev *g = calloc(1, sizeof *g);
    if (!g) { snprintf(err, errlen, "out of memory"); return -1; }
    pthread_mutex_init(&g->mu, NULL);
    g->batch = INT64_MAX;
    if (!strcmp(kind, "emu")) {
        const char *ep = getenv("HSPZ_GAPPED_POOL");   /* tests: another pool size (halves retried, left to the CPU) */
        g->m.pool_cap = ep && atoll(ep) > 0 ? atoll(ep) : EMU_POOL;
        g->m.pool = malloc((size_t)g->m.pool_cap);
        g->m.ops = malloc(EMU_OPS * sizeof *g->m.ops); g->m.ops_cap = EMU_OPS;
        g->m.rg = malloc(EMU_RG * sizeof *g->m.rg); g->m.rg_cap = EMU_RG;
        g->m.pool_top = &g->top[0]; g->m.ops_top = &g->top[1]; g->m.rg_top = &g->top[2];
        g->win = malloc(2 * HZ_YW_W * sizeof *g->win);
        snprintf(g->name, sizeof g->name, "emu");
        if (!g->m.pool || !g->m.ops || !g->m.rg || !g->win) {
            snprintf(err, errlen, "out of memory");
            hz_gdev_close(g);
            return -1;
        }
    } else if (!strcmp(kind, "cuda")) {
#if HSPZ_HAVE_CUDA
        int rc = hz_gdcuda_open(&g->h, g->name, sizeof g->name, err, errlen);
        if (rc) { hz_gdcuda_close(g->h); pthread_mutex_destroy(&g->mu); free(g); return rc; }
        g->cuda = 1;
#else
        snprintf(err, errlen, "this hspz was built without CUDA");
        pthread_mutex_destroy(&g->mu); free(g);
        return 1;
#endif
    } else {
        snprintf(err, errlen, "unknown device '%s'", kind);
        pthread_mutex_destroy(&g->mu); free(g);
        return -1;
    }
    const char *eb = getenv("HSPZ_GAPPED_BATCH");   /* tests: many small launches */
    if (eb && atoll(eb) > 0) g->batch = atoll(eb);
    *d = g;
    return 0;
}

void hz_gdev_close(hz_gdev *d)
{
    if (!d) return;
#if HSPZ_HAVE_CUDA
    if (d->cuda) hz_gdcuda_close(d->h);
#endif
    free(d->m.pool); free(d->m.ops); free(d->m.rg); free(d->win);
    pthread_mutex_destroy(&d->mu);
    free(d);
}

const char *hz_gdev_name(const hz_gdev *d) { return d->name; }

/* the two halves of anchor k as hz_gapped_extend sets them up for an empty set (§5.1) */
static void make_jobs(const hz_gpass *P, const hz_ganchor *a, hz_gdjob *j)
{
    int32_t part = hz_gapped_part(P->sep, P->npart, a->a1);
    int64_t low1 = P->sep[part] + 1, high1 = P->sep[part + 1], low2 = 0, high2 = P->qlen;
    if (P->qsep) { int32_t q = hz_gapped_part(P->qsep, P->nqpart, a->a2); low2 = P->qsep[q] + 1; high2 = P->qsep[q + 1]; }
    j[0] = (hz_gdjob){ a->a1, a->a2, a->a1 + 1 - low1, a->a2 + 1 - low2, 1 };
    j[1] = (hz_gdjob){ a->a1, a->a2, high1 - a->a1 - 1, high2 - a->a2 - 1, 0 };
}

/* emu: one launch on the host, through the same code, the pool and outputs emptied first */
static void emu_run(hz_gdev *d, const hz_gpass *P, const hz_gdjob *jobs, int64_t nb, hz_ywres *res)
{
    d->top[0] = d->top[1] = d->top[2] = 0;
    hz_ywwarp W = { d->win, d->win + HZ_YW_W, 0, 0 };
    for (int64_t t = 0; t < nb; t++) {
        const hz_gdjob *j = &jobs[t];
        hz_y0in in = { j->rev ? P->T + j->a1 + 1 : P->T + j->a1, j->rev ? P->Q + j->a2 + 1 : P->Q + j->a2,
                       j->rev ? -1 : 1, j->M, j->N, &P->sc->sub[0][0], P->sc->gap_open, P->sc->gap_extend,
                       P->sc->ydrop, P->tb_cap };
        hz_yw_half(&in, &d->m, &W, &res[t]);
    }
}

/* a finished half's run list and region appended to R's pools; res->op / rg rebased */
static int keep_half(hz_gdres *R, hz_ywres *H, const uint32_t *ops, const int32_t *rg)
{
    int64_t no = H->r.nops, ng = H->r.nrow ? 2 * (H->r.nrow / HZ_G_RGB + 1) : 0;
    if (R->nops + no > R->opcap) {
        int64_t c = R->opcap ? 2 * R->opcap : 4096; while (c < R->nops + no) c *= 2;
        uint32_t *x = realloc(R->ops, (size_t)c * sizeof *x); if (!x) return -1;
        R->ops = x; R->opcap = c;
    }
    if (R->nrg + ng > R->rgcap) {
        int64_t c = R->rgcap ? 2 * R->rgcap : 4096; while (c < R->nrg + ng) c *= 2;
        int32_t *x = realloc(R->rg, (size_t)c * sizeof *x); if (!x) return -1;
        R->rg = x; R->rgcap = c;
    }
    memcpy(R->ops + R->nops, ops + H->op, (size_t)no * sizeof *R->ops);
    memcpy(R->rg + R->nrg, rg + H->rg, (size_t)ng * sizeof *R->rg);
    H->op = R->nops; H->rg = R->nrg;
    R->nops += no; R->nrg += ng;
    return 0;
}

/* Run the halves pend[0..np) in launches of at most d->batch; those that found the pool full
 * go to pend again for the next round.  A launch that finishes none is made again with half
 * as many halves (fewer in flight: more pool each), and the size grows back after one that
 * finishes some; a single half that still does not fit is left to the CPU (FULL). */
static int run_rounds(hz_gdev *d, const hz_gpass *P, const hz_gdjob *jobs, int64_t *pend, int64_t np,
                      hz_gdres *R, char *err, size_t errlen)
{
    const int64_t cap0 = np < d->batch ? np : d->batch;
    int64_t cap = cap0;
    hz_gdjob *jb = malloc((size_t)(cap0 ? cap0 : 1) * sizeof *jb);
    hz_ywres *lr = malloc((size_t)(cap0 ? cap0 : 1) * sizeof *lr);
    int rc = 0;
    if (!jb || !lr) { snprintf(err, errlen, "out of memory"); rc = -1; }
    while (np && !rc) {
        int64_t nx = 0;                               /* retried halves, compacted into pend */
        for (int64_t b = 0; b < np && !rc;) {
            int64_t nb = np - b < cap ? np - b : cap, done = 0;
            for (int64_t t = 0; t < nb; t++) jb[t] = jobs[pend[b + t]];
            const uint32_t *lops = d->m.ops; const int32_t *lrg = d->m.rg;
#if HSPZ_HAVE_CUDA
            if (d->cuda) rc = hz_gdcuda_run(d->h, P, jb, nb, lr, &lops, &lrg, err, errlen);
            else
#endif
            emu_run(d, P, jb, nb, lr);
            R->launches++;
            for (int64_t t = 0; t < nb && !rc; t++) done += lr[t].r.status != HZ_YW_RETRY;
            if (!rc && !done && nb > 1) { cap = nb / 2; continue; }   /* the same halves, fewer at once */
            for (int64_t t = 0; t < nb && !rc; t++) {
                hz_ywres *H = &R->h[pend[b + t]];
                *H = lr[t];
                if (H->r.status == HZ_YW_RETRY) {
                    if (done) { pend[nx++] = pend[b + t]; R->retried++; }
                    else H->r.status = HZ_Y0_FULL;
                }
                else if (H->r.status == HZ_Y0_OK && keep_half(R, H, lops, lrg)) { snprintf(err, errlen, "out of memory"); rc = -1; }
            }
            b += nb;
            if (cap < cap0) cap = 2 * cap < cap0 ? 2 * cap : cap0;    /* back up after a launch that got on */
        }
        np = nx;
    }
    free(jb); free(lr);
    return rc;
}

int hz_gdev_pass(hz_gdev *d, const hz_gpass *P, const hz_ganchor *an, int64_t nan, hz_gdres **out,
                 char *err, size_t errlen)
{
    *out = NULL;
    hz_gdres *R = calloc(1, sizeof *R);
    hz_gdjob *jobs = malloc((size_t)(2 * nan + 1) * sizeof *jobs);
    int64_t *pend = malloc((size_t)(2 * nan + 1) * sizeof *pend);
    if (!R || !jobs || !pend || !(R->h = calloc((size_t)(2 * nan + 1), sizeof *R->h))) {
        free(jobs); free(pend); if (R) free(R->h); free(R);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    R->nan = nan; R->an = an;
    for (int64_t k = 0; k < nan; k++) make_jobs(P, &an[k], &jobs[2 * k]);
    for (int64_t t = 0; t < 2 * nan; t++) pend[t] = t;
    pthread_mutex_lock(&d->mu);
    int rc = run_rounds(d, P, jobs, pend, 2 * nan, R, err, errlen);
    pthread_mutex_unlock(&d->mu);
    free(jobs); free(pend);
    if (rc) { hz_gdres_free(R); return -1; }
    *out = R;
    return 0;
}

/* region of half H into w (record_row's layout, int64) */
static int put_region(hz_gwork *w, int h, const hz_gdres *R, const hz_ywres *H)
{
    w->nrow[h] = H->r.nrow;
    if (!H->r.nrow) return 0;
    int64_t ng = 2 * (H->r.nrow / HZ_G_RGB + 1);
    if (ng > w->rgcap[h]) {
        int64_t *t = realloc(w->rg[h], (size_t)ng * sizeof *t); if (!t) return -1;
        w->rg[h] = t; w->rgcap[h] = ng;
    }
    for (int64_t i = 0; i < ng; i++) w->rg[h][i] = R->rg[H->rg + i];
    return 0;
}

int hz_gdres_take(void *ctx, int64_t k, const hz_gpass *P, hz_gwork *w, hz_galn *G)
{
    const hz_gdres *R = ctx;
    const hz_ywres *L = &R->h[2 * k], *Rt = &R->h[2 * k + 1];
    if (k >= R->nan || L->r.status != HZ_Y0_OK || Rt->r.status != HZ_Y0_OK) return -1;
    if (put_region(w, 1, R, L) || put_region(w, 0, R, Rt)) return -1;
    int64_t a1 = R->an[k].a1, a2 = R->an[k].a2;
    memset(G, 0, sizeof *G);
    int32_t ocap = L->r.nops ? L->r.nops : 1;
    if (!(G->ops = malloc((size_t)ocap * sizeof *G->ops))) return -1;
    memcpy(G->ops, R->ops + L->op, (size_t)L->r.nops * sizeof *G->ops);
    G->nops = L->r.nops;
    G->s1 = a1 + 1 - L->r.er; G->s2 = a2 + 1 - L->r.ec;
    G->t1 = a1 + Rt->r.er; G->t2 = a2 + Rt->r.ec;
    G->score = L->r.score + Rt->r.score;
    int rc = hz_gapped_finish(P, G, &ocap, R->ops + Rt->op, Rt->r.nops);
    return rc < 0 ? -1 : rc;
}

void hz_gdres_counts(const hz_gdres *r, int64_t *ok, int64_t *left)
{
    *ok = *left = 0;
    for (int64_t i = 0; i < 2 * r->nan; i++) { if (r->h[i].r.status == HZ_Y0_OK) (*ok)++; else (*left)++; }
}

void hz_gdres_rounds(const hz_gdres *r, int64_t *launches, int64_t *retried)
{
    *launches = r->launches; *retried = r->retried;
}

void hz_gdres_free(hz_gdres *r)
{
    if (!r) return;
    free(r->h); free(r->ops); free(r->rg); free(r);
}
