#!/usr/bin/env bats
# Hardening (issue 12, items 5, 6, 7, 10 and the exit status table): inputs whose package
# lastz cannot run are refused up front (src/run/inputcheck.c) or made usable, late failures are
# checked before any work, every value in lastz-commands.txt is quoted for sh, odd bases get a
# note, and each exit status class of README "Exit status" is what the table says.
# The lastz tests run Debian's lastz on the package hspz wrote (as Galaxy's batched_lastz
# and the Nextflow HSPZ_LASTZ task do: extract, cd galaxy/files, run a command line).

load ../lib/common

MT=tests/data/tiny_mtdna_human_vs_orangutan
MTR=$MT/MT-human.fa
MTQ=$MT/MT-orang.fa
AO=tests/data/apple_orange
PC=tests/data/pseudocat_pseudopig

setup() {
    require_hspz
    T="$BATS_TEST_TMPDIR"
    OUT="$T/out"
}

# run_commands OUTDIR TARBALL DEST [N] — extract TARBALL into DEST with the data filter and
# run the first N (default all) lines of OUTDIR/lastz-commands.txt with sh from
# DEST/galaxy/files.  Fails unless every line exits 0 with an empty .err file and a
# non-empty --output file.
run_commands() {
    local out="$1" tgz="$2" dest="$3" n="${4:-0}" i=0 line rc errf
    python3 -c 'import sys; sys.path.insert(0, "tests/lib"); from tarsafe import extract_data; extract_data(sys.argv[1], sys.argv[2])' \
        "$tgz" "$dest"
    [ -s "$out/lastz-commands.txt" ] || { echo "no lastz commands in $out"; return 1; }
    while IFS= read -r line; do
        i=$((i + 1))
        [ "$n" -eq 0 ] || [ "$i" -le "$n" ] || break
        rc=0
        (cd "$dest/galaxy/files" && sh -c "$line") || rc=$?
        errf="$(sed -n 's/.* 2> \([^ ]*\.err\)$/\1/p' <<<"$line")"
        [ "$rc" -eq 0 ] && [ -f "$dest/galaxy/files/$errf" ] && [ ! -s "$dest/galaxy/files/$errf" ] ||
            { echo "line $i: exit $rc: $line"; cat "$dest/galaxy/files/$errf" 2>/dev/null; return 1; }
    done <"$out/lastz-commands.txt"
    [ "$i" -gt 0 ]
}

# refused CODE ERE ARGS... — hspz run ARGS fails with CODE, one 'hspz: ' line matching ERE,
# and leaves no OUTDIR, OUTDIR.tmp-*, tarball or failure manifest's temporary files.
refused() {
    local code="$1" pat="$2"; shift 2
    hz_run run "$@"
    assert_one_error_line "$code"
    assert_stderr_matches "$pat"
    assert_no_outdir "$OUT"
    [ ! -e "$OUT.tar.gz" ] || { echo "a tarball was left"; return 1; }
}

# ---------------------------------------------------------------- item 5: output lastz can use

@test "hardening: positive control: the package's lastz commands run (prefixes, every line)" {
    require_cmd lastz
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --tarball --target-prefix hg. --query-prefix po. --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    run_commands "$OUT" "$OUT.tar.gz" "$T/x"
    grep -q '^s hg\.MT_human ' "$T/x/galaxy/files/tmp1.block0.r0.plus.maf-"
}

@test "hardening: duplicate names (after the prefix) are refused before any work, naming both records" {
    cat "$MTR" "$MTR" >"$T/dup.fa"
    refused 1 "dup\.fa: record 2 'MT_human' has the same name as record 1; segment lines and lastz could not tell them apart" \
        -r "$T/dup.fa" -q "$MTQ" -o "$OUT" --tarball
    # without --tarball too: the segment lines themselves would be ambiguous
    refused 1 "record 2 'MT_human' has the same name as record 1" -r "$T/dup.fa" -q "$MTQ" -o "$OUT"
    # two names that the prefix makes equal are not (pseudopig: three records named ''), but
    # with --query-prefix they become duplicates
    refused 1 "pseudopig\.fa: record 2 'pig' has the same name as record 1 \(with --query-prefix 'pig'\)" \
        -r $PC/pseudocat.fa -q $PC/pseudopig.fa -o "$OUT" --query-prefix pig
}

