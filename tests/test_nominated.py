"""Nominated pods: the two filter passes, and which nominated pods a scheduler knows about."""

from __future__ import annotations

import pytest

from podwhy.engine import explain
from podwhy.model import objects as o
from tests.builders import make_node, make_pod, make_snapshot


def _cluster(nominated_scheduler: str, nominated_priority: int) -> tuple[o.Node, o.Pod]:
    node = make_node("n1").alloc(cpu="4", memory="8Gi").obj()
    nominated = (
        make_pod("waiting")
        .req(cpu="3")
        .priority(nominated_priority)
        .scheduler(nominated_scheduler)
        .nominated("n1")
        .phase("Pending")
        .obj()
    )
    return node, nominated


@pytest.mark.parametrize(
    ("scheduler", "priority", "fits"),
    [
        ("default-scheduler", 10, False),  # equal or higher priority: its room is reserved
        ("default-scheduler", 0, False),
        ("default-scheduler", -1, True),  # lower priority: the pod may take its room
        ("other-scheduler", 10, True),  # another scheduler's queue: unknown to this one
    ],
)
def test_nominated_pods_reserve_room(scheduler: str, priority: int, fits: bool) -> None:
    snapshot = make_snapshot(*_cluster(scheduler, priority))
    exp = explain(snapshot, make_pod("p").req(cpu="2").obj())
    assert exp.verdict == ("Schedulable" if fits else "Unschedulable")
    if not fits:
        assert exp.message.startswith("0/1 nodes are available: 1 Insufficient cpu.")
        assert exp.outcome is not None
        assert [pi.key for pi in exp.outcome.nodes[0].nominated_pods] == ["default/waiting"]


def test_second_pass_without_nominated_pods_can_fail() -> None:
    """Pod affinity to a nominated pod passes with it (pass 1) but not without it (pass 2)."""
    node = make_node("n1").alloc(cpu="4", memory="8Gi").obj()
    friend = make_pod("friend").labels(app="db").priority(10).nominated("n1").phase("Pending").obj()
    affinity = {
        "podAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}
            ]
        }
    }
    pod = make_pod("p").affinity(affinity).obj()
    exp = explain(make_snapshot(node, friend), pod)
    assert exp.verdict == "Unschedulable"
    assert exp.outcome is not None
    assert exp.outcome.nodes[0].first_failure is not None
    assert exp.outcome.nodes[0].first_failure.plugin == "InterPodAffinity"
