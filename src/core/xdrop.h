/* xdrop — the gap-free X-drop arithmetic shared by the CPU and CUDA backends.
 *
 * One implementation, compiled as host C and as CUDA device code (HZ_HD), so both backends
 * give the same bits (RULES.md "entropy arithmetic").  Build flags: -ffp-contract=off (host),
 * --fmad=false (device); the only fused operation is the explicit fma() of spec §4.5.
 *
 * Sequences are extension codes 0..7 (spec §2.2); sub is the 8x8 matrix flattened row-major,
 * sub[r*8+q] with r = target code, q = query code (spec §4.1).  An anchor (ar, aq) is the
 * position just past the seed window on both sequences, block-relative, 0-based (spec §3.4).
 */
#ifndef HZ_XDROP_H
#define HZ_XDROP_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <math.h>

#ifdef __CUDACC__
#define HZ_HD __host__ __device__ __forceinline__
#else
#define HZ_HD static inline
#endif

/* The float value of ln 4 promoted to double: KegAlign divides by logf(4.0f) (spec §4.5). */
#define HZ_LN4_FLOAT 1.38629436492919921875

/* One HSP in block-relative coordinates: columns rs..rs+len on the target and qs..qs+len on
 * the query (closed; len = extent = number of columns - 1), score after entropy (spec §4.5).
 * For minus-strand HSPs qs is in reverse-complement block coordinates. */
typedef struct {
    uint32_t rs, qs, len;
    int32_t score;
} hz_hsp;

/* Extension parameters, fixed for a run. */
typedef struct {
    int32_t sub[64];       /* row-major 8x8, row = target code */
    int32_t xdrop;         /* > 0 */
    int32_t hspthresh;     /* K > 0 */
    int32_t entropy;       /* 1 = entropy adjustment on (spec §4.5) */
    int32_t gate_min_total;/* least total whose keep test can pass (hz_gate_threshold) */
} hz_xparams;

/* Score-only right extension from column (ar, aq): best prefix score before the first drop
 * (strict '>' on both tests, first maximum wins; spec §4.2).  Returns >= 0. */
HZ_HD int32_t hz_xdrop_right_score(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                                   uint32_t ar, uint32_t aq, const int32_t *sub, int32_t xdrop)
{
    int32_t S = 0, best = 0;
    uint32_t n = Rlen - ar, nq = Qlen - aq;
    if (ar >= Rlen || aq >= Qlen) return 0;
    if (nq < n) n = nq;
    const uint8_t *r = R + ar, *q = Q + aq;
    for (uint32_t p = 0; p < n; p++) {
        S += sub[(r[p] << 3) | q[p]];
        if (S > best) best = S;
        else if (best - S > xdrop) break;
    }
    return best;
}

/* Score-only left extension: columns (ar-p, aq-p), p = 1, 2, ... (the seed is scored here). */
HZ_HD int32_t hz_xdrop_left_score(const uint8_t *R, const uint8_t *Q, uint32_t ar, uint32_t aq,
                                  const int32_t *sub, int32_t xdrop)
{
    int32_t S = 0, best = 0;
    uint32_t n = ar < aq ? ar : aq;
    const uint8_t *r = R + ar - 1, *q = Q + aq - 1;
    for (uint32_t p = 0; p < n; p++) {
        S += sub[(r[-(int64_t)p] << 3) | q[-(int64_t)p]];
        if (S > best) best = S;
        else if (best - S > xdrop) break;
    }
    return best;
}

/* Capped one-sided score scans for the gate: the side's best score, or -1 when cap columns
 * passed with no drop and no edge (the anchor then takes the diagonal path, extend.h). */
HZ_HD int32_t hz_xdrop_right_capped(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                                   uint32_t ar, uint32_t aq, const int32_t *sub, int32_t x, uint32_t cap)
{
    if (ar >= Rlen || aq >= Qlen) return 0;
    uint32_t n = Rlen - ar, nq = Qlen - aq;
    if (nq < n) n = nq;
    int longrun = n > cap;
    if (longrun) n = cap;
    int32_t S = 0, best = 0;
    const uint8_t *r = R + ar, *q = Q + aq;
    for (uint32_t p = 0; p < n; p++) {
        S += sub[(r[p] << 3) | q[p]];
        if (S > best) best = S;
        else if (best - S > x) return best;
    }
    return longrun ? -1 : best;
}

