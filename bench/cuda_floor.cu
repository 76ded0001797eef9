/* cuda_floor — the smallest CUDA process on this host, and what allocations add to it: the
 * floor under hspz's fixed costs (issue 13 item 3: CUDA start and teardown).  Not a test.
 *
 *   cuda_floor [--streams S] [--device-mb M] [--pinned-mb P] [--kernel] [--quick-exit]
 *
 * In order: the context (cudaFree(0)), then S streams, each with M MiB of device memory in one
 * cudaMalloc and P MiB of pinned host memory in one cudaMallocHost (hspz: 16 streams), then one
 * empty kernel (its module is loaded lazily, on first launch), then everything freed.  Prints
 * one line of seconds since main began: "ready", "allocated", "kernel", "freed".  What comes
 * after "freed" (the runtime's and the driver's teardown at exit) and before main (the loader)
 * is the caller's to time: bench/device_floor.sh times the whole process from the shell.
 * --quick-exit: nothing is freed, and the process ends with _exit(0) right after its line, so
 * that neither the frees nor the runtime's teardown at exit run (what hspz does after a
 * published CUDA run).
 * Exit 1 with the CUDA error on stderr if any call fails.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <vector>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "cuda_floor: %s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void empty_kernel(int *p) { if (p && threadIdx.x == 0) *p = 1; }

int main(int argc, char **argv)
{
    double t0 = now();
    int streams = 0, kernel = 0, quick = 0;
    size_t dmb = 0, pmb = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--kernel")) kernel = 1;
        else if (!strcmp(argv[i], "--quick-exit")) quick = 1;
        else if (i + 1 < argc && !strcmp(argv[i], "--streams")) streams = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--device-mb")) dmb = strtoull(argv[++i], NULL, 10);
        else if (i + 1 < argc && !strcmp(argv[i], "--pinned-mb")) pmb = strtoull(argv[++i], NULL, 10);
        else { fprintf(stderr, "usage: cuda_floor [--streams S] [--device-mb M] [--pinned-mb P] [--kernel] [--quick-exit]\n"); return 2; }
    }
    CK(cudaFree(0));
    double t_ready = now() - t0;
    std::vector<cudaStream_t> st(streams);
    std::vector<void *> dbuf(streams, nullptr), pbuf(streams, nullptr);
    for (int s = 0; s < streams; s++) {
        CK(cudaStreamCreateWithFlags(&st[s], cudaStreamNonBlocking));
        if (dmb) CK(cudaMalloc(&dbuf[s], dmb << 20));
        if (pmb) CK(cudaMallocHost(&pbuf[s], pmb << 20));
    }
    double t_alloc = now() - t0;
    if (kernel) {
        empty_kernel<<<1, 32, 0, streams ? st[0] : 0>>>(streams && dmb ? (int *)dbuf[0] : nullptr);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
    }
    double t_kernel = now() - t0;
    if (quick) {
        printf("cuda_floor: streams %d device %zu MiB pinned %zu MiB kernel %d | ready %.4f allocated %.4f kernel %.4f quick exit\n",
               streams, dmb, pmb, kernel, t_ready, t_alloc, t_kernel);
        fflush(stdout);
        _exit(0);
    }
    for (int s = 0; s < streams; s++) {
        if (dbuf[s]) CK(cudaFree(dbuf[s]));
        if (pbuf[s]) CK(cudaFreeHost(pbuf[s]));
        CK(cudaStreamDestroy(st[s]));
    }
    printf("cuda_floor: streams %d device %zu MiB pinned %zu MiB kernel %d | ready %.4f allocated %.4f kernel %.4f freed %.4f\n",
           streams, dmb, pmb, kernel, t_ready, t_alloc, t_kernel, now() - t0);
    return 0;
}
