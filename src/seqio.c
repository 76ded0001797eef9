/* seqio — read target/query genomes (FASTA, gzip/bgzip FASTA, UCSC 2bit v0/v1).
 *
 * See seqio.h for the contract.  FASTA follows ../shared/spec/kegalign-hsp-spec.md §2.1
 * (KegAlign reads FASTA with klib kseq over gzopen); the edge cases below reproduce kseq_read /
 * ks_getuntil2 exactly where the spec is silent:
 *   - a line is examined by its first byte: '>' or '@' starts a new record, '+' is FASTQ
 *     (rejected here), '\n' is an empty line (skipped), anything else starts a sequence line;
 *   - a sequence line is appended whole; at its '\n' one trailing '\r' is removed if the
 *     record's accumulated length is > 1.  At end of file without '\n' the same holds, except
 *     that a final line of exactly one byte is never trimmed (kseq's ks_getuntil2 returns -1
 *     before trimming when nothing follows the first byte);
 *   - a header '>' / '@' that is the very last byte of the stream yields no record (kseq_read
 *     returns -1 while reading the name), while ">\n" or "> x" at the end gives a record named
 *     "" with an empty sequence.
 * Stricter than kseq (hspZ rules): text before the first header must be whitespace, and
 * control bytes (0x00-0x08, 0x0e-0x1f, 0x7f) are rejected anywhere.
 *
 * 2bit layout (UCSC, all integers in the byte order given by the magic):
 *   header  : magic u32 0x1A412743, version u32 (0: u32 record offsets, 1: u64), count u32,
 *             reserved u32;
 *   index   : count x { name_len u8, name[name_len], offset u32|u64 };
 *   record  : dna_size u32, n_count u32, n_starts[n_count] u32, n_sizes[n_count] u32,
 *             mask_count u32, mask_starts[] u32, mask_sizes[] u32, reserved u32,
 *             packed bases ceil(dna_size/4) bytes, 2 bits per base, first base in the two most
 *             significant bits, T=0 C=1 A=2 G=3.
 * N blocks are written as 'N' first, then mask blocks are lower-cased (so an N inside a mask
 * block reads 'n', as UCSC twoBitToFa prints it).
 */
#include "seqio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <htslib/bgzf.h>
#include <htslib/hts_log.h>

#define HZ_IO_BLOCK ((size_t)1 << 20) /* read size for FASTA streams and 2bit bases */
#define HZ_NO_REC ((size_t)-1)
#define HZ_NO_OFF UINT64_MAX

/* ------------------------------------------------------------------------------------------ */
/* Loader context shared by both readers.                                                      */

typedef struct {
    hz_seqset *s;
    const char *path;
    char *err;
    size_t errlen;
    size_t cap_rec;    /* capacity of s->name/off/len */
    uint64_t cap_data; /* capacity of s->data */
} loader;

/* Write "<path>: <what> (record <n> '<name>', byte offset <o>)" into L->err.  rec is a
 * 0-based record index (printed 1-based) or HZ_NO_REC; name may be NULL (then the record's
 * stored name is used, or it is left out); off may be HZ_NO_OFF.  Always returns -1. */
static int fail(loader *L, size_t rec, const char *name, uint64_t off, const char *fmt, ...)
{
    if (!L->err || L->errlen == 0) return -1;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (rec != HZ_NO_REC && !name && L->s && rec < L->s->n && L->s->name) name = L->s->name[rec];
    char where[400];
    where[0] = '\0';
    if (rec != HZ_NO_REC && off != HZ_NO_OFF)
        snprintf(where, sizeof where, " (record %zu '%.200s', byte offset %llu)", rec + 1,
                 name ? name : "", (unsigned long long)off);
    else if (rec != HZ_NO_REC)
        snprintf(where, sizeof where, " (record %zu '%.200s')", rec + 1, name ? name : "");
    else if (off != HZ_NO_OFF)
        snprintf(where, sizeof where, " (byte offset %llu)", (unsigned long long)off);
    snprintf(L->err, L->errlen, "%s: %s%s", L->path, what, where);
    return -1;
}

static int fail_oom(loader *L, uint64_t bytes)
{
    return fail(L, HZ_NO_REC, NULL, HZ_NO_OFF, "out of memory (allocating %llu bytes)",
                (unsigned long long)bytes);
}

