/* fuzz_chunk — differential fuzz test of one seeding chunk: hz_chunk_cpu against every CUDA
 * CUDA backend variant (HSPZ_GATE, HSPZ_GATE_KERNEL, HSPZ_REF_BUCKETS, HSPZ_GPU_TILE; see var_*), and
 * (--cpu-only, or --with-ref) hz_chunk_cpu against a brute-force reference written here from
 * kegalign-hsp-spec.md §3.1-3.4, §4.2-4.5, §5.2-5.3 and RULES.md (0.3.x).
 *
 *   fuzz_chunk [--iters N] [--seed S] [--cpu-only] [--with-ref] [-v]
 *
 * Case i uses seed S+i; a failing case prints its seed and replays with --seed S --iters 1.
 * Exit 0 all equal, 1 any failure, 77 no CUDA device (GPU mode), 2 usage or setup error.
 */
#include "backend.h"
#include "chunk.h"
#include "seed.h"
#include "plan.h"
#include "scoring.h"
#include "options.h"
#include "xdrop.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- rng */
typedef struct { uint64_t s; } rng_t;
static uint64_t rn(rng_t *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static uint32_t ru(rng_t *r, uint32_t n) { return n ? (uint32_t)(rn(r) % n) : 0; }
static uint32_t rr(rng_t *r, uint32_t lo, uint32_t hi) { return lo + ru(r, hi - lo + 1); }  /* [lo,hi] */

/* ---------------------------------------------------------------- byte buffers */
typedef struct { uint8_t *b; size_t n, cap; } buf_t;
static void put(buf_t *x, uint8_t c)
{
    if (x->n == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 4096;
        x->b = realloc(x->b, x->cap);
        if (!x->b) { fprintf(stderr, "out of memory\n"); exit(2); }
    }
    x->b[x->n++] = c;
}
static const char ACGT[] = "ACGT", acgt[] = "acgt";
static const char JUNK[] = "RYMKSWBDHVUXryk-5*.";
static uint8_t comp(uint8_t c)
{
    switch (c) {
    case 'A': return 'T'; case 'C': return 'G'; case 'G': return 'C'; case 'T': return 'A';
    case 'a': return 't'; case 'c': return 'g'; case 'g': return 'c'; case 't': return 'a';
    default: return c;
    }
}

/* a length: mostly small, sometimes large */
static uint32_t pick_len(rng_t *r, int cpu_only)
{
    uint32_t k = ru(r, 100);
    if (k < 10) return ru(r, 41);
    if (k < 60) return rr(r, 41, 3000);
    if (k < 88) return rr(r, 3001, cpu_only ? 12000 : 20000);
    if (k < 98 || cpu_only) return rr(r, 20001, cpu_only ? 30000 : 50000);
    return 200000;
}

static void add_random(rng_t *r, buf_t *x, uint32_t n) { while (n--) put(x, (uint8_t)ACGT[ru(r, 4)]); }

static void add_repeat(rng_t *r, buf_t *x, uint32_t maxlen)
{
    uint32_t per = ru(r, 3) == 0 ? 1 : rr(r, 1, 8);
    char unit[8];
    for (uint32_t i = 0; i < per; i++) unit[i] = ACGT[ru(r, 4)];
    if (per == 1 && ru(r, 2)) unit[0] = 'A';              /* poly-A */
    uint32_t n = rr(r, 2, maxlen);
    int lower = ru(r, 8) == 0;
    for (uint32_t i = 0; i < n; i++) put(x, (uint8_t)(lower ? unit[i % per] | 0x20 : unit[i % per]));
}

/* a tandem array: copies of one unit of 5..300 bases, each with up to 15 % substitutions
 * (long HSPs on many diagonals: the diagonal path, its pieces and the batch collapse) */
static void add_tandem(rng_t *r, buf_t *x, uint32_t maxlen)
{
    uint32_t per = rr(r, 5, 300), div_pm = rr(r, 0, 150), n = rr(r, per, maxlen);
    uint8_t unit[300];
    for (uint32_t i = 0; i < per; i++) unit[i] = (uint8_t)ACGT[ru(r, 4)];
    for (uint32_t i = 0; i < n; i++) put(x, ru(r, 1000) < div_pm ? (uint8_t)ACGT[ru(r, 4)] : unit[i % per]);
}

/* a copy of src[s, s+n) (forward or reverse complement) with substitutions and short indels */
static void add_mutated_copy(rng_t *r, buf_t *x, const uint8_t *src, size_t srclen, uint32_t maxn)
{
    if (srclen < 2) { add_random(r, x, rr(r, 1, 50)); return; }
    uint32_t n = rr(r, 1, srclen < maxn ? (uint32_t)srclen : maxn);
    size_t s = ru(r, (uint32_t)(srclen - n + 1));
    int rc = ru(r, 10) < 3;
    uint32_t sub_pm = ru(r, 4) == 0 ? 0 : rr(r, 0, 150);      /* per mille */
    uint32_t indel_pm = ru(r, 3) == 0 ? 0 : rr(r, 0, 12);
    uint32_t lower_pm = ru(r, 6) == 0 ? rr(r, 0, 40) : 0;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t c = rc ? comp(src[s + n - 1 - i]) : src[s + i];
        if (ru(r, 1000) < indel_pm) {
            if (ru(r, 2)) continue;                           /* deletion */
            uint32_t k = rr(r, 1, 4);
            while (k--) put(x, (uint8_t)ACGT[ru(r, 4)]);       /* insertion */
        }
        if (ru(r, 1000) < sub_pm) c = (uint8_t)ACGT[ru(r, 4)];
        if (ru(r, 1000) < lower_pm && c >= 'A' && c <= 'Z') c |= 0x20;
        put(x, c);
    }
}

