/* dedup (CUDA) — a batch's HSPs sorted, deduplicated and collapsed on the device.
 *
 * The same rules as src/hsp/dedup.c (spec §5.3; RULES.md "dedup inside a chunk"): sort by
 * (uint32 diagonal rs - qs, rs, len, score descending), drop an HSP that shares the diagonal
 * with the one before it in that order (kept or not) when one contains the other, then sort
 * by (qs, rs, len, score descending).  Both orders are total on the record (diagonal and rs
 * give qs), so the result is a function of the batch's multiset alone: the order in which
 * the materialization kernels appended the HSPs never matters.
 *
 * The sorts are CUB radix sorts of 128-bit keys (four 32-bit words, most significant first)
 * made from the record in place and turned back into records after the sort.
 */
#include "cuda_common.cuh"
#include <cub/cub.cuh>

namespace {

struct hkey { uint32_t w[4]; };   /* same size and alignment as hz_hsp */

struct hkey_decomp {
    __host__ __device__ ::cuda::std::tuple<uint32_t &, uint32_t &, uint32_t &, uint32_t &> operator()(hkey &k) const
    {
        return { k.w[0], k.w[1], k.w[2], k.w[3] };
    }
};

/* score descending as an ascending unsigned word */
__device__ __forceinline__ uint32_t score_word(int32_t s) { return ~((uint32_t)s ^ 0x80000000u); }
__device__ __forceinline__ int32_t word_score(uint32_t w) { return (int32_t)(~w ^ 0x80000000u); }

__global__ void to_keys(hz_hsp *v, uint64_t n, int by_query)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        hz_hsp h = v[i];
        hkey k = { { by_query ? h.qs : h.rs - h.qs, h.rs, h.len, score_word(h.score) } };
        reinterpret_cast<hkey *>(v)[i] = k;
    }
}

__global__ void from_keys(const hkey *k, hz_hsp *v, uint64_t n, int by_query)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        hkey x = k[i];
        hz_hsp h;
        h.rs = x.w[1];
        h.qs = by_query ? x.w[0] : x.w[1] - x.w[0];
        h.len = x.w[2];
        h.score = word_score(x.w[3]);
        v[i] = h;
    }
}

/* keep[i]: 1 unless v[i] repeats v[i-1] (identical: every field; else: same diagonal and one
 * contains the other, closed [rs, rs+len], uint32 arithmetic as in src/hsp/dedup.c hsp_equal) */
__global__ void keep_flags(const hz_hsp *v, uint64_t n, int identical, uint8_t *keep)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
        if (i == 0) { keep[0] = 1; continue; }
        hz_hsp x = v[i - 1], y = v[i];
        int same;
        if (identical)
            same = x.rs == y.rs && x.qs == y.qs && x.len == y.len && x.score == y.score;
        else {
            uint32_t xe = x.rs + x.len, ye = y.rs + y.len;
            same = (uint32_t)(x.rs - x.qs) == (uint32_t)(y.rs - y.qs) &&
                   ((x.rs >= y.rs && xe <= ye) || (y.rs >= x.rs && ye <= xe));
        }
        keep[i] = !same;
    }
}

unsigned grid_for(uint64_t n)
{
    uint64_t g = (n + 255) / 256;
    return (unsigned)(g < 1 ? 1 : g > 65535 ? 65535 : g);
}

}   // namespace

cudaError_t hz_cuda_hsp_sort(hz_hsp *v, hz_hsp *alt, uint64_t n, int by_query, void *temp, size_t *temp_bytes,
                             cudaStream_t st)
{
    cub::DoubleBuffer<hkey> db(reinterpret_cast<hkey *>(v), reinterpret_cast<hkey *>(alt));
    if (!temp) return cub::DeviceRadixSort::SortKeys(NULL, *temp_bytes, db, n, hkey_decomp{}, st);
    if (n < 2) return cudaSuccess;   /* one record is sorted */
    to_keys<<<grid_for(n), 256, 0, st>>>(v, n, by_query);
    cudaError_t e = cub::DeviceRadixSort::SortKeys(temp, *temp_bytes, db, n, hkey_decomp{}, st);
    if (e != cudaSuccess) return e;
    from_keys<<<grid_for(n), 256, 0, st>>>(db.Current(), v, n, by_query);   /* in place when Current() is v */
    return cudaGetLastError();
}

cudaError_t hz_cuda_hsp_drop(const hz_hsp *v, uint64_t n, int identical, uint8_t *keep, hz_hsp *out,
                             uint64_t *d_k, void *temp, size_t *temp_bytes, cudaStream_t st)
{
    if (!temp) return cub::DeviceSelect::Flagged(NULL, *temp_bytes, v, keep, out, d_k, n, st);
    if (n) keep_flags<<<grid_for(n), 256, 0, st>>>(v, n, identical, keep);
    return cub::DeviceSelect::Flagged(temp, *temp_bytes, v, keep, out, d_k, n, st);
}
