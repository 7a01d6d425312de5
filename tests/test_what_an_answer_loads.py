"""What explaining a pod loads is what its answer needs (issue 39, the first answer): a snapshot
without Kueue objects never loads Kueue's code, a pod claiming no device never loads the CEL
interpreter, a file is read without the live source, and the kind tables build a decoder only
for the kinds read."""

from __future__ import annotations

import subprocess
import sys

from tests.paths import REPO

EXAMPLE = REPO / "fixtures" / "examples" / "shop-cluster.yaml"
EXPLAIN = f"""
import sys
from podwhy.engine import ExplainRequest, explain
from podwhy.snapshot.source import FileSource
source = FileSource([{str(EXAMPLE)!r}])
explain(ExplainRequest(pod_ref="shop/checkout-7c9d8b6f5-m4x2q", namespace="default", source=source))
print(" ".join(sys.modules))
"""
NOT_NEEDED = (
    "podwhy.cluster.kueue.admission",
    "podwhy.analysis.kueue",
    "podwhy.cel.interpreter",
    "podwhy.snapshot.live.source",
    "ssl",
)


def _run(code: str) -> list[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()


def test_explaining_the_example_loads_only_what_its_answer_needs() -> None:
    loaded = set(_run(EXPLAIN))
    assert "podwhy.report.build.explain" in loaded  # it did explain
    assert not loaded & set(NOT_NEEDED), sorted(loaded & set(NOT_NEEDED))


def test_a_kind_table_builds_a_decoder_when_its_kind_is_first_read() -> None:
    code = """
from podwhy.snapshot import typed
before = len(typed._MADE)
first = typed.SNAPSHOT_KINDS.reading("Pod", "v1")
again = typed.SNAPSHOT_KINDS.reading("Pod", "v1")
manifest = typed.MANIFEST_KINDS.reading("Pod", "v1")
print(before, len(typed._MADE), first is again is manifest, type(first).__name__)
"""
    assert _run(code) == ["0", "1", "True", "Reading"]


def test_the_help_loads_no_decoder_and_no_renderer() -> None:
    """`podwhy --help` (and shell completion) loads the command line's modules and typer: not
    msgspec, not rich, none of the emulation."""
    code = """
import contextlib, io, sys
from podwhy.cli import app
with contextlib.redirect_stdout(io.StringIO()) as help_text:
    try:
        app(["--help"])
    except SystemExit:
        pass
assert "Usage:" in help_text.getvalue()
print(" ".join(sys.modules))
"""
    loaded = _run(code)
    assert "podwhy.cli.explain" in loaded  # the commands were registered
    top = {name.split(".")[0] for name in loaded}
    assert not top & {"msgspec", "rich", "yaml"}, sorted(top & {"msgspec", "rich", "yaml"})
    assert not [m for m in loaded if m.startswith(("podwhy.scheduler", "podwhy.snapshot", "podwhy.framework"))]
