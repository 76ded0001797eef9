/* report_html — the report page (see report_html.h). */
#include "outsafe.h"
#include "report_html.h"
#include "report_draw.h"
#include <errno.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { ML = HZ_RFIG_ML, MR = HZ_RFIG_MR, MT = HZ_RFIG_MT, MB = HZ_RFIG_MB };

static const char CSS[] =
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px auto;max-width:1200px;"
    "padding:0 16px;color:#222;background:#fff}"
    "h1{font-size:1.5em;margin:0 0 4px}h2{font-size:1.15em;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}"
    "table{border-collapse:collapse;font-size:0.85em;margin:4px 0}"
    "th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}"
    "th{background:#f4f4f4}tr.set td{font-weight:600}"
    "code{font-size:0.85em;word-break:break-all}.meta{color:#555;font-size:0.9em}"
    ".cols{display:flex;flex-wrap:wrap;gap:24px}.cols>div{flex:1 1 480px}"
    "svg text{font-family:system-ui,sans-serif}figure{margin:0}figcaption{font-size:0.85em;color:#555;margin-top:4px}"
    ".sha{font-family:monospace;font-size:0.9em}";

/* ---- text helpers --------------------------------------------------------------------- */
static void esc(FILE *fp, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs("&quot;", fp); break;
        case '\'': fputs("&#39;", fp); break;
        default:
            if ((unsigned char)*s < 0x20) fprintf(fp, "&#%d;", *s == '\t' || *s == '\n' ? *s : 0xfffd);
            else fputc(*s, fp);
        }
    }
}

static const char *commas(uint64_t v, char *buf)   /* buf >= 32 */
{
    char t[32];
    int n = snprintf(t, sizeof t, "%llu", (unsigned long long)v), o = 0;
    for (int i = 0; i < n; i++) { if (i && (n - i) % 3 == 0) buf[o++] = ','; buf[o++] = t[i]; }
    buf[o] = 0;
    return buf;
}

static json_t *jget(json_t *o, const char *path)   /* "a.b.c" */
{
    char k[64];
    while (o && *path) {
        const char *d = strchr(path, '.');
        size_t n = d ? (size_t)(d - path) : strlen(path);
        snprintf(k, sizeof k, "%.*s", (int)n, path);
        o = json_object_get(o, k);
        path += n + (d != NULL);
    }
    return o;
}

static uint64_t jnum(json_t *o, const char *path) { json_t *v = jget(o, path); return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0; }
static const char *jstr(json_t *o, const char *path) { const char *s = json_string_value(jget(o, path)); return s ? s : ""; }

static void jval(FILE *fp, json_t *v)   /* a JSON scalar as text */
{
    char b[64];
    if (json_is_string(v)) esc(fp, json_string_value(v));
    else if (json_is_integer(v)) {
        json_int_t x = json_integer_value(v);
        if (x < 0) fputc('-', fp);
        fputs(commas(x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x, b), fp);
    }
    else if (json_is_true(v)) fputs("true", fp);
    else if (json_is_false(v)) fputs("false", fp);
    else if (json_is_real(v)) fprintf(fp, "%.3f", json_real_value(v));
    else fputs("null", fp);
}

static const char *base(const char *p) { const char *s = strrchr(p, '/'); return s ? s + 1 : p; }

