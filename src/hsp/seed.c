/* seed — shapes, target seed table, query seeds (spec §3). */
#include "seed.h"
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>

const uint8_t hz_seed_code[256] = {
    [0 ... 255] = 4, ['A'] = 0, ['C'] = 1, ['G'] = 2, ['T'] = 3,
};

int hz_shape_parse(const char *seed, int transition, hz_shape *sh, char *err, size_t errlen)
{
    const char *pat = seed;
    memset(sh, 0, sizeof *sh);
    if (strcmp(seed, "12of19") == 0) pat = "TTT0T00TT00T0T0TTTT";
    else if (strcmp(seed, "14of22") == 0) pat = "TTT0T0TT00TT00T0T0TTTT";
    size_t n = strlen(pat);
    if (n < 1 || n > HZ_SEED_MAX_SPAN) {
        snprintf(err, errlen, "seed pattern '%s': span %zu is outside 1..%d", seed, n, HZ_SEED_MAX_SPAN);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        char c = pat[i];
        if (c == '1' || c == 'T') {
            sh->pattern[i] = 'T';
            sh->care[sh->weight++] = (int)i;
        } else if (c == '0') {
            sh->pattern[i] = '0';
        } else {
            snprintf(err, errlen, "seed pattern '%s': character '%c' at %zu is not 1, T or 0 "
                     "(or use 12of19 / 14of22)", seed, c, i + 1);
            return -1;
        }
    }
    sh->pattern[n] = 0;
    sh->span = (int)n;
    if (sh->weight < HZ_SEED_MIN_WEIGHT || sh->weight > HZ_SEED_MAX_WEIGHT) {
        snprintf(err, errlen, "seed pattern '%s' (normalised %s): weight %d is outside %d..%d",
                 seed, sh->pattern, sh->weight, HZ_SEED_MIN_WEIGHT, HZ_SEED_MAX_WEIGHT);
        return -1;
    }
    sh->transition = transition;
    return 0;
}

static inline uint32_t kmer_unchecked(const uint8_t *S, uint32_t p, const hz_shape *sh)
{
    uint32_t v = 0;
    for (int i = 0; i < sh->weight; i++) v = (v << 2) | hz_seed_code[S[p + sh->care[i]]];
    return v;
}

int64_t hz_kmer_at(const uint8_t *S, uint32_t p, const hz_shape *sh)
{
    for (int i = 0; i < sh->span; i++)
        if (hz_seed_code[S[p + i]] > 3) return -1;
    return kmer_unchecked(S, p, sh);
}

/* Walk windows of S in ascending p; valid iff no invalid byte in [p, p+W).  next_bad is the
 * first invalid byte index >= p (or >= limit). */
typedef struct { const uint8_t *S; uint64_t next_bad, limit; uint32_t W; } win_walker;

static inline int window_valid(win_walker *w, uint64_t p)
{
    if (w->next_bad < p) {
        uint64_t i = p;
        while (i < w->limit && hz_seed_code[w->S[i]] <= 3) i++;
        w->next_bad = i;
    }
    if (w->next_bad >= p + w->W) return 1;
    return 0;
}

static inline void walker_init(win_walker *w, uint64_t p0)
{
    uint64_t i = p0;
    while (i < w->limit && hz_seed_code[w->S[i]] <= 3) i++;
    w->next_bad = i;
}

/* n bytes, not zeroed, for an array written at random places, on 2 MiB pages where the kernel
 * has them (THP "madvise" mode): the direct table's counts and positions miss the TLB on nearly
 * every access on 4 KiB pages.  free() releases it; NULL when out of memory. */
static void *table_alloc(size_t n)
{
    void *p = NULL;
    if (n < (4u << 20)) return malloc(n ? n : 1);
    if (posix_memalign(&p, 2u << 20, n)) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, n, MADV_HUGEPAGE);   /* advice only: without it the array works the same */
#endif
    return p;
}

