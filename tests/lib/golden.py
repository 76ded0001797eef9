#!/usr/bin/env python3
"""Golden-case runner and checker for hspz (RULES.md "what a golden compares").

A case folder holds case.json, segments/ (expected files, X or X.gz = decompressed bytes of X)
and usually lastz_commands.sorted.txt.  Paths in case.json are relative to the repository root.

  golden.py run CASE_DIR [--hspz BIN] [--keep DIR] [--reuse-dir DIR]
                                                     run hspz_args and check the output
  golden.py check OUTDIR CASE_DIR                     check an existing output folder
  golden.py selftest CASE_DIR                         the golden files match their own digest
  golden.py digest DIR                                print the canonical digest of DIR
  golden.py list ROOT...                              list case folders under the roots

--reuse-dir DIR: a case whose hspz_args and hspz binary (path, size, mtime) equal those of a case
run earlier with the same DIR is checked against that run's output instead of running again
(KegAlign's "_rep2" cases repeat the "default" arguments: what they add is KegAlign's second run,
compared here with hspZ's one; hspZ's own run-to-run determinism is tested by the tiny cases,
which always run, and by the determinism tests in cli.bats).

Exit status: 0 = pass, 1 = mismatch or hspz failure, 2 = usage / broken case.
"""
import argparse
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MAX_SHOW = 5


def tier_of(pair):
    for t in ("small", "medium", "large"):
        if pair.startswith(t + "_"):
            return t
    return "tiny"


def read_golden(case_dir, name):
    p = os.path.join(case_dir, "segments", name)
    if os.path.exists(p):
        with open(p, "rb") as f:
            return f.read()
    if os.path.exists(p + ".gz"):
        with gzip.open(p + ".gz", "rb") as f:
            return f.read()
    return None


def lines_of(data):
    return data.splitlines(keepends=True)


def canonical_digest_of_lines(lines):
    fixed = [ln if ln.endswith(b"\n") else ln + b"\n" for ln in lines]
    fixed.sort()
    return hashlib.sha256(b"".join(fixed)).hexdigest(), len(fixed)


def segment_lines(outdir):
    lines = []
    for n in sorted(os.listdir(outdir)):
        if n.endswith(".segments"):
            with open(os.path.join(outdir, n), "rb") as f:
                lines += lines_of(f.read())
    return lines


def first_difference(got, want):
    """A short report of how two byte strings differ, line by line."""
    g, w = lines_of(got), lines_of(want)
    out = ["    lines: got %d, expected %d" % (len(g), len(w))]
    for i in range(max(len(g), len(w))):
        a = g[i] if i < len(g) else b"<end of file>"
        b = w[i] if i < len(w) else b"<end of file>"
        if a != b:
            out.append("    first difference at line %d:" % (i + 1))
            out.append("      got:      %r" % a)
            out.append("      expected: %r" % b)
            break
    sg, sw = set(g), set(w)
    only_g = sorted(sg - sw)
    only_w = sorted(sw - sg)
    if sg == sw and len(g) == len(w):
        out.append("    same lines, different order")
    else:
        out.append("    %d distinct lines only in output, %d only in golden"
                   % (len(only_g), len(only_w)))
        for ln in only_g[:MAX_SHOW]:
            out.append("      + %r" % ln)
        for ln in only_w[:MAX_SHOW]:
            out.append("      - %r" % ln)
    return out


_CMD_KEY = re.compile(rb"--segments=tmp(\d+)\.block(\d+)\.r(\d+)\.(plus|minus)\.segments")


def command_key(line):
    m = _CMD_KEY.search(line)
    if not m:
        return None
    return (0 if m.group(4) == b"plus" else 1, int(m.group(1)), int(m.group(2)), int(m.group(3)))


def load_case(case_dir):
    p = os.path.join(case_dir, "case.json")
    with open(p) as f:
        return json.load(f)


def commands_comparable(case):
    """KegAlign --nogapped prints no commands; the hspz_args of those cases omit --nogapped
    (it does not change the segments), so their empty command list is not comparable."""
    kc = case.get("kegalign_command", "").split()
    return not ("--nogapped" in kc and "--nogapped" not in case["hspz_args"])


