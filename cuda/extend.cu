/* extend (CUDA) — materialization of gate survivors: full X-drop extension + entropy, one
 * thread per survivor, with the arithmetic shared with the CPU (src/xdrop.h hz_materialize,
 * built with --fmad=false so every operation rounds as on the host).
 */
#include "cuda_common.cuh"
#include <cub/device/device_select.cuh>

__global__ void __launch_bounds__(256)
materialize_kernel(const uint8_t *__restrict__ R, uint32_t Rlen, const uint8_t *__restrict__ Q,
                   uint32_t Qlen, hz_dev_batch b, uint64_t h0, const uint32_t *ids, uint32_t nid,
                   int all, hz_xparams xp, hz_hsp *out, uint8_t *kept)
{
    __shared__ hz_xparams sx;
    if (threadIdx.x == 0) sx = xp;
    __syncthreads();
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nid) return;
    hz_anchor a = hz_dev_anchor(b, h0 + (all ? i : ids[i]));
    hz_hsp h;
    int k = hz_materialize(R, Rlen, Q, Qlen, a.ar, a.aq, &sx, &h);
    out[i] = h;
    kept[i] = (uint8_t)k;
}

void hz_cuda_materialize(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                         const hz_dev_batch &b, uint64_t h0, const uint32_t *ids, uint32_t nid,
                         int all, const hz_xparams &xp, hz_hsp *out, uint8_t *kept, cudaStream_t st)
{
    if (!nid) return;
    materialize_kernel<<<(nid + 255) / 256, 256, 0, st>>>(R, Rlen, Q, Qlen, b, h0, ids, nid, all, xp, out, kept);
}

__global__ void anchors_kernel(hz_dev_batch b, uint64_t h0, const uint32_t *ids, uint32_t nid, hz_anchor *out)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nid) out[i] = hz_dev_anchor(b, h0 + ids[i]);
}

void hz_cuda_anchors(const hz_dev_batch &b, uint64_t h0, const uint32_t *ids, uint32_t nid,
                     hz_anchor *out, cudaStream_t st)
{
    if (!nid) return;
    anchors_kernel<<<(nid + 255) / 256, 256, 0, st>>>(b, h0, ids, nid, out);
}

cudaError_t hz_cuda_select_hsp(const hz_hsp *in, const uint8_t *kept, uint32_t n, hz_hsp *out,
                               uint32_t *d_count, void *temp, size_t *temp_bytes, cudaStream_t st)
{
    return cub::DeviceSelect::Flagged(temp, *temp_bytes, in, kept, out, d_count, (int)n, st);
}
