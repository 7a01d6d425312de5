"""NodeVolumeLimits PreFilter + Filter, after the cases of upstream's csi_test.go (TestCSILimits)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from podwhy.framework.evidence import VolumeCountEvidence
from podwhy.framework.interface import CycleState
from podwhy.framework.status import Code, Status
from podwhy.framework.types import PodInfo
from podwhy.model import objects as o
from podwhy.plugins.nodevolumelimits import ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED, NodeVolumeLimits
from tests.builders import from_raw, make_handle, make_node, make_pod

Json = dict[str, Any]

NODE = "node-for-max-pd-test-1"
EBS = "ebs.csi.aws.com"
GCE = "pd.csi.storage.gke.io"
EBS_IN_TREE = "kubernetes.io/aws-ebs"
HOSTPATH_IN_TREE = "kubernetes.io/hostpath"
SC_NAME = "csi-sc"
NS = "default"


def vol_pod(*volumes: Json, name: str = "pod", uid: str = "") -> o.Pod:
    pod = make_pod(name, NS)
    if uid:
        pod.uid(uid)
    for volume in volumes:
        pod.volume(volume)
    return pod.obj()


def pvc_pod(*claims: str, name: str = "pod") -> o.Pod:
    pod = make_pod(name, NS)
    for claim in claims:
        pod.pvc(claim)
    return pod.obj()


def pvc(name: str, **spec: str) -> o.PersistentVolumeClaim:
    return from_raw(o.PersistentVolumeClaim, {"metadata": {"name": name, "namespace": NS}, "spec": spec})


def fake_storage(drivers: list[str]) -> list[msgspec.Struct]:
    """PVs csi-<driver>-<n> and their bound PVCs, plus csi-4 (unbound, csi-sc), csi-5 (no class)
    and csi-6 (PV missing); in-tree drivers get in-tree PVs, as upstream's fakes do."""
    items: list[msgspec.Struct] = []
    for driver in drivers:
        for j in range(4):
            name = f"csi-{driver}-{j}"
            source: Json
            if driver == EBS_IN_TREE:
                source = {"awsElasticBlockStore": {"volumeID": name}}
            elif driver == HOSTPATH_IN_TREE:
                source = {"hostPath": {"path": "/tmp"}}
            else:
                source = {"csi": {"driver": driver, "volumeHandle": name}}
            items.append(from_raw(o.PersistentVolume, {"metadata": {"name": name}, "spec": source}))
            items.append(pvc(name, volumeName=name))
    items.append(pvc("csi-4", storageClassName=SC_NAME))
    items.append(pvc("csi-5"))
    items.append(pvc("csi-6", storageClassName=SC_NAME, volumeName="missing-in-action"))
    items.append(from_raw(o.StorageClass, {"metadata": {"name": SC_NAME}, "provisioner": drivers[0]}))
    return items


def run(
    pod: o.Pod,
    existing: list[o.Pod],
    drivers: list[str],
    limit: int | None,
    csi_node: bool = True,
    migrated: bool = False,
    extra: list[msgspec.Struct] | None = None,
) -> tuple[Status, Status | None]:
    for p in existing:
        p.spec.node_name = NODE
    objects: list[msgspec.Struct] = [make_node(NODE).obj(), *existing, *fake_storage(drivers), *(extra or [])]
    if csi_node:
        entries = []
        for d in drivers:
            entry: Json = {"name": d, "nodeID": NODE}
            if limit is not None:
                entry["allocatable"] = {"count": limit}
            entries.append(entry)
        meta: Json = {"name": NODE}
        if migrated:
            meta["annotations"] = {"storage.alpha.kubernetes.io/migrated-plugins": EBS_IN_TREE}
        objects.append(from_raw(o.CSINode, {"metadata": meta, "spec": {"drivers": entries}}))
    handle = make_handle(*objects)
    plugin = NodeVolumeLimits(handle)
    state = CycleState()
    pi = PodInfo(pod)
    _, pre = plugin.pre_filter(state, pi, handle.node_infos)
    if pre.is_skip():
        return pre, None
    return pre, plugin.filter(state, pi, handle.node_infos[0])


