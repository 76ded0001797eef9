/* simulate_pair — a synthetic genome pair for hspZ's scale curve (issue 13 item 7).
 *
 *   simulate_pair SIZE_MBP SEED DIVERGENCE OUT_PREFIX [REPEATS]
 *
 * An ancestral genome of SIZE_MBP Mbp (chromosomes of at most 100 Mbp; random background at 41 %
 * GC) carries copies of 40 repeat families (consensus 300-6,000 bp, each copy 5-25 % diverged
 * from its consensus, together the fraction REPEATS of the genome, default 0.36, soft-masked:
 * lower case, as RepeatMasker output is).  Soft-masked bases are never seeded (spec §3.1), so
 * the raw anchors come from the unmasked rest and grow with the square of its length: copies
 * land at random places and overlap, about e^-REPEATS of the genome stays unmasked, and
 * measured at 100 Mbp-1 Gbp, raw anchors = 1.93e12 x (SIZE_MBP / 1000)^2 x e^(-2 REPEATS)
 * (bench/results/scale-2026-12-03.md): 0.36 gives 9.4e11 at 1 Gbp, 0.5 gives 7.1e11, 0.675
 * gives 5.0e11 (issue 13's synthetic load), and 0.9 (the most allowed) 2.85e12 at 3 Gbp; a
 * larger REPEATS means fewer anchors.  Two descendants each take DIVERGENCE/2 substitutions per base, small
 * indels (one per 20 substitutions, 1-10 bp) and rearrangements (an inversion or a move of
 * 10-500 kb per 10 Mbp), and are written as OUT_PREFIX.a.fa and OUT_PREFIX.b.fa (records
 * a_chrN / b_chrN, 80 columns).  Everything follows from SEED (xorshift64*), so one seed gives
 * the same bytes on every machine.  Not a test: a load generator for bench/device_scale.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rs;
static uint64_t rnd(void) { rs ^= rs >> 12; rs ^= rs << 25; rs ^= rs >> 27; return rs * 0x2545F4914F6CDD1DULL; }
static double unif(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }
static uint64_t below(uint64_t n) { return n ? rnd() % n : 0; }

static char base_at(void)   /* 41 % GC */
{
    uint64_t r = below(100);
    return r < 29 ? 'A' : r < 58 ? 'T' : r < 79 ? 'C' : 'G';
}

static char other(char b)
{
    static const char up[4] = { 'A', 'C', 'G', 'T' };
    char u = b & ~32, n;
    do n = up[below(4)]; while (n == u);
    return (b & 32) ? (char)(n | 32) : n;
}

/* the ancestor: background, then repeat copies pasted in, lower case */
static char *ancestor(uint64_t L, double frac)
{
    char *g = malloc(L);
    if (!g) return NULL;
    for (uint64_t i = 0; i < L; i++) g[i] = base_at();
    enum { NF = 40 };
    char *cons[NF];
    uint32_t clen[NF];
    for (int f = 0; f < NF; f++) {
        clen[f] = 300 + (uint32_t)below(5700);
        cons[f] = malloc(clen[f]);
        for (uint32_t i = 0; i < clen[f]; i++) cons[f][i] = base_at();
    }
    uint64_t covered = 0, want = (uint64_t)(frac * (double)L);
    while (covered < want) {
        int f = (int)below(NF);
        uint32_t len = clen[f] / 2 + (uint32_t)below(clen[f] / 2 + 1);   /* copies are often truncated */
        if (len > L) break;
        uint64_t at = below(L - len);
        double div = 0.05 + 0.20 * unif();
        for (uint32_t i = 0; i < len; i++) {
            char c = cons[f][i] | 32;
            g[at + i] = unif() < div ? other(c) : c;
        }
        covered += len;
    }
    for (int f = 0; f < NF; f++) free(cons[f]);
    return g;
}

