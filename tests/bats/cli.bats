#!/usr/bin/env bats
# The hspz command line: errors (exit code, one 'hspz: ' line naming the file, no OUTDIR left),
# valid edge inputs, options that only shape the lastz commands, determinism.

load ../lib/common

MT=tests/data/tiny_mtdna_human_vs_orangutan
MTR=$MT/MT-human.fa
MTQ=$MT/MT-orang.fa
AO=tests/data/apple_orange
AOR=$AO/apple.fasta.gz
AOQ=$AO/orange.fasta.gz
AG=tests/data/tiny_aglobin_human_vs_cow
GOLD=tests/golden/kegalign-v03

setup() {
    require_hspz
    T="$BATS_TEST_TMPDIR"
    OUT="$T/out"
}

# check_golden OUTDIR PAIR/SETTING — the folder matches an in-repo golden case.
check_golden() {
    python3 "$HZ_LIB/golden.py" check "$1" "$GOLD/$2"
}

# run_ok ARGS... — hspz run ARGS must succeed.
run_ok() {
    hz_run run "$@"
    [ "$status" -eq 0 ] || { show_run; return 1; }
}

# usage_error ERE ARGS... — exit 2, one line matching ERE, no output folder.
usage_error() {
    local pat="$1"; shift
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" "$@"
    assert_one_error_line 2
    assert_stderr_matches "$pat"
    assert_no_outdir "$OUT"
}

# input_error TARGET QUERY NAMED [ERE] — exit 1, one line naming NAMED (and matching ERE).
input_error() {
    hz_run run -r "$1" -q "$2" -o "$OUT"
    assert_one_error_line 1
    assert_stderr_names "$3"
    if [ -n "${4:-}" ]; then assert_stderr_matches "$4"; fi
    assert_no_outdir "$OUT"
}

# fasta_map IN OUT PYTHON-EXPR — rewrite the sequence of every record with expr(s).
fasta_map() {
    python3 - "$1" "$2" "$3" <<'EOF'
import sys
src, dst, expr = sys.argv[1:4]
recs, name, seq = [], None, []
for line in open(src).read().splitlines():
    if line.startswith(">"):
        if name is not None: recs.append((name, "".join(seq)))
        name, seq = line, []
    else:
        seq.append(line)
recs.append((name, "".join(seq)))
with open(dst, "w") as f:
    for name, s in recs:
        s = eval(expr)
        f.write(name + "\n")
        for i in range(0, len(s), 70):
            f.write(s[i:i + 70] + "\n")
EOF
}

# ---------------------------------------------------------------- version and basic layout

@test "cli: --version prints exactly the project version" {
    hz_run --version
    [ "$status" -eq 0 ] || { show_run; return 1; }
    local want
    want="$(sed -n 's/^project(hspz VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)"
    [ -n "$want" ]
    [ "$output" = "$want" ] || { echo "got '$output', want '$want'"; return 1; }
    [ "$(grep -c '' "$T/stdout")" -eq 1 ]
}

@test "cli: version --verbose exits 0 and names the version" {
    hz_run version --verbose
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [[ "$output$stderr" == *0.1.0* ]] || { show_run; return 1; }
}

# The funnel fields of the contract, in order; further "key n" pairs may follow.
@test "cli: a run writes the RULES.md layout, a funnel line and a time line" {
    run_ok -r "$AOR" -q "$AOQ" -o "$OUT"
    check_golden "$OUT" apple_orange/default
    [ -f "$OUT/lastz-commands.txt" ]
    [ -f "$OUT/ref_block0.name" ] && [ -f "$OUT/query_block0.name" ]
    [ -z "$(compgen -G "$OUT.tmp-*" || true)" ]
    local f
    f="$(grep '^hspz: funnel: ' "$T/stderr")" || { show_run; return 1; }
    [[ "$f" =~ ^hspz:\ funnel:\ seeds\ [0-9]+\ anchors\ [0-9]+\ gate_survivors\ [0-9]+\ hsps_accepted\ [0-9]+\ hsps_after_dedup\ [0-9]+\ segments_written\ ([0-9]+)(\ [a-z_]+\ [0-9]+)*$ ]] ||
        { echo "funnel line format: $f"; return 1; }
    [ "${BASH_REMATCH[1]}" -eq 1225 ] || { echo "segments_written ${BASH_REMATCH[1]} != 1225"; return 1; }
    grep -q '^hspz: time: ' "$T/stderr" || { show_run; return 1; }
}

@test "cli: --quiet leaves stderr empty on success" {
    run_ok -r "$MTR" -q "$MTQ" -o "$OUT" --quiet
    [ -z "$stderr" ] || { show_run; return 1; }
    check_golden "$OUT" tiny_mtdna_human_vs_orangutan/default
}

@test "cli: --print-commands prints lastz-commands.txt on stdout" {
    run_ok -r "$AOR" -q "$AOQ" -o "$OUT" --print-commands --quiet
    [ -n "$output" ]
    diff <(sort "$T/stdout") <(sort "$OUT/lastz-commands.txt")
}

@test "cli: without --print-commands stdout is empty" {
    run_ok -r "$MTR" -q "$MTQ" -o "$OUT"
    [ -z "$output" ] || { show_run; return 1; }
}

# ---------------------------------------------------------------- output folder handling