/* the common piece kinds; returns 0 when it did nothing */
static void add_piece(rng_t *r, buf_t *x, const uint8_t *src, size_t srclen, int cpu_only, int is_query)
{
    uint32_t k = ru(r, 100);
    uint32_t maxcopy = cpu_only ? 2500 : 8000;
    if (is_query && k < 45) { add_mutated_copy(r, x, src, srclen, maxcopy); return; }
    if (!is_query && k < 8) { add_mutated_copy(r, x, x->b, x->n, maxcopy / 2); return; }
    k = ru(r, 100);
    if (k < 40) add_random(r, x, rr(r, 1, 2000));
    else if (k < 50) add_repeat(r, x, cpu_only ? 300 : 600);
    else if (k < 55) add_tandem(r, x, cpu_only ? 1500 : 4000);
    else if (k < 62) { uint32_t n = rr(r, 1, 100); uint8_t c = ru(r, 4) ? 'N' : 'n'; while (n--) put(x, c); }
    else if (k < 70) {
        if (srclen > 10 && ru(r, 2)) {                        /* lower-case copy */
            size_t before = x->n;
            add_mutated_copy(r, x, src, srclen, 800);
            for (size_t i = before; i < x->n; i++) if (x->b[i] >= 'A' && x->b[i] <= 'Z') x->b[i] |= 0x20;
        } else { uint32_t n = rr(r, 1, 500); while (n--) put(x, (uint8_t)acgt[ru(r, 4)]); }
    }
    else if (k < 78) { uint32_t n = rr(r, 1, 5); while (n--) put(x, (uint8_t)JUNK[ru(r, sizeof JUNK - 1)]); }
    else if (k < 86) put(x, '&');
    else if (k < 93) { put(x, '&'); add_random(r, x, rr(r, 1, 25)); put(x, '&'); }
    else add_random(r, x, rr(r, 1, 60));
}

static void gen_block(rng_t *r, buf_t *x, uint32_t want, const uint8_t *src, size_t srclen, int cpu_only, int is_query)
{
    x->n = 0;
    while (x->n < want) add_piece(r, x, src, srclen, cpu_only, is_query);
    x->n = want;
    if (!x->b) put(x, 0), x->n = 0;
}


/* ---------------------------------------------------------------- brute-force reference */
typedef struct { int W, K; int care[HZ_SEED_MAX_SPAN]; } ref_shape;

static int64_t ref_kmer(const uint8_t *S, uint32_t p, const ref_shape *sh)
{
    for (int i = 0; i < sh->W; i++) {
        uint8_t b = S[p + i];
        if (b != 'A' && b != 'C' && b != 'G' && b != 'T') return -1;
    }
    uint32_t v = 0;
    for (int i = 0; i < sh->K; i++) {
        uint8_t b = S[p + sh->care[i]];
        v = (v << 2) + (b == 'A' ? 0u : b == 'C' ? 1u : b == 'G' ? 2u : 3u);
    }
    return v;
}

typedef struct { uint64_t *e; size_t n; } ref_table;   /* (kmer << 32) | pos, ascending */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
static void ref_table_build(ref_table *t, const uint8_t *T, uint32_t L, const ref_shape *sh, uint32_t step)
{
    t->n = 0; t->e = malloc(((size_t)L + 1) * sizeof *t->e);
    if ((uint32_t)sh->W > L) return;
    uint32_t offset = ((uint32_t)sh->W + 1) % step, so = step - offset;
    for (uint32_t p = so; p + (uint32_t)sh->W <= L; p += step) {
        int64_t v = ref_kmer(T, p, sh);
        if (v >= 0) t->e[t->n++] = ((uint64_t)v << 32) | p;
    }
    qsort(t->e, t->n, sizeof *t->e, cmp_u64);
}
static size_t ref_bucket(const ref_table *t, uint32_t v, size_t *n)
{
    uint64_t key = (uint64_t)v << 32;
    size_t lo = 0, hi = t->n;
    while (lo < hi) { size_t m = (lo + hi) / 2; if (t->e[m] < key) lo = m + 1; else hi = m; }
    size_t a = lo;
    while (lo < t->n && (t->e[lo] >> 32) == v) lo++;
    *n = lo - a;
    return a;
}

static size_t ref_seeds(const uint8_t *S, uint32_t j0, uint32_t j1, const ref_shape *sh, int transition, hz_seed *out)
{
    size_t n = 0;
    for (uint32_t j = j0; j < j1; j++) {
        int64_t v = ref_kmer(S, j, sh);
        if (v < 0) continue;
        out[n].kmer = (uint32_t)v; out[n].qpos = j; n++;
        if (transition)
            for (int t = 0; t < sh->K; t++) { out[n].kmer = (uint32_t)v ^ (2u << (2 * t)); out[n].qpos = j; n++; }
    }
    return n;
}

typedef struct { int32_t sub[64]; int32_t xdrop, K; int entropy; } ref_par;

/* a case's extension parameters (scoring.h hz_xparams_build, as a run makes them) and the
 * reference's copy of them; 0, or -1 with err */
