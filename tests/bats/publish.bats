#!/usr/bin/env bats
# Reading inputs once and publishing safely (issue 12 items 2-4; src/io/inread.c, src/run/publish.c):
# the manifest's input sizes and sha256 are taken while the run reads the file (FIFOs, process
# substitution, gzip), two concurrent runs of one -o never delete each other's output, and a
# SIGTERM at any moment gives exit 0 with a complete OUTDIR or exit 143 with nothing.

load ../lib/common

AO=tests/data/apple_orange
MT=tests/data/tiny_mtdna_human_vs_orangutan
AG=tests/data/tiny_aglobin_human_vs_cow

setup() {
    require_hspz
    T="$BATS_TEST_TMPDIR"
}

# inputs_are MANIFEST FILE... — inputs[i] has the bytes and sha256 of FILE i (as sha256sum and
# wc -c see them; for gzip the compressed file).
inputs_are() {
    local m="$1"; shift
    python3 - "$m" "$@" <<'PY'
import hashlib, json, sys
ins = json.load(open(sys.argv[1]))["inputs"]
for i, path in enumerate(sys.argv[2:]):
    b = open(path, "rb").read()
    want = (len(b), hashlib.sha256(b).hexdigest())
    got = (ins[i]["bytes"], ins[i]["sha256"])
    assert got == want, (i, path, got, want)
PY
}

@test "publish: the manifest's input bytes and sha256 are the bytes read: regular, process substitution, FIFO; FASTA, gzip, 2bit" {
    # README: "Inputs are read once, front to back (a FIFO or <(...) works); the manifest's input sizes and sha256 are taken while reading"
    hz_run run -r "$MT/MT-human.fa" -q "$MT/MT-orang.fa" -o "$T/a" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    inputs_are "$T/a/manifest.json" "$MT/MT-human.fa" "$MT/MT-orang.fa"
    # -q <(cat Q): recorded as 0 bytes with the sha256 of nothing before
    status=0
    timeout 60 "$HSPZ" run -r "$MT/MT-human.fa" -q <(cat "$MT/MT-orang.fa") -o "$T/b" --quiet 2>"$T/err" || status=$?
    [ "$status" -eq 0 ] || { cat "$T/err"; return 1; }
    inputs_are "$T/b/manifest.json" "$MT/MT-human.fa" "$MT/MT-orang.fa"
    same_outputs "$T/a" "$T/b"
    # gzip through htslib: the compressed bytes, also from a pipe
    timeout 60 "$HSPZ" run -r "$AO/apple.fasta.gz" -q <(cat "$AO/orange.fasta.gz") -o "$T/c" --quiet
    inputs_are "$T/c/manifest.json" "$AO/apple.fasta.gz" "$AO/orange.fasta.gz"
    # a named FIFO as the target, 2bit as the query
    mkfifo "$T/t.fifo"
    ( gzip -dc "$AG/aglobin_human.fa.gz" >"$T/t.fifo" & )
    HSPZ_TIMEOUT=60 hz_run run -r "$T/t.fifo" -q "$AG/aglobin.2bit" -o "$T/d" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    gzip -dc "$AG/aglobin_human.fa.gz" >"$T/t.fa"
    inputs_are "$T/d/manifest.json" "$T/t.fa" "$AG/aglobin.2bit"
    [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["inputs"][1]["format"])' "$T/d/manifest.json")" = 2bit ]
}

@test "publish: a --config file from a process substitution is read once; config.file.sha256 is of its bytes" {
    printf 'extension:\n  xdrop: 910\n' >"$T/c.yaml"
    status=0
    timeout 60 "$HSPZ" run --config <(cat "$T/c.yaml") -r "$MT/MT-human.fa" -q "$MT/MT-orang.fa" -o "$T/o" --quiet 2>"$T/err" || status=$?
    [ "$status" -eq 0 ] || { cat "$T/err"; return 1; }
    [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["config"]["file"]["sha256"])' "$T/o/manifest.json")" = \
      "$(sha256sum <"$T/c.yaml" | cut -d' ' -f1)" ]
}

