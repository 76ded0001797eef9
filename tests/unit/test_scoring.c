/* Unit tests for src/core/scoring.c: the 8x8 HSP matrix (kegalign-hsp-spec.md §9.1, v0.3 delta §7)
 * and the LASTZ score-file reader (spec §9.3, RULES.md "scoring file").
 * Prints TAP-like "ok N - ..." / "not ok N - ..." lines and a summary; exits non-zero on
 * any failure.  Reads tests/data/scoring/ (relative to the repository root, or found from
 * __FILE__) and writes temporary files under $TMPDIR or /tmp. */
#include "scoring.h"
#include "scorefile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"


static const char *CODES = "ACGTLNXE";

/* Compare a built matrix with an expected one; print the first differences. */
static int same_matrix(int32_t got[8][8], const int32_t want[8][8], const char *what)
{
    int diffs = 0;
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++)
            if (got[r][c] != want[r][c]) {
                if (diffs < 8)
                    printf("# %s: [%c][%c] got %d want %d\n", what, CODES[r], CODES[c],
                           (int)got[r][c], (int)want[r][c]);
                diffs++;
            }
    return diffs == 0;
}

/* spec §9.1, default (no --ambiguous, xdrop 910) */
static const int32_t SPEC_DEFAULT[8][8] = {
    {91, -114, -31, -123, -1000, -1000, -100, -9100},
    {-114, 100, -125, -31, -1000, -1000, -100, -9100},
    {-31, -125, 100, -114, -1000, -1000, -100, -9100},
    {-123, -31, -114, 91, -1000, -1000, -100, -9100},
    {-1000, -1000, -1000, -1000, -1000, -1000, -1000, -9100},
    {-1000, -1000, -1000, -1000, -1000, -1000, -1000, -9100},
    {-100, -100, -100, -100, -1000, -1000, -100, -9100},
    {-9100, -9100, -9100, -9100, -9100, -9100, -9100, -9100},
};

/* spec §9.1, --ambiguous=iupac, xdrop 910 */
static const int32_t SPEC_IUPAC[8][8] = {
    {91, -114, -31, -123, -1000, 0, 0, -9100},
    {-114, 100, -125, -31, -1000, 0, 0, -9100},
    {-31, -125, 100, -114, -1000, 0, 0, -9100},
    {-123, -31, -114, 91, -1000, 0, 0, -9100},
    {-1000, -1000, -1000, -1000, -1000, 0, 0, -9100},
    {0, 0, 0, 0, 0, 0, 0, -9100},
    {0, 0, 0, 0, 0, 0, 0, -9100},
    {-9100, -9100, -9100, -9100, -9100, -9100, -9100, -9100},
};

static const int32_t HOXD70[4][4] = {
    {91, -114, -31, -123}, {-114, 100, -125, -31}, {-31, -125, 100, -114}, {-123, -31, -114, 91}};

static void copy8(int32_t d[8][8], const int32_t s[8][8]) { memcpy(d, s, sizeof(int32_t) * 64); }

/* ---- temp files ---- */
static char tmpdir[512];

static const char *write_tmp(const char *name, const char *content)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(2); }
    fputs(content, f);
    fclose(f);
    return path;
}

static char datadir[1024];

static void find_datadir(void)
{
    if (access("tests/data/scoring/hoxd70.txt", R_OK) == 0) {
        snprintf(datadir, sizeof datadir, "tests/data/scoring");
        return;
    }
    /* __FILE__ = <root>/tests/unit/test_scoring.c */
    snprintf(datadir, sizeof datadir, "%s", __FILE__);
    char *p = strstr(datadir, "tests/unit/test_scoring.c");
    if (p) strcpy(p, "tests/data/scoring");
}

/* Load `content` and expect success. */
static int load_ok(const char *name, const char *content, hz_scorefile *sf)
{
    char err[1024] = "";
    const char *path = write_tmp(name, content);
    int rc = hz_scorefile_load(path, sf, err, sizeof err);
    if (rc != 0) printf("# unexpected error: %s\n", err);
    return rc == 0;
}

/* Load `content` and expect an error "<path>:<line>:<col>: ..." containing `msg`. */
static void load_err(const char *what, const char *content, int line, int col, const char *msg)
{
    char err[2048] = "";
    hz_scorefile sf;
    const char *keep = getenv("HZ_TEST_KEEP");
    if (keep && *keep == '1') { /* keep a copy per case, to check them against lastz */
        static int k;
        char nm[64];
        snprintf(nm, sizeof nm, "err_%02d.txt", ++k);
        write_tmp(nm, content);
    }
    const char *path = write_tmp("err.txt", content);
    int rc = hz_scorefile_load(path, &sf, err, sizeof err);
    char prefix[1200];
    snprintf(prefix, sizeof prefix, "%s:%d:%d: ", path, line, col);
    int ok = rc == -1 && strncmp(err, prefix, strlen(prefix)) == 0 && strstr(err, msg) != NULL;
    if (!ok) printf("# rc=%d err='%s' want prefix '%s' containing '%s'\n", rc, err, prefix, msg);
    check(ok, "error %s -> %d:%d '%s'", what, line, col, msg);
}