/* ---- sections ------------------------------------------------------------------------- */
static void header(FILE *fp, const hz_rdata *r)
{
    json_t *m = r->manifest, *in;
    const char *tp = "", *qp = "";
    size_t i;
    json_array_foreach(json_object_get(m, "inputs"), i, in) {
        const char *role = json_string_value(json_object_get(in, "role")), *p = json_string_value(json_object_get(in, "path"));
        if (role && p && !strcmp(role, "target")) tp = p;
        if (role && p && !strcmp(role, "query")) qp = p;
    }
    fputs("<h1>hspz report: ", fp); esc(fp, base(tp)); fputs(" &times; ", fp); esc(fp, base(qp)); fputs("</h1>\n<p class=\"meta\">", fp);
    fputs("output folder <code>", fp); esc(fp, jstr(m, "run.output_directory")); fputs("</code> &middot; ", fp);
    fputs("run ", fp); esc(fp, jstr(m, "run.status")); fputs(" &middot; hspz ", fp); esc(fp, jstr(m, "tool.version"));
    fputs(" (", fp); esc(fp, jstr(m, "tool.git_commit")); fputs(") &middot; backend ", fp); esc(fp, jstr(m, "hardware.backend"));
    fputs(" &middot; ", fp); esc(fp, jstr(m, "run.start_time")); fputs(" to ", fp); esc(fp, jstr(m, "run.end_time"));
    json_t *kind = jget(m, "unit.kind");
    if (json_is_string(kind)) { fputs(" &middot; scale-out: ", fp); esc(fp, json_string_value(kind)); }
    fputs("</p>\n<p class=\"meta\">command: <code>hspz", fp);
    json_t *a;
    json_array_foreach(jget(m, "run.command_line"), i, a) { fputc(' ', fp); esc(fp, json_string_value(a)); }
    fputs("</code></p>\n", fp);
}

static void grid_svg(FILE *fp, const hz_rdata *r, const hz_rgeom *g)
{
    fputs("<g class=\"grid\" stroke=\"#d4d4d4\" stroke-width=\"1\">\n", fp);
    for (size_t i = 0; i < g->nline[0]; i++) {
        double x = ML + floor(g->line[0][i].px) + 0.5;
        fprintf(fp, "<line class=\"grid-t\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%u\"/>\n", x, MT, x, MT + r->ph);
    }
    for (size_t i = 0; i < g->nline[1]; i++) {
        double y = MT + floor(r->ph - g->line[1][i].px) + 0.5;
        fprintf(fp, "<line class=\"grid-q\" x1=\"%d\" y1=\"%.1f\" x2=\"%u\" y2=\"%.1f\"/>\n", ML, y, ML + r->pw, y);
    }
    fputs("</g>\n", fp);
}

static void labels_svg(FILE *fp, const hz_rdata *r, const hz_rgeom *g)
{
    char b[32];
    fputs("<g class=\"names\" font-size=\"10\" fill=\"#333\">\n", fp);
    for (int side = 0; side < 2; side++) {
        const hz_raxis *a = side ? &r->q : &r->t;
        for (size_t i = 0; i < g->nlabel[side]; i++) {
            size_t k = g->label[side][i].rec;
            const char *nm = a->name[k];
            size_t nl = strlen(nm);
            if (side) fprintf(fp, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\">", ML - 6, MT + r->ph - g->label[side][i].mid);
            else fprintf(fp, "<text transform=\"translate(%.1f %u) rotate(-90)\" text-anchor=\"end\" dominant-baseline=\"middle\">",
                         ML + g->label[side][i].mid, MT + r->ph + 6);
            fputs("<title>", fp); esc(fp, nm); fprintf(fp, ": %s bp</title>", commas(a->len[k], b));
            if (nl <= 24) esc(fp, nm);
            else { char s[24]; snprintf(s, sizeof s, "%.21s", nm); esc(fp, s); fputs("...", fp); }
            fputs("</text>\n", fp);
        }
    }
    fputs("</g>\n<g class=\"ticks\" font-size=\"9\" fill=\"#555\" stroke=\"#555\">\n", fp);
    for (size_t i = 0; i < g->ntick[0]; i++) {
        double x = ML + g->tick[0][i].px;
        fprintf(fp, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/><text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" stroke=\"none\">%s</text>\n",
                x, MT, x, MT - 4, x, MT - 7, g->tick[0][i].text);
    }
    for (size_t i = 0; i < g->ntick[1]; i++) {
        double y = MT + r->ph - g->tick[1][i].px;
        fprintf(fp, "<line x1=\"%u\" y1=\"%.1f\" x2=\"%u\" y2=\"%.1f\"/><text x=\"%u\" y=\"%.1f\" dominant-baseline=\"middle\" stroke=\"none\">%s</text>\n",
                ML + r->pw, y, ML + r->pw + 4, y, ML + r->pw + 7, y, g->tick[1][i].text);
    }
    fputs("</g>\n", fp);
}

