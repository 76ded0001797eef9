/* scoring — the 8x8 substitution matrix of the HSP stage and LASTZ score files.
 *
 * Spec: ../shared/spec/kegalign-hsp-spec.md §9 (matrix rules, score-file use),
 * kegalign-v03-delta.md §7 (bad/fill taken from the score file, PR #43), RULES.md row
 * "scoring file".  The score-file grammar follows LASTZ's documented "Scoring File" format
 * (README, section "Scoring File"); this is an independent implementation.
 */
#include "scoring.h"
#include "scorefile.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* HOXD70 (spec §9.1/§9.2), rows = target, columns = query, order A C G T. */
static const int32_t HOXD70[4][4] = {
    {91, -114, -31, -123},
    {-114, 100, -125, -31},
    {-31, -125, 100, -114},
    {-123, -31, -114, 91},
};

enum { DEFAULT_BAD = -1000, DEFAULT_FILL = -100, DEFAULT_AMBIG = -100 };

/* ------------------------------------------------------------------------------------ */
/* small helpers                                                                         */
/* ------------------------------------------------------------------------------------ */

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Strict decimal integer: [+-]?[0-9]+, whole string, fits int32.  Returns 0 or -1. */
static int parse_plain_int(const char *s, int32_t *out)
{
    const char *p = s;
    if (*p == '+' || *p == '-') p++;
    if (!isdigit((unsigned char)*p)) return -1;
    errno = 0;
    char *end = NULL;
    long long v = strtoll(s, &end, 10);
    if (errno || *end != '\0' || v < INT32_MIN || v > INT32_MAX) return -1;
    *out = (int32_t)v;
    return 0;
}

/* Score-file integer: [+-]?[0-9]+ with an optional K/M/G suffix (x1e3/1e6/1e9), covering exactly tok[0..len).  Returns 0, -1 (not an integer) or -2 (does not fit
 * in int32). */
static int parse_score(const char *tok, size_t len, int32_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (i < len && (tok[i] == '+' || tok[i] == '-')) { neg = tok[i] == '-'; i++; }
    if (i >= len || !isdigit((unsigned char)tok[i])) return -1;
    int64_t v = 0;
    int big = 0;
    while (i < len && isdigit((unsigned char)tok[i])) {
        v = v * 10 + (tok[i] - '0');
        if (v > (int64_t)1 << 40) big = 1, v = (int64_t)1 << 40;
        i++;
    }
    int64_t mult = 1;
    if (i < len) {
        switch (tok[i]) {
        case 'K': mult = 1000; break;       /* upper case only: lastz rejects "2k" */
        case 'M': mult = 1000000; break;    /* in gap penalties */
        case 'G': mult = 1000000000; break;
        default: return -1;
        }
        i++;
    }
    if (i != len) return -1;
    if (big) return -2;
    if (mult > 1 && v > (int64_t)1 << 32) return -2;   /* v * mult would overflow int64 (2^40 x 1e9) */
    v *= mult;
    if (neg) v = -v;
    if (v < INT32_MIN || v > INT32_MAX) return -2;
    *out = (int32_t)v;
    return 0;
}

/* Index of an upper-case A/C/G/T label, else -1.  Only these entries are copied (spec
 * §9.3); labels are case-sensitive as in LASTZ. */
static int acgt_index(int ch)
{
    switch (ch) {
    case 'A': return 0;
    case 'C': return 1;
    case 'G': return 2;
    case 'T': return 3;
    default: return -1;
    }
}

/* LASTZ reads a label set as DNA only if it is exactly ACGT, ACGTN, ACGTacgt or ACGTacgtN
 * (any order); any other set means quantum DNA, which lastz then refuses for DNA input.
 * Returns NULL if `labs` is such a set, else a message naming the problem. */
static const char *dna_alphabet_problem(const int *labs, int n, const char *what, char *buf,
                                        size_t buflen)
{
    int seen[256] = {0};
    for (int i = 0; i < n; i++) seen[labs[i]] = 1;
    for (const char *p = "ACGT"; *p; p++)
        if (!seen[(unsigned char)*p]) {
            snprintf(buf, buflen, "no %s labelled '%c'", what, *p);
            return buf;
        }
    int lower = seen['a'] + seen['c'] + seen['g'] + seen['t'];
    if (lower != 0 && lower != 4) {
        snprintf(buf, buflen, "lower-case %s labels must be all of a, c, g, t or none", what);
        return buf;
    }
    return NULL;
}

static int is_dna_label(int ch) { return ch > 0 && ch < 256 && strchr("ACGTNacgt", ch) != NULL; }

/* ------------------------------------------------------------------------------------ */
/* hz_scorefile_load: the HSP stage's checks (validate) and its ACGT block (build) over   */
/* the lines scorefile.c reads                                                            */
/* ------------------------------------------------------------------------------------ */

