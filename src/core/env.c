/* env — the HSPZ_* environment variables hspz reads (see env.h). */
#include "env.h"
#include "shquote.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

static hz_envvar ENV[] = {
    { "HSPZ_GATE", "score, full", NULL },
    { "HSPZ_GATE_KERNEL", "refill, vec, thread, warp", NULL },
    { "HSPZ_DEVICE_SEEDS", "0, 1", NULL },
    { "HSPZ_DEVICE_LONG", "diag, 1, 0", NULL },
    { "HSPZ_DEVICE_DEDUP", "1, 0", NULL },
    { "HSPZ_REF_BUCKETS", "auto, on, off", NULL },
    { "HSPZ_GPU_TILE", "an integer 1..1073741824", NULL },
    { "HSPZ_SYNC", "block, auto, spin, yield", NULL },
    /* tests only: the N-th device allocation or gate launch fails (tests/gpu/device_suite.sh);
     * publish-kill:N, a SIGKILL at publish step N (src/run/publish.c, tests/bats/outsafe.bats) */
    { "HSPZ_FAULT", "gpu-alloc:N, gpu-kernel:N or publish-kill:N, N an integer 1..1073741824 (tests only)", NULL },
    /* benchmarks: phase times on stderr (src/run/pipeline.c trace, pipeline_work.c) */
    { "HSPZ_TRACE", "0, 1", NULL },
    /* hspz gapped --device (src/gapped/gapped_dev.c, cuda/gapped/ydrop.cu): halves per device
     * launch and the traceback pool's bytes (tests), and per-pass device counts on stderr
     * (benchmarks) */
    { "HSPZ_GAPPED_BATCH", "an integer 1..1073741824", NULL },
    { "HSPZ_GAPPED_POOL", "an integer 1..1073741824", NULL },
    { "HSPZ_GAPPED_STATS", "0, 1, chain", NULL },
    /* hspz run --gapped (src/run/pipeline.c, gapped_run.c): the alignments' device, through the
     * helper process (emu: the GPU's code on the host, tests) */
    { "HSPZ_GAPPED_DEVICE", "cpu, cuda, emu", NULL },
};
#define NENV ((int)(sizeof ENV / sizeof ENV[0]))
/* variables of the test harness and benchmarks (tests/lib/common.bash); hspz never reads them */
static const char *const HARNESS[] = { "HSPZ_SHARED", "HSPZ_SLOW", "HSPZ_TIMEOUT", "HSPZ_TEST_LOG", "HSPZ_GAPPED_EXTRA",
                                       /* .ci/galaxy.sh's settings, exported to the hspz it tests */
                                       "HSPZ_BIN_DIR", "HSPZ_DOCKER_IMAGE", "HSPZ_DOCKER_SOCKET", NULL };

/* v is one of ENV[k].allowed's comma-separated words, or an integer 1..2^30 when the list
 * is "an integer ..." */
static int env_value_ok(int k, const char *v)
{
    const char *al = ENV[k].allowed;
    if (!strncmp(al, "gpu-alloc:N", 11)) {
        const char *c = strchr(v, ':');
        if (!c || !((c - v == 9 && !strncmp(v, "gpu-alloc", 9)) || (c - v == 10 && !strncmp(v, "gpu-kernel", 10)) ||
                    (c - v == 12 && !strncmp(v, "publish-kill", 12)))) return 0;
        v = c + 1;
        al = "an integer";
    }
    if (!strncmp(al, "an integer", 10)) {
        char *end;
        errno = 0;
        if (!*v || *v < '0' || *v > '9') return 0;
        unsigned long long x = strtoull(v, &end, 10);
        return !errno && !*end && x >= 1 && x <= (1ULL << 30);
    }
    size_t n = strlen(v);
    for (const char *p = al; *p;) {
        size_t w = strcspn(p, ",");
        if (w == n && !strncmp(p, v, n)) return 1;
        p += w;
        while (*p == ',' || *p == ' ') p++;
    }
    return 0;
}

int hz_env_check(char *err, size_t errlen)
{
    for (int k = 0; k < NENV; k++) ENV[k].value = NULL;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "HSPZ_", 5)) continue;
        const char *eq = strchr(*e, '=');
        size_t nl = eq ? (size_t)(eq - *e) : strlen(*e);
        const char *val = eq ? eq + 1 : "";
        int known = -1;
        for (int k = 0; k < NENV; k++)
            if (strlen(ENV[k].name) == nl && !strncmp(ENV[k].name, *e, nl)) known = k;
        if (known < 0) continue;   /* not read by hspz: hz_env_unknown names it in a note */
        if (!env_value_ok(known, val)) {
            char ev[1024];
            snprintf(err, errlen, "environment variable %s='%s' is not allowed (allowed: %s)",
                     ENV[known].name, hz_printable(val, 200, ev, sizeof ev), ENV[known].allowed);
            return -1;
        }
        ENV[known].value = val;
    }
    return 0;
}

int hz_env_unknown(char *buf, size_t n)
{
    int count = 0;
    size_t used = 0;
    if (n) buf[0] = 0;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "HSPZ_", 5)) continue;
        const char *eq = strchr(*e, '=');
        size_t nl = eq ? (size_t)(eq - *e) : strlen(*e);
        int skip = 0;
        for (int k = 0; k < NENV && !skip; k++) skip = strlen(ENV[k].name) == nl && !strncmp(ENV[k].name, *e, nl);
        for (int k = 0; HARNESS[k] && !skip; k++) skip = strlen(HARNESS[k]) == nl && !strncmp(HARNESS[k], *e, nl);
        if (skip) continue;
        char en[256];
        hz_printable(*e, nl > 200 ? 200 : nl, en, sizeof en);
        int w = snprintf(buf + used, used < n ? n - used : 0, "%s%s", count ? ", " : "", en);
        if (w > 0 && used + (size_t)w < n) used += (size_t)w;
        count++;
    }
    return count;
}

const hz_envvar *hz_env_vars(int *n) { *n = NENV; return ENV; }

