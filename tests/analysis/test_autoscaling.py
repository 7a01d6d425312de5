"""Will a node come? Cluster Autoscaler and Karpenter read and simulated, outcome by outcome."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from podwhy.analysis.autoscaling import GroupOutcome, PodExclusion, Reason, analyse
from podwhy.analysis.pending import classify_pending
from podwhy.model import objects as o
from podwhy.report.build.autoscaling import autoscaling_report
from podwhy.report.words.autoscaling import evidence_text
from podwhy.report.words.pending import cause_text
from podwhy.report.words.suggest import command_text, suggestion_text
from podwhy.scheduler.config import default_config
from podwhy.scheduler.cycle import make_framework, run_cycle
from podwhy.snapshot.cluster import Snapshot
from podwhy.snapshot.source import FileSource
from podwhy.verdict import Verdict
from tests.builders import make_node, make_pod, make_snapshot
from tests.paths import REPO

FIXTURES = REPO / "fixtures" / "autoscaling"
T0 = "2025-03-10T12:00:00Z"


def _status(groups: list[dict[str, Any]]) -> o.ConfigMap:
    """A CA >= 1.30 status ConfigMap with these node groups (name, target, ready, max, scaleUp...)."""
    lines = ["autoscalerStatus: Running", "nodeGroups:"]
    for g in groups:
        lines += [
            f"- name: {g['name']}",
            "  health:",
            f"    status: {g.get('health', 'Healthy')}",
            f"    cloudProviderTarget: {g['target']}",
            f"    minSize: {g.get('min', 0)}",
            f"    maxSize: {g['max']}",
            "    nodeCounts:",
            f"      registered: {{total: {g['ready']}, ready: {g['ready']}, notStarted: 0}}",
            "  scaleUp:",
            f"    status: {g.get('scaleUp', 'NoActivity')}",
            f'    lastTransitionTime: "{T0}"',
        ]
        if "code" in g:
            lines += ["    backoffInfo:", f"      errorCode: {g['code']}", f"      errorMessage: {g['message']}"]
    lines.append(f"time: {T0}")
    return msgspec.convert(
        {
            "metadata": {"name": "cluster-autoscaler-status", "namespace": "kube-system"},
            "data": {"status": "\n".join(lines) + "\n"},
        },
        o.ConfigMap,
    )


def _event(pod: str, reason: str, message: str, component: str, at: str = T0) -> o.Event:
    return msgspec.convert(
        {
            "metadata": {"name": f"{pod}.{reason}", "namespace": "default"},
            "involvedObject": {"kind": "Pod", "name": pod, "namespace": "default"},
            "reason": reason,
            "message": message,
            "source": {"component": component},
            "lastTimestamp": at,
        },
        o.Event,
    )


def _node(name: str, group: str, cpu: str = "4", zone: str = "a") -> o.Node:
    return (
        make_node(name).alloc(cpu=cpu, memory="16Gi").labels({"alpha.eksctl.io/nodegroup-name": group}).zone(zone).obj()
    )


def _ready(node: o.Node) -> o.Node:
    node.status.conditions = [msgspec.convert({"type": "Ready", "status": "True"}, o.NodeCondition)]
    return node


def _snapshot(*objects: msgspec.Struct) -> Snapshot:
    snapshot = make_snapshot(*objects)
    snapshot.missing.clear()  # the whole cluster: it vouches for every kind
    return snapshot


def _analysis(snapshot: Snapshot, pod: o.Pod):  # type: ignore[no-untyped-def]
    framework = make_framework(snapshot, default_config().profiles[0])
    cycle = run_cycle(snapshot, pod, framework=framework)
    assert cycle.verdict == Verdict.UNSCHEDULABLE, cycle.message
    return analyse(snapshot, pod, cycle, framework)


BUSY = make_pod("busy").node("w1").req(cpu="3").obj()


# ------------------------------------------------------------------ Cluster Autoscaler, group by group
@pytest.mark.parametrize(
    ("group", "cpu", "outcome", "reason", "data"),
    [
        pytest.param(
            {"target": 1, "ready": 1, "max": 1},
            "2",
            GroupOutcome.RULED_OUT,
            Reason.GROUP_AT_MAX_SIZE,
            {"maxSize": 1, "fitsNewNode": True},
            id="at-max-size-would-fit",
        ),
        pytest.param(
            {"target": 1, "ready": 1, "max": 1},
            "6",
            GroupOutcome.RULED_OUT,
            Reason.GROUP_AT_MAX_SIZE,
            {"fitsNewNode": False},
            id="at-max-size-would-not-fit",
        ),
        pytest.param(
            {
                "target": 1,
                "ready": 1,
                "max": 5,
                "scaleUp": "Backoff",
                "code": "QUOTA_EXCEEDED",
                "message": "Quota 'CPUS' exceeded",
            },
            "2",
            GroupOutcome.RULED_OUT,
            Reason.GROUP_BACKOFF,
            {"errorCode": "QUOTA_EXCEEDED", "errorMessage": "Quota 'CPUS' exceeded"},
            id="backoff",
        ),
        pytest.param(
            {"target": 1, "ready": 1, "max": 5, "health": "Unhealthy"},
            "2",
            GroupOutcome.RULED_OUT,
            Reason.GROUP_UNHEALTHY,
            {},
            id="unhealthy",
        ),
        pytest.param(
            {"target": 1, "ready": 1, "max": 5},
            "6",
            GroupOutcome.RULED_OUT,
            Reason.POD_DOES_NOT_FIT_NEW_NODE,
            {"plugin": "NodeResourcesFit", "reasons": ["Insufficient cpu"]},
            id="too-big-for-a-new-node",
        ),
        pytest.param(
            {"target": 1, "ready": 1, "max": 5}, "2", GroupOutcome.CAN_ADD, None, {"example": "w1"}, id="can-add"
        ),
    ],
)
def test_cluster_autoscaler_group(
    group: dict[str, Any], cpu: str, outcome: GroupOutcome, reason: Reason | None, data: dict[str, Any]
) -> None:
    pod = make_pod("web").req(cpu=cpu).obj()
    snapshot = _snapshot(_ready(_node("w1", "ng-a")), BUSY, pod, _status([{"name": "ng-a", **group}]))
    (view,) = _analysis(snapshot, pod).views
    (finding,) = view.groups
    assert (finding.group, finding.outcome, finding.reason) == ("ng-a", outcome, reason)
    assert data.items() <= finding.data.items()


def test_the_text_status_of_older_releases_reads_the_same() -> None:
    cm = FileSource([str(FIXTURES / "ca-status-text.yaml")]).load().autoscaler_status
    pod = make_pod("web").req(cpu="6").obj()
    nodes = [_ready(_node("g1", "ng-general")), _ready(_node("p1", "ng-gpu"))]
    snapshot = _snapshot(*nodes, pod, *cm.values())
    findings = {g.group: g for g in _analysis(snapshot, pod).views[0].groups}
    assert findings["ng-general"].reason is Reason.GROUP_AT_MAX_SIZE
    assert findings["ng-gpu"].reason is Reason.GROUP_BACKOFF  # the text form names no error code


def _scaling_up(newest: str) -> tuple[Snapshot, o.Pod]:
    """A pod CA triggered a scale-up of ng-a for at T0 (ng-a still growing: target 2, ready 1),
    in a snapshot whose newest record is NEWEST."""
    pod = make_pod("web").req(cpu="2").obj()
    triggered = _event(
        "web", "TriggeredScaleUp", "pod triggered scale-up: [{ng-a 1->2 (max: 5)}]", "cluster-autoscaler"
    )
    later = _event("other", "Scheduled", "x", "default-scheduler", at=newest)
    status = _status([{"name": "ng-a", "target": 2, "ready": 1, "max": 5}])
    return _snapshot(_ready(_node("w1", "ng-a")), BUSY, pod, triggered, later, status), pod


def test_a_triggered_scale_up_in_progress_is_coming_and_pending_says_waiting() -> None:
    snapshot, pod = _scaling_up("2025-03-10T12:04:00Z")
    analysis = _analysis(snapshot, pod)
    coming = analysis.coming
    assert coming is not None and (coming.group, coming.age_seconds, coming.timeout_seconds) == ("ng-a", 240, 900)
    report = autoscaling_report(analysis)
    assert report.status == "Coming"
    assert [s.agrees for s in report.said] == [True]
    (item,) = [p for p in classify_pending(snapshot, default_config()) if p.pod is pod]
    assert item.verdict == Verdict.WAITING_FOR_NODE
    assert "ng-a" in cause_text(item.cause) and Verdict.WAITING_FOR_NODE.exit_code == 4


def test_a_scale_up_past_its_provision_timeout_is_overdue_not_waiting() -> None:
    snapshot, pod = _scaling_up("2025-03-10T12:30:00Z")  # 30 minutes on: past CA's 15
    analysis = _analysis(snapshot, pod)
    assert analysis.coming is None and analysis.views[0].coming is not None and analysis.views[0].coming.overdue
    (item,) = [p for p in classify_pending(snapshot, default_config()) if p.pod is pod]
    assert item.verdict == Verdict.UNSCHEDULABLE


def test_a_not_triggered_scale_up_is_shown_in_full_and_compared() -> None:
    pod = make_pod("web").req(cpu="2").obj()
    said = "pod didn't trigger scale-up: 1 max node group size reached"
    snapshot = _snapshot(
        _ready(_node("w1", "ng-a")),
        BUSY,
        pod,
        _event("web", "NotTriggerScaleUp", said, "cluster-autoscaler"),
        _status([{"name": "ng-a", "target": 1, "ready": 1, "max": 1}]),
    )
    report = autoscaling_report(_analysis(snapshot, pod))
    assert report.status == "NotComing"
    assert [(s.reason, s.message, s.agrees) for s in report.said] == [("NotTriggerScaleUp", said, True)]


def test_an_expendable_pod_never_triggers_a_scale_up() -> None:
    pod = make_pod("batch").priority(-20).req(cpu="2").obj()
    snapshot = _snapshot(
        _ready(_node("w1", "ng-a")), BUSY, pod, _status([{"name": "ng-a", "target": 1, "ready": 1, "max": 5}])
    )
    (view,) = _analysis(snapshot, pod).views
    assert view.excluded is PodExclusion.EXPENDABLE
    assert autoscaling_report(_analysis(snapshot, pod)).status == "NotComing"


# ------------------------------------------------------------------ Karpenter
def _pool(name: str, **spec: Any) -> o.NodePool:
    status = spec.pop("status", {"conditions": [{"type": "Ready", "status": "True"}]})
    return msgspec.convert({"metadata": {"name": name}, "spec": spec, "status": status}, o.NodePool)


ZONES_AB = {
    "template": {
        "spec": {"requirements": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["a", "b"]}]}
    }
}


@pytest.mark.parametrize(
    ("pool", "pod", "reason", "data"),
    [
        pytest.param(
            ZONES_AB,
            make_pod("web").req(cpu="2").node_selector({"topology.kubernetes.io/zone": "c"}),
            Reason.REQUIREMENTS_EXCLUDE_POD,
            {"key": "topology.kubernetes.io/zone"},
            id="zone-excluded",
        ),
        pytest.param(
            {
                "template": {
                    "spec": {"requirements": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]}]}
                }
            },
            make_pod("web").req(cpu="2").node_affinity_in("kubernetes.io/arch", "amd64"),
            Reason.REQUIREMENTS_EXCLUDE_POD,
            {"key": "kubernetes.io/arch"},
            id="arch-excluded",
        ),
        pytest.param(
            {"template": {"spec": {}}},
            make_pod("web").req(cpu="2").node_selector({"team": "x"}),
            Reason.REQUIREMENTS_EXCLUDE_POD,
            {"key": "team"},
            id="label-without-known-values",
        ),
        pytest.param(
            {"template": {"spec": {"taints": [{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]}}},
            make_pod("web").req(cpu="2"),
            Reason.TAINT_NOT_TOLERATED,
            {"taint": "gpu=yes:NoSchedule"},
            id="taint",
        ),
        pytest.param(
            {
                "template": {"spec": {}},
                "limits": {"cpu": "10"},
                "status": {"resources": {"cpu": "9"}, "conditions": [{"type": "Ready", "status": "True"}]},
            },
            make_pod("web").req(cpu="2"),
            Reason.LIMITS_REACHED,
            {"resource": "cpu", "limit": "10"},
            id="limits",
        ),
        pytest.param(
            {
                "template": {"spec": {}},
                "status": {
                    "conditions": [
                        {
                            "type": "Ready",
                            "status": "False",
                            "reason": "NodeClassNotFound",
                            "message": "NodeClass not found on cluster",
                        }
                    ]
                },
            },
            make_pod("web").req(cpu="2"),
            Reason.NODEPOOL_NOT_READY,
            {"reason": "NodeClassNotFound"},
            id="not-ready",
        ),
        pytest.param(
            ZONES_AB,
            make_pod("web").req(cpu="2").node_selector({"topology.kubernetes.io/zone": "b"}),
            None,
            {},
            id="compatible",
        ),
    ],
)
def test_karpenter_nodepool(pool: dict[str, Any], pod: Any, reason: Reason | None, data: dict[str, Any]) -> None:
    target = pod.obj()
    snapshot = _snapshot(_ready(_node("w1", "ng-a", cpu="1")), target, _pool("default", **pool))
    (view,) = _analysis(snapshot, target).views
    (finding,) = view.groups
    assert finding.reason is reason
    assert finding.outcome is (GroupOutcome.CAN_ADD if reason is None else GroupOutcome.RULED_OUT)
    assert data.items() <= finding.data.items()


def test_a_pods_volume_zone_counts_against_the_pools_zones() -> None:
    pv = msgspec.convert(
        {
            "metadata": {"name": "pv1"},
            "spec": {
                "nodeAffinity": {
                    "required": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["c"]}
                                ]
                            }
                        ]
                    }
                }
            },
        },
        o.PersistentVolume,
    )
    pvc = msgspec.convert(
        {
            "metadata": {"name": "data", "namespace": "default"},
            "spec": {"volumeName": "pv1"},
            "status": {"phase": "Bound"},
        },
        o.PersistentVolumeClaim,
    )
    pod = make_pod("web").req(cpu="2").pvc("data").obj()
    snapshot = _snapshot(_ready(_node("w1", "ng-a", cpu="1", zone="c")), pod, pv, pvc, _pool("default", **ZONES_AB))
    (finding,) = _analysis(snapshot, pod).views[0].groups
    assert (finding.reason, finding.data["key"]) == (Reason.REQUIREMENTS_EXCLUDE_POD, "topology.kubernetes.io/zone")


def _claim(name: str, conditions: list[dict[str, str]]) -> o.NodeClaim:
    return msgspec.convert(
        {
            "metadata": {"name": name, "labels": {"karpenter.sh/nodepool": "default"}, "creationTimestamp": T0},
            "status": {"conditions": conditions},
        },
        o.NodeClaim,
    )


def test_a_nominated_nodeclaim_being_launched_is_coming() -> None:
    pod = make_pod("web").req(cpu="2").obj()
    nominated = _event("web", "Nominated", "Pod should schedule on: nodeclaim/default-9k4qz", "karpenter")
    claim = _claim(
        "default-9k4qz", [{"type": "Launched", "status": "Unknown", "lastTransitionTime": "2025-03-10T12:02:00Z"}]
    )
    snapshot = _snapshot(
        _ready(_node("w1", "ng-a", cpu="1")), pod, nominated, claim, _pool("default", template={"spec": {}})
    )
    analysis = _analysis(snapshot, pod)
    coming = analysis.coming
    assert coming is not None and (coming.group, coming.age_seconds, coming.timeout_seconds) == ("default", 120, 300)
    assert "default-9k4qz launching" in evidence_text(coming.evidence)


def test_a_nominated_nodeclaim_that_is_gone_is_not_coming() -> None:
    pod = make_pod("web").req(cpu="2").obj()
    nominated = _event("web", "Nominated", "Pod should schedule on: nodeclaim/default-9k4qz", "karpenter")
    snapshot = _snapshot(_ready(_node("w1", "ng-a", cpu="1")), pod, nominated, _pool("default", template={"spec": {}}))
    report = autoscaling_report(_analysis(snapshot, pod))
    assert report.coming is None and report.status == "CanAdd"
    assert [s.agrees for s in report.said] == [False]  # Karpenter said a node was coming; it is gone


# ------------------------------------------------------------------ what the snapshot can tell
def test_a_plain_dump_cannot_tell_and_says_how_to_add_them(tmp_path: Path) -> None:
    dump = tmp_path / "c.yaml"
    pod = "{apiVersion: v1, kind: Pod, metadata: {name: web, namespace: default}, spec: {containers: [{name: c, "
    pod += 'resources: {requests: {cpu: "2"}}}]}}'
    node = '{apiVersion: v1, kind: Node, metadata: {name: w1}, status: {allocatable: {cpu: "1", pods: "10"}}}'
    dump.write_text(f"apiVersion: v1\nkind: List\nitems:\n- {node}\n- {pod}\n")
    snapshot = FileSource([str(dump)]).load()
    report = autoscaling_report(_analysis(snapshot, snapshot.pods[0]))
    assert report.status == "NotEvaluated"
    assert "cannot vouch" in report.summary
    assert any("cluster-autoscaler-status" in line for line in report.notEvaluated)


def test_a_whole_cluster_without_autoscalers_says_none() -> None:
    pod = make_pod("web").req(cpu="2").obj()
    snapshot = _snapshot(_ready(_node("w1", "ng-a", cpu="1")), pod)
    assert autoscaling_report(_analysis(snapshot, pod)).status == "NoAutoscaler"


# ------------------------------------------------------------------ the autoscalers' levers
def _levers(snapshot: Snapshot, pod: o.Pod) -> list[Any]:
    from podwhy.analysis.suggest import suggest

    config = default_config()
    framework = make_framework(snapshot, config.profiles[0])
    cycle = run_cycle(snapshot, pod, framework=framework)
    analysis = analyse(snapshot, pod, cycle, framework)
    made = suggest(snapshot, cycle, config.profiles[0], config=config, framework=framework, autoscaling=analysis)
    return [s for s in made if s.kind in ("raiseGroupMaxSize", "addNodePoolZone", "raiseNodePoolLimit")]


def test_a_group_at_max_size_that_would_fit_the_pod_gets_its_max_raised_in_the_cloud() -> None:
    pod = make_pod("web").req(cpu="2").obj()
    snapshot = _snapshot(
        _ready(_node("w1", "ng-a")), BUSY, pod, _status([{"name": "ng-a", "target": 1, "ready": 1, "max": 1}])
    )
    (lever,) = _levers(snapshot, pod)
    assert lever.kind == "raiseGroupMaxSize" and "from 1 to 2" in suggestion_text(lever)
    assert (
        command_text(lever.command).startswith("# set ") and lever.patches == []
    )  # cloud configuration: no invented command


def test_a_cluster_api_group_gets_a_patch_of_its_max_size_annotation() -> None:
    pod = make_pod("web").req(cpu="2").obj()
    node = _ready(_node("w1", "x"))
    node.metadata.annotations = {
        "cluster.x-k8s.io/owner-kind": "MachineSet",
        "cluster.x-k8s.io/owner-name": "workers-7f9c",
        "cluster.x-k8s.io/cluster-namespace": "capi",
    }
    snapshot = _snapshot(
        node, BUSY, pod, _status([{"name": "MachineDeployment/capi/workers", "target": 1, "ready": 1, "max": 1}])
    )
    (lever,) = _levers(snapshot, pod)
    assert command_text(lever.command) == (
        "kubectl patch machinedeployment.cluster.x-k8s.io workers -n capi --type merge -p "
        '\'{"metadata":{"annotations":{"cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size":"2"}}}\''
    )


def test_a_group_at_max_size_the_pod_would_not_fit_anyway_gets_no_lever() -> None:
    pod = make_pod("web").req(cpu="6").obj()
    snapshot = _snapshot(
        _ready(_node("w1", "ng-a")), BUSY, pod, _status([{"name": "ng-a", "target": 1, "ready": 1, "max": 1}])
    )
    assert _levers(snapshot, pod) == []


def test_a_nodepool_excluding_the_pods_zone_gets_it_added_verified() -> None:
    pod = make_pod("web").req(cpu="2").node_selector({"topology.kubernetes.io/zone": "c"}).obj()
    snapshot = _snapshot(_ready(_node("w1", "ng-a", cpu="1")), pod, _pool("default", **ZONES_AB))
    (lever,) = _levers(snapshot, pod)
    assert lever.kind == "addNodePoolZone"
    (patch,) = lever.patches
    assert patch["patch"]["spec"]["template"]["spec"]["requirements"][0]["values"] == ["a", "b", "c"]
    assert command_text(lever.command).startswith("kubectl patch nodepool.karpenter.sh default --type merge -p '")


def test_a_nodepool_at_its_cpu_limit_gets_it_raised_to_what_the_pod_needs() -> None:
    pool = {
        "template": {"spec": {}},
        "limits": {"cpu": "10", "memory": "100Gi"},
        "status": {"resources": {"cpu": "9500m"}, "conditions": [{"type": "Ready", "status": "True"}]},
    }
    pod = make_pod("web").req(cpu="2").obj()
    snapshot = _snapshot(_ready(_node("w1", "ng-a", cpu="1")), pod, _pool("default", **pool))
    (lever,) = _levers(snapshot, pod)
    assert lever.kind == "raiseNodePoolLimit"
    assert lever.patches[0]["patch"] == {"spec": {"limits": {"cpu": "12"}}}


# ------------------------------------------------------------------ Cluster Autoscaler's words
@pytest.mark.parametrize(
    ("message", "counts"),
    [
        ("pod didn't trigger scale-up: 1 max node group size reached", {"max node group size reached": 1}),
        (
            "pod didn't trigger scale-up: 2 node(s) didn't match Pod's node affinity/selector, "
            "1 max cluster cpu, memory limit reached, 3 Insufficient cpu",
            {
                "node(s) didn't match Pod's node affinity/selector": 2,
                "max cluster cpu, memory limit reached": 1,
                "Insufficient cpu": 3,
            },
        ),
        ("pod didn't trigger scale-up: max total nodes in cluster reached", {}),
        ("pod didn't trigger scale-up: ", {}),
        ("pod triggered scale-up: [{ng-a 1->2 (max: 5)}]", {}),
    ],
)
def test_not_trigger_scale_up_reasons_are_counted_as_ca_counts_them(message: str, counts: dict[str, int]) -> None:
    from podwhy.analysis.autoscaling.clusterautoscaler import not_trigger_counts

    assert not_trigger_counts(message) == counts


def test_a_pod_younger_than_its_scale_up_delay_is_left_alone() -> None:
    pod = make_pod("web").req(cpu="2").obj()
    pod.metadata.creation_timestamp = "2025-03-10T11:58:00Z"
    pod.metadata.annotations = {"cluster-autoscaler.kubernetes.io/pod-scale-up-delay": "10m"}
    said = _event("web", "NotTriggerScaleUp", "pod didn't trigger scale-up: ", "cluster-autoscaler")
    snapshot = _snapshot(
        _ready(_node("w1", "ng-a")), BUSY, pod, said, _status([{"name": "ng-a", "target": 1, "ready": 1, "max": 5}])
    )
    (view,) = _analysis(snapshot, pod).views
    assert view.excluded is PodExclusion.SCALE_UP_DELAYED  # 2 minutes old, 10 minutes of delay
    pod.metadata.creation_timestamp = "2025-03-10T11:00:00Z"
    (view,) = _analysis(snapshot, pod).views
    assert view.excluded is None


def test_the_text_status_takes_the_cloud_error_from_cas_last_failure_event() -> None:
    """The text status says only Backoff; CA's ScaleUpFailed event on it names the error."""
    cm = FileSource([str(FIXTURES / "ca-status-text.yaml")]).load().autoscaler_status
    failed = msgspec.convert(
        {
            "metadata": {"name": "cluster-autoscaler-status.1", "namespace": "kube-system"},
            "involvedObject": {"kind": "ConfigMap", "name": "cluster-autoscaler-status", "namespace": "kube-system"},
            "reason": "ScaleUpFailed",
            "message": "Failed adding 1 nodes to group ng-gpu due to OutOfResource.placeholder-cannot-be-fulfilled; "
            "source errors: AWS cannot provision any more instances for this node group",
            "source": {"component": "cluster-autoscaler"},
            "lastTimestamp": T0,
        },
        o.Event,
    )
    pod = make_pod("web").req(cpu="6").obj()
    snapshot = _snapshot(_ready(_node("p1", "ng-gpu")), pod, failed, *cm.values())
    findings = {g.group: g for g in _analysis(snapshot, pod).views[0].groups}
    backoff = findings["ng-gpu"]
    assert backoff.reason is Reason.GROUP_BACKOFF
    assert backoff.data["errorCode"] == "OutOfResource.placeholder-cannot-be-fulfilled"
    assert backoff.data["errorMessage"] == "AWS cannot provision any more instances for this node group"