#define ALLOWED_KEYS \
    "bad_score, fill_score, gap_open_penalty, gap_extend_penalty, x_drop, y_drop, " \
    "hsp_threshold, gapped_threshold, step, seed (and LASTZ's aliases bad, fill, " \
    "gap_open, open, O, gap_extend, extend, E, hsp_thresh, K, gapped_thresh, L, X, Y, Z, T)"

static void add_ignored(hz_scorefile *out, const char *name, size_t len)
{
    size_t cur = strlen(out->ignored_keys), cap = sizeof out->ignored_keys;
    out->n_ignored_keys++;
    if (cur > 0 && cur + 1 < cap) out->ignored_keys[cur++] = ',';
    for (size_t i = 0; i < len && cur + 1 < cap; i++) out->ignored_keys[cur++] = name[i];
    out->ignored_keys[cur] = '\0';
}

#define MAXLAB 256

/* What hz_scorefile_load has seen so far. */
typedef struct {
    const char *path;
    char *err;
    size_t errlen;
    hz_scorefile *out;
    int key_line[HZ_SK_N];
    int bad_chars[2];          /* explicit bad_score character codes (column, row) */
    int bad_line, open_col, ext_col;
    int have_header, header_line, ncols;
    int col_lab[MAXLAB];
    int nfields, nrows;
    int row_lab[MAXLAB], row_line[MAXLAB];
    int defined[4][4];
    int32_t val[4][4];
    hz_sftok toks[MAXLAB + 2];
} sfload;

/* bad_score = [<col>:[<row>:]]<score>; codes are one character or two hex digits.  0 or -1. */
static int sf_bad_score(sfload *P, int lineno, const char *v, size_t vlen, int valcol)
{
    const char *p = v, *end = v + vlen;
    int which = 0;
    int32_t x = 0;
    for (;;) {
        const char *colon = memchr(p, ':', (size_t)(end - p));
        if (!colon) break;
        int pcol = valcol + (int)(p - v);
        if (which >= 2) {
            set_err(P->err, P->errlen, "%s:%d:%d: bad_score takes at most two character "
                    "codes ([<char>:[<char>:]]<score>)", P->path, lineno, valcol + (int)(colon - v));
            return -1;
        }
        int ch = hz_sf_label(p, (size_t)(colon - p));
        if (ch < 0) {
            set_err(P->err, P->errlen, "%s:%d:%d: invalid bad_score character code '%.*s' "
                    "(one character or two hex digits 01..FF)", P->path, lineno, pcol, (int)(colon - p), p);
            return -1;
        }
        if (which == 0) P->bad_chars[0] = P->bad_chars[1] = ch; /* column (and row) */
        else P->bad_chars[1] = ch;                              /* row */
        P->bad_line = lineno;
        which++;
        p = colon + 1;
    }
    int pr = parse_score(p, (size_t)(end - p), &x);
    if (pr) {
        set_err(P->err, P->errlen, "%s:%d:%d: bad_score: '%.*s' is %s", P->path, lineno,
                valcol + (int)(p - v), (int)(end - p), p,
                pr == -2 ? "out of range" : "not an integer score (digits with an optional K/M/G suffix)");
        return -1;
    }
    if (x > HZ_SCORE_MAX || x < HZ_SCORE_MIN) {
        set_err(P->err, P->errlen, "%s:%d:%d: bad_score %ld is outside %d..%d (hspz sums scores in 32 "
                "bits; larger ones could overflow)", P->path, lineno, valcol + (int)(p - v), (long)x,
                HZ_SCORE_MIN, HZ_SCORE_MAX);
        return -1;
    }
    P->out->bad_score = x;
    P->out->has_bad = 1;
    return 0;
}

/* seed = 12of19|14of22,[no]transition (LASTZ's spellings) or T = 1..4: checked, ignored. */
static int sf_seed(sfload *P, int lineno, const char *key, size_t klen, const char *v, size_t vlen, int valcol)
{
    if (klen == 1) { /* T = 1..4 */
        if (vlen != 1 || v[0] < '1' || v[0] > '4') {
            set_err(P->err, P->errlen, "%s:%d:%d: T must be 1, 2, 3 or 4", P->path, lineno, valcol);
            return -1;
        }
        add_ignored(P->out, key, klen);
        return 0;
    }
    static const char *ok[] = {"12of19,transition", "12of19,notransition",
                               "14of22,transition", "14of22,notransition",
                               "12_of_19,transition", "12_of_19,no_transition",
                               "14_of_22,transition", "14_of_22,no_transition"};
    int good = 0;
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (strlen(ok[i]) == vlen && memcmp(ok[i], v, vlen) == 0) good = 1;
    if (!good) {
        set_err(P->err, P->errlen, "%s:%d:%d: invalid seed '%.*s' (expected 12of19 or 14of22, "
                "then ,transition or ,notransition)", P->path, lineno, valcol, (int)vlen, v);
        return -1;
    }
    add_ignored(P->out, key, klen);
    return 0;
}

