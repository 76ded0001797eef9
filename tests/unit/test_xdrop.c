/* Unit tests for src/core/xdrop.h, src/hsp/gate.c and src/hsp/extend.c: one-sided X-drop extensions, the
 * keep test with entropy, hz_log, the gate threshold, the score gate (plain and capped), the
 * stable compaction and the diagonal path hz_extend_diagonals.
 *
 * Expected values are worked out by hand from kegalign-hsp-spec.md §4.2-4.5 and RULES.md
 * ("entropy counting", "entropy arithmetic"), or produced by a sequential model written here
 * from the spec text (ref_side / ref_materialize), never by the code under test.  Prints
 * "ok N - ..." / "not ok N - ..." lines and a summary; exits non-zero on any failure. */
#include "xdrop.h"
#include "gate.h"
#include "extend.h"
#include "xdrop_diag.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define HZ_TEST_SEED 0x2545F4914F6CDD1DULL
#include "tap.h"


static double rnd01(void) { return (double)(rnd() >> 11) * (1.0 / 9007199254740992.0); }

/* spec §9.1 default matrix (HOXD70, xdrop 910), rows = target code */
static const int32_t HOXD[64] = {
      91,  -114,   -31,  -123, -1000, -1000,  -100, -9100,
    -114,   100,  -125,   -31, -1000, -1000,  -100, -9100,
     -31,  -125,   100,  -114, -1000, -1000,  -100, -9100,
    -123,   -31,  -114,    91, -1000, -1000,  -100, -9100,
   -1000, -1000, -1000, -1000, -1000, -1000, -1000, -9100,
   -1000, -1000, -1000, -1000, -1000, -1000, -1000, -9100,
    -100,  -100,  -100,  -100, -1000, -1000,  -100, -9100,
   -9100, -9100, -9100, -9100, -9100, -9100, -9100, -9100,
};

/* ---- sequential model of spec §4.2 ---------------------------------------------------- */

typedef struct {
    int32_t best, bp;     /* score and offset of the first maximum (right: -1 none, left: 0 none) */
    int64_t stop;         /* offset (0-based column index of the scan) where the drop fired, -1: edge */
    int64_t avail;        /* columns available before the edge */
} side_t;

static side_t ref_right(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                        uint32_t ar, uint32_t aq, const int32_t *sub, int32_t X)
{
    side_t s = {0, -1, -1, 0};
    int64_t S = 0;
    int64_t na = (int64_t)Rlen - ar, nq = (int64_t)Qlen - aq;
    s.avail = na < nq ? na : nq;
    if (s.avail < 0) s.avail = 0;
    for (int64_t p = 0;; p++) {
        if ((int64_t)ar + p >= Rlen || (int64_t)aq + p >= Qlen) break;
        S += sub[R[ar + p] * 8 + Q[aq + p]];
        if (S > s.best) { s.best = (int32_t)S; s.bp = (int32_t)p; }
        if (s.best - S > X) { s.stop = p; break; }
    }
    return s;
}

static side_t ref_left(const uint8_t *R, const uint8_t *Q, uint32_t ar, uint32_t aq,
                       const int32_t *sub, int32_t X)
{
    side_t s = {0, 0, -1, 0};
    int64_t S = 0;
    s.avail = ar < aq ? ar : aq;
    for (int64_t p = 1;; p++) {
        if (p > ar || p > aq) break;
        S += sub[R[ar - p] * 8 + Q[aq - p]];
        if (S > s.best) { s.best = (int32_t)S; s.bp = (int32_t)p; }
        if (s.best - S > X) { s.stop = p - 1; break; }   /* scan index p-1 */
    }
    return s;
}

/* spec §4.3-4.5 with the 0.3.x counting rule; libm log, fma, float ln 4 */
static int ref_materialize(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                           uint32_t ar, uint32_t aq, const int32_t *sub, int32_t X, int32_t K,
                           int entropy, hz_hsp *out)
{
    side_t r = ref_right(R, Rlen, Q, Qlen, ar, aq, sub, X), l = ref_left(R, Q, ar, aq, sub, X);
    int32_t total = r.best + l.best, extent = r.bp + l.bp;
    double ent = 1.0;
    if (entropy && total >= K && (int64_t)total <= 3 * (int64_t)K) {
        int c[4] = {0, 0, 0, 0};
        for (int32_t p = 0; p <= extent; p++) {
            uint8_t a = R[ar - l.bp + p], b = Q[aq - l.bp + p];
            if (a == b && a < 4) c[a]++;
        }
        for (int i = 0; i < 4; i++) if (c[i] > 32767) return 0;
        if (c[0] + c[1] + c[2] + c[3] >= 20) {
            double n = (double)(extent + 1), e = 0.0;
            for (int i = 0; i < 4; i++) {
                double a = (double)c[i] / n;
                double lg = c[i] ? log((double)c[i] / n) : 0.0;
                e = fma(a, lg, e);
            }
            ent = -e / 1.38629436492919921875;
        }
    }
    if ((int32_t)((double)(float)total * ent) < K) return 0;
    out->rs = ar - (uint32_t)l.bp;
    out->qs = aq - (uint32_t)l.bp;
    out->len = (uint32_t)extent;
    out->score = ent > 0 ? (int32_t)((double)total * ent) : 0;
    return 1;
}

/* ---- hand-made one-sided cases ---------------------------------------------------------- */

/* Palette matrix: target row 0 only; the query code selects the column score. */
static int32_t PAL[64];
static void init_palette(void)
{
    static const int32_t row0[8] = {10, -10, -21, -20, 5, -1, -100, -1000};
    for (int i = 0; i < 64; i++) PAL[i] = -1000;
    for (int q = 0; q < 8; q++) PAL[q] = row0[q];
}

static void right_case(const char *what, const uint8_t *Q, uint32_t Qlen, uint32_t Rlen, uint32_t ar, uint32_t aq,
                       int32_t X, int32_t want_score, int32_t want_ext)
{
    static const uint8_t R0[64] = {0};
    int32_t ext = 12345;
    int32_t sc = hz_xdrop_right(R0, Rlen, Q, Qlen, ar, aq, PAL, X, &ext);
    int32_t so = hz_xdrop_right_score(R0, Rlen, Q, Qlen, ar, aq, PAL, X);
    check(sc == want_score && ext == want_ext && so == want_score,
          "right %s: score %d ext %d (got %d %d, score-only %d)", what, want_score, want_ext, sc, ext, so);
}

static void left_case(const char *what, const uint8_t *Q, uint32_t ar, uint32_t aq,
                      int32_t X, int32_t want_score, int32_t want_ext)
{
    static const uint8_t R0[64] = {0};
    int32_t ext = 12345;
    int32_t sc = hz_xdrop_left(R0, Q, ar, aq, PAL, X, &ext);
    int32_t so = hz_xdrop_left_score(R0, Q, ar, aq, PAL, X);
    check(sc == want_score && ext == want_ext && so == want_score,
          "left %s: score %d ext %d (got %d %d, score-only %d)", what, want_score, want_ext, sc, ext, so);
}

