/* publish — OUTDIR rules, temporary folder, owner records, final rename (see publish.h; the
 * signal watcher it settles: sigwatch.c). */
#include "publish.h"
#include "manifest.h"
#include "outsafe.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int outdir_empty(const char *outdir);
static int outdir_is_above(const hz_opts *o, char *err, size_t errlen);

int hz_check_outdir(const hz_opts *o, char *err, size_t errlen)
{
    if (outdir_is_above(o, err, errlen)) return -1;
    hz_recover_outdir(o);   /* what killed runs of this OUTDIR left first: it may be in the way */
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
    if (o->segments_archive) return 0;   /* -Z: OUTDIR is never written; only its temporary beside it */
    if (lstat(o->outdir, &st) == 0 && S_ISLNK(st.st_mode)) {   /* rename(2) would not go through it: say so now */
        snprintf(err, errlen, "%s: is a symbolic link; give the folder itself (hspz replaces OUTDIR by renaming a new folder to it)", o->outdir);
        return -1;
    }
    if (stat(o->outdir, &st) != 0) return 0;
    if (!S_ISDIR(st.st_mode)) { snprintf(err, errlen, "%s: exists and is not a directory", o->outdir); return -1; }
    int empty = outdir_empty(o->outdir);   /* hidden temporaries of hspz runs do not count */
    if (!empty && !o->force) {
        snprintf(err, errlen, "%s: output directory exists and is not empty (use --force to replace it)", o->outdir);
        return -1;
    }
    /* --force replaces only a folder that is provably an hspz OUTDIR, nothing else in it */
    if (!empty && (hz_outdir_is_hspz(o->outdir, err, errlen) || hz_outdir_holds_input(o, err, errlen))) return -1;
    return 0;
}

/* 1 when the folder dir, or one of the folders above it (links resolved), is the file *t
 * (by st_dev and st_ino) */
static int dir_at_or_under(const char *dir, const struct stat *t)
{
    char p[PATH_MAX], up[PATH_MAX];
    struct stat st;
    if (!realpath(dir, p)) return 0;
    for (;;) {
        if (stat(p, &st) == 0 && st.st_dev == t->st_dev && st.st_ino == t->st_ino) return 1;
        if (!strcmp(p, "/")) return 0;
        hz_parent_dir(p, up, sizeof up);
        memcpy(p, up, strlen(up) + 1);
    }
}

/* An existing OUTDIR that is the current folder, '/', or a folder above the current folder
 * or above an input, by identity ("-o $PWD", "-o ../here"; docs/cli.md "Exit status"): replacing it
 * would remove the shell's folder or the inputs.  0, or -1 with err. */
static int outdir_is_above(const hz_opts *o, char *err, size_t errlen)
{
    struct stat od;
    char par[PATH_MAX];
    if (stat(o->outdir, &od) != 0 || !S_ISDIR(od.st_mode)) return 0;
    if (dir_at_or_under(".", &od)) {
        snprintf(err, errlen, "%s: cannot be the output folder: it is the current folder or a folder above it; name a new folder", o->outdir);
        return -1;
    }
    for (size_t i = 0; i < hz_opts_input_count(o); i++) {
        const char *p = hz_opts_input(o, i);
        if (!p) continue;
        hz_parent_dir(p, par, sizeof par);
        if (dir_at_or_under(par, &od)) {
            snprintf(err, errlen, "%s: cannot be the output folder: the input %s lies inside it", o->outdir, p);
            return -1;
        }
    }
    return 0;
}

