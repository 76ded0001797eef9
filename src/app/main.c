/* hspz — command line (issue "hspz run": KegAlign's and hillerlab/hspZ's option names). */
#include "outsafe.h"
#include "options.h"
#include "pipeline.h"
#include "seed.h"
#include "config.h"
#include "package.h"
#include "publish.h"
#include "units.h"
#include "merge.h"
#include "index.h"
#include "inputcheck.h"
#include "report.h"
#include "scoring.h"
#include "optonce.h"
#include "runopts.h"
#include "shquote.h"
#include <stdint.h>
#include "gapped.h"
#include "gapped_cmd.h"
#include "gapped_run.h"
#include <errno.h>
#include <stddef.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *USAGE =
"Usage: hspz run -r TARGET -q QUERY -o OUTDIR [options]\n"
"       hspz config [--config FILE] [run options]   (print the resolved configuration)\n"
"       hspz plan -r TARGET -q QUERY -o PLAN.json [run options] [--max-unit-hits N]\n"
"       hspz run --plan PLAN.json --unit ID[,ID|A-B...] -o UNITDIR [-r T -q Q] [machine options]\n"
"       hspz merge PLAN.json UNITDIR... -o OUTDIR [-r T -q Q] [--force] [--quiet] [--threads N]\n"
"       hspz index -r TARGET -o TARGET.hzi [--seed P] [--step N] [--seq-block-size N] [machine options]\n"
"       hspz run --index TARGET.hzi (-q QUERY | --query-list FILE) -o OUTDIR [options]\n"
"       hspz report OUTDIR [-o report.html] [--force] [--quiet]   (dot plot and run summary)\n"
"       hspz gapped LASTZ-ARGS | hspz gapped --outdir OUTDIR -r T -q Q [--threads N]   (lastz --segments's alignments; see hspz gapped --help)\n"
"       hspz --version | hspz version [--verbose] | hspz help\n"
"\n"
"Seeds and gap-free X-drop extension (KegAlign 0.3.x semantics, byte-exact) of TARGET vs\n"
"QUERY (FASTA, FASTA.gz/bgzip or 2bit); writes LASTZ segment files, ref_block/query_block\n"
".name files and lastz-commands.txt into OUTDIR.\n"
"\n"
"Configuration\n"
"      --config FILE                YAML settings (conf/hspz.yaml lists every key); flags win\n"
"      --dry-run                    resolve inputs, configuration and plan, print them, exit\n"
"                                   (nothing is extended, OUTDIR is not created)\n"
"Inputs and output\n"
"  -r, --target, --reference FILE   target (reference) genome\n"
"  -q, --query FILE                 query genome\n"
"      --query-list FILE            many queries, one path per line (blank lines and #\n"
"                                   comments skipped; relative to FILE's folder): each into\n"
"                                   OUTDIR/000001/, ... and OUTDIR/queries.tsv; target once\n"
"      --index FILE                 the target's blocks and seed tables from hspz index\n"
"                                   (-r optional: when given it must be the indexed file)\n"
"  -o, --output DIR                 output directory (must not exist or be empty)\n"
"      --force                      replace an existing OUTDIR\n"
"  -T, --target-prefix S            prepend S to target names (also --target_prefix)\n"
"  -Q, --query-prefix S             prepend S to query names (also --query_prefix)\n"
"Plan\n"
"  -B, --seq-block-size N           block size in bytes [500000000]\n"
"  -I, --lastz-interval-size N      query interval size [10000000]\n"
"  -C, --wga-chunk-size N           query positions per seeding chunk [250000]\n"
"  -m, --max-hits N                 semantic hits-per-batch cap; 0 = one batch per chunk [0]\n"
"Seeding\n"
"  -s, --seed P                     12of19, 14of22 or a 1/T/0 pattern [12of19]\n"
"  -e, --step N                     target position step [1]\n"
"  -n, --notransition               no transition in seeds\n"
"  -S, --strand plus|minus|both     query strand(s) [both]\n"
"Extension\n"
"  -x, --xdrop N                    X-drop [910]\n"
"  -H, --hspthresh N                HSP score threshold K [3000]\n"
"  -E, --noentropy                  no entropy adjustment\n"
"  -a, --ambiguous S                n or iupac, then optionally [,REWARD],PENALTY (as lastz)\n"
"  -c, --scoring FILE               LASTZ score file\n"
"LASTZ command lines (lastz-commands.txt)\n"
"      --format F [maf-]  --ydrop N [9430]  --gappedthresh N [= hspthresh]  --notrivial\n"
"      --inner N                    lastz --inner=N (interpolation threshold) [0 = none]\n"
"      --nogapped                   write no lastz commands\n"
"      --gapped                     also run them in hspz (hspz gapped, on --threads): each\n"
"                                   command's alignments in OUTDIR, lastz's bytes\n"
"      --traceback SIZE             --gapped's lastz --allocate:traceback (e.g. 1.99G) [80M]\n""      --data-folder DIR            folder prefix of ref.2bit/query.2bit [work/]\n"
"      --print-commands             also print the commands on stdout\n"
"Packaging\n"
"  --tarball [PATH]                 also write Galaxy's data package (galaxy/commands.json,\n"
"                                   format.txt, files/: 2bit, .name, .segments) as a\n"
"                                   reproducible .tar.gz [OUTDIR.tar.gz, next to OUTDIR]\n"
"  -Z [PATH]                        hillerlab/hspZ's -Z: a reproducible .tar.gz of the bare\n"
"                                   .segments files INSTEAD of OUTDIR [OUTDIR.tar.gz]\n"
"  -D, --diagonal-partition [N|auto] split segment files along the diagonal so that no lastz\n"
"                                   command gets more than N segments (tmp*.splitK.segments);\n"
"                                   without N or with auto: N as KegAlign's Galaxy runner\n"
"                                   estimates it; 0 = off [0]\n"
"      --single-file                also write OUTDIR/all.segments: every segment in the order\n"
"                                   lastz TARGET[multiple] QUERY --segments= reads\n"
"      --report                     also write OUTDIR/report.html (self-contained page: dot\n"
"                                   plot, funnel, times, plan, settings) and report.png\n"
"Machine\n"
"  -t, --threads N                  worker threads, 0 = all cores [0]\n"
"      --device auto|cpu|cuda       [auto]; -u, --cpu-only = --device cpu\n"
"  -G, --gpus N                     CUDA devices to use, 0 = all visible [0]; the output\n"
"                                   does not depend on it (honours CUDA_VISIBLE_DEVICES)\n"
"      --quiet                      no progress, funnel or notes on stderr\n"
"  -y, --time                       the time line on stderr even with --quiet\n"
"      --no-hostname                the manifest's run.hostname is null (for services such as Galaxy)\n"
"Scale-out (README \"Plan, units, merge\")\n"
"      --plan FILE --unit IDS       run only these work units of the plan into -o UNITDIR\n"
"      --max-unit-hits N            hspz plan: cut a block pair into units of at most N\n"
"                                   seed hits (whole query intervals) [0 = one per pair]\n"
"      --dump-manifest FILE         write this run's plan (hspz plan's plan.json) to FILE\n"
"      --from-manifest FILE         replay a plan: all its units into a complete OUTDIR, its\n"
"                                   settings; refused if inputs or the plan do not match\n"
"      --dump-plan FILE             write the blocks and their records as TSV to FILE\n"
"                                   (side, block, record, bp; hillerlab/hspZ's --dump-plan\n"
"                                   rows, with hspz's blocks in place of its bins)\n"
"      --progress / --no-progress   force the progress display on or off\n";

