/* seqio_pipe — a FASTA stream decoded on a helper thread (issue 13 item 3: "parallel decode").
 *
 * zlib inflated one plain-gzip stream on one thread in 0.12 s of the 0.18 s a 39.7 Mbp gzip
 * FASTA took to load; the FASTA parser takes most of the rest.  Here a thread runs the
 * stream's reader (bgzf_read, or seqio_gzip.c's igzip reader for plain gzip) into a ring of
 * blocks and the loader parses them in order, so the two overlap.  The loader sees exactly
 * the blocks, the end and the errors (with their errno) that the reader would have returned
 * to it, in the same order.  Internal to the seqio module (seqio_impl.h).
 */
#include "seqio_impl.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define PIPE_SLOTS 4

struct hz_sq_pipe {
    BGZF *fp;
    hz_sq_gz *gz;                       /* the reader when not NULL, */
    hz_sq_bgzf *bz;                     /* or this one, else bgzf_read of fp */
    int sfd;                            /* the reader's socket end, shut down to stop a blocked read */
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint8_t *buf[PIPE_SLOTS];
    ssize_t n[PIPE_SLOTS];              /* the reader's result for the slot */
    int err[PIPE_SLOTS];                /* its errno */
    uint64_t made, taken;               /* slots filled and handed out so far (ring indices) */
    int stop, done;                     /* stop: the loader gave up; done: the thread ended */
    int sync;                           /* no thread could start: the reader on the loader's thread */
};

static ssize_t pipe_read(hz_sq_pipe *p, uint8_t *buf)
{
#if HSPZ_HAVE_ISAL
    if (p->gz) return hz_sq_gz_read(p->gz, buf, HZ_IO_BLOCK);
    if (p->bz) return hz_sq_bgzf_read(p->bz, buf, HZ_IO_BLOCK);
#endif
    return bgzf_read(p->fp, buf, HZ_IO_BLOCK);
}

static void *pipe_main(void *arg)
{
    hz_sq_pipe *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        /* the slot handed out last is still the loader's until it asks for the next one */
        while (!p->stop && p->made - p->taken >= PIPE_SLOTS - 1) pthread_cond_wait(&p->cv, &p->mu);
        int stop = p->stop;
        size_t k = (size_t)(p->made % PIPE_SLOTS);
        pthread_mutex_unlock(&p->mu);
        if (stop) break;
        errno = 0;
        ssize_t r = pipe_read(p, p->buf[k]);
        int e = errno;
        pthread_mutex_lock(&p->mu);
        p->n[k] = r;
        p->err[k] = e;
        p->made++;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        if (r <= 0) break;              /* the end or an error: nothing follows */
    }
    pthread_mutex_lock(&p->mu);
    p->done = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int hz_sq_pipe_start(hz_sq_pipe **out, BGZF *fp, hz_sq_gz *gz, hz_sq_bgzf *bz, int sfd)
{
    hz_sq_pipe *p = calloc(1, sizeof *p);
    *out = NULL;
    if (!p) return -1;
    p->fp = fp;
    p->gz = gz;
    p->bz = bz;
    p->sfd = sfd;
    for (int k = 0; k < PIPE_SLOTS; k++)
        if (!(p->buf[k] = malloc(HZ_IO_BLOCK))) goto fail;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    if (pthread_create(&p->th, NULL, pipe_main, p)) {   /* e.g. a process limit: read in place */
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->cv);
        p->sync = 1;
    }
    *out = p;
    return 0;
fail:
    for (int k = 0; k < PIPE_SLOTS; k++) free(p->buf[k]);
    free(p);
    return -1;
}

ssize_t hz_sq_pipe_next(hz_sq_pipe *p, const uint8_t **buf)
{
    if (p->sync) {
        errno = 0;
        *buf = p->buf[0];
        return pipe_read(p, p->buf[0]);
    }
    pthread_mutex_lock(&p->mu);
    while (p->made == p->taken && !p->done) pthread_cond_wait(&p->cv, &p->mu);
    if (p->made == p->taken) {          /* cannot happen: the thread ends after a slot <= 0 */
        pthread_mutex_unlock(&p->mu);
        errno = EIO;
        return -1;
    }
    size_t k = (size_t)(p->taken % PIPE_SLOTS);
    ssize_t r = p->n[k];
    int e = p->err[k];
    if (r > 0) {                        /* an end or error slot stays: asking again repeats it */
        p->taken++;                     /* the slot before this one is free again */
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    *buf = p->buf[k];
    errno = e;
    return r;
}

void hz_sq_pipe_stop(hz_sq_pipe *p)
{
    if (!p) return;
    if (p->sync) goto out;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    int done = p->done;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    /* a read blocked on a slow pipe returns at once; the stream is not used after this */
    if (!done) shutdown(p->sfd, SHUT_RD);
    pthread_join(p->th, NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
out:
    for (int k = 0; k < PIPE_SLOTS; k++) free(p->buf[k]);
    free(p);
}
