/* optonce — single-valued options given once (see optonce.h). */
#include "optonce.h"
#include "shquote.h"
#include <stdint.h>
#include <stdio.h>

int hz_optonce_check(hz_optonce *s, int c, int shortc, const char *val, const struct option *lo,
                     char *err, size_t errlen)
{
    if (c < 0 || c >= HZ_OPTONCE_MAX) return 0;
    const char *name = NULL;
    int valued = 0;
    for (int i = 0; lo[i].name; i++)
        if (lo[i].val == c) {
            if (!name) name = lo[i].name;
            valued |= lo[i].has_arg > 0;
        }
    if (!valued) return 0;   /* a flag: repeating it changes nothing */
    if (!s->seen[c]) { s->seen[c] = 1; s->first[c] = val; return 0; }
    char a[256], b[256], sh[4] = "";
    if (shortc) snprintf(sh, sizeof sh, "-%c/", shortc);
    snprintf(err, errlen, "%s--%s given twice ('%s', then '%s'): give it once", sh, name ? name : "?",
             hz_printable(s->first[c] ? s->first[c] : "", SIZE_MAX, a, sizeof a),
             hz_printable(val ? val : "", SIZE_MAX, b, sizeof b));
    return -1;
}
