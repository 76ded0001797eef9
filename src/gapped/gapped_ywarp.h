/* gapped_ywarp — the one-sided y-drop extension of spec §4 against an EMPTY accepted set, one
 * warp of 32 lanes per half (issue 35): the same cells, values, tie-breaks, region and run list
 * as hz_gapped_half (gapped_ydrop.c) with no alignments; tests/unit/test_gapped_dev.c checks
 * that half for half on random inputs.
 *
 * Written once for the device (cuda/gapped/ydrop.cu: lanes are threads, scans are shuffles) and
 * the host (the "emu" device and tests/unit/test_gapped_dev.c: a lane variable is an array of
 * 32 and a warp step a loop), so the host checks the arithmetic the GPU runs.
 *
 * A row is computed 32 columns at a time.  LASTZ's cell (§4.3) rewritten as a scan: with d the
 * cell's D, diag its diagonal and i the running I, the I leaving a cell is
 *   max(i - E, diag - O - E when d <= diag)      (when i > diag, diag - O - E < i - E)
 * so the I entering lane l is a max-plus prefix scan over the lanes before it, and the row's
 * best entering lane l a prefix maximum over the diagonal cells before it.  Both are exact up
 * to the first lane whose cell the y-drop prunes (§4.3); that cell is then applied as LASTZ does
 * (the left edge moves, or C = D = I = -inf) and the scan restarts after it.
 *
 * Memory (no arena per half): C and D live in a window of HZ_YW_W columns per warp (a band
 * wider than that: FULL, the CPU path computes the half); each row's traceback cells, behind a
 * 16-byte header (the previous row's header, the row's LY and RY for the region), come from a
 * pool shared by all warps in chunks (an exhausted pool: RETRY, the host runs the half again
 * after emptying it); the run list and region go to output buffers reserved at the end.  The
 * traceback limit (§4.7) counts cells exactly as hz_gapped_half does (TRUNC). */
#ifndef HZ_GAPPED_YWARP_H
#define HZ_GAPPED_YWARP_H
#include <stdint.h>
#include "gapped.h"

#define HZ_YW_W      8192               /* columns of the C/D window of a warp (a power of 2) */
#define HZ_YW_CHUNK  (1 << 20)          /* pool bytes a warp takes at a time */
#define HZ_YW_NONE   INT32_MIN          /* "no candidate" of the scans */
#ifdef __CUDACC__
#define HZ_G_HD __host__ __device__
#else
#define HZ_G_HD
#endif

/* one half: A(r) = A[st*r], B(c) = B[st*c] (spec §4.1), M rows, N columns; sub = 256 x 256 */
typedef struct {
    const uint8_t *A, *B; int32_t st; int64_t M, N;
    const int32_t *sub; int32_t O, E, Y; int64_t tb_cap;
} hz_y0in;

/* status, score, run-list length, rows explored, end cell (row, column) of a half */
typedef struct { int32_t status, score, nops, nrow; int64_t er, ec; } hz_y0res;

enum { HZ_Y0_OK = 0, HZ_Y0_FULL = 1, HZ_Y0_TRUNC = 2, HZ_YW_RETRY = 3 };
/* a traceback cell: where the value came from, and whether I / D extend through it (§4.6) */
enum { HZ_Y0_FROM_C = 0, HZ_Y0_FROM_I = 1, HZ_Y0_FROM_D = 2, HZ_Y0_EXT_I = 4, HZ_Y0_EXT_D = 8 };

/* the output buffers and pool shared by the warps of one launch; *_top are bump counters */
typedef struct {
    uint8_t *pool; int64_t pool_cap; unsigned long long *pool_top;
    uint32_t *ops; int64_t ops_cap; unsigned long long *ops_top;
    int32_t *rg; int64_t rg_cap; unsigned long long *rg_top;
} hz_ywmem;

