#!/usr/bin/env bash
# Two hspz builds' CPU gapped stage side by side: `hspz gapped --outdir … --threads N` of an old
# and a new binary on the same folder of `hspz run`, alternating, medians.  Precondition: every
# output and .err of both arms is byte-identical (and the old arm equals lastz: its own
# gapped_par.sh run); otherwise the script stops with an error.
#
#   bench/gapped_ab.sh OLD NEW REPORT N REF,QRY [REF,QRY ...]
#
#   OLD, NEW  hspz binaries (NEW also runs `hspz run` once per pair)
#   REPORT    the Markdown report to write (a table per pair: median wall and CPU seconds, min–max)
#   N         --threads of both arms
#   REF,QRY   a pair of FASTA(.gz) files (target, query)
#
# Environment: RUNS (default 3), LINES (keep only these lines of lastz-commands.txt, a sed
# address such as 1 or 1,4; default all), TIME (GNU time, default /usr/bin/time), COMMIT
# (default: the COMMIT file, else git).
set -euo pipefail
[ $# -ge 5 ] || { sed -n '2,16p' "$0" >&2; exit 2; }
OLD=$(readlink -f "$1"); NEW=$(readlink -f "$2"); REPORT=$3; N=$4; shift 4
RUNS=${RUNS:-3}; TIME=${TIME:-/usr/bin/time}; LINES=${LINES:-}
[ -x "$OLD" ] && [ -x "$NEW" ] || { echo "OLD and NEW must be hspz binaries" >&2; exit 1; }
W=$(mktemp -d /tmp/gapped_ab.XXXXXX); trap 'rm -rf "$W"' EXIT
commit=${COMMIT:-$(cat COMMIT 2>/dev/null || git log -1 --format=%h 2>/dev/null || echo unknown)}
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}'; }
span() { sort -g | awk 'NR==1{m=$1} {M=$1} END {printf "%s–%s", m, M}'; }
{
    echo "# hspz gapped --outdir on the CPU: two builds ($(date -u +%F))"
    echo
    echo "- new commit $commit; $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores; --threads $N; $RUNS runs per arm, alternating${LINES:+; lines $LINES of lastz-commands.txt}"
    echo "- command: bench/gapped_ab.sh OLD NEW REPORT $N $*"
    echo "- precondition: every output and .err of both arms byte-identical"
} > "$REPORT"
for pair in "$@"; do
    ref=${pair%%,*}; qry=${pair#*,}; name=$(basename "$ref" | sed 's/\..*//')_x_$(basename "$qry" | sed 's/\..*//')
    rm -rf "$W/base"; "$NEW" run -r "$ref" -q "$qry" -o "$W/base" --quiet
    [ -z "$LINES" ] || sed -i -n "${LINES}p" "$W/base/lastz-commands.txt"
    : > "$W/t.old"; : > "$W/t.new"
    for i in $(seq 1 "$RUNS"); do
        for a in old new; do
            b=$OLD; [ $a = new ] && b=$NEW
            rm -rf "$W/$a"; cp -r "$W/base" "$W/$a"
            "$TIME" -f '%e %U %S' -o "$W/t" "$b" gapped --outdir "$W/$a" -r "$ref" -q "$qry" --threads "$N" \
                || { echo "FAILED: $a on $name" >&2; exit 1; }
            awk '{printf "%s %.2f\n", $1, $2 + $3}' "$W/t" >> "$W/t.$a"
        done
        (cd "$W/old" && sha256sum ./*.maf* ./*.err 2>/dev/null) > "$W/d.old"
        (cd "$W/new" && sha256sum ./*.maf* ./*.err 2>/dev/null) > "$W/d.new"
        cmp -s "$W/d.old" "$W/d.new" && [ -s "$W/d.new" ] || { echo "outputs differ on $name (run $i)" >&2; diff "$W/d.old" "$W/d.new" >&2; exit 1; }
    done
    {
        echo
        echo "## $name ($(grep -c . "$W/base/lastz-commands.txt") lines)"
        echo
        echo "| arm | wall s (median) | min–max | CPU s (median) |"
        echo "|---|---|---|---|"
        for a in old new; do
            echo "| $a | $(cut -d' ' -f1 "$W/t.$a" | median) | $(cut -d' ' -f1 "$W/t.$a" | span) | $(cut -d' ' -f2 "$W/t.$a" | median) |"
        done
    } >> "$REPORT"
done
cat "$REPORT"
