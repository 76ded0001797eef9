#!/bin/bash
# device call H: the final commit's binary — GPU suite subset, fuzz, medium, interrupt on the GPU path
set -u
R=/tmp/res; rm -rf $R; mkdir -p $R
S=$(date +%s)
el() { echo "[$(( $(date +%s) - S )) s] $*" | tee -a $R/steps.log; }
mkdir -p .dev/lib && tar xJf .dev/lib.tar.xz -C .dev/lib
export LD_LIBRARY_PATH=$PWD/.dev/lib
.dev/bin/hspz version --verbose > $R/version.txt 2>&1
CASES='^(apple_orange__(default|blocks_small)|small_ecoli_k12_vs_ecoli_536__default|tiny_aglobin_human_vs_cow__default)$' timeout 90 tests/gpu/device_suite.sh $R
el suite $?
timeout 30 .dev/bin/fuzz_chunk --iters 10 --seed 9900 > $R/fuzz.txt 2>&1; el fuzz $?
CUDA_VISIBLE_DEVICES=0 LABEL=medium ARMS="score" timeout 40 bench/gpu_bench.sh $R 3
el medium $?
M=.dev/med/medium_zymoseptoria_ipo323_vs_zpseudotritici221
for d in 0.5 1.0 1.4; do
  rm -rf /tmp/int /tmp/int.*
  timeout --preserve-status -s INT $d .dev/bin/hspz run -r $M/ztritici_IPO323.fa.gz -q $M/zpseudotritici_221.fa.gz -o /tmp/int --device cuda --tarball --quiet 2>>$R/interrupt.txt
  echo "delay $d rc=$? left: $(ls -d /tmp/int /tmp/int.* 2>/dev/null | tr '\n' ' ')" >> $R/interrupt.txt
done
el interrupt
tar czf $OUT/results.tgz -C /tmp res; cp $R/steps.log $OUT/
