#!/usr/bin/env python3
"""make_slices — N query slices of a FASTA(.gz), for bench/index_batch.sh.

    bench/make_slices.py FASTA N BP OUTDIR

The records are joined in file order (a draft's scaffolds become one text of L bases); slice
i (1-based) starts at i * L / (N + 1) (evenly spread, so N-rich ends are avoided) and is BP
bases long; it is written as OUTDIR/slice<i>.fa with the name <first record>_<start> (0-based
start) and 60-column lines.  Deterministic; standard library only.
"""
import gzip
import os
import sys


def main():
    path, n, bp, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    op = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    name, seq = None, []
    with op(path, "rb") as fh:
        for line in fh:
            if line.startswith(b">"):
                if name is None:
                    name = line[1:].split()[0].decode()
            else:
                seq.append(line.strip())
    s = b"".join(seq)
    os.makedirs(out, exist_ok=True)
    for i in range(1, n + 1):
        a = i * len(s) // (n + 1)
        piece = s[a:a + bp]
        with open(os.path.join(out, f"slice{i}.fa"), "wb") as f:
            f.write(f">{name}_{a}\n".encode())
            for k in range(0, len(piece), 60):
                f.write(piece[k:k + 60] + b"\n")


if __name__ == "__main__":
    main()
