/* gapped_run — `hspz run --gapped` (gapped_run.h, docs/gapped.md). */
#include "gapped_run.h"
#include "gapped_cmd.h"
#include "scoring.h"
#include "manifest.h"
#include "outsafe.h"
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* the number of comma-separated parts of an --ambiguous value (scoring.h's reading) */
static int amb_parts(const char *v)
{
    hz_ambig a;
    hz_ambiguous_split(v, &a);
    return a.nparts;
}

int hz_gapped_precheck(const hz_opts *o, char *err, size_t errlen)
{
    if (o->traceback) {
        int64_t b = hz_gapped_tb_parse(o->traceback);
        if (!o->gapped) snprintf(err, errlen, "--traceback sets the traceback memory of --gapped's alignments; give --gapped too");
        else if (b == -1) snprintf(err, errlen, "--traceback: '%s' is not a size (an integer or decimal, optionally with K, M or G)", o->traceback);
        else if (b == -2) snprintf(err, errlen, "--traceback: '%s' is below lastz's minimum, 100K", o->traceback);
        else if (b == -3) snprintf(err, errlen, "--traceback: '%s' is above what lastz reads (an int: at most 2147483647 bytes, e.g. 1.99G)", o->traceback);
        if (b < 0 || !o->gapped) return 2;
    }
    if (!o->gapped) return 0;
    const char *f = o->format;
    if (o->nogapped) snprintf(err, errlen, "--gapped runs the lastz commands, which --nogapped turns off");
    else if (o->segments_archive) snprintf(err, errlen, "--gapped writes its alignments into OUTDIR, which -Z does not write (use --tarball for a package)");
    else if (strcmp(f, "maf-") && strcmp(f, "maf") && strcmp(f, "axt") && strcmp(f, "axt+"))
        snprintf(err, errlen, "--gapped: --format=%s is not written by hspz gapped (maf-, maf, axt, axt+ are); run lastz on lastz-commands.txt for it", f);
    else if (o->inner > 0 && o->ambiguous && o->ambiguous[0])
        snprintf(err, errlen, "--gapped: --ambiguous together with --inner is not built in hspz gapped yet; run lastz on lastz-commands.txt for it");
    else if (o->ambiguous && o->ambiguous[0] && amb_parts(o->ambiguous) == 2)   /* hz_gscore_ambiguous */
        snprintf(err, errlen, "--gapped: --ambiguous=%s (one number) is not built in hspz gapped (n, iupac, n,R,P and iupac,R,P are); run lastz on lastz-commands.txt for it", o->ambiguous);
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

/* the descriptor the helper writes its result on (dup2'ed there between fork and exec) */
enum { HELPER_FD = 100 };

/* hz_gapped_run's helper process (gapped_run.h): started, its result read, waited for */
static int run_helper(const hz_opts *o, const char *dir, const hz_seqset *t, const hz_seqset *q, const char *qpath,
                      int threads, const char *device, const char *tb, hz_gapped_files *files, char *err, size_t errlen)
{
    char th[16], fdn[16];
    snprintf(th, sizeof th, "%d", threads); snprintf(fdn, sizeof fdn, "%d", HELPER_FD);
    char *av[] = { "hspz", "__gapped-stage", (char *)dir, (char *)o->target, (char *)qpath,
                   (char *)(o->target_prefix ? o->target_prefix : ""), (char *)(o->query_prefix ? o->query_prefix : ""),
                   th, (char *)device, (char *)(tb ? tb : ""), fdn, (char *)t->sha256, (char *)q->sha256, NULL };
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC)) { snprintf(err, errlen, "gapped stage: pipe: %s", strerror(errno)); return -1; }
    fflush(NULL);
    pid_t parent = getpid(), p = fork();
    if (p < 0) { close(pfd[0]); close(pfd[1]); snprintf(err, errlen, "gapped stage: fork: %s", strerror(errno)); return -1; }
    if (p == 0) {   /* async-signal-safe calls only until exec */
        prctl(PR_SET_PDEATHSIG, SIGKILL);    /* never outlives the run (its watcher removes OUTDIR) */
        if (getppid() != parent) _exit(1);
        sigset_t none; sigemptyset(&none); sigprocmask(SIG_SETMASK, &none, NULL);   /* the run blocks them */
        if (dup2(pfd[1], HELPER_FD) < 0) _exit(127);
        execv("/proc/self/exe", av);
        _exit(127);
    }
    close(pfd[1]);
    FILE *f = fdopen(pfd[0], "r");
    char *line = NULL; size_t cap = 0; int rc = -2; size_t nf = 0;
    err[0] = 0;
    files->name = NULL;
    while (f && getline(&line, &cap, f) > 0) {
        line[strcspn(line, "\n")] = 0;
        if (!strncmp(line, "rc ", 3)) rc = atoi(line + 3);
        else if (!strncmp(line, "ncmd ", 5)) {
            files->ncmd = (size_t)strtoull(line + 5, NULL, 10);
            if (!files->name && !(files->name = calloc(2 * files->ncmd + 1, sizeof *files->name))) rc = -3;
        }
        else if (!strncmp(line, "f ", 2) && files->name && nf < 2 * files->ncmd) {
            if (!(files->name[nf] = strdup(line + 2))) rc = -3;
            else files->n = ++nf;
        }
        else if (!strncmp(line, "err ", 4)) snprintf(err, errlen, "%s", line + 4);
    }
    free(line);
    if (f) fclose(f); else close(pfd[0]);
    int st = 0;
    while (waitpid(p, &st, 0) < 0 && errno == EINTR) {}
    if (rc == -3) { snprintf(err, errlen, "out of memory"); return -1; }
    if (rc == -2 || !WIFEXITED(st) || WEXITSTATUS(st)) {   /* no result: it did not run to its end */
        if (WIFSIGNALED(st)) snprintf(err, errlen, "gapped stage: its helper process was killed by signal %d", WTERMSIG(st));
        else snprintf(err, errlen, "gapped stage: its helper process (hspz __gapped-stage) exited with status %d and no result",
                      WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        return -1;
    }
    if (rc && !err[0]) snprintf(err, errlen, "gapped stage failed");
    return rc ? -1 : 0;
}

int hz_gapped_run(const hz_opts *o, const char *dir, const hz_seqset *t, const hz_seqset *q, const char *qpath,
                  int threads, const char *device, hz_gapped_files *files, double *secs, char *err, size_t errlen)
{
    double t0 = now_s();
    hz_seqset tv, qv;
    memset(&tv, 0, sizeof tv); memset(&qv, 0, sizeof qv);
    memset(files, 0, sizeof *files);
    int rc = 0;
    /* --traceback: appended to every line's words, as `hspz gapped --outdir
     * --allocate:traceback=SIZE` and Batched LASTZ do (lastz takes the last one) */
    char *tb = NULL;
    if (o->traceback && !(tb = malloc(strlen(o->traceback) + 24))) {
        snprintf(err, errlen, "out of memory");
        *secs = now_s() - t0;
        return -1;
    }
    if (tb) sprintf(tb, "--allocate:traceback=%s", o->traceback);
    if (device && strcmp(device, "cpu") && o->target && qpath)
        rc = run_helper(o, dir, t, q, qpath, threads > 0 ? threads : 1, device, tb, files, err, errlen);
    else if (view_make(t, o->target_prefix ? o->target_prefix : "", &tv) || view_make(q, o->query_prefix ? o->query_prefix : "", &qv)) {
        snprintf(err, errlen, "out of memory for the gapped stage's record names");
        rc = -1;
    }
    else if (hz_gapped_outdir_run(dir, &tv, &qv, threads > 0 ? threads : 1, NULL, tb, 0, files, err, errlen)) rc = -1;
    free(tb);
    view_free(&tv); view_free(&qv);
    *secs = now_s() - t0;
    return rc;
}

int hz_gapped_stage_main(int argc, char **argv)
{
    if (argc != 13) { fprintf(stderr, "hspz __gapped-stage: the gapped stage's helper of hspz run (not a command)\n"); return 2; }
    const char *dir = argv[2], *tp = argv[3], *qp = argv[4], *tpre = argv[5], *qpre = argv[6], *device = argv[8];
    const char *tb = argv[9][0] ? argv[9] : NULL;
    int threads = atoi(argv[7]), fd = atoi(argv[10]);
    FILE *out = fdopen(fd, "w");
    if (!out || threads < 1) return 2;
    hz_seqset ts, qs, tv, qv;
    memset(&ts, 0, sizeof ts); memset(&qs, 0, sizeof qs); memset(&tv, 0, sizeof tv); memset(&qv, 0, sizeof qv);
    hz_gapped_files fl = { 0, NULL, 0 };
    char err[2048] = "";
    int rc = 1;
    if (hz_seqset_load_mt(tp, threads, &ts, err, sizeof err) || hz_seqset_load_mt(qp, threads, &qs, err, sizeof err)) {}
    else if ((argv[11][0] && strcmp(argv[11], ts.sha256)) || (argv[12][0] && strcmp(argv[12], qs.sha256))) {   /* not what the run read */
        int tq = argv[11][0] && strcmp(argv[11], ts.sha256) ? 0 : 1;
        snprintf(err, sizeof err, "%s changed since this run read it (sha256 %.12s..., was %.12s...)", tq ? qp : tp,
                 tq ? qs.sha256 : ts.sha256, argv[11 + tq]);
    }
    else if (view_make(&ts, tpre, &tv) || view_make(&qs, qpre, &qv)) snprintf(err, sizeof err, "out of memory for the gapped stage's record names");
    else rc = hz_gapped_outdir_run(dir, &tv, &qv, threads, device, tb, 0, &fl, err, sizeof err) ? 1 : 0;
    fprintf(out, "rc %d\nncmd %zu\n", rc, fl.ncmd);
    for (size_t i = 0; i < fl.n; i++) fprintf(out, "f %s\n", fl.name[i]);
    for (char *c = err; *c; c++) if (*c == '\n' || *c == '\r') *c = ' ';
    fprintf(out, "err %s\n", err);
    int wr = fclose(out);
    hz_gapped_files_free(&fl);
    view_free(&tv); view_free(&qv); hz_seqset_free(&ts); hz_seqset_free(&qs);
    return wr ? 1 : 0;
}
