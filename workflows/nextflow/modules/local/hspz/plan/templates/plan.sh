#!/bin/sh
# HSPZ_PLAN's script (rendered by Nextflow: ${...} are its values, \$ is the shell's).
# One unit id per line goes to PREFIX.units.txt for the scatter.
set -eu
hspz plan -r '${target}' -q '${query}' -o '${task.ext.prefix ?: meta.id}.plan.json' \
    --threads ${task.cpus} ${task.ext.args ?: ''}
grep -o '"id": [0-9]*' '${task.ext.prefix ?: meta.id}.plan.json' | cut -d' ' -f2 \
    > '${task.ext.prefix ?: meta.id}.units.txt'
