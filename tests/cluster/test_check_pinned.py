"""`check` of a pod manifest with spec.nodeName: never scheduled; the node's kubelet admits it
(lifecycle/predicate.go: the first failure, in the kubelet's words) or it is reported as such."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from podwhy.cli import app
from tests.builders import make_node
from tests.cluster.test_check import check, container
from tests.paths import REPO

Json = dict[str, Any]
EXAMPLE = REPO / "fixtures" / "examples" / "shop-cluster.yaml"


def pinned(name: str, node: str, **spec: Any) -> Json:
    body: Json = {"nodeName": node, "containers": [container(spec.pop("cpu", "100m"), spec.pop("host_port", None))]}
    body.update(spec)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": body}


NODE = make_node("n1").alloc(cpu="2", memory="8Gi", pods=110)


@pytest.mark.parametrize(
    ("node", "spec", "message"),
    [
        (
            NODE,
            {"cpu": "3"},
            "OutOfcpu: Node didn't have enough resource: cpu, requested: 3000, used: 0, capacity: 2000",
        ),
        (
            NODE,
            {"nodeSelector": {"disk": "ssd"}},
            "NodeAffinity: Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector",
        ),
        (
            make_node("n1").alloc(cpu="2", memory="8Gi", pods=110).taint("dedicated", "db", "NoExecute"),
            {},
            "TaintToleration: Predicate TaintToleration failed: node(s) had taints that the pod didn't tolerate",
        ),
    ],
    ids=["cpu", "node-selector", "no-execute-taint"],
)
def test_the_kubelet_rejects_what_does_not_fit(node: Any, spec: Json, message: str) -> None:
    report = check([node.obj()], pinned("p", "n1", **spec))
    (replica,) = report.workloads[0].replicas
    assert replica.node is None and replica.verdict == "Unschedulable"
    assert replica.message == f"the kubelet of n1 rejects it (spec.nodeName): {message}"


def test_a_no_schedule_taint_does_not_keep_a_pinned_pod_off() -> None:
    node = make_node("n1").alloc(cpu="2", memory="8Gi", pods=110).taint("dedicated", "db", "NoSchedule").obj()
    (replica,) = check([node], pinned("p", "n1")).workloads[0].replicas
    assert (replica.node, replica.verdict) == ("n1", "Schedulable")


def test_a_pinned_pod_is_counted_on_its_node() -> None:
    """Bound first, it takes the cpu a Deployment's replica then lacks there; the same host port too."""
    from tests.cluster.test_check import deployment

    report = check(
        [NODE.obj()],
        pinned("big", "n1", cpu="1500m", host_port=8080),
        deployment("web", 2, {"containers": [container("600m")]}),
        pinned("clash", "n1", host_port=8080),
    )
    big, web, clash = report.workloads
    assert big.replicas[0].node == "n1"
    assert [r.node for r in web.replicas] == [None, None]
    assert "Insufficient cpu" in (web.replicas[0].message or "")
    assert clash.replicas[0].message == (
        "the kubelet of n1 rejects it (spec.nodeName): NodePorts: Predicate NodePorts failed: "
        "node(s) didn't have free ports for the requested pod ports"
    )


def test_a_pod_pinned_to_a_missing_node_says_so() -> None:
    (replica,) = check([NODE.obj()], pinned("p", "n9")).workloads[0].replicas
    assert replica.node is None and replica.verdict == "Unschedulable"
    assert replica.message.startswith("spec.nodeName names node n9, which does not exist")


def test_the_pod_os_must_be_the_nodes() -> None:
    (replica,) = check([NODE.obj()], pinned("p", "n1", os={"name": "windows"})).workloads[0].replicas
    assert replica.message.endswith("PodOSNotSupported: Failed to admit pod as the OS field doesn't match node OS")


@pytest.mark.parametrize(
    ("reported", "label", "admitted"),
    [
        pytest.param("windows", None, True, id="reported"),
        pytest.param("windows", "linux", True, id="reported-over-label"),
        pytest.param("", "windows", True, id="label"),
        pytest.param("", None, False, id="neither: linux"),
    ],
)
def test_the_kubelet_compares_its_own_os(reported: str, label: str | None, admitted: bool) -> None:
    """The kubelet admits by its runtime.GOOS, which it reports in status.nodeInfo.operatingSystem."""
    from podwhy.model import objects as o

    node = NODE.obj()
    node.status.node_info = o.NodeSystemInfo(operating_system=reported)
    node.metadata.labels = {**node.metadata.labels, **({"kubernetes.io/os": label} if label else {})}
    (replica,) = check([node], pinned("p", "n1", os={"name": "windows"})).workloads[0].replicas
    assert (replica.node == "n1") is admitted


