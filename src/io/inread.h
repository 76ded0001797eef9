/* inread — an input file's bytes read once, front to back, with their sha256 and count taken
 * on the way (issue 12 item 2: a FIFO or process substitution cannot be read twice, and a
 * regular file read again for the manifest may no longer be the bytes the run used).
 *
 * Two readers over one open descriptor, which is never reopened and never rewound:
 *   hz_inread   a forward window for the 2bit reader (seqio.c): hz_inread_at(off) reads, hashes
 *               and drops the bytes before off; a request behind the window (a 2bit index whose
 *               records overlap or are out of file order) is served by pread without hashing
 *               those bytes twice;
 *   hz_infeed   for htslib (FASTA, gzip, bgzip): a thread reads the descriptor, hashes the raw
 *               (compressed) bytes and passes them on through a socket pair whose other end
 *               htslib reads with bgzf_dopen.
 * The digest is of every byte of the file: at the end the rest of it (bytes after the last
 * record) is read and hashed too.  sha256 through OpenSSL libcrypto.
 */
#ifndef HZ_INREAD_H
#define HZ_INREAD_H
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct {
    int fd;
    void *md;                 /* EVP_MD_CTX */
    uint8_t *buf;             /* the window: file bytes [boff, boff + blen) */
    size_t blen, cap;
    uint64_t boff;
    int eof;
    uint8_t tail[28];         /* the last bytes read (a BGZF stream ends in a 28-byte block) */
    size_t ntail;
} hz_inread;

/* Start reading fd (its file position is where reading starts; 0 for a fresh open).  Returns 0,
 * or -1 (out of memory). */
int hz_inread_init(hz_inread *r, int fd);

/* Copy n bytes at file offset off into dst.  Bytes from the window's end up to off are read and
 * hashed on the way; bytes behind the window are read with pread (regular files only).
 * Returns the bytes copied (< n only at the end of the file) or -1 with errno set. */
ssize_t hz_inread_at(hz_inread *r, uint64_t off, void *dst, size_t n);

/* Read the next bytes into the window and hash them; the window is then [boff, boff + blen).
 * Returns the byte count (0 at the end of the file) or -1 with errno set. */
ssize_t hz_inread_next(hz_inread *r);

/* Read and hash the rest of the file, then write the sha256 (64 hex + NUL) and the byte count of
 * the whole file.  Returns 0, or -1 with errno set (a read error). */
int hz_inread_finish(hz_inread *r, char hex[65], uint64_t *bytes);

/* Free the window and the digest state (the descriptor is the caller's). */
void hz_inread_free(hz_inread *r);

/* The feeder thread of htslib's input. */
typedef struct {
    hz_inread in;
    int sock[2];              /* [0]: htslib's end, [1]: the feeder's */
    pthread_t th;
    int on, stop, rc, err;    /* stop: the reader failed, do not drain; rc/err: the thread's result */
} hz_infeed;

/* Start the feeder on fd (which it closes at the end).  Returns the descriptor htslib should read
 * (bgzf_dopen takes it over), or -1 with errno set (fd is then closed). */
int hz_infeed_start(hz_infeed *f, int fd);

/* End the feeder after htslib closed its end.  complete: htslib read the stream to its end, so
 * the rest of the file is drained and the digest written into hex/bytes; else the feeder stops
 * at once.  tail/ntail (may be NULL) get the last bytes of the file.  Returns 0, or -1 with
 * errno (a read error, or complete == 0). */
int hz_infeed_finish(hz_infeed *f, int complete, char hex[65], uint64_t *bytes,
                     uint8_t tail[28], size_t *ntail);

#endif
