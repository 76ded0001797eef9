/* seqio_2bit — the UCSC 2bit reader of hz_seqset_load (seqio.h, seqio_2bit.h).
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
#include "seqio_2bit.h"
#include "inread.h"
#include <stdio.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
static int tb_read_u32s(loader *L, hz_inread *R, uint64_t off, uint32_t cnt, int be, uint32_t **out,
                        size_t rec, const char *what)
{
    *out = NULL;
    if (cnt == 0) return 0;
    size_t bytes = (size_t)cnt * 4;
    uint8_t *raw = malloc(bytes);
    if (!raw) return hz_sq_fail_oom(L, bytes);
    ssize_t r = hz_inread_at(R, off, raw, bytes);
    if (r < 0) {
        free(raw);
        return hz_sq_fail(L, rec, NULL, off, "read error: %s", strerror(errno));
    }
    if ((size_t)r < bytes) {
        free(raw);
        return hz_sq_fail(L, rec, NULL, off, "truncated 2bit record header (%s)", what);
    }
    uint32_t *v = (uint32_t *)raw; /* decode in place: same size, forward order is safe */
    for (uint32_t i = 0; i < cnt; i++) v[i] = get32(raw + 4 * (size_t)i, be);
    *out = v;
    return 0;
}

/* One block list of a 2bit record header at *p: a count, then that many starts and sizes
 * (UCSC 2bit format); tail = bytes that must still follow the arrays.  Advances *p past the
 * list.  0, or -1 after one error (hz_sq_fail) naming record k, the offset and kind ("N",
 * "mask"). */
static int tb_blocks(loader *L, hz_inread *R, size_t k, int be, uint64_t fsize, uint64_t *p, uint64_t tail,
                     const char *kind, uint32_t *cnt, uint32_t **st, uint32_t **sz)
{
    uint8_t b4[4];
    char what[32];
    if (hz_inread_at(R, *p, b4, 4) != 4)
        return hz_sq_fail(L, k, NULL, *p, "truncated 2bit record header (%s block count)", kind);
    *cnt = get32(b4, be);
    *p += 4;
    if ((uint64_t)*cnt * 8 + tail > fsize - *p)
        return hz_sq_fail(L, k, NULL, *p, "truncated 2bit record header (%u %s blocks)", *cnt, kind);
    snprintf(what, sizeof what, "%s block starts", kind);
    if (tb_read_u32s(L, R, *p, *cnt, be, st, k, what)) return -1;
    *p += (uint64_t)*cnt * 4;
    snprintf(what, sizeof what, "%s block sizes", kind);
    if (tb_read_u32s(L, R, *p, *cnt, be, sz, k, what)) return -1;
    *p += (uint64_t)*cnt * 4;
    return 0;
}

/* The 16-byte header (magic, version, record count, reserved): *be (byte order), *count and
 * *osz (4 or 8: bytes of an index entry's offset).  0, or -1 after one error. */
static int tb_header(loader *L, hz_inread *R, const uint8_t magic[4], int *be, uint32_t *count, unsigned *osz)
{
    const uint64_t fsize = L->s->file_bytes;
    uint8_t hdr[16];
    *be = magic[0] == 0x1a; /* 1A 41 27 43 = big-endian; 43 27 41 1A = little-endian */
    ssize_t r = hz_inread_at(R, 0, hdr, 16);
    if (r < 0) return hz_sq_fail(L, HZ_NO_REC, NULL, 0, "read error: %s", strerror(errno));
    if (r < 16)
        return hz_sq_fail(L, HZ_NO_REC, NULL, (uint64_t)r,
                    "truncated 2bit header (%zd of 16 bytes)", r);
    uint32_t version = get32(hdr + 4, *be);
    *count = get32(hdr + 8, *be);
    if (version > 1)
        return hz_sq_fail(L, HZ_NO_REC, NULL, 4,
                    "unsupported 2bit version %u (only 0 and 1 are known)", version);
    if (*count == 0) return hz_sq_fail(L, HZ_NO_REC, NULL, 8, "2bit file has no records (record count 0)");
    *osz = version ? 8 : 4;
    /* each index entry takes at least 1 + osz bytes */
    if ((uint64_t)*count * (1 + *osz) > fsize - 16)
        return hz_sq_fail(L, HZ_NO_REC, NULL, fsize,
                    "truncated 2bit index (%u records need at least %llu bytes, file has %llu)",
                    *count, (unsigned long long)(16 + (uint64_t)*count * (1 + *osz)),
                    (unsigned long long)fsize);
    return 0;
}