enum { M_FORCE = 1000, M_QUIET };   /* hspz merge's long-only options */

/* The settings of a plan as a temporary --config file (the plan holds `hspz config` YAML);
 * returns its malloc'd path, or NULL with err. */
static char *plan_config_file(const hz_unitplan *p, char *err, size_t errlen)
{
    const char *td = getenv("TMPDIR");
    size_t n = (td && *td ? strlen(td) : 4) + 32;
    char *path = malloc(n);
    if (!path) { snprintf(err, errlen, "out of memory"); return NULL; }
    snprintf(path, n, "%s/hspz-plan-XXXXXX", td && *td ? td : "/tmp");
    int fd = mkstemp(path);
    size_t len = strlen(p->config);
    if (fd < 0 || write(fd, p->config, len) != (ssize_t)len) {
        snprintf(err, errlen, "%s: cannot write a temporary file: %s", path, strerror(errno));
        if (fd >= 0) { close(fd); unlink(path); }
        free(path);
        return NULL;
    }
    close(fd);
    return path;
}

/* With --plan (and in merge) only these flags may be given: the plan holds the rest. */
static int plan_flag_ok(const char *key)
{
    static const char *const OK[] = { "target", "query", "output", "force", "threads", "device", "gpus",
                                      "quiet", "progress", "gapped", "traceback", NULL };
    for (int i = 0; OK[i]; i++) if (!strcmp(OK[i], key)) return 1;
    return 0;
}

/* Read the plan, check its version, resolve its settings under the flags in set[] into cfg
 * (config_path = the plan).  Returns 0, or the exit status (2 usage, 1 bad plan). */
