/* ydrop.cu — the gapped stage's speculative extensions on a CUDA GPU (src/gapped/gapped_dev.h).
 *
 * One thread per half extension, running gapped_ydrop0.h (the code the host runs for the emu
 * device and tests/unit/test_gapped_dev.c checks against hz_gapped_half) in a fixed arena of its
 * own in device memory (HZ_GD_* of gapped_dev.h).  The target is uploaded once per sequence
 * buffer, the query and the score matrix once per pass. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern "C" {
#include "gapped.h"
}
#include "gapped_ydrop0.h"
extern "C" {
#include "gapped_dev.h"
}

#define GD_CHECK(call)                                                                          \
    do {                                                                                        \
        cudaError_t e_ = (call);                                                                \
        if (e_ != cudaSuccess) {                                                                \
            snprintf(err, errlen, "CUDA error %s at %s:%d: %s", cudaGetErrorName(e_), __FILE__, \
                     __LINE__, cudaGetErrorString(e_));                                         \
            return -1;                                                                          \
        }                                                                                       \
    } while (0)

struct gdcuda {
    int dev; int64_t batch;
    hz_gdjob *jobs; hz_y0res *res; uint32_t *ops; int32_t *rg;
    int32_t *C, *D, *tbrow; uint8_t *tb;
    int32_t *sub;
    uint8_t *T; const uint8_t *Thost; int64_t Tlen, Tcap;
    uint8_t *Q; int64_t Qcap;
};

__global__ void k_ydrop0(const hz_gdjob *jobs, int64_t nb, const uint8_t *T, const uint8_t *Q,
                         const int32_t *sub, int32_t O, int32_t E, int32_t Y, int64_t tb_cap,
                         int32_t *C, int32_t *D, uint8_t *tb, int32_t *tbrow, uint32_t *ops, int32_t *rg,
                         hz_y0res *res)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nb) return;
    hz_gdjob j = jobs[t];
    hz_y0in in;
    in.A = j.rev ? T + j.a1 + 1 : T + j.a1; in.B = j.rev ? Q + j.a2 + 1 : Q + j.a2;
    in.st = j.rev ? -1 : 1; in.M = j.M; in.N = j.N;
    in.sub = sub; in.O = O; in.E = E; in.Y = Y; in.tb_cap = tb_cap;
    hz_y0arena a;
    a.C = C + t * HZ_GD_CCAP; a.D = D + t * HZ_GD_CCAP; a.ccap = HZ_GD_CCAP;
    a.tb = tb + t * (int64_t)HZ_GD_TBCAP; a.tbcap = HZ_GD_TBCAP;
    a.tbrow = tbrow + t * HZ_GD_ROWCAP; a.rowcap = HZ_GD_ROWCAP;
    a.ops = ops + t * HZ_GD_OPCAP; a.opcap = HZ_GD_OPCAP;
    a.rg = rg + t * HZ_GD_RGCAP; a.rgcap = HZ_GD_RGCAP;
    hz_y0res r;
    hz_ydrop0(&in, &a, &r);
    res[t] = r;
}

static size_t per_half(void)
{
    return sizeof(hz_gdjob) + sizeof(hz_y0res) + (size_t)HZ_GD_OPCAP * 4 + (size_t)HZ_GD_RGCAP * 4 +
           2 * (size_t)HZ_GD_CCAP * 4 + (size_t)HZ_GD_TBCAP + (size_t)HZ_GD_ROWCAP * 4;
}

static void free_batch(gdcuda *g)
{
    cudaFree(g->jobs); cudaFree(g->res); cudaFree(g->ops); cudaFree(g->rg);
    cudaFree(g->C); cudaFree(g->D); cudaFree(g->tbrow); cudaFree(g->tb);
    g->jobs = NULL; g->res = NULL; g->ops = NULL; g->rg = NULL; g->C = g->D = g->tbrow = NULL; g->tb = NULL;
}

/* the arenas of g->batch halves */
static cudaError_t alloc_batch(gdcuda *g)
{
    int64_t b = g->batch;
    cudaError_t e;
    if ((e = cudaMalloc(&g->jobs, b * sizeof(hz_gdjob))) != cudaSuccess) return e;
    if ((e = cudaMalloc(&g->res, b * sizeof(hz_y0res))) != cudaSuccess) return e;
    if ((e = cudaMalloc(&g->ops, b * HZ_GD_OPCAP * sizeof(uint32_t))) != cudaSuccess) return e;
    if ((e = cudaMalloc(&g->rg, b * HZ_GD_RGCAP * sizeof(int32_t))) != cudaSuccess) return e;
    if ((e = cudaMalloc(&g->C, b * HZ_GD_CCAP * sizeof(int32_t))) != cudaSuccess) return e;
    if ((e = cudaMalloc(&g->D, b * HZ_GD_CCAP * sizeof(int32_t))) != cudaSuccess) return e;
    if ((e = cudaMalloc(&g->tbrow, b * HZ_GD_ROWCAP * sizeof(int32_t))) != cudaSuccess) return e;
    return cudaMalloc(&g->tb, b * (size_t)HZ_GD_TBCAP);
}

