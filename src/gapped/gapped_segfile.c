/* gapped_segfile — the segments file of lastz --segments: lines, passes, coordinates
 * (../shared/spec/lastz-gapped-spec.md §3.1-§3.3).  Messages follow lastz's wording. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "gapped.h"

static int parse_score(const char *s, int32_t *out)
{
    char *e; errno = 0;
    long v = strtol(s, &e, 10);
    if (e == s || *e || errno || v < -2147483647L || v > 2147483647L) return -1;
    *out = (int32_t)v;
    return 0;
}


static int rdie(hz_gsegrd *r, const char *fmt, ...)
{
    va_list ap; va_start(ap, fmt);
    FILE *f = r->msg ? r->msg : stderr;
    vfprintf(f, fmt, ap); va_end(ap);
    fputc('\n', f);
    return 1;
}

static int parse_u(const char *s, uint64_t *v)
{
    const char *p = s; if (*p == '+') p++;
    if (*p < '0' || *p > '9') return -1;
    char *e; errno = 0; unsigned long long x = strtoull(p, &e, 10);
    if (*e || errno || x > 0xffffffffull) return -1;
    *v = x; return 0;
}

/* read the next line with fields into r (r->have = 1), or r->eof; 1 on a fatal error */
int hz_gsegrd_next(hz_gsegrd *r)
{
    r->have = 0;
    for (;;) {
        ssize_t n = getline(&r->buf, &r->cap, r->f);
        if (n < 0) { r->eof = 1; return 0; }
        r->line++;
        if (n > 0 && r->buf[n - 1] == '\n') r->buf[--n] = 0;
        if (n >= 1023) return rdie(r, "FAILURE: line is too long (%s: line %d)", r->path, r->line);
        char *h = strchr(r->buf, '#'); if (h) *h = 0;
        char *fld[9]; int nf = 0;
        for (char *p = strtok(r->buf, " \t\r"); p; p = strtok(NULL, " \t\r")) { if (nf < 9) fld[nf] = p; nf++; }
        if (nf == 0) continue;
        if (nf == 1 && !strcmp(fld[0], "rewind")) return rdie(r, "hspz gapped: 'rewind' in %s (line %d) is not supported; run lastz for it", r->path, r->line);
        if (nf < 7) return rdie(r, "FAILURE: line has too few fields (%s: line %d)", r->path, r->line);
        if (nf > 8) return rdie(r, "FAILURE: line has too many fields (%s: line %d)", r->path, r->line);
        r->t = fld[0]; r->q = fld[3];
        const int ix[4] = { 1, 2, 4, 5 }; uint64_t *vv[4] = { &r->ts, &r->te, &r->qs, &r->qe };
        for (int k = 0; k < 4; k++) if (parse_u(fld[ix[k]], vv[k])) return rdie(r, "FAILURE: bad field (%s: line %d, %s)", r->path, r->line, fld[ix[k]]);
        if (strlen(fld[6]) != 1 || (fld[6][0] != '+' && fld[6][0] != '-')) return rdie(r, "FAILURE: bad strand (%s: line %d, %c)", r->path, r->line, fld[6][0]);
        r->strand = fld[6][0]; r->score = 0;
        if (nf == 8 && parse_score(fld[7], &r->score)) return rdie(r, "FAILURE: bad field (%s: line %d, %s)", r->path, r->line, fld[7]);
        if (r->te < r->ts) return rdie(r, "FAILURE: bad target interval (%s: line %d, %llu>%llu)", r->path, r->line, (unsigned long long)r->ts, (unsigned long long)r->te);
        if (r->qe < r->qs) return rdie(r, "FAILURE: bad query interval (%s: line %d, %llu>%llu)", r->path, r->line, (unsigned long long)r->qs, (unsigned long long)r->qe);
        r->have = 1;
        return 0;
    }
}



static int seg_add(hz_gsegvec *s, hz_gseg g)
{
    if (s->n == s->cap) {
        int64_t c = s->cap ? 2 * s->cap : 1024;
        hz_gseg *t = realloc(s->v, (size_t)c * sizeof *t); if (!t) return -1;
        s->v = t; s->cap = c;
    }
    s->v[s->n++] = g;
    return 0;
}

/* the target partition of a line (§3.3): named nm, holding tStart; -1 bad name, -2 bad position */
static int32_t find_part(const hz_gside *T, const char *nm, uint64_t pos)
{
    int32_t k = 0;
    while (k < T->n && strcmp(T->name[k], nm)) k++;
    if (k == T->n) return -1;
    for (; k < T->n && !strcmp(T->name[k], nm); k++)
        if ((int64_t)pos >= T->start[k] && (int64_t)pos < T->start[k] + T->rlen[k]) return k;
    return -2;
}

/* query position of the current line (§3.3); Qp: partitioned query or NULL (one record of
 * length qlen).  Returns 0 or 1 after a FAILURE message. */
