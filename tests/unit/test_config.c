/* Unit tests for src/run/config.c (YAML configuration, precedence, flag marking, printing, the
 * HSPZ_* environment, plan counts) and src/out/manifest.c (sha256, canonical digest, failure
 * manifest path).  Writes small files into a fresh directory under $TMPDIR or /tmp and
 * removes them.  Prints "ok N - ..." / "not ok N - ..." lines; exits non-zero on any failure. */
#include "config.h"
#include "manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <pthread.h>
#include <dirent.h>
#include <unistd.h>
#include "tap.h"

static char dir[512];

static const char *write_file(const char *name, const char *text)
{
    static char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *fp = fopen(p, "wb");
    fputs(text, fp);
    fclose(fp);
    return p;
}

/* resolve text as a config file with no flags (into c, zeroed or resolved before: what it
 * owns is freed first); returns 0/-1 and the error */
static int resolve_text(hz_config *c, const char *text, char *err, size_t n)
{
    hz_cfg_free(c);
    hz_opts f;
    hz_opts_default(&f);
    unsigned char set[HZ_CFG_MAX] = {0};
    const char *p = write_file("c.yaml", text);
    err[0] = 0;
    return hz_cfg_resolve(c, p, &f, set, err, n);
}

static void test_defaults_and_precedence(void)
{
    hz_config c = {0};
    char err[2048];
    hz_opts f, d;
    hz_opts_default(&d);
    hz_opts_default(&f);
    unsigned char set[HZ_CFG_MAX] = {0};
    check(hz_cfg_resolve(&c, NULL, &f, set, err, sizeof err) == 0, "resolve without a file");
    check(c.o.xdrop == 910 && c.o.hspthresh == 3000 && c.o.chunk_size == 250000 && !strcmp(c.o.seed, "12of19"),
          "defaults: xdrop 910, hspthresh 3000, chunk 250000, seed 12of19");
    int all_default = 1;
    for (int i = 0; i < hz_param_count(); i++) all_default &= c.src[i] == HZ_SRC_DEFAULT;
    check(all_default, "every source is default");
    check(c.o.cfg == &c, "o.cfg points to the configuration");

    /* flags: -x 700 (short), --hspthresh 3000 (long, equal to the default), --num_threads 2 */
    f.xdrop = 700; hz_cfg_mark(set, 'x', NULL);
    f.hspthresh = 3000; hz_cfg_mark(set, 0, "hspthresh");
    f.threads = 2; hz_cfg_mark(set, 0, "num_threads");
    f.transition = 0; hz_cfg_mark(set, 0, "notransition");
    f.progress = 0; hz_cfg_mark(set, 0, "no-progress");
    f.chunk_size = 1000; hz_cfg_mark(set, 0, "wga-chunk-size");
    hz_cfg_mark(set, 0, "help");    /* not a parameter */
    hz_cfg_mark(set, 'h', NULL);
    const char *p = write_file("p.yaml",
        "extension:\n  xdrop: 500\n  hspthresh: 2500\n  entropy: false\n"
        "plan:\n  seq_block_size: 12345\n  wga_chunk_size: 777\n"
        "devices:\n  progress: on\n");
    hz_cfg_free(&c);
    check(hz_cfg_resolve(&c, p, &f, set, err, sizeof err) == 0, "resolve file + flags: %s", err);
    int ix = hz_param_find("xdrop"), ih = hz_param_find("hspthresh"), ie = hz_param_find("entropy");
    int ib = hz_param_find("seq_block_size"), ic = hz_param_find("wga_chunk_size"), iy = hz_param_find("ydrop");
    int it = hz_param_find("threads"), itr = hz_param_find("transition"), ip = hz_param_find("progress");
    check(c.o.xdrop == 700 && c.src[ix] == HZ_SRC_FLAG, "xdrop: flag 700 beats file 500");
    check(c.o.hspthresh == 3000 && c.src[ih] == HZ_SRC_FLAG, "hspthresh: flag equal to the default still wins (source flag)");
    check(c.o.entropy == 0 && c.src[ie] == HZ_SRC_FILE, "entropy: file false");
    check(c.o.seq_block_size == 12345 && c.src[ib] == HZ_SRC_FILE, "seq_block_size: file 12345");
    check(c.o.chunk_size == 1000 && c.src[ic] == HZ_SRC_FLAG, "wga_chunk_size: flag 1000 beats file 777");
    check(c.o.ydrop == 9430 && c.src[iy] == HZ_SRC_DEFAULT, "ydrop: default 9430");
    check(c.o.threads == 2 && c.src[it] == HZ_SRC_FLAG, "--num_threads marks threads");
    check(c.o.transition == 0 && c.src[itr] == HZ_SRC_FLAG, "--notransition marks transition");
    check(c.o.progress == 0 && c.src[ip] == HZ_SRC_FLAG, "--no-progress beats file progress: on");
    int n_set = 0;
    for (int i = 0; i < hz_param_count(); i++) n_set += set[i];
    check(n_set == 6, "exactly 6 parameters marked (help marks none): %d", n_set);
    hz_cfg_free(&c);
}

