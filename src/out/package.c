/* package — diagonal partition, single segments file, the lastz commands they rewrite (see
 * package.h); the tarball: package_tar.c. */
#include "package.h"
#include "package_impl.h"
#include "diagpart.h"
#include "outsafe.h"
#include "segments.h"
#include "shquote.h"
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------ small helpers */

static int read_file(const char *path, char **data, size_t *len, char *err, size_t errlen)
{
    *data = NULL; *len = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) { snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno)); return -1; }
    sbuf b = {0};
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
        if (sb_add(&b, buf, n)) { fclose(fp); free(b.s); snprintf(err, errlen, "out of memory reading %s", path); return -1; }
    if (ferror(fp)) { fclose(fp); free(b.s); snprintf(err, errlen, "%s: read failed: %s", path, strerror(errno)); return -1; }
    fclose(fp);
    if (!b.s && sb_add(&b, "", 0)) { snprintf(err, errlen, "out of memory"); return -1; }
    *data = b.s; *len = b.n;
    return 0;
}

static int write_file(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "wb");
    if (!fp) { snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno)); return -1; }
    int ok = fwrite(data, 1, len, fp) == len;
    if (fclose(fp) != 0) ok = 0;
    if (!ok) { snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno)); remove(path); return -1; }
    return 0;
}

/* string -> index map (open addressing, FNV-1a) over caller-owned keys */
typedef struct { const char **key; size_t *klen; size_t *val; size_t cap, n; } smap;

static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) { h ^= (unsigned char)s[i]; h *= 1099511628211ULL; }
    return h;
}
static int smap_init(smap *m, size_t want)
{
    size_t c = 16;
    while (c < 2 * want + 16) c *= 2;
    m->key = calloc(c, sizeof *m->key); m->klen = calloc(c, sizeof *m->klen); m->val = calloc(c, sizeof *m->val);
    m->cap = c; m->n = 0;
    return (m->key && m->klen && m->val) ? 0 : -1;
}
static void smap_free(smap *m) { free(m->key); free(m->klen); free(m->val); memset(m, 0, sizeof *m); }
/* Find key; if absent insert it with value v.  Returns the stored value.  The table is sized
 * for the number of keys at init (callers insert at most that many). */
static size_t smap_get(smap *m, const char *k, size_t kl, size_t v, int *found)
{
    size_t i = (size_t)fnv(k, kl) & (m->cap - 1);
    while (m->key[i]) {
        if (m->klen[i] == kl && memcmp(m->key[i], k, kl) == 0) { if (found) *found = 1; return m->val[i]; }
        i = (i + 1) & (m->cap - 1);
    }
    m->key[i] = k; m->klen[i] = kl; m->val[i] = v; m->n++;
    if (found) *found = 0;
    return v;
}

/* ------------------------------------------------------------------ commands */

static void pcmds_free(pcmds *c) { for (size_t i = 0; i < c->n; i++) free(c->v[i].base); free(c->v); memset(c, 0, sizeof *c); }

static int pcmds_push(pcmds *c, char *base, size_t r, size_t q, int strand)
{
    if (c->n == c->cap) {
        size_t nc = c->cap ? 2 * c->cap : 64;
        pcmd *p = realloc(c->v, nc * sizeof *p);
        if (!p) return -1;
        c->v = p; c->cap = nc;
    }
    c->v[c->n++] = (pcmd){ base, r, q, strand };
    return 0;
}

/* One line of lastz-commands.txt back into (base, r, q, strand).  The line ends with
 * " 2> <base>.err" (base is hspz's own stem, never quoted); r follows the quoted data folder
 * at a known place.  The line is then rebuilt with hz_lastz_command and must be equal, so a
 * quoted value that happens to contain " --segments=" or "[subset=" cannot mislead the
 * parse.  Returns 0, 1 (not such a line) or -1 (out of memory). */
