/* gapped — LASTZ 1.04.22's gapped stage as run with --segments (issue 34).
 *
 * Contract: ../shared/spec/lastz-gapped-spec.md (cited as "spec §N").  One *pass* is one query
 * record on one strand against the whole partitioned target (spec §1.4); this header holds the
 * pass's state and the stage functions:
 *   gapped_anchor.c  segments of a pass -> merged -> anchor cells -> processing order (§3)
 *   gapped_ydrop.c   one-sided y-drop DP with affine gaps, bounds and masks (§4)
 *   gapped_align.c   anchors -> alignments: containment, halves, trim, pieces, neighbours (§5)
 *   gapped_format.c  maf / axt text (§7)
 *   gapped_cmd.c     the `hspz gapped` command (lastz's command line, §0.1 family A)
 *
 * Coordinates: 0-based "concatenated" positions (spec §1.5).  The target is one byte string
 * NUL rec0 NUL rec1 ... NUL; the query of a pass is its record's bytes (reverse complemented
 * on the minus strand) with a NUL before and after.  All ranges are inclusive unless written
 * [b,e).  Scores are int32 as in LASTZ's default build (spec §0).
 */
#ifndef HZ_GAPPED_H
#define HZ_GAPPED_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HZ_G_NEG_INF   (-1932735283)      /* (int)(0.9 * -2^31), spec §0 */
#define HZ_G_WORST     (-2147483647 - 1)
#define HZ_G_VERY_BAD  (-107374182)

/* edit operations; a run is (count << 2) | op */
enum { HZ_OP_SUB = 0, HZ_OP_INS = 1, HZ_OP_DEL = 2 };
/* piece types (spec §5.4) */
enum { HZ_PC_DIAG = 0, HZ_PC_HORZ = 1, HZ_PC_VERT = 2 };

typedef struct { int64_t b1, e1, b2, e2; int type; } hz_gpiece;
typedef struct { int32_t aln, pc; } hz_gref;           /* aln < 0: none */

/* one accepted (or candidate) alignment; s/t = first/last cell, inclusive */
typedef struct {
    int64_t s1, s2, t1, t2;
    int32_t score;
    uint32_t *ops; int32_t nops;
    hz_gpiece *pc; int32_t npc;
    hz_gref bl, br, tl, tr;          /* neighbour snapshots, spec §5.6 */
    int trivial;                     /* LASTZ's trivial self-alignment (§5.10) */
} hz_galn;

/* Scoring of the gapped stage (spec §2): sub[row = target byte][col = query byte]. */
typedef struct {
    int32_t sub[256][256];
    int32_t gap_open, gap_extend;    /* O, E */
    int32_t ydrop, gappedthresh;     /* Y, L */
    int32_t hspthresh, xdrop;        /* header; xdrop is interpolation's x-drop (§6.3) */
    int32_t inner;                   /* H of --inner (§6); 0 = off */
    int32_t msub[256][256];          /* masked matrix of interpolation's seed search (§2.4) */
    char rows[16]; int nrows;        /* matrix letters for the axt/maf header (§7.3) */
    int32_t hdr[16][16];
    int hsp_set;                     /* score file: hsp_threshold given */
    char rowch[72], colch[72];       /* lastz's rowChars/colChars: the matrix letters in file order,
                                      * then their lower case; "ACGTacgt" default (a matrix is
                                      * always a DNA one: hz_gscore_load refuses quantum ones) */
    int badcol;                      /* lastz's badCol: the bad_score letter ('X') */
    const char *seed;                /* axt+ header's seed line text (a score file's seed/T; §7.3) */
    uint32_t step;                   /* axt+ header's step (a score file's step/Z; default 1) */
} hz_gscore;

/* Build HOXD70 with O=400 E=30 (spec §2.1); ydrop/gappedthresh from LASTZ's defaults. */
void hz_gscore_default(hz_gscore *sc);
/* Derive sc->msub from sc->sub (spec §2.4, lastz's masked_score_set); call after the file is
 * read and before hz_gscore_ambiguous, as lastz does. */
void hz_gscore_mask(hz_gscore *sc);
/* Apply --ambiguous=n[,R,P] or iupac[,R,P] (spec §2.3; lastz's ambiguate_iupac then ambiguate_n,
 * over the matrix alphabets rowch/colch, to sub and msub).  Returns 0, -1 on a bad value. */
