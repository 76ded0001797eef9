#!/usr/bin/env bats
# Provenance manifest (docs/manifest.md): OUTDIR/manifest.json of every successful run,
# OUTDIR.failed-manifest.json next to OUTDIR of a failed one; validated against
# docs/manifest.schema.json; real values checked against the files, the goldens and stderr.

load ../lib/common

AO=tests/data/apple_orange
AOR=$AO/apple.fasta.gz
AOQ=$AO/orange.fasta.gz
MT=tests/data/tiny_mtdna_human_vs_orangutan
GOLD=tests/golden/kegalign-v03
SCHEMA=docs/manifest.schema.json

setup() {
    require_hspz
    T="$BATS_TEST_TMPDIR"
    OUT="$T/out"
    unset HSPZ_GATE HSPZ_GATE_KERNEL HSPZ_DEVICE_SEEDS HSPZ_DEVICE_LONG HSPZ_DEVICE_DEDUP HSPZ_REF_BUCKETS HSPZ_GPU_TILE HSPZ_SYNC HSPZ_FAULT HSPZ_TRACE
}

# validate FILE — FILE is valid against the schema (python3 jsonschema, installed by
# container/deps.sh).
validate() {
    python3 -c 'import jsonschema' 2>/dev/null || skip "python3 jsonschema is not installed (container/deps.sh)"
    python3 - "$SCHEMA" "$1" <<'EOF'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))), key=str)
for e in errors[:10]:
    print("schema violation at /%s: %s" % ("/".join(map(str, e.absolute_path)), e.message))
sys.exit(1 if errors else 0)
EOF
}

# mf FILE EXPR: tests/lib/common.bash

golden_field() {
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$GOLD/$1/case.json" "$2"
}

