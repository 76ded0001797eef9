#!/usr/bin/env bash
# hspz report on existing output folders: wall time (median and slowest of RUNS runs) and peak
# RSS of `hspz report OUTDIR -o TMP/report.html --force --quiet`, with the page's size and the
# plot's mode, as a markdown report.
#
#   bench/report_bench.sh OUTDIR...
#
# The output folders are only read (the page goes to a temporary folder).  Environment: HSPZ
# (default build/hspz), RUNS (default 5), BENCH_OUT (default bench/results; the report is
# report-cpu-<date>.md there, or BENCH_FILE).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HSPZ="${HSPZ:-$ROOT/build/hspz}"
RUNS="${RUNS:-5}"
OUT="${BENCH_FILE:-${BENCH_OUT:-$ROOT/bench/results}/report-cpu-$(date -u +%Y-%m-%d).md}"
[ "$#" -ge 1 ] || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[ -x "$HSPZ" ] || { echo "no hspz at $HSPZ" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
{
    echo "# hspz report on the CPU, $(date -u +%Y-%m-%d)"
    echo
    echo "Host: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), $(free -g | awk '/Mem:/{print $2}') GiB;" \
         "hspz $("$HSPZ" --version) ($("$HSPZ" version --verbose | sed -n 's/^commit //p')); load average before: $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
    echo "Command (each run $RUNS times): \`hspz report OUTDIR -o TMP/report.html --force --quiet\`; the time is the whole"
    echo "command (read manifest, .name and segments files, raster, both PNGs, the page), /usr/bin/time -v."
    echo
    echo "| OUTDIR | HSPs | segments bytes | records (t x q) | plot | page bytes | PNG bytes | wall median (s) | wall max (s) | peak RSS (MiB) |"
    echo "|---|---:|---:|---|---|---:|---:|---:|---:|---:|"
} >"$tmp/report.md"
for d in "$@"; do
    walls=() rss=0
    for i in $(seq "$RUNS"); do
        /usr/bin/time -v -o "$tmp/time" "$HSPZ" report "$d" -o "$tmp/report.html" --force --quiet
        walls+=("$(awk -F': ' '/Elapsed \(wall clock\)/{n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$tmp/time")")
        r="$(awk -F': ' '/Maximum resident/{print $2}' "$tmp/time")"; [ "$r" -gt "$rss" ] && rss="$r"
    done
    sorted="$(printf '%s\n' "${walls[@]}" | sort -g)"
    med="$(sed -n "$(( (RUNS + 1) / 2 ))p" <<<"$sorted")"; max="$(tail -n 1 <<<"$sorted")"
    attr() { grep -o "data-$1=\"[^\"]*\"" "$tmp/report.html" | head -n 1 | sed 's/.*="\(.*\)"/\1/'; }
    segb="$(find "$d" -maxdepth 1 -name '*.segments' ! -name all.segments -printf '%s\n' | awk '{s+=$1} END{print s+0}')"
    printf '| %s | %s | %s | %s x %s | %s | %s | %s | %s | %s | %s |\n' "$(basename "$d")" "$(attr hsps)" "$segb" \
        "$(attr target-records)" "$(attr query-records)" "$(attr mode)" "$(stat -c %s "$tmp/report.html")" \
        "$(stat -c %s "$tmp/report.png")" "$med" "$max" "$((rss / 1024))" >>"$tmp/report.md"
done
mkdir -p "$(dirname "$OUT")"
cp "$tmp/report.md" "$OUT"
cat "$OUT"
