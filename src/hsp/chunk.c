/* chunk — CPU chunk driver (spec §5). */
#include "chunk.h"
#include "extend.h"
#include "dedup.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HZ_TILE (1u << 16)
#define HZ_GATE_CAP 128u   /* columns per side before an anchor takes the diagonal path */

typedef struct {
    const hz_target *t; const uint8_t *Q; hz_hspvec *batch; size_t kept, surv, accepted;
} long_sink;

static void long_visit(void *arg, size_t i, const hz_anchor *an, const hz_ext *r)
{
    long_sink *k = arg;
    (void)i;
    if (r->right_score + r->left_score < k->t->xp->gate_min_total) return;
    k->surv++;
    hz_hsp *slot = &k->batch->v[k->batch->n + k->kept];
    if (!hz_finish_hsp(k->t->R, k->Q, an, r, k->t->xp, slot)) return;
    k->accepted++;
    /* neighbours on a diagonal mostly give the same HSP: keep one of identical records in a
     * row (exact, dedup.h hz_dedup_collapse) */
    if (k->batch->n + k->kept > 0 && !memcmp(slot, slot - 1, sizeof *slot)) return;
    k->kept++;
}

int hz_extend_long(const hz_target *t, const uint8_t *Q, uint32_t Qlen, const hz_anchor *a,
                   size_t n, hz_diagbuf *diag, hz_hspvec *batch, hz_funnel *f)
{
    if (!n) return 0;
    double t0 = hz_now();
    if (hz_hspvec_reserve(batch, n)) return -1;
    long_sink k = { t, Q, batch, 0, 0, 0 };
    if (hz_diag_groups(t->R, t->Rlen, Q, Qlen, a, NULL, n, t->xp->sub, t->xp->xdrop, diag, long_visit, &k)) return -1;
    batch->n += k.kept;
    f->survivors += k.surv; f->accepted += k.accepted;
    f->t_extend += hz_now() - t0;
    return 0;
}

void hz_batch_tidy(hz_hspvec *b, size_t min)
{
    if (b->n < (min ? min : HZ_TIDY_MIN) || b->n < b->tidy) return;
    b->n = hz_dedup_collapse(b->v, b->n);
    b->tidy = 2 * b->n;
}

void hz_seed_hits(const hz_seedtable *tab, const hz_seed *seeds, size_t ns, uint64_t *pref, uint64_t *bstart)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < ns; i++) {
        uint64_t n;
        if (tab->bucket_off && i + 24 < ns) __builtin_prefetch(&tab->bucket_off[seeds[i + 24].kmer]);
        bstart[i] = hz_seedtable_lookup(tab, seeds[i].kmer, &n);
        acc += n;
        pref[i] = acc;
    }
}

double hz_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int hz_hspvec_reserve(hz_hspvec *h, size_t n)
{
    if (h->n + n <= h->cap) return 0;
    size_t c = h->cap ? h->cap : 256;
    while (c < h->n + n) c *= 2;
    hz_hsp *v = realloc(h->v, c * sizeof *v);
    if (!v) return -1;
    h->v = v; h->cap = c;
    return 0;
}

void hz_hspvec_free(hz_hspvec *h) { free(h->v); memset(h, 0, sizeof *h); }

/* one thread's run [a, b) of hz_hspvec_join's chunks, copied from offsets off[] on */
typedef struct { hz_hspvec *v, *res; size_t i1, a, b; size_t off[2]; } joinarg;

static void *join_main(void *p)
{
    joinarg *j = p;
    size_t off[2] = { j->off[0], j->off[1] };
    for (size_t i = j->a; i < j->b; i++) {
        int st = i < j->i1 ? 0 : 1;
        if (j->res[i].n) memcpy(j->v[st].v + off[st], j->res[i].v, j->res[i].n * sizeof *j->res[i].v);
        off[st] += j->res[i].n;
        hz_hspvec_free(&j->res[i]);
    }
    return NULL;
}

