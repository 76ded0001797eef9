/* gate_warp (CUDA) — the score gate with one warp per 32 consecutive raw anchors.
 *
 * An alternative to gate_kernel (cuda/hsp/gate.cu) that must write exactly the same flag bytes
 * as hz_cuda_gate for the same arguments: 0 rejected, 1 survivor, 2 undecided (a capped
 * side scanned cap columns with no drop and no edge).  Design from the issue ("warp per 32
 * anchors"); the X-drop rule is that of spec §4.2 as coded by hz_xdrop_left_capped /
 * hz_xdrop_right_capped (src/core/xdrop.h).
 *
 * Lane k computes anchor warp_base+k with one coalesced pass (hz_dev_anchor); the warp then
 * takes the 32 anchors one at a time (ar, aq broadcast by shuffle), left side first, the
 * right side only when the left one did not return -1.  A side is scanned in steps of 128
 * columns, lane l scoring columns 4l..4l+3 of the step (columns at or past
 * m = min(available, cap) are absent).  The scalar loop
 *     S += sub; if (S > best) best = S; else if (best - S > x) return best;
 * stops at the first column p whose running score S_p is not above B_{p-1} (the best of 0 and
 * S_0..S_{p-1}) and with B_{p-1} - S_p > x, returning B_{p-1}.  Here S_p = carry + warp
 * exclusive sum of lane totals + lane-local prefix, and B_{p-1} comes from the carried best,
 * a warp exclusive max-scan of lane maxima and the lane's own earlier columns.  A ballot
 * finds the first lane with a drop; its result is broadcast.  With no drop, a step that
 * reaches m ends the side: the best so far, or -1 when columns were cut by cap (longrun).
 * Scores use the scalar code's int32 arithmetic (sums are exact while no partial sum
 * overflows int32, as in the scalar code).
 *
 * The per-lane phases are __host__ __device__ helpers so that a host emulation of the 32
 * lanes can run the same bodies; only the shuffles, scans and ballot are device-only.
 */
#include "cuda_common.cuh"

#define GW_BLOCK 256u    /* threads per block: 8 warps, 256 anchors */
#define GW_LCOLS 4u      /* columns per lane per step */
#define GW_STEP 128u     /* columns per warp step (32 * GW_LCOLS) */
#define GW_FULL 0xffffffffu

namespace {
/* One lane's part of one step. */
struct gw_lane {
    int32_t s[GW_LCOLS]; /* lane-local prefix sums of the present columns */
    uint32_t np;         /* present columns 0..4 (a prefix of the lane's 4) */
    int32_t tot;         /* sum of the present columns (0 if none) */
    int32_t lmax;        /* max of s[0..np) (unused if np == 0) */
};
} // namespace

/* Columns of a side: *m = columns to scan, *longrun = more were available than cap.
 * Returns 0 when the side is empty by the right side's edge test (result 0, nothing to scan). */
static __host__ __device__ __forceinline__ int
gw_side_setup(int left, uint32_t Rlen, uint32_t Qlen, uint32_t ar, uint32_t aq, uint32_t cap,
              uint32_t *m, int *longrun)
{
    uint32_t n;
    if (left) {
        n = ar < aq ? ar : aq;
    } else {
        if (ar >= Rlen || aq >= Qlen) { *m = 0; *longrun = 0; return 0; }
        n = Rlen - ar;
        uint32_t nq = Qlen - aq;
        if (nq < n) n = nq;
    }
    *longrun = n > cap;
    *m = *longrun ? cap : n;
    return 1;
}

/* Phase 1 (lane-local): score columns base+4*lane+j, j < 4, that are below m; lane-local
 * prefix sums, total and maximum.  Left: column p reads R[ar-1-p], Q[aq-1-p]; right: R[ar+p],
 * Q[aq+p]. */
