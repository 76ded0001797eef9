/* gapped_format — maf and axt text of a pass's alignments
 * (../shared/spec/lastz-gapped-spec.md §7). */
#include <stdlib.h>
#include <string.h>
#include "gapped.h"

static int digits(int64_t v) { int d = 1; while (v >= 10) { v /= 10; d++; } return d; }

static int printable(int c) { return c >= 32 && c < 127 ? c : '*'; }

/* the two text rows of an alignment (§7.1): target row when which = 0, query row when 1 */
static void put_row(FILE *f, const hz_gpass *P, const hz_galn *G, int which)
{
    int64_t p1 = G->s1, p2 = G->s2;
    for (int32_t k = 0; k < G->nops; k++) {
        int op = G->ops[k] & 3; int64_t n = G->ops[k] >> 2;
        for (int64_t j = 0; j < n; j++) {
            int c;
            if (op == HZ_OP_SUB) c = which ? P->Q[p2 + j] : P->T[p1 + j];
            else if (op == HZ_OP_INS) c = which ? P->Q[p2 + j] : '-';
            else c = which ? '-' : P->T[p1 + j];
            putc(printable(c), f);
        }
        if (op != HZ_OP_INS) p1 += n;
        if (op != HZ_OP_DEL) p2 += n;
    }
    putc('\n', f);
}

/* 1-based starts and lengths of §7.1; part / qp: the target and query partitions */
static void coords(const hz_gpass *P, const hz_galn *G, const hz_gnames *nm, int32_t *part, int32_t *qp,
                   int64_t *S1, int64_t *S2, int64_t *len1, int64_t *len2)
{
    *part = hz_gapped_part(P->sep, P->npart, G->s1);
    *S1 = G->s1 - (P->sep[*part] + 1) + nm->tstart[*part];
    *len1 = G->t1 - G->s1 + 1; *len2 = G->t2 - G->s2 + 1;
    int64_t o2 = 0, l2 = P->qlen;
    *qp = 0;
    if (P->qsep) {
        *qp = hz_gapped_part(P->qsep, P->nqpart, G->s2);
        o2 = P->qsep[*qp] + 1; l2 = P->qsep[*qp + 1] - o2;
    }
    *S2 = nm->minus ? (G->s2 - o2) + nm->qtrue[*qp] + 2 - (nm->qstart[*qp] + l2) : G->s2 - o2 + nm->qstart[*qp];
}

