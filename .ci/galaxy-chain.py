#!/usr/bin/env python3
"""hspz -> Batched LASTZ in a running Galaxy, compared with lastz run by hand (.ci/galaxy.sh).

    galaxy-chain.py URL API_KEY WORKDIR NAME TARGET QUERY [EXPECTED_MAF_GZ] ...

For each pair (NAME TARGET QUERY, FASTA or FASTA.gz; several pairs one after the other, each
optionally followed by "--expect MAF.gz"): upload both as fasta, run the hspz tool with its
defaults (KegAlign's: automatic diagonal partition, 400 Mb blocks), run the real batched_lastz
tool on hspz's `kegalign_output`, download both, then run every lastz command of the package by
hand (Debian's lastz, from galaxy/files, as run_lastz_tarball.py does) and require the same MAF
bytes (blocks > 0).  With --expect, the alignment blocks must also equal that MAF's (KegAlign's
own result for the pair).  The hspz tool also runs on the pair with Output "alignments in
hspz": its MAF must be batched_lastz's output byte for byte (uncompressed).  Prints one line per check, "PASS: ..." or "FAIL: ...", and exits 1
if any failed.  Only the standard library and Galaxy's REST API are used.
"""
import gzip
import io
import json
import os
import subprocess
import sys
import tarfile
import time
import urllib.request

URL, KEY, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
failed = 0


def report(ok, what):
    global failed
    print(("PASS: " if ok else "FAIL: ") + what, flush=True)
    failed += not ok