@test "manifest: a run writes a valid manifest.json with real values" {
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" -t 2
    [ "$status" -eq 0 ] || { show_run; return 1; }
    local M="$OUT/manifest.json"
    [ -f "$M" ]
    validate "$M"
    [ "$(mf "$M" 'd["tool"]["name"]')" = hspz ]
    [ "$(mf "$M" 'd["tool"]["version"]')" = "$("$HSPZ" --version)" ]
    [ "$(mf "$M" 'd["run"]["status"]')" = completed ]
    [ "$(mf "$M" 'd["run"]["exit_status"]')" = 0 ]
    [ "$(mf "$M" 'd["run"]["error"]')" = null ]
    [ "$(mf "$M" '" ".join(d["run"]["command_line"])')" = "run -r $AOR -q $AOQ -o $OUT -t 2" ]
    [ "$(mf "$M" 'd["run"]["threads"]')" = 2 ]
    # backend: the same words as the stderr line
    local be
    be="$(sed -nE 's/^hspz: backend (.*); wrote .*/\1/p' "$T/stderr")"
    [ "$(mf "$M" 'd["hardware"]["backend"]')" = "$be" ]
    # inputs: size and sha256 of the files, records and bases of the sequences
    [ "$(mf "$M" 'd["inputs"][0]["path"]')" = "$AOR" ]
    [ "$(mf "$M" 'd["inputs"][0]["sha256"]')" = "$(sha256sum <"$AOR" | cut -d' ' -f1)" ]
    [ "$(mf "$M" 'd["inputs"][1]["sha256"]')" = "$(sha256sum <"$AOQ" | cut -d' ' -f1)" ]
    [ "$(mf "$M" 'd["inputs"][1]["bytes"]')" = "$(stat -c %s "$AOQ")" ]
    [ "$(mf "$M" 'd["inputs"][1]["records"]')" = "$(gzip -dc "$AOQ" | grep -c '^>')" ]
    [ "$(mf "$M" 'd["inputs"][1]["bases"]')" = "$(gzip -dc "$AOQ" | grep -v '^>' | tr -d '\n' | wc -c)" ]
    [ "$(mf "$M" 'd["inputs"][0]["format"]')" = fasta.gz ]
    # outputs: every other file of OUTDIR with its size, lines and sha256
    local f n=0
    for f in $(cd "$OUT" && ls | grep -v '^manifest.json$'); do
        local got
        got="$(mf "$M" "[(o['bytes'], o['lines'], o['sha256']) for o in d['outputs'] if o['name'] == '$f']")"
        [ "$got" = "[[$(stat -c %s "$OUT/$f"), $(grep -c '' "$OUT/$f"), \"$(sha256sum <"$OUT/$f" | cut -d' ' -f1)\"]]" ] ||
            { echo "$f: $got"; return 1; }
        n=$((n + 1))
    done
    [ "$(mf "$M" 'len(d["outputs"])')" = "$n" ]
    # canonical digest = the golden's, = RULES.md's shell definition
    [ "$(mf "$M" 'd["canonical_digest_sha256"]')" = "$(golden_field apple_orange/default canonical_digest_sha256)" ]
    [ "$(mf "$M" 'd["canonical_digest_sha256"]')" = "$(canonical_digest "$OUT")" ]
    [ "$(mf "$M" 'd["segment_lines"]')" = "$(golden_field apple_orange/default segment_lines)" ]
    # funnel: the numbers of the stderr funnel line
    local line k v
    line="$(sed -n 's/^hspz: funnel: //p' "$T/stderr")"
    set -- $line
    while [ $# -ge 2 ]; do
        [ "$(mf "$M" "d['funnel']['$1']")" = "$2" ] || { echo "funnel $1: $(mf "$M" "d['funnel']['$1']") != $2"; return 1; }
        shift 2
    done
    [ "$(mf "$M" 'd["funnel"]["segments_written"]')" = 1225 ]
    # plan: one block per side, one interval, 2 chunks per strand; one batch per chunk
    [ "$(mf "$M" 'd["plan"]')" = '{"target_blocks": 1, "query_blocks": 1, "intervals": 1, "work_units": 1, "chunks": 4}' ]
    [ "$(mf "$M" 'd["funnel"]["batches"]')" = 4 ]
    # time per stage: the stderr time line's stages are all there
    for k in load plan seedtable seeds anchors gate extend dedup output wall; do
        [ "$(mf "$M" "d['time_s']['$k'] >= 0")" = true ]
    done
    # configuration: values and sources
    [ "$(mf "$M" 'd["config"]["values"]["xdrop"]')" = '{"value": 910, "source": "default", "section": "extension"}' ]
    [ "$(mf "$M" 'd["config"]["values"]["threads"]["source"]')" = flag ]
    [ "$(mf "$M" 'd["config"]["file"]')" = null ]
    [ "$(mf "$M" 'd["environment"]')" = '{"HSPZ_GATE": null, "HSPZ_GATE_KERNEL": null, "HSPZ_DEVICE_SEEDS": null, "HSPZ_DEVICE_LONG": null, "HSPZ_DEVICE_DEDUP": null, "HSPZ_REF_BUCKETS": null, "HSPZ_GPU_TILE": null, "HSPZ_SYNC": null, "HSPZ_FAULT": null, "HSPZ_TRACE": null, "HSPZ_GAPPED_BATCH": null, "HSPZ_GAPPED_POOL": null, "HSPZ_GAPPED_STATS": null, "HSPZ_GAPPED_DEVICE": null}' ]
}

@test "manifest: run --gapped is valid and records the alignment files (bytes, lines, sha256), the stage and its time" {
    hz_run run -r "$MT/MT-human.fa" -q "$MT/MT-orang.fa" -o "$OUT" -t 2 --gapped --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    local M="$OUT/manifest.json" f n=0
    validate "$M"
    [ "$(mf "$M" 'd["gapped"]["commands"]')" = "$(grep -c '' "$OUT/lastz-commands.txt")" ]
    [ "$(mf "$M" 'd["gapped"]["threads"]')" = 2 ]
    [ "$(mf "$M" 'd["time_s"]["gapped"] >= 0 and d["time_s"]["gapped"] <= d["time_s"]["wall"]')" = true ]
    [ "$(mf "$M" 'd["config"]["values"]["gapped"]')" = '{"value": true, "source": "flag", "section": "output"}' ]
    for f in $(mf "$M" '" ".join(d["gapped"]["files"])'); do
        [ "$(mf "$M" "[(o['bytes'], o['lines'], o['sha256']) for o in d['outputs'] if o['name'] == '$f']")" = \
          "[[$(stat -c %s "$OUT/$f"), $(grep -c '' "$OUT/$f"), \"$(sha256sum <"$OUT/$f" | cut -d' ' -f1)\"]]" ] || { echo "$f"; return 1; }
        n=$((n + 1))
    done
    [ "$n" -eq $((2 * $(grep -c '' "$OUT/lastz-commands.txt"))) ]   # each line's .maf- and .err file
    [ "$(grep -c '^a ' "$OUT"/*.plus.maf-)" -gt 0 ]
    # the schema rejects a gapped section without its files
    python3 -c 'import json,sys; m = json.load(open(sys.argv[1])); del m["gapped"]["files"]; json.dump(m, open(sys.argv[2], "w"))' "$M" "$T/bad.json"
    run validate "$T/bad.json"
    [ "$status" -eq 1 ] && [[ "$output" == *"schema violation at /gapped"* ]]
}

@test "manifest: --no-hostname writes run.hostname null (a service hides its hosts)" {
    local d="$BATS_TEST_TMPDIR"
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/a" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run -r $MT/MT-human.fa -q $MT/MT-orang.fa -o "$d/b" --quiet --no-hostname
    [ "$status" -eq 0 ] || { show_run; return 1; }
    python3 - "$d/a/manifest.json" "$d/b/manifest.json" "$(hostname)" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["run"]["hostname"] == sys.argv[3], a["run"]["hostname"]
assert b["run"]["hostname"] is None, b["run"]["hostname"]
assert sys.argv[3] not in open(sys.argv[2]).read()
EOF
}

@test "manifest: written last and atomically (no temp file, newest file of OUTDIR)" {
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ -z "$(ls -A "$OUT" | grep -F '.tmp-' || true)" ]
    [ -z "$(find "$OUT" -newer "$OUT/manifest.json" -type f)" ]
    [ ! -e "$OUT.failed-manifest.json" ]
}

