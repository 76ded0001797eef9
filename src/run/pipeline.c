/* pipeline — input -> plan -> seeds -> gate -> materialize -> dedup -> output, end to end.
 *
 * Work order follows spec §2.7 and §5.5: target block r, query block q, interval k; inside an
 * interval the plus chunks then the minus chunks (§3.5).  Chunks run on worker threads; their
 * results are joined in chunk order, so the bytes never depend on the thread count.
 */
#include "options.h"
#include "config.h"
#include "seqio.h"
#include "scoring.h"
#include "plan.h"
#include "seed.h"
#include "chunk.h"
#include "dedup.h"
#include "segments.h"
#include "backend.h"
#include "manifest.h"
#include "package.h"
#include "publish.h"
#include "units.h"
#include "index.h"
#include "inputcheck.h"
#include "report.h"
#include "gapped_run.h"
#include <jansson.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <ftw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void hz_opts_default(hz_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seq_block_size = 500000000ULL;
    o->interval_size = 10000000ULL;
    o->chunk_size = 250000ULL;
    o->seed = "12of19";
    o->step = 1;
    o->transition = 1;
    o->strand = "both";
    o->xdrop = 910;
    o->hspthresh = 3000;
    o->entropy = 1;
    o->target_prefix = "";
    o->query_prefix = "";
    o->format = "maf-";
    o->ydrop = 9430;
    o->gappedthresh = -1;
    o->data_folder = "work/";
    o->device = "auto";
    o->progress = -1;
}



typedef struct { int strand; uint32_t j0, j1, k; } job_t;   /* strand 0 plus, 1 minus; k = its interval */

typedef struct {
    const hz_target *tgt;
    const hz_shape *sh;
    const uint8_t *qtext[2];   /* seeding text: forward bytes, host reverse complement (NULL when the device seeds) */
    const uint8_t *qcode[2];   /* extension codes: forward, reverse complement */
    uint32_t qlen;
    const job_t *jobs; size_t njobs;
    hz_hspvec *res;
    /* streamed output: workers take jobs in plan order, at most `look` jobs past the interval
     * the emitter (the run's thread) needs next; the emitter writes interval k once its
     * kleft[k] jobs are done, so held results are bounded by the plan, not by the HSPs */
    pthread_mutex_t mu;
    pthread_cond_t cv_main, cv_work;
    size_t next, emit_k, look, niv, running;
    const size_t *kfirst;      /* interval k's jobs start at kfirst[k] */
    size_t *kleft;             /* jobs of interval k not yet done */
    int failed;
    hz_scratch *scratch;       /* one per thread */
    hz_funnel *funnel;         /* one per thread */
    hz_backend *be;
    /* progress display (thread 0 redraws at most once a second) */
    int show; double t_start, base_done, span_work, total_work, last; size_t r, R, q, Q;
    atomic_size_t done;
} work_t;

static void progress_line(double done, double total, double t0, size_t r, size_t R, size_t q, size_t Q)
{
    double el = hz_now() - t0, frac = total > 0 ? done / total : 1.0;
    double eta = frac > 0 ? el * (1 - frac) / frac : 0;
    fprintf(stderr, "\rhspz: target block %zu/%zu, query block %zu/%zu: %5.1f%%, %.2f Mbp/s, ETA %.0f s   ",
            r + 1, R, q + 1, Q, 100 * frac, el > 0 ? done / el / 1e6 : 0, eta);
    fflush(stderr);
}

/* one stderr line per device from the CUDA backend's report (be->report): work chunks, busy
 * time against wall, and the gate rate = raw anchors / gate kernels' event time */
static void print_gpu_report(FILE *fp, const char *js, uint64_t anchors, double wall)
{
    json_t *r = json_loads(js, 0, NULL);
    if (!r) return;
    double ge = json_number_value(json_object_get(r, "gate_event_s"));
    fprintf(fp, "hspz: gpu: gate kernel %s, ref-buckets %s (%lld of %lld target blocks bucketed); "
            "gate %.3f event-s for %llu raw anchors = %.3g anchors/s (event time summed over streams)\n",
            json_string_value(json_object_get(r, "gate_kernel")), json_string_value(json_object_get(r, "ref_buckets_setting")),
            (long long)json_integer_value(json_object_get(r, "target_blocks_bucketed")),
            (long long)json_integer_value(json_object_get(r, "target_blocks")), ge, (unsigned long long)anchors,
            ge > 0 ? (double)anchors / ge : 0.0);
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(r, "devices"), i, d) {
        json_t *se = json_object_get(d, "stage_event_s");
        double busy = json_number_value(json_object_get(d, "busy_s"));
        fprintf(fp, "hspz: gpu %lld %s: %lld chunks, %lld anchors, busy %.3f s (%.0f%% of wall); event-s seed %.3f "
                "gate %.3f compact %.3f materialize %.3f long_select %.3f copy %.3f dedup %.3f\n",
                (long long)json_integer_value(json_object_get(d, "index")), json_string_value(json_object_get(d, "name")),
                (long long)json_integer_value(json_object_get(d, "work_chunks")),
                (long long)json_integer_value(json_object_get(d, "anchors")), busy, wall > 0 ? 100.0 * busy / wall : 0.0,
                json_number_value(json_object_get(se, "seed")), json_number_value(json_object_get(se, "gate")),
                json_number_value(json_object_get(se, "compact")), json_number_value(json_object_get(se, "materialize")),
                json_number_value(json_object_get(se, "long_select")), json_number_value(json_object_get(se, "copy")),
                json_number_value(json_object_get(se, "dedup")));
    }
    json_decref(r);
}

static void job_done(work_t *w, int tid)
{
    size_t d = atomic_fetch_add(&w->done, 1) + 1;
    if (!w->show || tid != 0) return;
    double now = hz_now();
    if (now - w->last < 1.0) return;
    w->last = now;
    progress_line(w->base_done + w->span_work * (double)d / (double)w->njobs, w->total_work,
                  w->t_start, w->r, w->R, w->q, w->Q);
}

typedef struct { work_t *w; int tid; } worker_arg;

/* next job for a worker (w->mu held): waits while it lies more than look jobs past the
 * interval the emitter needs; SIZE_MAX when none is left or the run failed */
static size_t job_take(work_t *w)
{
    for (;;) {
        if (w->failed || w->next >= w->njobs) return SIZE_MAX;
        size_t k = w->emit_k < w->niv ? w->emit_k + 1 : w->niv;
        if (w->next < w->kfirst[k] + w->look) return w->next++;
        pthread_cond_wait(&w->cv_work, &w->mu);
    }
}

static void job_fail(work_t *w)
{
    pthread_mutex_lock(&w->mu);
    w->failed = 1;
    pthread_cond_broadcast(&w->cv_work); pthread_cond_broadcast(&w->cv_main);
    pthread_mutex_unlock(&w->mu);
}

