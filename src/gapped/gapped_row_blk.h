/* gapped_row_blk.h — the 8-column block path of gapped_row.c, included once per instruction
 * set: the includer defines ROW_FN (the function's name), VMAX(a, b) (lane maximum), VANY(m)
 * (a lane of the 0/-1 mask m is set), VLAST(m, lane) (the highest set lane of m, -1 when
 * none), BCAST7(x) (lane 7 in every lane), PACK8(x, p) (the 8 lanes, each 0..255, stored as 8
 * bytes at p), SUBV(R, sv, k) (sub(A(r), B(lo+k+1 .. lo+k+8)) as 8 lanes) and MASKED(mk, tag) (one
 * of mk[0..8) is tag: a masked cell, §4.5, so the block runs cell by cell), with v8, B8, SEL, UP1/2/4, rstate, row_scalar and the ROW_ constants in scope.
 * See gapped_row.c's comment for why the block is exact. */
/* columns [lo, end) with 8-column blocks; sv: see SUBV.  The carried state (I, best, the next
 * diagonal) stays in registers as broadcast vectors, and is written to *s only around the
 * cell-by-cell fallback (byte stores to the traceback may alias *s, so the compiler would
 * otherwise reload it every block, on the loop's critical path). */
static void ROW_FN(const hz_grow *R, rstate *s, int64_t lo, int64_t end, const int32_t *sv)
{
    int32_t *C = R->C, *D = R->D;
    uint8_t *tp = R->tp;
    (void)lo;
    const v8 none = B8(ROW_NONE), low = B8(ROW_LOW);
    const int32_t E = R->E, Y = R->Y;
    const int64_t *mk = R->mk, tag = R->tag;
    const v8 vE = B8(E), vgOE = B8(R->gOE), lane = { 0, 1, 2, 3, 4, 5, 6, 7 }, zero = B8(0);
    const v8 Ek = (lane + 1) * E;
    v8 vi = B8(s->i), vb = B8(s->best), vd = B8(s->diag);
    int64_t bcol = s->bc, kept = s->kept, col = lo;
#define ROW_FLUSH() (s->i = vi[0], s->best = vb[0], s->diag = vd[0], s->bc = bcol, s->kept = kept)
#define ROW_LOAD() (vi = B8(s->i), vb = B8(s->best), vd = B8(s->diag), bcol = s->bc, kept = s->kept)
    for (; col + 8 <= end; col += 8) {
        v8 c, d;
        memcpy(&c, C + col, sizeof c); memcpy(&d, D + col, sizeof d);
        const v8 sb = SUBV(R, sv, col - lo);
        if ((mk && MASKED(mk + col, tag)) || VANY((d < low) | (vi < low))) goto scalar;
        const v8 nxt = c + sb;
        const v8 dg = UP1(nxt, vd);
        const v8 dle = d <= dg;
        const v8 o = SEL(dle, dg - vgOE, none);
        /* I leaving each column: max over j <= k of o[j] - (k-j)E, and the entering I - (k+1)E */
        v8 io = o;
        io = VMAX(io, UP1(io, none) - vE);
        io = VMAX(io, UP2(io, none) - 2 * vE);
        io = VMAX(io, UP4(io, none) - 4 * vE);
        io = VMAX(io, vi - Ek);
        const v8 ii = UP1(io, vi);                  /* I entering each column */
        const v8 gapc = ~dle | (ii > dg);
        const v8 m = SEL(dle, dg, d), v = VMAX(m, ii);
        /* best before each column: prefix maximum of the diagonal cells' values */
        v8 bo = SEL(gapc, none, dg);
        bo = VMAX(bo, UP1(bo, none));
        bo = VMAX(bo, UP2(bo, none));
        bo = VMAX(bo, UP4(bo, none));
        bo = VMAX(bo, vb);
        const v8 bi = UP1(bo, vb);
        if (VANY(v < bi - Y)) goto scalar;          /* a cell is pruned: cell by cell */
        const v8 up = ~gapc & (dg >= bi);
        const v8 dE = d - vE, opd = ~gapc & (o > dE), opi = o > ii - vE;
        const v8 from = SEL(gapc, SEL(d >= ii, B8(FROM_D), B8(FROM_I)), B8(FROM_C));
        const v8 lk = from | SEL(opd, zero, B8(EXT_D)) | SEL(gapc | ~opi, B8(EXT_I), zero);
        const v8 dn = SEL(opd, o, dE);
        memcpy(C + col, &v, sizeof v); memcpy(D + col, &dn, sizeof dn);
        PACK8(lk, tp + col);
        const int32_t k = VLAST(up, lane);          /* the last column reaching best, or -1 */
        if (k >= 0) bcol = col + k;
        vb = BCAST7(bo); vi = BCAST7(io); vd = BCAST7(nxt);
        kept = col + 7;
        continue;
    scalar:
        ROW_FLUSH();
        row_scalar(R, s, col, col + 8);
        ROW_LOAD();
    }
    ROW_FLUSH();
#undef ROW_FLUSH
#undef ROW_LOAD
    row_scalar(R, s, col, end);
}
