#!/usr/bin/env python3
"""doc_commands — run the commands that README.md and docs/*.md show, and check their links.

  doc_commands.py list  FILE.md...            every fenced block: FILE:LINE, language, what is done
  doc_commands.py run   --hspz BIN FILE.md... run every ```sh block; exit 1 if one fails
  doc_commands.py links [--root DIR] FILE.md... every relative link and #anchor resolves inside
                                              DIR (default the repository); exit 1 if not

Blocks and markers.  A fenced block opens with a line "```LANG" at column 0 and closes with a
line "```".  ```sh blocks are commands; other languages (text, yaml, ...) are shown only.  The
last non-blank line before a block may be one marker:
  <!-- doc-test: skip (REASON) -->   the block is not run; REASON (required) is printed.  For
                                     blocks that need Docker, Galaxy, Nextflow, a GPU, the
                                     network, or that are the test command itself.
  <!-- doc-test: file NAME -->       the block's text is written to NAME (relative to the
                                     scratch root) before the blocks after it run, e.g. the
                                     YAML file that the next block passes to --config.
A marker elsewhere, an unknown marker or a skip without a reason is an error (exit 2).

How blocks run ("run").  Each FILE gets its own scratch folder that looks like the repository
root to a reader: every top-level entry of the repository is a symbolic link, except build/
(a folder holding hspz and hspZ, links to BIN and to BIN's sibling hspZ) and out/ (absent).
A sibling "shared" links to the repository's ../shared when that exists.  The blocks of one
FILE run in order, each as `bash -e` from the scratch root (as typed: no pipefail), so a later block may
use what an earlier one wrote (out/apple.hzi); the first failing block stops that FILE
(its line, exit status and the last lines of its output are printed) and the next FILE goes
on.  Nothing is written into the repository.  HSPZ* variables are removed from the blocks'
environment (a user's shell has none).  Each block has DOC_TIMEOUT seconds (default 120).
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

MARK = re.compile(r"^<!--\s*doc-test:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^```([A-Za-z0-9_+-]*)\s*$")


class DocError(Exception):
    pass


def blocks(path):
    """Fenced blocks of a markdown file: dicts with line (1-based, of the opening fence),
    lang, text, action ('run', 'show', 'skip' or 'file') and arg (reason or file name)."""
    out, lines = [], open(path, encoding="utf-8").read().split("\n")
    pending, i = None, 0   # pending: (line, action, arg) of a marker waiting for its block
    while i < len(lines):
        ln = lines[i]
        m = MARK.match(ln)
        if m:
            if pending:
                raise DocError(f"{path}:{pending[0]}: a doc-test marker not followed by a fenced block")
            body = m.group(1)
            sm = re.fullmatch(r"skip\s*\((.+)\)", body)
            fm = re.fullmatch(r"file\s+([A-Za-z0-9_./-]+)", body)
            if sm:
                pending = (i + 1, "skip", sm.group(1).strip())
            elif fm and not fm.group(1).startswith("/") and ".." not in fm.group(1).split("/"):
                pending = (i + 1, "file", fm.group(1))
            else:
                raise DocError(f"{path}:{i + 1}: unknown doc-test marker '{body}' "
                               "(expected 'skip (REASON)' or 'file NAME')")
            i += 1
            continue
        f = FENCE.match(ln)
        if f:
            start, lang, body = i + 1, f.group(1), []
            i += 1
            while i < len(lines) and lines[i].rstrip() != "```":
                body.append(lines[i])
                i += 1
            if i == len(lines):
                raise DocError(f"{path}:{start}: fenced block never closed")
            action, arg = ("run" if lang == "sh" else "show"), ""
            if pending:
                action, arg = pending[1], pending[2]
                if action == "file" and lang == "sh":
                    raise DocError(f"{path}:{start}: a 'file' marker before an sh block")
                pending = None
            out.append(dict(line=start, lang=lang, text="\n".join(body) + "\n", action=action, arg=arg))
        elif pending and ln.strip():
            raise DocError(f"{path}:{pending[0]}: a doc-test marker not followed by a fenced block")
        i += 1
    if pending:
        raise DocError(f"{path}:{pending[0]}: a doc-test marker not followed by a fenced block")
    return out


def repo_root():
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def scratch(root, hspz):
    """A folder that looks like the repository root: see the module comment."""
    top = tempfile.mkdtemp(prefix="hspz-docs-")
    work = os.path.join(top, "repo")
    os.mkdir(work)
    for name in os.listdir(root):
        if name not in ("build", "out"):
            os.symlink(os.path.join(root, name), os.path.join(work, name))
    os.mkdir(os.path.join(work, "build"))
    os.symlink(hspz, os.path.join(work, "build", "hspz"))
    sib = os.path.join(os.path.dirname(hspz), "hspZ")
    os.symlink(sib if os.path.exists(sib) else hspz, os.path.join(work, "build", "hspZ"))
    shared = os.path.join(os.path.dirname(root), "shared")
    if os.path.isdir(shared):
        os.symlink(shared, os.path.join(top, "shared"))
    return top, work


def run_block(text, cwd, env, timeout):
    """Run one block with bash -e in its own process group (a timeout ends the whole group);
    returns (exit status, stdout and stderr together)."""
    p = subprocess.Popen(["bash", "-e", "-c", text], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return 124, out.decode("utf-8", "replace") + f"\n(timed out after {timeout} s)"


def run_file(path, root, hspz, timeout):
    """Run the sh blocks of one file; returns (ran, skipped, failed)."""
    rel = os.path.relpath(path, root)
    top, work = scratch(root, hspz)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HSPZ")}
    ran = skipped = 0
    try:
        for b in blocks(path):
            where = f"{rel}:{b['line']}"
            if b["action"] == "skip":
                print(f"skip {where} ({b['arg']})")
                skipped += 1
            elif b["action"] == "file":
                dst = os.path.join(work, b["arg"])
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                with open(dst, "w", encoding="utf-8") as fh:
                    fh.write(b["text"])
                print(f"file {where} -> {b['arg']}")
            elif b["action"] == "run":
                t0 = time.monotonic()
                rc, log = run_block(b["text"], work, env, timeout)
                dt = time.monotonic() - t0
                if rc != 0:
                    print(f"FAIL {where}: exit {rc} after {dt:.1f} s; the block:")
                    print("".join("    " + l + "\n" for l in b["text"].rstrip("\n").split("\n")), end="")
                    print("  its output (last 15 lines):")
                    print("".join("    " + l + "\n" for l in log.rstrip("\n").split("\n")[-15:]), end="")
                    return ran, skipped, 1
                print(f"ok   {where} ({dt:.1f} s)")
                ran += 1
        return ran, skipped, 0
    finally:
        shutil.rmtree(top, ignore_errors=True)


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation other than - and _ dropped,
    blanks to '-'."""
    s = re.sub(r"`", "", heading.strip().lower())
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    seen, out, fenced = {}, set(), False
    for ln in open(path, encoding="utf-8"):
        if ln.startswith("```"):
            fenced = not fenced
        m = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", ln)
        if m:
            a = slug(m.group(1))
            n = seen.get(a, 0)
            seen[a] = n + 1
            out.add(a if n == 0 else f"{a}-{n}")
    return out


LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def check_links(path, root):
    """Problems with the relative links of one file (list of strings)."""
    bad, rel, fenced = [], os.path.relpath(path, root), False
    for no, ln in enumerate(open(path, encoding="utf-8"), 1):
        if ln.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        for target in LINK.findall(re.sub(r"`[^`]*`", "", ln)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue   # http:, https:, mailto:
            file, _, frag = target.partition("#")
            dst = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if not os.path.realpath(dst).startswith(os.path.realpath(root) + os.sep):
                bad.append(f"{rel}:{no}: link '{target}' leaves the repository")
            elif not os.path.exists(dst):
                bad.append(f"{rel}:{no}: link '{target}': no file {os.path.relpath(dst, root)}")
            elif frag and (not dst.endswith(".md") or frag not in anchors(dst)):
                bad.append(f"{rel}:{no}: link '{target}': no heading #{frag} in {os.path.relpath(dst, root)}")
    return bad


def main(argv):
    if len(argv) < 2 or argv[1] not in ("list", "run", "links"):
        sys.stderr.write(__doc__)
        return 2
    cmd, args, root = argv[1], argv[2:], repo_root()
    hspz, timeout = None, int(os.environ.get("DOC_TIMEOUT", "120"))
    if cmd == "links" and len(args) >= 2 and args[0] == "--root":
        root, args = os.path.abspath(args[1]), args[2:]
    if cmd == "run":
        if len(args) < 2 or args[0] != "--hspz":
            sys.stderr.write("doc_commands: run needs --hspz BIN FILE.md...\n")
            return 2
        hspz, args = os.path.abspath(args[1]), args[2:]
        if not os.access(hspz, os.X_OK):
            sys.stderr.write(f"doc_commands: {hspz} is not an executable\n")
            return 2
    if not args:
        sys.stderr.write("doc_commands: no markdown file given\n")
        return 2
    paths = [os.path.abspath(a) for a in args]
    try:
        if cmd == "list":
            for p in paths:
                for b in blocks(p):
                    extra = f" ({b['arg']})" if b["arg"] else ""
                    print(f"{os.path.relpath(p, root)}:{b['line']}\t{b['lang'] or '-'}\t{b['action']}{extra}")
            return 0
        if cmd == "links":
            bad = [x for p in paths for x in check_links(p, root)]
            print("\n".join(bad) if bad else f"links ok in {len(paths)} files")
            return 1 if bad else 0
        total = [0, 0, 0]
        for p in paths:
            r = run_file(p, root, hspz, timeout)
            total = [a + b for a, b in zip(total, r)]
        print(f"{total[0]} blocks ran, {total[1]} skipped, {total[2]} files failed")
        return 1 if total[2] else 0
    except DocError as e:
        print(f"doc_commands: {e}")
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
