/* test_gzip — the plain-gzip reader of src/io/seqio_gzip.c (ISA-L's igzip) against htslib's
 * bgzf_read (zlib), the reader it replaces: on every stream below both give the same bytes
 * and the same verdict (the end, or an error).  Streams: zlib members of a 3 Mbp FASTA;
 * members built by hand with every header field (FEXTRA, FNAME, FCOMMENT, FHCRC) and stored
 * or fixed-Huffman deflate blocks; concatenations, empty members, trailing bytes; then every
 * truncation and every one-byte change of the small ones, and a spread of both on the big one.
 * Both readers drop the bytes of a read call in which they meet an error, so on an error too
 * the bytes delivered before it must be the same.  A stream whose first 18 bytes the loader
 * would not hand to igzip (hz_sq_gz_plain) goes to htslib in hspz too, and is only counted.
 */
#include "seqio_impl.h"

#include <htslib/bgzf.h>
#include <htslib/hfile.h>
#include <htslib/hts_log.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tap.h"

#if HSPZ_HAVE_ISAL
static char tmp[] = "/tmp/test_gzip_XXXXXX";

typedef struct { unsigned char *b; size_t n, cap; } buf;

static void put(buf *o, const void *p, size_t n)
{
    if (!n) return;
    if (o->n + n > o->cap) {
        o->cap = (o->n + n) * 2 + 64;
        o->b = realloc(o->b, o->cap);
        if (!o->b) exit(2);
    }
    memcpy(o->b + o->n, p, n);
    o->n += n;
}
static void put1(buf *o, unsigned c) { unsigned char b = (unsigned char)c; put(o, &b, 1); }
static void put32(buf *o, uint32_t v) { for (int k = 0; k < 4; k++) put1(o, (v >> (8 * k)) & 0xff); }

static uint32_t crc32_of(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return ~c;
}

/* One gzip member of data by hand: header with the fields of flg (FEXTRA 4 with a subfield
 * 'hz', FNAME 8, FCOMMENT 16, FHCRC 2), then stored blocks (fixed 0) of at most 7 bytes, or
 * fixed-Huffman literals (fixed 1), then CRC-32 and ISIZE. */
static size_t name_len;   /* FNAME's length (0: "name.fa") */

static void member(buf *o, const unsigned char *data, size_t n, unsigned flg, int fixed)
{
    size_t h0 = o->n;
    unsigned char hd[10] = {0x1f, 0x8b, 8, (unsigned char)flg, 1, 2, 3, 4, 0, 3};
    put(o, hd, 10);
    if (flg & 4) { put1(o, 6); put1(o, 0); put(o, "hz\2\0ab", 6); }
    if ((flg & 8) && !name_len) put(o, "name.fa", 8);
    if ((flg & 8) && name_len) { for (size_t i = 0; i < name_len; i++) put1(o, 'a' + i % 26); put1(o, 0); }
    if (flg & 16) put(o, "a comment", 10);
    if (flg & 2) { uint32_t c = crc32_of(o->b + h0, o->n - h0); put1(o, c & 0xff); put1(o, (c >> 8) & 0xff); }
    if (!fixed) {
        size_t i = 0;
        do {   /* stored blocks: BFINAL on the last, LEN and NLEN */
            size_t k = n - i < 7 ? n - i : 7;
            put1(o, i + k >= n ? 1 : 0);
            put1(o, k); put1(o, 0); put1(o, ~k & 0xff); put1(o, 0xff);
            put(o, data + i, k);
            i += k;
        } while (i < n);
    } else {   /* one fixed-Huffman block: literals 0..143 are 8-bit codes 0x30 + c, bits reversed */
        uint32_t acc = 0; int nb = 0;
#define BITS(v, w) do { acc |= (uint32_t)(v) << nb; nb += (w); while (nb >= 8) { put1(o, acc & 0xff); acc >>= 8; nb -= 8; } } while (0)
        BITS(1, 1); BITS(1, 2);   /* BFINAL, BTYPE 01 */
        for (size_t i = 0; i < n; i++) {
            unsigned code = 0x30 + data[i], rev = 0;   /* data bytes < 144 */
            for (int k = 0; k < 8; k++) rev |= ((code >> k) & 1u) << (7 - k);
            BITS(rev, 8);
        }
        BITS(0, 7);   /* end of block: code 256, 7 zero bits */
        if (nb) BITS(0, 8 - nb);
#undef BITS
    }
    put32(o, crc32_of(data, n));
    put32(o, (uint32_t)n);
}

