#!/bin/bash
# device_long — the long anchors' paths (HSPZ_DEVICE_LONG) side by side on the device machine,
# from the repo root with the carry .dev/ (bench/device_pack.sh; zy/, ye/, pf/ as
# bench/device_lean.sh).  Log under $OUT.
#   bench/device_long.sh stages   for each input of INPUTS (default "zymo yeast"), each --threads
#                                 of THREADS (default "1 16") and REPS rounds (default 1), every
#                                 HSPZ_DEVICE_LONG of LONGS (default "1 diag") in rotating order:
#                                 wall, GPU busy, the manifest's CUDA-event seconds per stage
#                                 (the diagonal path counts under long_select) and the long
#                                 anchors on the device and the host; then whether the files of
#                                 every arm are the same
set -u
what=${1:?stages}
. bench/device_env.sh device_long.$what${LOGTAG:-}
if [ "$what" = stages ]; then
    rc=0
    for name in ${INPUTS:-zymo yeast}; do
        pair $name
        for th in ${THREADS:-1 16}; do
            arms=(${LONGS:-1 diag})
            for i in $(seq 1 ${REPS:-1}); do
                for j in $(seq 0 $((${#arms[@]} - 1))); do
                    L=${arms[$(((i + j) % ${#arms[@]}))]}
                    o=/tmp/dlong.$name.$L; rm -rf $o
                    s=$EPOCHREALTIME
                    HSPZ_DEVICE_LONG=$L hspz run -r $T -q $Q -o $o --device cuda --threads $th --quiet || rc=1
                    w=$(awk "BEGIN{printf \"%.2f\", $EPOCHREALTIME - $s}")
                    python3 - $o/manifest.json "$name t$th long=$L wall $w s" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); d = m["gpu"]["devices"][0]; f = m["funnel"]
st = " ".join(f"{k} {v:.3f}" for k, v in d["stage_event_s"].items())
print(f"{sys.argv[2]}: busy {d['busy_s']:.3f} s, long dev/host {d['long_anchors_device']}/{d['long_anchors_host']}, "
      f"survivors {f['gate_survivors']}, accepted {f['hsps_accepted']} | {st}", flush=True)
PY
                done
            done
            for L in "${arms[@]:1}"; do
                if diff -r -x manifest.json /tmp/dlong.$name.${arms[0]} /tmp/dlong.$name.$L >/dev/null; then
                    echo "$name t$th: long=$L == long=${arms[0]} (all files)"
                else echo "$name t$th: long=$L FILES DIFFER from long=${arms[0]}"; rc=1; fi
            done
        done
        rm -rf /tmp/dlong.$name.*
    done
    exit $rc
fi
echo "unknown: $what" >&2; exit 2
