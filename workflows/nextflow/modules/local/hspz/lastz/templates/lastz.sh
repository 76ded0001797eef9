#!/bin/sh
# HSPZ_LASTZ's script (a Nextflow template: Nextflow fills in the task's values; a backslash-dollar is the shell's dollar sign).
# The command is run as hspz wrote it, from the package's galaxy/files folder; its stderr
# file must stay empty (lastz's own exit status 1 is not an error, as in batched_lastz).
set -eu
mkdir -p package
tar -xzf '${tarball}' -C package
cd package/galaxy/files
set +e
${command}
rc=\$?
set -e
if [ "\$rc" -gt 1 ] || find . -name '*.err' ! -empty | grep -q .; then
    cat ./*.err >&2
    exit 1
fi
mv '${output}' '../../../${index}.${output}'
