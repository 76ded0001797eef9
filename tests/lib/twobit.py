#!/usr/bin/env python3
"""Write a UCSC .2bit file from FASTA (plain or .gz), for the reader tests.

  twobit.py IN.fa[.gz] OUT.2bit [--endian little|big]

Records keep their order; the name is the header text up to the first whitespace.  N blocks
cover runs of bytes other than A/C/G/T (any case), mask blocks cover lower-case runs, as
faToTwoBit writes them.  Version 0 (32-bit offsets).
"""
import argparse
import gzip
import struct
import sys

CODE = {"T": 0, "C": 1, "A": 2, "G": 3}


def read_fasta(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rb") as f:
        data = f.read().decode("ascii")
    recs, name, seq = [], None, []
    for line in data.splitlines():
        if line.startswith(">"):
            if name is not None:
                recs.append((name, "".join(seq)))
            parts = line[1:].split()
            name, seq = (parts[0] if parts else ""), []
        elif name is not None:
            seq.append(line.strip())
    if name is not None:
        recs.append((name, "".join(seq)))
    return recs


def runs(seq, pred):
    out, start = [], None
    for i, c in enumerate(seq):
        if pred(c):
            if start is None:
                start = i
        elif start is not None:
            out.append((start, i - start))
            start = None
    if start is not None:
        out.append((start, len(seq) - start))
    return out


def record_bytes(seq, e):
    nblocks = runs(seq, lambda c: c.upper() not in CODE)
    mblocks = runs(seq, lambda c: c.islower())
    b = struct.pack(e + "II", len(seq), len(nblocks))
    b += b"".join(struct.pack(e + "I", s) for s, _ in nblocks)
    b += b"".join(struct.pack(e + "I", n) for _, n in nblocks)
    b += struct.pack(e + "I", len(mblocks))
    b += b"".join(struct.pack(e + "I", s) for s, _ in mblocks)
    b += b"".join(struct.pack(e + "I", n) for _, n in mblocks)
    b += struct.pack(e + "I", 0)
    packed = bytearray()
    for i in range(0, len(seq), 4):
        v = 0
        chunk = seq[i:i + 4]
        for j in range(4):
            c = chunk[j].upper() if j < len(chunk) else "T"
            v = (v << 2) | CODE.get(c, 0)
        packed.append(v)
    return b + bytes(packed)


def write_2bit(recs, out, endian):
    e = "<" if endian == "little" else ">"
    header = struct.pack(e + "IIII", 0x1A412743, 0, len(recs), 0)
    index_size = sum(1 + len(n.encode()) + 4 for n, _ in recs)
    offset = len(header) + index_size
    index, body = b"", b""
    for name, seq in recs:
        nb = name.encode()
        if len(nb) > 255:
            sys.exit("name too long for 2bit: %s" % name)
        index += bytes([len(nb)]) + nb + struct.pack(e + "I", offset)
        rb = record_bytes(seq, e)
        body += rb
        offset += len(rb)
    with open(out, "wb") as f:
        f.write(header + index + body)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("fasta")
    ap.add_argument("out")
    ap.add_argument("--endian", choices=["little", "big"], default="little")
    a = ap.parse_args()
    write_2bit(read_fasta(a.fasta), a.out, a.endian)


if __name__ == "__main__":
    main()
