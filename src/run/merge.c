/* merge — unit folders of one plan -> the OUTDIR of one run (see merge.h). */
#include "merge.h"
#include "config.h"
#include "manifest.h"
#include "package.h"
#include "plan.h"
#include "publish.h"
#include "report.h"
#include "segments.h"
#include "seqio.h"
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct { char *dir, *name; } seg_file;

typedef struct {
    seg_file *f; size_t n, cap;
    hz_funnel funnel;
} unit_files;

static int push_file(unit_files *u, const char *dir, const char *name)
{
    if (u->n == u->cap) {
        size_t nc = u->cap ? 2 * u->cap : 64;
        seg_file *v = realloc(u->f, nc * sizeof *v);
        if (!v) return -1;
        u->f = v; u->cap = nc;
    }
    u->f[u->n].dir = strdup(dir); u->f[u->n].name = strdup(name);
    return u->f[u->n++].name ? 0 : -1;
}

static uint64_t jint(json_t *o, const char *k) { return (uint64_t)json_integer_value(json_object_get(o, k)); }

/* Read dir/manifest.json: a completed unit run of this plan and version; mark its units in
 * owner[] (refusing one already owned), check every listed segments file, add the funnel. */
static int read_unit_dir(const hz_unitplan *p, const char *dir, size_t di, char *const *dirs, size_t *owner,
                         unit_files *uf, char *err, size_t errlen)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    json_error_t je;
    json_t *m = json_load_file(path, 0, &je);
    if (!m) { snprintf(err, errlen, "%s: not a unit folder (no readable manifest.json: %s)", dir, je.text); return -1; }
    int rc = -1;
    json_t *un = json_object_get(m, "unit"), *tool = json_object_get(m, "tool"), *run = json_object_get(m, "run");
    const char *kind = json_string_value(json_object_get(un, "kind"));
    const char *ver = json_string_value(json_object_get(tool, "version"));
    const char *st = json_string_value(json_object_get(run, "status"));
    const char *psha = json_string_value(json_object_get(un, "plan_sha256"));
    if (!kind || strcmp(kind, "unit")) { snprintf(err, errlen, "%s: not a unit folder (its manifest is not of hspz run --plan --unit)", dir); goto out; }
    if (!ver || strcmp(ver, p->version) || strcmp(ver, HSPZ_VERSION)) {
        snprintf(err, errlen, "%s: made by hspz %s; the plan %s is of hspz %s and this is hspz %s", dir, ver ? ver : "?", p->path, p->version, HSPZ_VERSION);
        goto out;
    }
    if (!st || strcmp(st, "completed")) { snprintf(err, errlen, "%s: the unit run did not complete", dir); goto out; }
    if (!psha || strcmp(psha, p->sha256)) {
        snprintf(err, errlen, "%s: made from another plan (sha256 %.12s..., %s is %.12s...)", dir, psha ? psha : "?", p->path, p->sha256);
        goto out;
    }
    json_t *ids = json_object_get(un, "ids");
    size_t i; json_t *v;
    json_array_foreach(ids, i, v) {
        json_int_t id = json_integer_value(v);
        if (id < 1 || (size_t)id > p->n) { snprintf(err, errlen, "%s: unit %lld is not in the plan %s (1..%zu)", dir, (long long)id, p->path, p->n); goto out; }
        if (owner[id - 1] != SIZE_MAX) {
            snprintf(err, errlen, "unit %lld is in two folders: %s and %s", (long long)id, dirs[owner[id - 1]], dir); goto out;
        }
        owner[id - 1] = di;
    }
    json_t *outs = json_object_get(m, "outputs");
    json_array_foreach(outs, i, v) {
        const char *name = json_string_value(json_object_get(v, "name")), *sha = json_string_value(json_object_get(v, "sha256"));
        size_t nl = name ? strlen(name) : 0;
        if (!name || nl < 9 || strcmp(name + nl - 9, ".segments")) continue;
        char fp[PATH_MAX + 32], hex[65];
        uint64_t bytes = 0;
        snprintf(fp, sizeof fp, "%s/%s", dir, name);
        if (hz_sha256_file(fp, hex, &bytes, NULL)) { snprintf(err, errlen, "%s: listed in %s but missing: %s", fp, path, strerror(errno)); goto out; }
        if (!sha || strcmp(sha, hex) || bytes != jint(v, "bytes")) {
            snprintf(err, errlen, "%s: not the file its unit manifest lists (%llu bytes, sha256 %.12s...; listed: %llu bytes, %.12s...): truncated or changed?",
                     fp, (unsigned long long)bytes, hex, (unsigned long long)jint(v, "bytes"), sha ? sha : "?");
            goto out;
        }
        if (push_file(uf, dir, name)) { snprintf(err, errlen, "out of memory"); goto out; }
    }
    json_t *f = json_object_get(m, "funnel");
    hz_funnel x = { jint(f, "seeds"), jint(f, "anchors"), jint(f, "gate_survivors"), jint(f, "hsps_accepted"),
                    jint(f, "hsps_after_dedup"), jint(f, "segments_written"), jint(f, "batches"), jint(f, "long_anchors"),
                    0, 0, 0, 0, 0 };
    hz_funnel_add(&uf->funnel, &x);
    rc = 0;