def running_pod() -> o.Pod:
    return pvc_pod(f"csi-{EBS}-3", name="running")


def csi_ebs_two() -> o.Pod:
    return pvc_pod(f"csi-{EBS}-1", f"csi-{EBS}-2", name="ebs-two")


def in_tree_two() -> o.Pod:
    return pvc_pod(f"csi-{EBS_IN_TREE}-1", f"csi-{EBS_IN_TREE}-2", name="in-tree-two")


EBS_ONE = pvc_pod(f"csi-{EBS}-0")
IN_TREE_ONE = pvc_pod(f"csi-{EBS_IN_TREE}-0")
INLINE_EBS = vol_pod({"name": "inline", "awsElasticBlockStore": {"volumeID": "aws-inline1"}})
INLINE_SAME_ID = vol_pod({"name": "inline", "awsElasticBlockStore": {"volumeID": f"csi-{EBS}-1"}})

UNSCHED = Code.Unschedulable

# (test, new pod, existing pods factory, drivers, limit, migrated, want Filter code)
CASES: list[tuple[str, o.Pod, list[o.Pod], list[str], int | None, bool, Code]] = [
    (
        "fits when node volume limit >= new pods CSI volume",
        EBS_ONE,
        [running_pod(), csi_ebs_two()],
        [EBS],
        4,
        False,
        Code.Success,
    ),
    (
        "doesn't when node volume limit <= pods CSI volume",
        EBS_ONE,
        [running_pod(), csi_ebs_two()],
        [EBS],
        2,
        False,
        UNSCHED,
    ),
    (
        "should when driver does not support volume limits",
        EBS_ONE,
        [running_pod(), csi_ebs_two()],
        [EBS],
        None,
        False,
        Code.Success,
    ),
    (
        "count pending PVCs towards volume limit",
        EBS_ONE,
        [pvc_pod("csi-4", name="pending"), csi_ebs_two()],
        [EBS],
        2,
        False,
        UNSCHED,
    ),
    (
        "count multiple pending pvcs once",
        EBS_ONE,
        [pvc_pod("csi-4", name="pending"), pvc_pod("csi-4", name="pending2"), csi_ebs_two()],
        [EBS],
        4,
        False,
        Code.Success,
    ),
    (
        "should count PVCs with invalid PV name but valid SC",
        EBS_ONE,
        [pvc_pod("csi-6", name="missing-pv"), csi_ebs_two()],
        [EBS],
        2,
        False,
        UNSCHED,
    ),
    (
        "don't count pvcs with missing SC",
        EBS_ONE,
        [running_pod(), pvc_pod("csi-5", name="no-sc")],
        [EBS],
        2,
        False,
        Code.Success,
    ),
    (
        "count pvcs with the same type towards volume limit",
        EBS_ONE,
        [pvc_pod(f"csi-{GCE}-1", f"csi-{GCE}-2", name="gce-two"), csi_ebs_two()],
        [EBS, GCE],
        2,
        False,
        UNSCHED,
    ),
    (
        "don't count pvcs with different type",
        pvc_pod(f"csi-{GCE}-1", f"csi-{GCE}-2"),
        [csi_ebs_two(), running_pod()],
        [EBS, GCE],
        2,
        False,
        Code.Success,
    ),
    (
        "should count in-tree volumes if migration is enabled",
        IN_TREE_ONE,
        [in_tree_two()],
        [EBS_IN_TREE, EBS],
        2,
        True,
        UNSCHED,
    ),
    # isCSIMigrationOn (v1.35 and v1.36): AWS EBS migration is on whatever the CSINode's
    # migrated-plugins annotation says (only Portworx looked at it, up to v1.35).
    (
        "in-tree volumes are counted without the migrated-plugins annotation",
        IN_TREE_ONE,
        [in_tree_two()],
        [EBS_IN_TREE, EBS],
        2,
        False,
        UNSCHED,
    ),
    (
        "should count unbound in-tree volumes if migration is enabled",
        pvc_pod("csi-4"),
        [in_tree_two()],
        [EBS_IN_TREE, EBS],
        2,
        True,
        UNSCHED,
    ),
    (
        "should not count non-migratable in-tree volumes",
        pvc_pod(f"csi-{HOSTPATH_IN_TREE}-0"),
        [csi_ebs_two()],
        [HOSTPATH_IN_TREE, EBS],
        2,
        True,
        Code.Success,
    ),
    (
        "should count in-tree inline volumes if migration is enabled",
        INLINE_EBS,
        [in_tree_two()],
        [EBS_IN_TREE, EBS],
        2,
        True,
        UNSCHED,
    ),
    (
        "should count in-tree and csi volumes (scheduling in-tree)",
        IN_TREE_ONE,
        [csi_ebs_two()],
        [EBS_IN_TREE, EBS],
        2,
        True,
        UNSCHED,
    ),
    (
        "should count in-tree, inline and csi volumes",
        INLINE_EBS,
        [csi_ebs_two(), pvc_pod(f"csi-{EBS_IN_TREE}-0")],
        [EBS_IN_TREE, EBS],
        3,
        True,
        UNSCHED,
    ),
    (
        "inline volume with the same CSI handle is not counted twice",
        INLINE_SAME_ID,
        [csi_ebs_two(), pvc_pod(f"csi-{EBS_IN_TREE}-0")],
        [EBS_IN_TREE, EBS],
        3,
        True,
        Code.Success,
    ),
    (
        "should count in-tree and csi volumes (scheduling csi)",
        EBS_ONE,
        [in_tree_two()],
        [EBS_IN_TREE, EBS],
        2,
        True,
        UNSCHED,
    ),
]


