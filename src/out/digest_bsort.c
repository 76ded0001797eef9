/* digest_bsort — the canonical digest's parallel bucket sort (digest_impl.h; RULES.md
 * "canonical digest"), whose memory does not grow with the output:
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

#define MAX_BUCKETS 512                  /* temporary files of one level, at most */
#define MAX_DEPTH 6                      /* nested levels; past it a bucket is sorted in memory */
#define SAMPLES 32                       /* sample lines per bucket for the splitters */
#define BUF_ALL ((size_t)4 << 20)        /* per thread: its buffers of all buckets together */
#define PIECE_BYTES ((uint64_t)64 << 20) /* distribution work item */

void hz_dg_bs_init(hz_dg_bsort *s, const char *dir, size_t bucket_bytes, int threads, int depth)
{
    memset(s, 0, sizeof *s);
    s->dir = dir; s->bucket_bytes = bucket_bytes; s->threads = threads; s->depth = depth;
    pthread_mutex_init(&s->mu, NULL); pthread_cond_init(&s->cv, NULL);
}

void hz_dg_bs_free(hz_dg_bsort *s)
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

static int bs_failed(hz_dg_bsort *s)
{
    pthread_mutex_lock(&s->mu);
    int f = s->failed;
    pthread_mutex_unlock(&s->mu);
    return f;
}

static void bs_fail(hz_dg_bsort *s, const char *msg)
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
size_t hz_dg_bucket_of(const hz_dg_bsort *s, const char *p, size_t n, int *equal)
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
int hz_dg_bucket_flush(hz_dg_bsort *s, size_t b, const char *buf, size_t len)
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
int hz_dg_bs_add(hz_dg_bsort *s, const char *path, int fd, uint64_t size)
{
    for (uint64_t a = 0;; a += PIECE_BYTES) {
        if (s->npiece == s->cappiece) {
            size_t c = s->cappiece ? 2 * s->cappiece : 64;
            hz_dg_piece *np = realloc(s->piece, c * sizeof *np);
            if (!np) return -1;
            s->piece = np; s->cappiece = c;
        }
        s->piece[s->npiece++] = (hz_dg_piece){ path, fd, a, a + PIECE_BYTES < size ? a + PIECE_BYTES : size };
        if (a + PIECE_BYTES >= size) return 0;
    }
}

/* one piece's lines into the thread's bucket buffers; -1 read error, -2 write error, -3 no
 * temporary file could be created */
