/* report — `hspz report OUTDIR [-o report.html]` and `hspz run --report`: one self-contained
 * HTML page (report_html.h) and a PNG of the same dot plot (report_draw.h) from an output
 * folder of hspz run, hspz merge or a unit run (report_data.h: manifest.json with
 * inputs[].record_lengths, the .name files, the segments files; spec §6.2 for the lines).
 *
 * Modules: report_bin (canvas coordinates, density raster), report_data (reading), report_geom
 * (grid, labels, ticks), report_draw (cairo), report_html (the page).  Memory: records +
 * raster + at most HZ_REPORT_VECTOR_MAX HSPs; time: one pass over the segments files.
 */
#ifndef HZ_REPORT_H
#define HZ_REPORT_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t hsps, files;
    int vector;                       /* 1: HSPs drawn as lines, 0: density raster */
    uint64_t html_bytes, png_bytes;
    double seconds;
} hz_report_stats;

/* Write the report of output folder dir to html_path and png_path (each written as
 * PATH.tmp-<pid> and renamed; neither is checked for existence here).  HSPs are drawn as
 * lines when there are at most max_lines of them (clamped to HZ_REPORT_VECTOR_MAX; 0: always
 * the density raster).  st may be NULL.
 * Returns 0, or -1 with err (one line naming the file; report_data.h lists the errors); a
 * failed call leaves neither file behind (a PNG it had already placed is removed). */
int hz_report_write(const char *dir, const char *html_path, const char *png_path, size_t max_lines,
                    hz_report_stats *st, char *err, size_t errlen);

/* `hspz run --report` and `hspz merge` of a plan with report: true: dir/report.html and
 * dir/report.png, into the finished, not yet published output folder dir (after its
 * manifest, so the manifest does not list them; docs/manifest.md).  0, or -1 with err. */
int hz_report_dir(const char *dir, char *err, size_t errlen);

/* The `hspz report` command (argv[0] = "report"): OUTDIR [-o FILE] [--force] [--quiet].
 * Returns the exit status: 0; 1 bad folder or contents, an existing output without --force,
 * a write error; 2 usage. */
int hz_report_main(int argc, char **argv);

#endif
