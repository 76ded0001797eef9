/* plan — blocks, records, query intervals and chunks of a run.
 *
 * Follows ../shared/spec/kegalign-hsp-spec.md §2.4 (blocks and '&' separators), §2.5 (rc
 * record table), §2.6 (intervals), §3.5 (chunks).  Global offsets are 64-bit byte offsets in
 * the concatenation of all blocks of one side (separators counted, as KegAlign's buffer).
 */
#ifndef HZ_PLAN_H
#define HZ_PLAN_H
#include <stddef.h>
#include <stdint.h>
#include "seqio.h"
#include "options.h"

typedef struct {
    uint64_t start;     /* global offset of the block's first byte */
    uint32_t len;       /* bytes, separators included (< 2^32) */
    size_t rec0, nrec;  /* records [rec0, rec0 + nrec) */
} hz_block;

/* One side (target or query) cut into blocks. */
typedef struct {
    const hz_seqset *seqs;
    char **name;            /* prefix + record name, per record */
    uint64_t *rec_start;    /* global offset of each record */
    size_t n_rec;
    hz_block *block;
    size_t n_block;
    size_t n_name_files;    /* n_block, plus one empty file when the last record closed a block */
} hz_side;

/* Cut seqs into blocks of more than B bytes (spec §2.4).  Returns 0, or -1 with err set
 * (a block of 2^32 bytes or more; out of memory). */
int hz_side_plan(hz_side *side, const hz_seqset *seqs, uint64_t B, const char *prefix,
                 char *err, size_t errlen);
void hz_side_free(hz_side *side);

/* Copy block b's bytes (records joined by '&') into dst[0 .. len). */
void hz_block_bytes(const hz_side *side, size_t b, uint8_t *dst);

/* Write "<stem>_block<n>.name" files into dir: one name + '\n' per record (spec §2.4).
 * Returns 0 or -1 with err (naming the file and errno). */
int hz_side_write_names(const hz_side *side, const char *dir, const char *stem, char *err, size_t errlen);

/* Query intervals of a block of length L (spec §2.6): closed ranges [s, e] of seed starts,
 * E = L - W; none when L <= W.  Returns the count; *iv is malloc'd pairs (s, e). */
size_t hz_intervals(uint32_t L, uint32_t W, uint64_t I, uint32_t (**iv)[2]);

/* Codes of a block's bytes raw[0..L): fwd[i] = extension code of raw[i] (spec §2.2: ACGT 0-3,
 * acgt L, nN N, '&' E, anything else X).  When rc and hrc are given, the device reverse
 * complement rc[L-1-i] (A<->T, C<->G, L/N/X/E kept) and the host reverse complement used for
 * minus-strand seeding, hrc[L-1-i] (spec §2.3 with the 0.3.x table, delta §1b: upper-case
 * A C G T U -> T G C A A, every other byte 'N', i.e. not seedable). */
void hz_block_codes(const uint8_t *raw, uint32_t L, uint8_t *fwd, uint8_t *rc, uint8_t *hrc);

/* The same codes written straight from the loaded records of block b of side (no copy of
 * its bytes): fwd[0..len) as hz_block_codes (NULL to skip), rc and hrc as there (each NULL
 * to skip), with the '&' separators of hz_block_bytes.  Split into ranges over up to
 * threads threads (fewer for small blocks; 1 or a failed thread start = this thread);
 * identical bytes for every thread count.  Never fails. */
void hz_block_encode(const hz_side *side, size_t b, uint8_t *fwd, uint8_t *rc, uint8_t *hrc, int threads);

/* Block offsets (0-based, ascending) of every byte c in block b of side: *pos is malloc'd
 * (NULL when none).  Returns the count, or -1 when out of memory.  Device seeding uses it
 * for 'U', the one byte whose minus-strand seed code does not follow its extension code
 * (spec §2.3, delta §1b). */
int64_t hz_block_find(const hz_side *side, size_t b, uint8_t c, uint32_t **pos);

/* Write the blocks of both sides to path as TSV lines "side<TAB>block<TAB>record<TAB>bp"
 * (side "reference" or "query", as hillerlab/hspZ writes it (src/run.rs); block 0-based; record = the prefixed name; bp = record length),
 * target first, records in input order: hillerlab/hspZ's --dump-plan bin membership, where
 * a block is a bin.  Written to path.tmp-<pid> and renamed.  Returns 0 or -1 with err
 * naming the file and errno. */
int hz_plan_dump(const hz_side *t, const hz_side *q, const char *path, char *err, size_t errlen);

/* Last index i in the ascending array a[0..n) with a[i] <= x (n > 0, a[0] <= x). */
size_t hz_find_le(const uint64_t *a, size_t n, uint64_t x);

/* Plan counts of a run (manifest "plan", --dry-run): blocks per side, query intervals (summed
 * over query blocks), chunk jobs and work units (target block x query block x interval), for
 * seed span W and o's strand, interval and chunk sizes. */
typedef struct {
    size_t target_blocks, query_blocks, target_records, query_records;
    size_t intervals, chunks, work_units;
} hz_plan_counts;
void hz_plan_count(const hz_side *tside, const hz_side *qside, unsigned W, const hz_opts *o, hz_plan_counts *pc);

#endif
