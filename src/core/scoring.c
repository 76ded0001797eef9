/* scoring — the 8x8 substitution matrix of the HSP stage and LASTZ score files.
 *
 * Spec: ../shared/spec/kegalign-hsp-spec.md §9 (matrix rules, score-file use),
 * kegalign-v03-delta.md §7 (bad/fill taken from the score file, PR #43), RULES.md row
 * "scoring file".  The score-file grammar follows LASTZ's documented "Scoring File" format
 * (README, section "Scoring File"); this is an independent implementation.
 */
#include "scoring.h"

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

static int is_ws(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* A LASTZ character code: one character, or two hex digits 01..FF.  Returns the byte
 * (1..255) or -1. */
static int parse_char_code(const char *tok, size_t len)
{
    if (len == 1) return (unsigned char)tok[0] ? (unsigned char)tok[0] : -1;
    if (len == 2) {
        int h = hexval(tok[0]), l = hexval(tok[1]);
        if (h < 0 || l < 0 || (h == 0 && l == 0)) return -1;
        return h * 16 + l;
    }
    return -1;
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

/* A token of a line: byte offset and length inside the line, 1-based column. */
typedef struct { const char *s; size_t len; int col; } tok_t;

/* Split line[0..n) (comment already cut) into whitespace-separated tokens.  Returns the
 * number of tokens (all of them, even past max), storing at most max. */
static int tokenize(const char *line, size_t n, tok_t *toks, int max)
{
    int k = 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && is_ws(line[i])) i++;
        if (i >= n) break;
        size_t st = i;
        while (i < n && !is_ws(line[i])) i++;
        if (k < max) { toks[k].s = line + st; toks[k].len = i - st; toks[k].col = (int)st + 1; }
        k++;
    }
    return k;
}

/* ------------------------------------------------------------------------------------ */
/* settings                                                                               */
/* ------------------------------------------------------------------------------------ */

/* K_SEED covers both `seed` and `T` (one LASTZ setting: giving both is a duplicate). */
enum key_kind { K_BAD, K_FILL, K_OPEN, K_EXTEND, K_HSP, K_GAPPED, K_XDROP, K_YDROP, K_STEP,
                K_SEED, K_NKEYS };

/* Names LASTZ accepts (LASTZ README "Scoring File" plus its short aliases).  `ball` and
 * `bottleneck` only apply to quantum DNA and are rejected (they make lastz fail on DNA). */
static const struct { const char *name; enum key_kind kind; } KEYS[] = {
    {"bad_score", K_BAD}, {"bad", K_BAD},
    {"fill_score", K_FILL}, {"fill", K_FILL},
    {"gap_open_penalty", K_OPEN}, {"gap_open", K_OPEN}, {"open", K_OPEN}, {"O", K_OPEN},
    {"gap_extend_penalty", K_EXTEND}, {"gap_extend", K_EXTEND}, {"extend", K_EXTEND},
    {"E", K_EXTEND},
    {"hsp_threshold", K_HSP}, {"hsp_thresh", K_HSP}, {"K", K_HSP},
    {"gapped_threshold", K_GAPPED}, {"gapped_thresh", K_GAPPED}, {"L", K_GAPPED},
    {"x_drop", K_XDROP}, {"X", K_XDROP},
    {"y_drop", K_YDROP}, {"Y", K_YDROP},
    {"step", K_STEP}, {"Z", K_STEP},
    {"seed", K_SEED},
    {"T", K_SEED},
};

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

/* ------------------------------------------------------------------------------------ */
/* hz_scorefile_load                                                                      */
/* ------------------------------------------------------------------------------------ */

#define MAXLAB 256

