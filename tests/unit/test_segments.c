/* Unit tests for src/out/segments.c: segment lines (kegalign-hsp-spec.md §6.2-6.3, §2.5 rc record
 * table), segment files, and the lastz command text (§6.4, RULES.md "lastz commands").
 *
 * Sides are planned from hand-built in-memory sequence sets; every expected line is worked
 * out by hand in the comments.  Writes files into a fresh directory under $TMPDIR or /tmp and
 * removes it.  Prints "ok N - ..." / "not ok N - ..." lines and a summary; exits non-zero on
 * any failure. */
#include "segments.h"
#include "shquote.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tap.h"


static void make_set(hz_seqset *s, const char *path, const char *const *names, const size_t *lens, size_t n)
{
    memset(s, 0, sizeof *s);
    s->path = strdup(path);
    s->kind = "fasta";
    s->n = n;
    s->name = calloc(n, sizeof *s->name);
    s->off = calloc(n, sizeof *s->off);
    s->len = calloc(n, sizeof *s->len);
    uint64_t tot = 0;
    for (size_t i = 0; i < n; i++) tot += lens[i];
    s->data = malloc(tot ? tot : 1);
    for (uint64_t i = 0; i < tot; i++) s->data[i] = (uint8_t)"ACGT"[i % 4];
    uint64_t o = 0;
    for (size_t i = 0; i < n; i++) {
        s->name[i] = strdup(names[i]);
        s->off[i] = o;
        s->len[i] = lens[i];
        o += lens[i];
    }
    s->total = tot;
}

static void free_set(hz_seqset *s)
{
    for (size_t i = 0; i < s->n; i++) free(s->name[i]);
    free(s->name); free(s->off); free(s->len); free(s->data); free(s->path);
    memset(s, 0, sizeof *s);
}

static hz_hsp H(uint32_t rs, uint32_t qs, uint32_t len, int32_t score)
{
    hz_hsp h = {rs, qs, len, score};
    return h;
}

static void show(const char *s)
{
    printf("# '");
    for (; *s; s++) {
        if (*s == '\t') printf("\\t");
        else if (*s == '\n') printf("\\n");
        else putchar(*s);
    }
    printf("'\n");
}

static int line_is(hz_segwriter *w, hz_hsp h, int strand, size_t r, size_t q, const char *want)
{
    char buf[512];
    memset(buf, 0, sizeof buf);
    size_t n = hz_segment_line(w, &h, strand, r, q, buf);
    int ok = n == strlen(want) && memcmp(buf, want, n) == 0;
    if (!ok) { buf[n < 511 ? n : 511] = 0; printf("# got  "); show(buf); printf("# want "); show(want); }
    return ok;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *b = malloc(65536);
    size_t n = fread(b, 1, 65535, f);
    b[n] = 0;
    fclose(f);
    return b;
}

static int file_is(const char *dir, const char *name, const char *want)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    char *b = slurp(p);
    int ok = b && strcmp(b, want) == 0;
    if (!ok) { printf("# %s:\n", name); if (b) show(b); else printf("# (missing)\n"); printf("# want:\n"); show(want); }
    free(b);
    return ok;
}

/* Target (B = 12): chrA len 10 @0, "" len 5 @11 -> block 0 = [0,16); chrC len 8 @16 -> block 1
 * = [16,24).  Query (B = 20): q0 len 6 @0, q1 len 9 @7, "" len 4 @17 -> block 0 = [0,21);
 * q3 len 7 @21 -> block 1 = [21,28).
 * rc table of query block 0 (S 0, L 21), rc_start = 2S + L - start - len: "" 21-17-4 = 0,
 * q1 21-7-9 = 5, q0 21-0-6 = 15.  Query block 1 (S 21, L 7): q3 42+7-21-7 = 21. */
static hz_seqset TS, QS;
static hz_side TSD, QSD;

