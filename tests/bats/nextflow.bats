#!/usr/bin/env bats
# workflows/nextflow without Nextflow (README "Nextflow"): tests/nextflow/harness.py renders
# every process template as Nextflow would and drives plan -> units -> merge (-> hspz gapped, or
# lastz per command), comparing the alignments with Debian's lastz on the same command lines.

load ../lib/common

setup() {
    require_hspz
}

@test "nextflow: the test profile's DAG (plan, 16 units in 6 shuffled tasks, merge, hspz gapped on 20 commands) = one hspz run + Debian's lastz" {
    require_cmd lastz
    run python3 tests/nextflow/harness.py --hspz "$HSPZ" --profile test --work "$BATS_TEST_TMPDIR/w" --seed 7
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"nextflow-harness: ok: 16 units in 6 tasks"*"merge == one hspz run"*"tarball), report"*"; 1 hspz gapped task ("?" cpus, 20 commands) -> MAF == lastz on the package's commands in order (38 alignment blocks)"* ]]
    [ "$(head -n 1 "$BATS_TEST_TMPDIR/w/results/apple_orange.maf")" = "##maf version=1" ]
    [ "$(grep -c '^a score=' "$BATS_TEST_TMPDIR/w/results/apple_orange.maf")" -eq 38 ]
    # the task ran hspz gapped on a folder of links (the merged folder is only read)
    # with batched_lastz's traceback memory appended to every line by hspz (no copy of lastz-commands.txt)
    grep -q "^    hspz gapped --outdir gapped -r 'apple.fasta.gz' -q 'orange.fasta.gz' --threads [123] --allocate:traceback=1.99G\$" "$BATS_TEST_TMPDIR"/w/work/*-gapped/.command.sh
    [ -L "$(echo "$BATS_TEST_TMPDIR"/w/work/*-gapped/gapped/lastz-commands.txt)" ]
    [ "$(mf "$BATS_TEST_TMPDIR"/w/work/*-gapped/gapped/gapped-manifest.json 'd["settings"]["traceback"]["value"]')" = --allocate:traceback=1.99G ]
    [ "$(find "$BATS_TEST_TMPDIR"/w/work/*-gapped/gapped -name '*.segments' -type l | wc -l)" -eq 20 ]
}

@test "nextflow: units cut by --max-unit-hits, one unit a task, another seed: merge equals one hspz run" {
    run python3 tests/nextflow/harness.py --hspz "$HSPZ" --work "$BATS_TEST_TMPDIR/w" --seed 3 \
        --target tests/data/tiny_mtdna_human_vs_orangutan/MT-human.fa --query tests/data/tiny_mtdna_human_vs_orangutan/MT-orang.fa \
        --hspz-args "--lastz-interval-size 1500 --wga-chunk-size 700" --max-unit-hits 1500 --units-per-task 1 --min-units 6
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == "nextflow-harness: ok: "*" units in "*" tasks"* ]]
}

@test "nextflow: the template renderer refuses what Nextflow would not render the same (bare \$, unknown names)" {
    python3 - <<'PY'
import sys
sys.path.insert(0, "tests/nextflow")
import harness as h
ctx = dict(h.task_ctx("P", 2, args=None), meta={"id": "x"}, units="1,2", dirs=["u/a", "u/b"])
def render(text):
    open("/tmp/hz-tpl-test.sh", "w").write(text)
    return h.render("/tmp/hz-tpl-test.sh", ctx)
assert render("a ${meta.id} ${task.ext.args ?: ''} ${task.cpus} ${dirs} \\$HOME") == "a x  2 u/a u/b $HOME"
assert render("${task.accelerator ? task.accelerator.request : 0}") == "0"
assert render("${task.ext.prefix}") == "null"          # Groovy renders null as "null"
for bad in ("echo $HOME", "${nosuch}", "${meta.id + 1}"):
    try:
        render(bad)
    except h.TemplateError:
        continue
    sys.exit("rendered: " + bad)
PY
}

@test "nextflow: meta.yml and environment.yml of every module are valid against ../shared's nf-core schemas" {
    require_shared
    python3 -c 'import yaml, jsonschema' 2>/dev/null || skip "python3 yaml and jsonschema are needed (container/deps.sh installs them)"
    python3 - "$HSPZ_SHARED/schemas/nf-core" <<'PY'
import glob, json, sys, yaml, jsonschema
d = sys.argv[1]
meta = json.load(open(d + "/modules-meta-schema.json"))
env = json.load(open(d + "/modules-environment-schema.json"))
mods = sorted(glob.glob("workflows/nextflow/modules/local/hspz/*/"))
assert len(mods) == 5, mods
for m in mods:
    jsonschema.validate(yaml.safe_load(open(m + "meta.yml")), meta)
    jsonschema.validate(yaml.safe_load(open(m + "environment.yml")), env)
    main = open(m + "main.nf").read()
    for need in ("stub:", "task.ext.when == null || task.ext.when", "topic: versions", "template '", "label '"):
        assert need in main, (m, need)
    y = yaml.safe_load(open(m + "meta.yml"))
    tool = "lastz" if m.endswith("/lastz/") else "hspz"
    assert "versions_" + tool in y["output"] and y["output"]["versions_" + tool] == y["topics"]["versions"], m
    assert all(list(t.values())[0].get("homepage", "").startswith("https://") for t in y["tools"]), m
    assert y["authors"] == ["@hspz"], m
