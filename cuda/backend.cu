/* backend (CUDA) — device, memory, streams and the per-chunk driver of the GPU path.
 *
 * Per chunk (called from each host worker thread on its own stream): host seeds and MAX_HITS
 * batches as the CPU (src/chunk.c); per batch, anchors in physical tiles of at most `tile`
 * anchors: gate (cuda/gate.cu) -> stable compaction (CUB) -> materialize survivors
 * (cuda/extend.cu) -> compaction of kept HSPs -> host.  Anchors whose extension passes the
 * gate's work cap go to the host's exact diagonal path (src/extend.c).  The per-batch HSP
 * multiset equals the CPU's, and per-batch dedup sorts it, so the bytes equal the CPU's for
 * any tile size, thread count or device.
 */
#include "cuda_common.cuh"
#include <pthread.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
extern "C" {
#include "backend.h"
#include "dedup.h"
}

#define HZ_GATE_CAP_GPU 128u

struct tctx {
    int ready;
    cudaStream_t st;
    uint8_t *d_flags, *d_kept;
    uint32_t *d_ids, *d_count;
    hz_hsp *d_hsp, *d_hsp2;
    hz_anchor *d_anc;
    void *d_temp; size_t temp_bytes;
    uint32_t *d_qpos; uint64_t *d_off, *d_bstart; size_t seed_cap;
    uint32_t *h_qpos; uint64_t *h_off, *h_bstart;
    hz_hsp *h_hsp; hz_anchor *h_anc; uint32_t *h_count;
    uint64_t *pref, *bst; size_t pref_cap;
    hz_hspvec batch;
    hz_anchor *longa; size_t nlong, long_cap;
    hz_diagbuf diag;
    hz_seed_scratch ss;
};

struct cuda_be {
    hz_backend be;
    char name[256];
    int dev;
    hz_xparams xp;
    uint8_t *d_R; uint32_t Rlen; uint32_t *d_pos;
    uint8_t *d_Qf, *d_Qr; uint32_t Qlen;
    uint32_t *d_boff;            /* bucket offsets (direct tables only), for device seeding */
    uint8_t *d_Smin;             /* minus-strand seed codes (host reverse complement, 0..3 / 4) */
    int nt; tctx *t;
    int gate_full;
    const char *seeding;
    uint64_t tile;
    pthread_mutex_t lock;
};

static int ensure_seeds(tctx *c, size_t ns, char *err, size_t errlen)
{
    if (ns <= c->seed_cap) return 0;
    size_t n = c->seed_cap ? c->seed_cap : 1 << 16;
    while (n < ns) n *= 2;
    cudaFree(c->d_qpos); cudaFree(c->d_off); cudaFree(c->d_bstart);
    cudaFreeHost(c->h_qpos); cudaFreeHost(c->h_off); cudaFreeHost(c->h_bstart);
    HZ_CUDA_CHECK(cudaMalloc(&c->d_qpos, n * 4), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMalloc(&c->d_off, n * 8), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMalloc(&c->d_bstart, n * 8), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMallocHost(&c->h_qpos, n * 4), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMallocHost(&c->h_off, n * 8), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMallocHost(&c->h_bstart, n * 8), err, errlen, fail);
    c->seed_cap = n;
    return 0;
fail:
    c->seed_cap = 0;
    return -1;
}

static int ctx_init(cuda_be *B, tctx *c, char *err, size_t errlen)
{
    uint64_t T = B->tile;
    size_t b1 = 0, b2 = 0;
    HZ_CUDA_CHECK(cudaSetDevice(B->dev), err, errlen, fail);
    HZ_CUDA_CHECK(cudaStreamCreateWithFlags(&c->st, cudaStreamNonBlocking), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMalloc(&c->d_flags, T), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMalloc(&c->d_kept, T), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMalloc(&c->d_ids, T * 4), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMalloc(&c->d_count, 8), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMalloc(&c->d_hsp, T * sizeof(hz_hsp)), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMalloc(&c->d_hsp2, T * sizeof(hz_hsp)), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMalloc(&c->d_anc, T * sizeof(hz_anchor)), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMallocHost(&c->h_hsp, T * sizeof(hz_hsp)), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMallocHost(&c->h_anc, T * sizeof(hz_anchor)), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMallocHost(&c->h_count, 8), err, errlen, fail);
    HZ_CUDA_CHECK(hz_cuda_select(c->d_flags, T, 1, c->d_ids, c->d_count, NULL, &b1, c->st), err, errlen, fail);
    HZ_CUDA_CHECK(hz_cuda_select_hsp(c->d_hsp, c->d_kept, (uint32_t)T, c->d_hsp2, c->d_count, NULL, &b2, c->st), err, errlen, fail);
    c->temp_bytes = b1 > b2 ? b1 : b2;
    HZ_CUDA_CHECK(cudaMalloc(&c->d_temp, c->temp_bytes), err, errlen, fail);
    c->ready = 1;
    return 0;
fail:
    return -1;
}

