/* runopts — hspz run/config/plan/index's options as one table (runopts.h). */
#include "runopts.h"
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hz_usage_error(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "hspz: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, " (see 'hspz help')\n");
    exit(2);
}

long long hz_parse_int(const char *opt, const char *v, long long lo, long long hi)
{
    char *end;
    errno = 0;
    if (!(v[0] == '-' || (v[0] >= '0' && v[0] <= '9'))) hz_usage_error("%s: '%s' is not an integer", opt, v);
    long long x = strtoll(v, &end, 10);
    if (end == v || *end) hz_usage_error("%s: '%s' is not an integer", opt, v);
    if (errno == ERANGE || x < lo || x > hi) {
        char range[96];
        snprintf(range, sizeof range, "%lld..%lld", lo, hi);
        fprintf(stderr, "hspz: %s: %s is outside %s (see 'hspz help')\n", opt, v, range);
        exit(2);
    }
    return x;
}

/* A single-valued option given twice: usage error (optonce.h); key: getopt's value of the
 * option, shortc: its letter or 0. */
void hz_once(hz_optonce *s, int key, int shortc, const char *val, const struct option *lo)
{
    char err[700];
    if (hz_optonce_check(s, key, shortc, val, lo, err, sizeof err)) hz_usage_error("%s%s", err, "");
}

/* getopt's "unknown option": name the word it stopped at (a short option is optopt; a
 * long one the last word that starts with '-'). */
static void unknown_option(int argc, char **argv)
{
    char shortopt[3] = { '-', (char)optopt, 0 };
    if (optopt > 0 && optopt < 256) hz_usage_error("unknown option '%s'%s", shortopt, "");
    const char *w = optind - 1 < argc ? argv[optind - 1] : "";
    hz_usage_error("unknown option '%s'%s", w, "");
}

/* ---- hspz run / config / plan / index: the options, one row each ----------------------- */

/* how an option's value is taken */
enum { A_NONE, A_STR, A_PATH, A_WORD, A_U64, A_U32, A_I32, A_INT, A_ON, A_OFF, A_CHOICE, A_FN };

typedef struct run_opt run_opt;
struct run_opt {
    const char *name[3];        /* long spellings; the first names the option in messages */
    char shortc;                /* one-letter spelling, or 0 */
    signed char has_arg;        /* getopt's: 0 none, 1 required, 2 optional (attached) */
    unsigned char kind;         /* A_*: how the value is taken */
    size_t field;               /* offsetof(hz_run_args, ...): what it sets */
    const char *label;          /* in messages: "--step: 'x' is not an integer", "--config: empty path" */
    long long lo, hi;           /* A_U64 .. A_INT: the allowed range */
    const char *const *choices; /* A_CHOICE: the allowed words, NULL-terminated */
    int (*fn)(hz_run_args *a, const run_opt *r, int argc, char **argv);   /* A_FN: -1 go on, else the exit status */
    const char *absent;         /* a value that may be the next word: what optonce shows when none is given */
    const char *as_of, *as_value;  /* a spelling of another option's value (optonce: -u is --device cpu) */
    const char *slabel;         /* the label when given by its one-letter spelling */
};

#define STR(f) .kind = A_STR, .field = offsetof(hz_run_args, f)
#define PATH(f, l) .kind = A_PATH, .field = offsetof(hz_run_args, f), .label = l
#define WORD(f, l) .kind = A_WORD, .field = offsetof(hz_run_args, f), .label = l
#define NUM(k, f, l, a, b) .kind = k, .field = offsetof(hz_run_args, f), .label = l, .lo = a, .hi = b
#define ON(f) .kind = A_ON, .field = offsetof(hz_run_args, f)
#define OFF(f) .kind = A_OFF, .field = offsetof(hz_run_args, f)
#define CHOICE(f, l, c) .kind = A_CHOICE, .field = offsetof(hz_run_args, f), .label = l, .choices = c
#define FN(h) .kind = A_FN, .fn = h

static int opt_help(hz_run_args *a, const run_opt *r, int argc, char **argv);
static int opt_tarball(hz_run_args *a, const run_opt *r, int argc, char **argv);
static int opt_diagpart(hz_run_args *a, const run_opt *r, int argc, char **argv);
static int opt_cpu_only(hz_run_args *a, const run_opt *r, int argc, char **argv);
static int opt_from_manifest(hz_run_args *a, const run_opt *r, int argc, char **argv);

static const char *const STRANDS[] = { "plus", "minus", "both", NULL };
static const char *const DEVICES[] = { "auto", "cpu", "cuda", NULL };