@test "cli: an existing non-empty OUTDIR is refused without --force and left untouched" {
    # README: "an output that exists without --force (a non-empty OUTDIR ...)" (exit 1)
    mkdir -p "$OUT"; echo keep >"$OUT/mine.txt"
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT"
    [ "$status" -ne 0 ] || { show_run; return 1; }
    assert_one_error_line "$status"
    assert_stderr_names "$OUT"
    [ "$(cat "$OUT/mine.txt")" = keep ]
    [ "$(ls "$OUT")" = mine.txt ]
    [ -z "$(compgen -G "$OUT.tmp-*" || true)" ]
}

@test "cli: --force replaces an existing OUTDIR that hspz wrote" {
    # README: "--force replaces only a regular file or a folder hspz wrote ... moves the old one aside and deletes it only after the new one is in place"
    run_ok -r "$MTR" -q "$MTQ" -o "$OUT" --step 7
    hz_run report "$OUT" --quiet   # files hspz adds to its OUTDIR later go with it
    [ "$status" -eq 0 ] && [ -s "$OUT/report.html" ] || { show_run; return 1; }
    run_ok -r "$MTR" -q "$MTQ" -o "$OUT" --force
    [ ! -e "$OUT/report.html" ]
    check_golden "$OUT" tiny_mtdna_human_vs_orangutan/default
}

@test "cli: an existing empty OUTDIR is accepted" {
    mkdir -p "$OUT"
    run_ok -r "$MTR" -q "$MTQ" -o "$OUT"
    check_golden "$OUT" tiny_mtdna_human_vs_orangutan/default
}

@test "cli: inputs are not modified and nothing is written next to them" {
    mkdir "$T/in"
    cp "$MTR" "$T/in/t.fa"; gzip -c "$MTQ" >"$T/in/q.fa.gz"
    touch -d '2020-01-02 03:04:05' "$T/in/t.fa" "$T/in/q.fa.gz"
    local before after
    before="$(cd "$T/in" && stat -c '%n %s %Y' * && sha256sum *)"
    run_ok -r "$T/in/t.fa" -q "$T/in/q.fa.gz" -o "$OUT"
    after="$(cd "$T/in" && stat -c '%n %s %Y' * && sha256sum *)"
    [ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after"); return 1; }
    check_golden "$OUT" tiny_mtdna_human_vs_orangutan/default
}

# ---------------------------------------------------------------- usage errors (exit 2)

@test "cli: unknown option is a usage error" {
    usage_error -- '--bogus' --bogus
}

@test "cli: --xdrop abc is a usage error" {
    usage_error 'xdrop' --xdrop abc
}

@test "cli: --step 0 is a usage error" {
    usage_error 'step' --step 0
}

@test "cli: --hspthresh with trailing junk is a usage error" {
    usage_error 'hspthresh' --hspthresh 3000x
}

@test "cli: seed pattern of weight 3 is a usage error" {
    usage_error 'seed.*weight|weight.*seed' --seed 1100100
}

@test "cli: seed pattern of weight 16 is a usage error" {
    usage_error 'seed.*weight|weight.*seed' --seed 1111111111111111
}

@test "cli: seed pattern of span 65 is a usage error" {
    usage_error 'seed.*span|span.*seed' --seed "1111$(printf '0%.0s' $(seq 61))"
}

@test "cli: --gpus outside 0..64 is a usage error; --gpus never changes CPU output" {
    usage_error 'gpus' --gpus 65
    usage_error 'gpus' --gpus -1
    usage_error 'gpus' --gpus two
    run_ok -r "$MTR" -q "$MTQ" -o "$OUT" --device cpu --gpus 3
    check_golden "$OUT" tiny_mtdna_human_vs_orangutan/default
    [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["config"]["values"]["gpus"]["value"])' "$OUT/manifest.json")" = 3 ]
}

@test "cli: SIGINT/SIGTERM at any moment leave the finished OUTDIR and tarball, or nothing" {
    local d sig rc left n_int=0
    # apple x orange with one thread takes ~0.4 s here: the early delays interrupt it
    for d in 0.02 0.08 0.15 0.25 0.35 0.6 1.5; do
        for sig in INT TERM; do
            rm -rf "$OUT" "$OUT".*
            rc=0
            timeout --preserve-status -k 30 -s "$sig" "$d" "$HSPZ" run -r "$AOR" -q "$AOQ" -o "$OUT" --threads 1 \
                --tarball --quiet 2>"$T/err" || rc=$?
            left="$(ls -d "$OUT" "$OUT".* 2>/dev/null | tr '\n' ' ')"
            if [ "$rc" -eq 0 ]; then
                [ -d "$OUT" ] && [ -f "$OUT.tar.gz" ] && [ -f "$OUT/manifest.json" ] ||
                    { echo "delay $d $sig: exit 0 but left: $left"; return 1; }
                [ "$left" = "$OUT $OUT.tar.gz " ] || { echo "delay $d $sig: extra files: $left"; return 1; }
            else
                case "$sig" in INT) [ "$rc" -eq 130 ] ;; TERM) [ "$rc" -eq 143 ] ;; esac ||
                    { echo "delay $d $sig: exit $rc"; cat "$T/err"; return 1; }
                [ -z "$left" ] || { echo "delay $d $sig: exit $rc left: $left"; return 1; }
                # no message only when the signal came before main (the dynamic loader on a
                # loaded machine): the default action, nothing created (checked above)
                [ ! -s "$T/err" ] && continue
                grep -q "interrupted by signal" "$T/err" || { echo "delay $d $sig: no message"; cat "$T/err"; return 1; }
                [ "$(wc -l <"$T/err")" -eq 1 ] || { echo "delay $d $sig: more than one line"; cat "$T/err"; return 1; }
                n_int=$((n_int + 1))
            fi
        done
    done
    [ "$n_int" -ge 2 ] || { echo "only $n_int of 14 runs were interrupted: the test did not test much"; return 1; }
}