static int dotplot(FILE *fp, const hz_rdata *r, const hz_rgeom *g, const unsigned char *png, size_t npng, int scale,
                   const char *png_name)
{
    unsigned W = ML + r->pw + MR, H = MT + r->ph + MB;
    char b1[32], b2[32], b3[32];
    fputs("<h2>Dot plot</h2>\n<figure>\n", fp);
    fprintf(fp, "<svg class=\"dotplot\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" role=\"img\" aria-label=\"dot plot of the HSPs\" "
            "data-target-records=\"%zu\" data-query-records=\"%zu\" data-target-lines=\"%zu\" data-query-lines=\"%zu\" "
            "data-hsps=\"%llu\" data-mode=\"%s\" data-plot=\"%d %d %u %u\">\n",
            W, H, W, H, r->t.n, r->q.n, g->nline[0], g->nline[1], (unsigned long long)r->nlines,
            r->vector ? "lines" : "density", ML, MT, r->pw, r->ph);
    fprintf(fp, "<rect x=\"%d\" y=\"%d\" width=\"%u\" height=\"%u\" fill=\"#ffffff\"/>\n", ML, MT, r->pw, r->ph);
    grid_svg(fp, r, g);
    /* the HSP layer: the PNG bytes of report_draw.c, base64 in a data: URI */
    size_t n64 = 4 * ((npng + 2) / 3) + 1;
    unsigned char *b64 = malloc(n64);
    if (!b64) return -1;
    EVP_EncodeBlock(b64, png, (int)npng);
    fprintf(fp, "<image class=\"hsps\" x=\"%d\" y=\"%d\" width=\"%u\" height=\"%u\" preserveAspectRatio=\"none\"%s href=\"data:image/png;base64,",
            ML, MT, r->pw, r->ph, scale == 1 ? " style=\"image-rendering:pixelated\"" : "");
    fputs((const char *)b64, fp);
    fputs("\"/>\n", fp);
    free(b64);
    fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%u\" height=\"%u\" fill=\"none\" stroke=\"#404040\"/>\n", ML - 0.5, MT - 0.5, r->pw + 1, r->ph + 1);
    labels_svg(fp, r, g);
    fprintf(fp, "<g font-size=\"11\" fill=\"#333\"><rect x=\"%u\" y=\"12\" width=\"14\" height=\"10\" fill=\"#%06x\"/><text x=\"%u\" y=\"21\">plus strand</text>"
            "<rect x=\"%u\" y=\"12\" width=\"14\" height=\"10\" fill=\"#%06x\"/><text x=\"%u\" y=\"21\">minus strand</text></g>\n",
            W - 230, HZ_RDRAW_PLUS_RGB, W - 212, W - 120, HZ_RDRAW_MINUS_RGB, W - 102);
    fprintf(fp, "<text x=\"12\" y=\"22\" font-size=\"13\" fill=\"#333\">target on x (%zu records), query on y (%zu records)</text>\n", r->t.n, r->q.n);
    fputs("</svg>\n<figcaption>", fp);
    fprintf(fp, "%s HSPs (plus %s, minus %s), %s aligned bases, from %llu segments files. ", commas(r->nlines, b1),
            commas(r->grid.hsps[0], b2), commas(r->grid.hsps[1], b3), commas(r->aligned, (char[32]){0}), (unsigned long long)r->nfiles);
    if (r->vector) fputs("Each HSP is a line; ", fp);
    else fprintf(fp, "Density raster of %u &times; %u bins (one bin per pixel, %s &times; %s bases each) colored where HSPs align; ",
                 r->pw, r->ph, commas((r->grid.X + r->pw - 1) / r->pw, b1), commas((r->grid.Y + r->ph - 1) / r->ph, b2));
    if (r->smin <= r->smax) fprintf(fp, "opacity grows with the score (log scale, %lld to %lld%s). ", (long long)r->smin, (long long)r->smax, r->vector ? "" : ", a bin shows its best HSP");
    fprintf(fp, "Grid lines mark record starts (%zu target, %zu query; records under %.0f px share a line); names of records of at least %.0f px. ",
            g->nline[0], g->nline[1], HZ_RGEOM_LINE_PX, HZ_RGEOM_LABEL_PX);
    if (r->t_dups || r->q_dups)
        fprintf(fp, "<b>%zu target and %zu query records share a name with an earlier record: segment lines cannot tell them apart, "
                "so their HSPs are drawn on the first record of that name that is long enough.</b> ", r->t_dups, r->q_dups);
    if (png_name) { fputs("The same plot as a picture: <a href=\"", fp); esc(fp, png_name); fputs("\">", fp); esc(fp, png_name); fputs("</a>.", fp); }
    fputs("</figcaption>\n</figure>\n", fp);
    return 0;
}

