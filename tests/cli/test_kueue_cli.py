"""`podwhy explain job/NAME` and `workload/NAME` on the command line: kubectl's TYPE/NAME and -n,
closest names for a typo, and a pod in a namespace named like a TYPE still found."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.cli.options import LiveOptions, Shared, kueue_gates
from podwhy.cli.pending import _all_namespaces_command
from tests.paths import TESTS

SHORT = str(TESTS / "scenarios-kueue" / "short-quota" / "cluster.yaml")
GATED = str(TESTS / "scenarios-kueue" / "gated-pod-group" / "cluster.yaml")


def _run(*argv: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["explain", *argv], env={"COLUMNS": "140", "NO_COLOR": "1"})
    return result.exit_code, result.stdout, result.stderr


def test_job_and_workload_spellings_agree() -> None:
    outs = {
        _run(ref, "-n", "ml", "--from", SHORT)[1].split("\n")[0]
        for ref in ("job/train-7", "jobs/train-7", "job.batch/train-7")
    }
    assert len(outs) == 1
    assert next(iter(outs)).startswith("Job ml/train-7 waits in queue team-a: ClusterQueue team-a has 4 of its 16")
    code, out, _ = _run("workload/job-train-7-8d3e2", "-n", "ml", "--from", SHORT)
    assert code == 1 and out.startswith("Workload ml/job-train-7-8d3e2 waits in queue team-a")


def test_a_typo_names_the_closest() -> None:
    code, out, err = _run("job/trian-7", "-n", "ml", "--from", SHORT)
    assert code != 0 and not out
    assert "Job ml/trian-7 not found in the snapshot" in err and "closest: ml/train-7" in err


def test_the_wrong_namespace_names_the_closest_in_all() -> None:
    _code, _out, err = _run("job/train-7", "-n", "default", "--from", SHORT)
    assert "closest: ml/train-7" in err


def test_a_gated_pod_gets_kueues_answer_first_then_the_schedulers() -> None:
    code, out, _ = _run("infer-group-0", "-n", "ml", "--from", GATED)
    first, *rest = out.split("\n")
    assert first.startswith("Pod ml/infer-group-0 waits in queue team-a: ClusterQueue team-a has 4 of its 16")
    assert any(line.startswith("Pod ml/infer-group-0 · Gated") for line in rest)
    assert code == 1


def test_wide_shows_counts_and_modes() -> None:
    _code, out, _ = _run("job/train-7", "-n", "ml", "--from", SHORT, "-o", "wide")
    assert "main ×2" in out and "NoFit" in out


# --kueue-feature-gates: kube's --feature-gates syntax, only the gates Kueue's emulation reads.
GATE_FLAG = "--kueue-feature-gates"
LEGACY = "UnadmittedWorkloadsObservability=false"


@pytest.mark.parametrize(
    ("text", "gates"),
    [
        ("UnadmittedWorkloadsObservability=false", {"UnadmittedWorkloadsObservability": False}),
        (
            "PartialAdmission=False, PriorityBoost=true,",
            {"PartialAdmission": False, "PriorityBoost": True},
        ),
        ("ReclaimablePods=0,FlavorFungibility=T", {"ReclaimablePods": False, "FlavorFungibility": True}),
        ("", {}),
        (None, None),
    ],
)
def test_the_gates_are_read_as_kube_reads_feature_gates(text: str | None, gates: dict[str, bool] | None) -> None:
    assert kueue_gates(text) == gates


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (
            "UnadmitedWorkloadsObservability=false",
            "unknown Kueue feature gate 'UnadmitedWorkloadsObservability':"
            " did you mean UnadmittedWorkloadsObservability?",
        ),
        ("partialadmission=false", "did you mean PartialAdmission?"),
        ("UnadmittedWorkloadsObservability=nope", "give UnadmittedWorkloadsObservability=true or"),
        ("PartialAdmission", "give PartialAdmission=true or PartialAdmission=false"),
    ],
)
@pytest.mark.parametrize("command", ["explain", "pending", "check"])
def test_a_bad_gate_is_one_line_and_exit_2(command: str, value: str, said: str) -> None:
    result = CliRunner().invoke(app, [command, GATE_FLAG, value, "--from", SHORT], env={"COLUMNS": "140"})
    assert result.exit_code == 2 and not result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("podwhy: error: ") and said in lines[0], result.stderr
    assert GATE_FLAG in lines[0]


def _kueue_json(*flags: str) -> dict[str, Any]:
    code, out, err = _run("job/train-7", "-n", "ml", "--from", SHORT, "-o", "json", *flags)
    assert code == 1, err
    kueue: dict[str, Any] = json.loads(out)["kueue"]
    return kueue


def test_the_legacy_reason_where_the_gate_is_off_with_the_same_message() -> None:
    granular, legacy = _kueue_json(), _kueue_json(GATE_FLAG, LEGACY)
    assert (granular["reason"], legacy["reason"]) == ("WaitingForQuota", "Pending")
    assert legacy["message"] == granular["message"]
    assert granular["message"].startswith("couldn't assign flavors to pod set main: insufficient unused quota")
    assert (granular["kueueVersion"], granular["featureGates"], granular["reasons"]) == (
        "v0.20",
        {"UnadmittedWorkloadsObservability": True},
        "granular",
    )
    assert (legacy["featureGates"], legacy["reasons"]) == ({"UnadmittedWorkloadsObservability": False}, "legacy")


def test_a_gate_set_to_its_default_is_not_said_and_one_set_apart_is() -> None:
    same = _kueue_json(GATE_FLAG, "PartialAdmission=true")
    assert same["featureGates"] == {"UnadmittedWorkloadsObservability": True}
    apart = _kueue_json(GATE_FLAG, "PartialAdmission=false")
    assert apart["featureGates"] == {"UnadmittedWorkloadsObservability": True, "PartialAdmission": False}


def test_the_table_says_what_was_assumed() -> None:
    _code, out, _ = _run("job/train-7", "-n", "ml", "--from", SHORT)
    assumed = (
        "Kueue v0.20 assumed; UnadmittedWorkloadsObservability on (granular reasons); --kueue-feature-gates changes it"
    )
    assert assumed in out.splitlines()
    _code, out, _ = _run("job/train-7", "-n", "ml", "--from", SHORT, GATE_FLAG, LEGACY)
    assert "Kueue (Pending): couldn't assign flavors to pod set main" in out
    assert "UnadmittedWorkloadsObservability off (legacy reasons)" in out


def test_pending_groups_by_the_legacy_reason() -> None:
    args = ["pending", "-A", "--from", SHORT, "-o", "json"]
    for flags, cause in (([], "WaitingForQuota"), ([GATE_FLAG, LEGACY], "Pending")):
        result = CliRunner().invoke(app, [*args, *flags], env={"COLUMNS": "140"})
        assert [g["cause"] for g in json.loads(result.stdout)["kueue"]] == [cause], result.stderr


def test_pendings_rerun_command_keeps_the_gates() -> None:
    shared = Shared(LiveOptions(), quiet=False, verbose=False, debug=False, kueue_feature_gates=LEGACY)
    assert _all_namespaces_command([SHORT], shared).endswith(f"{GATE_FLAG} {LEGACY}")
