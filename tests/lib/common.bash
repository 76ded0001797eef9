# Shared helpers for the bats suites (tests/bats/*.bats).  Load with
#   load ../lib/common
# Environment (all optional):
#   HSPZ          path of the hspz binary (default: <repo>/build/hspz)
#   HSPZ_SHARED   the shared reference folder (default: <repo>/../shared)
#   HSPZ_SLOW     1 = also run the slow tier (medium pairs)
#   HSPZ_TIMEOUT  seconds one hspz run may take (default 1200)

HZ_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HZ_LIB="$HZ_REPO/tests/lib"
HZ_DATA="$HZ_REPO/tests/data"
HZ_GOLDEN="$HZ_REPO/tests/golden/kegalign-v03"
HSPZ="${HSPZ:-$HZ_REPO/build/hspz}"
case "$HSPZ" in /*) ;; *) HSPZ="$HZ_REPO/$HSPZ" ;; esac
HSPZ_SHARED="${HSPZ_SHARED:-$HZ_REPO/../shared}"
HSPZ_TIMEOUT="${HSPZ_TIMEOUT:-1200}"
export HSPZ HSPZ_SHARED HSPZ_TIMEOUT LC_ALL=C

# The canonical ungapped LASTZ run that RULES.md compares with.
HZ_LASTZ_ARGS=(--nogapped --seed=12of19 --transition --step=1 --xdrop=910 --hspthresh=3000
               "--format=general:name1,start1,end1,name2,start2,end2,strand2,score")

# Every test starts in the repository root (case.json paths are relative to it).
cd "$HZ_REPO" || exit 1

require_hspz() {
    [ -x "$HSPZ" ] || skip "no hspz binary at $HSPZ (build first: tests/run_tests.sh builds it)"
}

require_shared() {
    [ -d "$HSPZ_SHARED/golden/kegalign-v03" ] ||
        skip "../shared is absent ($HSPZ_SHARED): this case uses the shared reference data"
}

require_slow() {
    [ "${HSPZ_SLOW:-0}" = 1 ] || skip "slow tier: run tests/run_tests.sh --slow (or HSPZ_SLOW=1)"
}

require_cmd() {
    command -v "$1" >/dev/null 2>&1 || skip "$1 is not installed"
}

# hz_run ARGS... — run hspz with a time limit; sets $status, $output (stdout) and $stderr,
# and keeps stdout/stderr in $BATS_TEST_TMPDIR/{stdout,stderr}.
hz_run() {
    local so="$BATS_TEST_TMPDIR/stdout" se="$BATS_TEST_TMPDIR/stderr"
    status=0
    timeout "$HSPZ_TIMEOUT" "$HSPZ" "$@" >"$so" 2>"$se" </dev/null || status=$?
    output="$(cat "$so")"
    stderr="$(cat "$se")"
    if [ "$status" -eq 124 ]; then
        echo "hspz timed out after ${HSPZ_TIMEOUT}s: $*" >&2
    fi
}

# Diagnostics printed only when a test fails (bats shows a failing test's output).
show_run() {
    echo "--- exit status: $status"
    echo "--- stdout (first 20 lines):"; head -n 20 "$BATS_TEST_TMPDIR/stdout"
    echo "--- stderr (first 20 lines):"; head -n 20 "$BATS_TEST_TMPDIR/stderr"
}

# seglines DIR — all segment lines of all *.segments files, sorted bytewise.
seglines() {
    local d="$1"
    if compgen -G "$d/*.segments" >/dev/null; then cat "$d"/*.segments | sort; fi
}

# canonical_digest DIR — RULES.md "canonical digest".
canonical_digest() {
    seglines "$1" | sha256sum | cut -d' ' -f1
}

# same_outputs DIR1 DIR2 — byte-identical *.segments and *.name files, same file names.
same_outputs() {
    local a="$1" b="$2" f rc=0
    local la lb
    la="$(cd "$a" && ls -1 -- *.segments *.name 2>/dev/null | sort)"
    lb="$(cd "$b" && ls -1 -- *.segments *.name 2>/dev/null | sort)"
    if [ "$la" != "$lb" ]; then
        echo "file lists differ:"; diff <(echo "$la") <(echo "$lb") | head -n 20
        return 1
    fi
    [ -n "$la" ] || { echo "no output files in $a"; return 1; }
    for f in $la; do
        if ! cmp -s "$a/$f" "$b/$f"; then
            echo "differs: $f"; diff "$a/$f" "$b/$f" | head -n 10; rc=1
        fi
    done
    return $rc
}

# assert_one_error_line CODE — the run failed with CODE and wrote exactly one error line on
# stderr, starting with "hspz: " (informational "hspz: note: ..." lines are not counted).
assert_one_error_line() {
    local want="$1" n first
    if [ "$status" -ne "$want" ]; then
        echo "expected exit $want, got $status"; show_run; return 1
    fi
    n="$(grep -vc '^hspz: note: ' "$BATS_TEST_TMPDIR/stderr" || true)"
    if [ "$n" -ne 1 ]; then
        echo "expected exactly one stderr line (besides notes), got $n"; show_run; return 1
    fi
    first="$(grep -v '^hspz: note: ' "$BATS_TEST_TMPDIR/stderr")"
    case "$first" in
        "hspz: "*) ;;
        *) echo "the error line does not start with 'hspz: '"; show_run; return 1 ;;
    esac
}

# assert_stderr_matches ERE — the stderr text matches the extended regex (case-insensitive).
assert_stderr_matches() {
    if ! grep -qiE -- "$1" "$BATS_TEST_TMPDIR/stderr"; then
        echo "stderr does not match /$1/i"; show_run; return 1
    fi
}

# assert_stderr_names FILE — the stderr text contains the path (or at least its base name).
assert_stderr_names() {
    if ! grep -qF -- "$1" "$BATS_TEST_TMPDIR/stderr" &&
       ! grep -qF -- "$(basename -- "$1")" "$BATS_TEST_TMPDIR/stderr"; then
        echo "stderr does not name '$1'"; show_run; return 1
    fi
}

# assert_no_outdir OUT — neither OUT nor OUT.tmp-* exists.
assert_no_outdir() {
    local out="$1" left
    left="$(compgen -G "$out.tmp-*" || true)"
    if [ -e "$out" ] || [ -n "$left" ]; then
        echo "output left behind after a failure: $(ls -d "$out" "$out".tmp-* 2>/dev/null)"
        return 1
    fi
}

# gunzip_to FILE DEST — DEST gets the plain bytes of FILE (gz or not).
gunzip_to() {
    case "$1" in
        *.gz) gzip -dc -- "$1" >"$2" ;;
        *) cp -- "$1" "$2" ;;
    esac
}

# same_run A B — two OUTDIRs of the same work: same file names and bytes (manifest aside), and
# in the manifests the same canonical digest, funnel, segment lines and input sha256.
same_run() {
    diff -r -x manifest.json "$1" "$2"
    python3 - "$1/manifest.json" "$2/manifest.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["canonical_digest_sha256"] == b["canonical_digest_sha256"]
assert a["funnel"] == b["funnel"], (a["funnel"], b["funnel"])
assert a["segment_lines"] == b["segment_lines"]
assert [i["sha256"] for i in a["inputs"]] == [i["sha256"] for i in b["inputs"]]
PY
}

# mf FILE EXPR — a value of a JSON file for tests, EXPR a python expression over d (the parsed
# file), printed as `jq -r` prints it: null for None (python3, so that jq is not needed)
mf() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
v = eval(sys.argv[2], {"d": d})
print("null" if v is None else (json.dumps(v) if isinstance(v, (dict, list, bool)) else v))
EOF
}
