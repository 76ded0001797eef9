/* Unit tests for the device path of the gapped stage (src/gapped/gapped_dev.h, gapped_ywarp.h;
 * spec §4 and §12) on the CPU, so they run where there is no GPU:
 *   1. hz_yw_half (the code the CUDA kernel runs, one warp per half; here lanes are arrays)
 *      gives what hz_gapped_half gives against an empty set: score, end cell, run list and
 *      explored region, on random sequences with planted homologies, both directions, many
 *      anchors, several scorings; a pool too small for a half gives RETRY, never a write past it;
 *   2. a pass through hz_gapped_pass_pre with the "emu" device's results (the same batches the
 *      GPU gets) gives exactly hz_gapped_pass's alignments, neighbours and order, for 1, 2 and 5
 *      threads, on a tandem repeat where many speculative results must be redone;
 *   3. --device=cuda without CUDA / a GPU is refused by hz_gdev_open with a reason (1);
 *   4. hz_gapped_nb_changes (spec §12 (a)): on a pair with a long alignment and repeats far from
 *      it in the query, a result made against no alignments that it keeps (with no mask near)
 *      equals the extension against the set, anchor by anchor; the test keeps some that have
 *      neighbours and refuses some whose result the neighbours do change.
 * Prints TAP lines; exits non-zero on any failure. */
#include <stdlib.h>
#include <string.h>
#include "gapped.h"
#include "gapped_dev.h"
#define HZ_TEST_SEED 0x9e3779b97f4a7c15ull
#include "tap.h"

static const char LET[] = "ACGT";

/* target and query with homologous stretches (mutation rate pm %, indels pi %) */
static void make_pair(uint8_t *t, uint8_t *q, int64_t len, int pm, int pi)
{
    t[0] = 0; q[0] = 0;
    int64_t j = 1;
    for (int64_t i = 1; i <= len; i++) {
        t[i] = (uint8_t)LET[rnd() & 3];
        if (rnd() % 97 == 0) t[i] = (uint8_t)"acgtN"[rnd() % 5];   /* soft-masking, N */
    }
    for (int64_t i = 1; i <= len && j <= len; i++) {
        uint64_t r = rnd() % 100;
        if ((int)r < pi) { if (rnd() & 1) continue; q[j++] = (uint8_t)LET[rnd() & 3]; if (j > len) break; }
        q[j++] = (int)(rnd() % 100) < pm ? (uint8_t)LET[rnd() & 3] : t[i];
    }
    while (j <= len) q[j++] = (uint8_t)LET[rnd() & 3];
    t[len + 1] = 0; q[len + 1] = 0;
}

static int same_region(const hz_gwork *w, int rev, const int32_t *rg, int32_t nrow)
{
    if (w->nrow[rev] != nrow) return 0;
    for (int64_t b = 0; nrow && b < 2 * (nrow / HZ_G_RGB + 1); b++)
        if (w->rg[rev][b] != rg[b]) return 0;
    return 1;
}

/* a host pool and outputs for hz_yw_half (emptied per half) */
typedef struct { hz_ywmem m; unsigned long long top[3]; int32_t *win; } ywhost;

static void yw_init(ywhost *h, int64_t pool)
{
    memset(h, 0, sizeof *h);
    h->m.pool = malloc((size_t)pool); h->m.pool_cap = pool;
    h->m.ops = malloc(1 << 22); h->m.ops_cap = 1 << 20;
    h->m.rg = malloc(1 << 22); h->m.rg_cap = 1 << 20;
    h->m.pool_top = &h->top[0]; h->m.ops_top = &h->top[1]; h->m.rg_top = &h->top[2];
    h->win = malloc(2 * HZ_YW_W * sizeof *h->win);
}

static void yw_run(ywhost *h, const hz_y0in *in, hz_ywres *r)
{
    h->top[0] = h->top[1] = h->top[2] = 0;
    hz_ywwarp W = { h->win, h->win + HZ_YW_W, 0, 0 };
    hz_yw_half(in, &h->m, &W, r);
}