@test "manifest: canonical digest is the same for --threads 1, --threads 2 and a repeated run" {
    local d1 d2 d3
    hz_run run -r "$AOR" -q "$AOQ" -o "$T/t1" --threads 1 --quiet; [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run -r "$AOR" -q "$AOQ" -o "$T/t2" --threads 2 --quiet; [ "$status" -eq 0 ] || { show_run; return 1; }
    hz_run run -r "$AOR" -q "$AOQ" -o "$T/t3" --threads 2 --quiet; [ "$status" -eq 0 ] || { show_run; return 1; }
    d1="$(mf "$T/t1/manifest.json" 'd["canonical_digest_sha256"]')"
    d2="$(mf "$T/t2/manifest.json" 'd["canonical_digest_sha256"]')"
    d3="$(mf "$T/t3/manifest.json" 'd["canonical_digest_sha256"]')"
    [ "$d1" = "$d2" ] && [ "$d2" = "$d3" ]
    [ "$d1" = "$(golden_field apple_orange/default canonical_digest_sha256)" ]
    # the reproducible part: outputs and funnel counts are equal too
    [ "$(mf "$T/t1/manifest.json" 'd["outputs"]')" = "$(mf "$T/t2/manifest.json" 'd["outputs"]')" ]
    [ "$(mf "$T/t1/manifest.json" 'd["funnel"]')" = "$(mf "$T/t3/manifest.json" 'd["funnel"]')" ]
}

@test "manifest: digest of several blocks and of the mtDNA pair equal the goldens" {
    hz_run run -r "$AOR" -q "$AOQ" -o "$T/b" --seq-block-size 100000 --lastz-interval-size 40000 --wga-chunk-size 15000 --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ "$(mf "$T/b/manifest.json" 'd["canonical_digest_sha256"]')" = "$(golden_field apple_orange/blocks_small canonical_digest_sha256)" ]
    [ "$(mf "$T/b/manifest.json" 'd["plan"]["target_blocks"]')" = 4 ]
    validate "$T/b/manifest.json"
    hz_run run -r "$MT/MT-human.fa" -q "$MT/MT-orang.fa" -o "$T/m" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ "$(mf "$T/m/manifest.json" 'd["canonical_digest_sha256"]')" = "$(golden_field tiny_mtdna_human_vs_orangutan/default canonical_digest_sha256)" ]
    [ "$(mf "$T/m/manifest.json" 'd["inputs"][0]["format"]')" = fasta ]
}

