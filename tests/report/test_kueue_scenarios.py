"""Kueue scenario folders (tests/scenarios-kueue/): `podwhy explain job/NAME`, `workload/NAME` or a
Kueue-gated pod, each rendered as a fixed-width colourless table, JSON and markdown, snapshotted;
the exit code and the JSON's `kueue` object are checked against what each scenario is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from syrupy.assertion import SnapshotAssertion
from typer.testing import CliRunner

from podwhy.cli import app
from tests.paths import TESTS

pytestmark = pytest.mark.usefixtures("moved_clock")

SCENARIOS = TESTS / "scenarios-kueue"
NAMES = sorted(p.name for p in SCENARIOS.iterdir() if (p / "args.json").is_file())

# What each scenario is: (exit code, admitted, Kueue's reason, the start of Kueue's message).
EXPECTED = {
    "borrowing": (0, True, "", ""),
    "gated-pod-group": (
        1,
        False,
        "WaitingForQuota",
        "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor a100, "
        "4 more needed",
    ),
    "inactive-cluster-queue": (1, False, "Suspended", "ClusterQueue team-a is inactive"),
    "missing-local-queue": (1, False, "Misconfigured", "LocalQueue team-x doesn't exist"),
    "namespace-selector": (1, False, "Misconfigured", "workload namespace doesn't match ClusterQueue selector"),
    "no-workload": (3, False, "", ""),
    "second-flavor": (0, True, "", ""),
    "short-quota": (
        1,
        False,
        "WaitingForQuota",
        "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor a100, "
        "4 more needed",
    ),
    "stale-condition": (0, True, "", ""),
    "strict-fifo-head": (1, False, "", ""),
    "uncovered-resource": (
        1,
        False,
        "",
        "couldn't assign flavors to pod set main: resource nvidia.com/gpu unavailable in ClusterQueue",
    ),
    "untolerated-taint": (
        1,
        False,
        "NoMatchingFlavor",
        "couldn't assign flavors to pod set main: untolerated taint {cloud.example.com/spot true NoSchedule <nil>} "
        "in flavor spot",
    ),
}


def _invoke(name: str, *extra: str) -> tuple[int, str]:
    spec = json.loads((SCENARIOS / name / "args.json").read_text())
    source = (SCENARIOS / name / "cluster.yaml").resolve()
    result = CliRunner().invoke(
        app, ["explain", *spec["argv"], "--from", str(source), *extra], env={"COLUMNS": "140", "NO_COLOR": "1"}
    )
    return result.exit_code, result.stdout


def test_every_scenario_is_expected() -> None:
    assert set(NAMES) == set(EXPECTED)


@pytest.mark.parametrize("name", NAMES)
def test_table(name: str, snapshot: SnapshotAssertion) -> None:
    code, out = _invoke(name)
    assert code == EXPECTED[name][0]
    assert out == snapshot


@pytest.mark.parametrize("name", NAMES)
def test_json(name: str, snapshot: SnapshotAssertion, report_schema_validator: object) -> None:
    code, out = _invoke(name, "-o", "json")
    report = json.loads(out)
    report_schema_validator.validate(report)  # type: ignore[attr-defined]
    _, admitted, reason, message = EXPECTED[name]
    kueue = report["kueue"]
    assert (kueue["admitted"], kueue["reason"]) == (admitted, reason)
    assert kueue["message"] == message
    assert code == EXPECTED[name][0]
    report["snapshot"]["sources"] = [Path(s).name for s in report["snapshot"]["sources"]]
    assert report == snapshot


@pytest.mark.parametrize("name", NAMES)
def test_yaml_is_the_json(name: str) -> None:
    """-o yaml carries the same report as -o json, Kueue's part included, and the same exit code."""
    code_json, out_json = _invoke(name, "-o", "json")
    code_yaml, out_yaml = _invoke(name, "-o", "yaml")
    assert code_yaml == code_json
    assert yaml.safe_load(out_yaml) == json.loads(out_json)


@pytest.mark.parametrize("name", NAMES)
def test_markdown(name: str, snapshot: SnapshotAssertion) -> None:
    _code, out = _invoke(name, "-o", "markdown")
    assert out == snapshot


