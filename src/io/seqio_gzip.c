/* seqio_gzip — plain gzip input inflated with ISA-L's igzip (issue 13 item 3: "parallel decode
 * of gzip/bgzip input").
 *
 * htslib inflates a plain-gzip FASTA (not BGZF) with zlib on one thread, at about 200 MB/s of
 * output here: 0.3 s for the large Zymoseptoria set's 131 Mbp query, while the GPU waits.
 * igzip inflates the same stream about twice as fast, streaming, in bounded memory.  BGZF
 * input, and any stream htslib does not read as plain gzip, stay with htslib (seqio.c decides
 * with hz_sq_gz_plain).
 *
 * The reader gives what bgzf_read gives on the same bytes, call for call: the stream's bytes
 * (members concatenated, as gzip -d and htslib read them: after a member's trailer any further
 * byte must start another member), decoded in blocks of 64 KiB as htslib decodes them, and -1
 * for a call that needs a block in which truncated or corrupt data was found, with that block
 * and the call's bytes dropped as bgzf_read drops them (so the garbage of a corrupt stream
 * does not reach the parser before the error, and the error's offset is htslib's).  Member
 * headers are parsed here, as zlib parses them (reserved flag bits refused, FHCRC checked),
 * since igzip needs a whole header within one call; igzip checks each trailer's CRC-32 and
 * length.  One difference is
 * known: igzip decodes a deflate block whose Huffman code is incomplete, which zlib refuses;
 * the member's CRC-32 and length must still match.  tests/unit/test_gzip.c holds the two
 * readers to the same bytes and verdicts.  Internal to the seqio module (seqio_impl.h).
 */
#include "seqio_impl.h"

#if HSPZ_HAVE_ISAL
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define GZ_IN ((size_t)1 << 16)    /* compressed bytes per hread, as htslib's reads */
#define GZ_OUT ((uint32_t)1 << 16) /* decompressed bytes per block, as htslib's gzip blocks */

/* where a member's header parse stands (RFC 1952 §2.3) */
enum { H_FIXED, H_XLEN, H_EXTRA, H_NAME, H_COMMENT, H_HCRC, H_DONE };

struct hz_sq_gz {
    hFILE *h;
    struct inflate_state st;
    uint8_t *in;
    uint8_t *ub;     /* the current block of decompressed bytes: ub[uoff..ulen) not yet read */
    uint32_t ulen, uoff;
    int in_member;   /* a member is open (header being read, or deflate data and trailer) */
    int hs;          /* its header state (H_*) */
    uint8_t hb[12];  /* fixed header bytes, XLEN, then FHCRC */
    uint32_t hn;     /* bytes of hb filled in the current state, or bytes left of FEXTRA */
    uint32_t hcrc;   /* CRC-32 of the header bytes so far */
    int eof;         /* hread gave 0: no input after st.next_in[0..avail_in) */
    int bad;         /* an error was found: -1 from now on */
    int err;         /* its errno */
};

int hz_sq_gz_plain(const uint8_t *h, size_t n)
{
    /* htslib's open-time test (bgzf.c bgzf_compression): gzip magic and deflate; BGZF when
     * FEXTRA is set and the extra field starts with the 'BC' subfield of length 2 */
    if (n < 18 || h[0] != 0x1f || h[1] != 0x8b || h[2] != 8) return 0;
    int bgzf = (h[3] & 4) && h[12] == 'B' && h[13] == 'C' && h[14] == 2 && h[15] == 0;
    return !bgzf;
}

int hz_sq_gz_open(hz_sq_gz **out, hFILE *h)
{
    hz_sq_gz *g = calloc(1, sizeof *g);
    *out = NULL;
    if (!g || !(g->in = malloc(GZ_IN)) || !(g->ub = malloc(GZ_OUT))) {
        if (g) free(g->in);
        free(g);
        return -1;
    }
    g->h = h;
    isal_inflate_init(&g->st);
    *out = g;
    return 0;
}

/* more compressed input when none is left: 0, or -1 with g->bad set */
static int gz_fill(hz_sq_gz *g)
{
    if (g->st.avail_in || g->eof) return 0;
    ssize_t r = hread(g->h, g->in, GZ_IN);
    if (r < 0) { g->bad = 1; g->err = errno ? errno : EIO; return -1; }
    if (r == 0) g->eof = 1;
    g->st.next_in = g->in;
    g->st.avail_in = (uint32_t)r;
    return 0;
}

/* copy input into hb[off + hn .. off + want): 1 when those want bytes are all there */
static int gz_take(hz_sq_gz *g, uint32_t off, uint32_t want, uint32_t *used)
{
    uint32_t k = want - g->hn < g->st.avail_in ? want - g->hn : g->st.avail_in;
    memcpy(g->hb + off + g->hn, g->st.next_in, k);
    g->hn += k;
    *used = k;
    return g->hn == want;
}

/* The state after the header field st (the next field FLG asks for). */
static int gz_next_field(int st, unsigned flg)
{
    if (st < H_XLEN && (flg & 4)) return H_XLEN;
    if (st < H_NAME && (flg & 8)) return H_NAME;
    if (st < H_COMMENT && (flg & 16)) return H_COMMENT;
    if (st < H_HCRC && (flg & 2)) return H_HCRC;
    return H_DONE;
}