@test "hardening: a prefix with a blank or control byte is a usage error (exit 2), also from --config" {
    refused 2 "-T/--target-prefix: 'a b' holds a blank or control byte \(0x20 at byte 2\)" \
        -r "$MTR" -q "$MTQ" -o "$OUT" --target-prefix 'a b' --tarball
    # control bytes are shown as \xHH: the message stays one line
    refused 2 "-Q/--query-prefix: 'x\\\\x09' holds a blank" -r "$MTR" -q "$MTQ" -o "$OUT" --query-prefix "$(printf 'x\t')"
    printf 'inputs:\n  target_prefix: "a b"\n' >"$T/c.yaml"
    refused 2 "target-prefix: 'a b'" -r "$MTR" -q "$MTQ" -o "$OUT" --config "$T/c.yaml"
    hz_run plan -r "$MTR" -q "$MTQ" -o "$T/p.json" --target-prefix 'a b'
    assert_one_error_line 2
    [ ! -e "$T/p.json" ]
}

@test "hardening: empty names and 0-base records: refused with --tarball, KegAlign's output and a note without" {
    require_cmd lastz
    (printf '>\n'; tail -n +2 "$MTR") >"$T/noname.fa"
    (cat "$MTR"; printf '>empty\n>empty2\n') >"$T/zero.fa"
    refused 1 "noname\.fa: record 1 '' has an empty name; lastz selects records by name .*so --tarball cannot package it" \
        -r "$T/noname.fa" -q "$MTQ" -o "$OUT" --tarball
    refused 1 "zero\.fa: record 2 'empty' has no bases; LASTZ refuses a 2bit record of length 0 \(\"bad 2bit length\"\), so --tarball cannot package it" \
        -r "$T/zero.fa" -q "$MTQ" -o "$OUT" --tarball
    # without --tarball: KegAlign's bytes (the pseudocat golden has empty names) and one note each
    hz_run run -r "$T/zero.fa" -q "$MTQ" -o "$OUT"
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ "$(grep -c '^hspz: note: .*zero\.fa: 2 records have no bases (first: record 2 .empty.); the segments are KegAlign.s' <<<"$stderr")" -eq 1 ]
    diff <(cat "$OUT"/*.segments) <(cat "$HZ_GOLDEN"/tiny_mtdna_human_vs_orangutan/default/segments/*.segments)
    [ "$(cat "$OUT/ref_block0.name")" = "$(printf 'MT_human\nempty\nempty2')" ]
    rm -rf "$OUT"
    hz_run run -r $PC/pseudocat.fa -q $PC/pseudopig.fa -o "$OUT"
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [[ "$stderr" == *"hspz: note: $PC/pseudopig.fa: 3 records have an empty name (first: record 1 '')"* ]]
    rm -rf "$OUT"
    hz_run run -r $PC/pseudocat.fa -q $PC/pseudopig.fa -o "$OUT" --quiet
    [ "$status" -eq 0 ] && [ -z "$stderr" ]
    # why: LASTZ itself refuses a 0-base record in a 2bit (faToTwoBit's layout, tests/lib/twobit.py)
    python3 "$HZ_LIB/twobit.py" "$T/zero.fa" "$T/zero.2bit"
    run lastz "$T/zero.2bit[multiple]" "$MTQ" --nogapped --format=general:name1
    [[ "$output" == *"bad 2bit length"* ]]
}

@test "hardening: CR-only line ends are refused while loading (KegAlign would read no bases, LASTZ misreads them)" {
    require_cmd lastz
    tr '\n' '\r' <"$MTR" >"$T/cr.fa"
    refused 1 "cr\.fa: carriage return without a line feed in the header line \(CR-only line ends: KegAlign would read no bases; convert with tr '.r' '.n'\) \(record 1 'MT_human', byte offset 9\)" \
        -r "$T/cr.fa" -q "$MTQ" -o "$OUT"
    hz_run run --dry-run -r "$MTR" -q "$T/cr.fa" -o "$OUT"
    assert_one_error_line 1
    # CRLF is fine and gives the golden bytes
    sed 's/$/\r/' "$MTR" >"$T/crlf.fa"
    hz_run run -r "$T/crlf.fa" -q "$MTQ" -o "$OUT" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    diff <(cat "$OUT"/*.segments) <(cat "$HZ_GOLDEN"/tiny_mtdna_human_vs_orangutan/default/segments/*.segments)
    # LASTZ on a CR-only file: one record loses its first base, two records read as nothing
    run lastz "$T/cr.fa" "$MTQ" --nogapped --format=general:size1
    [ "$(sed -n 2p <<<"$output")" = 16568 ]
    printf '>a\rACGTTGCAAGGCTTAACCGT\r>b\rGGATCCATGCA\r' >"$T/cr2.fa"
    run lastz "$T/cr2.fa[multiple]" "$MTQ" --nogapped
    [[ "$output" == *"contains no sequence"* ]]
}

@test "hardening: --dry-run and hspz plan apply the record rules before anything is written" {
    cat "$MTR" "$MTR" >"$T/dup.fa"
    hz_run run --dry-run -r "$T/dup.fa" -q "$MTQ" -o "$OUT"
    assert_one_error_line 1
    assert_stderr_matches "record 2 'MT_human' has the same name as record 1"
    [ -z "$output" ]
    hz_run plan -r "$T/dup.fa" -q "$MTQ" -o "$T/p.json"
    assert_one_error_line 1
    [ ! -e "$T/p.json" ]
    # a plan made for --tarball refuses what its merge could not package
    (printf '>\n'; tail -n +2 "$MTR") >"$T/noname.fa"
    hz_run plan -r "$T/noname.fa" -q "$MTQ" -o "$T/p.json" --tarball
    assert_one_error_line 1
    assert_stderr_matches "record 1 '' has an empty name"
    hz_run plan -r "$T/noname.fa" -q "$MTQ" -o "$T/p.json" --quiet
    [ "$status" -eq 0 ] && [ -s "$T/p.json" ]
}

# ---------------------------------------------------------------- item 6: late failures

@test "hardening: --tarball=OUTDIR, a tarball inside OUTDIR or an existing one fail at once" {
    ( cd "$T" && "$HSPZ" run -r "$HZ_REPO/$MTR" -q "$HZ_REPO/$MTQ" -o pd2 --tarball=pd2 ) 2>"$T/err" && rc=0 || rc=$?
    [ "$rc" -eq 2 ] && [ "$(cat "$T/err")" = "hspz: pd2: the tarball cannot be OUTDIR or inside it" ]
    ( cd "$T" && "$HSPZ" run -r "$HZ_REPO/$MTR" -q "$HZ_REPO/$MTQ" -o pd3/ --tarball=pd3/x.tgz ) 2>"$T/err" && rc=0 || rc=$?
    [ "$rc" -eq 2 ] && grep -q "cannot be OUTDIR or inside it" "$T/err"
    [ -z "$(ls "$T" | grep -v '^err$' || true)" ]
    mkdir "$T/real" && ln -s real "$T/link"
    refused 2 "the tarball cannot be OUTDIR or inside it" -r "$MTR" -q "$MTQ" -o "$T/real" --tarball="$T/link/x.tgz"
    touch "$T/have.tgz"
    refused 1 "have\.tgz: the tarball exists \(use --force to replace it\)" -r "$MTR" -q "$MTQ" -o "$OUT" --tarball="$T/have.tgz"
}

@test "hardening: a 300-byte record name with --tarball is refused before any work; long data folders work" {
    require_cmd lastz
    (printf '>%0300d\n' 7; tail -n +2 "$MTR") >"$T/long.fa"
    refused 1 "long\.fa: record 1 '0{60}\.\.\.' has a name longer than 255 bytes, the 2bit limit, so --tarball cannot package it" \
        -r "$T/long.fa" -q "$MTQ" -o "$OUT" --tarball
    ! grep -q 'tmp-' "$T/stderr"
    # without --tarball the run is KegAlign's, with a note
    hz_run run -r "$T/long.fa" -q "$MTQ" -o "$OUT"
    [ "$status" -eq 0 ] && grep -q "^hspz: note: .*long\.fa: 1 record has a name longer than 255 bytes" "$T/stderr"
    rm -rf "$OUT"
    # member names past tar's 100 bytes are fine (GNU long names): a 330-byte data folder
    local df; df="$(printf 'abcdefghi/%.0s' $(seq 33))"
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --tarball --data-folder "$df" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    run_commands "$OUT" "$OUT.tar.gz" "$T/x" 1
    [ -s "$T/x/galaxy/files/${df}ref.2bit" ]
    # a component no file system can hold is refused up front (usage error)
    rm -rf "$OUT" "$OUT.tar.gz"
    refused 2 "--data-folder '.*' must be a relative path without '\.', '\.\.', empty or over 255-byte components" \
        -r "$MTR" -q "$MTQ" -o "$OUT" --tarball --data-folder "$(printf 'd%.0s' $(seq 256))/"
}

# ---------------------------------------------------------------- item 7: shell quoting

@test "hardening: a name ending in .fa, .fasta, .nib, .2bit or .hsx: refused with --tarball and --gapped, a note without" {
    require_cmd lastz
    # why: lastz drops those endings (case-sensitive) from a longer name, so the package's lines
    # select and name a record lastz does not have
    local s; s="$(sed -n 2,8p "$MTR" | tr -d '\n')"
    printf '>x.fa\n%s\n>y.FA\n%s\n>.fa\n%s\n' "$s" "$s" "$s" >"$T/n.fa"
    run lastz "$T/n.fa[multiple]" "$T/n.fa" --format=general:name1 --strand=plus --nogapped
    [ "$(tail -n +2 <<<"$output" | sort -u | tr '\n' ' ')" = ".fa x y.FA " ] || { echo "$output"; return 1; }
    sed '1s/^>MT_orang/>MT_orang.fa/' "$MTQ" >"$T/q.fa"
    refused 1 "q\.fa: record 1 'MT_orang\.fa' has a name ending in \.fa, \.fasta, \.nib, \.2bit or \.hsx, which lastz drops .*so --tarball cannot package it" \
        -r "$MTR" -q "$T/q.fa" -o "$OUT" --tarball
    refused 1 "q\.fa: record 1 'MT_orang\.fa' has a name ending in .*so --gapped cannot align it" -r "$MTR" -q "$T/q.fa" -o "$OUT" --gapped
    local e
    for e in fasta nib 2bit hsx; do
        sed "1s/^>MT_human.*/>h.$e/" "$MTR" >"$T/t.fa"
        refused 1 "t\.fa: record 1 'h\.$e' has a name ending in " -r "$T/t.fa" -q "$MTQ" -o "$OUT" --tarball
    done
    # a --target-prefix does not help (the ending stays last)
    refused 1 "q\.fa: record 1 'po\.MT_orang\.fa' has a name ending in " -r "$MTR" -q "$T/q.fa" -o "$OUT" --tarball --query-prefix po.
    # without them: KegAlign's segments with a note
    hz_run run -r "$MTR" -q "$T/q.fa" -o "$OUT"
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ "$(grep -c "^hspz: note: .*q\.fa: 1 record has a name ending in \.fa, \.fasta, \.nib, \.2bit or \.hsx (lastz drops the ending) (first: record 1 'MT_orang\.fa')" <<<"$stderr")" -eq 1 ]
    diff <(cat "$OUT"/*.segments) <(sed 's/MT_orang/MT_orang.fa/' "$HZ_GOLDEN"/tiny_mtdna_human_vs_orangutan/default/segments/*.segments)
    rm -rf "$OUT"
    # what lastz keeps is accepted, and its package runs
    sed '1s/^>MT_orang.*/>MT_orang.FA/' "$MTQ" >"$T/q2.fa"
    hz_run run -r "$MTR" -q "$T/q2.fa" -o "$OUT" --tarball --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    run_commands "$OUT" "$OUT.tar.gz" "$T/x" 1
    grep -q '^s MT_orang\.FA ' "$T/x/galaxy/files/tmp1.block0.r0.plus.maf-"
}

