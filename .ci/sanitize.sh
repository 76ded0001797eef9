#!/usr/bin/env bash
# CI stage "sanitize": hspz built with clang 14's AddressSanitizer + UndefinedBehaviorSanitizer
# (LeakSanitizer comes with ASan), then
#   1. the C unit tests (ctest) and every bats suite that runs hspz except golden (only its tiny
#      pairs and one small one: the rest takes too long under ASan), repeats (its peak-RSS limits
#      mean nothing with ASan's shadow memory) and nextflow (no hspz code), and
#      the tiny golden cases plus one small one, all against that build (tests/run_tests.sh
#      with BUILD_DIR=build-sanitize);
#   2. the libFuzzer targets of tests/fuzz (readers of FASTA/gzip/2bit, YAML config, LASTZ score
#      file and plan.json; CPU chunk kernel vs the brute-force reference), each for
#      CI_FUZZ_SECONDS (default 30) from its committed corpus; any crash, leak, UB report or
#      failed property fails (the input is kept under WORKDIR/sanitize/fuzz-artifacts/);
#   3. tests/lib/gapped_fuzz.py (hspz gapped against lastz on random cases) for CI_FUZZ_SECONDS.
# Every report halts (halt_on_error=1, -fno-sanitize-recover=all).  Packages: container/deps.sh
# build test python sanitize.  About 8 minutes on 2 cores.
#
#   .ci/sanitize.sh [WORKDIR]        (default: ../hspz-ci-work; scratch in WORKDIR/sanitize)
#
# Last line: "sanitize: N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
W="${1:-$(cd .. && pwd)/hspz-ci-work}/sanitize"
FUZZ_S="${CI_FUZZ_SECONDS:-30}"
J="$(nproc)"
PASS=0 FAIL=0 SKIP=0
T0=$SECONDS
mkdir -p "$W"

finish() {
    echo "sanitize: $((SECONDS - T0)) s"
    echo "sanitize: $PASS passed, $FAIL failed, $SKIP skipped"
    [ "$FAIL" -eq 0 ]
    exit
}

container/deps.sh build test python sanitize || { echo "sanitize: cannot install the packages"; FAIL=1; finish; }

# halt on the first report; stack traces symbolized; LSan at exit (detect_leaks is ASan's
# default on x86_64 Linux, said here so that it is on whatever the build's default is)
SYMB="$(command -v llvm-symbolizer-14 || echo /usr/lib/llvm-14/bin/llvm-symbolizer)"
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:strict_string_checks=1"
# third-party process-lifetime caches only (fontconfig via cairo): .ci/lsan.supp says why
export LSAN_OPTIONS="suppressions=$PWD/.ci/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export ASAN_SYMBOLIZER_PATH="$SYMB"

