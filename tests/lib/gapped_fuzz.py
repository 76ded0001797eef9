#!/usr/bin/env python3
"""Differential fuzzer: `hspz gapped` against lastz 1.04.22 on random inputs (issue 34).

  gapped_fuzz.py [--seconds S | --cases N] [--seed S] [--hspz PATH] [--lastz PATH]
                 [--work DIR] [--repro DIR]
  gapped_fuzz.py --replay DIR            (run one saved reproduction again; exit 1 if it differs)

Each case, made deterministically from (seed, case number): random target and query records
(tiny to a few kb; soft-masked runs, N runs, IUPAC letters with --ambiguous=iupac), planted
homologies in the query (target copies with substitutions and indels of 1-200 bases, reverse
complements, tandem copies, contained and overlapping copies, copies at record ends, whole
records for LASTZ's trivial self-alignment), a segments file in lastz's --segments format
(segments on the planted homologies, random ones, overlapping and contained ones, ones at
record ends, both strands, tied, negative and missing scores, comments and blank lines), and a
random option set from what docs/gapped.md says is built (--format=maf-/maf/axt/axt+, --ydrop/Y=,
--gappedthresh/L=, --inner/H=, --strand, --ambiguous=n|iupac[,R,P], a random score file,
--traceback, --notrivial, [multiple]/[subset=]/[nameparse=darkspace], make_lastz_chains'
FILE/NAME[s,e][multiple], FASTA or 2bit inputs).  A few cases carry one error lastz reports
(a bad target name, an extra segment, an interval out of range).  Options hspz refuses by
design (--ambiguous with --inner, rewind lines, other formats) are never generated.

lastz and `hspz gapped` run the same command line in the same folder; the output file, stdout,
stderr and the exit status must be byte-identical.  On a difference the case is reduced
(options, segment lines, records and record ends removed while it still differs) and written
to a folder (inputs, cmd.sh, both programs' results); the program exits 1 naming it.
Last line: "gapped_fuzz: N cases, S s, seed X: ..." .
"""
import argparse
import json
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import twobit  # noqa: E402

COMP = str.maketrans("ACGTRYKMBVDHSWNacgtrykmbvdhswn", "TGCAYRMKVBHDSWNtgcayrmkvbhdswn")
IUPAC = "RYKMBVDHSW"


def revcomp(s):
    return s.translate(COMP)[::-1]


# ------------------------------------------------------------------ sequences

def rand_bases(r, n, gc=None):
    if gc is None:
        return "".join(r.choice("ACGT") for _ in range(n))
    return "".join(r.choice("GC") if r.random() < gc else r.choice("AT") for _ in range(n))


def rand_len(r):
    k = r.random()
    if k < 0.12:
        return r.randint(1, 12)
    if k < 0.35:
        return r.randint(13, 300)
    if k < 0.85:
        return r.randint(300, 2500)
    return r.randint(2500, 6000)


def mutate(r, src, sub, indel):
    """a copy of src with substitutions and indels; returns (copy, [(src index, copy index)]
    for the columns that stayed paired)"""
    out, pairs, i = [], [], 0
    longi = r.random() < 0.3
    while i < len(src):
        x = r.random()
        if x < indel / 2:                     # deletion from the copy
            k = r.randint(50, 200) if longi and r.random() < 0.1 else min(int(r.expovariate(0.3)) + 1, 40)
            i += k
            continue
        if x < indel:                         # insertion into the copy
            k = r.randint(50, 200) if longi and r.random() < 0.1 else min(int(r.expovariate(0.3)) + 1, 40)
            out.append(rand_bases(r, k))
        c = src[i]
        if r.random() < sub:
            c = r.choice([b for b in "ACGT" if b != c.upper()] or ["A"])
        pairs.append((i, sum(map(len, out))))
        out.append(c)
        i += 1
    return "".join(out), pairs


