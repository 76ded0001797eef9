/* config — the resolved configuration of `hspz run` / `hspz config`, with the source of every
 * value (issue "YAML configuration, provenance manifest and the Galaxy data package").
 *
 * Precedence (later wins): built-in defaults (hz_opts_default) < the --config YAML file <
 * command-line flags.  Environment variables HSPZ_* only choose kernels and resources, never
 * results; they are validated here (also on the CPU path) and recorded in the manifest.
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

typedef enum { HZ_SRC_DEFAULT = 0, HZ_SRC_FILE, HZ_SRC_FLAG, HZ_SRC_INDEX } hz_src;

#define HZ_CFG_MAX 40   /* upper bound on the number of parameters */

typedef enum { HZ_P_U64, HZ_P_U32, HZ_P_I32, HZ_P_INT, HZ_P_BOOL, HZ_P_STR, HZ_P_NSTR, HZ_P_ENUM,
               HZ_P_PROGRESS } hz_ptype;

/* One configurable parameter of `hspz run`. */
typedef struct {
    const char *section, *key;   /* YAML section and key */
    const char *flag;            /* the command-line flag */
    hz_ptype type;
    size_t off;                  /* offset in hz_opts */
    long long lo, hi;            /* integer range */
    const char *const *values;   /* enum values (NULL-terminated), or NULL */
    const char *help;            /* one line */
} hz_param;

int hz_param_count(void);
const hz_param *hz_param_at(int i);
int hz_param_find(const char *key);         /* index, or -1 */
const char *hz_src_name(hz_src s);          /* "default" | "file" | "flag" | "index" */

struct hz_config {
    hz_opts o;                          /* resolved values */
    unsigned char src[HZ_CFG_MAX];      /* hz_src of each parameter */
    const char *config_path;            /* --config FILE or NULL */
    char sha256[65];                    /* sha256 hex of the file's bytes as read, "" when none */
    char *str[HZ_CFG_MAX];              /* strings from the file this config owns (hz_cfg_free) */
};
typedef struct hz_config hz_config;

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

/* The value of parameter i as text ("null" for an unset nullable string; strings unquoted). */
void hz_cfg_value_text(const hz_opts *o, int i, char *buf, size_t n);
/* 1 when parameter i is a string (or null), 2 bool, 3 integer, 0 otherwise (enum). */
int hz_cfg_value_kind(const hz_opts *o, int i);
long long hz_cfg_value_int(const hz_opts *o, int i);

/* ---- HSPZ_* environment ------------------------------------------------------------------ */
typedef struct { const char *name, *allowed, *value; } hz_envvar;
/* Check the HSPZ_* variables hspz reads (ENV in config.c): each must have an allowed value.
 * Other HSPZ_* names are not looked at (hz_env_unknown lists them for a note).  Returns 0, or
 * -1 with err naming the variable and its allowed values. */
int hz_env_check(char *err, size_t errlen);
/* The HSPZ_* variables hspz does not read (not checked, not used; not the test harness's):
 * their names, ", "-separated and made printable, in buf (cut to n bytes).  Returns how many. */
int hz_env_unknown(char *buf, size_t n);
/* The known kernel/resource variables (value NULL when unset), after hz_env_check. */
const hz_envvar *hz_env_vars(int *n);

/* ---- dry run ------------------------------------------------------------------------------ */
/* Plan counts of a run: blocks per side, query intervals (summed over query blocks), chunk
 * jobs and work units (target block x query block x interval). */
typedef struct {
    size_t target_blocks, query_blocks, target_records, query_records;
    size_t intervals, chunks, work_units;
} hz_plan_counts;
void hz_plan_count(const hz_side *tside, const hz_side *qside, unsigned W, const hz_opts *o, hz_plan_counts *pc);

/* `hspz run --dry-run`: load the inputs, plan, print config and plan on stdout; nothing is
 * written.  Returns the exit status (0, or 1 with one error line on stderr). */
int hz_dry_run(const hz_config *c);

#endif
