/* publish_force — what --force may replace: only a folder that is provably an hspz OUTDIR
 * (see publish.h hz_outdir_is_hspz; docs/cli.md "Errors, temporary files and publishing"). */
#include "publish.h"
#include "sha256.h"
#include "shquote.h"
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define QL_HEADER "job\tquery\tbytes\tsha256\trecords\tbases\tquery_blocks\tsegments\tfiles\n"

/* path as JSON when it is a regular file (not followed) of at most 64 MiB that parses, else NULL */
static json_t *load_reg_json(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (64 << 20)) return NULL;
    return json_load_file(path, 0, NULL);
}

/* 1 when m holds the fields every manifest hspz writes has (src/out/manifest.c,
 * src/run/gapped_outdir.c): manifest_version, tool.name "hspz", tool.version, outputs[].name */
static int hspz_manifest(const json_t *m)
{
    const json_t *tool = json_object_get(m, "tool"), *outs = json_object_get(m, "outputs");
    const char *name = json_string_value(json_object_get(tool, "name"));
    if (!json_is_integer(json_object_get(m, "manifest_version")) || !name || strcmp(name, "hspz") ||
        !json_is_string(json_object_get(tool, "version")) || !json_is_array(outs)) return 0;
    size_t i;
    const json_t *e;
    json_array_foreach(outs, i, e) if (!json_is_string(json_object_get(e, "name"))) return 0;
    return 1;
}

/* The manifest's outputs[] by name, as m's "hspz:names" (added here, never written): one
 * lookup per entry, however many files a run wrote.  0, or -1 out of memory. */
static int index_names(json_t *m)
{
    json_t *set = json_object();
    size_t i;
    json_t *e;
    if (!set) return -1;
    json_array_foreach(json_object_get(m, "outputs"), i, e)
        if (json_object_set(set, json_string_value(json_object_get(e, "name")), e)) { json_decref(set); return -1; }
    return json_object_set_new(m, "hspz:names", set);
}

/* m's outputs[] entry named nm (index_names ran; m may be NULL), or NULL */
static const json_t *listed(const json_t *m, const char *nm)
{
    return m ? json_object_get(json_object_get(m, "hspz:names"), nm) : NULL;
}

/* 1 when the file p holds what the manifest entry e records: its bytes and sha256
 * (docs/manifest.md outputs[]); 0 when it was changed since (or cannot be read) */
static int same_as_listed(const char *p, const json_t *e)
{
    json_t *b = json_object_get(e, "bytes");
    return json_is_integer(b) && hz_sha256_unchanged(p, (int64_t)json_integer_value(b), json_string_value(json_object_get(e, "sha256")));
}

/* The files the folder's own lastz command lines write (lastz-commands.txt when it is a listed
 * output; its content is checked against the manifest with the other entries): each line's
 * --output= and 2> file, as the keys of m's "hspz:lastz".  0, or -1 out of memory. */
static int index_lastz_outputs(json_t *m, const char *dir)
{
    json_t *set = json_object();
    char p[4400], *line = NULL, *av[64], *ef;
    size_t cap = 0;
    if (!set) return -1;
    snprintf(p, sizeof p, "%s/lastz-commands.txt", dir);
    struct stat st;
    FILE *f = listed(m, "lastz-commands.txt") && lstat(p, &st) == 0 && S_ISREG(st.st_mode) ? fopen(p, "r") : NULL;
    while (f && getline(&line, &cap, f) > 0) {
        int n = hz_sh_split(line, av, 63, &ef);
        for (int k = 1; k < n; k++)
            if (!strncmp(av[k], "--output=", 9)) json_object_set_new(set, av[k] + 9, json_true());
        if (n > 0 && ef) json_object_set_new(set, ef, json_true());
    }
    free(line);
    if (f) fclose(f);
    return json_object_set_new(m, "hspz:lastz", set);
}

/* 1 when nm is a file one of the folder's own lastz command lines writes (index_lastz_outputs ran) */
static int lastz_output(const json_t *m, const char *nm)
{
    return json_object_get(json_object_get(m, "hspz:lastz"), nm) != NULL;
}

