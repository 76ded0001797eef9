#!/bin/sh
# HSPZ_PLAN's script (a Nextflow template: Nextflow fills in the task's values; a backslash-dollar is the shell's dollar sign).
# One unit id per line goes to PREFIX.units.txt for the scatter.
set -eu
hspz plan -r '${target}' -q '${query}' -o '${task.ext.prefix ?: meta.id}.plan.json' \
    --threads ${task.cpus} ${task.ext.args ?: ''}
grep -o '"id": [0-9]*' '${task.ext.prefix ?: meta.id}.plan.json' | cut -d' ' -f2 \
    > '${task.ext.prefix ?: meta.id}.units.txt'
