/* pipeline_load — a job's inputs and work units (see pipeline_impl.h): the target (from its
 * file or an index) read while the query is read, both sides planned and checked, target
 * blocks built, query blocks encoded, then every work unit in the order of spec §2.7. */
#include "pipeline_impl.h"
#include "inputcheck.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Encode block a->q into a's arrays (grown when it is longer than any before).  0 or -1 (out
 * of memory). */
static int qprep_fill(qprep_t *a)
{
    a->L = a->side->block[a->q].len;
    a->ok = 0;
    free(a->u); a->u = NULL; a->nu = 0;
    if ((size_t)a->L + 1 > a->cap) {
        free(a->bytes); free(a->hrc); free(a->fc); free(a->rc);
        a->bytes = a->hrc = NULL;
        a->fc = malloc((size_t)a->L + 1); a->rc = malloc((size_t)a->L + 1);
        if (a->text) { a->bytes = malloc((size_t)a->L + 1); a->hrc = malloc((size_t)a->L + 1); }
        a->cap = a->fc && a->rc && (!a->text || (a->bytes && a->hrc)) ? (size_t)a->L + 1 : 0;
        if (!a->cap) return -1;
    }
    hz_block_encode(a->side, a->q, a->fc, a->rc, a->text ? a->hrc : NULL, a->threads);
    if (a->text) hz_block_bytes(a->side, a->q, a->bytes);
    else {
        int64_t n = hz_block_find(a->side, a->q, 'U', &a->u);
        if (n < 0) return -1;
        a->nu = (size_t)n;
    }
    a->ok = 1;
    return 0;
}


/* The target: read from -r, or verified from the index (and -r, when given, checked against
 * the index's sha256).  Runs in a helper thread while the first query is read. */
typedef struct { run_t *R; char err[2048]; int rc; } tload_arg;

static void *tload_main(void *p)
{
    tload_arg *a = p;
    const hz_opts *o = a->R->o;
    double t0 = hz_now();
    if (!o->index) {
        a->rc = hz_seqset_load_mt(o->target, a->R->nthreads, &a->R->tseqs, a->err, sizeof a->err);
    } else {
        a->rc = hz_index_verify(o->index, a->R->nthreads, a->err, sizeof a->err);
        char hex[65];
        uint64_t bytes;
        if (!a->rc && o->index_check_target) {
            if (hz_sha256_file(o->target, hex, &bytes, NULL))
                a->rc = (snprintf(a->err, sizeof a->err, "%s: cannot read it to check it against the index %s: %s", o->target,
                                  o->index->path, strerror(errno)), -1);
            else if (strcmp(hex, o->index->seqs.sha256))
                a->rc = (snprintf(a->err, sizeof a->err, "%s: not the target of the index %s (sha256 %.12s…, the index was built from %s, sha256 %.12s…)",
                                  o->target, o->index->path, hex, o->index->seqs.path, o->index->seqs.sha256), -1);
        }
    }
    a->R->t_tload = hz_now() - t0;
    return NULL;
}

/* Read job J's query (and, for the first job, the target in parallel; the target's error is
 * reported first), then plan both sides. */
int hz_pl_job_load(run_t *R, qjob_t *J, int first)
{
    const hz_opts *o = R->o;
    double t0 = hz_now();
    tload_arg ta = { R, "", 0 };
    pthread_t lt;
    int threaded = first && pthread_create(&lt, NULL, tload_main, &ta) == 0;
    if (first && !threaded) tload_main(&ta);
    int qrc = hz_seqset_load_mt(J->o.query, R->nthreads, &J->qseqs, R->err, sizeof R->err);
    if (threaded) pthread_join(lt, NULL);
    if (ta.rc) return FAIL(R, "%s", ta.err);
    if (qrc) return -1;
    J->t_load = hz_now() - t0;
    t0 = hz_now();
    if (first) {
        R->tset = o->index ? &o->index->seqs : &R->tseqs;
        J->mi.t = R->tset;
        if (hz_side_plan(&R->tside, R->tset, o->seq_block_size, o->target_prefix, R->err, sizeof R->err)) return -1;
        if (o->index && hz_index_check_side(o->index, &R->tside, R->err, sizeof R->err)) return -1;
        R->tblk = calloc(R->tside.n_block ? R->tside.n_block : 1, sizeof *R->tblk);
        if (!R->tblk) return FAIL(R, "out of memory");
        if (o->index)
            for (size_t r = 0; r < R->tside.n_block; r++) R->tblk[r] = o->index->blk[r];
    }
    if (hz_side_plan(&J->qside, &J->qseqs, o->seq_block_size, o->query_prefix, R->err, sizeof R->err)) return -1;
    if (hz_input_check(&J->o, &R->tside, &J->qside, R->err, sizeof R->err)) return -1;   /* inputcheck.h: before any work */
    if (o->units && hz_unitplan_check_cover(o->units->plan, o, &R->tside, &J->qside, (uint32_t)R->sh.span, R->err, sizeof R->err))
        return -1;
    J->t_plan = hz_now() - t0;
    return 0;
}

