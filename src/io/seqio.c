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
 * The 2bit reader is in seqio_2bit.c (called from here, never calling back); both build records
 * with the helpers of seqrec.c.
 */
#include "seqio_impl.h"
#include "seqio_2bit.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "inread.h"
#include <htslib/bgzf.h>
#include <htslib/hts_log.h>

/* ------------------------------------------------------------------------------------------ */
/* FASTA (plain, gzip, bgzip) through htslib BGZF.                                              */

enum { ST_PRE, ST_NAME, ST_COMMENT, ST_LSTART, ST_SEQ };

/* byte classes inside a sequence line: CL_SEQ an IUPAC nucleotide letter (A C G T U R Y S W
 * K M B D H V N, either case) or '\r'; CL_ODD any other byte kseq keeps as a base (X, digits,
 * '*', '-', '.', blanks inside a line, ...): kept too, but counted (hz_seqset.n_other) */
enum { CL_SEQ = 0, CL_NL = 1, CL_BAD = 2, CL_ODD = 3 };

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
        return hz_sq_fail(L, HZ_NO_REC, NULL, off, "not FASTA: binary byte 0x%02x", c);
    size_t rec = L->s->n - 1;
    const char *nm = NULL;
    if (F->st == ST_NAME) {
        F->nbuf[F->nlen] = '\0';
        nm = F->nbuf;
    }
    return hz_sq_fail(L, rec, nm, off, "not FASTA: binary byte 0x%02x", c);
}

/* A header byte ('>' or '@') at stream offset off opens record s->n. */
static int fa_start_record(fa_state *F)
{
    loader *L = F->L;
    hz_seqset *s = L->s;
    if (s->n > 0) s->len[s->n - 1] = s->total - s->off[s->n - 1];
    if (hz_sq_grow_records(L)) return -1;
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
    if (!nm) return hz_sq_fail_oom(L, F->nlen + 1);
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
    return hz_sq_fail(F->L, F->L->s->n - 1, NULL, F->cr_off,
                "carriage return without a line feed in the header line (CR-only line ends: "
                "KegAlign would read no bases; convert with tr '\\r' '\\n')");
}

/* The end of the run of plain bases (A C G T N, either case) that starts at buf[i], found
 * 16 bytes at a time, or the start of the first 16 bytes that are not all plain (the byte
 * loop of fa_feed goes on from there).  Plain bases are CL_SEQ; '\n' (0x0a | 0x20 = '*') is
 * not plain. */
typedef uint8_t fa_v16 __attribute__((vector_size(16)));
static size_t fa_plain_run(const uint8_t *buf, size_t i, size_t n)
{
    while (i + 16 <= n) {
        fa_v16 v;
        memcpy(&v, buf + i, 16);
        fa_v16 l = v | 0x20;
        fa_v16 m = (fa_v16)((l == 'a') | (l == 'c') | (l == 'g') | (l == 't') | (l == 'n'));
        uint64_t a, b;
        memcpy(&a, &m, 8);
        memcpy(&b, (const uint8_t *)&m + 8, 8);
        if ((a & b) != UINT64_MAX) break;
        i += 16;
    }
    return i;
}

