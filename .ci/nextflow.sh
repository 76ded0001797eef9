#!/usr/bin/env bash
# reftrace lint of every .nf file (main.nf, workflows/nextflow) with workflows/nextflow/rules.py (Nextflow itself
# cannot be installed here; tests/bats/nextflow.bats renders and runs the process templates).
# reftrace exits 0 even on errors, so its report is read: a parse failure or an error fails.
#   .ci/nextflow.sh WORKDIR      (the venv is WORKDIR/venv-reftrace)
# Last line: "nextflow: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
W="${1:?WORKDIR}"
REFTRACE_VERSION=0.6.0
V="$W/venv-reftrace"
mkdir -p "$W"
if ! "$V/bin/python" -c 'import importlib.metadata as m, sys; sys.exit(m.version("reftrace") != sys.argv[1])' "$REFTRACE_VERSION" 2>/dev/null; then
    python3 -m venv "$V" && "$V/bin/pip" install -q "reftrace==$REFTRACE_VERSION" ||
        { echo "nextflow: cannot install reftrace==$REFTRACE_VERSION"; echo "nextflow: 0 passed, 1 failed"; exit 1; }
fi
# every .nf file of the repository (main.nf at the root, workflows/nextflow's modules)
lint() { ( cd "$1" && "$V/bin/reftrace" lint -r workflows/nextflow/rules.py -d . ) 2>&1; }
clean() { grep -q 'No issues found!' "$1" && ! grep -qE 'Failed to parse|Error on line|errors' "$1"; }
n_nf=$(find main.nf workflows -name '*.nf' | wc -l)
lint . >"$W/reftrace.log"
cat "$W/reftrace.log"
pass=0 fail=0
if clean "$W/reftrace.log"; then
    echo "nextflow: reftrace $REFTRACE_VERSION lint of $n_nf .nf files and nextflow.config: no issues"
    pass=$((pass + 1))
else
    fail=$((fail + 1))
fi
# each rule must catch a planted violation: FILE~PERL SUBSTITUTION~TEXT OF THE EXPECTED ERROR
M=workflows/nextflow/modules/local/hspz
while IFS='~' read -r file subst expect; do
    [ -n "$file" ] || continue
    file="${file/#\$M/$M}"
    P="$W/planted"
    rm -rf "$P" && mkdir -p "$P"
    mkdir -p "$P/workflows" && cp -R main.nf nextflow.config "$P/" && cp -R workflows/nextflow "$P/workflows/"
    perl -0pi -e "$subst" "$P/$file"
    if cmp -s "$file" "$P/$file"; then
        echo "nextflow: plant '$subst' changed nothing in $file"; fail=$((fail + 1)); continue
    fi
    lint "$P" >"$W/planted.log"
    if grep -qF -- "$expect" "$W/planted.log" && ! clean "$W/planted.log"; then
        pass=$((pass + 1))
    else
        echo "nextflow: the lint missed a planted violation in $file ($subst): want '$expect'"
        cat "$W/planted.log"; fail=$((fail + 1))
    fi
done <<'PLANTS'
$M/plan/main.nf~s/(intersect\(\[.conda., .mamba.\]\)\.size\(\) >= 1)/$1 || session.config.navigate('conda.enabled')/~strict syntax: 'session' is not allowed
$M/run/main.nf~s/(label 'process_gpu'\n)/$1    accelerator { params.gpu ? 1 : null }\n/~sets accelerator itself
$M/run/main.nf~s/(label 'process_gpu'\n)/$1    cpus { params.threads }\n/~module reads params.threads
$M/run/templates/run.sh~s/task\.accelerator \? .auto. : .cpu./'auto'/;s/task\.accelerator \? task\.accelerator\.request : 0/1/~does not read task.accelerator
$M/merge/main.nf~s/ghcr\.io\/hspz\/hspz:0\.1\.0/hspz:0.1.0/~container must be
$M/lastz/main.nf~s/eval\(workflow\.stubRun \? .echo stub. : /eval(/~eval() output without
main.nf~s/groupTuple\(sort: \{ a, b -> a\.name <=> b\.name \}\)/groupTuple()/~groupTuple() without sort:
main.nf~s/, remainder: true\)/)/~joined without remainder: true
main.nf~s/^(include)/nextflow.enable.dsl = 2\n$1/m~nextflow.enable.dsl is not allowed
main.nf~s/channel\.of\(\[meta/Channel.of([meta/~use channel, not Channel
main.nf~s/findAll \{ l -> l\.trim\(\) \}/findAll { it.trim() }/~implicit closure parameter 'it'
PLANTS
echo "nextflow: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
