#!/usr/bin/env bats
# Output safety (issue 31): a fault table, one row per way a user's file could be lost or a
# wrong result published — decided by file identity (device and inode, O_EXCL|O_NOFOLLOW,
# owner records with a token), never by the spelling of a path.  Each row failed before the
# output-safety module (src/core/outsafe.c, src/run/publish.c).  Small pair only: each run ~1 s.

load ../lib/common

AO=tests/data/apple_orange
AOR=$AO/apple.fasta.gz
AOQ=$AO/orange.fasta.gz

setup() {
    require_hspz
    T="$BATS_TEST_TMPDIR"
    OUT="$T/o"
}

# manifest_true DIR — every output DIR's manifest.json lists is there with its sha256, and DIR
# holds nothing else but the manifest (and a report)
manifest_true() {
    python3 - "$1" <<'EOF'
import hashlib, json, os, sys
d = sys.argv[1]
m = json.load(open(os.path.join(d, "manifest.json")))
names = set()
for o in m["outputs"]:
    names.add(o["name"])
    h = hashlib.sha256(open(os.path.join(d, o["name"]), "rb").read()).hexdigest()
    assert h == o["sha256"], (o["name"], h, o["sha256"])
extra = set(os.listdir(d)) - names - {"manifest.json", "report.html", "report.png"}
assert not extra, ("not in the manifest", sorted(extra))
EOF
}

@test "outsafe 1: a leftover OUTDIR.tmp-<our pid> of another process is never removed (same pid as ours)" {
    # README: "a leftover of another process with the same pid ... is never used or removed"
    cd "$T"
    status=0
    bash -c 'mkdir o.tmp-$$; echo x >o.tmp-$$/keep; exec "$0" run -r "$1" -q "$2" -o o --quiet' \
        "$HSPZ" "$OLDPWD/$AOR" "$OLDPWD/$AOQ" 2>"$T/err" || status=$?
    [ "$status" -eq 0 ] || { cat "$T/err"; return 1; }
    [ "$(cat o.tmp-*/keep)" = x ]
    manifest_true o
}

@test "outsafe 1: two runs as PID 1 of their own PID namespaces, one -o: one publishes, its manifest is true; another's pid-1 folder stays" {
    # README: "Of two runs started with the same -o, one publishes and the other fails"
    unshare -p -f --mount-proc true 2>/dev/null || skip "unshare -p needs root (CI runs as root)"
    mkdir "$OUT.tmp-1"; echo precious >"$OUT.tmp-1/keep"
    local t2="$T/t2.fa"; gzip -dc "$AOQ" >"$t2"
    unshare -p -f --mount-proc sh -c 'exec "$0" run -r "$1" -q "$2" -o "$3" --quiet' "$HSPZ" "$AOR" "$AOQ" "$OUT" 2>"$T/e1" & local p1=$!
    unshare -p -f --mount-proc sh -c 'exec "$0" run -r "$1" -q "$2" -o "$3" --quiet' "$HSPZ" "$t2" "$AOR" "$OUT" 2>"$T/e2" & local p2=$!
    local s1=0 s2=0
    wait "$p1" || s1=$?
    wait "$p2" || s2=$?
    echo "exits $s1 $s2"; cat "$T/e1" "$T/e2"
    [ $((s1 == 0)) -ne $((s2 == 0)) ]             # exactly one published
    [ "$s1" -le 1 ]
    [ "$s2" -le 1 ]
    manifest_true "$OUT"                           # no file of the other run in it
    [ "$(cat "$OUT.tmp-1/keep")" = precious ]
    [ -z "$(compgen -G "$OUT.tmp-1-*" || true)" ]  # both runs' own temporaries are gone
}

