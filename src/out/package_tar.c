/* package_tar — the Galaxy data tarball and -Z's segments archive (package.h --tarball): its
 * members, their order, the reproducible gzip'd GNU tar; and the 2bit writer it uses. */
#include "package.h"
#include "package_impl.h"
#include "outsafe.h"
#include "outpath.h"
#include "scoring.h"
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* JSON string as Python's json.dumps writes it (ensure_ascii: non-ASCII as \uXXXX). */
static int sb_json(sbuf *b, const char *s)
{
    int rc = sb_add(b, "\"", 1);
    const unsigned char *p = (const unsigned char *)s;
    char tmp[16];
    while (*p && !rc) {
        unsigned c = *p;
        if (c == '"') rc = sb_str(b, "\\\"");
        else if (c == '\\') rc = sb_str(b, "\\\\");
        else if (c == '\n') rc = sb_str(b, "\\n");
        else if (c == '\r') rc = sb_str(b, "\\r");
        else if (c == '\t') rc = sb_str(b, "\\t");
        else if (c == '\b') rc = sb_str(b, "\\b");
        else if (c == '\f') rc = sb_str(b, "\\f");
        else if (c < 0x20 || c == 0x7f) {
            snprintf(tmp, sizeof tmp, "\\u%04x", c);
            rc = sb_str(b, tmp);
        } else if (c < 0x80) rc = sb_add(b, (const char *)p, 1);
        else {
            /* UTF-8 sequence -> code point; an invalid byte is written as U+00XX */
            uint32_t cp = c; int len = 1;
            if ((c & 0xe0) == 0xc0 && (p[1] & 0xc0) == 0x80) { cp = ((c & 0x1fu) << 6) | (p[1] & 0x3fu); len = 2; }
            else if ((c & 0xf0) == 0xe0 && (p[1] & 0xc0) == 0x80 && (p[2] & 0xc0) == 0x80) {
                cp = ((c & 0x0fu) << 12) | ((p[1] & 0x3fu) << 6) | (p[2] & 0x3fu); len = 3;
            } else if ((c & 0xf8) == 0xf0 && (p[1] & 0xc0) == 0x80 && (p[2] & 0xc0) == 0x80 && (p[3] & 0xc0) == 0x80) {
                cp = ((c & 0x07u) << 18) | ((p[1] & 0x3fu) << 12) | ((p[2] & 0x3fu) << 6) | (p[3] & 0x3fu); len = 4;
            }
            if (cp >= 0x10000) {
                cp -= 0x10000;
                snprintf(tmp, sizeof tmp, "\\u%04x\\u%04x", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
            } else snprintf(tmp, sizeof tmp, "\\u%04x", cp);
            rc = sb_str(b, tmp);
            p += len;
            continue;
        }
        p++;
    }
    if (!rc) rc = sb_add(b, "\"", 1);
    return rc;
}

/* ------------------------------------------------------------------ 2bit writer */

static void put32(unsigned char *p, uint32_t x) { p[0] = x; p[1] = x >> 8; p[2] = x >> 16; p[3] = x >> 24; }

static int is_acgt(uint8_t c)
{
    switch (c) { case 'A': case 'C': case 'G': case 'T': case 'a': case 'c': case 'g': case 't': return 1; }
    return 0;
}
static int is_lower(uint8_t c) { return c >= 'a' && c <= 'z'; }

/* Number of runs of bytes with pred true in s[0..n). */
static uint64_t count_runs(const uint8_t *s, uint64_t n, int want_n)
{
    uint64_t runs = 0; int in = 0;
    for (uint64_t i = 0; i < n; i++) {
        int x = want_n ? !is_acgt(s[i]) : is_lower(s[i]);
        if (x && !in) runs++;
        in = x;
    }
    return runs;
}

static int write_runs(FILE *fp, const uint8_t *s, uint64_t n, int want_n, uint64_t count)
{
    unsigned char b[4];
    put32(b, (uint32_t)count);
    if (fwrite(b, 1, 4, fp) != 4) return -1;
    for (int pass = 0; pass < 2; pass++) {           /* starts, then sizes */
        uint64_t i = 0;
        while (i < n) {
            int x = want_n ? !is_acgt(s[i]) : is_lower(s[i]);
            if (!x) { i++; continue; }
            uint64_t j = i;
            while (j < n && (want_n ? !is_acgt(s[j]) : is_lower(s[j]))) j++;
            put32(b, (uint32_t)(pass == 0 ? i : j - i));
            if (fwrite(b, 1, 4, fp) != 4) return -1;
            i = j;
        }
    }
    return 0;
}

int hz_twobit_write(const char *path, const hz_seqset *seqs, char *const *names, char *err, size_t errlen)
{
    char *const *nm = names ? names : seqs->name;
    size_t n = seqs->n;
    if (n > UINT32_MAX) { snprintf(err, errlen, "%s: too many records for 2bit", path); return -1; }
    uint64_t *nN = calloc(n ? n : 1, sizeof *nN), *nM = calloc(n ? n : 1, sizeof *nM);
    if (!nN || !nM) { free(nN); free(nM); snprintf(err, errlen, "out of memory writing %s", path); return -1; }
    uint64_t index_bytes = 0, data_bytes = 0;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(nm[i]);
        if (l > 255) { free(nN); free(nM); snprintf(err, errlen, "%s: record name '%.40s...' is longer than 255 bytes (2bit limit)", path, nm[i]); return -1; }
        if (seqs->len[i] > UINT32_MAX) { free(nN); free(nM); snprintf(err, errlen, "%s: record '%s' has 2^32 bases or more (2bit limit)", path, nm[i]); return -1; }
        const uint8_t *s = seqs->data + seqs->off[i];
        nN[i] = count_runs(s, seqs->len[i], 1);
        nM[i] = count_runs(s, seqs->len[i], 0);
        index_bytes += 1 + l;
        data_bytes += 16 + 8 * nN[i] + 8 * nM[i] + (seqs->len[i] + 3) / 4;
    }
    int version = 16 + index_bytes + 4 * (uint64_t)n + data_bytes > UINT32_MAX ? 1 : 0;
    uint64_t off = 16 + index_bytes + (version ? 8 : 4) * (uint64_t)n;
    FILE *fp = fopen(path, "wb");
    if (!fp) { free(nN); free(nM); snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno)); return -1; }
    unsigned char b[16];
    int ok = 1;
    put32(b, 0x1A412743u); put32(b + 4, (uint32_t)version); put32(b + 8, (uint32_t)n); put32(b + 12, 0);
    ok = fwrite(b, 1, 16, fp) == 16;
    for (size_t i = 0; i < n && ok; i++) {
        unsigned char l = (unsigned char)strlen(nm[i]);
        ok = fputc(l, fp) != EOF && fwrite(nm[i], 1, l, fp) == l;
        put32(b, (uint32_t)off); put32(b + 4, (uint32_t)(off >> 32));
        if (ok) ok = fwrite(b, 1, version ? 8 : 4, fp) == (size_t)(version ? 8 : 4);
        off += 16 + 8 * nN[i] + 8 * nM[i] + (seqs->len[i] + 3) / 4;
    }
    static const uint8_t code[256] = { ['T'] = 0, ['C'] = 1, ['A'] = 2, ['G'] = 3,
                                       ['t'] = 0, ['c'] = 1, ['a'] = 2, ['g'] = 3 };
    unsigned char *pack = malloc(65536);
    if (!pack) ok = 0;
    for (size_t i = 0; i < n && ok; i++) {
        const uint8_t *s = seqs->data + seqs->off[i];
        uint64_t L = seqs->len[i];
        put32(b, (uint32_t)L);
        ok = fwrite(b, 1, 4, fp) == 4;
        if (ok) ok = write_runs(fp, s, L, 1, nN[i]) == 0;
        if (ok) ok = write_runs(fp, s, L, 0, nM[i]) == 0;
        put32(b, 0);
        if (ok) ok = fwrite(b, 1, 4, fp) == 4;
        size_t used = 0;
        for (uint64_t j = 0; j < L && ok; j += 4) {
            unsigned x = 0;
            for (int k = 0; k < 4; k++) x = (x << 2) | (j + k < L ? code[s[j + k]] : 0);
            pack[used++] = (unsigned char)x;
            if (used == 65536) { ok = fwrite(pack, 1, used, fp) == used; used = 0; }
        }
        if (ok && used) ok = fwrite(pack, 1, used, fp) == used;
    }
    free(pack); free(nN); free(nM);
    if (fclose(fp) != 0) ok = 0;
    if (!ok) { snprintf(err, errlen, "%s: write failed: %s", path, errno ? strerror(errno) : "out of memory"); remove(path); return -1; }
    return 0;
}

