/* gapped_cmd — `hspz gapped`: LASTZ 1.04.22's command line for the gapped stage with
 * --segments (../shared/spec/lastz-gapped-spec.md §0.1 family A), the same output bytes. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "gapped.h"
#include "manifest.h"
#include "outsafe.h"
#include "seqio.h"
#include <jansson.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static const char GAPPED_USAGE[] =
"usage: hspz gapped TARGET[multiple][subset=NAMES][nameparse=darkspace] QUERY[subset=NAMES][nameparse=darkspace]\n"
"                   --segments=FILE [lastz options]\n"
"\n"
"LASTZ 1.04.22's gapped stage run from pre-computed HSPs (lastz --segments), in hspZ: the same\n"
"command line as lastz (a line of hspz's lastz-commands.txt with 'lastz' replaced by\n"
"'hspz gapped'), the same output bytes.  TARGET and QUERY: FASTA, gzip FASTA or 2bit.\n"
"\n"
"Supported lastz options:\n"
"  --segments=FILE            HSPs (tName tStart tEnd qName qStart qEnd strand [score]); required\n"
"  --format=maf-|maf|axt|axt+ output format; required (lastz's default, lav, is not built)\n"
"  --output=FILE              output file (default: standard output)\n"
"  --threads=N                (hspz's own) compute the passes (query records x strands) on N\n"
"                             threads; the same bytes for every N\n"
"  --ydrop=N, Y=N             y-drop (default gap_open + 300 * gap_extend = 9400)\n"
"  --gappedthresh=N, L=N      keep alignments scoring at least N (default 3000)\n"
"  --strand=plus|minus|both   query strand(s) (default both)\n"
"  --ambiguous=n|iupac[,R,P]  scores of N / IUPAC letters\n"
"  --scores=FILE              LASTZ score file (matrix, bad/fill scores, gap penalties, y_drop, ...)\n"
"  --allocate:traceback=V, --traceback=V, m=V   traceback memory (default 80M)\n"
"  --inner=N, H=N             interpolation: alignments scoring >= N between and around the\n"
"                             others (make_lastz_chains: H=2000)\n"
"Sequence actions: [multiple] (needed on the target), [subset=FILE], [nameparse=darkspace],\n"
"[start,end]; FILE/NAME selects one record (make_lastz_chains' 'REF.2bit/CHROM[s,e][multiple]').\n"
"\n"
"\n"
"hspz gapped --outdir OUTDIR -r TARGET -q QUERY [--threads N] [--force]\n"
"  runs every line of OUTDIR/lastz-commands.txt (hspz run's output folder), reading TARGET and\n"
"  QUERY (the files given to hspz run) where the lines name work/ref.2bit and work/query.2bit,\n"
"  on N worker processes; each line writes its --output file and its 2> file in OUTDIR, the\n"
"  bytes lastz writes for it.  TARGET and QUERY must have the sha256 OUTDIR/manifest.json\n"
"  records; outputs stay inside OUTDIR and are new files unless --force is given.\n"
"\n"
"  --notrivial                leave out LASTZ's trivial self-alignments (identical records; not\n"
"                             its second check for partially identical [multiple] queries)\n"
"Not built yet (refused with a message; run lastz for them):\n"
"--ambiguous together with --inner, --format=maf+/lav/sam/general/...,\n"
"'rewind' lines, and every other lastz option.\n";

typedef struct {
    const char *spec[2];          /* raw specifiers */
    char *file[2], *subset[2];
    int multiple[2], darkspace[2];
    char *recname[2];             /* FILE/NAME: the one record (raw name) */
    uint64_t rs[2], re[2];        /* [s,e] sub-range, 1-based closed; rs = 0: whole records */
    const char *segments, *output, *format, *ambiguous, *scores;
    hz_seqset *pre[2];            /* sequences loaded by the caller (--outdir mode), else NULL */
    int strand;                   /* 1 plus, 2 minus, 3 both */
    int64_t tb_bytes;
    int32_t ydrop, gapped;        /* valid when have_ydrop / have_gapped */
    int have_ydrop, have_gapped;
    int32_t inner;                /* --inner / H= (0: off) */
    int threads;                  /* --threads=N: passes computed on N threads */
    int total; int *running;      /* --outdir mode: all threads, and the number of line processes
                                   * running now (shared memory): a pass started when fewer lines
                                   * run gets a larger share of the threads */
    int notrivial;                /* --notrivial (§5.10) */
    int outdir, force;            /* --outdir mode (outputs inside DIR, new unless --force) */
    const char *inputs[2];        /* --outdir mode: the -r / -q files */
    char **args; int nargs;       /* header ARGS (§7.4) */
} gopts;

static int die(const char *fmt, ...)
{
    va_list ap; va_start(ap, fmt);
    vfprintf(stderr, fmt, ap); va_end(ap);
    fputc('\n', stderr);
    return 1;
}

