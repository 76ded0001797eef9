/* outsafe — output safety by file identity, not by spelling (README "Output"; issue 31).
 *
 * Every file or folder hspz writes goes through here: temporary names carry this process's
 * pid and a random token ("PATH.tmp-<pid>-<token>") and are created with O_EXCL|O_NOFOLLOW
 * (mkdir for folders), so a leftover of another process with the same pid (containers, PID
 * namespaces, hosts sharing a file system) is never opened, followed or removed; an output
 * replaces only a missing path or a regular file, never a symbolic link, device, FIFO or
 * folder; inputs and outputs are compared by (st_dev, st_ino) after resolving links.
 * Owner records (hz_owner_*) say which process made a temporary so that the next run can
 * clean up after one that was killed.  Used by publish.c, index, plan, report, package and
 * the --dump-* writers.  No layer above io is included.
 */
#ifndef HZ_OUTSAFE_H
#define HZ_OUTSAFE_H
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* This process's random token: 16 lowercase hex digits, the same for the whole process
 * (getrandom, made once).  Never NULL. */
const char *hz_out_token(void);

/* buf[0..n) = "PATH.tmp-<pid>-<token>": this process's temporary name for path. */
void hz_out_tmpname(const char *path, char *buf, size_t n);

/* Create path for writing with O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC (mode 0666 & ~umask):
 * never over an existing file or link.  Returns the fd, or -1 with errno. */
int hz_out_create(const char *path);

/* hz_out_tmpname(path) into tmp[0..n), created with hz_out_create, as a stdio stream
 * (mode "wb").  NULL with errno when it cannot be created (EEXIST: never reused). */
FILE *hz_out_fopen_tmp(const char *path, char *tmp, size_t n);

/* Put the finished temporary file tmp at path: only over nothing or (force) a regular file;
 * a symbolic link, device, FIFO or folder at path is never replaced (ELOOP/EEXIST/EISDIR).
 * Without force, renameat2(RENAME_NOREPLACE) or link(2), so a file that appeared meanwhile
 * stays (EEXIST).  0, or -1 with errno; tmp is left for the caller to remove on error. */
int hz_out_place(const char *tmp, const char *path, int force);

/* 1 when a and b name the same file after resolving links ((st_dev, st_ino)); 0 otherwise
 * (also when either does not exist). */
int hz_same_file(const char *a, const char *b);

/* An output file path checked before any work, against the files the command reads
 * (inputs[0..n), NULL entries skipped).  Returns the exit class (README "Exit status") with
 * err naming the path and the rule:
 *   2  the output is one of the inputs (by identity, links resolved; not even with --force),
 *      or the path is "-" (never stdout, never a file named '-');
 *   1  the path is a symbolic link, a folder, a device or FIFO (never replaced), exists
 *      without force, or its folder is missing or not writable;
 *   0  fine. */
int hz_out_check(const char *path, const char *const *inputs, size_t n, int force, const char *what,
                 char *err, size_t errlen);

/* Stdout after --print-commands and the like: flushed and checked.  0, or -1 with err set.
 * On EPIPE the failed write left SIGPIPE pending on this thread (blocked during a run), and
 * hz_publish_abort ends the run as for SIGTERM: one line, exit 141 (publish.h). */
int hz_out_stdout_flush(char *err, size_t errlen);

/* An owner record: who made a temporary (process identity) plus the run's own lines. */
typedef struct {
    long pid;
    unsigned long long start;    /* the process's start time, clock ticks after boot */
    char boot[64], ns[64], host[256], token[24];
} hz_owner;

/* This process's identity.  0, or -1 where /proc cannot tell (then no record is written and
 * nothing of another process is ever removed). */
int hz_owner_self(hz_owner *w);

/* Write (or atomically replace) the owner record at path: "hspz owner 2" then "pid", "start",
 * "boot", "ns", "host", "token" lines, then extra (lines "key value\n", may be NULL).  The
 * record is written to a temporary made with O_EXCL|O_NOFOLLOW and renamed over path only
 * when path is missing or a regular file.  0, or -1 with errno. */
int hz_owner_write(const char *path, const hz_owner *w, const char *extra);

/* Read the record at path (a regular file of this user, not followed through a link) into
 * *w; the value of each key of keys[0..nk) into vals[k][0..vn) ("" when absent).  0, or -1
 * when it is not an hspz owner record. */
int hz_owner_read(const char *path, hz_owner *w, const char *const *keys, char (*vals)[4400], size_t nk);

/* 1 when the record's process is known to be gone: same boot, PID namespace and host as
 * self, and no process of that pid exists or the one that does started at another time (the
 * pid was reused); a record with self's pid is never gone unless its start time differs.
 * 0 otherwise (another machine or container: a dead pid there proves nothing). */
int hz_owner_gone(const hz_owner *rec, const hz_owner *self);

#endif
