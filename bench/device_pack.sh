#!/bin/bash
# device_pack — stage what a device call needs under .dev/ (ignored by git; see
# .git/info/exclude) within the device tool's 64 MiB carry limit.
#   bench/device_pack.sh base            .dev/bin (hspz, fuzz_chunk, gate_bench from BUILD_DIR),
#                                        .dev/lib.tar.xz (shared libraries hspz needs beyond
#                                        libc), .dev/cases (golden case.json files)
#   bench/device_pack.sh data PAIR...    .dev/data/data/PAIR (tiny/small pairs; case paths
#                                        ../shared/ map to .dev/data/)
#   bench/device_pack.sh put DIR PAIR... ../shared/data/PAIR into .dev/DIR/PAIR
#   bench/device_pack.sh pack            .dev/bin/* into .dev/bin.tar.xz (a quarter of the size;
#                                        device_env.sh unpacks it), .dev/bin emptied
# On the device: tar xJf .dev/lib.tar.xz -C .dev/lib; export LD_LIBRARY_PATH=$PWD/.dev/lib
set -eu
S=${HSPZ_SHARED:-../shared}
BUILD=${BUILD_DIR:-build}
cmd=${1:?base|data|put|pack}; shift
case $cmd in
base)
    rm -rf .dev/bin .dev/bin.tar.xz .dev/libtmp .dev/lib.tar.xz .dev/cases; mkdir -p .dev/bin .dev/libtmp .dev/cases
    cp $BUILD/hspz $BUILD/tests/gpu/fuzz_chunk $BUILD/gate_bench .dev/bin/
    ldd $BUILD/hspz $BUILD/gate_bench | awk '/=> \//{print $3}' | sort -u | grep -vE '/(libc|libm|ld-linux|libpthread|libdl|librt)[.-]' |
        while read -r l; do cp -L "$l" .dev/libtmp/; done
    tar cJf .dev/lib.tar.xz -C .dev/libtmp .; rm -rf .dev/libtmp
    for c in $S/golden/kegalign-v03/*/*/case.json; do   # tiny and small cases only
        set=$(basename $(dirname $c)); pair=$(basename $(dirname $(dirname $c)))
        case $pair in medium_*|large_*) continue ;; esac
        mkdir -p .dev/cases/${pair}__$set; cp $c .dev/cases/${pair}__$set/
    done ;;
data)
    for p in "$@"; do mkdir -p .dev/data/data/$p; cp $S/data/$p/* .dev/data/data/$p/; done
    for g in $S/golden/kegalign/*/inputs; do    # the synthetic tiny pairs' inputs
        mkdir -p .dev/data/golden/kegalign/$(basename $(dirname $g)); cp -r $g .dev/data/golden/kegalign/$(basename $(dirname $g))/
    done ;;
pack)
    tar cJf .dev/bin.tar.xz -C .dev/bin . && rm -f .dev/bin/* ;;
put)
    d=$1; shift
    for p in "$@"; do mkdir -p .dev/$d/$p; cp $S/data/$p/* .dev/$d/$p/; done ;;
esac
du -sh .dev/* 2>/dev/null
