"""Drawing a report loads only the report's own modules and the leaves of names they quote: the
table of `explain` within 30 podwhy modules, no emulation at all (issue 36, design.md)."""

from __future__ import annotations

import subprocess
import sys

import pytest

EMULATION = ("cluster", "scheduler", "plugins", "framework", "analysis", "snapshot", "engine", "cli")
# The leaves of names and fact types the words and the model quote (pyproject's contracts list them).
LEAVES = {
    "podwhy.framework.evidence",
    "podwhy.plugins.names",
    "podwhy.snapshot.resources",
    "podwhy.analysis.blockingfacts",
    "podwhy.analysis.sizing",
    "podwhy.framework.notevaluated",
    "podwhy.cluster.placementreasons",
    "podwhy.cluster.admissionopen",
}


def _loaded(module: str) -> list[str]:
    code = f"import sys, {module}; print(' '.join(k for k in sys.modules if k.startswith('podwhy')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return out.split()


def test_the_explain_table_loads_at_most_30_podwhy_modules() -> None:
    loaded = _loaded("podwhy.report.render.explain")
    assert len(loaded) <= 30, sorted(loaded)


@pytest.mark.parametrize("renderer", ["explain", "pending", "check", "markdown", "junit", "kueue"])
def test_a_renderer_loads_no_emulation(renderer: str) -> None:
    loaded = _loaded(f"podwhy.report.render.{renderer}")
    modules = {name for name in loaded if name.count(".") >= 2 and name.split(".")[1] in EMULATION}
    assert modules <= LEAVES, sorted(modules - LEAVES)