static void test_one_sided(void)
{
    init_palette();
    /* codes: 0:+10 1:-10 2:-21 3:-20 4:+5 5:-1 6:-100 7:-1000 */
    static const uint8_t Q5[5] = {0, 0, 0, 0, 0};
    right_case("anchor at target end (ar = Rlen)", Q5, 5, 5, 5, 2, 20, 0, -1);
    right_case("anchor at query end (aq = Qlen)", Q5, 5, 5, 2, 5, 20, 0, -1);
    right_case("all +10 to the edge", Q5, 5, 5, 0, 0, 20, 50, 4);
    right_case("edge = the shorter side (Rlen 3)", Q5, 5, 3, 0, 0, 20, 30, 2);
    right_case("edge = the shorter side (Qlen-aq 2)", Q5, 5, 10, 0, 3, 20, 20, 1);
    static const uint8_t Qt[4] = {0, 0, 1, 0};        /* 10 20 10 20 */
    right_case("tie: first maximum wins", Qt, 4, 4, 0, 0, 20, 20, 1);
    static const uint8_t Qx[7] = {0, 0, 1, 1, 0, 0, 0}; /* 10 20 10 0 10 20 30: drop of exactly 20 */
    right_case("drop exactly X (20) does not stop", Qx, 7, 7, 0, 0, 20, 30, 6);
    right_case("drop X+1 (X = 19) stops", Qx, 7, 7, 0, 0, 19, 20, 1);
    static const uint8_t Qy[6] = {0, 0, 2, 0, 0, 0};    /* 10 20 -1 ...: drop 21 */
    right_case("drop of 21 with X 20 stops", Qy, 6, 6, 0, 0, 20, 20, 1);
    right_case("drop of 21 with X 21 continues", Qy, 6, 6, 0, 0, 21, 29, 5);
    static const uint8_t Qz[6] = {0, 0, 3, 0, 0, 0};    /* 10 20 0 10 20 30 */
    right_case("drop of exactly 20 in one column, X 20", Qz, 6, 6, 0, 0, 20, 30, 5);
    static const uint8_t Qn[2] = {1, 0};                /* -10 0: never above 0 */
    right_case("nothing taken: ext -1 even when the prefix returns to 0", Qn, 2, 2, 0, 0, 20, 0, -1);
    static const uint8_t Qs[8] = {0, 7, 0, 0, 0, 0, 0, 0};  /* separator-like -1000 */
    right_case("-1000 column stops", Qs, 8, 8, 0, 0, 910, 10, 0);
    static const uint8_t Qw[6] = {4, 5, 4, 5, 4, 0};    /* 5 4 9 8 13 23 */
    right_case("first max before later rises", Qw, 6, 6, 0, 0, 20, 23, 5);
    static const uint8_t Qd[10] = {6, 6, 0, 0, 0, 0, 0, 0, 0, 0}; /* -100 ... drop at p=0 with X 99 */
    right_case("drop at the first column", Qd, 10, 10, 0, 0, 99, 0, -1);

    /* left: columns (ar-p, aq-p), p = 1.. */
    left_case("anchor at 0 (ar = 0)", Q5, 0, 3, 20, 0, 0);
    left_case("anchor at 0 (aq = 0)", Q5, 3, 0, 20, 0, 0);
    left_case("three +10 to the edge, seed columns included", Q5, 3, 3, 20, 30, 3);
    left_case("edge = the smaller of ar, aq", Q5, 4, 2, 20, 20, 2);
    static const uint8_t Lt[3] = {0, 1, 0};             /* p1 +10, p2 -10, p3 +10: 10 0 10 */
    left_case("tie: first maximum (smallest p) wins", Lt, 3, 3, 20, 10, 1);
    static const uint8_t Lx[6] = {0, 0, 0, 3, 0, 0};    /* p: 10 20 0 10 20 30 */
    left_case("drop exactly X does not stop", Lx, 6, 6, 20, 30, 6);
    static const uint8_t Ly[6] = {0, 0, 0, 2, 0, 0};    /* p: 10 20 -1 -> stop */
    left_case("drop X+1 stops", Ly, 6, 6, 20, 20, 2);
    left_case("drop X+1 with X 21 continues", Ly, 6, 6, 21, 29, 6);
    static const uint8_t Ln[2] = {0, 1};                /* p1 -10, p2 +10 -> 0: no rise */
    left_case("nothing taken: ext 0", Ln, 2, 2, 20, 0, 0);
}

/* ---- keep test ------------------------------------------------------------------------ */

static void set_sub_ident(int32_t *sub, int32_t match)
{
    for (int i = 0; i < 64; i++) sub[i] = -1000;
    for (int b = 0; b < 4; b++) sub[b * 9] = match;
}

static uint8_t enc(char c)
{
    switch (c) {
    case 'A': return 0; case 'C': return 1; case 'G': return 2; case 'T': return 3;
    case 'a': case 'c': case 'g': case 't': return 4;
    case 'N': case 'n': return 5;
    case '&': return 7;
    default: return 6;
    }
}
static uint32_t encs(const char *s, uint8_t *o)
{
    uint32_t n = (uint32_t)strlen(s);
    for (uint32_t i = 0; i < n; i++) o[i] = enc(s[i]);
    return n;
}

static void keep_case(const char *what, const char *r, const char *q, uint32_t ar, uint32_t aq,
                      const int32_t *sub, int32_t K, int entropy, int want_keep, hz_hsp want)
{
    uint8_t R[512], Q[512];
    uint32_t Rl = encs(r, R), Ql = encs(q, Q);
    hz_xparams xp;
    memcpy(xp.sub, sub, sizeof xp.sub);
    xp.xdrop = 910; xp.hspthresh = K; xp.entropy = entropy; xp.gate_min_total = K;
    hz_hsp out = {0, 0, 0, 0};
    int kept = hz_materialize(R, Rl, Q, Ql, ar, aq, &xp, &out);
    if (want_keep)
        check(kept == 1 && out.rs == want.rs && out.qs == want.qs && out.len == want.len && out.score == want.score,
              "keep %s: kept (%u,%u,len %u,score %d) (got kept %d (%u,%u,%u,%d))", what, want.rs, want.qs,
              want.len, want.score, kept, out.rs, out.qs, out.len, out.score);
    else
        check(kept == 0, "keep %s: rejected (got kept %d score %d)", what, kept, out.score);
}

static char *rep(char c, int n, char *buf)
{
    memset(buf, c, (size_t)n);
    buf[n] = 0;
    return buf;
}

