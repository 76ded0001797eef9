#!/usr/bin/env python3
"""lean_medians — medians (and ranges) per input and arm of `bench/device_lean.sh bench` logs:
wall, peak RSS, CPU user and sys seconds, GPU busy, and from the HSPZ_TRACE timeline the
device ready, work done and manifest written times, the emit thread's output time, the
canonical digest and the time after the last trace line.
    python3 bench/lean_medians.py LOG...
"""
import re
import statistics
import sys
from collections import defaultdict

FIELDS = [("busy", r"gpu busy ([\d.]+)"), ("ready", r"ready ([\d.]+)"), ("done", r"work done ([\d.]+)"),
          ("manifest", r"manifest ([\d.]+) \("), ("output", r"output ([\d.]+) s"), ("digest", r"digest ([\d.]+)"),
          ("exit", r"exit ([\d.]+)$")]
runs = defaultdict(lambda: defaultdict(list))
for path in sys.argv[1:]:
    for line in open(path):
        m = re.match(r"(\S+) (\S+)\s*: exit 0, wall ([\d.]+) s, peak RSS ([\d.]+) GiB(?:, cpu user ([\d.]+) sys ([\d.]+) s)?", line)
        if not m:
            continue
        r = runs[(m[1], m[2])]
        r["wall"].append(float(m[3]))
        r["rss"].append(float(m[4]))
        if m[5]:
            r["user"].append(float(m[5]))
            r["sys"].append(float(m[6]))
        for name, rx in FIELDS:
            f = re.search(rx, line.strip())
            if f:
                r[name].append(float(f[1]))
for (inp, arm), r in sorted(runs.items()):
    print(inp, arm, f"{len(r['wall'])} runs:",
          " ".join(f"{k} {statistics.median(v):.3f} ({min(v):.3f}-{max(v):.3f})" for k, v in r.items()))