static void ctx_free(tctx *c)
{
    if (!c->ready) return;
    cudaFree(c->d_flags); cudaFree(c->d_kept); cudaFree(c->d_ids); cudaFree(c->d_count);
    cudaFree(c->d_hsp); cudaFree(c->d_hsp2); cudaFree(c->d_anc); cudaFree(c->d_temp);
    cudaFree(c->d_qpos); cudaFree(c->d_off); cudaFree(c->d_bstart);
    cudaFreeHost(c->h_qpos); cudaFreeHost(c->h_off); cudaFreeHost(c->h_bstart);
    cudaFreeHost(c->h_hsp); cudaFreeHost(c->h_anc); cudaFreeHost(c->h_count);
    hz_seed_scratch_free(&c->ss);
    cudaStreamDestroy(c->st);
    free(c->pref); free(c->bst); free(c->longa);
    hz_hspvec_free(&c->batch);
    hz_diagbuf_free(&c->diag);
    memset(c, 0, sizeof *c);
}

static int be_set_target(hz_backend *be, const hz_target *t, char *err, size_t errlen)
{
    cuda_be *B = (cuda_be *)be->impl;
    const hz_seedtable *tab = t->tab;
    uint32_t *pos = tab->pos;
    uint32_t *tmp = NULL;
    HZ_CUDA_CHECK(cudaSetDevice(B->dev), err, errlen, fail);
    cudaFree(B->d_R); cudaFree(B->d_pos); B->d_R = NULL; B->d_pos = NULL;
    if (!tab->bucket_off) {   /* sorted mode: low 32 bits are the positions */
        tmp = (uint32_t *)malloc((tab->n_pos ? tab->n_pos : 1) * 4);
        if (!tmp) { snprintf(err, errlen, "out of host memory"); return -1; }
        for (uint64_t i = 0; i < tab->n_pos; i++) tmp[i] = (uint32_t)tab->sorted[i];
        pos = tmp;
    }
    HZ_CUDA_CHECK(cudaMalloc(&B->d_R, (size_t)t->Rlen + 1), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMemcpy(B->d_R, t->R, t->Rlen, cudaMemcpyHostToDevice), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMalloc(&B->d_pos, (tab->n_pos ? tab->n_pos : 1) * 4), err, errlen, fail);
    if (tab->n_pos)
        HZ_CUDA_CHECK(cudaMemcpy(B->d_pos, pos, tab->n_pos * 4, cudaMemcpyHostToDevice), err, errlen, fail);
    B->Rlen = t->Rlen;
    cudaFree(B->d_boff); B->d_boff = NULL;
    if (tab->bucket_off) {
        size_t nb = ((size_t)1 << (2 * tab->weight)) + 1;
        HZ_CUDA_CHECK(cudaMalloc(&B->d_boff, nb * 4), err, errlen, fail);
        HZ_CUDA_CHECK(cudaMemcpy(B->d_boff, tab->bucket_off, nb * 4, cudaMemcpyHostToDevice), err, errlen, fail);
    }
    free(tmp);
    return 0;
fail:
    free(tmp);
    return -1;
}

static int be_set_query(hz_backend *be, const uint8_t *fwd, const uint8_t *rc, uint32_t L, char *err, size_t errlen)
{
    cuda_be *B = (cuda_be *)be->impl;
    HZ_CUDA_CHECK(cudaSetDevice(B->dev), err, errlen, fail);
    cudaFree(B->d_Qf); cudaFree(B->d_Qr); B->d_Qf = B->d_Qr = NULL;
    HZ_CUDA_CHECK(cudaMalloc(&B->d_Qf, (size_t)L + 1), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMalloc(&B->d_Qr, (size_t)L + 1), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMemcpy(B->d_Qf, fwd, L, cudaMemcpyHostToDevice), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMemcpy(B->d_Qr, rc, L, cudaMemcpyHostToDevice), err, errlen, fail);
    B->Qlen = L;
    return 0;
fail:
    return -1;
}