/* The index: count entries of name length, name, record offset (osz bytes), read entry by
 * entry so that the reader stops at its end (inread.h).  Fills L->s->name[] (n = count) and
 * roff[].  0, or -1 after one error. */
static int tb_index(loader *L, hz_inread *R, uint32_t count, unsigned osz, int be, uint64_t *roff)
{
    hz_seqset *s = L->s;
    const uint64_t fsize = s->file_bytes;
    uint64_t ip = 16;
    ssize_t r;
    for (uint32_t k = 0; k < count; k++) {
        if (hz_sq_grow_records(L)) return -1;
        s->off[k] = s->len[k] = 0;
        s->name[k] = NULL;
        s->n = k + 1;
        uint8_t ib[8];
        r = hz_inread_at(R, ip, ib, 1);
        if (r < 1) {
            if (r < 0) return hz_sq_fail(L, k, "", ip, "read error: %s", strerror(errno));
            return hz_sq_fail(L, k, "", ip, "truncated 2bit index (name length missing)");
        }
        unsigned nl = ib[0];
        char *nm = malloc(nl + 1);
        if (!nm) return hz_sq_fail_oom(L, nl + 1);
        r = hz_inread_at(R, ip + 1, nm, nl);
        nm[r > 0 ? r : 0] = '\0';
        s->name[k] = nm;
        if (r < (ssize_t)nl) {
            if (r < 0) return hz_sq_fail(L, k, NULL, ip + 1, "read error: %s", strerror(errno));
            return hz_sq_fail(L, k, NULL, ip + 1, "truncated 2bit index (record name)");
        }
        for (unsigned j = 0; j < nl; j++)   /* a FASTA name ends at whitespace; .name and segment lines need none */
            if (is_space_c((unsigned char)nm[j]) || is_ctrl_bad((unsigned char)nm[j]) || !nm[j])
                return hz_sq_fail(L, k, NULL, ip + 1 + j, "2bit record name has byte 0x%02x (whitespace or a control byte)",
                     (unsigned char)nm[j]);
        ip += 1 + nl;
        r = hz_inread_at(R, ip, ib, osz);
        if (r < (ssize_t)osz) {
            if (r < 0) return hz_sq_fail(L, k, NULL, ip, "read error: %s", strerror(errno));
            return hz_sq_fail(L, k, NULL, ip, "truncated 2bit index (record offset)");
        }
        roff[k] = osz == 8 ? get64(ib, be) : get32(ib, be);
        ip += osz;
    }
    /* offsets are checked only once the whole index was read, so that a file cut inside the
     * index is reported as such */
    for (uint32_t k = 0; k < count; k++)
        if (roff[k] < 16 || roff[k] > fsize || fsize - roff[k] < 8)
            return hz_sq_fail(L, k, NULL, roff[k],
                 "truncated 2bit file or corrupt index: record offset %llu is beyond the "
                 "end of the file (%llu bytes)",
                 (unsigned long long)roff[k], (unsigned long long)fsize);
    return 0;
}

/* Pass 1: every record's sequence size (pread ahead of the hashing reader) -> s->off/len,
 * s->total and one allocation of s->data.  0, or -1 after one error. */
