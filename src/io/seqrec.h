/* seqrec — the loader context of hz_seqset_load (seqio.h) and the helpers every reader uses to
 * build records: one-line errors naming file, record and offset, growth of the record arrays
 * and of the base buffer, positioned reads.  Below both readers: seqio.c (the dispatcher and
 * FASTA) and seqio_2bit.c (UCSC 2bit) use it; it uses neither.  Internal to the io layer.
 */
#ifndef HZ_SEQREC_H
#define HZ_SEQREC_H
#include "seqio.h"
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

#endif
