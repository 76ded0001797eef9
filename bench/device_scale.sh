#!/bin/bash
# device_scale — issue 13 item 7, the scale curve, on the device machine from the repo root
# with the carry .dev/ (hspz and simulate_pair in bin/ or bin.tar.xz, lib.tar.xz).  For each SIZES entry (Mbp
# per side, default "100 300 1000") bench/simulate_pair writes a pair on the device's disk
# (seed 1, 10 % divergence, REPEATS the repeat fraction, default 0.36), and hspz runs it once on the GPU with default settings: wall,
# (Raw anchors = 1.93e12 x (Mbp / 1000)^2 x e^(-2 REPEATS), about 0.1 ns each on one H200: a
# larger REPEATS masks more and means fewer anchors; simulate_pair takes 0..0.9, and 3000 Mbp at
# 0.9 (2.85e12 anchors) ran in 339 s, one 10-minute call with its 129 s of generation.
# bench/results/scale-2026-12-03.md.)
# peak RSS (getrusage of the parent), raw anchors, segments, GPU busy, peak device memory
# (nvidia-smi sampled every 0.2 s).  Log under $OUT.
set -u
# shellcheck source=device_env.sh
. bench/device_env.sh "${SCALE_LOG:-device_scale}"   # libraries, binaries, the log ($OUT/SCALE_LOG.log), the GPU and hspz's commit
W=${SCALE_DIR:-/tmp/scale}; mkdir -p $W
for mb in ${SIZES:-100 300 1000}; do
    s=$EPOCHREALTIME
    .dev/bin/simulate_pair $mb 1 0.1 $W/p$mb ${REPEATS:-0.36} || exit 1
    echo "== $mb Mbp per side, repeats ${REPEATS:-0.36}: generated in $(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $s}") s ($(du -m $W/p$mb.a.fa | cut -f1) + $(du -m $W/p$mb.b.fa | cut -f1) MB)"
    ( while :; do nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits; sleep 0.2; done ) > $W/mem.$mb &
    mp=$!
    python3 - $W/p$mb.a.fa $W/p$mb.b.fa $W/o$mb <<'PY'
import json, resource, subprocess, sys, time
t, q, o = sys.argv[1:4]
s = time.time()
rc = subprocess.call([".dev/bin/hspz", "run", "-r", t, "-q", q, "-o", o, "--device", "cuda", "--quiet", "--force"])
w = time.time() - s
r = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1048576
m = json.load(open(f"{o}/manifest.json"))
f, ts, g = m["funnel"], m["time_s"], m["gpu"]
d = g["devices"][0]
print(f"exit {rc}, wall {w:.2f} s (manifest wall {ts['wall']:.2f} s), peak RSS {r:.2f} GiB, raw anchors {f['anchors']:.3e}, "
      f"gate survivors {f['gate_survivors']:.3e}, segments {f['segments_written']}, work units {m['plan']['work_units']}, "
      f"GPU busy {d['busy_s']:.2f} s ({100 * d['busy_s'] / ts['wall']:.0f} % of the manifest wall), "
      f"thread-s gate {ts['gate']:.1f} extend {ts['extend']:.1f} dedup {ts['dedup']:.1f}, output {ts['output']:.2f} s | CUDA-event s " + " ".join(f"{k} {v:.1f}" for k, v in d["stage_event_s"].items()), flush=True)
PY
    kill $mp 2>/dev/null; wait $mp 2>/dev/null
    echo "peak device memory $(sort -n $W/mem.$mb | tail -1) MiB"
    rm -rf $W/o$mb $W/p$mb.*
done