static int tb_sizes(loader *L, int fd, uint32_t count, int be, const uint64_t *roff)
{
    hz_seqset *s = L->s;
    const uint64_t fsize = s->file_bytes;
    uint64_t total = 0;
    for (uint32_t k = 0; k < count; k++) {
        uint8_t b4[4];
        if (hz_sq_read_at(fd, roff[k], b4, 4) != 4)
            return hz_sq_fail(L, k, NULL, roff[k], "truncated 2bit record header (sequence size)");
        uint32_t dna = get32(b4, be);
        /* packed bases must fit in the file at all (cheap sanity check before allocating) */
        if ((uint64_t)(dna / 4 + (dna % 4 != 0)) > fsize - roff[k])
            return hz_sq_fail(L, k, NULL, roff[k],
                 "truncated 2bit record data (sequence size %u needs %llu bytes of bases, "
                 "file has %llu bytes after the record start)",
                 dna, (unsigned long long)(dna / 4 + (dna % 4 != 0)),
                 (unsigned long long)(fsize - roff[k]));
        s->off[k] = total;
        s->len[k] = dna;
        total += dna;
    }
    if (hz_sq_grow_data(L, total ? total : 1)) return -1;
    s->total = total;
    return 0;
}

/* Packed bases to text: pbytes bytes at file offset p (record k, dna bases) into dst through
 * tab (byte -> 4 letters), HZ_IO_BLOCK bytes at a time via pk.  0, or -1 after one error. */
static int tb_bases(loader *L, hz_inread *R, size_t k, uint64_t p, uint32_t dna, uint8_t *dst,
                    const char tab[256][4], uint8_t *pk)
{
    uint64_t pbytes = dna / 4 + (dna % 4 != 0);
    uint64_t done_b = 0; /* packed bytes decoded */
    while (done_b < pbytes) {
        size_t want = pbytes - done_b < HZ_IO_BLOCK ? (size_t)(pbytes - done_b) : HZ_IO_BLOCK;
        ssize_t r = hz_inread_at(R, p + done_b, pk, want);
        if (r < 0) return hz_sq_fail(L, k, NULL, p + done_b, "read error: %s", strerror(errno));
        if ((size_t)r < want)
            return hz_sq_fail(L, k, NULL, p + done_b + (uint64_t)r,
                 "truncated 2bit record data (file ended inside the bases)");
        size_t full = want;
        uint64_t base0 = done_b * 4;
        if (done_b + want == pbytes && dna % 4) full--; /* last, partial byte */
        char *o = (char *)dst + base0;
        for (size_t i = 0; i < full; i++) memcpy(o + 4 * i, tab[pk[i]], 4);
        if (full < want) memcpy(o + 4 * full, tab[pk[full]], dna % 4);
        done_b += want;
    }
    return 0;
}

/* Pass 2, one record k at file offset roff: its N and mask block lists, its bases (tb_bases),
 * then N blocks written as 'N' and mask blocks lower-cased.  0, or -1 after one error. */
