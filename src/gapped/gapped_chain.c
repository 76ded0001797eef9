/* gapped_chain — HSPZ_GAPPED_STATS=chain: a pass run on one thread (the bytes of
 * hz_gapped_pass) that also measures how much of it LASTZ's order leaves serial
 * (../shared/spec/lastz-gapped-spec.md §12; benchmarks only, bench/results).
 *
 * For each anchor k that is extended (not contained, §5.1), with S_k the set it meets:
 *   - whether its result against no alignments (a device's speculative result) equals the
 *     result against S_k;
 *   - j*(k), the shortest prefix S[0..j) of the accepted alignments against which the result
 *     equals the one against S_k (found backward from S_k by doubling, then bisection: exact
 *     where the result changes once as the prefix grows; an estimate otherwise).
 * A scheme with unlimited cores that commits in §3.6 order can finish k no earlier than the
 * commit of the anchor that made alignment j*(k) - 1, plus k's own extension time t(k); so
 *   commit(k) = max(commit(k-1), ready(k)),  ready(k) = commit(owner(j* - 1)) + t(k)
 * (0 + t(k) when j* = 0; 0 when the anchor is contained, or, in the device model, when its
 * empty-set result already equals its result).  The last commit is a lower bound on the pass's
 * wall time for any speculative scheme with these extension times; one line on stderr gives it
 * for the CPU and the device model, with the serial time (the sum of t(k)).  It also runs the
 * commit's check (hz_gapped_spec_check) on each empty-set result: how many exact results it
 * refuses (the check is conservative), how many inexact ones it keeps (must be 0: it is sound),
 * and the device model's bound when the refused ones wait for their dependency. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gapped.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int same_result(int e0, const hz_galn *A, int e1, const hz_galn *B)
{
    if (e0 != e1) return 0;
    if (e0 != 1) return 1;
    return A->s1 == B->s1 && A->s2 == B->s2 && A->t1 == B->t1 && A->t2 == B->t2 && A->score == B->score &&
           A->nops == B->nops && !memcmp(A->ops, B->ops, (size_t)A->nops * sizeof *A->ops);
}

/* anchor (a1,a2) against S's first j alignments (their KEPT and BYEND orders filtered into
 * kb, bb): 1 when the result equals (e, G); -1 on out of memory */
static int prefix_same(const hz_gpass *P, hz_gwork *w, const hz_gset *S, int32_t j, int32_t *kb, int32_t *bb,
                       int64_t a1, int64_t a2, int e, const hz_galn *G, uint32_t **rops, int32_t *rcap)
{
    int32_t nk = 0, nb = 0;
    for (int32_t i = 0; i < S->n; i++) {
        if (S->kept[i] < j) kb[nk++] = S->kept[i];
        if (S->byend[i] < j) bb[nb++] = S->byend[i];
    }
    hz_gset V = { S->a, j, j, kb, bb, j };
    hz_galn H;
    int f = hz_gapped_extend(P, w, &V, a1, a2, &H, rops, rcap);
    if (f < 0) return -1;
    int r = same_result(f, &H, e, G);
    if (f == 1) { free(H.ops); free(H.pc); }
    return r;
}

/* j*(k) of the file comment for a result (e, G) against S (n alignments); -1 on out of memory */
static int32_t shortest_prefix(const hz_gpass *P, hz_gwork *w, const hz_gset *S, int32_t *kb, int32_t *bb,
                               int64_t a1, int64_t a2, int e, const hz_galn *G, uint32_t **rops, int32_t *rcap,
                               int64_t *probes)
{
    int32_t good = S->n, bad = -1;
    for (int32_t step = 1; good > 0; step *= 2) {      /* doubling backward from the whole set */
        int32_t j = good - step < 0 ? 0 : good - step;
        int s = prefix_same(P, w, S, j, kb, bb, a1, a2, e, G, rops, rcap);
        ++*probes;
        if (s < 0) return -1;
        if (!s) { bad = j; break; }
        good = j;
    }
    while (good - bad > 1) {                           /* bisection: bad differs, good equals */
        int32_t j = bad + (good - bad) / 2;
        int s = prefix_same(P, w, S, j, kb, bb, a1, a2, e, G, rops, rcap);
        ++*probes;
        if (s < 0) return -1;
        if (s) good = j; else bad = j;
    }
    return good;
}