/* a half's result: hz_y0res, and where its run list and region start in ops / rg */
typedef struct { hz_y0res r; int64_t op, rg; } hz_ywres;

/* a warp's own state across the halves it runs: its C/D window and pool chunk */
typedef struct { int32_t *C, *D; int64_t cur, end; } hz_ywwarp;

/* the row header in the pool; the row's cells follow it */
typedef struct { int64_t prev; int32_t ly, ry; } hz_ywrow;

#if defined(__CUDA_ARCH__)
/* one lane per thread */
#define YW_V(T) T
#define YW_(x) (x)
#define YW_LANES { const int l = (int)(threadIdx.x & 31);
#define YW_END }
#define YW_LANE0 if ((threadIdx.x & 31) == 0)
#define YW_SYNC __syncwarp()
#define YW_BALLOT(m, p) (m) = __ballot_sync(0xffffffffu, (p))
#define YW_BCAST(o, x, k) (o) = __shfl_sync(0xffffffffu, (x), (k))
#define YW_UP1(o, x) (o) = __shfl_up_sync(0xffffffffu, (x), 1)
static __device__ __forceinline__ int32_t yw_xmax(int32_t v)
{
    const int l = (int)(threadIdx.x & 31);
    int32_t x = v;
    for (int s = 1; s < 32; s <<= 1) { int32_t y = __shfl_up_sync(0xffffffffu, x, s); if (l >= s && y > x) x = y; }
    int32_t e = __shfl_up_sync(0xffffffffu, x, 1);
    return l ? e : HZ_YW_NONE;
}
#define YW_XMAX(o, v) (o) = yw_xmax(v)
static __device__ __forceinline__ unsigned long long yw_take(unsigned long long *top, unsigned long long n)
{
    unsigned long long a = 0;
    if ((threadIdx.x & 31) == 0) a = atomicAdd(top, n);
    return __shfl_sync(0xffffffffu, a, 0);
}
#define YW_FFS(m) (__ffs(m) - 1)
#define YW_HIGH(m) (31 - __clz(m))
#else
/* the host: a lane variable is an array, a warp step a loop over the lanes */
#define YW_V(T) T
#define YW_(x) (x[l])
#define YW_LANES for (int l = 0; l < 32; l++) {
#define YW_END }
#define YW_LANE0 if (1)
#define YW_SYNC ((void)0)
#define YW_BALLOT(m, p) do { (m) = 0; for (int l = 0; l < 32; l++) if (p[l]) (m) |= 1u << l; } while (0)
#define YW_BCAST(o, x, k) (o) = (x)[(k)]
#define YW_UP1(o, x) do { for (int l = 31; l > 0; l--) (o)[l] = (x)[l - 1]; (o)[0] = (x)[0]; } while (0)
#define YW_XMAX(o, v) do { int32_t m_ = HZ_YW_NONE; for (int l = 0; l < 32; l++) { (o)[l] = m_; if ((v)[l] > m_) m_ = (v)[l]; } } while (0)
static inline unsigned long long yw_take(unsigned long long *top, unsigned long long n)
{
    unsigned long long a = *top; *top += n; return a;
}
#define YW_FFS(m) (__builtin_ctz(m))
#define YW_HIGH(m) (31 - __builtin_clz(m))
#endif
/* declare a lane variable: one value per lane (host: [32]) */
#if defined(__CUDA_ARCH__)
#define YW_DECL(T, x) T x
#else
#define YW_DECL(T, x) T x[32]
#endif

#define YW_C(c) (W->C[(c) & (HZ_YW_W - 1)])
#define YW_D(c) (W->D[(c) & (HZ_YW_W - 1)])

