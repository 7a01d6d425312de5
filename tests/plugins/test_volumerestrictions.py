"""VolumeRestrictions PreFilter + Filter, after the cases of upstream's volume_restrictions_test.go."""

from __future__ import annotations

from typing import Any

import pytest

from podwhy.framework.evidence import DiskConflictEvidence, ReadWriteOncePodEvidence
from podwhy.framework.interface import CycleState
from podwhy.framework.status import Code, Status
from podwhy.framework.types import PodInfo
from podwhy.model import objects as o
from podwhy.plugins.volumerestrictions import (
    ERR_REASON_DISK_CONFLICT,
    ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,
    VolumeRestrictions,
)
from tests.builders import PodBuilder, from_raw, make_handle, make_node, make_pod

Json = dict[str, Any]

NODE = "node-1"


def pod_on(node_name: str, name: str) -> PodBuilder:
    pod = make_pod(name)
    return pod.node(node_name) if node_name else pod


def vol_pod(*volumes: Json, name: str = "pod", node_name: str = "") -> o.Pod:
    pod = pod_on(node_name, name)
    for volume in volumes:
        pod.volume(volume)
    return pod.obj()


def pvc_pod(claim: str, name: str = "pod", node_name: str = "") -> o.Pod:
    return pod_on(node_name, name).pvc(claim).obj()


def make_pvc(name: str, *modes: str) -> o.PersistentVolumeClaim:
    return from_raw(
        o.PersistentVolumeClaim,
        {"metadata": {"name": name, "namespace": "default"}, "spec": {"accessModes": list(modes)}},
    )


GCE_FOO: Json = {"name": "v", "gcePersistentDisk": {"pdName": "foo"}}
GCE_FOO_RO: Json = {"name": "v", "gcePersistentDisk": {"pdName": "foo", "readOnly": True}}
GCE_BAR: Json = {"name": "v", "gcePersistentDisk": {"pdName": "bar"}}
EBS_FOO: Json = {"name": "v", "awsElasticBlockStore": {"volumeID": "foo"}}
EBS_BAR: Json = {"name": "v", "awsElasticBlockStore": {"volumeID": "bar"}}
RBD_AB: Json = {"name": "v", "rbd": {"monitors": ["a", "b"], "pool": "foo", "image": "bar"}}
RBD_CD: Json = {"name": "v", "rbd": {"monitors": ["c", "d"], "pool": "foo", "image": "bar"}}
RBD_BX: Json = {"name": "v", "rbd": {"monitors": ["x", "b"], "pool": "foo", "image": "bar"}}
IQN_16 = "iqn.2016-12.server:storage.target01"
IQN_17 = "iqn.2017-12.server:storage.target01"
ISCSI_16: Json = {"name": "v", "iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": IQN_16}}
ISCSI_17: Json = {"name": "v", "iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": IQN_17}}
ISCSI_16_RO: Json = {"name": "v", "iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": IQN_16, "readOnly": True}}


def run(
    pod: o.Pod, existing: list[o.Pod], pvcs: list[o.PersistentVolumeClaim] | None = None
) -> tuple[Status, Status | None]:
    handle = make_handle(make_node(NODE).obj(), *existing, *(pvcs or []))
    plugin = VolumeRestrictions(handle)
    state = CycleState()
    pi = PodInfo(pod)
    _, pre = plugin.pre_filter(state, pi, handle.node_infos)
    if not pre.is_success():
        return pre, None
    return pre, plugin.filter(state, pi, handle.node_infos[0])