/* --traceback value (§0.2): integer or decimal with K/M/G, rounded in single precision */
static int64_t parse_units(const char *s)
{
    char *e; errno = 0;
    double v = strtod(s, &e);
    if (e == s || errno) return -1;
    float mult = 1;
    if (*e == 'K' || *e == 'k') { mult = 1024.0f; e++; }
    else if (*e == 'M' || *e == 'm') { mult = 1024.0f * 1024.0f; e++; }
    else if (*e == 'G' || *e == 'g') { mult = 1024.0f * 1024.0f * 1024.0f; e++; }
    if (*e) return -1;
    if (strchr(s, '.') || mult != 1) return (int64_t)((float)v * mult + 0.5f);
    return (int64_t)v;
}

static int parse_int(const char *s, int32_t *out)
{
    char *e; errno = 0;
    if (!((*s >= '0' && *s <= '9') || ((*s == '-' || *s == '+') && s[1] >= '0' && s[1] <= '9'))) return -1;
    long v = strtol(s, &e, 10);
    if (e == s || *e || errno || v < -2147483647L || v > 2147483647L) return -1;
    *out = (int32_t)v;
    return 0;
}

/* a score option's value (Y=, L=, H=): hspz reads plain decimal integers only; lastz also
 * reads other spellings (1.5, 1K, 1e3, 0x10, ' 5'), so anything else is refused with the
 * line that says to run lastz, never called a bad value (issue 34). */
static int parse_score(const char *a, const char *v, int32_t *out)
{
    if (!parse_int(v, out)) return 0;
    return die("hspz gapped: '%s': hspz gapped reads plain decimal integers only (this value is not supported); run lastz for it", a);
}

/* split SPEC into file and [actions] (§1.2) */
static int parse_spec(gopts *o, int w, const char *spec)
{
    o->spec[w] = spec;
    const char *b = strchr(spec, '[');
    size_t fl = b ? (size_t)(b - spec) : strlen(spec);
    o->file[w] = strndup(spec, fl);
    /* FILE/NAME (family B): the file is the longest prefix that exists */
    if (access(o->file[w], F_OK)) {
        char *sl = strrchr(o->file[w], '/');
        if (sl && sl != o->file[w]) { *sl = 0; if (!access(o->file[w], F_OK)) o->recname[w] = strdup(sl + 1); else *sl = '/'; }
    }
    while (b && *b == '[') {
        const char *e = strchr(b, ']');
        if (!e) return die("hspz gapped: bad sequence specifier '%s' (unclosed '[')", spec);
        size_t n = (size_t)(e - b - 1);
        if (n == 8 && !strncmp(b + 1, "multiple", 8)) o->multiple[w] = 1;
        else if (n == 19 && !strncmp(b + 1, "nameparse=darkspace", 19)) o->darkspace[w] = 1;
        else if (n > 7 && !strncmp(b + 1, "subset=", 7)) { free(o->subset[w]); o->subset[w] = strndup(b + 8, n - 7); }
        else if (n > 0 && b[1] >= '0' && b[1] <= '9') {            /* [s,e] sub-range */
            unsigned long long x, y; int used = 0;
            if (sscanf(b + 1, "%llu,%llu%n", &x, &y, &used) != 2 || (size_t)used != n || x < 1 || y < x)
                return die("hspz gapped: bad sub-range '[%.*s]' in '%s' (hspz gapped takes [start,end])", (int)n, b + 1, spec);
            o->rs[w] = x; o->re[w] = y;
        }
        else return die("hspz gapped: sequence action '[%.*s]' in '%s' is not supported by hspz gapped; run lastz for it", (int)n, b + 1, spec);
        b = e + 1;
    }
    if (b && *b) return die("hspz gapped: bad sequence specifier '%s'", spec);
    if (o->recname[w] && o->subset[w]) return die("hspz gapped: '%s' names a record and a subset; run lastz for it", spec);
    if (o->rs[w] && !o->recname[w]) return die("hspz gapped: a sub-range needs FILE/NAME in '%s'; run lastz for it", spec);
    return 0;
}

