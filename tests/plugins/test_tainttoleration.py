"""TaintToleration Filter and Score, after the cases of upstream's taint_toleration_test.go.

Upstream: pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go at v1.33.13
(TestTaintTolerationFilter: nine cases, the reason naming the first untolerated taint), v1.35.6 and
v1.36.3 (the same file in both: those nine with one reason for all, five more with Gt/Lt
tolerations, TestTaintTolerationFilterWithFeatureGate, and two Gt/Lt cases in
TestTaintTolerationScore). Each case is named after upstream's and run under every release podwhy
emulates where upstream has it; the reason follows the release's `Emulation` data.

The Gt/Lt cases set feature.Features.EnableTaintTolerationComparisonOperators: the gate
(TaintTolerationComparisonOperators, alpha since v1.35) is off by default in every release podwhy
emulates, so podwhy's helper carries it as a constant; those cases turn it on (monkeypatch) where
upstream's do, under the releases that have the gate.

Skipped: TestIsSchedulableAfterNodeChange (6 cases) and Test_isSchedulableAfterPodTolerationChange
(4 cases) test the queueing hints that decide when the scheduling queue retries a pod after a node
or pod update; podwhy answers one scheduling cycle over a snapshot and has no queue or hints.
"""

from __future__ import annotations

from typing import Any

import pytest

from podwhy.features.emulation import EMULATED, V1_33, V1_35, V1_36, Emulation
from podwhy.framework.handle import Handle
from podwhy.framework.interface import MAX_NODE_SCORE, CycleState
from podwhy.framework.status import Code
from podwhy.framework.types import PodInfo
from podwhy.helpers import nodetaints as taints_helper
from podwhy.model import objects as o
from podwhy.plugins.tainttoleration import ERR_REASON_UNTOLERATED, TaintToleration
from tests.builders import make_node, make_pod, make_snapshot

Json = dict[str, Any]

ALL = list(EMULATED.values())
# The releases whose upstream test sets EnableTaintTolerationComparisonOperators (the gate is v1.35's).
WITH_COMPARISON_GATE = [V1_35, V1_36]
PREFER = "PreferNoSchedule"


def node_with_taints(name: str, *taints: Json) -> o.Node:
    """nodeWithTaints: a node with these taints ({key, value, effect})."""
    builder = make_node(name)
    for t in taints:
        builder.taint(t["key"], t.get("value", ""), t["effect"])
    return builder.obj()


def pod_with_tolerations(*tolerations: Json) -> o.Pod:
    """podWithTolerations("pod1", ...): the tolerations exactly as upstream's case writes them."""
    return make_pod("pod1").spec(tolerations=list(tolerations)).obj()


def taint(key: str, value: str, effect: str) -> Json:
    return {"key": key, "value": value, "effect": effect}


def tol(key: str, value: str = "", effect: str = "", operator: str = "") -> Json:
    out: Json = {"key": key}
    if operator:
        out["operator"] = operator
    if value:
        out["value"] = value
    if effect:
        out["effect"] = effect
    return out


def reason(emulation: Emulation, untolerated: Json) -> str:
    """The Filter's reason in that release: v1.33 names the first untolerated taint."""
    if emulation.taint_toleration_names_taint:
        return f"node(s) had untolerated taint {{{untolerated['key']}: {untolerated['value']}}}"
    return ERR_REASON_UNTOLERATED


@pytest.fixture
def comparison_operators(monkeypatch: pytest.MonkeyPatch) -> None:
    """EnableTaintTolerationComparisonOperators: true, as the Gt/Lt cases set it."""
    monkeypatch.setattr(taints_helper, "ENABLE_COMPARISON_OPERATORS", True)


def run_filter(emulation: Emulation, pod: o.Pod, node: o.Node) -> tuple[Code, list[str]]:
    handle = Handle(make_snapshot(node), emulation=emulation)
    plugin = TaintToleration(handle)
    status = plugin.filter(CycleState(), PodInfo(pod), handle.node_info_by_name[node.metadata.name])
    return status.code, status.reasons


