/* fuzz_seqio — hz_seqset_load (src/io/seqio.c, src/io/inread.c) on arbitrary bytes: FASTA, gzip/bgzip
 * FASTA (htslib) and 2bit, chosen by the first bytes as in a run.
 *
 * Properties: no crash, leak or UB; a failed load leaves the set empty with one error line
 * naming the file; a successful one has consistent offsets, file_bytes = the input size and
 * sha256 = SHA-256 of the input (hashed while read, inread.h); and the same bytes from a pipe
 * (a FIFO or process substitution) give the same records and digest, except for what only a
 * regular file allows (2bit, the BGZF end-of-file check).
 */
#include "seqio.h"
#include "fuzz_util.h"
#include <string.h>

static void check_set(const hz_seqset *s, const char *path, size_t size, const char *want_sha)
{
    uint64_t sum = 0;
    FZ_ASSERT(s->n > 0 && s->path && !strcmp(s->path, path), "loaded set has no records or path");
    for (size_t i = 0; i < s->n; i++) {
        FZ_ASSERT(s->name[i] != NULL, "record %zu has no name", i);
        FZ_ASSERT(s->off[i] == sum, "record %zu: offset %llu, expected %llu", i,
                  (unsigned long long)s->off[i], (unsigned long long)sum);
        sum += s->len[i];
    }
    FZ_ASSERT(sum == s->total, "total %llu != sum of lengths %llu", (unsigned long long)s->total, (unsigned long long)sum);
    FZ_ASSERT(s->file_bytes == size, "file_bytes %llu, input %zu", (unsigned long long)s->file_bytes, size);
    FZ_ASSERT(!strcmp(s->sha256, want_sha), "sha256 %s, input %s", s->sha256, want_sha);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64], err[1024], sha[65] = "";
    fz_sha256_hex(data, size, sha);
    int fd = fz_memfd(data, size, path);
    if (fd < 0) return 0;
    hz_seqset s;
    int rc = hz_seqset_load(path, &s, err, sizeof err);
    if (rc == 0) check_set(&s, path, size, sha);
    else FZ_ASSERT(s.n == 0 && s.data == NULL && !strncmp(err, path, strlen(path)) && !strchr(err, '\n'),
                   "a failed load must leave an empty set and one line naming the file: %s", err);
    close(fd);

    char ppath[64], perr[1024];
    int pfd = fz_pipe(data, size, ppath);
    if (pfd >= 0) {
        hz_seqset p;
        int prc = hz_seqset_load(ppath, &p, perr, sizeof perr);
        close(pfd);
        if (prc == 0) check_set(&p, ppath, size, sha);
        if (rc == 0 && strcmp(s.kind, "2bit") != 0) {
            FZ_ASSERT(prc == 0, "the file loads, the same bytes from a pipe fail: %s", perr);
            FZ_ASSERT(p.n == s.n && p.total == s.total && !strcmp(p.kind, s.kind), "pipe and file differ");
            for (size_t i = 0; i < s.n; i++)
                FZ_ASSERT(!strcmp(p.name[i], s.name[i]) && p.len[i] == s.len[i], "record %zu differs", i);
            FZ_ASSERT(s.total == 0 || !memcmp(p.data, s.data, s.total), "sequence bytes differ");
        }
        if (prc == 0 && rc != 0)   /* only a regular file has the BGZF end-of-file check */
            FZ_ASSERT(strstr(err, "BGZF end-of-file") != NULL, "the pipe loads, the file fails: %s", err);
        hz_seqset_free(&p);
    }
    hz_seqset_free(&s);
    return 0;
}