/* One chunk job: seeds, anchors, gate, materialization, per-batch dedup (backend or CPU). */
static int job_run(work_t *w, const job_t *j, hz_hspvec *out, hz_scratch *s, hz_funnel *f, int tid)
{
    if (w->be && w->be->chunk_range)
        return w->be->chunk_range(w->be, w->tgt, w->sh, j->strand, j->j0, j->j1, w->qlen, w->qcode[j->strand], out, f, tid);
    double t0 = hz_now();
    int64_t ns = hz_seeds_chunk(w->qtext[j->strand], j->j0, j->j1, w->sh, &s->seeds, &s->seeds_cap);
    f->t_seed += hz_now() - t0;
    if (ns < 0) return -1;
    if (w->be)
        return w->be->chunk(w->be, w->tgt, s->seeds, (size_t)ns, w->qcode[j->strand], j->strand, w->qlen, out, f, tid);
    return hz_chunk_cpu(w->tgt, s->seeds, (size_t)ns, w->qcode[j->strand], w->qlen, out, f, s);
}

static void *worker(void *pa)
{
    worker_arg *a = pa;
    work_t *w = a->w;
    hz_scratch *s = &w->scratch[a->tid];
    hz_funnel *f = &w->funnel[a->tid];
    pthread_mutex_lock(&w->mu);
    for (;;) {
        size_t i = job_take(w);
        if (i == SIZE_MAX) break;
        pthread_mutex_unlock(&w->mu);
        if (job_run(w, &w->jobs[i], &w->res[i], s, f, a->tid)) { job_fail(w); pthread_mutex_lock(&w->mu); break; }
        job_done(w, a->tid);
        pthread_mutex_lock(&w->mu);
        if (--w->kleft[w->jobs[i].k] == 0) pthread_cond_broadcast(&w->cv_main);
    }
    w->running--;
    pthread_cond_broadcast(&w->cv_main);
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* The run facts of a manifest, for the success and the failure manifest alike: stage times
 * (seconds), wall time since t_start, threads, the backend and its kernels; *gpu_report gets the
 * CUDA backend's report text (malloc'd, replaced on each call, freed by the caller). */
static void manifest_facts(hz_manifest_info *mi, hz_backend *be, double t_start, int nthreads, double t_load,
                           double t_plan, double t_table, double t_output, char **gpu_report)
{
    mi->t_load = t_load; mi->t_plan = t_plan; mi->t_table = t_table; mi->t_output = t_output;
    mi->t_wall = hz_now() - t_start; mi->threads = nthreads;
    mi->backend = be ? be->name : "cpu";
    mi->device_seeding = be && be->chunk_range; mi->device_table = be && be->build_table;
    free(*gpu_report);
    *gpu_report = be && be->report ? be->report(be, mi->t_wall) : NULL;
    mi->gpu_report = *gpu_report;
}



/* The current query block's host arrays: extension codes (forward, reverse complement) and,
 * when the host seeds (the CPU, or HSPZ_DEVICE_SEEDS=0), its bytes and the host reverse
 * complement for seeding (plan.h hz_block_codes); with device seeding the 'U' offsets
 * instead (backend.h set_query_seeding).  One block at a time, encoded on all threads when
 * its first work unit starts (tens of milliseconds for 500 Mbp on 16 threads; a second,
 * prepared-ahead block would cost 2 bytes a base of host memory). */
typedef struct {
    const hz_side *side; size_t q; uint32_t L;
    int text, threads;          /* keep the seeding text; encoding threads */
    uint8_t *bytes, *hrc, *fc, *rc; size_t cap;
    uint32_t *u; size_t nu;     /* device seeding: block offsets of 'U' */
    int ok;
} qprep_t;

/* Encode block a->q into a's arrays (grown when it is longer than any before).  0 or -1 (out
 * of memory). */
static int qprep_fill(qprep_t *a)
{
    a->L = a->side->block[a->q].len;
    a->ok = 0;
    free(a->u); a->u = NULL; a->nu = 0;
    if ((size_t)a->L + 1 > a->cap) {
        free(a->bytes); free(a->hrc); free(a->fc); free(a->rc);
        a->bytes = a->hrc = NULL;
        a->fc = malloc((size_t)a->L + 1); a->rc = malloc((size_t)a->L + 1);
        if (a->text) { a->bytes = malloc((size_t)a->L + 1); a->hrc = malloc((size_t)a->L + 1); }
        a->cap = a->fc && a->rc && (!a->text || (a->bytes && a->hrc)) ? (size_t)a->L + 1 : 0;
        if (!a->cap) return -1;
    }
    hz_block_encode(a->side, a->q, a->fc, a->rc, a->text ? a->hrc : NULL, a->threads);
    if (a->text) hz_block_bytes(a->side, a->q, a->bytes);
    else {
        int64_t n = hz_block_find(a->side, a->q, 'U', &a->u);
        if (n < 0) return -1;
        a->nu = (size_t)n;
    }
    a->ok = 1;
    return 0;
}


/* ---- the run and its jobs ---------------------------------------------------------------------
 * A run prepares the target once (from the input or an index) and runs one job per query: a
 * single query, or each query of --query-list into OUTDIR/<n>/.  A job executes its work units
 * (target block x query block x intervals, spec §2.7) and writes its folder; the run
 * publishes OUTDIR (publish.c). */

typedef struct {
    const hz_opts *o;
    char err[2048];
    hz_sigwatch sigw;
    double t_start;
    int nthreads, show_progress;
    hz_scratch *scratch; hz_funnel *funnels; pthread_t *th; worker_arg *wa;
    hz_shape sh; hz_xparams xp; hz_scorefile sf;
    hz_backend *be; hz_prewarm prewarm;
    hz_seqset tseqs;           /* the target, read from its file (no index) */
    const hz_seqset *tset;     /* &tseqs or the index's */
    hz_side tside;
    hz_tblock *tblk;           /* per target block; built on first use, kept when keep_blocks */
    int keep_blocks;
    char *tmpdir;              /* OUTDIR.tmp-<pid> */
    int dump_placed;           /* this run wrote --dump-plan's file, OUTDIR not yet published */
    int mdump_placed;          /* the same for --dump-manifest */
    double t_tload;            /* target load (or index verification) seconds */
    char *gpu_report;
    int trace;                 /* HSPZ_TRACE=1: phase times on stderr (bench/) */
    FILE *report_fp;           /* the jobs' report lines (job_report), printed once published */
    char *report; size_t report_len;
    int out_refused;           /* hz_check_outdir refused OUTDIR: no failure manifest */
} run_t;

typedef struct {
    hz_opts o;                 /* the job's options: its query and output folder */
    hz_opts po;                /* the same for packaging: the tarball path inside the run's folder */
    char *dir;                 /* the folder being written */
    hz_seqset qseqs; hz_side qside;
    hz_segwriter sw;
    hz_dg_stream *ds;          /* the canonical digest fed as the files are written, or NULL */
    int ds_off;                /* it could not be opened: the manifest digests the folder */
    hz_cmd *cmds; size_t ncmd, capcmd;
    size_t nfiles;             /* the .segments files written (-D: after the split, hz_package) */
    hz_funnel total;
    double t_load, t_plan, t_table, t_output;
    double work_total, work_done;
    qprep_t qp;                /* the current query block */
    hz_manifest_info mi;
    int funnels_added;
    char *outdir_own, *tar_own;
    double t_start;            /* the run's start (first job) or the job's */
} qjob_t;

#define FAIL(R, ...) (snprintf((R)->err, sizeof (R)->err, __VA_ARGS__), -1)