static int plan_settings(const char *planpath, hz_unitplan *P, hz_config *cfg, const hz_opts *flags,
                         const unsigned char *set)
{
    char err[2048];
    for (int i = 0; i < hz_param_count(); i++)
        if (set[i] && !plan_flag_ok(hz_param_at(i)->key)) {
            fprintf(stderr, "hspz: %s: the plan %s holds the settings; with a plan only -r, -q, -o, --force, "
                    "--threads, --device, --gpus, --quiet, --progress, --gapped and --traceback may be given\n", hz_param_at(i)->flag, planpath);
            return 2;
        }
    /* the environment is the command's too (usage, exit 2), whatever the plan holds */
    if (hz_env_check(err, sizeof err)) { fprintf(stderr, "hspz: %s\n", err); return 2; }
    if (hz_unitplan_read(planpath, P, err, sizeof err)) { fprintf(stderr, "hspz: %s\n", err); return 1; }
    if (strcmp(P->version, HSPZ_VERSION)) {
        fprintf(stderr, "hspz: %s: a plan of hspz %s; this is hspz %s (plan again)\n", planpath, P->version, HSPZ_VERSION);
        return 1;
    }
    char *tmp = plan_config_file(P, err, sizeof err);
    if (!tmp) { fprintf(stderr, "hspz: %s\n", err); return 1; }
    int rc = hz_cfg_resolve(cfg, tmp, flags, set, err, sizeof err);
    unlink(tmp); free(tmp);
    if (rc) { fprintf(stderr, "hspz: %s: %s\n", planpath, err); return 1; }
    cfg->config_path = planpath;
    snprintf(cfg->sha256, sizeof cfg->sha256, "%s", P->sha256);   /* the plan's, not the temporary file's */
    return 0;
}

/* OUTDIR without trailing '/' (OUTDIR.tmp-<pid> is made next to it); '/', '.' and '..'
 * are refused (usage error). */
static const char *outdir_normalize(const char *outdir)
{
    static char outbuf[4096];
    size_t n = strlen(outdir);
    if (n >= sizeof outbuf) hz_usage_error("-o/--output: path too long%s%s", "", "");
    memcpy(outbuf, outdir, n + 1);
    while (n > 1 && outbuf[n - 1] == '/') outbuf[--n] = 0;
    const char *base = strrchr(outbuf, '/');
    base = base ? base + 1 : outbuf;
    if (!strcmp(outbuf, "/") || !strcmp(outbuf, "-") || !strcmp(base, ".") || !strcmp(base, ".."))
        hz_usage_error("-o/--output: '%s' cannot be the output folder: name a new folder%s", outdir, "");
    return outbuf;
}

/* Values that reach names, command lines, messages or TAB-separated files: prefixes (no blank
 * or control byte), what lastz-commands.txt holds and every path (no control byte).  A usage
 * error (exit 2) before anything is read (inputcheck.h). */
static void values_check(const hz_opts *o, const char *indexpath, const char *qlistpath)
{
    char perr[512];
    /* an empty path names no file: a usage error like -o "" (issue 31), not "hspz: : cannot open" */
    const char *const names[] = { "-r/--target", "-q/--query", "-c/--scoring", "--index", "--query-list" };
    const char *const vals[] = { o->target, o->query, o->scoring, indexpath, qlistpath };
    for (int i = 0; i < 5; i++)
        if (vals[i] && !vals[i][0]) hz_usage_error("%s: empty path%s", names[i], "");
    if (hz_prefix_check("-T/--target-prefix", o->target_prefix, perr, sizeof perr) ||
        hz_prefix_check("-Q/--query-prefix", o->query_prefix, perr, sizeof perr) ||
        hz_cmdvalue_check("--format", o->format, perr, sizeof perr) ||
        hz_cmdvalue_check("--data-folder", o->data_folder, perr, sizeof perr) ||
        hz_cmdvalue_check("--scoring", o->scoring, perr, sizeof perr) ||
        hz_cmdvalue_check("--ambiguous", o->ambiguous, perr, sizeof perr) ||
        hz_path_check("-r/--target", o->target, perr, sizeof perr) ||
        hz_path_check("-q/--query", o->query, perr, sizeof perr) ||
        hz_path_check("-o/--output", o->outdir, perr, sizeof perr) ||
        hz_path_check("--tarball", o->tarball, perr, sizeof perr) ||
        hz_path_check("--index", indexpath, perr, sizeof perr) ||
        hz_path_check("--query-list", qlistpath, perr, sizeof perr) ||
        hz_ambiguous_check(o->ambiguous, perr, sizeof perr))   /* LASTZ's rules (scoring.h) */
        hz_usage_error("%s%s", perr, "");
    /* (after the control-byte checks: the paths are printed) one FIFO (or other stream) as -r and -q: the target would read it all and the query find
     * it empty; say so before anything is read (issue 31) */
    struct stat ts, qs;
    if (o->target && o->query && !o->index && stat(o->target, &ts) == 0 && stat(o->query, &qs) == 0 &&
        ts.st_dev == qs.st_dev && ts.st_ino == qs.st_ino && !S_ISREG(ts.st_mode))
        hz_usage_error("-r/--target '%s' and -q/--query '%s' are the same stream, which can be read only once "
                    "(give a file, or two streams)", o->target, o->query);
}

