#!/usr/bin/env bash
# report_shot.sh PAGE.html SHOT.png [WIDTH HEIGHT]
#
# Open PAGE.html in headless Chromium (Debian's `chromium`; another binary with $CHROMIUM) as a
# user would, offline: SHOT.png gets the screenshot of the top WIDTH x HEIGHT CSS pixels (default
# 1280 x 1400, scroll bars hidden), SHOT.png.dom the DOM after loading, SHOT.png.log the browser's
# stderr (with --enable-logging=stderr a console message is a line with "CONSOLE").  A fresh
# profile in a temporary folder, so runs in parallel do not share one.  Used by
# tests/bats/report.bats and to refresh docs/report-*.png.  Exit 0; 3 when no chromium is
# installed; 1 when chromium fails or writes no screenshot.
set -uo pipefail
[ "$#" -ge 2 ] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
page="$1" shot="$2" w="${3:-1280}" h="${4:-1400}"
bin="${CHROMIUM:-}"
if [ -z "$bin" ]; then
    for b in chromium chromium-browser; do command -v "$b" >/dev/null 2>&1 && { bin="$b"; break; }; done
fi
[ -n "$bin" ] || { echo "report_shot: no chromium (apt-get install chromium; container/deps.sh test)" >&2; exit 3; }
case "$page" in /*) ;; *) page="$PWD/$page" ;; esac
prof="$(mktemp -d "${TMPDIR:-/tmp}/hz-chromium-XXXXXX")" || exit 1
trap 'rm -rf "$prof"' EXIT
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --no-default-browser-check
       --disable-extensions --disable-background-networking --user-data-dir="$prof" --window-size="$w,$h"
       --virtual-time-budget=5000 --enable-logging=stderr --v=0)
rm -f "$shot"
timeout 120 "$bin" "${flags[@]}" --screenshot="$shot" "file://$page" >/dev/null 2>"$shot.log"
rc=$?
timeout 120 "$bin" "${flags[@]}" --dump-dom "file://$page" >"$shot.dom" 2>>"$shot.log" || rc=$?
if [ "$rc" -ne 0 ] || [ ! -s "$shot" ]; then
    echo "report_shot: $bin failed (exit $rc); its log: $shot.log" >&2
    tail -n 5 "$shot.log" >&2
    exit 1
fi
exit 0
