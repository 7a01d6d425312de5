"""DefaultPreemption's dry run, after the edge cases of upstream's default_preemption_test.go.

The framework runs NodeResourcesFit (and PodTopologySpread where a case needs it) at PreFilter
and Filter, as the upstream tests register them; node statuses are given per case, as the
upstream tests give their NodeToStatus maps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec
import pytest

from podwhy.framework.handle import Handle
from podwhy.framework.interface import CycleState, Plugin, PreFilterResult
from podwhy.framework.plugin_args import DefaultPreemptionArgs, decode_plugin_args
from podwhy.framework.preemption import (
    Budget,
    Candidate,
    fit_error_text,
    pick_one_node_for_preemption,
    preemption_outcome,
)
from podwhy.framework.profile import Profile
from podwhy.framework.runtime import Framework
from podwhy.framework.status import Code, Status, error, success
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.model import objects as o
from podwhy.plugins import names
from podwhy.plugins.defaultpreemption import DefaultPreemption, calculate_num_candidates, filter_pods_with_pdb_violation
from podwhy.plugins.registry import PLUGINS
from podwhy.report.build.explain import build_report
from podwhy.scheduler.cycle import run_cycle
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.source import VOUCHED_KINDS
from tests.builders import from_raw, make_handle, make_node, make_pod, make_snapshot

NEG, LOW, MID, HIGH, VERY_HIGH = -100, 0, 100, 1000, 10000
SMALL = ("100m", "100")
MEDIUM = ("200m", "200")
LARGE = ("300m", "300")
VERY_LARGE = ("500m", "500")
ONE_POD = {"pods": "1"}


def epoch(seconds: int) -> str:
    return f"1970-01-01T00:00:{seconds:02d}Z"


def prio_pod(
    name: str,
    node: str = "",
    priority: int | None = None,
    req: tuple[str, str] | None = None,
    labels: dict[str, str] | None = None,
    start: str | None = None,
    preemption_policy: str | None = None,
    nominated: str = "",
    deleting: bool = False,
    conditions: list[dict[str, str]] | None = None,
) -> o.Pod:
    """A pod Running on `node` (Pending without one), requesting `req` = (cpu, memory)."""
    builder = make_pod(name).phase("Running" if node else "Pending")
    if node:
        builder.node(node)
    if priority is not None:
        builder.priority(priority)
    if req is not None:
        builder.req(cpu=req[0], memory=req[1])
    if labels:
        builder.labels(labels)
    if start:
        builder.start_time(start)
    if preemption_policy:
        builder.preemption_policy(preemption_policy)
    if nominated:
        builder.nominated(nominated)
    if deleting:
        builder.terminating(epoch(59))
    if conditions:
        builder.status(conditions=conditions)
    return builder.obj()


def sized_node(
    name: str, capacity: tuple[str, str] | dict[str, str] = VERY_LARGE, labels: dict[str, str] | None = None
) -> o.Node:
    """A node with allocatable (cpu, memory), or these resources; 110 pods unless given."""
    alloc = {"cpu": capacity[0], "memory": capacity[1]} if isinstance(capacity, tuple) else dict(capacity)
    return make_node(name).alloc(alloc).labels(labels).obj()


def make_pdb(
    name: str, match: dict[str, str] | None, allowed: int, disrupted: tuple[str, ...] = ()
) -> o.PodDisruptionBudget:
    spec: dict[str, Any] = {}
    if match is not None:
        spec["selector"] = {"matchLabels": match}
    return from_raw(
        o.PodDisruptionBudget,
        {
            "metadata": {"name": name, "namespace": "default"},
            "spec": spec,
            "status": {"disruptionsAllowed": allowed, "disruptedPods": {p: epoch(0) for p in disrupted}},
        },
    )


class ErrorOnLabelPlugin(Plugin):
    """upstream's TestPlugin: AddPod/RemovePod fail on nodes labelled error=true."""

    NAME = "test-plugin"

    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        return None, success()

    def add_pod(self, state: CycleState, pod: PodInfo, to_add: PodInfo, node_info: NodeInfo) -> Status:
        if node_info.node.metadata.labels.get("error") == "true":
            return error(f"failed to add pod: {pod.pod.metadata.name}")
        return success()

    def remove_pod(self, state: CycleState, pod: PodInfo, to_remove: PodInfo, node_info: NodeInfo) -> Status:
        if node_info.node.metadata.labels.get("error") == "true":
            return error(f"failed to remove pod: {pod.pod.metadata.name}")
        return success()


