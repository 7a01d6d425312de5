"""Queue blockers: a ClusterQueue's Active condition, after Kueue's pkg/cache/scheduler/clusterqueue_test.go
(TestClusterQueueUpdateWithFlavors, TestClusterQueueUpdateWithAdmissionCheck,
TestClusterQueueReadinessWithTAS), a LocalQueue's (localqueue_controller.go), and the workload
controller's QuotaReserved=False condition for a queue blocker (workload_controller_test.go's
"inadmissible workload due to missing LocalQueue", "... stopped ClusterQueue", "workload that is
deactivated ...", "... should transition to Inadmissible when queue is missing (observability
disabled)")."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from podwhy.cluster.kueue import names
from podwhy.cluster.kueue.blockers import (
    QueueStatus,
    cluster_queue_status,
    local_queue_status,
    namespace_blocker,
    queue_blocker,
    resources_blocker,
)
from podwhy.model import objects as o
from tests.cluster.kueue.builders import cluster_queue, flavor_quotas, group, pod_set, resource_flavor, workload

X86 = {"x86": resource_flavor("x86")}
READY = ("Ready", "Can admit new workloads")


def test_update_with_flavors() -> None:
    """Upstream TestClusterQueueUpdateWithFlavors: active with its flavors, pending without,
    terminating whatever its flavors."""
    cq = cluster_queue("cq", group(flavor_quotas("x86", cpu="5")))
    assert cluster_queue_status(cq, X86).active
    missing = cluster_queue_status(cq, {})
    assert (missing.active, missing.reason, missing.message) == (
        False,
        "FlavorNotFound",
        "Can't admit new workloads: references missing ResourceFlavor(s): x86.",
    )
    terminating = msgspec.structs.replace(
        cq, metadata=o.ObjectMeta(name="cq", deletion_timestamp="2026-08-01T00:00:00Z")
    )
    for flavors in (X86, {}):
        status = cluster_queue_status(terminating, flavors)
        assert (status.active, status.reason, status.message) == (
            False,
            "Terminating",
            "Can't admit new workloads; clusterQueue is terminating",
        )


def _check(name: str, controller: str, active: bool = True) -> o.AdmissionCheck:
    cond = [{"type": "Active", "status": "True" if active else "False"}]
    return msgspec.convert(
        {"metadata": {"name": name}, "spec": {"controllerName": controller}, "status": {"conditions": cond}},
        o.AdmissionCheck,
    )


AC_CQ = cluster_queue(
    "cq", spec={"admissionChecksStrategy": {"admissionChecks": [{"name": f"check{i}"} for i in (1, 2, 3)]}}
)
AC_CASES: dict[str, tuple[list[o.AdmissionCheck], tuple[str, str]]] = {
    "Pending clusterQueue updated valid AC list": (
        [_check("check1", "controller1"), _check("check2", "controller2"), _check("check3", "controller3")],
        READY,
    ),
    "Active clusterQueue updated with not found AC": (
        [_check("check1", "controller1"), _check("check2", "controller2")],
        ("AdmissionCheckNotFound", "Can't admit new workloads: references missing AdmissionCheck(s): check3."),
    ),
    "Active clusterQueue updated with inactive AC": (
        [
            _check("check1", "controller1"),
            _check("check2", "controller2"),
            _check("check3", "controller3", active=False),
        ],
        ("AdmissionCheckInactive", "Can't admit new workloads: references inactive AdmissionCheck(s): check3."),
    ),
    "Active clusterQueue with an MultiKueue AC strategy updated with duplicate single instance AC Controller": (
        [
            _check("check1", names.MULTIKUEUE_CONTROLLER),
            _check("check2", "controller2"),
            _check("check3", names.MULTIKUEUE_CONTROLLER),
        ],
        (
            "MultipleMultiKueueAdmissionChecks",
            "Can't admit new workloads: Cannot use multiple MultiKueue AdmissionChecks on the same ClusterQueue, "
            "found: check1,check3.",
        ),
    ),
    "Active clusterQueue with both MultiKueue and ProvisioningRequest ACs": (
        [
            _check("check1", names.MULTIKUEUE_CONTROLLER),
            _check("check2", "controller2"),
            _check("check3", names.PROVISIONING_REQUEST_CONTROLLER),
        ],
        (
            "MultiKueueWithProvisioningRequest",
            "Can't admit new workloads: Cannot use both MultiKueue and ProvisioningRequest AdmissionChecks together, "
            "found: check1, check3.",
        ),
    ),
    "Active clusterQueue with an AC strategy updated": (
        [_check("check1", "controller1"), _check("check2", "controller2"), _check("check3", "controller2")],
        READY,
    ),
}


@pytest.mark.parametrize("name", list(AC_CASES))
def test_update_with_admission_check(name: str) -> None:
    """Upstream TestClusterQueueUpdateWithAdmissionCheck (its strategy ClusterQueue: v1beta2 has
    no spec.admissionChecks)."""
    checks, (reason, message) = AC_CASES[name]
    status = cluster_queue_status(AC_CQ, {}, {c.metadata.name: c for c in checks})
    assert (status.active, status.reason, status.message) == (reason == "Ready", reason, message)


def test_readiness_with_tas() -> None:
    """Upstream TestClusterQueueReadinessWithTAS: a TAS flavor's Topology must exist."""
    cq = cluster_queue("cq", group(flavor_quotas("tas-flavor", **{"example.com/gpu": "5"})))
    flavors = {
        "tas-flavor": resource_flavor("tas-flavor", {"kubernetes.io/hostname": "x"}, topology="example-topology")
    }
    topology = msgspec.convert(
        {"metadata": {"name": "example-topology"}, "spec": {"levels": [{"nodeLabel": "kubernetes.io/hostname"}]}},
        o.Topology,
    )
    ready = cluster_queue_status(cq, flavors, {}, {"example-topology": topology})
    assert (ready.reason, ready.message) == READY
    missing = cluster_queue_status(cq, flavors, {}, {})
    assert (missing.active, missing.reason, missing.message) == (
        False,
        "TopologyNotFound",
        'Can\'t admit new workloads: there is no Topology "example-topology" for TAS flavor "tas-flavor".',
    )
    without_tas = cluster_queue_status(cq, flavors, {}, {}, gates={names.TOPOLOGY_AWARE_SCHEDULING: False})
    assert without_tas.active


