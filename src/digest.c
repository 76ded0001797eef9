/* digest — RULES.md "canonical digest": sha256 of every segment line of a folder's *.segments
 * files, each with its newline, in bytewise order (LC_ALL=C sort).
 *
 * Small outputs are sorted in memory.  Larger ones are sorted by a parallel bucket sort whose
 * memory does not grow with the output:
 *   1. splitters: lines read at evenly spaced byte offsets of the files, sorted; every
 *      SAMPLES-th one divides two buckets;
 *   2. distribution: worker threads read the files in pieces and append each line to its
 *      bucket's unlinked temporary file in the folder (through small per-thread buffers);
 *   3. buckets in order: workers load and sort the next buckets (at most a window of them),
 *      the calling thread hashes each one as soon as it and those before it are ready.
 * Bucket b holds the lines strictly between splitters b-1 and b; a line equal to a splitter is
 * only counted, and hashed that many times after bucket b.  So hashing the sorted buckets in
 * order hashes the sorted lines, and copies of one line never pile up in a bucket.  A bucket
 * that came out larger than 4 x bucket_bytes (outputs past the bucket count x bucket_bytes, or
 * a skewed sample) is bucket-sorted again from its file, so memory stays bounded: about
 * threads x BUF_ALL for the distribution, then (threads + 2) buckets in flight at about
 * 2.5 x bucket_bytes each (the bytes, 16 bytes per line, the sorted copy) plus the keyed
 * sort's 56 bytes a line while it sorts a level (lines_sort_keyed).  The buckets of one
 * level are capped by the open-file limit (a quarter of it, so that nested levels fit).
 */
#include "manifest.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUCKET_BYTES ((size_t)8 << 20)   /* target bucket size: many buckets keep threads busy */
#define MAX_BUCKETS 512                  /* temporary files of one level, at most */
#define MAX_DEPTH 6                      /* nested levels; past it a bucket is sorted in memory */
#define MAX_THREADS 64
#define SAMPLES 32                       /* sample lines per bucket for the splitters */
#define BUF_ALL ((size_t)4 << 20)        /* per thread: its buffers of all buckets together */
#define PIECE_BYTES ((uint64_t)64 << 20) /* distribution work item */

typedef struct { const char *p; size_t n; } line_t;   /* without the newline */

static int line_cmp(const void *a, const void *b)
{
    const line_t *x = a, *y = b;
    size_t m = x->n < y->n ? x->n : y->n;
    int c = memcmp(x->p, y->p, m);
    if (c) return c;
    return x->n < y->n ? -1 : x->n > y->n;
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* the input of one sort: files by path, or (a bucket sorted again) one open descriptor */
typedef struct { char **path; const int *fd; uint64_t *size; size_t n; uint64_t total; } files_t;

/* A line reader on pread (never a shared file offset: threads read one file at once). */
typedef struct { int fd, own; uint64_t off; char *buf; size_t pos, len; } rdr;

static int rdr_open(const files_t *f, size_t i, rdr *r)
{
    memset(r, 0, sizeof *r);
    r->fd = f->fd ? f->fd[i] : open(f->path[i], O_RDONLY);
    r->own = !f->fd;
    if (r->fd < 0) return -1;
    if (!(r->buf = malloc(1 << 16))) { if (r->own) close(r->fd); errno = ENOMEM; return -1; }
    return 0;
}

static void rdr_seek(rdr *r, uint64_t at) { r->off = at; r->pos = r->len = 0; }

static void rdr_close(rdr *r) { if (r->own && r->fd >= 0) close(r->fd); free(r->buf); r->buf = NULL; }

/* the next line with its newline (if any) into *line; its length, 0 at the end, -1 error */
static ssize_t rdr_getline(rdr *r, char **line, size_t *cap)
{
    size_t n = 0;
    for (;;) {
        if (r->pos == r->len) {
            ssize_t k;
            do k = pread(r->fd, r->buf, 1 << 16, (off_t)r->off); while (k < 0 && errno == EINTR);
            if (k < 0) return -1;
            if (k == 0) return (ssize_t)n;
            r->off += (uint64_t)k; r->pos = 0; r->len = (size_t)k;
        }
        char *nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);
        size_t take = nl ? (size_t)(nl - (r->buf + r->pos)) + 1 : r->len - r->pos;
        if (n + take + 1 > *cap) {
            size_t c = *cap ? *cap : 256;
            while (c < n + take + 1) c *= 2;
            char *p = realloc(*line, c);
            if (!p) { errno = ENOMEM; return -1; }
            *line = p; *cap = c;
        }
        memcpy(*line + n, r->buf + r->pos, take);
        n += take; r->pos += take;
        if (nl) return (ssize_t)n;
    }
}

