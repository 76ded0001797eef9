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
 * sort's 56 bytes a line while it sorts a level (digest_lines.c).  The buckets of one level
 * are capped by the open-file limit (a quarter of it, so that nested levels fit).
 */
#include "digest.h"
#include "digest_impl.h"
#include "chunk.h"   /* hz_now */
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
#define MEM_BYTES ((size_t)HZ_DG_MEM_BYTES) /* output up to this is sorted in memory, without files */
#define MAX_BUCKETS 512                  /* temporary files of one level, at most */
#define MAX_DEPTH 6                      /* nested levels; past it a bucket is sorted in memory */
#define MAX_THREADS 64
#define SAMPLES 32                       /* sample lines per bucket for the splitters */
#define BUF_ALL ((size_t)4 << 20)        /* per thread: its buffers of all buckets together */
#define PIECE_BYTES ((uint64_t)64 << 20) /* distribution work item */

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* the input of one sort: files by path, or (a bucket sorted again) one open descriptor */
typedef struct { char **path; const int *fd; uint64_t *size; size_t n; uint64_t total; } files_t;

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

/* ---- the bucket sort ---------------------------------------------------------------------- */
typedef struct { const char *path; int fd; uint64_t a, b; } piece_t;   /* lines starting in [a, b) of path, or of fd */

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
    piece_t *piece; size_t npiece, cappiece, next_piece;
    uint64_t lines;
    /* sorting and hashing */
    size_t next_bucket, hashed, window;
    char **sbuf; ssize_t *sn;          /* per bucket: its sorted bytes; sn -1 not yet, -2 too big (sorted again) */
    char **rbuf; size_t nrbuf;         /* hashed: buffers to free, descriptors to close (by the sort workers, */
    int *rfd; size_t nrfd;             /* not the hashing thread) */
    int failed;
    char err[1024];
    hz_dg_times *tm;                   /* the top level's phase times, or NULL */
} bsort;

static void bs_init(bsort *s, const char *dir, size_t bucket_bytes, int threads, int depth)
{
    memset(s, 0, sizeof *s);
    s->dir = dir; s->bucket_bytes = bucket_bytes; s->threads = threads; s->depth = depth;
    pthread_mutex_init(&s->mu, NULL); pthread_cond_init(&s->cv, NULL);
}

static void bs_free(bsort *s)
{
    for (size_t b = 0; s->fd && b < s->nb; b++) if (s->fd[b] >= 0) close(s->fd[b]);
    for (size_t b = 0; s->sbuf && b < s->nb; b++) free(s->sbuf[b]);
    for (size_t i = 0; i < s->nrbuf; i++) free(s->rbuf[i]);
    for (size_t i = 0; i < s->nrfd; i++) close(s->rfd[i]);
    for (size_t b = 0; b < s->nbmu; b++) pthread_mutex_destroy(&s->bmu[b]);
    free(s->fd); free(s->bbytes); free(s->eq); free(s->bmu); free(s->sbuf); free(s->sn);
    free(s->rbuf); free(s->rfd);
    free(s->piece); free(s->spl); free(s->spl_store); free(s->skey);
    pthread_mutex_destroy(&s->mu); pthread_cond_destroy(&s->cv);
}

static int bs_failed(bsort *s)
{
    pthread_mutex_lock(&s->mu);
    int f = s->failed;
    pthread_mutex_unlock(&s->mu);
    return f;
}

