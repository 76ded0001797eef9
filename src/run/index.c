/* index — prepared target blocks, in memory or in an index file (see index.h). */
#include "outsafe.h"
#include "index.h"
#include "backend.h"
#include "sha256.h"
#include "sigwatch.h"
#include "scoring.h"
#include "xdrop.h"
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define IX_MAGIC "HSPZIDX\n"
#define IX_FORMAT 1u
#define IX_BOM 0x01020304u
#define IX_ALIGN 4096u
#define IX_PIECE ((size_t)16 << 20)
#define IX_PREFIX 64u

/* ---- blocks in memory ---------------------------------------------------------------------- */

int hz_tblock_encode(hz_tblock *b, const hz_side *side, size_t r, int threads, char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    const hz_block *tb = &side->block[r];
    b->codes = malloc((size_t)tb->len + 1);
    if (!b->codes) {
        snprintf(err, errlen, "out of memory for target block %zu (%u bytes)", r, tb->len);
        return -1;
    }
    b->len = tb->len;
    hz_block_encode(side, r, b->codes, NULL, NULL, threads);
    b->encoded_only = 1;
    return 0;
}

int hz_tblock_build(hz_tblock *b, const hz_side *side, size_t r, const hz_shape *sh, uint32_t step,
                    hz_backend *be, int threads, int device_only, char *err, size_t errlen)
{
    const hz_block *tb = &side->block[r];
    if (!b->codes && hz_tblock_encode(b, side, r, threads, err, errlen)) return -1;   /* else encoded ahead */
    b->encoded_only = 0;
    int rc = 1;
    if (be && device_only && be->build_table_resident)
        rc = be->build_table_resident(be, &b->tab, b->codes, tb->len, sh, step, err, errlen);
    if (rc == 1 && be && be->build_table)
        rc = be->build_table(be, &b->tab, b->codes, tb->len, sh, step, err, errlen);
    if (rc == 1) {   /* the host table reads the block's bytes (seed.h) */
        uint8_t *bytes = malloc((size_t)tb->len + 1);
        if (bytes) hz_block_bytes(side, r, bytes);
        rc = !bytes || hz_seedtable_build_mt(&b->tab, bytes, tb->len, sh, step, hz_seedtable_parts(tb->len, threads)) ? -1 : 0;
        if (rc) snprintf(err, errlen, "out of memory building the seed table of target block %zu", r);
        free(bytes);
    }
    if (rc) { free(b->codes); b->codes = NULL; }
    return rc;
}

void hz_tblock_free(hz_tblock *b)
{
    if (!b) return;
    if (!b->mapped) { free(b->codes); hz_seedtable_free(&b->tab); }
    memset(b, 0, sizeof *b);
}

/* ---- sha256 --------------------------------------------------------------------------------- */

static void sha_hex(const void *p, size_t n, char hex[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int ml = 0;
    EVP_Digest(p, n, md, &ml, EVP_sha256(), NULL);
    for (unsigned i = 0; i < 32; i++) sprintf(hex + 2 * i, "%02x", md[i]);
    hex[64] = 0;
}

/* ---- writing -------------------------------------------------------------------------------- */

typedef struct {
    int fd; const char *path; uint64_t off;
    json_t *sections;
    char *err; size_t errlen;
    int threads;           /* for encoding the blocks */
} ixw;

static int wr_all(ixw *w, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t k = write(w->fd, c, n > ((size_t)1 << 30) ? (size_t)1 << 30 : n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) { snprintf(w->err, w->errlen, "%s: cannot write: %s", w->path, strerror(k < 0 ? errno : ENOSPC)); return -1; }
        c += k; n -= (size_t)k; w->off += (uint64_t)k;
    }
    return 0;
}

static int wr_pad(ixw *w)
{
    static const char zero[IX_ALIGN];
    size_t pad = (size_t)((IX_ALIGN - w->off % IX_ALIGN) % IX_ALIGN);
    return pad ? wr_all(w, zero, pad) : 0;
}

