/* package_impl — what package.c (commands, partition, single file) and package_tar.c (the
 * tarball) share; not a public header. */
#ifndef HZ_PACKAGE_IMPL_H
#define HZ_PACKAGE_IMPL_H
#include "package.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a growing string (NUL-terminated) ---- */
typedef struct { char *s; size_t n, cap; } sbuf;

static inline int sb_add(sbuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t c = b->cap ? b->cap : 256;
        while (c < b->n + n + 1) c *= 2;
        char *p = realloc(b->s, c);
        if (!p) return -1;
        b->s = p; b->cap = c;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
    return 0;
}
static inline int sb_str(sbuf *b, const char *s) { return sb_add(b, s, strlen(s)); }


static inline char *path_join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* ---- one lastz command of lastz-commands.txt: its segments file's stem, target block r,
 * query block q, strand 0 plus / 1 minus ---- */
typedef struct { char *base; size_t r, q; int strand; } pcmd;
typedef struct { pcmd *v; size_t n, cap; } pcmds;


/* The Galaxy data tarball (or -Z's archive) of dir for the commands c, at its temporary name
 * (package.h hz_package; create_lock, may be NULL, is held while it is created).  0, or -1
 * with err (no temporary left). */
int hz_pk_write_tarball(const hz_opts *o, const char *dir, const hz_side *t, const hz_side *q,
                        const pcmds *c, pthread_mutex_t *create_lock, char *err, size_t errlen);

#endif
