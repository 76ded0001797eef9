/* gapped_row — one row of the y-drop DP (../shared/spec/lastz-gapped-spec.md §4.3), LASTZ's
 * cell, in blocks of 8 columns with vector arithmetic.
 *
 * Why blocks: the cell's case (gap or diagonal) is data-dependent and a scalar cell costs ~17
 * cycles.  Within a row two chains are serial: I (the running horizontal gap) and best (the
 * row's running maximum, which decides pruning).  With the cell rewritten as
 *   value = max(D, I, diag);  diagonal cell when diag >= D and diag >= I;
 *   I' = max(I - E, open)  with open = diag - (O+E) when D <= diag, else nothing
 * (an I above the diagonal wins that max anyway since O >= 0), I is a max-plus prefix scan of
 * values known before the row's dependencies, and best a prefix maximum of the diagonal cells'
 * values: both are log-step scans over 8 lanes.  That holds while no cell of the block is
 * pruned (a pruned cell resets I and moves LY): a block is computed this way speculatively;
 * when one of its cells is pruned, its cells before the first pruned one are exact and kept
 * (so the test sees the first pruned cell as the scalar cell would), and the row goes on cell
 * by cell through the pruned cells to the next live one, then in blocks again from there.  A
 * block with a masked cell (§4.5) runs cell by cell.  Rows under 16 columns and scoring
 * outside the block path's range run cell by cell.  The scores of the row (sv) come from a
 * 16-entry table by query class (hz_gqcls) where the scoring has at most 16 classes.
 * tests/unit/test_gapped_row.c checks both paths cell for cell on random rows. */
#include <stdint.h>
#include <string.h>
#include "gapped.h"

enum { FROM_C = 0, FROM_I = 1, FROM_D = 2, EXT_I = 4, EXT_D = 8 };

/* "nothing": below every value the block path meets, with room for 8 gap extensions below
 * it; a block whose entering I or whose D is below ROW_LOW (values LASTZ's cell lets drift
 * below NEG_INF by E a column or row; never near in practice) runs cell by cell */
#define ROW_NONE (INT32_MIN + (1 << 24))
#define ROW_LOW (INT32_MIN + (1 << 25))

/* the state carried from column to column */
typedef struct { int32_t i, diag, best; int64_t bc, LY, kept; } rstate;

/* LASTZ's cell (gapped_extend.c ydrop_one_sided_align) at column col; nxt: C[col] (old) +
 * sub(A(r), B(col+1)), the next column's diagonal.  Returns 1 when the cell is kept, 0 pruned. */
static inline int cell1(const hz_grow *R, rstate *s, int64_t col, int32_t nxt)
{
    int32_t *C = R->C, *D = R->D;
    const int32_t E = R->E, gOE = R->gOE;
    int32_t d = D[col], i = s->i, diag = s->diag, v;
    uint8_t lk;
    s->diag = nxt;
    if (R->mk && R->mk[col] == R->tag) goto prune;
    if (d > diag || i > diag) {
        if (d >= i) { v = d; lk = FROM_D | EXT_I | EXT_D; } else { v = i; lk = FROM_I | EXT_I | EXT_D; }
        if (v < s->best - R->Y) goto prune;
        C[col] = v; D[col] = d - E; s->i = i - E;
    } else {
        v = diag;
        if (v < s->best - R->Y) goto prune;
        if (v >= s->best) { s->best = v; s->bc = col; }
        int32_t op = v - gOE;
        if (op > d - E) { D[col] = op; lk = FROM_C; } else { D[col] = d - E; lk = FROM_C | EXT_D; }
        if (op > i - E) s->i = op; else { s->i = i - E; lk |= EXT_I; }
        C[col] = v;
    }
    R->tp[col] = lk; s->kept = col;
    return 1;
prune:
    if (col == s->LY) s->LY++;
    else { C[col] = D[col] = HZ_G_NEG_INF; s->i = HZ_G_NEG_INF; }
    R->tp[col] = 0;
    return 0;
}

