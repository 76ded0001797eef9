/* report_geom — the dot plot's geometry, shared by the PNG (report_draw.c, cairo) and the
 * HTML page's SVG (report_html.c), so both show the same grid, labels and ticks.
 *
 * Plot-area coordinates in CSS pixels: x from the left edge (target position 0), y from the
 * top edge, with query position 0 at the bottom (y = ph).  Canvas positions are those of
 * report_bin.h.
 */
#ifndef HZ_REPORT_GEOM_H
#define HZ_REPORT_GEOM_H
#include <stddef.h>
#include "report_data.h"

/* px, mid: distance from the axis origin along the axis (target: from the left edge; query:
 * from the bottom edge, so the plot's y is ph - px); span: the record's extent in pixels. */
typedef struct { double px; size_t rec; } hz_rline;      /* boundary before record rec */
typedef struct { double mid, span; size_t rec; } hz_rlabel;
typedef struct { double px; char text[24]; } hz_rtick;

typedef struct {
    hz_rline *line[2]; size_t nline[2];      /* [0] target (vertical lines), [1] query (horizontal) */
    hz_rlabel *label[2]; size_t nlabel[2];
    hz_rtick tick[2][24]; size_t ntick[2];
} hz_rgeom;

/* A record's start gets a grid line when it lies at least HZ_RGEOM_LINE_PX from the line
 * before it (or the plot's edge) and 1 px from the far edge, so records narrower than that (and
 * empty ones) share a line and thousands of scaffolds do not turn the plot grey; a record gets
 * a name label when it spans at least HZ_RGEOM_LABEL_PX.  Returns 0, or -1 (out of memory). */
#define HZ_RGEOM_LINE_PX 3.0
#define HZ_RGEOM_LABEL_PX 11.0
/* Margins around the plot area in the figure (PNG and SVG alike), pixels: record names left
 * and below, ticks above and right, title and legend on top. */
#define HZ_RFIG_ML 170
#define HZ_RFIG_MR 80
#define HZ_RFIG_MT 64
#define HZ_RFIG_MB 150
int hz_rgeom_make(const hz_rdata *r, hz_rgeom *g);
void hz_rgeom_free(hz_rgeom *g);

/* Canvas position -> plot pixel: x along the target, y along the query (0 at the bottom). */
double hz_rgeom_x(const hz_rdata *r, double pos);
double hz_rgeom_y(const hz_rdata *r, double pos);

/* bases as text: "950 bp", "12.5 kb", "3 Mb", "1.25 Gb" (at most 3 significant digits). */
void hz_rgeom_bp(double bases, char *buf, size_t n);

#endif
