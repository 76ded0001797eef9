#!/bin/bash
# device_gate — the gate kernels on the device machine (issue 13 items 4 and 5): bench/gate_bench
# side by side on medium Zymoseptoria, and Nsight Compute on one launch of each gate kernel.
# From the repo root with the carry .dev/ (bin/gate_bench, lib.tar.xz, zy/).  Log under $OUT.
#   bench/device_gate.sh bench     gate_bench, REPS (default 3) rotating runs of every variant, on
#                                  INPUTS (default "zymo"; also yeast = the 2bit self-comparison)
#   bench/device_gate.sh stages    hspz on INPUTS with each HSPZ_GATE_KERNEL of KERNELS (default
#                                  "vec refill") at THREADS (default "16 1"): wall, GPU busy and
#                                  the manifest's CUDA-event seconds per stage, and the HSPZ_TRACE
#                                  timeline (plasmodium = .dev/pf); pN = the synthetic
#                                  pair of N Mbp a side (bench/simulate_pair N 1 0.1)
#   bench/device_gate.sh ncu       ncu on KERNELS (mangled-name patterns; default the vec
#                                  gate and the refill gate <LIST 0, FROZEN 0, DYN ...>), one
#                                  launch each after SKIP (default 40) launches, 8 Mbp blocks
set -u
what=${1:?bench|ncu}
. bench/device_env.sh device_gate.$what${LOGTAG:-}
T=.dev/zy/ztritici_IPO323.fa.gz Q=.dev/zy/zpseudotritici_221.fa.gz
if [ "$what" = bench ]; then
    rc=0
    for name in ${INPUTS:-zymo}; do
        pair $name; echo "== $name"
        gate_bench $T $Q --reps ${REPS:-3} || rc=1
    done
    exit $rc
fi
if [ "$what" = stages ]; then
    for name in ${INPUTS:-zymo yeast}; do
        pair $name
        for th in ${THREADS:-16 1}; do
            for k in ${KERNELS:-vec refill}; do
                o=/tmp/dg.$name.$k; rm -rf $o
                s=$EPOCHREALTIME
                HSPZ_TRACE=1 HSPZ_GATE_KERNEL=$k hspz run -r $T -q $Q -o $o --device cuda --threads $th --quiet 2>/tmp/dg.trace
                w=$(awk "BEGIN{printf \"%.2f\", $EPOCHREALTIME - $s}")
                grep -v '^hspz: trace' /tmp/dg.trace   # errors and notes
                echo "$name t$th $k trace: $(awk '/^hspz: trace [0-9]/{printf "%s %s | ", $4" "$5, $3} /^hspz: trace manifest:/{sub(/^hspz: trace /, ""); printf "%s | ", $0}' /tmp/dg.trace)"
                python3 - $o/manifest.json "$name t$th $k wall $w s" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); d = m["gpu"]["devices"][0]
st = " ".join(f"{k} {v:.3f}" for k, v in d["stage_event_s"].items())
print(f"{sys.argv[2]}: busy {d['busy_s']:.3f} s, tiles {d['tiles']}, long dev/host {d['long_anchors_device']}/{d['long_anchors_host']} | {st}")
PY
            done
            [ $th = 16 ] && [ -d /tmp/dg.$name.vec ] && [ -d /tmp/dg.$name.refill ] && { diff -r -x manifest.json /tmp/dg.$name.vec /tmp/dg.$name.refill >/dev/null && echo "$name: same files" || echo "$name: FILES DIFFER"; }
        done
    done
    exit 0
fi
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
echo "ncu: ${NCU:-none}"
[ -n "$NCU" ] || exit 0
for k in ${KERNELS:-gate_kernelILi1 refill_kernelILi0ELi0}; do
    echo "== $k"
    timeout 240 $NCU --clock-control none --launch-skip ${SKIP:-40} --launch-count 1 --kernel-name-base mangled -k regex:$k \
        --section SpeedOfLight --section LaunchStats --section Occupancy --section SchedulerStats \
        --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
        gate_bench $T $Q --reps 1 --block 8000000 2>&1 | grep -v '^==PROF==' | grep -vE '^\s*$' | tail -120
done