static int case_params(const char *amb, int32_t xdrop, int32_t K, int entropy, hz_xparams *xp, ref_par *rp,
                       char *err, size_t errlen)
{
    if (hz_xparams_build(xp, NULL, amb, xdrop, K, entropy, err, errlen)) return -1;
    memcpy(rp->sub, xp->sub, sizeof rp->sub);
    rp->xdrop = xdrop; rp->K = K; rp->entropy = entropy;
    return 0;
}

/* spec §4.2 plain loops, RULES "entropy counting", §4.5 keep test; libm log + fma */
static int ref_extend(const uint8_t *R, uint32_t Rlen, const uint8_t *Q, uint32_t Qlen,
                      uint32_t ar, uint32_t aq, const ref_par *P, hz_hsp *out)
{
    int32_t S = 0, best = 0, bp = -1;
    for (uint64_t p = 0;; p++) {
        if (ar + p >= Rlen || aq + p >= Qlen) break;
        S += P->sub[R[ar + p] * 8 + Q[aq + p]];
        if (S > best) { best = S; bp = (int32_t)p; }
        if (best - S > P->xdrop) break;
    }
    int32_t rscore = best, rext = bp;
    S = 0; best = 0; bp = 0;
    for (uint64_t p = 1;; p++) {
        if (p > ar || p > aq) break;
        S += P->sub[R[ar - p] * 8 + Q[aq - p]];
        if (S > best) { best = S; bp = (int32_t)p; }
        if (best - S > P->xdrop) break;
    }
    int32_t total = rscore + best, extent = rext + bp;
    uint32_t rs = ar - (uint32_t)bp, qs = aq - (uint32_t)bp;
    double ent = 1.0;
    if (P->entropy && total >= P->K && (int64_t)total <= 3 * (int64_t)P->K) {
        int c[4] = {0, 0, 0, 0};
        for (int64_t p = 0; p <= extent; p++) {
            uint8_t a = R[rs + p], b = Q[qs + p];
            if (a == b && a < 4) c[a]++;
        }
        for (int i = 0; i < 4; i++) if (c[i] > 32767) return 0;
        if (c[0] + c[1] + c[2] + c[3] >= 20) {
            double n = (double)(extent + 1), e = 0.0;
            for (int i = 0; i < 4; i++) {
                double a = (double)c[i] / n;
                double l = c[i] != 0 ? log((double)c[i] / n) : 0.0;
                e = fma(a, l, e);
            }
            ent = -e / 1.38629436492919921875;
        }
    }
    if ((int)((double)(float)total * ent) < P->K) return 0;
    out->rs = rs; out->qs = qs; out->len = (uint32_t)extent;
    out->score = ent > 0 ? (int32_t)((double)total * ent) : 0;
    return 1;
}

static int ref_cmp_diag(const void *pa, const void *pb)
{
    const hz_hsp *a = pa, *b = pb;
    uint32_t da = a->rs - a->qs, db = b->rs - b->qs;
    if (da != db) return da < db ? -1 : 1;
    if (a->rs != b->rs) return a->rs < b->rs ? -1 : 1;
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    return 0;
}
static int ref_cmp_lastz(const void *pa, const void *pb)
{
    const hz_hsp *a = pa, *b = pb;
    if (a->qs != b->qs) return a->qs < b->qs ? -1 : 1;
    if (a->rs != b->rs) return a->rs < b->rs ? -1 : 1;
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    return 0;
}
static int ref_equal(const hz_hsp *x, const hz_hsp *y)   /* hspEqual, all uint32 */
{
    if ((uint32_t)(x->rs - x->qs) != (uint32_t)(y->rs - y->qs)) return 0;
    uint32_t xe = x->rs + x->len, ye = y->rs + y->len;
    return (x->rs >= y->rs && xe <= ye) || (y->rs >= x->rs && ye <= xe);
}

typedef struct { uint64_t anchors, accepted; } ref_count;

/* the whole chunk: batches (§5.2 with RULES MAX_HITS), anchors
 * (§3.4), extension, per-batch sort / unique with the predecessor / sort (§5.3) */
