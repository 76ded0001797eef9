#!/usr/bin/env bats
# Output packaging (src/out/package.c): --tarball (Galaxy data package), --diagonal-partition N,
# --single-file.  Spec: kegalign-hsp-spec.md §7.3, §7.5, §7.6; kegalign-v03-delta.md §11.

load ../lib/common

AO=tests/data/apple_orange
MT=tests/data/tiny_mtdna_human_vs_orangutan
KEG_MAF="$HSPZ_SHARED/data/tiny_kegalign_apple_vs_orange_SYNTHETIC/apple_orange.maf.gz"

setup() {
    require_hspz
}

# replay TARBALL DIR — extract with tarfile filter="data" into DIR and run every command of
# galaxy/commands.json the way run_lastz_tarball.py does (cd galaxy/files; lastz TARGET QUERY
# OTHER-ARGS, stderr to the recorded file); writes DIR/output.maf (##maf header + outputs in
# commands.json order).
replay() {
    python3 - "$1" "$2" <<'EOF'
import json, os, subprocess, sys
sys.path.insert(0, "tests/lib")
from tarsafe import extract_data
tgz, dest = sys.argv[1], sys.argv[2]
extract_data(tgz, dest)
os.chdir(os.path.join(dest, "galaxy", "files"))
outs = []
for line in open("../commands.json"):
    c = json.loads(line)
    a = c["args"]
    target = [x[len("--target="):] for x in a if x.startswith("--target=")]
    query = [x[len("--query="):] for x in a if x.startswith("--query=")]
    assert len(target) == 1 and len(query) == 1, a
    rest = [x for x in a if not x.startswith(("--target=", "--query="))]
    with open(c["stderr"], "w") as e:
        r = subprocess.run(["lastz", "--allocate:traceback=1.99G", target[0], query[0]] + rest, stderr=e)
    if r.returncode not in (0, 1) or os.path.getsize(c["stderr"]):
        sys.exit("lastz failed (%d): %s" % (r.returncode, open(c["stderr"]).read()))
    out = [x[len("--output="):] for x in a if x.startswith("--output=")][0]
    outs.append(open(out).read())
with open(os.path.join("..", "..", "output.maf"), "w") as f:
    f.write("##maf version=1\n" + "".join(outs))
EOF
}

# maf_blocks FILE — the alignment blocks ('a' line + its 's' lines), comments and the header
# dropped, one block per line, sorted.
maf_blocks() {
    python3 - "$1" <<'EOF'
import gzip, sys
p = sys.argv[1]
f = gzip.open(p, "rt") if p.endswith(".gz") else open(p)
blocks, cur = [], []
for line in f:
    line = line.rstrip("\n")
    if line.startswith("#"):
        continue
    if line.startswith("a"):
        if cur: blocks.append("|".join(cur))
        cur = [line]
    elif line.startswith("s"):
        cur.append(" ".join(line.split()))
if cur: blocks.append("|".join(cur))
for b in sorted(blocks): print(b)
EOF
}

@test "package: tarball is byte-identical across two runs and has a clean gzip header" {
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/a" --tarball --quiet -t 1
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ -f "$d/a.tar.gz" ]                       # default: OUTDIR.tar.gz next to OUTDIR
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/b" --tarball="$d/b.tgz" --quiet -t 2
    [ "$status" -eq 0 ] || { show_run; return 1; }
    cmp "$d/a.tar.gz" "$d/b.tgz"
    # gzip: magic, deflate, FLG 0 (no name), MTIME 0
    [ "$(head -c 8 "$d/a.tar.gz" | od -An -tx1 | tr -d ' \n')" = "1f8b080000000000" ]
    ! compgen -G "$d/*.tmp-*"
}

