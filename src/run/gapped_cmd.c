/* gapped_cmd — `hspz gapped`: LASTZ 1.04.22's command line for the gapped stage with
 * --segments (../shared/spec/lastz-gapped-spec.md §0.1 family A), the same output bytes. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "gapped.h"
#include "gapped_dev.h"
#include "gapped_cmd.h"
#include "gapped_cmd_impl.h"
#include "outsafe.h"
#include "seqio.h"
#include <jansson.h>
#include <htslib/bgzf.h>
#include <htslib/kstring.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>


static int die(const char *fmt, ...)
{
    va_list ap; va_start(ap, fmt);
    vfprintf(stderr, fmt, ap); va_end(ap);
    fputc('\n', stderr);
    return 1;
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

/* does record i carry the subset name p?  A 2bit record by its raw name (§1.2); a FASTA record
 * by its short name (lastz's find_next_general_fasta_coi compares the shortened header,
 * sequences.c 1.04.22 L5170-5195).  darkspace < 0: raw names (--outdir mode reads the FASTA
 * that stands in for the package's 2bit files). */
static int subset_match(const hz_seqset *s, size_t i, const char *p, int darkspace)
{
    if (darkspace < 0 || !strcmp(s->kind, "2bit")) return !strcmp(s->name[i], p);
    char *sn = short_name(s->name[i], darkspace);
    int eq = sn && !strcmp(sn, p);
    free(sn);
    return eq;
}

/* the records a [subset=FILE] selects, in file order (§1.2); -1 on error (message written).
 * defer (the query of one-record passes): lastz looks a query name up only when the previous
 * record's passes are written, so a name missing after at least one found one keeps the found
 * records and puts lastz's message into *defer (malloc'd) for after their output.  A FASTA's
 * names after the one of its last record are ignored, as lastz reads them. */
static int select_records(const hz_seqset *s, const char *subset, const char *recname, int darkspace,
                          size_t **idx, size_t *n, char **defer)
{
    *idx = malloc((s->n + 1) * sizeof **idx); *n = 0;
    if (!*idx) return die("hspz gapped: out of memory");
    if (recname) {
        for (size_t i = 0; i < s->n; i++) if (!strcmp(s->name[i], recname)) { (*idx)[(*n)++] = i; return 0; }
        return die("FAILURE: 2bit file %s doesn't contain %s", s->path, recname);
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
        /* a FASTA is read in order: once its last record was taken, lastz's search for the
         * next name starts at the end of the file and ends there quietly, ignoring the names
         * left (checked against lastz 1.04.22); a 2bit (or --outdir's stand-in) fails them */
        if (*n > 0 && from >= s->n && darkspace >= 0 && strcmp(s->kind, "2bit")) break;
        size_t i = from;
        while (i < s->n && !subset_match(s, i, p, darkspace)) i++;
        if (i >= s->n && defer && *n > 0) {
            size_t m = strlen(s->path) + strlen(p) + 100;
            if ((*defer = malloc(m)))
                snprintf(*defer, m, "FAILURE: %s does not contain (or contains out of order)\n         the sequence \"%s\"\n", s->path, p);
            fclose(f); free(line);
            return *defer ? 0 : die("hspz gapped: out of memory");
        }
        if (i >= s->n) {               /* lastz's two lines; p points into line: print, then free */
            die("FAILURE: %s does not contain (or contains out of order)\n         the sequence \"%s\"", s->path, p);
            fclose(f); free(line); return 1;
        }
        (*idx)[(*n)++] = i; from = i + 1;
    }
    fclose(f); free(line);
    if (!any) return die("FAILURE: contigs-of-interest file is empty: %s", subset);
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
    if (Qp) {                   /* an unpartitioned target: lastz has no rule for this pair */
        if (Qp->n != T->n || T->unpart) return 0;
        for (int32_t k = 0; k < T->n; k++)
            if (T->rlen[k] != Qp->rlen[k] || !same_upper(T->T + T->sep[k] + 1, Qp->T + Qp->sep[k] + 1, T->rlen[k])) return 0;
        for (int32_t k = 0; k < T->n; k++) { tv[2 * k] = k; tv[2 * k + 1] = k; }
        return T->n;
    }
    for (int32_t k = 0; k < T->n; k++)
        if (T->rlen[k] == qlen && same_upper(T->T + T->sep[k] + 1, q, qlen)) { tv[0] = k; tv[1] = -1; return 1; }
    return 0;
}

/* the byte hspz's 2bit writer keeps (package.c): letters other than ACGTacgt become N, or n
 * when lower case (spec §1.1); applied while a side is copied, so the caller's (the run's)
 * sequences are never changed */
