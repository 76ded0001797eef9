#!/bin/bash
# device_index_check — issue 10 on the GPU: (1) GPU == CPU on random chunks (fuzz_chunk);
# (2) plan -> units (shuffled, GPU with different --threads) -> merge on a multi-block sub-pair
# of the large Zymoseptoria set (IPO323 + A26b vs Zp3111 + Zp431, 30 Mbp blocks), equal to one
# GPU run and one CPU run; (3) bench/index_batch.sh on the GPU: IPO323 against 16 x 1 Mbp
# slices of Zp3111 (sep, sep+ix, list, list+ix).  Output under $OUT.
set -u
mkdir -p .dev/lib && tar xJf .dev/lib.tar.xz -C .dev/lib
export LD_LIBRARY_PATH=$PWD/.dev/lib PATH=$PWD/.dev/bin:$PATH HSPZ=$PWD/.dev/bin/hspz
exec > >(tee "$OUT/device_index_check.log") 2>&1
D=.dev/data W=/tmp/ixdev; rm -rf $W; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; hspz version --verbose | sed -n 1,2p; nproc
t() { local s=$EPOCHREALTIME; "$@"; local rc=$?; echo "  ($(awk -v a=$s -v b=$EPOCHREALTIME 'BEGIN{printf "%.2f", b-a}') s, exit $rc)"; return $rc; }
echo "== (1) fuzz_chunk: GPU variants == CPU on random chunks"
t fuzz_chunk --iters 300 --seed 20261201 | tail -n 3
echo "== (2) units on the large sub-pair"
cat $D/ztritici_IPO323.fa.gz $D/ztritici_A26b.fa.gz > $W/T.fa.gz
cat $D/zpseudotritici_3111.fa.gz $D/zpseudotritici_431.fa.gz > $W/Q.fa.gz
S="--seq-block-size 30000000 --tarball -D 20000"
echo "one run, GPU"; t hspz run -r $W/T.fa.gz -q $W/Q.fa.gz -o $W/gpu $S --device cuda --quiet --time
echo "one run, CPU"; t hspz run -r $W/T.fa.gz -q $W/Q.fa.gz -o $W/cpu $S --device cpu --quiet
echo "plan"; t hspz plan -r $W/T.fa.gz -q $W/Q.fa.gz -o $W/plan.json $S
n=$(grep -c '"seed_hits"' $W/plan.json); n=$((n - 1)); echo "$n units"
i=0
for u in $(seq $n | shuf --random-source=<(yes)); do
    th=$((i % 2 ? 4 : 16)); i=$((i + 1))
    hspz run --plan $W/plan.json --unit $u -o $W/u$u --device cuda --threads $th --quiet || echo "unit $u FAILED"
done
echo "merge"; t hspz merge $W/plan.json $W/u* -o $W/merged --quiet
for ref in gpu cpu; do
    diff -r -x manifest.json $W/$ref $W/merged >/dev/null && echo "merged == one $ref run: all files identical" || echo "merged != one $ref run: DIFFERENT"
    cmp -s $W/$ref.tar.gz $W/merged.tar.gz && echo "merged tarball == one $ref run's" || echo "tarball DIFFERENT from the $ref run's"
done
python3 - $W <<'PY'
import json, sys
w = sys.argv[1]
g, c, m, p = (json.load(open(w + f)) for f in ("/gpu/manifest.json", "/cpu/manifest.json", "/merged/manifest.json", "/plan.json"))
print("digest gpu/cpu/merged", g["canonical_digest_sha256"][:16], c["canonical_digest_sha256"][:16], m["canonical_digest_sha256"][:16])
print("segments", g["segment_lines"], "blocks", g["plan"]["target_blocks"], "x", g["plan"]["query_blocks"], "units", len(p["units"]),
      "plan seed hits", p["seed_hits"], "run anchors", g["funnel"]["anchors"], "gpu wall", g["time_s"]["wall"], "cpu wall", c["time_s"]["wall"])
PY
echo "== (3) index and batch on the GPU"
python3 bench/make_slices.py $D/zpseudotritici_3111.fa.gz 16 1000000 $W/slices
bench/index_batch.sh $D/ztritici_IPO323.fa.gz $W/slices cuda 3 $W/ixb | tee "$OUT/index-batch-gpu.md"
echo "== (3b) the same on the CPU (all cores), one rep"
bench/index_batch.sh $D/ztritici_IPO323.fa.gz $W/slices cpu 1 $W/ixc | tee "$OUT/index-batch-devcpu.md"
