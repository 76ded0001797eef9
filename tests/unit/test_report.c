/* Unit tests for hspz report: canvas coordinates of segment lines on both strands at record
 * edges (src/out/report_bin.c; spec §6.2: 1-based closed ranges, minus-strand query positions
 * counted along the reverse strand), the density raster against a base-by-base reference
 * (every aligned base counted once, in the right bin), and the page written from a
 * hand-made output folder (src/out/report.c): self-contained (no http, no src/href but data:
 * and the PNG beside it), grid lines per record, names escaped, errors naming FILE:LINE.
 * Writes into a fresh directory under $TMPDIR or /tmp and removes it. */
#define HZ_TEST_SEED 0x5eed1234abcdULL
#include "report.h"
#include "report_bin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"

static char *names_t[] = { "t0", "t1", "t2" }, *names_q[] = { "q0", "q1", "q2" };
static uint64_t len_t[] = { 100, 50, 7 }, len_q[] = { 30, 1, 200 };

static void axes(hz_raxis *t, hz_raxis *q)
{
    static uint64_t off_t[3], off_q[3];
    *t = (hz_raxis){ 3, names_t, len_t, off_t, 0 };
    *q = (hz_raxis){ 3, names_q, len_q, off_q, 0 };
    hz_raxis_layout(t);
    hz_raxis_layout(q);
}

static int map(const hz_raxis *t, const hz_raxis *q, size_t ti, uint64_t ts, uint64_t te, size_t qi, uint64_t qs,
               uint64_t qe, int minus, hz_rdiag *d, char *err)
{
    hz_rseg s = { ti, qi, ts, te, qs, qe, minus, 3000 };
    return hz_rbin_map(t, q, &s, d, err, 256);
}

static void test_map(void)
{
    hz_raxis t, q;
    hz_rdiag d;
    char err[256];
    axes(&t, &q);
    check(t.total == 157 && q.total == 231 && t.off[2] == 150 && q.off[2] == 31, "layout: offsets are the lengths before");
    check(!map(&t, &q, 0, 1, 100, 2, 1, 100, 0, &d, err) && d.x0 == 0 && d.n == 100 && d.y0 == 31 && d.dy == 1,
          "plus, a whole target record: x0 0, y0 = query record start 31, 100 bases up");
    check(!map(&t, &q, 1, 50, 50, 0, 30, 30, 0, &d, err) && d.x0 == 149 && d.y0 == 29 && d.n == 1,
          "plus, last base of t1 and of q0: (149, 29)");
    check(!map(&t, &q, 2, 1, 7, 2, 1, 7, 1, &d, err) && d.x0 == 150 && d.y0 == 230 && d.dy == -1 && d.n == 7,
          "minus, reverse position 1 = last forward base of q2 = canvas 230 (the top), going down");
    check(!map(&t, &q, 2, 7, 7, 2, 200, 200, 1, &d, err) && d.x0 == 156 && d.y0 == 31,
          "minus, reverse position 200 of a 200-base record = its first base, canvas 31");
    check(!map(&t, &q, 0, 1, 1, 1, 1, 1, 1, &d, err) && d.y0 == 30 && d.n == 1, "minus on a 1-base record: its only base, 30");
    check(!map(&t, &q, 0, 10, 39, 2, 171, 200, 1, &d, err) && d.y0 == 60 && d.y0 - (d.n - 1) == 31,
          "minus ending at reverse 200 ends on the record's first base");
    check(map(&t, &q, 1, 1, 51, 0, 1, 51, 0, &d, err) && strstr(err, "target range 1-51 is not inside t1 (1-50)"), "target past its record: %s", err);
    check(map(&t, &q, 0, 0, 5, 0, 1, 6, 0, &d, err) && strstr(err, "target range 0-5"), "start 0 refused");
    check(map(&t, &q, 0, 1, 2, 1, 1, 2, 1, &d, err) && strstr(err, "query range 1-2 is not inside q1 (1-1)"), "minus query past its record: %s", err);
    check(map(&t, &q, 0, 1, 5, 0, 1, 6, 0, &d, err) && strstr(err, "differ in length"), "ranges of different lengths refused");
    check(map(&t, &q, 0, 5, 1, 0, 5, 1, 0, &d, err) && strstr(err, "is not inside"), "reversed range refused");
}

/* the raster, base by base, for comparison */
static void brute(uint64_t *B, uint32_t w, uint32_t h, uint64_t X, uint64_t Y, const hz_rdiag *d)
{
    for (uint64_t k = 0; k < d->n; k++) {
        uint64_t x = d->x0 + k, y = d->dy > 0 ? d->y0 + k : d->y0 - k;
        B[(size_t)hz_rbin_of(y, Y, h) * w + hz_rbin_of(x, X, w)]++;
    }
}

