/* ydrop.cu — the gapped stage's speculative extensions on a CUDA GPU (src/gapped/gapped_dev.h).
 *
 * One warp per half extension, running gapped_ywarp.h (the code the host runs for the emu
 * device; tests/unit/test_gapped_dev.c checks it against hz_gapped_half).  A fixed grid of
 * warps takes halves from a counter, so long halves do not hold up the rest.  Device memory:
 * the target (uploaded once per sequence buffer), the query and score matrix (per pass), a
 * C/D window per warp, and one pool for the traceback cells, emptied at each launch, with the
 * run-list and region output buffers. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern "C" {
#include "gapped.h"
}
#include "gapped_ywarp.h"
extern "C" {
#include "gapped_dev.h"
}

/* a CUDA call that must succeed: otherwise err says which and where, and the caller returns
 * ret (GD_CHECK: -1, an error; GD_OPEN, in hz_gdcuda_open: 1, "no usable GPU", so that
 * --device=auto computes on the CPU) */
#define GD_TRY(call, ret)                                                                       \
    do {                                                                                        \
        cudaError_t e_ = (call);                                                                \
        if (e_ != cudaSuccess) {                                                                \
            snprintf(err, errlen, "CUDA error %s at %s:%d: %s", cudaGetErrorName(e_), __FILE__, \
                     __LINE__, cudaGetErrorString(e_));                                         \
            return ret;                                                                         \
        }                                                                                       \
    } while (0)
#define GD_CHECK(call) GD_TRY(call, -1)
#define GD_OPEN(call) GD_TRY(call, 1)

enum { GD_BLOCK = 128 };                  /* 4 warps a block */

struct gdcuda {
    int dev, nwarps;
    hz_ywmem m; unsigned long long *top;  /* top[0..2] the bump counters, top[3] the next job */
    int32_t *win;
    hz_gdjob *jobs; hz_ywres *res; int64_t jcap;
    int32_t *sub;
    uint8_t *T; const uint8_t *Thost; int64_t Tlen, Tcap;
    uint8_t *Q; int64_t Qcap, Qid;                          /* Qid: the pass whose query Q holds */
    uint32_t *hops; int32_t *hrg; int64_t hopcap, hrgcap;   /* the launch's outputs on the host */
};

__global__ void k_ywarp(const hz_gdjob *jobs, int64_t nb, const uint8_t *T, const uint8_t *Q,
                        const int32_t *sub, int32_t O, int32_t E, int32_t Y, int64_t tb_cap,
                        hz_ywmem m, unsigned long long *next, int32_t *win, hz_ywres *res)
{
    const int64_t wid = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    hz_ywwarp W = { win + wid * 2 * HZ_YW_W, win + wid * 2 * HZ_YW_W + HZ_YW_W, 0, 0 };
    for (;;) {
        unsigned long long t = yw_take(next, 1);
        if ((int64_t)t >= nb) break;
        hz_gdjob j = jobs[t];
        hz_y0in in;
        in.A = j.rev ? T + j.a1 + 1 : T + j.a1; in.B = j.rev ? Q + j.a2 + 1 : Q + j.a2;
        in.st = j.rev ? -1 : 1; in.M = j.M; in.N = j.N;
        in.sub = sub; in.O = O; in.E = E; in.Y = Y; in.tb_cap = tb_cap;
        hz_ywres r;
        hz_yw_half(&in, &m, &W, &r);
        if ((threadIdx.x & 31) == 0) res[t] = r;
    }
}