static void ref_chunk(const uint8_t *R, uint32_t Rlen, const ref_table *tab, uint32_t W,
                      const hz_seed *seeds, size_t ns, const uint8_t *Q, uint32_t Qlen,
                      const ref_par *P, uint64_t H, hz_hspvec *out, ref_count *cnt)
{
    if (ns == 0) return;
    uint64_t *pref = malloc(ns * sizeof *pref), acc = 0;
    size_t *bst = malloc(ns * sizeof *bst);
    for (size_t i = 0; i < ns; i++) { size_t n; bst[i] = ref_bucket(tab, seeds[i].kmer, &n); acc += n; pref[i] = acc; }
    uint64_t num_hits = pref[ns - 1];
    /* spec §5.2 literally: p = lower_bound(pref, limit) - 1 may repeat the previous end (an
     * empty batch; then every later batch is empty too and the last one takes the rest) or be
     * -1 (KegAlign reads pref[-1]; taken as 0 here, as hspZ does) */
    long long *lim = malloc((ns + 2) * sizeof *lim);
    size_t nl = 0;
    if (H == 0 || num_hits < H) lim[nl++] = (long long)ns - 1;
    else {
        uint64_t num_iter = num_hits / H + 1, limit = H;
        for (uint64_t it = 0; it + 1 < num_iter; it++) {
            size_t lo = 0, hi = ns;
            while (lo < hi) { size_t m = (lo + hi) / 2; if (pref[m] < limit) lo = m + 1; else hi = m; }
            long long p = (long long)lo - 1;
            if (nl && p == lim[nl - 1]) break;      /* fixed point: only empty batches follow */
            lim[nl++] = p;
            limit = (p >= 0 ? pref[p] : 0) + H;
        }
        lim[nl++] = (long long)ns - 1;
    }
    hz_hsp *batch = NULL; size_t bcap = 0;
    long long s0 = 0;
    for (size_t b = 0; b < nl; b++) {
        size_t nb = 0;
        for (long long si = s0; si <= lim[b]; si++) {
            uint64_t n = pref[si] - (si ? pref[si - 1] : 0);
            for (uint64_t k = 0; k < n; k++) {
                uint32_t p = (uint32_t)tab->e[bst[si] + k];
                cnt->anchors++;
                if (nb == bcap) { bcap = bcap ? 2 * bcap : 1024; batch = realloc(batch, bcap * sizeof *batch); }
                if (ref_extend(R, Rlen, Q, Qlen, p + W, seeds[si].qpos + W, P, &batch[nb])) nb++;
            }
        }
        cnt->accepted += nb;
        if (s0 <= lim[b]) s0 = lim[b] + 1;
        if (!nb) continue;
        qsort(batch, nb, sizeof *batch, ref_cmp_diag);
        hz_hsp *u = malloc(nb * sizeof *u);
        size_t k = 0;
        for (size_t i = 0; i < nb; i++)
            if (i == 0 || !ref_equal(&batch[i - 1], &batch[i])) u[k++] = batch[i];
        qsort(u, k, sizeof *u, ref_cmp_lastz);
        hz_hspvec_reserve(out, k);
        memcpy(out->v + out->n, u, k * sizeof *u);
        out->n += k;
        free(u);
    }
    free(batch); free(pref); free(bst); free(lim);
}

/* ---------------------------------------------------------------- comparison */
static long g_fail;
static uint64_t g_chunks, g_hsps;

static int compare_vec(const char *what, uint64_t cseed, int ci, const hz_hspvec *want, const hz_hspvec *got)
{
    size_t n = want->n < got->n ? want->n : got->n, i = 0;
    while (i < n && memcmp(&want->v[i], &got->v[i], sizeof(hz_hsp)) == 0) i++;
    if (i == n && want->n == got->n) return 0;
    printf("FAIL seed=%llu chunk=%d %s: %zu HSPs expected (hz_chunk_cpu%s), %zu got; first difference at %zu\n",
           (unsigned long long)cseed, ci, what, want->n, strstr(what, "ref") ? " is 'got'; ref is expected" : "",
           got->n, i);
    for (size_t j = i; j < i + 3; j++) {
        if (j < want->n) printf("   expected[%zu] rs=%u qs=%u len=%u score=%d\n", j, want->v[j].rs, want->v[j].qs, want->v[j].len, want->v[j].score);
        if (j < got->n)  printf("   got     [%zu] rs=%u qs=%u len=%u score=%d\n", j, got->v[j].rs, got->v[j].qs, got->v[j].len, got->v[j].score);
    }
    return 1;
}

/* ---------------------------------------------------------------- one case */
typedef struct {
    int cpu_only, with_ref, verbose;
} cfg_t;

/* backend variants: HSPZ_GATE x HSPZ_GATE_KERNEL x HSPZ_REF_BUCKETS x HSPZ_GPU_TILE (forced tiny
 * physical capacity; tiny tiles also make the device collapse run, cuda/hsp/backend.cu bat_tidy)
 * x HSPZ_DEVICE_LONG x HSPZ_DEVICE_DEDUP; host seeds (be->chunk) and device seeds
 * (be->chunk_range) both run */
#define NVAR 20
static const char *var_gate[NVAR] = { "score", "score", "score", "score", "full", "full", "full", "full",
                                      "score", "score", "score", "score", "score", "score", "full",
                                      "score", "score", "score", "score", "score" };
static const char *var_kernel[NVAR] = { "refill", "refill", "refill", "refill", "refill", "refill", "refill", "refill",
                                        "warp", "warp", "thread", "thread", "vec", "vec", "vec",
                                        "vec", "refill", "refill", "refill", "refill" };
static const char *var_buckets[NVAR] = { "off", "off", "off", "off", "off", "off", "off", "off",
                                         "off", "on", "on", "auto", "off", "off", "off",
                                         "off", "on", "off", "off", "off" };
/* diag: the device's diagonal path (default); 1: one thread an anchor, capped, rest on the host */
static const char *var_long[NVAR] = { "diag", "diag", "diag", "diag", "diag", "diag", "diag", "diag", "1", "diag", "1",
                                      "diag", "0", "diag", "1", "diag", "1", "0", "diag", "1" };
static const char *var_dedup[NVAR] = { "1", "1", "1", "1", "1", "1", "1", "1", "1", "1", "1", "1", "1", "0", "0",
                                       "1", "1", "0", "0", "1" };
static const char *var_tile[NVAR] = { NULL, "1", "7", "1000", NULL, "1", "7", "1000", NULL, "7", "1000", NULL, "7", NULL, "7",
                                      "1000", "7", "33", "7", "1000" };
static const uint64_t var_max_anchors[NVAR] = { UINT64_MAX, 4000, 30000, UINT64_MAX, UINT64_MAX, 4000, 30000, UINT64_MAX,
                                                UINT64_MAX, 30000, UINT64_MAX, UINT64_MAX, 30000, UINT64_MAX, 30000,
                                                UINT64_MAX, 30000, UINT64_MAX, 30000, UINT64_MAX };
