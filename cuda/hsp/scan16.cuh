/* scan16 — the capped one-sided X-drop scans of src/core/xdrop.h (hz_xdrop_left_capped,
 * hz_xdrop_right_capped; spec §4.2) on the device, 16 columns a step without a branch per
 * column (hz_xdrop_block16).  Used by the refill gate (cuda/hsp/gate_refill.cu), which interleaves
 * the steps of a warp's lanes, and by the long scans of anchors past the gate's cap
 * (cuda/hsp/extend.cu), which run a side to its end.  Device sequences carry HZ_DEV_PAD readable
 * bytes before their first and after their last byte, so a step's words always exist.
 */
#ifndef HZ_SCAN16_CUH
#define HZ_SCAN16_CUH
#include "cuda_common.cuh"

/* One step scores 16 columns with hz_xdrop_block16 (src/core/xdrop.h: no branch per column; the
 * proof of its two variants is there).  Column scores come from the 8x8 matrix in shared
 * memory at the byte offset (r << 5) | (q << 2) = 4 * (8r + q) (row = target code, spec
 * §4.1): codes are 0..7, so four such offsets pack into a word without carries. */
#define RF_COLS 16u

/* One lane's side in progress. */
struct rf_side {
    const uint8_t *rp, *qp;   /* the step's first byte (right) or the byte after its last (left) */
    uint32_t rem;             /* columns left to scan (capped) */
    int32_t S, F;             /* running score, best - x */
    int longrun;              /* more columns were available than the cap */
};

/* Columns of a side at anchor (ar, aq): those of hz_xdrop_{left,right}_capped. */
__device__ __forceinline__ void rf_setup(rf_side &s, int left, const uint8_t *R, uint32_t Rlen, const uint8_t *Q,
                                         uint32_t Qlen, uint32_t ar, uint32_t aq, uint32_t cap, int32_t x)
{
    uint32_t n;
    if (left) n = ar < aq ? ar : aq;
    else if (ar >= Rlen || aq >= Qlen) n = 0;   /* the edge test of hz_xdrop_right_capped: 0 */
    else { n = Rlen - ar; uint32_t nq = Qlen - aq; if (nq < n) n = nq; }
    s.longrun = n > cap;
    s.rem = s.longrun ? cap : n;
    s.rp = R + ar; s.qp = Q + aq;
    s.S = 0; s.F = -x;
}

/* 16 little-endian bytes starting at p (any alignment), from five aligned words */
__device__ __forceinline__ void rf_load16(const uint8_t *p, uint32_t *o)
{
    const uint32_t *w = (const uint32_t *)((uintptr_t)p & ~(uintptr_t)3);
    uint32_t sh = (uint32_t)((uintptr_t)p & 3u) * 8u, v[5];
#pragma unroll
    for (int k = 0; k < 5; k++) v[k] = __ldg(w + k);
#pragma unroll
    for (int k = 0; k < 4; k++) o[k] = __funnelshift_r(v[k], v[k + 1], sh);
}

/* The 16 columns of a step as 4 words, w[k] = columns 4k..4k+3, column j in byte j as
 * (r << 5) | (q << 2): right, the 16 bytes from rp and qp; left, the 16 before them, last
 * byte first. */
__device__ __forceinline__ void rf_words16(const uint8_t *rp, const uint8_t *qp, int left, uint32_t *w)
{
    uint32_t r[4], q[4];
    rf_load16(left ? rp - RF_COLS : rp, r);
    rf_load16(left ? qp - RF_COLS : qp, q);
#pragma unroll
    for (int k = 0; k < 4; k++) {
        uint32_t f = (r[k] << 5) | (q[k] << 2), b = (r[3 - k] << 5) | (q[3 - k] << 2);
        w[k] = left ? __byte_perm(b, 0, 0x0123) : f;
    }
}

__device__ __forceinline__ int32_t rf_sub(const int32_t *sub, uint32_t w, int k)
{
    return *(const int32_t *)((const char *)sub + __byte_perm(w, 0, 0x4440 | (k & 3)));
}

/* One step of a side (s.rem >= 1).  Returns 1 when the side ended, with *val its score or
 * -1 (cap columns passed with no stop and no edge). */
template <int FROZEN>
__device__ __forceinline__ int rf_step(rf_side &s, int left, const int32_t *sub, int32_t x, int32_t *val)
{
    uint32_t w[4];
    rf_words16(s.rp, s.qp, left, w);
    int32_t S = s.S, F = s.F;
    if (s.rem < RF_COLS) {   /* the side's last columns before an edge: the scalar loop */
        for (uint32_t k = 0; k < s.rem; k++) {
            S += rf_sub(sub, w[k >> 2], (int)k);
            int32_t Fn = max(F, S - x);
            if (S < Fn) { *val = F + x; return 1; }
            F = Fn;
        }
        *val = s.longrun ? -1 : F + x;
        return 1;
    }
    int32_t v[16];
#pragma unroll
    for (int k = 0; k < 16; k++) v[k] = rf_sub(sub, w[k >> 2], k);
    if (hz_xdrop_block16(v, FROZEN, x, &S, &F)) { *val = F + x; return 1; }
    s.S = S; s.F = F; s.rem -= RF_COLS;
    if (left) { s.rp -= RF_COLS; s.qp -= RF_COLS; } else { s.rp += RF_COLS; s.qp += RF_COLS; }
    if (!s.rem) { *val = s.longrun ? -1 : F + x; return 1; }
    return 0;
}

/* ---- lane refill (cuda/hsp/gate_refill.cu, cuda/hsp/extend.cu) ----------------------------------- */
#define RF_FULL 0xffffffffu

/* The idle lanes of a warp (need, this lane among them) take the next indices of the warp's
 * run [next, w1) in lane order; when the run holds fewer and DYN is 1, a new run of grab
 * indices comes from the counter *d_next (zero at launch) for the rest.  Every lane of the
 * warp calls it with the same need, next and w1 (updated here).  Returns this lane's index:
 * none is left for it when the index is >= w1 or >= n (n: the indices in all). */
template <int DYN>
__device__ __forceinline__ uint32_t rf_take(uint32_t need, uint32_t n, uint32_t grab, uint32_t *d_next,
                                            uint32_t &next, uint32_t &w1)
{
    uint32_t lane = threadIdx.x & 31u;
    uint32_t k = __popc(need), rank = __popc(need & ((1u << lane) - 1u)), avail = w1 - next, ni;
    if (DYN && k > avail && w1 < n) {   /* a new run for the lanes the current one cannot serve */
        uint32_t c = 0;
        if (lane == 0) c = atomicAdd(d_next, grab);
        c = __shfl_sync(RF_FULL, c, 0);
        ni = rank < avail ? next + rank : c + (rank - avail);
        next = c + (k - avail);
        w1 = c < n ? (c + grab < n ? c + grab : n) : n;
        if (c >= n) next = n;
    } else {
        ni = next + rank;
        next += k;
    }
    return ni;
}

/* A whole side (hz_xdrop_{left,right}_capped's value: the score, or -1 past cap columns);
 * sub is the 8x8 matrix in shared memory. */
template <int FROZEN>
__device__ __forceinline__ int32_t rf_side_scan(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                                                uint32_t ar, uint32_t aq, uint32_t cap, int left, const int32_t *sub,
                                                int32_t x)
{
    rf_side s;
    int32_t v;
    rf_setup(s, left, R, Rlen, Q, Qlen, ar, aq, cap, x);
    if (!s.rem) return 0;   /* no column: the scalar scans give 0 */
    while (!rf_step<FROZEN>(s, left, sub, x, &v)) {}
    return v;
}

#endif
