/* Unit tests for src/hsp/plan.c (blocks, '&' separators, global offsets, .name files, query
 * intervals; kegalign-hsp-spec.md §2.4-2.6) and hz_batches (MAX_HITS batch ends, spec §5.2).
 *
 * Sequence sets are built by hand in memory (no files read).  Expected values are worked out
 * by hand from the spec pseudo-code (comments show the walk), or produced by a model written
 * here from the spec text.  Writes .name files into a fresh directory under $TMPDIR or /tmp
 * and removes it.  Prints "ok N - ..." / "not ok N - ..." lines and a summary; exits non-zero
 * on any failure. */
#include "plan.h"
#include "chunk.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define HZ_TEST_SEED 0x9e3779b97f4a7c15ULL
#include "tap.h"


/* ---- in-memory sequence sets ------------------------------------------------------------- */

static void make_set(hz_seqset *s, const char *path, const char *const *names, const char *const *seqs, size_t n)
{
    memset(s, 0, sizeof *s);
    s->path = strdup(path);
    s->kind = "fasta";
    s->n = n;
    s->name = calloc(n ? n : 1, sizeof *s->name);
    s->off = calloc(n ? n : 1, sizeof *s->off);
    s->len = calloc(n ? n : 1, sizeof *s->len);
    uint64_t tot = 0;
    for (size_t i = 0; i < n; i++) tot += strlen(seqs[i]);
    s->data = malloc(tot ? tot : 1);
    uint64_t o = 0;
    for (size_t i = 0; i < n; i++) {
        s->name[i] = strdup(names[i]);
        s->off[i] = o;
        s->len[i] = strlen(seqs[i]);
        memcpy(s->data + o, seqs[i], s->len[i]);
        o += s->len[i];
    }
    s->total = tot;
}

static void free_set(hz_seqset *s)
{
    for (size_t i = 0; i < s->n; i++) free(s->name[i]);
    free(s->name); free(s->off); free(s->len); free(s->data); free(s->path);
    memset(s, 0, sizeof *s);
}

static int block_is(const hz_side *sd, size_t b, uint64_t start, const char *bytes, size_t rec0, size_t nrec)
{
    if (b >= sd->n_block) return 0;
    const hz_block *bl = &sd->block[b];
    size_t L = strlen(bytes);
    if (bl->start != start || bl->len != L || bl->rec0 != rec0 || bl->nrec != nrec) {
        printf("# block %zu: start %llu len %u rec0 %zu nrec %zu; want %llu %zu %zu %zu\n", b,
               (unsigned long long)bl->start, bl->len, bl->rec0, bl->nrec, (unsigned long long)start, L, rec0, nrec);
        return 0;
    }
    uint8_t *buf = malloc(L + 1);
    hz_block_bytes(sd, b, buf);
    int ok = memcmp(buf, bytes, L) == 0;
    if (!ok) printf("# block %zu bytes '%.*s' want '%s'\n", b, (int)L, (const char *)buf, bytes);
    free(buf);
    return ok;
}

static char *slurp(const char *path, long *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) { *n = -1; return NULL; }
    char *b = malloc(4096);
    *n = (long)fread(b, 1, 4095, f);
    b[*n] = 0;
    fclose(f);
    return b;
}

static int file_is(const char *dir, const char *name, const char *want)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    long n;
    char *b = slurp(p, &n);
    int ok = b && (size_t)n == strlen(want) && memcmp(b, want, (size_t)n) == 0;
    if (!ok) printf("# %s: %s\n", name, b ? b : "(missing)");
    free(b);
    return ok;
}

static int file_exists(const char *dir, const char *name)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    struct stat st;
    return stat(p, &st) == 0;
}

static void rm_dir(const char *dir)
{
    /* remove the files this test may have written, then the directory */
    char p[1024];
    static const char *stems[] = {"ref", "query", "t"};
    for (int s = 0; s < 3; s++)
        for (int i = 0; i < 10; i++) {
            snprintf(p, sizeof p, "%s/%s_block%d.name", dir, stems[s], i);
            unlink(p);
        }
    rmdir(dir);
}

