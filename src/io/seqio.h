/* seqio — read target/query genomes (FASTA, gzip/bgzip FASTA, UCSC 2bit v0/v1).
 *
 * Follows ../shared/spec/kegalign-hsp-spec.md §2.1 (record and name rules) and RULES.md
 * "names".  The file kind is detected from the first bytes (2bit magic 0x1A412743 in either
 * byte order, gzip magic 1f 8b, else plain text), never from the file name.
 *
 * Positions and lengths are 64-bit byte counts; sequences are stored back to back in one
 * buffer without separators (the plan stage inserts KegAlign's '&').
 */
#ifndef HZ_SEQIO_H
#define HZ_SEQIO_H
#include <stddef.h>
#include <stdint.h>

/* One genome file, fully loaded.
 * data[off[i] .. off[i]+len[i]) holds record i's bytes exactly as read (case kept; a 2bit N
 * block becomes 'N', a 2bit mask block lower case).  name[i] is a NUL-terminated copy of
 * the name bytes (the header after '>' up to the first isspace() byte; may be "").
 * total = sum of len[].  kind is "fasta", "fasta.gz" or "2bit" (static string). */
typedef struct {
    char *path;          /* as given by the user */
    const char *kind;
    size_t n;            /* number of records */
    char **name;
    uint64_t *off, *len;
    uint8_t *data;
    uint64_t total;
    uint64_t file_bytes; /* bytes of the file as read (for a regular file its size on disk) */
    char sha256[65];     /* sha256 hex of those bytes, taken while reading (inread.h); "" when
                          * not loaded.  The manifest records these: no input is read twice. */
    int data_mapped;     /* data lies in an index mapping (index.h): hz_seqset_free keeps it */
    /* FASTA bases that are not IUPAC nucleotide letters (A C G T U R Y S W K M B D H V N,
     * either case) nor '\r': X, digits, '*', '-', '.', blanks inside a line...  Kept as
     * bases, as kseq does (KegAlign's rule: they never match); counted for a note
     * (inputcheck.h).  other_rec/other_off/other_byte: the first one (0-based record, byte
     * offset in the decompressed stream).  Always 0 for 2bit. */
    uint64_t n_other;
    size_t other_rec;
    uint64_t other_off;
    uint8_t other_byte;
} hz_seqset;

/* Load every record of `path` into *out (zeroed first).
 * Returns 0 on success.  On any error returns -1, leaves *out empty (freed) and writes a
 * one-line message into err (at most errlen bytes, NUL-terminated) of the form
 *   "<path>: <what went wrong> (record <n> '<name>', byte offset <o>)"
 * naming the record and offset where they apply.  Errors: cannot open/read, empty file (0
 * bytes or no record), truncated or corrupt gzip, data before the first '>' that is not
 * FASTA (binary bytes, NUL), a '\r' in a header line not followed by '\n' (CR-only line
 * ends, which kseq would read as one header and no bases), 2bit bad magic/version,
 * truncated 2bit header/index/record, out of memory.  Never modifies the file. */
int hz_seqset_load(const char *path, hz_seqset *out, char *err, size_t errlen);

/* hz_seqset_load (spec §2.1; the same hz_seqset layout, 0-based byte offsets, errors and
 * messages) with BGZF blocks inflated on up to `threads` threads (1 or less: the calling one; at
 * most 16; issue 13 item 3).  The same records, bytes, digest, errors and messages for every
 * thread count. */
int hz_seqset_load_mt(const char *path, int threads, hz_seqset *out, char *err, size_t errlen);

/* Free everything owned by s and zero it; safe on a zeroed struct. */
void hz_seqset_free(hz_seqset *s);

#endif