@test "cli: --force refuses a --config file that lies inside OUTDIR" {
    # README: "--force ... refuses when an input, scoring or --config file lies inside OUTDIR"
    mkdir -p "$OUT"
    printf 'devices:\n  threads: 1\n' >"$OUT/c.yaml"
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --force --config "$OUT/c.yaml"
    assert_one_error_line 2
    [[ "$stderr" == *"--force would delete the input $OUT/c.yaml that lies inside it"* ]] || { show_run; return 1; }
    [ -f "$OUT/c.yaml" ]
}

@test "cli: unknown --strand value is a usage error" {
    usage_error 'strand' --strand Plus
}

@test "cli: a missing -r is a usage error" {
    hz_run run -q "$MTQ" -o "$OUT"
    assert_one_error_line 2
    assert_no_outdir "$OUT"
}

@test "cli: a missing option value is a usage error" {
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --xdrop
    assert_one_error_line 2
    assert_stderr_matches 'xdrop'
    assert_no_outdir "$OUT"
}

# ---------------------------------------------------------------- input errors (exit 1)

@test "cli: missing target file" {
    input_error "$T/nope.fa" "$MTQ" "$T/nope.fa"
}

@test "cli: missing query file" {
    input_error "$MTR" "$T/nope_q.fa.gz" "$T/nope_q.fa.gz"
}

@test "cli: unreadable file (chmod 000)" {
    [ "$(id -u)" -ne 0 ] || skip "running as root: permission bits do not stop reading"
    cp "$MTR" "$T/locked.fa"; chmod 000 "$T/locked.fa"
    input_error "$T/locked.fa" "$MTQ" "$T/locked.fa"
}

@test "cli: a directory as input" {
    mkdir "$T/adir"
    input_error "$T/adir" "$MTQ" "$T/adir"
}

@test "cli: empty target file" {
    : >"$T/empty.fa"
    input_error "$T/empty.fa" "$MTQ" "$T/empty.fa"
}

@test "cli: empty gzip query file" {
    : | gzip -c >"$T/empty.fa.gz"
    input_error "$MTR" "$T/empty.fa.gz" "$T/empty.fa.gz"
}

@test "cli: truncated gzip" {
    local n; n="$(stat -c %s "$AOQ")"
    head -c $((n / 2)) "$AOQ" >"$T/trunc.fa.gz"
    input_error "$AOR" "$T/trunc.fa.gz" "$T/trunc.fa.gz"
    # cut inside the first block of decompressed data: no record was read, so no "byte offset 0"
    [ "$stderr" = "hspz: $T/trunc.fa.gz: truncated or corrupt gzip data (within its first 1048576 bytes of decompressed data)" ] || { show_run; return 1; }
}

@test "cli: gzip with a corrupt body" {
    cp "$AOQ" "$T/corrupt.fa.gz"
    printf '\xff\xff\xff\xff\xff\xff\xff\xff' | dd of="$T/corrupt.fa.gz" bs=1 seek=5000 conv=notrunc 2>/dev/null
    input_error "$AOR" "$T/corrupt.fa.gz" "$T/corrupt.fa.gz"
}

@test "cli: binary junk" {
    python3 -c 'import random,sys; r=random.Random(7); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(4096)))' >"$T/junk.bin"
    input_error "$T/junk.bin" "$MTQ" "$T/junk.bin"
}

@test "cli: text that is not FASTA" {
    printf 'hello world\nthis is not a fasta file\n' >"$T/notes.txt"
    input_error "$MTR" "$T/notes.txt" "$T/notes.txt"
}

@test "cli: sequence before the first header" {
    { echo ACGTACGTACGT; cat "$MTQ"; } >"$T/nohdr.fa"
    input_error "$MTR" "$T/nohdr.fa" "$T/nohdr.fa"
}

@test "cli: 2bit with a bad magic" {
    cp tests/data/pseudocat_pseudopig/pseudopig.2bit "$T/badmagic.2bit"
    printf '\x00\x00\x00\x00' | dd of="$T/badmagic.2bit" bs=1 seek=0 conv=notrunc 2>/dev/null
    input_error "$MTR" "$T/badmagic.2bit" "$T/badmagic.2bit"
}

@test "cli: 2bit with a truncated index names the offset or record" {
    head -c 30 tests/data/pseudocat_pseudopig/pseudopig.2bit >"$T/trunc_index.2bit"
    input_error "$MTR" "$T/trunc_index.2bit" "$T/trunc_index.2bit" 'offset|record|index|truncat'
}

