/* segments — LASTZ segment files and lastz command lines in KegAlign's layout.
 *
 * Follows spec §6.1-6.4 and RULES.md ("file names", "empty results", "lastz commands").
 * Lines: name1 start1 end1 name2 start2 end2 strand2 score, TAB separated, 1-based closed
 * coordinates; minus-strand query coordinates count along the reverse strand of the record.
 */
#ifndef HZ_SEGMENTS_H
#define HZ_SEGMENTS_H
#include <stddef.h>
#include <stdint.h>
#include "plan.h"
#include "options.h"
#include "xdrop.h"
#include "digest.h"

typedef struct {
    const hz_side *t, *q;
    const hz_opts *o;
    /* reverse-complement record table of one query block (spec §2.5) */
    size_t rc_block;
    uint64_t *rc_start;
    size_t *rc_rec;
    size_t rc_n;
} hz_segwriter;

void hz_segwriter_init(hz_segwriter *w, const hz_side *t, const hz_side *q, const hz_opts *o);
void hz_segwriter_free(hz_segwriter *w);

/* Write dir/<base>.segments from h[0..n) (block-relative HSPs of target block r and query
 * block q), in vector order for plus (strand 0) and reversed for minus (strand 1), through a
 * temporary name renamed into place.  threads (>= 1) format large files in slices of about
 * 4 MiB, written in order (the bytes never depend on it).  ds (NULL: none) gets every line as
 * it is formatted and the file once renamed (digest.h); a failure there only spends the
 * stream.  Strands of one query block may be written at once.  Returns 0, or -1 with err
 * naming the file. */
int hz_segwriter_write(hz_segwriter *w, const char *dir, const char *base, const hz_hsp *h,
                       size_t n, int strand, size_t r, size_t q, int threads, hz_dg_stream *ds, char *err, size_t errlen);

/* Format one segment line for h into buf (>= 64 + name lengths bytes); returns its length. */
size_t hz_segment_line(hz_segwriter *w, const hz_hsp *h, int strand, size_t r, size_t q, char *buf);

/* The lastz command KegAlign prints for segments file <base>.segments (spec §6.4); malloc'd,
 * NULL when out of memory.  r and q are block indexes; base is hspz's own file stem
 * (tmp<k>.block<q>.r<offset>.<strand>, never quoted).  The data folder, format, --ambiguous
 * value and score file path are quoted for POSIX sh when they hold a byte outside
 * shquote.h's safe set, so the line runs as one lastz command under sh whatever they hold;
 * ordinary values give KegAlign's exact bytes. */
char *hz_lastz_command(const hz_opts *o, const char *base, size_t r, size_t q, int strand);

/* One segments file's lastz command: strand (0 plus, 1 minus), interval k (1-based, the
 * tmp number), query block q, target block start offset r (the "r" of the file name), and
 * the command line (malloc'd, owned by the caller). */
typedef struct { int strand; size_t k, q; uint64_t r; char *line; } hz_cmd;

/* Sort c[0..n) as KegAlign 0.3.x does (RULES.md "lastz commands": plus before minus, then
 * tmp, block, r) and write dir/lastz-commands.txt, one line each (empty with --nogapped);
 * with --print-commands and no --diagonal-partition also to stdout.  Returns 0, or -1 with
 * err naming the file. */
int hz_commands_write(const hz_opts *o, const char *dir, hz_cmd *c, size_t n, char *err, size_t errlen);

#endif
