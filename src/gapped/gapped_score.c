/* gapped_score — the substitution matrix of LASTZ's gapped stage
 * (../shared/spec/lastz-gapped-spec.md §2.1, §2.3). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gapped.h"
#include "scorefile.h"
#include "scoring.h"

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
    strcpy(sc->rowch, "ACGTacgt"); strcpy(sc->colch, "ACGTacgt");   /* new_dna_score_set */
    sc->badcol = 'X';
    sc->seed = "1110100110010101111 w/transition"; sc->step = 1;
    for (int r = 0; r < 4; r++) for (int c = 0; c < 4; c++) sc->hdr[r][c] = HOXD70[r][c];
}

/* one number of --ambiguous=n|iupac,R,P, read as lastz reads it (strtol: the whole part) */
static int amb_value(const char *p, size_t len, int32_t *v)
{
    char buf[256], *e;
    if (len >= sizeof buf) return -1;
    memcpy(buf, p, len); buf[len] = 0;
    long x = strtol(buf, &e, 10);
    if (e == buf && len) return -1;
    if (*e) return -1;
    *v = (int32_t)x;
    return 0;
}

static int dna_lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* ambiguate_iupac (dna_utilities.c L1588) on one matrix */
static void amb_iupac(int32_t sub[256][256], const hz_gscore *sc, int32_t R, int32_t nP)
{
    static const char AMB[] = "NnBDHKMRSVWYbdhkmrsvwy";
    for (const char *r = AMB; *r; r++)
        for (const char *c = AMB; *c; c++) sub[(uint8_t)*r][(uint8_t)*c] = dna_lower(*r) == dna_lower(*c) ? R : nP;
    for (const char *r = sc->rowch; *r; r++)
        for (const char *c = AMB; *c; c++) {
            if (*r == 'N' && (*c == 'N' || *c == 'n')) continue;
            sub[(uint8_t)*r][(uint8_t)*c] = sub[dna_lower((uint8_t)*r)][(uint8_t)*c] = nP;
        }
    for (const char *c = sc->colch; *c; c++)
        for (const char *r = AMB; *r; r++) {
            if (*c == 'N' && (*r == 'N' || *r == 'n')) continue;
            sub[(uint8_t)*r][(uint8_t)*c] = sub[(uint8_t)*r][dna_lower((uint8_t)*c)] = nP;
        }
}

/* ambiguate_n (dna_utilities.c L1544) on one matrix.  Only 'N' is skipped in the loops: a file
 * whose alphabet has N also lists n (lower case added), so N-n and n-n end as -P there. */
static void amb_n(int32_t sub[256][256], const hz_gscore *sc, int32_t R, int32_t nP)
{
    sub['N']['N'] = sub['N']['n'] = sub['n']['N'] = sub['n']['n'] = R;
    for (const char *r = sc->rowch; *r; r++) {
        if (*r == 'N') continue;
        int ch = (uint8_t)*r, lo = dna_lower(ch);
        sub[ch]['N'] = sub[ch]['n'] = sub[lo]['N'] = sub[lo]['n'] = nP;
    }
    for (const char *c = sc->colch; *c; c++) {
        if (*c == 'N') continue;
        int ch = (uint8_t)*c, lo = dna_lower(ch);
        sub['N'][ch] = sub['n'][ch] = sub['N'][lo] = sub['n'][lo] = nP;
    }
}

int hz_gscore_ambiguous(hz_gscore *sc, const char *arg)
{
    int32_t R = 0, P = 0;
    hz_ambig a;
    hz_ambiguous_split(arg, &a);   /* scoring.h: the HSP stage reads it the same way */
    if (a.word == HZ_AMB_OTHER || (a.nparts != 1 && a.nparts != 3)) return -1;
    if (a.nparts == 3 && (!a.plen[1] || amb_value(a.part[1], a.plen[1], &R) || amb_value(a.part[2], a.plen[2], &P)))
        return -1;
    /* lastz.c L9021-9039: iupac (allowAmbiDNA) first, then n (nIsAmbiguous; iupac sets it
     * too), each on the plain and the masked matrix */
    if (a.word == HZ_AMB_IUPAC) { amb_iupac(sc->sub, sc, R, -P); amb_iupac(sc->msub, sc, R, -P); }
    amb_n(sc->sub, sc, R, -P); amb_n(sc->msub, sc, R, -P);
    /* lastz prints the header after --ambiguous (lastz.c L9021-9039 before the output
     * header): a score file's N row and column show R and -P (§7.3) */
    for (int r = 0; r < sc->nrows; r++)
        for (int c = 0; c < sc->nrows; c++) sc->hdr[r][c] = sc->sub[(uint8_t)sc->rows[r]][(uint8_t)sc->rows[c]];
    return 0;
}

