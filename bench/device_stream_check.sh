#!/bin/bash
# device_stream_check — streamed output (issue 13 item 2) on the GPU: the Plasmodium flood
# (P. falciparum x P. knowlesi, default settings) and the medium Zymoseptoria pair, with the
# binary before (.dev/bin/hspz-before, whole query block held until its chunks are done) and
# after (.dev/bin/hspz, each interval written as its chunks finish), alternating, 2 runs each:
# wall, peak RSS (getrusage of the child), and byte-identical outputs.  Output under $OUT.
set -u
mkdir -p .dev/lib && tar xJf .dev/lib.tar.xz -C .dev/lib
export LD_LIBRARY_PATH=$PWD/.dev/lib PATH=$PWD/.dev/bin:$PATH
exec > >(tee "$OUT/device_stream_check.log") 2>&1
W=/tmp/stream; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for b in hspz-before hspz; do echo "$b: $(.dev/bin/$b version --verbose | sed -n 2p)"; done
run() {   # BIN PAIR T Q TAG
    python3 - "$@" <<'PY'
import resource, subprocess, sys, time
b, pair, t, q, tag = sys.argv[1:]
o = f"/tmp/stream/{pair}.{tag}"
s = time.time()
rc = subprocess.call([f".dev/bin/{b}", "run", "-r", t, "-q", q, "-o", o, "--device", "cuda", "--quiet", "--force"])
w = time.time() - s
r = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1048576
print(f"{pair} {b:12s} {tag}: exit {rc}, wall {w:.2f} s, peak RSS {r:.2f} GiB (max over children so far)", flush=True)
PY
}
P=.dev/pf; Z=.dev/zy
for pair in zymo plasmodium; do
    if [ $pair = zymo ]; then T=$Z/ztritici_IPO323.fa.gz Q=$Z/zpseudotritici_221.fa.gz; else T=$(ls $P/*falciparum* | head -1) Q=$(ls $P/*knowlesi* | head -1); fi
    for i in 1 2; do
        for b in hspz-before hspz; do
            # a fresh interpreter per run, so ru_maxrss is this run's
            run $b $pair $T $Q $b.$i
        done
    done
    diff -r -x manifest.json $W/$pair.hspz-before.1 $W/$pair.hspz.1 >/dev/null && echo "$pair: after == before (all files)" || echo "$pair: DIFFERENT"
    echo "$pair segments: $(cat $W/$pair.hspz.1/*.segments | wc -l)"
    rm -rf $W/$pair.*
done
