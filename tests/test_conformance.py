"""kube-scheduler v1.35.4 recordings: podwhy must agree exactly on every case."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance import case_dirs, compare, compare_scores, run_case

CASES = [pytest.param(case, id=case.name) for case in case_dirs()]


@pytest.mark.parametrize("case", CASES)
def test_matches_recording(case: Path, report_schema_validator: object) -> None:
    """Filters, first failures, feasible set, message, preemption, scores and best nodes."""
    report = run_case(case)
    report_schema_validator.validate(report)  # type: ignore[attr-defined]
    assert compare(case, report) + compare_scores(case, report) == []


SAMPLE_DUMP = Path(__file__).resolve().parent.parent / "fixtures" / "samples" / "cluster-info-dump"


def test_cluster_info_dump_sample_agrees_with_its_recording(report_schema_validator: object) -> None:
    """The sample dump is the cluster of g0492: every filter verdict and the filter message must agree."""
    from podwhy.engine import ExplainRequest, explain
    from podwhy.report.model import to_builtins
    from podwhy.snapshot.source import FileSource
    from tests.conformance import GOLDEN

    report = to_builtins(
        explain(ExplainRequest("prod/ledger-fg8cf9ffd9-rwzqg", "default", FileSource([str(SAMPLE_DUMP)])))
    )
    report_schema_validator.validate(report)  # type: ignore[attr-defined]
    assert report["snapshot"]["missingKinds"], "a cluster-info dump cannot vouch for PVCs, PDBs, ..."
    # Its FailedScheduling event holds the recorded filter summary: podwhy's word and the scheduler's agree.
    assert report["scheduler"]["event"]["count"] == 7 and report["scheduler"]["agrees"] is True
    assert compare(GOLDEN / "g0492", report) == []


SHARED_GOLDEN = Path(__file__).resolve().parent.parent.parent / "shared" / "golden"


@pytest.mark.skipif(not SHARED_GOLDEN.is_dir(), reason="../shared/golden is not beside this clone")
def test_fixtures_hold_the_shared_recordings() -> None:
    """fixtures/golden is a copy of ../shared/golden: same cases, same files, same contents."""
    import gzip

    from tests.conformance import GOLDEN, cluster_file

    def text(path: Path) -> bytes:
        data = path.read_bytes()
        return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data

    shared = sorted(p.name for p in SHARED_GOLDEN.iterdir() if (p / "expected.json").is_file())
    assert shared == [p.name for p in case_dirs()]
    stale = []
    for name in shared:
        want, have = SHARED_GOLDEN / name, GOLDEN / name
        for file in sorted(want.iterdir()):
            got = cluster_file(have) if file.name.startswith("cluster.yaml") else have / file.name
            if not got.is_file() or text(got) != text(file):
                stale.append(f"{name}/{file.name}")
    assert stale == []
