/* gapped_cmd — the `hspz gapped` command's two entry points inside the run layer:
 * gapped_cmd.c (lastz's command line, ../shared/spec/lastz-gapped-spec.md §0.1 family A) and
 * gapped_outdir.c (--outdir: every line of an hspz run's lastz-commands.txt). */
#ifndef HZ_GAPPED_CMD_H
#define HZ_GAPPED_CMD_H
#include "seqio.h"

/* `hspz gapped --outdir DIR -r TARGET -q QUERY [--threads N] [--force]` (argv[0] = "gapped").
 * Returns 0, or 1 after one line on stderr per failure. */
int hz_gapped_outdir(int argc, char **argv);

/* Run one lastz command line (argv[0] = "lastz", redirection already done) in --outdir mode:
 * outputs are new files unless force, ts / qs (loaded by the caller, names prefixed as the run
 * wrote them) replace the package's 2bit files, the passes run on `threads` threads.
 * Returns 0, or 1 after a message on stderr (lastz's wording where lastz has one). */
int hz_gapped_run_line(int argc, char **argv, hz_seqset *ts, hz_seqset *qs, int force, int threads);

#endif
