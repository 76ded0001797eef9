#!/usr/bin/env python3
"""Drive workflows/nextflow's DAG without Nextflow: render each process's template the way
Nextflow would, run it in a task folder of its own with its inputs staged as links, and check
that plan -> units (shuffled, in groups, any --threads) -> merge gives the bytes of one
`hspz run`, and, with --gapped, that the gapped stage (one HSPZ_GAPPED task on the merged
folder, or with --gapped-tool lastz the per-command HSPZ_LASTZ tasks) gives the alignments of
the package's commands run in order with Debian's lastz.

Nextflow's runtime cannot be installed on the build machines (README "Nextflow"), so this is
what CI runs; `nextflow run . -profile test,docker` (main.nf at the repository root) runs the
same templates.  Where main.nf decides something in Groovy (unit folders sorted by name, the
final file's name and header by --format), this file does the same in Python; nextflow.bats runs
main.nf's Groovy functions (workflows/nextflow/functions.nf) against these.

Template language (the subset the templates may use; anything else is an error, so a template
cannot silently rely on something this harness does not render):
  ${NAME.NAME...}        a value (null renders "null", a list its items joined by spaces)
  ${A ?: B}              A unless null/empty/false, else B
  ${C ? A : B}           A when C is truthy, else B
  'text', 123            literals inside ${...}
  \\$                    a literal $ for the shell; any other $ is an error

  harness.py --hspz BIN [--config nextflow.config --profile test]
             [--target T --query Q --hspz-args ARGS --max-unit-hits N --units-per-task K]
             [--gapped] [--gapped-tool hspz|lastz] [--min-units N] [--lastz-args ARGS]
             [--path DIR] [--seed S] --work DIR
  --lastz-args: the gapped task's task.ext.args (lastz options after
  --allocate:traceback=1.99G on every command, HSPZ_GAPPED or HSPZ_LASTZ); --path: a folder put first on the tasks' PATH (a
  logging or failing lastz); the last line names the final file, as main.nf publishes it.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NF = os.path.join(ROOT, "workflows", "nextflow")
# batched_lastz's output kinds by lastz format (run_lastz_tarball.py); main.nf's
# alignmentExtension() in workflows/nextflow/functions.nf is the same table
FORMAT_KIND = {"axt": "axt", "axt+": "axt", "cigar": "cigar", "differences": "interval", "lav": "lav",
               "lav+text": "lav", "maf": "maf", "maf+": "maf", "maf-": "maf", "sam": "sam", "sam-": "sam",
               "softsam": "sam", "softsam-": "sam"}
MOD = os.path.join(NF, "modules", "local", "hspz")


class TemplateError(Exception):
    pass


def _lookup(ctx, dotted):
    cur = ctx
    for part in dotted.split("."):
        if not isinstance(cur, dict) or part not in cur:
            if isinstance(cur, dict) and dotted.split(".")[0] in ctx:
                return None          # a missing field of a known map is null, as in Groovy
            raise TemplateError("unknown name '%s'" % dotted)
        cur = cur[part]
    return cur


def _atom(ctx, s):
    s = s.strip()
    if re.fullmatch(r"'[^']*'", s):
        return s[1:-1]
    if re.fullmatch(r"-?[0-9]+", s):
        return int(s)
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*", s):
        return _lookup(ctx, s)
    raise TemplateError("unsupported expression '%s'" % s)


def _truthy(v):
    return v not in (None, "", 0, False, [])


def evaluate(ctx, expr):
    """Value of one ${...} expression (see the module docstring)."""
    if "?:" in expr:
        a, b = expr.split("?:", 1)
        v = _atom(ctx, a)
        return v if _truthy(v) else evaluate(ctx, b)
    m = re.fullmatch(r"(.+?)\?(.+):(.+)", expr)
    if m:
        return evaluate(ctx, m.group(2)) if _truthy(_atom(ctx, m.group(1))) else evaluate(ctx, m.group(3))
    return _atom(ctx, expr)


def _text(v):
    if v is None:
        return "null"
    if isinstance(v, list):
        return " ".join(_text(x) for x in v)
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def render(path, ctx):
    """The script Nextflow makes of template PATH with the task's values CTX."""
    src = open(path).read()
    out, i = [], 0
    while i < len(src):
        c = src[i]
        if c == "\\" and src.startswith("\\$", i):
            out.append("$"); i += 2
        elif c == "$":
            if not src.startswith("${", i):
                raise TemplateError("%s: bare '$' at offset %d (write \\$ for the shell)" % (path, i))
            j = src.index("}", i)
            out.append(_text(evaluate(ctx, src[i + 2:j])))
            i = j + 1
        else:
            out.append(c); i += 1
    return "".join(out)