class Case:
    """one differential case: records, segments (forward coordinates) and options"""

    def __init__(self):
        self.t = []          # [name header, seq]
        self.q = []
        self.segs = []       # dict(t, ts, q, qs, n, strand, score) 0-based forward; ts/qs None = raw line
        self.opts = []       # lastz options (strings), in order
        self.tact = {}       # target actions: multiple, subset (list of record indices), darkspace
        self.qact = {}
        self.family_b = None  # (t record, [s,e], q record, [s,e]) for FILE/NAME[s,e][multiple]
        self.twobit = [False, False]
        self.noscore = False
        self.extra = []      # raw error lines: (position in the file, text)
        self.comments = False
        self.use_output = True
        self.scorefile = None
        self.threads = 0     # hspz's own --threads=N (not given to lastz): the same bytes for every N


def _clone(c):
    n = Case()
    n.__dict__.update(json.loads(json.dumps(c.__dict__)))
    return n


def short_name(h, dark):
    h = h.lstrip(">").lstrip(" \t")
    n = 0
    while n < len(h) and h[n] not in " \t" and (dark or h[n] not in "|:"):
        n += 1
    s = h[:n]
    for suf in (".nib", ".2bit", ".hsx", ".fasta", ".fa"):
        if len(s) > len(suf) and s.endswith(suf):
            s = s[:-len(suf)]
    return s


def make_names(r, k, prefix, dark):
    names = []
    while len(names) < k:
        base = prefix + r.choice(["", "chr", "scaf_", "ctg."]) + str(r.randint(1, 999))
        if dark and r.random() < 0.3:
            base += r.choice(["|x", ":12", "|a:b"])
        hdr = base + (r.choice([" desc", "\tmore words", " len=5"]) if r.random() < 0.3 else "")
        if base.split("|")[0].split(":")[0] in [short_name(n, True) for n in names]:
            continue
        if any(short_name(n, dark) == short_name(hdr, dark) for n in names):
            continue
        names.append(hdr)
    return names


def decorate(r, seq, iupac):
    """soft-masked runs, N runs, IUPAC letters"""
    s = list(seq)
    n = len(s)
    if n == 0:
        return seq
    for _ in range(r.randint(0, 3) if r.random() < 0.6 else 0):
        a = r.randrange(n); b = min(n, a + r.randint(1, 400))
        for i in range(a, b):
            s[i] = s[i].lower()
    for _ in range(r.randint(0, 2) if r.random() < 0.4 else 0):
        a = r.randrange(n); b = min(n, a + r.randint(1, 60))
        for i in range(a, b):
            s[i] = "n" if s[i].islower() else "N"
    if iupac:
        for _ in range(r.randint(0, 12)):
            i = r.randrange(n)
            c = r.choice(IUPAC)
            s[i] = c.lower() if s[i].islower() else c
    return "".join(s)