/* Parse a LASTZ score file into *out (see scoring.h; spec §9.3, RULES.md "scoring file").
 *
 * Grammar (LASTZ README "Scoring File"): optional `key = value` settings first; the first
 * other non-blank line is the column-label header; every later non-blank line is a matrix
 * row of either ncols scores (BLASTZ style: rows take the column labels in order) or a row
 * label plus ncols scores (the first row decides; all rows must agree).  `#` starts a
 * comment anywhere.  Labels are one character or two hex digits (01..FF), case-sensitive.
 * Scores are decimal integers with an optional upper-case K/M/G suffix (x1e3/1e6/1e9).
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

    FILE *f = fopen(path, "rb");
    if (!f) {
        set_err(err, errlen, "%s:1:1: cannot open score file: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf) { fclose(f); set_err(err, errlen, "%s:1:1: out of memory", path); return -1; }
    for (;;) {
        if (n == cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) { free(buf); fclose(f); set_err(err, errlen, "%s:1:1: out of memory", path); return -1; }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        fclose(f);
        set_err(err, errlen, "%s:1:1: cannot read score file: %s", path, strerror(e ? e : EIO));
        return -1;
    }
    fclose(f);

    /* end-of-file position, for "missing" errors */
    int eof_line = 1, eof_col = 1;
    for (size_t i = 0; i < n; i++) {
        if (buf[i] == '\n') { eof_line++; eof_col = 1; } else eof_col++;
    }

    int key_line[K_NKEYS] = {0};
    int bad_chars[2] = {-1, -1}; /* explicit bad_score character codes (column, row) */
    int bad_line = 0, open_col = 0, ext_col = 0;
    char abuf[160];

    int have_header = 0, header_line = 0, ncols = 0;
    int col_lab[MAXLAB];
    int nfields = -1, nrows = 0;
    int row_lab[MAXLAB], row_line[MAXLAB];
    int defined[4][4] = {{0}};
    int32_t val[4][4] = {{0}};
    tok_t toks[MAXLAB + 2];

    int rc = -1;
    size_t pos = 0;
    int lineno = 0;
    while (pos < n) {
        lineno++;
        size_t st = pos;
        while (pos < n && buf[pos] != '\n') pos++;
        size_t len = pos - st;
        if (pos < n) pos++; /* skip '\n' */
        const char *line = buf + st;
        /* cut the comment */
        const char *hash = memchr(line, '#', len);
        if (hash) len = (size_t)(hash - line);
        const char *cr = memchr(line, '\r', len);
        if (cr) {
            set_err(err, errlen, "%s:%d:%d: carriage return (DOS line end): lastz cannot read this "
                    "file; convert it to Unix line ends", path, lineno, (int)(cr - line) + 1);
            goto done;
        }
        /* skip blank lines */
        size_t b = 0;
        while (b < len && is_ws(line[b])) b++;
        if (b == len) continue;
        size_t e = len;
        while (e > b && is_ws(line[e - 1])) e--;
        const char *eq = memchr(line, '=', len);

        if (!have_header && eq) {
            /* ---- a setting: key = value ---- */
            size_t ke = (size_t)(eq - line);
            while (ke > b && is_ws(line[ke - 1])) ke--;
            size_t vb = (size_t)(eq - line) + 1;
            while (vb < e && is_ws(line[vb])) vb++;
            int keycol = (int)b + 1, valcol = (int)vb + 1;
            if (ke == b) {
                set_err(err, errlen, "%s:%d:%d: setting has no name before '='", path, lineno,
                        (int)(eq - line) + 1);
                goto done;
            }
            const char *key = line + b;
            size_t klen = ke - b;
            int kind = -1;
            for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++)
                if (strlen(KEYS[i].name) == klen && memcmp(KEYS[i].name, key, klen) == 0) {
                    kind = (int)KEYS[i].kind;
                    break;
                }
            if (kind < 0) {
                if ((klen == 4 && memcmp(key, "ball", 4) == 0) ||
                    (klen == 10 && memcmp(key, "bottleneck", 10) == 0))
                    set_err(err, errlen, "%s:%d:%d: setting '%.*s' applies only to quantum DNA "
                            "and is not supported", path, lineno, keycol, (int)klen, key);
                else
                    set_err(err, errlen, "%s:%d:%d: unknown setting '%.*s' (allowed: %s)", path,
                            lineno, keycol, (int)klen, key, ALLOWED_KEYS);
                goto done;
            }
            if (key_line[kind]) {
                set_err(err, errlen, "%s:%d:%d: setting '%.*s' given twice (first on line %d)",
                        path, lineno, keycol, (int)klen, key, key_line[kind]);
                goto done;
            }
            key_line[kind] = lineno;
            const char *v = line + vb;
            size_t vlen = e - vb;
            if (vlen == 0) {
                set_err(err, errlen, "%s:%d:%d: setting '%.*s' has no value", path, lineno,
                        (int)(eq - line) + 2, (int)klen, key);
                goto done;
            }
            int32_t x = 0;
            int pr;
            switch (kind) {
            case K_BAD: {
                /* [<col>:[<row>:]]<score>; codes are one character or two hex digits */
                const char *p = v, *end = v + vlen;
                int which = 0;
                for (;;) {
                    const char *colon = memchr(p, ':', (size_t)(end - p));
                    if (!colon) break;
                    int pcol = valcol + (int)(p - v);
                    if (which >= 2) {
                        set_err(err, errlen, "%s:%d:%d: bad_score takes at most two character "
                                "codes ([<char>:[<char>:]]<score>)", path, lineno,
                                valcol + (int)(colon - v));
                        goto done;
                    }
                    int ch = parse_char_code(p, (size_t)(colon - p));
                    if (ch < 0) {
                        set_err(err, errlen, "%s:%d:%d: invalid bad_score character code '%.*s' "
                                "(one character or two hex digits 01..FF)", path, lineno, pcol,
                                (int)(colon - p), p);
                        goto done;
                    }
                    if (which == 0) bad_chars[0] = bad_chars[1] = ch; /* column (and row) */
                    else bad_chars[1] = ch;                           /* row */
                    bad_line = lineno;
                    which++;
                    p = colon + 1;
                }
                pr = parse_score(p, (size_t)(end - p), &x);
                if (pr) {
                    set_err(err, errlen, "%s:%d:%d: bad_score: '%.*s' is %s", path, lineno,
                            valcol + (int)(p - v), (int)(end - p), p,
                            pr == -2 ? "out of range" : "not an integer score (digits with an optional K/M/G suffix)");
                    goto done;
                }
                if (x > HZ_SCORE_MAX || x < HZ_SCORE_MIN) {
                    set_err(err, errlen, "%s:%d:%d: bad_score %ld is outside %d..%d (hspz sums scores in 32 "
                            "bits; larger ones could overflow)", path, lineno, valcol + (int)(p - v), (long)x,
                            HZ_SCORE_MIN, HZ_SCORE_MAX);
                    goto done;
                }
                out->bad_score = x;
                out->has_bad = 1;
                break;
            }
            case K_SEED: {
                if (klen == 1) { /* T = 1..4 */
                    if (vlen != 1 || v[0] < '1' || v[0] > '4') {
                        set_err(err, errlen, "%s:%d:%d: T must be 1, 2, 3 or 4", path, lineno, valcol);
                        goto done;
                    }
                    add_ignored(out, key, klen);
                    break;
                }
                static const char *ok[] = {"12of19,transition", "12of19,notransition",
                                           "14of22,transition", "14of22,notransition",
                                           "12_of_19,transition", "12_of_19,no_transition",
                                           "14_of_22,transition", "14_of_22,no_transition"};
                int good = 0;
                for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
                    if (strlen(ok[i]) == vlen && memcmp(ok[i], v, vlen) == 0) good = 1;
                if (!good) {
                    set_err(err, errlen, "%s:%d:%d: invalid seed '%.*s' (expected 12of19 or 14of22, "
                            "then ,transition or ,notransition)", path, lineno, valcol, (int)vlen, v);
                    goto done;
                }
                add_ignored(out, key, klen);
                break;
            }
            default:
                pr = parse_score(v, vlen, &x);
                if (pr) {
                    set_err(err, errlen, "%s:%d:%d: %.*s: '%.*s' is %s", path, lineno, valcol,
                            (int)klen, key, (int)vlen, v,
                            pr == -2 ? "out of range" : "not an integer (digits with an optional K/M/G suffix)");
                    goto done;
                }
                if ((kind == K_XDROP || kind == K_YDROP || kind == K_STEP) && x <= 0) {
                    set_err(err, errlen, "%s:%d:%d: %.*s must be positive", path, lineno, valcol,
                            (int)klen, key);
                    goto done;
                }
                if (kind == K_FILL && (x > HZ_SCORE_MAX || x < HZ_SCORE_MIN)) {
                    set_err(err, errlen, "%s:%d:%d: fill_score %ld is outside %d..%d (hspz sums scores in 32 "
                            "bits; larger ones could overflow)", path, lineno, valcol, (long)x, HZ_SCORE_MIN,
                            HZ_SCORE_MAX);
                    goto done;
                }
                if (kind == K_FILL) { out->fill_score = x; out->has_fill = 1; }
                else if (kind == K_OPEN) { out->gap_open = x; out->has_gap_open = 1; open_col = valcol; }
                else if (kind == K_EXTEND) { out->gap_extend = x; out->has_gap_extend = 1; ext_col = valcol; }
                else add_ignored(out, key, klen);
                break;
            }
            continue;
        }

        int nt = tokenize(line, len, toks, MAXLAB + 2);
        if (!have_header) {
            /* ---- the column-label header ---- */
            if (nt > MAXLAB - 1) {
                set_err(err, errlen, "%s:%d:%d: too many column labels (at most %d)", path,
                        lineno, toks[MAXLAB - 1].col, MAXLAB - 1);
                goto done;
            }
            for (int i = 0; i < nt; i++) {
                int ch = parse_char_code(toks[i].s, toks[i].len);
                if (ch < 0) {
                    set_err(err, errlen, "%s:%d:%d: invalid column label '%.*s' (one character or "
                            "two hex digits 01..FF)", path, lineno, toks[i].col, (int)toks[i].len,
                            toks[i].s);
                    goto done;
                }
                for (int j = 0; j < i; j++)
                    if (col_lab[j] == ch) {
                        set_err(err, errlen, "%s:%d:%d: duplicate column label '%.*s'", path, lineno,
                                toks[i].col, (int)toks[i].len, toks[i].s);
                        goto done;
                    }
                if (bad_chars[0] >= 0 && ch == bad_chars[0]) {
                    set_err(err, errlen, "%s:%d:%d: column label '%.*s' is the bad_score character "
                            "set on line %d", path, lineno, toks[i].col, (int)toks[i].len,
                            toks[i].s, bad_line);
                    goto done;
                }
                if (!is_dna_label(ch)) {
                    set_err(err, errlen, "%s:%d:%d: column label '%.*s' is not A, C, G, T or N "
                            "(lastz reads any other label set as quantum DNA)", path, lineno,
                            toks[i].col, (int)toks[i].len, toks[i].s);
                    goto done;
                }
                col_lab[i] = ch;
            }
            if (dna_alphabet_problem(col_lab, nt, "column", abuf, sizeof abuf)) {
                set_err(err, errlen, "%s:%d:%d: %s (column labels must be A C G T, optionally N, "
                        "optionally a c g t)", path, lineno, toks[0].col, abuf);
                goto done;
            }
            ncols = nt;
            have_header = 1;
            header_line = lineno;
            continue;
        }

        /* ---- a matrix row ---- */
        if (eq) {
            set_err(err, errlen, "%s:%d:%d: setting after the matrix header (settings must come "
                    "before the column labels on line %d)", path, lineno, (int)b + 1, header_line);
            goto done;
        }
        if (nfields < 0) {
            if (nt != ncols && nt != ncols + 1) {
                set_err(err, errlen, "%s:%d:%d: row has %d fields; expected %d scores, or a row "
                        "label and %d scores", path, lineno,
                        nt > ncols + 1 ? toks[ncols + 1].col : (int)e + 1, nt, ncols, ncols);
                goto done;
            }
            if (nt == ncols && nt > 0 && parse_score(toks[0].s, toks[0].len, &(int32_t){0}) == -1 &&
                parse_char_code(toks[0].s, toks[0].len) >= 0) {   /* "A 91 -114 -31" under A C G T */
                set_err(err, errlen, "%s:%d:%d: row '%.*s' has %d scores; expected %d (one per column label)",
                        path, lineno, (int)e + 1, (int)toks[0].len, toks[0].s, nt - 1, ncols);
                goto done;
            }
            nfields = nt;
        } else if (nt != nfields) {
            set_err(err, errlen, "%s:%d:%d: row has %d fields but the first row (line %d) has %d",
                    path, lineno, nt > nfields ? toks[nfields].col : (int)e + 1, nt, row_line[0],
                    nfields);
            goto done;
        }
        int labelled = nfields == ncols + 1, rlab;
        if (nrows >= MAXLAB - 1 || (!labelled && nrows >= ncols)) {
            set_err(err, errlen, "%s:%d:%d: too many rows (%s)", path, lineno, toks[0].col,
                    labelled ? "at most 255" : "rows without labels take the column labels in order");
            goto done;
        }
        if (labelled) {
            rlab = parse_char_code(toks[0].s, toks[0].len);
            if (rlab < 0) {
                set_err(err, errlen, "%s:%d:%d: invalid row label '%.*s' (one character or two hex "
                        "digits 01..FF)", path, lineno, toks[0].col, (int)toks[0].len, toks[0].s);
                goto done;
            }
            for (int j = 0; j < nrows; j++)
                if (row_lab[j] == rlab) {
                    set_err(err, errlen, "%s:%d:%d: duplicate row '%.*s' (first on line %d)", path,
                            lineno, toks[0].col, (int)toks[0].len, toks[0].s, row_line[j]);
                    goto done;
                }
            if (bad_chars[1] >= 0 && rlab == bad_chars[1]) {
                set_err(err, errlen, "%s:%d:%d: row label '%.*s' is the bad_score character set on "
                        "line %d", path, lineno, toks[0].col, (int)toks[0].len, toks[0].s, bad_line);
                goto done;
            }
            if (!is_dna_label(rlab)) {
                set_err(err, errlen, "%s:%d:%d: row label '%.*s' is not A, C, G, T or N (lastz "
                        "reads any other label set as quantum DNA)", path, lineno, toks[0].col,
                        (int)toks[0].len, toks[0].s);
                goto done;
            }
        } else {
            rlab = col_lab[nrows];
        }
        row_lab[nrows] = rlab;
        row_line[nrows] = lineno;
        nrows++;
        int r = acgt_index(rlab);
        for (int i = 0; i < ncols; i++) {
            const tok_t *t = &toks[i + labelled];
            int32_t x;
            int pr = parse_score(t->s, t->len, &x);
            if (pr) {
                set_err(err, errlen, "%s:%d:%d: score '%.*s' is %s", path, lineno, t->col,
                        (int)t->len, t->s,
                        pr == -2 ? "out of range" : "not an integer (digits with an optional K/M/G suffix)");
                goto done;
            }
            if (x > HZ_SCORE_MAX || x < HZ_SCORE_MIN) {   /* scoring.h: 32-bit sums stay exact */
                set_err(err, errlen, "%s:%d:%d: score %ld is outside %d..%d (hspz sums scores in 32 bits; "
                        "larger ones could overflow)", path, lineno, t->col, (long)x, HZ_SCORE_MIN, HZ_SCORE_MAX);
                goto done;
            }
            int c = acgt_index(col_lab[i]);
            if (r >= 0 && c >= 0) { val[r][c] = x; defined[r][c] = 1; }
        }
    }

    if (!have_header) {
        set_err(err, errlen, "%s:%d:%d: no substitution matrix (%s)", path, eof_line, eof_col,
                lineno == 0 ? "the file is empty" : "expected a line of column labels, e.g. 'A C G T'");
        goto done;
    }
    if (nrows == 0) {
        set_err(err, errlen, "%s:%d:%d: the matrix has column labels (line %d) but no rows", path,
                eof_line, eof_col, header_line);
        goto done;
    }
    if (nfields == ncols && nrows != ncols) {
        set_err(err, errlen, "%s:%d:%d: the matrix has no row labels and %d rows; expected %d "
                "(one per column label)", path, eof_line, eof_col, nrows, ncols);
        goto done;
    }
    if (dna_alphabet_problem(row_lab, nrows, "row", abuf, sizeof abuf)) {
        set_err(err, errlen, "%s:%d:%d: %s (row labels must be A C G T, optionally N, optionally "
                "a c g t)", path, eof_line, eof_col, abuf);
        goto done;
    }
    /* LASTZ checks (read_score_set): extend >= 0 and open + extend >= 0 */
    if (out->has_gap_extend && out->gap_extend < 0) {
        set_err(err, errlen, "%s:%d:%d: gap_extend_penalty must not be negative", path,
                key_line[K_EXTEND], ext_col);
        goto done;
    }
    if (out->has_gap_open &&
        (int64_t)out->gap_open + (out->has_gap_extend ? out->gap_extend : 30) < 0) {
        set_err(err, errlen, "%s:%d:%d: gap_open_penalty + gap_extend_penalty must not be negative",
                path, key_line[K_OPEN], open_col);
        goto done;
    }

    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) /* (the label checks above make every entry defined) */
            out->sub[r][c] = defined[r][c] ? val[r][c] : out->fill_score;
    rc = 0;

