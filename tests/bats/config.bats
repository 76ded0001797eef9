#!/usr/bin/env bats
# Configuration: conf/hspz.yaml, `hspz run --config FILE`, precedence defaults < file < flags,
# YAML errors (FILE:LINE:COLUMN + allowed values), `hspz config` round trip, HSPZ_* variables,
# `hspz run --dry-run`.

load ../lib/common

AO=tests/data/apple_orange
AOR=$AO/apple.fasta.gz
AOQ=$AO/orange.fasta.gz
GOLD=tests/golden/kegalign-v03

setup() {
    require_hspz
    T="$BATS_TEST_TMPDIR"
    OUT="$T/out"
    # a clean HSPZ_* environment (the harness's own variables are allowed)
    unset HSPZ_GATE HSPZ_GATE_KERNEL HSPZ_DEVICE_SEEDS HSPZ_DEVICE_LONG HSPZ_DEVICE_DEDUP HSPZ_REF_BUCKETS HSPZ_GPU_TILE HSPZ_SYNC HSPZ_FAULT HSPZ_TRACE
}

# value KEY — the value printed by the last `hspz config` for KEY (comment stripped).
value() {
    sed -nE "s/^  $1: (.*)  # .*/\1/p" "$T/stdout"
}
# source KEY — default | file | flag
source_of() {
    sed -nE "s/^  $1: .*  # ([a-z]+) - .*/\1/p" "$T/stdout"
}
# values FILE — "key: value" lines without comments (for comparing two configurations)
values() {
    grep -E '^  [a-z_]+: ' "$1" | sed -E 's/  # .*//'
}

# yaml_error LINE COL ERE — `hspz config --config $T/c.yaml` fails (exit 2, one line) with
# "$T/c.yaml:LINE:COL:" and a message matching ERE.
yaml_error() {
    hz_run config --config "$T/c.yaml"
    assert_one_error_line 2
    grep -qF "hspz: $T/c.yaml:$1:$2: " "$T/stderr" || { echo "want $T/c.yaml:$1:$2"; show_run; return 1; }
    assert_stderr_matches "$3"
    # the same error from `hspz run`, which creates nothing
    hz_run run --config "$T/c.yaml" -r "$AOR" -q "$AOQ" -o "$OUT"
    assert_one_error_line 2
    grep -qF "hspz: $T/c.yaml:$1:$2: " "$T/stderr" || { show_run; return 1; }
    assert_no_outdir "$OUT"
}

# ---------------------------------------------------------------- defaults and conf/hspz.yaml

@test "config: without a file every value is the built-in default" {
    hz_run config
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ "$(value xdrop)" = 910 ]; [ "$(value hspthresh)" = 3000 ]; [ "$(value ydrop)" = 9430 ]
    [ "$(value seed)" = '"12of19"' ]; [ "$(value step)" = 1 ]; [ "$(value strand)" = both ]
    [ "$(value transition)" = true ]; [ "$(value entropy)" = true ]
    [ "$(value seq_block_size)" = 500000000 ]; [ "$(value lastz_interval_size)" = 10000000 ]
    [ "$(value wga_chunk_size)" = 250000 ]; [ "$(value max_hits)" = 0 ]
    [ "$(value format)" = '"maf-"' ]; [ "$(value gappedthresh)" = -1 ]; [ "$(value data_folder)" = '"work/"' ]
    [ "$(value device)" = auto ]; [ "$(value threads)" = 0 ]; [ "$(value progress)" = auto ]
    [ "$(value target)" = null ]; [ "$(value scoring)" = null ]
    local n
    n="$(grep -cE '^  [a-z_]+: ' "$T/stdout")"
    [ "$(grep -c '  # default - ' "$T/stdout")" -eq "$n" ] || { show_run; return 1; }
}

@test "config: conf/hspz.yaml lists every key with its default" {
    hz_run config
    values "$T/stdout" >"$T/defaults"
    hz_run config --config conf/hspz.yaml
    [ "$status" -eq 0 ] || { show_run; return 1; }
    values "$T/stdout" >"$T/from_conf"
    diff "$T/defaults" "$T/from_conf"
    # every key came from the file (the file is complete)
    [ "$(grep -cE '^  [a-z_]+: ' "$T/stdout")" -eq "$(grep -c '  # file - ' "$T/stdout")" ]
    [ "$(grep -cE '^  [a-z_]+: ' "$T/stdout")" -ge 30 ]
    # a comment on every key line of conf/hspz.yaml
    ! grep -E '^  [a-z_]+: ' conf/hspz.yaml | grep -v '  # ' 
}

