#!/usr/bin/env bash
# Run `hspz gapped` on one golden of ../shared/golden/lastz-gapped and compare its output with
# the stored lastz 1.04.22 output byte for byte.  The sequences are read from the pair's FASTA
# files (the golden's 2bit files are not stored); names, segments and the lastz command line
# are the golden's own.
#   gapped_golden.sh PAIR VARIANT STRAND WORKDIR [THREADS]  (VARIANT maf|axt, STRAND plus|minus;
#   THREADS: --threads=N for hspz, the same bytes expected for every N; HSPZ_GAPPED_EXTRA: more
#   hspz options, e.g. --device=cuda)
# Exit 0 and "MATCH ..." when equal; 1 and a diff summary otherwise.
set -uo pipefail
p=$1 v=$2 s=$3 W=$4 nt=${5:-}
G="$HSPZ_SHARED/golden/lastz-gapped" DATA="$HSPZ_SHARED/data"
mkdir -p "$W"
cmd=$(grep -- "--strand=$s " "$G/$p/$v/lastz_commands.txt") || { echo "no $s command in $p/$v"; exit 1; }
hc=$(cat "$G/$p/$v/hspz_command.txt")
ref=$(sed 's/.*-r \([^ ]*\).*/\1/' <<<"$hc"); qry=$(sed 's/.*-q \([^ ]*\).*/\1/' <<<"$hc")
FIXED=$W
case $ref in *FIXED*)      # the golden's copies with the leading blank of the headers removed
    for f in pseudocat pseudopig; do sed 's/^> */>/' "$DATA/tiny_lastz_pseudocat_vs_pseudopig/$f.fa" > "$W/$f.fa"; done ;;
esac
ref=$(eval echo "$ref"); qry=$(eval echo "$qry")
cp "$G/$p/$v/"*.name "$W/"
for f in "$G/$p/$v/tmp1.block0.r0.$s.segments"*; do
    case $f in *.gz) gunzip -c "$f" > "$W/$(basename "${f%.gz}")" ;; *) cp "$f" "$W/" ;; esac
done
exp=$(ls "$G/$p/$v/tmp1.block0.r0.$s."{maf-,axt}* 2>/dev/null | grep -v segments | head -1)
case $exp in *.gz) gunzip -c "$exp" > "$W/expected" ;; *) cp "$exp" "$W/expected" ;; esac
args=$(sed "s#^lastz work/ref.2bit#$ref#; s# work/query.2bit# $qry#; s# 2>.*##" <<<"$cmd")
cd "$W" || exit 1
eval "\"$HSPZ\" gapped $args ${nt:+--threads=$nt} ${HSPZ_GAPPED_EXTRA:-}" 2> stderr.txt; rc=$?
out=$(ls "tmp1.block0.r0.$s."{maf-,axt} 2>/dev/null | head -1)
if [ "$rc" = 0 ] && [ ! -s stderr.txt ] && cmp -s "$out" expected; then
    echo "MATCH $p $v $s ($(grep -c '^a \|^[0-9]' expected) alignments)"; exit 0
fi
echo "DIFF $p $v $s: rc=$rc"; head -3 stderr.txt; cmp "$out" expected | head -2; exit 1
