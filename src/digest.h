/* digest — RULES.md "canonical digest" of a folder's segments files (src/digest.c).
 */
#ifndef HZ_DIGEST_H
#define HZ_DIGEST_H
#include <stddef.h>
#include <stdint.h>

/* Where hz_canonical_digest's time went, in seconds (benchmarks: HSPZ_TRACE): for output
 * bucket-sorted through files, choosing the splitters, distributing the lines to the buckets
 * (their files and buffers opened first), then sorting buckets ahead while one thread hashes
 * them in order, and of that last phase the hashing thread's waits for a sorted bucket and
 * its SHA-256 updates (nested levels count in the phase of the level above).  All 0 for
 * output sorted in memory. */
typedef struct { double splitters, distribute, sort_hash, hash_wait, hash_update; } hz_dg_times;

/* RULES.md "canonical digest" (sha256 hex of all segment lines, byte-sorted) of the
 * *.segments files of dir, and their line count; all.segments (the --single-file copy of the
 * same lines) is not counted.  threads (>= 1) sort at a time (src/digest.c); tm (NULL: not
 * measured) gets the phase times, zeroed first.  Returns 0, or -1 with err naming an
 * unreadable file, a folder where no temporary file can be written, or out of memory. */
int hz_canonical_digest(const char *dir, int threads, char hex[65], uint64_t *nlines, hz_dg_times *tm,
                        char *err, size_t errlen);

/* The same with buckets of about bucket_bytes: output up to bucket_bytes is sorted in memory
 * (the output, plus 50 to 85 bytes a line: hz_dg_lines_hash); larger output is bucket-sorted
 * through unlinked temporary files in dir (a bucket over 4 x bucket_bytes again, nested), so
 * memory stays near threads x 4 MiB + (threads + 2) x 2.5 x bucket_bytes for any output size;
 * threads <= 64; temporary files per level <= a quarter of the open-file limit.
 * hz_canonical_digest: buckets of 8 MiB, and output up to 64 MiB in memory (at most about
 * 64 MiB + 85 bytes a line, 180 MB for segment lines of 50 bytes). */
int hz_canonical_digest_buckets(const char *dir, size_t bucket_bytes, int threads, char hex[65], uint64_t *nlines,
                                char *err, size_t errlen);

#endif