static void test_keep(void)
{
    int32_t sub[64];
    char a[600], b[600];
    const char *U20 = "ACGTACGTACGTACGTACGT";  /* uniform composition, 20 identical columns */
    set_sub_ident(sub, 10);
    hz_hsp h = {0, 0, 19, 200};
    keep_case("total = K = 200, uniform ACGT x5 (float ln 4 -> 199.99999 < 200)", U20, U20, 20, 20, sub, 200, 1, 0, h);
    keep_case("total = K = 200, uniform, --noentropy", U20, U20, 20, 20, sub, 200, 0, 1, h);
    h.score = 199;
    keep_case("total 200, K 199, uniform: kept with score (int)(200*0.99999999) = 199", U20, U20, 20, 20, sub, 199, 1, 1, h);
    keep_case("total = K-1 (200 vs K 201), entropy on", U20, U20, 20, 20, sub, 201, 1, 0, h);
    keep_case("total = K-1 (200 vs K 201), --noentropy", U20, U20, 20, 20, sub, 201, 0, 0, h);
    /* anchor in the middle: right 10 columns, left 10 */
    h.score = 200;
    keep_case("anchor in the middle, --noentropy (rs 0, len 19)", U20, U20, 10, 10, sub, 200, 0, 1, h);

    /* entropy band edges with sub[A][A] = 1, K = 33: poly-A of n columns, ent = -0.0 */
    set_sub_ident(sub, 1);
    keep_case("poly-A total 99 = 3K: in band, entropy 0 -> rejected", rep('A', 99, a), rep('A', 99, b), 99, 99, sub, 33, 1, 0, h);
    h.len = 99; h.score = 100;
    keep_case("poly-A total 100 = 3K+1: out of band -> kept, score 100", rep('A', 100, a), rep('A', 100, b), 100, 100, sub, 33, 1, 1, h);
    keep_case("poly-A total 33 = K: in band -> rejected", rep('A', 33, a), rep('A', 33, b), 33, 33, sub, 33, 1, 0, h);
    h.len = 32; h.score = 33;
    keep_case("poly-A total 33 = K, --noentropy -> kept", rep('A', 33, a), rep('A', 33, b), 33, 33, sub, 33, 0, 1, h);

    /* count sum 19 vs 20, sub[A][A] = 10, K = 100 */
    set_sub_ident(sub, 10);
    h.len = 18; h.score = 190;
    keep_case("19 identical A: count sum 19 < 20 -> ent 1, kept 190", rep('A', 19, a), rep('A', 19, b), 19, 19, sub, 100, 1, 1, h);
    keep_case("20 identical A: count sum 20 -> ent 0, rejected", rep('A', 20, a), rep('A', 20, b), 20, 20, sub, 100, 1, 0, h);

    /* only identical A/C/G/T columns count */
    {
        int32_t s2[64];
        set_sub_ident(s2, 10);
        s2[0 * 8 + 2] = 10;                       /* target A vs query G rewarded, not identical */
        char r[32], q[32];
        rep('A', 20, r); rep('A', 20, q); q[7] = 'G';
        h.len = 19; h.score = 200;
        keep_case("19 A-A + 1 A-G (+10): A-G not counted, sum 19 -> kept 200", r, q, 20, 20, s2, 100, 1, 1, h);
        set_sub_ident(s2, 10);
        s2[6 * 8 + 6] = 10;                       /* X-X rewarded */
        rep('A', 20, r); rep('A', 20, q); r[7] = 'R'; q[7] = 'Y';
        keep_case("19 A-A + 1 X-X (+10): X-X not counted (0.3.x), kept 200", r, q, 20, 20, s2, 100, 1, 1, h);
        set_sub_ident(s2, 10);
        s2[5 * 8 + 5] = 10;                       /* N-N rewarded */
        rep('A', 20, r); rep('A', 20, q); r[3] = 'N'; q[3] = 'N';
        keep_case("19 A-A + 1 N-N (+10): N-N not counted, kept 200", r, q, 20, 20, s2, 100, 1, 1, h);
    }
    /* identical columns after the HSP end do not count */
    {
        char r[64], q[64];
        rep('A', 19, r); strcat(r, "A"); strcat(r, "AAAAA");
        rep('A', 19, q); strcat(q, "C"); strcat(q, "AAAAA");
        h.rs = 0; h.qs = 0; h.len = 18; h.score = 190;
        keep_case("identical A columns past the drop are outside the HSP", r, q, 19, 19, sub, 100, 1, 1, h);
    }
    /* 16-bit counters (RULES "entropy counting"): a count above 32,767 in the band rejects.
     * 32768 A-A + 32768 C-C (+1 each), K 30000: total 65536 in [30000, 90000], ent 0.5 ->
     * 32767 >= K would keep, but the A count 32768 > 32767 rejects.  32767 + 32767: kept, 32766. */
    {
        static uint8_t R[65536];
        int32_t s1[64];
        set_sub_ident(s1, 1);
        hz_xparams xp;
        memcpy(xp.sub, s1, sizeof xp.sub);
        xp.xdrop = 910; xp.hspthresh = 30000; xp.entropy = 1; xp.gate_min_total = 30000;
        for (int i = 0; i < 65536; i++) R[i] = i < 32768 ? 0 : 1;
        hz_hsp out;
        int k = hz_materialize(R, 65536, R, 65536, 65536, 65536, &xp, &out);
        check(k == 0, "count 32768 A inside the band -> rejected (got kept %d)", k);
        for (int i = 0; i < 65534; i++) R[i] = i < 32767 ? 0 : 1;
        k = hz_materialize(R, 65534, R, 65534, 65534, 65534, &xp, &out);
        /* ent = ln 2 / float(ln 4) = 0.4999999986 -> (int)(65534 * ent) = 32766 */
        check(k == 1 && out.score == 32766 && out.len == 65533 && out.rs == 0,
              "count 32767 A + 32767 C -> kept, score (int)(65534 * 0.4999999986) = 32766 (got kept %d score %d)", k, out.score);
        xp.hspthresh = 21000;   /* 3K = 63000 < 65536: out of band, no count limit */
        for (int i = 0; i < 65536; i++) R[i] = i < 32768 ? 0 : 1;
        k = hz_materialize(R, 65536, R, 65536, 65536, 65536, &xp, &out);
        check(k == 1 && out.score == 65536, "count 32768 with total above 3K: no entropy, kept 65536 (got %d %d)", k, out.score);
    }
    /* hz_entropy directly */
    {
        int rej = 7;
        int32_t c[4] = {5, 5, 5, 5};
        double e = hz_entropy(c, 19, &rej);
        check(rej == 0 && e < 1.0 && e > 0.9999999970 && (int)((double)200.0f * e) == 199,
              "hz_entropy uniform 5,5,5,5 / 20 = %.12f (< 1, float ln 4)", e);
        int32_t c2[4] = {10, 5, 3, 2};
        double want = 0.0;
        for (int i = 0; i < 4; i++) want = fma(c2[i] / 20.0, log(c2[i] / 20.0), want);
        want = -want / 1.38629436492919921875;
        e = hz_entropy(c2, 19, &rej);
        check(rej == 0 && fabs(e - want) < 1e-15, "hz_entropy 10,5,3,2 / 20 = %.15f (want %.15f)", e, want);
        int32_t c3[4] = {19, 0, 0, 0};
        e = hz_entropy(c3, 30, &rej);
        check(rej == 0 && e == 1.0, "hz_entropy count sum 19 -> 1.0");
        int32_t c4[4] = {20, 0, 0, 0};
        e = hz_entropy(c4, 19, &rej);
        check(rej == 0 && e == 0.0, "hz_entropy 20 identical A over 20 columns -> 0");
        int32_t c5[4] = {32768, 10, 0, 0};
        hz_entropy(c5, 40000, &rej);
        check(rej == 1, "hz_entropy count 32768 > 32767 -> reject");
        int32_t c6[4] = {32767, 10, 0, 0};
        hz_entropy(c6, 40000, &rej);
        check(rej == 0, "hz_entropy count 32767 -> no reject");
    }
    check(hz_gate_threshold(3000) == 3000, "hz_gate_threshold(3000) = 3000 (got %d)", hz_gate_threshold(3000));
    check(hz_gate_threshold(16777217) == 16777218, "hz_gate_threshold(16777217) = 16777218: float(16777217) = 16777216 (got %d)",
          hz_gate_threshold(16777217));
    check(hz_gate_threshold(16777219) == 16777219, "hz_gate_threshold(16777219) = 16777219: float rounds up to 16777220 (got %d)",
          hz_gate_threshold(16777219));
    check(hz_gate_threshold(1) == 1, "hz_gate_threshold(1) = 1");
}

/* ---- hz_log vs libm ---------------------------------------------------------------------- */

static int64_t ordered(double x)
{
    int64_t i;
    memcpy(&i, &x, sizeof i);
    return i < 0 ? INT64_MIN - i : i;
}

