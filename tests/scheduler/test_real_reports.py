"""FailedScheduling messages users published from clusters of a stated release (fixtures/reports/,
see its README) come out of `podwhy explain` byte for byte under that release; under every other
emulated release, the message differs only where that release's Emulation words it differently."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.features.emulation import EMULATED, Emulation
from podwhy.features.kubefeatures import DYNAMIC_RESOURCE_ALLOCATION
from tests.paths import REPO

REPORTS = REPO / "fixtures" / "reports"
CASES = sorted(p for p in REPORTS.iterdir() if (p / "case.json").is_file())


def _case(folder: Path) -> dict[str, Any]:
    case: dict[str, Any] = json.loads((folder / "case.json").read_text())
    return case


def _message(folder: Path, release: str) -> str:
    case = _case(folder)
    result = CliRunner().invoke(
        app, ["explain", case["pod"], "--from", str(folder / "cluster.yaml"), "--kube-version", release, "-o", "json"]
    )
    assert result.exit_code == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["verdict"] == "Unschedulable" and report["messageComplete"]
    assert report["scheduler"]["version"] == release
    message: str = report["message"]
    return message


def _words(emulation: Emulation) -> tuple[bool, ...]:
    """What of a release changes the words of a FailedScheduling message (features/emulation.py)."""
    return (
        emulation.taint_toleration_names_taint,
        emulation.enabled(DYNAMIC_RESOURCE_ALLOCATION),
        emulation.fit_unresolvable_over_allocatable,
        emulation.read_write_once_pod_older_words,
    )


def _release(name: str) -> Emulation:
    (emulation,) = [e for e in EMULATED.values() if e.name == name]
    return emulation


def test_the_cases_are_here() -> None:
    # Three published reports (two from v1.34.8, one from v1.35.8); more may be added.
    assert len(CASES) >= 3
    for folder in CASES:
        case = _case(folder)
        assert case["url"].startswith("https://github.com/"), folder.name
        assert case["clusterVersion"].startswith(f"v{case['release']}."), folder.name
        assert case["message"] in (folder / "README.md").read_text(), folder.name


@pytest.mark.parametrize("folder", CASES, ids=[p.name for p in CASES])
def test_the_posted_message_under_the_posted_release(folder: Path) -> None:
    case = _case(folder)
    assert _message(folder, case["release"]) == case["message"]


@pytest.mark.parametrize(
    ("folder", "release"),
    [(p, e.name) for p in CASES for e in EMULATED.values() if e.name != _case(p)["release"]],
    ids=[f"{p.name}-as-{e.name}" for p in CASES for e in EMULATED.values() if e.name != _case(p)["release"]],
)
def test_other_releases_differ_only_where_their_data_does(folder: Path, release: str) -> None:
    case = _case(folder)
    if _words(_release(release)) == _words(_release(case["release"])):
        expected = case["message"]
        assert release not in case["otherReleases"], "this release words messages as the posted one does"
    else:
        expected = case["otherReleases"][release]
        assert expected != case["message"]
    assert _message(folder, release) == expected
