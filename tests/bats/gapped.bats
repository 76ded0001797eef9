#!/usr/bin/env bats
# hspz gapped: LASTZ 1.04.22's gapped stage with --segments (issue 34,
# ../shared/spec/lastz-gapped-spec.md).  Every case asserts byte equality with lastz: the
# stored goldens of ../shared/golden/lastz-gapped (lastz 1.04.22's own output) and live runs of
# Debian's /usr/bin/lastz on hspz's segments of the tiny pairs.

load ../lib/common

setup() {
    require_hspz
    [ -d "$HSPZ_SHARED/golden/lastz-gapped" ] ||
        skip "../shared is absent ($HSPZ_SHARED): this case uses the lastz-gapped goldens"
}

# golden PAIR VARIANT STRAND [THREADS]
golden() { run "$HZ_REPO/tests/lib/gapped_golden.sh" "$1" "$2" "$3" "$BATS_TEST_TMPDIR/w$2$3${4:-}" ${4:+"$4"}; echo "$output"; [ "$status" -eq 0 ]; }

@test "gapped golden: mtDNA maf- plus" { golden tiny_mtdna_human_vs_orangutan maf plus; }
@test "gapped golden: alpha-globin maf- plus (soft-masking, N runs)" { golden tiny_aglobin_human_vs_cow maf plus; }
@test "gapped golden: pseudocat maf- plus" { golden tiny_lastz_pseudocat_vs_pseudopig maf plus; }
@test "gapped golden: pseudocat maf- minus" { golden tiny_lastz_pseudocat_vs_pseudopig maf minus; }
@test "gapped golden: apple/orange maf- plus (31 x 31 records)" { golden tiny_kegalign_apple_vs_orange_SYNTHETIC maf plus; }
@test "gapped golden: apple/orange maf- minus" { golden tiny_kegalign_apple_vs_orange_SYNTHETIC maf minus; }
@test "gapped golden: H. pylori maf- plus (686 alignments)" { golden small_hpylori_g27_vs_els37 maf plus; }
@test "gapped golden: H. pylori maf- minus (593 alignments)" { golden small_hpylori_g27_vs_els37 maf minus; }
@test "gapped golden: S. aureus maf- plus (slow tier)" { require_slow; golden small_saureus_n315_vs_usa300 maf plus; }
@test "gapped golden: S. aureus maf- minus (slow tier)" { require_slow; golden small_saureus_n315_vs_usa300 maf minus; }

@test "gapped golden: mtDNA axt+ with interpolation H=2000 (make_lastz_chains' options)" { golden tiny_mtdna_human_vs_orangutan axt plus; }
@test "gapped golden: alpha-globin axt+ H=2000 (inner alignments below L)" { golden tiny_aglobin_human_vs_cow axt plus; }
@test "gapped golden: pseudocat axt+ H=2000 plus" { golden tiny_lastz_pseudocat_vs_pseudopig axt plus; }
@test "gapped golden: pseudocat axt+ H=2000 minus (inner alignments)" { golden tiny_lastz_pseudocat_vs_pseudopig axt minus; }
@test "gapped golden: apple/orange axt+ H=2000 plus (windows across records)" { golden tiny_kegalign_apple_vs_orange_SYNTHETIC axt plus; }
@test "gapped golden: apple/orange axt+ H=2000 minus" { golden tiny_kegalign_apple_vs_orange_SYNTHETIC axt minus; }
# one pass on several threads (spec §12 speculative scheme, src/gapped/gapped_par.c): the same bytes
@test "gapped --threads inside one pass: H. pylori maf- minus on 3 threads = the golden" { golden small_hpylori_g27_vs_els37 maf minus 3; }
@test "gapped --threads inside one pass: pseudocat both strands, mtDNA, alpha-globin on 7 threads = the goldens" {
    golden tiny_lastz_pseudocat_vs_pseudopig maf plus 7 && golden tiny_lastz_pseudocat_vs_pseudopig maf minus 7 &&
        golden tiny_mtdna_human_vs_orangutan maf plus 7 && golden tiny_aglobin_human_vs_cow maf plus 7
}
@test "gapped --threads inside one pass: H. pylori maf- plus on 2 and 7 threads (slow tier)" {
    require_slow
    golden small_hpylori_g27_vs_els37 maf plus 2 && golden small_hpylori_g27_vs_els37 maf plus 7
}
@test "gapped --threads inside one pass: H. pylori axt+ H=2000 both strands on 2 and 7 threads (slow tier)" {
    require_slow
    local s n
    for s in plus minus; do for n in 2 7; do golden small_hpylori_g27_vs_els37 axt $s $n || return 1; done; done
}
@test "gapped --threads inside one pass: S. aureus maf- and axt+ H=2000 on 3 threads (slow tier)" {
    require_slow
    local v s
    for v in maf axt; do for s in plus minus; do golden small_saureus_n315_vs_usa300 $v $s 3 || return 1; done; done
}
@test "gapped golden: H. pylori axt+ H=2000 plus (slow tier)" { require_slow; golden small_hpylori_g27_vs_els37 axt plus; }
@test "gapped golden: H. pylori axt+ H=2000 minus (slow tier)" { require_slow; golden small_hpylori_g27_vs_els37 axt minus; }
@test "gapped golden: S. aureus axt+ H=2000 plus (slow tier)" { require_slow; golden small_saureus_n315_vs_usa300 axt plus; }
@test "gapped golden: S. aureus axt+ H=2000 minus (slow tier)" { require_slow; golden small_saureus_n315_vs_usa300 axt minus; }

@test "gapped golden: mlc_subrange_hpylori (FILE/NAME[s,e][multiple] on both sides, both strands, H=2000)" {
    local M="$HSPZ_SHARED/golden/lastz-gapped/mlc_subrange_hpylori" D="$HSPZ_SHARED/data/small_hpylori_g27_vs_els37"
    cd "$BATS_TEST_TMPDIR" && mkdir -p work
    # hspz gapped reads the file kind from its bytes: the FASTA files stand in for the 2bit files
    ln -s "$D/hpylori_G27.fa.gz" work/ref.2bit; ln -s "$D/hpylori_ELS37.fa.gz" work/query.2bit
    cp "$M/mlc.segments" .
    "$HSPZ" gapped "work/ref.2bit/NC_011333.1[200001,700000][multiple]" "work/query.2bit/NC_017063.1[300001,900000][multiple]" \
        --segments=mlc.segments H=2000 L=3000 Y=9400 --traceback=800.0M --format=axt+ --output=mlc.axt
    gunzip -c "$M/mlc.axt.gz" | cmp - mlc.axt
}

@test "gapped golden: edge_cases_synthetic (trimmed leading indel, gap across the anchor)" {
    for c in trim_initial_indel gap_across_anchor; do
        cd "$HSPZ_SHARED/golden/lastz-gapped/edge_cases_synthetic/$c"
        "$HSPZ" gapped 't.fa[multiple]' q.fa --segments=s.seg --format=maf- --strand=plus \
            --gappedthresh=3000 --ydrop=9430 > "$BATS_TEST_TMPDIR/$c.maf"
        cmp "$BATS_TEST_TMPDIR/$c.maf" expected.maf-
    done
}

# the mtDNA package (2bit inputs) as hspz run --tarball writes it
mt_package() {
    local d="$BATS_TEST_TMPDIR/mt"; mkdir -p "$d"
    hz_run run -r "$HSPZ_SHARED/data/tiny_mtdna_human_vs_orangutan/MT-human.fa" \
        -q "$HSPZ_SHARED/data/tiny_mtdna_human_vs_orangutan/MT-orang.fa" -o "$d/OUT" --tarball --threads 1 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    mkdir -p "$d/pkg" && tar xzf "$d/OUT.tar.gz" -C "$d/pkg"
    PKG="$d/pkg/galaxy/files"
}