static void bs_fail(bsort *s, const char *msg)
{
    pthread_mutex_lock(&s->mu);
    if (!s->failed) snprintf(s->err, sizeof s->err, "%s", msg);
    s->failed = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

/* the 8 bytes of p[0 .. n) from offset at, big-endian, zero past the end: where two such keys
 * of strings with a common prefix of `at` bytes differ, they order the strings as
 * hz_dg_line_cmp does (a string that ends is a prefix, so the smaller, as its zero is) */
static uint64_t key8(const char *p, size_t n, size_t at)
{
    uint64_t k = 0;
    for (size_t j = 0; j < 8; j++) k = k << 8 | (at + j < n ? (unsigned char)p[at + j] : 0);
    return k;
}

/* the bucket of a line; *equal: it equals splitter (bucket - 1).  The splitters' common prefix
 * is compared once; then their key8s after it narrow the search to the splitters of the line's
 * own key8 (most lines: none or one), which alone are compared whole */
static size_t bucket_of(const bsort *s, const char *p, size_t n, int *equal)
{
    *equal = 0;
    if (!s->nspl) return 0;
    int c = memcmp(p, s->spl[0].p, n < s->scp ? n : s->scp);
    if (c < 0 || (c == 0 && n < s->scp)) return 0;   /* before the prefix, or a prefix of it */
    if (c > 0) return s->nspl;
    uint64_t k = key8(p, n, s->scp);
    size_t lo = 0, hi = s->nspl;   /* first splitter of key8 >= k */
    while (lo < hi) { size_t m = (lo + hi) / 2; if (s->skey[m] < k) lo = m + 1; else hi = m; }
    size_t e = lo;
    hi = s->nspl;                  /* first splitter of key8 > k */
    while (lo < hi) { size_t m = (lo + hi) / 2; if (s->skey[m] <= k) lo = m + 1; else hi = m; }
    hz_dg_line x = { p, n };
    for (hi = lo, lo = e; lo < hi;) {   /* the ties: first splitter greater than the line */
        size_t m = (lo + hi) / 2;
        if (hz_dg_line_cmp(&s->spl[m], &x) <= 0) lo = m + 1; else hi = m;
    }
    *equal = lo > 0 && hz_dg_line_cmp(&s->spl[lo - 1], &x) == 0;
    return lo;
}

/* a nameless temporary file in dir (O_TMPFILE: one call, nothing to unlink, nothing left by a
 * signal), else an unlinked mkstemp one; the descriptor, or -1 with errno */
static int temp_file(const char *dir)
{
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return fd;
#endif
    char tp[4096];
    snprintf(tp, sizeof tp, "%s/.digest-bucket-XXXXXX", dir);
    int t = mkostemp(tp, O_CLOEXEC);
    if (t >= 0) unlink(tp);
    return t;
}

/* append buf[0 .. len) to bucket b's temporary file, created at its first bytes (buckets that
 * stay empty cost nothing); 0, -1 write error, -3 no file could be created (errno set) */
static int bucket_flush(bsort *s, size_t b, const char *buf, size_t len)
{
    pthread_mutex_lock(&s->bmu[b]);
    if (s->fd[b] < 0 && (s->fd[b] = temp_file(s->dir)) < 0) { pthread_mutex_unlock(&s->bmu[b]); return -3; }
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(s->fd[b], buf + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) { if (!w) errno = ENOSPC; pthread_mutex_unlock(&s->bmu[b]); return -1; }
        off += (size_t)w;
    }
    s->bbytes[b] += len;
    pthread_mutex_unlock(&s->bmu[b]);
    return 0;
}

/* the pieces (PIECE_BYTES each) of one input of size bytes (path, or fd when path is NULL),
 * added before the workers start; 0, or -1 out of memory */
static int bs_add(bsort *s, const char *path, int fd, uint64_t size)
{
    for (uint64_t a = 0;; a += PIECE_BYTES) {
        if (s->npiece == s->cappiece) {
            size_t c = s->cappiece ? 2 * s->cappiece : 64;
            piece_t *np = realloc(s->piece, c * sizeof *np);
            if (!np) return -1;
            s->piece = np; s->cappiece = c;
        }
        s->piece[s->npiece++] = (piece_t){ path, fd, a, a + PIECE_BYTES < size ? a + PIECE_BYTES : size };
        if (a + PIECE_BYTES >= size) return 0;
    }
}

/* one piece's lines into the thread's bucket buffers; -1 read error, -2 write error, -3 no
 * temporary file could be created */
static int distribute_piece(bsort *s, const piece_t *pc, char *bufs, size_t *blen, uint64_t *eq, uint64_t *lines)
{
    hz_dg_reader rd;
    if (hz_dg_reader_open(&rd, pc->path, pc->fd)) return -1;
    char *line = NULL; size_t cap = 0; ssize_t n;
    uint64_t pos = pc->a;
    int rc = 0;
    if (pc->a > 0) {   /* the line that starts before a belongs to the previous piece */
        hz_dg_reader_seek(&rd, pc->a - 1);
        if ((n = hz_dg_getline(&rd, &line, &cap)) < 0) rc = -1;
        else pos = pc->a - 1 + (uint64_t)n;
    }
    while (!rc && pos < pc->b) {
        if ((n = hz_dg_getline(&rd, &line, &cap)) <= 0) { if (n < 0) rc = -1; break; }
        pos += (uint64_t)n;
        size_t len = (size_t)n - (line[n - 1] == '\n');
        int equal;
        size_t bk = bucket_of(s, line, len, &equal);
        (*lines)++;
        if (equal) { eq[bk - 1]++; continue; }
        char *bb = bufs + bk * s->bufsz;
        if (blen[bk] + len + 1 > s->bufsz) {
            int f = blen[bk] ? bucket_flush(s, bk, bb, blen[bk]) : 0;
            if (f) { rc = f == -3 ? -3 : -2; break; }
            blen[bk] = 0;
            if (len + 1 > s->bufsz) {   /* a very long line: straight to its file */
                line[len] = '\n';
                if ((f = bucket_flush(s, bk, line, len + 1))) { rc = f == -3 ? -3 : -2; break; }
                continue;
            }
        }
        memcpy(bb + blen[bk], line, len);
        blen[bk] += len;
        bb[blen[bk]++] = '\n';
    }
    free(line);
    hz_dg_reader_close(&rd);
    return rc;
}