@test "config: run --config conf/hspz.yaml equals the default golden" {
    hz_run run --config conf/hspz.yaml -r "$AOR" -q "$AOQ" -o "$OUT" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    python3 "$HZ_LIB/golden.py" check "$OUT" "$GOLD/apple_orange/default"
}

# ---------------------------------------------------------------- precedence

@test "config: precedence default < file < flag, key by key" {
    cat >"$T/c.yaml" <<'EOF'
seeding:
  step: 2
  strand: plus
extension:
  xdrop: 500
  hspthresh: 2500
plan:
  wga_chunk_size: 100000
output:
  format: "axt"
EOF
    hz_run config --config "$T/c.yaml" --hspthresh 2000 --strand minus --xdrop 910 --ydrop 100
    [ "$status" -eq 0 ] || { show_run; return 1; }
    #        key            value     source
    local table="
xdrop            910       flag
hspthresh        2000      flag
step             2         file
strand           minus     flag
wga_chunk_size   100000    file
format           \"axt\"   file
ydrop            100       flag
seed             \"12of19\" default
seq_block_size   500000000 default
entropy          true      default"
    local k v s
    while read -r k v s; do
        [ -n "$k" ] || continue
        [ "$(value "$k")" = "$v" ] || { echo "$k: value '$(value "$k")', want '$v'"; cat "$T/stdout"; return 1; }
        [ "$(source_of "$k")" = "$s" ] || { echo "$k: source '$(source_of "$k")', want '$s'"; return 1; }
    done <<<"$table"
}

@test "config: a file value reaches the run and a flag overrides it (goldens)" {
    printf 'extension:\n  hspthresh: 2000\n  xdrop: 500\n' >"$T/c.yaml"
    hz_run run --config "$T/c.yaml" -r "$AOR" -q "$AOQ" -o "$OUT" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    python3 "$HZ_LIB/golden.py" check "$OUT" "$GOLD/apple_orange/hsp2000_x500"
    hz_run run --config "$T/c.yaml" -r "$AOR" -q "$AOQ" -o "$T/out2" --quiet --hspthresh 3000 --xdrop 910
    [ "$status" -eq 0 ] || { show_run; return 1; }
    python3 "$HZ_LIB/golden.py" check "$T/out2" "$GOLD/apple_orange/default"
}

@test "config: inputs and booleans from the file; short and underscore flags count as flags" {
    cat >"$T/c.yaml" <<EOF
inputs:
  target: "$AOR"
  query: '$AOQ'
seeding:
  transition: false
output:
  nogapped: true
EOF
    hz_run config --config "$T/c.yaml" -x 700 --seq_block_size 100000 --notransition -n
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ "$(value target)" = "\"$AOR\"" ]; [ "$(source_of target)" = file ]
    [ "$(value query)" = "\"$AOQ\"" ]
    [ "$(value transition)" = false ]; [ "$(source_of transition)" = flag ]
    [ "$(value nogapped)" = true ]; [ "$(source_of nogapped)" = file ]
    [ "$(value xdrop)" = 700 ]; [ "$(source_of xdrop)" = flag ]
    [ "$(value seq_block_size)" = 100000 ]; [ "$(source_of seq_block_size)" = flag ]
    # the run takes target and query from the file
    hz_run run --config "$T/c.yaml" -o "$OUT" --quiet --strand plus
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ -f "$OUT/manifest.json" ] && [ ! -s "$OUT/lastz-commands.txt" ]
}

# ---------------------------------------------------------------- round trip