/* a pool block of n bytes (16-aligned) for the warp; -1 when the pool is exhausted */
static inline HZ_G_HD int64_t hz_yw_alloc(hz_ywmem *m, hz_ywwarp *W, int64_t n)
{
    n = (n + 15) & ~(int64_t)15;
    if (W->cur + n > W->end) {
        int64_t take = n > HZ_YW_CHUNK ? n : HZ_YW_CHUNK;
        int64_t a = (int64_t)yw_take(m->pool_top, (unsigned long long)take);
        if (a + take > m->pool_cap) { W->cur = W->end = 0; return -1; }
        W->cur = a; W->end = a + take;
    }
    int64_t at = W->cur;
    W->cur += n;
    return at;
}

/* the GPU runs halves within these bounds (int32 arithmetic of the scans stays exact) */
static inline HZ_G_HD int hz_yw_ok(const hz_y0in *in)
{
    return in->E > 0 && in->E < (1 << 16) && in->O >= 0 && in->O < (1 << 23) && in->Y >= 0 && in->Y < (1 << 29);
}

/* one row's columns [LY, cend) of row r (spec §4.3), 32 at a time; cells: the row's traceback
 * cells (column c at cells[c - ly0]).  In: *i = -inf, *best, *kept = LY.  Out: *LY (moved by
 * pruned left-edge cells), *i leaving the last column, *best and *bc (the last cell reaching
 * it; *bup set then), *kept (the last cell not pruned) */
