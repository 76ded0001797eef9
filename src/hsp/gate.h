/* gate — the score gate: an exact score-only X-drop pass over raw anchors.
 *
 * Each anchor gets one flag byte: 1 when right_score + left_score >= xp->gate_min_total,
 * which is necessary for KegAlign's keep test (spec §4.5, xdrop.h hz_gate_threshold), else 0.
 * Survivors are then compacted stably (raw order kept) and materialized (extend.h).
 * The CUDA version (cuda/hsp/gate.cu) writes the same flags for the same anchors.
 */
#ifndef HZ_GATE_H
#define HZ_GATE_H
#include <stddef.h>
#include <stdint.h>
#include "xdrop.h"

/* A raw seed hit: the position just past the seed window on the target block (ar) and on
 * the query block or its reverse complement (aq), 0-based block-relative (spec §3.4). */
typedef struct {
    uint32_t ar, aq;
} hz_anchor;

/* Gate n anchors: R/Rlen target codes, Q/Qlen query codes (extension codes, spec §2.2);
 * flags[i] = 1 for a survivor, 0 for a rejected anchor.  Every slot is written. */
void hz_gate_cpu(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                 const hz_anchor *a, size_t n, const hz_xparams *xp, uint8_t *flags);

/* The same gate with a work cap: a side that scans cap columns without dropping or reaching
 * an edge leaves the anchor undecided (flag 2) for the diagonal path (extend.h
 * hz_extend_diagonals), which handles long extensions without quadratic cost.
 * flags: 0 rejected, 1 survivor, 2 undecided. */
void hz_gate_cpu_capped(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                        const hz_anchor *a, size_t n, const hz_xparams *xp, uint32_t cap,
                        uint8_t *flags);

/* hz_gate_cpu_capped for the anchors whose flag is HZ_GATE_TODO on entry; other flags are
 * left as they are (the CPU chunk marks anchors it sends to the diagonal path unconditionally
 * with 2 first: the path is exact for any anchor). */
#define HZ_GATE_TODO 3
void hz_gate_cpu_capped_marked(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                               const hz_anchor *a, size_t n, const hz_xparams *xp, uint32_t cap,
                               uint8_t *flags);

/* Stable compaction: ids[0..k) = indices i with flags[i] != 0, ascending.  Returns k. */
size_t hz_compact_cpu(const uint8_t *flags, size_t n, uint32_t *ids);

#endif
