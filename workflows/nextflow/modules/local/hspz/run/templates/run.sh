#!/bin/sh
# HSPZ_RUN's script (a Nextflow template: Nextflow fills in the task's values; a backslash-dollar is the shell's dollar sign).
# --gpus 0 means every visible GPU (Nextflow sets CUDA_VISIBLE_DEVICES); without one hspz
# says so in a note and runs on the CPU; the bytes are the same either way.
set -eu
hspz run --plan '${plan}' --unit '${units}' -r '${target}' -q '${query}' \
    -o '${meta.id}.units-${tag}' --threads ${task.cpus} \
    --gpus ${task.accelerator ? task.accelerator.request : 0} ${task.ext.args ?: ''}