/* a bucket write (rc -2) or file creation (-3) failed */
static void write_failed(bsort *s, int rc)
{
    char m[1024];
    if (rc == -3) snprintf(m, sizeof m, "%s: cannot create a temporary file for the canonical digest: %s", s->dir, strerror(errno));
    else snprintf(m, sizeof m, "%s: cannot write a temporary file of the canonical digest: %s", s->dir, strerror(errno));
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
        int have = !s->failed && s->next_piece < s->npiece;
        piece_t pc = have ? s->piece[s->next_piece++] : (piece_t){ NULL, -1, 0, 0 };
        pthread_mutex_unlock(&s->mu);
        if (!have) break;
        int rc = distribute_piece(s, &pc, bufs, blen, eq, &lines);
        if (rc == -1) {
            char m[1024];
            if (errno == ENOMEM) snprintf(m, sizeof m, "out of memory in the canonical digest (%s)", s->dir);
            else if (pc.path) snprintf(m, sizeof m, "%s: cannot read: %s", pc.path, strerror(errno));
            else snprintf(m, sizeof m, "%s: cannot read back a temporary file of the canonical digest: %s", s->dir, strerror(errno));
            bs_fail(s, m);
        }
        if (rc < -1) write_failed(s, rc);
        if (rc) break;
    }
    for (size_t b = 0; b < s->nb && !bs_failed(s); b++) {
        int f = blen[b] ? bucket_flush(s, b, bufs + b * s->bufsz, blen[b]) : 0;
        if (f) write_failed(s, f == -3 ? -3 : -2);
    }
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
    hz_dg_line *L = NULL;
    ssize_t n = hz_dg_lines_sort(buf, len, &L);
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

/* free and close what the hashing thread is done with (called with s->mu held, returns with
 * it held) */
static void retire(bsort *s)
{
    while (s->nrbuf || s->nrfd) {
        char *b = s->nrbuf ? s->rbuf[--s->nrbuf] : NULL;
        int fd = !b && s->nrfd ? s->rfd[--s->nrfd] : -1;
        pthread_mutex_unlock(&s->mu);
        free(b);
        if (fd >= 0) close(fd);
        pthread_mutex_lock(&s->mu);
    }
}

/* load and sort buckets in order, at most `window` past the one being hashed; a bucket too big
 * to sort in memory is left to the hashing thread (sorted again, one level down); between
 * buckets, what the hashing thread retired */