@dataclass
class Run:
    result_node: str | None
    status: Status
    candidates: dict[str, list[str]]
    violations: dict[str, int]
    victims: list[str] = field(default_factory=list)


def run_post_filter(
    pod: o.Pod,
    pods: list[o.Pod],
    nodes: list[o.Node],
    statuses: dict[str, Code] | None = None,
    pdbs: list[o.PodDisruptionBudget] | None = None,
    plugins: tuple[str, ...] = ("NodeResourcesFit",),
    args: dict[str, Any] | None = None,
    extra: Plugin | None = None,
) -> Run:
    """PreFilter the pod, then DefaultPreemption.PostFilter with the given node statuses
    (None: every node Unschedulable)."""
    snapshot = make_snapshot(*nodes, *pods, pod, *(pdbs or []))
    profile = Profile(
        pre_filter=list(plugins),
        filter=list(plugins),
        post_filter=["DefaultPreemption"],
        pre_score=[],
        score={},
        plugin_args={names.DEFAULT_PREEMPTION: decode_plugin_args(DefaultPreemptionArgs, args or {})},
    )
    framework = Framework(Handle(snapshot), profile, PLUGINS)
    if extra is not None:
        extra.framework = framework
        framework.plugins[extra.NAME] = extra
        profile.pre_filter.append(extra.NAME)
    target = PodInfo(pod)
    state = framework.run_filters(target).state
    codes = statuses if statuses is not None else {n.metadata.name: Code.Unschedulable for n in nodes}
    node_statuses = {name: Status(code) for name, code in codes.items()}
    plugin = framework.plugins["DefaultPreemption"]
    assert isinstance(plugin, DefaultPreemption)
    result, status = plugin.post_filter(state, target, node_statuses)
    outcome = preemption_outcome(state)
    assert outcome is not None
    return Run(
        result.nominated_node_name if result is not None else None,
        status,
        {c.node: sorted(v.pod.metadata.name for v in c.victims) for c in outcome.candidates},
        {c.node: c.num_pdb_violations for c in outcome.candidates},
        [v.pod.metadata.name for v in outcome.victims],
    )


U, UR = Code.Unschedulable, Code.UnschedulableAndUnresolvable

# ---------------------------------------------------------------------- TestPostFilter

POST_FILTER_CASES = [
    pytest.param(
        prio_pod("p", priority=HIGH),
        [prio_pod("p1", "node1")],
        [sized_node("node1", ONE_POD)],
        {"node1": U},
        "node1",
        Status(Code.Success),
        id="pod with higher priority can be made schedulable",
    ),
    pytest.param(
        prio_pod("p"),
        [prio_pod("p1", "node1")],
        [sized_node("node1", ONE_POD)],
        {"node1": U},
        "",
        Status(U, ["preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."]),
        id="pod with tied priority is still unschedulable",
    ),
    pytest.param(
        prio_pod("p", priority=HIGH),
        [prio_pod("p1", "node1")],
        [sized_node("node1", ONE_POD)],
        {"node1": UR},
        "",
        Status(U, ["preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."]),
        id="preemption should respect filteredNodesStatuses",
    ),
    pytest.param(
        prio_pod("p", priority=HIGH),
        [prio_pod("p1", "node1")],
        [sized_node("node1", ONE_POD)],
        {},
        "",
        Status(U, ["preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."]),
        id="an absent node status means UnschedulableAndUnresolvable",
    ),
    pytest.param(
        prio_pod("p", priority=MID),
        [prio_pod("p1", "node1", HIGH), prio_pod("p2", "node2", LOW)],
        [sized_node("node1", ONE_POD), sized_node("node2", ONE_POD)],
        None,
        "node2",
        Status(Code.Success),
        id="pod can be made schedulable on one node",
    ),
    pytest.param(
        prio_pod("p", priority=HIGH, req=LARGE),
        [prio_pod("p1", "node1"), prio_pod("p2", "node2")],
        [sized_node("node1", ("200m", "400")), sized_node("node2", ("200m", "400"))],
        None,
        "",
        Status(U, ["preemption: 0/2 nodes are available: 2 Insufficient cpu."]),
        id="no candidate nodes found, no enough resource after removing low priority pods",
    ),
    pytest.param(
        prio_pod("p", priority=HIGH, req=LARGE),
        [prio_pod("p1", "node1", HIGH), prio_pod("p2", "node2"), prio_pod("p3", "node3", HIGH)],
        [sized_node("node1", ONE_POD), sized_node("node2", ("200m", "400")), sized_node("node3", ONE_POD)],
        None,
        "",
        Status(
            U,
            [
                "preemption: 0/3 nodes are available: 1 Insufficient cpu, "
                "2 No preemption victims found for incoming pod."
            ],
        ),
        id="no candidate nodes found with mixed reasons",
    ),
    pytest.param(
        prio_pod("p", priority=HIGH, req=LARGE),
        [prio_pod("p1", "node1"), prio_pod("p2", "node2")],
        [sized_node(f"node{i}", ("200m", "400")) for i in range(1, 5)],
        {"node1": U, "node2": U, "node4": UR},
        "",
        Status(
            U, ["preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 Preemption is not helpful for scheduling."]
        ),
        id="no candidate with 2 unresolvable nodes and 2 nodes short of cpu",
    ),
    pytest.param(
        prio_pod("p", priority=HIGH, preemption_policy="Never"),
        [prio_pod("p1", "node1")],
        [sized_node("node1", ONE_POD)],
        None,
        None,
        Status(U, ["preemption: not eligible due to preemptionPolicy=Never."]),
        id="preemptionPolicy Never is not eligible",
    ),
]