static const char *files_name(const files_t *f, size_t i) { return f->fd ? "a temporary file of the canonical digest" : f->path[i]; }

static void files_free(files_t *f)
{
    for (size_t i = 0; f->path && i < f->n; i++) free(f->path[i]);
    free(f->path); free(f->size);
    memset(f, 0, sizeof *f);
}

/* the *.segments regular files of dir but all.segments (the --single-file copy of the same
 * lines), by name */
static int files_list(const char *dir, files_t *f, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    DIR *d = opendir(dir);
    if (!d) { snprintf(err, errlen, "%s: cannot read the folder: %s", dir, strerror(errno)); return -1; }
    size_t cap = 0;
    char **names = NULL;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' || l < 9 || strcmp(e->d_name + l - 9, ".segments") || !strcmp(e->d_name, "all.segments")) continue;
        if (f->n == cap) {
            cap = cap ? 2 * cap : 64;
            char **nv = realloc(names, cap * sizeof *nv);
            if (!nv) { rc = -1; break; }
            names = nv;
        }
        if (!(names[f->n] = strdup(e->d_name))) { rc = -1; break; }
        f->n++;
    }
    closedir(d);
    if (!rc && f->n) qsort(names, f->n, sizeof *names, name_cmp);
    f->path = calloc(f->n ? f->n : 1, sizeof *f->path);
    f->size = calloc(f->n ? f->n : 1, sizeof *f->size);
    if (rc || !f->path || !f->size) {
        for (size_t i = 0; i < f->n; i++) free(names[i]);
        free(names); free(f->path); free(f->size); memset(f, 0, sizeof *f);
        snprintf(err, errlen, "out of memory in the canonical digest");
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < f->n; i++) {
        size_t pl = strlen(dir) + strlen(names[i]) + 2;
        char *p = malloc(pl);
        struct stat st;
        if (p) snprintf(p, pl, "%s/%s", dir, names[i]);
        free(names[i]);
        if (!p) { rc = -1; continue; }
        if (stat(p, &st) || !S_ISREG(st.st_mode)) { free(p); continue; }
        f->path[k] = p; f->size[k] = (uint64_t)st.st_size; f->total += f->size[k]; k++;
    }
    free(names);
    f->n = k;
    if (rc) { files_free(f); snprintf(err, errlen, "out of memory in the canonical digest"); return -1; }
    return 0;
}

/* A line with the 8 bytes that follow the lines' common prefix, big-endian, zero past its end:
 * key order agrees with line_cmp wherever two keys differ; equal keys are ordered by line_cmp. */
typedef struct { uint64_t key; line_t l; } keyed_t;

/* the length of the common prefix of all n lines */
static size_t common_prefix(const line_t *L, size_t n)
{
    size_t cp = n ? L[0].n : 0;
    for (size_t i = 1; i < n && cp; i++) {
        size_t m = L[i].n < cp ? L[i].n : cp, k = 0;
        while (k < m && L[i].p[k] == L[0].p[k]) k++;
        cp = k;
    }
    return cp;
}

/* Sort L[0..n) in line_cmp order: an LSD radix sort of the keys (a pass skipped where all
 * lines share its byte), then each run of equal keys the same way on the bytes after its own
 * common prefix (depth levels at most; past them, for short runs, and for runs whose common
 * prefix did not grow, by line_cmp).  Lines all equal are left as they are.  Memory: 8 bytes
 * a line kept per level (the keys), 48 more while a level sorts.  Returns 0, -1 out of memory.
 * The bytes sorted never depend on it: qsort(line_cmp) gives the same order. */