/* one section: aligned, its pieces hashed; returns the section's index in the list, or -1 */
static json_int_t wr_section(ixw *w, const char *name, const void *p, size_t n)
{
    if (wr_pad(w)) return -1;
    json_t *s = json_object(), *pieces = json_array();
    json_object_set_new(s, "name", json_string(name));
    json_object_set_new(s, "offset", json_integer((json_int_t)w->off));
    json_object_set_new(s, "length", json_integer((json_int_t)n));
    size_t np = n ? (n + IX_PIECE - 1) / IX_PIECE : 1;   /* an empty section has one empty piece */
    for (size_t k = 0; k < np; k++) {
        char hex[65];
        size_t o = k * IX_PIECE;
        sha_hex((const char *)p + o, n - o < IX_PIECE ? n - o : IX_PIECE, hex);
        json_array_append_new(pieces, json_string(hex));
    }
    json_object_set_new(s, "piece_sha256", pieces);
    json_array_append_new(w->sections, s);
    if (n && wr_all(w, p, n)) return -1;
    return (json_int_t)json_array_size(w->sections) - 1;
}

static json_t *settings_json(const hz_opts *o, const hz_shape *sh)
{
    json_t *s = json_object();
    json_object_set_new(s, "seed", json_string(o->seed));
    json_object_set_new(s, "pattern", json_string(sh->pattern));
    json_object_set_new(s, "step", json_integer(o->step));
    json_object_set_new(s, "seq_block_size", json_integer((json_int_t)o->seq_block_size));
    return s;
}

/* the records and every block of side into w; block entries appended to blocks */
static int wr_body(ixw *w, const hz_seqset *t, const hz_side *side, const hz_shape *sh, uint32_t step,
                   hz_backend *be, json_t *blocks)
{
    size_t nb = 0;
    for (size_t i = 0; i < t->n; i++) nb += strlen(t->name[i]) + 1;
    char *names = malloc(nb ? nb : 1);
    if (!names) { snprintf(w->err, w->errlen, "out of memory"); return -1; }
    size_t at = 0;
    for (size_t i = 0; i < t->n; i++) { size_t l = strlen(t->name[i]) + 1; memcpy(names + at, t->name[i], l); at += l; }
    int bad = wr_section(w, "record_lengths", t->len, t->n * sizeof *t->len) < 0 ||
              wr_section(w, "record_names", names, nb) < 0 ||
              wr_section(w, "record_bytes", t->data, (size_t)t->total) < 0;
    free(names);
    if (bad) return -1;
    for (size_t r = 0; r < side->n_block; r++) {
        hz_tblock b = {0};
        if (hz_tblock_build(&b, side, r, sh, step, be, w->threads, 0, w->err, w->errlen)) return -1;
        json_t *j = json_object();
        const hz_block *g = &side->block[r];
        json_object_set_new(j, "start", json_integer((json_int_t)g->start));
        json_object_set_new(j, "length", json_integer(g->len));
        json_object_set_new(j, "record0", json_integer((json_int_t)g->rec0));
        json_object_set_new(j, "records", json_integer((json_int_t)g->nrec));
        json_object_set_new(j, "positions", json_integer((json_int_t)b.tab.n_pos));
        json_object_set_new(j, "mode", json_string(b.tab.bucket_off ? "direct" : "sorted"));
        json_int_t sc = wr_section(w, "codes", b.codes, b.len), sb = 0, sp;
        if (b.tab.bucket_off) {
            sb = wr_section(w, "bucket_offsets", b.tab.bucket_off, (((size_t)1 << (2 * b.tab.weight)) + 1) * 4);
            sp = wr_section(w, "positions", b.tab.pos, (size_t)b.tab.n_pos * 4);
        } else sp = wr_section(w, "sorted", b.tab.sorted, (size_t)b.tab.n_pos * 8);
        hz_tblock_free(&b);
        json_object_set_new(j, "codes", json_integer(sc));
        if (sb) json_object_set_new(j, "bucket_offsets", json_integer(sb));
        json_object_set_new(j, "table", json_integer(sp));
        json_array_append_new(blocks, j);
        if (sc < 0 || sb < 0 || sp < 0) return -1;
    }
    return 0;
}

