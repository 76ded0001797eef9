/* Unit tests for hz_gapped_row (src/gapped/gapped_row.c, spec §4.3): the 8-column block path
 * (AVX-512 / AVX2 where the CPU has them, and the portable vector instance) gives what LASTZ's cell gives
 * cell by cell (sv = NULL), with the row's scores read by byte or by query class (qc, tab), on random rows made to hit every case: prunes at the left edge and
 * inside blocks, masked cells (§4.5), ties between D, I and the diagonal, ties with best,
 * NEG_INF cells, values drifted below NEG_INF, widths that are not multiples of 8, and scores
 * from the default and from extreme scoring (O = 0, E = 0, Y = 0).  Compared: C, D, traceback
 * bytes, the returned I, best, bc, LY and kept.  Prints TAP lines; non-zero exit on failure. */
#include <stdlib.h>
#include <string.h>
#include "gapped.h"
#define HZ_TEST_SEED 0x5851f42d4c957f2dull
#include "tap.h"

enum { W = 160 };

static int32_t pick(int32_t best, int32_t Y)
{
    switch (rnd() % 8) {
    case 0: return HZ_G_NEG_INF;
    case 1: return HZ_G_NEG_INF - (int32_t)(rnd() % 5000);     /* drifted by gap extensions */
    case 2: return best - Y + (int32_t)(rnd() % 7) - 3;       /* at the pruning edge */
    case 3: return best - (int32_t)(rnd() % 40);
    default: return best - (int32_t)(rnd() % (uint64_t)(2 * Y + 400));
    }
}

/* one random row through both paths; returns 1 when everything agrees */
static int one_row(int portable, int32_t O, int32_t E, int32_t Y, int masks, int cls, int *npruned)
{
    int32_t C0[W + 8], D0[W + 8], C1[W + 8], D1[W + 8], sv[2 * W], sub[256];
    uint8_t tp0[W + 8], tp1[W + 8], B[W + 16];
    int64_t mk[W + 8];
    const int32_t best = (int32_t)(rnd() % 3000);
    const int64_t LY = (int64_t)(rnd() % 5), end = LY + (int64_t)(rnd() % (W - 8));
    const int64_t tag = 77;
    int32_t tab[16];                 /* the query classes' path: class of byte b = b % 16 */
    uint8_t qc[W + 16];
    for (int k = 0; k < 16; k++) tab[k] = (int32_t)(rnd() % 250) - 150;
    for (int k = 0; k < 256; k++) sub[k] = cls ? tab[k % 16] : (int32_t)(rnd() % 250) - 150;
    for (int k = 0; k < W + 16; k++) B[k] = (uint8_t)(rnd() & 255);
    for (int k = 0; k < W + 8; k++) {
        C0[k] = C1[k] = pick(best, Y); D0[k] = D1[k] = pick(best, Y);
        if (rnd() % 5 == 0) D0[k] = D1[k] = C0[k] - O - E;     /* ties between D and C */
        mk[k] = masks && rnd() % 23 == 0 ? tag : tag - 1;
        tp0[k] = tp1[k] = 0xee;
    }
    const int rev = rnd() & 1;
    const uint8_t *bp = rev ? B + W + 8 - (LY + 1) : B + LY + 1;
    hz_grow r0 = { .C = C0, .D = D0, .tp = tp0, .bp = bp, .st = rev ? -1 : 1, .sub = sub, .mk = masks ? mk : NULL,
                   .tag = tag, .E = E, .gOE = O + E, .Y = Y, .best = best, .lo = LY, .portable = portable };
    hz_grow r1 = r0;
    r1.C = C1; r1.D = D1; r1.tp = tp1; r1.sv = sv;
    if (cls) {
        for (int64_t k = 0; k < W + 16; k++) qc[k] = k < end - LY ? (uint8_t)(bp[r0.st * k] % 16) : (uint8_t)(rnd() & 15);
        r1.qc = qc; r1.tab = tab;
    }
    int32_t i0 = hz_gapped_row(&r0, end), i1 = hz_gapped_row(&r1, end);
    for (int64_t k = LY; k < end; k++) *npruned += tp0[k] == 0 && C0[k] == HZ_G_NEG_INF;
    return i0 == i1 && r0.best == r1.best && r0.bc == r1.bc && r0.LY == r1.LY && r0.kept == r1.kept
        && !memcmp(C0, C1, sizeof C0) && !memcmp(D0, D1, sizeof D0) && !memcmp(tp0, tp1, sizeof tp0);
}

int main(void)
{
    static const int32_t sc[][3] = { { 400, 30, 9430 }, { 400, 30, 300 }, { 0, 30, 200 }, { 50, 0, 100 },
                                     { 0, 0, 0 }, { 3400, 1, 9400 }, { 10, 200, 1000 } };
    for (int portable = 0; portable < 3; portable++)   /* best instance (AVX-512 where it runs), portable, AVX2 */
        for (size_t s = 0; s < sizeof sc / sizeof sc[0]; s++)
            for (int masks = 0; masks < 2; masks++)
                for (int cls = 0; cls < 2; cls++) {   /* scores by byte (sub[*bp]) or by class (tab[qc]) */
                    int bad = 0, pruned = 0;
                    if (!hz_gapped_row_vec_ok(sc[s][0], sc[s][1], sc[s][2])) { bad = 1; }
                    for (int n = 0; n < 3000 && !bad; n++)
                        bad = !one_row(portable, sc[s][0], sc[s][1], sc[s][2], masks, cls, &pruned);
                    check(!bad && pruned > 100, "%s blocks == cell by cell: O=%d E=%d Y=%d, %s, scores by %s (3000 rows, %d pruned cells)",
                          portable == 1 ? "portable" : portable == 2 ? "AVX2-or-below" : "best-native", sc[s][0], sc[s][1], sc[s][2],
                          masks ? "masks" : "no masks", cls ? "class" : "byte", pruned);
                }
    check(!hz_gapped_row_vec_ok(-1, 30, 9400) && !hz_gapped_row_vec_ok(400, 1 << 16, 9400),
          "a negative gap open or a huge extend runs cell by cell");
    printf("1..%d\n", n_tests);
    return n_fail != 0;
}