static int setup(void)
{
    const char *tn[] = {"chrA", "", "chrC"};
    size_t tl[] = {10, 5, 8};
    const char *qn[] = {"q0", "q1", "", "q3"};
    size_t ql[] = {6, 9, 4, 7};
    char err[256];
    make_set(&TS, "t.fa", tn, tl, 3);
    make_set(&QS, "q.fa", qn, ql, 4);
    int a = hz_side_plan(&TSD, &TS, 12, "", err, sizeof err);
    int b = hz_side_plan(&QSD, &QS, 20, "", err, sizeof err);
    int ok = a == 0 && b == 0 && TSD.n_block == 2 && QSD.n_block == 2 &&
             TSD.block[1].start == 16 && QSD.block[1].start == 21 && QSD.block[0].len == 21;
    return check(ok, "setup: target blocks [0,16) [16,24), query blocks [0,21) [21,28)");
}

static void test_plus(hz_segwriter *w)
{
    /* target chrA rs 1 len 8 -> 2..10 (last base of chrA); query qs 7 = q1 pos 1 -> 1..9 (last base) */
    check(line_is(w, H(1, 7, 8, 123), 0, 0, 0, "chrA\t2\t10\tq1\t1\t9\t+\t123\n"),
          "plus: chrA 2..10 (last base) / q1 1..9 (first to last base)");
    /* empty target name: rs 11 = start of record 1 -> 1..5; query q0 1..5 */
    check(line_is(w, H(11, 0, 4, 50), 0, 0, 0, "\t1\t5\tq0\t1\t5\t+\t50\n"),
          "plus: empty target name, position 1 of the second record");
    /* empty query name: qs 17 -> "" 1..4; target rs 12 -> record 1 pos 2 */
    check(line_is(w, H(12, 17, 3, 7), 0, 0, 0, "\t2\t5\t\t1\t4\t+\t7\n"),
          "plus: empty query name (third record of the block)");
    /* second target block (global offsets): r 1 rs 7 -> gr 23 -> chrC 8 (last base); query block 1
     * qs 6 -> gq 27 -> q3 7 (last base) */
    check(line_is(w, H(7, 6, 0, 1), 0, 1, 1, "chrC\t8\t8\tq3\t7\t7\t+\t1\n"),
          "plus: second blocks on both sides, single column at the last bases");
    check(line_is(w, H(0, 0, 6, -5), 0, 1, 1, "chrC\t1\t7\tq3\t1\t7\t+\t-5\n"),
          "plus: position 1 of the first record of a second block; negative score printed with '-'");
    /* target block 1 against query block 0 */
    check(line_is(w, H(0, 0, 5, 1000000), 0, 1, 0, "chrC\t1\t6\tq0\t1\t6\t+\t1000000\n"),
          "plus: target block 1 vs query block 0");
}

