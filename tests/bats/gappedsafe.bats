#!/usr/bin/env bats
# hspz gapped --outdir: output safety (docs/gapped.md "Output files", docs/cli.md interrupts):
# inputs by identity from the user's folder, --force replaces (never writes into a file this
# run did not create), an interrupt leaves no output of the run, the record and --device
# checked before any line runs.

load ../lib/common

P="$HZ_REPO/tests/data/pseudocat_pseudopig_named"

setup() { require_hspz; }

# pc_outdir DIR: hspz run on the pseudocat pair into DIR/out, run from DIR with relative -r/-q
pc_outdir() {
    mkdir -p "$1"
    cp "$P"/pseudocat_named.fa "$P"/pseudopig_named.fa "$1"/
    cd "$1"
    hz_run run -r pseudocat_named.fa -q pseudopig_named.fa -o out --threads 1 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
}

@test "gapped --outdir --force: an output that is a hard link to a relative -r is refused; the FASTA keeps its bytes" {
    pc_outdir "$BATS_TEST_TMPDIR/rel"
    cp pseudocat_named.fa orig.fa
    ln pseudocat_named.fa out/tmp1.block0.r0.plus.maf-
    run "$HSPZ" gapped --outdir out -r pseudocat_named.fa -q pseudopig_named.fa --force
    echo "$output"
    [ "$status" -ne 0 ]
    [ "${#lines[@]}" -eq 1 ]
    [ "$output" = "hspz gapped: out/tmp1.block0.r0.plus.maf- is an input of this command (pseudocat_named.fa); refused" ]
    [ -z "$(ls out | grep 'minus.maf-\|\.err')" ]                    # refused before any line ran
    cmp orig.fa pseudocat_named.fa
    [ "$(stat -c %i pseudocat_named.fa)" = "$(stat -c %i out/tmp1.block0.r0.plus.maf-)" ]
    # the same with the query, as the .err of the minus line
    rm out/tmp1.block0.r0.plus.maf-; cp pseudopig_named.fa origq.fa
    ln pseudopig_named.fa out/tmp1.block0.r0.minus.err
    run "$HSPZ" gapped --outdir out -r pseudocat_named.fa -q pseudopig_named.fa --force
    [ "$status" -ne 0 ]
    [ "$output" = "hspz gapped: out/tmp1.block0.r0.minus.err is an input of this command (pseudopig_named.fa); refused" ]
    cmp origq.fa pseudopig_named.fa
}

@test "gapped --outdir --force: replaces an output by a new file; another hard link to the old one keeps its bytes" {
    pc_outdir "$BATS_TEST_TMPDIR/hl"
    run "$HSPZ" gapped --outdir out -r pseudocat_named.fa -q pseudopig_named.fa
    [ "$status" -eq 0 ]
    mkdir ref
    cp out/tmp1.* ref/
    echo 'my notes' > notes.txt; echo 'old maf' > old.maf
    ln -f notes.txt out/tmp1.block0.r0.plus.err
    ln -f old.maf out/tmp1.block0.r0.minus.maf-
    run "$HSPZ" gapped --outdir out -r pseudocat_named.fa -q pseudopig_named.fa --force
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(cat notes.txt)" = "my notes" ]
    [ "$(cat old.maf)" = "old maf" ]
    [ "$(stat -c %h notes.txt)" -eq 1 ]
    [ "$(stat -c %h old.maf)" -eq 1 ]   # the names now hold new files
    local f n=0
    for f in ref/tmp1.*; do cmp "$f" "out/${f#ref/}"; n=$((n + 1)); done
    [ "$n" -eq 6 ]
    [ "$(grep -c '^a ' out/tmp1.block0.r0.minus.maf-)" -gt 0 ]
    [ -z "$(ls out | grep '\.tmp-')" ]
}