static int parse_args(gopts *o, int argc, char **argv)
{
    int npos = 0;
    o->strand = 3; o->tb_bytes = 80 * 1024 * 1024; o->ydrop = o->gapped = -1;
    o->args = calloc((size_t)argc + 1, sizeof *o->args);
    if (!o->args) return die("hspz gapped: out of memory");
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (a[0] != '-' && !strchr(a, '=') ) {
            if (npos == 2) return die("hspz gapped: unexpected argument '%s'", a);
            if (parse_spec(o, npos++, a)) return 1;
            continue;
        }
        if (a[0] != '-' && strchr(a, '[') && strchr(a, '=') > strchr(a, '[')) {   /* FILE[subset=...] */
            if (npos == 2) return die("hspz gapped: unexpected argument '%s'", a);
            if (parse_spec(o, npos++, a)) return 1;
            continue;
        }
        const char *v = strchr(a, '=') ? strchr(a, '=') + 1 : NULL;
        if (!strncmp(a, "--threads=", 10)) {               /* hspz's own option: not in lastz's ARGS */
            int32_t t;
            if (parse_int(v, &t) || t < 1 || t > 1024) return die("hspz gapped: bad --threads '%s'", a);
            o->threads = t;
            continue;
        }
        o->args[o->nargs++] = a;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { fputs(GAPPED_USAGE, stdout); exit(0); }
        else if (!strncmp(a, "--segments=", 11)) o->segments = v;
        else if (!strncmp(a, "--output=", 9)) o->output = v;
        else if (!strncmp(a, "--format=", 9)) {
            if (strcmp(v, "maf-") && strcmp(v, "maf") && strcmp(v, "axt") && strcmp(v, "axt+"))
                return die("hspz gapped: --format=%s is not supported by hspz gapped (maf-, maf, axt, axt+ are); run lastz for it", v);
            o->format = v;
        }
        else if (!strncmp(a, "--ydrop=", 8) || !strncmp(a, "Y=", 2)) {
            if (parse_score(a, v, &o->ydrop)) return 1;
            o->have_ydrop = 1;
        }
        else if (!strncmp(a, "--gappedthresh=", 15) || !strncmp(a, "L=", 2)) {
            if (parse_score(a, v, &o->gapped)) return 1;
            o->have_gapped = 1;
        }
        else if (!strncmp(a, "--strand=", 9)) {
            if (!strcmp(v, "plus")) o->strand = 1;
            else if (!strcmp(v, "minus")) o->strand = 2;
            else if (!strcmp(v, "both")) o->strand = 3;
            else return die("hspz gapped: bad strand '%s'", a);
        }
        else if (!strncmp(a, "--ambiguous=", 12)) o->ambiguous = v;
        else if (!strcmp(a, "--notrivial")) o->notrivial = 1;
        else if (!strncmp(a, "--scores=", 9) || !strncmp(a, "Q=", 2)) o->scores = v;
        else if (!strncmp(a, "--allocate:traceback=", 21) || !strncmp(a, "--traceback=", 12) || !strncmp(a, "m=", 2)) {
            o->tb_bytes = parse_units(v);
            if (o->tb_bytes < 0) return die("hspz gapped: '%s': hspz gapped reads a number with an optional K, M or G only; run lastz for it", a);
            if (o->tb_bytes < 100 * 1024) return die("FAILURE: --traceback has to be at least 100K");
        }
        else if (!strncmp(a, "--inner=", 8) || !strncmp(a, "H=", 2)) {
            if (parse_score(a, v, &o->inner)) return 1;
            if (o->inner < 0) o->inner = 0;        /* lastz: interpolation only when > 0 */
        }
        else return die("hspz gapped: lastz option '%s' is not supported by hspz gapped; run lastz for it", a);
    }
    /* lastz checks the last y-drop given after reading every option (the first line of its
     * message; lastz adds its usage text) */
    if (o->have_ydrop && o->ydrop <= 0) return die("%d is not a legitimate y-drop threshold", o->ydrop);
    /* lastz's default format is lav, which [multiple] refuses; hspz gapped does not write lav */
    if (!o->format) return die("hspz gapped: no --format: lastz's default format (lav) is not supported by hspz gapped (maf-, maf, axt, axt+ are); give --format or run lastz for it");
    if (npos < 2) return die("hspz gapped: needs a target and a query (see hspz gapped --help)");
    if (!o->segments) return die("hspz gapped: needs --segments=FILE (see hspz gapped --help)");
    return 0;
}

/* LASTZ's short name of a header (§1.3) */
static char *short_name(const char *h, int darkspace)
{
    while (*h == '>') h++;
    while (*h == ' ' || *h == '\t') h++;
    size_t n = 0;
    while (h[n] && h[n] != ' ' && h[n] != '\t' && (darkspace || (h[n] != '|' && h[n] != ':'))) n++;
    static const char *SUF[] = { ".nib", ".2bit", ".hsx", ".fasta", ".fa" };
    for (int k = 0; k < 5; k++) {
        size_t l = strlen(SUF[k]);
        if (n > l && !memcmp(h + n - l, SUF[k], l)) n -= l;
    }
    return strndup(h, n);
}

/* the records a [subset=FILE] selects, in file order (§1.2); -1 on error (message written) */
static int select_records(const hz_seqset *s, const char *subset, const char *recname, size_t **idx, size_t *n)
{
    *idx = malloc((s->n + 1) * sizeof **idx); *n = 0;
    if (!*idx) return die("hspz gapped: out of memory");
    if (recname) {
        for (size_t i = 0; i < s->n; i++) if (!strcmp(s->name[i], recname)) { (*idx)[(*n)++] = i; return 0; }
        return die("FAILURE: %s does not contain %s", s->path, recname);
    }
    if (!subset) { for (size_t i = 0; i < s->n; i++) (*idx)[(*n)++] = i; return 0; }
    FILE *f = fopen(subset, "r");
    if (!f) return die("FAILURE: fopen_or_die failed to open \"%s\" for \"r\"", subset);
    char *line = NULL; size_t cap = 0; size_t from = 0; int any = 0;
    while (getline(&line, &cap, f) >= 0) {
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '#') continue;
        size_t l = strcspn(p, " \t\r\n#");
        if (!l) continue;
        p[l] = 0; any = 1;
        size_t i = from;
        while (i < s->n && strcmp(s->name[i], p)) i++;
        if (i >= s->n) {               /* lastz's two lines; p points into line: print, then free */
            die("FAILURE: %s does not contain (or contains out of order)\n         the sequence \"%s\"", s->path, p);
            fclose(f); free(line); return 1;
        }
        (*idx)[(*n)++] = i; from = i + 1;
    }
    fclose(f); free(line);
    if (!any) return die("FAILURE: contigs-of-interest file is empty (%s)", subset);
    return 0;
}

