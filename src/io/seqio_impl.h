/* seqio_impl — what seqio.c (FASTA, the API) and seqio_2bit.c (UCSC 2bit) share: the loader
 * context and its error, growth and read helpers.  Internal to the seqio module; the contract is
 * seqio.h.
 */
#ifndef HZ_SEQIO_IMPL_H
#define HZ_SEQIO_IMPL_H
#include "seqio.h"
#include "inread.h"
#include <htslib/bgzf.h>
#include <htslib/hfile.h>
#include <stdint.h>
#include <sys/types.h>

#define HZ_IO_BLOCK ((size_t)1 << 20) /* read size for FASTA streams and 2bit bases */
#define HZ_NO_REC ((size_t)-1)
#define HZ_NO_OFF UINT64_MAX

typedef struct {
    hz_seqset *s;
    const char *path;
    char *err;
    size_t errlen;
    size_t cap_rec;    /* capacity of s->name/off/len */
    uint64_t cap_data; /* capacity of s->data */
    int threads;       /* threads that may inflate BGZF blocks (seqio_bgzf.c) */
} loader;

/* Write "<path>: <what> (record <n> '<name>', byte offset <o>)" into L->err.  rec is a
 * 0-based record index (printed 1-based) or HZ_NO_REC; name may be NULL (then the record's
 * stored name is used, or it is left out; control bytes print as \xHH); off may be HZ_NO_OFF.
 * Always returns -1. */
int hz_sq_fail(loader *L, size_t rec, const char *name, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* "out of memory (allocating B bytes)"; -1. */
int hz_sq_fail_oom(loader *L, uint64_t bytes);
/* Room for one more record slot in L->s.  0, or -1 (out of memory, err set). */
int hz_sq_grow_records(loader *L);
/* L->s->data holds at least need bytes (x1.5 growth).  0 or -1. */
int hz_sq_grow_data(loader *L, uint64_t need);
/* n bytes at file offset off (pread, retried on EINTR and short reads): the count (< n only at
 * the end of the file) or -1 with errno. */
ssize_t hz_sq_read_at(int fd, uint64_t off, void *buf, size_t n);

/* byte classes (the C locale) */
static inline int is_ctrl_bad(unsigned c)
{
    return (c < 0x20 && !(c >= '\t' && c <= '\r')) || c == 0x7f;
}

static inline int is_space_c(unsigned c) /* isspace() in the C locale */
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

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

/* The 2bit file on fd (a regular file; magic: its first 4 bytes) into L->s (seqio_2bit.c):
 * read front to back once, hashed on the way (L->s->sha256, file_bytes).  0 or -1 (err set). */
int hz_sq_load_2bit(loader *L, int fd, const uint8_t magic[4]);

#endif