/* ------------------------------------------------------------------ tarball */

typedef struct {
    char *arc;          /* member name */
    char *src;          /* file to copy, or NULL */
    char *mem; size_t memlen;  /* in-memory content */
    int dir;
} member;
typedef struct { member *v; size_t n, cap; } members;

static int mem_add(members *m, const char *arc, const char *src, char *mem, size_t memlen, int dir)
{
    for (size_t i = 0; i < m->n; i++) if (!strcmp(m->v[i].arc, arc)) { free(mem); return 0; }
    if (m->n == m->cap) {
        size_t nc = m->cap ? 2 * m->cap : 64;
        member *p = realloc(m->v, nc * sizeof *p);
        if (!p) { free(mem); return -1; }
        m->v = p; m->cap = nc;
    }
    member *x = &m->v[m->n];
    x->arc = strdup(arc); x->src = src ? strdup(src) : NULL; x->mem = mem; x->memlen = memlen; x->dir = dir;
    if (!x->arc || (src && !x->src)) { free(x->arc); free(x->src); free(mem); return -1; }
    m->n++;
    /* parent directories */
    char *p = strdup(arc);
    if (!p) return -1;
    size_t l = strlen(p);
    if (l && p[l - 1] == '/') p[--l] = 0;
    char *s = strrchr(p, '/');
    int rc = 0;
    if (s) { s[1] = 0; rc = mem_add(m, p, NULL, NULL, 0, 1); }
    free(p);
    return rc;
}
static void members_free(members *m)
{
    for (size_t i = 0; i < m->n; i++) { free(m->v[i].arc); free(m->v[i].src); free(m->v[i].mem); }
    free(m->v); memset(m, 0, sizeof *m);
}
static int cmp_member(const void *a, const void *b) { return strcmp(((const member *)a)->arc, ((const member *)b)->arc); }

