/* sigwatch — the signal watcher of a run that writes outputs (`hspz run`, `merge`, `index`):
 * what it removes on a signal, the settling of a run that fails on its own, and the names of
 * a temporary folder's owner record and fill list (beside it), which it removes with it.
 * Below publish.c (which settles a run by publishing) and index.c (which registers its
 * temporary index file).
 */
#ifndef HZ_SIGWATCH_H
#define HZ_SIGWATCH_H
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include "outsafe.h"

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
    int lost;                  /* hz_publish failed because another run's tarball is there (publish.h) */
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


/* The owner record "<tmpdir>.owner" and in-place fill list "<tmpdir>.fill" of a temporary
 * output folder (publish.c writes them) into buf[0..n); hz_tmp_owner_unlink removes both (a
 * NULL or empty tmpdir: nothing). */
void hz_tmp_owner_path(const char *tmpdir, char *buf, size_t n);
void hz_tmp_fill_path(const char *tmpdir, char *buf, size_t n);
void hz_tmp_owner_unlink(const char *tmpdir);

#endif