/* horizontal bars: values v[0..n) with labels, log10 scale when logscale */
static void bars(FILE *fp, const char *cls, const char *const *lab, const double *v, size_t n, int logscale, const char *unit)
{
    double mx = 0;
    for (size_t i = 0; i < n; i++) if (v[i] > mx) mx = v[i];
    unsigned W = 540, rowh = 22, H = (unsigned)(n * rowh + 8);
    fprintf(fp, "<svg class=\"%s\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" role=\"img\" font-size=\"12\">\n", cls, W, H, W, H);
    for (size_t i = 0; i < n; i++) {
        double f = mx <= 0 ? 0 : logscale ? log10(v[i] + 1) / log10(mx + 1) : v[i] / mx;
        double bw = 280 * f;
        unsigned y = (unsigned)(4 + i * rowh);
        char b[32];
        fprintf(fp, "<text x=\"150\" y=\"%u\" text-anchor=\"end\" dominant-baseline=\"middle\">%s</text>", y + 8, lab[i]);
        fprintf(fp, "<rect data-value=\"%.6g\" x=\"158\" y=\"%u\" width=\"%.1f\" height=\"16\" fill=\"#4a7fc1\"/>", v[i], y, bw > 0 || v[i] <= 0 ? bw : 1.0);
        if (unit) fprintf(fp, "<text x=\"%.1f\" y=\"%u\" dominant-baseline=\"middle\">%.3f %s</text>\n", 164 + bw, y + 8, v[i], unit);
        else fprintf(fp, "<text x=\"%.1f\" y=\"%u\" dominant-baseline=\"middle\">%s</text>\n", 164 + bw, y + 8, commas((uint64_t)v[i], b));
    }
    fputs("</svg>\n", fp);
}

static void funnel_times(FILE *fp, const hz_rdata *r)
{
    static const char *const FK[] = { "seeds", "anchors", "gate_survivors", "hsps_accepted", "hsps_after_dedup", "segments_written" };
    static const char *const FL[] = { "seeds", "anchors", "gate survivors", "accepted", "after dedup", "segments written" };
    static const char *const TK[] = { "load", "plan", "seedtable", "seeds", "anchors", "gate", "extend", "dedup", "output", "wall" };
    double v[10];
    json_t *m = r->manifest;
    fputs("<div class=\"cols\"><div>\n<h2>Funnel</h2>\n", fp);
    for (int i = 0; i < 6; i++) v[i] = (double)jnum(json_object_get(m, "funnel"), FK[i]);
    bars(fp, "funnel", FL, v, 6, 1, NULL);
    fputs("<p class=\"meta\">Log scale. Seeds: seed words looked up; anchors: seed hits; gate survivors: anchors the score gate "
          "passed to the X-drop extension; accepted: HSPs that reached the threshold; after dedup: without exact duplicates "
          "per interval and strand.</p>\n</div><div>\n<h2>Stage times</h2>\n", fp);
    json_t *ts = json_object_get(m, "time_s");
    for (int i = 0; i < 10; i++) v[i] = json_number_value(json_object_get(ts, TK[i]));
    bars(fp, "times", TK, v, 10, 0, "s");
    fprintf(fp, "<p class=\"meta\">Seconds; seeds to dedup are summed over the %lld worker threads.</p>\n</div></div>\n",
            (long long)jnum(m, "run.threads"));
}

