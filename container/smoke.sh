#!/bin/sh
# Smoke test of an hspZ image (Docker, Podman, Apptainer %test): POSIX sh, runs as any UID,
# needs no network.  Checks `hspz --version`, lastz, and one run of the bundled human x
# orangutan mitochondrial pair on the CPU compared byte for byte with its KegAlign 0.3.x
# golden; on the GPU too when one is visible, else says how to pass one.
#
#   sh /usr/local/share/hspz/smoke.sh [SMOKE_DIR]   (default: the folder of this script)
# Exit status 0 when every check passed; the last line is "smoke: N passed, N failed".
set -u
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
S=${1:-$here/smoke}
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "smoke: ok: $*"; }
bad() { fail=$((fail + 1)); echo "smoke: FAILED: $*"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hspz-smoke.XXXXXX") || { echo "smoke: no temporary folder"; exit 1; }
trap 'rm -rf "$tmp"' EXIT

v=$(hspz --version 2>&1) && [ -n "$v" ] && ok "hspz --version: $v" || bad "hspz --version: $v"
l=$(lastz --version 2>&1 | sed -n 's/.*\(version [0-9][0-9.]*\).*/\1/p' | head -n 1)
[ -n "$l" ] && ok "lastz $l" || bad "lastz --version"
command -v bash >/dev/null && command -v ps >/dev/null && ok "bash and ps present" || bad "bash or ps missing"
echo "smoke: running as uid $(id -u) gid $(id -g)"

# same_as_golden OUTDIR — every expected file equal, and no other *.segments file.
same_as_golden() {
    for f in "$S"/expected/*; do
        cmp -s "$f" "$1/$(basename "$f")" || { echo "smoke: $1/$(basename "$f") differs from the golden"; return 1; }
    done
    for f in "$1"/*.segments; do
        [ -e "$S/expected/$(basename "$f")" ] || { echo "smoke: unexpected $f"; return 1; }
    done
}

if hspz run -r "$S/MT-human.fa" -q "$S/MT-orang.fa" -o "$tmp/cpu" --device cpu --quiet &&
   same_as_golden "$tmp/cpu"; then
    ok "CPU run of the mtDNA pair equals its golden ($(cat "$tmp"/cpu/*.segments | wc -l) segments)"
else
    bad "CPU run of the mtDNA pair"
fi

if [ -e /dev/nvidiactl ] || [ -e /dev/nvidia0 ]; then
    if hspz run -r "$S/MT-human.fa" -q "$S/MT-orang.fa" -o "$tmp/gpu" --device cuda --quiet &&
       same_as_golden "$tmp/gpu"; then
        ok "GPU run of the mtDNA pair equals its golden"
    else
        bad "GPU run of the mtDNA pair (--device cuda)"
    fi
else
    echo "smoke: note: no GPU is visible in this container, so hspz runs on the CPU; pass the" \
         "host's GPUs with 'docker run --gpus all ...' (NVIDIA Container Toolkit) or" \
         "'apptainer run --nv ...' / 'singularity run --nv ...'"
fi
echo "smoke: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
