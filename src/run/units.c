/* units — work units, their exact seed-hit counts and the plan file (see units.h). */
#include "outsafe.h"
#include "units.h"
#include "manifest.h"
#include "seqio.h"
#include "inputcheck.h"
#include "inread.h"
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HZ_PLAN_KIND "hspz-plan"
#define HZ_PLAN_FORMAT 1

/* ---- seed-hit counts ---------------------------------------------------------------------- */

/* Seed hits of query positions [j0, j1) of text S against tab (the pipeline's chunk seeds). */
static int chunk_hits(const uint8_t *S, uint32_t j0, uint32_t j1, const hz_shape *sh, const hz_seedtable *tab,
                      hz_seed **seeds, size_t *cap, uint64_t *hits)
{
    int64_t ns = hz_seeds_chunk(S, j0, j1, sh, seeds, cap);
    if (ns < 0) return -1;
    for (int64_t i = 0; i < ns; i++) {
        uint64_t n;
        hz_seedtable_lookup(tab, (*seeds)[i].kmer, &n);
        *hits += n;
    }
    return 0;
}

typedef struct {
    const hz_opts *o; const hz_side *qs; const hz_shape *sh; const hz_seedtable *tab;
    size_t q;
    uint64_t *hits;          /* per interval of block q */
    size_t niv;
    int rc;
} count_job;

/* Exact hits of every interval of query block j->q: plus chunks over [s, e], minus chunks over
 * [E - e, E - s] of the host reverse complement, as pipeline.c makes its jobs (spec §3.5). */
static void count_block(count_job *j)
{
    const hz_opts *o = j->o;
    uint32_t L = j->qs->block[j->q].len, W = (uint32_t)j->sh->span;
    uint32_t (*iv)[2] = NULL;
    j->niv = hz_intervals(L, W, o->interval_size, &iv);
    j->hits = calloc(j->niv ? j->niv : 1, sizeof *j->hits);
    uint8_t *bytes = malloc((size_t)L + 1), *hrc = malloc((size_t)L + 1);   /* the two seeding texts */
    hz_seed *seeds = NULL; size_t cap = 0;
    j->rc = (!j->hits || !bytes || !hrc || (j->niv == 0 && L > W)) ? -1 : 0;
    int plus = strcmp(o->strand, "minus") != 0, minus = strcmp(o->strand, "plus") != 0;
    if (!j->rc && j->niv) {
        hz_block_bytes(j->qs, j->q, bytes);
        hz_block_encode(j->qs, j->q, NULL, NULL, hrc, 1);   /* one thread: blocks run in parallel */
        uint32_t E = L - W;
        for (size_t k = 0; k < j->niv && !j->rc; k++) {
            uint32_t s = iv[k][0], e = iv[k][1];
            if (plus)
                for (uint64_t i = s; i < e && !j->rc; i += o->chunk_size)
                    j->rc = chunk_hits(bytes, (uint32_t)i, (uint32_t)(i + o->chunk_size < (uint64_t)e + 1 ? i + o->chunk_size : (uint64_t)e + 1),
                                       j->sh, j->tab, &seeds, &cap, &j->hits[k]);
            if (minus) {
                uint32_t rs = E - e, re = E - s;
                for (uint64_t i = rs; i < re && !j->rc; i += o->chunk_size)
                    j->rc = chunk_hits(hrc, (uint32_t)i, (uint32_t)(i + o->chunk_size < (uint64_t)re + 1 ? i + o->chunk_size : (uint64_t)re + 1),
                                       j->sh, j->tab, &seeds, &cap, &j->hits[k]);
            }
        }
    }
    free(iv); free(bytes); free(hrc); free(seeds);
}

typedef struct { count_job *jobs; size_t n; size_t next; pthread_mutex_t lock; } count_pool;

static void *count_main(void *p)
{
    count_pool *pool = p;
    for (;;) {
        pthread_mutex_lock(&pool->lock);
        size_t i = pool->next++;
        pthread_mutex_unlock(&pool->lock);
        if (i >= pool->n) return NULL;
        count_block(&pool->jobs[i]);
    }
}

static int push_unit(hz_unit **u, size_t *n, size_t *cap, hz_unit x)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        hz_unit *v = realloc(*u, nc * sizeof *v);
        if (!v) return -1;
        *u = v; *cap = nc;
    }
    x.id = *n + 1;
    (*u)[(*n)++] = x;
    return 0;
}