@pytest.mark.parametrize(
    ("message", "limit"),
    [
        ("pod didn't trigger scale-up: max total nodes in cluster reached", "max total nodes in cluster reached"),
        (
            "pod didn't trigger scale-up: 2 max cluster cpu, memory limit reached",
            "max cluster cpu, memory limit reached",
        ),
        (
            'pod didn\'t trigger scale-up: 1 Insufficient cpu, 3 exceeded quota: "cluster-wide", resources: cpu',
            'exceeded quota: "cluster-wide", resources: cpu',
        ),
        ("pod didn't trigger scale-up: 1 max node group size reached", ""),
    ],
)
def test_a_cluster_wide_limit_ca_names_rules_every_group_out(message: str, limit: str) -> None:
    pod = make_pod("web").req(cpu="2").obj()
    said = _event("web", "NotTriggerScaleUp", message, "cluster-autoscaler")
    snapshot = _snapshot(
        _ready(_node("w1", "ng-a")), BUSY, pod, said, _status([{"name": "ng-a", "target": 1, "ready": 1, "max": 5}])
    )
    analysis = _analysis(snapshot, pod)
    assert analysis.views[0].cluster_limit == limit
    report = autoscaling_report(analysis)
    assert report.status == ("NotComing" if limit else "CanAdd")


