#!/usr/bin/env bats
# hillerlab/hspZ's run spellings (docs/dropin.md): -D, -Z [PATH] (its archive of the bare
# segments files instead of OUTDIR), --tarball PATH, -G, -u/--cpu-only, -y/--time,
# --dump-plan FILE and the second name hspZ.

load ../lib/common

AO=tests/data/apple_orange
MT=tests/data/tiny_mtdna_human_vs_orangutan

setup() {
    require_hspz
}

@test "dropin: -D N --tarball PATH -G 1 -u equal --diagonal-partition N --tarball=PATH --gpus 1 --device cpu, byte for byte" {
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/long" --diagonal-partition 7 \
        --tarball="$d/long.tgz" --gpus 1 --device cpu --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/short" -D 7 --tarball "$d/short.tgz" -G 1 -u --quiet
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

@test "dropin: --tarball PATH with a space equals --tarball=PATH" {
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/a" --tarball "$d/a-space.tgz" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/b" --tarball="$d/b-eq.tgz" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    cmp "$d/a-space.tgz" "$d/b-eq.tgz"
    # the word after a bare --tarball is only taken when it is not an option
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/e" --tarball --quiet
    [ "$status" -eq 0 ] && [ -f "$d/e.tar.gz" ]
}

# zlist ARCHIVE — "name size mtime uid gid mode" per member, in archive order
zlist() {
    python3 - "$1" <<'PY'
import sys, tarfile
with tarfile.open(sys.argv[1], "r:gz") as t:
    for m in t.getmembers():
        print(m.name, m.size, m.mtime, m.uid, m.gid, oct(m.mode), "file" if m.isfile() else "other")
PY
}

@test "dropin: -Z [PATH] is hillerlab's archive: the bare .segments files, in its order, instead of OUTDIR" {
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/dir" -D 7 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/z" -D 7 -Z
    [ "$status" -eq 0 ] || { show_run; return 1; }
    # no folder, no temporary, no manifest beside it: only the archive (hillerlab writes no folder)
    [ ! -e "$d/z" ] && [ "$(cd "$d" && ls -d z*)" = z.tar.gz ]
    [[ "$stderr" == *"files to $d/z.tar.gz"* ]] || { show_run; return 1; }
    # members: exactly the folder run's .segments files, bare names, regular files 0644, mtime
    # and owner 0; order as hillerlab/hspZ emits them: block pair, tmpN, plus before minus, splitK
    zlist "$d/z.tar.gz" >"$d/list"
    [ "$(awk '{print $3, $4, $5, $6, $7}' "$d/list" | sort -u)" = "0 0 0 0o644 file" ]
    local want; want="$(cd "$d/dir" && ls -1 -- *.segments | python3 -c '
import re, sys
def key(n):
    m = re.match(r"tmp(\d+)\.block(\d+)\.r(\d+)\.(plus|minus)(?:\.split(\d+))?\.segments$", n)
    return (int(m[3]), int(m[2]), int(m[1]), m[4] == "minus", int(m[5] or 0))
print("\n".join(sorted(sys.stdin.read().split(), key=key)))')"
    [ "$(awk '{print $1}' "$d/list")" = "$want" ] || { cat "$d/list"; echo "want: $want"; return 1; }
    [ "$(grep -c split "$d/list")" -ge 3 ]           # -D 7 split them
    grep -q '\.minus\.' "$d/list" && grep -q '\.plus\.' "$d/list"
    mkdir "$d/x" && tar -xzf "$d/z.tar.gz" -C "$d/x"
    for f in "$d"/dir/*.segments; do cmp "$f" "$d/x/$(basename "$f")"; done
    [ "$(ls "$d/x" | wc -l)" -eq "$(ls "$d"/dir/*.segments | wc -l)" ]
    # reproducible: a second run, with -Z PATH and another thread count, gives the same bytes;
    # the gzip header carries no time stamp (bytes 4..7) and no file name (FLG 0)
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/z2" -D 7 -Z "$d/other.tgz" -t 1 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ ! -e "$d/z2" ] && [ ! -e "$d/z2.tar.gz" ]
    cmp "$d/z.tar.gz" "$d/other.tgz"
    [ "$(od -An -tx1 -j3 -N5 "$d/z.tar.gz" | tr -d ' ')" = 0000000000 ]
}

@test "dropin: -Z and --tarball together are a usage error; -Z never touches OUTDIR" {
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/o" -Z --tarball
    [ "$status" -eq 2 ] && [[ "$stderr" == *"-Z (the segments archive instead of OUTDIR) and --tarball (Galaxy's package) do not go together"* ]]
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/o" --tarball="$d/t.tgz" -Z "$d/z.tgz"
    [ "$status" -eq 2 ]
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/o" -Z -Z "$d/z.tgz"
    [ "$status" -eq 2 ] && [[ "$stderr" == *"-Z given twice"* ]]
    # a plan's units and hspz merge write folders: -Z is refused there (--tarball is the plan's)
    hz_run plan -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/p.json" -Z
    [ "$status" -eq 2 ] && [[ "$stderr" == *"-Z is an option of hspz run"* ]] && [ ! -e "$d/p.json" ]
    [ ! -e "$d/o" ] && ! compgen -G "$d/o.*" >/dev/null && ! compgen -G "$d/*.tgz" >/dev/null
    # a folder of the user's at OUTDIR stays as it was, with or without --force
    mkdir "$d/o" && echo mine >"$d/o/notes.txt"
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/o" -Z --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/o" -Z "$d/o2.tgz" --force --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ "$(ls -A "$d/o")" = notes.txt ] && [ "$(cat "$d/o/notes.txt")" = mine ]
    cmp "$d/o.tar.gz" "$d/o2.tgz"
    tar -tzf "$d/o.tar.gz" | grep -qx 'tmp1.block0.r0.plus.segments'
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
for side, stem in (("reference", "ref"), ("query", "query")):
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
total = {s: sum(int(r[3]) for r in rows if r[0] == s) for s in ("reference", "query")}
tb = lens["target"]["bases"]; qb = lens["query"]["bases"]
assert (total["reference"], total["query"]) == (tb, qb), (total, tb, qb)
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
    # -Z: segments.tar.gz of the bare segments files instead of the folder (hillerlab/hspZ)
    [ -s "$d/plan.tsv" ] && [ -s "$d/segments.tar.gz" ] && [ ! -e "$d/segments" ]
    mkdir "$d/x" && tar -xzf "$d/segments.tar.gz" -C "$d/x"
    ls "$d/x"/*.split1.segments >/dev/null
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/ref" -D auto --quiet
    [ "$(cd "$d/x" && ls | sort)" = "$(cd "$d/ref" && ls -- *.segments | sort)" ]
    for f in "$d"/ref/*.segments; do cmp "$f" "$d/x/$(basename "$f")"; done
}

@test "dropin: --dump-plan and -Z never overwrite an input (not even with --force), OUTDIR or each other" {
    local d="$BATS_TEST_TMPDIR"
    cp $MT/MT-orang.fa "$d/q.fa"
    local before; before="$(sha256sum <"$d/q.fa")"
    hz_run run -r $MT/MT-human.fa -q "$d/q.fa" -o "$d/o" --dump-plan "$d/q.fa" --force
    [ "$status" -eq 2 ] && [[ "$stderr" == "hspz: $d/q.fa: the --dump-plan file would overwrite the input $d/q.fa" ]]
    hz_run run -r $MT/MT-human.fa -q "$d/q.fa" -o "$d/o" -Z "$d/q.fa" --force
    [ "$status" -eq 2 ] && [[ "$stderr" == "hspz: $d/q.fa: the -Z archive would overwrite the input $d/q.fa" ]]
    [ "$(sha256sum <"$d/q.fa")" = "$before" ]
    hz_run run -r $MT/MT-human.fa -q "$d/q.fa" -o "$d/o" --dump-plan "$d/x.tgz" -Z "$d/x.tgz"
    [ "$status" -eq 2 ] && [[ "$stderr" == *"--dump-plan and the tarball cannot be the same file" ]]
    hz_run run -r $MT/MT-human.fa -q "$d/q.fa" -o "$d/o" --dump-plan "$d/o/plan.tsv"
    [ "$status" -eq 2 ] && [[ "$stderr" == *"the --dump-plan file cannot be OUTDIR or inside it" ]]
    hz_run run -r $MT/MT-human.fa -q "$d/q.fa" -o "$d/o" -Z "$d/o"
    [ "$status" -eq 2 ] && [[ "$stderr" == *"the -Z archive cannot be OUTDIR or inside it" ]]
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
