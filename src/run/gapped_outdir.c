/* gapped_outdir — `hspz gapped --outdir OUTDIR -r TARGET -q QUERY`: every line of
 * OUTDIR/lastz-commands.txt (hspz run's output folder) run as `hspz gapped` on worker
 * processes, after checking TARGET / QUERY against the sha256 OUTDIR/manifest.json records, and
 * its record gapped-manifest.json (docs/gapped.md, docs/manifest.md;
 * ../shared/spec/lastz-gapped-spec.md §12: independent files).  Also the stage of
 * `hspz run --gapped` (gapped_run.c). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "gapped_cmd.h"
#include "gapped_dev.h"
#include "gapped_run.h"
#include "manifest.h"
#include "outsafe.h"
#include "sha256.h"
#include "shquote.h"

static int die(const char *fmt, ...)
{
    va_list ap; va_start(ap, fmt);
    vfprintf(stderr, fmt, ap); va_end(ap);
    fputc('\n', stderr);
    return 1;
}

/* 1 when path stays inside the folder it is relative to: not absolute, no ".." component */
static int inside_dir(const char *path)
{
    if (path[0] == '/') return 0;
    for (const char *p = path; *p; ) {
        size_t l = strcspn(p, "/");
        if (l == 2 && p[0] == '.' && p[1] == '.') return 0;
        p += l; while (*p == '/') p++;
    }
    return 1;
}

/* why an output name of DIR (relative to the current folder) cannot be replaced, as one
 * message ending "; refused ...", or NULL when it is missing or (force) a regular file */
static const char *name_refused(const char *name, int force)
{
    struct stat st;
    if (lstat(name, &st)) return NULL;
    if (S_ISLNK(st.st_mode)) return "is a symbolic link; refused (hspz never writes through or replaces one)";
    if (S_ISDIR(st.st_mode)) return "is a folder; refused";
    if (!S_ISREG(st.st_mode)) return "is not a regular file; refused";
    return force ? NULL : "exists; refused without --force";
}

/* tbword: --allocate:traceback=V given to --outdir, appended to the line's words as lastz
 * would read it there (the last one given wins; the axt/maf header shows it last).
 * tmp[0] / tmp[1]: the temporaries (names in dir) the line's --output and 2> bytes go to;
 * the parent renames them into place when every line has finished. */
static int run_line(const char *dir, char *line, const hz_seqset *ts, const hz_seqset *qs, int lineno, int force, int threads,
                    const char *device, const char *tbword, int total, int *running, char *const tmp[2])
{
    char *av[64], *errfile;
    int n = hz_sh_split(line, av, 62, &errfile);
    if (n < 3 || strcmp(av[0], "lastz")) return 1 + die("hspz gapped: lastz-commands.txt line %d is not a lastz command hspz gapped can run", lineno);
    if (tbword) av[n++] = (char *)tbword;
    char cwd[4096];   /* where a relative --scores= is looked for (hz_gapped_run_line) */
    if (!getcwd(cwd, sizeof cwd)) cwd[0] = 0;
    /* the inputs by identity, from where the user named them (before chdir): a relative -r/-q
     * names a file of the user's folder, not of DIR */
    const char *in[2] = { ts->path, qs->path }, *out = NULL;
    for (int k = 1; k < n; k++) if (!strncmp(av[k], "--output=", 9)) out = av[k] + 9;
    for (int w = 0; w < 2; w++) {
        const char *nm = w ? errfile : out;
        char p[4200];
        if (!nm || snprintf(p, sizeof p, "%s/%s", dir, nm) >= (int)sizeof p) continue;
        for (int k = 0; k < 2; k++)
            if (hz_same_file(p, in[k])) return 1 + die("hspz gapped: %s/%s is an input of this command (%s); refused", dir, nm, in[k]);
    }
    if (chdir(dir)) return 1 + die("hspz gapped: %s: %s", dir, strerror(errno));
    for (int k = 1; k < n; k++)          /* hspz writes these files: only inside DIR (docs/gapped.md) */
        if (!strncmp(av[k], "--output=", 9) && !inside_dir(av[k] + 9))
            return 1 + die("hspz gapped: lastz-commands.txt line %d: --output=%s is outside %s; refused", lineno, av[k] + 9, dir);
    if (errfile) {
        if (!inside_dir(errfile)) return 1 + die("hspz gapped: lastz-commands.txt line %d: 2> %s is outside %s; refused", lineno, errfile, dir);
        const char *why = name_refused(errfile, force);
        if (why) return 1 + die("hspz gapped: %s/%s %s", dir, errfile, why);
        int fd = tmp[1] ? hz_out_create(tmp[1]) : -1;
        if (fd < 0 || dup2(fd, 2) < 0) return 1 + die("hspz gapped: %s/%s: %s", dir, tmp[1] ? tmp[1] : errfile, strerror(errno));
        close(fd);
    }
    int rc = hz_gapped_run_line(n, av, ts, qs, force, threads, device, cwd, total, running, tmp[0]);
    return rc && !errfile ? 2 : rc;
}

