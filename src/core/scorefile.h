/* scorefile — reading a LASTZ score file (LASTZ README "Scoring File"), shared by the HSP
 * stage (scoring.c: KegAlign's checks, the 8x8 matrix, RULES.md "scoring file") and the
 * gapped stage (gapped_score.c: lastz's 256x256 matrix, lastz-gapped-spec.md §2.2).
 *
 * This module reads: the file's bytes, its lines with '#' comments cut, a `key = value`
 * setting split into its parts, LASTZ's setting names, whitespace-separated tokens with their
 * columns, and character labels.  What a stage accepts, and the matrix it builds, is its own.
 */
#ifndef HZ_SCOREFILE_H
#define HZ_SCOREFILE_H
#include <stddef.h>
#include <stdint.h>

/* One line of the file, its '#' comment cut: s[0 .. len).  lineno is 1-based.  cr: its first
 * '\r' (NULL: none; a stage may refuse DOS line ends); eq: its first '=' (NULL: none).
 * s[b .. e) is the line without leading and trailing blanks (space, \t, \v, \f, \r); b == len
 * for a blank line. */
typedef struct {
    const char *s;
    size_t len, b, e;
    int lineno;
    const char *cr, *eq;
} hz_sfline;

/* The file in memory, read line by line.  eof_line / eof_col: 1-based position just past the
 * last byte (where "something is missing at the end" errors point). */
typedef struct {
    char *buf;
    size_t n, pos;
    int lineno, eof_line, eof_col;
} hz_sfread;

/* Read path whole into r.  Returns 0, or -1 with "<path>:1:1: cannot open score file: <why>",
 * "<path>:1:1: cannot read score file: <why>" or "<path>:1:1: out of memory" in err (r empty). */
int hz_sfread_open(hz_sfread *r, const char *path, char *err, size_t errlen);
/* The next line into *l: 1, or 0 at the end of the file. */
int hz_sfread_next(hz_sfread *r, hz_sfline *l);
void hz_sfread_close(hz_sfread *r);
/* Keep only the first len bytes of l (its other fields follow): a stage that reads lines as
 * C strings, as lastz does, stops at a NUL byte. */
void hz_sfline_cut(hz_sfline *l, size_t len);

/* LASTZ's setting names (README "Scoring File" and its one-letter aliases); HZ_SK_SEED covers
 * `seed` and `T` (one setting: giving both is a duplicate).  ball and bottleneck apply to
 * quantum DNA only. */
enum { HZ_SK_BAD, HZ_SK_FILL, HZ_SK_OPEN, HZ_SK_EXTEND, HZ_SK_HSP, HZ_SK_GAPPED, HZ_SK_XDROP,
       HZ_SK_YDROP, HZ_SK_STEP, HZ_SK_SEED, HZ_SK_BALL, HZ_SK_BOTTLENECK, HZ_SK_N };
/* The kind (HZ_SK_*) of the setting name key[0 .. len), or -1 for a name LASTZ does not know. */
int hz_sf_key(const char *key, size_t len);

/* A setting line (l->eq set) split at its '=': the name l->s[kb .. ke) and the value
 * l->s[vb .. ve), both without surrounding blanks (either may be empty: kb == ke, vb == ve). */
typedef struct { size_t kb, ke, vb, ve; } hz_sfset;
void hz_sf_setting(const hz_sfline *l, hz_sfset *st);

/* A token of a line: its bytes and 1-based byte column. */
typedef struct { const char *s; size_t len; int col; } hz_sftok;
/* Split l's text at blanks into tokens.  Returns the number of tokens (all of them, even past
 * max), storing at most max. */
int hz_sf_tokens(const hz_sfline *l, hz_sftok *toks, int max);

/* A LASTZ character label: one character, or two hex digits 01..FF.  Returns the byte
 * (1..255), or -1. */
int hz_sf_label(const char *tok, size_t len);

#endif