static void row_scalar(const hz_grow *R, rstate *s, int64_t lo, int64_t end)
{
    const uint8_t *bp = R->bp + R->st * (lo - R->lo);   /* R->bp is at column R->lo */
    for (int64_t col = lo; col < end; col++, bp += R->st)
        cell1(R, s, col, R->C[col] + R->sub[*bp]);
}

/* sv[k] = sub(A(r), B(lo+k+1)) for k < n, from the bytes */
static void fill_bytes(const hz_grow *R, int64_t n)
{
    const uint8_t *bp = R->bp;
    for (int64_t k = 0; k < n; k++, bp += R->st) R->sv[k] = R->sub[*bp];
}

typedef int32_t v8 __attribute__((vector_size(32)));
typedef uint8_t v8b __attribute__((vector_size(8)));

#define SEL(m, a, b) (((m) & (a)) | (~(m) & (b)))
/* the 8-lane width: lanes moved up by k, the k lowest taken from f */
#define VT v8
#define VW 8
#define VLANES { 0, 1, 2, 3, 4, 5, 6, 7 }
#define BV(x) ((v8){ 0 } + (x))
#define UP1(x, f) __builtin_shufflevector((x), (f), 8, 0, 1, 2, 3, 4, 5, 6)
#define UP2(x, f) __builtin_shufflevector((x), (f), 8, 9, 0, 1, 2, 3, 4, 5)
#define UP4(x, f) __builtin_shufflevector((x), (f), 8, 9, 10, 11, 0, 1, 2, 3)

/* the portable instance: GCC's generic vectors (SSE2 on x86-64, NEON elsewhere) */
#define VMAX(a, b) SEL((a) > (b), (a), (b))
/* lane 0 of the horizontal maximum (log-step shuffles; a macro: a function taking a v8 would
 * change the ABI where AVX is off) */
#define v8hmax(xx) ({ v8 h_ = (xx);                                            \
    h_ = VMAX(h_, __builtin_shufflevector(h_, h_, 4, 5, 6, 7, 0, 1, 2, 3));      \
    h_ = VMAX(h_, __builtin_shufflevector(h_, h_, 2, 3, 0, 1, 6, 7, 4, 5));      \
    h_ = VMAX(h_, __builtin_shufflevector(h_, h_, 1, 0, 3, 2, 5, 4, 7, 6));      \
    h_[0]; })