static __host__ __device__ __forceinline__ void
gw_lane_load(const uint8_t *R, const uint8_t *Q, uint32_t ar, uint32_t aq, int left,
             uint32_t base, uint32_t m, uint32_t lane, const int32_t *sub, gw_lane *L)
{
    uint64_t c0 = (uint64_t)base + GW_LCOLS * lane;   /* 64-bit: no wrap for m near 2^32 */
    uint32_t np = 0;
    if (c0 < m) np = m - c0 < GW_LCOLS ? (uint32_t)(m - c0) : GW_LCOLS;
    int32_t acc = 0, mx = INT32_MIN;
    for (uint32_t j = 0; j < GW_LCOLS; j++) {
        if (j < np) {
            uint64_t c = c0 + j;
            uint8_t r, q;
            if (left) { r = R[(int64_t)ar - 1 - (int64_t)c]; q = Q[(int64_t)aq - 1 - (int64_t)c]; }
            else      { r = R[ar + c];                       q = Q[aq + c]; }
            acc += sub[(r << 3) | q];
            if (acc > mx) mx = acc;
        }
        L->s[j] = acc;
    }
    L->np = np;
    L->tot = acc;
    L->lmax = mx;
}

/* Phase 2 (lane-local): given the warp inclusive sum of totals at this lane and the score
 * carried from earlier steps, the score before the lane's first column (*Sin) and the lane's
 * maximum running score (INT32_MIN when the lane has no present column). */
static __host__ __device__ __forceinline__ int32_t
gw_lane_max(const gw_lane *L, int32_t incl, int32_t Sc, int32_t *Sin)
{
    *Sin = Sc + (incl - L->tot);
    return L->np ? *Sin + L->lmax : INT32_MIN;
}

/* Phase 3 (lane-local): replay the scalar rule over the lane's present columns from running
 * best Bin (best carried in, max with the exclusive max-scan from lower lanes).  Returns 1 on
 * a drop, with *res = best before the dropping column. */
static __host__ __device__ __forceinline__ int
gw_lane_drop(const gw_lane *L, int32_t Sin, int32_t Bc, int32_t mex, uint32_t lane, int32_t x,
             int32_t *res)
{
    int32_t best = Bc;
    if (lane != 0 && mex > best) best = mex;
    for (uint32_t j = 0; j < GW_LCOLS; j++) {
        if (j < L->np) {
            int32_t S = Sin + L->s[j];
            if (S > best) best = S;
            else if (best - S > x) { *res = best; return 1; }
        }
    }
    *res = 0;
    return 0;
}

/* Phase 4 (warp-uniform, no drop in the step): fold the step into the carries; returns 1 when
 * the side is finished (*out = its result), 0 to go on with the next step. */
static __host__ __device__ __forceinline__ int
gw_step_end(int32_t sum_all, int32_t max_all, uint32_t base, uint32_t m, int longrun,
            int32_t *Sc, int32_t *Bc, int32_t *out)
{
    if (max_all > *Bc) *Bc = max_all;
    *Sc += sum_all;
    if (m - base <= GW_STEP) { *out = longrun ? -1 : *Bc; return 1; }
    return 0;
}

static __host__ __device__ __forceinline__ uint8_t gw_flag(int32_t l, int32_t r, int32_t min_total)
{
    if (l < 0 || r < 0) return 2;
    return (uint8_t)(l + r >= min_total);
}

static __device__ __forceinline__ int32_t gw_scan_add(int32_t v, uint32_t lane)
{
    for (uint32_t d = 1; d < 32; d <<= 1) {
        int32_t t = __shfl_up_sync(GW_FULL, v, d);
        if (lane >= d) v += t;
    }
    return v;
}

static __device__ __forceinline__ int32_t gw_scan_max(int32_t v, uint32_t lane)
{
    for (uint32_t d = 1; d < 32; d <<= 1) {
        int32_t t = __shfl_up_sync(GW_FULL, v, d);
        if (lane >= d && t > v) v = t;
    }
    return v;
}