@test "outsafe 2: report -o naming the run's input by another spelling (from a subfolder) is refused, the input kept" {
    # README: "an output that is an input by any path or link (the run's inputs for hspz report -o ...) is refused"
    mkdir -p "$T/d/sub"; gzip -dc "$AOR" >"$T/d/t.fa"; cp "$AOQ" "$T/d/q.fa.gz"
    (cd "$T/d" && "$HSPZ" run -r t.fa -q q.fa.gz -o out --quiet)
    local before; before=$(sha256sum <"$T/d/t.fa")
    cd "$T/d/sub"
    hz_run report ../out -o ../t.fa --force
    assert_one_error_line 1
    [[ "$stderr" == *"is an input of the run"* ]] || { show_run; return 1; }
    [ "$(sha256sum <"$T/d/t.fa")" = "$before" ]
    [ ! -e "$T/d/t.png" ]
}

@test "outsafe 3: plan -o naming its own --config file is refused even with --force" {
    # README: "the --config file for hspz plan -o ... is refused (exit 2)"
    printf 'devices:\n  threads: 1\n' >"$T/c.yaml"
    cd "$T"
    hz_run plan -r "$OLDPWD/$AOR" -q "$OLDPWD/$AOQ" --config c.yaml -o ./c.yaml --force
    assert_one_error_line 2
    [[ "$stderr" == *"would overwrite the input"* ]] || { show_run; return 1; }
    [ "$(cat "$T/c.yaml")" = "$(printf 'devices:\n  threads: 1')" ]
}

@test "outsafe 4: a stale OUTDIR.tar.gz.tmp-<our pid> (a link or a file) is never followed nor truncated" {
    # README: "every temporary file is created with O_EXCL|O_NOFOLLOW"
    cd "$T"
    echo victim >victim; echo stale >o.tar.gz.tmp-keep
    status=0
    bash -c 'ln -s victim o.tar.gz.tmp-$$; cp o.tar.gz.tmp-keep o.tar.gz.tmp-$$x; exec "$0" run -r "$1" -q "$2" -o o --tarball --quiet' \
        "$HSPZ" "$OLDPWD/$AOR" "$OLDPWD/$AOQ" 2>"$T/err" || status=$?
    [ "$status" -eq 0 ] || { cat "$T/err"; return 1; }
    [ "$(cat victim)" = victim ]
    local l; l=$(compgen -G 'o.tar.gz.tmp-*' | grep -v 'x$' | grep -v keep)
    [ -L "$l" ]
    [ "$(readlink "$l")" = victim ]   # the user's link stays as it was
    [ "$(cat o.tar.gz.tmp-*x)" = stale ]
    tar -tzf o.tar.gz | grep -q commands.json
    manifest_true o
}

@test "outsafe 5: --force never replaces a symbolic link (--dump-plan, --dump-manifest, --tarball, plan -o, index -o, /dev/stdout)" {
    # README: "a symbolic link, device or FIFO is never replaced, even with --force"
    echo victim >"$T/victim"
    ln -s victim "$T/lnk"
    local rows=(
        "run -r $AOR -q $AOQ -o $T/a --dump-plan $T/lnk --force"
        "run -r $AOR -q $AOQ -o $T/a --dump-manifest $T/lnk --force"
        "run -r $AOR -q $AOQ -o $T/a --tarball=$T/lnk --force"
        "plan -r $AOR -q $AOQ -o $T/lnk --force"
        "index -r $AOR -o $T/lnk --force"
    )
    for r in "${rows[@]}"; do
        # shellcheck disable=SC2086
        hz_run $r
        assert_one_error_line 1
        [[ "$stderr" == *"symbolic link"* ]] || { echo "row: $r"; show_run; return 1; }
        [ -L "$T/lnk" ]
        [ "$(cat "$T/victim")" = victim ]
        [ ! -e "$T/a" ]
    done
    if [ -L /dev/stdout ]; then
        hz_run run -r "$AOR" -q "$AOQ" -o "$T/a" --dump-plan /dev/stdout --force
        assert_one_error_line 1
        [ -L /dev/stdout ]
        [ ! -e "$T/a" ]
    fi
}