int hz_units_make(const hz_opts *o, const hz_side *t, const hz_side *q, const hz_shape *sh,
                  uint64_t max_unit_hits, int threads, hz_unit **u, size_t *n, char *err, size_t errlen)
{
    *u = NULL; *n = 0;
    size_t cap = 0;
    count_job *jobs = calloc(q->n_block ? q->n_block : 1, sizeof *jobs);
    pthread_t *th = calloc(threads > 0 ? (size_t)threads : 1, sizeof *th);
    if (!jobs || !th) { free(jobs); free(th); snprintf(err, errlen, "out of memory"); return -1; }
    int rc = 0;
    for (size_t r = 0; r < t->n_block && !rc; r++) {
        uint32_t TL = t->block[r].len;
        uint8_t *tb = malloc((size_t)TL + 1);
        hz_seedtable tab;
        if (!tb || hz_seedtable_build_mt(&tab, (hz_block_bytes(t, r, tb), tb), TL, sh, o->step,
                                          hz_seedtable_parts(TL, threads))) {
            free(tb); snprintf(err, errlen, "out of memory building the seed table of target block %zu", r); rc = -1; break;
        }
        free(tb);
        for (size_t k = 0; k < q->n_block; k++) jobs[k] = (count_job){ o, q, sh, &tab, k, NULL, 0, 0 };
        count_pool pool = { jobs, q->n_block, 0, PTHREAD_MUTEX_INITIALIZER };
        int nt = threads > (int)q->n_block ? (int)q->n_block : threads, started = 0;
        for (int i = 1; i < nt; i++) started += pthread_create(&th[started], NULL, count_main, &pool) == 0;
        count_main(&pool);
        for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
        for (size_t k = 0; k < q->n_block; k++) {
            count_job *j = &jobs[k];
            if (j->rc) { rc = -1; snprintf(err, errlen, "out of memory counting the seed hits of query block %zu", k); }
            for (size_t a = 0; !rc && a < j->niv;) {   /* greedy runs of intervals */
                hz_unit x = { 0, r, k, a, a, 0 };
                while (x.k1 < j->niv && (x.k1 == x.k0 || !max_unit_hits || x.seed_hits + j->hits[x.k1] <= max_unit_hits))
                    x.seed_hits += j->hits[x.k1++];
                if (push_unit(u, n, &cap, x)) { rc = -1; snprintf(err, errlen, "out of memory"); }
                a = x.k1;
            }
            free(j->hits); j->hits = NULL;
        }
        hz_seedtable_free(&tab);
    }
    free(jobs); free(th);
    if (rc) { free(*u); *u = NULL; *n = 0; }
    return rc;
}

/* ---- the plan file ------------------------------------------------------------------------ */

static json_t *input_obj(const char *role, const char *path, const char *sha, uint64_t bytes, const hz_seqset *s)
{
    json_t *j = json_object();
    json_object_set_new(j, "role", json_string(role));
    json_object_set_new(j, "path", json_string(path));
    json_object_set_new(j, "bytes", json_integer((json_int_t)bytes));
    json_object_set_new(j, "sha256", json_string(sha));
    json_object_set_new(j, "records", json_integer((json_int_t)s->n));
    json_object_set_new(j, "bases", json_integer((json_int_t)s->total));
    return j;
}

/* The plan's inputs are read again by its units: regular files only.  (Their size and sha256
 * are the ones hz_seqset_load takes while it reads them.) */
static int regular_input(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) { snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno)); return -1; }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: a plan needs regular input files (a FIFO or device cannot be read again by its units)", path);
        return -1;
    }
    return 0;
}

/* the input's sha256 and size, taken while it was read (or recorded by its index) */
static int input_sha(const char *path, const hz_seqset *s, char hex[65], uint64_t *bytes, char *err, size_t errlen)
{
    if (regular_input(path, err, errlen)) return -1;
    if (!s->sha256[0]) { snprintf(err, errlen, "%s: no sha256 was taken while reading it", path); return -1; }
    memcpy(hex, s->sha256, 65); *bytes = s->file_bytes;
    return 0;
}

