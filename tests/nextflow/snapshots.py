#!/usr/bin/env python3
"""nf-test snapshots of the modules' stub tests, made by rendering (Nextflow and nf-test cannot
run on the build machines; README "Nextflow", workflows/nextflow/README.md).

For each module: the `stub:` block of main.nf is rendered with the inputs of its
tests/main.nf.test "stub" test (harness.render, the same template subset), run with `bash -ue`
in an empty folder with PATH=/usr/bin:/bin (a stub must run with nothing installed: no hspz),
and process.out is written as nf-test writes it (numbered channels, then the named emits, files
as "NAME:md5,HEX", a folder as the list of its files; an eval output under -stub is 'stub').

  snapshots.py --write    write modules/local/hspz/*/tests/main.nf.test.snap
  snapshots.py --check    exit 1 if a committed snapshot differs from the rendering
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

META = {"id": "stub"}
# module: (stub context, [(emit, kind, item)]) -- kind: tuple of meta + what the stub makes
MODULES = {
    "plan": ({"meta": META}, [("plan", ["meta", "stub.plan.json"]), ("units", ["meta", "stub.units.txt"]),
                               ("versions_hspz", ["HSPZ_PLAN", "hspz", "stub"])]),
    "run": ({"meta": META, "units": "1,2", "unit_tag": "1-2"},
            [("unit", ["meta", "stub.units-1-2/"]), ("versions_hspz", ["HSPZ_RUN", "hspz", "stub"])]),
    "merge": ({"meta": META}, [("outdir", ["meta", "stub/"]), ("tarball", None),
                               ("report", ["meta", ["stub.report.html", "stub.report.png"]]),
                               ("versions_hspz", ["HSPZ_MERGE", "hspz", "stub"])]),
    "gapped": ({"meta": META, "extension": "maf"},
               [("alignment", ["meta", "stub.maf"]), ("versions_hspz", ["HSPZ_GAPPED", "hspz", "stub"])]),
    "lastz": ({"meta": META, "index": 1, "output": "x.maf-"},
              [("alignment", ["meta", 1, "1.x.maf-"]), ("versions_lastz", ["HSPZ_LASTZ", "lastz", "stub"])]),
}


def _file(d, name):
    p = os.path.join(d, name.rstrip("/"))
    if name.endswith("/"):
        if not os.path.isdir(p):
            raise SystemExit("stub made no folder %s" % name)
        return [_file(p, f) for f in sorted(os.listdir(p))]
    if not os.path.isfile(p):
        raise SystemExit("stub made no file %s" % name)
    return "%s:md5,%s" % (name, hashlib.md5(open(p, "rb").read()).hexdigest())


def render_stub(mod):
    main = os.path.join(harness.MOD, mod, "main.nf")
    m = re.search(r'\n    stub:\n    """\n(.*?)    """', open(main).read(), re.S)
    if not m:
        raise SystemExit("%s: no stub block" % main)
    ctx, outs = MODULES[mod]
    ctx = dict(harness.task_ctx("HSPZ_" + mod.upper(), 1), **ctx)
    with tempfile.TemporaryDirectory() as d:
        tpl = os.path.join(d, ".stub.tpl")
        open(tpl, "w").write(m.group(1))
        script = harness.render(tpl, ctx)
        os.remove(tpl)
        r = subprocess.run(["bash", "-ue", "-c", script], cwd=d, env={"PATH": "/usr/bin:/bin"},
                           stderr=subprocess.PIPE, text=True)
        if r.returncode:
            raise SystemExit("%s: the stub failed with nothing installed: %s" % (mod, r.stderr))
        content = {}
        for i, (emit, item) in enumerate(outs):
            if item is None:
                v = []
            else:
                v = [[META if x == "meta" else [_file(d, y) for y in x] if isinstance(x, list)
                      else _file(d, x) if isinstance(x, str) and "." in x or (isinstance(x, str) and x.endswith("/"))
                      else x for x in item]]
            content[str(i)] = v
            content[emit] = v
    return {"stub": {"content": [dict(sorted(content.items()))],
                     "meta": {"rendered-by": "tests/nextflow/snapshots.py"}}}


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "--check"
    bad = 0
    for mod in sorted(MODULES):
        text = json.dumps(render_stub(mod), indent=4) + "\n"
        snap = os.path.join(harness.MOD, mod, "tests", "main.nf.test.snap")
        if mode == "--write":
            open(snap, "w").write(text)
        elif not os.path.exists(snap) or open(snap).read() != text:
            print("snapshot differs from the rendering: %s (run tests/nextflow/snapshots.py --write)" % snap)
            bad += 1
    print("snapshots: %d modules, %d differ" % (len(MODULES), bad))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
