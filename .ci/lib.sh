# Helpers shared by the .ci scripts (source it).  Everything here works as root on a
# Debian 12 machine that reaches Debian's archive and PyPI only.

# ci_mirror — the Debian mirror this machine's apt uses (first URIs: of debian.sources, or
# the first deb line of sources.list), for debootstrap.
ci_mirror() {
    local m=""
    if [ -r /etc/apt/sources.list.d/debian.sources ]; then
        m="$(sed -nE 's/^URIs:[[:space:]]*([^[:space:]]+).*/\1/p' /etc/apt/sources.list.d/debian.sources | awk 'NR == 1')"
    fi
    if [ -z "$m" ] && [ -r /etc/apt/sources.list ]; then
        m="$(sed -nE 's/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+)[[:space:]].*/\2/p' /etc/apt/sources.list | awk 'NR == 1')"
    fi
    echo "${m:-http://deb.debian.org/debian}"
}

# ci_host_tools PACKAGE... — apt-get install what the host needs for a CI stage, if missing.
ci_host_tools() {
    local p missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ "${#missing[@]}" -eq 0 ] && return 0
    echo "ci: host: installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# ci_debootstrap SUITE DIR — a minbase root of SUITE in DIR (made once; DIR/.ci-complete
# marks a finished one, so an interrupted debootstrap is redone).
ci_debootstrap() {
    local suite="$1" dir="$2"
    [ -f "$dir/.ci-complete" ] && return 0
    rm -rf "$dir"; mkdir -p "$dir"
    echo "ci: debootstrap --variant=minbase $suite $dir $(ci_mirror)"
    debootstrap --variant=minbase "$suite" "$dir" "$(ci_mirror)" >"$dir.debootstrap.log" 2>&1 ||
        { tail -n 20 "$dir.debootstrap.log"; return 1; }
    touch "$dir/.ci-complete"
}

# ci_root_mount DIR — /proc, /sys, /dev (with pts and shm) and the host's DNS inside DIR.
# The mounts are slaves, so unmounting them cannot touch the host's.
ci_root_mount() {
    local r="$1"
    mountpoint -q "$r/proc" || mount -t proc proc "$r/proc"
    mountpoint -q "$r/sys" || { mount --rbind /sys "$r/sys" && mount --make-rslave "$r/sys"; }
    mountpoint -q "$r/dev" || { mount --rbind /dev "$r/dev" && mount --make-rslave "$r/dev"; }
    cp -L /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null || true
    [ -s "$r/etc/hosts" ] || printf '127.0.0.1 localhost\n::1 localhost\n' >"$r/etc/hosts"
}

# ci_root_umount DIR — undo ci_root_mount and any bind under DIR/work (deepest first).
ci_root_umount() {
    local r="$1" m
    while read -r m; do
        umount -l "$m" 2>/dev/null || true
    done < <(awk -v r="$r/" 'index($2, r) == 1 {print $2}' /proc/mounts | sort -r)
}

# ci_count_line FILE — the last "N passed, N failed[, N skipped]" line of FILE, as
# "PASS FAIL SKIP" (empty when there is none).
ci_count_line() {
    grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1 |
        sed -E 's/^([A-Za-z-]+: )?([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?.*/\2 \3 \5/'
}