/* Target block r ready for seeding: the index's, a kept one, or built now. */
static int target_block(run_t *R, qjob_t *J, size_t r, hz_tblock **out)
{
    hz_tblock *b = &R->tblk[r];
    double ts = hz_now();
    if (!b->codes || b->encoded_only) {
        uint32_t W = (uint32_t)R->sh.span;
        if (R->tside.block[r].len < W && !R->o->quiet)
            fprintf(stderr, "hspz: note: target block %zu (%u bytes) is shorter than the seed span %u: no seeds\n",
                    r, R->tside.block[r].len, W);
        /* kept on the device unless later jobs set this block again (keep_blocks) */
        if (hz_tblock_build(b, &R->tside, r, &R->sh, R->o->step, R->be, R->nthreads, !R->keep_blocks, R->err, sizeof R->err))
            return -1;
    }
    hz_target tgt = { b->codes, b->len, &b->tab, (uint32_t)R->sh.span, &R->xp, R->o->max_hits };
    if (R->be && R->be->set_target(R->be, &tgt, R->err, sizeof R->err)) return -1;
    J->t_table += hz_now() - ts;
    *out = b;
    return 0;
}

/* Make query block q J's current one (encoded now unless it already is). */
static int query_block_set(run_t *R, qjob_t *J, size_t q)
{
    qprep_t *P = &J->qp;
    if (P->ok && P->q == q) return 0;
    double t0 = hz_now();
    P->q = q;
    P->threads = R->nthreads;
    int rc = qprep_fill(P);
    J->t_table += hz_now() - t0;
    return rc ? FAIL(R, "out of memory for query block %zu (%u bytes)", q, J->qside.block[q].len) : 0;
}

/* While the GPU's context is still starting (hz_backend_prewarm: 0.2 s of idle host), the
 * first work unit's blocks are encoded as they would be once it is ready: the target's codes
 * (an index's are there already) and the query's without its text, for seeding on the GPU.
 * Seeds of weight above 13 are seeded on the host, so that query is left to job_execute, which
 * also encodes it again if the backend turns out to seed on the host.  The time counts as
 * seedtable time (J->t_table), as before.  Returns 0, or -1 with R->err (out of memory). */
int hz_pl_encode_ahead(run_t *R, qjob_t *J)
{
    const hz_opts *o = R->o;
    if (!hz_backend_prewarm_running(&R->prewarm)) return 0;   /* no time to spare */
    double t0 = hz_now();
    for (size_t r = 0; r < R->tside.n_block; r++) {
        if (o->units && !hz_unitsel_target(o->units, r)) continue;
        for (size_t q = 0; q < J->qside.n_block; q++) {
            if (o->units && !hz_unitsel_pair(o->units, r, q)) continue;
            if (!o->index && hz_tblock_encode(&R->tblk[r], &R->tside, r, R->nthreads, R->err, sizeof R->err)) return -1;
            J->t_table += hz_now() - t0;
            if (R->sh.weight > 13) return 0;
            J->qp.side = &J->qside;
            J->qp.text = 0;
            return query_block_set(R, J, q);   /* adds its own time to J->t_table */
        }
    }
    return 0;
}

/* Execute J's work units: target blocks outermost, query blocks inside (spec §2.7). */
int hz_pl_job_execute(run_t *R, qjob_t *J)
{
    const hz_opts *o = R->o;
    for (size_t q = 0; q < J->qside.n_block; q++) J->work_total += (double)J->qside.block[q].len * (double)R->tside.n_block;
    J->qp.side = &J->qside;
    int text = !(R->be && R->be->chunk_range);   /* the host seeds */
    if (J->qp.text != text) { J->qp.ok = 0; J->qp.cap = 0; }   /* encoded ahead for the other seeding */
    J->qp.text = text;
    for (size_t r = 0; r < R->tside.n_block; r++) {
        if (o->units && !hz_unitsel_target(o->units, r)) continue;   /* hspz run --plan --unit */
        hz_tblock *tb;
        if (target_block(R, J, r, &tb)) return -1;
        int rc = 0;
        for (size_t q = 0; q < J->qside.n_block && !rc; q++) {
            if (!o->units || hz_unitsel_pair(o->units, r, q)) rc = query_block_set(R, J, q) || hz_pl_pair_run(R, J, r, tb, q);
        }
        if (!R->keep_blocks && !tb->mapped) hz_tblock_free(tb);
        if (rc) return -1;
    }
    if (R->show_progress) fprintf(stderr, "\n");
    return 0;
}