def test_stopped_and_several_reasons() -> None:
    """inactiveReason: the first reason, every message joined."""
    cq = cluster_queue("cq", group(flavor_quotas("gone", cpu="1")), spec={"stopPolicy": "Hold"})
    status = cluster_queue_status(cq, {})
    assert status == QueueStatus(
        False,
        "Stopped",
        "Can't admit new workloads: is stopped, references missing ResourceFlavor(s): gone.",
        ("Stopped", "FlavorNotFound"),
    )


def test_local_queue_status() -> None:
    """The LocalQueue controller's Active condition."""
    lq = msgspec.convert({"metadata": {"name": "lq", "namespace": "ns"}, "spec": {"clusterQueue": "cq"}}, o.LocalQueue)
    cq = cluster_queue("cq")
    ready = QueueStatus(True, *READY)
    assert local_queue_status(lq, cq, ready) == QueueStatus(True, "Ready", "Can submit new workloads to localQueue")
    assert local_queue_status(lq, None, None) == QueueStatus(
        False, "ClusterQueueDoesNotExist", "Can't submit new workloads to clusterQueue"
    )
    inactive = QueueStatus(False, "Stopped", "x")
    assert local_queue_status(lq, cq, inactive).reason == "ClusterQueueIsInactive"
    stopped = msgspec.structs.replace(lq, spec=o.LocalQueueSpec(cluster_queue="cq", stop_policy="HoldAndDrain"))
    assert local_queue_status(stopped, cq, ready) == QueueStatus(False, "Stopped", "LocalQueue is stopped")


def _lq(name: str = "lq", stop: str = "None") -> o.LocalQueue:
    return msgspec.convert(
        {"metadata": {"name": name, "namespace": "ns"}, "spec": {"clusterQueue": "cq", "stopPolicy": stop}},
        o.LocalQueue,
    )


