/* pipeline — `hspz run`, end to end: inputs (or an index), plan, work units on worker threads,
 * segments files, lastz commands, packaging, manifest, publish (pipeline.c; the work order of
 * spec §2.7 and §5.5).
 */
#ifndef HZ_PIPELINE_H
#define HZ_PIPELINE_H
#include "options.h"

/* Run the whole HSP stage with o.  Returns the process exit status: 0 success (OUTDIR
 * published), 1 input or runtime error (one line on stderr already printed, no OUTDIR, a
 * failure manifest beside it where one can be written: docs/manifest.md). */
int hz_run(const hz_opts *o);

#endif