static void *sort_main(void *arg)
{
    bsort *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        for (;;) {
            retire(s);
            if (s->failed || (s->next_bucket < s->nb && s->next_bucket < s->hashed + s->window)) break;
            pthread_cond_wait(&s->cv, &s->mu);   /* window full, or every bucket taken: retire until done */
        }
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

/* the splitters: every (k / want)-th of the k sample lines smp (their bytes in store, owned by
 * s from now on), sorted, copies dropped; 0, or -1 out of memory */
static int choose_splitters(bsort *s, hz_dg_line *smp, size_t k, size_t want, char *store)
{
    s->spl_store = store;
    qsort(smp, k, sizeof *smp, hz_dg_line_cmp);
    if (!(s->spl = malloc((want ? want : 1) * sizeof *s->spl))) return -1;
    s->nspl = 0;
    for (size_t b = 1; b < want && k; b++) {
        hz_dg_line c = smp[b * k / want];
        if (!s->nspl || hz_dg_line_cmp(&s->spl[s->nspl - 1], &c) < 0) s->spl[s->nspl++] = c;
    }
    return 0;
}

/* A growable store of sample lines: bytes, and each line's offset and length. */
typedef struct { char *st; size_t used, cap; uint64_t *off; hz_dg_line *smp; size_t k, ns; } samples_t;

static int samples_init(samples_t *m, size_t ns)
{
    memset(m, 0, sizeof *m);
    m->ns = ns; m->cap = 1 << 16;
    m->st = malloc(m->cap); m->off = malloc((ns ? ns : 1) * sizeof *m->off); m->smp = malloc((ns ? ns : 1) * sizeof *m->smp);
    if (m->st && m->off && m->smp) return 0;
    free(m->st); free(m->off); free(m->smp);
    return -1;
}

static int samples_push(samples_t *m, const char *p, size_t len)
{
    if (m->k == m->ns) return 0;
    if (m->used + len > m->cap) {
        size_t c = m->cap;
        while (m->used + len > c) c *= 2;
        char *n = realloc(m->st, c);
        if (!n) return -1;
        m->st = n; m->cap = c;
    }
    memcpy(m->st + m->used, p, len);
    m->off[m->k] = m->used; m->smp[m->k].n = len; m->k++; m->used += len;
    return 0;
}

/* the splitters of the stored samples (which it takes over and frees); 0, or -1 out of memory */
static int samples_choose(bsort *s, samples_t *m, size_t want)
{
    for (size_t i = 0; i < m->k; i++) m->smp[i].p = m->st + m->off[i];
    free(m->off);
    int rc = choose_splitters(s, m->smp, m->k, want, m->st);
    free(m->smp);
    return rc;
}

/* splitters from lines at evenly spaced byte offsets (each: the first line starting after the
 * offset); they balance the buckets, correctness never depends on them */
static int pick_splitters(bsort *s, const files_t *f, size_t want_buckets)
{
    samples_t m;
    char *line = NULL; size_t lcap = 0;
    if (samples_init(&m, want_buckets * SAMPLES)) return -1;
    size_t fi = 0; uint64_t base = 0;
    hz_dg_reader rd; int open_ = 0, rc = 0;
    for (size_t i = 0; i < m.ns && !rc; i++) {
        uint64_t at = (uint64_t)((double)f->total * ((double)i + 0.5) / (double)m.ns);
        while (fi < f->n && at >= base + f->size[fi]) { base += f->size[fi]; fi++; if (open_) { hz_dg_reader_close(&rd); open_ = 0; } }
        if (fi >= f->n) break;
        if (!open_ && hz_dg_reader_open(&rd, f->path ? f->path[fi] : NULL, f->fd ? f->fd[fi] : -1)) continue;
        if (!open_) rd.chunk = 4096;   /* two lines a seek: 64 KiB reads made 10,000 samples read 0.6 GB */
        open_ = 1;
        ssize_t n;
        hz_dg_reader_seek(&rd, at - base);
        if (hz_dg_getline(&rd, &line, &lcap) <= 0) continue;   /* skip the partial line */
        if ((n = hz_dg_getline(&rd, &line, &lcap)) <= 0) continue;
        rc = samples_push(&m, line, (size_t)n - (line[n - 1] == '\n'));
    }
    if (open_) hz_dg_reader_close(&rd);
    free(line);
    if (rc) { free(m.st); free(m.off); free(m.smp); return -1; }
    return samples_choose(s, &m, want_buckets);
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

/* the buckets' buffers and counters, once the splitters are known (their unlinked temporary
 * files in s->dir come with their first bytes); 0, or -1 with err */
static int bs_open(bsort *s, char *err, size_t errlen)
{
    if (s->nspl >= MAX_BUCKETS) { snprintf(err, errlen, "canonical digest: %zu splitters", s->nspl); return -1; }   /* never: want <= MAX_BUCKETS */
    s->nb = s->nspl + 1;
    s->bufsz = BUF_ALL / s->nb < 4096 ? 4096 : BUF_ALL / s->nb > 65536 ? 65536 : BUF_ALL / s->nb;
    s->fd = malloc(s->nb * sizeof *s->fd);
    if (s->fd) for (size_t b = 0; b < s->nb; b++) s->fd[b] = -1;
    s->bbytes = calloc(s->nb, sizeof *s->bbytes); s->eq = calloc(s->nspl ? s->nspl : 1, sizeof *s->eq);
    s->bmu = malloc(s->nb * sizeof *s->bmu);
    s->sbuf = calloc(s->nb, sizeof *s->sbuf); s->sn = malloc(s->nb * sizeof *s->sn);
    s->rbuf = malloc(s->nb * sizeof *s->rbuf); s->rfd = malloc(s->nb * sizeof *s->rfd);
    if (!s->fd || !s->bbytes || !s->eq || !s->bmu || !s->sbuf || !s->sn || !s->rbuf || !s->rfd) {
        snprintf(err, errlen, "out of memory in the canonical digest"); return -1; }
    for (size_t b = 0; b < s->nb; b++) { s->sn[b] = -1; pthread_mutex_init(&s->bmu[b], NULL); s->nbmu++; }
    s->scp = s->nspl ? s->spl[0].n : 0;   /* the splitters' common prefix and key8s (bucket_of) */
    for (size_t i = 1; i < s->nspl; i++) {
        size_t k = 0, m = s->spl[i].n < s->scp ? s->spl[i].n : s->scp;
        while (k < m && s->spl[i].p[k] == s->spl[0].p[k]) k++;
        s->scp = k;
    }
    if (!(s->skey = malloc((s->nspl ? s->nspl : 1) * sizeof *s->skey))) { snprintf(err, errlen, "out of memory in the canonical digest"); return -1; }
    for (size_t i = 0; i < s->nspl; i++) s->skey[i] = key8(s->spl[i].p, s->spl[i].n, s->scp);
    return 0;
}

static int hash_repeated(EVP_MD_CTX *ctx, const hz_dg_line *l, uint64_t times)
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
                       uint64_t *nlines, hz_dg_times *tm, char *err, size_t errlen);

/* step 3, once every line is in its bucket: sort buckets ahead on s->threads workers, hash
 * them in order into ctx (each bucket, then copies of its splitter); 0, or -1 with err.  The
 * hashing thread, the bound at about 1.2 GB/s, only hashes: the workers free each hashed
 * bucket's buffer and close its file (a few milliseconds each) */
static int bs_hash(bsort *s, EVP_MD_CTX *ctx, char *err, size_t errlen)
{
    pthread_t *th = malloc((size_t)s->threads * sizeof *th);
    int started = 0;
    if (!th) { snprintf(err, errlen, "out of memory in the canonical digest"); return -1; }
    s->window = (size_t)s->threads + 2;
    for (int t = 0; t < s->threads; t++) if (!pthread_create(&th[started], NULL, sort_main, s)) started++;
    if (!started) { free(th); snprintf(err, errlen, "cannot start the canonical digest's threads"); return -1; }
    for (size_t b = 0; b < s->nb; b++) {
        double tw = s->tm ? hz_now() : 0;
        pthread_mutex_lock(&s->mu);
        while (!s->failed && s->sn[b] == -1) pthread_cond_wait(&s->cv, &s->mu);
        int stop = s->failed;
        pthread_mutex_unlock(&s->mu);
        if (stop) break;
        if (s->tm) { double t = hz_now(); s->tm->hash_wait += t - tw; tw = t; }
        if (s->sn[b] == -2) {   /* too big: bucket-sorted again from its file */
            files_t sub = { NULL, &s->fd[b], &s->bbytes[b], 1, s->bbytes[b] };
            uint64_t nl = 0;
            if (bucket_sort(&sub, s->dir, s->bucket_bytes, s->threads, s->depth + 1, ctx, &nl, NULL, err, errlen)) { bs_fail(s, err); break; }
        } else
            EVP_DigestUpdate(ctx, s->sbuf[b], (size_t)s->bbytes[b]);
        if (b < s->nspl && s->eq[b]) hash_repeated(ctx, &s->spl[b], s->eq[b]);
        if (s->tm) s->tm->hash_update += hz_now() - tw;
        pthread_mutex_lock(&s->mu);   /* the sort workers free and close them */
        if (s->sbuf[b]) s->rbuf[s->nrbuf++] = s->sbuf[b];
        if (s->fd[b] >= 0) s->rfd[s->nrfd++] = s->fd[b];
        s->sbuf[b] = NULL; s->fd[b] = -1;
        s->hashed = b + 1;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
    }
    pthread_mutex_lock(&s->mu);
    int failed = s->failed;
    if (failed) snprintf(err, errlen, "%s", s->err);   /* err: the caller's, maybe never written */
    s->failed = 1;                                      /* stop: wakes the waiting workers */
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
    free(th);
    return failed ? -1 : 0;
}

static int bucket_sort(const files_t *f, const char *dir, size_t bucket_bytes, int threads, int depth, EVP_MD_CTX *ctx,
                       uint64_t *nlines, hz_dg_times *tm, char *err, size_t errlen)
{
    bsort s;
    bs_init(&s, dir, bucket_bytes, threads, depth);
    s.tm = tm;
    double t0 = hz_now();
    size_t want = (size_t)((f->total + bucket_bytes - 1) / bucket_bytes), cap = bucket_cap();
    if (want > cap) want = cap;
    if (want < 2) want = 2;
    pthread_t *th = malloc((size_t)threads * sizeof *th);
    int rc = -1, started = 0;
    if (!th || pick_splitters(&s, f, want)) { snprintf(err, errlen, "out of memory in the canonical digest"); goto out; }
    double t1 = hz_now();   /* the buckets' files and buffers count as distribution */
    if (bs_open(&s, err, errlen)) goto out;
    for (size_t i = 0; i < f->n; i++)
        if (bs_add(&s, f->path ? f->path[i] : NULL, f->fd ? f->fd[i] : -1, f->size[i])) {
            snprintf(err, errlen, "out of memory in the canonical digest"); goto out; }
    /* 2. distribution */
    for (int t = 0; t < threads; t++) if (!pthread_create(&th[started], NULL, distribute_main, &s)) started++;
    if (!started) distribute_main(&s);
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
    if (s.failed) { snprintf(err, errlen, "%s", s.err); goto out; }
    double t2 = hz_now();
    /* 3. sort buckets ahead, hash in order */
    if (bs_hash(&s, ctx, err, errlen)) goto out;
    if (tm) { tm->splitters = t1 - t0; tm->distribute = t2 - t1; tm->sort_hash = hz_now() - t2; }
    *nlines = s.lines;
    rc = 0;
out:
    free(th);
    bs_free(&s);
    return rc;
}

static int digest_start(EVP_MD_CTX **ctx)
{
    *ctx = EVP_MD_CTX_new();
    return *ctx && EVP_DigestInit_ex(*ctx, EVP_sha256(), NULL) ? 0 : -1;
}

static void digest_hex(EVP_MD_CTX *ctx, char hex[65])
{
    unsigned char md[32];
    unsigned int mdl = 0;
    EVP_DigestFinal_ex(ctx, md, &mdl);
    for (int i = 0; i < 32; i++) sprintf(hex + 2 * i, "%02x", md[i]);
    hex[64] = 0;
}

static int digest_dir(const char *dir, size_t mem_bytes, size_t bucket_bytes, int threads, char hex[65],
                      uint64_t *nlines, hz_dg_times *tm, char *err, size_t errlen);

int hz_canonical_digest(const char *dir, int threads, char hex[65], uint64_t *nlines, hz_dg_times *tm,
                        char *err, size_t errlen)
{
    if (tm) memset(tm, 0, sizeof *tm);
    return digest_dir(dir, MEM_BYTES, BUCKET_BYTES, threads, hex, nlines, tm, err, errlen);
}

int hz_canonical_digest_buckets(const char *dir, size_t bucket_bytes, int threads, char hex[65], uint64_t *nlines,
                                char *err, size_t errlen)
{
    return digest_dir(dir, bucket_bytes, bucket_bytes, threads, hex, nlines, NULL, err, errlen);
}

/* output up to mem_bytes in memory (hz_dg_lines_hash), larger in buckets of bucket_bytes */
static int digest_dir(const char *dir, size_t mem_bytes, size_t bucket_bytes, int threads, char hex[65],
                      uint64_t *nlines, hz_dg_times *tm, char *err, size_t errlen)
{
    files_t f;
    if (files_list(dir, &f, err, errlen)) return -1;
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    if (bucket_bytes < 1) bucket_bytes = 1;
    EVP_MD_CTX *ctx = NULL;
    int rc = -1;
    uint64_t total = 0;
    if (digest_start(&ctx)) { snprintf(err, errlen, "out of memory in the canonical digest"); goto out; }
    if (f.total <= mem_bytes) {   /* everything in memory */
        size_t cap = (size_t)f.total + f.n + 1, len = 0;   /* with a '\n' a file that lacks its last */
        char *buf = malloc(cap);
        if (!buf) cap = 0;   /* hz_dg_slurp grows it, or fails with ENOMEM */
        for (size_t i = 0; i < f.n; i++)
            if (hz_dg_slurp(f.path[i], &buf, &len, &cap)) {
                snprintf(err, errlen, "%s: cannot read: %s", f.path[i], strerror(errno)); free(buf); goto out; }
        ssize_t n = hz_dg_lines_hash(buf, len, threads, ctx);
        free(buf);
        if (n < 0) { snprintf(err, errlen, "out of memory in the canonical digest"); goto out; }
        total = (uint64_t)n;
    } else if (bucket_sort(&f, dir, bucket_bytes, threads, 0, ctx, &total, tm, err, errlen)) goto out;
    digest_hex(ctx, hex);
    if (nlines) *nlines = total;
    rc = 0;
out:
    if (ctx) EVP_MD_CTX_free(ctx);
    files_free(&f);
    return rc;
}

/* ---- the digest fed while a run writes (hz_dg_stream) -------------------------------------- */
typedef struct { char *base; uint64_t size; dev_t dev; ino_t ino; struct timespec mtime; } fed_file;

struct hz_dg_stream {
    bsort s;
    char *dir;
    pthread_mutex_t mu;            /* the fields below */
    fed_file *file; size_t nfile, capfile;
    uint64_t bytes;                /* bytes fed */
    int spent;                     /* a feed failed: the folder is digested instead */
};

hz_dg_stream *hz_dg_stream_open(const char *dir, char *const *paths, size_t n, size_t bucket_bytes, int threads,
                                char *err, size_t errlen)
{
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    hz_dg_stream *ds = calloc(1, sizeof *ds);
    char *d = strdup(dir);
    files_t f = { calloc(n ? n : 1, sizeof *f.path), NULL, calloc(n ? n : 1, sizeof *f.size), n, 0 };
    pthread_t *th = malloc((size_t)threads * sizeof *th);
    if (!ds || !d || !f.path || !f.size || !th) {
        free(ds); free(d); free(f.path); free(f.size); free(th);
        snprintf(err, errlen, "out of memory in the canonical digest"); return NULL; }
    ds->dir = d;
    pthread_mutex_init(&ds->mu, NULL);
    bs_init(&ds->s, ds->dir, bucket_bytes ? bucket_bytes : BUCKET_BYTES, threads, 0);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        struct stat st;
        if (stat(paths[i], &st) || !S_ISREG(st.st_mode)) { snprintf(err, errlen, "%s: cannot read: %s", paths[i], strerror(errno)); rc = -1; }
        else { f.path[i] = (char *)paths[i]; f.size[i] = (uint64_t)st.st_size; f.total += f.size[i]; }
    }
    /* splitters sampled from these files: later files of the run are assumed to spread alike
     * (a bucket that grows past 4 x bucket_bytes is sorted again at the end) */
    if (!rc && pick_splitters(&ds->s, &f, bucket_cap())) { snprintf(err, errlen, "out of memory in the canonical digest"); rc = -1; }
    if (!rc) rc = bs_open(&ds->s, err, errlen);
    for (size_t i = 0; i < n && !rc; i++)
        if (bs_add(&ds->s, paths[i], -1, f.size[i])) { snprintf(err, errlen, "out of memory in the canonical digest"); rc = -1; }
    int started = 0;
    for (int t = 0; !rc && t < threads; t++) if (!pthread_create(&th[started], NULL, distribute_main, &ds->s)) started++;
    if (!rc && !started) distribute_main(&ds->s);
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
    if (!rc && ds->s.failed) { snprintf(err, errlen, "%s", ds->s.err); rc = -1; }
    ds->s.next_piece = ds->s.npiece = 0;
    ds->bytes = f.total;
    free(f.path); free(f.size); free(th);   /* the paths are the caller's */
    for (size_t i = 0; i < n && !rc; i++) rc = hz_dg_stream_file(ds, paths[i]);
    if (rc) { hz_dg_stream_free(ds); return NULL; }
    return ds;
}

