/* digest_impl — what the canonical digest's files share (src/out/digest.c, the folder and the
 * stream; src/out/digest_bsort.c, the bucket sort; src/out/digest_lines.c, lines read and
 * sorted): not a public interface.
 */
#ifndef HZ_DIGEST_IMPL_H
#define HZ_DIGEST_IMPL_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <openssl/evp.h>

typedef struct { const char *p; size_t n; } hz_dg_line;   /* a line without its newline */

/* bytewise order of two hz_dg_line (LC_ALL=C sort), a prefix first; a qsort comparator */
int hz_dg_line_cmp(const void *a, const void *b);

#define HZ_DG_READ_MAX ((size_t)1 << 16)   /* a reader's buffer, bytes */

/* A line reader on pread (never a shared file offset: threads read one file at once); chunk:
 * bytes a read, HZ_DG_READ_MAX from hz_dg_reader_open (a sampler that seeks for each line
 * sets less: a seek drops what was read); more than HZ_DG_READ_MAX reads HZ_DG_READ_MAX. */
typedef struct { int fd, own; uint64_t off; char *buf; size_t pos, len, chunk; } hz_dg_reader;

/* Open path (fd < 0; closed by hz_dg_reader_close) or read the open descriptor fd (path NULL;
 * left open).  Returns 0, or -1 with errno set. */
int hz_dg_reader_open(hz_dg_reader *r, const char *path, int fd);
void hz_dg_reader_seek(hz_dg_reader *r, uint64_t at);   /* byte offset, 0-based */
void hz_dg_reader_close(hz_dg_reader *r);

/* The next line with its newline (if it has one) into *line (*cap bytes, grown with realloc);
 * its length, 0 at the end, -1 with errno on a read error or out of memory. */
ssize_t hz_dg_getline(hz_dg_reader *r, char **line, size_t *cap);

/* The lines of buf[0 .. len) (each '\n'-terminated; buf may be NULL when len is 0) sorted
 * into *L (malloc'd, pointing into buf) in hz_dg_line_cmp order.  Returns their count, or -1
 * out of memory (*L NULL).  Memory: 16 bytes a line, 56 more while a level sorts. */
ssize_t hz_dg_lines_sort(char *buf, size_t len, hz_dg_line **L);

/* RULES.md "canonical digest" of the lines of buf[0 .. len) (each '\n'-terminated, which the
 * hash includes; buf may be NULL when len is 0): sorted in hz_dg_line_cmp order (on threads
 * threads from 65,536 lines up: split by sampled splitters into 8 buckets a thread, each sorted
 * alone; on one when threads cannot start) and hashed in that order into ctx.  Returns the
 * line count, or -1 out of memory.  Memory beside buf: about 50 bytes a line on several
 * threads, 70 on one, up to 85 when one bucket holds most lines (copies of one line). */
ssize_t hz_dg_lines_hash(char *buf, size_t len, int threads, EVP_MD_CTX *ctx);

/* Append the whole file at path to *buf (*len used of *cap, grown with realloc), with '\n'
 * after an unterminated last line.  Returns 0, or -1 with errno set. */
int hz_dg_slurp(const char *path, char **buf, size_t *len, size_t *cap);

/* ---- the bucket sort (digest_bsort.c) ---- */
#include <pthread.h>
#include "digest.h"   /* hz_dg_times */

/* the input of one sort: files by path, or (a bucket sorted again) one open descriptor */
typedef struct { char **path; const int *fd; uint64_t *size; size_t n; uint64_t total; } hz_dg_files;

typedef struct { const char *path; int fd; uint64_t a, b; } hz_dg_piece;   /* lines starting in [a, b) of path, or of fd */

typedef struct {
    const char *dir;
    size_t bucket_bytes;
    int threads, depth;
    hz_dg_line *spl; size_t nspl;      /* splitters, sorted, distinct */
    size_t scp; uint64_t *skey;        /* their common prefix's length; each one's next 8 bytes (key8) */
    char *spl_store;                   /* their bytes */
    size_t nb;                         /* nspl + 1 */
    size_t bufsz;                      /* per thread and bucket */
    int *fd; uint64_t *bbytes;         /* per bucket: temporary file, bytes written */
    uint64_t *eq;                      /* per splitter: lines equal to it */
    pthread_mutex_t *bmu; size_t nbmu;
    pthread_mutex_t mu; pthread_cond_t cv;
    /* distribution: pieces, taken in order */
    hz_dg_piece *piece; size_t npiece, cappiece, next_piece;
    uint64_t lines;
    /* sorting and hashing */
    size_t next_bucket, hashed, window;
    char **sbuf; ssize_t *sn;          /* per bucket: its sorted bytes; sn -1 not yet, -2 too big (sorted again) */
    char **rbuf; size_t nrbuf;         /* hashed: buffers to free, descriptors to close (by the sort workers, */
    int *rfd; size_t nrfd;             /* not the hashing thread) */
    int failed;
    char err[1024];
    hz_dg_times *tm;                   /* the top level's phase times, or NULL */
} hz_dg_bsort;


/* An empty sort of the files of dir (its temporary files go there) in buckets of about
 * bucket_bytes, on threads workers, at nesting depth (0: the top). */
void hz_dg_bs_init(hz_dg_bsort *s, const char *dir, size_t bucket_bytes, int threads, int depth);
/* Everything s holds: buffers freed, temporary files closed. */
void hz_dg_bs_free(hz_dg_bsort *s);
/* Step 1: splitters from lines at evenly spaced byte offsets of f (want_buckets buckets, at
 * most); they balance the buckets, correctness never depends on them.  0, or -1 out of memory. */
int hz_dg_pick_splitters(hz_dg_bsort *s, const hz_dg_files *f, size_t want_buckets);
/* Buckets one level may hold: a quarter of the open-file limit, at most 512, at least 2. */
size_t hz_dg_bucket_cap(void);
/* The buckets' buffers and counters, once the splitters are known.  0, or -1 with err. */
int hz_dg_bs_open(hz_dg_bsort *s, char *err, size_t errlen);
/* The pieces of one input of size bytes (path, or fd when path is NULL), added before the
 * workers start.  0, or -1 out of memory. */
int hz_dg_bs_add(hz_dg_bsort *s, const char *path, int fd, uint64_t size);
/* Step 2, a worker (pthread start routine, arg = the hz_dg_bsort): pieces' lines into their
 * buckets' files; a failure is left in s->failed / s->err.  Returns NULL. */
void *hz_dg_distribute_main(void *arg);
/* The bucket of the line p[0 .. n) (no newline); *equal: it equals splitter (bucket - 1). */
size_t hz_dg_bucket_of(const hz_dg_bsort *s, const char *p, size_t n, int *equal);
/* Append buf[0 .. len) to bucket b's temporary file (created at its first bytes); 0, -1 write
 * error, -3 no file could be created (errno set). */
int hz_dg_bucket_flush(hz_dg_bsort *s, size_t b, const char *buf, size_t len);
/* Step 3: sort buckets ahead on s->threads workers, hash them in order into ctx.  0, or -1
 * with err. */
int hz_dg_bs_hash(hz_dg_bsort *s, EVP_MD_CTX *ctx, char *err, size_t errlen);
/* Steps 1-3 for the lines of f: hashed in sorted order into ctx, *nlines their count, tm the
 * phase times (or NULL).  0, or -1 with one line in err. */
int hz_dg_bucket_sort(const hz_dg_files *f, const char *dir, size_t bucket_bytes, int threads, int depth, EVP_MD_CTX *ctx,
                      uint64_t *nlines, hz_dg_times *tm, char *err, size_t errlen);

#endif
