/* gate (CUDA) — the score gate, one thread per raw anchor, reference bucketing, and CUB
 * stable compaction.
 *
 * Same flags as hz_gate_cpu_capped (src/hsp/gate.c) for the same anchors: both call the shared
 * scans of src/core/xdrop.h.  A block gates 256 consecutive raw anchors; it finds their seeds once
 * (two searches) and keeps those seeds' hit offsets in shared memory, so each thread's anchor
 * lookup is a short shared-memory search instead of a ~20-step search in global memory.
 * Neighbouring threads mostly share a seed and therefore a query window (cached in L1).
 * With reference bucketing (issue 3 item 5) the anchors of a tile are first stably sorted by
 * target window and gated in that order; flags are written at the raw index, so compaction
 * and everything after it are unchanged.
 */
#include "cuda_common.cuh"
#include <cub/device/device_select.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <thrust/iterator/counting_iterator.h>

#define GATE_BLOCK 256
#define GATE_SEEDS 320   /* seeds of one block kept in shared memory; more: global search */

/* the gate decision of one anchor (flags of hz_gate_cpu_capped: 0 reject, 1 survivor,
 * 2 past the work cap on a side) */
__device__ __forceinline__ uint8_t gate_one(const uint8_t *__restrict__ R, uint32_t Rlen,
                                            const uint8_t *__restrict__ Q, uint32_t Qlen,
                                            hz_anchor a, const int32_t *sub, int32_t x,
                                            uint32_t cap, int32_t min_total)
{
    int32_t l = hz_xdrop_left_capped(R, Q, a.ar, a.aq, sub, x, cap);
    if (l < 0) return 2;
    int32_t r = hz_xdrop_right_capped(R, Rlen, Q, Qlen, a.ar, a.aq, sub, x, cap);
    return r < 0 ? 2 : (uint8_t)(l + r >= min_total);
}

/* ---- the same scans with 8 columns per step from aligned 32-bit loads ----------------------
 * hz_xdrop_right_capped / hz_xdrop_left_capped (src/core/xdrop.h) column for column: the same
 * additions and tests in the same order, only the bytes come from three aligned words per
 * sequence per 8 columns instead of 16 byte loads.  Sequences on the device are padded with
 * HZ_DEV_PAD bytes after their end, so the words past the last column exist. */
__device__ __forceinline__ uint32_t word_at(const uint8_t *p, uint32_t a)   /* a multiple of 4 */
{
    return *(const uint32_t *)(p + a);
}

/* bytes s[a .. a+7] as two little-endian words */
__device__ __forceinline__ void bytes8(const uint8_t *s, uint32_t a, uint32_t &lo, uint32_t &hi)
{
    uint32_t b = a & ~3u, sh = (a & 3u) * 8u;
    uint32_t w0 = word_at(s, b), w1 = word_at(s, b + 4), w2 = word_at(s, b + 8);
    lo = __funnelshift_r(w0, w1, sh);
    hi = __funnelshift_r(w1, w2, sh);
}

__device__ __forceinline__ int32_t right_capped_vec(const uint8_t *__restrict__ R, uint32_t Rlen,
                                                    const uint8_t *__restrict__ Q, uint32_t Qlen,
                                                    uint32_t ar, uint32_t aq, const int32_t *sub,
                                                    int32_t x, uint32_t cap)
{
    if (ar >= Rlen || aq >= Qlen) return 0;
    uint32_t n = Rlen - ar, nq = Qlen - aq;
    if (nq < n) n = nq;
    int longrun = n > cap;
    if (longrun) n = cap;
    int32_t S = 0, best = 0;
    for (uint32_t p = 0; p < n; p += 8) {
        uint32_t r0, r1, q0, q1;
        bytes8(R, ar + p, r0, r1);
        bytes8(Q, aq + p, q0, q1);
        uint32_t m = n - p < 8 ? n - p : 8;
#pragma unroll
        for (uint32_t k = 0; k < 8; k++) {
            if (k >= m) break;
            uint32_t rb = ((k < 4 ? r0 : r1) >> (8 * (k & 3))) & 0xffu;
            uint32_t qb = ((k < 4 ? q0 : q1) >> (8 * (k & 3))) & 0xffu;
            S += sub[(rb << 3) | qb];
            if (S > best) best = S;
            else if (best - S > x) return best;
        }
    }
    return longrun ? -1 : best;
}

