"""VolumeBinding PreFilter + Filter, after upstream's volume_binding_test.go and binder_test.go."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from podwhy.framework.interface import CycleState
from podwhy.framework.status import Code, Status
from podwhy.framework.types import PodInfo
from podwhy.model import objects as o
from podwhy.plugins.volumebinding import VolumeBinding
from podwhy.plugins.volumebinding.binder import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_NOT_ENOUGH_SPACE,
    ERR_REASON_PV_NOT_EXIST,
)
from tests.builders import from_raw, make_handle, make_node, make_pod

Json = dict[str, Any]

NS = "default"
HOSTNAME = "kubernetes.io/hostname"
WAIT = "wait-sc"
IMMEDIATE = "immediate-sc"
PROVISIONED = "wait-provisioned-sc"
CAPACITY_CLASS = "capacity-sc"
CSI_PROVISIONER = "csi.example.com"

CLASSES: list[o.StorageClass] = [
    from_raw(o.StorageClass, sc)
    for sc in [
        {
            "metadata": {"name": WAIT},
            "provisioner": "kubernetes.io/no-provisioner",
            "volumeBindingMode": "WaitForFirstConsumer",
        },
        {"metadata": {"name": IMMEDIATE}, "provisioner": "p", "volumeBindingMode": "Immediate"},
        {
            "metadata": {"name": PROVISIONED},
            "provisioner": "test-provisioner",
            "volumeBindingMode": "WaitForFirstConsumer",
            "allowedTopologies": [{"matchLabelExpressions": [{"key": HOSTNAME, "values": ["node-a", "reference"]}]}],
        },
        {
            "metadata": {"name": CAPACITY_CLASS},
            "provisioner": CSI_PROVISIONER,
            "volumeBindingMode": "WaitForFirstConsumer",
        },
        {"metadata": {"name": "no-mode-sc"}, "provisioner": "p"},
    ]
]


def pvc(
    name: str,
    sc: str | None,
    *,
    volume: str = "",
    bound: bool = False,
    size: str = "",
    annotations: dict[str, str] | None = None,
    **extra: Any,
) -> o.PersistentVolumeClaim:
    meta: Json = {"name": name, "namespace": NS, "uid": f"uid-{name}", "annotations": dict(annotations or {})}
    if bound:
        meta["annotations"]["pv.kubernetes.io/bind-completed"] = "yes"
    meta.update(extra.pop("metadata", {}))
    spec: Json = {"accessModes": ["ReadWriteOnce"]}
    if sc is not None:
        spec["storageClassName"] = sc
    if volume:
        spec["volumeName"] = volume
    if size:
        spec["resources"] = {"requests": {"storage": size}}
    return from_raw(o.PersistentVolumeClaim, {"metadata": meta, "spec": spec, "status": extra.pop("status", {})})


def pv(
    name: str,
    sc: str,
    *,
    node: str | None = None,
    size: str = "1Gi",
    claim: str | None = None,
    labels: dict[str, str] | None = None,
    source: Json | None = None,
    phase: str = "Available",
) -> o.PersistentVolume:
    spec: Json = {"storageClassName": sc, "capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"]}
    if node is not None:
        spec["nodeAffinity"] = {
            "required": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": HOSTNAME, "operator": "In", "values": [node]}]}]
            }
        }
    if claim is not None:
        spec["claimRef"] = {"name": claim, "namespace": NS}
    spec.update(source or {})
    raw = {"metadata": {"name": name, "labels": labels or {}}, "spec": spec, "status": {"phase": phase}}
    return from_raw(o.PersistentVolume, raw)


def node(name: str, **labels: str) -> o.Node:
    return make_node(name).labels(labels).obj()


def volume_pod(*claims: str, ephemeral: str = "") -> o.Pod:
    pod = make_pod("pod-a", NS).uid("pod-uid")
    for c in claims:
        pod.pvc(c)
    if ephemeral:
        pod.volume({"name": ephemeral, "ephemeral": {}})
    return pod.obj()


def run(
    pod: o.Pod,
    nodes: list[o.Node],
    pvcs: list[o.PersistentVolumeClaim] | None = None,
    pvs: list[o.PersistentVolume] | None = None,
    extra: list[msgspec.Struct] | None = None,
) -> tuple[Status, dict[str, Status]]:
    handle = make_handle(*nodes, *CLASSES, *(pvcs or []), *(pvs or []), *(extra or []))
    plugin = VolumeBinding(handle)
    state = CycleState()
    pi = PodInfo(pod)
    _, pre = plugin.pre_filter(state, pi, handle.node_infos)
    if not pre.is_success():
        return pre, {}
    return pre, {ni.name: plugin.filter(state, pi, ni) for ni in handle.node_infos}


UNRESOLVABLE = Code.UnschedulableAndUnresolvable


def test_pod_without_pvcs_skips() -> None:
    pre, _ = run(volume_pod(), [node("node-a")])
    assert pre.code == Code.Skip


def test_all_bound() -> None:
    pre, got = run(
        volume_pod("pvc-a"), [node("node-a")], [pvc("pvc-a", WAIT, volume="pv-a", bound=True)], [pv("pv-a", WAIT)]
    )
    assert pre.code == Code.Success
    assert got["node-a"].code == Code.Success


@pytest.mark.parametrize(
    ("pod", "pvcs", "reason"),
    [
        (volume_pod("pvc-a"), [], 'persistentvolumeclaim "pvc-a" not found'),
        (
            volume_pod("pvc-a", "pvc-b"),
            [pvc("pvc-a", WAIT, volume="pv-a", bound=True)],
            'persistentvolumeclaim "pvc-b" not found',
        ),
        (volume_pod("pvc-a"), [pvc("pvc-a", IMMEDIATE)], "pod has unbound immediate PersistentVolumeClaims"),
        (volume_pod("pvc-a"), [pvc("pvc-a", WAIT, volume="pv-a")], "pod has unbound immediate PersistentVolumeClaims"),
        (volume_pod("pvc-a"), [pvc("pvc-a", None)], "pod has unbound immediate PersistentVolumeClaims"),
        (volume_pod("pvc-a"), [pvc("pvc-a", "no-such-sc")], "pod has unbound immediate PersistentVolumeClaims"),
        (
            volume_pod("pvc-a"),
            [pvc("pvc-a", WAIT, volume="pv-a", bound=True, status={"phase": "Lost"})],
            'persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"',
        ),
        (
            volume_pod("old"),
            [pvc("old", WAIT, metadata={"deletionTimestamp": "2026-01-01T00:00:00Z"})],
            'persistentvolumeclaim "old" is being deleted',
        ),
        (
            volume_pod(ephemeral="vol"),
            [],
            'waiting for ephemeral volume controller to create the persistentvolumeclaim "pod-a-vol"',
        ),
        (
            volume_pod(ephemeral="vol"),
            [pvc("pod-a-vol", WAIT)],
            "PVC default/pod-a-vol was not created for pod default/pod-a (pod is not owner)",
        ),
    ],
)
def test_pre_filter_rejections(pod: o.Pod, pvcs: list[o.PersistentVolumeClaim], reason: str) -> None:
    pre, _ = run(pod, [node("node-a")], pvcs)
    assert pre.code == UNRESOLVABLE
    assert pre.reasons == [reason]


def test_class_without_binding_mode_is_an_error() -> None:
    pre, _ = run(volume_pod("pvc-a"), [node("node-a")], [pvc("pvc-a", "no-mode-sc")])
    assert pre.code == Code.Error
    assert pre.reasons == ['VolumeBindingMode not set for StorageClass "no-mode-sc"']


def test_owned_ephemeral_claim_is_used() -> None:
    owned = pvc(
        "pod-a-vol",
        WAIT,
        volume="pv-a",
        bound=True,
        metadata={"ownerReferences": [{"kind": "Pod", "name": "pod-a", "uid": "pod-uid", "controller": True}]},
    )
    volume = pv("pv-a", WAIT, node="node-a")
    pre, got = run(volume_pod(ephemeral="vol"), [node("node-a"), node("node-b")], [owned], [volume])
    assert pre.code == Code.Success
    assert got["node-a"].code == Code.Success
    assert got["node-b"].reasons == [ERR_REASON_NODE_CONFLICT]


def test_unbound_claims_no_matches() -> None:
    _, got = run(volume_pod("pvc-a"), [node("node-a")], [pvc("pvc-a", WAIT)])
    assert got["node-a"].code == UNRESOLVABLE
    assert got["node-a"].reasons == [ERR_REASON_BIND_CONFLICT]


def test_bound_and_unbound_unsatisfied() -> None:
    _, got = run(
        volume_pod("pvc-a", "pvc-b"),
        [node("node-b")],
        [pvc("pvc-a", WAIT, volume="pv-a", bound=True), pvc("pvc-b", WAIT)],
        [pv("pv-a", WAIT, node="node-a")],
    )
    assert got["node-b"].reasons == [ERR_REASON_NODE_CONFLICT, ERR_REASON_BIND_CONFLICT]


def test_pv_not_found() -> None:
    _, got = run(volume_pod("pvc-a"), [node("node-a")], [pvc("pvc-a", WAIT, volume="pv-a", bound=True)])
    assert got["node-a"].reasons == [ERR_REASON_PV_NOT_EXIST]


def test_local_volumes_match_per_node() -> None:
    pvs = [
        pv("pv-a-0", WAIT, node="node-a", size="200Gi"),
        pv("pv-b-0", WAIT, node="node-b", size="100Gi"),
        pv("pv-c-0", WAIT, node="node-c", size="10Gi"),
    ]
    _, got = run(
        volume_pod("pvc-a"), [node("node-a"), node("node-b"), node("node-c")], [pvc("pvc-a", WAIT, size="50Gi")], pvs
    )
    assert [got[n].code for n in ("node-a", "node-b", "node-c")] == [Code.Success, Code.Success, UNRESOLVABLE]


def test_two_claims_cannot_share_one_pv() -> None:
    pvs = [pv("pv-a-0", WAIT, node="node-a", size="10Gi")]
    _, got = run(
        volume_pod("pvc-0", "pvc-1"),
        [node("node-a")],
        [pvc("pvc-0", WAIT, size="1Gi"), pvc("pvc-1", WAIT, size="1Gi")],
        pvs,
    )
    assert got["node-a"].reasons == [ERR_REASON_BIND_CONFLICT]


@pytest.mark.parametrize(
    ("volume", "want"),
    [
        (pv("pv", WAIT, node="node-a", phase="Bound"), UNRESOLVABLE),  # not Available
        (pv("pv", WAIT, node="node-a", claim="someone-else"), UNRESOLVABLE),
        (pv("pv", WAIT, node="node-a", claim="pvc-a"), Code.Success),  # pre-bound PV, whatever its phase
        (pv("pv", WAIT, node="node-b", claim="pvc-a"), UNRESOLVABLE),
        (pv("pv", "other-class", node="node-a"), UNRESOLVABLE),
        (pv("pv", WAIT, node="node-a", size="1Mi"), UNRESOLVABLE),
        (pv("pv", WAIT, source={"volumeMode": "Block"}), UNRESOLVABLE),
        (pv("pv", WAIT, source={"accessModes": ["ReadOnlyMany"]}), UNRESOLVABLE),
        (pv("pv", WAIT), Code.Success),  # no node affinity at all
    ],
)
def test_find_matching_volume(volume: o.PersistentVolume, want: Code) -> None:
    _, got = run(volume_pod("pvc-a"), [node("node-a")], [pvc("pvc-a", WAIT, size="1Gi")], [volume])
    assert got["node-a"].code == want


def test_dynamic_provisioning_topology() -> None:
    _, got = run(volume_pod("pvc-a"), [node("node-a"), node("node-b")], [pvc("pvc-a", PROVISIONED, size="1Gi")])
    assert got["node-a"].code == Code.Success
    assert got["node-b"].reasons == [ERR_REASON_BIND_CONFLICT]


def test_selected_node_annotation() -> None:
    claim = pvc("pvc-a", PROVISIONED, size="1Gi", annotations={"volume.kubernetes.io/selected-node": "node-b"})
    _, got = run(volume_pod("pvc-a"), [node("node-a"), node("node-b")], [claim])
    assert got["node-a"].reasons == [ERR_REASON_BIND_CONFLICT]
    # node-b is selected, but still outside the class's allowed topologies.
    assert got["node-b"].reasons == [ERR_REASON_BIND_CONFLICT]


def capacity(name: str, zone: str, size: str, max_size: str | None = None) -> o.CSIStorageCapacity:
    data: Json = {
        "metadata": {"name": name, "namespace": "kube-system"},
        "storageClassName": CAPACITY_CLASS,
        "nodeTopology": {"matchLabels": {"zone": zone}},
        "capacity": size,
    }
    if max_size is not None:
        data["maximumVolumeSize"] = max_size
    return from_raw(o.CSIStorageCapacity, data)


def csi_driver(storage_capacity: bool) -> o.CSIDriver:
    return from_raw(o.CSIDriver, {"metadata": {"name": CSI_PROVISIONER}, "spec": {"storageCapacity": storage_capacity}})


DRIVER_WITH_CAPACITY = csi_driver(True)


def test_storage_capacity() -> None:
    extra = [
        DRIVER_WITH_CAPACITY,
        capacity("a", "a", "100Gi"),
        capacity("b", "b", "10Gi"),
        capacity("c", "c", "1Ti", max_size="10Gi"),
    ]
    nodes = [node("node-a", zone="a"), node("node-b", zone="b"), node("node-c", zone="c"), node("node-d", zone="d")]
    _, got = run(volume_pod("pvc-a"), nodes, [pvc("pvc-a", CAPACITY_CLASS, size="50Gi")], extra=extra)
    assert got["node-a"].code == Code.Success
    for name in ("node-b", "node-c", "node-d"):
        assert got[name].reasons == [ERR_REASON_NOT_ENOUGH_SPACE]


def test_storage_capacity_ignored_without_driver_opt_in() -> None:
    driver = csi_driver(False)
    _, got = run(
        volume_pod("pvc-a"),
        [node("node-b", zone="b")],
        [pvc("pvc-a", CAPACITY_CLASS, size="50Gi")],
        extra=[driver, capacity("b", "b", "10Gi")],
    )
    assert got["node-b"].code == Code.Success


GCE_PD_SOURCE: Json = {"gcePersistentDisk": {"pdName": "test-disk"}}
ZONE1_LABELS = {
    "failure-domain.beta.kubernetes.io/zone": "us-east-1",
    "failure-domain.beta.kubernetes.io/region": "us-east-1a",
}


def csi_node(migrated: str) -> o.CSINode:
    return from_raw(
        o.CSINode,
        {
            "metadata": {"name": "node1", "annotations": {"storage.alpha.kubernetes.io/migrated-plugins": migrated}},
            "spec": {"drivers": []},
        },
    )


@pytest.mark.parametrize(
    ("node_zone", "migrated", "want"),
    [
        ("us-east-1", "kubernetes.io/gce-pd", Code.Success),
        ("us-east-2", "kubernetes.io/gce-pd", UNRESOLVABLE),
        ("us-east-2", "", Code.Success),  # not migrated: the in-tree PV has no node affinity
    ],
)
def test_csi_migration_rewrites_pv_topology(node_zone: str, migrated: str, want: Code) -> None:
    volume = pv("pv-migration-bound", WAIT, claim="pvc-a", labels=ZONE1_LABELS, source=GCE_PD_SOURCE)
    _, got = run(
        volume_pod("pvc-a"),
        [node("node1", **{"topology.gke.io/zone": node_zone})],
        [pvc("pvc-a", WAIT, volume="pv-migration-bound", bound=True)],
        [volume],
        extra=[csi_node(migrated)],
    )
    assert got["node1"].code == want


def test_required_kinds() -> None:
    plugin = VolumeBinding(make_handle())
    assert plugin.required_kinds(PodInfo(volume_pod())) == set()
    assert "PersistentVolumeClaim" in plugin.required_kinds(PodInfo(volume_pod(ephemeral="v")))