/* One note naming the HSPZ_* variables hspz does not read (config.h hz_env_unknown). */
static void env_note(int quiet)
{
    char unk[1024];
    int n = hz_env_unknown(unk, sizeof unk);
    if (n && !quiet)
        fprintf(stderr, "hspz: note: ignoring environment variable%s hspz does not read: %s\n", n > 1 ? "s" : "", unk);
}

/* hspz merge PLAN UNITDIR... [-r T] [-q Q] [--force] [--quiet] [-t N] (merge.h) */
static int cmd_merge(int argc, char **argv)
{
    hz_opts o;
    hz_opts_default(&o);
    o.argc = argc; o.argv = argv;
    static const struct option lo[] = {
        {"target", 1, 0, 'r'}, {"reference", 1, 0, 'r'}, {"query", 1, 0, 'q'}, {"output", 1, 0, 'o'},
        {"force", 0, 0, M_FORCE}, {"quiet", 0, 0, M_QUIET}, {"threads", 1, 0, 't'}, {"help", 0, 0, 'h'},
        {0, 0, 0, 0}
    };
    unsigned char set[HZ_CFG_MAX] = {0};
    opterr = 0; optind = 1;
    int c, li;
    static hz_optonce given;
    while ((c = (li = -1, getopt_long(argc, argv, ":r:q:o:t:h", lo, &li))) != -1) {
        hz_cfg_mark(set, c, li >= 0 ? lo[li].name : NULL);
        hz_once(&given, c, c < 128 && c != ':' && c != '?' ? c : 0, optarg, lo);
        switch (c) {
        case 'r': o.target = optarg; break;
        case 'q': o.query = optarg; break;
        case 'o': o.outdir = optarg; break;
        case 't': o.threads = (int)hz_parse_int("--threads", optarg, 0, 4096); break;
        case M_FORCE: o.force = 1; break;
        case M_QUIET: o.quiet = 1; break;
        case 'h': fputs(USAGE, stdout); return 0;
        case ':': hz_usage_error("option %s needs a value%s", argv[optind - 1], ""); break;
        default: hz_usage_error("unknown option '%s' (hspz merge takes -o, -r, -q, --force, --quiet, --threads)%s", argv[optind - 1], ""); break;
        }
    }
    if (optind >= argc) hz_usage_error("merge: missing PLAN (hspz merge PLAN.json UNITDIR... -o OUTDIR)%s%s", "", "");
    const char *planpath = argv[optind++];
    if (!planpath[0]) hz_usage_error("merge: empty PLAN path%s%s", "", "");
    for (int i = optind; i < argc; i++) if (!argv[i][0]) hz_usage_error("merge: empty UNITDIR path%s%s", "", "");
    if (!o.outdir || !o.outdir[0]) hz_usage_error("merge: missing -o/--output OUTDIR%s%s", "", "");
    static hz_config cfg;
    static hz_unitplan P;
    int rc = plan_settings(planpath, &P, &cfg, &o, set);
    if (rc) return rc;
    o = cfg.o;
    env_note(o.quiet);
    values_check(&o, NULL, NULL);   /* the plan's settings too: merge writes lastz-commands.txt */
    o.outdir = outdir_normalize(o.outdir);
    char err[1024];
    hz_recover_outdir(&o);   /* a killed run's tarball and folders first (publish.h) */
    int prc = hz_package_precheck(&o, err, sizeof err);
    if (prc) { fprintf(stderr, "hspz: %s\n", err); return prc; }
    if (hz_outdir_holds_input(&o, err, sizeof err)) { fprintf(stderr, "hspz: %s\n", err); return 2; }
    return hz_merge(&o, &P, argv + optind, (size_t)(argc - optind));
}

/* --query-list FILE: one query path per line; blank lines and '#' comments skipped, ends of
 * lines trimmed, relative paths taken from FILE's folder (hillerlab/hspZ's rules).  Returns
 * the malloc'd paths (*n > 0), or NULL after one error line. */