static int query_pos(hz_gsegrd *r, const hz_gside *Qp, int64_t qlen, int64_t *pos)
{
    if (!Qp) {                         /* segment.c L688-700, L878-900 */
        int64_t s0 = r->qfrom ? r->qfrom - 1 : 0, tru = r->qfrom ? r->qtrue : qlen, e0 = s0 + qlen;
        if (r->strand == '-') { int64_t ns = tru - e0; e0 = tru - s0; s0 = ns; }
        const char *m = r->strand == '-' ? "\nminus strand subrange is " : "";
        char sub[64] = "";
        if (*m) snprintf(sub, sizeof sub, "%s%lld..%lld", m, (long long)(s0 + 1), (long long)e0);
        if ((int64_t)r->qs <= s0) return rdie(r, "FAILURE: query interval out of range (%s: line %d, %llu<%lld)%s", r->path, r->line, (unsigned long long)r->qs, (long long)(s0 + 1), sub);
        if ((int64_t)r->qe > e0) return rdie(r, "FAILURE: query interval out of range (%s: line %d, %llu>%lld)%s", r->path, r->line, (unsigned long long)r->qe, (long long)e0, sub);
        *pos = (int64_t)r->qs - 1 - s0;
        return 0;
    }
    if (!strcmp(r->q, "*")) return rdie(r, "FAILURE: bad query sequence name (%s: line %d, %s)\nwildcard segment name (*) is not supported for queries with [multi]", r->path, r->line, r->q);
    int32_t k = 0;
    while (k < Qp->n && strcmp(Qp->name[k], r->q)) k++;
    if (k == Qp->n) return rdie(r, "FAILURE: bad query sequence name (%s: line %d, %s)", r->path, r->line, r->q);
    for (; k < Qp->n && !strcmp(Qp->name[k], r->q); k++) {
        int64_t st = Qp->start[k], len = Qp->rlen[k], tru = Qp->tru[k];
        if (r->strand == '+') {
            if ((int64_t)r->qs < st || (int64_t)r->qs >= st + len) continue;
            if ((int64_t)r->qe > st + len - 1) return rdie(r, "FAILURE: query interval out of range (%s: line %d, %llu>%lld)", r->path, r->line, (unsigned long long)r->qe, (long long)(st + len - 1));
            *pos = Qp->sep[k] + 1 + (int64_t)r->qs - st;
        } else {
            int64_t fwd = tru + 1 - (int64_t)r->qe, rs = tru - (st - 1 + len);
            if (fwd < st || fwd >= st + len) continue;
            if ((int64_t)r->qs <= rs) return rdie(r, "FAILURE: query interval out of range (%s: line %d, %llu<%lld)\nminus strand subrange is %lld..%lld", r->path, r->line, (unsigned long long)r->qs, (long long)(rs + 1), (long long)(rs + 1), (long long)(rs + len));
            *pos = Qp->sep[k] + 1 + (int64_t)r->qs - 1 - rs;
        }
        return 0;
    }
    return rdie(r, "FAILURE: bad query sequence name/position (%s: line %d, %s:%llu)", r->path, r->line, r->q, (unsigned long long)r->qs);
}

/* consume the lines of the pass (query name qn, strand) into segs (§3.2-§3.3); 1 on a fatal error */
int hz_gsegrd_pass(hz_gsegrd *r, const hz_gside *T, const hz_gside *Qp, const char *qn, int64_t qlen, char strand, hz_gsegvec *segs)
{
    segs->n = 0;
    while (r->have) {
        if (r->strand != strand) return 0;
        if (!Qp && !(!strcmp(r->q, "*") || !*qn || !strcmp(r->q, qn))) return 0;
        uint64_t n = r->te - r->ts + 1;
        if (r->qe - r->qs + 1 != n) return rdie(r, "FAILURE: intervals have different lengths (%s: line %d, %llu vs. %llu)", r->path, r->line, (unsigned long long)n, (unsigned long long)(r->qe - r->qs + 1));
        int64_t p2 = 0;
        if (query_pos(r, Qp, qlen, &p2)) return 1;
        int all = !T->unpart && !strcmp(r->t, "*");   /* unpartitioned: tName ignored (§3.3) */
        for (int32_t k = 0; k < T->n; k++) {
            int32_t part;
            if (all) {
                int dup = 0;
                for (int32_t j = 0; j < k; j++) if (!strcmp(T->name[j], T->name[k])) dup = 1;
                if (dup) continue;
                part = k;
            } else if (T->unpart) part = 0;
            else {
                part = find_part(T, r->t, r->ts);
                if (part == -1) return rdie(r, "FAILURE: bad target sequence name (%s: line %d, %s)", r->path, r->line, r->t);
                if (part == -2) return rdie(r, "FAILURE: bad target sequence name/position (%s: line %d, %s:%llu)", r->path, r->line, r->t, (unsigned long long)r->ts);
            }
            int64_t st = T->start[part], end = st + T->rlen[part] - 1;
            if ((int64_t)r->ts < st) return rdie(r, "FAILURE: target interval out of range (%s: line %d, %llu<%lld)", r->path, r->line, (unsigned long long)r->ts, (long long)st);
            if ((int64_t)r->te > end) return rdie(r, "FAILURE: target interval out of range (%s: line %d, %llu>%lld)", r->path, r->line, (unsigned long long)r->te, (long long)end);
            hz_gseg g = { T->sep[part] + 1 + (int64_t)r->ts - st, p2, (int64_t)n, r->score };
            if (seg_add(segs, g)) return rdie(r, "hspz gapped: out of memory");
            if (!all) break;
        }
        if (hz_gsegrd_next(r)) return 1;
    }
    return 0;
}

