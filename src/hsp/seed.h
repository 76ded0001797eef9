/* seed — spaced seed shapes, the target seed-position table, query seeds and raw anchors.
 *
 * Follows ../shared/spec/kegalign-hsp-spec.md §3 (seed words, transitions, table, anchors)
 * with the 0.3.x shape rules (kegalign-v03-delta.md §2, RULES.md "custom seed patterns").
 * Positions are block-relative 0-based byte offsets (uint32: a block is < 2^32 bytes).
 */
#ifndef HZ_SEED_H
#define HZ_SEED_H
#include <stddef.h>
#include <stdint.h>

#define HZ_SEED_MAX_SPAN 64
#define HZ_SEED_MIN_WEIGHT 4
#define HZ_SEED_MAX_WEIGHT 15

/* A spaced seed: span W, weight K, care[] = the K care offsets in shape order. */
typedef struct {
    char pattern[HZ_SEED_MAX_SPAN + 1]; /* normalised: 'T' care, '0' don't-care */
    int span, weight;
    int care[HZ_SEED_MAX_SPAN];
    int transition;                     /* 1: one transition allowed (K extra seeds) */
} hz_shape;

/* Parse --seed: "12of19", "14of22" or a custom pattern of '1'/'T' (care) and '0' (don't-care).
 * Returns 0, or -1 with a message in err: unknown character, span outside 1..64, weight
 * outside 4..15 (0.3.x limits, delta §2). */
int hz_shape_parse(const char *seed, int transition, hz_shape *sh, char *err, size_t errlen);

/* Seeding alphabet (spec §3.1): 'A','C','G','T' -> 0..3, every other byte -> 4 (invalid). */
extern const uint8_t hz_seed_code[256];

/* Target seed-position table of one block (spec §3.3): positions p = start_offset + i*step,
 * p <= L - W, whose W-byte window is all upper-case ACGT, bucketed by k-mer value.  Bucket
 * contents are ascending positions.  For K <= 13 a direct offset array of 4^K + 1 entries;
 * above that a sorted (kmer << 32 | pos) array searched by bisection. */
typedef struct {
    int weight;
    uint64_t n_pos;        /* indexed positions */
    uint32_t *bucket_off;  /* direct mode: 4^K + 1 offsets into pos[] (NULL in sorted mode) */
    uint32_t *pos;         /* direct mode: positions grouped by bucket */
    uint64_t *sorted;      /* sorted mode: (kmer << 32) | pos, ascending */
    int resident;          /* kept on the device by the backend (backend.h build_table_resident):
                            * pos, bucket_off and sorted are NULL, only the counts are here */
} hz_seedtable;

/* Build the table for block bytes T[0..L).  Returns 0 or -1 (out of memory). */
int hz_seedtable_build(hz_seedtable *tab, const uint8_t *T, uint32_t L, const hz_shape *sh, uint32_t step);

/* The same table (spec §3.3; block bytes T[0..L), 0-based block positions, buckets of
 * ascending positions) built on `parts` threads (at most HZ_SEEDTABLE_MAX_PARTS; direct mode
 * only, sorted mode and parts <= 1 take one pass): each thread counts and places the positions of
 * one stretch of the block, using a private 4^K array of 32-bit counts (64 MiB at K = 12), so
 * the caller picks parts by block size (hz_seedtable_parts).  The same bytes as
 * hz_seedtable_build; when the counts' memory or a thread is not to be had, one pass.  Returns
 * 0 or -1 (out of memory). */
#define HZ_SEEDTABLE_MAX_PARTS 8
int hz_seedtable_build_mt(hz_seedtable *tab, const uint8_t *T, uint32_t L, const hz_shape *sh, uint32_t step,
                          int parts);

/* Parts for a block of L bytes on `threads` threads: one per 8 MiB of block (so a part's
 * 4^K counts, 64 MiB at K = 12, stay within about twice its positions' 32 MiB at step 1), at
 * most threads and HZ_SEEDTABLE_MAX_PARTS. */
int hz_seedtable_parts(uint32_t L, int threads);
void hz_seedtable_free(hz_seedtable *tab);

/* Bucket of k-mer value v: *n positions at the returned pointer (ascending).  In sorted mode
 * the pointer is into the 64-bit array: use hz_seedtable_pos(). */
static inline uint64_t hz_seedtable_lookup(const hz_seedtable *tab, uint32_t v, uint64_t *n)
{
    if (tab->bucket_off) {
        *n = tab->bucket_off[v + 1] - tab->bucket_off[v];
        return tab->bucket_off[v];
    }
    uint64_t key = (uint64_t)v << 32, lo = 0, hi = tab->n_pos;
    while (lo < hi) { uint64_t mid = (lo + hi) >> 1; if (tab->sorted[mid] < key) lo = mid + 1; else hi = mid; }
    uint64_t a = lo; hi = tab->n_pos;
    key += 1ULL << 32;
    while (lo < hi) { uint64_t mid = (lo + hi) >> 1; if (tab->sorted[mid] < key) lo = mid + 1; else hi = mid; }
    *n = lo - a;
    return a;
}
static inline uint32_t hz_seedtable_pos(const hz_seedtable *tab, uint64_t i)
{
    return tab->bucket_off ? tab->pos[i] : (uint32_t)tab->sorted[i];
}

/* One query seed: k-mer value and the query position j of its window (spec §3.2). */
typedef struct {
    uint32_t kmer;
    uint32_t qpos;
} hz_seed;

/* Seeds of query positions [j0, j1) of text S (forward block bytes for plus, host reverse
 * complement for minus), in KegAlign's order: j ascending; exact seed, then transition
 * variants t = 0..K-1 (kmer XOR (2 << 2t)).  Windows must fit: j1 - 1 + W <= text length.
 * Appends to *out (capacity grown); returns the number appended, or -1 on out of memory. */
int64_t hz_seeds_chunk(const uint8_t *S, uint32_t j0, uint32_t j1, const hz_shape *sh,
                       hz_seed **out, size_t *cap);

/* k-mer value of the window at p of S, or -1 when the window is not valid (spec §3.1). */
int64_t hz_kmer_at(const uint8_t *S, uint32_t p, const hz_shape *sh);

#endif