/* masked_score_set (dna_utilities.c L497): lower-case matrix letters, n, X and N unless N is
 * a matrix letter get the bad score sub[first row letter][bad column], rows and columns.
 * lastz does this (and --ambiguous) only for DNA alphabets: every matrix here is one (a quantum
 * matrix is refused by hz_gscore_load). */
void hz_gscore_mask(hz_gscore *sc)
{
    memcpy(sc->msub, sc->sub, sizeof sc->msub);
    const int32_t bad = sc->sub[(uint8_t)sc->rowch[0]][sc->badcol];
    const int nrow = strchr(sc->rowch, 'N') != NULL, ncol = strchr(sc->colch, 'N') != NULL;
    for (const char *r = sc->rowch; *r; r++)
        if (!(*r >= 'A' && *r <= 'Z')) for (int c = 1; c < 256; c++) sc->msub[(uint8_t)*r][c] = bad;
    for (const char *c = sc->colch; *c; c++)
        if (!(*c >= 'A' && *c <= 'Z')) for (int r = 1; r < 256; r++) sc->msub[r][(uint8_t)*c] = bad;
    for (int k = 1; k < 256; k++) {      /* rows first, as lastz, then columns */
        if (!nrow) sc->msub['N'][k] = bad;
        sc->msub['n'][k] = sc->msub['X'][k] = bad;
    }
    for (int k = 1; k < 256; k++) {
        if (!ncol) sc->msub[k]['N'] = bad;
        sc->msub[k]['n'] = sc->msub[k]['X'] = bad;
    }
}

/* a score value as lastz's string_to_score reads it (checked live against lastz 1.04.22): a
 * number strtod reads (integer, decimal, exponent, 0x hex) with an optional K/M/G (x1000,
 * x1000000, x1000000000), rounded to the nearest integer (halves up) */
static int score_value(const char *s, int32_t *v)
{
    char *e;
    double x = strtod(s, &e);
    if (e == s || !isfinite(x)) return -1;
    if (*e == 'K' || *e == 'k') { x *= 1e3; e++; }
    else if (*e == 'M' || *e == 'm') { x *= 1e6; e++; }
    else if (*e == 'G' || *e == 'g') { x *= 1e9; e++; }
    x = floor(x + 0.5);
    if (*e || x < -2147483648.0 || x > 2147483647.0) return -1;
    *v = (int32_t)x;
    return 0;
}

/* lastz's is_dna_alphabet (dna_utilities.c L1437): ACGT, ACGTN, ACGTacgt or ACGTacgtN in any
 * order (a label listed twice is refused before this) */
static int dna_alphabet(const int *c, int n)
{
    int up = 0, lo = 0, hasn = 0;
    for (int i = 0; i < n; i++) {
        up += c[i] == 'A' || c[i] == 'C' || c[i] == 'G' || c[i] == 'T';
        lo += c[i] == 'a' || c[i] == 'c' || c[i] == 'g' || c[i] == 't';
        hasn |= c[i] == 'N';
    }
    if (n == 4) return up == 4;
    if (n == 5) return up == 4 && hasn;
    if (n == 8) return up + lo == 8;
    if (n == 9) return up + lo == 8 && hasn;
    return 0;
}

/* lastz's letters of a DNA alphabet: the labels in order, then each one's lower case when absent */
static void alphabet(char *out, const int *c, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++) out[k++] = (char)c[i];
    out[k] = 0;
    for (int i = 0; i < n; i++) {
        char l = (char)dna_lower(c[i]);
        if (!memchr(out, l, (size_t)k)) { out[k++] = l; out[k] = 0; }
    }
}

/* tok[0 .. len) as a C string in buf (cut at bufsz - 1 bytes, as a line of fgets) */
static const char *cstr(char *buf, size_t bufsz, const char *tok, size_t len)
{
    if (len >= bufsz) len = bufsz - 1;
    memcpy(buf, tok, len);
    buf[len] = 0;
    return buf;
}