/* ---- the direct table in parts: part t counts and places the positions of steps [i0, i1) */

typedef struct st_part {
    const uint8_t *T; uint32_t L, W, step; const hz_shape *sh;
    uint64_t start_offset, i0, i1;
    uint32_t *cnt;            /* 4^K: this part's count per bucket, then where it writes next */
    uint64_t b0, b1;          /* buckets this part sums and places (phases 2 and 3) */
    int nparts; struct st_part *all;
    hz_seedtable *tab;
} st_part;

/* Seed windows come in batches of PART_BATCH valid positions and their k-mers; a batch's
 * counters are prefetched while the previous batch is applied, so the random accesses into the
 * 4^K counts (64 MiB at K = 12) and the positions overlap instead of waiting one by one. */
enum { PART_BATCH = 64 };
typedef struct { uint32_t km[PART_BATCH], ps[PART_BATCH]; int n; } part_batch;

static void batch_next(const st_part *a, win_walker *w, uint64_t *i, part_batch *b)
{
    b->n = 0;
    for (; *i < a->i1 && b->n < PART_BATCH; (*i)++) {
        uint64_t p = a->start_offset + *i * a->step;
        if (!window_valid(w, p)) continue;
        b->km[b->n] = kmer_unchecked(a->T, (uint32_t)p, a->sh);
        b->ps[b->n++] = (uint32_t)p;
    }
    for (int j = 0; j < b->n; j++) __builtin_prefetch(&a->cnt[b->km[j]], 1);
}

/* phase 1: the part's count per bucket; place = 0.  Phase 4 (place = 1): each position written
 * at its bucket's next slot for this part (cnt holds those slots then) */
static void part_walk(st_part *a, int place)
{
    win_walker w = { a->T, 0, a->L, a->W };
    walker_init(&w, a->start_offset + a->i0 * a->step);
    uint64_t i = a->i0;
    part_batch bt[2];
    uint32_t slot[PART_BATCH];
    batch_next(a, &w, &i, &bt[0]);
    for (int k = 0; bt[k].n; k ^= 1) {
        batch_next(a, &w, &i, &bt[k ^ 1]);
        part_batch *b = &bt[k];
        if (!place) { for (int j = 0; j < b->n; j++) a->cnt[b->km[j]]++; continue; }
        for (int j = 0; j < b->n; j++) { slot[j] = a->cnt[b->km[j]]++; __builtin_prefetch(&a->tab->pos[slot[j]], 1); }
        for (int j = 0; j < b->n; j++) a->tab->pos[slot[j]] = b->ps[j];
    }
}

static void *part_count(void *arg)   /* the counts zeroed here, on the part's own thread */
{
    st_part *a = arg;
    memset(a->cnt, 0, (size_t)(1ULL << (2 * a->sh->weight)) * sizeof *a->cnt);
    part_walk(a, 0);
    return NULL;
}
static void *part_place(void *arg) { part_walk(arg, 1); return NULL; }

static void *part_sum(void *arg)   /* bucket sizes over all parts, into bucket_off[b + 1] */
{
    st_part *a = arg, *all = a->all;
    for (uint64_t b = a->b0; b < a->b1; b++) {
        uint32_t n = 0;
        for (int t = 0; t < a->nparts; t++) n += all[t].cnt[b];
        a->tab->bucket_off[b + 1] = n;
    }
    return NULL;
}

static void *part_offsets(void *arg)   /* part t's first slot in bucket b: after parts < t */
{
    st_part *a = arg, *all = a->all;
    for (uint64_t b = a->b0; b < a->b1; b++) {
        uint32_t at = a->tab->bucket_off[b];
        for (int t = 0; t < a->nparts; t++) { uint32_t n = all[t].cnt[b]; all[t].cnt[b] = at; at += n; }
    }
    return NULL;
}

