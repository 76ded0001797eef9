/* options — the resolved settings of one `hspz run`.
 *
 * Defaults are KegAlign 0.3.x's (spec §1, delta §9).  Parsing lives in cli.c.
 */
#ifndef HZ_OPTIONS_H
#define HZ_OPTIONS_H
#include <stddef.h>
#include <stdint.h>

/* -D / --diagonal-partition without a value or 'auto': the chunk size KegAlign's Galaxy
 * runner estimates from the segments files (package.c, hz_package_auto_chunk) */
#define HZ_DIAG_AUTO UINT64_MAX

typedef struct {
    const char *target, *query, *outdir;
    uint64_t seq_block_size;        /* B, bytes (500,000,000) */
    uint64_t interval_size;         /* I, query positions (10,000,000) */
    uint64_t chunk_size;            /* C, query positions (250,000) */
    const char *seed;               /* "12of19" */
    uint32_t step;                  /* 1 */
    int transition;                 /* 1 unless --notransition */
    const char *strand;             /* plus | minus | both */
    int32_t xdrop, hspthresh;       /* 910, 3000 */
    int entropy;                    /* 1 unless --noentropy */
    const char *ambiguous;          /* NULL */
    const char *scoring;            /* NULL */
    const char *target_prefix, *query_prefix;
    const char *format;             /* "maf-" */
    int32_t ydrop;                  /* 9430 */
    int32_t gappedthresh;           /* -1 = hspthresh */
    int32_t inner;                  /* lastz --inner=N in the commands; 0 = none */
    int notrivial, nogapped;
    int gapped;                     /* --gapped: also the alignments (gapped_run.h) into OUTDIR */
    uint64_t max_hits;              /* 0 = one batch per chunk */
    int threads;                    /* 0 = all cores */
    int gpus;                       /* CUDA devices to use, 0 = all visible */
    int quiet, print_commands, force;
    const char *data_folder;        /* "work/" */
    const char *device;             /* auto | cpu | cuda */
    int progress;                   /* -1 auto (stderr is a terminal), 0, 1 */
    /* output packaging (package.c) */
    const char *tarball;            /* NULL = none, "" = OUTDIR.tar.gz, else the path */
    int segments_archive;           /* -Z: the tarball is hillerlab/hspZ's archive of the bare
                                     * .segments files, written instead of OUTDIR (package.h) */
    uint64_t diagonal_partition;    /* 0 = off, HZ_DIAG_AUTO = KegAlign's estimate (package.c),
                                     * else max segments per lastz job */
    int single_file;                /* also write all.segments */
    int report;                     /* also write report.html and report.png (report.h) */
    /* reports (not settings: never change the output) */
    int time_report;                /* --time: the time line even with --quiet */
    int no_hostname;                /* --no-hostname: manifest run.hostname is null */
    const char *dump_plan;          /* --dump-plan FILE: blocks and records as TSV, or NULL */
    const char *dump_manifest;      /* --dump-manifest FILE: this run's plan (units.h plan.json), or NULL */
    int replay;                     /* --from-manifest: units = every unit of the plan, a complete OUTDIR */
    const struct hz_unitsel *units; /* hspz run --plan --unit: only these work units (units.h), or NULL */
    const struct hz_index *index;   /* --index FILE: the target's prepared blocks (index.h), or NULL */
    const char *index_path;         /* --index FILE as given, or NULL */
    int index_check_target;         /* with --index, -r was given: its sha256 must be the index's */
    char *const *query_list;        /* --query-list FILE: the queries, one job each, or NULL */
    size_t n_query_list;
    const char *query_list_path;
    int argc; char **argv;          /* the command line, for the record */
    const struct hz_config *cfg;    /* the resolved configuration with sources (config.h), or NULL */
} hz_opts;

void hz_opts_default(hz_opts *o);


/* Run the whole HSP stage with o (pipeline.c).  Returns the process exit status:
 * 0 success, 1 input or runtime error (one line on stderr already printed). */
int hz_run(const hz_opts *o);

#endif