# ------------------------------------------------------------------ TestTaintTolerationFilter

DEDICATED_USER1 = taint("dedicated", "user1", "NoSchedule")
FOO_BAR = taint("foo", "bar", "NoSchedule")

# (upstream name, pod, node, the taint the pod does not tolerate or None when it fits)
FILTER_CASES: list[tuple[str, o.Pod, o.Node, Json | None]] = [
    (
        "A pod having no tolerations can't be scheduled onto a node with nonempty taints",
        pod_with_tolerations(),
        node_with_taints("nodeA", DEDICATED_USER1),
        DEDICATED_USER1,
    ),
    (
        "A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
        pod_with_tolerations(tol("dedicated", "user1", "NoSchedule")),
        node_with_taints("nodeA", DEDICATED_USER1),
        None,
    ),
    (
        "A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
        pod_with_tolerations(tol("dedicated", "user2", "NoSchedule", "Equal")),
        node_with_taints("nodeA", DEDICATED_USER1),
        DEDICATED_USER1,
    ),
    (
        "A pod can be scheduled onto the node, with a toleration uses operator Exists that tolerates the taints on "
        "the node",
        pod_with_tolerations(tol("foo", effect="NoSchedule", operator="Exists")),
        node_with_taints("nodeA", FOO_BAR),
        None,
    ),
    (
        "A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, pod can be "
        "scheduled onto the node",
        pod_with_tolerations(
            tol("dedicated", "user2", "NoSchedule", "Equal"), tol("foo", effect="NoSchedule", operator="Exists")
        ),
        node_with_taints("nodeA", taint("dedicated", "user2", "NoSchedule"), FOO_BAR),
        None,
    ),
    (
        "A pod has a toleration that keys and values match the taint on the node, but (non-empty) effect doesn't "
        "match, can't be scheduled onto the node",
        pod_with_tolerations(tol("foo", "bar", PREFER, "Equal")),
        node_with_taints("nodeA", FOO_BAR),
        FOO_BAR,
    ),
    (
        "The pod has a toleration that keys and values match the taint on the node, the effect of toleration is "
        "empty, and the effect of taint is NoSchedule. Pod can be scheduled onto the node",
        pod_with_tolerations(tol("foo", "bar", operator="Equal")),
        node_with_taints("nodeA", FOO_BAR),
        None,
    ),
    (
        "The pod has a toleration that key and value don't match the taint on the node, but the effect of taint on "
        "node is PreferNoSchedule. Pod can be scheduled onto the node",
        pod_with_tolerations(tol("dedicated", "user2", "NoSchedule", "Equal")),
        node_with_taints("nodeA", taint("dedicated", "user1", PREFER)),
        None,
    ),
    (
        "The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be scheduled onto "
        "the node",
        pod_with_tolerations(),
        node_with_taints("nodeA", taint("dedicated", "user1", PREFER)),
        None,
    ),
]


@pytest.mark.parametrize("emulation", [pytest.param(e, id=e.name) for e in ALL])
@pytest.mark.parametrize(("pod", "node", "untolerated"), [pytest.param(*c[1:], id=c[0]) for c in FILTER_CASES])
def test_filter(emulation: Emulation, pod: o.Pod, node: o.Node, untolerated: Json | None) -> None:
    code, reasons = run_filter(emulation, pod, node)
    if untolerated is None:
        assert (code, reasons) == (Code.Success, [])
    else:
        assert (code, reasons) == (Code.UnschedulableAndUnresolvable, [reason(emulation, untolerated)])


def test_v1_33_names_the_first_untolerated_taint() -> None:
    """v1.33.13's expected statuses, word for word."""
    no_tolerations = pod_with_tolerations()
    assert run_filter(V1_33, no_tolerations, node_with_taints("nodeA", DEDICATED_USER1))[1] == [
        "node(s) had untolerated taint {dedicated: user1}"
    ]
    wrong_effect = pod_with_tolerations(tol("foo", "bar", PREFER, "Equal"))
    assert run_filter(V1_33, wrong_effect, node_with_taints("nodeA", FOO_BAR))[1] == [
        "node(s) had untolerated taint {foo: bar}"
    ]


