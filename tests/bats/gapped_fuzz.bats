#!/usr/bin/env bats
# hspz gapped against Debian's lastz 1.04.22 on random inputs (issue 34's fuzz target):
# tests/lib/gapped_fuzz.py makes cases (random records with planted homologies, random
# segments files, random supported option sets), runs lastz and hspz gapped on each and
# compares output file, stdout, stderr and exit status byte for byte.
#   HSPZ_GAPPED_FUZZ_SECONDS  time budget (default 40: the normal suite stays under a minute)
#   HSPZ_GAPPED_FUZZ_SEED     seed (default 34: the same cases on every run, as many as fit)

load ../lib/common

setup() {
    require_hspz
    require_cmd lastz
    require_cmd python3
}

@test "gapped fuzz: random sequences, planted homologies, random segments and options = lastz's bytes (time-bounded)" {
    local s="${HSPZ_GAPPED_FUZZ_SECONDS:-40}" seed="${HSPZ_GAPPED_FUZZ_SEED:-34}"
    run python3 "$HZ_LIB/gapped_fuzz.py" --hspz "$HSPZ" --seconds "$s" --seed "$seed" \
        --work "$BATS_TEST_TMPDIR/fuzz" --repro "$BATS_TEST_TMPDIR/repro" --quiet
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "${lines[-1]}" == "gapped_fuzz: "*" all equal "* ]]
    # it ran cases, and some of them made alignments (not only errors)
    local n; n=$(sed -n 's/^gapped_fuzz: \([0-9]*\) cases.*/\1/p' <<<"${lines[-1]}")
    [ "$n" -ge 5 ]
}

@test "gapped fuzz: the generator is deterministic and its cases are valid lastz input" {
    # the same seed gives the same files; lastz accepts most cases (the few error cases are planted)
    local d="$BATS_TEST_TMPDIR"
    mkdir -p "$d/r1" "$d/r2" "$d/r3"
    python3 - "$HZ_LIB" "$d" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import gapped_fuzz as g
for k, seed in (("r1", "det"), ("r2", "det"), ("r3", "other")):
    for i in range(5):
        import os
        os.makedirs("%s/%s/%d" % (sys.argv[2], k, i))
        c = g.gen_case(seed, i); g.fix_family_b(c); g.render(c, "%s/%s/%d" % (sys.argv[2], k, i))
PY
    diff -r "$d/r1" "$d/r2"
    ! diff -r -q "$d/r1" "$d/r3" >/dev/null
    run python3 "$HZ_LIB/gapped_fuzz.py" --hspz "$HSPZ" --cases 12 --seed det --work "$d/a" --quiet
    [ "$status" -eq 0 ] || { echo "$output"; return 1; }
    [[ "$output" == *"12 cases"*"all equal ("*" with alignments or none, "*" lastz errors"* ]]
    local ok; ok=$(sed -n 's/.*all equal (\([0-9]*\) with alignments.*/\1/p' <<<"$output")
    [ "$ok" -ge 9 ]
}

# replay DIR [ARGS]: the regression case of tests/data/gapped_fuzz/DIR (reduced by
# gapped_fuzz.py), its args file (or ARGS) one argument a line, run by lastz and by hspz gapped
# in a copy of the folder
replay() {
    local src="$HZ_DATA/gapped_fuzz/$1" w="$BATS_TEST_TMPDIR/$1" args=() x
    rm -rf "$w"; cp -r "$src" "$w" && cd "$w"
    mapfile -t args < "${2:-args}"
    local lrc=0 hrc=0
    lastz "${args[@]}" > lastz.stdout 2> lastz.stderr || lrc=$?
    [ ! -e res.out ] || mv res.out lastz.out
    "$HSPZ" gapped "${args[@]}" > hspz.stdout 2> hspz.stderr || hrc=$?
    [ ! -e res.out ] || mv res.out hspz.out
    [ "$lrc" = "$hrc" ] || { echo "$1: exit status lastz $lrc, hspz $hrc"; cat hspz.stderr; return 1; }
    for x in stdout stderr; do cmp lastz.$x hspz.$x || { echo "$1: $x differs"; diff lastz.$x hspz.$x | head; return 1; }; done
    # a failing lastz leaves an empty --output file, hspz none (docs/gapped.md)
    if [ -s lastz.out ] || { [ -e lastz.out ] && [ "$lrc" = 0 ]; }; then
        cmp lastz.out hspz.out || { echo "$1: output differs"; diff lastz.out hspz.out | head; return 1; }
    fi
    echo "$1: equal (exit $lrc, $(cat lastz.out lastz.stdout 2>/dev/null | grep -c '^a \|^[0-9]') alignments)"
}

# cases the fuzzer found (docs/testing.md); each differed before its fix
@test "gapped fuzz regression: a gap piece left of the anchor's column masks nothing (unsigned x)" {
    replay horz_left_of_anchor
    [ "$(grep -c '^a ' lastz.out)" -eq 2 ]
}

@test "gapped fuzz regression: a FASTA [subset=] name is the record's short name (lastz's two-line failure)" {
    replay fasta_subset_short_name
    [ "$(grep -c 'does not contain' lastz.stderr)" -eq 1 ]
}

@test "gapped fuzz regression: --ambiguous=n,R,P shows in the header's N row and column of a score file" {
    replay ambiguous_header_n_row
    grep -q '^#   N -144 -144 -144 -144   31$' lastz.out
}

@test "gapped fuzz regression: a score file's hsp_threshold is L when no gapped threshold is given" {
    replay scorefile_hsp_threshold
    grep -q '^# gapped_threshold   = 1000$' lastz.out
    [ "$(grep -c '^[0-9]' lastz.out)" -eq 1 ]
}

@test "gapped fuzz regression: lastz's warnings for a score file without hsp_threshold (minimum, maximum)" {
    replay scorefile_warning_min
    grep -q '^Minimum match score is 60, for matrix entry (C,C)' lastz.stderr
    replay scorefile_warning_max
    grep -q '^Maximum match score is 130, for matrix entry (G,G)' lastz.stderr
}

@test "gapped fuzz regression: a query [subset=] name missing after a found one: the found record's alignments, then lastz's failure" {
    replay query_subset_missing_later
    [ "$(grep -c '^a ' lastz.out)" -eq 1 ]
    grep -q 'the sequence "q378:12"' lastz.stderr
}

@test "gapped fuzz regression: interpolation box of two identical sequences: LASTZ's trivial alignment (with and without --notrivial)" {
    # the outer alignment is truncated (m=100K); the box after it holds identical sequences
    replay inner_box_trivial
    grep -q '^1 t322 356 1591 q401 357 1592 + 118038$' lastz.out
    replay inner_box_trivial args.notrivial
    [ "$(grep -c '^[0-9]' lastz.out)" -eq 1 ]
}

@test "gapped fuzz regression: an interpolation box without alignments (UBSan: memcpy to NULL; the sanitize stage replays these cases)" {
    replay inner_box_no_alignment
    [ "$(grep -c '^[0-9]' lastz.out)" -ge 1 ]
}