def api(method, path, body=None, raw=False):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(URL + path, data=data, method=method,
                                 headers={"x-api-key": KEY, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        b = r.read()
    return b if raw else json.loads(b)


def wait(kind, ident, limit=600):
    t0 = time.time()
    while time.time() - t0 < limit:
        st = api("GET", f"/api/{kind}/{ident}")["state"]
        if st in ("ok", "error", "failed", "deleted", "discarded", "paused"):
            return st
        time.sleep(1)
    return "timeout"


def upload(hist, paths):
    """Both FASTA files in one fetch request (one upload job); their HDA ids and states."""
    els = [{"src": "pasted", "paste_content": (gzip.open if p.endswith(".gz") else open)(p, "rt").read(),
            "ext": "fasta", "name": os.path.basename(p)} for p in paths]
    r = api("POST", "/api/tools/fetch", {"history_id": hist, "targets": [{
        "destination": {"type": "hdas"}, "elements": els}]})
    byname = {o["name"]: o["id"] for o in r["outputs"]}
    ids = [byname[os.path.basename(p)] for p in paths]
    return ids, [wait("datasets", i) for i in ids]


def submit(hist, tool, inputs):
    r = api("POST", "/api/tools", {"tool_id": tool, "history_id": hist, "inputs": inputs})
    return {o["output_name"]: o["id"] for o in r["outputs"]}, r["jobs"][0]["id"]


def run_tool(hist, tool, inputs):
    outs, job = submit(hist, tool, inputs)
    return outs, job, wait("jobs", job)


def maybe_gunzip(b):
    return gzip.decompress(b) if b[:2] == b"\x1f\x8b" else b


def by_hand(tgz, dest):
    """Every command of galaxy/commands.json run with lastz from galaxy/files; the MAF as
    run_lastz_tarball.py assembles it (a ##maf line, then the outputs in command order)."""
    with tarfile.open(fileobj=io.BytesIO(tgz), mode="r:*") as t:
        t.extractall(dest, filter="data")
    files = os.path.join(dest, "galaxy", "files")
    outs = []
    with open(os.path.join(dest, "galaxy", "commands.json")) as f:
        for line in f:
            c = json.loads(line)
            a = c["args"]
            tq = [x.split("=", 1)[1] for x in a if x.startswith(("--target=", "--query="))]
            rest = [x for x in a if not x.startswith(("--target=", "--query="))]
            with open(os.path.join(files, c["stderr"]), "w") as e:
                r = subprocess.run(["lastz", "--allocate:traceback=1.99G"] + tq + rest, cwd=files, stderr=e)
            err = open(os.path.join(files, c["stderr"])).read()
            if r.returncode not in (0, 1) or err:
                return None, f"lastz by hand exited {r.returncode}: {err[:300]}"
            out = [x.split("=", 1)[1] for x in a if x.startswith("--output=")][0]
            outs.append(open(os.path.join(files, out), "rb").read())
    return b"##maf version=1\n" + b"".join(outs), len(outs)


def blocks(b):
    out, cur = [], []
    for line in b.decode().splitlines():
        if line.startswith("a"):
            if cur:
                out.append("|".join(cur))
            cur = [line]
        elif line.startswith("s"):
            cur.append(" ".join(line.split()))
    if cur:
        out.append("|".join(cur))
    return sorted(out)


def one_pair(name, target, query, expect):
    t0 = time.time()
    hist = api("POST", "/api/histories", {"name": f"chain {name}"})["id"]
    (t, q), (st1, st2) = upload(hist, [target, query])
    if st1 != "ok" or st2 != "ok":
        return report(False, f"{name}: uploads {st1}/{st2}")
    pair = {"target": {"src": "hda", "id": t}, "query": {"src": "hda", "id": q}}
    # the same pair with Output "alignments in hspz", submitted now, compared below
    aouts, ajob = submit(hist, "hspz", dict(pair, output_mode="alignments"))
    outs, job, st = run_tool(hist, "hspz", pair)
    cmd = api("GET", f"/api/jobs/{job}?full=true").get("command_line") or ""
    report(st == "ok", f"{name}: hspz job {st}")
    if st != "ok":
        return
    report("--diagonal-partition auto" in cmd and "--seq-block-size '400000000'" in cmd and "--format 'maf-'" in cmd,
           f"{name}: hspz ran with KegAlign's defaults (--diagonal-partition auto, 400 Mb blocks, maf-)")
    keg = outs["kegalign_output"]
    bouts, bjob, bst = run_tool(hist, "batched_lastz", {"input": {"src": "hda", "id": keg}})
    if bst != "ok":
        info = api("GET", f"/api/jobs/{bjob}?full=true")
        return report(False, f"{name}: batched_lastz job {bst}: {(info.get('stderr') or '')[-400:]}")
    out = bouts["output"]
    ext = api("GET", f"/api/datasets/{out}")["extension"]
    got = maybe_gunzip(api("GET", f"/api/datasets/{out}/display", raw=True))
    tgz = api("GET", f"/api/datasets/{keg}/display", raw=True)
    want, n = by_hand(tgz, os.path.join(WORK, f"chain-{name}"))
    if want is None:
        return report(False, f"{name}: {n}")
    nb = len(blocks(got))
    report(ext.startswith("maf") and got == want and nb > 0,
           f"{name}: batched_lastz's MAF ({ext}, {nb} blocks, {n} lastz commands) == lastz by hand on the package")
    ast = wait("jobs", ajob)
    if ast != "ok":
        info = api("GET", f"/api/jobs/{ajob}?full=true")
        report(False, f"{name}: hspz (alignments in hspz) job {ast}: {(info.get('stderr') or '')[-400:]}")
    else:
        aln = aouts["alignments"]
        aext = api("GET", f"/api/datasets/{aln}")["extension"]
        mine = api("GET", f"/api/datasets/{aln}/display", raw=True)
        report(aext == "maf" and mine == got,
               f"{name}: hspz's 'alignments in hspz' ({aext}, {len(mine)} bytes) == batched_lastz's MAF, uncompressed")
    if expect:
        report(blocks(got) == blocks(maybe_gunzip(open(expect, "rb").read())),
               f"{name}: the same {nb} blocks as {os.path.basename(expect)}")
    print(f"{name}: {time.time() - t0:.1f} s", flush=True)


# The bootstrap admin key is no real user (it cannot own a history): make one and use its key.
users = api("GET", "/api/users?f_email=chain%40example.org")
if users:
    uid = users[0]["id"]
else:
    uid = api("POST", "/api/users", {"username": "chain", "email": "chain@example.org",
                                     "password": "chain-" + os.urandom(8).hex()})["id"]
KEY = api("POST", f"/api/users/{uid}/api_key")
args = sys.argv[4:]
while args:
    name, target, query, args = args[0], args[1], args[2], args[3:]
    expect = None
    if args[:1] == ["--expect"]:
        expect, args = args[1], args[2:]
    try:
        one_pair(name, target, query, expect)
    except Exception as e:  # an API error is a failed check, with its message
        report(False, f"{name}: {type(e).__name__}: {e}")
sys.exit(1 if failed else 0)