@test "outsafe 5: --force replaces only a folder hspz wrote (its manifest.json); a user's folder is refused and kept" {
    # README: "--force replaces only a regular file or a folder hspz wrote (it holds manifest.json ...)"
    mkdir "$OUT"; echo mine >"$OUT/notes.txt"
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --force
    assert_one_error_line 1
    [[ "$stderr" == *"not an output folder of hspz"* ]] || { show_run; return 1; }
    [ "$(cat "$OUT/notes.txt")" = mine ]
}

@test "outsafe 5: --force replaces only a provable hspz OUTDIR: a foreign manifest.json or any file hspz did not write is refused, nothing removed" {
    # docs/cli.md: "--force replaces only a regular file or a folder hspz wrote: its manifest.json is hspz's ... and every entry is one hspz writes there"
    mkdir "$OUT"; echo '{"name":"app"}' >"$OUT/manifest.json"; echo precious >"$OUT/thesis.tex"
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --force --quiet
    assert_one_error_line 1
    [[ "$stderr" == "hspz: $OUT: not an output folder of hspz: 'manifest.json' is not one hspz wrote;"* ]] || { show_run; return 1; }
    [ "$(cat "$OUT/thesis.tex")" = precious ] && [ "$(cat "$OUT/manifest.json")" = '{"name":"app"}' ]
    [ ! -e "$OUT.failed-manifest.json" ] && [ -z "$(compgen -G "$OUT.*" || true)" ]
    echo '{}' >"$OUT/manifest.json"; rm "$OUT/thesis.tex"
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --force --quiet
    assert_one_error_line 1
    [ "$(cat "$OUT/manifest.json")" = '{}' ]
    # a real OUTDIR with a file of the user's: refused naming it, every file kept
    rm -rf "$OUT"
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    echo precious >"$OUT/thesis.tex"
    local before; before="$(cd "$OUT" && sha256sum *)"
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --force --quiet
    assert_one_error_line 1
    [ "$stderr" = "hspz: $OUT: not an output folder of hspz: 'thesis.tex' is not a file hspz wrote there; --force replaces only a folder hspz wrote, nothing removed" ]
    [ "$(cd "$OUT" && sha256sum *)" = "$before" ]
    # what hspz itself adds later (hspz report, hspz gapped --outdir) goes with it
    rm "$OUT/thesis.tex"
    hz_run report "$OUT" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run gapped --outdir "$OUT" -r "$AOR" -q "$AOQ"
    [ "$status" -eq 0 ] && [ -f "$OUT/gapped-manifest.json" ] && [ -f "$OUT/tmp1.block0.r0.plus.maf-" ] || { show_run; return 1; }
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --force --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    manifest_true "$OUT"
    [ ! -e "$OUT/report.html" ] && [ ! -e "$OUT/gapped-manifest.json" ] && [ ! -e "$OUT/tmp1.block0.r0.plus.maf-" ]
    # a query list's OUTDIR: a file added to a job's folder is named with the folder
    printf '%s\n' "$PWD/$AOQ" >"$T/ql.txt"
    hz_run run -r "$AOR" --query-list "$T/ql.txt" -o "$T/ql" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run -r "$AOR" --query-list "$T/ql.txt" -o "$T/ql" --quiet --force
    [ "$status" -eq 0 ] || { show_run; return 1; }
    echo mine >"$T/ql/000001/notes.txt"
    hz_run run -r "$AOR" --query-list "$T/ql.txt" -o "$T/ql" --quiet --force
    assert_one_error_line 1
    [[ "$stderr" == "hspz: $T/ql: not an output folder of hspz: '000001/notes.txt' is not a file hspz wrote there;"* ]] || { show_run; return 1; }
    [ "$(cat "$T/ql/000001/notes.txt")" = mine ]
}

