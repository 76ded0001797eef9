/* options — the resolved settings of one `hspz run`, their defaults and the table of the
 * parameters a --config file or a flag may set (options.c).
 *
 * Defaults are KegAlign 0.3.x's (spec §1, delta §9).  Flags are parsed in main.c, the
 * --config file and the sources of the values resolved in config.c (run layer).
 */
#ifndef HZ_OPTIONS_H
#define HZ_OPTIONS_H
#include <stddef.h>
#include <stdint.h>

/* -D / --diagonal-partition without a value or 'auto': the chunk size KegAlign's Galaxy
 * runner estimates from the segments files (package.c auto_chunk, diagpart.h) */
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
    char *traceback;                /* --traceback SIZE: --gapped's lastz --allocate:traceback, NULL = 80M */
    uint64_t max_hits;              /* 0 = one batch per chunk */
    int threads;                    /* 0 = all cores */
    int gpus;                       /* CUDA devices to use, 0 = all visible */
    int quiet, print_commands, force;
    const char *data_folder;        /* "work/" */
    const char *device;             /* auto | cpu | cuda */
    int progress;                   /* -1 auto (stderr is a terminal), 0, 1 */
    /* output packaging (package.h: package.c, package_tar.c) */
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
    const struct hz_config *cfg;    /* the resolved configuration with sources (below), or NULL */
} hz_opts;

/* Every field of o to KegAlign 0.3.x's default (spec §1, delta §9); pointers NULL. */
void hz_opts_default(hz_opts *o);

/* The files a run of o reads, for the output rules (publish.h, outpath.h): target, query,
 * scoring, --config, --index, --query-list and every query of the list; index i <
 * hz_opts_input_count(o), NULL where not given. */
size_t hz_opts_input_count(const hz_opts *o);
const char *hz_opts_input(const hz_opts *o, size_t i);

/* ---- the parameters: the settings of hz_opts a --config file or a flag may set ------------- */
typedef enum { HZ_SRC_DEFAULT = 0, HZ_SRC_FILE, HZ_SRC_FLAG, HZ_SRC_INDEX } hz_src;

#define HZ_CFG_MAX 40   /* upper bound on the number of parameters */

typedef enum { HZ_P_U64, HZ_P_U32, HZ_P_I32, HZ_P_INT, HZ_P_BOOL, HZ_P_STR, HZ_P_NSTR, HZ_P_ENUM,
               HZ_P_PROGRESS } hz_ptype;

/* One configurable parameter of `hspz run`. */
typedef struct {
    const char *section, *key;   /* YAML section and key */
    const char *flag;            /* the command-line flag */
    hz_ptype type;
    size_t off;                  /* offset in hz_opts */
    long long lo, hi;            /* integer range */
    const char *const *values;   /* enum values (NULL-terminated), or NULL */
    const char *help;            /* one line */
} hz_param;

/* The parameters in the order hspz config and the manifest list them (PARAMS in options.c). */
int hz_param_count(void);
const hz_param *hz_param_at(int i);         /* NULL outside 0..hz_param_count()-1 */
int hz_param_find(const char *key);         /* index, or -1 */
const char *hz_src_name(hz_src s);          /* "default" | "file" | "flag" | "index" */
/* Parameter i's field of o (hz_param_at(i)->off bytes into it). */
void *hz_opts_field(const hz_opts *o, int i);

/* The value of parameter i as text ("null" for an unset nullable string; strings unquoted;
 * diagonal_partition's HZ_DIAG_AUTO as "auto"). */
void hz_cfg_value_text(const hz_opts *o, int i, char *buf, size_t n);
/* 1 when parameter i is a string (or null), 2 bool, 3 integer, 0 otherwise (enum, "auto"). */
int hz_cfg_value_kind(const hz_opts *o, int i);
long long hz_cfg_value_int(const hz_opts *o, int i);

/* The resolved configuration with the source of every value (filled by config.c's
 * hz_cfg_resolve; read by the manifest and the output rules). */
struct hz_config {
    hz_opts o;                          /* resolved values */
    unsigned char src[HZ_CFG_MAX];      /* hz_src of each parameter */
    const char *config_path;            /* --config FILE or NULL */
    char sha256[65];                    /* sha256 hex of the file's bytes as read, "" when none */
    char *str[HZ_CFG_MAX];              /* strings from the file this config owns (hz_cfg_free) */
};
typedef struct hz_config hz_config;

#endif