/* hspz report's page: it begins with the page head hspz writes (src/out/report_html.c) */
static int report_page(const char *p)
{
    static const char head[] = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    static const char title[] = "<title>hspz report: ";
    char buf[512] = "";
    FILE *f = fopen(p, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = 0;
    return !strncmp(buf, head, sizeof head - 1) && strstr(buf, title) != NULL;
}

/* a PNG file (its 8-byte signature) */
static int png_file(const char *p)
{
    unsigned char b[8] = { 0 };
    FILE *f = fopen(p, "rb");
    size_t n = f ? fread(b, 1, 8, f) : 0;
    if (f) fclose(f);
    return n == 8 && !memcmp(b, "\x89PNG\r\n\x1a\n", 8);
}

/* 1 when dir/nm is something hspz writes into a run's OUTDIR whose manifest is m (g: the
 * folder's gapped-manifest.json when it is hspz's, else NULL), with the content it wrote: a
 * listed output must still have the bytes and sha256 its manifest records; 0 otherwise, with
 * *changed set when only the content differs */
static int run_entry_ok(const char *dir, const char *nm, const json_t *m, const json_t *g, int *changed)
{
    char p[4400];
    struct stat st;
    const json_t *e;
    snprintf(p, sizeof p, "%s/%s", dir, nm);
    *changed = 0;
    if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    if (!strcmp(nm, "manifest.json")) return 1;
    if (!strcmp(nm, "gapped-manifest.json")) return g != NULL;   /* hspz gapped --outdir's record */
    if ((e = listed(m, nm)) || (e = listed(g, nm))) return (*changed = !same_as_listed(p, e)) == 0;
    if (lastz_output(m, nm)) return 1;   /* written by the folder's own lastz command lines */
    /* hspz report's defaults: the page, and its dot plot beside a page of hspz's */
    if (!strcmp(nm, "report.html")) return report_page(p);
    if (!strcmp(nm, "report.png")) {
        char h[4400];
        snprintf(h, sizeof h, "%s/report.html", dir);
        return png_file(p) && report_page(h);
    }
    return 0;
}

/* The jobs queries.tsv (path) names (its first column, digits) as the keys of a JSON object,
 * or NULL (unreadable, out of memory, or a line that is not one hspz writes: the header, then
 * lines of 9 tab-separated fields whose first is the job's digits) */
static json_t *ql_jobs(const char *tsv)
{
    FILE *f = fopen(tsv, "r");
    json_t *jobs = f ? json_object() : NULL;
    char *line = NULL, id[64];
    size_t cap = 0;
    for (int first = 1; jobs && getline(&line, &cap, f) > 0; first = 0) {
        if (first) continue;                 /* the header (check_dir compared it) */
        size_t l = strspn(line, "0123456789"), tabs = 0;
        for (const char *c = line; *c; c++) tabs += *c == '\t';
        if (!l || l >= sizeof id || line[l] != '\t' || tabs != 8 || line[strlen(line) - 1] != '\n') {
            json_decref(jobs); jobs = NULL; break;
        }
        snprintf(id, sizeof id, "%.*s", (int)l, line);
        json_object_set_new(jobs, id, json_true());
    }
    free(line);
    if (f) fclose(f);
    return jobs;
}

static int ql_job(const json_t *jobs, const char *nm) { return json_object_get(jobs, nm) != NULL; }

/* 1 when tar (dir/<job>.tar.gz) can be the job's Galaxy tarball: the job's manifest records
 * --tarball, and the file is gzip data (its bytes are not recorded anywhere) */
static int job_tarball(const char *dir, const char *job, const char *tar)
{
    char mp[4400];
    unsigned char b[2] = { 0 };
    snprintf(mp, sizeof mp, "%s/%s/manifest.json", dir, job);
    json_t *m = load_reg_json(mp);
    const json_t *t = json_object_get(json_object_get(json_object_get(json_object_get(m, "config"), "values"), "tarball"), "value");
    int on = m && hspz_manifest(m) && json_is_string(t);
    json_decref(m);
    FILE *f = on ? fopen(tar, "rb") : NULL;
    size_t n = f ? fread(b, 1, 2, f) : 0;
    if (f) fclose(f);
    return n == 2 && b[0] == 0x1f && b[1] == 0x8b;
}

static int check_dir(const char *dir, const char *top, const char *prefix, char *err, size_t errlen);

/* 1 when dir/nm is something a query list writes into its OUTDIR (queries.tsv at tsv): the
 * file itself, a job's folder (an hspz OUTDIR: checked, -1 with err when not) or its
 * <job>.tar.gz; jobs: ql_jobs of that file */
static int ql_entry_ok(const char *dir, const char *top, const char *nm, const json_t *jobs, char *err, size_t errlen)
{
    char p[4400], job[256], pre[300];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, nm);
    if (lstat(p, &st) != 0) return 0;
    if (!strcmp(nm, "queries.tsv")) return S_ISREG(st.st_mode);
    size_t l = strlen(nm);
    if (S_ISDIR(st.st_mode) && ql_job(jobs, nm)) {
        snprintf(pre, sizeof pre, "%s/", nm);
        return check_dir(p, top, pre, err, errlen) == 0 ? 1 : -1;
    }
    if (!S_ISREG(st.st_mode) || l < 8 || l - 7 >= sizeof job || strcmp(nm + l - 7, ".tar.gz")) return 0;
    snprintf(job, sizeof job, "%.*s", (int)(l - 7), nm);
    return ql_job(jobs, job) && job_tarball(dir, job, p);
}