/* prefix every record name (hspz run's -T/-Q: the names its 2bit and name files hold) */
static int add_prefix(hz_seqset *s, const char *pre)
{
    size_t pl = strlen(pre);
    for (size_t i = 0; pl && i < s->n; i++) {
        size_t l = strlen(s->name[i]);
        char *nm = malloc(pl + l + 1);
        if (!nm) return die("hspz gapped: out of memory");
        memcpy(nm, pre, pl); memcpy(nm + pl, s->name[i], l + 1);
        free(s->name[i]); s->name[i] = nm;
    }
    return 0;
}

/* DIR/manifest.json (manifest.h): the -r / -q files must be the bytes the run read (inputs[]
 * sha256), and the run's target/query prefixes (config.values.*_prefix) are put on the names.
 * 1 with one line naming the file on a mismatch or an unreadable manifest. */
static int run_inputs(const char *dir, hz_seqset *ts, hz_seqset *qs, char **prefix)
{
    char mp[4096];
    snprintf(mp, sizeof mp, "%s/manifest.json", dir);
    json_error_t je;
    json_t *m = json_load_file(mp, 0, &je);
    if (!m) return die("hspz gapped: %s: cannot read the run's manifest (%s)", mp, je.text);
    hz_seqset *sv[2] = { ts, qs };
    const char *role[2] = { "target", "query" }, *opt[2] = { "-r", "-q" }, *pk[2] = { "target_prefix", "query_prefix" };
    int rc = 0;
    for (int w = 0; w < 2 && !rc; w++) {
        const char *want = NULL;
        size_t i; json_t *e;
        json_array_foreach(json_object_get(m, "inputs"), i, e)
            if (!strcmp(json_string_value(json_object_get(e, "role")) ? json_string_value(json_object_get(e, "role")) : "", role[w]))
                want = json_string_value(json_object_get(e, "sha256"));
        char hex[65]; uint64_t by, li;
        const char *have = sv[w]->sha256;
        if (!have[0]) { if (hz_sha256_file(sv[w]->path, hex, &by, &li)) hex[0] = 0; have = hex; }
        if (!want) rc = die("hspz gapped: %s has no sha256 of the %s; cannot check %s %s", mp, role[w], opt[w], sv[w]->path);
        else if (strcmp(want, have))
            rc = die("hspz gapped: %s %s is not the %s this run read (sha256 %.12s..., %s says %.12s...); give the file given to hspz run",
                     opt[w], sv[w]->path, role[w], have, mp, want);
        const char *pre = json_string_value(json_object_get(json_object_get(json_object_get(json_object_get(m, "config"), "values"), pk[w]), "value"));
        if (!rc && pre) rc = add_prefix(sv[w], pre);
        if (!rc && pre) prefix[w] = strdup(pre);
    }
    json_decref(m);
    return rc;
}

/* whether the device kind opens here (gapped_dev.h), tried in a child process so that this
 * one (which forks the lines) never holds a device context.  probe_begin starts the child
 * (*pid, *fd; the parent goes on loading the sequences meanwhile: a GPU takes a while to open);
 * probe_end waits for it: 0, or 1 with the reason in msg. */
static void probe_begin(const char *kind, pid_t *pid, int *fd)
{
    int p2[2];
    *pid = -1; *fd = -1;
    if (pipe(p2)) return;
    fflush(NULL);
    pid_t p = fork();
    if (p == 0) {
        close(p2[0]);
        char e[512] = "";
        hz_gdev *d = NULL;
        int r = hz_gdev_open(kind, 1, &d, e, sizeof e);
        if (!r) hz_gdev_close(d);
        else if (write(p2[1], e, strlen(e)) < 0) _exit(1);
        _exit(r ? 1 : 0);
    }
    close(p2[1]);
    if (p < 0) { close(p2[0]); return; }
    *pid = p; *fd = p2[0];
}

static int probe_end(pid_t pid, int fd, char *msg, size_t ml)
{
    msg[0] = 0;
    if (pid < 0) { snprintf(msg, ml, "cannot try the device: %s", strerror(errno)); return 1; }
    ssize_t n = read(fd, msg, ml - 1);
    msg[n > 0 ? n : 0] = 0;
    close(fd);
    int st = 0;
    if (waitpid(pid, &st, 0) != pid) { snprintf(msg, ml, "cannot try the device: %s", strerror(errno)); return 1; }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
    if (!msg[0]) snprintf(msg, ml, "the device could not be opened");
    return 1;
}

