#!/usr/bin/env bats
# hspz report / run --report (src/report*.c): the self-contained HTML page and the PNG of an
# output folder, on every bundled pair; the command's refusals; and a real browser (Debian's
# headless chromium through tests/lib/report_shot.sh) opening the pages of a tiny, a small and
# (slow tier) a medium pair: no console message, the record grid lines in the DOM, a plot area
# with HSP pixels of both strands (hz_png_probe, built beside hspz, reads the screenshot with cairo).

load ../lib/common

AO=tests/data/apple_orange
MT=tests/data/tiny_mtdna_human_vs_orangutan
PROBE="$(dirname "${HSPZ:-$HZ_REPO/build/hspz}")/hz_png_probe"   # beside the hspz under test (build-sanitize in CI)

setup() {
    require_hspz
}

# self_contained PAGE — no 'http' anywhere, no src=, every href a data: URI or the PNG beside it
self_contained() {
    python3 - "$1" <<'PY'
import re, sys
t = open(sys.argv[1], encoding="utf-8", errors="replace").read()
assert "http" not in t.lower(), "an http reference in " + sys.argv[1]
assert not re.search(r"\bsrc\s*=", t), "a src= attribute"
for h in re.findall(r'href="([^"]*)"', t):
    assert h.startswith("data:") or re.fullmatch(r"[A-Za-z0-9._-]+\.png", h), "href " + h[:60]
assert "<script" not in t.lower() and "@import" not in t and "url(" not in t, "script or a fetched style"
PY
}

# (bats: a failing command inside an && list or after ! does not fail a test, so checks here
# are single commands, or "if cmd; then return 1; fi" for what must not happen)

# page_attr PAGE NAME — the dot plot svg's data-NAME attribute
page_attr() { grep -o "data-$2=\"[^\"]*\"" "$1" | head -n 1 | sed 's/.*="\(.*\)"/\1/'; }