HZ_HD int32_t hz_xdrop_left_capped(const uint8_t *R, const uint8_t *Q, uint32_t ar, uint32_t aq,
                                  const int32_t *sub, int32_t x, uint32_t cap)
{
    uint32_t n = ar < aq ? ar : aq;
    int longrun = n > cap;
    if (longrun) n = cap;
    int32_t S = 0, best = 0;
    const uint8_t *r = R + ar - 1, *q = Q + aq - 1;
    for (uint32_t p = 0; p < n; p++) {
        S += sub[(r[-(int64_t)p] << 3) | q[-(int64_t)p]];
        if (S > best) best = S;
        else if (best - S > x) return best;
    }
    return longrun ? -1 : best;
}

/* Sixteen columns of the capped scans without a branch per column (the refill gate,
 * cuda/hsp/gate_refill.cu; spec §4.2).  v[0..16): the columns' matrix entries in scan order.
 * With F = best - x the scalar rule of hz_xdrop_right_capped,
 *     S += v; if (S > best) best = S; else if (best - S > x) stop (the side's score: best),
 * reads F' = max(F, S - x) and "stop when S < F'" (when S > best, F' = S - x and S < F' is
 * false; else F' = F).  The stop tests are ORed; what F does after the first stop must not
 * count.  frozen = 1 holds F from the first stop on.  frozen = 0 lets F run inside each half
 * of 8 columns and keeps the first half's F: after a stop S < best - x, and the at most 7
 * later columns of that half add at most 7 * max(v), so while 7 * max(v) <= x no later S
 * passes best and F cannot move.  Both need every partial sum to fit int32 (hz_xdrop_block16_fits).
 * Returns 1 with *F = F at the first stop (the side's score is *F + x), else 0 with *S and *F
 * after all 16 columns. */
HZ_HD int hz_xdrop_block16(const int32_t v[16], int frozen, int32_t x, int32_t *S, int32_t *F)
{
    int32_t s = *S, f = *F, f8 = 0;
    int d = 0, d8 = 0;
#ifdef __CUDACC__
#pragma unroll
#endif
    for (int k = 0; k < 16; k++) {
        s += v[k];
        int32_t fn = s - x > f ? s - x : f;
        d = d | (s < fn);
        f = frozen && d ? f : fn;
        if (k == 7) { d8 = d; f8 = f; }
    }
    if (d8) { *F = f8; return 1; }
    if (d) { *F = f; return 1; }
    *S = s; *F = f;
    return 0;
}

/* Which hz_xdrop_block16 variant is exact for xp's scores (spec §4.1, §9.1) with sides capped at
 * cap columns:
 * 0 (frozen = 0, when 7 * max entry <= xdrop) or 1; -1 when partial sums could leave int32
 * (a side's S lies in [-x, cap * max(entry, 0)] before its stop, a step adds at most 16
 * entries, and the gate adds two sides). */
HZ_HD int hz_xdrop_block16_fits(const hz_xparams *xp, uint32_t cap)
{
    int64_t mx = INT32_MIN, amax = 0;
    for (int k = 0; k < 64; k++) {
        int64_t v = xp->sub[k], a = v < 0 ? -v : v;
        if (v > mx) mx = v;
        if (a > amax) amax = a;
    }
    int64_t bound = 2 * (int64_t)cap * (mx > 0 ? mx : 0) + 2 * (int64_t)xp->xdrop + 17 * amax;
    if (bound >= INT32_MAX) return -1;
    return 7 * mx <= xp->xdrop ? 0 : 1;
}