int hz_plan_write(const hz_config *c, const hz_side *tside, const hz_side *qside, const char *path,
                  uint64_t max_unit_hits, char *err, size_t errlen)
{
    const hz_opts *o = &c->o;
    hz_unit *u = NULL; size_t nu = 0;
    hz_shape sh;
    char tsha[65], qsha[65];
    uint64_t tbytes = 0, qbytes = 0;
    char *yaml = NULL; size_t ylen = 0;
    json_t *m = NULL;
    int rc = -1;
    int threads = o->threads > 0 ? o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1) threads = 1;
    if (hz_shape_parse(o->seed, o->transition, &sh, err, errlen)) goto done;
    if (input_sha(o->target, tside->seqs, tsha, &tbytes, err, errlen) || input_sha(o->query, qside->seqs, qsha, &qbytes, err, errlen)) goto done;
    if (hz_units_make(o, tside, qside, &sh, max_unit_hits, threads, &u, &nu, err, errlen)) goto done;
    {   /* the settings as `hspz config` prints them, without this command's -o (the plan path) */
        hz_config cc = *c;
        cc.o = *o;
        cc.o.outdir = NULL;
        cc.o.cfg = &cc;
        /* machine settings belong to each unit's run, not to the plan: their defaults here,
         * so the plan's bytes do not depend on where it was made */
        hz_opts d;
        hz_opts_default(&d);
        cc.o.threads = d.threads; cc.o.device = d.device; cc.o.gpus = d.gpus;
        cc.o.quiet = d.quiet; cc.o.progress = d.progress; cc.o.force = d.force;
        static const char *const MACHINE[] = { "output", "threads", "device", "gpus", "quiet", "progress", "force", NULL };
        for (int i = 0; MACHINE[i]; i++) {
            int k = hz_param_find(MACHINE[i]);
            if (k >= 0) cc.src[k] = HZ_SRC_DEFAULT;
        }
        FILE *mf = open_memstream(&yaml, &ylen);
        if (!mf) { snprintf(err, errlen, "out of memory"); goto done; }
        hz_cfg_print(&cc, mf);
        fclose(mf);
    }
    m = json_object();
    json_object_set_new(m, "kind", json_string(HZ_PLAN_KIND));
    json_object_set_new(m, "format", json_integer(HZ_PLAN_FORMAT));
    json_object_set_new(m, "hspz_version", json_string(HSPZ_VERSION));
    json_t *in = json_array();
    json_array_append_new(in, input_obj("target", o->target, tsha, tbytes, tside->seqs));
    json_array_append_new(in, input_obj("query", o->query, qsha, qbytes, qside->seqs));
    json_object_set_new(m, "inputs", in);
    json_object_set_new(m, "config", json_string(yaml));
    json_object_set_new(m, "target_blocks", json_integer((json_int_t)tside->n_block));
    json_object_set_new(m, "query_blocks", json_integer((json_int_t)qside->n_block));
    json_object_set_new(m, "max_unit_hits", json_integer((json_int_t)max_unit_hits));
    uint64_t total = 0;
    json_t *ua = json_array();
    for (size_t i = 0; i < nu; i++) {
        json_t *x = json_object();
        json_object_set_new(x, "id", json_integer((json_int_t)u[i].id));
        json_object_set_new(x, "target_block", json_integer((json_int_t)u[i].r));
        json_object_set_new(x, "query_block", json_integer((json_int_t)u[i].q));
        json_t *ks = json_array();   /* 1-based first and last interval: the tmp numbers */
        json_array_append_new(ks, json_integer((json_int_t)u[i].k0 + 1));
        json_array_append_new(ks, json_integer((json_int_t)u[i].k1));
        json_object_set_new(x, "intervals", ks);
        json_object_set_new(x, "seed_hits", json_integer((json_int_t)u[i].seed_hits));
        json_array_append_new(ua, x);
        total += u[i].seed_hits;
    }
    json_object_set_new(m, "units", ua);
    json_object_set_new(m, "seed_hits", json_integer((json_int_t)total));
    {
        size_t n = strlen(path) + 64;
        char *tmp = malloc(n);
        if (!tmp) { snprintf(err, errlen, "out of memory"); goto done; }
        FILE *pf = hz_out_fopen_tmp(path, tmp, n);   /* O_EXCL|O_NOFOLLOW: a stale name is never followed */
        if (!pf) { snprintf(err, errlen, "%s: cannot create %s: %s", path, tmp, strerror(errno)); free(tmp); goto done; }
        int bad = json_dumpf(m, pf, JSON_INDENT(1)) != 0;
        if (fclose(pf) != 0 || bad) {
            snprintf(err, errlen, "%s: cannot write the plan: %s", path, strerror(errno));
            unlink(tmp); free(tmp); goto done;
        }
        if (hz_out_place(tmp, path, o->force) != 0) {   /* never over a link, device or folder */
            snprintf(err, errlen, "%s: cannot put the plan in place: %s", path, strerror(errno));
            unlink(tmp); free(tmp); goto done;
        }
        free(tmp);
    }
    if (!o->quiet)
        fprintf(stderr, "hspz: plan: %zu work units (%zu target x %zu query blocks), %llu seed hits; wrote %s\n",
                nu, tside->n_block, qside->n_block, (unsigned long long)total, path);
    rc = 0;
