/* digest — RULES.md "canonical digest" of a folder's segments files (src/digest.c): after the
 * fact, or streamed while a run writes them.
 */
#ifndef HZ_DIGEST_H
#define HZ_DIGEST_H
#include <stddef.h>
#include <stdint.h>

/* RULES.md "canonical digest" (sha256 hex of all segment lines, byte-sorted) of the
 * *.segments files of dir, and their line count; all.segments (the --single-file copy of the
 * same lines) is not counted.  threads (>= 1) sort at a time (src/digest.c).  Returns 0, or
 * -1 with err naming an unreadable file, a folder where no temporary file can be written, or
 * out of memory. */
int hz_canonical_digest(const char *dir, int threads, char hex[65], uint64_t *nlines, char *err, size_t errlen);

/* The same with buckets of about bucket_bytes (hz_canonical_digest uses 8 MiB): output up to
 * bucket_bytes is sorted in memory; larger output is bucket-sorted through unlinked temporary
 * files in dir (a bucket over 4 x bucket_bytes again, nested), so memory stays near
 * threads x 4 MiB + (threads + 2) x 2.5 x bucket_bytes for any output size; threads <= 64;
 * temporary files per level <= a quarter of the open-file limit. */
int hz_canonical_digest_buckets(const char *dir, size_t bucket_bytes, int threads, char hex[65], uint64_t *nlines,
                                char *err, size_t errlen);

/* The streamed canonical digest of the *.segments files a run writes into dir.  Its buckets'
 * splitters come from the target's n records (names[i] as written in a line's first column,
 * lens[i] bases): they only balance the buckets.  hz_digest_stream_add hands over each
 * finished file; max(1, threads / 4) workers sort its lines into the buckets (nameless
 * temporary files in dir, created with their first bytes, as many as one level of
 * hz_canonical_digest_buckets) while the run goes on.  bucket_bytes: 0 for
 * hz_canonical_digest's 8 MiB; threads <= 64.  Returns NULL with err when out of memory or
 * no thread starts: the caller then digests the folder at the end. */
typedef struct hz_digest_stream hz_digest_stream;
hz_digest_stream *hz_digest_stream_open(const char *dir, char *const *names, const uint64_t *lens, size_t n,
                                        size_t bucket_bytes, int threads, char *err, size_t errlen);

/* Hand over path, a finished file of dir, never written again.  Returns 0, or -1 when it could
 * not be taken (not a regular file, out of memory): the stream is then unusable, and
 * hz_digest_stream_finish says so. */
int hz_digest_stream_add(hz_digest_stream *ds, const char *path);

/* Finish the handed-over files' distribution (threads workers), then sort and hash the buckets.
 * Returns 0 with hex (sha256, 64 hex digits + NUL) and *nlines (may be NULL), equal to
 * hz_canonical_digest(dir)'s; or 1 when the stream does not give it: the files handed over
 * hold bucket_bytes or less (the folder's digest sorts them in memory, faster); dir's
 * *.segments files (all.segments aside) are not exactly the files handed over, each with the
 * inode, size and modification time it had then (packaging rewrote them); or the stream
 * failed (a read or write error, no temporary file, out of memory).  On 1 the caller runs
 * hz_canonical_digest, which names any error.  Call it once. */
int hz_digest_stream_finish(hz_digest_stream *ds, char hex[65], uint64_t *nlines);

/* Stop the workers (if still running), close and free everything; NULL is a no-op. */
void hz_digest_stream_free(hz_digest_stream *ds);

#endif
