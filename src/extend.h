/* extend — materialization: full X-drop extension + entropy of gate survivors.
 *
 * Follows spec §4.2-4.5 with the 0.3.x counting rule (RULES.md "entropy counting");
 * arithmetic in xdrop.h, shared with cuda/extend.cu.
 */
#ifndef HZ_EXTEND_H
#define HZ_EXTEND_H
#include <stddef.h>
#include <stdint.h>
#include "gate.h"

/* For k = 0..nid-1 extend anchor a[ids[k]]; kept HSPs are appended to out in that order.
 * out must have room for nid records.  Returns the number kept. */
size_t hz_extend_cpu(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                     const hz_anchor *a, const uint32_t *ids, size_t nid,
                     const hz_xparams *xp, hz_hsp *out);


/* Result of the two one-sided X-drop extensions of one anchor (spec §4.2). */
typedef struct {
    int32_t right_score, right_ext;   /* right_ext = -1 when nothing is taken */
    int32_t left_score, left_ext;     /* left_ext >= 0 */
} hz_ext;

/* Reusable buffers of hz_extend_diagonals. */
typedef struct {
    int64_t *pre, *rm; size_t cap;
    uint32_t *order; size_t order_cap;
} hz_diagbuf;
void hz_diagbuf_free(hz_diagbuf *b);

/* Exact extension of many anchors at once, for anchors whose extension is long (inside long
 * HSPs, e.g. near-identical genomes or self-comparisons).  Anchors are grouped by diagonal;
 * along a diagonal the first anchor's scan (a "leader") is stored as prefix sums, and a later
 * anchor on it only scans until its running maximum meets the leader's: from that column on
 * both extensions are the same (same maxima, same drop), so the rest is copied.  The result
 * for every anchor equals hz_xdrop_right/hz_xdrop_left exactly.
 * ids[0..n) index into a; res[i] receives the result of a[ids[i]].  Returns 0 or -1 (memory). */
int hz_extend_diagonals(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                        const hz_anchor *a, const uint32_t *ids, size_t n,
                        const int32_t *sub, int32_t xdrop, hz_ext *res, hz_diagbuf *buf);

/* KegAlign's keep test and record for an anchor whose extensions are known (spec §4.5).
 * Returns 1 and fills *out when kept. */
int hz_finish_hsp(const uint8_t *R, const uint8_t *Q, const hz_anchor *an, const hz_ext *e,
                  const hz_xparams *xp, hz_hsp *out);

#endif
