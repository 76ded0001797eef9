/* pipeline_work — one pair of blocks of a job (see pipeline_impl.h): the chunk jobs of its
 * intervals on the worker threads (results joined in chunk order, so the bytes never depend on
 * the thread count), each interval's exact-duplicate removal, segments files and lastz
 * commands written as soon as its chunks are done (spec §3.5, §5.5). */
#include "pipeline_impl.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct { int strand; uint32_t j0, j1, k; } job_t;   /* strand 0 plus, 1 minus; k = its interval */

struct hz_pl_work {
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
};
typedef struct hz_pl_work work_t;


static void progress_line(double done, double total, double t0, size_t r, size_t R, size_t q, size_t Q)
{
    double el = hz_now() - t0, frac = total > 0 ? done / total : 1.0;
    double eta = frac > 0 ? el * (1 - frac) / frac : 0;
    fprintf(stderr, "\rhspz: target block %zu/%zu, query block %zu/%zu: %5.1f%%, %.2f Mbp/s, ETA %.0f s   ",
            r + 1, R, q + 1, Q, 100 * frac, el > 0 ? done / el / 1e6 : 0, eta);
    fflush(stderr);
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
int hz_pl_pair_run(run_t *R, qjob_t *J, size_t r, const hz_tblock *tb, size_t q)
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
