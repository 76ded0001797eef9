/* digest_lines — the canonical digest's lines (RULES.md "canonical digest"): read from files
 * by several threads at once, and sorted bytewise in memory (digest_impl.h).
 */
#include "digest_impl.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int hz_dg_line_cmp(const void *a, const void *b)
{
    const hz_dg_line *x = a, *y = b;
    size_t m = x->n < y->n ? x->n : y->n;
    int c = memcmp(x->p, y->p, m);
    if (c) return c;
    return x->n < y->n ? -1 : x->n > y->n;
}

int hz_dg_reader_open(hz_dg_reader *r, const char *path, int fd)
{
    memset(r, 0, sizeof *r);
    r->fd = path ? open(path, O_RDONLY) : fd;
    r->own = path != NULL;
    if (r->fd < 0) return -1;
    if (!(r->buf = malloc(HZ_DG_READ_MAX))) { if (r->own) close(r->fd); errno = ENOMEM; return -1; }
    r->chunk = HZ_DG_READ_MAX;
    return 0;
}

void hz_dg_reader_seek(hz_dg_reader *r, uint64_t at) { r->off = at; r->pos = r->len = 0; }

void hz_dg_reader_close(hz_dg_reader *r) { if (r->own && r->fd >= 0) close(r->fd); free(r->buf); r->buf = NULL; }