static void write_tmp(const unsigned char *b, size_t n)
{
    FILE *f = fopen(tmp, "wb");
    if (!f || (n && fwrite(b, 1, n, f) != n) || fclose(f)) { perror(tmp); exit(2); }
}

static size_t req = 4096;   /* bytes asked for per read call */
static unsigned char rb[1 << 20];

/* the whole stream through one reader: its bytes in *o, 0 at the end or -1 on an error */
static int via_bgzf(buf *o)
{
    BGZF *fp = bgzf_open(tmp, "r");
    if (!fp) return -1;
    ssize_t r;
    while ((r = bgzf_read(fp, rb, req)) > 0) put(o, rb, (size_t)r);
    if (bgzf_close(fp) < 0) r = -1;
    return r < 0 ? -1 : 0;
}

/* 1 when the loader would take igzip for this stream; then the reader's result as via_bgzf */
static int via_isal(buf *o, int *rc)
{
    hFILE *h = hopen(tmp, "r");
    unsigned char hd[18];
    if (!h) return 0;
    if (hpeek(h, hd, 18) != 18 || !hz_sq_gz_plain(hd, 18)) { hclose_abruptly(h); return 0; }
    hz_sq_gz *g;
    if (hz_sq_gz_open(&g, h)) exit(2);
    ssize_t r;
    while ((r = hz_sq_gz_read(g, rb, req)) > 0) put(o, rb, (size_t)r);
    *rc = r < 0 ? -1 : 0;
    if (hz_sq_gz_read(g, rb, req) != r) *rc = -2;   /* the end and an error repeat */
    hz_sq_gz_close(g);
    return 1;
}

typedef struct { int same, total, routed, ok, bad; char first[160]; } tally;

/* The reader under test against bgzf_read: via_isal (plain gzip, igzip) or via_bgzfmt (BGZF on
 * threads), named in a mismatch; both give 0 when the loader would not route the stream there. */
typedef struct { int (*via)(buf *o, int *rc); const char *name; } reader;
static int via_bgzfmt(buf *o, int *rc);
static const reader IGZIP = {via_isal, "igzip"}, BGZFMT = {via_bgzfmt, "threaded BGZF"};
static int bz_threads = 1;   /* via_bgzfmt's thread count */

/* both readers on stream b[0..n); a mismatch is noted in t (the first one described) */
static void compare_with(const reader *rd, const unsigned char *b, size_t n, const char *what, size_t at, tally *t)
{
    buf z = {0}, g = {0};
    int rz, rg;
    write_tmp(b, n);
    rz = via_bgzf(&z);
    t->total++;
    if (!rd->via(&g, &rg)) { t->routed++; goto out; }
    /* the same verdict and the same bytes: on an error both drop the failing call's bytes */
    int same = rz == rg && z.n == g.n && (!z.n || !memcmp(z.b, g.b, z.n));
    if (same) { t->same++; if (rz == 0) t->ok++; else t->bad++; }
    else if (!t->first[0])
        snprintf(t->first, sizeof t->first, "%s at %zu: htslib %d (%zu bytes), %s %d (%zu bytes)%s", what, at, rz, z.n,
                 rd->name, rg, g.n, rd == &BGZFMT ? (bz_threads > 1 ? ", threads > 1" : ", 1 thread") : "");
out:
    free(z.b);
    free(g.b);
}