static void expect_error(const char *text, const char *where, const char *what)
{
    hz_config c = {0};
    char err[2048], want[1200];
    int rc = resolve_text(&c, text, err, sizeof err);
    snprintf(want, sizeof want, "%s/c.yaml:%s: ", dir, where);
    check(rc == -1 && strstr(err, want) == err && strstr(err, what), "error at %s: %s  [got: %s]", where, what, err);
    hz_cfg_free(&c);
}

static void test_errors(void)
{
    expect_error("extension:\n  xdorp: 1\n", "2:3", "unknown key 'xdorp' in section 'extension' (allowed: xdrop, hspthresh, entropy)");
    expect_error("seeds:\n  step: 1\n", "1:1", "unknown section 'seeds' (allowed: inputs, scoring, seeding, extension, plan, output, devices)");
    expect_error("extension:\n  xdrop: ten\n", "2:10", "extension.xdrop: expected an integer 1..100000000, got 'ten'");
    expect_error("extension:\n  xdrop: '910'\n", "2:10", "expected an integer");
    expect_error("extension:\n  xdrop: 100000001\n", "2:10", "extension.xdrop: 100000001 is out of range (allowed: 1..100000000)");
    expect_error("devices:\n  threads: -1\n", "2:12", "devices.threads: -1 is out of range (allowed: 0..4096)");
    expect_error("devices:\n  quiet: yes\n", "2:10", "devices.quiet: expected a boolean (allowed: true, false), got 'yes'");
    expect_error("seeding:\n  strand: Both\n", "2:11", "seeding.strand: 'Both' is not allowed (allowed: plus, minus, both)");
    expect_error("plan:\n  max_hits: {a: 1}\n", "2:13", "plan.max_hits: expected a single value, got a mapping");
    expect_error("output:\n  nogapped: true\n  nogapped: false\n", "3:3", "key 'output.nogapped' appears twice");
    expect_error("seeding:\n  seed: 1x1\n", "2:9", "seeding.seed: ");

    hz_config c = {0};
    char err[2048];
    check(resolve_text(&c, "# only a comment\n", err, sizeof err) == 0, "a file of comments is accepted");
    check(resolve_text(&c, "inputs:\nseeding:\n  seed: \"14of22\"\n", err, sizeof err) == 0 && !strcmp(c.o.seed, "14of22"),
          "an empty section is accepted; quoted seed 14of22");
    check(resolve_text(&c, "scoring:\n  ambiguous: ~\n  scoring: \"x.txt\"\n", err, sizeof err) == 0 &&
          c.o.ambiguous == NULL && !strcmp(c.o.scoring, "x.txt"), "null and strings for nullable keys");
    check(resolve_text(&c, "output:\n  gappedthresh: -1\n  ydrop: 0\n", err, sizeof err) == 0 &&
          c.o.gappedthresh == -1 && c.o.ydrop == 0, "range ends -1 and 0 accepted");
    hz_cfg_free(&c);
}

static void test_print_round_trip(void)
{
    hz_config c = {0}, c2 = {0};
    char err[2048];
    check(resolve_text(&c, "inputs:\n  target_prefix: \"a\\\"b\\\\c\\td\"\nseeding:\n  strand: minus\n"
                           "plan:\n  max_hits: 9223372036854775807\ndevices:\n  progress: off\n", err, sizeof err) == 0,
          "resolve for printing: %s", err);
    char pth[1024];
    snprintf(pth, sizeof pth, "%s/printed.yaml", dir);
    FILE *fp = fopen(pth, "wb");
    hz_cfg_print(&c, fp);
    fclose(fp);
    hz_opts f;
    hz_opts_default(&f);
    unsigned char set[HZ_CFG_MAX] = {0};
    check(hz_cfg_resolve(&c2, pth, &f, set, err, sizeof err) == 0, "printed configuration parses: %s", err);
    int same = 1;
    for (int i = 0; i < hz_param_count(); i++) {
        char a[256], b[256];
        hz_cfg_value_text(&c.o, i, a, sizeof a);
        hz_cfg_value_text(&c2.o, i, b, sizeof b);
        if (strcmp(a, b)) { same = 0; printf("# %s: %s != %s\n", hz_param_at(i)->key, a, b); }
        if (c2.src[i] != HZ_SRC_FILE) { same = 0; printf("# %s: source not file\n", hz_param_at(i)->key); }
    }
    check(same, "round trip: every value equal, every source file");
    check(!strcmp(c2.o.target_prefix, "a\"b\\c\td"), "escaped string survives");
    check(c2.o.max_hits == 9223372036854775807ULL && c2.o.progress == 0, "max_hits 2^63-1 and progress off survive");
    char want[65] = "";
    check(hz_sha256_file(pth, want, NULL, NULL) == 0 && !strcmp(c2.sha256, want),
          "the file's sha256 is taken while it is parsed: %.12s (file %.12s)", c2.sha256, want);
    hz_cfg_free(&c); hz_cfg_free(&c2);
}