int hz_outdir_holds_input(const hz_opts *o, char *err, size_t errlen)
{
    char od[PATH_MAX], in[PATH_MAX];
    if (o->segments_archive) return 0;   /* -Z: OUTDIR is not written, nothing there to delete */
    if (o->force && realpath(o->outdir, od)) {   /* something there to delete: say what */
        size_t l = strlen(od);
        for (size_t i = 0; i < hz_opts_input_count(o); i++) {
            const char *p = hz_opts_input(o, i);
            if (p && realpath(p, in) && !strncmp(in, od, l) && in[l] == '/') {
                snprintf(err, errlen, "%s: --force would delete the input %s that lies inside it", o->outdir, p);
                return -1;
            }
        }
    }
    return outdir_is_above(o, err, errlen);
}

/* 1 when p exists (not followed) with a type of mode m (S_IFDIR, S_IFREG) and is this user's */
static int mine(const char *p, mode_t m)
{
    struct stat st;
    return lstat(p, &st) == 0 && (st.st_mode & S_IFMT) == m && st.st_uid == getuid();
}

/* 1 when the folder p holds nothing (or cannot be read: treated as not empty) */
static int dir_empty(const char *p)
{
    DIR *d = opendir(p);
    if (!d) return 0;
    struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(d))) empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    closedir(d);
    return empty;
}

/* Undo or finish what a killed run (record rec, its temporary folder tmp) left, from the
 * names its owner record holds.  Published (tmp gone, or emptied by an in-place fill): only
 * the --force leftovers (.old-<pid>-<token>) are removed.  Not published: its tarball is
 * taken back while it is still the file it placed (same inode), what --force moved aside is
 * put back, and what a fill moved into OUTDIR (its .fill list) is removed unless OUTDIR holds
 * a manifest.json; then tmp and its tarball temporary are removed. */