/* Every option of hspz run, config, plan and index (main.c's USAGE; config.c maps them to the
 * configuration keys by name).  Adding an option is one row. */
static const run_opt RUN_OPTS[] = {
    { {"target", "reference"}, 'r', 1, STR(o.target) },
    { {"query"}, 'q', 1, STR(o.query) },
    { {"output"}, 'o', 1, STR(o.outdir) },
    { {"force"}, 0, 0, ON(o.force) },
    { {"target-prefix", "target_prefix"}, 'T', 1, STR(o.target_prefix) },
    { {"query-prefix", "query_prefix"}, 'Q', 1, STR(o.query_prefix) },
    { {"seq-block-size", "seq_block_size"}, 'B', 1, NUM(A_U64, o.seq_block_size, "--seq-block-size", 1, 4000000000LL) },
    { {"lastz-interval-size", "lastz_interval_size"}, 'I', 1, NUM(A_U64, o.interval_size, "--lastz-interval-size", 1, 4000000000LL) },
    { {"wga-chunk-size", "wga_chunk_size"}, 'C', 1, NUM(A_U64, o.chunk_size, "--wga-chunk-size", 1, 4000000000LL) },
    { {"max-hits", "max_hits"}, 'm', 1, NUM(A_U64, o.max_hits, "--max-hits", 0, LLONG_MAX) },
    { {"seed"}, 's', 1, STR(o.seed) },
    { {"step"}, 'e', 1, NUM(A_U32, o.step, "--step", 1, 1000000) },
    { {"notransition"}, 'n', 0, OFF(o.transition) },
    { {"strand"}, 'S', 1, CHOICE(o.strand, "--strand", STRANDS) },
    { {"xdrop"}, 'x', 1, NUM(A_I32, o.xdrop, "--xdrop", 1, 100000000) },
    { {"hspthresh"}, 'H', 1, NUM(A_I32, o.hspthresh, "--hspthresh", 1, 1000000000) },
    { {"noentropy"}, 'E', 0, OFF(o.entropy) },
    { {"ambiguous"}, 'a', 1, STR(o.ambiguous) },
    { {"scoring"}, 'c', 1, STR(o.scoring) },
    { {"format"}, 0, 1, WORD(o.format, "--format") },
    { {"ydrop"}, 0, 1, NUM(A_I32, o.ydrop, "--ydrop", 0, 2000000000) },
    { {"gappedthresh"}, 0, 1, NUM(A_I32, o.gappedthresh, "--gappedthresh", 0, 2000000000) },
    { {"notrivial"}, 0, 0, ON(o.notrivial) },
    { {"nogapped"}, 0, 0, ON(o.nogapped) },
    { {"gapped"}, 0, 0, ON(o.gapped) },
    { {"traceback"}, 0, 1, STR(o.traceback) },
    { {"inner"}, 0, 1, NUM(A_I32, o.inner, "--inner", 0, 2000000000) },
    { {"no-hostname"}, 0, 0, ON(o.no_hostname) },
    { {"data-folder", "data_folder"}, 0, 1, STR(o.data_folder) },
    { {"print-commands"}, 0, 0, ON(o.print_commands) },
    { {"threads", "num_threads"}, 't', 1, NUM(A_INT, o.threads, "--threads", 0, 4096) },
    { {"device"}, 0, 1, CHOICE(o.device, "--device", DEVICES) },
    { {"gpus", "num_gpu"}, 'G', 1, NUM(A_INT, o.gpus, "--gpus", 0, 64), .slabel = "-G/--gpus" },
    { {"quiet"}, 0, 0, ON(o.quiet) },
    { {"progress"}, 0, 0, ON(o.progress) },
    { {"no-progress"}, 0, 0, OFF(o.progress) },
    { {"debug"}, 0, 0, .kind = A_NONE },
    { {"help"}, 'h', 0, FN(opt_help) },
    { {"tarball"}, 0, 2, FN(opt_tarball), .absent = "(OUTDIR.tar.gz)" },
    { {"diagonal-partition"}, 'D', 2, FN(opt_diagpart), .absent = "(automatic)" },
    { {"single-file"}, 0, 0, ON(o.single_file) },
    { {"report"}, 0, 0, ON(o.report) },
    { {"config"}, 0, 1, PATH(cfgpath, "--config") },
    { {"dry-run"}, 0, 0, ON(dry_run) },
    /* hillerlab/hspZ's run spellings (README "Drop-in for hillerlab/hspZ") */
    { {"time"}, 'y', 0, ON(o.time_report) },
    { {"dump-plan"}, 0, 1, PATH(o.dump_plan, "--dump-plan") },
    { {"cpu-only"}, 'u', 0, FN(opt_cpu_only), .as_of = "device", .as_value = "cpu (-u/--cpu-only)" },
    { {"plan"}, 0, 1, PATH(planpath, "--plan") },
    { {"unit"}, 0, 1, STR(unitspec) },
    { {"max-unit-hits"}, 0, 1, NUM(A_U64, max_unit_hits, "--max-unit-hits", 0, LLONG_MAX) },
    { {"dump-manifest"}, 0, 1, PATH(o.dump_manifest, "--dump-manifest") },
    { {"from-manifest"}, 0, 1, FN(opt_from_manifest), .label = "--from-manifest" },
    { {"index"}, 0, 1, STR(indexpath) },
    { {"query-list", "query_list"}, 0, 1, STR(qlistpath) },
    /* hillerlab/hspZ's -Z: the segments archive instead of OUTDIR; no long name (not --tarball) */
    { {NULL}, 'Z', 0, FN(opt_tarball), .absent = "(OUTDIR.tar.gz)" },
};
#define RUN_NOPT (sizeof RUN_OPTS / sizeof RUN_OPTS[0])