/* -Z's member order, hillerlab/hspZ's emission order: reference block, query block, interval
 * (tmpN), plus before minus, split k ascending; a name of another shape after these, by name. */
static int seg_key(const char *arc, unsigned long k[5])
{
    char strand[8];
    int n = 0;
    k[4] = 0;
    if (sscanf(arc, "tmp%lu.block%lu.r%lu.%5[a-z]%n", &k[2], &k[1], &k[0], strand, &n) != 4) return 0;
    k[3] = !strcmp(strand, "minus");
    if (!strcmp(arc + n, ".segments")) return 1;
    int m = 0;
    return sscanf(arc + n, ".split%lu.segments%n", &k[4], &m) == 1 && !arc[n + m];
}
static int cmp_segments(const void *a, const void *b)
{
    const char *x = ((const member *)a)->arc, *y = ((const member *)b)->arc;
    unsigned long kx[5], ky[5];
    int ox = seg_key(x, kx), oy = seg_key(y, ky);
    if (ox != oy) return oy - ox;
    for (int i = 0; ox && i < 5; i++) if (kx[i] != ky[i]) return kx[i] < ky[i] ? -1 : 1;
    return strcmp(x, y);
}

char *hz_package_tarball_path(const hz_opts *o)
{
    if (!o->tarball) return NULL;
    if (o->tarball[0]) return strdup(o->tarball);
    size_t l = strlen(o->outdir);
    while (l > 1 && o->outdir[l - 1] == '/') l--;
    char *p = malloc(l + 8);
    if (p) { memcpy(p, o->outdir, l); memcpy(p + l, ".tar.gz", 8); }
    return p;
}

static int data_folder_ok(const char *d)
{
    if (d[0] == '/') return 0;
    const char *s = d;
    while (*s) {
        const char *e = strchr(s, '/');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        if ((l == 0 && e) || (l == 1 && s[0] == '.') || (l == 2 && s[0] == '.' && s[1] == '.')) return 0;
        if (l > 255) return 0;   /* NAME_MAX: tar (GNU long names) stores it, no file system extracts it */
        if (!e) break;
        s = e + 1;
    }
    return 1;
}

