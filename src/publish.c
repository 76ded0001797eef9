/* publish — OUTDIR rules, temporary folder, signals, final rename (see publish.h). */
#include "publish.h"
#include "package.h"
#include "config.h"
#include "manifest.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    return remove(p);
}
void hz_rm_rf(const char *p) { nftw(p, rm_cb, 16, FTW_DEPTH | FTW_PHYS); }

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

/* OUTDIR.tmp-<pid>.owner, beside the temporary folder: who made it (see remove_stale_tmpdirs) */
static void owner_path(const char *tmpdir, char *buf, size_t n) { snprintf(buf, n, "%s.owner", tmpdir); }
static void owner_unlink(const char *tmpdir)
{
    char p[4300];
    if (!tmpdir || !tmpdir[0]) return;
    owner_path(tmpdir, p, sizeof p);
    unlink(p);
}

/* "boot_id pid-namespace hostname" of this process, or -1 where /proc cannot say */
static int whoami(char *buf, size_t n)
{
    char boot[64] = "", ns[64] = "", host[256] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) { if (!fgets(boot, sizeof boot, f)) boot[0] = 0; fclose(f); }
    boot[strcspn(boot, "\n")] = 0;
    ssize_t l = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
    if (l > 0) ns[l] = 0; else ns[0] = 0;
    if (gethostname(host, sizeof host - 1) != 0) host[0] = 0;
    host[sizeof host - 1] = 0;
    if (!boot[0] || !ns[0] || !host[0]) return -1;
    snprintf(buf, n, "%s %s %s", boot, ns, host);
    return 0;
}

/* write tmpdir.owner: "hspz owner 1\npid P\nwho W\ntarball T\n" (best effort: without it a
 * killed run's folder is only never cleaned up) */
static void owner_write(const char *tmpdir, const char *tartmp, const char *who)
{
    char p[4300];
    owner_path(tmpdir, p, sizeof p);
    unlink(p);   /* one of a killed earlier run with this pid */
    FILE *f = fopen(p, "wx");
    if (!f) return;
    fprintf(f, "hspz owner 1\npid %ld\nwho %s\ntarball %s\n", (long)getpid(), who, tartmp && tartmp[0] ? tartmp : "-");
    if (fclose(f) != 0) unlink(p);
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
        if (w->tmpdir[0]) {
            char trash[4300];
            snprintf(trash, sizeof trash, "%s.interrupted", w->tmpdir);
            if (rename(w->tmpdir, trash) == 0) hz_rm_rf(trash); else hz_rm_rf(w->tmpdir);
        }
        if (w->tartmp[0]) unlink(w->tartmp);
        owner_unlink(w->tmpdir);
        /* one line; a newline first only where a progress line may be open (a terminal) */
        fprintf(stderr, "%shspz: interrupted by signal %d%s\n", isatty(2) ? "\n" : "", sig,
                w->tmpdir[0] ? "; the partial output was removed" : "");
        fflush(stderr);
        _exit(128 + sig);
    }
}

void hz_sigwatch_block(int block)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGINT); sigaddset(&s, SIGTERM); sigaddset(&s, SIGHUP);
    pthread_sigmask(block ? SIG_BLOCK : SIG_UNBLOCK, &s, NULL);
}