@test "config: hspz config output fed back with --config resolves to the same values" {
    cat >"$T/c.yaml" <<'EOF'
inputs:
  target_prefix: "t \"q\" \\ x:"
seeding:
  seed: "1110100110010101111"
extension:
  entropy: false
devices:
  progress: off
  threads: 3
EOF
    hz_run config --config "$T/c.yaml" -H 2222 -S plus --ambiguous iupac --data-folder 'a b/#c/' --device cpu
    [ "$status" -eq 0 ] || { show_run; return 1; }
    cp "$T/stdout" "$T/round1.yaml"
    hz_run config --config "$T/round1.yaml"
    [ "$status" -eq 0 ] || { show_run; return 1; }
    cp "$T/stdout" "$T/round2.yaml"
    diff <(values "$T/round1.yaml") <(values "$T/round2.yaml")
    [ "$(value hspthresh)" = 2222 ]; [ "$(value entropy)" = false ]; [ "$(value progress)" = off ]
    [ "$(value ambiguous)" = '"iupac"' ]; [ "$(value data_folder)" = '"a b/#c/"' ]
    [ "$(value target_prefix)" = '"t \"q\" \\ x:"' ]
    # everything now comes from the file
    [ "$(grep -cE '^  [a-z_]+: ' "$T/round2.yaml")" -eq "$(grep -c '  # file - ' "$T/round2.yaml")" ]
    # a third round changes nothing at all (values and sources)
    hz_run config --config "$T/round2.yaml"
    diff <(grep -v '^# config file' "$T/round2.yaml") <(grep -v '^# config file' "$T/stdout")
}

# ---------------------------------------------------------------- YAML errors

@test "config error: unknown key names file:line:column and the allowed keys" {
    printf 'extension:\n  xdrop: 500\n  xdorp: 3\n' >"$T/c.yaml"
    yaml_error 3 3 "unknown key 'xdorp' in section 'extension' \(allowed: xdrop, hspthresh, entropy\)"
}

@test "config error: a key in the wrong section says where it belongs" {
    printf 'seeding:\n    xdrop: 500\n' >"$T/c.yaml"
    yaml_error 2 5 "unknown key 'xdrop' in section 'seeding' \(allowed: seed, step, transition, strand; 'xdrop' belongs in section 'extension'\)"
}

@test "config error: unknown section lists the sections" {
    printf '# comment\n\nscoring: {}\nmachine:\n  threads: 2\n' >"$T/c.yaml"
    yaml_error 4 1 "unknown section 'machine' \(allowed: inputs, scoring, seeding, extension, plan, output, devices\)"
}

@test "config error: wrong types (integer, boolean, string, mapping)" {
    printf 'extension:\n  xdrop: abc\n' >"$T/c.yaml"
    yaml_error 2 10 "extension.xdrop: expected an integer 1..100000000, got 'abc'"
    printf 'extension:\n  hspthresh: "3000"\n' >"$T/c.yaml"
    yaml_error 2 14 "expected an integer 1..1000000000, got '3000'"
    printf 'plan:\n  wga_chunk_size: 1.5e5\n' >"$T/c.yaml"
    yaml_error 2 19 "plan.wga_chunk_size: expected an integer"
    printf 'seeding:\n  transition: 1\n' >"$T/c.yaml"
    yaml_error 2 15 "seeding.transition: expected a boolean \(allowed: true, false\), got '1'"
    printf 'seeding:\n  seed: null\n' >"$T/c.yaml"
    yaml_error 2 9 "seeding.seed: expected a string, got null"
    printf 'seeding:\n  step:\n    - 1\n' >"$T/c.yaml"
    yaml_error 3 5 "seeding.step: expected a single value, got a sequence"
    printf 'seeding: 5\n' >"$T/c.yaml"
    yaml_error 1 10 "section 'seeding': expected a mapping of keys"
    printf -- '- 1\n- 2\n' >"$T/c.yaml"
    yaml_error 1 1 "expected a mapping of sections \(allowed: inputs, "
    # a plain scalar folded over lines (found by the long fuzz run): still one line, \x0a shown
    printf 'plan: {max_hits: 12tx\n\n\n  775808}\n' >"$T/c.yaml"
    yaml_error 1 18 "plan.max_hits: expected an integer 0..9223372036854775807, got '12tx\\\\x0a\\\\x0a775808'"
}

