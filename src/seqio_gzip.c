/* seqio_gzip — plain gzip input inflated with ISA-L's igzip (issue 13 item 3: "parallel decode
 * of gzip/bgzip input").
 *
 * htslib inflates a plain-gzip FASTA (not BGZF) with zlib on one thread, at about 200 MB/s of
 * output here: 0.5 s for the large Zymoseptoria set's 131 Mbp query, while the GPU waits.
 * igzip inflates the same stream at about three times that rate, streaming, in bounded memory.
 * BGZF input, and any header htslib would not inflate as plain gzip, stay with htslib
 * (seqio.c decides with hz_sq_gz_plain).
 *
 * The reader gives what bgzf_read gives on the same bytes: the stream's bytes (members
 * concatenated, as gzip -d and htslib read them: after a member's trailer any further byte
 * must start another member), 0 at the end, -1 for truncated or corrupt data (a bad deflate
 * stream, a CRC-32 or length that does not match, a bad header, bytes after a member that are
 * not one).  One difference, by design: the bytes decoded before an error are delivered
 * first, so the loader names the error's offset instead of the last 1 MiB block boundary.
 * tests/unit/test_seqio.c holds the two readers to the same bytes and the same verdicts.
 * Internal to the seqio module (seqio_impl.h).
 */
#include "seqio_impl.h"

#if HSPZ_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define GZ_IN ((size_t)1 << 18)   /* compressed bytes per hread */

struct hz_sq_gz {
    hFILE *h;
    struct inflate_state st;
    uint8_t *in;
    int in_member;   /* a member is open (its trailer not yet checked) */
    int eof;         /* hread gave 0: no input after st.next_in[0..avail_in) */
    int bad;         /* an error was found: -1 from now on (after the bytes before it) */
    int err;         /* its errno */
};

int hz_sq_gz_plain(const uint8_t *h, size_t n)
{
    /* htslib's test (bgzf.c check_header): gzip magic and deflate; BGZF adds FEXTRA with a
     * 6-byte extra field holding the 'BC' subfield */
    if (n < 18 || h[0] != 0x1f || h[1] != 0x8b || h[2] != 8) return 0;
    int bgzf = (h[3] & 4) && h[10] == 6 && h[11] == 0 && h[12] == 'B' && h[13] == 'C' && h[14] == 2 && h[15] == 0;
    return !bgzf;
}

int hz_sq_gz_open(hz_sq_gz **out, hFILE *h)
{
    hz_sq_gz *g = calloc(1, sizeof *g);
    *out = NULL;
    if (!g || !(g->in = malloc(GZ_IN))) { free(g); return -1; }
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

/* at least k compressed bytes at st.next_in unless the input ends first (the bytes left
 * move to the front of the buffer): 0, or -1 with g->bad set */
static int gz_need(hz_sq_gz *g, size_t k)
{
    if (g->st.avail_in >= k || g->eof) return 0;
    memmove(g->in, g->st.next_in, g->st.avail_in);
    g->st.next_in = g->in;
    while (g->st.avail_in < k && !g->eof) {
        ssize_t r = hread(g->h, g->in + g->st.avail_in, GZ_IN - g->st.avail_in);
        if (r < 0) { g->bad = 1; g->err = errno ? errno : EIO; return -1; }
        if (r == 0) g->eof = 1;
        g->st.avail_in += (uint32_t)r;
    }
    return 0;
}

ssize_t hz_sq_gz_read(hz_sq_gz *g, void *buf, size_t n)
{
    uint8_t *o = buf;
    size_t got = 0;
    if (n > UINT32_MAX) n = UINT32_MAX;
    while (got < n && !g->bad) {
        if (gz_fill(g)) break;
        if (!g->in_member) {
            if (!g->st.avail_in) break;   /* the end of the input after a whole member: the end */
            /* zlib refuses a header with a reserved flag bit (FLG bits 5-7); igzip does not */
            if (gz_need(g, 4)) break;
            if (g->st.avail_in >= 4 && (g->st.next_in[3] & 0xe0)) { g->bad = 1; g->err = EIO; break; }
            isal_inflate_reset(&g->st);
            g->st.crc_flag = ISAL_GZIP;   /* parse the header, check the trailer's CRC-32 and length */
            g->in_member = 1;
        }
        g->st.next_out = o + got;
        g->st.avail_out = (uint32_t)(n - got);
        int r = isal_inflate(&g->st);
        got = n - g->st.avail_out;
        if (r < 0) { g->bad = 1; g->err = EIO; break; }
        if (g->st.block_state == ISAL_BLOCK_FINISH) g->in_member = 0;
        else if (!g->st.avail_in && g->eof && g->st.avail_out) { g->bad = 1; g->err = EIO; }   /* truncated */
    }
    if (got) return (ssize_t)got;
    if (g->bad) { errno = g->err; return -1; }
    return 0;
}

int hz_sq_gz_close(hz_sq_gz *g)
{
    if (!g) return 0;
    int r = hclose(g->h);
    free(g->in);
    free(g);
    return r;
}
#endif
