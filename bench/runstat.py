#!/usr/bin/env python3
"""runstat — run a command; print 'WALL_S PEAK_RSS_MIB EXIT_STATUS' on stdout (the command's own
stdout goes to stderr).  Peak RSS is the largest resident set of the command's processes
(getrusage RUSAGE_CHILDREN ru_maxrss).  Used by the bench/ scripts."""
import resource, subprocess, sys, time

t0 = time.monotonic()
rc = subprocess.call(sys.argv[1:], stdout=sys.stderr)
wall = time.monotonic() - t0
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
print(f"{wall:.3f} {rss:.0f} {rc}")
