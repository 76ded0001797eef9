/* gapped_run — `hspz run --gapped` (gapped_run.h, docs/gapped.md). */
#include "gapped_run.h"
#include "manifest.h"
#include "outsafe.h"
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int hz_gapped_precheck(const hz_opts *o, char *err, size_t errlen)
{
    if (!o->gapped) return 0;
    const char *f = o->format;
    if (o->nogapped) snprintf(err, errlen, "--gapped runs the lastz commands, which --nogapped turns off");
    else if (o->segments_archive) snprintf(err, errlen, "--gapped writes its alignments into OUTDIR, which -Z does not write (use --tarball for a package)");
    else if (strcmp(f, "maf-") && strcmp(f, "maf") && strcmp(f, "axt") && strcmp(f, "axt+"))
        snprintf(err, errlen, "--gapped: --format=%s is not written by hspz gapped (maf-, maf, axt, axt+ are); run lastz on lastz-commands.txt for it", f);
    else if (o->inner > 0 && o->ambiguous && o->ambiguous[0])
        snprintf(err, errlen, "--gapped: --ambiguous together with --inner is not built in hspz gapped yet; run lastz on lastz-commands.txt for it");
    else return 0;
    return 2;
}

/* a view of s whose names carry prefix (the names the run's .name files and 2bit files hold);
 * data and lengths are shared, only the name array is new (free with view_free) */
static int view_make(const hz_seqset *s, const char *prefix, hz_seqset *v)
{
    *v = *s;
    v->name = calloc(s->n + 1, sizeof *v->name);
    if (!v->name) return -1;
    size_t pl = strlen(prefix);
    for (size_t i = 0; i < s->n; i++) {
        size_t l = strlen(s->name[i]);
        if (!(v->name[i] = malloc(pl + l + 1))) return -1;
        memcpy(v->name[i], prefix, pl); memcpy(v->name[i] + pl, s->name[i], l + 1);
    }
    return 0;
}

