"""Nominated pods: the two filter passes, and which nominated pods a scheduler knows about."""

from __future__ import annotations

from collections.abc import Callable

import msgspec
import pytest

from podwhy.model import objects as o
from podwhy.scheduler.cycle import run_cycle
from tests.builders import PodBuilder, from_raw, make_node, make_pod, make_snapshot


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
    exp = run_cycle(snapshot, make_pod("p").req(cpu="2").obj())
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
    exp = run_cycle(make_snapshot(node, friend), pod)
    assert exp.verdict == "Unschedulable"
    assert exp.outcome is not None
    assert exp.outcome.nodes[0].first_failure is not None
    assert exp.outcome.nodes[0].first_failure.plugin == "InterPodAffinity"


# ------------------------------------------------------------------ PreFilter rejections x nominated pods
# When PreFilter rejects the pod, every node still gets each plugin's own verdict (the recordings
# evaluate plugins one by one, with the two passes of RunFilterPluginsWithNominatedPods): a plugin
# whose PreFilter failed or skipped reports that, the others run their Filter with the nominated
# pods added (AddPod only for plugins that hold PreFilter state).
def _unbound_immediate_claim() -> list[msgspec.Struct]:
    sc = from_raw(
        o.StorageClass,
        {"metadata": {"name": "fast"}, "provisioner": "x", "volumeBindingMode": "Immediate"},
    )
    pvc = from_raw(
        o.PersistentVolumeClaim,
        {"metadata": {"name": "data", "namespace": "default"}, "spec": {"storageClassName": "fast"}},
    )
    return [sc, pvc]


PRE_FILTER_REJECTIONS: dict[str, tuple[Callable[[PodBuilder], PodBuilder], list[msgspec.Struct], set[str]]] = {
    # name: (how the pod is changed, extra objects, plugins whose PreFilter rejects)
    "missing-pvc": (
        lambda p: p.pvc("data-missing"),
        [],
        {"VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone"},
    ),
    "unbound-immediate-pvc": (lambda p: p.pvc("data"), _unbound_immediate_claim(), {"VolumeBinding"}),
    "missing-resource-claim": (lambda p: p.resource_claim("gpu", claim="gpu-missing"), [], {"DynamicResources"}),
}


@pytest.mark.parametrize("rejection", sorted(PRE_FILTER_REJECTIONS))
@pytest.mark.parametrize(("nominated_priority", "reserved"), [(-1, False), (0, True), (10, True)])
@pytest.mark.parametrize("anti_affinity", [False, True])
def test_pre_filter_rejection_keeps_every_plugin_row_on_nominated_nodes(
    rejection: str, nominated_priority: int, reserved: bool, anti_affinity: bool
) -> None:
    change, extra, rejecting = PRE_FILTER_REJECTIONS[rejection]
    with_nominated = make_node("n1").alloc(cpu="4", memory="8Gi").obj()
    without = make_node("n2").alloc(cpu="4", memory="8Gi").obj()
    nominated = (
        make_pod("waiting").labels(app="db").req(cpu="3").priority(nominated_priority).nominated("n1").phase("Pending")
    )
    pod = change(make_pod("p").req(cpu="2"))
    if anti_affinity:
        term = {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}
        pod = pod.affinity({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}})
    exp = run_cycle(make_snapshot(with_nominated, without, nominated.obj(), *extra), pod.obj())
    assert exp.verdict == "Unschedulable"
    assert exp.outcome is not None
    rows = {v.name: {name: (st.code.name, st.reasons) for name, st in v.filters.items()} for v in exp.outcome.nodes}
    assert rows["n1"].keys() == rows["n2"].keys() and rows["n1"], "every plugin has a row on both nodes"
    for name in rejecting:
        assert rows["n1"][name] == rows["n2"][name] != ("Success", [])
    expected_n1 = dict(rows["n2"])
    if reserved:
        expected_n1["NodeResourcesFit"] = ("Unschedulable", ["Insufficient cpu"])
        if anti_affinity:
            expected_n1["InterPodAffinity"] = ("Unschedulable", ["node(s) didn't match pod anti-affinity rules"])
    assert rows["n1"] == expected_n1
    # Both nodes stop where the scheduler stops: at the PreFilter rejection.
    for verdict in exp.outcome.nodes:
        assert verdict.first_failure is not None and verdict.first_failure.plugin in rejecting
    assert [pi.key for pi in exp.outcome.nodes[0].nominated_pods] == (["default/waiting"] if reserved else [])


@pytest.mark.parametrize(
    ("pod_cpu", "nominated_priority", "want"),
    [
        ("2", 10, True),  # only the reservation stands in the way
        ("5", 10, False),  # too big even for the empty node
        ("2", -1, None),  # a lower-priority nomination is not counted
        ("1", 10, True),  # fits with the reservation too
    ],
)
def test_feasible_without_nominated(pod_cpu: str, nominated_priority: int, want: bool | None) -> None:
    snapshot = make_snapshot(*_cluster("default-scheduler", nominated_priority))
    exp = run_cycle(snapshot, make_pod("p").req(cpu=pod_cpu).obj())
    assert exp.outcome is not None
    assert exp.outcome.nodes[0].feasible_without_nominated is want


def test_table_says_which_nodes_fail_only_because_of_reservations() -> None:
    from rich.console import Console

    from podwhy.report.build.explain import build_report
    from podwhy.report.render.explain import render_table

    snapshot = make_snapshot(*_cluster("default-scheduler", 10))
    report = build_report(run_cycle(snapshot, make_pod("p").req(cpu="2").obj()), snapshot)
    console = Console(width=200, no_color=True, record=True)
    render_table(report, console=console)
    assert "1 node fails only because of room reserved by nominated pods (n1)" in console.export_text()
    render_table(report, node="n1", console=console)
    text = console.export_text()
    assert "default/waiting (priority 10; requests cpu 3000m" in text
    assert "Without that reserved room the pod would fit here." in text