/* One `key = value` line before the header.  0 or -1. */
static int sf_setting(sfload *P, const hz_sfline *l)
{
    hz_sfset st;
    hz_sf_setting(l, &st);
    int lineno = l->lineno, keycol = (int)st.kb + 1, valcol = (int)st.vb + 1, eqcol = (int)(l->eq - l->s) + 1;
    if (st.ke == st.kb) {
        set_err(P->err, P->errlen, "%s:%d:%d: setting has no name before '='", P->path, lineno, eqcol);
        return -1;
    }
    const char *key = l->s + st.kb, *v = l->s + st.vb;
    size_t klen = st.ke - st.kb, vlen = st.ve - st.vb;
    int kind = hz_sf_key(key, klen);
    if (kind == HZ_SK_BALL || kind == HZ_SK_BOTTLENECK) {   /* quantum DNA only: lastz fails on DNA */
        set_err(P->err, P->errlen, "%s:%d:%d: setting '%.*s' applies only to quantum DNA "
                "and is not supported", P->path, lineno, keycol, (int)klen, key);
        return -1;
    }
    if (kind < 0) {
        set_err(P->err, P->errlen, "%s:%d:%d: unknown setting '%.*s' (allowed: %s)", P->path,
                lineno, keycol, (int)klen, key, ALLOWED_KEYS);
        return -1;
    }
    if (P->key_line[kind]) {
        set_err(P->err, P->errlen, "%s:%d:%d: setting '%.*s' given twice (first on line %d)",
                P->path, lineno, keycol, (int)klen, key, P->key_line[kind]);
        return -1;
    }
    P->key_line[kind] = lineno;
    if (vlen == 0) {
        set_err(P->err, P->errlen, "%s:%d:%d: setting '%.*s' has no value", P->path, lineno, eqcol + 1, (int)klen, key);
        return -1;
    }
    if (kind == HZ_SK_BAD) return sf_bad_score(P, lineno, v, vlen, valcol);
    if (kind == HZ_SK_SEED) return sf_seed(P, lineno, key, klen, v, vlen, valcol);
    int32_t x = 0;
    int pr = parse_score(v, vlen, &x);
    if (pr) {
        set_err(P->err, P->errlen, "%s:%d:%d: %.*s: '%.*s' is %s", P->path, lineno, valcol,
                (int)klen, key, (int)vlen, v,
                pr == -2 ? "out of range" : "not an integer (digits with an optional K/M/G suffix)");
        return -1;
    }
    if ((kind == HZ_SK_XDROP || kind == HZ_SK_YDROP || kind == HZ_SK_STEP) && x <= 0) {
        set_err(P->err, P->errlen, "%s:%d:%d: %.*s must be positive", P->path, lineno, valcol, (int)klen, key);
        return -1;
    }
    if (kind == HZ_SK_FILL && (x > HZ_SCORE_MAX || x < HZ_SCORE_MIN)) {
        set_err(P->err, P->errlen, "%s:%d:%d: fill_score %ld is outside %d..%d (hspz sums scores in 32 "
                "bits; larger ones could overflow)", P->path, lineno, valcol, (long)x, HZ_SCORE_MIN, HZ_SCORE_MAX);
        return -1;
    }
    hz_scorefile *out = P->out;
    if (kind == HZ_SK_FILL) { out->fill_score = x; out->has_fill = 1; }
    else if (kind == HZ_SK_OPEN) { out->gap_open = x; out->has_gap_open = 1; P->open_col = valcol; }
    else if (kind == HZ_SK_EXTEND) { out->gap_extend = x; out->has_gap_extend = 1; P->ext_col = valcol; }
    else add_ignored(out, key, klen);
    return 0;
}

