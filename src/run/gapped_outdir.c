/* gapped_outdir — `hspz gapped --outdir OUTDIR -r TARGET -q QUERY`: every line of
 * OUTDIR/lastz-commands.txt (hspz run's output folder) run as `hspz gapped` on worker
 * processes, after checking TARGET / QUERY against the sha256 OUTDIR/manifest.json records
 * (docs/gapped.md; ../shared/spec/lastz-gapped-spec.md §12: independent files). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <jansson.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "gapped_cmd.h"
#include "manifest.h"
#include "outsafe.h"

static int die(const char *fmt, ...)
{
    va_list ap; va_start(ap, fmt);
    vfprintf(stderr, fmt, ap); va_end(ap);
    fputc('\n', stderr);
    return 1;
}

/* the bytes hspz's 2bit writer keeps (package.c): letters other than ACGTacgt become N, or n
 * when lower case (spec §1.1) */
static void as_2bit(hz_seqset *s)
{
    for (uint64_t i = 0; i < s->total; i++) {
        uint8_t c = s->data[i];
        switch (c) { case 'A': case 'C': case 'G': case 'T': case 'a': case 'c': case 'g': case 't': continue; }
        s->data[i] = (c >= 'a' && c <= 'z') ? 'n' : 'N';
    }
}

/* split a line hspz wrote (words, '...' quoting as shquote.c writes it) into argv; the
 * words after "2>" name the stderr file.  Returns the word count, -1 on a line it cannot read. */
static int split_line(char *line, char **av, int max, char **errfile)
{
    int n = 0; char *p = line, *o;
    *errfile = NULL;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
        if (!*p) break;
        if (n == max) return -1;
        o = p; av[n] = o;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
            if (*p == '\'') { p++; while (*p && *p != '\'') *o++ = *p++; if (!*p) return -1; p++; }
            else if (*p == '\\' && p[1]) { *o++ = p[1]; p += 2; }
            else if (*p == '"' || *p == '$' || *p == '`' || *p == '|' || *p == ';' || *p == '&' || *p == '<') return -1;
            else *o++ = *p++;
        }
        int end = !*p;
        *o = 0; if (!end) p++;
        if (!strcmp(av[n], "2>")) { if (*errfile) return -1; *errfile = (char *)1; continue; }
        if (*errfile == (char *)1) { *errfile = av[n]; continue; }
        if (*errfile) return -1;                 /* nothing may follow the redirection */
        n++;
        if (end) break;
    }
    if (*errfile == (char *)1) return -1;
    return n;
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

static int run_line(const char *dir, char *line, hz_seqset *ts, hz_seqset *qs, int lineno, int force, int threads)
{
    char *av[64], *errfile;
    int n = split_line(line, av, 63, &errfile);
    if (n < 3 || strcmp(av[0], "lastz")) return die("hspz gapped: lastz-commands.txt line %d is not a lastz command hspz gapped can run", lineno);
    if (chdir(dir)) return die("hspz gapped: %s: %s", dir, strerror(errno));
    for (int k = 1; k < n; k++)          /* hspz writes these files: only inside DIR (docs/gapped.md) */
        if (!strncmp(av[k], "--output=", 9) && !inside_dir(av[k] + 9))
            return die("hspz gapped: lastz-commands.txt line %d: --output=%s is outside %s; refused", lineno, av[k] + 9, dir);
    if (errfile) {
        if (!inside_dir(errfile)) return die("hspz gapped: lastz-commands.txt line %d: 2> %s is outside %s; refused", lineno, errfile, dir);
        const char *in[2] = { ts->path, qs->path };
        for (int k = 0; k < 2; k++)
            if (hz_same_file(errfile, in[k])) return die("hspz gapped: %s/%s is an input of this command; refused", dir, errfile);
        int fd = open(errfile, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (force ? O_TRUNC : O_EXCL), 0666);
        struct stat st;
        if (fd < 0 && errno == ELOOP) return die("hspz gapped: %s/%s is a symbolic link; refused (hspz never writes through one)", dir, errfile);
        if (fd < 0 && errno == EEXIST) return die("hspz gapped: %s/%s exists; refused without --force", dir, errfile);
        if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) { close(fd); return die("hspz gapped: %s/%s is not a regular file; refused", dir, errfile); }
        if (fd < 0 || dup2(fd, 2) < 0) return die("hspz gapped: %s/%s: %s", dir, errfile, strerror(errno));
        close(fd);
    }
    return hz_gapped_run_line(n, av, ts, qs, force, threads);
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
static int run_inputs(const char *dir, hz_seqset *ts, hz_seqset *qs)
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
    }
    json_decref(m);
    return rc;
}