# The Gt/Lt cases of TestTaintTolerationFilter (v1.35 on), each with the gate on:
# (upstream name, pod, node, fits)
COMPARISON_FILTER_CASES: list[tuple[str, o.Pod, o.Node, bool]] = [
    (
        "Pod with Gt toleration cannot be scheduled on node when taint value is lower than threshold",
        pod_with_tolerations(tol("node.example.com/priority-level", "950", "NoSchedule", "Gt")),
        node_with_taints("nodeA", taint("node.example.com/priority-level", "800", "NoSchedule")),
        False,
    ),
    (
        "Pod with Gt toleration can be scheduled on node when taint value is higher than threshold",
        pod_with_tolerations(tol("node.kubernetes.io/sla", "750", "NoSchedule", "Gt")),
        node_with_taints("nodeA", taint("node.kubernetes.io/sla", "950", "NoSchedule")),
        True,
    ),
    (
        "Pod with Lt toleration cannot be scheduled on node when taint value is higher than threshold",
        pod_with_tolerations(tol("node.example.com/priority-level", "800", "NoSchedule", "Lt")),
        node_with_taints("nodeA", taint("node.example.com/priority-level", "950", "NoSchedule")),
        False,
    ),
    (
        "Pod with Lt toleration can be scheduled on node when taint value is lower than threshold",
        pod_with_tolerations(tol("node.kubernetes.io/sla", "950", "NoSchedule", "Lt")),
        node_with_taints("nodeA", taint("node.kubernetes.io/sla", "800", "NoSchedule")),
        True,
    ),
    (
        "Pod with Gt toleration cannot be scheduled on node with non-numeric taint value",
        pod_with_tolerations(tol("node.kubernetes.io/sla", "950", "NoSchedule", "Gt")),
        node_with_taints("nodeA", taint("node.kubernetes.io/sla", "high", "NoSchedule")),
        False,
    ),
]


@pytest.mark.usefixtures("comparison_operators")
@pytest.mark.parametrize("emulation", [pytest.param(e, id=e.name) for e in WITH_COMPARISON_GATE])
@pytest.mark.parametrize(("pod", "node", "fits"), [pytest.param(*c[1:], id=c[0]) for c in COMPARISON_FILTER_CASES])
def test_filter_comparison_operators(emulation: Emulation, pod: o.Pod, node: o.Node, fits: bool) -> None:
    want = (Code.Success, []) if fits else (Code.UnschedulableAndUnresolvable, [ERR_REASON_UNTOLERATED])
    assert run_filter(emulation, pod, node) == want


# ------------------------------------------------------------------ TestTaintTolerationFilterWithFeatureGate

SLA_950 = taint("node.kubernetes.io/sla", "950", "NoSchedule")
SLA_800 = taint("node.kubernetes.io/sla", "800", "NoSchedule")

# (upstream name, pod, node, gate on, fits)
FEATURE_GATE_CASES: list[tuple[str, o.Pod, o.Node, bool, bool]] = [
    (
        "Pod with Gt toleration can be scheduled when feature gate is enabled and taint value is higher",
        pod_with_tolerations(tol("node.kubernetes.io/sla", "750", "NoSchedule", "Gt")),
        node_with_taints("nodeA", SLA_950),
        True,
        True,
    ),
    (
        "Pod with Gt toleration cannot be scheduled when feature gate is disabled",
        pod_with_tolerations(tol("node.kubernetes.io/sla", "750", "NoSchedule", "Gt")),
        node_with_taints("nodeA", SLA_950),
        False,
        False,
    ),
    (
        "Pod with Lt toleration can be scheduled when feature gate is enabled and taint value is lower",
        pod_with_tolerations(tol("node.kubernetes.io/sla", "950", "NoSchedule", "Lt")),
        node_with_taints("nodeA", SLA_800),
        True,
        True,
    ),
    (
        "Pod with Lt toleration cannot be scheduled when feature gate is disabled",
        pod_with_tolerations(tol("node.kubernetes.io/sla", "950", "NoSchedule", "Lt")),
        node_with_taints("nodeA", SLA_800),
        False,
        False,
    ),
    (
        "Pod with mixed tolerations (Equal and Gt) when feature gate is disabled - only Equal is honored",
        pod_with_tolerations(
            tol("dedicated", "user1", "NoSchedule", "Equal"), tol("node.kubernetes.io/sla", "750", "NoSchedule", "Gt")
        ),
        node_with_taints("nodeA", DEDICATED_USER1),
        False,
        True,
    ),
    (
        "Pod with mixed tolerations, Gt toleration needed but filtered out when feature gate is disabled",
        pod_with_tolerations(
            tol("dedicated", "user1", "NoSchedule", "Equal"), tol("node.kubernetes.io/sla", "750", "NoSchedule", "Gt")
        ),
        node_with_taints("nodeA", DEDICATED_USER1, SLA_950),
        False,
        False,
    ),
]