static void test_blocks(const char *dir)
{
    hz_seqset s;
    hz_side sd;
    char err[512];

    /* Case A, B = 8.  Walk (spec §2.4):
     *  r0 "AAAA"   start 0  block_len 4  -> not > 8 -> '&' (len 5)
     *  r1 ""       start 5  block_len 5  -> '&' (6)
     *  r2 "CC"     start 6  block_len 8  -> not > 8 (strict) -> '&' (9)
     *  r3 "GGGGGG" start 9  block_len 15 -> > 8: close block 0 = [0, 15)
     *  r4 "T"      start 15 block_len 1  -> '&' (2); end: drop it -> block 1 = [15, 16) */
    {
        const char *names[] = {"r0", "", "r2", "r3", "r4"};
        const char *seqs[] = {"AAAA", "", "CC", "GGGGGG", "T"};
        make_set(&s, "A.fa", names, seqs, 5);
        int rc = hz_side_plan(&sd, &s, 8, "p.", err, sizeof err);
        check(rc == 0 && sd.n_block == 2 && sd.n_rec == 5, "A: 2 blocks, 5 records (got %zu)", sd.n_block);
        check(block_is(&sd, 0, 0, "AAAA&&CC&GGGGGG", 0, 4), "A: block 0 = AAAA&&CC&GGGGGG (empty record -> &&, no & at the end)");
        check(block_is(&sd, 1, 15, "T", 4, 1), "A: block 1 = T at global offset 15");
        uint64_t want_rs[5] = {0, 5, 6, 9, 15};
        int ok = 1;
        for (int i = 0; i < 5; i++) ok &= sd.rec_start[i] == want_rs[i];
        check(ok, "A: record global offsets 0,5,6,9,15");
        check(strcmp(sd.name[0], "p.r0") == 0 && strcmp(sd.name[1], "p.") == 0 && strcmp(sd.name[4], "p.r4") == 0,
              "A: names carry the prefix (empty name -> 'p.')");
        check(sd.n_name_files == 2, "A: last record does not close a block -> 2 .name files (got %zu)", sd.n_name_files);
        rc = hz_side_write_names(&sd, dir, "query", err, sizeof err);
        check(rc == 0 && file_is(dir, "query_block0.name", "p.r0\np.\np.r2\np.r3\n") &&
              file_is(dir, "query_block1.name", "p.r4\n") && !file_exists(dir, "query_block2.name"),
              "A: query_block0.name / query_block1.name contents, no block2 file");
        hz_side_free(&sd);
        /* same records with B = 7: r2 makes block_len 8 > 7 -> block 0 closes after CC */
        rc = hz_side_plan(&sd, &s, 7, NULL, err, sizeof err);
        /*  r0 4 -> 5; r1 -> 6; r2 8 > 7 close [0,8) (no '&' after it); r3 start 8, 6 -> 7 ('&');
         *  r4 start 15, 8 > 7 close [8,16) = "GGGGGG&T"; nothing left -> extra empty .name file */
        check(rc == 0 && sd.n_block == 2 && block_is(&sd, 0, 0, "AAAA&&CC", 0, 3) &&
              block_is(&sd, 1, 8, "GGGGGG&T", 3, 2) && sd.rec_start[3] == 8 && sd.rec_start[4] == 15,
              "A, B = 7: blocks AAAA&&CC and GGGGGG&T (start 8; offsets of r3, r4 = 8, 15)");
        check(sd.n_name_files == 3, "A, B = 7: last record closes a block -> n_name_files = n_block + 1 = 3 (got %zu)",
              sd.n_name_files);
        check(strcmp(sd.name[1], "") == 0 && strcmp(sd.name[0], "r0") == 0, "A, B = 7: NULL prefix -> plain names");
        rc = hz_side_write_names(&sd, dir, "ref", err, sizeof err);
        check(rc == 0 && file_is(dir, "ref_block0.name", "r0\n\nr2\n") && file_is(dir, "ref_block1.name", "r3\nr4\n") &&
              file_is(dir, "ref_block2.name", "") && !file_exists(dir, "ref_block3.name"),
              "A, B = 7: ref_block2.name exists and is empty");
        hz_side_free(&sd);
        free_set(&s);
    }

    /* Case B: a record longer than B, B = 3.
     *  r0 "AAAAAAAA" start 0  len 8 > 3 -> block 0 = [0, 8)
     *  r1 "CC"       start 8  len 2 -> '&' (3)
     *  r2 "G"        start 11 len 4 > 3 -> block 1 = [8, 12) "CC&G"
     *  r3 "TTTT"     start 12 len 4 > 3 -> block 2 = [12, 16); last record closed it */
    {
        const char *names[] = {"a", "b", "c", "d"};
        const char *seqs[] = {"AAAAAAAA", "CC", "G", "TTTT"};
        make_set(&s, "B.fa", names, seqs, 4);
        int rc = hz_side_plan(&sd, &s, 3, "", err, sizeof err);
        check(rc == 0 && sd.n_block == 3, "B: 3 blocks (got %zu)", sd.n_block);
        check(block_is(&sd, 0, 0, "AAAAAAAA", 0, 1), "B: record longer than B forms block 0 alone");
        check(block_is(&sd, 1, 8, "CC&G", 1, 2), "B: block 1 = CC&G at 8");
        check(block_is(&sd, 2, 12, "TTTT", 3, 1), "B: block 2 = TTTT at 12");
        check(sd.rec_start[0] == 0 && sd.rec_start[1] == 8 && sd.rec_start[2] == 11 && sd.rec_start[3] == 12,
              "B: global offsets 0, 8, 11, 12");
        check(sd.n_name_files == 4, "B: n_name_files 4 (got %zu)", sd.n_name_files);
        rc = hz_side_write_names(&sd, dir, "t", err, sizeof err);
        check(rc == 0 && file_is(dir, "t_block0.name", "a\n") && file_is(dir, "t_block1.name", "b\nc\n") &&
              file_is(dir, "t_block2.name", "d\n") && file_is(dir, "t_block3.name", ""),
              "B: t_block0..3.name, the last one empty");
        hz_side_free(&sd);
        free_set(&s);
    }

    /* Case C: empty record at a block start and at the very end, B = 3.
     *  r0 "AAAA" len 4 > 3 -> block 0 [0,4)
     *  r1 ""     start 4 len 0 -> '&' (1)
     *  r2 "C"    start 5 len 2 -> '&' (3)
     *  r3 ""     start 7 len 3 -> '&' (4); end: drop -> block 1 = [4, 7) = "&C&" */
    {
        const char *names[] = {"x", "y", "z", "w"};
        const char *seqs[] = {"AAAA", "", "C", ""};
        make_set(&s, "C.fa", names, seqs, 4);
        int rc = hz_side_plan(&sd, &s, 3, NULL, err, sizeof err);
        check(rc == 0 && sd.n_block == 2 && block_is(&sd, 1, 4, "&C&", 1, 3),
              "C: empty records at both ends of block 1 -> '&C&' (start 4)");
        check(sd.rec_start[3] == 7 && sd.n_name_files == 2, "C: offsets and name files");
        hz_side_free(&sd);
        free_set(&s);
    }

    /* Case F: an empty record closes a block after the '&' pushed it over B, B = 4.
     *  r0 "AAAA" start 0 len 4 -> not > 4 -> '&' (5)
     *  r1 ""     start 5 len 5 > 4 -> close block 0 = [0,5) = "AAAA&" (pseudo-code of §2.4)
     *  r2 "CC"   start 5 (same offset as the empty record) -> block 1 = [5,7) */
    {
        const char *names[] = {"a", "e", "c"};
        const char *seqs[] = {"AAAA", "", "CC"};
        make_set(&s, "F.fa", names, seqs, 3);
        int rc = hz_side_plan(&sd, &s, 4, NULL, err, sizeof err);
        check(rc == 0 && sd.n_block == 2 && block_is(&sd, 0, 0, "AAAA&", 0, 2) && block_is(&sd, 1, 5, "CC", 2, 1) &&
              sd.rec_start[1] == 5 && sd.rec_start[2] == 5 && sd.n_name_files == 2,
              "F: empty record closing a block: AAAA& then CC, both records at offset 5");
        check(hz_find_le(sd.rec_start, sd.n_rec, 5) == 2 && hz_find_le(sd.rec_start, sd.n_rec, 4) == 0,
              "F: record lookup at offset 5 finds CC (last start <= x)");
        hz_side_free(&sd);
        free_set(&s);
    }

    /* Case D: everything in one block (default B) */
    {
        const char *names[] = {"one", "two", "three"};
        const char *seqs[] = {"ACGT", "acgtn", "NNRY"};
        make_set(&s, "D.fa", names, seqs, 3);
        int rc = hz_side_plan(&sd, &s, 500000000ULL, NULL, err, sizeof err);
        check(rc == 0 && sd.n_block == 1 && sd.n_name_files == 1 && block_is(&sd, 0, 0, "ACGT&acgtn&NNRY", 0, 3),
              "D: one block ACGT&acgtn&NNRY, bytes kept verbatim, 1 .name file");
        check(sd.rec_start[1] == 5 && sd.rec_start[2] == 11, "D: offsets 0, 5, 11");
        hz_side_free(&sd);
        free_set(&s);
    }

    /* Case E: model of §2.4 on random record lengths and B values */
    {
        int bad = 0;
        unsigned seed = 12345;
        for (int trial = 0; trial < 300; trial++) {
            size_t n = 1 + (size_t)(rand_r(&seed) % 12);
            const char *names[16];
            char *seqs[16];
            char nb[16][8];
            for (size_t i = 0; i < n; i++) {
                size_t L = (size_t)(rand_r(&seed) % 4 == 0 ? 0 : rand_r(&seed) % 15);
                seqs[i] = malloc(L + 1);
                for (size_t k = 0; k < L; k++) seqs[i][k] = "ACGT"[rand_r(&seed) % 4];
                seqs[i][L] = 0;
                snprintf(nb[i], sizeof nb[i], "s%zu", i);
                names[i] = nb[i];
            }
            uint64_t B = (uint64_t)(rand_r(&seed) % 30);
            make_set(&s, "E.fa", names, (const char *const *)seqs, n);
            /* model */
            char buf[512]; size_t blen = 0;
            uint64_t bstart[32], blenv[32]; size_t nblk = 0;
            uint64_t rs[16];
            uint64_t block_start = 0, block_len = 0;
            for (size_t i = 0; i < n; i++) {
                rs[i] = blen;
                size_t L = strlen(seqs[i]);
                memcpy(buf + blen, seqs[i], L); blen += L; block_len += L;
                if (block_len > B) { bstart[nblk] = block_start; blenv[nblk] = block_len; nblk++; block_start = blen; block_len = 0; }
                else { buf[blen++] = '&'; block_len++; }
            }
            int extra = 1;
            if (block_len > 0) { block_len--; bstart[nblk] = block_start; blenv[nblk] = block_len; nblk++; extra = 0; }
            int rc = hz_side_plan(&sd, &s, B, NULL, err, sizeof err);
            int ok = rc == 0 && sd.n_block == nblk && sd.n_name_files == nblk + (size_t)extra;
            for (size_t i = 0; ok && i < n; i++) ok = sd.rec_start[i] == rs[i];
            for (size_t b = 0; ok && b < nblk; b++) {
                ok = sd.block[b].start == bstart[b] && sd.block[b].len == blenv[b];
                if (ok) {
                    uint8_t tmp[512];
                    hz_block_bytes(&sd, b, tmp);
                    ok = memcmp(tmp, buf + bstart[b], blenv[b]) == 0;
                }
            }
            if (!ok) bad++;
            if (rc == 0) hz_side_free(&sd);
            free_set(&s);
            for (size_t i = 0; i < n; i++) free(seqs[i]);
        }
        check(bad == 0, "E: 300 random record sets: blocks, bytes, offsets, name-file count == §2.4 model");
    }
}

