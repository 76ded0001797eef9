#!/usr/bin/env nextflow
// hspZ scale-out workflow: plan -> scatter the work units -> merge -> optional gapped lastz
// per command -> one MAF per pair.  The merged output is byte-identical to one `hspz run`
// with the same settings (README "Plan, units, merge").
//
//   nextflow run workflows/nextflow -profile test,docker
//   nextflow run workflows/nextflow -profile docker,gpu --target T.fa.gz --query Q.fa.gz \
//       --hspz_args '--seq-block-size 30000000 --tarball' --units_per_task 2 --gapped true
//
// Every process script is a template (modules/local/hspz/*/templates); tests/nextflow/harness.py
// renders and runs them the way this DAG does, since Nextflow itself cannot be installed on
// the build machines.
nextflow.enable.dsl = 2

include { HSPZ_PLAN  } from './modules/local/hspz/plan/main'
include { HSPZ_RUN   } from './modules/local/hspz/run/main'
include { HSPZ_MERGE } from './modules/local/hspz/merge/main'
include { HSPZ_LASTZ } from './modules/local/hspz/lastz/main'

workflow {
    if (!params.target || !params.query) {
        error "give --target and --query (or -profile test)"
    }
    if ((params.units_per_task as int) < 1) {
        error "--units_per_task must be 1 or more"
    }
    if (params.gapped && !(params.hspz_args.tokenize(' ').any { it == '-Z' || it.startsWith('--tarball') })) {
        error "--gapped runs lastz on hspz's data package: add --tarball to --hspz_args"
    }
    def meta = [id: params.id]
    pair = Channel.of([meta, file(params.target, checkIfExists: true), file(params.query, checkIfExists: true)])

    HSPZ_PLAN(pair)

    // units: ids from the plan, in groups of units_per_task, each group one HSPZ_RUN task
    unit_groups = HSPZ_PLAN.out.units
        .flatMap { m, f -> f.readLines().findAll { it.trim() }.collate(params.units_per_task as int).collect { ids -> [m, ids] } }
    run_in = HSPZ_PLAN.out.plan
        .join(pair)
        .combine(unit_groups, by: 0)
        .map { m, plan, t, q, ids -> [m, plan, t, q, ids.join(','), "${ids.first()}-${ids.last()}"] }
    HSPZ_RUN(run_in)

    merge_in = HSPZ_PLAN.out.plan
        .join(pair)
        .join(HSPZ_RUN.out.unit.groupTuple())
        .map { m, plan, t, q, dirs -> [m, plan, t, q, dirs] }
    HSPZ_MERGE(merge_in)

    if (params.gapped) {
        // one task per line of lastz-commands.txt, run against the package (needs --tarball)
        commands = HSPZ_MERGE.out.outdir
            .join(HSPZ_MERGE.out.tarball)
            .flatMap { m, dir, tgz ->
                def lines = file("${dir}/lastz-commands.txt").readLines()
                (0..<lines.size()).collect { i ->
                    def out = (lines[i] =~ /--output=(\S+)/)[0][1]
                    [m, tgz, i + 1, lines[i], out]
                }
            }
        HSPZ_LASTZ(commands)
        // the alignments in command order, one MAF per pair
        HSPZ_LASTZ.out.alignment
            .map { m, i, f -> [m.id, i, f] }
            .toSortedList { a, b -> a[1] <=> b[1] }
            .flatMap { it.collect { x -> x[2] } }
            .collectFile(name: "${params.id}.maf", seed: '##maf version=1\n', sort: false, storeDir: params.outdir)
    }

    // a plan without units (every query block shorter than the seed) has nothing to run:
    // hspz merge PLAN -o OUTDIR with no unit folders writes the (empty) output of one run
    HSPZ_PLAN.out.units.filter { m, f -> !f.readLines().any { it.trim() } }
        .subscribe { m, f -> log.warn "${m.id}: the plan has no work units (every query block is shorter than the seed); nothing to align" }

    // versions of every tool, from the processes' topic channels
    channel.topic('versions')
        .map { proc, tool, ver -> "${proc.tokenize(':').last()}:\n  ${tool}: ${ver}\n" }
        .unique()
        .collectFile(name: 'versions.yml', storeDir: params.outdir, sort: true)
}
