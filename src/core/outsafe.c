/* outsafe — output safety by file identity (see outsafe.h). */
#define _GNU_SOURCE
#include "outsafe.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* the process's token: made once (a per-process constant, like getpid()) */
static char tok[17];
static pthread_once_t tok_once = PTHREAD_ONCE_INIT;
static void tok_make(void)
{
    unsigned char r[8];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {   /* no entropy source: time and pid */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned long long x = (unsigned long long)ts.tv_nsec * 6364136223846793005ULL ^ (unsigned long long)ts.tv_sec ^
                               ((unsigned long long)getpid() << 32);
        memcpy(r, &x, sizeof r);
    }
    for (int i = 0; i < 8; i++) snprintf(tok + 2 * i, 3, "%02x", r[i]);
}
const char *hz_out_token(void) { pthread_once(&tok_once, tok_make); return tok; }

void hz_out_tmpname(const char *path, char *buf, size_t n)
{
    snprintf(buf, n, "%s.tmp-%ld-%s", path, (long)getpid(), hz_out_token());
}

int hz_out_create(const char *path)
{
    return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
}

FILE *hz_out_fopen_tmp(const char *path, char *tmp, size_t n)
{
    hz_out_tmpname(path, tmp, n);
    int fd = hz_out_create(tmp);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "wb");
    if (!f) { int e = errno; close(fd); unlink(tmp); errno = e; }
    return f;
}

int hz_out_place(const char *tmp, const char *path, int force)
{
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (S_ISLNK(st.st_mode)) { errno = ELOOP; return -1; }
        if (S_ISDIR(st.st_mode)) { errno = EISDIR; return -1; }
        if (!S_ISREG(st.st_mode) || !force) { errno = EEXIST; return -1; }
        return rename(tmp, path);   /* a regular file: replaced (the link itself is never followed) */
    }
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) return -1;
    if (link(tmp, path) != 0) return -1;
    unlink(tmp);
    return 0;
}

int hz_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* the folder path lies in, into dir[0..n) */
static void parent_of(const char *path, char *dir, size_t n)
{
    snprintf(dir, n, "%s", path);
    char *sl = strrchr(dir, '/');
    if (sl == dir) dir[1] = 0;
    else if (sl) *sl = 0;
    else snprintf(dir, n, ".");
}

int hz_out_check(const char *path, const char *const *inputs, size_t n, int force, const char *what,
                 char *err, size_t errlen)
{
    struct stat st;
    char par[4096];
    if (!strcmp(path, "-")) {   /* not stdout: a file named '-' is what nobody means */
        snprintf(err, errlen, "-: the %s path '-' is not stdout here and is not taken as a file name: name a file", what);
        return 2;
    }
    for (size_t i = 0; i < n; i++)
        if (inputs[i] && hz_same_file(inputs[i], path)) {
            snprintf(err, errlen, "%s: the %s would overwrite the input %s", path, what, inputs[i]);
            return 2;
        }
    if (lstat(path, &st) == 0) {
        if (S_ISLNK(st.st_mode)) {
            snprintf(err, errlen, "%s: the %s path is a symbolic link (never replaced; give the file itself)", path, what);
            return 1;
        }
        if (S_ISDIR(st.st_mode)) { snprintf(err, errlen, "%s: the %s path is a folder", path, what); return 1; }
        if (!S_ISREG(st.st_mode)) {
            snprintf(err, errlen, "%s: the %s path is not a regular file (a device or FIFO is never replaced)", path, what);
            return 1;
        }
        if (!force) { snprintf(err, errlen, "%s: the %s exists (use --force to replace it)", path, what); return 1; }
    }
    parent_of(path, par, sizeof par);
    if (stat(par, &st) != 0 || !S_ISDIR(st.st_mode)) {
        int gone = stat(par, &st) != 0;
        snprintf(err, errlen, "%s: the %s's %s '%s' %s", path, what, gone ? "folder" : "parent", par,
                 gone ? "does not exist" : "is not a folder");
        return 1;
    }
    if (access(par, W_OK | X_OK) != 0) {
        snprintf(err, errlen, "%s: the %s's folder '%s' is not writable: %s", path, what, par, strerror(errno));
        return 1;
    }
    return 0;
}

int hz_out_stdout_flush(char *err, size_t errlen)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return 0;
    int e = errno ? errno : EIO;
    /* EPIPE: the write made SIGPIPE pending on this thread (blocked in a run, publish.h);
     * hz_publish_abort finds it there and ends the run as for SIGTERM (one line, exit 141) */
    snprintf(err, errlen, "stdout: write error: %s", strerror(e));
    return -1;
}