/* ---- intervals ------------------------------------------------------------------------- */

static int iv_is(uint32_t L, uint32_t W, uint64_t I, const uint32_t *want, size_t nw)
{
    uint32_t (*iv)[2] = NULL;
    size_t n = hz_intervals(L, W, I, &iv);
    int ok = n == nw;
    for (size_t i = 0; ok && i < n; i++) ok = iv[i][0] == want[2 * i] && iv[i][1] == want[2 * i + 1];
    if (!ok) {
        printf("# intervals(L %u, W %u, I %llu):", L, W, (unsigned long long)I);
        for (size_t i = 0; i < n; i++) printf(" [%u,%u]", iv[i][0], iv[i][1]);
        printf("\n");
    }
    free(iv);
    return ok;
}

static void test_intervals(void)
{
    /* E = L - W; cur = 0; while cur < E: [cur, min(E, cur + I)]; cur += I */
    static const uint32_t a[] = {0, 30, 30, 60, 60, 81};
    check(iv_is(100, 19, 30, a, 3), "L 100 W 19 I 30: E 81 -> [0,30] [30,60] [60,81]");
    static const uint32_t b[] = {0, 27, 27, 54, 54, 81};
    check(iv_is(100, 19, 27, b, 3), "I 27 divides E 81: [0,27] [27,54] [54,81], no [81,81]");
    static const uint32_t c[] = {0, 81};
    check(iv_is(100, 19, 81, c, 1), "I = E: one interval [0,81]");
    check(iv_is(100, 19, 10000000, c, 1), "I default: one interval [0,E]");
    static const uint32_t d[] = {0, 80, 80, 81};
    check(iv_is(100, 19, 80, d, 2), "I = E - 1: [0,80] [80,81]");
    static const uint32_t e[] = {0, 1};
    check(iv_is(20, 19, 30, e, 1), "L = W + 1: E 1 -> [0,1]");
    check(iv_is(19, 19, 30, NULL, 0), "L = W: no interval");
    check(iv_is(5, 19, 30, NULL, 0), "L < W: no interval");
    static const uint32_t f[] = {0, 1, 1, 2, 2, 3};
    check(iv_is(25, 22, 1, f, 3), "I 1, E 3: [0,1] [1,2] [2,3]");
    static const uint32_t g[] = {0, 10000000, 10000000, 20000000, 20000000, 24999981};
    check(iv_is(25000000, 19, 10000000, g, 3), "L 25,000,000: last interval ends at E = 24,999,981");
}

