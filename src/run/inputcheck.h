/* inputcheck — record rules checked once the inputs are loaded and named, before any work.
 *
 * KegAlign 0.3.x accepts any record names and lengths (spec §2.1); its lastz commands then
 * select records by name (`[subset=ref_blockN.name]`, spec §6.4) from 2bit files.  hspZ keeps
 * KegAlign's bytes (the pseudocat/pseudopig goldens have empty names), refuses what makes the
 * segments themselves ambiguous, and refuses up front what would make its own data package
 * (--tarball) one lastz cannot run (README "Input rules").  Used by `hspz run`, `run
 * --dry-run`, `hspz plan` and `hspz merge`, right after hz_side_plan.
 */
#ifndef HZ_INPUTCHECK_H
#define HZ_INPUTCHECK_H
#include <stddef.h>
#include "options.h"
#include "plan.h"

/* A --target-prefix / --query-prefix value (flag names the option): no whitespace and no
 * control byte, since lastz reads names up to the first blank and the .name and segment files
 * are line and TAB separated.  Returns 0, or -1 with err "FLAG: 'VALUE' holds ..." (a usage
 * error, exit 2). */
int hz_prefix_check(const char *flag, const char *prefix, char *err, size_t errlen);

/* A value written into lastz-commands.txt (--format, --data-folder, --scoring's path,
 * --ambiguous): no control byte.  The file holds one sh command per line, so a line break
 * inside a quoted value would let a line-by-line runner run the rest as a command (quoting
 * alone cannot help: shquote.h).  Returns 0, or -1 with err "FLAG: 'VALUE' holds a control
 * byte ..." (VALUE with control bytes as \xHH; a usage error, exit 2). */
int hz_cmdvalue_check(const char *flag, const char *value, char *err, size_t errlen);

/* A path given on the command line or in a --config file (flag names the option): no control
 * byte, since messages are one line and the manifest's and queries.tsv's fields are line and
 * TAB separated.  Returns 0, or -1 with err (a usage error, exit 2). */
int hz_path_check(const char *flag, const char *path, char *err, size_t errlen);


/* Record rules for both sides (target first, records in file order; names are the prefixed
 * names of hz_side).  Refused always (exit 1), as one line
 * "<file>: record <n> '<name>' <why>" (n 1-based):
 *   - a name with a whitespace or control byte (possible in a 2bit index);
 *   - a non-empty name that an earlier record of the same file already has (after the
 *     prefix): segment lines could not say which record they mean.
 * With o->tarball or o->gapped also refused (the package's 2bit files and lastz commands need
 * them, and --gapped gives what lastz gives on them):
 *   - an empty name (lastz: "contigs-of-interest file is empty"),
 *   - a record of 0 bases (LASTZ refuses a 2bit record of length 0: "bad 2bit length"),
 *   - a name longer than 255 bytes (the 2bit index limit),
 *   - a name ending in ".fa", ".fasta", ".nib", ".2bit" or ".hsx" (case-sensitive) and longer
 *     than that ending: LASTZ drops the ending from names it reads (lastz-gapped-spec.md §1.3
 *     step 5), so the lines' [subset=...] and segments name a record it does not have ("extra
 *     segments in file").
 * Without --tarball and --gapped these four are accepted as KegAlign does, each kind with one
 * "hspz: note:" line (count, first record) on stderr unless o->quiet or o->nogapped.
 * Unless o->quiet, a file with bases that are not IUPAC letters (hz_seqset.n_other) gets one
 * note with the count and the first one's record and byte offset.
 * Returns 0, or -1 with err set. */
int hz_input_check(const hz_opts *o, const hz_side *t, const hz_side *q, char *err, size_t errlen);

#endif