@test "outsafe 5: --force checks content: a listed output changed since (manifest.json or gapped-manifest.json sha256), a report.html or report.png hspz did not make: refused, nothing removed" {
    # docs/cli.md "--force": "a listed output must still hold the bytes its manifest records"
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    local snap; snap() { (cd "$OUT" && sha256sum * | sort); }
    # a listed output edited by the user (same name, other bytes)
    echo "# my note" >>"$OUT/lastz-commands.txt"
    local before; before=$(snap)
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --force --quiet
    assert_one_error_line 1
    [ "$stderr" = "hspz: $OUT: 'lastz-commands.txt' was changed since hspz wrote it (its bytes are not those its manifest records); --force replaces only what hspz wrote, nothing removed" ] || { show_run; return 1; }
    [ "$(snap)" = "$before" ]
    # the same size, other bytes: the sha256 decides
    rm -rf "$OUT"; hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --quiet
    local f; f=$(cd "$OUT" && ls *.segments | head -1)
    python3 -c 'import sys; p=sys.argv[1]; b=bytearray(open(p,"rb").read()); b[0]^=1; open(p,"wb").write(b)' "$OUT/$f"
    before=$(snap)
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --force --quiet
    assert_one_error_line 1
    [[ "$stderr" == "hspz: $OUT: '$f' was changed since hspz wrote it"* ]] || { show_run; return 1; }
    [ "$(snap)" = "$before" ]
    # hspz gapped --outdir's outputs are checked against gapped-manifest.json
    rm -rf "$OUT"; hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --quiet
    hz_run gapped --outdir "$OUT" -r "$AOR" -q "$AOQ"
    [ "$status" -eq 0 ] || { show_run; return 1; }
    echo "extra" >>"$OUT/tmp1.block0.r0.plus.maf-"
    before=$(snap)
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --force --quiet
    assert_one_error_line 1
    [[ "$stderr" == "hspz: $OUT: 'tmp1.block0.r0.plus.maf-' was changed since hspz wrote it"* ]] || { show_run; return 1; }
    [ "$(snap)" = "$before" ]
    # a report.html of the user's, and a picture named report.png beside no hspz report
    rm -rf "$OUT"; hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --quiet
    echo "<html><body>my notes</body></html>" >"$OUT/report.html"
    before=$(snap)
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --force --quiet
    assert_one_error_line 1
    [[ "$stderr" == "hspz: $OUT: not an output folder of hspz: 'report.html' is not a file hspz wrote there;"* ]] || { show_run; return 1; }
    [ "$(snap)" = "$before" ]
    rm "$OUT/report.html"; printf '\x89PNG\r\n\x1a\nmine' >"$OUT/report.png"
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --force --quiet
    assert_one_error_line 1
    [[ "$stderr" == "hspz: $OUT: not an output folder of hspz: 'report.png' is not a file hspz wrote there;"* ]] || { show_run; return 1; }
    [ "$(head -c 12 "$OUT/report.png" | tail -c 4)" = mine ]
    # hspz's own report and untouched outputs: replaced
    rm "$OUT/report.png"
    hz_run report "$OUT" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --force --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ ! -e "$OUT/report.html" ] && [ ! -e "$OUT/report.png" ]
}