int hz_package_precheck(const hz_opts *o, char *err, size_t errlen)
{
    if ((o->tarball || o->diagonal_partition) && o->nogapped) {
        snprintf(err, errlen, "%s works on lastz commands, which --nogapped turns off",
                 o->tarball ? "--tarball" : "--diagonal-partition");
        return 2;
    }
    if (!o->tarball) return 0;
    if (!data_folder_ok(o->data_folder)) {
        snprintf(err, errlen, "--tarball: --data-folder '%s' must be a relative path without '.', '..', empty or over 255-byte components",
                 o->data_folder);
        return 2;
    }
    char *tp = hz_package_tarball_path(o);
    if (!tp) { snprintf(err, errlen, "out of memory"); return 1; }
    int rc = hz_output_file_check(o, tp, o->segments_archive ? "-Z archive" : "tarball", err, errlen);
    free(tp);
    return rc;
}

static int arch_fail(struct archive *a, const char *path, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s", path, archive_error_string(a) ? archive_error_string(a) : "archive write failed");
    return -1;
}

/* One lastz command's line of galaxy/commands.json (package_output.py: flags, str options, int
 * options, --target, --query) appended to js.  0, or -1 (out of memory). */
static int command_json(const hz_opts *o, const pcmd *x, sbuf *js)
{
    const char *D = o->data_folder, *F = o->format;
    int G = o->gappedthresh >= 0 ? o->gappedthresh : o->hspthresh;
    char *args[16]; int na = 0;
    char tmpa[9][4200];
    if (o->notrivial) args[na++] = "--notrivial";
    if (o->ambiguous && o->ambiguous[0]) { snprintf(tmpa[0], sizeof tmpa[0], "--ambiguous=%s", o->ambiguous); args[na++] = tmpa[0]; }
    snprintf(tmpa[1], sizeof tmpa[1], "--format=%s", F); args[na++] = tmpa[1];
    snprintf(tmpa[2], sizeof tmpa[2], "--output=%s.%s", x->base, F); args[na++] = tmpa[2];
    if (o->scoring) args[na++] = "--scores=data/scores.txt";
    snprintf(tmpa[3], sizeof tmpa[3], "--segments=%s.segments", x->base); args[na++] = tmpa[3];
    args[na++] = x->strand ? "--strand=minus" : "--strand=plus";
    snprintf(tmpa[4], sizeof tmpa[4], "--gappedthresh=%d", G); args[na++] = tmpa[4];
    if (o->inner > 0) { snprintf(tmpa[8], sizeof tmpa[8], "--inner=%d", (int)o->inner); args[na++] = tmpa[8]; }
    snprintf(tmpa[5], sizeof tmpa[5], "--ydrop=%d", o->ydrop); args[na++] = tmpa[5];
    snprintf(tmpa[6], sizeof tmpa[6], "--target=%sref.2bit[nameparse=darkspace][multiple][subset=ref_block%zu.name]", D, x->r);
    args[na++] = tmpa[6];
    snprintf(tmpa[7], sizeof tmpa[7], "--query=%squery.2bit[nameparse=darkspace][subset=query_block%zu.name]", D, x->q);
    args[na++] = tmpa[7];
    int e = sb_str(js, "{\"executable\": \"lastz\", \"args\": [");
    for (int k = 0; k < na && !e; k++) { if (k) e = sb_str(js, ", "); if (!e) e = sb_json(js, args[k]); }
    char errname[4200];
    snprintf(errname, sizeof errname, "%s.err", x->base);
    if (!e) e = sb_str(js, "], \"stdin\": null, \"stdout\": null, \"stderr\": ");
    if (!e) e = sb_json(js, errname);
    if (!e) e = sb_str(js, "}\n");
    return e;
}

/* The members of the tarball, sorted (-Z: the bare segments files in hillerlab/hspZ's order):
 * every command's segments and .name files, commands.json, format.txt, scores.txt, and the
 * 2bit files, written into dir as tref and tqry.  0, or -1 with err. */