static void test_minus(hz_segwriter *w, const char *dir)
{
    char err[512];
    /* query block 0 minus, rc coordinates: "" [0,4) & q1 [5,14) & q0 [15,21)
     *  m1: qs 5 len 8  -> q1 1..9 (1 = last base of forward q1); rs 0 -> chrA 1..9
     *  m2: qs 15 len 5 -> q0 1..6; rs 1 -> chrA 2..7
     *  m3: qs 0 len 3  -> "" 1..4; rs 11 -> "" 1..4
     *  m4: qs 13 len 0 -> q1 9..9 (= first base of forward q1); rs 9 -> chrA 10..10 */
    hz_hsp m[4] = {H(0, 5, 8, 300), H(1, 15, 5, 200), H(11, 0, 3, 100), H(9, 13, 0, 90)};
    int rc = hz_segwriter_write(w, dir, "tmp1.block0.r0.minus", m, 4, 1, 0, 0, 1, NULL, err, sizeof err);
    check(rc == 0 && file_is(dir, "tmp1.block0.r0.minus.segments",
                             "chrA\t10\t10\tq1\t9\t9\t-\t90\n"
                             "\t1\t4\t\t1\t4\t-\t100\n"
                             "chrA\t2\t7\tq0\t1\t6\t-\t200\n"
                             "chrA\t1\t9\tq1\t1\t9\t-\t300\n"),
          "minus file: lines in reverse vector order, rc record table coordinates");
    /* after the write the table of block 0 is in place: direct lines */
    check(line_is(w, m[0], 1, 0, 0, "chrA\t1\t9\tq1\t1\t9\t-\t300\n"), "minus line: q1 position 1 on the reverse strand");
    check(line_is(w, H(1, 20, 0, 3), 1, 0, 0, "chrA\t2\t2\tq0\t6\t6\t-\t3\n"), "minus line: last rc base of the block (q0 6)");

    /* query block 1 minus: q3 rc_start 21 -> qs 0 = q3 1, qs 6 = q3 7; target block 1 */
    hz_hsp m2[2] = {H(2, 0, 4, 55), H(0, 6, 0, 9)};
    rc = hz_segwriter_write(w, dir, "tmp1.block1.r16.minus", m2, 2, 1, 1, 1, 1, NULL, err, sizeof err);
    check(rc == 0 && file_is(dir, "tmp1.block1.r16.minus.segments",
                             "chrC\t1\t1\tq3\t7\t7\t-\t9\n"
                             "chrC\t3\t7\tq3\t1\t5\t-\t55\n"),
          "minus file of query block 1 / target block 1 (rc table rebuilt for another block)");
    /* back to block 0 */
    rc = hz_segwriter_write(w, dir, "tmp2.block0.r0.minus", m + 2, 1, 1, 0, 0, 1, NULL, err, sizeof err);
    check(rc == 0 && file_is(dir, "tmp2.block0.r0.minus.segments", "\t1\t4\t\t1\t4\t-\t100\n"),
          "minus file of query block 0 again");

    /* plus file: vector order */
    hz_hsp p[3] = {H(1, 7, 8, 123), H(11, 0, 4, 50), H(12, 17, 3, 7)};
    rc = hz_segwriter_write(w, dir, "tmp1.block0.r0.plus", p, 3, 0, 0, 0, 1, NULL, err, sizeof err);
    check(rc == 0 && file_is(dir, "tmp1.block0.r0.plus.segments",
                             "chrA\t2\t10\tq1\t1\t9\t+\t123\n"
                             "\t1\t5\tq0\t1\t5\t+\t50\n"
                             "\t2\t5\t\t1\t4\t+\t7\n"),
          "plus file: lines in vector order");
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/tmp1.block0.r0.plus.segments.part", dir);
    check(stat(path, &st) != 0, "no temporary .part file left behind");

    /* 300,000 lines: formatted by 5 helpers in slices, the same bytes as by one thread, both strands */
    size_t nb = 300000;
    hz_hsp *big = malloc(nb * sizeof *big);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < nb; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        uint32_t len = (uint32_t)(x % 4);
        big[i] = H((uint32_t)((x >> 8) % (16 - len)), (uint32_t)((x >> 20) % (21 - len)), len, (int32_t)(x >> 40) % 100000 - 50000);
    }
    int same = 1;
    for (int strand = 0; strand < 2 && big; strand++) {
        const char *b1 = strand ? "big1.minus" : "big1.plus", *b5 = strand ? "big5.minus" : "big5.plus";
        int r1 = hz_segwriter_write(w, dir, b1, big, nb, strand, 0, 0, 1, NULL, err, sizeof err);
        int r5 = hz_segwriter_write(w, dir, b5, big, nb, strand, 0, 0, 5, NULL, err, sizeof err);
        char cmd[2400];
        snprintf(cmd, sizeof cmd, "cmp -s '%s/%s.segments' '%s/%s.segments' && [ $(wc -l < '%s/%s.segments') = %zu ]",
                 dir, b1, dir, b5, dir, b5, nb);
        same = same && r1 == 0 && r5 == 0 && system(cmd) == 0;
    }
    check(big && same, "300,000 lines, plus and minus: 5 formatting threads == 1 thread, byte for byte");
    free(big);
}