static int lines_sort_keyed(line_t *L, size_t n, size_t above, int depth)
{
    if (n < 2) return 0;
    size_t cp = common_prefix(L, n);
    int same = 1;   /* every line is the common prefix: all equal */
    for (size_t i = 0; i < n && same; i++) same = L[i].n == cp;
    if (same) return 0;
    if (n < 32 || depth >= 6 || (depth > 0 && cp <= above)) { qsort(L, n, sizeof *L, line_cmp); return 0; }
    keyed_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    size_t (*cnt)[256] = calloc(8, sizeof *cnt);
    uint64_t *key = NULL;
    if (!a || !b || !cnt) { free(a); free(b); free(cnt); return -1; }
    for (size_t i = 0; i < n; i++) {
        uint64_t k = 0;
        for (size_t j = 0; j < 8; j++) k = k << 8 | (cp + j < L[i].n ? (unsigned char)L[i].p[cp + j] : 0);
        a[i].key = k; a[i].l = L[i];
        for (int d = 0; d < 8; d++) cnt[d][(k >> (8 * d)) & 255]++;
    }
    for (int d = 0; d < 8; d++) {
        if (cnt[d][(a[0].key >> (8 * d)) & 255] == n) continue;   /* one byte value: order kept */
        size_t off[256], o = 0;
        for (int v = 0; v < 256; v++) { off[v] = o; o += cnt[d][v]; }
        for (size_t i = 0; i < n; i++) b[off[(a[i].key >> (8 * d)) & 255]++] = a[i];
        keyed_t *t = a; a = b; b = t;
    }
    free(b); free(cnt);
    key = malloc(n * sizeof *key);
    if (!key) { free(a); return -1; }
    for (size_t i = 0; i < n; i++) { L[i] = a[i].l; key[i] = a[i].key; }
    free(a);
    int rc = 0;
    for (size_t i = 0, j; i < n && !rc; i = j) {
        for (j = i + 1; j < n && key[j] == key[i]; j++) {}
        if (j - i > 1) rc = lines_sort_keyed(L + i, j - i, cp, depth + 1);
    }
    free(key);
    return rc;
}

/* lines of buf[0..len) (each '\n'-terminated) sorted into *L; returns the count or -1 */
static ssize_t lines_sort(char *buf, size_t len, line_t **L)
{
    if (!len) { *L = malloc(sizeof **L); return *L ? 0 : -1; }   /* buf may be NULL: no NULL + 0 */
    size_t nl = 0;
    for (const char *p = buf, *e = buf + len; (p = memchr(p, '\n', (size_t)(e - p))); p++) nl++;
    *L = malloc((nl ? nl : 1) * sizeof **L);
    if (!*L) return -1;
    size_t k = 0, s = 0;
    for (const char *p = buf, *e = buf + len; (p = memchr(p, '\n', (size_t)(e - p))); p++) {
        size_t i = (size_t)(p - buf);
        (*L)[k].p = buf + s; (*L)[k].n = i - s; k++; s = i + 1;
    }
    if (lines_sort_keyed(*L, nl, 0, 0)) { free(*L); *L = NULL; return -1; }
    return (ssize_t)nl;
}

/* read the whole file at path, appending '\n' to an unterminated last line */
static int slurp_append(const char *path, char **buf, size_t *len, size_t *cap)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return -1;
    char tmp[1 << 16];
    size_t n;
    int last = '\n';
    while ((n = fread(tmp, 1, sizeof tmp, fp)) > 0) {
        if (*len + n + 1 > *cap) {
            size_t c = *cap ? *cap : 1 << 16;
            while (c < *len + n + 1) c *= 2;
            char *nb = realloc(*buf, c);
            if (!nb) { fclose(fp); errno = ENOMEM; return -1; }
            *buf = nb; *cap = c;
        }
        memcpy(*buf + *len, tmp, n);
        *len += n;
        last = tmp[n - 1];
    }
    int bad = ferror(fp);
    fclose(fp);
    if (bad) { errno = EIO; return -1; }
    if (last != '\n') (*buf)[(*len)++] = '\n';
    return 0;
}

