/* scoring — the 8x8 substitution matrix of the HSP stage and LASTZ score files.
 *
 * Follows ../shared/spec/kegalign-hsp-spec.md §9 and kegalign-v03-delta.md §7 (bad/fill
 * from the score file, PR #43); RULES.md "scoring file".  Codes (rows = target, columns =
 * query): A=0 C=1 G=2 T=3 L=4 (lower-case acgt) N=5 X=6 (anything else) E=7 (separator '&').
 */
#ifndef HZ_SCORING_H
#define HZ_SCORING_H
#include <stddef.h>
#include <stdint.h>
#include "xdrop.h"

enum { HZ_A = 0, HZ_C, HZ_G, HZ_T, HZ_L, HZ_N, HZ_X, HZ_E, HZ_NCODES };

/* What a LASTZ score file gives.  sub[r][c] for r,c in ACGT (row = target).  has_bad /
 * has_fill say whether the file set bad_score / fill_score (else -1000 / -100 apply).
 * Gap penalties and any other recognised keys are kept only to pass on to lastz. */
typedef struct {
    int32_t sub[4][4];
    int32_t bad_score, fill_score;
    int has_bad, has_fill;
    int has_gap_open, has_gap_extend;
    int32_t gap_open, gap_extend;
    int n_ignored_keys;      /* keys that do not change HSPs (caller says so once on stderr) */
    char ignored_keys[256];  /* their names, comma separated, truncated */
} hz_scorefile;

/* Parse a LASTZ score file (LASTZ's rules: `key = value` settings such as bad_score = X:-1000,
 * fill_score = -100, gap_open_penalty, gap_extend_penalty; '#' comments; then a column
 * header line of labels and rows with an optional row label; integers with optional K/M/G
 * suffix).  Entries of the ACGT block the file does not define take the file's fill_score.
 * Returns 0, or -1 with "<path>:<line>:<col>: <message>" in err.  Anything unsupported
 * (unknown key, non-integer score, ragged row, missing A/C/G/T label) is an error. */
int hz_scorefile_load(const char *path, hz_scorefile *out, char *err, size_t errlen);

/* The scores a run may use (score file entries, bad/fill, --ambiguous reward and penalty).
 * KegAlign sums scores in 32 bits (spec §4.2; xdrop.h's int32 S/best) and hspz must give its
 * bytes, so the sum cannot widen: instead entries are bounded.  With at most +10000 per column
 * an X-drop sum needs over 214,000 columns at the top score to leave int32 (HOXD70's 100 meets
 * KegAlign's own limit only after 21 Mbp); the scan stops once best - S > xdrop, so with
 * entries down to -10^9 and xdrop <= 10^8 S and best - S stay within +-1.1e9.  LASTZ 1.04.22 takes any int and, with
 * 2,000,000,000 on the diagonal, overflows too (no output, a warning): hspz refuses instead. */
#define HZ_SCORE_MAX 10000
#define HZ_SCORE_MIN (-1000000000)

/* An --ambiguous value split at its commas (the one reading of it that the HSP stage's check,
 * its matrix and the gapped stage share): word = HZ_AMB_N for a first part exactly "n",
 * HZ_AMB_IUPAC for exactly "iupac", else HZ_AMB_OTHER; nparts = the number of comma-separated
 * parts (all of them, even past 3); part[k] / plen[k] = the first three parts (not
 * NUL-terminated; part[k] NULL past nparts).  NULL amb reads as "" (one empty part). */
enum { HZ_AMB_OTHER = 0, HZ_AMB_N, HZ_AMB_IUPAC };
typedef struct {
    int word, nparts;
    const char *part[3];
    size_t plen[3];
} hz_ambig;
void hz_ambiguous_split(const char *amb, hz_ambig *a);

/* Check an --ambiguous value as LASTZ 1.04.22 reads it (lastz.c, "--ambiguous=n[,<penalty>]"):
 * NULL or "" (none), "n" or "iupac", optionally ",PENALTY" or ",REWARD,PENALTY".  Refused, as
 * LASTZ refuses them: another first word, an empty or non-integer number, more than three
 * parts, a negative penalty.  Refused because LASTZ would read another number than the HSP
 * stage: anything but [-]digits (LASTZ reads "1.5", "1K", "0x10", " 5" its own way) and values
 * outside int (LASTZ wraps 99999999999).  Refused to keep 32-bit sums exact: a reward above
 * HZ_SCORE_MAX or below HZ_SCORE_MIN, a penalty above -HZ_SCORE_MIN.  "N"/"IUPAC" (LASTZ
 * accepts them) are refused: KegAlign's HSP stage would not read them as n/iupac (spec §9.1).
 * An empty value is refused; NULL (not given) is fine.
 * Returns 0, or -1 with "--ambiguous: 'VALUE' ..." (one line) in err. */
int hz_ambiguous_check(const char *amb, char *err, size_t errlen);

/* Build the full 8x8 matrix (§9.1 with v0.3 rules).
 * sf: score file or NULL (HOXD70, bad -1000, fill -100).
 * ambiguous: the --ambiguous string or NULL/"" ("n", "iupac", or "<field>,<reward>,<penalty>").
 * xdrop: the E row/column is -10*xdrop.
 * Returns 0, or -1 with a message in err if `ambiguous` has three fields that are not integers. */
int hz_scoring_build(int32_t sub[HZ_NCODES][HZ_NCODES], const hz_scorefile *sf,
                     const char *ambiguous, int32_t xdrop, char *err, size_t errlen);

/* The extension parameters of a run (xdrop.h hz_xparams): the matrix of hz_scoring_build,
 * xdrop, K = hspthresh, entropy on/off, and the gate's least passing total
 * (hz_gate_threshold(K), spec §4.5).  Same arguments and errors as hz_scoring_build. */
int hz_xparams_build(hz_xparams *xp, const hz_scorefile *sf, const char *ambiguous, int32_t xdrop,
                     int32_t hspthresh, int entropy, char *err, size_t errlen);

/* The bytes of the LASTZ score file `path` for Galaxy's package (galaxy/files/data/scores.txt):
 * the file unchanged, preceded by "hsp_threshold = K" and "gapped_threshold = G" lines for
 * those of the two settings the file does not set.  Without them lastz warns on stderr
 * ("Scores file may warrant setting of thresholds") whenever the matrix's match scores are far
 * from HOXD70's, and batched_lastz counts any such stderr as a failed command.  The lastz
 * commands pass --gappedthresh=G, so the alignments are the same (the command line wins).
 * Returns a malloc'd buffer (NUL-terminated, length in *len), or NULL with "<path>: ..." in err. */
char *hz_scorefile_with_thresholds(const char *path, int32_t hspthresh, int32_t gappedthresh,
                                   size_t *len, char *err, size_t errlen);

#endif
