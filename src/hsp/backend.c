/* backend — device choice (issue: --device auto|cpu|cuda). */
#include "backend.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if HSPZ_HAVE_CUDA
static void *prewarm_main(void *arg)
{
    hz_prewarm *pw = arg;
    hz_cuda_prewarm(pw->gpus);
    __atomic_store_n(&pw->done, 1, __ATOMIC_RELEASE);
    return NULL;
}
#endif

void hz_backend_prewarm(const hz_opts *o, hz_prewarm *pw)
{
    pw->started = 0;
    pw->done = 0;
    pw->gpus = o->gpus;
#if HSPZ_HAVE_CUDA
    if (strcmp(o->device, "cpu") != 0 && pthread_create(&pw->th, NULL, prewarm_main, pw) == 0)
        pw->started = 1;
#else
    (void)o;
#endif
}

int hz_backend_prewarm_running(hz_prewarm *pw)
{
    return pw->started && !__atomic_load_n(&pw->done, __ATOMIC_ACQUIRE);
}

void hz_backend_prewarm_join(hz_prewarm *pw)
{
    if (pw->started) pthread_join(pw->th, NULL);
    pw->started = 0;
}

int hz_backend_open(const hz_opts *o, const hz_xparams *xp, hz_backend **be, char *err, size_t errlen)
{
    *be = NULL;
    (void)xp;
    if (strcmp(o->device, "cpu") == 0) {
        if (o->gpus > 0 && !o->quiet) fprintf(stderr, "hspz: note: --gpus %d is ignored with --device cpu\n", o->gpus);
        return 0;
    }
#if HSPZ_HAVE_CUDA
    char why[512] = "";
    int rc = hz_cuda_backend_open(o, xp, be, why, sizeof why);
    if (rc == 0) return 0;
    if (rc < 0 || strcmp(o->device, "cuda") == 0) {
        snprintf(err, errlen, "--device %s: %s", o->device, why);
        return -1;
    }
    if (!o->quiet) fprintf(stderr, "hspz: note: no usable GPU (%s); running on the CPU\n", why);
    return 0;
#else
    if (strcmp(o->device, "cuda") == 0) {
        snprintf(err, errlen, "--device cuda: this hspz was built without CUDA");
        return -1;
    }
    if (!o->quiet) fprintf(stderr, "hspz: note: built without CUDA; running on the CPU\n");
    return 0;
#endif
}