extern "C" int hz_gdcuda_open(void **h, int share, char *name, size_t namelen, char *err, size_t errlen)
{
    *h = NULL;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n < 1) {
        snprintf(err, errlen, "no CUDA device (%s)", e != cudaSuccess ? cudaGetErrorString(e) : "none visible");
        return 1;
    }
    gdcuda *g = (gdcuda *)calloc(1, sizeof *g);
    if (!g) { snprintf(err, errlen, "out of memory"); return -1; }
    *h = g;   /* hz_gdcuda_close frees what was made when a step fails */
    GD_OPEN(cudaSetDevice(0));
    /* the device's thread sleeps in cudaDeviceSynchronize: spinning took a core from the CPU
     * workers of every line process for as long as a launch ran */
    GD_OPEN(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
    cudaDeviceProp pr;
    GD_OPEN(cudaGetDeviceProperties(&pr, 0));
    snprintf(name, namelen, "cuda:0 %s (sm_%d%d)", pr.name, pr.major, pr.minor);
    int per = 0;                                      /* the warps that fit at once: no block waits */
    GD_OPEN(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k_ywarp, GD_BLOCK, 0));
    g->nwarps = pr.multiProcessorCount * (per > 0 ? per : 1) * (GD_BLOCK / 32);
    size_t fr = 0, tot = 0;
    GD_OPEN(cudaMemGetInfo(&fr, &tot));
    /* the processes that open the GPU at once (share, --outdir's lines) each take 85 % of its
     * memory / share (at least a quarter of what is free now, at most what is free less 512 MiB,
     * and 24 GiB): a pool that holds a whole pass spares launches of halves run again.
     * HSPZ_GAPPED_POOL lowers the pool (tests: halves retried and left to the CPU). */
    size_t part = (size_t)((double)tot * 0.85 / (share > 1 ? share : 1)), lim = part > fr / 4 ? part : fr / 4;
    if (lim + ((size_t)512 << 20) > fr) lim = fr > ((size_t)512 << 20) ? fr - ((size_t)512 << 20) : 0;
    if (lim > ((size_t)24 << 30)) lim = (size_t)24 << 30;
    size_t win = (size_t)g->nwarps * 2 * HZ_YW_W * sizeof(int32_t);
    g->m.ops_cap = g->m.rg_cap = (int64_t)1 << 24;
    size_t outs = (size_t)g->m.ops_cap * 4 + (size_t)g->m.rg_cap * 4;
    if (lim < win + outs + ((size_t)256 << 20)) { snprintf(err, errlen, "too little GPU memory (%zu bytes free)", fr); return 1; }
    size_t pool = lim - win - outs;
    const char *ep = getenv("HSPZ_GAPPED_POOL");
    if (ep && atoll(ep) > 0 && (size_t)atoll(ep) < pool) pool = (size_t)atoll(ep);
    g->m.pool_cap = (int64_t)pool;
    GD_OPEN(cudaMalloc(&g->m.pool, pool));
    GD_OPEN(cudaMalloc(&g->m.ops, (size_t)g->m.ops_cap * 4));
    GD_OPEN(cudaMalloc(&g->m.rg, (size_t)g->m.rg_cap * 4));
    GD_OPEN(cudaMalloc(&g->top, 4 * sizeof *g->top));
    g->m.pool_top = g->top; g->m.ops_top = g->top + 1; g->m.rg_top = g->top + 2;
    GD_OPEN(cudaMalloc(&g->win, win));
    GD_OPEN(cudaMalloc(&g->sub, 256 * 256 * sizeof(int32_t)));
    return 0;
}

extern "C" void hz_gdcuda_close(void *h)
{
    gdcuda *g = (gdcuda *)h;
    if (!g) return;
    cudaFree(g->m.pool); cudaFree(g->m.ops); cudaFree(g->m.rg); cudaFree(g->top); cudaFree(g->win);
    cudaFree(g->jobs); cudaFree(g->res); cudaFree(g->sub); cudaFree(g->T); cudaFree(g->Q);
    free(g->hops); free(g->hrg);
    free(g);
}

/* the pass's sequences and scores on the device: the target when it changed, the query and
 * the scores when the launch is another pass's than the last one (id) */
static int upload(gdcuda *g, const hz_gpass *P, int64_t id, char *err, size_t errlen)
{
    if (g->Thost != P->T || g->Tlen != P->tlen) {
        if (P->tlen + 1 > g->Tcap) {
            cudaFree(g->T); g->T = NULL; g->Tcap = 0;
            GD_CHECK(cudaMalloc(&g->T, (size_t)P->tlen + 1));
            g->Tcap = P->tlen + 1;
        }
        GD_CHECK(cudaMemcpy(g->T, P->T, (size_t)P->tlen + 1, cudaMemcpyHostToDevice));
        g->Thost = P->T; g->Tlen = P->tlen;
    }
    if (id == g->Qid) return 0;
    g->Qid = 0;
    if (P->qlen + 1 > g->Qcap) {                     /* Q[0] .. Q[qlen]: the halves read no further */
        cudaFree(g->Q); g->Q = NULL; g->Qcap = 0;
        GD_CHECK(cudaMalloc(&g->Q, (size_t)P->qlen + 1));
        g->Qcap = P->qlen + 1;
    }
    GD_CHECK(cudaMemcpy(g->Q, P->Q, (size_t)P->qlen + 1, cudaMemcpyHostToDevice));
    GD_CHECK(cudaMemcpy(g->sub, &P->sc->sub[0][0], 256 * 256 * sizeof(int32_t), cudaMemcpyHostToDevice));
    g->Qid = id;
    return 0;
}

