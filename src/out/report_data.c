/* report_data — manifest, names and segments of an OUTDIR for `hspz report` (see report_data.h). */
#include "report_data.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) { h ^= (unsigned char)s[i]; h *= 1099511628211ULL; }
    return h;
}

/* open addressing over record indices (+1; 0 = empty); a later record with the same name is
 * chained from the first through next_same (SIZE_MAX ends the chain) */
static int index_names(hz_rdata *r, int side, size_t *dups)
{
    const hz_raxis *a = side ? &r->q : &r->t;
    size_t cap = 16;
    while (cap < 2 * a->n + 16) cap *= 2;
    size_t *h = calloc(cap, sizeof *h), *nx = malloc((a->n ? a->n : 1) * sizeof *nx), *last = malloc((a->n ? a->n : 1) * sizeof *last);
    uint64_t *hv = malloc((a->n ? a->n : 1) * sizeof *hv);
    if (!h || !nx || !last || !hv) { free(h); free(nx); free(last); free(hv); return -1; }
    *dups = 0;
    for (size_t i = 0; i < a->n; i++) {
        nx[i] = SIZE_MAX;
        hv[i] = fnv1a(a->name[i], strlen(a->name[i]));
        size_t k = (size_t)hv[i] & (cap - 1);
        while (h[k] && (hv[h[k] - 1] != hv[i] || strcmp(a->name[h[k] - 1], a->name[i]))) k = (k + 1) & (cap - 1);
        if (!h[k]) { h[k] = i + 1; last[i] = i; continue; }
        size_t first = h[k] - 1;            /* a duplicate name: append to the first's chain */
        nx[last[first]] = i; last[first] = i;
        (*dups)++;
    }
    free(last);
    r->hash[side] = h; r->hcap[side] = cap; r->next_same[side] = nx; r->hval[side] = hv;
    return 0;
}

/* first record named s[0..n), or SIZE_MAX */
static size_t find_name(const hz_rdata *r, int side, const char *s, size_t n)
{
    const hz_raxis *a = side ? &r->q : &r->t;
    uint64_t hv = fnv1a(s, n);
    size_t cap = r->hcap[side], k = (size_t)hv & (cap - 1);
    for (size_t *h = r->hash[side]; h[k]; k = (k + 1) & (cap - 1)) {
        const char *nm = a->name[h[k] - 1];
        if (r->hval[side][h[k] - 1] == hv && !strncmp(nm, s, n) && nm[n] == 0) return h[k] - 1;
    }
    return SIZE_MAX;
}

/* The names of stem_block0.name, stem_block1.name, ... (until one is missing) into a. */
static int read_names(const char *dir, const char *stem, hz_raxis *a, char *err, size_t errlen)
{
    size_t cap = 0;
    char *line = NULL; size_t lcap = 0;
    for (size_t b = 0;; b++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/%s_block%zu.name", dir, stem, b);
        FILE *fp = fopen(p, "rb");
        if (!fp) {
            if (errno == ENOENT && b > 0) break;
            snprintf(err, errlen, "%s: cannot read: %s (not an output folder of hspz?)", p, strerror(errno));
            free(line); return -1;
        }
        ssize_t n;
        while ((n = getline(&line, &lcap, fp)) > 0) {
            if (line[n - 1] == '\n') line[--n] = 0;
            if (a->n == cap) {
                cap = cap ? 2 * cap : 64;
                char **v = realloc(a->name, cap * sizeof *v);
                if (!v) { fclose(fp); free(line); snprintf(err, errlen, "out of memory"); return -1; }
                a->name = v;
            }
            if (!(a->name[a->n++] = strdup(line))) { fclose(fp); free(line); snprintf(err, errlen, "out of memory"); return -1; }
        }
        fclose(fp);
    }
    free(line);
    return 0;
}

/* inputs[] entry of role: record_lengths into a->len (count must equal the .name files'). */
static int read_lengths(json_t *m, const char *role, const char *path, hz_raxis *a, char *err, size_t errlen)
{
    size_t i; json_t *in, *found = NULL;
    json_array_foreach(json_object_get(m, "inputs"), i, in)
        if (json_is_string(json_object_get(in, "role")) && !strcmp(json_string_value(json_object_get(in, "role")), role)) found = in;
    json_t *rl = json_object_get(found, "record_lengths");
    if (!json_is_array(rl)) {
        snprintf(err, errlen, "%s: the %s input has no record_lengths (a manifest of an older hspz: run it again)", path, role);
        return -1;
    }
    if (json_array_size(rl) != a->n) {
        snprintf(err, errlen, "%s: %zu %s record lengths, but the .name files list %zu records", path,
                 json_array_size(rl), role, a->n);
        return -1;
    }
    a->len = malloc((a->n ? a->n : 1) * sizeof *a->len);
    a->off = malloc((a->n ? a->n : 1) * sizeof *a->off);
    if (!a->len || !a->off) { snprintf(err, errlen, "out of memory"); return -1; }
    json_t *v;
    json_array_foreach(rl, i, v) {
        if (!json_is_integer(v) || json_integer_value(v) < 0) { snprintf(err, errlen, "%s: %s record_lengths[%zu] is not a length", path, role, i); return -1; }
        a->len[i] = (uint64_t)json_integer_value(v);
    }
    hz_raxis_layout(a);
    return 0;
}