static void kv_table(FILE *fp, json_t *obj)
{
    const char *k; json_t *v;
    fputs("<table>", fp);
    json_object_foreach(obj, k, v) { fputs("<tr><th>", fp); esc(fp, k); fputs("</th><td class=\"n\">", fp); jval(fp, v); fputs("</td></tr>", fp); }
    fputs("</table>\n", fp);
}

static int top_cmp(const void *a, const void *b, void *ctx)
{
    const hz_rstat *s = ctx;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    if (s[i].bases != s[j].bases) return s[i].bases > s[j].bases ? -1 : 1;
    return i < j ? -1 : i > j;
}

static int top_table(FILE *fp, const char *what, const hz_raxis *a, const hz_rstat *st)
{
    size_t *ord = malloc((a->n ? a->n : 1) * sizeof *ord), n = 0;
    if (!ord) return -1;
    for (size_t i = 0; i < a->n; i++) if (st[i].hsps) ord[n++] = i;
    qsort_r(ord, n, sizeof *ord, top_cmp, (void *)st);
    char b[6][32];
    fprintf(fp, "<h3>%s</h3>\n<table class=\"top\"><tr><th>record</th><th class=\"n\">length</th><th class=\"n\">HSPs</th>"
            "<th class=\"n\">plus</th><th class=\"n\">minus</th><th class=\"n\">aligned bases</th><th class=\"n\">aligned / length</th>"
            "<th class=\"n\">best score</th></tr>\n", what);
    for (size_t k = 0; k < n && k < HZ_REPORT_TOP; k++) {
        size_t i = ord[k];
        fputs("<tr><td>", fp); esc(fp, a->name[i]);
        fprintf(fp, "</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
                "<td class=\"n\">%.3f</td><td class=\"n\">%lld</td></tr>\n", commas(a->len[i], b[0]), commas(st[i].hsps, b[1]),
                commas(st[i].plus, b[2]), commas(st[i].minus, b[3]), commas(st[i].bases, b[4]),
                a->len[i] ? (double)st[i].bases / (double)a->len[i] : 0.0, (long long)st[i].maxscore);
    }
    fprintf(fp, "</table>\n<p class=\"meta\">%zu of %zu records have HSPs%s.</p>\n", n, a->n, n > HZ_REPORT_TOP ? "; the top 20 by aligned bases" : "");
    free(ord);
    return 0;
}

static void inputs_settings(FILE *fp, const hz_rdata *r)
{
    json_t *m = r->manifest, *in;
    size_t i;
    fputs("<h2>Inputs</h2>\n<table><tr><th>role</th><th>path</th><th>format</th><th class=\"n\">records</th><th class=\"n\">bases</th>"
          "<th class=\"n\">bytes</th><th>sha256</th></tr>\n", fp);
    json_array_foreach(json_object_get(m, "inputs"), i, in) {
        static const char *const K[] = { "role", "path", "format", "records", "bases", "bytes", "sha256" };
        fputs("<tr>", fp);
        for (int k = 0; k < 7; k++) {
            fputs(k >= 3 && k <= 5 ? "<td class=\"n\">" : k == 6 ? "<td class=\"sha\">" : "<td>", fp);
            jval(fp, json_object_get(in, K[k]));
            fputs("</td>", fp);
        }
        fputs("</tr>\n", fp);
    }
    fputs("</table>\n<h2>Settings</h2>\n", fp);
    json_t *file = jget(m, "config.file");
    if (json_is_object(file)) { fputs("<p class=\"meta\">configuration file <code>", fp); esc(fp, jstr(file, "path")); fputs("</code> sha256 <span class=\"sha\">", fp); esc(fp, jstr(file, "sha256")); fputs("</span></p>\n", fp); }
    fputs("<table><tr><th>section</th><th>key</th><th>value</th><th>source</th></tr>\n", fp);
    const char *k; json_t *v;
    json_object_foreach(jget(m, "config.values"), k, v) {
        const char *src = jstr(v, "source");
        fprintf(fp, "<tr%s><td>", strcmp(src, "default") ? " class=\"set\"" : "");
        esc(fp, jstr(v, "section")); fputs("</td><td>", fp); esc(fp, k); fputs("</td><td>", fp);
        jval(fp, json_object_get(v, "value")); fputs("</td><td>", fp); esc(fp, src); fputs("</td></tr>\n", fp);
    }
    fputs("</table>\n<p class=\"meta\">Values given in a file or as a flag are in bold.</p>\n", fp);
}