int hz_gscore_ambiguous(hz_gscore *sc, const char *arg);
/* Read a LASTZ score file (spec §2.2) into sc (after hz_gscore_default).  file_y/file_l get
 * y_drop / gapped_threshold when the file sets them (else unchanged).  Settings are read as
 * lastz 1.04.22's read_score_set reads them: each name once, score values as lastz's
 * string_to_score (integer, decimal rounded, exponent, 0x, K/M/G), step an integer, seed/T one
 * of lastz's four seeds (shown in the axt+ header); seeding-only settings change no alignment.
 * Returns 0, -1 with lastz's message (without "FAILURE: ") in err, or -2 with a line for a
 * setting hspz gapped does not read (bottleneck: run lastz).  path is opened; messages say name
 * (the file as the command line names it). */
int hz_gscore_load(hz_gscore *sc, const char *path, const char *name, int32_t *file_y, int32_t *file_l,
                   char *err, size_t errlen);

/* The query bytes grouped by their column of sub (bytes b, b' with sub[r][b] = sub[r][b'] for
 * every r share a class): the DP's row of substitution scores is then a 16-entry table per row
 * looked up by class (gapped_row.c's block path).  n = 0 where there are more than 16 classes
 * (the byte path runs). */
typedef struct { uint8_t cls[256]; uint8_t rep[16]; int n; } hz_gqcls;
/* Fill q from sc->sub (after every change to sc->sub).  Returns q->n. */
int hz_gscore_qclasses(const hz_gscore *sc, hz_gqcls *q);

/* A pass: sequences and state shared by the stages. */
typedef struct {
    const uint8_t *T; int64_t tlen;          /* T[0] = NUL, T[tlen] = final NUL */
    const int64_t *sep; int32_t npart;       /* sep[k] = NUL before partition k; sep[npart] = tlen */
    const uint8_t *Q; int64_t qlen;          /* Q[-1] and Q[qlen] are NUL */
    const int64_t *qsep; int32_t nqpart;     /* partitioned query ([multiple], §1.5): like sep, with
                                              * Q[0] the NUL before partition 0; NULL: one record */
    const hz_gscore *sc;
    int32_t thresh;                          /* keep alignments scoring >= thresh (L, or H in boxes) */
    int64_t tb_cap;                          /* traceback cells (spec §4.2 CAP) */
    FILE *diag;                              /* truncation messages (stderr) */
    int *reported_trunc;                     /* "first time only" note, file-wide */
    const int32_t *trivial; int32_t ntrivial; /* (target, query) partition pairs that are identical:
                                              * trivial self-alignments (§5.10); query partition
                                              * -1 = the whole unpartitioned query */
    int32_t tdiag;                           /* added to target positions in truncation messages:
                                              * -1 for an unpartitioned target (lastz's buffer has no
                                              * NUL before it there), else 0 */
    const hz_gqcls *qcls;                    /* sc's query classes (hz_gscore_qclasses) or NULL:
                                              * the same bytes either way, classes are faster */
} hz_gpass;

/* The partition k (0 .. n-1) holding concatenated position p, given the separators sep[0..n]
 * (partition k is [sep[k]+1, sep[k+1]); spec §1.5).  For the target pass sep/npart, for a
 * partitioned query qsep/nqpart.  p before sep[1] gives 0; no errors. */
static inline int32_t hz_gapped_part(const int64_t *sep, int32_t n, int64_t p)
{
    int32_t lo = 0, hi = n - 1;
    while (lo < hi) { int32_t m = (lo + hi + 1) / 2; if (sep[m] < p) lo = m; else hi = m - 1; }
    return lo;
}

/* an anchor cell with its segment score (spec §3.5-§3.6) */
typedef struct { int64_t a1, a2; int32_t score; } hz_ganchor;
/* a segment in concatenated coordinates (spec §3.3) */
typedef struct { int64_t p1, p2, n; int32_t score; } hz_gseg;

/* Merge a pass's segments (spec §3.4; only when merge is set, interpolation does not), reduce
 * each to its peak cell (§3.5) and sort the anchors into processing order (§3.6).  segs is
 * reordered; anchors are malloc'ed into *out.  Returns the anchor count, -1 when out of memory. */