/* Feed n bytes of the decompressed stream.  0 or -1 (err set). */
static int fa_feed(fa_state *F, const uint8_t *buf, size_t n)
{
    loader *L = F->L;
    hz_seqset *s = L->s;
    size_t i = 0;
    /* the most bases these bytes can add: ST_SEQ stores without asking */
    if (hz_sq_grow_data(L, s->total + n)) return -1;
    while (i < n) {
        unsigned c = buf[i];
        switch (F->st) {
        case ST_PRE:
            if (c == '>' || c == '@') {
                if (fa_start_record(F)) return -1;
            } else if (is_ctrl_bad(c)) {
                return fa_bad_byte(F, c, F->pos + i);
            } else if (!is_space_c(c)) {
                return hz_sq_fail(L, HZ_NO_REC, NULL, F->pos + i,
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
                    if (!nb) return hz_sq_fail_oom(L, nc);
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
                return hz_sq_fail(L, s->n - 1, NULL, F->pos + i,
                            "FASTQ not supported ('+' line inside a record)");
            if (c == '\n') {
                i++;
                break;
            }
            if (is_ctrl_bad(c)) return fa_bad_byte(F, c, F->pos + i);
            if (F->cls[c] == CL_ODD) fa_other(F, c, F->pos + i);
            s->data[s->total++] = (uint8_t)c;   /* room: see the top of fa_feed */
            F->line_len = 1;
            F->st = ST_SEQ;
            i++;
            break;
        case ST_SEQ: {
            /* The bulk of a FASTA.  A line feed followed by a CL_SEQ byte stays here: that is
             * all ST_LSTART would do with the byte (store it, line length 1). */
            const uint8_t *cls = F->cls;
            for (;;) {
                size_t j = i;
                for (;;) {   /* 16 bytes at a time, and byte by byte through a window that is not */
                    j = fa_plain_run(buf, j, n);
                    size_t lim = n - j > 16 ? j + 16 : n;
                    while (j < lim && cls[buf[j]] == CL_SEQ) j++;
                    if (j == n) break;
                    if (j == lim) continue;   /* 16 sequence bytes, some not plain: try again */
                    if (cls[buf[j]] != CL_ODD) break;
                    fa_other(F, buf[j], F->pos + j);
                    j++;
                }
                size_t k = j - i;
                if (k) {   /* room: fa_feed's hz_sq_grow_data */
                    memcpy(s->data + s->total, buf + i, k);
                    s->total += k;
                    F->line_len += k;
                }
                i = j;
                if (j == n) break;
                if (cls[buf[j]] == CL_BAD) return fa_bad_byte(F, buf[j], F->pos + j);
                fa_trim_cr(F);
                i = j + 1;
                F->line_len = 0;
                if (i == n || cls[buf[i]] != CL_SEQ) {
                    F->st = ST_LSTART;
                    break;
                }
            }
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
        return hz_sq_fail(L, HZ_NO_REC, NULL, HZ_NO_OFF, "no FASTA record (no '>' header line)");
    s->len[s->n - 1] = s->total - s->off[s->n - 1];
    return 0;
}

/* The decompressing reader of the stream on sfd, one of: igzip for plain gzip (when built with
 * ISA-L; seqio_gzip.c); BGZF inflated on L->threads threads (with ISA-L, which its switch to
 * plain gzip needs; seqio_bgzf.c); else htslib's BGZF reader (plain gzip without ISA-L, a header
 * htslib calls BGZF at open but not when reading it, bytes as they are).  0 with *fp, *gz or
 * *bz set, or -1 (err set; sfd closed). */
typedef struct { BGZF *fp; hz_sq_gz *gz; hz_sq_bgzf *bz; } fa_stream;

static int open_stream(loader *L, int sfd, fa_stream *S)
{
    hFILE *h = hdopen(sfd, "r");
    if (!h) {
        hz_sq_fail(L, HZ_NO_REC, NULL, HZ_NO_OFF, "cannot open for reading: %s", strerror(errno ? errno : EIO));
        close(sfd);
        return -1;
    }
#if HSPZ_HAVE_ISAL
    uint8_t hdr[18];
    if (hpeek(h, hdr, sizeof hdr) == (ssize_t)sizeof hdr && hz_sq_gz_plain(hdr, sizeof hdr)) {
        if (hz_sq_gz_open(&S->gz, h) == 0) return 0;
        hclose_abruptly(h);
        return hz_sq_fail_oom(L, (uint64_t)2 << 16);   /* its two 64 KiB buffers */
    }
    if (hz_sq_bgzf_header(hdr, sizeof hdr) == 0) {   /* hpeek gave 18 bytes: not 0 otherwise */
        if (hz_sq_bgzf_open(&S->bz, h, L->threads) == 0) return 0;
        hclose_abruptly(h);
        return hz_sq_fail_oom(L, (uint64_t)32 << 16);   /* a batch's blocks */
    }
#endif
    if (!(S->fp = bgzf_hopen(h, "r"))) {
        hz_sq_fail(L, HZ_NO_REC, NULL, HZ_NO_OFF, "cannot open for reading: %s", strerror(errno ? errno : EIO));
        hclose_abruptly(h);
        return -1;
    }
    return 0;
}

/* close what open_stream opened (any may be NULL) and clear S: 0, or < 0 as bgzf_close / hclose */
static int close_stream(fa_stream *S)
{
    int r = 0;
#if HSPZ_HAVE_ISAL
    if (S->gz) r = hz_sq_gz_close(S->gz);
    if (S->bz) r = hz_sq_bgzf_close(S->bz);
#endif
    if (S->fp) r = bgzf_close(S->fp);
    memset(S, 0, sizeof *S);
    return r;
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
    int rc = -1, comp = 0, fed = 0;
    fa_stream S = { NULL, NULL, NULL };
    hz_sq_pipe *pipe = NULL;
    hz_infeed feed; /* the file's bytes reach the reader through it, hashed on the way (inread.h) */
    if (!F.nbuf) {
        hz_sq_fail_oom(L, F.ncap);
        close(fd);
        goto done;
    }
    int sfd = hz_infeed_start(&feed, fd);
    if (sfd < 0) {
        hz_sq_fail(L, HZ_NO_REC, NULL, HZ_NO_OFF, "cannot read: %s", strerror(errno));
        goto done;
    }
    fed = 1;
    if (open_stream(L, sfd, &S)) goto done;
    comp = S.gz ? 1 : S.bz ? 2 : bgzf_compression(S.fp);
    s->kind = comp == 0 ? "fasta" : "fasta.gz";
    if (gz_magic && comp == 0) { /* htslib did not recognise the header */
        s->kind = "fasta.gz";
        hz_sq_fail(L, HZ_NO_REC, NULL, 0, "truncated or corrupt gzip header");
        goto done;
    }
    /* first guess for the data buffer: the file size (exact upper bound when uncompressed) */
    if (is_regular && s->file_bytes > 0) {
        uint64_t guess = s->file_bytes;
        if (comp != 0) guess = guess < (UINT64_MAX / 4) ? guess * 4 : guess;
        if (hz_sq_grow_data(L, guess)) goto done;
    }
    /* decoding overlaps parsing (seqio_pipe.c); the blocks and errors are bgzf_read's */
    if (hz_sq_pipe_start(&pipe, S.fp, S.gz, S.bz, sfd)) {
        hz_sq_fail_oom(L, 4 * HZ_IO_BLOCK);
        goto done;
    }
    for (;;) {
        const uint8_t *buf;
        ssize_t r = hz_sq_pipe_next(pipe, &buf);
        if (r < 0) {
            size_t rec = s->n ? s->n - 1 : HZ_NO_REC;
            const char *nm = (F.st == ST_NAME && s->n) ? (F.nbuf[F.nlen] = '\0', F.nbuf) : NULL;
            if (comp == 0)
                hz_sq_fail(L, rec, nm, F.pos, "read error: %s", strerror(errno ? errno : EIO));
            else if (F.pos == 0)   /* the first block of decompressed data already failed: no record, no offset */
                hz_sq_fail(L, HZ_NO_REC, NULL, HZ_NO_OFF, "truncated or corrupt gzip data (within its first %zu bytes of decompressed data)",
                           (size_t)HZ_IO_BLOCK);
            else
                hz_sq_fail(L, rec, nm, F.pos, "truncated or corrupt gzip data");
            goto done;
        }
        if (r == 0) break;
        if (F.pos == 0 && r >= 4 && buf[0] == 0x43 && buf[1] == 0x27 && buf[2] == 0x41 &&
            buf[3] == 0x1a) {
            hz_sq_fail(L, HZ_NO_REC, NULL, 0,
                 is_regular ? "compressed 2bit files are not supported (decompress first)"
                            : "2bit input must be a regular file (not a pipe)");
            goto done;
        }
        if (F.pos == 0 && r >= 4 && buf[0] == 0x1a && buf[1] == 0x41 && buf[2] == 0x27 &&
            buf[3] == 0x43) {
            hz_sq_fail(L, HZ_NO_REC, NULL, 0,
                 is_regular ? "compressed 2bit files are not supported (decompress first)"
                            : "2bit input must be a regular file (not a pipe)");
            goto done;
        }
        if (fa_feed(&F, buf, (size_t)r)) goto done;
    }
    /* htslib read the stream to its end: the rest of the file is hashed (the feeder ends) */
    hz_sq_pipe_stop(pipe);
    pipe = NULL;
    int crc = close_stream(&S);
    uint8_t tail[28];
    size_t ntail = 0;
    fed = 0;
    if (hz_infeed_finish(&feed, 1, s->sha256, &s->file_bytes, tail, &ntail) != 0) {
        hz_sq_fail(L, HZ_NO_REC, NULL, F.pos, "read error: %s", strerror(errno));
        goto done;
    }
    if (crc < 0) {
        hz_sq_fail(L, HZ_NO_REC, NULL, F.pos, "error closing the input (corrupt gzip data?)");
        goto done;
    }
    /* A BGZF file cut exactly at a block boundary decompresses without error; its missing
     * end-of-file marker block (the file's last 28 bytes) is the only sign of the truncation. */
    static const uint8_t bgzf_eof[28] = { 0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, 0x42, 0x43,
                                          2, 0, 0x1b, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    if (is_regular && comp == 2 && (ntail != 28 || memcmp(tail, bgzf_eof, 28) != 0)) {
        size_t rec = s->n ? s->n - 1 : HZ_NO_REC;
        const char *nm = (F.st == ST_NAME && s->n) ? (F.nbuf[F.nlen] = '\0', F.nbuf) : NULL;
        hz_sq_fail(L, rec, nm, F.pos, "truncated bgzip file (the BGZF end-of-file marker block is missing)");
        goto done;
    }
    if (F.pos == 0) {
        hz_sq_fail(L, HZ_NO_REC, NULL, HZ_NO_OFF, "empty file (no data%s)",
             s->kind[5] ? " after decompression" : "");
        goto done;
    }
    if (fa_finish(&F)) goto done;
    rc = 0;
done:
    hz_sq_pipe_stop(pipe);
    close_stream(&S);
    if (fed) hz_infeed_finish(&feed, 0, NULL, NULL, NULL, NULL);
    free(F.nbuf);
    return rc;
}

/* htslib's log level is one per process and the target and query load in parallel: the first
 * loader turns it off, the last one puts it back (a plain save/restore per load let a load
 * that ended first turn the logging on under the other, whose errors then printed). */
static void hts_quiet(int on)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static int users;
    static enum htsLogLevel saved;
    pthread_mutex_lock(&lock);
    if (on && users++ == 0) {
        saved = hts_get_log_level();
        hts_set_log_level(HTS_LOG_OFF);
    } else if (!on && --users == 0) {
        hts_set_log_level(saved);
    }
    pthread_mutex_unlock(&lock);
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
    return hz_seqset_load_mt(path, 1, out, err, errlen);
}

int hz_seqset_load_mt(const char *path, int threads, hz_seqset *out, char *err, size_t errlen)
{
    loader L;
    memset(&L, 0, sizeof L);
    L.threads = threads;
    L.s = out;
    L.path = path ? path : "(null)";
    L.err = err;
    L.errlen = errlen;
    memset(out, 0, sizeof *out);
    if (err && errlen) err[0] = '\0';
    if (!path) return hz_sq_fail(&L, HZ_NO_REC, NULL, HZ_NO_OFF, "no file name given");
    out->path = strdup(path);
    if (!out->path) return hz_sq_fail_oom(&L, strlen(path) + 1);

    int rc = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        hz_sq_fail(&L, HZ_NO_REC, NULL, HZ_NO_OFF, "cannot open: %s", strerror(errno));
        goto out;
    }
    struct stat st;
    if (fstat(fd, &st) < 0) {
        hz_sq_fail(&L, HZ_NO_REC, NULL, HZ_NO_OFF, "cannot stat: %s", strerror(errno));
        close(fd);
        goto out;
    }
    if (S_ISDIR(st.st_mode)) {
        hz_sq_fail(&L, HZ_NO_REC, NULL, HZ_NO_OFF, "cannot read: %s", strerror(EISDIR));
        close(fd);
        goto out;
    }
    int regular = S_ISREG(st.st_mode);
    out->file_bytes = regular ? (uint64_t)st.st_size : 0;
    if (regular && st.st_size == 0) {
        hz_sq_fail(&L, HZ_NO_REC, NULL, HZ_NO_OFF, "empty file (0 bytes)");
        close(fd);
        goto out;
    }
    uint8_t magic[4] = {0, 0, 0, 0};
    if (regular) {
        ssize_t r = hz_sq_read_at(fd, 0, magic, 4);
        if (r < 0) {
            hz_sq_fail(&L, HZ_NO_REC, NULL, HZ_NO_OFF, "cannot read: %s", strerror(errno));
            close(fd);
            goto out;
        }
        if (r == 4 && ((magic[0] == 0x43 && magic[1] == 0x27 && magic[2] == 0x41 &&
                        magic[3] == 0x1a) ||
                       (magic[0] == 0x1a && magic[1] == 0x41 && magic[2] == 0x27 &&
                        magic[3] == 0x43))) {
            rc = hz_sq_load_2bit(&L, fd, magic);
            close(fd);
            goto out;
        }
    }
    /* FASTA (plain / gzip / bgzip); bgzf takes ownership of fd */
    hts_quiet(1);
    errno = 0;
    rc = load_fasta(&L, fd, regular, magic[0] == 0x1f && magic[1] == 0x8b);
    hts_quiet(0);
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