# ------------------------------------------------------------------ one verdict per group
def _suggested(snapshot: Snapshot, pod: o.Pod) -> list[Any]:
    from podwhy.analysis.suggest import suggest

    config = default_config()
    framework = make_framework(snapshot, config.profiles[0])
    cycle = run_cycle(snapshot, pod, framework=framework)
    analysis = analyse(snapshot, pod, cycle, framework)
    return suggest(snapshot, cycle, config.profiles[0], config=config, framework=framework, autoscaling=analysis)


@pytest.mark.parametrize(
    ("group", "says", "command"),
    [
        pytest.param(
            {"name": "ng-a", "target": 1, "ready": 1, "max": 1},
            "; its group ng-a is at its max size (1/1): ClusterAutoscaler adds it once that is raised",
            "# raise the max size of ng-a (1) first: ClusterAutoscaler adds no node to it before",
            id="at-max-size",
        ),
        pytest.param(
            {"name": "ng-a", "target": 1, "ready": 1, "max": 5},
            "; ClusterAutoscaler can add it to its group ng-a",
            "# nothing to run: ClusterAutoscaler can add a node like w1 to its group ng-a",
            id="can-add",
        ),
        pytest.param(
            {"name": "ng-other", "target": 1, "ready": 1, "max": 5},
            "; it is in no node group of ClusterAutoscaler: add it by hand",
            "# add a node like w1 (by hand: it is in no node group of ClusterAutoscaler)",
            id="in-no-group",
        ),
    ],
)
def test_adding_a_node_says_its_groups_one_verdict(group: dict[str, Any], says: str, command: str) -> None:
    pod = make_pod("web").req(cpu="2").obj()
    snapshot = _snapshot(_ready(_node("w1", "ng-a")), BUSY, pod, _status([group]))
    made = _suggested(snapshot, pod)
    (add,) = [s for s in made if s.kind == "addNode"]
    text = suggestion_text(add)
    assert text.endswith(says) and command_text(add.command) == command
    assert "would add a node like it" not in text + command_text(add.command)
    # The lever appears where it applies: a group at its max size whose new node fits the pod.
    assert any(s.kind == "raiseGroupMaxSize" for s in made) == (group["max"] == 1)


