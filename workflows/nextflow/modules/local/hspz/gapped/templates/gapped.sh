#!/bin/sh
# HSPZ_GAPPED's script (a Nextflow template: Nextflow fills in the task's values; a backslash-dollar is the shell's dollar sign).
# hspz gapped --outdir writes each command's --output and 2> files beside its segments: it runs
# on a folder of links to the staged merged folder's files (HSPZ_MERGE's output is never
# written).  Every command gets the traceback memory batched_lastz gives lastz: hspz gapped
# --outdir --allocate:traceback=1.99G appends it to each line, as lastz would read it there.
# task.ext.args (lastz options, after it, so they win) cannot be given that way: only with them
# is the folder's lastz-commands.txt a copy, with both before each "2>", as in HSPZ_LASTZ.
# Each command's stderr file may hold only lastz's truncation notes, as HSPZ_LASTZ and
# batched_lastz accept them; any other line fails the task.  The notes go to the task's stderr.
set -eu
# task.ext.args verbatim (a quoted here-document: its quotes, spaces and dollars stay as written)
extra=\$(cat <<'HSPZ_EXT_ARGS'
${task.ext.args ?: ''}
HSPZ_EXT_ARGS
)
mkdir gapped
for f in '${outdir}'/*; do
    [ -n "\$extra" ] && [ "\${f##*/}" = lastz-commands.txt ] || ln -s "\$PWD/\$f" gapped/
done
set +e
if [ -n "\$extra" ]; then
    HSPZ_EXTRA=" --allocate:traceback=1.99G \$extra" awk '
        BEGIN { extra = ENVIRON["HSPZ_EXTRA"] }
        !NF { print; next }
        { i = index(\$0, " 2> "); if (i) print substr(\$0, 1, i - 1) extra substr(\$0, i); else print \$0 extra }
    ' '${outdir}/lastz-commands.txt' > gapped/lastz-commands.txt &&
    hspz gapped --outdir gapped -r '${target}' -q '${query}' --threads ${task.cpus}
else
    hspz gapped --outdir gapped -r '${target}' -q '${query}' --threads ${task.cpus} --allocate:traceback=1.99G
fi
rc=\$?
set -e
find gapped -name '*.err' -exec cat {} + > commands.err
cat commands.err >&2
notes='[[:space:]]*(truncating alignment (ending|starting) at [(][0-9]+,[0-9]+[)];  anchor at [(][0-9]+,[0-9]+[)]|truncation can be reduced by using --allocate:traceback to increase traceback memory)[[:space:]]*'
if [ "\$rc" -ne 0 ] || grep -q -v -x -E "\$notes" commands.err; then
    echo "HSPZ_GAPPED: hspz gapped failed (exit \$rc) or a command wrote more than truncation notes on stderr" >&2
    exit 1
fi
# the alignments in the order of lastz-commands.txt (each line's --output= word), with
# batched_lastz's one '##maf version=1' line before MAF alignments
awk '{ for (i = 1; i <= NF; i++) if (\$i ~ /^--output=/) { print substr(\$i, 10); next } }' gapped/lastz-commands.txt > outputs.txt
[ "\$(wc -l < outputs.txt)" -eq "\$(awk 'NF { n++ } END { print n + 0 }' gapped/lastz-commands.txt)" ]
{
    if [ '${extension}' = maf ]; then
        echo '##maf version=1'
    fi
    while read -r out; do
        cat "gapped/\$out"
    done < outputs.txt
} > '${task.ext.prefix ?: meta.id}.${extension}'
