"""VolumeRestrictions: inline disk conflicts and ReadWriteOncePod claims already in use."""

from __future__ import annotations

import msgspec

from podwhy.framework.evidence import DiskConflictEvidence, ReadWriteOncePodEvidence, VolumeClaimEvidence
from podwhy.framework.interface import CycleState, Plugin, PreFilterResult
from podwhy.framework.signature import PodPart
from podwhy.framework.status import Status, skip, success, unresolvable, unschedulable
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.model import objects as o
from podwhy.plugins import names
from podwhy.plugins.helper.volumes import READ_WRITE_ONCE_POD, pvc_not_found

ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod"
)
# v1.33's words for the same conflict.
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT_V1_33 = (
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"
)

STATE_KEY = "PreFilterVolumeRestrictions"


class _State(msgspec.Struct):
    # Names of the pod's PVCs with the ReadWriteOncePod access mode.
    rwop_claims: frozenset[str]
    # References to those claims by scheduled (and added nominated) pods.
    conflicting_ref_count: int
    # Pods known to hold one of the claims, for the evidence.
    holders: list[str] = msgspec.field(default_factory=list)

    def clone(self) -> _State:
        return _State(self.rwop_claims, self.conflicting_ref_count, list(self.holders))

    def refs_by(self, pod: o.Pod) -> int:
        # Upstream matches claim names only, whatever the other pod's namespace.
        return sum(
            1
            for vol in pod.spec.volumes
            if vol.persistent_volume_claim is not None and vol.persistent_volume_claim.claim_name in self.rwop_claims
        )


def needs_restrictions_check(volume: o.Volume) -> bool:
    return (
        volume.gce_persistent_disk is not None
        or volume.aws_elastic_block_store is not None
        or volume.rbd is not None
        or volume.iscsi is not None
    )


def _is_volume_conflict(volume: o.Volume, existing_pod: o.Pod) -> bool:
    for existing in existing_pod.spec.volumes:
        gce, egce = volume.gce_persistent_disk, existing.gce_persistent_disk
        if gce is not None and egce is not None:
            if gce.pd_name == egce.pd_name and not (gce.read_only and egce.read_only):
                return True
        ebs, eebs = volume.aws_elastic_block_store, existing.aws_elastic_block_store
        if ebs is not None and eebs is not None and ebs.volume_id == eebs.volume_id:
            return True
        iscsi, eiscsi = volume.iscsi, existing.iscsi
        if iscsi is not None and eiscsi is not None:
            if iscsi.iqn == eiscsi.iqn and not (iscsi.read_only and eiscsi.read_only):
                return True
        rbd, erbd = volume.rbd, existing.rbd
        if rbd is not None and erbd is not None:
            if (
                set(rbd.monitors) & set(erbd.monitors)
                and rbd.pool == erbd.pool
                and rbd.image == erbd.image
                and not (rbd.read_only and erbd.read_only)
            ):
                return True
    return False


def _disk_name(volume: o.Volume) -> str:
    if volume.gce_persistent_disk is not None:
        return f"gcePersistentDisk {volume.gce_persistent_disk.pd_name}"
    if volume.aws_elastic_block_store is not None:
        return f"awsElasticBlockStore {volume.aws_elastic_block_store.volume_id}"
    if volume.iscsi is not None:
        return f"iscsi {volume.iscsi.iqn}"
    if volume.rbd is not None:
        return f"rbd {volume.rbd.pool}/{volume.rbd.image}"
    return volume.name


class VolumeRestrictions(Plugin):
    NAME = names.VOLUME_RESTRICTIONS
    POD_PARTS = frozenset({PodPart.NAMESPACE, PodPart.OWN_OBJECTS, PodPart.SPEC})

    def required_kinds(self, pod: PodInfo) -> set[str]:
        """PersistentVolumeClaims when one of the pod's is not in the snapshot (a claim found speaks for itself)."""
        namespace = pod.pod.metadata.namespace
        for vol in pod.pod.spec.volumes:
            if vol.persistent_volume_claim is not None and (
                self.handle.pvc(namespace, vol.persistent_volume_claim.claim_name) is None
            ):
                return {"PersistentVolumeClaim"}
        return set()

    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        needs_check = any(needs_restrictions_check(vol) for vol in pod.pod.spec.volumes)
        namespace = pod.pod.metadata.namespace
        rwop: set[str] = set()
        for vol in pod.pod.spec.volumes:
            if vol.persistent_volume_claim is None:
                continue
            claim_name = vol.persistent_volume_claim.claim_name
            pvc = self.handle.pvc(namespace, claim_name)
            if pvc is None:
                claim = VolumeClaimEvidence(persistent_volume_claim=f"{namespace}/{claim_name}", volume=vol.name)
                return None, unresolvable(pvc_not_found(claim_name), evidence=[claim])
            if READ_WRITE_ONCE_POD in pvc.spec.access_modes:
                rwop.add(pvc.metadata.name)
        conflicts = 0
        holders: list[str] = []
        if rwop:
            used = {key for ni in self.handle.node_infos for key in ni.pvc_ref_counts}
            for claim_name in sorted(rwop):
                if f"{namespace}/{claim_name}" in used:
                    # At most one pod can be using a ReadWriteOncePod claim.
                    conflicts += 1
                    holders.extend(self._holders(namespace, claim_name))
        if not needs_check and conflicts == 0:
            return None, skip()
        state.write(STATE_KEY, _State(frozenset(rwop), conflicts, holders))
        return None, success()

    def _holders(self, namespace: str, claim_name: str) -> list[str]:
        key = f"{namespace}/{claim_name}"
        return [
            f"{pi.key} on {ni.name} uses PVC {key}"
            for ni in self.handle.node_infos
            if key in ni.pvc_ref_counts
            for pi in ni.pods
            if pi.pod.metadata.namespace == namespace
            and any(
                v.persistent_volume_claim is not None and v.persistent_volume_claim.claim_name == claim_name
                for v in pi.pod.spec.volumes
            )
        ]

    def add_pod(self, state: CycleState, pod: PodInfo, to_add: PodInfo, node_info: NodeInfo) -> Status:
        st: _State = state.read(STATE_KEY)
        refs = st.refs_by(to_add.pod)
        st.conflicting_ref_count += refs
        if refs:
            st.holders.append(f"{to_add.key} (nominated to {node_info.name}) uses a ReadWriteOncePod claim")
        return success()

    def remove_pod(self, state: CycleState, pod: PodInfo, to_remove: PodInfo, node_info: NodeInfo) -> Status:
        st: _State = state.read(STATE_KEY)
        st.conflicting_ref_count -= st.refs_by(to_remove.pod)
        st.holders = [h for h in st.holders if not h.startswith(f"{to_remove.key} ")]
        return success()

    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status:
        for vol in pod.pod.spec.volumes:
            if not needs_restrictions_check(vol):
                continue
            for existing in node_info.pods:
                if _is_volume_conflict(vol, existing.pod):
                    return unschedulable(
                        ERR_REASON_DISK_CONFLICT,
                        evidence=[
                            DiskConflictEvidence(volume=vol.name, disk=_disk_name(vol), conflicting_pod=existing.key)
                        ],
                    )
        st: _State = state.read(STATE_KEY)
        if st.conflicting_ref_count > 0:
            return unschedulable(
                ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT_V1_33
                if self.handle.emulation.read_write_once_pod_older_words
                else ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,
                evidence=[ReadWriteOncePodEvidence(claims=sorted(st.rwop_claims), in_use_by=list(st.holders))],
            )
        return success()