done:
    free(buf);
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

int hz_ambiguous_check(const char *amb, char *err, size_t errlen)
{
    if (!amb) return 0;
    if (!amb[0]) {   /* like every other empty value: names nothing (issue 31 review) */
        set_err(err, errlen, "--ambiguous: '': empty value (give n, iupac or n|iupac,REWARD,PENALTY)");
        return -1;
    }
    const char *part[3] = { amb, NULL, NULL };
    size_t plen[3] = {0};
    int np = 1;
    for (const char *p = amb; *p; p++)
        if (*p == ',') { if (np < 3) part[np] = p + 1; np++; }
    for (int k = 0; k < np && k < 3; k++) {
        const char *c = strchr(part[k], ',');
        plen[k] = c ? (size_t)(c - part[k]) : strlen(part[k]);
    }
    int word = (plen[0] == 1 && !memcmp(amb, "n", 1)) || (plen[0] == 5 && !memcmp(amb, "iupac", 5));
    if (np > 3 || !word) {
        set_err(err, errlen, "--ambiguous: '%s' is not n, iupac, n[,REWARD],PENALTY or "
                "iupac[,REWARD],PENALTY", amb);
        return -1;
    }
    long long v[3] = {0};
    for (int k = 1; k < np; k++)
        if (amb_number(amb, part[k], plen[k], &v[k], err, errlen)) return -1;
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
    const char *c1 = strchr(amb, ',');
    size_t flen = c1 ? (size_t)(c1 - amb) : strlen(amb);
    int field_n = flen == 1 && memcmp(amb, "n", 1) == 0;
    int field_iupac = flen == 5 && memcmp(amb, "iupac", 5) == 0;
    int nparts = 1;
    for (const char *p = amb; *p; p++) if (*p == ',') nparts++;
    if (nparts == 3) {
        const char *c2 = strchr(c1 + 1, ',');
        char p2[64], p3[64];
        size_t l2 = (size_t)(c2 - (c1 + 1)), l3 = strlen(c2 + 1);
        int32_t r = 0, pn = 0;
        int ok = l2 < sizeof p2 && l3 < sizeof p3;
        if (ok) {
            memcpy(p2, c1 + 1, l2); p2[l2] = '\0';
            memcpy(p3, c2 + 1, l3); p3[l3] = '\0';
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
