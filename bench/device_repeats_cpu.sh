#!/bin/bash
# device_repeats_cpu — bench/repeats.sh on the device's host CPU (quiet, 16 cores; --threads 2
# as on the development machine): .dev/bin/hspz (after) vs .dev/bin/hspz-before vs the carried
# Debian lastz 1.04.22 (.dev/bin/lastz; it needs only libc and libm).  Output under $OUT.
set -u
mkdir -p .dev/lib && tar xJf .dev/lib.tar.xz -C .dev/lib
export LD_LIBRARY_PATH=$PWD/.dev/lib PATH=$PWD/.dev/bin:$PATH
lscpu | grep -E "Model name|^CPU\(s\)"
HSPZ=$PWD/.dev/bin/hspz OLD_HSPZ=$PWD/.dev/bin/hspz-before OLD_SKIP='a80 a90' THREADS=2 \
    bench/repeats.sh /tmp/rep "${REPS:-3}" 2>&1 | tee "$OUT/repeats-device-cpu.log"
cp /tmp/rep/runs.tsv "$OUT/repeats-device-cpu.tsv"
