#!/bin/bash
# device call B2 (warm after A2: .dev/bin, .dev/lib, .dev/med kept): Plasmodium flood; large set --gpus 1 vs 2
set -u
R=/tmp/resG; rm -rf $R; mkdir -p $R
S=$(date +%s)
el() { echo "[$(( $(date +%s) - S )) s] $*" | tee -a $R/steps.log; }
export LD_LIBRARY_PATH=$PWD/.dev/lib
ls .dev/bin/hspz .dev/lib/libhts.so.3 .dev/med/*/*.gz > $R/persist.txt 2>&1 || { cat $R/persist.txt; echo NOT_WARM; exit 3; }
P=.dev/pl/medium_plasmodium_falciparum_vs_knowlesi
CUDA_VISIBLE_DEVICES=0 timeout 150 python3 bench/runstat.py .dev/bin/hspz run -r $P/pfalciparum_3D7.fa.gz -q $P/pknowlesi_H.fa.gz -o /tmp/plas --device cuda --force > $R/plasmodium.txt 2> $R/plasmodium.err
el plasmodium $?; cp /tmp/plas/manifest.json $R/plasmodium_manifest.json 2>/dev/null; du -sh /tmp/plas >> $R/plasmodium.txt; rm -rf /tmp/plas
M=.dev/med/medium_zymoseptoria_ipo323_vs_zpseudotritici221
cat $M/ztritici_IPO323.fa.gz .dev/lgt/ztritici_A26b.fa.gz .dev/lgt/ztritici_A48b.fa.gz > /tmp/large_target.fa.gz
cat $M/zpseudotritici_221.fa.gz .dev/lgq/zpseudotritici_3111.fa.gz .dev/lgq/zpseudotritici_431.fa.gz .dev/lgq/zpseudotritici_53.fa.gz > /tmp/large_query.fa.gz
sha256sum /tmp/large_target.fa.gz /tmp/large_query.fa.gz > $R/large_inputs.sha256
T=/tmp/large_target.fa.gz Q=/tmp/large_query.fa.gz LABEL=large_gpus ARMS="gpus1 gpus2" EXTRA="--seq-block-size 30000000" timeout 380 bench/gpu_bench.sh $R 3
el large $?
T=/tmp/large_target.fa.gz Q=/tmp/large_query.fa.gz LABEL=large_buckets ARMS="nobuckets buckets" CUDA_VISIBLE_DEVICES=0 timeout 150 bench/gpu_bench.sh $R 2
el large_buckets $?
tar czf $OUT/resultsG.tgz -C /tmp resG; cp $R/steps.log $OUT/