static uint64_t g_skipped;

static int tab_equal(const hz_seedtable *a, const hz_seedtable *b)
{
    if (a->n_pos != b->n_pos || a->weight != b->weight) return 0;
    if ((a->bucket_off != NULL) != (b->bucket_off != NULL)) return 0;
    if (a->bucket_off) {
        uint64_t nb = 1ULL << (2 * a->weight);
        if (memcmp(a->bucket_off, b->bucket_off, (nb + 1) * 4)) return 0;
        return a->n_pos == 0 || memcmp(a->pos, b->pos, a->n_pos * 4) == 0;
    }
    return a->n_pos == 0 || memcmp(a->sorted, b->sorted, a->n_pos * 8) == 0;
}

static int run_case(uint64_t cseed, const cfg_t *cfg)
{
    rng_t r = { cseed * 0x2545F4914F6CDD1DULL + 12345 };
    int failed = 0;
    char err[1024] = "";

    /* parameters */
    int32_t xdrop = (int32_t)rr(&r, 200, 2000), hspthresh = (int32_t)rr(&r, 500, 5000);
    char pat[HZ_SEED_MAX_SPAN + 1];
    const char *seedname = pat;
    uint32_t ks = ru(&r, 100);
    if (ks < 25) seedname = "12of19";
    else if (ks < 35) seedname = "14of22";
    else {
        int K = ru(&r, 10) == 0 ? (int)rr(&r, 13, 15) : (int)rr(&r, 4, 12);
        int W = K + (int)ru(&r, ru(&r, 4) == 0 ? (uint32_t)(65 - K) : 12);
        if (W > HZ_SEED_MAX_SPAN) W = HZ_SEED_MAX_SPAN;
        for (int i = 0; i < W; i++) pat[i] = '0';
        for (int k = 0; k < K;) { int i = (int)ru(&r, (uint32_t)W); if (pat[i] == '0') { pat[i] = ru(&r, 2) ? '1' : 'T'; k++; } }
        pat[W] = 0;
    }
    uint32_t step = ru(&r, 2) ? 1 : rr(&r, 1, 7);
    int transition = ru(&r, 4) != 0, entropy = ru(&r, 4) != 0;
    static const char *ambs[] = { NULL, NULL, "n", "iupac", "n,5,20", "iupac,3,50" };
    const char *amb = ambs[ru(&r, 6)];
    uint64_t max_hits = ru(&r, 2) ? 0 : (uint64_t)1 << ru(&r, 13);
    if (max_hits) max_hits = rr(&r, 1, (uint32_t)max_hits);

    hz_shape sh;
    if (hz_shape_parse(seedname, transition, &sh, err, sizeof err)) {
        printf("FAIL seed=%llu: hz_shape_parse('%s'): %s\n", (unsigned long long)cseed, seedname, err);
        g_fail++; return 1;
    }
    ref_shape rsh = { sh.span, 0, {0} };
    {   /* independent parse of the pattern */
        const char *p = strcmp(seedname, "12of19") == 0 ? "TTT0T00TT00T0T0TTTT" :
                        strcmp(seedname, "14of22") == 0 ? "TTT0T0TT00TT00T0T0TTTT" : seedname;
        rsh.W = (int)strlen(p);
        for (int i = 0; p[i]; i++) if (p[i] != '0') rsh.care[rsh.K++] = i;
        if (rsh.W != sh.span || rsh.K != sh.weight || memcmp(rsh.care, sh.care, sizeof(int) * (size_t)rsh.K)) {
            printf("FAIL seed=%llu: shape of '%s' differs from hz_shape_parse\n", (unsigned long long)cseed, seedname);
            g_fail++; return 1;
        }
    }
    hz_xparams xp;
    ref_par rp;
    if (case_params(amb, xdrop, hspthresh, entropy, &xp, &rp, err, sizeof err)) {
        printf("FAIL seed=%llu: hz_xparams_build: %s\n", (unsigned long long)cseed, err);
        g_fail++; return 1;
    }

    /* data */
    buf_t T = {0}, Qb = {0};
    uint32_t Lt = pick_len(&r, cfg->cpu_only);
    gen_block(&r, &T, Lt, NULL, 0, cfg->cpu_only, 0);
    uint32_t L = ru(&r, 3) == 0 ? pick_len(&r, cfg->cpu_only) : (ru(&r, 2) ? Lt : (uint32_t)(Lt / rr(&r, 1, 8)));
    gen_block(&r, &Qb, L, T.b, T.n, cfg->cpu_only, 1);
    uint32_t W = (uint32_t)sh.span;
    if (cfg->verbose)
        printf("case seed=%llu Lt=%u Lq=%u seed=%s W=%u K=%d step=%u trans=%d ent=%d amb=%s xdrop=%d K=%d max_hits=%llu\n",
               (unsigned long long)cseed, Lt, L, seedname, W, sh.weight, step, transition, entropy,
               amb ? amb : "-", xdrop, hspthresh, (unsigned long long)max_hits);

    uint8_t *tcodes = malloc((size_t)Lt + 1), *qfc = malloc((size_t)L + 1), *qrc = malloc((size_t)L + 1),
            *qhrc = malloc((size_t)L + 1);
    hz_block_codes(T.b, Lt, tcodes, NULL, NULL);        /* the pipeline's codes (src/hsp/plan.c) */
    hz_block_codes(Qb.b, L, qfc, qrc, qhrc);
    const uint8_t *qtext[2] = { Qb.b, qhrc }, *qcode[2] = { qfc, qrc };
    uint32_t *qu = malloc(((size_t)L + 1) * sizeof *qu);   /* 'U' offsets (backend.h set_query_seeding) */
    size_t nqu = 0;
    if (!qu) { printf("setup: out of memory\n"); exit(2); }
    for (uint32_t i = 0; i < L; i++) if (Qb.b[i] == 'U') qu[nqu++] = i;

    hz_seedtable tab;
    if (hz_seedtable_build(&tab, T.b, Lt, &sh, step)) { printf("setup: out of memory (seed table)\n"); exit(2); }
    hz_target tgt = { tcodes, Lt, &tab, W, &xp, max_hits };

    ref_table rtab = {0};
    int use_ref = cfg->cpu_only || cfg->with_ref;
    if (use_ref) {
        ref_table_build(&rtab, T.b, Lt, &rsh, step);
        if (rtab.n != tab.n_pos) {
            printf("FAIL seed=%llu: seed table holds %llu positions, reference %zu\n", (unsigned long long)cseed,
                   (unsigned long long)tab.n_pos, rtab.n);
            failed = 1; g_fail++;
        }
    }

    /* chunks */
    int nch = L >= W ? (int)rr(&r, 1, 3) : 0;
    struct { int strand; uint32_t j0, j1; } ch[3];
    uint64_t budget = cfg->cpu_only || cfg->with_ref ? 150000 : 1000000;
    hz_seed *seeds = NULL; size_t scap = 0;
    for (int c = 0; c < nch; c++) {
        uint32_t E = L - W;
        ch[c].strand = (int)ru(&r, 2);
        if (ru(&r, 10) < 3) { ch[c].j0 = 0; ch[c].j1 = E + 1; }
        else { ch[c].j0 = ru(&r, E + 1); ch[c].j1 = ch[c].j0 + 1 + ru(&r, E + 1 - ch[c].j0); }
        /* keep the number of anchors in budget */
        int64_t ns = hz_seeds_chunk(qtext[ch[c].strand], ch[c].j0, ch[c].j1, &sh, &seeds, &scap);
        uint64_t acc = 0;
        for (int64_t i = 0; i < ns; i++) {
            uint64_t n; hz_seedtable_lookup(&tab, seeds[i].kmer, &n); acc += n;
            if (acc > budget) { uint32_t j = seeds[i].qpos; ch[c].j1 = j > ch[c].j0 ? j : ch[c].j0 + 1; break; }
        }
    }

    /* CPU */
    hz_scratch scr; memset(&scr, 0, sizeof scr);
    if (cseed % 3 == 1) {   /* tiny diagonal-path pieces and batch collapses: same bytes */
        scr.piece_max = 1 + (size_t)(cseed / 3 % 97);
        scr.tidy_min = 1 + (size_t)(cseed / 3 % 31);
    }
    hz_hspvec cpu[3]; hz_funnel fc[3];
    memset(cpu, 0, sizeof cpu); memset(fc, 0, sizeof fc);
    hz_seed *rseeds = NULL;
    for (int c = 0; c < nch; c++) {
        int st = ch[c].strand;
        int64_t ns = hz_seeds_chunk(qtext[st], ch[c].j0, ch[c].j1, &sh, &seeds, &scap);
        if (ns < 0) { printf("setup: out of memory (seeds)\n"); exit(2); }
        if (hz_chunk_cpu(&tgt, seeds, (size_t)ns, qcode[st], L, &cpu[c], &fc[c], &scr)) { printf("setup: hz_chunk_cpu failed\n"); exit(2); }
        g_chunks++; g_hsps += cpu[c].n;
        if (cfg->verbose)
            printf("  chunk %d strand %s [%u,%u) seeds %lld anchors %llu survivors %llu accepted %llu hsps %zu batches %llu long %llu\n",
                   c, st ? "minus" : "plus", ch[c].j0, ch[c].j1, (long long)ns, (unsigned long long)fc[c].anchors,
                   (unsigned long long)fc[c].survivors, (unsigned long long)fc[c].accepted, cpu[c].n,
                   (unsigned long long)fc[c].batches, (unsigned long long)fc[c].long_anchors);
        if (use_ref) {
            size_t per = 1 + (transition ? (size_t)sh.weight : 0);
            rseeds = realloc(rseeds, ((size_t)(ch[c].j1 - ch[c].j0) * per + 1) * sizeof *rseeds);
            size_t rns = ref_seeds(qtext[st], ch[c].j0, ch[c].j1, &rsh, transition, rseeds);
            if (rns != (size_t)ns || (rns && memcmp(rseeds, seeds, rns * sizeof *rseeds))) {
                printf("FAIL seed=%llu chunk=%d: hz_seeds_chunk gives %lld seeds, reference %zu (or different values)\n",
                       (unsigned long long)cseed, c, (long long)ns, rns);
                failed = 1; g_fail++;
            }
            hz_hspvec ref = {0}; ref_count rc = {0, 0};
            ref_chunk(tcodes, Lt, &rtab, W, rseeds, rns, qcode[st], L, &rp, max_hits, &ref, &rc);
            char what[128];
            snprintf(what, sizeof what, "ref vs hz_chunk_cpu (strand %s [%u,%u))", st ? "minus" : "plus", ch[c].j0, ch[c].j1);
            /* expected = reference, got = hz_chunk_cpu */
            if (compare_vec(what, cseed, c, &ref, &cpu[c])) { failed = 1; g_fail++; }
            else if (fc[c].anchors != rc.anchors || fc[c].accepted != rc.accepted || fc[c].after_batch != ref.n) {
                printf("FAIL seed=%llu chunk=%d: funnel anchors/accepted/after_batch %llu/%llu/%llu, reference %llu/%llu/%zu\n",
                       (unsigned long long)cseed, c, (unsigned long long)fc[c].anchors, (unsigned long long)fc[c].accepted,
                       (unsigned long long)fc[c].after_batch, (unsigned long long)rc.anchors,
                       (unsigned long long)rc.accepted, ref.n);
                failed = 1; g_fail++;
            }
            hz_hspvec_free(&ref);
        }
    }

#if HSPZ_HAVE_CUDA
    if (!cfg->cpu_only && nch > 0) {
        hz_opts o; hz_opts_default(&o); o.threads = 1; o.quiet = 1; o.device = "cuda";
        o.seed = seedname; o.transition = transition; o.step = step; o.max_hits = max_hits;
        o.xdrop = xdrop; o.hspthresh = hspthresh; o.entropy = entropy; o.ambiguous = amb;
        setenv("HSPZ_DEVICE_SEEDS", "1", 1);
        for (int v = 0; v < NVAR; v++) {
            hz_backend *be = NULL;
            setenv("HSPZ_GATE", var_gate[v], 1);
            setenv("HSPZ_GATE_KERNEL", var_kernel[v], 1);
            setenv("HSPZ_REF_BUCKETS", var_buckets[v], 1);
            setenv("HSPZ_DEVICE_LONG", var_long[v], 1);
            setenv("HSPZ_DEVICE_DEDUP", var_dedup[v], 1);
            if (var_tile[v]) setenv("HSPZ_GPU_TILE", var_tile[v], 1); else unsetenv("HSPZ_GPU_TILE");
            char vname[128];
            snprintf(vname, sizeof vname, "gate=%s kernel=%s buckets=%s long-on-device=%s dedup-on-device=%s tile=%s", var_gate[v], var_kernel[v],
                     var_buckets[v], var_long[v], var_dedup[v],
                     var_tile[v] ? var_tile[v] : "default");
            int orc = hz_cuda_backend_open(&o, &xp, &be, err, sizeof err);
            if (orc != 0) { printf("FAIL seed=%llu %s: hz_cuda_backend_open: %s\n", (unsigned long long)cseed, vname, err); failed = 1; g_fail++; continue; }
            hz_seedtable dtab, *gtab = &tab;
            memset(&dtab, 0, sizeof dtab);
            /* odd variants keep the table on the device (the pipeline's default), even ones
             * copy it to the host and compare it */
            int resident = 0;
            if ((v & 1) && be->build_table_resident) {
                resident = be->build_table_resident(be, &dtab, tcodes, Lt, &sh, step, err, sizeof err);
                if (resident < 0) {
                    printf("FAIL seed=%llu %s: build_table_resident: %s\n", (unsigned long long)cseed, vname, err);
                    failed = 1; g_fail++; be->close(be); continue;
                }
                resident = resident == 0;
                if (resident && dtab.n_pos != tab.n_pos) {
                    printf("FAIL seed=%llu %s: resident seed table has %llu positions, hz_seedtable_build %llu\n",
                           (unsigned long long)cseed, vname, (unsigned long long)dtab.n_pos, (unsigned long long)tab.n_pos);
                    failed = 1; g_fail++;
                }
                if (resident) gtab = &dtab;
            }
            if (!resident && be->build_table) {
                if (be->build_table(be, &dtab, tcodes, Lt, &sh, step, err, sizeof err)) {
                    printf("FAIL seed=%llu %s: build_table: %s\n", (unsigned long long)cseed, vname, err);
                    failed = 1; g_fail++; be->close(be); continue;
                }
                if (!tab_equal(&tab, &dtab)) {
                    printf("FAIL seed=%llu %s: device seed table differs from hz_seedtable_build (%llu vs %llu positions)\n",
                           (unsigned long long)cseed, vname, (unsigned long long)dtab.n_pos, (unsigned long long)tab.n_pos);
                    failed = 1; g_fail++;
                }
                gtab = &dtab;
            }
            hz_target gt = tgt; gt.tab = gtab;
            if (be->set_target(be, &gt, err, sizeof err) || be->set_query(be, qfc, qrc, L, err, sizeof err) ||
                (be->set_query_seeding && be->set_query_seeding(be, qu, nqu, L, err, sizeof err))) {
                printf("FAIL seed=%llu %s: set_target/set_query: %s\n", (unsigned long long)cseed, vname, err);
                failed = 1; g_fail++; hz_seedtable_free(&dtab); be->close(be); continue;
            }
            for (int c = 0; c < nch; c++) {
                int st = ch[c].strand;
                if (fc[c].anchors > var_max_anchors[v]) { g_skipped++; continue; }
                int64_t ns = hz_seeds_chunk(qtext[st], ch[c].j0, ch[c].j1, &sh, &seeds, &scap);
              for (int path = 0; path < 2; path++) {   /* 0: be->chunk (host seeds), 1: be->chunk_range (device seeds) */
                if (path == 1 && !be->chunk_range) break;
                if (path == 0 && resident) continue;   /* host seeding looks the table up on the host */
                hz_hspvec g = {0}; hz_funnel fg; memset(&fg, 0, sizeof fg);
                char what[256];
                snprintf(what, sizeof what, "CUDA %s %s (strand %s [%u,%u))", vname, path ? "chunk_range" : "chunk",
                         st ? "minus" : "plus", ch[c].j0, ch[c].j1);
                int crc = path ? be->chunk_range(be, &gt, &sh, st, ch[c].j0, ch[c].j1, L, qcode[st], &g, &fg, 0)
                               : be->chunk(be, &gt, seeds, (size_t)ns, qcode[st], st, L, &g, &fg, 0);
                if (crc) {
                    printf("FAIL seed=%llu chunk=%d %s: chunk returned an error: %s\n", (unsigned long long)cseed, c, what, be->last_error);
                    failed = 1; g_fail++; hz_hspvec_free(&g); continue;
                }
                int bad = compare_vec(what, cseed, c, &cpu[c], &g);
                int fbad = fg.anchors != fc[c].anchors || fg.accepted != fc[c].accepted ||
                           fg.after_batch != fc[c].after_batch ||
                           (!strcmp(var_gate[v], "full") && (fg.survivors != fg.anchors || fg.long_anchors != 0));
                if (!bad && fbad)
                    printf("FAIL seed=%llu chunk=%d %s: funnel anchors/survivors/accepted/after_batch/long %llu/%llu/%llu/%llu/%llu, CPU %llu/%llu/%llu/%llu/%llu\n",
                           (unsigned long long)cseed, c, what, (unsigned long long)fg.anchors, (unsigned long long)fg.survivors,
                           (unsigned long long)fg.accepted, (unsigned long long)fg.after_batch, (unsigned long long)fg.long_anchors,
                           (unsigned long long)fc[c].anchors, (unsigned long long)fc[c].survivors, (unsigned long long)fc[c].accepted,
                           (unsigned long long)fc[c].after_batch, (unsigned long long)fc[c].long_anchors);
                if (bad || fbad) { failed = 1; g_fail++; }
                g_hsps += g.n;
                hz_hspvec_free(&g);
              }
            }
            hz_seedtable_free(&dtab);
            be->close(be);
        }
    }
#endif

    if (failed)
        printf("  case seed=%llu failed: Lt=%u Lq=%u seed=%s step=%u transition=%d entropy=%d ambiguous=%s xdrop=%d hspthresh=%d max_hits=%llu"
               " -- replay: fuzz_chunk%s --seed %llu --iters 1 -v\n",
               (unsigned long long)cseed, Lt, L, seedname, step, transition, entropy, amb ? amb : "-", xdrop, hspthresh,
               (unsigned long long)max_hits, cfg->cpu_only ? " --cpu-only" : cfg->with_ref ? " --with-ref" : "",
               (unsigned long long)cseed);
    for (int c = 0; c < nch; c++) hz_hspvec_free(&cpu[c]);
    hz_scratch_free(&scr);
    hz_seedtable_free(&tab);
    free(rtab.e); free(seeds); free(rseeds);
    free(tcodes); free(qfc); free(qrc); free(qhrc); free(qu); free(T.b); free(Qb.b);
    return failed;
}