__device__ __forceinline__ int32_t left_capped_vec(const uint8_t *__restrict__ R, const uint8_t *__restrict__ Q,
                                                   uint32_t ar, uint32_t aq, const int32_t *sub,
                                                   int32_t x, uint32_t cap)
{
    uint32_t n = ar < aq ? ar : aq;
    int longrun = n > cap;
    if (longrun) n = cap;
    int32_t S = 0, best = 0;
    uint32_t p = 0;
    for (; p + 8 <= n; p += 8) {   /* columns p..p+7 are bytes ar-1-p down to ar-8-p */
        uint32_t r0, r1, q0, q1;
        bytes8(R, ar - 8 - p, r0, r1);
        bytes8(Q, aq - 8 - p, q0, q1);
#pragma unroll
        for (uint32_t k = 0; k < 8; k++) {
            uint32_t j = 7 - k;   /* byte ar-1-p-k is byte j of the 8 */
            uint32_t rb = ((j < 4 ? r0 : r1) >> (8 * (j & 3))) & 0xffu;
            uint32_t qb = ((j < 4 ? q0 : q1) >> (8 * (j & 3))) & 0xffu;
            S += sub[(rb << 3) | qb];
            if (S > best) best = S;
            else if (best - S > x) return best;
        }
    }
    for (; p < n; p++) {
        S += sub[(R[ar - 1 - p] << 3) | Q[aq - 1 - p]];
        if (S > best) best = S;
        else if (best - S > x) return best;
    }
    return longrun ? -1 : best;
}

/* index of the last seed with off <= h (h includes b.base) */
__device__ __forceinline__ uint32_t seed_of(const hz_dev_batch &b, uint64_t h)
{
    uint32_t lo = 0, hi = b.ns;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) >> 1;
        if (b.off[mid] <= h) lo = mid; else hi = mid;
    }
    return lo;
}

template <int VEC>
__global__ void __launch_bounds__(GATE_BLOCK)
gate_kernel(const uint8_t *__restrict__ R, uint32_t Rlen, const uint8_t *__restrict__ Q, uint32_t Qlen,
            hz_dev_batch b, uint64_t h0, uint64_t n, hz_xparams xp, uint32_t cap, uint8_t *flags)
{
    __shared__ int32_t sub[64];
    __shared__ uint64_t s_off[GATE_SEEDS];
    __shared__ uint32_t s_lo, s_cnt;
    if (threadIdx.x < 64) sub[threadIdx.x] = xp.sub[threadIdx.x];
    uint64_t first = (uint64_t)blockIdx.x * GATE_BLOCK;
    uint64_t last = first + GATE_BLOCK - 1 < n ? first + GATE_BLOCK - 1 : n - 1;
    if (threadIdx.x == 0) s_lo = seed_of(b, b.base + h0 + first);
    if (threadIdx.x == 32) s_cnt = seed_of(b, b.base + h0 + last);
    __syncthreads();
    uint32_t lo = s_lo, cnt = s_cnt - lo + 1;
    if (cnt <= GATE_SEEDS)
        for (uint32_t k = threadIdx.x; k < cnt; k += GATE_BLOCK) s_off[k] = b.off[lo + k];
    __syncthreads();
    uint64_t i = first + threadIdx.x;
    if (i >= n) return;
    uint64_t h = b.base + h0 + i;
    uint32_t s;
    if (cnt <= GATE_SEEDS) {
        uint32_t a = 0, c = cnt;
        while (c - a > 1) { uint32_t m = (a + c) >> 1; if (s_off[m] <= h) a = m; else c = m; }
        s = lo + a;
    } else s = seed_of(b, h);
    hz_anchor an;
    an.ar = b.pos[b.bstart[s] + (h - b.off[s])] + b.W;
    an.aq = b.qpos[s] + b.W;
    if (VEC) {
        int32_t l = left_capped_vec(R, Q, an.ar, an.aq, sub, xp.xdrop, cap);
        int32_t r = l < 0 ? -1 : right_capped_vec(R, Rlen, Q, Qlen, an.ar, an.aq, sub, xp.xdrop, cap);
        flags[i] = r < 0 ? 2 : (uint8_t)(l + r >= xp.gate_min_total);
    } else
        flags[i] = gate_one(R, Rlen, Q, Qlen, an, sub, xp.xdrop, cap, xp.gate_min_total);
}

void hz_cuda_gate_vec(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                      const hz_dev_batch &b, uint64_t h0, uint64_t n, const hz_xparams &xp,
                      uint32_t cap, uint8_t *flags, cudaStream_t st)
{
    if (!n) return;
    unsigned blocks = (unsigned)((n + GATE_BLOCK - 1) / GATE_BLOCK);
    gate_kernel<1><<<blocks, GATE_BLOCK, 0, st>>>(R, Rlen, Q, Qlen, b, h0, n, xp, cap, flags);
}

