"""The package faces of analysis/ (suggest/, autoscaling/) load nothing until a name is used, and
every name they list resolves; the words load no emulation (design.md, issue 36)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

FACES = ["podwhy.analysis.suggest", "podwhy.analysis.autoscaling"]


def _loaded(statement: str) -> set[str]:
    code = f"import sys; {statement}; print(' '.join(k for k in sys.modules if k.startswith('podwhy')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


@pytest.mark.parametrize("face", FACES)
def test_a_package_face_loads_none_of_its_modules(face: str) -> None:
    assert not {name for name in _loaded(f"import {face}") if name.startswith(face + ".")}


@pytest.mark.parametrize("face", FACES)
def test_every_name_a_face_lists_resolves(face: str) -> None:
    module = importlib.import_module(face)
    for name in module.__all__:
        assert getattr(module, name) is not None, name
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018


@pytest.mark.parametrize("words", ["pending", "suggest", "autoscaling", "check", "placement", "notevaluated"])
def test_the_words_load_no_emulation(words: str) -> None:
    loaded = _loaded(f"import podwhy.report.words.{words}")
    emulation = {name for name in loaded if name.split(".")[1:2] in (["cluster"], ["scheduler"], ["plugins"])}
    # Leaves of types and constants (pyproject's contract lists them).
    assert emulation <= {
        "podwhy.cluster",
        "podwhy.cluster.placementreasons",
        # The admission facts placementreasons re-exports (a leaf that imports nothing).
        "podwhy.cluster.admissionopen",
        # Kueue's constants and quantity printing, which the Kueue facts leaf reads.
        "podwhy.cluster.kueue",
        "podwhy.cluster.kueue.names",
        "podwhy.cluster.kueue.resources",
        "podwhy.scheduler",
        "podwhy.scheduler.schedulers",
        "podwhy.plugins",
        "podwhy.plugins.names",
    }