static int sub4_eq(const hz_scorefile *sf, const int32_t want[4][4])
{
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            if (sf->sub[r][c] != want[r][c]) {
                printf("# sub[%c][%c] got %d want %d\n", CODES[r], CODES[c], (int)sf->sub[r][c],
                       (int)want[r][c]);
                return 0;
            }
    return 1;
}

#define HOX_ROWS_LABELLED \
    "     A     C     G     T\n" \
    "A   91  -114   -31  -123\n" \
    "C -114   100  -125   -31\n" \
    "G  -31  -125   100  -114\n" \
    "T -123   -31  -114    91\n"

static void test_build(void)
{
    int32_t m[8][8], want[8][8];
    char err[512];

    check(hz_scoring_build(m, NULL, NULL, 910, err, sizeof err) == 0 &&
              same_matrix(m, SPEC_DEFAULT, "default"),
          "default matrix (no --ambiguous, xdrop 910) equals spec §9.1 table entry by entry");
    check(hz_scoring_build(m, NULL, "", 910, err, sizeof err) == 0 &&
              same_matrix(m, SPEC_DEFAULT, "empty"),
          "--ambiguous='' gives the default matrix");
    check(hz_scoring_build(m, NULL, "N", 910, err, sizeof err) == 0 &&
              same_matrix(m, SPEC_DEFAULT, "N"),
          "--ambiguous=N (upper case) is not recognised: default matrix");
    check(hz_scoring_build(m, NULL, "IUPAC", 910, err, sizeof err) == 0 &&
              same_matrix(m, SPEC_DEFAULT, "IUPAC"),
          "--ambiguous=IUPAC is not recognised: default matrix");

    /* n: row/column N 0 against A,C,G,T,L,N; X as default */
    copy8(want, SPEC_DEFAULT);
    for (int i = 0; i <= HZ_N; i++) want[HZ_N][i] = want[i][HZ_N] = 0;
    check(hz_scoring_build(m, NULL, "n", 910, err, sizeof err) == 0 && same_matrix(m, want, "n"),
          "--ambiguous=n: N row/column 0 vs A,C,G,T,L,N; X unchanged");
    check(m[HZ_L][HZ_N] == 0 && m[HZ_N][HZ_L] == 0 && m[HZ_N][HZ_X] == -1000 &&
              m[HZ_X][HZ_X] == -100 && m[HZ_A][HZ_X] == -100,
          "--ambiguous=n: L-N quirk 0, N-X -1000, X-X -100, A-X -100");

    check(hz_scoring_build(m, NULL, "iupac", 910, err, sizeof err) == 0 &&
              same_matrix(m, SPEC_IUPAC, "iupac"),
          "--ambiguous=iupac equals spec §9.1 iupac table entry by entry");

    /* iupac,50,80: zeros of the iupac table become -80 off-diagonal, 50 on N-N and X-X */
    copy8(want, SPEC_IUPAC);
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++)
            if (SPEC_IUPAC[r][c] == 0) want[r][c] = (r == c) ? 50 : -80;
    check(hz_scoring_build(m, NULL, "iupac,50,80", 910, err, sizeof err) == 0 &&
              same_matrix(m, want, "iupac,50,80"),
          "--ambiguous=iupac,50,80: penalty -80, N-N and X-X reward 50");

    /* n,50,80 */
    copy8(want, SPEC_DEFAULT);
    for (int i = 0; i < HZ_N; i++) want[HZ_N][i] = want[i][HZ_N] = -80;
    want[HZ_N][HZ_N] = 50;
    check(hz_scoring_build(m, NULL, "n,50,80", 910, err, sizeof err) == 0 &&
              same_matrix(m, want, "n,50,80"),
          "--ambiguous=n,50,80: N -80 vs A,C,G,T,L, N-N 50, X as default");

    /* n,5: field 'n' enables the N rules, but reward = penalty = -100 (spec §9.1) */
    copy8(want, SPEC_DEFAULT);
    for (int i = 0; i <= HZ_N; i++) want[HZ_N][i] = want[i][HZ_N] = -100;
    check(hz_scoring_build(m, NULL, "n,5", 910, err, sizeof err) == 0 && same_matrix(m, want, "n,5"),
          "--ambiguous=n,5: N row/column -100 vs A,C,G,T,L,N (field n, reward=penalty=-100)");

    /* iupac,5 (2 parts): field iupac, -100/-100 */
    copy8(want, SPEC_DEFAULT);
    for (int i = 0; i <= HZ_N; i++) want[HZ_N][i] = want[i][HZ_N] = -100;
    for (int i = 0; i <= HZ_X; i++) want[HZ_X][i] = want[i][HZ_X] = -100;
    check(hz_scoring_build(m, NULL, "iupac,5", 910, err, sizeof err) == 0 &&
              same_matrix(m, want, "iupac,5"),
          "--ambiguous=iupac,5: N and X rows/columns -100 (incl. L-X, N-X)");
    check(hz_scoring_build(m, NULL, "iupac,1,2,3", 910, err, sizeof err) == 0 &&
              same_matrix(m, want, "iupac,1,2,3"),
          "--ambiguous=iupac,1,2,3 (4 parts): like iupac,5");

    /* x,50,80: 3 parts but field neither n nor iupac: reward/penalty unused */
    check(hz_scoring_build(m, NULL, "x,50,80", 910, err, sizeof err) == 0 &&
              same_matrix(m, SPEC_DEFAULT, "x,50,80"),
          "--ambiguous=x,50,80: default matrix");
    check(hz_scoring_build(m, NULL, "n,", 910, err, sizeof err) == 0 &&
              m[HZ_N][HZ_A] == -100 && m[HZ_N][HZ_N] == -100,
          "--ambiguous='n,': field n, -100/-100");

    /* errors */
    const char *bad[] = {"n,x,5", "iupac,5,y", "n,,5", "n,5,", "n,5.0,1", "iupac, 5,1",
                         "n,99999999999,1", "n,1,-2147483648"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        int rc = hz_scoring_build(m, NULL, bad[i], 910, err, sizeof err);
        check(rc == -1 && strstr(err, "--ambiguous=") && strstr(err, "integer"),
              "--ambiguous=%s: error '%s'", bad[i], err);
    }
    check(hz_scoring_build(m, NULL, "iupac,-5,-7", 910, err, sizeof err) == 0 &&
              m[HZ_X][HZ_X] == -5 && m[HZ_X][HZ_A] == 7 && m[HZ_N][HZ_L] == 7,
          "--ambiguous=iupac,-5,-7: reward -5, penalty +7");

    /* xdrop */
    copy8(want, SPEC_DEFAULT);
    for (int i = 0; i < 8; i++) want[HZ_E][i] = want[i][HZ_E] = -5000;
    check(hz_scoring_build(m, NULL, NULL, 500, err, sizeof err) == 0 && same_matrix(m, want, "xdrop500"),
          "xdrop 500: E row and column (E-E included) -5000, rest default");
    check(hz_scoring_build(m, NULL, NULL, 300000000, err, sizeof err) == -1 && strstr(err, "xdrop"),
          "xdrop 300000000: -10*xdrop overflow is an error");
}

