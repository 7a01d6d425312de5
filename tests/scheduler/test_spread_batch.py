"""PodTopologySpread scores many nodes at once for placement (no evidence, counts kept on the
Handle between pods bound one after another): every total must equal a fresh cycle's, which
scores node by node and counts every domain anew."""

from __future__ import annotations

import copy

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from podwhy.model import objects as o
from podwhy.scheduler.config import default_profile
from podwhy.scheduler.cycle import CycleOptions, make_framework, run_cycle
from podwhy.snapshot.cluster import Snapshot
from tests.builders import make_node, make_pod, make_snapshot

# A fresh cycle without preemption, and the same keeping only the totals (as check does).
NO_POST_FILTER = CycleOptions(post_filter=False)
TOTALS_ONLY = CycleOptions(post_filter=False, score_rows=False)

ZONES = ["a", "b", "c"]


@st.composite
def clusters(draw: st.DrawFn) -> tuple[Snapshot, o.Pod, list[str]]:
    nodes = []
    for i in range(draw(st.integers(2, 9))):
        builder = make_node(f"n{i}", hostname_label=draw(st.booleans()) or i % 2 == 0).alloc(cpu="4", pods="20")
        zone = draw(st.sampled_from([*ZONES, None]))
        if zone is not None:
            builder.zone(zone)
        if draw(st.integers(0, 5)) == 0:
            builder.taint("dedicated", "x")
        nodes.append(builder.obj())
    rs = msgspec.convert(
        {"metadata": {"name": "web-1", "namespace": "default"}, "spec": {"selector": {"matchLabels": {"app": "web"}}}},
        o.ReplicaSet,
    )
    existing = [
        make_pod(f"old{i}")
        .labels(app=draw(st.sampled_from(["web", "db"])))
        .node(f"n{draw(st.integers(0, len(nodes) - 1))}")
        .req(cpu="100m")
        .obj()
        for i in range(draw(st.integers(0, 12)))
    ]
    pod = make_pod("web-x").labels(app="web").owner("ReplicaSet", "web-1").req(cpu=draw(st.sampled_from(["100m", "1"])))
    if draw(st.booleans()):  # the pod's own soft constraints instead of the system defaults
        key = draw(st.sampled_from(["topology.kubernetes.io/zone", "kubernetes.io/hostname"]))
        pod.spread(draw(st.integers(1, 3)), key, "ScheduleAnyway", {"matchLabels": {"app": "web"}})
        if draw(st.booleans()):
            pod.spread(1, "kubernetes.io/hostname", "ScheduleAnyway", {"matchLabels": {"app": "web"}})
    if draw(st.booleans()):
        pod.node_affinity_in("topology.kubernetes.io/zone", *draw(st.lists(st.sampled_from(ZONES), min_size=1)))
    order = draw(st.lists(st.sampled_from(["bind", "evict"]), min_size=1, max_size=8))
    return make_snapshot(*nodes, rs, *existing), pod.obj(), order


@given(clusters())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_batch_scores_equal_node_by_node_scores(case: tuple[Snapshot, o.Pod, list[str]]) -> None:
    snapshot, template, order = case
    profile = default_profile()
    kept = make_framework(snapshot, profile)  # its memos live on from one pod to the next
    bound: list[o.Pod] = []
    for step, action in enumerate(order):
        pod = copy.deepcopy(template)
        pod.metadata.name = f"web-{step}"
        pod.metadata.uid = f"uid-{step}"
        fresh = run_cycle(snapshot, pod, framework=make_framework(snapshot, profile), options=NO_POST_FILTER)
        batch = run_cycle(snapshot, pod, framework=kept, options=TOTALS_ONLY)
        if fresh.scores is None or batch.scores is None:
            assert fresh.scores is batch.scores
            break
        assert batch.scores.totals == fresh.scores.totals
        assert sorted(batch.scores.best_nodes) == sorted(fresh.scores.best_nodes)
        if action == "evict" and bound:
            gone = bound.pop(0)
            snapshot.pods.remove(gone)
            kept.handle.remove_bound_pod(gone)
        else:
            pod.spec.node_name = sorted(fresh.scores.best_nodes)[0]
            snapshot.pods.append(pod)
            kept.handle.add_bound_pod(pod)
            bound.append(pod)
