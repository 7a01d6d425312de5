"""Nothing podwhy does changes a value its snapshot's objects share (snapshot/compact.py): every
list, map and record held once (a pod's tolerations, containers, labels, affinity; a node's
taints, allocatable) encodes after a command as it did when it was first read. The shared lists
and maps refuse a change in place themselves (model/shared.py); the records (affinity, security
context, the containers of a shared list) are plain objects, so this runs every command over
every scenario folder and compares them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.snapshot import compact
from tests.paths import REPO, TESTS

pytestmark = pytest.mark.usefixtures("moved_clock")

_encode = msgspec.json.Encoder().encode


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[Any, bytes]]]:
    """Every value made shareable while the test runs, with its encoding then."""
    made: list[tuple[Any, bytes]] = []
    original = compact._Table.__init__

    def recording(self: compact._Table, make: Callable[[Any], Any]) -> None:
        def kept(value: Any) -> Any:
            out = make(value)
            made.append((out, _encode(out)))
            return out

        original(self, kept)

    monkeypatch.setattr(compact._Table, "__init__", recording)
    yield made


def _unchanged(made: list[tuple[Any, bytes]]) -> list[str]:
    changed = [(value, before) for value, before in made if _encode(value) != before]
    return [f"{type(value).__name__}: {before!r} -> {_encode(value)!r}" for value, before in changed]


def _explain_args(folder: Path) -> list[list[str]]:
    spec = json.loads((folder / "args.json").read_text())
    source = str((folder / spec.get("from", "cluster.yaml")).resolve())
    return [
        ["explain", *spec["argv"], "--from", source],
        ["explain", *spec["argv"], "--from", source, "-o", "json"],
        ["pending", "-A", "--from", source, "-o", "json"],
    ]


EXPLAINED = sorted(
    p for root in ("scenarios", "scenarios-kueue") for p in (TESTS / root).iterdir() if (p / "args.json").is_file()
)
CHECKED = sorted(p for p in (TESTS / "scenarios-check").iterdir() if (p / "manifests.yaml").is_file())


@pytest.mark.parametrize("folder", EXPLAINED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_explain_and_pending_leave_shared_values_as_read(folder: Path, held: list[tuple[Any, bytes]]) -> None:
    for argv in _explain_args(folder):
        result = CliRunner().invoke(app, argv, env={"COLUMNS": "140", "NO_COLOR": "1"})
        assert result.exit_code in (0, 1, 3), result.stderr
    assert held, "the scenario's pods and nodes share nothing: the test would check nothing"
    assert _unchanged(held) == []


@pytest.mark.parametrize("folder", CHECKED, ids=lambda p: p.name)
def test_check_leaves_shared_values_as_read(
    folder: Path, held: list[tuple[Any, bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.cluster.test_check_scenarios import _argv

    monkeypatch.chdir(folder)
    result = CliRunner().invoke(app, [*_argv(folder.name), "-o", "json"], env={"COLUMNS": "120", "NO_COLOR": "1"})
    assert result.exit_code in (0, 1, 3), result.stderr
    assert _unchanged(held) == []


def test_the_bundled_example_leaves_shared_values_as_read(held: list[tuple[Any, bytes]]) -> None:
    example = str(REPO / "fixtures" / "examples" / "shop-cluster.yaml")
    for argv in (
        ["explain", "shop/checkout-7c9d8b6f5-m4x2q", "--from", example],
        ["pending", "-A", "--from", example],
    ):
        result = CliRunner().invoke(app, argv, env={"COLUMNS": "140", "NO_COLOR": "1"})
        assert result.exit_code in (0, 1, 3), result.stderr
    assert held and _unchanged(held) == []