@test "cli: 2bit with truncated sequence data" {
    local n; n="$(stat -c %s tests/data/pseudocat_pseudopig/pseudopig.2bit)"
    head -c $((n * 3 / 4)) tests/data/pseudocat_pseudopig/pseudopig.2bit >"$T/trunc_data.2bit"
    input_error "$MTR" "$T/trunc_data.2bit" "$T/trunc_data.2bit" 'offset|record|pig|truncat'
}

@test "cli: unparsable score file" {
    printf 'this is { not a score file\nA C G\n1 2\n' >"$T/bad_scores.txt"
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --scoring "$T/bad_scores.txt"
    assert_one_error_line 1
    assert_stderr_names "$T/bad_scores.txt"
    assert_no_outdir "$OUT"
}

@test "cli: missing score file" {
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --scoring "$T/no_scores.txt"
    assert_one_error_line 1
    assert_stderr_names "$T/no_scores.txt"
    assert_no_outdir "$OUT"
}

@test "cli: OUTDIR whose parent does not exist" {
    # README: "OUTDIR's parent folder must exist and be writable"
    hz_run run -r "$MTR" -q "$MTQ" -o "$T/no/such/parent/out"
    [ "$status" -ne 0 ] || { show_run; return 1; }
    assert_one_error_line "$status"
    assert_stderr_names "$T/no/such/parent"
    [ ! -e "$T/no" ]
}

# ---------------------------------------------------------------- valid edge inputs

@test "edge: CRLF line ends give the same output as LF" {
    sed 's/$/\r/' "$MTR" >"$T/t.fa"; sed 's/$/\r/' "$MTQ" >"$T/q.fa"
    run_ok -r "$T/t.fa" -q "$T/q.fa" -o "$OUT"
    check_golden "$OUT" tiny_mtdna_human_vs_orangutan/default
}

@test "edge: re-wrapped (70 columns) and unwrapped FASTA give the same output" {
    fasta_map "$MTR" "$T/t.fa" 's'   # 70 columns
    awk '/^>/{if(s)print s; print; s=""; next}{s=s $0}END{print s}' "$MTQ" >"$T/q.fa"
    run_ok -r "$T/t.fa" -q "$T/q.fa" -o "$OUT"
    check_golden "$OUT" tiny_mtdna_human_vs_orangutan/default
}

@test "edge: gzip and multi-member gzip inputs give the same output" {
    gzip -c "$MTR" >"$T/t.fa.gz"
    head -n 100 "$MTQ" | gzip -c >"$T/q.fa.gz"; tail -n +101 "$MTQ" | gzip -c >>"$T/q.fa.gz"
    run_ok -r "$T/t.fa.gz" -q "$T/q.fa.gz" -o "$OUT"
    check_golden "$OUT" tiny_mtdna_human_vs_orangutan/default
}

@test "edge: IUPAC letters are accepted" {
    fasta_map "$MTR" "$T/t.fa" '"".join("RYKMSWBDHV"[i % 10] if i % 997 == 500 else c for i, c in enumerate(s))'
    fasta_map "$MTQ" "$T/q.fa" '"".join("RYKMSWBDHVU"[i % 11] if i % 1009 == 300 else c for i, c in enumerate(s))'
    run_ok -r "$T/t.fa" -q "$T/q.fa" -o "$OUT"
    [ "$(seglines "$OUT" | wc -l)" -gt 0 ]
}

