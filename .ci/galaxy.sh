#!/usr/bin/env bash
# Test the Galaxy wrapper galaxy/hspz.xml in a real, running Galaxy server.
#
# Run from the repository root (as root on a fresh Debian 12 machine with network to the
# Debian archive and PyPI only):
#
#   .ci/galaxy.sh [--bin-dir DIR] [--work-dir DIR] [--docker-image IMG --docker-socket SOCK]
#
# Options (or environment variables):
#   --bin-dir DIR        HSPZ_BIN_DIR       folder holding the hspz binary; put first on the PATH of
#                                           Galaxy's jobs (default: build)
#   --work-dir DIR       GALAXY_CI_WORK     scratch folder (default: /tmp/hspz-galaxy-ci); the venvs
#                                           live here too unless GALAXY_VENV / PLANEMO_VENV say otherwise
#   --docker-image IMG   HSPZ_DOCKER_IMAGE  run the tool tests inside this local image (never pulled)
#   --docker-socket S    HSPZ_DOCKER_SOCKET dockerd socket, e.g. unix:///path/docker.sock
#   --port N             GALAXY_CI_PORT     Galaxy's port on 127.0.0.1 (default 8080)
#   --batched-lastz P    BATCHED_LASTZ      richard-burhans/galaxytools' Batched LASTZ: a folder holding
#                                           batched_lastz.xml, or a git clone of galaxytools (its
#                                           tools/batched_lastz at commit 2be10a0 is used); default
#                                           ../shared/galaxytools if present.  Without it the
#                                           hspz -> batched_lastz check is skipped (said so)
#   --setup-only                            only create the venvs (.ci/run starts this early,
#                                           in the background, so pip overlaps the tests)
#   GALAXY_VENV, PLANEMO_VENV               existing venvs to reuse (created when missing)
#
# Steps: venvs (pinned) -> planemo lint -> macro expansion with Galaxy's own expander + XSD
# validation -> Galaxy 26.1.1 (sqlite, conda off, celery off) -> galaxy-tool-test for every
# <tests> case -> hspz -> the real batched_lastz on two pairs (MT, apple/orange), its MAF equal to
# lastz run by hand on the package and to the tool's "alignments in hspz" MAF (.ci/galaxy-chain.py) -> a negative control (a copy of the tool with one wrong assertion must fail)
# -> no file named PWNED in any job folder, and every tool script passes `sh -n` -> stop Galaxy
# by its PID.  Last line: "galaxy: N passed, N failed"; exit status non-zero if anything failed.
set -euo pipefail

GALAXY_VERSION=26.1.1
PLANEMO_VERSION=0.75.47
GALAXY_TOOL_UTIL_VERSION=26.1.2

BIN_DIR=${HSPZ_BIN_DIR:-build}
WORK=${GALAXY_CI_WORK:-/tmp/hspz-galaxy-ci}
DOCKER_IMAGE=${HSPZ_DOCKER_IMAGE:-}
DOCKER_SOCKET=${HSPZ_DOCKER_SOCKET:-}
PORT=${GALAXY_CI_PORT:-8080}
BATCHED_LASTZ=${BATCHED_LASTZ:-}
GALAXYTOOLS_COMMIT=2be10a0ecc167cb1ee2bc907cecf53f2608d5e11
SETUP_ONLY=0

usage() { sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case "$1" in
        --bin-dir) BIN_DIR=$2; shift 2 ;;
        --bin-dir=*) BIN_DIR=${1#*=}; shift ;;
        --work-dir) WORK=$2; shift 2 ;;
        --work-dir=*) WORK=${1#*=}; shift ;;
        --docker-image) DOCKER_IMAGE=$2; shift 2 ;;
        --docker-image=*) DOCKER_IMAGE=${1#*=}; shift ;;
        --docker-socket) DOCKER_SOCKET=$2; shift 2 ;;
        --docker-socket=*) DOCKER_SOCKET=${1#*=}; shift ;;
        --port) PORT=$2; shift 2 ;;
        --port=*) PORT=${1#*=}; shift ;;
        --batched-lastz) BATCHED_LASTZ=$2; shift 2 ;;
        --batched-lastz=*) BATCHED_LASTZ=${1#*=}; shift ;;
        --setup-only) SETUP_ONLY=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "galaxy.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done

