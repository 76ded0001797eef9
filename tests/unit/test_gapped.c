/* Unit tests for the gapped stage's DP (src/gapped/gapped_ydrop.c, src/gapped/gapped_align.c;
 * ../shared/spec/lastz-gapped-spec.md §4-§5) on hand-made sequences whose best alignment is
 * worked out by hand with HOXD70 (A/T 91, C/G 100 on the diagonal, gap 400 + 30 per base).
 * Prints TAP lines; exits non-zero on any failure. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gapped.h"
#include "tap.h"

/* a one-record target and a query laid out as in spec §1.5 */
typedef struct { uint8_t t[256], q[256]; int64_t sep[2]; hz_gpass P; } fixture;

static void setup(fixture *f, const hz_gscore *sc, const char *t, const char *q)
{
    memset(f, 0, sizeof *f);
    size_t lt = strlen(t), lq = strlen(q);
    memcpy(f->t + 1, t, lt); memcpy(f->q + 1, q, lq);
    f->sep[0] = 0; f->sep[1] = (int64_t)lt + 1;
    hz_gpass P = { f->t, (int64_t)lt + 1, f->sep, 1, f->q + 1, (int64_t)lq, NULL, 0, sc, 0, 1 << 20, NULL, NULL, NULL, 0, 0, NULL };
    f->P = P;
}

static int32_t diag_sum(const char *t, const char *q, size_t n)
{
    static const char L[] = "ACGT";
    static const int32_t H[4][4] = { { 91, -114, -31, -123 }, { -114, 100, -125, -31 }, { -31, -125, 100, -114 }, { -123, -31, -114, 91 } };
    int32_t s = 0;
    for (size_t i = 0; i < n; i++) s += H[strchr(L, t[i]) - L][strchr(L, q[i]) - L];
    return s;
}

/* xorshift, so the repeats are the same on every machine */
static uint32_t rnd(uint32_t *x) { *x ^= *x << 13; *x ^= *x >> 17; *x ^= *x << 5; return *x; }

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

/* spec §12: anchors of one pass on several threads give exactly the sequential set.  A tandem
 * repeat (12 mutated copies of one 300-bp unit) against a mutated copy of itself, one anchor
 * per pair of copies: every alignment runs into the others (bounds, masks, containment), so
 * many speculative extensions must be recomputed. */
/* hz_gallow_fn for test_par: a different allowance (0..8, clamped by the pass) at each call */
static int vary_allow(void *ctx)
{
    uint32_t *x = ctx;
    return (int)(rnd(x) % 9);
}

static void test_par(const hz_gscore *sc)
{
    enum { U = 300, NC = 12, LEN = U * NC + 200 };
    static const char L[] = "ACGT";
    uint8_t *t = calloc(LEN + 2, 1), *q = calloc(LEN + 2, 1);
    char unit[U];
    uint32_t x = 12345;
    for (int i = 0; i < U; i++) unit[i] = L[rnd(&x) & 3];
    for (int i = 0; i < LEN; i++) {
        char b = i >= 100 && i < 100 + U * NC ? unit[(i - 100) % U] : L[rnd(&x) & 3];
        t[1 + i] = rnd(&x) % 100 < 6 ? (uint8_t)L[rnd(&x) & 3] : (uint8_t)b;
        q[1 + i] = rnd(&x) % 100 < 6 ? (uint8_t)L[rnd(&x) & 3] : (uint8_t)b;
    }
    int64_t sep[2] = { 0, LEN + 1 };
    hz_gpass P = { t, LEN + 1, sep, 1, q + 1, LEN, NULL, 0, sc, 3000, 1 << 24, NULL, NULL, NULL, 0, 0, NULL };
    hz_ganchor *an = malloc(NC * NC * sizeof *an);
    int64_t nan = 0;
    for (int i = 0; i < NC; i++)
        for (int j = 0; j < NC; j++)   /* §3.6 order: by score; near-diagonal pairs first */
            an[nan++] = (hz_ganchor){ 1 + 100 + i * U + U / 2, 100 + j * U + U / 2 + (i * 7 + j) % 11, 100000 - 100 * abs(i - j) - i };
    for (int64_t a = 1; a < nan; a++)
        for (int64_t b = a; b > 0 && an[b].score > an[b - 1].score; b--) { hz_ganchor z = an[b]; an[b] = an[b - 1]; an[b - 1] = z; }
    hz_gwork w = { 0 };
    hz_gset S1 = { 0 };
    int rc = hz_gapped_pass(&P, &w, an, nan, &S1);
    check(rc == 0 && S1.n > 5, "tandem repeat, sequential: %d alignments", S1.n);
    int64_t redo_all = 0;
    for (int nt = 2; nt <= 7; nt += nt == 3 ? 4 : 1) {   /* 2, 3, 7 */
        hz_gset S2 = { 0 }; int64_t redo = 0;
        rc = hz_gapped_pass_par(&P, &w, an, nan, &S2, nt, &redo);
        redo_all += redo;
        check(rc == 0 && same_sets(&S1, &S2), "tandem repeat on %d threads: the same alignments, order and neighbours (%lld recomputed)",
              nt, (long long)redo);
        hz_gset_free(&S2);
    }
    check(redo_all > 0, "speculative results were recomputed (%lld): the validity check was exercised", (long long)redo_all);
    /* a pass whose allowed threads change while it runs (gapped_cmd.c pass_allow): 1..7 of 7 */
    for (int seed = 1; seed <= 3; seed++) {
        hz_gset S2 = { 0 }; int64_t redo = 0;
        uint32_t ctx = (uint32_t)seed, calls0;
        rc = hz_gapped_pass_dyn(&P, &w, an, nan, &S2, 7, vary_allow, &ctx, &redo, NULL, NULL);
        calls0 = ctx;
        check(rc == 0 && same_sets(&S1, &S2) && calls0 != (uint32_t)seed,
              "tandem repeat, 7 threads allowed 1..7 at random (seed %d): the same alignments (%lld recomputed)", seed, (long long)redo);
        hz_gset_free(&S2);
    }
    hz_gset_free(&S1); hz_gwork_free(&w); free(an); free(t); free(q);
}

