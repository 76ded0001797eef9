/* backend_impl (CUDA, private to cuda/hsp/backend.cu, cuda/hsp/batch.cu, cuda/hsp/report.cu) — the CUDA
 * backend's state: per worker thread a context (stream, events, device buffers, pinned
 * staging), per device the target and query blocks, and the backend itself.  Plain structs;
 * cuda/hsp/backend.cu owns their life cycle (ctx_init/ctx_free, be_close).
 */
#ifndef HZ_BACKEND_IMPL_CUH
#define HZ_BACKEND_IMPL_CUH
#include "cuda_common.cuh"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
extern "C" {
#include "backend.h"
#include "dedup.h"
#include "xdrop_diag.h"
}

#define HZ_GATE_CAP_GPU 128u
/* elements per staging copy (1 MiB of HSPs, 512 KiB of anchors per stream): pinning costs about
 * 0.5 ms a MiB to allocate and free (bench/results/floor-2026-12-03.md), and past a few MiB a
 * larger copy is no faster */
#define HZ_PINNED_MAX ((size_t)1 << 16)
#define HZ_LONG_CAP_GPU 4096u   /* anchors past the gate cap: on the device up to this many columns a side
                                 * (a diagonal-path part: columns read), the rest on the host */
#define HZ_MAX_GPUS 64

enum { GK_THREAD, GK_WARP, GK_VEC, GK_REFILL };
enum { LONG_HOST, LONG_SCAN, LONG_DIAG };   /* HSPZ_DEVICE_LONG = 0, 1, diag */
static const char *const GK_NAME[] = { "thread", "warp", "vec", "refill", NULL };
enum { ST_SEED, ST_GATE, ST_COMPACT, ST_MAT, ST_LONGSEL, ST_COPY, ST_DEDUP, ST_N };
static const char *const ST_NAME[ST_N] = { "seed", "gate", "compact", "materialize", "long_select", "copy", "dedup" };

struct tctx {
    int ready, dv;                        /* dv: index into cuda_be::d */
    cudaStream_t st;
    cudaEvent_t ev[ST_N + 1], es0, es1;
    uint8_t *d_flags;
    hz_anchor *d_A;                       /* refill gate: the tile's anchors */
    hz_survivor *d_L;                     /* and its survivors with their side scores */
    uint32_t *d_ids, *d_count;            /* d_count: [0] gate survivors, [1] kept HSPs, [2] anchors past
                                           * the gate cap, [3] of those at the gate threshold on the
                                           * device, [4] of those left to the host; [5] the refill gate's
                                           * run counter; [6..7] a uint64 count of the device dedup;
                                           * [8..11] the device diagonal path's (hz_long_flush) */
    hz_hsp *d_hsp;
    hz_anchor *d_anc;
    void *d_temp; size_t temp_bytes;
    hz_bucket_scratch bs;
    uint32_t *d_qpos; uint64_t *d_off, *d_bstart; size_t seed_cap;
    uint32_t *h_qpos; uint64_t *h_off, *h_bstart;
    hz_hsp *h_hsp; hz_anchor *h_anc; uint32_t *h_count;
    /* pinned staging of HZ_PINNED_MAX elements, allocated once: cudaMallocHost/cudaFreeHost
     * synchronise the device, so they must not happen per tile */
    uint64_t *pref, *bst; size_t pref_cap;
    hz_hspvec batch;
    hz_anchor *longa; size_t nlong, long_cap;
    /* HSPZ_DEVICE_LONG=diag: the batch's anchors past the gate cap gathered on the device,
     * d_lanc[0..lfill) (tile capacity), the sort's keys, the sides' parts and their scan */
    hz_anchor *d_lanc; uint64_t *d_lkey; uint64_t lfill;
    hz_side_part_t *d_lp, *d_lp2;
    hz_diagbuf diag;
    hz_seed_scratch ss;
    /* HSPZ_DEVICE_DEDUP=1: the batch's kept HSPs stay on the device, bat[0..nbat); alt and
     * keep are the sort's and the selection's scratch, all of cap records; the collapse runs
     * once nbat reaches bat_tidy (hz_batch_tidy's rule) */
    hz_hsp *d_bat, *d_alt; uint8_t *d_keep; void *d_btemp; size_t btemp_bytes;
    uint64_t nbat, bat_cap, bat_tidy;
    int spilled, spill_noted;             /* this batch moved to the host (bat_spill); noted once */
    /* statistics: event milliseconds per stage, busy intervals (ms since the device's ref) */
    double ms[ST_N]; uint64_t tiles, chunks, anchors, bucketed, long_dev, long_host;
    uint64_t long_fallback;               /* tiles whose long anchors could not take the device's
                                           * diagonal path (Rlen + Qlen >= 2^32): HSPZ_DEVICE_LONG=1's way */
    float *iv; size_t niv, iv_cap;
};

/* HSPZ_FAULT (tests only): the at-th device allocation or gate launch of the run fails */
struct hz_fault { int kind; uint64_t at, count; };   /* kind: 0 none, 1 gpu-alloc, 2 gpu-kernel */
static inline int fault_hit(hz_fault *f, int kind)
{
    return f && f->kind == kind && __atomic_add_fetch(&f->count, 1, __ATOMIC_SEQ_CST) == f->at;
}