/* The column-label header: nt tokens in P->toks.  0 or -1. */
static int sf_header(sfload *P, int lineno, int nt)
{
    const hz_sftok *toks = P->toks;
    if (nt > MAXLAB - 1) {
        set_err(P->err, P->errlen, "%s:%d:%d: too many column labels (at most %d)", P->path,
                lineno, toks[MAXLAB - 1].col, MAXLAB - 1);
        return -1;
    }
    for (int i = 0; i < nt; i++) {
        int ch = hz_sf_label(toks[i].s, toks[i].len), dup = 0;
        if (ch < 0) {
            set_err(P->err, P->errlen, "%s:%d:%d: invalid column label '%.*s' (one character or "
                    "two hex digits 01..FF)", P->path, lineno, toks[i].col, (int)toks[i].len, toks[i].s);
            return -1;
        }
        for (int j = 0; j < i; j++) dup |= P->col_lab[j] == ch;
        if (dup) {
            set_err(P->err, P->errlen, "%s:%d:%d: duplicate column label '%.*s'", P->path, lineno,
                    toks[i].col, (int)toks[i].len, toks[i].s);
            return -1;
        }
        if (P->bad_chars[0] >= 0 && ch == P->bad_chars[0]) {
            set_err(P->err, P->errlen, "%s:%d:%d: column label '%.*s' is the bad_score character "
                    "set on line %d", P->path, lineno, toks[i].col, (int)toks[i].len, toks[i].s, P->bad_line);
            return -1;
        }
        if (!is_dna_label(ch)) {
            set_err(P->err, P->errlen, "%s:%d:%d: column label '%.*s' is not A, C, G, T or N "
                    "(lastz reads any other label set as quantum DNA)", P->path, lineno,
                    toks[i].col, (int)toks[i].len, toks[i].s);
            return -1;
        }
        P->col_lab[i] = ch;
    }
    char abuf[160];
    if (dna_alphabet_problem(P->col_lab, nt, "column", abuf, sizeof abuf)) {
        set_err(P->err, P->errlen, "%s:%d:%d: %s (column labels must be A C G T, optionally N, "
                "optionally a c g t)", P->path, lineno, toks[0].col, abuf);
        return -1;
    }
    P->ncols = nt;
    P->have_header = 1;
    P->header_line = lineno;
    return 0;
}

/* A row's label (labelled rows): valid, new, not the bad_score character, DNA.  The label,
 * or -1. */
static int sf_row_label(sfload *P, int lineno)
{
    const hz_sftok *t = &P->toks[0];
    int rlab = hz_sf_label(t->s, t->len);
    if (rlab < 0) {
        set_err(P->err, P->errlen, "%s:%d:%d: invalid row label '%.*s' (one character or two hex "
                "digits 01..FF)", P->path, lineno, t->col, (int)t->len, t->s);
        return -1;
    }
    for (int j = 0; j < P->nrows; j++)
        if (P->row_lab[j] == rlab) {
            set_err(P->err, P->errlen, "%s:%d:%d: duplicate row '%.*s' (first on line %d)", P->path,
                    lineno, t->col, (int)t->len, t->s, P->row_line[j]);
            return -1;
        }
    if (P->bad_chars[1] >= 0 && rlab == P->bad_chars[1]) {
        set_err(P->err, P->errlen, "%s:%d:%d: row label '%.*s' is the bad_score character set on "
                "line %d", P->path, lineno, t->col, (int)t->len, t->s, P->bad_line);
        return -1;
    }
    if (!is_dna_label(rlab)) {
        set_err(P->err, P->errlen, "%s:%d:%d: row label '%.*s' is not A, C, G, T or N (lastz "
                "reads any other label set as quantum DNA)", P->path, lineno, t->col, (int)t->len, t->s);
        return -1;
    }
    return rlab;
}