@test "config error: out-of-range values and values outside the allowed set" {
    printf 'extension:\n  xdrop: 0\n' >"$T/c.yaml"
    yaml_error 2 10 "extension.xdrop: 0 is out of range \(allowed: 1..100000000\)"
    printf 'seeding:\n  step: 1000001\n' >"$T/c.yaml"
    yaml_error 2 9 "seeding.step: 1000001 is out of range \(allowed: 1..1000000\)"
    printf 'output:\n  gappedthresh: -2\n' >"$T/c.yaml"
    yaml_error 2 17 "output.gappedthresh: -2 is out of range \(allowed: -1 or 0..2000000000\)"
    printf 'plan:\n  seq_block_size: 99999999999999999999999\n' >"$T/c.yaml"
    yaml_error 2 19 "plan.seq_block_size: expected an integer 1..4000000000"
    printf 'seeding:\n  strand: reverse\n' >"$T/c.yaml"
    yaml_error 2 11 "seeding.strand: 'reverse' is not allowed \(allowed: plus, minus, both\)"
    printf 'devices:\n  device: gpu\n' >"$T/c.yaml"
    yaml_error 2 11 "devices.device: 'gpu' is not allowed \(allowed: auto, cpu, cuda\)"
    printf 'devices:\n  progress: yes\n' >"$T/c.yaml"
    yaml_error 2 13 "allowed: auto, on, off"
    printf 'seeding:\n  seed: 12of20\n' >"$T/c.yaml"
    yaml_error 2 9 "seeding.seed: .*allowed: 12of19, 14of22 or a 1/T/0 pattern"
    printf 'output:\n  format: ""\n' >"$T/c.yaml"
    yaml_error 2 11 "output.format: expected a non-empty string"
    printf 'scoring:\n  ambiguous: ""\n' >"$T/c.yaml"   # issue 31 review: refused like other empty values
    yaml_error 2 14 "scoring.ambiguous: '': empty value"
}

@test "config error: duplicate keys and sections, YAML syntax, missing file" {
    printf 'extension:\n  xdrop: 1\n  xdrop: 2\n' >"$T/c.yaml"
    yaml_error 3 3 "key 'extension.xdrop' appears twice"
    printf 'plan: {}\nplan: {}\n' >"$T/c.yaml"
    yaml_error 2 1 "section 'plan' appears twice"
    printf 'extension:\n  xdrop: [1\n' >"$T/c.yaml"
    hz_run config --config "$T/c.yaml"
    assert_one_error_line 2
    assert_stderr_matches "c\.yaml:[0-9]+:[0-9]+: YAML syntax error"
    hz_run config --config "$T/none.yaml"
    assert_one_error_line 2
    assert_stderr_names "$T/none.yaml"
}

@test "config: a flag that overrides a bad file value does not hide the error" {
    printf 'extension:\n  xdrop: -5\n' >"$T/c.yaml"
    hz_run config --config "$T/c.yaml" --xdrop 910
    assert_one_error_line 2
    assert_stderr_matches "c\.yaml:2:10: extension\.xdrop: -5 is out of range"
}

@test "config: an empty file changes nothing" {
    : >"$T/c.yaml"
    hz_run config --config "$T/c.yaml"
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ "$(grep -c '  # file - ' "$T/stdout")" -eq 0 ]
    [ "$(value xdrop)" = 910 ]
}

# ---------------------------------------------------------------- HSPZ_* environment

@test "env: unknown HSPZ_* variables are ignored with one note naming them (none with --quiet); known ones still checked" {
    HSPZ_HOME=/opt/hspz HSPZ_HOST_MEMORY_BYTES=8000000000 hz_run run -r "$AOR" -q "$AOQ" -o "$OUT"
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ "$(grep -c 'ignoring environment variable' "$T/stderr")" -eq 1 ]
    grep -qE '^hspz: note: ignoring environment variables hspz does not read: HSPZ_(HOME, HSPZ_HOST_MEMORY_BYTES|HOST_MEMORY_BYTES, HSPZ_HOME)$' "$T/stderr" || { show_run; return 1; }
    rm -rf "$OUT"
    HSPZ_XDROP=500 hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --quiet
    [ "$status" -eq 0 ] && [ -z "$stderr" ] || { show_run; return 1; }
    HSPZ_GATES=score hz_run config
    [ "$status" -eq 0 ] && [[ "$stderr" == "hspz: note: ignoring environment variable hspz does not read: HSPZ_GATES" ]]
    HSPZ_HOME=/x HSPZ_GATE=fast hz_run config
    assert_one_error_line 2
    grep -qF "HSPZ_GATE='fast' is not allowed (allowed: score, full)" "$T/stderr"
}

