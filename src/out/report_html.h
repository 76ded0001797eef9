/* report_html — the self-contained HTML page of `hspz report`: no script, no style sheet or
 * font or image fetched from anywhere (the plot's HSP layer is an inline data: PNG inside an
 * inline SVG), so it opens offline and inside Galaxy.
 *
 * Sections: header (tool, run status, command line), dot plot (SVG: record grid lines with
 * data attributes for tests, names, ticks, legend), funnel (bar chart, log scale), stage
 * times (bar chart), plan, top records by aligned bases (target, query), inputs with sha256,
 * settings with their sources (docs/manifest.md "config.values"), outputs (segment files,
 * lines, canonical digest).
 */
#ifndef HZ_REPORT_HTML_H
#define HZ_REPORT_HTML_H
#include <stddef.h>
#include "report_data.h"
#include "report_geom.h"

/* Rows of the top-records tables. */
#define HZ_REPORT_TOP 20

/* Write the page for r to path (path.tmp-<pid>, renamed).  layer/nlayer: the PNG bytes of the
 * HSP layer drawn at `scale` (report_draw.h); png_name: the file name of report.png beside
 * the page (linked relatively), or NULL.  Returns 0, or -1 with err naming path. */
int hz_rhtml_write(const hz_rdata *r, const hz_rgeom *g, const unsigned char *layer, size_t nlayer,
                   int scale, const char *png_name, const char *path, char *err, size_t errlen);

#endif
