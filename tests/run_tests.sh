#!/usr/bin/env bash
# hspZ's test command: build (if needed), run the C unit tests (ctest) and the bats suites,
# and print one closing line "N passed, N failed, N skipped".  Exit status 1 on any failure.
#
#   tests/run_tests.sh [--slow] [--no-build] [SUITE.bats ...]
#
#   --slow      also run the slow tier (medium pairs; same as HSPZ_SLOW=1)
#   --no-build  use the existing binary (HSPZ, default build/hspz) without running cmake
#   SUITE       run only these bats files (default: tests/bats/*.bats)
#
# Environment: HSPZ (binary, default build/hspz), HSPZ_SHARED (default ../shared),
# HSPZ_SLOW, HSPZ_TIMEOUT (seconds per hspz run), BUILD_DIR (default build),
# HSPZ_TEST_LOG (default build/test-logs).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

SLOW="${HSPZ_SLOW:-0}"
BUILD=1
SUITES=()
for a in "$@"; do
    case "$a" in
        --slow) SLOW=1 ;;
        --no-build) BUILD=0 ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "run_tests.sh: unknown option $a" >&2; exit 2 ;;
        *) SUITES+=("$a") ;;
    esac
done
[ "${#SUITES[@]}" -gt 0 ] || SUITES=(tests/bats/*.bats)

BUILD_DIR="${BUILD_DIR:-build}"
export HSPZ="${HSPZ:-$ROOT/$BUILD_DIR/hspz}"
export HSPZ_SLOW="$SLOW"
export HSPZ_SHARED="${HSPZ_SHARED:-$ROOT/../shared}"
LOG="${HSPZ_TEST_LOG:-$ROOT/$BUILD_DIR/test-logs}"
mkdir -p "$LOG"
JOBS="$(nproc 2>/dev/null || echo 2)"

PASS=0 FAIL=0 SKIP=0
FAILED_NAMES=()
T_START=$SECONDS

note() { printf '\n=== %s\n' "$*"; }

# ------------------------------------------------------------------ build
if [ "$BUILD" = 1 ]; then
    note "build ($BUILD_DIR, Release)"
    t0=$SECONDS
    if { [ -f "$BUILD_DIR/CMakeCache.txt" ] || cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release; } &&
       cmake --build "$BUILD_DIR" -j"$JOBS"; then
        echo "build ok ($((SECONDS - t0)) s)"
    else
        echo "BUILD FAILED"
        FAIL=$((FAIL + 1)); FAILED_NAMES+=("build")
    fi
fi
if [ ! -x "$HSPZ" ]; then
    echo "no hspz binary at $HSPZ"
    FAIL=$((FAIL + 1)); FAILED_NAMES+=("hspz binary present")
fi

# ------------------------------------------------------------------ ctest (C unit tests)
if [ -f "$BUILD_DIR/CTestTestfile.cmake" ]; then
    note "ctest"
    t0=$SECONDS
    ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$JOBS" 2>&1 | tee "$LOG/ctest.log"
    crc=${PIPESTATUS[0]}
    summary="$(grep -E '[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$LOG/ctest.log" | tail -n 1)"
    if [ -n "$summary" ]; then
        c_fail="$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$summary")"
        c_total="$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<<"$summary")"
        c_skip="$(grep -cE '^\s*[0-9]+ - .*\((Skipped|Disabled)\)' "$LOG/ctest.log" || true)"
        c_pass=$((c_total - c_fail - c_skip))
        PASS=$((PASS + c_pass)); FAIL=$((FAIL + c_fail)); SKIP=$((SKIP + c_skip))
        while IFS= read -r ln; do FAILED_NAMES+=("ctest:$ln"); done < <(
            sed -n '/The following tests FAILED:/,$p' "$LOG/ctest.log" |
            sed -nE 's/^\s*[0-9]+ - (\S+) .*\((Failed|SEGFAULT|Timeout|Child aborted|Exception|Not Run|.*)\).*/\1/p' |
            grep -v -E '^$' || true)
        echo "ctest: $c_pass passed, $c_fail failed, $c_skip skipped ($((SECONDS - t0)) s)"
    elif grep -q 'No tests were found' "$LOG/ctest.log"; then
        echo "ctest: no unit tests registered"
    elif [ "$crc" -ne 0 ]; then
        FAIL=$((FAIL + 1)); FAILED_NAMES+=("ctest (exit $crc, no summary)")
    fi
fi

# ------------------------------------------------------------------ bats suites
if ! command -v bats >/dev/null 2>&1; then
    echo "bats is not installed (apt-get install bats)"
    FAIL=$((FAIL + 1)); FAILED_NAMES+=("bats installed")
else
    for suite in "${SUITES[@]}"; do
        name="$(basename "$suite" .bats)"
        note "bats $suite"
        t0=$SECONDS
        bats --tap --timing "$suite" </dev/null 2>&1 | tee "$LOG/bats-$name.tap"
        brc=${PIPESTATUS[0]}
        tap="$LOG/bats-$name.tap"
        plan="$(sed -nE 's/^1\.\.([0-9]+)$/\1/p' "$tap" | head -n 1)"
        n_ok="$(grep -cE '^ok [0-9]+' "$tap" || true)"
        n_skip="$(grep -cE '^ok [0-9]+ .*# skip' "$tap" || true)"
        n_fail="$(grep -cE '^not ok [0-9]+' "$tap" || true)"
        n_pass=$((n_ok - n_skip))
        PASS=$((PASS + n_pass)); FAIL=$((FAIL + n_fail)); SKIP=$((SKIP + n_skip))
        while IFS= read -r ln; do FAILED_NAMES+=("$name: $ln"); done < <(
            sed -nE 's/^not ok [0-9]+ (.*)$/\1/p' "$tap")
        # A suite that crashed or stopped early: count what did not report as failed.
        if [ -z "$plan" ]; then
            if [ "$brc" -ne 0 ]; then
                FAIL=$((FAIL + 1)); FAILED_NAMES+=("$name: bats exited $brc without a plan")
            fi
        elif [ $((n_ok + n_fail)) -lt "$plan" ]; then
            missing=$((plan - n_ok - n_fail))
            FAIL=$((FAIL + missing)); FAILED_NAMES+=("$name: $missing planned tests did not report")
        elif [ "$brc" -ne 0 ] && [ "$n_fail" -eq 0 ]; then
            FAIL=$((FAIL + 1)); FAILED_NAMES+=("$name: bats exited $brc")
        fi
        echo "$name: $n_pass passed, $n_fail failed, $n_skip skipped ($((SECONDS - t0)) s)"
    done
fi

# ------------------------------------------------------------------ summary
note "summary ($((SECONDS - T_START)) s, slow tier: $([ "$SLOW" = 1 ] && echo on || echo off), logs: $LOG)"
if [ "${#FAILED_NAMES[@]}" -gt 0 ]; then
    echo "failed:"
    printf '  %s\n' "${FAILED_NAMES[@]}"
fi
if [ $((PASS + FAIL)) -eq 0 ]; then
    echo "no test ran"
    FAIL=1
fi
echo "$PASS passed, $FAIL failed, $SKIP skipped"
[ "$FAIL" -eq 0 ]