def check(outdir, case_dir, case=None):
    """Compare OUTDIR with the golden case; returns a list of problems (empty = pass)."""
    case = case or load_case(case_dir)
    problems = []
    expected = case["expected_files"]
    for name in expected:
        want = read_golden(case_dir, name)
        if want is None:
            problems.append("golden file missing from the case folder: %s" % name)
            continue
        p = os.path.join(outdir, name)
        if not os.path.exists(p):
            problems.append("missing output file: %s" % name)
            continue
        with open(p, "rb") as f:
            got = f.read()
        if got != want:
            problems.append("differs: %s" % name)
            problems += first_difference(got, want)
    extra = sorted(n for n in os.listdir(outdir)
                   if n.endswith(".segments") and n not in expected)
    if extra:
        problems.append("unexpected .segments files: %s" % " ".join(extra[:20]))
        for n in extra[:3]:
            with open(os.path.join(outdir, n), "rb") as f:
                head = lines_of(f.read())[:2]
            for ln in head:
                problems.append("    %s: %r" % (n, ln))
    digest, n = canonical_digest_of_lines(segment_lines(outdir))
    if digest != case["canonical_digest_sha256"]:
        problems.append("canonical digest %s != expected %s (segment lines: got %d, expected %d)"
                        % (digest[:16], case["canonical_digest_sha256"][:16], n,
                           case["segment_lines"]))
    elif n != case["segment_lines"]:
        problems.append("segment lines %d != %d" % (n, case["segment_lines"]))

    gcmd = os.path.join(case_dir, "lastz_commands.sorted.txt")
    if os.path.exists(gcmd) and commands_comparable(case):
        ocmd = os.path.join(outdir, "lastz-commands.txt")
        if not os.path.exists(ocmd):
            problems.append("missing output file: lastz-commands.txt")
        else:
            with open(ocmd, "rb") as f:
                got = [ln for ln in f.read().splitlines() if ln.strip()]
            with open(gcmd, "rb") as f:
                want = [ln for ln in f.read().splitlines() if ln.strip()]
            if sorted(got) != sorted(want):
                problems.append("lastz-commands.txt differs from lastz_commands.sorted.txt "
                                "(sorted): got %d lines, expected %d" % (len(got), len(want)))
                only_g = sorted(set(got) - set(want))
                only_w = sorted(set(want) - set(got))
                for ln in only_g[:3]:
                    problems.append("      + %s" % ln.decode(errors="replace"))
                for ln in only_w[:3]:
                    problems.append("      - %s" % ln.decode(errors="replace"))
            else:
                keys = [command_key(ln) for ln in got]
                if None not in keys and keys != sorted(keys):
                    problems.append("lastz-commands.txt is not in 0.3.x order "
                                    "(plus before minus, then tmp, block, r numerically)")
    return problems


def reuse_key(case, hspz):
    """Identity of a run: its arguments and the binary that ran them."""
    st = os.stat(hspz)
    ident = json.dumps([case["hspz_args"], os.path.realpath(hspz), st.st_size, st.st_mtime_ns])
    return hashlib.sha256(ident.encode()).hexdigest()[:16]


def check_reused(case_dir, case, outdir):
    with open(os.path.join(outdir, "..", "setting")) as f:
        earlier = f.read().strip()
    problems = check(outdir, case_dir, case)
    if problems:
        print("FAIL %s/%s (the output of %s, same hspz_args and binary):"
              % (case["pair"], case["setting"], earlier))
        for p in problems:
            print("  " + p)
        return 1
    print("PASS %s/%s: %d segment lines, digest %s…, the output of %s (same hspz_args and binary)"
          % (case["pair"], case["setting"], case["segment_lines"],
             case["canonical_digest_sha256"][:12], earlier))
    return 0


