#!/bin/sh
# HSPZ_MERGE's script (rendered by Nextflow: ${...} are its values, \$ is the shell's).
set -eu
hspz merge '${plan}' ${unit_dirs} -r '${target}' -q '${query}' -o '${task.ext.prefix ?: meta.id}' \
    --threads ${task.cpus} ${task.ext.args ?: ''}