static int tar_members(const hz_opts *o, const char *dir, const hz_side *t, const hz_side *q, const pcmds *c,
                       const char *tref, const char *tqry, members *m, char *err, size_t errlen)
{
    const char *D = o->data_folder, *F = o->format;
    int G = o->gappedthresh >= 0 ? o->gappedthresh : o->hspthresh;
    char arc[8192], src[8192];
    sbuf js = {0};
    for (size_t i = 0; i < c->n; i++) {
        const pcmd *x = &c->v[i];
        if (o->segments_archive) {   /* -Z: the bare segments file, nothing else (hillerlab/hspZ) */
            snprintf(arc, sizeof arc, "%s.segments", x->base);
            snprintf(src, sizeof src, "%s/%s.segments", dir, x->base);
            if (mem_add(m, arc, src, NULL, 0, 0)) goto oom;
            continue;
        }
        if (command_json(o, x, &js)) goto oom;
        /* files of this command */
        snprintf(arc, sizeof arc, "galaxy/files/%s.segments", x->base);
        snprintf(src, sizeof src, "%s/%s.segments", dir, x->base);
        if (mem_add(m, arc, src, NULL, 0, 0)) goto oom;
        snprintf(arc, sizeof arc, "galaxy/files/ref_block%zu.name", x->r);
        snprintf(src, sizeof src, "%s/ref_block%zu.name", dir, x->r);
        if (mem_add(m, arc, src, NULL, 0, 0)) goto oom;
        snprintf(arc, sizeof arc, "galaxy/files/query_block%zu.name", x->q);
        snprintf(src, sizeof src, "%s/query_block%zu.name", dir, x->q);
        if (mem_add(m, arc, src, NULL, 0, 0)) goto oom;
    }
    if (o->segments_archive) { qsort(m->v, m->n, sizeof *m->v, cmp_segments); return 0; }
    char *jm = js.s ? js.s : strdup("");
    if (!jm) goto oom;
    size_t jl = js.n; js.s = NULL; js.n = 0;
    if (mem_add(m, "galaxy/commands.json", NULL, jm, jl, 0)) goto oom;
    size_t fl = strlen(F) + 2;
    char *fm = malloc(fl);
    if (!fm) goto oom;
    snprintf(fm, fl, "%s\n", F);
    if (mem_add(m, "galaxy/format.txt", NULL, fm, fl - 1, 0)) goto oom;
    if (o->scoring) {   /* with the thresholds lastz would otherwise warn about (scoring.h) */
        size_t sl = 0;
        char *sc = hz_scorefile_with_thresholds(o->scoring, o->hspthresh, G, &sl, err, errlen);
        if (!sc) return -1;
        if (mem_add(m, "galaxy/files/data/scores.txt", NULL, sc, sl, 0)) goto oom;
    }
    if (c->n) {
        if (hz_twobit_write(tref, t->seqs, t->name, err, errlen)) return -1;
        if (hz_twobit_write(tqry, q->seqs, q->name, err, errlen)) return -1;
        snprintf(arc, sizeof arc, "galaxy/files/%sref.2bit", D);
        if (mem_add(m, arc, tref, NULL, 0, 0)) goto oom;
        snprintf(arc, sizeof arc, "galaxy/files/%squery.2bit", D);
        if (mem_add(m, arc, tqry, NULL, 0, 0)) goto oom;
    }
    qsort(m->v, m->n, sizeof *m->v, cmp_member);
    return 0;
oom:
    free(js.s);
    snprintf(err, errlen, "out of memory writing the tarball");
    return -1;
}

/* Member x into the archive a (tmp: its file name, for messages): directories 0755, files
 * 0644, mtime 0, uid/gid 0; a file's bytes copied through buf (1 MiB).  0, or -1 with err. */
