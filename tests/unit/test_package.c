/* Unit tests for src/out/package.c's 2bit writer (hz_twobit_write): round trip through
 * hz_seqset_load (version 0 header, N blocks, mask blocks, prefixed names) and the raw bytes
 * of a tiny file.  Prints "ok N - ..." / "not ok N - ..." lines; exit status 1 on failure. */
#include "package.h"
#include "diagpart.h"
#include "seqio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"


/* Build an in-memory seqset from NUL-terminated records. */
static void make_set(hz_seqset *s, size_t n, const char *const *names, const char *const *seqs)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    s->name = calloc(n, sizeof *s->name);
    s->off = calloc(n, sizeof *s->off);
    s->len = calloc(n, sizeof *s->len);
    uint64_t tot = 0;
    for (size_t i = 0; i < n; i++) tot += strlen(seqs[i]);
    s->data = malloc(tot + 1);
    tot = 0;
    for (size_t i = 0; i < n; i++) {
        s->name[i] = strdup(names[i]);
        s->off[i] = tot;
        s->len[i] = strlen(seqs[i]);
        memcpy(s->data + tot, seqs[i], s->len[i]);
        tot += s->len[i];
    }
    s->total = tot;
}

static uint32_t get32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

int main(void)
{
    char path[] = "/tmp/hz_test_package_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) { perror("mkstemp"); return 1; }
    close(fd);
    char err[1024];

    /* 1. tiny file, raw bytes */
    {
        const char *names[] = { "s" };
        const char *seqs[] = { "ACgtN" };
        hz_seqset s;
        make_set(&s, 1, names, seqs);
        check(hz_twobit_write(path, &s, NULL, err, sizeof err) == 0, "write tiny 2bit (%s)", err);
        FILE *fp = fopen(path, "rb");
        unsigned char b[256];
        size_t n = fp ? fread(b, 1, sizeof b, fp) : 0;
        if (fp) fclose(fp);
        /* header 16 + index 1+1+4 + record 4 + (4+8) N + (4+8) mask + 4 + 2 packed bytes */
        check(n == 16 + 6 + 4 + 12 + 12 + 4 + 2, "tiny 2bit has %zu bytes (want 56)", n);
        check(get32(b) == 0x1A412743u && get32(b + 4) == 0 && get32(b + 8) == 1 && get32(b + 12) == 0,
              "header: magic 0x1A412743, version 0, 1 record, reserved 0");
        check(b[16] == 1 && b[17] == 's' && get32(b + 18) == 22, "index: name 's', offset 22");
        check(get32(b + 22) == 5, "dnaSize 5");
        check(get32(b + 26) == 1 && get32(b + 30) == 4 && get32(b + 34) == 1, "one N block at 4, size 1");
        check(get32(b + 38) == 1 && get32(b + 42) == 2 && get32(b + 46) == 2, "one mask block at 2, size 2");
        check(get32(b + 50) == 0, "reserved 0");
        /* A=2 C=1 g=3 t=0 -> 10 01 11 00 = 0x9C; N packed as T=0 -> 0x00 */
        check(b[54] == 0x9C && b[55] == 0x00, "packed bases 0x%02X 0x%02X (want 0x9C 0x00)", b[54], b[55]);
        hz_seqset_free(&s);
    }

    /* 2. round trip: several records, N runs at ends, lower-case n, IUPAC, renamed records */
    {
        const char *names[] = { "chr1", "chrUn_x", "m" };
        const char *seqs[] = {
            "NNNNACGTACGTacgtacgtNNNNnnnnACGTRYKMacgtNNN",
            "acgtacgtacgtAC",
            "GATTACA"
        };
        char *renamed[] = { "T.chr1", "T.chrUn_x", "T.m" };
        hz_seqset s, back = {0};
        make_set(&s, 3, names, seqs);
        int w = hz_twobit_write(path, &s, renamed, err, sizeof err);
        check(w == 0, "write 3-record 2bit with prefixed names (%s)", w ? err : "");
        int l = hz_seqset_load(path, &back, err, sizeof err);
        check(l == 0, "hz_seqset_load reads it back (%s)", l ? err : "");
        if (l == 0) {
            check(back.n == 3, "3 records (got %zu)", back.n);
            check(strcmp(back.kind, "2bit") == 0, "kind 2bit");
            for (size_t i = 0; i < 3 && i < back.n; i++) {
                check(strcmp(back.name[i], renamed[i]) == 0, "record %zu name '%s'", i, back.name[i]);
                check(back.len[i] == s.len[i], "record %zu length %llu", i, (unsigned long long)back.len[i]);
                /* expected: IUPAC (R,Y,K,M) become N, case kept */
                char want[64];
                size_t L = s.len[i];
                for (size_t j = 0; j < L; j++) {
                    char c = seqs[i][j];
                    int acgt = strchr("ACGTacgt", c) != NULL;
                    want[j] = acgt ? c : (c >= 'a' && c <= 'z' ? 'n' : 'N');
                }
                check(back.len[i] == L && memcmp(back.data + back.off[i], want, L) == 0,
                      "record %zu bytes '%.*s'", i, (int)back.len[i], (const char *)back.data + back.off[i]);
            }
        }
        hz_seqset_free(&back);
        /* a name longer than 255 bytes is refused */
        char *longname = malloc(300);
        memset(longname, 'x', 299); longname[299] = 0;
        char *ln[] = { longname, "a", "b" };
        check(hz_twobit_write(path, &s, ln, err, sizeof err) != 0 && strstr(err, "255") != NULL,
              "name of 299 bytes refused (%s)", err);
        free(longname);
        hz_seqset_free(&s);
    }
    remove(path);

    /* automatic -D chunk (diagpart.h): expected values are Python's
     * int(statistics.quantiles(sizes)[1 if len < 7 else -1] // line), at most 50000 */
    {
        uint64_t a[] = { 300, 100 }, b[] = { 10, 20, 30, 40, 50, 60, 70 }, c[] = { 80, 10, 20, 30, 40, 50, 60, 70 },
                 d[] = { 5, 1, 4, 2, 3, 6 }, e[] = { 1000000000, 2000000000 }, f[] = { 500 };
        check(hz_diagpart_auto_chunk(a, 2, 1) == 200, "auto chunk: 2 files, the median (200)");
        check(hz_diagpart_auto_chunk(b, 7, 1) == 60, "auto chunk: 7 files, the third quartile (60)");
        check(hz_diagpart_auto_chunk(c, 8, 7) == 9, "auto chunk: 8 files, interpolated Q3 67.5 // 7 = 9");
        check(hz_diagpart_auto_chunk(d, 6, 2) == 1, "auto chunk: 6 files, median 3.5 // 2 = 1");
        check(hz_diagpart_auto_chunk(e, 2, 10) == 50000, "auto chunk: capped at 50000");
        check(hz_diagpart_auto_chunk(f, 1, 10) == 0 && hz_diagpart_auto_chunk(a, 2, 0) == 0, "auto chunk: one file or no line: 0");
        check(hz_diagpart_must_split(710, 71, 9) && !hz_diagpart_must_split(710, 71, 10) && !hz_diagpart_must_split(5, 0, 1),
              "must split: 710 // 71 = 10 lines > 9, not > 10");
    }
    printf("%d tests, %d failed\n", n_tests, n_fail);
    return n_fail ? 1 : 0;
}
