/* options — defaults of hz_opts and the table of its parameters (see options.h). */
#include "options.h"
#include <limits.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

void hz_opts_default(hz_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seq_block_size = 500000000ULL;
    o->interval_size = 10000000ULL;
    o->chunk_size = 250000ULL;
    o->seed = "12of19";
    o->step = 1;
    o->transition = 1;
    o->strand = "both";
    o->xdrop = 910;
    o->hspthresh = 3000;
    o->entropy = 1;
    o->target_prefix = "";
    o->query_prefix = "";
    o->format = "maf-";
    o->ydrop = 9430;
    o->gappedthresh = -1;
    o->data_folder = "work/";
    o->device = "auto";
    o->progress = -1;
}

size_t hz_opts_input_count(const hz_opts *o) { return 6 + o->n_query_list; }

const char *hz_opts_input(const hz_opts *o, size_t i)
{
    switch (i) {
    case 0: return o->target;
    case 1: return o->query;
    case 2: return o->scoring;
    case 3: return o->cfg ? o->cfg->config_path : NULL;
    case 4: return o->index_path;
    case 5: return o->query_list_path;
    default: return o->query_list && i - 6 < o->n_query_list ? o->query_list[i - 6] : NULL;
    }
}

/* ---- the parameters (hspz config, --config, the manifest's config.values) ----------------- */
static const char *const STRANDS[] = { "plus", "minus", "both", NULL };
static const char *const DEVICES[] = { "auto", "cpu", "cuda", NULL };
static const char *const PROGRESS[] = { "auto", "on", "off", NULL };