static uint8_t twobit_byte(uint8_t c)
{
    switch (c) { case 'A': case 'C': case 'G': case 'T': case 'a': case 'c': case 'g': case 't': return c; }
    return (c >= 'a' && c <= 'z') ? 'n' : 'N';
}

static void free_side(hz_gside *T)
{
    for (int32_t k = 0; k < T->n; k++) free(T->name[k]);
    free(T->T); free(T->sep); free(T->name); free(T->rlen); free(T->start); free(T->tru);
    memset(T, 0, sizeof *T);
}

/* the selected records (sub-range [rs,re] 1-based when rs > 0) as one partitioned sequence */
static int build_side(const hz_seqset *s, const size_t *idx, size_t n, int darkspace, uint64_t rs, uint64_t re,
                      const char *spec, int twobit, hz_gside *T)
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
        if (twobit) for (uint64_t x = 0; x < l; x++) T->T[p + (int64_t)x] = twobit_byte(T->T[p + (int64_t)x]);
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
    const hz_gside *T; const char *traw, *qraw;  /* lastz's raw headers of unpartitioned sides */
    hz_gset S, I; const hz_galn **L; int64_t nl; int rc;
    char *dbuf; size_t dlen; FILE *dfile;    /* the pass's truncation lines */
    int done, ithreads;                      /* ithreads: threads inside the pass (gapped_par.c) */
    struct grun *g;                          /* for pass_allow */
    hz_gdev *dev; char derr[256];            /* speculative extensions on a device (gapped_dev.h) */
} pjob;

typedef struct grun {
    gopts *o; hz_gscore *sc; const hz_gside *T; hz_gsegrd *r; FILE *out;
    const char *traw;                        /* see pjob */
    hz_gwork w; int maf, plus, noted; int64_t axt_n;
    int threads, pool; pthread_t *tid; int nt;   /* pool: worker threads (--outdir: all of hspz's) */
    hz_gdev *dev;
    hz_gqcls qcls;                           /* sc's query classes (the DP's row tables) */
    pthread_mutex_t mu; pthread_cond_t cv;
    pjob **q; int64_t nposted, ntaken, ncommit, qcap; int stop, active;
} grun;

/* --notrivial's second check (gapped_extend.c L1111-1133, L1462-1530): when a side is
 * partitioned and no trivial alignment was found, an output alignment that is one DIAG piece
 * over a whole target record (its true length) equal in true length to its query record, with
 * equal names (a partition's short name; an unpartitioned side's raw header) and byte-equal
 * bases (case counts) is dropped. */
static void drop_delayed_trivial(pjob *j)
{
    const hz_gside *T = j->T; const hz_gpass *P = &j->P;
    int32_t m = 0;
    for (int32_t k = 0; k < j->S.nout; k++) {
        const hz_galn *a = &j->S.a[j->S.kept[k]];
        int drop = 0;
        if (a->npc == 1 && a->pc[0].type == HZ_PC_DIAG) {
            int32_t p1 = hz_gapped_part(T->sep, T->n, a->s1);
            int32_t p2 = P->qsep ? hz_gapped_part(P->qsep, P->nqpart, a->s2) : 0;
            const char *n1 = T->unpart ? j->traw : T->name[p1], *n2 = P->qsep ? j->qnames[p2] : j->qraw;
            int64_t l1 = T->tru[p1], l2 = j->qtrue[p2], n = a->t1 + 1 - a->s1;
            drop = l1 == l2 && n == l1 && !strcmp(n1, n2) && !memcmp(P->T + a->s1, P->Q + a->s2, (size_t)n);
        }
        if (!drop) j->S.kept[m++] = j->S.kept[k];
    }
    j->S.nout = m;
}

void hz_gapped_mark(const char *fmt, ...)
{
    const char *e = getenv("HSPZ_GAPPED_STATS");
    if (!e || strcmp(e, "1")) return;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    char msg[256];
    va_list ap; va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap); va_end(ap);
    fprintf(stderr, "hspz gapped: at %.6f s (pid %ld): %s\n", (double)t.tv_sec + 1e-9 * (double)t.tv_nsec, (long)getpid(), msg);
}

static int pass_allow(void *ctx);