static int run_setup(run_t *R)
{
    const hz_opts *o = R->o;
    R->nthreads = o->threads > 0 ? o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (R->nthreads < 1) R->nthreads = 1;
    R->scratch = calloc((size_t)R->nthreads, sizeof *R->scratch);
    R->funnels = calloc((size_t)R->nthreads, sizeof *R->funnels);
    R->th = calloc((size_t)R->nthreads, sizeof *R->th);
    R->wa = calloc((size_t)R->nthreads, sizeof *R->wa);
    R->show_progress = o->progress < 0 ? (!o->quiet && isatty(2)) : o->progress;
    if (!R->scratch || !R->funnels || !R->th || !R->wa) return FAIL(R, "out of memory");
    if (hz_shape_parse(o->seed, o->transition, &R->sh, R->err, sizeof R->err)) return -1;
    /* scoring (spec §9; RULES.md "scoring file") */
    const hz_scorefile *sfp = NULL;
    if (o->scoring) {
        if (hz_scorefile_load(o->scoring, &R->sf, R->err, sizeof R->err)) return -1;
        sfp = &R->sf;
        if (R->sf.n_ignored_keys && !o->quiet)
            fprintf(stderr, "hspz: note: %s: %s do not change HSPs (only the A/C/G/T block, bad_score "
                    "and fill_score do); they are passed to lastz through --scores\n",
                    o->scoring, R->sf.ignored_keys);
    }
    return hz_xparams_build(&R->xp, sfp, o->ambiguous, o->xdrop, o->hspthresh, o->entropy, R->err, sizeof R->err);
}

/* The target: read from -r, or verified from the index (and -r, when given, checked against
 * the index's sha256).  Runs in a helper thread while the first query is read. */
typedef struct { run_t *R; char err[2048]; int rc; } tload_arg;

static void *tload_main(void *p)
{
    tload_arg *a = p;
    const hz_opts *o = a->R->o;
    double t0 = hz_now();
    if (!o->index) {
        a->rc = hz_seqset_load_mt(o->target, a->R->nthreads, &a->R->tseqs, a->err, sizeof a->err);
    } else {
        a->rc = hz_index_verify(o->index, a->R->nthreads, a->err, sizeof a->err);
        char hex[65];
        uint64_t bytes;
        if (!a->rc && o->index_check_target) {
            if (hz_sha256_file(o->target, hex, &bytes, NULL))
                a->rc = (snprintf(a->err, sizeof a->err, "%s: cannot read it to check it against the index %s: %s", o->target,
                                  o->index->path, strerror(errno)), -1);
            else if (strcmp(hex, o->index->seqs.sha256))
                a->rc = (snprintf(a->err, sizeof a->err, "%s: not the target of the index %s (sha256 %.12s…, the index was built from %s, sha256 %.12s…)",
                                  o->target, o->index->path, hex, o->index->seqs.path, o->index->seqs.sha256), -1);
        }
    }
    a->R->t_tload = hz_now() - t0;
    return NULL;
}

/* Read job J's query (and, for the first job, the target in parallel; the target's error is
 * reported first), then plan both sides. */
static int job_load(run_t *R, qjob_t *J, int first)
{
    const hz_opts *o = R->o;
    double t0 = hz_now();
    tload_arg ta = { R, "", 0 };
    pthread_t lt;
    int threaded = first && pthread_create(&lt, NULL, tload_main, &ta) == 0;
    if (first && !threaded) tload_main(&ta);
    int qrc = hz_seqset_load_mt(J->o.query, R->nthreads, &J->qseqs, R->err, sizeof R->err);
    if (threaded) pthread_join(lt, NULL);
    if (ta.rc) return FAIL(R, "%s", ta.err);
    if (qrc) return -1;
    J->t_load = hz_now() - t0;
    t0 = hz_now();
    if (first) {
        R->tset = o->index ? &o->index->seqs : &R->tseqs;
        J->mi.t = R->tset;
        if (hz_side_plan(&R->tside, R->tset, o->seq_block_size, o->target_prefix, R->err, sizeof R->err)) return -1;
        if (o->index && hz_index_check_side(o->index, &R->tside, R->err, sizeof R->err)) return -1;
        R->tblk = calloc(R->tside.n_block ? R->tside.n_block : 1, sizeof *R->tblk);
        if (!R->tblk) return FAIL(R, "out of memory");
        if (o->index)
            for (size_t r = 0; r < R->tside.n_block; r++) R->tblk[r] = o->index->blk[r];
    }
    if (hz_side_plan(&J->qside, &J->qseqs, o->seq_block_size, o->query_prefix, R->err, sizeof R->err)) return -1;
    if (hz_input_check(&J->o, &R->tside, &J->qside, R->err, sizeof R->err)) return -1;   /* inputcheck.h: before any work */
    if (o->units && hz_unitplan_check_cover(o->units->plan, o, &R->tside, &J->qside, (uint32_t)R->sh.span, R->err, sizeof R->err))
        return -1;
    J->t_plan = hz_now() - t0;
    return 0;
}

/* Target block r ready for seeding: the index's, a kept one, or built now. */
static int target_block(run_t *R, qjob_t *J, size_t r, hz_tblock **out)
{
    hz_tblock *b = &R->tblk[r];
    double ts = hz_now();
    if (!b->codes || b->encoded_only) {
        uint32_t W = (uint32_t)R->sh.span;
        if (R->tside.block[r].len < W && !R->o->quiet)
            fprintf(stderr, "hspz: note: target block %zu (%u bytes) is shorter than the seed span %u: no seeds\n",
                    r, R->tside.block[r].len, W);
        /* kept on the device unless later jobs set this block again (keep_blocks) */
        if (hz_tblock_build(b, &R->tside, r, &R->sh, R->o->step, R->be, R->nthreads, !R->keep_blocks, R->err, sizeof R->err))
            return -1;
    }
    hz_target tgt = { b->codes, b->len, &b->tab, (uint32_t)R->sh.span, &R->xp, R->o->max_hits };
    if (R->be && R->be->set_target(R->be, &tgt, R->err, sizeof R->err)) return -1;
    J->t_table += hz_now() - ts;
    *out = b;
    return 0;
}

/* The chunk jobs of one query block's intervals (spec §3.5): per interval k its plus chunks
 * then its minus chunks, jobs[kfirst[k] .. kplus[k]) plus and [kplus[k] .. kfirst[k+1]) minus. */
typedef struct { job_t *jobs; size_t nj, *kfirst, *kplus; uint32_t (*iv)[2]; size_t niv; } chunkplan;

static void chunkplan_free(chunkplan *c) { free(c->jobs); free(c->kfirst); free(c->kplus); free(c->iv); memset(c, 0, sizeof *c); }