static int page(FILE *fp, const hz_rdata *r, const hz_rgeom *g, const unsigned char *png, size_t npng, int scale, const char *png_name)
{
    json_t *m = r->manifest;
    char b[32];
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<link rel=\"icon\" href=\"data:,\">\n<title>hspz report: ", fp);
    esc(fp, jstr(m, "run.output_directory"));
    fprintf(fp, "</title>\n<style>%s</style>\n</head>\n<body>\n", CSS);
    header(fp, r);
    if (dotplot(fp, r, g, png, npng, scale, png_name)) return -1;
    funnel_times(fp, r);
    fputs("<h2>Plan</h2>\n", fp);
    if (json_is_object(json_object_get(m, "plan"))) kv_table(fp, json_object_get(m, "plan"));
    fputs("<p class=\"meta\">Blocks per side, query intervals (one segments file pair each), work units (target block &times; "
          "interval) and seeding chunk jobs.</p>\n<h2>Top records by aligned bases</h2>\n<div class=\"cols\"><div>\n", fp);
    if (top_table(fp, "target", &r->t, r->tstat)) return -1;
    fputs("</div><div>\n", fp);
    if (top_table(fp, "query", &r->q, r->qstat)) return -1;
    fputs("</div></div>\n", fp);
    inputs_settings(fp, r);
    fprintf(fp, "<h2>Outputs</h2>\n<p>%llu segments files, %s segment lines; canonical digest (sha256 of the sorted lines) "
            "<span class=\"sha\">", (unsigned long long)r->nfiles, commas(r->nlines, b));
    esc(fp, jstr(m, "canonical_digest_sha256"));
    fputs("</span>.</p>\n<p class=\"meta\">Written by <code>hspz report</code> from manifest.json, the .name files and the "
          "segments files; this page loads nothing from anywhere.</p>\n</body>\n</html>\n", fp);
    return 0;
}

int hz_rhtml_write(const hz_rdata *r, const hz_rgeom *g, const unsigned char *layer, size_t nlayer,
                   int scale, const char *png_name, const char *path, char *err, size_t errlen)
{
    char tmp[4200];
    FILE *fp = hz_out_fopen_tmp(path, tmp, sizeof tmp);   /* O_EXCL|O_NOFOLLOW */
    if (!fp) { snprintf(err, errlen, "%s: cannot create: %s", tmp, strerror(errno)); return -1; }
    errno = 0;
    int bad = page(fp, r, g, layer, nlayer, scale, png_name);
    bad |= ferror(fp);
    if (fclose(fp) != 0 || bad) { unlink(tmp); snprintf(err, errlen, "%s: write failed: %s", tmp, errno ? strerror(errno) : "out of memory"); return -1; }
    if (hz_out_place(tmp, path, 1)) { unlink(tmp); snprintf(err, errlen, "%s: cannot put %s in place: %s", path, tmp, strerror(errno)); return -1; }
    return 0;
}