static void view_free(hz_seqset *v)
{
    for (size_t i = 0; v->name && i < v->n; i++) free(v->name[i]);
    free(v->name);
    memset(v, 0, sizeof *v);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int hz_gapped_run(const hz_opts *o, const char *dir, const hz_seqset *t, const hz_seqset *q, int threads,
                  hz_gapped_files *files, double *secs, char *err, size_t errlen)
{
    double t0 = now_s();
    hz_seqset tv, qv;
    memset(&tv, 0, sizeof tv); memset(&qv, 0, sizeof qv);
    memset(files, 0, sizeof *files);
    int rc = 0;
    if (view_make(t, o->target_prefix ? o->target_prefix : "", &tv) || view_make(q, o->query_prefix ? o->query_prefix : "", &qv)) {
        snprintf(err, errlen, "out of memory for the gapped stage's record names");
        rc = -1;
    } else if (hz_gapped_outdir_run(dir, &tv, &qv, threads > 0 ? threads : 1, NULL, 0, files, err, errlen)) rc = -1;
    view_free(&tv); view_free(&qv);
    *secs = now_s() - t0;
    return rc;
}

void hz_gapped_files_free(hz_gapped_files *f)
{
    for (size_t i = 0; f->name && i < f->n; i++) free(f->name[i]);
    free(f->name);
    memset(f, 0, sizeof *f);
}

static json_t *jsetting(json_t *v, const char *source)
{
    json_t *s = json_object();
    json_object_set_new(s, "value", v);
    json_object_set_new(s, "source", json_string(source));
    return s;
}

static json_t *jinput(const char *role, const hz_seqset *s)
{
    json_t *j = json_object();
    json_object_set_new(j, "role", json_string(role));
    json_object_set_new(j, "path", json_string(s->path ? s->path : ""));
    json_object_set_new(j, "bytes", json_integer((json_int_t)s->file_bytes));
    json_object_set_new(j, "sha256", s->sha256[0] ? json_string(s->sha256) : json_null());
    return j;
}

int hz_gapped_manifest_write(const char *dir, int argc, char **argv, const hz_seqset *t, const hz_seqset *q,
                             const char *tprefix, const char *qprefix, int threads, int threads_given, int force,
                             const hz_gapped_files *f, double t_load, double t_gapped, time_t start,
                             char *err, size_t errlen)
{
    json_t *m = json_object(), *tool = json_object(), *run = json_object(), *cl = json_array(), *in = json_array();
    json_t *set = json_object(), *outs = json_array(), *ts = json_object();
    json_object_set_new(m, "manifest_version", json_integer(1));
    json_object_set_new(m, "kind", json_string("hspz gapped --outdir"));
    json_object_set_new(tool, "name", json_string("hspz"));
    json_object_set_new(tool, "version", json_string(HSPZ_VERSION));
    json_object_set_new(tool, "git_commit", json_string(HSPZ_GIT_COMMIT));
    json_object_set_new(m, "tool", tool);
    json_array_append_new(cl, json_string("hspz"));
    for (int i = 0; i < argc; i++) json_array_append_new(cl, json_string(argv[i]));
    char tb[32];
    json_object_set_new(run, "command_line", cl);
    json_object_set_new(run, "output_directory", json_string(dir));
    strftime(tb, sizeof tb, "%Y-%m-%dT%H:%M:%SZ", gmtime(&start));
    json_object_set_new(run, "start_time", json_string(tb));
    time_t end = time(NULL);
    strftime(tb, sizeof tb, "%Y-%m-%dT%H:%M:%SZ", gmtime(&end));
    json_object_set_new(run, "end_time", json_string(tb));
    json_object_set_new(run, "status", json_string("completed"));
    json_object_set_new(m, "run", run);
    json_array_append_new(in, jinput("target", t));
    json_array_append_new(in, jinput("query", q));
    json_object_set_new(m, "inputs", in);
    json_object_set_new(set, "threads", jsetting(json_integer(threads), threads_given ? "flag" : "default"));
    json_object_set_new(set, "force", jsetting(json_boolean(force), force ? "flag" : "default"));
    json_object_set_new(set, "target_prefix", jsetting(json_string(tprefix ? tprefix : ""), "manifest.json"));
    json_object_set_new(set, "query_prefix", jsetting(json_string(qprefix ? qprefix : ""), "manifest.json"));
    json_object_set_new(m, "settings", set);
    json_object_set_new(m, "commands", json_integer((json_int_t)f->ncmd));
    int rc = 0;
    for (size_t i = 0; i < f->n && !rc; i++) {
        char p[4200], hex[65];
        uint64_t by = 0, li = 0;
        snprintf(p, sizeof p, "%s/%s", dir, f->name[i]);
        if (hz_sha256_file(p, hex, &by, &li)) { snprintf(err, errlen, "%s: cannot read it back: %s", p, strerror(errno)); rc = -1; break; }
        json_t *e = json_object();
        json_object_set_new(e, "name", json_string(f->name[i]));
        json_object_set_new(e, "bytes", json_integer((json_int_t)by));
        json_object_set_new(e, "lines", json_integer((json_int_t)li));
        json_object_set_new(e, "sha256", json_string(hex));
        json_array_append_new(outs, e);
    }
    json_object_set_new(m, "outputs", outs);
    json_object_set_new(ts, "load", json_real(t_load));
    json_object_set_new(ts, "gapped", json_real(t_gapped));
    json_object_set_new(ts, "wall", json_real(t_load + t_gapped));
    json_object_set_new(m, "time_s", ts);
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/gapped-manifest.json", dir);
    FILE *fp = rc ? NULL : hz_out_fopen_tmp(path, tmp, sizeof tmp);   /* O_EXCL|O_NOFOLLOW */
    if (!rc && !fp) { snprintf(err, errlen, "%s: cannot create a temporary file: %s", path, strerror(errno)); rc = -1; }
    if (fp) {
        int wr = json_dumpf(m, fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
        wr |= fputc('\n', fp) == EOF;
        if (fclose(fp) || wr) { snprintf(err, errlen, "%s: write failed: %s", tmp, strerror(errno)); rc = -1; }
        else if (hz_out_place(tmp, path, force)) {
            snprintf(err, errlen, "%s: %s (an existing one is replaced only with --force)", path, strerror(errno)); rc = -1;
        }
        if (rc) unlink(tmp);
    }
    json_decref(m);
    return rc;
}
