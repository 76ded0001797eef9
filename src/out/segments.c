/* segments — spec §6. */
#include "outsafe.h"
#include "segments.h"
#include "shquote.h"
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hz_segwriter_init(hz_segwriter *w, const hz_side *t, const hz_side *q, const hz_opts *o)
{
    memset(w, 0, sizeof *w);
    w->t = t; w->q = q; w->o = o;
    w->rc_block = (size_t)-1;
}

void hz_segwriter_free(hz_segwriter *w)
{
    free(w->rc_start); free(w->rc_rec);
    w->rc_start = NULL; w->rc_rec = NULL; w->rc_block = (size_t)-1;
}

static int rc_table(hz_segwriter *w, size_t qb)
{
    if (w->rc_block == qb) return 0;
    const hz_block *b = &w->q->block[qb];
    free(w->rc_start); free(w->rc_rec);
    w->rc_start = malloc((b->nrec ? b->nrec : 1) * sizeof *w->rc_start);
    w->rc_rec = malloc((b->nrec ? b->nrec : 1) * sizeof *w->rc_rec);
    if (!w->rc_start || !w->rc_rec) return -1;
    for (size_t k = 0; k < b->nrec; k++) {
        size_t i = b->rec0 + b->nrec - 1 - k;     /* records in reverse order */
        w->rc_start[k] = 2 * b->start + b->len - w->q->rec_start[i] - w->q->seqs->len[i];
        w->rc_rec[k] = i;
    }
    w->rc_n = b->nrec;
    w->rc_block = qb;
    return 0;
}