static int be_set_query_text(hz_backend *be, const uint8_t *fwd_text, const uint8_t *hrc_text,
                             uint32_t L, char *err, size_t errlen)
{
    cuda_be *B = (cuda_be *)be->impl;
    uint8_t *h = (uint8_t *)malloc((size_t)L + 1);
    (void)fwd_text;   /* plus-strand seed codes are the forward extension codes (< 4 = ACGT) */
    if (!h) { snprintf(err, errlen, "out of host memory"); return -1; }
    for (uint32_t i = 0; i < L; i++) {
        uint8_t b = hrc_text[i];
        h[i] = b == 'A' ? 0 : b == 'C' ? 1 : b == 'G' ? 2 : b == 'T' ? 3 : 4;
    }
    HZ_CUDA_CHECK(cudaSetDevice(B->dev), err, errlen, fail);
    cudaFree(B->d_Smin); B->d_Smin = NULL;
    HZ_CUDA_CHECK(cudaMalloc(&B->d_Smin, (size_t)L + 1), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMemcpy(B->d_Smin, h, L, cudaMemcpyHostToDevice), err, errlen, fail);
    free(h);
    return 0;
fail:
    free(h);
    return -1;
}

static int sync_count(tctx *c, uint32_t *out, char *err, size_t errlen)
{
    HZ_CUDA_CHECK(cudaMemcpyAsync(c->h_count, c->d_count, 4, cudaMemcpyDeviceToHost, c->st), err, errlen, fail);
    HZ_CUDA_CHECK(cudaStreamSynchronize(c->st), err, errlen, fail);
    *out = *c->h_count;
    return 0;
fail:
    return -1;
}

static int push_long(tctx *c, uint32_t n)
{
    if (c->nlong + n > c->long_cap) {
        size_t cap = c->long_cap ? c->long_cap : 4096;
        while (cap < c->nlong + n) cap *= 2;
        hz_anchor *p = (hz_anchor *)realloc(c->longa, cap * sizeof *p);
        if (!p) return -1;
        c->longa = p; c->long_cap = cap;
    }
    memcpy(c->longa + c->nlong, c->h_anc, (size_t)n * sizeof(hz_anchor));
    c->nlong += n;
    return 0;
}