static int stream_spend(hz_dg_stream *ds)
{
    pthread_mutex_lock(&ds->mu);
    ds->spent = 1;
    pthread_mutex_unlock(&ds->mu);
    return -1;
}

/* two passes over the lines: each one's bucket, then the lines laid out bucket by bucket in
 * one copy, each bucket's run appended to its file with one write */
int hz_dg_stream_lines(hz_dg_stream *ds, const char *buf, size_t len)
{
    bsort *s = &ds->s;
    if (!len) return 0;
    if (buf[len - 1] != '\n') return stream_spend(ds);
    size_t nl = 0;
    for (const char *p = buf, *e = buf + len; p < e; nl++) p = (const char *)memchr(p, '\n', (size_t)(e - p)) + 1;
    uint16_t *bk = malloc(nl * sizeof *bk);   /* nb <= MAX_BUCKETS + 1 < 0xffff, the mark of a splitter's copy */
    size_t *at = calloc(s->nb + 1, sizeof *at);
    uint64_t *eq = calloc(s->nspl ? s->nspl : 1, sizeof *eq);
    char *out = malloc(len);
    int rc = bk && at && eq && out ? 0 : -1;
    const char *p = buf;
    for (size_t i = 0; !rc && i < nl; i++) {
        const char *q = memchr(p, '\n', (size_t)(buf + len - p));
        size_t n = (size_t)(q - p);
        int equal;
        size_t b = bucket_of(s, p, n, &equal);
        if (equal) { eq[b - 1]++; bk[i] = 0xffff; }
        else { bk[i] = (uint16_t)b; at[b + 1] += n + 1; }
        p = q + 1;
    }
    for (size_t b = 0; !rc && b < s->nb; b++) at[b + 1] += at[b];   /* at[b]: where bucket b starts */
    p = buf;
    for (size_t i = 0; !rc && i < nl; i++) {
        size_t n = (size_t)((const char *)memchr(p, '\n', (size_t)(buf + len - p)) - p) + 1;
        if (bk[i] != 0xffff) { memcpy(out + at[bk[i]], p, n); at[bk[i]] += n; }
        p += n;
    }
    for (size_t b = 0, from = 0; !rc && b < s->nb; from = at[b], b++)   /* now at[b]: where it ends */
        if (at[b] > from && bucket_flush(s, b, out + from, at[b] - from)) rc = -1;
    if (!rc) {
        pthread_mutex_lock(&s->mu);
        s->lines += nl;
        for (size_t k = 0; k < s->nspl; k++) s->eq[k] += eq[k];
        pthread_mutex_unlock(&s->mu);
        pthread_mutex_lock(&ds->mu);
        ds->bytes += len;
        pthread_mutex_unlock(&ds->mu);
    }
    free(bk); free(at); free(eq); free(out);
    return rc ? stream_spend(ds) : 0;
}