/* Write the index of t (planned as side) to fd (w->path names it); header last. */
static int wr_index(ixw *w, const hz_opts *o, const hz_seqset *t, const char *tsha, const hz_side *side,
                    const hz_shape *sh, hz_backend *be)
{
    static const char page[IX_ALIGN];
    char prefix[IX_PREFIX] = {0};
    if (wr_all(w, page, IX_ALIGN) < 0) return -1;   /* placeholder page for the prefix */
    json_t *h = json_object(), *blocks = json_array();
    w->sections = json_array();
    json_object_set_new(h, "kind", json_string("hspz-index"));
    json_object_set_new(h, "format", json_integer(IX_FORMAT));
    json_object_set_new(h, "hspz_version", json_string(HSPZ_VERSION));
    json_object_set_new(h, "piece_bytes", json_integer((json_int_t)IX_PIECE));
    json_object_set_new(h, "settings", settings_json(o, sh));
    json_t *tj = json_object();
    json_object_set_new(tj, "path", json_string(o->target));
    json_object_set_new(tj, "format", json_string(t->kind));
    json_object_set_new(tj, "bytes", json_integer((json_int_t)t->file_bytes));
    json_object_set_new(tj, "sha256", json_string(tsha));
    json_object_set_new(tj, "records", json_integer((json_int_t)t->n));
    json_object_set_new(tj, "bases", json_integer((json_int_t)t->total));
    json_object_set_new(h, "target", tj);
    int rc = wr_body(w, t, side, sh, o->step, be, blocks);
    json_object_set_new(h, "blocks", blocks);
    json_object_set_new(h, "sections", w->sections);
    char *text = rc ? NULL : json_dumps(h, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(h);
    if (rc) return -1;
    if (!text) { snprintf(w->err, w->errlen, "out of memory"); return -1; }
    size_t hl = strlen(text);
    uint64_t hoff = 0;
    if (wr_pad(w) == 0) { hoff = w->off; rc = wr_all(w, text, hl); } else rc = -1;
    if (!rc) {   /* the prefix, now that the header's place and digest are known */
        uint32_t fmt = IX_FORMAT, bom = IX_BOM;
        uint64_t hlen = hl;
        unsigned char md[EVP_MAX_MD_SIZE];
        unsigned ml = 0;
        EVP_Digest(text, hl, md, &ml, EVP_sha256(), NULL);
        memcpy(prefix, IX_MAGIC, 8); memcpy(prefix + 8, &fmt, 4); memcpy(prefix + 12, &bom, 4);
        memcpy(prefix + 16, &hoff, 8); memcpy(prefix + 24, &hlen, 8); memcpy(prefix + 32, md, 32);
        if (pwrite(w->fd, prefix, IX_PREFIX, 0) != (ssize_t)IX_PREFIX || fsync(w->fd)) {
            snprintf(w->err, w->errlen, "%s: cannot write: %s", w->path, strerror(errno));
            rc = -1;
        }
    }
    free(text);
    return rc;
}

int hz_index_cmd(const hz_opts *o, const char *path)
{
    char err[2048] = "", tsha[65] = "", *tmp = NULL;
    hz_seqset t = {0};
    hz_side side = {0};
    hz_shape sh;
    hz_backend *be = NULL;
    hz_sigwatch sigw;
    int status = 1, fd = -1;
    const int nthreads = o->threads > 0 ? o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    hz_sigwatch_start(&sigw);
    double t0 = hz_now();
    if (hz_shape_parse(o->seed, o->transition, &sh, err, sizeof err)) goto done;
    if (hz_seqset_load_mt(o->target, nthreads, &t, err, sizeof err)) goto done;
    {
        uint64_t bytes;
        if (hz_sha256_file(o->target, tsha, &bytes, NULL)) {
            snprintf(err, sizeof err, "%s: hspz index needs a regular file (its sha256 is recorded)", o->target);
            goto done;
        }
    }
    if (hz_side_plan(&side, &t, o->seq_block_size, "", err, sizeof err)) goto done;
    {   /* the GPU builds the seed tables when one is usable (same tables) */
        hz_xparams xp;
        if (hz_xparams_build(&xp, NULL, NULL, o->xdrop, o->hspthresh, 1, err, sizeof err)) goto done;
        if (hz_backend_open(o, &xp, &be, err, sizeof err)) goto done;
    }
    size_t n = strlen(path) + 64;
    if (!(tmp = malloc(n))) { snprintf(err, sizeof err, "out of memory"); goto done; }
    hz_out_tmpname(path, tmp, n);   /* pid and token: a stale file or link of this name is never opened */
    pthread_mutex_lock(&sigw.lock);   /* a signal now waits until the file is registered */
    if ((fd = hz_out_create(tmp)) >= 0) hz_sigwatch_paths_locked(&sigw, NULL, tmp);
    pthread_mutex_unlock(&sigw.lock);
    if (fd < 0) {
        snprintf(err, sizeof err, "%s: cannot create: %s", tmp, strerror(errno));
        goto done;
    }
    ixw w = { fd, tmp, 0, NULL, err, sizeof err, nthreads };
    if (wr_index(&w, o, &t, tsha, &side, &sh, be)) goto done;
    if (close(fd)) { fd = -1; snprintf(err, sizeof err, "%s: cannot write: %s", tmp, strerror(errno)); goto done; }
    fd = -1;
    pthread_mutex_lock(&sigw.lock);   /* a signal never splits the rename */
    /* without --force never over a file that appeared meanwhile (another hspz index) */
    int rn = hz_out_place(tmp, path, o->force);   /* never over a link, device or folder */
    if (rn == 0) { sigw.tartmp[0] = 0; sigw.settled = 1; }   /* in place: a later signal is dropped */
    pthread_mutex_unlock(&sigw.lock);
    if (rn) {
        snprintf(err, sizeof err, errno == EEXIST ? "%s: the index file appeared meanwhile (another run?); use --force to replace it"
                                                  : "%s: cannot put the index in place: %s", path, strerror(errno));
        goto done;
    }
    if (!o->quiet)
        fprintf(stderr, "hspz: index of %s (%zu records, %zu blocks, seed %s, step %u) written to %s in %.2f s (%s)\n",
                o->target, t.n, side.n_block, o->seed, o->step, path, hz_now() - t0, be ? be->name : "cpu");
    status = 0;
done:
    if (fd >= 0) close(fd);
    if (status) {
        hz_publish_abort(&sigw);   /* first: removes the registered temporary file */
        fprintf(stderr, "hspz: %s\n", err[0] ? err : "failed");
    }
    hz_sigwatch_stop(&sigw);
    free(tmp);
    if (be) be->close(be);
    hz_side_free(&side);
    hz_seqset_free(&t);
    return status;
}

/* ---- reading -------------------------------------------------------------------------------- */

typedef struct ixpiece { const unsigned char *p; size_t n; char want[65]; char name[24]; } ixpiece;
typedef struct { const ixpiece *v; size_t n; atomic_size_t next; atomic_long bad; } ixverify;

static void *verify_main(void *a)
{
    ixverify *v = a;
    for (;;) {
        size_t i = atomic_fetch_add(&v->next, 1);
        if (i >= v->n) break;
        char hex[65];
        sha_hex(v->v[i].p, v->v[i].n, hex);
        if (strcmp(hex, v->v[i].want)) { long e = -1; atomic_compare_exchange_strong(&v->bad, &e, (long)i); }
    }
    return NULL;
}

/* section s of the header: its bytes in the mapping (offset/length inside the file) */
static const unsigned char *ix_section(const hz_index *ix, json_t *secs, json_int_t s, size_t *len, char *err, size_t errlen)
{
    json_t *j = json_array_get(secs, (size_t)s);
    json_int_t off = json_integer_value(json_object_get(j, "offset")), l = json_integer_value(json_object_get(j, "length"));
    if (!j || off < 0 || l < 0 || (uint64_t)off > ix->map_len || (uint64_t)l > ix->map_len - (uint64_t)off) {
        snprintf(err, errlen, "%s: truncated or damaged index (section %lld lies outside the file)", ix->path, (long long)s);
        return NULL;
    }
    *len = (size_t)l;
    return (const unsigned char *)ix->map + off;
}

/* every section's pieces, from the header (checked against the file's size) */
static int ix_pieces(hz_index *ix, json_t *secs, char *err, size_t errlen)
{
    size_t np = 0, cap = 0, i;
    ixpiece *v = NULL;
    json_t *s;
    json_array_foreach(secs, i, s) {
        size_t len;
        const unsigned char *p = ix_section(ix, secs, (json_int_t)i, &len, err, errlen);
        json_t *ps = json_object_get(s, "piece_sha256");
        if (!p || !json_is_array(ps) || json_array_size(ps) != (len ? (len + IX_PIECE - 1) / IX_PIECE : 1)) {
            if (p) snprintf(err, errlen, "%s: damaged index header (section %zu)", ix->path, i);
            free(v); return -1;
        }
        for (size_t k = 0; k < json_array_size(ps); k++) {
            if (np == cap) {
                cap = cap ? 2 * cap : 64;
                ixpiece *v2 = realloc(v, cap * sizeof *v);
                if (!v2) { free(v); snprintf(err, errlen, "out of memory"); return -1; }
                v = v2;
            }
            size_t o = k * IX_PIECE;
            const char *want = json_string_value(json_array_get(ps, k)), *nm = json_string_value(json_object_get(s, "name"));
            v[np].p = p + o; v[np].n = len - o < IX_PIECE ? len - o : IX_PIECE;
            snprintf(v[np].want, sizeof v[np].want, "%s", want ? want : "");
            snprintf(v[np].name, sizeof v[np].name, "%s", nm ? nm : "?");
            np++;
        }
    }
    ix->pieces = v; ix->n_pieces = np;
    return 0;
}

int hz_index_verify(const hz_index *ix, int threads, char *err, size_t errlen)
{
    const ixpiece *v = ix->pieces;
    ixverify V = { v, ix->n_pieces, 0, -1 };
    int nt = threads < 1 ? 1 : threads > 64 ? 64 : threads;
    pthread_t th[64];
    int started = 0;
    for (int t = 1; t < nt; t++) if (pthread_create(&th[started], NULL, verify_main, &V) == 0) started++;
    verify_main(&V);
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
    long bad = atomic_load(&V.bad);
    if (bad >= 0)
        snprintf(err, errlen, "%s: checksum mismatch in section '%s' (the 16 MiB piece at byte %llu; the index is damaged: build it again)",
                 ix->path, v[bad].name, (unsigned long long)(v[bad].p - (const unsigned char *)ix->map));
    return bad >= 0 ? -1 : 0;
}

/* the records: lengths and names copied, bytes in the mapping */
static int ix_records(hz_index *ix, json_t *h, json_t *secs, char *err, size_t errlen)
{
    json_t *tj = json_object_get(h, "target");
    size_t n = (size_t)json_integer_value(json_object_get(tj, "records")), ll, nl, dl;
    const unsigned char *L = ix_section(ix, secs, 0, &ll, err, errlen), *N = ix_section(ix, secs, 1, &nl, err, errlen),
                        *D = ix_section(ix, secs, 2, &dl, err, errlen);
    if (!L || !N || !D) return -1;
    hz_seqset *s = &ix->seqs;
    if (ll != n * 8) { snprintf(err, errlen, "%s: damaged index (record table)", ix->path); return -1; }
    s->n = n;
    s->len = malloc((n ? n : 1) * 8); s->off = malloc((n ? n : 1) * 8); s->name = calloc(n ? n : 1, sizeof *s->name);
    if (!s->len || !s->off || !s->name) { snprintf(err, errlen, "out of memory"); return -1; }
    memcpy(s->len, L, ll);
    size_t at = 0;
    uint64_t tot = 0;
    for (size_t i = 0; i < n; i++) {
        const char *e = at < nl ? memchr(N + at, 0, nl - at) : NULL;
        if (!e) { snprintf(err, errlen, "%s: damaged index (record names)", ix->path); return -1; }
        if (!(s->name[i] = strdup((const char *)N + at))) { snprintf(err, errlen, "out of memory"); return -1; }
        at = (size_t)(e - (const char *)N) + 1;
        s->off[i] = tot; tot += s->len[i];
    }
    if (tot != dl) { snprintf(err, errlen, "%s: damaged index (record bytes)", ix->path); return -1; }
    s->data = (uint8_t *)D; s->total = tot; s->data_mapped = 1;
    const char *p = json_string_value(json_object_get(tj, "path")), *k = json_string_value(json_object_get(tj, "format")),
               *sha = json_string_value(json_object_get(tj, "sha256"));
    s->path = strdup(p ? p : "");
    s->kind = k && !strcmp(k, "2bit") ? "2bit" : k && !strcmp(k, "fasta.gz") ? "fasta.gz" : "fasta";
    s->file_bytes = (uint64_t)json_integer_value(json_object_get(tj, "bytes"));
    snprintf(s->sha256, sizeof s->sha256, "%s", sha ? sha : "");
    return s->path ? 0 : -1;
}

static int ix_blocks(hz_index *ix, json_t *h, json_t *secs, char *err, size_t errlen)
{
    json_t *bl = json_object_get(h, "blocks"), *b;
    size_t nb = json_array_size(bl), i;
    hz_shape sh;
    if (hz_shape_parse(ix->pattern, 1, &sh, err, errlen)) return -1;
    ix->n_block = nb;
    ix->blk = calloc(nb ? nb : 1, sizeof *ix->blk);
    ix->geom = calloc(nb ? nb : 1, sizeof *ix->geom);
    if (!ix->blk || !ix->geom) { snprintf(err, errlen, "out of memory"); return -1; }
    json_array_foreach(bl, i, b) {
        hz_tblock *t = &ix->blk[i];
        hz_block *g = &ix->geom[i];
        g->start = (uint64_t)json_integer_value(json_object_get(b, "start"));
        g->len = (uint32_t)json_integer_value(json_object_get(b, "length"));
        g->rec0 = (size_t)json_integer_value(json_object_get(b, "record0"));
        g->nrec = (size_t)json_integer_value(json_object_get(b, "records"));
        t->mapped = 1; t->len = g->len;
        t->tab.weight = sh.weight;
        t->tab.n_pos = (uint64_t)json_integer_value(json_object_get(b, "positions"));
        size_t cl, bl2 = 0, pl;
        const char *mode = json_string_value(json_object_get(b, "mode"));
        int direct = mode && !strcmp(mode, "direct");
        const unsigned char *C = ix_section(ix, secs, json_integer_value(json_object_get(b, "codes")), &cl, err, errlen);
        const unsigned char *P = ix_section(ix, secs, json_integer_value(json_object_get(b, "table")), &pl, err, errlen);
        const unsigned char *B = direct ? ix_section(ix, secs, json_integer_value(json_object_get(b, "bucket_offsets")), &bl2, err, errlen) : NULL;
        if (!C || !P || (direct && !B)) return -1;
        size_t nbk = ((size_t)1 << (2 * sh.weight)) + 1;
        if (cl != g->len || pl != t->tab.n_pos * (direct ? 4 : 8) || (direct && (bl2 != nbk * 4 ||
            ((const uint32_t *)B)[nbk - 1] != t->tab.n_pos))) {
            snprintf(err, errlen, "%s: damaged index (block %zu: section sizes do not agree)", ix->path, i);
            return -1;
        }
        t->codes = (uint8_t *)C;
        if (direct) { t->tab.bucket_off = (uint32_t *)B; t->tab.pos = (uint32_t *)P; }
        else t->tab.sorted = (uint64_t *)P;
    }
    return 0;
}

/* the prefix and the header text of fd (malloc'd, NUL-terminated), checked */
static char *ix_header(int fd, const char *path, uint64_t fsize, char *err, size_t errlen)
{
    unsigned char pre[IX_PREFIX];
    uint32_t fmt, bom;
    uint64_t hoff, hlen;
    if (fsize < IX_PREFIX || pread(fd, pre, IX_PREFIX, 0) != (ssize_t)IX_PREFIX || memcmp(pre, IX_MAGIC, 8)) {
        snprintf(err, errlen, "%s: not an hspz index (hspz index -r TARGET -o FILE makes one)", path);
        return NULL;
    }
    memcpy(&fmt, pre + 8, 4); memcpy(&bom, pre + 12, 4); memcpy(&hoff, pre + 16, 8); memcpy(&hlen, pre + 24, 8);
    /* a flipped byte in the prefix is damage, not another machine, format or a short file (issue 31) */
    if (bom != IX_BOM && bom != __builtin_bswap32(IX_BOM)) {
        snprintf(err, errlen, "%s: damaged index (its byte-order mark is neither order's): build it again", path); return NULL;
    }
    if (bom != IX_BOM) { snprintf(err, errlen, "%s: an index written on a machine of the other byte order", path); return NULL; }
    if (fmt == 0 || fmt > 1000) { snprintf(err, errlen, "%s: damaged index (format number %u): build it again", path, fmt); return NULL; }
    if (fmt != IX_FORMAT) { snprintf(err, errlen, "%s: index format %u; this hspz reads format %u (build it again)", path, fmt, IX_FORMAT); return NULL; }
    if (hoff > fsize || hlen > fsize - hoff || hlen == 0 || hlen > ((uint64_t)1 << 30) || hoff < IX_PREFIX) {
        snprintf(err, errlen, "%s: damaged or truncated index (its prefix places the header at byte %llu, %llu bytes, "
                 "in a file of %llu bytes): build it again", path,
                 (unsigned long long)hoff, (unsigned long long)hlen, (unsigned long long)fsize);
        return NULL;
    }
    char *text = malloc((size_t)hlen + 1);
    if (!text) { snprintf(err, errlen, "out of memory"); return NULL; }
    if (pread(fd, text, (size_t)hlen, (off_t)hoff) != (ssize_t)hlen) {
        snprintf(err, errlen, "%s: cannot read the index header: %s", path, strerror(errno));
        free(text); return NULL;
    }
    text[hlen] = 0;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned ml = 0;
    EVP_Digest(text, (size_t)hlen, md, &ml, EVP_sha256(), NULL);
    if (memcmp(md, pre + 32, 32)) {
        snprintf(err, errlen, "%s: checksum mismatch in the index header (the index is damaged: build it again)", path);
        free(text); return NULL;
    }
    return text;
}

int hz_index_open(const char *path, hz_index *ix, char *err, size_t errlen)
{
    memset(ix, 0, sizeof *ix);
    int fd = open(path, O_RDONLY | O_NONBLOCK);   /* a FIFO must not block: it is refused below */
    struct stat st;
    if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: %s", path, fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0) close(fd);
        return -1;
    }
    char *text = ix_header(fd, path, (uint64_t)st.st_size, err, errlen);
    json_t *h = text ? json_loads(text, 0, NULL) : NULL;
    int rc = -1;
    if (text && !h) snprintf(err, errlen, "%s: damaged index header (not JSON)", path);
    if (!h) goto out;
    sha_hex(text, strlen(text), ix->sha256);
    const char *kind = json_string_value(json_object_get(h, "kind"));
    json_t *set = json_object_get(h, "settings"), *secs = json_object_get(h, "sections");
    const char *ver = json_string_value(json_object_get(h, "hspz_version")),
               *seed = json_string_value(json_object_get(set, "seed")), *pat = json_string_value(json_object_get(set, "pattern"));
    if (!kind || strcmp(kind, "hspz-index") || !ver || !seed || !pat || strlen(pat) > HZ_SEED_MAX_SPAN || !json_is_array(secs) ||
        json_array_size(secs) < 3 || json_integer_value(json_object_get(h, "piece_bytes")) != (json_int_t)IX_PIECE) {
        snprintf(err, errlen, "%s: damaged index header (fields missing)", path);
        goto out;
    }
    ix->path = strdup(path); ix->version = strdup(ver); ix->seed = strdup(seed);
    snprintf(ix->pattern, sizeof ix->pattern, "%s", pat);
    ix->step = (uint32_t)json_integer_value(json_object_get(set, "step"));
    ix->seq_block_size = (uint64_t)json_integer_value(json_object_get(set, "seq_block_size"));
    if (!ix->path || !ix->version || !ix->seed) { snprintf(err, errlen, "out of memory"); goto out; }
    ix->map_len = (size_t)st.st_size;
    ix->map = mmap(NULL, ix->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (ix->map == MAP_FAILED) { ix->map = NULL; snprintf(err, errlen, "%s: cannot map: %s", path, strerror(errno)); goto out; }
    if (ix_pieces(ix, secs, err, errlen) || ix_records(ix, h, secs, err, errlen) || ix_blocks(ix, h, secs, err, errlen)) goto out;
    rc = 0;
out:
    json_decref(h);
    free(text);
    close(fd);
    if (rc) hz_index_close(ix);
    return rc;
}

void hz_index_close(hz_index *ix)
{
    if (!ix) return;
    hz_seqset_free(&ix->seqs);   /* data_mapped: the bytes stay with the mapping */
    if (ix->map) munmap(ix->map, ix->map_len);
    free(ix->blk); free(ix->geom); free(ix->pieces);
    free(ix->path); free(ix->version); free(ix->seed);
    memset(ix, 0, sizeof *ix);
}

int hz_index_check_side(const hz_index *ix, const hz_side *side, char *err, size_t errlen)
{
    if (side->n_block != ix->n_block) {
        snprintf(err, errlen, "%s: the index has %zu target blocks, this run plans %zu", ix->path, ix->n_block, side->n_block);
        return -1;
    }
    for (size_t r = 0; r < side->n_block; r++) {
        const hz_block *a = &side->block[r], *b = &ix->geom[r];
        if (a->start != b->start || a->len != b->len || a->rec0 != b->rec0 || a->nrec != b->nrec) {
            snprintf(err, errlen, "%s: target block %zu of the index differs from this run's plan", ix->path, r);
            return -1;
        }
    }
    return 0;
}