def task_ctx(process, cpus, accelerator=None, args=None, prefix=None):
    return {"task": {"process": process, "cpus": cpus, "accelerator": accelerator,
                     "ext": {"args": args, "prefix": prefix}}}


class Runner:
    def __init__(self, work, hspz, path=None):
        self.work, self.n = work, 0
        first = ([os.path.abspath(path)] if path else []) + [os.path.dirname(os.path.abspath(hspz))]
        self.env = dict(os.environ, PATH=os.pathsep.join(first + [os.environ["PATH"]]))

    def task(self, name, template, ctx, stage):
        """Render TEMPLATE, stage STAGE {name: path} as links in a new task folder, run the
        script as Nextflow does (bash -ue .command.sh), return the folder."""
        self.n += 1
        d = os.path.join(self.work, "work", "%02d-%s" % (self.n, name))
        os.makedirs(d)
        for rel, src in stage.items():
            os.makedirs(os.path.dirname(os.path.join(d, rel)) or d, exist_ok=True)
            os.symlink(os.path.abspath(src), os.path.join(d, rel))
        script = render(template, ctx)
        with open(os.path.join(d, ".command.sh"), "w") as f:
            f.write(script)
        if subprocess.run(["sh", "-n", ".command.sh"], cwd=d).returncode:
            raise SystemExit("%s: the rendered script is not POSIX sh" % d)
        r = subprocess.run(["bash", "-ue", ".command.sh"], cwd=d, env=self.env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        open(os.path.join(d, ".command.err"), "w").write(r.stderr)
        if r.returncode:
            raise SystemExit("%s failed (exit %d):\n%s" % (d, r.returncode, r.stderr))
        return d


def test_profile(config, profile):
    """params.NAME = VALUE lines of one profile of nextflow.config (strings and integers)."""
    text = open(config).read()
    m = re.search(r"^\s*%s\s*\{(.*?)^\s*\}" % re.escape(profile), text, re.S | re.M)
    if not m:
        raise SystemExit("%s: no profile '%s'" % (config, profile))
    params = {}
    for k, v in re.findall(r"params\.(\w+)\s*=\s*(.+)", m.group(1)):
        v = v.strip()
        v = v.replace("${projectDir}", ROOT)
        if v[0] in "'\"":
            params[k] = v[1:-1]
        elif v in ("true", "false"):
            params[k] = v == "true"
        else:
            params[k] = int(v)
    return params


def same_tree(a, b):
    """Files of a and b (manifest.json aside) with the same names and bytes."""
    r = subprocess.run(["diff", "-r", "-x", "manifest.json", a, b], stdout=subprocess.PIPE, text=True)
    return r.returncode == 0, r.stdout[:2000]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hspz", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--config", default=os.path.join(ROOT, "nextflow.config"))
    ap.add_argument("--profile")
    ap.add_argument("--target"); ap.add_argument("--query")
    ap.add_argument("--hspz-args", dest="hspz_args")
    ap.add_argument("--max-unit-hits", dest="max_unit_hits", type=int)
    ap.add_argument("--units-per-task", dest="units_per_task", type=int)
    ap.add_argument("--gapped", action="store_true", default=None)
    ap.add_argument("--gapped-tool", dest="gapped_tool", choices=("hspz", "lastz"))
    ap.add_argument("--min-units", type=int, default=6)
    ap.add_argument("--lastz-args", dest="lastz_args")
    ap.add_argument("--path")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    p = {"hspz_args": "--tarball", "max_unit_hits": 0, "units_per_task": 1, "gapped": False, "id": "pair",
         "gapped_tool": "hspz"}
    if a.profile:
        p.update(test_profile(a.config, a.profile))
    for k in ("target", "query", "hspz_args", "max_unit_hits", "units_per_task", "gapped", "gapped_tool"):
        if getattr(a, k) is not None:
            p[k] = getattr(a, k)
    rng = random.Random(a.seed)
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    run = Runner(a.work, a.hspz, a.path)
    meta = {"id": p["id"]}
    T, Q = os.path.basename(p["target"]), os.path.basename(p["query"])
    inputs = {T: p["target"], Q: p["query"]}

    # HSPZ_PLAN (ext.args from nextflow.config: hspz_args + --max-unit-hits)
    ctx = dict(task_ctx("HSPZ_PLAN", 4, args="%s --max-unit-hits %d" % (p["hspz_args"], p["max_unit_hits"])),
               meta=meta, target=T, query=Q)
    d = run.task("plan", os.path.join(MOD, "plan", "templates", "plan.sh"), ctx, inputs)
    plan = os.path.join(d, "%s.plan.json" % meta["id"])
    ids = [l.strip() for l in open(os.path.join(d, "%s.units.txt" % meta["id"])) if l.strip()]
    if len(ids) < a.min_units:
        raise SystemExit("the plan has %d units, fewer than --min-units %d" % (len(ids), a.min_units))

    # HSPZ_RUN: groups of units_per_task ids (collate), run in shuffled order, 1 or 2 cpus
    k = p["units_per_task"]
    groups = [ids[i:i + k] for i in range(0, len(ids), k)]
    rng.shuffle(groups)
    unit_dirs = []
    for g in groups:
        ctx = dict(task_ctx("HSPZ_RUN", rng.choice([1, 2])), meta=meta, plan=os.path.basename(plan),
                   target=T, query=Q, units=",".join(g), unit_tag="%s-%s" % (g[0], g[-1]))
        d = run.task("run", os.path.join(MOD, "run", "templates", "run.sh"), ctx,
                     dict(inputs, **{os.path.basename(plan): plan}))
        unit_dirs.append(os.path.join(d, "%s.units-%s-%s" % (meta["id"], g[0], g[-1])))

    # HSPZ_MERGE: unit folders staged as units/* (stageAs), sorted by name as main.nf's
    # groupTuple(sort:) gives them (none for a plan without units)
    stage = dict(inputs, **{os.path.basename(plan): plan})
    staged = []
    for u in sorted(unit_dirs, key=os.path.basename):
        stage["units/" + os.path.basename(u)] = u
        staged.append("units/" + os.path.basename(u))
    ctx = dict(task_ctx("HSPZ_MERGE", 2), meta=meta, plan=os.path.basename(plan), target=T, query=Q, unit_dirs=staged)
    d = run.task("merge", os.path.join(MOD, "merge", "templates", "merge.sh"), ctx, stage)
    merged = os.path.join(d, meta["id"])

    # the reference: one hspz run with the same settings
    single = os.path.join(a.work, "single")
    cmd = [a.hspz, "run", "-r", p["target"], "-q", p["query"], "-o", single, "--quiet"] + p["hspz_args"].split()
    subprocess.run(cmd, check=True)
    ok, diff = same_tree(single, merged)
    if not ok:
        raise SystemExit("merged output differs from one hspz run:\n" + diff)
    tarball = os.path.exists(single + ".tar.gz")
    if tarball and open(single + ".tar.gz", "rb").read() != open(merged + ".tar.gz", "rb").read():
        raise SystemExit("merged tarball differs from one hspz run's")
    # the report beside the merged folder (hspz report), of all its segments
    page = os.path.join(d, meta["id"] + ".report.html")
    if not (os.path.getsize(page) > 0 and os.path.getsize(os.path.join(d, meta["id"] + ".report.png")) > 0):
        raise SystemExit("merge: no report page and PNG beside the merged folder")
    nseg = sum(1 for f in os.listdir(merged) if f.endswith(".segments") and f != "all.segments"
               for _ in open(os.path.join(merged, f)))
    if 'data-hsps="%d"' % nseg not in open(page).read():
        raise SystemExit("merge: the report does not show the %d segments of the merged folder" % nseg)
    msg = "%d units in %d tasks (shuffled, 1-2 threads) -> merge == one hspz run (%d files%s), report" % (
        len(ids), len(groups), len(os.listdir(single)), ", tarball" if tarball else "")

    if p["gapped"]:
        words = p["hspz_args"].split()
        fmt = "maf-"
        for k, w in enumerate(words):
            if w.startswith("--format="):
                fmt = w[len("--format="):]
            elif w == "--format" and k + 1 < len(words):
                fmt = words[k + 1]
        kind = FORMAT_KIND.get(fmt, "tabular")
        header = "##maf version=1\n" if kind == "maf" else ""
        lines = [l for l in open(os.path.join(merged, "lastz-commands.txt")).read().splitlines() if l.strip()]
        if p["gapped_tool"] == "hspz":
            # HSPZ_GAPPED: the merged folder staged under its name (read only), the pair's own
            # sequences, 1-3 cpus; main.nf gives it the extension and publishes its file
            before = sorted(os.listdir(merged))
            cpus = rng.choice([1, 2, 3])
            ctx = dict(task_ctx("HSPZ_GAPPED", cpus, args=a.lastz_args), meta=meta, outdir=meta["id"], target=T, query=Q, extension=kind)
            d = run.task("gapped", os.path.join(MOD, "gapped", "templates", "gapped.sh"), ctx,
                         dict(inputs, **{meta["id"]: merged}))
            final = open(os.path.join(d, "%s.%s" % (meta["id"], kind))).read()
            if sorted(os.listdir(merged)) != before or not same_tree(single, merged)[0]:
                raise SystemExit("HSPZ_GAPPED wrote into the merged folder it was given")
            what = "1 hspz gapped task (%d cpus, %d commands)" % (cpus, len(lines))
        else:
            if not tarball:
                raise SystemExit("--gapped-tool lastz needs --tarball in hspz_args")
            order = list(range(len(lines)))
            rng.shuffle(order)
            outs = {}
            for i in order:
                out = re.search(r"--output=(\S+)", lines[i]).group(1)
                ctx = dict(task_ctx("HSPZ_LASTZ", 1, args=a.lastz_args), meta=meta,
                           tarball=os.path.basename(merged) + ".tar.gz", index=i + 1, command=lines[i], output=out)
                d = run.task("lastz", os.path.join(MOD, "lastz", "templates", "lastz.sh"), ctx,
                             {os.path.basename(merged) + ".tar.gz": merged + ".tar.gz"})
                outs[i] = open(os.path.join(d, "%d.%s" % (i + 1, out))).read()
            final = header + "".join(outs[i] for i in range(len(lines)))
            what = "%d lastz tasks" % len(lines)
        os.makedirs(os.path.join(a.work, "results"))
        final_path = os.path.join(a.work, "results", "%s.%s" % (meta["id"], kind))
        open(final_path, "w").write(final)
        # reference: Debian's lastz (the PATH of this process, not the tasks' --path) on the
        # package of one run with the same settings, every command in order in one folder, with
        # the traceback memory batched_lastz gives lastz (and the task's ext.args after it)
        pkg = single + ".tar.gz"
        if not tarball:
            pkg_run = os.path.join(a.work, "ref-package")
            subprocess.run([a.hspz, "run", "-r", p["target"], "-q", p["query"], "-o", pkg_run, "--quiet", "--tarball"]
                           + p["hspz_args"].split(), check=True)
            if open(os.path.join(pkg_run, "lastz-commands.txt")).read() != open(os.path.join(merged, "lastz-commands.txt")).read():
                raise SystemExit("the package run's lastz-commands.txt differs from the merged folder's")
            pkg = pkg_run + ".tar.gz"
        ref = os.path.join(a.work, "ref-gapped")
        os.makedirs(ref)
        subprocess.run(["tar", "-xzf", pkg, "-C", ref], check=True)
        files = os.path.join(ref, "galaxy", "files")
        extra = " --allocate:traceback=1.99G " + (a.lastz_args or "")
        want = header
        for line in lines:
            subprocess.run(["sh", "-c", line + extra], cwd=files)
            want += open(os.path.join(files, re.search(r"--output=(\S+)", line).group(1))).read()
        if final != want:
            raise SystemExit("the gapped stage's %s (%s) differs from lastz on the package's commands in order" % (kind, what))
        msg += "; %s -> %s == lastz on the package's commands in order (%d alignment blocks)" % (
            what, kind.upper(), final.count("\na score=") if kind == "maf" else sum(1 for l in final.splitlines() if l[:1].isdigit()))
        msg += "\nfinal: " + final_path
    print("nextflow-harness: ok: " + msg)


if __name__ == "__main__":
    try:
        main()
    except TemplateError as e:
        raise SystemExit("template: %s" % e)
