#!/usr/bin/env bats
# Faults (issue 12, "Faults"): one table of things that go wrong around a run — a file size
# limit (a full disk as write() sees it), folders that cannot be written, the input deleted
# or truncated while the run reads it, SIGKILL at random moments and a rerun.  Each row
# asserts the exit status, one error line, nothing that looks complete, and that a rerun
# works and removes the OUTDIR.tmp-<pid> folders of killed runs.  GPU allocation and kernel
# failures are injected on the device (HSPZ_FAULT, tests/gpu/device_suite.sh).

load ../lib/common

AO=tests/data/apple_orange
AOR=$AO/apple.fasta.gz
AOQ=$AO/orange.fasta.gz

setup() {
    require_hspz
    T="$BATS_TEST_TMPDIR"
    OUT="$T/out"
    # the reference run, once per test
    "$HSPZ" run -r "$AOR" -q "$AOQ" -o "$T/ref" --tarball --quiet
}

# no_partial DIR — nothing of a run at DIR: no DIR, no DIR.tmp-*, no tarball or its temporary
no_partial() {
    local d="$1"
    [ ! -e "$d" ] || { echo "$d exists"; return 1; }
    ! compgen -G "$d.tmp-*" >/dev/null || { echo "left: $(ls -d "$d".tmp-*)"; return 1; }
    ! compgen -G "$d.tar.gz*" >/dev/null || { echo "left: $(ls -d "$d".tar.gz*)"; return 1; }
}

# as_reference DIR — DIR and DIR.tar.gz hold what the reference run wrote
as_reference() {
    same_outputs "$T/ref" "$1" && cmp "$T/ref.tar.gz" "$1.tar.gz" 2>/dev/null ||
        { [ "$(tar -xzOf "$T/ref.tar.gz" | sha256sum)" = "$(tar -xzOf "$1.tar.gz" | sha256sum)" ]; }
}

@test "faults: a file size limit (ulimit -f, EFBIG as on a full disk): exit 1, one line naming the file, nothing left" {
    # README: "Each error is one line on stderr that starts with hspz: and names the file"
    # the pair's tarball is ~210 KB (segments ~45 KB): 64 KiB stops the run while it writes
    status=0
    (ulimit -f 64; exec "$HSPZ" run -r "$AOR" -q "$AOQ" -o "$OUT" --tarball) >"$T/stdout" 2>"$T/stderr" || status=$?
    stderr="$(cat "$T/stderr")"
    echo "$stderr"
    [ "$status" -eq 1 ]
    assert_one_error_line 1
    assert_stderr_matches "(File too large|No space left)"
    no_partial "$OUT"
    # and without the limit the same command works
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --tarball --quiet
    [ "$status" -eq 0 ]
    as_reference "$OUT"
}

@test "faults: OUTDIR in a folder nobody can write (/proc), under a regular file, or missing: exit 1 before any work, one line" {
    for o in /proc/hspz-out "$T/ref.tar.gz/out" "$T/no/such/out"; do
        hz_run run -r "$AOR" -q "$AOQ" -o "$o"
        show_run
        [ "$status" -eq 1 ]
        assert_one_error_line 1
        assert_stderr_names "$o"
        [ ! -e "$o" ]
        ! grep -q "seeds" "$T/stderr"    # failed before the funnel: no work done
    done
    [ -z "$(ls /proc | grep '^hspz-out')" ]
}

@test "faults: the input deleted or truncated while the run reads it (12 trials): complete output equal to the reference, or exit 1 with one line and nothing left" {
    # a plain FASTA copy (read by hspz while the test changes it); the reference reads the same bytes
    gunzip -c "$AOR" >"$T/apple.fa"
    "$HSPZ" run -r "$T/apple.fa" -q "$AOQ" -o "$T/ref_fa" --quiet
    for i in $(seq 1 12); do
        cp "$T/apple.fa" "$T/in.fa"
        rm -rf "$OUT" "$OUT".*
        "$HSPZ" run -r "$T/in.fa" -q "$AOQ" -o "$OUT" --quiet 2>"$T/se" &
        pid=$!
        sleep "0.0$((i % 4))"
        if [ $((i % 2)) -eq 0 ]; then rm -f "$T/in.fa"; else truncate -s $((i * 20000)) "$T/in.fa"; fi
        rc=0; wait "$pid" || rc=$?
        echo "trial $i: exit $rc: $(cat "$T/se")"
        if [ "$rc" -eq 0 ]; then
            # it read the file before the change (an unlinked file stays readable), or read a
            # shorter FASTA: then its manifest records exactly those bytes, and a run on them
            # gives the same output
            bytes=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print([x for x in m["inputs"] if x["role"]=="target"][0]["bytes"])' "$OUT/manifest.json")
            head -c "$bytes" "$T/apple.fa" >"$T/prefix.fa"
            rm -rf "$T/chk"
            "$HSPZ" run -r "$T/prefix.fa" -q "$AOQ" -o "$T/chk" --quiet
            same_outputs "$T/chk" "$OUT"
            [ "$bytes" -lt "$(stat -c %s "$T/apple.fa")" ] || same_outputs "$T/ref_fa" "$OUT"
        else
            [ "$rc" -eq 1 ]
            [ "$(grep -vc '^hspz: note:' "$T/se")" -eq 1 ]
            grep -q "in.fa" "$T/se"
            [ ! -e "$OUT" ] && ! compgen -G "$OUT.tmp-*" >/dev/null
        fi
    done
}