static void compute_job(pjob *j, hz_gwork *w)
{
    hz_ganchor *an = NULL;
    int64_t nan = hz_gapped_anchors(&j->P, j->segs, j->nseg, 1, &an);
    j->rc = 0;
    hz_gdres *R = NULL; int64_t nredo = 0;
    hz_gapped_mark("a pass of %lld anchors begins", (long long)nan);
    struct timespec d0, d2;
    clock_gettime(CLOCK_MONOTONIC, &d0);
    int dfail = nan >= 2 && j->dev && hz_gdev_pass(j->dev, &j->P, an, nan, &R, j->derr, sizeof j->derr);
    if (dfail) j->rc = -1;
    else if (nan < 0) j->rc = -1;
    else if (!R && j->ithreads <= 1 && (!j->g || j->g->pool <= 1) && getenv("HSPZ_GAPPED_STATS") &&
             !strcmp(getenv("HSPZ_GAPPED_STATS"), "chain")) {      /* the order's serial bound (bench/) */
        if (hz_gapped_pass_chain(&j->P, w, an, nan, &j->S, stderr)) j->rc = -1;
    }
    else if (j->ithreads > 1 && j->g && j->g->pool > j->ithreads) {   /* may grow up to the pool */
        if (hz_gapped_pass_dyn(&j->P, w, an, nan, &j->S, j->g->pool, pass_allow, j->g, &nredo, R ? hz_gdres_take : NULL, R)) j->rc = -1;
    }
    else if (hz_gapped_pass_pre(&j->P, w, an, nan, &j->S, j->ithreads, &nredo, R ? hz_gdres_take : NULL, R)) j->rc = -1;
    /* the device stops at its next launch: rounds of halves run again (a pool smaller than the
     * pass) would otherwise go on for results no longer needed; a device error fails the line */
    if (R && hz_gdres_finish(R, j->derr, sizeof j->derr)) j->rc = -1;
    clock_gettime(CLOCK_MONOTONIC, &d2);
    if (R && getenv("HSPZ_GAPPED_STATS") && !strcmp(getenv("HSPZ_GAPPED_STATS"), "1")) {           /* how much the device did (bench/) */
        int64_t ok, left, nl, nre, use[3], cap[3]; double busy;
        hz_gdres_counts(R, &ok, &left); hz_gdres_rounds(R, &nl, &nre); hz_gdres_load(R, &busy, use, cap);
        fprintf(stderr, "hspz gapped: pass: %lld anchors, %lld halves on %s in %.3f s (%lld launches, %lld halves run again; "
                "demand at most: pool %.0f of %.0f MiB, run lists %lld of %lld, regions %lld of %lld), "
                "%lld left to the CPU, %lld redone; the pass took %.3f s\n", (long long)nan, (long long)ok, hz_gdev_name(j->dev),
                busy, (long long)nl, (long long)nre, (double)use[0] / 1048576.0, (double)cap[0] / 1048576.0,
                (long long)use[1], (long long)cap[1], (long long)use[2], (long long)cap[2],
                (long long)left, (long long)nredo, (double)(d2.tv_sec - d0.tv_sec) + 1e-9 * (double)(d2.tv_nsec - d0.tv_nsec));
    }
    hz_gdres_free(R);
    if (!j->rc && j->notrivial && j->P.ntrivial) {      /* §5.7: not output, not interpolated around */
        int32_t m = 0;
        for (int32_t k = 0; k < j->S.n; k++) if (!j->S.a[j->S.kept[k]].trivial) j->S.kept[m++] = j->S.kept[k];
        j->S.nout = m;
    }
    else if (j->notrivial && (!j->T->unpart || j->P.qsep)) drop_delayed_trivial(j);
    if (j->rc) ;
    else if (j->P.sc->inner > 0) {
        j->rc = hz_gapped_interpolate(&j->P, w, &j->S, &j->I, &j->L, &j->nl);   /* §6 */
        if (!j->rc && j->notrivial) {          /* a box's trivial alignment (§6.3 step 4, §5.10) */
            int64_t m = 0;
            for (int64_t k = 0; k < j->nl; k++) if (!j->L[k]->trivial) j->L[m++] = j->L[k];
            j->nl = m;
        }
    }
    else if ((j->L = malloc(((size_t)j->S.n + 1) * sizeof *j->L))) for (int32_t k = 0; k < j->S.nout; k++) j->L[j->nl++] = &j->S.a[j->S.kept[k]];
    else j->rc = -1;
    free(an);
    if (j->dfile) { fclose(j->dfile); j->dfile = NULL; }
}

/* the threads this command may use now: its own, or in --outdir mode hspz's threads shared by
 * the line processes still running (a line that finishes leaves its threads to the others) */
static int share_now(const grun *g)
{
    int share = g->threads;
    if (g->o->running) {
        int np = __atomic_load_n(g->o->running, __ATOMIC_RELAXED);
        int t = g->o->total / (np > 1 ? np : 1);
        if (t > share) share = t;
    }
    return share;
}