int64_t hz_gapped_anchors(const hz_gpass *P, hz_gseg *segs, int64_t n, int merge, hz_ganchor **out);

/* Growable scratch of one-sided extensions (reused between calls; freed by hz_gwork_free). */
typedef struct hz_gwork {
    int32_t *C, *D; int64_t *mask; int64_t cap;
    uint8_t *tb; int64_t tbcap;
    int64_t *tbrow; int64_t rowcap;
    int64_t gen;
    void *act; int64_t nact, actcap;
    int trunc;                       /* set when a half stopped at the traceback limit (§4.7) */
    int rec;                         /* record the explored region (speculative runs, §12) */
    int64_t *rg[2], rgcap[2], nrow[2];   /* per half (index rev): per block of HZ_G_RGB rows the
                                          * smallest LY and largest RY (inclusive) of the rows
                                          * whose masks were built (§4.5); nrow = rows 1..nrow */
    int (*poll)(void *ctx, const struct hz_gwork *w, int rev);  /* speculative runs (§12): asked
                                          * every HZ_G_POLL rows of half rev (rows 1..nrow[rev]
                                          * explored so far); nonzero stops the extension,
                                          * whose result is then discarded (hz_gapped_extend
                                          * returns 3) */
    void *pollctx;
    int stopped;                     /* set when poll stopped the extension */
    int64_t cells;                   /* DP cells computed (statistics, never reset here) */
    int32_t *sv;                     /* hz_gapped_row's scratch, cap + HZ_G_SLACK values */
    uint8_t *qc; int64_t nqc;        /* the half's query classes by column (qc[c]: B(c+1)'s,
                                      * c < nqc), cap + HZ_G_SLACK bytes */
    hz_gref nb[2];                   /* the neighbours (left, right; §5.1) the last
                                      * hz_gapped_extend that was not contained ran with */
} hz_gwork;
#define HZ_G_RGB 32
#define HZ_G_POLL 256
/* columns of slack past cap in hz_gwork's sv and qc (a block of 16 may read and write past end) */
#define HZ_G_SLACK 64
void hz_gwork_free(hz_gwork *w);

/* One row r of the y-drop DP (spec §4.3, LASTZ's cell) over columns [lo, end): C, D (index =
 * column) and tp (tp[col] = traceback byte of (r, col)) are updated in place.  bp points at
 * B(lo+1), step st (+1 forward, -1 reverse half); sub = the 256 scores of A(r); mk: the mask
 * array when a §4.5 record is active (cells with mk[col] == tag are pruned), else NULL.  sv:
 * scratch of at least end-lo+16 values for the block path, or NULL to run cell by cell (the
 * caller passes NULL unless hz_gapped_row_vec_ok).  In: lo, best (the extension's best so
 * far).  Out: best and bc (the row's last column that reached best, -1 when none), LY (the
 * left bound after pruning), kept (the last column not pruned; lo when none).  Returns I
 * after the last column.  gapped_row.c. */
typedef struct {
    int32_t *C, *D; uint8_t *tp; const uint8_t *bp; int64_t st; const int32_t *sub;
    const int64_t *mk; int64_t tag; int32_t E, gOE, Y, best; int64_t lo, bc, LY, kept;
    int32_t *sv;
    const uint8_t *qc; const int32_t *tab;   /* or: qc[k] the class of B(lo+k+1) for k < end-lo
                                              * (readable HZ_G_SLACK bytes past), tab[16] the
                                              * row's score by class; NULL: sub[*bp] */
    int portable;      /* tests: 1 = the portable vector instance, 2 = AVX2 even where AVX-512 runs */
} hz_grow;
int32_t hz_gapped_row(hz_grow *R, int64_t end);
/* 1 when the block path applies to gap open O, extend E and y-drop Y (scores in range) */
int hz_gapped_row_vec_ok(int32_t O, int32_t E, int32_t Y);

/* The list of accepted alignments of a pass (spec §5 KEPT and BYEND). */
typedef struct {
    hz_galn *a; int32_t n, cap;
    int32_t *kept;   /* indices by start1 ascending, newest first among equals */
    int32_t *byend;  /* indices by end1 descending, newest first among equals */
    int32_t nout;    /* kept[0..nout) is the pass's output list (§5.7); hz_gapped_pass sets n */
} hz_gset;
void hz_gset_free(hz_gset *S);