static void test_env(void)
{
    char err[1024];
    unsetenv("HSPZ_GATE"); unsetenv("HSPZ_GPU_TILE");
    check(hz_env_check(err, sizeof err) == 0, "clean environment");
    setenv("HSPZ_GATE", "full", 1);
    setenv("HSPZ_GPU_TILE", "1073741824", 1);
    setenv("HSPZ_TIMEOUT", "5", 1);   /* test harness: ignored */
    check(hz_env_check(err, sizeof err) == 0, "valid values accepted: %s", err);
    int n;
    const hz_envvar *v = hz_env_vars(&n);
    check(n == 14 && !strcmp(v[0].name, "HSPZ_GATE") && v[0].value && !strcmp(v[0].value, "full") &&
          !strcmp(v[1].name, "HSPZ_GATE_KERNEL") && v[1].value == NULL && v[2].value == NULL &&
          !strcmp(v[4].name, "HSPZ_DEVICE_DEDUP") && v[4].value == NULL &&
          !strcmp(v[6].name, "HSPZ_GPU_TILE") && !strcmp(v[6].value, "1073741824") &&
          !strcmp(v[7].name, "HSPZ_SYNC") && v[7].value == NULL &&
          !strcmp(v[8].name, "HSPZ_FAULT") && v[8].value == NULL &&
          !strcmp(v[9].name, "HSPZ_TRACE") && v[9].value == NULL, "values recorded");
    setenv("HSPZ_FAULT", "gpu-kernel:3", 1);
    check(hz_env_check(err, sizeof err) == 0 && (v = hz_env_vars(&n)) && !strcmp(v[8].value, "gpu-kernel:3"),
          "HSPZ_FAULT=gpu-kernel:3 accepted and recorded");
    unsetenv("HSPZ_FAULT");
    setenv("HSPZ_SYNC", "yield", 1);
    check(hz_env_check(err, sizeof err) == 0 && (v = hz_env_vars(&n)) && !strcmp(v[7].value, "yield"),
          "HSPZ_SYNC=yield accepted and recorded");
    setenv("HSPZ_SYNC", "sleep", 1);
    check(hz_env_check(err, sizeof err) == -1 && strstr(err, "HSPZ_SYNC='sleep' is not allowed (allowed: block, auto, spin, yield)"),
          "HSPZ_SYNC=sleep refused: %s", err);
    unsetenv("HSPZ_SYNC");
    setenv("HSPZ_FAULT", "gpu-alloc:0", 1);
    check(hz_env_check(err, sizeof err) == -1 && strstr(err, "HSPZ_FAULT='gpu-alloc:0' is not allowed"), "HSPZ_FAULT=gpu-alloc:0 refused: %s", err);
    unsetenv("HSPZ_FAULT");
    setenv("HSPZ_GPU_TILE", "1073741825", 1);
    check(hz_env_check(err, sizeof err) == -1 && strstr(err, "HSPZ_GPU_TILE='1073741825' is not allowed (allowed: an integer 1..1073741824)"),
          "tile above 2^30 refused: %s", err);
    unsetenv("HSPZ_GPU_TILE");
    setenv("HSPZ_REF_BUCKETS", "", 1);
    check(hz_env_check(err, sizeof err) == -1 && strstr(err, "(allowed: auto, on, off)"), "empty value refused: %s", err);
    unsetenv("HSPZ_REF_BUCKETS");
    setenv("HSPZ_KERNEL", "x", 1);
    setenv("HSPZ_HOME", "/opt/x", 1);
    char unk[256];
    check(hz_env_check(err, sizeof err) == 0 && hz_env_unknown(unk, sizeof unk) == 2 &&
          strstr(unk, "HSPZ_KERNEL") && strstr(unk, "HSPZ_HOME") && !strstr(unk, "HSPZ_TIMEOUT") && !strstr(unk, "HSPZ_GATE"),
          "unknown names ignored, listed for the note: %s", unk);
    unsetenv("HSPZ_KERNEL"); unsetenv("HSPZ_HOME"); unsetenv("HSPZ_GATE"); unsetenv("HSPZ_TIMEOUT");
}

/* want[65] = sha256 of the lines of the files in dir named by glob, as LC_ALL=C sort orders
 * them (sha256sum's hex; "" when the shell pipeline fails) */
