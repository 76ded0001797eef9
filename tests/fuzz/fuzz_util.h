/* fuzz_util — shared by the libFuzzer targets of tests/fuzz (see README.md).
 *
 * The readers under test take a path; the fuzz input is put in a memfd (a regular file that
 * lives in memory) and the reader gets "/proc/self/fd/N", which opens it afresh at offset 0.
 * fz_pipe gives the same bytes as a pipe (a FIFO / process substitution) for inputs that fit in
 * its buffer.  Both return the descriptor to close afterwards, or -1 (the input is skipped).
 */
#ifndef HZ_FUZZ_UTIL_H
#define HZ_FUZZ_UTIL_H
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static inline int fz_write_all(int fd, const uint8_t *d, size_t n)
{
    while (n) {
        ssize_t k = write(fd, d, n);
        if (k <= 0) return -1;
        d += k; n -= (size_t)k;
    }
    return 0;
}

static inline int fz_memfd(const uint8_t *d, size_t n, char path[64])
{
    int fd = memfd_create("hspz-fuzz", MFD_CLOEXEC);
    if (fd < 0) return -1;
    if (fz_write_all(fd, d, n)) { close(fd); return -1; }
    snprintf(path, 64, "/proc/self/fd/%d", fd);
    return fd;
}

/* The read end of a pipe holding d (n at most the pipe's buffer, 64 KiB); the write end is
 * closed, so the reader sees the end of the stream after the bytes. */
static inline int fz_pipe(const uint8_t *d, size_t n, char path[64])
{
    int p[2];
    if (n > 60000 || pipe(p) != 0) return -1;
    if (fz_write_all(p[1], d, n)) { close(p[0]); close(p[1]); return -1; }
    close(p[1]);
    snprintf(path, 64, "/proc/self/fd/%d", p[0]);
    return p[0];
}

/* hex SHA-256 of d[0..n), what the readers record as a file's sha256 */
static inline void fz_sha256_hex(const uint8_t *d, size_t n, char hex[65])
{
    unsigned char md[32];
    unsigned int l = 0;
    EVP_Digest(d, n, md, &l, EVP_sha256(), NULL);
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

/* A property the target checks failed: report it and abort, so that libFuzzer keeps the input. */
#define FZ_ASSERT(c, ...) do { if (!(c)) { fprintf(stderr, "fuzz: property failed: " __VA_ARGS__); \
                                           fputc('\n', stderr); abort(); } } while (0)

#endif
