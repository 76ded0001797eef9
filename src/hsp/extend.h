/* extend — materialization: full X-drop extension + entropy of gate survivors.
 *
 * Follows spec §4.2-4.5 with the 0.3.x counting rule (RULES.md "entropy counting");
 * arithmetic in xdrop.h, shared with cuda/hsp/extend.cu.
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

/* The diagonal path (src/hsp/extend_diag.c): exact extensions of anchors whose extension is long
 * (inside long HSPs: near-identical genomes, self-comparisons, tandem arrays, low-complexity
 * runs), at a cost linear in the diagonal's length instead of anchors x extension length.
 *
 * Anchors of one diagonal are taken together: a side's scan reads only the columns up to its
 * neighbour's start and then follows the neighbour's scan until their running maxima meet
 * (from that column on both scans are the same: same maxima, same drop), so the rest is taken
 * over.  A small direct-mapped cache keyed by diagonal (ar - aq) carries, per diagonal, the
 * right and the left scan of the last anchor seen there from one call to the next; a missing or evicted entry only costs
 * a full scan.  Every result equals hz_xdrop_right/hz_xdrop_left
 * exactly (spec §4.2; tests/unit/test_xdrop.c).  The cache belongs to one target block and
 * one query strand: hz_diagcache_reset before anchors of other sequences. */
typedef struct hz_diagent hz_diagent;
typedef struct {
    hz_diagent *e;      /* 1 << bits entries */
    unsigned bits;
    uint32_t gen;       /* an entry is live when its gen equals this */
} hz_diagcache;
void hz_diagcache_free(hz_diagcache *c);
void hz_diagcache_reset(hz_diagcache *c);   /* forget every entry (new sequences); O(1) */

/* 1 when the cache holds a left result on a's diagonal at most 4096 columns before a: the
 * diagonal is busy and a's extension on the diagonal path is cheap, so the gate can be
 * skipped (exact either way). */
int hz_diagcache_covers(const hz_diagcache *c, const hz_anchor *a);

/* Reusable buffers of the diagonal path. */
typedef struct {
    hz_diagcache cache;
    uint32_t *order, *tmp; size_t order_cap, tmp_cap;
    hz_anchor *ganc; hz_ext *gres; size_t ganc_cap, gres_cap;   /* one diagonal's anchors */
    uint64_t *keys; size_t keys_cap;
} hz_diagbuf;
void hz_diagbuf_free(hz_diagbuf *b);

/* The diagonal path over anchors a[ids[i]] (a[i] when ids is NULL), i < n, in (diagonal, ar)
 * order: on each diagonal the right sides are taken from the right end leftwards and the left
 * sides from the left end rightwards, each scan following its neighbour's until their maxima
 * meet, and the first of each continuing what buf->cache knows of the diagonal (so a later
 * call with anchors further along, same sequences, goes on where this one stopped).  Calls
 * visit(arg, i, anchor, result) once per anchor, grouped by diagonal (i = SIZE_MAX when ids
 * is NULL: the anchors are then radix-sorted by value, equal ones visited once each time).  Every result equals
 * hz_xdrop_right/hz_xdrop_left exactly (spec §4.2).  Returns 0 or -1 (out of memory). */
typedef void (*hz_diag_visit)(void *arg, size_t i, const hz_anchor *a, const hz_ext *r);
int hz_diag_groups(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                   const hz_anchor *a, const uint32_t *ids, size_t n, const int32_t *sub, int32_t xdrop,
                   hz_diagbuf *buf, hz_diag_visit visit, void *arg);

/* hz_diag_groups with a fresh cache, results into res[i] for a[ids[i]]. */
int hz_extend_diagonals(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                        const hz_anchor *a, const uint32_t *ids, size_t n,
                        const int32_t *sub, int32_t xdrop, hz_ext *res, hz_diagbuf *buf);

/* ord[0..n) = 0..n-1 sorted stably by (diagonal ar - aq, ar) of a[ids[i]] (of a[i] when ids
 * is NULL); tmp is scratch of n entries (bottom-up merge sort, thread-safe). */
void hz_anchor_order_diag(const hz_anchor *a, const uint32_t *ids, uint32_t *ord, uint32_t *tmp, size_t n);

/* KegAlign's keep test and record for an anchor whose extensions are known (spec §4.5).
 * Returns 1 and fills *out when kept. */
int hz_finish_hsp(const uint8_t *R, const uint8_t *Q, const hz_anchor *an, const hz_ext *e,
                  const hz_xparams *xp, hz_hsp *out);

#endif
