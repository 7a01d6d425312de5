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


SAMPLE_DUMP = Path(__file__).resolve().parent.parent / "fixtures" / "samples" / "cluster-info-dump"


def test_cluster_info_dump_sample_agrees_with_its_recording(report_schema_validator: object) -> None:
    """The sample dump is the cluster of g0492: every filter verdict and the filter message must agree."""
    from podwhy.report.json_report import build_report
    from podwhy.run import ExplainRequest, run_explain
    from tests.conformance import GOLDEN

    exp = run_explain(ExplainRequest("prod/ledger-fg8cf9ffd9-rwzqg", "default", [str(SAMPLE_DUMP)]))
    report = build_report(exp)
    report_schema_validator.validate(report)  # type: ignore[attr-defined]
    assert report["snapshot"]["missingKinds"], "a cluster-info dump cannot vouch for PVCs, PDBs, ..."
    assert compare(GOLDEN / "g0492", report) == []
