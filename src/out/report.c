/* report — `hspz report` (see report.h). */
#include "report.h"
#include "report_data.h"
#include "report_draw.h"
#include "report_geom.h"
#include "report_html.h"
#include "outpath.h"
#include <errno.h>
#include <getopt.h>
#include "optonce.h"
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t file_size(const char *p) { struct stat st; return stat(p, &st) == 0 ? (uint64_t)st.st_size : 0; }

int hz_report_write(const char *dir, const char *html_path, const char *png_path, size_t max_lines,
                    hz_report_stats *st, char *err, size_t errlen)
{
    double t0 = now();
    hz_rdata r;
    hz_rgeom g = { 0 };
    cairo_surface_t *layer = NULL;
    unsigned char *png = NULL;
    size_t npng = 0;
    int rc = -1, scale = 1, png_placed = 0;
    if (hz_rdata_open(&r, dir, err, errlen)) goto out;
    r.max_lines = max_lines < HZ_REPORT_VECTOR_MAX ? max_lines : HZ_REPORT_VECTOR_MAX;
    r.vector = r.max_lines > 0;
    if (hz_rdata_scan(&r, dir, err, errlen)) goto out;
    if (hz_rgeom_make(&r, &g)) { snprintf(err, errlen, "out of memory for the plot"); goto out; }
    if (!(layer = hz_rdraw_layer(&r, &scale)) || hz_rdraw_png_bytes(layer, &png, &npng)) {
        snprintf(err, errlen, "cannot draw the plot (out of memory)"); goto out;
    }
    char title[1024];
    snprintf(title, sizeof title, "hspz: %llu HSPs, target %zu records (x), query %zu records (y)",
             (unsigned long long)r.nlines, r.t.n, r.q.n);
    if (hz_rdraw_png(&r, &g, layer, scale, title, png_path, err, errlen)) goto out;
    png_placed = 1;
    const char *pn = strrchr(png_path, '/');
    if (hz_rhtml_write(&r, &g, png, npng, scale, pn ? pn + 1 : png_path, html_path, err, errlen)) goto out;
    if (st) {
        st->hsps = r.nlines; st->files = r.nfiles; st->vector = r.vector;
        st->html_bytes = file_size(html_path); st->png_bytes = file_size(png_path);
        st->seconds = now() - t0;
    }
    rc = 0;
out:
    if (rc && png_placed) unlink(png_path);
    free(png);
    if (layer) cairo_surface_destroy(layer);
    hz_rgeom_free(&g);
    hz_rdata_free(&r);
    return rc;
}

int hz_report_dir(const char *dir, char *err, size_t errlen)
{
    char h[4200], p[4200];
    snprintf(h, sizeof h, "%s/report.html", dir);
    snprintf(p, sizeof p, "%s/report.png", dir);
    return hz_report_write(dir, h, p, HZ_REPORT_VECTOR_MAX, NULL, err, errlen);
}

/* The PNG beside the page: FILE.html / FILE.htm -> FILE.png, anything else FILE.png appended. */
static char *png_path_of(const char *html)
{
    size_t n = strlen(html);
    if (n > 5 && !strcmp(html + n - 5, ".html")) n -= 5;
    else if (n > 4 && !strcmp(html + n - 4, ".htm")) n -= 4;
    char *p = malloc(n + 5);
    if (p) { memcpy(p, html, n); memcpy(p + n, ".png", 5); }
    return p;
}

/* 1 when relative path rel, taken from folder base, is the file of st */
static int same_at(const char *base, const char *rel, const struct stat *st)
{
    char p[2 * PATH_MAX + 2];
    struct stat s2;
    if (rel[0] == '/') snprintf(p, sizeof p, "%s", rel);
    else if (snprintf(p, sizeof p, "%s/%s", base, rel) >= (int)sizeof p) return 0;
    return stat(p, &s2) == 0 && s2.st_dev == st->st_dev && s2.st_ino == st->st_ino;
}

/* The folder the run of dir was started in: dir (links resolved) less as many components as
 * run.output_directory has (a relative one without ".."), into buf.  0, or -1 when unknown. */