/* A matrix row: nt tokens in P->toks.  0 or -1. */
static int sf_row(sfload *P, const hz_sfline *l, int nt)
{
    const hz_sftok *toks = P->toks;
    int lineno = l->lineno, ncols = P->ncols, e = (int)l->e;
    if (l->eq) {
        set_err(P->err, P->errlen, "%s:%d:%d: setting after the matrix header (settings must come "
                "before the column labels on line %d)", P->path, lineno, (int)l->b + 1, P->header_line);
        return -1;
    }
    if (P->nfields < 0) {
        if (nt != ncols && nt != ncols + 1) {
            set_err(P->err, P->errlen, "%s:%d:%d: row has %d fields; expected %d scores, or a row "
                    "label and %d scores", P->path, lineno, nt > ncols + 1 ? toks[ncols + 1].col : e + 1, nt, ncols, ncols);
            return -1;
        }
        if (nt == ncols && nt > 0 && parse_score(toks[0].s, toks[0].len, &(int32_t){0}) == -1 &&
            hz_sf_label(toks[0].s, toks[0].len) >= 0) {   /* "A 91 -114 -31" under A C G T */
            set_err(P->err, P->errlen, "%s:%d:%d: row '%.*s' has %d scores; expected %d (one per column label)",
                    P->path, lineno, e + 1, (int)toks[0].len, toks[0].s, nt - 1, ncols);
            return -1;
        }
        P->nfields = nt;
    } else if (nt != P->nfields) {
        set_err(P->err, P->errlen, "%s:%d:%d: row has %d fields but the first row (line %d) has %d",
                P->path, lineno, nt > P->nfields ? toks[P->nfields].col : e + 1, nt, P->row_line[0], P->nfields);
        return -1;
    }
    int labelled = P->nfields == ncols + 1, rlab;
    if (P->nrows >= MAXLAB - 1 || (!labelled && P->nrows >= ncols)) {
        set_err(P->err, P->errlen, "%s:%d:%d: too many rows (%s)", P->path, lineno, toks[0].col,
                labelled ? "at most 255" : "rows without labels take the column labels in order");
        return -1;
    }
    if (labelled) { if ((rlab = sf_row_label(P, lineno)) < 0) return -1; }
    else rlab = P->col_lab[P->nrows];
    P->row_lab[P->nrows] = rlab;
    P->row_line[P->nrows] = lineno;
    P->nrows++;
    int r = acgt_index(rlab);
    for (int i = 0; i < ncols; i++) {
        const hz_sftok *t = &toks[i + labelled];
        int32_t x;
        int pr = parse_score(t->s, t->len, &x);
        if (pr) {
            set_err(P->err, P->errlen, "%s:%d:%d: score '%.*s' is %s", P->path, lineno, t->col, (int)t->len, t->s,
                    pr == -2 ? "out of range" : "not an integer (digits with an optional K/M/G suffix)");
            return -1;
        }
        if (x > HZ_SCORE_MAX || x < HZ_SCORE_MIN) {   /* scoring.h: 32-bit sums stay exact */
            set_err(P->err, P->errlen, "%s:%d:%d: score %ld is outside %d..%d (hspz sums scores in 32 bits; "
                    "larger ones could overflow)", P->path, lineno, t->col, (long)x, HZ_SCORE_MIN, HZ_SCORE_MAX);
            return -1;
        }
        int c = acgt_index(P->col_lab[i]);
        if (r >= 0 && c >= 0) { P->val[r][c] = x; P->defined[r][c] = 1; }
    }
    return 0;
}

/* After the last line: a whole matrix, DNA row labels, LASTZ's gap checks; then the ACGT
 * block into P->out.  0 or -1. */
static int sf_finish(sfload *P, const hz_sfread *rd)
{
    hz_scorefile *out = P->out;
    char abuf[160];
    int el = rd->eof_line, ec = rd->eof_col;
    if (!P->have_header) {
        set_err(P->err, P->errlen, "%s:%d:%d: no substitution matrix (%s)", P->path, el, ec,
                rd->lineno == 0 ? "the file is empty" : "expected a line of column labels, e.g. 'A C G T'");
        return -1;
    }
    if (P->nrows == 0) {
        set_err(P->err, P->errlen, "%s:%d:%d: the matrix has column labels (line %d) but no rows", P->path,
                el, ec, P->header_line);
        return -1;
    }
    if (P->nfields == P->ncols && P->nrows != P->ncols) {
        set_err(P->err, P->errlen, "%s:%d:%d: the matrix has no row labels and %d rows; expected %d "
                "(one per column label)", P->path, el, ec, P->nrows, P->ncols);
        return -1;
    }
    if (dna_alphabet_problem(P->row_lab, P->nrows, "row", abuf, sizeof abuf)) {
        set_err(P->err, P->errlen, "%s:%d:%d: %s (row labels must be A C G T, optionally N, optionally "
                "a c g t)", P->path, el, ec, abuf);
        return -1;
    }
    /* LASTZ checks (read_score_set): extend >= 0 and open + extend >= 0 */
    if (out->has_gap_extend && out->gap_extend < 0) {
        set_err(P->err, P->errlen, "%s:%d:%d: gap_extend_penalty must not be negative", P->path,
                P->key_line[HZ_SK_EXTEND], P->ext_col);
        return -1;
    }
    if (out->has_gap_open && (int64_t)out->gap_open + (out->has_gap_extend ? out->gap_extend : 30) < 0) {
        set_err(P->err, P->errlen, "%s:%d:%d: gap_open_penalty + gap_extend_penalty must not be negative",
                P->path, P->key_line[HZ_SK_OPEN], P->open_col);
        return -1;
    }
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) /* (the label checks above make every entry defined) */
            out->sub[r][c] = P->defined[r][c] ? P->val[r][c] : out->fill_score;
    return 0;
}