/* ---- hz_find_le ------------------------------------------------------------------------ */

static void test_find_le(void)
{
    uint64_t a[5] = {0, 5, 5, 9, 15};
    check(hz_find_le(a, 5, 0) == 0 && hz_find_le(a, 5, 4) == 0 && hz_find_le(a, 5, 5) == 2 &&
          hz_find_le(a, 5, 8) == 2 && hz_find_le(a, 5, 9) == 3 && hz_find_le(a, 5, 100) == 4,
          "hz_find_le: last index with a[i] <= x (ties -> last, e.g. empty record then its successor)");
}

/* ---- hz_batches (spec §5.2) ------------------------------------------------------------- */

/* Model from the spec text; lim[] may contain empty batches (lim[it] == lim[it-1]).  Only for
 * inputs where KegAlign is defined (never p = -1 in the first iteration). */
static size_t model_batches(const uint64_t *pref, size_t ns, uint64_t H, long long *lim)
{
    uint64_t num_hits = pref[ns - 1];
    if (H == 0) { lim[0] = (long long)ns - 1; return 1; }
    uint64_t num_iter = num_hits / H + 1, limit = H;
    size_t k = 0;
    for (uint64_t it = 0; it + 1 < num_iter; it++) {
        size_t i = 0;
        while (i < ns && pref[i] < limit) i++;   /* lower_bound */
        long long p = (long long)i - 1;
        lim[k++] = p;
        limit = pref[p] + H;
    }
    lim[k++] = (long long)ns - 1;
    return k;
}

