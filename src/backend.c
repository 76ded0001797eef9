/* backend — device choice (issue: --device auto|cpu|cuda). */
#include "backend.h"
#include <stdio.h>
#include <string.h>

int hz_backend_open(const hz_opts *o, const hz_xparams *xp, hz_backend **be, char *err, size_t errlen)
{
    *be = NULL;
    (void)xp;
    if (strcmp(o->device, "cpu") == 0) return 0;
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