#define VANY(m) (v8hmax(-(m)) > 0)
#define VLAST(m, lane) v8hmax(SEL((m), (lane), BV(-1)))
#define VFIRST(m, lane) (-v8hmax(SEL((m), -(lane), BV(-VW))))
#define BCASTL(x) __builtin_shufflevector((x), (x), 7, 7, 7, 7, 7, 7, 7, 7)
#define BCASTK(x, k) BV((x)[(k)])
#define STOREN(p, x, n) do { const VT x_ = (x); memcpy((p), &x_, (size_t)(n) * 4); } while (0)
#define PACKN(x, p, n) do { uint8_t t_[VW]; PACKV((x), t_); memcpy((p), t_, (size_t)(n)); } while (0)
#define PACKV(x, p) do { const v8b b_ = __builtin_convertvector((x), v8b); memcpy((p), &b_, sizeof b_); } while (0)
static inline __attribute__((always_inline)) int masked8(const int64_t *mk, int64_t tag)
{
    int m = 0;
    for (int k = 0; k < 8; k++) m |= mk[k] == tag;
    return m;
}
#define MASKED(mk, tag) masked8((mk), (tag))
#define ROW_FN row_blocks
#include "gapped_row_blk.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
/* the AVX2 instance (chosen at run time): one-instruction maxima, tests and lane masks */
#pragma GCC push_options
#pragma GCC target("avx2")
#define VMAX(a, b) ((v8)_mm256_max_epi32((__m256i)(a), (__m256i)(b)))
#define VANY(m) (!_mm256_testz_si256((__m256i)(m), (__m256i)(m)))
static inline int32_t v8last(v8 m)
{
    unsigned b = (unsigned)_mm256_movemask_ps((__m256)m);
    return b ? 31 - __builtin_clz(b) : -1;
}
#define VLAST(m, lane) v8last(m)
#define VFIRST(m, lane) __builtin_ctz((unsigned)_mm256_movemask_ps((__m256)(m)))
#define BCASTL(x) ((v8)_mm256_permutevar8x32_epi32((__m256i)(x), _mm256_set1_epi32(7)))
#define BCASTK(x, k) ((v8)_mm256_permutevar8x32_epi32((__m256i)(x), _mm256_set1_epi32(k)))
#define STOREN(p, x, n) _mm256_maskstore_epi32((int *)(p), (__m256i)((v8)VLANES < BV(n)), (__m256i)(x))
#define PACKN(x, p, n) do { uint8_t b_[8]; pack8_avx2((x), b_); memcpy((p), b_, (size_t)(n)); } while (0)
static inline void pack8_avx2(v8 x, uint8_t *p)
{
    const __m256i y = (__m256i)x;
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));
    _mm_storel_epi64((__m128i *)p, _mm_packus_epi16(w, w));
}
#define PACKV(x, p) pack8_avx2((x), (p))
static inline int masked8_avx2(const int64_t *mk, int64_t tag)
{
    const __m256i t = _mm256_set1_epi64x(tag);
    __m256i a = _mm256_cmpeq_epi64(_mm256_loadu_si256((const __m256i *)mk), t);
    a = _mm256_or_si256(a, _mm256_cmpeq_epi64(_mm256_loadu_si256((const __m256i *)(mk + 4)), t));
    return !_mm256_testz_si256(a, a);
}
#define MASKED(mk, tag) masked8_avx2((mk), (tag))
/* sv[0..n) = tab[qc[k]] in steps of 8 (may write 7 values past n) */
static void fill_avx2(int32_t *sv, const uint8_t *qc, const int32_t *tab, int64_t n)
{
    const __m256i lo = _mm256_loadu_si256((const __m256i *)tab), hi = _mm256_loadu_si256((const __m256i *)(tab + 8));
    for (int64_t k = 0; k < n; k += 8) {
        const __m256i i = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(qc + k)));
        const __m256i h = _mm256_slli_epi32(i, 28);          /* class >= 8: bit 3 to the sign */
        const __m256i v = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lo, i), _mm256_permutevar8x32_epi32(hi, i),
                                             _mm256_srai_epi32(h, 31));
        _mm256_storeu_si256((__m256i *)(sv + k), v);
    }
}
#define ROW_FN row_blocks_avx2
#include "gapped_row_blk.h"
#pragma GCC pop_options
#define ROW_AVX2 1

/* the 16-lane width */
#undef VT
#undef VW
#undef VLANES
#undef BV
#undef UP1
#undef UP2
#undef UP4
typedef int32_t v16 __attribute__((vector_size(64)));
#define VT v16
#define VW 16
#define VLANES { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 }
#define BV(x) ((v16){ 0 } + (x))
#define UP1(x, f) __builtin_shufflevector((x), (f), 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)
#define UP2(x, f) __builtin_shufflevector((x), (f), 16, 17, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
#define UP4(x, f) __builtin_shufflevector((x), (f), 16, 17, 18, 19, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
#define UP8(x, f) __builtin_shufflevector((x), (f), 16, 17, 18, 19, 20, 21, 22, 23, 0, 1, 2, 3, 4, 5, 6, 7)

