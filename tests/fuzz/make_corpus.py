#!/usr/bin/env python3
"""Write the seed corpora of tests/fuzz (committed; rerun only to change them).

    tests/fuzz/make_corpus.py HSPZ

Every seed is a small slice of tests/data or conf/ (a few hundred bytes), or a variant made
from one (truncated, a byte changed, recompressed).  HSPZ (a built hspz) writes the plan seeds
with `hspz plan` on slices of the mtDNA pair.
"""
import gzip
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
OUT = os.path.join(ROOT, "tests", "fuzz", "corpus")
MT = os.path.join(ROOT, "tests", "data", "tiny_mtdna_human_vs_orangutan")
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))


def put(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def gz(data):
    return gzip.compress(data, compresslevel=6, mtime=0)


def bgzf(data, eof=True):
    """BGZF: gzip members of at most 64 KiB with the BC extra field, then the EOF block."""
    out = b""
    for i in range(0, max(len(data), 1), 60000):
        chunk = data[i:i + 60000]
        c = zlib.compressobj(6, zlib.DEFLATED, -15)
        body = c.compress(chunk) + c.flush()
        bsize = 18 + len(body) + 8 - 1
        out += (b"\x1f\x8b\x08\x04" + b"\0" * 4 + b"\0\xff" + struct.pack("<H", 6) + b"BC" +
                struct.pack("<HH", 2, bsize) + body + struct.pack("<II", zlib.crc32(chunk), len(chunk)))
    if eof:
        out += bytes.fromhex("1f8b08040000000000ff0600424302001b0003000000000000000000")
    return out


def twobit(records, big=False):
    """UCSC 2bit v0 (tests/lib/twobit.py's layout): N blocks for non-ACGT, mask for lower case."""
    e = ">" if big else "<"
    code = {"T": 0, "C": 1, "A": 2, "G": 3}

    def runs(s, pred):
        r, i = [], 0
        while i < len(s):
            if pred(s[i]):
                j = i
                while j < len(s) and pred(s[j]):
                    j += 1
                r.append((i, j - i))
                i = j
            else:
                i += 1
        return r
    index = b"".join(bytes([len(n)]) + n.encode() + b"\0\0\0\0" for n, _ in records)
    off = 16 + len(index)
    head, body = b"", b""
    for n, s in records:
        head += bytes([len(n)]) + n.encode() + struct.pack(e + "I", off + len(body))
        nb = runs(s, lambda c: c.upper() not in "ACGT")
        mb = runs(s, lambda c: c.islower())
        rec = struct.pack(e + "II", len(s), len(nb))
        rec += b"".join(struct.pack(e + "I", a) for a, _ in nb) + b"".join(struct.pack(e + "I", b) for _, b in nb)
        rec += struct.pack(e + "I", len(mb))
        rec += b"".join(struct.pack(e + "I", a) for a, _ in mb) + b"".join(struct.pack(e + "I", b) for _, b in mb)
        rec += b"\0\0\0\0"
        packed = bytearray()
        for i in range(0, len(s), 4):
            x = 0
            for k in range(4):
                x = (x << 2) | (code.get(s[i + k].upper(), 0) if i + k < len(s) else 0)
            packed.append(x)
        body += rec + bytes(packed)
    return struct.pack(e + "IIII", 0x1A412743, 0, len(records), 0) + head + body


def seqio():
    hum = open(os.path.join(MT, "MT-human.fa"), "rb").read()
    org = open(os.path.join(MT, "MT-orang.fa"), "rb").read()
    a = hum[:240]
    b = org[:200].replace(b"\n", b"\r\n", 2)
    put("seqio", "fasta_head", a)
    put("seqio", "fasta_crlf", b)
    put("seqio", "fasta_two_records", a + b">second desc\nacgtNNNNnnRYKMacgt\n\n>\n>last")
    put("seqio", "fasta_lower_n", b">x\n" + hum[100:160].lower() + b"\nNNNNNNNNNN\n" + hum[160:200] + b"\n")
    put("seqio", "fasta_no_newline", b">y\nACGTACGTAC")
    put("seqio", "fasta_leading_space", b"\n \n>z z\nAC\n")
    put("seqio", "fastq", b"@r\nACGT\n+\nIIII\n")
    put("seqio", "text_before", b"hello\n>x\nACGT\n")
    put("seqio", "binary", b">x\nAC\x00GT\n")
    put("seqio", "gzip", gz(a))
    put("seqio", "gzip_two_members", gz(a[:120]) + gz(a[120:]))
    put("seqio", "gzip_truncated", gz(a)[:-9])
    put("seqio", "bgzf", bgzf(a))
    put("seqio", "bgzf_no_eof", bgzf(a, eof=False))
    put("seqio", "bgzf_eof_only", bgzf(b"", eof=True)[-28:])
    seq = hum[hum.index(b"\n") + 1:].replace(b"\n", b"")[:90].decode()
    recs = [("chrM", seq[:50] + "NNNN" + seq[50:70].lower() + seq[70:]), ("b", "acgTTn"), ("", "G")]
    put("seqio", "2bit_le", twobit(recs))
    put("seqio", "2bit_be", twobit(recs, big=True))
    t = bytearray(twobit(recs))
    put("seqio", "2bit_truncated", bytes(t[:len(t) - 7]))
    t2 = bytearray(t); t2[4] = 1
    put("seqio", "2bit_v1_header", bytes(t2))
    put("seqio", "2bit_gzip", gz(twobit(recs)))


def config():
    y = open(os.path.join(ROOT, "conf", "hspz.yaml"), "rb").read()
    put("config", "hspz_yaml_head", y[:600])
    put("config", "sections", b"extension:\n  xdrop: 500\n  hspthresh: 2500\n  entropy: false\nplan:\n  seq_block_size: 12345\n")
    put("config", "strings", b"inputs:\n  target_prefix: \"a\\\"b\\\\c\\td\"\nseeding:\n  strand: minus\n  seed: \"14of22\"\n")
    put("config", "nulls", b"scoring:\n  ambiguous: ~\n  scoring: \"x.txt\"\noutput:\n  gappedthresh: -1\n  ydrop: 0\n")
    put("config", "flow", b"{devices: {progress: off, threads: 2}, plan: {max_hits: 9223372036854775807}}\n")
    put("config", "unknown_key", b"extension:\n  xdorp: 1\n")
    put("config", "two_docs", b"seeding:\n  step: 2\n---\nseeding:\n  step: 3\n")
    put("config", "anchors", b"seeding: &a\n  step: 1\nextension: *a\n")
    put("config", "duplicate", b"output:\n  nogapped: true\n  nogapped: false\n")
    put("config", "bad_seed", b"seeding:\n  seed: 1x1\n  transition: yes\n")


def scorefile():
    d = os.path.join(ROOT, "tests", "data", "scoring")
    h = open(os.path.join(d, "hoxd70.txt"), "rb").read()
    put("scorefile", "hoxd70", h)
    put("scorefile", "invented_close", open(os.path.join(d, "invented_close.txt"), "rb").read())
    put("scorefile", "keys", b"bad_score = X:-1000\nfill_score = -100\ngap_open_penalty = 400\ngap_extend_penalty = 30\n"
                             b"   A    C    G    T\nA 91 -114 -31 -123\nC -114 100 -125 -31\nG -31 -125 100 -114\nT -123 -31 -114 91\n")
    put("scorefile", "no_labels", b"91 -114 -31 -123\n-114 100 -125 -31\n-31 -125 100 -114\n-123 -31 -114 91\n")
    put("scorefile", "suffix_k", b"A C G T\n1K -1 -1 -1\n-1 1K -1 -1\n-1 -1 1K -1\n-1 -1 -1 1K\n")
    put("scorefile", "ragged", b"A C G T\nA 1 2 3\n")
    put("scorefile", "comment_only", b"# nothing\n\n")


def plan(hspz):
    tmp = tempfile.mkdtemp()
    try:
        hum = open(os.path.join(MT, "MT-human.fa"), "rb").read()[:3000]
        org = open(os.path.join(MT, "MT-orang.fa"), "rb").read()[:3000]
        t, q = os.path.join(tmp, "t.fa"), os.path.join(tmp, "q.fa")
        open(t, "wb").write(hum)
        open(q, "wb").write(org)
        p = os.path.join(tmp, "p.json")
        subprocess.run([hspz, "plan", "-r", t, "-q", q, "-o", p, "--seq-block-size", "1000",
                        "--lastz-interval-size", "500", "--max-unit-hits", "100"], check=True,
                       stderr=subprocess.DEVNULL)
        data = open(p, "rb").read()
        # the plan's paths are of the temporary folder: name them as the corpus does
        data = data.replace(tmp.encode(), b"/tmp/plan")
        put("plan", "plan", data)
        # small hand-made ones: the same keys with a short configuration
        import json
        d = json.loads(data)
        d["config"] = "seeding:\n  step: 1\n"
        d["units"] = d["units"][:3]
        small = json.dumps(d).encode()
        put("plan", "plan_small", small)
        d["units"] = []
        put("plan", "plan_no_units", json.dumps(d).encode())
        put("plan", "plan_truncated", small[:len(small) // 2])
        put("plan", "not_json", b"{\"kind\": \"hspz-plan\", \"format\": 1,\n")
    finally:
        shutil.rmtree(tmp)


def chunk():
    hum = open(os.path.join(MT, "MT-human.fa"), "rb").read()
    seq = hum[hum.index(b"\n") + 1:].replace(b"\n", b"")
    # 6 parameter bytes, then tl = 16 + 8 * byte 5 target bytes (mapped to A C G T: 'A' & 31 = 1
    # -> C ... so raw genome letters become some mix), then the edit script
    def enc(s):
        m = {"A": 0, "C": 1, "G": 2, "T": 3}
        return bytes(m.get(chr(c), 28) for c in s)
    for i, (p, start, tl8, script) in enumerate([
            (bytes([0, 20, 10, 1, 0x80]), 0, 40, bytes([63] * 6)),
            (bytes([1, 20, 15, 3, 0x80]), 500, 60, bytes([63, 63, 0x90, 63, 0xc3, 63, 63, 0xe1, 63])),
            (bytes([2, 5, 1, 0, 3]), 1000, 12, bytes([63, 0x81, 30, 0xc0, 63])),
            (bytes([3, 8, 2, 0x06, 0x80]), 2000, 20, bytes([40, 0xa2, 40, 0xe3, 40])),
            (bytes([4, 30, 5, 0x21, 0x81]), 3000, 30, bytes([63] * 4)),
            (bytes([6, 12, 3, 0x43, 0x10]), 4000, 24, bytes([20, 0x82, 20, 0x83, 63, 63])),
            (bytes([7, 63, 40, 0x63, 0x80]), 5000, 32, bytes([63] * 5))]):
        tl = 16 + 8 * tl8
        put("chunk", f"pair{i}", p + bytes([tl8]) + enc(seq[start:start + tl]) + script)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    # regress_* files are inputs the fuzzers found (kept; README.md lists them)
    for d, _, files in os.walk(OUT):
        for f in files:
            if not f.startswith("regress_"):
                os.unlink(os.path.join(d, f))
    seqio(); config(); scorefile(); plan(sys.argv[1]); chunk()


if __name__ == "__main__":
    main()
