/* chunk — one seeding chunk against one target block: anchors -> gate -> compaction ->
 * materialization -> per-batch dedup (spec §3.4, §5.1-5.3; RULES.md MAX_HITS).
 *
 * This is the unit both backends implement: hz_chunk_cpu here, hz_chunk_cuda in
 * cuda/chunk.cu.  Output is a function of the inputs alone (never of memory or threads).
 */
#ifndef HZ_CHUNK_H
#define HZ_CHUNK_H
#include <stddef.h>
#include <stdint.h>
#include "seed.h"
#include "gate.h"
#include "extend.h"

/* Growable HSP array. */
typedef struct { hz_hsp *v; size_t n, cap, tidy; } hz_hspvec;   /* tidy: see hz_batch_tidy */
int hz_hspvec_reserve(hz_hspvec *h, size_t n);   /* room for n more; 0 or -1 (out of memory) */
void hz_hspvec_free(hz_hspvec *h);
/* An interval's chunk results joined in plan order (RULES.md "dedup per interval" takes them
 * so): res[i0 .. i1) appended to v[0] (plus strand), res[i1 .. i2) to v[1] (minus), whose
 * v arrays must hold them all (cap, not grown; n starts at 0); each res[i] is freed.  On up
 * to `threads` (<= 16 used) threads, each a run of chunks of about equal size, when they hold
 * 256 Ki HSPs or more (a flood's last interval joins 0.4 GB after the GPU's last work: 0.2-0.3
 * s on one thread, mostly first touches of v's pages); where a thread cannot start, its part
 * is done on the caller's.  Never fails. */
void hz_hspvec_join(hz_hspvec v[2], hz_hspvec *res, size_t i0, size_t i1, size_t i2, int threads);

/* Funnel counts and stage times (seconds of thread time) of a run or part of one. */
typedef struct {
    uint64_t seeds, anchors, survivors, accepted, after_batch, written;
    uint64_t batches, long_anchors;
    double t_seed, t_anchor, t_gate, t_extend, t_dedup;
} hz_funnel;
void hz_funnel_add(hz_funnel *a, const hz_funnel *b);

/* A target block ready for seeding: codes (extension alphabet) and the seed table. */
typedef struct {
    const uint8_t *R;        /* target block extension codes [0, Rlen) */
    uint32_t Rlen;
    const hz_seedtable *tab;
    uint32_t W;              /* seed span */
    const hz_xparams *xp;
    uint64_t max_hits;       /* semantic hits-per-batch cap H; 0 = one batch per chunk */
} hz_target;

/* Per-thread scratch buffers, reused across chunks. */
typedef struct {
    hz_seed *seeds; size_t seeds_cap;
    uint64_t *pref; size_t pref_cap;
    hz_anchor *anc; uint8_t *flags; uint32_t *ids; hz_hsp *tmp;
    hz_hspvec batch;
    hz_anchor *longa; size_t nlong, long_cap;   /* anchors parked for the diagonal path */
    size_t piece;                               /* how many of them to gather next */
    size_t piece_max, tidy_min;                 /* 0: HZ_LONG_PIECE, HZ_TIDY_MIN (tests set small ones) */
    hz_diagbuf diag;
} hz_scratch;
void hz_scratch_free(hz_scratch *s);

/* MAX_HITS batch ends (spec §5.2, exactly its loop): given the inclusive prefix sums
 * pref[0..ns) of hits per seed and H, writes the last seed index of each batch into lim (room
 * for pref[ns-1]/H + 1 entries, at most ns + 1) and returns the number of batches; batch b is
 * seeds lim[b-1]+1 .. lim[b] (lim[-1] = -1) and may be empty when an end repeats.  H = 0 or
 * pref[ns-1] < H gives one batch.  Where KegAlign reads pref[-1] (the first seed alone
 * reaches H) 0 is used.  Once an end repeats, KegAlign's remaining batches are all empty and
 * are not listed (they change nothing), so at most ns + 1 ends are written. */
size_t hz_batches(const uint64_t *pref, size_t ns, uint64_t H, int64_t *lim);

/* Hits of each seed (spec §3.4): bstart[i] = first index of seed i's bucket in the table,
 * pref[i] = inclusive prefix sum of bucket sizes (hits) over seeds 0..i.  Arrays of ns. */
void hz_seed_hits(const hz_seedtable *tab, const hz_seed *seeds, size_t ns, uint64_t *pref, uint64_t *bstart);

/* Bound a batch being filled by its distinct HSPs: once it holds min records and
 * twice as many as after the last collapse (b->tidy; 0 at the batch's start), keep one copy
 * of identical records (dedup.h hz_dedup_collapse, exact for the batch's dedup). */
#define HZ_TIDY_MIN ((size_t)1 << 20)
/* Anchors gathered for the diagonal path before it runs on them (8 bytes each). */
#define HZ_LONG_PIECE ((size_t)1 << 20)
void hz_batch_tidy(hz_hspvec *b, size_t min);   /* min: HZ_TIDY_MIN when 0 */

/* Anchors a[0..n) for the diagonal path (past the gate's work cap, or on a diagonal the path
 * knows): exact extension (extend.h hz_diag_groups), gate threshold, then KegAlign's keep test; kept HSPs are appended to
 * batch and counted in f.  diag->cache must belong to this target block and query strand.
 * Returns 0, or -1 when out of memory. */
int hz_extend_long(const hz_target *t, const uint8_t *Q, uint32_t Qlen, const hz_anchor *a,
                   size_t n, hz_diagbuf *diag, hz_hspvec *batch, hz_funnel *f);

/* Run one chunk on the CPU.  seeds[0..ns) in KegAlign order; Q/Qlen the query codes of the
 * strand (forward or reverse-complement block).  HSPs (after per-batch dedup, batches
 * concatenated) are appended to out.  Returns 0, or -1 when out of memory. */
int hz_chunk_cpu(const hz_target *t, const hz_seed *seeds, size_t ns, const uint8_t *Q,
                 uint32_t Qlen, hz_hspvec *out, hz_funnel *f, hz_scratch *s);

double hz_now(void);   /* monotonic seconds */

#endif