/* 1 when DIR's gapped-manifest.json (a regular file, never followed) no longer describes the
 * folder: a file it lists was replaced or is gone (sha256); 0 when it does or is not there */
static int record_stale(const char *dir)
{
    char gp[4200], fp[8400];
    struct stat gs;
    snprintf(gp, sizeof gp, "%s/gapped-manifest.json", dir);
    if (lstat(gp, &gs) != 0 || !S_ISREG(gs.st_mode)) return 0;
    json_t *g = json_load_file(gp, 0, NULL), *e;
    size_t i;
    int stale = !g;
    json_array_foreach(json_object_get(g, "outputs"), i, e) {
        const char *nm = json_string_value(json_object_get(e, "name"));
        json_t *b = json_object_get(e, "bytes");
        snprintf(fp, sizeof fp, "%s/%s", dir, nm ? nm : "");
        if (!nm || !hz_sha256_unchanged(fp, json_is_integer(b) ? (int64_t)json_integer_value(b) : -1,
                                        json_string_value(json_object_get(e, "sha256")))) { stale = 1; break; }
    }
    json_decref(g);
    return stale;
}

/* After a failed --force run that made the earlier gapped-manifest.json stale (it described the
 * folder before: was_stale 0): remove it with one line, so the folder does not look finished */
static void drop_stale_record(const char *dir, int was_stale)
{
    char gp[4200];
    snprintf(gp, sizeof gp, "%s/gapped-manifest.json", dir);
    if (!was_stale && record_stale(dir) && unlink(gp) == 0)
        fprintf(stderr, "hspz gapped: %s: removed (a file it lists was replaced by this failed run)\n", gp);
}

