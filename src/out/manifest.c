/* manifest — provenance JSON of a run (see manifest.h, docs/manifest.md). */
#include "outsafe.h"
#include "manifest.h"
#include "env.h"
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
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

/* ---- the output folder (the canonical digest: digest.c) --------------------------------- */
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

/* ---- outputs: every file hashed, several at a time ------------------------------------ */
typedef struct {
    const char *dir; char **names; size_t n, next;
    char (*hex)[65]; uint64_t *bytes, *lines; int *ok;
    pthread_mutex_t mu;
} hashjob;

static void *hash_main(void *arg)
{
    hashjob *h = arg;
    for (;;) {
        pthread_mutex_lock(&h->mu);
        size_t i = h->next++;
        pthread_mutex_unlock(&h->mu);
        if (i >= h->n) return NULL;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", h->dir, h->names[i]);
        h->ok[i] = hz_sha256_file(p, h->hex[i], &h->bytes[i], &h->lines[i]) == 0;
    }
}

/* outs gets {name, bytes, lines, sha256} of every regular file of dir but the manifest, by
 * name; threads files are hashed at a time.  Returns 0, or -1 with err (dir unreadable, out
 * of memory). */
static int outputs_json(const char *dir, int threads, json_t *outs, char *err, size_t errlen)
{
    hashjob h = { dir, NULL, 0, 0, NULL, NULL, NULL, NULL, PTHREAD_MUTEX_INITIALIZER };
    errno = 0;
    h.names = list_files(dir, &h.n);
    if (!h.names) {
        snprintf(err, errlen, "%s: cannot list the outputs: %s", dir, errno ? strerror(errno) : "out of memory");
        return -1;
    }
    h.hex = malloc((h.n ? h.n : 1) * sizeof *h.hex);
    h.bytes = calloc(h.n ? h.n : 1, sizeof *h.bytes); h.lines = calloc(h.n ? h.n : 1, sizeof *h.lines);
    h.ok = calloc(h.n ? h.n : 1, sizeof *h.ok);
    int rc = -1;
    if (h.hex && h.bytes && h.lines && h.ok) {
        pthread_t th[64];
        int nt = threads < 64 ? threads : 64, started = 0;
        if ((size_t)nt > h.n) nt = (int)h.n;
        for (int t = 1; t < nt; t++) if (!pthread_create(&th[started], NULL, hash_main, &h)) started++;
        hash_main(&h);
        for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
        for (size_t i = 0; i < h.n; i++) {
            if (!h.ok[i]) continue;
            json_t *e = json_object();
            json_object_set_new(e, "name", json_string(h.names[i]));
            json_object_set_new(e, "bytes", json_integer((json_int_t)h.bytes[i]));
            json_object_set_new(e, "lines", json_integer((json_int_t)h.lines[i]));
            json_object_set_new(e, "sha256", json_string(h.hex[i]));
            json_array_append_new(outs, e);
        }
        rc = 0;
    }
    free(h.hex); free(h.bytes); free(h.lines); free(h.ok);
    free_list(h.names, h.n);
    if (rc) snprintf(err, errlen, "out of memory listing the outputs of %s", dir);
    return rc;
}

/* outputs_json on a thread of its own */
typedef struct { const char *dir; int threads; json_t *outs; int rc; double secs; char err[1024]; } outjob;

