/* runopts — the command line of hspz run, config, plan and index as one table (runopts.c:
 * RUN_OPTS, one row an option: long spellings, letter, how the value is taken, the field it
 * sets), and the usage-error helpers every hspz command uses. */
#ifndef HZ_RUNOPTS_H
#define HZ_RUNOPTS_H
#include <getopt.h>
#include <stdint.h>
#include "options.h"
#include "optonce.h"

/* What the options set: the run's settings and the command's own values. */
typedef struct {
    hz_opts o;
    const char *cfgpath, *planpath, *unitspec, *indexpath, *qlistpath;
    uint64_t max_unit_hits;
    int dry_run;
    int help;                      /* --help / -h was given (hz_run_parse returned 0) */
} hz_run_args;

/* "hspz: <fmt with a, b> (see 'hspz help')" on stderr, exit status 2. */
void hz_usage_error(const char *fmt, const char *a, const char *b) __attribute__((noreturn));

/* v as a decimal integer in lo..hi, else a usage error naming opt. */
long long hz_parse_int(const char *opt, const char *v, long long lo, long long hi);

/* A single-valued option given twice: usage error (optonce.h); key: getopt's value of the
 * option, shortc: its letter or 0. */
void hz_once(hz_optonce *s, int key, int shortc, const char *val, const struct option *lo);

/* getopt_long over the table: every option into a (a->o after hz_opts_default), the
 * configuration keys given as flags into set (config.h hz_cfg_mark).  Returns -1 to go on, 0
 * for --help (a->help set; the caller prints the usage); usage errors exit 2. */
int hz_run_parse(int argc, char **argv, hz_run_args *a, unsigned char *set);

#endif