void hz_sigwatch_start(hz_sigwatch *w)
{
    memset(w, 0, sizeof *w);
    pthread_mutex_init(&w->lock, NULL);
    sigemptyset(&w->set);
    sigaddset(&w->set, SIGINT); sigaddset(&w->set, SIGTERM); sigaddset(&w->set, SIGHUP);
    sigaddset(&w->set, HZ_WAKE);
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
    w->settled = 1;
    if (w->tmpdir[0]) hz_rm_rf(w->tmpdir);
    if (w->tartmp[0]) unlink(w->tartmp);
    owner_unlink(w->tmpdir);
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

void hz_parent_dir(const char *path, char *dir, size_t n)
{
    snprintf(dir, n, "%s", path);
    char *sl = strrchr(dir, '/');
    if (sl == dir) dir[1] = 0;
    else if (sl) *sl = 0;
    else snprintf(dir, n, ".");
}

int hz_check_outdir(const hz_opts *o, char *err, size_t errlen)
{
    char parent[4096];
    hz_parent_dir(o->outdir, parent, sizeof parent);
    struct stat st;
    if (stat(parent, &st) != 0 || !S_ISDIR(st.st_mode)) {
        int gone = stat(parent, &st) != 0;
        if (gone) snprintf(err, errlen, "%s: the parent folder '%s' does not exist", o->outdir, parent);
        else snprintf(err, errlen, "%s: the parent '%s' is not a folder", o->outdir, parent);
        return -1;
    }
    if (access(parent, W_OK | X_OK) != 0) {
        snprintf(err, errlen, "%s: cannot be created: the parent folder '%s' is not writable (%s)", o->outdir, parent,
                 strerror(errno));
        return -1;
    }
    if (lstat(o->outdir, &st) == 0 && S_ISLNK(st.st_mode)) {   /* rename(2) would not go through it: say so now */
        snprintf(err, errlen, "%s: is a symbolic link; give the folder itself (hspz replaces OUTDIR by renaming a new folder to it)", o->outdir);
        return -1;
    }
    if (stat(o->outdir, &st) != 0) return 0;
    if (!S_ISDIR(st.st_mode)) { snprintf(err, errlen, "%s: exists and is not a directory", o->outdir); return -1; }
    DIR *d = opendir(o->outdir);
    int empty = 1;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) { empty = 0; break; }
        closedir(d);
    }
    if (!empty && !o->force) {
        snprintf(err, errlen, "%s: output directory exists and is not empty (use --force to replace it)", o->outdir);
        return -1;
    }
    if (!empty && hz_outdir_holds_input(o, err, errlen)) return -1;
    return 0;
}

/* The files this run reads (NULL entries skipped): target, query, scoring, --config, --index,
 * --query-list and every query of the list.  Index i < hz_run_input_count(o). */
static size_t run_input_count(const hz_opts *o) { return 6 + o->n_query_list; }
static const char *run_input(const hz_opts *o, size_t i)
{
    switch (i) {
    case 0: return o->target;
    case 1: return o->query;
    case 2: return o->scoring;
    case 3: return o->cfg ? o->cfg->config_path : NULL;
    case 4: return o->index_path;
    case 5: return o->query_list_path;
    default: return o->query_list ? o->query_list[i - 6] : NULL;
    }
}

int hz_outdir_holds_input(const hz_opts *o, char *err, size_t errlen)
{
    char od[PATH_MAX], in[PATH_MAX];
    if (!o->force || !realpath(o->outdir, od)) return 0;   /* nothing there to delete */
    size_t l = strlen(od);
    for (size_t i = 0; i < run_input_count(o); i++) {
        const char *p = run_input(o, i);
        if (p && realpath(p, in) && !strncmp(in, od, l) && in[l] == '/') {
            snprintf(err, errlen, "%s: --force would delete the input %s that lies inside it", o->outdir, p);
            return -1;
        }
    }
    return 0;
}

static int same_file(const char *a, const struct stat *sb)
{
    struct stat sa;
    return a && stat(a, &sa) == 0 && sa.st_dev == sb->st_dev && sa.st_ino == sb->st_ino;
}