#define OFF(f) offsetof(hz_opts, f)
static const hz_param PARAMS[] = {
    { "inputs", "target", "-r/--target", HZ_P_NSTR, OFF(target), 0, 0, NULL, "target (reference) genome: FASTA, FASTA.gz/bgzip or 2bit" },
    { "inputs", "query", "-q/--query", HZ_P_NSTR, OFF(query), 0, 0, NULL, "query genome: FASTA, FASTA.gz/bgzip or 2bit" },
    { "inputs", "target_prefix", "-T/--target-prefix", HZ_P_STR, OFF(target_prefix), 0, 0, NULL, "prepended to every target name" },
    { "inputs", "query_prefix", "-Q/--query-prefix", HZ_P_STR, OFF(query_prefix), 0, 0, NULL, "prepended to every query name" },
    { "scoring", "scoring", "-c/--scoring", HZ_P_NSTR, OFF(scoring), 0, 0, NULL, "LASTZ score file (null = HOXD70)" },
    { "scoring", "ambiguous", "-a/--ambiguous", HZ_P_NSTR, OFF(ambiguous), 0, 0, NULL, "n, iupac, or n|iupac,REWARD,PENALTY (null = none)" },
    { "seeding", "seed", "-s/--seed", HZ_P_STR, OFF(seed), 1, 0, NULL, "12of19, 14of22 or a 1/T/0 pattern" },
    { "seeding", "step", "-e/--step", HZ_P_U32, OFF(step), 1, 1000000, NULL, "target position step" },
    { "seeding", "transition", "-n/--notransition", HZ_P_BOOL, OFF(transition), 0, 1, NULL, "allow one transition in seeds (false = --notransition)" },
    { "seeding", "strand", "-S/--strand", HZ_P_ENUM, OFF(strand), 0, 0, STRANDS, "query strand(s)" },
    { "extension", "xdrop", "-x/--xdrop", HZ_P_I32, OFF(xdrop), 1, 100000000, NULL, "X-drop of the gap-free extension" },
    { "extension", "hspthresh", "-H/--hspthresh", HZ_P_I32, OFF(hspthresh), 1, 1000000000, NULL, "HSP score threshold K" },
    { "extension", "entropy", "-E/--noentropy", HZ_P_BOOL, OFF(entropy), 0, 1, NULL, "entropy adjustment of HSP scores (false = --noentropy)" },
    { "plan", "seq_block_size", "-B/--seq-block-size", HZ_P_U64, OFF(seq_block_size), 1, 4000000000LL, NULL, "block size in bytes" },
    { "plan", "lastz_interval_size", "-I/--lastz-interval-size", HZ_P_U64, OFF(interval_size), 1, 4000000000LL, NULL, "query interval size (positions)" },
    { "plan", "wga_chunk_size", "-C/--wga-chunk-size", HZ_P_U64, OFF(chunk_size), 1, 4000000000LL, NULL, "query positions per seeding chunk" },
    { "plan", "max_hits", "-m/--max-hits", HZ_P_U64, OFF(max_hits), 0, LLONG_MAX, NULL, "semantic hits-per-batch cap; 0 = one batch per chunk" },
    { "output", "output", "-o/--output", HZ_P_NSTR, OFF(outdir), 0, 0, NULL, "output directory (must not exist or be empty)" },
    { "output", "force", "--force", HZ_P_BOOL, OFF(force), 0, 1, NULL, "replace an existing OUTDIR" },
    { "output", "format", "--format", HZ_P_STR, OFF(format), 1, 0, NULL, "lastz --format of the lastz commands" },
    { "output", "ydrop", "--ydrop", HZ_P_I32, OFF(ydrop), 0, 2000000000, NULL, "lastz --ydrop of the lastz commands" },
    { "output", "gappedthresh", "--gappedthresh", HZ_P_I32, OFF(gappedthresh), -1, 2000000000, NULL, "lastz --gappedthresh; -1 = hspthresh" },
    { "output", "inner", "--inner", HZ_P_I32, OFF(inner), 0, 2000000000, NULL, "lastz --inner (interpolation score threshold) in the lastz commands; 0 = none" },
    { "output", "notrivial", "--notrivial", HZ_P_BOOL, OFF(notrivial), 0, 1, NULL, "lastz --notrivial in the lastz commands" },
    { "output", "nogapped", "--nogapped", HZ_P_BOOL, OFF(nogapped), 0, 1, NULL, "write no lastz commands" },
    { "output", "gapped", "--gapped", HZ_P_BOOL, OFF(gapped), 0, 1, NULL, "also run the lastz commands in hspz (hspz gapped): their alignments in OUTDIR" },
    { "output", "traceback", "--traceback", HZ_P_NSTR, OFF(traceback), 0, 0, NULL, "lastz --allocate:traceback of --gapped's alignments (null = lastz's 80M)" },
    { "output", "data_folder", "--data-folder", HZ_P_STR, OFF(data_folder), 0, 0, NULL, "folder prefix of ref.2bit/query.2bit in the commands" },
    { "output", "print_commands", "--print-commands", HZ_P_BOOL, OFF(print_commands), 0, 1, NULL, "also print the lastz commands on stdout" },
    { "output", "tarball", "--tarball[=PATH]", HZ_P_NSTR, OFF(tarball), 0, 0, NULL, "Galaxy data package: null = none, \"\" = OUTDIR.tar.gz, else the path" },
    { "output", "diagonal_partition", "--diagonal-partition", HZ_P_U64, OFF(diagonal_partition), 0, LLONG_MAX, NULL, "max segments per lastz job; auto = KegAlign's estimate; 0 = no diagonal partition" },
    { "output", "single_file", "--single-file", HZ_P_BOOL, OFF(single_file), 0, 1, NULL, "also write OUTDIR/all.segments" },
    { "output", "report", "--report", HZ_P_BOOL, OFF(report), 0, 1, NULL, "also write OUTDIR/report.html and report.png (dot plot, funnel, settings)" },
    { "devices", "device", "--device", HZ_P_ENUM, OFF(device), 0, 0, DEVICES, "where chunks run" },
    { "devices", "threads", "-t/--threads", HZ_P_INT, OFF(threads), 0, 4096, NULL, "worker threads, 0 = all cores" },
    { "devices", "gpus", "--gpus", HZ_P_INT, OFF(gpus), 0, 64, NULL, "CUDA devices to use, 0 = all visible (output never depends on it)" },
    { "devices", "quiet", "--quiet", HZ_P_BOOL, OFF(quiet), 0, 1, NULL, "no progress, funnel or notes on stderr" },
    { "devices", "progress", "--progress/--no-progress", HZ_P_PROGRESS, OFF(progress), 0, 0, PROGRESS, "progress display (auto = when stderr is a terminal)" },
};
#define NPARAMS ((int)(sizeof PARAMS / sizeof PARAMS[0]))

