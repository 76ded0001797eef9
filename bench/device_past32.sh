#!/bin/bash
# device_past32 — issue 13 item 7's "positions past 2^32", on the device machine from the repo
# root with the carry .dev/ (hspz and simulate_pair in bin/ or bin.tar.xz, lib.tar.xz).  bench/simulate_pair
# writes a pair of SIZE_MBP (default 4400) Mbp per side in 100 Mbp records (seed 7, 10 %
# divergence, repeats REPEATS, default 0.05): side a's record 44 starts past base 2^32 of its
# genome.  Side b's record 44 (the last full one), cut to its first QUERY_MBP (default 2) Mbp,
# is the small genome.  hspz aligns big × small and small × big (the big genome as target, then as
# query), each on the GPU and on the CPU (all cores): the two folders must hold the same files
# byte for byte (manifest.json aside: it names the backend and times), and HSPs must fall on
# the big genome's records past 2^32.  Log under $OUT.
set -u
# shellcheck source=device_env.sh
. bench/device_env.sh device_past32   # libraries, binaries, the log, the GPU and hspz's commit
W=${PAST32_DIR:-/tmp/past32}; mkdir -p "$W"
mb=${SIZE_MBP:-4400} qmb=${QUERY_MBP:-2}
s=$EPOCHREALTIME
.dev/bin/simulate_pair "$mb" 7 0.1 "$W/p" "${REPEATS:-0.05}" || exit 1
echo "== $mb Mbp per side generated in $(awk "BEGIN{printf \"%.1f\", $EPOCHREALTIME - $s}") s"
grep -b '^>' "$W/p.a.fa" | tail -n 2
# the small genome: the head of side b's second-to-last record (the last may be short)
read -r off name < <(grep -b '^>' "$W/p.b.fa" | tail -n 2 | head -n 1 | tr ':' ' ')
tail -c +$((off + 1)) "$W/p.b.fa" | head -n $((qmb * 1000000 / 80 + 1)) >"$W/small.fa"
rm -f "$W/p.b.fa"
echo "small genome: $name, $(grep -v '^>' "$W/small.fa" | tr -d '\n' | wc -c) bases"
one() {   # one LABEL DEVICE ARGS...: a run, its wall, RSS and funnel
    local lab=$1 dev=$2; shift 2
    /usr/bin/time -f "$lab: exit %x, wall %e s, peak RSS %M KB" .dev/bin/hspz run "$@" --device "$dev" \
        -o "$W/$lab" --force --quiet --time 2>&1 | grep -v '^hspz: note'
    python3 -c "import json,sys; m=json.load(open(sys.argv[1])); f=m['funnel']; print('  anchors %.3e segments %d digest %s' % (f['anchors'], f['segments_written'], m['canonical_digest_sha256'][:16]))" "$W/$lab/manifest.json"
}
same() {   # same A B: the folders' files, manifest.json aside, byte for byte
    local f n=0 bad=0
    for f in "$W/$1"/*; do
        [ "$(basename "$f")" = manifest.json ] && continue
        n=$((n + 1)); cmp -s "$f" "$W/$2/$(basename "$f")" || { echo "  DIFFER: $(basename "$f")"; bad=1; }
    done
    [ "$(ls "$W/$1" | wc -l)" = "$(ls "$W/$2" | wc -l)" ] || { echo "  DIFFER: file lists"; bad=1; }
    echo "$1 vs $2: $n files compared, $([ $bad = 0 ] && echo identical || echo DIFFERENT)"
}
past() {   # past DIR COL: segment lines whose record (column COL) starts past 2^32 of side a
    awk -v c="$2" '{split($c, p, "_chr"); if (p[2] + 0 >= 44) n++} END {print n + 0}' "$W/$1"/*.segments
}
one big_gpu cuda -r "$W/p.a.fa" -q "$W/small.fa"
one big_cpu cpu -r "$W/p.a.fa" -q "$W/small.fa"
same big_gpu big_cpu
echo "  segment lines on a_chr44 and later (target, past 2^32): $(past big_gpu 1)"
one small_gpu cuda -r "$W/small.fa" -q "$W/p.a.fa"
one small_cpu cpu -r "$W/small.fa" -q "$W/p.a.fa"
same small_gpu small_cpu
echo "  segment lines on a_chr44 and later (query, past 2^32): $(past small_gpu 4)"