/* hz_segment_line for the minus strand on a writer that has not written a minus file yet */
static void test_minus_fresh(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        hz_opts o;
        hz_opts_default(&o);
        hz_segwriter w;
        hz_segwriter_init(&w, &TSD, &QSD, &o);
        hz_hsp h = H(0, 5, 8, 300);
        char buf[512];
        size_t n = hz_segment_line(&w, &h, 1, 0, 0, buf);
        const char *want = "chrA\t1\t9\tq1\t1\t9\t-\t300\n";
        _exit(n == strlen(want) && memcmp(buf, want, n) == 0 ? 0 : 3);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ok) printf("# child %s %d\n", WIFSIGNALED(status) ? "killed by signal" : "exit status",
                    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    check(ok, "hz_segment_line minus strand on a fresh hz_segwriter (no prior write) gives the §6.2 line");
}

/* ---- lastz commands --------------------------------------------------------------------- */

static int cmd_is(const hz_opts *o, const char *base, size_t r, size_t q, int strand, const char *want)
{
    char *c = hz_lastz_command(o, base, r, q, strand);
    int ok = c && strcmp(c, want) == 0;
    if (!ok) printf("# got  %s\n# want %s\n", c ? c : "(null)", want);
    free(c);
    return ok;
}

static const char *G_MINUS =
    "lastz work/ref.2bit[nameparse=darkspace][multiple][subset=ref_block0.name] "
    "work/query.2bit[nameparse=darkspace][subset=query_block0.name] --format=maf- --ydrop=9430 "
    "--gappedthresh=3000 --strand=minus --segments=tmp1.block0.r0.minus.segments "
    "--output=tmp1.block0.r0.minus.maf- 2> tmp1.block0.r0.minus.err";
static const char *G_PLUS =
    "lastz work/ref.2bit[nameparse=darkspace][multiple][subset=ref_block0.name] "
    "work/query.2bit[nameparse=darkspace][subset=query_block0.name] --format=maf- --ydrop=9430 "
    "--gappedthresh=3000 --strand=plus --segments=tmp1.block0.r0.plus.segments "
    "--output=tmp1.block0.r0.plus.maf- 2> tmp1.block0.r0.plus.err";