/* threads inside a pass while `active` passes of this command run (gapped_par.c) */
static int pass_threads(const grun *g, int active)
{
    int share = share_now(g);
    return share / active > 1 ? share / active : 1;
}

/* hz_gallow_fn: a running pass's threads follow the passes and lines still running */
static int pass_allow(void *ctx)
{
    const grun *g = ctx;
    return pass_threads(g, __atomic_load_n(&g->active, __ATOMIC_RELAXED));
}

static void *worker(void *arg)
{
    grun *g = arg;
    hz_gwork w = { 0 };
    pthread_mutex_lock(&g->mu);
    for (;;) {
        /* a new pass starts while fewer passes run than the threads allowed now: passes first
         * (no speculation), the threads left over go into the running passes (pass_allow) */
        while (!g->stop && (g->ntaken == g->nposted || g->active >= share_now(g))) {
            if (g->ntaken == g->nposted) { pthread_cond_wait(&g->cv, &g->mu); continue; }
            struct timespec ts;                   /* held back: ask again as lines finish */
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 50000000;
            if (ts.tv_nsec >= 1000000000) { ts.tv_sec++; ts.tv_nsec -= 1000000000; }
            pthread_cond_timedwait(&g->cv, &g->mu, &ts);
        }
        if (g->ntaken == g->nposted) break;
        pjob *j = g->q[g->ntaken++];
        __atomic_store_n(&g->active, g->active + 1, __ATOMIC_RELAXED);
        j->ithreads = pass_threads(g, g->active);
        pthread_mutex_unlock(&g->mu);
        compute_job(j, &w);
        pthread_mutex_lock(&g->mu);
        j->done = 1; __atomic_store_n(&g->active, g->active - 1, __ATOMIC_RELAXED);
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
    if (j->rc && j->derr[0]) rc = die("hspz gapped: --device: %s", j->derr);
    else if (j->rc) rc = die("hspz gapped: out of memory");
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
                    const char *qraw, const int64_t *qtrue, const int64_t *qstart, int st)
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
                   g->sc, g->sc->gappedthresh, 1 + (g->o->tb_bytes - 8), j->dfile, &j->noted, NULL, 0, 0, NULL };
    j->P = P;
    j->P.tdiag = g->T->unpart ? -1 : 0;
    j->P.qcls = &g->qcls;
    if (st == 1 && (j->triv = malloc((2 * (size_t)g->T->n + 2) * sizeof *j->triv))) {
        j->P.trivial = j->triv;
        j->P.ntrivial = trivial_pairs(g->T, Qp, Q, ql, j->triv);
    }
    j->notrivial = g->o->notrivial;
    j->dev = g->dev; j->g = g;
    j->T = g->T; j->traw = g->traw; j->qraw = qraw;
    if (g->nposted == g->qcap) {
        int64_t c = g->qcap ? 2 * g->qcap : 64;
        pjob **t = realloc(g->q, (size_t)c * sizeof *t);
        if (!t) return die("hspz gapped: out of memory");
        g->q = t; g->qcap = c;
    }
    if (g->pool <= 1) { j->ithreads = pass_threads(g, 1); compute_job(j, &g->w); j->done = 1; g->q[g->nposted++] = j; return commit_all(g); }
    pthread_mutex_lock(&g->mu);
    g->q[g->nposted++] = j;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    int rc = 0;
    while (!rc && g->nposted - g->ncommit > 2 * (int64_t)g->pool) rc = commit_one(g);   /* bounded memory */
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

/* 1 when path opens for reading (lastz's fopen_or_die test). */
static int readable(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    close(fd);
    return 1;
}

/* lastz's own messages for a sequence file it cannot use before reading a record
 * (utilities.c fopen_or_die with "rb"; lastz.c "<side> file %s contains no sequence" for a
 * file of 0 bytes).  side: "target" or "query".  0, or 1 with the message written. */
static int lastz_open_check(const char *path, const char *side)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return die("FAILURE: fopen_or_die failed to open \"%s\" for \"rb\"", path);
    struct stat st;
    int empty = !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size == 0;
    close(fd);
    if (empty) return die("FAILURE: %s file %s contains no sequence", side, path);
    return 0;
}

