/* shquote — POSIX sh quoting of command-line values (see shquote.h). */
#include "shquote.h"
#include <stdio.h>
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

const char *hz_printable(const char *s, size_t maxlen, char *buf, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; s && i < maxlen && s[i] && k + 5 < n; i++) {
        unsigned char c = (unsigned char)s[i];
        size_t L = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 1;
        if (c >= 0x80) {   /* whole UTF-8 characters as they are; any other byte >= 0x80 escaped (issue 31) */
            size_t j = 1;
            while (L > 1 && j < L && i + j < maxlen && ((unsigned char)s[i + j] & 0xc0) == 0x80) j++;
            if (L > 1 && j == L && k + L + 5 < n) { memcpy(buf + k, s + i, L); k += L; i += L - 1; continue; }
        }
        if (c < 0x20 || c >= 0x7f) k += (size_t)snprintf(buf + k, n - k, "\\x%02x", c);
        else buf[k++] = (char)c;
    }
    buf[k] = 0;
    return buf;
}

int hz_sh_split(char *line, char **av, int max, char **errfile)
{
    int n = 0; char *p = line, *o;
    *errfile = NULL;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
        if (!*p) break;
        if (n == max) return -1;
        o = p; av[n] = o;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
            if (*p == '\'') { p++; while (*p && *p != '\'') *o++ = *p++; if (!*p) return -1; p++; }
            else if (*p == '\\' && p[1]) { *o++ = p[1]; p += 2; }
            else if (*p == '"' || *p == '$' || *p == '`' || *p == '|' || *p == ';' || *p == '&' || *p == '<') return -1;
            else *o++ = *p++;
        }
        int end = !*p;
        *o = 0; if (!end) p++;
        if (!strcmp(av[n], "2>")) { if (*errfile) return -1; *errfile = (char *)1; continue; }
        if (*errfile == (char *)1) { *errfile = av[n]; continue; }
        if (*errfile) return -1;                 /* nothing may follow the redirection */
        n++;
        if (end) break;
    }
    if (*errfile == (char *)1) return -1;
    return n;
}