/* getopt's value of a row (and its optonce key): its letter, else 1000 + its index */
static int opt_val(const run_opt *r) { return r->shortc ? r->shortc : 1000 + (int)(r - RUN_OPTS); }

static int opt_help(hz_run_args *a, const run_opt *r, int argc, char **argv)
{
    (void)r; (void)argc; (void)argv;
    a->help = 1;   /* the caller prints the usage */
    return 0;
}

/* --tarball [PATH] and -Z [PATH]: attached (--tarball=PATH) or the next word: hspz takes no
 * operands, so a next word that is not an option is the path.  -Z is hillerlab/hspZ's archive
 * of the bare segments files instead of OUTDIR; --tarball Galaxy's package beside OUTDIR: one
 * file, so not both (package.h) */
static int opt_tarball(hz_run_args *a, const run_opt *r, int argc, char **argv)
{
    hz_opts *o = &a->o;
    int z = r->shortc == 'Z';
    if (!optarg && optind < argc && argv[optind][0] != '-') optarg = argv[optind++];
    if (o->tarball && o->segments_archive && z)   /* no long name: optonce.c does not see it */
        hz_usage_error("-Z given twice ('%s', then '%s'): give it once", o->tarball, optarg ? optarg : "");
    if (o->tarball && o->segments_archive != z)
        hz_usage_error("-Z (the segments archive instead of OUTDIR) and --tarball (Galaxy's package) do not go together%s%s", "", "");
    if (optarg && !optarg[0]) hz_usage_error("%s: empty path%s", z ? "-Z" : "--tarball", "");
    o->tarball = optarg ? optarg : ""; o->segments_archive = z;
    return -1;
}

/* -D [N|auto]: optional value (hillerlab/hspZ's bare -D): attached, or the next word unless it
 * starts with '-'; none or "auto" = automatic (HZ_DIAG_AUTO) */
static int opt_diagpart(hz_run_args *a, const run_opt *r, int argc, char **argv)
{
    (void)r;
    if (!optarg && optind < argc && argv[optind][0] != '-') optarg = argv[optind++];
    a->o.diagonal_partition = !optarg || !strcmp(optarg, "auto") ? HZ_DIAG_AUTO
        : (uint64_t)hz_parse_int("--diagonal-partition", optarg, 0, LLONG_MAX);
    return -1;
}

static int opt_cpu_only(hz_run_args *a, const run_opt *r, int argc, char **argv)
{
    (void)r; (void)argc; (void)argv;
    a->o.device = "cpu";
    return -1;
}

static int opt_from_manifest(hz_run_args *a, const run_opt *r, int argc, char **argv)
{
    (void)argc; (void)argv;
    if (!optarg[0]) hz_usage_error("%s: empty path%s", r->label, "");
    a->planpath = optarg; a->unitspec = "all"; a->o.replay = 1;
    return -1;
}

/* the row of a long name, or of a letter */
static const run_opt *opt_named(const char *name)
{
    for (size_t i = 0; i < RUN_NOPT; i++)
        if (RUN_OPTS[i].name[0] && !strcmp(RUN_OPTS[i].name[0], name)) return &RUN_OPTS[i];
    return NULL;
}

static const run_opt *opt_short(int c)
{
    for (size_t i = 0; c > 0 && i < RUN_NOPT; i++)
        if (RUN_OPTS[i].shortc == c) return &RUN_OPTS[i];
    return NULL;
}

/* A single-valued option given twice: usage error (optonce.h).  A spelling of another
 * option's value (-u = --device cpu) counts as that option ("--device cuda -u" is given
 * twice; "-u -u" the flag repeated); an optional value that is absent shows as r->absent. */