@test "manifest: config file, sources and HSPZ_* variables are recorded" {
    printf 'extension:\n  hspthresh: 2000\n  xdrop: 600\n' >"$T/c.yaml"
    HSPZ_GATE=full HSPZ_GPU_TILE=8192 hz_run run --config "$T/c.yaml" --xdrop 500 -r "$AOR" -q "$AOQ" -o "$OUT" --device cpu --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    local M="$OUT/manifest.json"
    validate "$M"
    [ "$(mf "$M" 'd["config"]["file"]["path"]')" = "$T/c.yaml" ]
    [ "$(mf "$M" 'd["config"]["file"]["sha256"]')" = "$(sha256sum <"$T/c.yaml" | cut -d' ' -f1)" ]
    [ "$(mf "$M" 'd["config"]["values"]["hspthresh"]')" = '{"value": 2000, "source": "file", "section": "extension"}' ]
    [ "$(mf "$M" 'd["config"]["values"]["xdrop"]')" = '{"value": 500, "source": "flag", "section": "extension"}' ]
    [ "$(mf "$M" 'd["config"]["values"]["ydrop"]["source"]')" = default ]
    [ "$(mf "$M" 'd["config"]["values"]["device"]')" = '{"value": "cpu", "source": "flag", "section": "devices"}' ]
    [ "$(mf "$M" 'd["environment"]["HSPZ_GATE"]')" = full ]
    [ "$(mf "$M" 'd["environment"]["HSPZ_GPU_TILE"]')" = 8192 ]
    [ "$(mf "$M" 'd["environment"]["HSPZ_DEVICE_SEEDS"]')" = null ]
    # on the CPU the chosen kernels are the CPU ones whatever the variables say
    [ "$(mf "$M" 'd["kernels"]')" = '{"backend": "cpu", "seed_table": "host", "seeding": "host", "gate": "cpu", "gate_kernel": "cpu", "ref_buckets": "off", "ref_buckets_setting": "off", "gpu_tile": "none"}' ]
    [ "$(mf "$M" 'd["gpu"]')" = null ]
    [ "$(mf "$M" 'd["canonical_digest_sha256"]')" = "$(golden_field apple_orange/hsp2000_x500 canonical_digest_sha256)" ]
}

@test "manifest: a failed run leaves no OUTDIR but OUTDIR.failed-manifest.json saying why" {
    # README: "a failed run leaves OUTDIR.failed-manifest.json"
    hz_run run -r "$AOR" -q "$T/missing.fa" -o "$OUT"
    assert_one_error_line 1
    assert_no_outdir "$OUT"
    local F="$OUT.failed-manifest.json"
    [ -f "$F" ] || { ls -la "$T"; return 1; }
    validate "$F"
    [ "$(mf "$F" 'd["run"]["status"]')" = failed ]
    [ "$(mf "$F" 'd["run"]["exit_status"]')" = 1 ]
    # the error is the stderr line
    [ "hspz: $(mf "$F" 'd["run"]["error"]')" = "$(cat "$T/stderr" | grep -v '^hspz: note: ')" ]
    [[ "$(mf "$F" 'd["run"]["error"]')" == *"$T/missing.fa"* ]]
    [ "$(mf "$F" 'd["outputs"]')" = '[]' ]
    [ "$(mf "$F" 'd["canonical_digest_sha256"]')" = null ]
    # the target was read, the query could not be
    [ "$(mf "$F" 'd["inputs"][0]["sha256"]')" = "$(sha256sum <"$AOR" | cut -d' ' -f1)" ]
    [ "$(mf "$F" 'd["inputs"][1]["sha256"]')" = null ]
    [ "$(mf "$F" 'd["inputs"][1]["records"]')" = null ]
    [ -z "$(ls "$T" | grep -F '.tmp-' || true)" ]
}

