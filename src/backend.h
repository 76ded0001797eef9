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
    /* optional: build the target seed table (identical to hz_seedtable_build); NULL = host */
    int (*build_table)(hz_backend *be, hz_seedtable *tab, const uint8_t *T, uint32_t L,
                       const hz_shape *sh, uint32_t step, char *err, size_t errlen);
    /* optional device seeding (HSPZ_DEVICE_SEEDS=1): set_query_text gives the seeding texts
     * of the query block (forward bytes, host reverse complement; spec §2.3, delta §1b), and
     * chunk_range seeds query positions [j0, j1) of one strand itself (spec §3.2) and then
     * does what chunk does with those seeds.  Same HSPs as chunk. */
    int (*set_query_text)(hz_backend *be, const uint8_t *fwd_text, const uint8_t *hrc_text,
                          uint32_t L, char *err, size_t errlen);
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
typedef struct { pthread_t th; int started; } hz_prewarm;
void hz_backend_prewarm(const hz_opts *o, hz_prewarm *pw);
void hz_backend_prewarm_join(hz_prewarm *pw);

#if HSPZ_HAVE_CUDA
/* cuda/backend.cu: create the primary context of the first n visible devices (0 = all) */
void hz_cuda_prewarm(int n);
/* cuda/backend.cu: returns 0 and a backend, 1 when no usable device (reason in err), -1 error */
int hz_cuda_backend_open(const hz_opts *o, const hz_xparams *xp, hz_backend **be, char *err, size_t errlen);
#endif

#endif
