/* cuda_common — shared device-side definitions of the CUDA backend.
 *
 * Anchors are never stored: a kernel recomputes anchor h of a batch from the batch's seeds
 * (exclusive hit offsets, bucket starts, query positions) and the target position table, in
 * the CPU's raw order (seed order, then ascending target position; spec §3.4).
 */
#ifndef HZ_CUDA_COMMON_CUH
#define HZ_CUDA_COMMON_CUH
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
extern "C" {
#include "xdrop.h"
#include "gate.h"
#include "seed.h"
}

#define HZ_CUDA_CHECK(call, err, errlen, label)                                              \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess) {                                                              \
            snprintf(err, errlen, "CUDA error %s at %s:%d: %s", cudaGetErrorName(e_), __FILE__, \
                     __LINE__, cudaGetErrorString(e_));                                       \
            goto label;                                                                       \
        }                                                                                     \
    } while (0)

/* The seeds of one semantic batch, on the device. */
struct hz_dev_batch {
    const uint32_t *pos;     /* target position table (block-relative), whole block */
    const uint32_t *qpos;    /* [ns] query position of each seed */
    const uint64_t *off;     /* [ns] exclusive prefix of hits per seed within the batch */
    const uint64_t *bstart;  /* [ns] first index of the seed's bucket in pos */
    uint32_t ns;
    uint32_t W;
    uint64_t base;           /* off[] values are base + batch-relative hit index */
};

/* Anchor h (0-based within the batch). */
__device__ __forceinline__ hz_anchor hz_dev_anchor(const hz_dev_batch &b, uint64_t h)
{
    uint32_t lo = 0, hi = b.ns;           /* last seed with off <= h */
    h += b.base;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) >> 1;
        if (b.off[mid] <= h) lo = mid; else hi = mid;
    }
    hz_anchor a;
    a.ar = b.pos[b.bstart[lo] + (h - b.off[lo])] + b.W;
    a.aq = b.qpos[lo] + b.W;
    return a;
}

/* seed.cu: device seeding of query positions [j0, j1) of text S (seed codes 0..3, 4 invalid),
 * L bytes; writes per seed: qpos, bstart, off (exclusive prefix of hits, global) and returns
 * the seed count *ns and the total hits *nh.  Buffers are grown in sc. */
struct hz_seed_scratch {
    uint8_t *valid; uint32_t *kmer, *vid; uint64_t *cnt, *pref, *off, *bstart;
    uint32_t *qpos; uint32_t *d_n; uint64_t *d_nh; void *temp; size_t temp_bytes;
    size_t pos_cap, seed_cap;
};
int hz_cuda_seed_chunk(const uint8_t *S, uint32_t j0, uint32_t j1, const hz_shape *sh,
                       const uint32_t *bucket_off, hz_seed_scratch *sc, uint32_t *ns, uint64_t *nh,
                       cudaStream_t st, char *err, size_t errlen);
void hz_seed_scratch_free(hz_seed_scratch *sc);

/* gate.cu */
void hz_cuda_gate(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                  const hz_dev_batch &b, uint64_t h0, uint64_t n, const hz_xparams &xp,
                  uint32_t cap, uint8_t *flags, cudaStream_t st);
/* select the indices i < n with flags[i] == v, ascending, into ids; count into *d_count */
cudaError_t hz_cuda_select(const uint8_t *flags, uint64_t n, uint8_t v, uint32_t *ids,
                           uint32_t *d_count, void *temp, size_t *temp_bytes, cudaStream_t st);

/* extend.cu */
void hz_cuda_materialize(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                         const hz_dev_batch &b, uint64_t h0, const uint32_t *ids, uint32_t nid,
                         int all, const hz_xparams &xp, hz_hsp *out, uint8_t *kept, cudaStream_t st);
void hz_cuda_anchors(const hz_dev_batch &b, uint64_t h0, const uint32_t *ids, uint32_t nid,
                     hz_anchor *out, cudaStream_t st);
cudaError_t hz_cuda_select_hsp(const hz_hsp *in, const uint8_t *kept, uint32_t n, hz_hsp *out,
                               uint32_t *d_count, void *temp, size_t *temp_bytes, cudaStream_t st);

#endif
