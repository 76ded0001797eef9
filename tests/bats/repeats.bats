#!/usr/bin/env bats
# Repeats (issue 12, item 8): a tandem array and an A-rich self-comparison put tens of
# millions of anchors into long HSPs on thousands of diagonals.  Peak memory must follow the
# plan, not the accepted HSPs (they collapse as the batch fills: src/hsp/chunk.c hz_batch_tidy),
# and the diagonal path (src/hsp/extend_diag.c) must not read a diagonal once per anchor.  Times
# against lastz are a benchmark (bench/repeats.sh), not a test; exactness on such inputs is
# the differential fuzz's (tests/gpu/fuzz_chunk.c, tandem arrays and poly-A runs).

load ../lib/common

setup() {
    require_hspz
    T="$BATS_TEST_TMPDIR"
}

# peak_run FILE CMD... — run CMD, write its peak resident set size (KiB) to FILE
peak_run() {
    local f="$1"; shift
    python3 -c 'import resource, subprocess, sys
r = subprocess.run(sys.argv[2:])
open(sys.argv[1], "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(r.returncode)' "$f" "$@"
}

@test "repeats: 200 kb tandem array of a 300 bp element (10 % divergence), both strands: under 500 MB, same bytes with 1 and 2 threads" {
    python3 bench/make_repeats.py array "$T/array.fa"
    peak_run "$T/rss" "$HSPZ" run -r "$T/array.fa" -q "$T/array.fa" -o "$T/o2" --device cpu --threads 2 2>"$T/err"
    cat "$T/err"
    rss=$(cat "$T/rss")
    echo "peak RSS ${rss} KiB"
    [ "$rss" -lt 512000 ]
    # the funnel: ~22 M anchors, nearly all on the diagonal path, 1,377 HSPs after the dedup
    anchors=$(sed -n 's/.* anchors \([0-9]*\) .*/\1/p' "$T/err")
    long=$(sed -n 's/.* long_anchors \([0-9]*\).*/\1/p' "$T/err")
    [ "$anchors" -gt 20000000 ] && [ "$long" -gt 20000000 ]
    "$HSPZ" run -r "$T/array.fa" -q "$T/array.fa" -o "$T/o1" --device cpu --threads 1 --quiet
    same_outputs "$T/o1" "$T/o2"
    [ "$(cat "$T"/o2/*.segments | wc -l)" -gt 1000 ]
}

@test "repeats: 44 kb A-rich (70 % A) identical pair, --strand plus: under 500 MB, same bytes with 1 and 2 threads" {
    python3 bench/make_repeats.py arich "$T/arich.fa"
    peak_run "$T/rss" "$HSPZ" run -r "$T/arich.fa" -q "$T/arich.fa" --strand plus -o "$T/o2" --device cpu --threads 2 2>"$T/err"
    cat "$T/err"
    rss=$(cat "$T/rss")
    echo "peak RSS ${rss} KiB"
    [ "$rss" -lt 512000 ]
    "$HSPZ" run -r "$T/arich.fa" -q "$T/arich.fa" --strand plus -o "$T/o1" --device cpu --threads 1 --quiet
    same_outputs "$T/o1" "$T/o2"
}