@test "hardening: lastz-commands.txt quotes every value for sh; running it runs lastz and nothing else" {
    require_cmd lastz
    local df='$(touch PWNED) `touch PWNED2` it'"'"'s;x/'
    cp tests/data/scoring/hoxd70.txt "$T/my scores.txt"
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --tarball --data-folder "$df" --scoring "$T/my scores.txt" \
        --ambiguous iupac --format 'general:name1,start1,end1,name2,strand2,score' --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    # the quoted words, exactly
    head -n 1 "$OUT/lastz-commands.txt" | grep -qF "lastz '\$(touch PWNED) \`touch PWNED2\` it'\\''s;x/'ref.2bit[nameparse=darkspace]"
    grep -qF -- "--scores='$T/my scores.txt' " "$OUT/lastz-commands.txt"
    grep -qF -- "--format=general:name1,start1,end1,name2,strand2,score " "$OUT/lastz-commands.txt"
    run_commands "$OUT" "$OUT.tar.gz" "$T/x"
    [ -z "$(find "$T" "$HZ_REPO" -maxdepth 4 -name 'PWNED*' 2>/dev/null)" ] || { echo "the data folder ran a command"; return 1; }
    [ "$(grep -vc '^#' "$T/x/galaxy/files/tmp1.block0.r0.plus.general:name1,start1,end1,name2,strand2,score")" -gt 0 ]
    # the package's own commands (commands.json, no shell) still name the folder as given
    grep -qF '"--target=$(touch PWNED) `touch PWNED2` it'"'"'s;x/ref.2bit' "$T/x/galaxy/commands.json"
}