static int parse_command(const hz_opts *o, const char *line, pcmd *out)
{
    const char *tail = NULL;
    for (const char *p = strstr(line, " 2> "); p; p = strstr(p + 1, " 2> ")) tail = p;
    size_t ll = strlen(line);
    if (!tail || ll < 4 || strcmp(line + ll - 4, ".err")) return 1;
    char *base = strndup(tail + 4, (size_t)(line + ll - 4 - (tail + 4)));
    char *D = hz_sh_quote(o->data_folder);
    int rc = -1;
    if (!base || !D) goto out;
    size_t k, q;
    unsigned long long off;
    char strand[8] = "";
    int used = 0;
    rc = 1;
    if (sscanf(base, "tmp%zu.block%zu.r%llu.%7[a-z]%n", &k, &q, &off, strand, &used) != 4 || base[used] ||
        (strcmp(strand, "plus") && strcmp(strand, "minus")))
        goto out;
    static const char REF[] = "ref.2bit[nameparse=darkspace][multiple][subset=ref_block";
    size_t dl = strlen(D);
    if (strncmp(line, "lastz ", 6) || strncmp(line + 6, D, dl) || strncmp(line + 6 + dl, REF, sizeof REF - 1)) goto out;
    const char *rp = line + 6 + dl + sizeof REF - 1;
    if (*rp < '0' || *rp > '9') goto out;
    size_t r = (size_t)strtoull(rp, NULL, 10);
    int minus = strcmp(strand, "minus") == 0;
    char *again = hz_lastz_command(o, base, r, q, minus);
    if (!again) { rc = -1; goto out; }
    int same = strcmp(again, line) == 0;
    free(again);
    if (!same) goto out;
    *out = (pcmd){ base, r, q, minus };
    base = NULL;
    rc = 0;
out:
    free(base); free(D);
    return rc;
}

/* Parse lastz-commands.txt (the lines hz_lastz_command writes). */
static int read_commands(const hz_opts *o, const char *dir, pcmds *out, char *err, size_t errlen)
{
    char *path = path_join(dir, "lastz-commands.txt"), *data; size_t len;
    if (!path) { snprintf(err, errlen, "out of memory"); return -1; }
    if (read_file(path, &data, &len, err, errlen)) { free(path); return -1; }
    int rc = 0;
    char *line = data;
    while (*line && !rc) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = 0;
        pcmd c;
        int pr = parse_command(o, line, &c);
        if (pr > 0) { snprintf(err, errlen, "%s: cannot parse the line '%.80s'", path, line); rc = -1; break; }
        if (pr < 0 || pcmds_push(out, c.base, c.r, c.q, c.strand)) {
            if (!pr) free(c.base);
            snprintf(err, errlen, "out of memory"); rc = -1;
        }
        if (!nl) break;
        line = nl + 1;
    }
    free(data); free(path);
    return rc;
}

static int write_commands(const hz_opts *o, const char *dir, const pcmds *c, char *err, size_t errlen)
{
    char *path = path_join(dir, "lastz-commands.txt");
    if (!path) { snprintf(err, errlen, "out of memory"); return -1; }
    sbuf b = {0};
    int rc = 0;
    for (size_t i = 0; i < c->n && !rc; i++) {
        char *line = hz_lastz_command(o, c->v[i].base, c->v[i].r, c->v[i].q, c->v[i].strand);
        if (!line || sb_str(&b, line) || sb_add(&b, "\n", 1)) rc = -1;
        free(line);
    }
    if (rc) snprintf(err, errlen, "out of memory");
    else rc = write_file(path, b.s ? b.s : "", b.n, err, errlen);
    if (!rc && o->print_commands) {   /* stdout checked: a full disk or a closed pipe fails the run */
        fwrite(b.s ? b.s : "", 1, b.n, stdout);
        rc = hz_out_stdout_flush(err, errlen);
    }
    free(b.s); free(path);
    return rc;
}

/* ------------------------------------------------------------------ segment lines */

typedef struct {
    const char *s; size_t len;       /* whole line with '\n' */
    const char *t; size_t tl;        /* target name */
    const char *q; size_t ql;        /* query name */
    int64_t ts, te, qs, qe;
    int minus;
    int64_t key1, key2; size_t idx;  /* sort keys */
} segline;

