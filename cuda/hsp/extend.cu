/* extend (CUDA) — materialization of gate survivors: X-drop extension + entropy, one thread
 * per survivor (the refill gate's list: one lane per survivor, refilled), with the arithmetic
 * shared with the CPU (src/core/xdrop.h hz_materialize, built with --fmad=false so every operation
 * rounds as on the host).
 *
 * The survivor count stays on the device (the kernels loop over *d_n with a fixed grid), so
 * a tile needs no host round trip between gate, compaction and materialization.  Kept HSPs
 * are appended in any order: the per-batch dedup sorts them by a total key (src/hsp/dedup.c).
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

/* ---- the refill gate's survivors, with lane refill ----------------------------------------
 * Each side is walked only up to its first maximum, since the gate already gave its score
 * (src/core/xdrop.h hz_materialize_known: the same HSPs as hz_materialize), 16 columns a step, and
 * a lane whose survivor is done takes the next one at once: a survivor's sides run from 1 to
 * the gate's cap of columns, and with one thread per survivor a warp waits for its longest
 * (flood: 7.5-7.7 -> 6.9-7.1 event-s, bench/results/survivors-2026-12-03.md). */
#define MR_BLOCK 256u
#define MR_GRAB 64u               /* survivors a warp takes from the counter at a time */

/* One side's walk to its known first maximum (hz_xdrop_walk_at): rp, qp as in rf_side (the
 * step's first byte, or on the left the byte after its last); k columns walked so far. */
struct mr_walk {
    const uint8_t *rp, *qp;
    uint32_t rem;                 /* columns left before an edge */
    int32_t S, m, best, k;
};

/* Adds to c[0..3] the identical A, C, G, T columns among the 4 of w (bytes (r << 5) | (q << 2),
 * column j in byte j) whose bit 7 is set in lim: RULES.md "entropy counting". */
__device__ __forceinline__ void mr_count(uint32_t w, uint32_t lim, uint32_t *c)
{
    /* a byte of t is 0 iff q == r (bits 2-4 against r moved there) and r < 4 (bit 7 clear) */
    uint32_t t = (((w >> 3) ^ w) & 0x1C1C1C1Cu) | (w & 0x80808080u);
    uint32_t ok = ~(((t & 0x7F7F7F7Fu) + 0x7F7F7F7Fu) | t) & lim;
    uint32_t b0 = (w << 2) & 0x80808080u, b1 = (w << 1) & 0x80808080u;   /* r's bits 0 and 1 */
    c[0] += __popc(ok & ~(b0 | b1));
    c[1] += __popc(ok & b0 & ~b1);
    c[2] += __popc(ok & ~b0 & b1);
    c[3] += __popc(ok & b0 & b1);
}

/* Sets up side `left` of survivor a: 0 with the walk ready, 1 with *ext when the side takes
 * no column (best 0), -1 when best cannot be the side's score (hz_xdrop_{left,right}_at). */
__device__ __forceinline__ int mr_setup(mr_walk &s, int left, const uint8_t *R, uint32_t Rlen, const uint8_t *Q,
                                        uint32_t Qlen, const hz_survivor &a, int32_t *ext)
{
    int32_t best = left ? a.lsc : a.rsc;
    if (best <= 0) { *ext = left ? 0 : -1; return best == 0 ? 1 : -1; }
    uint32_t n;
    if (left) {
        if (!a.ar || !a.aq) return -1;
        n = a.ar < a.aq ? a.ar : a.aq;
    } else {
        if (a.ar >= Rlen || a.aq >= Qlen) return -1;
        n = Rlen - a.ar; uint32_t nq = Qlen - a.aq; if (nq < n) n = nq;
    }
    s.rp = R + a.ar; s.qp = Q + a.aq; s.rem = n;
    s.S = 0; s.m = 0; s.best = best; s.k = 0;
    return 0;
}

/* One step of a side (s.rem >= 1): 0 to go on, 1 with *ext when the running score reached
 * best (the columns up to it counted into c when count), -1 when it passed best or stopped
 * first (X-drop, edge). */
__device__ __forceinline__ int mr_step(mr_walk &s, int left, const int32_t *sub, int32_t x, int count, uint32_t *c,
                                       int32_t *ext)
{
    uint32_t w[4];
    rf_words16(s.rp, s.qp, left, w);
    int32_t S = s.S, m = s.m, best = s.best;
    uint32_t cols = s.rem < RF_COLS ? s.rem : RF_COLS;
    int res = 0;
    uint32_t jend = cols - 1;   /* the last column taken (counted) */
    if (cols < RF_COLS) {       /* the side's last columns before an edge */
        res = -1;
        for (uint32_t j = 0; j < cols; j++) {
            S += rf_sub(sub, w[j >> 2], (int)j);
            if (S >= best) { res = S == best ? 1 : -1; jend = j; break; }
            m = max(m, S);
            if (m - S > x) break;
        }
    } else {
        int done = 0;
#pragma unroll
        for (int j = 0; j < 16; j++) {
            S += rf_sub(sub, w[j >> 2], j);
            int hit = !done & (S >= best);
            res = hit ? (S == best ? 1 : -1) : res;
            jend = hit ? (uint32_t)j : jend;
            done |= hit;
            m = max(m, S);
            int drop = !done & (m - S > x);
            res = drop ? -1 : res;
            done |= drop;
        }
        if (!done && s.rem == RF_COLS) res = -1;   /* the edge, best not reached */
    }
    if (res < 0) return -1;
    if (count) {
#pragma unroll
        for (int k = 0; k < 4; k++) {
            int32_t last = (int32_t)jend - 4 * k;   /* the word's last counted byte */
            uint32_t lim = last >= 3 ? 0x80808080u : last < 0 ? 0u : 0x80808080u & (uint32_t)((2ull << (8 * last + 7)) - 1);
            mr_count(w[k], lim, c);
        }
    }
    if (res > 0) { *ext = s.k + (int32_t)jend + (left ? 1 : 0); return 1; }
    s.S = S; s.m = m; s.k += RF_COLS; s.rem -= RF_COLS;
    if (left) { s.rp -= RF_COLS; s.qp -= RF_COLS; } else { s.rp += RF_COLS; s.qp += RF_COLS; }
    return 0;
}