@test "gapped golden: edge_cases_mtdna (truncation, bad names, extra lines, no scores, empty): output, stderr and status" {
    mt_package
    local E="$HSPZ_SHARED/golden/lastz-gapped/edge_cases_mtdna" o="$BATS_TEST_TMPDIR/o"
    mkdir -p "$o"; cp "$E"/*.segments "$PKG/"; cd "$PKG"
    while read -r c a b; do
        "$HSPZ" gapped 'work/ref.2bit[nameparse=darkspace][multiple][subset=ref_block0.name]' \
            'work/query.2bit[nameparse=darkspace][subset=query_block0.name]' --format=maf- --ydrop=9430 \
            --gappedthresh=3000 --strand=plus $a $b --output="$o/$c.out" 2> "$o/$c.err" && rc=0 || rc=$?
        echo $rc > "$o/$c.rc"
        for x in out err rc; do cmp "$o/$c.$x" "$E/$c.$x" || { echo "$c.$x differs"; cat "$o/$c.err"; return 1; }; done
    done <<'CASES'
base_traceback200K --segments=base.segments --traceback=200K
bad_target_name --segments=bad_target_name.segments
query_name_mismatch --segments=query_name_mismatch.segments
no_score_column --segments=no_score_column.segments
minus_line_in_plus_run --segments=minus_line_in_plus_run.segments
empty --segments=empty.segments
CASES
}

@test "gapped golden: name_suffix (records named *.fa / *.fasta fail as in lastz)" {
    local N="$HSPZ_SHARED/golden/lastz-gapped/edge_cases_mtdna/name_suffix" D="$HSPZ_SHARED/data/tiny_mtdna_human_vs_orangutan"
    cd "$BATS_TEST_TMPDIR"
    sed 's/^>MT_human.*/>MT_human.fa extra/' "$D/MT-human.fa" > h.fa
    sed 's/^>MT_orang.*/>MT_orang.fasta/' "$D/MT-orang.fa" > o.fa
    cp "$N"/*.name "$N"/*.segments .
    # the golden is lastz on the package's 2bit files, whose [subset] names are raw names (a
    # FASTA's are short names, without the suffix: another failure, gapped_fuzz.bats)
    python3 "$HZ_LIB/twobit.py" h.fa h.2bit && python3 "$HZ_LIB/twobit.py" o.fa o.2bit
    run "$HSPZ" gapped 'h.2bit[nameparse=darkspace][multiple][subset=ref_block0.name]' \
        'o.2bit[nameparse=darkspace][subset=query_block0.name]' --format=maf- --ydrop=9430 --gappedthresh=3000 \
        --strand=plus --segments=tmp1.block0.r0.plus.segments --output=out.maf
    [ "$status" -eq 1 ]
    [ "$output" = "$(cat "$N/tmp1.block0.r0.plus.err")" ]
    cmp out.maf "$N/tmp1.block0.r0.plus.maf-"
}

# live_diff REF QRY SED [hspz run options...]: hspz run --tarball on the pair, then every line of
# its lastz-commands.txt, edited by the sed expression SED, run by lastz and by hspz gapped;
# outputs, stderr and exit status must be equal.
live_diff() {
    require_cmd lastz
    local ref="$1" qry="$2" ed="$3"; shift 3
    local d="$BATS_TEST_TMPDIR/live"; rm -rf "$d"; mkdir -p "$d"
    hz_run run -r "$ref" -q "$qry" -o "$d/OUT" --tarball --threads 1 --quiet "$@"
    [ "$status" -eq 0 ] || { show_run; return 1; }
    mkdir -p "$d/pkg" && tar xzf "$d/OUT.tar.gz" -C "$d/pkg" && cd "$d/pkg/galaxy/files"
    local n=0 line args rc
    while read -r line; do
        args=$(sed -e 's/^lastz //; s/ 2>.*//' -e "$ed" <<<"$line")
        # the same --output name for both: it is part of the axt/maf header line
        rc=0; eval "lastz $args --output=res.out" 2> lastz.err || rc=$?; echo $rc > lastz.rc; mv res.out lastz.out
        rc=0; eval "\"$HSPZ\" gapped $args --output=res.out" 2> hspz.err || rc=$?; echo $rc > hspz.rc; mv res.out hspz.out
        for x in out err rc; do cmp lastz.$x hspz.$x || { echo "differs: $args"; head -3 hspz.err lastz.err; return 1; }; done
        [ "$(cat lastz.rc)" = 0 ] || { echo "lastz failed: $args"; return 1; }
        echo "equal ($(grep -c '^a \|^[0-9]' lastz.out) alignments): $args"
        n=$((n + 1))
    done < "$d/OUT/lastz-commands.txt"
    [ "$n" -gt 0 ]
}

DROP_OUT='s/ --output=[^ ]*//'
TD="$HSPZ_SHARED/data"

@test "gapped live: alpha-globin, axt (lastz header, numbering)" {
    live_diff "$TD/tiny_aglobin_human_vs_cow/aglobin_human.fa.gz" "$TD/tiny_aglobin_human_vs_cow/aglobin_cow.fa.gz" \
        "$DROP_OUT; s/--format=maf-/--format=axt/"
}

@test "gapped live: alpha-globin, axt+ with make_lastz_chains' thresholds and traceback (no H=)" {
    live_diff "$TD/tiny_aglobin_human_vs_cow/aglobin_human.fa.gz" "$TD/tiny_aglobin_human_vs_cow/aglobin_cow.fa.gz" \
        "$DROP_OUT; s/--format=maf-/--format=axt+ L=3000 Y=9400 --traceback=800.0M/; s/--ydrop=9430 --gappedthresh=3000//" \
        --hspthresh 2400 --gappedthresh 3000 --ydrop 9400
}

@test "gapped live: mtDNA, both strands, maf with header" {
    live_diff "$TD/tiny_mtdna_human_vs_orangutan/MT-human.fa" "$TD/tiny_mtdna_human_vs_orangutan/MT-orang.fa" \
        "$DROP_OUT; s/--format=maf-/--format=maf/" --strand both
}

@test "gapped live: alpha-globin, --ambiguous=n and iupac with reward/penalty, low y-drop and threshold" {
    live_diff "$TD/tiny_aglobin_human_vs_cow/aglobin_human.fa.gz" "$TD/tiny_aglobin_human_vs_cow/aglobin_cow.fa.gz" \
        "$DROP_OUT; s/--ydrop=9430/--ydrop=3000 --ambiguous=n/; s/--gappedthresh=3000/--gappedthresh=2000/"
    live_diff "$TD/tiny_aglobin_human_vs_cow/aglobin_human.fa.gz" "$TD/tiny_aglobin_human_vs_cow/aglobin_cow.fa.gz" \
        "$DROP_OUT; s/--ydrop=9430/--ambiguous=iupac,10,50/"
}

@test "gapped live: alpha-globin, score files (invented asymmetric matrix with N row, HOXD70 file): maf-, axt+ H=2000, maf" {
    local D="$TD/tiny_aglobin_human_vs_cow"
    for ed in "" "s/--format=maf-/--format=axt+ H=2000/" "s/--format=maf-/--format=maf/"; do
        live_diff "$D/aglobin_human.fa.gz" "$D/aglobin_cow.fa.gz" "$DROP_OUT; $ed" --scoring "$HZ_REPO/tests/data/scoring/invented_close.txt"
    done
    live_diff "$D/aglobin_human.fa.gz" "$D/aglobin_cow.fa.gz" "$DROP_OUT; s/--format=maf-/--format=axt+/" --scoring "$HZ_REPO/tests/data/scoring/hoxd70.txt"
}

@test "gapped live: self comparisons (LASTZ's trivial self-alignment), with and without --notrivial, H=2000" {
    local A="$TD/tiny_kegalign_apple_vs_orange_SYNTHETIC/apple.fasta.gz" M="$TD/tiny_mtdna_human_vs_orangutan/MT-human.fa"
    for ed in "" "s/--format=maf-/--format=maf- --notrivial/" "s/--format=maf-/--format=axt+ H=2000/" \
              "s/--format=maf-/--format=axt+ H=2000 --notrivial/"; do
        live_diff "$A" "$A" "$DROP_OUT; $ed"
        live_diff "$M" "$M" "$DROP_OUT; $ed"
    done
}

@test "gapped live: apple/orange, forced traceback truncation, FASTA input" {
    live_diff "$TD/tiny_kegalign_apple_vs_orange_SYNTHETIC/apple.fasta.gz" "$TD/tiny_kegalign_apple_vs_orange_SYNTHETIC/orange.fasta.gz" \
        "$DROP_OUT; s/--ydrop=9430/--ydrop=9430 --traceback=100K/"
}

@test "gapped: options outside the supported set are refused with one line naming lastz" {
    cd "$BATS_TEST_TMPDIR"; printf '>t\nACGT\n' > t.fa; : > s.seg
    for o in --format=maf+ --format=lav --xdrop=10 --chain; do
        run "$HSPZ" gapped 't.fa[multiple]' t.fa --segments=s.seg "$o"
        [ "$status" -ne 0 ]
        [ "${#lines[@]}" -eq 1 ]
        [[ "$output" == *"run lastz for it"* ]]
    done
    run "$HSPZ" gapped --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"--segments=FILE"* ]]
}