/* Split data into lines and parse the 8 columns. */
static int parse_lines(char *data, size_t len, const char *path, segline **out, size_t *nout, char *err, size_t errlen)
{
    size_t n = 0, cap = 0;
    segline *v = NULL;
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && data[j] != '\n') j++;
        size_t e = j < len ? j + 1 : j;
        if (n == cap) {
            cap = cap ? 2 * cap : 1024;
            segline *p = realloc(v, cap * sizeof *p);
            if (!p) { free(v); snprintf(err, errlen, "out of memory"); return -1; }
            v = p;
        }
        segline *L = &v[n];
        memset(L, 0, sizeof *L);
        L->s = data + i; L->len = e - i; L->idx = n;
        const char *f[8]; size_t fl[8]; int nf = 0;
        size_t k = i;
        while (nf < 8 && k <= j) {
            size_t m = k;
            while (m < j && data[m] != '\t') m++;
            f[nf] = data + k; fl[nf] = m - k; nf++;
            k = m + 1;
        }
        if (nf != 8 || k <= j) {
            free(v);
            snprintf(err, errlen, "%s: line %zu does not have 8 tab-separated columns", path, n + 1);
            return -1;
        }
        L->t = f[0]; L->tl = fl[0]; L->q = f[3]; L->ql = fl[3];
        L->ts = strtoll(f[1], NULL, 10); L->te = strtoll(f[2], NULL, 10);
        L->qs = strtoll(f[4], NULL, 10); L->qe = strtoll(f[5], NULL, 10);
        L->minus = fl[6] == 1 && f[6][0] == '-';
        n++;
        i = e;
    }
    *out = v; *nout = n;
    return 0;
}