/* ---- the bucket sort ---------------------------------------------------------------------- */
typedef struct {
    const files_t *f;
    const char *dir;
    size_t bucket_bytes;
    int threads, depth;
    line_t *spl; size_t nspl;          /* splitters, sorted, distinct */
    size_t nb;                         /* nspl + 1 */
    size_t bufsz;                      /* per thread and bucket */
    int *fd; uint64_t *bbytes;         /* per bucket: temporary file, bytes written */
    uint64_t *eq;                      /* per splitter: lines equal to it */
    pthread_mutex_t *bmu; size_t nbmu;
    pthread_mutex_t mu; pthread_cond_t cv;
    /* distribution: pieces (file, [a, b)) */
    size_t npiece, next_piece;
    size_t *pf; uint64_t *pa, *pb;
    uint64_t lines;
    /* sorting and hashing */
    size_t next_bucket, hashed, window;
    char **sbuf; ssize_t *sn;          /* per bucket: its sorted bytes; sn -1 not yet, -2 too big (sorted again) */
    int failed;
    char err[1024];
} bsort;

static void bs_fail(bsort *s, const char *msg)
{
    pthread_mutex_lock(&s->mu);
    if (!s->failed) snprintf(s->err, sizeof s->err, "%s", msg);
    s->failed = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

/* the bucket of a line; *equal: it equals splitter (bucket - 1) */
static size_t bucket_of(const bsort *s, const char *p, size_t n, int *equal)
{
    line_t x = { p, n };
    size_t lo = 0, hi = s->nspl;   /* first splitter greater than the line */
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (line_cmp(&s->spl[m], &x) <= 0) lo = m + 1; else hi = m;
    }
    *equal = lo > 0 && line_cmp(&s->spl[lo - 1], &x) == 0;
    return lo;
}

static int bucket_flush(bsort *s, size_t b, const char *buf, size_t len)
{
    pthread_mutex_lock(&s->bmu[b]);
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(s->fd[b], buf + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) { pthread_mutex_unlock(&s->bmu[b]); return -1; }
        off += (size_t)w;
    }
    s->bbytes[b] += len;
    pthread_mutex_unlock(&s->bmu[b]);
    return 0;
}

/* one piece: the lines of input fi that start in [a, b); -1 read error, -2 write error */
static int distribute_piece(bsort *s, size_t fi, uint64_t a, uint64_t b, char *bufs, size_t *blen, uint64_t *eq,
                            uint64_t *lines)
{
    rdr rd;
    if (rdr_open(s->f, fi, &rd)) return -1;
    char *line = NULL; size_t cap = 0; ssize_t n;
    uint64_t pos = a;
    int rc = 0;
    if (a > 0) {   /* the line that starts before a belongs to the previous piece */
        rdr_seek(&rd, a - 1);
        if ((n = rdr_getline(&rd, &line, &cap)) < 0) rc = -1;
        else pos = a - 1 + (uint64_t)n;
    }
    while (!rc && pos < b) {
        if ((n = rdr_getline(&rd, &line, &cap)) <= 0) { if (n < 0) rc = -1; break; }
        pos += (uint64_t)n;
        size_t len = (size_t)n - (line[n - 1] == '\n');
        int equal;
        size_t bk = bucket_of(s, line, len, &equal);
        (*lines)++;
        if (equal) { eq[bk - 1]++; continue; }
        char *bb = bufs + bk * s->bufsz;
        if (blen[bk] + len + 1 > s->bufsz) {
            if (blen[bk] && bucket_flush(s, bk, bb, blen[bk])) { rc = -2; break; }
            blen[bk] = 0;
            if (len + 1 > s->bufsz) {   /* a very long line: straight to its file */
                line[len] = '\n';
                if (bucket_flush(s, bk, line, len + 1)) { rc = -2; break; }
                continue;
            }
        }
        memcpy(bb + blen[bk], line, len);
        blen[bk] += len;
        bb[blen[bk]++] = '\n';
    }
    free(line);
    rdr_close(&rd);
    return rc;
}