int hz_gapped_pass_chain(const hz_gpass *P, hz_gwork *w, const hz_ganchor *an, int64_t nan, hz_gset *S, FILE *log)
{
    uint32_t *rops = NULL; int32_t rcap = 0;
    int rc = -1;
    hz_gpass Pq = *P; Pq.diag = NULL; Pq.reported_trunc = NULL;     /* probes stay quiet */
    double *cc = calloc((size_t)nan + 1, sizeof *cc), *cd = calloc((size_t)nan + 1, sizeof *cd), *ck = calloc((size_t)nan + 1, sizeof *ck);
    int64_t *owner = malloc(((size_t)nan + (size_t)P->ntrivial + 2) * sizeof *owner);
    int32_t *kb = NULL, *bb = NULL;
    double serial = 0, pc = 0, pd = 0, pk = 0;         /* last commits: CPU, device, device with the check */
    int64_t next = 0, kept0 = 0, probes = 0, pcells = 0, cells = 0, nref = 0, nfalse = 0, nunsound = 0, nfmask = 0;
    if (!cc || !cd || !ck || !owner || hz_gapped_trivials(P, S)) goto out;
    for (int32_t i = 0; i < S->n; i++) owner[i] = -1;  /* trivial alignments: there at time 0 */
    for (int64_t k = 0; k < nan; k++) {
        hz_galn G;
        const int32_t n0 = S->n;
        const int64_t c0 = w->cells;
        const double t0 = now();
        int e = hz_gapped_extend(P, w, S, an[k].a1, an[k].a2, &G, &rops, &rcap);
        const double t = now() - t0;
        if (e < 0) goto out;
        cells += w->cells - c0;
        serial += t;
        double rcpu = 0, rdev = 0, rchk = 0;
        if (e != 2) {                                  /* extended: when could it have been? */
            next++;
            int32_t *nkb = realloc(kb, ((size_t)n0 + 1) * sizeof *kb), *nbb = nkb ? realloc(bb, ((size_t)n0 + 1) * sizeof *bb) : NULL;
            if (nkb) kb = nkb;
            if (nbb) bb = nbb;
            if (!nkb || !nbb) { if (e == 1) { free(G.ops); free(G.pc); } goto out; }
            const int64_t pc0 = w->cells;
            int32_t js = shortest_prefix(&Pq, w, S, kb, bb, an[k].a1, an[k].a2, e, &G, &rops, &rcap, &probes);
            const int rec = w->rec;
            w->rec = 1;                                /* the empty-set run's region, for the check */
            int dev0 = js < 0 ? -1 : prefix_same(&Pq, w, S, 0, kb, bb, an[k].a1, an[k].a2, e, &G, &rops, &rcap);
            w->rec = rec;
            pcells += w->cells - pc0;
            if (js < 0 || dev0 < 0) { if (e == 1) { free(G.ops); free(G.pc); } goto out; }
            const int refused = hz_gapped_spec_check(&Pq, S, 0, an[k].a1, an[k].a2, w);
            const int64_t o = js > 0 ? owner[js - 1] : -1;
            rcpu = (o >= 0 ? cc[o] : 0) + t;
            rdev = dev0 ? 0 : (o >= 0 ? cd[o] : 0) + t;
            rchk = !refused ? 0 : (o >= 0 ? ck[o] : 0) + t;
            kept0 += dev0; nref += refused != 0; nfalse += dev0 && refused; nunsound += !dev0 && !refused;
            nfmask += dev0 && refused == 1;
        }
        pc = cc[k] = pc > rcpu ? pc : rcpu;
        pd = cd[k] = pd > rdev ? pd : rdev;
        pk = ck[k] = pk > rchk ? pk : rchk;
        if (e == 1) {
            if (hz_gapped_accept(S, &G)) { free(G.ops); free(G.pc); goto out; }
            owner[S->n - 1] = k;
        }
    }
    rc = 0;
    S->nout = S->n;
    w->cells = w->cells - pcells;                      /* the pass's own cells, as hz_gapped_pass */
    fprintf(log, "hspz-gapped-chain: anchors %lld extended %lld (empty-set result exact %lld) alignments %d cells %lld; "
            "serial %.3f s; chain with unlimited cores: cpu %.3f s, device %.3f s; probes %lld (%lld cells); "
            "the commit check refuses %lld empty-set results (%lld of them exact, %lld of those by a mask; %lld not exact kept): device with the check %.3f s\n",
            (long long)nan, (long long)next, (long long)kept0, S->n, (long long)cells, serial, pc, pd,
            (long long)probes, (long long)pcells, (long long)nref, (long long)nfalse, (long long)nfmask, (long long)nunsound, pk);
out:
    free(rops); free(cc); free(cd); free(ck); free(owner); free(kb); free(bb);
    return rc;
}