int hz_gapped_outdir(int argc, char **argv)
{
    const char *dir = NULL, *ref = NULL, *qry = NULL; int threads = 1, force = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strncmp(a, "--outdir=", 9)) dir = a + 9;
        else if (!strcmp(a, "--outdir") && v) { dir = v; i++; }
        else if (!strcmp(a, "--force")) force = 1;
        else if ((!strcmp(a, "-r") || !strcmp(a, "--ref")) && v) { ref = v; i++; }
        else if ((!strcmp(a, "-q") || !strcmp(a, "--query")) && v) { qry = v; i++; }
        else if ((!strcmp(a, "-t") || !strcmp(a, "--threads")) && v) { threads = atoi(v); i++; if (threads < 1 || threads > 1024) return die("hspz gapped: bad --threads '%s'", v); }
        else return die("hspz gapped: unexpected argument '%s' in --outdir mode (takes --outdir DIR -r TARGET -q QUERY [--threads N] [--force])", a);
    }
    if (!dir || !ref || !qry) return die("hspz gapped: --outdir needs -r TARGET and -q QUERY (the sequences given to hspz run)");
    char path[4096];
    snprintf(path, sizeof path, "%s/lastz-commands.txt", dir);
    FILE *f = fopen(path, "r");
    if (!f) return die("hspz gapped: %s: %s", path, strerror(errno));
    hz_seqset ts = { 0 }, qs = { 0 };
    char err[1024];
    if (hz_seqset_load(ref, &ts, err, sizeof err) || hz_seqset_load(qry, &qs, err, sizeof err)) { fclose(f); return die("hspz gapped: %s", err); }
    if (run_inputs(dir, &ts, &qs)) { fclose(f); hz_seqset_free(&ts); hz_seqset_free(&qs); return 1; }
    as_2bit(&ts); as_2bit(&qs);
    char **lines = NULL; int nl = 0, cap = 0; char *buf = NULL; size_t bc = 0;
    while (getline(&buf, &bc, f) >= 0) {
        if (buf[strspn(buf, " \t\r\n")] == 0) continue;
        if (nl == cap) { cap = cap ? 2 * cap : 64; char **t = realloc(lines, (size_t)cap * sizeof *t); if (!t) return die("hspz gapped: out of memory"); lines = t; }
        lines[nl++] = strdup(buf);
    }
    fclose(f); free(buf);
    fflush(NULL);
    /* independent files (spec §12): one worker process per line, at most `threads` at a time;
     * each writes only its own files, so the bytes never depend on the count */
    int running = 0, next = 0, rc = 0;
    int per = threads / (nl < threads ? (nl ? nl : 1) : threads);   /* threads of each line's process */
    if (per < 1) per = 1;
    pid_t *pid = calloc((size_t)nl + 1, sizeof *pid);
    while (next < nl || running) {
        if (next < nl && running < threads) {
            pid_t p = fork();
            if (p < 0) { rc = die("hspz gapped: fork: %s", strerror(errno)); break; }
            if (p == 0) _exit(run_line(dir, lines[next], &ts, &qs, next + 1, force, per) ? 1 : 0);
            pid[next++] = p; running++;
            continue;
        }
        int st; pid_t p = wait(&st);
        if (p < 0) break;
        running--;
        for (int k = 0; k < next; k++)
            if (pid[k] == p && (!WIFEXITED(st) || WEXITSTATUS(st))) {
                fprintf(stderr, "hspz gapped: line %d of %s failed (see its .err file)\n", k + 1, path);
                rc = 1;
            }
    }
    for (int k = 0; k < nl; k++) free(lines[k]);
    free(lines); free(pid);
    hz_seqset_free(&ts); hz_seqset_free(&qs);
    return rc;
}