static void compare(const unsigned char *b, size_t n, const char *what, size_t at, tally *t)
{
    compare_with(&IGZIP, b, n, what, at, t);
}

/* every cut and every one-byte change (three values) of stream s, into t */
static void every_change_into(const reader *rd, const buf *s, tally *t)
{
    for (size_t k = 0; k <= s->n; k++) compare_with(rd, s->b, k, "cut", k, t);
    unsigned char *m = malloc(s->n);
    for (size_t i = 0; i < s->n; i++)
        for (int v = 0; v < 3; v++) {
            static const unsigned char x[3] = {0x01, 0x80, 0xff};
            memcpy(m, s->b, s->n);
            m[i] ^= x[v];
            compare_with(rd, m, s->n, "byte changed", i, t);
        }
    free(m);
}

static void every_change(const buf *s, const char *name)
{
    tally t = {0};
    every_change_into(&IGZIP, s, &t);
    check(t.same == t.total - t.routed && t.ok > 0 && t.bad > 0,
          "%s (%zu bytes): every cut and one-byte change, %d streams: %d the same (%d read to the end, %d errors), "
          "%d for htslib%s%s", name, s->n, t.total, t.same, t.ok, t.bad, t.routed, t.first[0] ? "; first mismatch: " : "", t.first);
}

static void test_small(void)
{
    const unsigned char a[] = ">a\nACGTNacgt\n", c[] = "GGCC\n>b two\nTTTT\n";
    static const struct { unsigned flg; int fixed; const char *name; } kinds[] = {
        {0, 0, "stored blocks, no header field"},
        {4 | 8 | 16 | 2, 0, "stored blocks, FEXTRA FNAME FCOMMENT FHCRC"},
        {8, 1, "fixed Huffman, FNAME"},
        {2 | 16, 1, "fixed Huffman, FCOMMENT FHCRC"},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        buf s = {0};
        member(&s, a, sizeof a - 1, kinds[k].flg, kinds[k].fixed);
        every_change(&s, kinds[k].name);
        free(s.b);
    }
    buf s = {0};   /* two members with an empty one between */
    member(&s, a, sizeof a - 1, 8, 0);
    member(&s, (const unsigned char *)"", 0, 0, 1);
    member(&s, c, sizeof c - 1, 2, 1);
    every_change(&s, "three members (one empty)");
    tally t = {0};
    static const struct { const char *b; size_t n; } tail[] = {
        {"\0", 1}, {"\0\0\0\0\0\0\0\0", 8}, {"junk", 4}, {"\x1f\x8b", 2}, {"\x1f\x8b\x08\0\0\0\0\0\0\x03", 10}, {"\n", 1},
    };
    for (size_t k = 0; k < sizeof tail / sizeof *tail; k++) {
        buf u = {0};
        put(&u, s.b, s.n);
        put(&u, tail[k].b, tail[k].n);
        compare(u.b, u.n, "trailing bytes", k, &t);
        free(u.b);
    }
    check(t.same == t.total && t.bad == t.total,
          "bytes after the last member that do not make a whole member: an error for both, %d of %d%s%s", t.same, t.total,
          t.first[0] ? "; " : "", t.first);
    free(s.b);
}

/* headers that do not arrive in one read: a 300 kB FNAME with FHCRC, and a second member
 * whose FHCRC header starts 6 bytes before each 64 KiB read boundary; a match at the start of
 * a member reaching back before it */
