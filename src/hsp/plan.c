/* plan — blocks, names, intervals (spec §2.4-2.6). */
#include "outsafe.h"
#include "plan.h"
#include "scoring.h"
#include <pthread.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int hz_side_plan(hz_side *side, const hz_seqset *seqs, uint64_t B, const char *prefix,
                 char *err, size_t errlen)
{
    memset(side, 0, sizeof *side);
    side->seqs = seqs;
    side->n_rec = seqs->n;
    size_t np = prefix ? strlen(prefix) : 0;
    side->name = calloc(seqs->n ? seqs->n : 1, sizeof *side->name);
    side->rec_start = calloc(seqs->n ? seqs->n : 1, sizeof *side->rec_start);
    side->block = calloc(seqs->n + 1, sizeof *side->block);
    if (!side->name || !side->rec_start || !side->block) goto oom;
    uint64_t buf = 0, block_start = 0, block_len = 0;
    size_t rec0 = 0;
    for (size_t i = 0; i < seqs->n; i++) {
        size_t nl = strlen(seqs->name[i]);
        side->name[i] = malloc(np + nl + 1);
        if (!side->name[i]) goto oom;
        if (np) memcpy(side->name[i], prefix, np);
        memcpy(side->name[i] + np, seqs->name[i], nl + 1);
        side->rec_start[i] = buf;
        buf += seqs->len[i];
        block_len += seqs->len[i];
        if (block_len > B) {
            hz_block *bl = &side->block[side->n_block++];
            bl->start = block_start; bl->len = (uint32_t)block_len;
            bl->rec0 = rec0; bl->nrec = i + 1 - rec0;
            if (block_len >= UINT32_MAX) goto toobig;
            block_start = buf; block_len = 0; rec0 = i + 1;
        } else {
            buf += 1; block_len += 1;
        }
    }
    side->n_name_files = side->n_block + 1;   /* the .name file of the open block */
    if (block_len > 0) {
        block_len -= 1;
        hz_block *bl = &side->block[side->n_block++];
        bl->start = block_start; bl->len = (uint32_t)block_len;
        bl->rec0 = rec0; bl->nrec = seqs->n - rec0;
        if (block_len >= UINT32_MAX) goto toobig;
    }
    return 0;
toobig:
    snprintf(err, errlen, "%s: a block of %s bytes is too large (limit 4294967294 bytes per block)",
             seqs->path, "4294967295 or more");
    hz_side_free(side);
    return -1;
oom:
    snprintf(err, errlen, "%s: out of memory while planning blocks", seqs->path);
    hz_side_free(side);
    return -1;
}

void hz_side_free(hz_side *side)
{
    if (side->name)
        for (size_t i = 0; i < side->n_rec; i++) free(side->name[i]);
    free(side->name);
    free(side->rec_start);
    free(side->block);
    memset(side, 0, sizeof *side);
}

void hz_block_bytes(const hz_side *side, size_t b, uint8_t *dst)
{
    const hz_block *bl = &side->block[b];
    const hz_seqset *s = side->seqs;
    uint64_t o = 0;
    for (size_t i = bl->rec0; i < bl->rec0 + bl->nrec; i++) {
        if (i > bl->rec0) dst[o++] = '&';
        memcpy(dst + o, s->data + s->off[i], s->len[i]);
        o += s->len[i];
    }
}

int hz_side_write_names(const hz_side *side, const char *dir, const char *stem, char *err, size_t errlen)
{
    char path[4096];
    for (size_t f = 0; f < side->n_name_files; f++) {
        snprintf(path, sizeof path, "%s/%s_block%zu.name", dir, stem, f);
        FILE *fp = fopen(path, "wb");
        if (!fp) { snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno)); return -1; }
        if (f < side->n_block) {
            const hz_block *bl = &side->block[f];
            for (size_t i = bl->rec0; i < bl->rec0 + bl->nrec; i++) {
                fputs(side->name[i], fp);
                fputc('\n', fp);
            }
        }
        if (fclose(fp) != 0) { snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno)); return -1; }
    }
    return 0;
}

size_t hz_intervals(uint32_t L, uint32_t W, uint64_t I, uint32_t (**iv)[2])
{
    *iv = NULL;
    if (L <= W) return 0;
    uint64_t E = L - W, n = (E + I - 1) / I;
    *iv = malloc(n * sizeof **iv);
    if (!*iv) return 0;
    size_t k = 0;
    for (uint64_t cur = 0; cur < E; cur += I) {
        (*iv)[k][0] = (uint32_t)cur;
        (*iv)[k][1] = (uint32_t)(cur + I < E ? cur + I : E);
        k++;
    }
    return k;
}