/* batch partition as a seed -> batch-of-nonempty-batches map string, e.g. "0,0,1,1,1" */
static void partition_str(const long long *lim, size_t nb, size_t ns, char *out)
{
    long long prev = -1;
    int bi = 0;
    size_t o = 0;
    out[0] = 0;
    for (size_t b = 0; b < nb; b++) {
        if (lim[b] <= prev) continue;   /* empty batch */
        for (long long s = prev + 1; s <= lim[b]; s++) o += (size_t)sprintf(out + o, "%s%d", s ? "," : "", bi);
        prev = lim[b];
        bi++;
    }
    (void)ns;
}

static void batches_case(const char *what, const uint64_t *pref, size_t ns, uint64_t H, const char *want_part)
{
    int64_t lim[64];
    long long l2[64], lm[64];
    size_t nb = hz_batches(pref, ns, H, lim);
    for (size_t i = 0; i < nb; i++) l2[i] = (long long)lim[i];
    char got[512], model[512];
    partition_str(l2, nb, ns, got);
    size_t nm = model_batches(pref, ns, H, lm);
    partition_str(lm, nm, ns, model);
    int ok = strcmp(got, want_part) == 0 && strcmp(model, want_part) == 0;
    if (!ok) printf("# %s: got %s, spec model %s, hand %s\n", what, got, model, want_part);
    check(ok, "hz_batches %s: seed->batch %s", what, want_part);
}

