#!/bin/bash
# The gapped stage's device path (issue 35; src/gapped/gapped_dev.h), run ON the device machine
# from the repository root:
#   1. smoke: one small golden with --device=$DEV, a tiny one in batches of 6 halves (HSPZ_GAPPED_BATCH);
#   2. E. coli K-12 x 536 (and medium Zymoseptoria): bench/gapped_gpu.sh, `hspz gapped --outdir`
#      with --device cpu and cuda (--threads $NT) side by side: every output and .err
#      byte-identical, wall / CPU seconds, then a HSPZ_GAPPED_STATS=1 run (halves on the GPU, its
#      seconds, launches, halves run again, left to the CPU, redone);
#   3. compute-sanitizer memcheck of the pseudocat golden, when the tool is there (the kernel uses no
#      shared memory: no racecheck);
#   4. the golden and --threads cases of tests/bats/gapped.bats, slow tier included (every golden
#      of ../shared/golden/lastz-gapped, both strands, maf- and axt+ H=2000; GD_SLOW=1 adds the slow tier), with every
#      `hspz gapped` given --device=$DEV: GPU bytes == lastz's == the CPU path's (in the time left);
#   5. GD_FUZZ=SECONDS: the differential fuzz (tests/bats/gapped_fuzz.bats) on the device;
#   6. GD_RUN=1: hspz run --gapped --device cuda against --device cpu, E. coli (and Zymoseptoria).
# Inputs come from .dev/ (carried): bin/hspz (a CUDA build), bin/lastz, bin/gnutime, lib.tar.xz,
# shared/ (golden/lastz-gapped and the pairs' data), ec/, bats/ (bats-core).
# Usage: tests/gpu/gapped_device.sh OUTDIR [NT]   (GD_DEV=emu: the same steps with the emu device, a
# check of this script where there is no GPU; EC=0 skips step 2; BATS_LIMIT: seconds for step 4)
set -u
OUT=${1:?outdir}; NT=${2:-16}; DEV=${GD_DEV:-cuda}; DD=${GD_DIR:-.dev}   # GD_DIR: the carried folder
R=$PWD
mkdir -p /tmp/lib && tar xJf $DD/lib.tar.xz -C /tmp/lib
export LD_LIBRARY_PATH=/tmp/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} PATH=$R/$DD/bin:$R/$DD/bats/bin:$PATH
B=$R/$DD/bin/hspz
log() { echo "$@" | tee -a "$OUT/gapped_device.log"; }
log "== $(date -u +%FT%TZ) commit $(cat COMMIT 2>/dev/null || git log -1 --format=%h 2>/dev/null) $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader)"
log "cores $(nproc); $($B version 2>&1 | head -1)"
W=$(mktemp -d)

# every `hspz gapped` that aligns (--segments / --outdir) on the GPU; in --outdir mode the
# option goes after OUTDIR (a trailing one would be read as a missing --outdir's value)
cat > "$W/hspz-cuda" <<EOF
#!/bin/bash
if [ "\${1:-}" = gapped ]; then
    case "\${2:-}" in
        --outdir) [ \$# -ge 3 ] && exec $B gapped --outdir "\$3" --device=$DEV "\${@:4}" ;;
        --outdir=*) exec $B gapped "\$2" --device=$DEV "\${@:3}" ;;
        *) case " \$* " in *" --segments="*) exec $B "\$@" --device=$DEV ;; esac ;;
    esac
fi
exec $B "\$@"
EOF
chmod +x "$W/hspz-cuda"

export HSPZ_SHARED=$R/$DD/shared
# 1. smoke
HSPZ=$B HSPZ_GAPPED_EXTRA=--device=$DEV tests/lib/gapped_golden.sh \
    small_hpylori_g27_vs_els37 maf minus "$W/smoke" 2>&1 | tee -a "$OUT/gapped_device.log"
# small batches: many launches on a tiny pair
HSPZ=$B HSPZ_GAPPED_BATCH=6 HSPZ_GAPPED_EXTRA=--device=$DEV timeout 120 tests/lib/gapped_golden.sh \
    tiny_aglobin_human_vs_cow maf plus "$W/smoke6" 2>&1 | tee -a "$OUT/gapped_device.log"
HSPZ=$B HSPZ_GAPPED_STATS=1 HSPZ_GAPPED_EXTRA=--device=$DEV tests/lib/gapped_golden.sh \
    small_hpylori_g27_vs_els37 maf minus "$W/smokestats" >/dev/null 2>&1
log "stats: $(cat "$W/smokestats/stderr.txt")"

# 2. E. coli (and medium Zymoseptoria when $DD/zy is there): bench/gapped_gpu.sh, --device cpu against
#    cuda (and $DD/bin/hspz-old's cuda when present), alternating, outputs byte-identical, stats run
if [ "${EC:-1}" != 0 ]; then
pairs="$R/$DD/ec/ecoli_K12_MG1655.fa.gz,$R/$DD/ec/ecoli_536_NC_008253.fa.gz"
[ -d "$R/$DD/zy" ] && pairs="$pairs $R/$DD/zy/ztritici_IPO323.fa.gz,$R/$DD/zy/zpseudotritici_221.fa.gz"
ALT=$([ -x "$R/$DD/bin/hspz-old" ] && echo "$R/$DD/bin/hspz-old") RUNS=${GD_RUNS:-3} TIME=$(command -v gnutime || echo /usr/bin/time) \
    bench/gapped_gpu.sh "$B" "$OUT/gapped_gpu.md" "$NT" $pairs > "$OUT/gapped_gpu.log" 2>&1