int hz_output_file_check(const hz_opts *o, const char *path, const char *what, char *err, size_t errlen)
{
    struct stat st;
    char par[4096], rp[PATH_MAX], ro[PATH_MAX];
    size_t ol = strlen(o->outdir);
    if (!strcmp(path, o->outdir) || (!strncmp(path, o->outdir, ol) && path[ol] == '/')) {
        snprintf(err, errlen, "%s: the %s cannot be OUTDIR or inside it", path, what); return 2;
    }
    if (stat(path, &st) == 0) {
        for (size_t i = 0; i < run_input_count(o); i++)
            if (same_file(run_input(o, i), &st)) { snprintf(err, errlen, "%s: the %s would overwrite the input %s", path, what, run_input(o, i)); return 2; }
        if (S_ISDIR(st.st_mode)) { snprintf(err, errlen, "%s: the %s path is a folder", path, what); return 1; }
        if (!S_ISREG(st.st_mode)) { snprintf(err, errlen, "%s: the %s path is not a regular file (a device or FIFO is never replaced)", path, what); return 1; }
        if (!o->force) { snprintf(err, errlen, "%s: the %s exists (use --force to replace it)", path, what); return 1; }
    }
    hz_parent_dir(path, par, sizeof par);
    if (realpath(par, rp) && realpath(o->outdir, ro)) {
        size_t rl = strlen(ro);
        if (!strncmp(rp, ro, rl) && (rp[rl] == 0 || rp[rl] == '/')) {
            snprintf(err, errlen, "%s: the %s cannot be OUTDIR or inside it", path, what); return 2;
        }
    }
    if (stat(par, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: the %s's %s '%s' %s", path, what, stat(par, &st) ? "folder" : "parent", par, stat(par, &st) ? "does not exist" : "is not a folder"); return 1;
    }
    if (access(par, W_OK | X_OK) != 0) {
        snprintf(err, errlen, "%s: the %s's folder '%s' is not writable: %s", path, what, par, strerror(errno)); return 1;
    }
    return 0;
}

/* Remove what runs of this OUTDIR left when they were killed (SIGKILL, a crash): for each
 * OUTDIR.tmp-<pid>.owner written by hz_tmpdir_make on this machine (same boot id, PID
 * namespace and host name) whose process no longer exists, its folder OUTDIR.tmp-<pid> (and
 * .interrupted), the tarball's temporary file it names when that is this run's tarball path
 * plus ".tmp-<pid>", and the .owner file, each only when this user owns it.  A folder
 * without such a file is never touched, whatever its name.  A note per folder unless quiet. */
static void remove_stale_tmpdirs(const char *outdir, const char *tarball, const char *who, int quiet)
{
    char par[4096], base[1024];
    hz_parent_dir(outdir, par, sizeof par);
    const char *b = strrchr(outdir, '/');
    int bare = !b;
    b = b ? b + 1 : outdir;
    if (!*b || snprintf(base, sizeof base, "%s.tmp-", b) >= (int)sizeof base) return;
    size_t bl = strlen(base);
    DIR *d = opendir(par);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d))) {
        const char *nm = de->d_name, *q = nm + bl;
        size_t ql = strlen(q);
        if (strncmp(nm, base, bl) || ql < 7 || strcmp(q + ql - 6, ".owner")) continue;
        size_t dl = ql - 6;   /* the pid's digits: canonical decimal, as getpid() prints it */
        if (dl < 1 || dl > 9 || q[0] == '0' || strspn(q, "0123456789") != dl) continue;
        long pid = strtol(q, NULL, 10);
        if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        char op[4096 + 1024 + 2], tmp[4096 + 1024 + 2], line[4400], tar[4400] = "";
        snprintf(op, sizeof op, "%s/%s", par, nm);
        struct stat st;
        if (lstat(op, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != getuid()) continue;   /* ours only */
        FILE *f = fopen(op, "r");
        if (!f) continue;
        int ok = fgets(line, sizeof line, f) && !strcmp(line, "hspz owner 1\n");
        long fpid = -1;
        char fwho[600] = "";
        while (ok && fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = 0;
            if (!strncmp(line, "pid ", 4)) fpid = strtol(line + 4, NULL, 10);
            else if (!strncmp(line, "who ", 4)) snprintf(fwho, sizeof fwho, "%s", line + 4);
            else if (!strncmp(line, "tarball ", 8)) snprintf(tar, sizeof tar, "%s", line + 8);
        }
        fclose(f);
        if (!ok || fpid != pid || strcmp(fwho, who)) continue;   /* another machine, container or boot */
        snprintf(tmp, sizeof tmp, "%s%s%.*s", bare ? "" : par, bare ? "" : "/", (int)(bl + dl), nm);
        if (lstat(tmp, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid()) hz_rm_rf(tmp);
        char intr[sizeof tmp + 16];
        snprintf(intr, sizeof intr, "%s.interrupted", tmp);
        if (lstat(intr, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid()) hz_rm_rf(intr);
        char want[4400];   /* only this run's tarball path with the dead pid's suffix */
        if (tarball && snprintf(want, sizeof want, "%s.tmp-%ld", tarball, pid) < (int)sizeof want &&
            !strcmp(tar, want) && lstat(tar, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == getuid())
            unlink(tar);
        unlink(op);
        if (!quiet) fprintf(stderr, "hspz: note: removed %s, left by process %ld which no longer runs\n", tmp, pid);
    }
    closedir(d);
}

char *hz_tmpdir_make(const hz_opts *o, hz_sigwatch *w, char *err, size_t errlen)
{
    char who[512];
    int known = whoami(who, sizeof who) == 0;   /* without it: no cleanup, no .owner file */
    char *tp = o->tarball ? hz_package_tarball_path(o) : NULL;
    if (o->tarball && !tp) { snprintf(err, errlen, "out of memory"); return NULL; }
    if (known) remove_stale_tmpdirs(o->outdir, tp, who, o->quiet);
    char tt[4300] = "";
    if (tp) snprintf(tt, sizeof tt, "%s.tmp-%ld", tp, (long)getpid());
    free(tp);
    size_t tl = strlen(o->outdir) + 32;
    char *tmpdir = malloc(tl);
    if (!tmpdir) { snprintf(err, errlen, "out of memory"); return NULL; }
    snprintf(tmpdir, tl, "%s.tmp-%ld", o->outdir, (long)getpid());
    hz_rm_rf(tmpdir);
    pthread_mutex_lock(&w->lock);   /* a signal now waits until the folder is registered */
    if (mkdir(tmpdir, 0777) != 0) {
        pthread_mutex_unlock(&w->lock);
        snprintf(err, errlen, "%s: cannot create the temporary output folder %s: %s", o->outdir, tmpdir, strerror(errno));
        free(tmpdir);
        return NULL;
    }
    if (known) owner_write(tmpdir, tt, who);
    hz_sigwatch_paths_locked(w, tmpdir, tt[0] ? tt : NULL);
    pthread_mutex_unlock(&w->lock);
    return tmpdir;
}

/* Put this run's tarball (w->tartmp) at path without replacing anything: renameat2
 * RENAME_NOREPLACE, or link(2) where the file system has no such rename.  *ino gets its inode.
 * Returns 0, or -1 with errno (EEXIST: a file is there, e.g. another run's). */
static int place_noreplace(const char *tmp, const char *path, struct stat *ino)
{
    if (stat(tmp, ino) != 0) return -1;
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) return -1;
    if (link(tmp, path) != 0) return -1;
    unlink(tmp);
    return 0;
}

/* Remove path only while it is still the file of inode *ino (this run's). */
static void unlink_if_ours(const char *path, const struct stat *ino)
{
    struct stat st;
    if (lstat(path, &st) == 0 && st.st_dev == ino->st_dev && st.st_ino == ino->st_ino) unlink(path);
}

/* The tarball step of hz_publish: with --force an existing file is moved aside to *old (freed
 * by the caller; removed once OUTDIR is in place).  Returns 0, or -1 with err set (w->lost when
 * another run's tarball is there). */
static int publish_tarball(const hz_opts *o, hz_sigwatch *w, const char *tp, struct stat *ino, char **old,
                           char *err, size_t errlen)
{
    struct stat st;
    if (o->force && lstat(tp, &st) == 0) {
        size_t n = strlen(tp) + 32;
        if (!(*old = malloc(n))) { snprintf(err, errlen, "out of memory"); return -1; }
        snprintf(*old, n, "%s.old-%ld", tp, (long)getpid());
        if (rename(tp, *old) != 0) {
            snprintf(err, errlen, "%s: cannot move the existing tarball aside: %s", tp, strerror(errno));
            free(*old); *old = NULL;
            return -1;
        }
    }
    if (place_noreplace(w->tartmp, tp, ino) != 0) {
        int e = errno;
        w->lost = e == EEXIST;
        if (e == EEXIST) snprintf(err, errlen, "%s: the tarball exists now (another run?)", tp);
        else snprintf(err, errlen, "%s: cannot rename %s to it: %s", tp, w->tartmp, strerror(e));
        if (*old) { rename(*old, tp); free(*old); *old = NULL; }
        return -1;
    }
    return 0;
}

int hz_publish(const hz_opts *o, const char *tmpdir, hz_sigwatch *w, char *err, size_t errlen)
{
    /* The tarball first, then OUTDIR, both under the lock (a signal waits until both are in
     * place or neither is).  Neither ever replaces what another run put there meanwhile: the
     * tarball is renamed without replacing, and OUTDIR is renamed onto a missing or empty
     * folder only, so of two runs of the same -o exactly one publishes; the other fails,
     * removing only its own files (w->lost set when it lost the tarball, whose winner may not
     * have published OUTDIR yet; a lost OUTDIR holds the winner's manifest.json).  An existing
     * OUTDIR (empty, or any with --force) or tarball (--force) is moved aside first and removed
     * once the new ones are in place, so a failed rename loses nothing. */
    pthread_mutex_lock(&w->lock);
    char *tp = w->tartmp[0] ? hz_package_tarball_path(o) : NULL, *old = NULL, *oldtar = NULL;
    struct stat tino, st;
    int rc = -1;
    if (w->tartmp[0] && !tp) { snprintf(err, errlen, "out of memory"); goto out; }
    if (tp && publish_tarball(o, w, tp, &tino, &oldtar, err, errlen)) goto out;
    if (stat(o->outdir, &st) == 0) {
        if (!o->force) {
            if (rmdir(o->outdir) != 0) {   /* another run's (its manifest.json: no failure manifest) */
                snprintf(err, errlen, "%s: output directory is not empty any more (another run?): %s", o->outdir, strerror(errno));
                goto undo_tar;
            }
        } else {
            size_t n = strlen(o->outdir) + 32;
            if (!(old = malloc(n))) { snprintf(err, errlen, "out of memory"); goto undo_tar; }
            snprintf(old, n, "%s.old-%ld", o->outdir, (long)getpid());
            if (rename(o->outdir, old) != 0) {
                snprintf(err, errlen, "%s: cannot move the existing folder aside: %s", o->outdir, strerror(errno));
                free(old); old = NULL;
                goto undo_tar;
            }
        }
    }
    if (rename(tmpdir, o->outdir) != 0) {
        int e = errno;
        int other = !old && (e == ENOTEMPTY || e == EEXIST);   /* another run's OUTDIR came meanwhile */
        snprintf(err, errlen, "%s: cannot rename %s to it: %s%s", o->outdir, tmpdir, strerror(e),
                 other ? " (another run's output is there now)" : "");
        if (old) rename(old, o->outdir);
        goto undo_tar;
    }
    owner_unlink(tmpdir);
    w->tmpdir[0] = w->tartmp[0] = 0;
    w->settled = 1;   /* from here on the run finishes: a signal no longer stops it */
    if (old) hz_rm_rf(old);
    if (oldtar) unlink(oldtar);
    rc = 0;
    goto out;
undo_tar:   /* OUTDIR failed after our tarball was placed: take back ours only */
    if (tp) unlink_if_ours(tp, &tino);
    if (oldtar) rename(oldtar, tp);
out:
    free(old); free(oldtar); free(tp);
    pthread_mutex_unlock(&w->lock);
    return rc;
}

char *hz_publish_failed_manifest(const hz_opts *o, const hz_sigwatch *w)
{
    if (w->lost || !o->outdir) return NULL;
    size_t n = strlen(o->outdir) + 32;
    char *m = malloc(n);
    if (!m) return NULL;
    snprintf(m, n, "%s/manifest.json", o->outdir);
    struct stat st;
    int complete = stat(m, &st) == 0;
    free(m);
    return complete ? NULL : hz_failed_manifest_path(o->outdir);
}
