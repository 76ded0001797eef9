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
    /* lastz prints the header after --ambiguous (lastz.c L9021-9039 before the output
     * header): a score file's N row and column show R and -P (§7.3) */
    for (int r = 0; r < sc->nrows; r++)
        for (int c = 0; c < sc->nrows; c++) sc->hdr[r][c] = sc->sub[(uint8_t)sc->rows[r]][(uint8_t)sc->rows[c]];
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

/* a score value: integer with an optional K (x1000) or M (x1000000) suffix */
static int score_value(const char *s, int32_t *v)
{
    char *e; long x = strtol(s, &e, 10);
    if (e == s) return -1;
    if (*e == 'K' || *e == 'k') { x *= 1000; e++; }
    else if (*e == 'M' || *e == 'm') { x *= 1000000; e++; }
    if (*e) return -1;
    *v = (int32_t)x;
    return 0;
}

/* a header label: one printable character or two hex digits */
static int label(const char *t)
{
    if (t[0] && !t[1]) return (uint8_t)t[0];
    if (strlen(t) == 2 && strchr("0123456789abcdefABCDEF", t[0]) && strchr("0123456789abcdefABCDEF", t[1]))
        return (int)strtol(t, NULL, 16);
    return -1;
}

static int dna_alphabet(const int *c, int n)
{
    for (int i = 0; i < n; i++) if (!strchr("ACGTN", c[i]) || !c[i]) return 0;
    return n > 0;
}

int hz_gscore_load(hz_gscore *sc, const char *path, int32_t *file_y, int32_t *file_l,
                   char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) { snprintf(err, errlen, "%s: cannot open", path); return -1; }
    char line[4096]; int ln = 0, ncol = 0, nrow = 0, col[64], row[64];
    int32_t m[64][64], fill = -100, bad = -1000, badch = 'X', v;
    int rc = -1;
    sc->xdrop = -1;
    while (fgets(line, sizeof line, f)) {
        ln++;
        char *h = strchr(line, '#'); if (h) *h = 0;
        char *tok[70]; int nt = 0;
        char *eq = strchr(line, '=');
        if (eq && !ncol) {
            *eq = 0;
            char *k = strtok(line, " \t\r\n"), *val = strtok(eq + 1, " \t\r\n");
            if (!k || !val) { snprintf(err, errlen, "%s: line %d: bad setting", path, ln); goto out; }
            if (!strcmp(k, "bad_score") || !strcmp(k, "bad")) {
                char *c = strchr(val, ':');
                if (c) { if (c - val != 1) { snprintf(err, errlen, "%s: line %d: bad_score form not supported", path, ln); goto out; } badch = (uint8_t)val[0]; val = c + 1; }
                if (score_value(val, &bad)) { snprintf(err, errlen, "%s: line %d: bad value", path, ln); goto out; }
                continue;
            }
            if (score_value(val, &v)) { snprintf(err, errlen, "%s: line %d: bad value '%s'", path, ln, val); goto out; }
            if (!strcmp(k, "fill_score") || !strcmp(k, "fill")) fill = v;
            else if (!strcmp(k, "gap_open_penalty") || !strcmp(k, "gap_open") || !strcmp(k, "open") || !strcmp(k, "O")) sc->gap_open = v;
            else if (!strcmp(k, "gap_extend_penalty") || !strcmp(k, "gap_extend") || !strcmp(k, "extend") || !strcmp(k, "E")) sc->gap_extend = v;
            else if (!strcmp(k, "hsp_threshold") || !strcmp(k, "hsp_thresh") || !strcmp(k, "K")) { sc->hspthresh = v; sc->hsp_set = 1; }
            else if (!strcmp(k, "gapped_threshold") || !strcmp(k, "gapped_thresh") || !strcmp(k, "L")) *file_l = v;
            else if (!strcmp(k, "x_drop") || !strcmp(k, "X")) sc->xdrop = v;
            else if (!strcmp(k, "y_drop") || !strcmp(k, "Y")) *file_y = v;
            else if (!strcmp(k, "step") || !strcmp(k, "Z") || !strcmp(k, "ball") || !strcmp(k, "T") || !strcmp(k, "seed") || !strcmp(k, "bottleneck")) ;
            else { snprintf(err, errlen, "%s: line %d: unknown setting '%s'", path, ln, k); goto out; }
            continue;
        }
        for (char *p = strtok(line, " \t\r\n"); p; p = strtok(NULL, " \t\r\n")) { if (nt == 70) break; tok[nt++] = p; }
        if (!nt) continue;
        if (!ncol) {
            if (nt > 64) { snprintf(err, errlen, "%s: line %d: too many columns", path, ln); goto out; }
            for (int i = 0; i < nt; i++) if ((col[i] = label(tok[i])) < 0) { snprintf(err, errlen, "%s: line %d: bad column label '%s'", path, ln, tok[i]); goto out; }
            ncol = nt;
            continue;
        }
        int first = 0;
        if (nt == ncol + 1) { row[nrow] = label(tok[0]); first = 1; }
        else if (nt == ncol) row[nrow] = nrow < ncol ? col[nrow] : -1;
        else row[nrow] = -1;
        if (row[nrow] < 0 || nrow == 64) { snprintf(err, errlen, "%s: line %d: bad matrix row", path, ln); goto out; }
        for (int i = 0; i < ncol; i++) if (score_value(tok[first + i], &m[nrow][i])) { snprintf(err, errlen, "%s: line %d: bad score '%s'", path, ln, tok[first + i]); goto out; }
        nrow++;
    }
    if (!ncol || !nrow) { snprintf(err, errlen, "%s: no matrix", path); goto out; }
    /* construction order of spec §2.2 */
    for (int r = 0; r < 256; r++) for (int c = 0; c < 256; c++) sc->sub[r][c] = fill;
    for (int r = 0; r < nrow; r++) for (int c = 0; c < ncol; c++) sc->sub[row[r]][col[c]] = m[r][c];
    sc->dna = dna_alphabet(col, ncol) && dna_alphabet(row, nrow);
    if (dna_alphabet(col, ncol))
        for (int r = 0; r < 256; r++) for (int c = 0; c < ncol; c++) sc->sub[r][col[c] | 0x20] = sc->sub[r][col[c]];
    if (dna_alphabet(row, nrow))
        for (int r = 0; r < nrow; r++) for (int c = 0; c < 256; c++) sc->sub[row[r] | 0x20][c] = sc->sub[row[r]][c];
    for (int i = 0; i < 256; i++) sc->sub[badch][i] = sc->sub[i][badch] = bad;
    for (int i = 0; i < 256; i++) sc->sub[0][i] = sc->sub[i][0] = HZ_G_VERY_BAD;
    if (sc->xdrop < 0) sc->xdrop = 10 * sc->sub[row[0]][col[0]];
    sc->ydrop = sc->gap_open + 300 * sc->gap_extend;
    /* the header prints the upper-case rows and columns (§7.3); only a square one is kept */
    sc->nrows = 0;
    for (int r = 0; r < nrow && r < 16; r++) if (row[r] == col[r] && row[r] >= 'A' && row[r] <= 'Z') sc->rows[sc->nrows++] = (char)row[r];
    for (int r = 0; r < sc->nrows; r++) for (int c = 0; c < sc->nrows; c++) sc->hdr[r][c] = sc->sub[(uint8_t)sc->rows[r]][(uint8_t)sc->rows[c]];
    rc = 0;
out:
    fclose(f);
    return rc;
}