# outdir_vs_golden PAIR REF QRY THREADS: hspz run (no tarball), then hspz gapped --outdir on its
# folder; every output must equal the pair's maf golden
outdir_vs_golden() {
    local p="$1" ref="$2" qry="$3" n="$4" d="$BATS_TEST_TMPDIR/od$4"
    local G="$HSPZ_SHARED/golden/lastz-gapped/$p/maf"
    mkdir -p "$d"
    hz_run run -r "$ref" -q "$qry" -o "$d/OUT" --threads 1 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    run "$HSPZ" gapped --outdir "$d/OUT" -r "$ref" -q "$qry" --threads "$n"
    [ "$status" -eq 0 ] || { echo "$output"; return 1; }
    local k=0 f
    for f in "$G"/tmp1.*.maf-*; do
        local b; b=$(basename "${f%.gz}")
        case $f in *.gz) gunzip -c "$f" | cmp - "$d/OUT/$b" ;; *) cmp "$f" "$d/OUT/$b" ;; esac
        [ ! -s "$d/OUT/${b%.maf-}.err" ]
        k=$((k + 1))
    done
    [ "$k" -gt 0 ]
}

@test "gapped --outdir: apple/orange, every lastz-commands.txt line on 1 and 3 workers = the goldens" {
    local D="$HSPZ_SHARED/data/tiny_kegalign_apple_vs_orange_SYNTHETIC"
    outdir_vs_golden tiny_kegalign_apple_vs_orange_SYNTHETIC "$D/apple.fasta.gz" "$D/orange.fasta.gz" 1
    outdir_vs_golden tiny_kegalign_apple_vs_orange_SYNTHETIC "$D/apple.fasta.gz" "$D/orange.fasta.gz" 3
}

@test "gapped --outdir: alpha-globin FASTA read as hspz's 2bit holds it (N runs, soft-masking)" {
    local D="$HSPZ_SHARED/data/tiny_aglobin_human_vs_cow"
    outdir_vs_golden tiny_aglobin_human_vs_cow "$D/aglobin_human.fa.gz" "$D/aglobin_cow.fa.gz" 2
}

@test "gapped --threads: 31 query records x 2 strands on 1, 2 and 7 threads, the same bytes as lastz (maf- and axt+ H=2000)" {
    require_cmd lastz
    local D="$HSPZ_SHARED/data/tiny_kegalign_apple_vs_orange_SYNTHETIC" d="$BATS_TEST_TMPDIR"
    hz_run run -r "$D/apple.fasta.gz" -q "$D/orange.fasta.gz" -o "$d/OUT" --tarball --threads 1 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    mkdir -p "$d/pkg" && tar xzf "$d/OUT.tar.gz" -C "$d/pkg" && cd "$d/pkg/galaxy/files"
    # both strands in one file: the plus lines of each query record, then its minus lines (§3.2)
    python3 - <<'PY'
import collections
recs = collections.OrderedDict()
for f, s in (("tmp1.block0.r0.plus.segments", "+"), ("tmp1.block0.r0.minus.segments", "-")):
    for line in open(f):
        recs.setdefault(line.split("\t")[3], {"+": [], "-": []})[s].append(line)
with open("both.seg", "w") as out:
    for q in (l.strip() for l in open("query_block0.name")):
        if q in recs:
            out.writelines(recs[q]["+"] + recs[q]["-"])
PY
    local T='work/ref.2bit[nameparse=darkspace][multiple][subset=ref_block0.name]' Q='work/query.2bit[nameparse=darkspace][subset=query_block0.name]'
    # the third: truncation messages of several passes on stderr, in pass order
    for opts in "--format=maf- --ydrop=9430 --gappedthresh=3000" "H=2000 L=3000 Y=9400 --traceback=800.0M --format=axt+" \
                "--format=maf- --traceback=100K"; do
        lastz "$T" "$Q" --segments=both.seg $opts --output=out 2> lastz.err
        mv out lastz.out
        [ "$(grep -c '^a \|^[0-9]' lastz.out)" -gt 20 ]
        case $opts in *100K*) [ "$(grep -c '^truncating' lastz.err)" -gt 1 ] ;; esac
        for n in 1 2 7; do
            "$HSPZ" gapped "$T" "$Q" --segments=both.seg $opts --threads=$n --output=out 2> err   # one --output name: it is in the axt header
            cmp lastz.err err
            cmp lastz.out out
        done
    done
}

# --- issue 34 review: messages, numbers, defaults and output safety, compared with lastz ---

# lastz_vs_hspz ARGS...: the same command line (in the current folder) run by lastz and by hspz
# gapped, --output=res.out; sets L_RC/H_RC, L_ERR/H_ERR (stderr) and leaves lastz.out/hspz.out
lastz_vs_hspz() {
    rm -f res.out lastz.out hspz.out
    L_RC=0; lastz "$@" --output=res.out 2> lastz.err || L_RC=$?; [ ! -e res.out ] || mv res.out lastz.out
    H_RC=0; "$HSPZ" gapped "$@" --output=res.out 2> hspz.err || H_RC=$?; [ ! -e res.out ] || mv res.out hspz.out
    L_ERR=$(cat lastz.err); H_ERR=$(cat hspz.err)
}

@test "gapped: a [subset=] name the file lacks: lastz's two-line message and exit status (no use after free)" {
    require_cmd lastz
    cd "$BATS_TEST_TMPDIR"; cp "$HSPZ_SHARED/data/tiny_aglobin_human_vs_cow/aglobin.2bit" .
    printf 'nosuch\n' > bad.name; : > hc.seg
    for sp in 'aglobin.2bit[multiple][subset=bad.name] aglobin.2bit/cow' 'aglobin.2bit[multiple] aglobin.2bit[subset=bad.name]'; do
        lastz_vs_hspz $sp --segments=hc.seg --format=maf-
        [ "$L_RC" -eq 1 ] && [ "$H_RC" -eq 1 ]
        [ "$H_ERR" = "$L_ERR" ]
        [[ "$H_ERR" == *'the sequence "nosuch"' ]]
        [ ! -s lastz.out ] && [ ! -s hspz.out ]      # lastz leaves an empty file; hspz none
    done
}

@test "gapped: y-drop, gapped and inner values read as lastz reads them (0 refused, 1.5/1K run-lastz line, -5 accepted)" {
    require_cmd lastz
    cd "$BATS_TEST_TMPDIR"; printf '>t\nACGTACGTAAAAACCCCGGGGTTTTACGATCGA\n' > t.fa; : > s.seg
    local o
    for o in Y=0 --ydrop=0 --ydrop=-3 "Y=5 --ydrop=0"; do       # lastz refuses: its first line, exit 1, no output
        lastz_vs_hspz 't.fa[multiple]' t.fa --segments=s.seg --format=maf- $o
        [ "$L_RC" -eq 1 ] && [ "$H_RC" -eq 1 ]
        [ "$H_ERR" = "$(head -1 lastz.err)" ]
        [[ "$H_ERR" == *"is not a legitimate y-drop threshold" ]]
        [ ! -e lastz.out ] && [ ! -e hspz.out ]
    done
    for o in --ydrop=1.5 Y=1K L=1K H=1.5 Y=1e3 --ambiguous=N --ambiguous=n,5 --ambiguous=iupac,1.5,2; do             # lastz accepts; hspz: same bytes or run lastz
        lastz_vs_hspz 't.fa[multiple]' t.fa --segments=s.seg --format=maf- $o
        [ "$L_RC" -eq 0 ]
        if [ "$H_RC" -eq 0 ]; then cmp lastz.out hspz.out
        else [ "$(wc -l < hspz.err)" -eq 1 ]; [[ "$H_ERR" == *"run lastz for it" ]]; [ ! -e hspz.out ]; fi
    done
    for o in --inner=-5 L=-5 "Y=0 Y=5" "H=0 L=2000"; do         # lastz accepts: hspz the same bytes
        lastz_vs_hspz 't.fa[multiple]' t.fa --segments=s.seg --format=maf- $o
        [ "$L_RC" -eq 0 ] && [ "$H_RC" -eq 0 ]
        [ -s lastz.out ] && cmp lastz.out hspz.out
        [ "$H_ERR" = "$L_ERR" ]
    done
}

