"""PodTopologySpread PreScore/Score/NormalizeScore, after upstream's scoring_test.go tables."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pytest

from podwhy.framework.evidence import TopologySpreadScoreEvidence, TopologySpreadScoreTotalEvidence
from podwhy.framework.interface import CycleState
from podwhy.framework.status import Code
from podwhy.framework.types import PodInfo
from podwhy.model import objects as o
from podwhy.plugins.podtopologyspread import PodTopologySpread
from podwhy.plugins.podtopologyspread.scoring import (
    PRE_SCORE_STATE_KEY,
    PreScoreState,
    go_log,
    go_round,
    topology_normalizing_weight,
)
from tests.builders import PodBuilder, from_raw, make_handle, make_node, make_pod, node_info
from tests.plugin_args import with_args

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
BAR = {"matchExpressions": [{"key": "bar", "operator": "Exists"}]}
SOFT = "ScheduleAnyway"
UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
LIST = {"defaultingType": "List"}


# ------------------------------------------------------------------ builders


def default_constraint(max_skew: int, key: str, when: str = SOFT) -> dict[str, Any]:
    """A defaultConstraints entry of the plugin args (no label selector)."""
    return {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when}


def host(name: str, **labels: str) -> o.Node:
    """A node with make_node()'s kubernetes.io/hostname label and these."""
    return make_node(name).labels(labels).obj()


def keyed_node(name: str) -> o.Node:
    """A node whose "node" label, the per-node topology key of some tables, is its name."""
    return make_node(name).labels(node=name).obj()


def hostless_node(name: str, **labels: str) -> o.Node:
    """A node without the kubernetes.io/hostname label make_node() always sets."""
    return make_node(name, hostname_label=False).labels(labels).obj()


def rs_pod(labels: dict[str, str], rs: str = "rs1") -> PodBuilder:
    """A pod controlled by apps/v1 ReplicaSet `rs`."""
    return make_pod("p").labels(labels).owner("ReplicaSet", rs)


def pods_on(
    node: str, count: int, labels: dict[str, str] | None = None, namespace: str = "default", terminating: bool = False
) -> list[o.Pod]:
    """`count` pods on `node` labelled foo="" unless told otherwise."""
    pods = []
    for i in range(count):
        builder = make_pod(f"p-{node}-{i}", namespace).labels({"foo": ""} if labels is None else labels).node(node)
        pods.append((builder.terminating() if terminating else builder).obj())
    return pods


def replica_set(name: str, selector: dict[str, Any]) -> o.ReplicaSet:
    return from_raw(o.ReplicaSet, {"metadata": {"name": name, "namespace": "default"}, "spec": {"selector": selector}})


def service(selector: dict[str, str]) -> o.Service:
    return from_raw(o.Service, {"metadata": {"name": "svc", "namespace": "default"}, "spec": {"selector": selector}})


@dataclass
class Setup:
    nodes: list[o.Node]
    failed_nodes: list[o.Node] = field(default_factory=list)
    existing: list[o.Pod] = field(default_factory=list)
    args: dict[str, Any] | None = None
    services: list[o.Service] = field(default_factory=list)
    replica_sets: list[o.ReplicaSet] = field(default_factory=list)

    def plugin(self) -> PodTopologySpread:
        handle = make_handle(*self.nodes, *self.failed_nodes, *self.existing, *self.services, *self.replica_sets)
        return with_args(PodTopologySpread, handle, self.args)

    def pre_score(self, pod: o.Pod) -> tuple[PodTopologySpread, CycleState, Code]:
        plugin = self.plugin()
        state = CycleState()
        feasible = [node_info(plugin.handle, n.metadata.name) for n in self.nodes]
        status = plugin.pre_score(state, PodInfo(pod), feasible)
        return plugin, state, status.code

    def scores(self, pod: o.Pod) -> dict[str, int]:
        plugin, state, code = self.pre_score(pod)
        assert code == Code.Success
        pi = PodInfo(pod)
        scores: dict[str, int] = {}
        for node in self.nodes:
            value, status = plugin.score(state, pi, node_info(plugin.handle, node.metadata.name))
            assert status.is_success()
            scores[node.metadata.name] = value
        assert plugin.normalize_score(state, pi, scores).is_success()
        return scores


# ------------------------------------------------------------------ Go arithmetic