ssize_t hz_dg_getline(hz_dg_reader *r, char **line, size_t *cap)
{
    size_t n = 0;
    for (;;) {
        if (r->pos == r->len) {
            ssize_t k;
            size_t want = r->chunk && r->chunk < HZ_DG_READ_MAX ? r->chunk : HZ_DG_READ_MAX;
            do k = pread(r->fd, r->buf, want, (off_t)r->off); while (k < 0 && errno == EINTR);
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

/* A line with the 8 bytes that follow the lines' common prefix, big-endian, zero past its end:
 * key order agrees with hz_dg_line_cmp wherever two keys differ; equal keys are ordered by hz_dg_line_cmp. */
typedef struct { uint64_t key; hz_dg_line l; } keyed_t;

/* the length of the common prefix of all n lines */
static size_t common_prefix(const hz_dg_line *L, size_t n)
{
    size_t cp = n ? L[0].n : 0;
    for (size_t i = 1; i < n && cp; i++) {
        size_t m = L[i].n < cp ? L[i].n : cp, k = 0;
        while (k < m && L[i].p[k] == L[0].p[k]) k++;
        cp = k;
    }
    return cp;
}

/* Sort L[0..n) in hz_dg_line_cmp order: an LSD radix sort of the keys (a pass skipped where all
 * lines share its byte), then each run of equal keys the same way on the bytes after its own
 * common prefix (depth levels at most; past them, for short runs, and for runs whose common
 * prefix did not grow, by hz_dg_line_cmp).  Lines all equal are left as they are.  Memory: 8 bytes
 * a line kept per level (the keys), 48 more while a level sorts.  Returns 0, -1 out of memory.
 * The bytes sorted never depend on it: qsort(hz_dg_line_cmp) gives the same order. */
static int lines_sort_keyed(hz_dg_line *L, size_t n, size_t above, int depth)
{
    if (n < 2) return 0;
    size_t cp = common_prefix(L, n);
    int same = 1;   /* every line is the common prefix: all equal */
    for (size_t i = 0; i < n && same; i++) same = L[i].n == cp;
    if (same) return 0;
    if (n < 32 || depth >= 6 || (depth > 0 && cp <= above)) { qsort(L, n, sizeof *L, hz_dg_line_cmp); return 0; }
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

/* the lines of buf[0 .. len) into *L (malloc'd), in file order; their count, or -1 */
static ssize_t lines_index(char *buf, size_t len, hz_dg_line **L)
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
    return (ssize_t)nl;
}

ssize_t hz_dg_lines_sort(char *buf, size_t len, hz_dg_line **L)
{
    ssize_t nl = lines_index(buf, len, L);
    if (nl < 0) return -1;
    if (lines_sort_keyed(*L, (size_t)nl, 0, 0)) { free(*L); *L = NULL; return -1; }
    return nl;
}

/* ---- sorted and hashed in memory on several threads (hz_dg_lines_hash) ---------------- */
#define MH_PER_THREAD 8       /* buckets per thread: uneven buckets still spread */
#define MH_SAMPLE 64          /* sampled lines per bucket, for its splitter */
#define MH_MIN_LINES 65536    /* below: one thread sorts, no partition */

/* lines in buckets by splitters (bucket b: spl[b-1] < line <= spl[b]), each bucket then
 * sorted alone, so that the buckets in order are the lines in order */
typedef struct {
    const hz_dg_line *L; hz_dg_line *out; size_t n;
    const hz_dg_line *spl; size_t nb;          /* nb - 1 splitters, ascending */
    uint32_t *bk;                               /* each line's bucket */
    size_t *cnt;                                /* [thread][bucket] counts, then offsets */
    size_t *start;                              /* nb + 1 bucket starts in out */
    int threads, failed, go, abort;             /* go/abort: every thread started, or not */
    size_t next;                                /* the next bucket to sort */
    pthread_barrier_t bar; pthread_mutex_t mu; pthread_cond_t cv;
} mhash_t;

typedef struct { mhash_t *m; int t; } mh_arg;

/* the number of splitters strictly below line x */
static size_t mh_bucket(const mhash_t *m, const hz_dg_line *x)
{
    size_t lo = 0, hi = m->nb - 1;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (hz_dg_line_cmp(&m->spl[mid], x) < 0) lo = mid + 1; else hi = mid;
    }
    return lo;
}

static void *mh_main(void *arg)
{
    mh_arg *a = arg;
    mhash_t *m = a->m;
    pthread_mutex_lock(&m->mu);   /* the barriers below count every thread: wait until all exist */
    while (!m->go && !m->abort) pthread_cond_wait(&m->cv, &m->mu);
    int go = m->go;
    pthread_mutex_unlock(&m->mu);
    if (!go) return NULL;
    size_t i0 = m->n * (size_t)a->t / (size_t)m->threads, i1 = m->n * (size_t)(a->t + 1) / (size_t)m->threads;
    size_t *cnt = m->cnt + (size_t)a->t * m->nb;
    for (size_t i = i0; i < i1; i++) { uint32_t b = (uint32_t)mh_bucket(m, &m->L[i]); m->bk[i] = b; cnt[b]++; }
    pthread_barrier_wait(&m->bar);
    if (a->t == 0) {   /* counts to offsets: bucket by bucket, thread by thread within it */
        size_t o = 0;
        for (size_t b = 0; b < m->nb; b++) {
            m->start[b] = o;
            for (int t = 0; t < m->threads; t++) { size_t c = m->cnt[(size_t)t * m->nb + b]; m->cnt[(size_t)t * m->nb + b] = o; o += c; }
        }
        m->start[m->nb] = o;
    }
    pthread_barrier_wait(&m->bar);
    for (size_t i = i0; i < i1; i++) m->out[cnt[m->bk[i]]++] = m->L[i];   /* stable within a bucket */
    pthread_barrier_wait(&m->bar);
    for (;;) {
        pthread_mutex_lock(&m->mu);
        size_t b = m->next++;
        pthread_mutex_unlock(&m->mu);
        if (b >= m->nb) break;
        if (lines_sort_keyed(m->out + m->start[b], m->start[b + 1] - m->start[b], 0, 0)) {
            pthread_mutex_lock(&m->mu); m->failed = 1; pthread_mutex_unlock(&m->mu);
        }
    }
    return NULL;
}

/* L[0..n) in hz_dg_line_cmp order into out (n slots) on threads threads; 0, or -1 out of memory */
static int mh_sort(const hz_dg_line *L, size_t n, int threads, hz_dg_line *out)
{
    mhash_t m = { .L = L, .out = out, .n = n, .threads = threads };
    m.nb = (size_t)threads * MH_PER_THREAD;
    size_t ns = m.nb * MH_SAMPLE < n ? m.nb * MH_SAMPLE : n;
    hz_dg_line *smp = malloc(ns * sizeof *smp), *spl = malloc(m.nb * sizeof *spl);
    m.bk = malloc(n * sizeof *m.bk);
    m.cnt = calloc((size_t)threads * m.nb, sizeof *m.cnt);
    m.start = malloc((m.nb + 1) * sizeof *m.start);
    pthread_t *th = malloc((size_t)threads * sizeof *th);
    mh_arg *args = malloc((size_t)threads * sizeof *args);
    int rc = -1, started = 0;   /* -1 out of memory, 0 threads not started, 1 sorted */
    if (!smp || !spl || !m.bk || !m.cnt || !m.start || !th || !args) goto out;
    for (size_t k = 0; k < ns; k++) smp[k] = L[k * n / ns];   /* evenly spaced over all n */
    qsort(smp, ns, sizeof *smp, hz_dg_line_cmp);
    for (size_t b = 0; b + 1 < m.nb; b++) spl[b] = smp[(b + 1) * ns / m.nb];
    m.spl = spl;
    if (pthread_barrier_init(&m.bar, NULL, (unsigned)threads)) { rc = 0; goto out; }   /* the caller sorts on one */
    pthread_mutex_init(&m.mu, NULL);
    pthread_cond_init(&m.cv, NULL);
    for (int t = 0; t < threads; t++) args[t] = (mh_arg){ &m, t };
    for (int t = 1; t < threads; t++) {
        if (pthread_create(&th[t], NULL, mh_main, &args[t])) break;
        started++;
    }
    pthread_mutex_lock(&m.mu);
    if (started == threads - 1) m.go = 1; else m.abort = 1;
    pthread_cond_broadcast(&m.cv);
    pthread_mutex_unlock(&m.mu);
    if (m.go) mh_main(&args[0]);
    for (int t = 1; t <= started; t++) pthread_join(th[t], NULL);
    rc = !m.go ? 0 : m.failed ? -1 : 1;   /* after the joins: a worker may fail its last bucket late */
    pthread_cond_destroy(&m.cv);
    pthread_mutex_destroy(&m.mu);
    pthread_barrier_destroy(&m.bar);
out:
    free(smp); free(spl); free(m.bk); free(m.cnt); free(m.start); free(th); free(args);
    return rc;
}

ssize_t hz_dg_lines_hash(char *buf, size_t len, int threads, EVP_MD_CTX *ctx)
{
    hz_dg_line *L = NULL, *S = NULL;
    ssize_t nl = lines_index(buf, len, &L);
    if (nl < 0) return -1;
    size_t n = (size_t)nl;
    int sorted = 0;
    if (threads > 1 && n >= MH_MIN_LINES) {
        if (!(S = malloc(n * sizeof *S))) { free(L); return -1; }
        int r = mh_sort(L, n, threads, S);
        if (r < 0) { free(L); free(S); return -1; }
        if (r > 0) { free(L); L = S; sorted = 1; } else free(S);
    }
    if (!sorted && lines_sort_keyed(L, n, 0, 0)) { free(L); return -1; }
    /* one update per 1 MiB: an update per line costs more than the hash of a short line */
    char *ob = malloc((size_t)1 << 20);
    size_t ol = 0;
    for (size_t i = 0; i < n; i++) {
        size_t ln = L[i].n + 1;
        if (!ob || ln > ((size_t)1 << 20)) {   /* no buffer, or a line longer than it */
            if (ol) { EVP_DigestUpdate(ctx, ob, ol); ol = 0; }
            EVP_DigestUpdate(ctx, L[i].p, ln);
            continue;
        }
        if (ol + ln > ((size_t)1 << 20)) { EVP_DigestUpdate(ctx, ob, ol); ol = 0; }
        memcpy(ob + ol, L[i].p, ln); ol += ln;
    }
    if (ol) EVP_DigestUpdate(ctx, ob, ol);
    free(ob); free(L);
    return nl;
}

int hz_dg_slurp(const char *path, char **buf, size_t *len, size_t *cap)
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