@test "hardening: ordinary values keep KegAlign's bytes; a format with a blank is quoted and still splits" {
    hz_run run -r "$AO/apple.fasta.gz" -q "$AO/orange.fasta.gz" -o "$OUT" --data-folder data/x_1-2.3/ \
        --format maf+ --scoring tests/data/scoring/hoxd70.txt --ambiguous n,100,100 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    ! grep -q "'" "$OUT/lastz-commands.txt"
    head -n 1 "$OUT/lastz-commands.txt" | grep -qF 'lastz data/x_1-2.3/ref.2bit[nameparse=darkspace][multiple][subset=ref_block0.name] data/x_1-2.3/query.2bit'
    rm -rf "$OUT"
    # --diagonal-partition reads lastz-commands.txt back: quoted values must not confuse it
    hz_run run -r "$AO/apple.fasta.gz" -q "$AO/orange.fasta.gz" -o "$OUT" --data-folder 'w --segments=tmp9 [subset=ref_block7/' \
        --format 'maf -' --diagonal-partition 5 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    grep -q "^lastz 'w --segments=tmp9 \[subset=ref_block7/'ref.2bit\[nameparse=darkspace\]\[multiple\]\[subset=ref_block0.name\] .* --format='maf -' .*--output=tmp1.block0.r0.plus.split1.'maf -' 2> tmp1.block0.r0.plus.split1.err$" \
        "$OUT/lastz-commands.txt"
}