@test "env: bad values are errors on the CPU path too, naming the allowed values" {
    local spec
    for spec in "HSPZ_GATE=fast|score, full" "HSPZ_GATE_KERNEL=block|refill, vec, thread, warp" "HSPZ_DEVICE_SEEDS=yes|0, 1" "HSPZ_DEVICE_LONG=2|diag, 1, 0" "HSPZ_DEVICE_DEDUP=on|1, 0" \
                "HSPZ_REF_BUCKETS=maybe|auto, on, off" "HSPZ_GPU_TILE=0|an integer 1..1073741824" \
                "HSPZ_GPU_TILE=12x|an integer 1..1073741824" "HSPZ_SYNC=sleep|block, auto, spin, yield" \
                "HSPZ_FAULT=gpu-alloc|gpu-alloc:N, gpu-kernel:N or publish-kill:N, N an integer 1..1073741824 (tests only)" \
                "HSPZ_FAULT=cpu-alloc:3|gpu-alloc:N, gpu-kernel:N or publish-kill:N, N an integer 1..1073741824 (tests only)"; do
        local kv="${spec%%|*}" allowed="${spec#*|}"
        env "$kv" "$HSPZ" run -r "$AOR" -q "$AOQ" -o "$OUT" --device cpu >"$T/stdout" 2>"$T/stderr" && status=0 || status=$?
        assert_one_error_line 2
        grep -qF "${kv%%=*}='${kv#*=}' is not allowed (allowed: $allowed)" "$T/stderr" || { echo "$kv"; show_run; return 1; }
        assert_no_outdir "$OUT"
    done
}

@test "env: valid kernel variables do not change results on the CPU" {
    HSPZ_GATE=full HSPZ_DEVICE_SEEDS=0 HSPZ_REF_BUCKETS=off HSPZ_GPU_TILE=4096 HSPZ_FAULT=gpu-alloc:1 \
        hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --device cpu --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    python3 "$HZ_LIB/golden.py" check "$OUT" "$GOLD/apple_orange/default"
}

# ---------------------------------------------------------------- dry run

@test "dry-run: prints config, inputs and plan; creates nothing" {
    hz_run run --dry-run -r "$AOR" -q "$AOQ" -o "$OUT" -B 100000 -I 40000 -C 15000
    [ "$status" -eq 0 ] || { show_run; return 1; }
    assert_no_outdir "$OUT"
    [ ! -e "$OUT.failed-manifest.json" ]
    [ "$(value seq_block_size)" = 100000 ]; [ "$(source_of seq_block_size)" = flag ]
    grep -qxF '    target_blocks: 4' "$T/stdout"
    grep -qxF '    query_blocks: 4' "$T/stdout"
    grep -qxF '    intervals: 11' "$T/stdout"
    grep -qxF '    work_units: 44' "$T/stdout"
    grep -qxF '    chunks: 224' "$T/stdout"
    grep -qxF '      records: 31' "$T/stdout"
    grep -qxF '      bases: 376646' "$T/stdout"
    grep -qxF "      bytes: $(stat -c %s "$AOQ")" "$T/stdout"
    grep -qF '      - {side: query, block: 3, ' "$T/stdout"
}

@test "dry-run: default plan of apple x orange, and --config values are used" {
    printf 'plan:\n  wga_chunk_size: 100000\n' >"$T/c.yaml"
    hz_run run --dry-run --config "$T/c.yaml" -r "$AOR" -q "$AOQ" -o "$OUT" --strand plus
    [ "$status" -eq 0 ] || { show_run; return 1; }
    assert_no_outdir "$OUT"
    grep -qxF '    target_blocks: 1' "$T/stdout"
    grep -qxF '    intervals: 1' "$T/stdout"
    # E + 1 = 376676 - 19 + 1 seed positions, plus strand only: ceil(376658 / 100000) = 4
    grep -qxF '    chunks: 4' "$T/stdout"
    [ "$(source_of wga_chunk_size)" = file ]
}

@test "dry-run: an input error exits 1 with one line and creates nothing" {
    hz_run run --dry-run -r "$T/missing.fa" -q "$AOQ" -o "$OUT"
    assert_one_error_line 1
    assert_stderr_names "$T/missing.fa"
    assert_no_outdir "$OUT"
}