/* Parse a LASTZ score file into *out (see scoring.h; spec §9.3, RULES.md "scoring file").
 *
 * Grammar (LASTZ README "Scoring File"; the lines, settings, tokens and labels are read by
 * scorefile.c): optional `key = value` settings first; the first other non-blank line is the
 * column-label header; every later non-blank line is a matrix row of either ncols scores
 * (BLASTZ style: rows take the column labels in order) or a row label plus ncols scores (the
 * first row decides; all rows must agree).  `#` starts a comment anywhere.  Labels are one
 * character or two hex digits (01..FF), case-sensitive.  Scores are decimal integers with an
 * optional upper-case K/M/G suffix (x1e3/1e6/1e9).
 *
 * Accepted is what Debian's lastz 1.04.22 accepts for DNA: the row and the column label
 * sets must each be A C G T, optionally N, optionally a c g t (LASTZ's DNA alphabets; any
 * other set is quantum DNA, which lastz refuses for DNA input), so the A/C/G/T block is
 * always fully defined (the fill_score-for-undefined rule of §9.3 cannot arise).  Only the
 * upper-case A/C/G/T block is kept (row = target, column = query); N and lower-case
 * entries are checked and dropped.  bad_score ([<c>:[<r>:]]<score>) and fill_score set
 * bad_score/fill_score and has_bad/has_fill; gap_open_penalty/gap_extend_penalty (and
 * their aliases) are kept for lastz; x_drop, y_drop, hsp_threshold, gapped_threshold,
 * step, seed/T are validated and their names appended to ignored_keys.
 *
 * Errors (return -1): err = "<path>:<line>:<col>: <message>", 1-based line and byte
 * column of the offending token (one past the end of the line for a missing field, the
 * end-of-file position for something missing at the end; 1:1 when the file cannot be
 * opened or read).  Covered: unreadable file, unknown or duplicate setting (the message
 * lists the allowed keys), ball/bottleneck (quantum only), missing name or value,
 * non-integer or out-of-range number, invalid bad_score character code, x_drop/y_drop/step
 * <= 0, invalid seed/T, negative gap_extend_penalty or gap_open + gap_extend, carriage
 * returns, invalid/duplicate/non-DNA labels, the bad_score character used as a label,
 * rows with the wrong number of fields, too many/too few rows, a setting after the
 * header, a missing A/C/G/T row or column, an empty file or no matrix. */
int hz_scorefile_load(const char *path, hz_scorefile *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->bad_score = DEFAULT_BAD;
    out->fill_score = DEFAULT_FILL;
    hz_sfread rd;
    if (hz_sfread_open(&rd, path, err, errlen)) return -1;
    sfload *P = calloc(1, sizeof *P);
    if (!P) { hz_sfread_close(&rd); set_err(err, errlen, "%s:1:1: out of memory", path); return -1; }
    P->path = path; P->err = err; P->errlen = errlen; P->out = out;
    P->bad_chars[0] = P->bad_chars[1] = -1;
    P->nfields = -1;
    int rc = 0;
    hz_sfline l;
    while (!rc && hz_sfread_next(&rd, &l)) {
        if (l.cr) {
            set_err(err, errlen, "%s:%d:%d: carriage return (DOS line end): lastz cannot read this "
                    "file; convert it to Unix line ends", path, l.lineno, (int)(l.cr - l.s) + 1);
            rc = -1;
        } else if (l.b == l.len) {
            continue;   /* blank */
        } else if (!P->have_header && l.eq) {
            rc = sf_setting(P, &l);
        } else {
            int nt = hz_sf_tokens(&l, P->toks, MAXLAB + 2);
            rc = P->have_header ? sf_row(P, &l, nt) : sf_header(P, l.lineno, nt);
        }
    }
    if (!rc) rc = sf_finish(P, &rd);
    free(P);
    hz_sfread_close(&rd);
    return rc;
}

/* ------------------------------------------------------------------------------------ */
/* hz_ambiguous_check                                                                     */
/* ------------------------------------------------------------------------------------ */

/* One number of --ambiguous: [-]digits within int, else a message. */
static int amb_number(const char *amb, const char *s, size_t len, long long *out, char *err, size_t errlen)
{
    size_t i = s[0] == '-';
    int ok = len > i && len < 20;
    for (size_t k = i; ok && k < len; k++) ok = isdigit((unsigned char)s[k]) != 0;
    if (!ok) {
        set_err(err, errlen, "--ambiguous: '%s': '%.*s' is not an integer ([-]digits; lastz reads "
                "'1.5', '1K' or '0x10' as another number)", amb, (int)len, s);
        return -1;
    }
    *out = strtoll(s, NULL, 10);   /* < 20 characters: no overflow */
    return 0;
}

void hz_ambiguous_split(const char *amb, hz_ambig *a)
{
    memset(a, 0, sizeof *a);
    if (!amb) amb = "";
    a->part[0] = amb;
    a->nparts = 1;
    for (const char *p = amb; *p; p++)
        if (*p == ',') { if (a->nparts < 3) a->part[a->nparts] = p + 1; a->nparts++; }
    for (int k = 0; k < a->nparts && k < 3; k++) {
        const char *c = strchr(a->part[k], ',');
        a->plen[k] = c ? (size_t)(c - a->part[k]) : strlen(a->part[k]);
    }
    a->word = a->plen[0] == 1 && !memcmp(amb, "n", 1) ? HZ_AMB_N
            : a->plen[0] == 5 && !memcmp(amb, "iupac", 5) ? HZ_AMB_IUPAC : HZ_AMB_OTHER;
}

