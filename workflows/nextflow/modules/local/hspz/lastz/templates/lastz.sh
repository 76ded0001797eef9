#!/bin/sh
# HSPZ_LASTZ's script (a Nextflow template: Nextflow fills in the task's values; a backslash-dollar is the shell's dollar sign).
# The command is run as hspz wrote it, from the package's galaxy/files folder, with the
# traceback memory batched_lastz gives lastz (--allocate:traceback=1.99G; task.ext.args come
# after it and win).  As in batched_lastz: lastz's exit status 1 is not an error, and its
# stderr file may hold only lastz's truncation notes (the alignment is then cut in pieces,
# which batched_lastz accepts); any other line fails the task.  The notes go to the task's stderr.
set -eu
mkdir -p package
tar -xzf '${tarball}' -C package
cd package/galaxy/files
set +e
${command} --allocate:traceback=1.99G ${task.ext.args ?: ''}
rc=\$?
set -e
notes='[[:space:]]*(truncating alignment (ending|starting) at [(][0-9]+,[0-9]+[)];  anchor at [(][0-9]+,[0-9]+[)]|truncation can be reduced by using --allocate:traceback to increase traceback memory)[[:space:]]*'
find . -name '*.err' -exec cat {} + >&2
if [ "\$rc" -gt 1 ] || find . -name '*.err' -exec cat {} + | grep -q -v -x -E "\$notes"; then
    echo "HSPZ_LASTZ: lastz failed (exit \$rc) or wrote more than truncation notes on stderr" >&2
    exit 1
fi
mv '${output}' '../../../${index}.${output}'
