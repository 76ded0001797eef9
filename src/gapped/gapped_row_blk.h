/* gapped_row_blk.h — the block path of gapped_row.c, included once per instruction set: the
 * includer defines VT (the vector type), VW (its lanes, 8 or 16), VLANES ({ 0, 1, ... }), BV(x)
 * (x in every lane), UP1/UP2/UP4 (UP8 for 16 lanes), ROW_FN (the function's name), VMAX(a, b)
 * (lane maximum), VANY(m) (a lane of the 0/-1 mask m is set), VLAST(m, lane) (the highest set
 * lane of m, -1 when none), VFIRST(m, lane) (the lowest set lane; m has one), BCASTL(x) (the last lane in every lane), BCASTK(x, k) (lane k in every lane),
 * STOREN(p, x, n) / PACKN(x, p, n) (lanes 0..n) of x stored at p as int32 / as bytes), PACKV(x, p) (the lanes,
 * each 0..255, stored as bytes at p) and MASKED(mk, tag) (one of mk[0..VW) is tag: a masked
 * cell, §4.5, so the block runs cell by cell), with SEL, rstate, row_scalar and the ROW_
 * constants in scope.  The instance's parameters (ROW_FN to MASKED) are undefined at the end;
 * the width's (VT to UP8) stay for the next instance of that width.
 * See gapped_row.c's comment for why the block is exact. */
/* columns [lo, end) in blocks of VW columns; sv[k] = sub(A(r), B(lo+k+1)).  The carried state (I, best, the next
 * diagonal) stays in registers as broadcast vectors, and is written to *s only around the
 * cell-by-cell fallback (byte stores to the traceback may alias *s, so the compiler would
 * otherwise reload it every block, on the loop's critical path). */
static void ROW_FN(const hz_grow *R, rstate *s, int64_t lo, int64_t end, const int32_t *sv)
{
    int32_t *C = R->C, *D = R->D;
    uint8_t *tp = R->tp;
    (void)lo;
    const VT none = BV(ROW_NONE), low = BV(ROW_LOW);
    const int32_t E = R->E, Y = R->Y;
    const int64_t *mk = R->mk, tag = R->tag;
    const VT vE = BV(E), vgOE = BV(R->gOE), lane = VLANES, zero = BV(0);
    const VT Ek = (lane + 1) * E;
    VT vi = BV(s->i), vb = BV(s->best), vd = BV(s->diag);
    int64_t bcol = s->bc, kept = s->kept, col = lo;
#define ROW_FLUSH() (s->i = vi[0], s->best = vb[0], s->diag = vd[0], s->bc = bcol, s->kept = kept)
#define ROW_LOAD() (vi = BV(s->i), vb = BV(s->best), vd = BV(s->diag), bcol = s->bc, kept = s->kept)
    while (col + VW <= end) {
        VT c, d;
        memcpy(&c, C + col, sizeof c); memcpy(&d, D + col, sizeof d);
        VT sb;
        memcpy(&sb, sv + (col - lo), sizeof sb);
        if ((mk && MASKED(mk + col, tag)) || VANY((d < low) | (vi < low))) goto scalar;
        const VT nxt = c + sb;
        const VT dg = UP1(nxt, vd);
        const VT dle = d <= dg;
        const VT o = SEL(dle, dg - vgOE, none);
        /* I leaving each column: max over j <= k of o[j] - (k-j)E, and the entering I - (k+1)E */
        VT io = o;
        io = VMAX(io, UP1(io, none) - vE);
        io = VMAX(io, UP2(io, none) - 2 * vE);
        io = VMAX(io, UP4(io, none) - 4 * vE);
#if VW == 16
        io = VMAX(io, UP8(io, none) - 8 * vE);
#endif
        io = VMAX(io, vi - Ek);
        const VT ii = UP1(io, vi);                  /* I entering each column */
        const VT gapc = ~dle | (ii > dg);
        const VT m = SEL(dle, dg, d), v = VMAX(m, ii);
        /* best before each column: prefix maximum of the diagonal cells' values */
        VT bo = SEL(gapc, none, dg);
        bo = VMAX(bo, UP1(bo, none));
        bo = VMAX(bo, UP2(bo, none));
        bo = VMAX(bo, UP4(bo, none));
#if VW == 16
        bo = VMAX(bo, UP8(bo, none));
#endif
        bo = VMAX(bo, vb);
        const VT bi = UP1(bo, vb);
        const VT pr = v < bi - Y;
        const VT up = ~gapc & (dg >= bi);
        const VT dE = d - vE, opd = ~gapc & (o > dE), opi = o > ii - vE;
        const VT from = SEL(gapc, SEL(d >= ii, BV(FROM_D), BV(FROM_I)), BV(FROM_C));
        const VT lk = from | SEL(opd, zero, BV(EXT_D)) | SEL(gapc | ~opi, BV(EXT_I), zero);
        const VT dn = SEL(opd, o, dE);
        if (VANY(pr)) {
            /* a cell is pruned: the lanes before the first pruned one are exact (kept), then
             * cell by cell through the pruned cells up to the next live one */
            const int32_t p = VFIRST(pr, lane);
            if (p > 0) {
                STOREN(C + col, v, p); STOREN(D + col, dn, p); PACKN(lk, tp + col, p);
                const int32_t k = VLAST(up & (lane < BV(p)), lane);
                if (k >= 0) bcol = col + k;
                vb = BCASTK(bo, p - 1); vi = BCASTK(io, p - 1); vd = BCASTK(nxt, p - 1);
                kept = col + p - 1;
            }
            ROW_FLUSH();
            for (col += p; col < end; ) {           /* cell col + p is pruned */
                const int live = cell1(R, s, col, C[col] + sv[col - lo]);
                col++;
                if (live) break;
            }
            ROW_LOAD();
            continue;
        }
        memcpy(C + col, &v, sizeof v); memcpy(D + col, &dn, sizeof dn);
        PACKV(lk, tp + col);
        const int32_t k = VLAST(up, lane);          /* the last column reaching best, or -1 */
        if (k >= 0) bcol = col + k;
        vb = BCASTL(bo); vi = BCASTL(io); vd = BCASTL(nxt);
        kept = col + VW - 1;
        col += VW;
        continue;
    scalar:
        ROW_FLUSH();
        row_scalar(R, s, col, col + VW);
        ROW_LOAD();
        col += VW;
    }
    ROW_FLUSH();
#undef ROW_FLUSH
#undef ROW_LOAD
    row_scalar(R, s, col, end);
}
#undef ROW_FN
#undef VMAX
#undef VANY
#undef VLAST
#undef VFIRST
#undef BCASTL
#undef BCASTK
#undef STOREN
#undef PACKN
#undef PACKV
#undef MASKED