@test "package: members sorted, mtime 0, uid/gid 0, 0644/0755, data-filter safe, commands.json args" {
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/o" --tarball --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    python3 - "$d/o.tar.gz" "$d/x" <<'EOF'
import json, sys, tarfile
sys.path.insert(0, "tests/lib")
from tarsafe import check_data_safe, extract_data
tgz, dest = sys.argv[1], sys.argv[2]
with tarfile.open(tgz) as t:
    ms = t.getmembers()
    names = [m.name for m in ms]
    assert names == sorted(names), names
    want = ["galaxy", "galaxy/commands.json", "galaxy/files", "galaxy/files/query_block0.name",
            "galaxy/files/ref_block0.name", "galaxy/files/tmp1.block0.r0.minus.segments",
            "galaxy/files/tmp1.block0.r0.plus.segments", "galaxy/files/work",
            "galaxy/files/work/query.2bit", "galaxy/files/work/ref.2bit", "galaxy/format.txt"]
    assert names == want, names
    for m in ms:
        assert m.mtime == 0 and m.uid == 0 and m.gid == 0 and m.uname == "" and m.gname == "", m.name
        assert (m.isdir() and m.mode == 0o755) or (m.isfile() and m.mode == 0o644), (m.name, oct(m.mode))
        assert not m.name.startswith("/") and ".." not in m.name.split("/")
    check_data_safe(ms)
extract_data(tgz, dest)
fmt = open(dest + "/galaxy/format.txt").read()
assert fmt == "maf-\n", repr(fmt)
lines = open(dest + "/galaxy/commands.json").read().splitlines()
assert len(lines) == 2, lines
for line, strand in zip(lines, ["plus", "minus"]):
    c = json.loads(line)
    assert list(c) == ["executable", "args", "stdin", "stdout", "stderr"], list(c)
    base = "tmp1.block0.r0." + strand
    assert c["executable"] == "lastz" and c["stdin"] is None and c["stdout"] is None
    assert c["stderr"] == base + ".err"
    assert c["args"] == ["--format=maf-", "--output=%s.maf-" % base, "--segments=%s.segments" % base,
                         "--strand=" + strand, "--gappedthresh=3000", "--ydrop=9430",
                         "--target=work/ref.2bit[nameparse=darkspace][multiple][subset=ref_block0.name]",
                         "--query=work/query.2bit[nameparse=darkspace][subset=query_block0.name]"], c["args"]
    assert json.dumps(c) == line            # Python's default separators
EOF
    # packaged files equal the output directory's
    for f in ref_block0.name query_block0.name tmp1.block0.r0.plus.segments tmp1.block0.r0.minus.segments; do
        cmp "$d/o/$f" "$d/x/galaxy/files/$f"
    done
}

@test "package: replayed commands give KegAlign's expected MAF for apple/orange (31 blocks)" {
    require_cmd lastz
    [ -f "$KEG_MAF" ] || skip "no $KEG_MAF"
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/o" --tarball --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    replay "$d/o.tar.gz" "$d/x"
    maf_blocks "$d/x/output.maf" >"$d/got"
    maf_blocks "$KEG_MAF" >"$d/want"
    echo "blocks: got $(wc -l <"$d/got"), KegAlign $(wc -l <"$d/want")"
    [ "$(wc -l <"$d/want")" -eq 31 ]
    diff "$d/want" "$d/got"
    # the 2bit files hold the inputs' names and lengths
    grep -c '^s APPLE' "$d/x/output.maf" | grep -qx 31
}

@test "package: replay works on diagonal-partitioned commands (same MAF blocks)" {
    require_cmd lastz
    [ -f "$KEG_MAF" ] || skip "no $KEG_MAF"
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/o" --tarball --diagonal-partition 100 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    replay "$d/o.tar.gz" "$d/x"
    [ "$(grep -c . "$d/x/galaxy/commands.json")" -eq 15 ]
    maf_blocks "$d/x/output.maf" >"$d/got"
    maf_blocks "$KEG_MAF" >"$d/want"
    diff "$d/want" "$d/got"
}

@test "package: --single-file all.segments is accepted by lastz --segments= and gives the same alignments" {
    require_cmd lastz
    local d="$BATS_TEST_TMPDIR"
    gunzip_to $AO/apple.fasta.gz "$d/apple.fa"
    gunzip_to $AO/orange.fasta.gz "$d/orange.fa"
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/o" --single-file --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    # same lines as the per-interval files
    diff <(sort "$d/o/all.segments") <(cat "$d/o"/tmp*.segments | sort)
    [ "$(wc -l <"$d/o/all.segments")" -eq 1225 ]
    lastz "$d/apple.fa[multiple]" "$d/orange.fa" --segments="$d/o/all.segments" --format=maf- \
          --ydrop=9430 --gappedthresh=3000 >"$d/single.maf" 2>"$d/lastz.err"
    [ ! -s "$d/lastz.err" ] || { cat "$d/lastz.err"; return 1; }
    [ "$(grep -c '^a' "$d/single.maf")" -eq 31 ]
    if [ -f "$KEG_MAF" ]; then diff <(maf_blocks "$KEG_MAF") <(maf_blocks "$d/single.maf"); fi
    # control: minus lines first is refused by lastz, so the order above matters
    cat "$d/o/tmp1.block0.r0.minus.segments" "$d/o/tmp1.block0.r0.plus.segments" >"$d/bad.segments"
    run lastz "$d/apple.fa[multiple]" "$d/orange.fa" --segments="$d/bad.segments" --format=maf-
    [ "$status" -ne 0 ]
}