@pytest.mark.parametrize("emulation", [pytest.param(e, id=e.name) for e in WITH_COMPARISON_GATE])
@pytest.mark.parametrize(("pod", "node", "gate", "fits"), [pytest.param(*c[1:], id=c[0]) for c in FEATURE_GATE_CASES])
def test_filter_with_feature_gate(
    monkeypatch: pytest.MonkeyPatch, emulation: Emulation, pod: o.Pod, node: o.Node, gate: bool, fits: bool
) -> None:
    monkeypatch.setattr(taints_helper, "ENABLE_COMPARISON_OPERATORS", gate)
    want = (Code.Success, []) if fits else (Code.UnschedulableAndUnresolvable, [ERR_REASON_UNTOLERATED])
    assert run_filter(emulation, pod, node) == want


def test_comparison_gate_is_off_by_default_in_every_release() -> None:
    """The feature-gate-disabled cases are what podwhy does unpatched: the gate's default."""
    assert taints_helper.ENABLE_COMPARISON_OPERATORS is False
    assert all(not e.gates.get("TaintTolerationComparisonOperators", False) for e in ALL)


# ------------------------------------------------------------------ TestTaintTolerationScore

# (upstream name, pod, nodes, expected normalized score per node)
SCORE_CASES: list[tuple[str, o.Pod, list[o.Node], dict[str, int]]] = [
    (
        "node with taints tolerated by the pod, gets a higher score than those node with intolerable taints",
        pod_with_tolerations(tol("foo", "bar", PREFER, "Equal")),
        [
            node_with_taints("nodeA", taint("foo", "bar", PREFER)),
            node_with_taints("nodeB", taint("foo", "blah", PREFER)),
        ],
        {"nodeA": MAX_NODE_SCORE, "nodeB": 0},
    ),
    (
        "the nodes that all of their taints are tolerated by the pod, get the same score, no matter how many "
        "tolerable taints a node has",
        pod_with_tolerations(tol("cpu-type", "arm64", PREFER, "Equal"), tol("disk-type", "ssd", PREFER, "Equal")),
        [
            node_with_taints("nodeA"),
            node_with_taints("nodeB", taint("cpu-type", "arm64", PREFER)),
            node_with_taints("nodeC", taint("cpu-type", "arm64", PREFER), taint("disk-type", "ssd", PREFER)),
        ],
        {"nodeA": MAX_NODE_SCORE, "nodeB": MAX_NODE_SCORE, "nodeC": MAX_NODE_SCORE},
    ),
    (
        "the more intolerable taints a node has, the lower score it gets.",
        pod_with_tolerations(tol("foo", "bar", PREFER, "Equal")),
        [
            node_with_taints("nodeA"),
            node_with_taints("nodeB", taint("cpu-type", "arm64", PREFER)),
            node_with_taints("nodeC", taint("cpu-type", "arm64", PREFER), taint("disk-type", "ssd", PREFER)),
        ],
        {"nodeA": MAX_NODE_SCORE, "nodeB": 50, "nodeC": 0},
    ),
    (
        "only taints and tolerations that have effect PreferNoSchedule are checked by taints-tolerations priority "
        "function",
        pod_with_tolerations(
            tol("cpu-type", "arm64", "NoSchedule", "Equal"), tol("disk-type", "ssd", "NoSchedule", "Equal")
        ),
        [
            node_with_taints("nodeA"),
            node_with_taints("nodeB", taint("cpu-type", "arm64", "NoSchedule")),
            node_with_taints("nodeC", taint("cpu-type", "arm64", PREFER), taint("disk-type", "ssd", PREFER)),
        ],
        {"nodeA": MAX_NODE_SCORE, "nodeB": MAX_NODE_SCORE, "nodeC": 0},
    ),
    (
        "Default behaviour No taints and tolerations, lands on node with no taints",
        pod_with_tolerations(),
        [node_with_taints("nodeA"), node_with_taints("nodeB", taint("cpu-type", "arm64", PREFER))],
        {"nodeA": MAX_NODE_SCORE, "nodeB": 0},
    ),
]