static void test_log(void)
{
    uint64_t worst = 0, n = 0;
    double worst_x = 0;
    for (int i = 0; i < 200000; i++) {
        double x;
        if (i % 3 == 0) x = rnd01();
        else if (i % 3 == 1) x = ldexp(0.5 + 0.5 * rnd01(), -(int)(rnd() % 60));
        else { uint64_t c = 1 + rnd() % 40000, m = c + rnd() % 100000; x = (double)c / (double)m; }
        if (x <= 0) continue;
        double a = hz_log(x), b = log(x);
        int64_t d = ordered(a) - ordered(b);
        uint64_t ad = d < 0 ? (uint64_t)(-d) : (uint64_t)d;
        if (ad > worst) { worst = ad; worst_x = x; }
        n++;
    }
    double specials[] = {1.0, 0.5, 0.25, 0.75, 1.0 / 3, 0.7071067811865476, 0.7071067811865475,
                         0.9999999999999999, 1e-300, 2.2250738585072014e-308};
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) {
        double x = specials[i];
        int64_t d = ordered(hz_log(x)) - ordered(log(x));
        uint64_t ad = d < 0 ? (uint64_t)(-d) : (uint64_t)d;
        if (ad > worst) { worst = ad; worst_x = x; }
        n++;
    }
    check(worst <= 2, "hz_log within 2 ulp of libm log on %llu values in (0,1] (worst %llu ulp at %.17g)",
          (unsigned long long)n, (unsigned long long)worst, worst_x);
    check(hz_log(1.0) == 0.0, "hz_log(1) == 0");
}

/* ---- random sequences with long homologous diagonals ------------------------------------ */

enum { RL = 40000, QL = 36000 };
static uint8_t SR[RL], SQ[QL];

static void mutate_copy(uint32_t r0, uint32_t q0, uint32_t n, int per_mille)
{
    for (uint32_t i = 0; i < n; i++) {
        uint8_t c = SR[r0 + i];
        if ((int)(rnd() % 1000) < per_mille) c = (uint8_t)(rnd() % 4);
        SQ[q0 + i] = c;
    }
}

typedef struct { uint32_t r0, q0, n; } seg_t;
static seg_t SEGS[8];
static int NSEG;

static void build_sequences(void)
{
    for (int i = 0; i < RL; i++) SR[i] = (uint8_t)(rnd() % 4);
    for (int i = 0; i < QL; i++) SQ[i] = (uint8_t)(rnd() % 4);
    /* separators and masked / N runs in the target */
    SR[15000] = 7; SR[30001] = 7;
    for (int i = 21000; i < 21040; i++) SR[i] = 4;
    NSEG = 0;
    SEGS[NSEG++] = (seg_t){0, 0, 6000};          /* diagonal 0 from both left edges */
    mutate_copy(0, 0, 6000, 10);
    SEGS[NSEG++] = (seg_t){9000, 6500, 5999};    /* ends just before the separator at 15000 */
    for (int i = 10000; i < 10600; i++) SR[i] = (uint8_t)(i % 2 ? 3 : 0);   /* ATAT... */
    for (int i = 11000; i < 11300; i++) SR[i] = 0;                         /* poly-A */
    for (int i = 12000; i < 12400; i++) SR[i] = (uint8_t)(i % 3 ? 1 : 2);  /* low complexity */
    mutate_copy(9000, 6500, 5999, 120);
    SEGS[NSEG++] = (seg_t){16000, 13000, 9000};  /* crosses the masked run 21000..21039 */
    mutate_copy(16000, 13000, 9000, 5);
    for (int i = 16000 + 3000; i < 16000 + 3030; i++) SQ[i - 3000] = 5; /* N run in the query */
    SEGS[NSEG++] = (seg_t){26000, 22500, 1500};  /* short, 20% mutated: weak homology */
    /* short homologous pieces separated by random gaps: totals around the thresholds */
    for (uint32_t o = 0; o < 1500;) {
        uint32_t len = 8 + (uint32_t)(rnd() % 70), gap = 5 + (uint32_t)(rnd() % 40);
        if (o + len > 1500) len = 1500 - o;
        mutate_copy(26000 + o, 22500 + o, len, 30);
        o += len + gap;
    }
    SEGS[NSEG++] = (seg_t){RL - 12000, QL - 12000, 12000};  /* to both right edges, crosses 30001 */
    mutate_copy(RL - 12000, QL - 12000, 12000, 15);
    for (int i = QL - 400; i < QL; i++) SQ[i] = SR[RL - QL + i];   /* identical tail */
}

/* anchors: many per diagonal, some at edges, some random, duplicates */
static size_t make_anchors(hz_anchor *a, size_t cap)
{
    size_t n = 0;
    for (int s = 0; s < NSEG; s++) {
        seg_t g = SEGS[s];
        for (int k = 0; k < 700 && n < cap; k++) {
            uint32_t off = (uint32_t)(rnd() % (g.n + 1));
            a[n++] = (hz_anchor){g.r0 + off, g.q0 + off};
        }
        a[n++] = (hz_anchor){g.r0, g.q0};
        a[n++] = (hz_anchor){g.r0 + g.n, g.q0 + g.n};
        a[n++] = (hz_anchor){g.r0 + 1, g.q0 + 1};
    }
    a[n++] = (hz_anchor){RL, QL};        /* both ends */
    a[n++] = (hz_anchor){RL, QL - 5};
    a[n++] = (hz_anchor){RL - 5, QL};
    a[n++] = (hz_anchor){0, 0};
    a[n++] = (hz_anchor){0, 100};
    a[n++] = (hz_anchor){100, 0};
    a[n++] = (hz_anchor){RL - QL, 0};
    for (int k = 0; k < 800 && n < cap; k++)
        a[n++] = (hz_anchor){(uint32_t)(rnd() % (RL + 1)), (uint32_t)(rnd() % (QL + 1))};
    size_t m = n;
    for (int k = 0; k < 200 && n < cap; k++) a[n++] = a[rnd() % m];   /* duplicates */
    return n;
}

struct visit_ck { size_t bad, seen; int32_t x; };
static void visit_check(void *arg, size_t i, const hz_anchor *an, const hz_ext *r)
{
    struct visit_ck *k = arg;
    (void)i;
    side_t rr = ref_right(SR, RL, SQ, QL, an->ar, an->aq, HOXD, k->x), ll = ref_left(SR, SQ, an->ar, an->aq, HOXD, k->x);
    k->seen++;
    if (r->right_score != rr.best || r->right_ext != rr.bp || r->left_score != ll.best || r->left_ext != ll.bp) {
        if (k->bad < 3) printf("# groups anchor (%u,%u): got R %d/%d L %d/%d, model R %d/%d L %d/%d\n", an->ar, an->aq,
                               r->right_score, r->right_ext, r->left_score, r->left_ext, rr.best, rr.bp, ll.best, ll.bp);
        k->bad++;
    }
}

