/* config — YAML configuration with sources, HSPZ_* environment, dry run (see config.h). */
#include "config.h"
#include "shquote.h"
#include "plan.h"
#include "seed.h"
#include "seqio.h"
#include "inputcheck.h"
#include "inread.h"
#include "scoring.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

extern char **environ;

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
static const char *const SECTIONS[] = { "inputs", "scoring", "seeding", "extension", "plan", "output", "devices", NULL };

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
static void *fld(const hz_opts *o, int i) { return (char *)o + PARAMS[i].off; }

static size_t fsize(hz_ptype t)
{
    switch (t) {
    case HZ_P_U64: return sizeof(uint64_t);
    case HZ_P_U32: return sizeof(uint32_t);
    case HZ_P_I32: return sizeof(int32_t);
    case HZ_P_INT: case HZ_P_BOOL: case HZ_P_PROGRESS: return sizeof(int);
    default: return sizeof(const char *);
    }
}

long long hz_cfg_value_int(const hz_opts *o, int i)
{
    void *p = fld(o, i);
    switch (PARAMS[i].type) {
    case HZ_P_U64: return (long long)*(uint64_t *)p;
    case HZ_P_U32: return (long long)*(uint32_t *)p;
    case HZ_P_I32: return (long long)*(int32_t *)p;
    case HZ_P_INT: case HZ_P_BOOL: case HZ_P_PROGRESS: return (long long)*(int *)p;
    default: return 0;
    }
}

static void set_int(hz_opts *o, int i, long long v)
{
    void *p = fld(o, i);
    switch (PARAMS[i].type) {
    case HZ_P_U64: *(uint64_t *)p = (uint64_t)v; break;
    case HZ_P_U32: *(uint32_t *)p = (uint32_t)v; break;
    case HZ_P_I32: *(int32_t *)p = (int32_t)v; break;
    default: *(int *)p = (int)v; break;
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
        const char *s = *(const char **)fld(o, i);
        snprintf(buf, n, "%s", s ? s : "null");
        break;
    }
    case HZ_P_BOOL: snprintf(buf, n, "%s", *(int *)fld(o, i) ? "true" : "false"); break;
    case HZ_P_U64:
        if (is_diag_auto(o, i)) { snprintf(buf, n, "auto"); break; }
        snprintf(buf, n, "%lld", hz_cfg_value_int(o, i));
        break;
    case HZ_P_PROGRESS: {
        int v = *(int *)fld(o, i);
        snprintf(buf, n, "%s", v < 0 ? "auto" : v ? "on" : "off");
        break;
    }
    default: snprintf(buf, n, "%lld", hz_cfg_value_int(o, i)); break;
    }
}

/* ---- flags ------------------------------------------------------------------------------- */
void hz_cfg_mark(unsigned char *set, int c, const char *longname)
{
    static const struct { const char *name; const char *key; } LONG[] = {
        { "reference", "target" }, { "notransition", "transition" }, { "noentropy", "entropy" },
        { "num_threads", "threads" }, { "num_gpu", "gpus" }, { "cpu_only", "device" }, { "no_progress", "progress" }, { "seq_block_size", "seq_block_size" },
    };
    static const struct { char c; const char *key; } SHORT[] = {
        { 'r', "target" }, { 'q', "query" }, { 'o', "output" }, { 'T', "target_prefix" },
        { 'Q', "query_prefix" }, { 'B', "seq_block_size" }, { 'I', "lastz_interval_size" },
        { 'C', "wga_chunk_size" }, { 'm', "max_hits" }, { 's', "seed" }, { 'e', "step" },
        { 'n', "transition" }, { 'S', "strand" }, { 'x', "xdrop" }, { 'H', "hspthresh" },
        { 'E', "entropy" }, { 'a', "ambiguous" }, { 'c', "scoring" }, { 't', "threads" },
        { 'D', "diagonal_partition" }, { 'Z', "tarball" }, { 'G', "gpus" }, { 'u', "device" },
    };
    const char *key = NULL;
    if (longname) {
        char nm[64];
        size_t k = 0;
        for (; longname[k] && k + 1 < sizeof nm; k++) nm[k] = longname[k] == '-' ? '_' : longname[k];
        nm[k] = 0;
        key = nm;
        for (size_t j = 0; j < sizeof LONG / sizeof LONG[0]; j++)
            if (!strcmp(LONG[j].name, nm)) key = LONG[j].key;
        int i = hz_param_find(key);
        if (i >= 0) set[i] = 1;
        return;
    }
    for (size_t j = 0; j < sizeof SHORT / sizeof SHORT[0]; j++)
        if (SHORT[j].c == c) key = SHORT[j].key;
    if (key) {
        int i = hz_param_find(key);
        if (i >= 0) set[i] = 1;
    }
}

