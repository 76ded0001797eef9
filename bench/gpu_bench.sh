#!/bin/bash
# GPU benchmark on the device machine (repo root; inputs carried under .dev/data):
# arms in one call, alternating order, medians of N runs, identical digest required.
# Usage: bench/gpu_bench.sh OUTDIR [runs]
set -u
OUT=${1:?outdir}; N=${2:-3}
export LD_LIBRARY_PATH=$PWD/.dev/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=${HSPZ:-$PWD/.dev/bin/hspz}
D=.dev/data/data/medium_zymoseptoria_ipo323_vs_zpseudotritici221
T=$D/ztritici_IPO323.fa.gz; Q=$D/zpseudotritici_221.fa.gz
W=$(mktemp -d)
digest() { cat "$1"/*.segments | LC_ALL=C sort | sha256sum | cut -d' ' -f1; }
arm() {  # label env -- args
    local label=$1; shift; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
    local o=$W/$label
    local t0=$(date +%s.%N)
    env "${envs[@]}" $B run -r $T -q $Q -o $o --force "$@" 2>$W/$label.err
    local t1=$(date +%s.%N)
    echo "$label $(awk "BEGIN{printf \"%.3f\", $t1 - $t0}") $(digest $o)" >> $W/times
    grep -E "funnel|time:|backend" $W/$label.err | sed "s/^/[$label] /" >> $OUT/bench.log
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > $OUT/bench_gpu.txt
nproc >> $OUT/bench_gpu.txt
for i in $(seq 1 $N); do
    if [ $((i % 2)) = 1 ]; then
        arm gpu_score -- --device cuda; arm gpu_full HSPZ_GATE=full -- --device cuda
        arm gpu_hostseeds HSPZ_DEVICE_SEEDS=0 -- --device cuda
    else
        arm gpu_hostseeds HSPZ_DEVICE_SEEDS=0 -- --device cuda
        arm gpu_full HSPZ_GATE=full -- --device cuda; arm gpu_score -- --device cuda
    fi
done
arm cpu_all -- --device cpu
cp $W/times $OUT/bench_times.txt
python3 - "$W/times" <<'PY' | tee $OUT/bench_table.md
import sys, statistics, collections
t = collections.defaultdict(list); dg = collections.defaultdict(set)
for line in open(sys.argv[1]):
    l, s, d = line.split(); t[l].append(float(s)); dg[l].add(d)
alld = set().union(*dg.values())
print("| arm | runs | median wall s | min | digest |")
print("|---|---|---|---|---|")
for l in t:
    print(f"| {l} | {len(t[l])} | {statistics.median(t[l]):.2f} | {min(t[l]):.2f} | {','.join(x[:12] for x in dg[l])} |")
print("digests identical:", len(alld) == 1)
PY
rm -rf $W