static char *put_u64(char *p, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do { tmp[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (n) *p++ = tmp[--n];
    return p;
}

size_t hz_segment_line(hz_segwriter *w, const hz_hsp *h, int strand, size_t r, size_t q, char *buf)
{
    const hz_side *T = w->t, *Q = w->q;
    uint64_t gr = T->block[r].start + h->rs;
    size_t ti = hz_find_le(T->rec_start, T->n_rec, gr);
    uint64_t gq = Q->block[q].start + h->qs, qstart;
    size_t qi;
    if (strand == 0) {
        qi = hz_find_le(Q->rec_start, Q->n_rec, gq);
        qstart = gq - Q->rec_start[qi] + 1;
    } else {
        if (rc_table(w, q)) return 0;
        size_t k = hz_find_le(w->rc_start, w->rc_n, gq);
        qi = w->rc_rec[k];
        qstart = gq - w->rc_start[k] + 1;
    }
    uint64_t tstart = gr - T->rec_start[ti] + 1;
    char *p = buf;
    size_t nl = strlen(T->name[ti]);
    memcpy(p, T->name[ti], nl); p += nl; *p++ = '\t';
    p = put_u64(p, tstart); *p++ = '\t';
    p = put_u64(p, tstart + h->len); *p++ = '\t';
    nl = strlen(Q->name[qi]);
    memcpy(p, Q->name[qi], nl); p += nl; *p++ = '\t';
    p = put_u64(p, qstart); *p++ = '\t';
    p = put_u64(p, qstart + h->len); *p++ = '\t';
    *p++ = strand ? '-' : '+'; *p++ = '\t';
    if (h->score < 0) { *p++ = '-'; p = put_u64(p, (uint64_t)(-(int64_t)h->score)); }
    else p = put_u64(p, (uint64_t)h->score);
    *p++ = '\n';
    return (size_t)(p - buf);
}

/* Parallel formatting of one file: slices of `per` lines, in output order, are formatted by
 * the helpers into a ring of `nslot` buffers; the writing thread writes them in order. */
typedef struct {
    hz_segwriter *w; const hz_hsp *h; size_t n; int strand; size_t r, q;
    hz_dg_stream *ds;              /* the canonical digest fed, or NULL */
    size_t per, nslice, nslot, line_max;
    char **buf; size_t *len; int *ready;
    size_t next, written;          /* next slice to format; slices written so far */
    int stop;
    pthread_mutex_t mu; pthread_cond_t cv;
} fmtjob;

static size_t format_slice(hz_segwriter *w, const hz_hsp *h, size_t n, int strand, size_t r, size_t q,
                           size_t i0, size_t i1, char *out)
{
    size_t used = 0;
    for (size_t i = i0; i < i1; i++)
        used += hz_segment_line(w, strand ? &h[n - 1 - i] : &h[i], strand, r, q, out + used);
    return used;
}

static void *format_main(void *arg)
{
    fmtjob *F = arg;
    pthread_mutex_lock(&F->mu);
    for (;;) {
        while (!F->stop && F->next < F->nslice && F->next >= F->written + F->nslot) pthread_cond_wait(&F->cv, &F->mu);
        if (F->stop || F->next >= F->nslice) break;
        size_t k = F->next++, slot = k % F->nslot;
        pthread_mutex_unlock(&F->mu);
        size_t i0 = k * F->per, i1 = i0 + F->per < F->n ? i0 + F->per : F->n;
        size_t len = format_slice(F->w, F->h, F->n, F->strand, F->r, F->q, i0, i1, F->buf[slot]);
        if (F->ds) hz_dg_stream_lines(F->ds, F->buf[slot], len);   /* a failure spends the stream only */
        pthread_mutex_lock(&F->mu);
        F->len[slot] = len; F->ready[slot] = 1;
        pthread_cond_broadcast(&F->cv);
    }
    pthread_mutex_unlock(&F->mu);
    return NULL;
}

/* format and write h's lines to fp with `threads` helpers; 0, or -1 (write failed or out of
 * memory: *oom says which) */
static int write_parallel(hz_segwriter *w, FILE *fp, const hz_hsp *h, size_t n, int strand, size_t r, size_t q,
                          size_t line_max, int threads, hz_dg_stream *ds, int *oom)
{
    fmtjob F = { w, h, n, strand, r, q, ds, 0, 0, 0, line_max, NULL, NULL, NULL, 0, 0, 0,
                 PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER };
    F.per = ((size_t)4 << 20) / line_max;   /* about 4 MiB of text a slice at most */
    if (F.per < 256) F.per = 256;
    F.nslice = (n + F.per - 1) / F.per;
    F.nslot = 2 * (size_t)threads;
    F.buf = calloc(F.nslot, sizeof *F.buf); F.len = calloc(F.nslot, sizeof *F.len); F.ready = calloc(F.nslot, sizeof *F.ready);
    pthread_t *th = malloc((size_t)threads * sizeof *th);
    int ok = F.buf && F.len && F.ready && th, started = 0;
    for (size_t k = 0; ok && k < F.nslot; k++) ok = (F.buf[k] = malloc(F.per * line_max)) != NULL;
    *oom = !ok;
    for (int t = 0; ok && t < threads; t++) if (!pthread_create(&th[started], NULL, format_main, &F)) started++;
    if (ok && !started) { *oom = 1; ok = 0; }
    for (size_t k = 0; ok && k < F.nslice; k++) {
        size_t slot = k % F.nslot;
        pthread_mutex_lock(&F.mu);
        while (!F.ready[slot]) pthread_cond_wait(&F.cv, &F.mu);
        pthread_mutex_unlock(&F.mu);
        ok = fwrite(F.buf[slot], 1, F.len[slot], fp) == F.len[slot];
        pthread_mutex_lock(&F.mu);
        F.ready[slot] = 0; F.written = k + 1;
        pthread_cond_broadcast(&F.cv);
        pthread_mutex_unlock(&F.mu);
    }
    pthread_mutex_lock(&F.mu);
    F.stop = 1;
    pthread_cond_broadcast(&F.cv);
    pthread_mutex_unlock(&F.mu);
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
    for (size_t k = 0; F.buf && k < F.nslot; k++) free(F.buf[k]);
    free(F.buf); free(F.len); free(F.ready); free(th);
    pthread_mutex_destroy(&F.mu); pthread_cond_destroy(&F.cv);
    return ok ? 0 : -1;
}

int hz_segwriter_write(hz_segwriter *w, const char *dir, const char *base, const hz_hsp *h,
                       size_t n, int strand, size_t r, size_t q, int threads, hz_dg_stream *ds, char *err, size_t errlen)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/%s.segments", dir, base);
    snprintf(tmp, sizeof tmp, "%s.part", path);
    if (strand && rc_table(w, q)) { snprintf(err, errlen, "out of memory writing %s", path); return -1; }
    FILE *fp = fopen(tmp, "wb");
    if (!fp) { snprintf(err, errlen, "%s: cannot create: %s", tmp, strerror(errno)); return -1; }
    size_t maxname = 0;
    for (size_t i = 0; i < w->t->n_rec; i++) { size_t l = strlen(w->t->name[i]); if (l > maxname) maxname = l; }
    size_t maxq = 0;
    for (size_t i = 0; i < w->q->n_rec; i++) { size_t l = strlen(w->q->name[i]); if (l > maxq) maxq = l; }
    size_t line_max = maxname + maxq + 128;
    int ok = 1, oom = 0;
    if (threads > 1 && n >= 4 * ((((size_t)4 << 20) / line_max) + 256)) {   /* several slices: helpers format them */
        ok = write_parallel(w, fp, h, n, strand, r, q, line_max, threads > 64 ? 64 : threads, ds, &oom) == 0;
    } else {
        size_t cap = 1 << 20;
        char *buf = malloc(cap + line_max);
        if (!buf) { fclose(fp); remove(tmp); snprintf(err, errlen, "out of memory writing %s", path); return -1; }
        size_t used = 0;
        for (size_t i = 0; i < n && ok; i++) {
            const hz_hsp *x = strand ? &h[n - 1 - i] : &h[i];
            used += hz_segment_line(w, x, strand, r, q, buf + used);
            if (used >= cap) {
                if (ds) hz_dg_stream_lines(ds, buf, used);
                ok = fwrite(buf, 1, used, fp) == used; used = 0;
            }
        }
        if (ok && used && ds) hz_dg_stream_lines(ds, buf, used);
        if (ok && used) ok = fwrite(buf, 1, used, fp) == used;
        free(buf);
    }
    if (fclose(fp) != 0) ok = 0;
    if (!ok || rename(tmp, path) != 0) {
        if (oom) snprintf(err, errlen, "out of memory writing %s", path);
        else snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    if (ds) hz_dg_stream_file(ds, path);
    return 0;
}

char *hz_lastz_command(const hz_opts *o, const char *base, size_t r, size_t q, int strand)
{
    /* every user value quoted for sh (shquote.h); ordinary values keep KegAlign's bytes */
    char *D = hz_sh_quote(o->data_folder), *F = hz_sh_quote(o->format);
    char *A = o->ambiguous && o->ambiguous[0] ? hz_sh_quote(o->ambiguous) : NULL;
    char *S = o->scoring ? hz_sh_quote(o->scoring) : NULL;
    char *s = NULL;
    if (!D || !F || (o->ambiguous && o->ambiguous[0] && !A) || (o->scoring && !S)) goto out;
    int G = o->gappedthresh >= 0 ? o->gappedthresh : o->hspthresh;
    char I[32] = "";   /* KegAlign runner.py puts --inner=N right after --strand */
    if (o->inner > 0) snprintf(I, sizeof I, " --inner=%d", (int)o->inner);
    size_t len = strlen(D) * 2 + strlen(F) * 2 + strlen(base) * 3 + (A ? strlen(A) : 0) + (S ? strlen(S) : 0) + 512;
    if (!(s = malloc(len))) goto out;
    snprintf(s, len,
             "lastz %sref.2bit[nameparse=darkspace][multiple][subset=ref_block%zu.name] "
             "%squery.2bit[nameparse=darkspace][subset=query_block%zu.name] "
             "--format=%s --ydrop=%d --gappedthresh=%d --strand=%s%s%s%s%s%s%s "
             "--segments=%s.segments --output=%s.%s 2> %s.err",
             D, r, D, q, F, o->ydrop, G, strand ? "minus" : "plus", I, A ? " --ambiguous=" : "", A ? A : "",
             o->notrivial ? " --notrivial" : "", S ? " --scores=" : "", S ? S : "", base, base, F, base);
out:
    free(D); free(F); free(A); free(S);
    return s;
}

static int cmd_cmp(const void *pa, const void *pb)
{
    const hz_cmd *a = pa, *b = pb;
    if (a->strand != b->strand) return a->strand - b->strand;
    if (a->k != b->k) return a->k < b->k ? -1 : 1;
    if (a->q != b->q) return a->q < b->q ? -1 : 1;
    if (a->r != b->r) return a->r < b->r ? -1 : 1;
    return 0;
}

int hz_commands_write(const hz_opts *o, const char *dir, hz_cmd *c, size_t n, char *err, size_t errlen)
{
    if (n) qsort(c, n, sizeof *c, cmd_cmp);
    char path[4096];
    snprintf(path, sizeof path, "%s/lastz-commands.txt", dir);
    FILE *fp = fopen(path, "wb");
    if (!fp) { snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno)); return -1; }
    if (!o->nogapped)
        for (size_t i = 0; i < n; i++) {
            fputs(c[i].line, fp); fputc('\n', fp);
            if (o->print_commands && !o->diagonal_partition) { fputs(c[i].line, stdout); fputc('\n', stdout); }
        }
    if (fclose(fp) != 0) { snprintf(err, errlen, "%s: write failed: %s", path, strerror(errno)); return -1; }
    /* --print-commands: stdout checked (a full disk or a closed pipe fails the run) */
    if (o->print_commands && !o->diagonal_partition && !o->nogapped) return hz_out_stdout_flush(err, errlen);
    return 0;
}