print("ok", len(mods))
PY
}

# main.nf's Groovy functions run with Debian's groovy (Nextflow is Groovy; its runtime is not
# installable here).  $1: Groovy statements after functions.nf.
require_groovy() {
    [ -f workflows/nextflow/functions.nf ] || { echo "no workflows/nextflow/functions.nf"; return 1; }
    command -v groovy >/dev/null || skip "groovy is needed to run main.nf's functions (apt-get install groovy)"
}
run_functions() {
    local java; java=$(readlink -f "$(command -v java)")
    { echo 'def error(String m) { throw new IllegalArgumentException(m) }'
      cat workflows/nextflow/functions.nf; printf '%s\n' "$1"; } >"$BATS_TEST_TMPDIR/t.groovy"
    JAVA_HOME="${java%/bin/java}" groovy "$BATS_TEST_TMPDIR/t.groovy"
}

@test "nextflow: command-line values are Strings: --gapped false is false, --units_per_task 2 is 2 (main.nf parses them)" {
    grep -q "def gapped = asBool('gapped', params.gapped)" main.nf
    ! grep -nE "if \(params\.gapped|params\.gapped \?|params\.gpu" main.nf nextflow.config
    grep -q "def per_task = asInt('units_per_task', params.units_per_task)" main.nf
    require_groovy
    run run_functions "
assert asBool('gapped', 'false') == false && asBool('gapped', 'False ') == false
assert asBool('gapped', 'true') == true && asBool('gapped', true) == true && asBool('gapped', false) == false
assert asInt('units_per_task', '2') == 2 && asInt('units_per_task', 3) == 3 && asInt('max_unit_hits', ' 0') == 0
try { asInt('units_per_task', '2x'); assert false } catch (IllegalArgumentException e) { println(e.message) }
try { asBool('gapped', 'flase'); assert false } catch (IllegalArgumentException e) { println(e.message) }"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "--units_per_task: '2x' is not a whole number
--gapped: 'flase' is neither true nor false" ]
}

@test "nextflow: main.nf names the final file by --format as batched_lastz does (functions.nf against the harness's table)" {
    grep -q 'def format = lastzFormat(hspz_args)' main.nf
    grep -q 'name: "${params.id}.${alignmentExtension(format)}"' main.nf
    require_groovy
    run run_functions "
assert lastzFormat('--tarball') == 'maf-' && lastzFormat('--format axt --tarball') == 'axt' && lastzFormat('--format=general- --format sam') == 'sam'
println(['maf-','maf','maf+','axt','axt+','sam','sam-','softsam','softsam-','cigar','differences','lav','lav+text','general','general-','general:name1,score'].collect { f -> f + '=' + alignmentExtension(f) + ':' + alignmentHeader(f).size() }.join(' '))"
    echo "$output"
    [ "$status" -eq 0 ]
    python3 - "$output" <<'PY'
import sys
sys.path.insert(0, "tests/nextflow")
import harness
got = dict(x.split("=", 1) for x in sys.argv[1].split())
for f, v in got.items():
    kind = harness.FORMAT_KIND.get(f, "tabular")
    assert v == "%s:%d" % (kind, 16 if kind == "maf" else 0), (f, v)
PY
}