/* hz_gscore_load through the shared reader (scorefile.h): lastz's reading of a score file
 * (spec §2.2): \v separates tokens, a label "00" is refused (lastz: "invalid character code"),
 * more rows than columns keep only the square upper-case block for the header. */
static void test_scorefile(void)
{
    char path[] = "/tmp/hz_test_gscore_XXXXXX";
    int fd = mkstemp(path);
    const char *txt = "gap_open_penalty = 500 # c\nbad_score = X:-2K\n A\vC G T\nA 91 -114 -31 -123\n"
                      "C -114 100 -125 -31\nG -31 -125 100 -114\nT -123 -31 -114 91\nN -5 -5 -5 -5\n";
    check(fd >= 0 && write(fd, txt, strlen(txt)) == (ssize_t)strlen(txt), "score file written");
    close(fd);
    hz_gscore *sc = malloc(sizeof *sc);
    int32_t fy = -1, fl = -1;
    char err[512] = "";
    hz_gscore_default(sc);
    int rc = hz_gscore_load(sc, path, path, &fy, &fl, err, sizeof err);
    check(rc == 0 && sc->gap_open == 500 && sc->sub['A']['C'] == -114 && sc->sub['c']['a'] == -114 &&
          sc->sub['N']['G'] == -5 && sc->sub['X']['A'] == -2000 && sc->ydrop == 500 + 300 * 30,
          "score file: settings, \\v-separated labels, lower case copied, N row, bad score (%s)", err);
    check(rc == 0 && sc->nrows == 4 && !memcmp(sc->rows, "ACGT", 4) && sc->hdr[1][2] == -125,
          "score file: 5 rows under 4 columns keep the ACGT block for the header (%d rows)", sc->nrows);
    fd = open(path, O_WRONLY | O_TRUNC);
    txt = " 00 A C G T\n";
    check(fd >= 0 && write(fd, txt, strlen(txt)) == (ssize_t)strlen(txt), "score file rewritten");
    close(fd);
    hz_gscore_default(sc);
    rc = hz_gscore_load(sc, path, path, &fy, &fl, err, sizeof err);
    check(rc == -1 && strstr(err, "line 1: bad column label '00'"), "score file: label 00 refused (%s)", err);
    unlink(path);
    free(sc);
}