/* ---- YAML ------------------------------------------------------------------------------- */
typedef struct { const char *path; char *err; size_t errlen; } yctx;

static int yerr(yctx *y, yaml_mark_t m, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* values quoted in msg may hold line breaks (a folded multi-line scalar): one line, with
     * control bytes as \xHH (found by the long fuzz run, tests/fuzz/corpus/config/regress_*) */
    char safe[4 * sizeof msg];
    snprintf(y->err, y->errlen, "%s:%zu:%zu: %s", y->path, (size_t)m.line + 1, (size_t)m.column + 1,
             hz_printable(msg, SIZE_MAX, safe, sizeof safe));
    return -1;
}

static void join(char *buf, size_t n, const char *const *v)
{
    buf[0] = 0;
    for (int i = 0; v[i]; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, n - l, "%s%s", i ? ", " : "", v[i]);
    }
}

static int is_null(const yaml_node_t *n)
{
    if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return 0;
    const char *s = (const char *)n->data.scalar.value;
    return !strcmp(s, "") || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

static const char *range_text(const hz_param *p, char *buf, size_t n)
{
    if (p->off == OFF(diagonal_partition)) snprintf(buf, n, "auto or 0..%lld", p->hi);
    else if (p->lo == -1) snprintf(buf, n, "-1 or 0..%lld", p->hi);
    else snprintf(buf, n, "%lld..%lld", p->lo, p->hi);
    return buf;
}

/* *owned gets the string this call allocated for a string parameter (else stays NULL). */
static int set_value(yctx *y, hz_opts *o, int i, yaml_node_t *v, char **owned)
{
    const hz_param *p = &PARAMS[i];
    char allowed[256];
    if (v->type != YAML_SCALAR_NODE)
        return yerr(y, v->start_mark, "%s.%s: expected a single value, got a %s", p->section, p->key,
                    v->type == YAML_MAPPING_NODE ? "mapping" : "sequence");
    const char *s = (const char *)v->data.scalar.value;
    int plain = v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    switch (p->type) {
    case HZ_P_U64: case HZ_P_U32: case HZ_P_I32: case HZ_P_INT: {
        if (p->off == OFF(diagonal_partition) && plain && !strcmp(s, "auto")) {
            o->diagonal_partition = HZ_DIAG_AUTO;
            return 0;
        }
        char *end;
        errno = 0;
        long long x = plain && *s ? strtoll(s, &end, 10) : 0;
        if (!plain || !*s || errno == ERANGE || *end || (s[0] != '-' && (s[0] < '0' || s[0] > '9')))
            return yerr(y, v->start_mark, "%s.%s: expected an integer %s, got '%s'", p->section, p->key,
                        range_text(p, allowed, sizeof allowed), s);
        if (x < p->lo || x > p->hi)
            return yerr(y, v->start_mark, "%s.%s: %lld is out of range (allowed: %s)", p->section, p->key, x,
                        range_text(p, allowed, sizeof allowed));
        set_int(o, i, x);
        return 0;
    }
    case HZ_P_BOOL:
        if (plain && !strcmp(s, "true")) { *(int *)fld(o, i) = 1; return 0; }
        if (plain && !strcmp(s, "false")) { *(int *)fld(o, i) = 0; return 0; }
        return yerr(y, v->start_mark, "%s.%s: expected a boolean (allowed: true, false), got '%s'", p->section, p->key, s);
    case HZ_P_ENUM: case HZ_P_PROGRESS:
        for (int k = 0; p->values[k]; k++)
            if (!strcmp(s, p->values[k])) {
                if (p->type == HZ_P_PROGRESS) *(int *)fld(o, i) = k == 0 ? -1 : k == 1 ? 1 : 0;
                else *(const char **)fld(o, i) = p->values[k];
                return 0;
            }
        join(allowed, sizeof allowed, p->values);
        return yerr(y, v->start_mark, "%s.%s: '%s' is not allowed (allowed: %s)", p->section, p->key, s, allowed);
    case HZ_P_STR: case HZ_P_NSTR: {
        if (is_null(v)) {
            if (p->type == HZ_P_NSTR) { *(const char **)fld(o, i) = NULL; return 0; }
            return yerr(y, v->start_mark, "%s.%s: expected a string, got null", p->section, p->key);
        }
        if (p->lo > 0 && !*s) return yerr(y, v->start_mark, "%s.%s: expected a non-empty string", p->section, p->key);
        if (!strcmp(p->key, "seed")) {
            hz_shape sh;
            char e2[256];
            if (hz_shape_parse(s, 1, &sh, e2, sizeof e2))
                return yerr(y, v->start_mark, "seeding.seed: %s (allowed: 12of19, 14of22 or a 1/T/0 pattern)", e2);
        }
        if (!strcmp(p->key, "ambiguous")) {   /* the rules of the flag (scoring.h), here with FILE:LINE:COLUMN */
            char e2[512];
            if (hz_ambiguous_check(s, e2, sizeof e2)) return yerr(y, v->start_mark, "scoring.ambiguous: %s", e2 + 13);
        }
        char *d = strdup(s);
        if (!d) return yerr(y, v->start_mark, "out of memory");
        *(const char **)fld(o, i) = d;   /* owned by the hz_config (load_yaml keeps it in c->str) */
        *owned = d;
        return 0;
    }
    }
    return 0;
}

/* Bounds checked before libyaml builds a document (issue 31): its scanner is quadratic in the
 * nesting depth (200 KB of '[' took 36 s) and the document grows with the file (a 57 MB file
 * took 974 MB before failing at line 2).  hspz's configuration is two levels deep and a few KB
 * (conf/hspz.yaml). */
#define HZ_CFG_MAX_BYTES (1u << 20)
#define HZ_CFG_MAX_DEPTH 8

/* The file, read once through hz_inread (hashed on the way: the manifest's config.file.sha256
 * is of these bytes; a --config FIFO is not read again), into *buf (*n bytes).  Returns 0, -1
 * (a read error, errno) or -2 (over HZ_CFG_MAX_BYTES). */
static int cfg_slurp(hz_inread *r, unsigned char **buf, size_t *n)
{
    size_t cap = 0;
    *buf = NULL; *n = 0;
    for (;;) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 65536;
            unsigned char *nb = realloc(*buf, cap + 1);
            if (!nb) { errno = ENOMEM; return -1; }
            *buf = nb;
        }
        ssize_t k = hz_inread_at(r, *n, *buf + *n, cap - *n);
        if (k < 0) return -1;
        if (k == 0) return 0;
        *n += (size_t)k;
        if (*n > HZ_CFG_MAX_BYTES) return -2;
    }
}