@test "report: hspz run --report on every bundled pair: report.html + report.png, segments unchanged, self-contained" {
    local c n=0
    for c in tests/golden/kegalign-v03/*/default/case.json; do
        local out="$BATS_TEST_TMPDIR/$(basename "$(dirname "$(dirname "$c")")")"
        mapfile -t args < <(python3 -c 'import json,sys; [print(a) for a in json.load(open(sys.argv[1]))["hspz_args"]]' "$c")
        args=("${args[@]/#OUTDIR/$out}")
        hz_run "${args[@]}" --report --quiet
        [ "$status" -eq 0 ] || { show_run; return 1; }
        [ -z "$stderr" ]
        local g; g="$(dirname "$c")/segments"
        for f in "$g"/*; do cmp "$f" "$out/$(basename "$f")" || { echo "$c: $(basename "$f") differs"; return 1; }; done
        [ "$(ls "$out"/*.segments | wc -l)" -eq "$(ls "$g"/*.segments | wc -l)" ]
        [ -s "$out/report.html" ]
        [ -s "$out/report.png" ]
        [ "$(head -c 8 "$out/report.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
        self_contained "$out/report.html"
        local want; want="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["segment_lines"])' "$c")"
        [ "$(page_attr "$out/report.html" hsps)" = "$want" ] || { echo "$c: data-hsps $(page_attr "$out/report.html" hsps), want $want"; return 1; }
        # the manifest (written before the report) does not list it
        if grep -q '"report\.' "$out/manifest.json"; then return 1; fi
        n=$((n + 1))
    done
    [ "$n" -eq 5 ]
}

@test "report: pseudocat x pseudopig (every name empty) says its HSPs cannot be told apart by name" {
    hz_run run -r tests/data/pseudocat_pseudopig/pseudocat.fa -q tests/data/pseudocat_pseudopig/pseudopig.fa -o "$BATS_TEST_TMPDIR/o" --report --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    grep -q '0 target and 2 query records share a name with an earlier record' "$BATS_TEST_TMPDIR/o/report.html"
}

@test "report: with --diagonal-partition and --single-file every segment is drawn once" {
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$BATS_TEST_TMPDIR/o" -D 50 --single-file --report --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    ls "$BATS_TEST_TMPDIR/o" | grep -q '\.split12\.segments$'
    [ -s "$BATS_TEST_TMPDIR/o/all.segments" ]
    [ "$(page_attr "$BATS_TEST_TMPDIR/o/report.html" hsps)" = 1225 ]
}

@test "report: the manifest records every record's length in input order" {
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$BATS_TEST_TMPDIR/o" --quiet
    python3 - "$BATS_TEST_TMPDIR/o/manifest.json" $AO/apple.fasta.gz $AO/orange.fasta.gz <<'PY'
import gzip, json, sys
m = json.load(open(sys.argv[1]))
for inp, path in zip(m["inputs"], sys.argv[2:]):
    lens, cur = [], None
    for line in gzip.open(path, "rt"):
        if line.startswith(">"):
            lens.append(0)
        else:
            lens[-1] += len(line.strip())
    assert inp["record_lengths"] == lens, (inp["role"], inp["record_lengths"][:3], lens[:3])
    assert sum(lens) == inp["bases"] and len(lens) == inp["records"] == 31
PY
}

@test "report: hspz report OUTDIR writes OUTDIR/report.html; -o elsewhere; --force; --max-lines 0 gives the raster" {
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/o" --quiet
    local before; before="$(cd "$d/o" && sha256sum ./* | sort)"
    hz_run report "$d/o"
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [[ "$stderr" == "hspz: report: 1225 HSPs from 2 segments files (drawn as lines); wrote $d/o/report.html ("*" bytes) and $d/o/report.png ("*" bytes) in "*" s" ]]
    [ "$(page_attr "$d/o/report.html" mode)" = lines ]
    [ "$(page_attr "$d/o/report.html" target-records)" = 31 ]
    # the run's files are untouched
    [ "$(cd "$d/o" && sha256sum ./* | grep -v report | sort)" = "$before" ]
    # again: refused without --force, nothing changed
    local h; h="$(sha256sum < "$d/o/report.html")"
    hz_run report "$d/o"
    [ "$status" -eq 1 ]
    [ "$stderr" = "hspz: $d/o/report.html: exists (use --force to replace it)" ]
    [ "$(sha256sum < "$d/o/report.html")" = "$h" ]
    hz_run report "$d/o" --force --quiet --max-lines 0
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    [ "$(page_attr "$d/o/report.html" mode)" = density ]
    hz_run report "$d/o" -o "$d/elsewhere.html" --quiet
    [ "$status" -eq 0 ]
    [ -s "$d/elsewhere.html" ]
    [ -s "$d/elsewhere.png" ]
    self_contained "$d/elsewhere.html"
    grep -q 'href="elsewhere.png"' "$d/elsewhere.html"
    hz_run report "$d/o" -o "$d/noext" --quiet
    [ -s "$d/noext" ]
    [ -s "$d/noext.png" ]
}

@test "report: refusals: usage (exit 2), not an output folder, the run's own files, a bad segment line (exit 1, one line)" {
    local d="$BATS_TEST_TMPDIR"
    hz_run report
    [ "$status" -eq 2 ]
    [[ "$stderr" == "hspz: report: missing OUTDIR"* ]]
    hz_run report a b
    [ "$status" -eq 2 ]
    hz_run report "$d" --max-lines 20001
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"--max-lines: '20001' is not an integer 0..20000"* ]]
    hz_run report "$d" --bogus
    [ "$status" -eq 2 ]
    [[ "$stderr" == "hspz: report: unknown option '--bogus'"* ]]
    hz_run report "$d" -o "$d/nosuch/r.html"
    [ "$status" -eq 1 ]
    [ "$stderr" = "hspz: $d/nosuch/r.html: the folder '$d/nosuch' does not exist" ]
    hz_run report "$d/missing"
    [ "$status" -eq 1 ]
    [ "$stderr" = "hspz: $d/missing: No such file or directory" ]
    mkdir "$d/empty"
    hz_run report "$d/empty"
    [ "$status" -eq 1 ]
    [[ "$stderr" == "hspz: $d/empty/manifest.json: "*"(not an output folder of hspz run or merge?)" ]]
    [ ! -e "$d/empty/report.html" ]
    [ ! -e "$d/empty/report.png" ]
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/o" --quiet
    hz_run report "$d/o" -o "$d/o/manifest.json" --force
    [ "$status" -eq 1 ]
    [ "$stderr" = "hspz: $d/o/manifest.json: is an output of the run; the report does not replace it" ]
    cp $MT/MT-human.fa "$d/t.fa"
    hz_run run -r "$d/t.fa" -q $MT/MT-orang.fa -o "$d/o2" --quiet
    local sum; sum="$(sha256sum < "$d/t.fa")"
    hz_run report "$d/o2" -o "$d/t.fa" --force
    [ "$status" -eq 1 ]
    [ "$stderr" = "hspz: $d/t.fa: is an input of the run; the report does not replace it" ]
    [ "$(sha256sum < "$d/t.fa")" = "$sum" ]
    cp -r "$d/o" "$d/bad"
    printf 'MT_human\t1\t99999\tMT_orang\t1\t99999\t+\t5000\n' >> "$d/bad/tmp1.block0.r0.plus.segments"
    hz_run report "$d/bad"
    [ "$status" -eq 1 ]
    [ "$stderr" = "hspz: $d/bad/tmp1.block0.r0.plus.segments:24: target range 1-99999 is not inside MT_human (1-16569)" ]
    [ ! -e "$d/bad/report.html" ]
    [ ! -e "$d/bad/report.png" ]
    if ls "$d/bad" | grep -q tmp-; then return 1; fi
}

@test "report: run --report and merge of a --report plan; a unit folder gets none; the key is in hspz config" {
    local d="$BATS_TEST_TMPDIR"
    hz_run config --report
    grep -qx '  report: true  # flag - also write OUTDIR/report.html and report.png (dot plot, funnel, settings) (--report)' "$d/stdout"
    hz_run plan -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/p.json" --seq-block-size 100000 --report --quiet
    hz_run run --plan "$d/p.json" --unit 1-16 -o "$d/u" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ ! -e "$d/u/report.html" ]
    hz_run report "$d/u" -o "$d/unit.html" --quiet          # a unit folder can still be reported on
    [ "$status" -eq 0 ]
    grep -q 'scale-out: unit' "$d/unit.html"
    hz_run merge "$d/p.json" "$d/u" -o "$d/m" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ -s "$d/m/report.html" ]
    [ -s "$d/m/report.png" ]
    [ "$(page_attr "$d/m/report.html" hsps)" = 1225 ]
}

# grid_want DIR PW PH — the record grid lines the plot must have, worked out from the manifest's
# record lengths: a record's start gets a line when it lies at least 3 px from the last line (or
# the origin) and from the far edge ("TARGET QUERY"; all records but the first when every
# record is wide)
grid_want() {
    python3 - "$1/manifest.json" "$2" "$3" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
out = []
for role, px in (("target", float(sys.argv[2])), ("query", float(sys.argv[3]))):
    L = [i for i in m["inputs"] if i["role"] == role][0]["record_lengths"]
    tot, off, last, n = sum(L) or 1, 0, 0.0, 0
    for i, l in enumerate(L):
        p = off * px / tot
        if i and p - last >= 3 and px - p >= 1:
            n, last = n + 1, p
        off += l
    out.append(str(n))
print(" ".join(out))
PY
}

# browser_check PAGE SHOT [MIN_PLUS MIN_MINUS] — open PAGE in chromium and check the rendering:
# no console message, the grid lines in the DOM, the plot frame and HSP pixels of both strands
# in the screenshot.  Skips when chromium is missing (CI's fresh root has it: deps.sh test).
browser_check() {
    local page="$1" shot="$2" rc=0
    [ -x "$PROBE" ] || skip "no $PROBE (build first)"
    "$HZ_REPO/tests/lib/report_shot.sh" "$page" "$shot" || rc=$?
    [ "$rc" -ne 3 ] || skip "chromium is not installed (apt-get install chromium, or container/deps.sh test)"
    [ "$rc" -eq 0 ]
    # no console message at all (the page has no script; a blocked load would show here)
    if grep -F 'CONSOLE' "$shot.log"; then return 1; fi
    local plot pw ph; plot="$(page_attr "$shot.dom" plot)"
    read -r _ _ pw ph <<<"$plot"
    local want gt gq; want="$(grid_want "$(dirname "$page")" "$pw" "$ph")"
    gt="$(grep -o 'class="grid-t"' "$shot.dom" | wc -l)"
    gq="$(grep -o 'class="grid-q"' "$shot.dom" | wc -l)"
    echo "grid lines in the DOM: $gt $gq, want $want"
    [ "$gt $gq" = "$want" ]
    [ "$gt" -eq "$(page_attr "$shot.dom" target-lines)" ]
    [ "$gq" -eq "$(page_attr "$shot.dom" query-lines)" ]
    local p bottom plus minus white; p="$("$PROBE" "$shot" "$pw" "$ph")"
    echo "$p"
    read -r _ _ _ _ bottom _ plus _ minus _ _ _ white <<<"$p"
    [ "$bottom" -eq 1 ]
    [ "$plus" -ge "${3:-100}" ]
    [ "$minus" -ge "${4:-100}" ]
    [ "$white" -gt "$((plus + minus))" ]    # a dot plot, not a filled square
}

@test "report: headless chromium renders the tiny pair (apple x orange, HSPs as lines)" {
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/o" --report --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    browser_check "$d/o/report.html" "$d/shot.png" 500 500
    [ "$(grep -o 'class="grid-t"' "$d/shot.png.dom" | wc -l)" -eq 30 ]    # 31 records a side, all wide
    [ "$(grep -o 'class="grid-q"' "$d/shot.png.dom" | wc -l)" -eq 30 ]
}

@test "report: headless chromium renders a small pair as a density raster (K. pneumoniae, 7 x 2 records)" {
    require_shared
    local d="$BATS_TEST_TMPDIR" k="$HSPZ_SHARED/data/small_kpneumoniae_hs11286_vs_ntuhk2044"
    hz_run run -r "$k"/*HS11286*.fa.gz -q "$k"/*NTUH*.fa.gz -o "$d/o" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run report "$d/o" --max-lines 0 --quiet
    [ "$status" -eq 0 ]
    [ "$(page_attr "$d/o/report.html" mode)" = density ]
    browser_check "$d/o/report.html" "$d/shot.png" 200 50
}

@test "report: headless chromium renders a medium pair (S. cerevisiae self, 16 x 16 chromosomes, slow tier)" {
    require_shared
    require_slow
    local d="$BATS_TEST_TMPDIR" y="$HSPZ_SHARED/data/medium_scerevisiae_R64_self_2bit"
    hz_run run -r "$y"/*.2bit -q "$y"/*.2bit -o "$d/o" --report --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ "$(page_attr "$d/o/report.html" mode)" = density ]
    [ "$(stat -c %s "$d/o/report.html")" -le 5000000 ]
    browser_check "$d/o/report.html" "$d/shot.png" 1000 100
}
