#!/usr/bin/env bash
# Build and run the real images (issue 9): a Docker daemon from Debian's docker.io, a Debian 12
# base made with debootstrap and imported as both stages' base (no registry can be reached;
# CUDA off in this build), container/Dockerfile built and its smoke script run with
# `docker run --rm --network none` (as root and as an arbitrary UID), a user's run through a
# bind mount, the labels and entrypoint checked; then the Apptainer image built from
# `docker save` with container/hspz.def inside a Debian sid root (Apptainer is not packaged
# for bookworm) as an ordinary user with --fakeroot, and `apptainer test` / `apptainer run`.
#
#   .ci/container.sh WORKDIR      (WORKDIR/deb12 from .ci/fresh-root.sh is reused if there)
# Leaves the daemon running for .ci/galaxy.sh when CI_KEEP_DOCKERD=1 (its socket is
# WORKDIR/docker/docker.sock; stop it with: kill "$(cat WORKDIR/docker/docker.pid)").
# Last line: "container: N passed, N failed"; exit status 0 when nothing failed.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib.sh
source .ci/lib.sh
W="$(mkdir -p "${1:?WORKDIR}" && cd "$1" && pwd)"
VERSION="$(sed -nE 's/^project\(hspz VERSION ([0-9.]+).*/\1/p' CMakeLists.txt)"
IMAGE="hspz:$VERSION"
REVISION="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
DK="$W/docker"
export DOCKER_HOST="unix://$DK/docker.sock"
DOCKER=/usr/bin/docker           # Debian's client, matching Debian's daemon
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "container: ok: $*"; }
bad() { fail=$((fail + 1)); echo "container: FAILED: $*"; }
finish() {
    echo "container: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}

ci_host_tools docker.io debootstrap uidmap

# ---------------------------------------------------------------- the daemon
mkdir -p "$DK"
if ! $DOCKER version >/dev/null 2>&1; then
    dockerd --data-root "$DK/data" --exec-root "$DK/exec" -H "$DOCKER_HOST" --pidfile "$DK/docker.pid" \
        --bridge=none --iptables=false >"$DK/dockerd.log" 2>&1 &
    for _ in $(seq 60); do $DOCKER version >/dev/null 2>&1 && break; sleep 1; done
fi
if ! $DOCKER version >/dev/null 2>&1; then
    tail -n 20 "$DK/dockerd.log"; bad "dockerd did not start"; finish; exit 1
fi
[ "${CI_KEEP_DOCKERD:-0}" = 1 ] || trap 'kill "$(cat "$DK/docker.pid")" 2>/dev/null || true' EXIT
echo "container: $($DOCKER version --format 'docker client {{.Client.Version}}, daemon {{.Server.Version}}')"

# ---------------------------------------------------------------- base and build
t0=$SECONDS
ci_debootstrap bookworm "$W/deb12"
if ! $DOCKER image inspect local/debian:12 >/dev/null 2>&1; then
    tar -C "$W/deb12" --exclude=./.ci-complete -c . | $DOCKER import - local/debian:12 >/dev/null
fi
if $DOCKER build --network host -f container/Dockerfile \
        --build-arg BUILD_BASE=local/debian:12 --build-arg RUN_BASE=local/debian:12 \
        --build-arg HSPZ_CUDA=OFF --build-arg VERSION="$VERSION" --build-arg REVISION="$REVISION" \
        -t "$IMAGE" . >"$W/docker-build.log" 2>&1; then
    ok "docker build of container/Dockerfile on local/debian:12 ($((SECONDS - t0)) s, $($DOCKER image inspect -f '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1/1e6}'))"
else
    tail -n 30 "$W/docker-build.log"; bad "docker build"; finish; exit 1
fi

# ---------------------------------------------------------------- image facts
lbl() { $DOCKER image inspect -f "{{index .Config.Labels \"$1\"}}" "$IMAGE"; }
[ "$(lbl org.opencontainers.image.revision)" = "$REVISION" ] && [ "$(lbl org.opencontainers.image.version)" = "$VERSION" ] &&
    [ "$(lbl org.opencontainers.image.title)" = hspZ ] && [ -n "$(lbl org.opencontainers.image.licenses)" ] &&
    [ -n "$(lbl org.opencontainers.image.source)" ] && [ "$(lbl software.version)" = "$VERSION" ] &&
    [ "$(lbl software)" = hspz ] &&
    ok "OCI and BioContainers labels (revision $REVISION)" || bad "labels: $($DOCKER image inspect -f '{{json .Config.Labels}}' "$IMAGE")"
ep="$($DOCKER image inspect -f '{{json .Config.Entrypoint}}|{{json .Config.Cmd}}' "$IMAGE")"
[ "$ep" = 'null|["hspz","--help"]' ] && ok "ENTRYPOINT [] and CMD hspz --help" || bad "entrypoint/cmd: $ep"
out="$($DOCKER run --rm --network none "$IMAGE" 2>&1)"   # no "| head": under pipefail its SIGPIPE fails the run
out="${out%%$'\n'*}"
case "$out" in Usage:\ hspz*) ok "the default command prints hspz's usage" ;; *) bad "default command: $out" ;; esac