# ---------------------------------------------------------------- item 10: odd bases, README claims

@test "hardening: X, digits, '*', '-' and blanks in FASTA get one note with the count and the first one" {
    (head -n 1 "$MTR"; echo 'ACGTX12*-ACGT'; echo 'AC GTRYKMacgtn'; tail -n +2 "$MTR") >"$T/odd.fa"
    hz_run run -r "$T/odd.fa" -q "$MTQ" -o "$OUT"
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ "$(grep -c '^hspz: note: .*odd\.fa' "$T/stderr")" -eq 1 ]
    grep -qF "hspz: note: $T/odd.fa: 6 bases are not IUPAC nucleotide letters (X, digits, '*', '-', blanks...): kept, and they never match, as in KegAlign (first: 'X' in record 1 'MT_human', byte offset 14)" "$T/stderr"
    ! grep -q 'MT-orang.fa' "$T/stderr"
    rm -rf "$OUT"
    hz_run run -r "$T/odd.fa" -q "$MTQ" -o "$OUT" --quiet
    [ "$status" -eq 0 ] && [ -z "$stderr" ]
    # IUPAC codes (R Y K M above; V. cholerae has such) are not counted; the bundled pair has none
    rm -rf "$OUT"
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT"
    ! grep -q 'not IUPAC' "$T/stderr"
}

@test "hardening: harness variables are ignored (README); hspz --version, version and help take no other word" {
    HSPZ_SLOW=x HSPZ_TIMEOUT=1 HSPZ_TEST_LOG=/nonexistent HSPZ_SHARED=/nonexistent HSPZ_BIN_DIR=b \
        HSPZ_DOCKER_IMAGE=i HSPZ_DOCKER_SOCKET=s hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    # an HSPZ_* name hspz does not read is ignored with one note naming it (issue 32)
    HSPZ_OTHER=1 hz_run config
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [[ "$stderr" == *"note: ignoring environment variable"*"HSPZ_OTHER"* ]] || { show_run; return 1; }
    local w
    for w in --version -V version help --help -h; do
        hz_run "$w" extra
        assert_one_error_line 2
        [[ "$stderr" == "hspz: $w: unexpected argument 'extra'"* ]]
    done
    hz_run version --verbose
    [ "$status" -eq 0 ] && [[ "$output" == *"commit "* ]]
    hz_run --version
    [ "$status" -eq 0 ] && [ "$output" = "$("$HSPZ" version)" ]
}

