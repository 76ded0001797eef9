// HSPZ_LASTZ: the gapped stage of one lastz command of hspz's data package (lastz runs in the
// same image).  The command line is a line of OUTDIR/lastz-commands.txt; the package (hspz
// --tarball) holds the 2bit files, .name and .segments files it names.
process HSPZ_LASTZ {
    tag "${meta.id}:${index}"
    label 'process_single'

    conda "${moduleDir}/environment.yml"
    // the image is set once for all hspz modules by params.hspz_container (nextflow.config)
    container "${ task.ext.container ?: 'ghcr.io/hspz/hspz:0.1.0' }"

    input:
    tuple val(meta), path(tarball), val(index), val(command), val(output)

    output:
    tuple val(meta), val(index), path("${index}.${output}"), emit: alignment
    tuple val("${task.process}"), val('lastz'), eval(workflow.stubRun ? 'echo stub' : "lastz --version 2>&1 | head -n 1 | cut -d' ' -f3"), emit: versions_lastz, topic: versions

    when:
    task.ext.when == null || task.ext.when

    script:
    template 'lastz.sh'

    stub:
    """
    touch ${index}.${output}
    """
}
