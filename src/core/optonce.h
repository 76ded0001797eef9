/* optonce — a single-valued command-line option given twice is a usage error (issue 31:
 * "-r a -r b" silently took b).
 *
 * Every option that takes a value (required or optional: -Z/--tarball) may be given once per
 * command, under any of its spellings (-r, --target, --reference, --target=FILE; KegAlign's
 * --seq_block_size and --seq-block-size).  Flags without a value (--force, -n, --quiet ...)
 * may be repeated: giving one twice asks for the same thing.  --progress/--no-progress are
 * flags: the last one wins, as documented for them.
 */
#ifndef HZ_OPTONCE_H
#define HZ_OPTONCE_H
#include <getopt.h>
#include <stddef.h>

#define HZ_OPTONCE_MAX 1200   /* option values (getopt's c) are below this */

typedef struct {
    unsigned char seen[HZ_OPTONCE_MAX];
    const char *first[HZ_OPTONCE_MAX];   /* the first value (NULL: none given) */
} hz_optonce;

/* Record option c (canonical: the value its long options carry in lo) with value val (may be
 * NULL).  shortc: its one-letter spelling, or 0.  When c takes a value (an entry of lo with
 * val == c and has_arg > 0) and was seen before, writes "-r/--target given twice ('a', then
 * 'b'): give it once" (values with control bytes as \xHH) into err and returns -1; else 0. */
int hz_optonce_check(hz_optonce *s, int c, int shortc, const char *val, const struct option *lo,
                     char *err, size_t errlen);

#endif
