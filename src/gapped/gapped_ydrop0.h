/* gapped_ydrop0 — the one-sided y-drop extension of spec §4 against an EMPTY accepted set, in
 * fixed caller-given memory: no neighbours (§4.4 bounds stay 0 and N+1), no masks (§4.5).
 *
 * Written once for the host and the device (cuda/gapped/ydrop.cu compiles this same code), so
 * both run the same arithmetic and tie-breaking as hz_gapped_half (gapped_ydrop.c) does with an
 * empty set; tests/unit/test_gapped_dev.c checks that cell for cell on random inputs.  A
 * speculative result made here is exact for the real set unless an accepted alignment spans
 * the anchor's row or can mark a cell of the explored region (spec §12; gapped_par.c): the
 * region is recorded as record_row does (per block of HZ_G_RGB rows, smallest LY, largest RY).
 *
 * Memory: the arena's capacities bound the extension; one that would need more (long
 * alignments) stops with HZ_Y0_FULL and is computed by the CPU path instead.  A half that hits
 * the traceback limit (§4.7) stops with HZ_Y0_TRUNC (the CPU path redoes it, for its stderr
 * line).  Positions: row r = 0..M, column c = 0..N relative to the anchor as in §4.1. */
#ifndef HZ_GAPPED_YDROP0_H
#define HZ_GAPPED_YDROP0_H
#include <stdint.h>
#include "gapped.h"

#ifdef __CUDACC__
#define HZ_G_HD __host__ __device__
#else
#define HZ_G_HD
#endif

enum { HZ_Y0_OK = 0, HZ_Y0_FULL = 1, HZ_Y0_TRUNC = 2 };

/* caller-owned memory of one half; capacities in elements */
typedef struct {
    int32_t *C, *D; int32_t ccap;        /* columns 0 .. ccap-1 */
    uint8_t *tb; int64_t tbcap;          /* traceback cells */
    int32_t *tbrow; int32_t rowcap;      /* rows 0 .. rowcap-1 */
    uint32_t *ops; int32_t opcap;        /* run list, (count << 2) | op, traceback order */
    int32_t *rg; int32_t rgcap;          /* 2 per block of HZ_G_RGB rows: LY, RY */
} hz_y0arena;

/* one half: A(r) = A[st*r], B(c) = B[st*c] (spec §4.1), M rows, N columns; sub = 256 x 256 */
typedef struct {
    const uint8_t *A, *B; int32_t st; int64_t M, N;
    const int32_t *sub; int32_t O, E, Y; int64_t tb_cap;
} hz_y0in;

typedef struct { int32_t status, score, nops, nrow; int64_t er, ec; } hz_y0res;

enum { HZ_Y0_FROM_C = 0, HZ_Y0_FROM_I = 1, HZ_Y0_FROM_D = 2, HZ_Y0_EXT_I = 4, HZ_Y0_EXT_D = 8 };

/* push_op of gapped_ydrop.c; 1 when the run list is full */
static inline HZ_G_HD int hz_y0_push(hz_y0arena *a, int32_t *n, int op)
{
    if (*n && (a->ops[*n - 1] & 3) == (uint32_t)op) { a->ops[*n - 1] += 4; return 0; }
    if (*n == a->opcap) return 1;
    a->ops[(*n)++] = 4u | (uint32_t)op;
    return 0;
}

/* hz_gapped_half of an empty set (spec §4.1-§4.6); res->status HZ_Y0_OK with score, end cell,
 * run list (a->ops[0..nops)) and explored rows 1..nrow (a->rg), or FULL / TRUNC. */