@test "edge: all-lowercase query is valid and gives no HSPs (soft-masked)" {
    fasta_map "$MTQ" "$T/q.fa" 's.lower()'
    run_ok -r "$MTR" -q "$T/q.fa" -o "$OUT"
    [ -f "$OUT/ref_block0.name" ] && [ -f "$OUT/query_block0.name" ]
    [ -z "$(compgen -G "$OUT/*.segments" || true)" ] || { ls "$OUT"; return 1; }
}

@test "edge: N runs are accepted" {
    fasta_map "$MTR" "$T/t.fa" 's[:3000] + "N" * 1000 + s[4000:9000] + "n" * 50 + s[9050:]'
    run_ok -r "$T/t.fa" -q "$MTQ" -o "$OUT"
    [ "$(seglines "$OUT" | wc -l)" -gt 0 ]
}

@test "edge: an empty header gives the empty name" {
    { echo '>'; tail -n +2 "$MTQ"; } >"$T/q.fa"
    run_ok -r "$MTR" -q "$T/q.fa" -o "$OUT"
    diff <(seglines "$OUT") \
         <(awk -F'\t' -v OFS='\t' '{$4=""; print}' "$GOLD"/tiny_mtdna_human_vs_orangutan/default/segments/*.segments | sort)
}

@test "edge: a header starting with a blank gives the empty name (> cat)" {
    run_ok -r tests/data/pseudocat_pseudopig/pseudocat.fa -q tests/data/pseudocat_pseudopig/pseudopig.fa -o "$OUT"
    check_golden "$OUT" pseudocat_pseudopig/default
    [ "$(cut -f1 "$OUT"/*.segments | sort -u)" = "" ]
}

@test "edge: empty records and records shorter than the seed are accepted" {
    { echo '>empty0'; cat "$MTR"; printf '>empty1\n>short1\nACGTACGTAC\n>short2\nACGTACGTACGTACGTAC\n>empty2\n'; } >"$T/t.fa"
    { printf '>short0\nACGT\n'; cat "$MTQ"; printf '>empty3\n\n>short3\nACGTACGTACGTACGTACG\n'; } >"$T/q.fa"
    run_ok -r "$T/t.fa" -q "$T/q.fa" -o "$OUT"
    [ "$(seglines "$OUT" | wc -l)" -gt 0 ]
}

@test "edge: records appended after the last one do not change the HSPs" {
    { cat "$MTR"; printf '>empty1\n>short1\nACGTACGTAC\n>empty2\n'; } >"$T/t.fa"
    { cat "$MTQ"; printf '>empty3\n>short3\nACGTACGTACGTACGTACG\n'; } >"$T/q.fa"
    run_ok -r "$T/t.fa" -q "$T/q.fa" -o "$OUT"
    diff <(seglines "$OUT") <(sort "$GOLD"/tiny_mtdna_human_vs_orangutan/default/segments/*.segments)
}

@test "edge: 2bit query written by faToTwoBit (big-endian) equals the FASTA golden" {
    run_ok -r tests/data/pseudocat_pseudopig_named/pseudocat_named.fa \
        -q tests/data/pseudocat_pseudopig/pseudopig.2bit -o "$OUT"
    check_golden "$OUT" pseudocat_pseudopig_named/default
}

@test "edge: little- and big-endian 2bit with N and mask blocks equal the FASTA golden" {
    python3 "$HZ_LIB/twobit.py" "$AG/aglobin_human.fa.gz" "$T/h.2bit" --endian little
    python3 "$HZ_LIB/twobit.py" "$AG/aglobin_cow.fa.gz" "$T/c.2bit" --endian big
    run_ok -r "$T/h.2bit" -q "$T/c.2bit" -o "$OUT"
    check_golden "$OUT" tiny_aglobin_human_vs_cow/default
}

@test "edge: a 2bit target with two records (aglobin.2bit) keeps the human x cow HSPs" {
    run_ok -r "$AG/aglobin.2bit" -q "$AG/aglobin_cow.fa.gz" -o "$OUT"
    diff <(seglines "$OUT" | awk -F'\t' '$1 == "human"') \
         <(sort "$GOLD"/tiny_aglobin_human_vs_cow/default/segments/*.segments)
}

# ---------------------------------------------------------------- option semantics

@test "options: KegAlign underscore spellings equal the blocks_small golden" {
    run_ok -r "$AOR" -q "$AOQ" -o "$OUT" --seq_block_size 100000 --lastz_interval_size 40000 --wga_chunk_size 15000
    check_golden "$OUT" apple_orange/blocks_small
}

@test "options: --opt=value spelling is accepted" {
    run_ok -r "$AOR" -q "$AOQ" -o "$OUT" --hspthresh=2000 --xdrop=500
    check_golden "$OUT" apple_orange/hsp2000_x500
}

@test "options: seed patterns equal to 12of19 (1/0 and T/0) give the default output" {
    run_ok -r "$AOR" -q "$AOQ" -o "$OUT" --seed 1110100110010101111
    check_golden "$OUT" apple_orange/default
    run_ok -r "$AOR" -q "$AOQ" -o "$T/out2" --seed TTT0T00TT00T0T0TTTT
    check_golden "$T/out2" apple_orange/default
}

@test "options: --seed 14of22 equals its pattern" {
    run_ok -r "$AOR" -q "$AOQ" -o "$OUT" --seed 14of22
    run_ok -r "$AOR" -q "$AOQ" -o "$T/out2" --seed 1110101100110010101111
    same_outputs "$OUT" "$T/out2"
}

@test "options: seed weight 4 and 15 and span 64 are accepted" {
    run_ok -r "$MTR" -q "$MTQ" -o "$T/w4" --seed 1111
    run_ok -r "$MTR" -q "$MTQ" -o "$T/w15" --seed 111111111111111
    run_ok -r "$MTR" -q "$MTQ" -o "$T/s64" --seed "1111$(printf '0%.0s' $(seq 59))1"
}

@test "options: --scoring with HOXD70 equals the default output and adds --scores=" {
    run_ok -r "$AOR" -q "$AOQ" -o "$OUT" --scoring tests/data/scoring/hoxd70.txt
    check_golden "$OUT" apple_orange/nogapped   # segments only: its command list is not compared
    local n
    n="$(grep -cE -- ' --scores=(\S*/)?hoxd70\.txt ' "$OUT/lastz-commands.txt")"
    [ "$n" -eq 2 ] || { cat "$OUT/lastz-commands.txt"; return 1; }
}

@test "options: --scoring with other keys says so once on stderr" {
    run_ok -r "$MTR" -q "$MTQ" -o "$OUT" --scoring tests/data/scoring/invented_close.txt
    [ "$(grep -ci 'hsp_threshold' "$T/stderr")" -eq 1 ] || { show_run; return 1; }
}

@test "options: LASTZ-only options shape the command line exactly" {
    run_ok -r "$MTR" -q "$MTQ" -o "$OUT" --format axt --ydrop 5000 --gappedthresh 4000 \
        --notrivial --data-folder /data/x/
    check_golden "$OUT" tiny_mtdna_human_vs_orangutan/nogapped
    local want='lastz /data/x/ref.2bit[nameparse=darkspace][multiple][subset=ref_block0.name] /data/x/query.2bit[nameparse=darkspace][subset=query_block0.name] --format=axt --ydrop=5000 --gappedthresh=4000 --strand=plus --notrivial --segments=tmp1.block0.r0.plus.segments --output=tmp1.block0.r0.plus.axt 2> tmp1.block0.r0.plus.err'
    [ "$(cat "$OUT/lastz-commands.txt")" = "$want" ] ||
        { echo "got:  $(cat "$OUT/lastz-commands.txt")"; echo "want: $want"; return 1; }
}