/* host buffer of at least n elements of size es */
static int grow(void **p, int64_t *cap, int64_t n, size_t es)
{
    if (n <= *cap) return 0;
    void *x = realloc(*p, (size_t)n * es);
    if (!x) return -1;
    *p = x; *cap = n;
    return 0;
}

extern "C" int hz_gdcuda_run(void *h, const hz_gpass *P, int64_t id, const hz_gdjob *jobs, int64_t nb, hz_ywres *res,
                             const uint32_t **ops, const int32_t **rg, int64_t use[3], int64_t cap[3], char *err, size_t errlen)
{
    gdcuda *g = (gdcuda *)h;
    if (nb <= 0) return 0;
    GD_CHECK(cudaSetDevice(0));
    cap[0] = g->m.pool_cap; cap[1] = g->m.ops_cap; cap[2] = g->m.rg_cap;
    if (upload(g, P, id, err, errlen)) return -1;
    if (nb > g->jcap) {
        cudaFree(g->jobs); cudaFree(g->res); g->jobs = NULL; g->res = NULL; g->jcap = 0;
        GD_CHECK(cudaMalloc(&g->jobs, (size_t)nb * sizeof(hz_gdjob)));
        GD_CHECK(cudaMalloc(&g->res, (size_t)nb * sizeof(hz_ywres)));
        g->jcap = nb;
    }
    GD_CHECK(cudaMemcpy(g->jobs, jobs, (size_t)nb * sizeof(hz_gdjob), cudaMemcpyHostToDevice));
    GD_CHECK(cudaMemset(g->top, 0, 4 * sizeof *g->top));
    int64_t nw = nb < g->nwarps ? nb : g->nwarps;
    if (nw > g->m.pool_cap / HZ_YW_CHUNK) nw = g->m.pool_cap / HZ_YW_CHUNK > 0 ? g->m.pool_cap / HZ_YW_CHUNK : 1;   /* a chunk each */
    unsigned blocks = (unsigned)((nw * 32 + GD_BLOCK - 1) / GD_BLOCK);
    k_ywarp<<<blocks, GD_BLOCK>>>(g->jobs, nb, g->T, g->Q, g->sub, P->sc->gap_open, P->sc->gap_extend,
                                  P->sc->ydrop, P->tb_cap, g->m, g->top + 3, g->win, g->res);
    GD_CHECK(cudaGetLastError());
    GD_CHECK(cudaDeviceSynchronize());
    GD_CHECK(cudaMemcpy(res, g->res, (size_t)nb * sizeof(hz_ywres), cudaMemcpyDeviceToHost));
    unsigned long long top[3];
    GD_CHECK(cudaMemcpy(top, g->top, sizeof top, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 3; i++) use[i] = (int64_t)top[i];   /* the bump counters count refused takes too: the demand */
    int64_t no = (int64_t)top[1] < g->m.ops_cap ? (int64_t)top[1] : g->m.ops_cap;
    int64_t ng = (int64_t)top[2] < g->m.rg_cap ? (int64_t)top[2] : g->m.rg_cap;
    if (grow((void **)&g->hops, &g->hopcap, no + 1, 4) || grow((void **)&g->hrg, &g->hrgcap, ng + 1, 4)) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (no) GD_CHECK(cudaMemcpy(g->hops, g->m.ops, (size_t)no * 4, cudaMemcpyDeviceToHost));
    if (ng) GD_CHECK(cudaMemcpy(g->hrg, g->m.rg, (size_t)ng * 4, cudaMemcpyDeviceToHost));
    *ops = g->hops; *rg = g->hrg;
    return 0;
}