@test "outsafe 5: --force: .<format>/.err only where the folder's own lastz lines write them; a query list's tarballs only after --tarball, its queries.tsv as hspz wrote it; names in messages stay on one line" {
    # docs/cli.md "--force": "the .<format>/.err files that the folder's own lastz command lines write"
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --nogapped --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ ! -s "$OUT/lastz-commands.txt" ]   # no lines
    local seg; seg=$(cd "$OUT" && ls *.segments | head -1)
    echo mine >"$OUT/${seg%.segments}.maf-"
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --nogapped --force --quiet
    assert_one_error_line 1
    [[ "$stderr" == "hspz: $OUT: not an output folder of hspz: '${seg%.segments}.maf-' is not a file hspz wrote there;"* ]] || { show_run; return 1; }
    [ "$(cat "$OUT/${seg%.segments}.maf-")" = mine ]
    # --single-file: all.segments is listed, but no lastz line writes all.maf-
    rm -rf "$OUT"; hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --single-file --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    echo mine >"$OUT/all.maf-"
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --single-file --force --quiet
    assert_one_error_line 1
    [ "$(cat "$OUT/all.maf-")" = mine ]
    # the files the lines do write (here by hspz gapped --outdir, no gapped-manifest.json left) go
    rm -rf "$OUT"; hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --quiet
    hz_run gapped --outdir "$OUT" -r "$AOR" -q "$AOQ"
    [ "$status" -eq 0 ] || { show_run; return 1; }
    rm "$OUT/gapped-manifest.json"
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --force --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ -z "$(cd "$OUT" && ls *.maf- 2>/dev/null || true)" ]
    # a file name with a newline and an escape byte: one line, the bytes as \xHH
    echo mine >"$OUT/$(printf 'a\nb\033c')"
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --force --quiet
    assert_one_error_line 1
    [[ "$stderr" == *"'a\x0ab\x1bc' is not a file hspz wrote there"* ]] || { show_run; return 1; }
    # a query list: a <job>.tar.gz of a run without --tarball, and a note added to queries.tsv
    printf '%s\n' "$PWD/$AOQ" >"$T/ql.txt"
    hz_run run -r "$AOR" --query-list "$T/ql.txt" -o "$T/ql" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    echo mine >"$T/ql/000001.tar.gz"
    hz_run run -r "$AOR" --query-list "$T/ql.txt" -o "$T/ql" --quiet --force
    assert_one_error_line 1
    [[ "$stderr" == "hspz: $T/ql: not an output folder of hspz: '000001.tar.gz' is not a file hspz wrote there;"* ]] || { show_run; return 1; }
    [ "$(cat "$T/ql/000001.tar.gz")" = mine ]
    rm "$T/ql/000001.tar.gz"; echo "# my note" >>"$T/ql/queries.tsv"
    hz_run run -r "$AOR" --query-list "$T/ql.txt" -o "$T/ql" --quiet --force
    assert_one_error_line 1
    [ "$stderr" = "hspz: $T/ql: not an output folder of hspz: 'queries.tsv' holds lines hspz did not write; --force replaces only a folder hspz wrote, nothing removed" ] || { show_run; return 1; }
    [ "$(tail -1 "$T/ql/queries.tsv")" = "# my note" ]
    # with --tarball its tarballs go
    rm -rf "$T/ql"; hz_run run -r "$AOR" --query-list "$T/ql.txt" -o "$T/ql" --quiet --tarball
    [ "$status" -eq 0 ] && [ -f "$T/ql/000001.tar.gz" ] || { show_run; return 1; }
    hz_run run -r "$AOR" --query-list "$T/ql.txt" -o "$T/ql" --quiet --tarball --force
    [ "$status" -eq 0 ] || { show_run; return 1; }
}

@test "outsafe 6: an existing empty OUTDIR is filled in place: same folder, owner, group, mode, setgid" {
    # README: "An existing empty OUTDIR (a folder you made, a mount point ...) is filled in place: its owner, group, mode and setgid bit stay"
    mkdir "$OUT"; chmod 2750 "$OUT"; chgrp daemon "$OUT" 2>/dev/null || true
    local before; before=$(stat -c '%i %U %G %a' "$OUT")
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --tarball --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ "$(stat -c '%i %U %G %a' "$OUT")" = "$before" ]
    manifest_true "$OUT"
    [ -z "$(ls -A "$OUT" | grep -F .hspz || true)" ]
    [ -z "$(compgen -G "$OUT.tmp-*" || true)" ]
    [ -f "$OUT.tar.gz" ]
}

@test "outsafe 6: an empty mount point as OUTDIR is filled in place (docker -v host:/out ... -o /out)" {
    # README: "a mount point such as docker run -v host:/out ... -o /out is filled in place"
    mkdir "$T/mnt"
    mount -t tmpfs tmpfs "$T/mnt" 2>/dev/null || skip "mount needs root (CI runs as root)"
    hz_run run -r "$AOR" -q "$AOQ" -o "$T/mnt" --quiet
    local ok=0; [ "$status" -eq 0 ] && manifest_true "$T/mnt" && ok=1
    show_run
    umount "$T/mnt"
    [ "$ok" -eq 1 ]
}

