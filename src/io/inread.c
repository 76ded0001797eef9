/* inread — input bytes read once, hashed as they are read (see inread.h). */
#include "inread.h"
#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define HZ_INREAD_BLOCK ((size_t)1 << 20)

int hz_inread_init(hz_inread *r, int fd)
{
    memset(r, 0, sizeof *r);
    r->fd = fd;
    r->cap = HZ_INREAD_BLOCK;
    r->buf = malloc(r->cap);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!r->buf || !ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
        free(r->buf); EVP_MD_CTX_free(ctx);
        r->buf = NULL;
        errno = ENOMEM;
        return -1;
    }
    r->md = ctx;
    return 0;
}

void hz_inread_free(hz_inread *r)
{
    free(r->buf);
    EVP_MD_CTX_free(r->md);
    r->buf = NULL; r->md = NULL;
}

ssize_t hz_inread_next(hz_inread *r)
{
    r->boff += r->blen;
    r->blen = 0;
    if (r->eof) return 0;
    ssize_t k;
    do k = read(r->fd, r->buf, r->cap); while (k < 0 && errno == EINTR);
    if (k < 0) return -1;
    if (k == 0) { r->eof = 1; return 0; }
    r->blen = (size_t)k;
    EVP_DigestUpdate(r->md, r->buf, (size_t)k);
    /* the last 28 bytes of the stream so far */
    if ((size_t)k >= sizeof r->tail) {
        memcpy(r->tail, r->buf + k - sizeof r->tail, sizeof r->tail);
        r->ntail = sizeof r->tail;
    } else {
        size_t keep = r->ntail + (size_t)k > sizeof r->tail ? sizeof r->tail - (size_t)k : r->ntail;
        memmove(r->tail, r->tail + r->ntail - keep, keep);
        memcpy(r->tail + keep, r->buf, (size_t)k);
        r->ntail = keep + (size_t)k;
    }
    return k;
}

ssize_t hz_inread_at(hz_inread *r, uint64_t off, void *dst, size_t n)
{
    size_t got = 0;
    while (got < n) {
        uint64_t o = off + got;
        if (o >= r->boff && o < r->boff + r->blen) {          /* in the window */
            size_t at = (size_t)(o - r->boff), c = r->blen - at;
            if (c > n - got) c = n - got;
            memcpy((char *)dst + got, r->buf + at, c);
            got += c;
        } else if (o < r->boff) {                             /* behind it: hashed already */
            uint64_t c = r->boff - o;
            if (c > n - got) c = n - got;
            ssize_t k;
            do k = pread(r->fd, (char *)dst + got, (size_t)c, (off_t)o); while (k < 0 && errno == EINTR);
            if (k < 0) return -1;
            if (k == 0) break;
            got += (size_t)k;
        } else {                                              /* ahead: read on */
            ssize_t k = hz_inread_next(r);
            if (k < 0) return -1;
            if (k == 0) break;
        }
    }
    return (ssize_t)got;
}

int hz_inread_finish(hz_inread *r, char hex[65], uint64_t *bytes)
{
    ssize_t k;
    while ((k = hz_inread_next(r)) > 0) {}
    if (k < 0) return -1;
    unsigned char md[32];
    unsigned int mdl = 0;
    EVP_DigestFinal_ex(r->md, md, &mdl);
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", md[i]);
    hex[64] = 0;
    if (bytes) *bytes = r->boff;
    return 0;
}

/* ------------------------------------------------------------------ the feeder */

static void *feed_main(void *p)
{
    hz_infeed *f = p;
    f->rc = 0;
    for (;;) {
        ssize_t k = hz_inread_next(&f->in);
        if (k < 0) { f->rc = -1; f->err = errno; break; }
        if (k == 0) break;
        size_t sent = 0;
        while (sent < (size_t)k) {
            ssize_t s = send(f->sock[1], f->in.buf + sent, (size_t)k - sent, MSG_NOSIGNAL);
            if (s < 0 && errno == EINTR) continue;
            if (s < 0) goto closed;   /* htslib closed its end (done, or it failed) */
            sent += (size_t)s;
        }
    }
closed:
    close(f->sock[1]);   /* htslib's end sees the end of the stream */
    f->sock[1] = -1;
    return NULL;
}

int hz_infeed_start(hz_infeed *f, int fd)
{
    memset(f, 0, sizeof *f);
    f->sock[0] = f->sock[1] = -1;
    if (hz_inread_init(&f->in, fd)) { close(fd); return -1; }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, f->sock) != 0) {
        int e = errno;
        hz_inread_free(&f->in); close(fd);
        errno = e;
        return -1;
    }
    int sz = (int)HZ_INREAD_BLOCK;
    setsockopt(f->sock[1], SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
    if (pthread_create(&f->th, NULL, feed_main, f) != 0) {
        close(f->sock[0]); close(f->sock[1]); hz_inread_free(&f->in); close(fd);
        errno = EAGAIN;
        return -1;
    }
    f->on = 1;
    return f->sock[0];
}

int hz_infeed_finish(hz_infeed *f, int complete, char hex[65], uint64_t *bytes,
                     uint8_t tail[28], size_t *ntail)
{
    int rc = -1, e = EIO;
    if (f->on) pthread_join(f->th, NULL);
    f->on = 0;
    if (f->rc) e = f->err;
    /* the feeder stopped when htslib's end closed; the bytes after it are hashed here */
    else if (complete && hz_inread_finish(&f->in, hex, bytes) == 0) rc = 0;
    else if (complete) e = errno;
    if (tail) memcpy(tail, f->in.tail, f->in.ntail);
    if (ntail) *ntail = f->in.ntail;
    close(f->in.fd);
    hz_inread_free(&f->in);
    if (rc) errno = e;
    return rc;
}