def test_without_an_autoscaler_adding_a_node_invents_none() -> None:
    pod = make_pod("web").req(cpu="2").obj()
    snapshot = _snapshot(_ready(_node("w1", "ng-a")), BUSY, pod)
    (add,) = [s for s in _suggested(snapshot, pod) if s.kind == "addNode"]
    assert suggestion_text(add).endswith("; the cluster runs no autoscaler: add it by hand")
    assert (
        command_text(add.command)
        == "# scale the node group of w1 up by 1 (by hand: no autoscaler is known to add a node like it)"
    )


def test_pending_gives_a_group_at_its_max_size_the_lever_sized_by_the_group() -> None:
    from podwhy.engine import PendingRequest, pending

    pods = [make_pod(f"web-{i}").owner("ReplicaSet", "web-5f7c9").req(cpu="2").obj() for i in range(3)]
    snapshot = _snapshot(
        _ready(_node("w1", "ng-a")), BUSY, *pods, _status([{"name": "ng-a", "target": 1, "ready": 1, "max": 1}])
    )

    class Given:
        def load(self) -> Snapshot:
            return snapshot

    report = pending(PendingRequest(Given(), "default"))
    (group,) = [g for g in report.groups if g.verdict == Verdict.UNSCHEDULABLE]
    kinds = [s.kind for s in group.suggestions]
    assert kinds == ["addNodesForGroup", "raiseGroupMaxSize"]
    added, raised = group.suggestions
    assert "at its max size (1/1)" in added.summary and "would add" not in added.command
    # 3 pods of 2 cpu on new 4-cpu nodes: 2 more nodes, so the max goes from 1 to 3.
    assert "from 1 to 3" in raised.summary
    assert group.autoscaling is not None and "max size" in autoscaling_line_of(group.autoscaling)