void hz_hspvec_join(hz_hspvec v[2], hz_hspvec *res, size_t i0, size_t i1, size_t i2, int threads)
{
    size_t total = 0;
    for (size_t i = i0; i < i2; i++) total += res[i].n;
    if (threads > 16) threads = 16;
    if (total < ((size_t)1 << 18) || threads < 2) threads = 1;   /* under 4 MiB: one thread */
    joinarg ja[16];
    pthread_t th[16];
    int started[16] = {0};
    size_t i = i0, seen = 0, off[2] = {0, 0};
    for (int t = 0; t < threads; t++) {   /* thread t takes chunks until the first t+1 shares are taken */
        ja[t] = (joinarg){ v, res, i1, i, i, { off[0], off[1] } };
        size_t upto = total / (size_t)threads * (size_t)(t + 1);
        while (i < i2 && (t == threads - 1 || seen < upto)) { seen += res[i].n; off[i < i1 ? 0 : 1] += res[i].n; i++; }
        ja[t].b = i;
    }
    for (int t = 1; t < threads; t++) started[t] = pthread_create(&th[t], NULL, join_main, &ja[t]) == 0;
    join_main(&ja[0]);
    for (int t = 1; t < threads; t++) { if (started[t]) pthread_join(th[t], NULL); else join_main(&ja[t]); }
    v[0].n = off[0]; v[1].n = off[1];
}

void hz_funnel_add(hz_funnel *a, const hz_funnel *b)
{
    a->seeds += b->seeds; a->anchors += b->anchors; a->survivors += b->survivors;
    a->accepted += b->accepted; a->after_batch += b->after_batch; a->written += b->written;
    a->batches += b->batches; a->long_anchors += b->long_anchors;
    a->t_seed += b->t_seed; a->t_anchor += b->t_anchor; a->t_gate += b->t_gate;
    a->t_extend += b->t_extend; a->t_dedup += b->t_dedup;
}

void hz_scratch_free(hz_scratch *s)
{
    free(s->seeds); free(s->pref); free(s->anc); free(s->flags); free(s->ids); free(s->tmp);
    free(s->longa); hz_diagbuf_free(&s->diag);
    hz_hspvec_free(&s->batch);
    memset(s, 0, sizeof *s);
}

size_t hz_batches(const uint64_t *pref, size_t ns, uint64_t H, int64_t *lim)
{
    if (ns == 0) return 0;
    uint64_t num_hits = pref[ns - 1];
    if (H == 0 || num_hits < H) { lim[0] = (int64_t)ns - 1; return 1; }
    uint64_t num_iter = num_hits / H + 1, limit = H;
    size_t nb = 0;
    for (uint64_t it = 0; it + 1 < num_iter; it++) {
        size_t lo = 0, hi = ns;        /* lower_bound(pref, limit) */
        while (lo < hi) { size_t m = (lo + hi) / 2; if (pref[m] < limit) lo = m + 1; else hi = m; }
        int64_t p = (int64_t)lo - 1;   /* may repeat the previous end: an empty batch */
        if (nb && p == lim[nb - 1]) break;   /* a fixed point: only empty batches follow */
        lim[nb++] = p;
        limit = (p >= 0 ? pref[p] : 0) + H;   /* p = -1: KegAlign reads pref[-1]; we use 0 */
    }
    lim[nb++] = (int64_t)ns - 1;
    return nb;
}

static int ensure(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    void *q = realloc(*p, need * elem);
    if (!q) return -1;
    *p = q; *cap = need;
    return 0;
}

/* gate + compact + materialize one tile of anchors, appending kept HSPs to s->batch; anchors
 * on a diagonal the diagonal path already knows skip the gate, and those past the gate's cap
 * take the path at the tile's end, in seed order */
static int run_tile(const hz_target *t, const uint8_t *Q, uint32_t Qlen, size_t n,
                    hz_funnel *f, hz_scratch *s)
{
    double t0 = hz_now();
    int warm = s->diag.cache.e != NULL;
    for (size_t i = 0; i < n; i++)
        s->flags[i] = warm && hz_diagcache_covers(&s->diag.cache, &s->anc[i]) ? 2 : HZ_GATE_TODO;
    hz_gate_cpu_capped_marked(t->R, t->Rlen, Q, Qlen, s->anc, n, t->xp, HZ_GATE_CAP, s->flags);
    size_t k = 0, nlong = 0;
    for (size_t i = 0; i < n; i++) {          /* stable compaction of survivors; park long ones */
        uint8_t fl = s->flags[i];
        s->ids[k] = (uint32_t)i;
        k += fl == 1;
        nlong += fl == 2;
    }
    if (nlong) {   /* parked until HZ_LONG_PIECE gather (or the batch ends): then by diagonal */
        if (s->nlong + nlong > s->long_cap) {
            size_t c = s->long_cap ? s->long_cap : HZ_TILE;
            while (c < s->nlong + nlong) c *= 2;
            hz_anchor *p = realloc(s->longa, c * sizeof *p);
            if (!p) return -1;
            s->longa = p; s->long_cap = c;
        }
        for (size_t i = 0; i < n; i++)
            if (s->flags[i] == 2) s->longa[s->nlong++] = s->anc[i];
    }
    double t1 = hz_now();
    size_t kept = 0;
    if (k) {   /* no survivors: batch.v may still be NULL (no NULL + 0) */
        if (hz_hspvec_reserve(&s->batch, k) != 0) return -1;
        kept = hz_extend_cpu(t->R, t->Rlen, Q, Qlen, s->anc, s->ids, k, t->xp, s->batch.v + s->batch.n);
        s->batch.n += kept;
    }
    double t2 = hz_now();
    f->anchors += n; f->survivors += k; f->accepted += kept; f->long_anchors += nlong;
    f->t_gate += t1 - t0; f->t_extend += t2 - t1;
    if (s->nlong >= s->piece) {   /* pieces grow from one tile: the cache warms up soon */
        size_t most = s->piece_max ? s->piece_max : HZ_LONG_PIECE;
        if (hz_extend_long(t, Q, Qlen, s->longa, s->nlong, &s->diag, &s->batch, f)) return -1;
        s->nlong = 0;
        s->piece = 2 * s->piece < most ? 2 * s->piece : most;
    }
    hz_batch_tidy(&s->batch, s->tidy_min);
    return 0;
}