static void test_grid(void)
{
    check(hz_rbin_of(0, 157, 9) == 0 && hz_rbin_of(156, 157, 9) == 8 && hz_rbin_of(17, 157, 9) == 0 && hz_rbin_of(18, 157, 9) == 1,
          "bins: floor(pos * 9 / 157): 17 -> 0, 18 -> 1, the last base -> 8");
    int all_equal = 1, sums = 1, counts = 1;
    for (int round = 0; round < 40; round++) {
        uint32_t w = 1 + (uint32_t)(rnd() % 37), h = 1 + (uint32_t)(rnd() % 23);
        uint64_t X = 1 + rnd() % 5000, Y = 1 + rnd() % 5000;
        if (round == 0) { w = 7; h = 5; X = 7; Y = 5; }   /* a bin per base */
        if (round == 1) { w = 900; h = 900; X = 300; Y = 200; }   /* more bins than bases */
        hz_rgrid g;
        if (hz_rgrid_init(&g, w, h, X, Y)) { check(0, "raster allocation"); return; }
        uint64_t *ref[2] = { calloc((size_t)w * h, 8), calloc((size_t)w * h, 8) }, added[2] = { 0, 0 }, nh[2] = { 0, 0 };
        for (int i = 0; i < 60; i++) {
            hz_rdiag d;
            int minus = (int)(rnd() & 1);
            d.dy = minus ? -1 : 1;
            d.x0 = rnd() % X;
            d.y0 = rnd() % Y;
            uint64_t room = X - d.x0;
            uint64_t ry = minus ? d.y0 + 1 : Y - d.y0;
            if (ry < room) room = ry;
            d.n = 1 + rnd() % room;
            if (i == 0) { d.x0 = 0; d.y0 = minus ? Y - 1 : 0; d.n = X < Y ? X : Y; }   /* corner to corner */
            hz_rgrid_add(&g, &d, minus, (int64_t)(rnd() % 100000));
            brute(ref[minus], w, h, X, Y, &d);
            added[minus] += d.n; nh[minus]++;
        }
        for (int s = 0; s < 2; s++) {
            uint64_t sum = 0;
            for (size_t i = 0; i < (size_t)w * h; i++) { sum += g.bases[s][i]; if (g.bases[s][i] != ref[s][i]) all_equal = 0; }
            if (sum != added[s] || g.total_bases[s] != added[s]) sums = 0;
            if (g.hsps[s] != nh[s]) counts = 0;
            free(ref[s]);
        }
        hz_rgrid_free(&g);
    }
    check(all_equal, "raster == base-by-base binning, both strands, 40 random canvases (incl. a bin per base, more bins than bases)");
    check(sums, "aligned bases preserved: the raster's sum is the bases added, per strand");
    check(counts, "HSP counts preserved per strand");
    hz_rgrid g;
    hz_rgrid_init(&g, 10, 10, 100, 100);
    hz_rdiag top = { 99, 99, 1, -1 }, bottom = { 0, 0, 1, 1 };
    hz_rgrid_add(&g, &top, 1, 5000);
    hz_rgrid_add(&g, &bottom, 0, 4000);
    check(g.bases[1][99] == 1 && g.maxscore[1][99] == 5000 && g.bases[0][0] == 1 && g.maxscore[0][0] == 4000 && g.maxscore[0][99] == INT32_MIN,
          "edge bases: the last canvas base is the top-right bin, the first the bottom-left; scores kept per bin");
    hz_rgrid_free(&g);
}

static void put(const char *dir, const char *name, const char *text)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *fp = fopen(p, "wb");
    fputs(text, fp);
    fclose(fp);
}

static char *slurp(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long l = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *b = malloc((size_t)l + 1);
    *n = fread(b, 1, (size_t)l, fp);
    b[*n] = 0;
    fclose(fp);
    return b;
}

static size_t count(const char *s, const char *w)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, w)); p++) n++;
    return n;
}

static const char *MANIFEST =
    "{\"manifest_version\":1,\"tool\":{\"version\":\"0.1.0\"},\"run\":{\"status\":\"completed\",\"output_directory\":\"out\","
    "\"command_line\":[\"run\",\"-r\",\"t.fa\"]},\"config\":{\"values\":{\"xdrop\":{\"value\":910,\"source\":\"default\",\"section\":\"extension\"}}},"
    "\"inputs\":[{\"role\":\"target\",\"path\":\"t.fa\",\"record_lengths\":[100,50,7]},"
    "{\"role\":\"query\",\"path\":\"q.fa\",\"record_lengths\":[30,1,200]}],"
    "\"plan\":{\"target_blocks\":1},\"funnel\":{\"seeds\":10,\"anchors\":5,\"hsps_after_dedup\":3},\"time_s\":{\"wall\":0.5}}\n";

