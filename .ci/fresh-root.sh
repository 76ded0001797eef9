#!/usr/bin/env bash
# Run README.md's Quick start commands, verbatim, inside a freshly debootstrapped Debian 12
# minbase root (its own python3 3.11.2, nothing preinstalled), so a missing install step
# fails CI (hardening issue, item 11).  The repository's tracked and untracked-but-not-ignored
# files are copied to /work/hspz in the root; ../shared is bind-mounted read-only at
# /work/shared.  The root runs as a chroot with /proc, /sys and /dev mounted.
#
#   .ci/fresh-root.sh WORKDIR     (WORKDIR/deb12 is the pristine root; WORKDIR/deb12-test
#                                  the one the commands run in)
# Environment: CI_SLOW=1 sets HSPZ_SLOW=1 for the test command (its slow tier).
# Prints the test command's closing "N passed, N failed, N skipped" line last; exit status 0
# only when both commands exited 0.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib.sh
source .ci/lib.sh
W="${1:?WORKDIR}"
R="$W/deb12-test"
mkdir -p "$W"

# The two commands of README's Quick start: the lines of the first ```sh block after it.
mapfile -t cmds < <(awk '/^## Quick start/{q=1} q&&/^```sh/{b=1; next} b&&/^```/{exit} b&&NF' README.md)
if [ "${#cmds[@]}" -ne 2 ]; then
    echo "fresh-root: README's Quick start must hold exactly two commands, found ${#cmds[@]}"
    echo "0 passed, 1 failed"
    exit 1
fi

ci_host_tools debootstrap
ci_debootstrap bookworm "$W/deb12"
ci_root_umount "$R"
rm -rf "$R"
cp -a "$W/deb12" "$R"
trap 'ci_root_umount "$R"' EXIT
# A fresh install's apt sources (bookworm, -updates, -security), as on this machine.
if [ -r /etc/apt/sources.list.d/debian.sources ]; then
    cp /etc/apt/sources.list.d/debian.sources "$R/etc/apt/sources.list.d/"
    rm -f "$R/etc/apt/sources.list"
fi
mkdir -p "$R/work/hspz" "$R/work/shared"
git ls-files -z --cached --others --exclude-standard | tar --null -T - -c | tar -x -C "$R/work/hspz"
ci_root_mount "$R"
if [ -d ../shared ]; then
    mount --bind ../shared "$R/work/shared"
    mount -o remount,bind,ro "$R/work/shared"
fi
echo "fresh-root: $(. "$R/etc/os-release"; echo "$PRETTY_NAME"), $(chroot "$R" sh -c 'command -v python3 || echo "no python3"')"

rc=0
for c in "${cmds[@]}"; do
    echo "fresh-root: \$ $c"
    set +e
    chroot "$R" /usr/bin/env -i HOME=/root LANG=C.UTF-8 CI=true HSPZ_SLOW="${CI_SLOW:-0}" \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        /bin/bash -c "cd /work/hspz && $c" </dev/null 2>&1 | tee "$W/fresh-root.$(echo "$c" | tr -c 'a-z' _).log"
    crc=${PIPESTATUS[0]}
    set -e
    echo "fresh-root: '$c' exited $crc"
    [ "$crc" -eq 0 ] || rc=1
done
echo "fresh-root: python3 in the root: $(chroot "$R" python3 --version 2>&1)"
exit "$rc"