static int cmp_keys(const void *pa, const void *pb)
{
    const segline *a = pa, *b = pb;
    if (a->key1 != b->key1) return a->key1 < b->key1 ? -1 : 1;
    if (a->key2 != b->key2) return a->key2 < b->key2 ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* ------------------------------------------------------------------ diagonal partition */

typedef struct { size_t first, count, qorder; size_t *lines; size_t nl; } dpair;

static int write_lines(const char *path, segline *const *ls, size_t n, char *err, size_t errlen)
{
    sbuf b = {0};
    for (size_t i = 0; i < n; i++)
        if (sb_add(&b, ls[i]->s, ls[i]->len)) { free(b.s); snprintf(err, errlen, "out of memory"); return -1; }
    int rc = write_file(path, b.s ? b.s : "", b.n, err, errlen);
    free(b.s);
    return rc;
}

static const segline *g_lines;  /* for qsort of pair indices */
static const dpair *g_pairs;
static int cmp_skip(const void *pa, const void *pb)   /* (count, tname, qname) */
{
    const dpair *a = &g_pairs[*(const size_t *)pa], *b = &g_pairs[*(const size_t *)pb];
    if (a->count != b->count) return a->count < b->count ? -1 : 1;
    const segline *x = &g_lines[a->first], *y = &g_lines[b->first];
    size_t m = x->tl < y->tl ? x->tl : y->tl;
    int c = memcmp(x->t, y->t, m);
    if (c) return c;
    if (x->tl != y->tl) return x->tl < y->tl ? -1 : 1;
    m = x->ql < y->ql ? x->ql : y->ql;
    c = memcmp(x->q, y->q, m);
    if (c) return c;
    return x->ql < y->ql ? -1 : x->ql > y->ql;
}
static int cmp_qorder(const void *pa, const void *pb)  /* stable: (qorder, position) */
{
    const size_t *a = pa, *b = pb;   /* pairs [pair index, position] */
    if (g_pairs[a[0]].qorder != g_pairs[b[0]].qorder) return g_pairs[a[0]].qorder < g_pairs[b[0]].qorder ? -1 : 1;
    return a[1] < b[1] ? -1 : a[1] > b[1];
}

/* Split one command's segments file; appends the resulting commands to out.  estimate: decide
 * whether to split as diagonal_partition.py does (bytes // first line's bytes > N, §7.3; the
 * automatic mode, whose N came from those bytes), else by the exact line count. */
static int partition_one(const hz_opts *o, const char *dir, const pcmd *c, uint64_t N, int estimate,
                         pcmds *out, char *err, size_t errlen)
{
    char name[4096];
    snprintf(name, sizeof name, "%s.segments", c->base);
    char *path = path_join(dir, name), *data = NULL;
    size_t len, n = 0;
    segline *ls = NULL;
    dpair *pairs = NULL; size_t np = 0;
    segline **buf = NULL;
    size_t *order = NULL;
    smap pm = {0}, qm = {0};
    int rc = -1;
    if (!path) { snprintf(err, errlen, "out of memory"); return -1; }
    if (read_file(path, &data, &len, err, errlen)) goto out;
    if (parse_lines(data, len, path, &ls, &n, err, errlen)) goto out;
    const char *nl = len ? memchr(data, '\n', len) : NULL;
    if (estimate ? !hz_diagpart_must_split(len, nl ? (uint64_t)(nl - data) + 1 : len, N) : n <= N) {
        char *b = strdup(c->base);
        if (!b || pcmds_push(out, b, c->r, c->q, c->strand)) { free(b); snprintf(err, errlen, "out of memory"); goto out; }
        rc = 0; goto out;
    }
    /* group by (target, query) in order of first appearance */
    if (smap_init(&pm, n) || smap_init(&qm, n)) { snprintf(err, errlen, "out of memory"); goto out; }
    pairs = calloc(n, sizeof *pairs);
    size_t *pair_of = calloc(n, sizeof *pair_of);
    char **pkeys = calloc(n, sizeof *pkeys);
    if (!pairs || !pair_of || !pkeys) { free(pair_of); free(pkeys); snprintf(err, errlen, "out of memory"); goto out; }
    size_t nq = 0;
    int oom = 0;
    for (size_t i = 0; i < n && !oom; i++) {
        /* the pair key is "target\tquery" (names hold no tab) */
        segline *L = &ls[i];
        size_t kl;
        char *k = malloc(L->tl + L->ql + 2);
        if (!k) { snprintf(err, errlen, "out of memory"); oom = 1; break; }
        memcpy(k, L->t, L->tl); k[L->tl] = '\t'; memcpy(k + L->tl + 1, L->q, L->ql);
        kl = L->tl + 1 + L->ql;
        int found;
        size_t p = smap_get(&pm, k, kl, np, &found);
        if (found) free(k);
        else {
            pkeys[np] = k;
            pairs[np].first = i;
            pairs[np].qorder = smap_get(&qm, L->q, L->ql, nq, &found);
            if (!found) nq++;
            np++;
        }
        pair_of[i] = p;
        pairs[p].count++;
    }
    for (size_t i = 0; i < np; i++) free(pkeys[i]);
    free(pkeys);
    if (oom) { free(pair_of); goto out; }
    for (size_t p = 0; p < np; p++) {
        pairs[p].lines = malloc(pairs[p].count * sizeof(size_t));
        if (!pairs[p].lines) { free(pair_of); snprintf(err, errlen, "out of memory"); goto out_pairs; }
    }
    for (size_t i = 0; i < n; i++) { dpair *P = &pairs[pair_of[i]]; P->lines[P->nl++] = i; }
    free(pair_of);
    int several = np > 1;
    buf = malloc(n * sizeof *buf);
    order = malloc(2 * (np ? np : 1) * sizeof *order);
    segline *tmp = malloc(n * sizeof *tmp);
    if (!buf || !order || !tmp) { free(tmp); snprintf(err, errlen, "out of memory"); goto out_pairs; }
    size_t ctr = 0;
    char sbase[4096], sname[4200];
    /* non-skip pairs: sorted along the diagonal, cut into N-line files */
    for (size_t p = 0; p < np; p++) {
        dpair *P = &pairs[p];
        if (several && P->count <= N) continue;
        for (size_t j = 0; j < P->nl; j++) {
            segline *L = &tmp[j];
            *L = ls[P->lines[j]];
            int64_t half = (L->te - L->ts) / 2;
            int64_t tm = L->ts + half, qm2 = L->qs + half;
            L->key1 = c->strand ? qm2 - tm : qm2 + tm;
            L->key2 = tm;
            L->idx = j;
        }
        qsort(tmp, P->nl, sizeof *tmp, cmp_keys);
        for (size_t j = 0; j < P->nl; j += N) {
            size_t m = P->nl - j < N ? P->nl - j : N;
            for (size_t x = 0; x < m; x++) buf[x] = &tmp[j + x];
            ctr++;
            snprintf(sbase, sizeof sbase, "%s.split%zu", c->base, ctr);
            snprintf(sname, sizeof sname, "%s/%s.segments", dir, sbase);
            char *b = strdup(sbase);
            if (write_lines(sname, buf, m, err, errlen) || !b || pcmds_push(out, b, c->r, c->q, c->strand)) {
                free(b); free(tmp); if (!err[0]) snprintf(err, errlen, "out of memory"); goto out_pairs;
            }
        }
    }
    free(tmp);
    /* skip pairs: packed greedily by (count, pair), each file in query order */
    size_t ns = 0;
    if (several)
        for (size_t p = 0; p < np; p++) if (pairs[p].count <= N) order[ns++] = p;
    g_lines = ls; g_pairs = pairs;
    qsort(order, ns, sizeof *order, cmp_skip);
    size_t a = 0;
    while (a < ns) {
        size_t e = a, cnt = 0;
        while (e < ns && (e == a || cnt + pairs[order[e]].count <= N)) { cnt += pairs[order[e]].count; e++; }
        size_t (*pp)[2] = malloc((e - a) * sizeof *pp);
        if (!pp) { snprintf(err, errlen, "out of memory"); goto out_pairs; }
        for (size_t x = a; x < e; x++) { pp[x - a][0] = order[x]; pp[x - a][1] = x - a; }
        qsort(pp, e - a, sizeof *pp, cmp_qorder);
        size_t m = 0;
        for (size_t x = 0; x < e - a; x++) {
            dpair *P = &pairs[pp[x][0]];
            for (size_t j = 0; j < P->nl; j++) buf[m++] = &ls[P->lines[j]];
        }
        free(pp);
        ctr++;
        snprintf(sbase, sizeof sbase, "%s.split%zu", c->base, ctr);
        snprintf(sname, sizeof sname, "%s/%s.segments", dir, sbase);
        char *b = strdup(sbase);
        if (write_lines(sname, buf, m, err, errlen) || !b || pcmds_push(out, b, c->r, c->q, c->strand)) {
            free(b); if (!err[0]) snprintf(err, errlen, "out of memory"); goto out_pairs;
        }
        a = e;
    }
    if (remove(path) != 0) { snprintf(err, errlen, "%s: cannot remove: %s", path, strerror(errno)); goto out_pairs; }
    rc = 0;
out_pairs:
    for (size_t p = 0; p < np; p++) free(pairs[p].lines);
out:
    (void)o;
    smap_free(&pm); smap_free(&qm);
    free(order); free(buf); free(pairs); free(ls); free(data); free(path);
    return rc;
}

/* ------------------------------------------------------------------ single file */

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int list_segments(const char *dir, char ***names, size_t *n, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) { snprintf(err, errlen, "%s: cannot read: %s", dir, strerror(errno)); return -1; }
    struct dirent *de;
    size_t cap = 0; *names = NULL; *n = 0;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l <= 9 || strcmp(de->d_name + l - 9, ".segments") || !strcmp(de->d_name, "all.segments")) continue;
        if (*n == cap) { cap = cap ? 2 * cap : 64; char **p = realloc(*names, cap * sizeof *p); if (!p) break; *names = p; }
        if (!((*names)[*n] = strdup(de->d_name))) break;
        (*n)++;
    }
    closedir(d);
    if (*n) qsort(*names, *n, sizeof **names, cmp_name);
    return 0;
}