int hz_rdata_open(hz_rdata *r, const char *dir, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->smin = INT64_MAX; r->smax = INT64_MIN;
    char mp[4200];
    snprintf(mp, sizeof mp, "%s/manifest.json", dir);
    json_error_t je;
    if (!(r->manifest = json_load_file(mp, 0, &je))) {
        snprintf(err, errlen, "%s: %s (not an output folder of hspz run or merge?)", mp, je.text);
        return -1;
    }
    if (!json_is_object(json_object_get(r->manifest, "funnel"))) { snprintf(err, errlen, "%s: no funnel: not an hspz manifest", mp); return -1; }
    if (read_names(dir, "ref", &r->t, err, errlen) || read_names(dir, "query", &r->q, err, errlen)) return -1;
    if (read_lengths(r->manifest, "target", mp, &r->t, err, errlen) || read_lengths(r->manifest, "query", mp, &r->q, err, errlen)) return -1;
    r->tstat = calloc(r->t.n ? r->t.n : 1, sizeof *r->tstat);
    r->qstat = calloc(r->q.n ? r->q.n : 1, sizeof *r->qstat);
    if (!r->tstat || !r->qstat || index_names(r, 0, &r->t_dups) || index_names(r, 1, &r->q_dups)) { snprintf(err, errlen, "out of memory"); return -1; }
    /* the plot's aspect follows the genome sizes, the longer side HZ_REPORT_PLOT_PX */
    double X = r->t.total ? (double)r->t.total : 1, Y = r->q.total ? (double)r->q.total : 1;
    double a = X >= Y ? Y / X : X / Y, s = round(HZ_REPORT_PLOT_PX * a);
    if (s < HZ_REPORT_PLOT_MIN_PX) s = HZ_REPORT_PLOT_MIN_PX;
    r->pw = X >= Y ? HZ_REPORT_PLOT_PX : (uint32_t)s;
    r->ph = X >= Y ? (uint32_t)s : HZ_REPORT_PLOT_PX;
    if (hz_rgrid_init(&r->grid, r->pw, r->ph, r->t.total ? r->t.total : 1, r->q.total ? r->q.total : 1)) {
        snprintf(err, errlen, "out of memory for the plot raster"); return -1;
    }
    r->max_lines = HZ_REPORT_VECTOR_MAX;
    r->last_idx[0] = r->last_idx[1] = SIZE_MAX;
    r->vector = 1;
    return 0;
}

/* parse a decimal field [p, e) */
static int num(const char *p, const char *e, uint64_t *v)
{
    if (p == e || e - p > 19) return -1;
    uint64_t x = 0;
    for (; p < e; p++) { if (*p < '0' || *p > '9') return -1; x = x * 10 + (uint64_t)(*p - '0'); }
    *v = x;
    return 0;
}

/* the record named [p, e) that holds end position `end` (a duplicate name: the first record of
 * that name long enough; report_data.h) */
static size_t lookup(hz_rdata *r, int side, const char *p, const char *e, uint64_t end)
{
    const hz_raxis *a = side ? &r->q : &r->t;
    size_t n = (size_t)(e - p), i = r->last_idx[side];
    /* lines come in runs of one query record (and often one target record): try the last one */
    if (i == SIZE_MAX || strncmp(a->name[i], p, n) || a->name[i][n]) i = r->last_idx[side] = find_name(r, side, p, n);
    for (size_t j = i; j != SIZE_MAX; j = r->next_same[side][j])
        if (a->len[j] >= end) return j;
    return i;
}