@test "faults: SIGKILL at 10 random moments, then a rerun: output complete or absent, the rerun equals the reference and removes the killed runs' OUTDIR.tmp-<pid>" {
    # README: "A run killed outright (SIGKILL, a crash) ... the next run with the same -o undoes an unfinished publish"
    # the kill moments spread over this machine's own run time (a loaded machine is slower)
    t0=$(date +%s.%N); hz_run run -r "$AOR" -q "$AOQ" -o "$T/timing" --quiet; t1=$(date +%s.%N)
    span=$(python3 -c "print(max(0.6, 1.2 * ($t1 - $t0)))")
    stale=0
    for i in $(seq 1 10); do
        rm -rf "$OUT" "$OUT".*
        "$HSPZ" run -r "$AOR" -q "$AOQ" -o "$OUT" --tarball --quiet 2>/dev/null &
        pid=$!
        sleep "$(python3 -c "import random; random.seed($i); print('%.3f' % random.uniform(0.0, $span))")"
        kill -9 "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        if [ -e "$OUT" ]; then
            as_reference "$OUT"          # published before the kill: complete
            continue
        fi
        [ ! -e "$OUT.tar.gz" ]           # no tarball without its OUTDIR
        had=0; compgen -G "$OUT.tmp-*" >/dev/null && had=1 && stale=$((stale + 1))
        hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --tarball
        [ "$status" -eq 0 ]
        as_reference "$OUT"
        ! compgen -G "$OUT.tmp-*" >/dev/null            # the folder and its .owner file
        ! compgen -G "$OUT.tar.gz.tmp-*" >/dev/null     # the killed run's tarball, if it had begun
        if [ "$had" -eq 1 ]; then
            grep -q "note: removed $OUT.tmp-$pid-[0-9a-f]*, left by process $pid" "$T/stderr"
        fi
    done
    echo "killed runs that left a temporary folder: $stale"
    [ "$stale" -gt 0 ]
}

@test "faults: only folders hspz made on this machine for a process that is gone are removed; look-alikes stay" {
    # README: "nothing without such a record is touched"
    # a killed run's folder: removed (its .owner file says who made it)
    "$HSPZ" run -r "$AOR" -q "$AOQ" -o "$OUT" --tarball --quiet &
    pid=$!
    for _ in $(seq 1 200); do compgen -G "$OUT.tmp-$pid-*.owner" >/dev/null && break; sleep 0.01; done
    kill -9 "$pid"; wait "$pid" 2>/dev/null || true
    local own; own=$(compgen -G "$OUT.tmp-$pid-*.owner")   # OUTDIR.tmp-<pid>-<token>.owner
    [ -f "$own" ]
    [ -d "${own%.owner}" ]
    local tok=${own##*-}; tok=${tok%.owner}
    grep -qx "pid $pid" "$own"
    grep -qx "token $tok" "$own"
    # look-alikes: a live process's folder, a user's folders and a file named like them, a
    # folder whose .owner names another machine or container (a dead pid there proves nothing)
    mkdir "$OUT.tmp-$$"; echo keep >"$OUT.tmp-$$/mine"
    mkdir "$OUT.tmp-999999"; echo precious >"$OUT.tmp-999999/data.txt"
    mkdir "$OUT.tmp-0999998"; echo keep >"$OUT.tmp-0999998/x"
    echo keep >"$OUT.tmp-999999999"
    mkdir "$OUT.tmp-x1"
    mkdir "$OUT.tmp-999997"; echo keep >"$OUT.tmp-999997/x"
    printf 'hspz owner 1\npid 999997\nwho 00000000-0000-0000-0000-000000000000 pid:[1] elsewhere\ntarball -\n' >"$OUT.tmp-999997.owner"
    rm -rf "$OUT"
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --tarball
    [ "$status" -eq 0 ] || { show_run; return 1; }
    as_reference "$OUT"
    [ ! -e "${own%.owner}" ]
    [ ! -e "$own" ]
    grep -q "note: removed ${own%.owner}, left by process $pid which no longer runs" "$T/stderr"
    [ "$(grep -c 'note: removed' "$T/stderr")" -eq 1 ]
    [ -f "$OUT.tmp-$$/mine" ] && [ -f "$OUT.tmp-999999/data.txt" ] && [ -f "$OUT.tmp-0999998/x" ]
    [ -f "$OUT.tmp-999999999" ] && [ -d "$OUT.tmp-x1" ] && [ -f "$OUT.tmp-999997/x" ] && [ -f "$OUT.tmp-999997.owner" ]
}

@test "faults: OUTDIR as a symbolic link is refused before any work (rename would not go through it)" {
    # README: "OUTDIR may not be a symbolic link"
    mkdir "$T/real"; ln -s "$T/real" "$T/lnk"; ln -s "$T/nowhere" "$T/dang"
    for o in "$T/lnk" "$T/dang"; do
        hz_run run -r "$AOR" -q "$AOQ" -o "$o"
        [ "$status" -eq 1 ] || { show_run; return 1; }
        assert_one_error_line 1
        assert_stderr_matches "is a symbolic link"
        ! grep -q "seeds" "$T/stderr"
    done
    [ -z "$(ls "$T/real")" ] && [ ! -e "$T/nowhere" ]
}