/* --output=PATH that is a symbolic link, in the drop-in only: lastz fopen()s it "w", and
 * /dev/stdout, /dev/stderr, /dev/fd/N are links to what this process already writes.  Opened
 * without O_CREAT/O_TRUNC (nothing changes yet), then kept only when it resolves to a
 * non-regular file (pipe, terminal, character device, socket) or to the regular file that is
 * already our stdout/stderr (truncated then, as lastz's "w" does).  Any other link: -1 with
 * errno ELOOP (refused: never replace a file through a link). */
static int open_through_link(const char *path)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) { errno = ELOOP; return -1; }
    struct stat st, s1;
    if (fstat(fd, &st)) { close(fd); errno = ELOOP; return -1; }
    if (!S_ISREG(st.st_mode)) return fd;
    for (int k = 1; k <= 2; k++)
        if (!fstat(k, &s1) && s1.st_dev == st.st_dev && s1.st_ino == st.st_ino) {
            if (ftruncate(fd, 0)) break;
            return fd;
        }
    close(fd); errno = ELOOP; return -1;
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
    struct stat st;
    int fd;
    if (o->outdir && o->outtmp) {
        /* --outdir: the name is checked here, the bytes go to a new temporary that the caller
         * renames over it, so a file this run did not create (or another link to it) is never
         * written into (docs/gapped.md "Output files") */
        if (!lstat(o->output, &st)) {
            if (S_ISLNK(st.st_mode)) errno = ELOOP;
            else if (!S_ISREG(st.st_mode)) { die("hspz gapped: --output=%s is not a regular file; refused", o->output); return NULL; }
            else if (!o->force) errno = EEXIST;
            else errno = 0;
            fd = errno ? -1 : hz_out_create(o->outtmp);
        } else fd = hz_out_create(o->outtmp);
    } else {
        int fl = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | ((o->outdir && !o->force) ? O_EXCL : O_TRUNC);
        fd = open(o->output, fl, 0666);
        if (fd >= 0 && o->outdir && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
            close(fd); die("hspz gapped: --output=%s is not a regular file; refused", o->output); return NULL;
        }
    }
    if (fd < 0 && errno == ELOOP && !o->outdir) fd = open_through_link(o->output);
    if (fd < 0) {
        if (errno == ELOOP) die("hspz gapped: --output=%s is a symbolic link; refused (hspz never writes through one)", o->output);
        else if (errno == EEXIST) die("hspz gapped: --output=%s exists; refused without --force", o->output);
        else die("FAILURE: fopen_or_die failed to open \"%s\" for \"wt\"", o->output);
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) { close(fd); die("hspz gapped: out of memory"); }
    return f;
}

static void free_headers(char **h, size_t n)
{
    for (size_t i = 0; h && i < n; i++) free(h[i]);
    free(h);
}

/* The n records' header lines of FASTA file path as lastz keeps them for --notrivial's second
 * check (sequences.c parse_fasta_header: the line after '>' up to '\n' or '\r'; gapped_extend.c
 * L1490: leading blanks skipped).  NULL with the message written. */
static char **fasta_headers(const char *path, size_t n)
{
    BGZF *f = bgzf_open(path, "r");
    char **h = calloc(n + 1, sizeof *h);
    kstring_t ks = { 0, 0, NULL };
    size_t k = 0;
    if (!f || !h) { if (f) bgzf_close(f); free(h); die("hspz gapped: %s: cannot read its header lines", path); return NULL; }
    while (k < n && bgzf_getline(f, '\n', &ks) >= 0) {
        if (!ks.l || ks.s[0] != '>') continue;
        const char *p = ks.s + 1;
        while (*p == ' ' || *p == '\t') p++;
        if (!(h[k++] = strndup(p, strcspn(p, "\r")))) break;
    }
    bgzf_close(f); free(ks.s);
    if (k < n || !h[n - 1]) { free_headers(h, n); die("hspz gapped: %s: cannot read its header lines", path); return NULL; }
    return h;
}

/* lastz's warning for a DNA score file without hsp_threshold (lastz.c 1.04.22 L8951-8995,
 * parse_options: --segments keeps the x-drop HSP mode, so --hspthresh is the option named):
 * the smallest diagonal entry of A C G T below 70, else the largest above 120.  The scan
 * keeps lastz's if / else-if, so a letter that lowers the minimum is not tested as maximum. */
