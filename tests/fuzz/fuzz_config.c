/* fuzz_config — the YAML configuration loader (src/run/config.c, libyaml) on arbitrary bytes.
 *
 * Properties: no crash, leak or UB; an error is one line "FILE:LINE:COLUMN: ..." (or the
 * file's name and a reason); config.sha256 is the SHA-256 of the bytes (hashed while read); and
 * what `hspz config` prints for an accepted file is itself accepted and gives the same values
 * (docs/manifest.md: "That output is a valid --config file").
 */
#include "config.h"
#include "fuzz_util.h"
#include <string.h>

static int resolve(hz_config *c, const char *path, char *err, size_t n)
{
    hz_opts f;
    hz_opts_default(&f);
    unsigned char set[HZ_CFG_MAX] = {0};
    return hz_cfg_resolve(c, path, &f, set, err, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int once;
    if (!once) {   /* the checks of HSPZ_* variables are not what is fuzzed here */
        const char *v[] = { "HSPZ_GATE", "HSPZ_GATE_KERNEL", "HSPZ_DEVICE_SEEDS", "HSPZ_DEVICE_LONG", "HSPZ_DEVICE_DEDUP",
                            "HSPZ_REF_BUCKETS", "HSPZ_GPU_TILE" };
        for (size_t i = 0; i < sizeof v / sizeof *v; i++) unsetenv(v[i]);
        once = 1;
    }
    char path[64], err[2048] = "";
    int fd = fz_memfd(data, size, path);
    if (fd < 0) return 0;
    hz_config c = {0};
    int rc = resolve(&c, path, err, sizeof err);
    close(fd);
    if (rc != 0) {
        FZ_ASSERT(!strncmp(err, path, strlen(path)) && !strchr(err, '\n'), "error without the file name or not one line: %s", err);
        hz_cfg_free(&c);
        return 0;
    }
    char hex[65];
    fz_sha256_hex(data, size, hex);
    FZ_ASSERT(!strcmp(c.sha256, hex), "config sha256 %s, input %s", c.sha256, hex);

    /* round trip through `hspz config`'s output */
    char *txt = NULL;
    size_t tl = 0;
    FILE *mf = open_memstream(&txt, &tl);
    if (!mf) { hz_cfg_free(&c); return 0; }
    hz_cfg_print(&c, mf);
    fclose(mf);
    char p2[64], err2[2048] = "";
    int fd2 = fz_memfd((const uint8_t *)txt, tl, p2);
    if (fd2 >= 0) {
        hz_config c2 = {0};
        int rc2 = resolve(&c2, p2, err2, sizeof err2);
        close(fd2);
        FZ_ASSERT(rc2 == 0, "the printed configuration is refused: %s\n--- printed:\n%s", err2, txt);
        for (int i = 0; i < hz_param_count(); i++) {
            char a[256], b[256];
            hz_cfg_value_text(&c.o, i, a, sizeof a);
            hz_cfg_value_text(&c2.o, i, b, sizeof b);
            FZ_ASSERT(!strcmp(a, b), "%s: '%s' printed and read back as '%s'", hz_param_at(i)->key, a, b);
        }
        hz_cfg_free(&c2);
    }
    free(txt);
    hz_cfg_free(&c);
    return 0;
}
