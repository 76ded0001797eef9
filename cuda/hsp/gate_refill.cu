/* gate_refill (CUDA) — the score gate with lane refill, and the tile's anchor list.
 *
 * The thread-per-anchor kernels (cuda/hsp/gate.cu) leave most lanes of a warp idle: a warp runs
 * as long as its longest scan, and on real anchors the longest of 32 left scans plus the
 * longest of 32 right scans is 2.2-2.5x the mean scan (64 columns on medium Zymoseptoria,
 * bench/results/refill-2026-12-02.md).  Here a warp takes runs of consecutive anchors (from
 * a counter, or one fixed run), and a lane that ends a side starts its next side or its next
 * anchor at once, so lanes stay busy until the runs are used up.  Left and right scans share
 * one code path (the left one reads its 16 bytes backwards), so lanes on different sides do
 * not split the warp either.
 *
 * The scans give the values of hz_xdrop_left_capped / hz_xdrop_right_capped (src/core/xdrop.h;
 * spec §4.2), 16 columns a step without a branch per column (cuda/hsp/scan16.cuh,
 * hz_xdrop_block16).  Device sequences carry HZ_DEV_PAD readable bytes before their first
 * and after their last byte, so the words of a side's last step exist.
 *
 * Anchors come from hz_cuda_expand: the tile's raw anchors (ar, aq) in raw order, one
 * coalesced pass, so that a refilling lane reads its anchor instead of searching its seed.
 * Every decision goes to flags (0, 1, 2 as hz_gate_cpu_capped); in list mode the survivors
 * are also appended to a list with their two side scores (order free: the batch dedup sorts
 * by a total key, spec §5.3), so materialization needs no compaction and scans each side only
 * up to its first maximum (hz_materialize_known).  Undecided anchors are compacted from the
 * flags: their long scans are far apart in length, and in raw order a warp's anchors are alike.
 */
#include "cuda_common.cuh"
#include "scan16.cuh"

#define RF_BLOCK 256u                 /* 8 warps */
#define RF_PER_WARP 256u              /* consecutive anchors a warp owns */

/* ---- the tile's anchors --------------------------------------------------------------- */
#define EX_BLOCK 256
#define EX_PER 8                              /* anchors per thread */
#define EX_SPAN (EX_BLOCK * EX_PER)           /* anchors per block */
#define EX_SEEDS 1024                         /* seeds of a block kept in shared memory */

/* last seed index s in [lo, hi) with off[s] <= h (off[lo] <= h) */
__device__ __forceinline__ uint32_t ex_search(const uint64_t *off, uint32_t lo, uint32_t hi, uint64_t h)
{
    while (hi - lo > 1) { uint32_t m = (lo + hi) >> 1; if (off[m] <= h) lo = m; else hi = m; }
    return lo;
}

/* A block writes EX_SPAN consecutive anchors: two global searches find its first and last
 * seed (the latency that bounds this kernel, so each block covers many anchors), their hit
 * offsets go to shared memory, and each anchor's seed is found there. */
__global__ void __launch_bounds__(EX_BLOCK)
expand_kernel(hz_dev_batch b, uint64_t h0, uint64_t n, hz_anchor *A)
{
    __shared__ uint64_t s_off[EX_SEEDS];
    __shared__ uint32_t s_lo, s_hi;
    uint64_t first = (uint64_t)blockIdx.x * EX_SPAN;
    uint64_t last = first + EX_SPAN - 1 < n ? first + EX_SPAN - 1 : n - 1;
    if (threadIdx.x == 0) s_lo = ex_search(b.off, 0, b.ns, b.base + h0 + first);
    if (threadIdx.x == 32) s_hi = ex_search(b.off, 0, b.ns, b.base + h0 + last);
    __syncthreads();
    uint32_t lo = s_lo, cnt = s_hi - lo + 1;
    int cached = cnt <= EX_SEEDS;
    if (cached)
        for (uint32_t k = threadIdx.x; k < cnt; k += EX_BLOCK) s_off[k] = b.off[lo + k];
    __syncthreads();
    for (uint32_t k = 0; k < EX_PER; k++) {
        uint64_t i = first + k * EX_BLOCK + threadIdx.x;
        if (i >= n) return;
        uint64_t h = b.base + h0 + i;
        uint32_t s = cached ? lo + ex_search(s_off, 0, cnt, h) : ex_search(b.off, lo, lo + cnt, h);
        hz_anchor an;
        an.ar = b.pos[b.bstart[s] + (h - b.off[s])] + b.W;
        an.aq = b.qpos[s] + b.W;
        A[i] = an;
    }
}

void hz_cuda_expand(const hz_dev_batch &b, uint64_t h0, uint64_t n, hz_anchor *A, cudaStream_t st)
{
    if (!n) return;
    expand_kernel<<<(unsigned)((n + EX_SPAN - 1) / EX_SPAN), EX_BLOCK, 0, st>>>(b, h0, n, A);
}

/* ---- the gate ------------------------------------------------------------------------- */
/* the lanes of mask (this lane among them) take consecutive slots: returns this lane's */
__device__ __forceinline__ uint32_t rf_append(uint32_t mask, uint32_t *counter)
{
    uint32_t lane = threadIdx.x & 31u, leader = __ffs(mask) - 1, base = 0;
    if (lane == leader) base = atomicAdd(counter, (uint32_t)__popc(mask));
    base = __shfl_sync(mask, base, leader);
    return base + (uint32_t)__popc(mask & ((1u << lane) - 1u));
}

