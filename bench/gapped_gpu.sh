#!/usr/bin/env bash
# `hspz gapped --outdir … --device cuda` against the CPU path (`--device cpu`), and optionally
# another hspz build's GPU path (ALT=PATH: an old build), side by side, alternating, on a device
# host.  Precondition: every output file and .err of every arm equals the CPU arm's byte for
# byte (the CPU arm equals lastz: bench/gapped_par.sh); otherwise the script stops with an error.
#
#   bench/gapped_gpu.sh HSPZ REPORT N REF,QRY [REF,QRY ...]
#
#   HSPZ    the hspz binary (a CUDA build)
#   REPORT  the Markdown report to write (a table per pair: median wall and CPU seconds, min–max)
#   N       --threads of every arm
#   REF,QRY a pair of FASTA(.gz) files (target, query)
#
# Environment: RUNS (default 3), DEV (default cuda; emu checks this script without a GPU; cpu with
# ALT: the two builds' CPU paths only), ALT (another hspz binary, run with --device $DEV), TIME (GNU
# time, default /usr/bin/time), COMMIT (default: the COMMIT file, else git), ALTENV (NAME=VALUE
# words set for the ALT arm only: ALT=HSPZ ALTENV=HSPZ_GAPPED_BATCH=65536 compares one build's two
# settings).  After the timed runs one more run of the new GPU arm (and of ALT) with
# HSPZ_GAPPED_STATS=1 reports per pass the halves done on the GPU, its seconds, launches, halves
# run again, left to the CPU and redone, and the scheduler's counters (in its .err files, so that
# run is not compared), with every process's "at T s" marks laid out in time.
set -euo pipefail
[ $# -ge 4 ] || { sed -n '2,19p' "$0" >&2; exit 2; }
HSPZ=$(readlink -f "$1"); REPORT=$2; N=$3; shift 3
RUNS=${RUNS:-3}; TIME=${TIME:-/usr/bin/time}; ALT=${ALT:-}; DEV=${DEV:-cuda}; ALTENV=${ALTENV:-}
read -r -a altenv <<< "$ALTENV"
for e in "${altenv[@]}"; do [[ $e == HSPZ_*=* ]] || { echo "ALTENV: $e is not HSPZ_NAME=VALUE" >&2; exit 2; }; done
[ -x "$HSPZ" ] || { echo "no hspz at $1" >&2; exit 1; }
[ -z "$ALT" ] || ALT=$(readlink -f "$ALT")
W=$(mktemp -d /tmp/gapped_gpu.XXXXXX); trap 'rm -rf "$W"' EXIT
commit=${COMMIT:-$(cat COMMIT 2>/dev/null || git log -1 --format=%h 2>/dev/null || echo unknown)}
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}'; }
# a stats run's lines (the command's stderr in DIR.log, the lines' .err files): the counters, then
# the "at T s" marks of every process in time order, T from the first mark
stats_of() {
    cat "$1.log" "$1"/*.err | grep -v '^$' | grep -v ': at [0-9.]* s (pid' | head -40
    cat "$1.log" "$1"/*.err | sed -n 's/^hspz gapped: at \([0-9.]*\) s (pid \([0-9]*\)): \(.*\)/\1 \2 \3/p' | sort -s -g -k1,1 |
        awk 'NR == 1 {t0 = $1} {printf "%+8.3f s  pid %-8s", $1 - t0, $2; for (i = 3; i <= NF; i++) printf " %s", $i; printf "\n"}'
}
span() { sort -g | awk 'NR==1{m=$1} {M=$1} END {printf "%s–%s", m, M}'; }
{
    echo "# hspz gapped --outdir: GPU against CPU ($(date -u +%F))"
    echo
    echo "- commit $commit; $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | head -1); $(nproc) cores; --threads $N; $RUNS runs per arm, alternating"
    echo "- command: bench/gapped_gpu.sh HSPZ REPORT $N $*${ALT:+ (ALT: $( [ "$ALT" = "$HSPZ" ] && echo 'the same build' || echo 'another build')${ALTENV:+ with $ALTENV})}"
    echo "- precondition: every output and .err of every arm byte-identical to the CPU arm's"
} > "$REPORT"
for pair in "$@"; do
    ref=${pair%%,*}; qry=${pair#*,}; name=$(basename "$ref" | sed 's/\..*//')_x_$(basename "$qry" | sed 's/\..*//')
    rm -rf "$W/base"; "$HSPZ" run -r "$ref" -q "$qry" -o "$W/base" --quiet
    arms="cpu cuda${ALT:+ alt}"
    [ "$DEV" = cpu ] && arms="cpu${ALT:+ alt}"     # two builds' CPU paths side by side
    for a in $arms; do : > "$W/t.$a"; done
    for ((k = 1; k <= RUNS; k++)); do
        for a in $arms; do
            rm -rf "$W/$a"; cp -r "$W/base" "$W/$a"
            bin=$HSPZ; dev=$a; pre=(env); [ "$a" = cuda ] && dev=$DEV; [ "$a" = alt ] && { bin=$ALT; dev=$DEV; pre=(env "${altenv[@]}"); }
            "$TIME" -f '%e %U %S' -o "$W/t" "${pre[@]}" "$bin" gapped --outdir "$W/$a" -r "$ref" -q "$qry" --threads "$N" --device "$dev" \
                || { echo "FAILED: $a on $name" | tee -a "$REPORT" >&2; exit 1; }
            awk '{printf "%s %.2f\n", $1, $2 + $3}' "$W/t" >> "$W/t.$a"
            if [ "$a" != cpu ]; then
                for f in "$W/cpu"/*.maf- "$W/cpu"/*.err; do
                    cmp -s "$f" "$W/$a/$(basename "$f")" || { echo "DIFFERENT: $a $(basename "$f") on $name" | tee -a "$REPORT" >&2; exit 1; }
                done
            fi
        done
    done
    nal=$(cat "$W/cpu"/*.maf- | grep -c '^a ' || true)
    {
        echo
        echo "## $name ($(grep -c . "$W/base/lastz-commands.txt") lines, $nal alignments, sha256 $(cat "$W/cpu"/*.maf- | sha256sum | cut -c1-16))"
        echo
        echo "| arm | wall s (median) | min–max | CPU s (median) |"
        echo "|---|---|---|---|"
        for a in $arms; do
            echo "| $a | $(cut -d' ' -f1 "$W/t.$a" | median) | $(cut -d' ' -f1 "$W/t.$a" | span) | $(cut -d' ' -f2 "$W/t.$a" | median) |"
        done
    } >> "$REPORT"
    rm -rf "$W/st"; cp -r "$W/base" "$W/st"
    HSPZ_GAPPED_STATS=1 "$HSPZ" gapped --outdir "$W/st" -r "$ref" -q "$qry" --threads "$N" --device "$DEV" 2> "$W/st.log" || true
    { echo; echo "HSPZ_GAPPED_STATS=1, the new arm:"; echo; echo '```'; stats_of "$W/st"; echo '```'; } >> "$REPORT"
    if [ -n "$ALT" ] && [ "$DEV" != cpu ]; then
        rm -rf "$W/st"; cp -r "$W/base" "$W/st"
        env "${altenv[@]}" HSPZ_GAPPED_STATS=1 "$ALT" gapped --outdir "$W/st" -r "$ref" -q "$qry" --threads "$N" --device "$DEV" 2> "$W/st.log" || true
        { echo; echo "HSPZ_GAPPED_STATS=1, alt:"; echo; echo '```'; stats_of "$W/st"; echo '```'; } >> "$REPORT"
    fi
done
cat "$REPORT"