/* the settings read so far (lastz reads each name once; a repeated one is an invalid name) */
typedef struct {
    int32_t fill, bad; int badch, bad_row;        /* bad_row: the [row:] form was given */
    int have[HZ_SK_BOTTLENECK + 1];
    int ball;                                     /* a ball setting: lastz refuses it for DNA */
} sfset;

/* lastz's four seeds of a score file's seed / T setting (read_score_set): the axt+ header text */
static const char *file_seed(int is_t, const char *v)
{
    static const char *const NAME[4][3] = {
        { "1", "12of19,transition", "12_of_19,transition" }, { "2", "12of19,notransition", "12_of_19,no_transition" },
        { "3", "14of22,transition", "14_of_22,transition" }, { "4", "14of22,notransition", "14_of_22,no_transition" } };
    static const char *const HDR[4] = { "1110100110010101111 w/transition", "1110100110010101111",
                                        "1110101100110010101111 w/transition", "1110101100110010101111" };
    for (int k = 0; k < 4; k++)
        if (is_t ? !strcmp(v, NAME[k][0]) : (!strcmp(v, NAME[k][1]) || !strcmp(v, NAME[k][2]))) return HDR[k];
    return NULL;
}

/* A `key = value` line before the header (spec §2.2) into sc, st, file_y / file_l, as lastz
 * 1.04.22's read_score_set reads it (key and value trimmed, the value whole).  0, or -1 / -2
 * with the message in err (hz_gscore_load). */
static int gscore_setting(hz_gscore *sc, const char *path, const hz_sfline *l, sfset *st, int32_t *file_y, int32_t *file_l,
                          char *err, size_t errlen)
{
    hz_sfset kv;
    hz_sf_setting(l, &kv);
    int ln = l->lineno;
    char k[4096], vb[4096];
    cstr(k, sizeof k, l->s + kv.kb, kv.ke > kv.kb ? kv.ke - kv.kb : 0);
    const char *val = cstr(vb, sizeof vb, l->s + kv.vb, kv.ve > kv.vb ? kv.ve - kv.vb : 0);
    int kind = hz_sf_key(k, strlen(k));
    /* the name kinds lastz knows; T and seed share one flag, as do all spellings of a kind */
    if (kind == HZ_SK_BAD ? st->bad_row : (kind < 0 || st->have[kind])) {
        snprintf(err, errlen, "invalid name in assignment (%s: line %d) %s=%s", path, ln, k, val);
        return -1;
    }
    int32_t v;
    if (kind == HZ_SK_BAD) {                      /* [row:]score; lastz's [row:[col:]] with one letter */
        const char *c = strchr(val, ':');
        if (c) {
            if (c - val != 1 || strchr(c + 1, ':')) { snprintf(err, errlen, "hspz gapped: %s: line %d: this bad_score form is not supported by hspz gapped; run lastz for it", path, ln); return -2; }
            st->badch = (uint8_t)val[0]; st->bad_row = 1; val = c + 1;
        }
        if (score_value(val, &st->bad)) { snprintf(err, errlen, "\"%s\" is not an integer", val); return -1; }
        return 0;
    }
    if (kind != HZ_SK_SEED && kind != HZ_SK_BOTTLENECK && kind != HZ_SK_STEP && !(kind == HZ_SK_BALL && *val && val[strlen(val) - 1] == '%')
        && score_value(val, &v)) {
        snprintf(err, errlen, "\"%s\" is not an integer", val);
        return -1;
    }
    st->have[kind] = 1;
    const char *bad = NULL;
    switch (kind) {
    case HZ_SK_FILL: st->fill = v; break;
    case HZ_SK_OPEN: sc->gap_open = v; break;
    case HZ_SK_EXTEND: sc->gap_extend = v; break;
    case HZ_SK_HSP: sc->hspthresh = v; sc->hsp_set = 1; break;
    case HZ_SK_GAPPED: *file_l = v; break;
    case HZ_SK_XDROP: if (v <= 0) bad = "x-drop threshold"; else sc->xdrop = v; break;
    case HZ_SK_YDROP: if (v <= 0) bad = "y-drop threshold"; else *file_y = v; break;
    case HZ_SK_STEP: {                            /* string_to_int: a whole decimal integer */
        char *e; errno = 0;
        long x = strtol(val, &e, 10);
        if (e == val || *e || errno) { snprintf(err, errlen, "\"%s\" is not an integer", val); return -1; }
        if ((uint32_t)x == 0) bad = "step"; else sc->step = (uint32_t)x;
        break;
    }
    case HZ_SK_SEED:
        if (!(sc->seed = file_seed(!strcmp(k, "T"), val))) bad = "seed";
        break;
    case HZ_SK_BALL:                              /* a quantum setting: a percentage in (0,1] or a score > 0 */
        if (val[strlen(val) - 1] == '%') {
            char *e; double f = strtod(val, &e) / 100.0;
            if (e == val || *e != '%' || !(f > 0 && f <= 1)) bad = "quantum ball score";
        } else if (v <= 0) bad = "quantum ball score";
        st->ball = 1;
        break;
    case HZ_SK_BOTTLENECK:
        snprintf(err, errlen, "hspz gapped: %s: line %d: bottleneck (a quantum setting) is not supported by hspz gapped; run lastz for it", path, ln);
        return -2;
    }
    if (bad) { snprintf(err, errlen, "invalid %s (%s: line %d) %s=%s", bad, path, ln, k, val); return -1; }
    return 0;
}

