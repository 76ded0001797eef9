/* digest_impl — what the canonical digest's two files share (src/out/digest.c, the bucket sort;
 * src/out/digest_lines.c, lines read and sorted): not a public interface.
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

#endif