@test "gapped: no --format (lastz's default lav, refused with [multiple]): no alignments, one run-lastz line" {
    require_cmd lastz
    cd "$BATS_TEST_TMPDIR"; printf '>t\nACGTACGTAAAAACCCCGGGGTTTTACGATCGA\n' > t.fa; : > s.seg
    lastz_vs_hspz 't.fa[multiple]' t.fa --segments=s.seg
    [ "$L_RC" -eq 1 ] && [ "$H_RC" -eq 1 ]
    [[ "$L_ERR" == *"cannot be used with --lav"* ]]
    [ "$(wc -l < hspz.err)" -eq 1 ]
    [[ "$H_ERR" == *"lav"*"run lastz for it" ]]
    [ ! -s hspz.out ]
}

# ag_outdir DIR [hspz run options]: hspz run --tarball on alpha-globin into DIR/OUT, package in DIR/pkg
ag_outdir() {
    local d="$1"; shift; mkdir -p "$d"
    hz_run run -r "$TD/tiny_aglobin_human_vs_cow/aglobin_human.fa.gz" -q "$TD/tiny_aglobin_human_vs_cow/aglobin_cow.fa.gz" \
        -o "$d/OUT" --tarball --threads 1 --quiet "$@"
    [ "$status" -eq 0 ] || { show_run; return 1; }
    mkdir -p "$d/pkg" && tar xzf "$d/OUT.tar.gz" -C "$d/pkg"
}

@test "gapped --outdir: -r/-q checked against the manifest's sha256 (a changed target is refused, nothing written)" {
    local d="$BATS_TEST_TMPDIR/sha" Hf="$TD/tiny_aglobin_human_vs_cow/aglobin_human.fa.gz" Cf="$TD/tiny_aglobin_human_vs_cow/aglobin_cow.fa.gz"
    ag_outdir "$d"
    gunzip -c "$Hf" | sed '2s/^./N/' > "$d/changed.fa"         # one base changed, the same name and length
    run "$HSPZ" gapped --outdir "$d/OUT" -r "$d/changed.fa" -q "$Cf"
    [ "$status" -eq 1 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *"-r $d/changed.fa is not the target this run read"*"manifest.json"* ]]
    ! ls "$d/OUT"/*.maf- 2>/dev/null
    run "$HSPZ" gapped --outdir "$d/OUT" -r "$Hf" -q "$Hf"         # the target given as the query
    [ "$status" -eq 1 ] && [[ "$output" == *"-q $Hf is not the query"* ]]
    run "$HSPZ" gapped --outdir "$d/OUT" -r "$Hf" -q "$Cf"
    [ "$status" -eq 0 ]
    [ "$(grep -c '^a ' "$d/OUT/tmp1.block0.r0.plus.maf-")" -gt 0 ]
}

@test "gapped --outdir: a run with -T/-Q name prefixes gives lastz's bytes on the package (prefixed names)" {
    require_cmd lastz
    local d="$BATS_TEST_TMPDIR/pre"
    ag_outdir "$d" -T hg. -Q mm.
    run "$HSPZ" gapped --outdir "$d/OUT" -r "$TD/tiny_aglobin_human_vs_cow/aglobin_human.fa.gz" -q "$TD/tiny_aglobin_human_vs_cow/aglobin_cow.fa.gz"
    [ "$status" -eq 0 ] || { echo "$output"; cat "$d"/OUT/*.err; return 1; }
    cd "$d/pkg/galaxy/files"
    local n=0 line
    while read -r line; do
        eval "$line"                                         # lastz itself, on the package's 2bit files
        for f in $(sed 's/.*--output=\([^ ]*\) 2> \(.*\)/\1 \2/' <<<"$line"); do cmp "$f" "$d/OUT/$f"; done
        grep -q '^s hg\.human ' "$(sed 's/.*--output=\([^ ]*\) .*/\1/' <<<"$line")"
        n=$((n + 1))
    done < "$d/OUT/lastz-commands.txt"
    [ "$n" -ge 1 ]
}