static uint8_t complement(uint8_t c)
{
    static const char F[] = "ACGTRYKMBVDHSWNacgtrykmbvdhswn", R[] = "TGCAYRMKVBHDSWNtgcayrmkvbhdswn";
    const char *p = c ? strchr(F, c) : NULL;
    return p ? (uint8_t)R[p - F] : c;
}

static int same_upper(const uint8_t *a, const uint8_t *b, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (((a[i] >= 'a' && a[i] <= 'z') ? a[i] - 32 : a[i]) != ((b[i] >= 'a' && b[i] <= 'z') ? b[i] - 32 : b[i])) return 0;
    return 1;
}

/* LASTZ's trivial self-alignments (§5.10), only when the strands agree: the first target
 * partition equal to the query record (pair (k,-1)), or every partition of a partitioned query
 * equal to its counterpart (pairs (k,k)).  Writes up to 2*T->n ints to tv; returns the pair count. */
static int32_t trivial_pairs(const hz_gside *T, const hz_gside *Qp, const uint8_t *q, int64_t qlen, int32_t *tv)
{
    if (Qp) {
        if (Qp->n != T->n) return 0;
        for (int32_t k = 0; k < T->n; k++)
            if (T->rlen[k] != Qp->rlen[k] || !same_upper(T->T + T->sep[k] + 1, Qp->T + Qp->sep[k] + 1, T->rlen[k])) return 0;
        for (int32_t k = 0; k < T->n; k++) { tv[2 * k] = k; tv[2 * k + 1] = k; }
        return T->n;
    }
    for (int32_t k = 0; k < T->n; k++)
        if (T->rlen[k] == qlen && same_upper(T->T + T->sep[k] + 1, q, qlen)) { tv[0] = k; tv[1] = -1; return 1; }
    return 0;
}

static void free_side(hz_gside *T)
{
    for (int32_t k = 0; k < T->n; k++) free(T->name[k]);
    free(T->T); free(T->sep); free(T->name); free(T->rlen); free(T->start); free(T->tru);
    memset(T, 0, sizeof *T);
}

/* the selected records (sub-range [rs,re] 1-based when rs > 0) as one partitioned sequence */
static int build_side(const hz_seqset *s, const size_t *idx, size_t n, int darkspace, uint64_t rs, uint64_t re,
                      const char *spec, hz_gside *T)
{
    int64_t tot = 1;
    for (size_t i = 0; i < n; i++) tot += (int64_t)s->len[idx[i]] + 1;
    T->T = malloc((size_t)tot + 1); T->sep = malloc((n + 1) * sizeof *T->sep);
    T->name = calloc(n + 1, sizeof *T->name); T->rlen = malloc((n + 1) * sizeof *T->rlen);
    T->start = malloc((n + 1) * sizeof *T->start); T->tru = malloc((n + 1) * sizeof *T->tru);
    if (!T->T || !T->sep || !T->name || !T->rlen || !T->start || !T->tru) return die("hspz gapped: out of memory");
    int64_t p = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t full = s->len[idx[i]], b = 0, l = full;
        if (rs) {
            if (re > full || rs > re) return die("FAILURE: sub-range [%llu,%llu] is outside %s (length %llu)", (unsigned long long)rs, (unsigned long long)re, spec, (unsigned long long)full);
            b = rs - 1; l = re - rs + 1;
        }
        T->sep[i] = p; T->T[p++] = 0;
        memcpy(T->T + p, s->data + s->off[idx[i]] + b, l);
        p += (int64_t)l;
        T->rlen[i] = (int64_t)l; T->start[i] = (int64_t)b + 1; T->tru[i] = (int64_t)full;
        T->name[i] = short_name(s->name[idx[i]], darkspace);
        if (!T->name[i]) return die("hspz gapped: out of memory");
    }
    T->sep[n] = p; T->T[p] = 0; T->len = p; T->n = (int32_t)n;
    return 0;
}

/* Passes (§1.4) are read in order on the calling thread, computed on up to `threads` worker
 * threads (independent, spec §12) and written strictly in pass order, so the bytes (output,
 * stderr, axt numbering) never depend on the thread count. */
typedef struct {
    hz_gpass P; hz_gseg *segs; int64_t nseg;
    uint8_t *qown;                           /* query bytes owned by the job */
    char *qname; const char *nm1[1]; const char *const *qnames; const int64_t *qtrue, *qstart;
    int64_t tru, start; int st, noted;
    int32_t *triv; int notrivial;
    hz_gset S, I; const hz_galn **L; int64_t nl; int rc;
    char *dbuf; size_t dlen; FILE *dfile;    /* the pass's truncation lines */
    int done, ithreads;                      /* ithreads: threads inside the pass (gapped_par.c) */
} pjob;

