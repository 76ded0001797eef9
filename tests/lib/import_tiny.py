#!/usr/bin/env python3
"""Copy the tiny pairs' inputs and their KegAlign 0.3.x goldens from ../shared into the repo.

  import_tiny.py          (re)write tests/data/<pair>/ and tests/golden/kegalign-v03/<pair>/
  import_tiny.py --check  exit 1 when the in-repo copies differ from ../shared

Only the tiny pairs are copied (a few hundred KB in all); small/medium/large data stay in
../shared.  In the copied case.json files the input paths point at tests/data/<pair>/; the
original path is kept under "origin_inputs".
"""
import filecmp
import json
import os
import shutil
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHARED = os.environ.get("HSPZ_SHARED", os.path.join(REPO, "..", "shared"))
GOLD_SRC = os.path.join(SHARED, "golden", "kegalign-v03")
GOLD_DST = os.path.join(REPO, "tests", "golden", "kegalign-v03")
DATA_DST = os.path.join(REPO, "tests", "data")

# pair -> (input folder in ../shared relative to repo root, extra files to copy with them)
PAIRS = {
    "apple_orange": ("../shared/golden/kegalign/apple_orange/inputs",
                     ["SOURCE.txt", "../../../../data/tiny_kegalign_apple_vs_orange_SYNTHETIC/README.md"]),
    "pseudocat_pseudopig": ("../shared/golden/kegalign/pseudocat_pseudopig/inputs",
                            ["SOURCE.txt",
                             "../../../../data/tiny_lastz_pseudocat_vs_pseudopig/README.md",
                             "../../../../data/tiny_lastz_pseudocat_vs_pseudopig/pseudopig.2bit"]),
    "pseudocat_pseudopig_named": ("../shared/golden/kegalign/pseudocat_pseudopig_named/inputs",
                                  ["SOURCE.txt"]),
    "tiny_aglobin_human_vs_cow": ("../shared/data/tiny_aglobin_human_vs_cow",
                                  ["README.md", "aglobin.2bit"]),
    "tiny_mtdna_human_vs_orangutan": ("../shared/data/tiny_mtdna_human_vs_orangutan",
                                      ["README.md"]),
}


def plan():
    """(src, dst) file pairs and rewritten case.json texts."""
    copies, cases = [], {}
    for pair, (src_rel, extras) in PAIRS.items():
        src_dir = os.path.normpath(os.path.join(REPO, src_rel))
        inputs = set()
        for setting in sorted(os.listdir(os.path.join(GOLD_SRC, pair))):
            cdir = os.path.join(GOLD_SRC, pair, setting)
            if not os.path.exists(os.path.join(cdir, "case.json")):
                continue
            with open(os.path.join(cdir, "case.json")) as f:
                case = json.load(f)
            mapping = {}
            for key in ("target", "query"):
                old = case[key]
                new = "tests/data/%s/%s" % (pair, os.path.basename(old))
                mapping[old] = new
                inputs.add(os.path.normpath(os.path.join(REPO, old)))
            case["origin_inputs"] = {"target": case["target"], "query": case["query"]}
            case["target"] = mapping[case["target"]]
            case["query"] = mapping[case["query"]]
            case["hspz_args"] = [mapping.get(a, a) for a in case["hspz_args"]]
            dst = os.path.join(GOLD_DST, pair, setting)
            cases[os.path.join(dst, "case.json")] = json.dumps(case, indent=1) + "\n"
            for n in os.listdir(os.path.join(cdir, "segments")):
                copies.append((os.path.join(cdir, "segments", n), os.path.join(dst, "segments", n)))
            for n in os.listdir(cdir):
                if n not in ("case.json", "segments"):
                    copies.append((os.path.join(cdir, n), os.path.join(dst, n)))
        for p in sorted(inputs):
            if os.path.dirname(p) != src_dir:
                sys.exit("unexpected input location %s" % p)
            copies.append((p, os.path.join(DATA_DST, pair, os.path.basename(p))))
        for e in extras:
            p = os.path.normpath(os.path.join(src_dir, e))
            copies.append((p, os.path.join(DATA_DST, pair, os.path.basename(p))))
    return copies, cases


def main():
    if not os.path.isdir(GOLD_SRC):
        print("../shared is absent (%s)" % GOLD_SRC)
        return 2
    check = "--check" in sys.argv[1:]
    copies, cases = plan()
    bad = []
    for src, dst in copies:
        if check:
            if not os.path.exists(dst) or not filecmp.cmp(src, dst, shallow=False):
                bad.append(dst)
        else:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)
            os.chmod(dst, 0o644)
    for dst, text in cases.items():
        if check:
            if not os.path.exists(dst) or open(dst).read() != text:
                bad.append(dst)
        else:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(dst, "w") as f:
                f.write(text)
    if check:
        for b in bad:
            print("stale or missing: %s" % os.path.relpath(b, REPO))
        print("%d files checked, %d stale" % (len(copies) + len(cases), len(bad)))
        return 1 if bad else 0
    print("copied %d files, wrote %d case.json" % (len(copies), len(cases)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