int hz_gapped_write_maf(FILE *f, const hz_gpass *P, const hz_galn *const *L, int64_t n, const hz_gnames *nm)
{
    for (int64_t k = 0; k < n; k++) {
        const hz_galn *G = L[k];
        int32_t part, qp; int64_t S1, S2, l1, l2;
        coords(P, G, nm, &part, &qp, &S1, &S2, &l1, &l2);
        const char *tn = nm->tname[part], *qn = nm->qname[qp];
        int nw = (int)(strlen(tn) > strlen(qn) ? strlen(tn) : strlen(qn));
        int ws = digits(S1) > digits(S2) ? digits(S1) : digits(S2);
        int wl = digits(l1) > digits(l2) ? digits(l1) : digits(l2);
        int64_t t1 = nm->ttrue[part], t2 = nm->qtrue[qp];
        int wt = digits(t1) > digits(t2) ? digits(t1) : digits(t2);
        fprintf(f, "a score=%d\n", G->score);
        fprintf(f, "s %-*s %*lld %*lld + %*lld ", nw, tn, ws, (long long)(S1 - 1), wl, (long long)l1, wt, (long long)t1);
        put_row(f, P, G, 0);
        fprintf(f, "s %-*s %*lld %*lld %c %*lld ", nw, qn, ws, (long long)(S2 - 1), wl, (long long)l2,
                nm->minus ? '-' : '+', wt, (long long)t2);
        put_row(f, P, G, 1);
        putc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

static int is_acgt(int c) { c &= ~0x20; return c == 'A' || c == 'C' || c == 'G' || c == 'T'; }

/* "# identity=" and "# coverage=" of axt+ (§7.5) */
static void axt_comments(FILE *f, const hz_gpass *P, const hz_galn *G, int64_t trec, int64_t qrec,
                         int64_t l1, int64_t l2)
{
    int64_t m = 0, d = 0, p1 = G->s1, p2 = G->s2;
    for (int32_t k = 0; k < G->nops; k++) {
        int op = G->ops[k] & 3; int64_t n = G->ops[k] >> 2;
        if (op == HZ_OP_SUB)
            for (int64_t j = 0; j < n; j++) {
                int a = P->T[p1 + j], b = P->Q[p2 + j];
                if (is_acgt(a) && is_acgt(b)) { d++; if ((a & ~0x20) == (b & ~0x20)) m++; }
            }
        if (op != HZ_OP_INS) p1 += n;
        if (op != HZ_OP_DEL) p2 += n;
    }
    fprintf(f, "# identity=%lld/%lld", (long long)m, (long long)d);
    if (d) fprintf(f, " (%.1f%%)", 100.0 * (double)m / (double)d);
    putc('\n', f);
    if (trec < qrec) { m = l1; d = trec; } else { m = l2; d = qrec; }
    fprintf(f, "# coverage=%lld/%lld", (long long)m, (long long)d);
    if (d) fprintf(f, " (%.1f%%)", 100.0 * (double)m / (double)d);
    putc('\n', f);
}

int hz_gapped_write_axt(FILE *f, const hz_gpass *P, const hz_galn *const *L, int64_t n, const hz_gnames *nm,
                        int plus, int64_t *axt_n)
{
    for (int64_t k = 0; k < n; k++) {
        const hz_galn *G = L[k];
        int32_t part, qp; int64_t S1, S2, l1, l2;
        coords(P, G, nm, &part, &qp, &S1, &S2, &l1, &l2);
        if (plus) axt_comments(f, P, G, nm->ttrue[part], nm->qtrue[qp], l1, l2);
        fprintf(f, "%lld %s %lld %lld %s %lld %lld %c %d\n", (long long)(*axt_n)++, nm->tname[part],
                (long long)S1, (long long)(S1 + l1 - 1), nm->qname[qp], (long long)S2, (long long)(S2 + l2 - 1),
                nm->minus ? '-' : '+', G->score);
        put_row(f, P, G, 0);
        put_row(f, P, G, 1);
        putc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

int hz_gapped_write_header(FILE *f, const hz_gscore *sc, int maf, int plus, char **args, int nargs)
{
    if (maf) fputs("##maf version=1 scoring=lastz.v1.04.22\n", f);
    fputs("# lastz.v1.04.22 ", f);
    for (int i = 0; i < nargs; i++) fprintf(f, "%s ", args[i]);
    fputs("\n#\n", f);
    fprintf(f, "# hsp_threshold      = %d\n# gapped_threshold   = %d\n", sc->hspthresh, sc->gappedthresh);
    fprintf(f, "# x_drop             = %d\n# y_drop             = %d\n", sc->xdrop, sc->ydrop);
    fprintf(f, "# gap_open_penalty   = %d\n# gap_extend_penalty = %d\n", sc->gap_open, sc->gap_extend);
    fputs("#    ", f);
    for (int c = 0; c < sc->nrows; c++) fprintf(f, " %4c", sc->rows[c]);
    putc('\n', f);
    for (int r = 0; r < sc->nrows; r++) {
        fprintf(f, "#   %c", sc->rows[r]);
        for (int c = 0; c < sc->nrows; c++) fprintf(f, " %4d", sc->hdr[r][c]);
        putc('\n', f);
    }
    if (plus) fprintf(f, "# seed=%s\n# step=%u\n", sc->seed, sc->step);   /* a score file's seed / step */
    return ferror(f) ? -1 : 0;
}