static void write_failed(bsort *s)
{
    char m[1024];
    snprintf(m, sizeof m, "%s: cannot write a temporary file of the canonical digest: %s", s->dir, strerror(errno));
    bs_fail(s, m);
}

static void *distribute_main(void *arg)
{
    bsort *s = arg;
    char *bufs = malloc(s->nb * s->bufsz);
    size_t *blen = calloc(s->nb, sizeof *blen);
    uint64_t *eq = calloc(s->nspl ? s->nspl : 1, sizeof *eq), lines = 0;
    if (!bufs || !blen || !eq) { free(bufs); free(blen); free(eq); bs_fail(s, "out of memory in the canonical digest"); return NULL; }
    for (;;) {
        pthread_mutex_lock(&s->mu);
        size_t i = s->failed ? s->npiece : s->next_piece++;
        pthread_mutex_unlock(&s->mu);
        if (i >= s->npiece) break;
        int rc = distribute_piece(s, s->pf[i], s->pa[i], s->pb[i], bufs, blen, eq, &lines);
        if (rc == -1) {
            char m[1024];
            snprintf(m, sizeof m, "%s: cannot read: %s", files_name(s->f, s->pf[i]), strerror(errno));
            bs_fail(s, m);
        }
        if (rc == -2) write_failed(s);
        if (rc) break;
    }
    for (size_t b = 0; b < s->nb && !s->failed; b++)
        if (blen[b] && bucket_flush(s, b, bufs + b * s->bufsz, blen[b])) write_failed(s);
    pthread_mutex_lock(&s->mu);
    s->lines += lines;
    for (size_t k = 0; k < s->nspl; k++) s->eq[k] += eq[k];
    pthread_mutex_unlock(&s->mu);
    free(bufs); free(blen); free(eq);
    return NULL;
}

/* bucket b's lines, sorted, as one buffer of bbytes[b] bytes (NULL: out of memory or a read
 * error, errno set) */
static char *bucket_load_sorted(bsort *s, size_t b, ssize_t *nlines)
{
    size_t len = (size_t)s->bbytes[b];
    char *buf = malloc(len ? len : 1);
    if (!buf) { errno = ENOMEM; return NULL; }
    for (size_t off = 0; off < len;) {
        ssize_t r = pread(s->fd[b], buf + off, len - off, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) { if (r == 0) errno = EIO; free(buf); return NULL; }
        off += (size_t)r;
    }
    line_t *L = NULL;
    ssize_t n = lines_sort(buf, len, &L);
    char *out = n >= 0 ? malloc(len ? len : 1) : NULL;   /* the sorted bytes: one sha256 update */
    if (!out) { free(buf); free(L); errno = ENOMEM; return NULL; }
    for (ssize_t i = 0, o = 0; i < n; i++) { memcpy(out + o, L[i].p, L[i].n); o += (ssize_t)L[i].n; out[o++] = '\n'; }
    free(buf); free(L);
    *nlines = n;
    return out;
}

static int bucket_too_big(const bsort *s, size_t b)
{
    return s->depth < MAX_DEPTH && s->bbytes[b] > 4 * (uint64_t)s->bucket_bytes;
}

/* load and sort buckets in order, at most `window` past the one being hashed; a bucket too big
 * to sort in memory is left to the hashing thread (sorted again, one level down) */
static void *sort_main(void *arg)
{
    bsort *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        while (!s->failed && s->next_bucket < s->nb && s->next_bucket >= s->hashed + s->window)
            pthread_cond_wait(&s->cv, &s->mu);
        size_t b = s->failed ? s->nb : s->next_bucket++;
        pthread_mutex_unlock(&s->mu);
        if (b >= s->nb) return NULL;
        ssize_t n = -2;
        char *out = NULL;
        if (!bucket_too_big(s, b) && !(out = bucket_load_sorted(s, b, &n))) {
            char m[1024];
            if (errno == ENOMEM) snprintf(m, sizeof m, "out of memory in the canonical digest (%s)", s->dir);
            else snprintf(m, sizeof m, "%s: cannot read back a temporary file of the canonical digest: %s", s->dir, strerror(errno));
            bs_fail(s, m);
            return NULL;
        }
        pthread_mutex_lock(&s->mu);
        s->sbuf[b] = out; s->sn[b] = n;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
    }
}