# ---------------------------------------------------------------- exit status table (README)

@test "hardening: exit status table: 0, 1 (input/runtime), 2 (usage/configuration), 128+signal" {
    # README: "Exit status" table, and "Usage errors are found before TARGET and QUERY are read"
    # 0
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --quiet
    [ "$status" -eq 0 ]
    hz_run run --dry-run -r "$MTR" -q "$MTQ" -o "$T/dry"
    [ "$status" -eq 0 ]
    # 1: inputs
    hz_run run -r "$T/missing.fa" -q "$MTQ" -o "$T/o1"; assert_one_error_line 1
    printf 'not fasta\n' >"$T/bad.fa"
    hz_run run -r "$T/bad.fa" -q "$MTQ" -o "$T/o1"; assert_one_error_line 1
    cat "$MTR" "$MTR" >"$T/dup.fa"
    hz_run run -r "$T/dup.fa" -q "$MTQ" -o "$T/o1"; assert_one_error_line 1
    # 1: the file system refuses an output (exists without --force, a folder, no folder)
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT"; assert_one_error_line 1          # non-empty OUTDIR
    touch "$T/t.tgz"
    hz_run run -r "$MTR" -q "$MTQ" -o "$T/o1" --tarball="$T/t.tgz"; assert_one_error_line 1
    mkdir "$T/dir.tgz"
    hz_run run -r "$MTR" -q "$MTQ" -o "$T/o1" --tarball="$T/dir.tgz"; assert_one_error_line 1
    hz_run run -r "$MTR" -q "$MTQ" -o "$T/o1" --dump-plan "$T/no/p.tsv"; assert_one_error_line 1
    hz_run run -r "$MTR" -q "$MTQ" -o "$T/no/o1"; assert_one_error_line 1
    hz_run plan -r "$MTR" -q "$MTQ" -o "$T/t.tgz"; assert_one_error_line 1    # plan file exists
    # 2: the command line, configuration or environment
    hz_run run -r "$MTR" -q "$MTQ" -o "$T/o2" --bogus; assert_one_error_line 2
    hz_run run -r "$MTR" -q "$MTQ" -o "$T/o2" --xdrop abc; assert_one_error_line 2
    hz_run run -r "$MTR" -q "$MTQ"; assert_one_error_line 2
    printf 'extension:\n  xdrop: many\n' >"$T/c.yaml"
    hz_run run -r "$MTR" -q "$MTQ" -o "$T/o2" --config "$T/c.yaml"; assert_one_error_line 2
    hz_run run -r "$MTR" -q "$MTQ" -o "$T/o2" --config "$T/none.yaml"; assert_one_error_line 2
    HSPZ_GATE=fast hz_run run -r "$MTR" -q "$MTQ" -o "$T/o2"; assert_one_error_line 2
    hz_run plan -r "$MTR" -q "$MTQ" -o "$T/p.json" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    HSPZ_GATE=fast hz_run run --plan "$T/p.json" --unit 1 -o "$T/o2"; assert_one_error_line 2
    HSPZ_GATE=fast hz_run merge "$T/p.json" "$T/o2" -o "$T/o2m"; assert_one_error_line 2
    hz_run merge "$T/p.json" "$T/nounit" -o "$T/o2m"; assert_one_error_line 1   # a unit folder that is not there
    hz_run run -r "$MTR" -q "$MTQ" -o "$T/o2" --tarball --nogapped; assert_one_error_line 2
    hz_run run -r "$MTR" -q "$MTQ" -o "$T/o2" --tarball="$T/o2"; assert_one_error_line 2
    hz_run run -r "$MTR" -q "$MTQ" -o "$T/o2" --tarball="$MTQ" --force; assert_one_error_line 2
    hz_run run -r "$MTR" -q "$MTQ" -o "$T/o2" --dump-plan "$T/same" --tarball="$T/same"; assert_one_error_line 2
    cp "$MTR" "$OUT/t.fa"
    hz_run run -r "$OUT/t.fa" -q "$MTQ" -o "$OUT" --force; assert_one_error_line 2
    hz_run run -r "$MTR" -q "$MTQ" -o "$T/o2" --target-prefix 'a b'; assert_one_error_line 2
    hz_run frobnicate; assert_one_error_line 2
    [ ! -e "$T/o1" ] && [ ! -e "$T/o2" ] && [ -f "$OUT/t.fa" ]
    # 128 + signal: SIGTERM (15) and SIGINT (2) during a run
    # (E. coli takes seconds with one thread; apple x orange ~0.4 s, so it is stopped sooner)
    local d="${HSPZ_SHARED}/data/small_ecoli_k12_vs_ecoli_536" sig want rc
    local r=$AO/apple.fasta.gz q=$AO/orange.fasta.gz at=0.1
    if [ -d "$d" ]; then r="$d/ecoli_K12_MG1655.fa.gz"; q="$d/ecoli_536_NC_008253.fa.gz"; at=0.5; fi
    for sig in TERM INT; do
        rc=0
        timeout --preserve-status -k 30 -s "$sig" "$at" "$HSPZ" run -r "$r" -q "$q" -o "$T/o3" --threads 1 --quiet \
            2>"$T/err" || rc=$?
        case "$sig" in TERM) want=143 ;; INT) want=130 ;; esac
        [ "$rc" -eq "$want" ] || { echo "$sig: exit $rc (want $want)"; cat "$T/err"; return 1; }
        [ ! -e "$T/o3" ]
    done
}

