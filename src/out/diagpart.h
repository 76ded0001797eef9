/* diagpart — the automatic chunk size of -D / --diagonal-partition (HZ_DIAG_AUTO).
 *
 * KegAlign's Galaxy runner (galaxytools tools/kegalign/runner.py, estimate_chunk_size; spec
 * kegalign-hsp-spec.md §7.4) estimates one chunk size from every segments file of the run, then
 * hands it to diagonal_partition.py for each lastz command (§7.3).  These are the two rules. */
#ifndef HZ_DIAGPART_H
#define HZ_DIAGPART_H

#include <stddef.h>
#include <stdint.h>

/* The chunk size (segments per lastz command) for the segments files of one run.
 * sizes[0..n): the files' sizes in bytes (any order; the array is sorted in place);
 * line_size: the length in bytes, newline included, of the first line of the first file
 * (KegAlign: of whichever file the directory lists first).
 * Rule: Python's statistics.quantiles(sizes) (n=4, exclusive method): the median when there
 * are fewer than 7 files, else the third quartile; floor-divided by line_size; at most 50000.
 * Fewer than 2 files (KegAlign's quantiles has no value there) or line_size 0 give 0 =
 * no partition.  Errors: none. */
uint64_t hz_diagpart_auto_chunk(uint64_t *sizes, size_t n, uint64_t line_size);

/* diagonal_partition.py's test whether a file needs splitting at chunk size N > 0:
 * estimated lines = file_size // first_line_size (both bytes, newline included); the file is
 * kept whole when that is <= N.  Returns 1 when it must be split.  first_line_size 0 = keep. */
int hz_diagpart_must_split(uint64_t file_size, uint64_t first_line_size, uint64_t N);

#endif