static int tar_entry(struct archive *a, const member *x, const char *tmp, char *buf, char *err, size_t errlen)
{
    struct archive_entry *e = archive_entry_new();
    if (!e) { snprintf(err, errlen, "out of memory writing the tarball"); return -1; }
    archive_entry_set_pathname(e, x->arc);
    archive_entry_set_mtime(e, 0, 0);
    archive_entry_set_uid(e, 0); archive_entry_set_gid(e, 0);
    FILE *fp = NULL;
    int64_t size = 0;
    if (x->dir) {
        archive_entry_set_filetype(e, AE_IFDIR);
        archive_entry_set_perm(e, 0755);
    } else {
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        if (x->src) {
            struct stat st;
            fp = fopen(x->src, "rb");
            if (!fp || fstat(fileno(fp), &st) != 0) {
                snprintf(err, errlen, "%s: cannot open: %s", x->src, strerror(errno));
                if (fp) fclose(fp);
                archive_entry_free(e);
                return -1;
            }
            size = st.st_size;
        } else size = (int64_t)x->memlen;
    }
    archive_entry_set_size(e, size);
    if (archive_write_header(a, e) != ARCHIVE_OK) {
        arch_fail(a, tmp, err, errlen); if (fp) fclose(fp); archive_entry_free(e); return -1;
    }
    archive_entry_free(e);
    int bad = 0;
    if (fp) {
        int64_t left = size;
        size_t r;
        while (left > 0 && (r = fread(buf, 1, (size_t)(left < (1 << 20) ? left : (1 << 20)), fp)) > 0) {
            if (archive_write_data(a, buf, r) != (la_ssize_t)r) { bad = 1; break; }
            left -= (int64_t)r;
        }
        if (!bad && left != 0) { snprintf(err, errlen, "%s: file changed while packaging", x->src); bad = 2; }
        fclose(fp);
    } else if (!x->dir && x->memlen) {
        if (archive_write_data(a, x->mem, x->memlen) != (la_ssize_t)x->memlen) bad = 1;
    }
    if (bad == 1) arch_fail(a, tmp, err, errlen);
    return bad ? -1 : 0;
}

int hz_pk_write_tarball(const hz_opts *o, const char *dir, const hz_side *t, const hz_side *q,
                        const pcmds *c, pthread_mutex_t *create_lock, char *err, size_t errlen)
{
    char *tpath = hz_package_tarball_path(o);
    if (!tpath) { snprintf(err, errlen, "out of memory"); return -1; }
    size_t tl = strlen(tpath) + 32;
    char *tmp = malloc(tl), *buf = NULL;
    char *tref = path_join(dir, ".hspz-ref.2bit"), *tqry = path_join(dir, ".hspz-query.2bit");
    members m = {0};
    struct archive *a = NULL;
    int rc = -1, created = 0, tfd = -1;
    if (!tmp || !tref || !tqry) goto oom;
    hz_out_tmpname(tpath, tmp, tl);   /* pid and token: a stale file or link of this name is never opened */
    if (tar_members(o, dir, t, q, c, tref, tqry, &m, err, errlen)) goto done;
    a = archive_write_new();
    if (!a) goto oom;
    if (archive_write_set_format_gnutar(a) != ARCHIVE_OK ||
        archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
        archive_write_set_filter_option(a, "gzip", "compression-level", "6") != ARCHIVE_OK ||
        archive_write_set_filter_option(a, "gzip", "timestamp", NULL) != ARCHIVE_OK) {
        arch_fail(a, tpath, err, errlen); goto done;
    }
    /* under the watcher's lock: an interrupted run removes the file, or it is never made */
    if (create_lock) pthread_mutex_lock(create_lock);
    tfd = hz_out_create(tmp);
    int ce = errno;
    if (create_lock) pthread_mutex_unlock(create_lock);
    if (tfd < 0) { snprintf(err, errlen, "%s: cannot create: %s", tmp, strerror(ce)); goto done; }
    created = 1;
    if (archive_write_open_fd(a, tfd) != ARCHIVE_OK) { arch_fail(a, tmp, err, errlen); goto done; }
    if (!(buf = malloc(1 << 20))) goto oom;
    for (size_t i = 0; i < m.n; i++)
        if (tar_entry(a, &m.v[i], tmp, buf, err, errlen)) goto done;
    if (archive_write_close(a) != ARCHIVE_OK) { arch_fail(a, tmp, err, errlen); goto done; }
    if (close(tfd) != 0) { tfd = -1; snprintf(err, errlen, "%s: write failed: %s", tmp, strerror(errno)); goto done; }
    tfd = -1;
    created = 0;   /* stays at its temporary name: hz_publish puts it in place together with OUTDIR */
    rc = 0;
    goto done;
oom:
    snprintf(err, errlen, "out of memory writing the tarball");
done:
    if (a) archive_write_free(a);
    if (tfd >= 0) close(tfd);
    if (created && tmp) remove(tmp);
    if (tref) remove(tref);
    if (tqry) remove(tqry);
    members_free(&m);
    free(buf); free(tref); free(tqry); free(tmp); free(tpath);
    return rc;
}