@test "hardening: a line break or other control byte in a value written into lastz-commands.txt is a usage error (flags and --config)" {
    for spec in "--format|maf-"$'\n'"touch PWNED #" "--data-folder|d"$'\n'"x/" "--scoring|sc"$'\n'"x/s.txt" "--ambiguous|n"$'\t'; do
        flag="${spec%%|*}" val="${spec#*|}"
        hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" "$flag" "$val"
        [ "$status" -eq 2 ] || { echo "$flag"; show_run; return 1; }
        assert_one_error_line 2
        grep -qF -- "$flag: '" "$T/stderr" && grep -q 'holds a control byte' "$T/stderr"
        [ ! -e "$OUT" ] && [ ! -e PWNED ]
    done
    printf 'output:\n  format: "maf\\ntouch PWNED"\n' >"$T/c.yaml"
    hz_run run --config "$T/c.yaml" -r "$MTR" -q "$MTQ" -o "$OUT"
    [ "$status" -eq 2 ] || { show_run; return 1; }
    assert_one_error_line 2
    assert_stderr_matches "--format: 'maf\\\\x0atouch PWNED' holds a control byte"
}

@test "hardening: merge checks the plan's settings too: a line break in its format is a usage error, nothing merged" {
    hz_run plan -r "$MTR" -q "$MTQ" -o "$T/p.json"
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run --plan "$T/p.json" --unit 1 -o "$T/u1" --device cpu --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    # a plan edited to carry a line break, with a unit that names it (sha256 rewritten)
    python3 - "$T/p.json" "$T/p2.json" "$T/u1" "$T/u2" <<'PY'
import hashlib, json, shutil, sys
p, p2, u1, u2 = sys.argv[1:]
d = json.load(open(p))
def edit(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == "config" and isinstance(v, str): o[k] = v.replace('format: "maf-"', 'format: "maf-\\ntouch PWNED #"').replace("format: maf-", 'format: "maf-\\ntouch PWNED #"')
            else: edit(v)
    elif isinstance(o, list):
        for v in o: edit(v)
edit(d)
open(p2, "w").write(json.dumps(d, indent=2) + "\n")
new = hashlib.sha256(open(p2, "rb").read()).hexdigest(); old = hashlib.sha256(open(p, "rb").read()).hexdigest()
shutil.copytree(u1, u2)
m = open(u2 + "/manifest.json").read()
assert old in m
open(u2 + "/manifest.json", "w").write(m.replace(old, new))
PY
    grep -q 'PWNED' "$T/p2.json"
    hz_run merge "$T/p2.json" "$T/u2" -o "$T/m"
    [ "$status" -eq 2 ] || { show_run; return 1; }
    assert_one_error_line 2
    assert_stderr_matches "--format: 'maf-.x0atouch PWNED #' holds a control byte"
    [ ! -e "$T/m" ] && [ ! -e PWNED ]
}


# ---------------------------------------------------------------- issue 31: smaller faults

@test "issue 31: --ambiguous: every value lastz 1.04.22 refuses is a usage error at parse time (run, plan, --dry-run, --config)" {
    require_cmd lastz
    local v lz acc=""
    for v in n iupac n,5 n,0 n,-0 n,1,2 n,-1,2 iupac,50,80 iupac,10000,1000000000 \
             N IUPAC x n,-5 n,1,-2 n,1000000,-1 'iupac,99999999999,-99999999999' n, 'n,,5' n,5, n,1,2,3 \
             'n,5 ' n,inf n,nan n,3000000000 n,2147483648 \
             n,99999999999,5 n,1.5 n,1K n,0x10 'n, 5' n,+5 n,50000000,1 n,1,2147483647; do
        lastz "$MTR" "$MTQ" --ambiguous="$v" >/dev/null 2>&1 && lz=0 || lz=$?
        hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --dry-run --ambiguous "$v"
        if [ "$status" -eq 0 ]; then
            acc="$acc $v"
            [ "$lz" -eq 0 ] || { echo "hspz accepts '$v', lastz refuses it"; return 1; }
        else
            assert_one_error_line 2
            grep -qF -- "hspz: --ambiguous: '$v'" "$T/stderr" || { show_run; return 1; }
        fi
        [ "$lz" -eq 0 ] || [ "$status" -eq 2 ] || { echo "lastz refuses '$v', hspz says $status"; return 1; }
        hz_run plan -r "$MTR" -q "$MTQ" -o "$T/p.json" --ambiguous "$v"
        if [ "$lz" -ne 0 ]; then assert_one_error_line 2; [ ! -e "$T/p.json" ]; fi
        rm -f "$T/p.json"
    done
    # what hspz takes: the forms whose numbers lastz and the HSP stage read alike
    [ "$acc" = " n iupac n,5 n,0 n,-0 n,1,2 n,-1,2 iupac,50,80 iupac,10000,1000000000" ] || { echo "accepted:$acc"; return 1; }
    # the issue's two values, with the reason lastz gives
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --ambiguous 'iupac,99999999999,-99999999999'
    assert_one_error_line 2; assert_no_outdir "$OUT"
    grep -qxF "hspz: --ambiguous: 'iupac,99999999999,-99999999999': the penalty -99999999999 is negative (lastz: the penalty must be non-negative) (see 'hspz help')" "$T/stderr"
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --ambiguous n,1000000,-1
    assert_one_error_line 2; assert_stderr_matches "penalty -1 is negative"
    # the same rule in a --config file, with FILE:LINE:COLUMN
    printf 'scoring:\n  ambiguous: "n,1000000,-1"\n' >"$T/c.yaml"
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --config "$T/c.yaml"
    assert_one_error_line 2; assert_no_outdir "$OUT"
    grep -qF "hspz: $T/c.yaml:2:14: scoring.ambiguous: 'n,1000000,-1': the penalty -1 is negative" "$T/stderr"
}

@test "issue 31: scores whose 32-bit sums can overflow are refused naming the file, line and column" {
    sed 's/^A   91 /A   2000000000 /' tests/data/scoring/hoxd70.txt >"$T/big.txt"
    grep -q 2000000000 "$T/big.txt"
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --scoring "$T/big.txt"
    [ "$status" -ne 0 ]; assert_one_error_line "$status"; assert_no_outdir "$OUT"
    grep -qF "hspz: $T/big.txt:11:5: score 2000000000 is outside -1000000000..10000 (hspz sums scores in 32 bits; larger ones could overflow)" "$T/stderr" || { show_run; return 1; }
    sed 's/^fill_score         = -100 /fill_score         = -2G  /' tests/data/scoring/hoxd70.txt >"$T/fill.txt"
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --scoring "$T/fill.txt"
    [ "$status" -ne 0 ]; assert_stderr_matches "fill.txt:6:22: fill_score -2000000000 is outside"
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --ambiguous n,50000000,1
    assert_one_error_line 2
    assert_stderr_matches "the reward 50000000 is outside -1000000000..10000"
    # the largest allowed values still run
    sed 's/^A   91 /A   10000 /' tests/data/scoring/hoxd70.txt >"$T/top.txt"
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --scoring "$T/top.txt" --ambiguous n,10000,1000000000 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
}

@test "issue 31: a short score-file row names the row and the count" {
    printf '     A     C     G     T\nA   91  -114   -31\n' >"$T/short.txt"
    hz_run run -r "$MTR" -q "$MTQ" -o "$OUT" --scoring "$T/short.txt"
    [ "$status" -ne 0 ]; assert_one_error_line "$status"
    grep -qF "hspz: $T/short.txt:2:19: row 'A' has 3 scores; expected 4 (one per column label)" "$T/stderr" || { show_run; return 1; }
}