static int run_cwd(const char *dir, const char *od, char *buf)
{
    if (!od || !od[0] || !realpath(dir, buf)) return -1;
    if (od[0] == '/') return -1;   /* absolute inputs need no folder; relative ones: unknown */
    for (const char *c = od; *c;) {
        const char *e = strchr(c, '/');
        size_t l = e ? (size_t)(e - c) : strlen(c);
        if (l == 2 && c[0] == '.' && c[1] == '.') return -1;
        if (l && !(l == 1 && c[0] == '.')) {
            char *sl = strrchr(buf, '/');
            if (!sl) return -1;
            if (sl == buf) sl[1] = 0; else *sl = 0;
        }
        if (!e) break;
        c = e + 1;
    }
    return 0;
}

/* 1 when st is the file of an input the manifest of dir names (target, query, scoring file,
 * --config file), by identity: relative paths are tried from the folder the run was started in
 * (run_cwd) and from here. */
static int is_input(const char *dir, const struct stat *st)
{
    char mp[4200], cwd[PATH_MAX];
    snprintf(mp, sizeof mp, "%s/manifest.json", dir);
    json_t *m = json_load_file(mp, 0, NULL), *in;
    if (!m) return 0;
    const char *paths[8];
    size_t n = 0, i;
    json_array_foreach(json_object_get(m, "inputs"), i, in)
        if (n < 6 && json_is_string(json_object_get(in, "path"))) paths[n++] = json_string_value(json_object_get(in, "path"));
    json_t *cfg = json_object_get(m, "config");
    json_t *sc = json_object_get(json_object_get(json_object_get(cfg, "values"), "scoring"), "value");
    json_t *cf = json_object_get(json_object_get(cfg, "file"), "path");
    if (json_is_string(sc)) paths[n++] = json_string_value(sc);
    if (json_is_string(cf)) paths[n++] = json_string_value(cf);
    int known = run_cwd(dir, json_string_value(json_object_get(json_object_get(m, "run"), "output_directory")), cwd) == 0;
    int hit = 0;
    for (i = 0; i < n && !hit; i++) hit = same_at(".", paths[i], st) || (known && same_at(cwd, paths[i], st));
    json_decref(m);
    return hit;
}

/* An output may replace an existing regular file only with --force, and never a file the
 * report reads (manifest.json, .name, .segments in dir) nor an input of the run. */
static int output_ok(const char *dir, const char *path, int force, char *err, size_t errlen)
{
    struct stat st;
    char pf[PATH_MAX];
    hz_parent_dir(path, pf, sizeof pf);
    if (stat(pf, &st) != 0 || !S_ISDIR(st.st_mode)) { snprintf(err, errlen, "%.900s: the %s '%.900s' %s", path, stat(pf, &st) ? "folder" : "parent", pf, stat(pf, &st) ? "does not exist" : "is not a folder"); return -1; }
    if (stat(path, &st) == 0 && is_input(dir, &st)) {   /* also through a link */
        snprintf(err, errlen, "%s: is an input of the run; the report does not replace it", path); return -1;
    }
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT) return 0;
        snprintf(err, errlen, "%s: %s", path, strerror(errno)); return -1;
    }
    if (!S_ISREG(st.st_mode)) { snprintf(err, errlen, "%s: exists and is not a regular file (a link, device or FIFO is never replaced)", path); return -1; }
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t bl = strlen(b);
    char pd[PATH_MAX], dd[PATH_MAX], par[PATH_MAX];
    snprintf(par, sizeof par, "%.*s", (int)(b - path), path);
    if (realpath(par[0] ? par : ".", pd) && realpath(dir, dd) && !strcmp(pd, dd) &&
        (!strcmp(b, "manifest.json") || (bl > 5 && !strcmp(b + bl - 5, ".name")) || (bl > 9 && !strcmp(b + bl - 9, ".segments")))) {
        snprintf(err, errlen, "%s: is an output of the run; the report does not replace it", path); return -1;
    }
    if (is_input(dir, &st)) { snprintf(err, errlen, "%s: is an input of the run; the report does not replace it", path); return -1; }
    if (!force) { snprintf(err, errlen, "%s: exists (use --force to replace it)", path); return -1; }
    return 0;
}