out:
    json_decref(m);
    return rc;
}

static int copy_file(const char *src, const char *dst, char *err, size_t errlen)
{
    FILE *in = fopen(src, "rb"), *out = in ? fopen(dst, "wb") : NULL;
    if (!in || !out) {
        snprintf(err, errlen, "%s: cannot %s: %s", in ? dst : src, in ? "create" : "open", strerror(errno));
        if (in) fclose(in);
        return -1;
    }
    char buf[1 << 16];
    size_t n;
    int bad = 0;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) if (fwrite(buf, 1, n, out) != n) { bad = 1; break; }
    bad |= ferror(in);
    fclose(in);
    if (fclose(out) != 0) bad = 1;
    if (bad) { snprintf(err, errlen, "%s: write failed: %s", dst, strerror(errno)); return -1; }
    return 0;
}

/* The lastz command of a segments file, from its name tmp<k>.block<q>.r<offset>.<strand>. */
static int command_of(const hz_opts *o, const hz_side *t, const char *name, hz_cmd *c, char *err, size_t errlen)
{
    size_t k, q; unsigned long long off; char strand[8] = ""; int used = 0;
    char base[PATH_MAX];
    snprintf(base, sizeof base, "%.*s", (int)(strlen(name) - 9), name);
    if (sscanf(base, "tmp%zu.block%zu.r%llu.%7[a-z]%n", &k, &q, &off, strand, &used) != 4 || base[used] ||
        (strcmp(strand, "plus") && strcmp(strand, "minus"))) {
        snprintf(err, errlen, "%s: not a segments file name of hspz", name); return -1;
    }
    size_t r = SIZE_MAX;
    for (size_t i = 0; i < t->n_block; i++) if (t->block[i].start == off) r = i;
    if (r == SIZE_MAX) { snprintf(err, errlen, "%s: no target block starts at %llu", name, off); return -1; }
    *c = (hz_cmd){ strcmp(strand, "minus") == 0, k, q, off, hz_lastz_command(o, base, r, q, strcmp(strand, "minus") == 0) };
    if (!c->line) { snprintf(err, errlen, "out of memory"); return -1; }
    return 0;
}

/* OUTDIR is not a unit folder, holds none and is not inside one (merging never writes into
 * an input). */
static int check_not_unit_dir(const hz_opts *o, char *const *dirs, size_t n, char *err, size_t errlen)
{
    char out[PATH_MAX], par[PATH_MAX];
    hz_parent_dir(o->outdir, par, sizeof par);
    if (realpath(par, out)) {   /* OUTDIR's parent inside a unit folder */
        size_t pl = strlen(out);
        for (size_t i = 0; i < n; i++) {
            char d[PATH_MAX];
            if (!realpath(dirs[i], d)) continue;
            size_t dl = strlen(d);
            if (!strncmp(out, d, dl) && (out[dl] == 0 || out[dl] == '/') && pl >= dl) {
                snprintf(err, errlen, "%s: inside the unit folder %s; name an output folder outside it", o->outdir, dirs[i]);
                return -1;
            }
        }
    }
    if (!realpath(o->outdir, out)) return 0;   /* does not exist yet */
    size_t ol = strlen(out);
    for (size_t i = 0; i < n; i++) {
        char d[PATH_MAX];
        if (!realpath(dirs[i], d)) continue;
        if (!strncmp(d, out, ol) && (d[ol] == 0 || d[ol] == '/')) {
            snprintf(err, errlen, "%s: the unit folder %s %s; name a new output folder", o->outdir, dirs[i],
                     d[ol] ? "is inside it" : "is this folder");
            return -1;
        }
    }
    return 0;
}

