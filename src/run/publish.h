/* publish — OUTDIR rules, the temporary output folder, owner records, and the final rename.
 *
 * A run writes into OUTDIR.tmp-<pid>-<token> (or, for an existing empty OUTDIR,
 * OUTDIR/.hspz.tmp-<pid>-<token>) and publishes it at the end (docs/cli.md "Exit status" and
 * "Errors, temporary files and publishing"; hardening rules: nothing that looks complete is
 * left by a failed or interrupted run, and what this run did not create is never removed).
 * Used by `hspz run` (pipeline.c) and `hspz merge` (merge.c), which pass the tarball's path
 * (package.h): publishing never calls the package writer.  The signal watcher is sigwatch.h's,
 * the path helpers outpath.h's (core).
 */
#ifndef HZ_PUBLISH_H
#define HZ_PUBLISH_H
#include <stddef.h>
#include "options.h"
#include "outsafe.h"
#include "outpath.h"    /* hz_parent_dir, hz_rm_rf, hz_output_file_check (were here) */
#include "sigwatch.h"   /* the signal watcher (was here) */

/* OUTDIR rules: its parent must exist and be writable (OUTDIR.tmp-<pid>-<token> is made there:
 * access(2) W_OK|X_OK, so a read-only file system counts too); if OUTDIR exists it must be a folder, empty unless
 * --force (hidden .hspz.tmp-* temporaries do not count), and with --force a folder hspz wrote
 * (hz_outdir_is_hspz) not holding an input (it is removed after the run).  Runs
 * hz_recover_outdir first; before it, an existing OUTDIR that is (by identity) the current
 * folder or a folder above it or above an input is refused.
 * Returns 0, or -1 with err set (docs/cli.md "Exit status": exit 1, but main.c checks
 * hz_outdir_holds_input first, exit 2). */
int hz_check_outdir(const hz_opts *o, char *err, size_t errlen);

/* What --force may replace (src/run/publish_force.c; docs/cli.md "--force"): 0 when the folder
 * outdir is provably an hspz OUTDIR, else -1 with err (one line naming outdir and the first
 * foreign entry by name).  A run's OUTDIR: its manifest.json is a regular file whose JSON has
 * hspz's manifest_version, tool.name "hspz", tool.version and outputs[].name, and every entry
 * is a regular file that is manifest.json, an output listed there or in gapped-manifest.json
 * that still has the bytes and sha256 listed (one changed since: its own message), hspz
 * report's report.html (hspz's page head) and a PNG report.png beside it, gapped-manifest.json
 * (hspz gapped --outdir's, tool.name "hspz"), or S.err or S.<the run's --format> of a listed
 * S.segments (what the folder's own lastz command lines write).  A query list's OUTDIR:
 * queries.tsv with hspz's header, folders of the jobs it names (each a run's OUTDIR) and their
 * <job>.tar.gz.  Hidden .hspz.tmp-* temporaries of hspz runs do not count. */
int hz_outdir_is_hspz(const char *outdir, char *err, size_t errlen);

/* With --force, an existing OUTDIR must not hold the target, query, scoring or --config file
 * (--force deletes the old OUTDIR).  A contradiction of the command line, whatever OUTDIR
 * holds otherwise, so main.c runs it before any work (exit 2).  Also (with or without --force)
 * an existing OUTDIR that is, by (st_dev, st_ino), the current folder or a folder above it or
 * above an input ("-o $PWD", "-o ../here").  0, or -1 with err set. */
int hz_outdir_holds_input(const hz_opts *o, char *err, size_t errlen);

/* Put right what killed runs of o->outdir left (SIGKILL, a crash, a power cut): for each
 * owner record OUTDIR.tmp-<pid>-<token>.owner (or OUTDIR/.hspz.tmp-<pid>-<token>.owner of an
 * in-place fill) of a process that is gone (hz_owner_gone), undo an unfinished publish (its
 * tarball taken back while it is still its file, what --force moved aside put back, what a
 * fill moved into OUTDIR removed) or finish a done one (the --force leftovers
 * .old-<pid>-<token> removed), then remove its temporaries and record; a note each unless
 * --quiet.  Nothing without such a record is touched.  hz_check_outdir and hz_tmpdir_make
 * call it; main.c calls it before the tarball's check. */
void hz_recover_outdir(const hz_opts *o);

/* Make o->outdir's temporary folder: "OUTDIR.tmp-<pid>-<token>" (hz_out_tmpname; mkdir, so
 * never an existing name), or "OUTDIR/.hspz.tmp-<pid>-<token>" when OUTDIR exists empty (it
 * is then filled in place, w->fill); first hz_recover_outdir.  tarball: the path of the
 * tarball (or -Z archive) this run writes beside OUTDIR, or NULL; the driver passes it
 * (package.h hz_package_tarball_path): publishing never asks the package writer.  Writes the
 * owner record (".owner" beside it: hz_owner_write, with OUTDIR, the tarball and its
 * temporary name) and registers the folder and the tarball's temporary with w.  Returns the
 * malloc'd path, or NULL with err set. */
char *hz_tmpdir_make(const hz_opts *o, const char *tarball, hz_sigwatch *w, char *err, size_t errlen);

/* Publish under w's lock (tarball: the path given to hz_tmpdir_make): the owner record is rewritten first with every name the publish
 * may leave (the tarball's inode, the .old-<pid>-<token> names of --force, the fill list);
 * then the tarball's temporary file registered with w (made by hz_package) is put at its path
 * without replacing anything (hz_out_place), then OUTDIR: tmpdir renamed to a missing OUTDIR
 * (RENAME_NOREPLACE), or an existing empty OUTDIR filled in place (names moved up one by one,
 * manifest.json last), or with o->force an existing OUTDIR hspz wrote moved aside and deleted
 * once the new one is in place.  On success the run is settled (see hz_sigwatch).  Returns 0,
 * or -1 with err set: nothing lost (what was moved aside is put back, this run's tarball is
 * taken back only while it is still its file) and w->lost set when the cause is another run's
 * tarball that appeared meanwhile (see hz_publish_failed_manifest).  A kill in between is put
 * right by the next run (hz_recover_outdir). */
int hz_publish(const hz_opts *o, const char *tmpdir, const char *tarball, hz_sigwatch *w, char *err, size_t errlen);

/* Where this failed run writes its failure manifest (hz_failed_manifest_path, malloc'd), or
 * NULL for none: when it lost the publish to another run (w->lost), or OUTDIR holds a completed
 * run (OUTDIR/manifest.json), the file would sit next to a complete OUTDIR it does not describe
 * (docs/manifest.md); the stderr line is then the record. */
char *hz_publish_failed_manifest(const hz_opts *o, const hz_sigwatch *w);

#endif