static void test_batches(void)
{
    uint64_t p1[4] = {3, 5, 9, 10};
    batches_case("H = 0: one batch", p1, 4, 0, "0,0,0,0");
    batches_case("num_hits 10 < H 11: one batch", p1, 4, 11, "0,0,0,0");
    /* H 10: num_iter 2; lower_bound(10) = 3 -> p = 2; batches {0,1,2} {3} */
    batches_case("H = num_hits = 10: split before seed 3", p1, 4, 10, "0,0,0,1");
    /* H 4: num_iter 3; limit 4 -> p 0; limit 3+4 = 7 -> p 1; last: {2,3} (5 hits > H allowed) */
    batches_case("H 4: {0} {1} {2,3}", p1, 4, 4, "0,1,2,2");
    /* H 5: num_iter 3; limit 5 -> lower_bound 1 (5 >= 5) -> p 0; limit 8 -> lb 2 -> p 1; last {2,3} */
    batches_case("H 5: {0} {1} {2,3}", p1, 4, 5, "0,1,2,2");
    uint64_t p2[6] = {1, 2, 3, 4, 5, 6};
    /* H 2: num_iter 4; limits 2 -> p 0; 3 -> p 1; 4 -> p 2; last {3,4,5} */
    batches_case("H 2 on one hit per seed: {0} {1} {2} {3,4,5}", p2, 6, 2, "0,1,2,3,3,3");
    uint64_t p3[5] = {0, 0, 2, 2, 3};
    /* H 2: num_iter 2; lower_bound(2) = 2 -> p 1; {0,1} {2,3,4} */
    batches_case("zero-hit seeds: {0,1} {2,3,4}", p3, 5, 2, "0,0,1,1,1");
    /* a seed alone reaching H after the first batch: pref 2, 10, 12 with H 5.
     * Spec §5.2: num_iter 3; limit 5 -> lb 1 -> p 0; limit 2+5 = 7 -> lb 1 -> p 0 again (an empty
     * batch); last batch = seeds 1..2.  Partition {0} {1,2}. */
    uint64_t p4[3] = {2, 10, 12};
    batches_case("seed 1 alone >= H (spec: empty batch, then the rest in the last batch)", p4, 3, 5, "0,1,1");
    /* pref 0,0,4,4,8 with H 4: num_iter 3; limit 4 -> lb 2 -> p 1; limit 0+4 = 4 -> p 1 again
     * (empty); last = seeds 2..4.  Partition {0,1} {2,3,4}. */
    uint64_t p5[5] = {0, 0, 4, 4, 8};
    batches_case("seed 2 alone = H (spec: {0,1} {2,3,4})", p5, 5, 4, "0,0,1,1,1");
    /* first seed alone >= H: KegAlign reads pref[-1] (undefined); hspZ takes pref[-1] = 0, so
     * the first end is -1 (an empty batch), a fixed point, and everything is the last batch */
    {
        uint64_t p7[3] = {6, 7, 9};
        int64_t lim[8];
        size_t nb = hz_batches(p7, 3, 5, lim);
        int ok = nb == 2 && lim[0] == -1 && lim[1] == 2;
        check(ok, "hz_batches first seed alone >= H: ends {-1, 2} (%zu batches)", nb);
    }
    /* single seed with hits below H */
    uint64_t p6[1] = {7};
    batches_case("one seed, 7 hits, H 8", p6, 1, 8, "0");
}