enum { RF_IDLE = 0, RF_LEFT = 1, RF_RIGHT = 2, RF_OUT = 3 };

/* A lane whose anchor is decided takes the next one.  DYN 0: a warp gates the anchors
 * A[w0, w0 + RF_PER_WARP).  DYN 1: warps take runs of RF_GRAB anchors from the counter
 * *d_next (zero at launch) until none are left, so that a warp that met a run of long scans
 * (a repeat, a self-comparison's diagonal) does not hold the kernel up.  flags[i] gets every
 * decision; LIST 1 also appends the survivors to out. */
#define RF_GRAB 64u
template <int LIST, int FROZEN, int DYN>
__global__ void __launch_bounds__(RF_BLOCK)
refill_kernel(const uint8_t *__restrict__ R, uint32_t Rlen, const uint8_t *__restrict__ Q, uint32_t Qlen,
              const hz_anchor *__restrict__ A, uint32_t n, hz_xparams xp, uint32_t cap, uint8_t *flags,
              hz_survivor *out, uint32_t *d_count, uint32_t *d_next)
{
    __shared__ int32_t sub[64];
    if (threadIdx.x < 64) sub[threadIdx.x] = xp.sub[threadIdx.x];
    __syncthreads();
    const int32_t x = xp.xdrop;
    uint32_t next, w1;
    if (DYN) {
        next = w1 = 0;
    } else {
        next = (blockIdx.x * (RF_BLOCK / 32) + threadIdx.x / 32) * RF_PER_WARP;
        if (next >= n) return;                    /* whole warps leave together */
        w1 = next + RF_PER_WARP < n ? next + RF_PER_WARP : n;
    }
    uint32_t i = 0, ar = 0, aq = 0;
    int st = RF_IDLE;
    int32_t lsc = 0, rsc = 0;   /* the anchor's side scores (exact once its side ended) */
    rf_side s;
    for (;;) {
        int flag = -1;
        uint32_t need = __ballot_sync(RF_FULL, st == RF_IDLE);
        if (need) {
            uint32_t ni = rf_take<DYN>(need, n, RF_GRAB, d_next, next, w1);
            if (st == RF_IDLE) {
                i = ni;
                if (i < w1 && i < n) {
                    hz_anchor a = A[i];
                    ar = a.ar; aq = a.aq;
                    rf_setup(s, 1, R, Rlen, Q, Qlen, ar, aq, cap, x);
                    st = RF_LEFT;
                    lsc = rsc = 0;
                    if (!s.rem) { rf_setup(s, 0, R, Rlen, Q, Qlen, ar, aq, cap, x); st = RF_RIGHT; }
                    if (!s.rem) { flag = lsc >= xp.gate_min_total; st = RF_IDLE; }
                } else st = RF_OUT;
            }
            if (!__any_sync(RF_FULL, st != RF_OUT)) break;
        }
        if (st == RF_LEFT || st == RF_RIGHT) {
            int32_t v;
            if (rf_step<FROZEN>(s, st == RF_LEFT, sub, x, &v)) {
                if (st == RF_LEFT && v >= 0) {
                    lsc = v;
                    rf_setup(s, 0, R, Rlen, Q, Qlen, ar, aq, cap, x);
                    st = RF_RIGHT;
                    if (!s.rem) { flag = lsc >= xp.gate_min_total; st = RF_IDLE; }
                } else {
                    flag = v < 0 ? 2 : (int)(lsc + v >= xp.gate_min_total);
                    rsc = v;
                    st = RF_IDLE;
                }
            }
        }
        if (flag >= 0) flags[i] = (uint8_t)flag;
        if (LIST) {
            uint32_t ms = __ballot_sync(RF_FULL, flag == 1);
            hz_survivor a; a.ar = ar; a.aq = aq; a.lsc = lsc; a.rsc = rsc;
            if (flag == 1) out[rf_append(ms, d_count)] = a;
        }
    }
}

void hz_cuda_gate_refill(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen, const hz_anchor *A,
                         uint64_t n, const hz_xparams &xp, uint32_t cap, int frozen, int dyn, uint8_t *flags,
                         hz_survivor *out, uint32_t *d_count, uint32_t *d_next, cudaStream_t st)
{
    if (!n) return;
    uint64_t warps = dyn ? (n + 2 * RF_GRAB - 1) / (2 * RF_GRAB) : (n + RF_PER_WARP - 1) / RF_PER_WARP;
    unsigned blocks = (unsigned)((warps + RF_BLOCK / 32 - 1) / (RF_BLOCK / 32));
    if (dyn && blocks > 2048) blocks = 2048;   /* late blocks would find the runs taken */
    uint32_t m = (uint32_t)n;
#define RF_LAUNCH(L, F, D) refill_kernel<L, F, D><<<blocks, RF_BLOCK, 0, st>>>(R, Rlen, Q, Qlen, A, m, xp, cap, flags, out, d_count, d_next)
    if (dyn) {
        if (frozen) { if (out) RF_LAUNCH(1, 1, 1); else RF_LAUNCH(0, 1, 1); }
        else { if (out) RF_LAUNCH(1, 0, 1); else RF_LAUNCH(0, 0, 1); }
    } else {
        if (frozen) { if (out) RF_LAUNCH(1, 1, 0); else RF_LAUNCH(0, 1, 0); }
        else { if (out) RF_LAUNCH(1, 0, 0); else RF_LAUNCH(0, 0, 0); }
    }
#undef RF_LAUNCH
}
