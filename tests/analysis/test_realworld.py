"""Every real input of ../shared/realworld/cases (dumps and manifests real clusters and tools
wrote; SOURCE.txt in each folder says where from) through explain, pending and check: whatever
the input, podwhy answers with a report or one line of error, never a traceback.

Each case folder is read whole, as `--from FOLDER` (and `check -f FOLDER --from FOLDER`), the way
a user who was sent it would. By default a few Pending pods of each case are explained; with
PODWHY_SLOW=1 every one, and the slow placements too. PODWHY_REALWORLD names another folder of cases.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from podwhy.analysis.pending import is_pending
from podwhy.cli import app
from podwhy.errors import PodwhyError
from podwhy.snapshot.source import FileSource
from podwhy.verdict import Verdict
from tests.shared import SHARED

CASES_DIR = Path(os.environ.get("PODWHY_REALWORLD", SHARED / "realworld" / "cases"))
CASES = sorted(p for p in CASES_DIR.iterdir() if p.is_dir()) if CASES_DIR.is_dir() else []
pytestmark = pytest.mark.skipif(not CASES, reason=f"{CASES_DIR} is not beside this clone")

SLOW = os.environ.get("PODWHY_SLOW") == "1"
# Pending pods explained per case (the first and the last ones), unless PODWHY_SLOW=1.
SAMPLE = 3
# Placing these cases' workloads takes minutes (984 replicas of an indexed Job).
SLOW_CHECKS = frozenset({"02-eks-indexed-job-984", "26-gke-149-nodes-scale"})
# What other parts of issue 14 fix, with the cases that show it: until then they fail here.
OTHER_PARTS: dict[tuple[str, str], str] = {}


def _case_params(command: str) -> list[Any]:
    params = []
    for case in CASES:
        marks: list[pytest.MarkDecorator] = []
        if command == "check" and case.name in SLOW_CHECKS:
            marks.append(pytest.mark.slow)
        reason = OTHER_PARTS.get((command, case.name))
        if reason is not None:
            marks.append(pytest.mark.xfail(reason=reason, strict=True))
        params.append(pytest.param(case, id=case.name, marks=marks))
    return params


def _answers(result: Result, validator: Any, kind: str) -> dict[str, Any] | None:
    """A report on stdout (exit 0, 1 or 3), or one error line on stderr (exit 2 or 3)."""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"uncaught {type(result.exception).__name__}") from result.exception
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    assert result.exit_code in (0, 1, 2, 3), result.stderr
    if not result.stdout:
        assert result.exit_code in (2, 3)
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert result.stderr.startswith("podwhy: error: ")
        return None
    doc: dict[str, Any] = json.loads(result.stdout)
    validator.validate(doc)
    assert doc["kind"] == kind
    return doc


def _pending_pods(case: Path) -> list[str]:
    try:
        snapshot = FileSource([str(case)]).load()
    except PodwhyError:
        return []
    return [
        f"{p.metadata.namespace}/{p.metadata.name}" for p in snapshot.pods if is_pending(p) and not p.spec.node_name
    ]


@pytest.mark.parametrize("case", _case_params("explain"))
def test_explain_every_pending_pod(case: Path, report_schema_validator: Any) -> None:
    pods = _pending_pods(case)
    if not SLOW and len(pods) > SAMPLE:
        pods = [*pods[: SAMPLE - 1], pods[-1]]
    for pod in pods or ["default/no-such-pod"]:
        result = CliRunner().invoke(app, ["explain", pod, "--from", str(case), "-o", "json", "-q"])
        doc = _answers(result, report_schema_validator, "Explanation")
        if doc is not None:
            assert result.exit_code == Verdict(doc["verdict"]).exit_code, pod


@pytest.mark.parametrize("case", _case_params("pending"))
def test_pending_of_every_namespace(case: Path, pending_schema_validator: Any) -> None:
    result = CliRunner().invoke(app, ["pending", "-A", "--from", str(case), "-o", "json", "-q"])
    doc = _answers(result, pending_schema_validator, "PendingReport")
    if doc is not None:
        verdicts = {group["verdict"] for group in doc["groups"]}
        assert (result.exit_code == 3) == (verdicts <= {"Schedulable", "Inconclusive"} and "Inconclusive" in verdicts)


@pytest.mark.parametrize("case", _case_params("check"))
def test_check_the_manifests_of_the_folder(case: Path, check_schema_validator: Any) -> None:
    result = CliRunner().invoke(app, ["check", "-f", str(case), "--from", str(case), "-o", "json", "-q"])
    doc = _answers(result, check_schema_validator, "CheckReport")
    if doc is not None:
        summary = doc["summary"]
        assert result.exit_code == (1 if summary["pending"] else 3 if summary["inconclusive"] else 0)