static void sort_sha256(const char *dir, const char *glob, char want[65])
{
    char cmd[1600], line[80] = "";
    snprintf(cmd, sizeof cmd, "cat '%s'/%s | LC_ALL=C sort | sha256sum", dir, glob);
    FILE *pp = popen(cmd, "r");
    if (pp) { if (!fgets(line, sizeof line, pp)) line[0] = 0; pclose(pp); }
    snprintf(want, 65, "%.64s", line);
}

static void test_digest(void)
{
    char sub[600], hex[65], err[512];
    snprintf(sub, sizeof sub, "%s/o", dir);
    mkdir(sub, 0777);
    /* lines of two files, unsorted, the last without a newline; a .name file is not digested */
    char p[700];
    snprintf(p, sizeof p, "%s/a.segments", sub);
    FILE *fp = fopen(p, "wb"); fputs("b 2\nab 1\n", fp); fclose(fp);
    snprintf(p, sizeof p, "%s/b.segments", sub);
    fp = fopen(p, "wb"); fputs("a 9\nb", fp); fclose(fp);
    snprintf(p, sizeof p, "%s/x.name", sub);
    fp = fopen(p, "wb"); fputs("zzz\n", fp); fclose(fp);
    uint64_t nl = 0;
    check(hz_canonical_digest(sub, 1, hex, &nl, NULL, err, sizeof err) == 0 && nl == 4, "digest of 4 lines");
    char want[65];
    {
        snprintf(p, sizeof p, "%s/ref.txt", dir);
        fp = fopen(p, "wb"); fputs("a 9\nab 1\nb\nb 2\n", fp); fclose(fp);
        uint64_t bytes, lines;
        check(hz_sha256_file(p, want, &bytes, &lines) == 0 && bytes == 15 && lines == 4, "sha256 of a file, bytes 15, lines 4");
    }
    check(!strcmp(hex, want), "canonical digest = sha256 of the bytewise-sorted lines");
    /* bucket sort: buckets of 8 bytes (one or two lines each) give the same digest */
    char hex2[65]; uint64_t nl2 = 0;
    check(hz_canonical_digest_buckets(sub, 8, 2, hex2, &nl2, err, sizeof err) == 0 && nl2 == 4 && !strcmp(hex2, want),
          "4 lines in buckets of 8 bytes: same digest");
    {   /* 30,000 random lines (shared prefixes, duplicates, an unterminated last line) in 3 files:
         * in memory, in buckets of 4 KiB (3 threads), 64 KiB (8 threads) and 700 bytes (512
         * buckets of more than that, 2 threads) agree, and no temporary file is left behind */
        char d2[700];
        snprintf(d2, sizeof d2, "%s/o2", dir);
        mkdir(d2, 0777);
        uint64_t x = 88172645463325252ULL;
        for (int f = 0; f < 3; f++) {
            snprintf(p, sizeof p, "%s/f%d.segments", d2, f);
            fp = fopen(p, "wb");
            for (int i = 0; i < 10000; i++) {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                fprintf(fp, "chr%llu\t%llu\t%llu%s", (unsigned long long)(x % 3), (unsigned long long)((x >> 8) % 5000),
                        (unsigned long long)((x >> 24) % 7), f == 2 && i == 9999 ? "" : "\n");
            }
            fclose(fp);
        }
        char h1[65], h2[65], h3[65], h4[65]; uint64_t n1 = 0, n2 = 0, n3 = 0, n4 = 0;
        int r1 = hz_canonical_digest_buckets(d2, (size_t)1 << 30, 1, h1, &n1, err, sizeof err);
        int r2 = hz_canonical_digest_buckets(d2, 4096, 3, h2, &n2, err, sizeof err);
        int r3 = hz_canonical_digest_buckets(d2, 65536, 8, h3, &n3, err, sizeof err);
        int r4 = hz_canonical_digest_buckets(d2, 700, 2, h4, &n4, err, sizeof err);
        check(r1 == 0 && r2 == 0 && r3 == 0 && r4 == 0 && n1 == 30000 && n2 == 30000 && n3 == 30000 && n4 == 30000 &&
              !strcmp(h1, h2) && !strcmp(h1, h3) && !strcmp(h1, h4),
              "30,000 lines: in memory %.12s, 4 KiB buckets %.12s, 64 KiB buckets %.12s, 700-byte buckets %.12s", h1, h2, h3, h4);
        char want2[65];
        sort_sha256(d2, "f[012].segments", want2);
        check(!strncmp(h1, want2, 64), "30,000 lines: equal to LC_ALL=C sort | sha256sum (%.12s)", want2);
        snprintf(p, sizeof p, "ls -A '%s' | grep -c . | grep -qx 3", d2);
        check(system(p) == 0, "no temporary run file left in the folder");
        /* buckets of 64 bytes: 512 at most, so each is sorted again (nested levels) */
        char h5[65]; uint64_t n5 = 0;
        check(hz_canonical_digest_buckets(d2, 64, 4, h5, &n5, err, sizeof err) == 0 && n5 == 30000 && !strcmp(h5, h1),
              "30,000 lines in 64-byte buckets (buckets sorted again, nested): same digest %.12s", h5);
        /* a low open-file limit: 4 temporary files a level, many levels; in a child, the limit stays there */
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            struct rlimit rl = { 80, 80 };
            char h6[65], e6[512]; uint64_t n6 = 0;
            int ok = setrlimit(RLIMIT_NOFILE, &rl) == 0 && hz_canonical_digest_buckets(d2, 4096, 3, h6, &n6, e6, sizeof e6) == 0 &&
                     n6 == 30000 && !strcmp(h6, h1);
            _exit(ok ? 0 : 1);
        }
        int st = -1;
        waitpid(pid, &st, 0);
        check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "30,000 lines under an open-file limit of 80: same digest");
    }
    {   /* 200,000 copies of one line among 2,000 others: the copies are counted, not stored */
        char d3[700];
        snprintf(d3, sizeof d3, "%s/o3", dir);
        mkdir(d3, 0777);
        snprintf(p, sizeof p, "%s/f.segments", d3);
        fp = fopen(p, "wb");
        for (int i = 0; i < 202000; i++)
            if (i % 101 == 0) fprintf(fp, "chrB\t%d\t%d\n", i, i % 7); else fputs("chrA\t1\t2\tq\t1\t2\t+\t3000\n", fp);
        fclose(fp);
        char h1[65], h2[65], want3[65]; uint64_t n1 = 0, n2 = 0;
        int r1 = hz_canonical_digest_buckets(d3, (size_t)1 << 30, 1, h1, &n1, err, sizeof err);
        int r2 = hz_canonical_digest_buckets(d3, 4096, 2, h2, &n2, err, sizeof err);
        sort_sha256(d3, "f.segments", want3);
        check(r1 == 0 && r2 == 0 && n1 == 202000 && n2 == 202000 && !strcmp(h1, h2) && !strncmp(h1, want3, 64),
              "202,000 lines, 200,000 of them equal: in memory == 4 KiB buckets == sort | sha256sum (%.12s)", h2);
        /* in memory on 4 threads: nearly every splitter is the repeated line, one bucket holds it */
        char h3[65]; uint64_t n3 = 0;
        check(hz_canonical_digest_buckets(d3, (size_t)1 << 30, 4, h3, &n3, err, sizeof err) == 0 && n3 == 202000 &&
              !strcmp(h3, h1), "202,000 lines, 200,000 equal, in memory on 4 threads: same digest %.12s", h3);
    }
    {   /* in memory on several threads (from 65,536 lines: sampled splitters, buckets sorted
         * apart): == one thread == buckets through files == LC_ALL=C sort | sha256sum, with
         * lines of 1 to 300 bytes, shared prefixes, an unterminated last line, and the default
         * path (hz_canonical_digest: up to 64 MiB in memory) */
        char d6[700];
        snprintf(d6, sizeof d6, "%s/o6", dir);
        mkdir(d6, 0777);
        uint64_t x = 0x9e3779b97f4a7c15ULL;
        for (int f = 0; f < 4; f++) {
            snprintf(p, sizeof p, "%s/f%d.segments", d6, f);
            fp = fopen(p, "wb");
            for (int i = 0; i < 30000; i++) {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                int len = (int)(x % 300) + 1;
                fprintf(fp, "%s", (x >> 9) % 4 ? "chrUn_scaffold_" : "");
                for (int k = 0; k < len; k++) fputc("ACGT\t+-0123456789"[(x >> (k % 50)) % 17], fp);
                if (!(f == 3 && i == 29999)) fputc('\n', fp);
            }
            fclose(fp);
        }
        char h1[65], h2[65], h3[65], h4[65], h5[65], want6[65]; uint64_t n1 = 0, n2 = 0, n3 = 0, n4 = 0, n5 = 0;
        int r1 = hz_canonical_digest_buckets(d6, (size_t)1 << 30, 1, h1, &n1, err, sizeof err);
        int r2 = hz_canonical_digest_buckets(d6, (size_t)1 << 30, 3, h2, &n2, err, sizeof err);
        int r3 = hz_canonical_digest_buckets(d6, (size_t)1 << 30, 16, h3, &n3, err, sizeof err);
        int r4 = hz_canonical_digest_buckets(d6, 65536, 4, h4, &n4, err, sizeof err);
        int r5 = hz_canonical_digest(d6, 7, h5, &n5, NULL, err, sizeof err);
        sort_sha256(d6, "f[0-3].segments", want6);
        check(r1 == 0 && r2 == 0 && r3 == 0 && r4 == 0 && r5 == 0 && n1 == 120000 && n2 == n1 && n3 == n1 && n4 == n1 &&
              n5 == n1 && !strcmp(h2, h1) && !strcmp(h3, h1) && !strcmp(h4, h1) && !strcmp(h5, h1) && !strncmp(h1, want6, 64),
              "120,000 lines in memory on 1, 3 and 16 threads == 64 KiB buckets == default == sort | sha256sum (%.12s)", want6);
    }
    {   /* the keyed sort's edges: long common prefixes (past its 6 levels of 8 bytes), lines that
         * are prefixes of others, bytes 0x01 and 0xff, runs of equal keys: == LC_ALL=C sort */
        char d4[700];
        snprintf(d4, sizeof d4, "%s/o4", dir);
        mkdir(d4, 0777);
        snprintf(p, sizeof p, "%s/f.segments", d4);
        fp = fopen(p, "wb");
        uint64_t x = 0x9e3779b97f4a7c15ULL;
        const char al[] = "\t01\x01\xff";
        for (int i = 0; i < 60000; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            int pre = (int)(x % 4) == 0 ? 0 : (int)(x % 3) * 30;   /* 0, 30 or 60 shared bytes */
            for (int k = 0; k < pre; k++) fputc('A' + k % 7, fp);
            int len = (int)((x >> 8) % 12);
            for (int k = 0; k < len; k++) fputc(al[(x >> (16 + 3 * k % 40)) % 5], fp);
            fputc('\n', fp);
        }
        fclose(fp);
        char h1[65], h2[65], want4[65]; uint64_t n1 = 0, n2 = 0;
        int r1 = hz_canonical_digest_buckets(d4, (size_t)1 << 30, 1, h1, &n1, err, sizeof err);
        int r2 = hz_canonical_digest_buckets(d4, 8192, 3, h2, &n2, err, sizeof err);
        sort_sha256(d4, "f.segments", want4);
        check(r1 == 0 && r2 == 0 && n1 == 60000 && n2 == 60000 && !strcmp(h1, h2) && !strncmp(h1, want4, 64),
              "60,000 lines with long shared prefixes, prefixes of each other, bytes 0x01/0xff: in memory == 8 KiB buckets == sort | sha256sum (%.12s)", want4);
    }
    {   /* bucket_of's shortcuts: the splitters share a long prefix, lines end inside it, differ
         * from it either way, hold NUL bytes where a splitter's key8 is zero-padded: == sort */
        char d5[700];
        snprintf(d5, sizeof d5, "%s/o5", dir);
        mkdir(d5, 0777);
        snprintf(p, sizeof p, "%s/f.segments", d5);
        fp = fopen(p, "wb");
        uint64_t x = 0x2545f4914f6cdd1dULL;
        const char al[] = "\0\t0129";
        for (int i = 0; i < 40000; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            /* rare enough (1 in 2048) that no splitter is one of them: the splitters share
             * "chrUn_scaff" or more, and these lines take bucket_of's early returns */
            int kind = (int)(x % 16), rare = (int)((x >> 40) % 2048);
            if (rare == 0) fputs("chrA", fp);                                   /* before the prefix */
            else if (rare == 1) { fputs("chrUn_s\n", fp); continue; }         /* a prefix of it */
            else if (rare == 2) fputs("chrZ", fp);                              /* past it */
            else if (kind == 0) fputs("chrUn_scaff", fp);
            else if (kind == 1) fputs("chrUn_scaffold_1\t9", fp);
            else fputs("chrUn_scaffold_", fp);
            int len = (int)((x >> 8) % 11);
            for (int k = 0; k < len; k++) fputc(al[(x >> (12 + 4 * k % 48)) % 6], fp);
            fputc('\n', fp);
        }
        fclose(fp);
        char h1[65], h2[65], h3[65], want5[65]; uint64_t n1 = 0, n2 = 0, n3 = 0;
        int r1 = hz_canonical_digest_buckets(d5, (size_t)1 << 30, 1, h1, &n1, err, sizeof err);
        int r2 = hz_canonical_digest_buckets(d5, 2048, 3, h2, &n2, err, sizeof err);
        int r3 = hz_canonical_digest_buckets(d5, 256, 2, h3, &n3, err, sizeof err);
        sort_sha256(d5, "f.segments", want5);
        check(r1 == 0 && r2 == 0 && r3 == 0 && n1 == 40000 && n2 == 40000 && n3 == 40000 && !strcmp(h1, h2) &&
              !strcmp(h1, h3) && !strncmp(h1, want5, 64),
              "40,000 lines around the splitters' shared prefix, with NUL bytes: in memory == 2 KiB == 256-byte buckets == sort | sha256sum (%.12s)", want5);
    }
    snprintf(p, sizeof p, "%s/empty", dir);
    fp = fopen(p, "wb"); fclose(fp);
    check(hz_sha256_file(p, hex, NULL, NULL) == 0 &&
          !strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"), "sha256 of the empty file");
    char *fm = hz_failed_manifest_path("x/out//");
    check(fm && !strcmp(fm, "x/out.failed-manifest.json"), "failure manifest path strips trailing '/': %s", fm);
    free(fm);
    check(hz_failed_manifest_path("") == NULL && hz_failed_manifest_path(NULL) == NULL, "no path without OUTDIR");
}

