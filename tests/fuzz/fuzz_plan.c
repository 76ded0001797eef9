/* fuzz_plan — the plan.json reader of `hspz run --plan` and `hspz merge` (src/run/units.c
 * hz_unitplan_read, jansson), the --unit list parser and the configuration the plan carries.
 *
 * Properties: no crash, leak or UB; an error is one line naming the file; an accepted plan has
 * units 1..n in order, each inside the plan's blocks with a non-empty interval range, seed_hits
 * that sum to the plan's, sha256 = SHA-256 of the bytes, and --unit lists behave (1 and 1-n
 * select, 0 and n+1 are refused).
 */
#include "units.h"
#include "config.h"
#include "fuzz_util.h"
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64], err[2048] = "";
    int fd = fz_memfd(data, size, path);
    if (fd < 0) return 0;
    hz_unitplan p;
    int rc = hz_unitplan_read(path, &p, err, sizeof err);
    close(fd);
    if (rc != 0) {
        FZ_ASSERT(!strstr(err, "out of memory") ? !strncmp(err, path, strlen(path)) && !strchr(err, '\n') : 1,
                  "error without the file name or not one line: %s", err);
        return 0;
    }
    char hex[65];
    fz_sha256_hex(data, size, hex);
    FZ_ASSERT(!strcmp(p.sha256, hex), "plan sha256 %s, input %s", p.sha256, hex);
    uint64_t hits = 0;
    for (size_t i = 0; i < p.n; i++) {
        const hz_unit *u = &p.u[i];
        FZ_ASSERT(u->id == i + 1 && u->r < p.n_tblock && u->q < p.n_qblock && u->k0 < u->k1, "unit %zu malformed", i + 1);
        hits += u->seed_hits;
    }
    FZ_ASSERT(hits == p.seed_hits, "seed hits do not add up");
    unsigned char *sel = calloc(p.n ? p.n : 1, 1);
    if (sel && p.n) {
        char spec[64];
        FZ_ASSERT(hz_unit_ids_parse("1", &p, sel, err, sizeof err) == 0 && sel[0], "--unit 1 refused: %s", err);
        snprintf(spec, sizeof spec, "1-%zu", p.n);
        FZ_ASSERT(hz_unit_ids_parse(spec, &p, sel, err, sizeof err) == 0 && sel[p.n - 1], "--unit %s refused: %s", spec, err);
        snprintf(spec, sizeof spec, "%zu", p.n + 1);
        FZ_ASSERT(hz_unit_ids_parse(spec, &p, sel, err, sizeof err) != 0, "--unit %s accepted", spec);
        FZ_ASSERT(hz_unit_ids_parse("0", &p, sel, err, sizeof err) != 0, "--unit 0 accepted");
    }
    free(sel);
    /* the settings the plan carries, as `hspz run --plan` resolves them (main.c plan_settings) */
    char cp[64];
    int cfd = fz_memfd((const uint8_t *)p.config, strlen(p.config), cp);
    if (cfd >= 0) {
        hz_config c = {0};
        hz_opts f;
        hz_opts_default(&f);
        unsigned char set[HZ_CFG_MAX] = {0};
        hz_cfg_resolve(&c, cp, &f, set, err, sizeof err);
        hz_cfg_free(&c);
        close(cfd);
    }
    hz_unitplan_free(&p);
    return 0;
}