@test "gapped: outputs never through a symlink, never over an input; --outdir: inside DIR, new unless --force" {
    local d="$BATS_TEST_TMPDIR/safe" Hf="$TD/tiny_aglobin_human_vs_cow/aglobin_human.fa.gz" Cf="$TD/tiny_aglobin_human_vs_cow/aglobin_cow.fa.gz"
    ag_outdir "$d"
    local O="$d/OUT" seg=tmp1.block0.r0.plus.segments
    cp "$O/lastz-commands.txt" "$d/cmds.orig"; sha=$(sha256sum "$O/$seg")
    # drop-in mode, in the package: --output naming the segments file, or a symlink
    cd "$d/pkg/galaxy/files"
    local args; args=$(sed 's/^lastz //; s/ --output=.*//' "$O/lastz-commands.txt")
    run eval "\"$HSPZ\" gapped $args --output=$seg"
    [ "$status" -ne 0 ] && [ "${#lines[@]}" -eq 1 ] && [[ "$output" == *"is an input of this command"* ]]
    ln -s "$d/victim" link.out
    run eval "\"$HSPZ\" gapped $args --output=link.out"
    [ "$status" -ne 0 ] && [[ "$output" == *"symbolic link"* ]] && [ ! -e "$d/victim" ]
    cd "$d"
    # --outdir: an existing .err / .maf- is kept without --force
    ln -s "$d/victim" "$O/tmp1.block0.r0.plus.err"
    run "$HSPZ" gapped --outdir "$O" -r "$Hf" -q "$Cf"
    [ "$status" -ne 0 ] && [[ "$output" == *"symbolic link"* ]] && [ ! -e "$d/victim" ]
    rm "$O/tmp1.block0.r0.plus.err"
    run "$HSPZ" gapped --outdir "$O" -r "$Hf" -q "$Cf"
    [ "$status" -eq 0 ]
    cp "$O/tmp1.block0.r0.plus.maf-" first.maf
    run "$HSPZ" gapped --outdir "$O" -r "$Hf" -q "$Cf"
    [ "$status" -ne 0 ] && [[ "$output" == *"exists; refused without --force"* ]]
    cmp first.maf "$O/tmp1.block0.r0.plus.maf-"
    run "$HSPZ" gapped --outdir "$O" -r "$Hf" -q "$Cf" --force
    [ "$status" -eq 0 ] && cmp first.maf "$O/tmp1.block0.r0.plus.maf-"
    # --outdir: an --output naming the segments file, outside DIR (../x, absolute), a symlink
    for bad in "$seg" ../escaped.maf "$d/abs.maf" link2.maf; do
        rm -f "$O"/tmp1.*.err "$O"/tmp1.*.maf-; ln -sf "$d/victim" "$O/link2.maf"
        sed "s#--output=[^ ]*#--output=$bad#" "$d/cmds.orig" > "$O/lastz-commands.txt"
        run "$HSPZ" gapped --outdir "$O" -r "$Hf" -q "$Cf"
        [ "$status" -ne 0 ] || { echo "accepted $bad"; return 1; }
        [ ! -e "$d/escaped.maf" ] && [ ! -e "$d/abs.maf" ] && [ ! -e "$d/victim" ]
        [ "$(sha256sum "$O/$seg")" = "$sha" ]
        case $bad in ../*|/*) [[ "$output" == *"is outside"* ]] ;; esac
    done
}

# lastz_same ARGS...: lastz and hspz gapped on the same arguments in the current folder:
# standard output, standard error and exit status equal
lastz_same() {
    local rc
    rc=0; lastz "$@" > l.out 2> l.err || rc=$?; echo $rc > l.rc
    rc=0; "$HSPZ" gapped "$@" > h.out 2> h.err || rc=$?; echo $rc > h.rc
    for x in out err rc; do cmp l.$x h.$x || { echo "differs ($x): $*"; head -3 l.err h.err; return 1; }; done
}

# the alpha-globin pair as make_lastz_chains stages it: hspZ run --hspthresh 2400 -D segments,
# the 2bit (records human, cow) and plain FASTA copies (lastz does not read gzip)
mlc_aglobin() {
    require_cmd lastz
    local D="$HZ_REPO/tests/data/tiny_aglobin_human_vs_cow"
    cd "$BATS_TEST_TMPDIR"
    hz_run run --hspthresh 2400 -r "$D/aglobin_human.fa.gz" -q "$D/aglobin_cow.fa.gz" -o segments -D --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    cp "$D/aglobin.2bit" . && gunzip -c "$D/aglobin_human.fa.gz" > human.fa && gunzip -c "$D/aglobin_cow.fa.gz" > cow.fa
    cat human.fa cow.fa > both.fa
    echo human > h.name; printf 'cow\nhuman\n' > ch.name
    SEG=segments/tmp1.block0.r0.plus.segments
}

@test "gapped live: a target without [multiple] (make_lastz_chains' REF.2bit/NAME): 2bit and FASTA, /NAME and [subset=], every format, = lastz" {
    mlc_aglobin
    local o="--allocate:traceback=1.99G --gappedthresh=3000 --inner=2000 --ydrop=9400 --strand=plus" f t q
    # make_lastz_chains' own line (issue 34): lastz writes 66 alignments
    lastz_same --segments=$SEG --format=axt+ $o --output=o.axt aglobin.2bit/human aglobin.2bit/cow
    [ "$(grep -c '^[0-9]' o.axt)" -eq 66 ]
    for f in maf- maf axt axt+; do
        for t in aglobin.2bit/human human.fa 'aglobin.2bit[subset=h.name]'; do
            for q in cow.fa both.fa; do lastz_same --segments=$SEG --format=$f $o "$t" "$q"; done
        done
        [ "$(grep -c '^[0-9]\|^a ' h.out)" -ge 66 ]       # both.fa: the human pass has no lines
        [ "$f" = axt+ ] || continue                       # the errors once
        # several records without [multiple]: lastz's two lines, exit 1, nothing written
        for t in aglobin.2bit both.fa 'aglobin.2bit[subset=ch.name]'; do
            lastz_same --segments=$SEG --format=$f $o "$t" cow.fa
            [ "$(cat h.rc)" -eq 1 ] && grep -q 'contains more than one sequence' h.err && [ ! -s h.out ]
        done
        # lastz ignores an unpartitioned target's name in the segment lines
        sed 's/^human/other/' $SEG > renamed.seg
        lastz_same --segments=renamed.seg --format=$f $o human.fa cow.fa
        [ "$(cat h.rc)" -eq 0 ] && [ -s h.out ]
        lastz_same --segments=renamed.seg --format=$f $o 'human.fa[multiple]' cow.fa
        [ "$(cat h.rc)" -eq 1 ] && grep -q 'bad target sequence name' h.err
        # FILE/NAME only after .2bit/, as lastz splits it
        run "$HSPZ" gapped --segments=$SEG --format=$f both.fa/human cow.fa
        [ "$status" -eq 1 ] && [ "${#lines[@]}" -eq 1 ]
        lastz_same --segments=$SEG --format=$f aglobin.2bit/nope cow.fa
        [ "$(cat h.rc)" -eq 1 ]
    done
}

@test "gapped live: trivial self-alignments with an unpartitioned target, and --notrivial's second check (a side partitioned), = lastz" {
    mlc_aglobin
    local o="--allocate:traceback=1.99G --gappedthresh=3000 --ydrop=9400 --strand=plus" f nt n0
    # target records human, cow; query records human and a changed cow (not all identical)
    (cat human.fa; echo '>cow'; tail -n +2 cow.fa | tr 'ACGT' 'CATG') > both2.fa
    hz_run run --hspthresh 2400 -r human.fa -q both.fa -o s2 --quiet && hz_run run --hspthresh 2400 -r both.fa -q both2.fa -o s3 --quiet
    # keep human x human's main diagonal only (the whole-record alignment), and every other pair
    awk -F'\t' '$1!=$4 || ($2==$5 && $3-$2>500)' s2/*.segments > s2.seg
    awk -F'\t' '$1!=$4 || ($2==$5 && $3-$2>500)' s3/*.segments > s3.seg
    for f in maf- axt+; do
        for nt in "" --notrivial; do
            lastz_same --segments=s2.seg --format=$f $nt $o aglobin.2bit/human 'both.fa[multiple]'; cp h.out a$nt
            lastz_same --segments=s2.seg --format=$f $nt $o aglobin.2bit/human both.fa; cp h.out b$nt
            lastz_same --segments=s3.seg --format=$f $nt $o 'both.fa[multiple]' 'both2.fa[multiple]'; cp h.out c$nt
        done
        # --notrivial left out the whole-record human x human alignment in each case
        for n0 in a b c; do [ "$(wc -c < "$n0--notrivial")" -lt "$(wc -c < "$n0")" ]; done
    done
    # an unpartitioned FASTA target: lastz compares its whole header line with the query's name
    (echo '>human some words'; tail -n +2 human.fa) > hd.fa
    for f in human.fa hd.fa; do
        lastz_same --segments=s2.seg --format=maf- $o $f 'both.fa[multiple]'; cp h.out "$f.all"
        lastz_same --segments=s2.seg --format=maf- --notrivial $o $f 'both.fa[multiple]'; cp h.out "$f.nt"
    done
    cmp hd.fa.all hd.fa.nt                                 # 'human some words' is not 'human': kept
    [ "$(wc -c < human.fa.nt)" -lt "$(wc -c < human.fa.all)" ]
}

@test "gapped --version: hspz's own line (not lastz's), exit 0" {
    run "$HSPZ" gapped --version
    [ "$status" -eq 0 ] && [ "${#lines[@]}" -eq 1 ]
    [ "$output" = "hspz gapped $("$HSPZ" --version) (hspz, not lastz: lastz 1.04.22's gapped stage with --segments, the same output bytes)" ]
    run "$HSPZ" gapped --segments=x --version:noerror
    [ "$status" -eq 0 ] && [[ "$output" == "hspz gapped "* ]]
}

@test "gapped live: an unpartitioned query with a sub-range (FILE.2bit/NAME[s,e]), both strands, and its range errors, = lastz" {
    mlc_aglobin
    local f M="$HSPZ_SHARED/data/tiny_mtdna_human_vs_orangutan"
    awk -F'\t' '$5 >= 2001 && $6 <= 4000' $SEG > qsub.seg
    # the minus strand: orangutan's reverse complement as query, in a 2bit (hspz run's package)
    python3 -c "import sys; s=''.join(l.strip() for l in open(sys.argv[1]) if l[0] != '>'); c=str.maketrans('ACGTacgt','TGCAtgca'); print('>orc'); print(s.translate(c)[::-1])" "$M/MT-orang.fa" > orc.fa
    hz_run run -r "$M/MT-human.fa" -q orc.fa -o pk --tarball --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    mkdir pkx && tar xzf pk.tar.gz -C pkx && cp pkx/galaxy/files/work/query.2bit orc.2bit
    awk -F'\t' '$5 > 16499 - 9000 && $6 <= 16499 - 1000' pk/tmp1.block0.r0.minus.segments > qsubm.seg
    [ "$(wc -l < qsub.seg)" -gt 0 ] && [ "$(wc -l < qsubm.seg)" -gt 0 ]
    for f in maf- maf axt axt+; do
        lastz_same --segments=qsub.seg --format=$f --strand=plus aglobin.2bit/human 'aglobin.2bit/cow[2001,4000]'
        [ "$(cat h.rc)" -eq 0 ] && [ -s h.out ]
        lastz_same --segments=qsubm.seg --format=$f --strand=minus H=2000 "$M/MT-human.fa" 'orc.2bit/orc[1001,9000]'
        [ "$(cat h.rc)" -eq 0 ] && [ -s h.out ]
    done
    # lines outside the sub-range: lastz's messages (the minus strand's second line too)
    lastz_same --segments=$SEG --format=maf --strand=plus aglobin.2bit/human 'aglobin.2bit/cow[2001,4000]'
    [ "$(cat h.rc)" -eq 1 ] && grep -q 'query interval out of range' h.err
    lastz_same --segments=pk/tmp1.block0.r0.minus.segments --format=maf --strand=minus "$M/MT-human.fa" 'orc.2bit/orc[1001,9000]'
    [ "$(cat h.rc)" -eq 1 ] && grep -q '^minus strand subrange is ' h.err
}

@test "gapped --outdir --allocate:traceback=200K: every line = lastz with the option appended by hand (truncation notes, maf header)" {
    require_cmd lastz
    local D="$TD/tiny_kegalign_apple_vs_orange_SYNTHETIC" d="$BATS_TEST_TMPDIR/tb"
    mkdir -p "$d"
    hz_run run -r "$D/apple.fasta.gz" -q "$D/orange.fasta.gz" -o "$d/OUT" --tarball --format maf --threads 1 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    mkdir -p "$d/pkg" && tar xzf "$d/OUT.tar.gz" -C "$d/pkg"
    cp -r "$d/OUT" "$d/DEF"
    run "$HSPZ" gapped --outdir "$d/DEF" -r "$D/apple.fasta.gz" -q "$D/orange.fasta.gz"        # lastz's default 80M
    [ "$status" -eq 0 ] || { echo "$output"; return 1; }
    local word
    for word in --allocate:traceback=200K --traceback=200K; do
        rm -f "$d/OUT"/tmp1.* "$d/OUT/gapped-manifest.json"; cp "$d/DEF"/tmp1.*.segments "$d/OUT/"
        run "$HSPZ" gapped --outdir "$d/OUT" -r "$D/apple.fasta.gz" -q "$D/orange.fasta.gz" "$word" --threads 2
        [ "$status" -eq 0 ] || { echo "$output"; return 1; }
        # lastz on the package, the same word appended to each line (after --output, before 2>)
        cd "$d/pkg/galaxy/files" && rm -f tmp1.*.maf tmp1.*.err
        sed "s/ 2> / $word 2> /" "$d/OUT/lastz-commands.txt" | sh
        local f n=0
        for f in tmp1.*.maf tmp1.*.err; do cmp "$f" "$d/OUT/$f"; n=$((n + 1)); done
        [ "$n" -eq 4 ]
        grep -q "^# lastz.v1.04.22 .* --output=tmp1.block0.r0.plus.maf $word $" "$d/OUT/tmp1.block0.r0.plus.maf"
        grep -q '^truncation can be reduced by using --allocate:traceback' "$d/OUT/tmp1.block0.r0.plus.err"
        [ ! -s "$d/DEF/tmp1.block0.r0.plus.err" ]                     # 80M: no truncation, other alignments
        ! cmp -s <(grep -v '^#' "$d/DEF/tmp1.block0.r0.plus.maf") <(grep -v '^#' "$d/OUT/tmp1.block0.r0.plus.maf")
        [ "$(mf "$d/OUT/gapped-manifest.json" 'd["settings"]["traceback"]["value"]')" = "$word" ]
        [ "$(mf "$d/OUT/gapped-manifest.json" 'd["settings"]["traceback"]["source"]')" = flag ]
        cd "$d"
    done
    [ "$(mf "$d/DEF/gapped-manifest.json" 'd["settings"]["traceback"]["source"]')" = default ]
    [ "$(mf "$d/DEF/gapped-manifest.json" 'd["settings"]["traceback"]["value"]')" = null ]
    # checked up front, one line (a usage error: exit 2, as hspz run --traceback), nothing written
    for word in --traceback=abc --allocate:traceback=50K "--traceback 1X"; do
        rm -f "$d/OUT"/tmp1.*.maf "$d/OUT"/tmp1.*.err
        run "$HSPZ" gapped --outdir "$d/OUT" -r "$D/apple.fasta.gz" -q "$D/orange.fasta.gz" $word --force
        [ "$status" -eq 2 ] || { echo "$word: exit $status: $output"; return 1; }
        [ "${#lines[@]}" -eq 1 ] || { echo "$word: $output"; return 1; }
        [[ "$output" == *traceback* ]]
        ! ls "$d/OUT"/tmp1.*.maf 2>/dev/null
    done
}

@test "gapped live: score-file settings read as lastz reads them (seed/T, step, ball, repeated names, decimal and K values, hsp_threshold as L): output, stderr, status" {
    require_cmd lastz
    ag_outdir "$BATS_TEST_TMPDIR/sf"
    cd "$BATS_TEST_TMPDIR/sf/pkg/galaxy/files"
    local T='work/ref.2bit[nameparse=darkspace][multiple][subset=ref_block0.name]' Q='work/query.2bit[nameparse=darkspace][subset=query_block0.name]'
    local s fmt n=0 ok=0 fail=0
    while IFS= read -r s; do
        for fmt in axt+; do     # its header shows the thresholds, seed and step
            { printf '%b\n' "$s"; grep -v '^#' "$HZ_REPO/tests/data/scoring/hoxd70.txt"; } > sc.txt
            lastz_vs_hspz "$T" "$Q" --format=$fmt --strand=plus --segments=tmp1.block0.r0.plus.segments --scores=sc.txt
            [ "$H_RC" = "$L_RC" ] && [ "$H_ERR" = "$L_ERR" ] || { echo "[$s] $fmt: lastz $L_RC '$L_ERR', hspz $H_RC '$H_ERR'"; return 1; }
            if [ "$L_RC" = 0 ]; then cmp lastz.out hspz.out || { echo "[$s] $fmt: output differs"; return 1; }; ok=$((ok + 1)); else fail=$((fail + 1)); fi
            n=$((n + 1))
        done
    done <<'CASES'
seed = 12of19,transition
seed = 12_of_19,no_transition\nstep = 20
T = 3\nZ = 7
seed = 14of22,notransition\nstep = 010
seed = 12of19
seed = 12of19 junk
T = 5
seed = 12of19,transition\nT = 1
step = 0
step = 1.5
ball = 90%
ball = x
hsp_threshold = 1.5
hsp_threshold = 100000
hsp_threshold = 100000\ngapped_threshold = 4000
K = 5000\nL = -5
y_drop = 1K\nx_drop = 5e2
y_drop = 0
fill_score = -50.5
hsp_threshold = 12abc
gap open = 3
bad = X:-5\nbad = -6
CASES
    echo "$n runs: $ok equal outputs, $fail equal failures"
    [ "$ok" -eq 9 ] && [ "$fail" -eq 13 ]
}

@test "gapped --outdir: a line that writes another line's output or any line's input (segments, subset, manifest) is refused before any line runs, also with --force" {
    local A="$HZ_REPO/tests/data/apple_orange" d="$BATS_TEST_TMPDIR/lines"
    mkdir -p "$d" && cd "$d"
    "$HSPZ" run -r "$A/apple.fasta.gz" -q "$A/orange.fasta.gz" -o t --quiet
    cp -r t t2; cp -r t t3
    local seg; seg=$(sha256sum t/tmp1.block0.r0.minus.segments)
    sed -i '1s/2> tmp1.block0.r0.plus.err/2> tmp1.block0.r0.minus.segments/' t/lastz-commands.txt
    run "$HSPZ" gapped --outdir t -r "$A/apple.fasta.gz" -q "$A/orange.fasta.gz" --force --threads 1
    [ "$status" -eq 1 ] && [[ "$output" == *"line 1 writes tmp1.block0.r0.minus.segments, which line 2 reads; refused"* ]]
    [ "$(sha256sum t/tmp1.block0.r0.minus.segments)" = "$seg" ] && [ ! -e t/tmp1.block0.r0.plus.maf- ]
    local man; man=$(sha256sum t2/manifest.json)
    sed -i '1s/--output=tmp1.block0.r0.plus.maf-/--output=manifest.json/' t2/lastz-commands.txt
    run "$HSPZ" gapped --outdir t2 -r "$A/apple.fasta.gz" -q "$A/orange.fasta.gz" --force
    [ "$status" -eq 1 ] && [[ "$output" == *"writes manifest.json, the folder's own manifest.json; refused"* ]]
    [ "$(sha256sum t2/manifest.json)" = "$man" ]
    sed -i '2s/--output=tmp1.block0.r0.minus.maf-/--output=tmp1.block0.r0.plus.maf-/; 2s/2> tmp1.block0.r0.minus.err/2> tmp1.block0.r0.plus.err/' t3/lastz-commands.txt
    run "$HSPZ" gapped --outdir t3 -r "$A/apple.fasta.gz" -q "$A/orange.fasta.gz" --threads 2 --force
    [ "$status" -eq 1 ] && [[ "$output" == *"lines 1 and 2 both write tmp1.block0.r0.plus.maf-; refused"* ]]
    [ ! -e t3/tmp1.block0.r0.plus.maf- ]
}

@test "gapped: a FASTA letter lastz refuses (IUPAC without --ambiguous=iupac, U; X is taken) fails as lastz fails; with iupac the same bytes" {
    require_cmd lastz
    cd "$BATS_TEST_TMPDIR"
    printf '>a desc x\nACGTACGTYACGTNNACGTACGT\n>b\nACGTRACG\n' > iu.fa
    printf '>a\nACGTACGTACGTxACGTuAC\n' > x.fa
    printf 'a\t1\t10\ta\t1\t10\t+\t2000\n' > s.seg
    for c in "iu.fa[multiple] iu.fa" "iu.fa[multiple] iu.fa --ambiguous=n" "x.fa x.fa" "iu.fa[multiple] iu.fa --ambiguous=iupac"; do
        run "$HSPZ" gapped $c --segments=s.seg --format=axt; hs=$status; ho=$output
        run lastz $c --segments=s.seg --format=axt; [ "$status" -eq "$hs" ] && [ "$output" = "$ho" ] || { echo "differs: $c"; echo "$ho"; echo "$output"; return 1; }
    done
    run "$HSPZ" gapped 'iu.fa[multiple]' iu.fa --segments=s.seg --format=axt
    [ "$status" -eq 1 ] && [[ "$output" == *"bad fasta character in iu.fa, >a desc x (uppercase Y)"* ]]
}

@test "gapped: truncation messages name lastz's positions also for a target without [multiple] (REF.2bit/NAME, make_lastz_chains' form)" {
    require_cmd lastz
    local AG="$TD/tiny_aglobin_human_vs_cow"
    cd "$BATS_TEST_TMPDIR"
    "$HSPZ" run --hspthresh 2400 -r "$AG/aglobin_human.fa.gz" -q "$AG/aglobin_cow.fa.gz" -o seg -D --quiet
    for spec in "$AG/aglobin.2bit/human $AG/aglobin.2bit/cow" "$AG/aglobin.2bit/human $AG/aglobin.2bit/cow[multiple]" "$AG/aglobin.2bit/human[multiple] $AG/aglobin.2bit/cow"; do
        "$HSPZ" gapped $spec --segments=seg/tmp1.block0.r0.plus.segments --format=maf- --allocate:traceback=100K >h.out 2>h.err || true
        lastz $spec --segments=seg/tmp1.block0.r0.plus.segments --format=maf- --allocate:traceback=100K >l.out 2>l.err || true
        grep -q "^truncating alignment" l.err
        cmp h.err l.err && cmp h.out l.out
    done
}

@test "gapped drop-in: --output=/dev/stdout and /dev/stderr write like lastz; a link to a regular file is still refused" {
    command -v lastz >/dev/null || skip "lastz is not installed: this case compares with live lastz"
    cd "$HSPZ_SHARED/golden/lastz-gapped/edge_cases_synthetic/trim_initial_indel"
    local A=('t.fa[multiple]' q.fa --segments=s.seg --format=maf- --strand=plus --gappedthresh=3000 --ydrop=9430)
    local want; want=$(lastz "${A[@]}" --output=/dev/stdout | sha256sum)
    [ "$(lastz "${A[@]}" | sha256sum)" = "$want" ] && [ "$want" != "$(printf '' | sha256sum)" ]
    [ "$("$HSPZ" gapped "${A[@]}" --output=/dev/stdout | sha256sum)" = "$want" ]
    [ "$("$HSPZ" gapped "${A[@]}" --output=/dev/stderr 2>&1 >/dev/null | sha256sum)" = "$want" ]
    "$HSPZ" gapped "${A[@]}" --output=/dev/stdout > "$BATS_TEST_TMPDIR/o.maf"
    [ "$(sha256sum < "$BATS_TEST_TMPDIR/o.maf")" = "$want" ]
    ln -s "$BATS_TEST_TMPDIR/victim" "$BATS_TEST_TMPDIR/lnk"
    run "$HSPZ" gapped "${A[@]}" --output="$BATS_TEST_TMPDIR/lnk"
    [ "$status" -ne 0 ] && [[ "$output" == *"symbolic link; refused"* ]] && [ ! -e "$BATS_TEST_TMPDIR/victim" ]
}

@test "gapped drop-in: open failures, empty files and a too-small --allocate:traceback give lastz's stderr and exit status" {
    command -v lastz >/dev/null || skip "lastz is not installed: this case compares with live lastz"
    cd "$HSPZ_SHARED/golden/lastz-gapped/edge_cases_synthetic/trim_initial_indel"
    local E="$BATS_TEST_TMPDIR/empty.fa" n=0; : > "$E"
    local cases=("nope.fa q.fa --segments=s.seg" "t.fa nope.fa --segments=s.seg" "t.fa q.fa --segments=nope"
        "t.fa q.fa --segments=s.seg --scores=nope" "t.fa q.fa --segments=s.seg --allocate:traceback=10"
        "t.fa q.fa --segments=s.seg --allocate:traceback=500" "t.fa q.fa --segments=s.seg --traceback=99K"
        "t.fa q.fa --segments=s.seg --traceback=101377" "$E q.fa --segments=s.seg" "t.fa $E --segments=s.seg"
        "$E[multiple] q.fa --segments=s.seg")
    for c in "${cases[@]}"; do
        local ls lr hs hr
        ls=$(lastz $c --format=maf 2>&1 >/dev/null) && lr=0 || lr=$?
        hs=$("$HSPZ" gapped $c --format=maf 2>&1 >/dev/null) && hr=0 || hr=$?
        echo "[$c] lastz $lr: $ls | hspz $hr: $hs"
        [ "$lr" -ne 0 ] && [ -n "$ls" ] && [ "$hs" = "$ls" ] && [ "$hr" = "$lr" ]
        n=$((n + 1))
    done
    [ "$n" -eq 11 ]
}

@test "gapped --outdir: '#' comment and blank lines of lastz-commands.txt are skipped; a refused line names its reason, not a missing .err" {
    local D="$HSPZ_SHARED/data/tiny_kegalign_apple_vs_orange_SYNTHETIC" d="$BATS_TEST_TMPDIR/oc"
    local G="$HSPZ_SHARED/golden/lastz-gapped/tiny_kegalign_apple_vs_orange_SYNTHETIC/maf"
    mkdir -p "$d"; hz_run run -r "$D/apple.fasta.gz" -q "$D/orange.fasta.gz" -o "$d/OUT" --threads 1 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    local C="$d/OUT/lastz-commands.txt" first; first=$(head -1 "$C")
    { echo "# edited by hand"; echo; cat "$C"; echo "   # lastz --nonsense"; } > "$d/c" && cat "$d/c" > "$C"
    run "$HSPZ" gapped --outdir "$d/OUT" -r "$D/apple.fasta.gz" -q "$D/orange.fasta.gz" --threads 1
    echo "$output"; [ "$status" -eq 0 ]
    local f k=0
    for f in "$G"/tmp1.*.maf-*; do b=$(basename "${f%.gz}"); case $f in *.gz) gunzip -c "$f" | cmp - "$d/OUT/$b" ;; *) cmp "$f" "$d/OUT/$b" ;; esac; k=$((k + 1)); done
    [ "$k" -gt 0 ]
    # a line refused before it runs: its 2> file is a symbolic link, so no .err is written
    local e; e=$(sed -n 's/.*2> *\([^ ]*\)$/\1/p' <<< "$first"); e=${e//\'/}
    [ -n "$e" ]; rm -f "$d/OUT/$e"; ln -s "$BATS_TEST_TMPDIR/elsewhere" "$d/OUT/$e"
    run "$HSPZ" gapped --outdir "$d/OUT" -r "$D/apple.fasta.gz" -q "$D/orange.fasta.gz" --threads 1 --force
    echo "$output"
    [ "$status" -ne 0 ]
    [[ "$output" == *"$e is a symbolic link; refused"* ]]
    [[ "$output" == *"no .err file was written for it"* ]] && [[ "$output" != *"see its .err"* ]]
    [ ! -e "$BATS_TEST_TMPDIR/elsewhere" ]
}

# both_ways ARGS...: lastz and hspz gapped on ARGS (each with --output=res.out): output, stderr
# and status equal; prints the alignment count
both_ways() {
    local rc
    rc=0; lastz "$@" --output=res.out 2> l.err || rc=$?; echo $rc > l.rc; mv res.out l.out 2>/dev/null || : > l.out
    rc=0; "$HSPZ" gapped "$@" --output=res.out 2> h.err || rc=$?; echo $rc > h.rc; mv res.out h.out 2>/dev/null || : > h.out
    for x in out err rc; do cmp l.$x h.$x || { echo "differs ($x): $*"; cat h.err l.err; return 1; }; done
    echo "equal ($(grep -c '^[0-9]' l.out || true) alignments, status $(cat l.rc)): $*"
}

@test "gapped live: --ambiguous with a score file's N row on lower-case n (lastz's alphabets: N-n and n-n score -P), matrices lastz reads as quantum or with a repeated label refused" {
    require_cmd lastz
    local d="$BATS_TEST_TMPDIR" sc amb n=0
    cd "$d"
    printf '>t\nnnnnnnnnnnnnnnnatgattagataaaaatgaattttaatattatcaaa\n' > t.fa
    printf '>q\ngtctactatatgagaattaattggtatctactaatctnnnnnnnnnnnnn\n' > q.fa
    printf 't\t39\t49\tq\t39\t49\t-\t3780\n' > s.seg
    local M='   A    C    G    T    N\nA  116 -210 -194 -127  -68\nC  -96   78 -133 -201  -12\nG -107 -151   46 -222  -36\nT -203 -124    7  131  -97\n'
    printf "gap_open_penalty = 464\ngap_extend_penalty = 59\ngapped_threshold = 2974\n${M}N  -95  -23 -166  -32  -14\n" > n5.txt
    printf "gap_open_penalty = 464\ngap_extend_penalty = 59\ngapped_threshold = 900\n${M}N  -95  -23 -166  -32  300\n" > n5hi.txt
    for sc in n5.txt n5hi.txt; do
        for amb in "" --ambiguous=n --ambiguous=n,163,93 --ambiguous=iupac,163,93 --ambiguous=n,400,5; do
            both_ways 't.fa[multiple]' q.fa --segments=s.seg --format=axt --scores=$sc $amb
            n=$((n + $(grep -c '^[0-9]' l.out || true)))
        done
    done
    [ "$n" -gt 0 ]                                      # some settings align, so the scores matter
    # lastz reads these as quantum matrices or fails them: refused, with the run-lastz line
    printf '    A   C   G   T\nA  91 -90 -25 -100\nC -90 100 -100 -25\nG -25 -100 100 -90\nT -100 -25 -90 91\nA 1 2 3 4\n' > dup.txt
    printf '    A   C   G\nA  91 -90 -25\nC -90 100 -100\nG -25 -100 100\n' > three.txt
    printf '    a   c   g   t\na  91 -90 -25 -100\nc -90 100 -100 -25\ng -25 -100 100 -90\nt -100 -25 -90 91\n' > lower.txt
    rm -f h.out
    for sc in dup.txt three.txt lower.txt; do
        run lastz 't.fa[multiple]' q.fa --segments=s.seg --format=axt --scores=$sc --output=l.out
        [ "$status" -ne 0 ]
        run "$HSPZ" gapped 't.fa[multiple]' q.fa --segments=s.seg --format=axt --scores=$sc --output=h.out
        [ "$status" -ne 0 ]
        [ "${#lines[@]}" -eq 1 ]
        [[ "$output" == "hspz gapped: $sc: "*"run lastz for it" ]]
        [ ! -e h.out ]
    done
    # a second --segments= or --scores= (Q=), a traceback size above an int: lastz's line and status
    for amb in "--segments=s.seg" "--scores=n5.txt Q=n5.txt" "--allocate:traceback=2G" "--traceback=2.1G"; do
        rc=0; lastz 't.fa[multiple]' q.fa --segments=s.seg $amb --output=l.out > /dev/null 2> l.err || rc=$?; echo $rc > l.rc
        rc=0; "$HSPZ" gapped 't.fa[multiple]' q.fa --segments=s.seg $amb --output=h.out 2> h.err || rc=$?; echo $rc > h.rc
        cmp l.err h.err
        cmp l.rc h.rc
        [ "$(cat h.rc)" = 1 ]
        [ ! -e h.out ]
    done
}

@test "gapped live: an empty [subset=] file and an --output that cannot be opened give lastz's message and status" {
    require_cmd lastz
    local d="$BATS_TEST_TMPDIR" rc
    cd "$d"
    printf '>t\nACGTTGCAACGTAGGCTAGCTAGGATCGATCGTAGCTAGCTAGCTGATCGA\n' > t.fa
    printf '>q\nACGTTGCAACGTAGGCTAGCTAGGATCGATCGTAGCTAGCTAGCTGATCGA\n' > q.fa
    printf 't\t1\t40\tq\t1\t40\t+\t3780\n' > s.seg
    : > empty.names
    both_ways 't.fa[multiple][subset=empty.names]' q.fa --segments=s.seg --format=axt
    [ "$(cat l.rc)" = 1 ]
    grep -q 'contigs-of-interest file is empty: empty.names' h.err
    rc=0; lastz 't.fa[multiple]' q.fa --segments=s.seg --format=axt --output="$d/no/such/x" 2> l.err || rc=$?; echo $rc > l.rc
    rc=0; "$HSPZ" gapped 't.fa[multiple]' q.fa --segments=s.seg --format=axt --output="$d/no/such/x" 2> h.err || rc=$?; echo $rc > h.rc
    cmp l.err h.err
    cmp l.rc h.rc
    grep -q 'for "wt"' l.err
}

@test "gapped live: [subset=] names after a FASTA's last record are ignored as lastz reads them (a 2bit, or a name missed mid-file, fails)" {
    require_cmd lastz
    local d="$BATS_TEST_TMPDIR" P="$HZ_REPO/tests/data/pseudocat_pseudopig_named" c T Q
    hz_run run -r "$P/pseudocat_named.fa" -q "$P/pseudopig_named.fa" -o "$d/run" --quiet --tarball
    [ "$status" -eq 0 ] || { show_run; return 1; }
    cd "$d"
    mkdir -p pk && tar xzf run.tar.gz -C pk
    { cat "$P/pseudocat_named.fa"; sed 's/^>cat/>cat2/' "$P/pseudocat_named.fa"; } > t2rec.fa
    printf 'cat\nnosuch\n' > t1; printf 'cat\nnosuch\ncat2\n' > t3; printf 'cat\ncat2\nnosuch\n' > t4
    printf 'pig1\npig2\npig3\nnosuch\n' > q1; printf 'pig1\nnosuch\n' > q2
    local ok=0 failed=0
    for c in "t2rec.fa[multiple][subset=t3]|$P/pseudopig_named.fa" "t2rec.fa[multiple][subset=t4]|$P/pseudopig_named.fa" \
             "$P/pseudocat_named.fa[multiple][subset=t1]|$P/pseudopig_named.fa" "$P/pseudocat_named.fa[multiple]|$P/pseudopig_named.fa[subset=q1]" \
             "$P/pseudocat_named.fa[multiple]|$P/pseudopig_named.fa[subset=q2]" "pk/galaxy/files/work/ref.2bit[multiple][subset=t1]|$P/pseudopig_named.fa"; do
        T=${c%%|*}; Q=${c##*|}
        both_ways "$T" "$Q" --segments=run/tmp1.block0.r0.plus.segments --strand=plus --format=axt
        if [ "$(cat l.rc)" = 0 ]; then ok=$((ok + 1)); else failed=$((failed + 1)); fi
    done
    [ "$ok" -eq 3 ]
    [ "$failed" -eq 3 ]
}

@test "gapped --outdir: --threads 0 is all cores as in hspz run (same bytes); an option without its value says so" {
    local d="$BATS_TEST_TMPDIR" P="$HZ_REPO/tests/data/pseudocat_pseudopig_named"
    hz_run run -r "$P/pseudocat_named.fa" -q "$P/pseudopig_named.fa" -o "$d/a" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    cp -r "$d/a" "$d/b"
    run "$HSPZ" gapped --outdir "$d/a" -r "$P/pseudocat_named.fa" -q "$P/pseudopig_named.fa" --threads 0
    [ "$status" -eq 0 ]
    run "$HSPZ" gapped --outdir "$d/b" -r "$P/pseudocat_named.fa" -q "$P/pseudopig_named.fa" --threads 1
    [ "$status" -eq 0 ]
    diff -r -x gapped-manifest.json "$d/a" "$d/b"
    [ "$(grep -c '^a ' "$d"/a/*.maf- | awk -F: '{t += $2} END {print t}')" -gt 0 ]
    # --outdir mode is hspz's own command: usage errors exit 2, as in hspz run (docs/cli.md "Exit status")
    run "$HSPZ" gapped --outdir
    [ "$status" -eq 2 ]
    [ "$output" = "hspz gapped: --outdir needs a value" ]
    run "$HSPZ" gapped --outdir "$d/a" -r "$P/pseudocat_named.fa" -q "$P/pseudopig_named.fa" --threads -1
    [ "$status" -eq 2 ]
    [[ "$output" == "hspz gapped: bad --threads '-1'"* ]]
}