@pytest.mark.parametrize(("pod", "pods", "nodes", "statuses", "want_node", "want_status"), POST_FILTER_CASES)
def test_post_filter(
    pod: o.Pod,
    pods: list[o.Pod],
    nodes: list[o.Node],
    statuses: dict[str, Code] | None,
    want_node: str | None,
    want_status: Status,
) -> None:
    run = run_post_filter(pod, pods, nodes, statuses)
    assert run.result_node == want_node
    assert (run.status.code, run.status.reasons) == (want_status.code, want_status.reasons)


def test_post_filter_error_from_remove_pod_on_the_only_node() -> None:
    run = run_post_filter(
        prio_pod("p", priority=HIGH, req=LARGE),
        [prio_pod("p1", "node1")],
        [sized_node("node1", LARGE, labels={"error": "true"})],
        extra=ErrorOnLabelPlugin(make_handle()),
    )
    assert run.result_node is None
    assert run.status.code == Code.Error
    assert run.status.reasons == [
        'preemption: running RemovePod on PreFilter plugin "test-plugin": failed to remove pod: p'
    ]


def test_post_filter_one_node_errors_the_other_is_nominated() -> None:
    run = run_post_filter(
        prio_pod("p", priority=HIGH, req=LARGE),
        [prio_pod("p1", "node1"), prio_pod("p2", "node2", req=MEDIUM)],
        [sized_node("node1", LARGE, labels={"error": "true"}), sized_node("node2", LARGE)],
        extra=ErrorOnLabelPlugin(make_handle()),
    )
    assert run.result_node == "node2"
    assert run.status.is_success()


def test_post_filter_picks_min_highest_priority_node_with_pdbs() -> None:
    key = "test.kubernetes.io/is-violating-pdb"
    run = run_post_filter(
        prio_pod("p", priority=VERY_HIGH),
        [
            prio_pod("p1", "node1", HIGH, labels={key: "non-violating"}),
            prio_pod("p2", "node1", LOW, labels={key: "violating"}),
            prio_pod("p3", "node2", MID, labels={key: "violating"}),
        ],
        [sized_node("node1", ONE_POD), sized_node("node2", ONE_POD)],
        pdbs=[
            make_pdb("violating-pdb", {key: "violating"}, 0),
            make_pdb("non-violating-pdb", {key: "non-violating"}, 2**31 - 1),
        ],
    )
    assert run.result_node == "node2"


# ---------------------------------------------------------------------- TestDryRunPreemption

FIT = ("NodeResourcesFit",)