static int chunkplan_make(run_t *R, size_t r, size_t q, uint32_t L, chunkplan *c)
{
    const hz_opts *o = R->o;
    uint32_t W = (uint32_t)R->sh.span, E = L > W ? L - W : 0;
    int do_plus = !strcmp(o->strand, "plus") || !strcmp(o->strand, "both");
    int do_minus = !strcmp(o->strand, "minus") || !strcmp(o->strand, "both");
    memset(c, 0, sizeof *c);
    c->niv = hz_intervals(L, W, o->interval_size, &c->iv);
    size_t cap = 0;
    for (size_t k = 0; k < c->niv; k++) cap += 2 * ((size_t)((c->iv[k][1] - c->iv[k][0]) / o->chunk_size) + 2);
    c->jobs = malloc((cap ? cap : 1) * sizeof *c->jobs);
    c->kfirst = malloc((c->niv + 1) * sizeof *c->kfirst); c->kplus = malloc((c->niv + 1) * sizeof *c->kplus);
    if (!c->jobs || !c->kfirst || !c->kplus) { chunkplan_free(c); return FAIL(R, "out of memory"); }
    for (size_t k = 0; k < c->niv; k++) {
        uint32_t s = c->iv[k][0], e = c->iv[k][1];
        c->kfirst[k] = c->nj;
        if (o->units && !hz_unitsel_interval(o->units, r, q, k)) { c->kplus[k] = c->nj; continue; }
        if (do_plus)
            for (uint64_t i = s; i < e; i += o->chunk_size)
                c->jobs[c->nj++] = (job_t){0, (uint32_t)i, (uint32_t)(i + o->chunk_size < (uint64_t)e + 1 ? i + o->chunk_size : (uint64_t)e + 1), (uint32_t)k};
        c->kplus[k] = c->nj;
        if (do_minus) {
            uint32_t rs = E - e, re = E - s;
            for (uint64_t i = rs; i < re; i += o->chunk_size)
                c->jobs[c->nj++] = (job_t){1, (uint32_t)i, (uint32_t)(i + o->chunk_size < (uint64_t)re + 1 ? i + o->chunk_size : (uint64_t)re + 1), (uint32_t)k};
        }
    }
    c->kfirst[c->niv] = c->nj;
    return 0;
}

/* A segments file's stem (RULES.md "file names"): interval k (1-based), query block q, target
 * block start r, strand 0 plus / 1 minus; also how stream_start finds the files written */
static void segments_base(char *buf, size_t size, size_t k, size_t q, uint64_t r, int strand)
{
    snprintf(buf, size, "tmp%zu.block%zu.r%llu.%s", k, q, (unsigned long long)r, strand ? "minus" : "plus");
}

/* One strand of an interval: exact-duplicate removal, then its segments file (none when no
 * HSP is left).  Both strands of an interval run at once, each on its share of the threads. */
typedef struct {
    qjob_t *J; hz_hspvec *v; size_t r, q, k; uint64_t tstart;
    int strand, threads, rc;
    double t_dedup, t_write;
    char base[512], err[1024];
} strand_out;

static void *strand_main(void *arg)
{
    strand_out *S = arg;
    double ts = hz_now();
    S->v->n = hz_dedup_interval(S->v->v, S->v->n, S->threads);
    S->t_dedup = hz_now() - ts;
    if (S->v->n == SIZE_MAX) { snprintf(S->err, sizeof S->err, "out of memory in dedup"); S->rc = -1; return NULL; }
    if (S->v->n == 0) return NULL;
    segments_base(S->base, sizeof S->base, S->k + 1, S->q, S->tstart, S->strand);
    ts = hz_now();
    S->rc = hz_segwriter_write(&S->J->sw, S->J->dir, S->base, S->v->v, S->v->n, S->strand, S->r, S->q, S->threads, S->J->ds,
                               S->err, sizeof S->err);
    S->t_write = hz_now() - ts;
    return NULL;
}

/* The canonical digest fed from the formatter (digest.h), from the next interval on, once the
 * files written pass what the folder's digest sorts in memory (at 32 bytes or more a line):
 * its splitters are sampled from those files, which it distributes while the next interval's
 * chunks run.  Without it, or when it fails, the manifest digests the folder (same bytes).
 * pair_run opens it only where later lines carry target names the samples cover. */
static void stream_start(run_t *R, qjob_t *J)
{
    char e[512];
    char **paths = calloc(J->ncmd ? J->ncmd : 1, sizeof *paths);
    int ok = paths != NULL;
    for (size_t i = 0; ok && i < J->ncmd; i++) {
        const hz_cmd *c = &J->cmds[i];
        char base[512];
        segments_base(base, sizeof base, c->k, c->q, c->r, c->strand);
        size_t pl = strlen(J->dir) + strlen(base) + 16;
        if ((ok = (paths[i] = malloc(pl)) != NULL)) snprintf(paths[i], pl, "%s/%s.segments", J->dir, base);
    }
    J->ds = ok ? hz_dg_stream_open(J->dir, paths, J->ncmd, 0, R->nthreads, e, sizeof e) : NULL;
    J->ds_off = J->ds == NULL;
    J->mi.digest_stream = J->ds;
    for (size_t i = 0; paths && i < J->ncmd; i++) free(paths[i]);
    free(paths);
}

/* Interval k's HSPs (its chunks' results in plan order), exact-duplicate removal (0.3.x,
 * RULES.md), then its plus and minus segments files and their lastz commands.  The strands
 * are independent until their commands are listed (plus first), so they run at once: the
 * last interval's dedup and write come after the GPU's last chunk. */
static int interval_emit(run_t *R, qjob_t *J, size_t r, size_t q, const chunkplan *c, size_t k, hz_hspvec *res)
{
    const hz_opts *o = &J->o;
    const hz_block *tb = &R->tside.block[r];
    hz_hspvec v[2] = {{0}, {0}};
    int rc = 0;
    size_t need[2] = {0, 0};   /* joined at their exact size: no doubling of the interval's HSPs */
    double tj = hz_now();
    for (size_t i = c->kfirst[k]; i < c->kfirst[k + 1]; i++) need[i < c->kplus[k] ? 0 : 1] += res[i].n;
    for (int st = 0; st < 2 && !rc; st++)
        if (need[st] && !(v[st].v = malloc(need[st] * sizeof *v[st].v))) rc = FAIL(R, "out of memory while joining chunk results");
        else v[st].cap = need[st];
    if (!rc) hz_hspvec_join(v, res, c->kfirst[k], c->kplus[k], c->kfirst[k + 1], R->nthreads);
    double t0 = hz_now();
    strand_out S[2];
    /* threads by each strand's share of the HSPs, at least one each */
    int nt = R->nthreads, tp = need[0] + need[1] ? (int)((double)nt * (double)need[0] / (double)(need[0] + need[1]) + 0.5) : nt;
    if (tp < 1) tp = 1;
    if (tp > nt - 1) tp = nt - 1 < 1 ? 1 : nt - 1;
    for (int st = 0; st < 2; st++)
        S[st] = (strand_out){ .J = J, .v = &v[st], .r = r, .q = q, .k = k, .tstart = tb->start, .strand = st,
                              .threads = need[0] && need[1] ? (st ? (nt - tp > 1 ? nt - tp : 1) : tp) : nt };
    if (!rc) {
        pthread_t th;
        int apart = need[0] && need[1] && nt > 1 && pthread_create(&th, NULL, strand_main, &S[1]) == 0;
        strand_main(&S[0]);
        if (apart) pthread_join(th, NULL);
        else strand_main(&S[1]);
    }
    for (int strand = 0; strand < 2 && !rc; strand++) {
        if (S[strand].rc) { rc = FAIL(R, "%s", S[strand].err); break; }
        if (v[strand].n == 0) continue;
        J->total.written += v[strand].n;
        if (J->ncmd == J->capcmd) {
            size_t nc = J->capcmd ? 2 * J->capcmd : 64;
            hz_cmd *c2 = realloc(J->cmds, nc * sizeof *J->cmds);
            if (!c2) { rc = FAIL(R, "out of memory"); break; }
            J->cmds = c2; J->capcmd = nc;
        }
        J->cmds[J->ncmd] = (hz_cmd){ strand, k + 1, q, tb->start, hz_lastz_command(o, S[strand].base, r, q, strand) };
        if (!J->cmds[J->ncmd].line) { rc = FAIL(R, "out of memory"); break; }
        J->ncmd++;
    }
    if (R->trace && !rc)   /* where the run's thread spends its output time (benchmarks); join: with its allocation */
        fprintf(stderr, "hspz: trace %.4f emit interval %zu of %zu (blocks %zu, %zu): %zu + %zu lines, join %.4f dedup %.4f + %.4f "
                "write %.4f + %.4f s (strands at once: %.4f s)\n", hz_now() - R->t_start, k + 1, c->niv, r, q, v[0].n, v[1].n,
                t0 - tj, S[0].t_dedup, S[1].t_dedup, S[0].t_write, S[1].t_write, hz_now() - t0);
    hz_hspvec_free(&v[0]); hz_hspvec_free(&v[1]);
    return rc;
}

