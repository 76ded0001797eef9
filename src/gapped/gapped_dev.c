/* gapped_dev — speculative extensions of a pass on a device (gapped_dev.h; spec §12). */
#include "gapped_dev.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hz_gdev {
    int cuda; void *h; char name[256];
    int64_t batch;                    /* halves per launch */
    pthread_mutex_t mu;               /* one pass on the device at a time */
    hz_y0res *res; uint32_t *ops; int32_t *rg;   /* one batch's results on the host */
    hz_y0arena ar;                    /* emu: one arena */
};

/* per half: the result and where its run list / region start in the pools */
typedef struct { hz_y0res r; int64_t op, rg; } gdhalf;

struct hz_gdres {
    int64_t nan; const hz_ganchor *an;
    gdhalf *h;                        /* 2 per anchor: [2k] left (rev) half, [2k+1] right */
    uint32_t *ops; int64_t nops, opcap;
    int32_t *rg; int64_t nrg, rgcap;
};

static void arena_free(hz_y0arena *a)
{
    free(a->C); free(a->D); free(a->tb); free(a->tbrow); free(a->ops); free(a->rg);
    memset(a, 0, sizeof *a);
}

int hz_gdev_open(const char *kind, hz_gdev **d, char *err, size_t errlen)
{
    *d = NULL;
    hz_gdev *g = calloc(1, sizeof *g);
    if (!g) { snprintf(err, errlen, "out of memory"); return -1; }
    pthread_mutex_init(&g->mu, NULL);
    if (!strcmp(kind, "emu")) {
        hz_y0arena *a = &g->ar;
        /* a smaller arena than the GPU's (tests stay fast; more halves left to the CPU path) */
        a->ccap = 4096; a->tbcap = 1 << 18; a->rowcap = 2048; a->opcap = HZ_GD_OPCAP; a->rgcap = HZ_GD_RGCAP;
        a->C = malloc(4096 * sizeof *a->C); a->D = malloc(4096 * sizeof *a->D);
        a->tb = malloc(1 << 18); a->tbrow = malloc(2048 * sizeof *a->tbrow);
        g->batch = 1024;
        snprintf(g->name, sizeof g->name, "emu");
    } else if (!strcmp(kind, "cuda")) {
#if HSPZ_HAVE_CUDA
        int rc = hz_gdcuda_open(&g->h, g->name, sizeof g->name, err, errlen);
        if (rc) { pthread_mutex_destroy(&g->mu); free(g); return rc; }
        g->cuda = 1;
        g->batch = hz_gdcuda_batch(g->h);
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
    g->res = malloc((size_t)g->batch * sizeof *g->res);
    g->ops = malloc((size_t)g->batch * HZ_GD_OPCAP * sizeof *g->ops);
    g->rg = malloc((size_t)g->batch * HZ_GD_RGCAP * sizeof *g->rg);
    if (!g->res || !g->ops || !g->rg || (!g->cuda && (!g->ar.C || !g->ar.D || !g->ar.tb || !g->ar.tbrow))) {
        snprintf(err, errlen, "out of memory");
        hz_gdev_close(g);
        return -1;
    }
    *d = g;
    return 0;
}

void hz_gdev_close(hz_gdev *d)
{
    if (!d) return;
#if HSPZ_HAVE_CUDA
    if (d->cuda) hz_gdcuda_close(d->h);
#endif
    d->ar.ops = NULL; d->ar.rg = NULL;       /* pointed into d->ops / d->rg */
    arena_free(&d->ar);
    free(d->res); free(d->ops); free(d->rg);
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

/* emu: the batch on the host, through the same code */
static void emu_run(hz_gdev *d, const hz_gpass *P, const hz_gdjob *jobs, int64_t nb)
{
    hz_y0arena *a = &d->ar;
    for (int64_t t = 0; t < nb; t++) {
        const hz_gdjob *j = &jobs[t];
        hz_y0in in = { j->rev ? P->T + j->a1 + 1 : P->T + j->a1, j->rev ? P->Q + j->a2 + 1 : P->Q + j->a2,
                       j->rev ? -1 : 1, j->M, j->N, &P->sc->sub[0][0], P->sc->gap_open, P->sc->gap_extend,
                       P->sc->ydrop, P->tb_cap };
        a->ops = d->ops + t * HZ_GD_OPCAP; a->rg = d->rg + t * HZ_GD_RGCAP;
        hz_ydrop0(&in, a, &d->res[t]);
    }
}

/* append a batch's results to R (pools compacted) */
static int keep_batch(hz_gdev *d, hz_gdres *R, int64_t h0, int64_t nb)
{
    for (int64_t t = 0; t < nb; t++) {
        gdhalf *H = &R->h[h0 + t];
        H->r = d->res[t];
        if (H->r.status != HZ_Y0_OK) continue;
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
        memcpy(R->ops + R->nops, d->ops + t * HZ_GD_OPCAP, (size_t)no * sizeof *R->ops);
        memcpy(R->rg + R->nrg, d->rg + t * HZ_GD_RGCAP, (size_t)ng * sizeof *R->rg);
        H->op = R->nops; H->rg = R->nrg;
        R->nops += no; R->nrg += ng;
    }
    return 0;
}

int hz_gdev_pass(hz_gdev *d, const hz_gpass *P, const hz_ganchor *an, int64_t nan, hz_gdres **out,
                 char *err, size_t errlen)
{
    *out = NULL;
    hz_gdres *R = calloc(1, sizeof *R);
    hz_gdjob *jobs = malloc((size_t)d->batch * sizeof *jobs);
    if (!R || !jobs || !(R->h = calloc((size_t)(2 * nan + 1), sizeof *R->h))) {
        free(jobs); if (R) free(R->h); free(R);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    R->nan = nan; R->an = an;
    int rc = 0;
    pthread_mutex_lock(&d->mu);
    for (int64_t h0 = 0; h0 < 2 * nan && !rc; h0 += d->batch) {
        int64_t nb = 2 * nan - h0 < d->batch ? 2 * nan - h0 : d->batch;
        for (int64_t t = 0; t < nb; t += 2) make_jobs(P, &an[(h0 + t) / 2], &jobs[t]);   /* batch is even */
#if HSPZ_HAVE_CUDA
        if (d->cuda) rc = hz_gdcuda_run(d->h, P, jobs, nb, d->res, d->ops, d->rg, err, errlen);
        else
#endif
        emu_run(d, P, jobs, nb);
        if (!rc && keep_batch(d, R, h0, nb)) { snprintf(err, errlen, "out of memory"); rc = -1; }
    }
    pthread_mutex_unlock(&d->mu);
    free(jobs);
    if (rc) { hz_gdres_free(R); return -1; }
    *out = R;
    return 0;
}

/* region of half H into w (record_row's layout, int64) */
static int put_region(hz_gwork *w, int h, const hz_gdres *R, const gdhalf *H)
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
    const gdhalf *L = &R->h[2 * k], *Rt = &R->h[2 * k + 1];
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

void hz_gdres_free(hz_gdres *r)
{
    if (!r) return;
    free(r->h); free(r->ops); free(r->rg); free(r);
}
