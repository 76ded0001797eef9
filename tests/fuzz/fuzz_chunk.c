/* fuzz_chunk — exactness of the CPU chunk kernel (src/hsp/chunk.c hz_chunk_cpu: seeds, seed table,
 * gate, X-drop extension, entropy, batches, dedup) against the brute-force reference of
 * tests/gpu/fuzz_chunk.c (written from kegalign-hsp-spec.md §3.1-3.4, §4.2-4.5, §5.2-5.3 and
 * RULES.md), on a small target and query made from the fuzz bytes.
 *
 * Input: 6 parameter bytes (seed, xdrop, hspthresh, flags: transition/entropy/step/--ambiguous,
 * max_hits, target length), then the target's bytes (each mapped to A C G T, mostly, or a
 * lower-case or ambiguous letter) and an edit script that makes the query from the target
 * (copy, substitute, insert, delete), so that the pair has real HSPs.  Both strands are run
 * over the whole query.  Property: the HSP vectors and the funnel counts are equal.
 */
#define main fuzz_chunk_gpu_main   /* the GPU test's own main is not used here */
#include "../gpu/fuzz_chunk.c"
#undef main
#include "fuzz_util.h"

static const char SEEDS[8][24] = { "12of19", "14of22", "1111", "11T1", "1101011", "T1T0T1T1", "110100110111", "1T1T1T1T1T1T1T" };
static const uint8_t LETTER[32] = "ACGTACGTACGTACGTACGTACGTacgtNnRy";