/* Nesting deeper than HZ_CFG_MAX_DEPTH: an error at the first collection too deep (events
 * only, so the scan stops there).  Syntax errors are left to the document loader. */
static int cfg_depth_check(yctx *y, const unsigned char *buf, size_t n)
{
    yaml_parser_t ps;
    if (!yaml_parser_initialize(&ps)) { snprintf(y->err, y->errlen, "out of memory"); return -1; }
    yaml_parser_set_input_string(&ps, buf, n);
    int depth = 0, rc = 0;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&ps, &ev)) break;
        yaml_event_type_t t = ev.type;
        if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) {
            if (++depth > HZ_CFG_MAX_DEPTH) {
                rc = yerr(y, ev.start_mark, "nested deeper than %d levels (sections hold keys, keys hold single values)",
                          HZ_CFG_MAX_DEPTH);
                yaml_event_delete(&ev);
                break;
            }
        } else if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) depth--;
        yaml_event_delete(&ev);
        if (t == YAML_STREAM_END_EVENT) break;
    }
    yaml_parser_delete(&ps);
    return rc;
}

static int load_yaml(hz_config *c, const char *path, const unsigned char *skip, char *err, size_t errlen)
{
    yctx y = { path, err, errlen };
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { snprintf(err, errlen, "%s: cannot open config file: %s", path, strerror(errno)); return -1; }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd); snprintf(err, errlen, "%s: is a directory, not a config file", path); return -1;
    }
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > (off_t)HZ_CFG_MAX_BYTES) {
        close(fd);
        snprintf(err, errlen, "%s: %lld bytes; a configuration file is at most 1 MiB (conf/hspz.yaml lists every key in a few KB)",
                 path, (long long)st.st_size);
        return -1;
    }
    hz_inread in;
    if (hz_inread_init(&in, fd)) { close(fd); snprintf(err, errlen, "out of memory"); return -1; }
    unsigned char *text = NULL;
    size_t tlen = 0;
    int sr = cfg_slurp(&in, &text, &tlen);
    if (sr) {
        if (sr == -2) snprintf(err, errlen, "%s: over 1 MiB; a configuration file is at most 1 MiB (conf/hspz.yaml lists every key in a few KB)", path);
        else snprintf(err, errlen, "%s: cannot read config file: %s", path, strerror(errno));
        free(text); hz_inread_free(&in); close(fd);
        return -1;
    }
    if (cfg_depth_check(&y, text, tlen)) { free(text); hz_inread_free(&in); close(fd); return -1; }
    yaml_parser_t ps;
    yaml_document_t doc;
    int rc = -1;
    if (!yaml_parser_initialize(&ps)) { free(text); hz_inread_free(&in); close(fd); snprintf(err, errlen, "out of memory"); return -1; }
    yaml_parser_set_input_string(&ps, text, tlen);
    if (!yaml_parser_load(&ps, &doc)) {
        yaml_mark_t m = ps.problem_mark;
        yerr(&y, m, "YAML syntax error: %s%s%s", ps.problem ? ps.problem : "unknown",
             ps.context ? " " : "", ps.context ? ps.context : "");
        yaml_parser_delete(&ps); free(text); hz_inread_free(&in); close(fd);
        return -1;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    unsigned char seen[HZ_CFG_MAX] = {0};
    char allowed[1024];
    if (!root || (root->type == YAML_SCALAR_NODE && is_null(root))) { rc = 0; goto out; }   /* empty file */
    if (root->type != YAML_MAPPING_NODE) {
        join(allowed, sizeof allowed, SECTIONS);
        yerr(&y, root->start_mark, "expected a mapping of sections (allowed: %s)", allowed);
        goto out;
    }
    unsigned char seen_sec[16] = {0};
    for (yaml_node_pair_t *sp = root->data.mapping.pairs.start; sp < root->data.mapping.pairs.top; sp++) {
        yaml_node_t *k = yaml_document_get_node(&doc, sp->key), *v = yaml_document_get_node(&doc, sp->value);
        const char *sec = k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : "";
        int si = -1;
        for (int j = 0; SECTIONS[j]; j++) if (!strcmp(SECTIONS[j], sec)) si = j;
        if (si < 0) {
            join(allowed, sizeof allowed, SECTIONS);
            yerr(&y, k->start_mark, "unknown section '%s' (allowed: %s)", sec, allowed);
            goto out;
        }
        if (seen_sec[si]++) { yerr(&y, k->start_mark, "section '%s' appears twice", sec); goto out; }
        if (v->type == YAML_SCALAR_NODE && is_null(v)) continue;
        if (v->type != YAML_MAPPING_NODE) {
            yerr(&y, v->start_mark, "section '%s': expected a mapping of keys", sec); goto out;
        }
        for (yaml_node_pair_t *kp = v->data.mapping.pairs.start; kp < v->data.mapping.pairs.top; kp++) {
            yaml_node_t *kk = yaml_document_get_node(&doc, kp->key), *vv = yaml_document_get_node(&doc, kp->value);
            const char *key = kk->type == YAML_SCALAR_NODE ? (const char *)kk->data.scalar.value : "";
            int i = -1;
            for (int j = 0; j < NPARAMS; j++)
                if (!strcmp(PARAMS[j].section, sec) && !strcmp(PARAMS[j].key, key)) i = j;
            if (i < 0) {
                allowed[0] = 0;
                for (int j = 0; j < NPARAMS; j++)
                    if (!strcmp(PARAMS[j].section, sec)) {
                        size_t l = strlen(allowed);
                        snprintf(allowed + l, sizeof allowed - l, "%s%s", l ? ", " : "", PARAMS[j].key);
                    }
                int elsewhere = hz_param_find(key);
                if (elsewhere >= 0)
                    yerr(&y, kk->start_mark, "unknown key '%s' in section '%s' (allowed: %s; '%s' belongs in section '%s')",
                         key, sec, allowed, key, PARAMS[elsewhere].section);
                else
                    yerr(&y, kk->start_mark, "unknown key '%s' in section '%s' (allowed: %s)", key, sec, allowed);
                goto out;
            }
            if (seen[i]++) { yerr(&y, kk->start_mark, "key '%s.%s' appears twice", sec, key); goto out; }
            hz_opts tmp = c->o;   /* validate even when a flag overrides it */
            char *owned = NULL;
            if (set_value(&y, &tmp, i, vv, &owned)) goto out;
            if (!skip || !skip[i]) {
                memcpy(fld(&c->o, i), fld(&tmp, i), fsize(PARAMS[i].type));
                c->src[i] = HZ_SRC_FILE;
                free(c->str[i]);
                c->str[i] = owned;
            } else {
                free(owned);   /* validated only: the flag's value stays */
            }
        }
    }
    rc = 0;
    {   /* one document only: a second one would be ignored silently */
        yaml_document_t d2;
        if (yaml_parser_load(&ps, &d2)) {
            yaml_node_t *r2 = yaml_document_get_root_node(&d2);
            if (r2) {
                yerr(&y, r2->start_mark, "a second YAML document ('---'): put every setting in one document");
                rc = -1;
            }
            yaml_document_delete(&d2);
        }
    }
out:
    /* the digest covers the whole file (what follows the document too) */
    if (rc == 0 && hz_inread_finish(&in, c->sha256, NULL) != 0) {
        snprintf(err, errlen, "%s: cannot read config file: %s", path, strerror(errno));
        rc = -1;
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&ps);
    free(text);
    hz_inread_free(&in);
    close(fd);
    return rc;
}