# check_partition DIR UNSPLIT-DIR N — no split above N lines, union equals the unsplit lines,
# one command per segments file, and every split file equals a Python model of
# diagonal_partition.py (with the set iteration replaced by first appearance).
check_partition() {
    python3 - "$1" "$2" "$3" <<'EOF'
import glob, os, re, sys
d, u, N = sys.argv[1], sys.argv[2], int(sys.argv[3])
cmds = open(os.path.join(d, "lastz-commands.txt")).read().splitlines()
segs = sorted(os.path.basename(p) for p in glob.glob(os.path.join(d, "*.segments")))
used = [re.search(r"--segments=(\S+)", c).group(1) for c in cmds]
assert sorted(used) == segs, (used, segs)
for c in cmds:
    b = re.search(r"--segments=(\S+)\.segments", c).group(1)
    assert ("--output=%s.maf- 2> %s.err" % (b, b)) in c, c
for s in segs:
    n = len(open(os.path.join(d, s)).readlines())
    assert 0 < n <= N, (s, n)
def model(lines, N, strand):
    data = {}
    for line in lines:
        f = line.split()
        half = (int(f[2]) - int(f[1])) // 2
        data.setdefault((f[0], f[3]), []).append((int(f[1]) + half, int(f[4]) + half, line))
    qorder = {q: i for i, q in enumerate(dict.fromkeys(k[1] for k in data))}
    skip = [p for p in data if len(data[p]) <= N] if len(data) > 1 else []
    out = []
    for p in data:
        if p in skip: continue
        key = (lambda c: (c[1] - c[0], c[0])) if strand == "minus" else (lambda c: (c[1] + c[0], c[0]))
        v = [c[2] for c in sorted(data[p], key=key)]
        out += [v[i:i + N] for i in range(0, len(v), N)]
    agg, cnt = [[]], 0
    for n, p in sorted((len(data[p]), p) for p in skip):
        if cnt + n <= N: cnt += n; agg[-1].append(p)
        else: agg.append([p]); cnt = n
    for a in agg:
        if a: out.append([l for p in sorted(a, key=lambda p: qorder[p[1]]) for c in data[p] for l in [c[2]]])
    return out
total_split = 0
for s in sorted(glob.glob(os.path.join(u, "*.segments"))):
    base = os.path.basename(s)[:-len(".segments")]
    lines = open(s).readlines()
    strand = "minus" if ".minus" in base else "plus"
    if len(lines) <= N:
        assert open(os.path.join(d, base + ".segments")).readlines() == lines
        continue
    want = model(lines, N, strand)
    for k, w in enumerate(want, 1):
        got = open(os.path.join(d, "%s.split%d.segments" % (base, k))).readlines()
        assert got == w, (base, k)
    assert not os.path.exists(os.path.join(d, "%s.split%d.segments" % (base, len(want) + 1)))
    assert sorted(l for k in range(len(want)) for l in want[k]) == sorted(lines)
    total_split += len(want)
print("split files:", total_split, "segments files:", len(segs))
EOF
    diff <(cat "$1"/*.segments | sort) <(cat "$2"/*.segments | sort)
}

@test "package: --diagonal-partition on apple/orange (31 pairs; N=10 and N=100)" {
    local d="$BATS_TEST_TMPDIR" n
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/u" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    for n in 10 100; do
        hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/p$n" --diagonal-partition $n --quiet --print-commands
        [ "$status" -eq 0 ] || { show_run; return 1; }
        check_partition "$d/p$n" "$d/u" $n
        cmp "$BATS_TEST_TMPDIR/stdout" "$d/p$n/lastz-commands.txt"   # --print-commands shows the split commands
    done
    [ "$(wc -l <"$d/p10/lastz-commands.txt")" -eq 135 ]
    [ "$(wc -l <"$d/p100/lastz-commands.txt")" -eq 15 ]
    # deterministic
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/again" --diagonal-partition 10 --quiet -t 1
    same_outputs "$d/p10" "$d/again"
}

@test "package: --diagonal-partition on mtDNA (one pair, 23 lines, N=5 gives 5,5,5,5,3)" {
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/u" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/p" --diagonal-partition 5 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    check_partition "$d/p" "$d/u" 5
    [ "$(cat "$d/p"/*.split*.segments | wc -l)" -eq "$(cat "$d/u"/*.plus.segments | wc -l)" ]
    [ "$(wc -l "$d/p"/*.plus.split*.segments | awk '$2 != "total" {print $1}' | tr '\n' ' ')" = "5 5 5 5 3 " ]
}

@test "package: --scoring goes into the tarball as data/scores.txt" {
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/o" --scoring tests/data/scoring/hoxd70.txt --tarball --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    mkdir "$d/x" && tar -xzf "$d/o.tar.gz" -C "$d/x"
    # the file unchanged after the two thresholds it lacks (K = 3000, G = K)
    { printf 'hsp_threshold = 3000\ngapped_threshold = 3000\n'; cat tests/data/scoring/hoxd70.txt; } >"$d/want"
    cmp "$d/want" "$d/x/galaxy/files/data/scores.txt"
    grep -q '"--scores=data/scores.txt", "--segments=' "$d/x/galaxy/commands.json"
    grep -q -- '--scores=tests/data/scoring/hoxd70.txt' "$d/o/lastz-commands.txt"
}

@test "package: a LASTZ_D score file gets its thresholds: no lastz warning, the same MAF" {
    # tests/data/scoring/lastz_d_aglobin.txt: Debian's lastz_D 1.04.22 --inferonly on the
    # aglobin pair.  Its minimum match score (63) makes lastz warn on stderr for every command,
    # which batched_lastz counts as a failure; replay() fails on any stderr, as it does.
    require_cmd lastz
    local d="$BATS_TEST_TMPDIR" A=tests/data/tiny_aglobin_human_vs_cow S=tests/data/scoring/lastz_d_aglobin.txt
    hz_run run -r $A/aglobin_human.fa.gz -q $A/aglobin_cow.fa.gz -o "$d/o" --scoring $S --hspthresh 2000 \
        --gappedthresh 2500 --tarball --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    replay "$d/o.tar.gz" "$d/x"
    local f="$d/x/galaxy/files"
    [ "$(sed -n 1,2p "$f/data/scores.txt")" = "$(printf 'hsp_threshold = 2000\ngapped_threshold = 2500')" ]
    tail -n +3 "$f/data/scores.txt" | cmp - $S
    # lastz by hand with the file as inferred: it warns, and the alignments are the same bytes
    zcat -f $A/aglobin_human.fa.gz >"$f/t.fa"; zcat -f $A/aglobin_cow.fa.gz >"$f/q.fa"
    run lastz "$f/t.fa" "$f/q.fa" --segments="$f/tmp1.block0.r0.plus.segments" --scores=$S --format=maf- \
        --strand=plus --gappedthresh=2500 --ydrop=9430 --output="$d/hand.maf"
    [ "$status" -eq 0 ]
    [[ "$output" == *"Scores file may warrant setting of thresholds"* ]]
    [ "$(grep -c '^a ' "$d/hand.maf")" -gt 0 ]
    cmp "$d/hand.maf" "$f/tmp1.block0.r0.plus.maf-"
    [ ! -s "$f/tmp1.block0.r0.plus.err" ]
}

@test "package: --inner N goes into the commands where KegAlign puts it, and lastz interpolates" {
    # runner.py inject_inner: right after --strand; package_output.py: int options in
    # lastz-cmd.ini order (gappedthresh, inner, ydrop).  aglobin: 52 blocks without, 133 with.
    require_cmd lastz
    local d="$BATS_TEST_TMPDIR" A=tests/data/tiny_aglobin_human_vs_cow
    hz_run run -r $A/aglobin_human.fa.gz -q $A/aglobin_cow.fa.gz -o "$d/o" --inner 1000 --tarball --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    grep -q -- ' --strand=plus --inner=1000 --segments=tmp1.block0.r0.plus.segments ' "$d/o/lastz-commands.txt"
    replay "$d/o.tar.gz" "$d/x"
    grep -q '"--gappedthresh=3000", "--inner=1000", "--ydrop=9430", "--target=' "$d/x/galaxy/commands.json"
    [ "$(grep -c '^a ' "$d/x/output.maf")" -eq 133 ]
    local f="$d/x/galaxy/files"
    zcat -f $A/aglobin_human.fa.gz >"$f/t.fa"; zcat -f $A/aglobin_cow.fa.gz >"$f/q.fa"
    lastz "$f/t.fa" "$f/q.fa" --segments="$f/tmp1.block0.r0.plus.segments" --format=maf- --strand=plus \
        --gappedthresh=3000 --inner=1000 --ydrop=9430 >"$d/hand.maf"
    cmp "$d/hand.maf" "$f/tmp1.block0.r0.plus.maf-"
    # without --inner: no such argument, fewer alignments
    hz_run run -r $A/aglobin_human.fa.gz -q $A/aglobin_cow.fa.gz -o "$d/p" --tarball --quiet
    ! grep -q -- '--inner' "$d/p/lastz-commands.txt"
    replay "$d/p.tar.gz" "$d/y"
    [ "$(grep -c '^a ' "$d/y/output.maf")" -eq 52 ]
}

@test "package: errors — existing tarball without --force, --nogapped, bad data folder" {
    local d="$BATS_TEST_TMPDIR"
    touch "$d/o.tar.gz"
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/o" --tarball --quiet
    assert_one_error_line 1
    assert_stderr_names "$d/o.tar.gz"
    [ ! -s "$d/o.tar.gz" ] && [ ! -e "$d/o" ]
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/o" --tarball --force --quiet
    [ "$status" -eq 0 ] && [ -s "$d/o.tar.gz" ]
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/n" --tarball --nogapped --quiet
    assert_one_error_line 2
    assert_no_outdir "$d/n"
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/n" --tarball --data-folder /abs/ --quiet
    assert_one_error_line 2
    # a tarball folder that does not exist is refused before any work (exit 1, as a missing
    # OUTDIR parent)
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/n" --tarball="$d/no/such/dir/x.tgz" --quiet
    assert_one_error_line 1
    assert_stderr_names "$d/no/such/dir"
    assert_no_outdir "$d/n"
    ! compgen -G "$d/no/such/dir/*"
    # and so is a tarball inside OUTDIR (OUTDIR is replaced at the end)
    mkdir -p "$d/in"
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/in" --force --tarball="$d/in/x.tgz" --quiet
    assert_one_error_line 2
    assert_stderr_names "cannot be OUTDIR or inside it"
}

@test "package: tests/lib/tarsafe.py refuses what tarfile's data filter refuses (Pythons without filter=)" {
    python3 - "$BATS_TEST_TMPDIR" <<'EOF'
import io, sys, tarfile
sys.path.insert(0, "tests/lib")
from tarsafe import check_data_safe
d = sys.argv[1]
def member(name, kind=tarfile.REGTYPE, mode=0o644):
    m = tarfile.TarInfo(name); m.type = kind; m.mode = mode
    if kind == tarfile.SYMTYPE: m.linkname = "/etc/passwd"
    return m
bad = [member("../x"), member("/abs"), member("a/../../x"), member("l", tarfile.SYMTYPE),
       member("dev", tarfile.CHRTYPE), member("s", mode=0o4755), member("w", mode=0o666)]
for m in bad:
    try:
        check_data_safe([m])
    except ValueError:
        pass
    else:
        sys.exit("accepted " + m.name)
    if hasattr(tarfile, "data_filter"):    # the real filter agrees (it refuses or rewrites)
        try:
            out = tarfile.data_filter(m, d)
        except tarfile.FilterError:
            continue
        assert (out.name, out.mode) != (m.name, m.mode), m.name
check_data_safe([member("galaxy"), member("galaxy/files/a.segments")])
print("ok", len(bad))
EOF
}