/* The query block J->qp holds (block q) against target block r: its chunks on the
 * worker threads, then its intervals in order. */
static int pair_run(run_t *R, qjob_t *J, size_t r, const hz_tblock *tb, size_t q)
{
    qprep_t *P = &J->qp;
    uint32_t L = P->L, W = (uint32_t)R->sh.span, E = L > W ? L - W : 0;
    if (L < W && !R->o->quiet)
        fprintf(stderr, "hspz: note: query block %zu (%u bytes) is shorter than the seed span %u: no seeds\n", q, L, W);
    if (R->be && R->be->set_query(R->be, P->fc, P->rc, L, R->err, sizeof R->err)) return -1;
    if (R->be && R->be->set_query_seeding && R->be->set_query_seeding(R->be, P->u, P->nu, L, R->err, sizeof R->err)) return -1;
    chunkplan c;
    if (chunkplan_make(R, r, q, L, &c)) return -1;
    hz_hspvec *res = calloc(c.nj ? c.nj : 1, sizeof *res);
    if (!res) { chunkplan_free(&c); return FAIL(R, "out of memory"); }
    hz_target tgt = { tb->codes, tb->len, &tb->tab, W, &R->xp, R->o->max_hits };
    size_t *kleft = calloc(c.niv + 1, sizeof *kleft);
    if (!kleft) { free(res); chunkplan_free(&c); return FAIL(R, "out of memory"); }
    for (size_t k = 0; k < c.niv; k++) kleft[k] = c.kfirst[k + 1] - c.kfirst[k];
    /* chunks of every interval in one pool (no interval waits for the slowest chunk of the
     * previous one), results in plan order per chunk; this thread writes each interval as
     * soon as its chunks are done, while later chunks run */
    double span = 0;
    for (size_t k = 0; k < c.niv; k++) span += (double)L * (double)(c.iv[k][1] - c.iv[k][0]) / (E ? E : 1);
    int nt = R->nthreads < (int)c.nj ? R->nthreads : (int)c.nj;
    work_t w = { .tgt = &tgt, .sh = &R->sh, .qtext = { P->bytes, P->hrc }, .qcode = { P->fc, P->rc }, .qlen = L,
                 .jobs = c.jobs, .njobs = c.nj, .res = res, .look = 2 * (size_t)nt + 2, .niv = c.niv, .kfirst = c.kfirst,
                 .kleft = kleft, .scratch = R->scratch, .funnel = R->funnels, .be = R->be, .show = R->show_progress,
                 .t_start = R->t_start, .base_done = J->work_done, .span_work = span, .total_work = J->work_total,
                 .last = hz_now(), .r = r, .R = R->tside.n_block, .q = q, .Q = J->qside.n_block };
    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.cv_main, NULL); pthread_cond_init(&w.cv_work, NULL);
    int started = 0;
    pthread_mutex_lock(&w.mu);   /* workers start once every one is counted */
    for (int t = 0; t < nt; t++) {
        R->wa[started].w = &w; R->wa[started].tid = started;
        if (pthread_create(&R->th[started], NULL, worker, &R->wa[started]) == 0) started++;
    }
    w.running = (size_t)started;
    pthread_mutex_unlock(&w.mu);
    nt = started;
    int rc = 0;
    if (c.nj > 0 && started == 0) rc = FAIL(R, "cannot start worker threads");
    for (size_t k = 0; k < c.niv && !rc; k++) {
        pthread_mutex_lock(&w.mu);
        while (kleft[k] > 0 && !w.failed && w.running > 0) pthread_cond_wait(&w.cv_main, &w.mu);
        int bad = w.failed || kleft[k] > 0;
        pthread_mutex_unlock(&w.mu);
        if (bad) {
            rc = FAIL(R, "%s", R->be && R->be->last_error[0] ? R->be->last_error : "out of memory while extending seed hits");
            break;
        }
        double to = hz_now();
        rc = interval_emit(R, J, r, q, &c, k, res);
        J->t_output += hz_now() - to;
        J->work_done += (double)L * (double)(c.iv[k][1] - c.iv[k][0]) / (E ? E : 1);
        if (R->show_progress) progress_line(J->work_done, J->work_total, R->t_start, r, R->tside.n_block, q, J->qside.n_block);
        pthread_mutex_lock(&w.mu);
        w.emit_k = k + 1;
        if (rc) w.failed = 1;
        pthread_cond_broadcast(&w.cv_work);
        pthread_mutex_unlock(&w.mu);
        /* only in the last target block, whose names the files sampled cover (earlier blocks'
         * files are among them), with work left, and no -D, whose split files replace the fed ones */
        if (!rc && r + 1 == R->tside.n_block && (k + 1 < c.niv || q + 1 < J->qside.n_block) && !J->o.diagonal_partition &&
            !J->ds && !J->ds_off && J->total.written * 32 > HZ_DG_MEM_BYTES) {
            double ts = hz_now();   /* while the next interval's chunks run */
            stream_start(R, J);
            if (R->trace)
                fprintf(stderr, "hspz: trace %.4f digest stream %s after interval %zu: %.4f s\n", hz_now() - R->t_start,
                        J->ds ? "opened" : "not opened", k + 1, hz_now() - ts);
        }
    }
    if (rc) job_fail(&w);
    for (int t = 0; t < nt; t++) pthread_join(R->th[t], NULL);
    pthread_mutex_destroy(&w.mu);
    pthread_cond_destroy(&w.cv_main); pthread_cond_destroy(&w.cv_work);
    free(kleft);
    for (size_t i = 0; i < c.nj; i++) hz_hspvec_free(&res[i]);
    free(res);
    chunkplan_free(&c);
    return rc;
}