void hz_cfg_free(hz_config *c)
{
    for (int i = 0; i < HZ_CFG_MAX; i++) { free(c->str[i]); c->str[i] = NULL; }
}

int hz_cfg_load_yaml(hz_config *c, const char *path, char *err, size_t errlen)
{
    return load_yaml(c, path, NULL, err, errlen);
}

int hz_cfg_resolve(hz_config *c, const char *path, const hz_opts *flags, const unsigned char *set,
                   char *err, size_t errlen)
{
    hz_opts d;
    hz_opts_default(&d);
    memset(c, 0, sizeof *c);
    c->o = *flags;   /* keeps whatever is not a parameter (argc/argv, other options) */
    for (int i = 0; i < NPARAMS; i++) {
        if (set && set[i]) c->src[i] = HZ_SRC_FLAG;
        else memcpy(fld(&c->o, i), fld(&d, i), fsize(PARAMS[i].type));
    }
    c->config_path = path;
    c->sha256[0] = 0;
    c->o.cfg = c;
    if (hz_env_check(err, errlen)) return -1;
    if (path && load_yaml(c, path, set, err, errlen)) return -1;
    return 0;
}

/* YAML double-quoted string */
static void put_str(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') { fputc('\\', fp); fputc(*p, fp); }
        else if (*p == '\n') fputs("\\n", fp);
        else if (*p == '\t') fputs("\\t", fp);
        else if (*p < 0x20 || *p == 0x7f) fprintf(fp, "\\x%02x", *p);
        /* C1 controls (U+0080..U+009F; YAML folds NEL, U+0085, like a line break) and the line
         * and paragraph separators U+2028/9: escaped, so the file reads back to the same bytes
         * (found by the long fuzz run: tests/fuzz/corpus/config/regress_config_nel_roundtrip) */
        else if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) { fprintf(fp, "\\x%02x", p[1]); p++; }
        else if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) { fputs(p[2] == 0xa8 ? "\\L" : "\\P", fp); p += 2; }
        else fputc(*p, fp);
    }
    fputc('"', fp);
}

