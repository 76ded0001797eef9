// HSPZ_MERGE: every unit folder of a plan into the OUTDIR of one hspz run, byte for byte
// (hspz merge): segments, .name files, lastz-commands.txt, the plan's packaging, manifest;
// and its report page (hspz report: PREFIX.report.html + PREFIX.report.png, published with it).
process HSPZ_MERGE {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    // the image is set once for all hspz modules by params.hspz_container (nextflow.config)
    container "${ task.ext.container ?: 'ghcr.io/hspz/hspz:0.1.0' }"

    input:
    tuple val(meta), path(plan), path(target), path(query), path(unit_dirs, stageAs: 'units/*')

    output:
    tuple val(meta), path("${task.ext.prefix ?: meta.id}"), emit: outdir
    tuple val(meta), path("${task.ext.prefix ?: meta.id}.tar.gz"), emit: tarball, optional: true
    tuple val(meta), path("${task.ext.prefix ?: meta.id}.report.{html,png}"), emit: report
    tuple val("${task.process}"), val('hspz'), eval(workflow.stubRun ? 'echo stub' : 'hspz --version'), emit: versions_hspz, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    // nf-core's check for a tool without a conda package (parabricks); strict syntax has no `session`
    if (workflow.profile.tokenize(',').intersect(['conda', 'mamba']).size() >= 1) {
        error("hspz has no conda package yet: use -profile docker, singularity or apptainer")
    }
    template 'merge.sh'

    stub:
    """
    mkdir ${task.ext.prefix ?: meta.id}
    touch ${task.ext.prefix ?: meta.id}/lastz-commands.txt
    touch ${task.ext.prefix ?: meta.id}.report.html ${task.ext.prefix ?: meta.id}.report.png
    """
}
