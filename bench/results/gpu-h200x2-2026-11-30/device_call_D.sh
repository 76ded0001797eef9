#!/bin/bash
# device call D: new kernels (vec gate, device long path), correctness + medium benchmarks
set -u
R=/tmp/res; rm -rf $R; mkdir -p $R
S=$(date +%s)
el() { echo "[$(( $(date +%s) - S )) s] $*" | tee -a $R/steps.log; }
mkdir -p .dev/lib && tar xJf .dev/lib.tar.xz -C .dev/lib
export LD_LIBRARY_PATH=$PWD/.dev/lib
nvidia-smi -L > $R/gpus.txt; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv >> $R/gpus.txt; nproc >> $R/gpus.txt
.dev/bin/hspz version --verbose > $R/version.txt 2>&1
M=.dev/med/medium_zymoseptoria_ipo323_vs_zpseudotritici221
timeout 60 .dev/bin/gate_bench $M/ztritici_IPO323.fa.gz $M/zpseudotritici_221.fa.gz --reps 3 > $R/gate_bench_medium.txt 2>&1
el gate_bench $?
timeout 70 .dev/bin/fuzz_chunk --iters 30 --seed 9500 > $R/fuzz.txt 2>&1; el fuzz $?
CASES='^(apple_orange__(default|blocks_small)|small_ecoli_k12_vs_ecoli_536__default|pseudocat_pseudopig__noentropy|tiny_aglobin_human_vs_cow__default)$' timeout 120 tests/gpu/device_suite.sh $R
el suite $?
CASES='^(apple_orange__(hsp2000_x500|noentropy|nogapped|strand_minus|strand_plus|default_rep2)|pseudocat|tiny_mtdna|small_(hpylori|saureus|ecoli_k12_vs_ecoli_536__(blocks_small|noentropy|hsp2000_x500|seed14of22|step3_notransition)))' timeout 100 tests/gpu/device_suite.sh $R
el suite2 $?
A=.dev/data/golden/kegalign/apple_orange/inputs
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
for tool in memcheck racecheck; do
  timeout 40 $CS --tool $tool --error-exitcode 9 .dev/bin/hspz run -r $A/apple.fasta.gz -q $A/orange.fasta.gz -o /tmp/san --device cuda --force --threads 2 --quiet > $R/$tool.txt 2>&1
  echo "rc=$?" >> $R/$tool.txt; el $tool
done
CUDA_VISIBLE_DEVICES=0 LABEL=medium_arms ARMS="score thread warp buckets hostlong full hostseeds" timeout 150 bench/gpu_bench.sh $R 3
el arms $?
LABEL=medium_gpus ARMS="gpus1 gpus2" timeout 40 bench/gpu_bench.sh $R 3
el gpus $?
CUDA_VISIBLE_DEVICES=0 LABEL=medium_cpu ARMS="cpu" timeout 60 bench/gpu_bench.sh $R 1
el cpu $?
Y=.dev/st/medium_scerevisiae_R64_self_2bit/scerevisiae_R64-1-1_ens94.2bit
CUDA_VISIBLE_DEVICES=0 T=$Y Q=$Y LABEL=yeast ARMS="score hostlong" timeout 40 bench/gpu_bench.sh $R 2
el yeast $?
tar czf $OUT/results.tgz -C /tmp res; cp $R/steps.log $OUT/