static void test_halves(const hz_gscore *sc0)
{
    enum { LEN = 6000 };
    uint8_t *t = malloc(LEN + 2), *q = malloc(LEN + 2);
    ywhost yh; yw_init(&yh, 1 << 26);
    hz_gwork w = { 0 }; w.rec = 1;
    hz_gset S = { 0 };
    hz_gref none = { -1, -1 };
    uint32_t *ops = NULL; int32_t cap = 0;
    int nok = 0, nbad = 0, nfull = 0, ndiff = 0, nlong = 0, ntrunc = 0;
    hz_gscore *sc = malloc(sizeof *sc);
    for (int rep = 0; rep < 12; rep++) {
        *sc = *sc0;
        /* scorings: LASTZ's default; a small y-drop; O = 0; a large E (narrow bands); y-drop 0 */
        if (rep % 6 == 1) sc->ydrop = 1200;
        if (rep % 6 == 2) { sc->gap_open = 0; sc->ydrop = 3000; }
        if (rep % 6 == 3) { sc->gap_extend = 200; }
        if (rep % 6 == 4) sc->ydrop = 0;
        make_pair(t, q, LEN, 2 + rep % 4 * 4, rep % 3);
        int64_t sep[2] = { 0, LEN + 1 };
        hz_gqcls qk;                     /* odd reps: the CPU reads scores by query class */
        hz_gscore_qclasses(sc, &qk);
        hz_gpass P = { t, LEN + 1, sep, 1, q + 1, LEN, NULL, 0, sc, 3000, rep % 6 == 5 ? 20000 : 1 << 24, NULL, NULL, NULL, 0, 0,
                       rep % 2 ? &qk : NULL };
        for (int k = 0; k < 30; k++) {
            int64_t a1 = 1 + (int64_t)(rnd() % LEN), a2 = (int64_t)(rnd() % LEN);
            if (k % 3 == 0) a2 = a1 - 1 < LEN ? a1 - 1 : LEN - 1;          /* on the homology */
            if (k == 1) a1 = LEN, a2 = LEN - 1;                            /* at the ends */
            if (k == 2) a1 = 1, a2 = 0;
            for (int rev = 0; rev < 2; rev++) {
                int32_t nops = 0; int64_t er, ec;
                w.trunc = 0;
                int32_t s = hz_gapped_half(&P, &w, &S, rev, a1, a2, 1, LEN + 1, 0, LEN, none, none, NULL, 0,
                                           &ops, &nops, &cap, &er, &ec);
                hz_y0in in = { rev ? t + a1 + 1 : t + a1, rev ? q + 1 + a2 + 1 : q + 1 + a2, rev ? -1 : 1,
                               rev ? a1 : LEN - a1, rev ? a2 + 1 : LEN - a2 - 1, &sc->sub[0][0],
                               sc->gap_open, sc->gap_extend, sc->ydrop, P.tb_cap };
                hz_ywres r;
                yw_run(&yh, &in, &r);
                if (r.r.status == HZ_Y0_FULL) { nfull++; continue; }
                if (r.r.status == HZ_Y0_TRUNC) { if (w.trunc) { nok++; ntrunc++; } else nbad++; continue; }
                if (w.trunc || r.r.status != HZ_Y0_OK) { nbad++; continue; }
                int32_t nrg = r.r.nrow ? 2 * (r.r.nrow / HZ_G_RGB + 1) : 0;
                if (r.r.score == s && r.r.er == er && r.r.ec == ec && r.r.nops == nops &&
                    !memcmp(yh.m.ops + r.op, ops, (size_t)nops * 4) && same_region(&w, rev, yh.m.rg + r.rg, r.r.nrow) &&
                    (int64_t)yh.top[1] == nops && (int64_t)yh.top[2] == nrg) {
                    nok++; if (nops > 1) ndiff++; if (er > 500) nlong++;
                } else {
                    nbad++;
                    if (nbad <= 3)
                        fprintf(stderr, "# rep %d k %d rev %d: score %d/%d end %lld,%lld/%lld,%lld nops %d/%d nrow %d/%lld\n", rep, k, rev,
                                r.r.score, s, (long long)r.r.er, (long long)r.r.ec, (long long)er, (long long)ec, r.r.nops, nops,
                                r.r.nrow, (long long)w.nrow[rev]);
                }
            }
        }
    }
    check(nbad == 0 && nok > 600, "hz_yw_half = hz_gapped_half on an empty set: %d halves equal (%d with gaps, %d over 500 rows, %d truncated), %d different, %d left (FULL)",
          nok, ndiff, nlong, ntrunc, nbad, nfull);
    check(ndiff > 40 && nlong > 20 && ntrunc > 0, "the comparison covered gapped, long and truncated halves (%d, %d, %d)", ndiff, nlong, ntrunc);
    check(nfull == 0, "no half of these scorings is left to the CPU (%d)", nfull);
    /* outside the device's bounds: a band wider than the window (E = 1: row 0 alone runs 9,000
     * columns), a gap open of 2^23; both left to the CPU (FULL) before any cell */
    {
        enum { WL = 20000 };
        uint8_t *a = malloc(WL + 2), *b = malloc(WL + 2);
        for (int i = 0; i < WL + 2; i++) { a[i] = (uint8_t)LET[rnd() & 3]; b[i] = (uint8_t)LET[rnd() & 3]; }
        hz_y0in in = { a + 1, b + 1, 1, 100, WL - 10, &sc0->sub[0][0], 400, 1, 9400, 1 << 24 };
        hz_ywres r;
        yw_run(&yh, &in, &r);
        check(r.r.status == HZ_Y0_FULL && yh.top[0] == 0, "a band over %d columns (E = 1, y-drop 9400): FULL, no pool taken (%d)", HZ_YW_W, r.r.status);
        in.E = 30; in.O = 1 << 23;
        yw_run(&yh, &in, &r);
        check(r.r.status == HZ_Y0_FULL, "a gap open of 2^23: FULL (%d)", r.r.status);
        in.O = 400;
        yw_run(&yh, &in, &r);
        check(r.r.status == HZ_Y0_OK, "the same half with O = 400, E = 30: done (%d)", r.r.status);
        free(a); free(b);
    }
    /* a pool too small for the half: RETRY, and nothing written past the pool */
    *sc = *sc0;
    make_pair(t, q, LEN, 1, 0);
    ywhost small; yw_init(&small, (1 << 20) + 64);
    memset(small.m.pool, 0xA5, (size_t)small.m.pool_cap);
    hz_y0in in = { t + 100, q + 1 + 99, 1, LEN - 100, LEN - 100, &sc->sub[0][0], sc->gap_open, sc->gap_extend, sc->ydrop, 1 << 24 };
    hz_ywres r;
    yw_run(&small, &in, &r);
    check(r.r.status == HZ_YW_RETRY, "a 5900-row homology in a 1 MiB pool stops with RETRY (%d)", r.r.status);
    yw_run(&yh, &in, &r);
    check(r.r.status == HZ_Y0_OK && r.r.er > 5000, "and is done with a larger pool (%d rows)", (int)r.r.er);
    free(ops); hz_gwork_free(&w); free(sc);
    free(yh.m.pool); free(yh.m.ops); free(yh.m.rg); free(yh.win);
    free(small.m.pool); free(small.m.ops); free(small.m.rg); free(small.win);
    free(t); free(q);
}

