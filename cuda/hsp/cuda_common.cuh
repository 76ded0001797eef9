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

/* Bytes allocated (and zeroed) before and after every sequence on the device, for word loads
 * past either end (cuda/hsp/backend.cu seq_upload; the refill gate's 16-column steps read up to
 * 16 bytes before a column and 19 from it). */
#define HZ_DEV_PAD 32

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
/* seed.cu: the seed table (spec §3.3) of a block with extension codes T[0..L) (host memory)
 * on the current device.  keep_pos NULL: into tab on the host.  Else (direct mode only,
 * weight <= 13) kept on the device: *keep_pos, *keep_boff (cudaFree'd by the caller), tab
 * gets weight and n_pos.  0 or -1 (err).  One prototype for every caller: it is extern "C",
 * so a stale copy of it would still link. */
extern "C" int hz_cuda_seedtable_build(hz_seedtable *tab, const uint8_t *T, uint32_t L,
                                       const hz_shape *sh, uint32_t step, uint32_t **keep_pos,
                                       uint32_t **keep_boff, char *err, size_t errlen);
/* S[0..L) = the minus strand's seed codes (0..3, 4 not seedable; spec §3.2) of a query block
 * from its reverse complement's extension codes Qr[0..L) (device): Qr < 4 as is, else 4,
 * but 0 ('A') at L-1-u[k] for the nu forward offsets u[] of 'U' (host memory; delta §1b).
 * Synchronous on the current device.  0 or -1 (err). */
int hz_cuda_minus_seed_codes(const uint8_t *Qr, uint32_t L, const uint32_t *u, size_t nu, uint8_t *S,
                             char *err, size_t errlen);

/* gate.cu: flags[i] (0 reject, 1 survivor, 2 past the work cap) of anchors h0+i, i < n */
void hz_cuda_gate(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                  const hz_dev_batch &b, uint64_t h0, uint64_t n, const hz_xparams &xp,
                  uint32_t cap, uint8_t *flags, cudaStream_t st);
/* the same flags with 8 columns per step from aligned 32-bit loads (sequences padded with
 * HZ_DEV_PAD readable bytes after their end); the X-drop rule of spec §4.2 column for column */
void hz_cuda_gate_vec(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                      const hz_dev_batch &b, uint64_t h0, uint64_t n, const hz_xparams &xp,
                      uint32_t cap, uint8_t *flags, cudaStream_t st);
/* gate_warp.cu: the same flags, a warp per 32 consecutive anchors (issue 3 item 3) */
void hz_cuda_gate_warp(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                       const hz_dev_batch &b, uint64_t h0, uint64_t n, const hz_xparams &xp,
                       uint32_t cap, uint8_t *flags, cudaStream_t st);
/* Reference bucketing: the same flags, anchors gated in order of target window
 * (ar / win, at most 32 windows), stable inside a window.  Scratch for n anchors. */
struct hz_bucket_scratch { uint8_t *key, *key2; uint32_t *id, *perm; void *temp; size_t temp_bytes; };
cudaError_t hz_bucket_scratch_alloc(hz_bucket_scratch *bs, uint64_t n);
void hz_bucket_scratch_free(hz_bucket_scratch *bs);
cudaError_t hz_cuda_gate_buckets(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                                 const hz_dev_batch &b, uint64_t h0, uint64_t n, const hz_xparams &xp,
                                 uint32_t cap, uint32_t win, hz_bucket_scratch *bs, uint8_t *flags,
                                 cudaStream_t st);
/* A gate survivor of the refill gate's list: the anchor and its two exact side scores (both
 * sides ended within the gate's cap), so that materialization scans each side only up to its
 * first maximum (hz_materialize_known) */
struct hz_survivor { uint32_t ar, aq; int32_t lsc, rsc; };
/* gate_refill.cu: A[i] = anchor h0+i of the batch, i < n, in raw order (spec §3.4; the
 * positions of hz_dev_anchor) */
void hz_cuda_expand(const hz_dev_batch &b, uint64_t h0, uint64_t n, hz_anchor *A, cudaStream_t st);
/* gate_refill.cu: the gate of anchors A[0..n) (n < 2^32) with lane refill and 16 columns a
 * step (frozen: hz_xdrop_block16_fits' variant, 0 or 1; dyn 1: warps take runs of anchors from
 * the counter *d_next, which must be 0, instead of fixed runs): flags[i] as hz_cuda_gate, and
 * when out is given the survivors (flag 1) with their side scores also at
 * out[atomicAdd(d_count[0])] (n slots; order free).  Sequences need HZ_DEV_PAD readable bytes
 * before and after them. */
void hz_cuda_gate_refill(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen, const hz_anchor *A,
                         uint64_t n, const hz_xparams &xp, uint32_t cap, int frozen, int dyn, uint8_t *flags,
                         hz_survivor *out, uint32_t *d_count, uint32_t *d_next, cudaStream_t st);
