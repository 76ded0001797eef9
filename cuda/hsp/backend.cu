/* backend (CUDA) — devices, memory, streams and the per-chunk driver of the GPU path.
 *
 * Each host worker thread owns a context (stream, buffers, CUDA events) on one device:
 * thread t uses device t mod G (--gpus G).  Chunks are handed out by the pipeline in plan
 * order and each chunk's HSPs go to the chunk's own slot, so the bytes never depend on which
 * device or thread ran a chunk, nor on the order they finished.
 *
 * Per chunk: seeds (device seeding, cuda/hsp/seed.cu, or host seeds) and the MAX_HITS batches of
 * the CPU (src/hsp/chunk.c); per batch, anchors in physical tiles of at most `tile` anchors:
 * gate (cuda/hsp/gate.cu) -> stable compaction (CUB) -> materialization of the survivors
 * (cuda/hsp/extend.cu); anchors past the gate's work cap: the diagonal path on the device
 * (cuda/hsp/extend_diag.cu), and sides past 4096 columns on the host's (src/hsp/extend_diag.c).
 * Kept HSPs stay on the device until the batch ends (collapsed there like hz_batch_tidy,
 * cuda/hsp/batch.cu); the per-batch dedup then runs on the device (cuda/hsp/dedup.cu) and only its
 * survivors come back.  The dedup sorts the batch's HSP multiset — which equals the CPU's — so the bytes
 * equal the CPU's for any tile, thread or device count.
 *
 * Kernel choices (environment, recorded in the manifest): HSPZ_GATE=score|full,
 * HSPZ_GATE_KERNEL=refill|vec|thread|warp (cuda/hsp/gate_refill.cu, cuda/hsp/gate.cu, cuda/hsp/gate_warp.cu), HSPZ_REF_BUCKETS=auto|on|off, HSPZ_DEVICE_SEEDS=0|1,
 * HSPZ_DEVICE_LONG=diag|1|0 (anchors past the gate cap on the device's diagonal path, sides
 * past 4096 columns on the host's; one thread an anchor on the device up to 4096 columns a
 * side, the rest on the host; or all on the host; diag takes 1's way for a block pair with
 * Rlen + Qlen >= 2^32, counted in the report),
 * HSPZ_DEVICE_DEDUP=1|0 (the batch's HSPs stay on the device and its dedup runs there,
 * cuda/hsp/dedup.cu, only survivors coming back; or every kept HSP copied back and deduplicated
 * on the host, src/hsp/dedup.c), HSPZ_GPU_TILE=N.  CUDA events time every stage; report()
 * (cuda/hsp/report.cu) gives them as JSON.  The state's structs: cuda/hsp/backend_impl.cuh.
 */
#include "backend_impl.cuh"
#include <unistd.h>

/* cudaMalloc with the needed-vs-free message of issue 3 item 9 */
int hz_be_dalloc(void **p, size_t bytes, const devstate *D, const char *what, char *err, size_t errlen)
{
    int injected = fault_hit(D->fault, 1);
    cudaError_t e = injected ? cudaErrorMemoryAllocation : cudaMalloc(p, bytes ? bytes : 1);
    if (e == cudaSuccess) return 0;
    cudaGetLastError();
    size_t fr = 0, tot = 0;
    cudaMemGetInfo(&fr, &tot);
    if (e == cudaErrorMemoryAllocation)
        snprintf(err, errlen, "out of GPU memory on cuda:%d for %s: needed %.1f MiB, free %.1f MiB of %.1f MiB "
                 "(use fewer --threads, a smaller --seq-block-size, or --device cpu)%s",
                 D->dev, what, bytes / 1048576.0, fr / 1048576.0, tot / 1048576.0,
                 injected ? " [injected by HSPZ_FAULT]" : "");
    else
        snprintf(err, errlen, "CUDA error %s allocating %s on cuda:%d: %s", cudaGetErrorName(e), what, D->dev, cudaGetErrorString(e));
    *p = NULL;
    return -1;
}

/* a device copy of a sequence's codes src[0..L), with HZ_DEV_PAD zero bytes before and after it
 * (the gates' word loads may pass either end); *p points at its first code */
static int seq_upload(uint8_t **p, const uint8_t *src, uint32_t L, const devstate *D, const char *what,
                      char *err, size_t errlen)
{
    uint8_t *b = NULL;
    *p = NULL;
    if (DALLOC(b, (size_t)L + 2 * HZ_DEV_PAD, D, what)) return -1;
    *p = b + HZ_DEV_PAD;
    HZ_CUDA_CHECK(cudaMemset(b, 0, HZ_DEV_PAD), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMemcpy(b + HZ_DEV_PAD, src, L, cudaMemcpyHostToDevice), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMemset(b + HZ_DEV_PAD + L, 0, HZ_DEV_PAD), err, errlen, fail);
    return 0;
fail:
    return -1;
}

static void seq_free(uint8_t **p)
{
    if (*p) cudaFree(*p - HZ_DEV_PAD);
    *p = NULL;
}

static int ensure_seeds(tctx *c, const devstate *D, size_t ns, char *err, size_t errlen)
{
    if (ns <= c->seed_cap) return 0;
    size_t n = c->seed_cap ? c->seed_cap : 1 << 16;
    while (n < ns) n *= 2;
    cudaFree(c->d_qpos); cudaFree(c->d_off); cudaFree(c->d_bstart);
    cudaFreeHost(c->h_qpos); cudaFreeHost(c->h_off); cudaFreeHost(c->h_bstart);
    c->d_qpos = NULL; c->d_off = c->d_bstart = NULL; c->h_qpos = NULL; c->h_off = c->h_bstart = NULL;
    c->seed_cap = 0;
    if (DALLOC(c->d_qpos, n * 4, D, "seed query positions") || DALLOC(c->d_off, n * 8, D, "seed hit offsets") ||
        DALLOC(c->d_bstart, n * 8, D, "seed bucket starts"))
        return -1;
    HZ_CUDA_CHECK(cudaMallocHost(&c->h_qpos, n * 4), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMallocHost(&c->h_off, n * 8), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMallocHost(&c->h_bstart, n * 8), err, errlen, fail);
    c->seed_cap = n;
    return 0;
fail:
    return -1;
}