/* Right extension with position: *ext = offset of the first maximum, -1 if nothing taken. */
HZ_HD int32_t hz_xdrop_right(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                             uint32_t ar, uint32_t aq, const int32_t *sub, int32_t xdrop, int32_t *ext)
{
    int32_t S = 0, best = 0, bp = -1;
    if (ar < Rlen && aq < Qlen) {
        uint32_t n = Rlen - ar, nq = Qlen - aq;
        if (nq < n) n = nq;
        for (uint32_t p = 0; p < n; p++) {
            S += sub[(R[ar + p] << 3) | Q[aq + p]];
            if (S > best) { best = S; bp = (int32_t)p; }
            else if (best - S > xdrop) break;
        }
    }
    *ext = bp;
    return best;
}

/* Left extension with position: *ext = offset p >= 0 of the first maximum (0: nothing). */
HZ_HD int32_t hz_xdrop_left(const uint8_t *R, const uint8_t *Q, uint32_t ar, uint32_t aq,
                            const int32_t *sub, int32_t xdrop, int32_t *ext)
{
    int32_t S = 0, best = 0, bp = 0;
    uint32_t n = ar < aq ? ar : aq;
    for (uint32_t p = 1; p <= n; p++) {
        S += sub[(R[ar - p] << 3) | Q[aq - p]];
        if (S > best) { best = S; bp = (int32_t)p; }
        else if (best - S > xdrop) break;
    }
    *ext = bp;
    return best;
}

/* Natural logarithm of a positive normal double, built only from IEEE +, -, *, / so that the
 * host and the device produce the same bits (RULES.md "entropy arithmetic").  Reduction
 * x = 2^k * m with m in [sqrt(2)/2, sqrt(2)), then log(m) = f - (h - s*(h + R)) with
 * f = m - 1, s = f/(2+f), h = f*f/2 and R the series of 2*atanh(s) - 2s.  Accuracy is within
 * about one ulp of the true value; the entropy keep test only needs ints (spec §4.5). */