void hz_cfg_print(const hz_config *c, FILE *fp)
{
    fprintf(fp, "# hspz %s resolved configuration (hspz config).  After each value: its source\n"
                "# (default | file | flag) and what it means.  Precedence: default < --config file < flag.\n",
            HSPZ_VERSION);
    if (c->config_path) {
        fputs("# config file: ", fp); put_str(fp, c->config_path); fputc('\n', fp);
    }
    for (int s = 0; SECTIONS[s]; s++) {
        fprintf(fp, "%s:\n", SECTIONS[s]);
        for (int i = 0; i < NPARAMS; i++) {
            const hz_param *p = &PARAMS[i];
            if (strcmp(p->section, SECTIONS[s])) continue;
            fprintf(fp, "  %s: ", p->key);
            char buf[64];
            if (p->type == HZ_P_STR || p->type == HZ_P_NSTR) {
                const char *v = *(const char **)fld(&c->o, i);
                if (v) put_str(fp, v); else fputs("null", fp);
            } else {
                hz_cfg_value_text(&c->o, i, buf, sizeof buf);
                fputs(buf, fp);
            }
            char rng[96] = "";
            if (p->values) { rng[0] = '['; join(rng + 1, sizeof rng - 2, p->values); strcat(rng, "]"); }
            else if (hz_cfg_value_kind(&c->o, i) == 3 || is_diag_auto(&c->o, i)) { rng[0] = '['; range_text(p, rng + 1, sizeof rng - 2); strcat(rng, "]"); }
            fprintf(fp, "  # %s - %s (%s)%s%s\n", hz_src_name((hz_src)c->src[i]), p->help, p->flag, rng[0] ? " " : "", rng);
        }
    }
}

