/* Unit tests for the streamed canonical digest (src/digest.c, digest.h): files handed over one by
 * one while workers distribute them give the folder digest's bytes (RULES.md "canonical
 * digest"), for any bucket size, thread count and open-file limit; the stream steps aside when
 * the folder is not exactly the files handed over.  Writes files into a fresh directory under
 * $TMPDIR or /tmp and removes it.  Prints TAP lines; exits non-zero on any failure. */
#include "digest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#define HZ_TEST_SEED 0x9e3779b97f4a7c15ULL
#include "tap.h"

static char dir[512];

/* target records: names that are prefixes of others ("chr1", "chr10"), a name with a byte
 * below TAB's successor ('!'), lengths from 50 to 3 million */
static char *names[] = { "chr1", "chr10", "chr2", "chr!x", "scaffold_7" };
static const uint64_t lens[] = { 1000, 3000000, 250000, 50, 70000 };
#define NREC 5

/* `lines` random segment lines into path (through path.part, renamed as the segment writer
 * does): mostly on the records above, some on a record the stream was not told of, and short
 * lines "name<TAB>v" that may equal a splitter (counted, not stored) */
static void write_lines(const char *path, int lines, int unterminated)
{
    char part[700];
    snprintf(part, sizeof part, "%s.part", path);
    FILE *fp = fopen(part, "wb");
    for (int i = 0; i < lines; i++) {
        uint64_t r = rnd(), k = r % 100;
        const char *nl = unterminated && i == lines - 1 ? "" : "\n";
        if (k < 3) fprintf(fp, "zz_other\t%llu\t9%s", (unsigned long long)(r >> 20) % 5000, nl);
        else if (k < 8) fprintf(fp, "chr1\t%llu%s", 1 + (unsigned long long)(r >> 20) % 1000, nl);
        else {
            size_t t = (size_t)((r >> 8) % NREC);
            uint64_t s = 1 + (r >> 24) % lens[t];
            fprintf(fp, "%s\t%llu\t%llu\tq%llu\t%llu\t%llu\t%c\t%llu%s", names[t], (unsigned long long)s,
                    (unsigned long long)(s + (r >> 40) % 300), (unsigned long long)(r >> 50) % 3,
                    (unsigned long long)(r >> 12) % 9000, (unsigned long long)(r >> 30) % 9000, "+-"[r & 1],
                    (unsigned long long)(r >> 44) % 20000, nl);
        }
    }
    fclose(fp);
    rename(part, path);
}

static void sort_sha256(const char *d, char want[65])
{
    char cmd[1600], line[80] = "";
    snprintf(cmd, sizeof cmd, "cd '%s' && ls | grep '[.]segments$' | grep -vx all.segments | "
             "while read -r f; do cat \"$f\"; [ -n \"$(tail -c1 \"$f\")\" ] && echo; done | LC_ALL=C sort | sha256sum", d);
    FILE *pp = popen(cmd, "r");
    if (pp) { if (!fgets(line, sizeof line, pp)) line[0] = 0; pclose(pp); }
    snprintf(want, 65, "%.64s", line);
}

/* a fresh folder dir/<name> with nfiles files written and handed over one by one; the stream */
static hz_digest_stream *stream_folder(const char *name, char *d, size_t dl, int nfiles, int lines, size_t bucket_bytes,
                                       int threads)
{
    char err[512], p[800];
    snprintf(d, dl, "%s/%s", dir, name);
    mkdir(d, 0777);
    hz_digest_stream *ds = hz_digest_stream_open(d, names, lens, NREC, bucket_bytes, threads, err, sizeof err);
    if (!ds) { check(0, "%s: stream opened: %s", name, err); return NULL; }
    for (int f = 0; f < nfiles; f++) {
        snprintf(p, sizeof p, "%s/tmp%d.block0.r0.%s.segments", d, f + 1, f % 2 ? "minus" : "plus");
        write_lines(p, lines, f == nfiles - 1);
        if (hz_digest_stream_add(ds, p)) check(0, "%s: file %d handed over", name, f);
    }
    return ds;
}

static int count_entries(const char *d)
{
    char cmd[800];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -c .", d);
    FILE *pp = popen(cmd, "r");
    int n = -1;
    if (pp) { if (fscanf(pp, "%d", &n) != 1) n = -1; pclose(pp); }
    return n;
}