int main(int argc, char **argv)
{
    uint64_t iters = 2000, seed = 1;
    cfg_t cfg = {0, 0, 0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--cpu-only")) cfg.cpu_only = 1;
        else if (!strcmp(argv[i], "--with-ref")) cfg.with_ref = 1;
        else if (!strcmp(argv[i], "-v")) cfg.verbose = 1;
        else {
            fprintf(stderr, "usage: %s [--iters N] [--seed S] [--cpu-only] [--with-ref] [-v]\n", argv[0]);
            return 2;
        }
    }
    if (!cfg.cpu_only) {
#if HSPZ_HAVE_CUDA
        hz_opts o; hz_opts_default(&o); o.threads = 1;
        hz_xparams xp; memset(&xp, 0, sizeof xp); xp.xdrop = 910; xp.hspthresh = 3000;
        xp.gate_min_total = hz_gate_threshold(3000);
        hz_backend *be = NULL;
        char err[512] = "";
        unsetenv("HSPZ_GATE"); unsetenv("HSPZ_GPU_TILE"); unsetenv("HSPZ_GATE_KERNEL"); unsetenv("HSPZ_REF_BUCKETS"); unsetenv("HSPZ_DEVICE_LONG"); unsetenv("HSPZ_DEVICE_DEDUP");
        int rc = hz_cuda_backend_open(&o, &xp, &be, err, sizeof err);
        if (rc == 1) { printf("SKIP: no CUDA device (%s)\n", err); return 77; }
        if (rc < 0) { printf("error: hz_cuda_backend_open: %s\n", err); return 2; }
        printf("fuzz: device %s\n", be->name);
        be->close(be);
#else
        printf("SKIP: no CUDA device (built without CUDA)\n");
        return 77;
#endif
    }
    uint64_t nfailcases = 0;
    for (uint64_t it = 0; it < iters; it++) {
        if (run_case(seed + it, &cfg)) nfailcases++;
        fflush(stdout);
    }
    printf("fuzz: %llu cases, %llu chunks, %llu HSPs compared, %ld failures (%llu failing cases, %llu chunk x variant runs skipped: too many anchors for tile 1/7)%s\n",
           (unsigned long long)iters, (unsigned long long)g_chunks, (unsigned long long)g_hsps, g_fail,
           (unsigned long long)nfailcases, (unsigned long long)g_skipped, cfg.cpu_only ? " [cpu-only: hz_chunk_cpu vs brute-force reference]" : "");
    return g_fail ? 1 : 0;
}
