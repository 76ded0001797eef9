/* sigwatch — the signal watcher of a run (see sigwatch.h). */
#include "sigwatch.h"
#include "outpath.h"
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Ctrl-C, SIGTERM, SIGHUP.  They are blocked in every thread of the run and taken by one
 * watcher thread with sigwait, so no cleanup runs in signal context (where malloc, nftw or a
 * lock held by an interrupted thread could hang).  Until the run is settled, the watcher takes
 * the lock for good, moves the temporary output folder aside with one rename (threads still
 * writing then fail instead of creating files there), removes it and the tarball's temporary
 * file, prints one line and exits with 128 + the signal.  Once settled (published, or failing
 * on its own) a signal is taken and dropped: the run then ends with its own status, so the exit
 * status always matches what is on disk.  The wake-up signal (HZ_WAKE, sent to the watcher
 * alone by hz_sigwatch_stop) ends the thread without pthread_cancel, which ASan's per-thread
 * alternate signal stack does not survive. */
#define HZ_WAKE (SIGRTMIN + 1)

/* OUTDIR.tmp-<pid>-<token>.owner, beside the temporary folder: who made it and what the run
 * may leave (publish.c: remove_stale_tmpdirs reads it); OUTDIR.tmp-<pid>-<token>.fill: the names an
 * in-place fill moves into an existing empty OUTDIR */
void hz_tmp_owner_path(const char *tmpdir, char *buf, size_t n) { snprintf(buf, n, "%s.owner", tmpdir); }
void hz_tmp_fill_path(const char *tmpdir, char *buf, size_t n) { snprintf(buf, n, "%s.fill", tmpdir); }
void hz_tmp_owner_unlink(const char *tmpdir)
{
    char p[4300];
    if (!tmpdir || !tmpdir[0]) return;
    hz_tmp_fill_path(tmpdir, p, sizeof p);
    unlink(p);
    hz_tmp_owner_path(tmpdir, p, sizeof p);
    unlink(p);
}

/* interrupted (a signal, or SIGPIPE raised by a failed write to stdout): the caller holds
 * w->lock for good; remove this run's temporaries, say one line, exit 128 + sig */
static void interrupted(hz_sigwatch *w, int sig)
{
    if (w->tmpdir[0]) {
        char trash[4300];
        snprintf(trash, sizeof trash, "%s.interrupted", w->tmpdir);
        if (rename(w->tmpdir, trash) == 0) hz_rm_rf(trash); else hz_rm_rf(w->tmpdir);
    }
    if (w->tartmp[0]) unlink(w->tartmp);
    hz_tmp_owner_unlink(w->tmpdir);
    /* one line; a newline first only where a progress line may be open (a terminal) */
    char why[64];
    if (sig == SIGPIPE) snprintf(why, sizeof why, "stdout was closed (SIGPIPE)");
    else snprintf(why, sizeof why, "interrupted by signal %d", sig);
    fprintf(stderr, "%shspz: %s%s\n", isatty(2) ? "\n" : "", why, w->tmpdir[0] ? "; the partial output was removed" : "");
    fflush(stderr);
    _exit(128 + sig);
}

static void *sigwatch_main(void *p)
{
    hz_sigwatch *w = p;
    for (;;) {
        siginfo_t si;
        int sig = sigwaitinfo(&w->set, &si);
        if (sig < 0) continue;                     /* EINTR */
        pthread_mutex_lock(&w->lock);
        if (w->stopping) { pthread_mutex_unlock(&w->lock); return NULL; }
        if (sig == HZ_WAKE || w->settled) { pthread_mutex_unlock(&w->lock); continue; }
        /* interrupted: the lock is never released, so the run can neither publish nor print
         * its own failure now (hz_publish_abort waits here until the process is gone) */
        interrupted(w, sig);
    }
}

void hz_sigwatch_block(int block)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGINT); sigaddset(&s, SIGTERM); sigaddset(&s, SIGHUP); sigaddset(&s, SIGPIPE);
    pthread_sigmask(block ? SIG_BLOCK : SIG_UNBLOCK, &s, NULL);
}

void hz_sigwatch_start(hz_sigwatch *w)
{
    memset(w, 0, sizeof *w);
    pthread_mutex_init(&w->lock, NULL);
    sigemptyset(&w->set);
    sigaddset(&w->set, SIGINT); sigaddset(&w->set, SIGTERM); sigaddset(&w->set, SIGHUP);
    sigaddset(&w->set, SIGPIPE); sigaddset(&w->set, HZ_WAKE);
    pthread_sigmask(SIG_BLOCK, &w->set, &w->old);
    w->on = pthread_create(&w->th, NULL, sigwatch_main, w) == 0;
    if (!w->on) pthread_sigmask(SIG_SETMASK, &w->old, NULL);
}

/* what the watcher removes on a signal (NULL = nothing) */
void hz_sigwatch_paths_locked(hz_sigwatch *w, const char *tmpdir, const char *tartmp)
{
    snprintf(w->tmpdir, sizeof w->tmpdir, "%s", tmpdir && strlen(tmpdir) < sizeof w->tmpdir ? tmpdir : "");
    snprintf(w->tartmp, sizeof w->tartmp, "%s", tartmp && strlen(tartmp) < sizeof w->tartmp ? tartmp : "");
}

void hz_sigwatch_paths(hz_sigwatch *w, const char *tmpdir, const char *tartmp)
{
    pthread_mutex_lock(&w->lock);
    hz_sigwatch_paths_locked(w, tmpdir, tartmp);
    pthread_mutex_unlock(&w->lock);
}

void hz_publish_abort(hz_sigwatch *w)
{
    pthread_mutex_lock(&w->lock);   /* blocks for good while a signal is being handled */
    if (!w->settled) {   /* a signal pending now (SIGPIPE raised by a failed write to stdout): as the watcher */
        sigset_t p;
        static const int sigs[] = { SIGPIPE, SIGINT, SIGTERM, SIGHUP };
        if (sigpending(&p) == 0)
            for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
                if (sigismember(&p, sigs[i]) && sigismember(&w->set, sigs[i])) interrupted(w, sigs[i]);
    }
    w->settled = 1;
    if (w->tmpdir[0]) hz_rm_rf(w->tmpdir);
    if (w->tartmp[0]) unlink(w->tartmp);
    hz_tmp_owner_unlink(w->tmpdir);
    w->tmpdir[0] = w->tartmp[0] = 0;
    pthread_mutex_unlock(&w->lock);
}

void hz_sigwatch_stop(hz_sigwatch *w)
{
    if (!w->on) return;
    pthread_mutex_lock(&w->lock);
    w->settled = w->stopping = 1;
    pthread_mutex_unlock(&w->lock);
    pthread_kill(w->th, HZ_WAKE);
    pthread_join(w->th, NULL);
    /* The mask stays: SIGINT/SIGTERM/SIGHUP arriving from now on stay pending and are dropped
     * at exit, so the run's status (0 with OUTDIR in place, or 1) is the process's. */
    pthread_mutex_destroy(&w->lock);
    w->on = 0;
}