/* run fn on every part, part 0 on this thread; -1 when a thread cannot start */
static int parts_run(st_part *pt, int n, void *(*fn)(void *))
{
    pthread_t th[HZ_SEEDTABLE_MAX_PARTS];
    int started = 0, rc = 0;
    for (int t = 1; t < n; t++) {
        if (pthread_create(&th[t], NULL, fn, &pt[t])) { rc = -1; break; }
        started = t;
    }
    if (!rc) fn(&pt[0]);
    for (int t = 1; t <= started; t++) pthread_join(th[t], NULL);
    return rc;
}

/* The direct table (K <= 13) from nparts parts of the position range, part t on its own
 * thread: each part counts its positions per bucket, the parts' counts give each part its first
 * slot in every bucket (parts in position order, so a bucket still holds ascending positions:
 * hspZ's order, seed.h, which the device table and the index match; spec §3.3 leaves it open),
 * and each part writes its positions there.  0; -1 out of memory with one part; 1 with more
 * parts, out of memory or a thread that could not start (nothing kept: try one part). */
static int build_direct_parts(hz_seedtable *tab, const uint8_t *T, uint32_t L, const hz_shape *sh,
                              uint32_t step, uint64_t start_offset, uint64_t num_steps, int nparts)
{
    uint64_t nb = 1ULL << (2 * sh->weight);
    st_part pt[HZ_SEEDTABLE_MAX_PARTS];
    int n = 0, rc = -1;
    memset(pt, 0, sizeof pt);
    for (; n < nparts; n++) {
        pt[n] = (st_part){ T, L, (uint32_t)sh->span, step, sh, start_offset, num_steps * n / nparts,
                           num_steps * (n + 1) / nparts, table_alloc(nb * sizeof(uint32_t)), nb * n / nparts,
                           nb * (n + 1) / nparts, nparts, pt, tab };
        if (!pt[n].cnt) { rc = nparts > 1 ? 1 : -1; goto out; }
    }
    tab->bucket_off = table_alloc((nb + 1) * sizeof *tab->bucket_off);   /* part_sum writes [1, nb] */
    if (!tab->bucket_off) { rc = nparts > 1 ? 1 : -1; goto out; }
    tab->bucket_off[0] = 0;
    if (parts_run(pt, n, part_count) || parts_run(pt, n, part_sum)) { rc = 1; goto out; }
    for (uint64_t b = 0; b < nb; b++) tab->bucket_off[b + 1] += tab->bucket_off[b];
    tab->n_pos = tab->bucket_off[nb];
    tab->pos = table_alloc(tab->n_pos * sizeof *tab->pos);
    if (!tab->pos) { rc = nparts > 1 ? 1 : -1; goto out; }
    if (parts_run(pt, n, part_offsets) || parts_run(pt, n, part_place)) { rc = 1; goto out; }
    rc = 0;
out:
    for (int t = 0; t < n; t++) free(pt[t].cnt);
    if (rc) { free(tab->bucket_off); free(tab->pos); tab->bucket_off = NULL; tab->pos = NULL; tab->n_pos = 0; }
    return rc;
}

int hz_seedtable_build(hz_seedtable *tab, const uint8_t *T, uint32_t L, const hz_shape *sh, uint32_t step)
{
    return hz_seedtable_build_mt(tab, T, L, sh, step, 1);
}