/* splitters from lines at evenly spaced byte offsets (each: the first line starting after the
 * offset); they balance the buckets, correctness never depends on them */
static int pick_splitters(bsort *s, size_t want_buckets, char **store)
{
    size_t ns = want_buckets * SAMPLES, k = 0, used = 0, cap = 1 << 16;
    line_t *smp = malloc(ns * sizeof *smp);
    char *st = malloc(cap);
    uint64_t *off = malloc(ns * sizeof *off);   /* offsets into st */
    char *line = NULL; size_t lcap = 0;
    if (!smp || !st || !off) { free(smp); free(st); free(off); return -1; }
    size_t fi = 0; uint64_t base = 0;
    rdr rd; int open_ = 0;
    for (size_t i = 0; i < ns; i++) {
        uint64_t at = (uint64_t)((double)s->f->total * ((double)i + 0.5) / (double)ns);
        while (fi < s->f->n && at >= base + s->f->size[fi]) { base += s->f->size[fi]; fi++; if (open_) { rdr_close(&rd); open_ = 0; } }
        if (fi >= s->f->n) break;
        if (!open_ && rdr_open(s->f, fi, &rd)) continue;
        open_ = 1;
        ssize_t n;
        rdr_seek(&rd, at - base);
        if (rdr_getline(&rd, &line, &lcap) <= 0) continue;   /* skip the partial line */
        if ((n = rdr_getline(&rd, &line, &lcap)) <= 0) continue;
        size_t len = (size_t)n - (line[n - 1] == '\n');
        if (used + len > cap) {
            while (used + len > cap) cap *= 2;
            char *nst = realloc(st, cap);
            if (!nst) { free(smp); free(st); free(off); free(line); if (open_) rdr_close(&rd); return -1; }
            st = nst;
        }
        memcpy(st + used, line, len);
        off[k] = used; smp[k].n = len; k++; used += len;
    }
    if (open_) rdr_close(&rd);
    free(line);
    for (size_t i = 0; i < k; i++) smp[i].p = st + off[i];
    free(off);
    qsort(smp, k, sizeof *smp, line_cmp);
    s->spl = malloc((want_buckets ? want_buckets : 1) * sizeof *s->spl);
    if (!s->spl) { free(smp); free(st); return -1; }
    s->nspl = 0;
    for (size_t b = 1; b < want_buckets && k; b++) {
        line_t c = smp[b * k / want_buckets];
        if (!s->nspl || line_cmp(&s->spl[s->nspl - 1], &c) < 0) s->spl[s->nspl++] = c;
    }
    if (!s->nspl && k) s->spl[s->nspl++] = smp[0];   /* one distinct sample: it is counted, not stored */
    free(smp);
    *store = st;
    return 0;
}

/* temporary files one level may hold: a quarter of the open-file limit, so that nested levels
 * and the rest of the process fit */
static size_t bucket_cap(void)
{
    struct rlimit rl;
    size_t cap = MAX_BUCKETS;
    if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY) {
        size_t q = rl.rlim_cur > 64 ? (size_t)(rl.rlim_cur - 64) / 4 : 2;
        if (q < cap) cap = q;
    }
    return cap < 2 ? 2 : cap;
}

static int hash_repeated(EVP_MD_CTX *ctx, const line_t *l, uint64_t times)
{
    char buf[1 << 16];
    size_t ln = l->n + 1;
    if (ln > sizeof buf) {   /* a long line: one update each */
        for (uint64_t i = 0; i < times; i++) { EVP_DigestUpdate(ctx, l->p, l->n); EVP_DigestUpdate(ctx, "\n", 1); }
        return 0;
    }
    size_t per = sizeof buf / ln, fill = 0;
    for (size_t i = 0; i < per; i++) { memcpy(buf + fill, l->p, l->n); fill += l->n; buf[fill++] = '\n'; }
    for (uint64_t left = times; left;) {
        uint64_t k = left < per ? left : per;
        EVP_DigestUpdate(ctx, buf, (size_t)k * ln);
        left -= k;
    }
    return 0;
}