typedef struct {
    gopts *o; hz_gscore *sc; const hz_gside *T; hz_gsegrd *r; FILE *out;
    hz_gwork w; int maf, plus, noted; int64_t axt_n;
    int threads; pthread_t *tid; int nt;
    pthread_mutex_t mu; pthread_cond_t cv;
    pjob **q; int64_t nposted, ntaken, ncommit, qcap; int stop, active;
} grun;

static void compute_job(pjob *j, hz_gwork *w)
{
    hz_ganchor *an = NULL;
    int64_t nan = hz_gapped_anchors(&j->P, j->segs, j->nseg, 1, &an);
    j->rc = 0;
    if (nan < 0 || hz_gapped_pass_par(&j->P, w, an, nan, &j->S, j->ithreads, NULL)) j->rc = -1;
    else if (j->notrivial && j->P.ntrivial) {      /* §5.7: not output, not interpolated around */
        int32_t m = 0;
        for (int32_t k = 0; k < j->S.n; k++) if (!j->S.a[j->S.kept[k]].trivial) j->S.kept[m++] = j->S.kept[k];
        j->S.nout = m;
    }
    if (j->rc) ;
    else if (j->P.sc->inner > 0) j->rc = hz_gapped_interpolate(&j->P, w, &j->S, &j->I, &j->L, &j->nl);   /* §6 */
    else if ((j->L = malloc(((size_t)j->S.n + 1) * sizeof *j->L))) for (int32_t k = 0; k < j->S.nout; k++) j->L[j->nl++] = &j->S.a[j->S.kept[k]];
    else j->rc = -1;
    free(an);
    if (j->dfile) { fclose(j->dfile); j->dfile = NULL; }
}

/* threads inside a pass started while `active` passes of this command run (gapped_par.c) */
static int pass_threads(const grun *g, int active)
{
    int share = g->threads;
    if (g->o->running) {                      /* --outdir: the threads of lines that finished */
        int np = __atomic_load_n(g->o->running, __ATOMIC_RELAXED);
        int t = g->o->total / (np > 1 ? np : 1);
        if (t > share) share = t;
    }
    return share / active > 1 ? share / active : 1;
}

static void *worker(void *arg)
{
    grun *g = arg;
    hz_gwork w = { 0 };
    pthread_mutex_lock(&g->mu);
    for (;;) {
        while (g->ntaken == g->nposted && !g->stop) pthread_cond_wait(&g->cv, &g->mu);
        if (g->ntaken == g->nposted) break;
        pjob *j = g->q[g->ntaken++];
        g->active++;                              /* share the threads among the running passes */
        j->ithreads = pass_threads(g, g->active);
        pthread_mutex_unlock(&g->mu);
        compute_job(j, &w);
        pthread_mutex_lock(&g->mu);
        j->done = 1; g->active--;
        pthread_cond_broadcast(&g->cv);
    }
    pthread_mutex_unlock(&g->mu);
    hz_gwork_free(&w);
    return NULL;
}

/* write the oldest job (waiting for it) and free it; 1 on an error */
static int commit_one(grun *g)
{
    pthread_mutex_lock(&g->mu);
    pjob *j = g->q[g->ncommit];
    while (!j->done) pthread_cond_wait(&g->cv, &g->mu);
    g->q[g->ncommit++] = NULL;
    pthread_mutex_unlock(&g->mu);
    int rc = 0;
    for (size_t i = 0; i < j->dlen;) {            /* truncation lines; the note after the file's first */
        size_t e = i; while (e < j->dlen && j->dbuf[e] != '\n') e++;
        fwrite(j->dbuf + i, 1, e - i + (e < j->dlen), stderr);
        if (!g->noted) { g->noted = 1; fputs("truncation can be reduced by using --allocate:traceback to increase traceback memory\n", stderr); }
        i = e + 1;
    }
    if (j->rc) rc = die("hspz gapped: out of memory");
    else {
        hz_gnames nm = { (const char *const *)g->T->name, g->T->tru, g->T->start, j->qnames, j->qtrue, j->qstart, j->st == 2 };
        int wr = g->maf ? hz_gapped_write_maf(g->out, &j->P, j->L, j->nl, &nm)
                        : hz_gapped_write_axt(g->out, &j->P, j->L, j->nl, &nm, g->plus, &g->axt_n);
        if (wr || fflush(g->out)) rc = die("hspz gapped: write error on %s: %s", g->o->output ? g->o->output : "standard output", strerror(errno));
    }
    free(j->L); hz_gset_free(&j->I); hz_gset_free(&j->S); free(j->segs); free(j->triv); free(j->qown); free(j->qname); free(j->dbuf);
    free(j);
    return rc;
}

static int commit_all(grun *g)
{
    int rc = 0;
    while (g->ncommit < g->nposted) rc |= commit_one(g);
    return rc;
}

/* read one pass's lines and hand it to the workers; qown / qname are taken over.  1 on an error
 * (all earlier passes written first, then the message, as lastz orders them) */
