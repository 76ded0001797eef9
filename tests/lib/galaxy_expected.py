#!/usr/bin/env python3
"""The expected alignments of the Galaxy tool's "alignments in hspz" tests, made with lastz.

    galaxy_expected.py HSPZ OUTDIR

For each case below: `hspz run` with the options the tool's test gives it (the tool's defaults:
--diagonal-partition auto, 400 Mb blocks, maf-) writes the data package; every command of its
galaxy/commands.json is then run with Debian's lastz from galaxy/files the way Batched LASTZ's
run_lastz_tarball.py runs it (`lastz --allocate:traceback=1.99G TARGET QUERY ARGS`, stderr to
the recorded file, which must stay empty), and the outputs are put together the way it puts
them together: the distinct --output files in command order, after one "##maf version=1" line
when galaxy/format.txt is a MAF format (maf, maf+, maf-), nothing before them otherwise.
OUTDIR/NAME is that file, uncompressed (Batched LASTZ gzips MAF and axt; the bytes inside are
these).  So the files in galaxy/test-data come from lastz, never from `hspz gapped`.
tests/bats/galaxy.bats regenerates them and compares.  Exit status 1 with one line on failure.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tarsafe import extract_data  # noqa: E402

TD = "galaxy/test-data"
TOOL_DEFAULTS = ["--diagonal-partition", "auto", "--seq-block-size", "400000000"]
# name in galaxy/test-data, target, query, options after the tool's defaults (with --format)
CASES = [
    ("pp_default.alignments.maf", "pseudocat_named.fa", "pseudopig_named.fa", ["--format", "maf-"]),
    ("mt_scoring.alignments.maf", "MT-human.fa", "MT-orang.fa",
     ["--scoring", TD + "/invented_close.txt", "--format", "maf-"]),
]
MAF_FORMATS = ("maf", "maf+", "maf-")


def die(msg):
    sys.exit("galaxy_expected.py: " + msg)


def batched_lastz(tgz, dest):
    """The file Batched LASTZ makes from package TGZ (extracted into DEST), uncompressed."""
    extract_data(tgz, dest)
    files = os.path.join(dest, "galaxy", "files")
    outs = []
    with open(os.path.join(dest, "galaxy", "commands.json")) as f:
        for line in f:
            c = json.loads(line)
            a = c["args"]
            tq = [x.split("=", 1)[1] for x in a if x.startswith(("--target=", "--query="))]
            rest = [x for x in a if not x.startswith(("--target=", "--query="))]
            err = os.path.join(files, c["stderr"])
            with open(err, "w") as e:
                r = subprocess.run(["lastz", "--allocate:traceback=1.99G"] + tq + rest, cwd=files, stderr=e)
            if r.returncode not in (0, 1) or os.path.getsize(err):
                die("lastz exited %d on %s: %s" % (r.returncode, tgz, open(err).read()[:300]))
            out = [x.split("=", 1)[1] for x in a if x.startswith("--output=")][0]
            if out not in outs:
                outs.append(out)
    fmt = open(os.path.join(dest, "galaxy", "format.txt")).readline().rstrip("\n")
    body = b"".join(open(os.path.join(files, o), "rb").read() for o in outs)
    return (b"##maf version=1\n" if fmt in MAF_FORMATS else b"") + body, len(outs)


def main():
    if len(sys.argv) != 3:
        die("usage: galaxy_expected.py HSPZ OUTDIR")
    hspz, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    for name, target, query, opts in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            tgz = os.path.join(tmp, "package.tgz")
            cmd = [hspz, "run", "--target", os.path.join(TD, target), "--query", os.path.join(TD, query),
                   "--output", os.path.join(tmp, "out"), "--tarball=" + tgz, "--no-hostname",
                   "--threads", "1", "--no-progress", "--quiet"] + TOOL_DEFAULTS + opts
            r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if r.returncode:
                die("hspz run exited %d: %s" % (r.returncode, r.stderr.decode()[:300]))
            data, n = batched_lastz(tgz, os.path.join(tmp, "x"))
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(data)
        lines = data.split(b"\n")
        nb = sum(1 for ln in lines if ln.startswith(b"a ") or ln[:1].isdigit())   # MAF 'a', axt summary lines
        print("%s: %d lastz commands, %d alignments, %d bytes" % (name, n, nb, len(data)))

if __name__ == "__main__":
    main()
