/* extend_diag (CUDA) — the diagonal path on the device (HSPZ_DEVICE_LONG=diag): the anchors past
 * the gate's work cap that a batch gathers are extended exactly at a cost that follows the
 * diagonals' lengths, not anchors x extension length (src/hsp/extend.h says why it is exact).
 *
 * The gathered anchors are sorted by (diagonal, ar) with CUB.  Each anchor's side is one
 * independent part (src/core/xdrop_diag.h hz_side_part): the columns up to its neighbour's start
 * and on until their running maxima meet, where the neighbour's result decides the rest.  A
 * CUB scan joins the parts (hz_side_join, associative), from the right end for right sides
 * and from the left end for left sides, so every anchor gets hz_side_scan's result with a
 * thread per anchor and no thread walking a whole diagonal.  Then the gate threshold and
 * KegAlign's keep test as the host's diagonal path applies them (src/hsp/chunk.c long_visit; spec
 * §4.2-4.5).  A part that reads more than the cap (4096 columns) is unknown, and so is every
 * part whose chain of neighbours leads to it: those anchors go to the host's diagonal path,
 * which carries a per-diagonal cache from one call to the next (this path has none).  So a
 * long HSP cut by a flush's end can send the side of every anchor chained to that end there.
 */
#include "backend_impl.cuh"
#include <cub/cub.cuh>
#include <stddef.h>
extern "C" {
#include "xdrop_diag.h"
}

#define DIAG_BLOCK 128

static_assert(sizeof(hz_anchor) == 8 && offsetof(hz_anchor, ar) == 0 && offsetof(hz_anchor, aq) == 4,
              "hz_anchor is read as one 64-bit word");

static unsigned grid_for(uint64_t n)
{
    uint64_t b = (n + DIAG_BLOCK - 1) / DIAG_BLOCK;
    return b < 1 ? 1 : b > 8192 ? 8192 : (unsigned)b;
}

/* key (ar - aq + Qlen, ar): diagonal, then target column (needs Rlen + Qlen < 2^32) */
__global__ void diag_keys_kernel(const hz_anchor *__restrict__ A, uint32_t n, uint32_t Qlen, uint64_t *K)
{
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        hz_anchor a = A[i];
        K[i] = ((uint64_t)((int64_t)a.ar - a.aq + Qlen) << 32) | a.ar;
    }
}

/* E[j] = the part (src/core/xdrop_diag.h hz_side_part) of anchor k's side in the scan's order: right
 * sides j = n-1-k (the right end first), left sides j = k; the neighbour is the next anchor
 * on the diagonal in the side's direction; parts past cap columns are unknown */
__global__ void __launch_bounds__(DIAG_BLOCK)
diag_part_kernel(const uint8_t *__restrict__ R, uint32_t Rlen, const uint8_t *__restrict__ Q, uint32_t Qlen,
                 const uint64_t *__restrict__ K, uint32_t n, hz_xparams xp, int dir, uint32_t cap, hz_side_part_t *E)
{
    __shared__ hz_xparams sx;
    if (threadIdx.x == 0) sx = xp;
    __syncthreads();
    for (uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
        const uint64_t key = K[k];
        const int64_t s = (uint32_t)key, d = (int64_t)(key >> 32) - Qlen, aq = s - d;
        if (dir > 0) {
            const int has = k + 1 < n && (K[k + 1] >> 32) == (key >> 32);
            const int64_t navail = s >= Rlen || aq >= Qlen ? 0 : (Rlen - s < Qlen - aq ? Rlen - s : Qlen - aq);
            E[n - 1 - k] = hz_side_part(R, Q, d, sx.sub, sx.xdrop, s, +1, navail, has, has ? (int64_t)(uint32_t)K[k + 1] - s : 0, cap);
        } else {
            const int has = k > 0 && (K[k - 1] >> 32) == (key >> 32);
            E[k] = hz_side_part(R, Q, d, sx.sub, sx.xdrop, s - 1, -1, s < aq ? s : aq, has, has ? s - (int64_t)(uint32_t)K[k - 1] : 0, cap);
        }
    }
}

/* the scan's operator: acc holds the parts further along (already joined), cur the nearer one */
struct part_join {
    __device__ __forceinline__ hz_side_part_t operator()(const hz_side_part_t &acc, const hz_side_part_t &cur) const
    {
        return hz_side_join(cur, acc);
    }
};

/* rres[k] = (score, extent) of anchor k's right side from the joined parts (j = n-1-k);
 * extent INT32_MIN: unknown */