static int bucket_sort(const files_t *f, const char *dir, size_t bucket_bytes, int threads, int depth, EVP_MD_CTX *ctx,
                       uint64_t *nlines, char *err, size_t errlen)
{
    bsort s;
    memset(&s, 0, sizeof s);
    s.f = f; s.dir = dir; s.bucket_bytes = bucket_bytes; s.threads = threads; s.depth = depth;
    pthread_mutex_init(&s.mu, NULL); pthread_cond_init(&s.cv, NULL);
    size_t want = (size_t)((f->total + bucket_bytes - 1) / bucket_bytes), cap = bucket_cap();
    if (want > cap) want = cap;
    if (want < 2) want = 2;
    char *store = NULL;
    pthread_t *th = malloc((size_t)threads * sizeof *th);
    int rc = -1, started = 0;
    if (!th || pick_splitters(&s, want, &store)) { snprintf(err, errlen, "out of memory in the canonical digest"); goto out; }
    s.nb = s.nspl + 1;
    s.bufsz = BUF_ALL / s.nb < 4096 ? 4096 : BUF_ALL / s.nb > 65536 ? 65536 : BUF_ALL / s.nb;
    s.fd = malloc(s.nb * sizeof *s.fd);
    if (s.fd) for (size_t b = 0; b < s.nb; b++) s.fd[b] = -1;
    s.bbytes = calloc(s.nb, sizeof *s.bbytes); s.eq = calloc(s.nspl ? s.nspl : 1, sizeof *s.eq);
    s.bmu = malloc(s.nb * sizeof *s.bmu);
    s.sbuf = calloc(s.nb, sizeof *s.sbuf); s.sn = malloc(s.nb * sizeof *s.sn);
    size_t np = 0;
    for (size_t i = 0; i < f->n; i++) np += (size_t)(f->size[i] / PIECE_BYTES) + 1;
    s.pf = malloc(np * sizeof *s.pf); s.pa = malloc(np * sizeof *s.pa); s.pb = malloc(np * sizeof *s.pb);
    if (!s.fd || !s.bbytes || !s.eq || !s.bmu || !s.sbuf || !s.sn || !s.pf || !s.pa || !s.pb) {
        snprintf(err, errlen, "out of memory in the canonical digest"); goto out; }
    for (size_t b = 0; b < s.nb; b++) { s.sn[b] = -1; pthread_mutex_init(&s.bmu[b], NULL); s.nbmu++; }
    for (size_t b = 0; b < s.nb; b++) {
        char tp[4096];
        snprintf(tp, sizeof tp, "%s/.digest-bucket-XXXXXX", dir);
        if ((s.fd[b] = mkstemp(tp)) < 0) {
            snprintf(err, errlen, "%s: cannot create a temporary file for the canonical digest: %s", dir, strerror(errno)); goto out; }
        unlink(tp);
    }
    for (size_t i = 0; i < f->n; i++)
        for (uint64_t a = 0; a < f->size[i] || a == 0; a += PIECE_BYTES) {
            s.pf[s.npiece] = i; s.pa[s.npiece] = a;
            s.pb[s.npiece] = a + PIECE_BYTES < f->size[i] ? a + PIECE_BYTES : f->size[i];
            s.npiece++;
            if (a + PIECE_BYTES >= f->size[i]) break;
        }
    /* 2. distribution */
    for (int t = 0; t < threads; t++) if (!pthread_create(&th[started], NULL, distribute_main, &s)) started++;
    if (!started) distribute_main(&s);
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
    started = 0;
    if (s.failed) { snprintf(err, errlen, "%s", s.err); goto out; }
    /* 3. sort buckets ahead, hash in order (each bucket, then copies of its splitter) */
    s.window = (size_t)threads + 2;
    for (int t = 0; t < threads; t++) if (!pthread_create(&th[started], NULL, sort_main, &s)) started++;
    if (!started) { snprintf(err, errlen, "cannot start the canonical digest's threads"); goto out; }
    for (size_t b = 0; b < s.nb; b++) {
        pthread_mutex_lock(&s.mu);
        while (!s.failed && s.sn[b] == -1) pthread_cond_wait(&s.cv, &s.mu);
        pthread_mutex_unlock(&s.mu);
        if (s.failed) break;
        if (s.sn[b] == -2) {   /* too big: bucket-sorted again from its file */
            files_t sub = { NULL, &s.fd[b], &s.bbytes[b], 1, s.bbytes[b] };
            uint64_t nl = 0;
            if (bucket_sort(&sub, dir, bucket_bytes, threads, depth + 1, ctx, &nl, err, errlen)) { bs_fail(&s, err); break; }
        } else
            EVP_DigestUpdate(ctx, s.sbuf[b], (size_t)s.bbytes[b]);
        if (b < s.nspl && s.eq[b]) hash_repeated(ctx, &s.spl[b], s.eq[b]);
        free(s.sbuf[b]); s.sbuf[b] = NULL;
        close(s.fd[b]); s.fd[b] = -1;
        pthread_mutex_lock(&s.mu);
        s.hashed = b + 1;
        pthread_cond_broadcast(&s.cv);
        pthread_mutex_unlock(&s.mu);
    }
    if (s.failed) { if (strcmp(err, s.err)) snprintf(err, errlen, "%s", s.err); goto out; }
    *nlines = s.lines;
    rc = 0;
out:
    if (started) {   /* a failure while sorting: wake and join the workers */
        bs_fail(&s, s.failed ? s.err : "stopped");
        for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
    }
    for (size_t b = 0; s.fd && b < s.nb; b++) if (s.fd[b] >= 0) close(s.fd[b]);
    for (size_t b = 0; s.sbuf && b < s.nb; b++) free(s.sbuf[b]);
    for (size_t b = 0; b < s.nbmu; b++) pthread_mutex_destroy(&s.bmu[b]);
    free(s.fd); free(s.bbytes); free(s.eq); free(s.bmu); free(s.sbuf); free(s.sn);
    free(s.pf); free(s.pa); free(s.pb); free(s.spl); free(store); free(th);
    pthread_mutex_destroy(&s.mu); pthread_cond_destroy(&s.cv);
    return rc;
}