def test_go_log_matches_go_bit_for_bit() -> None:
    # Go's math.Log(3) is one ulp below the correctly rounded value libm gives.
    assert go_log(3.0) == 1.0986122886681096
    assert math.log(3.0) == 1.0986122886681098
    assert go_log(2.0) == math.log(2.0)
    assert topology_normalizing_weight(1) == go_log(3.0)


@pytest.mark.parametrize(
    ("value", "want"),
    [(0.5, 1), (1.5, 2), (2.5, 3), (-0.5, -1), (0.49999999999999994, 0), (7.4999, 7), (0.0, 0)],
)
def test_go_round_half_away_from_zero(value: float, want: int) -> None:
    assert go_round(value) == want


# ------------------------------------------------------------------ PreScore Skip

SKIP_CASES: list[tuple[str, Setup, o.Pod]] = [
    (
        "the pod doesn't have soft topology spread constraints",
        Setup([host("node-a"), host("node-b")], args=LIST),
        make_pod("p").obj(),
    ),
    (
        "only hard constraints",
        Setup([host("node-a")]),
        make_pod("p").labels(foo="").spread(1, HOSTNAME, selector=FOO).obj(),
    ),
    (
        "default constraints and a replicaset that doesn't match",
        Setup(
            [make_node("node-a").labels(planet="mars").obj()],
            args={
                "defaultingType": "List",
                "defaultConstraints": [default_constraint(2, "planet")],
            },
            replica_sets=[replica_set("rs1", {"matchExpressions": [{"key": "tar", "operator": "Exists"}]})],
        ),
        rs_pod({"foo": "bar", "baz": "sup"}, "rs2").obj(),
    ),
    (
        "system defaults and a pod no Service or controller selects: empty selector",
        Setup([host("node-a", **{ZONE: "z1"}), host("node-b", **{ZONE: "z2"})]),
        make_pod("p").labels(foo="").obj(),
    ),
    (
        "system defaults and a Service selecting other pods",
        Setup([host("node-a")], services=[service({"app": "other"})]),
        make_pod("p").labels(foo="").obj(),
    ),
    (
        "no nodes at all",
        Setup([]),
        make_pod("p").labels(foo="").spread(1, HOSTNAME, SOFT, FOO).obj(),
    ),
]


@pytest.mark.parametrize(("setup", "pod"), [c[1:] for c in SKIP_CASES], ids=[c[0] for c in SKIP_CASES])
def test_pre_score_skip(setup: Setup, pod: o.Pod) -> None:
    _, state, code = setup.pre_score(pod)
    assert code == Code.Skip
    assert state.get(PRE_SCORE_STATE_KEY) is None


def test_pre_score_bad_soft_selector_is_an_error() -> None:
    bad = {"matchExpressions": [{"key": "foo", "operator": "In"}]}
    _, _, code = Setup([host("node-a")]).pre_score(make_pod("p").spread(1, HOSTNAME, SOFT, bad).obj())
    assert code == Code.Error


def test_score_without_pre_score_state_is_an_error() -> None:
    setup = Setup([host("node-a")])
    plugin = setup.plugin()
    value, status = plugin.score(CycleState(), PodInfo(make_pod("p").obj()), plugin.handle.node_infos[0])
    assert (value, status.code) == (0, Code.Error)


# ------------------------------------------------------------------ PreScore state

ZONED = [
    host("node-a", zone="zone1"),
    host("node-b", zone="zone1"),
    host("node-x", zone="zone2"),
]
ZONED_FOO = [
    host("node-a", zone="zone1", foo=""),
    host("node-b", zone="zone1", foo=""),
    host("node-x", zone="zone2"),
]

