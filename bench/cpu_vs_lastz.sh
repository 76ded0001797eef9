#!/usr/bin/env bash
# hspz on the CPU (--threads 1 and --threads $(nproc)) against LASTZ 1.04.22 --nogapped with
# the same parameters (LASTZ is single-threaded), on one or more genome pairs.
#
#   bench/cpu_vs_lastz.sh [TARGET,QUERY ...]
#
# Default pair: the small E. coli pair from ../shared/data.  Inputs may be FASTA or FASTA.gz;
# both programs read the same decompressed FASTA from a temp folder.  Each configuration runs
# RUNS times (default 3) in alternation (hspz t1, hspz tN, lastz, hspz t1, ...); the table shows
# the median wall time and the largest peak RSS (/usr/bin/time -v).  hspz's outputs must be
# identical across all its runs (canonical digest and every file), else the script fails.
#
# Environment: HSPZ (default build/hspz), RUNS (default 3), BENCH_OUT (default bench/results).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
HSPZ="${HSPZ:-$ROOT/build/hspz}"
RUNS="${RUNS:-3}"
OUTDIR_RESULTS="${BENCH_OUT:-$ROOT/bench/results}"
NPROC="$(nproc)"
SHARED="${HSPZ_SHARED:-$ROOT/../shared}"