int hz_dg_stream_file(hz_dg_stream *ds, const char *path)
{
    struct stat st;
    const char *sl = strrchr(path, '/');
    if (stat(path, &st) || !S_ISREG(st.st_mode)) return stream_spend(ds);
    pthread_mutex_lock(&ds->mu);
    int rc = 0;
    if (ds->nfile == ds->capfile) {
        size_t c = ds->capfile ? 2 * ds->capfile : 64;
        fed_file *nf = realloc(ds->file, c * sizeof *nf);
        if (nf) { ds->file = nf; ds->capfile = c; } else rc = -1;
    }
    fed_file *a = rc ? NULL : &ds->file[ds->nfile];
    if (a && (a->base = strdup(sl ? sl + 1 : path))) {
        a->size = (uint64_t)st.st_size; a->dev = st.st_dev; a->ino = st.st_ino; a->mtime = st.st_mtim;
        ds->nfile++;
    } else rc = -1;
    if (rc) ds->spent = 1;
    pthread_mutex_unlock(&ds->mu);
    return rc;
}

static int fed_cmp(const void *a, const void *b) { return strcmp(((const fed_file *)a)->base, ((const fed_file *)b)->base); }

/* dir holds exactly the files recorded (RULES.md's set: *.segments but all.segments), each
 * with the inode, size and modification time it had then */
