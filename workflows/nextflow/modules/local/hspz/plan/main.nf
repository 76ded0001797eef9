// HSPZ_PLAN: the work units of a target x query pair, with the exact seed hits of each
// (hspz plan; README "Plan, units, merge").  The script is templates/plan.sh, which
// tests/nextflow/harness.py renders and runs as Nextflow would.
process HSPZ_PLAN {
    tag "${meta.id}"
    label 'process_low'

    conda "${moduleDir}/environment.yml"
    // the image is set once for all hspz modules by params.hspz_container (nextflow.config)
    container "${ task.ext.container ?: 'ghcr.io/hspz/hspz:0.1.0' }"

    input:
    tuple val(meta), path(target), path(query)

    output:
    tuple val(meta), path("${task.ext.prefix ?: meta.id}.plan.json"), emit: plan
    tuple val(meta), path("${task.ext.prefix ?: meta.id}.units.txt"), emit: units
    tuple val("${task.process}"), val('hspz'), eval(workflow.stubRun ? 'echo stub' : 'hspz --version'), emit: versions_hspz, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    // nf-core's check for a tool without a conda package (parabricks); strict syntax has no `session`
    if (workflow.profile.tokenize(',').intersect(['conda', 'mamba']).size() >= 1) {
        error("hspz has no conda package yet: use -profile docker, singularity or apptainer")
    }
    template 'plan.sh'

    stub:
    """
    echo '{"kind": "hspz-plan", "units": [{"id": 1}]}' > ${task.ext.prefix ?: meta.id}.plan.json
    echo 1 > ${task.ext.prefix ?: meta.id}.units.txt
    """
}
