#!/usr/bin/env bats
# The source layers point one way (docs/architecture.md): core < io < hsp, gapped < out < run
# < app, hsp and gapped siblings, cuda/hsp with hsp.  tests/lib/layers.py checks the includes
# of the tree and the names the object files take from each other (nm on the build); here on
# the real tree and on planted violations in scratch copies.  Seconds: no hspz run.

load ../lib/common

LAYERS="$HZ_LIB/layers.py"
BUILD="$HZ_REPO/${BUILD_DIR:-build}"

setup() {
    T="$(mktemp -d)"
}

teardown() {
    rm -rf "$T"
}

# scratch copy of the layered folders
copy_tree() {
    mkdir -p "$T/tree"
    cp -r "$HZ_REPO/src" "$HZ_REPO/cuda" "$T/tree/"
}

# fake_obj LAYER/NAME C-SOURCE: the source $T/tree/src/LAYER/NAME.c and its object file at
# the place CMake puts hzcore's (CMakeFiles/hzcore.dir/src/LAYER/NAME.c.o) in $T/build
fake_obj() {
    local d="$T/build/CMakeFiles/hzcore.dir/src/$(dirname "$1")"
    mkdir -p "$d" "$T/tree/src/$(dirname "$1")"
    printf '%s\n' "$2" >"$T/tree/src/$1.c"
    "${CC:-cc}" -c -o "$d/$(basename "$1").c.o" "$T/tree/src/$1.c"
}

@test "layers: every include of src/ and cuda/ names its own or a lower layer" {
    run python3 "$LAYERS" includes
    echo "$output"
    [ "$status" -eq 0 ]
    [ -z "$output" ]
}

@test "layers: no object file of the build uses a higher layer's name, no cycle between .c files" {
    ls "$BUILD"/CMakeFiles/hzcore.dir/src/core/*.o >/dev/null 2>&1 ||
        skip "no object files under $BUILD/CMakeFiles/hzcore.dir (build first: tests/run_tests.sh builds it)"
    run python3 "$LAYERS" names "$BUILD"
    echo "$output"
    [ "$status" -eq 0 ]
    # the graph was really read: an object for every .c of hzcore (all but main.c), and the
    # run layer's driver takes names from ten files or more below it
    run python3 -c "
import sys; sys.path.insert(0, '$HZ_LIB'); import layers as L
g = L.name_graph(L.symbol_tables(L.object_files('$BUILD', '$HZ_REPO')))
print(len(g), len(g['src/run/pipeline.c']))"
    echo "$output"
    read -r nfiles nuses <<<"$output"
    [ "$nfiles" -eq "$(find src -name '*.c' ! -path src/app/main.c | wc -l)" ]
    [ "$nuses" -ge 10 ]
}

@test "layers: a planted upward include (core includes run's pipeline.h) fails with file, line and layers" {
    copy_tree
    n=$(($(wc -l <"$T/tree/src/core/shquote.c") + 1))
    echo '#include "pipeline.h"' >>"$T/tree/src/core/shquote.c"
    run python3 "$LAYERS" includes --root "$T/tree"
    echo "$output"
    [ "$status" -eq 1 ]
    [ "$output" = "src/core/shquote.c:$n: includes src/run/pipeline.h: core may not include run (higher layer)" ]
}

@test "layers: a planted sibling include (hsp includes gapped.h) and an unknown header fail" {
    copy_tree
    sed -i '1i #include "gapped.h"' "$T/tree/src/hsp/gate.c"
    sed -i '1i #include "nosuch_header.h"' "$T/tree/cuda/hsp/gate.cu"
    run python3 "$LAYERS" includes --root "$T/tree"
    echo "$output"
    [ "$status" -eq 1 ]
    grep -qx 'src/hsp/gate.c:1: includes src/gapped/gapped.h: hsp may not include gapped (sibling layer)' <<<"$output"
    grep -qx 'cuda/hsp/gate.cu:1: includes "nosuch_header.h": not found in the tree nor a system header' <<<"$output"
    [ "$(wc -l <<<"$output")" -eq 2 ]
}

@test "layers: a planted name-level cycle between two .c files fails and lists it" {
    fake_obj run/ping 'int hz_fake_pong(int); int hz_fake_ping(int n) { return n ? hz_fake_pong(n - 1) : 0; }'
    fake_obj run/pong 'int hz_fake_ping(int); int hz_fake_pong(int n) { return n ? hz_fake_ping(n - 1) : 1; }'
    fake_obj core/leaf 'int hz_fake_leaf(void) { return 7; }'
    run python3 "$LAYERS" names --root "$T/tree" "$T/build"
    echo "$output"
    [ "$status" -eq 1 ]
    [ "$output" = "cycle of 2 files: src/run/ping.c -(hz_fake_pong)-> src/run/pong.c -(hz_fake_ping)-> src/run/ping.c" ]
}

@test "layers: a planted upward use of a name (core calls a run function) fails" {
    fake_obj run/driver 'int hz_fake_leaf(void); int hz_fake_drive(void) { return hz_fake_leaf(); }'
    fake_obj core/leaf 'int hz_fake_drive(void); int hz_fake_leaf(void) { return 7; } int hz_fake_up(void) { return hz_fake_drive(); }'
    run python3 "$LAYERS" names --root "$T/tree" "$T/build"
    echo "$output"
    [ "$status" -eq 1 ]
    grep -qx 'src/core/leaf.c: uses hz_fake_drive of src/run/driver.c: core may not use run (higher layer)' <<<"$output"
    # the same two files also form a cycle
    grep -q '^cycle of 2 files: src/core/leaf.c -(hz_fake_drive)-> src/run/driver.c -(hz_fake_leaf)-> src/core/leaf.c$' <<<"$output"
}