# ------------------------------------------------------------------ every workload kind
def test_a_replication_controller_makes_its_replicas() -> None:
    rc = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "nginx"},
        "spec": {
            "replicas": 3,
            "template": {"metadata": {"labels": {"app": "nginx"}}, "spec": {"containers": [container("1")]}},
        },
    }
    report = check([NODE.obj()], rc)
    (workload,) = report.workloads
    assert (workload.kind, workload.name) == ("ReplicationController", "nginx")
    assert [r.node for r in workload.replicas] == ["n1", "n1", None]  # 2 cpus: the third stays Pending
    assert all(r.name.startswith("nginx-") for r in workload.replicas)


def test_kinds_that_may_create_pods_are_listed_as_not_checked(tmp_path: Path) -> None:
    rollout = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout", "metadata": {"name": "web"}, "spec": {}}
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}}
    manifests = tmp_path / "m.yaml"
    manifests.write_text(yaml.safe_dump_all([rollout, config, pinned("p", "worker-a1")]))
    args = ["check", "-f", str(manifests), "--from", str(EXAMPLE), "--complete"]
    result = CliRunner().invoke(app, [*args, "-o", "json"])
    assert json.loads(result.stdout)["notChecked"] == [{"kind": "Rollout", "count": 1, "field": ""}]
    table = CliRunner().invoke(app, args, env={"COLUMNS": "120"})
    assert "Not checked: 1 Rollout: podwhy does not simulate their controllers" in table.stdout


def test_a_jobs_pod_failure_policy_is_listed_as_not_simulated(tmp_path: Path) -> None:
    policy = {"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}]}
    template = {"spec": {"restartPolicy": "Never", "containers": [container("100m")]}}
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "train"},
        "spec": {"completions": 2, "parallelism": 2, "podFailurePolicy": policy, "template": template},
    }
    plain = {**job, "metadata": {"name": "plain"}, "spec": {**job["spec"], "podFailurePolicy": None}}
    manifests = tmp_path / "m.yaml"
    manifests.write_text(yaml.safe_dump_all([job, plain]))
    args = ["check", "-f", str(manifests), "--from", str(EXAMPLE), "--complete"]
    result = CliRunner().invoke(app, [*args, "-o", "json"])
    report = json.loads(result.stdout)
    assert report["notChecked"] == [{"kind": "Job", "count": 1, "field": "spec.podFailurePolicy"}]
    assert [len(w["replicas"]) for w in report["workloads"]] == [2, 2]  # its pods are still placed
    table = CliRunner().invoke(app, args, env={"COLUMNS": "120"})
    assert "Not simulated: spec.podFailurePolicy of 1 Job: what the controller does once pods fail" in table.stdout


# ------------------------------------------------------------------ the queue's order
def test_higher_priority_replicas_are_placed_first_whatever_the_manifests_order() -> None:
    from podwhy.model import objects as o
    from tests.cluster.test_check import deployment

    high = o.PriorityClass(metadata=o.ObjectMeta(name="high"), value=1000)
    low = deployment("low", 1, {"containers": [container("1500m")]})
    urgent = deployment("urgent", 1, {"priorityClassName": "high", "containers": [container("1500m")]})
    report = check([NODE.obj(), high], low, urgent)
    assert [w.name for w in report.workloads] == ["low", "urgent"]  # reported in the manifests' order
    low_replica, urgent_replica = (w.replicas[0] for w in report.workloads)
    assert (urgent_replica.node, low_replica.node) == ("n1", None)  # placed by priority
    assert "higher priority first" in report.order


# ------------------------------------------------------------------ preemption
def test_a_higher_priority_replica_preempts_what_the_dry_run_names() -> None:
    """A running low-priority pod of a Deployment fills n1; the high-priority replica evicts it (the
    dry run's victim) and is placed there once it is gone; the report names the victim and its owner."""
    from podwhy.model import objects as o
    from tests.builders import make_pod
    from tests.cluster.test_check import deployment

    high = o.PriorityClass(metadata=o.ObjectMeta(name="high"), value=1000)
    busy = make_pod("busy-7d9f8-abcde").node("n1").priority(0).req(cpu="1800m").obj()
    busy.metadata.owner_references = [
        o.OwnerReference(api_version="apps/v1", kind="ReplicaSet", name="busy-7d9f8", uid="u1", controller=True)
    ]
    busy.metadata.labels = {"pod-template-hash": "7d9f8"}
    urgent = deployment("urgent", 1, {"priorityClassName": "high", "containers": [container("1500m")]})
    report = check([NODE.obj(), high, busy], urgent)
    (replica,) = report.workloads[0].replicas
    assert replica.node == "n1"
    assert replica.evicted == ["default/busy-7d9f8-abcde (default/busy (Deployment))"]
    assert replica.message.startswith("placed by preempting 1 pod(s) on n1")