static int add_line(hz_rdata *r, char *line, size_t n, char *err, size_t errlen)
{
    const char *f[9];
    size_t nf = 0;
    f[nf++] = line;
    for (size_t i = 0; i < n && nf < 9; i++) if (line[i] == '\t') f[nf++] = line + i + 1;
    if (nf != 8) {
        snprintf(err, errlen, "not a segment line (%s%zu TAB-separated fields, want 8)", nf > 8 ? "more than " : "", nf > 8 ? (size_t)8 : nf);
        return -1;
    }
    const char *end = line + n;
    hz_rseg s = {0};
    uint64_t sc;
    if (num(f[1], f[2] - 1, &s.ts) || num(f[2], f[3] - 1, &s.te) || num(f[4], f[5] - 1, &s.qs) || num(f[5], f[6] - 1, &s.qe)) {
        snprintf(err, errlen, "a coordinate is not a number"); return -1;
    }
    if (f[7] - 1 - f[6] != 1 || (f[6][0] != '+' && f[6][0] != '-')) { snprintf(err, errlen, "strand is not + or -"); return -1; }
    s.minus = f[6][0] == '-';
    int neg = f[7] < end && f[7][0] == '-';
    if (num(f[7] + neg, end, &sc) || sc > INT64_MAX) { snprintf(err, errlen, "score is not an integer"); return -1; }
    s.score = neg ? -(int64_t)sc : (int64_t)sc;
    s.ti = lookup(r, 0, f[0], f[1] - 1, s.te);
    s.qi = lookup(r, 1, f[3], f[4] - 1, s.qe);
    if (s.ti == SIZE_MAX || s.qi == SIZE_MAX) {
        int q = s.ti != SIZE_MAX;
        snprintf(err, errlen, "%s record '%.*s' is not in the %s .name files", q ? "query" : "target",
                 (int)((q ? f[4] : f[1]) - 1 - (q ? f[3] : f[0])), q ? f[3] : f[0], q ? "query_block" : "ref_block");
        return -1;
    }
    hz_rdiag d;
    if (hz_rbin_map(&r->t, &r->q, &s, &d, err, errlen)) return -1;
    hz_rgrid_add(&r->grid, &d, s.minus, s.score);
    hz_rstat *st[2] = { &r->tstat[s.ti], &r->qstat[s.qi] };
    for (int k = 0; k < 2; k++) {
        if (!st[k]->hsps || s.score > st[k]->maxscore) st[k]->maxscore = s.score;
        st[k]->hsps++; st[k]->bases += d.n;
        if (s.minus) st[k]->minus++; else st[k]->plus++;
    }
    if (s.score < r->smin) r->smin = s.score;
    if (s.score > r->smax) r->smax = s.score;
    r->aligned += d.n;
    if (r->vector) {
        if (r->nvec >= r->max_lines) {   /* too many to draw one by one: the raster only */
            free(r->vec); free(r->vscore); free(r->vstrand);
            r->vec = NULL; r->vscore = NULL; r->vstrand = NULL; r->nvec = 0; r->vector = 0;
        } else {
            if (!r->vec) {
                r->vec = malloc(r->max_lines * sizeof *r->vec);
                r->vscore = malloc(r->max_lines * sizeof *r->vscore);
                r->vstrand = malloc(r->max_lines);
                if (!r->vec || !r->vscore || !r->vstrand) { snprintf(err, errlen, "out of memory"); return -1; }
            }
            r->vec[r->nvec] = d; r->vscore[r->nvec] = s.score; r->vstrand[r->nvec] = (unsigned char)s.minus;
            r->nvec++;
        }
    }
    return 0;
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int hz_rdata_scan(hz_rdata *r, const char *dir, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) { snprintf(err, errlen, "%s: cannot read the folder: %s", dir, strerror(errno)); return -1; }
    char **names = NULL; size_t nn = 0, cap = 0;
    struct dirent *e;
    int rc = -1;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (e->d_name[0] == '.' || l < 10 || strcmp(e->d_name + l - 9, ".segments") || !strcmp(e->d_name, "all.segments")) continue;
        if (nn == cap) {
            cap = cap ? 2 * cap : 64;
            char **v = realloc(names, cap * sizeof *v);
            if (!v) { snprintf(err, errlen, "out of memory"); goto out; }
            names = v;
        }
        if (!(names[nn++] = strdup(e->d_name))) { snprintf(err, errlen, "out of memory"); goto out; }
    }
    if (nn) qsort(names, nn, sizeof *names, name_cmp);   /* the same bytes whatever readdir's order */
    char *line = NULL; size_t lcap = 0;
    for (size_t i = 0; i < nn; i++) {
        char p[4200], msg[1024];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        FILE *fp = fopen(p, "rb");
        if (!fp) { snprintf(err, errlen, "%s: cannot read: %s", p, strerror(errno)); free(line); goto out; }
        setvbuf(fp, NULL, _IOFBF, 1 << 20);
        ssize_t n;
        uint64_t ln = 0;
        while ((n = getline(&line, &lcap, fp)) > 0) {
            ln++;
            if (line[n - 1] == '\n') n--;
            if (add_line(r, line, (size_t)n, msg, sizeof msg)) {
                snprintf(err, errlen, "%s:%llu: %s", p, (unsigned long long)ln, msg);
                fclose(fp); free(line); goto out;
            }
        }
        int bad = ferror(fp);
        fclose(fp);
        if (bad) { snprintf(err, errlen, "%s: read error", p); free(line); goto out; }
        r->nlines += ln;
        r->nfiles++;
    }
    free(line);
    rc = 0;
out:
    closedir(d);
    for (size_t i = 0; i < nn; i++) free(names[i]);
    free(names);
    return rc;
}

static void axis_free(hz_raxis *a)
{
    for (size_t i = 0; i < a->n; i++) free(a->name[i]);
    free(a->name); free(a->len); free(a->off);
    memset(a, 0, sizeof *a);
}

void hz_rdata_free(hz_rdata *r)
{
    json_decref(r->manifest);
    axis_free(&r->t); axis_free(&r->q);
    free(r->tstat); free(r->qstat);
    hz_rgrid_free(&r->grid);
    free(r->vec); free(r->vscore); free(r->vstrand);
    for (int s = 0; s < 2; s++) { free(r->hash[s]); free(r->next_same[s]); free(r->hval[s]); }
    memset(r, 0, sizeof *r);
}