[ -x "$HSPZ" ] || { echo "no hspz at $HSPZ (build it: cmake -S . -B build && cmake --build build)" >&2; exit 1; }
command -v lastz >/dev/null || { echo "lastz is not installed (apt-get install lastz)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
[ "$RUNS" -ge 1 ] || { echo "RUNS must be >= 1" >&2; exit 1; }

PAIRS=("$@")
if [ "${#PAIRS[@]}" -eq 0 ]; then
    e="$SHARED/data/small_ecoli_k12_vs_ecoli_536"
    PAIRS=("$e/ecoli_K12_MG1655.fa.gz,$e/ecoli_536_NC_008253.fa.gz")
fi

LASTZ_OPTS=(--nogapped --seed=12of19 --transition --step=1 --xdrop=910 --hspthresh=3000
            "--format=general:name1,start1,end1,name2,start2,end2,strand2,score")
TMP="$(mktemp -d /tmp/hspz-bench.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}'; }
maxof() { sort -g | tail -n 1; }
minof() { sort -g | head -n 1; }

# timed LABEL CMD... — run under /usr/bin/time -v; append "wall_s rss_kb" to $TMP/LABEL.times
timed() {
    local label="$1"; shift
    /usr/bin/time -v -o "$TMP/time.txt" "$@" >"$TMP/stdout.txt" 2>"$TMP/stderr.txt" || {
        echo "FAILED: $*" >&2; tail -n 5 "$TMP/stderr.txt" >&2; exit 1; }
    local wall rss
    wall="$(sed -nE 's/.*Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (.*)/\1/p' "$TMP/time.txt" |
            awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')"
    rss="$(sed -nE 's/.*Maximum resident set size \(kbytes\): ([0-9]+)/\1/p' "$TMP/time.txt")"
    echo "$wall $rss" >>"$TMP/$label.times"
}

digest_dir() { cat "$1"/*.segments 2>/dev/null | LC_ALL=C sort | sha256sum | cut -c1-16; }

cpu="$(sed -nE 's/^model name\s*: (.*)/\1/p' /proc/cpuinfo | head -n 1)"
mem="$(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
ver="$("$HSPZ" --version 2>/dev/null || echo '?')"
commit="$(git rev-parse --short=12 HEAD 2>/dev/null || echo 'no commit')"
dirty="$(git status --porcelain -- src cuda CMakeLists.txt 2>/dev/null | head -n 1)"
[ -z "$dirty" ] || commit="$commit (+ uncommitted changes)"
lastz_ver="$( (lastz --version 2>&1 || true) | sed -n 's/.*version \([0-9.]*\).*/\1/p' | head -n 1)"
stamp="$(date -u +%Y-%m-%d)"
mkdir -p "$OUTDIR_RESULTS"
REPORT="$OUTDIR_RESULTS/cpu_vs_lastz-$stamp.md"

{
    echo "# hspz (CPU) vs LASTZ --nogapped — $stamp"
    echo
    echo "- machine: $NPROC cores, $cpu, $mem, $(uname -sr)"
    echo "- hspz $ver, commit $commit, binary $HSPZ"
    echo "- LASTZ $lastz_ver (Debian package), single process"
    echo "- runs: $RUNS per configuration, alternating; wall = median (min–max); RSS = largest peak"
    echo "- load average at start: $(cut -d" " -f1-3 /proc/loadavg) (other work on the machine inflates wall times)"
    echo
} >"$TMP/head.md"

TABLE="$TMP/table.md"
echo "| pair | program | threads | wall s median (min–max) | peak RSS MiB | HSPs | output digest |" >"$TABLE"
echo "|---|---|---|---|---|---|---|" >>"$TABLE"
CMDS="$TMP/cmds.md"
: >"$CMDS"
INPUTS="$TMP/inputs.md"
: >"$INPUTS"

for spec in "${PAIRS[@]}"; do
    t="${spec%%,*}"; q="${spec#*,}"
    [ -f "$t" ] && [ -f "$q" ] || { echo "missing input in '$spec'" >&2; exit 1; }
    name="$(basename "$(dirname "$t")")"
    echo "== $name" >&2
    rm -f "$TMP"/*.times
    for f in "$t" "$q"; do
        case "$f" in *.gz) gzip -dc "$f" ;; *) cat "$f" ;; esac >"$TMP/$(basename "${f%.gz}")"
    done
    tp="$TMP/$(basename "${t%.gz}")"; qp="$TMP/$(basename "${q%.gz}")"
    echo "- $name: target \`$t\` ($(stat -c %s "$tp") bytes plain, sha256 $(sha256sum "$tp" | cut -c1-16)…), query \`$q\` ($(stat -c %s "$qp") bytes plain, sha256 $(sha256sum "$qp" | cut -c1-16)…)" >>"$INPUTS"
    h1=("$HSPZ" run -r "$tp" -q "$qp" -o "$TMP/o" --force --quiet --threads 1)
    hn=("$HSPZ" run -r "$tp" -q "$qp" -o "$TMP/o" --force --quiet --threads "$NPROC")
    lz=(lastz "$tp[multiple]" "$qp" "${LASTZ_OPTS[@]}")
    {
        echo "- $name:"
        echo "  - \`${h1[*]}\`"
        echo "  - \`${hn[*]}\`"
        echo "  - \`${lz[*]} > lastz.txt\`"
    } >>"$CMDS"
    ref_digest=""
    for i in $(seq "$RUNS"); do
        for cfg in h1 hn lz; do
            echo "   run $i $cfg" >&2
            case "$cfg" in
                h1) rm -rf "$TMP/o"; timed h1 "${h1[@]}" ;;
                hn) rm -rf "$TMP/o"; timed hn "${hn[@]}" ;;
                lz) timed lz "${lz[@]}"; cp "$TMP/stdout.txt" "$TMP/lastz.txt" ;;
            esac
            if [ "$cfg" != lz ]; then
                d="$(digest_dir "$TMP/o")"
                if [ -z "$ref_digest" ]; then
                    ref_digest="$d"; rm -rf "$TMP/ref"; cp -r "$TMP/o" "$TMP/ref"
                elif [ "$d" != "$ref_digest" ] || ! diff -r -q -x lastz-commands.txt "$TMP/o" "$TMP/ref" >/dev/null; then
                    echo "hspz output differs between runs ($cfg run $i: $d vs $ref_digest)" >&2
                    exit 1
                fi
            fi
        done
    done
    n_h="$(cat "$TMP/ref"/*.segments 2>/dev/null | wc -l)"
    n_l="$(grep -vc '^#' "$TMP/lastz.txt" || true)"
    d_l="$(grep -v '^#' "$TMP/lastz.txt" | LC_ALL=C sort | sha256sum | cut -c1-16)"
    for cfg in h1 hn lz; do
        case "$cfg" in h1) prog=hspz; th=1 ;; hn) prog=hspz; th=$NPROC ;; lz) prog="lastz $lastz_ver"; th=1 ;; esac
        med="$(cut -d' ' -f1 "$TMP/$cfg.times" | median)"
        lo="$(cut -d' ' -f1 "$TMP/$cfg.times" | minof)"
        hi="$(cut -d' ' -f1 "$TMP/$cfg.times" | maxof)"
        rss="$(cut -d' ' -f2 "$TMP/$cfg.times" | maxof | awk '{printf "%.0f", $1/1024}')"
        if [ "$cfg" = lz ]; then n="$n_l"; dg="$d_l"; else n="$n_h"; dg="$ref_digest"; fi
        echo "| $name | $prog | $th | $med ($lo–$hi) | $rss | $n | \`$dg\` |" >>"$TABLE"
    done
done

{
    cat "$TMP/head.md"
    cat "$TABLE"
    echo
    echo "Digest: sha256 of the byte-sorted segment lines (first 16 hex digits); hspz's outputs were"
    echo "identical in all its runs. LASTZ's HSP set differs from KegAlign's by design on bacteria"
    echo "(RULES.md \"LASTZ comparison\")."
    echo
    echo "## Inputs"
    cat "$INPUTS"
    echo
    echo "## Commands (each under \`/usr/bin/time -v\`)"
    cat "$CMDS"
} >"$REPORT"
cat "$TABLE"
echo "report: $REPORT" >&2
