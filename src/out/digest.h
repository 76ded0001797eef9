/* digest — RULES.md "canonical digest" of a folder's segments files (src/out/digest.c).
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
 * same lines) is not counted.  threads (>= 1) sort at a time (src/out/digest.c); tm (NULL: not
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

/* The canonical digest fed while a run writes its files: the lines go into the bucket sort's
 * buckets as they are formatted (on the formatting threads), so that only the sort and the
 * hash are left once the last file is written.  Opened on the run's first files, paths[0 ..
 * n) in dir (whole, never written again): its splitters are sampled from them (later files
 * are assumed to spread alike; they only balance the buckets, and a bucket past 4 x
 * bucket_bytes is sorted again at the end), then their lines are distributed on threads
 * (1..64) and the files recorded as by hz_dg_stream_file.  At most 512 nameless temporary
 * files in dir (one level of hz_canonical_digest_buckets).  bucket_bytes: 0 for
 * hz_canonical_digest's 8 MiB (tests take less).  Returns NULL with err (an unreadable file, no
 * temporary file, out of memory): the caller then digests the folder at the end. */
typedef struct hz_dg_stream hz_dg_stream;
hz_dg_stream *hz_dg_stream_open(const char *dir, char *const *paths, size_t n, size_t bucket_bytes, int threads,
                                char *err, size_t errlen);

/* Feed the lines buf[0 .. len): whole lines, each ending in '\n'.  Thread-safe.  Memory: the
 * lines twice, plus 2 bytes a line, while it runs.  Returns 0, or
 * -1 (a write error, no temporary file, out of memory, a line without its '\n'): the stream is
 * then spent, and hz_dg_stream_finish says so. */
int hz_dg_stream_lines(hz_dg_stream *ds, const char *buf, size_t len);

/* Record path, a file of dir whose lines were all fed and that is never written again (its
 * name, inode, size and modification time now).  Thread-safe.  0, or -1 (spent). */
int hz_dg_stream_file(hz_dg_stream *ds, const char *path);

/* Sort and hash the buckets: 0 with hex and *nlines (NULL ok) equal to hz_canonical_digest of
 * dir, tm (NULL ok) with the sort-and-hash times; or 1 when the stream does not give it (the
 * caller then runs hz_canonical_digest, which names any error): the stream is spent, its
 * files hold 8 x bucket_bytes or less (64 MiB: HZ_DG_MEM_BYTES, sorted in memory from the
 * folder, faster), or dir's *.segments
 * files (all.segments aside) are not exactly the files recorded, each unchanged.  On 1 its
 * bucket files are closed first (their disk space freed).  Once. */
int hz_dg_stream_finish(hz_dg_stream *ds, char hex[65], uint64_t *nlines, hz_dg_times *tm);

/* Output up to this many bytes is sorted in memory (hz_canonical_digest): a stream pays off
 * only past it, and hz_dg_stream_finish leaves smaller output to the folder's digest. */
#define HZ_DG_MEM_BYTES ((uint64_t)64 << 20)

/* Close and free everything; NULL is a no-op. */
void hz_dg_stream_free(hz_dg_stream *ds);

#endif
