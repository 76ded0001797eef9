/* merge — `hspz merge PLAN UNITDIR... -o OUTDIR`: the unit folders of one plan (units.h)
 * assembled into the OUTDIR that one `hspz run` with the plan's settings writes, byte for byte:
 * segments files, .name files, lastz-commands.txt, then the plan's packaging (diagonal
 * partition, all.segments, tarball; package.h) and a manifest whose funnel is the units' sum.
 */
#ifndef HZ_MERGE_H
#define HZ_MERGE_H
#include "options.h"
#include "units.h"

/* Check the unit folders (each unit of p exactly once; every folder's manifest from this
 * hspz version, completed, of this plan (sha256), its segments files present with the bytes
 * and sha256 it lists), the inputs of o against p, and OUTDIR's rules (not a unit folder, none
 * inside it); then write and publish OUTDIR.  o holds the plan's settings (config.h, resolved
 * from p->config) with -o/-r/-q/--force/--quiet/--threads from the command line.  Returns the
 * exit status: 0, or 1 with one line on stderr and nothing published. */
int hz_merge(const hz_opts *o, const hz_unitplan *p, char *const *dirs, size_t ndirs);

#endif
