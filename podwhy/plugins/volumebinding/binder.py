"""The scheduler's volume binder, read-only: which PVs and provisioning a pod's claims get on a node."""

from __future__ import annotations

from fractions import Fraction
from typing import Literal, TypedDict

import msgspec

from podwhy.framework.handle import Handle
from podwhy.helpers.labelselectors import SelectorError, label_selector_as_selector
from podwhy.helpers.persistentvolumes import (
    NOT_SUPPORTED_PROVISIONER,
    WAIT_FOR_FIRST_CONSUMER,
    BinderError,
    check_node_affinity,
    claim_class,
    claim_key,
    find_matching_volume,
    requested_storage,
    volume_class,
)
from podwhy.helpers.resourcenames import STORAGE
from podwhy.model import objects as o
from podwhy.model.quantity import parse_quantity, value
from podwhy.model.wellknownnames import ANN_BIND_COMPLETED, ANN_SELECTED_NODE
from podwhy.plugins.helper.volumes import (
    MIGRATION_ON,
    TranslationError,
    match_topology_selector_terms,
    migrated_on_node,
    pod_claim_name,
    pv_plugin,
    translate_pv,
    volume_is_for_pod,
)

ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"


class PodVolumeClaims(msgspec.Struct):
    bound: list[o.PersistentVolumeClaim] = msgspec.field(default_factory=list)
    unbound_delay_binding: list[o.PersistentVolumeClaim] = msgspec.field(default_factory=list)
    unbound_immediate: list[o.PersistentVolumeClaim] = msgspec.field(default_factory=list)
    # PVs of the storage classes of the delay-binding claims, by class name.
    unbound_volumes_delay_binding: dict[str, list[o.PersistentVolume]] = msgspec.field(default_factory=dict)


class BindingInfo(msgspec.Struct):
    pvc: o.PersistentVolumeClaim
    pv: o.PersistentVolume


class DynamicProvision(msgspec.Struct):
    pvc: o.PersistentVolumeClaim
    node_capacity: o.CSIStorageCapacity | None


class PodVolumes(msgspec.Struct):
    static_bindings: list[BindingInfo] = msgspec.field(default_factory=list)
    dynamic_provisions: list[DynamicProvision] = msgspec.field(default_factory=list)


VolumeBindingTopic = Literal[
    "missing_persistent_volumes",
    "node_affinity_conflicts",
    "selected_for_other_node",
    "claims_without_matching_volume",
    "not_provisionable",
    "insufficient_capacity",
]


class VolumeBindingDetails(TypedDict, total=False):
    """The facts behind a node's rejection, by topic: VolumeBindingEvidence's fields."""

    missing_persistent_volumes: list[str]
    node_affinity_conflicts: list[str]
    selected_for_other_node: list[str]
    claims_without_matching_volume: list[str]
    not_provisionable: list[str]
    insufficient_capacity: list[str]


class NodeVolumeCheck(msgspec.Struct):
    """FindPodVolumes for one node: the reasons, what was found and the facts behind a rejection."""

    reasons: list[str]
    pod_volumes: PodVolumes
    details: VolumeBindingDetails = msgspec.field(default_factory=VolumeBindingDetails)

    def note(self, topic: VolumeBindingTopic, fact: str) -> None:
        self.details.setdefault(topic, []).append(fact)