extern "C" int hz_gdcuda_open(void **h, char *name, size_t namelen, char *err, size_t errlen)
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
    GD_CHECK(cudaSetDevice(0));
    cudaDeviceProp pr;
    GD_CHECK(cudaGetDeviceProperties(&pr, 0));
    snprintf(name, namelen, "cuda:0 %s (sm_%d%d)", pr.name, pr.major, pr.minor);
    size_t fr = 0, tot = 0;
    GD_CHECK(cudaMemGetInfo(&fr, &tot));
    /* a quarter of the free memory, at most 24 GiB and 64K halves: several processes (--outdir
     * mode) start at once and size themselves from the same free memory; when an allocation
     * still fails, half the batch is tried.  HSPZ_GAPPED_BATCH lowers it (tests). */
    size_t lim = fr / 4 < ((size_t)24 << 30) ? fr / 4 : ((size_t)24 << 30);
    int64_t b = (int64_t)(lim / per_half());
    if (b > 65536) b = 65536;
    const char *eb = getenv("HSPZ_GAPPED_BATCH");
    if (eb && atoll(eb) > 0 && atoll(eb) < b) b = atoll(eb);
    for (b &= ~(int64_t)1; b >= 2; b = (b / 2) & ~(int64_t)1) {        /* even: both halves of an anchor */
        g->batch = b;
        if (alloc_batch(g) == cudaSuccess) break;
        free_batch(g);
        cudaGetLastError();                             /* clear the failed allocation */
    }
    if (b < 2) { free(g); snprintf(err, errlen, "too little GPU memory (%zu bytes free)", fr); return 1; }
    GD_CHECK(cudaMalloc(&g->sub, 256 * 256 * sizeof(int32_t)));
    *h = g;
    return 0;
}

extern "C" void hz_gdcuda_close(void *h)
{
    gdcuda *g = (gdcuda *)h;
    if (!g) return;
    free_batch(g);
    cudaFree(g->sub); cudaFree(g->T); cudaFree(g->Q);
    free(g);
}

extern "C" int64_t hz_gdcuda_batch(void *h) { return ((gdcuda *)h)->batch; }

/* the pass's sequences and scores on the device (the target only when it changed) */
static int upload(gdcuda *g, const hz_gpass *P, char *err, size_t errlen)
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
    if (P->qlen + 2 > g->Qcap) {                     /* Q[-1] .. Q[qlen] */
        cudaFree(g->Q); g->Q = NULL; g->Qcap = 0;
        GD_CHECK(cudaMalloc(&g->Q, (size_t)P->qlen + 2));
        g->Qcap = P->qlen + 2;
    }
    GD_CHECK(cudaMemcpy(g->Q, P->Q - 1, (size_t)P->qlen + 2, cudaMemcpyHostToDevice));
    GD_CHECK(cudaMemcpy(g->sub, &P->sc->sub[0][0], 256 * 256 * sizeof(int32_t), cudaMemcpyHostToDevice));
    return 0;
}

extern "C" int hz_gdcuda_run(void *h, const hz_gpass *P, const hz_gdjob *jobs, int64_t nb, hz_y0res *res,
                             uint32_t *ops, int32_t *rg, char *err, size_t errlen)
{
    gdcuda *g = (gdcuda *)h;
    if (nb > g->batch) { snprintf(err, errlen, "batch of %lld halves over %lld", (long long)nb, (long long)g->batch); return -1; }
    GD_CHECK(cudaSetDevice(0));
    if (upload(g, P, err, errlen)) return -1;
    GD_CHECK(cudaMemcpy(g->jobs, jobs, nb * sizeof(hz_gdjob), cudaMemcpyHostToDevice));
    const int bs = 64;
    k_ydrop0<<<(unsigned)((nb + bs - 1) / bs), bs>>>(g->jobs, nb, g->T, g->Q + 1, g->sub, P->sc->gap_open,
                                                    P->sc->gap_extend, P->sc->ydrop, P->tb_cap, g->C, g->D,
                                                    g->tb, g->tbrow, g->ops, g->rg, g->res);
    GD_CHECK(cudaGetLastError());
    GD_CHECK(cudaDeviceSynchronize());
    GD_CHECK(cudaMemcpy(res, g->res, nb * sizeof(hz_y0res), cudaMemcpyDeviceToHost));
    /* run lists and regions: only what each half wrote */
    int64_t lo = 0;
    while (lo < nb) {                                  /* runs of consecutive halves, one copy each */
        int64_t hi = lo + 1;
        while (hi < nb && hi - lo < 4096) hi++;
        int64_t mo = 0, mg = 0;
        for (int64_t t = lo; t < hi; t++) {
            if (res[t].status != HZ_Y0_OK) continue;
            if (res[t].nops > mo) mo = res[t].nops;
            int64_t ng = res[t].nrow ? 2 * (res[t].nrow / HZ_G_RGB + 1) : 0;
            if (ng > mg) mg = ng;
        }
        if (mo) GD_CHECK(cudaMemcpy2D(ops + lo * HZ_GD_OPCAP, HZ_GD_OPCAP * 4, g->ops + lo * HZ_GD_OPCAP, HZ_GD_OPCAP * 4,
                                      (size_t)mo * 4, (size_t)(hi - lo), cudaMemcpyDeviceToHost));
        if (mg) GD_CHECK(cudaMemcpy2D(rg + lo * HZ_GD_RGCAP, HZ_GD_RGCAP * 4, g->rg + lo * HZ_GD_RGCAP, HZ_GD_RGCAP * 4,
                                      (size_t)mg * 4, (size_t)(hi - lo), cudaMemcpyDeviceToHost));
        lo = hi;
    }
    return 0;
}
