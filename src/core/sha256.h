/* sha256 — the sha256 of a file (OpenSSL libcrypto), with its size and number of lines: the
 * manifest's outputs, the index's target check, the plan's input checks (units.c, merge.c).
 */
#ifndef HZ_SHA256_H
#define HZ_SHA256_H
#include <stdint.h>

/* sha256 (64 hex + NUL), size and number of '\n'-terminated lines (a last unterminated line
 * counts) of a regular file.  Returns 0, or -1 with errno set (EINVAL: not a regular file,
 * e.g. a device, FIFO or process substitution, which is not read again; docs/manifest.md). */
int hz_sha256_file(const char *path, char hex[65], uint64_t *bytes, uint64_t *lines);

/* 1 when path (a symbolic link is not followed) is a regular file that still holds what a
 * manifest's outputs[] entry records: want_bytes bytes (-1: not compared) and sha256 want_hex
 * (docs/manifest.md); 0 when it was changed, is gone, is not a regular file or cannot be read.
 * For --force (src/run/publish_force.c) and hspz gapped --outdir's record (gapped_outdir.c). */
int hz_sha256_unchanged(const char *path, int64_t want_bytes, const char *want_hex);
#endif