# (name, setup, pod, ignored nodes, per-constraint domain counts, per-constraint domain sizes)
STATE_CASES: list[tuple[str, Setup, o.Pod, set[str], list[dict[str, int]], list[int]]] = [
    (
        "normal case",
        Setup(ZONED, args=LIST),
        make_pod("p").labels(foo="").spread(1, "zone", SOFT, FOO).spread(1, HOSTNAME, SOFT, FOO).obj(),
        set(),
        [{"zone1": 0, "zone2": 0}, {}],
        [2, 3],
    ),
    (
        "null selector",
        Setup(ZONED, args=LIST),
        make_pod("p").labels(foo="").spread(1, "zone", SOFT).obj(),
        set(),
        [{"zone1": 0, "zone2": 0}],
        [2],
    ),
    (
        "node-x doesn't have label zone",
        Setup([host("node-a", zone="zone1"), host("node-b", zone="zone1"), host("node-x")], args=LIST),
        make_pod("p").labels(foo="").spread(1, "zone", SOFT, FOO).spread(1, HOSTNAME, SOFT, BAR).obj(),
        {"node-x"},
        [{"zone1": 0}, {}],
        [1, 2],
    ),
    (
        "system default constraints and a replicaset: nodes with no zone form the '' zone",
        Setup(
            [host("node-a", **{ZONE: "mars"}), host("node-b", **{ZONE: "mars"}), host("node-c"), host("node-d")],
            replica_sets=[replica_set("rs1", FOO)],
        ),
        rs_pod({"foo": "tar", "baz": "sup"}).obj(),
        set(),
        [{}, {"mars": 0, "": 0}],
        [4, 2],
    ),
    (
        "default constraints and a replicaset",
        Setup(
            [make_node("node-a").labels(rack="rack1", planet="mars").obj()],
            args={
                "defaultingType": "List",
                "defaultConstraints": [
                    default_constraint(1, HOSTNAME),
                    default_constraint(2, "rack", "DoNotSchedule"),
                    default_constraint(2, "planet"),
                ],
            },
            replica_sets=[replica_set("rs1", FOO)],
        ),
        rs_pod({"foo": "tar", "baz": "sup"}).obj(),
        set(),
        [{}, {"mars": 0}],
        [1, 1],
    ),
    (
        "default constraints and a replicaset, but pod has constraints",
        Setup(
            [make_node("node-a").labels(planet="mars", galaxy="andromeda").obj()],
            args={"defaultingType": "List", "defaultConstraints": [default_constraint(2, "galaxy")]},
            replica_sets=[replica_set("rs1", FOO)],
        ),
        rs_pod({"foo": "bar", "baz": "sup"})
        .spread(1, "zone", selector=BAR)
        .spread(2, "planet", SOFT, {"matchLabels": {"baz": "sup"}})
        .obj(),
        set(),
        [{"mars": 0}],
        [1],
    ),
    (
        "NodeAffinityPolicy honored with labelSelectors: domains still come from the feasible nodes",
        Setup(ZONED_FOO, args=LIST),
        make_pod("p").labels(foo="").node_selector(foo="").spread(1, "zone", SOFT, BAR).obj(),
        set(),
        [{"zone1": 0, "zone2": 0}],
        [2],
    ),
    (
        "NodeAffinityPolicy honored with nodeAffinity",
        Setup(ZONED_FOO, args=LIST),
        make_pod("p").labels(foo="").node_affinity_in("foo", "").spread(1, "zone", SOFT, BAR).obj(),
        set(),
        [{"zone1": 0, "zone2": 0}],
        [2],
    ),
    (
        "NodeTaintsPolicy honored",
        Setup(
            [
                host("node-a", zone="zone1"),
                host("node-b", zone="zone1"),
                make_node("node-x").labels(zone="zone2").taint(UNSCHEDULABLE).obj(),
            ],
            args=LIST,
        ),
        make_pod("p").labels(foo="").spread(1, "zone", SOFT, BAR, nodeTaintsPolicy="Honor").obj(),
        set(),
        [{"zone1": 0, "zone2": 0}],
        [2],
    ),
]


@pytest.mark.parametrize(
    ("setup", "pod", "ignored", "counts", "sizes"), [c[1:] for c in STATE_CASES], ids=[c[0] for c in STATE_CASES]
)
def test_pre_score_state(
    setup: Setup, pod: o.Pod, ignored: set[str], counts: list[dict[str, int]], sizes: list[int]
) -> None:
    _, state, code = setup.pre_score(pod)
    assert code == Code.Success
    pre = state.get(PRE_SCORE_STATE_KEY)
    assert isinstance(pre, PreScoreState)
    assert pre.ignored_nodes == ignored
    assert pre.topology_value_to_pod_counts == counts
    assert pre.topology_sizes == sizes
    assert pre.topology_normalizing_weights == [topology_normalizing_weight(s) for s in sizes]