@test "manifest: a refused OUTDIR is left untouched and gets no failure manifest; a later good run removes a stale one" {
    # issue 31 review: a refusal of the output path before any work leaves nothing (as a usage error)
    mkdir -p "$OUT"; echo keep >"$OUT/mine.txt"
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT/"
    assert_one_error_line 1; assert_stderr_matches "not empty"
    [ "$(ls "$OUT")" = mine.txt ]
    local F="$OUT.failed-manifest.json"
    [ ! -e "$F" ]
    echo u >"$T/userfile.txt"
    hz_run run -r "$AOR" -q "$AOQ" -o "$T/userfile.txt" --force
    assert_one_error_line 1; [ ! -e "$T/userfile.txt.failed-manifest.json" ]; [ "$(cat "$T/userfile.txt")" = u ]
    mkdir "$T/real"; ln -s real "$T/lnk"
    hz_run run -r "$AOR" -q "$AOQ" -o "$T/lnk"
    assert_one_error_line 1; [ ! -e "$T/lnk.failed-manifest.json" ]
    # the user empties it (--force replaces only a folder hspz wrote); a failing run leaves F
    rm "$OUT/mine.txt"
    hz_run run -r "$AOR" -q "$T/missing.fa" -o "$OUT"
    assert_one_error_line 1
    validate "$F"
    [[ "$(mf "$F" 'd["run"]["error"]')" == *"missing.fa"* ]]
    # filled in place; the stale failure manifest goes
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ ! -e "$F" ]
    [ -f "$OUT/manifest.json" ] && [ ! -e "$OUT/mine.txt" ]
}

@test "manifest: a user's file named OUTDIR.failed-manifest.json is never replaced nor removed" {
    # issue 31 review: only files this run created are replaced
    local F="$OUT.failed-manifest.json"
    echo mine >"$F"
    hz_run run -r "$AOR" -q "$T/missing.fa" -o "$OUT"
    assert_one_error_line 1
    assert_stderr_matches "note: .*failed-manifest.json exists and is not replaced"
    [ "$(cat "$F")" = mine ]
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ "$(cat "$F")" = mine ]
}

@test "manifest: usage errors (exit 2) and dry runs write no manifest" {
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --xdrop abc
    assert_one_error_line 2
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --dry-run
    [ "$status" -eq 0 ] || { show_run; return 1; }
    [ -z "$(ls -A "$T" | grep -v -E '^(stdout|stderr)$' || true)" ] || { ls -la "$T"; return 1; }
}

@test "manifest: the schema rejects a manifest without a digest or with a bad status" {
    python3 -c 'import jsonschema' 2>/dev/null || skip "python3 jsonschema is not installed (container/deps.sh)"
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    python3 - "$OUT/manifest.json" "$T" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
a = json.loads(json.dumps(d)); a["canonical_digest_sha256"] = None
b = json.loads(json.dumps(d)); b["run"]["status"] = "ok"
c = json.loads(json.dumps(d)); c["config"]["values"]["xdrop"]["source"] = "env"
for n, x in (("a", a), ("b", b), ("c", c)):
    json.dump(x, open(sys.argv[2] + "/bad_" + n + ".json", "w"))
EOF
    local f
    for f in "$T"/bad_*.json; do
        ! validate "$f" >/dev/null || { echo "accepted: $f"; return 1; }
    done
}

