/* extend (CUDA) — materialization of gate survivors: full X-drop extension + entropy, one
 * thread per survivor, with the arithmetic shared with the CPU (src/xdrop.h hz_materialize,
 * built with --fmad=false so every operation rounds as on the host).
 *
 * The survivor count stays on the device (the kernels loop over *d_n with a fixed grid), so
 * a tile needs no host round trip between gate, compaction and materialization.  Kept HSPs
 * are appended in any order: the per-batch dedup sorts them by a total key (src/dedup.c).
 */
#include "cuda_common.cuh"

#define MAT_BLOCK 256

static unsigned grid_for(uint32_t nmax)
{
    uint32_t b = (nmax + MAT_BLOCK - 1) / MAT_BLOCK;
    return b < 1 ? 1 : b > 4096 ? 4096 : b;
}

__global__ void __launch_bounds__(MAT_BLOCK)
materialize_kernel(const uint8_t *__restrict__ R, uint32_t Rlen, const uint8_t *__restrict__ Q,
                   uint32_t Qlen, hz_dev_batch b, uint64_t h0, const uint32_t *ids, const uint32_t *d_n,
                   uint32_t nmax, hz_xparams xp, hz_hsp *out, uint32_t *d_kept)
{
    __shared__ hz_xparams sx;
    if (threadIdx.x == 0) sx = xp;
    __syncthreads();
    uint32_t n = d_n ? *d_n : nmax;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        hz_anchor a = hz_dev_anchor(b, h0 + (ids ? ids[i] : i));
        hz_hsp h;
        if (hz_materialize(R, Rlen, Q, Qlen, a.ar, a.aq, &sx, &h)) out[atomicAdd(d_kept, 1u)] = h;
    }
}

void hz_cuda_materialize(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                         const hz_dev_batch &b, uint64_t h0, const uint32_t *ids, const uint32_t *d_n,
                         uint32_t nmax, const hz_xparams &xp, hz_hsp *out, uint32_t *d_kept, cudaStream_t st)
{
    if (!nmax) return;
    materialize_kernel<<<grid_for(nmax), MAT_BLOCK, 0, st>>>(R, Rlen, Q, Qlen, b, h0, ids, d_n, nmax, xp, out, d_kept);
}

/* Anchors past the gate's work cap (flag 2): exact capped scans with the larger cap2; when
 * both sides end (drop or edge) within cap2 the scores are the uncapped ones, so the gate
 * threshold and hz_materialize decide here exactly as the host's diagonal path would
 * (src/chunk.c hz_extend_long); the rest go to the host. */
__global__ void __launch_bounds__(MAT_BLOCK)
long_kernel(const uint8_t *__restrict__ R, uint32_t Rlen, const uint8_t *__restrict__ Q, uint32_t Qlen,
            hz_dev_batch b, uint64_t h0, const uint32_t *ids, const uint32_t *d_n, hz_xparams xp, uint32_t cap2,
            hz_hsp *out, uint32_t *d_kept, uint32_t *d_pass, hz_anchor *host, uint32_t *d_host)
{
    __shared__ hz_xparams sx;
    if (threadIdx.x == 0) sx = xp;
    __syncthreads();
    uint32_t n = *d_n;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        hz_anchor a = hz_dev_anchor(b, h0 + ids[i]);
        int32_t l = hz_xdrop_left_capped(R, Q, a.ar, a.aq, sx.sub, sx.xdrop, cap2);
        int32_t r = l < 0 ? -1 : hz_xdrop_right_capped(R, Rlen, Q, Qlen, a.ar, a.aq, sx.sub, sx.xdrop, cap2);
        if (r < 0) { host[atomicAdd(d_host, 1u)] = a; continue; }
        if (l + r < sx.gate_min_total) continue;
        atomicAdd(d_pass, 1u);
        hz_hsp h;
        if (hz_materialize(R, Rlen, Q, Qlen, a.ar, a.aq, &sx, &h)) out[atomicAdd(d_kept, 1u)] = h;
    }
}

void hz_cuda_long(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen, const hz_dev_batch &b,
                  uint64_t h0, const uint32_t *ids, const uint32_t *d_n, uint32_t nmax, const hz_xparams &xp,
                  uint32_t cap2, hz_hsp *out, uint32_t *d_kept, uint32_t *d_pass, hz_anchor *host,
                  uint32_t *d_host, cudaStream_t st)
{
    if (!nmax) return;
    long_kernel<<<grid_for(nmax), MAT_BLOCK, 0, st>>>(R, Rlen, Q, Qlen, b, h0, ids, d_n, xp, cap2, out, d_kept, d_pass, host, d_host);
}

__global__ void anchors_kernel(hz_dev_batch b, uint64_t h0, const uint32_t *ids, const uint32_t *d_n, hz_anchor *out)
{
    uint32_t n = *d_n;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = hz_dev_anchor(b, h0 + ids[i]);
}

void hz_cuda_anchors(const hz_dev_batch &b, uint64_t h0, const uint32_t *ids, const uint32_t *d_n,
                     uint32_t nmax, hz_anchor *out, cudaStream_t st)
{
    if (!nmax) return;
    anchors_kernel<<<grid_for(nmax), MAT_BLOCK, 0, st>>>(b, h0, ids, d_n, out);
}