/* one physical tile [h0, h0+n) of a batch; kept HSPs appended to c->batch */
static int run_tile(cuda_be *B, tctx *c, const hz_dev_batch &db, const uint8_t *dQ, uint32_t Qlen,
                    uint64_t h0, uint64_t n, hz_funnel *f, char *err, size_t errlen)
{
    uint32_t nsurv = (uint32_t)n, nkept = 0, nlong = 0;
    size_t tb = c->temp_bytes;
    double t0 = hz_now(), t1;
    if (!B->gate_full) {
        hz_cuda_gate(B->d_R, B->Rlen, dQ, Qlen, db, h0, n, B->xp, HZ_GATE_CAP_GPU, c->d_flags, c->st);
        HZ_CUDA_CHECK(cudaGetLastError(), err, errlen, fail);
        HZ_CUDA_CHECK(hz_cuda_select(c->d_flags, n, 1, c->d_ids, c->d_count, c->d_temp, &tb, c->st), err, errlen, fail);
        if (sync_count(c, &nsurv, err, errlen)) return -1;
    }
    t1 = hz_now(); f->t_gate += t1 - t0;
    hz_cuda_materialize(B->d_R, B->Rlen, dQ, Qlen, db, h0, c->d_ids, nsurv, B->gate_full, B->xp,
                        c->d_hsp, c->d_kept, c->st);
    HZ_CUDA_CHECK(cudaGetLastError(), err, errlen, fail);
    tb = c->temp_bytes;
    HZ_CUDA_CHECK(hz_cuda_select_hsp(c->d_hsp, c->d_kept, nsurv, c->d_hsp2, c->d_count, c->d_temp, &tb, c->st), err, errlen, fail);
    if (sync_count(c, &nkept, err, errlen)) return -1;
    if (hz_hspvec_reserve(&c->batch, nkept)) { snprintf(err, errlen, "out of host memory"); return -1; }
    if (nkept) {
        HZ_CUDA_CHECK(cudaMemcpyAsync(c->h_hsp, c->d_hsp2, (size_t)nkept * sizeof(hz_hsp), cudaMemcpyDeviceToHost, c->st), err, errlen, fail);
        HZ_CUDA_CHECK(cudaStreamSynchronize(c->st), err, errlen, fail);
        memcpy(c->batch.v + c->batch.n, c->h_hsp, (size_t)nkept * sizeof(hz_hsp));
        c->batch.n += nkept;
    }
    f->t_extend += hz_now() - t1;
    if (!B->gate_full) {
        tb = c->temp_bytes;
        HZ_CUDA_CHECK(hz_cuda_select(c->d_flags, n, 2, c->d_ids, c->d_count, c->d_temp, &tb, c->st), err, errlen, fail);
        if (sync_count(c, &nlong, err, errlen)) return -1;
        if (nlong) {
            hz_cuda_anchors(db, h0, c->d_ids, nlong, c->d_anc, c->st);
            HZ_CUDA_CHECK(cudaGetLastError(), err, errlen, fail);
            HZ_CUDA_CHECK(cudaMemcpyAsync(c->h_anc, c->d_anc, (size_t)nlong * sizeof(hz_anchor), cudaMemcpyDeviceToHost, c->st), err, errlen, fail);
            HZ_CUDA_CHECK(cudaStreamSynchronize(c->st), err, errlen, fail);
            if (push_long(c, nlong)) { snprintf(err, errlen, "out of host memory"); return -1; }
        }
    }
    f->anchors += n; f->survivors += nsurv; f->accepted += nkept; f->long_anchors += nlong;
    return 0;
fail:
    return -1;
}


/* one semantic batch whose seeds are already on the device (db); N hits */
static int process_batch(cuda_be *B, tctx *c, const hz_dev_batch &db, uint64_t N, const uint8_t *dQ,
                         const uint8_t *Q, uint32_t Qlen, const hz_target *t, hz_hspvec *out,
                         hz_funnel *f, char *err, size_t errlen)
{
    c->batch.n = 0;
    for (uint64_t h0 = 0; h0 < N; h0 += B->tile) {
        uint64_t n = N - h0 < B->tile ? N - h0 : B->tile;
        if (run_tile(B, c, db, dQ, Qlen, h0, n, f, err, errlen)) return -1;
    }
    if (hz_extend_long(t, Q, Qlen, c->longa, c->nlong, &c->diag, &c->batch, f)) {
        snprintf(err, errlen, "out of host memory");
        return -1;
    }
    c->nlong = 0;
    double td = hz_now();
    size_t k = hz_dedup_batch(c->batch.v, c->batch.n);
    f->after_batch += k;
    f->batches++;
    if (hz_hspvec_reserve(out, k)) { snprintf(err, errlen, "out of host memory"); return -1; }
    memcpy(out->v + out->n, c->batch.v, k * sizeof *out->v);
    out->n += k;
    f->t_dedup += hz_now() - td;
    return 0;
}

