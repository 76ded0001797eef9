#!/usr/bin/env nextflow
// hspZ scale-out pipeline: plan -> scatter the work units -> merge -> optional gapped stage
// (hspz gapped on the merged folder, or lastz per command with --gapped_tool lastz) -> one
// alignment file per pair.  The merged output is byte-identical to one `hspz run` with the
// same settings (README "Plan, units, merge"); the alignments to lastz 1.04.22's.
//
//   nextflow run <this repository> -profile test,docker
//   nextflow run . -profile docker,gpu --target T.fa.gz --query Q.fa.gz \
//       --hspz_args '--seq-block-size 30000000' --units_per_task 2 --gapped true
//
// Every process script is a template (workflows/nextflow/modules/local/hspz/*/templates);
// tests/nextflow/harness.py renders and runs them the way this DAG does, since Nextflow itself
// cannot be installed on the build machines.

include { HSPZ_PLAN  } from './workflows/nextflow/modules/local/hspz/plan/main'
include { HSPZ_RUN   } from './workflows/nextflow/modules/local/hspz/run/main'
include { HSPZ_MERGE } from './workflows/nextflow/modules/local/hspz/merge/main'
include { HSPZ_GAPPED } from './workflows/nextflow/modules/local/hspz/gapped/main'
include { HSPZ_LASTZ } from './workflows/nextflow/modules/local/hspz/lastz/main'
include { asBool; asInt; lastzFormat; alignmentExtension; alignmentHeader; gappedTool; hspzGappedWrites } from './workflows/nextflow/functions'

workflow {
    if (!params.target || !params.query) {
        error("give --target and --query (or -profile test)")
    }
    // command-line values are Strings under the strict parser: parsed here, checked once
    def per_task = asInt('units_per_task', params.units_per_task)
    if (per_task < 1 || asInt('max_unit_hits', params.max_unit_hits) < 0) {
        error("--units_per_task must be 1 or more and --max_unit_hits 0 or more")
    }
    def gapped = asBool('gapped', params.gapped)
    def tool = gappedTool(params.gapped_tool)
    def hspz_args = params.hspz_args.toString()
    def format = lastzFormat(hspz_args)
    if (gapped && tool == 'lastz' && !hspz_args.tokenize(' ').any { w -> w == '-Z' || w.startsWith('--tarball') }) {
        error("--gapped with --gapped_tool lastz runs lastz on hspz's data package: add --tarball to --hspz_args")
    }
    if (gapped && tool == 'hspz' && !hspzGappedWrites(format)) {
        error("hspz gapped writes --format maf-, maf, axt and axt+; for --format ${format} give --gapped_tool lastz")
    }
    def meta = [id: params.id]
    def pair = channel.of([meta, file(params.target, checkIfExists: true), file(params.query, checkIfExists: true)])

    HSPZ_PLAN(pair)

    // units: ids from the plan, in groups of units_per_task, each group one HSPZ_RUN task
    def unit_groups = HSPZ_PLAN.out.units
        .flatMap { m, f -> f.readLines().findAll { l -> l.trim() }.collate(per_task).collect { ids -> [m, ids] } }
    def run_in = HSPZ_PLAN.out.plan
        .join(pair)
        .combine(unit_groups, by: 0)
        .map { m, plan, t, q, ids -> [m, plan, t, q, ids.join(','), "${ids.first()}-${ids.last()}"] }
    HSPZ_RUN(run_in)

    // the unit folders of a pair sorted by name (task completion order varies: an unsorted list
    // gives the merge a new hash, and -resume reruns it); a plan without units (every query
    // block shorter than the seed) has no folders and merges from none (`remainder`), so its
    // empty result is published as one run's would be
    def merge_in = HSPZ_PLAN.out.plan
        .join(pair)
        .join(HSPZ_RUN.out.unit.groupTuple(sort: { a, b -> a.name <=> b.name }), remainder: true)
        .map { m, plan, t, q, dirs -> [m, plan, t, q, dirs ?: []] }
    HSPZ_MERGE(merge_in)

    HSPZ_PLAN.out.units.filter { m, f -> !f.readLines().any { l -> l.trim() } }
        .subscribe { m, f -> log.warn("${m.id}: the plan has no work units (every query block is shorter than the seed); its output is empty") }

    if (gapped && tool == 'hspz') {
        // one hspz gapped task per pair on the merged folder (every command, task.cpus threads),
        // reading the pair's own sequences; its file is named as batched_lastz names its output
        // (PAIR.maf, .axt by --format) and published by nextflow.config
        HSPZ_GAPPED(HSPZ_MERGE.out.outdir.join(pair).map { m, dir, t, q -> [m, dir, t, q, alignmentExtension(format)] })
    }
    if (gapped && tool == 'lastz') {
        // one task per line of lastz-commands.txt, run against the package (needs --tarball)
        def commands = HSPZ_MERGE.out.outdir
            .join(HSPZ_MERGE.out.tarball)
            .flatMap { m, dir, tgz ->
                def lines = file("${dir}/lastz-commands.txt").readLines()
                (0..<lines.size()).collect { i ->
                    def out = lines[i].tokenize(' ').find { w -> w.startsWith('--output=') }.substring('--output='.length())
                    [m, tgz, i + 1, lines[i], out]
                }
            }
        HSPZ_LASTZ(commands)
        // the alignments in command order in one file named as batched_lastz names its output
        // (PAIR.maf, .axt, .sam, ... by --format); a plan without commands gives the file alone
        HSPZ_LASTZ.out.alignment
            .toSortedList { a, b -> a[1] <=> b[1] }
            .flatMap { done -> [alignmentHeader(format)] + done.collect { x -> x[2] } }
            .collectFile(name: "${params.id}.${alignmentExtension(format)}", sort: false, storeDir: params.outdir)
    }

    // versions of every tool, from the processes' topic channels
    channel.topic('versions')
        .map { proc, tool, ver -> "${proc.tokenize(':').last()}:\n  ${tool}: ${ver}\n" }
        .unique()
        .collectFile(name: 'versions.yml', storeDir: params.outdir, sort: true)
}