log "bench/gapped_gpu.sh: rc=$? $(grep -A6 '^| arm' "$OUT/gapped_gpu.md" | tr '\n' ' ')"
fi
# 3. memcheck on the pseudocat plus golden (about 1M DP cells a pass), small batches and a small
#    pool (HSPZ_GAPPED_POOL: halves run again): several launches
if command -v compute-sanitizer >/dev/null; then
    for tool in memcheck; do
        printf '#!/bin/sh\nexec compute-sanitizer --tool %s --error-exitcode 99 --log-file %s %s "$@"\n' \
            $tool "$W/san-$tool.txt" "$B" > "$W/hspz-$tool"; chmod +x "$W/hspz-$tool"
        HSPZ=$W/hspz-$tool HSPZ_GAPPED_BATCH=64 HSPZ_GAPPED_POOL=$((64 << 20)) HSPZ_GAPPED_EXTRA=--device=$DEV \
            timeout 240 tests/lib/gapped_golden.sh tiny_lastz_pseudocat_vs_pseudopig maf plus "$W/san$tool" > "$W/san$tool.log" 2>&1
        log "compute-sanitizer $tool: rc=$? $(grep -h 'ERROR SUMMARY' "$W/san-$tool.txt" | head -1); $(head -2 "$W/san$tool.log" | tr '\n' ' ')"
    done
else log "compute-sanitizer: not on this machine"; fi

# 4. gapped.bats on the GPU
t0=$(date +%s)
HSPZ=$W/hspz-cuda HSPZ_SLOW=${GD_SLOW:-0} timeout ${BATS_LIMIT:-$(( 570 - SECONDS > 60 ? 570 - SECONDS : 60 ))} bats --filter 'golden|--threads' tests/bats/gapped.bats > "$OUT/gapped_bats_cuda.tap" 2>&1
log "gapped.bats --device=$DEV: rc=$? $(grep -c '^ok' "$OUT/gapped_bats_cuda.tap") ok, $(grep -c '^not ok' "$OUT/gapped_bats_cuda.tap") not ok, $(grep -c '# skip' "$OUT/gapped_bats_cuda.tap") skipped, $(( $(date +%s) - t0 )) s"
grep '^not ok' "$OUT/gapped_bats_cuda.tap" | head -20 | tee -a "$OUT/gapped_device.log"

# 5. the differential fuzz with every `hspz gapped` on the device (GPU bytes == lastz's)
if [ "${GD_FUZZ:-0}" -gt 0 ]; then
    python3 tests/lib/gapped_fuzz.py --hspz "$W/hspz-cuda" --seconds "$GD_FUZZ" --seed "${GD_SEED:-35}" \
        --work "$W/fuzz" --repro "$W/fuzz-repro" --quiet > "$OUT/gapped_fuzz_cuda.log" 2>&1
    log "gapped fuzz --device=$DEV, $GD_FUZZ s, seed ${GD_SEED:-35}: rc=$? $(tail -1 "$OUT/gapped_fuzz_cuda.log")"
fi

# 6. GD_RUN=1: hspz run --gapped --device cuda (HSPs on the GPU, the alignments in a helper
#    process whose lines open the GPU) against --device cpu on E. coli (and medium Zymoseptoria
#    when $DD/zy is there), each twice, alternating: every file but the manifest byte-identical
if [ "${GD_RUN:-0}" != 0 ] && [ "$DEV" = cuda ]; then
    pairs="$R/$DD/ec/ecoli_K12_MG1655.fa.gz,$R/$DD/ec/ecoli_536_NC_008253.fa.gz"
    [ -d "$R/$DD/zy" ] && pairs="$pairs $R/$DD/zy/ztritici_IPO323.fa.gz,$R/$DD/zy/zpseudotritici_221.fa.gz"
    T=$(command -v gnutime || echo /usr/bin/time)
    for pair in $pairs; do
        ref=${pair%%,*}; qry=${pair#*,}; nm=$(basename "$ref" .fa.gz)
        for k in 1 2; do
            for dv in cpu cuda; do
                rm -rf "$W/rg-$dv"
                "$T" -f "%e %U %S" -o "$W/t" "$B" run -r "$ref" -q "$qry" -o "$W/rg-$dv" --gapped --threads "$NT" --device $dv --quiet
                log "run --gapped --device $dv $nm pass $k: rc=$? wall/user/sys $(cat "$W/t")"
            done
            d=$(diff -r -x manifest.json "$W/rg-cpu" "$W/rg-cuda" >/dev/null 2>&1 && echo same || echo DIFFERENT)
            log "run --gapped $nm pass $k: cuda folder vs cpu folder: $d ($(cat "$W/rg-cpu"/*.maf- | grep -c '^a ') alignments)"
        done
    done
fi

rm -rf "$W"
