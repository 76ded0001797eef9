#!/bin/bash
# device_dedup — issue 13 item 1 (the batch dedup on the device) on the device machine, from
# the repo root with the carry .dev/ (bin/hspz, bin/hspz-before, bin/fuzz_chunk, lib.tar.xz,
# cases/, data/, rep/, and the pairs of INPUTS under pf/ and zy/).  Log under $OUT.
#   bench/device_dedup.sh check   tests/gpu/device_suite.sh on the tiny golden cases (every
#                                 kernel variable, HSPZ_DEVICE_DEDUP=0 among them) and the
#                                 differential fuzz (CPU == every CUDA variant)
#   bench/device_dedup.sh spill   HSPZ_FAULT=gpu-alloc:N for every N of a small-tile run: the
#                                 batch moves to the host when device memory runs short
#   bench/device_dedup.sh bench   HSPZ_DEVICE_DEDUP=1 ("device") against =0 ("host") of the
#                                 same binary, alternating, REPS runs each (default 3), and
#                                 hspz-before once; wall, peak RSS, identical files required
# INPUTS (default "array zymo plasmodium"): array (bench/make_repeats.py), zymo (medium
# Zymoseptoria, .dev/zy), plasmodium (the AT-rich flood, .dev/pf), yeast (S. cerevisiae R64
# 2bit against itself, .dev/ye).
set -u
what=${1:?check|bench}
mkdir -p .dev/lib && tar xJf .dev/lib.tar.xz -C .dev/lib
export LD_LIBRARY_PATH=$PWD/.dev/lib PATH=$PWD/.dev/bin:$PATH
exec > >(tee "$OUT/device_dedup.$what.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
for b in hspz-before hspz; do [ -x .dev/bin/$b ] && echo "$b: $(.dev/bin/$b version --verbose | sed -n 2p)"; done
W=/tmp/dd; rm -rf $W; mkdir -p $W
if [ "$what" = check ]; then
    CASES='^(apple|tiny|pseudocat)' tests/gpu/device_suite.sh "$OUT" | tail -3
    echo "== differential fuzz"
    .dev/bin/fuzz_chunk --iters ${FUZZ_ITERS:-80} --seed 1313 | tail -2
    exit 0
fi
if [ "$what" = spill ]; then
    # GPU memory running short mid-batch: HSPZ_FAULT fails the N-th device allocation, for N
    # over every allocation of a run with 64-anchor tiles (the batch buffer then grows during a
    # batch).  Each run must either stop with exit 1 and one error line, or complete with the
    # files of a run without faults; at least one must have moved a batch to the host.
    AO=tests/data/apple_orange
    run1() { HSPZ_GPU_TILE=64 .dev/bin/hspz run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$1" --device cuda --threads 1 2>"$1.err"; }
    run1 $W/ref || { echo "reference run failed: $(cat $W/ref.err)"; exit 1; }
    ok=0 bad=0 spills=0 stops=0
    for N in $(seq 1 ${SPILL_MAX:-60}); do
        o=$W/sp$N
        HSPZ_FAULT=gpu-alloc:$N run1 $o; rc=$?
        nerr=$(grep -vc '^hspz: note:' $o.err)
        if [ $rc = 1 ] && [ "$nerr" = 1 ] && [ ! -e $o ]; then ok=$((ok+1)); stops=$((stops+1)); r="stop"
        elif [ $rc = 0 ] && diff -r -x manifest.json $W/ref $o >/dev/null; then
            ok=$((ok+1)); r="same files"
            grep -q 'deduplicated on the host instead' $o.err && { spills=$((spills+1)); r="same files, batch moved to the host"; }
        else bad=$((bad+1)); r="FAIL rc=$rc"; fi
        echo "gpu-alloc:$N: $r: $(grep -v '^hspz: funnel\|^hspz: time\|^hspz: gpu' $o.err | head -c 240 | tr '\n' ' ')"
        rm -rf $o $o.err
    done
    echo "SPILL: $ok passed, $bad failed ($stops stopped with one error line, $spills completed after moving a batch to the host)"
    [ $bad = 0 ] && [ $spills -ge 1 ]
    exit
fi
run() {   # ARM BIN NAME T Q [extra]: ARM device|host|before
    python3 - "$@" <<'PY'
import json, os, resource, subprocess, sys, time
arm, b, name, t, q = sys.argv[1:6]
o = f"/tmp/dd/{name}.{arm}"
env = dict(os.environ)
if arm == "host": env["HSPZ_DEVICE_DEDUP"] = "0"
subprocess.call(["rm", "-rf", o])
s = time.time()
rc = subprocess.call([f".dev/bin/{b}", "run", "-r", t, "-q", q, "-o", o, "--device", "cuda", "--quiet"] + sys.argv[6:], env=env)
w = time.time() - s
r = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1048576
extra = ""
try:
    m = json.load(open(f"{o}/manifest.json"))
    ts = m["time_s"]; d = m["gpu"]["devices"][0]
    extra = (f" | thread-s gate {ts['gate']:.1f} extend {ts['extend']:.1f} dedup {ts['dedup']:.1f}, output {ts['output']:.2f} s"
             f" | gpu busy {d['busy_s']:.2f} s, event-s " + " ".join(f"{k} {v:.2f}" for k, v in d["stage_event_s"].items()))
except Exception as e:
    extra = f" | (manifest: {e})"
print(f"{name} {arm:6s}: exit {rc}, wall {w:.2f} s, peak RSS {r:.2f} GiB{extra}", flush=True)
PY
}
REPS=${REPS:-3}
for name in ${INPUTS:-array zymo plasmodium}; do
    x=""
    case $name in
        array) T=.dev/rep/array.fa Q=$T ;;
        zymo) T=.dev/zy/ztritici_IPO323.fa.gz Q=.dev/zy/zpseudotritici_221.fa.gz ;;
        plasmodium) T=$(ls .dev/pf/*falciparum* | head -1) Q=$(ls .dev/pf/*knowlesi* | head -1) ;;
        yeast) T=$(ls .dev/ye/*.2bit | head -1) Q=$T ;;
    esac
    run before hspz-before $name $T $Q $x
    mv $W/$name.before $W/$name.before.keep
    for i in $(seq 1 $REPS); do
        set -- device host; [ $((i % 2)) = 0 ] && set -- host device
        for arm in "$@"; do
            run $arm hspz $name $T $Q $x
            [ $i = 1 ] && cp -r $W/$name.$arm $W/$name.$arm.keep
        done
    done
    for arm in device host; do
        diff -r -x manifest.json $W/$name.before.keep $W/$name.$arm.keep >/dev/null && echo "$name: $arm == before (all files)" || echo "$name: $arm DIFFERENT from before"
    done
    echo "$name segments: $(cat $W/$name.device.keep/*.segments | wc -l); funnel: $(python3 -c "import json; f=json.load(open('$W/$name.device.keep/manifest.json'))['funnel']; print(f)")"
    cp $W/$name.device.keep/manifest.json "$OUT/$name.device.manifest.json"
    rm -rf $W/$name.*
done
