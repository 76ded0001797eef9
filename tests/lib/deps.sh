# Debian 12 packages that hspZ's build, tests and benchmarks need.  Source this file, then
# call hz_install_deps.  Used by .ci/run and tests/demo.sh.
#
# Pinned where the brief of the project fixes a version (the ones the goldens and the LASTZ
# comparison were made with); security-updated libraries are left unpinned so a Debian point
# release cannot break the install.  Packages already installed (at the pinned version, where
# there is one) are skipped, and apt-get is not called at all when nothing is missing.

HZ_PACKAGES=(
    build-essential
    cmake=3.25.1-1
    pkg-config
    zlib1g-dev
    libhts-dev=1.16+ds-3
    bats=1.8.2-1
    lastz=1.04.22-2
    python3
    time
    libyaml-dev
    libjansson-dev
    libarchive-dev
    libssl-dev
    python3-pip
)

# Python packages from PyPI, pinned (pip, as "NAME==VERSION"): jsonschema validates the run
# manifest against docs/manifest.schema.json (tests/bats/manifest.bats).  Installed only when
# the pinned version is not importable; where PyPI cannot be reached, Debian's
# python3-jsonschema (4.10.3, also Draft 2020-12) is installed instead and said so.
HZ_PY_PACKAGES=(
    jsonschema==4.26.0
)
HZ_PY_FALLBACK_APT=(python3-jsonschema)

# hz_missing_packages — print the entries of HZ_PACKAGES that are not installed as wanted.
hz_missing_packages() {
    local spec name ver have
    for spec in "${HZ_PACKAGES[@]}"; do
        name="${spec%%=*}"
        ver=""; [ "$name" = "$spec" ] || ver="${spec#*=}"
        have="$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)"
        case "$have" in
            "install ok installed "*)
                if [ -z "$ver" ] || [ "${have##* }" = "$ver" ]; then continue; fi ;;
        esac
        echo "$spec"
    done
}

hz_install_deps() {
    local missing sudo=""
    mapfile -t missing < <(hz_missing_packages)
    if [ "${#missing[@]}" -eq 0 ]; then
        echo "deps: all ${#HZ_PACKAGES[@]} packages present"
        return 0
    fi
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "deps: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    if ! $sudo apt-get install -y -qq --no-install-recommends --allow-downgrades "${missing[@]}"; then
        # A pinned version that the mirror no longer serves: take the current one, say so.
        echo "deps: pinned install failed; retrying without versions" >&2
        $sudo apt-get install -y -qq --no-install-recommends "${missing[@]%%=*}"
    fi
}

# hz_missing_py_packages — print the entries of HZ_PY_PACKAGES not installed at their version.
hz_missing_py_packages() {
    local spec name ver have
    for spec in "${HZ_PY_PACKAGES[@]}"; do
        name="${spec%%==*}"; ver="${spec#*==}"
        have="$(python3 -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))' "$name" 2>/dev/null || true)"
        [ "$have" = "$ver" ] || echo "$spec"
    done
}

hz_install_py_deps() {
    local missing sudo=""
    mapfile -t missing < <(hz_missing_py_packages)
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
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${HZ_PY_FALLBACK_APT[@]}" ||
        echo "deps: no jsonschema: the manifest schema tests will be skipped" >&2
}