static int ctx_init(cuda_be *B, tctx *c, int tid, char *err, size_t errlen)
{
    uint64_t T = B->tile;
    size_t b1 = 0;
    int refill = B->gate_kernel == GK_REFILL && !B->gate_full && B->buckets_mode != 1;   /* as in the tile size */
    c->dv = tid % B->nd;
    const devstate *D = &B->d[c->dv];
    HZ_CUDA_CHECK(cudaSetDevice(D->dev), err, errlen, fail);
    HZ_CUDA_CHECK(cudaStreamCreateWithFlags(&c->st, cudaStreamNonBlocking), err, errlen, fail);
    for (int k = 0; k <= ST_N; k++) HZ_CUDA_CHECK(cudaEventCreate(&c->ev[k]), err, errlen, fail);
    HZ_CUDA_CHECK(cudaEventCreate(&c->es0), err, errlen, fail);
    HZ_CUDA_CHECK(cudaEventCreate(&c->es1), err, errlen, fail);
    if (DALLOC(c->d_flags, T, D, "gate flags") || DALLOC(c->d_ids, T * 4, D, "survivor ids") ||
        (refill && (DALLOC(c->d_A, T * sizeof(hz_anchor), D, "the tile's anchors") ||
                    DALLOC(c->d_L, T * sizeof(hz_survivor), D, "the gate's survivor lists"))) ||
        DALLOC(c->d_count, 64, D, "counters") || DALLOC(c->d_hsp, (B->dev_dedup ? 1 : T) * sizeof(hz_hsp), D, "HSPs") ||
        DALLOC(c->d_anc, T * sizeof(hz_anchor), D, "long anchors") ||
        (B->long_dev == LONG_DIAG && (DALLOC(c->d_lanc, T * sizeof(hz_anchor), D, "the diagonal path's anchors") ||
                                      DALLOC(c->d_lkey, T * 8, D, "the diagonal path's keys") ||
                                      DALLOC(c->d_lp, T * sizeof(hz_side_part_t), D, "the diagonal path's parts") ||
                                      DALLOC(c->d_lp2, T * sizeof(hz_side_part_t), D, "the diagonal path's joined parts"))))
        return -1;
    HZ_CUDA_CHECK(cudaMallocHost(&c->h_count, 64), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMallocHost(&c->h_hsp, HZ_PINNED_MAX * sizeof(hz_hsp)), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMallocHost(&c->h_anc, HZ_PINNED_MAX * sizeof(hz_anchor)), err, errlen, fail);
    HZ_CUDA_CHECK(hz_cuda_select(c->d_flags, T, 1, c->d_ids, c->d_count, NULL, &b1, c->st), err, errlen, fail);
    if (B->long_dev == LONG_DIAG) {
        size_t b2 = 0;
        if (hz_long_scratch(T, &b2, err, errlen)) return -1;
        if (b2 > b1) b1 = b2;
    }
    c->temp_bytes = b1;
    if (DALLOC(c->d_temp, c->temp_bytes, D, "compaction scratch")) return -1;
    if (B->buckets_mode) {
        cudaError_t e = hz_bucket_scratch_alloc(&c->bs, T);
        if (e != cudaSuccess) { cudaGetLastError(); snprintf(err, errlen, "cannot allocate the reference-bucketing scratch on cuda:%d (%s)", D->dev, cudaGetErrorString(e)); return -1; }
    }
    c->ready = 1;
    return 0;
fail:
    return -1;
}

static void ctx_free(tctx *c)
{
    if (!c->ready) { free(c->iv); return; }
    cudaFree(c->d_flags); cudaFree(c->d_ids); cudaFree(c->d_count); cudaFree(c->d_A); cudaFree(c->d_L);
    cudaFree(c->d_hsp); cudaFree(c->d_anc); cudaFree(c->d_temp); cudaFree(c->d_lanc); cudaFree(c->d_lkey); cudaFree(c->d_lp); cudaFree(c->d_lp2);
    cudaFree(c->d_bat); cudaFree(c->d_alt); cudaFree(c->d_keep); cudaFree(c->d_btemp);
    cudaFree(c->d_qpos); cudaFree(c->d_off); cudaFree(c->d_bstart);
    cudaFreeHost(c->h_qpos); cudaFreeHost(c->h_off); cudaFreeHost(c->h_bstart);
    cudaFreeHost(c->h_hsp); cudaFreeHost(c->h_anc); cudaFreeHost(c->h_count);
    hz_bucket_scratch_free(&c->bs);
    hz_seed_scratch_free(&c->ss);
    for (int k = 0; k <= ST_N; k++) cudaEventDestroy(c->ev[k]);
    cudaEventDestroy(c->es0); cudaEventDestroy(c->es1);
    cudaStreamDestroy(c->st);
    free(c->pref); free(c->bst); free(c->longa); free(c->iv);
    hz_hspvec_free(&c->batch);
    hz_diagbuf_free(&c->diag);
    memset(c, 0, sizeof *c);
}

/* remember [a, b] (events already complete) as a busy interval of the thread's device */
void hz_be_busy(cuda_be *B, tctx *c, cudaEvent_t a, cudaEvent_t b)
{
    float x = 0, y = 0;
    cudaEvent_t ref = B->d[c->dv].ref;
    if (cudaEventElapsedTime(&x, ref, a) != cudaSuccess || cudaEventElapsedTime(&y, ref, b) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    if (c->niv + 2 > c->iv_cap) {
        size_t cap = c->iv_cap ? 2 * c->iv_cap : 1024;
        float *p = (float *)realloc(c->iv, cap * sizeof *p);
        if (!p) return;
        c->iv = p; c->iv_cap = cap;
    }
    c->iv[c->niv++] = x; c->iv[c->niv++] = y;
}

float hz_be_ev_ms(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0;
    if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess) { cudaGetLastError(); return 0; }
    return ms;
}

