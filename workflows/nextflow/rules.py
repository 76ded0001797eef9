"""reftrace lint rules for hspZ's Nextflow modules (workflows/nextflow; run by .ci/nextflow.sh).

nf-core shape: every process has exactly one of nf-core's resource labels (process_gpu for
the one that uses GPUs), an upper-case TOOL_SUBTOOL name, and a container without spaces.
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