def test_the_first_line_says_the_number_that_matters() -> None:
    _, out = _invoke("short-quota")
    first = " ".join(out.split("\n")[:2])
    assert (
        "Job ml/train-7 waits in queue team-a: ClusterQueue team-a has 4 of its 16 nvidia.com/gpu free in flavor a100"
        " and can borrow 0; the Job needs 8" in first
    )


def test_a_stale_condition_is_shown_beside_the_recomputation() -> None:
    _, out = _invoke("stale-condition", "-o", "json")
    kueue = json.loads(out)["kueue"]
    assert kueue["stale"] is True
    assert kueue["recorded"]["reason"] == "WaitingForQuota"
    assert kueue["message"] == ""


def test_the_strict_fifo_head_is_named() -> None:
    _, out = _invoke("strict-fifo-head", "-o", "json")
    kueue = json.loads(out)["kueue"]
    assert kueue["blockedBy"] == "ml/job-big-1-0e7d4"
    assert kueue["ahead"] == [{"workload": "ml/job-big-1-0e7d4", "priority": 100, "position": 1}]


# `podwhy pending -A` on the same folders: what Kueue holds, by ClusterQueue and cause.
PENDING = ["short-quota", "strict-fifo-head", "no-workload", "gated-pod-group", "borrowing"]


def _pending(name: str, *extra: str) -> tuple[int, str]:
    source = (SCENARIOS / name / "cluster.yaml").resolve()
    result = CliRunner().invoke(
        app, ["pending", "-A", "--from", str(source), *extra], env={"COLUMNS": "140", "NO_COLOR": "1"}
    )
    return result.exit_code, result.stdout


@pytest.mark.parametrize("name", PENDING)
def test_pending_table(name: str, snapshot: SnapshotAssertion) -> None:
    _code, out = _pending(name)
    assert out == snapshot


@pytest.mark.parametrize("name", PENDING)
def test_pending_json(name: str, snapshot: SnapshotAssertion, pending_schema_validator: object) -> None:
    code, out = _pending(name, "-o", "json")
    report = json.loads(out)
    pending_schema_validator.validate(report)  # type: ignore[attr-defined]
    held = [g for g in report["kueue"] if not g["admitted"]]
    # Held and evaluated: 1; held only where what decides was not evaluated: 3; nothing held: 0.
    expected = 3 if held and all(g["cause"] == "NoWorkload" for g in held) else 1 if held else 0
    if report["groups"]:
        expected = max(expected, 1) if expected != 3 else 1
    assert code == expected
    report["snapshot"]["sources"] = [Path(s).name for s in report["snapshot"]["sources"]]
    assert report == snapshot


def test_pending_markdown_has_kueue() -> None:
    _code, out = _pending("strict-fifo-head", "-o", "markdown")
    assert "| team-a | BehindStrictFIFOHead | 1 | Job ml/small-2 |" in out


def test_a_gated_pod_whose_kueue_side_is_inconclusive_exits_3(tmp_path: Path) -> None:
    """The pod's Workload holds quota and waits for admission checks podwhy does not evaluate: the
    first line says so, and the exit code agrees (3, not a Gated pod's 1)."""
    import yaml

    dump = yaml.safe_load((SCENARIOS / "gated-pod-group" / "cluster.yaml").read_text())
    for item in dump["items"]:
        if item["kind"] == "Workload" and item["metadata"]["name"] == "infer-group":
            reserved = {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": "reserved"}
            item["status"] = {"conditions": [reserved], "admission": {"clusterQueue": "team-a"}}
    source = tmp_path / "cluster.yaml"
    source.write_text(yaml.safe_dump(dump))
    argv = ["explain", "infer-group-0", "-n", "ml", "--from", str(source)]
    result = CliRunner().invoke(app, [*argv, "-o", "json"], env={"COLUMNS": "140", "NO_COLOR": "1"})
    report = json.loads(result.stdout)
    assert result.exit_code == 3
    assert report["verdict"] == "Inconclusive"
    assert report["message"] == report["kueue"]["summary"]
    assert "admission checks" in report["notEvaluated"]