/* One-sided extension (spec §4) of anchor (a1,a2) toward smaller (rev=1, anchor cell
 * included) or larger positions (rev=0).  lo/hi: [low1,high1) target partition, [low2,high2)
 * query range.  left/right: the anchor's neighbours (spec §5.1).  cand: candidate alignments
 * for masking (§5.2), ncand of them, in the order they are activated.  Appends the path (in
 * traceback order, see §4.6) to the run list (ops, nops, opcap); *er,*ec get the end cell.
 * Returns the score, or HZ_G_WORST on out of memory. */
int32_t hz_gapped_half(const hz_gpass *P, hz_gwork *w, const hz_gset *S, int rev,
                       int64_t a1, int64_t a2, int64_t low1, int64_t high1,
                       int64_t low2, int64_t high2, hz_gref left, hz_gref right,
                       const int32_t *cand, int32_t ncand,
                       uint32_t **ops, int32_t *nops, int32_t *opcap, int64_t *er, int64_t *ec);

/* Run the anchors of one pass (spec §5.9) into S (which must be empty).  Returns 0, -1 on
 * out of memory. */
int hz_gapped_pass(const hz_gpass *P, hz_gwork *w, const hz_ganchor *an, int64_t nan, hz_gset *S);

/* The steps of hz_gapped_pass, for the speculative scheme (gapped_par.c, spec §12). */
/* Reserve room for n alignments so S->a is never moved (workers read it while it grows). */
int hz_gset_reserve(hz_gset *S, int64_t n);
/* Insert the pass's trivial self-alignments (§5.10) into the empty S.  0, -1 on OOM. */
int hz_gapped_trivials(const hz_gpass *P, hz_gset *S);
/* One anchor (a1,a2) against the accepted set S (§5.1-§5.5): 2 = contained (skipped), 0 = empty
 * or below the threshold, 1 = *G is an alignment to accept (ops, pieces malloc'ed, neighbour
 * snapshots not yet set), 3 = stopped by w->poll (no result, nothing to free), -1 = out of memory.  rops, rcap: scratch kept between calls. */
int hz_gapped_extend(const hz_gpass *P, hz_gwork *w, const hz_gset *S, int64_t a1, int64_t a2,
                     hz_galn *G, uint32_t **rops, int32_t *rcap);
/* §5.1: the first piece of G (any type) with e1 >= row, its index returned (G->npc: none), and
 * in *x its column offset at that row relative to column c (DIAG: on its diagonal; VERT/HORZ:
 * its b2); 0-based concatenated coordinates.  No errors. */
int32_t hz_gapped_row_offset(const hz_galn *G, int64_t row, int64_t c, int64_t *x);
/* §5.1 for anchor (a1,a2) in S: 1 when an alignment of S contains it (skipped), else 0 with its
 * nearest left and right neighbours (aln -1: none).  S->kept orders S->a[0..S->n). */
int hz_gapped_neighbours(const hz_gset *S, int64_t a1, int64_t a2, hz_gref *left, hz_gref *right);
/* Spec §12, the test that keeps a speculative result whose row an alignment of S spans: 1 when
 * S could change the result of anchor (a1,a2) that was extended with neighbours run[0] (left),
 * run[1] (right) and explored rg[h] / nrow[h] (hz_gwork's region, index rev): S contains the
 * anchor, or S gives other neighbours and the result ran with some, or the §4.4 bounds of S's
 * neighbours reach a row's explored columns (hz_gapped_bounds_reach).  0: the DP, and so the
 * result, is the same against S.  No errors. */
int hz_gapped_nb_changes(const hz_gpass *P, const hz_gset *S, int64_t a1, int64_t a2, const hz_gref run[2],
                         int64_t *const rg[2], const int64_t nrow[2]);
/* 1 when the §4.4 bounds of neighbours left/right (in S) could change half rev of anchor
 * (a1,a2) (N query columns, §4.1) that ran with no neighbours and explored rows 1..nrow with,
 * per block b of HZ_G_RGB rows, LY >= rg[2b] and RY <= rg[2b+1] (inclusive): the L bound passes
 * a row's LY, the R bound comes below its RY (or to 0), or the R-1 cap of §4.3's row tail comes
 * below the next row's RY.  0: every bound stays outside, the DP is unchanged.  gapped_ydrop.c. */
