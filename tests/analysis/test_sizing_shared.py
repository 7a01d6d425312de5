"""What sizing finds of a snapshot once for every group and cause (analysis/suggest/shared.py:
startup pods, node shapes, new-node shapes with the indexed pods' requests, first pods' Filter
cycles) gives `podwhy pending` the report that finding each of them afresh for every use gives;
and pods placed with known rejections (KnownRejections, which skips the verdicts its own cycle
began with) go where fresh cycles put them."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest

import podwhy.engine.pendingpods as engine_module
from podwhy.analysis.suggest.shared import SizingShared
from podwhy.cluster.nodecopy import startup_pods_by_node
from podwhy.cluster.placement import KnownRejections, Placer
from podwhy.engine import PendingRequest, pending, scheduler_config
from podwhy.framework.runtime import Framework
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.model import objects as o
from podwhy.plugins.registry import NODE_LOCAL_FILTERS
from podwhy.report.model import encode_json
from podwhy.report.words.placement import placement_text
from podwhy.scheduler.config import SchedulerConfig
from podwhy.scheduler.cycle import FILTER_ONLY, CycleOutcome, run_cycle
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.source import FileSource
from tests.builders import make_node, make_pod, make_snapshot
from tests.conformance import case_dirs, cluster_file


class _Fresh(SizingShared):
    """Finds every fact again each time it is asked: sizing as it was before sharing."""

    def startup(self) -> dict[str, list[o.Pod]]:
        return startup_pods_by_node(self.snapshot)

    def node_shape(self, node: o.Node, shape: Callable[[o.Node], str]) -> str:
        return shape(node)

    def pod_info(self, pod: o.Pod) -> PodInfo:
        return PodInfo(pod)

    def allocatable_shapes(self, make: Callable[[SizingShared], list[NodeInfo]]) -> list[NodeInfo]:
        return make(self)

    def filter_cycle(self, pod: o.Pod, framework: Framework, config: SchedulerConfig) -> CycleOutcome:
        return run_cycle(self.snapshot, pod, framework=framework, extenders=config.extenders, options=FILTER_ONLY)


class _Given:
    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot

    def load(self) -> Snapshot:
        return self.snapshot


def _daemon(node: str, index: int) -> o.Pod:
    return (
        make_pod(f"agent-{node}", "kube-system")
        .owner("DaemonSet", f"agent-{index % 2}")
        .node(node)
        .req(cpu="500m", memory="512Mi")
        .phase("Running")
        .obj()
    )


def _owned(name: str, owner: str, namespace: str = "ml", **requests: str) -> o.Pod:
    return make_pod(name, namespace).owner("Job", owner, api_version="batch/v1").labels(app=owner).req(requests).obj()


def _pools() -> Snapshot:
    """Four node pools (GPU nodes of two sizes, tainted and not, CPU nodes), each node with a
    DaemonSet pod, busy GPUs, and Pending groups of several causes and owners."""
    nodes, pods = [], []
    for pool, (alloc, taint) in enumerate(
        [
            ({"cpu": "16", "memory": "64Gi", "nvidia.com/gpu": "4"}, False),
            ({"cpu": "32", "memory": "128Gi", "nvidia.com/gpu": "8"}, True),
            ({"cpu": "16", "memory": "64Gi", "nvidia.com/gpu": "4"}, True),
            ({"cpu": "8", "memory": "32Gi"}, False),
        ]
    ):
        for i in range(3):
            name = f"pool-{pool}-{i}"
            builder = make_node(name).labels(pool=f"pool-{pool}").alloc(alloc)
            if taint:
                builder = builder.taint("nvidia.com/gpu", "present")
            nodes.append(builder.obj())
            pods.append(_daemon(name, pool))
            # Every GPU taken, and all but a little of the cpu.
            held = {"cpu": str(int(alloc["cpu"]) - 4), **{k: v for k, v in alloc.items() if k == "nvidia.com/gpu"}}
            pods.append(make_pod(f"busy-{name}", "ml").node(name).req(held).phase("Running").obj())
    pods += [_owned(f"big-{i}", "big", **{"nvidia.com/gpu": "1"}) for i in range(7)]
    pods += [_owned(f"pair-{i}", "pair", **{"nvidia.com/gpu": "2"}) for i in range(3)]
    pods += [_owned(f"cpu-{i}", "cpu", cpu="6") for i in range(5)]
    pods += [_owned(f"cpu2-{i}", "cpu2", cpu="6") for i in range(4)]
    pods += [_owned(f"huge-{i}", "huge", cpu="64") for i in range(2)]
    return make_snapshot(*nodes, *pods)


def _web() -> Snapshot:
    """Three Deployments' pods of one cause on two busy nodes (a cause of several groups)."""
    return make_snapshot(
        *(make_node(f"worker-{i}").alloc(cpu="4", memory="16Gi", pods="110").obj() for i in range(2)),
        *(_daemon(f"worker-{i}", i) for i in range(2)),
        *(
            make_pod(f"web-{d}-5f7c9-{i}", "shop")
            .owner("ReplicaSet", f"web-{d}-5f7c9")
            .labels({"pod-template-hash": "5f7c9"})
            .req(cpu="1500m")
            .obj()
            for d in range(3)
            for i in range(3)
        ),
        make_pod("busy-0", "shop").node("worker-0").req(cpu="3").phase("Running").obj(),
        make_pod("busy-1", "shop").node("worker-1").req(cpu="3").phase("Running").obj(),
    )