static int tb_record(loader *L, hz_inread *R, size_t k, uint64_t roff, int be, const char tab[256][4],
                     uint8_t *pk)
{
    hz_seqset *s = L->s;
    const uint64_t fsize = s->file_bytes;
    uint64_t p = roff;
    uint32_t dna = (uint32_t)s->len[k];
    uint8_t *dst = s->data + s->off[k];
    uint32_t ncnt, mcnt;
    uint32_t *nst = NULL, *nsz = NULL, *mst = NULL, *msz = NULL;
    int rc = -1;
    p += 4;   /* past the DNA size: N blocks, mask blocks (then 4 reserved bytes), packed bases */
    if (tb_blocks(L, R, k, be, fsize, &p, 8, "N", &ncnt, &nst, &nsz) ||
        tb_blocks(L, R, k, be, fsize, &p, 4, "mask", &mcnt, &mst, &msz)) goto done;
    p += 4; /* reserved */
    uint64_t pbytes = dna / 4 + (dna % 4 != 0);
    if (p > fsize || pbytes > fsize - p) {
        hz_sq_fail(L, k, NULL, p,
             "truncated 2bit record data (%llu bytes of packed bases expected, %llu present)",
             (unsigned long long)pbytes,
             (unsigned long long)(p > fsize ? 0 : fsize - p));
        goto done;
    }
    if (tb_bases(L, R, k, p, dna, dst, tab, pk)) goto done;
    for (uint32_t b = 0; b < ncnt; b++) {
        if ((uint64_t)nst[b] + nsz[b] > dna) {
            hz_sq_fail(L, k, NULL, roff + 8 + 4 * (uint64_t)b,
                 "corrupt 2bit record: N block %u (start %u, size %u) exceeds the sequence "
                 "length %u", b + 1, nst[b], nsz[b], dna);
            goto done;
        }
        memset(dst + nst[b], 'N', nsz[b]);
    }
    uint64_t mpos = roff + 8 + 8 * (uint64_t)ncnt + 4;
    for (uint32_t b = 0; b < mcnt; b++) {
        if ((uint64_t)mst[b] + msz[b] > dna) {
            hz_sq_fail(L, k, NULL, mpos + 4 * (uint64_t)b,
                 "corrupt 2bit record: mask block %u (start %u, size %u) exceeds the "
                 "sequence length %u", b + 1, mst[b], msz[b], dna);
            goto done;
        }
        /* the length in a local: q may alias msz[], which the loop would reload per byte */
        uint8_t *q = dst + mst[b];
        const uint32_t len = msz[b];
        for (uint32_t i = 0; i < len; i++) q[i] |= 0x20; /* ACGTN -> acgtn */
    }
    rc = 0;
done:
    free(nst), free(nsz), free(mst), free(msz);
    return rc;
}

/* header, index, pass 1 (sizes, one allocation), pass 2 (records in file order) */
static int load_2bit_from(loader *L, int fd, hz_inread *R, const uint8_t magic[4])
{
    int be = 0;
    uint32_t count = 0;
    unsigned osz = 4;
    L->s->kind = "2bit";
    if (tb_header(L, R, magic, &be, &count, &osz)) return -1;
    uint64_t *roff = malloc((size_t)count * sizeof *roff);
    if (!roff) return hz_sq_fail_oom(L, (uint64_t)count * 8);
    uint8_t *pk = NULL;
    int rc = -1;
    if (tb_index(L, R, count, osz, be, roff) || tb_sizes(L, fd, count, be, roff)) goto done;
    char tab[256][4];
    static const char nt[4] = {'T', 'C', 'A', 'G'};
    for (unsigned b = 0; b < 256; b++)
        for (unsigned j = 0; j < 4; j++) tab[b][j] = nt[(b >> (6 - 2 * j)) & 3];
    pk = malloc(HZ_IO_BLOCK);
    if (!pk) {
        hz_sq_fail_oom(L, HZ_IO_BLOCK);
        goto done;
    }
    for (uint32_t k = 0; k < count; k++)
        if (tb_record(L, R, k, roff[k], be, (const char (*)[4])tab, pk)) goto done;
    rc = 0;
done:
    free(pk);
    free(roff);
    return rc;
}

/* The file is read front to back once through R (hashed on the way); only pass 1's record sizes
 * are fetched ahead with pread. */
int hz_sq_load_2bit(loader *L, int fd, const uint8_t magic[4])
{
    hz_inread R;
    if (hz_inread_init(&R, fd)) return hz_sq_fail_oom(L, 1 << 20);
    int rc = load_2bit_from(L, fd, &R, magic);
    if (rc == 0 && hz_inread_finish(&R, L->s->sha256, &L->s->file_bytes) != 0)
        rc = hz_sq_fail(L, HZ_NO_REC, NULL, R.boff, "read error: %s", strerror(errno));
    hz_inread_free(&R);
    return rc;
}