def gen_case(seed, idx):
    r = random.Random("%s/%d" % (seed, idx))
    c = Case()
    dark = r.random() < 0.4
    fam_b = r.random() < 0.12
    amb = None
    if r.random() < 0.3:
        amb = r.choice(["n", "iupac"])
    iupac = amb == "iupac"
    nt = 1 if fam_b else r.choice([1, 1, 2, 3, 4, 6])
    nq = 1 if fam_b else r.choice([1, 1, 2, 3, 5])
    tnames = make_names(r, nt, "t", dark)
    qnames = make_names(r, nq, "q", dark)
    gc = r.choice([None, None, 0.2, 0.7])
    # the target, with tandem copies
    for h in tnames:
        L = rand_len(r)
        s = rand_bases(r, L, gc)
        if L > 100 and r.random() < 0.3:
            a = r.randrange(L - 20); unit = s[a:a + r.randint(3, 60)]
            s = s[:a] + unit * r.randint(2, 8 if r.random() < 0.8 else 40) + s[a:]
        c.t.append([h, s])
    homs = []   # (q record, pairs as (t record, t pos, query-forward pos))
    for qi, h in enumerate(qnames):
        if r.random() < 0.08 and not fam_b:        # a whole target record (trivial self-alignment)
            ti = r.randrange(nt)
            c.q.append([h, c.t[ti][1]])
            homs.append((qi, [(ti, i, i) for i in range(len(c.t[ti][1]))]))
            continue
        parts, plen, pending = [], 0, []
        for _ in range(r.randint(1, 6)):
            if r.random() < 0.3:
                piece = rand_bases(r, r.randint(1, 800), gc)
                parts.append(piece); plen += len(piece)
                continue
            ti = r.randrange(nt)
            ts = c.t[ti][1]
            if not ts:
                continue
            a = r.randrange(len(ts)) if r.random() < 0.7 else 0
            b = min(len(ts), a + r.randint(1, 3000)) if r.random() < 0.8 else len(ts)
            src = ts[a:b]
            copy, pairs = mutate(r, src, r.choice([0, 0.02, 0.08, 0.15, 0.3]), r.choice([0, 0, 0.005, 0.02, 0.06]))
            reps = r.randint(2, 3) if r.random() < 0.1 else 1
            for _ in range(reps):
                if r.random() < 0.4:           # reverse complement
                    m = len(copy)
                    pending.append([(ti, a + si, plen + m - 1 - ci) for si, ci in pairs])
                    parts.append(revcomp(copy))
                else:
                    pending.append([(ti, a + si, plen + ci) for si, ci in pairs])
                    parts.append(copy)
                plen += len(copy)
        seq = "".join(parts) or rand_bases(r, r.randint(1, 20))
        c.q.append([h, seq])
        for p in pending:
            homs.append((qi, p))
    # decoration (after planting: homologies keep their pairs, letters change)
    for rec in c.t + c.q:
        if r.random() < 0.7:
            rec[1] = decorate(r, rec[1], iupac)
    # lastz reads FILE/NAME (family B) from a 2bit only
    c.twobit = [fam_b or r.random() < 0.35, fam_b or r.random() < 0.35]
    # options
    c.tact = {"multiple": True, "dark": dark and r.random() < 0.8, "subset": None}
    c.qact = {"dark": c.tact["dark"] if r.random() < 0.8 else (dark and r.random() < 0.5), "subset": None}
    if fam_b:
        ts, tl = _subrange(r, len(c.t[0][1]))
        qs, ql = _subrange(r, len(c.q[0][1]))
        c.family_b = [ts, tl, qs, ql]
        c.tact["dark"] = c.qact["dark"] = False
    else:
        if r.random() < 0.35:
            c.tact["subset"] = sorted(r.sample(range(nt), r.randint(1, nt)))
        if r.random() < 0.35:
            c.qact["subset"] = sorted(r.sample(range(nq), r.randint(1, nq)))
    strand = r.choice(["plus", "minus", "both", None])
    fmt = r.choice(["maf-", "maf", "axt", "axt+"])
    opts = ["--format=" + fmt]
    if r.random() < 0.6:
        y = r.choice([r.randint(1, 300), r.randint(300, 3000), r.randint(3000, 12000), 9430, 9400])
        opts.append(r.choice(["--ydrop=%d", "Y=%d"]) % y)
    if r.random() < 0.6:
        g = r.choice([r.randint(-50, 500), r.randint(500, 4000), 3000])
        opts.append(r.choice(["--gappedthresh=%d", "L=%d"]) % g)
    if amb is None and r.random() < 0.3:
        opts.append(r.choice(["--inner=%d", "H=%d"]) % r.choice([r.randint(1, 800), r.randint(800, 3000), 2000]))
    if strand:
        opts.append("--strand=" + strand)
    if amb:
        a = "--ambiguous=" + amb
        if r.random() < 0.5:
            a += ",%d,%d" % (r.randint(0, 200), r.randint(0, 300))
        opts.append(a)
    if r.random() < 0.25:
        c.scorefile = gen_scorefile(r)
        opts.append(r.choice(["--scores=scores.txt", "Q=scores.txt"]))
    if r.random() < 0.2:
        v = r.choice(["100K", "120K", "150.5K", "1M", "800.0M", str(r.randint(102400, 400000))])
        opts.append(r.choice(["--traceback=", "--allocate:traceback=", "m="]) + v)
    if r.random() < 0.1:
        opts.append("--notrivial")
    r.shuffle(opts)
    c.opts = opts
    c.use_output = r.random() < 0.8
    # segments
    c.noscore = r.random() < 0.07
    c.comments = r.random() < 0.1
    strands = {"plus": "+", "minus": "-"}.get(strand)
    gen_segments(r, c, homs, strands)
    if r.random() < 0.06:
        add_error(r, c)
    if r.random() < 0.4:
        c.threads = r.choice([2, 3, 4, 7])
    return c


