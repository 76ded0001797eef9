#!/usr/bin/env bash
# `hspz gapped --outdir … --threads N` against the package's lastz commands run the way
# batched_lastz runs them (every line at once, `xargs -P N`, one single-threaded lastz each).
#
#   bench/gapped_par.sh BUILD_DIR RESULTS_DIR N REF,QRY [REF,QRY ...]
#
#   BUILD_DIR    folder holding the hspz binary (BUILD_DIR/hspz)
#   RESULTS_DIR  where the report goes (gapped_par-<date>-N<N>.md; created if missing)
#   N            threads for hspz and the number of lastz processes at once
#   REF,QRY      a pair of FASTA(.gz) files (target, query)
#
# Environment: RUNS (default 3, runs per variant, alternated), LASTZ (default lastz),
# T1=1 also times `hspz gapped --threads 1`, ALT=PATH also times another hspz binary's `hspz gapped
# --threads N` (an old build, side by side; its outputs checked too), E2E=1 also times the whole process both ways: `hspz
# run` alone (the HSP stage, to add to the lastz arm) and `hspz run --gapped --threads N`, FORMAT (default maf-: the package's
# batched_lastz format; axt+ is not what hspz run writes).
#
# Per pair: `hspz run` writes the folder with lastz-commands.txt; the 2bit files of the Galaxy
# data package (`hspz run --tarball`) go into its work/ so that the lines run unchanged there,
# as batched_lastz runs them in the package's galaxy/files.  Precondition: after the first run of each
# variant every output file (and every .err) of hspz equals lastz's byte for byte, and every
# later run gives the same bytes again; otherwise the script stops with an error.  The table
# shows median wall and CPU (user + sys) seconds, min–max in brackets.
#
# Device host example (16 cores), from the repository root:
#   D=../shared/data
#   bench/gapped_par.sh build bench/results 16 \
#     $D/small_ecoli_k12_vs_ecoli_536/ecoli_K12_MG1655.fa.gz,$D/small_ecoli_k12_vs_ecoli_536/ecoli_536_NC_008253.fa.gz \
#     $D/medium_zymoseptoria_ipo323_vs_zpseudotritici221/ztritici_IPO323.fa.gz,$D/medium_zymoseptoria_ipo323_vs_zpseudotritici221/zpseudotritici_221.fa.gz
set -euo pipefail