HZ_HD double hz_log(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    int k = (int)((b >> 52) & 0x7ff) - 1023;
    b = (b & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
    double m;
    memcpy(&m, &b, sizeof m);
    if (m > 1.4142135623730951) { m = m * 0.5; k += 1; }
    double f = m - 1.0;
    double s = f / (2.0 + f);
    double z = s * s;
    /* 2/3, 2/5, ..., 2/25: the series of 2*atanh(s) after its first term, in powers of z */
    double R = z * (0.66666666666666666667 + z * (0.4 + z * (0.28571428571428571429 +
               z * (0.22222222222222222222 + z * (0.18181818181818181818 +
               z * (0.15384615384615384615 + z * (0.13333333333333333333 +
               z * (0.11764705882352941176 + z * (0.10526315789473684211 +
               z * (0.09523809523809523810 + z * (0.08695652173913043478 +
               z * 0.08)))))))))));
    double h = 0.5 * f * f;
    double lm = f - (h - s * (h + R));
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    double dk = (double)k;
    return (dk * ln2_hi) + (lm + dk * ln2_lo);
}

/* Entropy factor of spec §4.5 (v0.3.x counting, RULES.md "entropy counting"):
 * c[4] = identical A/C/G/T column counts inside the HSP, extent = len.  Returns 1.0 when the
 * adjustment does not apply (count sum < 20).  Sets *reject when a count exceeds 32767. */
HZ_HD double hz_entropy(const int32_t c[4], int32_t extent, int *reject)
{
    *reject = 0;
    for (int i = 0; i < 4; i++)
        if (c[i] > 32767) { *reject = 1; return 1.0; }
    if (c[0] + c[1] + c[2] + c[3] < 20) return 1.0;
    double n = (double)(extent + 1);
    double e = 0.0;
    for (int i = 0; i < 4; i++) {
        double a = (double)c[i] / n;
        double l = c[i] != 0 ? hz_log((double)c[i] / n) : 0.0;
        e = fma(a, l, e);
    }
    return -e / HZ_LN4_FLOAT;
}

/* Whether spec §4.5's entropy adjustment applies to a total score: entropy on and
 * K <= total <= 3K. */
HZ_HD int hz_entropy_applies(const hz_xparams *xp, int32_t total)
{
    return xp->entropy && total >= xp->hspthresh && (int64_t)total <= 3 * (int64_t)xp->hspthresh;
}

/* KegAlign's keep test and record (spec §4.2-4.5) from the identical A/C/G/T column counts
 * c[4] of the HSP's columns (RULES.md "entropy counting"; read only where
 * hz_entropy_applies): anchor (ar, aq), total score, left extent lext >= 0, right extent
 * rext >= -1.  Returns 1 and fills *out when the HSP is kept, else 0. */
HZ_HD int hz_keep_counted(uint32_t ar, uint32_t aq, int32_t total, int32_t lext, int32_t rext,
                          const int32_t c[4], const hz_xparams *xp, hz_hsp *out)
{
    int32_t extent = rext + lext;
    double ent = 1.0;
    int32_t K = xp->hspthresh;
    if (hz_entropy_applies(xp, total)) {
        int reject;
        ent = hz_entropy(c, extent, &reject);
        if (reject) return 0;
    }
    if ((int32_t)((double)(float)total * ent) < K) return 0;
    out->rs = ar - (uint32_t)lext;
    out->qs = aq - (uint32_t)lext;
    out->len = (uint32_t)extent;
    out->score = ent > 0 ? (int32_t)((double)total * ent) : 0;
    return 1;
}

/* KegAlign's keep test and record for an anchor (ar, aq) whose two one-sided extensions are
 * known: total score, left extent lext >= 0, right extent rext >= -1 (spec §4.2-4.5; counts
 * per RULES.md "entropy counting").  Returns 1 and fills *out when the HSP is kept, else 0. */
HZ_HD int hz_keep_hsp(const uint8_t *R, const uint8_t *Q, uint32_t ar, uint32_t aq, int32_t total,
                      int32_t lext, int32_t rext, const hz_xparams *xp, hz_hsp *out)
{
    int32_t c[4] = {0, 0, 0, 0};
    if (hz_entropy_applies(xp, total)) {
        int32_t extent = rext + lext;
        uint32_t r0 = ar - (uint32_t)lext, q0 = aq - (uint32_t)lext;
        for (int32_t p = 0; p <= extent; p++) {
            uint8_t a = R[r0 + p];
            if (a < 4 && a == Q[q0 + p]) c[a]++;
        }
    }
    return hz_keep_counted(ar, aq, total, lext, rext, c, xp, out);
}

/* Full extension of one anchor into an HSP with KegAlign's keep test (spec §4.2-4.5).
 * Returns 1 and fills *out when the HSP is kept, else 0. */
HZ_HD int hz_materialize(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                         uint32_t ar, uint32_t aq, const hz_xparams *xp, hz_hsp *out)
{
    int32_t rext, lext;
    int32_t rs = hz_xdrop_right(R, Rlen, Q, Qlen, ar, aq, xp->sub, xp->xdrop, &rext);
    int32_t ls = hz_xdrop_left(R, Q, ar, aq, xp->sub, xp->xdrop, &lext);
    return hz_keep_hsp(R, Q, ar, aq, rs + ls, lext, rext, xp, out);
}

/* The walk of hz_xdrop_right_at and hz_xdrop_left_at below: columns r[k * step], q[k * step]
 * for k = 0 .. n-1 (step +1 or -1); returns the first k whose running score equals best (> 0),
 * or INT32_MIN when the running score passes best or stops (X-drop, n columns) first; cnt as
 * there. */
HZ_HD int32_t hz_xdrop_walk_at(const uint8_t *r, const uint8_t *q, int step, uint32_t n, const int32_t *sub,
                               int32_t xdrop, int32_t best, uint64_t *cnt)
{
    int32_t S = 0, m = 0;
    uint64_t c0 = 0, c1 = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t a = r[(ptrdiff_t)k * step], b = q[(ptrdiff_t)k * step];
        uint64_t one = (uint64_t)(a < 4 && a == b) << ((a & 1) * 32);
        if (a & 2) c1 += one; else c0 += one;
        S += sub[(a << 3) | b];
        if (S >= best) {
            if (S != best) return INT32_MIN;
            if (cnt) { cnt[0] += c0; cnt[1] += c1; }
            return (int32_t)k;
        }
        if (S > m) m = S;
        else if (m - S > xdrop) break;
    }
    return INT32_MIN;
}