DRY_RUN_CASES = [
    pytest.param(
        prio_pod("p", priority=HIGH, req=LARGE),
        [prio_pod("p1", "node1", MID, LARGE), prio_pod("p2", "node2", MID, LARGE)],
        ["node1", "node2"],
        [],
        {"node1": ["p1"], "node2": ["p2"]},
        {"node1": 0, "node2": 0},
        id="a pod that fits on both nodes when lower priority pods are preempted",
    ),
    pytest.param(
        prio_pod("p", priority=LOW, req=LARGE),
        [prio_pod("p1", "node1", MID, LARGE), prio_pod("p2", "node2", MID, LARGE)],
        ["node1", "node2"],
        [],
        {},
        {},
        id="other pods running are higher priority, no preemption would happen",
    ),
    pytest.param(
        prio_pod("p", priority=HIGH, req=LARGE),
        [
            prio_pod("p1.1", "node1", LOW, SMALL),
            prio_pod("p1.2", "node1", MID, LARGE),
            prio_pod("p2", "node2", MID, LARGE),
        ],
        ["node1", "node2"],
        [],
        {"node1": ["p1.2"], "node2": ["p2"]},
        {"node1": 0, "node2": 0},
        id="medium priority pod is preempted, but lower priority one stays as it is small",
    ),
    pytest.param(
        prio_pod("p", priority=HIGH, req=LARGE),
        [
            prio_pod("p1.1", "node1", MID, SMALL),
            prio_pod("p1.2", "node1", LOW, SMALL),
            prio_pod("p1.3", "node1", MID, MEDIUM),
            prio_pod("p1.4", "node1", HIGH, SMALL),
            prio_pod("p2", "node2", HIGH, LARGE),
        ],
        ["node1", "node2"],
        [],
        {"node1": ["p1.2", "p1.3"]},
        {"node1": 0},
        id="mixed priority pods are preempted",
    ),
    pytest.param(
        prio_pod("p", priority=HIGH, req=LARGE),
        [
            prio_pod("p1.1", "node1", LOW, SMALL, start=epoch(5)),
            prio_pod("p1.2", "node1", LOW, SMALL, start=epoch(4)),
            prio_pod("p1.3", "node1", MID, MEDIUM, start=epoch(3)),
            prio_pod("p1.4", "node1", HIGH, SMALL, start=epoch(2)),
            prio_pod("p2", "node2", HIGH, LARGE, start=epoch(1)),
        ],
        ["node1", "node2"],
        [],
        {"node1": ["p1.1", "p1.3"]},
        {"node1": 0},
        id="mixed priority pods are preempted, pick later StartTime one when priorities are equal",
    ),
    pytest.param(
        prio_pod("p", priority=HIGH, req=VERY_LARGE),
        [
            prio_pod("p1.1", "node1", MID, MEDIUM, labels={"app": "foo"}),
            prio_pod("p1.2", "node1", MID, MEDIUM, labels={"app": "foo"}),
        ],
        ["node1"],
        [make_pdb("pdb", {"app": "foo"}, 1)],
        {"node1": ["p1.1", "p1.2"]},
        {"node1": 1},
        id="preemption with violation of same pdb",
    ),
    pytest.param(
        prio_pod("p", priority=HIGH, req=VERY_LARGE),
        [
            prio_pod("p1.1", "node1", MID, MEDIUM, labels={"app": "foo"}),
            prio_pod("p1.2", "node1", MID, MEDIUM, labels={"app": "foo"}),
        ],
        ["node1"],
        [make_pdb("pdb", {"app": "foo"}, 1, disrupted=("p2",))],
        {"node1": ["p1.1", "p1.2"]},
        {"node1": 1},
        id="pdb violation, the victim does not belong to DisruptedPods",
    ),
    pytest.param(
        prio_pod("p", priority=HIGH, req=VERY_LARGE),
        [
            prio_pod("p1.1", "node1", MID, MEDIUM, labels={"app": "foo"}),
            prio_pod("p1.2", "node1", MID, MEDIUM, labels={"app": "foo"}),
        ],
        ["node1"],
        [make_pdb("pdb", {"app": "foo"}, 1, disrupted=("p1.2",))],
        {"node1": ["p1.1", "p1.2"]},
        {"node1": 0},
        id="pdb violation, the victim belongs to DisruptedPods",
    ),
    pytest.param(
        prio_pod("p", priority=HIGH, req=VERY_LARGE),
        [
            prio_pod("p1.1", "node1", MID, MEDIUM, labels={"app": "foo"}),
            prio_pod("p1.2", "node1", MID, MEDIUM, labels={"app": "foo"}),
            prio_pod("p1.3", "node1", MID, MEDIUM, labels={"app": "foo"}),
        ],
        ["node1"],
        [make_pdb("pdb", {"app": "foo"}, 1, disrupted=("p1.3",))],
        {"node1": ["p1.1", "p1.2", "p1.3"]},
        {"node1": 1},
        id="the victim in DisruptedPods is treated as non-violating",
    ),
    pytest.param(
        prio_pod("p", priority=HIGH, req=VERY_LARGE),
        [
            prio_pod("p1.1", "node1", MID, MEDIUM, labels={"app": "foo"}),
            prio_pod("p1.2", "node1", MID, MEDIUM, labels={"app": "foo"}),
        ],
        ["node1"],
        [make_pdb("pdb-nil-selector", None, 0), make_pdb("pdb-empty-selector", {}, 0)],
        {"node1": ["p1.1", "p1.2"]},
        {"node1": 0},
        id="a pdb with a nil or empty selector matches nothing",
    ),
]