size_t hz_find_le(const uint64_t *a, size_t n, uint64_t x)
{
    size_t lo = 0, hi = n;           /* first index with a[i] > x */
    while (lo < hi) { size_t m = (lo + hi) / 2; if (a[m] <= x) lo = m + 1; else hi = m; }
    return lo - 1;
}

static uint8_t fwd_code[256], rc_code[256], hostrc_seed[256];
static pthread_once_t codes_once = PTHREAD_ONCE_INIT;
static void init_codes(void)
{
    for (int b = 0; b < 256; b++) { fwd_code[b] = HZ_X; hostrc_seed[b] = 'N'; }
    fwd_code['A'] = HZ_A; fwd_code['C'] = HZ_C; fwd_code['G'] = HZ_G; fwd_code['T'] = HZ_T;
    fwd_code['a'] = fwd_code['c'] = fwd_code['g'] = fwd_code['t'] = HZ_L;
    fwd_code['n'] = fwd_code['N'] = HZ_N;
    fwd_code['&'] = HZ_E;
    for (int b = 0; b < 256; b++) rc_code[b] = fwd_code[b] < 4 ? (uint8_t)(3 - fwd_code[b]) : fwd_code[b];
    hostrc_seed['A'] = 'T'; hostrc_seed['C'] = 'G'; hostrc_seed['G'] = 'C'; hostrc_seed['T'] = 'A';
    hostrc_seed['U'] = 'A';
}

/* src[0..n) are the bytes at block offsets [pos, pos + n) of a block of L bytes: their codes
 * into each array given (fwd forward, rc and hrc reversed) */
static void codes_span(const uint8_t *src, uint32_t n, uint32_t pos, uint32_t L, uint8_t *fwd, uint8_t *rc, uint8_t *hrc)
{
    if (fwd) for (uint32_t j = 0; j < n; j++) fwd[pos + j] = fwd_code[src[j]];
    if (rc)  for (uint32_t j = 0; j < n; j++) rc[L - 1 - pos - j] = rc_code[src[j]];
    if (hrc) for (uint32_t j = 0; j < n; j++) hrc[L - 1 - pos - j] = hostrc_seed[src[j]];
}

void hz_block_codes(const uint8_t *raw, uint32_t L, uint8_t *fwd, uint8_t *rc, uint8_t *hrc)
{
    pthread_once(&codes_once, init_codes);
    codes_span(raw, L, 0, L, fwd, rc && hrc ? rc : NULL, rc && hrc ? hrc : NULL);
}

/* ---- encoding straight from the records, on threads ---- */
typedef struct {
    const hz_side *side; size_t b; uint32_t a, e;
    uint8_t *fwd, *rc, *hrc;
} enc_range;

/* bytes [a, e) of block b: records' bytes and the '&' after every record but the block's last */
static void *enc_main(void *p)
{
    const enc_range *g = p;
    const hz_block *bl = &g->side->block[g->b];
    const hz_seqset *s = g->side->seqs;
    const uint64_t *rs = g->side->rec_start;
    uint32_t L = bl->len, pos = g->a;
    size_t lo = bl->rec0, hi = bl->rec0 + bl->nrec;   /* last record starting at or before a */
    while (hi - lo > 1) { size_t m = lo + (hi - lo) / 2; if (rs[m] - bl->start <= g->a) lo = m; else hi = m; }
    for (size_t k = lo; pos < g->e && k < bl->rec0 + bl->nrec; k++) {
        uint32_t st = (uint32_t)(rs[k] - bl->start), end = st + (uint32_t)s->len[k];
        if (pos < end) {
            uint32_t n = (end < g->e ? end : g->e) - pos;
            codes_span(s->data + s->off[k] + (pos - st), n, pos, L, g->fwd, g->rc, g->hrc);
            pos += n;
        }
        if (pos < g->e && pos == end) {   /* the separator after record k */
            static const uint8_t sep = '&';
            codes_span(&sep, 1, pos, L, g->fwd, g->rc, g->hrc);
            pos++;
        }
    }
    return NULL;
}