/* Make room for one more record slot.  Returns 0 or -1 (out of memory, err set). */
static int grow_records(loader *L)
{
    hz_seqset *s = L->s;
    if (s->n < L->cap_rec) return 0;
    size_t nc = L->cap_rec ? L->cap_rec * 2 : 64;
    char **nm = realloc(s->name, nc * sizeof *nm);
    if (!nm) return fail_oom(L, (uint64_t)nc * sizeof *nm);
    s->name = nm;
    uint64_t *o = realloc(s->off, nc * sizeof *o);
    if (!o) return fail_oom(L, (uint64_t)nc * sizeof *o);
    s->off = o;
    uint64_t *l = realloc(s->len, nc * sizeof *l);
    if (!l) return fail_oom(L, (uint64_t)nc * sizeof *l);
    s->len = l;
    for (size_t i = L->cap_rec; i < nc; i++) s->name[i] = NULL;
    L->cap_rec = nc;
    return 0;
}

/* Make s->data hold at least `need` bytes (geometric growth, x1.5).  0 or -1. */
static int grow_data(loader *L, uint64_t need)
{
    if (need <= L->cap_data) return 0;
    uint64_t nc = L->cap_data + L->cap_data / 2;
    if (nc < need) nc = need;
    if (nc < HZ_IO_BLOCK) nc = HZ_IO_BLOCK;
    if (nc > (uint64_t)SIZE_MAX) return fail_oom(L, nc);
    uint8_t *d = realloc(L->s->data, (size_t)nc);
    if (!d && nc > need) { /* retry with the exact amount */
        nc = need;
        d = realloc(L->s->data, (size_t)nc);
    }
    if (!d) return fail_oom(L, nc);
    L->s->data = d;
    L->cap_data = nc;
    return 0;
}

/* Read exactly n bytes at file offset off (pread, retried on EINTR / short reads).
 * Returns the number of bytes read (< n only at end of file) or -1 (errno set). */
