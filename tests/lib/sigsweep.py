#!/usr/bin/env python3
"""SIGTERM at many delays across a whole `hspz run` (issue 12 item 4).

    sigsweep.py HSPZ WORKDIR TRIALS -- RUN-ARGS...

RUN-ARGS are `hspz run`'s arguments without -o; each trial runs them with -o WORKDIR/out
--tarball --quiet.  One reference run first gives the complete output and the run's wall time W (the slower of two).
Then trial i sends SIGTERM after a delay spread evenly over [S, 1.4 W] (S: the wall time of
`hspz --version`, i.e. process start-up before main, where no program can catch a signal yet)
and checks that exit status and what is on disk agree:

  exit 0    OUTDIR complete (the reference's files, byte for byte, but manifest.json present),
            the tarball equal to the reference's, no stderr (--quiet);
  exit 143  no OUTDIR, no tarball, and exactly one stderr line "hspz: interrupted by signal 15...";

and, either way, nothing else left in WORKDIR (no OUTDIR.tmp-*, *.interrupted, *.old-*, failure
manifest).  Anything else (killed by the signal: returncode -15; exit 143 with output in place;
two stderr lines) is a failure.  Prints one line per bad trial and a summary line
"sigsweep: N trials: A exit 0 complete, B exit 143 clean, C bad (delays X-Y s, run W s)";
exit status 0 when C = 0 and both outcomes occurred (a sweep that never interrupted, or never
let a run finish, did not test the boundary), else 1.
"""
import filecmp
import os
import shutil
import signal
import subprocess
import sys
import time


def listing(d):
    return sorted(os.listdir(d)) if os.path.isdir(d) else None


def run_once(cmd, delay):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    if delay is not None:
        time.sleep(delay)
        try:
            p.send_signal(signal.SIGTERM)
        except ProcessLookupError:
            pass
    err = p.communicate()[1].decode(errors="replace")
    return p.returncode, err


def main():
    if len(sys.argv) < 5 or sys.argv[4] != "--":
        sys.exit(__doc__)
    hspz, work, trials, args = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[5:]
    out, tar = os.path.join(work, "out"), os.path.join(work, "out.tar.gz")
    ref, reftar = os.path.join(work, "ref"), os.path.join(work, "ref.tar.gz")
    os.makedirs(work, exist_ok=True)
    cmd = [hspz, "run", *args, "-o", out, "--tarball", "--quiet"]

    wall = 0.0
    for k in range(2):   # the slower of two (the first may be cold)
        t0 = time.monotonic()
        rc, err = run_once(cmd, None)
        wall = max(wall, time.monotonic() - t0)
        if rc != 0:
            sys.exit(f"sigsweep: the reference run failed (exit {rc}): {err.strip()}")
        if k == 0:
            os.rename(out, ref)
            os.rename(tar, reftar)
        else:
            shutil.rmtree(out)
            os.unlink(tar)
    t0 = time.monotonic()
    subprocess.run([hspz, "--version"], stdout=subprocess.DEVNULL, check=True)
    start = time.monotonic() - t0

    lo, hi = start, 1.4 * wall
    ok0 = ok143 = bad = 0
    for i in range(trials):
        delay = lo + (hi - lo) * (i + 0.5) / trials
        rc, err = run_once(cmd, delay)
        lines = err.splitlines()
        left = sorted(set(os.listdir(work)) - {"ref", "ref.tar.gz", "out", "out.tar.gz"})
        why = []
        if rc == 0:
            if not os.path.isfile(os.path.join(out, "manifest.json")):
                why.append("no OUTDIR/manifest.json")
            else:
                names = [n for n in listing(ref) if n != "manifest.json"]
                if listing(out) != listing(ref):
                    why.append(f"OUTDIR files {listing(out)} != {listing(ref)}")
                elif not all(filecmp.cmp(os.path.join(ref, n), os.path.join(out, n), shallow=False) for n in names):
                    why.append("OUTDIR files differ from the reference run's")
            if not (os.path.isfile(tar) and filecmp.cmp(tar, reftar, shallow=False)):
                why.append("tarball missing or different")
            if lines:
                why.append(f"stderr {lines!r}")
        elif rc == 128 + signal.SIGTERM:
            if os.path.exists(out):
                why.append("OUTDIR exists")
            if os.path.exists(tar):
                why.append("tarball exists")
            if len(lines) != 1 or not lines[0].startswith("hspz: interrupted by signal 15"):
                why.append(f"stderr is not one interrupt line: {lines!r}")
        else:
            why.append(f"exit status {rc}" + (" (killed by the signal)" if rc < 0 else "") +
                       f"; OUTDIR {'present' if os.path.exists(out) else 'absent'}, stderr {lines!r}")
        if left:
            why.append(f"left behind: {left}")
        if why:
            bad += 1
            print(f"sigsweep: trial {i + 1} delay {delay:.3f} s exit {rc}: " + "; ".join(why))
        elif rc == 0:
            ok0 += 1
        else:
            ok143 += 1
        shutil.rmtree(out, ignore_errors=True)
        for x in [tar] + [os.path.join(work, n) for n in left]:
            if os.path.isdir(x):
                shutil.rmtree(x, ignore_errors=True)
            elif os.path.exists(x):
                os.unlink(x)
    print(f"sigsweep: {trials} trials: {ok0} exit 0 complete, {ok143} exit 143 clean, {bad} bad "
          f"(delays {lo:.3f}-{hi:.3f} s, run {wall:.3f} s)")
    sys.exit(0 if bad == 0 and ok0 and ok143 else 1)


if __name__ == "__main__":
    main()
