/* package — output packaging: diagonal partition, single segments file, Galaxy data tarball.
 *
 * Follows ../shared/spec/kegalign-hsp-spec.md §7.3 (diagonal partition), §7.5 (package_output),
 * §7.6 (run_lastz_tarball) and kegalign-v03-delta.md §11 (v0.3.x conventions), with every
 * nondeterminism of KegAlign's Python scripts removed:
 *
 *  --diagonal-partition N  every lastz command whose segments file has more than N lines is
 *      replaced by commands on <base>.split<k>.segments (k from 1) as diagonal_partition.py
 *      does; non-skip (target, query) pairs are cut in order of first appearance in the file
 *      (KegAlign iterates a Python set there).  lastz-commands.txt is rewritten.
 *  --single-file  writes all.segments next to the other files: every segment line of the run,
 *      grouped by query record in query-file order, plus lines before minus lines for each
 *      query; inside a group the lines keep the order of the files (sorted by name).  This is
 *      the order LASTZ requires when it reads one segments file for a whole query file
 *      (`lastz TARGET[multiple] QUERY --segments=all.segments`).
 *  --tarball[=PATH]  writes a reproducible gzip'd GNU tar (default OUTDIR.tar.gz, next to
 *      OUTDIR) with Galaxy's data package layout: galaxy/commands.json, galaxy/format.txt,
 *      galaxy/files/<data-folder>ref.2bit and query.2bit (written by hspz from the loaded
 *      inputs, with the prefixed record names), the .name files, every .segments file the
 *      commands use, and galaxy/files/data/scores.txt with --scoring.  Members are sorted by
 *      name, directories 0755, files 0644, mtime 0, uid/gid 0, no user/group names; the gzip
 *      header has no time stamp and no file name.
 */
#ifndef HZ_PACKAGE_H
#define HZ_PACKAGE_H
#include <pthread.h>
#include <stddef.h>
#include "options.h"
#include "plan.h"
#include "seqio.h"

/* Checks that need no input (run before the expensive work): option conflicts (--tarball or
 * --diagonal-partition with --nogapped), the data folder for the tarball (relative, no '.',
 * '..', empty or over-255-byte component), the tarball path (hz_output_file_check).  Returns
 * the exit class: 0, 2 (usage: the options contradict) or 1 (the file system: the tarball
 * exists, is a folder, its folder is missing or not writable), with err set. */
int hz_package_precheck(const hz_opts *o, char *err, size_t errlen);

/* The tarball path for o (o->tarball "" means OUTDIR.tar.gz); malloc'd, NULL if no tarball. */
char *hz_package_tarball_path(const hz_opts *o);

/* Run the packaging steps o asks for on the finished (not yet published) output directory
 * dir, which holds lastz-commands.txt, the .segments and .name files.  t and q are the
 * planned sides (prefixed names, loaded sequences).  The tarball is left at its temporary
 * name "PATH.tmp-<pid>-<token>" (the one hz_tmpdir_make registers): hz_publish puts it in place
 * together with OUTDIR.  create_lock (may be NULL): held while that file is created, so the
 * signal watcher (sigwatch.h), which takes it for good before it removes the registered
 * temporaries, either finds the file or the file is never made.  With the diagonal partition *nfiles (may be NULL) gets the number of
 * .segments files left (one per lastz command: each .splitK.segments file replaces the file it
 * came from); otherwise it is not touched.  With the automatic partition (-D, -D auto) *auto_n
 * (may be NULL) gets the N it chose (0: nothing split), and a note says it on stderr unless
 * o->quiet.  Returns 0, or -1 with err; on failure no temporary tarball is left. */
int hz_package(const hz_opts *o, const char *dir, const hz_side *t, const hz_side *q, size_t *nfiles, uint64_t *auto_n,
               pthread_mutex_t *create_lock, char *err, size_t errlen);

/* Write a UCSC 2bit file (version 0, or 1 when offsets pass 2^32) of seqs to path, naming
 * record i names[i] (seqs->name when names is NULL).  Bytes other than ACGTacgt become N
 * blocks (packed as T), lower-case bytes mask blocks.  Names are at most 255 bytes; records
 * fewer than 2^32 bases.  Returns 0, or -1 with err. */
int hz_twobit_write(const char *path, const hz_seqset *seqs, char *const *names,
                    char *err, size_t errlen);

#endif