int hz_canonical_digest(const char *dir, int threads, char hex[65], uint64_t *nlines, char *err, size_t errlen)
{
    return hz_canonical_digest_buckets(dir, BUCKET_BYTES, threads, hex, nlines, err, errlen);
}

int hz_canonical_digest_buckets(const char *dir, size_t bucket_bytes, int threads, char hex[65], uint64_t *nlines,
                                char *err, size_t errlen)
{
    files_t f;
    if (files_list(dir, &f, err, errlen)) return -1;
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    if (bucket_bytes < 1) bucket_bytes = 1;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int rc = -1;
    uint64_t total = 0;
    if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) { snprintf(err, errlen, "out of memory in the canonical digest"); goto out; }
    if (f.total <= bucket_bytes) {   /* everything in memory */
        char *buf = NULL; size_t len = 0, cap = 0;
        for (size_t i = 0; i < f.n; i++)
            if (slurp_append(f.path[i], &buf, &len, &cap)) {
                snprintf(err, errlen, "%s: cannot read: %s", f.path[i], strerror(errno)); free(buf); goto out; }
        line_t *L = NULL;
        ssize_t n = lines_sort(buf, len, &L);
        if (n < 0) { free(buf); snprintf(err, errlen, "out of memory in the canonical digest"); goto out; }
        for (ssize_t i = 0; i < n; i++) EVP_DigestUpdate(ctx, L[i].p, L[i].n + 1);
        total = (uint64_t)n;
        free(L); free(buf);
    } else if (bucket_sort(&f, dir, bucket_bytes, threads, 0, ctx, &total, err, errlen)) goto out;
    unsigned char md[32];
    unsigned int mdl = 0;
    EVP_DigestFinal_ex(ctx, md, &mdl);
    for (int i = 0; i < 32; i++) sprintf(hex + 2 * i, "%02x", md[i]);
    hex[64] = 0;
    if (nlines) *nlines = total;
    rc = 0;
out:
    if (ctx) EVP_MD_CTX_free(ctx);
    files_free(&f);
    return rc;
}
