/* gapped_dev — speculative extensions of a pass on a device (gapped_dev.h; spec §12). */
#include "gapped_dev.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* a pass's anchors go to the device in batches [bat0[i], bat0[i+1]) that double in size, so that
 * the commit order starts on the first results while the device runs the rest */
enum { GD_FIRST = 256, GD_MAXBAT = 64 };

struct hz_gdev {
    int cuda; void *h; char name[256];
    int64_t batch;                    /* halves per launch at most (HSPZ_GAPPED_BATCH) */
    int64_t npass;                    /* passes begun: the id of the next (ydrop.cu keeps its query) */
    int64_t first;                    /* anchors in a pass's first batch (GD_FIRST) */
    int wait;                         /* hz_gdres_take waits for the batch (else: not done, the CPU's) */
    pthread_mutex_t mu;               /* one launch on the device at a time */
    hz_ywmem m; unsigned long long top[3]; int32_t *win;   /* emu: pool, outputs, C/D window */
};

/* the run lists and regions of one batch of anchors (never moved once the batch is done) */
typedef struct { uint32_t *ops; int64_t nops, opcap; int32_t *rg; int64_t nrg, rgcap; } gdbuf;

struct hz_gdres {
    int64_t nan; const hz_ganchor *an; const hz_gpass *P; hz_gdev *d; int64_t id; int wait;
    hz_ywres *h;                      /* 2 per anchor: [2k] left (rev) half, [2k+1] right */
    hz_gdjob *jobs; int64_t *pend;
    gdbuf buf[GD_MAXBAT]; int64_t bat0[GD_MAXBAT + 1]; int nbat;
    int64_t launches, retried;        /* launches made, halves run again after a full pool or outputs */
    int64_t use[3], cap[3];           /* the largest demand of a launch on the pool (bytes), run lists, regions; their sizes */
    double busy;                      /* seconds from the first launch to the last result */
    pthread_t th; int started, joined;
    pthread_mutex_t mu; pthread_cond_t cv;
    int64_t done; int over, stop, rc; char err[256];   /* done: anchors [0, done) have their results */
};

/* the emu device's pool and outputs: small, so that tests see halves retried and left */
enum { EMU_POOL = 1 << 24, EMU_OPS = 1 << 16, EMU_RG = 1 << 16 };

int hz_gdev_open(const char *kind, int share, hz_gdev **d, char *err, size_t errlen)
{
    *d = NULL;
#if !HSPZ_HAVE_CUDA
    (void)share;
#endif
    hz_gdev *g = calloc(1, sizeof *g);
    if (!g) { snprintf(err, errlen, "out of memory"); return -1; }
    pthread_mutex_init(&g->mu, NULL);
    g->batch = INT64_MAX; g->first = GD_FIRST; g->wait = 1;
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
        int rc = hz_gdcuda_open(&g->h, share, g->name, sizeof g->name, err, errlen);
        if (rc) { hz_gdcuda_close(g->h); pthread_mutex_destroy(&g->mu); free(g); return rc; }
        g->cuda = 1;
        /* one launch for the pass: a batch takes as long as its longest half (one warp each),
         * so smaller batches add their longest halves up; the CPU starts on the pass's first
         * anchors meanwhile and takes the device's results once they are there */
        g->first = INT64_MAX / 4; g->wait = 0;
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

void hz_gdev_set_first(hz_gdev *d, int64_t n) { d->first = n > 0 ? n : GD_FIRST; }

void hz_gdev_set_wait(hz_gdev *d, int wait) { d->wait = wait != 0; }

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
static void emu_run(hz_gdev *d, const hz_gpass *P, const hz_gdjob *jobs, int64_t nb, hz_ywres *res, int64_t use[3])
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
    for (int i = 0; i < 3; i++) use[i] = (int64_t)d->top[i];
}