static int same_sets(const hz_gset *A, const hz_gset *B)
{
    if (A->n != B->n || A->nout != B->nout) return 0;
    for (int32_t k = 0; k < A->n; k++) {
        const hz_galn *a = &A->a[A->kept[k]], *b = &B->a[B->kept[k]];
        if (A->kept[k] != B->kept[k] || A->byend[k] != B->byend[k]) return 0;
        if (a->s1 != b->s1 || a->s2 != b->s2 || a->t1 != b->t1 || a->t2 != b->t2 || a->score != b->score) return 0;
        if (a->nops != b->nops || memcmp(a->ops, b->ops, (size_t)a->nops * sizeof *a->ops)) return 0;
        if (memcmp(&a->bl, &b->bl, sizeof a->bl) || memcmp(&a->br, &b->br, sizeof a->br) ||
            memcmp(&a->tl, &b->tl, sizeof a->tl) || memcmp(&a->tr, &b->tr, sizeof a->tr)) return 0;
    }
    return 1;
}

/* tandem repeat (12 mutated copies of a 300-bp unit) against a mutated copy: every extension
 * runs into the others, so many device results must be redone at commit */
static void test_pass(const hz_gscore *sc)
{
    enum { U = 300, NC = 12, LEN = U * NC + 200 };
    uint8_t *t = calloc(LEN + 2, 1), *q = calloc(LEN + 2, 1);
    char unit[U];
    for (int i = 0; i < U; i++) unit[i] = LET[rnd() & 3];
    for (int i = 0; i < LEN; i++) {
        char b = i >= 100 && i < 100 + U * NC ? unit[(i - 100) % U] : LET[rnd() & 3];
        t[1 + i] = rnd() % 100 < 6 ? (uint8_t)LET[rnd() & 3] : (uint8_t)b;
        q[1 + i] = rnd() % 100 < 6 ? (uint8_t)LET[rnd() & 3] : (uint8_t)b;
    }
    int64_t sep[2] = { 0, LEN + 1 };
    hz_gpass P = { t, LEN + 1, sep, 1, q + 1, LEN, NULL, 0, sc, 3000, 1 << 24, NULL, NULL, NULL, 0, 0, NULL };
    hz_ganchor *an = malloc(NC * NC * sizeof *an);
    int64_t nan = 0;
    for (int i = 0; i < NC; i++)
        for (int j = 0; j < NC; j++)
            an[nan++] = (hz_ganchor){ 1 + 100 + i * U + U / 2, 100 + j * U + U / 2 + (i * 7 + j) % 11, 100000 - 100 * abs(i - j) - i };
    for (int64_t a = 1; a < nan; a++)
        for (int64_t b = a; b > 0 && an[b].score > an[b - 1].score; b--) { hz_ganchor z = an[b]; an[b] = an[b - 1]; an[b - 1] = z; }
    hz_gwork w = { 0 };
    hz_gset S1 = { 0 };
    int rc = hz_gapped_pass(&P, &w, an, nan, &S1);
    check(rc == 0 && S1.n > 5, "tandem repeat, CPU: %d alignments", S1.n);
    hz_gdev *d = NULL; char err[256];
    rc = hz_gdev_open("emu", 1, &d, err, sizeof err);
    check(rc == 0 && d && !strcmp(hz_gdev_name(d), "emu"), "the emu device opens");
    hz_gdres *R = NULL;
    rc = hz_gdev_pass(d, &P, an, nan, &R, err, sizeof err);
    if (R && hz_gdres_wait(R, err, sizeof err)) rc = -1;
    int64_t ok = 0, left = 0;
    if (R) hz_gdres_counts(R, &ok, &left);
    int64_t nl = 0, nre = 0;
    if (R) hz_gdres_rounds(R, &nl, &nre);
    check(rc == 0 && ok > 20 && ok + left == 2 * nan && nl > 1 && nre > 0,
          "emu extended %lld of %lld halves (%lld left to the CPU) in %lld launches, %lld halves run again after a full pool",
          (long long)ok, (long long)(2 * nan), (long long)left, (long long)nl, (long long)nre);
    {   /* the launches' demand: a half run again means the pool or an output buffer ran out */
        int64_t use[3] = { 0 }, cap[3] = { 0 }; double busy = -1;
        if (R) hz_gdres_load(R, &busy, use, cap);
        check(busy >= 0 && cap[0] > 0 && cap[1] > 0 && cap[2] > 0 && (use[0] > cap[0] || use[1] > cap[1] || use[2] > cap[2]) && use[1] > 0 && use[2] > 0,
              "the largest demand of a launch: pool %lld of %lld bytes, run lists %lld of %lld, regions %lld of %lld (%.4f s on the device)",
              (long long)use[0], (long long)cap[0], (long long)use[1], (long long)cap[1], (long long)use[2], (long long)cap[2], busy);
    }
    int64_t redo_all = 0;
    for (int nt = 1; nt <= 5; nt += nt == 2 ? 3 : 1) {   /* 1, 2, 5 */
        hz_gset S2 = { 0 }; int64_t redo = 0;
        rc = hz_gapped_pass_pre(&P, &w, an, nan, &S2, nt, &redo, hz_gdres_take, R);
        check(rc == 0 && same_sets(&S1, &S2), "device results on %d threads: the same alignments, order and neighbours (%lld redone)",
              nt, (long long)redo);
        redo_all += redo;
        hz_gset_free(&S2);
    }
    check(redo_all > 0, "speculative results (device or CPU) an accepted alignment could change were redone (%lld)", (long long)redo_all);
    for (int nt = 1; nt <= 5; nt += 4)     /* the pass runs while the device is still on later batches */
    for (int wait = 1; wait >= 0; wait--) {   /* 0: anchors whose batch is not done go to the CPU */
        hz_gdres *R2 = NULL; hz_gset S2 = { 0 }; int64_t redo = 0, ok2 = 0, left2 = 0, nl2 = 0, nre2 = 0;
        hz_gdev_set_first(d, 3); hz_gdev_set_wait(d, wait);
        rc = hz_gdev_pass(d, &P, an, nan, &R2, err, sizeof err);
        if (!rc) rc = hz_gapped_pass_pre(&P, &w, an, nan, &S2, nt, &redo, hz_gdres_take, R2);
        if (R2 && hz_gdres_wait(R2, err, sizeof err)) rc = -1;
        if (R2) { hz_gdres_counts(R2, &ok2, &left2); hz_gdres_rounds(R2, &nl2, &nre2); }
        check(rc == 0 && same_sets(&S1, &S2) && ok2 == ok && left2 == left && nl2 >= 6,
              "batches of 3, 6, 12, ... anchors taken while the device runs, %d threads, %s: the same alignments (%lld redone), "
              "the same %lld halves on the device in %lld launches", nt, wait ? "waiting for the batch" : "the CPU's while not done",
              (long long)redo, (long long)ok2, (long long)nl2);
        hz_gdres_free(R2); hz_gset_free(&S2);
    }
    {   /* a pass done on the CPU while the device runs: hz_gdres_finish stops it before its next
         * launch, the same alignments, the counts only of batches done */
        hz_gdres *R4 = NULL; hz_gset S4 = { 0 }; int64_t redo = 0, ok4 = -1, left4 = -1, nl4 = -1, nre4 = -1;
        hz_gdev_set_first(d, 3); hz_gdev_set_wait(d, 0);
        rc = hz_gdev_pass(d, &P, an, nan, &R4, err, sizeof err);
        if (!rc) rc = hz_gapped_pass_pre(&P, &w, an, nan, &S4, 5, &redo, hz_gdres_take, R4);
        if (R4 && hz_gdres_finish(R4, err, sizeof err)) rc = -1;
        if (R4) { hz_gdres_counts(R4, &ok4, &left4); hz_gdres_rounds(R4, &nl4, &nre4); }
        check(rc == 0 && same_sets(&S1, &S4) && ok4 >= 0 && ok4 <= ok && left4 <= left && nl4 >= 0 && nl4 <= 14,
              "hz_gdres_finish after the pass: the same alignments; the device stopped after %lld launches (%lld halves done)",
              (long long)nl4, (long long)ok4);
        hz_gdres_free(R4); hz_gset_free(&S4);
        hz_gdev_set_wait(d, 1);
    }
    {   /* a pass that ends first: freeing the results stops the device after its launch */
        hz_gdres *R3 = NULL;
        rc = hz_gdev_pass(d, &P, an, nan, &R3, err, sizeof err);
        hz_gdres_free(R3);
        check(rc == 0, "results freed while the device runs: the device's thread stops");
        hz_gdev_set_first(d, 0); hz_gdev_set_wait(d, 1);
    }
    {   /* HSPZ_GAPPED_STATS=chain's pass: the same set, and a line whose bounds are ordered */
        hz_gset S3 = { 0 };
        FILE *lf = tmpfile();
        rc = lf ? hz_gapped_pass_chain(&P, &w, an, nan, &S3, lf) : -1;
        char line[512] = "";
        if (lf) { rewind(lf); if (!fgets(line, sizeof line, lf)) line[0] = 0; fclose(lf); }
        long long na = -1, ne = -1, k0 = -1, cells = -1, pr = -1, pcl = -1, nref = -1, nfa = -1, nfm = -1, nun = -1; int nal = -1;
        double ser = -1, bc = -1, bd = -1, bk = -1;
        int f = sscanf(line, "hspz-gapped-chain: anchors %lld extended %lld (empty-set result exact %lld) alignments %d cells %lld; "
                             "serial %lf s; chain with unlimited cores: cpu %lf s, device %lf s; probes %lld (%lld cells); "
                             "the commit check refuses %lld empty-set results (%lld of them exact, %lld of those by a mask; %lld not exact kept): device with the check %lf s",
                       &na, &ne, &k0, &nal, &cells, &ser, &bc, &bd, &pr, &pcl, &nref, &nfa, &nfm, &nun, &bk);
        check(rc == 0 && same_sets(&S1, &S3) && f == 15 && nfm >= 0 && nfm <= nfa && na == nan && nal == S1.n && ne >= nal && k0 < ne && k0 > 0 &&
              pr >= ne && bd <= bk && bk <= bc && bc <= ser && bc > 0 && nun == 0 && nref >= ne - k0 && nfa <= nref,
              "the chain pass: the same alignments; %lld of %lld extended anchors exact against no alignments, the check "
              "refuses %lld (%lld exact, %lld inexact kept); bounds device %.4f <= with the check %.4f <= cpu %.4f <= serial %.4f s (%lld probes)",
              k0, ne, nref, nfa, nun, bd, bk, bc, ser, pr);
        hz_gset_free(&S3);
    }
    hz_gdres_free(R); hz_gdev_close(d);
    hz_gset_free(&S1); hz_gwork_free(&w); free(an); free(t); free(q);
}

