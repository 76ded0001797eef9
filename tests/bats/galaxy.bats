#!/usr/bin/env bats
# The Galaxy tool's expected alignments (galaxy/test-data/*.alignments.maf, used by the tool's
# "alignments in hspz" tests, which .ci/galaxy.sh runs in a real Galaxy) are lastz's: Debian's
# lastz 1.04.22 run on hspz's data package as Batched LASTZ runs it, never hspz gapped's output.

load ../lib/common

setup() {
    require_hspz
}

@test "galaxy: test-data *.alignments.maf regenerate from Debian's lastz on the package (tests/lib/galaxy_expected.py)" {
    require_cmd lastz
    lastz --version 2>&1 | grep -q 'version 1\.04\.22' || skip "lastz is not 1.04.22: $(lastz --version 2>&1 | grep -m1 version)"
    local d="$BATS_TEST_TMPDIR/x"
    run python3 tests/lib/galaxy_expected.py "$HSPZ" "$d"
    echo "$output"
    [ "$status" -eq 0 ]
    # real content: the partitioned pair has 4 commands (plus, minus split 1-3) and 14 blocks
    [[ "$output" == *"pp_default.alignments.maf: 4 lastz commands, 14 alignments, 43878 bytes"* ]]
    [[ "$output" == *"mt_scoring.alignments.maf: 1 lastz commands, 2 alignments, 33202 bytes"* ]]
    [ "$(head -n 1 "$d/pp_default.alignments.maf")" = "##maf version=1" ]
    [ "$(grep -c '^##maf' "$d/pp_default.alignments.maf")" -eq 1 ]
    for f in pp_default.alignments.maf mt_scoring.alignments.maf; do
        cmp "$d/$f" "galaxy/test-data/$f"
    done
    # the tool's tests name these files and their sizes
    grep -q 'file="pp_default.alignments.maf"' galaxy/hspz.xml
    grep -q 'file="mt_scoring.alignments.maf"' galaxy/hspz.xml
    grep -q '<has_size value="43878"/>' galaxy/hspz.xml
    grep -q '<has_size value="33202"/>' galaxy/hspz.xml
}

@test "galaxy: alignments mode runs hspz gapped with Batched LASTZ's traceback (1.99G); its stderr check passes lastz's truncation lines, fails any other" {
    grep -q "hspz gapped --outdir 'hspz_out' .* --allocate:traceback=1.99G ||" galaxy/hspz.xml
    # the tool's check of the .err files, as the job runs it (Cheetah's \$ is sh's $)
    sed -n '/^    for e in hspz_out\/\*.err ; do$/,/^    done &&$/p' galaxy/hspz.xml | sed 's/\\\$/$/g; s/done &&$/done/' > "$BATS_TEST_TMPDIR/check.sh"
    [ "$(wc -l < "$BATS_TEST_TMPDIR/check.sh")" -ge 5 ]
    [ -d "$HSPZ_SHARED/golden/lastz-gapped" ] || skip "../shared is absent ($HSPZ_SHARED): lastz's truncation lines come from its goldens"
    cd "$BATS_TEST_TMPDIR" && mkdir -p hspz_out
    cp "$HSPZ_SHARED/golden/lastz-gapped/edge_cases_mtdna/base_traceback200K.err" hspz_out/a.err   # lastz's own lines
    grep -q '^truncating alignment' hspz_out/a.err && : > hspz_out/b.err
    run sh check.sh
    [ "$status" -eq 0 ] && [ -z "$output" ]
    echo 'FAILURE: something else' >> hspz_out/b.err
    run sh check.sh
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "FAILURE: something else" ]
}