static int be_chunk_range(hz_backend *be, const hz_target *t, const hz_shape *sh, int strand,
                          uint32_t j0, uint32_t j1, uint32_t Qlen, const uint8_t *Q, hz_hspvec *out,
                          hz_funnel *f, int tid)
{
    cuda_be *B = (cuda_be *)be->impl;
    char err[512] = "";
    uint32_t ns = 0; uint64_t nh = 0;
    int64_t *lim = NULL;
    if (tid >= B->nt) { snprintf(err, sizeof err, "thread %d beyond %d", tid, B->nt); goto fail; }
    {
        tctx *c = &B->t[tid];
        if (!c->ready && ctx_init(B, c, err, sizeof err)) goto fail;
        if (cudaSetDevice(B->dev) != cudaSuccess) { snprintf(err, sizeof err, "cudaSetDevice failed"); goto fail; }
        if (!B->d_boff) { snprintf(err, sizeof err, "device seeding needs a direct seed table (weight <= 13)"); goto fail; }
        const uint8_t *S = strand ? B->d_Smin : B->d_Qf, *dQ = strand ? B->d_Qr : B->d_Qf;
        double t0 = hz_now();
        if (hz_cuda_seed_chunk(S, j0, j1, sh, B->d_boff, &c->ss, &ns, &nh, c->st, err, sizeof err)) goto fail;
        f->t_seed += hz_now() - t0;
        if (!ns) return 0;
        f->seeds += ns;
        if (t->max_hits == 0 || nh < t->max_hits) {
            hz_dev_batch db = { B->d_pos, c->ss.qpos, c->ss.off, c->ss.bstart, ns, t->W, 0 };
            if (process_batch(B, c, db, nh, dQ, Q, Qlen, t, out, f, err, sizeof err)) goto fail;
            return 0;
        }
        /* several semantic batches: the partition needs the prefix sums on the host */
        if (ns > c->pref_cap) {
            free(c->pref); free(c->bst);
            c->pref = (uint64_t *)malloc((size_t)ns * 8); c->bst = (uint64_t *)malloc((size_t)ns * 8);
            if (!c->pref || !c->bst) { c->pref_cap = 0; snprintf(err, sizeof err, "out of host memory"); goto fail; }
            c->pref_cap = ns;
        }
        if (cudaMemcpy(c->pref, c->ss.pref, (size_t)ns * 8, cudaMemcpyDeviceToHost) != cudaSuccess) {
            snprintf(err, sizeof err, "cudaMemcpy of hit prefix sums failed"); goto fail;
        }
        lim = (int64_t *)malloc(((size_t)ns + 1) * sizeof *lim);
        if (!lim) { snprintf(err, sizeof err, "out of host memory"); goto fail; }
        size_t nb = hz_batches(c->pref, ns, t->max_hits, lim);
        size_t s0 = 0;
        for (size_t b = 0; b < nb; b++) {
            int64_t e1 = lim[b];
            size_t nsb = (size_t)(e1 + 1 - (int64_t)s0);
            uint64_t base = s0 ? c->pref[s0 - 1] : 0, N = nsb ? c->pref[e1] - base : 0;
            hz_dev_batch db = { B->d_pos, c->ss.qpos + s0, c->ss.off + s0, c->ss.bstart + s0, (uint32_t)nsb, t->W, base };
            if (process_batch(B, c, db, N, dQ, Q, Qlen, t, out, f, err, sizeof err)) goto fail;
            s0 = (size_t)(e1 + 1);
        }
        free(lim);
    }
    return 0;
fail:
    free(lim);
    pthread_mutex_lock(&B->lock);
    if (!be->last_error[0]) snprintf(be->last_error, sizeof be->last_error, "%s", err);
    pthread_mutex_unlock(&B->lock);
    return -1;
}

