"""Scenario folders: each renders a JSON report and a fixed-width, colourless table, snapshotted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion
from typer.testing import CliRunner

from podwhy.cli import app
from tests.paths import TESTS

# Every output here is produced with the clock years ahead, in a time zone far from UTC
# (tests/cli/test_clock.py): none of it may depend on either.
pytestmark = pytest.mark.usefixtures("moved_clock")

SCENARIOS = TESTS / "scenarios"
NAMES = sorted(p.name for p in SCENARIOS.iterdir() if (p / "args.json").is_file())


def _invoke(name: str, *extra: str) -> tuple[int, str, str]:
    spec = json.loads((SCENARIOS / name / "args.json").read_text())
    source = (SCENARIOS / name / spec.get("from", "cluster.yaml")).resolve()
    result = CliRunner().invoke(
        app, ["explain", *spec["argv"], "--from", str(source), *extra], env={"COLUMNS": "140", "NO_COLOR": "1"}
    )
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("name", NAMES)
def test_table(name: str, snapshot: SnapshotAssertion) -> None:
    code, out, _ = _invoke(name)
    assert code in (0, 1, 3)
    assert out == snapshot


@pytest.mark.parametrize("name", NAMES)
def test_json(name: str, snapshot: SnapshotAssertion, report_schema_validator: object) -> None:
    _code, out, _ = _invoke(name, "-o", "json")
    report = json.loads(out)
    report_schema_validator.validate(report)  # type: ignore[attr-defined]
    report["snapshot"]["sources"] = [Path(s).name for s in report["snapshot"]["sources"]]
    assert report == snapshot