def _subrange(r, L):
    if L < 2 or r.random() < 0.3:
        return 1, L
    s = r.randint(1, L); e = r.randint(s, L)
    if e == s and s > 1:      # lastz 1.04.22 crashes (SIGSEGV) on a one-base [s,s] with s > 1
        s -= 1
    return s, e


def gen_scorefile(r):
    lines = ["# random score set (gapped_fuzz.py)"]
    O = r.randint(0, 800); E = r.randint(1, 60)
    lines.append("gap_open_penalty = %d" % O)
    lines.append("gap_extend_penalty = %d" % E)
    if r.random() < 0.3:
        lines.append("bad_score = X:%d" % r.randint(-3000, -200))
    if r.random() < 0.3:
        lines.append("fill_score = %d" % r.randint(-300, -10))
    for key, lo, hi in (("y_drop", 100, 12000), ("x_drop", 100, 3000), ("hsp_threshold", 1000, 5000),
                        ("gapped_threshold", 0, 4000)):
        if r.random() < 0.2:
            lines.append("%s = %d" % (key, r.randint(lo, hi)))
    letters = list("ACGT")
    if r.random() < 0.3:
        letters.append("N")
    lines.append("")
    lines.append("   " + "  ".join("%5s" % x for x in letters))
    for a in letters:
        row = []
        for b in letters:
            if a == "N" or b == "N":
                row.append(r.randint(-200, 0))
            elif a == b:
                row.append(r.randint(40, 150))
            else:
                row.append(r.randint(-250, 10))
        lines.append(a + "  " + "  ".join("%5d" % v for v in row))
    return "\n".join(lines) + "\n"


def rc_len(c, qi):
    return len(c.q[qi][1])


def gen_segments(r, c, homs, strands):
    segs = []
    dense = r.random() < 0.15        # many segments: alignments bounded by many earlier ones (§4.4)

    def score(n):
        k = r.random()
        if k < 0.1:
            return r.choice([0, 3000, 5000])       # ties
        if k < 0.15:
            return r.randint(-500, 0)
        return r.randint(1, 40000) if r.random() < 0.3 else n * r.randint(20, 90)

    def add(ti, ts, qi, qf, n, st):
        if n < 1 or ts < 0 or qf < 0 or ts + n > len(c.t[ti][1]) or qf + n > len(c.q[qi][1]):
            return
        segs.append({"t": ti, "ts": ts, "q": qi, "qs": qf, "n": n, "strand": st, "score": score(n)})

    for qi, pairs in homs:
        if not pairs or r.random() < 0.15:
            continue
        for _ in range(r.randint(1, 4) if not dense else r.randint(5, 25)):
            # a run of pairs on one diagonal
            k = r.randrange(len(pairs))
            ti, tp, qp = pairs[k]
            fwd = k + 1 < len(pairs) and pairs[k + 1][2] == qp + 1 or k > 0 and pairs[k - 1][2] == qp - 1
            j = k
            step = 1 if fwd or len(pairs) == 1 else -1
            while j + 1 < len(pairs) and pairs[j + 1][0] == ti and pairs[j + 1][1] == pairs[j][1] + 1 \
                    and pairs[j + 1][2] == pairs[j][2] + step and j - k < 400:
                j += 1
            n = r.randint(1, j - k + 1)
            if step == 1:
                add(ti, tp, qi, qp, n, "+")
            else:   # reverse complement copy: on the query's reverse strand the run is forward
                # pairs k..k+n-1: target tp.., query forward qp, qp-1, ...; the segment covers
                # query forward [qp-n+1, qp]
                add(ti, tp, qi, qp - n + 1, n, "-")
    # random segments, and ones at record ends
    for _ in range(r.randint(0, 6)):
        ti = r.randrange(len(c.t)); qi = r.randrange(len(c.q))
        Lt, Lq = len(c.t[ti][1]), len(c.q[qi][1])
        n = r.randint(1, max(1, min(Lt, Lq, 400)))
        if n > min(Lt, Lq):
            continue
        ts = r.choice([0, Lt - n, r.randint(0, Lt - n)])
        qs = r.choice([0, Lq - n, r.randint(0, Lq - n)])
        add(ti, ts, qi, qs, n, r.choice("+-"))
    # overlapping and contained copies of segments, same diagonal or shifted
    for s in list(segs):
        if r.random() < 0.2:
            d = r.randint(-30, 30)
            add(s["t"], s["ts"] + d, s["q"], s["qs"] + d, s["n"] + r.randint(-40, 40), s["strand"])
        if r.random() < 0.1:
            a = r.randint(0, s["n"] - 1)
            add(s["t"], s["ts"] + a, s["q"], s["qs"] + a, r.randint(1, s["n"] - a), s["strand"])
        if r.random() < 0.05:
            add(s["t"], s["ts"], s["q"], s["qs"], s["n"], s["strand"])     # a duplicate
    if strands:
        segs = [s for s in segs if s["strand"] == strands]
    # segments on target records a [subset] leaves out fail in lastz ("bad target sequence name"):
    # keep only a few of them
    sel = c.tact.get("subset")
    if sel is not None:
        segs = [s for s in segs if s["t"] in sel or r.random() < 0.03]
    r.shuffle(segs)
    cap = 300 if dense else 60
    if len(segs) > cap:
        segs = segs[:cap]
    c.segs = segs