static void opt_once(hz_optonce *s, const run_opt *r, const char *val, const struct option *lo, int argc, char **argv)
{
    const run_opt *k = r;
    if (r->as_of) {
        k = opt_named(r->as_of);
        int key = opt_val(k);
        if (s->seen[key] && s->first[key] == r->as_value) return;
        val = r->as_value;
    }
    if (r->absent && !val) val = optind < argc && argv[optind][0] != '-' ? argv[optind] : r->absent;
    hz_once(s, opt_val(k), k->shortc, val, lo);
}

/* Take one option's value into a (by_short: given by its letter).  -1, or the exit status. */
static int opt_take(hz_run_args *a, const run_opt *r, int by_short, int argc, char **argv)
{
    void *p = (char *)a + r->field;
    const char *label = by_short && r->slabel ? r->slabel : r->label;
    switch (r->kind) {
    case A_STR: *(const char **)p = optarg; break;
    case A_PATH: case A_WORD:
        if (!optarg[0]) hz_usage_error(r->kind == A_PATH ? "%s: empty path%s" : "%s: empty value%s", label, "");
        *(const char **)p = optarg; break;
    case A_U64: *(uint64_t *)p = (uint64_t)hz_parse_int(label, optarg, r->lo, r->hi); break;
    case A_U32: *(uint32_t *)p = (uint32_t)hz_parse_int(label, optarg, r->lo, r->hi); break;
    case A_I32: *(int32_t *)p = (int32_t)hz_parse_int(label, optarg, r->lo, r->hi); break;
    case A_INT: *(int *)p = (int)hz_parse_int(label, optarg, r->lo, r->hi); break;
    case A_ON: *(int *)p = 1; break;
    case A_OFF: *(int *)p = 0; break;
    case A_CHOICE: {
        int k = 0;
        while (r->choices[k] && strcmp(optarg, r->choices[k])) k++;
        if (!r->choices[k]) {   /* "'x' is not plus, minus or both" */
            char m[512];
            int n = snprintf(m, sizeof m, "'%s' is not ", optarg);
            for (int j = 0; r->choices[j] && n > 0 && (size_t)n < sizeof m; j++)
                n += snprintf(m + n, sizeof m - (size_t)n, "%s%s", j == 0 ? "" : r->choices[j + 1] ? ", " : " or ",
                              r->choices[j]);
            hz_usage_error("%s: %s", label, m);
        }
        *(const char **)p = optarg; break;
    }
    case A_FN: return r->fn(a, r, argc, argv);
    default: break;   /* A_NONE: accepted, nothing to set (--debug) */
    }
    return -1;
}

/* getopt_long over RUN_OPTS: every option into a, the flags given into set (config.h).
 * Returns -1 to go on, or the exit status (--help: 0); usage errors exit 2. */
int hz_run_parse(int argc, char **argv, hz_run_args *a, unsigned char *set)
{
    static struct option lo[3 * RUN_NOPT + 1];
    static int lo_row[3 * RUN_NOPT + 1];
    static char shorts[3 * RUN_NOPT + 2];
    if (!shorts[0]) {   /* getopt's tables, from the rows */
        size_t nl = 0, ns = 0;
        shorts[ns++] = ':';
        for (size_t i = 0; i < RUN_NOPT; i++) {
            const run_opt *r = &RUN_OPTS[i];
            for (int k = 0; k < 3 && r->name[k]; k++) {
                lo[nl] = (struct option){ r->name[k], r->has_arg, 0, opt_val(r) };
                lo_row[nl++] = (int)i;
            }
            if (!r->shortc) continue;
            shorts[ns++] = r->shortc;
            for (int k = 0; k < r->has_arg; k++) shorts[ns++] = ':';
        }
    }
    opterr = 0;
    optind = 1;
    static hz_optonce given;
    int c, li;
    while ((c = (li = -1, getopt_long(argc, argv, shorts, lo, &li))) != -1) {
        hz_cfg_mark(set, c, li >= 0 ? lo[li].name : NULL);
        if (c == ':') hz_usage_error("option %s needs a value%s", argv[optind - 1], "");
        const run_opt *r = li >= 0 ? &RUN_OPTS[lo_row[li]] : opt_short(c);
        if (!r) unknown_option(argc, argv);
        opt_once(&given, r, optarg, lo, argc, argv);
        int rc = opt_take(a, r, li < 0, argc, argv);
        if (rc >= 0) return rc;
    }
    if (optind < argc) hz_usage_error("unexpected argument '%s'%s", argv[optind], "");
    return -1;
}
