/* manifest — provenance JSON of a run (see manifest.h, docs/manifest.md). */
#include "manifest.h"
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if HSPZ_HAVE_CUDA
/* cudart (C linkage; cudaError_t is an int-sized enum) */
extern int cudaRuntimeGetVersion(int *v);
extern int cudaDriverGetVersion(int *v);
#endif

static void hexify(const unsigned char *md, char hex[65])
{
    for (int i = 0; i < 32; i++) sprintf(hex + 2 * i, "%02x", md[i]);
    hex[64] = 0;
}

int hz_sha256_file(const char *path, char hex[65], uint64_t *bytes, uint64_t *lines)
{
    /* Only regular files: a device (/dev/zero) never ends and a FIFO or process
     * substitution was consumed by the run (opening a named FIFO again would block). */
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    if (!S_ISREG(st.st_mode)) { errno = EINVAL; return -1; }
    FILE *fp = fopen(path, "rb");
    if (!fp) return -1;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) { fclose(fp); EVP_MD_CTX_free(ctx); errno = ENOMEM; return -1; }
    unsigned char buf[1 << 16];
    size_t n;
    uint64_t nb = 0, nl = 0;
    int last = '\n';
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0) {
        EVP_DigestUpdate(ctx, buf, n);
        nb += n;
        for (size_t i = 0; i < n; i++) nl += buf[i] == '\n';
        last = buf[n - 1];
    }
    int bad = ferror(fp);
    fclose(fp);
    unsigned char md[32];
    unsigned int mdl = 0;
    EVP_DigestFinal_ex(ctx, md, &mdl);
    EVP_MD_CTX_free(ctx);
    if (bad) { errno = EIO; return -1; }
    if (last != '\n') nl++;
    hexify(md, hex);
    if (bytes) *bytes = nb;
    if (lines) *lines = nl;
    return 0;
}

/* ---- canonical digest ------------------------------------------------------------------- */
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

/* sorted names of the regular files of dir (excluding names starting with "manifest.json") */
static char **list_files(const char *dir, size_t *n)
{
    DIR *d = opendir(dir);
    *n = 0;
    if (!d) return NULL;
    size_t cap = 16;
    char **v = malloc(cap * sizeof *v);
    struct dirent *e;
    while (v && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        if (!strncmp(e->d_name, "manifest.json", 13)) continue;
        char p[4096];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (stat(p, &st) || !S_ISREG(st.st_mode)) continue;
        if (*n == cap) { cap *= 2; char **nv = realloc(v, cap * sizeof *v); if (!nv) break; v = nv; }
        v[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    if (v) qsort(v, *n, sizeof *v, name_cmp);
    return v;
}

static void free_list(char **v, size_t n) { for (size_t i = 0; i < n; i++) free(v[i]); free(v); }

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

/* ---- canonical digest: an external merge sort, so memory stays bounded ------------------
 * Lines are gathered into runs of at most RUN_BYTES; with one run it is sorted and hashed in
 * memory, otherwise each run is sorted by a worker thread (at most RUN_THREADS at a time) into
 * an unlinked temporary file inside dir, and the runs are merged through a heap into sha256.
 * Peak memory is about RUN_THREADS * 1.4 * RUN_BYTES, whatever the number of segments. */
#define RUN_BYTES ((size_t)32 << 20)   /* small enough that big outputs sort on several threads */
#define RUN_THREADS 8

typedef struct {
    char *buf; size_t len;           /* '\n'-terminated lines */
    line_t *L; size_t n;
    FILE *fp;                        /* sorted run (NULL: the single in-memory run) */
    int failed, started;
    pthread_t th;
} run_t;

static int run_sort(run_t *r)
{
    size_t nl = 0;
    for (size_t i = 0; i < r->len; i++) nl += r->buf[i] == '\n';
    r->L = malloc((nl ? nl : 1) * sizeof *r->L);
    if (!r->L) return -1;
    size_t k = 0, s = 0;
    for (size_t i = 0; i < r->len; i++)
        if (r->buf[i] == '\n') { r->L[k].p = r->buf + s; r->L[k].n = i - s; k++; s = i + 1; }
    r->n = nl;
    qsort(r->L, nl, sizeof *r->L, line_cmp);
    return 0;
}

static void *run_worker(void *arg)
{
    run_t *r = arg;
    if (run_sort(r)) { r->failed = 1; return NULL; }
    for (size_t i = 0; i < r->n && !r->failed; i++)
        if (fwrite(r->L[i].p, 1, r->L[i].n + 1, r->fp) != r->L[i].n + 1) r->failed = 1;
    if (fflush(r->fp) || fseek(r->fp, 0, SEEK_SET)) r->failed = 1;
    free(r->L); free(r->buf);
    r->L = NULL; r->buf = NULL;
    return NULL;
}

typedef struct { char *line; size_t cap; ssize_t n; FILE *fp; } head_t;

static int head_less(const head_t *a, const head_t *b)
{
    line_t x = { a->line, (size_t)a->n - 1 }, y = { b->line, (size_t)b->n - 1 };
    return line_cmp(&x, &y) < 0;
}

static void heap_down(head_t *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && head_less(&h[l], &h[m])) m = l;
        if (r < n && head_less(&h[r], &h[m])) m = r;
        if (m == i) return;
        head_t t = h[i]; h[i] = h[m]; h[m] = t;
        i = m;
    }
}