static const char *USAGE =
    "Usage: hspz report OUTDIR [-o FILE] [--max-lines N] [--force] [--quiet]\n"
    "  A self-contained HTML page (dot plot, funnel, stage times, plan, top records, inputs,\n"
    "  settings) of the output folder OUTDIR of hspz run or merge, and the dot plot as PNG.\n"
    "  -o, --output FILE   the page [OUTDIR/report.html]; the PNG is FILE with .png for .html\n"
    "      --max-lines N   draw each HSP as a line up to N HSPs, else a density raster\n"
    "                      (0..20000) [20000]; 0 = always the raster\n"
    "      --force         replace existing files\n"
    "      --quiet         nothing on stderr except errors\n";

int hz_report_main(int argc, char **argv)
{
    static const struct option lo[] = {
        {"output", 1, 0, 'o'}, {"max-lines", 1, 0, 'm'}, {"force", 0, 0, 'f'}, {"quiet", 0, 0, 'Q'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}
    };
    const char *out = NULL;
    int force = 0, quiet = 0, c;
    size_t max_lines = HZ_REPORT_VECTOR_MAX;
    opterr = 0; optind = 1;
    static hz_optonce given;
    char oerr[700];
    while ((c = getopt_long(argc, argv, ":o:h", lo, NULL)) != -1) {
        if (hz_optonce_check(&given, c, c == 'o' ? 'o' : 0, optarg, lo, oerr, sizeof oerr)) {
            fprintf(stderr, "hspz: report: %s (see 'hspz report --help')\n", oerr);
            return 2;
        }
        switch (c) {
        case 'o': out = optarg; break;
        case 'm': {
            char *e;
            errno = 0;
            unsigned long long v = strtoull(optarg, &e, 10);
            if (!optarg[0] || *e || optarg[0] == '-' || errno || v > HZ_REPORT_VECTOR_MAX) {
                fprintf(stderr, "hspz: report: --max-lines: '%s' is not an integer 0..%d\n", optarg, HZ_REPORT_VECTOR_MAX);
                return 2;
            }
            max_lines = (size_t)v;
            break;
        }
        case 'f': force = 1; break;
        case 'Q': quiet = 1; break;
        case 'h': fputs(USAGE, stdout); return 0;
        case ':': fprintf(stderr, "hspz: report: option %s needs a value (see 'hspz report --help')\n", argv[optind - 1]); return 2;
        default: fprintf(stderr, "hspz: report: unknown option '%s' (see 'hspz report --help')\n", argv[optind - 1]); return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "hspz: report: %s (hspz report OUTDIR [-o FILE])\n", optind >= argc ? "missing OUTDIR" : "one OUTDIR only");
        return 2;
    }
    if (out && !out[0]) { fprintf(stderr, "hspz: report: -o: empty path\n"); return 2; }
    if (out && !strcmp(out, "-")) { fprintf(stderr, "hspz: report: -o: '-' is not stdout here and is not taken as a file name: name a file\n"); return 2; }
    if (!argv[optind][0]) { fprintf(stderr, "hspz: report: empty OUTDIR path\n"); return 2; }
    const char *dir = argv[optind];
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "hspz: %s: %s\n", dir, stat(dir, &st) != 0 ? strerror(errno) : "not a folder (hspz report OUTDIR)");
        return 1;
    }
    char def[4200], err[2048];
    if (!out) { snprintf(def, sizeof def, "%s/report.html", dir); out = def; }
    char *png = png_path_of(out);
    if (!png) { fprintf(stderr, "hspz: out of memory\n"); return 1; }
    hz_report_stats rs;
    int rc = 1;
    if (output_ok(dir, out, force, err, sizeof err) || output_ok(dir, png, force, err, sizeof err) ||
        hz_report_write(dir, out, png, max_lines, &rs, err, sizeof err)) {
        fprintf(stderr, "hspz: %s\n", err);
        goto done;
    }
    if (!quiet)
        fprintf(stderr, "hspz: report: %llu HSPs from %llu segments files (%s); wrote %s (%llu bytes) and %s (%llu bytes) in %.2f s\n",
                (unsigned long long)rs.hsps, (unsigned long long)rs.files, rs.vector ? "drawn as lines" : "density raster",
                out, (unsigned long long)rs.html_bytes, png, (unsigned long long)rs.png_bytes, rs.seconds);
    rc = 0;
done:
    free(png);
    return rc;
}