# interrupt SIG RC [-]: start hspz gapped --outdir on the H. pylori pair, send SIG once the lines write
interrupt() {
    local S="$HSPZ_SHARED/data/small_hpylori_g27_vs_els37" d="$BATS_TEST_TMPDIR/int$1"
    hz_run run -r "$S/hpylori_G27.fa.gz" -q "$S/hpylori_ELS37.fa.gz" -o "$d" --threads 1 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    echo 'my notes' > "$BATS_TEST_TMPDIR/notes$1"
    ln "$BATS_TEST_TMPDIR/notes$1" "$d/tmp1.block0.r0.minus.err"     # a file of before, replaced only at the end
    (cd "$d" && ls -li) > "$BATS_TEST_TMPDIR/before$1"
    set -m
    "$HSPZ" gapped --outdir "$d" -r "$S/hpylori_G27.fa.gz" -q "$S/hpylori_ELS37.fa.gz" --threads 2 --force \
        2> "$BATS_TEST_TMPDIR/err$1" & local p=$! k=0
    set +m
    while ! ls "$d" | grep -q '\.maf-' && [ $k -lt 200 ]; do sleep 0.05; k=$((k + 1)); done
    sleep 0.3
    kill -"$1" -- "$3$p"                 # $3 "-": the whole process group, as Ctrl-C sends it
    local rc=0; wait $p || rc=$?
    cat "$BATS_TEST_TMPDIR/err$1"
    [ "$rc" -eq "$2" ]
    [ "$(wc -l < "$BATS_TEST_TMPDIR/err$1")" -eq 1 ]
    grep -q "^hspz: interrupted by signal $(($2 - 128))" "$BATS_TEST_TMPDIR/err$1"
    (cd "$d" && ls -li) | diff "$BATS_TEST_TMPDIR/before$1" -          # nothing of the run, nothing changed
    [ "$(cat "$BATS_TEST_TMPDIR/notes$1")" = "my notes" ]
}

@test "gapped --outdir: SIGINT (Ctrl-C: the process group) mid-run: one line, exit 130, no output of the run left (files of before untouched)" {
    require_shared
    interrupt INT 130 -
}

@test "gapped --outdir: SIGTERM mid-run: one line, exit 143, no output of the run left" {
    require_shared
    interrupt TERM 143
}

@test "gapped --outdir: gapped-manifest.json checked before any line runs (exists without --force; a symlink also with --force)" {
    pc_outdir "$BATS_TEST_TMPDIR/gm"
    echo '{}' > out/gapped-manifest.json
    run "$HSPZ" gapped --outdir out -r pseudocat_named.fa -q pseudopig_named.fa
    [ "$status" -eq 1 ]
    [ "${#lines[@]}" -eq 1 ]
    [ "$output" = "hspz gapped: out/gapped-manifest.json exists; refused without --force" ]
    [ -z "$(ls out | grep 'maf-\|\.err')" ]
    rm out/gapped-manifest.json; ln -s "$BATS_TEST_TMPDIR/victim" out/gapped-manifest.json
    run "$HSPZ" gapped --outdir out -r pseudocat_named.fa -q pseudopig_named.fa --force
    [ "$status" -eq 1 ]
    [ "${#lines[@]}" -eq 1 ]
    [ "$output" = "hspz gapped: out/gapped-manifest.json is a symbolic link; refused (hspz never writes through or replaces one)" ]
    [ -z "$(ls out | grep 'maf-\|\.err')" ]
    [ ! -e "$BATS_TEST_TMPDIR/victim" ]
    [ -L out/gapped-manifest.json ]
}

@test "gapped --outdir --force whose line fails: the earlier gapped-manifest.json, which no longer describes the folder, is removed with one line" {
    pc_outdir "$BATS_TEST_TMPDIR/stale"
    run "$HSPZ" gapped --outdir out -r pseudocat_named.fa -q pseudopig_named.fa
    [ "$status" -eq 0 ] && [ -f out/gapped-manifest.json ] || { echo "$output"; return 1; }
    local seg; seg=$(ls out/*.segments | head -1)
    # a line that fails after --force replaced its files: the record goes
    printf 'bad line\n' >>"$seg"
    run "$HSPZ" gapped --outdir out -r pseudocat_named.fa -q pseudopig_named.fa --force
    echo "$output"
    [ "$status" -eq 1 ]
    [ ! -e out/gapped-manifest.json ]
    [[ "$output" == *"hspz gapped: out/gapped-manifest.json: removed (a file it lists was replaced by this failed run)"* ]]
}

@test "gapped --outdir --device cuda where CUDA cannot run: refused up front (exit 2), nothing written, a rerun works" {
    if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q GPU; then skip "a GPU is visible here (tests/gpu/gapped_gpu.sh covers it)"; fi
    pc_outdir "$BATS_TEST_TMPDIR/dev"
    run "$HSPZ" gapped --outdir out -r pseudocat_named.fa -q pseudopig_named.fa --device cuda
    echo "$output"
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == "hspz gapped: --device=cuda: "*"; refused before any line ran"* ]]
    [ -z "$(ls out | grep 'maf-\|\.err\|gapped-manifest')" ]
    run "$HSPZ" gapped --outdir out -r pseudocat_named.fa -q pseudopig_named.fa --device auto
    [ "$status" -eq 0 ]
    [ "$(grep -c '^a ' out/tmp1.block0.r0.plus.maf-)" -gt 0 ]
}