def add_error(r, c):
    k = r.choice(["badname", "extra", "range"])
    if k == "badname":
        c.extra = [r.random(), "badname"]
    elif k == "extra":
        c.extra = [r.random(), "extra"]
    else:
        c.extra = [r.random(), "range"]


# ------------------------------------------------------------------ rendering

def seg_groups(c):
    """the segment lines in the order lastz's passes read them"""
    strand = "both"
    for o in c.opts:
        if o.startswith("--strand="):
            strand = o.split("=", 1)[1]
    sts = {"plus": ["+"], "minus": ["-"], "both": ["+", "-"]}[strand]
    if c.family_b:
        return [[s for s in c.segs if s["strand"] == st] for st in sts]
    order = c.qact["subset"] if c.qact["subset"] is not None else list(range(len(c.q)))
    groups = []
    for qi in order:
        for st in sts:
            groups.append([s for s in c.segs if s["q"] == qi and s["strand"] == st])
    return groups


def seg_line(c, s, sep):
    tn = short_name(c.t[s["t"]][0], c.tact["dark"])
    qn = short_name(c.q[s["q"]][0], c.qact["dark"])
    ts = s["ts"] + 1
    if s["strand"] == "+":
        qs = s["qs"] + 1
    else:
        qs = len(c.q[s["q"]][1]) - s["qs"] - s["n"] + 1
    f = [tn, str(ts), str(ts + s["n"] - 1), qn, str(qs), str(qs + s["n"] - 1), s["strand"]]
    if not c.noscore:
        f.append(str(s["score"]))
    return sep.join(f)


