/* report_bin — HSP coordinates on the dot-plot canvas and the density raster of `hspz report`.
 *
 * A segment line (spec §6.2: name1 start1 end1 name2 start2 end2 strand score, 1-based closed
 * coordinates, both ranges len + 1 bases; a minus-strand query range counted along the reverse
 * strand of its record, 1 = the last base of the forward record) is mapped onto one canvas per
 * run: x = the target records laid end to end in input order, y = the query records likewise,
 * both 0-based.  A plus HSP runs up the diagonal from (x0, y0); a minus HSP runs down from
 * (x0, y0): forward query position of reverse position p (1-based) in a record of length L is
 * L - p (0-based).
 *
 * The raster has w x h bins; base x falls in bin floor(x * w / X) (X = canvas width in
 * bases), y likewise.  Every aligned base of an HSP adds 1 to the bin it falls in, so a bin
 * holds aligned bases and the raster's sum equals the run's aligned bases exactly.  Memory is
 * w x h per strand, whatever the number of HSPs.
 */
#ifndef HZ_REPORT_BIN_H
#define HZ_REPORT_BIN_H
#include <stddef.h>
#include <stdint.h>

/* One side of the canvas: records in input order. */
typedef struct {
    size_t n;
    char **name;          /* as the segments files write them (prefix included) */
    uint64_t *len;        /* bases */
    uint64_t *off;        /* first canvas position of record i = sum of len[0..i) */
    uint64_t total;       /* sum of len[] */
} hz_raxis;

/* Fill a->off and a->total from a->len (a->off malloc'd by the caller, n entries). */
void hz_raxis_layout(hz_raxis *a);

/* One parsed segment line: record indices and the coordinates as written. */
typedef struct {
    size_t ti, qi;              /* target and query record */
    uint64_t ts, te, qs, qe;    /* 1-based closed, as in the file */
    int minus;                  /* strand '-' */
    int64_t score;
} hz_rseg;

/* An HSP on the canvas: bases (x0 + k, y0 + dy * k) for k in [0, n). */
typedef struct { uint64_t x0, y0, n; int dy; } hz_rdiag;

/* Map s onto the canvas of target axis t and query axis q.  Returns 0, or -1 with err (no
 * file name: the caller prefixes FILE:LINE) when a range is empty, reversed, outside its
 * record (start 0 or end past the record's length) or the two ranges differ in length. */
int hz_rbin_map(const hz_raxis *t, const hz_raxis *q, const hz_rseg *s, hz_rdiag *d,
                char *err, size_t errlen);

/* Bin of canvas position pos on an axis of len bases cut into nbins bins: floor(pos*nbins/len)
 * (64-bit arithmetic while pos * nbins fits, as for any genome below 2^47 bases). */
static inline uint32_t hz_rbin_of(uint64_t pos, uint64_t len, uint32_t nbins)
{
    if (pos < (UINT64_MAX >> 16) && nbins <= 65536) return (uint32_t)(pos * nbins / len);
    return (uint32_t)((unsigned __int128)pos * nbins / len);
}

/* The density raster: per strand (0 plus, 1 minus) aligned bases and the highest HSP score
 * per bin, row-major, row 0 = query positions from 0 (the bottom of the plot). */
typedef struct {
    uint32_t w, h;
    uint64_t X, Y;              /* canvas size in bases (both > 0) */
    uint64_t *bases[2];
    int32_t *maxscore[2];       /* INT32_MIN = no HSP in the bin */
    uint64_t hsps[2], total_bases[2];
} hz_rgrid;

/* Allocate a w x h raster (w, h >= 1) for a canvas of X x Y bases (>= 1).  0, or -1: out of memory. */
int hz_rgrid_init(hz_rgrid *g, uint32_t w, uint32_t h, uint64_t X, uint64_t Y);
void hz_rgrid_free(hz_rgrid *g);

/* Add the d->n bases of one HSP of the given strand and score (clamped to int32) to g,
 * walking from bin edge to bin edge (cost: bins crossed, not bases).  d must lie inside the
 * canvas (hz_rbin_map guarantees it). */
void hz_rgrid_add(hz_rgrid *g, const hz_rdiag *d, int strand, int64_t score);

#endif