static void recover(const char *tmp, const hz_owner *rec, char (*v)[4400])
{
    /* v: 0 outdir, 1 tarball, 2 tarball_tmp, 3 tarball_ino, 4 old_outdir, 5 old_tarball, 6 fill */
    char want[4400], p[8900];
    snprintf(want, sizeof want, "%s.tmp-%ld-%s", v[1], rec->pid, rec->token);
    int tar_ok = v[1][0] && !strcmp(v[2], want);
    snprintf(want, sizeof want, "%s.old-%ld-%s", v[0], rec->pid, rec->token);
    int oldo_ok = v[4][0] && !strcmp(v[4], want);
    snprintf(want, sizeof want, "%s.old-%ld-%s", v[1], rec->pid, rec->token);
    int oldt_ok = tar_ok && v[5][0] && !strcmp(v[5], want);
    int published = !mine(tmp, S_IFDIR) || (v[6][0] && dir_empty(tmp));
    struct stat st;
    if (published) {
        if (oldo_ok && mine(v[4], S_IFDIR)) hz_rm_rf(v[4]);
        if (oldt_ok && mine(v[5], S_IFREG)) unlink(v[5]);
        if (mine(tmp, S_IFDIR)) rmdir(tmp);
    } else {
        unsigned long long dev, ino;
        if (tar_ok && sscanf(v[3], "%llu:%llu", &dev, &ino) == 2 && lstat(v[1], &st) == 0 &&
            (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino)
            unlink(v[1]);
        if (oldt_ok && mine(v[5], S_IFREG) && lstat(v[1], &st) != 0) rename(v[5], v[1]);
        if (oldo_ok && mine(v[4], S_IFDIR) && lstat(v[0], &st) != 0) rename(v[4], v[0]);
        snprintf(p, sizeof p, "%s/manifest.json", v[0]);
        FILE *f = v[6][0] && lstat(p, &st) != 0 ? fopen(v[6], "r") : NULL;
        char nm[4400];
        while (f && fgets(nm, sizeof nm, f)) {
            nm[strcspn(nm, "\n")] = 0;
            if (!nm[0] || strchr(nm, '/') || !strcmp(nm, ".") || !strcmp(nm, "..")) continue;
            snprintf(p, sizeof p, "%s/%s", v[0], nm);
            if (lstat(p, &st) == 0 && st.st_uid == getuid()) hz_rm_rf(p);
        }
        if (f) fclose(f);
        hz_rm_rf(tmp);
        if (tar_ok && mine(v[2], S_IFREG)) unlink(v[2]);
    }
    snprintf(p, sizeof p, "%s.interrupted", tmp);
    if (mine(p, S_IFDIR)) hz_rm_rf(p);
    snprintf(p, sizeof p, "%s.done", tmp);   /* -Z's published temporary folder (hz_publish) */
    if (mine(p, S_IFDIR)) hz_rm_rf(p);
}

/* path with its folder resolved (realpath) into buf[0..n): the same name from any current
 * folder and spelling ("k3", "./k3", "$PWD/k3"); path itself when its folder is missing */
static void abs_place(const char *path, char *buf, size_t n)
{
    char par[PATH_MAX], rp[PATH_MAX];
    const char *b = strrchr(path, '/');
    hz_parent_dir(path, par, sizeof par);
    b = b ? b + 1 : path;
    if (!path[0] || !*b || !realpath(par, rp)) { snprintf(buf, n, "%s", path); return; }
    snprintf(buf, n, "%s%s%s", rp, strcmp(rp, "/") ? "/" : "", b);
}

/* 1 when a and b name the same entry: one name in the same folder (by st_dev and st_ino,
 * links resolved), whatever their spelling; the entry itself need not exist */
static int same_place(const char *a, const char *b)
{
    char pa[PATH_MAX], pb[PATH_MAX];
    const char *ba = strrchr(a, '/'), *bb = strrchr(b, '/');
    ba = ba ? ba + 1 : a;
    bb = bb ? bb + 1 : b;
    if (strcmp(ba, bb)) return 0;
    hz_parent_dir(a, pa, sizeof pa);
    hz_parent_dir(b, pb, sizeof pb);
    return hz_same_file(pa, pb);
}

/* Remove what runs of this OUTDIR left when they were killed (SIGKILL, a crash): for each
 * OUTDIR.tmp-<pid>-<token>.owner whose record (hz_owner_read) names that pid and token and a
 * process that is gone (hz_owner_gone: this machine, PID namespace and boot only), what
 * recover() finds from its names, then the record.  A folder without such a record is never
 * touched, whatever its name (also one with this process's pid).  A note each unless quiet. */
static void remove_stale_tmpdirs(const char *stem, const char *outdir, const hz_owner *me, int quiet)
{
    static const char *const K[] = { "outdir", "tarball", "tarball_tmp", "tarball_ino", "old_outdir", "old_tarball", "fill" };
    char par[4096], base[1024];
    hz_parent_dir(stem, par, sizeof par);
    const char *b = strrchr(stem, '/');
    int bare = !b;
    b = b ? b + 1 : stem;
    if (!*b || snprintf(base, sizeof base, "%s.tmp-", b) >= (int)sizeof base) return;
    size_t bl = strlen(base);
    DIR *d = opendir(par);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d))) {
        const char *nm = de->d_name, *q = nm + bl;
        size_t ql = strlen(q);
        if (strncmp(nm, base, bl) || ql < 7 || strcmp(q + ql - 6, ".owner")) continue;
        size_t dl = strspn(q, "0123456789");   /* <pid>-<16 hex>.owner */
        if (dl < 1 || dl > 9 || q[0] == '0' || q[dl] != '-' || ql != dl + 1 + 16 + 6 || strspn(q + dl + 1, "0123456789abcdef") != 16)
            continue;
        char op[4096 + 1024 + 2], tmp[4096 + 1024 + 2], v[7][4400];
        snprintf(op, sizeof op, "%s/%s", par, nm);
        hz_owner rec;
        if (hz_owner_read(op, &rec, K, v, 7)) continue;
        if (rec.pid != strtol(q, NULL, 10) || strncmp(rec.token, q + dl + 1, 16) || rec.token[16]) continue;
        if (!hz_owner_gone(&rec, me) || !same_place(v[0], outdir)) continue;
        snprintf(tmp, sizeof tmp, "%s%s%.*s", bare ? "" : par, bare ? "" : "/", (int)(bl + dl + 17), nm);
        recover(tmp, &rec, v);
        if (v[6][0]) unlink(v[6]);
        unlink(op);
        if (!quiet) fprintf(stderr, "hspz: note: removed %s, left by process %ld which no longer runs\n", tmp, rec.pid);
    }
    closedir(d);
}