def test_pre_score_state_keeps_constraint_details() -> None:
    setup = Setup(
        [host("node-a", **{ZONE: "mars"})],
        replica_sets=[replica_set("rs1", FOO)],
    )
    _, state, _ = setup.pre_score(rs_pod({"foo": "tar"}).obj())
    pre = state.get(PRE_SCORE_STATE_KEY)
    assert isinstance(pre, PreScoreState)
    assert [(c.topology_key, c.max_skew, c.min_domains) for c in pre.constraints] == [(HOSTNAME, 3, 1), (ZONE, 5, 1)]
    assert all(c.selector.matches({"foo": "x"}) and not c.selector.matches({}) for c in pre.constraints)


# ------------------------------------------------------------------ scores

FOUR_HOSTS = [host("node-a"), host("node-b"), host("node-c"), host("node-d")]
FOUR_ZONED = [
    host("node-a", zone="zone1"),
    host("node-b", zone="zone1"),
    host("node-x", zone="zone2"),
    host("node-y", zone="zone2"),
]
SPREAD_4_3_2_1 = [*pods_on("node-a", 4), *pods_on("node-b", 3), *pods_on("node-c", 2), *pods_on("node-d", 1)]
SPREAD_2_1_0_3 = [*pods_on("node-a", 2), *pods_on("node-b", 1), *pods_on("node-d", 3)]
SPREAD_4_2_1_3 = [*pods_on("node-a", 4), *pods_on("node-b", 2), *pods_on("node-x", 1), *pods_on("node-y", 3)]
FOO_POD = make_pod("p").labels(foo="").spread(1, HOSTNAME, SOFT, FOO).obj()
FOO_BAR = {"foo": "", "bar": ""}
NODE_KEY_NODES = [
    make_node("node-a").labels(node="node-a", foo="").obj(),
    make_node("node-b").labels(node="node-b", foo="").obj(),
    keyed_node("node-c"),
]
NODE_KEY_PODS = [*pods_on("node-a", 2), *pods_on("node-b", 1), *pods_on("node-c", 1)]
TAINTED_NODE_KEY_NODES = [
    keyed_node("node-a"),
    keyed_node("node-b"),
    make_node("node-c").labels(node="node-c").taint(UNSCHEDULABLE).obj(),
]
MATCH_LABEL_KEYS_NODES = [
    host("node-a", zone="zone1"),
    host("node-b", zone="zone1"),
    host("node-c", zone="zone2"),
    host("node-d", zone="zone2"),
]

