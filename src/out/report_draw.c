/* report_draw — cairo rendering of the dot plot (see report_draw.h). */
#include "outsafe.h"
#include "report_draw.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* figure margins of report.png, pixels */
enum { ML = HZ_RFIG_ML, MR = HZ_RFIG_MR, MT = HZ_RFIG_MT, MB = HZ_RFIG_MB };

double hz_rdraw_alpha(const hz_rdata *r, int64_t score)
{
    if (r->smax <= r->smin || score >= r->smax) return 1.0;
    double lo = log((double)(r->smin > 0 ? r->smin : 1)), hi = log((double)(r->smax > 0 ? r->smax : 1));
    double v = log((double)(score > 0 ? score : 1));
    double f = hi > lo ? (v - lo) / (hi - lo) : 1.0;
    if (f < 0) f = 0;
    /* lines: every HSP stays visible; raster: a bin of weak (repeat) hits fades, so the long,
     * high-scoring syntenic runs stand out when millions of HSPs share the plot */
    return r->vector ? 0.35 + 0.65 * f : 0.08 + 0.92 * f * sqrt(f);
}

static void rgb(cairo_t *cr, unsigned c, double a)
{
    cairo_set_source_rgba(cr, ((c >> 16) & 255) / 255.0, ((c >> 8) & 255) / 255.0, (c & 255) / 255.0, a);
}

static int by_score(const void *a, const void *b, void *ctx)
{
    const int64_t *s = ctx;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    return s[i] < s[j] ? -1 : s[i] > s[j] ? 1 : i < j ? -1 : i > j;
}

/* each HSP a line, weakest first so the strongest end on top */
static void draw_lines(cairo_t *cr, const hz_rdata *r)
{
    size_t *ord = malloc((r->nvec ? r->nvec : 1) * sizeof *ord);
    if (!ord) return;
    for (size_t i = 0; i < r->nvec; i++) ord[i] = i;
    qsort_r(ord, r->nvec, sizeof *ord, by_score, r->vscore);
    cairo_set_line_width(cr, 2.0);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    for (size_t k = 0; k < r->nvec; k++) {
        size_t i = ord[k];
        const hz_rdiag *d = &r->vec[i];
        /* base x occupies [x, x+1): the line runs corner to corner of its bases */
        double x0 = (double)d->x0, x1 = x0 + (double)d->n;
        double y0 = d->dy > 0 ? (double)d->y0 : (double)d->y0 + 1, y1 = d->dy > 0 ? y0 + (double)d->n : y0 - (double)d->n;
        rgb(cr, r->vstrand[i] ? HZ_RDRAW_MINUS_RGB : HZ_RDRAW_PLUS_RGB, hz_rdraw_alpha(r, r->vscore[i]));
        cairo_move_to(cr, hz_rgeom_x(r, x0), hz_rgeom_y(r, y0));
        cairo_line_to(cr, hz_rgeom_x(r, x1), hz_rgeom_y(r, y1));
        cairo_stroke(cr);
    }
    free(ord);
}

/* each raster bin one pixel: minus over plus, premultiplied ARGB */
static void draw_raster(cairo_surface_t *s, const hz_rdata *r)
{
    const hz_rgrid *g = &r->grid;
    cairo_surface_flush(s);
    unsigned char *px = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    const unsigned C[2] = { HZ_RDRAW_PLUS_RGB, HZ_RDRAW_MINUS_RGB };
    for (uint32_t y = 0; y < g->h; y++) {
        uint32_t *row = (uint32_t *)(px + (size_t)(g->h - 1 - y) * (size_t)stride);
        for (uint32_t x = 0; x < g->w; x++) {
            size_t i = (size_t)y * g->w + x;
            double t[2];
            for (int k = 0; k < 2; k++) t[k] = g->bases[k][i] ? hz_rdraw_alpha(r, g->maxscore[k][i]) : 0;
            if (t[0] == 0 && t[1] == 0) continue;
            double A = t[1] + t[0] * (1 - t[1]), ch[3];
            for (int c = 0; c < 3; c++) {
                int sh = 16 - 8 * c;
                ch[c] = ((C[1] >> sh) & 255) * t[1] + ((C[0] >> sh) & 255) * t[0] * (1 - t[1]);
            }
            row[x] = (uint32_t)lround(A * 255) << 24 | (uint32_t)lround(ch[0]) << 16 | (uint32_t)lround(ch[1]) << 8 | (uint32_t)lround(ch[2]);
        }
    }
    cairo_surface_mark_dirty(s);
}

