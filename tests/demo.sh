#!/usr/bin/env bash
# One-command demo for a fresh Debian 12 machine: install the missing packages (apt-get; needs
# root or sudo), build hspz (Release), and run it on a bundled real pair, the mitochondrial
# genomes of human and orangutan (tests/data/tiny_mtdna_human_vs_orangutan).
#
#   tests/demo.sh [OUTDIR]      (default OUTDIR: out/demo-mtdna, replaced if present)
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=../container/deps.sh
source container/deps.sh
hz_install build test python
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"

[ -f build/CMakeCache.txt ] || cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"

out="${1:-out/demo-mtdna}"
mt=tests/data/tiny_mtdna_human_vs_orangutan
mkdir -p "$(dirname "$out")"
build/hspz run -r "$mt/MT-human.fa" -q "$mt/MT-orang.fa" -o "$out" --force

n="$(cat "$out"/*.segments 2>/dev/null | wc -l)"
echo
echo "hspz wrote $n HSPs (ungapped segments) to $out/:"
ls -l "$out"
echo
echo "first lines (name1 start1 end1 name2 start2 end2 strand score):"
head -n 5 "$out"/*.segments
