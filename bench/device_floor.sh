#!/bin/bash
# device_floor — CUDA's fixed costs on the device machine (issue 13 item 3): the whole-process
# wall of bench/cuda_floor (the smallest CUDA process; then with hspz's 16 streams, their
# device memory and pinned staging, and each alone; then one kernel), next to /bin/true and to hspz on the
# tiny apple x orange pair on the CPU and on the GPU, REPS (default 7) rounds in rotating
# order; medians.  From the repo root with the carry .dev/ (bin: cuda_floor, hspz; lib;
# data/golden/kegalign/apple_orange from bench/device_pack.sh data).  Log under $OUT.
#   bench/device_floor.sh           ARMS (default all: true bare kernel streams devmem pinned
#                                   hspz-cpu hspz-cuda; also bare-quick, streams-quick: the same
#                                   ending with _exit, nothing freed; hspz-prev-cuda: .dev/bin/hspz-prev)
# DEVICE_MB (default 800: hspz's per-stream tile buffers at 8 Mi anchors) and PINNED_MB
# (default 6: its pinned staging) shape the mimicking arm.
set -u
. bench/device_env.sh device_floor
AO=.dev/data/golden/kegalign/apple_orange/inputs
W=/tmp/floor; rm -rf $W; mkdir -p $W
arms=(${ARMS:-true bare kernel streams devmem pinned hspz-cpu hspz-cuda})
run_arm() {
    case $1 in
        true) /bin/true ;;
        bare) cuda_floor ;;
        bare-quick) cuda_floor --quick-exit ;;
        streams-quick) cuda_floor --streams 16 --device-mb ${DEVICE_MB:-800} --pinned-mb ${PINNED_MB:-6} --kernel --quick-exit ;;
        kernel) cuda_floor --kernel ;;
        streams) cuda_floor --streams 16 --device-mb ${DEVICE_MB:-800} --pinned-mb ${PINNED_MB:-6} --kernel ;;
        devmem) cuda_floor --streams 16 --device-mb ${DEVICE_MB:-800} --kernel ;;
        pinned) cuda_floor --streams 16 --pinned-mb ${PINNED_MB:-6} --kernel ;;
        hspz-cpu) rm -rf $W/c; HSPZ_TRACE=1 hspz run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o $W/c --device cpu --quiet ;;
        hspz-cuda) rm -rf $W/g; HSPZ_TRACE=1 hspz run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o $W/g --device cuda --quiet ;;
        hspz-prev-cuda) rm -rf $W/p; HSPZ_TRACE=1 hspz-prev run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o $W/p --device cuda --quiet ;;
    esac
}
for r in $(seq ${REPS:-7}); do
    n=${#arms[@]}
    for k in $(seq 0 $((n - 1))); do
        a=${arms[$(((k + r) % n))]}
        s=$EPOCHREALTIME
        out=$(run_arm $a 2>&1); rc=$?
        w=$(awk "BEGIN{printf \"%.4f\", $EPOCHREALTIME - $s}")
        echo "$a round $r: exit $rc, wall $w s | $(echo "$out" | grep -E '^cuda_floor:|trace' | sed 's/^hspz: trace //' | tr '\n' ';')"
        echo "$a $w" >> $W/walls
    done
done
echo "== medians of ${REPS:-7} (whole process, s)"
for a in "${arms[@]}"; do
    echo "$a $(awk -v a=$a '$1==a{print $2}' $W/walls | sort -n | awk '{v[NR]=$1} END{printf "%.4f (min %.4f max %.4f)", v[int((NR+1)/2)], v[1], v[NR]}')"
done