static void test_files(void)
{
    hz_scorefile sf;
    char err[2048] = "", path[1200];
    int32_t m[8][8], want[8][8];

    /* shipped HOXD70 */
    snprintf(path, sizeof path, "%s/hoxd70.txt", datadir);
    int rc = hz_scorefile_load(path, &sf, err, sizeof err);
    if (rc) printf("# %s\n", err);
    check(rc == 0 && sub4_eq(&sf, HOXD70) && sf.has_bad && sf.bad_score == -1000 && sf.has_fill &&
              sf.fill_score == -100 && sf.has_gap_open && sf.gap_open == 400 &&
              sf.has_gap_extend && sf.gap_extend == 30 && sf.n_ignored_keys == 0,
          "tests/data/scoring/hoxd70.txt: HOXD70, bad -1000, fill -100, gaps 400/30");
    check(rc == 0 && hz_scoring_build(m, &sf, NULL, 910, err, sizeof err) == 0 &&
              same_matrix(m, SPEC_DEFAULT, "hoxd70 file"),
          "hoxd70.txt builds the spec default matrix");
    check(rc == 0 && hz_scoring_build(m, &sf, "iupac", 910, err, sizeof err) == 0 &&
              same_matrix(m, SPEC_IUPAC, "hoxd70 file iupac"),
          "hoxd70.txt + iupac builds the spec iupac matrix");

    /* shipped invented asymmetric matrix */
    snprintf(path, sizeof path, "%s/invented_close.txt", datadir);
    rc = hz_scorefile_load(path, &sf, err, sizeof err);
    if (rc) printf("# %s\n", err);
    static const int32_t INV[4][4] = {
        {90, -330, -236, -356}, {-331, 100, -318, -237}, {-235, -317, 100, -332}, {-357, -238, -329, 91}};
    check(rc == 0 && sub4_eq(&sf, INV) && sf.bad_score == -2000 && sf.fill_score == -150 &&
              sf.gap_open == 600 && sf.gap_extend == 15 && sf.n_ignored_keys == 1 &&
              strcmp(sf.ignored_keys, "hsp_threshold") == 0,
          "tests/data/scoring/invented_close.txt: asymmetric block row=target, bad -2K, fill -150, "
          "N ignored, hsp_threshold listed as ignored");
    copy8(want, SPEC_DEFAULT);
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) want[r][c] = INV[r][c];
    for (int r = 0; r < 7; r++)
        for (int c = 0; c < 7; c++)
            if (want[r][c] == -1000) want[r][c] = -2000;
            else if (want[r][c] == -100) want[r][c] = -150;
    check(rc == 0 && hz_scoring_build(m, &sf, NULL, 910, err, sizeof err) == 0 &&
              same_matrix(m, want, "invented"),
          "invented_close.txt: L/N bad -2000, X vs ACGT and X-X fill -150, E -9100");

    /* BLASTZ style, no row labels, no settings */
    rc = load_ok("nolabels.txt",
                 "   A     C     G     T\n"
                 "  91  -114   -31  -123\n"
                 "-114   100  -125   -31\n"
                 " -31  -125   100  -114\n"
                 "-123   -31  -114    91\n",
                 &sf);
    check(rc && sub4_eq(&sf, HOXD70) && !sf.has_bad && !sf.has_fill && !sf.has_gap_open &&
              !sf.has_gap_extend && sf.bad_score == -1000 && sf.fill_score == -100,
          "HOXD70 without row labels (BLASTZ style), no settings");

    /* K suffix, comments, tabs, CRLF */
    rc = load_ok("ksuffix.txt",
                 "# comment line\n"
                 "gap_open_penalty = 1M\t# a comment\n"
                 "gap_extend_penalty=2K\n"
                 "fill_score = -1K\n"
                 "\n"
                 "\tA\tC\tG\tT\n"
                 "A\t1K\t-2K\t-3K\t-4K # comment\n"
                 "C\t-2K\t1K\t-4K\t-3K\n"
                 "G\t-3K\t-4K\t1K\t-2K\n"
                 "T\t-4K\t-3K\t-2K\t+1K",
                 &sf);
    static const int32_t KS[4][4] = {{1000, -2000, -3000, -4000},
                                     {-2000, 1000, -4000, -3000},
                                     {-3000, -4000, 1000, -2000},
                                     {-4000, -3000, -2000, 1000}};
    check(rc && sub4_eq(&sf, KS) && sf.gap_open == 1000000 && sf.gap_extend == 2000 &&
              sf.fill_score == -1000 && sf.has_fill && !sf.has_bad,
          "K/M suffixes, tabs, comments, no final newline");
    rc = load_ok("gsuffix.txt", "x_drop = 2G\n" HOX_ROWS_LABELLED, &sf);
    check(rc && sf.n_ignored_keys == 1 && strcmp(sf.ignored_keys, "x_drop") == 0,
          "x_drop = 2G accepted (fits int32) and listed as ignored");

    /* bad/fill set (full matrix: lastz rejects a DNA matrix with an A/C/G/T row or column
     * missing, so no A/C/G/T entry can be left undefined; see the error tests below) */
    rc = load_ok("badfill.txt",
                 "bad_score = X:-500\n"
                 "fill_score = -77\n" HOX_ROWS_LABELLED,
                 &sf);
    check(rc && sub4_eq(&sf, HOXD70) && sf.has_bad && sf.bad_score == -500 && sf.has_fill &&
              sf.fill_score == -77 && !sf.has_gap_open && !sf.has_gap_extend,
          "bad_score = X:-500, fill_score = -77 parsed");
    check(rc && hz_scoring_build(m, &sf, NULL, 910, err, sizeof err) == 0 &&
              m[HZ_L][HZ_A] == -500 && m[HZ_A][HZ_L] == -500 && m[HZ_L][HZ_L] == -500 &&
              m[HZ_N][HZ_N] == -500 && m[HZ_N][HZ_L] == -500 && m[HZ_X][HZ_C] == -77 &&
              m[HZ_C][HZ_X] == -77 && m[HZ_X][HZ_X] == -77 && m[HZ_X][HZ_L] == -500 &&
              m[HZ_N][HZ_X] == -500 && m[HZ_E][HZ_E] == -9100 && m[HZ_G][HZ_T] == -114,
          "build with that file: bad -500 on L/N (and L-X, N-X), fill -77 on X vs ACGT and X-X");
    check(rc && hz_scoring_build(m, &sf, "n", 910, err, sizeof err) == 0 &&
              m[HZ_N][HZ_A] == 0 && m[HZ_L][HZ_L] == -500 && m[HZ_X][HZ_N] == -500,
          "that file + --ambiguous=n: N 0, L-L bad -500, X-N bad -500");
    rc = load_ok("plainbad.txt", "bad_score = -900\n" HOX_ROWS_LABELLED, &sf);
    check(rc && sf.has_bad && sf.bad_score == -900 && !sf.has_fill && sf.fill_score == -100,
          "plain bad_score = -900 (no character code); fill stays -100");

    /* lower-case labels, extra labels, hex labels, 3-part bad_score */
    rc = load_ok("lower.txt",
                 "bad_score = X:X:-1000\n"
                 "     A    C    G    T   N  a  c  g  74\n"
                 "A   91 -114  -31 -123  -1  1  2  3  4\n"
                 "43 -114  100 -125  -31  -1  1  2  3  4\n"
                 "G  -31 -125  100 -114  -1  1  2  3  4\n"
                 "T -123  -31 -114   91  -1  1  2  3  4\n"
                 "N   -1   -1   -1   -1  -1  1  2  3  4\n"
                 "a    5    6    7    8   9  1  2  3  4\n"
                 "c    5    6    7    8   9  1  2  3  4\n"
                 "g    5    6    7    8   9  1  2  3  4\n"
                 "t    5    6    7    8   9  1  2  3  4\n",
                 &sf);
    check(rc && sub4_eq(&sf, HOXD70) && sf.bad_score == -1000,
          "ACGTNacgt alphabet, hex labels 43 = C and 74 = t: only upper-case A/C/G/T kept");

    /* all ignored keys are recognised and listed */
    rc = load_ok("ignored.txt",
                 "x_drop = 910\n"
                 "y_drop = 9400\n"
                 "hsp_threshold = 3000\n"
                 "gapped_threshold = 3K\n"
                 "step = 1\n"
                 "seed = 12of19,transition\n"
                 "O = 400\n"
                 "E = 30\n" HOX_ROWS_LABELLED,
                 &sf);
    check(rc && sf.n_ignored_keys == 6 &&
              strcmp(sf.ignored_keys, "x_drop,y_drop,hsp_threshold,gapped_threshold,step,seed") == 0 &&
              sf.gap_open == 400 && sf.gap_extend == 30,
          "recognised-but-ignored keys listed in order; aliases O/E set gap penalties");

    /* ---- errors, each with its exact line:col ---- */
    {
        char e2[1024];
        const char *missing = "/nonexistent/dir/scores.txt";
        int r2 = hz_scorefile_load(missing, &sf, e2, sizeof e2);
        check(r2 == -1 && strncmp(e2, "/nonexistent/dir/scores.txt:1:1: cannot open score file", 55) == 0,
              "error unopenable file -> 1:1 ('%s')", e2);
        r2 = hz_scorefile_load(tmpdir, &sf, e2, sizeof e2);
        check(r2 == -1 && strstr(e2, ":1:1: cannot read score file"),
              "error directory instead of file -> 1:1 ('%s')", e2);
    }
    /* fuzz finding: a K/M/G suffix on a number near 2^40 overflowed int64 (UB) before the range check */
    load_err("huge number with a suffix", "A C G T\n 619999999999G 1 -1 0\n", 2, 2, "score '619999999999G' is out of range");
    load_err("empty file", "", 1, 1, "no substitution matrix (the file is empty)");
    load_err("comments only", "# a\n\n   # b\n", 4, 1, "no substitution matrix");
    load_err("settings only", "fill_score = -100\ngap_open_penalty = 400", 2, 23,
             "no substitution matrix");
    load_err("header without rows", "fill_score = -100\n A C G T\n# end\n", 4, 1,
             "column labels (line 2) but no rows");
    load_err("unknown key", "fill_score = -100\n  foo_bar = 3\n" HOX_ROWS_LABELLED, 2, 3,
             "unknown setting 'foo_bar' (allowed: bad_score, fill_score, gap_open_penalty, "
             "gap_extend_penalty, x_drop");
    load_err("key 'ambiguous'", "ambiguous = n\n" HOX_ROWS_LABELLED, 1, 1,
             "unknown setting 'ambiguous'");
    load_err("quantum key ball", "ball = 5%\n" HOX_ROWS_LABELLED, 1, 1, "quantum DNA");
    load_err("duplicate key", "fill_score = -100\nfill = -50\n" HOX_ROWS_LABELLED, 2, 1,
             "setting 'fill' given twice (first on line 1)");
    load_err("no key", "  = 5\n" HOX_ROWS_LABELLED, 1, 3, "no name before '='");
    load_err("no value", "fill_score =   \n" HOX_ROWS_LABELLED, 1, 13, "has no value");
    load_err("non-integer setting", "gap_open_penalty =  4x0\n" HOX_ROWS_LABELLED, 1, 21,
             "gap_open_penalty: '4x0' is not an integer");
    load_err("decimal setting", "fill_score = -0.1K\n" HOX_ROWS_LABELLED, 1, 14,
             "'-0.1K' is not an integer");
    load_err("setting out of range", "x_drop = 3G\n" HOX_ROWS_LABELLED, 1, 10,
             "x_drop: '3G' is out of range");
    load_err("x_drop 0", "x_drop = 0\n" HOX_ROWS_LABELLED, 1, 10, "x_drop must be positive");
    load_err("bad seed", "seed = 11of18\n" HOX_ROWS_LABELLED, 1, 8, "invalid seed '11of18'");
    load_err("bad T", "T = 5\n" HOX_ROWS_LABELLED, 1, 5, "T must be 1, 2, 3 or 4");
    load_err("bad_score char code", "bad_score = XY:-1000\n" HOX_ROWS_LABELLED, 1, 13,
             "invalid bad_score character code 'XY'");
    load_err("bad_score hex 00", "bad_score = 00:-1000\n" HOX_ROWS_LABELLED, 1, 13,
             "invalid bad_score character code '00'");
    load_err("bad_score 3 codes", "bad_score = X:X:X:-1000\n" HOX_ROWS_LABELLED, 1, 18,
             "at most two character codes");
    load_err("bad_score score", "bad_score = X:-1e3\n" HOX_ROWS_LABELLED, 1, 15,
             "bad_score: '-1e3' is not an integer score");
    load_err("bad char is a column", "bad_score = X:-1000\n A C G T X\n", 2, 10,
             "column label 'X' is the bad_score character set on line 1");
    load_err("bad char is a row",
             "bad_score = Q:R:-1000\n A C G T\nA 1 2 3 4\nC 1 2 3 4\nR 1 2 3 4\n", 5, 1,
             "row label 'R' is the bad_score character");
    load_err("invalid column label", "   A C G TT\n", 1, 10, "invalid column label 'TT'");
    load_err("duplicate column label", "A C G T A\n", 1, 9, "duplicate column label 'A'");
    load_err("duplicate column label (hex)", "A C G T 41\n", 1, 9, "duplicate column label '41'");
    load_err("column label R", " A C G T R\n", 1, 10, "column label 'R' is not A, C, G, T or N");
    load_err("column label X without bad_score", " A C G T X\n", 1, 10,
             "column label 'X' is not A, C, G, T or N");
    load_err("lower-case column labels only", "  a c g t\n", 1, 3, "no column labelled 'A'");
    load_err("partial lower-case column labels", "  A C G T a\n", 1, 3,
             "lower-case column labels must be all of a, c, g, t or none");
    load_err("column T missing", "fill_score = -5\n   A C G\nA 1 2 3\nC 1 2 3\nG 1 2 3\nT 1 2 3\n",
             2, 4, "no column labelled 'T'");
    load_err("row T missing (entry left undefined)",
             "fill_score = -5\n   A C G T\nA 1 2 3 4\nC 1 2 3 4\nG 1 2 3 4\n", 6, 1,
             "no row labelled 'T'");
    load_err("row label R", "   A C G T\nA 1 2 3 4\nR 1 2 3 4\n", 3, 1,
             "row label 'R' is not A, C, G, T or N");
    load_err("partial lower-case rows",
             "   A C G T\nA 1 2 3 4\nC 1 2 3 4\nG 1 2 3 4\nT 1 2 3 4\na 1 2 3 4\n", 7, 1,
             "lower-case row labels must be all of a, c, g, t or none");
    load_err("carriage return", "fill_score = -100\r\n" HOX_ROWS_LABELLED, 1, 18,
             "carriage return (DOS line end)");
    load_err("lower-case k suffix", "gap_extend_penalty = 2k\n" HOX_ROWS_LABELLED, 1, 22,
             "'2k' is not an integer");
    load_err("seed and T both", "seed = 12of19,transition\nT = 1\n" HOX_ROWS_LABELLED, 2, 1,
             "setting 'T' given twice (first on line 1)");
    load_err("negative gap extend", "gap_extend_penalty = -1\n" HOX_ROWS_LABELLED, 1, 22,
             "gap_extend_penalty must not be negative");
    load_err("negative open+extend", "gap_open_penalty = -31\n" HOX_ROWS_LABELLED, 1, 20,
             "gap_open_penalty + gap_extend_penalty must not be negative");
    load_err("first row too many fields",
             "   A C G T\nA 91 -114 -31 -123 7 8\n", 2, 20,
             "row has 7 fields; expected 4 scores, or a row label and 4 scores");
    load_err("first row too few fields", "   A C G T\nA 91 -114   # x\n", 2, 10,
             "row has 3 fields; expected 4 scores");
    load_err("later row too many fields",
             "   A C G T\nA 91 -114 -31 -123\nC -114 100 -125 -31 5\n", 3, 21,
             "row has 6 fields but the first row (line 2) has 5");
    load_err("later row too few fields",
             "   A C G T\nA 91 -114 -31 -123\nC -114 100 -125\n", 3, 16,
             "row has 4 fields but the first row (line 2) has 5");
    load_err("non-integer score",
             "   A C G T\nA 91 -114 -31 -123\nC -114 1OO -125 -31\n", 3, 8,
             "score '1OO' is not an integer");
    load_err("decimal score", "   A C G T\nA 91 -114 -31.5 -123\n", 2, 11,
             "score '-31.5' is not an integer");
    load_err("score out of range", "   A C G T\nA 91 -114 -31 -3G\n", 2, 15,
             "score '-3G' is out of range");
    load_err("duplicate row",
             "   A C G T\nA 91 -114 -31 -123\nC 1 2 3 4\n  41 1 2 3 4\n", 4, 3,
             "duplicate row '41' (first on line 2");
    load_err("invalid row label", "   A C G T\nACG 1 2 3 4\n", 2, 1, "invalid row label 'ACG'");
    load_err("too many unlabelled rows",
             " A C G T\n1 2 3 4\n1 2 3 4\n1 2 3 4\n1 2 3 4\n  5 6 7 8\n", 6, 3, "too many rows");
    load_err("too few unlabelled rows", " A C G T\n1 2 3 4\n1 2 3 4\n1 2 3 4\n", 5, 1,
             "no row labels and 3 rows; expected 4");
    load_err("matrix missing G", "fill_score = 1\n\n   A C T\nA 1 2 3\nC 1 2 3\nT 1 2 3\n", 3, 4,
             "no column labelled 'G'");
    load_err("setting after header", HOX_ROWS_LABELLED "  fill_score = 5\n", 6, 3,
             "setting after the matrix header");
}