/* the canonical digest fed while files are written (digest.h hz_dg_stream) */
typedef struct { hz_dg_stream *ds; const char *buf; size_t len; int rc; } feed_arg;

static void *feed_main(void *arg)   /* a formatter's feeding: whole lines, in pieces of up to ~3 KiB */
{
    feed_arg *a = arg;
    for (size_t at = 0; at < a->len && !a->rc;) {
        size_t end = at + 3000 < a->len ? at + 3000 : a->len;
        while (end < a->len && a->buf[end - 1] != '\n') end++;
        a->rc = hz_dg_stream_lines(a->ds, a->buf + at, end - at);
        at = end;
    }
    return NULL;
}

/* n lines of segments into buf (malloc'd); names from the target's, one unknown, one empty;
 * a line now and then twice */
static char *stream_lines(uint64_t seed, size_t n, size_t *len)
{
    static const char *const nm[] = { "chr1", "chr2", "c", "zz_unknown", "" };
    char *b = malloc(n * 64), *p = b;
    uint64_t x = seed;
    for (size_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int k = (int)((x >> 33) % 100);
        const char *name = nm[k < 45 ? 0 : k < 80 ? 1 : k < 95 ? 2 : k < 98 ? 3 : 4];
        unsigned st = (unsigned)((x >> 20) % 250000) + 1, len = (unsigned)((x >> 8) % 300) + 1;
        char *line = p;
        p += sprintf(p, "%s\t%u\t%u\tq%u\t%u\t%u\t%c\t%u\n", name, st, st + len, k % 3, st, st + len, k % 2 ? '+' : '-', (unsigned)(x % 9000));
        if (i % 997 == 5 && i + 1 < n) { size_t ll = (size_t)(p - line); memmove(p, line, ll); p += ll; i++; }   /* a copy */
    }
    *len = (size_t)(p - b);
    return b;
}

