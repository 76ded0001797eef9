/* backend — where chunks run: the CPU (hz_chunk_cpu) or a CUDA device (cuda/).
 *
 * The pipeline calls set_target once per target block, set_query once per query block and
 * chunk once per seeding chunk (from worker threads; tid < number of threads).  Every backend
 * must append exactly the HSPs hz_chunk_cpu appends (same order), whatever the device.
 */
#ifndef HZ_BACKEND_H
#define HZ_BACKEND_H
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "chunk.h"
#include "options.h"
#include "seed.h"

typedef struct hz_backend hz_backend;
struct hz_backend {
    const char *name;          /* e.g. "cuda:0 NVIDIA H200 (sm_90)" */
    char last_error[512];
    int (*set_target)(hz_backend *be, const hz_target *t, char *err, size_t errlen);
    int (*set_query)(hz_backend *be, const uint8_t *fwd, const uint8_t *rc, uint32_t L,
                     char *err, size_t errlen);
    int (*chunk)(hz_backend *be, const hz_target *t, const hz_seed *seeds, size_t ns,
                 const uint8_t *Q, int strand, uint32_t Qlen, hz_hspvec *out, hz_funnel *f, int tid);
    /* optional: build the target seed table of a block from its extension codes
     * codes[0..L) (identical to hz_seedtable_build of its bytes: spec §3.3) and copy it to
     * tab; NULL = the host builds it.  0, or -1 with err. */
    int (*build_table)(hz_backend *be, hz_seedtable *tab, const uint8_t *codes, uint32_t L,
                       const hz_shape *sh, uint32_t step, char *err, size_t errlen);
    /* optional: the same table built and kept on the device for the next set_target (which
     * must name this tab); on the host only tab->weight, ->n_pos and ->resident = 1.
     * Returns 0, -1 with err, or 1 when this table cannot stay there (its mode, the device
     * seeding): then nothing was done. */
    int (*build_table_resident)(hz_backend *be, hz_seedtable *tab, const uint8_t *codes, uint32_t L,
                                const hz_shape *sh, uint32_t step, char *err, size_t errlen);
    /* optional device seeding (HSPZ_DEVICE_SEEDS=1): set_query_seeding, after set_query,
     * makes the block's seed codes on the device from its extension codes (plus strand:
     * codes < 4; minus strand: the host reverse complement's, spec §2.3 and delta §1b, which
     * equal the reverse complement's codes < 4 except at the nu block offsets u[] of 'U'
     * bytes, seeded there as 'A'), and chunk_range seeds query positions [j0, j1) of one
     * strand itself (spec §3.2) and then does what chunk does with those seeds.  Same HSPs
     * as chunk.  The host then needs no seeding text. */
    int (*set_query_seeding)(hz_backend *be, const uint32_t *u, size_t nu, uint32_t L, char *err, size_t errlen);
    int (*chunk_range)(hz_backend *be, const hz_target *t, const hz_shape *sh, int strand,
                       uint32_t j0, uint32_t j1, uint32_t Qlen, const uint8_t *Q, hz_hspvec *out,
                       hz_funnel *f, int tid);
    /* optional: per-device work, CUDA-event stage times, busy time and kernel choices of
     * the run so far, as a JSON object text (malloc'd; NULL if unavailable) */
    char *(*report)(hz_backend *be, double wall_s);
    void (*close)(hz_backend *be);
    void *impl;
};

/* Choose the backend from o->device ("auto" | "cpu" | "cuda").  *be = NULL means the CPU.
 * auto: CUDA when built with it and a usable GPU is visible, else the CPU with one notice on
 * stderr.  cuda: an error (returns -1, err set) when that is not possible. */
int hz_backend_open(const hz_opts *o, const hz_xparams *xp, hz_backend **be, char *err, size_t errlen);

/* Start creating the CUDA contexts (o->gpus devices, 0 = all) in a background thread, so that
 * the driver's start-up overlaps input loading; join before hz_backend_open.  No output, no
 * errors (hz_backend_open reports them).  Does nothing for --device cpu or without CUDA. */
typedef struct { pthread_t th; int started, done, gpus; } hz_prewarm;   /* done: set by the thread as it ends */
void hz_backend_prewarm(const hz_opts *o, hz_prewarm *pw);
void hz_backend_prewarm_join(hz_prewarm *pw);
/* 1 while the thread is still creating contexts (the host has time to spare), else 0 */
int hz_backend_prewarm_running(hz_prewarm *pw);

#if HSPZ_HAVE_CUDA
/* cuda/hsp/backend.cu: create the primary context of the first n visible devices (0 = all) */
void hz_cuda_prewarm(int n);
/* cuda/hsp/backend.cu: returns 0 and a backend, 1 when no usable device (reason in err), -1 error */
int hz_cuda_backend_open(const hz_opts *o, const hz_xparams *xp, hz_backend **be, char *err, size_t errlen);
#endif

#endif