/* start sorting run *r into a temporary file of dir (joins an older run first when
 * RUN_THREADS are busy) */
static int run_flush(run_t **runs, size_t k, const char *dir, char *err, size_t errlen)
{
    char tp[4096];
    snprintf(tp, sizeof tp, "%s/.digest-run-XXXXXX", dir);
    int fd = mkstemp(tp);
    if (fd < 0) { snprintf(err, errlen, "%s: cannot create a temporary file for the canonical digest: %s", dir, strerror(errno)); return -1; }
    unlink(tp);
    runs[k]->fp = fdopen(fd, "w+");
    if (!runs[k]->fp) { close(fd); snprintf(err, errlen, "out of memory in the canonical digest"); return -1; }
    if (k >= RUN_THREADS && runs[k - RUN_THREADS]->started) {
        pthread_join(runs[k - RUN_THREADS]->th, NULL);
        runs[k - RUN_THREADS]->started = 0;
    }
    if (pthread_create(&runs[k]->th, NULL, run_worker, runs[k])) { run_worker(runs[k]); return 0; }
    runs[k]->started = 1;
    return 0;
}

int hz_canonical_digest(const char *dir, char hex[65], uint64_t *nlines, char *err, size_t errlen)
{
    return hz_canonical_digest_runs(dir, RUN_BYTES, hex, nlines, err, errlen);
}

