/* report_geom — grid lines, labels and ticks of the dot plot (see report_geom.h). */
#include "report_geom.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double hz_rgeom_x(const hz_rdata *r, double pos) { return pos * r->pw / (double)r->grid.X; }
double hz_rgeom_y(const hz_rdata *r, double pos) { return r->ph - pos * r->ph / (double)r->grid.Y; }

void hz_rgeom_bp(double b, char *buf, size_t n)
{
    static const char *const U[] = { "bp", "kb", "Mb", "Gb", "Tb" };
    int u = 0;
    while (b >= 1000 && u < 4) { b /= 1000; u++; }
    if (u == 0) snprintf(buf, n, "%.0f bp", b);
    else snprintf(buf, n, "%.3g %s", b, U[u]);
}

static int side_lines(const hz_rdata *r, int side, hz_rgeom *g)
{
    const hz_raxis *a = side ? &r->q : &r->t;
    double px = side ? r->ph : r->pw, tot = (double)(a->total ? a->total : 1);
    g->line[side] = malloc((a->n ? a->n : 1) * sizeof *g->line[side]);
    g->label[side] = malloc((a->n ? a->n : 1) * sizeof *g->label[side]);
    if (!g->line[side] || !g->label[side]) return -1;
    double last = 0;
    for (size_t i = 1; i < a->n; i++) {
        double p = (double)a->off[i] * px / tot;
        if (p - last >= HZ_RGEOM_LINE_PX && px - p >= 1.0) { g->line[side][g->nline[side]++] = (hz_rline){ p, i }; last = p; }
    }
    for (size_t i = 0; i < a->n; i++) {
        double s = (double)a->len[i] * px / tot;
        if (s >= HZ_RGEOM_LABEL_PX)
            g->label[side][g->nlabel[side]++] = (hz_rlabel){ ((double)a->off[i] + a->len[i] / 2.0) * px / tot, s, i };
    }
    /* ticks: 1, 2 or 5 x 10^k bases apart, 4 to 10 of them */
    double step = pow(10, floor(log10(tot / 5)));
    if (tot / step > 10) step *= 2;
    if (tot / step > 10) step *= 2.5;
    if (step < 1) step = 1;
    for (double v = 0; v <= tot + 0.5 && g->ntick[side] < 24; v += step) {
        hz_rtick *t = &g->tick[side][g->ntick[side]++];
        t->px = v * px / tot;
        hz_rgeom_bp(v, t->text, sizeof t->text);
        if (v == 0) snprintf(t->text, sizeof t->text, "0");
    }
    return 0;
}

int hz_rgeom_make(const hz_rdata *r, hz_rgeom *g)
{
    memset(g, 0, sizeof *g);
    if (side_lines(r, 0, g) || side_lines(r, 1, g)) { hz_rgeom_free(g); return -1; }
    return 0;
}

void hz_rgeom_free(hz_rgeom *g)
{
    for (int s = 0; s < 2; s++) { free(g->line[s]); free(g->label[s]); }
    memset(g, 0, sizeof *g);
}