/* a finished half's run list and region appended to batch buffer B; H->op / rg rebased */
static int keep_half(gdbuf *B, hz_ywres *H, const uint32_t *ops, const int32_t *rg)
{
    int64_t no = H->r.nops, ng = H->r.nrow ? 2 * (H->r.nrow / HZ_G_RGB + 1) : 0;
    if (B->nops + no > B->opcap) {
        int64_t c = B->opcap ? 2 * B->opcap : 4096; while (c < B->nops + no) c *= 2;
        uint32_t *x = realloc(B->ops, (size_t)c * sizeof *x); if (!x) return -1;
        B->ops = x; B->opcap = c;
    }
    if (B->nrg + ng > B->rgcap) {
        int64_t c = B->rgcap ? 2 * B->rgcap : 4096; while (c < B->nrg + ng) c *= 2;
        int32_t *x = realloc(B->rg, (size_t)c * sizeof *x); if (!x) return -1;
        B->rg = x; B->rgcap = c;
    }
    memcpy(B->ops + B->nops, ops + H->op, (size_t)no * sizeof *B->ops);
    memcpy(B->rg + B->nrg, rg + H->rg, (size_t)ng * sizeof *B->rg);
    H->op = B->nops; H->rg = B->nrg;
    B->nops += no; B->nrg += ng;
    return 0;
}

/* one launch of jb[0..nb) into lr (the device's lock held); its outputs in *lops / *lrg */
static int launch(hz_gdres *R, const hz_gdjob *jb, int64_t nb, hz_ywres *lr, const uint32_t **lops,
                  const int32_t **lrg, char *err, size_t errlen)
{
    hz_gdev *d = R->d;
    int64_t use[3] = { 0, 0, 0 };
    int rc = 0;
    *lops = d->m.ops; *lrg = d->m.rg;
    R->cap[0] = d->m.pool_cap; R->cap[1] = d->m.ops_cap; R->cap[2] = d->m.rg_cap;
#if HSPZ_HAVE_CUDA
    if (d->cuda) rc = hz_gdcuda_run(d->h, R->P, R->id, jb, nb, lr, lops, lrg, use, R->cap, err, errlen);
    else
#endif
    emu_run(d, R->P, jb, nb, lr, use);
#if !HSPZ_HAVE_CUDA
    (void)err; (void)errlen;
#endif
    R->launches++;
    for (int i = 0; i < 3; i++) if (use[i] > R->use[i]) R->use[i] = use[i];
    return rc;
}

/* 1 once hz_gdres_finish asked the device's thread to stop */
static int stopped(hz_gdres *R)
{
    pthread_mutex_lock(&R->mu);
    int s = R->stop;
    pthread_mutex_unlock(&R->mu);
    return s;
}

/* Run the halves pend[0..np) into batch buffer B, in launches of at most d->batch; those that
 * found the pool or the outputs full go to pend again for the next round.  A launch that
 * finishes none is made again with half as many halves (fewer in flight: more pool each), and
 * the size grows back after one that finishes some; a single half that still does not fit is
 * left to the CPU (FULL).  0; 1 when stopped before a launch (the batch is not done); -1 with
 * err. */
static int run_rounds(hz_gdres *R, int64_t *pend, int64_t np, gdbuf *B, char *err, size_t errlen)
{
    hz_gdev *d = R->d;
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
            if (stopped(R)) { rc = 1; break; }          /* the pass is over: no more launches */
            for (int64_t t = 0; t < nb; t++) jb[t] = R->jobs[pend[b + t]];
            const uint32_t *lops; const int32_t *lrg;
            rc = launch(R, jb, nb, lr, &lops, &lrg, err, errlen);
            for (int64_t t = 0; t < nb && !rc; t++) done += lr[t].r.status != HZ_YW_RETRY;
            if (!rc && !done && nb > 1) { cap = nb / 2; continue; }   /* the same halves, fewer at once */
            for (int64_t t = 0; t < nb && !rc; t++) {
                hz_ywres *H = &R->h[pend[b + t]];
                *H = lr[t];
                if (H->r.status == HZ_YW_RETRY) {
                    if (done) { pend[nx++] = pend[b + t]; R->retried++; }
                    else H->r.status = HZ_Y0_FULL;
                }
                else if (H->r.status == HZ_Y0_OK && keep_half(B, H, lops, lrg)) { snprintf(err, errlen, "out of memory"); rc = -1; }
            }
            b += nb;
            if (cap < cap0) cap = 2 * cap < cap0 ? 2 * cap : cap0;    /* back up after a launch that got on */
        }
        np = nx;
    }
    free(jb); free(lr);
    return rc;
}

