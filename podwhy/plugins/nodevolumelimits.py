"""NodeVolumeLimits: CSI volumes per driver must stay within the CSINode's allocatable count."""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec import UNSET

from podwhy.features.emulation import DEFAULT, Emulation
from podwhy.framework.evidence import VolumeCountEvidence
from podwhy.framework.interface import CycleState, Plugin, PreFilterResult
from podwhy.framework.plugin_args import PluginArgs
from podwhy.framework.signature import PodPart
from podwhy.framework.status import Status, error, skip, success, unresolvable, unschedulable
from podwhy.framework.types import NodeInfo, PodInfo
from podwhy.helpers.persistentvolumes import claim_class
from podwhy.model import objects as o
from podwhy.plugins import names
from podwhy.plugins.helper.volumes import (
    MIGRATION_ON,
    PORTWORX,
    TranslationError,
    inline_plugin,
    inline_volume_handle,
    migrated_on_node,
    plugin_by_in_tree_name,
    pod_claim_name,
    pv_plugin,
    pvc_not_found,
    translate_pv,
    volume_is_for_pod,
)

if TYPE_CHECKING:
    from podwhy.framework.handle import Handle

ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"

# Stands in for upstream's random prefix of the handles of not-yet-bound claims: the same
# unbound claim used by two pods is one volume, and never collides with a real handle.
UNBOUND_HANDLE_PREFIX = "podwhy-unbound-claim"


class _VolumeError(Exception):
    """filterAttachableVolumes failed; `not_found` marks a missing PVC of the new pod."""

    def __init__(self, message: str, not_found: bool = False) -> None:
        super().__init__(message)
        self.not_found = not_found


def is_csi_migration_on(csi_node: o.CSINode | None, plugin_name: str, emulation: Emulation = DEFAULT) -> bool:
    """isCSIMigrationOn: the in-tree plugin's volumes are handled (and counted) by its CSI driver
    on this node. Migration of the listed plugins is on; up to v1.35 Portworx's also needs the
    node's CSINode to list it as migrated, from v1.36 none does."""
    if csi_node is None or plugin_name not in MIGRATION_ON:
        return False
    if plugin_name == PORTWORX.in_tree_name and emulation.portworx_migration_needs_annotation:
        return migrated_on_node(csi_node, plugin_name)
    return True


def volume_limits(csi_node: o.CSINode | None) -> dict[str, int]:
    if csi_node is None:
        return {}
    return {
        d.name: d.allocatable.count
        for d in csi_node.spec.drivers
        if d.allocatable is not None and d.allocatable.count is not None
    }