static void test_streams(void)
{
    static const struct { size_t bucket_bytes; int threads, nfiles, lines; const char *what; } v[] = {
        { 4096, 3, 6, 5000, "4 KiB buckets, 3 threads" },
        { 64, 4, 4, 3000, "64-byte buckets (each sorted again, nested), 4 threads" },
        { 65536, 1, 3, 20000, "64 KiB buckets, 1 thread" },
        { 1024, 8, 200, 60, "200 small files handed over while 2 workers run, 8 threads" },
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        char d[700], name[32], hex[65] = "", ref[65] = "", want[65], err[512];
        snprintf(name, sizeof name, "s%zu", i);
        hz_digest_stream *ds = stream_folder(name, d, sizeof d, v[i].nfiles, v[i].lines, v[i].bucket_bytes, v[i].threads);
        if (!ds) continue;
        uint64_t nl = 0, nref = 0;
        int rc = hz_digest_stream_finish(ds, hex, &nl);
        hz_digest_stream_free(ds);
        int rr = hz_canonical_digest_buckets(d, (size_t)1 << 30, 1, ref, &nref, err, sizeof err);
        sort_sha256(d, want);
        uint64_t expect = (uint64_t)v[i].nfiles * (uint64_t)v[i].lines;
        check(rc == 0 && rr == 0 && nl == expect && nref == expect && !strcmp(hex, ref) && !strncmp(hex, want, 64),
              "streamed, %s: %llu lines, %.12s == in memory %.12s == sort | sha256sum %.12s", v[i].what,
              (unsigned long long)nl, hex, ref, want);
        check(count_entries(d) == v[i].nfiles, "streamed, %s: no temporary file left (%d entries)", v[i].what, count_entries(d));
    }
    {   /* a low open-file limit (80: 4 buckets a level): in a child, where the limit stays */
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            struct rlimit rl = { 80, 80 };
            char d[700], hex[65], ref[65], err[512];
            uint64_t nl = 0, nref = 0;
            if (setrlimit(RLIMIT_NOFILE, &rl)) _exit(2);
            hz_digest_stream *ds = stream_folder("lim", d, sizeof d, 5, 4000, 4096, 3);
            int rc = ds ? hz_digest_stream_finish(ds, hex, &nl) : -1;
            hz_digest_stream_free(ds);
            int ok = rc == 0 && hz_canonical_digest_buckets(d, (size_t)1 << 30, 1, ref, &nref, err, sizeof err) == 0 &&
                     nl == 20000 && nref == 20000 && !strcmp(hex, ref);
            _exit(ok ? 0 : 1);
        }
        int st = -1;
        waitpid(pid, &st, 0);
        check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "streamed under an open-file limit of 80: same digest");
    }
}

/* the stream steps aside (1) when the folder is not the files handed over */
static void test_fallback(void)
{
    char d[700], p[800], q[2000], hex[65];
    uint64_t nl = 0;
    hz_digest_stream *ds = stream_folder("f_extra", d, sizeof d, 3, 2000, 4096, 2);
    snprintf(p, sizeof p, "%s/extra.segments", d);
    write_lines(p, 10, 0);
    check(ds && hz_digest_stream_finish(ds, hex, &nl) == 1, "a file not handed over: the folder is digested instead");
    hz_digest_stream_free(ds);

    ds = stream_folder("f_gone", d, sizeof d, 3, 2000, 4096, 2);
    snprintf(p, sizeof p, "%s/tmp2.block0.r0.minus.segments", d);
    unlink(p);
    check(ds && hz_digest_stream_finish(ds, hex, &nl) == 1, "a file handed over and removed: the folder is digested instead");
    hz_digest_stream_free(ds);

    ds = stream_folder("f_rewritten", d, sizeof d, 3, 2000, 4096, 2);
    snprintf(p, sizeof p, "%s/tmp1.block0.r0.plus.segments", d);
    snprintf(q, sizeof q, "cp '%s' '%s.new' && mv '%s.new' '%s'", p, p, p, p);   /* the same bytes, a new inode */
    check(system(q) == 0 && ds && hz_digest_stream_finish(ds, hex, &nl) == 1,
          "a file rewritten (same bytes, new inode): the folder is digested instead");
    hz_digest_stream_free(ds);

    /* all.segments (the --single-file copy) and other files do not count */
    char ref[65], err[512];
    uint64_t nref = 0;
    ds = stream_folder("f_all", d, sizeof d, 3, 2000, 4096, 2);
    snprintf(p, sizeof p, "%s/all.segments", d);
    write_lines(p, 50, 0);
    snprintf(p, sizeof p, "%s/ref_block0.name", d);
    write_lines(p, 5, 0);
    int rc = ds ? hz_digest_stream_finish(ds, hex, &nl) : -1;
    check(rc == 0 && hz_canonical_digest(d, 2, ref, &nref, err, sizeof err) == 0 && nl == 6000 && nref == 6000 && !strcmp(hex, ref),
          "all.segments and .name files beside: streamed %.12s == folder %.12s", hex, ref);
    hz_digest_stream_free(ds);

    /* small: at most bucket_bytes handed over, the in-memory folder digest is faster */
    ds = stream_folder("f_small", d, sizeof d, 2, 100, (size_t)1 << 20, 2);
    check(ds && hz_digest_stream_finish(ds, hex, &nl) == 1 && count_entries(d) == 2, "output within one bucket: left to the folder digest, no file left");
    hz_digest_stream_free(ds);
    ds = stream_folder("f_none", d, sizeof d, 0, 0, 4096, 2);
    check(ds && hz_digest_stream_finish(ds, hex, &nl) == 1, "no file handed over: left to the folder digest");
    hz_digest_stream_free(ds);

    /* freed without a finish (a failed run), workers busy: no hang, nothing left */
    ds = stream_folder("f_abandon", d, sizeof d, 8, 3000, 256, 8);
    hz_digest_stream_free(ds);
    check(count_entries(d) == 8, "a stream freed unfinished leaves only the run's files (%d entries)", count_entries(d));

    /* a path that is no regular file: the stream says no, and its finish steps aside */
    ds = stream_folder("f_bad", d, sizeof d, 2, 3000, 4096, 2);
    check(ds && hz_digest_stream_add(ds, d) == -1 && hz_digest_stream_finish(ds, hex, &nl) == 1,
          "a folder handed over as a file: refused, the folder is digested instead");
    hz_digest_stream_free(ds);
    check(hz_digest_stream_finish(NULL, hex, &nl) == 1, "no stream: the folder is digested");
    hz_digest_stream_free(NULL);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/test_digest.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) { printf("not ok 1 - cannot create a temporary directory\n"); return 1; }
    test_streams();
    test_fallback();
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) {}
    printf("# %d tests, %d failed\n", n_tests, n_fail);
    return n_fail ? 1 : 0;
}