def render(c, d):
    """write the case's files into folder d; returns the argument list (after the program)"""
    r = random.Random(len(c.segs) * 7919 + len(c.opts))
    tsel = c.tact["subset"]
    # records a [subset] does not select stay in the files (lastz skips them)
    for w, recs, act in ((0, c.t, c.tact), (1, c.q, c.qact)):
        fn = ("t" if w == 0 else "q") + (".2bit" if c.twobit[w] else ".fa")
        if c.twobit[w]:
            twobit.write_2bit([(h.split()[0] if h.split() else "", s) for h, s in recs], os.path.join(d, fn), "little")
        else:
            with open(os.path.join(d, fn), "w") as f:
                for h, s in recs:
                    f.write(">" + h + "\n")
                    for i in range(0, len(s), 60):
                        f.write(s[i:i + 60] + "\n")
        if act.get("subset") is not None:
            # lastz matches a 2bit record by its raw name and a FASTA record by its short name
            # (spec §1.2, §1.3): mostly the name lastz finds, at times the raw FASTA word
            with open(os.path.join(d, fn.split(".")[0] + ".names"), "w") as f:
                for i in act["subset"]:
                    raw = recs[i][0].split()[0]
                    f.write((raw if c.twobit[w] or r.random() < 0.1 else short_name(raw, act.get("dark"))) + "\n")
    lines = []
    for g in seg_groups(c):
        for s in g:
            lines.append(seg_line(c, s, "\t" if r.random() < 0.9 or not c.comments else "  "))
            if c.comments and r.random() < 0.1:
                lines.append(r.choice(["", "# a comment", "   "]))
    if c.extra:
        pos = int(c.extra[0] * (len(lines) + 1))
        tn = short_name(c.t[0][0], c.tact["dark"]); qn = short_name(c.q[0][0], c.qact["dark"])
        Lt, Lq = len(c.t[0][1]), len(c.q[0][1])
        n = max(1, min(Lt, Lq) // 2)
        bad = {"badname": "nosuch\t1\t%d\t%s\t1\t%d\t+\t5000" % (n, qn, n),
               "extra": "%s\t1\t%d\t%s\t1\t%d\t+\t5000" % (tn, n, qn, n),
               "range": "%s\t%d\t%d\t%s\t1\t%d\t+\t5000" % (tn, Lt, Lt + n - 1, qn, n)}[c.extra[1]]
        if c.extra[1] == "extra":
            pos = len(lines)     # after every pass's lines: lastz reports it after the last pass
        lines.insert(pos, bad)
    with open(os.path.join(d, "s.seg"), "w") as f:
        f.write("".join(x + "\n" for x in lines))
    if c.scorefile:
        with open(os.path.join(d, "scores.txt"), "w") as f:
            f.write(c.scorefile)
    specs = []
    for w, recs, act in ((0, c.t, c.tact), (1, c.q, c.qact)):
        fn = ("t" if w == 0 else "q") + (".2bit" if c.twobit[w] else ".fa")
        if c.family_b:
            s, e = c.family_b[2 * w], c.family_b[2 * w + 1]
            spec = "%s/%s[%d,%d][multiple]" % (fn, recs[0][0].split()[0], s, e) if (s, e) != (1, len(recs[0][1])) or r.random() < 0.5 \
                else "%s/%s[multiple]" % (fn, recs[0][0].split()[0])
        else:
            spec = fn
            if act.get("dark"):
                spec += "[nameparse=darkspace]"
            if w == 0:
                spec += "[multiple]"
            if act.get("subset") is not None:
                spec += "[subset=%s.names]" % fn.split(".")[0]
        specs.append(spec)
    args = specs + ["--segments=s.seg"] + list(c.opts)
    if c.use_output:
        args.append("--output=res.out")
    return args


def fix_family_b(c):
    """family B segments: query coordinates inside the sub-range; coordinates stay full-record"""
    if not c.family_b:
        return
    ts, te, qs, qe = c.family_b
    Lq = len(c.q[0][1])
    keep = []
    for s in c.segs:
        if s["t"] != 0 or s["q"] != 0:
            continue
        if s["ts"] + 1 < ts or s["ts"] + s["n"] > te:
            continue
        if s["qs"] + 1 < qs or s["qs"] + s["n"] > qe:
            continue
        keep.append(s)
    c.segs = keep
    _ = Lq


# ------------------------------------------------------------------ running

def run_one(prog, args, d, tag):
    out = os.path.join(d, "res.out")
    if os.path.exists(out):
        os.unlink(out)
    try:
        p = subprocess.run(prog + args, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        rc, so, se = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, so, se = "timeout", b"", b""
    fo = None
    if os.path.exists(out):
        with open(out, "rb") as f:
            fo = f.read()
        os.rename(out, os.path.join(d, tag + ".out"))
    return {"rc": rc, "stdout": so, "stderr": se, "file": fo}


def compare(lz, hz):
    """'' when equal as docs/gapped.md promises, else what differs"""
    why = []
    if lz["rc"] != hz["rc"]:
        why.append("exit status %s vs %s" % (lz["rc"], hz["rc"]))
    if lz["stdout"] != hz["stdout"]:
        why.append("stdout")
    if lz["stderr"] != hz["stderr"]:
        why.append("stderr")
    lf, hf = lz["file"], hz["file"]
    # lastz leaves an empty --output file when it fails before writing; hspz writes none
    if lf != hf and not (lz["rc"] != 0 and not lf and hf is None):
        why.append("output file")
    return ", ".join(why)


def check(c, hspz, lastz, work):
    d = tempfile.mkdtemp(dir=work)
    try:
        fix_family_b(c)
        args = render(c, d)
        lz = run_one([lastz], args, d, "lastz")
        hz = run_one([hspz, "gapped"], args + (["--threads=%d" % c.threads] if c.threads else []), d, "hspz")
        return compare(lz, hz), lz, hz, args
    finally:
        shutil.rmtree(d, ignore_errors=True)


def reduce_case(c, still, log):
    """greedy reduction while still(case) holds"""
    def attempt(n):
        try:
            return still(n)
        except Exception as e:  # a reduction that breaks rendering is no reduction
            log("reduction step failed: %s" % e)
            return False

    changed = True
    while changed:
        changed = False
        # options
        for i in range(len(c.opts) - 1, -1, -1):
            if c.opts[i].startswith("--format="):
                continue
            n = _clone(c); del n.opts[i]
            if "--scores=" not in " ".join(n.opts) and "Q=" not in " ".join(n.opts):
                n.scorefile = None
            if attempt(n):
                c = n; changed = True
        for attr, val in (("extra", []), ("comments", False), ("noscore", False), ("threads", 0)):
            if getattr(c, attr) != val:
                n = _clone(c); setattr(n, attr, val)
                if attempt(n):
                    c = n; changed = True
        for w in (0, 1):
            if c.twobit[w] and not c.family_b:     # lastz reads FILE/NAME from a 2bit only
                n = _clone(c); n.twobit[w] = False
                if attempt(n):
                    c = n; changed = True
        for act in ("tact", "qact"):
            if getattr(c, act).get("subset") is not None:
                n = _clone(c); getattr(n, act)["subset"] = None
                if attempt(n):
                    c = n; changed = True
            if getattr(c, act).get("dark"):
                n = _clone(c); getattr(n, act)["dark"] = False
                if attempt(n):
                    c = n; changed = True
        # segments: chunks, then one at a time
        k = max(1, len(c.segs) // 2)
        while k >= 1:
            i = 0
            while i < len(c.segs):
                n = _clone(c); del n.segs[i:i + k]
                if attempt(n):
                    c = n; changed = True
                else:
                    i += k
            k //= 2
        # records nothing refers to
        for side in ("t", "q"):
            for i in range(len(getattr(c, side)) - 1, -1, -1):
                if len(getattr(c, side)) == 1 or c.family_b:
                    break
                if any(s[side] == i for s in c.segs):
                    continue
                n = _clone(c)
                del getattr(n, side)[i]
                for s in n.segs:
                    if s[side] > i:
                        s[side] -= 1
                act = n.tact if side == "t" else n.qact
                if act.get("subset") is not None:
                    act["subset"] = [x - (x > i) for x in act["subset"] if x != i]
                    if not act["subset"]:
                        continue
                if attempt(n):
                    c = n; changed = True
        # record ends: cut the tail beyond the segments, then the head before them
        if not c.family_b:
            for side in ("t", "q"):
                for i in range(len(getattr(c, side))):
                    for frac in (0.5, 0.25, 0.1, 0.03):
                        seq = getattr(c, side)[i][1]
                        end = max([s[side + "s"] + s["n"] for s in c.segs if s[side] == i] + [0])
                        cut = int((len(seq) - end) * frac)
                        if cut > 0:
                            n = _clone(c)
                            getattr(n, side)[i][1] = seq[:len(seq) - cut]
                            if attempt(n):
                                c = n; changed = True
                        seq = getattr(c, side)[i][1]
                        beg = min([s[side + "s"] for s in c.segs if s[side] == i] + [len(seq)])
                        cut = int(beg * frac)
                        if cut > 0 and len(seq) - cut >= 1:
                            n = _clone(c)
                            getattr(n, side)[i][1] = seq[cut:]
                            for s in n.segs:
                                if s[side] == i:
                                    s[side + "s"] -= cut
                            if attempt(n):
                                c = n; changed = True
    return c


def save_repro(c, hspz, lastz, work, dest, why):
    os.makedirs(dest, exist_ok=True)
    fix_family_b(c)
    args = render(c, dest)
    with open(os.path.join(dest, "case.json"), "w") as f:
        json.dump(c.__dict__, f)
    cmd = " ".join(shlex.quote(a) for a in args)
    with open(os.path.join(dest, "args"), "w") as f:        # one argument a line (gapped.bats)
        f.write("".join(a + "\n" for a in args))
    with open(os.path.join(dest, "cmd.sh"), "w") as f:
        f.write("#!/bin/sh\n# gapped_fuzz.py reproduction: %s\n# run in this folder; lastz and hspz gapped must give the same bytes\n" % why)
        f.write("lastz %s\n" % cmd)
        f.write("${HSPZ:-hspz} gapped %s%s\n" % (cmd, " --threads=%d" % c.threads if c.threads else ""))
    for tag, prog in (("lastz", [lastz]), ("hspz", [hspz, "gapped"])):
        res = run_one(prog, args + (["--threads=%d" % c.threads] if c.threads and tag == "hspz" else []), dest, tag)
        for k in ("stdout", "stderr"):
            with open(os.path.join(dest, "%s.%s" % (tag, k)), "wb") as f:
                f.write(res[k])
        with open(os.path.join(dest, tag + ".rc"), "w") as f:
            f.write("%s\n" % res["rc"])
    return cmd


def load_case(path):
    c = Case()
    with open(os.path.join(path, "case.json")) as f:
        c.__dict__.update(json.load(f))
    return c


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--cases", type=int, default=None)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--first", type=int, default=0, help="first case number")
    ap.add_argument("--hspz", default=os.environ.get("HSPZ", "hspz"))
    ap.add_argument("--lastz", default="lastz")
    ap.add_argument("--work", default=None, help="scratch folder (default: a new temporary one)")
    ap.add_argument("--repro", default=None, help="where a reduced difference goes (default: WORK/repro-SEED-N)")
    ap.add_argument("--replay", default=None, help="run the case.json of a reproduction folder")
    ap.add_argument("--no-reduce", action="store_true")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    hspz = os.path.abspath(a.hspz) if os.sep in a.hspz else shutil.which(a.hspz) or a.hspz
    work = a.work or tempfile.mkdtemp(prefix="gapped_fuzz.")
    os.makedirs(work, exist_ok=True)
    log = (lambda m: None) if a.quiet else (lambda m: print(m, file=sys.stderr, flush=True))
    if a.replay:
        c = load_case(a.replay)
        why, lz, hz, args = check(c, hspz, a.lastz, work)
        print("replay %s: %s" % (a.replay, why or "equal"))
        return 1 if why else 0
    if a.seconds is None and a.cases is None:
        a.seconds = 60
    t0 = time.time()
    n = 0
    kinds = {"alignments": 0, "lastz errors": 0}
    i = a.first
    while True:
        if a.cases is not None and n >= a.cases:
            break
        if a.seconds is not None and time.time() - t0 >= a.seconds:
            break
        c = gen_case(a.seed, i)
        why, lz, hz, args = check(_clone(c), hspz, a.lastz, work)
        n += 1
        if isinstance(lz["rc"], int) and lz["rc"] < 0:      # lastz killed by a signal: its bug
            log("case %d (seed %s): lastz died of signal %d; skipped: %s" % (i, a.seed, -lz["rc"], " ".join(args)))
            kinds["lastz crashed"] = kinds.get("lastz crashed", 0) + 1
            i += 1
            continue
        kinds["lastz errors" if lz["rc"] != 0 else "alignments"] += 1
        if why:
            log("case %d (seed %s) differs: %s" % (i, a.seed, why))
            log("  args: %s" % " ".join(args))
            if not a.no_reduce:
                def still(x, why=why, lrc=lz["rc"], hrc=hz["rc"]):
                    # the same difference, not another one found on the way
                    w, l2, h2, _ = check(_clone(x), hspz, a.lastz, work)
                    return w == why and l2["rc"] == lrc and h2["rc"] == hrc
                c = reduce_case(c, still, log)
            dest = a.repro or os.path.join(work, "repro-%s-%d" % (a.seed, i))
            cmd = save_repro(c, hspz, a.lastz, work, dest, why)
            print("gapped_fuzz: %d cases, %.0f s, seed %s: case %d DIFFERS (%s); reduced reproduction in %s (%s)"
                  % (n, time.time() - t0, a.seed, i, why, dest, cmd))
            return 1
        i += 1
    print("gapped_fuzz: %d cases, %.0f s, seed %s (cases %d-%d): all equal (%d with alignments or none, %d lastz errors, %d lastz crashes skipped)"
          % (n, time.time() - t0, a.seed, a.first, i - 1, kinds["alignments"], kinds["lastz errors"], kinds.get("lastz crashed", 0)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
