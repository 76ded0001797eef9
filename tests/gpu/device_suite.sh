#!/bin/bash
# GPU suite, run ON the device machine from the repo root (see tests/gpu/README.md):
#   every carried golden case: GPU bytes == CPU bytes (same machine) and canonical digest ==
#   case.json's; on six cases the knob variants (HSPZ_GATE=full, HSPZ_GATE_KERNEL=vec|thread|warp,
#   HSPZ_DEVICE_LONG=0|1 and diag (the default) with tiny tiles and the host dedup, HSPZ_DEVICE_DEDUP=0, HSPZ_REF_BUCKETS=on, host seeding, tiny physical tiles, --threads 1,
#   --gpus 2 when two GPUs);
#   then timings.  Inputs come from .dev/ (carried: bin/hspz, lib/, data/, cases/).
# Usage: tests/gpu/device_suite.sh OUTDIR   (CASES=REGEX limits the cases by name)
set -u
OUT=${1:?outdir}; QUICK=${2:-}
export LD_LIBRARY_PATH=$PWD/.dev/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
B=${HSPZ:-$PWD/.dev/bin/hspz}
W=$(mktemp -d)
pass=0; fail=0
log() { echo "$@" | tee -a "$OUT/suite.log"; }
digest() { cat "$1"/*.segments 2>/dev/null | LC_ALL=C sort | sha256sum | cut -d' ' -f1; }
runcase() {  # name casejson label env... -- extra args
    local name=$1 cj=$2 label=$3; shift 3
    local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
    local args
    args=$(python3 -c "
import json,sys
c=json.load(open('$cj'))
print(' '.join(a.replace('../shared/','.dev/data/') for a in c['hspz_args']))")
    local want; want=$(python3 -c "import json; print(json.load(open('$cj'))['canonical_digest_sha256'])")
    local o="$W/$name.$label"
    local t0=$(date +%s.%N)
    env "${envs[@]}" $B ${args//OUTDIR/$o} "$@" --quiet 2>"$o.err"; local rc=$?
    local t1=$(date +%s.%N)
    local d; d=$(digest "$o")
    local ok=1
    [ $rc = 0 ] || ok=0
    [ "$d" = "$want" ] || ok=0
    if [ "$label" != cpu ] && ! diff -r -x lastz-commands.txt -x manifest.json "$W/$name.cpu" "$o" >/dev/null 2>&1; then ok=0; fi
    if [ $ok = 1 ]; then pass=$((pass+1)); r=PASS; else fail=$((fail+1)); r=FAIL; fi
    log "$r $name $label rc=$rc $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s digest=${d:0:12} want=${want:0:12} $(head -c 300 $o.err)"
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
NGPU=$(nvidia-smi -L | wc -l)
for cj in .dev/cases/*/case.json; do
    name=$(basename $(dirname $cj))
    [ -n "${CASES:-}" ] && ! [[ $name =~ $CASES ]] && continue
    runcase $name $cj cpu -- --device cpu
    runcase $name $cj gpu -- --device cuda
    case $name in
    apple_orange__default|small_ecoli_k12_vs_ecoli_536__default|pseudocat_pseudopig__noentropy|tiny_aglobin_human_vs_cow__default|small_vcholerae_n16961_vs_o395__default|apple_orange__blocks_small)
        runcase $name $cj gpu_full HSPZ_GATE=full -- --device cuda
        runcase $name $cj gpu_tile1k HSPZ_GPU_TILE=1000 -- --device cuda
        runcase $name $cj gpu_t1 -- --device cuda --threads 1
        runcase $name $cj gpu_vec HSPZ_GATE_KERNEL=vec -- --device cuda
        runcase $name $cj gpu_thread HSPZ_GATE_KERNEL=thread -- --device cuda
        runcase $name $cj gpu_warp HSPZ_GATE_KERNEL=warp -- --device cuda
        runcase $name $cj gpu_hostlong HSPZ_DEVICE_LONG=0 -- --device cuda
        runcase $name $cj gpu_longscan HSPZ_DEVICE_LONG=1 -- --device cuda
        runcase $name $cj gpu_diag_tile1k_hostdedup HSPZ_DEVICE_LONG=diag HSPZ_GPU_TILE=1000 HSPZ_DEVICE_DEDUP=0 -- --device cuda
        runcase $name $cj gpu_hostdedup HSPZ_DEVICE_DEDUP=0 -- --device cuda
        runcase $name $cj gpu_buckets HSPZ_REF_BUCKETS=on -- --device cuda
        runcase $name $cj gpu_buckets_tile1k HSPZ_REF_BUCKETS=on HSPZ_GPU_TILE=1000 -- --device cuda
        runcase $name $cj gpu_hostseeds HSPZ_DEVICE_SEEDS=0 -- --device cuda
        [ "$NGPU" -ge 2 ] && runcase $name $cj gpu_x2 -- --device cuda --gpus 2 --threads 5
        ;;
    esac
done
log "SUITE: $pass passed, $fail failed"
rm -rf "$W"