static void *outputs_main(void *arg)
{
    outjob *j = arg;
    double t0 = hz_now();
    j->rc = outputs_json(j->dir, j->threads, j->outs, j->err, sizeof j->err);
    j->secs = hz_now() - t0;
    return NULL;
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

/* tool: name, version, commit and how it was built */
static json_t *tool_json(void)
{
    json_t *tool = json_object(), *build = json_object();
    json_object_set_new(tool, "name", json_string("hspz"));
    json_object_set_new(tool, "version", json_string(HSPZ_VERSION));
    json_object_set_new(tool, "git_commit", json_string(HSPZ_GIT_COMMIT));
    json_object_set_new(build, "build_type", json_string(HSPZ_BUILD_TYPE));
    json_object_set_new(build, "c_flags", json_string(HSPZ_C_FLAGS));
    json_object_set_new(build, "compiler", json_string(__VERSION__));
    json_object_set_new(build, "cuda", json_boolean(HSPZ_HAVE_CUDA));
    json_object_set_new(build, "gzip", json_string(HSPZ_GZIP));
    json_object_set_new(tool, "build", build);
    return tool;
}

/* run: command line, output folder, times, status, host, threads */
static json_t *run_json(const hz_manifest_info *mi)
{
    const hz_opts *o = mi->o;
    char tbuf[64];
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
    /* --no-hostname: a service (Galaxy) shows the manifest to users who must not see its hosts */
    json_object_set_new(run, "hostname", o->no_hostname ? json_null() : json_string(host));
    json_object_set_new(run, "threads", json_integer(mi->threads));
    return run;
}

static json_t *hardware_json(const hz_manifest_info *mi)
{
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
    return hw;
}

/* environment (the HSPZ_* variables, env.h), kernels (what the backend chose) and gpu (the
 * CUDA backend's report, or null) into m */
static void kernels_json(const hz_manifest_info *mi, json_t *m)
{
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
}

/* inputs, index (docs/scale-out.md "Target index"), plan and unit into m */
static void work_json(const hz_manifest_info *mi, json_t *m)
{
    const hz_opts *o = mi->o;
    json_t *inputs = json_array();
    json_array_append_new(inputs, input_json("target", o->target, mi->t));
    json_array_append_new(inputs, input_json("query", o->query, mi->q));
    json_object_set_new(m, "inputs", inputs);
    if (mi->index_path) {
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
}

/* funnel and time_s into m */
static void funnel_json(const hz_manifest_info *mi, json_t *m)
{
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
    if (mi->gapped_done) json_object_set_new(ts, "gapped", json_real(mi->t_gapped));
    json_object_set_new(ts, "wall", json_real(mi->t_wall));
    json_object_set_new(m, "time_s", ts);
    if (mi->gapped_done) {   /* --gapped (docs/manifest.md "gapped"): the files are in outputs */
        json_t *g = json_object();
        json_object_set_new(g, "commands", json_integer((json_int_t)mi->gapped_commands));
        json_object_set_new(g, "threads", json_integer(mi->gapped_threads));
        json_object_set_new(g, "engine", json_string("hspz gapped (LASTZ 1.04.22's gapped stage)"));
        json_t *gf = json_array();
        for (size_t i = 0; i < mi->n_gapped_files; i++) json_array_append_new(gf, json_string(mi->gapped_files[i]));
        json_object_set_new(g, "files", gf);
        json_object_set_new(m, "gapped", g);
    }
}

/* outputs, segment_lines, diagonal_partition_auto_n and canonical_digest_sha256 into m: every
 * file of outdir hashed on a helper thread while the canonical digest runs (or null without
 * outdir).  0, or -1 with err. */
static int outputs_digest_json(const hz_manifest_info *mi, const char *outdir, json_t *m, char *err, size_t errlen)
{
    json_t *outs = json_array();
    json_t *digest = json_null(), *nseg = json_null();
    if (outdir) {
        int nt = mi->threads > 0 ? mi->threads : 1;
        /* the files' hashes on a helper thread while the canonical digest runs: the digest's
         * last stage hashes one sorted stream and leaves most cores idle */
        outjob oj = { outdir, nt, outs, 0, 0.0, "" };
        pthread_t th;
        double t0 = hz_now();
        int threaded = pthread_create(&th, NULL, outputs_main, &oj) == 0;
        if (!threaded) outputs_main(&oj);
        char hex[65];
        uint64_t nl = 0;
        hz_dg_times dt;
        memset(&dt, 0, sizeof dt);
        int streamed = mi->digest_stream && !hz_dg_stream_finish(mi->digest_stream, hex, &nl, mi->trace ? &dt : NULL);
        int drc = streamed ? 0 : hz_canonical_digest(outdir, nt, hex, &nl, mi->trace ? &dt : NULL, err, errlen);
        double t1 = hz_now();
        if (threaded) pthread_join(th, NULL);
        if (!drc && oj.rc) snprintf(err, errlen, "%s", oj.err);
        if (drc || oj.rc) { json_decref(outs); return -1; }
        if (mi->trace)
            fprintf(stderr, "hspz: trace manifest: outputs hashed in %.4f s, canonical digest in %.4f s (at once); digest%s: "
                    "splitters %.4f, distribution %.4f, sort and hash %.4f (hashing thread: waits %.4f, sha256 %.4f)\n",
                    oj.secs, t1 - t0, streamed ? " (fed during the run)" : "", dt.splitters, dt.distribute, dt.sort_hash,
                    dt.hash_wait, dt.hash_update);
        digest = json_string(hex);
        nseg = json_integer((json_int_t)nl);
    }
    json_object_set_new(m, "outputs", outs);
    json_object_set_new(m, "segment_lines", nseg);
    if (mi->o->diagonal_partition == HZ_DIAG_AUTO && outdir)   /* what -D/-D auto chose (docs/manifest.md) */
        json_object_set_new(m, "diagonal_partition_auto_n", json_integer((json_int_t)mi->diag_auto_n));
    json_object_set_new(m, "canonical_digest_sha256", digest);
    return 0;
}

/* m as indented JSON at path, through path.tmp-<pid>-<token> (O_EXCL|O_NOFOLLOW), fsync'd;
 * replace: an existing file at path may be replaced.  0, or -1 with err. */
static int json_place(json_t *m, const char *path, int replace, char *err, size_t errlen)
{
    size_t tl = strlen(path) + 64;
    char *tmp = malloc(tl);
    int rc = -1;
    if (!tmp) { snprintf(err, errlen, "out of memory"); return -1; }
    FILE *fp = hz_out_fopen_tmp(path, tmp, tl);   /* O_EXCL|O_NOFOLLOW */
    if (!fp) { snprintf(err, errlen, "%s: cannot create: %s", tmp, strerror(errno)); goto out; }
    int wr = json_dumpf(m, fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
    wr |= fputc('\n', fp) == EOF;
    if (fflush(fp) || fsync(fileno(fp)) || wr) { fclose(fp); unlink(tmp); snprintf(err, errlen, "%s: write failed: %s", tmp, strerror(errno)); goto out; }
    if (fclose(fp)) { unlink(tmp); snprintf(err, errlen, "%s: write failed: %s", tmp, strerror(errno)); goto out; }
    if (hz_out_place(tmp, path, replace)) { unlink(tmp); snprintf(err, errlen, "%s: cannot put %s in place: %s", path, tmp, strerror(errno)); goto out; }
    rc = 0;
out:
    free(tmp);
    return rc;
}

int hz_manifest_write(const hz_manifest_info *mi, const char *path, const char *outdir,
                      char *err, size_t errlen)
{
    json_t *m = json_object();
    json_object_set_new(m, "manifest_version", json_integer(1));
    json_object_set_new(m, "tool", tool_json());
    json_object_set_new(m, "run", run_json(mi));
    json_object_set_new(m, "hardware", hardware_json(mi));
    json_object_set_new(m, "config", config_json(mi->o));
    kernels_json(mi, m);     /* environment, kernels, gpu */
    work_json(mi, m);        /* inputs, index, plan, unit */
    funnel_json(mi, m);      /* funnel, time_s */
    /* a failure manifest (outdir NULL) never replaces a file: this run did not create it */
    int rc = outputs_digest_json(mi, outdir, m, err, errlen) ? -1 : json_place(m, path, outdir != NULL, err, errlen);
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

int hz_failed_manifest_is_hspz(const char *path)
{
    struct stat st;
    if (!path || lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != getuid() || st.st_size > (64 << 20)) return 0;
    json_t *m = json_load_file(path, 0, NULL);
    const char *tool = json_string_value(json_object_get(json_object_get(m, "tool"), "name"));
    const char *status = json_string_value(json_object_get(json_object_get(m, "run"), "status"));
    int yes = tool && status && !strcmp(tool, "hspz") && !strcmp(status, "failed");
    json_decref(m);
    return yes;
}