/* ---- environment ------------------------------------------------------------------------ */
static hz_envvar ENV[] = {
    { "HSPZ_GATE", "score, full", NULL },
    { "HSPZ_GATE_KERNEL", "refill, vec, thread, warp", NULL },
    { "HSPZ_DEVICE_SEEDS", "0, 1", NULL },
    { "HSPZ_DEVICE_LONG", "diag, 1, 0", NULL },
    { "HSPZ_DEVICE_DEDUP", "1, 0", NULL },
    { "HSPZ_REF_BUCKETS", "auto, on, off", NULL },
    { "HSPZ_GPU_TILE", "an integer 1..1073741824", NULL },
    { "HSPZ_SYNC", "block, auto, spin, yield", NULL },
    /* tests only: the N-th device allocation or gate launch fails (tests/gpu/device_suite.sh);
     * publish-kill:N, a SIGKILL at publish step N (src/run/publish.c, tests/bats/outsafe.bats) */
    { "HSPZ_FAULT", "gpu-alloc:N, gpu-kernel:N or publish-kill:N, N an integer 1..1073741824 (tests only)", NULL },
    /* benchmarks: phase times on stderr (src/run/pipeline.c trace) */
    { "HSPZ_TRACE", "0, 1", NULL },
    /* hspz gapped --device (src/run/gapped_cmd.c, cuda/gapped/ydrop.cu): halves per device
     * launch (tests), and per-pass device counts on stderr (benchmarks) */
    { "HSPZ_GAPPED_BATCH", "an integer 1..1073741824", NULL },
    { "HSPZ_GAPPED_STATS", "0, 1", NULL },
};
#define NENV ((int)(sizeof ENV / sizeof ENV[0]))
/* variables of the test harness and benchmarks (tests/lib/common.bash); hspz never reads them */
static const char *const HARNESS[] = { "HSPZ_SHARED", "HSPZ_SLOW", "HSPZ_TIMEOUT", "HSPZ_TEST_LOG", "HSPZ_GAPPED_EXTRA",
                                       /* .ci/galaxy.sh's settings, exported to the hspz it tests */
                                       "HSPZ_BIN_DIR", "HSPZ_DOCKER_IMAGE", "HSPZ_DOCKER_SOCKET", NULL };