int main(void)
{
    hz_gscore *sc = malloc(sizeof *sc);
    hz_gscore_default(sc);
    sc->ydrop = 9430;
    fixture *f = malloc(sizeof *f);
    hz_gwork w = { 0 };
    hz_gset S = { 0 };
    hz_gref none = { -1, -1 };
    uint32_t *ops = NULL; int32_t nops = 0, cap = 0; int64_t er, ec;

    /* 1. identical sequences, FWD half from cell (1,1): the whole rest is one SUB run */
    const char *x = "ACGTTGCAACGTTGCAACGT";
    setup(f, sc, x, x);
    int32_t s = hz_gapped_half(&f->P, &w, &S, 0, 1, 0, 1, 21, 0, 20, none, none, NULL, 0, &ops, &nops, &cap, &er, &ec);
    check(s == diag_sum(x + 1, x + 1, 19), "FWD on identical sequences scores the 19 matches after the anchor (%d)", s);
    check(er == 19 && ec == 19 && nops == 1 && ops[0] == (19u << 2 | HZ_OP_SUB), "FWD ends at (19,19) with one SUB run of 19");

    /* 2. REV half includes the anchor cell */
    nops = 0;
    s = hz_gapped_half(&f->P, &w, &S, 1, 20, 19, 1, 21, 0, 20, none, none, NULL, 0, &ops, &nops, &cap, &er, &ec);
    check(s == diag_sum(x, x, 20) && er == 20 && ec == 20, "REV from the last cell covers all 20 bases, anchor included (%d)", s);

    /* 3. y-drop trimming: garbage after the matching part is not aligned (trimToPeak) */
    setup(f, sc, "ACGTTGCAACGTTGCAACGTTTTTTTTTTT", "ACGTTGCAACGTTGCAACGTGGGGGGGGGG");
    nops = 0;
    s = hz_gapped_half(&f->P, &w, &S, 0, 1, 0, 1, 31, 0, 30, none, none, NULL, 0, &ops, &nops, &cap, &er, &ec);
    check(s == diag_sum(x + 1, x + 1, 19) && er == 19 && ec == 19, "the extension stops at the best cell before T/G mismatches (%d, %lld,%lld)", s, (long long)er, (long long)ec);

    /* 4. a deleted base: T = X G Y, Q = X Y; anchor in X; both halves joined by the pass */
    const char *y = "ACCTGAGTCAAGTCCATGCA";
    char t[64], q[64];
    snprintf(t, sizeof t, "%sG%s", x, y); snprintf(q, sizeof q, "%s%s", x, y);
    setup(f, sc, t, q);
    f->P.thresh = 0;
    hz_ganchor an = { 1 + 5, 5, 1000 };   /* concatenated target position of t[5] is 6 */
    int rc = hz_gapped_pass(&f->P, &w, &an, 1, &S);
    int32_t want = diag_sum(x, x, 20) + diag_sum(y, y, 20) - (400 + 30);
    check(rc == 0 && S.n == 1, "one alignment from one anchor");
    if (S.n == 1) {
        hz_galn *G = &S.a[0];
        check(G->score == want, "score = matches - one gap of 1 (%d, want %d)", G->score, want);
        check(G->s1 == 1 && G->s2 == 0 && G->t1 == 41 && G->t2 == 39, "spans target 1..41 and query 0..39");
        check(G->nops == 3 && G->ops[0] == (20u << 2 | HZ_OP_SUB) && G->ops[1] == (1u << 2 | HZ_OP_DEL) &&
              G->ops[2] == (20u << 2 | HZ_OP_SUB), "edit script 20 SUB, 1 DEL, 20 SUB");
        check(G->npc == 3 && G->pc[1].type == HZ_PC_VERT, "pieces DIAG, VERT, DIAG (spec §5.4)");
    }
    /* 5. a second anchor on that alignment is skipped (containment, spec §5.1) */
    hz_ganchor an2 = { 1 + 30, 29, 900 };
    rc = hz_gapped_pass(&f->P, &w, &an2, 1, &S);
    check(rc == 0 && S.n == 1, "an anchor lying on an accepted alignment adds nothing");
    /* 6. the threshold (spec §5.5) */
    hz_gset_free(&S);
    f->P.thresh = want + 1;
    rc = hz_gapped_pass(&f->P, &w, &an, 1, &S);
    check(rc == 0 && S.n == 0, "an alignment below the threshold is dropped");

    hz_gset_free(&S); hz_gwork_free(&w); free(ops); free(f);
    test_par(sc);
    test_scorefile();
    free(sc);
    printf("1..%d\n", n_tests);
    return n_fail ? 1 : 0;
}