/* Make query block q J's current one (encoded now unless it already is). */
static int query_block_set(run_t *R, qjob_t *J, size_t q)
{
    qprep_t *P = &J->qp;
    if (P->ok && P->q == q) return 0;
    double t0 = hz_now();
    P->q = q;
    P->threads = R->nthreads;
    int rc = qprep_fill(P);
    J->t_table += hz_now() - t0;
    return rc ? FAIL(R, "out of memory for query block %zu (%u bytes)", q, J->qside.block[q].len) : 0;
}

/* While the GPU's context is still starting (hz_backend_prewarm: 0.2 s of idle host), the
 * first work unit's blocks are encoded as they would be once it is ready: the target's codes
 * (an index's are there already) and the query's without its text, for seeding on the GPU.
 * Seeds of weight above 13 are seeded on the host, so that query is left to job_execute, which
 * also encodes it again if the backend turns out to seed on the host.  The time counts as
 * seedtable time (J->t_table), as before.  Returns 0, or -1 with R->err (out of memory). */
static int encode_ahead(run_t *R, qjob_t *J)
{
    const hz_opts *o = R->o;
    if (!hz_backend_prewarm_running(&R->prewarm)) return 0;   /* no time to spare */
    double t0 = hz_now();
    for (size_t r = 0; r < R->tside.n_block; r++) {
        if (o->units && !hz_unitsel_target(o->units, r)) continue;
        for (size_t q = 0; q < J->qside.n_block; q++) {
            if (o->units && !hz_unitsel_pair(o->units, r, q)) continue;
            if (!o->index && hz_tblock_encode(&R->tblk[r], &R->tside, r, R->nthreads, R->err, sizeof R->err)) return -1;
            J->t_table += hz_now() - t0;
            if (R->sh.weight > 13) return 0;
            J->qp.side = &J->qside;
            J->qp.text = 0;
            return query_block_set(R, J, q);   /* adds its own time to J->t_table */
        }
    }
    return 0;
}

/* Execute J's work units: target blocks outermost, query blocks inside (spec §2.7). */
static int job_execute(run_t *R, qjob_t *J)
{
    const hz_opts *o = R->o;
    for (size_t q = 0; q < J->qside.n_block; q++) J->work_total += (double)J->qside.block[q].len * (double)R->tside.n_block;
    J->qp.side = &J->qside;
    int text = !(R->be && R->be->chunk_range);   /* the host seeds */
    if (J->qp.text != text) { J->qp.ok = 0; J->qp.cap = 0; }   /* encoded ahead for the other seeding */
    J->qp.text = text;
    for (size_t r = 0; r < R->tside.n_block; r++) {
        if (o->units && !hz_unitsel_target(o->units, r)) continue;   /* hspz run --plan --unit */
        hz_tblock *tb;
        if (target_block(R, J, r, &tb)) return -1;
        int rc = 0;
        for (size_t q = 0; q < J->qside.n_block && !rc; q++) {
            if (!o->units || hz_unitsel_pair(o->units, r, q)) rc = query_block_set(R, J, q) || pair_run(R, J, r, tb, q);
        }
        if (!R->keep_blocks && !tb->mapped) hz_tblock_free(tb);
        if (rc) return -1;
    }
    if (R->show_progress) fprintf(stderr, "\n");
    return 0;
}

static void job_free(qjob_t *J)
{
    free(J->qp.bytes); free(J->qp.hrc); free(J->qp.fc); free(J->qp.rc); free(J->qp.u);
    for (size_t i = 0; i < J->ncmd; i++) free(J->cmds[i].line);
    free(J->cmds);
    free(J->outdir_own); free(J->tar_own);
    hz_dg_stream_free(J->ds);
    hz_segwriter_free(&J->sw);
    hz_side_free(&J->qside);
    hz_seqset_free(&J->qseqs);
    free(J->dir);
    memset(J, 0, sizeof *J);
}

/* HSPZ_TRACE=1: "hspz: trace <seconds since the run's start> <phase>" on stderr, for the
 * benchmarks' timelines of what comes before and after the manifest's wall (docs/manifest.md
 * lists the phases; bench/device_lean.sh bench prints them). */
static void trace(const run_t *R, const char *phase)
{
    if (R->trace) fprintf(stderr, "hspz: trace %.4f %s\n", hz_now() - R->t_start, phase);
}

/* J's manifest facts (success or failure manifest). */
static void job_manifest_facts(run_t *R, qjob_t *J)
{
    if (!J->funnels_added)
        for (int t = 0; R->funnels && t < R->nthreads; t++) hz_funnel_add(&J->total, &R->funnels[t]);
    J->funnels_added = 1;
    J->mi.funnel = J->total;
    J->mi.have_plan = R->tside.block && J->qside.block;
    if (J->mi.have_plan) hz_plan_count(&R->tside, &J->qside, (unsigned)R->sh.span, &J->o, &J->mi.plan);
    manifest_facts(&J->mi, R->be, J->t_start, R->nthreads, J->t_load, J->t_plan, J->t_table, J->t_output, &R->gpu_report);
    J->mi.trace = R->trace;
}

/* J's folder complete: lastz commands, packaging, manifest (the last file written). */
static int job_finish(run_t *R, qjob_t *J)
{
    double to = hz_now();
    trace(R, "work done");
    /* lastz commands (RULES.md "lastz commands"): sorted plus before minus, then tmp, block, r */
    if (hz_commands_write(&J->o, J->dir, J->cmds, J->ncmd, R->err, sizeof R->err)) return -1;
    /* packaging: diagonal partition, all.segments, Galaxy tarball (package.c) */
    J->nfiles = J->ncmd;
    if (hz_package(&J->po, J->dir, &R->tside, &J->qside, &J->nfiles, &J->mi.diag_auto_n, R->err, sizeof R->err)) return -1;
    if (J->po.tarball && R->o->query_list) {   /* OUTDIR/<n>.tar.gz: in place inside the run's own folder */
        char tt[4300];
        hz_out_tmpname(J->tar_own, tt, sizeof tt);
        if (rename(tt, J->tar_own)) return FAIL(R, "%s: cannot rename %s to it: %s", J->tar_own, tt, strerror(errno));
    }   /* a single run's tarball stays OUTDIR.tar.gz.tmp-<pid>-<token> until hz_publish places it */
    J->t_output += hz_now() - to;
    trace(R, "packaged");
    /* --gapped: the alignments of every lastz command, from the loaded sequences (gapped_run.h) */
    hz_gapped_files gf = { 0, NULL, 0 };
    if (J->o.gapped && !J->o.nogapped) {
        if (hz_gapped_run(&J->o, J->dir, J->mi.t, &J->qseqs, R->nthreads, &gf, &J->mi.t_gapped, R->err, sizeof R->err)) {
            hz_gapped_files_free(&gf); return -1;
        }
        J->mi.gapped_done = 1; J->mi.gapped_threads = R->nthreads;
        J->mi.gapped_commands = gf.ncmd; J->mi.gapped_files = gf.name; J->mi.n_gapped_files = gf.n;
        trace(R, "gapped");
    }
    job_manifest_facts(R, J);
    trace(R, "manifest facts");
    char mp[4200];
    snprintf(mp, sizeof mp, "%s/manifest.json", J->dir);
    int mrc = hz_manifest_write(&J->mi, mp, J->dir, R->err, sizeof R->err);
    J->mi.gapped_files = NULL; J->mi.n_gapped_files = 0;
    hz_gapped_files_free(&gf);
    if (mrc) return -1;
    trace(R, "manifest written");
    /* --report: report.html + .png (report.h), from the finished folder and its manifest */
    return J->o.report && hz_report_dir(J->dir, R->err, sizeof R->err) ? -1 : 0;
}

