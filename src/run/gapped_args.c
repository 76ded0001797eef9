/* gapped_args — `hspz gapped`'s command line read as lastz 1.04.22 reads it (spec §0.2): the
 * words into gopts (gapped_cmd_impl.h), numbers and sizes in lastz's spellings. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gapped_cmd.h"
#include "gapped_cmd_impl.h"

const char HZ_GAPPED_USAGE[] =
"usage: hspz gapped TARGET[[multiple]][subset=NAMES][nameparse=darkspace] QUERY[subset=NAMES][nameparse=darkspace]\n"
"                   --segments=FILE [lastz options]\n"
"\n"
"LASTZ 1.04.22's gapped stage run from pre-computed HSPs (lastz --segments), in hspZ: the same\n"
"command line as lastz (a line of hspz's lastz-commands.txt with 'lastz' replaced by\n"
"'hspz gapped'), the same output bytes.  TARGET and QUERY: FASTA, gzip FASTA or 2bit.\n"
"\n"
"Supported lastz options:\n"
"  --segments=FILE            HSPs (tName tStart tEnd qName qStart qEnd strand [score]); required\n"
"  --format=maf-|maf|axt|axt+ output format; required (lastz's default, lav, is not built)\n"
"  --output=FILE              output file (default: standard output)\n"
"  --threads=N                (hspz's own) compute the passes (query records x strands) on N\n"
"                             threads; the same bytes for every N\n"
"  --device=cpu|cuda|auto     (hspz's own) where the anchors' speculative extensions run\n"
"                             (default cpu; cuda: a CUDA GPU; auto: the GPU when there is one);\n"
"                             the same bytes on every device\n"
"  --ydrop=N, Y=N             y-drop (default gap_open + 300 * gap_extend = 9400)\n"
"  --gappedthresh=N, L=N      keep alignments scoring at least N (default 3000)\n"
"  --strand=plus|minus|both   query strand(s) (default both)\n"
"  --ambiguous=n|iupac[,R,P]  scores of N / IUPAC letters\n"
"  --scores=FILE              LASTZ score file (matrix, bad/fill scores, gap penalties, y_drop, ...)\n"
"  --allocate:traceback=V, --traceback=V, m=V   traceback memory (default 80M)\n"
"  --inner=N, H=N             interpolation: alignments scoring >= N between and around the\n"
"                             others (make_lastz_chains: H=2000)\n"
"Sequence actions: [multiple] (a target without it must hold one record), [subset=FILE],\n"
"[nameparse=darkspace], [start,end]; FILE.2bit/NAME selects one record (make_lastz_chains'\n"
"'REF.2bit/CHROM[s,e][multiple]', 'REF.2bit/CHROM').  --version: hspz's version line.\n"
"\n"
"\n"
"hspz gapped --outdir OUTDIR -r TARGET -q QUERY [--threads N] [--device D]\n"
"                   [--allocate:traceback=SIZE] [--force]\n"
"  runs every line of OUTDIR/lastz-commands.txt (hspz run's output folder), reading TARGET and\n"
"  QUERY (the files given to hspz run) where the lines name work/ref.2bit and work/query.2bit,\n"
"  on N worker processes; each line writes its --output file and its 2> file in OUTDIR, the\n"
"  bytes lastz writes for it.  TARGET and QUERY must have the sha256 OUTDIR/manifest.json\n"
"  records; outputs stay inside OUTDIR and are new files unless --force is given.  When every\n"
"  line succeeds, OUTDIR/gapped-manifest.json records the inputs, settings, each file's sha256\n"
"  and the times.  hspz run --gapped does all of this in the run (docs/gapped.md).\n"
"  --allocate:traceback=SIZE (or --traceback=SIZE) is appended to every line, as lastz would\n"
"  read it there (Batched LASTZ and make_lastz_chains run lastz with 1.99G).\n"
"\n"
"  --notrivial                leave out LASTZ's trivial self-alignments (identical records, and\n"
"                             its second check when a side is partitioned)\n"
"Not built yet (refused with a message; run lastz for them):\n"
"--ambiguous together with --inner, --format=maf+/lav/sam/general/...,\n"
"'rewind' lines, and every other lastz option.\n";

static int die(const char *fmt, ...)
{
    va_list ap; va_start(ap, fmt);
    vfprintf(stderr, fmt, ap); va_end(ap);
    fputc('\n', stderr);
    return 1;
}

/* --traceback value (§0.2): integer or decimal with K/M/G, rounded in single precision */
static int64_t parse_units(const char *s);
int64_t hz_gapped_tb_parse(const char *v)
{
    int64_t b = parse_units(v);
    return b == -3 ? -3 : b < 0 ? -1 : b < 100 * 1024 ? -2 : b;
}