/* v is one of ENV[k].allowed's comma-separated words, or an integer 1..2^30 when the list
 * is "an integer ..." */
static int env_value_ok(int k, const char *v)
{
    const char *al = ENV[k].allowed;
    if (!strncmp(al, "gpu-alloc:N", 11)) {
        const char *c = strchr(v, ':');
        if (!c || !((c - v == 9 && !strncmp(v, "gpu-alloc", 9)) || (c - v == 10 && !strncmp(v, "gpu-kernel", 10)) ||
                    (c - v == 12 && !strncmp(v, "publish-kill", 12)))) return 0;
        v = c + 1;
        al = "an integer";
    }
    if (!strncmp(al, "an integer", 10)) {
        char *end;
        errno = 0;
        if (!*v || *v < '0' || *v > '9') return 0;
        unsigned long long x = strtoull(v, &end, 10);
        return !errno && !*end && x >= 1 && x <= (1ULL << 30);
    }
    size_t n = strlen(v);
    for (const char *p = al; *p;) {
        size_t w = strcspn(p, ",");
        if (w == n && !strncmp(p, v, n)) return 1;
        p += w;
        while (*p == ',' || *p == ' ') p++;
    }
    return 0;
}

int hz_env_check(char *err, size_t errlen)
{
    for (int k = 0; k < NENV; k++) ENV[k].value = NULL;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "HSPZ_", 5)) continue;
        const char *eq = strchr(*e, '=');
        size_t nl = eq ? (size_t)(eq - *e) : strlen(*e);
        const char *val = eq ? eq + 1 : "";
        int known = -1;
        for (int k = 0; k < NENV; k++)
            if (strlen(ENV[k].name) == nl && !strncmp(ENV[k].name, *e, nl)) known = k;
        if (known < 0) continue;   /* not read by hspz: hz_env_unknown names it in a note */
        if (!env_value_ok(known, val)) {
            char ev[1024];
            snprintf(err, errlen, "environment variable %s='%s' is not allowed (allowed: %s)",
                     ENV[known].name, hz_printable(val, 200, ev, sizeof ev), ENV[known].allowed);
            return -1;
        }
        ENV[known].value = val;
    }
    return 0;
}

int hz_env_unknown(char *buf, size_t n)
{
    int count = 0;
    size_t used = 0;
    if (n) buf[0] = 0;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "HSPZ_", 5)) continue;
        const char *eq = strchr(*e, '=');
        size_t nl = eq ? (size_t)(eq - *e) : strlen(*e);
        int skip = 0;
        for (int k = 0; k < NENV && !skip; k++) skip = strlen(ENV[k].name) == nl && !strncmp(ENV[k].name, *e, nl);
        for (int k = 0; HARNESS[k] && !skip; k++) skip = strlen(HARNESS[k]) == nl && !strncmp(HARNESS[k], *e, nl);
        if (skip) continue;
        char en[256];
        hz_printable(*e, nl > 200 ? 200 : nl, en, sizeof en);
        int w = snprintf(buf + used, used < n ? n - used : 0, "%s%s", count ? ", " : "", en);
        if (w > 0 && used + (size_t)w < n) used += (size_t)w;
        count++;
    }
    return count;
}

const hz_envvar *hz_env_vars(int *n) { *n = NENV; return ENV; }