static int one_pass(grun *g, const hz_gside *Qp, uint8_t *qown, const uint8_t *Q, int64_t ql, char *qname,
                    const int64_t *qtrue, const int64_t *qstart, int st)
{
    hz_gsegvec sv = { 0 };
    char *mbuf = NULL; size_t mlen = 0;
    g->r->msg = open_memstream(&mbuf, &mlen);
    int bad = hz_gsegrd_pass(g->r, g->T, Qp, Qp ? Qp->name[0] : qname, ql, st == 1 ? '+' : '-', &sv);
    if (g->r->msg) fclose(g->r->msg);
    g->r->msg = NULL;
    if (bad) {
        int rc = commit_all(g);
        if (mbuf) fwrite(mbuf, 1, mlen, stderr);
        free(mbuf); free(sv.v); free(qown); free(qname);
        return rc | 1;
    }
    free(mbuf);
    pjob *j = calloc(1, sizeof *j);
    if (!j) return die("hspz gapped: out of memory");
    j->segs = sv.v; j->nseg = sv.n; j->qown = qown; j->qname = qname; j->st = st; j->noted = 1;
    if (Qp) { j->qnames = (const char *const *)Qp->name; j->qtrue = Qp->tru; j->qstart = Qp->start; }
    else { j->nm1[0] = qname; j->qnames = j->nm1; j->tru = *qtrue; j->start = *qstart; j->qtrue = &j->tru; j->qstart = &j->start; }
    j->dfile = open_memstream(&j->dbuf, &j->dlen);
    hz_gpass P = { g->T->T, g->T->len, g->T->sep, g->T->n, Q, ql, Qp ? Qp->sep : NULL, Qp ? Qp->n : 0,
                   g->sc, g->sc->gappedthresh, 1 + (g->o->tb_bytes - 8), j->dfile, &j->noted, NULL, 0 };
    j->P = P;
    if (st == 1 && (j->triv = malloc((2 * (size_t)g->T->n + 2) * sizeof *j->triv))) {
        j->P.trivial = j->triv;
        j->P.ntrivial = trivial_pairs(g->T, Qp, Q, ql, j->triv);
    }
    j->notrivial = g->o->notrivial;
    if (g->nposted == g->qcap) {
        int64_t c = g->qcap ? 2 * g->qcap : 64;
        pjob **t = realloc(g->q, (size_t)c * sizeof *t);
        if (!t) return die("hspz gapped: out of memory");
        g->q = t; g->qcap = c;
    }
    if (g->threads <= 1) { j->ithreads = pass_threads(g, 1); compute_job(j, &g->w); j->done = 1; g->q[g->nposted++] = j; return commit_all(g); }
    pthread_mutex_lock(&g->mu);
    g->q[g->nposted++] = j;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    int rc = 0;
    while (!rc && g->nposted - g->ncommit > 2 * (int64_t)g->threads) rc = commit_one(g);   /* bounded memory */
    return rc;
}

/* reverse complement each partition in place (§1.4) */
static void revcomp_parts(hz_gside *Q)
{
    for (int32_t k = 0; k < Q->n; k++) {
        uint8_t *a = Q->T + Q->sep[k] + 1, *b = Q->T + Q->sep[k + 1] - 1;
        while (a < b) { uint8_t t = complement(*a); *a++ = complement(*b); *b-- = t; }
        if (a == b) *a = complement(*a);
    }
}

/* --output=FILE opened for writing (README "Output" rules, docs/gapped.md): never through a
 * symbolic link (O_NOFOLLOW), never one of the command's inputs (by (dev, ino)); in --outdir
 * mode also never an existing file without --force.  NULL with the message written. */
static FILE *open_output(const gopts *o)
{
    const char *in[6] = { o->segments, o->file[0], o->file[1], o->subset[0], o->subset[1], o->scores };
    const char *ex[2] = { o->inputs[0], o->inputs[1] };
    for (int k = 0; k < 6; k++)
        if (in[k] && hz_same_file(o->output, in[k])) { die("hspz gapped: --output=%s is an input of this command (%s); refused", o->output, in[k]); return NULL; }
    for (int k = 0; k < 2; k++)
        if (ex[k] && hz_same_file(o->output, ex[k])) { die("hspz gapped: --output=%s is an input of this command (%s); refused", o->output, ex[k]); return NULL; }
    int fl = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | ((o->outdir && !o->force) ? O_EXCL : O_TRUNC);
    struct stat st;
    int fd = open(o->output, fl, 0666);
    if (fd >= 0 && o->outdir && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
        close(fd); die("hspz gapped: --output=%s is not a regular file; refused", o->output); return NULL;
    }
    if (fd < 0) {
        if (errno == ELOOP) die("hspz gapped: --output=%s is a symbolic link; refused (hspz never writes through one)", o->output);
        else if (errno == EEXIST) die("hspz gapped: --output=%s exists; refused without --force", o->output);
        else die("FAILURE: fopen_or_die failed to open \"%s\" for \"w\"", o->output);
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) { close(fd); die("hspz gapped: out of memory"); }
    return f;
}