class VolumeBinder:
    def __init__(self, handle: Handle) -> None:
        self.handle = handle
        self._pvs_by_class: dict[str, list[o.PersistentVolume]] | None = None

    def _pvs_of_class(self, class_name: str) -> list[o.PersistentVolume]:
        if self._pvs_by_class is None:
            index: dict[str, list[o.PersistentVolume]] = {}
            for pv in self.handle.snapshot.persistent_volumes.values():
                index.setdefault(volume_class(pv), []).append(pv)
            self._pvs_by_class = index
        return self._pvs_by_class.get(class_name, [])

    # ------------------------------------------------------------------ PreFilter
    def is_delay_binding_mode(self, pvc: o.PersistentVolumeClaim) -> bool:
        class_name = claim_class(pvc)
        if not class_name:
            return False
        sc = self.handle.storage_class(class_name)
        if sc is None:
            return False
        if sc.volume_binding_mode is None:
            raise BinderError(f'VolumeBindingMode not set for StorageClass "{class_name}"')
        return sc.volume_binding_mode == WAIT_FOR_FIRST_CONSUMER

    def get_pod_volume_claims(self, pod: o.Pod) -> PodVolumeClaims:
        """The pod's claims split into bound, delay-binding and immediate ones (claims must exist)."""
        out = PodVolumeClaims()
        for vol in pod.spec.volumes:
            claim = pod_claim_name(pod, vol)
            if claim is None:
                continue
            claim_name, is_ephemeral = claim
            pvc = self.handle.pvc(pod.metadata.namespace, claim_name)
            if pvc is None:
                raise BinderError(f'error getting PVC "{pod.metadata.namespace}/{claim_name}": not found')
            if is_ephemeral:
                problem = volume_is_for_pod(pod, pvc)
                if problem is not None:
                    raise BinderError(problem)
            if pvc.spec.volume_name and ANN_BIND_COMPLETED in pvc.metadata.annotations:
                out.bound.append(pvc)
            elif self.is_delay_binding_mode(pvc) and not pvc.spec.volume_name:
                out.unbound_delay_binding.append(pvc)
            else:
                # Immediate claims (and claims pre-bound to a PV) must already be bound.
                out.unbound_immediate.append(pvc)
        for pvc in out.unbound_delay_binding:
            class_name = claim_class(pvc)
            out.unbound_volumes_delay_binding[class_name] = self._pvs_of_class(class_name)
        return out

    # ------------------------------------------------------------------ Filter
    def find_pod_volumes(self, pod: o.Pod, claims: PodVolumeClaims, node: o.Node) -> NodeVolumeCheck:
        check = NodeVolumeCheck([], PodVolumes())
        bound_ok = unbound_ok = sufficient = pvs_found = True
        if claims.bound:
            bound_ok, pvs_found = self._check_bound_claims(claims.bound, node, check)
        if claims.unbound_delay_binding:
            unbound_ok, sufficient = self._check_unbound_claims(pod, claims, node, check)
        if not bound_ok:
            check.reasons.append(ERR_REASON_NODE_CONFLICT)
        if not unbound_ok:
            check.reasons.append(ERR_REASON_BIND_CONFLICT)
        if not sufficient:
            check.reasons.append(ERR_REASON_NOT_ENOUGH_SPACE)
        if not pvs_found:
            check.reasons.append(ERR_REASON_PV_NOT_EXIST)
        return check

    def _translate_if_migrated(self, pv: o.PersistentVolume, csi_node: o.CSINode | None) -> o.PersistentVolume:
        plugin = pv_plugin(pv)
        if plugin is None or plugin.in_tree_name not in MIGRATION_ON:
            return pv
        if not migrated_on_node(csi_node, plugin.in_tree_name):
            return pv
        try:
            return translate_pv(pv)
        except TranslationError as exc:
            raise BinderError(f"could not translate pv: {exc}") from exc

    def _check_bound_claims(
        self, claims: list[o.PersistentVolumeClaim], node: o.Node, check: NodeVolumeCheck
    ) -> tuple[bool, bool]:
        """(node affinity satisfied, PVs found) for the bound claims; stops at the first problem."""
        csi_node = self.handle.csi_node(node.metadata.name)
        for pvc in claims:
            pv = self.handle.pv(pvc.spec.volume_name)
            if pv is None:
                check.note("missing_persistent_volumes", f"{claim_key(pvc)} -> {pvc.spec.volume_name}")
                return True, False
            pv = self._translate_if_migrated(pv, csi_node)
            if not check_node_affinity(pv, node.metadata.labels):
                check.note("node_affinity_conflicts", f"{claim_key(pvc)} -> {pv.metadata.name}")
                return False, True
        return True, True

    def _check_unbound_claims(
        self, pod: o.Pod, claims: PodVolumeClaims, node: o.Node, check: NodeVolumeCheck
    ) -> tuple[bool, bool]:
        """(claims can be bound or provisioned, enough storage) for the delay-binding claims."""
        to_match: list[o.PersistentVolumeClaim] = []
        to_provision: list[o.PersistentVolumeClaim] = []
        for pvc in claims.unbound_delay_binding:
            selected = pvc.metadata.annotations.get(ANN_SELECTED_NODE)
            if selected is None:
                to_match.append(pvc)
            elif selected != node.metadata.name:
                check.note("selected_for_other_node", f"{claim_key(pvc)} -> {selected}")
                return False, True
            else:
                to_provision.append(pvc)
        unbound_ok = True
        if to_match:
            unbound_ok, unmatched = self._find_matching_volumes(to_match, claims, node, check)
            to_provision.extend(unmatched)
        if to_provision:
            provisionable, sufficient = self._check_volume_provisions(to_provision, node, check)
            if provisionable and sufficient:
                # The claims without a matching PV get provisioned instead.
                check.details.pop("claims_without_matching_volume", None)
            return provisionable, sufficient
        return unbound_ok, True

    def _find_matching_volumes(
        self,
        to_match: list[o.PersistentVolumeClaim],
        claims: PodVolumeClaims,
        node: o.Node,
        check: NodeVolumeCheck,
    ) -> tuple[bool, list[o.PersistentVolumeClaim]]:
        # Smallest requests first so they get the smallest fitting PVs.
        ordered = sorted(to_match, key=lambda pvc: requested_storage(pvc) or Fraction(0))
        chosen: set[str] = set()
        unmatched: list[o.PersistentVolumeClaim] = []
        for pvc in ordered:
            pvs = claims.unbound_volumes_delay_binding.get(claim_class(pvc), [])
            pv = find_matching_volume(pvc, pvs, node.metadata.labels, chosen)
            if pv is None:
                check.note("claims_without_matching_volume", claim_key(pvc))
                unmatched.append(pvc)
                continue
            chosen.add(pv.metadata.name)
            check.pod_volumes.static_bindings.append(BindingInfo(pvc, pv))
        return not unmatched, unmatched

    def _check_volume_provisions(
        self, to_provision: list[o.PersistentVolumeClaim], node: o.Node, check: NodeVolumeCheck
    ) -> tuple[bool, bool]:
        """(all claims can be provisioned here, enough capacity); stops at the first claim that fails."""
        provisions: list[DynamicProvision] = []
        for pvc in to_provision:
            class_name = claim_class(pvc)
            if not class_name:
                raise BinderError(f'no class for claim "{claim_key(pvc)}"')
            sc = self.handle.storage_class(class_name)
            if sc is None:
                raise BinderError(f'failed to find storage class "{class_name}"')
            if not sc.provisioner or sc.provisioner == NOT_SUPPORTED_PROVISIONER:
                check.note("not_provisionable", f"{claim_key(pvc)}: StorageClass {class_name} has no provisioner")
                return False, True
            if not match_topology_selector_terms(sc.allowed_topologies, node.metadata.labels):
                check.note("not_provisionable", f"{claim_key(pvc)}: node outside StorageClass {class_name} topologies")
                return False, True
            enough, capacity = self._has_enough_capacity(sc.provisioner, pvc, sc, node)
            if not enough:
                size = pvc.spec.resources.requests.get(STORAGE)
                check.note("insufficient_capacity", f"{claim_key(pvc)} requests {size} of StorageClass {class_name}")
                return True, False
            provisions.append(DynamicProvision(pvc, capacity))
        check.pod_volumes.dynamic_provisions = provisions
        return True, True

    def _has_enough_capacity(
        self, provisioner: str, pvc: o.PersistentVolumeClaim, sc: o.StorageClass, node: o.Node
    ) -> tuple[bool, o.CSIStorageCapacity | None]:
        requested = requested_storage(pvc)
        if requested is None:
            return True, None
        driver = self.handle.snapshot.csi_drivers.get(provisioner)
        if driver is None or not driver.spec.storage_capacity:
            # Not a CSI driver, or one that does not publish capacity: nothing to check.
            return True, None
        size = value(requested)
        for capacity in self.handle.snapshot.csi_storage_capacities:
            if (
                capacity.storage_class_name == sc.metadata.name
                and _capacity_sufficient(capacity, size)
                and _node_has_access(node, capacity)
            ):
                return True, capacity
        return False, None


def volume_limit(capacity: o.CSIStorageCapacity) -> Fraction | None:
    """The largest volume a CSIStorageCapacity allows: maximumVolumeSize if set, else capacity."""
    raw = capacity.maximum_volume_size if capacity.maximum_volume_size is not None else capacity.capacity
    return None if raw is None else parse_quantity(raw)


def _capacity_sufficient(capacity: o.CSIStorageCapacity, size: int) -> bool:
    limit = volume_limit(capacity)
    return limit is not None and value(limit) >= size


def _node_has_access(node: o.Node, capacity: o.CSIStorageCapacity) -> bool:
    if capacity.node_topology is None:
        return False
    try:
        selector = label_selector_as_selector(capacity.node_topology)
    except SelectorError:
        return False
    return selector.matches(node.metadata.labels)