SCORE_CASES: list[tuple[str, Setup, o.Pod, dict[str, int]]] = [
    (
        "one constraint on node, no existing pods",
        Setup([host("node-a"), host("node-b")]),
        FOO_POD,
        {"node-a": 100, "node-b": 100},
    ),
    (
        "one constraint on node, only one node is candidate",
        Setup([host("node-a")], [host("node-b")], [*pods_on("node-a", 2), *pods_on("node-b", 1)]),
        FOO_POD,
        {"node-a": 100},
    ),
    (
        "one constraint on node, all nodes have the same number of matching pods",
        Setup([host("node-a"), host("node-b")], existing=[*pods_on("node-a", 1), *pods_on("node-b", 1)]),
        FOO_POD,
        {"node-a": 100, "node-b": 100},
    ),
    (
        "one constraint on node, all 4 nodes are candidates",
        Setup(FOUR_HOSTS, existing=SPREAD_2_1_0_3),
        FOO_POD,
        {"node-a": 20, "node-b": 60, "node-c": 100, "node-d": 0},
    ),
    (
        "one constraint on node, null selector",
        Setup(FOUR_HOSTS, existing=SPREAD_2_1_0_3),
        make_pod("p").labels(foo="").spread(1, HOSTNAME, SOFT).obj(),
        {"node-a": 100, "node-b": 100, "node-c": 100, "node-d": 100},
    ),
    (
        "one constraint on node, all 4 nodes are candidates, maxSkew=2",
        Setup(FOUR_HOSTS, existing=SPREAD_2_1_0_3),
        make_pod("p").labels(foo="").spread(2, HOSTNAME, SOFT, FOO).obj(),
        {"node-a": 33, "node-b": 66, "node-c": 100, "node-d": 16},
    ),
    (
        "one constraint on node, all 4 nodes are candidates, maxSkew=3",
        Setup(FOUR_HOSTS, existing=SPREAD_4_3_2_1),
        make_pod("p").labels(foo="").spread(3, HOSTNAME, SOFT, FOO).obj(),
        {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100},
    ),
    (
        "system defaulting, nodes don't have zone, pods match service",
        Setup(FOUR_HOSTS, existing=SPREAD_4_3_2_1, services=[service({"foo": ""})]),
        make_pod("p").labels(foo="").obj(),
        {"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100},
    ),
    (
        "one constraint on node, 3 out of 4 nodes are candidates",
        Setup([host("node-a"), host("node-b"), host("node-x")], [host("node-y")], SPREAD_4_2_1_3),
        FOO_POD,
        {"node-a": 33, "node-b": 83, "node-x": 100},
    ),
    (
        "one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
        Setup([host("node-a"), hostless_node("node-b", n="node-b"), host("node-x")], [host("node-y")], SPREAD_4_2_1_3),
        FOO_POD,
        {"node-a": 16, "node-b": 0, "node-x": 100},
    ),
    (
        "one constraint on zone, 3 out of 4 nodes are candidates",
        Setup(FOUR_ZONED[:3], FOUR_ZONED[3:], SPREAD_4_2_1_3),
        make_pod("p").labels(foo="").spread(1, "zone", SOFT, FOO).obj(),
        {"node-a": 75, "node-b": 75, "node-x": 100},
    ),
    (
        "two constraints on zone and node, 2 out of 4 nodes are candidates",
        Setup(
            [FOUR_ZONED[0], FOUR_ZONED[2]],
            [FOUR_ZONED[1], FOUR_ZONED[3]],
            [*pods_on("node-a", 2), *pods_on("node-b", 1), *pods_on("node-x", 2), *pods_on("node-y", 4)],
        ),
        make_pod("p").labels(foo="").spread(1, "zone", SOFT, FOO).spread(1, HOSTNAME, SOFT, FOO).obj(),
        {"node-a": 100, "node-x": 63},
    ),
    (
        "two constraints on zone, 2 out of 4 nodes are candidates",
        Setup(
            [make_node("node-a").labels(zone="zone1").obj(), make_node("node-x").labels(zone="zone2").obj()],
            [make_node("node-b").labels(zone="zone1").obj(), make_node("node-y").labels(zone="zone2").obj()],
            [
                *pods_on("node-a", 1, FOO_BAR),
                *pods_on("node-a", 1),
                *pods_on("node-b", 1, FOO_BAR),
                *pods_on("node-y", 2),
                *pods_on("node-y", 1, FOO_BAR),
            ],
        ),
        make_pod("p").labels(FOO_BAR).spread(1, "zone", SOFT, FOO).spread(1, "zone", SOFT, BAR).obj(),
        {"node-a": 85, "node-x": 100},
    ),
    (
        "two constraints on zone and node, with different labelSelectors",
        Setup(
            FOUR_ZONED,
            existing=[
                *pods_on("node-a", 1),
                *pods_on("node-b", 1, FOO_BAR),
                *pods_on("node-y", 1),
                *pods_on("node-y", 1, {"bar": ""}),
            ],
        ),
        make_pod("p").labels(FOO_BAR).spread(1, "zone", SOFT, FOO).spread(1, HOSTNAME, SOFT, BAR).obj(),
        {"node-a": 60, "node-b": 20, "node-x": 100, "node-y": 60},
    ),
    (
        "two constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
        Setup(
            FOUR_ZONED,
            existing=[*pods_on("node-b", 1, {"bar": ""}), *pods_on("node-x", 1), *pods_on("node-y", 1, FOO_BAR)],
        ),
        make_pod("p").labels(FOO_BAR).spread(1, "zone", SOFT, FOO).spread(1, HOSTNAME, SOFT, BAR).obj(),
        {"node-a": 100, "node-b": 60, "node-x": 40, "node-y": 0},
    ),
    (
        "two constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates",
        Setup(
            FOUR_ZONED[:3],
            FOUR_ZONED[3:],
            [
                *pods_on("node-a", 1),
                *pods_on("node-b", 1, FOO_BAR),
                *pods_on("node-y", 1),
                *pods_on("node-y", 1, {"bar": ""}),
            ],
        ),
        make_pod("p").labels(FOO_BAR).spread(1, "zone", SOFT, FOO).spread(1, HOSTNAME, SOFT, BAR).obj(),
        {"node-a": 50, "node-b": 25, "node-x": 100},
    ),
    (
        "existing pods in a different namespace do not count",
        Setup(
            [host("node-a"), host("node-b")],
            existing=[*pods_on("node-a", 1, namespace="ns1"), *pods_on("node-a", 1), *pods_on("node-b", 2)],
        ),
        FOO_POD,
        {"node-a": 100, "node-b": 33},
    ),
    (
        "terminating pods are excluded",
        Setup(
            [host("node-a"), host("node-b")],
            existing=[*pods_on("node-a", 1, terminating=True), *pods_on("node-b", 1)],
        ),
        FOO_POD,
        {"node-a": 100, "node-b": 0},
    ),
    (
        "minDomains has no effect when ScheduleAnyway",
        Setup(
            [keyed_node(n) for n in ("node-a", "node-b", "node-c")],
            existing=[*pods_on("node-a", 2), *pods_on("node-b", 2), *pods_on("node-c", 1)],
        ),
        make_pod("p").labels(foo="").spread(2, "node", SOFT, FOO, minDomains=10).obj(),
        {"node-a": 75, "node-b": 75, "node-c": 100},
    ),
    (
        "NodeAffinityPolicy honored with labelSelectors",
        Setup(NODE_KEY_NODES, existing=NODE_KEY_PODS),
        make_pod("p").labels(foo="").node_selector(foo="").spread(1, "node", SOFT, FOO).obj(),
        {"node-a": 0, "node-b": 33, "node-c": 100},
    ),
    (
        "NodeAffinityPolicy ignored with labelSelectors",
        Setup(NODE_KEY_NODES, existing=NODE_KEY_PODS),
        make_pod("p")
        .labels(foo="")
        .node_selector(foo="")
        .spread(1, "node", SOFT, FOO, nodeAffinityPolicy="Ignore")
        .obj(),
        {"node-a": 66, "node-b": 100, "node-c": 100},
    ),
    (
        "NodeAffinityPolicy honored with nodeAffinity",
        Setup(NODE_KEY_NODES, existing=NODE_KEY_PODS),
        make_pod("p").labels(foo="").node_affinity_in("foo", "").spread(1, "node", SOFT, FOO).obj(),
        {"node-a": 0, "node-b": 33, "node-c": 100},
    ),
    (
        "NodeAffinityPolicy ignored with nodeAffinity",
        Setup(NODE_KEY_NODES, existing=NODE_KEY_PODS),
        make_pod("p")
        .labels(foo="")
        .node_affinity_in("foo", "")
        .spread(1, "node", SOFT, FOO, nodeAffinityPolicy="Ignore")
        .obj(),
        {"node-a": 66, "node-b": 100, "node-c": 100},
    ),
    (
        "NodeTaintsPolicy honored",
        Setup(TAINTED_NODE_KEY_NODES, existing=NODE_KEY_PODS),
        make_pod("p").labels(foo="").spread(1, "node", SOFT, FOO, nodeTaintsPolicy="Honor").obj(),
        {"node-a": 0, "node-b": 33, "node-c": 100},
    ),
    (
        "NodeTaintsPolicy ignored",
        Setup(TAINTED_NODE_KEY_NODES, existing=NODE_KEY_PODS),
        make_pod("p").labels(foo="").spread(1, "node", SOFT, FOO).obj(),
        {"node-a": 66, "node-b": 100, "node-c": 100},
    ),
    (
        "NodeTaintsPolicy honored does not apply to hostname counts, made per node in Score",
        Setup(
            [host("node-a"), host("node-b"), make_node("node-c").taint(UNSCHEDULABLE).obj()],
            existing=[*pods_on("node-a", 2), *pods_on("node-b", 1), *pods_on("node-c", 1)],
        ),
        make_pod("p").labels(foo="").spread(1, HOSTNAME, SOFT, FOO, nodeTaintsPolicy="Honor").obj(),
        {"node-a": 66, "node-b": 100, "node-c": 100},
    ),
    (
        "matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
        Setup(
            MATCH_LABEL_KEYS_NODES,
            existing=[
                *pods_on("node-a", 1),
                *pods_on("node-b", 1, FOO_BAR),
                *pods_on("node-c", 1),
                *pods_on("node-c", 1, {"bar": ""}),
            ],
        ),
        make_pod("p")
        .labels(FOO_BAR)
        .spread(1, "zone", SOFT, {}, matchLabelKeys=["foo"])
        .spread(1, HOSTNAME, SOFT, {}, matchLabelKeys=["bar"])
        .obj(),
        {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100},
    ),
    (
        "matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
        Setup(
            MATCH_LABEL_KEYS_NODES,
            existing=[
                *pods_on("node-a", 1),
                *pods_on("node-b", 1, {"foo": "", "bar": "", "baz": ""}),
                *pods_on("node-c", 1),
                *pods_on("node-c", 1, {"bar": ""}),
                *pods_on("node-c", 1, {"bar": "", "baz": ""}),
            ],
        ),
        make_pod("p")
        .labels(foo="", bar="", baz="")
        .spread(1, "zone", SOFT, FOO)
        .spread(1, HOSTNAME, SOFT, BAR, matchLabelKeys=["baz"])
        .obj(),
        {"node-a": 60, "node-b": 20, "node-c": 60, "node-d": 100},
    ),
    (
        "system defaults: a zoneless node keeps hostname spreading and scores in the '' zone",
        # Raw 13/12/2 (see test_raw_scores_and_evidence), scaled as 100*(13+2-raw)/13.
        Setup(
            [host("node-a", **{ZONE: "z1"}), host("node-b", **{ZONE: "z1"}), host("node-c")],
            existing=[*pods_on("node-a", 2), *pods_on("node-b", 1)],
            replica_sets=[replica_set("rs1", FOO)],
        ),
        rs_pod({"foo": "tar"}).obj(),
        {"node-a": 15, "node-b": 23, "node-c": 100},
    ),
    (
        "every feasible node ignored: all scores 0",
        Setup([hostless_node("node-a", x="1"), hostless_node("node-b", x="2")], args=LIST),
        FOO_POD,
        {"node-a": 0, "node-b": 0},
    ),
]


@pytest.mark.parametrize(("setup", "pod", "want"), [c[1:] for c in SCORE_CASES], ids=[c[0] for c in SCORE_CASES])
def test_scores(setup: Setup, pod: o.Pod, want: dict[str, int]) -> None:
    assert setup.scores(pod) == want


def test_raw_scores_and_evidence() -> None:
    # System defaults: hostname maxSkew 3 over 3 feasible nodes, zone maxSkew 5 over domains {z1, ""}.
    setup = Setup(
        [host("node-a", **{ZONE: "z1"}), host("node-b", **{ZONE: "z1"}), host("node-c")],
        existing=[*pods_on("node-a", 2), *pods_on("node-b", 1)],
        replica_sets=[replica_set("rs1", FOO)],
    )
    pod = rs_pod({"foo": "tar"}).obj()
    plugin, state, _ = setup.pre_score(pod)
    host_weight, zone_weight = go_log(5.0), go_log(4.0)
    raw = {}
    for name in ("node-a", "node-b", "node-c"):
        value, status = plugin.score(state, PodInfo(pod), node_info(plugin.handle, name))
        raw[name] = value
        total = status.evidence[-1]
        assert isinstance(total, TopologySpreadScoreTotalEvidence) and total.raw == value
    assert raw == {
        "node-a": go_round(2 * host_weight + 2 + 3 * zone_weight + 4),
        "node-b": go_round(1 * host_weight + 2 + 3 * zone_weight + 4),
        # No zone label: only hostname spreading contributes.
        "node-c": go_round(0 * host_weight + 2),
    }
    _, status = plugin.score(state, PodInfo(pod), node_info(plugin.handle, "node-c"))
    zone_evidence = status.evidence[1]
    assert isinstance(zone_evidence, TopologySpreadScoreEvidence)
    assert zone_evidence.topology_key == ZONE
    assert zone_evidence.missing_label == ZONE


def test_ignored_node_evidence_names_missing_key() -> None:
    setup = Setup([host("node-a"), hostless_node("node-b", n="node-b")])
    pod = FOO_POD
    plugin, state, _ = setup.pre_score(pod)
    value, status = plugin.score(state, PodInfo(pod), node_info(plugin.handle, "node-b"))
    assert value == 0
    assert status.evidence == [TopologySpreadScoreEvidence(ignored=True, missing_labels=[HOSTNAME])]