static void test_random_anchors(void)
{
    build_sequences();
    static hz_anchor a[6000];
    size_t n = make_anchors(a, 5000);
    side_t *rr = malloc(n * sizeof *rr), *ll = malloc(n * sizeof *ll);
    for (size_t i = 0; i < n; i++) {
        rr[i] = ref_right(SR, RL, SQ, QL, a[i].ar, a[i].aq, HOXD, 910);
        ll[i] = ref_left(SR, SQ, a[i].ar, a[i].aq, HOXD, 910);
    }
    /* hz_xdrop_* against the model */
    size_t bad = 0, longr = 0;
    for (size_t i = 0; i < n; i++) {
        int32_t re, le;
        int32_t rs = hz_xdrop_right(SR, RL, SQ, QL, a[i].ar, a[i].aq, HOXD, 910, &re);
        int32_t ls = hz_xdrop_left(SR, SQ, a[i].ar, a[i].aq, HOXD, 910, &le);
        int32_t rso = hz_xdrop_right_score(SR, RL, SQ, QL, a[i].ar, a[i].aq, HOXD, 910);
        int32_t lso = hz_xdrop_left_score(SR, SQ, a[i].ar, a[i].aq, HOXD, 910);
        if (rs != rr[i].best || re != rr[i].bp || ls != ll[i].best || le != ll[i].bp || rso != rs || lso != ls) {
            if (bad < 3) printf("# anchor (%u,%u): got R %d/%d L %d/%d, model R %d/%d L %d/%d\n", a[i].ar, a[i].aq,
                                rs, re, ls, le, rr[i].best, rr[i].bp, ll[i].best, ll[i].bp);
            bad++;
        }
        if (re > 2000 || le > 2000) longr++;
    }
    check(bad == 0, "hz_xdrop_right/left(+_score) == model on %zu anchors (%zu with an extension > 2000)", n, longr);
    {
        size_t band[5] = {0, 0, 0, 0, 0};
        for (size_t i = 0; i < n; i++) {
            int32_t t = rr[i].best + ll[i].best;
            band[t < 1000 ? 0 : t < 3000 ? 1 : t <= 9000 ? 2 : t < 30000 ? 3 : 4]++;
        }
        printf("# totals: <1000 %zu, 1000-2999 %zu, 3000-9000 %zu, 9001-29999 %zu, >=30000 %zu\n",
               band[0], band[1], band[2], band[3], band[4]);
    }

    /* hz_extend_diagonals == hz_xdrop_right/left for every anchor; ids shuffled */
    uint32_t *ids = malloc(n * sizeof *ids);
    for (size_t i = 0; i < n; i++) ids[i] = (uint32_t)i;
    for (size_t i = n - 1; i > 0; i--) { size_t j = rnd() % (i + 1); uint32_t t = ids[i]; ids[i] = ids[j]; ids[j] = t; }
    hz_ext *res = calloc(n, sizeof *res);
    hz_diagbuf db;
    memset(&db, 0, sizeof db);
    int rc = hz_extend_diagonals(SR, RL, SQ, QL, a, ids, n, HOXD, 910, res, &db);
    bad = 0;
    for (size_t i = 0; i < n; i++) {
        const hz_anchor *x = &a[ids[i]];
        int32_t re, le;
        int32_t rs = hz_xdrop_right(SR, RL, SQ, QL, x->ar, x->aq, HOXD, 910, &re);
        int32_t ls = hz_xdrop_left(SR, SQ, x->ar, x->aq, HOXD, 910, &le);
        if (res[i].right_score != rs || res[i].right_ext != re || res[i].left_score != ls || res[i].left_ext != le) {
            if (bad < 3) printf("# diag anchor (%u,%u): got R %d/%d L %d/%d, want R %d/%d L %d/%d\n", x->ar, x->aq,
                                res[i].right_score, res[i].right_ext, res[i].left_score, res[i].left_ext, rs, re, ls, le);
            bad++;
        }
    }
    check(rc == 0 && bad == 0, "hz_extend_diagonals == hz_xdrop_right/left on %zu anchors (shuffled ids)", n);

    /* a second call reusing the buffers, on a subset in ascending order with a smaller X */
    size_t m = n / 3;
    for (size_t i = 0; i < m; i++) ids[i] = (uint32_t)(i * 3);
    rc = hz_extend_diagonals(SR, RL, SQ, QL, a, ids, m, HOXD, 300, res, &db);
    bad = 0;
    for (size_t i = 0; i < m; i++) {
        const hz_anchor *x = &a[ids[i]];
        side_t r = ref_right(SR, RL, SQ, QL, x->ar, x->aq, HOXD, 300), l = ref_left(SR, SQ, x->ar, x->aq, HOXD, 300);
        if (res[i].right_score != r.best || res[i].right_ext != r.bp || res[i].left_score != l.best || res[i].left_ext != l.bp)
            bad++;
    }
    check(rc == 0 && bad == 0, "hz_extend_diagonals (buffers reused, X 300) == model on %zu anchors", m);

    /* hz_diag_groups without ids (the chunk's path): anchors in seed order (ascending aq), in
     * pieces of random size that continue one cache; every result == the model */
    {
        hz_anchor *s = malloc(n * sizeof *s);
        memcpy(s, a, n * sizeof *s);
        for (size_t i = 1; i < n; i++) {   /* insertion sort by aq */
            hz_anchor x = s[i]; size_t j = i;
            while (j && s[j - 1].aq > x.aq) { s[j] = s[j - 1]; j--; }
            s[j] = x;
        }
        struct visit_ck ck = {0, 0, 910};
        hz_diagcache_reset(&db.cache);
        size_t pieces = 0;
        rc = 0;
        for (size_t i0 = 0; i0 < n && !rc; pieces++) {
            size_t len = 1 + rnd() % 300;
            if (i0 + len > n) len = n - i0;
            rc = hz_diag_groups(SR, RL, SQ, QL, s + i0, NULL, len, HOXD, 910, &db, visit_check, &ck);
            i0 += len;
        }
        check(rc == 0 && ck.bad == 0 && ck.seen == n, "hz_diag_groups in %zu pieces of seed order, one cache: %zu anchors == model",
              pieces, ck.seen);
        free(s);
    }

    /* many anchors on one long identical diagonal: every offset of the identical tail region */
    {
        size_t k = 0;
        static hz_anchor b[2000];
        uint32_t ids2[2000];
        for (uint32_t off = 0; off <= 400 && k < 2000; off++) b[k++] = (hz_anchor){RL - 400 + off, QL - 400 + off};
        for (uint32_t off = 0; off < 1500 && k < 2000; off += 3) b[k++] = (hz_anchor){RL - 12000 + off * 7, QL - 12000 + off * 7};
        for (size_t i = 0; i < k; i++) ids2[i] = (uint32_t)(k - 1 - i);   /* descending */
        hz_ext *r2 = calloc(k, sizeof *r2);
        rc = hz_extend_diagonals(SR, RL, SQ, QL, b, ids2, k, HOXD, 910, r2, &db);
        bad = 0;
        for (size_t i = 0; i < k; i++) {
            const hz_anchor *x = &b[ids2[i]];
            side_t r = ref_right(SR, RL, SQ, QL, x->ar, x->aq, HOXD, 910), l = ref_left(SR, SQ, x->ar, x->aq, HOXD, 910);
            if (r2[i].right_score != r.best || r2[i].right_ext != r.bp || r2[i].left_score != l.best || r2[i].left_ext != l.bp)
                bad++;
        }
        check(rc == 0 && bad == 0, "hz_extend_diagonals: %zu anchors on one diagonal, descending order, reaching the edges", k);
        free(r2);
    }

    /* hz_materialize and hz_finish_hsp against the keep model, entropy on/off, K 1000/3000 */
    int32_t Ks[3] = {1000, 3000, 30000};
    for (int ki = 0; ki < 3; ki++)
        for (int ent = 0; ent < 2; ent++) {
            hz_xparams xp;
            memcpy(xp.sub, HOXD, sizeof xp.sub);
            xp.xdrop = 910; xp.hspthresh = Ks[ki]; xp.entropy = ent; xp.gate_min_total = hz_gate_threshold(Ks[ki]);
            size_t badm = 0, badf = 0, badk = 0, kept = 0;
            for (size_t i = 0; i < n; i++) {
                hz_hsp want, got, got2, got3, got4;
                int kw = ref_materialize(SR, RL, SQ, QL, a[i].ar, a[i].aq, HOXD, 910, Ks[ki], ent, &want);
                int kg = hz_materialize(SR, RL, SQ, QL, a[i].ar, a[i].aq, &xp, &got);
                hz_ext e = {rr[i].best, rr[i].bp, ll[i].best, ll[i].bp};
                int kf = hz_finish_hsp(SR, SQ, &a[i], &e, &xp, &got2);
                kept += kw;
                if (kw != kg || (kw && memcmp(&want, &got, sizeof want) != 0)) badm++;
                if (kw != kf || (kw && memcmp(&want, &got2, sizeof want) != 0)) badf++;
                /* from the known side scores, and (fallback) from a score no column reaches */
                int kk = hz_materialize_known(SR, RL, SQ, QL, a[i].ar, a[i].aq, ll[i].best, rr[i].best, &xp, &got3);
                int kb = hz_materialize_known(SR, RL, SQ, QL, a[i].ar, a[i].aq, ll[i].best, rr[i].best + 1, &xp, &got4);
                if (kw != kk || (kw && memcmp(&want, &got3, sizeof want) != 0)) badk++;
                if (kw != kb || (kw && memcmp(&want, &got4, sizeof want) != 0)) badk++;
            }
            check(badm == 0 && badf == 0 && badk == 0,
                  "hz_materialize / hz_finish_hsp / hz_materialize_known == keep model, K %d entropy %d (%zu of %zu kept)",
                  Ks[ki], ent, kept, n);
        }

    /* hz_materialize_known == hz_materialize under random matrices (zero and positive
     * mismatch entries, ties of the running score with its maximum) and x from 1 to 2000 */
    {
        size_t bad = 0, kept = 0, tried = 0;
        for (int m = 0; m < 40; m++) {
            hz_xparams xp;
            for (int k = 0; k < 64; k++) xp.sub[k] = (int32_t)(rnd() % 301) - 150;
            for (int b = 0; b < 4; b++) xp.sub[(b << 3) | b] = 20 + (int32_t)(rnd() % 100);
            xp.xdrop = 1 + (int32_t)(rnd() % 2000); xp.hspthresh = 1 + (int32_t)(rnd() % 3000);
            xp.entropy = (int)(rnd() % 2); xp.gate_min_total = hz_gate_threshold(xp.hspthresh);
            for (size_t i = 0; i < n; i += 3) {
                int32_t le, re;
                int32_t ls = hz_xdrop_left(SR, SQ, a[i].ar, a[i].aq, xp.sub, xp.xdrop, &le);
                int32_t rs = hz_xdrop_right(SR, RL, SQ, QL, a[i].ar, a[i].aq, xp.sub, xp.xdrop, &re);
                hz_hsp want, got;
                int kw = hz_materialize(SR, RL, SQ, QL, a[i].ar, a[i].aq, &xp, &want);
                int kg = hz_materialize_known(SR, RL, SQ, QL, a[i].ar, a[i].aq, ls, rs, &xp, &got);
                int32_t le2 = hz_xdrop_left_at(SR, SQ, a[i].ar, a[i].aq, xp.sub, xp.xdrop, ls, NULL);
                int32_t re2 = hz_xdrop_right_at(SR, RL, SQ, QL, a[i].ar, a[i].aq, xp.sub, xp.xdrop, rs, NULL);
                tried++; kept += kw;
                if (kw != kg || (kw && memcmp(&want, &got, sizeof want) != 0) || le2 != le || re2 != re) bad++;
            }
        }
        check(bad == 0 && kept > 0, "hz_xdrop_*_at extents and hz_materialize_known == hz_materialize: 40 random matrices, %zu anchors (%zu kept)",
              tried, kept);
    }

    /* gate: flags vs brute-force total >= gate_min_total */
    uint8_t *fl = malloc(n), *fc = malloc(n);
    int32_t thr_list[3] = {3000, 30000, 1};
    for (int ti = 0; ti < 3; ti++) {
        hz_xparams xp;
        memcpy(xp.sub, HOXD, sizeof xp.sub);
        xp.xdrop = 910; xp.hspthresh = thr_list[ti]; xp.entropy = 1; xp.gate_min_total = thr_list[ti];
        memset(fl, 0xEE, n);
        hz_gate_cpu(SR, RL, SQ, QL, a, n, &xp, fl);
        size_t badg = 0, pass = 0;
        for (size_t i = 0; i < n; i++) {
            int want = rr[i].best + ll[i].best >= thr_list[ti];
            pass += want;
            if (fl[i] != want) badg++;
        }
        check(badg == 0, "hz_gate_cpu flags == (total >= %d) on %zu anchors (%zu pass)", thr_list[ti], n, pass);

        uint32_t caps[3] = {64, 500, 100000};
        for (int ci = 0; ci < 3; ci++) {
            uint32_t cap = caps[ci];
            memset(fc, 0xEE, n);
            hz_gate_cpu_capped(SR, RL, SQ, QL, a, n, &xp, cap, fc);
            size_t badc = 0, und = 0;
            for (size_t i = 0; i < n; i++) {
                /* undecided: more than cap columns available and no drop within the first cap */
                int ur = rr[i].avail > cap && (rr[i].stop < 0 || rr[i].stop >= cap);
                int ul = ll[i].avail > cap && (ll[i].stop < 0 || ll[i].stop >= cap);
                int want = (ur || ul) ? 2 : (rr[i].best + ll[i].best >= thr_list[ti]);
                und += want == 2;
                if (fc[i] != want) {
                    if (badc < 3) printf("# capped anchor (%u,%u) cap %u: got %d want %d\n", a[i].ar, a[i].aq, cap, fc[i], want);
                    badc++;
                }
            }
            check(badc == 0, "hz_gate_cpu_capped cap %u thr %d: flags 0/1/2 == model (%zu undecided)", cap, thr_list[ti], und);
        }
    }
    free(fl); free(fc);

    /* capped: exact boundary — a side with exactly cap columns to the edge is decided */
    {
        uint8_t R[40], Q[40];
        for (int i = 0; i < 40; i++) R[i] = Q[i] = (uint8_t)(i % 4);
        hz_xparams xp;
        memcpy(xp.sub, HOXD, sizeof xp.sub);
        xp.xdrop = 910; xp.hspthresh = 100; xp.entropy = 1; xp.gate_min_total = 100;
        hz_anchor an[4] = {{20, 20}, {20, 20}, {21, 21}, {19, 19}};
        uint8_t f[4];
        /* cap 20: anchor (20,20) has 20 columns left and 20 right: both reach the edge -> decided */
        hz_gate_cpu_capped(R, 40, Q, 40, an, 1, &xp, 20, f);
        check(f[0] == 1, "capped: 20 columns on each side with cap 20 -> decided (got %d)", f[0]);
        hz_gate_cpu_capped(R, 40, Q, 40, an + 2, 1, &xp, 20, f);
        check(f[0] == 2, "capped: 21 columns to the left edge with cap 20 -> undecided (got %d)", f[0]);
        hz_gate_cpu_capped(R, 40, Q, 40, an + 3, 1, &xp, 20, f);
        check(f[0] == 2, "capped: 21 columns to the right edge with cap 20 -> undecided (got %d)", f[0]);
    }

    /* compaction: stable, nonzero flags */
    {
        uint8_t f[12] = {0, 1, 2, 0, 0, 1, 1, 0, 2, 0, 0, 1};
        uint32_t id[12];
        memset(id, 0xFF, sizeof id);
        size_t k = hz_compact_cpu(f, 12, id);
        static const uint32_t want[6] = {1, 2, 5, 6, 8, 11};
        int ok = k == 6;
        for (size_t i = 0; ok && i < 6; i++) ok = id[i] == want[i];
        check(ok, "hz_compact_cpu: ids of nonzero flags ascending (1,2,5,6,8,11), k=%zu", k);
        check(hz_compact_cpu(f, 0, id) == 0, "hz_compact_cpu n = 0");
        uint8_t z[5] = {0, 0, 0, 0, 0};
        check(hz_compact_cpu(z, 5, id) == 0, "hz_compact_cpu all zero -> 0");
        uint8_t *big = malloc(n);
        uint32_t *bid = malloc(n * sizeof *bid);
        for (size_t i = 0; i < n; i++) big[i] = (uint8_t)(rnd() % 3);
        k = hz_compact_cpu(big, n, bid);
        size_t j = 0;
        ok = 1;
        for (size_t i = 0; i < n; i++) if (big[i]) { if (j >= k || bid[j] != i) ok = 0; j++; }
        check(ok && j == k, "hz_compact_cpu random flags: %zu ids in order", k);
        free(big); free(bid);
    }
    free(rr); free(ll); free(ids); free(res);
    hz_diagbuf_free(&db);
}

