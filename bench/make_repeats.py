#!/usr/bin/env python3
"""Deterministic repeat stress inputs for issue 12 item 8 (bench/repeats.sh).

  make_repeats.py arich  OUT.fa [--len 44000] [--seed 1]
      one record: bases drawn with P(A) = 0.7, P(C) = P(G) = P(T) = 0.1 (an A-rich,
      low-complexity sequence); used as target and query (self comparison).
  make_repeats.py array  OUT.fa [--len 200000] [--unit 300] [--div 0.10] [--seed 1]
      one record: copies of one random 300 bp element, each copy with 10 % of its
      columns substituted independently (a tandem array); used as target and query.
"""
import argparse
import random


def write_fa(path, name, seq):
    with open(path, "w") as f:
        f.write(">%s\n" % name)
        for i in range(0, len(seq), 60):
            f.write(seq[i:i + 60] + "\n")


def arich(rng, n):
    return "".join(rng.choices("ACGT", weights=[7, 1, 1, 1], k=n))


def array(rng, n, unit, div):
    elem = [rng.choice("ACGT") for _ in range(unit)]
    out = []
    while len(out) < n:
        for b in elem:
            if rng.random() < div:
                b = rng.choice([c for c in "ACGT" if c != b])
            out.append(b)
    return "".join(out[:n])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["arich", "array"])
    ap.add_argument("out")
    ap.add_argument("--len", type=int)
    ap.add_argument("--unit", type=int, default=300)
    ap.add_argument("--div", type=float, default=0.10)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    if a.kind == "arich":
        write_fa(a.out, "arich", arich(rng, a.len or 44000))
    else:
        write_fa(a.out, "array", array(rng, a.len or 200000, a.unit, a.div))


if __name__ == "__main__":
    main()
