/* batch (CUDA) — a batch's kept HSPs on the device (HSPZ_DEVICE_DEDUP=1): growth, the
 * collapse of identical copies (hz_batch_tidy's rule), the move to the host when device memory
 * runs short, and the batch's end with the dedup on the device (cuda/hsp/dedup.cu; spec §5.2).
 * Only the survivors come back.  Declared in backend_impl.cuh.
 */
#include "backend_impl.cuh"
#include <stdio.h>

/* room for `more` records past bat[nbat]: the buffers grow (doubling) and keep their records;
 * the sort and selection scratch is sized for the capacity */
int hz_bat_reserve(const cuda_be *B, tctx *c, uint64_t more, char *err, size_t errlen)
{
    if (c->nbat + more <= c->bat_cap) return 0;
    const devstate *D = &B->d[c->dv];
    /* first capacity: 64 Ki records, or 64 tiles when tiles are tiny (the tests' HSPZ_GPU_TILE,
     * so that growth and its failure paths run) */
    uint64_t cap = c->bat_cap ? c->bat_cap : B->tile < 1024 ? 64 * B->tile : 1 << 16;
    while (cap < c->nbat + more) cap *= 2;
    hz_hsp *v = NULL, *alt = NULL;
    uint8_t *keep = NULL;
    void *nt = NULL;
    size_t t1 = 0, t2 = 0, t3 = 0;
    HZ_CUDA_CHECK(hz_cuda_hsp_sort(NULL, NULL, cap, 0, NULL, &t1, c->st), err, errlen, fail);
    HZ_CUDA_CHECK(hz_cuda_hsp_drop(NULL, cap, 0, NULL, NULL, NULL, NULL, &t2, c->st), err, errlen, fail);
    t3 = t1 > t2 ? t1 : t2;
    HZ_CUDA_CHECK(cudaStreamSynchronize(c->st), err, errlen, fail);   /* the old buffers are idle */
    if (DALLOC(v, cap * sizeof *v, D, "the batch's HSPs") || DALLOC(alt, cap * sizeof *alt, D, "the batch dedup's scratch") ||
        DALLOC(keep, cap, D, "the batch dedup's flags"))
        goto fail;
    if (t3 > c->btemp_bytes && DALLOC(nt, t3, D, "the batch dedup's sort scratch")) goto fail;
    if (c->nbat) HZ_CUDA_CHECK(cudaMemcpyAsync(v, c->d_bat, c->nbat * sizeof *v, cudaMemcpyDeviceToDevice, c->st), err, errlen, fail);
    HZ_CUDA_CHECK(cudaStreamSynchronize(c->st), err, errlen, fail);
    cudaFree(c->d_bat); cudaFree(c->d_alt); cudaFree(c->d_keep);
    c->d_bat = v; c->d_alt = alt; c->d_keep = keep; c->bat_cap = cap;
    if (nt) { cudaFree(c->d_btemp); c->d_btemp = nt; c->btemp_bytes = t3; }
    return 0;
fail:   /* the old buffers stay as they were */
    cudaFree(v); cudaFree(alt); cudaFree(keep); cudaFree(nt);
    return -1;
}

int hz_bat_room(cuda_be *B, tctx *c, uint64_t more, char *err, size_t errlen)
{
    if (!B->dev_dedup || !hz_bat_reserve(B, c, more, err, errlen)) return 0;
    if (!c->nbat) return -1;   /* nothing to move: out of GPU memory for this much alone */
    return hz_bat_spill(B, c, err, err, errlen) || hz_bat_reserve(B, c, more, err, errlen) ? -1 : 0;
}

/* sort bat[0..nbat) by the batch key and drop (identical 1: copies; 0: the batch dedup's
 * contained neighbours) into alt; returns the number kept (alt then holds them), or
 * UINT64_MAX with err */
static uint64_t bat_sort_drop(tctx *c, int identical, char *err, size_t errlen)
{
    uint64_t *d_k = (uint64_t *)(c->d_count + 6), *h_k = (uint64_t *)(c->h_count + 6);
    size_t tb = c->btemp_bytes;
    HZ_CUDA_CHECK(hz_cuda_hsp_sort(c->d_bat, c->d_alt, c->nbat, 0, c->d_btemp, &tb, c->st), err, errlen, fail);
    tb = c->btemp_bytes;
    HZ_CUDA_CHECK(hz_cuda_hsp_drop(c->d_bat, c->nbat, identical, c->d_keep, c->d_alt, d_k, c->d_btemp, &tb, c->st), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMemcpyAsync(h_k, d_k, 8, cudaMemcpyDeviceToHost, c->st), err, errlen, fail);
    HZ_CUDA_CHECK(cudaStreamSynchronize(c->st), err, errlen, fail);
    return *h_k;
fail:
    return UINT64_MAX;
}

/* hz_batch_tidy on the device: once bat holds HZ_TIDY_MIN records (fewer with tiles under
 * 16 Ki anchors: 64 tiles' worth, so that the tests' tiny tiles run it) and twice as many as
 * after its last collapse, keep one copy of identical records (exact: dedup.h
 * hz_dedup_collapse) */