@test "publish: two concurrent runs of one -o with --tarball (8 rounds): one publishes, the other removes only its own files" {
    # README: "Of two runs started with the same -o, one publishes and the other fails, removing only its own temporary files"
    local args=(run -r "$AO/apple.fasta.gz" -q "$AO/orange.fasta.gz" --tarball --quiet)
    "$HSPZ" "${args[@]}" -o "$T/ref" 2>/dev/null
    local round rc1 rc2
    for round in $(seq "${PUBLISH_ROUNDS:-8}"); do   # fewer in the sanitize stage
        rm -rf "$T/out" "$T/out.tar.gz" "$T/out.failed-manifest.json"
        rc1=0 rc2=0
        "$HSPZ" "${args[@]}" -o "$T/out" 2>"$T/e1" & local p1=$!
        "$HSPZ" "${args[@]}" -o "$T/out" 2>"$T/e2" & local p2=$!
        wait "$p1" || rc1=$?
        wait "$p2" || rc2=$?
        # exactly one succeeded; the loser said why in one line and exited 1 (2 when the
        # other's tarball was already there at its start: the usage check refuses it)
        if [ "$rc1" -eq 0 ]; then [ "$rc2" -eq 1 -o "$rc2" -eq 2 ] && [ "$(wc -l <"$T/e2")" -eq 1 ] && [ ! -s "$T/e1" ]
        else [ "$rc1" -eq 1 -o "$rc1" -eq 2 ] && [ "$rc2" -eq 0 ] && [ "$(wc -l <"$T/e1")" -eq 1 ] && [ ! -s "$T/e2" ]
        fi || { echo "round $round: exit $rc1 / $rc2"; cat "$T/e1" "$T/e2"; return 1; }
        grep -qE 'not empty any more|exists now|exists and is not empty|the tarball exists' "$T/e1" "$T/e2" ||
            { echo "round $round: the loser's line does not say why"; cat "$T/e1" "$T/e2"; return 1; }
        # the winner's OUTDIR and tarball are complete and stay
        [ -f "$T/out/manifest.json" ] && same_outputs "$T/out" "$T/ref" &&
            cmp "$T/out.tar.gz" "$T/ref.tar.gz" || { echo "round $round: the winner's output was damaged"; ls -la "$T"; return 1; }
        # no failure manifest next to the good OUTDIR, nothing temporary left
        [ -z "$(ls "$T" | grep -vxE 'ref|ref\.tar\.gz|out|out\.tar\.gz|e1|e2' || true)" ] ||
            { echo "round $round: left behind:"; ls -la "$T"; return 1; }
    done
}

@test "publish: a run that loses the tarball to another run keeps that run's tarball" {
    # the tarball appears while this run reads its (slow) query (a stand-in for a concurrent
    # run's): the run fails at the publish, leaves it untouched and writes no OUTDIR
    "$HSPZ" run -r "$AO/apple.fasta.gz" -q <(sleep 2; cat "$AO/orange.fasta.gz") -o "$T/out" --tarball --quiet \
        2>"$T/err" & local p=$!
    sleep 0.5
    echo other >"$T/out.tar.gz"
    local rc=0
    wait "$p" || rc=$?
    [ "$rc" -eq 1 ] || { echo "exit $rc"; cat "$T/err"; return 1; }
    [ "$(cat "$T/out.tar.gz")" = other ]
    [ ! -e "$T/out" ] && [ ! -e "$T/out.failed-manifest.json" ]
    grep -q "out.tar.gz: the tarball exists now (another run?)" "$T/err"
    [ -z "$(ls "$T" | grep -F '.tmp-' || true)" ]
}