int hz_gapped_bounds_reach(const hz_gpass *P, const hz_gset *S, int rev, int64_t a1, int64_t a2, int64_t N,
                           hz_gref left, hz_gref right, const int64_t *rg, int64_t nrow);
/* Accept G into S (§5.6 neighbours, KEPT/BYEND insertion); S takes G's buffers.  0, -1 OOM. */
int hz_gapped_accept(hz_gset *S, hz_galn *G);
/* Spec §12's commit check (gapped_par.c, the file comment's (a) and (b)) of a result of anchor
 * (a1,a2) made against S's first nsnap alignments, whose run left its neighbours (w->nb) and
 * explored region (w->rg, w->nrow; w->rec set) in w: nonzero when S->a[nsnap..S->n) could
 * change it (1: a §4.5 mask of an alignment that does not span the anchor's row can land in the
 * region, (b); 2: a spanning one contains the anchor or changes its neighbours or their §4.4
 * bounds, (a)), 0 when the result is exact against S.  No errors. */
int hz_gapped_spec_check(const hz_gpass *P, const hz_gset *S, int32_t nsnap, int64_t a1, int64_t a2, const hz_gwork *w);
/* hz_gapped_pass (the same S and bytes) that also measures, per extended anchor, the shortest
 * prefix of the accepted alignments giving its result, and writes one line to log: the serial
 * time and the pass's lower bound with unlimited cores under §12 for the CPU and a device
 * (gapped_chain.c; hspz gapped runs it for HSPZ_GAPPED_STATS=chain on one thread without a device).  0, -1 on out of memory. */
int hz_gapped_pass_chain(const hz_gpass *P, hz_gwork *w, const hz_ganchor *an, int64_t nan, hz_gset *S, FILE *log);
/* hz_gapped_pass on nthreads threads (spec §12 speculative scheme): anchors are extended
 * speculatively against the set accepted when they start, and committed in §3.6 order; a
 * result that an alignment accepted meanwhile could have changed is recomputed.  S and the
 * bytes are those of hz_gapped_pass for every nthreads.  *nredo (when not NULL) gets the number
 * of speculative results that were recomputed.  0, -1 on out of memory. */
int hz_gapped_pass_par(const hz_gpass *P, hz_gwork *w, const hz_ganchor *an, int64_t nan,
                       hz_gset *S, int nthreads, int64_t *nredo);
/* A speculative result made elsewhere (a device, gapped_dev.h) for anchor k of the pass: as
 * hz_gapped_extend would return it (0, 1 with *G) against an EMPTY set, with the explored region
 * in w->rg / w->nrow as a run with w->rec set records it; -1 when there is none. */
typedef int (*hz_gpre_fn)(void *ctx, int64_t k, const hz_gpass *P, hz_gwork *w, hz_galn *G);
/* hz_gapped_pass_par taking pre's results where it has one (checked at commit against every
 * accepted alignment, redone on the CPU when one could have changed it; spec §12).  With pre
 * the speculative scheme runs for nthreads = 1 too.  Same S and bytes. */
int hz_gapped_pass_pre(const hz_gpass *P, hz_gwork *w, const hz_ganchor *an, int64_t nan,
                       hz_gset *S, int nthreads, int64_t *nredo, hz_gpre_fn pre, void *prectx);
/* How many of a pass's nthreads workers may claim anchors now (clamped to 1..nthreads); asked
 * again by idle workers, so a running pass takes up threads that other passes or lines free
 * (gapped_cmd.c).  Never changes S or the bytes, only how many threads compute. */
typedef int (*hz_gallow_fn)(void *ctx);
/* hz_gapped_pass_pre with nthreads workers of which allow(allowctx) may work at a time (allow
 * NULL: all).  Same S and bytes as hz_gapped_pass.  0, -1 on out of memory. */
int hz_gapped_pass_dyn(const hz_gpass *P, hz_gwork *w, const hz_ganchor *an, int64_t nan,
                       hz_gset *S, int nthreads, hz_gallow_fn allow, void *allowctx,
                       int64_t *nredo, hz_gpre_fn pre, void *prectx);