@test "config: a second YAML document is an error, not silently ignored" {
    printf 'extension:\n  xdrop: 5\n---\nplan:\n  seq_block_size: 77\n' > "$BATS_TEST_TMPDIR/m.yaml"
    hz_run config --config "$BATS_TEST_TMPDIR/m.yaml"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"m.yaml:4:1: a second YAML document"* ]]
}

@test "config: --dry-run applies the OUTDIR rules (non-empty OUTDIR without --force)" {
    mkdir -p "$BATS_TEST_TMPDIR/full" && touch "$BATS_TEST_TMPDIR/full/a"
    hz_run run -r tests/data/tiny_mtdna_human_vs_orangutan/MT-human.fa \
        -q tests/data/tiny_mtdna_human_vs_orangutan/MT-orang.fa -o "$BATS_TEST_TMPDIR/full" --dry-run
    [ "$status" -eq 1 ]
    [[ "$stderr" == *"output directory exists and is not empty"* ]]
}

@test "config: hspz config's output reads back to the same bytes for strings with C1 controls and U+2028/9 (long fuzz find)" {
    printf 'inputs:\n  target_prefix: "a\\Nb\\Lc\\Pd\\x9fe"\n' >"$T/c.yaml"
    hz_run config --config "$T/c.yaml"
    [ "$status" -eq 0 ] || { show_run; return 1; }
    echo "$output" >"$T/c2.yaml"
    grep -qF 'target_prefix: "a\x85b\Lc\Pd\x9fe"' "$T/c2.yaml"
    hz_run config --config "$T/c2.yaml"
    [ "$status" -eq 0 ]
    [ "$(grep target_prefix <<<"$output" | cut -d'#' -f1)" = "$(grep target_prefix "$T/c2.yaml" | cut -d'#' -f1)" ]
}


@test "issue 31: depth and size are bounded before the YAML is parsed (fast, bounded memory)" {
    # 200 KB of nested '[' (quadratic in libyaml: 36 s before the error) fails at the 9th level
    python3 -c "print('[' * 200000)" >"$T/c.yaml"
    local t0=$SECONDS
    yaml_error 1 9 "nested deeper than 8 levels"
    [ $((SECONDS - t0)) -le 3 ]
    printf 'inputs:\n  target: [a, {b: [[[[[[c]]]]]]}]\n' >"$T/c.yaml"
    yaml_error 2 23 "nested deeper than 8 levels"
    # over 1 MiB: refused before reading it (a regular file) or after 1 MiB (a pipe), in little memory
    python3 -c "import sys; sys.stdout.write('inputs:\n  target: ' + 'a' * (8 << 20) + '\n')" >"$T/big.yaml"
    hz_run config --config "$T/big.yaml"
    assert_one_error_line 2
    grep -qxF "hspz: $T/big.yaml: 8388627 bytes; a configuration file is at most 1 MiB (conf/hspz.yaml lists every key in a few KB)" "$T/stderr" || { show_run; return 1; }
    # through a pipe: the peak memory of hspz (KB), its exit status and its message
    python3 - "$HSPZ" "$T/big.yaml" "$T/stderr" >"$T/kb" <<'PY'
import resource, subprocess, sys
hz, big, se = sys.argv[1:]
with open(big, "rb") as f, open(se, "wb") as e:
    p = subprocess.Popen([hz, "config", "--config", "/dev/stdin"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=e)
    try:
        p.stdin.write(f.read())
    except BrokenPipeError:
        pass
    p.stdin.close()
    rc = p.wait()
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
    grep -qxF "hspz: /dev/stdin: over 1 MiB; a configuration file is at most 1 MiB (conf/hspz.yaml lists every key in a few KB)" "$T/stderr" || { cat "$T/stderr"; return 1; }
    read -r rc kb <"$T/kb"
    [ "$rc" -eq 2 ] && [ "$kb" -lt 60000 ] || { echo "exit $rc, max RSS $kb KB"; return 1; }
    # exactly 1 MiB of comments is still read
    python3 -c "import sys; s = 'seeding:\n  step: 2\n'; sys.stdout.write(s + '#' * ((1 << 20) - len(s) - 1) + '\n')" >"$T/ok.yaml"
    [ "$(stat -c %s "$T/ok.yaml")" -eq 1048576 ]
    hz_run config --config "$T/ok.yaml"
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ "$(value step)" = 2 ]
}