@test "publish: a run that loses OUTDIR to another run prints no funnel, times or 'wrote' line, only why" {
    # --query-list: the second query is a FIFO, fed once OUTDIR has filled (a stand-in for a
    # concurrent run): the first job is done by then, and without --quiet a finished job
    # reports its funnel, times and "wrote N segments ... to OUTDIR/000001"; none may show
    local q="$PWD/$AO/orange.fasta.gz"   # a list's relative paths are taken from its folder
    mkfifo "$T/q2.fa"
    printf '%s\n%s\n' "$q" "$T/q2.fa" >"$T/list"
    "$HSPZ" run -r "$AO/apple.fasta.gz" --query-list "$T/list" -o "$T/out" --threads 2 2>"$T/err" & local p=$!
    local i=0
    while [ ! -e "$T"/out.tmp-*/000001/manifest.json ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
    kill -0 "$p" || { echo "hspz ended before its second query:"; cat "$T/err"; return 1; }
    mkdir "$T/out"; echo other >"$T/out/theirs"
    timeout 60 sh -c 'gzip -dc "$1" >"$2"' sh "$q" "$T/q2.fa"
    local rc=0
    wait "$p" || rc=$?
    [ "$rc" -eq 1 ] || { echo "exit $rc"; cat "$T/err"; return 1; }
    [ "$(ls "$T/out")" = theirs ]
    [ "$(cat "$T/out/theirs")" = other ]
    grep -q "not empty any more" "$T/err" || { cat "$T/err"; return 1; }
    ! grep -qE "wrote|funnel:|time:" "$T/err" || { echo "reported as if it had written:"; cat "$T/err"; return 1; }
    # undisturbed, the same list reports both jobs, after publishing
    "$HSPZ" run -r "$AO/apple.fasta.gz" --query-list <(printf '%s\n%s\n' "$q" "$q") \
        -o "$T/ok" --threads 2 2>"$T/err2"
    [ "$(grep -c "wrote [0-9]* segments in [0-9]* files to $T/ok/00000[12]\$" "$T/err2")" -eq 2 ] || { cat "$T/err2"; return 1; }
    [ "$(grep -c "funnel:" "$T/err2")" -eq 2 ]
}

@test "publish: OUTDIR's problems are found before the inputs are read (a FIFO target that nobody writes)" {
    # README: "OUTDIR's parent folder must exist and be writable, checked before the inputs are read"
    mkfifo "$T/never.fifo"
    mkdir "$T/full"; : >"$T/full/x"
    local spec
    for spec in "$T/no/such/out|the parent folder '$T/no/such' does not exist" \
                "$T/full|output directory exists and is not empty (use --force to replace it)"; do
        status=0
        timeout 30 "$HSPZ" run -r "$T/never.fifo" -q "$MT/MT-orang.fa" -o "${spec%%|*}" 2>"$T/err" || status=$?
        [ "$status" -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -qF "${spec#*|}" "$T/err" ||
            { echo "-o ${spec%%|*}: exit $status (124: it waited on the FIFO)"; cat "$T/err"; return 1; }
    done
    [ -f "$T/full/x" ] && [ ! -e "$T/no" ]
}

@test "publish: an OUTDIR whose parent is not writable fails at once, in one line" {
    # permission bits do not stop root: as root the run is made as nobody (setpriv)
    local as=()
    if [ "$(id -u)" -eq 0 ]; then
        command -v setpriv >/dev/null && id nobody >/dev/null 2>&1 || skip "root without setpriv or a 'nobody' user: permission bits cannot be tested"
        as=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
    fi
    local d; d=$(mktemp -d /tmp/hspz-ro.XXXXXX)
    chmod 755 "$d"; mkdir "$d/ro"; mkfifo "$d/never.fifo"; chmod 555 "$d/ro"; chmod 666 "$d/never.fifo"
    status=0
    timeout 30 "${as[@]}" "$HSPZ" run -r "$d/never.fifo" -q "$PWD/$MT/MT-orang.fa" -o "$d/ro/out" 2>"$T/err" || status=$?
    chmod 755 "$d/ro"; ls -A "$d/ro" >"$T/left"; rm -rf "$d"
    [ "$status" -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -qF "$d/ro/out: cannot be created: the parent folder '$d/ro' is not writable (Permission denied)" "$T/err" &&
        [ ! -s "$T/left" ] || { echo "exit $status (124: it waited on the FIFO)"; cat "$T/err" "$T/left"; return 1; }
}

@test "publish: SIGTERM at 60 delays (SIGSWEEP_TRIALS) across the whole run: exit 0 with complete output, or exit 143, nothing, one line" {
    # README: "a signal before OUTDIR and the tarball are published ... gives 128 + N and nothing; one after it is dropped"
    require_cmd python3
    run python3 tests/lib/sigsweep.py "$HSPZ" "$T/sweep" "${SIGSWEEP_TRIALS:-60}" -- \
        -r "$AO/apple.fasta.gz" -q "$AO/orange.fasta.gz"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *" 0 bad "* ]]
}
