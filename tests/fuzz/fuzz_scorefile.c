/* fuzz_scorefile — the LASTZ score file parser (src/core/scoring.c hz_scorefile_load) and the 8x8
 * matrix built from it (hz_scoring_build), on arbitrary bytes.
 *
 * Properties: no crash, leak or UB; an error is one line "FILE:LINE:COL: ..." naming the
 * file; an accepted file gives a matrix whose ACGT block is the file's (RULES.md "scoring
 * file") and whose separator row and column are -10 x xdrop.
 */
#include "scoring.h"
#include "fuzz_util.h"
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64], err[1024] = "";
    int fd = fz_memfd(data, size, path);
    if (fd < 0) return 0;
    hz_scorefile sf;
    int rc = hz_scorefile_load(path, &sf, err, sizeof err);
    close(fd);
    if (rc != 0) {
        FZ_ASSERT(!strncmp(err, path, strlen(path)) && !strchr(err, '\n'), "error without the file name or not one line: %s", err);
        return 0;
    }
    FZ_ASSERT(sf.n_ignored_keys >= 0 && memchr(sf.ignored_keys, 0, sizeof sf.ignored_keys), "ignored keys not a string");
    static const char *amb[] = { NULL, "n", "iupac", "n,5,20" };
    int32_t sub[HZ_NCODES][HZ_NCODES];
    for (int a = 0; a < 4; a++) {
        FZ_ASSERT(hz_scoring_build(sub, &sf, amb[a], 910, err, sizeof err) == 0, "build failed: %s", err);
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 4; c++)
                FZ_ASSERT(sub[r][c] == sf.sub[r][c], "matrix[%d][%d] %d != file %d", r, c, sub[r][c], sf.sub[r][c]);
        for (int k = 0; k < HZ_NCODES; k++)
            FZ_ASSERT(sub[HZ_E][k] == -9100 && sub[k][HZ_E] == -9100, "separator score %d/%d", sub[HZ_E][k], sub[k][HZ_E]);
    }
    return 0;
}