static int be_chunk(hz_backend *be, const hz_target *t, const hz_seed *seeds, size_t ns,
                    const uint8_t *Q, int strand, uint32_t Qlen, hz_hspvec *out, hz_funnel *f, int tid)
{
    cuda_be *B = (cuda_be *)be->impl;
    char err[512] = "";
    if (ns == 0) return 0;
    if (tid >= B->nt) { snprintf(be->last_error, sizeof be->last_error, "thread %d beyond %d", tid, B->nt); return -1; }
    tctx *c = &B->t[tid];
    if (!c->ready && ctx_init(B, c, err, sizeof err)) goto fail;
    if (cudaSetDevice(B->dev) != cudaSuccess) { snprintf(err, sizeof err, "cudaSetDevice failed"); goto fail; }
    {
        f->seeds += ns;
        double t0 = hz_now();
        if (ns > c->pref_cap) {
            free(c->pref); free(c->bst);
            c->pref = (uint64_t *)malloc(ns * 8); c->bst = (uint64_t *)malloc(ns * 8);
            if (!c->pref || !c->bst) { c->pref_cap = 0; snprintf(err, sizeof err, "out of host memory"); goto fail; }
            c->pref_cap = ns;
        }
        hz_seed_hits(t->tab, seeds, ns, c->pref, c->bst);
        int64_t *lim = (int64_t *)malloc((ns + 1) * sizeof *lim);
        if (!lim) { snprintf(err, sizeof err, "out of host memory"); goto fail; }
        size_t nb = hz_batches(c->pref, ns, t->max_hits, lim);
        f->t_anchor += hz_now() - t0;
        const uint8_t *dQ = strand ? B->d_Qr : B->d_Qf;
        size_t s0 = 0;
        for (size_t b = 0; b < nb; b++) {
            int64_t e1 = lim[b];
            size_t nsb = (size_t)(e1 + 1 - (int64_t)s0);
            uint64_t base = s0 ? c->pref[s0 - 1] : 0, N = nsb ? c->pref[e1] - base : 0;
            if (N) {   /* the batch's seeds to the device, hit offsets relative to the batch */
                double ta = hz_now();
                if (ensure_seeds(c, nsb, err, sizeof err)) { free(lim); goto fail; }
                for (size_t i = 0; i < nsb; i++) {
                    c->h_qpos[i] = seeds[s0 + i].qpos;
                    c->h_off[i] = (s0 + i ? c->pref[s0 + i - 1] : 0) - base;
                    c->h_bstart[i] = c->bst[s0 + i];
                }
                if (cudaMemcpyAsync(c->d_qpos, c->h_qpos, nsb * 4, cudaMemcpyHostToDevice, c->st) != cudaSuccess ||
                    cudaMemcpyAsync(c->d_off, c->h_off, nsb * 8, cudaMemcpyHostToDevice, c->st) != cudaSuccess ||
                    cudaMemcpyAsync(c->d_bstart, c->h_bstart, nsb * 8, cudaMemcpyHostToDevice, c->st) != cudaSuccess) {
                    free(lim); snprintf(err, sizeof err, "cudaMemcpyAsync of the batch's seeds failed"); goto fail;
                }
                f->t_anchor += hz_now() - ta;
            }
            hz_dev_batch db = { B->d_pos, c->d_qpos, c->d_off, c->d_bstart, (uint32_t)nsb, t->W, 0 };
            if (process_batch(B, c, db, N, dQ, Q, Qlen, t, out, f, err, sizeof err)) { free(lim); goto fail; }
            s0 = (size_t)(e1 + 1);
        }
        free(lim);
    }
    return 0;
fail:
    pthread_mutex_lock(&B->lock);
    if (!be->last_error[0]) snprintf(be->last_error, sizeof be->last_error, "%s", err);
    pthread_mutex_unlock(&B->lock);
    return -1;
}

extern "C" int hz_cuda_seedtable_build(hz_seedtable *tab, const uint8_t *T, uint32_t L,
                                       const hz_shape *sh, uint32_t step, char *err, size_t errlen);

static int be_build_table(hz_backend *be, hz_seedtable *tab, const uint8_t *T, uint32_t L,
                          const hz_shape *sh, uint32_t step, char *err, size_t errlen)
{
    cuda_be *B = (cuda_be *)be->impl;
    if (cudaSetDevice(B->dev) != cudaSuccess) { snprintf(err, errlen, "cudaSetDevice failed"); return -1; }
    return hz_cuda_seedtable_build(tab, T, L, sh, step, err, errlen);
}

static void be_close(hz_backend *be)
{
    cuda_be *B = (cuda_be *)be->impl;
    for (int i = 0; i < B->nt; i++) ctx_free(&B->t[i]);
    free(B->t);
    cudaFree(B->d_R); cudaFree(B->d_pos); cudaFree(B->d_Qf); cudaFree(B->d_Qr);
    cudaFree(B->d_boff); cudaFree(B->d_Smin);
    pthread_mutex_destroy(&B->lock);
    free(B);
}