@pytest.mark.parametrize(("pod", "pods", "node_names", "pdbs", "want", "want_violations"), DRY_RUN_CASES)
def test_dry_run_preemption(
    pod: o.Pod,
    pods: list[o.Pod],
    node_names: list[str],
    pdbs: list[o.PodDisruptionBudget],
    want: dict[str, list[str]],
    want_violations: dict[str, int],
) -> None:
    run = run_post_filter(pod, pods, [sized_node(n) for n in node_names], pdbs=pdbs)
    assert run.candidates == want
    assert run.violations == want_violations


def test_dry_run_resolves_pod_topology_spread_failure() -> None:
    foo = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
    nodes = [
        sized_node(name, labels={"hostname": name, "zone": zone})
        for name, zone in (("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2"))
    ]
    pods = [
        prio_pod("pod-a1", "node-a", MID, labels={"foo": ""}),
        prio_pod("pod-a2", "node-a", LOW, labels={"foo": ""}),
        prio_pod("pod-b1", "node-b", LOW, labels={"foo": ""}),
        prio_pod("pod-x1", "node-x", HIGH, labels={"foo": ""}),
        prio_pod("pod-x2", "node-x", HIGH, labels={"foo": ""}),
    ]
    pod = (
        make_pod("p")
        .phase("Pending")
        .priority(HIGH)
        .labels(foo="")
        .spread(1, "zone", "DoNotSchedule", foo)
        .spread(1, "hostname", "DoNotSchedule", foo)
        .obj()
    )
    run = run_post_filter(pod, pods, nodes, plugins=("PodTopologySpread",))
    assert run.candidates == {"node-a": ["pod-a2"], "node-b": ["pod-b1"]}