static void score_warning(const hz_gscore *sc, const char *path)
{
    char mn = 'A', mx = 'A';
    int32_t lo = sc->sub['A']['A'], hi = lo;
    for (const char *c = "CGT"; *c; c++) {
        int32_t v = sc->sub[(uint8_t)*c][(uint8_t)*c];
        if (v < lo) { mn = *c; lo = v; }
        else if (v > hi) { mx = *c; hi = v; }
    }
    if (lo < 70)
        fprintf(stderr, "WARNING.  Scores file may warrant setting of thresholds absent from %s.\n"
                "Minimum match score is %d, for matrix entry (%c,%c).\n"
                "This may not work well with default --hspthresh=3000 (may result in few alignments).\n", path, lo, mn, mn);
    else if (hi > 120)
        fprintf(stderr, "WARNING.  Scores file may warrant setting of thresholds absent from %s.\n"
                "Maximum match score is %d, for matrix entry (%c,%c).\n"
                "This may not work well with default --hspthresh=3000 (may result in too many alignments).\n", path, hi, mx, mx);
}

/* lastz's FASTA reader takes A C G T N in either case, and the IUPAC letters only with
 * --ambiguous=iupac; another letter fails the file (sequences.c, 1.04.22: "bad fasta
 * character").  hspz checks the whole file up front: when the first such letter is in a later
 * query record, lastz has written the earlier records' alignments by then; hspz writes none
 * (docs/gapped.md).  Returns 0, or 1 with lastz's two lines on stderr. */
static int fasta_letters(const hz_seqset *s, int iupac)
{
    if (!strcmp(s->kind, "2bit")) return 0;
    for (size_t r = 0; r < s->n; r++) {
        const uint8_t *d = s->data + s->off[r];
        for (uint64_t i = 0; i < s->len[r]; i++) {
            int c = d[i], u = c & ~0x20;
            if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) continue;
            if (strchr("ACGTNX", u) || (iupac && strchr("BDHKMRSVWY", u))) continue;   /* checked live: X is taken */
            char **h = fasta_headers(s->path, s->n);
            fprintf(stderr, "FAILURE: bad fasta character in %s, >%s (%s %c)\n"
                    "remove or replace non-ACGTN characters or consider using --ambiguous=iupac\n",
                    s->path, h ? h[r] : s->name[r], c == u ? "uppercase" : "lowercase", c);
            free_headers(h, s->n);
            return 1;
        }
    }
    return 0;
}

