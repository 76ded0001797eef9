/* extend (CUDA) — materialization of gate survivors: full X-drop extension + entropy, one
 * thread per survivor, with the arithmetic shared with the CPU (src/xdrop.h hz_materialize,
 * built with --fmad=false so every operation rounds as on the host).
 *
 * The survivor count stays on the device (the kernels loop over *d_n with a fixed grid), so
 * a tile needs no host round trip between gate, compaction and materialization.  Kept HSPs
 * are appended in any order: the per-batch dedup sorts them by a total key (src/dedup.c).
 */
#include "cuda_common.cuh"
#include "scan16.cuh"

#define MAT_BLOCK 256

static unsigned grid_for(uint32_t nmax)
{
    uint32_t b = (nmax + MAT_BLOCK - 1) / MAT_BLOCK;
    return b < 1 ? 1 : b > 4096 ? 4096 : b;
}

/* Where a kernel's i-th anchor comes from: a batch's raw anchors h0+ids[i] (ids NULL: h0+i),
 * or a tile's anchor list, A[i] or A[ids[i]]. */
struct src_batch {
    hz_dev_batch b; uint64_t h0; const uint32_t *ids;
    __device__ hz_anchor operator()(uint32_t i) const { return hz_dev_anchor(b, h0 + (ids ? ids[i] : i)); }
};
struct src_list {
    const hz_anchor *A; const uint32_t *ids;
    __device__ hz_anchor operator()(uint32_t i) const { return A[ids ? ids[i] : i]; }
};

template <class SRC>
__global__ void __launch_bounds__(MAT_BLOCK)
materialize_kernel(const uint8_t *__restrict__ R, uint32_t Rlen, const uint8_t *__restrict__ Q,
                   uint32_t Qlen, SRC src, const uint32_t *d_n, uint32_t nmax, hz_xparams xp, hz_hsp *out,
                   uint32_t *d_kept)
{
    __shared__ hz_xparams sx;
    if (threadIdx.x == 0) sx = xp;
    __syncthreads();
    uint32_t n = d_n ? *d_n : nmax;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        hz_anchor a = src(i);
        hz_hsp h;
        if (hz_materialize(R, Rlen, Q, Qlen, a.ar, a.aq, &sx, &h)) out[atomicAdd(d_kept, 1u)] = h;
    }
}

void hz_cuda_materialize(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                         const hz_dev_batch &b, uint64_t h0, const uint32_t *ids, const uint32_t *d_n,
                         uint32_t nmax, const hz_xparams &xp, hz_hsp *out, uint32_t *d_kept, cudaStream_t st)
{
    if (!nmax) return;
    src_batch src = { b, h0, ids };
    materialize_kernel<<<grid_for(nmax), MAT_BLOCK, 0, st>>>(R, Rlen, Q, Qlen, src, d_n, nmax, xp, out, d_kept);
}

/* The refill gate's survivors: each side scanned only up to its first maximum, since the gate
 * already gave its score (src/xdrop.h hz_materialize_known; the same HSPs as hz_materialize). */
__global__ void __launch_bounds__(MAT_BLOCK)
survivors_kernel(const uint8_t *__restrict__ R, uint32_t Rlen, const uint8_t *__restrict__ Q, uint32_t Qlen,
                 const hz_survivor *__restrict__ L, const uint32_t *d_n, hz_xparams xp, hz_hsp *out, uint32_t *d_kept)
{
    __shared__ hz_xparams sx;
    if (threadIdx.x == 0) sx = xp;
    __syncthreads();
    uint32_t n = *d_n;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        hz_survivor a = L[i];
        hz_hsp h;
        if (hz_materialize_known(R, Rlen, Q, Qlen, a.ar, a.aq, a.lsc, a.rsc, &sx, &h)) out[atomicAdd(d_kept, 1u)] = h;
    }
}

void hz_cuda_materialize_survivors(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                                   const hz_survivor *L, const uint32_t *d_n, uint32_t nmax,
                                   const hz_xparams &xp, hz_hsp *out, uint32_t *d_kept, cudaStream_t st)
{
    if (!nmax) return;
    survivors_kernel<<<grid_for(nmax), MAT_BLOCK, 0, st>>>(R, Rlen, Q, Qlen, L, d_n, xp, out, d_kept);
}

/* Anchors past the gate's work cap (flag 2): exact capped scans with the larger cap2; when
 * both sides end (drop or edge) within cap2 the scores are the uncapped ones, so the gate
 * threshold and hz_materialize decide here exactly as the host's diagonal path would
 * (src/chunk.c hz_extend_long); the rest go to the host. */
/* FROZEN -1: the scalar scans of src/xdrop.h; 0 or 1: the same values from cuda/scan16.cuh
 * (hz_xdrop_block16_fits says which is exact for the scores) */