static void test_page(const char *dir)
{
    char err[2048], h[4200], p[4200];
    put(dir, "manifest.json", MANIFEST);
    put(dir, "ref_block0.name", "t<0>\nt&1\n");
    put(dir, "ref_block1.name", "t\"2\"\n");
    put(dir, "query_block0.name", "q0\nq1\nq2\n");
    put(dir, "tmp1.block0.r0.plus.segments", "t<0>\t1\t100\tq2\t1\t100\t+\t9000\nt&1\t50\t50\tq0\t30\t30\t+\t3000\n");
    put(dir, "tmp1.block0.r0.minus.segments", "t\"2\"\t1\t7\tq2\t1\t7\t-\t4000\n");
    put(dir, "all.segments", "not read\n");
    snprintf(h, sizeof h, "%s/r.html", dir);
    snprintf(p, sizeof p, "%s/r.png", dir);
    hz_report_stats st;
    int rc = hz_report_write(dir, h, p, 20000, &st, err, sizeof err);
    check(rc == 0, "report of a hand-made folder: %s", rc ? err : "ok");
    check(st.hsps == 3 && st.files == 2 && st.vector == 1, "3 HSPs from 2 files (all.segments not read), drawn as lines");
    size_t n = 0;
    char *html = slurp(h, &n);
    check(html && n > 1000, "the page exists (%zu bytes)", n);
    if (!html) return;
    check(!strstr(html, "http"), "no 'http' anywhere in the page");
    size_t srcs = count(html, "src="), hrefs = count(html, "href="), data = count(html, "href=\"data:"), png = count(html, "href=\"r.png\"");
    check(srcs == 0 && hrefs == data + png && data == 2 && png == 1,
          "no src=; every href is data: (icon, plot layer) or the PNG beside (%zu src, %zu href)", srcs, hrefs);
    check(count(html, "<script") == 0 && count(html, "<link rel=\"stylesheet") == 0 && count(html, "@import") == 0, "no script, no style sheet to fetch");
    check(count(html, "class=\"grid-t\"") == 2 && count(html, "class=\"grid-q\"") == 2, "a grid line at each record start but the first (2 + 2)");
    check(strstr(html, "data-target-records=\"3\"") && strstr(html, "data-hsps=\"3\""), "svg data attributes");
    check(strstr(html, "t&lt;0&gt;") && strstr(html, "t&amp;1") && strstr(html, "t&quot;2&quot;") && !strstr(html, "t<0>"), "record names escaped");
    free(html);
    size_t pn = 0;
    char *pb = slurp(p, &pn);
    check(pb && pn > 8 && !memcmp(pb, "\x89PNG\r\n\x1a\n", 8), "the PNG beside it is a PNG (%zu bytes)", pn);
    free(pb);
    /* errors: one line naming the file and line */
    put(dir, "tmp2.block0.r0.plus.segments", "t<0>\t1\t101\tq2\t1\t101\t+\t9000\n");
    rc = hz_report_write(dir, h, p, 20000, NULL, err, sizeof err);
    check(rc && strstr(err, "tmp2.block0.r0.plus.segments:1: target range 1-101 is not inside t<0> (1-100)"), "outside the record: %s", err);
    put(dir, "tmp2.block0.r0.plus.segments", "t<0>\t1\t10\tnope\t1\t10\t+\t9000\n");
    rc = hz_report_write(dir, h, p, 20000, NULL, err, sizeof err);
    check(rc && strstr(err, ":1: query record 'nope' is not in the query_block .name files"), "unknown name: %s", err);
    put(dir, "tmp2.block0.r0.plus.segments", "t<0>\t1\t10\tq2\t1\t10\t+\n");
    rc = hz_report_write(dir, h, p, 20000, NULL, err, sizeof err);
    check(rc && strstr(err, ":1: not a segment line (7 TAB-separated fields, want 8)"), "7 fields: %s", err);
    put(dir, "tmp2.block0.r0.plus.segments", "");
    put(dir, "query_block0.name", "q0\nq1\n");
    rc = hz_report_write(dir, h, p, 20000, NULL, err, sizeof err);
    check(rc && strstr(err, "manifest.json: 3 query record lengths, but the .name files list 2 records"), "names vs lengths: %s", err);
    put(dir, "manifest.json", "{\"funnel\":{},\"inputs\":[{\"role\":\"target\"}]}");
    rc = hz_report_write(dir, h, p, 20000, NULL, err, sizeof err);
    check(rc && strstr(err, "the target input has no record_lengths"), "old manifest: %s", err);
}

int main(void)
{
    test_map();
    test_grid();
    const char *td = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/hz-test-report-XXXXXX", td && *td ? td : "/tmp");
    if (!mkdtemp(dir)) { check(0, "mkdtemp"); return 1; }
    test_page(dir);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    printf("1..%d\n# %d failed\n", n_tests, n_fail);
    return n_fail != 0;
}