static int run_gapped(gopts *o)
{
    hz_gscore *sc = malloc(sizeof *sc);
    if (!sc) return die("hspz gapped: out of memory");
    hz_gscore_default(sc);
    if (o->scores) {                     /* score file (§2.2); command-line values win */
        int32_t fy = -1, fl = -1; char e[1024];
        if (hz_gscore_load(sc, o->scores, &fy, &fl, e, sizeof e)) return die("FAILURE: %s", e);
        if (fy >= 0) sc->ydrop = fy;
        if (fl >= 0) sc->gappedthresh = fl;
    }
    if (o->have_ydrop) sc->ydrop = o->ydrop;
    if (o->have_gapped) sc->gappedthresh = o->gapped;
    if (o->ambiguous && hz_gscore_ambiguous(sc, o->ambiguous)) return die("hspz gapped: --ambiguous=%s is not supported by hspz gapped (n, iupac, n,R,P and iupac,R,P with integers R, P are); run lastz for it", o->ambiguous);
    sc->inner = o->inner;
    if (o->inner > 0 && o->ambiguous) return die("hspz gapped: --ambiguous together with --inner is not supported yet; run lastz for it");
    hz_gscore_mask(sc);
    hz_seqset ts = { 0 }, qs = { 0 };
    char err[1024];
    if (o->pre[0]) { ts = *o->pre[0]; qs = *o->pre[1]; }
    else {
        if (hz_seqset_load(o->file[0], &ts, err, sizeof err)) return die("hspz gapped: %s", err);
        if (hz_seqset_load(o->file[1], &qs, err, sizeof err)) return die("hspz gapped: %s", err);
    }
    size_t *tix, *qix, tn, qn;
    if (select_records(&ts, o->subset[0], o->recname[0], &tix, &tn) || select_records(&qs, o->subset[1], o->recname[1], &qix, &qn)) return 1;
    if (tn > 1 && !o->multiple[0]) return die("FAILURE: target file %s contains more than one sequence; use [multiple]", o->file[0]);
    if (!o->multiple[0]) return die("hspz gapped: a target without [multiple] is not supported yet; add [multiple] (the same alignments) or run lastz");
    hz_gside T = { 0 }, Qp = { 0 };
    if (build_side(&ts, tix, tn, o->darkspace[0], o->rs[0], o->re[0], o->spec[0], &T)) return 1;
    if (o->multiple[1] && build_side(&qs, qix, qn, o->darkspace[1], o->rs[1], o->re[1], o->spec[1], &Qp)) return 1;
    hz_gsegrd r = { 0 }; r.path = o->segments;
    r.f = fopen(o->segments, "r");
    if (!r.f) return die("FAILURE: fopen_or_die failed to open \"%s\" for \"r\"", o->segments);
    grun g; memset(&g, 0, sizeof g);
    g.o = o; g.sc = sc; g.T = &T; g.r = &r; g.out = stdout; g.threads = o->threads;
    pthread_mutex_init(&g.mu, NULL); pthread_cond_init(&g.cv, NULL);
    if (g.threads > 1) {
        g.tid = calloc((size_t)g.threads, sizeof *g.tid);
        for (int k = 0; g.tid && k < g.threads; k++) if (!pthread_create(&g.tid[k], NULL, worker, &g)) g.nt++;
        if (!g.nt) g.threads = 1;
    }
    if (o->output && !(g.out = open_output(o))) return 1;
    g.maf = !strncmp(o->format, "maf", 3); g.plus = !strcmp(o->format, "axt+");
    if (strcmp(o->format, "maf-")) hz_gapped_write_header(g.out, sc, g.maf, g.plus, o->args, o->nargs);
    int rc = hz_gsegrd_next(&r);
    hz_gside Qm = { 0 };                        /* minus-strand copy of a partitioned query */
    if (o->multiple[1]) {                      /* one pass per strand over all partitions */
        for (int st = 1; st <= 2 && !rc; st++) {
            if (!(o->strand & st)) continue;
            hz_gside *X = &Qp;
            if (st == 2) {
                Qm = Qp; Qm.T = malloc((size_t)Qp.len + 1);
                if (!Qm.T) { rc = die("hspz gapped: out of memory"); break; }
                memcpy(Qm.T, Qp.T, (size_t)Qp.len + 1); revcomp_parts(&Qm); X = &Qm;
            }
            rc = one_pass(&g, X, NULL, X->T, X->len, NULL, NULL, NULL, st);
        }
    } else for (size_t qi = 0; qi < qn && !rc; qi++) {
        size_t rec = qix[qi];
        uint64_t b = 0, ql = qs.len[rec];
        if (o->rs[1]) {
            if (o->re[1] > ql || o->rs[1] > o->re[1]) { rc = die("FAILURE: sub-range is outside %s", o->spec[1]); break; }
            b = o->rs[1] - 1; ql = o->re[1] - o->rs[1] + 1;
        }
        if (ql == 0) continue;
        int64_t tru = (int64_t)qs.len[rec], start = (int64_t)b + 1;
        for (int st = 1; st <= 2 && !rc; st++) {
            if (!(o->strand & st)) continue;
            char *nq = short_name(qs.name[rec], o->darkspace[1]);
            uint8_t *qbuf = malloc((size_t)ql + 2);
            if (!nq || !qbuf) { free(nq); free(qbuf); rc = die("hspz gapped: out of memory"); break; }
            qbuf[0] = 0; qbuf[ql + 1] = 0;
            const uint8_t *src = qs.data + qs.off[rec] + b;
            if (st == 1) memcpy(qbuf + 1, src, (size_t)ql);
            else for (uint64_t i = 0; i < ql; i++) qbuf[1 + i] = complement(src[ql - 1 - i]);
            rc = one_pass(&g, NULL, qbuf, qbuf + 1, (int64_t)ql, nq, &tru, &start, st);
        }
    }
    rc |= commit_all(&g);
    pthread_mutex_lock(&g.mu); g.stop = 1; pthread_cond_broadcast(&g.cv); pthread_mutex_unlock(&g.mu);
    for (int k = 0; k < g.nt; k++) pthread_join(g.tid[k], NULL);
    free(g.tid); free(g.q); free(Qm.T);
    if (!rc && r.have) {
        fprintf(stderr, "FAILURE: extra segments in file (%s: line %d, %s/%s%c)\n%s\n", r.path, r.line, r.t, r.q, r.strand,
                o->multiple[1] ? "(for this usage all + strand segments must appear before all - strand segments)"
                               : "(for this usage segments must appear in the same order as the query file, with\n"
                                 "all + strand segments before all - strand segments for each query)");
        rc = 1;
    }
    if (g.out != stdout && fclose(g.out) && !rc) rc = die("hspz gapped: write error on %s: %s", o->output, strerror(errno));
    fclose(r.f); free(r.buf); hz_gwork_free(&g.w);
    pthread_mutex_destroy(&g.mu); pthread_cond_destroy(&g.cv);
    free_side(&T); free_side(&Qp); free(tix); free(qix); free(sc);
    if (!o->pre[0]) { hz_seqset_free(&ts); hz_seqset_free(&qs); }
    return rc;
}