int hz_canonical_digest_runs(const char *dir, size_t run_bytes, char hex[65], uint64_t *nlines, char *err, size_t errlen)
{
    size_t nf;
    char **names = list_files(dir, &nf);
    run_t **runs = NULL; size_t nr = 0, rcap = 0;   /* pointers: workers hold them while the array grows */
    char *line = NULL; size_t lcap = 0;
    head_t *heap = NULL;
    uint64_t total = 0;
    int rc = -1;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx) { snprintf(err, errlen, "out of memory in the canonical digest"); goto out; }
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    for (size_t i = 0; i < nf; i++) {
        /* all.segments (--single-file) repeats the other files' lines: not counted twice */
        if (!ends_with(names[i], ".segments") || !strcmp(names[i], "all.segments")) continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        FILE *fp = fopen(p, "rb");
        if (!fp) { snprintf(err, errlen, "%s: cannot read: %s", p, strerror(errno)); goto out; }
        ssize_t n;
        while ((n = getline(&line, &lcap, fp)) > 0) {
            size_t need = (size_t)n + (line[n - 1] != '\n');
            if (!nr || runs[nr - 1]->len + need > run_bytes) {
                if (nr && run_flush(runs, nr - 1, dir, err, errlen)) { fclose(fp); goto out; }
                if (nr == rcap) {
                    rcap = rcap ? 2 * rcap : 8;
                    run_t **nv = realloc(runs, rcap * sizeof *runs);
                    if (!nv) { fclose(fp); snprintf(err, errlen, "out of memory in the canonical digest"); goto out; }
                    runs = nv;
                }
                runs[nr] = calloc(1, sizeof **runs);
                if (!runs[nr] || !(runs[nr]->buf = malloc(run_bytes > need ? run_bytes : need))) {
                    free(runs[nr]); fclose(fp); snprintf(err, errlen, "out of memory in the canonical digest"); goto out; }
                nr++;
            }
            run_t *r = runs[nr - 1];
            memcpy(r->buf + r->len, line, (size_t)n);
            r->len += (size_t)n;
            if (line[n - 1] != '\n') r->buf[r->len++] = '\n';
            total++;
        }
        fclose(fp);
    }
    if (nr <= 1) {   /* everything in memory */
        if (nr && run_sort(runs[0])) { snprintf(err, errlen, "out of memory in the canonical digest"); goto out; }
        for (size_t i = 0; nr && i < runs[0]->n; i++) EVP_DigestUpdate(ctx, runs[0]->L[i].p, runs[0]->L[i].n + 1);
    } else {
        if (run_flush(runs, nr - 1, dir, err, errlen)) goto out;
        for (size_t k = 0; k < nr; k++)
            if (runs[k]->started) { pthread_join(runs[k]->th, NULL); runs[k]->started = 0; }
        for (size_t k = 0; k < nr; k++)
            if (runs[k]->failed) { snprintf(err, errlen, "%s: cannot write a temporary run of the canonical digest (disk full?)", dir); goto out; }
        heap = calloc(nr, sizeof *heap);
        if (!heap) { snprintf(err, errlen, "out of memory in the canonical digest"); goto out; }
        size_t hn = 0;
        for (size_t k = 0; k < nr; k++) {
            head_t h = { NULL, 0, 0, runs[k]->fp };
            if ((h.n = getline(&h.line, &h.cap, h.fp)) > 0) heap[hn++] = h; else free(h.line);
        }
        for (size_t i = hn; i-- > 0;) heap_down(heap, hn, i);
        while (hn) {
            EVP_DigestUpdate(ctx, heap[0].line, (size_t)heap[0].n);
            if ((heap[0].n = getline(&heap[0].line, &heap[0].cap, heap[0].fp)) <= 0) {
                free(heap[0].line);
                heap[0] = heap[--hn];
            }
            heap_down(heap, hn, 0);
        }
    }
    unsigned char md[32];
    unsigned int mdl;
    EVP_DigestFinal_ex(ctx, md, &mdl);
    hexify(md, hex);
    if (nlines) *nlines = total;
    rc = 0;
out:
    for (size_t k = 0; k < nr; k++) {
        if (runs[k]->started) pthread_join(runs[k]->th, NULL);
        if (runs[k]->fp) fclose(runs[k]->fp);
        free(runs[k]->buf); free(runs[k]->L); free(runs[k]);
    }
    free(runs); free(heap); free(line);
    if (ctx) EVP_MD_CTX_free(ctx);
    free_list(names, nf);
    return rc;
}

/* ---- the manifest ----------------------------------------------------------------------- */
static json_t *jstr(const char *s) { return s ? json_string(s) : json_null(); }