@pytest.mark.parametrize("build", [_pools, _web], ids=["pools", "web"])
def test_sizing_with_shared_facts_reports_as_finding_them_afresh(
    build: Callable[[], Snapshot], monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = encode_json(pending(PendingRequest(_Given(build()), None)))
    monkeypatch.setattr(engine_module, "SizingShared", _Fresh)
    fresh = encode_json(pending(PendingRequest(_Given(build()), None)))
    assert json.loads(shared) == json.loads(fresh)
    assert shared == fresh
    report = json.loads(shared)
    # Every cause is Unschedulable and sized, or told why not.
    assert all((c.get("nodes") or {}).get("outcome") for c in report["summary"])


def test_a_shared_filter_cycle_is_the_pods_own() -> None:
    snapshot = _pools()
    facts = SizingShared(snapshot)
    config = scheduler_config(None)
    pods = [p for p in snapshot.pods if not p.spec.node_name]
    from podwhy.scheduler.cycle import make_framework

    framework = make_framework(snapshot, config.profiles[0], frozenset({config.profiles[0].scheduler_name}))
    first = facts.filter_cycle(pods[0], framework, config)
    assert facts.filter_cycle(pods[0], framework, config) is first
    other = facts.filter_cycle(pods[-1], framework, config)
    assert other is not first and other.pod.pod is pods[-1]


REPLICAS = 6


def _replicas(pod: o.Pod, count: int) -> list[o.Pod]:
    out = []
    for i in range(count):
        replica = copy.deepcopy(pod)
        replica.metadata.name = f"{pod.metadata.name}-r{i}"
        out.append(replica)
    return out


def _placements(case: Path, known: bool) -> list[tuple[str, str, str]]:
    meta = json.loads((case / "case.json").read_text())
    config = scheduler_config(case / meta["config"] if "config" in meta else None)
    snapshot = FileSource([str(cluster_file(case))]).load()
    pod = next(p for p in snapshot.pods if f"{p.metadata.namespace}/{p.metadata.name}" == meta["pod"])
    if pod.spec.node_name:
        pytest.skip("the target is bound")
    placer = Placer(snapshot, config, placement_only=True)
    rejections = KnownRejections(NODE_LOCAL_FILTERS) if known else None
    out = []
    for replica in _replicas(pod, REPLICAS):
        placed = placer.schedule(replica, rejections)
        out.append((placed.node, placed.verdict.value, placement_text(placed.reason)))
    return out


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in case_dirs()])
def test_known_rejections_place_replicas_as_fresh_cycles_do(case: Path) -> None:
    assert _placements(case, known=True) == _placements(case, known=False)


def test_known_rejections_learn_only_what_their_cycle_walked() -> None:
    nodes = [make_node(f"n{i}").alloc(cpu="2").obj() for i in range(4)]
    full = [make_pod(f"busy-{i}").node(f"n{i}").req(cpu="2").phase("Running").obj() for i in range(3)]
    snapshot = make_snapshot(*nodes, *full)
    placer = Placer(snapshot, scheduler_config(None), placement_only=True)
    known = KnownRejections(NODE_LOCAL_FILTERS)
    pods = _replicas(make_pod("web").req(cpu="1").obj(), 3)
    placed = [placer.schedule(p, known).node for p in pods]
    # Two fit on the one free node; the three full ones are known (from the first cycle), n3 is not.
    assert placed == ["n3", "n3", ""]
    assert sorted(known.verdicts) == ["n0", "n1", "n2", "n3"]
    assert msgspec.json.encode(sorted(known.verdicts)) == b'["n0","n1","n2","n3"]'
