#!/usr/bin/env bats
# workflows/nextflow without Nextflow (README "Nextflow"): tests/nextflow/harness.py renders
# every process template as Nextflow would and drives plan -> units -> merge (-> lastz).

load ../lib/common

setup() {
    require_hspz
}

@test "nextflow: the test profile's DAG (plan, 16 units in 6 shuffled tasks, merge, 20 lastz tasks) equals one hspz run" {
    run python3 tests/nextflow/harness.py --hspz "$HSPZ" --profile test --work "$BATS_TEST_TMPDIR/w" --seed 7
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"nextflow-harness: ok: 16 units in 6 tasks"*"merge == one hspz run"*"tarball), report"*"lastz tasks -> MAF == the package run in order"* ]]
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
assert len(mods) == 4, mods
for m in mods:
    jsonschema.validate(yaml.safe_load(open(m + "meta.yml")), meta)
    jsonschema.validate(yaml.safe_load(open(m + "environment.yml")), env)
    main = open(m + "main.nf").read()
    for need in ("stub:", "task.ext.when == null || task.ext.when", "topic: versions", "template '", "label '"):
        assert need in main, (m, need)
print("ok", len(mods))
PY
}
