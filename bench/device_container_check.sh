#!/bin/bash
# device_container_check — the container's GPU half on the device (issue 9): the release
# build of the Dockerfile's build stage (HSPZ_CUDA=ON, HSPZ_CUDA_ARCHS=release, made on the
# build machine and carried in .dev/ by the commands in bench/results/container-gpu-*.md),
# container/smoke.sh's GPU branch on a real GPU, the architectures in the fatbin, GPU bytes ==
# CPU bytes on real pairs, and what container/deps.sh would install on this Ubuntu 24.04 host
# (the OS of NVIDIA's CUDA images).  Output under $OUT.
set -u
mkdir -p .dev/lib && tar xJf .dev/lib.tar.xz -C .dev/lib
export LD_LIBRARY_PATH=$PWD/.dev/lib PATH=$PWD/.dev/bin:/usr/local/cuda/bin:$PATH
exec > >(tee "$OUT/device_container_check.log") 2>&1
echo "== host"; . /etc/os-release; echo "$PRETTY_NAME"; nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
echo "== hspz version --verbose"; hspz version --verbose; hspZ --version
echo "== fatbin: SASS and PTX in the release binary"
cuobjdump --list-elf .dev/bin/hspz | sed -E 's/.*\.(sm_[0-9]+)\..*/\1/' | sort | uniq -c
cuobjdump --list-ptx .dev/bin/hspz | sed -E 's/.*\.(sm_[0-9]+)\..*/\1/' | sort | uniq -c
echo "== container/smoke.sh (the image's smoke script; /dev/nvidia* present, so its GPU branch runs)"
sh .dev/share/smoke.sh; echo "smoke exit $?"
echo "== GPU bytes == CPU bytes (release binary) on real pairs"
for p in apple_orange:apple.fasta.gz:orange.fasta.gz tiny_aglobin_human_vs_cow:aglobin.2bit:aglobin.2bit pseudocat_pseudopig:pseudocat.fa:pseudopig.2bit; do
    IFS=: read -r d t q <<<"$p"
    rm -rf /tmp/c /tmp/g
    hspz run -r tests/data/$d/$t -q tests/data/$d/$q -o /tmp/c --device cpu --quiet
    hspz run -r tests/data/$d/$t -q tests/data/$d/$q -o /tmp/g --device cuda 2>/tmp/g.err
    dc=$(cat /tmp/c/*.segments | LC_ALL=C sort | sha256sum | cut -c1-16)
    dg=$(cat /tmp/g/*.segments | LC_ALL=C sort | sha256sum | cut -c1-16)
    same=$(diff -r /tmp/c /tmp/g -x manifest.json >/dev/null && echo identical || echo DIFFERENT)
    echo "$d: cpu $dc gpu $dg files $same; $(grep -o 'backend [a-z]*' /tmp/g.err)"
done
echo "== container/deps.sh on Ubuntu 24.04: what the build and runtime stages would install"
bash -c 'source container/deps.sh; hz_is_bookworm && echo bookworm || echo "not bookworm: no pins"; echo "build:"; hz_missing build; echo "runtime:"; hz_missing runtime'