__global__ void diag_right_kernel(const hz_side_part_t *__restrict__ E, uint32_t n, int2 *rres)
{
    for (uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
        hz_side_part_t e = E[n - 1 - k];
        rres[k] = e.b == HZ_SIDE_UNKNOWN ? make_int2(0, INT32_MIN) : make_int2((int32_t)e.x, (int32_t)e.a1 - 1);
    }
}

/* anchor k's total, left extent and right extent from its two joined sides; 0 when a side is
 * unknown */
__device__ __forceinline__ int diag_sides(const hz_side_part_t *L, const int2 *rres, uint32_t k, int32_t *total,
                                          int32_t *lext, int32_t *rext)
{
    const int2 r = rres[k];
    const hz_side_part_t l = L[k];
    *total = r.x + (int32_t)l.x;
    *lext = (int32_t)l.a1;   /* the left side's offsets count from 1 */
    *rext = r.y;
    return r.y != INT32_MIN && l.b != HZ_SIDE_UNKNOWN;
}

/* the gate threshold and KegAlign's keep test per anchor (src/hsp/chunk.c long_visit); a record
 * equal to the one of the anchor before it on the diagonal is written once (exact: dedup.h
 * hz_dedup_collapse).  Anchors with an unknown side go to host[atomicAdd(cnt[3])] for the
 * host's diagonal path.  cnt: [0] records written to out[atomicAdd], [1] anchors at the
 * threshold, [2] HSPs the keep test accepted */
__global__ void __launch_bounds__(DIAG_BLOCK)
diag_keep_kernel(const uint8_t *__restrict__ R, const uint8_t *__restrict__ Q, uint32_t Qlen,
                 const uint64_t *__restrict__ K, uint32_t n, const hz_side_part_t *__restrict__ L,
                 const int2 *__restrict__ rres, hz_xparams xp, hz_hsp *out, hz_anchor *host, uint32_t *cnt)
{
    typedef cub::BlockReduce<uint32_t, DIAG_BLOCK> reduce;
    __shared__ typename reduce::TempStorage tmp;
    __shared__ hz_xparams sx;
    if (threadIdx.x == 0) sx = xp;
    __syncthreads();
    uint32_t pass = 0, acc = 0;
    for (uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
        const uint64_t key = K[k];
        const int64_t s = (uint32_t)key, aq = s - ((int64_t)(key >> 32) - Qlen);
        int32_t total, lext, rext;
        if (!diag_sides(L, rres, k, &total, &lext, &rext)) {
            hz_anchor a; a.ar = (uint32_t)s; a.aq = (uint32_t)aq;
            host[atomicAdd(&cnt[3], 1u)] = a;
            continue;
        }
        if (total < sx.gate_min_total) continue;
        pass++;
        hz_hsp h;
        if (!hz_keep_hsp(R, Q, (uint32_t)s, (uint32_t)aq, total, lext, rext, &sx, &h)) continue;
        acc++;
        if (k > 0 && (K[k - 1] >> 32) == (key >> 32)) {
            int32_t t1, l1, r1;
            if (diag_sides(L, rres, k - 1, &t1, &l1, &r1) && t1 == total && (int64_t)(uint32_t)K[k - 1] - l1 == s - lext && l1 + r1 == lext + rext) continue;
        }
        out[atomicAdd(&cnt[0], 1u)] = h;
    }
    uint32_t p = reduce(tmp).Sum(pass);
    __syncthreads();
    uint32_t a = reduce(tmp).Sum(acc);
    if (threadIdx.x == 0) {
        if (p) atomicAdd(&cnt[1], p);
        if (a) atomicAdd(&cnt[2], a);
    }
}

static unsigned bit_length(uint64_t v)
{
    unsigned b = 0;
    while (v) { b++; v >>= 1; }
    return b;
}

int hz_long_scratch(uint64_t n, size_t *temp_bytes, char *err, size_t errlen)
{
    cub::DoubleBuffer<uint64_t> db(NULL, NULL);
    size_t t1 = 0, t2 = 0;
    HZ_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(NULL, t1, db, (int)n, 0, 64), err, errlen, fail);
    HZ_CUDA_CHECK(cub::DeviceScan::InclusiveScan(NULL, t2, (hz_side_part_t *)NULL, (hz_side_part_t *)NULL, part_join(), (int)n),
                  err, errlen, fail);
    *temp_bytes = t1 > t2 ? t1 : t2;
    return 0;
fail:
    return -1;
}