/* J's funnel, times and "wrote ..." lines, kept until OUTDIR is published (hz_run prints them
 * then; a run that fails, e.g. loses OUTDIR to another run, prints only why) */
static void job_report(run_t *R, qjob_t *J)
{
    const hz_opts *o = R->o;
    const hz_funnel *f = &J->total;
    if (!R->report_fp && !(R->report_fp = open_memstream(&R->report, &R->report_len))) return;
    FILE *fp = R->report_fp;
    if (!o->quiet)
        fprintf(fp, "hspz: funnel: seeds %llu anchors %llu gate_survivors %llu hsps_accepted %llu "
                "hsps_after_dedup %llu segments_written %llu long_anchors %llu\n",
                (unsigned long long)f->seeds, (unsigned long long)f->anchors, (unsigned long long)f->survivors,
                (unsigned long long)f->accepted, (unsigned long long)f->after_batch, (unsigned long long)f->written,
                (unsigned long long)f->long_anchors);
    if (!o->quiet || o->time_report) {
        fprintf(fp, "hspz: time: load %.3f plan %.3f seedtable %.3f seeds %.3f anchors %.3f gate %.3f "
                "extend %.3f dedup %.3f output %.3f wall %.3f (s; seeds..dedup are summed over %d threads)\n",
                J->t_load, J->t_plan, J->t_table, f->t_seed, f->t_anchor, f->t_gate, f->t_extend,
                f->t_dedup, J->t_output, J->mi.t_wall, R->nthreads);
        if (R->gpu_report) print_gpu_report(fp, R->gpu_report, f->anchors, J->mi.t_wall);
    }
    if (!o->quiet)   /* the files left: -D's split files in place of those they split (issue 31) */
    {
        char *ap = o->segments_archive ? hz_package_tarball_path(o) : NULL;   /* -Z: the archive instead */
        fprintf(fp, "hspz: backend %s; wrote %llu segments in %zu files to %s\n",
                R->be ? R->be->name : "cpu", (unsigned long long)f->written, J->nfiles, ap ? ap : J->o.outdir);
        free(ap);
    }
}

/* Job n (0-based) of the run: its options and manifest facts (its folder: job_dir). */
static int job_init(run_t *R, qjob_t *J, size_t n)
{
    const hz_opts *o = R->o;
    memset(J, 0, sizeof *J);
    J->t_start = n ? hz_now() : R->t_start;
    J->o = *o;
    if (o->index && !o->index_check_target) J->o.target = o->index->seqs.path;   /* the manifest names the indexed file */
    if (o->query_list) {   /* OUTDIR/<n>/: what `hspz run -q QUERY -o OUTDIR/<n>` writes there */
        size_t l = strlen(o->outdir) + 16;
        if (!(J->outdir_own = malloc(l))) return FAIL(R, "out of memory");
        snprintf(J->outdir_own, l, "%s/%06zu", o->outdir, n + 1);
        J->o.query = o->query_list[n];
        J->o.outdir = J->outdir_own;
    }
    J->po = J->o;
    J->mi = (hz_manifest_info){ .o = &J->o, .t = R->tset ? R->tset : &R->tseqs, .q = &J->qseqs, .start_time = time(NULL) };
    if (o->index) { J->mi.index_path = o->index->path; J->mi.index_sha256 = o->index->sha256; }
    if (o->units) {   /* a unit folder: its manifest names the plan and the units (merge.c reads it) */
        J->mi.unit_kind = o->replay ? "replay" : "unit"; J->mi.plan_path = o->units->plan->path; J->mi.plan_sha256 = o->units->plan->sha256;
        J->mi.unit_sel = o->units->sel; J->mi.n_units = o->units->plan->n;
    }
    if (R->funnels) memset(R->funnels, 0, (size_t)R->nthreads * sizeof *R->funnels);
    return 0;
}

/* J's folder inside the run's temporary OUTDIR (the folder itself for a single query), and
 * for --query-list its tarball path there (OUTDIR/<n>.tar.gz once published). */
static int job_dir(run_t *R, qjob_t *J, size_t n)
{
    if (!R->o->query_list) {
        if (!(J->dir = strdup(R->tmpdir))) return FAIL(R, "out of memory");
    } else {
        size_t tl = strlen(R->tmpdir) + 32;
        J->dir = malloc(tl); J->tar_own = malloc(tl);
        if (!J->dir || !J->tar_own) return FAIL(R, "out of memory");
        snprintf(J->dir, tl, "%s/%06zu", R->tmpdir, n + 1);
        snprintf(J->tar_own, tl, "%s/%06zu.tar.gz", R->tmpdir, n + 1);
        if (J->po.tarball) J->po.tarball = J->tar_own;
        if (mkdir(J->dir, 0777)) return FAIL(R, "%s: cannot create: %s", J->dir, strerror(errno));
    }
    hz_segwriter_init(&J->sw, &R->tside, &J->qside, &J->o);
    double t0 = hz_now();
    if (hz_side_write_names(&R->tside, J->dir, "ref", R->err, sizeof R->err) ||
        hz_side_write_names(&J->qside, J->dir, "query", R->err, sizeof R->err)) return -1;
    J->t_plan += hz_now() - t0;
    return 0;
}

/* OUTDIR/queries.tsv of --query-list: one row per job (README "Many queries"). */
static int queries_tsv_add(run_t *R, FILE **fp, const qjob_t *J, size_t n)
{
    if (!*fp) {
        char p[4200];
        snprintf(p, sizeof p, "%s/queries.tsv", R->tmpdir);
        if (!(*fp = fopen(p, "w"))) return FAIL(R, "%s: cannot create: %s", p, strerror(errno));
        fputs("job\tquery\tbytes\tsha256\trecords\tbases\tquery_blocks\tsegments\tfiles\n", *fp);
    }
    const hz_seqset *q = &J->qseqs;   /* bytes and sha256 taken while it was read (inread.h) */
    fprintf(*fp, "%06zu\t%s\t%llu\t%s\t%zu\t%llu\t%zu\t%llu\t%zu\n", n + 1, J->o.query, (unsigned long long)q->file_bytes, q->sha256,
            q->n, (unsigned long long)q->total, J->qside.n_block, (unsigned long long)J->total.written, J->ncmd);
    return ferror(*fp) ? FAIL(R, "%s/queries.tsv: write error", R->tmpdir) : 0;
}

static void run_free(run_t *R)
{
    hz_backend_prewarm_join(&R->prewarm);
    free(R->tmpdir);
    free(R->gpu_report);
    if (R->report_fp) fclose(R->report_fp);   /* a failed run: its report is not printed */
    free(R->report);
    for (int t = 0; R->scratch && t < R->nthreads; t++) hz_scratch_free(&R->scratch[t]);
    free(R->scratch); free(R->funnels); free(R->th); free(R->wa);
    for (size_t r = 0; R->tblk && r < R->tside.n_block; r++) hz_tblock_free(&R->tblk[r]);
    free(R->tblk);
    if (R->be) R->be->close(R->be);
    hz_side_free(&R->tside);
    hz_seqset_free(&R->tseqs);
}