template <class SRC, int FROZEN>
__global__ void __launch_bounds__(MAT_BLOCK)
long_kernel(const uint8_t *__restrict__ R, uint32_t Rlen, const uint8_t *__restrict__ Q, uint32_t Qlen,
            SRC src, const uint32_t *d_n, hz_xparams xp, uint32_t cap2,
            hz_hsp *out, uint32_t *d_kept, uint32_t *d_pass, hz_anchor *host, uint32_t *d_host)
{
    __shared__ hz_xparams sx;
    if (threadIdx.x == 0) sx = xp;
    __syncthreads();
    uint32_t n = *d_n;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        hz_anchor a = src(i);
        int32_t l, r;
        if (FROZEN < 0) {
            l = hz_xdrop_left_capped(R, Q, a.ar, a.aq, sx.sub, sx.xdrop, cap2);
            r = l < 0 ? -1 : hz_xdrop_right_capped(R, Rlen, Q, Qlen, a.ar, a.aq, sx.sub, sx.xdrop, cap2);
        } else {
            l = rf_side_scan<FROZEN < 0 ? 0 : FROZEN>(R, Rlen, Q, Qlen, a.ar, a.aq, cap2, 1, sx.sub, sx.xdrop);
            r = l < 0 ? -1 : rf_side_scan<FROZEN < 0 ? 0 : FROZEN>(R, Rlen, Q, Qlen, a.ar, a.aq, cap2, 0, sx.sub, sx.xdrop);
        }
        if (r < 0) { host[atomicAdd(d_host, 1u)] = a; continue; }
        if (l + r < sx.gate_min_total) continue;
        atomicAdd(d_pass, 1u);
        hz_hsp h;
        if (hz_materialize(R, Rlen, Q, Qlen, a.ar, a.aq, &sx, &h)) out[atomicAdd(d_kept, 1u)] = h;
    }
}

template <class SRC>
static void long_launch(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen, SRC src, const uint32_t *d_n,
                        uint32_t nmax, const hz_xparams &xp, int frozen, uint32_t cap2, hz_hsp *out, uint32_t *d_kept,
                        uint32_t *d_pass, hz_anchor *host, uint32_t *d_host, cudaStream_t st)
{
    if (!nmax) return;
    if (frozen < 0)
        long_kernel<SRC, -1><<<grid_for(nmax), MAT_BLOCK, 0, st>>>(R, Rlen, Q, Qlen, src, d_n, xp, cap2, out, d_kept, d_pass, host, d_host);
    else if (frozen == 0)
        long_kernel<SRC, 0><<<grid_for(nmax), MAT_BLOCK, 0, st>>>(R, Rlen, Q, Qlen, src, d_n, xp, cap2, out, d_kept, d_pass, host, d_host);
    else
        long_kernel<SRC, 1><<<grid_for(nmax), MAT_BLOCK, 0, st>>>(R, Rlen, Q, Qlen, src, d_n, xp, cap2, out, d_kept, d_pass, host, d_host);
}

void hz_cuda_long(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen, const hz_dev_batch &b,
                  uint64_t h0, const uint32_t *ids, const uint32_t *d_n, uint32_t nmax, const hz_xparams &xp,
                  uint32_t cap2, hz_hsp *out, uint32_t *d_kept, uint32_t *d_pass, hz_anchor *host,
                  uint32_t *d_host, cudaStream_t st)
{
    src_batch src = { b, h0, ids };
    long_launch(R, Rlen, Q, Qlen, src, d_n, nmax, xp, -1, cap2, out, d_kept, d_pass, host, d_host, st);
}

void hz_cuda_long_list(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen, const hz_anchor *A,
                       const uint32_t *ids, const uint32_t *d_n, uint32_t nmax, const hz_xparams &xp, int frozen,
                       uint32_t cap2, hz_hsp *out, uint32_t *d_kept, uint32_t *d_pass, hz_anchor *host, uint32_t *d_host,
                       cudaStream_t st)
{
    src_list src = { A, ids };
    long_launch(R, Rlen, Q, Qlen, src, d_n, nmax, xp, frozen, cap2, out, d_kept, d_pass, host, d_host, st);
}

template <class SRC>
__global__ void anchors_src_kernel(SRC src, const uint32_t *d_n, hz_anchor *out)
{
    uint32_t n = *d_n;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = src(i);
}

void hz_cuda_anchors_list(const hz_anchor *A, const uint32_t *ids, const uint32_t *d_n, uint32_t nmax, hz_anchor *out,
                          cudaStream_t st)
{
    if (!nmax) return;
    src_list src = { A, ids };
    anchors_src_kernel<<<grid_for(nmax), MAT_BLOCK, 0, st>>>(src, d_n, out);
}

void hz_cuda_anchors(const hz_dev_batch &b, uint64_t h0, const uint32_t *ids, const uint32_t *d_n,
                     uint32_t nmax, hz_anchor *out, cudaStream_t st)
{
    if (!nmax) return;
    src_batch src = { b, h0, ids };
    anchors_src_kernel<<<grid_for(nmax), MAT_BLOCK, 0, st>>>(src, d_n, out);
}