static inline HZ_G_HD void hz_yw_row(const hz_y0in *in, hz_ywwarp *W, uint8_t *cells, int64_t ly0, int64_t cend,
                                     const int32_t *srow, int64_t *LY, int32_t *ip, int32_t *bestp, int64_t *bcp,
                                     int *bup, int64_t *keptp)
{
    const int32_t E = in->E, gOE = in->O + E, Y = in->Y;
    const uint8_t *B = in->B; const int64_t st = in->st;
    int32_t i = *ip, best = *bestp, diagin = HZ_G_NEG_INF, carry = 0;
    int first = 1;
    for (int64_t c0 = ly0; c0 < cend; c0 += 32) {
        const int nv = cend - c0 < 32 ? (int)(cend - c0) : 32;
        YW_DECL(int32_t, d); YW_DECL(int32_t, oc); YW_DECL(int32_t, s); YW_DECL(int32_t, pc);
        YW_DECL(int32_t, diag); YW_DECL(int32_t, h); YW_DECL(int32_t, xm);
        YW_DECL(int32_t, v); YW_DECL(int32_t, dn); YW_DECL(int32_t, inx); YW_DECL(int32_t, cand);
        YW_DECL(int32_t, bb); YW_DECL(int, pr); YW_DECL(int, up); YW_DECL(int, dc); YW_DECL(uint8_t, lk);
        YW_LANES
            int64_t c = c0 + l;
            if (l < nv) { YW_(d) = YW_D(c); YW_(oc) = YW_C(c); YW_(s) = srow[B[st * c]]; }
            else { YW_(d) = HZ_G_NEG_INF; YW_(oc) = HZ_G_NEG_INF; YW_(s) = 0; }
        YW_END
        YW_UP1(pc, oc);
        YW_LANES
            /* the diagonal: the old C of the column before, plus this cell's score; the row's
             * first column has none */
            YW_(diag) = l ? YW_(pc) + YW_(s) : (first ? diagin : carry + YW_(s));
        YW_END
        int32_t lastoc; YW_BCAST(lastoc, oc, 31);
        int p0 = 0;
        int32_t is = i;
        for (;;) {
            YW_LANES
                int act = l >= p0 && l < nv;
                YW_(h) = act && YW_(d) <= YW_(diag) ? YW_(diag) - gOE + E * l : HZ_YW_NONE;
            YW_END
            YW_XMAX(xm, h);
            YW_LANES
                int act = l >= p0 && l < nv;
                int32_t a = is - E * (l - p0);
                int32_t g = YW_(xm) == HZ_YW_NONE ? HZ_YW_NONE : YW_(xm) - E * (l - 1);
                int32_t ii = g > a ? g : a;
                int32_t dd = YW_(d), dg = YW_(diag);
                if (dd > dg || ii > dg) {
                    YW_(dc) = 0;
                    if (dd >= ii) { YW_(v) = dd; YW_(lk) = HZ_Y0_FROM_D | HZ_Y0_EXT_I | HZ_Y0_EXT_D; }
                    else { YW_(v) = ii; YW_(lk) = HZ_Y0_FROM_I | HZ_Y0_EXT_I | HZ_Y0_EXT_D; }
                    YW_(dn) = dd - E; YW_(inx) = ii - E;
                } else {
                    int32_t op = dg - gOE;
                    uint8_t k = HZ_Y0_FROM_C;
                    YW_(dc) = 1; YW_(v) = dg;
                    if (op > dd - E) YW_(dn) = op; else { YW_(dn) = dd - E; k |= HZ_Y0_EXT_D; }
                    if (op > ii - E) YW_(inx) = op; else { YW_(inx) = ii - E; k |= HZ_Y0_EXT_I; }
                    YW_(lk) = k;
                }
                YW_(cand) = act && YW_(dc) ? YW_(v) : HZ_YW_NONE;
            YW_END
            YW_XMAX(xm, cand);
            YW_LANES
                int act = l >= p0 && l < nv;
                YW_(bb) = YW_(xm) > best ? YW_(xm) : best;
                YW_(pr) = act && YW_(v) < YW_(bb) - Y;
            YW_END
            unsigned pm; YW_BALLOT(pm, pr);
            const int p = pm ? YW_FFS(pm) : nv;
            YW_LANES
                int64_t c = c0 + l;
                YW_(up) = l >= p0 && l < p && YW_(dc) && YW_(v) >= YW_(bb);
                if (l >= p0 && l < p) { YW_C(c) = YW_(v); YW_D(c) = YW_(dn); cells[c - ly0] = YW_(lk); }
            YW_END
            unsigned um; YW_BALLOT(um, up);
            if (um) { int hl = YW_HIGH(um); YW_BCAST(best, v, hl); *bcp = c0 + hl; *bup = 1; }
            if (p > p0) *keptp = c0 + p - 1;
            if (p >= nv) { YW_BCAST(i, inx, nv - 1); break; }
            /* lane p is pruned (§4.3): the left edge moves past it, or it becomes -inf */
            int64_t cp = c0 + p;
            YW_SYNC;                     /* lane p read C/D of cp before lane 0 writes them */
            YW_LANE0 {
                cells[cp - ly0] = 0;
                if (cp != *LY) { YW_C(cp) = HZ_G_NEG_INF; YW_D(cp) = HZ_G_NEG_INF; }
            }
            if (cp == *LY) (*LY)++;
            is = HZ_G_NEG_INF;   /* a pruned cell leaves I at -inf (a left-edge one never saw another) */
            p0 = p + 1;
            if (p0 >= nv) { i = HZ_G_NEG_INF; break; }
        }
        YW_SYNC;
        first = 0; carry = lastoc;
    }
    *ip = i; *bestp = best;
}

/* hz_gapped_half of an empty set by one warp (spec §4.1-§4.6): res->r the score, end cell,
 * run list length ((count << 2) | op, traceback order) and rows explored,
 * res->op / res->rg where its run list and region went in m->ops / m->rg.  Status FULL (band
 * wider than the window, or outside hz_yw_ok), TRUNC (§4.7) or RETRY (pool or outputs full). */
