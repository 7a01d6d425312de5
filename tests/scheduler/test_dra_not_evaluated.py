"""A node whose DynamicResources verdict rests on device selectors podwhy cannot evaluate: the
cycle's verdict, its not-evaluated fact and what `podwhy explain` says of it (first line, exit
code, JSON), from the scenario tests/scenarios/dra-not-evaluated."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from podwhy.cli import app
from podwhy.framework.notevaluated import NotEvaluated, UnevaluatedSelector
from podwhy.model import objects as o
from podwhy.plugins import names
from podwhy.report.build.explain import build_report
from podwhy.report.words.notevaluated import not_evaluated_text
from podwhy.scheduler.cycle import CycleOutcome, run_cycle
from podwhy.verdict import ExitCode, Verdict
from tests.builders import make_node, make_pod, make_snapshot
from tests.paths import TESTS
from tests.plugins.test_dynamicresources import (
    CLAIM,
    DRIVER_A,
    NODE1,
    NODE2,
    NS,
    by_name,
    device,
    exact,
    make_claim,
    make_class,
    make_slice,
    my_pod,
)
from tests.plugins.test_dynamicresources_notevaluated import MADE

SCENARIO = TESTS / "scenarios" / "dra-not-evaluated" / "cluster.yaml"
SAID = (
    "not evaluated: DynamicResources (device selector #0 of claim ml/trainer-gpus needs CEL's timestamp,"
    " which podwhy does not evaluate)"
)
FACT = NotEvaluated(
    plugins=(names.DYNAMIC_RESOURCES,), selectors=(UnevaluatedSelector(f"claim {NS}/{CLAIM}", 0, "cel:timestamp"),)
)


def _cycle(*slices: o.ResourceSlice) -> CycleOutcome:
    claim = make_claim(exact(selectors=[f'device.attributes["{DRIVER_A}"].model == "big" || {MADE}']))
    nodes = [make_node(NODE1).obj(), make_node(NODE2).obj()]
    snapshot = make_snapshot(*nodes, by_name(), claim, make_class(), *slices)
    return run_cycle(snapshot, by_name())


def test_only_a_node_not_evaluated_fits_inconclusive() -> None:
    cycle = _cycle(make_slice(device("dev-1", model="small", made="2024-01-01T00:00:00Z")))
    assert cycle.verdict == Verdict.INCONCLUSIVE
    assert cycle.not_evaluated == FACT
    assert cycle.message == ""
    assert cycle.outcome is not None and cycle.outcome.feasible == [NODE1]
    assert cycle.outcome.not_evaluated == {}  # DynamicResources ran
    assert cycle.lacking_kinds == []


def test_a_node_that_fits_for_sure_beside_one_not_evaluated_inconclusive() -> None:
    # Where the pod goes rests on the node not evaluated (the scheduler may take it, or fail on it).
    cycle = _cycle(
        make_slice(device("dev-1", model="small", made="2024-01-01T00:00:00Z")),
        make_slice(device("dev-1", model="big"), node=NODE2),
    )
    assert cycle.verdict == Verdict.INCONCLUSIVE
    assert cycle.not_evaluated == FACT
    assert cycle.outcome is not None and sorted(cycle.outcome.feasible) == [NODE1, NODE2]


def test_no_unknown_selector_read_schedulable() -> None:
    cycle = _cycle(make_slice(device("dev-1", model="big"), device("dev-2", model="small", made="x")))
    assert cycle.verdict == Verdict.SCHEDULABLE
    assert cycle.not_evaluated is None


def test_unknown_selector_on_a_node_rejected_anyway_unschedulable_with_upstreams_message() -> None:
    two = make_claim(exact(count=2, selectors=[MADE]))
    nodes = [make_node(NODE1).obj(), make_node(NODE2).obj()]
    rs = make_slice(device("dev-1", made="2024-01-01T00:00:00Z"))
    cycle = run_cycle(make_snapshot(*nodes, by_name(), two, make_class(), rs), by_name())
    assert cycle.verdict == Verdict.UNSCHEDULABLE
    assert cycle.not_evaluated is None
    assert cycle.message.startswith("0/2 nodes are available: 2 cannot allocate all claims.")


def _explain(*extra: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        app,
        ["explain", "ml/trainer-0", "--complete", "--from", str(SCENARIO), *extra],
        env={"COLUMNS": "140", "NO_COLOR": "1"},
    )
    return result.exit_code, result.stdout


def test_explain_says_inconclusive_first_and_exits_3() -> None:
    code, out = _explain()
    lines = out.splitlines()
    assert code == ExitCode.INCONCLUSIVE == Verdict.INCONCLUSIVE.exit_code
    assert lines[0] == "Pod ml/trainer-0 · Inconclusive"
    assert " ".join(lines[2:4]) == f"Inconclusive: {SAID}"
    # Not the hint for kinds the snapshot lacks: nothing is missing from it.
    assert "another --from" not in out


def test_explain_json_carries_the_fact() -> None:
    code, out = _explain("-o", "json")
    report = json.loads(out)
    assert code == ExitCode.INCONCLUSIVE
    assert (report["verdict"], report["message"], report["notEvaluated"]) == ("Inconclusive", "", SAID)
    assert report["lackingKinds"] == []
    assert report["feasibleNodes"] == ["gpu-node-a"]
    statuses = {
        n["name"]: next(f for f in n["filters"] if f["plugin"] == names.DYNAMIC_RESOURCES) for n in report["nodes"]
    }
    assert statuses["gpu-node-a"]["status"] == "NotEvaluated"
    node_said = SAID.replace("DynamicResources (", "").removesuffix(")")
    assert statuses["gpu-node-a"]["reasons"] == [node_said]
    # Its GPU is another claim's: never read, rejected as kube-scheduler rejects it.
    assert statuses["gpu-node-b"]["status"] == "UnschedulableAndUnresolvable"
    assert statuses["gpu-node-b"]["reasons"] == ["cannot allocate all claims"]


def test_preemption_dry_run_resting_on_a_node_not_evaluated_says_so() -> None:
    # node-1's CPU is a low-priority pod's and its only device's selector is unknown: the dry run
    # frees the CPU and takes the node as fitting, which rests on that selector.
    claim = make_claim(exact(selectors=[MADE]))
    pod = my_pod().resource_claim("my-resource", claim=CLAIM).priority(100).req(cpu="2").obj()
    victim = make_pod("low", NS).node(NODE1).priority(0).req(cpu="2").start_time("2026-01-01T00:00:00Z").obj()
    nodes = [make_node(NODE1).alloc(cpu="2", pods="10").obj(), make_node(NODE2).alloc(cpu="2", pods="10").obj()]
    rs = make_slice(device("dev-1", made="2024-01-01T00:00:00Z"))
    snapshot = make_snapshot(*nodes, pod, victim, claim, make_class(), rs)
    cycle = run_cycle(snapshot, pod)
    assert cycle.verdict == Verdict.UNSCHEDULABLE
    assert cycle.post_filter is not None
    assert cycle.post_filter.filters_not_evaluated == {names.DYNAMIC_RESOURCES: FACT}
    assert not cycle.message_complete  # the preemption part rests on the node not evaluated
    assert cycle.message.startswith("0/2 nodes are available: ")
    report = build_report(cycle, snapshot)
    assert any(
        w.startswith("the preemption dry run took a node as fitting where not evaluated: ") for w in report.warnings
    )


def test_the_score_of_a_plugin_that_left_a_node_not_evaluated_is_not_evaluated_on_every_node() -> None:
    """DynamicResources scores what its Filter would allocate, and normalizing weighs each node's
    score against the others': with one node's allocation unknown, no node's score is known."""
    cycle = _cycle(
        make_slice(device("dev-1", model="small", made="2024-01-01T00:00:00Z")),
        make_slice(device("dev-1", model="big"), node=NODE2),
    )
    scores = cycle.scores
    assert scores is not None
    assert names.DYNAMIC_RESOURCES in scores.not_evaluated
    assert scores.unsure == {names.DYNAMIC_RESOURCES: FACT}
    rows = [ps for row in scores.scores.values() for ps in row if ps.plugin == names.DYNAMIC_RESOURCES]
    assert len(rows) == 2
    assert all(ps.not_evaluated == FACT and ps.weighted == 0 for ps in rows)
    report = build_report(cycle, make_snapshot())
    assert f"scores counted as 0 on every node, {not_evaluated_text(FACT)}" in report.warnings
    assert not any("lacks kinds" in w for w in report.warnings)


def test_a_plugin_that_evaluated_every_node_scores_them() -> None:
    cycle = _cycle(make_slice(device("dev-1", model="big"), device("dev-2", model="small", made="x")))
    assert cycle.scores is not None
    assert cycle.scores.unsure == {}
    assert names.DYNAMIC_RESOURCES not in cycle.scores.not_evaluated