@test "nextflow: with --format axt (no --tarball) hspz gapped gives one .axt file (no MAF header) equal to Debian's lastz on the commands" {
    require_cmd lastz
    run python3 tests/nextflow/harness.py --hspz "$HSPZ" --work "$BATS_TEST_TMPDIR/w" --gapped --min-units 1 \
        --target tests/data/tiny_mtdna_human_vs_orangutan/MT-human.fa --query tests/data/tiny_mtdna_human_vs_orangutan/MT-orang.fa \
        --hspz-args "--format axt"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"1 hspz gapped task ("?" cpus, 1 commands) -> AXT == lastz on the package's commands in order"* ]]
    [ ! -e "$BATS_TEST_TMPDIR/w/work/"*-merge/pair.tar.gz ]               # no package was needed
    [ "${lines[-1]}" = "final: $BATS_TEST_TMPDIR/w/results/pair.axt" ]
    [ -s "$BATS_TEST_TMPDIR/w/results/pair.axt" ]
    ! grep -q '^##maf' "$BATS_TEST_TMPDIR/w/results/pair.axt"       # a MAF header only before MAF
    grep -q '^0 ' "$BATS_TEST_TMPDIR/w/results/pair.axt"            # axt's first alignment block
}

@test "nextflow: --gapped_tool lastz: HSPZ_LASTZ gives lastz --allocate:traceback=1.99G, tolerates its truncation notes, fails on any other stderr line" {
    mkdir -p "$BATS_TEST_TMPDIR/bin"
    cat >"$BATS_TEST_TMPDIR/bin/lastz" <<SH
#!/bin/sh
echo "\$*" >> "$BATS_TEST_TMPDIR/argv"
[ -z "\${HZ_PLANT:-}" ] || echo "\$HZ_PLANT" >&2
exec /usr/bin/lastz "\$@"
SH
    chmod +x "$BATS_TEST_TMPDIR/bin/lastz"
    local pair=(--target tests/data/tiny_mtdna_human_vs_orangutan/MT-human.fa --query tests/data/tiny_mtdna_human_vs_orangutan/MT-orang.fa --min-units 1 --gapped --gapped-tool lastz --path "$BATS_TEST_TMPDIR/bin")
    run python3 tests/nextflow/harness.py --hspz "$HSPZ" --work "$BATS_TEST_TMPDIR/w1" "${pair[@]}"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"; 1 lastz tasks -> MAF == lastz on the package's commands in order"* ]]
    grep -c -- '--allocate:traceback=1.99G' "$BATS_TEST_TMPDIR/argv"
    [ "$(grep -c -- '--allocate:traceback=1.99G$' "$BATS_TEST_TMPDIR/argv")" -eq "$(wc -l < "$BATS_TEST_TMPDIR/argv")" ]
    # 200K of traceback cuts MT's long alignments: lastz notes the truncations, the task passes,
    # and the MAF is that of lastz run by hand with the same memory
    run python3 tests/nextflow/harness.py --hspz "$HSPZ" --work "$BATS_TEST_TMPDIR/w2" "${pair[@]}" --lastz-args=--allocate:traceback=200K
    echo "$output"
    [ "$status" -eq 0 ]
    grep -q '^truncating alignment ending at ([0-9]*,[0-9]*);  anchor at' "$BATS_TEST_TMPDIR"/w2/work/*-lastz/.command.err
    # any other line on lastz's stderr fails the task
    HZ_PLANT="lastz: something else" run python3 tests/nextflow/harness.py --hspz "$HSPZ" --work "$BATS_TEST_TMPDIR/w3" "${pair[@]}"
    echo "$output"
    [ "$status" -ne 0 ]
    [[ "$output" == *"lastz: something else"*"lastz failed (exit 0) or wrote more than truncation notes"* ]]
}

@test "nextflow: a plan without units merges from no folders and publishes one run's empty output; unit folders sorted for -resume" {
    printf '>short\nACGTACGTAC\n' >"$BATS_TEST_TMPDIR/short.fa"
    run python3 tests/nextflow/harness.py --hspz "$HSPZ" --work "$BATS_TEST_TMPDIR/w" --min-units 0 --gapped \
        --target tests/data/tiny_mtdna_human_vs_orangutan/MT-human.fa --query "$BATS_TEST_TMPDIR/short.fa"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == "nextflow-harness: ok: 0 units in 0 tasks"*"merge == one hspz run"*"1 hspz gapped task ("?" cpus, 0 commands) -> MAF"* ]]
    [ "$(cat "$BATS_TEST_TMPDIR/w/results/pair.maf")" = "##maf version=1" ]
    # main.nf (Groovy, not run here): the grouped folders sorted by name and joined with
    # remainder: true (the lint in .ci/nextflow.sh plants each violation)
    grep -q "\.join(HSPZ_RUN\.out\.unit\.groupTuple(sort: { a, b -> a\.name <=> b\.name }), remainder: true)" main.nf
    grep -q "dirs ?: \[\]" main.nf
}

@test "nextflow: nextflow run <repository> finds main.nf and its config; includes and the test profile's files exist" {
    grep -q "^    mainScript      = 'main.nf'" nextflow.config
    [ -f main.nf ] && [ ! -e workflows/nextflow/main.nf ] && [ ! -e workflows/nextflow/nextflow.config ]
    sed -n "s/^include .* from '\.\/\(.*\)'$/\1.nf/p" main.nf >"$BATS_TEST_TMPDIR/inc"
    [ "$(wc -l < "$BATS_TEST_TMPDIR/inc")" -eq 6 ]
    while read -r f; do [ -f "$f" ] || { echo "missing $f"; false; }; done <"$BATS_TEST_TMPDIR/inc"
    for f in $(sed -n 's/.*"${projectDir}\/\(.*\)"$/\1/p' nextflow.config); do [ -f "$f" ] || { echo "missing $f"; false; }; done
    grep -q "hspz_container = 'ghcr.io/hspz/hspz:0.1.0'" nextflow.config
    grep -q "ext.container = { params.hspz_container }" nextflow.config
}

@test "nextflow: stubs run with nothing installed and the nf-test snapshots are their rendering" {
    run python3 tests/nextflow/snapshots.py --check
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "snapshots: 5 modules, 0 differ" ]
    for m in plan run merge gapped lastz; do
        grep -q 'assert snapshot(process.out).match()' workflows/nextflow/modules/local/hspz/$m/tests/main.nf.test
    done
}

@test "nextflow: HSPZ_GAPPED runs no lastz (a failing lastz first on PATH), gives --allocate:traceback=1.99G then ext.args, tolerates truncation notes, fails on another stderr line or hspz's exit status" {
    require_cmd lastz
    mkdir -p "$BATS_TEST_TMPDIR/bin"
    printf '#!/bin/sh\necho "lastz was called" >&2\nexit 99\n' >"$BATS_TEST_TMPDIR/bin/lastz"
    # an hspz that plants a line in the first .err file of hspz gapped --outdir DIR (HZ_PLANT),
    # or exits HZ_EXIT after it
    cat >"$BATS_TEST_TMPDIR/bin/hspz" <<SH
#!/bin/sh
"$HSPZ" "\$@"; rc=\$?
if [ "\$1" = gapped ] && [ -n "\${HZ_PLANT:-}" ]; then
    for e in "\$3"/*.err; do echo "\$HZ_PLANT" >> "\$e"; break; done
fi
[ "\$1" = gapped ] && [ -n "\${HZ_EXIT:-}" ] && exit "\$HZ_EXIT"
exit \$rc
SH
    chmod +x "$BATS_TEST_TMPDIR/bin/lastz" "$BATS_TEST_TMPDIR/bin/hspz"
    local pair=(--target tests/data/tiny_mtdna_human_vs_orangutan/MT-human.fa --query tests/data/tiny_mtdna_human_vs_orangutan/MT-orang.fa --min-units 1 --gapped --path "$BATS_TEST_TMPDIR/bin")
    run python3 tests/nextflow/harness.py --hspz "$HSPZ" --work "$BATS_TEST_TMPDIR/w1" "${pair[@]}"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"1 hspz gapped task"*"-> MAF == lastz on the package's commands in order"* ]]
    ! grep -rq "lastz was called" "$BATS_TEST_TMPDIR"/w1/work/*/.command.err
    # every command got batched_lastz's traceback memory (hspz gapped --outdir appends it; no copy)
    [ "$(mf "$BATS_TEST_TMPDIR"/w1/work/*-gapped/gapped/gapped-manifest.json 'd["settings"]["traceback"]["value"]')" = --allocate:traceback=1.99G ]
    [ -L "$(echo "$BATS_TEST_TMPDIR"/w1/work/*-gapped/gapped/lastz-commands.txt)" ]
    # ext.args come after it (then a copy of lastz-commands.txt carries both): 200K of traceback
    # cuts MT's long alignments, hspz notes the truncations as lastz does, the task passes and
    # the MAF is lastz's with the same memory
    run python3 tests/nextflow/harness.py --hspz "$HSPZ" --work "$BATS_TEST_TMPDIR/w2" "${pair[@]}" --lastz-args=--allocate:traceback=200K
    echo "$output"
    [ "$status" -eq 0 ]
    grep -q '^truncating alignment ending at ([0-9]*,[0-9]*);  anchor at' "$BATS_TEST_TMPDIR"/w2/work/*-gapped/.command.err
    [ "$(grep -c -- ' --allocate:traceback=1.99G --allocate:traceback=200K 2> ' "$BATS_TEST_TMPDIR"/w2/work/*-gapped/gapped/lastz-commands.txt)" -eq 1 ]
    [ ! -L "$(echo "$BATS_TEST_TMPDIR"/w2/work/*-gapped/gapped/lastz-commands.txt)" ]
    [ "$(mf "$BATS_TEST_TMPDIR"/w2/work/*-gapped/gapped/gapped-manifest.json 'd["settings"]["traceback"]["value"]')" = null ]
    # any other line on a command's stderr fails the task
    HZ_PLANT="hspz gapped: something else" run python3 tests/nextflow/harness.py --hspz "$HSPZ" --work "$BATS_TEST_TMPDIR/w3" "${pair[@]}"
    echo "$output"
    [ "$status" -ne 0 ]
    [[ "$output" == *"hspz gapped: something else"*"hspz gapped failed (exit 0) or a command wrote more than truncation notes"* ]]
    HZ_EXIT=3 run python3 tests/nextflow/harness.py --hspz "$HSPZ" --work "$BATS_TEST_TMPDIR/w4" "${pair[@]}"
    echo "$output"
    [ "$status" -ne 0 ]
    [[ "$output" == *"hspz gapped failed (exit 3)"* ]]
}

@test "nextflow: HSPZ_GAPPED takes ext.args verbatim (single quotes, a space in a path): MAF == lastz with the same words" {
    require_cmd lastz
    local sc="$BATS_TEST_TMPDIR/my scores.q"
    printf 'gap_open_penalty = 500\ngap_extend_penalty = 40\n     A     C     G     T\nA   91  -114   -31  -123\nC -114   100  -125   -31\nG  -31  -125   100  -114\nT -123   -31  -114    91\n' > "$sc"
    run python3 tests/nextflow/harness.py --hspz "$HSPZ" --work "$BATS_TEST_TMPDIR/w" \
        --target tests/data/tiny_mtdna_human_vs_orangutan/MT-human.fa --query tests/data/tiny_mtdna_human_vs_orangutan/MT-orang.fa \
        --min-units 1 --gapped "--lastz-args=--scores='$sc' --ydrop=3400"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"1 hspz gapped task"*"-> MAF == lastz on the package's commands in order"* ]]
    # the words reached every line as written, and they count: 3 alignments (lastz's, compared
    # above) where the default scores give 2 (the 1,172,765 one is cut by the dearer gaps)
    [ "$(grep -c -F -- " --allocate:traceback=1.99G --scores='$sc' --ydrop=3400 2> " "$BATS_TEST_TMPDIR"/w/work/*-gapped/gapped/lastz-commands.txt)" -ge 1 ]
    [[ "$output" == *"(3 alignment blocks)"* ]]
    ! grep -q "^a score=1172765$" "$BATS_TEST_TMPDIR"/w/results/*.maf
}

@test "nextflow: --gapped_tool is hspz or lastz; hspz gapped's formats (maf-, maf, axt, axt+), others need lastz (main.nf's checks)" {
    grep -q "def tool = gappedTool(params.gapped_tool)" main.nf
    grep -q "if (gapped && tool == 'hspz' && !hspzGappedWrites(format))" main.nf
    grep -q "if (gapped && tool == 'lastz' && !hspz_args.tokenize" main.nf
    grep -q "^    gapped_tool    = 'hspz' " nextflow.config
    require_groovy
    run run_functions "
assert gappedTool('hspz') == 'hspz' && gappedTool(' LASTZ') == 'lastz'
println(['maf-','maf','maf+','axt','axt+','sam','general-','lav'].findAll { f -> hspzGappedWrites(f) }.join(' '))
try { gappedTool('lastz1'); assert false } catch (IllegalArgumentException e) { println(e.message) }"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "maf- maf axt axt+
--gapped_tool: 'lastz1' is neither hspz nor lastz" ]
}