# (name, incoming volume, volume of the pod on the node or None, want PreFilter code, want Filter code)
DISK_CASES: list[tuple[str, Json | None, Json | None, Code, Code | None]] = [
    ("nothing", None, None, Code.Skip, None),
    ("gce one state", None, GCE_FOO, Code.Skip, None),
    ("gce same state", GCE_FOO, GCE_FOO, Code.Success, Code.Unschedulable),
    ("gce different state", GCE_BAR, GCE_FOO, Code.Success, Code.Success),
    ("gce both read-only", GCE_FOO_RO, GCE_FOO_RO, Code.Success, Code.Success),
    ("gce one read-only", GCE_FOO_RO, GCE_FOO, Code.Success, Code.Unschedulable),
    ("aws same state", EBS_FOO, EBS_FOO, Code.Success, Code.Unschedulable),
    ("aws different state", EBS_BAR, EBS_FOO, Code.Success, Code.Success),
    ("rbd same state", RBD_AB, RBD_AB, Code.Success, Code.Unschedulable),
    ("rbd different monitors", RBD_CD, RBD_AB, Code.Success, Code.Success),
    ("rbd one shared monitor", RBD_BX, RBD_AB, Code.Success, Code.Unschedulable),
    ("iscsi same state", ISCSI_16, ISCSI_16, Code.Success, Code.Unschedulable),
    ("iscsi different state", ISCSI_17, ISCSI_16, Code.Success, Code.Success),
    ("iscsi both read-only", ISCSI_16_RO, ISCSI_16_RO, Code.Success, Code.Success),
]


@pytest.mark.parametrize(("name", "incoming", "on_node", "want_pre", "want_filter"), DISK_CASES)
def test_disk_conflicts(
    name: str, incoming: Json | None, on_node: Json | None, want_pre: Code, want_filter: Code | None
) -> None:
    pod = vol_pod(*([incoming] if incoming else []))
    existing = [vol_pod(*([on_node] if on_node else []), name="existing", node_name=NODE)]
    pre, got = run(pod, existing)
    assert pre.code == want_pre
    if want_filter is None:
        assert got is None
        return
    assert got is not None and got.code == want_filter
    if want_filter == Code.Unschedulable:
        assert got.reasons == [ERR_REASON_DISK_CONFLICT]
        (evidence,) = got.evidence
        assert isinstance(evidence, DiskConflictEvidence) and evidence.conflicting_pod == "default/existing"


RWOP = make_pvc("claim-with-rwop", "ReadWriteOncePod")
RWX = make_pvc("claim-with-rwx", "ReadWriteMany")


def test_rwop_claim_not_found() -> None:
    pre, _ = run(pvc_pod("claim-with-rwop"), [])
    assert pre.code == Code.UnschedulableAndUnresolvable
    assert pre.reasons == ['persistentvolumeclaim "claim-with-rwop" not found']


def test_rwop_no_conflict_skips() -> None:
    existing = [pvc_pod("claim-with-rwx", name="other", node_name=NODE)]
    pre, _ = run(pvc_pod("claim-with-rwop"), existing, [RWOP, RWX])
    assert pre.code == Code.Skip


def test_rwop_conflict_is_reported_at_filter() -> None:
    existing = [
        pvc_pod("claim-with-rwop", name="holder", node_name=NODE),
        pvc_pod("claim-with-rwx", name="other", node_name=NODE),
    ]
    pre, got = run(pvc_pod("claim-with-rwop"), existing, [RWOP, RWX])
    assert pre.code == Code.Success
    assert got is not None and got.code == Code.Unschedulable
    assert got.reasons == [ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT]
    (evidence,) = got.evidence
    assert isinstance(evidence, ReadWriteOncePodEvidence) and evidence.claims == ["claim-with-rwop"]


def test_rwop_holder_removed_by_preemption_frees_the_claim() -> None:
    holder = pvc_pod("claim-with-rwop", name="holder", node_name=NODE)
    handle = make_handle(make_node(NODE).obj(), holder, RWOP)
    plugin = VolumeRestrictions(handle)
    state = CycleState()
    pod = PodInfo(pvc_pod("claim-with-rwop"))
    _, pre = plugin.pre_filter(state, pod, handle.node_infos)
    assert pre.is_success()
    ni = handle.node_infos[0].snapshot()
    held = next(pi for pi in ni.pods if pi.key == "default/holder")
    ni.remove_pod(held)
    plugin.remove_pod(state, pod, held, ni)
    assert plugin.filter(state, pod, ni).code == Code.Success
    plugin.add_pod(state, pod, held, ni)
    assert plugin.filter(state, pod, ni).code == Code.Unschedulable


def test_required_kinds() -> None:
    plugin = VolumeRestrictions(make_handle())
    assert plugin.required_kinds(PodInfo(vol_pod(GCE_FOO))) == set()
    assert plugin.required_kinds(PodInfo(pvc_pod("c"))) == {"PersistentVolumeClaim"}