int hz_merge(const hz_opts *o, const hz_unitplan *p, char *const *dirs, size_t ndirs)
{
    char err[2048] = "";
    int status = 1;
    double t0 = (double)time(NULL);
    hz_sigwatch sigw;
    hz_sigwatch_start(&sigw);
    hz_seqset ts = {0}, qs = {0};
    hz_side tside = {0}, qside = {0};
    unit_files uf = {0};
    hz_cmd *cmds = NULL; size_t ncmd = 0;
    char *tmpdir = NULL, *tarpath = NULL;   /* the tarball beside OUTDIR (package.h), passed to publish */
    hz_shape sh;
    hz_manifest_info mi = { .o = o, .t = &ts, .q = &qs, .start_time = time(NULL),
                            .unit_kind = "merge", .plan_path = p->path, .plan_sha256 = p->sha256,
                            .n_units = p->n, .unit_dirs = dirs, .n_unit_dirs = ndirs, .backend = "cpu",
                            .threads = o->threads > 0 ? o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN) };   /* the digest's */
    size_t *owner = malloc((p->n ? p->n : 1) * sizeof *owner);
    if (!owner) { snprintf(err, sizeof err, "out of memory"); goto done; }
    /* OUTDIR's own rules before the unit folders and the genomes are read (they take a while);
     * all of them again below, just before use */
    if (hz_check_outdir(o, err, sizeof err)) goto done;
    for (size_t i = 0; i < p->n; i++) owner[i] = SIZE_MAX;
    for (size_t d = 0; d < ndirs; d++)
        if (read_unit_dir(p, dirs[d], d, dirs, owner, &uf, err, sizeof err)) goto done;
    {   /* every unit once */
        size_t missing = 0, first = 0;
        for (size_t i = 0; i < p->n; i++) if (owner[i] == SIZE_MAX) { if (!missing++) first = i + 1; }
        if (missing) {
            snprintf(err, sizeof err, "%zu of the %zu units of %s are missing (the first: unit %zu); run them with hspz run --plan %s --unit ...",
                     missing, p->n, p->path, first, p->path);
            goto done;
        }
    }
    if (hz_unitplan_check_inputs(p, o, err, sizeof err)) goto done;
    if (hz_shape_parse(o->seed, o->transition, &sh, err, sizeof err)) goto done;
    if (hz_seqset_load(o->target, &ts, err, sizeof err) || hz_seqset_load(o->query, &qs, err, sizeof err)) goto done;
    if (hz_side_plan(&tside, &ts, o->seq_block_size, o->target_prefix, err, sizeof err) ||
        hz_side_plan(&qside, &qs, o->seq_block_size, o->query_prefix, err, sizeof err)) goto done;
    if (hz_unitplan_check_cover(p, o, &tside, &qside, (uint32_t)sh.span, err, sizeof err)) goto done;
    if (check_not_unit_dir(o, dirs, ndirs, err, sizeof err) || hz_check_outdir(o, err, sizeof err)) goto done;
    if (o->tarball && !(tarpath = hz_package_tarball_path(o))) { snprintf(err, sizeof err, "out of memory"); goto done; }
    if (!(tmpdir = hz_tmpdir_make(o, tarpath, &sigw, err, sizeof err))) goto done;
    if (hz_side_write_names(&tside, tmpdir, "ref", err, sizeof err) || hz_side_write_names(&qside, tmpdir, "query", err, sizeof err)) goto done;
    cmds = calloc(uf.n ? uf.n : 1, sizeof *cmds);
    if (!cmds) { snprintf(err, sizeof err, "out of memory"); goto done; }
    for (size_t i = 0; i < uf.n; i++) {
        char src[PATH_MAX + 32], dst[PATH_MAX + 32];
        snprintf(src, sizeof src, "%s/%s", uf.f[i].dir, uf.f[i].name);
        snprintf(dst, sizeof dst, "%s/%s", tmpdir, uf.f[i].name);
        struct stat st;
        if (stat(dst, &st) == 0) { snprintf(err, sizeof err, "%s: %s is in two unit folders", src, uf.f[i].name); goto done; }
        if (copy_file(src, dst, err, sizeof err)) goto done;
        if (command_of(o, &tside, uf.f[i].name, &cmds[ncmd], err, sizeof err)) goto done;
        ncmd++;
    }
    if (hz_commands_write(o, tmpdir, cmds, ncmd, err, sizeof err)) goto done;
    size_t nfiles = ncmd;   /* -D: the files after the split (issue 31) */
    if (hz_package(o, tmpdir, &tside, &qside, &nfiles, &mi.diag_auto_n, &sigw.lock, err, sizeof err)) goto done;
    mi.funnel = uf.funnel;
    mi.have_plan = 1;
    hz_plan_count(&tside, &qside, (unsigned)sh.span, o, &mi.plan);
    mi.t_wall = (double)time(NULL) - t0;
    {
        char mp[PATH_MAX + 32];
        snprintf(mp, sizeof mp, "%s/manifest.json", tmpdir);
        if (hz_manifest_write(&mi, mp, tmpdir, err, sizeof err)) goto done;
    }
    if (o->report && hz_report_dir(tmpdir, err, sizeof err)) goto done;   /* a plan with report: true (report.h) */
    if (hz_publish(o, tmpdir, tarpath, &sigw, err, sizeof err)) goto done;
    free(tmpdir); tmpdir = NULL;
    if (!o->quiet)
        fprintf(stderr, "hspz: merge: %zu units from %zu folders; wrote %llu segments in %zu files to %s\n",
                p->n, ndirs, (unsigned long long)uf.funnel.written, nfiles, o->outdir);
    status = 0;
done:
    if (status) {
        hz_publish_abort(&sigw);   /* first: an interrupt in progress prints the only line */
        fprintf(stderr, "hspz: %s\n", err[0] ? err : "failed");
    }
    hz_sigwatch_stop(&sigw);
    free(tmpdir); free(tarpath); free(owner);
    for (size_t i = 0; i < ncmd; i++) free(cmds[i].line);
    free(cmds);
    for (size_t i = 0; i < uf.n; i++) { free(uf.f[i].dir); free(uf.f[i].name); }
    free(uf.f);
    hz_side_free(&tside); hz_side_free(&qside);
    hz_seqset_free(&ts); hz_seqset_free(&qs);
    return status;
}
