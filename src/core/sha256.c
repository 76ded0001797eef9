/* sha256 — the sha256 of a file, with its size and lines (see sha256.h). */
#include "sha256.h"
#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static void hexify(const unsigned char *md, char hex[65])
{
    for (int i = 0; i < 32; i++) sprintf(hex + 2 * i, "%02x", md[i]);
    hex[64] = 0;
}

int hz_sha256_file(const char *path, char hex[65], uint64_t *bytes, uint64_t *lines)
{
    /* Only regular files: a device (/dev/zero) never ends and a FIFO or process
     * substitution was consumed by the run (opening a named FIFO again would block). */
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    if (!S_ISREG(st.st_mode)) { errno = EINVAL; return -1; }
    FILE *fp = fopen(path, "rb");
    if (!fp) return -1;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) { fclose(fp); EVP_MD_CTX_free(ctx); errno = ENOMEM; return -1; }
    unsigned char buf[1 << 16];
    size_t n;
    uint64_t nb = 0, nl = 0;
    int last = '\n';
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0) {
        EVP_DigestUpdate(ctx, buf, n);
        nb += n;
        for (size_t i = 0; i < n; i++) nl += buf[i] == '\n';
        last = buf[n - 1];
    }
    int bad = ferror(fp);
    fclose(fp);
    unsigned char md[32];
    unsigned int mdl = 0;
    EVP_DigestFinal_ex(ctx, md, &mdl);
    EVP_MD_CTX_free(ctx);
    if (bad) { errno = EIO; return -1; }
    if (last != '\n') nl++;
    hexify(md, hex);
    if (bytes) *bytes = nb;
    if (lines) *lines = nl;
    return 0;
}

int hz_sha256_unchanged(const char *path, int64_t want_bytes, const char *want_hex)
{
    struct stat st;
    char hex[65];
    uint64_t bytes = 0;
    if (!want_hex || lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    if (want_bytes >= 0 && (int64_t)st.st_size != want_bytes) return 0;   /* cheap first */
    return hz_sha256_file(path, hex, &bytes, NULL) == 0 && !strcmp(hex, want_hex);
}
