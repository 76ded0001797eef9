/* env — the HSPZ_* environment variables hspz reads: they choose kernels and resources, never
 * results (config.h).  Checked once per run (hz_env_check, from hz_cfg_resolve), recorded in
 * the manifest (environment, kernels) and printed by --dry-run.
 */
#ifndef HZ_ENV_H
#define HZ_ENV_H
#include <stddef.h>

typedef struct { const char *name, *allowed, *value; } hz_envvar;

/* Check the HSPZ_* variables hspz reads (ENV in env.c): each must have an allowed value.
 * Other HSPZ_* names are not looked at (hz_env_unknown lists them for a note).  Returns 0, or
 * -1 with err naming the variable and its allowed values. */
int hz_env_check(char *err, size_t errlen);
/* The HSPZ_* variables hspz does not read (not checked, not used; not the test harness's):
 * their names, ", "-separated and made printable, in buf (cut to n bytes).  Returns how many. */
int hz_env_unknown(char *buf, size_t n);
/* The known kernel/resource variables (value NULL when unset), after hz_env_check; *n gets
 * their number. */
const hz_envvar *hz_env_vars(int *n);

#endif