/* A failed run: one error line, this run's partial output removed, the failure manifest
 * (docs/manifest.md) next to OUTDIR from the job that failed. */
static void run_fail(run_t *R, qjob_t *J)
{
    const hz_opts *o = R->o;
    hz_publish_abort(&R->sigw);   /* first: removes this run's temporary folder and tarball; an interrupt in progress prints the only line */
    if (R->show_progress) fprintf(stderr, "\n");
    fprintf(stderr, "hspz: %s\n", R->err[0] ? R->err : "failed");
    if (R->dump_placed) unlink(o->dump_plan);
    if (R->mdump_placed) unlink(o->dump_manifest);
    /* none when the output path itself was refused before any work, or stdout failed (like a
     * usage error: nothing to describe); silently skipped when it cannot be written */
    char *fm = R->out_refused || ferror(stdout) ? NULL : hz_publish_failed_manifest(o, &R->sigw);
    if (fm && J) {
        char e2[512];
        struct stat fst;
        if (lstat(fm, &fst) == 0) {   /* never replaced: this run did not create it */
            if (!o->quiet) fprintf(stderr, "hspz: note: %s exists and is not replaced; no failure manifest was written\n", fm);
            free(fm);
            return;
        }
        job_manifest_facts(R, J);
        hz_opts fo = J->o;
        fo.outdir = o->outdir;
        J->mi.o = &fo;
        J->mi.exit_status = 1; J->mi.error = R->err[0] ? R->err : "failed";
        hz_manifest_write(&J->mi, fm, NULL, e2, sizeof e2);
        J->mi.o = &J->o;
    }
    free(fm);
}

/* Every job: load, execute, finish; jobs after the first keep the target's blocks. */
static int run_jobs(run_t *R, qjob_t *J)
{
    const hz_opts *o = R->o;
    size_t nj = o->query_list ? o->n_query_list : 1;
    FILE *tsv = NULL;
    int rc = 0;
    R->keep_blocks = nj > 1;
    for (size_t n = 0; n < nj && !rc; n++) {
        if (n > 0) {
            if (job_init(R, J, n) || job_load(R, J, 0)) { rc = -1; break; }
        }
        if (job_dir(R, J, n) || job_execute(R, J) || job_finish(R, J) || (o->query_list && queries_tsv_add(R, &tsv, J, n))) { rc = -1; break; }
        job_report(R, J);
        if (n + 1 < nj) job_free(J);
    }
    if (tsv && fclose(tsv) && !rc) rc = FAIL(R, "%s/queries.tsv: write error", R->tmpdir);
    return rc;
}

int hz_run(const hz_opts *o)
{
    run_t *R = calloc(1, sizeof *R);
    qjob_t *J = calloc(1, sizeof *J);
    if (!R || !J) { free(R); free(J); fprintf(stderr, "hspz: out of memory\n"); return 1; }
    R->o = o;
    hz_sigwatch_start(&R->sigw);   /* before any thread starts, so that all inherit the blocked set */
    R->t_start = hz_now();
    R->trace = getenv("HSPZ_TRACE") && !strcmp(getenv("HSPZ_TRACE"), "1");
    if (R->trace) {   /* the wall clock too, so that a caller can see how long the start took */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        fprintf(stderr, "hspz: trace 0.0000 start %lld.%06ld\n", (long long)ts.tv_sec, ts.tv_nsec / 1000);
    }
    int status = 1, jinit = 0;
    if (job_init(R, J, 0)) goto done;
    jinit = 1;
    if (run_setup(R)) goto done;
    /* OUTDIR's rules before the inputs are read (a large genome takes a while); checked again
     * below, once the inputs are in */
    if (hz_check_outdir(o, R->err, sizeof R->err)) { R->out_refused = 1; goto done; }
    hz_backend_prewarm(o, &R->prewarm);   /* CUDA contexts start while the inputs are read */
    if (job_load(R, J, 1)) goto done;
    trace(R, "inputs loaded");
    double t0 = hz_now();
    /* output directory: checked now, written as OUTDIR.tmp-<pid>, renamed at the end */
    if (hz_check_outdir(o, R->err, sizeof R->err)) { R->out_refused = 1; goto done; }
    double ta = hz_now();
    if (encode_ahead(R, J)) goto done;
    t0 += hz_now() - ta;   /* J->t_table's, not J->t_plan's */
    /* device (after the inputs: a bad input gets its one error line and nothing else) */
    hz_backend_prewarm_join(&R->prewarm);
    trace(R, "device ready");
    if (hz_backend_open(o, &R->xp, &R->be, R->err, sizeof R->err)) goto done;
    trace(R, "backend open");
    {
        hz_opts to = *o;
        if (o->query_list) to.tarball = NULL;   /* the tarballs lie inside the folder */
        if (!(R->tmpdir = hz_tmpdir_make(&to, &R->sigw, R->err, sizeof R->err))) goto done;
    }
    J->t_plan += hz_now() - t0;
    if (run_jobs(R, J)) goto done;
    /* --dump-plan (hillerlab/hspZ's spelling): next to the outputs, before they are published */
    if (o->dump_plan) {
        if (hz_plan_dump(&R->tside, &J->qside, o->dump_plan, R->err, sizeof R->err)) goto done;
        R->dump_placed = 1;
    }
    if (o->dump_manifest) {   /* hillerlab/hspZ's frozen plan: hspz's plan.json (--from-manifest replays it) */
        hz_config cc = *o->cfg;
        cc.o = J->o;
        if (hz_plan_write(&cc, &R->tside, &J->qside, o->dump_manifest, 0, R->err, sizeof R->err)) goto done;
        R->mdump_placed = 1;
    }
    /* publish (publish.c): OUTDIR.tmp-<pid> becomes OUTDIR under the signal watcher's lock */
    if (hz_publish(o, R->tmpdir, &R->sigw, R->err, sizeof R->err)) goto done;
    free(R->tmpdir); R->tmpdir = NULL;
    trace(R, "published");
    if (R->report_fp && !fclose(R->report_fp)) fputs(R->report, stderr);   /* "wrote ... to OUTDIR" now that it is there */
    R->report_fp = NULL;
    {   /* a failure manifest of an earlier run of this OUTDIR is stale now */
        char *fm = hz_failed_manifest_path(o->outdir);
        if (fm && hz_failed_manifest_is_hspz(fm)) unlink(fm);   /* never a user's file of that name */
        free(fm);
    }
    if (o->query_list && !o->quiet)
        fprintf(stderr, "hspz: %zu queries against %s written to %s (queries.tsv lists them)\n", o->n_query_list,
                o->index ? o->index->path : o->target, o->outdir);
    status = 0;
done:
    hz_backend_prewarm_join(&R->prewarm);
    if (status) run_fail(R, jinit ? J : NULL);
    hz_sigwatch_stop(&R->sigw);
    job_free(J);
    int tr = R->trace;
    double ts = R->t_start;
    run_free(R);
    if (tr) fprintf(stderr, "hspz: trace %.4f freed\n", hz_now() - ts);
    free(J); free(R);
    return status;
}