ROOT=$(pwd)
[ -f "$ROOT/galaxy/hspz.xml" ] || { echo "galaxy.sh: run me from the repository root" >&2; exit 2; }
if [ "$SETUP_ONLY" = 0 ]; then
    [ -x "$BIN_DIR/hspz" ] || { echo "galaxy.sh: no executable hspz in $BIN_DIR" >&2; exit 2; }
    BIN_DIR=$(cd "$BIN_DIR" && pwd)
fi
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
GALAXY_VENV=${GALAXY_VENV:-$WORK/venv-galaxy}
PLANEMO_VENV=${PLANEMO_VENV:-$WORK/venv-planemo}
XSD=$ROOT/../shared/schemas/galaxy.xsd
MODE=local
if [ -n "$DOCKER_IMAGE" ] || [ -n "$DOCKER_SOCKET" ]; then
    if [ -z "$DOCKER_IMAGE" ] || [ -z "$DOCKER_SOCKET" ]; then
        echo "galaxy.sh: --docker-image and --docker-socket go together" >&2; exit 2
    fi
    case "$DOCKER_SOCKET" in unix://*) ;; /*) DOCKER_SOCKET=unix://$DOCKER_SOCKET ;; esac
    MODE=docker
fi

T0=$(date +%s)
PASSED=0
FAILED=0
FAILURES=()
GALAXY_PID=
GX=$WORK/galaxy
GALAXY_LOG=$GX/galaxy.log

log() { printf '[galaxy.sh %4ss] %s\n' "$(( $(date +%s) - T0 ))" "$*"; }
pass() { PASSED=$((PASSED + 1)); log "PASS: $*"; }
fail() { FAILED=$((FAILED + 1)); FAILURES+=("$*"); log "FAIL: $*"; }