@pytest.mark.parametrize(("test", "pod", "existing", "drivers", "limit", "migrated", "want"), CASES)
def test_csi_limits(
    test: str, pod: o.Pod, existing: list[o.Pod], drivers: list[str], limit: int | None, migrated: bool, want: Code
) -> None:
    pre, got = run(pod, existing, drivers, limit, migrated=migrated)
    assert pre.code == Code.Success
    assert got is not None and got.code == want
    if want == UNSCHED:
        assert got.reasons == [ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED]
        (evidence,) = got.evidence
        assert isinstance(evidence, VolumeCountEvidence) and evidence.limit == limit


def volume_attachments(count: int, *drivers: str, node: str = NODE) -> list[msgspec.Struct]:
    """Upstream's getFakeVolumeAttachmentLister: per driver, COUNT attachments of its PVs csi-<driver>-<j>."""
    return [
        from_raw(
            o.VolumeAttachment,
            {
                "metadata": {"name": f"va-{driver}-{j}"},
                "spec": {"nodeName": node, "attacher": driver, "source": {"persistentVolumeName": f"csi-{driver}-{j}"}},
            },
        )
        for driver in drivers
        for j in range(count)
    ]


def va(name: str, pv: str | None, attacher: str = EBS, node: str = NODE) -> o.VolumeAttachment:
    source: Json = {"persistentVolumeName": pv} if pv is not None else {}
    return from_raw(
        o.VolumeAttachment,
        {"metadata": {"name": name}, "spec": {"nodeName": node, "attacher": attacher, "source": source}},
    )


# (test, new pod, existing pods, VolumeAttachments, limit, want Filter code): upstream's vaCount
# cases, then the attachments getNodeVolumeAttachmentInfo leaves out.
VA_CASES: list[tuple[str, o.Pod, list[o.Pod], list[msgspec.Struct], int, Code]] = [
    (
        "should count VolumeAttachments towards volume limit when no pods exist",
        EBS_ONE,
        [],
        volume_attachments(2, EBS),
        2,
        UNSCHED,
    ),
    (
        "should schedule pod when VolumeAttachments count does not exceed limit",
        EBS_ONE,
        [],
        volume_attachments(1, EBS),
        2,
        Code.Success,
    ),
    # A volume a pod on the node uses and a VolumeAttachment holds counts once.
    (
        "an attachment of a pod's volume counts once",
        EBS_ONE,
        [running_pod()],
        [va("a", f"csi-{EBS}-3")],
        2,
        Code.Success,
    ),
    ("an attachment held for no pod counts", EBS_ONE, [running_pod()], [va("a", f"csi-{EBS}-1")], 2, UNSCHED),
    (
        "an attachment to another node does not",
        EBS_ONE,
        [running_pod()],
        [va("a", f"csi-{EBS}-1", node="x")],
        2,
        Code.Success,
    ),
    (
        "an attachment without an attacher does not",
        EBS_ONE,
        [running_pod()],
        [va("a", f"csi-{EBS}-1", attacher="")],
        2,
        Code.Success,
    ),
    ("an attachment without a PV name does not", EBS_ONE, [running_pod()], [va("a", None)], 2, Code.Success),
    ("an attachment of a missing PV does not", EBS_ONE, [running_pod()], [va("a", "gone")], 2, Code.Success),
    (
        "an attachment of a PV that is not CSI does not",
        EBS_ONE,
        [running_pod()],
        [va("a", f"csi-{EBS_IN_TREE}-1")],
        2,
        Code.Success,
    ),
    # Keyed by the attacher: another driver's attachment counts against that driver only.
    ("another driver's attachment", EBS_ONE, [running_pod()], [va("a", f"csi-{EBS}-1", attacher=GCE)], 2, Code.Success),
]


