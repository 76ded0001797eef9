/* gapped_cmd_impl — what the two files of `hspz gapped`'s lastz command line share:
 * gapped_args.c reads the words into gopts, gapped_cmd.c runs them (not a public header). */
#ifndef HZ_GAPPED_CMD_IMPL_H
#define HZ_GAPPED_CMD_IMPL_H
#include <stdint.h>
#include "seqio.h"

typedef struct {
    const char *spec[2];          /* raw specifiers */
    char *file[2], *subset[2];
    int multiple[2], darkspace[2];
    char *recname[2];             /* FILE/NAME: the one record (raw name) */
    uint64_t rs[2], re[2];        /* [s,e] sub-range, 1-based closed; rs = 0: whole records */
    const char *segments, *output, *format, *ambiguous, *scores;
    const char *scores_word;      /* --outdir mode: --scores= as the line writes it (messages) when
                                   * scores was resolved against hspz's folder; else NULL */
    hz_seqset *pre[2];            /* sequences loaded by the caller (--outdir mode), else NULL */
    int strand;                   /* 1 plus, 2 minus, 3 both */
    int64_t tb_bytes;
    int32_t ydrop, gapped;        /* valid when have_ydrop / have_gapped */
    int have_ydrop, have_gapped;
    int32_t inner;                /* --inner / H= (0: off) */
    int threads;                  /* --threads=N: passes computed on N threads */
    const char *device;           /* --device=cpu|cuda|auto|emu (gapped_dev.h); NULL = cpu */
    int total; int *running;      /* --outdir mode: all threads, and the number of line processes
                                   * running now (shared memory): a pass started when fewer lines
                                   * run gets a larger share of the threads */
    int notrivial;                /* --notrivial (§5.10) */
    int outdir, force;            /* --outdir mode (outputs inside DIR, new unless --force) */
    int twobit;                   /* --outdir mode: bytes as hspz's 2bit files hold them (twobit_byte) */
    const char *inputs[2];        /* --outdir mode: the -r / -q files */
    const char *outtmp;           /* --outdir mode: the temporary (made O_EXCL|O_NOFOLLOW) the
                                   * --output is written to; the caller renames it into place */
    char **args; int nargs;       /* header ARGS (§7.4) */
} gopts;

/* `hspz gapped --help`'s text */
extern const char HZ_GAPPED_USAGE[];

/* argv (argv[0] = the command word) into o, as lastz 1.04.22 reads its command line
 * (../shared/spec/lastz-gapped-spec.md §0.2): target and query specifiers with their actions,
 * lastz's options and their short forms; an option outside the supported set is refused with
 * one line that says to run lastz.  --help prints HZ_GAPPED_USAGE and exits 0.  Returns 0, or
 * 1 after one line on stderr (lastz's wording where lastz has one). */
int hz_gapped_args(gopts *o, int argc, char **argv);

#endif
