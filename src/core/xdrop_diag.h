/* xdrop_diag — the diagonal path's one-sided scan (spec §4.2), shared by the CPU
 * (src/hsp/extend_diag.c) and the CUDA backend (cuda/hsp/extend_diag.cu) so that both give the same
 * results; xdrop.h's conventions (extension codes 0..7, sub row-major with the target code as
 * row).  Anchors on one diagonal d = ar - aq read column c as target c, query c - d (0-based,
 * block-relative). */
#ifndef HZ_XDROP_DIAG_H
#define HZ_XDROP_DIAG_H
#include "xdrop.h"

#define HZ_DIAG_W(c) ((int64_t)sub[((unsigned)R[(c)] << 3) | Q[(c) - d]])

/* One side's scan: columns read (the drop column included), best score, its first 0-based
 * offset (-1: none), whether it ended at the sequence edge. */
typedef struct { int64_t m, v, arg; int edge; } hz_side;

/* The scan of one side from column c0 in direction dir (+1 right, -1 left; columns
 * c0 + dir*p for p < navail, navail the columns left to the sequence edge, 0-based,
 * block-relative; the exact scan of hz_xdrop_right / hz_xdrop_left: out->v is the side's
 * score and out->arg the offset of its first maximum, so the right extent is arg and the left
 * extent arg + 1).
 * With prev: the same side of another anchor, whose scan starts p0 columns further along
 * (column c0 + dir*p0), gave *prev; this scan reads the p0 fresh columns, then follows
 * prev's columns until its maximum meets prev's running maximum shifted by the fresh sum:
 * from there on both see the same maxima and the same drop, so prev's result is taken over.
 * (Before the meeting this scan drops no later than prev would, so "prev dropped first" never
 * happens; at prev's edge this one is at the edge too.) */
HZ_HD void hz_side_scan(const uint8_t *R, const uint8_t *Q, int64_t d, const int32_t *sub, int32_t X,
                         int64_t c0, int dir, int64_t navail, const hz_side *prev, int64_t p0,
                         hz_side *out, int64_t *fsum)
{
    int64_t T = 0, B = 0, bp = -1, p = 0, m = -1;
    int edge = 1;
    if (prev) {
        for (; p < p0; p++) {
            T += HZ_DIAG_W(c0 + dir * p);
            { int up = T > B; B = up ? T : B; bp = up ? p : bp; }   /* branch-free: maxima come at random */
            if (B - T > X) { p++; edge = 0; m = p; break; }
        }
        if (fsum) {   /* the sum of all p0 fresh columns, also past an early drop */
            int64_t F = T;
            for (int64_t q = p; q < p0; q++) F += HZ_DIAG_W(c0 + dir * q);
            *fsum = F;
        }
        if (m < 0) {
            const int64_t T0 = T;
            int64_t Tp = 0, bestp = 0, j = 0;
            for (;;) {
                if (T0 + bestp == B) {
                    if (prev->v > bestp) { B = T0 + prev->v; bp = p0 + prev->arg; }
                    m = p0 + prev->m; edge = prev->edge;
                    break;
                }
                if (j >= prev->m) break;
                int64_t w = HZ_DIAG_W(c0 + dir * p);
                T += w;
                { int up = T > B; B = up ? T : B; bp = up ? p : bp; }   /* branch-free: maxima come at random */
                p++; j++;
                if (B - T > X) { edge = 0; m = p; break; }
                Tp += w; bestp = Tp > bestp ? Tp : bestp;
            }
            if (m < 0 && prev->edge) m = p;
        }
    }
    if (m < 0) {   /* no previous scan to follow: scan on to the drop or the edge */
        edge = 1;
        for (; p < navail; p++) {
            T += HZ_DIAG_W(c0 + dir * p);
            { int up = T > B; B = up ? T : B; bp = up ? p : bp; }   /* branch-free: maxima come at random */
            if (B - T > X) { p++; edge = 0; break; }
        }
        m = p;
    }
    out->m = m; out->v = B; out->arg = bp; out->edge = edge;
}

