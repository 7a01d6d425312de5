"""VolumeZone PreFilter + Filter, after the cases of upstream's volume_zone_test.go."""

from __future__ import annotations

from typing import Any

import pytest

from podwhy.framework.evidence import VolumeZoneEvidence
from podwhy.framework.handle import Handle
from podwhy.framework.interface import CycleState
from podwhy.framework.status import Code, Status
from podwhy.framework.types import PodInfo
from podwhy.model import objects as o
from podwhy.plugins.volumezone import ERR_REASON_CONFLICT, VolumeZone
from podwhy.snapshot.cluster import Snapshot
from tests.builders import from_raw, make_handle, make_node, make_pod, make_snapshot

Json = dict[str, Any]

BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"

PVS: dict[str, dict[str, str]] = {
    "Vol_1": {BETA_ZONE: "us-west1-a"},
    "Vol_2": {BETA_REGION: "us-west1", "uselessLabel": "none"},
    "Vol_Stable_1": {ZONE: "us-west1-a"},
    "Vol_Stable_2": {REGION: "us-west1", "uselessLabel": "none"},
    "Vol_Stable_3": {ZONE: "us-west1-a", REGION: "us-west1-a"},
    "Vol_Multi_Beta": {BETA_ZONE: "us-west1-c__us-west1-a"},
    "Vol_Multi": {ZONE: "us-west1-c__us-west1-a"},
    "Vol_Bad_Label": {ZONE: "us-west1-a__"},
}

# claim name -> spec
PVCS: dict[str, Json] = {
    **{f"PVC_{pv}": {"volumeName": pv} for pv in PVS},
    "PVC_Missing_PV": {"volumeName": "Vol_not_exist"},
    "PVC_NoSC": {"storageClassName": "Class_0"},
    "PVC_EmptySC": {},
    "PVC_WaitSC": {"storageClassName": "Class_Wait"},
    "PVC_ImmediateSC": {"storageClassName": "Class_Immediate"},
    "PVC_NoModeSC": {"storageClassName": "Class_NoMode"},
}

CLASSES: dict[str, str | None] = {
    "Class_Wait": "WaitForFirstConsumer",
    "Class_Immediate": "Immediate",
    "Class_NoMode": None,
}


def storage_class(name: str, mode: str | None) -> o.StorageClass:
    sc: Json = {"metadata": {"name": name}, "provisioner": "p"}
    if mode is not None:
        sc["volumeBindingMode"] = mode
    return from_raw(o.StorageClass, sc)


def snapshot(node_labels: dict[str, str]) -> Snapshot:
    return make_snapshot(
        make_node("host1").labels(node_labels).obj(),
        *(from_raw(o.PersistentVolume, {"metadata": {"name": name, "labels": labels}}) for name, labels in PVS.items()),
        *(
            from_raw(o.PersistentVolumeClaim, {"metadata": {"name": name, "namespace": "default"}, "spec": spec})
            for name, spec in PVCS.items()
        ),
        *(storage_class(name, mode) for name, mode in CLASSES.items()),
    )


def pvc_pod(*claims: str) -> o.Pod:
    pod = make_pod("pod_1")
    for c in claims:
        pod.pvc(c)
    return pod.obj()


def run(pod: o.Pod, node_labels: dict[str, str]) -> tuple[Status, Status | None]:
    handle = Handle(snapshot(node_labels))
    plugin = VolumeZone(handle)
    state = CycleState()
    pi = PodInfo(pod)
    _, pre = plugin.pre_filter(state, pi, handle.node_infos)
    if not pre.is_success():
        return pre, None
    return pre, plugin.filter(state, pi, handle.node_infos[0])


UNRESOLVABLE = Code.UnschedulableAndUnresolvable