static void put_file(const char *path, const char *buf, size_t len)
{
    FILE *fp = fopen(path, "wb"); fwrite(buf, 1, len, fp); fclose(fp);
}

static int open_fds(void)   /* descriptors open in this process */
{
    int n = 0;
    DIR *dp = opendir("/proc/self/fd");
    if (!dp) return -1;
    while (readdir(dp)) n++;
    closedir(dp);
    return n;
}

static void test_digest_stream(void)
{
    char d[600], p[700], q[700], err[512], hs[65], hf[65], want[65];
    uint64_t ns = 0, nf = 0;
    snprintf(d, sizeof d, "%s/stream", dir);
    mkdir(d, 0777);
    size_t l0, l1, l2;
    char *b0 = stream_lines(1, 20000, &l0), *b1 = stream_lines(2, 30000, &l1), *b2 = stream_lines(3, 25000, &l2);
    /* f0 written before the stream opened (splitters sampled from it, distributed from disk);
     * f1 and f2 fed at once by two threads */
    snprintf(p, sizeof p, "%s/tmp1.block0.r0.plus.segments", d); put_file(p, b0, l0);
    char *first[] = { p };
    hz_dg_stream *ds = hz_dg_stream_open(d, first, 1, 4096, 3, err, sizeof err);
    check(ds != NULL, "stream opened on a first file: %s", ds ? "" : err);
    if (!ds) return;
    feed_arg a1 = { ds, b1, l1, 0 }, a2 = { ds, b2, l2, 0 };
    pthread_t t1, t2;
    pthread_create(&t1, NULL, feed_main, &a1); pthread_create(&t2, NULL, feed_main, &a2);
    pthread_join(t1, NULL); pthread_join(t2, NULL);
    snprintf(p, sizeof p, "%s/tmp1.block0.r0.minus.segments", d); put_file(p, b1, l1);
    snprintf(q, sizeof q, "%s/tmp2.block0.r0.plus.segments", d); put_file(q, b2, l2);
    check(!a1.rc && !a2.rc && !hz_dg_stream_file(ds, p) && !hz_dg_stream_file(ds, q), "two files fed by two threads, recorded");
    snprintf(p, sizeof p, "%s/all.segments", d); put_file(p, b0, l0);   /* --single-file's copy: not digested */
    hz_dg_times tm;
    int rs = hz_dg_stream_finish(ds, hs, &ns, &tm);
    int rf = hz_canonical_digest_buckets(d, (size_t)1 << 30, 1, hf, &nf, err, sizeof err);
    sort_sha256(d, "tmp*.segments", want);
    check(rs == 0 && rf == 0 && ns == 75000 && nf == 75000 && !strcmp(hs, hf) && !strncmp(hs, want, 64) && tm.sort_hash > 0,
          "75,000 lines (one file from disk, two fed in 3 KiB pieces by two threads) == the folder's digest == sort | sha256sum (%.12s)", want);
    hz_dg_stream_free(ds);
    snprintf(p, sizeof p, "ls -A '%s' | grep -c . | grep -qx 4", d);
    check(system(p) == 0, "no bucket file left in the folder");
    /* lines of names the first file never had (all in the first or last bucket): sorted again, same digest */
    {
        char d2[640], p2[700];
        snprintf(d2, sizeof d2, "%s/stream2", dir);
        mkdir(d2, 0777);
        snprintf(p2, sizeof p2, "%s/tmp1.block0.r0.plus.segments", d2); put_file(p2, b0, l0);
        char *f2[] = { p2 };
        ds = hz_dg_stream_open(d2, f2, 1, 4096, 2, err, sizeof err);
        size_t lz = 0;
        char *bz = malloc(40000 * 24), *pz = bz;
        for (int i = 0; i < 40000; i++) pz += sprintf(pz, "%s\t%d\t5\tq\t1\t2\t+\t9\n", i % 2 ? "zzz" : "AAA", 40000 - i);
        lz = (size_t)(pz - bz);
        int fr = ds && !hz_dg_stream_lines(ds, bz, lz);
        snprintf(p2, sizeof p2, "%s/tmp2.block0.r0.plus.segments", d2); put_file(p2, bz, lz);
        fr = fr && !hz_dg_stream_file(ds, p2);
        int r = ds ? hz_dg_stream_finish(ds, hs, &ns, NULL) : -1;
        sort_sha256(d2, "tmp*.segments", want);
        check(fr && r == 0 && ns == 60000 && !strncmp(hs, want, 64), "60,000 lines, 40,000 past every splitter: == sort | sha256sum (%.12s)", want);
        hz_dg_stream_free(ds);
        free(bz);
    }

    /* what makes it give way to the folder's digest (1) */
    const char *why[] = { "a file changed after it was recorded", "a file in the folder never fed", "a file recorded but gone",
                          "a line without its newline", "output under 8 x the bucket size" };
    for (int c = 0; c < 5; c++) {
        snprintf(p, sizeof p, "%s/tmp1.block0.r0.plus.segments", d);
        int fds0 = open_fds();
        ds = hz_dg_stream_open(d, first, 1, c == 4 ? 1 << 20 : 4096, 2, err, sizeof err);
        int fds1 = open_fds();
        int fed = ds != NULL;
        snprintf(q, sizeof q, "%s/tmp1.block0.r0.minus.segments", d);
        fed = fed && hz_dg_stream_lines(ds, b1, l1) == 0 && hz_dg_stream_file(ds, q) == 0;
        snprintf(q, sizeof q, "%s/tmp2.block0.r0.plus.segments", d);
        fed = fed && hz_dg_stream_lines(ds, b2, l2) == 0 && hz_dg_stream_file(ds, q) == 0;
        char extra[700];
        snprintf(extra, sizeof extra, "%s/tmp9.block0.r0.plus.segments", d);
        if (c == 0) { usleep(20000); FILE *fp = fopen(q, "ab"); fputs("c\t1\t2\tq\t1\t2\t+\t5\n", fp); fclose(fp); }
        if (c == 1) put_file(extra, "c\t1\t2\tq\t1\t2\t+\t5\n", strlen("c\t1\t2\tq\t1\t2\t+\t5\n"));
        if (c == 2) rename(q, extra);
        int lr = c == 3 ? hz_dg_stream_lines(ds, "c\t1", 3) : 0;
        int r = hz_dg_stream_finish(ds, hs, &ns, NULL);
        int fds2 = open_fds();
        check(fed && r == 1 && (c != 3 || lr == -1) && (c == 4 || fds1 > fds0) && fds2 == fds0,
              "%s: the stream gives way (finish %d), its bucket files closed (%d, %d, %d open)", why[c], r, fds0, fds1, fds2);
        hz_dg_stream_free(ds);
        if (c == 0) put_file(q, b2, l2);
        if (c == 1) unlink(extra);
        if (c == 2) rename(extra, q);
    }
    char *missing[] = { "/nonexistent/tmp1.block0.r0.plus.segments" };
    check(hz_dg_stream_open(d, missing, 1, 4096, 2, err, sizeof err) == NULL && strstr(err, "cannot read"),
          "a first file that cannot be read: no stream (%s)", err);
    free(b0); free(b1); free(b2);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/test_config.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) { printf("not ok 1 - cannot create a temporary directory\n"); return 1; }
    /* the harness may export its own HSPZ_* variables; only allowed ones may remain */
    test_defaults_and_precedence();
    test_errors();
    test_print_round_trip();
    test_env();
    test_digest();
    test_digest_stream();
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) {}
    printf("# %d tests, %d failed\n", n_tests, n_fail);
    return n_fail ? 1 : 0;
}
