#!/bin/bash
# device_units_check — plan / unit / merge on the GPU (issue 10): the medium Zymoseptoria pair
# in 10 Mbp blocks (16 work units), units run in shuffled order as separate processes, some on
# the GPU and some on the CPU with different --threads, merged; the merged OUTDIR and tarball
# must equal one GPU run and one CPU run byte for byte.  Output under $OUT.
set -u
mkdir -p .dev/lib && tar xJf .dev/lib.tar.xz -C .dev/lib
export LD_LIBRARY_PATH=$PWD/.dev/lib PATH=$PWD/.dev/bin:$PATH
exec > >(tee "$OUT/device_units_check.log") 2>&1
T=.dev/data/ztritici_IPO323.fa.gz Q=.dev/data/zpseudotritici_221.fa.gz
S="--seq-block-size 10000000 --tarball -D 20000"
W=/tmp/units; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; hspz version --verbose | sed -n 2p
t() { local s=$EPOCHREALTIME; "$@"; local rc=$?; echo "  ($(awk -v a=$s -v b=$EPOCHREALTIME 'BEGIN{printf "%.2f", b-a}') s, exit $rc)"; return $rc; }
echo "== one run, GPU"; t hspz run -r $T -q $Q -o $W/gpu $S --device cuda --quiet
echo "== one run, CPU"; t hspz run -r $T -q $Q -o $W/cpu $S --device cpu --quiet
echo "== plan"; t hspz plan -r $T -q $Q -o $W/plan.json $S
n=$(grep -c '"seed_hits"' $W/plan.json); n=$((n - 1))
echo "== $n units, shuffled, alternately GPU and CPU (threads 16 / 8)"
i=0; tu=$EPOCHREALTIME
for u in $(seq $n | shuf --random-source=<(yes)); do
    if [ $((i % 2)) = 0 ]; then dev="--device cuda"; else dev="--device cpu --threads 8"; fi
    hspz run --plan $W/plan.json --unit $u -o $W/u$u $dev --quiet || echo "unit $u FAILED"
    i=$((i + 1))
done
echo "  units: $(awk -v a=$tu -v b=$EPOCHREALTIME 'BEGIN{printf "%.2f", b-a}') s in all, one process each"
echo "== merge"; t hspz merge $W/plan.json $W/u* -o $W/merged
for ref in gpu cpu; do
    diff -r -x manifest.json $W/$ref $W/merged >/dev/null && echo "merged == one $ref run: all files identical" || echo "merged != one $ref run: DIFFERENT"
    cmp -s $W/$ref.tar.gz $W/merged.tar.gz && echo "merged tarball == one $ref run's" || echo "tarball DIFFERENT from the $ref run's"
done
python3 - $W <<'PY' 2>/dev/null || grep -h '"canonical_digest_sha256"\|"anchors"' $W/gpu/manifest.json $W/merged/manifest.json
import json, sys
w = sys.argv[1]
g, m, p = (json.load(open(w + f)) for f in ("/gpu/manifest.json", "/merged/manifest.json", "/plan.json"))
print("digest", g["canonical_digest_sha256"][:16], m["canonical_digest_sha256"][:16], "funnel equal:", g["funnel"] == m["funnel"])
print("plan seed hits", p["seed_hits"], "run anchors", g["funnel"]["anchors"])
PY
ls $W/merged | wc -l