@pytest.mark.parametrize(("test", "pod", "existing", "attachments", "limit", "want"), VA_CASES)
def test_volume_attachments_count_towards_the_limit(
    test: str, pod: o.Pod, existing: list[o.Pod], attachments: list[msgspec.Struct], limit: int, want: Code
) -> None:
    _, got = run(pod, existing, [EBS, EBS_IN_TREE], limit, extra=attachments)
    assert got is not None and got.code == want, test
    if want == UNSCHED:
        assert got.reasons == [ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED]
        (evidence,) = got.evidence
        assert isinstance(evidence, VolumeCountEvidence)
        assert isinstance(evidence.held_by_volume_attachments, int) and evidence.held_by_volume_attachments >= 1


def test_nil_csi_node() -> None:
    _, got = run(INLINE_EBS, [in_tree_two()], [EBS_IN_TREE, EBS], None, csi_node=False, migrated=True)
    assert got is not None and got.code == Code.Success


def test_shared_volume_does_not_count_twice() -> None:
    # The pod's only volume is already attached for another pod: the node is at its limit, yet it fits.
    _, got = run(pvc_pod(f"csi-{EBS}-1"), [csi_ebs_two()], [EBS], 2)
    assert got is not None and got.code == Code.Success


EPHEMERAL_POD = vol_pod({"name": "xyz", "ephemeral": {}}, name="abc", uid="12345")


def ephemeral_claim(owner_uid: str | None) -> o.PersistentVolumeClaim:
    meta: Json = {"name": "abc-xyz", "namespace": NS}
    if owner_uid is not None:
        meta["ownerReferences"] = [{"kind": "Pod", "name": "abc", "uid": owner_uid, "controller": True}]
    return from_raw(o.PersistentVolumeClaim, {"metadata": meta, "spec": {"storageClassName": SC_NAME}})


def test_ephemeral_volume_missing() -> None:
    _, got = run(EPHEMERAL_POD, [], [EBS], None)
    assert got is not None and got.code == Code.UnschedulableAndUnresolvable
    assert got.reasons == ['looking up PVC default/abc-xyz: persistentvolumeclaim "abc-xyz" not found']


def test_ephemeral_volume_not_owned() -> None:
    _, got = run(EPHEMERAL_POD, [], [EBS], None, extra=[ephemeral_claim(None)])
    assert got is not None and got.code == Code.Error
    assert got.reasons == ["PVC default/abc-xyz was not created for pod default/abc (pod is not owner)"]


def test_ephemeral_volume_unbound_fits_without_limit() -> None:
    _, got = run(EPHEMERAL_POD, [], [EBS], None, extra=[ephemeral_claim("12345")])
    assert got is not None and got.code == Code.Success


def test_ephemeral_volume_counts() -> None:
    _, got = run(EPHEMERAL_POD, [running_pod(), csi_ebs_two()], [EBS], 2, extra=[ephemeral_claim("12345")])
    assert got is not None and got.code == UNSCHED