int hz_gapped_outdir(int argc, char **argv)
{
    const char *dir = NULL, *ref = NULL, *qry = NULL, *device = NULL; int threads = 1, force = 0, threads_given = 0;
    char *tbword = NULL;            /* --allocate:traceback=V as appended to every line */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strncmp(a, "--outdir=", 9)) dir = a + 9;
        else if (!strcmp(a, "--outdir") && v) { dir = v; i++; }
        else if (!strcmp(a, "--force")) force = 1;
        else if (!strncmp(a, "--allocate:traceback=", 21) || !strncmp(a, "--traceback=", 12) || (!strcmp(a, "--traceback") && v)) {
            const char *name = a[10] == ':' ? "--allocate:traceback" : "--traceback";
            const char *val = a[10] == ':' ? a + 21 : a[11] == '=' ? a + 12 : v;
            if (!a[11]) i++;
            int64_t b = hz_gapped_tb_parse(val);
            if (b == -1) return 1 + die("hspz gapped: bad %s value '%s' (a number with an optional K, M or G, as lastz reads it)", name, val);
            if (b == -2) return 1 + die("hspz gapped: %s value '%s' is below lastz's minimum of 100K", name, val);
            if (b == -3) return 1 + die("hspz gapped: %s value '%s' is above what lastz reads (an int: at most 2147483647 bytes, e.g. 1.99G)", name, val);
            free(tbword);
            if (!(tbword = malloc(strlen(val) + 32))) return die("hspz gapped: out of memory");
            sprintf(tbword, "%s=%s", name, val);
        }
        else if (!strncmp(a, "--device=", 9) || (!strcmp(a, "--device") && v)) {
            device = a[8] == '=' ? a + 9 : v; if (a[8] != '=') i++;
            if (strcmp(device, "cpu") && strcmp(device, "cuda") && strcmp(device, "auto") && strcmp(device, "emu"))
                return 1 + die("hspz gapped: bad --device '%s' (cpu, cuda or auto)", device);
        }
        else if ((!strcmp(a, "-r") || !strcmp(a, "--ref")) && v) { ref = v; i++; }
        else if ((!strcmp(a, "-q") || !strcmp(a, "--query")) && v) { qry = v; i++; }
        else if ((!strcmp(a, "-t") || !strcmp(a, "--threads")) && v) {
            /* as hspz run: 0 = all cores */
            char *e; long t = strtol(v, &e, 10); i++; threads_given = 1;
            if (e == v || *e || t < 0 || t > 1024) return 1 + die("hspz gapped: bad --threads '%s' (0 = all cores, or 1..1024)", v);
            if (!t) { long nc = sysconf(_SC_NPROCESSORS_ONLN); t = nc < 1 ? 1 : nc > 1024 ? 1024 : nc; }
            threads = (int)t;
        }
        else if (!v && (!strcmp(a, "--outdir") || !strcmp(a, "-r") || !strcmp(a, "--ref") || !strcmp(a, "-q") || !strcmp(a, "--query")
                        || !strcmp(a, "-t") || !strcmp(a, "--threads") || !strcmp(a, "--device") || !strcmp(a, "--traceback")))
            return 1 + die("hspz gapped: %s needs a value", a);
        else return 1 + die("hspz gapped: unexpected argument '%s' in --outdir mode (takes --outdir DIR -r TARGET -q QUERY [--threads N] [--device D] [--allocate:traceback=SIZE] [--force])", a);
    }
    if (!dir || !ref || !qry) return 1 + die("hspz gapped: --outdir needs -r TARGET and -q QUERY (the sequences given to hspz run)");
    char path[4096];
    char why_dev[512];
    hz_gapped_mark("hspz gapped --outdir begins");
    snprintf(path, sizeof path, "%s/lastz-commands.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f) { free(tbword); return die("hspz gapped: %s: %s", path, strerror(errno)); }
    fclose(f);
    pid_t ppid = -1; int pfd = -1;
    int probe = device && !strcmp(device, "cuda");
    if (probe) probe_begin(device, &ppid, &pfd);     /* while the sequences load */
    hz_seqset ts = { 0 }, qs = { 0 };
    char err[1024];
    time_t start = time(NULL);
    struct timespec c0, c1, c2;
    clock_gettime(CLOCK_MONOTONIC, &c0);
    char *pre[2] = { NULL, NULL };
    int rc = hz_seqset_load(ref, &ts, err, sizeof err) || hz_seqset_load(qry, &qs, err, sizeof err) ? die("hspz gapped: %s", err) : 0;
    hz_gapped_mark("the sequences are loaded");
    if (probe && probe_end(ppid, pfd, why_dev, sizeof why_dev) && !rc)    /* before any line writes its .err */
        rc = 1 + die("hspz gapped: --device=cuda: %s; refused before any line ran (--device=auto uses the CPU then)", why_dev);
    hz_gapped_mark("the device was tried");
    if (rc) { free(tbword); hz_seqset_free(&ts); hz_seqset_free(&qs); return rc; }
    rc = run_inputs(dir, &ts, &qs, pre);
    clock_gettime(CLOCK_MONOTONIC, &c1);
    hz_gapped_mark("the inputs are checked against the manifest");
    hz_gapped_files fl = { 0, NULL, 0 };
    int was_stale = force && !rc ? record_stale(dir) : 1;
    if (!rc) rc = hz_gapped_outdir_run(dir, &ts, &qs, threads, device, tbword, force, &fl, NULL, 0);
    clock_gettime(CLOCK_MONOTONIC, &c2);
    hz_gapped_mark("the lines are done");
    if (rc > 128) goto out;                  /* interrupted (its one line is out) */
    if (!rc) {   /* the record of what this command wrote (docs/manifest.md "gapped-manifest.json") */
        double tl = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
        double tg = (double)(c2.tv_sec - c1.tv_sec) + 1e-9 * (double)(c2.tv_nsec - c1.tv_nsec);
        if (hz_gapped_manifest_write(dir, argc, argv, &ts, &qs, pre[0], pre[1], threads, threads_given, tbword, force, &fl, tl, tg, start, err, sizeof err))
            rc = die("hspz gapped: %s", err);
    }
    else if (force) drop_stale_record(dir, was_stale);
    hz_gapped_mark("gapped-manifest.json is written");
out:
    hz_gapped_files_free(&fl);
    free(tbword);
    free(pre[0]); free(pre[1]);
    hz_seqset_free(&ts); hz_seqset_free(&qs);
    return rc;
}

/* the first line of line's 2> file (in dir; errtmp: its temporary, read instead while it is
 * not in place) into msg; "" when it has none or is unreadable */
static void err_first_line(const char *dir, const char *line, const char *errtmp, char *msg, size_t ml)
{
    char *cp = strdup(line), *av[64], *ef = NULL;
    msg[0] = 0;
    if (cp && hz_sh_split(cp, av, 63, &ef) > 0 && ef) {
        char p[8400];
        snprintf(p, sizeof p, "%s/%s", dir, errtmp ? errtmp : ef);
        FILE *f = fopen(p, "r");
        if (f) {
            if (fgets(msg, (int)ml, f)) msg[strcspn(msg, "\n")] = 0;
            fclose(f);
        }
    }
    free(cp);
}

/* names a folder's lines read or write, for check_lines */
typedef struct { char *name; int line, out; } lname;

static int lname_add(lname **v, int *n, int *cap, const char *name, size_t len, int line, int out)
{
    if (*n == *cap) { int c = *cap ? 2 * *cap : 64; lname *t = realloc(*v, (size_t)c * sizeof *t); if (!t) return -1; *v = t; *cap = c; }
    while (len > 2 && name[0] == '.' && name[1] == '/') { name += 2; len -= 2; }
    if (!((*v)[*n].name = strndup(name, len))) return -1;
    (*v)[*n].line = line; (*v)[*n].out = out; (*n)++;
    return 0;
}