enum { MR_IDLE = 0, MR_LEFT = 1, MR_RIGHT = 2, MR_DONE = 3, MR_OUT = 4 };

/* Warps take runs of MR_GRAB survivors from *d_next (zero at launch) until *d_n are taken;
 * a lane walks its survivor's left side, then its right side, then applies the keep test. */
__global__ void __launch_bounds__(MR_BLOCK)
survivors_refill_kernel(const uint8_t *__restrict__ R, uint32_t Rlen, const uint8_t *__restrict__ Q, uint32_t Qlen,
                        const hz_survivor *__restrict__ L, const uint32_t *d_n, hz_xparams xp, hz_hsp *out,
                        uint32_t *d_kept, uint32_t *d_next)
{
    __shared__ hz_xparams sx;
    if (threadIdx.x == 0) sx = xp;
    __syncthreads();
    const uint32_t n = *d_n;
    const int32_t x = sx.xdrop;
    uint32_t next = 0, w1 = 0, c[4] = {0, 0, 0, 0};
    int st = MR_IDLE, count = 0, fail = 0;
    int32_t lext = 0, rext = 0;
    hz_survivor a = {0, 0, 0, 0};
    mr_walk s;
    for (;;) {
        uint32_t need = __ballot_sync(RF_FULL, st == MR_IDLE);
        if (need) {   /* the idle lanes take the next survivors in lane order */
            uint32_t ni = rf_take<1>(need, n, MR_GRAB, d_next, next, w1);
            if (st == MR_IDLE) {
                if (ni < w1 && ni < n) {
                    a = L[ni];
                    count = hz_entropy_applies(&sx, a.lsc + a.rsc);
                    c[0] = c[1] = c[2] = c[3] = 0;
                    fail = 0;
                    int e = mr_setup(s, 1, R, Rlen, Q, Qlen, a, &lext);
                    st = MR_LEFT;
                    if (e) {
                        fail = e < 0;
                        e = fail ? 1 : mr_setup(s, 0, R, Rlen, Q, Qlen, a, &rext);
                        st = e ? MR_DONE : MR_RIGHT;
                        fail |= e < 0;
                    }
                } else st = MR_OUT;
            }
            if (!__any_sync(RF_FULL, st != MR_OUT)) break;
        }
        if (st == MR_LEFT || st == MR_RIGHT) {
            int left = st == MR_LEFT;
            int e = mr_step(s, left, sx.sub, x, count, c, left ? &lext : &rext);
            if (e < 0) { fail = 1; st = MR_DONE; }
            else if (e > 0 && left) {
                e = mr_setup(s, 0, R, Rlen, Q, Qlen, a, &rext);
                fail = e < 0;
                st = e ? MR_DONE : MR_RIGHT;
            } else if (e > 0) st = MR_DONE;
        }
        if (st == MR_DONE) {
            hz_hsp h;
            int kept;
            if (fail)   /* scores that are not the sides' (never from the gate): the full extension */
                kept = hz_materialize(R, Rlen, Q, Qlen, a.ar, a.aq, &sx, &h);
            else {
                int32_t cc[4] = { (int32_t)c[0], (int32_t)c[1], (int32_t)c[2], (int32_t)c[3] };
                kept = hz_keep_counted(a.ar, a.aq, a.lsc + a.rsc, lext, rext, cc, &sx, &h);
            }
            if (kept) out[atomicAdd(d_kept, 1u)] = h;
            st = MR_IDLE;
        }
    }
}

void hz_cuda_materialize_survivors(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                                   const hz_survivor *L, const uint32_t *d_n, uint32_t nmax,
                                   const hz_xparams &xp, hz_hsp *out, uint32_t *d_kept, uint32_t *d_next,
                                   cudaStream_t st)
{
    if (!nmax) return;
    uint64_t warps = (nmax + 2 * MR_GRAB - 1) / (2 * MR_GRAB);
    uint64_t blocks = (warps + MR_BLOCK / 32 - 1) / (MR_BLOCK / 32);
    if (blocks > 2048) blocks = 2048;   /* late blocks would find the runs taken */
    survivors_refill_kernel<<<(unsigned)blocks, MR_BLOCK, 0, st>>>(R, Rlen, Q, Qlen, L, d_n, xp, out, d_kept, d_next);
}

/* Anchors past the gate's work cap (flag 2): exact capped scans with the larger cap2; when
 * both sides end (drop or edge) within cap2 the scores are the uncapped ones, so the gate
 * threshold and hz_materialize decide here exactly as the host's diagonal path would
 * (src/hsp/chunk.c hz_extend_long); the rest go to the host. */
/* FROZEN -1: the scalar scans of src/core/xdrop.h; 0 or 1: the same values from cuda/hsp/scan16.cuh
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
