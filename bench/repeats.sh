#!/bin/bash
# bench/repeats.sh OUTDIR [REPS] — issue 12 item 8: repeat-rich inputs, hspz (CPU) against
# lastz --nogapped (Debian's lastz), optionally against an older hspz (OLD_HSPZ=path).
# Inputs (bench/make_repeats.py, deterministic): a 200 kb tandem array of a 300 bp element
# at 10 % divergence (both strands) and 44 kb A-rich sequences with 70, 80 and 90 % A
# against themselves (--strand plus).  Arms alternate per repetition; whole-process wall
# time and peak RSS (getrusage of the child); medians.  hspz arms must give identical segment files.
# OLD_SKIP='a80 a90' leaves the old arm out where it is known to take minutes.
set -euo pipefail
out="${1:?usage: bench/repeats.sh OUTDIR [REPS]}"; reps="${2:-3}"
here="$(cd "$(dirname "$0")/.." && pwd)"
hspz="${HSPZ:-$here/build/hspz}"; old="${OLD_HSPZ:-}"
threads="${THREADS:-2}"
mkdir -p "$out"
python3 "$here/bench/make_repeats.py" array "$out/array.fa"
for p in 70 80 90; do
    python3 - "$out/a$p.fa" "$p" <<'PY'
import random, sys
rng = random.Random(1)
p = int(sys.argv[2]); o = (100 - p) / 3.0
s = "".join(rng.choices("ACGT", weights=[p, o, o, o], k=44000))
with open(sys.argv[1], "w") as f:
    f.write(">a%d\n" % p)
    for i in range(0, len(s), 60): f.write(s[i:i + 60] + "\n")
PY
done
tsv="$out/runs.tsv"
printf 'input\tarm\trep\twall_s\tmaxrss_kb\n' >"$tsv"
one() {   # one INPUT ARM REP — wall and peak RSS of the child (Python getrusage: no GNU time needed)
    local in="$1" arm="$2" rep="$3" d="$out/o.$1.$2" cmd
    local st=(--strand plus) lst=(--strand=plus)
    [ "$in" = array ] && st=() && lst=()
    rm -rf "$d"
    case "$arm" in
        lastz) cmd=(lastz "$out/$in.fa" "$out/$in.fa" "${lst[@]}" --nogapped --format=general) ;;
        new) cmd=("$hspz" run -r "$out/$in.fa" -q "$out/$in.fa" "${st[@]}" -o "$d" --device cpu --threads "$threads" --quiet) ;;
        old) cmd=("$old" run -r "$out/$in.fa" -q "$out/$in.fa" "${st[@]}" -o "$d" --device cpu --threads "$threads" --quiet) ;;
    esac
    read -r w m < <(python3 -c 'import resource, subprocess, sys, time
s = time.time()
rc = subprocess.call(sys.argv[2:], stdout=open(sys.argv[1], "w"))
w = time.time() - s
if rc: sys.exit("exit %d: %s" % (rc, " ".join(sys.argv[2:])))
print("%.2f %d" % (w, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))' "$out/$arm.$in.out" "${cmd[@]}")
    printf '%s\t%s\t%s\t%s\t%s\n' "$in" "$arm" "$rep" "$w" "$m" >>"$tsv"
    echo "$in $arm rep $rep: $w s, $m KB"
}
for in in ${INPUTS:-array a70 a80 a90}; do
    arms="lastz new"
    if [ -n "$old" ] && ! [[ " ${OLD_SKIP:-} " == *" $in "* ]]; then arms="$arms old"; fi
    for rep in $(seq 1 "$reps"); do
        set -- $arms
        [ $((rep % 2)) -eq 0 ] && set -- $(printf '%s\n' "$@" | tac)
        for arm in "$@"; do one "$in" "$arm" "$rep"; done
    done
    if [[ " $arms " == *" old "* ]]; then
        for f in "$out/o.$in.new"/*.segments; do cmp "$f" "$out/o.$in.old/$(basename "$f")"; done
        echo "$in: new and old segment files identical"
    fi
done
python3 - "$tsv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
keys = sorted({(r["input"], r["arm"]) for r in rows}, key=lambda k: (["array", "a70", "a80", "a90"].index(k[0]), k[1]))
print("| input | arm | runs | median wall s | median peak RSS MB |")
print("|---|---|---|---|---|")
for k in keys:
    rs = [r for r in rows if (r["input"], r["arm"]) == k]
    print("| %s | %s | %d | %.2f | %.0f |" % (k[0], k[1], len(rs), statistics.median(float(r["wall_s"]) for r in rs),
                                             statistics.median(int(r["maxrss_kb"]) for r in rs) / 1024))
PY
