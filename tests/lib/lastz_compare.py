#!/usr/bin/env python3
"""Compare hspz segment lines with LASTZ's ungapped HSPs and classify the differences.

  lastz_compare.py HSPZ_OUTDIR LASTZ_OUTPUT [--blank-names]
                   [--max-only-hspz N] [--max-only-lastz N]

LASTZ_OUTPUT is LASTZ run with
  --format=general:name1,start1,end1,name2,start2,end2,strand2,score
(its '#' header line is ignored).  HSPZ_OUTDIR holds the *.segments files, whose lines have the
same eight tab-separated columns.  Lines are compared as multisets of whole lines.

Every line found on one side only is put in the first class that fits, looking at the lines of
the OTHER side with the same names and strand on the same diagonal (start2 - start1):
  duplicate       an extra copy of a line the other side has fewer copies of
  same-coords     same start/end on both sequences, different score
  contained       inside a line of the other side (KegAlign extends every seed hit, LASTZ
                  skips hits inside HSPs it already found, so each finds fragments the other
                  one merged)
  contains        contains a line of the other side
  overlaps        overlaps a line of the other side
  other           nothing of the other side overlaps it on its diagonal

Exit 1 when a side has more one-sided lines than allowed (RULES.md lists the counts that
KegAlign 0.3.x has on the bacterial pairs), else 0.
"""
import argparse
import collections
import os
import sys

CLASSES = ("duplicate", "same-coords", "contained", "contains", "overlaps", "other")


def parse(lines, blank):
    out = []
    for ln in lines:
        if not ln.strip() or ln.startswith("#"):
            continue
        f = ln.rstrip("\n").split("\t")
        if len(f) != 8:
            sys.exit("not 8 tab-separated columns: %r" % ln)
        if blank:
            f[0] = f[3] = ""
        out.append((f[0], int(f[1]), int(f[2]), f[3], int(f[4]), int(f[5]), f[6], int(f[7])))
    return out


def read_outdir(d):
    lines = []
    for n in sorted(os.listdir(d)):
        if n.endswith(".segments"):
            with open(os.path.join(d, n)) as f:
                lines += f.readlines()
    return lines


def classify(x, index):
    n1, s1, e1, n2, s2, e2, st, sc = x
    found = set()
    for (t1, u1, score) in index.get((n1, n2, st, s2 - s1), []):
        if t1 == s1 and u1 == e1:
            return "duplicate" if score == sc else "same-coords"
        if t1 <= s1 and e1 <= u1:
            found.add("contained")
        elif s1 <= t1 and u1 <= e1:
            found.add("contains")
        elif t1 <= e1 and s1 <= u1:
            found.add("overlaps")
    for c in ("contained", "contains", "overlaps"):
        if c in found:
            return c
    return "other"


def build_index(rows):
    idx = collections.defaultdict(list)
    for n1, s1, e1, n2, s2, e2, st, sc in rows:
        idx[(n1, n2, st, s2 - s1)].append((s1, e1, sc))
    return idx


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("hspz_outdir")
    ap.add_argument("lastz_output")
    ap.add_argument("--blank-names", action="store_true",
                    help="compare coordinates and scores only (names set to '')")
    ap.add_argument("--max-only-hspz", type=int, default=0)
    ap.add_argument("--max-only-lastz", type=int, default=0)
    ap.add_argument("--max-other-hspz", type=int, default=None,
                    help="also limit the one-sided hspz lines of class 'other'")
    ap.add_argument("--max-other-lastz", type=int, default=None)
    a = ap.parse_args()

    h = parse(read_outdir(a.hspz_outdir), a.blank_names)
    with open(a.lastz_output) as f:
        lz = parse(f.readlines(), a.blank_names)
    ch, cl = collections.Counter(h), collections.Counter(lz)
    only_h = sorted((ch - cl).elements())
    only_l = sorted((cl - ch).elements())
    ih, il = build_index(h), build_index(lz)
    cls_h = collections.Counter(classify(x, il) for x in only_h)
    cls_l = collections.Counter(classify(x, ih) for x in only_l)

    print("hspz lines %d, LASTZ lines %d, common %d" % (len(h), len(lz), sum((ch & cl).values())))
    for label, only, cls, limit in (("only-hspz", only_h, cls_h, a.max_only_hspz),
                                    ("only-LASTZ", only_l, cls_l, a.max_only_lastz)):
        detail = ", ".join("%s %d" % (c, cls[c]) for c in CLASSES if cls[c])
        print("%-10s %5d (allowed %d)%s" % (label, len(only), limit,
                                           ": " + detail if detail else ""))
        for x in only[:8]:
            print("    %s" % "\t".join(str(v) for v in x))
        if len(only) > 8:
            print("    ...")
    bad = len(only_h) > a.max_only_hspz or len(only_l) > a.max_only_lastz
    if a.max_other_hspz is not None and cls_h["other"] > a.max_other_hspz:
        print("class 'other' of only-hspz: %d > %d" % (cls_h["other"], a.max_other_hspz))
        bad = True
    if a.max_other_lastz is not None and cls_l["other"] > a.max_other_lastz:
        print("class 'other' of only-LASTZ: %d > %d" % (cls_l["other"], a.max_other_lastz))
        bad = True
    if not h and not lz:
        print("both sides are empty: nothing was compared")
        bad = True
    print("FAIL: more one-sided lines than allowed" if bad else "OK")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