static ssize_t read_at(int fd, uint64_t off, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (r == 0) break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* ------------------------------------------------------------------------------------------ */
/* FASTA (plain, gzip, bgzip) through htslib BGZF.                                              */

enum { ST_PRE, ST_NAME, ST_COMMENT, ST_LSTART, ST_SEQ };

/* byte classes inside a sequence line: CL_SEQ an IUPAC nucleotide letter (A C G T U R Y S W
 * K M B D H V N, either case) or '\r'; CL_ODD any other byte kseq keeps as a base (X, digits,
 * '*', '-', '.', blanks inside a line, ...): kept too, but counted (hz_seqset.n_other) */
enum { CL_SEQ = 0, CL_NL = 1, CL_BAD = 2, CL_ODD = 3 };

static int is_ctrl_bad(unsigned c)
{
    return (c < 0x20 && !(c >= '\t' && c <= '\r')) || c == 0x7f;
}

static int is_space_c(unsigned c) /* isspace() in the C locale */
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

typedef struct {
    loader *L;
    int st;
    uint64_t pos;      /* stream offset of buf[0] of the current chunk */
    uint64_t line_len; /* bytes of the current sequence line so far */
    uint64_t hdr_bytes;/* bytes seen after the '>' of the current header */
    int hdr_cr;        /* the last header byte was '\r' (a '\n' must follow) */
    uint64_t cr_off;   /* its stream offset */
    char *nbuf;        /* name being read */
    size_t nlen, ncap;
    uint8_t cls[256];
} fa_state;

static int fa_bad_byte(fa_state *F, unsigned c, uint64_t off)
{
    loader *L = F->L;
    if (L->s->n == 0)
        return fail(L, HZ_NO_REC, NULL, off, "not FASTA: binary byte 0x%02x", c);
    size_t rec = L->s->n - 1;
    const char *nm = NULL;
    if (F->st == ST_NAME) {
        F->nbuf[F->nlen] = '\0';
        nm = F->nbuf;
    }
    return fail(L, rec, nm, off, "not FASTA: binary byte 0x%02x", c);
}

/* A header byte ('>' or '@') at stream offset off opens record s->n. */
static int fa_start_record(fa_state *F)
{
    loader *L = F->L;
    hz_seqset *s = L->s;
    if (s->n > 0) s->len[s->n - 1] = s->total - s->off[s->n - 1];
    if (grow_records(L)) return -1;
    s->off[s->n] = s->total;
    s->len[s->n] = 0;
    s->name[s->n] = NULL;
    s->n++;
    F->st = ST_NAME;
    F->nlen = 0;
    F->hdr_bytes = 0;
    return 0;
}

static int fa_end_name(fa_state *F)
{
    loader *L = F->L;
    char *nm = malloc(F->nlen + 1);
    if (!nm) return fail_oom(L, F->nlen + 1);
    memcpy(nm, F->nbuf, F->nlen);
    nm[F->nlen] = '\0';
    L->s->name[L->s->n - 1] = nm;
    return 0;
}

/* One trailing '\r' of the line just ended is dropped when the record is longer than 1. */
static void fa_trim_cr(fa_state *F)
{
    hz_seqset *s = F->L->s;
    uint64_t rlen = s->total - s->off[s->n - 1];
    if (rlen > 1 && s->data[s->total - 1] == '\r') s->total--;
}

/* A base byte of class CL_ODD at stream offset off: counted, the first one remembered. */
static void fa_other(fa_state *F, unsigned c, uint64_t off)
{
    hz_seqset *s = F->L->s;
    if (s->n_other++ == 0) { s->other_rec = s->n - 1; s->other_off = off; s->other_byte = (uint8_t)c; }
}

/* A '\r' in a header line that is not followed by '\n': the file has CR-only line ends (old
 * Mac).  kseq (KegAlign) would read the whole rest of the file as this header, i.e. no bases,
 * and LASTZ misreads such a file too, so it is refused rather than guessed at. */
static int fa_bare_cr(fa_state *F)
{
    return fail(F->L, F->L->s->n - 1, NULL, F->cr_off,
                "carriage return without a line feed in the header line (CR-only line ends: "
                "KegAlign would read no bases; convert with tr '\\r' '\\n')");
}

/* Feed n bytes of the decompressed stream.  0 or -1 (err set). */
static int fa_feed(fa_state *F, const uint8_t *buf, size_t n)
{
    loader *L = F->L;
    hz_seqset *s = L->s;
    size_t i = 0;
    while (i < n) {
        unsigned c = buf[i];
        switch (F->st) {
        case ST_PRE:
            if (c == '>' || c == '@') {
                if (fa_start_record(F)) return -1;
            } else if (is_ctrl_bad(c)) {
                return fa_bad_byte(F, c, F->pos + i);
            } else if (!is_space_c(c)) {
                return fail(L, HZ_NO_REC, NULL, F->pos + i,
                            "not FASTA: text before the first '>' header (byte 0x%02x '%c')", c,
                            c >= 0x20 && c < 0x7f ? (int)c : '?');
            }
            i++;
            break;
        case ST_NAME:
            if (is_ctrl_bad(c)) return fa_bad_byte(F, c, F->pos + i);
            F->hdr_bytes++;
            if (is_space_c(c)) {
                if (fa_end_name(F)) return -1;
                F->st = c == '\n' ? ST_LSTART : ST_COMMENT;
                F->hdr_cr = c == '\r';
                F->cr_off = F->pos + i;
            } else {
                if (F->nlen + 2 > F->ncap) {
                    size_t nc = F->ncap * 2;
                    char *nb = realloc(F->nbuf, nc);
                    if (!nb) return fail_oom(L, nc);
                    F->nbuf = nb;
                    F->ncap = nc;
                }
                F->nbuf[F->nlen++] = (char)c;
            }
            i++;
            break;
        case ST_COMMENT: {
            size_t j = i;
            for (; j < n && buf[j] != '\n'; j++) {
                if (F->hdr_cr) return fa_bare_cr(F);
                if (F->cls[buf[j]] == CL_BAD) return fa_bad_byte(F, buf[j], F->pos + j);
                F->hdr_cr = buf[j] == '\r';
                F->cr_off = F->pos + j;
            }
            if (j == n) {
                i = j;
                break;
            }
            F->st = ST_LSTART;
            F->hdr_cr = 0;
            i = j + 1;
            break;
        }
        case ST_LSTART:
            if (c == '>' || c == '@') {
                if (fa_start_record(F)) return -1;
                i++;
                break;
            }
            if (c == '+')
                return fail(L, s->n - 1, NULL, F->pos + i,
                            "FASTQ not supported ('+' line inside a record)");
            if (c == '\n') {
                i++;
                break;
            }
            if (is_ctrl_bad(c)) return fa_bad_byte(F, c, F->pos + i);
            if (F->cls[c] == CL_ODD) fa_other(F, c, F->pos + i);
            if (grow_data(L, s->total + 1)) return -1;
            s->data[s->total++] = (uint8_t)c;
            F->line_len = 1;
            F->st = ST_SEQ;
            i++;
            break;
        case ST_SEQ: {
            size_t j = i;
            const uint8_t *cls = F->cls;
            for (;;) {
                while (j < n && cls[buf[j]] == CL_SEQ) j++;
                if (j == n || cls[buf[j]] != CL_ODD) break;
                fa_other(F, buf[j], F->pos + j);
                j++;
            }
            size_t k = j - i;
            if (k) {
                if (grow_data(L, s->total + k)) return -1;
                memcpy(s->data + s->total, buf + i, k);
                s->total += k;
                F->line_len += k;
            }
            if (j == n) {
                i = j;
                break;
            }
            if (cls[buf[j]] == CL_BAD) return fa_bad_byte(F, buf[j], F->pos + j);
            fa_trim_cr(F);
            F->st = ST_LSTART;
            i = j + 1;
            break;
        }
        }
    }
    F->pos += n;
    return 0;
}

/* End of stream: close the last record.  0 or -1 (err set). */
static int fa_finish(fa_state *F)
{
    loader *L = F->L;
    hz_seqset *s = L->s;
    if (F->st == ST_NAME) {
        if (F->hdr_bytes == 0) {
            s->n--; /* a lone '>' as the last byte: kseq yields no record */
            if (s->n == 0) F->st = ST_PRE;
        } else if (fa_end_name(F)) {
            return -1;
        }
    } else if (F->st == ST_SEQ && F->line_len >= 2) {
        fa_trim_cr(F);
    }
    if (s->n == 0)
        return fail(L, HZ_NO_REC, NULL, HZ_NO_OFF, "no FASTA record (no '>' header line)");
    s->len[s->n - 1] = s->total - s->off[s->n - 1];
    return 0;
}

static int load_fasta(loader *L, int fd, int is_regular, int gz_magic)
{
    hz_seqset *s = L->s;
    fa_state F;
    memset(&F, 0, sizeof F);
    F.L = L;
    F.st = ST_PRE;
    F.ncap = 256;
    F.nbuf = malloc(F.ncap);
    for (unsigned c = 0; c < 256; c++) F.cls[c] = is_ctrl_bad(c) ? CL_BAD : CL_ODD;
    for (const char *b = "ACGTURYSWKMBDHVN"; *b; b++) F.cls[(unsigned char)*b] = F.cls[(unsigned char)(*b + 32)] = CL_SEQ;
    F.cls['\r'] = CL_SEQ;
    F.cls['\n'] = CL_NL;
    uint8_t *buf = malloc(HZ_IO_BLOCK);
    int rc = -1;
    BGZF *fp = NULL;
    if (!F.nbuf || !buf) {
        fail_oom(L, HZ_IO_BLOCK);
        close(fd);
        goto done;
    }
    fp = bgzf_dopen(fd, "r");
    if (!fp) {
        fail(L, HZ_NO_REC, NULL, HZ_NO_OFF, "cannot open for reading: %s",
             strerror(errno ? errno : EIO));
        close(fd);
        goto done;
    }
    s->kind = bgzf_compression(fp) == 0 ? "fasta" : "fasta.gz";
    if (gz_magic && bgzf_compression(fp) == 0) { /* htslib did not recognise the header */
        s->kind = "fasta.gz";
        fail(L, HZ_NO_REC, NULL, 0, "truncated or corrupt gzip header");
        goto done;
    }
    /* first guess for the data buffer: the file size (exact upper bound when uncompressed) */
    if (is_regular && s->file_bytes > 0) {
        uint64_t guess = s->file_bytes;
        if (bgzf_compression(fp) != 0) guess = guess < (UINT64_MAX / 4) ? guess * 4 : guess;
        if (grow_data(L, guess)) goto done;
    }
    for (;;) {
        errno = 0;
        ssize_t r = bgzf_read(fp, buf, HZ_IO_BLOCK);
        if (r < 0) {
            size_t rec = s->n ? s->n - 1 : HZ_NO_REC;
            const char *nm = (F.st == ST_NAME && s->n) ? (F.nbuf[F.nlen] = '\0', F.nbuf) : NULL;
            if (bgzf_compression(fp) == 0)
                fail(L, rec, nm, F.pos, "read error: %s", strerror(errno ? errno : EIO));
            else
                fail(L, rec, nm, F.pos, "truncated or corrupt gzip data");
            goto done;
        }
        if (r == 0) break;
        if (F.pos == 0 && r >= 4 && buf[0] == 0x43 && buf[1] == 0x27 && buf[2] == 0x41 &&
            buf[3] == 0x1a) {
            fail(L, HZ_NO_REC, NULL, 0,
                 is_regular ? "compressed 2bit files are not supported (decompress first)"
                            : "2bit input must be a regular file (not a pipe)");
            goto done;
        }
        if (F.pos == 0 && r >= 4 && buf[0] == 0x1a && buf[1] == 0x41 && buf[2] == 0x27 &&
            buf[3] == 0x43) {
            fail(L, HZ_NO_REC, NULL, 0,
                 is_regular ? "compressed 2bit files are not supported (decompress first)"
                            : "2bit input must be a regular file (not a pipe)");
            goto done;
        }
        if (fa_feed(&F, buf, (size_t)r)) goto done;
    }
    /* A BGZF file cut exactly at a block boundary decompresses without error; its missing
     * end-of-file marker block is the only sign of the truncation. */
    if (is_regular && bgzf_compression(fp) == 2 && bgzf_check_EOF(fp) == 0) {
        size_t rec = s->n ? s->n - 1 : HZ_NO_REC;
        const char *nm = (F.st == ST_NAME && s->n) ? (F.nbuf[F.nlen] = '\0', F.nbuf) : NULL;
        fail(L, rec, nm, F.pos, "truncated bgzip file (the BGZF end-of-file marker block is missing)");
        goto done;
    }
    if (F.pos == 0) {
        fail(L, HZ_NO_REC, NULL, HZ_NO_OFF, "empty file (no data%s)",
             s->kind[5] ? " after decompression" : "");
        goto done;
    }
    if (fa_finish(&F)) goto done;
    rc = 0;
done:
    if (fp && bgzf_close(fp) < 0 && rc == 0) {
        rc = fail(L, HZ_NO_REC, NULL, F.pos, "error closing the input (corrupt gzip data?)");
    }
    free(buf);
    free(F.nbuf);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* UCSC 2bit.                                                                                   */

static uint32_t get32(const uint8_t *p, int be)
{
    return be ? ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3])
              : ((uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]);
}