stop_galaxy() {
    if [ -n "$GALAXY_PID" ] && kill -0 "$GALAXY_PID" 2>/dev/null; then
        log "stopping Galaxy (pid $GALAXY_PID)"
        kill -TERM "$GALAXY_PID" 2>/dev/null || true
        for _ in $(seq 1 60); do
            kill -0 "$GALAXY_PID" 2>/dev/null || break
            sleep 0.5
        done
        if kill -0 "$GALAXY_PID" 2>/dev/null; then
            log "Galaxy did not stop on SIGTERM; sending SIGKILL to pid $GALAXY_PID"
            kill -KILL "$GALAXY_PID" 2>/dev/null || true
        fi
        wait "$GALAXY_PID" 2>/dev/null || true
    fi
    GALAXY_PID=
}
show_log_tail() {
    if [ -f "$GALAXY_LOG" ]; then
        echo "----- last 80 lines of $GALAXY_LOG -----"
        tail -n 80 "$GALAXY_LOG" || true
        echo "----- end of Galaxy log -----"
    fi
}
on_exit() {
    rc=$?
    if [ "$rc" -ne 0 ] || [ "$FAILED" -ne 0 ]; then show_log_tail; fi
    stop_galaxy
    exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------------------------------
# 1. virtual environments (pinned)
# ---------------------------------------------------------------------------------------
ensure_python_venv() {
    if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
        log "installing python3-venv with apt-get"
        DEBIAN_FRONTEND=noninteractive apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    fi
}
venv_has() {  # venv package version: is package==version installed in venv?
    [ -x "$1/bin/python" ] && "$1/bin/python" -c '
import sys
from importlib.metadata import version, PackageNotFoundError
try:
    sys.exit(0 if version(sys.argv[1]) == sys.argv[2] else 1)
except PackageNotFoundError:
    sys.exit(1)' "$2" "$3" 2>/dev/null
}
if ! venv_has "$GALAXY_VENV" galaxy "$GALAXY_VERSION"; then
    ensure_python_venv
    log "creating $GALAXY_VENV with galaxy==$GALAXY_VERSION (about 6 minutes)"
    python3 -m venv "$GALAXY_VENV"
    "$GALAXY_VENV/bin/pip" install -q --upgrade pip
    "$GALAXY_VENV/bin/pip" install -q "galaxy==$GALAXY_VERSION"
fi
if ! venv_has "$PLANEMO_VENV" planemo "$PLANEMO_VERSION" ||
   ! venv_has "$PLANEMO_VENV" galaxy-tool-util "$GALAXY_TOOL_UTIL_VERSION"; then
    ensure_python_venv
    log "creating $PLANEMO_VENV with planemo==$PLANEMO_VERSION galaxy-tool-util==$GALAXY_TOOL_UTIL_VERSION"
    python3 -m venv "$PLANEMO_VENV"
    "$PLANEMO_VENV/bin/pip" install -q --upgrade pip
    "$PLANEMO_VENV/bin/pip" install -q "planemo==$PLANEMO_VERSION" "galaxy-tool-util==$GALAXY_TOOL_UTIL_VERSION"
fi
if [ "$SETUP_ONLY" = 1 ]; then
    log "venvs ready: $GALAXY_VENV, $PLANEMO_VENV"
    trap - EXIT
    exit 0
fi
log "mode $MODE; hspz $("$BIN_DIR/hspz" --version) from $BIN_DIR; galaxy $GALAXY_VERSION; planemo $PLANEMO_VERSION"

# The wrapper's TOOL_VERSION must be the binary's version.
TOOL_VERSION=$("$GALAXY_VENV/bin/python" -c '
import sys
from lxml import etree
for t in etree.parse(sys.argv[1]).getroot().iter("token"):
    if t.get("name") == "@TOOL_VERSION@":
        print(t.text.strip())' "$ROOT/galaxy/macros.xml")
if [ "$TOOL_VERSION" = "$("$BIN_DIR/hspz" --version)" ]; then
    pass "TOOL_VERSION $TOOL_VERSION = hspz --version"
else
    fail "TOOL_VERSION $TOOL_VERSION != hspz --version $("$BIN_DIR/hspz" --version)"
fi

# ---------------------------------------------------------------------------------------
# 2. planemo lint (offline: planemo's network checks -- --urls, --doi, --biocontainers,
#    --conda_requirements -- are opt-in and not used; no lint check needs to be skipped)
# ---------------------------------------------------------------------------------------
if "$PLANEMO_VENV/bin/planemo" lint --fail_level warn "$ROOT/galaxy/hspz.xml" >"$WORK/lint.log" 2>&1; then
    pass "planemo lint galaxy/hspz.xml"
else
    cat "$WORK/lint.log"
    fail "planemo lint galaxy/hspz.xml"
fi

# ---------------------------------------------------------------------------------------
# 3. expand the macros with Galaxy's own expander and validate against ../shared/schemas/galaxy.xsd
# ---------------------------------------------------------------------------------------
if "$GALAXY_VENV/bin/python" - "$ROOT/galaxy/hspz.xml" "$XSD" "$WORK/hspz.expanded.xml" <<'EOF'
import sys
from lxml import etree
from galaxy.util import xml_macros
tree = xml_macros.load(sys.argv[1])
text = etree.tostring(tree.getroot(), pretty_print=True)
open(sys.argv[3], "wb").write(text)
schema = etree.XMLSchema(etree.parse(sys.argv[2]))
doc = etree.fromstring(text)
if not schema.validate(doc):
    for e in schema.error_log:
        print(f"{sys.argv[3]}:{e.line}: {e.message}")
    sys.exit(1)
print(f"{sys.argv[3]} validates against {sys.argv[2]}")
EOF
then
    pass "expanded galaxy/hspz.xml validates against ../shared/schemas/galaxy.xsd"
else
    fail "expanded galaxy/hspz.xml does not validate against galaxy.xsd"
fi

# ---------------------------------------------------------------------------------------
# 4. negative control: a copy of the tool (id hspz_wrong) whose first test expects 24 lines
#    where there are 23; galaxy-tool-test must report it as failed
# ---------------------------------------------------------------------------------------
rm -rf "$WORK/tools"
mkdir -p "$WORK/tools"
cp "$ROOT/galaxy/macros.xml" "$WORK/tools/macros.xml"
ln -s "$ROOT/galaxy/test-data" "$WORK/tools/test-data"
"$GALAXY_VENV/bin/python" - "$ROOT/galaxy/hspz.xml" "$WORK/tools/hspz_wrong.xml" <<'EOF'
import sys
from lxml import etree
tree = etree.parse(sys.argv[1])
root = tree.getroot()
root.set("id", "hspz_wrong")
root.set("name", "hspZ negative control")
tests = root.find("tests")
first = tests.find("test")
for child in list(tests):
    if child is not first:
        tests.remove(child)
changed = 0
for el in first.iter("has_n_lines"):
    if el.get("n") == "23":
        el.set("n", "24")
        changed += 1
        break
assert changed == 1, "no has_n_lines n=23 in the first test"
tree.write(sys.argv[2], xml_declaration=False, encoding="utf-8")
EOF

# Batched LASTZ, unchanged, from a folder or from a galaxytools git clone at the pinned commit
# (its alignment_type_option.xml is a link to ../kegalign/: copied as a file)
BL_DIR=
if [ -z "$BATCHED_LASTZ" ] && [ -d "$ROOT/../shared/galaxytools" ]; then BATCHED_LASTZ=$ROOT/../shared/galaxytools; fi
if [ -n "$BATCHED_LASTZ" ]; then
    if [ -f "$BATCHED_LASTZ/batched_lastz.xml" ]; then
        BL_DIR=$(cd "$BATCHED_LASTZ" && pwd)
    elif git --git-dir="$BATCHED_LASTZ" cat-file -e "$GALAXYTOOLS_COMMIT^{commit}" 2>/dev/null ||
         git --git-dir="$BATCHED_LASTZ/.git" cat-file -e "$GALAXYTOOLS_COMMIT^{commit}" 2>/dev/null; then
        gd=$BATCHED_LASTZ; [ -d "$gd/.git" ] && gd=$gd/.git
        BL_DIR=$WORK/tools/batched_lastz
        mkdir -p "$BL_DIR"
        for f in batched_lastz.xml macros.xml run_lastz_tarball.py; do
            git --git-dir="$gd" show "$GALAXYTOOLS_COMMIT:tools/batched_lastz/$f" >"$BL_DIR/$f"
        done
        git --git-dir="$gd" show "$GALAXYTOOLS_COMMIT:tools/kegalign/alignment_type_option.xml" >"$BL_DIR/alignment_type_option.xml"
    else
        echo "galaxy.sh: --batched-lastz $BATCHED_LASTZ: neither a folder with batched_lastz.xml nor a galaxytools clone with commit $GALAXYTOOLS_COMMIT" >&2
        exit 2
    fi
fi
BL_TOOL=
if [ -n "$BL_DIR" ]; then BL_TOOL="<tool file=\"$BL_DIR/batched_lastz.xml\"/>"; fi

# ---------------------------------------------------------------------------------------
# 5. Galaxy configuration and start
# ---------------------------------------------------------------------------------------
rm -rf "$GX"
mkdir -p "$GX/data" "$GX/tmp"
ADMIN_KEY=$("$GALAXY_VENV/bin/python" -c 'import secrets; print(secrets.token_hex(16))')
ID_SECRET=$("$GALAXY_VENV/bin/python" -c 'import secrets; print(secrets.token_hex(16))')
cat >"$GX/tool_conf.xml" <<EOF
<?xml version="1.0"?>
<toolbox monitor="false">
    <section id="hspz_section" name="hspZ">
        <tool file="$ROOT/galaxy/hspz.xml"/>
        <tool file="$WORK/tools/hspz_wrong.xml"/>
        $BL_TOOL
    </section>
</toolbox>
EOF
# Uploads (__DATA_FETCH__) always run locally; in docker mode hspz and hspz_wrong go to docker_env.
HSPZ_ENV=local_env
if [ "$MODE" = docker ]; then HSPZ_ENV=docker_env; fi
cat >"$GX/galaxy.yml" <<EOF
gravity:
  galaxy_root: $GALAXY_VENV
  celery:
    enable: false
    enable_beat: false
  tusd:
    enable: false
galaxy:
  database_connection: "sqlite:///$GX/universe.sqlite?isolation_level=IMMEDIATE"
  database_auto_migrate: true
  data_dir: $GX/data
  new_file_path: $GX/tmp
  tool_config_file: $GX/tool_conf.xml
  tool_dependency_dir: $GX/deps
  admin_users: ci@example.org
  bootstrap_admin_api_key: $ADMIN_KEY
  id_secret: $ID_SECRET
  galaxy_infrastructure_url: http://127.0.0.1:$PORT
  conda_auto_init: false
  conda_auto_install: false
  enable_celery_tasks: false
  enable_mulled_containers: false
  container_resolvers:
    - type: explicit
  cleanup_job: never
  # job details then carry the command line, which <assert_command> needs
  expose_dataset_path: true
  watch_tools: false
  job_config:
    runners:
      local:
        load: galaxy.jobs.runners.local:LocalJobRunner
        workers: 3
    execution:
      default: local_env
      environments:
        local_env:
          runner: local
          # POSIX sh, not bash, runs the job and tool scripts (as /bin/sh does in a container)
          shell: /bin/sh
          local_slots: 2
        docker_env:
          runner: local
          local_slots: 2
          docker_enabled: true
          require_container: true
          docker_host: "$DOCKER_SOCKET"
          docker_net: none
          docker_sudo: false
          docker_auto_rm: true
    tools:
      - id: hspz
        environment: $HSPZ_ENV
      - id: hspz_wrong
        environment: $HSPZ_ENV
EOF

if "$GALAXY_VENV/bin/python" -c "import socket; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1', $PORT))" 2>/dev/null; then :; else
    echo "galaxy.sh: port $PORT on 127.0.0.1 is in use (set --port)" >&2; exit 1
fi
if [ "$MODE" = docker ]; then
    command -v docker >/dev/null || { echo "galaxy.sh: docker CLI not found" >&2; exit 1; }
    docker -H "$DOCKER_SOCKET" image inspect "$DOCKER_IMAGE" >/dev/null ||
        { echo "galaxy.sh: image $DOCKER_IMAGE not on $DOCKER_SOCKET" >&2; exit 1; }
    # The tool's <container> names hspz:TOOL_VERSION; a different --docker-image is tagged so.
    WANT=hspz:$TOOL_VERSION
    if [ "$DOCKER_IMAGE" != "$WANT" ]; then
        docker -H "$DOCKER_SOCKET" tag "$DOCKER_IMAGE" "$WANT"
        log "tagged $DOCKER_IMAGE as $WANT"
    fi
    log "image: $(docker -H "$DOCKER_SOCKET" run --rm --net none "$WANT" hspz --version) ($WANT)"
fi

log "starting Galaxy $GALAXY_VERSION on 127.0.0.1:$PORT (log: $GALAXY_LOG)"
(
    cd "$GX"
    export VIRTUAL_ENV=$GALAXY_VENV
    export PATH=$BIN_DIR:$GALAXY_VENV/bin:$PATH
    export GALAXY_CONFIG_FILE=$GX/galaxy.yml
    export TMPDIR=$GX/tmp
    exec "$GALAXY_VENV/bin/gunicorn" 'galaxy.webapps.galaxy.fast_factory:factory()' \
        -k galaxy.webapps.galaxy.workers.Worker -b "127.0.0.1:$PORT" --workers=1 --timeout 600 \
        --config python:galaxy.web_stack.gunicorn_config
) >"$GALAXY_LOG" 2>&1 &
GALAXY_PID=$!
URL=http://127.0.0.1:$PORT
up=0
for _ in $(seq 1 300); do
    if ! kill -0 "$GALAXY_PID" 2>/dev/null; then
        echo "galaxy.sh: Galaxy exited during start-up" >&2; break
    fi
    if "$GALAXY_VENV/bin/python" -c "import urllib.request,sys; urllib.request.urlopen('$URL/api/version', timeout=5).read()" 2>/dev/null; then
        up=1; break
    fi
    sleep 1
done
if [ "$up" = 1 ]; then
    pass "Galaxy answers $URL/api/version: $("$GALAXY_VENV/bin/python" -c "import urllib.request; print(urllib.request.urlopen('$URL/api/version').read().decode())")"
else
    fail "Galaxy did not answer $URL/api/version"
    echo "galaxy: $PASSED passed, $FAILED failed"
    exit 1
fi

# ---------------------------------------------------------------------------------------
# 6. every <tests> case of hspz, then the negative control
# ---------------------------------------------------------------------------------------
RES=$WORK/results
rm -rf "$RES"
mkdir -p "$RES"
# RETRIES: galaxy-tool-test's --retries.  The hspz tests get one: once in a CI run (2026-12-02)
# Galaxy answered a test's submission with "History not found" (job=None: the tool never
# ran) while three tests created their histories at once on sqlite.  A test whose tool fails
# fails again on the retry; the negative control runs without one.
run_tool_tests() {  # tool_id -> writes $RES/<id>.json; returns galaxy-tool-test's status
    "$PLANEMO_VENV/bin/galaxy-tool-test" -u "$URL" -a "$ADMIN_KEY" -t "$1" \
        -j "$RES/$1.json" -o "$RES/$1.outputs" --parallel-tests 3 --history-per-test-case \
        --retries "${RETRIES:-0}" >"$RES/$1.log" 2>&1
}
summarise() {  # json -> lines "index status [problems]"
    "$GALAXY_VENV/bin/python" - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for t in d.get("tests", []):
    data = t.get("data", {})
    probs = "; ".join(str(p) for p in (data.get("output_problems") or []))[:400]
    job = data.get("job") or {}
    print(f'{t.get("id")}\t{data.get("status")}\tjob={job.get("state")}\t{probs}')
EOF
}

log "galaxy-tool-test -t hspz"
set +e
RETRIES=1 run_tool_tests hspz
rc_tests=$?
set -e
if [ -f "$RES/hspz.json" ]; then
    while IFS=$'\t' read -r id status jobstate probs; do
        if [ "$status" = success ]; then pass "tool test $id ($jobstate)"; else fail "tool test $id: $status $jobstate $probs"; fi
    done < <(summarise "$RES/hspz.json")
fi
NTESTS=$("$GALAXY_VENV/bin/python" -c '
import sys
from lxml import etree
print(len(etree.parse(sys.argv[1]).getroot().find("tests").findall("test")))' "$WORK/hspz.expanded.xml")
NRUN=0
if [ -f "$RES/hspz.json" ]; then NRUN=$(summarise "$RES/hspz.json" | wc -l); fi
if [ "$rc_tests" -ne 0 ] || [ "$NRUN" -ne "$NTESTS" ]; then
    tail -n 40 "$RES/hspz.log"
    fail "galaxy-tool-test hspz exited $rc_tests after $NRUN of $NTESTS tests"
fi

# ---------------------------------------------------------------------------------------
# 6b. hspz -> the real batched_lastz with KegAlign's defaults; its MAF == lastz by hand
# ---------------------------------------------------------------------------------------
if [ -n "$BL_DIR" ]; then
    log "hspz -> batched_lastz ($BL_DIR) on MT and apple/orange"
    KEG_MAF=$ROOT/../shared/data/tiny_kegalign_apple_vs_orange_SYNTHETIC/apple_orange.maf.gz
    expect=()
    if [ -f "$KEG_MAF" ]; then expect=(--expect "$KEG_MAF"); fi
    set +e
    PATH=$GALAXY_VENV/bin:$PATH "$GALAXY_VENV/bin/python" "$ROOT/.ci/galaxy-chain.py" "$URL" "$ADMIN_KEY" "$RES" \
        mt "$ROOT/galaxy/test-data/MT-human.fa" "$ROOT/galaxy/test-data/MT-orang.fa" \
        apple_orange "$ROOT/tests/data/apple_orange/apple.fasta.gz" "$ROOT/tests/data/apple_orange/orange.fasta.gz" \
        "${expect[@]}" >"$RES/chain.log" 2>&1
    set -e
    while IFS= read -r line; do
        case "$line" in
            PASS:*) pass "chain ${line#PASS: }" ;;
            FAIL:*) fail "chain ${line#FAIL: }" ;;
            *) log "$line" ;;
        esac
    done <"$RES/chain.log"
    grep -q '^PASS: ' "$RES/chain.log" || fail "chain: no check ran (see $RES/chain.log)"