/* Before any line runs: no file a line writes (its last --output= and its 2> file) is written
 * by another line too, or is read by any line (segments, scores, [subset=] and sequence files)
 * or is the folder's own record (manifest.json, lastz-commands.txt, gapped-manifest.json);
 * compared by name and, for files that exist, by identity.  Lines run at once, so either
 * would make the bytes depend on timing or destroy an input (docs/gapped.md "Output files").
 * Returns 0, or 1 with one line in msg. */
static int check_lines(const char *dir, char **lines, int nl, char *msg, size_t ml)
{
    lname *v = NULL; int n = 0, cap = 0, rc = 0;
    static const char *const OWN[] = { "manifest.json", "lastz-commands.txt", "gapped-manifest.json", NULL };
    for (int i = 0; OWN[i] && !rc; i++) rc = lname_add(&v, &n, &cap, OWN[i], strlen(OWN[i]), 0, 0);
    for (int k = 0; k < nl && !rc; k++) {
        char *cp = strdup(lines[k]), *av[64], *ef = NULL;
        int m = cp ? hz_sh_split(cp, av, 63, &ef) : -1;
        const char *out = NULL;
        for (int i = 1; i < m && !rc; i++) {
            const char *a = av[i], *sb;
            if (!strncmp(a, "--output=", 9)) out = a + 9;
            else if (!strncmp(a, "--segments=", 11)) rc = lname_add(&v, &n, &cap, a + 11, strlen(a + 11), k + 1, 0);
            else if (!strncmp(a, "--scores=", 9)) rc = lname_add(&v, &n, &cap, a + 9, strlen(a + 9), k + 1, 0);
            else if (a[0] != '-') {                      /* FILE[actions]: the file and a subset file */
                rc = lname_add(&v, &n, &cap, a, strcspn(a, "["), k + 1, 0);
                if (!rc && (sb = strstr(a, "[subset="))) rc = lname_add(&v, &n, &cap, sb + 8, strcspn(sb + 8, "]"), k + 1, 0);
            }
        }
        /* hspz writes these files: only inside DIR (docs/gapped.md) */
        if (!rc && out && !inside_dir(out)) { snprintf(msg, ml, "lastz-commands.txt line %d: --output=%s is outside %s; refused", k + 1, out, dir); free(cp); rc = 2; break; }
        if (!rc && m > 0 && ef && !inside_dir(ef)) { snprintf(msg, ml, "lastz-commands.txt line %d: 2> %s is outside %s; refused", k + 1, ef, dir); free(cp); rc = 2; break; }
        if (!rc && out) rc = lname_add(&v, &n, &cap, out, strlen(out), k + 1, 1);
        if (!rc && m > 0 && ef) rc = lname_add(&v, &n, &cap, ef, strlen(ef), k + 1, 1);
        free(cp);
    }
    if (rc == 1) snprintf(msg, ml, "out of memory");
    for (int i = 0; i < n && !rc; i++) {
        if (!v[i].out) continue;
        char pi[4200], pj[4200];
        snprintf(pi, sizeof pi, "%s/%s", dir, v[i].name);
        for (int j = 0; j < n && !rc; j++) {
            if (j == i || (v[j].out && j < i)) continue;
            snprintf(pj, sizeof pj, "%s/%s", dir, v[j].name);
            if (strcmp(v[i].name, v[j].name) && !hz_same_file(pi, pj)) continue;
            if (v[j].out)
                snprintf(msg, ml, "lastz-commands.txt lines %d and %d both write %s; refused", v[i].line, v[j].line, v[i].name);
            else if (!v[j].line)
                snprintf(msg, ml, "lastz-commands.txt line %d writes %s, the folder's own %s; refused", v[i].line, v[i].name, v[j].name);
            else
                snprintf(msg, ml, "lastz-commands.txt line %d writes %s, which line %d reads; refused", v[i].line, v[i].name, v[j].line);
            rc = 1;
        }
    }
    for (int i = 0; i < n; i++) free(v[i].name);
    free(v);
    return rc ? 1 : 0;
}

/* the order in which the lines of lastz-commands.txt start: largest segments file first (the
 * longest work does not start last), then line order; NULL when out of memory */
static int *line_order(const char *dir, char **lines, int nl)
{
    int *ord = malloc(((size_t)nl + 1) * sizeof *ord);
    off_t *sz = calloc((size_t)nl + 1, sizeof *sz);
    if (!ord || !sz) { free(ord); free(sz); return NULL; }
    for (int k = 0; k < nl; k++) {
        char path[4096], *s = strstr(lines[k], "--segments=");
        struct stat st;
        size_t l = s ? strcspn(s + 11, " \t\r\n") : 0;
        if (s && l < 2048 && snprintf(path, sizeof path, "%s/%.*s", dir, (int)l, s + 11) < (int)sizeof path && !stat(path, &st))
            sz[k] = st.st_size;
        int j = k;
        while (j > 0 && sz[ord[j - 1]] < sz[k]) { ord[j] = ord[j - 1]; j--; }
        ord[j] = k;
    }
    free(sz);
    return ord;
}