void hz_block_encode(const hz_side *side, size_t b, uint8_t *fwd, uint8_t *rc, uint8_t *hrc, int threads)
{
    pthread_once(&codes_once, init_codes);
    uint32_t L = side->block[b].len;
    enum { MAXT = 64, MIN_RANGE = 1 << 22 };   /* 4 MiB a range at least: thread start-up costs more */
    int nt = threads < 1 ? 1 : threads > MAXT ? MAXT : threads;
    if ((uint64_t)nt * MIN_RANGE > L) nt = (int)(L / MIN_RANGE) + 1;
    enc_range g[MAXT];
    pthread_t th[MAXT];
    int on[MAXT] = { 0 };
    for (int t = 0; t < nt; t++)
        g[t] = (enc_range){ side, b, (uint32_t)((uint64_t)L * t / nt), (uint32_t)((uint64_t)L * (t + 1) / nt), fwd, rc, hrc };
    for (int t = 1; t < nt; t++) on[t] = pthread_create(&th[t], NULL, enc_main, &g[t]) == 0;
    enc_main(&g[0]);
    for (int t = 1; t < nt; t++) {
        if (on[t]) pthread_join(th[t], NULL);
        else enc_main(&g[t]);
    }
}

int64_t hz_block_find(const hz_side *side, size_t b, uint8_t c, uint32_t **pos)
{
    const hz_block *bl = &side->block[b];
    const hz_seqset *s = side->seqs;
    size_t n = 0, cap = 0;
    *pos = NULL;
    for (size_t k = bl->rec0; k < bl->rec0 + bl->nrec; k++) {
        const uint8_t *r = s->data + s->off[k], *p = r, *e = r + s->len[k];
        while (p < e && (p = memchr(p, c, (size_t)(e - p))) != NULL) {
            if (n == cap) {
                size_t nc = cap ? 2 * cap : 64;
                uint32_t *q = realloc(*pos, nc * sizeof *q);
                if (!q) { free(*pos); *pos = NULL; return -1; }
                *pos = q; cap = nc;
            }
            (*pos)[n++] = (uint32_t)(side->rec_start[k] - bl->start) + (uint32_t)(p - r);
            p++;
        }
    }
    return (int64_t)n;
}

static int dump_side(FILE *f, const hz_side *s, const char *label)
{
    for (size_t b = 0; b < s->n_block; b++)
        for (size_t r = s->block[b].rec0; r < s->block[b].rec0 + s->block[b].nrec; r++)
            if (fprintf(f, "%s\t%zu\t%s\t%llu\n", label, b, s->name[r],
                        (unsigned long long)s->seqs->len[r]) < 0) return -1;
    return 0;
}

int hz_plan_dump(const hz_side *t, const hz_side *q, const char *path, char *err, size_t errlen)
{
    size_t n = strlen(path) + 64;
    char *tmp = malloc(n);
    if (!tmp) { snprintf(err, errlen, "%s: out of memory", path); return -1; }
    FILE *f = hz_out_fopen_tmp(path, tmp, n);   /* O_EXCL|O_NOFOLLOW */
    int rc = -1;
    if (!f) { snprintf(err, errlen, "%s: cannot write the plan dump: %s", path, strerror(errno)); goto out; }
    int bad = dump_side(f, t, "reference") || dump_side(f, q, "query");
    int e = errno;
    if (fclose(f) != 0 && !bad) { bad = 1; e = errno; }
    if (bad) { snprintf(err, errlen, "%s: cannot write the plan dump: %s", path, strerror(e)); unlink(tmp); goto out; }
    if (hz_out_place(tmp, path, 1) != 0) {   /* a regular file only (checked with --force up front) */
        snprintf(err, errlen, "%s: cannot put the plan dump in place: %s", path, strerror(errno));
        unlink(tmp); goto out;
    }
    rc = 0;
out:
    free(tmp);
    return rc;
}

/* ---- plan counts (plan.h; the manifest and --dry-run) ------------------------------------ */
void hz_plan_count(const hz_side *ts, const hz_side *qs, unsigned W, const hz_opts *o, hz_plan_counts *pc)
{
    memset(pc, 0, sizeof *pc);
    pc->target_blocks = ts->n_block; pc->query_blocks = qs->n_block;
    pc->target_records = ts->n_rec; pc->query_records = qs->n_rec;
    int nstr = (!strcmp(o->strand, "plus") || !strcmp(o->strand, "both")) +
               (!strcmp(o->strand, "minus") || !strcmp(o->strand, "both"));
    size_t chunks_per_tblock = 0;
    for (size_t q = 0; q < qs->n_block; q++) {
        uint32_t (*iv)[2] = NULL;
        size_t niv = hz_intervals(qs->block[q].len, W, o->interval_size, &iv);
        pc->intervals += niv;
        for (size_t k = 0; k < niv; k++) {
            uint64_t n = (uint64_t)iv[k][1] - iv[k][0] + 1;
            chunks_per_tblock += (size_t)nstr * (size_t)((n + o->chunk_size - 1) / o->chunk_size);
        }
        free(iv);
    }
    pc->work_units = pc->intervals * ts->n_block;
    pc->chunks = chunks_per_tblock * ts->n_block;
}
