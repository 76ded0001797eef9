/* gapped_cmd — the `hspz gapped` command inside the run layer: gapped_cmd.c (lastz's command
 * line, ../shared/spec/lastz-gapped-spec.md §0.1 family A) and gapped_outdir.c (--outdir: every
 * line of an hspz run's lastz-commands.txt; its other entry points are in gapped_run.h). */
#ifndef HZ_GAPPED_CMD_H
#define HZ_GAPPED_CMD_H
#include <stdint.h>
#include "seqio.h"

/* `hspz gapped ARGS` in lastz's form (argv[0] = "gapped"): lastz's output bytes, its messages
 * and exit status (docs/gapped.md).  Returns the exit status. */
int hz_gapped_cmd(int argc, char **argv);

/* `hspz gapped --outdir DIR -r TARGET -q QUERY [--threads N] [--device D] [--force]`
 * (argv[0] = "gapped", gapped_outdir.c).  Returns 0, or 1 after one line on stderr per failure. */
int hz_gapped_outdir(int argc, char **argv);

/* Run one lastz command line (argv[0] = "lastz", cwd already DIR, 2> already redirected) in
 * --outdir mode: outputs are new files unless force; ts / qs (loaded by the caller, names
 * prefixed as the run wrote them, read as hspz's 2bit files hold them) replace the package's
 * 2bit files; the passes run on `threads` threads; device as gapped_dev.h reads it (NULL =
 * cpu); a relative --scores= that DIR does not hold is looked for in caller_cwd (where hspz
 * ran); total / *running (may be NULL): all threads of the --outdir run and the number of line
 * processes running now (shared memory), so that a pass started when fewer lines run gets more
 * threads; outtmp (NULL: the --output itself, truncated or O_EXCL): a new file made with
 * O_EXCL|O_NOFOLLOW that gets the --output's bytes (the name itself is only checked: not a
 * link, not a non-regular file, new unless force), renamed into place by the caller.
 * Returns 0, or 1 after a message on stderr (lastz's wording where lastz has one). */
/* A traceback value as lastz reads --allocate:traceback= / --traceback= / m= (spec §0.2):
 * a number with an optional K, M or G (binary units; a decimal or a unit is rounded in single
 * precision as lastz does).  Returns the bytes, -1 when hspz gapped cannot read it, -2 below
 * lastz's minimum of 100K. */
int64_t hz_gapped_tb_parse(const char *v);

/* With HSPZ_GAPPED_STATS=1 in the environment: one line "hspz gapped: at T s (pid P): WHAT"
 * on stderr, T on CLOCK_MONOTONIC (one clock for the parent and the line processes, so bench/
 * can lay a run out in time); printf-style fmt.  Nothing otherwise. */
void hz_gapped_mark(const char *fmt, ...);

int hz_gapped_run_line(int argc, char **argv, const hz_seqset *ts, const hz_seqset *qs, int force, int threads,
                       const char *device, const char *caller_cwd, int total, int *running, const char *outtmp);

#endif