static int64_t parse_units(const char *s)
{
    char *e; errno = 0;
    double v = strtod(s, &e);
    if (e == s || errno) return -1;
    float mult = 1;
    if (*e == 'K' || *e == 'k') { mult = 1024.0f; e++; }
    else if (*e == 'M' || *e == 'm') { mult = 1024.0f * 1024.0f; e++; }
    else if (*e == 'G' || *e == 'g') { mult = 1024.0f * 1024.0f * 1024.0f; e++; }
    if (*e) return -1;
    if (strchr(s, '.') || mult != 1) {
        /* lastz reads these through an int: above INT_MAX it fails ("out of range") */
        const float f = (float)v * mult + 0.5f;
        return (double)f > 2147483647.0 ? -3 : (int64_t)f;
    }
    return (int64_t)v;
}

static int parse_int(const char *s, int32_t *out)
{
    char *e; errno = 0;
    if (!((*s >= '0' && *s <= '9') || ((*s == '-' || *s == '+') && s[1] >= '0' && s[1] <= '9'))) return -1;
    long v = strtol(s, &e, 10);
    if (e == s || *e || errno || v < -2147483647L || v > 2147483647L) return -1;
    *out = (int32_t)v;
    return 0;
}

/* a score option's value (Y=, L=, H=): hspz reads plain decimal integers only; lastz also
 * reads other spellings (1.5, 1K, 1e3, 0x10, ' 5'), so anything else is refused with the
 * line that says to run lastz, never called a bad value (issue 34). */
static int parse_score(const char *a, const char *v, int32_t *out)
{
    if (!parse_int(v, out)) return 0;
    return die("hspz gapped: '%s': hspz gapped reads plain decimal integers only (this value is not supported); run lastz for it", a);
}

/* split SPEC into file and [actions] (§1.2) */
static int parse_spec(gopts *o, int w, const char *spec)
{
    o->spec[w] = spec;
    const char *b = strchr(spec, '[');
    size_t fl = b ? (size_t)(b - spec) : strlen(spec);
    o->file[w] = strndup(spec, fl);
    /* FILE/NAME (family B), lastz's rule (sequences.c L8158-8180): FILE ends in ".2bit" and NAME
     * holds no '/' and no ".2bit"; a FASTA is never split (lastz then fails to open FILE/NAME) */
    char *sl = strstr(o->file[w], ".2bit/");
    if (sl && !strchr(sl + 6, '/') && !strstr(sl + 6, ".2bit")) { o->recname[w] = strdup(sl + 6); sl[5] = 0; }
    while (b && *b == '[') {
        const char *e = strchr(b, ']');
        if (!e) return die("hspz gapped: bad sequence specifier '%s' (unclosed '[')", spec);
        size_t n = (size_t)(e - b - 1);
        if (n == 8 && !strncmp(b + 1, "multiple", 8)) o->multiple[w] = 1;
        else if (n == 19 && !strncmp(b + 1, "nameparse=darkspace", 19)) o->darkspace[w] = 1;
        else if (n > 7 && !strncmp(b + 1, "subset=", 7)) { free(o->subset[w]); o->subset[w] = strndup(b + 8, n - 7); }
        else if (n > 0 && b[1] >= '0' && b[1] <= '9') {            /* [s,e] sub-range */
            unsigned long long x, y; int used = 0;
            if (sscanf(b + 1, "%llu,%llu%n", &x, &y, &used) != 2 || (size_t)used != n || x < 1 || y < x)
                return die("hspz gapped: bad sub-range '[%.*s]' in '%s' (hspz gapped takes [start,end])", (int)n, b + 1, spec);
            o->rs[w] = x; o->re[w] = y;
        }
        else return die("hspz gapped: sequence action '[%.*s]' in '%s' is not supported by hspz gapped; run lastz for it", (int)n, b + 1, spec);
        b = e + 1;
    }
    if (b && *b) return die("hspz gapped: bad sequence specifier '%s'", spec);
    if (o->recname[w] && o->subset[w]) return die("hspz gapped: '%s' names a record and a subset; run lastz for it", spec);
    if (o->rs[w] && !o->recname[w]) return die("hspz gapped: a sub-range needs FILE/NAME in '%s'; run lastz for it", spec);
    return 0;
}