/* 0 when dir is an hspz OUTDIR (a run's, or with prefix "" a query list's), else -1 with err
 * naming top (OUTDIR as the user gave it) and the first foreign entry by name (prefix: dir's
 * place in top, "" or "<job>/") */
static int check_dir(const char *dir, const char *top0, const char *prefix, char *err, size_t errlen)
{
    int depth = prefix[0] != 0;
    char top[1100], pn[1100];              /* names in the one-line messages: control bytes as \xHH */
    hz_printable(top0, 1000, top, sizeof top);
    char mp[4400], tsv[4400];
    snprintf(mp, sizeof mp, "%s/manifest.json", dir);
    snprintf(tsv, sizeof tsv, "%s/queries.tsv", dir);
    json_t *m = load_reg_json(mp);
    int is_run = m && hspz_manifest(m), is_ql = 0;
    if (!is_run && depth == 0) {
        FILE *f = fopen(tsv, "r");
        char head[256] = "";
        struct stat st;
        is_ql = lstat(tsv, &st) == 0 && S_ISREG(st.st_mode) && f && fgets(head, sizeof head, f) && !strcmp(head, QL_HEADER);
        if (f) fclose(f);
    }
    if (!is_run && !is_ql) {
        json_decref(m);
        struct stat st;
        if (lstat(mp, &st) != 0 && (depth || lstat(tsv, &st) != 0))
            snprintf(err, errlen, "%s: not an output folder of hspz (no %smanifest.json); --force replaces only a folder hspz wrote, nothing removed", top, prefix);
        else
            snprintf(err, errlen, "%s: not an output folder of hspz: '%s%s' is not one hspz wrote; --force replaces only a folder hspz wrote, nothing removed",
                     top, prefix, lstat(mp, &st) == 0 ? "manifest.json" : "queries.tsv");
        return -1;
    }
    json_t *jobs = is_ql ? ql_jobs(tsv) : NULL, *g = NULL;
    if (is_ql && !jobs) {
        snprintf(err, errlen, "%s: not an output folder of hspz: 'queries.tsv' holds lines hspz did not write; --force replaces only a folder hspz wrote, nothing removed", top);
        return -1;
    }
    if (is_run) {                 /* hspz gapped --outdir's record of the files it wrote */
        char gp[4400];
        snprintf(gp, sizeof gp, "%s/gapped-manifest.json", dir);
        g = load_reg_json(gp);
        if (g && (!hspz_manifest(g) || index_names(g))) { json_decref(g); g = NULL; }
    }
    struct dirent **ents = NULL;
    int n = (is_run ? index_names(m) || index_lastz_outputs(m, dir) : !jobs) ? -1 : scandir(dir, &ents, NULL, alphasort), rc = 0;
    if (n < 0) {
        json_decref(m); json_decref(jobs); json_decref(g);
        snprintf(err, errlen, "%s: cannot list %s; --force replaces only a folder hspz wrote", top, prefix[0] ? prefix : "it");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        const char *nm = ents[i]->d_name;
        if (rc || !strcmp(nm, ".") || !strcmp(nm, "..") || !strncmp(nm, ".hspz.tmp-", 10)) continue;   /* hidden temporaries of hspz runs */
        int changed = 0;
        int ok = is_run ? run_entry_ok(dir, nm, m, g, &changed) : ql_entry_ok(dir, top0, nm, jobs, err, errlen);
        hz_printable(nm, 1000, pn, sizeof pn);
        if (ok < 0) rc = -1;   /* a job folder's own message */
        else if (changed) {
            snprintf(err, errlen, "%s: '%s%s' was changed since hspz wrote it (its bytes are not those its manifest records); --force replaces only what hspz wrote, nothing removed",
                     top, prefix, pn);
            rc = -1;
        }
        else if (!ok) {
            snprintf(err, errlen, "%s: not an output folder of hspz: '%s%s' is not a file hspz wrote there; --force replaces only a folder hspz wrote, nothing removed",
                     top, prefix, pn);
            rc = -1;
        }
    }
    for (int i = 0; i < n; i++) free(ents[i]);
    free(ents);
    json_decref(m);
    json_decref(jobs);
    json_decref(g);
    return rc;
}

int hz_outdir_is_hspz(const char *outdir, char *err, size_t errlen)
{
    return check_dir(outdir, outdir, "", err, errlen);
}