void hz_cuda_gate(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                  const hz_dev_batch &b, uint64_t h0, uint64_t n, const hz_xparams &xp,
                  uint32_t cap, uint8_t *flags, cudaStream_t st)
{
    if (!n) return;
    unsigned blocks = (unsigned)((n + GATE_BLOCK - 1) / GATE_BLOCK);
    gate_kernel<0><<<blocks, GATE_BLOCK, 0, st>>>(R, Rlen, Q, Qlen, b, h0, n, xp, cap, flags);
}

/* ---- reference bucketing ---------------------------------------------------------------- */
__global__ void window_key_kernel(hz_dev_batch b, uint64_t h0, uint64_t n, uint32_t win,
                                  uint8_t *key, uint32_t *id)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    hz_anchor a = hz_dev_anchor(b, h0 + i);
    uint32_t w = a.ar / win;
    key[i] = (uint8_t)(w < 31 ? w : 31);
    id[i] = (uint32_t)i;
}

__global__ void __launch_bounds__(GATE_BLOCK)
gate_perm_kernel(const uint8_t *__restrict__ R, uint32_t Rlen, const uint8_t *__restrict__ Q, uint32_t Qlen,
                 hz_dev_batch b, uint64_t h0, const uint32_t *__restrict__ perm, uint64_t n,
                 hz_xparams xp, uint32_t cap, uint8_t *flags)
{
    __shared__ int32_t sub[64];
    if (threadIdx.x < 64) sub[threadIdx.x] = xp.sub[threadIdx.x];
    __syncthreads();
    uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    uint32_t i = perm[j];
    hz_anchor a = hz_dev_anchor(b, h0 + i);
    flags[i] = gate_one(R, Rlen, Q, Qlen, a, sub, xp.xdrop, cap, xp.gate_min_total);
}

cudaError_t hz_cuda_gate_buckets(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                                 const hz_dev_batch &b, uint64_t h0, uint64_t n, const hz_xparams &xp,
                                 uint32_t cap, uint32_t win, hz_bucket_scratch *bs, uint8_t *flags,
                                 cudaStream_t st)
{
    if (!n) return cudaSuccess;
    unsigned blocks = (unsigned)((n + GATE_BLOCK - 1) / GATE_BLOCK);
    window_key_kernel<<<blocks, GATE_BLOCK, 0, st>>>(b, h0, n, win, bs->key, bs->id);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    size_t tb = bs->temp_bytes;   /* stable: ids stay ascending inside a window */
    e = cub::DeviceRadixSort::SortPairs(bs->temp, tb, bs->key, bs->key2, bs->id, bs->perm, (int)n, 0, 5, st);
    if (e != cudaSuccess) return e;
    gate_perm_kernel<<<blocks, GATE_BLOCK, 0, st>>>(R, Rlen, Q, Qlen, b, h0, bs->perm, n, xp, cap, flags);
    return cudaGetLastError();
}

cudaError_t hz_bucket_scratch_alloc(hz_bucket_scratch *bs, uint64_t n)
{
    cudaError_t e;
    memset(bs, 0, sizeof *bs);
    if ((e = cudaMalloc(&bs->key, n)) || (e = cudaMalloc(&bs->key2, n)) ||
        (e = cudaMalloc(&bs->id, n * 4)) || (e = cudaMalloc(&bs->perm, n * 4)))
        return e;
    e = cub::DeviceRadixSort::SortPairs(NULL, bs->temp_bytes, bs->key, bs->key2, bs->id, bs->perm, (int)n, 0, 5);
    if (e) return e;
    return cudaMalloc(&bs->temp, bs->temp_bytes);
}

void hz_bucket_scratch_free(hz_bucket_scratch *bs)
{
    cudaFree(bs->key); cudaFree(bs->key2); cudaFree(bs->id); cudaFree(bs->perm); cudaFree(bs->temp);
    memset(bs, 0, sizeof *bs);
}

/* ---- stable compaction ------------------------------------------------------------------ */
struct flag_is {
    const uint8_t *flags;
    uint8_t v;
    __host__ __device__ bool operator()(uint32_t i) const { return flags[i] == v; }
};

cudaError_t hz_cuda_select(const uint8_t *flags, uint64_t n, uint8_t v, uint32_t *ids,
                           uint32_t *d_count, void *temp, size_t *temp_bytes, cudaStream_t st)
{
    thrust::counting_iterator<uint32_t> it(0);
    return cub::DeviceSelect::If(temp, *temp_bytes, it, ids, d_count, (int)n, flag_is{flags, v}, st);
}