done:
    json_decref(m);
    free(yaml); free(u);
    return rc;
}

int hz_plan_cmd(const hz_config *c, const char *path, uint64_t max_unit_hits)
{
    const hz_opts *o = &c->o;
    char err[2048] = "";
    hz_seqset ts = {0}, qs = {0};
    hz_side tside = {0}, qside = {0};
    int status = 1;
    if (regular_input(o->target, err, sizeof err) || regular_input(o->query, err, sizeof err)) goto done;
    if (hz_seqset_load(o->target, &ts, err, sizeof err) || hz_seqset_load(o->query, &qs, err, sizeof err)) goto done;
    if (hz_side_plan(&tside, &ts, o->seq_block_size, o->target_prefix, err, sizeof err) ||
        hz_side_plan(&qside, &qs, o->seq_block_size, o->query_prefix, err, sizeof err)) goto done;
    /* the record rules with the plan's own --tarball, so that merge cannot fail on them late */
    if (hz_input_check(o, &tside, &qside, err, sizeof err)) goto done;
    if (hz_plan_write(c, &tside, &qside, path, max_unit_hits, err, sizeof err)) goto done;
    status = 0;
done:
    if (status) fprintf(stderr, "hspz: %s\n", err[0] ? err : "failed");
    hz_side_free(&tside); hz_side_free(&qside);
    hz_seqset_free(&ts); hz_seqset_free(&qs);
    return status;
}

static int get_uint(json_t *o, const char *key, uint64_t *v)
{
    json_t *x = json_object_get(o, key);
    if (!json_is_integer(x) || json_integer_value(x) < 0) return -1;
    *v = (uint64_t)json_integer_value(x);
    return 0;
}

static char *get_str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? strdup(s) : NULL;
}

/* jansson's input: the plan read once through hz_inread (its sha256 taken on the way) */
typedef struct { hz_inread r; uint64_t pos; } plan_in;

static size_t plan_read(void *buf, size_t n, void *data)
{
    plan_in *in = data;
    ssize_t k = hz_inread_at(&in->r, in->pos, buf, n);
    if (k < 0) return (size_t)-1;
    in->pos += (uint64_t)k;
    return (size_t)k;
}

