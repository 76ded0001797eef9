/* gate (CUDA) — the score gate, one thread per raw anchor, and CUB stable compaction.
 *
 * Same flags as hz_gate_cpu_capped (src/gate.c) for the same anchors: both call the shared
 * scans of src/xdrop.h.  Anchors of a tile are consecutive raw indices, so neighbouring
 * threads mostly share a seed and therefore a query window (cached in L1).
 */
#include "cuda_common.cuh"
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

__global__ void __launch_bounds__(256)
gate_kernel(const uint8_t *__restrict__ R, uint32_t Rlen, const uint8_t *__restrict__ Q, uint32_t Qlen,
            hz_dev_batch b, uint64_t h0, uint64_t n, hz_xparams xp, uint32_t cap, uint8_t *flags)
{
    __shared__ int32_t sub[64];
    if (threadIdx.x < 64) sub[threadIdx.x] = xp.sub[threadIdx.x];
    __syncthreads();
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    hz_anchor a = hz_dev_anchor(b, h0 + i);
    uint8_t f;
    int32_t l = hz_xdrop_left_capped(R, Q, a.ar, a.aq, sub, xp.xdrop, cap);
    if (l < 0) f = 2;
    else {
        int32_t r = hz_xdrop_right_capped(R, Rlen, Q, Qlen, a.ar, a.aq, sub, xp.xdrop, cap);
        f = r < 0 ? 2 : (uint8_t)(l + r >= xp.gate_min_total);
    }
    flags[i] = f;
}

void hz_cuda_gate(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                  const hz_dev_batch &b, uint64_t h0, uint64_t n, const hz_xparams &xp,
                  uint32_t cap, uint8_t *flags, cudaStream_t st)
{
    if (!n) return;
    unsigned blocks = (unsigned)((n + 255) / 256);
    gate_kernel<<<blocks, 256, 0, st>>>(R, Rlen, Q, Qlen, b, h0, n, xp, cap, flags);
}

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