/* ---- hz_xdrop_block16: the refill gate's branch-free 16 columns (src/core/xdrop.h) ---------- */

/* The refill gate's scan of one side (cuda/hsp/gate_refill.cu rf_setup / rf_step, written again
 * here): steps of 16 columns through hz_xdrop_block16, the scalar rule for the last columns
 * before an edge, -1 when cap columns passed without a stop.  left: columns ar-1-p. */
static int32_t block16_side(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen, uint32_t ar,
                            uint32_t aq, const int32_t *sub, int32_t x, uint32_t cap, int left, int frozen)
{
    uint32_t n;
    if (left) n = ar < aq ? ar : aq;
    else if (ar >= Rlen || aq >= Qlen) n = 0;
    else { n = Rlen - ar; if (Qlen - aq < n) n = Qlen - aq; }
    int longrun = n > cap;
    uint32_t rem = longrun ? cap : n, p = 0;
    int32_t S = 0, F = -x, v[16];
    while (rem) {
        for (uint32_t k = 0; k < 16 && k < rem; k++) {
            uint32_t r = left ? ar - 1 - p - k : ar + p + k, q = left ? aq - 1 - p - k : aq + p + k;
            v[k] = sub[R[r] * 8 + Q[q]];
        }
        if (rem < 16) {
            for (uint32_t k = 0; k < rem; k++) {
                S += v[k];
                int32_t Fn = S - x > F ? S - x : F;
                if (S < Fn) return F + x;
                F = Fn;
            }
            break;
        }
        if (hz_xdrop_block16(v, frozen, x, &S, &F)) return F + x;
        rem -= 16; p += 16;
    }
    return longrun ? -1 : F + x;
}

