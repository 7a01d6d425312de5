"""PodTopologySpread PreFilter/Filter/AddPod/RemovePod, after upstream's filtering_test.go tables."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from podwhy.framework.evidence import TopologySpreadEvidence
from podwhy.framework.handle import Handle
from podwhy.framework.interface import CycleState
from podwhy.framework.status import Code
from podwhy.framework.types import PodInfo
from podwhy.model import objects as o
from podwhy.plugins.podtopologyspread import PodTopologySpread
from podwhy.plugins.podtopologyspread.filtering import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    MAX_INT32,
    PRE_FILTER_STATE_KEY,
    CriticalPaths,
    PreFilterState,
)
from tests.builders import from_raw, make_handle, make_node, make_pod
from tests.plugin_args import with_args

S, U, UU = Code.Success, Code.Unschedulable, Code.UnschedulableAndUnresolvable

FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
BAR = {"matchExpressions": [{"key": "bar", "operator": "Exists"}]}
UNSCHEDULABLE = "node.kubernetes.io/unschedulable"


# ------------------------------------------------------------------ builders


def keyed_node(name: str, **labels: str) -> o.Node:
    """A node whose "node" label, the per-node topology key of these tables, is its name."""
    return make_node(name).labels(labels, node=name).obj()


def zone_node(name: str, zone: str, **extra: str) -> o.Node:
    return keyed_node(name, zone=zone, **extra)


def foo_pod(name: str, node: str, labels: dict[str, str] | None = None, namespace: str = "default") -> o.Pod:
    """An existing pod on `node`, labelled foo="" unless told otherwise."""
    return make_pod(name, namespace).labels({"foo": ""} if labels is None else labels).node(node).obj()


FOUR_NODES = [
    zone_node("node-a", "zone1"),
    zone_node("node-b", "zone1"),
    zone_node("node-x", "zone2"),
    zone_node("node-y", "zone2"),
]


def node_affinity(key: str, operator: str, values: list[str]) -> dict[str, Any]:
    term = {"matchExpressions": [{"key": key, "operator": operator, "values": values}]}
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}


def service(selector: dict[str, str], namespace: str = "default") -> o.Service:
    return from_raw(o.Service, {"metadata": {"name": "svc", "namespace": namespace}, "spec": {"selector": selector}})


def setup(
    nodes: list[o.Node],
    existing: list[o.Pod],
    *objects: msgspec.Struct,
    args: dict[str, Any] | None = None,
) -> tuple[PodTopologySpread, Handle]:
    handle = make_handle(*nodes, *existing, *objects)
    return with_args(PodTopologySpread, handle, args if args is not None else {"defaultingType": "List"}), handle


def run_pre_filter(plugin: PodTopologySpread, handle: Handle, pod: o.Pod) -> tuple[CycleState, Code]:
    state = CycleState()
    _, status = plugin.pre_filter(state, PodInfo(pod), handle.node_infos)
    return state, status.code


def counts_and_min(state: CycleState) -> tuple[list[dict[str, int]], list[int]]:
    pre: PreFilterState = state.read(PRE_FILTER_STATE_KEY)
    return pre.tp_value_to_match_num, [paths.paths[0][1] for paths in pre.critical_paths]


# ------------------------------------------------------------------ PreFilter state


PRE_FILTER_CASES: list[tuple[str, o.Pod, list[o.Node], list[o.Pod], list[dict[str, int]]]] = [
    (
        "clean cluster with one spreadConstraint",
        make_pod("p").labels(foo="").spread(5, "zone", selector={"matchLabels": {"foo": "bar"}}).obj(),
        FOUR_NODES,
        [],
        [{"zone1": 0, "zone2": 0}],
    ),
    (
        "normal case with one spreadConstraint",
        make_pod("p").labels(foo="").spread(1, "zone", selector=FOO).obj(),
        FOUR_NODES,
        [
            foo_pod("p-a1", "node-a"),
            foo_pod("p-a2", "node-a"),
            foo_pod("p-b1", "node-b"),
            foo_pod("p-y1", "node-y"),
            foo_pod("p-y2", "node-y"),
        ],
        [{"zone1": 3, "zone2": 2}],
    ),
    (
        "normal case with null label selector",
        make_pod("p").labels(foo="").spread(1, "zone").obj(),
        FOUR_NODES,
        [foo_pod("p-a1", "node-a"), foo_pod("p-y1", "node-y")],
        [{"zone1": 0, "zone2": 0}],
    ),
    (
        "namespace mismatch doesn't count",
        make_pod("p").labels(foo="").spread(1, "zone", selector=FOO).obj(),
        FOUR_NODES,
        [
            foo_pod("p-a1", "node-a"),
            foo_pod("p-a2", "node-a", namespace="ns1"),
            foo_pod("p-b1", "node-b"),
            foo_pod("p-y1", "node-y", namespace="ns2"),
            foo_pod("p-y2", "node-y"),
        ],
        [{"zone1": 2, "zone2": 1}],
    ),
    (
        "soft spreadConstraints should be bypassed",
        make_pod("p")
        .labels(foo="")
        .spread(1, "zone", "ScheduleAnyway", FOO)
        .spread(1, "zone", selector=FOO)
        .spread(1, "node", "ScheduleAnyway", FOO)
        .spread(1, "node", selector=FOO)
        .obj(),
        [zone_node("node-a", "zone1"), zone_node("node-b", "zone1"), zone_node("node-y", "zone2")],
        [
            foo_pod("p-a1", "node-a"),
            foo_pod("p-a2", "node-a"),
            foo_pod("p-b1", "node-b"),
            foo_pod("p-y1", "node-y"),
            foo_pod("p-y2", "node-y"),
            foo_pod("p-y3", "node-y"),
            foo_pod("p-y4", "node-y"),
        ],
        [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}],
    ),
    (
        "two spreadConstraints, and with podAffinity excluding node-x",
        make_pod("p")
        .labels(foo="")
        .affinity(node_affinity("node", "NotIn", ["node-x"]))
        .spread(1, "zone", selector=FOO)
        .spread(1, "node", selector=FOO)
        .obj(),
        FOUR_NODES,
        [
            foo_pod("p-a1", "node-a"),
            foo_pod("p-a2", "node-a"),
            foo_pod("p-b1", "node-b"),
            foo_pod("p-y1", "node-y"),
            foo_pod("p-y2", "node-y"),
            foo_pod("p-y3", "node-y"),
            foo_pod("p-y4", "node-y"),
        ],
        [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}],
    ),
    (
        "NodeAffinityPolicy ignored with labelSelectors",
        make_pod("p")
        .labels(foo="")
        .node_selector(foo="")
        .spread(1, "node", selector=BAR, nodeAffinityPolicy="Ignore")
        .obj(),
        [
            keyed_node("node-a", foo=""),
            keyed_node("node-b", foo=""),
            keyed_node("node-c", bar=""),
        ],
        [
            foo_pod("p-a", "node-a", labels={"bar": ""}),
            foo_pod("p-b", "node-b", labels={"bar": ""}),
            foo_pod("p-c", "node-b", labels={"bar": ""}),
            foo_pod("p-d", "node-c", labels={}),
        ],
        [{"node-a": 1, "node-b": 2, "node-c": 0}],
    ),
    (
        "NodeAffinityPolicy honored (default) with nodeSelector",
        make_pod("p").labels(foo="").node_selector(foo="").spread(1, "node", selector=BAR).obj(),
        [
            keyed_node("node-a", foo=""),
            keyed_node("node-b", foo=""),
            keyed_node("node-c", bar=""),
        ],
        [
            foo_pod("p-a", "node-a", labels={"bar": ""}),
            foo_pod("p-b", "node-b", labels={"bar": ""}),
            foo_pod("p-c", "node-b", labels={"bar": ""}),
            foo_pod("p-d", "node-c", labels={}),
        ],
        [{"node-a": 1, "node-b": 2}],
    ),
    (
        "NodeTaintsPolicy ignored (default)",
        make_pod("p").labels(foo="").spread(1, "node", selector=BAR).obj(),
        [
            keyed_node("node-a"),
            keyed_node("node-b"),
            make_node("node-c").labels(node="node-c", bar="").taint(UNSCHEDULABLE).obj(),
        ],
        [
            foo_pod("p-a", "node-a", labels={"bar": ""}),
            foo_pod("p-b", "node-b", labels={"bar": ""}),
            foo_pod("p-c", "node-b", labels={"bar": ""}),
            foo_pod("p-d", "node-c", labels={}),
        ],
        [{"node-a": 1, "node-b": 2, "node-c": 0}],
    ),
    (
        "NodeTaintsPolicy honored",
        make_pod("p").labels(foo="").spread(1, "node", selector=BAR, nodeTaintsPolicy="Honor").obj(),
        [
            keyed_node("node-a"),
            keyed_node("node-b"),
            make_node("node-c").labels(node="node-c", bar="").taint(UNSCHEDULABLE).obj(),
        ],
        [
            foo_pod("p-a", "node-a", labels={"bar": ""}),
            foo_pod("p-b", "node-b", labels={"bar": ""}),
            foo_pod("p-c", "node-b", labels={"bar": ""}),
            foo_pod("p-d", "node-c", labels={}),
        ],
        [{"node-a": 1, "node-b": 2}],
    ),
    (
        "NodeTaintsPolicy honored with tolerated taints",
        make_pod("p")
        .labels(foo="")
        .toleration(UNSCHEDULABLE, "Exists")
        .spread(1, "node", selector=BAR, nodeTaintsPolicy="Honor")
        .obj(),
        [
            keyed_node("node-a"),
            keyed_node("node-b"),
            make_node("node-c").labels(node="node-c", bar="").taint(UNSCHEDULABLE).obj(),
        ],
        [
            foo_pod("p-a", "node-a", labels={"bar": ""}),
            foo_pod("p-b", "node-b", labels={"bar": ""}),
            foo_pod("p-c", "node-b", labels={"bar": ""}),
            foo_pod("p-d", "node-c", labels={}),
        ],
        [{"node-a": 1, "node-b": 2, "node-c": 0}],
    ),
    (
        "two node inclusion constraints: a node skipped by one constraint still counts for the other",
        make_pod("p")
        .labels(foo="")
        .node_selector(foo="")
        .spread(1, "zone", selector=FOO)
        .spread(1, "node", selector=FOO, nodeAffinityPolicy="Ignore")
        .obj(),
        [zone_node("node-a", "zone1", foo=""), zone_node("node-b", "zone1"), zone_node("node-x", "zone2", foo="")],
        [foo_pod("p-b1", "node-b"), foo_pod("p-b2", "node-b"), foo_pod("p-x1", "node-x")],
        [{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}],
    ),
    (
        "matchLabelKeys ANDed with a non-empty labelSelector",
        make_pod("p").labels(foo="", bar="a").spread(1, "zone", selector=FOO, matchLabelKeys=["bar"]).obj(),
        FOUR_NODES,
        [
            foo_pod("p-a1", "node-a"),
            foo_pod("p-a2", "node-a", labels={"foo": "", "bar": "a"}),
            foo_pod("p-b1", "node-b"),
            foo_pod("p-y1", "node-y", labels={"foo": "", "bar": "a"}),
            foo_pod("p-y2", "node-y", labels={"bar": ""}),
        ],
        [{"zone1": 1, "zone2": 1}],
    ),
    (
        "matchLabelKeys ANDed with an empty labelSelector",
        make_pod("p").labels(foo="a").spread(1, "zone", selector={}, matchLabelKeys=["foo"]).obj(),
        FOUR_NODES,
        [
            foo_pod("p-a1", "node-a", labels={"foo": "a"}),
            foo_pod("p-a2", "node-a", labels={"foo": "a"}),
            foo_pod("p-b1", "node-b", labels={"foo": "a"}),
            foo_pod("p-y1", "node-y", labels={"foo": "a"}),
            foo_pod("p-y2", "node-y", labels={"foo": "a"}),
        ],
        [{"zone1": 3, "zone2": 2}],
    ),
    (
        "matchLabelKeys is ignored when labelSelector is nil",
        make_pod("p").labels(foo="").spread(1, "zone", matchLabelKeys=["foo"]).obj(),
        FOUR_NODES,
        [foo_pod("p-a1", "node-a"), foo_pod("p-y1", "node-y")],
        [{"zone1": 0, "zone2": 0}],
    ),
    (
        "a matchLabelKeys key missing from the pod's labels is ignored",
        make_pod("p").labels(foo="").spread(1, "zone", selector=FOO, matchLabelKeys=["bar"]).obj(),
        FOUR_NODES,
        [
            foo_pod("p-a1", "node-a", labels={"foo": "a"}),
            foo_pod("p-a2", "node-a", labels={"foo": "a"}),
            foo_pod("p-y1", "node-y", labels={"foo": "a"}),
        ],
        [{"zone1": 2, "zone2": 1}],
    ),
    (
        "an empty labelSelector counts no existing pod",
        make_pod("p").labels(foo="").spread(1, "zone", selector={}).obj(),
        FOUR_NODES,
        [foo_pod("p-a1", "node-a"), foo_pod("p-y1", "node-y")],
        [{"zone1": 0, "zone2": 0}],
    ),
    (
        "terminating pods are not counted",
        make_pod("p").labels(foo="").spread(1, "node", selector=FOO).obj(),
        [keyed_node("node-a"), keyed_node("node-b")],
        [make_pod("p-a").labels(foo="").node("node-a").terminating().obj(), foo_pod("p-b", "node-b")],
        [{"node-a": 0, "node-b": 1}],
    ),
    (
        "nodes missing one of the topology keys are left out of every constraint",
        make_pod("p").labels(foo="").spread(1, "zone", selector=FOO).spread(1, "node", selector=FOO).obj(),
        [zone_node("node-a", "zone1"), make_node("node-x").labels(zone="zone2").obj(), zone_node("node-y", "zone2")],
        [foo_pod("p-a1", "node-a"), foo_pod("p-x1", "node-x"), foo_pod("p-y1", "node-y")],
        [{"zone1": 1, "zone2": 1}, {"node-a": 1, "node-y": 1}],
    ),
]


@pytest.mark.parametrize(
    ("pod", "nodes", "existing", "want_counts"),
    [case[1:] for case in PRE_FILTER_CASES],
    ids=[case[0] for case in PRE_FILTER_CASES],
)
def test_pre_filter_state(
    pod: o.Pod, nodes: list[o.Node], existing: list[o.Pod], want_counts: list[dict[str, int]]
) -> None:
    plugin, handle = setup(nodes, existing)
    state, code = run_pre_filter(plugin, handle, pod)
    assert code == Code.Success
    counts, minimums = counts_and_min(state)
    assert counts == want_counts
    assert minimums == [min(c.values()) if c else MAX_INT32 for c in want_counts]


# ------------------------------------------------------------------ PreFilter Skip and default constraints

SERVICE_FOO_BAR = service({"foo": "bar"})
DEFAULT_LIST = {
    "defaultingType": "List",
    "defaultConstraints": [
        {"maxSkew": 3, "topologyKey": "node", "whenUnsatisfiable": "DoNotSchedule"},
        {"maxSkew": 2, "topologyKey": "node", "whenUnsatisfiable": "ScheduleAnyway"},
        {"maxSkew": 5, "topologyKey": "rack", "whenUnsatisfiable": "DoNotSchedule"},
    ],
}


def test_skip_without_constraints() -> None:
    plugin, handle = setup(FOUR_NODES, [])
    _, code = run_pre_filter(plugin, handle, make_pod("p").labels(foo="").obj())
    assert code == Code.Skip


def test_skip_with_only_schedule_anyway_constraints() -> None:
    plugin, handle = setup(FOUR_NODES, [], SERVICE_FOO_BAR)
    pod = make_pod("p").labels(foo="bar").spread(1, "zone", "ScheduleAnyway", FOO).obj()
    _, code = run_pre_filter(plugin, handle, pod)
    assert code == Code.Skip


@pytest.mark.parametrize("args", [{}, {"defaultingType": "System"}], ids=["no args", "System"])
def test_system_defaults_are_schedule_anyway_so_skip(args: dict[str, Any]) -> None:
    plugin, handle = setup(FOUR_NODES, [], SERVICE_FOO_BAR, args=args)
    _, code = run_pre_filter(plugin, handle, make_pod("p").labels(foo="bar").obj())
    assert plugin.system_defaulted
    assert code == Code.Skip


def test_default_constraints_and_a_service() -> None:
    nodes = [keyed_node("n1", rack="r1"), keyed_node("n2", rack="r1")]
    existing = [make_pod("e1").labels(foo="bar").node("n1").obj(), make_pod("e2").labels(foo="baz").node("n2").obj()]
    plugin, handle = setup(nodes, existing, SERVICE_FOO_BAR, args=DEFAULT_LIST)
    state, code = run_pre_filter(plugin, handle, make_pod("p").labels(foo="bar", baz="kar").obj())
    assert code == Code.Success
    pre: PreFilterState = state.read(PRE_FILTER_STATE_KEY)
    assert [(c.topology_key, c.max_skew, str(c.selector)) for c in pre.constraints] == [
        ("node", 3, "foo=bar"),
        ("rack", 5, "foo=bar"),
    ]
    assert pre.tp_value_to_match_num == [{"n1": 1, "n2": 0}, {"r1": 1}]


def test_default_constraints_and_a_service_that_does_not_match() -> None:
    plugin, handle = setup(FOUR_NODES, [], service({"baz": "kep"}), args=DEFAULT_LIST)
    _, code = run_pre_filter(plugin, handle, make_pod("p").labels(foo="bar").obj())
    assert code == Code.Skip


def test_default_constraints_ignore_services_of_other_namespaces() -> None:
    plugin, handle = setup(FOUR_NODES, [], service({"foo": "bar"}, namespace="other"), args=DEFAULT_LIST)
    _, code = run_pre_filter(plugin, handle, make_pod("p").labels(foo="bar").obj())
    assert code == Code.Skip


def test_pod_constraints_win_over_default_constraints() -> None:
    plugin, handle = setup(FOUR_NODES, [], SERVICE_FOO_BAR, args=DEFAULT_LIST)
    pod = (
        make_pod("p")
        .labels(foo="bar", baz="tar")
        .spread(1, "zone", selector={"matchLabels": {"baz": "tar"}})
        .spread(2, "planet", "ScheduleAnyway", {"matchLabels": {"fot": "rok"}})
        .obj()
    )
    state, code = run_pre_filter(plugin, handle, pod)
    assert code == Code.Success
    pre: PreFilterState = state.read(PRE_FILTER_STATE_KEY)
    assert [(c.topology_key, str(c.selector)) for c in pre.constraints] == [("zone", "baz=tar")]


@pytest.mark.parametrize(
    ("api_version", "kind", "name", "controller", "want_selector"),
    [
        ("apps/v1", "ReplicaSet", "rs", True, "app=web,foo=bar"),
        ("apps/v1", "StatefulSet", "ss", True, "app=db,foo=bar"),
        ("v1", "ReplicationController", "rc", True, "foo=bar,tier=x"),
        ("apps/v1", "ReplicaSet", "rs", False, "foo=bar"),  # not the controller
        ("extensions/v1beta1", "ReplicaSet", "rs", True, "foo=bar"),
    ],
    ids=["replicaset", "statefulset", "replicationcontroller", "not controller", "other group"],
)
def test_default_selector_from_owner(
    api_version: str, kind: str, name: str, controller: bool, want_selector: str
) -> None:
    meta = {"namespace": "default"}
    rs = from_raw(
        o.ReplicaSet, {"metadata": {**meta, "name": "rs"}, "spec": {"selector": {"matchLabels": {"app": "web"}}}}
    )
    ss = from_raw(
        o.StatefulSet, {"metadata": {**meta, "name": "ss"}, "spec": {"selector": {"matchLabels": {"app": "db"}}}}
    )
    rc = from_raw(o.ReplicationController, {"metadata": {**meta, "name": "rc"}, "spec": {"selector": {"tier": "x"}}})
    plugin, handle = setup(FOUR_NODES, [], SERVICE_FOO_BAR, rs, ss, rc, args=DEFAULT_LIST)
    pod = make_pod("p").labels(foo="bar", app="web", tier="x").owner(kind, name, controller, api_version).obj()
    state, code = run_pre_filter(plugin, handle, pod)
    assert code == Code.Success
    pre: PreFilterState = state.read(PRE_FILTER_STATE_KEY)
    assert str(pre.constraints[0].selector) == want_selector


# ------------------------------------------------------------------ Filter

FILTER_CASES: list[tuple[str, o.Pod, list[o.Node], list[o.Pod], dict[str, Code]]] = [
    (
        "no existing pods",
        make_pod("p").labels(foo="").spread(1, "zone", selector=FOO).obj(),
        FOUR_NODES,
        [],
        {"node-a": S, "node-b": S, "node-x": S, "node-y": S},
    ),
    (
        "existing pods in a different namespace do not count",
        make_pod("p").labels(foo="").spread(1, "zone", selector=FOO).obj(),
        FOUR_NODES,
        [
            foo_pod("p-a1", "node-a", namespace="ns1"),
            foo_pod("p-b1", "node-a", namespace="ns2"),
            foo_pod("p-x1", "node-x"),
            foo_pod("p-y1", "node-y"),
        ],
        {"node-a": S, "node-b": S, "node-x": U, "node-y": U},
    ),
    (
        "existing pods do not match null selector",
        make_pod("p").labels(foo="").spread(1, "zone").obj(),
        FOUR_NODES,
        [foo_pod("p-x1", "node-x"), foo_pod("p-y1", "node-y")],
        {"node-a": S, "node-b": S, "node-x": S, "node-y": S},
    ),
    (
        "pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
        make_pod("p").labels(foo="").spread(1, "zone", selector=FOO).obj(),
        [
            zone_node("node-a", "zone1"),
            make_node("node-b").labels(zon="zone1", node="node-b").obj(),
            zone_node("node-x", "zone2"),
            zone_node("node-y", "zone2"),
        ],
        [foo_pod("p-a1", "node-a"), foo_pod("p-b1", "node-b"), foo_pod("p-x1", "node-x"), foo_pod("p-y1", "node-y")],
        {"node-a": S, "node-b": UU, "node-x": U, "node-y": U},
    ),
    (
        "pod cannot be scheduled as all nodes don't have label 'rack'",
        make_pod("p").labels(foo="").spread(1, "rack", selector=FOO).obj(),
        [zone_node("node-a", "zone1"), zone_node("node-x", "zone2")],
        [],
        {"node-a": UU, "node-x": UU},
    ),
    (
        "pods spread across nodes as 2/1/0/3, only node-x fits",
        make_pod("p").labels(foo="").spread(1, "node", selector=FOO).obj(),
        FOUR_NODES,
        [
            foo_pod("p-a1", "node-a"),
            foo_pod("p-a2", "node-a"),
            foo_pod("p-b1", "node-b"),
            foo_pod("p-y1", "node-y"),
            foo_pod("p-y2", "node-y"),
            foo_pod("p-y3", "node-y"),
        ],
        {"node-a": U, "node-b": U, "node-x": S, "node-y": U},
    ),
    (
        "pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
        make_pod("p").labels(bar="").spread(1, "node", selector=FOO).obj(),
        FOUR_NODES,
        [
            foo_pod("p-a1", "node-a"),
            foo_pod("p-a2", "node-a"),
            foo_pod("p-b1", "node-b"),
            foo_pod("p-y1", "node-y"),
            foo_pod("p-y2", "node-y"),
            foo_pod("p-y3", "node-y"),
        ],
        {"node-a": U, "node-b": S, "node-x": S, "node-y": U},
    ),
    (
        "incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
        make_pod("p").labels(foo="").node_affinity_in("node", "node-a", "node-y").spread(1, "node", selector=FOO).obj(),
        FOUR_NODES,
        [
            foo_pod("p-a1", "node-a"),
            foo_pod("p-a2", "node-a"),
            foo_pod("p-b1", "node-b"),
            foo_pod("p-y1", "node-y"),
            foo_pod("p-y2", "node-y"),
            foo_pod("p-y3", "node-y"),
        ],
        {"node-a": S, "node-b": S, "node-x": S, "node-y": U},
    ),
    (
        "terminating pods should be excluded",
        make_pod("p").labels(foo="").spread(1, "node", selector=FOO).obj(),
        [keyed_node("node-a"), keyed_node("node-b")],
        [make_pod("p-a").labels(foo="").node("node-a").terminating().obj(), foo_pod("p-b", "node-b")],
        {"node-a": S, "node-b": U},
    ),
    (
        "2/2/1 with maxSkew 2 and fewer domains than minDomains: only the third node fits",
        make_pod("p").labels(foo="").spread(2, "node", selector=FOO, minDomains=4).obj(),
        [
            keyed_node("node-a"),
            keyed_node("node-b"),
            keyed_node("node-c"),
        ],
        [
            foo_pod("p-a1", "node-a"),
            foo_pod("p-a2", "node-a"),
            foo_pod("p-b1", "node-b"),
            foo_pod("p-b2", "node-b"),
            foo_pod("p-c1", "node-c"),
        ],
        {"node-a": U, "node-b": U, "node-c": S},
    ),
    (
        "2/2/1 with maxSkew 2 and more domains than minDomains: all nodes fit",
        make_pod("p").labels(foo="").spread(2, "node", selector=FOO, minDomains=2).obj(),
        [
            keyed_node("node-a"),
            keyed_node("node-b"),
            keyed_node("node-c"),
        ],
        [
            foo_pod("p-a1", "node-a"),
            foo_pod("p-a2", "node-a"),
            foo_pod("p-b1", "node-b"),
            foo_pod("p-b2", "node-b"),
            foo_pod("p-c1", "node-c"),
        ],
        {"node-a": S, "node-b": S, "node-c": S},
    ),
    (
        "zones 2/1 with maxSkew 2 and fewer domains than minDomains",
        make_pod("p").labels(foo="").spread(2, "zone", selector=FOO, minDomains=3).obj(),
        FOUR_NODES,
        [foo_pod("p-b1", "node-a"), foo_pod("p-b2", "node-b"), foo_pod("p-y1", "node-y")],
        {"node-a": U, "node-b": U, "node-x": S, "node-y": S},
    ),
    (
        "NodeAffinityPolicy ignored: node-y outside the nodeSelector counts",
        make_pod("p")
        .labels(foo="")
        .node_selector(foo="")
        .spread(1, "node", selector=FOO, nodeAffinityPolicy="Ignore")
        .obj(),
        [
            keyed_node("node-a", foo=""),
            keyed_node("node-b", foo=""),
            keyed_node("node-x", foo=""),
            keyed_node("node-y"),
        ],
        [foo_pod("p-b1", "node-a"), foo_pod("p-b2", "node-b"), foo_pod("p-y1", "node-y")],
        {"node-a": U, "node-b": U, "node-x": S, "node-y": U},
    ),
    (
        "NodeTaintsPolicy honored: tainted node-y is left out of the domains",
        make_pod("p").labels(foo="").spread(1, "node", selector=FOO, nodeTaintsPolicy="Honor").obj(),
        [
            keyed_node("node-a"),
            keyed_node("node-b"),
            keyed_node("node-x"),
            make_node("node-y").labels(node="node-y").taint(UNSCHEDULABLE).obj(),
        ],
        [foo_pod("p-b1", "node-a"), foo_pod("p-b2", "node-b"), foo_pod("p-y1", "node-y")],
        {"node-a": U, "node-b": U, "node-x": S, "node-y": S},
    ),
    (
        "two constraints on zone and node, spreads = [3/4, 2/1/0/4]",
        make_pod("p").labels(foo="").spread(1, "zone", selector=FOO).spread(1, "node", selector=FOO).obj(),
        FOUR_NODES,
        [
            foo_pod("p-a1", "node-a"),
            foo_pod("p-a2", "node-a"),
            foo_pod("p-b1", "node-b"),
            foo_pod("p-y1", "node-y"),
            foo_pod("p-y2", "node-y"),
            foo_pod("p-y3", "node-y"),
            foo_pod("p-y4", "node-y"),
        ],
        {"node-a": U, "node-b": U, "node-x": U, "node-y": U},
    ),
    (
        "two constraints on zone and node, absence of label 'node' on node-x",
        make_pod("p").labels(foo="").spread(1, "zone", selector=FOO).spread(1, "node", selector=FOO).obj(),
        [
            zone_node("node-a", "zone1"),
            zone_node("node-b", "zone1"),
            make_node("node-x").labels(zone="zone2").obj(),
            zone_node("node-y", "zone2"),
        ],
        [foo_pod("p-a1", "node-a"), foo_pod("p-y3", "node-y")],
        {"node-a": U, "node-b": S, "node-x": UU, "node-y": U},
    ),
    (
        "constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
        make_pod("p").labels(foo="", bar="").spread(1, "zone", selector=FOO).spread(1, "node", selector=BAR).obj(),
        FOUR_NODES,
        [
            foo_pod("p-a1", "node-a"),
            foo_pod("p-a2", "node-a", labels={"foo": "", "bar": ""}),
            foo_pod("p-y1", "node-y"),
            foo_pod("p-y2", "node-y", labels={"foo": "", "bar": ""}),
            foo_pod("p-y3", "node-y"),
        ],
        {"node-a": U, "node-b": S, "node-x": U, "node-y": U},
    ),
    (
        "an empty labelSelector: existing pods not counted, the pod itself is",
        make_pod("p").labels(foo="").spread(1, "zone", selector={}).obj(),
        FOUR_NODES,
        [foo_pod("p-a1", "node-a"), foo_pod("p-a2", "node-a"), foo_pod("p-a3", "node-a")],
        {"node-a": S, "node-b": S, "node-x": S, "node-y": S},
    ),
]


@pytest.mark.parametrize(
    ("pod", "nodes", "existing", "want"),
    [case[1:] for case in FILTER_CASES],
    ids=[case[0] for case in FILTER_CASES],
)
def test_filter(pod: o.Pod, nodes: list[o.Node], existing: list[o.Pod], want: dict[str, Code]) -> None:
    plugin, handle = setup(nodes, existing)
    state, code = run_pre_filter(plugin, handle, pod)
    assert code == Code.Success
    got = {ni.name: plugin.filter(state, PodInfo(pod), ni).code for ni in handle.node_infos}
    assert got == want


def test_filter_reasons_and_evidence() -> None:
    pod = make_pod("p").labels(foo="").spread(1, "zone", selector=FOO).obj()
    nodes = [zone_node("node-a", "zone1"), zone_node("node-x", "zone2"), keyed_node("node-z")]
    plugin, handle = setup(nodes, [foo_pod("p-a1", "node-a")])
    state, _ = run_pre_filter(plugin, handle, pod)
    by_name = {ni.name: plugin.filter(state, PodInfo(pod), ni) for ni in handle.node_infos}

    skewed = by_name["node-a"]
    assert skewed.code == Code.Unschedulable
    assert skewed.reasons == [ERR_REASON_CONSTRAINTS_NOT_MATCH]
    assert skewed.reasons == ["node(s) didn't match pod topology spread constraints"]
    evidence = skewed.evidence[0]
    assert isinstance(evidence, TopologySpreadEvidence)
    assert (evidence.topology_key, evidence.max_skew, evidence.domain) == ("zone", 1, "zone1")
    assert (evidence.matching_pods, evidence.self_match, evidence.global_minimum, evidence.skew) == (1, 1, 0, 2)

    missing = by_name["node-z"]
    assert missing.code == Code.UnschedulableAndUnresolvable
    assert missing.reasons == [ERR_REASON_NODE_LABEL_NOT_MATCH]
    assert missing.reasons == ["node(s) didn't match pod topology spread constraints (missing required label)"]
    evidence = missing.evidence[0]
    assert isinstance(evidence, TopologySpreadEvidence) and evidence.missing_label == "zone"

    assert by_name["node-x"].code == Code.Success


def test_filter_without_pre_filter_state_is_an_error() -> None:
    plugin, handle = setup(FOUR_NODES, [])
    status = plugin.filter(CycleState(), PodInfo(make_pod("p").obj()), handle.node_infos[0])
    assert status.code == Code.Error
    assert status.reasons == ['reading "PreFilterPodTopologySpread" from cycleState: not found']


def test_invalid_selector_is_a_pre_filter_error() -> None:
    bad = {"matchExpressions": [{"key": "foo", "operator": "Exists", "values": ["x"]}]}
    plugin, handle = setup(FOUR_NODES, [])
    pod = make_pod("p").spread(1, "zone", selector=bad).obj()
    _, status = plugin.pre_filter(CycleState(), PodInfo(pod), handle.node_infos)
    assert status.code == Code.Error
    assert status.reasons[0].startswith("get constraints from pod: obtaining pod's hard topology spread constraints: ")


# ------------------------------------------------------------------ AddPod / RemovePod

AddRemoveCase = tuple[str, o.Pod, list[o.Node], list[o.Pod], o.Pod, int, int, list[dict[str, int]], list[int]]
ADD_REMOVE_CASES: list[AddRemoveCase] = [
    (
        "add: node a and b both impact current min match",
        make_pod("p").labels(foo="").spread(1, "node", selector=FOO).obj(),
        [zone_node("node-a", "zone1"), zone_node("node-b", "zone1")],
        [],
        foo_pod("p-a1", "node-a"),
        0,
        1,
        [{"node-a": 1, "node-b": 0}],
        [0],
    ),
    (
        "add: only node a impacts current min match",
        make_pod("p").labels(foo="").spread(1, "node", selector=FOO).obj(),
        [zone_node("node-a", "zone1"), zone_node("node-b", "zone1")],
        [foo_pod("p-b1", "node-b")],
        foo_pod("p-a1", "node-a"),
        0,
        1,
        [{"node-a": 1, "node-b": 1}],
        [1],
    ),
    (
        "add: a pod in a different namespace changes nothing",
        make_pod("p").labels(foo="").spread(1, "node", selector=FOO).obj(),
        [zone_node("node-a", "zone1"), zone_node("node-b", "zone1")],
        [foo_pod("p-b1", "node-b")],
        foo_pod("p-a1", "node-a", namespace="ns1"),
        0,
        1,
        [{"node-a": 0, "node-b": 1}],
        [0],
    ),
    (
        "add: node a and x both impact zone and node",
        make_pod("p").labels(foo="").spread(1, "zone", selector=FOO).spread(1, "node", selector=FOO).obj(),
        [zone_node("node-a", "zone1"), zone_node("node-x", "zone2")],
        [],
        foo_pod("p-a1", "node-a"),
        0,
        1,
        [{"zone1": 1, "zone2": 0}, {"node-a": 1, "node-x": 0}],
        [0, 0],
    ),
    (
        "add: constraints hold different labelSelectors",
        make_pod("p").labels(foo="", bar="").spread(1, "zone", selector=FOO).spread(1, "node", selector=BAR).obj(),
        [zone_node("node-a", "zone1"), zone_node("node-b", "zone1"), zone_node("node-x", "zone2")],
        [
            foo_pod("p-b1", "node-b", labels={"foo": "", "bar": ""}),
            foo_pod("p-x1", "node-x", labels={"foo": "", "bar": ""}),
            foo_pod("p-x2", "node-x", labels={"bar": ""}),
        ],
        foo_pod("p-a1", "node-a"),
        0,
        1,
        [{"zone1": 2, "zone2": 1}, {"node-a": 0, "node-b": 1, "node-x": 2}],
        [1, 0],
    ),
    (
        "add: on a node outside the preemptor's node affinity",
        make_pod("p")
        .labels(foo="")
        .affinity(node_affinity("foo", "NotIn", ["bar"]))
        .spread(1, "zone", selector=FOO)
        .obj(),
        [zone_node("node-a", "zone1", foo="bar"), zone_node("node-b", "zone2", foo="")],
        [foo_pod("p-a2", "node-a"), foo_pod("p-b1", "node-b")],
        foo_pod("p-a1", "node-a"),
        0,
        1,
        [{"zone2": 1}],
        [1],
    ),
    (
        "add: a pod the selector does not match",
        make_pod("p").labels(foo="").spread(1, "zone", selector=FOO).obj(),
        [zone_node("node-a", "zone1"), zone_node("node-b", "zone2")],
        [foo_pod("p-a1", "node-a"), foo_pod("p-b2", "node-b")],
        make_pod("p-b1").labels(zone="zone2").node("node-b").obj(),
        1,
        1,
        [{"zone1": 1, "zone2": 1}],
        [1],
    ),
    (
        "remove: one spreadConstraint on zone, minimum unchanged",
        make_pod("p").labels(foo="").spread(1, "zone", selector=FOO).obj(),
        [zone_node("node-a", "zone1"), zone_node("node-b", "zone1"), zone_node("node-x", "zone2")],
        [foo_pod("p-a1", "node-a"), foo_pod("p-b1", "node-b"), foo_pod("p-x1", "node-x")],
        foo_pod("p-a1", "node-a"),
        0,
        -1,
        [{"zone1": 1, "zone2": 1}],
        [1],
    ),
    (
        "remove: an irrelevant pod changes nothing",
        make_pod("p").labels(foo="").spread(1, "zone", selector=FOO).obj(),
        FOUR_NODES,
        [
            make_pod("p-a0").labels(bar="").node("node-a").obj(),
            foo_pod("p-a1", "node-a"),
            foo_pod("p-b1", "node-b"),
            foo_pod("p-x1", "node-x"),
            foo_pod("p-y1", "node-y"),
        ],
        make_pod("p-a0").labels(bar="").node("node-a").obj(),
        0,
        -1,
        [{"zone1": 2, "zone2": 2}],
        [2],
    ),
    (
        "remove: two spreadConstraints",
        make_pod("p").labels(foo="").spread(1, "zone", selector=FOO).spread(1, "node", selector=FOO).obj(),
        [zone_node("node-a", "zone1"), zone_node("node-b", "zone1"), zone_node("node-x", "zone2")],
        [
            foo_pod("p-a1", "node-a"),
            foo_pod("p-a2", "node-a"),
            foo_pod("p-b1", "node-b"),
            foo_pod("p-x1", "node-x"),
            foo_pod("p-x2", "node-x"),
        ],
        foo_pod("p-x1", "node-x"),
        2,
        -1,
        [{"zone1": 3, "zone2": 1}, {"node-a": 2, "node-b": 1, "node-x": 1}],
        [1, 1],
    ),
    (
        "remove: the last matching pod of a domain",
        make_pod("p").labels(foo="").spread(1, "zone", selector=FOO).obj(),
        [zone_node("node-a", "zone1", foo="bar"), zone_node("node-b", "zone2", foo="")],
        [foo_pod("p-a1", "node-a"), foo_pod("p-b2", "node-b")],
        foo_pod("p-b1", "node-b"),
        1,
        -1,
        [{"zone1": 1, "zone2": 0}],
        [0],
    ),
]


@pytest.mark.parametrize(
    ("preemptor", "nodes", "existing", "changed", "node_index", "delta", "want_counts", "want_min"),
    [case[1:] for case in ADD_REMOVE_CASES],
    ids=[case[0] for case in ADD_REMOVE_CASES],
)
def test_add_remove_pod(
    preemptor: o.Pod,
    nodes: list[o.Node],
    existing: list[o.Pod],
    changed: o.Pod,
    node_index: int,
    delta: int,
    want_counts: list[dict[str, int]],
    want_min: list[int],
) -> None:
    plugin, handle = setup(nodes, existing)
    state, code = run_pre_filter(plugin, handle, preemptor)
    assert code == Code.Success
    node_info = handle.node_infos[node_index]
    if delta > 0:
        status = plugin.add_pod(state, PodInfo(preemptor), PodInfo(changed), node_info)
    else:
        status = plugin.remove_pod(state, PodInfo(preemptor), PodInfo(changed), node_info)
    assert status.is_success()
    counts, minimums = counts_and_min(state)
    assert counts == want_counts
    assert minimums == want_min


def test_add_pod_on_a_clone_leaves_the_original_alone() -> None:
    pod = make_pod("p").labels(foo="").spread(1, "node", selector=FOO).obj()
    plugin, handle = setup([zone_node("node-a", "zone1"), zone_node("node-b", "zone1")], [])
    state, _ = run_pre_filter(plugin, handle, pod)
    clone = state.clone()
    plugin.add_pod(clone, PodInfo(pod), PodInfo(foo_pod("n1", "node-a")), handle.node_infos[0])
    assert counts_and_min(state) == ([{"node-a": 0, "node-b": 0}], [0])
    assert counts_and_min(clone) == ([{"node-a": 1, "node-b": 0}], [0])
    # The nominated pod makes node-a violate maxSkew only in the cloned state.
    assert plugin.filter(clone, PodInfo(pod), handle.node_infos[0]).code == Code.Unschedulable
    assert plugin.filter(state, PodInfo(pod), handle.node_infos[0]).code == Code.Success


@pytest.mark.parametrize(
    ("updates", "want"),
    [
        ([("a", 1), ("b", 1), ("c", 1)], [("a", 1), ("b", 1)]),
        ([("a", 3), ("b", 1)], [("b", 1), ("a", 3)]),
        ([("a", 1), ("b", 2), ("a", 3)], [("b", 2), ("a", 3)]),
        ([("a", 2), ("b", 3), ("c", 1)], [("c", 1), ("a", 2)]),
    ],
)
def test_critical_paths_update(updates: list[tuple[str, int]], want: list[tuple[str, int]]) -> None:
    paths = CriticalPaths()
    for value, num in updates:
        paths.update(value, num)
    assert paths.paths == want
