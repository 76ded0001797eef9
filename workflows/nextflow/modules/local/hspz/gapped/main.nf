// HSPZ_GAPPED: LASTZ's gapped stage for every lastz command of a merged hspz folder, in hspz
// (hspz gapped --outdir --allocate:traceback=1.99G: for each line of lastz-commands.txt, with
// batched_lastz's traceback memory and task.ext.args (lastz options) added, the bytes lastz 1.04.22
// writes, reading the pair's own FASTA/2bit, on task.cpus threads), then the alignments in
// command order in one file named as batched_lastz names its output (EXTENSION: maf, axt).
// The merged folder is only read: hspz writes into a folder of links to its files.
process HSPZ_GAPPED {
    tag "${meta.id}"
    label 'process_high'

    conda "${moduleDir}/environment.yml"
    // the image is set once for all hspz modules by params.hspz_container (nextflow.config)
    container "${ task.ext.container ?: 'ghcr.io/hspz/hspz:0.1.0' }"

    input:
    tuple val(meta), path(outdir), path(target), path(query), val(extension)

    output:
    tuple val(meta), path("${task.ext.prefix ?: meta.id}.${extension}"), emit: alignment
    tuple val("${task.process}"), val('hspz'), eval(workflow.stubRun ? 'echo stub' : 'hspz --version'), emit: versions_hspz, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    // nf-core's check for a tool without a conda package (parabricks); strict syntax has no `session`
    if (workflow.profile.tokenize(',').intersect(['conda', 'mamba']).size() >= 1) {
        error("hspz has no conda package yet: use -profile docker, singularity or apptainer")
    }
    template 'gapped.sh'

    stub:
    """
    touch ${task.ext.prefix ?: meta.id}.${extension}
    """
}