static void test_block16(void)
{
    /* the scalar rule on 16 given columns: the step's result and F */
    {
        hz_xparams xp;
        memset(&xp, 0, sizeof xp);
        memcpy(xp.sub, HOXD, sizeof xp.sub);
        xp.xdrop = 910;
        check(hz_xdrop_block16_fits(&xp, 128) == 0, "block16 fits: HOXD70 with x 910 takes the half-window variant (7 * 100 <= 910)");
        xp.xdrop = 699;
        check(hz_xdrop_block16_fits(&xp, 128) == 1, "block16 fits: x 699 < 7 * 100 needs the frozen variant");
        xp.xdrop = 100000000;
        for (int k = 0; k < 64; k++) if (xp.sub[k] == -9100) xp.sub[k] = -10 * xp.xdrop;   /* the E entries */
        check(hz_xdrop_block16_fits(&xp, 128) == -1, "block16 fits: E entries of -1e9 (x 1e8) could leave int32: neither");
    }
    {   /* a stop, then a rise past the best inside the same half: only the frozen variant is
         * right when 7 * max > x (x 300, max 100) */
        int32_t v[16] = { 100, -500, 100, 100, 100, 100, 100, 100, -5000, 0, 0, 0, 0, 0, 0, 0 };
        int32_t S0 = 0, F0 = -300, S1 = 0, F1 = -300;
        int r0 = hz_xdrop_block16(v, 0, 300, &S0, &F0), r1 = hz_xdrop_block16(v, 1, 300, &S1, &F1);
        check(r1 == 1 && F1 + 300 == 100, "block16 frozen: stop after column 1 keeps the best 100 (got %d, %d)", r1, F1 + 300);
        check(r0 == 1 && F0 + 300 == 200, "block16 half-window without its condition: F moved on to 200 (the case it excludes)");
    }
    {   /* a stop in the first half and a rise in the second: both variants keep the first half's F */
        int32_t v[16] = { 91, 91, -1000, 0, 0, 0, 0, 0, 100, 100, 100, 100, 100, 100, 100, 100 };
        for (int frozen = 0; frozen < 2; frozen++) {
            int32_t S = 0, F = -910;
            int r = hz_xdrop_block16(v, frozen, 910, &S, &F);
            check(r == 1 && F + 910 == 182, "block16 frozen=%d: stop at column 2, best 182, the second half ignored", frozen);
        }
        int32_t w[16] = { 50, 50, 50, 50, 50, 50, 50, 50, -10, -10, -10, -10, -10, -10, -10, -10 };
        int32_t S = 10, F = 100 - 910;
        int r = hz_xdrop_block16(w, 0, 910, &S, &F);
        check(r == 0 && S == 330 && F == 410 - 910, "block16: no stop, S 330 and best 410 carried (got S %d best %d)", S, F + 910);
    }
    /* random sides against hz_xdrop_{left,right}_capped: HOXD70 with several x (both variants
     * where fits allows, the frozen one always), random matrices, codes 0..7 with runs of
     * matches, edges and the cap */
    uint32_t bad = 0, total = 0, frozen_runs = 0, half_runs = 0;
    static uint8_t R[700], Q[700];
    int32_t sub[64];
    for (int trial = 0; trial < 6000; trial++) {
        int32_t x;
        if (trial % 3) { memcpy(sub, HOXD, sizeof sub); x = 200 + (int32_t)(rnd() % 1800); }
        else {
            for (int k = 0; k < 64; k++) sub[k] = (int32_t)(rnd() % 401) - 250;
            for (int k = 0; k < 4; k++) sub[k * 9] = 50 + (int32_t)(rnd() % 150);
            x = 50 + (int32_t)(rnd() % 1500);
        }
        uint32_t Rlen = 20 + (uint32_t)(rnd() % 680), Qlen = 20 + (uint32_t)(rnd() % 680);
        int ident = (int)(rnd() % 100);
        for (uint32_t i = 0; i < Rlen; i++) R[i] = rnd() % 10 < 8 ? rnd() % 4 : rnd() % 8;
        for (uint32_t i = 0; i < Qlen; i++) Q[i] = i < Rlen && (int)(rnd() % 100) < ident ? R[i] : (rnd() % 10 < 8 ? rnd() % 4 : rnd() % 8);
        uint32_t cap = trial % 5 == 0 ? 16 * (1 + (uint32_t)(rnd() % 4)) : trial % 5 == 1 ? 4096 : 128;
        hz_xparams xp;
        memcpy(xp.sub, sub, sizeof xp.sub);
        xp.xdrop = x;
        int fits = hz_xdrop_block16_fits(&xp, cap);
        for (int a = 0; a < 8; a++) {
            uint32_t ar = (uint32_t)(rnd() % (Rlen + 1)), aq = (uint32_t)(rnd() % (Qlen + 1));
            if (rnd() % 2 && ar <= Qlen) aq = ar;   /* the identity diagonal: long sides */
            int32_t wl = hz_xdrop_left_capped(R, Q, ar, aq, sub, x, cap);
            int32_t wr = hz_xdrop_right_capped(R, Rlen, Q, Qlen, ar, aq, sub, x, cap);
            for (int frozen = fits; frozen < 2 && fits >= 0; frozen++) {
                int32_t gl = block16_side(R, Rlen, Q, Qlen, ar, aq, sub, x, cap, 1, frozen);
                int32_t gr = block16_side(R, Rlen, Q, Qlen, ar, aq, sub, x, cap, 0, frozen);
                total += 2;
                bad += (gl != wl) + (gr != wr);
                if (frozen) frozen_runs++; else half_runs++;
            }
        }
    }
    check(bad == 0 && frozen_runs > 10000 && half_runs > 10000,
          "block16 sides equal hz_xdrop_*_capped: %u of %u differ (%u frozen, %u half-window anchors)", bad, total, frozen_runs, half_runs);
}

