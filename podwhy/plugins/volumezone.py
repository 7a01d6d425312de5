"""VolumeZone: the zone/region labels of the pod's bound PVs must match the node's."""

from __future__ import annotations

import msgspec

from podwhy.framework.evidence import VolumeClaimEvidence, VolumeZoneEvidence
from podwhy.framework.interface import CycleState, Plugin, PreFilterResult
from podwhy.framework.signature import PodPart
from podwhy.framework.status import Status, skip, success, unresolvable
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.helpers.persistentvolumes import claim_class
from podwhy.model import objects as o
from podwhy.model.wellknownnames import (
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
)
from podwhy.plugins import names
from podwhy.plugins.helper.volumes import (
    LABEL_MULTI_ZONE_DELIMITER,
    pv_not_found,
    pvc_not_found,
    storage_class_not_found,
)

ERR_REASON_CONFLICT = "node(s) had no available volume zone"

STATE_KEY = "PreFilterVolumeZone"

# Checked in this order, as upstream does.
TOPOLOGY_LABELS = (
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_TOPOLOGY_ZONE,
    LABEL_TOPOLOGY_REGION,
)

_TO_GA = {LABEL_FAILURE_DOMAIN_BETA_ZONE: LABEL_TOPOLOGY_ZONE, LABEL_FAILURE_DOMAIN_BETA_REGION: LABEL_TOPOLOGY_REGION}


class PVTopology(msgspec.Struct, frozen=True):
    pv_name: str
    key: str
    values: frozenset[str]


class _State(msgspec.Struct):
    topologies: list[PVTopology]

    def clone(self) -> _State:
        return self


def label_zones_to_set(value: str) -> frozenset[str] | None:
    """A PV zone label's zones ("a__b"); None when one of them is empty (the label is ignored)."""
    zones = [zone.strip() for zone in value.split(LABEL_MULTI_ZONE_DELIMITER)]
    if any(not zone for zone in zones):
        return None
    return frozenset(zones)


def pv_topologies(pv: o.PersistentVolume) -> list[PVTopology]:
    out = []
    for key in TOPOLOGY_LABELS:
        value = pv.metadata.labels.get(key)
        if value is None:
            continue
        zones = label_zones_to_set(value)
        if zones is not None:
            out.append(PVTopology(pv.metadata.name, key, zones))
    return out


class VolumeZone(Plugin):
    NAME = names.VOLUME_ZONE
    POD_PARTS = frozenset({PodPart.NAMESPACE, PodPart.OWN_OBJECTS, PodPart.SPEC})

    def required_kinds(self, pod: PodInfo) -> set[str]:
        """The kinds of the lookups that fail: an object found speaks for itself."""
        needed: set[str] = set()
        for vol in pod.pod.spec.volumes:
            if vol.persistent_volume_claim is None:
                continue
            pvc = self.handle.pvc(pod.pod.metadata.namespace, vol.persistent_volume_claim.claim_name)
            if pvc is None:
                needed.add("PersistentVolumeClaim")
            elif pvc.spec.volume_name:
                if self.handle.pv(pvc.spec.volume_name) is None:
                    needed.add("PersistentVolume")
            elif (sc_name := claim_class(pvc)) and self.handle.storage_class(sc_name) is None:
                needed.add("StorageClass")
        return needed

    def _topologies(self, pod: o.Pod) -> tuple[list[PVTopology], Status]:
        out: list[PVTopology] = []
        for vol in pod.spec.volumes:
            if vol.persistent_volume_claim is None:
                continue
            claim_name = vol.persistent_volume_claim.claim_name
            problem = self._claim_topologies(pod.metadata.namespace, claim_name, out)
            if problem:
                claim = VolumeClaimEvidence(
                    persistent_volume_claim=f"{pod.metadata.namespace}/{claim_name}", volume=vol.name
                )
                return [], unresolvable(problem, evidence=[claim])
        return out, success()

    def _claim_topologies(self, namespace: str, claim_name: str, out: list[PVTopology]) -> str:
        """Add the topologies of the claim's PV to out; why the pod cannot be scheduled, or ""."""
        if not claim_name:
            return "PersistentVolumeClaim had no name"
        pvc = self.handle.pvc(namespace, claim_name)
        if pvc is None:
            return pvc_not_found(claim_name)
        pv_name = pvc.spec.volume_name
        if not pv_name:
            sc_name = claim_class(pvc)
            if not sc_name:
                return "PersistentVolumeClaim had no pv name and storageClass name"
            sc = self.handle.storage_class(sc_name)
            if sc is None:
                return storage_class_not_found(sc_name)
            if sc.volume_binding_mode is None:
                return f'VolumeBindingMode not set for StorageClass "{sc_name}"'
            if sc.volume_binding_mode == "WaitForFirstConsumer":
                # Not bound yet: VolumeBinding picks a node-compatible volume.
                return ""
            return "PersistentVolume had no name"
        pv = self.handle.pv(pv_name)
        if pv is None:
            return pv_not_found(pv_name)
        out.extend(pv_topologies(pv))
        return ""

    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        topologies, status = self._topologies(pod.pod)
        if not status.is_success():
            return None, status
        if not topologies:
            return None, skip()
        state.write(STATE_KEY, _State(topologies))
        return None, success()

    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status:
        if not pod.pod.spec.volumes:
            return success()
        st: _State | None = state.get(STATE_KEY)
        if st is None:
            topologies, status = self._topologies(pod.pod)
            if not status.is_success():
                return status
        else:
            topologies = st.topologies
        labels = node_info.node.metadata.labels
        if not any(key in labels for key in TOPOLOGY_LABELS):
            # A node without topology labels (single-zone cluster) accepts any volume.
            return success()
        for topo in topologies:
            value = labels.get(topo.key)
            key = topo.key
            if value is None:
                key = _TO_GA.get(topo.key, topo.key)
                value = labels.get(key)
            if value is None or value not in topo.values:
                return unresolvable(
                    ERR_REASON_CONFLICT,
                    evidence=[
                        VolumeZoneEvidence(
                            persistent_volume=topo.pv_name,
                            label=topo.key,
                            volume_values=sorted(topo.values),
                            node_label=key,
                            node_value=value,
                        )
                    ],
                )
        return success()