static char **query_list_read(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "r");
    if (!fp) { fprintf(stderr, "hspz: %s: %s\n", path, strerror(errno)); return NULL; }
    char dir[4096], *line = NULL;
    size_t cap = 0, m = 0, lc = 0, lno = 0;
    char **v = NULL;
    hz_parent_dir(path, dir, sizeof dir);
    ssize_t len;
    while ((len = getline(&line, &cap, fp)) >= 0) {
        lno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t')) line[--len] = 0;
        char *b = line;
        while (*b == ' ' || *b == '\t') b++;
        if (!*b || *b == '#') continue;
        if (memchr(line, 0, (size_t)len)) {
            fprintf(stderr, "hspz: %s: line %zu: a NUL byte (not a list of paths)\n", path, lno);
            goto fail;
        }
        if (m == lc) { lc = lc ? 2 * lc : 16; char **v2 = realloc(v, lc * sizeof *v); if (!v2) goto oom; v = v2; }
        size_t need = strlen(dir) + strlen(b) + 2;
        {   /* a TAB would split queries.tsv's row; other control bytes a message */
            char pe[512];
            if (hz_path_check("query path", b, pe, sizeof pe)) {
                fprintf(stderr, "hspz: %s: line %zu: %s\n", path, lno, pe); goto fail;
            }
        }
        if (!(v[m] = malloc(need))) goto oom;
        if (b[0] == '/' || !strcmp(dir, ".")) snprintf(v[m], need, "%s", b); else snprintf(v[m], need, "%s/%s", dir, b);
        struct stat qs;   /* every query checked before any work, so a long list never fails late on a typo */
        if (stat(v[m], &qs) != 0 || S_ISDIR(qs.st_mode) || access(v[m], R_OK) != 0) {
            char pb[4096 * 4 + 8];   /* a binary list: its bytes escaped, not echoed */
            fprintf(stderr, "hspz: %s: line %zu: %s: %s\n", path, lno, hz_printable(v[m], SIZE_MAX, pb, sizeof pb),
                    stat(v[m], &qs) != 0 ? strerror(errno) : S_ISDIR(qs.st_mode) ? "is a folder" : strerror(errno));
            m++;
            goto fail;
        }
        m++;
    }
    if (ferror(fp)) { fprintf(stderr, "hspz: %s: read error: %s\n", path, strerror(errno)); goto fail; }
    if (!m) { fprintf(stderr, "hspz: %s: no query paths (one per line; blank lines and # comments are skipped)\n", path); goto fail; }
    fclose(fp); free(line);
    *n = m;
    return v;
oom:
    fprintf(stderr, "hspz: out of memory\n");
fail:
    fclose(fp); free(line);
    for (size_t i = 0; i < m; i++) free(v[i]);
    free(v);
    return NULL;
}

/* --index: the index's seeding settings (seed, step, block size) where the run did not set
 * them (source "index"); a value set by a flag or --config that differs is refused.  Returns
 * 0, or 1 after one error line. */
static int index_settings(hz_config *cfg, const hz_index *ix)
{
    hz_opts *o = &cfg->o;
    int is = hz_param_find("seed"), ie = hz_param_find("step"), ib = hz_param_find("seq_block_size");
    hz_shape sh;
    char err[512], want[96];
    if (cfg->src[is] == HZ_SRC_DEFAULT) { o->seed = ix->seed; cfg->src[is] = HZ_SRC_INDEX; }
    if (cfg->src[ie] == HZ_SRC_DEFAULT) { o->step = ix->step; cfg->src[ie] = HZ_SRC_INDEX; }
    if (cfg->src[ib] == HZ_SRC_DEFAULT) { o->seq_block_size = ix->seq_block_size; cfg->src[ib] = HZ_SRC_INDEX; }
    if (hz_shape_parse(o->seed, o->transition, &sh, err, sizeof err)) hz_usage_error("--seed: %s%s", err, "");
    const char *what = NULL;
    if (strcmp(sh.pattern, ix->pattern)) { what = "--seed"; snprintf(want, sizeof want, "%s", ix->seed); }
    else if (o->step != ix->step) { what = "--step"; snprintf(want, sizeof want, "%u", ix->step); }
    else if (o->seq_block_size != ix->seq_block_size) { what = "--seq-block-size"; snprintf(want, sizeof want, "%llu", (unsigned long long)ix->seq_block_size); }
    if (what) {
        fprintf(stderr, "hspz: %s: an index built with %s %s; this run asks for another %s (leave it out, or build an index with it)\n",
                ix->path, what, want, what);
        return 1;
    }
    return 0;
}