/* does an alignment of S that does not span row a1 have its box near the region explored (both
 * halves' bounding boxes, widened)?  Then a §4.5 mask could differ: not a case of test 4 */
static int mask_near(const hz_gset *S, const hz_gwork *w, int64_t a1, int64_t a2)
{
    for (int32_t i = 0; i < S->n; i++) {
        const hz_galn *G = &S->a[i];
        if (G->s1 <= a1 && a1 <= G->t1) continue;
        for (int h = 0; h < 2; h++) {
            if (!w->nrow[h]) continue;
            int64_t lo = INT64_MAX, hi = INT64_MIN;
            for (int64_t b = 0; b <= w->nrow[h] / HZ_G_RGB; b++) {
                if (w->rg[h][2 * b] < lo) lo = w->rg[h][2 * b];
                if (w->rg[h][2 * b + 1] > hi) hi = w->rg[h][2 * b + 1];
            }
            int64_t r0 = h ? a1 - w->nrow[h] : a1, r1 = h ? a1 : a1 + w->nrow[h];
            int64_t c0 = h ? a2 - hi : a2 + lo, c1 = h ? a2 - lo : a2 + hi;
            if (G->t1 >= r0 - 2 && G->s1 <= r1 + 2 && G->t2 >= c0 - 4 && G->s2 <= c1 + 4) return 1;
        }
    }
    return 0;
}