@test "manifest: --single-file does not count all.segments in the canonical digest" {
    local o="$BATS_TEST_TMPDIR/sf"
    hz_run run -r tests/data/tiny_mtdna_human_vs_orangutan/MT-human.fa \
        -q tests/data/tiny_mtdna_human_vs_orangutan/MT-orang.fa -o "$o" --single-file --quiet
    [ "$status" -eq 0 ]
    [ -s "$o/all.segments" ]
    want=$(cat "$o"/tmp*.segments | LC_ALL=C sort | sha256sum | cut -d' ' -f1)
    got=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['canonical_digest_sha256'])" "$o/manifest.json")
    [ "$got" = "$want" ]
    [ "$got" = 1d9dab2c2ceeb2ff655631165b3e7ce1d434b5e1ef82c823b8812ce47f2ebfc3 ]
}

@test "manifest: an input that is not a regular file is read once and hashed while read (no hang on /dev/zero, FIFOs)" {
    local d="$BATS_TEST_TMPDIR" mt=tests/data/tiny_mtdna_human_vs_orangutan
    # /dev/zero: the input error, then the failure manifest, within seconds (it spun forever)
    HSPZ_TIMEOUT=30 hz_run run -r $mt/MT-human.fa -q /dev/zero -o "$d/z"
    [ "$status" -eq 1 ] || { show_run; return 1; }
    [[ "$stderr" == "hspz: /dev/zero: not FASTA"* ]]
    # a named FIFO (the manifest step hung reopening it; then it recorded null)
    mkfifo "$d/q.fifo"
    ( cat $mt/MT-orang.fa >"$d/q.fifo" & )
    HSPZ_TIMEOUT=30 hz_run run -r $mt/MT-human.fa -q "$d/q.fifo" -o "$d/f" --quiet
    [ "$status" -eq 0 ] || { show_run; return 1; }
    same_outputs "$d/f" "$HZ_GOLDEN/tiny_mtdna_human_vs_orangutan/default/segments"
    python3 - "$d/z.failed-manifest.json" "$d/f/manifest.json" "$(sha256sum <$mt/MT-orang.fa | cut -d' ' -f1)" <<'PY'
import json, sys
z = json.load(open(sys.argv[1]))["inputs"]
assert z[1]["role"] == "query" and z[1]["bytes"] is None and z[1]["sha256"] is None, z[1]   # not loaded
f = json.load(open(sys.argv[2]))["inputs"]
for q in (z[0], f[0]):
    assert q["bytes"] == 16856 and len(q["sha256"]) == 64, q
assert f[1]["records"] == 1 and f[1]["bases"] == 16499, f[1]
assert f[1]["bytes"] == 16797 and f[1]["sha256"] == sys.argv[3], f[1]   # the FIFO's bytes, as read
PY
}

@test "manifest: -D (automatic) records the N it chose in diagonal_partition_auto_n and says it once on stderr" {
    # issue 31 review: the automatic N was nowhere to be found after the run
    hz_run run -r "$AOR" -q "$AOQ" -o "$OUT" -D
    [ "$status" -eq 0 ] || { show_run; return 1; }
    validate "$OUT/manifest.json"
    local n; n=$(mf "$OUT/manifest.json" 'd["diagonal_partition_auto_n"]')
    [ "$n" -gt 0 ]
    [ "$(grep -c "^hspz: note: --diagonal-partition automatic: N = $n\$" "$T/stderr")" -eq 1 ]
    # the split files hold at most N lines each (KegAlign's split of the files above N)
    local f
    for f in "$OUT"/*.split*.segments; do [ "$(wc -l <"$f")" -le "$n" ]; done
    compgen -G "$OUT/*.split*.segments" >/dev/null
    hz_run run -r "$AOR" -q "$AOQ" -o "$T/q" -D auto --quiet
    [ "$status" -eq 0 ] && [ ! -s "$T/stderr" ]
    [ "$(mf "$T/q/manifest.json" 'd["diagonal_partition_auto_n"]')" = "$n" ]
    hz_run run -r "$AOR" -q "$AOQ" -o "$T/f" -D 5 --quiet
    [ "$(mf "$T/f/manifest.json" 'd.get("diagonal_partition_auto_n", "absent")')" = absent ]
}