/* The matrix read (col[ncol] labels, row[nrow] labels, m values) into sc in the construction
 * order of spec §2.2, then the header's square upper-case block (§7.3). */
static void gscore_build(hz_gscore *sc, const int *col, int ncol, const int *row, int nrow, int32_t m[64][64],
                         int32_t fill, int32_t bad, int badch)
{
    for (int r = 0; r < 256; r++) for (int c = 0; c < 256; c++) sc->sub[r][c] = fill;
    for (int r = 0; r < nrow; r++) for (int c = 0; c < ncol; c++) sc->sub[row[r]][col[c]] = m[r][c];
    alphabet(sc->colch, col, ncol); alphabet(sc->rowch, row, nrow);
    sc->badcol = badch;
    for (int r = 0; r < 256; r++) for (int c = 0; c < ncol; c++) sc->sub[r][col[c] | 0x20] = sc->sub[r][col[c]];
    for (int r = 0; r < nrow; r++) for (int c = 0; c < 256; c++) sc->sub[row[r] | 0x20][c] = sc->sub[row[r]][c];
    for (int i = 0; i < 256; i++) sc->sub[badch][i] = sc->sub[i][badch] = bad;
    for (int i = 0; i < 256; i++) sc->sub[0][i] = sc->sub[i][0] = HZ_G_VERY_BAD;
    if (sc->xdrop < 0) sc->xdrop = 10 * sc->sub[row[0]][col[0]];
    sc->ydrop = sc->gap_open + 300 * sc->gap_extend;
    /* the header prints the upper-case rows and columns (§7.3); only a square one is kept */
    sc->nrows = 0;
    for (int r = 0; r < nrow && r < ncol && r < 16; r++)   /* col[r] past ncol was read unset before */
        if (row[r] == col[r] && row[r] >= 'A' && row[r] <= 'Z') sc->rows[sc->nrows++] = (char)row[r];
    for (int r = 0; r < sc->nrows; r++) for (int c = 0; c < sc->nrows; c++) sc->hdr[r][c] = sc->sub[(uint8_t)sc->rows[r]][(uint8_t)sc->rows[c]];
}