# same_files EXPECTED_DIR DIR — every file of EXPECTED_DIR is in DIR with the same bytes.
same_files() {
    local f
    for f in "$1"/*; do cmp -s "$f" "$2/$(basename "$f")" || { echo "container: $2/$(basename "$f") differs"; return 1; }; done
}

# ---------------------------------------------------------------- runs
if $DOCKER run --rm --network none "$IMAGE" sh /usr/local/share/hspz/smoke.sh; then
    ok "smoke.sh as root"
else
    bad "smoke.sh as root"
fi
if $DOCKER run --rm --network none --user 4242:4343 "$IMAGE" sh /usr/local/share/hspz/smoke.sh | tail -n 2; then
    ok "smoke.sh as uid 4242"
else
    bad "smoke.sh as uid 4242"
fi
# What README tells a cloud user to type (less --gpus all: no GPU here), on a bind mount.
u="$W/user"; rm -rf "$u"; mkdir -p "$u"
cp tests/data/apple_orange/apple.fasta.gz tests/data/apple_orange/orange.fasta.gz "$u/"
chown -R 4242:4343 "$u"
if $DOCKER run --rm --network none --user 4242:4343 -v "$u:/data" "$IMAGE" \
        hspz run -r apple.fasta.gz -q orange.fasta.gz -o out --tarball --quiet &&
   [ -f "$u/out/manifest.json" ] && [ -f "$u/out.tar.gz" ] &&
   [ "$(stat -c %u "$u/out/manifest.json")" = 4242 ] && same_files tests/golden/kegalign-v03/apple_orange/default/segments "$u/out"; then
    ok "docker run -v DIR:/data hspz run ... --tarball as uid 4242 (files owned by the caller, segments equal the apple/orange golden)"
else
    bad "docker run with a bind mount"
fi
# The gapped stage in the same image: the package's first lastz command runs there.
if $DOCKER run --rm --network none --user 4242:4343 -v "$u:/data" "$IMAGE" sh -c \
        'mkdir -p x && tar -xzf out.tar.gz -C x && cd x/galaxy/files && lastz work/ref.2bit"[multiple]" work/query.2bit \
         --format=maf --segments=tmp1.block0.r0.plus.segments --output=/data/gapped.maf --strand=plus' &&
   grep -q '^a score=' "$u/gapped.maf"; then
    ok "lastz in the image runs the gapped stage on the package ($(grep -c '^a score=' "$u/gapped.maf") MAF blocks)"
else
    bad "lastz on the package inside the image"
fi

# ---------------------------------------------------------------- Apptainer
t0=$SECONDS
S="$W/sid"
if ! ci_debootstrap sid "$S"; then bad "debootstrap sid"; finish; exit 1; fi
trap 'ci_root_umount "$S"; [ "${CI_KEEP_DOCKERD:-0}" = 1 ] || kill "$(cat "$DK/docker.pid")" 2>/dev/null || true' EXIT
ci_root_mount "$S"
if ! chroot "$S" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive sh -c \
        'command -v apptainer >/dev/null || { apt-get -qq -o Acquire::Check-Valid-Until=false update &&
         apt-get install -y -qq --no-install-recommends apptainer squashfs-tools; }' >"$W/sid-apt.log" 2>&1; then
    tail -n 20 "$W/sid-apt.log"; bad "apptainer install in the sid root"; finish; exit 1
fi
ci_root_umount "$S"
chroot "$S" sh -c 'id builder >/dev/null 2>&1 || useradd -m builder
    grep -q "^builder:" /etc/subuid || echo builder:100000:65536 >>/etc/subuid
    grep -q "^builder:" /etc/subgid || echo builder:100000:65536 >>/etc/subgid'
b="$S/home/builder/b"; rm -rf "$b"; mkdir -p "$b"
$DOCKER save "$IMAGE" -o "$b/hspz.docker.tar"
cp container/hspz.def tests/data/tiny_mtdna_human_vs_orangutan/MT-human.fa tests/data/tiny_mtdna_human_vs_orangutan/MT-orang.fa "$b/"
mkdir -p "$b/expected"; cp tests/golden/kegalign-v03/tiny_mtdna_human_vs_orangutan/default/segments/* "$b/expected/"
chroot "$S" chown -R builder: /home/builder/b
# Apptainer refuses a plain chroot: a private mount namespace with the root pivoted in.
apptainer_as_builder() {
    unshare --mount sh -eu -c '
        r=$1; shift
        mount --make-rprivate /
        mount --rbind "$r" "$r"; mount -t proc proc "$r/proc"
        mount --rbind /dev "$r/dev"; mount --rbind /sys "$r/sys"
        cd "$r"; mkdir -p .oldroot; pivot_root . .oldroot; cd /
        mount -t tmpfs tmpfs /tmp; umount -l /.oldroot
        exec /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/home/builder su builder -c "cd ~/b && $*"' \
        sh "$S" "$@"
}
if apptainer_as_builder 'apptainer build --fakeroot hspz.sif hspz.def' >"$W/apptainer-build.log" 2>&1; then
    ok "apptainer build --fakeroot hspz.sif from docker-archive, %test inside ($((SECONDS - t0)) s, $(du -m "$b/hspz.sif" | cut -f1) MB)"
    grep -E '^smoke: ' "$W/apptainer-build.log" | tail -n 1
else
    tail -n 30 "$W/apptainer-build.log"; bad "apptainer build"; finish; exit 1
fi
apptainer_as_builder 'apptainer test hspz.sif' >"$W/apptainer-test.log" 2>&1 &&
    grep -q '^smoke: 4 passed, 0 failed' "$W/apptainer-test.log" &&
    ok "apptainer test hspz.sif ($(grep -c '^smoke: ok' "$W/apptainer-test.log") smoke checks as uid $(chroot "$S" id -u builder))" ||
    { tail -n 20 "$W/apptainer-test.log"; bad "apptainer test"; }
v="$(apptainer_as_builder 'apptainer run hspz.sif --version' 2>/dev/null | tail -n 1)"
[ "$v" = "$VERSION" ] && ok "apptainer run hspz.sif --version passes its arguments to hspz ($v)" || bad "apptainer run --version: $v"
apptainer_as_builder 'apptainer run hspz.sif run -r MT-human.fa -q MT-orang.fa -o out --quiet' >"$W/apptainer-run.log" 2>&1 &&
    same_files "$b/expected" "$b/out" && ok "apptainer run hspz.sif run ... in the user's folder equals the golden" ||
    { cat "$W/apptainer-run.log"; bad "apptainer run hspz.sif run: output missing or not the golden"; }
finish
