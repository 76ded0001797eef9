/* report (CUDA) — backend.h report(): per device the work, CUDA-event time per stage and the
 * busy time (the union of the tiles' and seeding passes' event intervals), and the kernel
 * choices, as the manifest's "gpu" object.
 */
#include "backend_impl.cuh"
#include <stdio.h>

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* JSON text (malloc'd): per device the work, the event time per stage and the busy time
 * (union of the tiles' and seeding passes' event intervals); the kernel choices. */
char *hz_be_report(hz_backend *be, double wall_s)
{
    cuda_be *B = (cuda_be *)be->impl;
    size_t cap = 8192 + (size_t)B->nd * 1024, n = 0;
    char *s = (char *)malloc(cap);
    if (!s) return NULL;
#define P(...) do { int k_ = snprintf(s + n, cap - n, __VA_ARGS__); if (k_ > 0) n += (size_t)k_ < cap - n ? (size_t)k_ : cap - n - 1; } while (0)
    const char *rb = B->buckets_setting == 0 ? "off" : B->buckets_setting == 1 ? "on" : "auto";
    uint64_t fallback = 0;
    for (int i = 0; i < B->nt; i++) fallback += B->t[i].long_fallback;
    P("{\"gate_kernel\": \"%s\", \"long_anchors_on\": \"%s\", \"batch_dedup_on\": \"%s\", \"ref_buckets_setting\": \"%s\", \"target_blocks\": %llu, \"target_blocks_bucketed\": %llu, "
      "\"tile_anchors\": %llu, \"wall_s\": %.3f, \"devices\": [",
      B->gate_full ? "full" : GK_NAME[B->gate_kernel], B->long_dev == LONG_DIAG ? (fallback ? "diagonal-path+device+host" : "diagonal-path+host") : B->long_dev ? "device+host" : "host", B->dev_dedup ? "device" : "host", rb, (unsigned long long)B->blocks,
      (unsigned long long)B->blocks_bucketed, (unsigned long long)B->tile, wall_s);
    double all_gate = 0; uint64_t all_anchors = 0;
    for (int g = 0; g < B->nd; g++) {
        double ms[ST_N] = {0}; uint64_t tiles = 0, chunks = 0, anchors = 0, bucketed = 0, ldev = 0, lhost = 0; size_t niv = 0;
        for (int i = 0; i < B->nt; i++) {
            tctx *c = &B->t[i];
            if (!c->ready || c->dv != g) continue;
            for (int k = 0; k < ST_N; k++) ms[k] += c->ms[k];
            tiles += c->tiles; chunks += c->chunks; anchors += c->anchors; bucketed += c->bucketed; niv += c->niv / 2;
            ldev += c->long_dev; lhost += c->long_host;
        }
        /* busy time: union of the intervals */
        double busy_ms = 0;
        if (niv) {
            float *iv = (float *)malloc(niv * 2 * sizeof *iv);
            if (iv) {
                size_t m = 0;
                for (int i = 0; i < B->nt; i++) {
                    tctx *c = &B->t[i];
                    if (!c->ready || c->dv != g) continue;
                    memcpy(iv + m, c->iv, c->niv * sizeof *iv); m += c->niv;
                }
                qsort(iv, niv, 2 * sizeof *iv, cmp_float);
                float a = iv[0], b = iv[1];
                for (size_t i = 1; i < niv; i++) {
                    if (iv[2 * i] > b) { busy_ms += b - a; a = iv[2 * i]; b = iv[2 * i + 1]; }
                    else if (iv[2 * i + 1] > b) b = iv[2 * i + 1];
                }
                busy_ms += b - a;
                free(iv);
            }
        }
        const cudaDeviceProp *p = &B->d[g].p;
        P("%s{\"index\": %d, \"name\": \"%s\", \"compute_capability\": \"%d.%d\", \"sms\": %d, \"l2_bytes\": %d, "
          "\"work_chunks\": %llu, \"tiles\": %llu, \"anchors\": %llu, \"anchors_bucketed\": %llu, \"long_anchors_device\": %llu, "
          "\"long_anchors_host\": %llu, \"busy_s\": %.3f, \"stage_event_s\": {",
          g ? ", " : "", B->d[g].dev, p->name, p->major, p->minor, p->multiProcessorCount, p->l2CacheSize,
          (unsigned long long)chunks, (unsigned long long)tiles, (unsigned long long)anchors,
          (unsigned long long)bucketed, (unsigned long long)ldev, (unsigned long long)lhost, busy_ms / 1000.0);
        for (int k = 0; k < ST_N; k++) P("%s\"%s\": %.3f", k ? ", " : "", ST_NAME[k], ms[k] / 1000.0);
        P("}}");
        all_gate += ms[ST_GATE]; all_anchors += anchors;
    }
    P("], \"gate_event_s\": %.3f, \"gate_rate_anchors_per_s\": %.4g}", all_gate / 1000.0,
      all_gate > 0 ? (double)all_anchors / (all_gate / 1000.0) : 0.0);
#undef P
    return s;
}