static int single_file(const char *dir, const hz_side *q, char *err, size_t errlen)
{
    char **names = NULL; size_t nf = 0;
    if (list_segments(dir, &names, &nf, err, errlen)) return -1;
    sbuf all = {0};
    int rc = 0;
    for (size_t i = 0; i < nf && !rc; i++) {
        char *p = path_join(dir, names[i]), *d; size_t l;
        rc = !p || read_file(p, &d, &l, err, errlen);
        if (!rc) { rc = sb_add(&all, d, l); free(d); if (rc) snprintf(err, errlen, "out of memory"); }
        free(p);
    }
    for (size_t i = 0; i < nf; i++) free(names[i]);
    free(names);
    if (rc) { free(all.s); return -1; }
    char *out = path_join(dir, "all.segments");
    segline *ls = NULL; size_t n = 0;
    smap qm = {0};
    if (!out || parse_lines(all.s ? all.s : "", all.n, "all.segments", &ls, &n, err, errlen)) { rc = -1; goto done; }
    if (smap_init(&qm, q->n_rec)) { snprintf(err, errlen, "out of memory"); rc = -1; goto done; }
    for (size_t i = 0; i < q->n_rec; i++) {
        int found;
        smap_get(&qm, q->name[i], strlen(q->name[i]), i, &found);
    }
    for (size_t i = 0; i < n; i++) {
        int found;
        size_t r = smap_get(&qm, ls[i].q, ls[i].ql, SIZE_MAX, &found);
        if (!found) { snprintf(err, errlen, "all.segments: query name '%.*s' is not a query record", (int)ls[i].ql, ls[i].q); rc = -1; goto done; }
        ls[i].key1 = (int64_t)r; ls[i].key2 = ls[i].minus; ls[i].idx = i;
    }
    if (n) qsort(ls, n, sizeof *ls, cmp_keys);   /* no lines: ls is NULL (qsort's pointer must not be) */
    segline **bp = malloc((n ? n : 1) * sizeof *bp);
    if (!bp) { snprintf(err, errlen, "out of memory"); rc = -1; goto done; }
    for (size_t i = 0; i < n; i++) bp[i] = &ls[i];
    rc = write_lines(out, bp, n, err, errlen);
    free(bp);
done:
    smap_free(&qm);
    free(ls); free(all.s); free(out);
    return rc;
}