/* hz_ambiguous_check: LASTZ 1.04.22's acceptance (lastz.c "--ambiguous=n[,<penalty>]"), the
 * values it reads differently refused, and the 32-bit bounds (scoring.h). */
static void test_ambiguous_check(void)
{
    char err[512];
    const char *ok[] = {NULL, "n", "iupac", "n,5", "n,0", "n,-0", "n,1,2", "n,-1,2", "iupac,50,80",
                        "iupac,10000,1000000000", "n,-1000000000,0"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        check(hz_ambiguous_check(ok[i], err, sizeof err) == 0, "--ambiguous %s accepted", ok[i] ? ok[i] : "(null)");
    const struct { const char *v, *msg; } bad[] = {
        {"", "empty value"}, {"N", "is not n, iupac"}, {"IUPAC", "is not n, iupac"}, {"x,1,2", "is not n, iupac"},
        {"n,1,2,3", "is not n, iupac"}, {"n,", "'' is not an integer"}, {"n,,5", "'' is not an integer"},
        {"n,1.5", "'1.5' is not an integer"}, {"n,1K", "'1K' is not an integer"}, {"n,+5", "'+5' is not an integer"},
        {"n, 5", "' 5' is not an integer"}, {"n,-5", "the penalty -5 is negative"},
        {"n,1000000,-1", "the penalty -1 is negative"}, {"iupac,99999999999,-99999999999", "the penalty -99999999999 is negative"},
        {"n,10001,1", "the reward 10001 is outside -1000000000..10000"},
        {"n,-1000000001,1", "the reward -1000000001 is outside"}, {"n,1000000001", "the penalty 1000000001 is above 1000000000"},
        {"n,99999999999999999999", "is not an integer"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        int rc = hz_ambiguous_check(bad[i].v, err, sizeof err);
        check(rc == -1 && !strncmp(err, "--ambiguous: '", 14) && strstr(err, bad[i].msg),
              "--ambiguous %s refused: '%s'", bad[i].v, err);
    }
}

/* scorefile.h: the reader both stages share (lines with comments cut, settings split, LASTZ's
 * names, tokens with columns, labels) and hz_ambiguous_split (scoring.h) */
static void test_reader(void)
{
    const char *path = write_tmp("reader.txt", "# head\n  gap_open = 400  # c\n\tT=2\n\n A\vC G\fT\nx\r\n");
    hz_sfread rd;
    hz_sfline l;
    hz_sfset st;
    hz_sftok tk[8];
    char err[512];
    check(hz_sfread_open(&rd, path, err, sizeof err) == 0, "reader: opens");
    check(rd.eof_line == 7 && rd.eof_col == 1, "reader: end of file at 7:1 (got %d:%d)", rd.eof_line, rd.eof_col);
    check(hz_sfread_next(&rd, &l) && l.lineno == 1 && l.len == 0 && l.b == l.len, "reader: a comment line is blank");
    check(hz_sfread_next(&rd, &l) && l.lineno == 2 && l.eq && l.b == 2, "reader: line 2 is a setting");
    hz_sf_setting(&l, &st);
    check(st.ke - st.kb == 8 && !memcmp(l.s + st.kb, "gap_open", 8) && st.ve - st.vb == 3 && !memcmp(l.s + st.vb, "400", 3) &&
          st.vb == 13, "reader: gap_open = 400 split (value at column %zu)", st.vb + 1);
    check(hz_sf_key(l.s + st.kb, st.ke - st.kb) == HZ_SK_OPEN, "reader: gap_open is LASTZ's gap_open_penalty");
    check(hz_sfread_next(&rd, &l) && l.eq, "reader: T=2");
    hz_sf_setting(&l, &st);
    check(hz_sf_key(l.s + st.kb, st.ke - st.kb) == HZ_SK_SEED && hz_sf_key("seed", 4) == HZ_SK_SEED &&
          hz_sf_key("bottleneck", 10) == HZ_SK_BOTTLENECK && hz_sf_key("gap", 3) == -1, "reader: T is seed; unknown names -1");
    check(hz_sfread_next(&rd, &l) && l.b == l.len, "reader: empty line blank");
    check(hz_sfread_next(&rd, &l) && hz_sf_tokens(&l, tk, 2) == 4 && tk[0].col == 2 && tk[1].col == 4 && tk[1].len == 1 &&
          tk[1].s[0] == 'C', "reader: \\v and \\f separate tokens; 4 counted, 2 kept, 1-based columns");
    check(hz_sfread_next(&rd, &l) && l.cr == l.s + 1 && l.e == 1, "reader: the carriage return is reported, not kept in the text");
    check(!hz_sfread_next(&rd, &l), "reader: 6 lines");
    hz_sfread_close(&rd);
    check(hz_sf_label("A", 1) == 'A' && hz_sf_label("4E", 2) == 0x4e && hz_sf_label("00", 2) == -1 &&
          hz_sf_label("ABC", 3) == -1, "labels: one character or two hex digits 01..FF");
    hz_ambig a;
    hz_ambiguous_split("iupac,5,-6,7", &a);
    check(a.word == HZ_AMB_IUPAC && a.nparts == 4 && a.plen[1] == 1 && !memcmp(a.part[2], "-6", 2) && a.plen[2] == 2,
          "--ambiguous split: iupac, 4 parts");
    hz_ambiguous_split("nx,1", &a);
    check(a.word == HZ_AMB_OTHER && a.nparts == 2, "--ambiguous split: 'nx' is no word");
    hz_ambiguous_split(NULL, &a);
    check(a.word == HZ_AMB_OTHER && a.nparts == 1 && a.plen[0] == 0, "--ambiguous split: NULL is one empty part");
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/hz_test_scoring_XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmpdir)) { perror("mkdtemp"); return 2; }
    find_datadir();

    test_build();
    test_ambiguous_check();
    test_files();
    test_reader();

    /* clean up (HZ_TEST_KEEP=1 keeps the files, e.g. to feed them to lastz) */
    const char *keep = getenv("HZ_TEST_KEEP");
    if (keep && *keep == '1') printf("# kept %s\n", tmpdir);
    else {
    const char *names[] = {"err.txt", "nolabels.txt", "ksuffix.txt", "gsuffix.txt", "badfill.txt",
                           "plainbad.txt", "lower.txt", "ignored.txt", "reader.txt"};
    char p[1200];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", tmpdir, names[i]);
        unlink(p);
    }
    rmdir(tmpdir);
    }

    printf("# %d tests, %d passed, %d failed\n", n_tests, n_tests - n_fail, n_fail);
    return n_fail ? 1 : 0;
}
