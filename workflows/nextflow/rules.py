"""reftrace lint rules for hspZ's Nextflow code (main.nf, workflows/nextflow; run by .ci/nextflow.sh,
which also plants a violation of each rule and fails unless it is reported).

nf-core shape: every process has exactly one of nf-core's resource labels (process_gpu for
the one that uses GPUs) and an upper-case HSPZ_SUBTOOL name.  Below, the strict syntax
(Nextflow >= 25.04 `nextflow lint`, the default parser from 26.04) and the nf-core module rules
that reftrace's model does not check, read from each file's text.
"""
from reftrace import Module
from reftrace.linting import LintError, LintResults, rule

LABELS = {"process_single", "process_low", "process_medium", "process_high", "process_long",
          "process_high_memory", "process_gpu"}


@rule
def one_standard_label(module: Module, results: LintResults):
    for p in module.processes:
        names = [label.label for label in p.labels]
        good = [n for n in names if n in LABELS]
        if len(good) != 1 or len(names) != 1:
            results.errors.append(LintError(line=p.line, error=f"process '{p.name}' needs exactly one nf-core resource label, has {names}"))


@rule
def upper_case_name(module: Module, results: LintResults):
    for p in module.processes:
        if p.name != p.name.upper() or not p.name.startswith("HSPZ_"):
            results.errors.append(LintError(line=p.line, error=f"process '{p.name}' is not named HSPZ_<SUBTOOL>"))


import os
import re


def _text(module):
    with open(module.path) as f:
        return f.read()


def _code(module):
    """The file's text without // comments (strings kept)."""
    return re.sub(r"(?m)(^|\s)//.*$", r"\1", _text(module))


def _line(text, pos):
    return text.count("\n", 0, pos) + 1


def _is_module(module):
    return "/modules/" in module.path.replace(os.sep, "/")


@rule
def no_session(module: Module, results: LintResults):
    # strict syntax: `session` is not a script variable (session.config.navigate is refused)
    code = _code(module)
    for m in re.finditer(r"\bsession\s*\.", code):
        results.errors.append(LintError(line=_line(code, m.start()), error="strict syntax: 'session' is not allowed"))


@rule
def no_params_in_modules(module: Module, results: LintResults):
    # nf-core: a module takes values through its inputs or task.ext, never params
    if _is_module(module):
        for p in module.params:
            results.errors.append(LintError(line=p.line, error=f"module reads params.{p.name} (use an input or task.ext)"))


@rule
def accelerator_from_config(module: Module, results: LintResults):
    # nf-core: the config sets `accelerator`; a process_gpu module reads task.accelerator
    text = _code(module)
    for p in module.processes:
        if p.accelerators or re.search(r"(?m)^\s*accelerator\b", text):
            results.errors.append(LintError(line=p.line, error=f"process '{p.name}' sets accelerator itself (the config sets it)"))
        if "process_gpu" in [label.label for label in p.labels]:
            tdir = os.path.join(os.path.dirname(module.path), "templates")
            scripts = [text] + [open(os.path.join(tdir, t)).read() for t in sorted(os.listdir(tdir))] if os.path.isdir(tdir) else [text]
            if not any("task.accelerator" in s for s in scripts):
                results.errors.append(LintError(line=p.line, error=f"process '{p.name}' (process_gpu) does not read task.accelerator"))


@rule
def container_set_once(module: Module, results: LintResults):
    # one image for every process (params.hspz_container through task.ext.container), with a
    # registry-style default (HOST.DOMAIN/ORG/NAME:TAG) that docker and singularity can pull
    code = _code(module)
    lines = re.findall(r"(?m)^\s*container\s+(.*)$", code)
    pat = r"\"\$\{\s*task\.ext\.container\s*\?:\s*'[a-z0-9-]+(\.[a-z0-9-]+)+/[a-z0-9._/-]+:[A-Za-z0-9._-]+'\s*\}\""
    for p in module.processes:
        if len(lines) != len(module.processes) or not all(re.fullmatch(pat, c.strip()) for c in lines):
            results.errors.append(LintError(line=p.line, error=f"process '{p.name}': container must be \"${{ task.ext.container ?: 'REGISTRY/ORG/NAME:TAG' }}\""))


@rule
def stub_versions_without_tools(module: Module, results: LintResults):
    # a stub run needs nothing installed: an eval output runs its command only in a real run
    code = _code(module)
    for m in re.finditer(r"\beval\(\s*(?!workflow\.stubRun\s*\?)", code):
        results.errors.append(LintError(line=_line(code, m.start()), error="eval() output without `workflow.stubRun ? 'echo stub' :` (a stub must run with nothing installed)"))


@rule
def sorted_group_tuple(module: Module, results: LintResults):
    # groupTuple's lists come in task completion order: unsorted, the next task's hash changes
    # from run to run and -resume reruns it
    code = _code(module)
    for m in re.finditer(r"\.groupTuple\s*\(([^()]*(\([^()]*\))?[^()]*)\)", code):
        if not re.search(r"\bsort\s*:", m.group(1)):
            results.errors.append(LintError(line=_line(code, m.start()), error="groupTuple() without sort: (the merge would miss -resume)"))


@rule
def merge_without_units(module: Module, results: LintResults):
    # a plan without units has no unit folders: the join with the grouped folders must keep the
    # plan (remainder: true) so that its empty result is merged and published
    code = _code(module)
    for m in re.finditer(r"\.join\s*\(\s*HSPZ_RUN\.out\.unit\.groupTuple\(", code):
        tail = code[m.end():m.end() + 300]
        if not re.match(r"[^\n]*\)\s*,\s*remainder\s*:\s*true\s*\)", tail):
            results.errors.append(LintError(line=_line(code, m.start()), error="the grouped unit folders are joined without remainder: true (a zero-unit plan would publish nothing)"))


@rule
def no_dsl_flag(module: Module, results: LintResults):
    # strict syntax: feature flags such as nextflow.enable.dsl are gone (DSL2 is the only one)
    code = _code(module)
    for m in re.finditer(r"\bnextflow\.enable\.dsl\b", code):
        results.errors.append(LintError(line=_line(code, m.start()), error="strict syntax: nextflow.enable.dsl is not allowed"))


@rule
def no_deprecated_channel_or_it(module: Module, results: LintResults):
    # strict syntax warnings (errors to come): `Channel.` for the channel factories and the
    # implicit closure parameter `it`; strings are left out of the search
    code = re.sub(r"'[^'\n]*'|\"[^\"\n]*\"", "''", _code(module))
    for m in re.finditer(r"\bChannel\s*\.", code):
        results.errors.append(LintError(line=_line(code, m.start()), error="strict syntax: use channel, not Channel"))
    for m in re.finditer(r"(?<![.\w])it\b", code):
        results.errors.append(LintError(line=_line(code, m.start()), error="strict syntax: implicit closure parameter 'it'"))