/* hspz index: only the target, the output and the seeding and machine options. */
static int index_cmd(hz_opts *o, const unsigned char *set, const char *cfgpath)
{
    if (cfgpath) hz_usage_error("--config is not an option of hspz index (give -r, -o, --seed, --step, --seq-block-size)%s%s", "", "");
    static const char *const OK[] = { "target", "output", "force", "seed", "step", "seq_block_size", "threads", "device",
                                      "gpus", "quiet", "progress", NULL };
    for (int i = 0; i < hz_param_count(); i++) {
        int ok = 0;
        for (int k = 0; OK[k]; k++) ok |= !strcmp(OK[k], hz_param_at(i)->key);
        if (set[i] && !ok)
            hz_usage_error("%s is not an option of hspz index (it takes -r, -o, --force, --seed, --step, --seq-block-size and the machine options)%s",
                        hz_param_at(i)->flag, "");
    }
    if (!o->target || !o->target[0]) hz_usage_error("index: %s -r/--target TARGET%s", o->target ? "empty" : "missing", "");
    if (!o->outdir || !o->outdir[0]) hz_usage_error("index: missing -o/--output INDEX (e.g. target.hzi)%s%s", "", "");
    hz_shape sh;
    char err[512];
    if (hz_shape_parse(o->seed, o->transition, &sh, err, sizeof err)) hz_usage_error("--seed: %s%s", err, "");
    {   /* by identity: never the target, never through a link, device or FIFO (outsafe.h) */
        if (hz_same_file(o->target, o->outdir)) {
            fprintf(stderr, "hspz: %s: the index would overwrite the target %s\n", o->outdir, o->target); return 2;
        }
        int rc = hz_out_check(o->outdir, NULL, 0, o->force, "index file", err, sizeof err);
        if (rc) { fprintf(stderr, "hspz: %s\n", err); return rc; }
    }
    return hz_index_cmd(o, o->outdir);
}


/* The options that do not go together, before the settings are resolved. */
static void run_combos(const hz_run_args *a, int mode)
{
    if (a->max_unit_hits && mode != 2) hz_usage_error("--max-unit-hits is an option of hspz plan%s%s", "", "");
    if ((a->planpath || a->unitspec) && mode != 0) hz_usage_error("--plan and --unit are options of hspz run%s%s", "", "");
    if (!a->planpath != !a->unitspec) hz_usage_error("--plan and --unit go together (hspz run --plan PLAN --unit ID[,ID...])%s%s", "", "");
    if (a->planpath && (a->cfgpath || a->dry_run || a->o.dump_plan || a->o.dump_manifest))
        hz_usage_error("%s: the plan holds the settings; --config, --dry-run, --dump-plan and --dump-manifest do not go with it%s",
                    a->o.replay ? "--from-manifest" : "--plan", "");
}

/* ... and those that depend on the resolved settings (the plan's or the config file's). */
static void run_combos_resolved(const hz_run_args *a, int mode)
{
    const hz_opts *o = &a->o;
    if ((a->indexpath || a->qlistpath) && mode != 0 && mode != 1) hz_usage_error("--index and --query-list are options of hspz run%s%s", "", "");
    if (o->segments_archive && mode == 2)   /* a plan's units and hspz merge write folders */
        hz_usage_error("-Z is an option of hspz run; a plan takes --tarball (hspz merge writes a folder)%s%s", "", "");
    if (a->qlistpath && a->planpath) hz_usage_error("--query-list does not go with %s%s", o->replay ? "--from-manifest" : "--plan", "");
    if (a->qlistpath && (o->query || a->dry_run || o->dump_plan || (o->tarball && o->tarball[0]) || o->segments_archive))
        hz_usage_error("--query-list does not go with -q, --plan, --dry-run, --dump-plan, -Z or a --tarball PATH (each query's tarball is OUTDIR/<n>.tar.gz)%s%s", "", "");
    if (a->indexpath && (a->planpath || a->dry_run))
        hz_usage_error("--index does not go with %s%s", a->planpath ? (o->replay ? "--from-manifest" : "--plan") : "--dry-run", "");
}

/* --index and --query-list into a->o.  0, or the exit status after one error line. */
static int run_index_queries(hz_run_args *a, hz_config *cfg)
{
    static hz_index ix;
    if (a->indexpath) {
        char ierr[2048];
        if (hz_index_open(a->indexpath, &ix, ierr, sizeof ierr)) { fprintf(stderr, "hspz: %s\n", ierr); return 1; }
        if (index_settings(cfg, &ix)) return 1;
        a->o = cfg->o;
        a->o.index = &ix; a->o.index_path = a->indexpath;
        a->o.index_check_target = a->o.target != NULL;
        if (!a->o.target) a->o.target = ix.seqs.path;
    }
    if (a->qlistpath) {
        static char **ql;
        size_t nq = 0;
        if (!(ql = query_list_read(a->qlistpath, &nq))) return 1;
        a->o.query_list = ql; a->o.n_query_list = nq; a->o.query_list_path = a->qlistpath;
        a->o.query = ql[0];
    }
    return 0;
}

/* hspz plan: the plan file is never an input (the --config file too), an existing regular
 * file only with --force. */