/* The same scans as one independent part per anchor and an associative combination, so that a
 * diagonal's anchors can be extended in parallel (cuda/hsp/extend_diag.cu) with the results of
 * hz_side_scan.
 *
 * A part is either a result (b < 0: x = score, a1 = first maximum's offset + 1, m = columns
 * read, edge = -1 - b) or a rule waiting for the neighbour's result (b >= 0): "my result is
 * r(next) = { x + max(b, next.x); next.x > b ? m + next.a1 : a1; m + next.m; next.edge }".
 * hz_side_part reads the fresh columns up to the neighbour's start (p0 further along) and then
 * the neighbour's columns until its running maximum meets the neighbour's shifted one, where
 * hz_side_scan takes the neighbour's result over; it stops earlier at its own drop or at the
 * edge.  It needs no column past the meeting point, nor the neighbour's result: before the
 * meeting its drop from its maximum exceeds the neighbour's at every column, so it drops no
 * later than the neighbour (hz_side_scan's note).  c0, dir and navail as hz_side_scan;
 * 0 <= p0 <= navail (the neighbour's start lies inside the scan).  has_next 0: a plain scan
 * to the drop or the edge (a result).  cap > 0: after cap columns without an end the part is
 * unknown (b = HZ_SIDE_UNKNOWN; the caller extends that anchor another way). */
#define HZ_SIDE_UNKNOWN (-3)
typedef struct { int64_t x, b; uint32_t m, a1; } hz_side_part_t;

HZ_HD hz_side_part_t hz_side_part(const uint8_t *R, const uint8_t *Q, int64_t d, const int32_t *sub, int32_t X,
                                  int64_t c0, int dir, int64_t navail, int has_next, int64_t p0, int64_t cap)
{
    if (cap <= 0) cap = INT64_MAX;
    int64_t T = 0, B = 0, bp = -1, p = 0;
    hz_side_part_t o;
    if (has_next) {
        for (; p < p0; p++) {
            if (p >= cap) goto unknown;
            T += HZ_DIAG_W(c0 + dir * p);
            { int up = T > B; B = up ? T : B; bp = up ? p : bp; }
            if (B - T > X) { p++; goto dropped; }
        }
        const int64_t T0 = T;
        int64_t Tp = 0, bestp = 0;
        for (;;) {
            if (T0 + bestp == B) {   /* met: the neighbour's result decides the rest */
                o.x = T0; o.b = bestp; o.m = (uint32_t)p0; o.a1 = (uint32_t)(bp + 1);
                return o;
            }
            if (p >= navail) goto edge;
            if (p >= cap) goto unknown;
            int64_t w = HZ_DIAG_W(c0 + dir * p);
            T += w;
            { int up = T > B; B = up ? T : B; bp = up ? p : bp; }
            p++;
            if (B - T > X) goto dropped;
            Tp += w; bestp = Tp > bestp ? Tp : bestp;
        }
    }
    for (; p < navail; p++) {
        if (p >= cap) goto unknown;
        T += HZ_DIAG_W(c0 + dir * p);
        { int up = T > B; B = up ? T : B; bp = up ? p : bp; }
        if (B - T > X) { p++; goto dropped; }
    }
edge:
    o.x = B; o.b = -2; o.m = (uint32_t)p; o.a1 = (uint32_t)(bp + 1);
    return o;
dropped:
    o.x = B; o.b = -1; o.m = (uint32_t)p; o.a1 = (uint32_t)(bp + 1);
    return o;
unknown:
    o.x = 0; o.b = HZ_SIDE_UNKNOWN; o.m = 0; o.a1 = 0;
    return o;
}

/* f then g: the part of an anchor (f) combined with what its neighbour's side gives (g, the
 * neighbour's part already combined with those beyond it).  Associative; a result or an
 * unknown part absorbs everything beyond it, and a rule meeting an unknown part is unknown. */
HZ_HD hz_side_part_t hz_side_join(hz_side_part_t f, hz_side_part_t g)
{
    if (f.b < 0) return f;
    if (g.b == HZ_SIDE_UNKNOWN) return g;
    hz_side_part_t o;
    if (g.b < 0) {   /* apply f's rule to g's result */
        int take = g.x > f.b;
        o.x = f.x + (take ? g.x : f.b);
        o.a1 = take ? f.m + g.a1 : f.a1;
        o.m = f.m + g.m; o.b = g.b;
        return o;
    }
    const int64_t c = f.b - g.x;   /* two rules: one rule of the same form */
    o.x = f.x + g.x;
    o.b = c > g.b ? c : g.b;
    o.m = f.m + g.m;
    o.a1 = g.b > c ? f.m + g.a1 : f.a1;
    return o;
}

#undef HZ_DIAG_W
#endif
