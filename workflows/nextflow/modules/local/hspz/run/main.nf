// HSPZ_RUN: some work units of a plan into one unit folder (hspz run --plan --unit).  With an
// accelerator (set by the config for label process_gpu, nf-core style; the module only reads
// task.accelerator) hspz takes that many GPUs; without one it runs on the CPU.
process HSPZ_RUN {
    tag "${meta.id}:${units}"
    label 'process_gpu'

    conda "${moduleDir}/environment.yml"
    // the image is set once for all hspz modules by params.hspz_container (nextflow.config)
    container "${ task.ext.container ?: 'ghcr.io/hspz/hspz:0.1.0' }"

    input:
    tuple val(meta), path(plan), path(target), path(query), val(units), val(unit_tag)

    output:
    tuple val(meta), path("${meta.id}.units-${unit_tag}"), emit: unit
    tuple val("${task.process}"), val('hspz'), eval(workflow.stubRun ? 'echo stub' : 'hspz --version'), emit: versions_hspz, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    // nf-core's check for a tool without a conda package (parabricks); strict syntax has no `session`
    if (workflow.profile.tokenize(',').intersect(['conda', 'mamba']).size() >= 1) {
        error("hspz has no conda package yet: use -profile docker, singularity or apptainer")
    }
    template 'run.sh'

    stub:
    """
    mkdir ${meta.id}.units-${unit_tag}
    echo '{}' > ${meta.id}.units-${unit_tag}/manifest.json
    """
}