struct devstate {
    int dev;
    hz_fault *fault;
    cudaDeviceProp p;
    cudaEvent_t ref;                      /* origin of the busy timeline */
    uint8_t *d_R; uint32_t Rlen; uint32_t *d_pos;
    uint8_t *d_Qf, *d_Qr; uint32_t Qlen;
    uint32_t *d_boff;                     /* bucket offsets (direct tables only), device seeding */
    uint8_t *d_Smin;                      /* minus-strand seed codes (host rc, 0..3 / 4) */
};

struct cuda_be {
    hz_backend be;
    char name[1024];
    int nd; devstate d[HZ_MAX_GPUS];
    hz_xparams xp;
    int nt; tctx *t;
    int gate_full, gate_kernel, long_dev, dev_dedup, quiet;
    int refill_frozen, long_frozen;       /* the scan16 variants exact for the scores at the gate's and the
                                           * long scans' caps (hz_xdrop_block16_fits) */
    int buckets_mode;                     /* 0 off, 1 on, 2 auto (as used: HSPZ_GATE=full has none) */
    int buckets_setting;                  /* HSPZ_REF_BUCKETS as given (same codes) */
    int buckets_now; uint32_t win;        /* for the current target block */
    uint64_t blocks_bucketed, blocks;
    const char *seeding;
    uint64_t tile;
    double t_open;
    pthread_mutex_t lock;
    hz_fault fault;
    /* a table build_table_resident kept on device 0 for the set_target of res_tab */
    const hz_seedtable *res_tab; uint32_t *res_pos, *res_boff;
};

/* cuda/hsp/backend.cu: cudaMalloc of bytes (0 -> 1) on D's current device; on failure *p = NULL
 * and err gets the needed-vs-free message (issue 3 item 9); HSPZ_FAULT gpu-alloc counts it.
 * 0 or -1. */
int hz_be_dalloc(void **p, size_t bytes, const devstate *D, const char *what, char *err, size_t errlen);
#define DALLOC(ptr, bytes, D, what) hz_be_dalloc((void **)&(ptr), (bytes), (D), (what), err, errlen)
/* cuda/hsp/backend.cu: [a, b] (completed events) as a busy interval of c's device */
void hz_be_busy(cuda_be *B, tctx *c, cudaEvent_t a, cudaEvent_t b);
/* cuda/hsp/backend.cu: room for n more anchors in c->longa (host memory, for the host's diagonal
 * path); 0, or -1 when out of host memory */
int hz_be_reserve_long(tctx *c, size_t n);
/* cuda/hsp/backend.cu: milliseconds from event a to event b (0 when unavailable) */
float hz_be_ev_ms(cudaEvent_t a, cudaEvent_t b);

/* cuda/hsp/batch.cu — a batch's kept HSPs on the device (HSPZ_DEVICE_DEDUP=1; spec §5.2, dedup.h).
 * hz_bat_reserve: room for `more` records past c->d_bat[c->nbat] (buffers double and keep
 * their records; on failure they stay as they were).  hz_bat_room: with HSPZ_DEVICE_DEDUP=1,
 * hz_bat_reserve, and when the device runs short the batch so far moves to the host
 * (hz_bat_spill) and the room is asked again (nothing to move: an error).  hz_bat_tidy: hz_batch_tidy's collapse
 * of identical records, on the device, when its thresholds are reached.  hz_bat_copy_back:
 * device records src[0..n) appended to dst through pinned staging.  hz_bat_finish: the
 * batch's end (host diagonal-path HSPs joined, dedup on the device, survivors appended to out
 * in query order); 1 when the batch moved to the host (c->batch holds it for hz_dedup_batch).
 * hz_bat_spill: move the device records to c->batch with a note (device memory ran short).
 * All: 0, or -1 with err. */
int hz_bat_reserve(const cuda_be *B, tctx *c, uint64_t more, char *err, size_t errlen);
int hz_bat_room(cuda_be *B, tctx *c, uint64_t more, char *err, size_t errlen);
int hz_bat_tidy(cuda_be *B, tctx *c, char *err, size_t errlen);
int hz_bat_copy_back(tctx *c, const hz_hsp *src, uint64_t n, hz_hspvec *dst, char *err, size_t errlen);
int hz_bat_spill(cuda_be *B, tctx *c, const char *why, char *err, size_t errlen);
int hz_bat_finish(cuda_be *B, tctx *c, hz_hspvec *out, hz_funnel *f, char *err, size_t errlen);

/* cuda/hsp/extend_diag.cu — the device diagonal path (HSPZ_DEVICE_LONG=diag).  hz_long_scratch:
 * *temp_bytes of CUB scratch for sorting n keys.  hz_long_flush: the c->lfill anchors
 * gathered in c->d_lanc (the current batch's target block on c's device, query dQ of Qlen
 * codes, Rlen + Qlen < 2^32) extended exactly (src/core/xdrop_diag.h), threshold and keep test as
 * src/hsp/chunk.c long_visit; kept HSPs join the batch (on the device with HSPZ_DEVICE_DEDUP=1,
 * else c->batch); f counts survivors and accepted; lfill becomes 0.  Both: 0, or -1 with err. */
int hz_long_scratch(uint64_t n, size_t *temp_bytes, char *err, size_t errlen);
int hz_long_flush(cuda_be *B, tctx *c, const uint8_t *dQ, uint32_t Qlen, hz_funnel *f, char *err, size_t errlen);

/* cuda/hsp/report.cu: backend.h report() — JSON text (malloc'd; NULL when out of memory) */
char *hz_be_report(hz_backend *be, double wall_s);

#endif