def autoscaling_line_of(report: Any) -> str:
    from podwhy.report.render.pending import autoscaling_line

    return autoscaling_line(report)


def test_pending_gives_a_group_one_lever_when_several_node_groups_are_at_their_max_size() -> None:
    from podwhy.engine import PendingRequest, pending

    pods = [make_pod(f"web-{i}").owner("ReplicaSet", "web-5f7c9").req(cpu="2").obj() for i in range(3)]
    busy_b = make_pod("busy-b").node("w2").req(cpu="3").obj()
    groups = [{"name": name, "target": 1, "ready": 1, "max": 1} for name in ("ng-a", "ng-b")]
    snapshot = _snapshot(_ready(_node("w1", "ng-a")), _ready(_node("w2", "ng-b")), BUSY, busy_b, *pods, _status(groups))

    class Given:
        def load(self) -> Snapshot:
            return snapshot

    report = pending(PendingRequest(Given(), "default"))
    (group,) = [g for g in report.groups if g.verdict == Verdict.UNSCHEDULABLE]
    raised = [s for s in group.suggestions if s.kind == "raiseGroupMaxSize"]
    added = [s for s in group.suggestions if s.kind == "addNodesForGroup"]
    assert len(raised) == 1 and len(added) == 1
    # The lever raises the group of the node the sizing copied, by the nodes it adds.
    like = "w1" if "shaped like w1" in added[0].summary else "w2"
    assert f"ng-{'a' if like == 'w1' else 'b'}" in raised[0].summary and "from 1 to 3" in raised[0].summary
