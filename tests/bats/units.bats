#!/usr/bin/env bats
# Scale-out (src/run/units.c, src/run/merge.c; README "Plan, units, merge"): hspz plan, hspz run
# --plan --unit, hspz merge.  The merged OUTDIR must be byte-identical to one hspz run.

load ../lib/common

AO=tests/data/apple_orange
MT=tests/data/tiny_mtdna_human_vs_orangutan
# apple/orange in 100 kb blocks: 4 x 4 block pairs (blocks_small golden settings)
SMALL=(--seq-block-size 100000 --lastz-interval-size 40000 --wga-chunk-size 15000)

setup() {
    require_hspz
}

# units_of PLAN — the unit ids, one a line, shuffled
units_of() {
    python3 -c 'import json, random, sys
ids = [u["id"] for u in json.load(open(sys.argv[1]))["units"]]
random.shuffle(ids); print("\n".join(map(str, ids)))' "$1"
}


@test "units: plan -> 16 units in shuffled order, 1 or 2 threads -> merge equals one run (files, tarball, digest, funnel)" {
    local d="$BATS_TEST_TMPDIR" i t=1
    hz_run plan -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/plan.json" "${SMALL[@]}" -D 50 --tarball --single-file
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [[ "$stderr" == "hspz: plan: 16 work units (4 target x 4 query blocks), "*" seed hits; wrote $d/plan.json" ]]
    for i in $(units_of "$d/plan.json"); do
        hz_run run --plan "$d/plan.json" --unit "$i" -o "$d/u$i" --quiet --threads $t
        [ "$status" -eq 0 ] || { show_run; return 1; }
        t=$((3 - t))
    done
    hz_run merge "$d/plan.json" "$d"/u* -o "$d/merged"
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [[ "$stderr" == "hspz: merge: 16 units from 16 folders; wrote "* ]]
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/single" "${SMALL[@]}" -D 50 --tarball --single-file --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    same_run "$d/single" "$d/merged"
    cmp "$d/single.tar.gz" "$d/merged.tar.gz"
    ls "$d/merged"/*.split1.segments >/dev/null && [ -s "$d/merged/all.segments" ]
    python3 - "$d/plan.json" "$d/merged/manifest.json" "$HZ_GOLDEN/apple_orange/blocks_small/case.json" <<'PY'
import json, sys
plan, man, case = (json.load(open(p)) for p in sys.argv[1:])
# the exact seed-hit counts of the plan add up to the run's raw anchors
assert plan["seed_hits"] == sum(u["seed_hits"] for u in plan["units"]) == man["funnel"]["anchors"], plan["seed_hits"]
assert man["canonical_digest_sha256"] == case["canonical_digest_sha256"]
assert man["unit"]["kind"] == "merge" and man["unit"]["ids"] == list(range(1, 17))
PY
    python3 -c 'import jsonschema' 2>/dev/null || return 0   # schema check: manifest.bats says why it skips
    python3 - docs/manifest.schema.json "$d/merged/manifest.json" "$d/u1/manifest.json" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
for p in sys.argv[2:]:
    jsonschema.Draft202012Validator(schema).validate(json.load(open(p)))
PY
}

@test "units: --max-unit-hits cuts a block pair into interval runs; the plan is deterministic; merge equals one run" {
    local d="$BATS_TEST_TMPDIR" i
    local opts=(--lastz-interval-size 1500 --wga-chunk-size 700)
    hz_run plan -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/p1.json" "${opts[@]}" --max-unit-hits 1500 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run plan -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/p2.json" "${opts[@]}" --max-unit-hits 1500 --quiet -t 1
    cmp "$d/p1.json" "$d/p2.json"
    python3 - "$d/p1.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
u = p["units"]
assert len(u) >= 6, len(u)
assert all(x["target_block"] == 0 and x["query_block"] == 0 for x in u)
ks = [x["intervals"] for x in u]
assert ks[0][0] == 1 and all(a[1] + 1 == b[0] for a, b in zip(ks, ks[1:])), ks     # contiguous, no gap
assert all(x["seed_hits"] <= 1500 or x["intervals"][0] == x["intervals"][1] for x in u)
PY
    for i in $(units_of "$d/p1.json"); do
        hz_run run --plan "$d/p1.json" --unit "$i" -o "$d/u$i" --quiet
        [ "$status" -eq 0 ] || { show_run; return 1; }
    done
    hz_run merge "$d/p1.json" "$d"/u* -o "$d/merged" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/single" "${opts[@]}" --quiet
    same_run "$d/single" "$d/merged"
}

@test "units: --unit takes lists and ranges; one folder of several units merges with the others" {
    local d="$BATS_TEST_TMPDIR"
    hz_run plan -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/plan.json" "${SMALL[@]}" --quiet
    hz_run run --plan "$d/plan.json" --unit 1-5,9 -o "$d/a" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run --plan "$d/plan.json" --unit 6,7,8,10-16 -o "$d/b" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["unit"]["ids"] == [1,2,3,4,5,9]' "$d/a/manifest.json"
    hz_run merge "$d/plan.json" "$d/b" "$d/a" -o "$d/m" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/s" "${SMALL[@]}" --quiet
    same_run "$d/s" "$d/m"
}

@test "units: bad sets are refused with one line, exit 1, nothing published, unit folders untouched" {
    local d="$BATS_TEST_TMPDIR" i
    hz_run plan -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/plan.json" "${SMALL[@]}" --tarball --quiet
    for i in $(seq 16); do hz_run run --plan "$d/plan.json" --unit $i -o "$d/u$i" --quiet; done
    hz_run plan -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/other.json" --quiet
    local before; before="$(cd "$d" && find u* -type f -exec sha256sum {} + | sort)"
    check() {   # check WANT ARGS... — merge fails with WANT in its one line, and leaves nothing
        local want="$1"; shift
        hz_run merge "$@" -o "$d/out"
        [ "$status" -eq 1 ] || { show_run; return 1; }
        [ "$(grep -c '' <<<"$stderr")" -eq 1 ] || { show_run; return 1; }
        [[ "$stderr" == "hspz: "*"$want"* ]] || { show_run; return 1; }
        [ ! -e "$d/out" ] && [ ! -e "$d/out.tar.gz" ] && ! compgen -G "$d/out.tmp-*" >/dev/null
    }
    check "14 of the 16 units of $d/plan.json are missing (the first: unit 3)" "$d/plan.json" "$d/u1" "$d/u2"
    cp -r "$d/u5" "$d/dup5"
    check "unit 5 is in two folders" "$d/plan.json" "$d"/u* "$d/dup5"
    check "made from another plan" "$d/other.json" "$d"/u*
    python3 - "$d/u7/manifest.json" "$d/old7" <<'PY'
import json, os, shutil, sys
src, dst = sys.argv[1], sys.argv[2]
shutil.copytree(os.path.dirname(src), dst)
m = json.load(open(src)); m["tool"]["version"] = "0.0.9"
json.dump(m, open(os.path.join(dst, "manifest.json"), "w"))
PY
    check "$d/old7: made by hspz 0.0.9" "$d/plan.json" "$d"/u[1-6] "$d/old7" "$d"/u[89] "$d"/u1[0-6]
    local seg; seg="$(ls "$d"/u1/*.segments | head -n 1)"
    cp -r "$d/u1" "$d/cut1"; truncate -s -7 "$d/cut1/$(basename "$seg")"
    check "truncated or changed?" "$d/plan.json" "$d/cut1" "$d"/u[2-9] "$d"/u1[0-6]
    check "not a unit folder" "$d/plan.json" "$d"/u* "$BATS_TEST_TMPDIR"
    # the inputs must be the plan's (by sha256)
    hz_run merge "$d/plan.json" "$d"/u* -o "$d/out" -q $AO/apple.fasta.gz
    [ "$status" -eq 1 ] && [[ "$stderr" == *"not the query of the plan $d/plan.json"* ]] && [ ! -e "$d/out" ]
    # merging never overwrites an input
    hz_run merge "$d/plan.json" "$d"/u* -o "$d/u3" --force
    [ "$status" -eq 1 ] && [[ "$stderr" == *"the unit folder $d/u3 is this folder"* ]]
    [ "$(cd "$d" && find u* -type f -exec sha256sum {} + | sort)" = "$before" ]
}

@test "units: run --plan takes only machine flags, valid ids and the plan's inputs" {
    local d="$BATS_TEST_TMPDIR"
    hz_run plan -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/plan.json" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run --plan "$d/plan.json" --unit 1 -o "$d/u" --xdrop 100
    [ "$status" -eq 2 ] && [[ "$stderr" == "hspz: -x/--xdrop: the plan $d/plan.json holds the settings;"* ]]
    hz_run run --plan "$d/plan.json" --unit 2 -o "$d/u"
    [ "$status" -eq 2 ] && [[ "$stderr" == "hspz: --unit 2: the plan $d/plan.json has units 1..1" ]]
    hz_run run --plan "$d/plan.json" -o "$d/u"
    [ "$status" -eq 2 ]
    hz_run run --plan "$d/plan.json" --unit 1 -o "$d/u" -r $MT/MT-orang.fa
    [ "$status" -eq 1 ] && [[ "$stderr" == "hspz: $MT/MT-orang.fa: not the target of the plan"* ]]
    hz_run run --plan /etc/hostname --unit 1 -o "$d/u"
    [ "$status" -eq 1 ] && [[ "$stderr" == "hspz: /etc/hostname: not a plan file"* ]]
    [ ! -e "$d/u" ]
    # a moved input (staged elsewhere, as Nextflow does) is accepted by its bytes
    cp $MT/MT-human.fa "$d/t.fa"; cp $MT/MT-orang.fa "$d/q.fa"
    hz_run run --plan "$d/plan.json" --unit 1 -o "$d/u" -r "$d/t.fa" -q "$d/q.fa" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    same_outputs "$d/u" "$HZ_GOLDEN/tiny_mtdna_human_vs_orangutan/default/segments"
    # a plan needs inputs it can read again
    hz_run plan -r $MT/MT-human.fa -q <(cat $MT/MT-orang.fa) -o "$d/fifo.json"
    [ "$status" -eq 1 ] && [[ "$stderr" == *"a plan needs regular input files"* ]] && [ ! -e "$d/fifo.json" ]
}

@test "units: run --plan and merge check OUTDIR before the inputs: with a FIFO target that nobody writes, the OUTDIR line comes first, at once" {
    local d="$BATS_TEST_TMPDIR"
    hz_run plan -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/plan.json" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run --plan "$d/plan.json" --unit 1 -o "$d/u" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    mkfifo "$d/never.fifo"
    status=0
    timeout 30 "$HSPZ" run --plan "$d/plan.json" --unit 1 -r "$d/never.fifo" -o "$d/no/u" 2>"$d/err" || status=$?
    [ "$status" -eq 1 ] && [ "$(cat "$d/err")" = "hspz: $d/no/u: the parent folder '$d/no' does not exist" ] ||
        { echo "run --plan: exit $status (124: it waited on the FIFO)"; cat "$d/err"; return 1; }
    status=0
    timeout 30 "$HSPZ" merge "$d/plan.json" "$d/u" -r "$d/never.fifo" -o "$d/no/m" 2>"$d/err" || status=$?
    [ "$status" -eq 1 ] && [ "$(cat "$d/err")" = "hspz: $d/no/m: the parent folder '$d/no' does not exist" ] ||
        { echo "merge: exit $status (124: it waited on the FIFO)"; cat "$d/err"; return 1; }
    [ ! -e "$d/no" ]
}

@test "units: a plan never overwrites an input or an existing file (without --force); an edited plan is refused" {
    local d="$BATS_TEST_TMPDIR"
    cp $MT/MT-orang.fa "$d/q.fa"
    local before; before="$(sha256sum <"$d/q.fa")"
    hz_run plan -r $MT/MT-human.fa -q "$d/q.fa" -o "$d/q.fa" --force
    [ "$status" -eq 2 ] && [[ "$stderr" == "hspz: $d/q.fa: the plan would overwrite the input $d/q.fa" ]]
    [ "$(sha256sum <"$d/q.fa")" = "$before" ]
    echo keep >"$d/keep.json"
    hz_run plan -r $MT/MT-human.fa -q "$d/q.fa" -o "$d/keep.json"
    [ "$status" -eq 1 ] && [[ "$stderr" == *"the plan file exists (use --force to replace it)" ]] && [ "$(cat "$d/keep.json")" = keep ]
    # a unit removed by hand, or settings changed under the units: refused by run --plan and merge
    hz_run plan -r $AO/apple.fasta.gz -q $AO/orange.fasta.gz -o "$d/p.json" "${SMALL[@]}" --quiet
    python3 - "$d/p.json" "$d/cut.json" "$d/blocks.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
cut = dict(p, units=p["units"][:-1])
json.dump(cut, open(sys.argv[2], "w"), indent=1)
blk = dict(p, config=p["config"].replace("seq_block_size: 100000", "seq_block_size: 200000"))
assert blk["config"] != p["config"]
json.dump(blk, open(sys.argv[3], "w"), indent=1)
PY
    hz_run run --plan "$d/cut.json" --unit 1-15 -o "$d/u"
    [ "$status" -eq 1 ] && [[ "$stderr" == *"its units do not cover the 16 intervals of its 4 x 4 blocks exactly once"* ]] && [ ! -e "$d/u" ]
    hz_run run --plan "$d/blocks.json" --unit 1 -o "$d/u"
    [ "$status" -eq 1 ] && [[ "$stderr" == *"2 x 2 blocks with its settings, but its units are of 4 x 4"* ]] && [ ! -e "$d/u" ]
    # merge -o inside a unit folder
    hz_run run --plan "$d/p.json" --unit 1-16 -o "$d/all" --quiet
    hz_run merge "$d/p.json" "$d/all" -o "$d/all/sub"
    [ "$status" -eq 1 ] && [[ "$stderr" == *"inside the unit folder $d/all"* ]] && [ ! -e "$d/all/sub" ]
}