static void test_lastz(void)
{
    hz_opts o;
    hz_opts_default(&o);
    check(cmd_is(&o, "tmp1.block0.r0.minus", 0, 0, 1, G_MINUS), "lastz command, defaults, minus (golden apple_orange/default)");
    check(cmd_is(&o, "tmp1.block0.r0.plus", 0, 0, 0, G_PLUS), "lastz command, defaults, plus (golden apple_orange/default)");
    check(cmd_is(&o, "tmp1.block1.r108008.minus", 1, 1, 1,
                 "lastz work/ref.2bit[nameparse=darkspace][multiple][subset=ref_block1.name] "
                 "work/query.2bit[nameparse=darkspace][subset=query_block1.name] --format=maf- --ydrop=9430 "
                 "--gappedthresh=3000 --strand=minus --segments=tmp1.block1.r108008.minus.segments "
                 "--output=tmp1.block1.r108008.minus.maf- 2> tmp1.block1.r108008.minus.err"),
          "lastz command: block index in subset=, byte offset only in the file name (golden blocks_small)");

    /* the golden file itself, when present */
    {
        char *g = slurp("/work/shared/golden/kegalign-v03/apple_orange/default/lastz_commands.sorted.txt");
        if (g) {
            char *c1 = hz_lastz_command(&o, "tmp1.block0.r0.minus", 0, 0, 1);
            char *c2 = hz_lastz_command(&o, "tmp1.block0.r0.plus", 0, 0, 0);
            char want[8192];
            snprintf(want, sizeof want, "%s\n%s\n", c1, c2);
            check(strcmp(g, want) == 0, "lastz commands == golden lastz_commands.sorted.txt byte for byte");
            free(c1); free(c2); free(g);
        } else {
            check(1, "golden lastz_commands.sorted.txt not found # SKIP");
        }
    }

    o.ambiguous = "iupac";
    o.notrivial = 1;
    o.scoring = "data/my.scores";
    check(cmd_is(&o, "tmp3.block0.r0.plus", 0, 0, 0,
                 "lastz work/ref.2bit[nameparse=darkspace][multiple][subset=ref_block0.name] "
                 "work/query.2bit[nameparse=darkspace][subset=query_block0.name] --format=maf- --ydrop=9430 "
                 "--gappedthresh=3000 --strand=plus --ambiguous=iupac --notrivial --scores=data/my.scores "
                 "--segments=tmp3.block0.r0.plus.segments --output=tmp3.block0.r0.plus.maf- 2> tmp3.block0.r0.plus.err"),
          "lastz command with --ambiguous, --notrivial, --scoring (order of §6.4)");
    o.ambiguous = "n,5,10";
    o.notrivial = 0;
    o.scoring = NULL;
    check(cmd_is(&o, "tmp1.block0.r0.minus", 0, 0, 1,
                 "lastz work/ref.2bit[nameparse=darkspace][multiple][subset=ref_block0.name] "
                 "work/query.2bit[nameparse=darkspace][subset=query_block0.name] --format=maf- --ydrop=9430 "
                 "--gappedthresh=3000 --strand=minus --ambiguous=n,5,10 "
                 "--segments=tmp1.block0.r0.minus.segments --output=tmp1.block0.r0.minus.maf- 2> tmp1.block0.r0.minus.err"),
          "lastz command: --ambiguous value verbatim");
    o.ambiguous = "";
    check(cmd_is(&o, "tmp1.block0.r0.minus", 0, 0, 1, G_MINUS), "lastz command: empty --ambiguous is not printed");
    o.ambiguous = NULL;
    o.scoring = "s.txt";
    check(cmd_is(&o, "tmp1.block0.r0.plus", 0, 0, 0,
                 "lastz work/ref.2bit[nameparse=darkspace][multiple][subset=ref_block0.name] "
                 "work/query.2bit[nameparse=darkspace][subset=query_block0.name] --format=maf- --ydrop=9430 "
                 "--gappedthresh=3000 --strand=plus --scores=s.txt "
                 "--segments=tmp1.block0.r0.plus.segments --output=tmp1.block0.r0.plus.maf- 2> tmp1.block0.r0.plus.err"),
          "lastz command with --scoring only");
    o.scoring = NULL;
    o.notrivial = 1;
    check(cmd_is(&o, "tmp1.block0.r0.plus", 0, 0, 0,
                 "lastz work/ref.2bit[nameparse=darkspace][multiple][subset=ref_block0.name] "
                 "work/query.2bit[nameparse=darkspace][subset=query_block0.name] --format=maf- --ydrop=9430 "
                 "--gappedthresh=3000 --strand=plus --notrivial "
                 "--segments=tmp1.block0.r0.plus.segments --output=tmp1.block0.r0.plus.maf- 2> tmp1.block0.r0.plus.err"),
          "lastz command with --notrivial only");
    o.notrivial = 0;
    {   /* shell quoting (shquote.h): safe values verbatim, others single-quoted, ' as '\'' */
        struct { const char *in, *out; } qc[] = {
            { "work/", "work/" }, { "", "" }, { "general:name1,start1,end1", "general:name1,start1,end1" },
            { "a-b_c.d/e=f+g@h%", "a-b_c.d/e=f+g@h%" }, { "my dir/", "'my dir/'" }, { "$(x)/", "'$(x)/'" },
            { "it's", "'it'\\''s'" }, { "~/w/", "'~/w/'" }, { "#w", "'#w'" }, { "a*b", "'a*b'" }, { "x\ny", "'x\ny'" },
        };
        for (size_t i = 0; i < sizeof qc / sizeof qc[0]; i++) {
            char *q = hz_sh_quote(qc[i].in);
            check(q && !strcmp(q, qc[i].out), "hz_sh_quote(\"%s\") = %s", qc[i].in, q ? q : "(null)");
            free(q);
        }
        o.data_folder = "my data/";
        o.format = "maf";
        o.scoring = "s c.txt";
        check(cmd_is(&o, "tmp1.block0.r0.plus", 0, 0, 0,
                     "lastz 'my data/'ref.2bit[nameparse=darkspace][multiple][subset=ref_block0.name] "
                     "'my data/'query.2bit[nameparse=darkspace][subset=query_block0.name] --format=maf --ydrop=9430 "
                     "--gappedthresh=3000 --strand=plus --scores='s c.txt' "
                     "--segments=tmp1.block0.r0.plus.segments --output=tmp1.block0.r0.plus.maf 2> tmp1.block0.r0.plus.err"),
              "lastz command: a data folder and score path with a blank are quoted, the rest is KegAlign's");
        o.data_folder = "work/"; o.format = "maf-"; o.scoring = NULL;
    }

    hz_opts_default(&o);
    o.hspthresh = 2000;                 /* gappedthresh defaults to hspthresh */
    o.ydrop = 100;
    o.format = "axt";
    o.data_folder = "d/";
    check(cmd_is(&o, "B", 2, 3, 1,
                 "lastz d/ref.2bit[nameparse=darkspace][multiple][subset=ref_block2.name] "
                 "d/query.2bit[nameparse=darkspace][subset=query_block3.name] --format=axt --ydrop=100 "
                 "--gappedthresh=2000 --strand=minus --segments=B.segments --output=B.axt 2> B.err"),
          "lastz command: data folder verbatim, --format, --ydrop, gappedthresh = hspthresh by default");
    o.gappedthresh = 2500;
    o.data_folder = "work";             /* no '/' added */
    check(cmd_is(&o, "B", 0, 0, 0,
                 "lastz workref.2bit[nameparse=darkspace][multiple][subset=ref_block0.name] "
                 "workquery.2bit[nameparse=darkspace][subset=query_block0.name] --format=axt --ydrop=100 "
                 "--gappedthresh=2500 --strand=plus --segments=B.segments --output=B.axt 2> B.err"),
          "lastz command: explicit --gappedthresh; no '/' added to the data folder");
}

