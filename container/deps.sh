#!/usr/bin/env bash
# The one list of what hspZ needs from the distribution, shared by tests/demo.sh, .ci/run,
# container/Dockerfile and container/hspz.def.
#
#   container/deps.sh SET...        install the sets (apt-get; root or sudo)
#   source container/deps.sh        then hz_install SET..., hz_install_py
#
# Sets:
#   build    compiler, cmake, pkg-config and the -dev libraries hspz links
#   runtime  the shared libraries the built hspz needs, a font for the report's PNG, lastz
#            (the gapped stage), bash, ps
#   test     bats, python3 with pip, GNU time, lastz, chromium (the report's browser test;
#            tests/run_tests.sh), groovy (main.nf's helper functions, tests/bats/nextflow.bats)
#   python   the pinned PyPI packages of the tests (jsonschema), with pip
#   sanitize clang 14 with its runtimes (ASan, UBSan, LSan, libFuzzer) and llvm-symbolizer,
#            for .ci/sanitize.sh (-DHSPZ_SANITIZE, -DHSPZ_FUZZ)
#
# On Debian 12 (bookworm) the packages the goldens and the LASTZ comparison depend on are
# pinned (cmake, libhts-dev, bats, lastz); security-updated libraries (and chromium, which
# Debian updates through bookworm-security) are not, so a point release cannot break the install.  On other bases (NVIDIA's Ubuntu CUDA images) the same
# packages are installed unpinned, and runtime libraries renamed by Ubuntu's 64-bit time_t
# transition are found by their alternatives ("libhts3t64|libhts3").  Packages already
# installed as wanted are skipped; apt-get is not called when nothing is missing.

HZ_BUILD_PACKAGES=(
    build-essential
    cmake=3.25.1-1
    pkg-config
    zlib1g-dev
    libhts-dev=1.16+ds-3
    libyaml-dev
    libjansson-dev
    libarchive-dev
    libssl-dev
    libcairo2-dev
    libisal-dev
    libdeflate-dev
)
HZ_RUNTIME_PACKAGES=(
    "libhts3t64|libhts3"
    "libyaml-0-2"
    "libjansson4"
    "libarchive13t64|libarchive13"
    "libssl3t64|libssl3"
    "zlib1g"
    "libcairo2"
    "libisal2"
    "libdeflate0"
    fonts-dejavu-core
    lastz=1.04.22-2
    bash
    procps
)
HZ_SANITIZE_PACKAGES=(
    clang-14
    libclang-rt-14-dev
    llvm-14
)
HZ_TEST_PACKAGES=(
    bats=1.8.2-1
    lastz=1.04.22-2
    python3
    python3-pip
    python3-yaml
    time
    chromium
    groovy
)

# Python packages from PyPI, pinned: jsonschema validates the run manifest against
# docs/manifest.schema.json (tests/bats/manifest.bats).  Where PyPI cannot be reached,
# Debian's python3-jsonschema (4.10.3, also Draft 2020-12) is installed instead, said so.
HZ_PY_PACKAGES=(
    jsonschema==4.26.0
)
HZ_PY_FALLBACK_APT=(python3-jsonschema)

hz_sudo() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# hz_is_bookworm — true on Debian 12, where the pins apply.
hz_is_bookworm() {
    [ -r /etc/os-release ] && grep -qx 'VERSION_CODENAME=bookworm' /etc/os-release &&
        grep -qx 'ID=debian' /etc/os-release
}

# hz_installed NAME [VERSION] — true when NAME is installed (at VERSION, if given).
hz_installed() {
    local have
    have="$(dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null || true)"
    case "$have" in
        "install ok installed "*) [ -z "${2:-}" ] || [ "${have##* }" = "$2" ] ;;
        *) return 1 ;;
    esac
}

# hz_set_list SET — print the package entries of SET, one a line.
hz_set_list() {
    case "$1" in
        build) printf '%s\n' "${HZ_BUILD_PACKAGES[@]}" ;;
        runtime) printf '%s\n' "${HZ_RUNTIME_PACKAGES[@]}" ;;
        test) printf '%s\n' "${HZ_TEST_PACKAGES[@]}" ;;
        sanitize) printf '%s\n' "${HZ_SANITIZE_PACKAGES[@]}" ;;
        *) echo "deps: unknown set '$1' (build, runtime, test, python, sanitize)" >&2; return 2 ;;
    esac
}

