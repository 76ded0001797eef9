/* seqio_impl — the compressed-stream readers under seqio.c's FASTA reader: ISA-L gzip
 * (seqio_gzip.c), threaded BGZF (seqio_bgzf.c) and the reader thread (seqio_pipe.c).  Internal to
 * the seqio module; the contract is seqio.h, the loader context is seqrec.h.
 */
#ifndef HZ_SEQIO_IMPL_H
#define HZ_SEQIO_IMPL_H
#include "seqrec.h"
#include "inread.h"
#include <htslib/bgzf.h>
#include <htslib/hfile.h>
#include <stdint.h>
#include <sys/types.h>

/* seqio_gzip.c (built with ISA-L, HSPZ_HAVE_ISAL): a plain-gzip stream inflated by igzip.
 * hz_sq_gz_plain: 1 when the stream's first n bytes (n >= 18 needed) are a gzip member header
 * that htslib's bgzf_compression calls plain gzip (1, not BGZF), else 0.  hz_sq_gz_open: a
 * reader of h (positioned at the header); 0, or -1 (out of memory; h untouched).
 * hz_sq_gz_read: up to n bytes of the decompressed stream (members concatenated) into buf,
 * as bgzf_read: the count (< n only at the end), 0 at the end, -1 with errno when a 64 KiB
 * block this call needs holds truncated or corrupt data or met a read error (the call's
 * bytes dropped, as bgzf_read drops them); the end and an error repeat.  hz_sq_gz_close:
 * closes h (hclose's result) and frees the reader. */
typedef struct hz_sq_gz hz_sq_gz;
#if HSPZ_HAVE_ISAL
int hz_sq_gz_plain(const uint8_t *h, size_t n);
int hz_sq_gz_open(hz_sq_gz **g, hFILE *h);
ssize_t hz_sq_gz_read(hz_sq_gz *g, void *buf, size_t n);
int hz_sq_gz_close(hz_sq_gz *g);
#endif

/* seqio_bgzf.c (built with ISA-L, for the switch to plain gzip): BGZF inflated on threads,
 * giving what htslib 1.16's single-threaded bgzf_read gives, call for call.
 * hz_sq_bgzf_header: htslib's check_header on a member's first n bytes: 0 BGZF, -1 gzip but
 * not BGZF, -2 not gzip (or n < 18).  hz_sq_bgzf_open: a reader of h (positioned at a BGZF
 * block) inflating with the caller and up to threads - 1 helper threads (at most 16 in all;
 * fewer when threads cannot start); 0, or -1 (out of memory; h untouched).  hz_sq_bgzf_read:
 * as bgzf_read (the count, < n only at the end; 0 at the end; -1 with errno when a block the
 * call needs is bad, the call's bytes dropped; the end and an error repeat).
 * hz_sq_bgzf_close: stops the helpers, closes h (hclose's result), frees the reader. */
typedef struct hz_sq_bgzf hz_sq_bgzf;
#if HSPZ_HAVE_ISAL
int hz_sq_bgzf_header(const uint8_t *h, size_t n);
int hz_sq_bgzf_open(hz_sq_bgzf **z, hFILE *h, int threads);
ssize_t hz_sq_bgzf_read(hz_sq_bgzf *z, void *buf, size_t n);
int hz_sq_bgzf_close(hz_sq_bgzf *z);
#endif

/* seqio_pipe.c: the stream's reader (hz_sq_bgzf_read of bz, hz_sq_gz_read of gz, or bgzf_read
 * of fp when both are NULL)
 * on a helper thread, blocks of up to HZ_IO_BLOCK bytes handed over in order (on the caller's
 * thread when no thread can start).  hz_sq_pipe_start: 0, or -1 (out of memory; fp and gz
 * untouched).
 * hz_sq_pipe_next: what the reader returned for the next block (bytes > 0 with *buf valid
 * until the next call; 0 at the end; -1 with errno as the reader left it), the end and an
 * error repeating.  hz_sq_pipe_stop: ends the thread (shutting down sfd, the stream's socket
 * end, when a read may be blocked) and frees the pipe; fp and gz stay the caller's to close. */
typedef struct hz_sq_pipe hz_sq_pipe;
int hz_sq_pipe_start(hz_sq_pipe **p, BGZF *fp, hz_sq_gz *gz, hz_sq_bgzf *bz, int sfd);
ssize_t hz_sq_pipe_next(hz_sq_pipe *p, const uint8_t **buf);
void hz_sq_pipe_stop(hz_sq_pipe *p);

#endif