static uint64_t get64(const uint8_t *p, int be)
{
    uint64_t hi = get32(be ? p : p + 4, be), lo = get32(be ? p + 4 : p, be);
    return hi << 32 | lo;
}

/* Read a u32 array of cnt entries at off into a fresh malloc'd buffer.  0 or -1. */
static int tb_read_u32s(loader *L, int fd, uint64_t off, uint32_t cnt, int be, uint32_t **out,
                        size_t rec, const char *what)
{
    *out = NULL;
    if (cnt == 0) return 0;
    size_t bytes = (size_t)cnt * 4;
    uint8_t *raw = malloc(bytes);
    if (!raw) return fail_oom(L, bytes);
    ssize_t r = read_at(fd, off, raw, bytes);
    if (r < 0) {
        free(raw);
        return fail(L, rec, NULL, off, "read error: %s", strerror(errno));
    }
    if ((size_t)r < bytes) {
        free(raw);
        return fail(L, rec, NULL, off, "truncated 2bit record header (%s)", what);
    }
    uint32_t *v = (uint32_t *)raw; /* decode in place: same size, forward order is safe */
    for (uint32_t i = 0; i < cnt; i++) v[i] = get32(raw + 4 * (size_t)i, be);
    *out = v;
    return 0;
}

static int load_2bit(loader *L, int fd, const uint8_t magic[4])
{
    hz_seqset *s = L->s;
    const uint64_t fsize = s->file_bytes;
    uint8_t hdr[16];
    int rc = -1;
    uint64_t *roff = NULL;
    uint8_t *ibuf = NULL, *pk = NULL;
    uint32_t *nst = NULL, *nsz = NULL, *mst = NULL, *msz = NULL;

    s->kind = "2bit";
    int be = magic[0] == 0x1a; /* 1A 41 27 43 = big-endian; 43 27 41 1A = little-endian */
    ssize_t r = read_at(fd, 0, hdr, 16);
    if (r < 0) return fail(L, HZ_NO_REC, NULL, 0, "read error: %s", strerror(errno));
    if (r < 16)
        return fail(L, HZ_NO_REC, NULL, (uint64_t)r,
                    "truncated 2bit header (%zd of 16 bytes)", r);
    uint32_t version = get32(hdr + 4, be), count = get32(hdr + 8, be);
    if (version > 1)
        return fail(L, HZ_NO_REC, NULL, 4,
                    "unsupported 2bit version %u (only 0 and 1 are known)", version);
    if (count == 0) return fail(L, HZ_NO_REC, NULL, 8, "2bit file has no records (record count 0)");
    const unsigned osz = version ? 8 : 4;
    /* each index entry takes at least 1 + osz bytes */
    if ((uint64_t)count * (1 + osz) > fsize - 16)
        return fail(L, HZ_NO_REC, NULL, fsize,
                    "truncated 2bit index (%u records need at least %llu bytes, file has %llu)",
                    count, (unsigned long long)(16 + (uint64_t)count * (1 + osz)),
                    (unsigned long long)fsize);

    /* ---- index: read it in one go (bounded by count * (1 + 255 + osz) and the file size) */
    uint64_t imax = (uint64_t)count * (1 + 255 + osz);
    if (imax > fsize - 16) imax = fsize - 16;
    ibuf = malloc((size_t)imax);
    roff = malloc((size_t)count * sizeof *roff);
    if (!ibuf || !roff) {
        fail_oom(L, imax + (uint64_t)count * 8);
        goto done;
    }
    r = read_at(fd, 16, ibuf, (size_t)imax);
    if (r < 0) {
        fail(L, HZ_NO_REC, NULL, 16, "read error: %s", strerror(errno));
        goto done;
    }
    uint64_t ilen = (uint64_t)r, ip = 0;
    for (uint32_t k = 0; k < count; k++) {
        if (grow_records(L)) goto done;
        s->off[k] = s->len[k] = 0;
        s->name[k] = NULL;
        s->n = k + 1;
        if (ip + 1 > ilen) {
            fail(L, k, "", 16 + ip, "truncated 2bit index (name length missing)");
            goto done;
        }
        unsigned nl = ibuf[ip];
        char *nm = malloc(nl + 1);
        if (!nm) {
            fail_oom(L, nl + 1);
            goto done;
        }
        uint64_t avail = ilen - ip - 1;
        size_t have = avail < nl ? (size_t)avail : nl;
        memcpy(nm, ibuf + ip + 1, have);
        nm[have] = '\0';
        s->name[k] = nm;
        if (avail < nl) {
            fail(L, k, NULL, 16 + ip + 1, "truncated 2bit index (record name)");
            goto done;
        }
        ip += 1 + nl;
        if (ip + osz > ilen) {
            fail(L, k, NULL, 16 + ip, "truncated 2bit index (record offset)");
            goto done;
        }
        roff[k] = osz == 8 ? get64(ibuf + ip, be) : get32(ibuf + ip, be);
        ip += osz;
    }
    /* offsets are checked only once the whole index was read, so that a file cut inside the
     * index is reported as such */
    for (uint32_t k = 0; k < count; k++) {
        if (roff[k] < 16 || roff[k] > fsize || fsize - roff[k] < 8) {
            fail(L, k, NULL, roff[k],
                 "truncated 2bit file or corrupt index: record offset %llu is beyond the "
                 "end of the file (%llu bytes)",
                 (unsigned long long)roff[k], (unsigned long long)fsize);
            goto done;
        }
    }
    free(ibuf);
    ibuf = NULL;

    /* ---- pass 1: sequence sizes -> total, one allocation */
    uint64_t total = 0;
    for (uint32_t k = 0; k < count; k++) {
        uint8_t b4[4];
        r = read_at(fd, roff[k], b4, 4);
        if (r != 4) {
            fail(L, k, NULL, roff[k], "truncated 2bit record header (sequence size)");
            goto done;
        }
        uint32_t dna = get32(b4, be);
        /* packed bases must fit in the file at all (cheap sanity check before allocating) */
        if ((uint64_t)(dna / 4 + (dna % 4 != 0)) > fsize - roff[k]) {
            fail(L, k, NULL, roff[k],
                 "truncated 2bit record data (sequence size %u needs %llu bytes of bases, "
                 "file has %llu bytes after the record start)",
                 dna, (unsigned long long)(dna / 4 + (dna % 4 != 0)),
                 (unsigned long long)(fsize - roff[k]));
            goto done;
        }
        s->off[k] = total;
        s->len[k] = dna;
        total += dna;
    }
    if (grow_data(L, total ? total : 1)) goto done;
    s->total = total;

    /* ---- pass 2: decode */
    char tab[256][4];
    static const char nt[4] = {'T', 'C', 'A', 'G'};
    for (unsigned b = 0; b < 256; b++)
        for (unsigned j = 0; j < 4; j++) tab[b][j] = nt[(b >> (6 - 2 * j)) & 3];
    pk = malloc(HZ_IO_BLOCK);
    if (!pk) {
        fail_oom(L, HZ_IO_BLOCK);
        goto done;
    }
    for (uint32_t k = 0; k < count; k++) {
        uint64_t p = roff[k];
        uint8_t b8[8];
        uint32_t dna = (uint32_t)s->len[k];
        uint8_t *dst = s->data + s->off[k];
        r = read_at(fd, p + 4, b8, 4);
        if (r != 4) {
            fail(L, k, NULL, p + 4, "truncated 2bit record header (N block count)");
            goto done;
        }
        uint32_t ncnt = get32(b8, be);
        p += 8;
        if ((uint64_t)ncnt * 8 + 8 > fsize - p) {
            fail(L, k, NULL, p, "truncated 2bit record header (%u N blocks)", ncnt);
            goto done;
        }
        if (tb_read_u32s(L, fd, p, ncnt, be, &nst, k, "N block starts")) goto done;
        p += (uint64_t)ncnt * 4;
        if (tb_read_u32s(L, fd, p, ncnt, be, &nsz, k, "N block sizes")) goto done;
        p += (uint64_t)ncnt * 4;
        r = read_at(fd, p, b8, 4);
        if (r != 4) {
            fail(L, k, NULL, p, "truncated 2bit record header (mask block count)");
            goto done;
        }
        uint32_t mcnt = get32(b8, be);
        p += 4;
        if ((uint64_t)mcnt * 8 + 4 > fsize - p) {
            fail(L, k, NULL, p, "truncated 2bit record header (%u mask blocks)", mcnt);
            goto done;
        }
        if (tb_read_u32s(L, fd, p, mcnt, be, &mst, k, "mask block starts")) goto done;
        p += (uint64_t)mcnt * 4;
        if (tb_read_u32s(L, fd, p, mcnt, be, &msz, k, "mask block sizes")) goto done;
        p += (uint64_t)mcnt * 4 + 4; /* + reserved */
        uint64_t pbytes = dna / 4 + (dna % 4 != 0);
        if (p > fsize || pbytes > fsize - p) {
            fail(L, k, NULL, p,
                 "truncated 2bit record data (%llu bytes of packed bases expected, %llu present)",
                 (unsigned long long)pbytes,
                 (unsigned long long)(p > fsize ? 0 : fsize - p));
            goto done;
        }
        /* bases */
        uint64_t done_b = 0; /* packed bytes decoded */
        while (done_b < pbytes) {
            size_t want = pbytes - done_b < HZ_IO_BLOCK ? (size_t)(pbytes - done_b) : HZ_IO_BLOCK;
            r = read_at(fd, p + done_b, pk, want);
            if (r < 0) {
                fail(L, k, NULL, p + done_b, "read error: %s", strerror(errno));
                goto done;
            }
            if ((size_t)r < want) {
                fail(L, k, NULL, p + done_b + (uint64_t)r,
                     "truncated 2bit record data (file ended inside the bases)");
                goto done;
            }
            size_t full = want;
            uint64_t base0 = done_b * 4;
            if (done_b + want == pbytes && dna % 4) full--; /* last, partial byte */
            char *o = (char *)dst + base0;
            for (size_t i = 0; i < full; i++) memcpy(o + 4 * i, tab[pk[i]], 4);
            if (full < want) memcpy(o + 4 * full, tab[pk[full]], dna % 4);
            done_b += want;
        }
        for (uint32_t b = 0; b < ncnt; b++) {
            if ((uint64_t)nst[b] + nsz[b] > dna) {
                fail(L, k, NULL, roff[k] + 8 + 4 * (uint64_t)b,
                     "corrupt 2bit record: N block %u (start %u, size %u) exceeds the sequence "
                     "length %u", b + 1, nst[b], nsz[b], dna);
                goto done;
            }
            memset(dst + nst[b], 'N', nsz[b]);
        }
        uint64_t mpos = roff[k] + 8 + 8 * (uint64_t)ncnt + 4;
        for (uint32_t b = 0; b < mcnt; b++) {
            if ((uint64_t)mst[b] + msz[b] > dna) {
                fail(L, k, NULL, mpos + 4 * (uint64_t)b,
                     "corrupt 2bit record: mask block %u (start %u, size %u) exceeds the "
                     "sequence length %u", b + 1, mst[b], msz[b], dna);
                goto done;
            }
            uint8_t *q = dst + mst[b];
            for (uint32_t i = 0; i < msz[b]; i++) q[i] |= 0x20; /* ACGTN -> acgtn */
        }
        free(nst), free(nsz), free(mst), free(msz);
        nst = nsz = mst = msz = NULL;
    }
    rc = 0;
done:
    free(nst), free(nsz), free(mst), free(msz);
    free(pk);
    free(ibuf);
    free(roff);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Public API.                                                                                  */

/* Load every record of `path` into *out (see seqio.h; spec §2.1).
 * Shapes: out->n records; out->data holds out->total bytes, record i at
 * [out->off[i], out->off[i] + out->len[i]); all sizes are 64-bit byte counts.
 * Errors (return -1, *out freed and zeroed, one line in err, record numbers 1-based, byte
 * offsets into the decompressed stream for FASTA and into the file for 2bit):
 *   "<path>: cannot open: <strerror>", "<path>: cannot read: Is a directory",
 *   "<path>: empty file (0 bytes)",
 *   "<path>: empty file (no data after decompression)",
 *   "<path>: no FASTA record (no '>' header line)",
 *   "<path>: not FASTA: text before the first '>' header (byte 0x68 'h') (byte offset o)",
 *   "<path>: not FASTA: binary byte 0x00 (record n 'name', byte offset o)",
 *   "<path>: FASTQ not supported ('+' line inside a record) (record n 'name', byte offset o)",
 *   "<path>: truncated or corrupt gzip data (record n 'name', byte offset o)",
 *   "<path>: truncated or corrupt gzip header (byte offset 0)",
 *   "<path>: truncated bgzip file (the BGZF end-of-file marker block is missing) (...)",
 *   "<path>: read error: <strerror> (...)",
 *   "<path>: truncated 2bit header|index|record header|record data (...) (record n 'name',
 *    byte offset o)", "<path>: unsupported 2bit version v (byte offset 4)",
 *   "<path>: 2bit file has no records (record count 0) (byte offset 8)",
 *   "<path>: corrupt 2bit record: N|mask block ... (record n 'name', byte offset o)",
 *   "<path>: out of memory (allocating B bytes)".
 * A file whose first 4 bytes are not a 2bit magic is read as FASTA, so a file that is neither
 * fails as "not FASTA".  htslib's own stderr logging is silenced while loading. */
int hz_seqset_load(const char *path, hz_seqset *out, char *err, size_t errlen)
{
    loader L;
    memset(&L, 0, sizeof L);
    L.s = out;
    L.path = path ? path : "(null)";
    L.err = err;
    L.errlen = errlen;
    memset(out, 0, sizeof *out);
    if (err && errlen) err[0] = '\0';
    if (!path) return fail(&L, HZ_NO_REC, NULL, HZ_NO_OFF, "no file name given");
    out->path = strdup(path);
    if (!out->path) return fail_oom(&L, strlen(path) + 1);

    int rc = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        fail(&L, HZ_NO_REC, NULL, HZ_NO_OFF, "cannot open: %s", strerror(errno));
        goto out;
    }
    struct stat st;
    if (fstat(fd, &st) < 0) {
        fail(&L, HZ_NO_REC, NULL, HZ_NO_OFF, "cannot stat: %s", strerror(errno));
        close(fd);
        goto out;
    }
    if (S_ISDIR(st.st_mode)) {
        fail(&L, HZ_NO_REC, NULL, HZ_NO_OFF, "cannot read: %s", strerror(EISDIR));
        close(fd);
        goto out;
    }
    int regular = S_ISREG(st.st_mode);
    out->file_bytes = regular ? (uint64_t)st.st_size : 0;
    if (regular && st.st_size == 0) {
        fail(&L, HZ_NO_REC, NULL, HZ_NO_OFF, "empty file (0 bytes)");
        close(fd);
        goto out;
    }
    uint8_t magic[4] = {0, 0, 0, 0};
    if (regular) {
        ssize_t r = read_at(fd, 0, magic, 4);
        if (r < 0) {
            fail(&L, HZ_NO_REC, NULL, HZ_NO_OFF, "cannot read: %s", strerror(errno));
            close(fd);
            goto out;
        }
        if (r == 4 && ((magic[0] == 0x43 && magic[1] == 0x27 && magic[2] == 0x41 &&
                        magic[3] == 0x1a) ||
                       (magic[0] == 0x1a && magic[1] == 0x41 && magic[2] == 0x27 &&
                        magic[3] == 0x43))) {
            rc = load_2bit(&L, fd, magic);
            close(fd);
            goto out;
        }
    }
    /* FASTA (plain / gzip / bgzip); bgzf takes ownership of fd */
    int lvl = (int)hts_get_log_level();
    hts_set_log_level(HTS_LOG_OFF);
    errno = 0;
    rc = load_fasta(&L, fd, regular, magic[0] == 0x1f && magic[1] == 0x8b);
    hts_set_log_level((enum htsLogLevel)lvl);
out:
    if (rc != 0) {
        hz_seqset_free(out);
        return -1;
    }
    /* give back the slack of the geometric growth */
    if (L.cap_data > out->total + 4096) {
        uint8_t *d = realloc(out->data, out->total ? (size_t)out->total : 1);
        if (d) out->data = d;
    }
    return 0;
}

/* Free everything owned by s (path, names, offsets, lengths, data) and zero the struct.
 * Safe on a zeroed struct and on a partially filled one (names beyond n must be NULL or
 * within n).  No errors. */
void hz_seqset_free(hz_seqset *s)
{
    if (!s) return;
    if (s->name)
        for (size_t i = 0; i < s->n; i++) free(s->name[i]);
    free(s->name);
    free(s->off);
    free(s->len);
    if (!s->data_mapped) free(s->data);
    free(s->path);
    memset(s, 0, sizeof *s);
}