/* ---- plan counts and dry run ------------------------------------------------------------ */
void hz_plan_count(const hz_side *ts, const hz_side *qs, unsigned W, const hz_opts *o, hz_plan_counts *pc)
{
    memset(pc, 0, sizeof *pc);
    pc->target_blocks = ts->n_block; pc->query_blocks = qs->n_block;
    pc->target_records = ts->n_rec; pc->query_records = qs->n_rec;
    int nstr = (!strcmp(o->strand, "plus") || !strcmp(o->strand, "both")) +
               (!strcmp(o->strand, "minus") || !strcmp(o->strand, "both"));
    size_t chunks_per_tblock = 0;
    for (size_t q = 0; q < qs->n_block; q++) {
        uint32_t (*iv)[2] = NULL;
        size_t niv = hz_intervals(qs->block[q].len, W, o->interval_size, &iv);
        pc->intervals += niv;
        for (size_t k = 0; k < niv; k++) {
            uint64_t n = (uint64_t)iv[k][1] - iv[k][0] + 1;
            chunks_per_tblock += (size_t)nstr * (size_t)((n + o->chunk_size - 1) / o->chunk_size);
        }
        free(iv);
    }
    pc->work_units = pc->intervals * ts->n_block;
    pc->chunks = chunks_per_tblock * ts->n_block;
}

int hz_dry_run(const hz_config *c)
{
    const hz_opts *o = &c->o;
    char err[2048] = "";
    hz_seqset t = {0}, q = {0};
    hz_side ts = {0}, qs = {0};
    hz_shape sh;
    int status = 1;
    if (hz_shape_parse(o->seed, o->transition, &sh, err, sizeof err)) goto done;
    if (hz_seqset_load(o->target, &t, err, sizeof err)) goto done;
    if (hz_seqset_load(o->query, &q, err, sizeof err)) goto done;
    if (hz_side_plan(&ts, &t, o->seq_block_size, o->target_prefix, err, sizeof err)) goto done;
    if (hz_side_plan(&qs, &q, o->seq_block_size, o->query_prefix, err, sizeof err)) goto done;
    if (hz_input_check(o, &ts, &qs, err, sizeof err)) goto done;
    struct stat st;
    if (stat(o->outdir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) { snprintf(err, sizeof err, "%s: exists and is not a directory", o->outdir); goto done; }
    }
    hz_plan_counts pc;
    hz_plan_count(&ts, &qs, (unsigned)sh.span, o, &pc);
    hz_cfg_print(c, stdout);
    printf("# dry run: nothing was extended and %s was not created\n", o->outdir);
    printf("dry_run:\n");
    printf("  inputs:\n");
    const hz_seqset *ss[2] = { &t, &q };
    const char *role[2] = { "target", "query" };
    for (int k = 0; k < 2; k++) {
        printf("    - role: %s\n      path: ", role[k]);
        put_str(stdout, ss[k]->path ? ss[k]->path : "");
        printf("\n      format: %s\n      bytes: %llu\n      records: %zu\n      bases: %llu\n", ss[k]->kind,
               (unsigned long long)ss[k]->file_bytes, ss[k]->n, (unsigned long long)ss[k]->total);
    }
    printf("  seed: {pattern: ");
    put_str(stdout, o->seed);
    printf(", span: %u, weight: %u}\n", (unsigned)sh.span, (unsigned)sh.weight);
    printf("  plan:\n    target_blocks: %zu\n    query_blocks: %zu\n    intervals: %zu\n"
           "    work_units: %zu\n    chunks: %zu\n", pc.target_blocks, pc.query_blocks, pc.intervals,
           pc.work_units, pc.chunks);
    printf("    blocks:\n");
    const hz_side *sd[2] = { &ts, &qs };
    for (int k = 0; k < 2; k++)
        for (size_t b = 0; b < sd[k]->n_block; b++)
            printf("      - {side: %s, block: %zu, start: %llu, bytes: %u, records: %zu}\n", role[k], b,
                   (unsigned long long)sd[k]->block[b].start, sd[k]->block[b].len, sd[k]->block[b].nrec);
    int n;
    const hz_envvar *ev = hz_env_vars(&n);
    printf("  environment:\n");
    for (int k = 0; k < n; k++) {
        printf("    %s: ", ev[k].name);
        if (ev[k].value) put_str(stdout, ev[k].value); else fputs("null", stdout);
        fputc('\n', stdout);
    }
    fflush(stdout);
    status = 0;
done:
    if (status) fprintf(stderr, "hspz: %s\n", err[0] ? err : "dry run failed");
    hz_side_free(&ts); hz_side_free(&qs);
    hz_seqset_free(&t); hz_seqset_free(&q);
    return status;
}