extern "C" int hz_cuda_backend_open(const hz_opts *o, const hz_xparams *xp, hz_backend **out,
                                    char *err, size_t errlen)
{
    int n = 0, drv = 0, rt = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    if (e == cudaErrorInsufficientDriver && drv == 0) {
        snprintf(err, errlen, "no NVIDIA driver is loaded (no GPU visible)");
        return 1;
    }
    if (e == cudaErrorInsufficientDriver) {
        snprintf(err, errlen, "the NVIDIA driver supports CUDA %d.%d but this hspz needs CUDA %d.%d: "
                 "update the driver or run with --device cpu", drv / 1000, (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10);
        return 1;
    }
    if (e != cudaSuccess || n == 0) {
        snprintf(err, errlen, "no CUDA device (%s)", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices visible");
        return 1;
    }
    const char *gate = getenv("HSPZ_GATE");
    int full = 0;
    if (gate && strcmp(gate, "score") && strcmp(gate, "full")) {
        snprintf(err, errlen, "HSPZ_GATE='%s' is not score or full", gate);
        return -1;
    }
    if (gate && !strcmp(gate, "full")) full = 1;
    const char *ds = getenv("HSPZ_DEVICE_SEEDS");
    int devtab = 1;
    if (ds && strcmp(ds, "0") && strcmp(ds, "1")) {
        snprintf(err, errlen, "HSPZ_DEVICE_SEEDS='%s' is not 0 or 1", ds);
        return -1;
    }
    if (ds && !strcmp(ds, "0")) devtab = 0;
    const char *rb = getenv("HSPZ_REF_BUCKETS");
    if (rb && strcmp(rb, "auto") && strcmp(rb, "off") && strcmp(rb, "on")) {
        snprintf(err, errlen, "HSPZ_REF_BUCKETS='%s' is not auto, on or off", rb);
        return -1;
    }
    if (rb && !strcmp(rb, "on")) {
        snprintf(err, errlen, "HSPZ_REF_BUCKETS=on: reference bucketing is not implemented in this version (use auto or off)");
        return -1;
    }
    cuda_be *B = (cuda_be *)calloc(1, sizeof *B);
    if (!B) { snprintf(err, errlen, "out of host memory"); return -1; }
    B->be.impl = B;
    B->dev = 0;
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) { free(B); snprintf(err, errlen, "cannot read device properties"); return 1; }
    cudaSetDevice(0);
    B->xp = *xp;
    B->gate_full = full;
    B->nt = o->threads > 0 ? o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (B->nt < 1) B->nt = 1;
    B->t = (tctx *)calloc((size_t)B->nt, sizeof *B->t);
    pthread_mutex_init(&B->lock, NULL);
    /* physical tile: anchors per device pass; never changes output (HSPZ_GPU_TILE for tests) */
    size_t fr = 0, tot = 0;
    cudaMemGetInfo(&fr, &tot);
    uint64_t per = 1 + 1 + 4 + 2 * sizeof(hz_hsp) + sizeof(hz_anchor);
    uint64_t tile = (uint64_t)(fr / 2) / per / (uint64_t)B->nt;
    if (tile > (1u << 23)) tile = 1u << 23;
    if (tile < 4096) tile = 4096;
    const char *ts = getenv("HSPZ_GPU_TILE");
    if (ts) {
        char *end; unsigned long long v = strtoull(ts, &end, 10);
        if (*end || v < 1 || v > (1ULL << 30)) { snprintf(err, errlen, "HSPZ_GPU_TILE='%s' is not 1..2^30", ts); be_close(&B->be); return -1; }
        tile = v;
    }
    B->tile = tile;
    {   /* device seeding needs the direct table (seed weight <= 13) */
        hz_shape sh;
        char e2[256];
        int direct = hz_shape_parse(o->seed, o->transition, &sh, e2, sizeof e2) == 0 && sh.weight <= 13;
        B->be.set_query_text = devtab && direct ? be_set_query_text : NULL;
        B->be.chunk_range = devtab && direct ? be_chunk_range : NULL;
        B->seeding = devtab && direct ? "device" : "host";
    }
    snprintf(B->name, sizeof B->name, "cuda:0 %s (sm_%d%d, %d SMs, %.1f GiB, driver %d.%d, runtime %d.%d, gate %s, seed table on %s, seeding on %s, ref-buckets off, tile %llu)",
             p.name, p.major, p.minor, p.multiProcessorCount, (double)p.totalGlobalMem / 1073741824.0,
             drv / 1000, (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10, full ? "full" : "score",
             devtab ? "device" : "host", B->seeding, (unsigned long long)tile);
    B->be.name = B->name;
    B->be.set_target = be_set_target;
    B->be.set_query = be_set_query;
    B->be.chunk = be_chunk;
    B->be.close = be_close;
    B->be.build_table = devtab ? be_build_table : NULL;
    B->be.impl = B;
    B->be.last_error[0] = 0;
    *out = &B->be;
    return 0;
}
