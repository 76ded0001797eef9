/* gate_bench — the score gate alone on real anchors: raw anchors per second of each gate
 * kernel, side by side on the same tiles (issue 3 "gate rate", "warp-per-32 vs
 * thread-per-anchor", "reference bucketing on vs off").
 *
 *   gate_bench TARGET QUERY [--reps R] [--chunk C] [--tile N] [--block B]
 *
 * Loads the first block (of at most B bytes, default 4e9) of each side, builds the target
 * seed table on the device (12of19, transitions, step 1), seeds the query in chunks of C
 * positions on both strands on the device (as `hspz run` does), and runs every variant on
 * every tile of at most N anchors, R times, in rotating order, timed with CUDA events on one
 * stream.  Flags of every variant must equal the thread-per-anchor kernel's (counted
 * mismatches; exit 1 if any).  Also times CUB stable compaction of the survivors.
 * Prints one table row per variant: anchors, median-of-reps event seconds, anchors/s.
 */
#include "cuda_common.cuh"
#include <stdlib.h>
#include <string.h>
#include <vector>
#include <algorithm>
extern "C" {
#include "seqio.h"
#include "plan.h"
#include "scoring.h"
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "gate_bench: %s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void diff_kernel(const uint8_t *a, const uint8_t *b, uint64_t n, unsigned long long *bad)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && a[i] != b[i]) atomicAdd(bad, 1ULL);
}

static void block0(const char *path, uint64_t B, std::vector<uint8_t> &raw)
{
    hz_seqset s; hz_side side; char err[1024];
    memset(&side, 0, sizeof side);
    if (hz_seqset_load(path, &s, err, sizeof err) || hz_side_plan(&side, &s, B, "", err, sizeof err)) {
        fprintf(stderr, "gate_bench: %s\n", err); exit(2);
    }
    raw.resize(side.block[0].len);
    hz_block_bytes(&side, 0, raw.data());
    hz_side_free(&side); hz_seqset_free(&s);
}

