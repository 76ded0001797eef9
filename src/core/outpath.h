/* outpath — paths of a run's outputs, below every writer (core): the folder a path lies in,
 * removing a folder this run made, and the rules for a file written next to OUTDIR (the
 * tarball, --dump-plan, --dump-manifest), checked before any work by main.c and package.c.
 * Outputs are decided by identity (outsafe.h).
 */
#ifndef HZ_OUTPATH_H
#define HZ_OUTPATH_H
#include <stddef.h>
#include "options.h"

/* The folder path lies in, into dir[0..n): "." for a bare name, "/" for "/x".  No errors
 * (a path longer than n is cut). */
void hz_parent_dir(const char *path, char *dir, size_t n);

/* Remove path and everything below it (no symlinks followed).  No errors reported. */
void hz_rm_rf(const char *path);

/* A file this run writes next to OUTDIR (what: "tarball", "--dump-plan file"), checked before
 * any work.  Returns the exit class (docs/cli.md "Exit status") with err naming path and the rule:
 *   2  the command contradicts itself: the path is OUTDIR or inside it (OUTDIR is replaced at
 *      the end; also through links), or an input, scoring or --config file (not even with
 *      --force);
 *   1  the file system does not allow it: the path is a folder, exists (without --force), or
 *      its folder is missing or not writable;
 *   0  fine. */
int hz_output_file_check(const hz_opts *o, const char *path, const char *what, char *err, size_t errlen);

#endif