static int be_set_target(hz_backend *be, const hz_target *t, char *err, size_t errlen)
{
    cuda_be *B = (cuda_be *)be->impl;
    const hz_seedtable *tab = t->tab;
    uint32_t *pos = tab->pos;
    uint32_t *tmp = NULL;
    if (tab->resident && tab != B->res_tab) {
        snprintf(err, errlen, "internal error: the target seed table is no longer on the device");
        return -1;
    }
    if (!tab->bucket_off && !tab->resident) {   /* sorted mode: low 32 bits are the positions */
        tmp = (uint32_t *)malloc((tab->n_pos ? tab->n_pos : 1) * 4);
        if (!tmp) { snprintf(err, errlen, "out of host memory"); return -1; }
        for (uint64_t i = 0; i < tab->n_pos; i++) tmp[i] = (uint32_t)tab->sorted[i];
        pos = tmp;
    }
    for (int g = 0; g < B->nd; g++) {
        devstate *D = &B->d[g];
        HZ_CUDA_CHECK(cudaSetDevice(D->dev), err, errlen, fail);
        seq_free(&D->d_R); cudaFree(D->d_pos); cudaFree(D->d_boff);
        D->d_pos = NULL; D->d_boff = NULL;
        if (seq_upload(&D->d_R, t->R, t->Rlen, D, "the target block", err, errlen)) goto fail;
        D->Rlen = t->Rlen;
        if (tab->resident) {   /* one device (be_build_table_resident): it takes the table over */
            D->d_pos = B->res_pos; D->d_boff = B->res_boff;
            B->res_pos = B->res_boff = NULL; B->res_tab = NULL;
            continue;
        }
        if (DALLOC(D->d_pos, (tab->n_pos ? tab->n_pos : 1) * 4, D, "the target seed table")) goto fail;
        if (tab->n_pos)
            HZ_CUDA_CHECK(cudaMemcpy(D->d_pos, pos, tab->n_pos * 4, cudaMemcpyHostToDevice), err, errlen, fail);
        if (tab->bucket_off) {
            size_t nb = ((size_t)1 << (2 * tab->weight)) + 1;
            if (DALLOC(D->d_boff, nb * 4, D, "the seed table's bucket offsets")) goto fail;
            HZ_CUDA_CHECK(cudaMemcpy(D->d_boff, tab->bucket_off, nb * 4, cudaMemcpyHostToDevice), err, errlen, fail);
        }
    }
    {   /* reference bucketing for this block: 32 target windows (each within 3/4 of L2 for
         * blocks up to 24 x L2).  auto = off: measured on an H200 it never paid — whole runs
         * 2.00 vs 1.47 s with a 39.7 MB target (fits L2) and 10.9 vs 6.9 s with a 105.7 MB
         * target (does not), the gate alone 4.9e9 vs 8.7e9 anchors/s
         * (bench/results/gpu-h200x2-2026-11-30.md); the key pass and sort cost more than the
         * locality saves.  Devices without a measurement keep the same rule. */
        B->buckets_now = B->buckets_mode == 1;
        B->win = (t->Rlen + 31) / 32;
        if (B->win < 1) B->win = 1;
        B->blocks++;
        B->blocks_bucketed += (uint64_t)B->buckets_now;
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
    for (int g = 0; g < B->nd; g++) {
        devstate *D = &B->d[g];
        HZ_CUDA_CHECK(cudaSetDevice(D->dev), err, errlen, fail);
        seq_free(&D->d_Qf); seq_free(&D->d_Qr);
        if (seq_upload(&D->d_Qf, fwd, L, D, "the query block", err, errlen) ||
            seq_upload(&D->d_Qr, rc, L, D, "the query block (reverse complement)", err, errlen))
            return -1;
        D->Qlen = L;
    }
    return 0;
fail:
    return -1;
}

static int be_set_query_seeding(hz_backend *be, const uint32_t *u, size_t nu, uint32_t L, char *err, size_t errlen)
{
    cuda_be *B = (cuda_be *)be->impl;
    for (int g = 0; g < B->nd; g++) {   /* plus strand: d_Qf itself; minus: from d_Qr (set_query) */
        devstate *D = &B->d[g];
        HZ_CUDA_CHECK(cudaSetDevice(D->dev), err, errlen, fail);
        cudaFree(D->d_Smin); D->d_Smin = NULL;
        if (DALLOC(D->d_Smin, (size_t)L + HZ_DEV_PAD, D, "the minus-strand seed codes")) goto fail;
        HZ_CUDA_CHECK(cudaMemset(D->d_Smin + L, 4, HZ_DEV_PAD), err, errlen, fail);
        if (hz_cuda_minus_seed_codes(D->d_Qr, L, u, nu, D->d_Smin, err, errlen)) goto fail;
    }
    return 0;
fail:
    return -1;
}

int hz_be_reserve_long(tctx *c, size_t n)
{
    if (c->nlong + n > c->long_cap) {
        size_t cap = c->long_cap ? c->long_cap : 4096;
        while (cap < c->nlong + n) cap *= 2;
        hz_anchor *p = (hz_anchor *)realloc(c->longa, cap * sizeof *p);
        if (!p) return -1;
        c->longa = p; c->long_cap = cap;
    }
    return 0;
}

/* HSPZ_FAULT gpu-kernel:N (tests only): the N-th gate launch of the run "fails"; 1 with err */
static int gate_fault(cuda_be *B, const tctx *c, char *err, size_t errlen)
{
    if (!fault_hit(&B->fault, 2)) return 0;
    snprintf(err, errlen, "CUDA error cudaErrorLaunchFailure in the gate kernel on cuda:%d: unspecified launch failure "
             "[injected by HSPZ_FAULT]", B->d[c->dv].dev);
    return 1;
}

/* one physical tile [h0, h0+n) of a batch; kept HSPs appended to c->batch, long anchors to
 * c->longa.  Two host round trips: the three counts, then the data. */
static int run_tile(cuda_be *B, tctx *c, const hz_dev_batch &db, const uint8_t *dQ, const uint8_t *Q,
                    uint32_t Qlen, const hz_target *t, uint64_t h0, uint64_t n, hz_funnel *f, char *err, size_t errlen)
{
    const devstate *D = &B->d[c->dv];
    /* the device diagonal path's keys hold a diagonal and a column in 32 bits each */
    const int diag = B->long_dev == LONG_DIAG && (uint64_t)D->Rlen + Qlen < ((uint64_t)1 << 32);
    uint32_t nsurv = (uint32_t)n, nkept = 0, nlong = 0, npast = 0;
    size_t tb;
    cudaEvent_t *ev = c->ev;
    double t0, t1;
    size_t ncopy;
    /* the long anchors gathered so far, when this tile's might not fit beside them */
    if (diag && c->lfill + n > B->tile && hz_long_flush(B, c, dQ, Qlen, f, err, errlen)) return -1;
    if (B->long_dev == LONG_DIAG && !diag) c->long_fallback++;
    t0 = hz_now();
    /* each anchor keeps at most one HSP */
    if (hz_bat_room(B, c, n, err, errlen)) return -1;
    hz_hsp *hout = B->dev_dedup ? c->d_bat + c->nbat : c->d_hsp;
    HZ_CUDA_CHECK(cudaMemsetAsync(c->d_count, 0, 24, c->st), err, errlen, fail);
    HZ_CUDA_CHECK(cudaEventRecord(ev[0], c->st), err, errlen, fail);
    if (!B->gate_full && B->gate_kernel == GK_REFILL && !B->buckets_now) {
        /* the tile's anchors, then the refill gate: flags, and the survivors as a list for
         * materialization (no compaction); undecided anchors are compacted in raw order */
        hz_cuda_expand(db, h0, n, c->d_A, c->st);
        hz_cuda_gate_refill(D->d_R, D->Rlen, dQ, Qlen, c->d_A, n, B->xp, HZ_GATE_CAP_GPU, B->refill_frozen, 1, c->d_flags,
                            c->d_L, c->d_count, c->d_count + 5, c->st);
        HZ_CUDA_CHECK(cudaGetLastError(), err, errlen, fail);
        if (gate_fault(B, c, err, errlen)) return -1;
        HZ_CUDA_CHECK(cudaEventRecord(ev[1], c->st), err, errlen, fail);
        HZ_CUDA_CHECK(cudaEventRecord(ev[2], c->st), err, errlen, fail);
        HZ_CUDA_CHECK(cudaMemsetAsync(c->d_count + 12, 0, 4, c->st), err, errlen, fail);
        hz_cuda_materialize_survivors(D->d_R, D->Rlen, dQ, Qlen, c->d_L, c->d_count, (uint32_t)n, B->xp, hout,
                                      c->d_count + 1, c->d_count + 12, c->st);
        HZ_CUDA_CHECK(cudaGetLastError(), err, errlen, fail);
        HZ_CUDA_CHECK(cudaEventRecord(ev[3], c->st), err, errlen, fail);
        tb = c->temp_bytes;
        HZ_CUDA_CHECK(hz_cuda_select(c->d_flags, n, 2, c->d_ids, c->d_count + 2, c->d_temp, &tb, c->st), err, errlen, fail);
        if (diag)
            hz_cuda_anchors_list(c->d_A, c->d_ids, c->d_count + 2, (uint32_t)n, c->d_lanc + c->lfill, c->st);
        else if (B->long_dev)
            hz_cuda_long_list(D->d_R, D->Rlen, dQ, Qlen, c->d_A, c->d_ids, c->d_count + 2, (uint32_t)n, B->xp, B->long_frozen, HZ_LONG_CAP_GPU,
                              hout, c->d_count + 1, c->d_count + 3, c->d_anc, c->d_count + 4, c->st);
        else
            hz_cuda_anchors_list(c->d_A, c->d_ids, c->d_count + 2, (uint32_t)n, c->d_anc, c->st);
        HZ_CUDA_CHECK(cudaGetLastError(), err, errlen, fail);
    } else if (!B->gate_full) {
        if (B->buckets_now) {
            HZ_CUDA_CHECK(hz_cuda_gate_buckets(D->d_R, D->Rlen, dQ, Qlen, db, h0, n, B->xp, HZ_GATE_CAP_GPU,
                                               B->win, &c->bs, c->d_flags, c->st), err, errlen, fail);
            c->bucketed += n;
        } else if (B->gate_kernel == GK_WARP)
            hz_cuda_gate_warp(D->d_R, D->Rlen, dQ, Qlen, db, h0, n, B->xp, HZ_GATE_CAP_GPU, c->d_flags, c->st);
        else if (B->gate_kernel == GK_VEC)
            hz_cuda_gate_vec(D->d_R, D->Rlen, dQ, Qlen, db, h0, n, B->xp, HZ_GATE_CAP_GPU, c->d_flags, c->st);
        else
            hz_cuda_gate(D->d_R, D->Rlen, dQ, Qlen, db, h0, n, B->xp, HZ_GATE_CAP_GPU, c->d_flags, c->st);
        HZ_CUDA_CHECK(cudaGetLastError(), err, errlen, fail);
        if (gate_fault(B, c, err, errlen)) return -1;
        HZ_CUDA_CHECK(cudaEventRecord(ev[1], c->st), err, errlen, fail);
        tb = c->temp_bytes;
        HZ_CUDA_CHECK(hz_cuda_select(c->d_flags, n, 1, c->d_ids, c->d_count, c->d_temp, &tb, c->st), err, errlen, fail);
        HZ_CUDA_CHECK(cudaEventRecord(ev[2], c->st), err, errlen, fail);
        hz_cuda_materialize(D->d_R, D->Rlen, dQ, Qlen, db, h0, c->d_ids, c->d_count, (uint32_t)n, B->xp,
                            hout, c->d_count + 1, c->st);
        HZ_CUDA_CHECK(cudaGetLastError(), err, errlen, fail);
        HZ_CUDA_CHECK(cudaEventRecord(ev[3], c->st), err, errlen, fail);
        tb = c->temp_bytes;
        HZ_CUDA_CHECK(hz_cuda_select(c->d_flags, n, 2, c->d_ids, c->d_count + 2, c->d_temp, &tb, c->st), err, errlen, fail);
        if (diag)
            hz_cuda_anchors(db, h0, c->d_ids, c->d_count + 2, (uint32_t)n, c->d_lanc + c->lfill, c->st);
        else if (B->long_dev)
            hz_cuda_long(D->d_R, D->Rlen, dQ, Qlen, db, h0, c->d_ids, c->d_count + 2, (uint32_t)n, B->xp, HZ_LONG_CAP_GPU,
                         hout, c->d_count + 1, c->d_count + 3, c->d_anc, c->d_count + 4, c->st);
        else
            hz_cuda_anchors(db, h0, c->d_ids, c->d_count + 2, (uint32_t)n, c->d_anc, c->st);
        HZ_CUDA_CHECK(cudaGetLastError(), err, errlen, fail);
    } else {   /* HSPZ_GATE=full: every anchor extended, KegAlign's way */
        HZ_CUDA_CHECK(cudaEventRecord(ev[1], c->st), err, errlen, fail);
        HZ_CUDA_CHECK(cudaEventRecord(ev[2], c->st), err, errlen, fail);
        hz_cuda_materialize(D->d_R, D->Rlen, dQ, Qlen, db, h0, NULL, NULL, (uint32_t)n, B->xp,
                            hout, c->d_count + 1, c->st);
        HZ_CUDA_CHECK(cudaGetLastError(), err, errlen, fail);
        HZ_CUDA_CHECK(cudaEventRecord(ev[3], c->st), err, errlen, fail);
    }
    HZ_CUDA_CHECK(cudaEventRecord(ev[4], c->st), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMemcpyAsync(c->h_count, c->d_count, 20, cudaMemcpyDeviceToHost, c->st), err, errlen, fail);
    HZ_CUDA_CHECK(cudaStreamSynchronize(c->st), err, errlen, fail);
    if (!B->gate_full) {
        nsurv = c->h_count[0];
        npast = c->h_count[2];
        nlong = diag ? 0 : B->long_dev ? c->h_count[4] : npast;
        if (diag) c->lfill += npast;
        nsurv += B->long_dev ? c->h_count[3] : 0;   /* the host path counts its own */
        c->long_dev += npast - nlong; c->long_host += nlong;
    }
    nkept = c->h_count[1];
    t1 = hz_now(); f->t_gate += t1 - t0;
    if (B->dev_dedup) c->nbat += nkept;   /* they stay on the device */
    ncopy = B->dev_dedup ? 0 : nkept;
    if (hz_hspvec_reserve(&c->batch, ncopy) || hz_be_reserve_long(c, nlong)) { snprintf(err, errlen, "out of host memory"); return -1; }
    /* results through pinned staging, at most HZ_PINNED_MAX elements per copy */
    for (size_t k0 = 0, l0 = 0; k0 < ncopy || l0 < nlong || k0 == 0;) {
        size_t k = ncopy - k0 < HZ_PINNED_MAX ? ncopy - k0 : HZ_PINNED_MAX;
        size_t l = nlong - l0 < HZ_PINNED_MAX ? nlong - l0 : HZ_PINNED_MAX;
        if (k) HZ_CUDA_CHECK(cudaMemcpyAsync(c->h_hsp, c->d_hsp + k0, k * sizeof(hz_hsp), cudaMemcpyDeviceToHost, c->st), err, errlen, fail);
        if (l) HZ_CUDA_CHECK(cudaMemcpyAsync(c->h_anc, c->d_anc + l0, l * sizeof(hz_anchor), cudaMemcpyDeviceToHost, c->st), err, errlen, fail);
        HZ_CUDA_CHECK(cudaEventRecord(ev[5], c->st), err, errlen, fail);
        HZ_CUDA_CHECK(cudaStreamSynchronize(c->st), err, errlen, fail);
        if (k) memcpy(c->batch.v + c->batch.n, c->h_hsp, k * sizeof(hz_hsp));
        if (l) memcpy(c->longa + c->nlong, c->h_anc, l * sizeof(hz_anchor));
        c->batch.n += k; c->nlong += l;
        k0 += k; l0 += l;
        if (!k && !l) break;
    }
    f->t_extend += hz_now() - t1;
    /* long anchors take the host's diagonal path once HZ_LONG_PIECE gathered (and at the
     * batch's end), so that what a batch holds follows its distinct HSPs (hz_batch_tidy) */
    if (c->nlong >= HZ_LONG_PIECE) {
        if (hz_extend_long(t, Q, Qlen, c->longa, c->nlong, &c->diag, &c->batch, f)) {
            snprintf(err, errlen, "out of host memory"); return -1;
        }
        c->nlong = 0;
    }
    hz_batch_tidy(&c->batch, 0);
    if (B->dev_dedup && hz_bat_tidy(B, c, err, errlen)) return -1;
    c->ms[ST_GATE] += hz_be_ev_ms(ev[0], ev[1]);
    c->ms[ST_COMPACT] += hz_be_ev_ms(ev[1], ev[2]);
    c->ms[ST_MAT] += hz_be_ev_ms(ev[2], ev[3]);
    c->ms[ST_LONGSEL] += hz_be_ev_ms(ev[3], ev[4]);
    c->ms[ST_COPY] += hz_be_ev_ms(ev[4], ev[5]);
    hz_be_busy(B, c, ev[0], ev[5]);
    c->tiles++; c->anchors += n;
    f->anchors += n; f->survivors += nsurv; f->accepted += nkept; f->long_anchors += npast;
    return 0;
fail:
    return -1;
}

/* one semantic batch whose seeds are already on the device (db); N hits */
static int process_batch(cuda_be *B, tctx *c, const hz_dev_batch &db, uint64_t N, const uint8_t *dQ,
                         const uint8_t *Q, uint32_t Qlen, const hz_target *t, hz_hspvec *out,
                         hz_funnel *f, char *err, size_t errlen)
{
    c->batch.n = 0; c->batch.tidy = 0;
    c->nbat = 0; c->bat_tidy = 0; c->spilled = 0; c->lfill = 0;
    for (uint64_t h0 = 0; h0 < N; h0 += B->tile) {
        uint64_t n = N - h0 < B->tile ? N - h0 : B->tile;
        if (run_tile(B, c, db, dQ, Q, Qlen, t, h0, n, f, err, errlen)) return -1;
    }
    if (hz_long_flush(B, c, dQ, Qlen, f, err, errlen)) return -1;
    if (hz_extend_long(t, Q, Qlen, c->longa, c->nlong, &c->diag, &c->batch, f)) {
        snprintf(err, errlen, "out of host memory");
        return -1;
    }
    c->nlong = 0;
    if (B->dev_dedup) {
        int r = hz_bat_finish(B, c, out, f, err, errlen);
        if (r <= 0) return r;   /* 1: spilled, the host's dedup below */
    }
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

static tctx *thread_ctx(cuda_be *B, int tid, char *err, size_t errlen)
{
    if (tid < 0 || tid >= B->nt) { snprintf(err, errlen, "worker thread %d beyond %d", tid, B->nt); return NULL; }
    tctx *c = &B->t[tid];
    if (!c->ready && ctx_init(B, c, tid, err, errlen)) return NULL;
    if (cudaSetDevice(B->d[c->dv].dev) != cudaSuccess) { snprintf(err, errlen, "cudaSetDevice(%d) failed", B->d[c->dv].dev); return NULL; }
    return c;
}

static int fail_with(hz_backend *be, const char *err)
{
    cuda_be *B = (cuda_be *)be->impl;
    pthread_mutex_lock(&B->lock);
    if (!be->last_error[0]) snprintf(be->last_error, sizeof be->last_error, "%s", err);
    pthread_mutex_unlock(&B->lock);
    return -1;
}

static int be_chunk_range(hz_backend *be, const hz_target *t, const hz_shape *sh, int strand,
                          uint32_t j0, uint32_t j1, uint32_t Qlen, const uint8_t *Q, hz_hspvec *out,
                          hz_funnel *f, int tid)
{
    cuda_be *B = (cuda_be *)be->impl;
    char err[512] = "";
    uint32_t ns = 0; uint64_t nh = 0;
    int64_t *lim = NULL;
    tctx *c = thread_ctx(B, tid, err, sizeof err);
    if (!c) return fail_with(be, err);
    const devstate *D = &B->d[c->dv];
    if (!D->d_boff) return fail_with(be, "device seeding needs a direct seed table (weight <= 13)");
    const uint8_t *S = strand ? D->d_Smin : D->d_Qf, *dQ = strand ? D->d_Qr : D->d_Qf;
    hz_diagcache_reset(&c->diag.cache);   /* a new chunk: the diagonal path starts afresh */
    double t0 = hz_now();
    cudaEventRecord(c->es0, c->st);
    if (hz_cuda_seed_chunk(S, j0, j1, sh, D->d_boff, &c->ss, &ns, &nh, c->st, err, sizeof err)) return fail_with(be, err);
    cudaEventRecord(c->es1, c->st);
    cudaEventSynchronize(c->es1);
    c->ms[ST_SEED] += hz_be_ev_ms(c->es0, c->es1);
    hz_be_busy(B, c, c->es0, c->es1);
    c->chunks++;
    f->t_seed += hz_now() - t0;
    if (!ns) return 0;
    f->seeds += ns;
    if (t->max_hits == 0 || nh < t->max_hits) {
        hz_dev_batch db = { D->d_pos, c->ss.qpos, c->ss.off, c->ss.bstart, ns, t->W, 0 };
        if (process_batch(B, c, db, nh, dQ, Q, Qlen, t, out, f, err, sizeof err)) return fail_with(be, err);
        return 0;
    }
    /* several semantic batches: the partition needs the prefix sums on the host */
    if (ns > c->pref_cap) {
        free(c->pref); free(c->bst);
        c->pref = (uint64_t *)malloc((size_t)ns * 8); c->bst = (uint64_t *)malloc((size_t)ns * 8);
        if (!c->pref || !c->bst) { c->pref_cap = 0; return fail_with(be, "out of host memory"); }
        c->pref_cap = ns;
    }
    if (cudaMemcpy(c->pref, c->ss.pref, (size_t)ns * 8, cudaMemcpyDeviceToHost) != cudaSuccess)
        return fail_with(be, "cudaMemcpy of hit prefix sums failed");
    lim = (int64_t *)malloc(((size_t)ns + 1) * sizeof *lim);
    if (!lim) return fail_with(be, "out of host memory");
    size_t nb = hz_batches(c->pref, ns, t->max_hits, lim);
    size_t s0 = 0;
    for (size_t b = 0; b < nb; b++) {
        int64_t e1 = lim[b];
        size_t nsb = (size_t)(e1 + 1 - (int64_t)s0);
        uint64_t base = s0 ? c->pref[s0 - 1] : 0, N = nsb ? c->pref[e1] - base : 0;
        hz_dev_batch db = { D->d_pos, c->ss.qpos + s0, c->ss.off + s0, c->ss.bstart + s0, (uint32_t)nsb, t->W, base };
        if (process_batch(B, c, db, N, dQ, Q, Qlen, t, out, f, err, sizeof err)) { free(lim); return fail_with(be, err); }
        s0 = (size_t)(e1 + 1);
    }
    free(lim);
    return 0;
}

static int be_chunk(hz_backend *be, const hz_target *t, const hz_seed *seeds, size_t ns,
                    const uint8_t *Q, int strand, uint32_t Qlen, hz_hspvec *out, hz_funnel *f, int tid)
{
    cuda_be *B = (cuda_be *)be->impl;
    char err[512] = "";
    if (ns == 0) return 0;
    tctx *c = thread_ctx(B, tid, err, sizeof err);
    if (!c) return fail_with(be, err);
    const devstate *D = &B->d[c->dv];
    hz_diagcache_reset(&c->diag.cache);
    f->seeds += ns;
    c->chunks++;
    double t0 = hz_now();
    if (ns > c->pref_cap) {
        free(c->pref); free(c->bst);
        c->pref = (uint64_t *)malloc(ns * 8); c->bst = (uint64_t *)malloc(ns * 8);
        if (!c->pref || !c->bst) { c->pref_cap = 0; return fail_with(be, "out of host memory"); }
        c->pref_cap = ns;
    }
    hz_seed_hits(t->tab, seeds, ns, c->pref, c->bst);
    int64_t *lim = (int64_t *)malloc((ns + 1) * sizeof *lim);
    if (!lim) return fail_with(be, "out of host memory");
    size_t nb = hz_batches(c->pref, ns, t->max_hits, lim);
    f->t_anchor += hz_now() - t0;
    const uint8_t *dQ = strand ? D->d_Qr : D->d_Qf;
    size_t s0 = 0;
    for (size_t b = 0; b < nb; b++) {
        int64_t e1 = lim[b];
        size_t nsb = (size_t)(e1 + 1 - (int64_t)s0);
        uint64_t base = s0 ? c->pref[s0 - 1] : 0, N = nsb ? c->pref[e1] - base : 0;
        if (N) {   /* the batch's seeds to the device, hit offsets relative to the batch */
            double ta = hz_now();
            if (ensure_seeds(c, D, nsb, err, sizeof err)) { free(lim); return fail_with(be, err); }
            for (size_t i = 0; i < nsb; i++) {
                c->h_qpos[i] = seeds[s0 + i].qpos;
                c->h_off[i] = (s0 + i ? c->pref[s0 + i - 1] : 0) - base;
                c->h_bstart[i] = c->bst[s0 + i];
            }
            if (cudaMemcpyAsync(c->d_qpos, c->h_qpos, nsb * 4, cudaMemcpyHostToDevice, c->st) != cudaSuccess ||
                cudaMemcpyAsync(c->d_off, c->h_off, nsb * 8, cudaMemcpyHostToDevice, c->st) != cudaSuccess ||
                cudaMemcpyAsync(c->d_bstart, c->h_bstart, nsb * 8, cudaMemcpyHostToDevice, c->st) != cudaSuccess) {
                free(lim); return fail_with(be, "cudaMemcpyAsync of the batch's seeds failed");
            }
            f->t_anchor += hz_now() - ta;
        }
        hz_dev_batch db = { D->d_pos, c->d_qpos, c->d_off, c->d_bstart, (uint32_t)nsb, t->W, 0 };
        if (process_batch(B, c, db, N, dQ, Q, Qlen, t, out, f, err, sizeof err)) { free(lim); return fail_with(be, err); }
        s0 = (size_t)(e1 + 1);
    }
    free(lim);
    return 0;
}

static int be_build_table(hz_backend *be, hz_seedtable *tab, const uint8_t *codes, uint32_t L,
                          const hz_shape *sh, uint32_t step, char *err, size_t errlen)
{
    cuda_be *B = (cuda_be *)be->impl;
    if (cudaSetDevice(B->d[0].dev) != cudaSuccess) { snprintf(err, errlen, "cudaSetDevice failed"); return -1; }
    return hz_cuda_seedtable_build(tab, codes, L, sh, step, NULL, NULL, err, errlen);
}

/* Kept on the device when it seeds (the host then never looks the table up; device seeding
 * implies the direct table, weight <= 13) and is the only one (more GPUs get copies of the
 * host's table). */
static int be_build_table_resident(hz_backend *be, hz_seedtable *tab, const uint8_t *codes, uint32_t L,
                                   const hz_shape *sh, uint32_t step, char *err, size_t errlen)
{
    cuda_be *B = (cuda_be *)be->impl;
    if (!B->be.chunk_range || sh->weight > 13 || B->nd > 1) return 1;
    if (cudaSetDevice(B->d[0].dev) != cudaSuccess) { snprintf(err, errlen, "cudaSetDevice failed"); return -1; }
    if (fault_hit(&B->fault, 1)) {   /* HSPZ_FAULT: the build's allocations (cuda/hsp/seed.cu) as one */
        snprintf(err, errlen, "out of GPU memory on cuda:%d for the target seed table [injected by HSPZ_FAULT]", B->d[0].dev);
        return -1;
    }
    cudaFree(B->res_pos); cudaFree(B->res_boff);
    B->res_pos = B->res_boff = NULL; B->res_tab = NULL;
    memset(tab, 0, sizeof *tab);
    if (hz_cuda_seedtable_build(tab, codes, L, sh, step, &B->res_pos, &B->res_boff, err, errlen)) return -1;
    tab->resident = 1;
    B->res_tab = tab;
    return 0;
}

static void be_close(hz_backend *be)
{
    cuda_be *B = (cuda_be *)be->impl;
    for (int i = 0; i < B->nt; i++) {
        if (B->t[i].ready) cudaSetDevice(B->d[B->t[i].dv].dev);
        ctx_free(&B->t[i]);
    }
    free(B->t);
    for (int g = 0; g < B->nd; g++) {
        devstate *D = &B->d[g];
        cudaSetDevice(D->dev);
        seq_free(&D->d_R); cudaFree(D->d_pos); seq_free(&D->d_Qf); seq_free(&D->d_Qr);
        cudaFree(D->d_boff); cudaFree(D->d_Smin);
        if (D->ref) cudaEventDestroy(D->ref);
    }
    if (B->nd) { cudaSetDevice(B->d[0].dev); cudaFree(B->res_pos); cudaFree(B->res_boff); }
    pthread_mutex_destroy(&B->lock);
    free(B);
}

/* HSPZ_SYNC: how a host thread waits for its stream.  block (the default) sleeps until the
 * GPU's interrupt; CUDA's own choice (auto) for one context on many cores spins, so each
 * waiting worker holds a core (the flood: 202 against 48 CPU-s, the same wall time), which the
 * formatter and the digest's distribution need; yield spins but gives its core away.  Never
 * changes the output. */
static unsigned sync_flag(void)
{
    const char *v = getenv("HSPZ_SYNC");   /* checked by hz_env_check */
    if (!v || !strcmp(v, "block")) return cudaDeviceScheduleBlockingSync;
    if (!strcmp(v, "auto")) return cudaDeviceScheduleAuto;
    if (!strcmp(v, "spin")) return cudaDeviceScheduleSpin;
    return cudaDeviceScheduleYield;
}

extern "C" void hz_cuda_prewarm(int n)
{
    int have = 0;
    if (cudaGetDeviceCount(&have) != cudaSuccess) { cudaGetLastError(); return; }
    if (n <= 0 || n > have) n = have;
    for (int g = 0; g < n; g++)
        if (cudaSetDevice(g) != cudaSuccess || cudaSetDeviceFlags(sync_flag()) != cudaSuccess ||
            cudaFree(0) != cudaSuccess) cudaGetLastError();
}

static int env_choice(const char *name, const char *const *allowed, int def, char *err, size_t errlen)
{
    const char *v = getenv(name);
    if (!v) return def;
    for (int i = 0; allowed[i]; i++) if (!strcmp(v, allowed[i])) return i;
    int n = snprintf(err, errlen, "%s='%s' is not", name, v);
    for (int i = 0; allowed[i] && n > 0 && (size_t)n < errlen; i++)
        n += snprintf(err + n, errlen - (size_t)n, "%s %s", i ? (allowed[i + 1] ? "," : " or") : "", allowed[i]);
    return -1;
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
    static const char *const GATE[] = { "score", "full", NULL },
                              *const SEEDS[] = { "0", "1", NULL }, *const RB[] = { "off", "on", "auto", NULL },
                              *const LONG[] = { "0", "1", "diag", NULL }, *const DEDUP[] = { "0", "1", NULL };
    int full = env_choice("HSPZ_GATE", GATE, 0, err, errlen);
    int warp = full < 0 ? -1 : env_choice("HSPZ_GATE_KERNEL", GK_NAME, GK_REFILL, err, errlen);
    int devtab = warp < 0 ? -1 : env_choice("HSPZ_DEVICE_SEEDS", SEEDS, 1, err, errlen);
    int rb = devtab < 0 ? -1 : env_choice("HSPZ_REF_BUCKETS", RB, 2, err, errlen);
    int longdev = rb < 0 ? -1 : env_choice("HSPZ_DEVICE_LONG", LONG, LONG_DIAG, err, errlen);
    int devdedup = longdev < 0 ? -1 : env_choice("HSPZ_DEVICE_DEDUP", DEDUP, 1, err, errlen);
    if (devdedup < 0) return -1;
    int want = o->gpus > 0 ? o->gpus : n;
    if (want > n) {
        const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
        snprintf(err, errlen, "--gpus %d but only %d CUDA device%s visible%s%s%s", want, n, n == 1 ? " is" : "s are",
                 cvd ? " (CUDA_VISIBLE_DEVICES=" : "", cvd ? cvd : "", cvd ? ")" : "");
        return -1;
    }
    if (want > HZ_MAX_GPUS) want = HZ_MAX_GPUS;
    {   /* thread t runs on GPU t mod N: more GPUs than threads would leave some idle */
        int nt = o->threads > 0 ? o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
        if (nt >= 1 && want > nt) {
            if (!o->quiet) fprintf(stderr, "hspz: note: %d worker thread%s can use only %d of the %d GPUs; using %d\n",
                                   nt, nt == 1 ? "" : "s", nt, want, nt);
            want = nt;
        }
    }
    cuda_be *B = (cuda_be *)calloc(1, sizeof *B);
    if (!B) { snprintf(err, errlen, "out of host memory"); return -1; }
    B->be.impl = B;
    B->nd = want;
    pthread_mutex_init(&B->lock, NULL);
    size_t minfree = (size_t)-1;
    for (int g = 0; g < want; g++) {
        devstate *D = &B->d[g];
        D->dev = g;
        D->fault = &B->fault;
        if (cudaGetDeviceProperties(&D->p, g) == cudaSuccess && cudaSetDevice(g) == cudaSuccess &&
            cudaSetDeviceFlags(sync_flag()) != cudaSuccess)   /* again, in case the prewarm's failed; */
            cudaGetLastError();                               /* a runtime that refuses keeps its own */
        if (cudaGetDeviceProperties(&D->p, g) != cudaSuccess || cudaSetDevice(g) != cudaSuccess ||
            cudaEventCreate(&D->ref) != cudaSuccess || cudaEventRecord(D->ref, 0) != cudaSuccess) {
            cudaGetLastError();
            snprintf(err, errlen, "cannot open CUDA device %d", g);
            be_close(&B->be);
            return 1;
        }
        size_t fr = 0, tot = 0;
        cudaMemGetInfo(&fr, &tot);
        if (fr < minfree) minfree = fr;
    }
    cudaSetDevice(B->d[0].dev);
    B->xp = *xp;
    B->gate_full = full;
    B->gate_kernel = warp;
    B->refill_frozen = hz_xdrop_block16_fits(xp, HZ_GATE_CAP_GPU);
    B->long_frozen = hz_xdrop_block16_fits(xp, HZ_LONG_CAP_GPU);   /* -1: the scalar long scans */
    if (warp == GK_REFILL && B->refill_frozen < 0) {   /* partial sums could leave int32 */
        B->gate_kernel = GK_VEC;
        if (!o->quiet && !full && getenv("HSPZ_GATE_KERNEL"))
            fprintf(stderr, "hspz: note: HSPZ_GATE_KERNEL=refill cannot hold these scores in 32 bits; using vec\n");
    }
    B->long_dev = longdev;
    B->dev_dedup = devdedup;
    B->quiet = o->quiet;
    B->buckets_mode = full ? 0 : rb;
    B->buckets_setting = rb;
    B->nt = o->threads > 0 ? o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (B->nt < 1) B->nt = 1;
    B->t = (tctx *)calloc((size_t)B->nt, sizeof *B->t);
    if (!B->t) { be_close(&B->be); snprintf(err, errlen, "out of host memory"); return -1; }
    /* physical tile: anchors per device pass, from free memory; never changes the output
     * (HSPZ_GPU_TILE for tests) */
    int per_dev = (B->nt + B->nd - 1) / B->nd;
    /* per anchor: flag, id, long anchor, HSP (device dedup: the batch's HSP, its sort's copy
     * and its flag; the batch grows past one tile only with its distinct HSPs), and for the
     * refill gate the tile's anchors and its survivors (not when every block is bucketed), and
     * for the device diagonal path the anchors it gathers, their sort keys and two sides' parts */
    int refill = !full && B->gate_kernel == GK_REFILL && B->buckets_mode != 1;
    uint64_t per = (refill ? 2 * sizeof(hz_anchor) : 0) + 1 + 4 + sizeof(hz_anchor) + (longdev == LONG_DIAG ? 16 + 2 * sizeof(hz_side_part_t) : 0) + (devdedup ? 2 * sizeof(hz_hsp) + 1 : sizeof(hz_hsp)) + (B->buckets_mode ? 2 + 8 + 4 : 0);
    uint64_t tile = (uint64_t)(minfree / 2) / per / (uint64_t)per_dev;
    if (tile > (1u << 23)) tile = 1u << 23;
    if (tile < 4096) tile = 4096;
    const char *ts = getenv("HSPZ_GPU_TILE");
    if (ts) {
        char *end; unsigned long long v = strtoull(ts, &end, 10);
        if (*end || v < 1 || v > (1ULL << 30)) { snprintf(err, errlen, "HSPZ_GPU_TILE='%s' is not 1..2^30", ts); be_close(&B->be); return -1; }
        tile = v;
    }
    B->tile = tile;
    if (const char *fv = getenv("HSPZ_FAULT")) {   /* checked by hz_env_check: gpu-alloc:N or gpu-kernel:N */
        B->fault.kind = !strncmp(fv, "gpu-alloc:", 10) ? 1 : !strncmp(fv, "gpu-kernel:", 11) ? 2 : 0;
        B->fault.at = strtoull(strchr(fv, ':') ? strchr(fv, ':') + 1 : "0", NULL, 10);
    }
    {   /* device seeding needs the direct table (seed weight <= 13) */
        hz_shape sh;
        char e2[256];
        int direct = hz_shape_parse(o->seed, o->transition, &sh, e2, sizeof e2) == 0 && sh.weight <= 13;
        B->be.set_query_seeding = devtab && direct ? be_set_query_seeding : NULL;
        B->be.chunk_range = devtab && direct ? be_chunk_range : NULL;
        B->seeding = devtab && direct ? "device" : "host";
    }
    const cudaDeviceProp *p = &B->d[0].p;
    char devs[32] = "cuda:0", gname[32];
    snprintf(gname, sizeof gname, "score/%s", GK_NAME[B->gate_kernel]);
    if (B->nd > 1) snprintf(devs, sizeof devs, "cuda:0-%d %d x", B->nd - 1, B->nd);
    snprintf(B->name, sizeof B->name, "%s %s (sm_%d%d, %d SMs, %.1f GiB, driver %d.%d, runtime %d.%d, gate %s, "
             "seed table on %s, seeding on %s, ref-buckets %s, batch dedup on %s, tile %llu)",
             devs, p->name, p->major, p->minor, p->multiProcessorCount,
             (double)p->totalGlobalMem / 1073741824.0, drv / 1000, (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10,
             full ? "full" : gname, devtab ? "device" : "host", B->seeding,
             B->buckets_mode == 0 ? "off" : B->buckets_mode == 1 ? "on" : "auto", devdedup ? "device" : "host", (unsigned long long)tile);
    B->be.name = B->name;
    B->be.set_target = be_set_target;
    B->be.set_query = be_set_query;
    B->be.chunk = be_chunk;
    B->be.close = be_close;
    B->be.report = hz_be_report;
    B->be.build_table = devtab ? be_build_table : NULL;
    B->be.build_table_resident = devtab ? be_build_table_resident : NULL;
    B->be.last_error[0] = 0;
    *out = &B->be;
    return 0;
}