void hz_recover_outdir(const hz_opts *o)
{
    hz_owner me;
    char inner[4200];
    if (!o->outdir || !o->outdir[0] || hz_owner_self(&me) != 0) return;
    snprintf(inner, sizeof inner, "%s/.hspz", o->outdir);
    remove_stale_tmpdirs(o->outdir, o->outdir, &me, o->quiet);
    remove_stale_tmpdirs(inner, o->outdir, &me, o->quiet);   /* a killed in-place fill's */
}

/* the owner record's run lines (outdir, tarball and its temporary; at publish also what it
 * moves and where: more) */
static void record_write(hz_sigwatch *w, const char *outdir, const char *tp, const char *more)
{
    if (!w->known) return;
    char extra[16000], op[4300], ao[PATH_MAX], at[PATH_MAX], att[PATH_MAX];
    /* absolute: a rerun from another folder or with another spelling of -o finds and undoes it */
    abs_place(outdir, ao, sizeof ao);
    abs_place(tp ? tp : "", at, sizeof at);
    abs_place(w->tartmp, att, sizeof att);
    snprintf(extra, sizeof extra, "outdir %s\ntarball %s\ntarball_tmp %s\n%s", ao, at, att, more ? more : "");
    hz_tmp_owner_path(w->tmpdir, op, sizeof op);
    hz_owner_write(op, &w->me, extra);   /* best effort: without it a killed run's folder only stays */
}

char *hz_tmpdir_make(const hz_opts *o, const char *tp, hz_sigwatch *w, char *err, size_t errlen)
{
    w->known = hz_owner_self(&w->me) == 0;   /* without it: no cleanup, no .owner file */
    size_t tl = strlen(o->outdir) + 64;
    char *tmpdir = malloc(tl), inner[4200];
    if (!tmpdir) { snprintf(err, errlen, "out of memory"); return NULL; }
    snprintf(inner, sizeof inner, "%s/.hspz", o->outdir);
    if (w->known) hz_recover_outdir(o);
    struct stat st;
    /* an existing empty OUTDIR (a user's folder, a mount point) is filled in place: the
     * temporary folder lies inside it, on its file system */
    w->fill = !o->segments_archive && lstat(o->outdir, &st) == 0 && S_ISDIR(st.st_mode) && outdir_empty(o->outdir);
    char tt[4300] = "";
    if (tp) hz_out_tmpname(tp, tt, sizeof tt);
    hz_out_tmpname(w->fill ? inner : o->outdir, tmpdir, tl);   /* pid and token: never another process's name */
    pthread_mutex_lock(&w->lock);   /* a signal now waits until the folder is registered */
    if (mkdir(tmpdir, 0777) != 0) {
        pthread_mutex_unlock(&w->lock);
        snprintf(err, errlen, "%s: cannot create the temporary output folder %s: %s", o->outdir, tmpdir, strerror(errno));
        free(tmpdir);
        return NULL;
    }
    hz_sigwatch_paths_locked(w, tmpdir, tt[0] ? tt : NULL);
    record_write(w, o->outdir, tp, NULL);
    pthread_mutex_unlock(&w->lock);
    return tmpdir;
}

/* Put this run's tarball (w->tartmp) at path without replacing anything (hz_out_place without
 * force: renameat2 RENAME_NOREPLACE or link(2)).  *ino gets its inode.  Returns 0, or -1 with
 * errno (EEXIST: a file is there, e.g. another run's). */