int hz_chunk_cpu(const hz_target *t, const hz_seed *seeds, size_t ns, const uint8_t *Q,
                 uint32_t Qlen, hz_hspvec *out, hz_funnel *f, hz_scratch *s)
{
    if (ns == 0) return 0;
    f->seeds += ns;
    double t0 = hz_now();
    size_t pc = s->pref_cap;
    if (ensure((void **)&s->pref, &pc, 2 * ns, sizeof *s->pref)) return -1;
    s->pref_cap = pc;
    if (!s->anc) {
        s->anc = malloc(HZ_TILE * sizeof *s->anc);
        s->flags = malloc(HZ_TILE);
        s->ids = malloc(HZ_TILE * sizeof *s->ids);
        if (!s->anc || !s->flags || !s->ids) return -1;
    }
    uint64_t *pref = s->pref;
    uint64_t *bstart = s->pref + ns;   /* bucket start per seed (reuses the second half) */
    hz_seed_hits(t->tab, seeds, ns, pref, bstart);
    int64_t *lim = malloc((ns + 1) * sizeof *lim);
    if (!lim) return -1;
    size_t nb = hz_batches(pref, ns, t->max_hits, lim);
    f->t_anchor += hz_now() - t0;
    size_t sfirst = 0;
    hz_diagcache_reset(&s->diag.cache);   /* a new query range: other columns, maybe other sequences */
    s->piece = s->piece_max && s->piece_max < HZ_TILE ? s->piece_max : HZ_TILE;
    for (size_t b = 0; b < nb; b++) {
        s->batch.n = 0; s->batch.tidy = 0;
        size_t n = 0;
        double ta = hz_now(), tanch = 0;
        for (size_t si = sfirst; (int64_t)si <= lim[b]; si++) {
            uint64_t cnt = pref[si] - (si ? pref[si - 1] : 0), base = bstart[si];
            uint32_t aq = seeds[si].qpos + t->W;
            for (uint64_t k = 0; k < cnt; k++) {
                s->anc[n].ar = hz_seedtable_pos(t->tab, base + k) + t->W;
                s->anc[n].aq = aq;
                if (++n == HZ_TILE) {
                    tanch += hz_now() - ta;
                    if (run_tile(t, Q, Qlen, n, f, s)) { free(lim); return -1; }
                    n = 0; ta = hz_now();
                }
            }
        }
        tanch += hz_now() - ta;
        if (n && run_tile(t, Q, Qlen, n, f, s)) { free(lim); return -1; }
        if (hz_extend_long(t, Q, Qlen, s->longa, s->nlong, &s->diag, &s->batch, f)) { free(lim); return -1; }
        s->nlong = 0;
        f->t_anchor += tanch;
        double td = hz_now();
        size_t k = hz_dedup_batch(s->batch.v, s->batch.n);
        f->after_batch += k;
        f->batches++;
        if (k) {   /* (out->v and batch.v may be NULL when empty: no memcpy(NULL, ..., 0)) */
            if (hz_hspvec_reserve(out, k)) { free(lim); return -1; }
            memcpy(out->v + out->n, s->batch.v, k * sizeof *out->v);
            out->n += k;
        }
        f->t_dedup += hz_now() - td;
        sfirst = (size_t)(lim[b] + 1);
    }
    free(lim);
    return 0;
}
