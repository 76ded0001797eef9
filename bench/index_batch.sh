#!/bin/bash
# index_batch — what the target index and batch mode save on one target x many queries
# (issue 10; README "Target index", "Many queries").  Four ways to align every query of
# QDIR/*.fa against TARGET, side by side, REPS times in rotating order, medians:
#   sep      one `hspz run -r TARGET -q Qi` per query
#   sep+ix   one `hspz run --index TARGET.hzi -q Qi` per query
#   list     one `hspz run -r TARGET --query-list LIST`
#   list+ix  one `hspz run --index TARGET.hzi --query-list LIST`
# Byte-identical outputs (every query's folder, manifest aside, equal to sep's) are checked
# first; a difference stops the benchmark.  The index build is timed once.
#
#   bench/index_batch.sh TARGET QDIR DEVICE REPS [WORK]     (DEVICE cpu | cuda)
# Prints a markdown table on stdout.  HSPZ = the binary (default build/hspz, else on PATH).
set -u
T=$1 QD=$2 DEV=$3 REPS=$4 W=${5:-/tmp/index_batch}
H=${HSPZ:-build/hspz}; [ -x "$H" ] || H=hspz
rm -rf "$W"; mkdir -p "$W"
ls "$QD"/*.fa > "$W/queries.txt"
NQ=$(wc -l < "$W/queries.txt")
now() { echo "$EPOCHREALTIME"; }
el() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.3f", b-a}'; }
s=$(now); "$H" index -r "$T" -o "$W/t.hzi" --device "$DEV" --quiet || exit 1; IXS=$(el "$s" "$(now)")
run_variant() {   # VARIANT OUT -> wall seconds on stdout
    local v=$1 o=$2 s i=0 q
    rm -rf "$o"; mkdir -p "$o"; s=$(now)
    case $v in
    sep|sep+ix)
        while read -r q; do
            i=$((i + 1))
            if [ "$v" = sep ]; then src=(-r "$T"); else src=(--index "$W/t.hzi"); fi
            "$H" run "${src[@]}" -q "$q" -o "$o/$(printf %06d $i)" --device "$DEV" --quiet || return 1
        done < "$W/queries.txt" ;;
    list) rmdir "$o"; "$H" run -r "$T" --query-list "$W/queries.txt" -o "$o" --device "$DEV" --quiet || return 1 ;;
    list+ix) rmdir "$o"; "$H" run --index "$W/t.hzi" --query-list "$W/queries.txt" -o "$o" --device "$DEV" --quiet || return 1 ;;
    esac
    el "$s" "$(now)"
}
V=(sep sep+ix list list+ix)
declare -A TIMES
for r in $(seq 1 "$REPS"); do
    for k in 0 1 2 3; do
        v=${V[$(((k + r - 1) % 4))]}
        t=$(run_variant "$v" "$W/$v") || { echo "variant $v failed"; exit 1; }
        TIMES[$v]="${TIMES[$v]:-} $t"
        if [ "$v" != sep ] && [ -d "$W/sep" ]; then   # every query's folder equals sep's
            for d in "$W/sep"/0*; do
                diff -r -x manifest.json "$d" "$W/$v/$(basename "$d")" >/dev/null || { echo "DIFFERENT: $v $(basename "$d")"; exit 1; }
            done
        fi
    done
done
med() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END{print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
SEP=$(echo "${TIMES[sep]}" | med)
SEGS=$(cat "$W/sep"/0*/*.segments 2>/dev/null | wc -l)
echo "target $(basename "$T"), $NQ queries from $QD, device $DEV, $REPS reps (rotating order), $SEGS segments in all;"
echo "index build $IXS s, $(stat -c %s "$W/t.hzi") bytes; byte-identical outputs checked (every query folder == sep's)"
echo
echo "| variant | wall s (median) | all reps | vs sep |"
echo "|---|---|---|---|"
for v in "${V[@]}"; do
    m=$(echo "${TIMES[$v]}" | med)
    echo "| $v | $m |${TIMES[$v]} | $(awk -v a="$m" -v b="$SEP" 'BEGIN{printf "%+.1f%%", 100*(a-b)/b}') |"
done
