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
#include "report.h"
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



typedef struct { int strand; uint32_t j0, j1; } job_t;   /* strand 0 plus, 1 minus */

typedef struct {
    const hz_target *tgt;
    const hz_shape *sh;
    const uint8_t *qtext[2];   /* seeding text: forward bytes, host reverse complement */
    const uint8_t *qcode[2];   /* extension codes: forward, reverse complement */
    uint32_t qlen;
    const job_t *jobs; size_t njobs;
    hz_hspvec *res;
    atomic_size_t next;
    atomic_int failed;
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
static void print_gpu_report(const char *js, uint64_t anchors, double wall)
{
    json_t *r = json_loads(js, 0, NULL);
    if (!r) return;
    double ge = json_number_value(json_object_get(r, "gate_event_s"));
    fprintf(stderr, "hspz: gpu: gate kernel %s, ref-buckets %s (%lld of %lld target blocks bucketed); "
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
        fprintf(stderr, "hspz: gpu %lld %s: %lld chunks, %lld anchors, busy %.3f s (%.0f%% of wall); event-s seed %.3f "
                "gate %.3f compact %.3f materialize %.3f long_select %.3f copy %.3f\n",
                (long long)json_integer_value(json_object_get(d, "index")), json_string_value(json_object_get(d, "name")),
                (long long)json_integer_value(json_object_get(d, "work_chunks")),
                (long long)json_integer_value(json_object_get(d, "anchors")), busy, wall > 0 ? 100.0 * busy / wall : 0.0,
                json_number_value(json_object_get(se, "seed")), json_number_value(json_object_get(se, "gate")),
                json_number_value(json_object_get(se, "compact")), json_number_value(json_object_get(se, "materialize")),
                json_number_value(json_object_get(se, "long_select")), json_number_value(json_object_get(se, "copy")));
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

static void *worker(void *pa)
{
    worker_arg *a = pa;
    work_t *w = a->w;
    hz_scratch *s = &w->scratch[a->tid];
    hz_funnel *f = &w->funnel[a->tid];
    for (;;) {
        size_t i = atomic_fetch_add(&w->next, 1);
        if (i >= w->njobs || atomic_load(&w->failed)) break;
        const job_t *j = &w->jobs[i];
        if (w->be && w->be->chunk_range) {
            if (w->be->chunk_range(w->be, w->tgt, w->sh, j->strand, j->j0, j->j1, w->qlen,
                                   w->qcode[j->strand], &w->res[i], f, a->tid)) {
                atomic_store(&w->failed, 1); break;
            }
            job_done(w, a->tid);
            continue;
        }
        double t0 = hz_now();
        int64_t ns = hz_seeds_chunk(w->qtext[j->strand], j->j0, j->j1, w->sh, &s->seeds, &s->seeds_cap);
        f->t_seed += hz_now() - t0;
        if (ns < 0) { atomic_store(&w->failed, 1); break; }
        int rc;
        if (w->be)
            rc = w->be->chunk(w->be, w->tgt, s->seeds, (size_t)ns, w->qcode[j->strand], j->strand,
                              w->qlen, &w->res[i], f, a->tid);
        else
            rc = hz_chunk_cpu(w->tgt, s->seeds, (size_t)ns, w->qcode[j->strand], w->qlen, &w->res[i], f, s);
        if (rc) { atomic_store(&w->failed, 1); break; }
        job_done(w, a->tid);
    }
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

typedef struct { const char *path; hz_seqset *s; char err[2048]; int rc; } load_arg;

/* One query block's host arrays: bytes, extension codes (forward, reverse complement) and the
 * host reverse complement for seeding (plan.h hz_block_codes).  The next block's are prepared
 * by a helper thread while the current block's chunks run. */
typedef struct {
    const hz_side *side; size_t q; uint32_t L;
    uint8_t *bytes, *hrc, *fc, *rc; size_t cap;
    int ok;
} qprep_t;

static void *qprep_main(void *p)
{
    qprep_t *a = p;
    a->L = a->side->block[a->q].len;
    a->ok = 0;
    if ((size_t)a->L + 1 > a->cap) {
        free(a->bytes); free(a->hrc); free(a->fc); free(a->rc);
        a->bytes = malloc((size_t)a->L + 1); a->hrc = malloc((size_t)a->L + 1);
        a->fc = malloc((size_t)a->L + 1); a->rc = malloc((size_t)a->L + 1);
        a->cap = a->bytes && a->hrc && a->fc && a->rc ? (size_t)a->L + 1 : 0;
        if (!a->cap) return NULL;
    }
    hz_block_bytes(a->side, a->q, a->bytes);
    hz_block_codes(a->bytes, a->L, a->fc, a->rc, a->hrc);
    a->ok = 1;
    return NULL;
}

static void *load_main(void *p)
{
    load_arg *a = p;
    a->rc = hz_seqset_load(a->path, a->s, a->err, sizeof a->err);
    return NULL;
}

int hz_run(const hz_opts *o)
{
    char err[2048] = "";
    int status = 1;
    hz_sigwatch sigw;
    char *tar_placed = NULL;   /* this run's tarball once renamed into place, until OUTDIR is published */
    int dump_placed = 0;       /* this run wrote --dump-plan's file, OUTDIR not yet published */
    hz_sigwatch_start(&sigw);   /* before any thread starts, so that all inherit the blocked set */
    double t_start = hz_now();
    hz_seqset tseqs = {0}, qseqs = {0};
    hz_side tside = {0}, qside = {0};
    hz_scorefile sf;
    hz_xparams xp;
    hz_shape sh;
    char *tmpdir = NULL;
    hz_cmd *cmds = NULL; size_t ncmd = 0, capcmd = 0;
    hz_funnel total = {0};
    char *gpu_report = NULL;
    double t_load = 0, t_plan = 0, t_table = 0, t_output = 0;
    int nthreads = o->threads > 0 ? o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (nthreads < 1) nthreads = 1;
    hz_scratch *scratch = calloc((size_t)nthreads, sizeof *scratch);
    hz_funnel *funnels = calloc((size_t)nthreads, sizeof *funnels);
    pthread_t *th = calloc((size_t)nthreads, sizeof *th);
    worker_arg *wa = calloc((size_t)nthreads, sizeof *wa);
    uint8_t *tbytes = NULL, *tcodes = NULL;
    qprep_t qp[2];                       /* current and next query block (qprep_main) */
    int qcur = 0, qth_on = 0, qnext = 0;
    pthread_t qth;
    memset(qp, 0, sizeof qp);
    hz_backend *be = NULL;
    hz_prewarm prewarm = {0};
    hz_segwriter sw;
    hz_segwriter_init(&sw, &tside, &qside, o);
    hz_manifest_info mi = { .o = o, .t = &tseqs, .q = &qseqs, .start_time = time(NULL) };
    if (o->units) {   /* a unit folder: its manifest names the plan and the units (merge.c reads it) */
        mi.unit_kind = "unit"; mi.plan_path = o->units->plan->path; mi.plan_sha256 = o->units->plan->sha256;
        mi.unit_sel = o->units->sel; mi.n_units = o->units->plan->n;
    }
    int funnels_added = 0;
    int show_progress = o->progress < 0 ? (!o->quiet && isatty(2)) : o->progress;

    if (!scratch || !funnels || !th || !wa) { snprintf(err, sizeof err, "out of memory"); goto done; }
    if (hz_shape_parse(o->seed, o->transition, &sh, err, sizeof err)) goto done;

    /* scoring (spec §9; RULES.md "scoring file") */
    const hz_scorefile *sfp = NULL;
    if (o->scoring) {
        if (hz_scorefile_load(o->scoring, &sf, err, sizeof err)) goto done;
        sfp = &sf;
        if (sf.n_ignored_keys && !o->quiet)
            fprintf(stderr, "hspz: note: %s: %s do not change HSPs (only the A/C/G/T block, bad_score "
                    "and fill_score do); they are passed to lastz through --scores\n",
                    o->scoring, sf.ignored_keys);
    }
    int32_t sub8[HZ_NCODES][HZ_NCODES];
    if (hz_scoring_build(sub8, sfp, o->ambiguous, o->xdrop, err, sizeof err)) goto done;
    memset(&xp, 0, sizeof xp);
    memcpy(xp.sub, sub8, sizeof xp.sub);
    xp.xdrop = o->xdrop; xp.hspthresh = o->hspthresh; xp.entropy = o->entropy;
    xp.gate_min_total = hz_gate_threshold(o->hspthresh);

    /* input (CUDA contexts start meanwhile) */
    hz_backend_prewarm(o, &prewarm);
    double t0 = hz_now();
    {   /* target and query are read in parallel; the target's error is reported first */
        load_arg la = { o->query, &qseqs, "", -1 };
        pthread_t lt;
        int threaded = pthread_create(&lt, NULL, load_main, &la) == 0;
        int trc = hz_seqset_load(o->target, &tseqs, err, sizeof err);
        if (threaded) pthread_join(lt, NULL); else load_main(&la);
        if (trc) goto done;
        if (la.rc) { snprintf(err, sizeof err, "%s", la.err); goto done; }
    }
    t_load = hz_now() - t0;
    t0 = hz_now();
    if (hz_side_plan(&tside, &tseqs, o->seq_block_size, o->target_prefix, err, sizeof err)) goto done;
    if (hz_side_plan(&qside, &qseqs, o->seq_block_size, o->query_prefix, err, sizeof err)) goto done;
    if (o->units && hz_unitplan_check_cover(o->units->plan, o, &tside, &qside, (uint32_t)sh.span, err, sizeof err)) goto done;

    /* output directory: checked now, written as OUTDIR.tmp-<pid>, renamed at the end */
    if (hz_check_outdir(o, err, sizeof err)) goto done;

    /* device (after the inputs: a bad input gets its one error line and nothing else) */
    hz_backend_prewarm_join(&prewarm);
    if (hz_backend_open(o, &xp, &be, err, sizeof err)) goto done;

    if (!(tmpdir = hz_tmpdir_make(o, &sigw, err, sizeof err))) goto done;
    if (hz_side_write_names(&tside, tmpdir, "ref", err, sizeof err)) goto done;
    if (hz_side_write_names(&qside, tmpdir, "query", err, sizeof err)) goto done;
    t_plan = hz_now() - t0;

    int do_plus = strcmp(o->strand, "plus") == 0 || strcmp(o->strand, "both") == 0;
    int do_minus = strcmp(o->strand, "minus") == 0 || strcmp(o->strand, "both") == 0;
    uint32_t W = (uint32_t)sh.span;
    double work_total = 0, work_done = 0;
    for (size_t q = 0; q < qside.n_block; q++) work_total += (double)qside.block[q].len * (double)tside.n_block;

    qp[0].side = qp[1].side = &qside;
    if (qside.n_block) { qp[0].q = 0; qprep_main(&qp[0]); }
    for (size_t r = 0; r < tside.n_block; r++) {
        if (o->units && !hz_unitsel_target(o->units, r)) continue;   /* hspz run --plan --unit */
        const hz_block *tb = &tside.block[r];
        double ts = hz_now();
        free(tbytes); free(tcodes);
        tbytes = malloc((size_t)tb->len + 1); tcodes = malloc((size_t)tb->len + 1);
        if (!tbytes || !tcodes) { snprintf(err, sizeof err, "out of memory for target block %zu (%u bytes)", r, tb->len); goto done; }
        hz_block_bytes(&tside, r, tbytes);
        hz_block_codes(tbytes, tb->len, tcodes, NULL, NULL);
        hz_seedtable tab;
        if (tb->len < W && !o->quiet)
            fprintf(stderr, "hspz: note: target block %zu (%u bytes) is shorter than the seed span %u: no seeds\n", r, tb->len, W);
        if (be && be->build_table) {
            if (be->build_table(be, &tab, tbytes, tb->len, &sh, o->step, err, sizeof err)) goto done;
        } else if (hz_seedtable_build(&tab, tbytes, tb->len, &sh, o->step)) {
            snprintf(err, sizeof err, "out of memory building the seed table of target block %zu", r);
            goto done;
        }
        free(tbytes); tbytes = NULL;
        hz_target tgt = { tcodes, tb->len, &tab, W, &xp, o->max_hits };
        if (be && be->set_target(be, &tgt, err, sizeof err)) { hz_seedtable_free(&tab); goto done; }
        t_table += hz_now() - ts;

        for (size_t q = 0; q < qside.n_block; q++) {
            if (qnext) {   /* the other slot holds this block (prepared during the last one) */
                if (qth_on) pthread_join(qth, NULL);
                qth_on = qnext = 0;
                qcur ^= 1;
            }
            qprep_t *P = &qp[qcur];
            if (!P->ok || P->q != q) { hz_seedtable_free(&tab); snprintf(err, sizeof err, "out of memory for query block %zu", q); goto done; }
            /* prepare the block that comes next (q+1, or block 0 again for the next target block) */
            if (qside.n_block > 1 && (q + 1 < qside.n_block || r + 1 < tside.n_block)) {
                qp[qcur ^ 1].q = q + 1 < qside.n_block ? q + 1 : 0;
                qth_on = pthread_create(&qth, NULL, qprep_main, &qp[qcur ^ 1]) == 0;
                if (!qth_on) qprep_main(&qp[qcur ^ 1]);
                qnext = 1;
            }
            if (o->units && !hz_unitsel_pair(o->units, r, q)) continue;
            uint32_t L = P->L;
            const uint8_t *qbytes = P->bytes, *qhrc = P->hrc, *qfc = P->fc, *qrc = P->rc;
            if (L < W && !o->quiet)
                fprintf(stderr, "hspz: note: query block %zu (%u bytes) is shorter than the seed span %u: no seeds\n", q, L, W);
            if (be && be->set_query(be, qfc, qrc, L, err, sizeof err)) { hz_seedtable_free(&tab); goto done; }
            if (be && be->set_query_text && be->set_query_text(be, qbytes, qhrc, L, err, sizeof err)) { hz_seedtable_free(&tab); goto done; }
            uint32_t (*iv)[2];
            size_t niv = hz_intervals(L, W, o->interval_size, &iv);
            uint32_t E = L > W ? L - W : 0;
            /* chunks of every interval (spec §3.5) in one pool, so no interval waits for the
             * slowest chunk of the previous one; results stay in plan order per chunk */
            size_t cap = 0;
            for (size_t k = 0; k < niv; k++) cap += 2 * ((size_t)((iv[k][1] - iv[k][0]) / o->chunk_size) + 2);
            job_t *jobs = malloc((cap ? cap : 1) * sizeof *jobs);
            size_t *kfirst = malloc((niv + 1) * sizeof *kfirst), *kplus = malloc((niv + 1) * sizeof *kplus);
            if (!jobs || !kfirst || !kplus) { free(jobs); free(kfirst); free(kplus); free(iv); hz_seedtable_free(&tab); snprintf(err, sizeof err, "out of memory"); goto done; }
            size_t nj = 0;
            for (size_t k = 0; k < niv; k++) {
                uint32_t s = iv[k][0], e = iv[k][1];
                kfirst[k] = nj;
                if (o->units && !hz_unitsel_interval(o->units, r, q, k)) { kplus[k] = nj; continue; }
                if (do_plus)
                    for (uint64_t i = s; i < e; i += o->chunk_size)
                        jobs[nj++] = (job_t){0, (uint32_t)i, (uint32_t)(i + o->chunk_size < (uint64_t)e + 1 ? i + o->chunk_size : (uint64_t)e + 1)};
                kplus[k] = nj;
                if (do_minus) {
                    uint32_t rs = E - e, re = E - s;
                    for (uint64_t i = rs; i < re; i += o->chunk_size)
                        jobs[nj++] = (job_t){1, (uint32_t)i, (uint32_t)(i + o->chunk_size < (uint64_t)re + 1 ? i + o->chunk_size : (uint64_t)re + 1)};
                }
            }
            kfirst[niv] = nj;
            hz_hspvec *res = calloc(nj ? nj : 1, sizeof *res);
            if (!res) { free(jobs); free(kfirst); free(kplus); free(iv); hz_seedtable_free(&tab); snprintf(err, sizeof err, "out of memory"); goto done; }
            int failed;
            {
                double span = 0;
                for (size_t k = 0; k < niv; k++) span += (double)L * (double)(iv[k][1] - iv[k][0]) / (E ? E : 1);
                work_t w = { &tgt, &sh, { qbytes, qhrc }, { qfc, qrc }, L, jobs, nj, res, 0, 0, scratch, funnels, be,
                             show_progress, t_start, work_done, span, work_total,
                             hz_now(), r, tside.n_block, q, qside.n_block, 0 };
                int nt = nthreads < (int)nj ? nthreads : (int)nj;
                for (int t = 0; t < nt; t++) { wa[t].w = &w; wa[t].tid = t; }
                for (int t = 1; t < nt; t++) pthread_create(&th[t], NULL, worker, &wa[t]);
                if (nt > 0) worker(&wa[0]);
                for (int t = 1; t < nt; t++) pthread_join(th[t], NULL);
                failed = atomic_load(&w.failed);
            }
            for (size_t k = 0; k < niv; k++) {
                uint32_t s = iv[k][0], e = iv[k][1];
                double to = hz_now();
                hz_hspvec fw = {0}, rc = {0};
                for (size_t i = kfirst[k]; i < kfirst[k + 1] && !failed; i++) {
                    hz_hspvec *dst = i < kplus[k] ? &fw : &rc;
                    if (hz_hspvec_reserve(dst, res[i].n)) { failed = 1; break; }
                    memcpy(dst->v + dst->n, res[i].v, res[i].n * sizeof *dst->v);
                    dst->n += res[i].n;
                }
                for (size_t i = kfirst[k]; i < kfirst[k + 1]; i++) hz_hspvec_free(&res[i]);
                if (failed) {
                    for (size_t i = kfirst[k + 1]; i < nj; i++) hz_hspvec_free(&res[i]);
                    free(res); free(jobs); free(kfirst); free(kplus);
                    hz_hspvec_free(&fw); hz_hspvec_free(&rc); free(iv); hz_seedtable_free(&tab);
                    if (!err[0]) snprintf(err, sizeof err, "%s", be && be->last_error[0] ? be->last_error : "out of memory while extending seed hits");
                    goto done;
                }
                /* per-interval exact-duplicate removal (0.3.x, RULES.md) */
                fw.n = hz_dedup_interval(fw.v, fw.n);
                rc.n = hz_dedup_interval(rc.v, rc.n);
                if (fw.n == SIZE_MAX || rc.n == SIZE_MAX) { snprintf(err, sizeof err, "out of memory in dedup"); goto done; }
                for (int strand = 0; strand < 2; strand++) {
                    hz_hspvec *v = strand ? &rc : &fw;
                    if (v->n == 0) continue;
                    char base[512];
                    snprintf(base, sizeof base, "tmp%zu.block%zu.r%llu.%s", k + 1, q,
                             (unsigned long long)tb->start, strand ? "minus" : "plus");
                    if (hz_segwriter_write(&sw, tmpdir, base, v->v, v->n, strand, r, q, err, sizeof err)) {
                        hz_hspvec_free(&fw); hz_hspvec_free(&rc); free(iv); hz_seedtable_free(&tab); goto done;
                    }
                    total.written += v->n;
                    if (ncmd == capcmd) {
                        size_t nc = capcmd ? 2 * capcmd : 64;
                        hz_cmd *c2 = realloc(cmds, nc * sizeof *cmds);
                        if (!c2) { hz_hspvec_free(&fw); hz_hspvec_free(&rc); free(iv); hz_seedtable_free(&tab); snprintf(err, sizeof err, "out of memory"); goto done; }
                        cmds = c2; capcmd = nc;
                    }
                    cmds[ncmd] = (hz_cmd){ strand, k + 1, q, tb->start, hz_lastz_command(o, base, r, q, strand) };
                    if (!cmds[ncmd].line) { hz_hspvec_free(&fw); hz_hspvec_free(&rc); free(iv); hz_seedtable_free(&tab); snprintf(err, sizeof err, "out of memory"); goto done; }
                    ncmd++;
                }
                hz_hspvec_free(&fw); hz_hspvec_free(&rc);
                t_output += hz_now() - to;
                work_done += (double)L * (double)(e - s) / (E ? E : 1);
                if (show_progress) progress_line(work_done, work_total, t_start, r, tside.n_block, q, qside.n_block);
            }
            free(res); free(jobs); free(kfirst); free(kplus);
            free(iv);
        }
        hz_seedtable_free(&tab);
    }
    if (show_progress) fprintf(stderr, "\n");

    /* lastz commands (RULES.md "lastz commands"): sorted plus before minus, then tmp, block, r */
    {
        double to = hz_now();
        if (hz_commands_write(o, tmpdir, cmds, ncmd, err, sizeof err)) goto done;
        t_output += hz_now() - to;
    }
    /* packaging: diagonal partition, all.segments, Galaxy tarball (package.c) */
    {
        double to = hz_now();
        if (hz_package(o, tmpdir, &tside, &qside, err, sizeof err)) goto done;
        if (o->tarball) {   /* this run's tarball is in place: a failure or signal before the publish removes it */
            free(tar_placed);
            tar_placed = hz_package_tarball_path(o);
            hz_sigwatch_paths(&sigw, tmpdir, tar_placed);
        }
        t_output += hz_now() - to;
    }
    /* provenance manifest (manifest.c): the last file written into the output folder */
    for (int t = 0; t < nthreads; t++) hz_funnel_add(&total, &funnels[t]);
    funnels_added = 1;
    {
        mi.funnel = total; mi.have_plan = 1;
        hz_plan_count(&tside, &qside, (unsigned)sh.span, o, &mi.plan);
        manifest_facts(&mi, be, t_start, nthreads, t_load, t_plan, t_table, t_output, &gpu_report);
        char mp[4096];
        snprintf(mp, sizeof mp, "%s/manifest.json", tmpdir);
        if (hz_manifest_write(&mi, mp, tmpdir, err, sizeof err)) goto done;
    }
    /* --dump-plan (hillerlab/hspZ's spelling): next to the outputs, before they are published */
    if (o->dump_plan) {
        if (hz_plan_dump(&tside, &qside, o->dump_plan, err, sizeof err)) goto done;
        dump_placed = 1;
    }
    if (o->report && hz_report_dir(tmpdir, err, sizeof err)) goto done;   /* --report: report.html + .png (report.h), after the manifest */
    /* publish (publish.c): OUTDIR.tmp-<pid> becomes OUTDIR under the signal watcher's lock */
    if (hz_publish(o, tmpdir, &sigw, err, sizeof err)) goto done;
    free(tar_placed); tar_placed = NULL;
    free(tmpdir); tmpdir = NULL;
    {   /* a failure manifest of an earlier run of this OUTDIR is stale now */
        char *fm = hz_failed_manifest_path(o->outdir);
        if (fm) unlink(fm);
        free(fm);
    }
    if (!o->quiet) {
        fprintf(stderr, "hspz: funnel: seeds %llu anchors %llu gate_survivors %llu hsps_accepted %llu "
                "hsps_after_dedup %llu segments_written %llu long_anchors %llu\n",
                (unsigned long long)total.seeds, (unsigned long long)total.anchors,
                (unsigned long long)total.survivors, (unsigned long long)total.accepted,
                (unsigned long long)total.after_batch, (unsigned long long)total.written, (unsigned long long)total.long_anchors);
    }
    if (!o->quiet || o->time_report) {
        fprintf(stderr, "hspz: time: load %.3f plan %.3f seedtable %.3f seeds %.3f anchors %.3f gate %.3f "
                "extend %.3f dedup %.3f output %.3f wall %.3f (s; seeds..dedup are summed over %d threads)\n",
                t_load, t_plan, t_table, total.t_seed, total.t_anchor, total.t_gate, total.t_extend,
                total.t_dedup, t_output, mi.t_wall, nthreads);
        if (gpu_report) print_gpu_report(gpu_report, total.anchors, mi.t_wall);
    }
    if (!o->quiet) {
        fprintf(stderr, "hspz: backend %s; wrote %llu segments in %zu files to %s\n",
                be ? be->name : "cpu", (unsigned long long)total.written, ncmd, o->outdir);
    }
    status = 0;
done:
    hz_backend_prewarm_join(&prewarm);
    if (status != 0) {
        if (show_progress) fprintf(stderr, "\n");
        fprintf(stderr, "hspz: %s\n", err[0] ? err : "failed");
        hz_sigwatch_paths(&sigw, NULL, NULL);
        if (tmpdir) hz_rm_rf(tmpdir);
        if (tar_placed) unlink(tar_placed);
        if (dump_placed) unlink(o->dump_plan);
        /* failure manifest next to OUTDIR (docs/manifest.md); silently skipped when it cannot be written */
        char *fm = hz_failed_manifest_path(o->outdir);
        if (fm) {
            char e2[512];
            if (!funnels_added)
                for (int t = 0; funnels && t < nthreads; t++) hz_funnel_add(&total, &funnels[t]);
            mi.funnel = total;
            mi.have_plan = tside.block && qside.block;
            if (mi.have_plan) hz_plan_count(&tside, &qside, (unsigned)sh.span, o, &mi.plan);
            manifest_facts(&mi, be, t_start, nthreads, t_load, t_plan, t_table, t_output, &gpu_report);
            mi.exit_status = status; mi.error = err[0] ? err : "failed";
            hz_manifest_write(&mi, fm, NULL, e2, sizeof e2);
            free(fm);
        }
    }
    free(tmpdir);
    hz_sigwatch_stop(&sigw);
    free(tar_placed);
    free(gpu_report);
    for (size_t i = 0; i < ncmd; i++) free(cmds[i].line);
    free(cmds);
    for (int t = 0; scratch && t < nthreads; t++) hz_scratch_free(&scratch[t]);
    free(scratch); free(funnels); free(th); free(wa);
    if (qth_on) pthread_join(qth, NULL);
    for (int k = 0; k < 2; k++) { free(qp[k].bytes); free(qp[k].hrc); free(qp[k].fc); free(qp[k].rc); }
    free(tbytes); free(tcodes);
    if (be) be->close(be);
    hz_segwriter_free(&sw);
    hz_side_free(&tside); hz_side_free(&qside);
    hz_seqset_free(&tseqs); hz_seqset_free(&qseqs);
    return status;
}