/* the files line writes: fin[0] its last --output= (lastz takes the last), fin[1] its 2> file
 * (NULL where none), tmp[] their temporaries (this process's names, hz_out_tmpname), both
 * appended to files (may be NULL).  0, or 1 when out of memory. */
static int line_names(const char *line, char **fin, char **tmp, hz_gapped_files *files)
{
    char *cp = strdup(line), *av[64], *ef = NULL;
    int n = cp ? hz_sh_split(cp, av, 63, &ef) : -1, rc = !cp;
    const char *out = NULL;
    for (int i = 1; i < n; i++) if (!strncmp(av[i], "--output=", 9)) out = av[i] + 9;
    const char *nm[2] = { out, n > 0 ? ef : NULL };
    for (int w = 0; w < 2 && !rc; w++) {
        if (!nm[w]) continue;
        char t[8400];
        hz_out_tmpname(nm[w], t, sizeof t);
        if (!(fin[w] = strdup(nm[w])) || !(tmp[w] = strdup(t))) rc = 1;
        if (files && !rc && !(files->name[files->n++] = strdup(nm[w]))) rc = 1;
    }
    free(cp);
    return rc;
}

/* the message of a line's failure (stderr, or err in hspz run --gapped mode) */
static void line_failed(const char *dir, const char *path, const char *line, const char *errtmp, int k, int st, int rc,
                        char *err, size_t errlen)
{
    int noerr = WIFEXITED(st) && WEXITSTATUS(st) == 2;   /* its message is on stderr */
    if (noerr && err && !rc)
        snprintf(err, errlen, "gapped stage: line %d of lastz-commands.txt failed (its message is above)", k + 1);
    else if (noerr && !err)
        fprintf(stderr, "hspz gapped: line %d of %s failed (its message is above; no .err file was written for it)\n", k + 1, path);
    else if (err && !rc) {     /* hspz run --gapped: the folder is removed, so the .err's line */
        char m[1024];
        err_first_line(dir, line, errtmp, m, sizeof m);
        snprintf(err, errlen, "gapped stage: line %d of lastz-commands.txt failed%s%s", k + 1, m[0] ? ": " : "", m);
    } else if (!err) fprintf(stderr, "hspz gapped: line %d of %s failed (see its .err file)\n", k + 1, path);
}

/* the temporaries of the started lines (fin / tmp: 2 names in dir per line, NULL where none):
 * renamed into place (place), or removed.  A temporary is this run's (its pid and token), so
 * removing it never touches a file of another run.  Returns 0, or 1 after a message. */
static int settle_files(const char *dir, char **fin, char **tmp, int n, int force, int place, char *err, size_t errlen)
{
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char pt[8400], pf[8400];
        struct stat st;
        if (!tmp[i] || snprintf(pt, sizeof pt, "%s/%s", dir, tmp[i]) >= (int)sizeof pt || lstat(pt, &st)) continue;
        if (!place || !S_ISREG(st.st_mode)) { if (S_ISREG(st.st_mode)) unlink(pt); continue; }
        snprintf(pf, sizeof pf, "%s/%s", dir, fin[i]);
        if (hz_out_place(pt, pf, force) == 0) continue;
        int e = errno;
        const char *why = e == ELOOP ? "is a symbolic link; refused (hspz never writes through or replaces one)"
                        : e == EISDIR ? "is a folder; refused"
                        : e == EEXIST ? (force ? "is not a regular file; refused" : "appeared meanwhile; refused without --force")
                        : strerror(e);
        if (err && !rc) snprintf(err, errlen, "%s %s", pf, why);
        else if (!err) fprintf(stderr, "hspz gapped: %s %s\n", pf, why);
        unlink(pt);
        rc = 1;
    }
    return rc;
}

/* wait for a line's process; sigs (NULL: plain wait): the interrupts taken meanwhile (blocked,
 * with SIGCHLD), one of them into *sig with 0 returned */
static pid_t reap(int *st, const sigset_t *sigs, int *sig)
{
    for (;;) {
        pid_t p = waitpid(-1, st, sigs ? WNOHANG : 0);
        if (p != 0 || !sigs) return p;
        struct timespec ts = { 1, 0 };
        int s = sigtimedwait(sigs, NULL, &ts);
        if (s > 0 && s != SIGCHLD) { *sig = s; return 0; }
    }
}