/* ---- the diagonal path's parallel parts (src/core/xdrop_diag.h, cuda/hsp/extend_diag.cu) ----------- */

static int cmp_diag_ar(const void *x, const void *y)
{
    const hz_anchor *a = x, *b = y;
    int64_t da = (int64_t)a->ar - a->aq, db = (int64_t)b->ar - b->aq;
    return da != db ? (da < db ? -1 : 1) : a->ar != b->ar ? (a->ar < b->ar ? -1 : 1) : 0;
}

/* parts joined two ways: a sequential fold from the far end (the order of hz_side_scan) and a
 * doubling scan (another association, as a device scan may use); both == the model */
static void check_parts(const hz_anchor *a, size_t n, const int32_t *sub, int32_t X, int64_t cap, const char *what)
{
    hz_side_part_t *P = malloc(n * sizeof *P), *F = malloc(n * sizeof *F), *D = malloc(n * sizeof *D),
                   *D2 = malloc(n * sizeof *D2);
    size_t bad = 0, rules = 0, unknown = 0;
    for (int dir = 1; dir >= -1; dir -= 2) {
        /* scan order: the far end first (right sides: from the right; left sides: from the left) */
        for (size_t j = 0; j < n; j++) {
            size_t k = dir > 0 ? n - 1 - j : j;
            const hz_anchor *x = &a[k];
            int64_t d = (int64_t)x->ar - x->aq, s = x->ar;
            const hz_anchor *nb = dir > 0 ? (k + 1 < n ? &a[k + 1] : NULL) : (k > 0 ? &a[k - 1] : NULL);
            int has = nb && (int64_t)nb->ar - nb->aq == d;
            int64_t navail = dir > 0 ? (x->ar >= RL || x->aq >= QL ? 0 : (RL - x->ar < QL - x->aq ? RL - x->ar : QL - x->aq))
                                     : (x->ar < x->aq ? x->ar : x->aq);
            int64_t p0 = has ? (dir > 0 ? (int64_t)nb->ar - s : s - (int64_t)nb->ar) : 0;
            P[j] = hz_side_part(SR, SQ, d, sub, X, dir > 0 ? s : s - 1, dir, navail, has, p0, cap);
            rules += P[j].b >= 0;
        }
        for (size_t j = 0; j < n; j++) F[j] = j ? hz_side_join(P[j], F[j - 1]) : P[j];
        memcpy(D, P, n * sizeof *D);
        for (size_t w = 1; w < n; w *= 2) {
            for (size_t j = 0; j < n; j++) D2[j] = j >= w ? hz_side_join(D[j], D[j - w]) : D[j];
            memcpy(D, D2, n * sizeof *D);
        }
        for (size_t j = 0; j < n; j++) {
            size_t k = dir > 0 ? n - 1 - j : j;
            side_t m = dir > 0 ? ref_right(SR, RL, SQ, QL, a[k].ar, a[k].aq, sub, X) : ref_left(SR, SQ, a[k].ar, a[k].aq, sub, X);
            int32_t ext = dir > 0 ? (int32_t)F[j].a1 - 1 : (int32_t)F[j].a1;
            if (F[j].b == HZ_SIDE_UNKNOWN && !memcmp(&F[j], &D[j], sizeof F[j])) { unknown++; continue; }
            if (F[j].b >= 0 || F[j].x != m.best || ext != m.bp || memcmp(&F[j], &D[j], sizeof F[j])) {
                if (bad < 3) printf("# %s %s anchor (%u,%u): fold %lld/%d (b %lld), doubling %lld, model %d/%d\n", what,
                                    dir > 0 ? "right" : "left", a[k].ar, a[k].aq, (long long)F[j].x, ext, (long long)F[j].b,
                                    (long long)D[j].x, m.best, m.bp);
                bad++;
            }
        }
    }
    /* no cap: nothing unknown; a small cap (<= 100 columns) must leave some sides unknown */
    check(bad == 0 && rules > n / 4 && (cap == 0 ? unknown == 0 : cap > 100 || unknown > 0),
          "diagonal parts joined (fold and doubling) == model, %s: %zu anchors, %zu rules, %zu sides unknown", what, n, rules, unknown);
    free(P); free(F); free(D); free(D2);
}

static void test_parts(void)
{
    build_sequences();
    static hz_anchor a[6000];
    size_t n = make_anchors(a, 5000);
    qsort(a, n, sizeof *a, cmp_diag_ar);
    check_parts(a, n, HOXD, 910, 0, "X 910");
    check_parts(a, n, HOXD, 910, 64, "X 910, cap 64");
    check_parts(a, n, HOXD, 910, 300, "X 910, cap 300");
    check_parts(a, n, HOXD, 300, 0, "X 300");
    check_parts(a, n, HOXD, 20000, 0, "X 20000");
    /* +1/-1 scores: equal sums everywhere, so every tie rule is exercised */
    int32_t unit[64];
    for (int r = 0; r < 8; r++)
        for (int q = 0; q < 8; q++) unit[r * 8 + q] = r < 4 && q < 4 ? (r == q ? 1 : -1) : -3;
    check_parts(a, n, unit, 3, 0, "+1/-1, X 3");
    check_parts(a, n, unit, 3, 40, "+1/-1, X 3, cap 40");
    check_parts(a, n, unit, 12, 0, "+1/-1, X 12");
    /* dense anchors: every column of the first 3000 of the long diagonal 0, and a poly-A run */
    size_t m = 0;
    for (uint32_t i = 0; i < 3000; i++) a[m++] = (hz_anchor){i, i};
    for (uint32_t i = 11000; i < 11300; i += 3) a[m++] = (hz_anchor){i, i - 4500};
    qsort(a, m, sizeof *a, cmp_diag_ar);
    check_parts(a, m, HOXD, 910, 0, "dense");
    check_parts(a, m, HOXD, 910, 100, "dense, cap 100");
    check_parts(a, m, unit, 5, 0, "dense, +1/-1, X 5");
}

int main(void)
{
    test_one_sided();
    test_keep();
    test_log();
    test_random_anchors();
    test_parts();
    test_block16();
    printf("# %d tests, %d passed, %d failed\n", n_tests, n_tests - n_fail, n_fail);
    return n_fail ? 1 : 0;
}