# (name, claim, node labels, want PreFilter code, want Filter code or None when Filter is not reached)
CASES: list[tuple[str, str | None, dict[str, str], Code, Code | None]] = [
    ("pod without volume", None, {BETA_ZONE: "us-west1-a"}, Code.Skip, None),
    ("node without labels", "PVC_Vol_1", {}, Code.Success, Code.Success),
    (
        "beta zone label matched",
        "PVC_Vol_1",
        {BETA_ZONE: "us-west1-a", "uselessLabel": "none"},
        Code.Success,
        Code.Success,
    ),
    ("beta region label matched", "PVC_Vol_2", {BETA_REGION: "us-west1"}, Code.Success, Code.Success),
    ("beta region label doesn't match", "PVC_Vol_2", {BETA_REGION: "no_us-west1"}, Code.Success, UNRESOLVABLE),
    ("beta zone label doesn't match", "PVC_Vol_1", {BETA_ZONE: "no_us-west1-a"}, Code.Success, UNRESOLVABLE),
    ("zone label matched", "PVC_Vol_Stable_1", {ZONE: "us-west1-a"}, Code.Success, Code.Success),
    ("region label matched", "PVC_Vol_Stable_2", {REGION: "us-west1"}, Code.Success, Code.Success),
    ("region label doesn't match", "PVC_Vol_Stable_2", {REGION: "no_us-west1"}, Code.Success, UNRESOLVABLE),
    ("zone label doesn't match", "PVC_Vol_Stable_1", {ZONE: "no_us-west1-a"}, Code.Success, UNRESOLVABLE),
    (
        "pv with zone and region, node with only zone",
        "PVC_Vol_Stable_3",
        {ZONE: "us-west1-a"},
        Code.Success,
        UNRESOLVABLE,
    ),
    ("pv with zone, node with beta zone", "PVC_Vol_Stable_1", {BETA_ZONE: "us-west1-a"}, Code.Success, UNRESOLVABLE),
    ("pv with beta label, node with ga label, matched", "PVC_Vol_1", {ZONE: "us-west1-a"}, Code.Success, Code.Success),
    (
        "pv with beta label, node with ga label, don't match",
        "PVC_Vol_1",
        {ZONE: "us-west1-b"},
        Code.Success,
        UNRESOLVABLE,
    ),
    ("multi-zone beta label matched", "PVC_Vol_Multi_Beta", {BETA_ZONE: "us-west1-a"}, Code.Success, Code.Success),
    ("multi-zone label matched", "PVC_Vol_Multi", {ZONE: "us-west1-a"}, Code.Success, Code.Success),
    ("multi-zone label doesn't match", "PVC_Vol_Multi", {ZONE: "us-west1-b"}, Code.Success, UNRESOLVABLE),
    ("unparsable zone label is ignored", "PVC_Vol_Bad_Label", {ZONE: "us-west1-b"}, Code.Skip, None),
    ("waiting claim is skipped", "PVC_WaitSC", {ZONE: "us-west1-b"}, Code.Skip, None),
]


@pytest.mark.parametrize(("name", "claim", "node_labels", "want_pre", "want_filter"), CASES)
def test_volume_zone(
    name: str, claim: str | None, node_labels: dict[str, str], want_pre: Code, want_filter: Code | None
) -> None:
    pre, got = run(pvc_pod(*([claim] if claim else [])), node_labels)
    assert pre.code == want_pre
    if want_filter is None:
        assert got is None
        return
    assert got is not None and got.code == want_filter
    if want_filter == UNRESOLVABLE:
        assert got.reasons == [ERR_REASON_CONFLICT]
        (evidence,) = got.evidence
        assert isinstance(evidence, VolumeZoneEvidence) and evidence.persistent_volume == claim.removeprefix("PVC_")  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("claim", "reason"),
    [
        ("missing", 'persistentvolumeclaim "missing" not found'),
        ("PVC_Missing_PV", 'persistentvolume "Vol_not_exist" not found'),
        ("PVC_EmptySC", "PersistentVolumeClaim had no pv name and storageClass name"),
        ("PVC_NoSC", 'storageclass.storage.k8s.io "Class_0" not found'),
        ("PVC_ImmediateSC", "PersistentVolume had no name"),
        ("PVC_NoModeSC", 'VolumeBindingMode not set for StorageClass "Class_NoMode"'),
    ],
)
def test_pre_filter_errors(claim: str, reason: str) -> None:
    pre, _ = run(pvc_pod(claim), {ZONE: "us-west1-a"})
    assert pre.code == UNRESOLVABLE
    assert pre.reasons == [reason]


def test_all_volumes_are_checked() -> None:
    pre, got = run(pvc_pod("PVC_Vol_Stable_1", "PVC_WaitSC", "PVC_Vol_Stable_2"), {ZONE: "us-west1-a"})
    assert pre.code == Code.Success
    assert got is not None and got.code == UNRESOLVABLE
    (evidence,) = got.evidence
    assert isinstance(evidence, VolumeZoneEvidence) and evidence.persistent_volume == "Vol_Stable_2"


def test_required_kinds() -> None:
    """The kinds of the lookups that fail: a claim, PV or class found speaks for itself."""
    assert VolumeZone(make_handle()).required_kinds(PodInfo(pvc_pod())) == set()
    assert VolumeZone(make_handle()).required_kinds(PodInfo(pvc_pod("c"))) == {"PersistentVolumeClaim"}
    bound = from_raw(
        o.PersistentVolumeClaim, {"metadata": {"name": "c", "namespace": "default"}, "spec": {"volumeName": "v"}}
    )
    assert VolumeZone(make_handle(bound)).required_kinds(PodInfo(pvc_pod("c"))) == {"PersistentVolume"}
    pv = from_raw(o.PersistentVolume, {"metadata": {"name": "v"}})
    assert VolumeZone(make_handle(bound, pv)).required_kinds(PodInfo(pvc_pod("c"))) == set()
    unbound = from_raw(
        o.PersistentVolumeClaim, {"metadata": {"name": "c", "namespace": "default"}, "spec": {"storageClassName": "s"}}
    )
    assert VolumeZone(make_handle(unbound)).required_kinds(PodInfo(pvc_pod("c"))) == {"StorageClass"}