BLOCKER_CASES: dict[str, tuple[dict[str, Any], bool, o.LocalQueue | None, bool, bool, tuple[str, str] | None]] = {
    # (workload spec, with a ClusterQueue, LocalQueue, ClusterQueue active, gate, want (reason, message))
    "inadmissible workload due to missing LocalQueue (observability enabled)": (
        {"queueName": "non-existent-lq"},
        True,
        None,
        True,
        True,
        ("Misconfigured", "LocalQueue non-existent-lq doesn't exist"),
    ),
    (
        "workload with granular PendingEvaluation reason should transition to Inadmissible when queue is missing "
        "(observability disabled)"
    ): (
        {"queueName": "lq"},
        True,
        None,
        True,
        False,
        ("Inadmissible", "LocalQueue lq doesn't exist"),
    ),
    "workload without a queue name": (
        {"queueName": ""},
        False,
        None,
        True,
        True,
        ("Misconfigured", "LocalQueue  doesn't exist"),
    ),
    "inadmissible workload due to stopped ClusterQueue (observability enabled)": (
        {"queueName": "lq"},
        True,
        _lq(),
        False,
        True,
        ("Suspended", "ClusterQueue cq is inactive"),
    ),
    "stopped LocalQueue": (
        {"queueName": "lq"},
        True,
        _lq(stop="Hold"),
        True,
        True,
        ("Suspended", "LocalQueue lq is inactive"),
    ),
    "missing ClusterQueue": (
        {"queueName": "lq"},
        False,
        _lq(),
        True,
        True,
        ("Misconfigured", "ClusterQueue cq doesn't exist"),
    ),
    "workload that is deactivated should set QuotaReserved condition to Deactivated (observability enabled)": (
        {"queueName": "lq", "active": False},
        True,
        _lq(),
        True,
        True,
        ("Deactivated", "The workload is deactivated"),
    ),
    "ready queues": ({"queueName": "lq"}, True, _lq(), True, True, None),
}


@pytest.mark.parametrize("name", list(BLOCKER_CASES))
def test_queue_blocker(name: str) -> None:
    spec, with_cq, lq, cq_active, gate, want = BLOCKER_CASES[name]
    wl = workload("wl", namespace="ns", spec=spec)
    cq = cluster_queue("cq") if with_cq else None
    status = QueueStatus(True, *READY) if cq_active else QueueStatus(False, "Stopped", "")
    blocker = queue_blocker(
        wl, lq, cq, status if cq is not None else None, {names.UNADMITTED_WORKLOADS_OBSERVABILITY: gate}
    )
    assert (None if blocker is None else (blocker.reason, blocker.message)) == want


def test_namespace_blocker() -> None:
    """ValidateAdmissibility: the namespace must exist and match the namespaceSelector (a nil one
    selects nothing, {} everything)."""
    ns = msgspec.convert({"metadata": {"name": "team-a", "labels": {"team": "a"}}}, o.Namespace)
    selecting = cluster_queue("cq", spec={"namespaceSelector": {"matchLabels": {"team": "a"}}})
    other = cluster_queue("cq", spec={"namespaceSelector": {"matchLabels": {"team": "b"}}})
    nothing = msgspec.convert({"metadata": {"name": "cq"}}, o.ClusterQueue)
    assert namespace_blocker("team-a", ns, selecting) is None
    assert namespace_blocker("team-a", ns, other) == "workload namespace doesn't match ClusterQueue selector"
    assert namespace_blocker("team-a", ns, nothing) == "workload namespace doesn't match ClusterQueue selector"
    assert (
        namespace_blocker("gone", None, selecting)
        == 'workload namespace "gone" does not exist: namespaces "gone" not found'
    )


def _specs(wl: o.KueueWorkload) -> list[o.PodSpec]:
    return [ps.template.spec for ps in wl.spec.pod_sets]


def test_resources_blocker_names_every_part_over_its_limit() -> None:
    """ValidateResources (pkg/workload/resources.go): init containers, then containers, then the
    pod-level resources of each pod set; the resources above their limit sorted, compared only
    where a limit is set; several errors aggregated."""
    over = {"requests": {"memory": "2Gi", "cpu": "2", "example.com/gpu": "1"}, "limits": {"memory": "1Gi", "cpu": "1"}}
    spec = {
        "initContainers": [{"name": "i", "resources": over}],
        "containers": [{"name": "ok", "resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "1"}}}],
        "resources": {"requests": {"cpu": "500m"}, "limits": {"cpu": "250m"}},
    }
    wl = workload("wl", pod_set("a", requests={"cpu": "1"}), pod_set("b", spec=spec))
    assert resources_blocker(_specs(wl)) == (
        "resources validation failed: ["
        'spec.podSets[1].template.spec.initContainers[0]: Invalid value: ["cpu","memory"]: '
        "requests must not exceed its limits, "
        'spec.podSets[1].template.spec.resources: Invalid value: ["cpu"]: requests must not exceed its limits]'
    )
    assert resources_blocker(_specs(workload("ok", pod_set(requests={"cpu": "1"})))) is None