/* one descendant of g[0..L): substitutions and indels at rate d, then rearrangements */
static char *descend(const char *g, uint64_t L, double d, uint64_t *outL)
{
    uint64_t cap = L + L / 8 + 1024, n = 0;
    char *s = malloc(cap);
    if (!s) return NULL;
    double pi = d / 20;
    for (uint64_t i = 0; i < L; i++) {
        double u = unif();
        if (u < pi / 2) { i += below(10); continue; }   /* deletion of 1-10 bp */
        if (u < pi) {                                  /* insertion of 1-10 bp */
            uint64_t k = 1 + below(10);
            for (uint64_t j = 0; j < k && n < cap; j++) s[n++] = (g[i] & 32) ? (char)(base_at() | 32) : base_at();
        }
        if (n >= cap) break;
        s[n++] = u >= pi && u < pi + d ? other(g[i]) : g[i];   /* a substitution where no indel happened */
    }
    uint64_t nre = n / 10000000 + 1;
    char *tmp = malloc(500001);
    for (uint64_t k = 0; tmp && k < nre; k++) {
        uint64_t len = 10000 + below(490001);
        if (len * 2 >= n) break;
        uint64_t a = below(n - len);
        if (below(2)) {   /* inversion: reverse complement in place */
            for (uint64_t i = 0, j = len - 1; i < j; i++, j--) { char t = s[a + i]; s[a + i] = s[a + j]; s[a + j] = t; }
            for (uint64_t i = 0; i < len; i++) {
                char c = s[a + i], u = c & ~32, r = u == 'A' ? 'T' : u == 'T' ? 'A' : u == 'C' ? 'G' : 'C';
                s[a + i] = (c & 32) ? (char)(r | 32) : r;
            }
        } else {          /* move the piece to another place */
            uint64_t b = below(n - len);
            memcpy(tmp, s + a, len);
            if (b > a) memmove(s + a, s + a + len, b - a); else memmove(s + b + len, s + b, a - b);
            memcpy(s + b, tmp, len);
        }
    }
    free(tmp);
    *outL = n;
    return s;
}

static int write_fasta(const char *path, const char *pre, const char *s, uint64_t n)
{
    FILE *fp = fopen(path, "w");
    if (!fp) { perror(path); return -1; }
    uint64_t chrom = 100000000, nc = (n + chrom - 1) / chrom;
    for (uint64_t c = 0; c < nc; c++) {
        uint64_t a = c * chrom, b = a + chrom < n ? a + chrom : n;
        fprintf(fp, ">%s_chr%llu\n", pre, (unsigned long long)(c + 1));
        for (uint64_t i = a; i < b; i += 80) {
            fwrite(s + i, 1, b - i < 80 ? b - i : 80, fp);
            fputc('\n', fp);
        }
    }
    if (fclose(fp)) { perror(path); return -1; }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 5 && argc != 6) { fprintf(stderr, "usage: simulate_pair SIZE_MBP SEED DIVERGENCE OUT_PREFIX [REPEATS]\n"); return 2; }
    double mbp = atof(argv[1]), d = atof(argv[3]), frac = argc == 6 ? atof(argv[5]) : 0.36;
    rs = strtoull(argv[2], NULL, 10) * 0x9E3779B97F4A7C15ULL + 1;
    if (mbp <= 0 || d < 0 || d > 0.5 || frac < 0 || frac > 0.9) {
        fprintf(stderr, "simulate_pair: SIZE_MBP > 0, DIVERGENCE 0..0.5, REPEATS 0..0.9\n"); return 2; }
    uint64_t L = (uint64_t)(mbp * 1e6);
    char *g = ancestor(L, frac);
    if (!g) { fprintf(stderr, "simulate_pair: out of memory\n"); return 1; }
    char path[4096];
    const char *side[2] = { "a", "b" };
    for (int k = 0; k < 2; k++) {
        uint64_t n;
        char *s = descend(g, L, d / 2, &n);
        if (!s) { fprintf(stderr, "simulate_pair: out of memory\n"); return 1; }
        snprintf(path, sizeof path, "%s.%s.fa", argv[4], side[k]);
        if (write_fasta(path, side[k], s, n)) return 1;
        free(s);
    }
    free(g);
    return 0;
}