# The Gt/Lt cases of TestTaintTolerationScore (v1.35 on), with the gate on.
COMPARISON_SCORE_CASES: list[tuple[str, o.Pod, list[o.Node], dict[str, int]]] = [
    (
        "Numeric Gt operator: pod with Gt toleration prefers nodes with matching SLA taint",
        pod_with_tolerations(tol("node.kubernetes.io/sla", "950", PREFER, "Gt")),
        [
            node_with_taints("nodeA", taint("node.kubernetes.io/sla", "800", PREFER)),
            node_with_taints("nodeB", taint("node.kubernetes.io/sla", "999", PREFER)),
        ],
        {"nodeA": 0, "nodeB": MAX_NODE_SCORE},
    ),
    (
        "Numeric Lt operator: pod with Lt toleration prefers nodes with matching SLA taint",
        pod_with_tolerations(tol("node.kubernetes.io/sla", "800", PREFER, "Lt")),
        [
            node_with_taints("nodeA", taint("node.kubernetes.io/sla", "950", PREFER)),
            node_with_taints("nodeB", taint("node.kubernetes.io/sla", "700", PREFER)),
        ],
        {"nodeA": 0, "nodeB": MAX_NODE_SCORE},
    ),
]


def run_score(emulation: Emulation, pod: o.Pod, nodes: list[o.Node]) -> dict[str, int]:
    """PreScore, Score on every node, NormalizeScore, each required to succeed (as upstream's test)."""
    handle = Handle(make_snapshot(*nodes), emulation=emulation)
    plugin = TaintToleration(handle)
    state = CycleState()
    pod_info = PodInfo(pod)
    assert plugin.pre_score(state, pod_info, handle.node_infos).is_success()
    scores: dict[str, int] = {}
    for ni in handle.node_infos:
        value, status = plugin.score(state, pod_info, ni)
        assert status.is_success(), status
        scores[ni.name] = value
    assert plugin.normalize_score(state, pod_info, scores).is_success()
    return scores


@pytest.mark.parametrize("emulation", [pytest.param(e, id=e.name) for e in ALL])
@pytest.mark.parametrize(("pod", "nodes", "expected"), [pytest.param(*c[1:], id=c[0]) for c in SCORE_CASES])
def test_score(emulation: Emulation, pod: o.Pod, nodes: list[o.Node], expected: dict[str, int]) -> None:
    assert run_score(emulation, pod, nodes) == expected


@pytest.mark.usefixtures("comparison_operators")
@pytest.mark.parametrize("emulation", [pytest.param(e, id=e.name) for e in WITH_COMPARISON_GATE])
@pytest.mark.parametrize(("pod", "nodes", "expected"), [pytest.param(*c[1:], id=c[0]) for c in COMPARISON_SCORE_CASES])
def test_score_comparison_operators(
    emulation: Emulation, pod: o.Pod, nodes: list[o.Node], expected: dict[str, int]
) -> None:
    assert run_score(emulation, pod, nodes) == expected