/* select the indices i < n with flags[i] == v, ascending (stable), into ids; count into *d_count */
cudaError_t hz_cuda_select(const uint8_t *flags, uint64_t n, uint8_t v, uint32_t *ids,
                           uint32_t *d_count, void *temp, size_t *temp_bytes, cudaStream_t st);

/* extend.cu: materialize anchors h0+ids[i] (ids NULL: h0+i), i < *d_n (d_n NULL: nmax; nmax
 * bounds *d_n); kept HSPs appended at out[atomicAdd(d_kept)], in no particular order */
void hz_cuda_materialize(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                         const hz_dev_batch &b, uint64_t h0, const uint32_t *ids, const uint32_t *d_n,
                         uint32_t nmax, const hz_xparams &xp, hz_hsp *out, uint32_t *d_kept, cudaStream_t st);
/* anchors h0+ids[i], i < *d_n <= nmax, that passed the gate's cap: scans capped at cap2 decide
 * exactly when both sides end within cap2 (*d_pass counts those reaching the gate threshold;
 * kept HSPs appended at out[atomicAdd(d_kept)]); the others are appended to host[] for the
 * host's diagonal path, counted in *d_host (spec §4.2-4.5; the host path: src/hsp/chunk.c
 * hz_extend_long) */
void hz_cuda_long(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen, const hz_dev_batch &b,
                  uint64_t h0, const uint32_t *ids, const uint32_t *d_n, uint32_t nmax, const hz_xparams &xp,
                  uint32_t cap2, hz_hsp *out, uint32_t *d_kept, uint32_t *d_pass, hz_anchor *host,
                  uint32_t *d_host, cudaStream_t st);
/* extend.cu: materialize the refill gate's survivors L[i], i < *d_n <= nmax, from their known
 * side scores (hz_materialize_known: the bytes of hz_materialize); kept HSPs appended at
 * out[atomicAdd(d_kept)]; d_next is a counter that is zero at launch (the lanes' refill) */
void hz_cuda_materialize_survivors(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                                   const hz_survivor *L, const uint32_t *d_n, uint32_t nmax,
                                   const hz_xparams &xp, hz_hsp *out, uint32_t *d_kept, uint32_t *d_next,
                                   cudaStream_t st);
/* the long scans from the tile's anchor list A (hz_cuda_expand): anchors A[i] (ids NULL) or
 * A[ids[i]], i < *d_n, as hz_cuda_long, with cuda/hsp/scan16.cuh's steps (frozen: the
 * hz_xdrop_block16_fits variant) or, frozen -1, the scalar ones */
void hz_cuda_long_list(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen, const hz_anchor *A,
                       const uint32_t *ids, const uint32_t *d_n, uint32_t nmax, const hz_xparams &xp, int frozen, uint32_t cap2,
                       hz_hsp *out, uint32_t *d_kept, uint32_t *d_pass, hz_anchor *host, uint32_t *d_host,
                       cudaStream_t st);
/* out[i] = A[ids[i]], i < *d_n <= nmax */
void hz_cuda_anchors_list(const hz_anchor *A, const uint32_t *ids, const uint32_t *d_n, uint32_t nmax, hz_anchor *out,
                          cudaStream_t st);
/* out[i] = anchor h0+ids[i], i < *d_n <= nmax */
void hz_cuda_anchors(const hz_dev_batch &b, uint64_t h0, const uint32_t *ids, const uint32_t *d_n,
                     uint32_t nmax, hz_anchor *out, cudaStream_t st);

/* dedup.cu (spec §5.3, the rules of src/hsp/dedup.c): sort v[0..n) in place by the batch key
 * (by_query 0: uint32 diagonal rs - qs, rs, len, score descending) or the query key (1: qs,
 * rs, len, score descending); alt[0..n) is scratch.  temp NULL: *temp_bytes gets the scratch
 * size for n and nothing runs. */
cudaError_t hz_cuda_hsp_sort(hz_hsp *v, hz_hsp *alt, uint64_t n, int by_query, void *temp, size_t *temp_bytes,
                             cudaStream_t st);
/* v[0..n) sorted by the batch key: out gets, in order, the records kept by the batch dedup
 * (identical 0: drop one that shares the diagonal with the record before it and contains it
 * or is contained) or by the collapse (identical 1: drop one equal to the record before it);
 * their count goes to *d_k.  keep: n bytes of scratch.  temp NULL: size query as above. */
cudaError_t hz_cuda_hsp_drop(const hz_hsp *v, uint64_t n, int identical, uint8_t *keep, hz_hsp *out,
                             uint64_t *d_k, void *temp, size_t *temp_bytes, cudaStream_t st);

#endif