[ $# -ge 4 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
BUILD="$(cd "$1" && pwd)"; RESULTS="$2"; N="$3"; shift 3
HSPZ="$BUILD/hspz"; LASTZ="${LASTZ:-lastz}"; RUNS="${RUNS:-3}"
[ -x "$HSPZ" ] || { echo "no hspz in $BUILD" >&2; exit 1; }
command -v "$LASTZ" >/dev/null || { echo "$LASTZ is not installed" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
case $N in ''|*[!0-9]*) echo "N must be a number" >&2; exit 2 ;; esac
mkdir -p "$RESULTS"
TMP="$(mktemp -d /tmp/gapped_par.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}'; }
span() { sort -g | awk 'NR==1{m=$1} {M=$1} END {printf "%s–%s", m, M}'; }

# timed FILE CMD...: append "wall cpu" of CMD to FILE
timed() {
    local f="$1"; shift
    /usr/bin/time -f '%e %U %S' -o "$TMP/t" "$@" || { echo "FAILED: $*" >&2; exit 1; }
    awk '{printf "%s %.2f\n", $1, $2 + $3}' "$TMP/t" >> "$f"
}

# outputs of a run folder (everything the commands wrote), as "sha256  name" lines
digest() { (cd "$1" && sha256sum $(cat "$TMP/outs")); }   # fails when an output is missing

# batched_lastz's way: every line at once, N at a time, each a single-threaded lastz
RUN_LASTZ='cd "$1" && grep -v "^[[:space:]]*$" lastz-commands.txt | sed "s#^lastz #$2 #" | tr "\n" "\0" | xargs -0 -P "$3" -n 1 bash -c'


# the commit: a COMMIT file at the repository root when there is one (a device copy's .git can
# lag its working tree), else git's HEAD
commit="$(head -1 "$(dirname "$0")/../COMMIT" 2>/dev/null || git -C "$(dirname "$0")" rev-parse --short=12 HEAD 2>/dev/null || echo '?')"
REPORT="$RESULTS/gapped_par-$(date -u +%Y-%m-%d)-N$N.md"
{
    echo "# hspz gapped --threads $N vs batched_lastz's way (xargs -P $N) — $(date -u +%Y-%m-%dT%H:%MZ)"
    echo
    echo "- machine: $(nproc) cores, $(sed -nE 's/^model name\s*: (.*)/\1/p' /proc/cpuinfo | head -1), load at start $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- hspz commit $commit ($HSPZ); lastz: $("$LASTZ" --version 2>&1 | sed -n 's/.*version \([0-9.]*\).*/\1/p' | head -1)"
    echo "- $RUNS runs per variant, alternated; wall / CPU = median (min–max) seconds; outputs byte-identical (checked)"
    echo
    echo "| pair | commands | variant | wall s | CPU s |"
    echo "|---|---|---|---|---|"
} > "$TMP/report"

for pair in "$@"; do
    ref="${pair%%,*}"; qry="${pair#*,}"
    name="$(basename "$(dirname "$ref")")"
    P="$TMP/$name"; mkdir -p "$P"
    "$HSPZ" run -r "$ref" -q "$qry" -o "$P/OUT" --quiet --threads "$N"
    "$HSPZ" run -r "$ref" -q "$qry" -o "$P/PKG" --tarball --quiet --threads "$N"
    mkdir -p "$P/pkg" && tar xzf "$P/PKG.tar.gz" -C "$P/pkg"
    F="$P/OUT"          # lastz-commands.txt, segments, names; lastz reads the package's 2bit files
    mv "$P/pkg/galaxy/files/work" "$F/work"
    [ -s "$F/lastz-commands.txt" ] || { echo "$F/lastz-commands.txt is missing" >&2; exit 1; }
    if [ "${FORMAT:-maf-}" != maf- ]; then sed -i "s/--format=maf- /--format=$FORMAT /; s/\.maf- /.$FORMAT /g" "$F/lastz-commands.txt"; fi
    ncmd="$(grep -c . "$F/lastz-commands.txt")"
    sed -nE 's/.*--output=([^ ]+) 2> ([^ ]+).*/\1 \2/p' "$F/lastz-commands.txt" | tr ' ' '\n' > "$TMP/outs"
    clean() { (cd "$1" && rm -f $(cat "$TMP/outs") gapped-manifest.json); }
    variants=(lastz hspz); [ -n "${ALT:-}" ] && variants+=(alt); [ "${T1:-0}" = 1 ] && variants+=(hspz1); [ "${E2E:-0}" = 1 ] && variants+=(hsp e2e)
    rm -f "$P"/*.times
    for ((k = 1; k <= RUNS; k++)); do
        for v in "${variants[@]}"; do
            clean "$F"
            if [ $v = hsp ]; then   # the HSP stage alone: no alignment output to compare
                rm -rf "$P/H"; timed "$P/$v.times" "$HSPZ" run -r "$ref" -q "$qry" -o "$P/H" --quiet --threads "$N"; continue
            fi
            if [ $v = e2e ]; then   # both stages in one process, its own folder
                rm -rf "$P/E"; timed "$P/$v.times" "$HSPZ" run -r "$ref" -q "$qry" -o "$P/E" --quiet --threads "$N" --gapped
                digest "$P/E" > "$P/$v.$k.sum"
                cmp -s "$P/$v.$k.sum" "$P/lastz.1.sum" || { echo "OUTPUT DIFFERS: $name, hspz run --gapped run $k" >&2; diff "$P/lastz.1.sum" "$P/$v.$k.sum" >&2 || true; exit 1; }
                continue
            fi
            case $v in
                lastz) timed "$P/$v.times" bash -c "$RUN_LASTZ" _ "$F" "$LASTZ" "$N" ;;
                hspz)  timed "$P/$v.times" "$HSPZ" gapped --outdir "$F" -r "$ref" -q "$qry" --threads "$N" ;;
                hspz1) timed "$P/$v.times" "$HSPZ" gapped --outdir "$F" -r "$ref" -q "$qry" --threads 1 ;;
                alt)   timed "$P/$v.times" "$ALT" gapped --outdir "$F" -r "$ref" -q "$qry" --threads "$N" ;;
            esac
            digest "$F" > "$P/$v.$k.sum"
            if ! cmp -s "$P/$v.$k.sum" "$P/lastz.1.sum"; then
                echo "OUTPUT DIFFERS: $name, $v run $k against lastz run 1:" >&2
                diff "$P/lastz.1.sum" "$P/$v.$k.sum" >&2 || true
                exit 1
            fi
        done
    done
    for v in "${variants[@]}"; do
        label="lastz × $ncmd, xargs -P $N"; [ $v = hspz ] && label="hspz gapped --threads $N"; [ $v = hspz1 ] && label="hspz gapped --threads 1"
        [ $v = alt ] && label="ALT hspz gapped --threads $N ($ALT)"
        [ $v = hsp ] && label="hspz run (HSP stage alone)"; [ $v = e2e ] && label="hspz run --gapped --threads $N (both stages)"
        w="$(cut -d' ' -f1 "$P/$v.times" | median) ($(cut -d' ' -f1 "$P/$v.times" | span))"
        c="$(cut -d' ' -f2 "$P/$v.times" | median) ($(cut -d' ' -f2 "$P/$v.times" | span))"
        echo "| $name | $ncmd | $label | $w | $c |" >> "$TMP/report"
    done
done
{
    echo
    echo "Command: \`bench/gapped_par.sh $BUILD $RESULTS $N $*\` (RUNS=$RUNS${T1:+ T1=$T1}${ALT:+ ALT=$ALT}${E2E:+ E2E=$E2E})"
} >> "$TMP/report"
cp "$TMP/report" "$REPORT"
cat "$REPORT"