static void rm_dir(const char *dir)
{
    static const char *names[] = {"tmp1.block0.r0.minus.segments", "tmp1.block1.r16.minus.segments",
                                  "tmp2.block0.r0.minus.segments", "tmp1.block0.r0.plus.segments",
                                  "big1.plus.segments", "big5.plus.segments", "big1.minus.segments",
                                  "big5.minus.segments"};   /* test_minus's threaded-writer files */
    char p[1024];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
        snprintf(p, sizeof p, "%s/%s.part", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
}

int main(void)
{
    char tmpl[512];
    const char *td = getenv("TMPDIR");
    snprintf(tmpl, sizeof tmpl, "%s/hz_test_segments_XXXXXX", td && *td ? td : "/tmp");
    char *dir = mkdtemp(tmpl);
    if (!dir) { printf("not ok 1 - cannot create a temporary directory\n"); return 1; }
    if (setup()) {
        hz_opts o;
        hz_opts_default(&o);
        hz_segwriter w;
        hz_segwriter_init(&w, &TSD, &QSD, &o);
        test_plus(&w);
        test_minus_fresh();
        test_minus(&w, dir);
        hz_segwriter_free(&w);
    }
    test_lastz();
    rm_dir(dir);
    hz_side_free(&TSD); hz_side_free(&QSD);
    free_set(&TS); free_set(&QS);
    printf("# %d tests, %d passed, %d failed\n", n_tests, n_tests - n_fail, n_fail);
    return n_fail ? 1 : 0;
}