static void iso_time(time_t t, char *buf, size_t n)
{
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static json_t *input_json(const char *role, const char *path, const hz_seqset *s)
{
    json_t *j = json_object();
    json_object_set_new(j, "role", json_string(role));
    json_object_set_new(j, "path", jstr(path));
    /* the bytes and digest seqio took while it read the file: an input is never read twice */
    int loaded = s && s->path;
    if (loaded && s->sha256[0]) {
        json_object_set_new(j, "bytes", json_integer((json_int_t)s->file_bytes));
        json_object_set_new(j, "sha256", json_string(s->sha256));
    } else {
        json_object_set_new(j, "bytes", json_null());
        json_object_set_new(j, "sha256", json_null());
    }
    json_object_set_new(j, "format", loaded ? json_string(s->kind) : json_null());
    json_object_set_new(j, "records", loaded ? json_integer((json_int_t)s->n) : json_null());
    json_object_set_new(j, "bases", loaded ? json_integer((json_int_t)s->total) : json_null());
    /* every record's length in input order (the .name files give the names in the same
     * order): what `hspz report` needs to draw records and map minus-strand coordinates */
    json_t *rl = loaded ? json_array() : json_null();
    for (size_t i = 0; loaded && i < s->n; i++) json_array_append_new(rl, json_integer((json_int_t)s->len[i]));
    json_object_set_new(j, "record_lengths", rl);
    return j;
}

static json_t *config_json(const hz_opts *o)
{
    const hz_config *c = o->cfg;
    json_t *j = json_object(), *vals = json_object();
    json_t *file = json_null();
    if (c && c->config_path) {
        file = json_object();
        json_object_set_new(file, "path", json_string(c->config_path));
        json_object_set_new(file, "sha256", c->sha256[0] ? json_string(c->sha256) : json_null());
    }
    json_object_set_new(j, "file", file);
    for (int i = 0; i < hz_param_count(); i++) {
        const hz_param *p = hz_param_at(i);
        json_t *v = json_object(), *val;
        char buf[64];
        switch (hz_cfg_value_kind(o, i)) {
        case 1: val = jstr(*(const char *const *)((const char *)o + p->off)); break;
        case 2: val = json_boolean(hz_cfg_value_int(o, i)); break;
        case 3: val = json_integer((json_int_t)hz_cfg_value_int(o, i)); break;
        default: hz_cfg_value_text(o, i, buf, sizeof buf); val = json_string(buf); break;
        }
        json_object_set_new(v, "value", val);
        json_object_set_new(v, "source", json_string(hz_src_name(c ? (hz_src)c->src[i] : HZ_SRC_DEFAULT)));
        json_object_set_new(v, "section", json_string(p->section));
        json_object_set_new(vals, p->key, v);
    }
    json_object_set_new(j, "values", vals);
    return j;
}

int hz_manifest_write(const hz_manifest_info *mi, const char *path, const char *outdir,
                      char *err, size_t errlen)
{
    const hz_opts *o = mi->o;
    json_t *m = json_object();
    char tbuf[64];
    json_object_set_new(m, "manifest_version", json_integer(1));

    json_t *tool = json_object(), *build = json_object();
    json_object_set_new(tool, "name", json_string("hspz"));
    json_object_set_new(tool, "version", json_string(HSPZ_VERSION));
    json_object_set_new(tool, "git_commit", json_string(HSPZ_GIT_COMMIT));
    json_object_set_new(build, "build_type", json_string(HSPZ_BUILD_TYPE));
    json_object_set_new(build, "c_flags", json_string(HSPZ_C_FLAGS));
    json_object_set_new(build, "compiler", json_string(__VERSION__));
    json_object_set_new(build, "cuda", json_boolean(HSPZ_HAVE_CUDA));
    json_object_set_new(tool, "build", build);
    json_object_set_new(m, "tool", tool);

    json_t *run = json_object(), *argv = json_array();
    for (int i = 0; i < o->argc; i++) json_array_append_new(argv, json_string(o->argv[i]));
    json_object_set_new(run, "command_line", argv);
    json_object_set_new(run, "output_directory", jstr(o->outdir));
    iso_time(mi->start_time, tbuf, sizeof tbuf);
    json_object_set_new(run, "start_time", json_string(tbuf));
    iso_time(time(NULL), tbuf, sizeof tbuf);
    json_object_set_new(run, "end_time", json_string(tbuf));
    json_object_set_new(run, "status", json_string(mi->exit_status == 0 ? "completed" : "failed"));
    json_object_set_new(run, "exit_status", json_integer(mi->exit_status));
    json_object_set_new(run, "error", jstr(mi->error));
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    json_object_set_new(run, "hostname", json_string(host));
    json_object_set_new(run, "threads", json_integer(mi->threads));
    json_object_set_new(m, "run", run);

    json_t *hw = json_object();
    json_object_set_new(hw, "backend", json_string(mi->backend ? mi->backend : "cpu"));
#if HSPZ_HAVE_CUDA
    {
        int rt = 0, drv = 0;
        json_t *cu = json_object();
        cudaRuntimeGetVersion(&rt);
        cudaDriverGetVersion(&drv);
        json_object_set_new(cu, "runtime_version", json_integer(rt));
        json_object_set_new(cu, "driver_version", json_integer(drv));
        json_object_set_new(hw, "cuda", cu);
    }
#else
    json_object_set_new(hw, "cuda", json_null());
#endif
    json_object_set_new(m, "hardware", hw);

    json_object_set_new(m, "config", config_json(o));

    int nev;
    const hz_envvar *ev = hz_env_vars(&nev);
    json_t *env = json_object();
    for (int k = 0; k < nev; k++) json_object_set_new(env, ev[k].name, jstr(ev[k].value));
    json_object_set_new(m, "environment", env);

    json_t *ker = json_object();
    int gpu = mi->backend && strcmp(mi->backend, "cpu") != 0;
    const char *gate_env = NULL, *tile_env = NULL;
    for (int k = 0; k < nev; k++) {
        if (!strcmp(ev[k].name, "HSPZ_GATE")) gate_env = ev[k].value;
        if (!strcmp(ev[k].name, "HSPZ_GPU_TILE")) tile_env = ev[k].value;
    }
    json_object_set_new(ker, "backend", json_string(gpu ? "cuda" : "cpu"));
    json_object_set_new(ker, "seed_table", json_string(mi->device_table ? "device" : "host"));
    json_object_set_new(ker, "seeding", json_string(mi->device_seeding ? "device" : "host"));
    json_object_set_new(ker, "gate", json_string(gpu ? (gate_env && !strcmp(gate_env, "full") ? "full" : "score") : "cpu"));
    json_t *gr = mi->gpu_report ? json_loads(mi->gpu_report, 0, NULL) : NULL;
    {   /* choices the CUDA backend made (its report), else the CPU's */
        const char *gk = gr ? json_string_value(json_object_get(gr, "gate_kernel")) : NULL;
        json_int_t nb = gr ? json_integer_value(json_object_get(gr, "target_blocks_bucketed")) : 0;
        const char *rs = gr ? json_string_value(json_object_get(gr, "ref_buckets_setting")) : NULL;
        json_object_set_new(ker, "gate_kernel", json_string(gk ? gk : "cpu"));
        json_object_set_new(ker, "ref_buckets", json_string(nb > 0 ? "on" : "off"));
        json_object_set_new(ker, "ref_buckets_setting", json_string(rs ? rs : "off"));
    }
    json_object_set_new(ker, "gpu_tile", json_string(gpu ? (tile_env ? tile_env : "auto") : "none"));
    json_object_set_new(m, "kernels", ker);
    json_object_set_new(m, "gpu", gr ? gr : json_null());

    json_t *inputs = json_array();
    json_array_append_new(inputs, input_json("target", o->target, mi->t));
    json_array_append_new(inputs, input_json("query", o->query, mi->q));
    json_object_set_new(m, "inputs", inputs);
    if (mi->index_path) {   /* README "Target index" */
        json_t *ix = json_object();
        json_object_set_new(ix, "path", json_string(mi->index_path));
        json_object_set_new(ix, "sha256", json_string(mi->index_sha256 ? mi->index_sha256 : ""));
        json_object_set_new(m, "index", ix);
    }

    if (mi->have_plan) {
        json_t *pl = json_object();
        json_object_set_new(pl, "target_blocks", json_integer((json_int_t)mi->plan.target_blocks));
        json_object_set_new(pl, "query_blocks", json_integer((json_int_t)mi->plan.query_blocks));
        json_object_set_new(pl, "intervals", json_integer((json_int_t)mi->plan.intervals));
        json_object_set_new(pl, "work_units", json_integer((json_int_t)mi->plan.work_units));
        json_object_set_new(pl, "chunks", json_integer((json_int_t)mi->plan.chunks));
        json_object_set_new(m, "plan", pl);
    } else json_object_set_new(m, "plan", json_null());

    if (mi->unit_kind) {   /* docs/manifest.md "unit" */
        json_t *un = json_object(), *ids = json_array(), *dirs = json_array();
        json_object_set_new(un, "kind", json_string(mi->unit_kind));
        json_object_set_new(un, "plan", jstr(mi->plan_path));
        json_object_set_new(un, "plan_sha256", jstr(mi->plan_sha256));
        for (size_t i = 0; i < mi->n_units; i++)
            if (!mi->unit_sel || mi->unit_sel[i]) json_array_append_new(ids, json_integer((json_int_t)i + 1));
        json_object_set_new(un, "ids", ids);
        for (size_t i = 0; i < mi->n_unit_dirs; i++) json_array_append_new(dirs, json_string(mi->unit_dirs[i]));
        json_object_set_new(un, "unit_dirs", dirs);
        json_object_set_new(m, "unit", un);
    }

    const hz_funnel *f = &mi->funnel;
    json_t *fu = json_object();
    json_object_set_new(fu, "seeds", json_integer((json_int_t)f->seeds));
    json_object_set_new(fu, "anchors", json_integer((json_int_t)f->anchors));
    json_object_set_new(fu, "gate_survivors", json_integer((json_int_t)f->survivors));
    json_object_set_new(fu, "hsps_accepted", json_integer((json_int_t)f->accepted));
    json_object_set_new(fu, "hsps_after_dedup", json_integer((json_int_t)f->after_batch));
    json_object_set_new(fu, "segments_written", json_integer((json_int_t)f->written));
    json_object_set_new(fu, "long_anchors", json_integer((json_int_t)f->long_anchors));
    json_object_set_new(fu, "batches", json_integer((json_int_t)f->batches));
    json_object_set_new(m, "funnel", fu);

    json_t *ts = json_object();
    json_object_set_new(ts, "load", json_real(mi->t_load));
    json_object_set_new(ts, "plan", json_real(mi->t_plan));
    json_object_set_new(ts, "seedtable", json_real(mi->t_table));
    json_object_set_new(ts, "seeds", json_real(f->t_seed));
    json_object_set_new(ts, "anchors", json_real(f->t_anchor));
    json_object_set_new(ts, "gate", json_real(f->t_gate));
    json_object_set_new(ts, "extend", json_real(f->t_extend));
    json_object_set_new(ts, "dedup", json_real(f->t_dedup));
    json_object_set_new(ts, "output", json_real(mi->t_output));
    json_object_set_new(ts, "wall", json_real(mi->t_wall));
    json_object_set_new(m, "time_s", ts);

    json_t *outs = json_array();
    json_t *digest = json_null(), *nseg = json_null();
    if (outdir) {
        size_t nf;
        char **names = list_files(outdir, &nf);
        for (size_t i = 0; i < nf; i++) {
            char p[4096], hex[65];
            uint64_t b = 0, l = 0;
            snprintf(p, sizeof p, "%s/%s", outdir, names[i]);
            if (hz_sha256_file(p, hex, &b, &l)) continue;
            json_t *e = json_object();
            json_object_set_new(e, "name", json_string(names[i]));
            json_object_set_new(e, "bytes", json_integer((json_int_t)b));
            json_object_set_new(e, "lines", json_integer((json_int_t)l));
            json_object_set_new(e, "sha256", json_string(hex));
            json_array_append_new(outs, e);
        }
        free_list(names, nf);
        char hex[65];
        uint64_t nl = 0;
        if (hz_canonical_digest(outdir, hex, &nl, err, errlen)) { json_decref(m); json_decref(outs); return -1; }
        digest = json_string(hex);
        nseg = json_integer((json_int_t)nl);
    }
    json_object_set_new(m, "outputs", outs);
    json_object_set_new(m, "segment_lines", nseg);
    json_object_set_new(m, "canonical_digest_sha256", digest);

    size_t tl = strlen(path) + 32;
    char *tmp = malloc(tl);
    snprintf(tmp, tl, "%s.tmp-%ld", path, (long)getpid());
    int rc = -1;
    FILE *fp = fopen(tmp, "wb");
    if (!fp) { snprintf(err, errlen, "%s: cannot create: %s", tmp, strerror(errno)); goto out; }
    int wr = json_dumpf(m, fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
    wr |= fputc('\n', fp) == EOF;
    if (fflush(fp) || fsync(fileno(fp)) || wr) { fclose(fp); unlink(tmp); snprintf(err, errlen, "%s: write failed: %s", tmp, strerror(errno)); goto out; }
    if (fclose(fp)) { unlink(tmp); snprintf(err, errlen, "%s: write failed: %s", tmp, strerror(errno)); goto out; }
    if (rename(tmp, path)) { unlink(tmp); snprintf(err, errlen, "%s: cannot rename %s to it: %s", path, tmp, strerror(errno)); goto out; }
    rc = 0;
out:
    free(tmp);
    json_decref(m);
    return rc;
}

char *hz_failed_manifest_path(const char *outdir)
{
    if (!outdir || !outdir[0]) return NULL;
    size_t n = strlen(outdir);
    while (n > 1 && outdir[n - 1] == '/') n--;
    char *p = malloc(n + 32);
    if (p) snprintf(p, n + 32, "%.*s.failed-manifest.json", (int)n, outdir);
    return p;
}