cairo_surface_t *hz_rdraw_layer(const hz_rdata *r, int *scale)
{
    int sc = r->vector ? 2 : 1;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)r->pw * sc, (int)r->ph * sc);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) { cairo_surface_destroy(s); return NULL; }
    if (r->vector) {
        cairo_t *cr = cairo_create(s);
        cairo_scale(cr, sc, sc);
        draw_lines(cr, r);
        cairo_destroy(cr);
    } else draw_raster(s, r);
    *scale = sc;
    return s;
}

/* name cut to 24 bytes (with "..."), for labels (report_html.c cuts the same) */
static void short_name(const char *s, char *buf, size_t n)
{
    if (strlen(s) <= 24) snprintf(buf, n, "%s", s);
    else snprintf(buf, n, "%.21s...", s);
}

static void text_right(cairo_t *cr, double x, double y, const char *s)   /* right-aligned at x, centred on y */
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    cairo_move_to(cr, x - e.x_advance, y + e.height / 2 - (e.height + e.y_bearing));
    cairo_show_text(cr, s);
}

static void grid_and_labels(cairo_t *cr, const hz_rdata *r, const hz_rgeom *g)
{
    cairo_set_line_width(cr, 1);
    cairo_set_source_rgb(cr, 0.83, 0.83, 0.83);   /* #d4d4d4, as in the page's SVG */
    for (size_t i = 0; i < g->nline[0]; i++) {
        double x = ML + floor(g->line[0][i].px) + 0.5;
        cairo_move_to(cr, x, MT); cairo_line_to(cr, x, MT + r->ph);
    }
    for (size_t i = 0; i < g->nline[1]; i++) {
        double y = MT + floor(r->ph - g->line[1][i].px) + 0.5;
        cairo_move_to(cr, ML, y); cairo_line_to(cr, ML + r->pw, y);
    }
    cairo_stroke(cr);
    char nm[32];
    cairo_set_font_size(cr, 10);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    for (size_t i = 0; i < g->nlabel[1]; i++) {   /* query names left of the plot */
        short_name(r->q.name[g->label[1][i].rec], nm, sizeof nm);
        text_right(cr, ML - 6, MT + r->ph - g->label[1][i].mid, nm);
    }
    for (size_t i = 0; i < g->nlabel[0]; i++) {   /* target names below, reading upwards */
        short_name(r->t.name[g->label[0][i].rec], nm, sizeof nm);
        cairo_save(cr);
        cairo_translate(cr, ML + g->label[0][i].mid, MT + r->ph + 6);
        cairo_rotate(cr, -M_PI / 2);
        text_right(cr, 0, 0, nm);
        cairo_restore(cr);
    }
    /* ticks: target along the top, query along the right edge */
    cairo_set_font_size(cr, 9);
    cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
    for (size_t i = 0; i < g->ntick[0]; i++) {
        cairo_text_extents_t e;
        double x = ML + g->tick[0][i].px;
        cairo_move_to(cr, x, MT); cairo_line_to(cr, x, MT - 4); cairo_stroke(cr);
        cairo_text_extents(cr, g->tick[0][i].text, &e);
        cairo_move_to(cr, x - e.x_advance / 2, MT - 7);
        cairo_show_text(cr, g->tick[0][i].text);
    }
    for (size_t i = 0; i < g->ntick[1]; i++) {
        double y = MT + r->ph - g->tick[1][i].px;
        cairo_move_to(cr, ML + r->pw, y); cairo_line_to(cr, ML + r->pw + 4, y); cairo_stroke(cr);
        cairo_move_to(cr, ML + r->pw + 7, y + 3);
        cairo_show_text(cr, g->tick[1][i].text);
    }
}