else
    log "SKIP hspz -> batched_lastz: no Batched LASTZ (give --batched-lastz, or put galaxytools at ../shared/galaxytools)"
fi

log "galaxy-tool-test -t hspz_wrong (must fail)"
set +e
run_tool_tests hspz_wrong
rc_wrong=$?
set -e
wrong_summary=
if [ -f "$RES/hspz_wrong.json" ]; then wrong_summary=$(summarise "$RES/hspz_wrong.json"); fi
# It must fail on the changed assertion (has_n_lines 24), after a job that itself succeeded.
if [ "$rc_wrong" -ne 0 ] && printf '%s\n' "$wrong_summary" | grep -q 'failure' &&
   printf '%s\n' "$wrong_summary" | grep -q 'job=ok' && printf '%s\n' "$wrong_summary" | grep -q '24'; then
    pass "negative control: galaxy-tool-test exits $rc_wrong on the wrong expectation"
else
    printf '%s\n' "$wrong_summary"
    tail -n 40 "$RES/hspz_wrong.log" || true
    fail "negative control: galaxy-tool-test exited $rc_wrong, expected a failed assertion"
fi

# ---------------------------------------------------------------------------------------
# 7. the odd FASTA names were never run by a shell; the tool scripts are POSIX sh
# ---------------------------------------------------------------------------------------
JOBS=$GX/data/jobs_directory
pwned=$(find "$GX" "$ROOT" "$WORK/tools" -name 'PWNED*' 2>/dev/null | head -n 5 || true)
if [ -z "$pwned" ]; then
    pass "no file named PWNED anywhere under the jobs, Galaxy or the repository"
