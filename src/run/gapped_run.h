/* gapped_run — `hspz run --gapped`: the gapped stage (LASTZ 1.04.22's alignments, issue 34) on
 * the run's own folder, from the sequences the run loaded (docs/gapped.md "hspz run --gapped").
 *
 * The stage runs every line of the folder's lastz-commands.txt exactly as `hspz gapped --outdir`
 * does (the same code: hz_gapped_outdir_run), so the bytes are those of `hspz run` followed by
 * `hspz gapped --outdir`, and those of lastz on the package (spec
 * ../shared/spec/lastz-gapped-spec.md §0.1 family A).
 */
#ifndef HZ_GAPPED_RUN_H
#define HZ_GAPPED_RUN_H
#include <stddef.h>
#include <time.h>
#include "options.h"
#include "seqio.h"

/* What the stage wrote: the number of commands and the names (relative to DIR) of their
 * --output and 2> files, in line order; free with hz_gapped_files_free. */
typedef struct { size_t ncmd; char **name; size_t n; } hz_gapped_files;
void hz_gapped_files_free(hz_gapped_files *f);

/* Every line of DIR/lastz-commands.txt (gapped_cmd.c, `hspz gapped --outdir`): its --output
 * and 2> files written in DIR into temporaries (O_EXCL|O_NOFOLLOW) that are renamed to their
 * names when every line has ended (over an existing regular file only with force; never into
 * one); outputs outside DIR, outputs that are ts/qs's files (by identity) and, err NULL, an
 * existing gapped-manifest.json without force are refused before any line runs; the sequences ts / qs are the
 * run's records with their -T/-Q name prefixes already on the names, read as hspz's 2bit files
 * hold them (letters other than ACGTacgt as N / n; the bytes are not changed); up to `threads`
 * lines at once on worker processes, threads / lines-at-once threads each; device: where the
 * extensions run (gapped_dev.h: "cpu", "cuda", "auto"; NULL = cpu), never changes a byte; tbword
 * (NULL: none) is appended to every line's words (`--allocate:traceback=V`: the last one lastz reads).  *files (if not
 * NULL) gets the commands and their files.  err NULL: messages on stderr as `hspz gapped` prints them, every
 * line is tried; err given: the first failed line's message (with the first line of its 2> file)
 * into err, no further line is started, and nothing is placed.  err NULL: SIGINT, SIGTERM and
 * SIGHUP are blocked and taken while the lines run: the lines are killed, every temporary is
 * removed, one line "hspz: interrupted by signal N; ..." is printed and 128 + N returned (the
 * signals stay blocked after the return).  Returns 0, 1, or 128 + N. */
int hz_gapped_outdir_run(const char *dir, const hz_seqset *ts, const hz_seqset *qs, int threads, const char *device,
                         const char *tbword, int force, hz_gapped_files *files, char *err, size_t errlen);

/* DIR/gapped-manifest.json of `hspz gapped --outdir` (docs/manifest.md "gapped-manifest.json"):
 * the command line, the -r/-q inputs (path, bytes, sha256), the settings with their sources
 * (tbword: the traceback word appended to every line, or NULL),
 * every file of f with bytes, lines and sha256, and the times (load, gapped, wall; seconds).
 * Written atomically (temporary file, then placed; over an existing one only with force).
 * Returns 0, or -1 with err set. */
int hz_gapped_manifest_write(const char *dir, int argc, char **argv, const hz_seqset *t, const hz_seqset *q,
                             const char *tprefix, const char *qprefix, int threads, int threads_given,
                             const char *tbword, int force, const hz_gapped_files *f, double t_load, double t_gapped, time_t start,
                             char *err, size_t errlen);

/* --gapped's contradictions of the command line, before any work (exit 2, README "Exit
 * status"): --nogapped, -Z (no OUTDIR is written), a --format hspz gapped does not write (maf-,
 * maf, axt, axt+ are), --ambiguous together with --inner.  Returns 0, or 2 with err set. */
int hz_gapped_precheck(const hz_opts *o, char *err, size_t errlen);

/* The stage on the run's finished folder dir (lastz-commands.txt and the segments files,
 * after -D's split): t and q are the run's loaded target and query (hz_seqset, names without
 * prefixes); o gives -T/-Q.  device NULL or "cpu": the lines run on the CPU from t and q, in
 * worker processes forked from this one.  "cuda" / "auto" (the HSP stage ran on a GPU): this
 * process holds a CUDA context, which a forked process cannot use, so the stage runs in a
 * helper, a new image of this program (hz_gapped_stage_main) that reads o->target and qpath
 * (the run's -r and this job's query file) again, forks the lines and opens the device in each
 * (gapped_dev.h; "auto" computes on the CPU where it cannot); the bytes are the same.  *files
 * gets the commands and their files (hz_gapped_files_free), *secs the stage's wall time.
 * Returns 0, or -1 with err set (one line). */
int hz_gapped_run(const hz_opts *o, const char *dir, const hz_seqset *t, const hz_seqset *q, const char *qpath,
                  int threads, const char *device, hz_gapped_files *files, double *secs, char *err, size_t errlen);

/* `hspz __gapped-stage DIR TARGET QUERY TPREFIX QPREFIX THREADS DEVICE TBWORD FD TSHA QSHA` (the
 * helper of hz_gapped_run, never typed by users): loads TARGET and QUERY (refused unless their
 * sha256 is TSHA / QSHA, the bytes the run read; "" = not checked), puts the prefixes on the names,
 * runs hz_gapped_outdir_run on DIR (err mode: nothing placed after a failed line) and writes
 * its result on descriptor FD: "rc N", "ncmd N", one "f NAME" per file, "err MESSAGE" (lines).
 * Returns 0 when it wrote the result, 2 on a bad call. */
int hz_gapped_stage_main(int argc, char **argv);

#endif
