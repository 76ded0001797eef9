/* shquote — POSIX sh quoting of command-line values (see shquote.h). */
#include "shquote.h"
#include <stdlib.h>
#include <string.h>

int hz_sh_safe(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned c = *p;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) continue;
        if (!strchr("_-./:,=+@%", (int)c)) return 0;
    }
    return 1;
}

char *hz_sh_quote(const char *s)
{
    if (hz_sh_safe(s)) return strdup(s);
    size_t n = 2;
    for (const char *p = s; *p; p++) n += *p == '\'' ? 4 : 1;
    char *q = malloc(n + 1), *o = q;
    if (!q) return NULL;
    *o++ = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'') { memcpy(o, "'\\''", 4); o += 4; }
        else *o++ = *p;
    }
    *o++ = '\'';
    *o = 0;
    return q;
}