@test "outsafe 6: a kill in the middle of an in-place fill leaves nothing that looks complete; the rerun fills the same folder" {
    # README: "manifest.json comes last"; "undoes ... a half-filled OUTDIR"
    mkdir "$OUT"; chmod 2750 "$OUT"
    local before; before=$(stat -c '%i %a' "$OUT")
    status=0; HSPZ_FAULT=publish-kill:2 "$HSPZ" run -r "$AOR" -q "$AOQ" -o "$OUT" --quiet 2>/dev/null || status=$?
    [ "$status" -eq 137 ]
    [ ! -e "$OUT/manifest.json" ]
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT"
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [[ "$stderr" == *"note: removed $OUT/.hspz.tmp-"* ]] || { show_run; return 1; }
    [ "$(stat -c '%i %a' "$OUT")" = "$before" ]
    manifest_true "$OUT"
    [ -z "$(ls -A "$OUT" | grep -F .hspz || true)" ]
}

@test "outsafe 7: a kill between the tarball's and OUTDIR's renames: the rerun of the same -o works" {
    # README: "the next run with the same -o undoes an unfinished publish (its tarball, a half-filled OUTDIR)"
    status=0; HSPZ_FAULT=publish-kill:1 "$HSPZ" run -r "$AOR" -q "$AOQ" -o "$OUT" --tarball --quiet 2>/dev/null || status=$?
    [ "$status" -eq 137 ]
    [ -f "$OUT.tar.gz" ]
    [ ! -e "$OUT" ]
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --tarball
    [ "$status" -eq 0 ] || { show_run; return 1; }
    manifest_true "$OUT"
    tar -tzf "$OUT.tar.gz" | grep -q commands.json
    [ -z "$(compgen -G "$OUT.tmp-*" || true)" ]
    [ -z "$(compgen -G "$OUT.tar.gz.*" || true)" ]
}

@test "outsafe 7: --force's moved-aside OUTDIR and tarball (.old-<pid>-<token>) do not stay after a kill" {
    # README: "or finishes a done one (the --force leftovers OUTDIR.old-<pid>-<token>)"
    "$HSPZ" run -r "$AOR" -q "$AOQ" -o "$OUT" --tarball --quiet
    status=0; HSPZ_FAULT=publish-kill:3 "$HSPZ" run -r "$AOR" -q "$AOQ" -o "$OUT" --tarball --force --quiet 2>/dev/null || status=$?
    [ "$status" -eq 137 ]
    compgen -G "$OUT.old-*" >/dev/null   # the kill came before they were removed
    manifest_true "$OUT"                 # the new OUTDIR is in place
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --tarball --force
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ -z "$(compgen -G "$OUT.old-*" || true)" ]
    [ -z "$(compgen -G "$OUT.tar.gz.old-*" || true)" ]
    [ -z "$(compgen -G "$OUT.tmp-*" || true)" ]
    manifest_true "$OUT"
}

@test "outsafe 8: SIGPIPE (--print-commands | head -1) is handled like SIGTERM: one line, exit 141, nothing left" {
    # README: "a failed or interrupted run (... or SIGPIPE when stdout is closed: exit 141) leaves no OUTDIR behind"
    local st
    set +o pipefail
    "$HSPZ" run -r "$AOR" -q "$AOQ" -o "$OUT" --print-commands -D 5 --quiet 2>"$T/err" | head -1 >"$T/first"
    st=${PIPESTATUS[0]}
    [ "$st" -eq 141 ] || { echo "exit $st"; cat "$T/err"; return 1; }
    [ "$(grep -vc '^hspz: note: ' "$T/err")" -eq 1 ]
    grep -q '^hspz: stdout was closed (SIGPIPE)' "$T/err"
    [ -s "$T/first" ]
    [ ! -e "$OUT" ]
    [ -z "$(compgen -G "$OUT.tmp-*" || true)" ]
}