static uint32_t base_of(uint8_t b) { return LETTER[b & 31]; }

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n < 8) return 0;
    const char *seedname = SEEDS[d[0] & 7];
    int32_t xdrop = 100 + 40 * (int32_t)(d[1] & 63), hspthresh = 200 + 60 * (int32_t)d[2];
    int transition = d[3] & 1, entropy = (d[3] >> 1) & 1;
    uint32_t step = (d[3] >> 2) & 1 ? 1 + ((d[3] >> 3) & 3) : 1;
    static const char *ambs[4] = { NULL, "n", "iupac", "n,5,20" };
    const char *amb = ambs[(d[3] >> 5) & 3];
    uint64_t max_hits = d[4] & 0x80 ? 0 : (uint64_t)(d[4] & 0x7f) * 7 + 1;
    size_t tl = 16 + (size_t)d[5] * 8;
    d += 6; n -= 6;
    if (tl > n) tl = n;
    if (tl > 1024) tl = 1024;

    hz_shape sh;
    char err[512];
    if (hz_shape_parse(seedname, transition, &sh, err, sizeof err)) FZ_ASSERT(0, "seed %s: %s", seedname, err);
    ref_shape rsh = { sh.span, 0, {0} };
    const char *pat = !strcmp(seedname, "12of19") ? "TTT0T00TT00T0T0TTTT" : !strcmp(seedname, "14of22") ? "TTT0T0TT00TT00T0T0TTTT" : seedname;
    rsh.W = (int)strlen(pat);
    for (int i = 0; pat[i]; i++) if (pat[i] != '0') rsh.care[rsh.K++] = i;
    hz_xparams xp;
    ref_par rp;
    if (case_params(amb, xdrop, hspthresh, entropy, &xp, &rp, err, sizeof err)) FZ_ASSERT(0, "scoring: %s", err);

    /* target: the next tl bytes; query: an edit script over the target */
    buf_t T = {0}, Q = {0};
    for (size_t i = 0; i < tl; i++) put(&T, (uint8_t)base_of(d[i]));
    size_t tp = 0;
    for (size_t i = tl; i < n && Q.n < 1024; i++) {
        uint8_t b = d[i];
        switch (b >> 6) {
        case 0: case 1:   /* copy a run of 1..64 target bases */
            for (int k = 0; k <= (b & 63) && tp < T.n; k++) put(&Q, T.b[tp++]);
            break;
        case 2: put(&Q, (uint8_t)base_of(b)); tp++; break;   /* substitute */
        default:
            if (b & 32) put(&Q, (uint8_t)base_of(b));          /* insert */
            else tp += 1 + (b & 7);                            /* delete */
        }
    }
    if (!T.n || !Q.n) { free(T.b); free(Q.b); return 0; }
    uint32_t Lt = (uint32_t)T.n, L = (uint32_t)Q.n, W = (uint32_t)sh.span;

    uint8_t *tcodes = malloc(Lt + 1), *qfc = malloc(L + 1), *qrc = malloc(L + 1), *qhrc = malloc(L + 1);
    hz_block_codes(T.b, Lt, tcodes, NULL, NULL);
    hz_block_codes(Q.b, L, qfc, qrc, qhrc);
    const uint8_t *qtext[2] = { Q.b, qhrc }, *qcode[2] = { qfc, qrc };
    hz_seedtable tab;
    FZ_ASSERT(hz_seedtable_build(&tab, T.b, Lt, &sh, step) == 0, "seed table: out of memory");
    hz_target tgt = { tcodes, Lt, &tab, W, &xp, max_hits };
    ref_table rtab = {0};
    ref_table_build(&rtab, T.b, Lt, &rsh, step);
    FZ_ASSERT(rtab.n == tab.n_pos, "seed table holds %llu positions, the reference %zu", (unsigned long long)tab.n_pos, rtab.n);

    hz_scratch scr;
    memset(&scr, 0, sizeof scr);
    hz_seed *seeds = NULL, *rseeds = NULL;
    size_t scap = 0;
    for (int st = 0; st < 2 && L >= W; st++) {
        uint32_t j0 = 0, j1 = L - W + 1;
        int64_t ns = hz_seeds_chunk(qtext[st], j0, j1, &sh, &seeds, &scap);
        FZ_ASSERT(ns >= 0, "seeds: out of memory");
        hz_hspvec cpu = {0}, ref = {0};
        hz_funnel fc;
        memset(&fc, 0, sizeof fc);
        FZ_ASSERT(hz_chunk_cpu(&tgt, seeds, (size_t)ns, qcode[st], L, &cpu, &fc, &scr) == 0, "hz_chunk_cpu failed");
        size_t per = 1 + (transition ? (size_t)sh.weight : 0);
        rseeds = realloc(rseeds, ((size_t)(j1 - j0) * per + 1) * sizeof *rseeds);
        size_t rns = ref_seeds(qtext[st], j0, j1, &rsh, transition, rseeds);
        FZ_ASSERT(rns == (size_t)ns && (!rns || !memcmp(rseeds, seeds, rns * sizeof *rseeds)),
                  "strand %d: hz_seeds_chunk gives %lld seeds, the reference %zu (or other values)", st, (long long)ns, rns);
        ref_count rc = {0, 0};
        ref_chunk(tcodes, Lt, &rtab, W, rseeds, rns, qcode[st], L, &rp, max_hits, &ref, &rc);
        FZ_ASSERT(!compare_vec("ref vs hz_chunk_cpu", 0, st, &ref, &cpu), "strand %d: HSPs differ (seed %s, Lt %u, Lq %u)", st, seedname, Lt, L);
        FZ_ASSERT(fc.anchors == rc.anchors && fc.accepted == rc.accepted && fc.after_batch == ref.n,
                  "strand %d: funnel anchors/accepted/after_batch %llu/%llu/%llu, reference %llu/%llu/%zu", st,
                  (unsigned long long)fc.anchors, (unsigned long long)fc.accepted, (unsigned long long)fc.after_batch,
                  (unsigned long long)rc.anchors, (unsigned long long)rc.accepted, ref.n);
        hz_hspvec_free(&cpu); hz_hspvec_free(&ref);
    }
    hz_scratch_free(&scr);
    hz_seedtable_free(&tab);
    free(rtab.e); free(seeds); free(rseeds);
    free(tcodes); free(qfc); free(qrc); free(qhrc); free(T.b); free(Q.b);
    return 0;
}