/* ------------------------------------------------------------------ entry point */

/* The automatic chunk size (diagpart.h) from the commands' segments files: their sizes, and
 * the first line of the first one in command order.  *N = 0: no partition. */
static int auto_chunk(const char *dir, const pcmds *c, uint64_t *N, char *err, size_t errlen)
{
    *N = 0;
    if (c->n < 2) return 0;
    uint64_t *sz = malloc(c->n * sizeof *sz), line = 0;
    if (!sz) { snprintf(err, errlen, "out of memory"); return -1; }
    char name[4200];
    for (size_t i = 0; i < c->n; i++) {
        snprintf(name, sizeof name, "%s/%s.segments", dir, c->v[i].base);
        struct stat st;
        FILE *fp = fopen(name, "rb");
        if (!fp || fstat(fileno(fp), &st)) {
            snprintf(err, errlen, "%s: cannot open: %s", name, strerror(errno));
            if (fp) fclose(fp);
            free(sz); return -1;
        }
        sz[i] = (uint64_t)st.st_size;
        if (i == 0) {   /* runner.py: len(f.readline()), the newline included */
            int ch;
            while ((ch = getc(fp)) != EOF) { line++; if (ch == '\n') break; }
        }
        fclose(fp);
    }
    *N = hz_diagpart_auto_chunk(sz, c->n, line);
    free(sz);
    return 0;
}

int hz_package(const hz_opts *o, const char *dir, const hz_side *t, const hz_side *q, size_t *nfiles, uint64_t *auto_n,
               pthread_mutex_t *create_lock, char *err, size_t errlen)
{
    if (!o->tarball && !o->diagonal_partition && !o->single_file) return 0;
    pcmds c = {0}, split = {0};
    int rc = -1;
    if (o->tarball || o->diagonal_partition)
        if (read_commands(o, dir, &c, err, errlen)) goto done;
    if (o->diagonal_partition) {
        uint64_t N = o->diagonal_partition;
        int est = N == HZ_DIAG_AUTO;
        if (est && auto_chunk(dir, &c, &N, err, errlen)) goto done;
        if (est) {   /* what "automatic" came to: in the manifest and once on stderr */
            if (auto_n) *auto_n = N;
            if (!o->quiet)
                fprintf(stderr, "hspz: note: --diagonal-partition automatic: N = %llu%s\n", (unsigned long long)N,
                        N ? "" : " (nothing split)");
        }
        for (size_t i = 0; i < c.n && N; i++)
            if (partition_one(o, dir, &c.v[i], N, est, &split, err, errlen)) goto done;
        if (!N) { split = c; memset(&c, 0, sizeof c); }   /* automatic, nothing to split */
        pcmds_free(&c);
        c = split; memset(&split, 0, sizeof split);
        if (nfiles) *nfiles = c.n;   /* one segments file per command; the split ones replaced theirs */
        if (write_commands(o, dir, &c, err, errlen)) goto done;
    }
    if (o->single_file && single_file(dir, q, err, errlen)) goto done;
    if (o->tarball && hz_pk_write_tarball(o, dir, t, q, &c, create_lock, err, errlen)) goto done;
    rc = 0;
done:
    pcmds_free(&c); pcmds_free(&split);
    return rc;
}
