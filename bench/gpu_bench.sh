#!/bin/bash
# GPU benchmark on the device machine (repo root; inputs carried under .dev/):
# arms side by side in one call, rotating order, medians of N runs, identical canonical
# digest required; per run the wall time, peak host RSS (bench/runstat.py) and hspz's funnel,
# time and gpu lines (CUDA-event stage times, gate rate, busy per device).
# Usage: bench/gpu_bench.sh OUTDIR [runs]
#   T, Q        target and query (default: the medium Zymoseptoria pair under .dev/med)
#   ARMS        space-separated arm names (default: "score warp buckets full hostseeds")
#               score: default kernels; thread, warp: HSPZ_GATE_KERNEL=thread|warp;
#               hostlong: HSPZ_DEVICE_LONG=0; buckets: HSPZ_REF_BUCKETS=on;
#               full: HSPZ_GATE=full; hostseeds: HSPZ_DEVICE_SEEDS=0; gpusN: --gpus N;
#               cpu: --device cpu (all cores; run once)
#   EXTRA       extra hspz arguments for every arm (e.g. "--seq-block-size 30000000")
set -u
OUT=${1:?outdir}; N=${2:-3}
export LD_LIBRARY_PATH=$PWD/.dev/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=${HSPZ:-$PWD/.dev/bin/hspz}
D=.dev/med/medium_zymoseptoria_ipo323_vs_zpseudotritici221
T=${T:-$D/ztritici_IPO323.fa.gz}; Q=${Q:-$D/zpseudotritici_221.fa.gz}
ARMS=${ARMS:-score warp buckets full hostseeds}
EXTRA=${EXTRA:-}
LABEL=${LABEL:-bench}
W=$(mktemp -d)
digest() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['canonical_digest_sha256'])" "$1/manifest.json" 2>/dev/null || echo none; }
arm() {  # name
    local a=$1 envs=() args=(--device cuda)
    case $a in
    score) ;;
    warp) envs=(HSPZ_GATE_KERNEL=warp) ;;
    thread) envs=(HSPZ_GATE_KERNEL=thread) ;;
    hostlong) envs=(HSPZ_DEVICE_LONG=0) ;;
    buckets) envs=(HSPZ_REF_BUCKETS=on) ;;
    nobuckets) envs=(HSPZ_REF_BUCKETS=off) ;;
    full) envs=(HSPZ_GATE=full) ;;
    hostseeds) envs=(HSPZ_DEVICE_SEEDS=0) ;;
    gpus*) args+=(--gpus ${a#gpus}) ;;
    cpu) args=(--device cpu) ;;
    *) echo "unknown arm $a" >&2; return ;;
    esac
    local o=$W/$a
    rm -rf $o
    local st
    st=$(env "${envs[@]}" python3 bench/runstat.py $B run -r $T -q $Q -o $o --force "${args[@]}" $EXTRA 2>$W/$a.err)
    echo "$a $st $(digest $o)" >> $W/times
    echo "== $a: $st" >> $OUT/$LABEL.log
    grep -E "funnel|time:|gpu|backend|error" $W/$a.err | sed "s/^/[$a] /" >> $OUT/$LABEL.log
    [ -f $o/manifest.json ] && python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(json.dumps({'arm': sys.argv[2], 'gpu': m.get('gpu'), 'funnel': m.get('funnel'), 'time_s': m.get('time_s')}))" $o/manifest.json $a >> $OUT/$LABEL.jsonl
    rm -rf $o
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > $OUT/$LABEL.gpu.txt
nproc >> $OUT/$LABEL.gpu.txt
echo "T=$T Q=$Q EXTRA=$EXTRA ARMS=$ARMS runs=$N" >> $OUT/$LABEL.gpu.txt
set -- $ARMS
arms=("$@"); gpuarms=(); hascpu=0
for a in "${arms[@]}"; do [ $a = cpu ] && hascpu=1 || gpuarms+=($a); done
k=${#gpuarms[@]}
for i in $(seq 0 $((N - 1))); do       # rotate the order every round
    for j in $(seq 0 $((k - 1))); do arm ${gpuarms[$(( (i + j) % k ))]}; done
done
[ $hascpu = 1 ] && arm cpu
cp $W/times $OUT/$LABEL.times.txt
python3 - "$W/times" <<'PY' | tee $OUT/$LABEL.table.md
import sys, statistics, collections
t = collections.defaultdict(list); rss = collections.defaultdict(list); dg = collections.defaultdict(set)
for line in open(sys.argv[1]):
    l, s, r, rc, d = line.split(); t[l].append(float(s)); rss[l].append(float(r)); dg[l].add(d if rc == '0' else 'rc' + rc)
alld = set().union(*dg.values())
print("| arm | runs | median wall s | min | max | peak RSS MiB | digest |")
print("|---|---|---|---|---|---|---|")
for l in t:
    print(f"| {l} | {len(t[l])} | {statistics.median(t[l]):.2f} | {min(t[l]):.2f} | {max(t[l]):.2f} | {max(rss[l]):.0f} | {','.join(x[:12] for x in dg[l])} |")
print("digests identical:", len(alld) == 1)
PY
rm -rf $W