@test "outsafe 8: --print-commands to a full device fails with one line and no OUTDIR" {
    # README: "Writes to stdout (--print-commands) are checked: a full disk or closed pipe fails the run"
    [ -w /dev/full ] || skip "no /dev/full"
    status=0
    "$HSPZ" run -r "$AOR" -q "$AOQ" -o "$OUT" --print-commands --quiet >/dev/full 2>"$T/err" || status=$?
    [ "$status" -eq 1 ] || { echo "exit $status"; cat "$T/err"; return 1; }
    [ "$(grep -vc '^hspz: note: ' "$T/err")" -eq 1 ]
    grep -q 'stdout: write error: No space left on device' "$T/err"
    [ ! -e "$OUT" ]
    [ ! -e "$OUT.failed-manifest.json" ]   # stdout's failure, not the run's: nothing (issue 31 review)
    [ -z "$(compgen -G "$OUT.tmp-*" || true)" ]
}

@test "outsafe 9: -Z's archive: refused when it exists (no --force), replaced with --force, a symbolic link never followed" {
    # docs/cli.md -Z: published like --tarball's package, OUTDIR never written
    echo old >"$OUT.tar.gz"
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" -Z
    assert_one_error_line 1
    [[ "$stderr" == "hspz: $OUT.tar.gz: the -Z archive exists (use --force to replace it)" ]] || { show_run; return 1; }
    [ "$(cat "$OUT.tar.gz")" = old ] && [ ! -e "$OUT" ]
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" -Z --force --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    tar -tzf "$OUT.tar.gz" | grep -qx 'tmp1.block0.r0.minus.segments'
    [ ! -e "$OUT" ] && [ -z "$(compgen -G "$OUT.tar.gz.*" || true)" ] && [ -z "$(compgen -G "$OUT.tmp-*" || true)" ]
    echo victim >"$T/victim"; ln -s victim "$T/lnk"
    for f in "" --force; do
        # shellcheck disable=SC2086
        hz_run run -r "$AOR" -q "$AOQ" -o "$T/a" -Z "$T/lnk" $f
        assert_one_error_line 1
        [[ "$stderr" == *"the -Z archive path is a symbolic link"* ]] || { show_run; return 1; }
        [ -L "$T/lnk" ] && [ "$(readlink "$T/lnk")" = victim ] && [ "$(cat "$T/victim")" = victim ]
        [ ! -e "$T/a" ] && [ -z "$(compgen -G "$T/lnk.*" || true)" ]
    done
}

@test "outsafe 9: a killed -Z run leaves no archive; a kill while publishing is put right by the rerun" {
    # SIGKILL while the run reads its input: no archive, no folder
    "$HSPZ" run -r "$AOR" -q <(sleep 3; cat "$AOQ") -o "$OUT" -Z --quiet 2>/dev/null &
    local pid=$!
    sleep 1.5; kill -KILL "$pid"; wait "$pid" || true
    [ ! -e "$OUT.tar.gz" ] && [ ! -e "$OUT" ]
    # SIGKILL with the archive written at its temporary name, just before it is renamed into place
    status=0; HSPZ_FAULT=publish-kill:4 "$HSPZ" run -r "$AOR" -q "$AOQ" -o "$OUT" -Z --quiet 2>/dev/null || status=$?
    [ "$status" -eq 137 ] && [ ! -e "$OUT.tar.gz" ] && [ ! -e "$OUT" ]
    compgen -G "$OUT.tar.gz.tmp-*" >/dev/null && compgen -G "$OUT.tmp-*" >/dev/null
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" -Z
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [[ "$stderr" == *"note: removed $OUT.tmp-"* ]] || { show_run; return 1; }
    [ -z "$(compgen -G "$OUT.tmp-*" || true)" ] && [ ! -e "$OUT" ]
    tar -tzf "$OUT.tar.gz" >/dev/null
    # a kill after the archive was renamed into place, before the run was settled: the rerun
    # takes it back (no "exists" without --force) and publishes its own
    rm -f "$OUT.tar.gz"
    status=0; HSPZ_FAULT=publish-kill:1 "$HSPZ" run -r "$AOR" -q "$AOQ" -o "$OUT" -Z --quiet 2>/dev/null || status=$?
    [ "$status" -eq 137 ] && [ -f "$OUT.tar.gz" ]
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" -Z --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ -z "$(compgen -G "$OUT.tmp-*" || true)" ] && [ -z "$(compgen -G "$OUT.tar.gz.*" || true)" ] && [ ! -e "$OUT" ]
    # a kill after it was settled: the archive stays, its temporary folder (TMP.done) goes with the rerun
    cp "$OUT.tar.gz" "$T/first.tgz"
    status=0; HSPZ_FAULT=publish-kill:3 "$HSPZ" run -r "$AOR" -q "$AOQ" -o "$OUT" -Z --force --quiet 2>/dev/null || status=$?
    [ "$status" -eq 137 ]
    cmp "$OUT.tar.gz" "$T/first.tgz"
    compgen -G "$OUT.tmp-*.done" >/dev/null
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" -Z --force --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ -z "$(compgen -G "$OUT.tmp-*" || true)" ] && [ -z "$(compgen -G "$OUT.tar.gz.*" || true)" ] && [ ! -e "$OUT" ]
    cmp "$OUT.tar.gz" "$T/first.tgz"
}