int main(int argc, char **argv)
{
    if (argc < 3) { fprintf(stderr, "usage: gate_bench TARGET QUERY [--reps R] [--chunk C] [--tile N] [--block B]\n"); return 2; }
    int reps = 3; uint32_t chunk = 250000; uint64_t tile = 1u << 23, B = 4000000000ULL;
    for (int i = 3; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--chunk")) chunk = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--tile")) tile = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--block")) B = strtoull(argv[i + 1], NULL, 10);
        else { fprintf(stderr, "gate_bench: unknown option %s\n", argv[i]); return 2; }
    }
    std::vector<uint8_t> traw, qraw;
    block0(argv[1], B, traw); block0(argv[2], B, qraw);
    uint32_t Lt = (uint32_t)traw.size(), Lq = (uint32_t)qraw.size();
    std::vector<uint8_t> tc(Lt), qf(Lq), qr(Lq), qh(Lq), qs(Lq);
    hz_block_codes(traw.data(), Lt, tc.data(), NULL, NULL);
    hz_block_codes(qraw.data(), Lq, qf.data(), qr.data(), qh.data());
    for (uint32_t i = 0; i < Lq; i++) { uint8_t b = qh[i]; qs[i] = b == 'A' ? 0 : b == 'C' ? 1 : b == 'G' ? 2 : b == 'T' ? 3 : 4; }
    hz_shape sh; char err[1024];
    if (hz_shape_parse("12of19", 1, &sh, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 2; }
    int32_t sub8[HZ_NCODES][HZ_NCODES];
    if (hz_scoring_build(sub8, NULL, NULL, 910, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 2; }
    hz_xparams xp; memset(&xp, 0, sizeof xp);
    memcpy(xp.sub, sub8, sizeof xp.sub);
    xp.xdrop = 910; xp.hspthresh = 3000; xp.entropy = 1; xp.gate_min_total = hz_gate_threshold(3000);
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
    hz_seedtable tab;
    if (hz_cuda_seedtable_build(&tab, tc.data(), Lt, &sh, 1, NULL, NULL, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 2; }
    uint8_t *dR, *dQf, *dQr, *dSf, *dSm; uint32_t *dpos, *dboff;
    size_t nb = ((size_t)1 << (2 * tab.weight)) + 1;
    /* HZ_DEV_PAD zero bytes before and after each sequence, as the backend allocates them */
    CK(cudaMalloc(&dR, Lt + 2 * HZ_DEV_PAD)); CK(cudaMemset(dR, 0, Lt + 2 * HZ_DEV_PAD)); dR += HZ_DEV_PAD;
    CK(cudaMemcpy(dR, tc.data(), Lt, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&dQf, Lq + 2 * HZ_DEV_PAD)); CK(cudaMemset(dQf, 0, Lq + 2 * HZ_DEV_PAD)); dQf += HZ_DEV_PAD;
    CK(cudaMemcpy(dQf, qf.data(), Lq, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&dQr, Lq + 2 * HZ_DEV_PAD)); CK(cudaMemset(dQr, 0, Lq + 2 * HZ_DEV_PAD)); dQr += HZ_DEV_PAD;
    CK(cudaMemcpy(dQr, qr.data(), Lq, cudaMemcpyHostToDevice));
    dSf = dQf;
    CK(cudaMalloc(&dSm, Lq + 1)); CK(cudaMemcpy(dSm, qs.data(), Lq, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&dpos, tab.n_pos * 4 + 4)); CK(cudaMemcpy(dpos, tab.pos, tab.n_pos * 4, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&dboff, nb * 4)); CK(cudaMemcpy(dboff, tab.bucket_off, nb * 4, cudaMemcpyHostToDevice));
    cudaStream_t st; CK(cudaStreamCreate(&st));
    enum { V_THREAD, V_VEC, V_WARP, V_BUCKETS, V_REFILL, V_REFILL_FROZEN, V_REFILL_DYN, V_NFLAG, V_EXPAND = V_NFLAG, V_LIST, V_N };
    const char *vname[V_N] = { "thread-per-anchor, byte loads (HSPZ_GATE_KERNEL=thread)", "thread-per-anchor, 8 columns per aligned-word step (vec)",
                               "warp-per-32-anchors (warp)", "thread + ref-buckets, 32 windows (HSPZ_REF_BUCKETS=on)",
                               "lane refill, 16 branch-free columns a step, flags (from the anchor list)",
                               "lane refill, the same with F held per column (FROZEN=1), flags",
                               "lane refill, runs of 64 anchors taken from a counter (DYN=1), flags",
                               "anchor list (hz_cuda_expand)", "lane refill, list mode, DYN=1 as hspz runs it (from the anchor list)" };
    int frozen = hz_xdrop_block16_fits(&xp, 128);
    if (frozen < 0) { fprintf(stderr, "gate_bench: the refill kernels do not fit these scores\n"); return 2; }
    uint8_t *fl[V_NFLAG]; uint32_t *ids, *cnt, *lcnt; unsigned long long *bad;
    hz_anchor *dA; hz_survivor *dL;
    for (int v = 0; v < V_NFLAG; v++) CK(cudaMalloc(&fl[v], tile));
    CK(cudaMalloc(&dA, tile * sizeof(hz_anchor))); CK(cudaMalloc(&dL, tile * sizeof(hz_survivor))); CK(cudaMalloc(&lcnt, 32));
    unsigned long long *lbad; CK(cudaMalloc(&lbad, 8)); CK(cudaMemset(lbad, 0, 8));
    uint64_t long_anchors = 0;
    CK(cudaMalloc(&ids, tile * 4)); CK(cudaMalloc(&cnt, 8)); CK(cudaMalloc(&bad, 8)); CK(cudaMemset(bad, 0, 8));
    hz_bucket_scratch bs; CK(hz_bucket_scratch_alloc(&bs, tile));
    size_t tb = 0; CK(hz_cuda_select(fl[0], tile, 1, ids, cnt, NULL, &tb, st));
    void *temp; CK(cudaMalloc(&temp, tb));
    hz_seed_scratch ss; memset(&ss, 0, sizeof ss);
    cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    std::vector<std::vector<double>> ms(V_N + 1, std::vector<double>(reps, 0.0));
    uint64_t anchors = 0, tiles = 0, surv = 0;
    uint32_t win = (Lt + 31) / 32;
    int rot = 0;
    for (int strand = 0; strand < 2; strand++)
        for (uint32_t j0 = 0; j0 + (uint32_t)sh.span <= Lq; j0 += chunk) {
            uint32_t j1 = j0 + chunk; if (j1 > Lq - (uint32_t)sh.span + 1) j1 = Lq - (uint32_t)sh.span + 1;
            uint32_t ns = 0; uint64_t nh = 0;
            if (hz_cuda_seed_chunk(strand ? dSm : dSf, j0, j1, &sh, dboff, &ss, &ns, &nh, st, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 2; }
            if (!ns) continue;
            hz_dev_batch db = { dpos, ss.qpos, ss.off, ss.bstart, ns, (uint32_t)sh.span, 0 };
            const uint8_t *dQ = strand ? dQr : dQf;
            for (uint64_t h0 = 0; h0 < nh; h0 += tile) {
                uint64_t n = nh - h0 < tile ? nh - h0 : tile;
                hz_cuda_expand(db, h0, n, dA, st);   /* the refill variants' input (also timed alone) */
                for (int r = 0; r < reps; r++)
                    for (int k = 0; k < V_N + 1; k++) {
                        int v = (k + rot) % (V_N + 1);
                        CK(cudaEventRecord(e0, st));
                        if (v == V_THREAD) hz_cuda_gate(dR, Lt, dQ, Lq, db, h0, n, xp, 128, fl[V_THREAD], st);
                        else if (v == V_VEC) hz_cuda_gate_vec(dR, Lt, dQ, Lq, db, h0, n, xp, 128, fl[V_VEC], st);
                        else if (v == V_WARP) hz_cuda_gate_warp(dR, Lt, dQ, Lq, db, h0, n, xp, 128, fl[V_WARP], st);
                        else if (v == V_BUCKETS) CK(hz_cuda_gate_buckets(dR, Lt, dQ, Lq, db, h0, n, xp, 128, win, &bs, fl[V_BUCKETS], st));
                        else if (v == V_REFILL || v == V_REFILL_FROZEN)
                            hz_cuda_gate_refill(dR, Lt, dQ, Lq, dA, n, xp, 128, v == V_REFILL ? frozen : 1, 0, fl[v], NULL, NULL, NULL, st);
                        else if (v == V_REFILL_DYN) {
                            CK(cudaMemsetAsync(lcnt + 6, 0, 4, st));
                            hz_cuda_gate_refill(dR, Lt, dQ, Lq, dA, n, xp, 128, frozen, 1, fl[v], NULL, NULL, lcnt + 6, st);
                        }
                        else if (v == V_EXPAND) hz_cuda_expand(db, h0, n, dA, st);
                        else if (v == V_LIST) {
                            CK(cudaMemsetAsync(lcnt, 0, 32, st));
                            hz_cuda_gate_refill(dR, Lt, dQ, Lq, dA, n, xp, 128, frozen, 1, fl[V_NFLAG - 1] /* overwritten */, dL, lcnt, lcnt + 5, st);
                        }
                        else { size_t t2 = tb; CK(hz_cuda_select(fl[V_THREAD], n, 1, ids, cnt, temp, &t2, st)); }
                        CK(cudaGetLastError());
                        CK(cudaEventRecord(e1, st));
                        CK(cudaEventSynchronize(e1));
                        float x; CK(cudaEventElapsedTime(&x, e0, e1));
                        ms[v][r] += x;
                    }
                rot++;
                for (int v = 1; v < V_NFLAG; v++)
                    diff_kernel<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(fl[0], fl[v], n, bad);
                /* the list mode's counts (its last run) against the thread kernel's flags */
                uint32_t c, c2, lc[3];
                { size_t t2 = tb; CK(hz_cuda_select(fl[V_THREAD], n, 1, ids, cnt, temp, &t2, st)); }   /* this tile's */
                CK(cudaMemcpyAsync(&c, cnt, 4, cudaMemcpyDeviceToHost, st));
                CK(cudaMemcpyAsync(lc, lcnt, 12, cudaMemcpyDeviceToHost, st));
                { size_t t2 = tb; CK(hz_cuda_select(fl[V_THREAD], n, 2, ids, cnt + 1, temp, &t2, st)); }
                CK(cudaMemcpyAsync(&c2, cnt + 1, 4, cudaMemcpyDeviceToHost, st)); CK(cudaStreamSynchronize(st));
                int same = lc[0] == c;
                if (same && c) {   /* the list holds exactly the anchors of flag 1 */
                    std::vector<hz_anchor> all(n);
                    std::vector<hz_survivor> lst(c);
                    std::vector<uint8_t> fh(n);
                    CK(cudaMemcpy(all.data(), dA, n * sizeof(hz_anchor), cudaMemcpyDeviceToHost));
                    CK(cudaMemcpy(lst.data(), dL, c * sizeof(hz_survivor), cudaMemcpyDeviceToHost));
                    CK(cudaMemcpy(fh.data(), fl[V_THREAD], n, cudaMemcpyDeviceToHost));
                    auto key = [](const hz_anchor &a) { return ((uint64_t)a.ar << 32) | a.aq; };
                    std::vector<uint64_t> want, got;
                    for (uint64_t k = 0; k < n; k++) if (fh[k] == 1) want.push_back(key(all[k]));
                    for (uint32_t k = 0; k < c; k++) {   /* each with its two exact side scores */
                        hz_anchor a = { lst[k].ar, lst[k].aq };
                        int32_t le, re;
                        const uint8_t *hq = strand ? qr.data() : qf.data();
                        int ok = hz_xdrop_left(tc.data(), hq, a.ar, a.aq, xp.sub, xp.xdrop, &le) == lst[k].lsc &&
                                 hz_xdrop_right(tc.data(), Lt, hq, Lq, a.ar, a.aq, xp.sub, xp.xdrop, &re) == lst[k].rsc;
                        got.push_back(ok ? key(a) : ~0ULL);
                    }
                    std::sort(want.begin(), want.end()); std::sort(got.begin(), got.end());
                    same = want == got;
                }
                if (!same) {
                    fprintf(stderr, "gate_bench: list mode %u survivors, flags %u, or other anchors (tile %llu)\n", lc[0], c, (unsigned long long)tiles);
                    unsigned long long one = 1; CK(cudaMemcpy(lbad, &one, 8, cudaMemcpyHostToDevice));
                }
                anchors += n; tiles++; surv += c; long_anchors += c2;
            }
        }
    unsigned long long nbad = 0, nlbad = 0; CK(cudaMemcpy(&nbad, bad, 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&nlbad, lbad, 8, cudaMemcpyDeviceToHost));
    printf("gate_bench: %s (sm_%d%d, %d SMs, L2 %d MiB); target %u bytes, query %u bytes; %llu raw anchors in %llu tiles "
           "(tile <= %llu), %llu survivors (%.3f%%), %llu past the cap; %d reps; flag mismatches vs thread kernel: %llu; "
           "list-mode tiles with other anchors: %llu\n",
           p.name, p.major, p.minor, p.multiProcessorCount, p.l2CacheSize >> 20, Lt, Lq, (unsigned long long)anchors,
           (unsigned long long)tiles, (unsigned long long)tile, (unsigned long long)surv, anchors ? 100.0 * surv / anchors : 0.0, (unsigned long long)long_anchors, reps, nbad, nlbad);
    printf("| kernel | event s (median of %d) | anchors/s | ns/anchor |\n|---|---|---|---|\n", reps);
    const char *names[V_N + 1];
    for (int v = 0; v < V_N; v++) names[v] = vname[v];
    names[V_N] = "CUB stable compaction (select flags==1)";
    for (int v = 0; v < V_N + 1; v++) {
        std::vector<double> x = ms[v]; std::sort(x.begin(), x.end());
        double s = x[reps / 2] / 1000.0;
        printf("| %s | %.4f | %.3g | %.4f |\n", names[v], s, s > 0 ? anchors / s : 0.0, anchors ? s * 1e9 / anchors : 0.0);
    }
    return nbad || nlbad ? 1 : 0;
}