static inline HZ_G_HD void hz_ydrop0(const hz_y0in *in, hz_y0arena *a, hz_y0res *res)
{
    const int64_t M = in->M, N = in->N;
    res->status = HZ_Y0_OK; res->score = 0; res->nops = 0; res->nrow = 0; res->er = res->ec = 0;
    if (M <= 0 || N <= 0) return;
    const int32_t E = in->E, gOE = in->O + E, Y = in->Y;
    const int64_t tail = E ? Y / E + 6 : (N + 1 < 500000 ? N + 1 : 500000);
    const uint8_t *A = in->A, *B = in->B; const int64_t st = in->st;
    int32_t *C = a->C, *D = a->D; uint8_t *tb = a->tb;
    if (tail + 2 > a->tbcap || a->ccap < 2 || a->rowcap < 1) { res->status = HZ_Y0_FULL; return; }
    int64_t used = 0, col, LY, RY;
    C[0] = 0; D[0] = -gOE; tb[used++] = 0; a->tbrow[0] = 0;
    {
        int32_t v = -gOE, last = 0;
        for (col = 1; col <= N && last >= -Y; col++) {
            if (col + 2 > a->ccap || used + 1 > a->tbcap) { res->status = HZ_Y0_FULL; return; }
            C[col] = v; last = v; D[col] = v - gOE; tb[used++] = HZ_Y0_FROM_I; v -= E;
        }
    }
    LY = 0; RY = col;
    int32_t best = 0; int64_t br = 0, bc = 0;
    for (int64_t r = 1; r <= M; r++) {
        if (RY + 2 > a->ccap) { res->status = HZ_Y0_FULL; return; }
        {   /* record_row */
            int64_t b = r / HZ_G_RGB;
            if (2 * b + 2 > a->rgcap) { res->status = HZ_Y0_FULL; return; }
            int32_t *g = a->rg + 2 * b;
            if (r == 1 || r % HZ_G_RGB == 0) { g[0] = (int32_t)LY; g[1] = (int32_t)RY; }
            else { if (LY < g[0]) g[0] = (int32_t)LY; if (RY > g[1]) g[1] = (int32_t)RY; }
            res->nrow = (int32_t)r;
        }
        if (RY < LY) RY = LY;
        int64_t need = RY - LY + tail;
        if (used + need >= in->tb_cap) { res->status = HZ_Y0_TRUNC; return; }
        if (r + 1 > a->rowcap || used + need + 1 > a->tbcap || RY + 2 > a->ccap) { res->status = HZ_Y0_FULL; return; }
        a->tbrow[r] = (int32_t)(used - LY);
        const int32_t *sub = in->sub + 256 * (int32_t)A[st * r];
        int32_t i = HZ_G_NEG_INF, diag = HZ_G_NEG_INF;
        int64_t kept = LY;
        for (col = LY; col < RY && col <= N; col++) {
            int32_t d = D[col], nxt = C[col] + sub[B[st * (col + 1)]], v;
            uint8_t lk;
            int prune = 0;
            if (d > diag || i > diag) {
                if (d >= i) { v = d; lk = HZ_Y0_FROM_D | HZ_Y0_EXT_I | HZ_Y0_EXT_D; } else { v = i; lk = HZ_Y0_FROM_I | HZ_Y0_EXT_I | HZ_Y0_EXT_D; }
                if (v < best - Y) prune = 1;
                else { C[col] = v; D[col] = d - E; i -= E; tb[used] = lk; kept = col; }
            } else {
                v = diag;
                if (v < best - Y) prune = 1;
                else {
                    if (v >= best) { best = v; br = r; bc = col; }
                    int32_t op = v - gOE;
                    if (op > d - E) { D[col] = op; lk = HZ_Y0_FROM_C; } else { D[col] = d - E; lk = HZ_Y0_FROM_C | HZ_Y0_EXT_D; }
                    if (op > i - E) i = op; else { i -= E; lk |= HZ_Y0_EXT_I; }
                    C[col] = v; tb[used] = lk; kept = col;
                }
            }
            if (prune) {
                if (col == LY) LY++;
                else { C[col] = D[col] = HZ_G_NEG_INF; i = HZ_G_NEG_INF; }
                tb[used] = 0;
            }
            diag = nxt; used++;
        }
        if (LY >= RY) break;
        if (RY > kept + 1) RY = kept + 1;
        else {
            while (i >= best - Y && RY <= N) {
                if (RY + 2 > a->ccap || used + 1 > a->tbcap) { res->status = HZ_Y0_FULL; return; }
                C[RY] = i; D[RY] = i - gOE; tb[used++] = HZ_Y0_FROM_I; i -= E; RY++;
            }
        }
        if (RY <= N) {
            if (RY + 2 > a->ccap) { res->status = HZ_Y0_FULL; return; }
            C[RY] = D[RY] = HZ_G_NEG_INF; RY++;
        }
    }
    /* traceback (§4.6) */
    res->er = br; res->ec = bc;
    int64_t r = br, c = bc; int prev = 0; int32_t n = 0;
    while (r >= 1 || c > 0) {
        uint8_t lk = tb[a->tbrow[r] + c];
        int op = lk & 3;
        if (prev == HZ_Y0_FROM_I && (lk & HZ_Y0_EXT_I)) op = HZ_Y0_FROM_I;
        if (prev == HZ_Y0_FROM_D && (lk & HZ_Y0_EXT_D)) op = HZ_Y0_FROM_D;
        int e;
        if (op == HZ_Y0_FROM_I) { c--; e = hz_y0_push(a, &n, HZ_OP_INS); }
        else if (op == HZ_Y0_FROM_D) { r--; e = hz_y0_push(a, &n, HZ_OP_DEL); }
        else { r--; c--; e = hz_y0_push(a, &n, HZ_OP_SUB); }
        if (e) { res->status = HZ_Y0_FULL; return; }
        prev = op;
    }
    res->nops = n;
    res->score = best;
}

#endif
