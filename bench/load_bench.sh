#!/bin/bash
# bench/load_bench.sh OLD_HSPZ [REPS] — the input load phase of two hspz binaries side by side
# (issue 13 item 3: gzip decoding on a helper thread, src/io/seqio_pipe.c; the FASTA reader's fast
# path, src/io/seqio.c).  Each run is `hspz run --device DEVICE` of a FASTA target against the bundled mitochondrial genome,
# so the manifest's load time is the target's load (the two sides load in parallel).  Arms
# alternate per repetition; the medians of the manifest's time_s.load and of the whole wall
# are printed.  The arms' segment files must be identical.
#   TARGETS  FASTA files (default: medium Zymoseptoria IPO323 and the large set's A26b, gzip)
#   DEVICE   hspz's --device (default cpu; cuda on the device machine)
set -euo pipefail
old="${1:?usage: bench/load_bench.sh OLD_HSPZ [REPS]}"; reps="${2:-5}"
here="$(cd "$(dirname "$0")/.." && pwd)"
new="${HSPZ:-$here/build/hspz}"
S="${HSPZ_SHARED:-$here/../shared}"
targets="${TARGETS:-$S/data/medium_zymoseptoria_ipo323_vs_zpseudotritici221/ztritici_IPO323.fa.gz $S/data/large_zymoseptoria_3ztritici_vs_3zpseudotritici/ztritici_A26b.fa.gz}"
q="$here/tests/data/tiny_mtdna_human_vs_orangutan/MT-orang.fa"
w="$(mktemp -d)"; trap 'rm -rf "$w"' EXIT
echo "new: $("$new" version --verbose | sed -n 2p); old: $("$old" version --verbose | sed -n 2p); $(nproc) cores"
for t in $targets; do
    for i in $(seq 1 "$reps"); do
        arms="old new"; [ $((i % 2)) = 0 ] && arms="new old"
        for a in $arms; do
            b="$new"; [ "$a" = old ] && b="$old"
            rm -rf "$w/$a"
            s=$EPOCHREALTIME
            "$b" run -r "$t" -q "$q" -o "$w/$a" --device "${DEVICE:-cpu}" --quiet
            python3 -c "import json,sys; print(sys.argv[1], json.load(open(sys.argv[2]))['time_s']['load'], float(sys.argv[3]))" \
                "$a" "$w/$a/manifest.json" "$(awk "BEGIN{print $EPOCHREALTIME - $s}")" >>"$w/times"
        done
        diff -r -x manifest.json "$w/old" "$w/new" >/dev/null || { echo "load_bench: arms differ on $t" >&2; exit 1; }
    done
    python3 - "$w/times" "$(basename "$t")" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
for arm in ("old", "new"):
    load = sorted(float(r[1]) for r in rows if r[0] == arm); wall = sorted(float(r[2]) for r in rows if r[0] == arm)
    print(f"{sys.argv[2]} {arm}: load median {statistics.median(load):.3f} s ({', '.join(f'{x:.3f}' for x in load)}), "
          f"wall median {statistics.median(wall):.2f} s")
PY
    rm -f "$w/times"
done
echo "identical segment files in every repetition"