/* ------------------------------------------------------------------ owner records */

static int read_line(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    int ok = fgets(buf, (int)n, f) != NULL;
    fclose(f);
    if (!ok) return -1;
    buf[strcspn(buf, "\n")] = 0;
    return 0;
}

/* the start time (field 22 of /proc/PID/stat) of pid, or 0 when it does not exist */
static unsigned long long start_of(long pid)
{
    char p[64], b[1024];
    snprintf(p, sizeof p, "/proc/%ld/stat", pid);
    if (read_line(p, b, sizeof b)) return 0;
    char *s = strrchr(b, ')');
    if (!s) return 0;
    unsigned long long v = 0;
    int field = 2;
    char *sv = NULL;
    for (char *t = strtok_r(s + 1, " ", &sv); t; t = strtok_r(NULL, " ", &sv))
        if (++field == 22) { v = strtoull(t, NULL, 10); break; }
    return v;
}

int hz_owner_self(hz_owner *w)
{
    memset(w, 0, sizeof *w);
    w->pid = (long)getpid();
    w->start = start_of(w->pid);
    if (read_line("/proc/sys/kernel/random/boot_id", w->boot, sizeof w->boot)) w->boot[0] = 0;
    ssize_t l = readlink("/proc/self/ns/pid", w->ns, sizeof w->ns - 1);
    w->ns[l > 0 ? l : 0] = 0;
    if (gethostname(w->host, sizeof w->host - 1) != 0) w->host[0] = 0;
    w->host[sizeof w->host - 1] = 0;
    snprintf(w->token, sizeof w->token, "%s", hz_out_token());
    return w->start && w->boot[0] && w->ns[0] && w->host[0] && !strpbrk(w->host, " \n") ? 0 : -1;
}

int hz_owner_write(const char *path, const hz_owner *w, const char *extra)
{
    char tmp[4400];
    FILE *f = hz_out_fopen_tmp(path, tmp, sizeof tmp);
    if (!f) return -1;
    int bad = fprintf(f, "hspz owner 2\npid %ld\nstart %llu\nboot %s\nns %s\nhost %s\ntoken %s\n%s", w->pid, w->start,
                      w->boot, w->ns, w->host, w->token, extra ? extra : "") < 0;
    if (fclose(f) != 0 || bad || hz_out_place(tmp, path, 1) != 0) { int e = errno; unlink(tmp); errno = e; return -1; }
    return 0;
}

int hz_owner_read(const char *path, hz_owner *w, const char *const *keys, char (*vals)[4400], size_t nk)
{
    struct stat st;
    memset(w, 0, sizeof *w);
    for (size_t k = 0; k < nk; k++) vals[k][0] = 0;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != getuid() || st.st_size > (1 << 22)) return -1;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) { if (fd >= 0) close(fd); return -1; }
    char line[4500];
    int ok = fgets(line, sizeof line, f) && !strcmp(line, "hspz owner 2\n");
    while (ok && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *v = strchr(line, ' ');
        if (!v) continue;
        *v++ = 0;
        if (!strcmp(line, "pid")) w->pid = strtol(v, NULL, 10);
        else if (!strcmp(line, "start")) w->start = strtoull(v, NULL, 10);
        else if (!strcmp(line, "boot")) snprintf(w->boot, sizeof w->boot, "%s", v);
        else if (!strcmp(line, "ns")) snprintf(w->ns, sizeof w->ns, "%s", v);
        else if (!strcmp(line, "host")) snprintf(w->host, sizeof w->host, "%s", v);
        else if (!strcmp(line, "token")) snprintf(w->token, sizeof w->token, "%s", v);
        else for (size_t k = 0; k < nk; k++) if (!strcmp(line, keys[k])) snprintf(vals[k], 4400, "%s", v);
    }
    fclose(f);
    return ok && w->pid > 0 && w->start && w->token[0] ? 0 : -1;
}

int hz_owner_gone(const hz_owner *rec, const hz_owner *self)
{
    if (strcmp(rec->boot, self->boot) || strcmp(rec->ns, self->ns) || strcmp(rec->host, self->host)) return 0;
    if (rec->pid == self->pid) return rec->start != self->start;
    if (kill((pid_t)rec->pid, 0) != 0 && errno == ESRCH) return 1;
    unsigned long long s = start_of(rec->pid);
    return s && s != rec->start;
}