/* A side's first maximum when its score is known (spec §4.2): the *ext of hz_xdrop_right /
 * hz_xdrop_left from a scan that stops at the first column reaching best, instead of running
 * on to the X-drop stop.  Those scans raise their maximum for the last time exactly where the
 * running score first equals it, so the extents agree whenever best is the side's score (the
 * gate's side score of a scan that ended within its cap).  Returns the extent (right: -1 for
 * best 0; left: 0 for best 0), or INT32_MIN when the scan passes best or stops (X-drop, edge)
 * before reaching it: best was not the side's score.  A best below the side's score that some
 * column reaches is not detected.  When cnt is given, cnt[0] += the identical A and C columns
 * the side takes (A in the low, C in the high 32 bits), cnt[1] the same for G and T: the
 * columns RULES.md "entropy counting" counts, the two sides together making the HSP's. */
HZ_HD int32_t hz_xdrop_right_at(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                                uint32_t ar, uint32_t aq, const int32_t *sub, int32_t xdrop, int32_t best,
                                uint64_t *cnt)
{
    if (best <= 0) return best == 0 ? -1 : INT32_MIN;
    if (ar >= Rlen || aq >= Qlen) return INT32_MIN;
    uint32_t n = Rlen - ar, nq = Qlen - aq;
    return hz_xdrop_walk_at(R + ar, Q + aq, 1, nq < n ? nq : n, sub, xdrop, best, cnt);
}

HZ_HD int32_t hz_xdrop_left_at(const uint8_t *R, const uint8_t *Q, uint32_t ar, uint32_t aq,
                               const int32_t *sub, int32_t xdrop, int32_t best, uint64_t *cnt)
{
    if (best <= 0) return best == 0 ? 0 : INT32_MIN;
    if (!ar || !aq) return INT32_MIN;   /* no column to the left */
    int32_t k = hz_xdrop_walk_at(R + ar - 1, Q + aq - 1, -1, ar < aq ? ar : aq, sub, xdrop, best, cnt);
    return k == INT32_MIN ? k : k + 1;   /* the left side's offsets count from 1 */
}

/* hz_materialize for an anchor whose side scores lsc (left) and rsc (right) are known, e.g.
 * from the gate: the same result from one pass over the HSP's columns, each side scanned only
 * up to its first maximum (hz_xdrop_*_at) and counted on the way when the entropy test
 * applies.  Scores found wrong there fall back to hz_materialize. */
HZ_HD int hz_materialize_known(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                               uint32_t ar, uint32_t aq, int32_t lsc, int32_t rsc, const hz_xparams *xp, hz_hsp *out)
{
    uint64_t cnt[2] = {0, 0};
    int counted = hz_entropy_applies(xp, lsc + rsc);
    int32_t lext = hz_xdrop_left_at(R, Q, ar, aq, xp->sub, xp->xdrop, lsc, counted ? cnt : NULL);
    int32_t rext = hz_xdrop_right_at(R, Rlen, Q, Qlen, ar, aq, xp->sub, xp->xdrop, rsc, counted ? cnt : NULL);
    if (lext == INT32_MIN || rext == INT32_MIN) return hz_materialize(R, Rlen, Q, Qlen, ar, aq, xp, out);
    int32_t c[4] = { (int32_t)(uint32_t)cnt[0], (int32_t)(cnt[0] >> 32), (int32_t)(uint32_t)cnt[1], (int32_t)(cnt[1] >> 32) };
    return hz_keep_counted(ar, aq, lsc + rsc, lext, rext, c, xp, out);
}

/* The least total t for which the keep test can pass: (int)(double)(float)t >= K.  Since the
 * entropy factor is < 1 whenever it applies, total >= this value is necessary for keeping;
 * the score gate rejects every anchor below it (spec §4.5 last paragraph). */
HZ_HD int32_t hz_gate_threshold(int32_t K)
{
    int32_t t = K;
    while ((int32_t)(double)(float)t < K) t++;
    return t;
}

#endif