static cairo_status_t to_file(void *fp, const unsigned char *d, unsigned int n)
{
    return fwrite(d, 1, n, fp) == n ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

int hz_rdraw_png(const hz_rdata *r, const hz_rgeom *g, cairo_surface_t *layer, int scale,
                 const char *title, const char *path, char *err, size_t errlen)
{
    int W = ML + (int)r->pw + MR, H = MT + (int)r->ph + MB;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    grid_and_labels(cr, r, g);
    cairo_save(cr);   /* the layer, scaled back to CSS pixels (bins stay sharp) */
    cairo_translate(cr, ML, MT);
    cairo_scale(cr, 1.0 / scale, 1.0 / scale);
    cairo_set_source_surface(cr, layer, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), scale == 1 ? CAIRO_FILTER_NEAREST : CAIRO_FILTER_GOOD);
    cairo_paint(cr);
    cairo_restore(cr);
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, ML - 0.5, MT - 0.5, r->pw + 1, r->ph + 1);
    cairo_stroke(cr);
    cairo_set_font_size(cr, 14);
    cairo_move_to(cr, 12, 22);
    cairo_show_text(cr, title);
    cairo_set_font_size(cr, 11);
    const char *lg[2] = { "plus strand", "minus strand" };
    const unsigned lc[2] = { HZ_RDRAW_PLUS_RGB, HZ_RDRAW_MINUS_RGB };
    for (int k = 0; k < 2; k++) {
        double x = W - 230 + 110 * k;
        rgb(cr, lc[k], 1);
        cairo_rectangle(cr, x, 12, 14, 10);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        cairo_move_to(cr, x + 18, 21);
        cairo_show_text(cr, lg[k]);
    }
    cairo_destroy(cr);
    char tmp[4200];
    FILE *fp = hz_out_fopen_tmp(path, tmp, sizeof tmp);   /* O_EXCL|O_NOFOLLOW */
    int rc = -1;
    if (!fp) snprintf(err, errlen, "%s: cannot create: %s", tmp, strerror(errno));
    else {
        cairo_status_t st = cairo_surface_write_to_png_stream(s, to_file, fp);
        if (fclose(fp) != 0 || st != CAIRO_STATUS_SUCCESS) { unlink(tmp); snprintf(err, errlen, "%s: write failed (%s)", tmp, cairo_status_to_string(st)); }
        else if (hz_out_place(tmp, path, 1)) { unlink(tmp); snprintf(err, errlen, "%s: cannot put %s in place: %s", path, tmp, strerror(errno)); }
        else rc = 0;
    }
    cairo_surface_destroy(s);
    return rc;
}

typedef struct { unsigned char *b; size_t n, cap; int oom; } membuf;

static cairo_status_t to_mem(void *p, const unsigned char *d, unsigned int n)
{
    membuf *m = p;
    if (m->n + n > m->cap) {
        size_t nc = m->cap ? m->cap : 1 << 16;
        while (nc < m->n + n) nc *= 2;
        unsigned char *v = realloc(m->b, nc);
        if (!v) { m->oom = 1; return CAIRO_STATUS_NO_MEMORY; }
        m->b = v; m->cap = nc;
    }
    memcpy(m->b + m->n, d, n);
    m->n += n;
    return CAIRO_STATUS_SUCCESS;
}

int hz_rdraw_png_bytes(cairo_surface_t *s, unsigned char **buf, size_t *n)
{
    membuf m = { 0 };
    if (cairo_surface_write_to_png_stream(s, to_mem, &m) != CAIRO_STATUS_SUCCESS || m.oom) { free(m.b); return -1; }
    *buf = m.b; *n = m.n;
    return 0;
}
