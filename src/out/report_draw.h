/* report_draw — the dot plot drawn with cairo: the HSP layer (embedded in the HTML page's SVG)
 * and the whole figure as report.png.
 *
 * Colours: plus-strand HSPs blue, minus-strand red; intensity (opacity) grows with the HSP
 * score on a log scale from the run's lowest to its highest score (a density-raster bin takes
 * its highest score).  Up to HZ_REPORT_VECTOR_MAX HSPs each is a line (round caps, so the
 * shortest still shows as a dot); above that each raster bin is one pixel.
 */
#ifndef HZ_REPORT_DRAW_H
#define HZ_REPORT_DRAW_H
#include <cairo.h>
#include <stddef.h>
#include "report_data.h"
#include "report_geom.h"

#define HZ_RDRAW_PLUS_RGB 0x1f5fbf
#define HZ_RDRAW_MINUS_RGB 0xd6401f

/* The HSP layer, transparent where there is none: pw*scale x ph*scale pixels (scale 2 for
 * lines, 1 for the raster, whose pixels are its bins).  *scale gets the scale used.  NULL
 * when cairo cannot allocate it. */
cairo_surface_t *hz_rdraw_layer(const hz_rdata *r, int *scale);

/* The whole figure (title, frame, record grid and names, ticks, layer, legend) as a PNG file
 * at path, written as path.tmp-<pid> and renamed.  Returns 0, or -1 with err naming path. */
int hz_rdraw_png(const hz_rdata *r, const hz_rgeom *g, cairo_surface_t *layer, int scale,
                 const char *title, const char *path, char *err, size_t errlen);

/* PNG bytes of a surface (malloc'd into *buf, *n bytes).  0, or -1 (out of memory, cairo error). */
int hz_rdraw_png_bytes(cairo_surface_t *s, unsigned char **buf, size_t *n);

/* Opacity of a score in the run's range, log scale: 0.35 .. 1 for lines, 0.08 .. 1 (steeper,
 * f^1.5) for the raster. */
double hz_rdraw_alpha(const hz_rdata *r, int64_t score);

#endif
