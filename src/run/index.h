/* index — a target's blocks prepared for seeding: extension codes and seed table per block,
 * built in memory (hz_tblock_build) or stored once in an index file and memory-mapped on use
 * (`hspz index -r T -o T.hzi`, `hspz run --index T.hzi`; docs/scale-out.md "Target index").
 *
 * Blocks are spec §2.4's (prefix-free names: a target prefix is applied at run time), codes
 * spec §2.2, seed tables spec §3.3.  A table depends on the seed shape's care positions, the
 * step and the block bytes only, so an index serves any other run setting.
 *
 * File layout (format 1, little-endian, every section 4096-aligned):
 *   bytes 0..63   prefix: "HSPZIDX\n", u32 format, u32 byte-order mark 0x01020304,
 *                 u64 header offset, u64 header length, 32-byte sha256 of the header text
 *   sections      record lengths (u64 each), record names (NUL-terminated, input order),
 *                 record bytes (as read: case kept), then per block its codes (u8 x len),
 *                 bucket offsets (u32 x 4^K+1, direct mode) and positions (u32 x n), or the
 *                 sorted (kmer << 32 | pos) array (u64 x n)
 *   header        JSON: kind "hspz-index", format, hspz version, settings (seed, normalised
 *                 pattern, step, seq_block_size), target (path, format, bytes, sha256,
 *                 records, bases), blocks, and every section's offset, length and the sha256
 *                 of each 16 MiB piece.
 * Opening checks the prefix, the header's sha256 and every piece's sha256 (in parallel).
 */
#ifndef HZ_INDEX_H
#define HZ_INDEX_H
#include <stddef.h>
#include <stdint.h>
#include "plan.h"
#include "seed.h"
#include "seqio.h"
#include "options.h"

struct hz_backend;

/* One target block ready for seeding. */
typedef struct {
    uint8_t *codes;        /* extension codes [0, len) (spec §2.2) */
    uint32_t len;
    hz_seedtable tab;      /* spec §3.3 */
    int mapped;            /* codes and tab lie in an index mapping: not freed */
    int encoded_only;      /* codes from hz_tblock_encode, no table yet */
} hz_tblock;

/* Only block r's codes (spec §2.2; on up to threads threads) into b (overwritten), for
 * hz_tblock_build to take: a run encodes its first block while the GPU's context starts.
 * Returns 0, or -1 with err (out of memory). */
int hz_tblock_encode(hz_tblock *b, const hz_side *side, size_t r, int threads, char *err, size_t errlen);

/* Build block r of side into b (zeroed, or holding its codes from hz_tblock_encode): its codes
 * (on up to threads threads) when not there yet, and its seed table, the same
 * table wherever it is built.  With device_only and a backend that can keep it
 * (be->build_table_resident), the table is built and kept on the device for the next
 * set_target and b->tab holds only its counts (tab.resident = 1: nothing on the host to look
 * up or store); else be->build_table when be has one (copied to the host), else the host.
 * Returns 0, or -1 with err (out of memory, a device error). */
int hz_tblock_build(hz_tblock *b, const hz_side *side, size_t r, const hz_shape *sh, uint32_t step,
                    struct hz_backend *be, int threads, int device_only, char *err, size_t errlen);
void hz_tblock_free(hz_tblock *b);

/* An opened index file. */
typedef struct hz_index {
    char *path;
    char sha256[65];       /* of the header text (it lists every piece's sha256) */
    char *version;         /* hspz that wrote it */
    char *seed;            /* --seed as given to hspz index */
    char pattern[HZ_SEED_MAX_SPAN + 1];   /* its normalised care pattern */
    uint32_t step;
    uint64_t seq_block_size;
    hz_seqset seqs;        /* the target: names, lengths (malloc'd), bytes (in the mapping);
                              path/kind/file_bytes/sha256 of the original file */
    size_t n_block;
    hz_tblock *blk;        /* per block, codes and table in the mapping */
    hz_block *geom;        /* per block: start, len, rec0, nrec as written */
    void *map; size_t map_len;
    struct ixpiece *pieces; size_t n_pieces;   /* what hz_index_verify checks */
} hz_index;

/* `hspz index`: load target (o->target), cut it into blocks of o->seq_block_size, build each
 * block's codes and seed table for o->seed / o->step (on the GPU when o->device allows), and
 * write them to path (path.tmp-<pid>, fsync, rename; never over an input; an existing file
 * only with o->force, checked by the caller).  Returns the exit status (0, or 1 with one line
 * on stderr). */
int hz_index_cmd(const hz_opts *o, const char *path);

/* Open an index: check the prefix and the header's sha256, map the file, and lay out its
 * records and blocks (sizes checked against the header).  Returns 0, or -1 with err naming
 * the file and what is wrong (not an index, other format or byte order, truncated, damaged
 * header, out of memory). */
int hz_index_open(const char *path, hz_index *ix, char *err, size_t errlen);

/* Check the sha256 of every 16 MiB piece of every section (threads in parallel) before the
 * index is used.  Returns 0, or -1 with err naming the section and file offset. */
int hz_index_verify(const hz_index *ix, int threads, char *err, size_t errlen);
void hz_index_close(hz_index *ix);

/* Check that the planned target side matches the index's blocks (count, start, length,
 * records).  Returns 0, or -1 with err. */
int hz_index_check_side(const hz_index *ix, const hz_side *side, char *err, size_t errlen);

#endif