static int place_noreplace(const char *tmp, const char *path, struct stat *ino)
{
    if (stat(tmp, ino) != 0) return -1;
    return hz_out_place(tmp, path, 0);
}

/* Remove path only while it is still the file of inode *ino (this run's). */
static void unlink_if_ours(const char *path, const struct stat *ino)
{
    struct stat st;
    if (lstat(path, &st) == 0 && st.st_dev == ino->st_dev && st.st_ino == ino->st_ino) unlink(path);
}

/* The tarball step of hz_publish: with --force an existing regular file is moved aside to
 * old (removed once OUTDIR is in place; *moved set).  Returns 0, or -1 with err set (w->lost
 * when another run's tarball is there). */
static int publish_tarball(const hz_opts *o, hz_sigwatch *w, const char *tp, struct stat *ino, const char *old,
                           int *moved, char *err, size_t errlen)
{
    struct stat st;
    *moved = 0;
    if (o->force && lstat(tp, &st) == 0 && S_ISREG(st.st_mode)) {
        if (rename(tp, old) != 0) {
            snprintf(err, errlen, "%s: cannot move the existing tarball aside: %s", tp, strerror(errno));
            return -1;
        }
        *moved = 1;
    }
    if (place_noreplace(w->tartmp, tp, ino) != 0) {
        int e = errno;
        w->lost = e == EEXIST;
        if (e == EEXIST) snprintf(err, errlen, "%s: the tarball exists now (another run?)", tp);
        else snprintf(err, errlen, "%s: cannot rename %s to it: %s", tp, w->tartmp, strerror(e));
        if (*moved) { rename(old, tp); *moved = 0; }
        return -1;
    }
    return 0;
}

/* HSPZ_FAULT=publish-kill:N (tests only): the process kills itself (SIGKILL) at publish step
 * N: 1 the tarball placed, OUTDIR not; 2 an in-place fill after its first name; 3 OUTDIR in
 * place (-Z: the temporary folder renamed TMP.done), what --force moved aside not yet removed;
 * 4 everything written, nothing placed.  The rerun's recovery is tested so. */
static void fault_point(int n)
{
    const char *f = getenv("HSPZ_FAULT");
    if (f && !strncmp(f, "publish-kill:", 13) && atoi(f + 13) == n) raise(SIGKILL);
}

/* The names of tmpdir in fill order (manifest.json last, queries.tsv just before it: the
 * folder looks complete only when all is in), one per line into tmpdir.fill (the record a
 * rerun reads after a kill); *n gets their count.  0, or -1 with errno. */
static int fill_list(const char *tmpdir, char ***names, size_t *n)
{
    DIR *d = opendir(tmpdir);
    if (!d) return -1;
    struct dirent *e;
    size_t cap = 0;
    *names = NULL; *n = 0;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (*n == cap) {
            char **v = realloc(*names, (cap = cap ? 2 * cap : 64) * sizeof *v);
            if (!v) { closedir(d); errno = ENOMEM; return -1; }
            *names = v;
        }
        if (!((*names)[(*n)++] = strdup(e->d_name))) { closedir(d); errno = ENOMEM; return -1; }
    }
    closedir(d);
    for (int pass = 0; pass < 2; pass++) {   /* queries.tsv, then manifest.json to the end */
        const char *last = pass ? "manifest.json" : "queries.tsv";
        for (size_t i = 0; i + 1 < *n; i++)
            if (!strcmp((*names)[i], last)) { char *t = (*names)[i]; memmove(*names + i, *names + i + 1, (*n - i - 1) * sizeof t); (*names)[*n - 1] = t; break; }
    }
    char lp[4300];
    hz_tmp_fill_path(tmpdir, lp, sizeof lp);
    int fd = hz_out_create(lp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) { if (fd >= 0) close(fd); return -1; }
    for (size_t i = 0; i < *n; i++) fprintf(f, "%s\n", (*names)[i]);
    return fclose(f) == 0 ? 0 : -1;
}