def test_existing_ephemeral_volume_counts() -> None:
    existing = vol_pod({"name": "xyz", "ephemeral": {}}, name="abc", uid="12345")
    _, got = run(EBS_ONE, [running_pod(), existing, csi_ebs_two()], [EBS], 3, extra=[ephemeral_claim("12345")])
    assert got is not None and got.code == UNSCHED
    _, got = run(EBS_ONE, [running_pod(), existing, csi_ebs_two()], [EBS], 5, extra=[ephemeral_claim("12345")])
    assert got is not None and got.code == Code.Success


CONFIG_MAP: Json = {"name": "cm", "configMap": {"name": "x"}}


@pytest.mark.parametrize(
    ("pod", "want"),
    [
        (make_pod().volume(CONFIG_MAP).volume({"name": "s", "secret": {"secretName": "y"}}).obj(), Code.Skip),
        (make_pod().volume(CONFIG_MAP).pvc(f"csi-{EBS}-0").obj(), Code.Success),
        (make_pod().volume(CONFIG_MAP).volume({"name": "e", "ephemeral": {}}).obj(), Code.Success),
        (make_pod().volume(CONFIG_MAP).volume({"name": "g", "gcePersistentDisk": {"pdName": "d"}}).obj(), Code.Success),
    ],
)
def test_pre_filter_skip(pod: o.Pod, want: Code) -> None:
    plugin = NodeVolumeLimits(make_handle())
    _, pre = plugin.pre_filter(CycleState(), PodInfo(pod), [])
    assert pre.code == want
    # Without CSINodes the limits are unknown for every volume the plugin counts.
    plugin.handle.snapshot.missing = {"CSINode": ""}
    assert bool(plugin.required_kinds(PodInfo(pod))) == (want == Code.Success)


def test_without_limits_only_a_claim_not_found_needs_claims() -> None:
    """CSINodes vouched for and none limits a driver: nothing can exceed a limit."""
    pod = make_pod().pvc(f"csi-{EBS}-0").obj()
    assert NodeVolumeLimits(make_handle()).required_kinds(PodInfo(pod)) == {"PersistentVolumeClaim"}
    claim = from_raw(o.PersistentVolumeClaim, {"metadata": {"name": f"csi-{EBS}-0", "namespace": "default"}})
    assert NodeVolumeLimits(make_handle(claim)).required_kinds(PodInfo(pod)) == set()
    limited = from_raw(
        o.CSINode,
        {"metadata": {"name": "n"}, "spec": {"drivers": [{"name": EBS, "nodeID": "n", "allocatable": {"count": 2}}]}},
    )
    want = {"PersistentVolumeClaim", "PersistentVolume", "StorageClass", "CSINode", "VolumeAttachment"}
    assert NodeVolumeLimits(make_handle(claim, limited)).required_kinds(PodInfo(pod)) == want


@pytest.mark.parametrize(
    ("plugin", "annotated", "emulation", "want"),
    [
        ("kubernetes.io/aws-ebs", False, "1.35", True),
        ("kubernetes.io/gce-pd", False, "1.35", True),
        ("kubernetes.io/portworx-volume", False, "1.35", False),
        ("kubernetes.io/portworx-volume", True, "1.35", True),
        ("kubernetes.io/portworx-volume", False, "1.36", True),
        ("kubernetes.io/azure-file", True, "1.36", False),
        ("kubernetes.io/vsphere-volume", True, "1.35", False),
    ],
)
def test_is_csi_migration_on(plugin: str, annotated: bool, emulation: str, want: bool) -> None:
    """isCSIMigrationOn of nodevolumelimits/utils.go, v1.35.4 and v1.36.3."""
    from podwhy.features.emulation import V1_35, V1_36
    from podwhy.plugins.nodevolumelimits import is_csi_migration_on

    meta: dict[str, object] = {"name": "n"}
    if annotated:
        meta["annotations"] = {"storage.alpha.kubernetes.io/migrated-plugins": plugin}
    csi_node = from_raw(o.CSINode, {"metadata": meta, "spec": {"drivers": []}})
    assert is_csi_migration_on(csi_node, plugin, V1_35 if emulation == "1.35" else V1_36) is want
    assert is_csi_migration_on(None, plugin, V1_36) is False
