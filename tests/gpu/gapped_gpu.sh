#!/bin/bash
# The gapped stage on the GPU (issue 35; src/gapped/gapped_dev.h): `hspz gapped --device=cuda`
# gives lastz 1.04.22's bytes (== the CPU path's, tests/bats/gapped.bats) on the tiny and small
# goldens of ../shared/golden/lastz-gapped, on 1 and 4 threads and in batches of 6 halves.
# Exit 77 (skipped) where no GPU can run it; 1 on a difference.
# Usage (repo root): tests/gpu/gapped_gpu.sh HSPZ     (HSPZ_SHARED: default ../shared)
set -u
export HSPZ=${1:?hspz binary} HSPZ_SHARED=${HSPZ_SHARED:-$PWD/../shared}
[ -d "$HSPZ_SHARED/golden/lastz-gapped" ] || { echo "skip: no $HSPZ_SHARED/golden/lastz-gapped"; exit 77; }
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
probe=$(HSPZ_GAPPED_EXTRA=--device=cuda tests/lib/gapped_golden.sh tiny_mtdna_human_vs_orangutan maf plus "$W/probe" 2>&1)
case $probe in *"no CUDA device"*|*"built without CUDA"*|*"too little GPU memory"*) echo "skip: $(grep -h device "$W/probe/stderr.txt")"; exit 77 ;; esac
fail=0
one() { local o; o=$("$@" 2>&1) || fail=1; echo "$o"; }
for c in "tiny_mtdna_human_vs_orangutan maf plus" "tiny_aglobin_human_vs_cow maf plus" "tiny_aglobin_human_vs_cow axt plus" \
         "tiny_lastz_pseudocat_vs_pseudopig maf plus" "tiny_lastz_pseudocat_vs_pseudopig maf minus" \
         "tiny_lastz_pseudocat_vs_pseudopig axt minus" "tiny_kegalign_apple_vs_orange_SYNTHETIC maf plus" \
         "tiny_kegalign_apple_vs_orange_SYNTHETIC axt minus" "small_hpylori_g27_vs_els37 maf plus" \
         "small_hpylori_g27_vs_els37 maf minus"; do
    set -- $c
    one env HSPZ_GAPPED_EXTRA=--device=cuda tests/lib/gapped_golden.sh "$@" "$W/$1$2$3"
    one env HSPZ_GAPPED_EXTRA=--device=cuda tests/lib/gapped_golden.sh "$@" "$W/$1$2$3.t4" 4
done
one env HSPZ_GAPPED_BATCH=6 HSPZ_GAPPED_EXTRA=--device=cuda tests/lib/gapped_golden.sh tiny_kegalign_apple_vs_orange_SYNTHETIC maf minus "$W/b6"
exit $fail