static int same_result(int ra, const hz_galn *A, int rb, const hz_galn *B)
{
    if (ra != rb) return 0;
    if (ra != 1) return 1;
    return A->s1 == B->s1 && A->s2 == B->s2 && A->t1 == B->t1 && A->t2 == B->t2 && A->score == B->score &&
           A->nops == B->nops && !memcmp(A->ops, B->ops, (size_t)A->nops * sizeof *A->ops);
}

/* 4: a 30-kbp pair that is one mutated copy (one long alignment spanning every row) with a
 * 500-bp unit planted at 14 places in each, at unrelated query offsets or (every third) a few
 * hundred columns beside the long diagonal; anchors on the long
 * diagonal and on unit pairs, run in order as hz_gapped_pass does */
static void test_nb_changes(const hz_gscore *sc)
{
    enum { LEN = 30000, U = 500, NU = 14 };
    uint8_t *t = calloc(LEN + 2, 1), *q = calloc(LEN + 2, 1);
    char unit[U];
    for (int i = 0; i < U; i++) unit[i] = LET[rnd() & 3];
    for (int i = 1; i <= LEN; i++) t[i] = (uint8_t)LET[rnd() & 3];
    for (int i = 1; i <= LEN; i++) q[i] = rnd() % 100 < 5 ? (uint8_t)LET[rnd() & 3] : t[i];
    int64_t tp[NU], qp[NU];
    for (int k = 0; k < NU; k++) {
        tp[k] = 1000 + k * 2000; qp[k] = 1000 + ((k * 5 + 3) % NU) * 2000 + 700;
        if (k % 3 == 0) qp[k] = tp[k] + (k & 1 ? -1 : 1) * (90 + 25 * k);   /* near the long diagonal */
        for (int i = 0; i < U; i++) {
            t[tp[k] + i] = rnd() % 100 < 4 ? (uint8_t)LET[rnd() & 3] : (uint8_t)unit[i];
            q[qp[k] + i] = rnd() % 100 < 4 ? (uint8_t)LET[rnd() & 3] : (uint8_t)unit[i];
        }
    }
    int64_t sep[2] = { 0, LEN + 1 };
    hz_gpass P = { t, LEN + 1, sep, 1, q + 1, LEN, NULL, 0, sc, 3000, 1 << 24, NULL, NULL, NULL, 0, 0, NULL };
    hz_ganchor *an = malloc((NU * NU + 16) * sizeof *an);
    int64_t nan = 0;
    for (int k = 0; k < 8; k++) an[nan++] = (hz_ganchor){ 1500 + k * 3500, 1500 + k * 3500 - 1, 900000 - k };
    for (int i = 0; i < NU; i++)
        for (int j = 0; j < NU; j++)
            an[nan++] = (hz_ganchor){ tp[i] + U / 2, qp[j] + U / 2 - 1, 50000 - i * NU - j };
    hz_gwork w = { 0 }, we = { 0 };
    we.rec = 1;
    hz_gset S = { 0 }, E0 = { 0 };
    uint32_t *rops = NULL; int32_t rcap = 0;
    int64_t kept = 0, kept_nb = 0, bad = 0, refused = 0, changed = 0;
    for (int64_t k = 0; k < nan; k++) {
        hz_galn G, GE;
        int rt = hz_gapped_extend(&P, &w, &S, an[k].a1, an[k].a2, &G, &rops, &rcap);
        int re = hz_gapped_extend(&P, &we, &E0, an[k].a1, an[k].a2, &GE, &rops, &rcap);
        const hz_gref none[2] = { { -1, -1 }, { -1, -1 } };
        hz_gref l, r;
        int in = hz_gapped_neighbours(&S, an[k].a1, an[k].a2, &l, &r), nb = !in && (l.aln >= 0 || r.aln >= 0);
        if (!we.trunc && !mask_near(&S, &we, an[k].a1, an[k].a2)) {
            int ch = hz_gapped_nb_changes(&P, &S, an[k].a1, an[k].a2, none, we.rg, we.nrow);
            int same = same_result(rt, &G, re, &GE);
            if (!ch) { kept++; kept_nb += nb; bad += !same; }
            else if (!in) { refused++; changed += !same; }
        }
        if (re == 1) { free(GE.ops); free(GE.pc); }
        if (rt == 1 && hz_gapped_accept(&S, &G)) break;
    }
    check(bad == 0 && kept_nb >= 10, "results made against no alignments that hz_gapped_nb_changes keeps equal the extension against the set "
          "(%lld kept, %lld of them with neighbours, %lld different)", (long long)kept, (long long)kept_nb, (long long)bad);
    check(refused > 0 && changed > 0, "it refuses some not contained (%lld), among them results the neighbours do change (%lld)", (long long)refused, (long long)changed);
    free(rops); hz_gset_free(&S); hz_gwork_free(&w); hz_gwork_free(&we); free(an); free(t); free(q);
}

int main(void)
{
    hz_gscore *sc = malloc(sizeof *sc);
    hz_gscore_default(sc);
    sc->ydrop = 9430;
    test_halves(sc);
    test_pass(sc);
    test_nb_changes(sc);
    hz_gdev *d = NULL; char err[256] = "";
    int rc = hz_gdev_open("nonesuch", 1, &d, err, sizeof err);
    check(rc == -1 && !d && strstr(err, "nonesuch"), "an unknown device kind is an error (%s)", err);
#if !HSPZ_HAVE_CUDA
    rc = hz_gdev_open("cuda", 1, &d, err, sizeof err);
    check(rc == 1 && !d && strstr(err, "without CUDA"), "cuda without CUDA: not available, with the reason (%s)", err);
#endif
    free(sc);
    printf("1..%d\n", n_tests);
    return n_fail != 0;
}