def run_case(case_dir, hspz, keep=None, timeout=None, reuse_dir=None):
    case = load_case(case_dir)
    if reuse_dir:
        slot = os.path.join(reuse_dir, reuse_key(case, hspz))
        if os.path.isdir(os.path.join(slot, "out")):
            return check_reused(case_dir, case, os.path.join(slot, "out"))
    tmp = tempfile.mkdtemp(prefix="hspz-golden-")
    outdir = os.path.join(tmp, "out")
    args = [outdir if a == "OUTDIR" else a for a in case["hspz_args"]]
    for key in ("target", "query"):
        p = os.path.join(REPO, case[key])
        if not os.path.exists(p):
            print("input missing: %s (%s)" % (case[key], p))
            shutil.rmtree(tmp, ignore_errors=True)
            return 2
    cmd = [hspz] + args
    print("$ cd %s && %s" % (REPO, " ".join(cmd)))
    t0 = time.time()
    try:
        r = subprocess.run(cmd, cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        print("FAIL: hspz did not finish within %ss" % timeout)
        shutil.rmtree(tmp, ignore_errors=True)
        return 1
    dt = time.time() - t0
    err = r.stderr.decode(errors="replace").splitlines()
    for ln in err:
        if ln.startswith("hspz: funnel:") or ln.startswith("hspz: time:"):
            print(ln)
    rc = 0
    if r.returncode != 0:
        print("FAIL: hspz exited %d after %.1fs" % (r.returncode, dt))
        for ln in err[-20:]:
            print("  stderr: " + ln)
        rc = 1
    elif not os.path.isdir(outdir):
        print("FAIL: hspz exited 0 but wrote no output folder")
        rc = 1
    else:
        problems = check(outdir, case_dir, case)
        if problems:
            print("FAIL %s/%s (%.1fs):" % (case["pair"], case["setting"], dt))
            for p in problems:
                print("  " + p)
            rc = 1
        else:
            print("PASS %s/%s: %d segment lines, digest %s…, %.1fs"
                  % (case["pair"], case["setting"], case["segment_lines"],
                     case["canonical_digest_sha256"][:12], dt))
    if keep:
        if os.path.exists(keep):
            shutil.rmtree(keep)
        if os.path.isdir(outdir):
            shutil.copytree(outdir, keep)
    if reuse_dir and rc == 0:   # only a passing run is reused
        os.makedirs(slot, exist_ok=True)
        with open(os.path.join(slot, "setting"), "w") as f:
            f.write(case["setting"] + "\n")
        shutil.move(outdir, os.path.join(slot, "out"))
    shutil.rmtree(tmp, ignore_errors=True)
    return rc


def selftest(case_dir):
    """The golden case is internally consistent (guards against a broken copy)."""
    case = load_case(case_dir)
    problems = []
    lines = []
    for name in case["expected_files"]:
        data = read_golden(case_dir, name)
        if data is None:
            problems.append("golden file missing: %s" % name)
        elif name.endswith(".segments"):
            lines += lines_of(data)
    seg = os.path.join(case_dir, "segments")
    present = sorted(n[:-3] if n.endswith(".gz") else n for n in os.listdir(seg))
    if present != sorted(case["expected_files"]):
        problems.append("segments/ holds %s, case.json lists %s" % (present, case["expected_files"]))
    digest, n = canonical_digest_of_lines(lines)
    if digest != case["canonical_digest_sha256"] or n != case["segment_lines"]:
        problems.append("golden digest/lines %s/%d != case.json %s/%d"
                        % (digest[:16], n, case["canonical_digest_sha256"][:16],
                           case["segment_lines"]))
    if "OUTDIR" not in case["hspz_args"] or case["hspz_args"][0] != "run":
        problems.append("hspz_args do not look like 'run ... -o OUTDIR'")
    for p in problems:
        print(p)
    return 1 if problems else 0


def list_cases(roots):
    out = []
    for root in roots:
        if not os.path.isdir(root):
            continue
        for pair in sorted(os.listdir(root)):
            pd = os.path.join(root, pair)
            if not os.path.isdir(pd):
                continue
            for setting in sorted(os.listdir(pd)):
                if os.path.exists(os.path.join(pd, setting, "case.json")):
                    out.append((pair, setting, os.path.join(pd, setting)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("run")
    p.add_argument("case_dir")
    p.add_argument("--hspz", default=os.environ.get("HSPZ", os.path.join(REPO, "build", "hspz")))
    p.add_argument("--keep", help="copy the output folder here")
    p.add_argument("--timeout", type=float, default=float(os.environ.get("HSPZ_TIMEOUT", "1200")))
    p.add_argument("--reuse-dir", help="check against an identical earlier run's output kept here")
    p = sub.add_parser("check")
    p.add_argument("outdir")
    p.add_argument("case_dir")
    p = sub.add_parser("selftest")
    p.add_argument("case_dir")
    p = sub.add_parser("digest")
    p.add_argument("dir")
    p = sub.add_parser("list")
    p.add_argument("roots", nargs="+")
    a = ap.parse_args()

    if a.cmd == "run":
        hspz = a.hspz if os.path.isabs(a.hspz) else os.path.join(REPO, a.hspz)
        return run_case(a.case_dir, hspz, a.keep, a.timeout, a.reuse_dir)
    if a.cmd == "check":
        problems = check(a.outdir, a.case_dir)
        for p in problems:
            print(p)
        return 1 if problems else 0
    if a.cmd == "selftest":
        return selftest(a.case_dir)
    if a.cmd == "digest":
        print(canonical_digest_of_lines(segment_lines(a.dir))[0])
        return 0
    if a.cmd == "list":
        for pair, setting, d in list_cases(a.roots):
            print("%s\t%s\t%s\t%s" % (tier_of(pair), pair, setting, d))
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