static int plan_cmd(hz_run_args *a, hz_config *cfg)
{
    hz_opts *o = &a->o;
    hz_shape psh;
    char perr[512];
    if (hz_shape_parse(o->seed, o->transition, &psh, perr, sizeof perr)) hz_usage_error("--seed: %s%s", perr, "");
    if (o->dump_plan || a->dry_run) hz_usage_error("--dump-plan and --dry-run are options of hspz run, not of hspz plan%s%s", "", "");
    const char *ins[4] = { o->target, o->query, o->scoring, a->cfgpath };
    for (int i = 0; i < 4; i++)
        if (hz_same_file(ins[i], o->outdir)) {   /* by identity, links resolved */
            fprintf(stderr, "hspz: %s: the plan would overwrite the input %s\n", o->outdir, ins[i]); return 2;
        }
    int rc = hz_out_check(o->outdir, NULL, 0, o->force, "plan file", perr, sizeof perr);
    if (rc) { fprintf(stderr, "hspz: %s\n", perr); return rc; }
    cfg->o = *o;
    return hz_plan_cmd(cfg, o->outdir, a->max_unit_hits);
}

/* A unit run: only the selected units, no packaging (hspz merge does it).  0, or the exit
 * status after one error line. */
static int unit_setup(hz_run_args *a, hz_unitplan *P)
{
    hz_opts *o = &a->o;
    static hz_unitsel usel;
    static unsigned char *sel;
    char uerr[1024];
    sel = calloc(P->n ? P->n : 1, 1);
    if (!sel) { fprintf(stderr, "hspz: out of memory\n"); return 1; }
    if (o->replay) memset(sel, 1, P->n);   /* --from-manifest: every unit, a complete OUTDIR */
    else if (hz_unit_ids_parse(a->unitspec, P, sel, uerr, sizeof uerr)) { fprintf(stderr, "hspz: %s\n", uerr); return 2; }
    /* OUTDIR before the inputs are hashed against the plan (whole genomes; hz_run checks again) */
    if (hz_check_outdir(o, uerr, sizeof uerr)) { fprintf(stderr, "hspz: %s\n", uerr); return 1; }
    if (hz_unitplan_check_inputs(P, o, uerr, sizeof uerr)) { fprintf(stderr, "hspz: %s\n", uerr); return 1; }
    usel = (hz_unitsel){ P, sel };
    o->units = &usel;
    if (!o->replay) { o->tarball = NULL; o->diagonal_partition = 0; o->single_file = 0; o->print_commands = 0;
                      o->report = 0; }   /* the merged folder gets the report (merge.c) */
    return 0;
}

/* The files a run writes beside OUTDIR (tarball, --dump-plan, --dump-manifest): allowed, not
 * one another, not an input.  0, or the exit status after one error line. */
static int run_outputs_check(hz_opts *o)
{
    char err[512];
    int prc = hz_package_precheck(o, err, sizeof err);
    if (!prc) prc = hz_gapped_precheck(o, err, sizeof err);   /* gapped_run.h */
    if (prc) { fprintf(stderr, "hspz: %s\n", err); return prc; }
    if (o->dump_plan) {   /* the same rules as the tarball, and not the tarball itself */
        char *tp = o->tarball ? hz_package_tarball_path(o) : NULL;
        int same = tp && !strcmp(tp, o->dump_plan);
        free(tp);
        if (same) { fprintf(stderr, "hspz: %s: --dump-plan and the tarball cannot be the same file\n", o->dump_plan); return 2; }
        if ((prc = hz_output_file_check(o, o->dump_plan, "--dump-plan file", err, sizeof err))) { fprintf(stderr, "hspz: %s\n", err); return prc; }
    }
    if (o->dump_manifest) {
        char *tp = o->tarball ? hz_package_tarball_path(o) : NULL;
        int same = tp && !strcmp(tp, o->dump_manifest);
        free(tp);
        if (same || (o->dump_plan && !strcmp(o->dump_plan, o->dump_manifest)) || o->query_list)
            hz_usage_error("--dump-manifest: not with --query-list, and not the --dump-plan file or the tarball%s%s", "", "");
        if ((prc = hz_output_file_check(o, o->dump_manifest, "--dump-manifest file", err, sizeof err))) { fprintf(stderr, "hspz: %s\n", err); return prc; }
    }
    /* --force on an OUTDIR that holds an input: the command contradicts itself (exit 2) */
    if (hz_outdir_holds_input(o, err, sizeof err)) { fprintf(stderr, "hspz: %s\n", err); return 2; }
    return 0;
}

