#!/bin/sh
# HSPZ_MERGE's script (a Nextflow template: Nextflow fills in the task's values; a backslash-dollar is the shell's dollar sign).
set -eu
hspz merge '${plan}' ${unit_dirs} -r '${target}' -q '${query}' -o '${task.ext.prefix ?: meta.id}' \
    --threads ${task.cpus} ${task.ext.args ?: ''}
# the report page and its PNG beside the merged folder (hspz report; the folder stays one run's bytes)
hspz report '${task.ext.prefix ?: meta.id}' -o '${task.ext.prefix ?: meta.id}.report.html' --quiet