/* The file's lines (scorefile.h reads them): settings, the column labels, the rows. */
int hz_gscore_load(hz_gscore *sc, const char *path, const char *name, int32_t *file_y, int32_t *file_l,
                   char *err, size_t errlen)
{
    hz_sfread rd;
    if (hz_sfread_open(&rd, path, err, errlen)) { snprintf(err, errlen, "%s: cannot open", name); return -1; }
    path = name;                                  /* messages name the file as the line does */
    int ncol = 0, nrow = 0, col[64], row[64];
    int32_t m[64][64];
    sfset st;
    memset(&st, 0, sizeof st);
    st.fill = -100; st.bad = -1000; st.badch = 'X';
    hz_sftok tok[70];
    char tb[4096];
    hz_sfline l;
    int rc = -1;
    sc->xdrop = -1;
    while (hz_sfread_next(&rd, &l)) {
        int ln = l.lineno;
        hz_sfline_cut(&l, strnlen(l.s, l.len));   /* lastz's lines are C strings */
        if (l.eq && !ncol) {
            if ((rc = gscore_setting(sc, path, &l, &st, file_y, file_l, err, errlen))) goto out;
            rc = -1;
            continue;
        }
        int nt = hz_sf_tokens(&l, tok, 70);
        if (!nt) continue;
        if (!ncol) {
            if (nt > 64) { snprintf(err, errlen, "%s: line %d: too many columns", path, ln); goto out; }
            for (int i = 0; i < nt; i++)
                if ((col[i] = hz_sf_label(tok[i].s, tok[i].len)) < 0) {
                    snprintf(err, errlen, "%s: line %d: bad column label '%s'", path, ln, cstr(tb, sizeof tb, tok[i].s, tok[i].len));
                    goto out;
                }
            ncol = nt;
            continue;
        }
        int first = 0, rl = -1;
        if (nrow < 64 && nt == ncol + 1) { rl = hz_sf_label(tok[0].s, tok[0].len); first = 1; }
        else if (nrow < 64 && nt == ncol) rl = nrow < ncol ? col[nrow] : -1;
        if (rl < 0) { snprintf(err, errlen, "%s: line %d: bad matrix row", path, ln); goto out; }
        row[nrow] = rl;
        for (int i = 0; i < ncol; i++)
            if (score_value(cstr(tb, sizeof tb, tok[first + i].s, tok[first + i].len), &m[nrow][i])) {
                snprintf(err, errlen, "%s: line %d: bad score '%s'", path, ln, tb);
                goto out;
            }
        nrow++;
    }
    if (!ncol || !nrow) { snprintf(err, errlen, "%s: no matrix", path); goto out; }
    /* lastz fails a label listed twice; a matrix whose rows or columns are not one of its DNA
     * alphabets is a quantum one to lastz (bottlenecks, other letters): not built here */
    for (int i = 0; i < ncol; i++) for (int j = 0; j < i; j++)
        if (col[i] == col[j]) { snprintf(err, errlen, "hspz gapped: %s: column label '%c' is given twice (lastz fails such a file); run lastz for it", path, col[i]); rc = -2; goto out; }
    for (int i = 0; i < nrow; i++) for (int j = 0; j < i; j++)
        if (row[i] == row[j]) { snprintf(err, errlen, "hspz gapped: %s: row label '%c' is given twice (lastz fails such a file); run lastz for it", path, row[i]); rc = -2; goto out; }
    if (!dna_alphabet(col, ncol) || !dna_alphabet(row, nrow)) {
        snprintf(err, errlen, "hspz gapped: %s: rows and columns other than A C G T [N] [a c g t] make a quantum matrix to lastz, which hspz gapped does not build; run lastz for it", path);
        rc = -2; goto out;
    }
    gscore_build(sc, col, ncol, row, nrow, m, st.fill, st.bad, st.badch);
    rc = 0;
    /* lastz: without a gapped_threshold, the file's hsp_threshold is the gapped threshold too
     * (a command-line --gappedthresh / L= still wins; checked live against lastz 1.04.22) */
    if (st.have[HZ_SK_HSP] && !st.have[HZ_SK_GAPPED]) sc->gappedthresh = sc->hspthresh;
    if (st.ball) { snprintf(err, errlen, "--ball can't be used with DNA target and query"); rc = -1; }   /* lastz's options check */
out:
    hz_sfread_close(&rd);
    return rc;
}

int hz_gscore_qclasses(const hz_gscore *sc, hz_gqcls *q)
{
    int n = 0;
    for (int b = 0; b < 256; b++) {
        int k = 0;
        for (; k < n; k++) {                 /* the same column of sub as class k's byte */
            int r = 0, rb = q->rep[k];
            while (r < 256 && sc->sub[r][b] == sc->sub[r][rb]) r++;
            if (r == 256) break;
        }
        if (k == n) {
            if (n == 16) { q->n = 0; return 0; }
            q->rep[n++] = (uint8_t)b;
        }
        q->cls[b] = (uint8_t)k;
    }
    for (int k = n; k < 16; k++) q->rep[k] = q->rep[0];
    return q->n = n;
}