static int run_gapped(gopts *o)
{
    /* every early failure goes to `fail`, which frees what was made so far (LeakSanitizer in
     * the sanitize stage runs these paths through the gapped fuzzer) */
    hz_seqset ts = { 0 }, qs = { 0 };
    size_t *tix = NULL, *qix = NULL, tn = 0, qn = 0;
    char *qdefer = NULL, **th = NULL, **qh = NULL;   /* qdefer: a query name error after the output */
    hz_gside T = { 0 }, Qp = { 0 };
    hz_gsegrd r = { 0 };
    int rc = 1;
    hz_gscore *sc = malloc(sizeof *sc);
    if (!sc) return die("hspz gapped: out of memory");
    hz_gscore_default(sc);
    if (o->scores) {                     /* score file (§2.2); command-line values win */
        int32_t fy = -1, fl = INT32_MIN; char e[1024];      /* a file's L may be negative */
        const char *sn = o->scores_word ? o->scores_word : o->scores;   /* lastz names it so */
        if (!readable(o->scores)) { die("FAILURE: fopen_or_die failed to open \"%s\" for \"rt\"", sn); goto fail; }
        int lr = hz_gscore_load(sc, o->scores, sn, &fy, &fl, e, sizeof e);
        if (lr) { die(lr == -2 ? "%s" : "FAILURE: %s", e); goto fail; }
        if (fy >= 0) sc->ydrop = fy;
        /* lastz.c L8943-8949: without gapped_threshold, L = the HSP threshold, which the
         * file's hsp_threshold sets (--segments keeps the x-drop HSP mode) */
        sc->gappedthresh = fl != INT32_MIN ? fl : sc->hspthresh;
        if (!sc->hsp_set) score_warning(sc, sn);
    }
    if (o->have_ydrop) sc->ydrop = o->ydrop;
    if (o->have_gapped) sc->gappedthresh = o->gapped;
    hz_gscore_mask(sc);                  /* lastz: masked_score_set, then --ambiguous on both */
    if (o->ambiguous && hz_gscore_ambiguous(sc, o->ambiguous)) { die("hspz gapped: --ambiguous=%s is not supported by hspz gapped (n, iupac, n,R,P and iupac,R,P with integers R, P are); run lastz for it", o->ambiguous); goto fail; }
    sc->inner = o->inner;
    if (o->inner > 0 && o->ambiguous) { die("hspz gapped: --ambiguous together with --inner is not supported yet; run lastz for it"); goto fail; }
    char err[1024];
    if (o->pre[0]) { ts = *o->pre[0]; qs = *o->pre[1]; }
    else {
        if (lastz_open_check(o->file[0], "target") || lastz_open_check(o->file[1], "query")) goto fail;
        if (hz_seqset_load(o->file[0], &ts, err, sizeof err)) { die("hspz gapped: %s", err); goto fail; }
        if (hz_seqset_load(o->file[1], &qs, err, sizeof err)) { die("hspz gapped: %s", err); goto fail; }
    }
    if (!o->pre[0]) {
        int iu = o->ambiguous && !strncmp(o->ambiguous, "iupac", 5);
        if (fasta_letters(&ts, iu) || fasta_letters(&qs, iu)) goto fail;
    }
    if (select_records(&ts, o->subset[0], o->recname[0], o->pre[0] ? -1 : o->darkspace[0], &tix, &tn, NULL) ||
        select_records(&qs, o->subset[1], o->recname[1], o->pre[1] ? -1 : o->darkspace[1], &qix, &qn,
                       o->multiple[1] ? NULL : &qdefer)) goto fail;
    /* a target without [multiple] (lastz.c L794-803): exactly one record, not partitioned */
    if (tn > 1 && !o->multiple[0]) {
        die("FAILURE: target file %s contains more than one sequence\n"
            "consider using the \"multiple\" action (see \"lastz --help=files\")", o->file[0]);
        goto fail;
    }
    if (!o->multiple[0] && (!tn || !ts.len[tix[0]])) { die("FAILURE: target file %s contains no sequence", o->file[0]); goto fail; }
    if (build_side(&ts, tix, tn, o->darkspace[0], o->rs[0], o->re[0], o->spec[0], o->twobit, &T)) goto fail;
    T.unpart = !o->multiple[0];
    if (o->multiple[1] && build_side(&qs, qix, qn, o->darkspace[1], o->rs[1], o->re[1], o->spec[1], o->twobit, &Qp)) goto fail;
    r.path = o->segments;
    r.f = fopen(o->segments, "r");
    if (!r.f) { die("FAILURE: fopen_or_die failed to open \"%s\" for \"rt\"", o->segments); goto fail; }
    grun g; memset(&g, 0, sizeof g);
    g.o = o; g.sc = sc; g.T = &T; g.r = &r; g.out = stdout; g.threads = o->threads;
    hz_gscore_qclasses(sc, &g.qcls);
    /* --notrivial's second check compares an unpartitioned side's raw header: a 2bit name (also
     * in --outdir mode: lastz reads the package's 2bit), a FASTA's whole header line */
    int fa_t = !o->pre[0] && strcmp(ts.kind, "2bit"), fa_q = !o->pre[0] && strcmp(qs.kind, "2bit");
    if (o->notrivial && T.unpart && o->multiple[1] && fa_t && !(th = fasta_headers(ts.path, ts.n))) goto fail;
    if (o->notrivial && !T.unpart && !o->multiple[1] && fa_q && !(qh = fasta_headers(qs.path, qs.n))) goto fail;
    g.traw = th ? th[tix[0]] : ts.name[tix[0]];
    pthread_mutex_init(&g.mu, NULL); pthread_cond_init(&g.cv, NULL);
    g.pool = o->running && o->total > g.threads ? o->total : g.threads;
    if (g.pool > 1) {
        g.tid = calloc((size_t)g.pool, sizeof *g.tid);
        for (int k = 0; g.tid && k < g.pool; k++) if (!pthread_create(&g.tid[k], NULL, worker, &g)) g.nt++;
        if (!g.nt) g.threads = g.pool = 1;
    }
    rc = 0;
    if (o->device && strcmp(o->device, "cpu")) {      /* gapped_dev.h; auto: the GPU when usable */
        /* --outdir: total / threads line processes open the GPU at once (gapped_outdir.c "per") */
        int share = o->running && o->threads > 0 && o->total > o->threads ? o->total / o->threads : 1;
        int dr = hz_gdev_open(!strcmp(o->device, "auto") ? "cuda" : o->device, share, &g.dev, err, sizeof err);
        if (dr < 0 || (dr > 0 && strcmp(o->device, "auto"))) { die("hspz gapped: --device=%s: %s", o->device, err); rc = 1; }
        hz_gapped_mark("the device is open");
    }
    if (!rc && o->output && !(g.out = open_output(o))) { g.out = stdout; rc = 1; }
    g.maf = !strncmp(o->format, "maf", 3); g.plus = !strcmp(o->format, "axt+");
    if (!rc && strcmp(o->format, "maf-")) hz_gapped_write_header(g.out, sc, g.maf, g.plus, o->args, o->nargs);
    if (!rc) rc = hz_gsegrd_next(&r);
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
            rc = one_pass(&g, X, NULL, X->T, X->len, NULL, NULL, NULL, NULL, st);
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
        r.qfrom = o->rs[1] ? start : 0; r.qtrue = tru;
        for (int st = 1; st <= 2 && !rc; st++) {
            if (!(o->strand & st)) continue;
            char *nq = short_name(qs.name[rec], o->darkspace[1]);
            uint8_t *qbuf = malloc((size_t)ql + 2);
            if (!nq || !qbuf) { free(nq); free(qbuf); rc = die("hspz gapped: out of memory"); break; }
            qbuf[0] = 0; qbuf[ql + 1] = 0;
            const uint8_t *src = qs.data + qs.off[rec] + b;
            if (st == 1) memcpy(qbuf + 1, src, (size_t)ql);
            else for (uint64_t i = 0; i < ql; i++) qbuf[1 + i] = complement(src[ql - 1 - i]);
            if (o->twobit) for (uint64_t i = 0; i < ql; i++) qbuf[1 + i] = twobit_byte(qbuf[1 + i]);
            rc = one_pass(&g, NULL, qbuf, qbuf + 1, (int64_t)ql, nq, qh ? qh[rec] : qs.name[rec], &tru, &start, st);
        }
    }
    rc |= commit_all(&g);
    if (qdefer && !rc) { fputs(qdefer, stderr); rc = 1; }   /* after the found records' output */
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
    hz_gapped_mark("the output is written");
    hz_gwork_free(&g.w); hz_gdev_close(g.dev);
    if (g.dev) hz_gapped_mark("the device is closed");
    pthread_mutex_destroy(&g.mu); pthread_cond_destroy(&g.cv);
