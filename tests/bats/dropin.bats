#!/usr/bin/env bats
# hillerlab/hspZ's run spellings (README "Drop-in for hillerlab/hspZ"): -D, -Z [PATH],
# --tarball PATH, -G, -u/--cpu-only, -y/--time, --dump-plan FILE and the second name hspZ.

load ../lib/common

AO=tests/data/apple_orange
MT=tests/data/tiny_mtdna_human_vs_orangutan

setup() {
    require_hspz
}

@test "dropin: -D N -Z PATH -G 1 -u equal --diagonal-partition N --tarball=PATH --gpus 1 --device cpu, byte for byte" {
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/long" --diagonal-partition 7 \
        --tarball="$d/long.tgz" --gpus 1 --device cpu --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/short" -D 7 -Z "$d/short.tgz" -G 1 -u --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    ls "$d/short"/*.split*.segments >/dev/null           # -D really split (7 lines a file)
    same_outputs "$d/long" "$d/short"
    cmp "$d/long/lastz-commands.txt" "$d/short/lastz-commands.txt"
    cmp "$d/long.tgz" "$d/short.tgz"
    python3 - "$d/short/manifest.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["config"]["values"]
got = {k: (v[k]["value"], v[k]["source"]) for k in ("diagonal_partition", "tarball", "gpus", "device")}
assert got["diagonal_partition"] == (7, "flag"), got
assert got["gpus"] == (1, "flag") and got["device"] == ("cpu", "flag"), got
assert got["tarball"][1] == "flag" and got["tarball"][0].endswith("short.tgz"), got
PY
}

@test "dropin: --tarball PATH with a space equals --tarball=PATH; -Z alone is OUTDIR.tar.gz" {
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/a" --tarball "$d/a-space.tgz" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/b" --tarball="$d/b-eq.tgz" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    cmp "$d/a-space.tgz" "$d/b-eq.tgz"
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/c" -Z --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    cmp "$d/a-space.tgz" "$d/c.tar.gz"
    # the word after a bare --tarball is only taken when it is not an option
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/e" --tarball --quiet
    [ "$status" -eq 0 ] && [ -f "$d/e.tar.gz" ]
}

@test "dropin: --time prints the time line even with --quiet, and nothing else" {
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/o" --quiet --time
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ "$(grep -c '' <<<"$stderr")" -eq 1 ]
    [[ "$stderr" == "hspz: time: load "*" wall "* ]]
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/p" --quiet
    [ -z "$stderr" ]
}

@test "dropin: --dump-plan FILE lists every record of every block with its length" {
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/o" --seq-block-size 100000 \
        --dump-plan "$d/plan.tsv" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    python3 - "$d/plan.tsv" "$d/o" <<'PY'
import sys, json, glob, os
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
out = sys.argv[2]
for side, stem in (("ref", "ref"), ("query", "query")):
    mine = [r for r in rows if r[0] == side]
    blocks = sorted({int(r[1]) for r in mine})
    assert len(blocks) >= 2, (side, blocks)          # 100 kb blocks: several
    for b in blocks:
        names = [r[2] for r in mine if int(r[1]) == b]
        want = open(os.path.join(out, "%s_block%d.name" % (stem, b))).read().split("\n")[:-1]
        assert names == want, (side, b, names[:3], want[:3])
    assert all(int(r[3]) > 0 for r in mine)
m = json.load(open(os.path.join(out, "manifest.json")))
lens = {i["role"]: i for i in m["inputs"]} if isinstance(m["inputs"], list) else m["inputs"]
total = {s: sum(int(r[3]) for r in rows if r[0] == s) for s in ("ref", "query")}
tb = lens["target"]["bases"]; qb = lens["query"]["bases"]
assert (total["ref"], total["query"]) == (tb, qb), (total, tb, qb)
print("ok", len(rows))
PY
}

@test "dropin: a --dump-plan FILE that cannot be written fails at once (exit 1), nothing created" {
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/o" --dump-plan "$d/nofolder/plan.tsv"
    [ "$status" -eq 1 ]
    [ "$(grep -c '' <<<"$stderr")" -eq 1 ]
    [[ "$stderr" == "hspz: $d/nofolder/plan.tsv: the --dump-plan file's folder '$d/nofolder' does not exist" ]]
    [ ! -e "$d/o" ] && ! compgen -G "$d/o.*" >/dev/null
}

@test "dropin: make_lastz_chains' HSPZ call runs unchanged with the name hspZ" {
    local d="$BATS_TEST_TMPDIR" hz
    hz="$(dirname "$HSPZ")/hspZ"
    [ -x "$hz" ] || skip "no hspZ next to $HSPZ (the build makes the link)"
    cp $AO/apple.fasta.gz $AO/orange.fasta.gz "$d/"
    ( cd "$d" && "$hz" run --hspthresh 3000 -r apple.fasta.gz -q orange.fasta.gz -o segments -D -Z \
        --time --dump-plan plan.tsv ) 2>"$d/err"
    grep -q '^hspz: time: ' "$d/err"
    [ -s "$d/plan.tsv" ] && [ -s "$d/segments.tar.gz" ] && [ -f "$d/segments/lastz-commands.txt" ]
    ls "$d/segments"/*.split1.segments >/dev/null
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/ref" -D auto --tarball="$d/ref.tgz" --quiet
    same_outputs "$d/ref" "$d/segments"
    cmp "$d/ref.tgz" "$d/segments.tar.gz"
}

@test "dropin: --dump-plan and -Z never overwrite an input (not even with --force), OUTDIR or each other" {
    local d="$BATS_TEST_TMPDIR"
    cp $MT/MT-orang.fa "$d/q.fa"
    local before; before="$(sha256sum <"$d/q.fa")"
    hz_run run -r $MT/MT-human.fa -q "$d/q.fa" -o "$d/o" --dump-plan "$d/q.fa" --force
    [ "$status" -eq 2 ] && [[ "$stderr" == "hspz: $d/q.fa: the --dump-plan file would overwrite the input $d/q.fa" ]]
    hz_run run -r $MT/MT-human.fa -q "$d/q.fa" -o "$d/o" -Z "$d/q.fa" --force
    [ "$status" -eq 2 ] && [[ "$stderr" == "hspz: $d/q.fa: the tarball would overwrite the input $d/q.fa" ]]
    [ "$(sha256sum <"$d/q.fa")" = "$before" ]
    hz_run run -r $MT/MT-human.fa -q "$d/q.fa" -o "$d/o" --dump-plan "$d/x.tgz" -Z "$d/x.tgz"
    [ "$status" -eq 2 ] && [[ "$stderr" == *"--dump-plan and the tarball cannot be the same file" ]]
    hz_run run -r $MT/MT-human.fa -q "$d/q.fa" -o "$d/o" --dump-plan "$d/o/plan.tsv"
    [ "$status" -eq 2 ] && [[ "$stderr" == *"the --dump-plan file cannot be OUTDIR or inside it" ]]
    hz_run run -r $MT/MT-human.fa -q "$d/q.fa" -o "$d/o" -Z "$d/o"
    [ "$status" -eq 2 ] && [[ "$stderr" == *"the tarball cannot be OUTDIR or inside it" ]]
    echo old >"$d/p.tsv"
    hz_run run -r $MT/MT-human.fa -q "$d/q.fa" -o "$d/o" --dump-plan "$d/p.tsv"
    [ "$status" -eq 1 ] && [[ "$stderr" == *"the --dump-plan file exists (use --force to replace it)" ]]
    [ ! -e "$d/o" ] && ! compgen -G "$d/o.*" >/dev/null && [ "$(cat "$d/p.tsv")" = old ]
}

# ---------------------------------------------------------------- -D without a value (automatic)
#
# The automatic chunk size is KegAlign's Galaxy runner's (galaxytools tools/kegalign/runner.py
# estimate_chunk_size, then diagonal_partition.py N per command; README "--diagonal-partition").
# The numbers below were derived by running those two scripts (galaxytools 2be10a0) on hspz's
# unpartitioned folders of these runs, os.scandir made to list the segments files in
# lastz-commands.txt order (KegAlign takes whichever file the directory lists first):
#   apple/orange, defaults:              2 files  -> chunk 596, 3 lastz commands after splitting
#   apple/orange, -I 50000:             16 files  -> chunk 116, 21 lastz commands
# The test also recomputes the chunk from the files with Python's own statistics.quantiles.
auto_chunk_py='import os, re, statistics, sys
d = sys.argv[1]
segs = [re.search(r"--segments=(\S+)", l).group(1) for l in open(d + "/lastz-commands.txt")]
sizes = [os.path.getsize(os.path.join(d, s)) for s in segs]
line = len(open(os.path.join(d, segs[0])).readline())
q = statistics.quantiles(sizes)
print(min(int((q[1] if len(sizes) < 7 else q[-1]) // line), 50000) if len(sizes) >= 2 else 0)'

@test "dropin: bare -D is the automatic partition: every spelling gives one folder, KegAlign's chunk (596; 116 with 16 files)" {
    local d="$BATS_TEST_TMPDIR" i=0 v
    local R=(-r $AO/apple.fasta.gz -q $AO/orange.fasta.gz)
    hz_run run "${R[@]}" -o "$d/plain" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ "$(python3 -c "$auto_chunk_py" "$d/plain")" = 596 ]
    hz_run run "${R[@]}" -o "$d/fixed" -D 596 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ "$(wc -l <"$d/fixed/lastz-commands.txt")" -eq 3 ]
    # bare at the end, bare before an option, auto as a word or attached, long spellings
    for v in "--quiet -D" "-D --quiet" "-D auto --quiet" "-Dauto --quiet" "--diagonal-partition --quiet" \
             "--diagonal-partition auto --quiet" "--diagonal-partition=auto --quiet"; do
        i=$((i + 1))
        # shellcheck disable=SC2086
        hz_run run "${R[@]}" -o "$d/a$i" $v
        [ "$status" -eq 0 ] || { echo "$v"; show_run; return 1; }
        same_outputs "$d/fixed" "$d/a$i" || { echo "$v"; return 1; }
        cmp "$d/fixed/lastz-commands.txt" "$d/a$i/lastz-commands.txt"
    done
    python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))["config"]["values"]["diagonal_partition"]
assert v == {"value": "auto", "source": "flag", "section": "output"}, v' "$d/a1/manifest.json"
    # 16 files: the third quartile
    hz_run run "${R[@]}" -o "$d/plain16" -I 50000 --quiet
    [ "$(python3 -c "$auto_chunk_py" "$d/plain16")" = 116 ]
    hz_run run "${R[@]}" -o "$d/fixed16" -I 50000 -D 116 --quiet
    hz_run run "${R[@]}" -o "$d/auto16" -I 50000 -D --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    same_outputs "$d/fixed16" "$d/auto16"
    [ "$(wc -l <"$d/auto16/lastz-commands.txt")" -eq 21 ]
    # the same segment lines as without -D
    [ "$(canonical_digest "$d/auto16")" = "$(canonical_digest "$d/plain16")" ]
}

@test "dropin: -D 0 is off, one segments file is never split, -D with --nogapped is refused, config says auto" {
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/off" -D 0 --quiet
    [ "$status" -eq 0 ] && ! compgen -G "$d/off/*.split*" >/dev/null
    # mtDNA (plus strand only): one segments file; KegAlign's quantiles need two (Python 3.13
    # gives that file's own line count, so nothing is split): hspz keeps it whole
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/mt" --strand plus -D --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ "$(ls "$d/mt"/*.segments | wc -l)" -eq 1 ] && ! compgen -G "$d/mt/*.split*" >/dev/null
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/ng" -D --nogapped
    [ "$status" -eq 2 ] && [[ "$stderr" == *"--diagonal-partition works on lastz commands, which --nogapped turns off" ]]
    hz_run config -D
    [[ "$output" == *"  diagonal_partition: auto  # flag - "* ]]
    printf 'output:\n  diagonal_partition: auto\n' >"$d/c.yaml"
    hz_run config --config "$d/c.yaml"
    [[ "$output" == *"  diagonal_partition: auto  # file - "* ]]
    printf 'output:\n  diagonal_partition: 12\n' >"$d/c.yaml"
    hz_run config --config "$d/c.yaml"
    [[ "$output" == *"  diagonal_partition: 12  # file - "* ]]
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/x" -D often
    [ "$status" -eq 2 ] && [[ "$stderr" == *"--diagonal-partition: 'often' is not an integer"* ]]
}
