/* report_data — what `hspz report` reads from an OUTDIR of hspz run / merge / a unit run.
 *
 * manifest.json (docs/manifest.md: inputs with record_lengths, config with sources, plan,
 * funnel, time_s), the record names of ref_block<N>.name / query_block<N>.name (N from 0; their
 * concatenation is the input order, spec §2.4) and every *.segments file except all.segments
 * (the --single-file copy of the same lines; --diagonal-partition's split files replace the
 * files they split, so each segment is read once, as for the canonical digest).  Segment lines
 * follow spec §6.2.  Memory: the records, the raster and at most HZ_REPORT_VECTOR_MAX HSPs,
 * never all HSPs.
 */
#ifndef HZ_REPORT_DATA_H
#define HZ_REPORT_DATA_H
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include "report_bin.h"

/* Up to this many HSPs the plot draws each one as a line; above it, the density raster
 * (the default of hspz report --max-lines, and its upper bound). */
#define HZ_REPORT_VECTOR_MAX 20000
/* Longer side of the plot area, CSS pixels (= raster bins along that side). */
#define HZ_REPORT_PLOT_PX 900
#define HZ_REPORT_PLOT_MIN_PX 240

/* Per-record totals (one per target and per query record). */
typedef struct {
    uint64_t hsps, plus, minus, bases;   /* bases: aligned bases, len + 1 per HSP (spec §6.2) */
    int64_t maxscore;
} hz_rstat;

typedef struct {
    json_t *manifest;                /* owned */
    hz_raxis t, q;
    hz_rstat *tstat, *qstat;
    size_t t_dups, q_dups;           /* records whose name an earlier record of the side has */
    uint32_t pw, ph;                 /* plot area, CSS pixels (hz_rdata_open) */
    hz_rgrid grid;                   /* pw x ph bins */
    size_t max_lines;                /* lines up to this many HSPs (<= HZ_REPORT_VECTOR_MAX; 0: raster) */
    int vector;                      /* 1: vec[] holds every HSP */
    hz_rdiag *vec; int64_t *vscore; unsigned char *vstrand; size_t nvec;
    uint64_t nfiles, nlines, aligned;
    int64_t smin, smax;              /* score range over all HSPs (smin > smax: none) */
    /* name lookup (report_data.c): hash, duplicate chains, the last name looked up per side */
    size_t *hash[2]; size_t hcap[2]; size_t *next_same[2]; uint64_t *hval[2];
    size_t last_idx[2];
} hz_rdata;

/* Read dir's manifest and .name files, lay the records out and allocate the raster.  Errors
 * (-1, err names the file): no or unreadable manifest, a manifest without
 * inputs[].record_lengths, .name files whose record count differs from the manifest's. */
int hz_rdata_open(hz_rdata *r, const char *dir, char *err, size_t errlen);

/* Read every segments file of dir into the raster, the per-record totals and (while there
 * are at most r->max_lines) the HSP list.  Errors: an unreadable file, a line that is
 * not 8 TAB-separated fields, an unknown record name, coordinates outside the record
 * (err = "FILE:LINE: what"). */
int hz_rdata_scan(hz_rdata *r, const char *dir, char *err, size_t errlen);

void hz_rdata_free(hz_rdata *r);

#endif