int hz_unitplan_read(const char *path, hz_unitplan *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    json_error_t je;
    struct stat st;
    if (stat(path, &st) != 0) { snprintf(err, errlen, "%s: cannot open the plan: %s", path, strerror(errno)); return -1; }
    if (!S_ISREG(st.st_mode)) { snprintf(err, errlen, "%s: not a plan file (not a regular file)", path); return -1; }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { snprintf(err, errlen, "%s: cannot open the plan: %s", path, strerror(errno)); return -1; }
    plan_in pin = { .pos = 0 };
    if (hz_inread_init(&pin.r, fd)) { close(fd); snprintf(err, errlen, "out of memory"); return -1; }
    json_t *m = json_load_callback(plan_read, &pin, 0, &je);
    if (!m) {   /* je.text may quote the file's bytes: control bytes as '?', one line */
        for (char *c = je.text; *c; c++) if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
        snprintf(err, errlen, "%s: not a plan file: %s (line %d)", path, je.text, je.line);
        hz_inread_free(&pin.r); close(fd);
        return -1;
    }
    int rc = -1;
    uint64_t fmt = 0, v;
    p->path = strdup(path);
    if (!json_is_object(m) || !json_string_value(json_object_get(m, "kind")) ||
        strcmp(json_string_value(json_object_get(m, "kind")), HZ_PLAN_KIND)) {
        snprintf(err, errlen, "%s: not an hspz plan (no \"kind\": \"%s\"; write one with hspz plan)", path, HZ_PLAN_KIND); goto out;
    }
    if (get_uint(m, "format", &fmt) || fmt != HZ_PLAN_FORMAT) {
        snprintf(err, errlen, "%s: plan format %llu, this hspz reads format %d", path, (unsigned long long)fmt, HZ_PLAN_FORMAT); goto out;
    }
    p->version = get_str(m, "hspz_version");
    p->config = get_str(m, "config");
    json_t *in = json_object_get(m, "inputs");
    if (!p->version || !p->config || !json_is_array(in) || json_array_size(in) != 2) {
        snprintf(err, errlen, "%s: plan without hspz_version, config or the two inputs", path); goto out;
    }
    for (int s = 0; s < 2; s++) {
        json_t *x = json_array_get(in, (size_t)s);
        const char *sha = json_string_value(json_object_get(x, "sha256"));
        p->in_path[s] = get_str(x, "path");
        if (!p->in_path[s] || !sha || strlen(sha) != 64 || get_uint(x, "bytes", &p->in_bytes[s])) {
            snprintf(err, errlen, "%s: input %d of the plan has no path, bytes or sha256", path, s + 1); goto out;
        }
        memcpy(p->in_sha[s], sha, 65);
    }
    if (get_uint(m, "target_blocks", &v)) { snprintf(err, errlen, "%s: plan without target_blocks", path); goto out; }
    p->n_tblock = (size_t)v;
    if (get_uint(m, "query_blocks", &v)) { snprintf(err, errlen, "%s: plan without query_blocks", path); goto out; }
    p->n_qblock = (size_t)v;
    json_t *ua = json_object_get(m, "units");
    if (!json_is_array(ua)) { snprintf(err, errlen, "%s: plan without units", path); goto out; }
    p->n = json_array_size(ua);
    p->u = calloc(p->n ? p->n : 1, sizeof *p->u);
    if (!p->u) { snprintf(err, errlen, "out of memory"); goto out; }
    for (size_t i = 0; i < p->n; i++) {
        json_t *x = json_array_get(ua, i), *ks = json_object_get(x, "intervals");
        hz_unit *u = &p->u[i];
        uint64_t id, r, q, hits;
        if (get_uint(x, "id", &id) || get_uint(x, "target_block", &r) || get_uint(x, "query_block", &q) ||
            get_uint(x, "seed_hits", &hits) || !json_is_array(ks) || json_array_size(ks) != 2 ||
            !json_is_integer(json_array_get(ks, 0)) || !json_is_integer(json_array_get(ks, 1)) ||
            id != i + 1 || r >= p->n_tblock || q >= p->n_qblock) {
            snprintf(err, errlen, "%s: unit %zu of the plan is malformed", path, i + 1); goto out;
        }
        json_int_t a = json_integer_value(json_array_get(ks, 0)), b = json_integer_value(json_array_get(ks, 1));
        if (a < 1 || b < a) { snprintf(err, errlen, "%s: unit %zu: bad interval range", path, i + 1); goto out; }
        *u = (hz_unit){ (size_t)id, (size_t)r, (size_t)q, (size_t)a - 1, (size_t)b, hits };
        p->seed_hits += hits;
    }
    if (hz_inread_finish(&pin.r, p->sha256, NULL)) { snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno)); goto out; }
    rc = 0;
out:
    hz_inread_free(&pin.r); close(fd);
    json_decref(m);
    if (rc) hz_unitplan_free(p);
    return rc;
}

void hz_unitplan_free(hz_unitplan *p)
{
    free(p->path); free(p->version); free(p->config);
    free(p->in_path[0]); free(p->in_path[1]);
    free(p->u);
    memset(p, 0, sizeof *p);
}

int hz_unit_ids_parse(const char *spec, const hz_unitplan *p, unsigned char *sel, char *err, size_t errlen)
{
    memset(sel, 0, p->n ? p->n : 1);
    const char *s = spec;
    if (!*s) { snprintf(err, errlen, "--unit: empty list"); return -1; }
    while (*s) {
        char *end;
        if (*s < '0' || *s > '9') { snprintf(err, errlen, "--unit: '%s' is not a list of unit ids (e.g. 1,4-7)", spec); return -1; }
        unsigned long long a = strtoull(s, &end, 10), b = a;
        if (*end == '-') {
            s = end + 1;
            if (*s < '0' || *s > '9') { snprintf(err, errlen, "--unit: '%s' is not a list of unit ids (e.g. 1,4-7)", spec); return -1; }
            b = strtoull(s, &end, 10);
        }
        if (a < 1 || b < a || b > p->n) {
            snprintf(err, errlen, "--unit %s: the plan %s has units 1..%zu", spec, p->path, p->n); return -1;
        }
        for (unsigned long long i = a; i <= b; i++) sel[i - 1] = 1;
        if (*end == ',') end++;
        else if (*end) { snprintf(err, errlen, "--unit: '%s' is not a list of unit ids (e.g. 1,4-7)", spec); return -1; }
        s = end;
    }
    return 0;
}