/* the pass's batches, one after another, each published to hz_gdres_take when done */
static void *device_thread(void *arg)
{
    hz_gdres *R = arg;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char err[256] = "";
    int rc = 0;
    for (int i = 0; i < R->nbat && !rc; i++) {
        int64_t a0 = R->bat0[i], a1 = R->bat0[i + 1], np = 2 * (a1 - a0);
        for (int64_t t = 0; t < np; t++) R->pend[t] = 2 * a0 + t;
        pthread_mutex_lock(&R->d->mu);
        rc = run_rounds(R, R->pend, np, &R->buf[i], err, sizeof err);
        pthread_mutex_unlock(&R->d->mu);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        pthread_mutex_lock(&R->mu);
        if (!rc) R->done = a1;
        R->busy = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        pthread_cond_broadcast(&R->cv);
        pthread_mutex_unlock(&R->mu);
    }
    pthread_mutex_lock(&R->mu);
    R->over = 1; R->rc = rc < 0 ? rc : 0;
    if (rc < 0) snprintf(R->err, sizeof R->err, "%s", err);
    pthread_cond_broadcast(&R->cv);
    pthread_mutex_unlock(&R->mu);
    return NULL;
}

int hz_gdev_pass(hz_gdev *d, const hz_gpass *P, const hz_ganchor *an, int64_t nan, hz_gdres **out,
                 char *err, size_t errlen)
{
    *out = NULL;
    hz_gdres *R = calloc(1, sizeof *R);
    if (!R || !(R->jobs = malloc((size_t)(2 * nan + 1) * sizeof *R->jobs)) ||
        !(R->pend = malloc((size_t)(2 * nan + 1) * sizeof *R->pend)) || !(R->h = calloc((size_t)(2 * nan + 1), sizeof *R->h))) {
        if (R) { free(R->jobs); free(R->pend); free(R->h); }
        free(R);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    pthread_mutex_init(&R->mu, NULL); pthread_cond_init(&R->cv, NULL);
    R->nan = nan; R->an = an; R->P = P; R->d = d; R->wait = d->wait;
    pthread_mutex_lock(&d->mu);
    R->id = ++d->npass;
    pthread_mutex_unlock(&d->mu);
    for (int64_t k = 0; k < nan; k++) make_jobs(P, &an[k], &R->jobs[2 * k]);
    for (int64_t a = 0, n = d->first; a < nan; a += n, n *= 2) {   /* the last batch takes the rest */
        if (R->nbat == GD_MAXBAT - 1 || n > nan - a) n = nan - a;
        R->bat0[R->nbat++] = a;
    }
    R->bat0[R->nbat] = nan;
    if (pthread_create(&R->th, NULL, device_thread, R)) {
        hz_gdres_free(R);
        snprintf(err, errlen, "cannot start the device's thread");
        return -1;
    }
    R->started = 1;
    *out = R;
    return 0;
}

int hz_gdres_finish(hz_gdres *R, char *err, size_t errlen)
{
    pthread_mutex_lock(&R->mu); R->stop = 1; pthread_mutex_unlock(&R->mu);
    return hz_gdres_wait(R, err, errlen);
}

int hz_gdres_wait(hz_gdres *R, char *err, size_t errlen)
{
    if (R->started && !R->joined) { pthread_join(R->th, NULL); R->joined = 1; }
    if (R->rc) snprintf(err, errlen, "%s", R->err);
    return R->rc;
}

/* region of half H (in batch buffer B) into w (record_row's layout, int64) */
static int put_region(hz_gwork *w, int h, const gdbuf *B, const hz_ywres *H)
{
    w->nrow[h] = H->r.nrow;
    if (!H->r.nrow) return 0;
    int64_t ng = 2 * (H->r.nrow / HZ_G_RGB + 1);
    if (ng > w->rgcap[h]) {
        int64_t *t = realloc(w->rg[h], (size_t)ng * sizeof *t); if (!t) return -1;
        w->rg[h] = t; w->rgcap[h] = ng;
    }
    for (int64_t i = 0; i < ng; i++) w->rg[h][i] = B->rg[H->rg + i];
    return 0;
}

/* the batch that holds anchor k */
static const gdbuf *batch_of(const hz_gdres *R, int64_t k)
{
    int lo = 0, hi = R->nbat - 1;
    while (lo < hi) { int m = (lo + hi + 1) / 2; if (R->bat0[m] <= k) lo = m; else hi = m - 1; }
    return &R->buf[lo];
}

int hz_gdres_take(void *ctx, int64_t k, const hz_gpass *P, hz_gwork *w, hz_galn *G)
{
    hz_gdres *R = ctx;
    if (k >= R->nan) return -1;
    pthread_mutex_lock(&R->mu);
    while (R->wait && k >= R->done && !R->over) pthread_cond_wait(&R->cv, &R->mu);
    int have = k < R->done;
    pthread_mutex_unlock(&R->mu);
    const hz_ywres *L = &R->h[2 * k], *Rt = &R->h[2 * k + 1];
    if (!have || L->r.status != HZ_Y0_OK || Rt->r.status != HZ_Y0_OK) return -1;
    const gdbuf *B = batch_of(R, k);
    if (put_region(w, 1, B, L) || put_region(w, 0, B, Rt)) return -1;
    int64_t a1 = R->an[k].a1, a2 = R->an[k].a2;
    memset(G, 0, sizeof *G);
    int32_t ocap = L->r.nops ? L->r.nops : 1;
    if (!(G->ops = malloc((size_t)ocap * sizeof *G->ops))) return -1;
    memcpy(G->ops, B->ops + L->op, (size_t)L->r.nops * sizeof *G->ops);
    G->nops = L->r.nops;
    G->s1 = a1 + 1 - L->r.er; G->s2 = a2 + 1 - L->r.ec;
    G->t1 = a1 + Rt->r.er; G->t2 = a2 + Rt->r.ec;
    G->score = L->r.score + Rt->r.score;
    int rc = hz_gapped_finish(P, G, &ocap, B->ops + Rt->op, Rt->r.nops);
    return rc < 0 ? -1 : rc;
}

void hz_gdres_counts(const hz_gdres *r, int64_t *ok, int64_t *left)
{
    *ok = *left = 0;
    for (int64_t i = 0; i < 2 * r->done; i++) { if (r->h[i].r.status == HZ_Y0_OK) (*ok)++; else (*left)++; }
}

void hz_gdres_rounds(const hz_gdres *r, int64_t *launches, int64_t *retried)
{
    *launches = r->launches; *retried = r->retried;
}

void hz_gdres_load(const hz_gdres *r, double *busy, int64_t use[3], int64_t cap[3])
{
    *busy = r->busy;
    for (int i = 0; i < 3; i++) { use[i] = r->use[i]; cap[i] = r->cap[i]; }
}

void hz_gdres_free(hz_gdres *r)
{
    if (!r) return;
    if (r->started && !r->joined) {
        pthread_mutex_lock(&r->mu); r->stop = 1; pthread_mutex_unlock(&r->mu);
        pthread_join(r->th, NULL);
    }
    pthread_mutex_destroy(&r->mu); pthread_cond_destroy(&r->cv);
    for (int i = 0; i < r->nbat; i++) { free(r->buf[i].ops); free(r->buf[i].rg); }
    free(r->h); free(r->jobs); free(r->pend); free(r);
}
