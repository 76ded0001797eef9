/* manifest — the provenance record of one `hspz run` (docs/manifest.md,
 * docs/manifest.schema.json): OUTDIR/manifest.json on success, OUTDIR.failed-manifest.json
 * (next to OUTDIR) on failure.  Written with jansson; files hashed with sha256.h.  What it
 * records comes in as plain data (hz_manifest_info) and from the options module (the
 * parameters, their sources: options.h; the HSPZ_* variables: env.h), never from run/.
 */
#ifndef HZ_MANIFEST_H
#define HZ_MANIFEST_H
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "options.h"
#include "seqio.h"
#include "plan.h"
#include "chunk.h"
#include "sha256.h"   /* hz_sha256_file, for the callers that hash inputs too */
#include "digest.h"

typedef struct {
    const hz_opts *o;
    const hz_seqset *t, *q;      /* loaded when ->path != NULL */
    int have_plan;
    hz_plan_counts plan;
    hz_funnel funnel;            /* totals over all threads */
    double t_load, t_plan, t_table, t_output, t_wall;
    int threads;
    int trace;                   /* HSPZ_TRACE=1: the output hashing and the digest timed on stderr */
    hz_dg_stream *digest_stream; /* the run's canonical digest fed as it wrote outdir, or NULL */
    const char *backend;         /* be->name, or "cpu" */
    int device_seeding, device_table;   /* kernels the backend chose */
    const char *gpu_report;      /* be->report()'s JSON object text (GPU runs), or NULL */
    int exit_status;
    const char *error;           /* NULL on success */
    time_t start_time;
    /* scale-out (units.h): "unit" for hspz run --plan --unit, "merge" for hspz merge, or NULL */
    const char *unit_kind;
    const char *plan_path, *plan_sha256;
    const unsigned char *unit_sel;   /* unit run: selected flags of the plan's n_units units */
    size_t n_units;
    char *const *unit_dirs;          /* merge: the unit folders */
    size_t n_unit_dirs;
    const char *index_path, *index_sha256;   /* --index: the index file and its header's sha256, or NULL */
    uint64_t diag_auto_n;        /* -D automatic: the N hz_package chose (0: nothing split) */
    int gapped_done;             /* --gapped: the gapped stage ran (docs/manifest.md "gapped") */
    size_t gapped_commands;      /* its lastz-commands.txt lines */
    int gapped_threads;
    char *const *gapped_files;   /* the --output and 2> files of its commands, in line order */
    size_t n_gapped_files;
    double t_gapped;             /* its wall time, seconds */
} hz_manifest_info;

/* Write the manifest to path atomically (path.tmp-PID, then rename).  outdir: the folder whose
 * files are listed as outputs and digested (NULL: none, e.g. a failed run; then an existing
 * file at path is never replaced: -1 with errno EEXIST). */
int hz_manifest_write(const hz_manifest_info *mi, const char *path, const char *outdir,
                      char *err, size_t errlen);

/* The failure manifest path of outdir: "<outdir without trailing '/'>.failed-manifest.json"
 * (malloc'd; NULL when outdir is NULL or empty). */
char *hz_failed_manifest_path(const char *outdir);

/* 1 when path is a regular file of this user holding an hspz failure manifest (tool.name
 * "hspz", run.status "failed"): what a later successful run may delete; 0 otherwise. */
int hz_failed_manifest_is_hspz(const char *path);

#endif
