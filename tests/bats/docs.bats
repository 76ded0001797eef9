#!/usr/bin/env bats
# Every command that README.md and docs/*.md show runs as written (tests/lib/doc_commands.py:
# each ```sh block from a scratch copy of the repository root, with build/hspz the binary under
# test), and every link between them resolves.  Blocks that need Docker, Galaxy, Nextflow, a
# GPU or the network, or that are the test command itself, carry
# <!-- doc-test: skip (REASON) --> and are listed here with their reason.

load ../lib/common

DOCS=(README.md docs/*.md)

setup() {
    require_hspz
}

# doc_run FILE... — run the blocks; print each skipped block and its reason into the TAP log.
doc_run() {
    run python3 "$HZ_LIB/doc_commands.py" run --hspz "$HSPZ" "$@"
    local l
    while IFS= read -r l; do
        case "$l" in skip\ *) echo "# $l" >&3 ;; esac
    done <<<"$output"
}

@test "docs: every sh block of README.md runs (skips name their reason)" {
    doc_run README.md
    echo "$output"
    [ "$status" -eq 0 ]
    # the checker really ran the usage examples: run, report, plan/unit/merge, index, drop-in
    [ "$(grep -c '^ok ' <<<"$output")" -ge 5 ]
    ! grep -q '^skip .*()' <<<"$output"
}

@test "docs: every sh block of docs/*.md runs (skips name their reason)" {
    doc_run docs/*.md
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(grep -c '^ok ' <<<"$output")" -ge 10 ]
}

@test "docs: the Quick start's two commands are skipped here because CI runs them" {
    run python3 "$HZ_LIB/doc_commands.py" list README.md
    [ "$status" -eq 0 ]
    local qs
    qs=$(awk '/^## Quick start/{q=1} q&&/^```sh/{print NR; exit}' README.md)
    grep -q "^README.md:$qs	sh	skip (CI's fresh-root stage runs both" <<<"$output"
}

@test "docs: links and #anchors between README.md and docs/ resolve" {
    run python3 "$HZ_LIB/doc_commands.py" links "${DOCS[@]}"
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "docs: a documented command that breaks, a broken link and a bad marker fail the check" {
    local d="$BATS_TEST_TMPDIR"
    # README with a wrong option planted in its first example (the Run section)
    sed 's#-o out/ao$#-o out/ao --wga-chunk-sise 15000#' README.md >"$d/README.md"
    ! cmp -s README.md "$d/README.md"
    run python3 "$HZ_LIB/doc_commands.py" run --hspz "$HSPZ" "$d/README.md"
    echo "$output"
    [ "$status" -eq 1 ]
    grep -q "^FAIL .*README.md:[0-9]*: exit 2 " <<<"$output"
    grep -q "hspz: unknown option '--wga-chunk-sise'" <<<"$output"
    [ "$(grep -c '^ok ' <<<"$output")" -eq 0 ]   # the first block failed, the rest did not run
    # a link to a missing page and to a missing heading
    cp -r docs "$d/docs"
    printf '[a](docs/nope.md) [b](docs/cli.md#no-such-heading) [c](docs/cli.md#exit-status) [d](../x.md)\n' >"$d/t.md"
    run python3 "$HZ_LIB/doc_commands.py" links --root "$d" "$d/t.md"
    echo "$output"
    [ "$status" -eq 1 ]
    grep -q "link 'docs/nope.md': no file docs/nope.md" <<<"$output"
    grep -q "link 'docs/cli.md#no-such-heading': no heading #no-such-heading" <<<"$output"
    grep -q "link '../x.md' leaves the repository" <<<"$output"
    ! grep -q "exit-status" <<<"$output"
    [ "$(wc -l <<<"$output")" -eq 3 ]
    # a skip without a reason, and a marker with no block after it
    printf '<!-- doc-test: skip -->\n```sh\ntrue\n```\n' >"$d/m1.md"
    run python3 "$HZ_LIB/doc_commands.py" list "$d/m1.md"
    [ "$status" -eq 2 ]
    grep -q "unknown doc-test marker 'skip'" <<<"$output"
    printf '<!-- doc-test: skip (x) -->\ntext\n' >"$d/m2.md"
    run python3 "$HZ_LIB/doc_commands.py" list "$d/m2.md"
    [ "$status" -eq 2 ]
    grep -q "not followed by a fenced block" <<<"$output"
}