@test "outsafe 10: recovery goes by identity: a fill killed as '-o ef2' is undone by '-o \$PWD/ef2'; '-o ./k3' after '-o k3'" {
    # the owner record names OUTDIR by its folder's identity, not the spelling (issue 31 review)
    local R Q; R=$(realpath "$AOR"); Q=$(realpath "$AOQ")
    cd "$T"; mkdir ef2
    status=0; HSPZ_FAULT=publish-kill:1 "$HSPZ" run -r "$R" -q "$Q" -o ef2 --tarball --quiet 2>/dev/null || status=$?
    [ "$status" -eq 137 ]
    [ -n "$(ls -A ef2 | grep -F .hspz.tmp- || true)" ]   # the dead run's leftovers are inside
    hz_run run -r "$R" -q "$Q" -o "$PWD/ef2" --tarball
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [[ "$stderr" == *"note: removed $PWD/ef2/.hspz.tmp-"* ]] || { show_run; return 1; }
    manifest_true ef2
    [ -z "$(ls -A ef2 | grep -F .hspz || true)" ]
    status=0; HSPZ_FAULT=publish-kill:1 "$HSPZ" run -r "$R" -q "$Q" -o k3 --tarball --quiet 2>/dev/null || status=$?
    [ "$status" -eq 137 ]
    hz_run run -r "$R" -q "$Q" -o ./k3 --tarball
    [ "$status" -eq 0 ] || { show_run; return 1; }
    manifest_true k3
    [ -z "$(compgen -G "k3.tmp-*" || true)" ]
    [ -z "$(compgen -G "k3.tar.gz.*" || true)" ]
}

@test "outsafe 11: OUTDIR that is the current folder or above it or an input, by identity, is refused (also with --force)" {
    local R Q; R=$(realpath "$AOR"); Q=$(realpath "$AOQ")
    mkdir -p "$T/a/emp" "$T/in"; cp "$R" "$T/in/r.fa.gz"
    cd "$T/a/emp"
    echo keep >"$T/a/emp/mine"
    for o in "$PWD" ../emp "$T/a" "$T/in"; do
        for f in "" --force; do
            hz_run run -r "$T/in/r.fa.gz" -q "$Q" -o "$o" $f --quiet
            [ "$status" -eq 2 ] || { echo "-o $o $f"; show_run; return 1; }
            [[ "$stderr" == *"cannot be the output folder"* || "$stderr" == *"--force would delete the input"* ]] || { show_run; return 1; }
        done
    done
    [ -f "$T/a/emp/mine" ] && [ -f "$T/in/r.fa.gz" ]
    [ "$PWD" = "$T/a/emp" ] && [ -d "$PWD" ]
}
