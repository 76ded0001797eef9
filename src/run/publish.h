/* publish — OUTDIR rules, the temporary output folder, signals, and the final rename.
 *
 * A run writes into OUTDIR.tmp-<pid>-<token> (or, for an existing empty OUTDIR, OUTDIR/.hspz.tmp-<pid>-<token>) and publishes it at the end (README "Exit
 * status"; hardening rules: nothing that looks complete is left by a failed or interrupted
 * run, and what this run did not create is never removed).  Used by `hspz run` (pipeline.c)
 * and `hspz merge` (merge.c).
 */
#ifndef HZ_PUBLISH_H
#define HZ_PUBLISH_H
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include "options.h"
#include "outsafe.h"

/* The folder path lies in, into dir[0..n): "." for a bare name, "/" for "/x".  No errors
 * (a path longer than n is cut). */
void hz_parent_dir(const char *path, char *dir, size_t n);

/* Remove path and everything below it (no symlinks followed).  No errors reported. */
void hz_rm_rf(const char *path);

/* SIGINT, SIGTERM, SIGHUP and SIGPIPE are blocked in every thread of the run and taken by one watcher
 * thread with sigwait, so no cleanup runs in signal context.  Until the run is settled, a
 * signal makes the watcher remove the registered temporary folder and tarball temporary file,
 * print one line ("hspz: interrupted by signal N...") and exit with 128 + the signal.  The run
 * is settled by hz_publish (OUTDIR and tarball in place) or hz_publish_abort (it fails on its
 * own); after that a signal is dropped and the run ends with its own status, so exit 0 always
 * comes with a complete OUTDIR and 128 + N or 1 with none.  hz_publish and hz_publish_abort
 * hold the lock, so a signal never splits them.  SIGPIPE: a write to a closed stdout fails with
 * EPIPE and leaves SIGPIPE pending on the writing thread; hz_publish_abort finds it there and
 * ends the run as the watcher would ("stdout was closed (SIGPIPE)", exit 141). */
typedef struct {
    pthread_mutex_t lock;
    char tmpdir[4200];         /* "" = nothing to remove */
    char tartmp[4200];
    int settled;               /* published or failing: signals are dropped */
    int stopping;              /* hz_sigwatch_stop: the watcher returns */
    int lost;                  /* hz_publish failed because another run's tarball is there */
    hz_owner me;               /* this process (owner records) */
    int known;                 /* me is complete: records are written */
    int fill;                  /* OUTDIR existed empty: tmpdir lies inside it, filled in place */
    sigset_t set, old;
    pthread_t th;
    int on;
} hz_sigwatch;

/* Block (1) or unblock (0) SIGINT, SIGTERM and SIGHUP in the calling thread: main blocks them
 * first thing for `run` and `merge`, so a signal before the watcher starts waits for it (and
 * gets its one line and 128 + N) instead of killing the process. */
void hz_sigwatch_block(int block);
/* Start the watcher (before any other thread, so all inherit the blocked set). */
void hz_sigwatch_start(hz_sigwatch *w);
/* What the watcher removes on a signal (NULL = nothing).  _locked: the caller holds w->lock,
 * taken before it created the path, so that a signal cannot fall between the creation and the
 * registration (the watcher waits for the lock, then finds the path to remove). */
void hz_sigwatch_paths(hz_sigwatch *w, const char *tmpdir, const char *tartmp);
void hz_sigwatch_paths_locked(hz_sigwatch *w, const char *tmpdir, const char *tartmp);
/* The run fails on its own: settle it (a later signal is dropped), then remove the registered
 * temporary folder and tarball temporary file.  Call it before printing the error line: while
 * a signal is being handled it never returns (the watcher ends the process with its one line). */
void hz_publish_abort(hz_sigwatch *w);
/* Settle, end the watcher thread (woken by a signal of its own, never cancelled).  The three
 * signals stay blocked: one arriving after this stays pending and is dropped at exit, so it
 * cannot kill a run that has published. */
void hz_sigwatch_stop(hz_sigwatch *w);

/* OUTDIR rules: its parent must exist and be writable (OUTDIR.tmp-<pid>-<token> is made there:
 * access(2) W_OK|X_OK, so a read-only file system counts too); if OUTDIR exists it must be a folder, empty unless
 * --force (hidden .hspz.tmp-* temporaries do not count), and with --force a folder hspz wrote
 * (manifest.json or queries.tsv) not holding an input (it is removed after the run).  Runs
 * hz_recover_outdir first; before it, an existing OUTDIR that is (by identity) the current
 * folder or a folder above it or above an input is refused.
 * Returns 0, or -1 with err set (README "Exit status": exit 1, but main.c checks
 * hz_outdir_holds_input first, exit 2). */
int hz_check_outdir(const hz_opts *o, char *err, size_t errlen);

/* With --force, an existing OUTDIR must not hold the target, query, scoring or --config file
 * (--force deletes the old OUTDIR).  A contradiction of the command line, whatever OUTDIR
 * holds otherwise, so main.c runs it before any work (exit 2).  Also (with or without --force)
 * an existing OUTDIR that is, by (st_dev, st_ino), the current folder or a folder above it or
 * above an input ("-o $PWD", "-o ../here").  0, or -1 with err set. */
int hz_outdir_holds_input(const hz_opts *o, char *err, size_t errlen);

/* A file this run writes next to OUTDIR (what: "tarball", "--dump-plan file"), checked before
 * any work.  Returns the exit class (README "Exit status") with err naming path and the rule:
 *   2  the command contradicts itself: the path is OUTDIR or inside it (OUTDIR is replaced at
 *      the end; also through links), or an input, scoring or --config file (not even with
 *      --force);
 *   1  the file system does not allow it: the path is a folder, exists (without --force), or
 *      its folder is missing or not writable;
 *   0  fine. */
int hz_output_file_check(const hz_opts *o, const char *path, const char *what, char *err, size_t errlen);

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
 * is then filled in place, w->fill); first hz_recover_outdir.  Writes its owner record
 * (".owner" beside it: hz_owner_write, with OUTDIR, the tarball and its temporary name) and
 * registers the folder and the tarball's temporary with w.  Returns the malloc'd path, or
 * NULL with err set. */
char *hz_tmpdir_make(const hz_opts *o, hz_sigwatch *w, char *err, size_t errlen);

/* Publish under w's lock: the owner record is rewritten first with every name the publish
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
int hz_publish(const hz_opts *o, const char *tmpdir, hz_sigwatch *w, char *err, size_t errlen);

/* Where this failed run writes its failure manifest (hz_failed_manifest_path, malloc'd), or
 * NULL for none: when it lost the publish to another run (w->lost), or OUTDIR holds a completed
 * run (OUTDIR/manifest.json), the file would sit next to a complete OUTDIR it does not describe
 * (docs/manifest.md); the stderr line is then the record. */
char *hz_publish_failed_manifest(const hz_opts *o, const hz_sigwatch *w);

#endif
