/* gate — CPU score gate and stable compaction. */
#include "gate.h"

void hz_gate_cpu(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                 const hz_anchor *a, size_t n, const hz_xparams *xp, uint8_t *flags)
{
    const int32_t *sub = xp->sub;
    const int32_t x = xp->xdrop, thr = xp->gate_min_total;
    for (size_t i = 0; i < n; i++) {
        uint32_t ar = a[i].ar, aq = a[i].aq;
        int32_t t = hz_xdrop_left_score(R, Q, ar, aq, sub, x);
        t += hz_xdrop_right_score(R, Rlen, Q, Qlen, ar, aq, sub, x);
        flags[i] = t >= thr;
    }
}

size_t hz_compact_cpu(const uint8_t *flags, size_t n, uint32_t *ids)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        ids[k] = (uint32_t)i;
        k += flags[i] != 0;
    }
    return k;
}

static void gate_capped(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                        const hz_anchor *a, size_t n, const hz_xparams *xp, uint32_t cap,
                        uint8_t *flags, int marked_only)
{
    const int32_t *sub = xp->sub;
    const int32_t x = xp->xdrop, thr = xp->gate_min_total;
    for (size_t i = 0; i < n; i++) {
        if (marked_only && flags[i] != HZ_GATE_TODO) continue;
        uint32_t ar = a[i].ar, aq = a[i].aq;
        if (i + 16 < n) {   /* the target is read at random places: keep misses in flight */
            __builtin_prefetch(R + a[i + 16].ar - 1);
            __builtin_prefetch(R + a[i + 16].ar + 32);
            __builtin_prefetch(R + a[i + 16].ar - 33);
        }
        int32_t l = hz_xdrop_left_capped(R, Q, ar, aq, sub, x, cap);
        if (l < 0) { flags[i] = 2; continue; }
        int32_t r = hz_xdrop_right_capped(R, Rlen, Q, Qlen, ar, aq, sub, x, cap);
        if (r < 0) { flags[i] = 2; continue; }
        flags[i] = l + r >= thr;
    }
}

void hz_gate_cpu_capped(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                        const hz_anchor *a, size_t n, const hz_xparams *xp, uint32_t cap,
                        uint8_t *flags)
{
    gate_capped(R, Rlen, Q, Qlen, a, n, xp, cap, flags, 0);
}

void hz_gate_cpu_capped_marked(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                               const hz_anchor *a, size_t n, const hz_xparams *xp, uint32_t cap,
                               uint8_t *flags)
{
    gate_capped(R, Rlen, Q, Qlen, a, n, xp, cap, flags, 1);
}