/* the AVX-512 instance (chosen at run time): 16 columns a block, mask registers */
#pragma GCC push_options
#pragma GCC target("avx512f")
#define VMAX(a, b) ((v16)_mm512_max_epi32((__m512i)(a), (__m512i)(b)))
#define VANY(m) (_mm512_test_epi32_mask((__m512i)(m), (__m512i)(m)) != 0)
static inline int32_t v16last(v16 m)
{
    unsigned b = (unsigned)_mm512_test_epi32_mask((__m512i)m, (__m512i)m);
    return b ? 31 - __builtin_clz(b) : -1;
}
#define VLAST(m, lane) v16last(m)
#define VFIRST(m, lane) __builtin_ctz((unsigned)_mm512_test_epi32_mask((__m512i)(m), (__m512i)(m)))
#define BCASTL(x) ((v16)_mm512_permutexvar_epi32(_mm512_set1_epi32(15), (__m512i)(x)))
#define BCASTK(x, k) ((v16)_mm512_permutexvar_epi32(_mm512_set1_epi32(k), (__m512i)(x)))
#define STOREN(p, x, n) _mm512_mask_storeu_epi32((p), (__mmask16)((1u << (n)) - 1), (__m512i)(x))
#define PACKN(x, p, n) _mm512_mask_cvtepi32_storeu_epi8((p), (__mmask16)((1u << (n)) - 1), (__m512i)(x))
#define PACKV(x, p) _mm_storeu_si128((__m128i *)(p), _mm512_cvtepi32_epi8((__m512i)(x)))
static inline int masked16_avx512(const int64_t *mk, int64_t tag)
{
    const __m512i t = _mm512_set1_epi64(tag);
    return (_mm512_cmpeq_epi64_mask(_mm512_loadu_si512(mk), t) | _mm512_cmpeq_epi64_mask(_mm512_loadu_si512(mk + 8), t)) != 0;
}
#define MASKED(mk, tag) masked16_avx512((mk), (tag))
/* sv[0..n) = tab[qc[k]] in steps of 16 (may write 15 values past n) */
static void fill_avx512(int32_t *sv, const uint8_t *qc, const int32_t *tab, int64_t n)
{
    const __m512i t = _mm512_loadu_si512(tab);
    for (int64_t k = 0; k < n; k += 16)
        _mm512_storeu_si512(sv + k, _mm512_permutexvar_epi32(_mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(qc + k))), t));
}
#define ROW_FN row_blocks_avx512
#include "gapped_row_blk.h"
#pragma GCC pop_options
#define ROW_AVX512 1
#endif

int hz_gapped_row_vec_ok(int32_t O, int32_t E, int32_t Y)
{
    /* a diagonal can be NEG_INF + VERY_BAD (about -2.04e9): minus O + E it must stay an int32 */
    return O >= 0 && E >= 0 && E < (1 << 16) && O < (1 << 23) && Y >= 0 && Y < (1 << 29);
}

int32_t hz_gapped_row(hz_grow *R, int64_t end)
{
    const int64_t lo = R->lo;
    rstate s = { HZ_G_NEG_INF, HZ_G_NEG_INF, R->best, -1, lo, lo };
    if (R->sv && end - lo >= 16) {
        const int64_t n = end - lo;
#ifdef ROW_AVX512
        if (!R->portable && __builtin_cpu_supports("avx512f")) {
            if (R->qc) fill_avx512(R->sv, R->qc, R->tab, n); else fill_bytes(R, n);
            row_blocks_avx512(R, &s, lo, end, R->sv);
        } else
#endif
#ifdef ROW_AVX2
        if (R->portable != 1 && __builtin_cpu_supports("avx2")) {
            if (R->qc) fill_avx2(R->sv, R->qc, R->tab, n); else fill_bytes(R, n);
            row_blocks_avx2(R, &s, lo, end, R->sv);
        } else
#endif
        {
            if (R->qc) for (int64_t k = 0; k < n; k++) R->sv[k] = R->tab[R->qc[k]];
            else fill_bytes(R, n);
            row_blocks(R, &s, lo, end, R->sv);
        }
    } else row_scalar(R, &s, lo, end);
    R->best = s.best; R->bc = s.bc; R->LY = s.LY; R->kept = s.kept;
    return s.i;
}