/* mode 0: hspz run; 1: hspz config (print the resolved configuration); 2: hspz plan; 3: hspz index */
static int cmd_run(int argc, char **argv, int mode)
{
    static hz_run_args A;
    hz_opts *o = &A.o;
    hz_opts_default(o);
    o->argc = argc; o->argv = argv;
    unsigned char set[HZ_CFG_MAX] = {0};   /* parameters given as flags (config.h) */
    int rc = hz_run_parse(argc, argv, &A, set);
    if (A.help) fputs(USAGE, stdout);
    if (rc >= 0) return rc;
    run_combos(&A, mode);
    /* defaults < --config FILE < flags (config.h); with --plan the plan's settings < flags */
    static hz_config cfg;
    static hz_unitplan P;
    if (A.planpath) {
        if ((rc = plan_settings(A.planpath, &P, &cfg, o, set))) return rc;
    } else {
        char cerr[2048];
        if (hz_path_check("--config", A.cfgpath, cerr, sizeof cerr)) hz_usage_error("%s%s", cerr, "");
        if (hz_cfg_resolve(&cfg, A.cfgpath, o, set, cerr, sizeof cerr)) { fprintf(stderr, "hspz: %s\n", cerr); return 2; }
    }
    *o = cfg.o;
    env_note(o->quiet);
    if (mode == 3) return index_cmd(o, set, A.cfgpath);
    run_combos_resolved(&A, mode);
    if (mode != 1) values_check(o, A.indexpath, A.qlistpath);   /* hspz config prints any value it can read */
    if ((rc = run_index_queries(&A, &cfg))) return rc;
    if (mode == 1) { hz_cfg_print(&cfg, stdout); return 0; }
    if (!o->target) hz_usage_error("missing -r/--target TARGET%s%s", "", "");
    if (!o->query) hz_usage_error("missing -q/--query QUERY%s%s", "", "");
    if (!o->outdir || !o->outdir[0]) hz_usage_error("missing -o/--output %s%s", mode == 2 ? "PLAN.json" : "OUTDIR", "");
    if (mode == 2) return plan_cmd(&A, &cfg);
    if (A.planpath && (rc = unit_setup(&A, &P))) return rc;
    hz_shape sh;
    char err[512];
    if (hz_shape_parse(o->seed, o->transition, &sh, err, sizeof err)) hz_usage_error("--seed: %s%s", err, "");
    if (o->progress == 1 && o->quiet) o->progress = 0;
    o->outdir = outdir_normalize(o->outdir);
    hz_recover_outdir(o);   /* a killed run's tarball and folders first (publish.h) */
    if ((rc = run_outputs_check(o))) return rc;
    if (A.dry_run) {   /* no watcher: the signals act normally again */
        hz_sigwatch_block(0);
        if (hz_check_outdir(o, err, sizeof err)) { fprintf(stderr, "hspz: %s\n", err); return 1; }
        cfg.o = *o;
        return hz_dry_run(&cfg);
    }
    return hz_run(o);
}

int main(int argc, char **argv)
{
    /* a file size limit (ulimit -f) makes write() fail with EFBIG, reported like a full disk,
     * instead of killing the process without a word */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) { fputs(USAGE, stderr); return 2; }
    const char *cmd = argv[1];
    int help = !strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h");
    if ((help || !strcmp(cmd, "--version") || !strcmp(cmd, "-V")) && argc > 2)   /* as `hspz version`: no other word */
        hz_usage_error("%s: unexpected argument '%s'", cmd, argv[2]);
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) { puts(HSPZ_VERSION); return 0; }
    if (!strcmp(cmd, "version")) {
        int verbose = argc > 2 && (!strcmp(argv[2], "--verbose") || !strcmp(argv[2], "-v"));
        if (argc > 2 + verbose)
            hz_usage_error("version: unexpected argument '%s'%s", argv[2 + verbose], "");
        puts(HSPZ_VERSION);
        if (verbose) {
            printf("commit %s\nbuild %s\nc_flags %s\ncuda %s\ngzip %s\n", HSPZ_GIT_COMMIT, HSPZ_BUILD_TYPE,
                   HSPZ_C_FLAGS, HSPZ_HAVE_CUDA ? "yes" : "no", HSPZ_GZIP);
        }
        return 0;
    }
    if (help) { fputs(USAGE, stdout); return 0; }
    if (!strcmp(cmd, "run")) { hz_sigwatch_block(1); return cmd_run(argc - 1, argv + 1, 0); }
    if (!strcmp(cmd, "config")) return cmd_run(argc - 1, argv + 1, 1);
    if (!strcmp(cmd, "plan")) return cmd_run(argc - 1, argv + 1, 2);
    if (!strcmp(cmd, "merge")) { hz_sigwatch_block(1); return cmd_merge(argc - 1, argv + 1); }
    if (!strcmp(cmd, "index")) { hz_sigwatch_block(1); return cmd_run(argc - 1, argv + 1, 3); }
    if (!strcmp(cmd, "report")) return hz_report_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "__gapped-stage")) return hz_gapped_stage_main(argc, argv);   /* run --gapped's helper */
    if (!strcmp(cmd, "gapped")) {   /* lastz's command line, or --outdir (gapped_cmd.h) */
        if (argc > 2 && (!strcmp(argv[2], "--outdir") || !strncmp(argv[2], "--outdir=", 9)))
            return hz_gapped_outdir(argc - 1, argv + 1);
        return hz_gapped_cmd(argc - 1, argv + 1);
    }
    fprintf(stderr, "hspz: unknown command '%s' (see 'hspz help')\n", cmd);
    return 2;
}
