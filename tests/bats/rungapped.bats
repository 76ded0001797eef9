#!/usr/bin/env bats
# hspz run --gapped: HSPs then alignments in one process (issue 34, docs/gapped.md).  Every case
# asserts byte equality: with `hspz run` followed by `hspz gapped --outdir` on the same inputs,
# and with Debian's lastz 1.04.22 run on the run's own lastz-commands.txt lines (its package).

load ../lib/common

TD="$HSPZ_SHARED/data"
AO="$TD/tiny_kegalign_apple_vs_orange_SYNTHETIC"
AG="$TD/tiny_aglobin_human_vs_cow"
MT="$TD/tiny_mtdna_human_vs_orangutan"
PC="$TD/tiny_lastz_pseudocat_vs_pseudopig"
SMALL=(--seq-block-size 100000 --lastz-interval-size 40000 --wga-chunk-size 15000)

setup() {
    require_hspz
    [ -d "$TD" ] || skip "../shared is absent ($HSPZ_SHARED): these cases use ../shared/data"
}

# alignments DIR — the number of alignments (maf 'a' lines, axt summary lines) in DIR's outputs
alignments() { cat "$1"/*.maf* "$1"/*.axt* 2>/dev/null | grep -c '^a \|^[0-9]' || true; }

# same_gapped A B — two folders with the same files and bytes, the manifests aside, and with
# alignments: every line's --output file and an empty 2> file
same_gapped() {
    diff -r -x manifest.json -x gapped-manifest.json "$1" "$2" || return 1
    local n; n=$(alignments "$1")
    [ "$n" -gt 0 ] || { echo "no alignments in $1"; return 1; }
    local outs; outs=$(sed 's/.*--output=\([^ ]*\) .*/\1/' "$1/lastz-commands.txt")
    for f in $outs; do [ -f "$1/$f" ] || { echo "missing $f"; return 1; }; done
    for f in "$1"/*.err; do [ ! -s "$f" ] || { echo "$f: $(head -2 "$f")"; return 1; }; done
    echo "equal: $n alignments, $(wc -l < "$1/lastz-commands.txt") commands"
}

# two_step DIR REF QRY [run options...] — DIR/two: hspz run, then hspz gapped --outdir (the
# same --threads as the run when given)
two_step() {
    local d="$1" ref="$2" qry="$3"; shift 3
    mkdir -p "$d"
    hz_run run -r "$ref" -q "$qry" -o "$d/two" --quiet "$@"
    [ "$status" -eq 0 ] || { show_run; return 1; }
    run "$HSPZ" gapped --outdir "$d/two" -r "$ref" -q "$qry" --threads 2
    [ "$status" -eq 0 ] || { echo "$output"; return 1; }
}

# vs_lastz OUTDIR TARBALL — every line of OUTDIR/lastz-commands.txt run by /usr/bin/lastz on the
# run's package (the 2bit files Galaxy's batched_lastz reads): its output and stderr equal
# the files hspz run --gapped wrote
vs_lastz() {
    require_cmd lastz
    local out="$1" pkg="$BATS_TEST_TMPDIR/pkg.$$.$RANDOM" n=0 line f
    mkdir -p "$pkg" && tar xzf "$2" -C "$pkg" && cd "$pkg/galaxy/files" || return 1
    while read -r line; do
        eval "$line" || { echo "lastz failed: $line"; return 1; }
        for f in $(sed 's/.*--output=\([^ ]*\) 2> \(.*\)/\1 \2/' <<<"$line"); do
            cmp "$f" "$out/$f" || { echo "differs from lastz: $f ($line)"; return 1; }
        done
        n=$((n + 1))
    done < "$out/lastz-commands.txt"
    cd "$HZ_REPO"
    [ "$n" -gt 0 ] && echo "equal to lastz: $n commands, $(alignments "$out") alignments"
}

@test "run --gapped: apple/orange FASTA, both strands, = run + gapped --outdir on 1, 2 and 3 threads, and with --query-list" {
    local d="$BATS_TEST_TMPDIR" t
    two_step "$d" "$AO/apple.fasta.gz" "$AO/orange.fasta.gz" --threads 1
    grep -q -- '--strand=minus' "$d/two/lastz-commands.txt" && grep -q -- '--strand=plus' "$d/two/lastz-commands.txt"
    for t in 1 2 3; do
        hz_run run -r "$AO/apple.fasta.gz" -q "$AO/orange.fasta.gz" -o "$d/g$t" --quiet --threads $t --gapped
        [ "$status" -eq 0 ] || { show_run; return 1; }
        [ -z "$stderr" ]
        same_gapped "$d/g$t" "$d/two"
    done
    [ "$(alignments "$d/g1")" -gt 20 ]
    # --query-list: each query's folder OUTDIR/<n>/ gets its alignments
    echo "$AO/orange.fasta.gz" > "$d/ql.txt"
    hz_run run -r "$AO/apple.fasta.gz" --query-list "$d/ql.txt" -o "$d/ql" --quiet --threads 2 --gapped
    [ "$status" -eq 0 ] || { show_run; return 1; }
    same_gapped "$d/ql/000001" "$d/two"
}

@test "run --gapped: 2bit target, a relative scoring file, -T/-Q prefixes, axt+ with --inner 2000 = run + gapped --outdir" {
    local d="$BATS_TEST_TMPDIR"
    cp "$HZ_DATA/scoring/hoxd70.txt" "$d/sc.txt"
    cd "$d"
    local opts=(-c sc.txt -T pig. -Q cat. --format axt+ --inner 2000 --gappedthresh 3000 --hspthresh 2400 --threads 2)
    two_step "$d" "$PC/pseudopig.2bit" "$PC/pseudocat.fa" "${opts[@]}"
    hz_run run -r "$PC/pseudopig.2bit" -q "$PC/pseudocat.fa" -o "$d/g" --quiet --gapped "${opts[@]}"
    [ "$status" -eq 0 ] || { show_run; return 1; }
    grep -q -- '--scores=sc.txt' "$d/g/lastz-commands.txt"
    grep -q -- '--inner=2000' "$d/g/lastz-commands.txt"
    same_gapped "$d/g" "$d/two"
    grep -q ' pig\.' "$d"/g/*.axt+                      # the prefixed names, as in the package's 2bit
}

@test "run --gapped = Debian's lastz on the run's own lastz-commands.txt (mtDNA, alpha-globin, apple/orange, 2bit pseudopig; maf-, axt+ H=2000)" {
    require_cmd lastz
    local d="$BATS_TEST_TMPDIR" i=0 pair
    for pair in "$MT/MT-human.fa $MT/MT-orang.fa" "$AG/aglobin_human.fa.gz $AG/aglobin_cow.fa.gz" \
                "$PC/pseudopig.2bit $PC/pseudopig.2bit" "$AO/apple.fasta.gz $AO/orange.fasta.gz"; do
        set -- $pair
        i=$((i + 1))
        hz_run run -r "$1" -q "$2" -o "$d/m$i" --tarball --quiet --threads 2 --gapped
        [ "$status" -eq 0 ] || { show_run; return 1; }
        vs_lastz "$d/m$i" "$d/m$i.tar.gz"
    done
    # make_lastz_chains' gapped options on the lines (axt+, interpolation), both strands
    hz_run run -r "$AO/apple.fasta.gz" -q "$AO/orange.fasta.gz" -o "$d/x" --tarball --quiet --gapped \
        --format axt+ --inner 2000 --hspthresh 2400 --gappedthresh 3000 --ydrop 9400
    [ "$status" -eq 0 ] || { show_run; return 1; }
    grep -q -- '--strand=minus' "$d/x/lastz-commands.txt"
    vs_lastz "$d/x" "$d/x.tar.gz"
}

@test "run --gapped: -D split segments files and a unit of a plan = run + gapped --outdir" {
    local d="$BATS_TEST_TMPDIR"
    two_step "$d/D" "$AO/apple.fasta.gz" "$AO/orange.fasta.gz" -D 20 --threads 2
    hz_run run -r "$AO/apple.fasta.gz" -q "$AO/orange.fasta.gz" -o "$d/D/g" --quiet -D 20 --threads 2 --gapped
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ "$(ls "$d"/D/g/*.split*.maf- | wc -l)" -gt 10 ]
    same_gapped "$d/D/g" "$d/D/two"
    hz_run plan -r "$AO/apple.fasta.gz" -q "$AO/orange.fasta.gz" -o "$d/plan.json" "${SMALL[@]}" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run --plan "$d/plan.json" --unit 6,11 -o "$d/u" --quiet --threads 2 --gapped
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run --plan "$d/plan.json" --unit 6,11 -o "$d/v" --quiet --threads 2
    [ "$status" -eq 0 ] || { show_run; return 1; }
    run "$HSPZ" gapped --outdir "$d/v" -r "$AO/apple.fasta.gz" -q "$AO/orange.fasta.gz"
    [ "$status" -eq 0 ] || { echo "$output"; return 1; }
    same_gapped "$d/u" "$d/v"
    [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["unit"]["ids"])' "$d/u/manifest.json")" = "[6, 11]" ]
}

@test "run --gapped: the manifest records each alignment file (bytes, sha256 = sha256sum), the stage's time and the setting's source" {
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r "$MT/MT-human.fa" -q "$MT/MT-orang.fa" -o "$d/g" --quiet --gapped --threads 2
    [ "$status" -eq 0 ] || { show_run; return 1; }
    local n=0 f
    for f in $(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["gapped"]["files"]))' "$d/g/manifest.json"); do
        [ -f "$d/g/$f" ]
        [ "$(python3 -c 'import json,sys
m = json.load(open(sys.argv[1])); e = [o for o in m["outputs"] if o["name"] == sys.argv[2]][0]
print(e["sha256"], e["bytes"])' "$d/g/manifest.json" "$f")" = "$(sha256sum < "$d/g/$f" | cut -c1-64) $(stat -c %s "$d/g/$f")" ]
        n=$((n + 1))
    done
    [ "$n" -eq $((2 * $(wc -l < "$d/g/lastz-commands.txt"))) ]     # each line's --output and 2> file
    python3 - "$d/g/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
assert m["gapped"]["commands"] == 1 and m["gapped"]["threads"] == 2, m["gapped"]
assert 0 <= m["time_s"]["gapped"] <= m["time_s"]["wall"], m["time_s"]
assert m["config"]["values"]["gapped"] == {"value": True, "source": "flag", "section": "output"}
PY
    # without --gapped: no section, no time, the default source
    hz_run run -r "$MT/MT-human.fa" -q "$MT/MT-orang.fa" -o "$d/n" --quiet --threads 2
    python3 -c 'import json,sys; m = json.load(open(sys.argv[1])); assert "gapped" not in m and "gapped" not in m["time_s"]
assert m["config"]["values"]["gapped"]["value"] is False and m["config"]["values"]["gapped"]["source"] == "default"' "$d/n/manifest.json"
    # hspz gapped --outdir's own record: gapped-manifest.json with the same files and bytes
    run "$HSPZ" gapped --outdir "$d/n" -r "$MT/MT-human.fa" -q "$MT/MT-orang.fa"
    [ "$status" -eq 0 ] || { echo "$output"; return 1; }
    python3 - "$d/n/gapped-manifest.json" "$d/g/manifest.json" "$d/n" <<'PY'
import hashlib, json, os, sys
g, r, d = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
assert g["kind"] == "hspz gapped --outdir" and g["commands"] == 1 and g["run"]["status"] == "completed"
assert [o["name"] for o in g["outputs"]] == r["gapped"]["files"]
for o in g["outputs"]:
    b = open(os.path.join(d, o["name"]), "rb").read()
    assert o["bytes"] == len(b) and o["sha256"] == hashlib.sha256(b).hexdigest(), o
assert [i["sha256"] for i in g["inputs"]] == [i["sha256"] for i in r["inputs"]]
assert g["settings"]["threads"] == {"value": 1, "source": "default"}
PY
    # a second --outdir run: its outputs exist, refused without --force, replaced with it
    run "$HSPZ" gapped --outdir "$d/n" -r "$MT/MT-human.fa" -q "$MT/MT-orang.fa"
    [ "$status" -eq 1 ]
    run "$HSPZ" gapped --outdir "$d/n" -r "$MT/MT-human.fa" -q "$MT/MT-orang.fa" --force --threads 3
    [ "$status" -eq 0 ]
    python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["settings"]["threads"] == {"value": 3, "source": "flag"}' "$d/n/gapped-manifest.json"
}

@test "run --gapped: YAML key output.gapped, and what it cannot do is refused with one line before any work" {
    local d="$BATS_TEST_TMPDIR"
    printf 'output:\n  gapped: true\n' > "$d/c.yaml"
    hz_run run -r "$MT/MT-human.fa" -q "$MT/MT-orang.fa" -o "$d/y" --config "$d/c.yaml" --quiet --threads 1
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ "$(ls "$d"/y/*.maf- | wc -l)" -eq "$(grep -c '' "$d/y/lastz-commands.txt")" ]
    [ "$(alignments "$d/y")" -gt 0 ]
    python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["config"]["values"]["gapped"]["source"] == "file"' "$d/y/manifest.json"
    local a
    for a in "--nogapped" "-Z" "--format lav" "--format general" "--inner 2000 --ambiguous iupac" "--ambiguous n,100"; do
        hz_run run -r "$MT/MT-human.fa" -q "$MT/MT-orang.fa" -o "$d/r" --gapped $a
        assert_one_error_line 2 || { echo "with --gapped $a"; return 1; }
        [[ "$stderr" == "hspz: "*"-"* ]]
        assert_no_outdir "$d/r"
    done
    [[ "$stderr" == *"run lastz on lastz-commands.txt"* ]]
    hz_run run --help
    [[ "$output" == *"--gapped "* ]]
}

@test "run --gapped: a record lastz could not select (name ending in .fa) is refused before any work: one line, no OUTDIR" {
    local d="$BATS_TEST_TMPDIR"
    { echo ">chr1.fa"; gunzip -c "$AG/aglobin_human.fa.gz" | grep -v '>'; } > "$d/t.fa"   # lastz drops '.fa' from names
    hz_run run -r "$d/t.fa" -q "$AG/aglobin_cow.fa.gz" -o "$d/o" --gapped --quiet
    assert_one_error_line 1
    [[ "$stderr" == "hspz: $d/t.fa: record 1 'chr1.fa' has a name ending in .fa, "*"so --gapped cannot align it" ]]
    assert_no_outdir "$d/o"
    # the HSP stage alone still succeeds on it
    hz_run run -r "$d/t.fa" -q "$AG/aglobin_cow.fa.gz" -o "$d/o" --quiet
    [ "$status" -eq 0 ]
}

@test "run --gapped --traceback SIZE: truncated alignments = gapped --outdir --allocate:traceback and = lastz with the word appended; bad sizes refused" {
    require_cmd lastz
    local d="$BATS_TEST_TMPDIR" line f n=0
    hz_run run -r "$AG/aglobin_human.fa.gz" -q "$AG/aglobin_cow.fa.gz" -o "$d/g" --quiet --gapped --traceback 100K --tarball
    [ "$status" -eq 0 ] || { show_run; return 1; }
    grep -q '^truncating alignment' "$d"/g/*.err                # 100K truncates alpha-globin's alignments
    python3 -c 'import json,sys; v = json.load(open(sys.argv[1]))["config"]["values"]["traceback"]; assert (v["value"], v["source"]) == ("100K", "flag"), v' "$d/g/manifest.json"
    hz_run run -r "$AG/aglobin_human.fa.gz" -q "$AG/aglobin_cow.fa.gz" -o "$d/two" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    run "$HSPZ" gapped --outdir "$d/two" -r "$AG/aglobin_human.fa.gz" -q "$AG/aglobin_cow.fa.gz" --allocate:traceback=100K
    [ "$status" -eq 0 ] || { echo "$output"; return 1; }
    diff -r -x manifest.json -x gapped-manifest.json "$d/g" "$d/two"
    # lastz on the package's lines, each with --allocate:traceback=100K appended
    mkdir -p "$d/pkg" && tar xzf "$d/g.tar.gz" -C "$d/pkg" && cd "$d/pkg/galaxy/files"
    while read -r line; do
        eval "$line --allocate:traceback=100K"
        for f in $(sed 's/.*--output=\([^ ]*\) 2> \(.*\)/\1 \2/' <<<"$line"); do cmp "$f" "$d/g/$f"; done
        n=$((n + 1))
    done < "$d/g/lastz-commands.txt"
    cd "$HZ_REPO"
    [ "$n" -gt 0 ]
    # without it: lastz's 80M, no truncation
    hz_run run -r "$AG/aglobin_human.fa.gz" -q "$AG/aglobin_cow.fa.gz" -o "$d/n" --quiet --gapped
    [ "$status" -eq 0 ] || { show_run; return 1; }
    ! grep -q truncating "$d"/n/*.err
    local a
    for a in "--traceback 1G" "--gapped --traceback 50K" "--gapped --traceback lots" "--gapped --traceback 2G" \
             "--gapped --traceback 2048M"; do
        hz_run run -r "$MT/MT-human.fa" -q "$MT/MT-orang.fa" -o "$d/r" $a
        assert_one_error_line 2 || { echo "with $a"; return 1; }
        [[ "$stderr" == "hspz: "*"--traceback"* ]]
        assert_no_outdir "$d/r"
    done
}

@test "run --gapped: an empty record name or a record without bases is refused before any work (one line, exit 1, no OUTDIR)" {
    local d="$BATS_TEST_TMPDIR"
    { echo ">"; sed 1d "$MT/MT-orang.fa"; } > "$d/empty.fa"
    { cat "$MT/MT-orang.fa"; echo ">nobases"; } > "$d/nobases.fa"
    hz_run run -r "$MT/MT-human.fa" -q "$d/empty.fa" -o "$d/e" --gapped
    assert_one_error_line 1
    [[ "$stderr" == "hspz: $d/empty.fa: record 1 '' has an empty name;"*"so --gapped cannot align it" ]] || { show_run; return 1; }
    assert_no_outdir "$d/e"
    hz_run run -r "$d/nobases.fa" -q "$MT/MT-human.fa" -o "$d/n" --gapped
    assert_one_error_line 1
    [[ "$stderr" == *"record 2 'nobases' has no bases;"*"so --gapped cannot align it" ]]
    assert_no_outdir "$d/n"
    # without --gapped: KegAlign's bytes, with a note
    hz_run run -r "$MT/MT-human.fa" -q "$d/empty.fa" -o "$d/k"
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [[ "$stderr" == *"note:"*"empty name"* ]]
}

@test "run --gapped and gapped --outdir: a relative -c score file is named in lastz's warning as the line writes it (= lastz run where hspz ran)" {
    require_cmd lastz
    local d="$BATS_TEST_TMPDIR" line f
    cp "$HZ_REPO/tests/data/scoring/lastz_d_aglobin.txt" "$d/sc.txt"
    cd "$d"
    hz_run run -r "$AG/aglobin_human.fa.gz" -q "$AG/aglobin_cow.fa.gz" -c sc.txt --format maf -o g --quiet --gapped --tarball
    [ "$status" -eq 0 ] || { show_run; return 1; }
    grep -q 'absent from sc.txt\.$' g/tmp1.block0.r0.plus.err
    # lastz on each line from here (where sc.txt is), with the package's 2bit files under work/
    mkdir -p pkg && tar xzf g.tar.gz -C pkg && ln -s pkg/galaxy/files/work work
    while read -r line; do
        line="${line/ --output=/ --output=pkg/}"; line="${line/ 2> / 2> pkg/}"
        line="${line/--segments=/--segments=pkg/galaxy/files/}"
        line="${line//subset=/subset=pkg/galaxy/files/}"
        eval "$line"
    done < g/lastz-commands.txt
    for f in g/*.err; do cmp "$f" "pkg/${f#g/}"; done
    for f in g/*.maf; do                             # the header's command words differ (paths)
        [ "$(grep -vc '^#' "$f")" -gt 10 ]
        cmp <(grep -v '^#' "$f") <(grep -v '^#' "pkg/${f#g/}")
    done
}

@test "run --gapped --device cuda's helper (hspz __gapped-stage, a new process: CUDA is not usable after fork): the files of run --gapped, its result on a descriptor; failures reported there" {
    local d="$BATS_TEST_TMPDIR" f n=0
    hz_run run -r "$AO/apple.fasta.gz" -q "$AO/orange.fasta.gz" -o "$d/g" --quiet --threads 2 --gapped -T t. -Q q.
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run -r "$AO/apple.fasta.gz" -q "$AO/orange.fasta.gz" -o "$d/h" --quiet --threads 2 -T t. -Q q.
    [ "$status" -eq 0 ] || { show_run; return 1; }
    # the emu device: the GPU's code on the host, as the lines of --device cuda run it
    run "$HSPZ" __gapped-stage "$d/h" "$AO/apple.fasta.gz" "$AO/orange.fasta.gz" t. q. 2 emu "" 3 \
        "$(sha256sum < "$AO/apple.fasta.gz" | cut -c1-64)" "" 3> "$d/res.txt"
    [ "$status" -eq 0 ] && [ -z "$output" ]
    [ "$(sed -n 1p "$d/res.txt")" = "rc 0" ]
    [ "$(sed -n 2p "$d/res.txt")" = "ncmd $(grep -c . "$d/h/lastz-commands.txt")" ]
    [ "$(tail -n 1 "$d/res.txt")" = "err " ]
    for f in $(sed -n 's/^f //p' "$d/res.txt"); do cmp "$d/g/$f" "$d/h/$f"; n=$((n + 1)); done
    [ "$n" -eq $((2 * $(grep -c . "$d/h/lastz-commands.txt"))) ]
    [ "$(alignments "$d/h")" -gt 20 ]
    # a failure comes back as rc 1 with its one line, nothing placed
    rm -rf "$d/k"; hz_run run -r "$AO/apple.fasta.gz" -q "$AO/orange.fasta.gz" -o "$d/k" --quiet
    run "$HSPZ" __gapped-stage "$d/k" "$d/absent.fa" "$AO/orange.fasta.gz" "" "" 2 cpu "" 3 "" "" 3> "$d/res2.txt"
    [ "$status" -eq 0 ]
    [ "$(sed -n 1p "$d/res2.txt")" = "rc 1" ]
    grep -q "^err .*absent.fa" "$d/res2.txt"
    ! ls "$d/k"/*.maf- 2>/dev/null
    # a query that is not the bytes the run read (sha256) is refused, nothing placed
    run "$HSPZ" __gapped-stage "$d/k" "$AO/apple.fasta.gz" "$AO/orange.fasta.gz" "" "" 2 cpu "" 3 "" \
        0000000000000000000000000000000000000000000000000000000000000000 3> "$d/res3.txt"
    [ "$status" -eq 0 ] && [ "$(sed -n 1p "$d/res3.txt")" = "rc 1" ]
    grep -q "^err .*orange.fasta.gz changed since this run read it" "$d/res3.txt"
    ! ls "$d/k"/*.maf- 2>/dev/null
    run "$HSPZ" __gapped-stage "$d/k"
    [ "$status" -eq 2 ] && [[ "$output" == *"helper of hspz run"* ]]
}

@test "run --gapped through its helper (HSPZ_GAPPED_DEVICE=emu: the GPU's code on the host) = run --gapped on the CPU; a device that cannot open fails the run with one line, no OUTDIR; SIGTERM ends the helper too" {
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r "$AO/apple.fasta.gz" -q "$AO/orange.fasta.gz" -o "$d/c" --quiet --threads 2 --gapped -T t. -Q q.
    [ "$status" -eq 0 ] || { show_run; return 1; }
    HSPZ_GAPPED_DEVICE=emu hz_run run -r "$AO/apple.fasta.gz" -q "$AO/orange.fasta.gz" -o "$d/e" --quiet --threads 2 --gapped -T t. -Q q.
    [ "$status" -eq 0 ] && [ -z "$stderr" ] || { show_run; return 1; }
    same_gapped "$d/e" "$d/c"
    [ "$(mf "$d/e/manifest.json" 'd["environment"]["HSPZ_GAPPED_DEVICE"]')" = emu ]
    # query list: each job's helper reads that job's query
    echo "$AO/orange.fasta.gz" > "$d/ql.txt"
    HSPZ_GAPPED_DEVICE=emu hz_run run -r "$AO/apple.fasta.gz" --query-list "$d/ql.txt" -o "$d/ql" --quiet --threads 2 --gapped -T t. -Q q.
    [ "$status" -eq 0 ] || { show_run; return 1; }
    same_gapped "$d/ql/000001" "$d/c"
    # where the device cannot be opened (cuda in a build without it, or no GPU) the line fails
    if ! "$HSPZ" version 2>&1 | grep -qi cuda || ! command -v nvidia-smi >/dev/null; then
        HSPZ_GAPPED_DEVICE=cuda hz_run run -r "$AO/apple.fasta.gz" -q "$AO/orange.fasta.gz" -o "$d/f" --quiet --gapped
        [ "$status" -eq 1 ] && [ ! -e "$d/f" ]
        [ "$(grep -c . <<<"$stderr")" -eq 1 ]
        # lines run side by side: whichever fails first is the one named
        [[ "$stderr" =~ "gapped stage: line "[12]" of lastz-commands.txt failed".*"--device=cuda" ]] || { show_run; return 1; }
    fi
    # SIGTERM while the helper's lines run (H. pylori on the emu device takes minutes)
    HSPZ_GAPPED_DEVICE=emu "$HSPZ" run -r "$TD/small_hpylori_g27_vs_els37/hpylori_G27.fa.gz" \
        -q "$TD/small_hpylori_g27_vs_els37/hpylori_ELS37.fa.gz" -o "$d/t" --quiet --threads 2 --gapped 2> "$d/t.err" &
    local pid=$! k
    for k in $(seq 1 600); do pgrep -f "__gapped-stage $d/t" >/dev/null && break; sleep 0.1; done
    pgrep -f "__gapped-stage $d/t" >/dev/null || { kill $pid; echo "no helper"; return 1; }
    sleep 1
    kill -TERM $pid
    local st=0; wait $pid || st=$?
    [ "$st" -eq 143 ] || { cat "$d/t.err"; echo "exit $st"; return 1; }
    [ ! -e "$d/t" ]
    for k in $(seq 1 50); do pgrep -f "__gapped-stage $d/t" >/dev/null || break; sleep 0.1; done
    ! pgrep -f "__gapped-stage $d/t"
    [ "$(grep -c . "$d/t.err")" -eq 1 ] && grep -q "interrupted by signal 15" "$d/t.err"
}
