"""Node equivalence classes (framework/equivalence.py) decide every pod exactly as filtering each
node on its own does: the whole cycle (verdict, message, every node's statuses and evidence,
scores, the preemption dry run, the report built from it) with classes on and off, on generated
clusters whose nodes share a few shapes (the same labels but hostname, taints, allocatable, and
the same pods on them), in every mode podwhy runs a cycle in, where the walk stops included."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from podwhy.framework import equivalence
from podwhy.framework.outcome import NodeVerdict
from podwhy.framework.status import Status
from podwhy.model import objects as o
from podwhy.plugins.noderesources.fit import Fit
from podwhy.report.build.explain import build_report
from podwhy.report.model import encode_json
from podwhy.scheduler.cycle import EXPLAIN, FILTER_ONLY, FIRST_FIT, FITS, CycleOptions, CycleOutcome, run_cycle
from tests.builders import make_node, make_pod, make_snapshot
from tests.strategies import HOSTNAME, ZONE, Cluster, clusters, existing_pods, node_builders, target_pods

MODES = {
    "explain": EXPLAIN,
    "filter only": FILTER_ONLY,
    "fits": FITS,
    "first fit": FIRST_FIT,
    "two feasible": CycleOptions(scoring=False, every_plugin=False, feasible_to_find=2),
    "three feasible, every plugin": CycleOptions(feasible_to_find=3),
}


@contextmanager
def node_classes(enabled: bool) -> Iterator[None]:
    before = equivalence.ENABLED
    equivalence.ENABLED = enabled
    try:
        yield
    finally:
        equivalence.ENABLED = before


def _copy_pod(template: o.Pod, name: str, node: str) -> o.Pod:
    raw = msgspec.to_builtins(template)
    raw["metadata"]["name"] = raw["metadata"]["uid"] = name
    if raw["spec"].get("nodeName"):
        raw["spec"]["nodeName"] = node
    else:
        raw["status"]["nominatedNodeName"] = node
    return msgspec.convert(raw, o.Pod)


# What sets one node of a shape apart from the others (most are left alike).
CHANGES = ("none", "none", "none", "pod", "swap", "cordon", "taint", "label", "nominated")


def _change(raw: dict[str, Any], change: str, label: tuple[str, str]) -> None:
    if change == "cordon":
        raw["spec"]["unschedulable"] = True
    elif change == "taint":
        raw["spec"].setdefault("taints", []).append({"key": "dedicated", "value": "db", "effect": "NoSchedule"})
    elif change == "label":
        raw["metadata"].setdefault("labels", {})[label[0]] = label[1]


@st.composite
def shaped_clusters(draw: st.DrawFn) -> Cluster:
    """Nodes of one to three shapes, each shape's nodes running copies of the same pods, some
    nodes set apart (a pod more, another pod instead of one, cordoned, a taint, a label, a pod
    nominated there), a few other pods anywhere, and the pod to explain."""
    shapes = [draw(node_builders(f"shape-{i}")) for i in range(draw(st.integers(1, 3)))]
    names = [f"node-{i}" for i in range(draw(st.integers(3, 9)))]
    of_shape = [draw(st.integers(0, len(shapes) - 1)) for _ in names]
    changes = [draw(st.sampled_from(CHANGES)) for _ in names]
    label = draw(st.sampled_from(((ZONE, "zone-c"), ("tier", "db"), ("disk", "hdd"), ("cores", "16"))))
    nodes = []
    for name, shape, change in zip(names, of_shape, changes, strict=True):
        raw = msgspec.to_builtins(msgspec.convert(shapes[shape].raw, o.Node))
        raw["metadata"]["name"], raw["metadata"]["uid"] = name, f"uid-{name}"
        if HOSTNAME in raw["metadata"].get("labels", {}):
            raw["metadata"]["labels"][HOSTNAME] = name
        _change(raw, change, label)
        nodes.append(msgspec.convert(raw, o.Node))
    pods = []
    for shape in range(len(shapes)):
        for j in range(draw(st.integers(0, 2))):
            template = draw(existing_pods(["template"], j))
            pods.extend(
                _copy_pod(template, f"s{shape}-{j}-{name}", name)
                for name, s, change in zip(names, of_shape, changes, strict=True)
                if s == shape and (j > 0 or change != "swap")
            )
    for i, (name, change) in enumerate(zip(names, changes, strict=True)):
        if change in ("pod", "swap", "nominated"):
            pod = _copy_pod(draw(existing_pods(["template"], 30 + i)), f"extra-{name}", name)
            if change == "nominated":
                pod = _copy_pod(_unbound(pod), f"extra-{name}", name)
            pods.append(pod)
    pods.extend(draw(existing_pods(names, 50 + i)) for i in range(draw(st.integers(0, 2))))
    base = draw(clusters(min_nodes=1, max_nodes=1, max_pods=0))
    return Cluster(nodes, pods, draw(target_pods(names)), base.namespaces)


def _unbound(pod: o.Pod) -> o.Pod:
    raw = msgspec.to_builtins(pod)
    raw["spec"].pop("nodeName", None)
    raw["status"]["phase"] = "Pending"
    return msgspec.convert(raw, o.Pod)


def _status(st: Status | None) -> Any:
    if st is None:
        return None
    return (st.code, st.reasons, st.plugin, msgspec.json.encode(st.evidence), st.not_evaluated)


def _verdict(v: NodeVerdict) -> Any:
    return (
        v.name,
        {name: _status(st) for name, st in v.filters.items()},
        _status(v.first_failure),
        v.feasible,
        [pi.key for pi in v.nominated_pods],
        v.feasible_without_nominated,
    )


def _cycle(cycle: CycleOutcome) -> Any:
    outcome = cycle.outcome
    post = cycle.post_filter
    return (
        cycle.verdict,
        cycle.message,
        cycle.message_complete,
        None if outcome is None else (outcome.feasible, outcome.complete, outcome.error),
        None if outcome is None else [_verdict(v) for v in outcome.nodes],
        None if cycle.scores is None else repr(cycle.scores),
        None if post is None else (_status(post.status), repr(post.result), repr(post.preemption)),
        cycle.sampling,
    )


def _run(cluster: Cluster, enabled: bool, options: CycleOptions) -> tuple[Any, bytes]:
    with node_classes(enabled):
        snapshot = cluster.snapshot()
        cycle = run_cycle(snapshot, cluster.pod, options=options)
        return _cycle(cycle), encode_json(build_report(cycle, snapshot))


# Cheap examples: more of them than the profile's default, so that a reader that misses a
# difference between two nodes is caught in the default run (a deep run takes the profile's).
@settings(max_examples=max(200, settings().max_examples))
@given(shaped_clusters())
def test_classes_decide_as_each_node_on_its_own(cluster: Cluster) -> None:
    for mode, options in MODES.items():
        per_node = _run(cluster, False, options)
        classed = _run(cluster, True, options)
        assert classed[0] == per_node[0], mode
        assert classed[1] == per_node[1], mode


@given(clusters())
def test_classes_decide_as_each_node_on_its_own_on_any_cluster(cluster: Cluster) -> None:
    for mode, options in MODES.items():
        assert _run(cluster, True, options) == _run(cluster, False, options), mode


def test_identical_nodes_are_filtered_once(monkeypatch: Any) -> None:
    """Ten nodes alike but for their names: Fit's Filter runs on one of them; off, on all ten."""
    calls: list[str] = []
    original = Fit.filter

    def counted(self: Fit, state: Any, pod: Any, node_info: Any) -> Status:
        calls.append(node_info.name)
        return original(self, state, pod, node_info)

    monkeypatch.setattr(Fit, "filter", counted)
    nodes = [make_node(f"n{i}").zone("zone-a").obj() for i in range(10)]
    pod = make_pod("p").container(requests={"cpu": "8"}).obj()
    for enabled, filtered in ((True, 1), (False, 10)):
        calls.clear()
        with node_classes(enabled):
            cycle = run_cycle(make_snapshot(*nodes, pod), pod)
        assert len(calls) == filtered
        assert cycle.message == (
            "0/10 nodes are available: 10 Insufficient cpu. no new claims to deallocate, preemption: 0/10 nodes"
            " are available: 10 Preemption is not helpful for scheduling."
        )
        assert [v.name for v in cycle.outcome.nodes] == [f"n{i}" for i in range(10)]  # type: ignore[union-attr]
