#!/usr/bin/env bash
# reftrace lint of every .nf file of workflows/nextflow with its rules.py (Nextflow itself
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
n_nf=$(find workflows/nextflow -name '*.nf' | wc -l)
( cd workflows/nextflow && "$V/bin/reftrace" lint -r rules.py -d . ) >"$W/reftrace.log" 2>&1
cat "$W/reftrace.log"
if grep -q 'No issues found!' "$W/reftrace.log" && ! grep -qE 'Failed to parse|Error on line|errors' "$W/reftrace.log"; then
    echo "nextflow: reftrace $REFTRACE_VERSION lint of $n_nf .nf files and nextflow.config: no issues"
    echo "nextflow: 1 passed, 0 failed"
else
    echo "nextflow: 0 passed, 1 failed"
    exit 1
fi