# hz_missing SET... — print what apt-get must install for the sets: NAME=VERSION on
# bookworm where pinned, NAME elsewhere; of alternatives "a|b", the first one apt knows
# (after an update) unless one is already installed.
hz_missing() {
    local set spec name ver alt found pin=0
    local -a alts
    hz_is_bookworm && pin=1
    for set in "$@"; do
        hz_set_list "$set" || return 2
    done | awk '!seen[$0]++' | while IFS= read -r spec; do
        found=""
        IFS='|' read -r -a alts <<<"$spec"
        for alt in "${alts[@]}"; do
            name="${alt%%=*}"; ver=""
            [ "$name" = "$alt" ] || ver="${alt#*=}"
            [ "$pin" = 1 ] || ver=""
            if hz_installed "$name" "$ver"; then found=ok; break; fi
        done
        [ -n "$found" ] && continue
        for alt in "${alts[@]}"; do
            name="${alt%%=*}"; ver=""
            [ "$name" = "$alt" ] || ver="${alt#*=}"
            [ "$pin" = 1 ] || ver=""
            if [ "${#alts[@]}" -eq 1 ] || apt-cache show "$name" >/dev/null 2>&1; then
                echo "$name${ver:+=$ver}"; found=ok; break
            fi
        done
        [ -n "$found" ] || echo "${alts[0]%%=*}"    # let apt-get say it is unknown
    done
}

# hz_install SET... — install the missing packages of the sets (python: the pip packages).
hz_install() {
    local sets=() s py=0
    for s in "$@"; do
        if [ "$s" = python ]; then py=1; else sets+=("$s"); fi
    done
    # The apt sets first: pip itself comes from the test set.
    if [ "${#sets[@]}" -gt 0 ]; then hz_install_apt "${sets[@]}" || return 1; fi
    [ "$py" = 0 ] || hz_install_py
}

# hz_install_apt SET... — apt-get install the missing packages of the sets.
hz_install_apt() {
    local missing updated=0
    export DEBIAN_FRONTEND=noninteractive
    # Alternatives need package lists; fetch them once when nothing is cached.
    if ! compgen -G "/var/lib/apt/lists/*_Packages" >/dev/null; then
        hz_sudo apt-get update -qq --error-on=any || return 1
        updated=1
    fi
    mapfile -t missing < <(hz_missing "$@")
    if [ "${#missing[@]}" -eq 0 ]; then
        echo "deps: $*: all packages present"
        return 0
    fi
    echo "deps: installing ${missing[*]}"
    [ "$updated" = 1 ] || hz_sudo apt-get update -qq --error-on=any || return 1
    if ! hz_sudo apt-get install -y -qq --no-install-recommends --allow-downgrades "${missing[@]}"; then
        # A pinned version that the mirror no longer serves: take the current one, say so.
        echo "deps: pinned install failed; retrying without versions" >&2
        hz_sudo apt-get install -y -qq --no-install-recommends "${missing[@]%%=*}" || return 1
    fi
}

# hz_install_py — pip-install the entries of HZ_PY_PACKAGES not importable at their version.
hz_install_py() {
    local spec name have missing=()
    for spec in "${HZ_PY_PACKAGES[@]}"; do
        name="${spec%%==*}"
        have="$(python3 -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))' "$name" 2>/dev/null || true)"
        [ "$have" = "${spec#*==}" ] || missing+=("$spec")
    done
    if [ "${#missing[@]}" -eq 0 ]; then
        echo "deps: all ${#HZ_PY_PACKAGES[@]} python packages present"
        return 0
    fi
    echo "deps: pip installing ${missing[*]}"
    # Debian 12 marks its python as externally managed (PEP 668): --break-system-packages
    # (pip >= 23.0) installs into /usr/local (root) or ~/.local; older pips do not know it.
    if python3 -m pip install --quiet --disable-pip-version-check --break-system-packages "${missing[@]}" ||
       python3 -m pip install --quiet --disable-pip-version-check "${missing[@]}"; then
        return 0
    fi
    echo "deps: pip install failed (no PyPI?); installing ${HZ_PY_FALLBACK_APT[*]} from Debian" >&2
    DEBIAN_FRONTEND=noninteractive hz_sudo apt-get install -y -qq --no-install-recommends "${HZ_PY_FALLBACK_APT[@]}" ||
        echo "deps: no jsonschema: the manifest schema tests will be skipped" >&2
}

# Compatibility names used by tests/demo.sh and .ci/run.
hz_install_deps() { hz_install build test; }
hz_install_py_deps() { hz_install_py; }

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    [ "$#" -gt 0 ] || { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
    hz_install "$@"
fi