int hz_bat_tidy(cuda_be *B, tctx *c, char *err, size_t errlen)
{
    uint64_t least = B->tile < HZ_TIDY_MIN / 64 ? 64 * B->tile : HZ_TIDY_MIN;
    if (c->nbat < least || c->nbat < c->bat_tidy) return 0;
    cudaEventRecord(c->es0, c->st);
    uint64_t k = bat_sort_drop(c, 1, err, errlen);
    if (k == UINT64_MAX) return -1;
    cudaEventRecord(c->es1, c->st);
    cudaEventSynchronize(c->es1);
    c->ms[ST_DEDUP] += hz_be_ev_ms(c->es0, c->es1);
    hz_be_busy(B, c, c->es0, c->es1);
    hz_hsp *t = c->d_bat; c->d_bat = c->d_alt; c->d_alt = t;
    c->nbat = k;
    c->bat_tidy = 2 * k;
    return 0;
}

/* src[0..n) on the device appended to dst on the host, through pinned staging */
int hz_bat_copy_back(tctx *c, const hz_hsp *src, uint64_t n, hz_hspvec *dst, char *err, size_t errlen)
{
    if (hz_hspvec_reserve(dst, n)) { snprintf(err, errlen, "out of host memory"); return -1; }
    for (uint64_t k0 = 0; k0 < n; k0 += HZ_PINNED_MAX) {
        uint64_t m = n - k0 < HZ_PINNED_MAX ? n - k0 : HZ_PINNED_MAX;
        HZ_CUDA_CHECK(cudaMemcpyAsync(c->h_hsp, src + k0, m * sizeof(hz_hsp), cudaMemcpyDeviceToHost, c->st), err, errlen, fail);
        HZ_CUDA_CHECK(cudaStreamSynchronize(c->st), err, errlen, fail);
        memcpy(dst->v + dst->n, c->h_hsp, m * sizeof(hz_hsp));
        dst->n += m;
    }
    return 0;
fail:
    return -1;
}

/* device memory ran short for the batch: its HSPs so far move to the host (c->batch) and the
 * batch is finished there (hz_dedup_batch, the same bytes); a note says so once per context */
int hz_bat_spill(cuda_be *B, tctx *c, const char *why, char *err, size_t errlen)
{
    if (!c->spill_noted && !B->quiet) {
        fprintf(stderr, "hspz: note: %s; this batch is deduplicated on the host instead\n", why);
        c->spill_noted = 1;
    }
    c->spilled = 1;
    if (hz_bat_copy_back(c, c->d_bat, c->nbat, &c->batch, err, errlen)) return -1;
    c->nbat = 0;
    hz_batch_tidy(&c->batch, 0);
    return 0;
}

/* the batch's end: the host's HSPs (its diagonal path) join the device's, the batch dedup
 * runs on the device, and only its survivors come back, in the query order, appended to out.
 * Returns 0; 1 after a spill, with the whole batch in c->batch for the host's dedup; -1 with
 * err. */
int hz_bat_finish(cuda_be *B, tctx *c, hz_hspvec *out, hz_funnel *f, char *err, size_t errlen)
{
    double td = hz_now();
    uint64_t k = 0;
    cudaEventRecord(c->es0, c->st);
    if (!c->spilled && c->batch.n) {
        if (hz_bat_reserve(B, c, c->batch.n, err, errlen)) {
            if (hz_bat_spill(B, c, err, err, errlen)) return -1;
        } else {
            HZ_CUDA_CHECK(cudaMemcpyAsync(c->d_bat + c->nbat, c->batch.v, c->batch.n * sizeof(hz_hsp), cudaMemcpyHostToDevice, c->st),
                          err, errlen, fail);
            c->nbat += c->batch.n;
            c->batch.n = 0;
        }
    }
    if (c->spilled) {   /* the host finishes the batch */
        if (c->nbat && hz_bat_spill(B, c, "", err, errlen)) return -1;
        c->spilled = 0;
        return 1;
    }
    if (c->nbat) {
        k = bat_sort_drop(c, 0, err, errlen);
        if (k == UINT64_MAX) return -1;
        size_t tb = c->btemp_bytes;
        HZ_CUDA_CHECK(hz_cuda_hsp_sort(c->d_alt, c->d_bat, k, 1, c->d_btemp, &tb, c->st), err, errlen, fail);
        cudaEventRecord(c->es1, c->st);
        cudaEventRecord(c->ev[ST_N - 1], c->st);
        if (hz_bat_copy_back(c, c->d_alt, k, out, err, errlen)) return -1;
        cudaEventRecord(c->ev[ST_N], c->st);
        cudaEventSynchronize(c->ev[ST_N]);
        c->ms[ST_DEDUP] += hz_be_ev_ms(c->es0, c->es1);   /* upload and sorts */
        c->ms[ST_COPY] += hz_be_ev_ms(c->ev[ST_N - 1], c->ev[ST_N]);
        hz_be_busy(B, c, c->es0, c->es1);
    }
    c->nbat = 0;
    f->after_batch += k;
    f->batches++;
    f->t_dedup += hz_now() - td;
    return 0;
fail:
    return -1;
}