static int stream_same_files(hz_dg_stream *ds)
{
    files_t f;
    char e[256];
    if (files_list(ds->dir, &f, e, sizeof e)) return 0;
    int same = f.n == ds->nfile;
    qsort(ds->file, ds->nfile, sizeof *ds->file, fed_cmp);
    for (size_t i = 0; same && i < f.n; i++) {
        const fed_file *a = &ds->file[i];
        const char *sl = strrchr(f.path[i], '/');
        struct stat st;
        same = !strcmp(sl ? sl + 1 : f.path[i], a->base) && !stat(f.path[i], &st) && st.st_dev == a->dev &&
               st.st_ino == a->ino && (uint64_t)st.st_size == a->size && st.st_mtim.tv_sec == a->mtime.tv_sec &&
               st.st_mtim.tv_nsec == a->mtime.tv_nsec;
    }
    files_free(&f);
    return same;
}

/* the bucket files closed (their disk space freed at once: the folder's digest may need it) */
static int stream_release(hz_dg_stream *ds)
{
    for (size_t b = 0; ds->s.fd && b < ds->s.nb; b++)
        if (ds->s.fd[b] >= 0) { close(ds->s.fd[b]); ds->s.fd[b] = -1; }
    ds->spent = 1;
    return 1;
}

int hz_dg_stream_finish(hz_dg_stream *ds, char hex[65], uint64_t *nlines, hz_dg_times *tm)
{
    if (!ds) return 1;
    if (ds->spent || ds->bytes <= 8 * (uint64_t)ds->s.bucket_bytes || !stream_same_files(ds)) return stream_release(ds);
    ds->spent = 1;   /* its buckets are used up either way */
    EVP_MD_CTX *ctx = NULL;
    char e[1024];
    int rc = 1;
    if (tm) memset(tm, 0, sizeof *tm);
    ds->s.tm = tm;
    double t0 = hz_now();
    if (!digest_start(&ctx) && !bs_hash(&ds->s, ctx, e, sizeof e)) {
        digest_hex(ctx, hex);
        if (nlines) *nlines = ds->s.lines;
        rc = 0;
    }
    if (tm) tm->sort_hash = hz_now() - t0;
    if (ctx) EVP_MD_CTX_free(ctx);
    if (rc) stream_release(ds);
    return rc;
}

void hz_dg_stream_free(hz_dg_stream *ds)
{
    if (!ds) return;
    bs_free(&ds->s);
    for (size_t i = 0; i < ds->nfile; i++) free(ds->file[i].base);
    free(ds->file); free(ds->dir);
    pthread_mutex_destroy(&ds->mu);
    free(ds);
}