static inline HZ_G_HD void hz_yw_half(const hz_y0in *in, hz_ywmem *m, hz_ywwarp *W, hz_ywres *res)
{
    const int64_t M = in->M, N = in->N;
    hz_y0res *R = &res->r;
    YW_SYNC;                             /* the warp's previous half may have left a store in flight */
    R->status = HZ_Y0_OK; R->score = 0; R->nops = 0; R->nrow = 0; R->er = R->ec = 0;
    res->op = res->rg = 0;
    if (M <= 0 || N <= 0) return;
    if (!hz_yw_ok(in)) { R->status = HZ_Y0_FULL; return; }
    const int32_t E = in->E, gOE = in->O + E, Y = in->Y;
    const int64_t tail = Y / E + 6;
    const uint8_t *A = in->A; const int64_t st = in->st;
    /* row 0: C = 0, then -O-E, -O-2E, ... while the previous value is >= -Y */
    int64_t K = 1;
    { int32_t vv = -gOE; while (K < N && vv >= -Y && K < HZ_YW_W) { K++; vv -= E; } }
    if (K + 2 > HZ_YW_W) { R->status = HZ_Y0_FULL; return; }
    int64_t h0 = hz_yw_alloc(m, W, 16 + K + 1);
    if (h0 < 0) { R->status = HZ_YW_RETRY; return; }
    {
        uint8_t *cells = m->pool + h0 + 16;
        YW_LANE0 { hz_ywrow *hd = (hz_ywrow *)(m->pool + h0); hd->prev = -1; hd->ly = 0; hd->ry = (int32_t)(K + 1); }
        for (int64_t b = 0; b <= K; b += 32) {
            YW_LANES
                int64_t c = b + l;
                if (c <= K) {
                    int32_t val = c ? -gOE - E * (int32_t)(c - 1) : 0;
                    YW_C(c) = val; YW_D(c) = val - gOE; cells[c] = c ? HZ_Y0_FROM_I : 0;
                }
            YW_END
        }
    }
    YW_SYNC;                             /* row 1 reads what other lanes wrote */
    int64_t used = K + 1, LY = 0, RY = K + 1, hprev = h0, br = 0, bc = 0, nrow = 0;
    int32_t best = 0;
    for (int64_t r = 1; r <= M; r++) {
        const int64_t lyr = LY, ryr = RY;
        nrow = r;
        if (RY < LY) RY = LY;
        int64_t need = RY - LY + tail;
        if (used + need >= in->tb_cap) { R->status = HZ_Y0_TRUNC; return; }
        if (RY - LY + 2 > HZ_YW_W) { R->status = HZ_Y0_FULL; return; }
        int64_t hr = hz_yw_alloc(m, W, 16 + need);
        if (hr < 0) { R->status = HZ_YW_RETRY; return; }
        uint8_t *cells = m->pool + hr + 16;
        YW_LANE0 { hz_ywrow *hd = (hz_ywrow *)(m->pool + hr); hd->prev = hprev; hd->ly = (int32_t)lyr; hd->ry = (int32_t)ryr; }
        hprev = hr;
        const int64_t ly0 = LY, cend = RY < N + 1 ? RY : N + 1;
        int32_t i = HZ_G_NEG_INF; int64_t kept = LY, bcn = 0; int bu = 0;
        hz_yw_row(in, W, cells, ly0, cend, in->sub + 256 * (int32_t)A[st * r], &LY, &i, &best, &bcn, &bu, &kept);
        if (bu) { br = r; bc = bcn; }
        used += cend - ly0;
        if (LY >= RY) { W->cur = hr + ((16 + (cend - ly0) + 15) & ~(int64_t)15); break; }
        if (RY > kept + 1) RY = kept + 1;
        else if (i >= best - Y && RY <= N) {
            /* the row runs on in I while it stays within Y of the best (§4.3) */
            int64_t n = ((int64_t)i - ((int64_t)best - Y)) / E + 1;
            if (n > N + 1 - RY) n = N + 1 - RY;
            if (RY + n - LY + 2 > HZ_YW_W || (RY + n) - ly0 > need) { R->status = HZ_Y0_FULL; return; }
            for (int64_t b = 0; b < n; b += 32) {
                YW_LANES
                    int64_t k = b + l;
                    if (k < n) {
                        int32_t val = i - E * (int32_t)k;
                        YW_C(RY + k) = val; YW_D(RY + k) = val - gOE; cells[RY + k - ly0] = HZ_Y0_FROM_I;
                    }
                YW_END
            }
            used += n; RY += n;
        }
        {   /* the row's pool block shrinks to the cells it wrote (the tail bound is rarely used) */
            int64_t wr = (RY > cend ? RY : cend) - ly0;
            W->cur = hr + ((16 + wr + 15) & ~(int64_t)15);
        }
        if (RY <= N) {
            YW_LANE0 { YW_C(RY) = HZ_G_NEG_INF; YW_D(RY) = HZ_G_NEG_INF; }
            RY++;
            if (RY - LY + 2 > HZ_YW_W) { R->status = HZ_Y0_FULL; return; }
        }
        YW_SYNC;
    }
    YW_SYNC;
    /* traceback (§4.6), lane 0: count the runs, reserve them and the region, write both */
    int32_t n = 0, nrg = (int32_t)(2 * (nrow / HZ_G_RGB + 1));
    for (int pass = 0; pass < 2; pass++) {
        int32_t k = 0;
        YW_LANE0 {
            int64_t r = br, c = bc, hc = hprev; int prev = 0; uint32_t last = 4;
            uint32_t *ops = pass ? m->ops + res->op : NULL;
            for (int64_t rr = nrow; rr > br; rr--) hc = ((const hz_ywrow *)(m->pool + hc))->prev;
            while (r >= 1 || c > 0) {
                const hz_ywrow *hd = (const hz_ywrow *)(m->pool + hc);
                uint8_t lk = m->pool[hc + 16 + (c - hd->ly)];
                int op = lk & 3;
                if (prev == HZ_Y0_FROM_I && (lk & HZ_Y0_EXT_I)) op = HZ_Y0_FROM_I;
                if (prev == HZ_Y0_FROM_D && (lk & HZ_Y0_EXT_D)) op = HZ_Y0_FROM_D;
                uint32_t o = op == HZ_Y0_FROM_I ? HZ_OP_INS : op == HZ_Y0_FROM_D ? HZ_OP_DEL : HZ_OP_SUB;
                if (op == HZ_Y0_FROM_I) c--; else { r--; hc = hd->prev; if (op != HZ_Y0_FROM_D) c--; }
                if (k && last == o) { if (ops) ops[k - 1] += 4; }
                else { if (ops) ops[k] = 4u | o; k++; last = o; }
                prev = op;
            }
        }
        if (pass) break;
#if defined(__CUDA_ARCH__)
        k = __shfl_sync(0xffffffffu, k, 0);
#endif
        n = k;
        unsigned long long ao = yw_take(m->ops_top, (unsigned long long)n);
        unsigned long long ag = yw_take(m->rg_top, (unsigned long long)nrg);
        if ((int64_t)ao + n > m->ops_cap || (int64_t)ag + nrg > m->rg_cap) { R->status = HZ_YW_RETRY; return; }
        res->op = (int64_t)ao; res->rg = (int64_t)ag;
    }
    /* the explored region per block of HZ_G_RGB rows (record_row): smallest LY, largest RY */
    YW_LANE0 {
        int32_t *g = m->rg + res->rg;
        int64_t hc = hprev;
        for (int64_t r = nrow; r >= 1; r--) {
            const hz_ywrow *hd = (const hz_ywrow *)(m->pool + hc);
            int32_t *e = g + 2 * (r / HZ_G_RGB);
            if (r == nrow || r % HZ_G_RGB == HZ_G_RGB - 1) { e[0] = hd->ly; e[1] = hd->ry; }
            else { if (hd->ly < e[0]) e[0] = hd->ly; if (hd->ry > e[1]) e[1] = hd->ry; }
            hc = hd->prev;
        }
    }
    YW_SYNC;
    R->er = br; R->ec = bc; R->nops = n; R->nrow = (int32_t)nrow; R->score = best;
}

#endif
