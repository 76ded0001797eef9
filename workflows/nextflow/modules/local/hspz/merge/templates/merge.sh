#!/bin/sh
# HSPZ_MERGE's script (a Nextflow template: Nextflow fills in the task's values; a backslash-dollar is the shell's dollar sign).
set -eu
hspz merge '${plan}' ${unit_dirs} -r '${target}' -q '${query}' -o '${task.ext.prefix ?: meta.id}' \
    --threads ${task.cpus} ${task.ext.args ?: ''}