int hz_seedtable_build_mt(hz_seedtable *tab, const uint8_t *T, uint32_t L, const hz_shape *sh, uint32_t step,
                          int parts)
{
    memset(tab, 0, sizeof *tab);
    tab->weight = sh->weight;
    uint32_t W = (uint32_t)sh->span;
    uint64_t num_steps = 0, start_offset = 0;
    if (L >= W) {
        uint32_t offset = (W + 1) % step;
        start_offset = step - offset;
        num_steps = ((uint64_t)L - W + offset) / step;
    }
    int direct = sh->weight <= 13;
    if (parts < 1) parts = 1;
    if (parts > HZ_SEEDTABLE_MAX_PARTS) parts = HZ_SEEDTABLE_MAX_PARTS;
    if ((uint64_t)parts > num_steps) parts = num_steps ? (int)num_steps : 1;
    if (direct) {   /* parts' memory or a thread not to be had: one part on this thread */
        int rc = build_direct_parts(tab, T, L, sh, step, start_offset, num_steps, parts);
        return rc == 1 ? build_direct_parts(tab, T, L, sh, step, start_offset, num_steps, 1) : rc;
    }
    /* sorted mode (K > 13): (kmer << 32 | pos) for every valid position, radix-sorted */
    win_walker w = { T, 0, L, W };
    walker_init(&w, start_offset);
    uint64_t cap = 1024, n = 0;
    tab->sorted = malloc(cap * sizeof *tab->sorted);
    if (!tab->sorted) return -1;
    for (uint64_t i = 0; i < num_steps; i++) {
        uint64_t p = start_offset + i * step;
        if (!window_valid(&w, p)) continue;
        if (n == cap) {
            uint64_t *t2 = realloc(tab->sorted, 2 * cap * sizeof *t2);
            if (!t2) { hz_seedtable_free(tab); return -1; }
            tab->sorted = t2; cap *= 2;
        }
        tab->sorted[n++] = ((uint64_t)kmer_unchecked(T, (uint32_t)p, sh) << 32) | p;
    }
    /* radix sort by the 64-bit key (positions are already ascending, so stable is fine) */
    uint64_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!tmp) { hz_seedtable_free(tab); return -1; }
    for (int shift = 32; shift < 64; shift += 8) {
        uint64_t cnt[257] = {0};
        for (uint64_t i = 0; i < n; i++) cnt[((tab->sorted[i] >> shift) & 255) + 1]++;
        for (int b = 0; b < 256; b++) cnt[b + 1] += cnt[b];
        for (uint64_t i = 0; i < n; i++) tmp[cnt[(tab->sorted[i] >> shift) & 255]++] = tab->sorted[i];
        uint64_t *x = tab->sorted; tab->sorted = tmp; tmp = x;
    }
    free(tmp);
    tab->n_pos = n;
    return 0;
}

void hz_seedtable_free(hz_seedtable *tab)
{
    free(tab->bucket_off);
    free(tab->pos);
    free(tab->sorted);
    memset(tab, 0, sizeof *tab);
}

int64_t hz_seeds_chunk(const uint8_t *S, uint32_t j0, uint32_t j1, const hz_shape *sh,
                       hz_seed **out, size_t *cap)
{
    size_t per = 1 + (sh->transition ? (size_t)sh->weight : 0);
    size_t need = (size_t)(j1 > j0 ? j1 - j0 : 0) * per;
    if (need > *cap) {
        hz_seed *t = realloc(*out, need * sizeof *t);
        if (!t) return -1;
        *out = t; *cap = need;
    }
    hz_seed *o = *out;
    int64_t n = 0;
    win_walker w = { S, 0, (uint64_t)j1 - 1 + (uint64_t)sh->span, (uint32_t)sh->span };
    walker_init(&w, j0);
    for (uint32_t j = j0; j < j1; j++) {
        if (!window_valid(&w, j)) continue;
        uint32_t v = kmer_unchecked(S, j, sh);
        o[n].kmer = v; o[n].qpos = j; n++;
        if (sh->transition)
            for (int t = 0; t < sh->weight; t++) {
                o[n].kmer = v ^ (2u << (2 * t)); o[n].qpos = j; n++;
            }
    }
    return n;
}

int hz_seedtable_parts(uint32_t L, int threads)
{
    int n = (int)(L >> 23);
    if (n > threads) n = threads;
    if (n > HZ_SEEDTABLE_MAX_PARTS) n = HZ_SEEDTABLE_MAX_PARTS;
    return n < 1 ? 1 : n;
}