@test "options: --ambiguous is passed to the commands" {
    run_ok -r "$MTR" -q "$MTQ" -o "$OUT" --ambiguous iupac
    grep -q -- ' --strand=plus --ambiguous=iupac --segments=' "$OUT/lastz-commands.txt" ||
        { cat "$OUT/lastz-commands.txt"; return 1; }
}

@test "options: --nogapped keeps the segments and prints no lastz commands" {
    run_ok -r "$AOR" -q "$AOQ" -o "$OUT" --nogapped --print-commands
    check_golden "$OUT" apple_orange/nogapped
    [ -z "$output" ] || { show_run; return 1; }
    [ ! -s "$OUT/lastz-commands.txt" ]
}

@test "options: --target-prefix and --query-prefix prefix every name" {
    run_ok -r "$AOR" -q "$AOQ" -o "$OUT" --target-prefix T. --query-prefix Q.
    [ -z "$(cut -f1 "$OUT"/*.segments | grep -v '^T\.' || true)" ]
    [ -z "$(cut -f4 "$OUT"/*.segments | grep -v '^Q\.' || true)" ]
    diff <(seglines "$OUT" | sed 's/^T\.//; s/\tQ\./\t/') \
         <(sort "$GOLD"/apple_orange/default/segments/*.segments)
    diff "$OUT/ref_block0.name" <(sed 's/^/T./' "$GOLD/apple_orange/default/segments/ref_block0.name")
}

@test "options: --max-hits 0 and a huge --max-hits equal the default golden" {
    run_ok -r "$AOR" -q "$AOQ" -o "$OUT" --max-hits 0
    check_golden "$OUT" apple_orange/default
    run_ok -r "$AOR" -q "$AOQ" -o "$T/out2" --max-hits 586366720
    check_golden "$T/out2" apple_orange/default
}

# ---------------------------------------------------------------- determinism

@test "determinism: --threads 1 and --threads 2 are byte-identical (apple/orange)" {
    run_ok -r "$AOR" -q "$AOQ" -o "$T/t1" --threads 1
    run_ok -r "$AOR" -q "$AOQ" -o "$T/t2" --threads 2
    same_outputs "$T/t1" "$T/t2"
    cmp "$T/t1/lastz-commands.txt" "$T/t2/lastz-commands.txt"
    check_golden "$T/t1" apple_orange/default
}

@test "determinism: two runs with default threads are byte-identical (apple/orange)" {
    run_ok -r "$AOR" -q "$AOQ" -o "$T/r1"
    run_ok -r "$AOR" -q "$AOQ" -o "$T/r2"
    same_outputs "$T/r1" "$T/r2"
}

@test "determinism: --max-hits 1000 runs and is identical across threads" {
    run_ok -r "$AOR" -q "$AOQ" -o "$T/t1" --max-hits 1000 --threads 1
    run_ok -r "$AOR" -q "$AOQ" -o "$T/t2" --max-hits 1000 --threads 2
    same_outputs "$T/t1" "$T/t2"
    [ "$(seglines "$T/t1" | wc -l)" -gt 0 ]
}

@test "determinism: --threads 1 and --threads 2 are byte-identical (E. coli)" {
    require_shared
    # 90 s under ASan: the sanitize stage runs the apple/orange determinism tests instead
    [ "${CI_SANITIZE:-0}" = 1 ] && skip "sanitize stage (.ci/sanitize.sh): two E. coli runs are too slow under ASan"
    local d="$HSPZ_SHARED/data/small_ecoli_k12_vs_ecoli_536"
    run_ok -r "$d/ecoli_K12_MG1655.fa.gz" -q "$d/ecoli_536_NC_008253.fa.gz" -o "$T/t1" --threads 1
    run_ok -r "$d/ecoli_K12_MG1655.fa.gz" -q "$d/ecoli_536_NC_008253.fa.gz" -o "$T/t2" --threads 2
    same_outputs "$T/t1" "$T/t2"
}

@test "cli: hspz version takes only --verbose/-v (an unknown word is a usage error, exit 2)" {
    hz_run version --verbose --bogus
    [ "$status" -eq 2 ] && [[ "$stderr" == "hspz: version: unexpected argument '--bogus'"* ]]
    hz_run version extra
    [ "$status" -eq 2 ]
    hz_run version -v
    [ "$status" -eq 0 ] && [[ "$output" == *"commit "* ]]
}

@test "issue 31: a single-valued option given twice is a usage error under every spelling; flags may repeat" {
    local pair a b
    # run / plan: each option that takes a value, as two spellings (KegAlign's '_' and --opt=value too)
    for pair in "-r $MTR|--reference=$MTR" "-q $MTQ|--query $MTQ" "-o $OUT|--output=$OUT" "-T a|--target_prefix b" \
                "-Q a|--query-prefix=b" "-B 100000|--seq_block_size 200000" "-I 5|--lastz_interval_size=6" \
                "-C 5|--wga-chunk-size 6" "-m 1|--max_hits 2" "-s 12of19|--seed=14of22" "-e 1|--step 2" \
                "-S plus|--strand=minus" "-x 900|--xdrop 910" "-H 3000|--hspthresh=3001" "-a n|--ambiguous iupac" \
                "-c tests/data/scoring/hoxd70.txt|--scoring=tests/data/scoring/hoxd70.txt" "--format maf|--format=axt" \
                "--ydrop 1|--ydrop 2" "--gappedthresh 1|--gappedthresh=2" "--data-folder a/|--data_folder b/" \
                "-t 1|--num_threads 2" "--device cpu|--device=auto" "-G 1|--num_gpu 2" "-D 5|--diagonal-partition=6" \
                "-Z|-Z x.tgz" "--tarball|--tarball=x.tgz" "--config /dev/null|--config=/dev/null" "--dump-plan a|--dump-plan b" \
                "--dump-manifest a|--dump-manifest b" "--index a|--index b" "--query-list a|--query_list b"; do
        a="${pair%%|*}"; b="${pair#*|}"
        # shellcheck disable=SC2086
        hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --dry-run $a $b
        [ "$status" -eq 2 ] || { echo "run $a $b: exit $status"; show_run; return 1; }
        assert_one_error_line 2; assert_stderr_matches "given twice \(.*\): give it once"
        assert_no_outdir "$OUT"
    done
    hz_run run -r "$MTR" -r "$MTQ" -q "$MTQ" -o "$OUT"
    grep -qxF "hspz: -r/--target given twice ('$MTR', then '$MTQ'): give it once (see 'hspz help')" "$T/stderr"
    hz_run plan -r "$MTR" -q "$MTQ" -o "$T/p.json" --max-unit-hits 3 --max-unit-hits=4
    assert_one_error_line 2; assert_stderr_matches "^hspz: --max-unit-hits given twice \('3', then '4'\)"
    hz_run run --plan a --plan b --unit 1 -o "$OUT"
    assert_one_error_line 2; assert_stderr_matches "^hspz: --plan given twice"
    hz_run run --plan a --unit 1 --unit 2 -o "$OUT"
    assert_one_error_line 2; assert_stderr_matches "^hspz: --unit given twice"
    hz_run index -r "$MTR" -o "$T/i.hzi" --step 2 -e 3
    assert_one_error_line 2; assert_stderr_matches "^hspz: -e/--step given twice \('2', then '3'\)"
    hz_run merge "$T/p.json" -o "$T/a" --output "$T/b"
    assert_one_error_line 2; assert_stderr_matches "^hspz: -o/--output given twice"
    hz_run merge "$T/p.json" -o "$T/a" -t 1 --threads 2
    assert_one_error_line 2; assert_stderr_matches "^hspz: -t/--threads given twice"
    hz_run report "$T" -o "$T/a.html" --output="$T/b.html"
    assert_one_error_line 2; assert_stderr_matches "^hspz: report: -o/--output given twice"
    hz_run report "$T" --max-lines 1 --max-lines 2
    assert_one_error_line 2; assert_stderr_matches "^hspz: report: --max-lines given twice"
    # control bytes in the values are escaped
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" -T $'a\tb' -T c
    grep -qF "('a\\x09b', then 'c')" "$T/stderr"
    # flags given twice ask for the same thing: accepted
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --dry-run --force --force -n --notransition -E -E --quiet --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
}

@test "issue 31: messages: a file as parent, empty paths, one FIFO as -r and -q, bytes that are not UTF-8" {
    : >"$T/f"
    hz_run run -r "$MTR" -q "$MTQ" -o "$T/f/out"
    assert_one_error_line 1
    grep -qxF "hspz: $T/f/out: the parent '$T/f' is not a folder" "$T/stderr" || { show_run; return 1; }
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --dump-plan "$T/f/p.tsv"
    assert_one_error_line 1; assert_stderr_matches "the --dump-plan file's parent '.*/f' is not a folder"
    hz_run index -r "$MTR" -o "$T/f/i.hzi"
    assert_one_error_line 1; assert_stderr_matches "the index file's parent '.*/f' is not a folder"
    hz_run run -r "$MTR" -q "$MTQ" -o "$T/nodir/out"
    assert_one_error_line 1; assert_stderr_matches "the parent folder '.*/nodir' does not exist"
    # an empty path is a usage error (exit 2) like -o "", for every option that names a file
    local a
    for a in "-r|-r/--target: empty path" "-q|-q/--query: empty path" "--scoring|-c/--scoring: empty path" \
             "--config|--config: empty path" "--index|--index: empty path" "--query-list|--query-list: empty path"; do
        if [ "${a%%|*}" = -r ]; then hz_run run -r "" -q "$MTQ" -o "$OUT"
        elif [ "${a%%|*}" = -q ]; then hz_run run -r "$MTR" -q "" -o "$OUT"
        elif [ "${a%%|*}" = --query-list ] || [ "${a%%|*}" = --index ]; then hz_run run -r "$MTR" "${a%%|*}" "" -o "$OUT"
        else hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" "${a%%|*}" ""; fi
        assert_one_error_line 2; assert_no_outdir "$OUT"
        grep -qxF "hspz: ${a#*|} (see 'hspz help')" "$T/stderr" || { show_run; return 1; }
    done
    hz_run plan -r "" -q "$MTQ" -o "$T/p.json"
    assert_one_error_line 2; [ ! -e "$T/p.json" ]
    hz_run merge "" -o "$OUT"
    assert_one_error_line 2; assert_stderr_matches "^hspz: merge: empty PLAN path"
    hz_run index -r "" -o "$T/i.hzi"
    assert_one_error_line 2
    hz_run report ""
    assert_one_error_line 2; assert_stderr_matches "^hspz: report: empty OUTDIR path"
    # one FIFO as target and query: refused before it is opened (nothing blocks, nothing read)
    mkfifo "$T/ff"
    hz_run run -r "$T/ff" -q "$T/ff" -o "$OUT"
    assert_one_error_line 2; assert_no_outdir "$OUT"
    grep -qxF "hspz: -r/--target '$T/ff' and -q/--query '$T/ff' are the same stream, which can be read only once (give a file, or two streams) (see 'hspz help')" "$T/stderr" || { show_run; return 1; }
    # a binary query list: its bytes escaped (\xHH), UTF-8 names kept
    printf '%s\n\x80\xff\xfeabc\xc3\xa9\n' "$(realpath "$MTQ")" >"$T/ql.txt"
    hz_run run -r "$MTR" --query-list "$T/ql.txt" -o "$OUT"
    assert_one_error_line 1
    grep -qxF "hspz: $T/ql.txt: line 2: $T/\\x80\\xff\\xfeabcé: No such file or directory" "$T/stderr" || { show_run; return 1; }
}

@test "issue 31: the -D summary counts the segment files actually left" {
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" -D 5 --device cpu
    [ "$status" -eq 0 ] || { show_run; return 1; }
    local n
    n="$(find "$OUT" -name '*.segments' | wc -l)"
    [ "$n" -gt 2 ]
    [ "$n" -eq "$(grep -c split "$OUT/lastz-commands.txt")" ]
    grep -qE "^hspz: backend cpu; wrote [0-9]+ segments in $n files to " "$T/stderr" || { show_run; return 1; }
}

@test "issue 31: nothing to seed (all soft-masked, no ACGT, no bases): one note each, exit 0; --quiet says nothing" {
    (echo '>low'; sed 1d "$MTR" | tr ACGT acgt) >"$T/low.fa"
    (echo '>n'; sed 1d "$MTR" | tr ACGTacgt NNNNNNNN) >"$T/n.fa"
    printf '>a\n>b\n' >"$T/hdr.fa"
    local f why
    for f in "low.fa|every A, C, G and T is soft-masked (lower case)" "n.fa|no A, C, G or T bases (only N or other letters)" \
             "hdr.fa|no bases (headers only)"; do
        why="${f#*|}"; f="${f%%|*}"
        rm -rf "$OUT"
        hz_run run -r "$MTR" -q "$T/$f" -o "$OUT"
        [ "$status" -eq 0 ] || { show_run; return 1; }
        [ "$(grep -c 'nothing to seed' "$T/stderr")" -eq 1 ]
        grep -qxF "hspz: note: $T/$f: nothing to seed: $why; seeds use only upper-case A, C, G and T, so no HSPs can be found" "$T/stderr" || { show_run; return 1; }
        rm -rf "$OUT"
        hz_run run -r "$T/$f" -q "$MTQ" -o "$OUT" --quiet
        [ "$status" -eq 0 ] && [ ! -s "$T/stderr" ] || { show_run; return 1; }
    done
    # an ordinary pair: no such note
    rm -rf "$OUT"
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT"
    ! grep -q 'nothing to seed' "$T/stderr"
}

@test "issue 31 review: empty --ambiguous=, --device with -u/--cpu-only, bare -D named '(automatic)', '-' as an output path" {
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --dry-run --ambiguous=
    assert_one_error_line 2; assert_stderr_matches "^hspz: --ambiguous: '': empty value"
    local a
    for a in "--device cuda --cpu-only" "-u --device=cuda" "--device cpu -u"; do
        # shellcheck disable=SC2086
        hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --dry-run $a
        assert_one_error_line 2; assert_stderr_matches "^hspz: --device given twice \(.*cpu-only.*\): give it once"
    done
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --dry-run -u --cpu-only   # the flag repeated
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --dry-run -D -D 5
    assert_one_error_line 2
    grep -qF "hspz: -D/--diagonal-partition given twice ('(automatic)', then '5')" "$T/stderr" || { show_run; return 1; }
    local R Q; R=$(realpath "$MTR"); Q=$(realpath "$MTQ")
    mkdir "$T/w"; cd "$T/w"
    hz_run run -r "$R" -q "$Q" -o "$OUT" --dump-plan -
    assert_one_error_line 2; assert_stderr_matches "'-' is not stdout here"
    hz_run plan -r "$R" -q "$Q" -o -
    assert_one_error_line 2; assert_stderr_matches "'-' is not stdout here"
    hz_run report "$T" -o -
    assert_one_error_line 2; assert_stderr_matches "^hspz: report: -o: '-' is not stdout here"
    hz_run run -r "$R" -q "$Q" -o -
    assert_one_error_line 2
    [ -z "$(ls -A)" ]   # no file or folder named '-'
    assert_no_outdir "$OUT"
}
