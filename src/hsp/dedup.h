/* dedup — KegAlign's per-batch containment dedup and 0.3.x per-interval duplicate removal.
 *
 * Follows RULES.md "dedup inside a chunk" / "dedup per interval" and spec §5.3.
 * HSPs are block-relative (hz_hsp, xdrop.h).
 */
#ifndef HZ_DEDUP_H
#define HZ_DEDUP_H
#include <stddef.h>
#include "xdrop.h"

/* One semantic batch, in place: sort by (uint32 diagonal rs - qs, rs, len, score desc); drop
 * h[i] when it and h[i-1] (the preceding element, kept or not) share the diagonal and one
 * contains the other (closed [start, start+len], uint32 arithmetic); then sort by (qs, rs,
 * len, score desc).  Returns the new count.  n = 0 is fine. */
size_t hz_dedup_batch(hz_hsp *h, size_t n);

/* Part of one batch, in place: sort by the batch key and keep one copy of records that are
 * identical.  Exact for hz_dedup_batch of the whole batch (spec §5.3): identical records sit
 * next to each other in its sort, and a copy is contained in its twin, so removing it
 * changes no comparison.  Lets a batch's memory follow its distinct HSPs, not its accepted
 * ones (repeats, floods).  Returns the new count; order afterwards: the batch key. */
size_t hz_dedup_collapse(hz_hsp *h, size_t n);

/* One interval and strand, in place: remove exact duplicates of (rs, qs, len, score),
 * keeping the first occurrence, order of survivors unchanged (0.3.x drop_duplicate_hsps).
 * threads (>= 1) share the work, split by hash (the result never depends on it); memory
 * about 9 bytes per record.  Returns the new count, or SIZE_MAX when out of memory. */
size_t hz_dedup_interval(hz_hsp *h, size_t n, int threads);

#endif
