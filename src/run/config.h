/* config — the resolved configuration of `hspz run` / `hspz config`, with the source of every
 * value (issue "YAML configuration, provenance manifest and the Galaxy data package").
 *
 * Precedence (later wins): built-in defaults (hz_opts_default) < the --config YAML file <
 * command-line flags.  The parameters themselves (keys, types, ranges, hz_config) are the
 * options module's (options.h).  Environment variables HSPZ_* only choose kernels and
 * resources, never results; hz_cfg_resolve validates them (env.h, also on the CPU path) and
 * the manifest records them.
 *
 * The YAML file is a mapping of sections (inputs, scoring, seeding, extension, plan, output,
 * devices), each a mapping of keys; see conf/hspz.yaml, which lists every key with its default.
 * Unknown sections/keys, wrong types, out-of-range values and duplicate keys are errors of the
 * form "FILE:LINE:COLUMN: what (allowed: ...)".
 */
#ifndef HZ_CONFIG_H
#define HZ_CONFIG_H
#include <stdio.h>
#include <stddef.h>
#include "options.h"
#include "plan.h"
#include "env.h"

/* Mark in set[] the parameter a getopt option sets: c is the option's value, longname the
 * long option's name when a long option matched (else NULL).  Options that are not
 * parameters (--help, --config, ...) mark nothing. */
void hz_cfg_mark(unsigned char *set, int c, const char *longname);

/* Defaults, then the YAML file at path (may be NULL), then the fields of flags marked in
 * set[].  Also checks the HSPZ_* environment (hz_env_check).  Returns 0, or -1 with a
 * one-line message in err.  argc/argv of flags are kept; c->o.cfg points to c. */
int hz_cfg_resolve(hz_config *c, const char *path, const hz_opts *flags, const unsigned char *set,
                   char *err, size_t errlen);

/* Free the strings c owns (values read from the YAML file; c->o's string fields that came
 * from the file dangle afterwards) and zero them.  hz_cfg_resolve starts from a zeroed c, so
 * free a resolved c before resolving into it again. */
void hz_cfg_free(hz_config *c);

/* Apply only the YAML file at path onto c (values' source becomes HZ_SRC_FILE). */
int hz_cfg_load_yaml(hz_config *c, const char *path, char *err, size_t errlen);

/* The resolved configuration as YAML: every key, "  # SOURCE - help" after each value.
 * Feeding it back with --config gives the same values. */
void hz_cfg_print(const hz_config *c, FILE *fp);

/* ---- dry run ------------------------------------------------------------------------------ */
/* `hspz run --dry-run`: load the inputs, plan, print config and plan on stdout; nothing is
 * written.  Returns the exit status (0, or 1 with one error line on stderr). */
int hz_dry_run(const hz_config *c);

#endif