int hz_gapped_outdir_run(const char *dir, const hz_seqset *ts, const hz_seqset *qs, int threads, const char *device,
                         const char *tbword, int force, hz_gapped_files *files, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/lastz-commands.txt", dir);
    if (files) memset(files, 0, sizeof *files);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (err) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); return 1; }
        return die("hspz gapped: %s: %s", path, strerror(errno));
    }
    char **lines = NULL; int nl = 0, cap = 0; char *buf = NULL; size_t bc = 0;
    int rc = 0;
    while (getline(&buf, &bc, f) >= 0) {
        char c0 = buf[strspn(buf, " \t\r\n")];
        if (c0 == 0 || c0 == '#') continue;      /* a blank or comment line is no command (as in sh) */
        if (nl == cap) { cap = cap ? 2 * cap : 64; char **t = realloc(lines, (size_t)cap * sizeof *t); if (!t) { rc = 1; break; } lines = t; }
        if (!(lines[nl] = strdup(buf))) { rc = 1; break; }
        nl++;
    }
    fclose(f); free(buf);
    pid_t *pid = rc ? NULL : calloc((size_t)nl + 1, sizeof *pid);
    /* fin[2k], fin[2k+1]: line k's --output and 2> names; tmp[]: their temporaries */
    char **fin = pid ? calloc(2 * (size_t)nl + 1, sizeof *fin) : NULL, **tmp = fin ? calloc(2 * (size_t)nl + 1, sizeof *tmp) : NULL;
    if (!tmp) rc = 1;
    if (files && !rc && !(files->name = calloc(2 * (size_t)nl + 1, sizeof *files->name))) rc = 1;
    for (int k = 0; !rc && k < nl; k++) rc = line_names(lines[k], fin + 2 * k, tmp + 2 * k, files);
    if (files) files->ncmd = (size_t)nl;
    char cm[8400];
    if (rc) snprintf(cm, sizeof cm, "out of memory");
    if (rc || check_lines(dir, lines, nl, cm, sizeof cm)) {
        if (err) snprintf(err, errlen, "%s", cm);
        else if (rc) die("hspz gapped: %s", cm);
        else die("hspz gapped: %s/%s", dir, cm);
        rc = 1;
        goto done;
    }
    for (int i = 0; i < 2 * nl; i++) {   /* no output is an input (by identity, from the user's folder) */
        const char *in[2] = { ts->path, qs->path };
        if (!fin[i]) continue;
        snprintf(cm, sizeof cm, "%s/%s", dir, fin[i]);
        for (int w = 0; w < 2 && !rc; w++)
            if (hz_same_file(cm, in[w])) {
                if (err) snprintf(err, errlen, "%s is an input of this command (%s); refused", cm, in[w]);
                else die("hspz gapped: %s is an input of this command (%s); refused", cm, in[w]);
                rc = 1;
            }
        if (rc) goto done;
    }
    if (!err) {            /* hspz gapped --outdir's record: checked before any line runs */
        snprintf(cm, sizeof cm, "%s/gapped-manifest.json", dir);
        const char *why = name_refused(cm, force);
        if (why) { rc = die("hspz gapped: %s %s", cm, why); goto done; }
    }
    fflush(NULL);
    /* hspz gapped --outdir: an interrupt is taken here (blocked, waited for with the lines'
     * exits), so that it ends the lines and removes their temporaries (docs/cli.md); under
     * hspz run --gapped the run's watcher owns the signals and removes the whole folder */
    sigset_t sigs, old;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT); sigaddset(&sigs, SIGTERM); sigaddset(&sigs, SIGHUP); sigaddset(&sigs, SIGCHLD);
    if (!err) pthread_sigmask(SIG_BLOCK, &sigs, &old);
    /* independent files (spec §12): one worker process per line, at most `threads` at a time;
     * each writes only its own files, so the bytes never depend on the count */
    int running = 0, next = 0, bad = 0, sig = 0;
    int per = threads / (nl < threads ? (nl ? nl : 1) : threads);   /* threads of each line's process */
    if (per < 1) per = 1;
    pid_t parent = getpid();
    int *ord = line_order(dir, lines, nl);
    /* the running count, shared with the lines' processes (gapped_cmd.c pass_threads) */
    int *shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) shared = NULL;
    if (!ord) { rc = 1; bad = 1; if (err) snprintf(err, errlen, "out of memory"); else die("hspz gapped: out of memory"); }
    while (ord && !sig && (next < nl || running)) {
        if (next < nl && running < threads && !bad) {
            int k = ord[next];
            if (shared) __atomic_store_n(shared, running + 1, __ATOMIC_RELAXED);
            pid_t p = fork();
            if (p < 0) {
                if (err) snprintf(err, errlen, "fork: %s", strerror(errno));
                else die("hspz gapped: fork: %s", strerror(errno));
                rc = 1; bad = 1; continue;
            }
            if (p == 0) {
                /* a worker never outlives hspz (hspz run --gapped's signal watcher removes the
                 * folder and exits; the workers must not write on) */
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (getppid() != parent) _exit(1);
                if (!err) pthread_sigmask(SIG_SETMASK, &old, NULL);
                /* 2: refused or failed with its message on our stderr (no .err of this line) */
                int lr = run_line(dir, lines[k], ts, qs, k + 1, force, per, device, tbword, threads, shared, tmp + 2 * k);
                _exit(lr == 2 ? 2 : lr ? 1 : 0);
            }
            pid[k] = p; next++; running++;
            hz_gapped_mark("line %d started (pid %ld)", k + 1, (long)p);
            continue;
        }
        int st; pid_t p = reap(&st, err ? NULL : &sigs, &sig);
        if (p <= 0) break;
        hz_gapped_mark("pid %ld ended", (long)p);
        running--;
        if (shared) __atomic_store_n(shared, running, __ATOMIC_RELAXED);
        for (int k = 0; k < nl; k++)
            if (pid[k] == p) {
                pid[k] = -1;                    /* started and ended */
                if (!err && WIFSIGNALED(st) && (WTERMSIG(st) == SIGINT || WTERMSIG(st) == SIGTERM || WTERMSIG(st) == SIGHUP)) {
                    /* Ctrl-C reaches the whole process group: the line's end is the interrupt's */
                    sigset_t in = sigs; struct timespec z = { 0, 0 };
                    sigdelset(&in, SIGCHLD);
                    int s = sigtimedwait(&in, NULL, &z);
                    if (s > 0) { sig = s; break; }
                }
                if (!WIFEXITED(st) || WEXITSTATUS(st)) {
                    line_failed(dir, path, lines[k], tmp[2 * k + 1], k, st, rc, err, errlen);
                    rc = 1;
                    if (err) bad = 1;          /* hspz run: stop starting lines, the run fails */
                }
            }
    }
    if (!err && !sig) {                         /* one that came with the last line's exit */
        sigset_t in = sigs; struct timespec z = { 0, 0 };
        sigdelset(&in, SIGCHLD);
        int s = sigtimedwait(&in, NULL, &z);
        if (s > 0) sig = s;
    }
    if (sig) {   /* interrupted: end the lines, remove every temporary; files of before stay */
        for (int k = 0; k < nl; k++) if (pid[k] > 0) kill(pid[k], SIGKILL);
        for (int k = 0; k < nl; k++) if (pid[k] > 0) { waitpid(pid[k], NULL, 0); pid[k] = -1; }
        settle_files(dir, fin, tmp, 2 * nl, force, 0, NULL, 0);
        fprintf(stderr, "%shspz: interrupted by signal %d; no output of this run was kept\n", isatty(2) ? "\n" : "", sig);
        rc = 128 + sig;
    } else {
        int started = 0;
        for (int k = 0; k < nl; k++) if (pid[k]) started = 1;
        for (int k = 0; k < nl; k++)           /* lines never started have no temporaries */
            if (!pid[k]) { free(tmp[2 * k]); free(tmp[2 * k + 1]); tmp[2 * k] = tmp[2 * k + 1] = NULL; }
        /* hspz run --gapped after a failed line: the folder goes, nothing is placed */
        int place = !(err && rc);
        if (started && settle_files(dir, fin, tmp, 2 * nl, force, place, err, errlen) && place) rc = 1;
    }
    if (shared) munmap(shared, sizeof *shared);
    free(ord);
done:
    for (int k = 0; k < nl; k++) free(lines[k]);
    for (int i = 0; fin && i < 2 * nl; i++) { free(fin[i]); if (tmp) free(tmp[i]); }
    free(lines); free(pid); free(fin); free(tmp);
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
                             const char *tprefix, const char *qprefix, int threads, int threads_given,
                             const char *tbword, int force, const hz_gapped_files *f, double t_load, double t_gapped, time_t start,
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
    /* the word appended to every line, or null: each line's own (lastz's default 80M) */
    json_object_set_new(set, "traceback", jsetting(tbword ? json_string(tbword) : json_null(), tbword ? "flag" : "default"));
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
            int e = errno;
            snprintf(err, errlen, "%s %s", path, e == ELOOP ? "is a symbolic link; refused (hspz never writes through or replaces one)"
                     : e == EISDIR ? "is a folder; refused" : e != EEXIST ? strerror(e)
                     : force ? "is not a regular file; refused" : "exists; refused without --force");
            rc = -1;
        }
        if (rc) unlink(tmp);
    }
    json_decref(m);
    return rc;
}
