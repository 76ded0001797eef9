#!/bin/bash
# device_flood_threads — peak RSS of the Plasmodium flood against --threads (what grows with
# the workers, what is fixed), and the output equal to .dev/bin/hspz-before's.  $OUT gets the log.
mkdir -p .dev/lib && tar xJf .dev/lib.tar.xz -C .dev/lib
export LD_LIBRARY_PATH=$PWD/.dev/lib
T=$(ls .dev/pf/*falciparum* | head -1) Q=$(ls .dev/pf/*knowlesi* | head -1)
for b in ${BINS:-hspz-before:16 hspz:16 hspz:4}; do
python3 - ${b%%:*} ${b##*:} $T $Q <<'PY'
import resource, subprocess, sys, time
b, t, T, Q = sys.argv[1:]
s = time.time()
rc = subprocess.call([f".dev/bin/{b}", "run", "-r", T, "-q", Q, "-o", f"/tmp/fl.{b}.{t}", "--device", "cuda", "--quiet", "--force", "--threads", t])
print(f"{b} threads {t}: exit {rc}, wall {time.time()-s:.2f} s, peak RSS {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss/1048576:.2f} GiB", flush=True)
PY
done
diff -r -x manifest.json /tmp/fl.hspz-before.16 /tmp/fl.hspz.16 >/dev/null && echo "hspz == hspz-before (all files)" || echo DIFFERENT
