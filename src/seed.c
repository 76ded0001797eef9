/* seed — shapes, target seed table, query seeds (spec §3). */
#include "seed.h"
#include <stdio.h>
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

int hz_seedtable_build(hz_seedtable *tab, const uint8_t *T, uint32_t L, const hz_shape *sh, uint32_t step)
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
    win_walker w = { T, 0, L, W };
    walker_init(&w, start_offset);
    if (direct) {
        uint64_t nb = 1ULL << (2 * sh->weight);
        tab->bucket_off = calloc(nb + 1, sizeof *tab->bucket_off);
        if (!tab->bucket_off) return -1;
        uint64_t total = 0;
        for (uint64_t i = 0; i < num_steps; i++) {
            uint64_t p = start_offset + i * step;
            if (!window_valid(&w, p)) continue;
            tab->bucket_off[kmer_unchecked(T, (uint32_t)p, sh) + 1]++;
            total++;
        }
        for (uint64_t b = 0; b < nb; b++) tab->bucket_off[b + 1] += tab->bucket_off[b];
        tab->n_pos = total;
        tab->pos = malloc((total ? total : 1) * sizeof *tab->pos);
        uint32_t *fill = malloc(nb * sizeof *fill);
        if (!tab->pos || !fill) { free(fill); hz_seedtable_free(tab); return -1; }
        memcpy(fill, tab->bucket_off, nb * sizeof *fill);
        walker_init(&w, start_offset);
        for (uint64_t i = 0; i < num_steps; i++) {
            uint64_t p = start_offset + i * step;
            if (!window_valid(&w, p)) continue;
            tab->pos[fill[kmer_unchecked(T, (uint32_t)p, sh)]++] = (uint32_t)p;
        }
        free(fill);
    } else {
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
    }
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