static int distribute_piece(hz_dg_bsort *s, const hz_dg_piece *pc, char *bufs, size_t *blen, uint64_t *eq, uint64_t *lines)
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
        size_t bk = hz_dg_bucket_of(s, line, len, &equal);
        (*lines)++;
        if (equal) { eq[bk - 1]++; continue; }
        char *bb = bufs + bk * s->bufsz;
        if (blen[bk] + len + 1 > s->bufsz) {
            int f = blen[bk] ? hz_dg_bucket_flush(s, bk, bb, blen[bk]) : 0;
            if (f) { rc = f == -3 ? -3 : -2; break; }
            blen[bk] = 0;
            if (len + 1 > s->bufsz) {   /* a very long line: straight to its file */
                line[len] = '\n';
                if ((f = hz_dg_bucket_flush(s, bk, line, len + 1))) { rc = f == -3 ? -3 : -2; break; }
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
static void write_failed(hz_dg_bsort *s, int rc)
{
    char m[1024];
    if (rc == -3) snprintf(m, sizeof m, "%s: cannot create a temporary file for the canonical digest: %s", s->dir, strerror(errno));
    else snprintf(m, sizeof m, "%s: cannot write a temporary file of the canonical digest: %s", s->dir, strerror(errno));
    bs_fail(s, m);
}

void *hz_dg_distribute_main(void *arg)
{
    hz_dg_bsort *s = arg;
    char *bufs = malloc(s->nb * s->bufsz);
    size_t *blen = calloc(s->nb, sizeof *blen);
    uint64_t *eq = calloc(s->nspl ? s->nspl : 1, sizeof *eq), lines = 0;
    if (!bufs || !blen || !eq) { free(bufs); free(blen); free(eq); bs_fail(s, "out of memory in the canonical digest"); return NULL; }
    for (;;) {
        pthread_mutex_lock(&s->mu);
        int have = !s->failed && s->next_piece < s->npiece;
        hz_dg_piece pc = have ? s->piece[s->next_piece++] : (hz_dg_piece){ NULL, -1, 0, 0 };
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
        int f = blen[b] ? hz_dg_bucket_flush(s, b, bufs + b * s->bufsz, blen[b]) : 0;
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
static char *bucket_load_sorted(hz_dg_bsort *s, size_t b, ssize_t *nlines)
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

static int bucket_too_big(const hz_dg_bsort *s, size_t b)
{
    return s->depth < MAX_DEPTH && s->bbytes[b] > 4 * (uint64_t)s->bucket_bytes;
}

/* free and close what the hashing thread is done with (called with s->mu held, returns with
 * it held) */
static void retire(hz_dg_bsort *s)
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
    hz_dg_bsort *s = arg;
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
static int choose_splitters(hz_dg_bsort *s, hz_dg_line *smp, size_t k, size_t want, char *store)
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
static int samples_choose(hz_dg_bsort *s, samples_t *m, size_t want)
{
    for (size_t i = 0; i < m->k; i++) m->smp[i].p = m->st + m->off[i];
    free(m->off);
    int rc = choose_splitters(s, m->smp, m->k, want, m->st);
    free(m->smp);
    return rc;
}

/* splitters from lines at evenly spaced byte offsets (each: the first line starting after the
 * offset); they balance the buckets, correctness never depends on them */
int hz_dg_pick_splitters(hz_dg_bsort *s, const hz_dg_files *f, size_t want_buckets)
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
size_t hz_dg_bucket_cap(void)
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
int hz_dg_bs_open(hz_dg_bsort *s, char *err, size_t errlen)
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
    s->scp = s->nspl ? s->spl[0].n : 0;   /* the splitters' common prefix and key8s (hz_dg_bucket_of) */
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

/* step 3, once every line is in its bucket: sort buckets ahead on s->threads workers, hash
 * them in order into ctx (each bucket, then copies of its splitter); 0, or -1 with err.  The
 * hashing thread, the bound at about 1.2 GB/s, only hashes: the workers free each hashed
 * bucket's buffer and close its file (a few milliseconds each) */
int hz_dg_bs_hash(hz_dg_bsort *s, EVP_MD_CTX *ctx, char *err, size_t errlen)
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
            hz_dg_files sub = { NULL, &s->fd[b], &s->bbytes[b], 1, s->bbytes[b] };
            uint64_t nl = 0;
            if (hz_dg_bucket_sort(&sub, s->dir, s->bucket_bytes, s->threads, s->depth + 1, ctx, &nl, NULL, err, errlen)) { bs_fail(s, err); break; }
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

int hz_dg_bucket_sort(const hz_dg_files *f, const char *dir, size_t bucket_bytes, int threads, int depth, EVP_MD_CTX *ctx,
                       uint64_t *nlines, hz_dg_times *tm, char *err, size_t errlen)
{
    hz_dg_bsort s;
    hz_dg_bs_init(&s, dir, bucket_bytes, threads, depth);
    s.tm = tm;
    double t0 = hz_now();
    size_t want = (size_t)((f->total + bucket_bytes - 1) / bucket_bytes), cap = hz_dg_bucket_cap();
    if (want > cap) want = cap;
    if (want < 2) want = 2;
    pthread_t *th = malloc((size_t)threads * sizeof *th);
    int rc = -1, started = 0;
    if (!th || hz_dg_pick_splitters(&s, f, want)) { snprintf(err, errlen, "out of memory in the canonical digest"); goto out; }
    double t1 = hz_now();   /* the buckets' files and buffers count as distribution */
    if (hz_dg_bs_open(&s, err, errlen)) goto out;
    for (size_t i = 0; i < f->n; i++)
        if (hz_dg_bs_add(&s, f->path ? f->path[i] : NULL, f->fd ? f->fd[i] : -1, f->size[i])) {
            snprintf(err, errlen, "out of memory in the canonical digest"); goto out; }
    /* 2. distribution */
    for (int t = 0; t < threads; t++) if (!pthread_create(&th[started], NULL, hz_dg_distribute_main, &s)) started++;
    if (!started) hz_dg_distribute_main(&s);
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
    if (s.failed) { snprintf(err, errlen, "%s", s.err); goto out; }
    double t2 = hz_now();
    /* 3. sort buckets ahead, hash in order */
    if (hz_dg_bs_hash(&s, ctx, err, errlen)) goto out;
    if (tm) { tm->splitters = t1 - t0; tm->distribute = t2 - t1; tm->sort_hash = hz_now() - t2; }
    *nlines = s.lines;
    rc = 0;
out:
    free(th);
    hz_dg_bs_free(&s);
    return rc;
}
