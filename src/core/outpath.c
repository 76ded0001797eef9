/* outpath — paths of a run's outputs: parent folder, removal of this run's folders, the
 * rules for a file written next to OUTDIR (see outpath.h). */
#include "outpath.h"
#include "outsafe.h"
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    return remove(p);
}
void hz_rm_rf(const char *p) { nftw(p, rm_cb, 16, FTW_DEPTH | FTW_PHYS); }

void hz_parent_dir(const char *path, char *dir, size_t n)
{
    snprintf(dir, n, "%s", path);
    char *sl = strrchr(dir, '/');
    if (sl == dir) dir[1] = 0;
    else if (sl) *sl = 0;
    else snprintf(dir, n, ".");
}

int hz_output_file_check(const hz_opts *o, const char *path, const char *what, char *err, size_t errlen)
{
    char par[4096], rp[PATH_MAX], ro[PATH_MAX];
    size_t ol = strlen(o->outdir);
    if (!strcmp(path, o->outdir) || (!strncmp(path, o->outdir, ol) && path[ol] == '/')) {
        snprintf(err, errlen, "%s: the %s cannot be OUTDIR or inside it", path, what); return 2;
    }
    size_t n = hz_opts_input_count(o);
    const char **in = malloc(n * sizeof *in);
    if (!in) { snprintf(err, errlen, "out of memory"); return 1; }
    for (size_t i = 0; i < n; i++) in[i] = hz_opts_input(o, i);
    int rc = hz_out_check(path, in, n, o->force, what, err, errlen);   /* by identity; links, devices never replaced */
    free(in);
    if (rc == 2) return 2;
    hz_parent_dir(path, par, sizeof par);
    if (realpath(par, rp) && realpath(o->outdir, ro)) {
        size_t rl = strlen(ro);
        if (!strncmp(rp, ro, rl) && (rp[rl] == 0 || rp[rl] == '/')) {
            snprintf(err, errlen, "%s: the %s cannot be OUTDIR or inside it", path, what); return 2;
        }
    }
    return rc;
}