/* ---- hz_block_encode / hz_block_find against hz_block_bytes + hz_block_codes ---------------- */

/* every block of a side: encode on each thread count == codes of the copied bytes; the 'U'
 * offsets == a scan of the bytes */
static int encode_matches(const hz_side *sd, const char *what)
{
    int good = 1;
    for (size_t b = 0; b < sd->n_block && good; b++) {
        uint32_t L = sd->block[b].len;
        uint8_t *raw = malloc((size_t)L + 1), *f0 = malloc((size_t)L + 1), *r0 = malloc((size_t)L + 1), *h0 = malloc((size_t)L + 1);
        uint8_t *f1 = malloc((size_t)L + 1), *r1 = malloc((size_t)L + 1), *h1 = malloc((size_t)L + 1);
        hz_block_bytes(sd, b, raw);
        hz_block_codes(raw, L, f0, r0, h0);
        static const int TH[] = { 1, 2, 3, 7, 64 };
        for (size_t t = 0; t < sizeof TH / sizeof *TH && good; t++) {
            memset(f1, 0xEE, L + 1); memset(r1, 0xEE, L + 1); memset(h1, 0xEE, L + 1);
            hz_block_encode(sd, b, f1, r1, h1, TH[t]);
            good = !memcmp(f0, f1, L) && !memcmp(r0, r1, L) && !memcmp(h0, h1, L) && f1[L] == 0xEE && r1[L] == 0xEE && h1[L] == 0xEE;
            memset(f1, 0xEE, L + 1);
            hz_block_encode(sd, b, f1, NULL, NULL, TH[t]);   /* forward codes only */
            good = good && !memcmp(f0, f1, L);
            if (!good) printf("# %s: block %zu (%u bytes) differs with %d threads\n", what, b, L, TH[t]);
        }
        uint32_t *u = NULL;
        int64_t nu = hz_block_find(sd, b, 'U', &u), k = 0;
        for (uint32_t i = 0; i < L && good; i++)
            if (raw[i] == 'U') good = k < nu && u[k++] == i;
        good = good && k == nu;
        if (!good) printf("# %s: block %zu: 'U' offsets differ (%lld found)\n", what, b, (long long)nu);
        free(u); free(raw); free(f0); free(r0); free(h0); free(f1); free(r1); free(h1);
    }
    return good;
}

