"""kube-scheduler recordings (v1.35.4 in fixtures/golden, v1.36.3 in fixtures/golden-v1.36):
podwhy, emulating the release each case names, must agree exactly on every case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance import (
    FIXTURES,
    GOLDEN,
    all_case_dirs,
    case_dirs,
    compare,
    compare_scores,
    run_case,
    with_gz,
)
from tests.paths import REPO
from tests.shared import SHARED, needs_shared

# Recorded cases of features podwhy does not simulate yet, each with the feature it lacks
# ("golden-v1.36/v36-021": "DRAExtendedResource: ..."): xfail(strict=True) until it does.
KNOWN_GAPS: dict[str, str] = {}


def _param(case: Path) -> object:
    name = case.name if case.parent == GOLDEN else f"{case.parent.name}/{case.name}"
    gap = KNOWN_GAPS.get(name)
    marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
    return pytest.param(case, id=name, marks=marks)


CASES = [_param(case) for case in all_case_dirs()]


@pytest.mark.parametrize("case", CASES)
def test_matches_recording(case: Path, report_schema_validator: object) -> None:
    """Filters, first failures, feasible set, message, preemption, scores and best nodes."""
    report = run_case(case)
    report_schema_validator.validate(report)  # type: ignore[attr-defined]
    assert compare(case, report) + compare_scores(case, report) == []


SAMPLE_DUMP = REPO / "fixtures" / "samples" / "cluster-info-dump"


def test_cluster_info_dump_sample_agrees_with_its_recording(report_schema_validator: object) -> None:
    """The sample dump is the cluster of g0492: every filter verdict and the filter message must agree."""
    from podwhy.engine import ExplainRequest, explain
    from podwhy.report.model import to_builtins
    from podwhy.snapshot.source import FileSource

    report = to_builtins(
        explain(ExplainRequest("prod/ledger-fg8cf9ffd9-rwzqg", "default", FileSource([str(SAMPLE_DUMP)])))
    )
    report_schema_validator.validate(report)  # type: ignore[attr-defined]
    assert report["snapshot"]["missingKinds"], "a cluster-info dump cannot vouch for PVCs, PDBs, ..."
    # Its FailedScheduling event holds the recorded filter summary: podwhy's word and the scheduler's agree.
    assert report["scheduler"]["event"]["count"] == 7 and report["scheduler"]["agrees"] is True
    assert compare(GOLDEN / "g0492", report) == []


SHARED_GOLDEN = SHARED / "golden"


@needs_shared("golden")
@pytest.mark.parametrize("name", ["golden", "golden-v1.33", "golden-v1.34", "golden-v1.36"])
def test_fixtures_hold_the_shared_recordings(name: str) -> None:
    """fixtures/<name> is a copy of ../shared/<name>: same cases, same files, same contents (a
    cluster or configuration a case.json points to is compared where it points)."""
    import gzip

    def text(path: Path) -> bytes:
        data = path.read_bytes()
        return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data

    shared_dir, fixtures_dir = SHARED / name, FIXTURES / name
    shared = sorted(p.name for p in shared_dir.iterdir() if (p / "expected.json").is_file())
    assert shared == [p.name for p in case_dirs(fixtures_dir)]
    stale = []
    for case in shared:
        want, have = shared_dir / case, fixtures_dir / case
        for file in sorted(want.iterdir()):
            got = have / file.name
            if file.name.startswith("cluster.yaml") and not got.is_file():
                got = have / (file.name + ".gz") if not file.name.endswith(".gz") else have / file.name[:-3]
            if not got.is_file() or text(got) != text(file):
                stale.append(f"{case}/{file.name}")
        # What case.json points to (../../golden/...) is the same file in both trees.
        meta = json.loads((want / "case.json").read_text())
        for key in ("cluster", "config"):
            if key in meta:
                theirs, ours = (with_gz((tree / meta[key]).resolve()) for tree in (want, have))
                if not ours.is_file() or text(ours) != text(theirs):
                    stale.append(f"{case}/{key} -> {meta[key]}")
    assert stale == []