int hz_long_flush(cuda_be *B, tctx *c, const uint8_t *dQ, uint32_t Qlen, hz_funnel *f, char *err, size_t errlen)
{
    const uint64_t n = c->lfill;
    if (!n) return 0;
    const double t0 = hz_now();
    const devstate *D = &B->d[c->dv];
    cudaStream_t st = c->st;
    const unsigned g = grid_for(n);
    /* each anchor keeps at most one HSP */
    if (hz_bat_room(B, c, n, err, errlen)) return -1;
    hz_hsp *out = B->dev_dedup ? c->d_bat + c->nbat : c->d_hsp;
    uint32_t *cnt = c->d_count + 8, *h = c->h_count + 8;
    cub::DoubleBuffer<uint64_t> keys(c->d_lkey, (uint64_t *)c->d_lanc);
    size_t tb = c->temp_bytes;
    HZ_CUDA_CHECK(cudaEventRecord(c->es0, st), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMemsetAsync(cnt, 0, 16, st), err, errlen, fail);
    diag_keys_kernel<<<g, DIAG_BLOCK, 0, st>>>(c->d_lanc, (uint32_t)n, Qlen, c->d_lkey);
    HZ_CUDA_CHECK(cudaGetLastError(), err, errlen, fail);
    HZ_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(c->d_temp, tb, keys, (int)n, 0,
                                                 32 + (int)bit_length((uint64_t)D->Rlen + Qlen), st), err, errlen, fail);
    for (int dir = 1; dir >= -1; dir -= 2) {   /* right sides, then left sides */
        diag_part_kernel<<<g, DIAG_BLOCK, 0, st>>>(D->d_R, D->Rlen, dQ, Qlen, keys.Current(), (uint32_t)n, B->xp, dir, HZ_LONG_CAP_GPU, c->d_lp);
        HZ_CUDA_CHECK(cudaGetLastError(), err, errlen, fail);
        tb = c->temp_bytes;
        HZ_CUDA_CHECK(cub::DeviceScan::InclusiveScan(c->d_temp, tb, c->d_lp, c->d_lp2, part_join(), (int)n, st), err, errlen, fail);
        if (dir > 0) diag_right_kernel<<<g, DIAG_BLOCK, 0, st>>>(c->d_lp2, (uint32_t)n, (int2 *)c->d_anc);
        HZ_CUDA_CHECK(cudaGetLastError(), err, errlen, fail);
    }
    diag_keep_kernel<<<g, DIAG_BLOCK, 0, st>>>(D->d_R, dQ, Qlen, keys.Current(), (uint32_t)n, c->d_lp2, (const int2 *)c->d_anc,
                                               B->xp, out, (hz_anchor *)keys.Alternate(), cnt);
    HZ_CUDA_CHECK(cudaGetLastError(), err, errlen, fail);
    HZ_CUDA_CHECK(cudaMemcpyAsync(h, cnt, 16, cudaMemcpyDeviceToHost, st), err, errlen, fail);
    HZ_CUDA_CHECK(cudaEventRecord(c->es1, st), err, errlen, fail);
    HZ_CUDA_CHECK(cudaStreamSynchronize(st), err, errlen, fail);
    f->survivors += h[1];
    f->accepted += h[2];
    c->ms[ST_LONGSEL] += hz_be_ev_ms(c->es0, c->es1);
    hz_be_busy(B, c, c->es0, c->es1);
    c->lfill = 0;
    /* sides past the cap: to the host's diagonal path (src/hsp/chunk.c hz_extend_long), which
     * process_batch and run_tile run on c->longa */
    if (h[3]) {
        const hz_anchor *src = (const hz_anchor *)keys.Alternate();
        if (hz_be_reserve_long(c, h[3])) { snprintf(err, errlen, "out of host memory"); return -1; }
        for (uint64_t k0 = 0; k0 < h[3]; k0 += HZ_PINNED_MAX) {
            uint64_t m = h[3] - k0 < HZ_PINNED_MAX ? h[3] - k0 : HZ_PINNED_MAX;
            HZ_CUDA_CHECK(cudaMemcpyAsync(c->h_anc, src + k0, m * sizeof(hz_anchor), cudaMemcpyDeviceToHost, st), err, errlen, fail);
            HZ_CUDA_CHECK(cudaStreamSynchronize(st), err, errlen, fail);
            memcpy(c->longa + c->nlong, c->h_anc, m * sizeof(hz_anchor));
            c->nlong += m;
        }
        c->long_dev -= h[3]; c->long_host += h[3];
    }
    f->t_extend += hz_now() - t0;
    if (B->dev_dedup) {
        c->nbat += h[0];
        return hz_bat_tidy(B, c, err, errlen);
    }
    if (hz_bat_copy_back(c, c->d_hsp, h[0], &c->batch, err, errlen)) return -1;
    hz_batch_tidy(&c->batch, 0);
    return 0;
fail:
    return -1;
}