static void test_encode(void)
{
    static const char ALPHA[] = "ACGTACGTACGTacgtNnU&X-*RYu";
    /* many small records, some empty, random bytes of every kind, blocks of ~2 kb */
    for (int rep = 0; rep < 20; rep++) {
        size_t n = 1 + (size_t)(rnd() % 60);
        char **seqs = calloc(n, sizeof *seqs), **names = calloc(n, sizeof *names);
        for (size_t i = 0; i < n; i++) {
            size_t len = rnd() % 5 == 0 ? 0 : (size_t)(rnd() % 900);
            seqs[i] = malloc(len + 1);
            for (size_t j = 0; j < len; j++)
                seqs[i][j] = rnd() % 50 == 0 ? (char)(1 + rnd() % 255) : ALPHA[rnd() % (sizeof ALPHA - 1)];   /* never 0 */
            seqs[i][len] = 0;
            names[i] = malloc(16); snprintf(names[i], 16, "r%zu", i);
        }
        hz_seqset s; hz_side sd; char err[256];
        make_set(&s, "rand.fa", (const char *const *)names, (const char *const *)seqs, n);
        int ok = hz_side_plan(&sd, &s, 1 + rnd() % 3000, NULL, err, sizeof err) == 0;
        char what[64]; snprintf(what, sizeof what, "random set %d", rep);
        check(ok && encode_matches(&sd, what), "hz_block_encode == hz_block_codes of the bytes, every thread count: %s (%zu records)", what, n);
        hz_side_free(&sd); free_set(&s);
        for (size_t i = 0; i < n; i++) { free(seqs[i]); free(names[i]); }
        free(seqs); free(names);
    }
    /* two records of a and a+d bytes in one block: with 2 threads the range boundary L/2
     * falls on rec 0's last byte (d = -3), on the separator (d = -1), on rec 1's first byte
     * (d = +1); blocks past 4 MiB a range */
    static const int D[] = { -3, -1, 1 };
    size_t a = (size_t)5 << 20;
    for (int k = 0; k < 3; k++) {
        char *s0 = malloc(a + 1), *s1 = malloc(a + 2);
        for (size_t j = 0; j < a; j++) s0[j] = ALPHA[rnd() % (sizeof ALPHA - 2)];
        size_t l1 = a + (size_t)D[k];
        for (size_t j = 0; j < l1; j++) s1[j] = ALPHA[rnd() % (sizeof ALPHA - 2)];
        s0[a] = 0; s1[l1] = 0;
        const char *names[2] = { "chrA", "chrB" }, *seqs[2] = { s0, s1 };
        hz_seqset s; hz_side sd; char err[256];
        make_set(&s, "big.fa", names, seqs, 2);
        int ok = hz_side_plan(&sd, &s, (uint64_t)1 << 30, NULL, err, sizeof err) == 0 && sd.n_block == 1;
        char what[64]; snprintf(what, sizeof what, "records of %zu and %zu bytes", a, l1);
        check(ok && encode_matches(&sd, what), "hz_block_encode with range ends at a record's edge: %s", what);
        hz_side_free(&sd); free_set(&s); free(s0); free(s1);
    }
}

int main(void)
{
    char tmpl[512];
    const char *td = getenv("TMPDIR");
    snprintf(tmpl, sizeof tmpl, "%s/hz_test_plan_XXXXXX", td && *td ? td : "/tmp");
    char *dir = mkdtemp(tmpl);
    if (!dir) { printf("not ok 1 - cannot create a temporary directory\n"); return 1; }
    test_blocks(dir);
    test_intervals();
    test_find_le();
    test_batches();
    test_encode();
    rm_dir(dir);
    printf("# %d tests, %d passed, %d failed\n", n_tests, n_tests - n_fail, n_fail);
    return n_fail ? 1 : 0;
}
