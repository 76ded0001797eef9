/* publish — OUTDIR rules, the temporary output folder, signals, and the final rename.
 *
 * A run writes into OUTDIR.tmp-<pid> and renames it to OUTDIR at the end (README "Exit
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

/* The folder path lies in, into dir[0..n): "." for a bare name, "/" for "/x".  No errors
 * (a path longer than n is cut). */
void hz_parent_dir(const char *path, char *dir, size_t n);

/* Remove path and everything below it (no symlinks followed).  No errors reported. */
void hz_rm_rf(const char *path);

/* SIGINT, SIGTERM and SIGHUP are blocked in every thread of the run and taken by one watcher
 * thread with sigwait, so no cleanup runs in signal context.  On a signal the watcher removes
 * the registered temporary folder and tarball temporary file, prints one line and exits with
 * 128 + the signal.  hz_publish holds the lock, so a signal never splits the publish step. */
typedef struct {
    pthread_mutex_t lock;
    char tmpdir[4200];         /* "" = nothing to remove */
    char tartmp[4200];
    sigset_t set, old;
    pthread_t th;
    int on;
} hz_sigwatch;

/* Start the watcher (before any other thread, so all inherit the blocked set). */
void hz_sigwatch_start(hz_sigwatch *w);
/* What the watcher removes on a signal (NULL = nothing). */
void hz_sigwatch_paths(hz_sigwatch *w, const char *tmpdir, const char *tartmp);
/* Stop the watcher and restore the signal mask (a pending signal then acts normally). */
void hz_sigwatch_stop(hz_sigwatch *w);

/* OUTDIR rules: its parent must exist; if OUTDIR exists it must be a folder, empty unless
 * --force, and with --force it must not hold an input (it is removed after the run).
 * Returns 0, or -1 with err set (README "Exit status": exit 1, but main.c checks
 * hz_outdir_holds_input first, exit 2). */
int hz_check_outdir(const hz_opts *o, char *err, size_t errlen);

/* With --force, an existing OUTDIR must not hold the target, query, scoring or --config file
 * (--force deletes the old OUTDIR).  A contradiction of the command line, whatever OUTDIR
 * holds otherwise, so main.c runs it before any work (exit 2).  0, or -1 with err set. */
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

/* Make o->outdir's temporary folder "OUTDIR.tmp-<pid>" (a stale one of this pid is removed
 * first) and register it, and the tarball's temporary file when o->tarball, with w.  Returns the malloc'd path, or NULL with err set. */
char *hz_tmpdir_make(const hz_opts *o, hz_sigwatch *w, char *err, size_t errlen);

/* Rename tmpdir to o->outdir under w's lock.  An existing OUTDIR must be empty (it is
 * removed) unless o->force, when it is moved aside and deleted only once the new one is in
 * place.  Returns 0, or -1 with err set (nothing lost: the old OUTDIR is put back). */
int hz_publish(const hz_opts *o, const char *tmpdir, hz_sigwatch *w, char *err, size_t errlen);

#endif