/* One side of one anchor, by the whole warp (all 32 lanes, warp-uniform arguments). */
static __device__ __forceinline__ int32_t
gw_side(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen, uint32_t ar, uint32_t aq,
        int left, const int32_t *sub, int32_t x, uint32_t cap, uint32_t lane)
{
    uint32_t m;
    int longrun;
    if (!gw_side_setup(left, Rlen, Qlen, ar, aq, cap, &m, &longrun)) return 0;
    int32_t Sc = 0, Bc = 0, out;
    for (uint32_t base = 0;; base += GW_STEP) {
        gw_lane L;
        gw_lane_load(R, Q, ar, aq, left, base, m, lane, sub, &L);
        int32_t incl = gw_scan_add(L.tot, lane);
        int32_t Sin;
        int32_t mx = gw_lane_max(&L, incl, Sc, &Sin);
        int32_t mincl = gw_scan_max(mx, lane);
        int32_t mex = __shfl_up_sync(GW_FULL, mincl, 1);
        int32_t res;
        int d = gw_lane_drop(&L, Sin, Bc, mex, lane, x, &res);
        uint32_t dm = __ballot_sync(GW_FULL, d);
        if (dm) return __shfl_sync(GW_FULL, res, __ffs(dm) - 1);
        int32_t sum_all = __shfl_sync(GW_FULL, incl, 31);
        int32_t max_all = __shfl_sync(GW_FULL, mincl, 31);
        if (gw_step_end(sum_all, max_all, base, m, longrun, &Sc, &Bc, &out)) return out;
    }
}

static __global__ void __launch_bounds__(GW_BLOCK)
gate_warp_kernel(const uint8_t *__restrict__ R, uint32_t Rlen, const uint8_t *__restrict__ Q,
                 uint32_t Qlen, hz_dev_batch b, uint64_t h0, uint64_t n, hz_xparams xp,
                 uint32_t cap, uint8_t *flags)
{
    __shared__ int32_t sub[64];
    if (threadIdx.x < 64) sub[threadIdx.x] = xp.sub[threadIdx.x];
    __syncthreads();
    const uint32_t lane = threadIdx.x & 31u;
    const uint64_t wbase = (uint64_t)blockIdx.x * blockDim.x + (threadIdx.x - lane);
    if (wbase >= n) return;                       /* warp-uniform; no barrier follows */
    const uint64_t rest = n - wbase;
    const uint32_t cnt = rest < 32 ? (uint32_t)rest : 32u;
    const bool valid = lane < cnt;                /* inactive lanes still join every shuffle */
    uint32_t myar = 0, myaq = 0;
    if (valid) {
        hz_anchor a = hz_dev_anchor(b, h0 + wbase + lane);
        myar = a.ar;
        myaq = a.aq;
    }
    uint8_t myf = 0;
    for (uint32_t k = 0; k < cnt; k++) {
        uint32_t ar = __shfl_sync(GW_FULL, myar, k);
        uint32_t aq = __shfl_sync(GW_FULL, myaq, k);
        int32_t l = gw_side(R, Rlen, Q, Qlen, ar, aq, 1, sub, xp.xdrop, cap, lane);
        int32_t r = l < 0 ? -1 : gw_side(R, Rlen, Q, Qlen, ar, aq, 0, sub, xp.xdrop, cap, lane);
        uint8_t f = gw_flag(l, r, xp.gate_min_total);
        if (lane == k) myf = f;
    }
    if (valid) flags[wbase + lane] = myf;
}

void hz_cuda_gate_warp(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                       const hz_dev_batch &b, uint64_t h0, uint64_t n, const hz_xparams &xp,
                       uint32_t cap, uint8_t *flags, cudaStream_t st)
{
    if (!n) return;
    unsigned blocks = (unsigned)((n + GW_BLOCK - 1) / GW_BLOCK);
    gate_warp_kernel<<<blocks, GW_BLOCK, 0, st>>>(R, Rlen, Q, Qlen, b, h0, n, xp, cap, flags);
}