def test_no_preemption_below_the_victims_priority() -> None:
    from tests.builders import make_pod
    from tests.cluster.test_check import deployment

    busy = make_pod("busy").node("n1").priority(1000).req(cpu="1800m").obj()
    low = deployment("low", 1, {"containers": [container("1500m")]})
    (replica,) = check([NODE.obj(), busy], low).workloads[0].replicas
    assert replica.node is None and replica.evicted == []
    assert "preemption:" in replica.message


def test_a_second_preemption_sees_the_budget_the_first_used_up() -> None:
    """Two running pods under a PodDisruptionBudget that allows one disruption, each alone on its
    node. The first high-priority replica evicts one within the budget; the disruption controller
    then allows none, so the second replica's eviction breaks the budget, and says so."""
    import msgspec

    from podwhy.model import objects as o
    from tests.builders import make_node, make_pod
    from tests.cluster.test_check import deployment

    high = o.PriorityClass(metadata=o.ObjectMeta(name="high"), value=1000)
    nodes = [make_node(n).alloc(cpu="2").obj() for n in ("n1", "n2")]
    running = [make_pod(f"web-{n}").labels(app="web").node(n).priority(0).req(cpu="1800m").obj() for n in ("n1", "n2")]
    pdb = msgspec.convert(
        {
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, "minAvailable": 1},
            "status": {"disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1, "expectedPods": 2},
        },
        o.PodDisruptionBudget,
    )
    urgent = deployment("urgent", 2, {"priorityClassName": "high", "containers": [container("1500m")]})
    report = check([*nodes, high, *running, pdb], urgent)
    first, second = report.workloads[0].replicas
    assert first.node and second.node and first.node != second.node
    assert first.violatedPdbs == [] and second.violatedPdbs == ["default/web"]


def _running(name: str, node: str, cpu: str) -> object:
    from podwhy.model import objects as o
    from tests.builders import make_pod

    pod = make_pod(name).node(node).priority(0).req(cpu=cpu).obj()
    pod.metadata.generate_name = "busy-7d9f8-"
    pod.metadata.labels = {"pod-template-hash": "7d9f8"}
    pod.metadata.owner_references = [
        o.OwnerReference(api_version="apps/v1", kind="ReplicaSet", name="busy-7d9f8", uid="u1", controller=True)
    ]
    return pod


def test_a_preempted_running_pod_is_recreated_and_scheduled_after_the_replicas() -> None:
    """The evicted pod's ReplicaSet creates it again: on one node it stays Pending (the urgent
    replica holds its room); with a second node that has room, it goes there."""
    from podwhy.model import objects as o
    from tests.builders import make_node
    from tests.cluster.test_check import deployment

    high = o.PriorityClass(metadata=o.ObjectMeta(name="high"), value=1000)
    urgent = deployment("urgent", 1, {"priorityClassName": "high", "containers": [container("1500m")]})
    alone = check([NODE.obj(), high, _running("busy-7d9f8-abcde", "n1", "1800m")], urgent)
    (displaced,) = alone.displaced
    assert (displaced.pod, displaced.owner, displaced.evictedBy) == (
        "default/busy-7d9f8-abcde",
        "default/busy (Deployment)",
        f"default/{alone.workloads[0].replicas[0].name}",
    )
    assert displaced.replacement.startswith("busy-7d9f8-") and displaced.node is None
    assert "Insufficient cpu" in displaced.message
    # A second node with room, but a taint the urgent replica does not tolerate: the replacement goes there.
    spare = make_node("n2").alloc(cpu="2", memory="8Gi", pods=110).taint("reserved", "low").obj()
    busy = _running("busy-7d9f8-abcde", "n1", "1800m")
    busy.spec.tolerations = [o.Toleration(key="reserved", operator="Exists")]
    (moved,) = check([NODE.obj(), spare, high, busy], urgent).displaced
    assert moved.node == "n2"
