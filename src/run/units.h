/* units — the work units of a run for scale-out: `hspz plan` writes them with their exact seed
 * hit counts, `hspz run --plan P --unit IDS` runs some of them into a unit folder, and
 * `hspz merge` (merge.c) assembles unit folders into the OUTDIR of one `hspz run`.
 *
 * A unit is target block r x query block q x a run of consecutive query intervals [k0, k1)
 * of q (spec §2.4 blocks, §2.6 intervals).  Every output of a single run belongs to exactly
 * one interval (a segments file is one interval and strand; dedup scopes are chunks inside
 * an interval, spec §5.5), so units partition the output and their union is the single run's
 * bytes.  Unit ids are 1-based, in (r, q, k) order.
 */
#ifndef HZ_UNITS_H
#define HZ_UNITS_H
#include <stddef.h>
#include <stdint.h>
#include "config.h"
#include "plan.h"
#include "seed.h"

typedef struct {
    size_t id;              /* 1-based */
    size_t r, q;            /* target block, query block (0-based) */
    size_t k0, k1;          /* query intervals [k0, k1) of block q, 0-based (tmp<k+1>) */
    uint64_t seed_hits;     /* exact raw seed hits (anchors) of the unit, both strands as set */
} hz_unit;

/* A plan file (plan.json), as written or read. */
typedef struct {
    char *path;             /* as given (read), or NULL */
    char sha256[65];        /* of the file's bytes (read) */
    char *version;          /* hspz version that wrote it */
    char *config;           /* the resolved configuration, `hspz config` YAML (a --config file) */
    char *in_path[2];       /* target, query as given at plan time */
    char in_sha[2][65];
    uint64_t in_bytes[2];
    size_t n_tblock, n_qblock;
    hz_unit *u;
    size_t n;
    uint64_t seed_hits;     /* sum over units */
} hz_unitplan;

/* Units of the run o over the planned sides t and q: every (r, q) block pair whose query
 * block has intervals, with the exact seed hits of each interval (the seeds of every chunk
 * looked up in r's seed table, as the pipeline does); with max_unit_hits > 0 a pair's
 * intervals are cut greedily into runs of at most max_unit_hits hits (an interval above it
 * stays alone).  threads > 1 counts query blocks in parallel.  Returns 0 (*u malloc'd, *n
 * units), or -1 with err (out of memory). */
int hz_units_make(const hz_opts *o, const hz_side *t, const hz_side *q, const hz_shape *sh,
                  uint64_t max_unit_hits, int threads, hz_unit **u, size_t *n, char *err, size_t errlen);

/* `hspz plan`: load c->o's inputs (regular files only), plan, count, and write the plan to
 * path (path.tmp-<pid>, renamed; deterministic bytes: no times).  Returns the exit status
 * (0; 1 input error; one line on stderr). */
int hz_plan_cmd(const hz_config *c, const char *path, uint64_t max_unit_hits);

/* The plan of the planned sides t and q under c->o (inputs' sha256 from the seqsets when
 * known, else read from the regular files) written to path (path.tmp-<pid>, renamed;
 * deterministic bytes).  Used by hspz plan and hspz run --dump-manifest.  Returns 0, or -1
 * with err. */
int hz_plan_write(const hz_config *c, const hz_side *t, const hz_side *q, const char *path,
                  uint64_t max_unit_hits, char *err, size_t errlen);

/* Read and check a plan file (kind, version fields, unit shapes).  Returns 0, or -1 with err
 * naming the file and what is wrong. */
int hz_unitplan_read(const char *path, hz_unitplan *p, char *err, size_t errlen);
void hz_unitplan_free(hz_unitplan *p);

/* Parse "ID[,ID|A-B...]" into sel[0..p->n) (sel[i] = 1 for unit id i + 1).  Returns 0, or -1
 * with err (not a number, an id outside 1..n). */
int hz_unit_ids_parse(const char *spec, const hz_unitplan *p, unsigned char *sel, char *err, size_t errlen);

/* Check that the inputs of o are the plan's: regular files of the same size and sha256.
 * Returns 0, or -1 with err naming the file and the mismatch. */
int hz_unitplan_check_inputs(const hz_unitplan *p, const hz_opts *o, char *err, size_t errlen);

/* Check that p's units are the plan of these sides under o: the same block counts, and every
 * (target block, query block, interval) with intervals (W = seed span) in exactly one unit.
 * Catches a plan edited by hand (a unit removed, settings changed).  Returns 0, or -1 with err. */
int hz_unitplan_check_cover(const hz_unitplan *p, const hz_opts *o, const hz_side *t, const hz_side *q,
                            uint32_t W, char *err, size_t errlen);

/* The units one `hspz run --plan` runs (hz_opts.units): plan + selection flags. */
struct hz_unitsel {
    const hz_unitplan *plan;
    const unsigned char *sel;
};
typedef struct hz_unitsel hz_unitsel;
/* 1 when a selected unit covers target block r (any q) / block pair (r, q) / interval k of it. */
int hz_unitsel_target(const hz_unitsel *s, size_t r);
int hz_unitsel_pair(const hz_unitsel *s, size_t r, size_t q);
int hz_unitsel_interval(const hz_unitsel *s, size_t r, size_t q, size_t k);

#endif
