/* gapped_run — `hspz run --gapped` (gapped_run.h, docs/gapped.md). */
#include "gapped_run.h"
#include "gapped_cmd.h"
#include "scoring.h"
#include "manifest.h"
#include "outsafe.h"
#include <errno.h>
#include <jansson.h>
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
    } else {
        /* --traceback: appended to every line's words, as `hspz gapped --outdir
         * --allocate:traceback=SIZE` and Batched LASTZ do (lastz takes the last one) */
        char *tb = NULL;
        if (o->traceback && !(tb = malloc(strlen(o->traceback) + 24))) {
            snprintf(err, errlen, "out of memory"); rc = -1;
        } else {
            if (tb) sprintf(tb, "--allocate:traceback=%s", o->traceback);
            if (hz_gapped_outdir_run(dir, &tv, &qv, threads > 0 ? threads : 1, NULL, tb, 0, files, err, errlen)) rc = -1;
            free(tb);
        }
    }
    view_free(&tv); view_free(&qv);
    *secs = now_s() - t0;
    return rc;
}