static void test_headers(void)
{
    const unsigned char a[] = ">a\nACGT\n", c[] = ">c\nTTGG\n";
    tally t = {0};
    buf s = {0};
    name_len = 300000;
    member(&s, a, sizeof a - 1, 8 | 2, 0);
    compare(s.b, s.n, "300 kB FNAME + FHCRC", 0, &t);
    int ok_long = t.same == 1 && t.ok == 1;
    free(s.b);
    for (size_t back = 1; back <= 12; back++) {
        size_t want = 65536 - back;
        buf m = {0};
        name_len = 8;
        member(&m, a, sizeof a - 1, 8, 0);
        name_len = 8 + (want - m.n);   /* pad the first member's name to end it at want */
        free(m.b);
        m = (buf){0};
        member(&m, a, sizeof a - 1, 8, 0);
        name_len = 0;
        member(&m, c, sizeof c - 1, 4 | 8 | 16 | 2, 1);
        compare(m.b, m.n, "second header across 64 KiB", back, &t);
        free(m.b);
    }
    name_len = 0;
    /* fixed Huffman: BFINAL 1, BTYPE 01, then the 7-bit code 0001000 (length code 264, a match
     * of 10) and distance code 0 (distance 1), before any byte: zlib says "invalid distance
     * too far back" */
    buf l = {0};
    unsigned char hd[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
    put(&l, hd, 10);
    put1(&l, 0x43);   /* bits from the lowest: 1, 1 0, then the code's first 5 bits 0 0 0 1 0 */
    put1(&l, 0x00); put1(&l, 0x00); put1(&l, 0x00);
    put32(&l, 0); put32(&l, 3);
    compare(l.b, l.n, "lookback before the start", 0, &t);
    free(l.b);
    check(ok_long && t.same == t.total && t.total == 14 && t.ok == 13 && t.bad == 1,
          "headers across reads (a 300 kB FNAME with FHCRC; 12 second members across the 64 KiB read) read to the "
          "end, a lookback before the start an error: %d of %d the same (%d to the end, %d errors)%s%s",
          t.same, t.total, t.ok, t.bad, t.first[0] ? "; " : "", t.first);
}

/* a 3 Mbp FASTA deflated by zlib (htslib's "wg"), one member and two concatenated */
static void test_big(void)
{
    size_t len = 3 << 20;
    char *fa = malloc(len);
    unsigned x = 12345;
    for (size_t i = 0; i < len; i++) {
        x = x * 1103515245u + 12345u;
        fa[i] = i % 61 == 60 ? '\n' : "ACGTacgtNN"[(x >> 16) % 10];
    }
    memcpy(fa, ">big\n", 5);
    BGZF *w = bgzf_open(tmp, "wg");
    if (!w || bgzf_write(w, fa, len) != (ssize_t)len || bgzf_close(w) < 0) exit(2);
    buf s = {0};
    FILE *f = fopen(tmp, "rb");
    unsigned char b[65536];
    size_t r;
    while ((r = fread(b, 1, sizeof b, f)) > 0) put(&s, b, r);
    fclose(f);
    tally t = {0};
    compare(s.b, s.n, "whole", 0, &t);
    req = 1 << 20;   /* also as the loader reads: 1 MiB a call */
    compare(s.b, s.n, "whole, 1 MiB reads", 0, &t);
    req = 4096;
    buf two = {0};
    put(&two, s.b, s.n);
    put(&two, s.b, s.n);
    compare(two.b, two.n, "two members", 0, &t);
    check(t.same == 3 && t.ok == 3, "3 MiB FASTA, one zlib member (4 KiB and 1 MiB reads) and two: the same bytes, read to the end%s%s",
          t.first[0] ? "; " : "", t.first);
    tally u = {0};
    unsigned char *m = malloc(two.n);
    for (size_t k = 0; k < 97; k++) {
        size_t at = (two.n - 1) * k / 96;
        req = k % 2 ? 4096 : 1 << 20;
        compare(two.b, at, "cut", at, &u);
        memcpy(m, two.b, two.n);
        m[at] ^= 0x40;
        compare(m, two.n, "byte changed", at, &u);
    }
    req = 4096;
    size_t tr[] = {s.n - 8, s.n - 7, s.n - 4, s.n - 1};   /* the first member's CRC-32 and ISIZE */
    for (size_t k = 0; k < 4; k++) {
        memcpy(m, two.b, two.n);
        m[tr[k]] ^= 0x01;
        compare(m, two.n, "trailer byte changed", tr[k], &u);
    }
    check(u.same == u.total - u.routed && u.bad > 0,
          "two members: 97 cuts, 97 changed bytes and 4 changed trailer bytes: %d of %d the same (%d errors), %d for htslib%s%s",
          u.same, u.total, u.bad, u.routed, u.first[0] ? "; first mismatch: " : "", u.first);
    free(m);
    free(two.b);
    free(s.b);
    free(fa);
}

/* ---- BGZF: seqio_bgzf.c's threaded reader against bgzf_read ------------------------------ */

/* 1 when the loader would take the BGZF reader for this stream; then its result as via_bgzf */
static int via_bgzfmt(buf *o, int *rc)
{
    hFILE *h = hopen(tmp, "r");
    unsigned char hd[18];
    if (!h) return 0;
    if (hpeek(h, hd, 18) != 18 || hz_sq_gz_plain(hd, 18) || hz_sq_bgzf_header(hd, 18) != 0) { hclose_abruptly(h); return 0; }
    hz_sq_bgzf *z;
    if (hz_sq_bgzf_open(&z, h, bz_threads)) exit(2);
    ssize_t r;
    while ((r = hz_sq_bgzf_read(z, rb, req)) > 0) put(o, rb, (size_t)r);
    *rc = r < 0 ? -1 : 0;
    if (hz_sq_bgzf_read(z, rb, req) != r) *rc = -2;   /* the end and an error repeat */
    hz_sq_bgzf_close(z);
    return 1;
}

static void compare_bz(const unsigned char *b, size_t n, const char *what, size_t at, tally *t)
{
    compare_with(&BGZFMT, b, n, what, at, t);
}

/* data written by htslib as BGZF, a block boundary after each piece (bgzf_flush) */
static void bgzf_of(buf *o, const char *const *piece, size_t np)
{
    BGZF *w = bgzf_open(tmp, "w");
    for (size_t i = 0; i < np; i++)
        if (!w || bgzf_write(w, piece[i], strlen(piece[i])) != (ssize_t)strlen(piece[i]) || bgzf_flush(w)) exit(2);
    if (bgzf_close(w) < 0) exit(2);
    FILE *f = fopen(tmp, "rb");
    unsigned char b[65536];
    size_t r;
    while ((r = fread(b, 1, sizeof b, f)) > 0) put(o, b, r);
    fclose(f);
}

static void every_change_bz(const buf *s, const char *name)
{
    for (bz_threads = 1; bz_threads <= 3; bz_threads += 2) {
        tally t = {0};
        every_change_into(&BGZFMT, s, &t);
        check(t.same == t.total - t.routed && t.ok > 0 && t.bad > 0 && t.same > t.routed,
              "BGZF %s (%zu bytes), %d thread%s: every cut and one-byte change, %d streams: %d the same (%d read to the end, "
              "%d errors), %d not BGZF at the start%s%s", name, s->n, bz_threads, bz_threads > 1 ? "s" : "", t.total, t.same, t.ok,
              t.bad, t.routed, t.first[0] ? "; first mismatch: " : "", t.first);
    }
}

static void test_bgzf(void)
{
    static const char *const p2[] = {">a\nACGTNacgt\n", "GGCC\n>b two\nTTTT\n"};
    buf s = {0};
    bgzf_of(&s, p2, 2);
    every_change_bz(&s, "two blocks and the EOF block");
    /* BGZF, then a plain gzip member: htslib reads the rest as gzip (seqio_gzip.c's reader here) */
    buf m = {0};
    put(&m, s.b, s.n);
    member(&m, (const unsigned char *)"ACGTTT\n>c\nGG\n", 13, 8, 1);
    every_change_bz(&m, "two blocks, the EOF block, then a gzip member");
    /* concatenated BGZF files (an empty block between), trailing bytes */
    tally t = {0};
    static const struct { const char *b; size_t n; } tail[] = {
        {"", 0}, {"\0", 1}, {"junk", 4}, {"\x1f\x8b\x08\x04", 4}, {"\x1f\x8b\x08\x04\0\0\0\0\0\xff\x06\0BC\x02\0\x05\0", 18},
    };
    for (bz_threads = 1; bz_threads <= 4; bz_threads += 3)
        for (size_t k = 0; k < sizeof tail / sizeof *tail; k++) {
            buf u = {0};
            put(&u, s.b, s.n);
            put(&u, s.b, s.n);
            put(&u, tail[k].b, tail[k].n);
            compare_bz(u.b, u.n, "two BGZF files, then trailing bytes", k, &t);
            free(u.b);
        }
    check(t.same == t.total && t.ok == 2 && t.bad == t.total - 2,
          "two BGZF files back to back, then nothing (read to the end) or bytes that are no whole block (an error): %d of %d the same%s%s",
          t.same, t.total, t.first[0] ? "; " : "", t.first);
    free(s.b);
    free(m.b);

    /* 3 MiB of FASTA: 49 blocks, so several batches on 1 thread (32 blocks a batch) */
    size_t len = 3 << 20;
    char *fa = malloc(len + 1);
    unsigned x = 777;
    for (size_t i = 0; i < len; i++) {
        x = x * 1103515245u + 12345u;
        fa[i] = i % 61 == 60 ? '\n' : "ACGTacgtNN"[(x >> 16) % 10];
    }
    memcpy(fa, ">big\n", 5);
    fa[len] = 0;
    const char *one[1] = {fa};
    buf big = {0};
    bgzf_of(&big, one, 1);
    buf bm = {0};   /* and a plain gzip member after it */
    put(&bm, big.b, big.n);
    member(&bm, (const unsigned char *)"ACGT\n", 5, 0, 1);
    tally u = {0};
    unsigned char *mm = malloc(bm.n);
    for (bz_threads = 1; bz_threads <= 4; bz_threads += 3) {
        req = 1 << 20;
        compare_bz(big.b, big.n, "whole, 1 MiB reads", 0, &u);
        compare_bz(bm.b, bm.n, "whole + gzip member, 1 MiB reads", 0, &u);
        req = 4096;
        compare_bz(bm.b, bm.n, "whole + gzip member, 4 KiB reads", 0, &u);
        for (size_t k = 0; k < 65; k++) {
            size_t at = (bm.n - 1) * k / 64;
            req = k % 2 ? 4096 : 1 << 20;
            compare_bz(bm.b, at, "cut", at, &u);
            memcpy(mm, bm.b, bm.n);
            mm[at] ^= 0x40;
            compare_bz(mm, bm.n, "byte changed", at, &u);
        }
    }
    req = 4096;
    check(u.same == u.total - u.routed && u.ok >= 6 && u.bad > 0 && u.routed == 4,   /* the cut and the change at byte 0 */
          "3 MiB BGZF (+ a gzip member), 1 and 4 threads: whole, 65 cuts and 65 changed bytes each: %d of %d the same "
          "(%d read to the end, %d errors), %d not BGZF at the start%s%s", u.same, u.total, u.ok, u.bad, u.routed,
          u.first[0] ? "; first mismatch: " : "", u.first);
    free(mm);
    free(bm.b);
    free(big.b);
    free(fa);
}
#endif

int main(void)
{
#if HSPZ_HAVE_ISAL
    int fd = mkstemp(tmp);
    if (fd < 0) { perror("mkstemp"); return 2; }
    close(fd);
    hts_set_log_level(HTS_LOG_OFF);   /* htslib's reader logs every error it meets here */
    test_small();
    test_headers();
    test_big();
    test_bgzf();
    unlink(tmp);
#else
    n_tests++;
    printf("ok %d - # SKIP built without ISA-L (HSPZ_HAVE_ISAL 0): plain gzip goes to htslib's reader, nothing to compare\n", n_tests);
#endif
    printf("# %d tests, %d passed, %d failed\n", n_tests, n_tests - n_fail, n_fail);
    printf("%s\n", n_fail ? "FAIL" : "PASS");
    return n_fail ? 1 : 0;
}