int hz_gapped_args(gopts *o, int argc, char **argv)
{
    int npos = 0;
    o->strand = 3; o->tb_bytes = 80 * 1024 * 1024; o->ydrop = o->gapped = -1;
    o->args = calloc((size_t)argc + 1, sizeof *o->args);
    if (!o->args) return die("hspz gapped: out of memory");
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (a[0] != '-' && !strchr(a, '=') ) {
            if (npos == 2) return die("hspz gapped: unexpected argument '%s'", a);
            if (parse_spec(o, npos++, a)) return 1;
            continue;
        }
        if (a[0] != '-' && strchr(a, '[') && strchr(a, '=') > strchr(a, '[')) {   /* FILE[subset=...] */
            if (npos == 2) return die("hspz gapped: unexpected argument '%s'", a);
            if (parse_spec(o, npos++, a)) return 1;
            continue;
        }
        const char *v = strchr(a, '=') ? strchr(a, '=') + 1 : NULL;
        if (!strncmp(a, "--threads=", 10)) {               /* hspz's own option: not in lastz's ARGS */
            int32_t t;
            if (parse_int(v, &t) || t < 1 || t > 1024) return die("hspz gapped: bad --threads '%s'", a);
            o->threads = t;
            continue;
        }
        if (!strncmp(a, "--device=", 9)) {                 /* hspz's own option, like --threads */
            if (strcmp(v, "cpu") && strcmp(v, "cuda") && strcmp(v, "auto") && strcmp(v, "emu"))
                return die("hspz gapped: bad --device '%s' (cpu, cuda or auto)", a);
            o->device = v;
            continue;
        }
        o->args[o->nargs++] = a;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { fputs(HZ_GAPPED_USAGE, stdout); exit(0); }
        /* lastz refuses a second --segments= or --scores= (lastz.c L5960, L7534: "Duplicated or
         * conflicting option", exit 1; its usage text goes to stdout) */
        else if (!strncmp(a, "--segments=", 11)) { if (o->segments) return die("Duplicated or conflicting option \"%s\"", a); o->segments = v; }
        else if (!strncmp(a, "--output=", 9)) o->output = v;
        else if (!strncmp(a, "--format=", 9)) {
            if (strcmp(v, "maf-") && strcmp(v, "maf") && strcmp(v, "axt") && strcmp(v, "axt+"))
                return die("hspz gapped: --format=%s is not supported by hspz gapped (maf-, maf, axt, axt+ are); run lastz for it", v);
            o->format = v;
        }
        else if (!strncmp(a, "--ydrop=", 8) || !strncmp(a, "Y=", 2)) {
            if (parse_score(a, v, &o->ydrop)) return 1;
            o->have_ydrop = 1;
        }
        else if (!strncmp(a, "--gappedthresh=", 15) || !strncmp(a, "L=", 2)) {
            if (parse_score(a, v, &o->gapped)) return 1;
            o->have_gapped = 1;
        }
        else if (!strncmp(a, "--strand=", 9)) {
            if (!strcmp(v, "plus")) o->strand = 1;
            else if (!strcmp(v, "minus")) o->strand = 2;
            else if (!strcmp(v, "both")) o->strand = 3;
            else return die("hspz gapped: bad strand '%s'", a);
        }
        else if (!strncmp(a, "--ambiguous=", 12)) o->ambiguous = v;
        else if (!strcmp(a, "--notrivial")) o->notrivial = 1;
        else if (!strncmp(a, "--scores=", 9) || !strncmp(a, "Q=", 2)) { if (o->scores) return die("Duplicated or conflicting option \"%s\"", a); o->scores = v; }
        else if (!strncmp(a, "--allocate:traceback=", 21) || !strncmp(a, "--traceback=", 12) || !strncmp(a, "m=", 2)) {
            o->tb_bytes = parse_units(v);
            if (o->tb_bytes == -3) return die("FAILURE: \"%s\" is out of range for an integer", v);
            if (o->tb_bytes < 0) return die("hspz gapped: '%s': hspz gapped reads a number with an optional K, M or G only; run lastz for it", a);
            if (o->tb_bytes < 100 * 1024) {
                /* lastz.c's wording, the size as its unitize() prints it (one decimal, the next
                 * unit of 1024 once the value passes 99; measured against lastz 1.04.22) */
                double x = (double)o->tb_bytes; const char *u = "";
                if (x > 99) { x /= 1024; u = "K"; }
                if (x > 99) { x /= 1024; u = "M"; }
                return die("--allocate:traceback must be at least 100K (it's only %.1f%s)", x, u);
            }
        }
        else if (!strncmp(a, "--inner=", 8) || !strncmp(a, "H=", 2)) {
            if (parse_score(a, v, &o->inner)) return 1;
            if (o->inner < 0) o->inner = 0;        /* lastz: interpolation only when > 0 */
        }
        else return die("hspz gapped: lastz option '%s' is not supported by hspz gapped; run lastz for it", a);
    }
    /* lastz checks the last y-drop given after reading every option (the first line of its
     * message; lastz adds its usage text) */
    if (o->have_ydrop && o->ydrop <= 0) return die("%d is not a legitimate y-drop threshold", o->ydrop);
    /* lastz's default format is lav, which [multiple] refuses; hspz gapped does not write lav */
    if (!o->format) return die("hspz gapped: no --format: lastz's default format (lav) is not supported by hspz gapped (maf-, maf, axt, axt+ are); give --format or run lastz for it");
    if (npos < 2) return die("hspz gapped: needs a target and a query (see hspz gapped --help)");
    if (!o->segments) return die("hspz gapped: needs --segments=FILE (see hspz gapped --help)");
    return 0;
}