class NodeVolumeLimits(Plugin):
    NAME = names.NODE_VOLUME_LIMITS
    CURED_BY_EMPTY_NODE = True
    POD_PARTS = frozenset({PodPart.NAMESPACE, PodPart.OWN_OBJECTS, PodPart.SPEC})

    def __init__(self, handle: Handle, args: PluginArgs | None = None) -> None:
        super().__init__(handle, args)
        self._limited: bool | None = None  # whether some CSINode limits a driver

    def required_kinds(self, pod: PodInfo) -> set[str]:
        """The limits are the CSINodes' (every node has one, kubelet makes it); with limits, counting
        the volumes of every pod on a node reads claims, PVs and classes."""
        if not any(self._counted_kind(vol) for vol in pod.pod.spec.volumes):
            return set()
        if "CSINode" in self.handle.snapshot.missing or self._any_limit():
            # VolumeAttachments count against a node's limit too (a volume still detaching).
            return {"PersistentVolumeClaim", "PersistentVolume", "StorageClass", "CSINode", "VolumeAttachment"}
        # No node limits any driver: only a claim of the pod's that is not found rejects it.
        namespace = pod.pod.metadata.namespace
        for vol in pod.pod.spec.volumes:
            claim = pod_claim_name(pod.pod, vol)
            if claim is not None and self.handle.pvc(namespace, claim[0]) is None:
                return {"PersistentVolumeClaim"}
        return set()

    def _any_limit(self) -> bool:
        if self._limited is None:
            self._limited = any(volume_limits(csi_node) for csi_node in self.handle.snapshot.csi_nodes.values())
        return self._limited

    @staticmethod
    def _counted_kind(vol: o.Volume) -> bool:
        return vol.persistent_volume_claim is not None or vol.ephemeral is not None or inline_plugin(vol) is not None

    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status]:
        if any(self._counted_kind(vol) for vol in pod.pod.spec.volumes):
            return None, success()
        return None, skip()

    # ------------------------------------------------------------------ volume discovery
    def _attachable_volumes(
        self, pod: o.Pod, csi_node: o.CSINode | None, new_pod: bool, result: dict[str, str]
    ) -> None:
        """Add the pod's CSI volumes to result as unique name -> driver name."""
        for vol in pod.spec.volumes:
            claim = pod_claim_name(pod, vol)
            if claim is None:
                self._inline_volume(vol, csi_node, result)
                continue
            claim_name, is_ephemeral = claim
            if not claim_name:
                raise _VolumeError("PersistentVolumeClaim had no name")
            pvc = self.handle.pvc(pod.metadata.namespace, claim_name)
            if pvc is None:
                if new_pod:
                    raise _VolumeError(
                        f"looking up PVC {pod.metadata.namespace}/{claim_name}: {pvc_not_found(claim_name)}",
                        not_found=True,
                    )
                # An existing pod's missing claim may not belong to it any more: not counted.
                continue
            if is_ephemeral:
                problem = volume_is_for_pod(pod, pvc)
                if problem is not None:
                    raise _VolumeError(problem)
            driver, handle = self._csi_driver_info(csi_node, pvc)
            if driver and handle:
                result[f"{driver}/{handle}"] = driver

    def _inline_volume(self, vol: o.Volume, csi_node: o.CSINode | None, result: dict[str, str]) -> None:
        plugin = inline_plugin(vol)
        if plugin is None or not is_csi_migration_on(csi_node, plugin.in_tree_name, self.handle.emulation):
            return
        try:
            handle = inline_volume_handle(vol, plugin)
        except TranslationError as exc:
            raise _VolumeError(f"converting volume({vol.name}) from inline to csi: {exc}") from exc
        if handle is not None:
            result[f"{plugin.csi_driver}/{handle}"] = plugin.csi_driver

    def _csi_driver_info(self, csi_node: o.CSINode | None, pvc: o.PersistentVolumeClaim) -> tuple[str, str]:
        pv_name = pvc.spec.volume_name
        pv = self.handle.pv(pv_name) if pv_name else None
        if pv is None:
            # Unbound, or bound to a PV that is gone: count it by its StorageClass.
            return self._csi_driver_info_from_class(csi_node, pvc)
        if pv.spec.csi is not None:
            return pv.spec.csi.driver, pv.spec.csi.volume_handle
        plugin = pv_plugin(pv)
        if plugin is None or not is_csi_migration_on(csi_node, plugin.in_tree_name, self.handle.emulation):
            return "", ""
        try:
            translated = translate_pv(pv)
        except TranslationError:
            return "", ""
        if translated.spec.csi is None:
            return "", ""
        return translated.spec.csi.driver, translated.spec.csi.volume_handle

    def _csi_driver_info_from_class(self, csi_node: o.CSINode | None, pvc: o.PersistentVolumeClaim) -> tuple[str, str]:
        sc_name = claim_class(pvc)
        if not sc_name:
            return "", ""
        sc = self.handle.storage_class(sc_name)
        if sc is None:
            return "", ""
        handle = f"{UNBOUND_HANDLE_PREFIX}-{pvc.metadata.namespace}/{pvc.metadata.name}"
        plugin = plugin_by_in_tree_name(sc.provisioner)
        if plugin is not None:
            if not is_csi_migration_on(csi_node, plugin.in_tree_name, self.handle.emulation):
                return "", ""
            return plugin.csi_driver, handle
        return sc.provisioner, handle

    def _node_attachments(self, node_name: str) -> dict[str, str]:
        """getNodeVolumeAttachmentInfo: the node's VolumeAttachments as unique volume name -> driver,
        those without an attacher, a PV name, an existing PV or a CSI PV left out."""
        out: dict[str, str] = {}
        for va in self.handle.volume_attachments(node_name):
            pv_name = va.spec.source.persistent_volume_name
            if not va.spec.attacher or pv_name is None:
                continue
            pv = self.handle.pv(pv_name)
            if pv is None or pv.spec.csi is None:
                continue
            out[f"{va.spec.attacher}/{pv.spec.csi.volume_handle}"] = va.spec.attacher
        return out

    # ------------------------------------------------------------------ filter
    def filter(self, state: CycleState, pod: PodInfo, node_info: NodeInfo) -> Status:
        if not pod.pod.spec.volumes:
            return success()
        csi_node = self.handle.csi_node(node_info.name)
        new_volumes: dict[str, str] = {}
        try:
            self._attachable_volumes(pod.pod, csi_node, True, new_volumes)
        except _VolumeError as exc:
            return unresolvable(str(exc)) if exc.not_found else error(str(exc))
        if not new_volumes:
            return success()
        limits = volume_limits(csi_node)
        if not limits:
            return success()
        attached: dict[str, str] = {}
        try:
            for existing in node_info.pods:
                self._attachable_volumes(existing.pod, csi_node, False, attached)
        except _VolumeError as exc:
            return error(str(exc))
        attached_count: dict[str, int] = {}
        for unique_name, driver in attached.items():
            # A volume already attached for another pod does not count again.
            new_volumes.pop(unique_name, None)
            attached_count[driver] = attached_count.get(driver, 0) + 1
        # Volumes VolumeAttachments keep attached to the node that no pod on it uses (a deleted
        # pod's volume still detaching); a new volume among them is not taken off new_volumes.
        held_by: dict[str, int] = {}
        for unique_name, driver in self._node_attachments(node_info.name).items():
            if unique_name not in attached:
                attached_count[driver] = attached_count.get(driver, 0) + 1
                held_by[driver] = held_by.get(driver, 0) + 1
        new_count: dict[str, int] = {}
        for driver in new_volumes.values():
            new_count[driver] = new_count.get(driver, 0) + 1
        for driver in sorted(new_count):
            limit = limits.get(driver)
            if limit is None:
                continue
            current = attached_count.get(driver, 0)
            if current + new_count[driver] > limit:
                facts = VolumeCountEvidence(
                    driver=driver,
                    attached=current,
                    # Of those attached: held by VolumeAttachments alone.
                    held_by_volume_attachments=held_by.get(driver) or UNSET,
                    new=new_count[driver],
                    limit=limit,
                    new_volumes=sorted(k for k, d in new_volumes.items() if d == driver),
                )
                return unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED, evidence=[facts])
        return success()
