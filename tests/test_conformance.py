"""kube-scheduler v1.35.4 recordings: podwhy must agree exactly on every case."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance import case_dirs, compare, run_case

CASES = case_dirs()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_matches_recording(case: Path, report_schema_validator: object) -> None:
    report = run_case(case)
    report_schema_validator.validate(report)  # type: ignore[attr-defined]
    assert compare(case, report) == []
