"""PersistentVolumes and their claims as component-helpers' storage/volume sees them, shared by
the PV controller and the scheduler's volume binder: a claim's and a volume's storage class,
whether a PV is bound to a claim, a PV's node affinity, and FindMatchingVolume."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from podwhy.helpers.labelselectors import SelectorError, label_selector_as_selector
from podwhy.helpers.nodeselectors import LazyNodeSelector
from podwhy.helpers.resourcenames import STORAGE
from podwhy.model import objects as o
from podwhy.model.quantity import parse_quantity
from podwhy.model.wellknownnames import ANN_BETA_STORAGE_CLASS

# pv_helpers.go: a class whose provisioner this is provisions nothing (statically made PVs only).
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"

# storage/v1 VolumeBindingWaitForFirstConsumer: the scheduler binds the claim with its pod.
WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"


class BinderError(Exception):
    """What a volume binder reports as an error, not as a node's verdict (the scheduler's binder:
    status Error; the PV controller leaves the claim alone); the message is upstream's."""


def claim_key(pvc: o.PersistentVolumeClaim) -> str:
    """claimToClaimKey."""
    return f"{pvc.metadata.namespace}/{pvc.metadata.name}"


def requested_storage(pvc: o.PersistentVolumeClaim) -> Fraction | None:
    raw = pvc.spec.resources.requests.get(STORAGE)
    return None if raw is None else parse_quantity(raw)


def pv_capacity(pv: o.PersistentVolume) -> Fraction:
    raw = pv.spec.capacity.get(STORAGE)
    return Fraction(0) if raw is None else parse_quantity(raw)


def claim_class(pvc: o.PersistentVolumeClaim) -> str:
    """The claim's storage class; the beta annotation wins over the field."""
    annotated = pvc.metadata.annotations.get(ANN_BETA_STORAGE_CLASS)
    if annotated is not None:
        return annotated
    return pvc.spec.storage_class_name or ""


def volume_class(pv: o.PersistentVolume) -> str:
    annotated = pv.metadata.annotations.get(ANN_BETA_STORAGE_CLASS)
    if annotated is not None:
        return annotated
    return pv.spec.storage_class_name


def check_node_affinity(pv: o.PersistentVolume, node_labels: Mapping[str, str]) -> bool:
    """Whether a node with these labels satisfies the PV's required node affinity.

    The node carries labels only, as upstream builds it, so matchFields terms never reject.
    """
    affinity = pv.spec.node_affinity
    if affinity is None or affinity.required is None:
        return True
    node = o.Node(metadata=o.ObjectMeta(labels=dict(node_labels)))
    return LazyNodeSelector.parse(affinity.required).matches(node)


def is_volume_bound_to_claim(pv: o.PersistentVolume, pvc: o.PersistentVolumeClaim) -> bool:
    """IsVolumeBoundToClaim: the PV's claimRef names the claim (and its uid, when it has one)."""
    ref = pv.spec.claim_ref
    if ref is None or ref.name != pvc.metadata.name or ref.namespace != pvc.metadata.namespace:
        return False
    return not ref.uid or ref.uid == pvc.metadata.uid


def check_access_modes(pvc: o.PersistentVolumeClaim, pv: o.PersistentVolume) -> bool:
    """CheckAccessModes: the PV offers every access mode the claim asks for."""
    return set(pvc.spec.access_modes) <= set(pv.spec.access_modes)


def find_matching_volume(
    pvc: o.PersistentVolumeClaim,
    volumes: list[o.PersistentVolume],
    node_labels: Mapping[str, str] | None,
    excluded: set[str],
) -> o.PersistentVolume | None:
    """FindMatchingVolume: the PV pre-bound to the claim, else the smallest fit. With NODE_LABELS
    (the scheduler's path) the PV's node affinity and access modes must suit; without them (the
    PV controller's path, for a claim that binds Immediate) neither is checked here."""
    requested = requested_storage(pvc) or Fraction(0)
    requested_class = claim_class(pvc)
    selector = None
    if pvc.spec.selector is not None:
        try:
            selector = label_selector_as_selector(pvc.spec.selector)
        except SelectorError as exc:
            raise BinderError(f"error creating internal label selector for claim: {claim_key(pvc)}: {exc}") from exc
    claim_vac = pvc.spec.volume_attributes_class_name or ""
    smallest: o.PersistentVolume | None = None
    smallest_qty = Fraction(0)
    for pv in volumes:
        if pv.metadata.name in excluded:
            continue
        if pv.spec.claim_ref is not None and not is_volume_bound_to_claim(pv, pvc):
            continue
        qty = pv_capacity(pv)
        if qty < requested:
            continue
        if (pvc.spec.volume_mode or "Filesystem") != (pv.spec.volume_mode or "Filesystem"):
            continue
        if claim_vac != (pv.spec.volume_attributes_class_name or ""):
            continue
        if pv.metadata.deletion_timestamp is not None:
            continue
        affinity_ok = node_labels is None or check_node_affinity(pv, node_labels)
        if is_volume_bound_to_claim(pv, pvc):
            # A PV pre-bound to this claim is the only candidate.
            return pv if affinity_ok else None
        if pv.status.phase != "Available":
            continue
        if selector is not None and not selector.matches(pv.metadata.labels):
            continue
        if volume_class(pv) != requested_class:
            continue
        if not affinity_ok or (node_labels is not None and not check_access_modes(pvc, pv)):
            continue
        if smallest is None or smallest_qty > qty:
            smallest, smallest_qty = pv, qty
    return smallest
