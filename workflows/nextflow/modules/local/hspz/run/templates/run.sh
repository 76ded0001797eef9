#!/bin/sh
# HSPZ_RUN's script (a Nextflow template: Nextflow fills in the task's values; a backslash-dollar is the shell's dollar sign).
# With an accelerator the task uses that many of the visible GPUs; without one it runs on
# the CPU and leaves the node's GPUs alone.  The bytes are the same either way.
set -eu
hspz run --plan '${plan}' --unit '${units}' -r '${target}' -q '${query}' \
    -o '${meta.id}.units-${unit_tag}' --threads ${task.cpus} \
    --device ${task.accelerator ? 'auto' : 'cpu'} --gpus ${task.accelerator ? task.accelerator.request : 0} ${task.ext.args ?: ''}
