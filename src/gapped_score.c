/* gapped_score — the substitution matrix of LASTZ's gapped stage
 * (../shared/spec/lastz-gapped-spec.md §2.1, §2.3). */
#include <stdlib.h>
#include <string.h>
#include "gapped.h"

static const int32_t HOXD70[4][4] = {
    {   91, -114,  -31, -123 },
    { -114,  100, -125,  -31 },
    {  -31, -125,  100, -114 },
    { -123,  -31, -114,   91 },
};

static int acgt_index(int c)
{
    switch (c) {
    case 'A': case 'a': return 0;
    case 'C': case 'c': return 1;
    case 'G': case 'g': return 2;
    case 'T': case 't': return 3;
    default: return -1;
    }
}

void hz_gscore_default(hz_gscore *sc)
{
    memset(sc, 0, sizeof *sc);
    for (int r = 0; r < 256; r++)
        for (int c = 0; c < 256; c++) {
            int ir = acgt_index(r), ic = acgt_index(c);
            int32_t v;
            if (r == 'X' || r == 'x' || c == 'X' || c == 'x') v = -1000;      /* the bad row/column */
            else if (r == 0 || c == 0) v = HZ_G_VERY_BAD;                     /* the NUL separator */
            else if (ir >= 0 && ic >= 0) v = HOXD70[ir][ic];                   /* case never matters */
            else v = -100;                                                     /* fill */
            sc->sub[r][c] = v;
        }
    sc->gap_open = 400; sc->gap_extend = 30;
    sc->ydrop = sc->gap_open + 300 * sc->gap_extend;       /* 9400 (§0.2) */
    sc->gappedthresh = 3000; sc->hspthresh = 3000;
    sc->xdrop = 10 * HOXD70[0][0];                        /* 910 */
    sc->nrows = 4;
    memcpy(sc->rows, "ACGT", 4);
    for (int r = 0; r < 4; r++) for (int c = 0; c < 4; c++) sc->hdr[r][c] = HOXD70[r][c];
}

/* parse "R,P" after the first word; returns 0 */
static int reward_penalty(const char *s, int32_t *R, int32_t *P)
{
    *R = 0; *P = 0;
    if (!*s) return 0;
    if (*s != ',') return -1;
    char *e;
    long r = strtol(s + 1, &e, 10);
    if (e == s + 1 || *e != ',') return -1;
    long p = strtol(e + 1, &e, 10);
    if (*e) return -1;
    *R = (int32_t)r; *P = (int32_t)p;
    return 0;
}

int hz_gscore_ambiguous(hz_gscore *sc, const char *arg)
{
    static const char MATRIX[] = "ACGTacgt", IUPAC[] = "NnBDHKMRSVWYbdhkmrsvwy";
    int32_t R, P;
    int iupac;
    if (!strncmp(arg, "iupac", 5)) { iupac = 1; arg += 5; }
    else if (!strncmp(arg, "n", 1)) { iupac = 0; arg += 1; }
    else return -1;
    if (reward_penalty(arg, &R, &P)) return -1;
    if (iupac)
        for (const char *a = IUPAC; *a; a++) {
            for (const char *b = IUPAC; *b; b++)
                sc->sub[(uint8_t)*a][(uint8_t)*b] = ((*a | 0x20) == (*b | 0x20)) ? R : -P;
            for (const char *m = MATRIX; *m; m++)
                sc->sub[(uint8_t)*a][(uint8_t)*m] = sc->sub[(uint8_t)*m][(uint8_t)*a] = -P;
        }
    const char *nn = "Nn";
    for (const char *a = nn; *a; a++) {
        for (const char *b = nn; *b; b++) sc->sub[(uint8_t)*a][(uint8_t)*b] = R;
        for (const char *m = MATRIX; *m; m++)
            sc->sub[(uint8_t)*a][(uint8_t)*m] = sc->sub[(uint8_t)*m][(uint8_t)*a] = -P;
    }
    return 0;
}

void hz_gscore_mask(hz_gscore *sc)
{
    static const char MASKED[] = "acgtNnXx";
    int32_t bad = sc->sub['A']['X'];
    memcpy(sc->msub, sc->sub, sizeof sc->msub);
    for (const char *m = MASKED; *m; m++)
        for (int c = 1; c < 256; c++) sc->msub[(uint8_t)*m][c] = sc->msub[c][(uint8_t)*m] = bad;
}