int hz_ambiguous_check(const char *amb, char *err, size_t errlen)
{
    if (!amb) return 0;
    if (!amb[0]) {   /* like every other empty value: names nothing (issue 31 review) */
        set_err(err, errlen, "--ambiguous: '': empty value (give n, iupac or n|iupac,REWARD,PENALTY)");
        return -1;
    }
    hz_ambig a;
    hz_ambiguous_split(amb, &a);
    int np = a.nparts;
    if (np > 3 || a.word == HZ_AMB_OTHER) {
        set_err(err, errlen, "--ambiguous: '%s' is not n, iupac, n[,REWARD],PENALTY or "
                "iupac[,REWARD],PENALTY", amb);
        return -1;
    }
    long long v[3] = {0};
    for (int k = 1; k < np; k++)
        if (amb_number(amb, a.part[k], a.plen[k], &v[k], err, errlen)) return -1;
    if (np >= 2 && v[np - 1] < 0) {
        set_err(err, errlen, "--ambiguous: '%s': the penalty %lld is negative (lastz: the penalty "
                "must be non-negative)", amb, v[np - 1]);
        return -1;
    }
    if (np == 3 && (v[1] > HZ_SCORE_MAX || v[1] < HZ_SCORE_MIN)) {
        set_err(err, errlen, "--ambiguous: '%s': the reward %lld is outside %d..%d (scores are "
                "summed in 32 bits)", amb, v[1], HZ_SCORE_MIN, HZ_SCORE_MAX);
        return -1;
    }
    if (np >= 2 && v[np - 1] > -(long long)HZ_SCORE_MIN) {
        set_err(err, errlen, "--ambiguous: '%s': the penalty %lld is above %lld (scores are summed "
                "in 32 bits)", amb, v[np - 1], -(long long)HZ_SCORE_MIN);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------ */
/* hz_scoring_build                                                                       */
/* ------------------------------------------------------------------------------------ */

/* Build the 8x8 matrix sub[target code][query code] (codes HZ_A..HZ_E) following spec §9.1
 * with v0.3's bad/fill (delta §7).  All 64 entries are written, in the spec's order:
 * ACGT block (HOXD70 or sf->sub); L vs ACGT and L-L = bad; N row/column vs A,C,G,T,L and
 * N-N (penalty/reward if the first --ambiguous field is exactly "n" or "iupac", else bad);
 * X row/column (iupac: penalty vs A,C,G,T,L,N and reward X-X; else fill vs ACGT, bad vs
 * L,N, fill X-X); E row and column = -10*xdrop.  bad/fill = sf's when set, else -1000/-100.
 * --ambiguous: split on ','; field = first part; exactly 3 parts -> reward = part2,
 * penalty = -part3 (strict decimal integers); whole string "n" or "iupac" -> 0/0; else
 * -100/-100 (so "n,5" enables the N rules with -100/-100).
 * Errors (return -1, message in err): a 3-part --ambiguous whose 2nd/3rd part is not an
 * integer (or whose negation overflows); -10*xdrop outside int32. */
int hz_scoring_build(int32_t sub[HZ_NCODES][HZ_NCODES], const hz_scorefile *sf,
                     const char *ambiguous, int32_t xdrop, char *err, size_t errlen)
{
    int32_t bad = (sf && sf->has_bad) ? sf->bad_score : DEFAULT_BAD;
    int32_t fill = (sf && sf->has_fill) ? sf->fill_score : DEFAULT_FILL;
    int32_t reward = DEFAULT_AMBIG, penalty = DEFAULT_AMBIG;

    const char *amb = ambiguous ? ambiguous : "";
    hz_ambig a;
    hz_ambiguous_split(amb, &a);
    int field_n = a.word == HZ_AMB_N, field_iupac = a.word == HZ_AMB_IUPAC;
    if (a.nparts == 3) {
        char p2[64], p3[64];
        size_t l2 = a.plen[1], l3 = a.plen[2];
        int32_t r = 0, pn = 0;
        int ok = l2 < sizeof p2 && l3 < sizeof p3;
        if (ok) {
            memcpy(p2, a.part[1], l2); p2[l2] = '\0';
            memcpy(p3, a.part[2], l3); p3[l3] = '\0';
            ok = parse_plain_int(p2, &r) == 0 && parse_plain_int(p3, &pn) == 0 && pn != INT32_MIN;
        }
        if (!ok) {
            set_err(err, errlen, "--ambiguous=%s: reward and penalty must be integers "
                    "(<field>,<reward>,<penalty>)", amb);
            return -1;
        }
        reward = r;
        penalty = -pn;
    } else if (strcmp(amb, "n") == 0 || strcmp(amb, "iupac") == 0) {
        reward = penalty = 0;
    }

    int64_t e64 = -10 * (int64_t)xdrop;
    if (e64 < INT32_MIN || e64 > INT32_MAX) {
        set_err(err, errlen, "xdrop %ld: -10*xdrop does not fit in a 32-bit score", (long)xdrop);
        return -1;
    }

    /* ACGT x ACGT */
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) sub[r][c] = sf ? sf->sub[r][c] : HOXD70[r][c];
    /* L */
    for (int i = HZ_A; i <= HZ_L; i++) sub[HZ_L][i] = sub[i][HZ_L] = bad;
    /* N (the loop covers every code below N, L included) */
    int n_on = field_n || field_iupac;
    for (int i = HZ_A; i < HZ_N; i++) sub[HZ_N][i] = sub[i][HZ_N] = n_on ? penalty : bad;
    sub[HZ_N][HZ_N] = n_on ? reward : bad;
    /* X */
    for (int i = HZ_A; i < HZ_X; i++) {
        int32_t v = field_iupac ? penalty : (i <= HZ_T ? fill : bad);
        sub[HZ_X][i] = sub[i][HZ_X] = v;
    }
    sub[HZ_X][HZ_X] = field_iupac ? reward : fill;
    /* E */
    for (int i = 0; i < HZ_NCODES; i++) sub[HZ_E][i] = sub[i][HZ_E] = (int32_t)e64;
    return 0;
}

int hz_xparams_build(hz_xparams *xp, const hz_scorefile *sf, const char *ambiguous, int32_t xdrop,
                     int32_t hspthresh, int entropy, char *err, size_t errlen)
{
    int32_t sub8[HZ_NCODES][HZ_NCODES];
    if (hz_scoring_build(sub8, sf, ambiguous, xdrop, err, errlen)) return -1;
    memset(xp, 0, sizeof *xp);
    memcpy(xp->sub, sub8, sizeof xp->sub);
    xp->xdrop = xdrop; xp->hspthresh = hspthresh; xp->entropy = entropy;
    xp->gate_min_total = hz_gate_threshold(hspthresh);
    return 0;
}

/* A line's setting name: the first word, up to blank or '=' ("hsp_threshold = 3000"). */
static int line_sets(const char *s, const char *e, const char *key)
{
    while (s < e && (*s == ' ' || *s == '\t')) s++;
    size_t k = strlen(key);
    if ((size_t)(e - s) < k || memcmp(s, key, k)) return 0;
    s += k;
    return s == e || *s == ' ' || *s == '\t' || *s == '=' || *s == '\r';
}

char *hz_scorefile_with_thresholds(const char *path, int32_t hspthresh, int32_t gappedthresh,
                                   size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) { snprintf(err, errlen, "%s: %s", path, strerror(errno)); return NULL; }
    char *body = NULL, *out = NULL;
    size_t n = 0, cap = 0, r;
    char chunk[65536];
    while ((r = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (n + r > cap) {
            size_t c = cap ? 2 * cap : sizeof chunk;
            while (c < n + r) c *= 2;
            char *p = realloc(body, c);
            if (!p) { snprintf(err, errlen, "out of memory"); goto done; }
            body = p; cap = c;
        }
        memcpy(body + n, chunk, r); n += r;
    }
    if (ferror(f)) { snprintf(err, errlen, "%s: read error", path); goto done; }
    int has_h = 0, has_g = 0;
    for (size_t i = 0; i < n;) {
        const char *s = body + i, *e = memchr(s, '\n', n - i);
        if (!e) e = body + n;
        has_h |= line_sets(s, e, "hsp_threshold");
        has_g |= line_sets(s, e, "gapped_threshold");
        i = (size_t)(e - body) + 1;
    }
    /* settings precede the matrix in a LASTZ score file: the missing ones go first */
    char head[96];
    int hl = 0;
    if (!has_h) hl += snprintf(head + hl, sizeof head - (size_t)hl, "hsp_threshold = %d\n", (int)hspthresh);
    if (!has_g) hl += snprintf(head + hl, sizeof head - (size_t)hl, "gapped_threshold = %d\n", (int)gappedthresh);
    if (!(out = malloc((size_t)hl + n + 1))) { snprintf(err, errlen, "out of memory"); goto done; }
    memcpy(out, head, (size_t)hl);
    if (n) memcpy(out + hl, body, n);
    out[hl + n] = 0;
    *len = (size_t)hl + n;
done:
    fclose(f);
    free(body);
    return out;
}
