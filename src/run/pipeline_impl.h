/* pipeline_impl — the run and its jobs, shared by the driver's three files (not a public
 * header): pipeline.c (the run: setup, jobs' folders, packaging, manifest, publish),
 * pipeline_load.c (inputs, target blocks, query blocks, the work units of a job) and
 * pipeline_work.c (one pair of blocks: chunks on the worker threads, intervals written in
 * order).  Calls go one way: pipeline.c -> pipeline_load.c -> pipeline_work.c.
 */
#ifndef HZ_PIPELINE_IMPL_H
#define HZ_PIPELINE_IMPL_H
#include "pipeline.h"
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
#include "units.h"
#include "index.h"
#include "sigwatch.h"
#include <pthread.h>
#include <stdio.h>

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

/* a worker thread's argument: the pair's shared state (pipeline_work.c) and its thread index */
typedef struct hz_pl_work hz_pl_work;
typedef struct { hz_pl_work *w; int tid; } worker_arg;



/* ---- the run and its jobs -------------------------------------------------------------------
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
    char *tarpath;             /* the tarball (or -Z archive) beside OUTDIR, or NULL */
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

/* pipeline_load.c: read job J's query (the first job: and the target, in parallel), plan both
 * sides; encode the first work unit's blocks while the device starts; execute J's work units
 * (target blocks outermost, query blocks inside: spec §2.7).  0, or -1 with R->err. */
int hz_pl_job_load(run_t *R, qjob_t *J, int first);
int hz_pl_encode_ahead(run_t *R, qjob_t *J);
int hz_pl_job_execute(run_t *R, qjob_t *J);

/* pipeline_work.c: the query block J->qp holds (block q) against target block r (tb): its
 * chunks on the worker threads, its intervals' segments files and lastz commands in order.
 * 0, or -1 with R->err. */
int hz_pl_pair_run(run_t *R, qjob_t *J, size_t r, const hz_tblock *tb, size_t q);

#endif
