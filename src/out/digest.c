/* digest — RULES.md "canonical digest": sha256 of every segment line of a folder's *.segments
 * files, each with its newline, in bytewise order (LC_ALL=C sort).
 *
 * Small outputs are sorted in memory (digest_lines.c); larger ones by the parallel bucket sort
 * of digest_bsort.c, whose memory does not grow with the output.  This file lists the folder's
 * files, picks the way, and keeps the digest fed while a run writes (hz_dg_stream).
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
#include <sys/stat.h>
#include <unistd.h>

#define BUCKET_BYTES ((size_t)8 << 20)   /* target bucket size: many buckets keep threads busy */
#define MEM_BYTES ((size_t)HZ_DG_MEM_BYTES) /* output up to this is sorted in memory, without files */
#define MAX_THREADS 64

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void files_free(hz_dg_files *f)
{
    for (size_t i = 0; f->path && i < f->n; i++) free(f->path[i]);
    free(f->path); free(f->size);
    memset(f, 0, sizeof *f);
}

/* the *.segments regular files of dir but all.segments (the --single-file copy of the same
 * lines), by name */
static int files_list(const char *dir, hz_dg_files *f, char *err, size_t errlen)
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
    hz_dg_files f;
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
    } else if (hz_dg_bucket_sort(&f, dir, bucket_bytes, threads, 0, ctx, &total, tm, err, errlen)) goto out;
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
    hz_dg_bsort s;
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
    hz_dg_files f = { calloc(n ? n : 1, sizeof *f.path), NULL, calloc(n ? n : 1, sizeof *f.size), n, 0 };
    pthread_t *th = malloc((size_t)threads * sizeof *th);
    if (!ds || !d || !f.path || !f.size || !th) {
        free(ds); free(d); free(f.path); free(f.size); free(th);
        snprintf(err, errlen, "out of memory in the canonical digest"); return NULL; }
    ds->dir = d;
    pthread_mutex_init(&ds->mu, NULL);
    hz_dg_bs_init(&ds->s, ds->dir, bucket_bytes ? bucket_bytes : BUCKET_BYTES, threads, 0);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        struct stat st;
        if (stat(paths[i], &st) || !S_ISREG(st.st_mode)) { snprintf(err, errlen, "%s: cannot read: %s", paths[i], strerror(errno)); rc = -1; }
        else { f.path[i] = (char *)paths[i]; f.size[i] = (uint64_t)st.st_size; f.total += f.size[i]; }
    }
    /* splitters sampled from these files: later files of the run are assumed to spread alike
     * (a bucket that grows past 4 x bucket_bytes is sorted again at the end) */
    if (!rc && hz_dg_pick_splitters(&ds->s, &f, hz_dg_bucket_cap())) { snprintf(err, errlen, "out of memory in the canonical digest"); rc = -1; }
    if (!rc) rc = hz_dg_bs_open(&ds->s, err, errlen);
    for (size_t i = 0; i < n && !rc; i++)
        if (hz_dg_bs_add(&ds->s, paths[i], -1, f.size[i])) { snprintf(err, errlen, "out of memory in the canonical digest"); rc = -1; }
    int started = 0;
    for (int t = 0; !rc && t < threads; t++) if (!pthread_create(&th[started], NULL, hz_dg_distribute_main, &ds->s)) started++;
    if (!rc && !started) hz_dg_distribute_main(&ds->s);
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
    hz_dg_bsort *s = &ds->s;
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
        size_t b = hz_dg_bucket_of(s, p, n, &equal);
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
        if (at[b] > from && hz_dg_bucket_flush(s, b, out + from, at[b] - from)) rc = -1;
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
    hz_dg_files f;
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
    if (!digest_start(&ctx) && !hz_dg_bs_hash(&ds->s, ctx, e, sizeof e)) {
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
    hz_dg_bs_free(&ds->s);
    for (size_t i = 0; i < ds->nfile; i++) free(ds->file[i].base);
    free(ds->file); free(ds->dir);
    pthread_mutex_destroy(&ds->mu);
    free(ds);
}
