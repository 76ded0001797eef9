// HSPZ_RUN: some work units of a plan into one unit folder (hspz run --plan --unit).  On a
// GPU node (task.accelerator) hspz takes that many GPUs; elsewhere it runs on the CPU.
process HSPZ_RUN {
    tag "${meta.id}:${units}"
    label 'process_gpu'
    accelerator { task.ext.gpus ?: (params.gpu ? 1 : null) }

    conda "${moduleDir}/environment.yml"
    container "${ task.ext.container ?: 'hspz:0.1.0' }"

    input:
    tuple val(meta), path(plan), path(target), path(query), val(units), val(unit_tag)

    output:
    tuple val(meta), path("${meta.id}.units-${unit_tag}"), emit: unit
    tuple val("${task.process}"), val('hspz'), eval('hspz --version'), emit: versions_hspz, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    if (workflow.profile.tokenize(',').intersect(['conda', 'mamba']) || session.config.navigate('conda.enabled')) {
        error "hspz has no conda package yet: use -profile docker, singularity or apptainer"
    }
    template 'run.sh'

    stub:
    """
    mkdir ${meta.id}.units-${unit_tag}
    echo '{}' > ${meta.id}.units-${unit_tag}/manifest.json
    """
}
