/* gapped_dev — the gapped stage's speculative extensions on a device (issue 35).
 *
 * Every anchor of a pass is extended, both halves, against an EMPTY accepted set by the shared
 * code of gapped_ywarp.h: on a CUDA GPU (cuda/gapped/ydrop.cu, one warp per half) or, for
 * tests, the same code on the host ("emu", lanes as arrays).  The results are handed to the
 * speculative scheme of gapped_par.c (hz_gapped_pass_pre) as if a worker had extended the
 * anchor against a snapshot of no alignments: the commit step redoes on the CPU every result
 * that an accepted alignment could have changed (spec §12), and every half the device left
 * (a band wider than its window, outside its score bounds, or the traceback limit, §4.7).  So
 * the bytes are the CPU path's.
 *
 * Memory: per pass, the results (run lists and explored regions) of its anchors; on the device
 * a pool for the traceback cells of the halves in flight, emptied between launches (a half
 * that found it full runs again in the next launch). */
#ifndef HZ_GAPPED_DEV_H
#define HZ_GAPPED_DEV_H
#include <stddef.h>
#include <stdint.h>
#include "gapped.h"
#include "gapped_ywarp.h"

/* one half to extend: anchor (a1, a2), rev = 1 toward smaller positions, M rows, N columns */
typedef struct { int64_t a1, a2, M, N; int32_t rev; } hz_gdjob;

typedef struct hz_gdev hz_gdev;
typedef struct hz_gdres hz_gdres;

/* Open the device: kind "cuda" (the first visible CUDA GPU) or "emu" (gapped_ywarp.h on the
 * host, with a small pool so that halves are retried; for tests); share: the processes that
 * open it at the same time (--outdir's lines running at once, >= 1), each of which gets its
 * part of the GPU's memory.  Returns 0 with *d, 1 when the kind is not available here (reason
 * in err: no GPU, built without CUDA, too little memory), -1 on another error (err). */
int hz_gdev_open(const char *kind, int share, hz_gdev **d, char *err, size_t errlen);
void hz_gdev_close(hz_gdev *d);
/* "cuda:0 NVIDIA H200" or "emu" */
const char *hz_gdev_name(const hz_gdev *d);
/* anchors in the first batch of the passes begun after it (n >= 1; 0: 256, the emu's default;
 * a CUDA GPU runs the whole pass in one batch).  Tests: several batches on a small pass. */
void hz_gdev_set_first(hz_gdev *d, int64_t n);
/* whether hz_gdres_take waits for the batch of its anchor (1, the emu's default: every result
 * the device makes is used, as tests want) or leaves an anchor whose batch is not done to the
 * CPU (0, a CUDA GPU's default: the first batch holds the pass's longest halves, which one warp
 * runs slower than a core).  For the passes begun after it. */
void hz_gdev_set_wait(hz_gdev *d, int wait);

/* Begin extending both halves of anchors an[0..nan) of pass P (spec §4, empty set) on the
 * device, on a thread of its own, in batches of anchors in order (hz_gdev_set_first: the first
 * batch, then twice as many each time), so that the commit order starts while the device runs.
 * P and an must stay valid until hz_gdres_free.  Safe to call from several threads (one launch
 * on the device at a time).  *out gets the results (hz_gdres_free).  Returns 0, or -1 with err
 * (the thread did not start). */
int hz_gdev_pass(hz_gdev *d, const hz_gpass *P, const hz_ganchor *an, int64_t nan, hz_gdres **out,
                 char *err, size_t errlen);
/* hz_gpre_fn for hz_gapped_pass_pre (ctx = an hz_gdres): waits until anchor k's batch is done
 * (hz_gdev_set_wait), then gives its result as hz_gapped_extend would for an empty set (0 or 1 and *G), with the
 * explored region in w; -1 when the device did not finish it (left to the CPU, or the device
 * failed or was stopped: the caller extends it on the CPU). */
int hz_gdres_take(void *ctx, int64_t k, const hz_gpass *P, hz_gwork *w, hz_galn *G);
/* wait until the device has done every batch; 0, or -1 with the device's error in err (a CUDA
 * error: the pass's results were made on the CPU, but the device is not to be trusted) */
int hz_gdres_wait(hz_gdres *r, char *err, size_t errlen);
/* once the pass is over (its anchors committed): stop the device's thread before its next
 * launch and wait for it; 0, or -1 with the device's error in err (a launch that failed before).
 * Halves of batches not done count neither as done nor as left. */
int hz_gdres_finish(hz_gdres *r, char *err, size_t errlen);
/* after hz_gdres_wait or hz_gdres_finish: halves done on the device, halves left to the CPU (band over the
 * window, bounds, pool too small for the half alone, or traceback limit) */
void hz_gdres_counts(const hz_gdres *r, int64_t *ok, int64_t *left);
/* after hz_gdres_wait or hz_gdres_finish: launches made for the pass, and halves run again because the pool or
 * the output buffers were full in theirs */
void hz_gdres_rounds(const hz_gdres *r, int64_t *launches, int64_t *retried);
/* after hz_gdres_wait or hz_gdres_finish: seconds from the pass's first launch to its last result, and the largest
 * demand of one launch on the pool (bytes), the run-list and the region buffers (entries),
 * with their sizes (use[i] > cap[i]: halves were run again) */
void hz_gdres_load(const hz_gdres *r, double *busy, int64_t use[3], int64_t cap[3]);
/* stops the device's thread after its current launch, frees the results; NULL is ignored */
void hz_gdres_free(hz_gdres *r);

#if HSPZ_HAVE_CUDA
/* cuda/gapped/ydrop.cu: the CUDA side (share as hz_gdev_open).  open: 0, 1 no usable GPU
 * (err), -1 error. */
int hz_gdcuda_open(void **h, int share, char *name, size_t namelen, char *err, size_t errlen);
void hz_gdcuda_close(void *h);
/* Extend jobs[0..nb) of pass P (id: the pass's number, the query is uploaded when it changes)
 * in one launch.  res[nb] on the host gets each half's result (HZ_YW_RETRY: the pool or the
 * output buffers were full; run it again); *ops / *rg point to the launch's run lists and
 * regions on the host (res[].op / .rg index them; valid until the next call); use[0..3) the
 * launch's demand on the pool (bytes), run lists and regions (entries), cap[0..3) their sizes.
 * 0, or -1 with err. */
int hz_gdcuda_run(void *h, const hz_gpass *P, int64_t id, const hz_gdjob *jobs, int64_t nb, hz_ywres *res,
                  const uint32_t **ops, const int32_t **rg, int64_t use[3], int64_t cap[3], char *err, size_t errlen);
#endif

#endif
