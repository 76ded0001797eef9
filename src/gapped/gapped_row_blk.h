/* gapped_row_blk.h — the 8-column block path of gapped_row.c, included once per instruction
 * set: the includer defines ROW_FN (the function's name), VMAX(a, b) (lane maximum), VANY(m)
 * (a lane of the 0/-1 mask m is set), VLAST(m, lane) (the highest set lane of m, -1 when
 * none), SUBV(R, sv, k) (sub(A(r), B(lo+k+1 .. lo+k+8)) as 8 lanes) and MASKED(mk, tag) (one
 * of mk[0..8) is tag: a masked cell, §4.5, so the block runs cell by cell), with v8, B8, SEL, UP1/2/4, rstate, row_scalar and the ROW_ constants in scope.
 * See gapped_row.c's comment for why the block is exact. */
/* columns [lo, end) with 8-column blocks; sv: see SUBV */
static void ROW_FN(const hz_grow *R, rstate *s, int64_t lo, int64_t end, const int32_t *sv)
{
    int32_t *C = R->C, *D = R->D;
    (void)lo;
    const v8 none = { ROW_NONE, ROW_NONE, ROW_NONE, ROW_NONE, ROW_NONE, ROW_NONE, ROW_NONE, ROW_NONE };
    const int32_t E = R->E;
    const v8 vE = B8(E), vgOE = B8(R->gOE), lane = { 0, 1, 2, 3, 4, 5, 6, 7 }, zero = B8(0);
    const v8 Ek = (lane + 1) * E;
    int64_t col = lo;
    for (; col + 8 <= end; col += 8) {
        v8 c, d, sb;
        memcpy(&c, C + col, sizeof c); memcpy(&d, D + col, sizeof d);
        if (R->mk && MASKED(R->mk + col, R->tag)) { row_scalar(R, s, col, col + 8); continue; }
        sb = SUBV(R, sv, col - lo);
        if (s->i < ROW_LOW || VANY(d < ROW_LOW)) { row_scalar(R, s, col, col + 8); continue; }
        const v8 nxt = c + sb;
        const v8 dg = UP1(nxt, B8(s->diag));
        const v8 dle = d <= dg;
        const v8 o = SEL(dle, dg - vgOE, none);
        /* I leaving each column: max over j <= k of o[j] - (k-j)E, and the entering I - (k+1)E */
        v8 io = o;
        io = VMAX(io, UP1(io, none) - vE);
        io = VMAX(io, UP2(io, none) - 2 * vE);
        io = VMAX(io, UP4(io, none) - 4 * vE);
        io = VMAX(io, B8(s->i) - Ek);
        const v8 ii = UP1(io, B8(s->i));            /* I entering each column */
        const v8 gapc = ~dle | (ii > dg);
        const v8 m = SEL(dle, dg, d), v = VMAX(m, ii);
        /* best before each column: prefix maximum of the diagonal cells' values */
        const v8 bc = SEL(gapc, none, dg);
        v8 bo = bc;
        bo = VMAX(bo, UP1(bo, none));
        bo = VMAX(bo, UP2(bo, none));
        bo = VMAX(bo, UP4(bo, none));
        bo = VMAX(bo, B8(s->best));
        const v8 bi = UP1(bo, B8(s->best));
        v8 pr = v < bi - R->Y;
        if (VANY(pr)) {                         /* a cell is pruned: cell by cell */
            row_scalar(R, s, col, col + 8);
            continue;
        }
        const v8 up = ~gapc & (dg >= bi);
        const v8 dE = d - vE, opd = ~gapc & (o > dE), opi = o > ii - vE;
        const v8 from = SEL(gapc, SEL(d >= ii, B8(FROM_D), B8(FROM_I)), B8(FROM_C));
        const v8 lk = from | SEL(opd, zero, B8(EXT_D)) | SEL(gapc | ~opi, B8(EXT_I), zero);
        const v8 dn = SEL(opd, o, dE);
        memcpy(C + col, &v, sizeof v); memcpy(D + col, &dn, sizeof dn);
        const v8b lb = __builtin_convertvector(lk, v8b);
        memcpy(R->tp + col, &lb, sizeof lb);
        const int32_t k = VLAST(up, lane);          /* the last column reaching best, or -1 */
        if (k >= 0) s->bc = col + k;
        s->best = bo[7]; s->i = io[7]; s->diag = nxt[7];
        s->kept = col + 7;
    }
    row_scalar(R, s, col, end);
}

