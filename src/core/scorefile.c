/* scorefile — reading a LASTZ score file's lines, settings, tokens and labels (scorefile.h).
 * An independent implementation of LASTZ's documented format (README "Scoring File"). */
#include "scorefile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_ws(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }

int hz_sfread_open(hz_sfread *r, const char *path, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s:1:1: cannot open score file: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf) { fclose(f); snprintf(err, errlen, "%s:1:1: out of memory", path); return -1; }
    for (;;) {
        if (n == cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) { free(buf); fclose(f); snprintf(err, errlen, "%s:1:1: out of memory", path); return -1; }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        fclose(f);
        snprintf(err, errlen, "%s:1:1: cannot read score file: %s", path, strerror(e ? e : EIO));
        return -1;
    }
    fclose(f);
    r->buf = buf;
    r->n = n;
    r->eof_line = r->eof_col = 1;
    for (size_t i = 0; i < n; i++) {
        if (buf[i] == '\n') { r->eof_line++; r->eof_col = 1; } else r->eof_col++;
    }
    return 0;
}

int hz_sfread_next(hz_sfread *r, hz_sfline *l)
{
    if (r->pos >= r->n) return 0;
    size_t st = r->pos;
    while (r->pos < r->n && r->buf[r->pos] != '\n') r->pos++;
    l->s = r->buf + st;
    l->len = r->pos - st;
    if (r->pos < r->n) r->pos++;   /* past the '\n' */
    l->lineno = ++r->lineno;
    const char *hash = memchr(l->s, '#', l->len);
    hz_sfline_cut(l, hash ? (size_t)(hash - l->s) : l->len);
    return 1;
}

void hz_sfline_cut(hz_sfline *l, size_t len)
{
    if (len < l->len) l->len = len;
    l->cr = memchr(l->s, '\r', l->len);
    l->eq = memchr(l->s, '=', l->len);
    l->b = 0;
    while (l->b < l->len && is_ws(l->s[l->b])) l->b++;
    l->e = l->len;
    while (l->e > l->b && is_ws(l->s[l->e - 1])) l->e--;
}

void hz_sfread_close(hz_sfread *r)
{
    free(r->buf);
    memset(r, 0, sizeof *r);
}

static const struct { const char *name; int kind; } KEYS[] = {
    {"bad_score", HZ_SK_BAD}, {"bad", HZ_SK_BAD},
    {"fill_score", HZ_SK_FILL}, {"fill", HZ_SK_FILL},
    {"gap_open_penalty", HZ_SK_OPEN}, {"gap_open", HZ_SK_OPEN}, {"open", HZ_SK_OPEN}, {"O", HZ_SK_OPEN},
    {"gap_extend_penalty", HZ_SK_EXTEND}, {"gap_extend", HZ_SK_EXTEND}, {"extend", HZ_SK_EXTEND},
    {"E", HZ_SK_EXTEND},
    {"hsp_threshold", HZ_SK_HSP}, {"hsp_thresh", HZ_SK_HSP}, {"K", HZ_SK_HSP},
    {"gapped_threshold", HZ_SK_GAPPED}, {"gapped_thresh", HZ_SK_GAPPED}, {"L", HZ_SK_GAPPED},
    {"x_drop", HZ_SK_XDROP}, {"X", HZ_SK_XDROP},
    {"y_drop", HZ_SK_YDROP}, {"Y", HZ_SK_YDROP},
    {"step", HZ_SK_STEP}, {"Z", HZ_SK_STEP},
    {"seed", HZ_SK_SEED}, {"T", HZ_SK_SEED},
    {"ball", HZ_SK_BALL}, {"bottleneck", HZ_SK_BOTTLENECK},
};

int hz_sf_key(const char *key, size_t len)
{
    for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++)
        if (strlen(KEYS[i].name) == len && memcmp(KEYS[i].name, key, len) == 0) return KEYS[i].kind;
    return -1;
}

void hz_sf_setting(const hz_sfline *l, hz_sfset *st)
{
    size_t at = (size_t)(l->eq - l->s);
    st->kb = l->b;
    st->ke = at;
    while (st->ke > st->kb && is_ws(l->s[st->ke - 1])) st->ke--;
    st->vb = at + 1;
    st->ve = l->e > at ? l->e : at + 1;
    while (st->vb < st->ve && is_ws(l->s[st->vb])) st->vb++;
}

int hz_sf_tokens(const hz_sfline *l, hz_sftok *toks, int max)
{
    int k = 0;
    size_t i = 0, n = l->len;
    while (i < n) {
        while (i < n && is_ws(l->s[i])) i++;
        if (i >= n) break;
        size_t st = i;
        while (i < n && !is_ws(l->s[i])) i++;
        if (k < max) { toks[k].s = l->s + st; toks[k].len = i - st; toks[k].col = (int)st + 1; }
        k++;
    }
    return k;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int hz_sf_label(const char *tok, size_t len)
{
    if (len == 1) return (unsigned char)tok[0] ? (unsigned char)tok[0] : -1;
    if (len == 2) {
        int h = hexval(tok[0]), lo = hexval(tok[1]);
        if (h < 0 || lo < 0 || (h == 0 && lo == 0)) return -1;
        return h * 16 + lo;
    }
    return -1;
}