int hz_unitplan_check_inputs(const hz_unitplan *p, const hz_opts *o, char *err, size_t errlen)
{
    const char *paths[2] = { o->target, o->query }, *role[2] = { "target", "query" };
    for (int s = 0; s < 2; s++) {
        char hex[65];
        uint64_t bytes = 0;
        if (regular_input(paths[s], err, errlen)) return -1;
        if (hz_sha256_file(paths[s], hex, &bytes, NULL)) {   /* checked before the run reads them */
            snprintf(err, errlen, "%s: cannot read: %s", paths[s], strerror(errno));
            return -1;
        }
        if (bytes != p->in_bytes[s] || strcmp(hex, p->in_sha[s])) {
            snprintf(err, errlen, "%s: not the %s of the plan %s (%llu bytes, sha256 %.12s...; the plan has %llu bytes, %.12s...)",
                     paths[s], role[s], p->path, (unsigned long long)bytes, hex,
                     (unsigned long long)p->in_bytes[s], p->in_sha[s]);
            return -1;
        }
    }
    return 0;
}

int hz_unitsel_target(const hz_unitsel *s, size_t r)
{
    for (size_t i = 0; i < s->plan->n; i++) if (s->sel[i] && s->plan->u[i].r == r) return 1;
    return 0;
}

int hz_unitsel_pair(const hz_unitsel *s, size_t r, size_t q)
{
    for (size_t i = 0; i < s->plan->n; i++) if (s->sel[i] && s->plan->u[i].r == r && s->plan->u[i].q == q) return 1;
    return 0;
}

int hz_unitsel_interval(const hz_unitsel *s, size_t r, size_t q, size_t k)
{
    for (size_t i = 0; i < s->plan->n; i++) {
        const hz_unit *u = &s->plan->u[i];
        if (s->sel[i] && u->r == r && u->q == q && k >= u->k0 && k < u->k1) return 1;
    }
    return 0;
}

int hz_unitplan_check_cover(const hz_unitplan *p, const hz_opts *o, const hz_side *t, const hz_side *q,
                            uint32_t W, char *err, size_t errlen)
{
    if (t->n_block != p->n_tblock || q->n_block != p->n_qblock) {
        snprintf(err, errlen, "%s: %zu x %zu blocks with its settings, but its units are of %zu x %zu (edited by hand?)",
                 p->path, t->n_block, q->n_block, p->n_tblock, p->n_qblock);
        return -1;
    }
    size_t *niv = calloc(q->n_block ? q->n_block : 1, sizeof *niv), total = 0, covered = 0;
    if (!niv) { snprintf(err, errlen, "out of memory"); return -1; }
    for (size_t b = 0; b < q->n_block; b++) {
        uint32_t (*iv)[2] = NULL;
        niv[b] = hz_intervals(q->block[b].len, W, o->interval_size, &iv);
        free(iv);
        total += niv[b] * t->n_block;
    }
    int rc = 0;
    /* units come in (r, q, k) order and must tile each pair's intervals without gap or overlap */
    size_t next_r = 0, next_q = 0, next_k = 0;
    for (size_t i = 0; i < p->n && !rc; i++) {
        const hz_unit *u = &p->u[i];
        while (!rc && (next_r < u->r || (next_r == u->r && next_q < u->q))) {   /* pairs skipped */
            if (next_k < niv[next_q]) rc = -1;
            if (++next_q == q->n_block) { next_q = 0; next_r++; }
            next_k = 0;
        }
        if (rc || u->r != next_r || u->q != next_q || u->k0 != next_k || u->k1 > niv[u->q] || u->k1 <= u->k0) { rc = -1; break; }
        covered += u->k1 - u->k0;
        next_k = u->k1;
        if (next_k == niv[next_q]) { if (++next_q == q->n_block) { next_q = 0; next_r++; } next_k = 0; }
    }
    if (!rc && covered != total) rc = -1;
    if (rc) snprintf(err, errlen, "%s: its units do not cover the %zu intervals of its %zu x %zu blocks exactly once, in order (edited by hand?)",
                     p->path, total, t->n_block, q->n_block);
    free(niv);
    return rc;
}