# ---------------------------------------------------------------- builds
build() {   # build DIR CMAKE-ARGS... -- TARGETS...
    local dir="$1" t0=$SECONDS args=() targets=()
    shift
    while [ "$#" -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
    shift
    targets=("$@")
    cmake -S . -B "$dir" -DCMAKE_C_COMPILER=clang-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHSPZ_CUDA=OFF \
        "${args[@]}" >"$W/$(basename "$dir").configure.log" 2>&1 &&
        cmake --build "$dir" -j"$J" ${targets[@]:+--target "${targets[@]}"} >"$W/$(basename "$dir").build.log" 2>&1
    local rc=$?
    if [ "$rc" -eq 0 ]; then
        echo "sanitize: built $dir ($((SECONDS - t0)) s)"
    else
        echo "sanitize: BUILD FAILED: $dir"; tail -n 30 "$W/$(basename "$dir").configure.log" "$W/$(basename "$dir").build.log"
    fi
    return "$rc"
}
FUZZERS=(seqio config scorefile plan chunk)
build build-sanitize -DHSPZ_SANITIZE=address,undefined -- || { FAIL=$((FAIL + 1)); finish; }
fuzz_built=1
build build-fuzz -DHSPZ_FUZZ=ON -- "${FUZZERS[@]/#/fuzz_}" || { FAIL=$((FAIL + 1)); fuzz_built=0; }

# ---------------------------------------------------------------- tests against the build
# tests/run_tests.sh: ctest of build-sanitize, then the suites (its last line is the count)
# (under ASan: the E. coli determinism test skipped, 3 concurrent-run rounds, 20 signal delays)
CI_SANITIZE=1 PUBLISH_ROUNDS=3 SIGSWEEP_TRIALS=20 BUILD_DIR=build-sanitize HSPZ_TEST_LOG="$W/test-logs" HSPZ_SLOW=0 \
    tests/run_tests.sh --no-build tests/bats/cli.bats tests/bats/config.bats tests/bats/manifest.bats \
    tests/bats/package.bats tests/bats/dropin.bats tests/bats/units.bats tests/bats/index.bats \
    tests/bats/hardening.bats tests/bats/lastz.bats tests/bats/publish.bats tests/bats/faults.bats \
    tests/bats/report.bats 2>&1 | tee "$W/run_tests.log"
# shellcheck source=lib.sh
source .ci/lib.sh
counts="$(ci_count_line "$W/run_tests.log")"
if [ -n "$counts" ]; then
    read -r p f s <<<"$counts"; PASS=$((PASS + p)); FAIL=$((FAIL + f)); SKIP=$((SKIP + ${s:-0}))
else
    echo "sanitize: tests/run_tests.sh printed no count"; FAIL=$((FAIL + 1))
fi
# the golden cases of the tiny pairs and one small pair (bats --filter)
printf '\n=== bats tests/bats/golden.bats (tiny pairs, small_hpylori_g27_vs_els37/default)\n'
HSPZ="$PWD/build-sanitize/hspz" bats --tap --filter 'golden (tiny |small small_hpylori_g27_vs_els37/default$)' \
    tests/bats/golden.bats </dev/null 2>&1 | tee "$W/golden.tap"
g_ok="$(grep -cE '^ok ' "$W/golden.tap" || true)"
g_skip="$(grep -cE '^ok .* # skip' "$W/golden.tap" || true)"
g_fail="$(grep -cE '^not ok ' "$W/golden.tap" || true)"
[ "$((g_ok + g_fail))" -gt 0 ] || g_fail=1
echo "golden (sanitized): $((g_ok - g_skip)) passed, $g_fail failed, $g_skip skipped"
PASS=$((PASS + g_ok - g_skip)); FAIL=$((FAIL + g_fail)); SKIP=$((SKIP + g_skip))

# ---------------------------------------------------------------- fuzzers
# fuzz_one NAME: one target for FUZZ_S seconds; new inputs go to a scratch corpus (the committed
# one is only read); writes its verdict line to $W/fuzz-NAME.verdict ("ok ..." or "FAILED ...")
fuzz_one() {
    local f="$1" c="$W/fuzz-corpus/$1" a="$W/fuzz-artifacts/$1/" t0=$SECONDS rc runs x
    rm -rf "$c" "$a"; mkdir -p "$c" "$a"
    build-fuzz/tests/fuzz/fuzz_"$f" -max_total_time="$FUZZ_S" -timeout=20 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$a" "$c" "tests/fuzz/corpus/$f" >"$W/fuzz-$f.log" 2>&1
    rc=$?
    runs="$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$W/fuzz-$f.log" | tail -n 1)"
    if [ "$rc" -eq 0 ] && ! compgen -G "$a*" >/dev/null; then
        echo "fuzz_$f: ok, ${runs:-?} runs in $((SECONDS - t0)) s, corpus $(ls "tests/fuzz/corpus/$f" | wc -l) + $(ls "$c" | wc -l) new" >"$W/fuzz-$f.verdict"
    else
        {
            echo "fuzz_$f: FAILED (exit $rc); the input: $(ls "$a" 2>/dev/null | tr '\n' ' ')"
            grep -aE 'ERROR|runtime error|property failed|SUMMARY' "$W/fuzz-$f.log" | head -n 5
            for x in "$a"*; do [ -f "$x" ] && { echo "--- $x (first 256 bytes, hex)"; head -c 256 "$x" | od -An -tx1 | head -n 16; }; done
        } >"$W/fuzz-$f.verdict"
    fi
}
if [ "$fuzz_built" = 1 ]; then
    printf '\n=== fuzz: %s, %s s each, %s at a time\n' "${FUZZERS[*]}" "$FUZZ_S" "$J"
    pids=()
    for f in "${FUZZERS[@]}"; do
        fuzz_one "$f" & pids+=($!)
        if [ "${#pids[@]}" -ge "$J" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
    done
    wait
    for f in "${FUZZERS[@]}"; do
        cat "$W/fuzz-$f.verdict" 2>/dev/null || echo "fuzz_$f: FAILED (no verdict)"
        if grep -q "^fuzz_$f: ok" "$W/fuzz-$f.verdict" 2>/dev/null; then PASS=$((PASS + 1)); else FAIL=$((FAIL + 1)); fi
    done
fi
# the gapped stage's differential fuzzer against the sanitized hspz (a sanitizer report is a
# stderr difference; the reduced case is kept under WORKDIR/sanitize/gapped-fuzz/)
printf '\n=== gapped_fuzz.py (hspz gapped vs lastz) against build-sanitize/hspz, %s s\n' "$FUZZ_S"
python3 tests/lib/gapped_fuzz.py --hspz build-sanitize/hspz --seconds "$FUZZ_S" --seed sanitize \
    --work "$W/gapped-fuzz" --quiet >"$W/gapped-fuzz.log" 2>&1
tail -n 1 "$W/gapped-fuzz.log"
# and the cases it found before (tests/data/gapped_fuzz), replayed against the sanitized build
HSPZ="$PWD/build-sanitize/hspz" bats --tap --filter 'gapped fuzz regression' tests/bats/gapped_fuzz.bats \
    </dev/null >"$W/gapped-fuzz-regress.tap" 2>&1
grep -c '^ok ' "$W/gapped-fuzz-regress.tap" | sed 's/^/gapped_fuzz regressions (sanitized): ok /'
if tail -n 1 "$W/gapped-fuzz.log" | grep -q ' all equal ' && ! grep -q '^not ok' "$W/gapped-fuzz-regress.tap" &&
        grep -q '^ok ' "$W/gapped-fuzz-regress.tap"; then
    PASS=$((PASS + 1))
else
    echo "gapped_fuzz: FAILED"; FAIL=$((FAIL + 1))
fi
finish