_Static_assert(sizeof PARAMS / sizeof PARAMS[0] <= HZ_CFG_MAX, "HZ_CFG_MAX too small");

int hz_param_count(void) { return NPARAMS; }
const hz_param *hz_param_at(int i) { return i >= 0 && i < NPARAMS ? &PARAMS[i] : NULL; }
int hz_param_find(const char *key)
{
    for (int i = 0; i < NPARAMS; i++) if (!strcmp(PARAMS[i].key, key)) return i;
    return -1;
}
const char *hz_src_name(hz_src s) { return s == HZ_SRC_FILE ? "file" : s == HZ_SRC_FLAG ? "flag" : s == HZ_SRC_INDEX ? "index" : "default"; }

/* ---- field access ----------------------------------------------------------------------- */
void *hz_opts_field(const hz_opts *o, int i) { return (char *)o + PARAMS[i].off; }

long long hz_cfg_value_int(const hz_opts *o, int i)
{
    void *p = hz_opts_field(o, i);
    switch (PARAMS[i].type) {
    case HZ_P_U64: return (long long)*(uint64_t *)p;
    case HZ_P_U32: return (long long)*(uint32_t *)p;
    case HZ_P_I32: return (long long)*(int32_t *)p;
    case HZ_P_INT: case HZ_P_BOOL: case HZ_P_PROGRESS: return (long long)*(int *)p;
    default: return 0;
    }
}

/* diagonal_partition's automatic value (HZ_DIAG_AUTO) reads and prints as "auto" */
static int is_diag_auto(const hz_opts *o, int i)
{
    return PARAMS[i].off == OFF(diagonal_partition) && o->diagonal_partition == HZ_DIAG_AUTO;
}

int hz_cfg_value_kind(const hz_opts *o, int i)
{
    if (is_diag_auto(o, i)) return 0;   /* written as its text, "auto" */
    switch (PARAMS[i].type) {
    case HZ_P_STR: case HZ_P_NSTR: return 1;
    case HZ_P_BOOL: return 2;
    case HZ_P_U64: case HZ_P_U32: case HZ_P_I32: case HZ_P_INT: return 3;
    default: return 0;
    }
}

void hz_cfg_value_text(const hz_opts *o, int i, char *buf, size_t n)
{
    const hz_param *p = &PARAMS[i];
    switch (p->type) {
    case HZ_P_STR: case HZ_P_NSTR: case HZ_P_ENUM: {
        const char *s = *(const char **)hz_opts_field(o, i);
        snprintf(buf, n, "%s", s ? s : "null");
        break;
    }
    case HZ_P_BOOL: snprintf(buf, n, "%s", *(int *)hz_opts_field(o, i) ? "true" : "false"); break;
    case HZ_P_U64:
        if (is_diag_auto(o, i)) { snprintf(buf, n, "auto"); break; }
        snprintf(buf, n, "%lld", hz_cfg_value_int(o, i));
        break;
    case HZ_P_PROGRESS: {
        int v = *(int *)hz_opts_field(o, i);
        snprintf(buf, n, "%s", v < 0 ? "auto" : v ? "on" : "off");
        break;
    }
    default: snprintf(buf, n, "%lld", hz_cfg_value_int(o, i)); break;
    }
}

