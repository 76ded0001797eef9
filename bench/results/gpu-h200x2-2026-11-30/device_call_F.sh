#!/bin/bash
# device call F: final binary — correctness subset + medium arms + yeast; results in $OUT/results.tgz
set -u
R=/tmp/res; rm -rf $R; mkdir -p $R
S=$(date +%s)
el() { echo "[$(( $(date +%s) - S )) s] $*" | tee -a $R/steps.log; }
mkdir -p .dev/lib && tar xJf .dev/lib.tar.xz -C .dev/lib
export LD_LIBRARY_PATH=$PWD/.dev/lib
nvidia-smi -L > $R/gpus.txt; nproc >> $R/gpus.txt
.dev/bin/hspz version --verbose > $R/version.txt 2>&1
VAR='apple_orange__blocks_small|small_ecoli_k12_vs_ecoli_536__default|tiny_aglobin_human_vs_cow__default'
CASES="^($VAR)\$" timeout 90 tests/gpu/device_suite.sh $R
el suite_variants $?
mv $R/suite.log $R/suite_variants.log
CASES='^(apple_orange__(default|hsp2000_x500|noentropy|strand_minus)|pseudocat_pseudopig(_named)?__(default|blocks_small|strand_plus)|tiny_mtdna_human_vs_orangutan__(default|strand_minus|blocks_small)|small_(hpylori|saureus|ecoli_k12_vs_ecoli_536)_.*__(blocks_small|noentropy|hsp2000_x500|seed14of22|step3_notransition|default_rep2))$' timeout 80 tests/gpu/device_suite.sh $R
el suite_cases $?
timeout 45 .dev/bin/fuzz_chunk --iters 20 --seed 9700 > $R/fuzz.txt 2>&1; el fuzz $?
A=.dev/data/golden/kegalign/apple_orange/inputs
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
timeout 40 $CS --tool memcheck --error-exitcode 9 .dev/bin/hspz run -r $A/apple.fasta.gz -q $A/orange.fasta.gz -o /tmp/san --device cuda --force --threads 2 --quiet > $R/memcheck.txt 2>&1
echo "rc=$?" >> $R/memcheck.txt; el memcheck
H=.dev/data/data/small_hpylori_g27_vs_els37
timeout 100 $CS --tool memcheck --error-exitcode 9 .dev/bin/hspz run -r $H/$(ls $H | grep -m1 -i g27) -q $H/$(ls $H | grep -m1 -i els37) -o /tmp/san2 --device cuda --force --threads 4 --quiet > $R/memcheck_hpylori.txt 2>&1
echo "rc=$?" >> $R/memcheck_hpylori.txt; el memcheck_hpylori
CUDA_VISIBLE_DEVICES=0 LABEL=medium_arms ARMS="score hostlong full thread" timeout 70 bench/gpu_bench.sh $R 3
el arms $?
LABEL=medium_gpus ARMS="gpus1 gpus2" timeout 40 bench/gpu_bench.sh $R 3
el gpus $?
Y=.dev/st/medium_scerevisiae_R64_self_2bit/scerevisiae_R64-1-1_ens94.2bit
CUDA_VISIBLE_DEVICES=0 T=$Y Q=$Y LABEL=yeast ARMS="score" timeout 30 bench/gpu_bench.sh $R 3
el yeast $?
tar czf $OUT/results.tgz -C /tmp res; cp $R/steps.log $OUT/