fail:
    if (r.f) fclose(r.f);
    free(r.buf); free(qdefer);
    free_side(&T); free_side(&Qp); free(tix); free(qix); free(sc);
    free_headers(th, ts.n); free_headers(qh, qs.n);
    if (!o->pre[0]) { hz_seqset_free(&ts); hz_seqset_free(&qs); }
    return rc;
}

int hz_gapped_run_line(int argc, char **argv, const hz_seqset *ts, const hz_seqset *qs, int force, int threads,
                       const char *device, const char *cwd, int total, int *running, const char *outtmp)
{
    gopts o; memset(&o, 0, sizeof o);
    o.outdir = 1; o.force = force; o.inputs[0] = ts->path; o.inputs[1] = qs->path; o.outtmp = outtmp;
    int rc = hz_gapped_args(&o, argc, argv);
    o.threads = threads; o.twobit = 1; o.total = total; o.running = running;
    if (device) o.device = device;
    char *scores = NULL;
    /* a relative --scores= names the file given to hspz run -c, relative to where hspz ran
     * (cwd), not to DIR, unless DIR holds one of that name; the header keeps the word as written */
    if (!rc && o.scores && o.scores[0] != '/' && cwd && cwd[0] && access(o.scores, F_OK) &&
        (scores = malloc(strlen(cwd) + strlen(o.scores) + 2))) {
        sprintf(scores, "%s/%s", cwd, o.scores);
        o.scores_word = o.scores; o.scores = scores;
    }
    if (!rc) {
        /* the package's 2bit files are the user's sequences (spec §1.1): read those instead */
        free(o.file[0]); free(o.file[1]);
        o.file[0] = strdup(ts->path); o.file[1] = strdup(qs->path);
        o.pre[0] = (hz_seqset *)ts; o.pre[1] = (hz_seqset *)qs;   /* read only */
        rc = run_gapped(&o);
    }
    free(scores);
    return rc;
}

int hz_gapped_cmd(int argc, char **argv)
{
    gopts o; memset(&o, 0, sizeof o);
    if (argc < 2) { fputs(HZ_GAPPED_USAGE, stderr); return 2; }
    /* lastz --version (lastz.c L7553-7580) names lastz and exits 1; this is hspz, so its line
     * says so (docs/gapped.md) and exits 0, as --version:noerror does */
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "--version:noerror")) {
            printf("hspz gapped %s (hspz, not lastz: lastz 1.04.22's gapped stage with --segments, the same output bytes)\n", HSPZ_VERSION);
            return 0;
        }
    int rc = hz_gapped_args(&o, argc, argv);
    if (!rc) rc = run_gapped(&o);
    for (int w = 0; w < 2; w++) { free(o.file[w]); free(o.subset[w]); free(o.recname[w]); }
    free(o.args);
    return rc;
}