/* ---- --outdir mode: every line of OUTDIR/lastz-commands.txt, on worker processes ---- */

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

static int run_line(const char *dir, char *line, hz_seqset *ts, hz_seqset *qs, int lineno, int force, int threads,
                    int total, int *running)
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
    gopts o; memset(&o, 0, sizeof o);
    o.outdir = 1; o.force = force; o.inputs[0] = ts->path; o.inputs[1] = qs->path;
    int rc = parse_args(&o, n, av);
    o.threads = threads; o.total = total; o.running = running;
    if (!rc) {
        /* the package's 2bit files are the user's sequences (spec §1.1): read those instead */
        free(o.file[0]); free(o.file[1]);
        o.file[0] = strdup(ts->path); o.file[1] = strdup(qs->path);
        o.pre[0] = ts; o.pre[1] = qs;
        rc = run_gapped(&o);
    }
    return rc;
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

static int hz_gapped_outdir(int argc, char **argv)
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
    int *ord = line_order(dir, lines, nl);
    /* the running count, shared with the lines' processes (pass_threads) */
    int *shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) shared = NULL;
    while (pid && ord && (next < nl || running)) {
        if (next < nl && running < threads) {
            int k = ord[next];
            if (shared) __atomic_store_n(shared, running + 1, __ATOMIC_RELAXED);
            pid_t p = fork();
            if (p < 0) { rc = die("hspz gapped: fork: %s", strerror(errno)); break; }
            if (p == 0) _exit(run_line(dir, lines[k], &ts, &qs, k + 1, force, per, threads, shared) ? 1 : 0);
            pid[k] = p; next++; running++;
            continue;
        }
        int st; pid_t p = wait(&st);
        if (p < 0) break;
        running--;
        if (shared) __atomic_store_n(shared, running, __ATOMIC_RELAXED);
        for (int k = 0; k < nl; k++)
            if (pid[k] == p && (!WIFEXITED(st) || WEXITSTATUS(st))) {
                fprintf(stderr, "hspz gapped: line %d of %s failed (see its .err file)\n", k + 1, path);
                rc = 1;
            }
    }
    if (!pid || !ord) rc = die("hspz gapped: out of memory");
    if (shared) munmap(shared, sizeof *shared);
    for (int k = 0; k < nl; k++) free(lines[k]);
    free(lines); free(pid); free(ord);
    hz_seqset_free(&ts); hz_seqset_free(&qs);
    return rc;
}

int hz_gapped_main(int argc, char **argv)
{
    gopts o; memset(&o, 0, sizeof o);
    if (argc < 2) { fputs(GAPPED_USAGE, stderr); return 2; }
    if (!strcmp(argv[1], "--outdir") || !strncmp(argv[1], "--outdir=", 9)) return hz_gapped_outdir(argc, argv);
    int rc = parse_args(&o, argc, argv);
    if (!rc) rc = run_gapped(&o);
    for (int w = 0; w < 2; w++) { free(o.file[w]); free(o.subset[w]); free(o.recname[w]); }
    free(o.args);
    return rc;
}