def test_dry_run_stops_at_the_candidate_limit() -> None:
    # MinCandidateNodesPercentage 40 of 5 nodes: 2 candidates, taken from the first node on.
    pods = [prio_pod(f"p{i}", f"node{i}", MID, LARGE) for i in range(1, 6)]
    run = run_post_filter(
        prio_pod("p", priority=HIGH, req=LARGE),
        pods,
        [sized_node(f"node{i}") for i in range(1, 6)],
        args={"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1},
    )
    assert run.candidates == {"node1": ["p1"], "node2": ["p2"]}


@pytest.mark.parametrize(
    ("args", "nodes", "want"),
    [
        ({}, 5, 5),
        ({}, 1000, 100),
        ({}, 2000, 200),
        ({"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1}, 5, 2),
        ({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0}, 5, 0),
    ],
)
def test_num_candidates(args: dict[str, int], nodes: int, want: int) -> None:
    # Not validated: both zero is refused by the configuration, the arithmetic still holds.
    assert calculate_num_candidates(msgspec.convert(args, DefaultPreemptionArgs), nodes) == want


# ---------------------------------------------------------------------- TestSelectBestCandidate

SELECT_CASES = [
    pytest.param(
        ["node1", "node2", "node3"],
        [
            prio_pod("p1.1", "node1", MID, MEDIUM, start=epoch(0)),
            prio_pod("p1.2", "node1", MID, LARGE, start=epoch(0)),
            prio_pod("p2.1", "node2", MID, MEDIUM, start=epoch(0)),
            prio_pod("p2.2", "node2", LOW, MEDIUM, start=epoch(0)),
            prio_pod("p3.1", "node3", LOW, MEDIUM, start=epoch(0)),
            prio_pod("p3.2", "node3", LOW, MEDIUM, start=epoch(0)),
        ],
        "node3",
        id="node with min highest priority pod is picked",
    ),
    pytest.param(
        ["node1", "node2", "node3"],
        [
            prio_pod("p1.1", "node1", MID, MEDIUM, start=epoch(0)),
            prio_pod("p1.2", "node1", MID, LARGE, start=epoch(0)),
            prio_pod("p2.1", "node2", MID, LARGE, start=epoch(0)),
            prio_pod("p2.2", "node2", LOW, MEDIUM, start=epoch(0)),
            prio_pod("p3.1", "node3", MID, MEDIUM, start=epoch(0)),
            prio_pod("p3.2", "node3", MID, MEDIUM, start=epoch(0)),
        ],
        "node2",
        id="when highest priorities are the same, minimum sum of priorities is picked",
    ),
    pytest.param(
        ["node1", "node2", "node3"],
        [
            prio_pod("p1.1", "node1", MID, SMALL, start=epoch(0)),
            prio_pod("p1.2", "node1", NEG, SMALL, start=epoch(0)),
            prio_pod("p1.3", "node1", MID, SMALL, start=epoch(0)),
            prio_pod("p1.4", "node1", NEG, SMALL, start=epoch(0)),
            prio_pod("p2.1", "node2", MID, LARGE, start=epoch(0)),
            prio_pod("p2.2", "node2", NEG, MEDIUM, start=epoch(0)),
            prio_pod("p3.1", "node3", MID, MEDIUM, start=epoch(0)),
            prio_pod("p3.2", "node3", NEG, SMALL, start=epoch(0)),
            prio_pod("p3.3", "node3", LOW, SMALL, start=epoch(0)),
        ],
        "node2",
        id="when highest priority and sum are the same, minimum number of pods is picked",
    ),
    pytest.param(
        ["node1", "node2", "node3"],
        [
            prio_pod("p1.1", "node1", MID, SMALL, start=epoch(0)),
            prio_pod("p1.2", "node1", NEG, SMALL, start=epoch(0)),
            prio_pod("p1.3", "node1", NEG, SMALL, start=epoch(0)),
            prio_pod("p2.1", "node2", MID, LARGE, start=epoch(0)),
            prio_pod("p2.2", "node2", NEG, MEDIUM, start=epoch(0)),
            prio_pod("p3.1", "node3", MID, MEDIUM, start=epoch(0)),
            prio_pod("p3.2", "node3", NEG, SMALL, start=epoch(0)),
            prio_pod("p3.3", "node3", LOW, SMALL, start=epoch(0)),
        ],
        "node2",
        id="sum of adjusted priorities is considered",
    ),
    pytest.param(
        ["node1", "node2", "node3"],
        [
            prio_pod("p1.1", "node1", MID, MEDIUM, start=epoch(2)),
            prio_pod("p1.2", "node1", MID, MEDIUM, start=epoch(2)),
            prio_pod("p2.1", "node2", MID, MEDIUM, start=epoch(3)),
            prio_pod("p2.2", "node2", MID, MEDIUM, start=epoch(3)),
            prio_pod("p3.1", "node3", MID, MEDIUM, start=epoch(1)),
            prio_pod("p3.2", "node3", MID, MEDIUM, start=epoch(1)),
        ],
        "node2",
        id="same priority, same number of victims, different start time for each node's pod",
    ),
    pytest.param(
        ["node1", "node2", "node3"],
        [
            prio_pod("p1.1", "node1", MID, MEDIUM, start=epoch(4)),
            prio_pod("p1.2", "node1", MID, MEDIUM, start=epoch(2)),
            prio_pod("p2.1", "node2", MID, MEDIUM, start=epoch(5)),
            prio_pod("p2.2", "node2", MID, MEDIUM, start=epoch(1)),
            prio_pod("p3.1", "node3", MID, MEDIUM, start=epoch(3)),
            prio_pod("p3.2", "node3", MID, MEDIUM, start=epoch(6)),
        ],
        "node3",
        id="same priority, same number of victims, different start time for all pods",
    ),
    pytest.param(
        ["node1", "node2", "node3"],
        [
            prio_pod("p1.1", "node1", LOW, MEDIUM, start=epoch(4)),
            prio_pod("p1.2", "node1", MID, MEDIUM, start=epoch(2)),
            prio_pod("p2.1", "node2", MID, MEDIUM, start=epoch(6)),
            prio_pod("p2.2", "node2", LOW, MEDIUM, start=epoch(1)),
            prio_pod("p3.1", "node3", LOW, MEDIUM, start=epoch(3)),
            prio_pod("p3.2", "node3", MID, MEDIUM, start=epoch(5)),
        ],
        "node2",
        id="different priority, same number of victims, different start time for all pods",
    ),
]


@pytest.mark.parametrize(("node_names", "pods", "want"), SELECT_CASES)
def test_select_best_candidate(node_names: list[str], pods: list[o.Pod], want: str) -> None:
    run = run_post_filter(prio_pod("p", priority=HIGH, req=VERY_LARGE), pods, [sized_node(n) for n in node_names])
    assert run.result_node == want


def test_non_overlapping_criteria_pick_lowest_highest_priority() -> None:
    pods = [
        prio_pod("p1.1", "node1", MID, SMALL, start=epoch(0)),
        prio_pod("p1.2", "node1", LOW, SMALL, start=epoch(0)),
        prio_pod("p1.3", "node1", LOW, SMALL, start=epoch(0)),
        prio_pod("p2.1", "node2", HIGH, LARGE, start=epoch(0)),
        prio_pod("p3.1", "node3", MID, MEDIUM, start=epoch(0)),
        prio_pod("p3.2", "node3", LOW, SMALL, start=epoch(0)),
        prio_pod("p3.3", "node3", LOW, SMALL, start=epoch(0)),
        prio_pod("p3.4", "node3", LOW, MEDIUM, start=epoch(0)),
        prio_pod("p4.1", "node4", MID, MEDIUM, start=epoch(0)),
        prio_pod("p4.2", "node4", MID, SMALL, start=epoch(0)),
        prio_pod("p4.3", "node4", MID, SMALL, start=epoch(0)),
        prio_pod("p4.4", "node4", NEG, SMALL, start=epoch(0)),
    ]
    run = run_post_filter(
        prio_pod("p", priority=VERY_HIGH, req=VERY_LARGE), pods, [sized_node(f"node{i}") for i in range(1, 5)]
    )
    assert run.result_node == "node1"


def test_tied_candidates_go_to_the_first_node() -> None:
    # Upstream breaks the final tie by Go map order; podwhy takes the snapshot's node order.
    pods = [
        prio_pod("p1", "node1", MID, LARGE, start=epoch(0)),
        prio_pod("p2", "node2", MID, LARGE, start=epoch(0)),
    ]
    run = run_post_filter(prio_pod("p", priority=HIGH, req=LARGE), pods, [sized_node("node1"), sized_node("node2")])
    assert run.result_node == "node1"
    assert run.victims == ["p1"]


def test_pick_one_node_prefers_fewest_pdb_violations() -> None:
    low = PodInfo(prio_pod("low", "a", LOW))
    mid = PodInfo(prio_pod("mid", "b", MID))
    candidates = [Candidate("a", [low], 1), Candidate("b", [mid], 0)]
    assert pick_one_node_for_preemption(candidates) == "b"


def test_victims_without_start_time_count_as_newest() -> None:
    started = PodInfo(prio_pod("started", "a", MID, start=epoch(5)))
    unstarted = PodInfo(prio_pod("unstarted", "b", MID))
    candidates = [Candidate("a", [started], 0), Candidate("b", [unstarted], 0)]
    assert pick_one_node_for_preemption(candidates) == "b"


# ---------------------------------------------------------------------- PodEligibleToPreemptOthers

TERMINATING = [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}]

ELIGIBLE_CASES = [
    pytest.param(
        prio_pod("p", priority=HIGH, nominated="node1"),
        [prio_pod("p1", "node1", LOW, deleting=True, conditions=TERMINATING)],
        {"node1": U},
        "preemption: not eligible due to a terminating pod on the nominated node.",
        id="a terminating lower-priority victim on the nominated node",
    ),
    pytest.param(
        prio_pod("p", priority=HIGH, nominated="node1"),
        [prio_pod("p1", "node1", LOW, deleting=True, conditions=TERMINATING)],
        {"node1": UR},
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
        id="the nominated node is unresolvable: try again elsewhere",
    ),
    pytest.param(
        prio_pod("p", priority=HIGH, nominated="node1"),
        [prio_pod("p1", "node1", LOW, deleting=True)],
        {"node1": U},
        "preemption: 0/1 nodes are available: 1 Insufficient cpu.",
        id="terminating without the scheduler's DisruptionTarget condition",
    ),
    pytest.param(
        prio_pod("p", priority=HIGH, nominated="node1"),
        [prio_pod("p1", "node1", VERY_HIGH, deleting=True, conditions=TERMINATING)],
        {"node1": U},
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
        id="a terminating pod of higher priority does not count",
    ),
]


@pytest.mark.parametrize(("pod", "pods", "statuses", "want"), ELIGIBLE_CASES)
def test_pod_eligible_to_preempt_others(pod: o.Pod, pods: list[o.Pod], statuses: dict[str, Code], want: str) -> None:
    big = prio_pod(pod.metadata.name, priority=pod.spec.priority, req=("3", "1"), nominated="node1")
    run = run_post_filter(big, pods, [sized_node("node1", ("2", "1Gi"))], statuses)
    assert run.status.reasons == [want]


# ---------------------------------------------------------------------- helpers


def test_filter_pods_with_pdb_violation_keeps_order_and_names_budgets() -> None:
    pods = [PodInfo(prio_pod(n, "node1", LOW, labels={"app": "web"})) for n in ("a", "b", "c")]
    other_ns = make_pdb("elsewhere", {"app": "web"}, 0)
    other_ns.metadata.namespace = "other"
    violating, non_violating, broken = filter_pods_with_pdb_violation(
        pods, [Budget.of(make_pdb("web", {"app": "web"}, 1)), Budget.of(other_ns)]
    )
    assert [p.pod.metadata.name for p in violating] == ["b", "c"]
    assert [p.pod.metadata.name for p in non_violating] == ["a"]
    assert broken == {"default/b": ["default/web"], "default/c": ["default/web"]}


def test_fit_error_text_counts_absent_nodes() -> None:
    statuses = {"n1": Status(UR, ["No preemption victims found for incoming pod"])}
    assert fit_error_text(3, statuses, ["Preemption is not helpful for scheduling"]) == (
        "0/3 nodes are available: 1 No preemption victims found for incoming pod, "
        "2 Preemption is not helpful for scheduling."
    )


def test_engine_joins_post_filter_messages() -> None:
    snapshot = make_snapshot(sized_node("node1", ("1", "1Gi")), prio_pod("v", "node1", LOW, ("1", "1"), start=epoch(1)))
    exp = run_cycle(snapshot, prio_pod("p", priority=HIGH, req=("1", "1")))
    assert exp.message_complete
    assert exp.message == "0/1 nodes are available: 1 Insufficient cpu."
    assert exp.post_filter is not None and exp.post_filter.preemption is not None
    assert exp.post_filter.preemption.nominated_node == "node1"
    assert [v.key for v in exp.post_filter.preemption.victims] == ["default/v"]

    exp = run_cycle(snapshot, prio_pod("p", priority=LOW, req=("1", "1")))
    assert exp.message == (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    )


def test_engine_warns_when_a_dump_has_no_pdbs() -> None:
    snapshot = Snapshot(
        nodes=[sized_node("node1", ("1", "1Gi"))],
        pods=[prio_pod("v", "node1", LOW, ("1", "1"))],
        missing=dict.fromkeys(VOUCHED_KINDS, ""),
    )
    snapshot.kinds_seen = {"Node", "Pod"}
    exp = run_cycle(snapshot, prio_pod("p", priority=HIGH, req=("1", "1")))
    assert exp.post_filter is not None and exp.post_filter.pdbs_assumed_none
    # Said once: what the dry run assumed, and how to add them (not again in the lacking-kinds warning).
    (said,) = [w for w in build_report(exp, snapshot).warnings if "PodDisruptionBudgets" in w]
    assert "assumed none" in said and "kubectl get poddisruptionbudgets.policy -A -o yaml" in said


def test_no_pdb_warning_when_preemption_finds_no_candidate() -> None:
    # The victim has the pod's priority: no node is a candidate, so no budget could change the answer.
    snapshot = Snapshot(
        nodes=[sized_node("node1", ("1", "1Gi"))],
        pods=[prio_pod("v", "node1", HIGH, ("1", "1"))],
        missing=dict.fromkeys(VOUCHED_KINDS, ""),
    )
    snapshot.kinds_seen = {"Node", "Pod"}
    exp = run_cycle(snapshot, prio_pod("p", priority=HIGH, req=("1", "1")))
    assert exp.post_filter is not None and exp.post_filter.preemption is not None
    assert not exp.post_filter.preemption.candidates and not exp.post_filter.pdbs_assumed_none
    assert not [w for w in build_report(exp, snapshot).warnings if "PodDisruptionBudget" in w]


def test_engine_leaves_the_message_incomplete_when_a_post_filter_plugin_cannot_run() -> None:
    # A cluster-info dump has no ResourceClaims: the DynamicResources part of the message is unknown.
    snapshot = Snapshot(
        nodes=[sized_node("node1", ("1", "1Gi"))],
        pods=[prio_pod("v", "node1", LOW, ("1", "1"))],
        missing=dict.fromkeys(VOUCHED_KINDS, ""),
    )
    snapshot.kinds_seen = {"Node", "Pod"}
    pod = prio_pod("p", priority=LOW, req=("1", "1"))
    pod.spec.resource_claims = [o.PodResourceClaim(name="gpu", resource_claim_name="gpu-claim")]
    exp = run_cycle(snapshot, pod)
    assert not exp.message_complete
    assert exp.message == "0/1 nodes are available: 1 Insufficient cpu."
    assert any(w.startswith("PostFilter DynamicResources not evaluated") for w in build_report(exp, snapshot).warnings)
    assert exp.post_filter is not None and exp.post_filter.preemption is not None
    assert exp.post_filter.preemption.message.endswith("1 No preemption victims found for incoming pod.")