/* Parse the member header from the input at hand (RFC 1952 §2.3, with zlib's checks: magic,
 * method 8, no reserved flag bit, the FHCRC).  1 when it is complete, 0 when more input is
 * needed, -1 when it is bad (g->bad set). */
static int gz_header(hz_sq_gz *g)
{
    while (g->hs != H_DONE && g->st.avail_in) {
        const uint8_t *p = g->st.next_in;
        uint32_t used = 0;
        int st = g->hs;
        unsigned flg = g->hb[3];
        if (st == H_FIXED) {   /* ID1 ID2 CM FLG MTIME XFL OS */
            if (gz_take(g, 0, 10, &used)) {
                flg = g->hb[3];
                if (g->hb[0] != 0x1f || g->hb[1] != 0x8b || g->hb[2] != 8 || (flg & 0xe0)) goto bad;
                g->hs = gz_next_field(H_FIXED, flg);
                g->hn = 0;
            }
        } else if (st == H_XLEN) {   /* XLEN, little-endian, then that many bytes */
            if (gz_take(g, 10, 2, &used)) {
                g->hn = (uint32_t)g->hb[10] | (uint32_t)g->hb[11] << 8;
                g->hs = g->hn ? H_EXTRA : gz_next_field(H_EXTRA, flg);
            }
        } else if (st == H_EXTRA) {
            used = g->hn < g->st.avail_in ? g->hn : g->st.avail_in;
            g->hn -= used;
            if (!g->hn) g->hs = gz_next_field(H_EXTRA, flg);
        } else if (st == H_NAME || st == H_COMMENT) {   /* zero-terminated */
            const uint8_t *z = memchr(p, 0, g->st.avail_in);
            used = z ? (uint32_t)(z - p) + 1 : g->st.avail_in;
            if (z) { g->hs = gz_next_field(st, flg); g->hn = 0; }
        } else if (gz_take(g, 10, 2, &used)) {   /* H_HCRC: low 16 bits of the header's CRC-32 */
            if (((uint32_t)g->hb[10] | (uint32_t)g->hb[11] << 8) != (g->hcrc & 0xffffu)) goto bad;
            g->hs = H_DONE;
        }
        if (st != H_HCRC) g->hcrc = crc32_gzip_refl(g->hcrc, (uint8_t *)p, (uint64_t)used);
        g->st.next_in += used;
        g->st.avail_in -= used;
    }
    return g->hs == H_DONE;
bad:
    g->bad = 1;
    g->err = EIO;
    return -1;
}

/* The next block of up to GZ_OUT decompressed bytes into g->ub, as htslib's
 * inflate_gzip_block fills its block (across member boundaries): 0 (g->ulen 0 at the end),
 * or -1 with g->bad set. */
static int gz_block(hz_sq_gz *g)
{
    g->uoff = g->ulen = 0;
    while (g->ulen < GZ_OUT && !g->bad) {
        if (gz_fill(g)) break;
        if (!g->in_member) {
            if (!g->st.avail_in) break;   /* the end of the input after a whole member: the end */
            g->in_member = 1;
            g->hs = H_FIXED; g->hn = 0; g->hcrc = 0;
        }
        if (g->hs != H_DONE) {
            int r = gz_header(g);
            if (r < 0) break;
            if (!r) {
                if (g->eof && !g->st.avail_in) { g->bad = 1; g->err = EIO; }   /* cut inside the header */
                continue;
            }
            /* deflate data, then the trailer's CRC-32 and length, checked by igzip */
            isal_inflate_reset(&g->st);
            g->st.crc_flag = ISAL_GZIP_NO_HDR_VER;
        }
        g->st.next_out = g->ub + g->ulen;
        g->st.avail_out = GZ_OUT - g->ulen;
        int r = isal_inflate(&g->st);
        if (r < 0) { g->bad = 1; g->err = EIO; break; }
        g->ulen = GZ_OUT - g->st.avail_out;
        if (g->st.block_state == ISAL_BLOCK_FINISH) g->in_member = 0;
        else if (!g->st.avail_in && g->eof && g->st.avail_out) { g->bad = 1; g->err = EIO; }   /* truncated */
    }
    return g->bad ? -1 : 0;
}

ssize_t hz_sq_gz_read(hz_sq_gz *g, void *buf, size_t n)
{
    uint8_t *o = buf;
    size_t got = 0;
    if (g->bad) { errno = g->err; return -1; }
    while (got < n) {
        if (g->uoff == g->ulen) {
            /* as bgzf_read: a block that fails drops what this call copied */
            if (gz_block(g)) { errno = g->err; return -1; }
            if (!g->ulen) break;
        }
        size_t k = g->ulen - g->uoff < n - got ? g->ulen - g->uoff : n - got;
        memcpy(o + got, g->ub + g->uoff, k);
        g->uoff += (uint32_t)k;
        got += k;
    }
    return (ssize_t)got;
}

int hz_sq_gz_close(hz_sq_gz *g)
{
    if (!g) return 0;
    int r = hclose(g->h);
    free(g->in);
    free(g->ub);
    free(g);
    return r;
}
#endif
