/* seqrec — the helpers every seqio reader builds records with (seqrec.h): one-line errors,
 * growth of the record arrays and of the base buffer, positioned reads. */
#include "seqrec.h"
#include "shquote.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Write "<path>: <what> (record <n> '<name>', byte offset <o>)" into L->err.  rec is a
 * 0-based record index (printed 1-based) or HZ_NO_REC; name may be NULL (then the record's
 * stored name is used, or it is left out); off may be HZ_NO_OFF.  Always returns -1. */
int hz_sq_fail(loader *L, size_t rec, const char *name, uint64_t off, const char *fmt, ...)
{
    if (!L->err || L->errlen == 0) return -1;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (rec != HZ_NO_REC && !name && L->s && rec < L->s->n && L->s->name) name = L->s->name[rec];
    /* the name as it may be printed: a control byte (a 2bit name can hold any) as \xHH, so
     * that the message stays one line */
    char nm[201 * 4];
    hz_printable(name, 200, nm, sizeof nm);
    char where[1000];
    where[0] = '\0';
    if (rec != HZ_NO_REC && off != HZ_NO_OFF)
        snprintf(where, sizeof where, " (record %zu '%.200s', byte offset %llu)", rec + 1,
                 nm, (unsigned long long)off);
    else if (rec != HZ_NO_REC)
        snprintf(where, sizeof where, " (record %zu '%.200s')", rec + 1, nm);
    else if (off != HZ_NO_OFF)
        snprintf(where, sizeof where, " (byte offset %llu)", (unsigned long long)off);
    snprintf(L->err, L->errlen, "%s: %s%s", L->path, what, where);
    return -1;
}

int hz_sq_fail_oom(loader *L, uint64_t bytes)
{
    return hz_sq_fail(L, HZ_NO_REC, NULL, HZ_NO_OFF, "out of memory (allocating %llu bytes)",
                (unsigned long long)bytes);
}

/* Make room for one more record slot.  Returns 0 or -1 (out of memory, err set). */
int hz_sq_grow_records(loader *L)
{
    hz_seqset *s = L->s;
    if (s->n < L->cap_rec) return 0;
    size_t nc = L->cap_rec ? L->cap_rec * 2 : 64;
    char **nm = realloc(s->name, nc * sizeof *nm);
    if (!nm) return hz_sq_fail_oom(L, (uint64_t)nc * sizeof *nm);
    s->name = nm;
    uint64_t *o = realloc(s->off, nc * sizeof *o);
    if (!o) return hz_sq_fail_oom(L, (uint64_t)nc * sizeof *o);
    s->off = o;
    uint64_t *l = realloc(s->len, nc * sizeof *l);
    if (!l) return hz_sq_fail_oom(L, (uint64_t)nc * sizeof *l);
    s->len = l;
    for (size_t i = L->cap_rec; i < nc; i++) s->name[i] = NULL;
    L->cap_rec = nc;
    return 0;
}

/* Make s->data hold at least `need` bytes (geometric growth, x1.5).  0 or -1. */
int hz_sq_grow_data(loader *L, uint64_t need)
{
    if (need <= L->cap_data) return 0;
    uint64_t nc = L->cap_data + L->cap_data / 2;
    if (nc < need) nc = need;
    if (nc < HZ_IO_BLOCK) nc = HZ_IO_BLOCK;
    if (nc > (uint64_t)SIZE_MAX) return hz_sq_fail_oom(L, nc);
    uint8_t *d = realloc(L->s->data, (size_t)nc);
    if (!d && nc > need) { /* retry with the exact amount */
        nc = need;
        d = realloc(L->s->data, (size_t)nc);
    }
    if (!d) return hz_sq_fail_oom(L, nc);
#ifdef MADV_HUGEPAGE
    /* 2 MiB pages where the kernel has them: a large genome's buffer otherwise takes a page
     * fault every 4 KiB while it fills (advice only) */
    if (nc >= ((uint64_t)64 << 20)) {
        uintptr_t a = ((uintptr_t)d + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1);
        uintptr_t e = ((uintptr_t)d + (size_t)nc) & ~(uintptr_t)((2u << 20) - 1);
        if (e > a) madvise((void *)a, e - a, MADV_HUGEPAGE);
    }
#endif
    L->s->data = d;
    L->cap_data = nc;
    return 0;
}

/* Read exactly n bytes at file offset off (pread, retried on EINTR / short reads).
 * Returns the number of bytes read (< n only at end of file) or -1 (errno set). */
ssize_t hz_sq_read_at(int fd, uint64_t off, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (r == 0) break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}