/* Fill the existing empty OUTDIR in place (its owner, group, mode and setgid stay; a mount
 * point works): tmpdir lies inside it, its entries move up one by one without replacing
 * anything, manifest.json last.  On failure what was moved goes back.  0, or -1 with err. */
static int fill_outdir(const char *outdir, const char *tmpdir, char *err, size_t errlen)
{
    char **nm = NULL;
    size_t n = 0, i = 0;
    int rc = -1;
    int td = -1, od = open(outdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (od < 0 || (td = open(tmpdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", outdir, strerror(errno)); goto out;
    }
    if (fill_list(tmpdir, &nm, &n)) { snprintf(err, errlen, "%s: cannot list %s: %s", outdir, tmpdir, strerror(errno)); goto out; }
    for (i = 0; i < n; i++)
        if (renameat2(td, nm[i], od, nm[i], RENAME_NOREPLACE) != 0) {
            int e = errno;
            snprintf(err, errlen, "%s: cannot move %s into it: %s%s", outdir, nm[i], strerror(e),
                     e == EEXIST ? " (another run's output is there now)" : "");
            while (i-- > 0) renameat2(od, nm[i], td, nm[i], RENAME_NOREPLACE);
            goto out;
        } else if (i == 0) fault_point(2);
    rmdir(tmpdir);
    rc = 0;
out:
    for (size_t k = 0; k < n; k++) free(nm[k]);
    free(nm);
    if (od >= 0) close(od);
    if (td >= 0) close(td);
    return rc;
}

/* 1 when OUTDIR holds nothing but hidden temporaries of hspz runs (".hspz.tmp-...") */
static int outdir_empty(const char *outdir)
{
    DIR *d = opendir(outdir);
    if (!d) return 0;
    struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(d)))
        empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strncmp(e->d_name, ".hspz.tmp-", 10);
    closedir(d);
    return empty;
}

int hz_publish(const hz_opts *o, const char *tmpdir, const char *tarball, hz_sigwatch *w, char *err, size_t errlen)
{
    /* The tarball first, then OUTDIR, both under the lock (a signal waits until both are in
     * place or neither is).  Neither ever replaces what another run put there meanwhile: the
     * tarball is renamed without replacing, OUTDIR is renamed onto a missing folder or, when
     * it existed empty, filled in place without replacing a name; so of two runs of the same
     * -o exactly one publishes; the other fails, removing only its own files (w->lost set when
     * it lost the tarball).  With --force an existing OUTDIR (one hspz wrote) or tarball is
     * moved aside first and removed once the new ones are in place.  The owner record names
     * every one of these paths first, so a rerun after a kill puts things right (recover). */
    pthread_mutex_lock(&w->lock);
    const char *tp = w->tartmp[0] ? tarball : NULL;   /* registered by hz_tmpdir_make */
    char old[4300] = "", oldtar[4300] = "", more[13000];
    struct stat tino, st;
    int rc = -1, tar_moved = 0, out_moved = 0, placed = 0;
    if (w->tartmp[0] && !tp) { snprintf(err, errlen, "%s: the tarball's path was not given to publish it", w->tartmp); goto out; }
    if (tp && stat(w->tartmp, &tino) != 0) { snprintf(err, errlen, "%s: %s", w->tartmp, strerror(errno)); goto out; }
    if (o->segments_archive) {
        /* -Z: the archive instead of OUTDIR (hillerlab/hspZ): OUTDIR is neither checked nor
         * touched here; the temporary folder goes once the archive is in place */
    } else if (w->fill) {
        if (!outdir_empty(o->outdir)) {
            snprintf(err, errlen, "%s: output directory is not empty any more (another run?)", o->outdir); goto out;
        }
    } else if (lstat(o->outdir, &st) == 0) {
        if (!S_ISDIR(st.st_mode) || !o->force) {   /* another run's (its manifest.json: no failure manifest) */
            snprintf(err, errlen, "%s: output directory %s (another run?)", o->outdir,
                     S_ISDIR(st.st_mode) && !outdir_empty(o->outdir) ? "is not empty any more" : "appeared meanwhile");
            goto out;
        }
        if (hz_outdir_is_hspz(o->outdir, err, errlen)) goto out;   /* again: a file added during the run stays */
        snprintf(old, sizeof old, "%s.old-%ld-%s", o->outdir, (long)getpid(), hz_out_token());
    }
    if (tp) snprintf(oldtar, sizeof oldtar, "%s.old-%ld-%s", tp, (long)getpid(), hz_out_token());
    {
        char fl[4300] = "", ab[3][PATH_MAX];
        if (w->fill) hz_tmp_fill_path(tmpdir, fl, sizeof fl);
        abs_place(old, ab[0], sizeof ab[0]);
        abs_place(oldtar, ab[1], sizeof ab[1]);
        abs_place(fl, ab[2], sizeof ab[2]);
        snprintf(more, sizeof more, "tarball_ino %llu:%llu\nold_outdir %s\nold_tarball %s\nfill %s\n",
                 tp ? (unsigned long long)tino.st_dev : 0ULL, tp ? (unsigned long long)tino.st_ino : 0ULL, ab[0], ab[1], ab[2]);
        record_write(w, o->outdir, tp, more);
    }
    fault_point(4);   /* everything written, nothing placed yet */
    if (tp && publish_tarball(o, w, tp, &tino, oldtar, &tar_moved, err, errlen)) goto out;
    placed = tp != NULL;
    if (placed) fault_point(1);
    if (o->segments_archive) {
        /* one rename makes the run published for recover() (tmp gone); TMP.done is removed
         * below, or by recover() after a kill */
        char done[4300];
        snprintf(done, sizeof done, "%s.done", tmpdir);
        if (rename(tmpdir, done) != 0) {
            snprintf(err, errlen, "%s: cannot rename it: %s", tmpdir, strerror(errno));
            goto undo_tar;
        }
        w->settled = 1;
        fault_point(3);
        hz_rm_rf(done);
        if (tar_moved) unlink(oldtar);
        hz_tmp_owner_unlink(tmpdir);
        w->tmpdir[0] = w->tartmp[0] = 0;
        rc = 0;
        goto out;
    }
    if (w->fill) {
        if (fill_outdir(o->outdir, tmpdir, err, errlen)) goto undo_tar;
    } else {
        if (old[0]) {
            if (rename(o->outdir, old) != 0) {
                snprintf(err, errlen, "%s: cannot move the existing folder aside: %s", o->outdir, strerror(errno));
                goto undo_tar;
            }
            out_moved = 1;
        }
        if (renameat2(AT_FDCWD, tmpdir, AT_FDCWD, o->outdir, RENAME_NOREPLACE) != 0) {
            int e = errno;
            snprintf(err, errlen, "%s: cannot rename %s to it: %s%s", o->outdir, tmpdir, strerror(e),
                     e == EEXIST || e == ENOTEMPTY ? " (another run's output is there now)" : "");
            if (out_moved) rename(old, o->outdir);
            goto undo_tar;
        }
    }
    w->settled = 1;   /* from here on the run finishes: a signal no longer stops it */
    fault_point(3);
    if (out_moved) hz_rm_rf(old);   /* before the record goes: a kill now is finished by the rerun */
    if (tar_moved) unlink(oldtar);
    hz_tmp_owner_unlink(tmpdir);
    w->tmpdir[0] = w->tartmp[0] = 0;
    rc = 0;
    goto out;
undo_tar:   /* OUTDIR failed after our tarball was placed: take back ours only */
    if (placed) unlink_if_ours(tp, &tino);
    if (tar_moved) rename(oldtar, tp);
out:
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