else
    fail "files named PWNED were created: $pwned"
fi
nscripts=0
bad_scripts=
while IFS= read -r -d '' s; do
    nscripts=$((nscripts + 1))
    if ! sh -n "$s" 2>"$WORK/sh-n.err"; then
        bad_scripts="$bad_scripts $s"
        cat "$WORK/sh-n.err"
    fi
done < <(find "$JOBS" -name tool_script.sh -print0 2>/dev/null)
if [ "$nscripts" -gt 0 ] && [ -z "$bad_scripts" ]; then
    pass "all $nscripts tool_script.sh files pass sh -n (POSIX sh syntax)"
else
    fail "tool scripts: $nscripts found, not POSIX sh:${bad_scripts:- none}"
fi
if [ "$MODE" = docker ]; then
    # job scripts of hspz/hspz_wrong jobs that ran the tool through this dockerd, without network
    ndocker=$( { find "$JOBS" -name 'galaxy_*.sh' -exec grep -l -e "-H $DOCKER_SOCKET run " {} + 2>/dev/null || true; } | wc -l)
    nnet=$( { find "$JOBS" -name 'galaxy_*.sh' -exec grep -l -e "-H $DOCKER_SOCKET run .* --net none " {} + 2>/dev/null || true; } | wc -l)
    if [ "$ndocker" -gt 0 ] && [ "$ndocker" = "$nnet" ]; then
        pass "$ndocker job scripts ran the tool with docker -H $DOCKER_SOCKET run --net none"
    else
        fail "docker mode: $ndocker job scripts use docker, $nnet with --net none"
    fi
fi

stop_galaxy
log "done in $(( $(date +%s) - T0 )) s (mode $MODE)"
for f in "${FAILURES[@]+"${FAILURES[@]}"}"; do echo "failed: $f"; done
echo "galaxy: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
