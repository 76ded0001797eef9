/* pipeline — input -> plan -> seeds -> gate -> materialize -> dedup -> output, end to end
 * (hz_run; see pipeline.h).  This file: the run, its jobs' folders, lastz commands, packaging,
 * manifest and publishing; a job's inputs and work units: pipeline_load.c; one pair of
 * blocks on the worker threads: pipeline_work.c (pipeline_impl.h).
 *
 * Work order follows spec §2.7 and §5.5: target block r, query block q, interval k; inside an
 * interval the plus chunks then the minus chunks (§3.5).  Chunks run on worker threads; their
 * results are joined in chunk order, so the bytes never depend on the thread count.
 */
#include "pipeline_impl.h"
#include "package.h"
#include "publish.h"
#include "report.h"
#include "gapped_run.h"
#include <jansson.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


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
    if (hz_package(&J->po, J->dir, &R->tside, &J->qside, &J->nfiles, &J->mi.diag_auto_n, &R->sigw.lock, R->err,
                   sizeof R->err)) return -1;
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
        /* --device cuda: the alignments on the GPU too (a helper process, gapped_run.h); auto and
         * cpu keep them on the CPU, as hspz gapped's default */
        const char *gdev = R->be && J->o.device && !strcmp(J->o.device, "cuda") ? "cuda" : NULL;
        const char *ge = getenv("HSPZ_GAPPED_DEVICE");   /* checked by hz_env_check: cpu, cuda, emu */
        if (ge && *ge) gdev = strcmp(ge, "cpu") ? ge : NULL;
        if (hz_gapped_run(&J->o, J->dir, J->mi.t, &J->qseqs, J->o.query, R->nthreads, gdev, &gf, &J->mi.t_gapped, R->err, sizeof R->err)) {
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

/* OUTDIR/queries.tsv of --query-list: one row per job (docs/scale-out.md "Many queries"). */
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
    free(R->tarpath);
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
            if (job_init(R, J, n) || hz_pl_job_load(R, J, 0)) { rc = -1; break; }
        }
        if (job_dir(R, J, n) || hz_pl_job_execute(R, J) || job_finish(R, J) || (o->query_list && queries_tsv_add(R, &tsv, J, n))) { rc = -1; break; }
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
    if (hz_pl_job_load(R, J, 1)) goto done;
    trace(R, "inputs loaded");
    double t0 = hz_now();
    /* output directory: checked now, written as OUTDIR.tmp-<pid>, renamed at the end */
    if (hz_check_outdir(o, R->err, sizeof R->err)) { R->out_refused = 1; goto done; }
    double ta = hz_now();
    if (hz_pl_encode_ahead(R, J)) goto done;
    t0 += hz_now() - ta;   /* J->t_table's, not J->t_plan's */
    /* device (after the inputs: a bad input gets its one error line and nothing else) */
    hz_backend_prewarm_join(&R->prewarm);
    trace(R, "device ready");
    if (hz_backend_open(o, &R->xp, &R->be, R->err, sizeof R->err)) goto done;
    trace(R, "backend open");
    /* the tarball beside OUTDIR (none for --query-list: its tarballs lie inside the folder);
     * publishing gets its path from here, never from the package writer */
    if (o->tarball && !o->query_list && !(R->tarpath = hz_package_tarball_path(o))) { (void)FAIL(R, "out of memory"); goto done; }
    {
        hz_opts to = *o;
        if (o->query_list) to.tarball = NULL;
        if (!(R->tmpdir = hz_tmpdir_make(&to, R->tarpath, &R->sigw, R->err, sizeof R->err))) goto done;
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
    if (hz_publish(o, R->tmpdir, R->tarpath, &R->sigw, R->err, sizeof R->err)) goto done;
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