/* The tail of hz_gapped_extend (§5.3-§5.5): append the right half's run list rops[0..nr)
 * (traceback order) to G's (the left half's, capacity *ocap), trim, pieces, the empty /
 * threshold test.  G's s, t and score set.  1 = keep, 0 = drop (buffers freed), -1 = OOM. */
int hz_gapped_finish(const hz_gpass *P, hz_galn *G, int32_t *ocap, const uint32_t *rops, int32_t nr);

/* Names and lengths the formatter needs for the records of a pass. */
typedef struct {
    const char *const *tname; const int64_t *ttrue, *tstart;  /* per target partition: short name,
                                                            * record length, 1-based first loaded base */
    const char *const *qname; const int64_t *qtrue, *qstart;  /* per query partition (one entry when
                                                            * the query is not partitioned) */
    int minus;
} hz_gnames;

/* Write the pass's alignments L[0..n) (KEPT order, spec §5.7, or §6.4's merged list) as maf
 * (§7.2) or axt (§7.3, plus = axt+ comments; *axt_n is the file-wide running number).
 * Returns 0, -1 on a write error. */
int hz_gapped_write_maf(FILE *f, const hz_gpass *P, const hz_galn *const *L, int64_t n, const hz_gnames *nm);
int hz_gapped_write_axt(FILE *f, const hz_gpass *P, const hz_galn *const *L, int64_t n, const hz_gnames *nm,
                        int plus, int64_t *axt_n);

/* Interpolation (--inner=H, spec §6) of one pass: searches the windows around the pass's outer
 * alignments S (KEPT order) and returns in *out (malloc'ed, n in *nout) the merged list of
 * §6.4: outer and inner alignments by start1, outer first on ties.  Inner alignments are owned
 * by *inner (free with hz_gset_free).  Returns 0, -1 on out of memory. */
int hz_gapped_interpolate(const hz_gpass *P, hz_gwork *w, const hz_gset *S, hz_gset *inner,
                          const hz_galn ***out, int64_t *nout);
/* The axt/maf job header (§7.2-§7.4); args = lastz's argument words without the sequences. */
int hz_gapped_write_header(FILE *f, const hz_gscore *sc, int maf, int plus, char **args, int nargs);

/* A loaded sequence side as one partitioned string (§1.5): NUL rec0 NUL rec1 ... NUL; per
 * partition the short name (§1.3), loaded length, 1-based first loaded base, record length. */
typedef struct {
    uint8_t *T; int64_t len; int64_t *sep; int32_t n;
    char **name; int64_t *rlen, *start, *tru;
    int unpart;                      /* a target without [multiple]: one record, not partitioned;
                                      * segment lines' tName is ignored (spec §3.3) */
} hz_gside;

/* The segments file reader (gapped_segfile.c, spec §3.1-§3.3): the current line's fields when
 * have is set; FAILURE lines go to msg (stderr when NULL). */
typedef struct {
    FILE *f; const char *path; int line, have, eof;
    char *buf; size_t cap;
    char *t, *q; uint64_t ts, te, qs, qe; char strand; int32_t score;
    FILE *msg;
    int64_t qfrom, qtrue;            /* unpartitioned query with a [s,e] sub-range: s (1-based) and the
                                      * record's length (§3.3); qfrom 0: the whole record */
} hz_gsegrd;
typedef struct { hz_gseg *v; int64_t n, cap; } hz_gsegvec;

/* Read the next line with fields (r->have = 1) or reach the end (r->eof).  Returns 0, or 1
 * after a FAILURE line (lastz's wording) for a malformed line. */
int hz_gsegrd_next(hz_gsegrd *r);
/* Consume the lines of one pass (§3.2: query name qn / strand; Qp = partitioned query or NULL
 * for one record of length qlen) into segs as concatenated coordinates (§3.3).  The first line
 * of another pass stays pending.  Returns 0, or 1 after a FAILURE line. */
int hz_gsegrd_pass(hz_gsegrd *r, const hz_gside *T, const hz_gside *Qp, const char *qn, int64_t qlen,
                   char strand, hz_gsegvec *segs);


#endif
